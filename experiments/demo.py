"""The `make demo` job: train on Empire solo, then compare the trained agent with random and heuristic play.

    python experiments/demo.py [--backend jax|sb3] [--config FILE] [--timesteps N] [--set KEY=VALUE]
                               [--episodes 1000] [--seed 0] [--out DIR] [--compare AGENT] [--show-game]

By default it trains compiled PPO (``--backend jax``) on ``empire_envs/EmpireSolo-v0`` with the
budget of ``configs/jax/demo.toml`` into ``runs/demo/``; ``--backend sb3`` trains MaskablePPO with
``configs/demo.toml`` into ``runs/demo-sb3/``. Either run folder, the demo's own, is replaced
(``--overwrite``; a folder given with ``--out`` is replaced only when ``--overwrite`` is given too). Then it plays the
trained agent, the random agent, the heuristic and, once an SB3 demo has run, that SB3 model on the
same ``--episodes`` deals and prints the table with 95% intervals. The same as ``python -m
empire_envs demo`` with those defaults; the code is in ``empire_envs.training.demo``.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from empire_envs.cli import main as cli_main
from empire_envs.cli.training_commands import backend_named, flag_value

HERE = Path(__file__).resolve().parent
RUNS = HERE.parent / "runs"
SB3_MODEL = RUNS / "demo-sb3" / "model.zip"


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if backend_named(args, "jax") == "jax":
        defaults = ["--config", str(HERE / "configs/jax/demo.toml"), "--out", str(RUNS / "demo")]
        defaults += ["--compare", f"ppo:{SB3_MODEL}"] if SB3_MODEL.is_file() else []
    else:
        defaults = ["--config", str(HERE / "configs/demo.toml"), "--out", str(RUNS / "demo-sb3")]
    if flag_value(args, "--out", None) is None:  # its own run folder: the last demo's run is replaced
        defaults.append("--overwrite")
    return cli_main(["demo", *defaults, *args])  # flags given on the command line come later, so they win


if __name__ == "__main__":
    raise SystemExit(main())
