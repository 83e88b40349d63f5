"""The commands that write the repository's pictures and documentation site from a checkout:
``gallery`` (the README's frames, ``cli.gallery``) and ``docs`` (the site's Markdown tree,
``cli.docs_site``). Both iterate the registry's game table.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .arguments import check_output_folder
from .common import CliError
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
    sub = commands.add_parser(
        "docs",
        help="write the documentation site's Markdown tree (then: mkdocs build --strict)",
        description="Generate the Markdown source tree of the documentation site from a checkout: the "
        "README as the home page, one page per registered id, the rules pages, the how-tos and the API "
        "page. mkdocs build --strict -f mkdocs.yml then builds the site from it.",
    )
    sub.add_argument(
        "--out",
        type=Path,
        default=Path("build") / "docs_src",
        help="the folder to write the Markdown tree into (an earlier tree there is replaced, a folder "
        "holding other files refused; default build/docs_src)",
    )
    sub.add_argument(
        "--root", type=Path, default=Path("."), help="the repository checkout to read (default: the current folder)"
    )


def cmd_gallery(args: argparse.Namespace) -> int:
    """Write every picture, naming each file written."""
    check_output_folder(args.out)
    write_gallery(args.out)
    return 0


def cmd_docs(args: argparse.Namespace) -> int:
    """Write the tree and say how many pages it holds."""
    from .docs_site import build, count_pages

    check_output_folder(args.out)
    try:
        nav = build(args.out, args.root.resolve())
    except (FileNotFoundError, FileExistsError) as error:
        raise CliError(str(error)) from None
    pages, env_pages = count_pages(args.out, nav)
    print(f"wrote {pages} Markdown pages ({env_pages} environment pages) to {args.out}")
    return 0


COMMANDS: dict[str, Command] = {"gallery": cmd_gallery, "docs": cmd_docs}

__all__ = ["COMMANDS", "add_parsers"]
