"""Generate the Markdown source tree of the documentation site (built with MkDocs Material).

Usage (from the repository root)::

    python experiments/build_docs.py --out build/docs_src
    mkdocs build --strict -f mkdocs.yml            # reads build/docs_src, writes build/site

The same as ``python docs/tools/build_site.py`` (what ``make docs`` runs), with the same flags: the
site is built from the checkout's README and ``docs/``, so its builder is a tool of the
repository, not a command of the package. That script lists what the tree holds.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

TOOL = Path(__file__).resolve().parents[1] / "docs" / "tools" / "build_site.py"


def main(argv: Sequence[str] | None = None) -> int:
    # a script of its own, so that its folder, with the modules it imports, comes first on the path
    return subprocess.call([sys.executable, str(TOOL), *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    raise SystemExit(main())
