"""The ``make demo`` job: train on Empire solo, then compare the trained agent with random and heuristic play.

``python -m empire_envs demo`` (and ``experiments/demo.py``, which reads
``experiments/configs/jax/demo.toml``: compiled PPO for 12M timesteps; or, with ``--backend sb3``,
``experiments/configs/demo.toml``: MaskablePPO for 500,000 timesteps; how long each takes is
measured in ``docs/measurements.toml`` and stated in the README) runs ``run_demo``: it checks
everything, trains, saves the policy, its logs and a learning-curve PNG in the run folder (with
``--overwrite``, which ``experiments/demo.py`` passes for its own folder, replacing an earlier run
there; a folder holding anything but a run of ours is refused untouched), then plays the trained
agent, the random agent, the heuristic and any agents to compare on the same deals and prints the
table with 95% intervals.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium

from ..agents.base import game_key, make_agent
from ..evaluation.evaluate import evaluate_agent, format_table, make_eval_env
from .config import TrainConfig
from .jax_config import JaxTrainConfig
from .run_folder import run_folder
from .train import check_run, train

Log = Callable[[str], None]


def play_one_game(env_id: str, agent_spec: str, seed: int, log: Log = print) -> str:
    """Show one whole game of an agent, position by position; returns its outcome."""
    env: Any = gymnasium.make(env_id, render_mode="ansi")
    agent = make_agent(agent_spec, game_key(env, env_id), seed=seed)
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


def check_agents(env_id: str, specs: list[str] | tuple[str, ...]) -> None:
    """Raise ``ValueError`` unless every spec makes an agent that can play ``env_id``."""
    if not specs:
        return
    env, name = make_eval_env(env_id, {}, None, 0)
    try:
        for spec in specs:
            make_agent(spec, name).check_env(env)
    finally:
        env.close()


def checked_training(config: TrainConfig | JaxTrainConfig, log: Log = print) -> Callable[[Path], dict[str, Any]]:
    """Check what training with ``config`` needs (``train.check_run``, ``jax_trainers.checked_trainer``)
    and return the function that trains into a folder: compiled PPO for a ``JaxTrainConfig``,
    MaskablePPO for a ``TrainConfig``."""
    if isinstance(config, JaxTrainConfig):
        from .jax_ppo import train as train_compiled  # jax is imported only here
        from .jax_trainers import checked_trainer

        trainer = checked_trainer(config)
        return lambda out: train_compiled(config, out, log=log, trainer=trainer)
    check_run(config)
    return lambda out: train(config, out, log=log)


def _announce(config: TrainConfig | JaxTrainConfig, summary: dict[str, Any], log: Log) -> str:
    """Say what was trained; returns the agent spec that plays it (``jaxppo:`` or ``ppo:``)."""
    if isinstance(config, JaxTrainConfig):
        spec, compiled = f"jaxppo:{summary['policy']}", f" after a {summary['compile_s']:.0f} s compile"
    else:
        spec, compiled = f"ppo:{summary['model']}", ""
    log(
        f"trained {summary['timesteps']:,} timesteps in {summary['learn_wall_s']:.0f} s{compiled} "
        f"({summary['env_steps_per_s']:,.0f} env steps/s); plays as {spec}\n"
    )
    return spec


def run_demo(
    config: TrainConfig | JaxTrainConfig,
    out: Path,
    episodes: int,
    seed: int,
    show_game: bool = False,
    compare: list[str] | tuple[str, ...] = (),
    log: Log = print,
    overwrite: bool = False,
) -> list[dict[str, Any]]:
    """Check everything first (the config, the env, the agents to compare, the folder), train
    with ``config`` into ``out`` (a new or empty folder, or with ``overwrite`` one holding a run
    of ours: ``run_folder.run_folder``), then evaluate random, heuristic, the trained policy and
    the ``compare`` agents on deals ``seed .. seed + episodes - 1``; returns their results
    (``evaluate_agent``'s), in that order."""
    check_agents(config.env_id, compare)  # before minutes of training, not after
    training = checked_training(config, log)
    with run_folder(out, overwrite):
        trained = _announce(config, training(out), log)
    start = time.perf_counter()
    specs = ["random", "heuristic", trained, *compare]
    results = [evaluate_agent(config.env_id, spec, episodes, seed=seed) for spec in specs]
    log(f"{config.env_id}: {episodes} deals per agent, the same deals for every agent")
    log(format_table(results))
    log(f"(evaluated in {time.perf_counter() - start:.1f} s)")
    log(f"learning curve: {out / 'learning_curve.png'}")
    if show_game:
        play_one_game(config.env_id, trained, seed, log=log)
    return results
