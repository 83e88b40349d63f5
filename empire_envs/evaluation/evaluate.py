"""Evaluate agents on any environment of the package: win/loss/draw rates with intervals.

``python -m empire_envs evaluate`` (and ``experiments/evaluate.py``) runs ``evaluate_agent`` for
each ``--agent`` and prints ``format_table``.

``env_id`` is any spec of ``empire_envs.registry.make_any``. In a multiplayer (AEC) env with
``N`` seats the agent takes the seats in turn and every other seat is played by ``opponent``
(default ``random``), through ``AECSingleAgentEnv``; an episode the game does not name is counted
from the agent's final reward: positive won, negative lost, zero a draw.

Deals and seats. Episode ``i`` (0-based) is played on the deal ``d(i)`` from the seat ``s(i)``
(an index into ``possible_agents``):

- ``seat_rotation="deal"`` (the default): ``d(i) = seed + i // N`` and ``s(i) = i mod N``, so
  every deal is played once from each seat when ``episodes`` is a multiple of ``N`` (the last
  deal is played from its first seats only otherwise, and the table says so);
- ``seat_rotation="episode"`` (the scheme before seat rotation on deals, kept so figures
  measured with it can be reproduced exactly): ``d(i) = seed + i`` and ``s(i) = i mod N``.

A one-seat env has ``N = 1``: both give ``d(i) = seed + i`` from its only seat. Every agent
evaluated with the same ``seed``, ``episodes`` and rotation plays the same episodes, so agents
are compared on identical games.

What the episodes of one deal share: the env is reset with ``env.reset(seed=d(i))`` and the
agent with ``agent.reset(seed=d(i))``. ``AECSingleAgentEnv`` seeds its generator with ``d(i)``;
with ``learner_seat="all"`` choosing the agent's seat draws nothing from it, so its first draw,
the seed of the AEC env's own ``reset`` (the deal: the game's first state, the hands, who moves
first, and the generator the game's later chance events come from), is the same whichever seat
the agent holds. Its next ``N - 1`` draws seed the opponents (``agent.reset``), handed to the
other seats in seat order: with two seats the opponent gets the same seed from either seat; with
more, the same ``N - 1`` seeds go to the seats that are not the agent's. The opponent agents are
built once, ``make_agent(opponent, game, seed=seed + 7919 * k)`` for seat ``k``. Chance events
during play follow the moves, so the games of one deal part once the moves differ.

The agent is called as ``agent.act(obs, info["action_mask"], env.unwrapped.state)``. An episode
is counted from ``info["outcome"]`` of its last step: ``"won"``, ``"lost"``, ``"truncated"`` or
``"illegal action"`` (a truncation by a wrapper, which sets no outcome, counts as truncated).

Chance level: with ``N`` seats an agent that plays like its opponents wins ``1/N`` of the games
that have one winner (``chance_win_rate``, None for a one-seat env).

Finishing rank (``N > 2``): the agent's rank in each game, 1 the best, is

- its place, where the game's state records one for the agent's seat (``state.players[seat].place``
  at least 1, 1 = first: Generals sets it as the seat leaves the game, the worst open place on an
  elimination and the best on a victory, and the seats still in at a Chancellor victory share the
  best place left; 0, no place, for the seats still in a truncated game);
- else ``1 +`` the number of seats whose final return (the sum of every reward the seat received
  in the game, shaping included, summed as PettingZoo's ``_accumulate_rewards`` does) is strictly
  greater than the agent's: tied seats share the better rank. Under a win/loss reward (+1 the
  winner, -1 every other seat: Pillars) a lost game ranks 2, and a truncated game in which every
  seat has 0 ranks 1 for everyone. When the agent's episode ends while the game goes on (it is
  out of a game that continues), the opponents play the game to its end first;
- ``N`` (last) when the agent ends its episode with an illegal action.

``mean_rank`` is the mean over the episodes, with a 95% interval from the normal approximation,
``mean +/- 1.96 * sd / sqrt(n)`` (``sd`` the sample standard deviation of the ranks, episodes
taken as independent), clipped to ``[1, N]``; ``[1, N]`` for a single episode, and a single
point when every episode gave the same rank.
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
import numpy as np

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

#: the ways the agent's seat and the deal follow the episode number (module docstring)
SEAT_ROTATIONS = ("deal", "episode")
#: the z of the 95% intervals
Z95 = 1.96


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


def episode_deal_and_seat(episode: int, seed: int, seats: int, seat_rotation: str = "deal") -> tuple[int, int]:
    """``(d(i), s(i))`` of episode ``i``: the seed of its deal and the index of the agent's seat
    among ``seats`` seats (module docstring). Raises ``ValueError`` for an unknown
    ``seat_rotation`` or fewer than one seat."""
    check_seat_rotation(seat_rotation)
    if seats < 1:
        raise ValueError(f"need at least one seat, got {seats}")
    if seat_rotation == "deal":
        return seed + episode // seats, episode % seats
    return seed + episode, episode % seats


def check_seat_rotation(seat_rotation: str) -> None:
    """Raise ``ValueError`` unless ``seat_rotation`` is one of ``SEAT_ROTATIONS``."""
    if seat_rotation not in SEAT_ROTATIONS:
        raise ValueError(f"seat_rotation must be one of {SEAT_ROTATIONS}, got {seat_rotation!r}")


def finishing_rank(returns: Sequence[float], seat: int) -> int:
    """``1 +`` the number of seats whose return is strictly greater than ``seat``'s: 1 is the
    best, and tied seats share the better rank."""
    if not 0 <= seat < len(returns):
        raise ValueError(f"seat {seat} is not one of the {len(returns)} seats")
    mine = returns[seat]
    return 1 + sum(1 for value in returns if value > mine)


def recorded_place(aec: Any, seat: int) -> int | None:
    """The finishing place the game's state records for ``seat`` (``state.players[seat].place``,
    1 = first; Generals), None where the state records none or the seat has none yet (0)."""
    state = getattr(getattr(aec, "unwrapped", aec), "game_state", None)
    players = getattr(state, "players", None)
    if not isinstance(players, Sequence) or not 0 <= seat < len(players):
        return None
    place = getattr(players[seat], "place", None)
    if isinstance(place, bool) or not isinstance(place, (int, np.integer)) or place < 1:
        return None
    return int(place)


def mean_interval(values: Sequence[float], low: float, high: float, z: float = Z95) -> tuple[float, float]:
    """The normal-approximation interval ``mean +/- z * sd / sqrt(n)`` of ``values`` (``sd`` the
    sample standard deviation), clipped to ``[low, high]``; ``(low, high)`` for fewer than two
    values: nothing is known of the spread."""
    n = len(values)
    if n < 2:
        return low, high
    mean = sum(values) / n
    sd = math.sqrt(sum((value - mean) ** 2 for value in values) / (n - 1))
    half = z * sd / math.sqrt(n)
    return max(low, mean - half), min(high, mean + half)


class ReturnRecorder:
    """An AEC env passed through unchanged, with ``returns``: every seat's sum of rewards since
    the last ``reset`` (``rewards`` added after each ``step``, as PettingZoo's
    ``_accumulate_rewards`` does)."""

    def __init__(self, env: Any) -> None:
        self.env = env
        self.returns: dict[str, float] = {}

    def reset(self, *args: Any, **kwargs: Any) -> Any:
        out = self.env.reset(*args, **kwargs)
        self.returns = dict.fromkeys(self.env.possible_agents, 0.0)
        return out

    def step(self, action: Any) -> None:
        self.env.step(action)
        for name, reward in self.env.rewards.items():
            self.returns[name] = self.returns.get(name, 0.0) + float(reward)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.env, name)


def _play_out(env: AECSingleAgentEnv) -> None:
    """Let the opponents play the game to its end after the agent's episode has ended (each
    seat's dead step included)."""
    aec = env.aec
    opponents = env.seat_agents
    state = env.state
    while aec.agents:
        seat = aec.agent_selection
        observation, _reward, terminated, truncated, _info = aec.last()
        if terminated or truncated:
            aec.step(None)
            continue
        aec.step(opponents[seat].act(observation["observation"], np.asarray(observation["action_mask"]), state))


def episode_rank(env: AECSingleAgentEnv, recorder: ReturnRecorder, seat_name: str, outcome: str) -> int:
    """The agent's finishing rank in the episode just ended (module docstring)."""
    seats = env.seats
    index = seats.index(seat_name)
    if outcome == ILLEGAL_ACTION_OUTCOME:
        return len(seats)
    place = recorded_place(env.aec, index)
    if place is not None:
        return place
    _play_out(env)
    return finishing_rank([recorder.returns.get(name, 0.0) for name in seats], index)


def make_eval_env(
    env_id: str,
    env_kwargs: Mapping[str, Any],
    opponent: str | None,
    seed: int,
    opponent_kwargs: Mapping[str, Any] | None = None,
) -> tuple[Any, str]:
    """The env an agent is evaluated on, and the game name its agents are looked up by.

    A multiplayer env becomes an ``AECSingleAgentEnv`` whose learner seat rotates each episode,
    with ``opponent`` (``random`` when None; built with ``opponent_kwargs``) on every other seat;
    with more than two seats its AEC env is wrapped in a ``ReturnRecorder`` (for the ranks).
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
    aec = ReturnRecorder(base) if seats > 2 else base
    return AECSingleAgentEnv(aec, learner_seat="all", opponents=opponents), name


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
    seat_rotation: str = "deal",
) -> dict[str, Any]:
    """Play ``episodes`` episodes of one agent; counts, rates with 95% Wilson intervals, means.
    ``agent_kwargs`` are settings for the evaluated agent (``make_agent``'s ``settings``),
    ``opponent_kwargs`` the opponent's.

    ``opponent`` plays the other seats of a multiplayer env (default ``random``; an error for a
    one-seat env). ``seat_rotation`` (``"deal"`` or ``"episode"``) says which deal and seat each
    episode gets (module docstring); a one-seat env plays deal ``seed + i`` either way. An unknown
    ``seat_rotation`` is a ``ValueError``.

    The returned dict is plain JSON-serialisable data. Besides the counts, rates and means it
    holds ``seats`` (``N``, 1 for a one-seat env), ``seat_rotation`` (None for a one-seat env),
    ``deals`` (the number of distinct deals played), ``chance_win_rate`` (``1/N``, None for a
    one-seat env), and ``mean_rank`` with ``mean_rank_ci95`` (module docstring; None unless
    ``N > 2``).
    """
    if episodes < 1:
        raise ValueError(f"episodes must be at least 1, got {episodes}")
    check_seat_rotation(seat_rotation)
    env_id = resolve_env_id(env_id)
    env_kwargs = dict(env_kwargs or {})
    env, name = make_eval_env(env_id, env_kwargs, opponent, seed, opponent_kwargs)
    multiplayer = isinstance(env, AECSingleAgentEnv)
    seats = len(env.seats) if isinstance(env, AECSingleAgentEnv) else 1
    recorder = env.aec if isinstance(env, AECSingleAgentEnv) and isinstance(env.aec, ReturnRecorder) else None
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
    ranks: list[int] = []
    deal_seeds: set[int] = set()
    start = time.perf_counter()
    try:
        unwrapped = env.unwrapped
        for i in range(episodes):
            deal, seat = episode_deal_and_seat(i, seed, seats, seat_rotation)
            deal_seeds.add(deal)
            if multiplayer:  # a seeded reset gives the learner seat seats[seat_offset mod N]
                env.seat_offset = seat
            obs, info = env.reset(seed=deal)
            agent.reset(seed=deal)
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
            if recorder is not None and isinstance(env, AECSingleAgentEnv):
                ranks.append(episode_rank(env, recorder, str(info["seat"]), outcome))
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
        "seats": seats,
        "seat_rotation": seat_rotation if multiplayer else None,
        "deals": len(deal_seeds),
        "chance_win_rate": 1.0 / seats if multiplayer else None,
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
    if ranks:
        result["mean_rank"] = sum(ranks) / len(ranks)
        result["mean_rank_ci95"] = list(mean_interval(ranks, 1.0, float(seats)))
    else:
        result["mean_rank"] = None
        result["mean_rank_ci95"] = None
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
    """A plain-text table, one row per result of ``evaluate_agent`` (rates in %, 95% Wilson CI).

    Above it, a line naming the env, the opponents, how seats were rotated and the seeds; for a
    multiplayer env a second line states the chance level (``chance level with 2 seats: 50.0% of
    games won``). With more than two seats the table has a ``mean rank [95% CI]`` column. When
    the deal rotation played its last deal from some seats only, a note below says so."""
    draws: list[Column] = []
    if any(r.get("draws") for r in results):
        draws = [("draw % [95% CI]", lambda r: _pct(r["draw_rate"], r["draw_ci95"]))]
    rank: list[Column] = []
    if any(r.get("mean_rank") is not None for r in results):
        rank = [("mean rank [95% CI]", _rank_cell)]
    columns: list[Column] = [
        ("agent", lambda r: str(r["agent"])),
        ("episodes", lambda r: str(r["episodes"])),
        ("win % [95% CI]", lambda r: _pct(r["win_rate"], r["win_ci95"])),
        ("loss % [95% CI]", lambda r: _pct(r["loss_rate"], r["loss_ci95"])),
        *draws,
        ("trunc % [95% CI]", lambda r: _pct(r["truncation_rate"], r["truncation_ci95"])),
        ("illegal", lambda r: str(r["illegal"])),
        *rank,
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
        lines[:0] = _header_lines(results[0])
        lines.extend(_rotation_notes(results))
    return "\n".join(lines)


def _rank_cell(result: Mapping[str, Any]) -> str:
    if result.get("mean_rank") is None:
        return "-"
    low, high = result["mean_rank_ci95"]
    return f"{result['mean_rank']:.2f} [{low:.2f}, {high:.2f}]"


def _header_lines(first: Mapping[str, Any]) -> list[str]:
    """The env line (and for a multiplayer env the chance-level line) above the table."""
    kwargs = first.get("env_kwargs") or {}
    extra = f" {kwargs}" if kwargs else ""
    seed, episodes = first["seed"], first["episodes"]
    rotation = first.get("seat_rotation")
    seats = first.get("seats") or 1
    if first.get("opponent"):
        extra += f", opponents {first['opponent']}"
    if first.get("opponent") and rotation == "deal":
        deals = first.get("deals") or -(-episodes // seats)
        header = f"{first['env_id']}{extra}, each deal played from every seat, deals {seed}..{seed + deals - 1}"
    elif first.get("opponent"):
        header = f"{first['env_id']}{extra}, seats in turn, seeds {seed}..{seed + episodes - 1}"
    else:
        header = f"{first['env_id']}{extra}, seeds {seed}..{seed + episodes - 1}"
    lines = [header]
    if first.get("chance_win_rate") is not None:
        lines.append(f"chance level with {seats} seats: {100 * first['chance_win_rate']:.1f}% of games won")
    return lines


def _rotation_notes(results: Sequence[Mapping[str, Any]]) -> list[str]:
    """A note when the deal rotation left the last deal unplayed from some seats."""
    first = results[0]
    seats = first.get("seats") or 1
    if first.get("seat_rotation") != "deal" or seats < 2 or first["episodes"] % seats == 0:
        return []
    played = first["episodes"] % seats
    return [
        f"note: {first['episodes']} episodes is not a multiple of {seats} seats: the last deal was "
        f"played from the first {played} seat(s) only"
    ]


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
