"""Environment speed: decisions per second under a random masked policy, peers in the same run.

Usage (from the repository root)::

    python experiments/bench_speed.py [--seconds 5] [--repeat 1] [--only solo,peers] [--json PATH]

The same as ``python -m empire_envs bench`` (its ``--help`` lists the flags); the code is in
``empire_envs.evaluation.speed`` (the rows come from the registry's game table).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from empire_envs.cli import main as cli_main


def main(argv: Sequence[str] | None = None) -> int:
    return cli_main(["bench", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    raise SystemExit(main())
