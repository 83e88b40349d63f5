"""The `make demo` job: train MaskablePPO on Empire solo, then compare it with random and heuristic play.

    python experiments/demo.py [--config experiments/configs/demo.toml] [--timesteps N]
                               [--episodes 1000] [--seed 0] [--out runs/demo] [--show-game]

Trains on ``empire_envs/EmpireSolo-v0`` with the budget of ``configs/demo.toml`` (500,000
timesteps, about three minutes on 2 CPU cores), saves the model, its logs and a learning-curve PNG
under ``runs/demo/`` of the repository (replacing an earlier demo run), then plays the trained
agent, the random agent and the heuristic on the same ``--episodes`` deals and prints the table
with 95% intervals. The same as ``python -m empire_envs demo`` with those two defaults; the code
is in ``empire_envs.training.demo``.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from empire_envs.cli import main as cli_main

HERE = Path(__file__).resolve().parent
DEMO_CONFIG = HERE / "configs" / "demo.toml"
DEMO_OUT = HERE.parent / "runs" / "demo"


def main(argv: Sequence[str] | None = None) -> int:
    # flags given on the command line come later, so they win
    defaults = ["--config", str(DEMO_CONFIG), "--out", str(DEMO_OUT)]
    return cli_main(["demo", *defaults, *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":
    raise SystemExit(main())
