"""Benchmark agents on several environments and variants over several seeds: one results table.

Usage (from the repository root)::

    python experiments/benchmark.py --env empire_envs/EmpireSolo-v0 \\
        --env empire_envs/EmpireSoloMergeInBattle-v0 --env empire_envs/EmpireSolitaire-v0 \\
        --agent random --agent heuristic --seeds 0 1 2 --episodes 500 --out runs/benchmark
    python experiments/benchmark.py --env empire_envs/EmpireSolo-v0@length_limit=200,shaping=1.0 \\
        --agent heuristic --agent ppo:runs/solo/model.zip --seeds 0 1

The same as ``python -m empire_envs benchmark`` (its ``--help`` lists the flags); the code is in
``empire_envs.evaluation.benchmark``.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from empire_envs.cli import main as cli_main


def main(argv: Sequence[str] | None = None) -> int:
    return cli_main(["benchmark", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    raise SystemExit(main())
