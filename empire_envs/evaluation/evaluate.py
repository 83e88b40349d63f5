"""Evaluate agents on any environment of the package: win/loss/draw rates with intervals.

``python -m empire_envs evaluate`` (and ``experiments/evaluate.py``) runs ``evaluate_agent`` for
each ``--agent`` and prints ``format_table``.

``env_id`` is any spec of ``empire_envs.registry.make_any``. In a multiplayer (AEC) env the agent
takes the seats in turn (episode ``i`` plays seat ``i mod players``) and every other seat is played
by ``opponent`` (default ``random``), through ``AECSingleAgentEnv``; an episode the game does not
name is counted from the agent's final reward: positive won, negative lost, zero a draw.

Episode ``i`` (0-based) of every agent is played on the same deal: ``env.reset(seed=seed + i)``
and ``agent.reset(seed=seed + i)``, so agents are compared on identical games. The agent is
called as ``agent.act(obs, info["action_mask"], env.unwrapped.state)``. An episode is counted
from ``info["outcome"]`` of its last step: ``"won"``, ``"lost"``, ``"truncated"`` or
``"illegal action"`` (a truncation by a wrapper, which sets no outcome, counts as truncated).
"""

from __future__ import annotations

import argparse
import ast
import json
import math
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import gymnasium

from ..adapters.single_agent import AECSingleAgentEnv
from ..agents.base import game_key, make_agent
from ..core.errors import ILLEGAL_ACTION_OUTCOME
from ..registry import NAMESPACE, is_multiplayer, make_any

#: the outcome names an episode can end with, and the result key counting each
OUTCOME_KEYS = {
    "won": "wins",
    "lost": "losses",
    "draw": "draws",
    "truncated": "truncations",
    ILLEGAL_ACTION_OUTCOME: "illegal",
}

#: what building an env or an agent from bad input raises
USAGE_ERRORS = (ImportError, ValueError, TypeError, gymnasium.error.Error)


def wilson_interval(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion (95% for ``z=1.96``).

    Returns ``(0.0, 1.0)`` when ``n`` is 0: nothing is known.
    """
    if n < 0 or not 0 <= successes <= n:
        raise ValueError(f"need 0 <= successes <= n, got successes={successes}, n={n}")
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    z2 = z * z
    denominator = 1.0 + z2 / n
    center = (p + z2 / (2 * n)) / denominator
    half = (z / denominator) * math.sqrt(p * (1.0 - p) / n + z2 / (4 * n * n))
    return max(0.0, center - half), min(1.0, center + half)


def resolve_env_id(env_id: str) -> str:
    """``env_id`` as registered; a bare ``EmpireSolo-v0`` is looked up in the package namespace."""
    if env_id in gymnasium.registry:
        return env_id
    namespaced = f"{NAMESPACE}/{env_id}"
    if namespaced in gymnasium.registry:
        return namespaced
    return env_id  # gymnasium.make gives its own error, with suggestions


def make_eval_env(
    env_id: str,
    env_kwargs: Mapping[str, Any],
    opponent: str | None,
    seed: int,
    opponent_kwargs: Mapping[str, Any] | None = None,
) -> tuple[Any, str]:
    """The env an agent is evaluated on, and the game name its agents are looked up by.

    A multiplayer env becomes an ``AECSingleAgentEnv`` whose learner seat rotates each episode,
    with ``opponent`` (``random`` when None; built with ``opponent_kwargs``) on every other seat.
    An opponent named for a one-seat env is a ``ValueError``: it would have no seat to play.
    """
    base = make_any(env_id, **env_kwargs)
    name = game_key(base, env_id)
    if not is_multiplayer(base):
        if opponent is not None:
            base.close()
            raise ValueError(f"{env_id} is a one-seat game: there is no seat for the opponent {opponent!r}")
        return base, name
    seats = len(base.possible_agents)
    settings = dict(opponent_kwargs or {})
    spec = opponent or "random"
    opponents = [make_agent(spec, name, seed=seed + 7919 * k, **settings) for k in range(seats)]
    return AECSingleAgentEnv(base, learner_seat="all", opponents=opponents), name


def episode_outcome(info: Mapping[str, Any], reward: float, truncated: bool) -> str:
    """The named outcome of an episode's last step (the game's own, else from the reward)."""
    if "outcome" in info:
        return str(info["outcome"])
    if truncated:
        return "truncated"
    return "won" if reward > 0 else "lost" if reward < 0 else "draw"


def _rate_fields(prefix: str, count: int, n: int) -> dict[str, Any]:
    low, high = wilson_interval(count, n)
    return {f"{prefix}_rate": count / n if n else 0.0, f"{prefix}_ci95": [low, high]}


def evaluate_agent(
    env_id: str,
    agent_spec: str,
    episodes: int,
    seed: int = 0,
    env_kwargs: Mapping[str, Any] | None = None,
    opponent: str | None = None,
    agent_kwargs: Mapping[str, Any] | None = None,
    opponent_kwargs: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Play ``episodes`` episodes of one agent; counts, rates with 95% Wilson intervals, means.
    ``agent_kwargs`` are settings for the evaluated agent (``make_agent``'s ``settings``),
    ``opponent_kwargs`` the opponent's.

    ``opponent`` plays the other seats of a multiplayer env (default ``random``; an error for a
    one-seat env). The returned dict is plain JSON-serialisable data.
    """
    if episodes < 1:
        raise ValueError(f"episodes must be at least 1, got {episodes}")
    env_id = resolve_env_id(env_id)
    env_kwargs = dict(env_kwargs or {})
    env, name = make_eval_env(env_id, env_kwargs, opponent, seed, opponent_kwargs)
    multiplayer = isinstance(env, AECSingleAgentEnv)
    try:
        agent = make_agent(agent_spec, name, seed=seed, **dict(agent_kwargs or {}))
        agent.check_env(env)
    except Exception:
        env.close()
        raise
    counts = dict.fromkeys(OUTCOME_KEYS.values(), 0)
    total_steps = 0
    total_return = 0.0
    sum_sq_return = 0.0
    start = time.perf_counter()
    try:
        unwrapped = env.unwrapped
        for i in range(episodes):
            if multiplayer:  # seats in turn: episode i plays seat i mod players
                env.seat_offset = i
            obs, info = env.reset(seed=seed + i)
            agent.reset(seed=seed + i)
            episode_return = 0.0
            steps = 0
            outcome = None
            while True:
                action = agent.act(obs, info["action_mask"], getattr(unwrapped, "state", None))
                obs, reward, terminated, truncated, info = env.step(action)
                steps += 1
                episode_return += float(reward)
                if terminated or truncated:
                    outcome = episode_outcome(info, float(reward), truncated)
                    break
            if outcome not in OUTCOME_KEYS:
                raise RuntimeError(
                    f"episode {i} ended with outcome {outcome!r}; expected one of {sorted(OUTCOME_KEYS)}"
                )
            counts[OUTCOME_KEYS[outcome]] += 1
            total_steps += steps
            total_return += episode_return
            sum_sq_return += episode_return * episode_return
    finally:
        env.close()
    wall = time.perf_counter() - start
    mean_return = total_return / episodes
    variance = max(0.0, sum_sq_return / episodes - mean_return * mean_return)
    result: dict[str, Any] = {
        "agent": agent_spec,
        "env_id": env_id,
        "opponent": (opponent or "random") if multiplayer else None,
        "env_kwargs": {key: _jsonable(value) for key, value in env_kwargs.items()},
        "agent_kwargs": {key: _jsonable(value) for key, value in dict(agent_kwargs or {}).items()},
        "seed": seed,
        "episodes": episodes,
        **counts,
    }
    result.update(_rate_fields("win", counts["wins"], episodes))
    result.update(_rate_fields("loss", counts["losses"], episodes))
    result.update(_rate_fields("draw", counts["draws"], episodes))
    result.update(_rate_fields("truncation", counts["truncations"], episodes))
    result.update(_rate_fields("illegal", counts["illegal"], episodes))
    result.update(
        {
            "mean_length": total_steps / episodes,
            "total_steps": total_steps,
            "mean_return": mean_return,
            "std_return": math.sqrt(variance),
            "wall_time_s": wall,
            "steps_per_second": total_steps / wall if wall > 0 else float("inf"),
        }
    )
    return result


def _jsonable(value: Any) -> Any:
    try:
        json.dumps(value)
        return value
    except TypeError:
        return repr(value)


def _pct(rate: float, ci: Sequence[float]) -> str:
    return f"{100 * rate:5.1f}% [{100 * ci[0]:5.1f}, {100 * ci[1]:5.1f}]"


Column = tuple[str, Callable[[Mapping[str, Any]], str]]


def format_table(results: Sequence[Mapping[str, Any]]) -> str:
    """A plain-text table, one row per result of ``evaluate_agent`` (rates in %, 95% Wilson CI)."""
    draws: list[Column] = []
    if any(r.get("draws") for r in results):
        draws = [("draw % [95% CI]", lambda r: _pct(r["draw_rate"], r["draw_ci95"]))]
    columns: list[Column] = [
        ("agent", lambda r: str(r["agent"])),
        ("episodes", lambda r: str(r["episodes"])),
        ("win % [95% CI]", lambda r: _pct(r["win_rate"], r["win_ci95"])),
        ("loss % [95% CI]", lambda r: _pct(r["loss_rate"], r["loss_ci95"])),
        *draws,
        ("trunc % [95% CI]", lambda r: _pct(r["truncation_rate"], r["truncation_ci95"])),
        ("illegal", lambda r: str(r["illegal"])),
        ("mean len", lambda r: f"{r['mean_length']:.1f}"),
        ("mean return", lambda r: f"{r['mean_return']:+.4f}"),
        ("wall s", lambda r: f"{r['wall_time_s']:.2f}"),
    ]
    rows = [[name for name, _ in columns]] + [[cell(r) for _, cell in columns] for r in results]
    widths = [max(len(row[c]) for row in rows) for c in range(len(columns))]
    lines = []
    for index, row in enumerate(rows):
        lines.append(
            "  ".join(
                cell.ljust(width) if c == 0 else cell.rjust(width)
                for c, (cell, width) in enumerate(zip(row, widths, strict=True))
            )
        )
        if index == 0:
            lines.append("  ".join("-" * width for width in widths))
    if results:
        first = results[0]
        kwargs = first.get("env_kwargs") or {}
        extra = f" {kwargs}" if kwargs else ""
        if first.get("opponent"):
            extra += f", opponents {first['opponent']}, seats in turn"
        header = f"{first['env_id']}{extra}, seeds {first['seed']}..{first['seed'] + first['episodes'] - 1}"
        lines.insert(0, header)
    return "\n".join(lines)


def parse_env_kwarg(text: str) -> tuple[str, Any]:
    """``key=value`` with the value read as a Python literal (a bare word stays a string); an
    ``argparse`` type, so a malformed text raises ``argparse.ArgumentTypeError``."""
    key, sep, raw = text.partition("=")
    key = key.strip()
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"expected key=value, got {text!r}")
    try:
        value = ast.literal_eval(raw)
    except (ValueError, SyntaxError):
        value = raw
    return key, value
