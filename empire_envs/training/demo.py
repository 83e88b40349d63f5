"""The ``make demo`` job: train MaskablePPO on Empire solo, then compare it with random and heuristic play.

``python -m empire_envs demo`` (and ``experiments/demo.py``, which reads
``experiments/configs/demo.toml``: 500,000 timesteps, about three minutes on 2 CPU cores) runs
``run_demo``: it trains, saves the model, its logs and a learning-curve PNG in the run folder
(replacing an earlier demo run there), then plays the trained agent, the random agent and the
heuristic on the same deals and prints the table with 95% intervals.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium

from ..agents import make_agent
from ..evaluation.evaluate import evaluate_agent, format_table
from .config import TrainConfig
from .train import train

Log = Callable[[str], None]


def play_one_game(env_id: str, agent_spec: str, seed: int, log: Log = print) -> str:
    """Show one whole game of an agent, position by position; returns its outcome."""
    env: Any = gymnasium.make(env_id, render_mode="ansi")
    agent = make_agent(agent_spec, env.unwrapped.game.name, seed=seed)
    obs, info = env.reset(seed=seed)
    step, done = 0, False
    while not done:
        action = agent.act(obs, info["action_mask"], env.unwrapped.state)
        log(f"--- step {step}")
        log(env.render().rstrip("\n"))
        log(f">>> {env.unwrapped.action_name(action)}")
        obs, _reward, terminated, truncated, info = env.step(action)
        step, done = step + 1, terminated or truncated
    log(f"--- final position after {step} steps")
    log(env.render().rstrip("\n"))
    log(f"{agent_spec}, deal {seed}: {info['outcome']} after {step} decisions.\n")
    return str(info["outcome"])


def run_demo(
    config: TrainConfig, out: Path, episodes: int, seed: int, show_game: bool = False, log: Log = print
) -> list[dict[str, Any]]:
    """Train with ``config`` into ``out`` (emptied first: the demo's run folder is its own), then
    evaluate random, heuristic and the trained model on deals ``seed .. seed + episodes - 1``;
    returns the three results (``evaluate_agent``'s)."""
    if out.exists():
        shutil.rmtree(out)
    summary = train(config, out, log=log)
    log(
        f"trained {summary['timesteps']:,} timesteps in {summary['learn_wall_s']:.0f} s "
        f"({summary['env_steps_per_s']:,.0f} env steps/s); model {summary['model']}\n"
    )
    start = time.perf_counter()
    specs = ["random", "heuristic", f"ppo:{summary['model']}"]
    results = [evaluate_agent(config.env_id, spec, episodes, seed=seed) for spec in specs]
    log(f"{config.env_id}: {episodes} deals per agent, the same deals for every agent")
    log(format_table(results))
    log(f"(evaluated in {time.perf_counter() - start:.1f} s)")
    log(f"learning curve: {out / 'learning_curve.png'}")
    if show_game:
        play_one_game(config.env_id, f"ppo:{summary['model']}", seed, log=log)
    return results
