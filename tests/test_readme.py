"""The README's Python examples run as printed."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pytest

from empire_envs.registry import GAMES

README = Path(__file__).resolve().parents[1] / "README.md"

#: every ```python block of the README holds exactly one of these, and the test named here runs it
BLOCK_MARKERS = {
    'gym.make("empire_envs/EmpireSolo-v0", render_mode="ansi")': "test_gymnasium_quickstart_runs",
    "MaskablePPO": "test_maskable_ppo_block_trains_and_plays_through_wrappers",
    'vectorization_mode="sync"': "test_vector_block_plays_through_autoreset_sync_and_async",
    'vectorization_mode="vector_entry_point"': "test_batched_jax_block_gives_the_jax_vector_env",
    'pettingzoo.make("aec"': "test_pettingzoo_quickstart_runs",
}


def python_blocks() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.DOTALL)


def block_with(marker: str) -> str:
    blocks = [block for block in python_blocks() if marker in block]
    assert len(blocks) == 1, f"the README shows {len(blocks)} python blocks with {marker!r}, not one"
    return blocks[0]


def run_block(block: str) -> dict[str, Any]:
    namespace: dict[str, Any] = {}
    exec(compile(block, str(README), "exec"), namespace)  # noqa: S102
    return namespace


def test_every_python_block_is_run_by_a_test():
    for block in python_blocks():
        markers = [marker for marker in BLOCK_MARKERS if marker in block]
        assert len(markers) == 1, f"give this README block one test and a marker in BLOCK_MARKERS:\n{block}"
    for marker, test in BLOCK_MARKERS.items():
        assert sum(marker in block for block in python_blocks()) == 1, f"{test} finds no single block with {marker!r}"


def test_gymnasium_quickstart_runs(capsys):
    namespace = run_block(block_with(next(iter(BLOCK_MARKERS))))
    assert namespace["info"]["outcome"] in ("won", "lost", "truncated")
    assert "Empire solo" in capsys.readouterr().out


def test_maskable_ppo_block_trains_and_plays_through_wrappers(capsys):
    """MaskablePPO on ``Monitor(gym.make(...))`` with no ActionMasker, masks read through the
    wrappers; the env raises on an illegal action, so finishing the block proves none was taken."""
    pytest.importorskip("sb3_contrib")
    from stable_baselines3.common.monitor import Monitor

    block = block_with("MaskablePPO")
    assert "ActionMasker" not in block and ".unwrapped" not in block, "the block shows the call through wrappers"
    namespace = run_block(block)
    assert isinstance(namespace["env"], Monitor)
    assert namespace["model"].num_timesteps >= 512
    assert namespace["info"]["outcome"] in ("won", "lost", "truncated")
    assert namespace["info"]["outcome"] in capsys.readouterr().out


def test_vector_block_plays_through_autoreset_sync_and_async(capsys):
    """The README's make_vec loop, as printed (sync) and with ``"async"`` put in its place: masked
    sampling keeps working across the episode ends of every copy."""
    block = block_with('vectorization_mode="sync"')
    as_printed = 'vectorization_mode="sync"'
    assert block.count(as_printed) == 1
    for mode in ("sync", "async"):
        namespace = run_block(block.replace(as_printed, f'vectorization_mode="{mode}"'))
        assert namespace["envs"].metadata["autoreset_mode"] == gym.vector.AutoresetMode.SAME_STEP
        outcomes = namespace["outcomes"]
        assert len(outcomes) >= 20 and set(outcomes) <= {"won", "lost", "truncated"}, (mode, outcomes)
        assert f"of {len(outcomes)} episodes won" in capsys.readouterr().out


def test_batched_jax_block_gives_the_jax_vector_env():
    """The README's batched block as printed (4,096 games) returns the JAX VectorEnv, its masks
    int8, one row per game, none empty."""
    pytest.importorskip("jax")
    from empire_envs.jax import JaxVectorEnv

    namespace = run_block(block_with('vectorization_mode="vector_entry_point"'))
    assert isinstance(namespace["envs"], JaxVectorEnv)
    mask = namespace["info"]["action_mask"]
    assert namespace["obs"].shape == (4096, 207) and mask.shape == (4096, 68) and mask.dtype == np.int8
    assert mask.any(axis=1).all()


def test_pettingzoo_quickstart_runs(capsys):
    namespace = run_block(block_with('pettingzoo.make("aec"'))
    assert not namespace["env"].agents, "the PettingZoo loop plays the game to its end"
    assert namespace["info"]["result"].startswith(("won by seat", "truncated"))
    assert "Pillars, 4 players" in capsys.readouterr().out


def test_readme_gallery_shows_one_fresh_frame_per_game(tmp_path):
    """Every picture of ``python -m empire_envs gallery`` is in the README, and the files on disk
    are exactly what the command writes now (so a change to a renderer shows up here)."""
    from PIL import Image, ImageChops

    from empire_envs.cli.gallery import GALLERY_FOLDER, gallery_shots, write_gallery

    root = README.parent
    text = README.read_text()
    shown = {game.key for game in GAMES if game.gallery is not None}
    assert set(gallery_shots()) == shown, "one gallery picture per game that asks for one"
    assert {"solo", "solitaire", "pillars", "map_duel", "generals"} <= shown
    for fresh in write_gallery(tmp_path, log=lambda line: None):
        shown = f"{GALLERY_FOLDER.as_posix()}/{fresh.name}"
        assert f"]({shown})" in text, f"the README does not show {shown}"
        with Image.open(root / shown) as kept, Image.open(fresh) as made:
            assert kept.format == "PNG" and kept.size == made.size
            assert ImageChops.difference(kept.convert("RGB"), made.convert("RGB")).getbbox() is None, (
                f"{shown} is stale: run python -m empire_envs gallery"
            )
