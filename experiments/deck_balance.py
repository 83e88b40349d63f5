"""Deck balance of Empires and Generals: every pairing of the prebuilt decks, same agent on both sides.

Usage (from the repository root)::

    python experiments/deck_balance.py --games 200 --out docs/benchmarks/generals
    python experiments/deck_balance.py --card-pool my_pool.toml --deck-files a.toml b.toml c.toml

The same as ``python -m empire_envs deck-balance`` (its ``--help`` lists the flags); the code is in
``empire_envs.evaluation.deck_balance``.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from empire_envs.cli import main as cli_main


def main(argv: Sequence[str] | None = None) -> int:
    return cli_main(["deck-balance", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    raise SystemExit(main())
