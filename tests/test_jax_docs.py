"""The code of docs/jax.md runs as printed (with smaller batches, to keep the suite quick)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

pytest.importorskip("jax")

PAGE = Path(__file__).resolve().parent.parent / "docs" / "jax.md"


def _blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", PAGE.read_text(), flags=re.S)


def _smaller(code: str) -> str:
    """The block with its batch of 1024 games cut to 8 and its 1024 steps to 16 (the self-play
    block keeps its 1024 decisions, so that some Map Duel games end)."""
    smaller = code.replace("NUM_ENVS, STEPS = 1024, 1024", "NUM_ENVS, STEPS = 8, 16")
    smaller = smaller.replace("NUM_GAMES, DECISIONS = 1024, 1024", "NUM_GAMES, DECISIONS = 8, 1024")
    return smaller.replace("num_envs=1024", "num_envs=8").replace(", 1024)", ", 8)")


def test_the_page_has_its_four_examples():
    blocks = _blocks()
    assert len(blocks) == 4
    assert 'vectorization_mode="vector_entry_point"' in blocks[0]
    assert "jax.vmap(env.step)" in blocks[1]
    assert "NUM_ENVS, STEPS = 1024, 1024" in blocks[2] and "1,048,576" in blocks[2]
    assert 'make("MapDuel-v0")' in blocks[3] and "NUM_GAMES, DECISIONS = 1024, 1024" in blocks[3]


@pytest.mark.parametrize("index", [0, 1, 2, 3])
def test_each_example_runs(index, capsys):
    code = _smaller(_blocks()[index])
    assert code != _blocks()[index], "the batch was not made smaller"
    exec(compile(code, f"docs/jax.md block {index}", "exec"), {"__name__": "docs_example"})
    printed = capsys.readouterr().out
    if index == 2:
        assert re.search(r"128 steps, \d+ games, \d+ won, in ", printed), printed
    if index == 3:  # 8,192 decisions of random play end some games (about 700 decisions each)
        found = re.search(r"^([\d,]+) games ended; returns: player_0 [+-]\d+, player_1 [+-]\d+$", printed, re.M)
        assert found and int(found[1].replace(",", "")) > 0, printed
