"""Train MaskablePPO (sb3-contrib) on any environment of the package, solo or multiplayer.

Usage (from the repository root; needs the ``train`` extra)::

    python experiments/train.py --config experiments/configs/solo.toml \
        [--env empire_envs/EmpireSoloShaped-v0] [--env-kwarg length_limit=500] [--timesteps 200000] \
        [--seed 1] [--n-envs 4] [--vec-env subproc] [--out runs/my-run] [--overwrite] \
        [--set ppo.learning_rate=1e-4 --set eval.episodes=200] [--no-progress]

The same as ``python -m empire_envs train`` (its ``--help`` lists the flags), except that the
config defaults to ``experiments/configs/solo.toml``; the code is in ``empire_envs.training``.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from empire_envs.cli import main as cli_main

DEFAULT_CONFIG = Path(__file__).resolve().parent / "configs" / "solo.toml"


def main(argv: Sequence[str] | None = None) -> int:
    # a --config given on the command line comes later, so it wins
    return cli_main(["train", "--config", str(DEFAULT_CONFIG), *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    raise SystemExit(main())
