"""Behaviour cloning: fit a MaskablePPO policy to the moves of a teacher agent (solo envs).

``python -m empire_envs imitate`` (and ``experiments/imitate.py``) runs ``imitate``; needs the
``train`` extra (torch is imported when it runs).

The teacher plays ``episodes`` episodes (deal ``seed + i``) and every decision it makes becomes
a sample ``(observation, mask, action)``. The policy of a fresh MaskablePPO model, built with the
network of the run's config (its ``[ppo]`` table), is fitted to those moves by cross-entropy over
the legal actions, and its value head to the teacher's returns-to-go (discounted by
``ppo.gamma``), so that PPO can fine-tune it at once (``--set init_model=RUN/model.zip``).

Only the observation reaches the student, so a teacher that reads more than its player may see
(the Solitaire ``solver`` oracle) teaches the best guess from the observation, not its knowledge.
One tenth of the episodes (those with id 9 mod 10) is held out to measure how often the student
picks the teacher's move. The saved ``model.zip`` plays as ``ppo:RUN/model.zip``.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np

from ..agents.base import game_key, make_agent
from ..core.policy_input import PolicyInput
from ..evaluation.evaluate import resolve_env_id
from .config import TrainConfig
from .train import build_model as train_build_model


def collect_demonstrations(
    env_id: str,
    teacher: str,
    episodes: int,
    seed: int,
    gamma: float,
    env_kwargs: dict[str, Any] | None = None,
    policy_input: PolicyInput = PolicyInput(),
) -> dict[str, np.ndarray]:
    """The teacher's decisions: policy inputs, masks, actions, returns-to-go and episode ids.

    ``policy_input`` builds what the student sees (the observation, and the extras its config
    asks for: ``mask_in_observation``, ``lookahead_features``).
    """
    if episodes < 1:
        raise ValueError(f"episodes must be at least 1, got {episodes}")
    env: Any = gymnasium.make(resolve_env_id(env_id), **(env_kwargs or {}))
    try:
        agent = make_agent(teacher, game_key(env, env_id), seed=seed)
        observations: list[np.ndarray] = []
        masks: list[np.ndarray] = []
        actions: list[int] = []
        returns: list[float] = []
        episode_ids: list[int] = []
        wins = 0
        for i in range(episodes):
            obs, info = env.reset(seed=seed + i)
            agent.reset(seed=seed + i)
            rewards = []
            while True:
                action = agent.act(obs, info["action_mask"], env.unwrapped.state)
                observations.append(
                    policy_input.build(obs, info["action_mask"], env.unwrapped.game, env.unwrapped.state)
                )
                masks.append(info["action_mask"])
                actions.append(action)
                obs, reward, terminated, truncated, info = env.step(action)
                rewards.append(float(reward))
                if terminated or truncated:
                    break
            wins += info.get("outcome") == "won"
            to_go, running = [], 0.0
            for reward in reversed(rewards):
                running = reward + gamma * running
                to_go.append(running)
            returns.extend(reversed(to_go))
            episode_ids.extend([i] * len(rewards))
    finally:
        env.close()
    return {
        "observations": np.asarray(observations, dtype=np.float32),
        "masks": np.asarray(masks, dtype=bool),
        "actions": np.asarray(actions, dtype=np.int64),
        "returns": np.asarray(returns, dtype=np.float32),
        "episodes": np.asarray(episode_ids, dtype=np.int64),
        "teacher_win_rate": np.float64(wins / episodes),
    }


def agreement(policy: Any, data: dict[str, np.ndarray], rows: np.ndarray) -> float:
    """How often the student's most likely legal action is the teacher's."""
    import torch

    if rows.size == 0:
        return float("nan")
    with torch.no_grad():
        obs = torch.as_tensor(data["observations"][rows])
        distribution = policy.get_distribution(obs, action_masks=data["masks"][rows])
        chosen = distribution.distribution.probs.argmax(dim=1).numpy()
    return float(np.mean(chosen == data["actions"][rows]))


def fit_policy(
    model: Any,
    data: dict[str, np.ndarray],
    epochs: int,
    learning_rate: float,
    batch_size: int,
    seed: int,
    log: Callable[[str], None] = print,
) -> dict[str, float]:
    """Cross-entropy on the teacher's moves plus value regression; returns the agreements."""
    import torch

    policy = model.policy
    rng = np.random.default_rng(seed)
    held_out = data["episodes"] % 10 == 9
    train_rows, test_rows = np.flatnonzero(~held_out), np.flatnonzero(held_out)
    optimizer = torch.optim.Adam(policy.parameters(), lr=learning_rate)
    tensors = {key: torch.as_tensor(data[key]) for key in ("observations", "actions", "returns")}
    policy.set_training_mode(True)
    for epoch in range(epochs):
        order = rng.permutation(train_rows)
        total, batches = 0.0, 0
        for start in range(0, order.size, batch_size):
            rows = order[start : start + batch_size]
            values, log_prob, _ = policy.evaluate_actions(
                tensors["observations"][rows],
                tensors["actions"][rows],
                action_masks=data["masks"][rows],
            )
            loss = -log_prob.mean() + 0.5 * torch.nn.functional.mse_loss(values.flatten(), tensors["returns"][rows])
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(policy.parameters(), 0.5)
            optimizer.step()
            total += loss.item()
            batches += 1
        log(
            f"epoch {epoch + 1}/{epochs}: loss {total / max(batches, 1):.4f}, "
            f"held-out agreement {agreement(policy, data, test_rows):.3f}"
        )
    policy.set_training_mode(False)
    return {
        "held_out_agreement": agreement(policy, data, test_rows),
        "train_agreement": agreement(policy, data, train_rows[:20_000]),
    }


def build_model(config: TrainConfig) -> Any:
    """A fresh MaskablePPO as a training run builds it (``training.train.build_model``), on one
    copy of the env."""
    from .sb3 import build_vec_env

    env = build_vec_env(config.env_id, 1, config.seed, "dummy", config.env_kwargs, policy_input=config.policy_input())
    return train_build_model(config, env)


def imitate(
    config: TrainConfig,
    teacher: str,
    episodes: int,
    epochs: int,
    learning_rate: float,
    batch_size: int,
    out: Path,
    log: Callable[[str], None] = print,
) -> dict[str, Any]:
    """Collect ``episodes`` of ``teacher`` on ``config.env_id`` (deal ``config.seed + i``), fit a
    fresh student to them and save it as ``out/model.zip``, with ``config.json`` (which
    ``PPOAgent`` reads the policy input from) and ``summary.json``; returns the summary.
    ``ValueError`` for bad numbers, before anything is played."""
    if epochs < 1 or batch_size < 1:
        raise ValueError("--epochs and --batch-size must be at least 1")
    start = time.perf_counter()
    data = collect_demonstrations(
        config.env_id, teacher, episodes, config.seed, config.ppo.gamma, config.env_kwargs, config.policy_input()
    )
    log(
        f"{teacher} played {episodes} episodes ({data['actions'].size} decisions, "
        f"win rate {float(data['teacher_win_rate']):.3f}) in {time.perf_counter() - start:.0f} s"
    )
    import torch

    torch.set_num_threads(config.torch_threads)
    model = build_model(config)
    scores = fit_policy(model, data, epochs, learning_rate, batch_size, config.seed, log=log)
    out.mkdir(parents=True, exist_ok=True)
    model.save(out / "model.zip")
    # PPOAgent reads the policy input of a model from the config.json beside it
    (out / "config.json").write_text(json.dumps(dataclasses.asdict(config), indent=2) + "\n")
    summary = {
        "env_id": config.env_id,
        "teacher": teacher,
        "episodes": episodes,
        "decisions": int(data["actions"].size),
        "teacher_win_rate": float(data["teacher_win_rate"]),
        "epochs": epochs,
        "net_arch": config.ppo.net_arch,
        **scores,
        "wall_s": round(time.perf_counter() - start, 1),
        "model": str(out / "model.zip"),
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    return summary
