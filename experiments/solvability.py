"""Empire Solitaire: the share of random deals that perfect play wins with the stock known.

Usage (from the repository root)::

    python experiments/solvability.py --deals 1000 --seed 0 [--json PATH | --json -]
        [--backend auto|fast|python] [--node-limit N]

The same as ``python -m empire_envs solvability`` (its ``--help`` lists the flags); the code is in
``empire_envs.evaluation.solvability``.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from empire_envs.cli import main as cli_main
from empire_envs.evaluation.solvability import format_report, run  # noqa: F401  (tests/solitaire/test_solver.py)


def main(argv: Sequence[str] | None = None) -> int:
    return cli_main(["solvability", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    raise SystemExit(main())
