"""Train PPO with Ray RLlib (new API stack, action-masking RLModule) on any env id of the registry.

Needs the ``distributed`` extra (``pip install torch==2.13.0 'empire-envs[distributed]'``).

    python experiments/train_rllib.py --env empire_envs/EmpireSolo-v0 --iterations 20 --num-env-runners 2
    python experiments/train_rllib.py --env empire_envs/MapDuel-v0 --env-kwarg length_limit=40 --policy shared
    python experiments/train_rllib.py --env empire_envs/Pillars-v0 --opponents heuristic
    RAY_ADDRESS=ray://head:10001 python experiments/train_rllib.py --env ... # or --address

Solo ids train one single-agent module. Multiplayer ids train on RLlib's ``PettingZooEnv`` with
``--policy shared`` (one self-play module for every seat) or ``--policy per-seat``; with
``--opponents random|heuristic|rllib:PATH|ppo:PATH`` the learner holds one seat (drawn per episode)
and the other seats are played inside the env by that frozen agent (single-agent training).
The checkpoint saved in ``--out`` plays as ``rllib:OUT`` (``rllib:OUT#player_0`` for per-seat).
Each iteration prints the env steps sampled and env steps/s.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from empire_envs.training.rllib import POLICY_MODES, build_ppo_config, steps_per_second  # noqa: E402


def parse_env_kwarg(text: str) -> tuple[str, Any]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    try:
        return key, json.loads(value)
    except json.JSONDecodeError:
        return key, value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--env", required=True, help="an env id, e.g. empire_envs/EmpireSolo-v0")
    parser.add_argument("--env-kwarg", action="append", type=parse_env_kwarg, default=[], metavar="KEY=VALUE")
    parser.add_argument("--policy", choices=POLICY_MODES, default="shared", help="multiplayer, no opponents")
    parser.add_argument("--opponents", default=None, help="random, heuristic, rllib:PATH or ppo:PATH")
    parser.add_argument("--num-env-runners", type=int, default=0, help="0: sample in the driver")
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--train-batch-size", type=int, default=4000)
    parser.add_argument("--minibatch-size", type=int, default=128)
    parser.add_argument("--num-epochs", type=int, default=10)
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--out", default=None, help="checkpoint folder (saved after the last iteration)")
    parser.add_argument("--address", default=None, help="an existing Ray cluster (else RAY_ADDRESS, else local)")
    parser.add_argument("--num-cpus", type=int, default=None, help="local Ray only")
    return parser


def train(args: argparse.Namespace) -> dict[str, Any]:
    import ray

    address = args.address or os.environ.get("RAY_ADDRESS")
    if address:
        ray.init(address=address)  # every node needs empire_envs installed (or a runtime_env)
    else:
        ray.init(num_cpus=args.num_cpus, include_dashboard=False, log_to_driver=False)
    try:
        config = build_ppo_config(
            args.env,
            env_kwargs=dict(args.env_kwarg),
            opponents=args.opponents,
            policy=args.policy,
            num_env_runners=args.num_env_runners,
            train_batch_size=args.train_batch_size,
            minibatch_size=args.minibatch_size,
            num_epochs=args.num_epochs,
            lr=args.lr,
            seed=args.seed,
        )
        start = time.perf_counter()
        algo = config.build_algo()
        print(f"built in {time.perf_counter() - start:.1f}s", flush=True)
        lifetime = 0.0
        rates: list[float] = []
        result: dict[str, Any] = {}
        for iteration in range(1, args.iterations + 1):
            result = algo.train()
            lifetime, steps, rate = steps_per_second(result, lifetime)
            rates.append(rate)
            returns = result.get("env_runners", {}).get("episode_return_mean", float("nan"))
            print(
                f"iter {iteration:3d}  env steps {int(lifetime):8d} (+{int(steps)})  "
                f"{rate:8.1f} env steps/s  episode return mean {returns:.3f}",
                flush=True,
            )
        summary = {
            "env_id": args.env,
            "iterations": args.iterations,
            "env_steps": int(lifetime),
            "env_steps_per_s_mean": sum(rates) / len(rates) if rates else float("nan"),
            "env_steps_per_s_after_first": sum(rates[1:]) / len(rates[1:]) if len(rates) > 1 else float("nan"),
            "num_env_runners": args.num_env_runners,
        }
        if args.out:
            out = Path(args.out).resolve()
            out.mkdir(parents=True, exist_ok=True)
            checkpoint = algo.save_to_path(str(out))
            summary["checkpoint"] = str(checkpoint)
            (out / "train_rllib.json").write_text(json.dumps({**vars(args), **summary}, indent=2, default=str))
            print(f"checkpoint: {checkpoint}  (play it as rllib:{checkpoint})", flush=True)
        algo.stop()
        print(json.dumps(summary), flush=True)
        return summary
    finally:
        ray.shutdown()


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    train(args)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
