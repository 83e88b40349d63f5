"""The README's gallery: one real rendered frame per game, written by the ``render`` command.

``python -m empire_envs gallery`` (and ``experiments/gallery.py``) writes
``docs/images/gallery/<game>.png``. Each picture is the position after a few decisions of a
seeded game, so the frames are the same on every run (the renders draw from no random
generator). The registry's game table says what is shown (``GameEntry.gallery``);
``tests/test_readme.py`` checks that the README shows each file and that each is a PNG of the
game's own render size.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..registry import NAMESPACE, all_games, entry
from .render import RenderRequest, run_render

#: where the README's pictures live, relative to the repository root
GALLERY_FOLDER = Path("docs") / "images" / "gallery"


@dataclass(frozen=True)
class Shot:
    """One picture: the env id, the deal's seed, the decisions played before it, the agent on
    every seat."""

    env_id: str
    seed: int
    steps: int
    agent: str


def gallery_shots() -> dict[str, Shot]:
    """File stem (the game's key) -> its picture, for every game whose ``GameEntry.gallery`` asks
    for one (the game's first variant)."""
    return {
        game.key: Shot(
            f"{NAMESPACE}/{game.variants[0].name}", game.gallery.seed, game.gallery.steps, game.gallery.agent
        )
        for game in all_games()
        if game.gallery is not None
    }


def write_gallery(out: Path, log: Callable[[str], None] = print) -> list[Path]:
    """Render every picture of ``gallery_shots`` as ``out/<key>.png``; returns the paths."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for stem, shot in gallery_shots().items():
        path = out / f"{stem}.png"
        log(run_render(RenderRequest(entry(shot.env_id), shot.seed, shot.steps, path, shot.agent)))
        written.append(path)
    return written
