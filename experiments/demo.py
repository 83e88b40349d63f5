"""The `make demo` job: train MaskablePPO on Empire solo, then compare it with random and heuristic play.

    python experiments/demo.py [--config experiments/configs/demo.toml] [--timesteps N]
                               [--episodes 1000] [--seed 0] [--out runs/demo] [--show-game]

Trains on ``empire_envs/EmpireSolo-v0`` with the embedded default budget (500,000 timesteps,
about three minutes on 2 CPU cores), saves the model, its logs and a learning-curve PNG under
``runs/demo/`` (replacing an earlier demo run), then plays the trained agent, the random agent and
the heuristic on the same ``--episodes`` deals and prints the table with 95% intervals.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import gymnasium  # noqa: E402
from evaluate import evaluate_agent, format_table  # noqa: E402
from train import ROOT, load_config  # noqa: E402
from train import train as train_run  # noqa: E402

import empire_envs  # noqa: E402,F401  (registers the ids)
from empire_envs.agents import make_agent  # noqa: E402

DEMO_CONFIG = ROOT / "experiments" / "configs" / "demo.toml"


def play_one_game(env_id: str, agent_spec: str, seed: int) -> str:
    """Print one whole game of an agent, position by position; returns its outcome."""
    env = gymnasium.make(env_id, render_mode="ansi")
    agent = make_agent(agent_spec, env.unwrapped.game.name, seed=seed)
    obs, info = env.reset(seed=seed)
    step, done = 0, False
    while not done:
        action = agent.act(obs, info["action_mask"], env.unwrapped.state)
        print(f"--- step {step}")
        print(env.render(), end="")
        print(f">>> {env.unwrapped.action_name(action)}")
        obs, _reward, terminated, truncated, info = env.step(action)
        step, done = step + 1, terminated or truncated
    print(f"--- final position after {step} steps")
    print(env.render(), end="")
    print(f"{agent_spec}, deal {seed}: {info['outcome']} after {step} decisions.\n")
    return info["outcome"]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default=str(DEMO_CONFIG))
    parser.add_argument("--timesteps", type=int, help="override the config's training budget")
    parser.add_argument("--episodes", type=int, default=1000, help="evaluation deals per agent")
    parser.add_argument("--seed", type=int, default=0, help="first evaluation deal")
    parser.add_argument("--out", default=str(ROOT / "runs" / "demo"), help="run directory")
    parser.add_argument("--show-game", action="store_true",
                        help="print one whole game of the trained agent at the end")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)

    overrides = [("progress_bar", not args.no_progress)]
    if args.timesteps is not None:
        overrides.append(("total_timesteps", args.timesteps))
    try:
        config = load_config(args.config, overrides)
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    out = Path(args.out)
    if out.exists():
        shutil.rmtree(out)  # the demo's run directory is its own; each demo replaces it
    summary = train_run(config, out)
    print(f"trained {summary['timesteps']:,} timesteps in {summary['learn_wall_s']:.0f} s "
          f"({summary['env_steps_per_s']:,.0f} env steps/s); model {summary['model']}\n")

    start = time.perf_counter()
    specs = ["random", "heuristic", f"ppo:{summary['model']}"]
    results = [evaluate_agent(config.env_id, spec, args.episodes, seed=args.seed) for spec in specs]
    print(f"{config.env_id}: {args.episodes} deals per agent, the same deals for every agent")
    print(format_table(results))
    print(f"(evaluated in {time.perf_counter() - start:.1f} s)")
    print(f"learning curve: {out / 'learning_curve.png'}")
    if args.show_game:
        play_one_game(config.env_id, f"ppo:{summary['model']}", args.seed)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
