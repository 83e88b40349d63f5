"""Evaluate agents on any environment of the package: win/loss/draw rates with intervals.

Usage (from the repository root)::

    python experiments/evaluate.py --env empire_envs/EmpireSolo-v0 \\
        --agent random --agent heuristic --episodes 2000 --seed 0 [--json out.json | --json -]
    python experiments/evaluate.py --env classic/tictactoe-v3 \\
        --agent ppo:runs/ttt/model.zip --opponent random --episodes 1000

The same as ``python -m empire_envs evaluate`` (its ``--help`` lists the flags); the code is in
``empire_envs.evaluation.evaluate``.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from empire_envs.cli import main as cli_main


def main(argv: Sequence[str] | None = None) -> int:
    return cli_main(["evaluate", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    raise SystemExit(main())
