"""Empire Solitaire: bounds on the fair optimum (the best win probability of a player who does not
see the stock order) of the env's deals, searched with the expectimax of
``empire_envs/games/solitaire/fair.py``.

Usage (from the repository root)::

    python experiments/solitaire_fair_optimum.py --deals 200 --seconds 6 --json PATH
    python experiments/solitaire_fair_optimum.py --deals 50 --seconds 2 --after-reveals 2

The same as ``python -m empire_envs fair-optimum`` (its ``--help`` lists the flags); the code is
in ``empire_envs.evaluation.fair_optimum``.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from empire_envs.cli import main as cli_main


def main(argv: Sequence[str] | None = None) -> int:
    return cli_main(["fair-optimum", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    raise SystemExit(main())
