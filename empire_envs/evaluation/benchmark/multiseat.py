"""Rating agents on games of more than two seats: every seat held by a different agent, games
ranked by their final results, agents rated by Weng-Lin (Plackett-Luce, ``statistics``).

A two-seat game is rated by the pairwise round robin and Elo (``run.round_robin``); with more
seats a game is not a duel, so ``rank_round_robin`` seats several agents of a roster at once and
rates them from their finishing places:

- the *seatings*: every combination of ``players`` agents of the roster (in roster order), each
  in each of its ``players`` cyclic rotations, so that every agent of a combination plays every
  seat (``seatings``);
- the deals: deal ``d`` (``d = 0, 1, ...``) is played with seed ``first_seed + d`` by every
  rotation of every combination given that many deals (a combination may get fewer, for a slow
  agent);
- a game's ranks: the places the game records for its seats where it records one for every
  seat (``evaluate.recorded_place``: Generals ranks the seats as they leave), else 1 plus the
  number of seats whose final result is strictly higher (``statistics.finishing_ranks``). The
  final results are the game's own ``returns`` (shaping left out) for a game of this package,
  else each seat's rewards summed over the game;
- the rating: ``statistics.weng_lin_ratings`` over the games in a fixed order, deal by deal, and
  within a deal combination by combination and rotation by rotation. The update is online, so
  the order matters a little; the schedule is fixed, and so are the ratings for a seed.

Each agent is made once per part of the schedule (``play_seated_games``) and reset before every
game with a seed drawn from the deal's seed and its seat, so a game is the same whoever plays the
games around it, in this process or another.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ...agents.base import agent_settings, make_agent
from ..evaluate import recorded_place, resolve_env_id
from ..reporting import Log
from .run import Runner, inspect_env, sequential_runner
from .spec import BenchmarkError, EnvVariant, env_label, seed_base, split_episodes
from .statistics import finishing_ranks, weng_lin_ratings


def seatings(roster: Sequence[str], players: int) -> list[tuple[str, ...]]:
    """Every combination of ``players`` distinct agents of ``roster`` in each cyclic rotation:
    entry ``s`` of a seating plays seat ``s``. Combinations come in ``itertools.combinations``
    order, each followed by its rotations (``(a, b, c), (b, c, a), (c, a, b)``)."""
    if players < 2:
        raise BenchmarkError(f"a seating needs two or more seats, got {players}")
    if len(set(roster)) != len(roster) or len(roster) < players:
        raise BenchmarkError(f"{players} seats need {players} or more distinct agents, got {list(roster)}")
    return [
        combination[turn:] + combination[:turn]
        for combination in itertools.combinations(roster, players)
        for turn in range(players)
    ]


def seat_seed(deal_seed: int, seat: int) -> int:
    """The seed an agent on ``seat`` is reset with before the game on deal ``deal_seed``."""
    return int(np.random.SeedSequence([deal_seed, seat]).generate_state(1)[0])


def play_seated_games(
    env_id: str,
    env_kwargs: Mapping[str, Any],
    seating: Sequence[str],
    first_seed: int,
    games: int,
    agent_kwargs: Mapping[str, Mapping[str, Any]] | None = None,
) -> list[dict[str, Any]]:
    """Play ``games`` games of a multiplayer env, game ``i`` on the deal ``first_seed + i``, with
    the agent ``seating[s]`` on seat ``s`` (``agent_kwargs[spec]``: that agent's settings).

    Returns one record per game: ``seed``, ``seating`` (a list), ``results`` (each seat's final
    result: the game's ``returns`` for a game of this package, else its summed rewards),
    ``ranks`` (the places the game records, else ``statistics.finishing_ranks`` of the results:
    module docstring), ``length`` (decisions played) and ``truncated``. Raises ``ValueError``
    when the env is not a multiplayer one, the seating does not fill its seats, or an agent
    cannot play it (``Agent.check_env``).
    """
    env_id = resolve_env_id(env_id)
    _, name, players, env = inspect_env(EnvVariant(env_id, dict(env_kwargs), env_id))
    settings = dict(agent_kwargs or {})
    try:
        if players < 2:
            raise BenchmarkError(f"{env_id} is a single-player env: no seats to fill")
        if len(seating) != players:
            raise BenchmarkError(f"{env_id} has {players} seats; the seating {list(seating)} fills {len(seating)}")
        agents = [make_agent(spec, name, seed=0, **dict(settings.get(spec, {}))) for spec in seating]
        for agent in agents:
            agent.check_env(env)
        seats = list(env.possible_agents)
        records = []
        for index in range(games):
            seed = first_seed + index
            env.reset(seed=seed)
            for seat, agent in enumerate(agents):
                agent.reset(seed=seat_seed(seed, seat))
            totals = dict.fromkeys(seats, 0.0)
            length = 0
            truncated = False
            while env.agents:
                observation, _reward, done, cut, _info = env.last()
                if done or cut:
                    truncated = truncated or bool(cut)
                    env.step(None)
                else:
                    seat = seats.index(env.agent_selection)
                    state = getattr(env.unwrapped, "game_state", None)
                    env.step(agents[seat].act(observation["observation"], observation["action_mask"], state))
                    length += 1
                for seat_name, reward in env.rewards.items():
                    totals[seat_name] += float(reward)
            results = _final_results(env, seats, totals)
            places = [recorded_place(env, seat) for seat in range(players)]
            records.append(
                {
                    "seed": seed,
                    "seating": list(seating),
                    "results": results,
                    "ranks": finishing_ranks(results) if None in places else places,
                    "length": length,
                    "truncated": truncated,
                }
            )
        return records
    finally:
        env.close()


def _final_results(env: Any, seats: list[str], totals: Mapping[str, float]) -> list[float]:
    """Each seat's final result: the game's ``returns`` (shaping left out) when the env is one
    of this package, else the rewards each seat received, summed."""
    unwrapped = env.unwrapped
    game, state = getattr(unwrapped, "game", None), getattr(unwrapped, "game_state", None)
    if game is not None and state is not None and hasattr(game, "returns"):
        return [float(value) for value in game.returns(state)]
    return [totals[seat] for seat in seats]


def rank_round_robin(
    env: str,
    kwargs: Mapping[str, Any] | None,
    agents: Sequence[str],
    seed: int,
    games: int,
    label: str | None = None,
    log: Log | None = None,
    agent_kwargs: Mapping[str, Any] | None = None,
    combination_games: Mapping[tuple[str, ...], int] | None = None,
    runner: Runner | None = None,
    parts: int = 1,
) -> dict[str, Any]:
    """Rate ``agents`` on a multiplayer env by Weng-Lin from games where each seat holds a
    different agent (module docstring: the seatings, the deals, the ranks, the order).

    Every combination plays ``games`` deals, or ``combination_games[combination]`` for one it
    names (a tuple of agents in roster order); deal ``d`` has seed ``seed * 1_000_000 + d``.
    Each agent gets its part of ``agent_kwargs`` (``agents.base.agent_settings``). ``runner``
    plays the ``play_seated_games`` calls (default ``run.sequential_runner``), one per seating,
    or up to ``parts`` per seating so that a runner can spread them over processes (the games
    are the same: each is fixed by its deal and seating).

    Returns ``env`` (the label), ``env_id``, ``env_kwargs``, ``players``, ``agents``, ``seed``,
    ``games_per_combination`` (``{combination: deals}``), ``games`` (the records of
    ``play_seated_games`` in rating order), ``ratings`` (``statistics.weng_lin_ratings``: per
    agent ``mu``, ``sigma``, ``ordinal``, ``games``, ``mean_rank``) and ``firsts`` (per agent,
    the games it finished first in, ties included). Raises ``BenchmarkError`` for a game of
    fewer seats than two, fewer distinct agents than seats, or bad counts.
    """
    kwargs = dict(kwargs or {})
    label = label or env_label(env)
    env_id, name, players, probe = inspect_env(EnvVariant(env, kwargs, label))
    probe.close()
    if players < 2:
        raise BenchmarkError(f"{label} is a single-player env: no seats to rate")
    order = seatings(agents, players)  # checks the roster
    combinations = list(itertools.combinations(agents, players))
    per_combination = dict.fromkeys(combinations, games)
    for combination, count in dict(combination_games or {}).items():
        if tuple(combination) not in per_combination:
            raise BenchmarkError(f"combination_games names {combination}, which is no combination of {list(agents)}")
        per_combination[tuple(combination)] = count
    for count in (*per_combination.values(), parts):
        if count < 1:
            raise BenchmarkError(f"game counts and parts must be at least 1, got {count}")
    settings = {spec: agent_settings(spec, name, dict(agent_kwargs or {})) for spec in agents}
    first = seed_base(seed)
    tasks: list[dict[str, Any]] = []
    for seating in order:
        combination = _combination_of(seating, combinations)
        deals = per_combination[combination]
        for start, count in split_episodes(first, deals, parts):
            tasks.append(
                {
                    "env_id": env,
                    "env_kwargs": kwargs,
                    "seating": seating,
                    "first_seed": start,
                    "games": count,
                    "agent_kwargs": {spec: settings[spec] for spec in seating},
                }
            )
    by_seating: dict[tuple[str, ...], list[dict[str, Any]]] = {seating: [] for seating in order}
    for task, records in zip(tasks, (runner or sequential_runner)(play_seated_games, tasks), strict=True):
        by_seating[task["seating"]].extend(records)
        if log:
            log(f"{label}: {' / '.join(task['seating'])}: {len(records)} game(s) from seed {task['first_seed']}")
    played = [
        by_seating[seating][deal]
        for deal in range(max(per_combination.values()))
        for seating in order
        if deal < per_combination[_combination_of(seating, combinations)]
    ]
    rated = [dict(zip(game["seating"], game["ranks"], strict=True)) for game in played]
    firsts = dict.fromkeys(agents, 0)
    for game in played:
        for spec, rank in zip(game["seating"], game["ranks"], strict=True):
            firsts[spec] += rank == 1
    return {
        "env": label,
        "env_id": env_id,
        "env_kwargs": kwargs,
        "players": players,
        "agents": list(agents),
        "seed": seed,
        "games_per_combination": per_combination,
        "games": played,
        "ratings": weng_lin_ratings(rated),
        "firsts": firsts,
    }


def _combination_of(seating: Sequence[str], combinations: Sequence[tuple[str, ...]]) -> tuple[str, ...]:
    members = set(seating)
    return next(combination for combination in combinations if set(combination) == members)
