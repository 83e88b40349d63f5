"""Generate the Markdown source tree of the documentation site (built with MkDocs Material).

Usage (from the repository root)::

    python experiments/build_docs.py --out build/docs_src
    mkdocs build --strict -f mkdocs.yml            # reads build/docs_src, writes build/site

The same as ``python -m empire_envs docs`` run from the repository root; the code is in
``empire_envs.cli.docs_site``, which lists what the tree holds.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from empire_envs.cli import main as cli_main

ROOT = Path(__file__).resolve().parents[1]


def main(argv: Sequence[str] | None = None) -> int:
    # an --out given on the command line comes later, so it wins
    defaults = ["--root", str(ROOT), "--out", str(ROOT / "build" / "docs_src")]
    return cli_main(["docs", *defaults, *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    raise SystemExit(main())
