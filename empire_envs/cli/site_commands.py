"""The command that writes the repository's pictures: ``gallery`` (the README's frames,
``cli.gallery``), iterating the registry's game table. (The documentation site is built by a
tool of the repository, ``docs/tools/build_site.py``, not by the package: it reads the README
and ``docs/``, which an installed package does not carry.)
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .arguments import check_output_folder
from .gallery import GALLERY_FOLDER, write_gallery

Subparsers = Any  # argparse's private _SubParsersAction
Command = Callable[[argparse.Namespace], int]


def add_parsers(commands: Subparsers) -> None:
    """Add this module's commands to the ``python -m empire_envs`` parser."""
    sub = commands.add_parser(
        "gallery",
        help="write the README's gallery: one rendered frame per game",
        description="Render the position after a few decisions of a seeded game of every game whose "
        "registry entry asks for a picture (GameEntry.gallery), as <key>.png.",
    )
    sub.add_argument(
        "--out", type=Path, default=GALLERY_FOLDER, help=f"folder for the pictures (default {GALLERY_FOLDER})"
    )


def cmd_gallery(args: argparse.Namespace) -> int:
    """Write every picture, naming each file written."""
    check_output_folder(args.out)
    write_gallery(args.out)
    return 0


COMMANDS: dict[str, Command] = {"gallery": cmd_gallery}

__all__ = ["COMMANDS", "add_parsers"]
