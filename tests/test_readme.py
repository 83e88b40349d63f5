"""The README's Python examples run as printed."""

from __future__ import annotations

import re
from pathlib import Path

from empire_envs.registry import ENTRIES

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


def test_readme_gallery_shows_one_fresh_frame_per_game(tmp_path):
    """Every picture of ``experiments/gallery.py`` is in the README, and the files on disk are
    exactly what the script writes now (so a change to a renderer shows up here)."""
    import importlib.util

    from PIL import Image, ImageChops

    root = README.parent
    spec = importlib.util.spec_from_file_location("gallery", root / "experiments" / "gallery.py")
    assert spec is not None and spec.loader is not None
    gallery = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gallery)
    text = README.read_text()
    games = {item.entry_point.split(".")[2] for item in ENTRIES}
    assert set(gallery.GALLERY) == games, "one gallery picture per game"
    for fresh in gallery.write_gallery(tmp_path):
        shown = f"docs/images/gallery/{fresh.name}"
        assert f"]({shown})" in text, f"the README does not show {shown}"
        with Image.open(root / shown) as kept, Image.open(fresh) as made:
            assert kept.format == "PNG" and kept.size == made.size
            assert ImageChops.difference(kept.convert("RGB"), made.convert("RGB")).getbbox() is None, (
                f"{shown} is stale: run python experiments/gallery.py"
            )
