"""Train MaskablePPO (sb3-contrib) on any environment of the package, solo or multiplayer, or
compiled PPO (``--backend jax``) on a solo game with a JAX twin.

Usage (from the repository root; needs the ``train`` extra, or the ``jax`` extra for ``--backend jax``)::

    python experiments/train.py --config experiments/configs/solo.toml \
        [--env empire_envs/EmpireSoloShaped-v0] [--env-kwarg length_limit=500] [--timesteps 200000] \
        [--seed 1] [--n-envs 4] [--vec-env subproc] [--out runs/my-run] [--overwrite] \
        [--set ppo.learning_rate=1e-4 --set eval.episodes=200] [--no-progress]
    python experiments/train.py --backend jax [--config experiments/configs/jax/solo.toml] ...

The same as ``python -m empire_envs train`` (its ``--help`` lists the flags), except that the
config defaults to ``experiments/configs/solo.toml`` (``configs/jax/solo.toml`` with ``--backend
jax``); the code is in ``empire_envs.training``.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from empire_envs.cli import main as cli_main
from empire_envs.cli.training_commands import backend_named

CONFIGS = Path(__file__).resolve().parent / "configs"


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    default = CONFIGS / ("jax/solo.toml" if backend_named(args, "sb3") == "jax" else "solo.toml")
    return cli_main(["train", "--config", str(default), *args])  # a --config given later wins


if __name__ == "__main__":
    raise SystemExit(main())
