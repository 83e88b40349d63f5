"""Running a benchmark: checking every env and agent before anything plays (``plan_benchmark``),
the main table of every agent on every env variant and seed against ``opponent``
(``run_benchmark``), and the round robin of every ordered pair of agents on a multiplayer env
(``round_robin``). Every game goes through ``evaluate.evaluate_agent``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import gymnasium

from ...agents.base import agent_settings, game_key, make_agent
from ...registry import is_multiplayer, make_any
from ..evaluate import evaluate_agent, resolve_env_id
from ..reporting import Log
from .spec import BenchmarkError, EnvVariant, as_variant, check_counts, env_label, seed_base, split_episodes
from .statistics import combine_results, elo_ratings, pool_results, score_points


@dataclass
class PlannedEnv:
    """An env variant, what it is (game name, seats) and which agents it has."""

    variant: EnvVariant
    env_id: str
    game_name: str
    players: int  # 1 for a Gymnasium env
    agents: list[str]
    skipped: dict[str, str]  # agent spec -> why the game does not have it
    settings: dict[str, dict[str, Any]] = field(default_factory=dict)  # spec -> its part of --agent-kwarg

    @property
    def multiplayer(self) -> bool:
        return self.players > 1


#: what building an env from a bad spec or bad settings raises
_ENV_ERRORS = (ValueError, TypeError, KeyError, ImportError, gymnasium.error.Error)


def inspect_env(variant: EnvVariant) -> tuple[str, str, int, Any]:
    """``(env_id, game_name, players, env)`` of a variant (the caller closes the env);
    BenchmarkError if it cannot be built."""
    env_id = resolve_env_id(variant.spec)
    try:
        env = make_any(env_id, **dict(variant.kwargs))
    except _ENV_ERRORS as error:
        raise BenchmarkError(f"cannot build env {variant.label!r}: {type(error).__name__}: {error}") from None
    players = len(env.possible_agents) if is_multiplayer(env) else 1
    return env_id, game_key(env, env_id), players, env


def _agent_problem(spec: str, game_name: str, env: Any, settings: Mapping[str, Any] | None = None) -> str | None:
    """Why ``spec`` cannot play ``env`` (None when it can): ``Agent.check_env``, its spaces and,
    for a trained policy, the rules it was trained on.

    Only ``ValueError`` (an unknown name, an unimportable class, a model trained on other
    spaces or rules) means "not for this game"; anything else (a missing extra) propagates as a
    real error.
    """
    try:
        make_agent(spec, game_name, seed=0, **dict(settings or {})).check_env(env)
    except ValueError as error:
        return str(error)
    return None


def plan_benchmark(
    envs: Sequence[str | EnvVariant],
    agents: Sequence[str],
    opponent: str = "random",
    agent_kwargs: Mapping[str, Any] | None = None,
) -> list[PlannedEnv]:
    """Check every env and agent before anything runs: which agents each env gets, and each
    agent's part of ``agent_kwargs`` (``agents.base.agent_settings``: the settings it takes).

    Raises ``BenchmarkError`` for no envs or agents, a label or agent given twice, an env that
    cannot be built, an agent that no env has, an ``opponent`` a multiplayer env lacks, or a
    setting that no agent takes.
    """
    agent_kwargs = dict(agent_kwargs or {})
    variants = [as_variant(env) for env in envs]
    if not variants:
        raise BenchmarkError("no env given")
    if not agents:
        raise BenchmarkError("no agent given")
    for kind, names in (("env", [v.label for v in variants]), ("agent", list(agents))):
        repeated = sorted({name for name in names if names.count(name) > 1})
        if repeated:
            raise BenchmarkError(f"{kind} given more than once: {', '.join(repeated)}")
    plan = []
    for variant in variants:
        env_id, name, players, env = inspect_env(variant)
        usable: list[str] = []
        skipped: dict[str, str] = {}
        settings = {spec: agent_settings(spec, name, agent_kwargs) for spec in {*agents, opponent}}
        try:
            for spec in agents:
                problem = _agent_problem(spec, name, env, settings[spec])
                if problem is None:
                    usable.append(spec)
                else:
                    skipped[spec] = problem
            opponent_problem = _agent_problem(opponent, name, env, settings[opponent]) if players > 1 else None
        finally:
            env.close()
        if opponent_problem is not None:
            raise BenchmarkError(f"opponent {opponent!r} on {variant.label}: {opponent_problem}")
        plan.append(PlannedEnv(variant, env_id, name, players, usable, skipped, settings))
    nowhere = [spec for spec in agents if all(spec in p.skipped for p in plan)]
    if nowhere:
        reasons = "; ".join(f"{spec!r}: {plan[0].skipped[spec]}" for spec in nowhere)
        raise BenchmarkError(f"agent(s) valid for none of the envs: {reasons}")
    taken = {key for p in plan for spec in (*p.agents, opponent) for key in p.settings.get(spec, {})}
    untaken = sorted(set(agent_kwargs) - taken)
    if untaken:
        raise BenchmarkError(f"agent setting(s) {', '.join(untaken)} taken by none of the agents {list(agents)}")
    return plan


def run_benchmark(
    envs: Sequence[str | EnvVariant],
    agents: Sequence[str],
    seeds: Sequence[int],
    episodes: int,
    opponent: str = "random",
    log: Log | None = print,
    agent_kwargs: Mapping[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """Evaluate every agent on every env variant for every seed; one pooled row per env x agent.
    ``agent_kwargs`` are settings for the agents that take them (``plan_benchmark``).

    ``envs`` are spec texts (``SPEC[@key=value,...]``) or ``EnvVariant``s. Seed ``k`` runs
    ``evaluate_agent(spec, agent, episodes, seed=k * 1_000_000, env_kwargs=...)``; ``opponent``
    plays the other seats of a multiplayer env. An agent a game does not have is skipped for
    that env (a note goes to ``log``). Rows come env by env, in the order given; see
    ``pool_results`` for their keys. Raises ``BenchmarkError`` for bad input.
    """
    check_counts(seeds, episodes)
    plan = plan_benchmark(envs, agents, opponent, agent_kwargs)
    rows = []
    for planned in plan:
        variant = planned.variant
        for spec, why in planned.skipped.items():
            if log:
                log(f"note: skipping agent {spec!r} on {variant.label}: {why}")
        for spec in planned.agents:
            per_seed = [
                evaluate_agent(
                    variant.spec,
                    spec,
                    episodes,
                    seed=seed_base(seed),
                    env_kwargs=dict(variant.kwargs),
                    opponent=opponent if planned.multiplayer else None,
                    agent_kwargs=planned.settings.get(spec),
                    opponent_kwargs=planned.settings.get(opponent),
                )
                for seed in seeds
            ]
            row = pool_results(per_seed, variant.label)
            row["players"] = planned.players
            rows.append(row)
            if log:
                log(
                    f"{variant.label} / {spec}: win rate {100 * row['win_rate']:.1f}% "
                    f"over {row['episodes']} episodes ({row['wall_time_s']:.1f} s)"
                )
    return rows


#: ``runner(function, tasks)``: ``function(**task)`` for each task (a dict of keyword arguments),
#: yielded in the order of the tasks. ``sequential_runner`` calls them one by one in this process;
#: a caller may hand one that spreads them over processes (the function and the tasks pickle).
Runner = Callable[[Callable[..., Any], Sequence[Mapping[str, Any]]], Iterable[Any]]


def sequential_runner(function: Callable[..., Any], tasks: Sequence[Mapping[str, Any]]) -> Iterator[Any]:
    """The default ``Runner``: ``function(**task)`` for each task in turn, in this process."""
    for task in tasks:
        yield function(**task)


def round_robin(
    env: str,
    kwargs: Mapping[str, Any] | None,
    agents: Sequence[str],
    seeds: Sequence[int],
    episodes: int,
    label: str | None = None,
    log: Log | None = None,
    agent_kwargs: Mapping[str, Any] | None = None,
    pair_episodes: Mapping[tuple[str, str], int] | None = None,
    runner: Runner | None = None,
    parts: int = 1,
) -> dict[str, Any]:
    """Every agent against every other on a multiplayer env, and their Elo ratings; each agent
    gets its part of ``agent_kwargs`` (``agents.base.agent_settings``), as player and as opponent.

    For each ordered pair (A, B), A != B, and each seed ``k``:
    ``evaluate_agent(env, A, n, seed=k * 1_000_000, env_kwargs=kwargs, opponent=B)``
    (A takes the seats in turn, B plays every other seat), where ``n`` is ``episodes``, or
    ``pair_episodes[(A, B)]`` for a pair it names (fewer games for a slow agent). ``runner``
    plays those calls (``Runner``; default ``sequential_runner``); with ``parts > 1`` each call
    is played as up to ``parts`` calls of the same episodes (``spec.split_episodes``) combined
    by ``statistics.combine_results``, so that a runner can spread one pair over processes with
    the same counts (a key the parts cannot be combined in, such as an interval of the mean
    rank, is left out). Returns a dict with ``env``
    (the label), ``env_id``, ``env_kwargs``, ``players``, ``agents``, ``seeds``,
    ``episodes_per_seed`` (``episodes``), ``pair_episodes`` (``{(A, B): n}`` for every pair),
    ``counts`` (``{(A, B): {"wins", "draws", "losses", "truncations", "illegal", "points",
    "games"}}`` pooled over seeds, points = wins + (draws + truncations) / 2 (``statistics.score_points``), games as the
    results count them),
    ``matrix`` (``matrix[a][b]`` is A's score points / games against B, None on the diagonal)
    and ``elo`` (``elo_ratings`` of the counts). Raises ``BenchmarkError`` for a single-player
    env, fewer than two agents, or a ``pair_episodes`` entry that names no pair or is out of range.
    """
    check_counts(seeds, episodes)
    kwargs = dict(kwargs or {})
    label = label or env_label(env)
    if len(agents) < 2 or len(set(agents)) != len(agents):
        raise BenchmarkError(f"a round robin needs two or more distinct agents, got {list(agents)}")
    pairs = [(a, b) for a in agents for b in agents if a != b]
    per_pair = {pair: episodes for pair in pairs}
    for pair, count in dict(pair_episodes or {}).items():
        if pair not in per_pair:
            raise BenchmarkError(f"pair_episodes names {pair}, which is no ordered pair of {list(agents)}")
        check_counts(seeds, count)
        per_pair[pair] = count
    env_id, name, players, probe = inspect_env(EnvVariant(env, kwargs, label))
    probe.close()
    settings = {spec: agent_settings(spec, name, dict(agent_kwargs or {})) for spec in agents}
    if players < 2:
        raise BenchmarkError(f"{label} is a single-player env: no round robin")
    pieces = {
        (pair, seed): split_episodes(seed_base(seed), per_pair[pair], parts, players)
        for pair in pairs
        for seed in seeds
    }
    tasks = [
        {
            "env_id": env,
            "agent_spec": a,
            "episodes": count,
            "seed": first,
            "env_kwargs": kwargs,
            "opponent": b,
            "agent_kwargs": settings[a],
            "opponent_kwargs": settings[b],
        }
        for a, b in pairs
        for seed in seeds
        for first, count in pieces[((a, b), seed)]
    ]
    results = iter((runner or sequential_runner)(evaluate_agent, tasks))
    counts: dict[tuple[str, str], dict[str, float]] = {}
    for a, b in pairs:
        pooled = dict.fromkeys(("wins", "draws", "losses", "truncations", "illegal"), 0)
        games = 0
        for seed in seeds:
            result = combine_results([next(results) for _ in pieces[((a, b), seed)]])
            for key in pooled:
                pooled[key] += result[key]
            games += result["episodes"]
        points = score_points(pooled["wins"], pooled["draws"], pooled["truncations"])
        counts[(a, b)] = {**pooled, "points": points, "games": games}
        if log:
            log(f"{label}: {a} vs {b}: score {counts[(a, b)]['points'] / games:.3f} over {games} games")
    matrix = [[None if a == b else counts[(a, b)]["points"] / counts[(a, b)]["games"] for b in agents] for a in agents]
    elo = elo_ratings({pair: (c["points"], c["games"]) for pair, c in counts.items()})
    return {
        "env": label,
        "env_id": env_id,
        "env_kwargs": kwargs,
        "players": players,
        "agents": list(agents),
        "seeds": list(seeds),
        "episodes_per_seed": episodes,
        "pair_episodes": per_pair,
        "counts": counts,
        "matrix": matrix,
        "elo": elo,
    }
