"""Train PPO with Ray RLlib (new API stack, action-masking RLModule) on any env id of the registry.

Usage (from the repository root)::

    python experiments/train_rllib.py --env empire_envs/EmpireSolo-v0 --iterations 20 --num-env-runners 2
    python experiments/train_rllib.py --env empire_envs/MapDuel-v0 --env-kwarg length_limit=40 --policy shared
    python experiments/train_rllib.py --env empire_envs/Pillars-v0 --opponents heuristic
    RAY_ADDRESS=ray://head:10001 python experiments/train_rllib.py --env ...  # or --address

The same as ``python -m empire_envs train-rllib`` (its ``--help`` lists the flags); the code is in
``empire_envs.training.rllib`` (needs the distributed extra).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from empire_envs.cli import main as cli_main


def main(argv: Sequence[str] | None = None) -> int:
    return cli_main(["train-rllib", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    raise SystemExit(main())
