"""The README's gallery: one real rendered frame per game.

    python experiments/gallery.py            # writes docs/images/gallery/<game>.png

The same as ``python -m empire_envs gallery`` run from the repository root (the registry's game
table says what is shown: ``GameEntry.gallery``); the code is in ``empire_envs.cli.gallery``.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from empire_envs.cli import main as cli_main

GALLERY = Path(__file__).resolve().parents[1] / "docs" / "images" / "gallery"


def main(argv: Sequence[str] | None = None) -> int:
    # an --out given on the command line comes later, so it wins
    return cli_main(["gallery", "--out", str(GALLERY), *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    raise SystemExit(main())
