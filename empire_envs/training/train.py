"""One MaskablePPO (sb3-contrib) training run on any environment of the package, solo or multiplayer.

``python -m empire_envs train`` (and ``experiments/train.py``) runs ``train`` with a
``TrainConfig`` (``training.config``). Needs the ``train`` extra; torch and sb3 are imported
when a run starts, so this module imports without them.

The env is any spec ``empire_envs.registry.make_any`` accepts: a registered Gymnasium id (a solo
game), a registered PettingZoo id (ours, or PettingZoo's own such as ``classic/tictactoe-v3``), or
``package.module:factory`` for any other PettingZoo AEC env with masks. Multiplayer envs train through
``AECSingleAgentEnv``: the learner holds ``multiplayer.learner_seat`` and each other seat is played
by an opponent drawn per episode from ``multiplayer.opponents`` (agent specs, or ``self``: frozen
snapshots of the learner, refreshed every ``multiplayer.snapshot_every`` timesteps).

The run directory gets: ``config.json`` (the resolved config), ``progress.csv`` (SB3's logger;
TensorBoard files in ``tb/`` as well when tensorboard is installed), ``eval/evaluations.npz`` and
``eval/best_model.zip`` (periodic masked evaluation), ``checkpoints/``, the final ``model.zip``,
``learning_curve.png`` and ``summary.json`` (timesteps, wall time, env steps per second). The final
model plays as an agent: ``python -m empire_envs evaluate --env ID --agent ppo:RUN/model.zip``.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from ..agents.base import game_key, make_agent
from ..agents.ppo import load_maskable_ppo
from ..core.limits import check_fits_in_memory
from ..registry import is_multiplayer, make_any
from .config import ACTIVATIONS, SELF_PLAY, TrainConfig, rollout_bytes


def build_model(config: TrainConfig, env: Any) -> Any:
    """A fresh MaskablePPO on ``env`` with the config's policy (MLP, or the lookahead-logits
    policy) and hyperparameters; behaviour cloning (``training.imitate``) builds its student here too."""
    import torch
    from sb3_contrib import MaskablePPO

    ppo = config.ppo
    policy: Any = "MlpPolicy"
    extra_policy_kwargs: dict[str, Any] = {}
    if config.lookahead_logits:
        from .policies import LookaheadLogitsPolicy

        policy, extra_policy_kwargs = LookaheadLogitsPolicy, {"initial_gain": ppo.lookahead_gain}
    return MaskablePPO(
        policy,
        env,
        learning_rate=ppo.learning_rate,
        n_steps=ppo.n_steps,
        batch_size=ppo.batch_size,
        n_epochs=ppo.n_epochs,
        gamma=ppo.gamma,
        gae_lambda=ppo.gae_lambda,
        clip_range=ppo.clip_range,
        ent_coef=ppo.ent_coef,
        vf_coef=ppo.vf_coef,
        max_grad_norm=ppo.max_grad_norm,
        policy_kwargs={
            "net_arch": [int(w) for w in ppo.net_arch],
            "activation_fn": getattr(torch.nn, ACTIVATIONS[ppo.activation]),
            **extra_policy_kwargs,
        },
        seed=config.seed,
        device="cpu",
        verbose=0,
    )


def train(config: TrainConfig, out: Path, log: Callable[[str], None] = print) -> dict[str, Any]:
    """Run one training job; returns the summary also written to ``out/summary.json``."""
    import torch
    from sb3_contrib.common.maskable.callbacks import MaskableEvalCallback
    from stable_baselines3.common.callbacks import CheckpointCallback
    from stable_baselines3.common.logger import configure

    from .plots import plot_learning_curve, read_evaluations
    from .sb3 import SELF, SelfPlayCallback, build_vec_env

    multiplayer = check_run(config)
    torch.set_num_threads(config.torch_threads)
    out.mkdir(parents=True, exist_ok=True)
    (out / "config.json").write_text(json.dumps(dataclasses.asdict(config), indent=2) + "\n")
    mp = config.multiplayer
    train_env = build_vec_env(
        config.env_id,
        config.n_envs,
        config.seed,
        config.vec_env,
        config.env_kwargs,
        learner_seat=mp.learner_seat,
        opponents=mp.opponents,
        policy_input=config.policy_input(),
    )
    callbacks: list[Any] = []
    eval_env = None
    if config.eval.freq:
        eval_env = build_vec_env(
            config.env_id,
            1,
            config.seed + 1_000_003,
            "dummy",
            config.env_kwargs,
            learner_seat="all",
            opponents=config.eval.opponents,
            policy_input=config.policy_input(),
        )
        callbacks.append(
            MaskableEvalCallback(
                eval_env,
                n_eval_episodes=config.eval.episodes,
                eval_freq=max(config.eval.freq // config.n_envs, 1),
                log_path=str(out / "eval"),
                best_model_save_path=str(out / "eval"),
                deterministic=config.eval.deterministic,
                verbose=1,
            )
        )
    if config.checkpoint.freq:
        callbacks.append(
            CheckpointCallback(
                save_freq=max(config.checkpoint.freq // config.n_envs, 1),
                save_path=str(out / "checkpoints"),
                name_prefix="model",
            )
        )
    if multiplayer and SELF in mp.opponents:
        callbacks.append(SelfPlayCallback(mp.snapshot_every))
    model = build_model(config, train_env)
    if config.init_model:
        load_initial_weights(model, config.init_model)
    formats = ["csv"]
    if importlib.util.find_spec("tensorboard") is not None:
        formats.append("tensorboard")
    model.set_logger(configure(str(out), formats))
    progress_bar = config.progress_bar and all(importlib.util.find_spec(name) is not None for name in ("tqdm", "rich"))
    log(
        f"training MaskablePPO on {config.env_id} for {config.total_timesteps:,} timesteps "
        f"({config.n_envs} x {config.vec_env} env), output in {out}"
    )
    start = time.perf_counter()
    try:
        model.learn(config.total_timesteps, callback=callbacks, progress_bar=progress_bar)
    finally:
        wall = time.perf_counter() - start
        train_env.close()
        if eval_env is not None:
            eval_env.close()
    model.save(out / "model.zip")
    summary = {
        "env_id": config.env_id,
        "env_kwargs": config.env_kwargs,
        "timesteps": int(model.num_timesteps),
        "n_envs": config.n_envs,
        "vec_env": config.vec_env,
        "learn_wall_s": round(wall, 2),
        "env_steps_per_s": round(model.num_timesteps / wall, 1),
        "model": str(out / "model.zip"),
        "torch": torch.__version__,
    }
    evaluations = read_evaluations(out)
    if evaluations:  # none when the budget ended before the first evaluation
        summary["last_eval_mean_return"] = float(evaluations["results"][-1].mean())
        successes = evaluations.get("successes")
        if successes is not None and successes.size:
            summary["last_eval_win_rate"] = float(successes[-1].mean())
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    plot_learning_curve(out, title=f"MaskablePPO on {config.env_id}")
    return summary


def check_run(config: TrainConfig) -> bool:
    """Check what a run needs before anything is written or trained: the env and its variant
    settings, every opponent agent, the initial model's file, and that the rollout fits in
    memory. Raises ``ValueError`` (or the env's own error for a bad id); returns whether the env
    is multiplayer. Needs neither torch nor sb3."""
    probe = make_any(config.env_id, **config.env_kwargs)
    try:
        multiplayer = is_multiplayer(probe)
        if multiplayer:
            seat = probe.possible_agents[0]
            observation_space, action_space = probe.observation_space(seat)["observation"], probe.action_space(seat)
        else:
            observation_space, action_space = probe.observation_space, probe.action_space
        game = game_key(probe, config.env_id)
    finally:
        probe.close()
    for spec in {*config.multiplayer.opponents, *config.eval.opponents} - {SELF_PLAY}:
        make_agent(spec, game)  # a bad spec fails now, not in the first episode
    if config.init_model and not Path(config.init_model).is_file():
        raise ValueError(f"init_model: no model file at {config.init_model!r}")
    observation_size = int(np.prod(observation_space.shape))
    check_fits_in_memory(
        rollout_bytes(config.n_envs, config.ppo.n_steps, observation_size, int(action_space.n)),
        f"n_envs={config.n_envs} x ppo.n_steps={config.ppo.n_steps} on {config.env_id}",
    )
    return multiplayer


def load_initial_weights(model: Any, path: str) -> None:
    """Copy a saved model's policy weights into ``model``; a clear error when the networks differ."""

    source = load_maskable_ppo(path)
    if source.observation_space.shape != model.observation_space.shape or (source.action_space != model.action_space):
        raise ValueError(
            f"init_model {path!r} has spaces {source.observation_space.shape} / "
            f"{source.action_space}, this run {model.observation_space.shape} / {model.action_space}"
        )
    try:
        model.policy.load_state_dict(source.policy.state_dict())
    except RuntimeError as error:
        raise ValueError(f"init_model {path!r} has another network than ppo.net_arch/activation: {error}") from None
