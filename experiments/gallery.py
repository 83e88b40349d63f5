"""The README's gallery: one real rendered frame per game, written by the ``render`` command.

    python experiments/gallery.py            # writes docs/images/gallery/<game>.png

Each picture is the position after a few decisions of a seeded heuristic game, so the frames are
the same on every run (the renders draw from no random generator). The registry's game table
says what is shown (``GameEntry.gallery``); ``tests/test_readme.py`` checks that the README shows
each file and that each is a PNG of the game's own render size.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from empire_envs.cli.render import RenderRequest, run_render  # noqa: E402
from empire_envs.registry import GAMES, NAMESPACE, entry  # noqa: E402

OUT = ROOT / "docs" / "images" / "gallery"

#: file stem (the game's key) -> (env id, seed, decisions played before the picture, agent on
#: every seat), from each game's ``GameEntry.gallery`` in the registry
GALLERY: dict[str, tuple[str, int, int, str]] = {
    game.key: (f"{NAMESPACE}/{game.variants[0].name}", game.gallery.seed, game.gallery.steps, game.gallery.agent)
    for game in GAMES
    if game.gallery is not None
}


def write_gallery(out: Path = OUT) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for stem, (env_id, seed, steps, agent) in GALLERY.items():
        path = out / f"{stem}.png"
        print(run_render(RenderRequest(entry(env_id), seed, steps, path, agent)))
        written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT, help="folder for the pictures")
    args = parser.parse_args(argv)
    write_gallery(args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
