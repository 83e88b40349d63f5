"""The README's Python examples run as printed."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_python_blocks_run(capsys):
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.DOTALL)
    assert len(blocks) == 2, "the README shows a Gymnasium and a PettingZoo quickstart"
    gym_block, aec_block = blocks
    namespace: dict = {}
    exec(compile(gym_block, str(README), "exec"), namespace)  # noqa: S102
    assert namespace["info"]["outcome"] in ("won", "lost", "truncated")
    assert "Empire solo" in capsys.readouterr().out
    namespace = {}
    exec(compile(aec_block, str(README), "exec"), namespace)  # noqa: S102
    assert not namespace["env"].agents, "the PettingZoo loop plays the game to its end"
    assert namespace["info"]["result"].startswith(("won by seat", "truncated"))
    assert "Pillars, 4 players" in capsys.readouterr().out
