"""Behaviour cloning: fit a MaskablePPO policy to the moves of a teacher agent (solo envs).

Usage (from the repository root)::

    python experiments/imitate.py --env empire_envs/EmpireSolitaireShaped-v0 --teacher greedy \\
        --episodes 20000 --epochs 10 --out runs/solitaire-bc [--config experiments/configs/solitaire.toml]

The same as ``python -m empire_envs imitate`` (its ``--help`` lists the flags); the code is in
``empire_envs.training.imitate`` (needs the train extra).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from empire_envs.cli import main as cli_main


def main(argv: Sequence[str] | None = None) -> int:
    return cli_main(["imitate", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    raise SystemExit(main())
