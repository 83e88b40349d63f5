"""The benchmark's arithmetic: per-seed results pooled into one row (counts summed, the Wilson 95%
interval of the pooled win rate, the spread of the per-seed win rates), Bradley-Terry ratings
on the Elo scale from pairwise results (two seats), and Weng-Lin (Plackett-Luce) ratings from the
finishing ranks of games of several seats. Pure functions over numbers; nothing here plays a game.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from ..evaluate import wilson_interval
from .spec import SEED_STRIDE


def score_points(wins: float, draws: float, truncations: float, players: int = 2) -> float:
    """A seat's points from its games: 1 a win, ``1 / players`` a game nobody won (a draw, or a
    game truncated at the length limit: the rules pay every seat 0 for both, so neither side
    took it), 0 a loss or an illegal action. Counting a truncated game as a loss for both would
    make two equal agents score below their fair share, the more so the more games run long."""
    return wins + (draws + truncations) / players


def _sample_std(values: Sequence[float]) -> float | None:
    if len(values) < 2:
        return None
    mean = sum(values) / len(values)
    return math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1))


def pool_results(results: Sequence[Mapping[str, Any]], label: str) -> dict[str, Any]:
    """One row from the per-seed ``evaluate_agent`` results of one env x agent: counts summed,
    Wilson 95% interval of the pooled win rate, episode-weighted means, std of per-seed win rates.
    """
    if not results:
        raise ValueError("nothing to pool")
    first = results[0]
    episodes = sum(r["episodes"] for r in results)
    counts = {
        key: sum(r[key] for r in results)
        for key in ("wins", "losses", "draws", "truncations", "illegal", "total_steps")
    }
    low, high = wilson_interval(counts["wins"], episodes)
    per_seed_win_rates = [r["win_rate"] for r in results]
    return {
        "env": label,
        "env_id": first["env_id"],
        "env_kwargs": dict(first["env_kwargs"]),
        "agent": first["agent"],
        "opponent": first["opponent"],
        "seeds": [r["seed"] // SEED_STRIDE for r in results],
        "episodes_per_seed": first["episodes"],
        "episodes": episodes,
        "wins": counts["wins"],
        "win_rate": counts["wins"] / episodes,
        "win_ci_low": low,
        "win_ci_high": high,
        "win_rate_seed_std": _sample_std(per_seed_win_rates),
        "per_seed_win_rates": per_seed_win_rates,
        "draws": counts["draws"],
        "draw_rate": counts["draws"] / episodes,
        "losses": counts["losses"],
        "loss_rate": counts["losses"] / episodes,
        "truncations": counts["truncations"],
        "truncation_rate": counts["truncations"] / episodes,
        "illegal": counts["illegal"],
        "mean_return": sum(r["mean_return"] * r["episodes"] for r in results) / episodes,
        "mean_length": counts["total_steps"] / episodes,
        "wall_time_s": sum(r["wall_time_s"] for r in results),
    }


def elo_ratings(
    score_counts: Mapping[tuple[str, str], tuple[float, float]],
    anchor: str = "random",
    prior_draws: float = 1.0,
    tolerance: float = 1e-10,
    max_iterations: int = 100_000,
) -> dict[str, float]:
    """Bradley-Terry ratings on the Elo scale from pairwise results.

    ``score_counts`` maps an ordered pair ``(A, B)`` to ``(points_for_A, games)``: the games A
    played against B, with a win 1 point and a draw 1/2 (B's points there are
    ``games - points_for_A``). Both orders of a pair may be present; their games are pooled.
    ``prior_draws`` virtual draws are added between every pair of agents named, which keeps
    perfect records finite and leaves the ratings defined when some pairs never met.

    The strengths ``p`` maximise ``prod (p_i / (p_i + p_j))^{W_ij}`` (fractional ``W`` for draws)
    by the MM iteration ``p_i <- W_i / sum_j N_ij / (p_i + p_j)`` (Hunter 2004). The rating is
    ``400 * log10(p)``, shifted so that ``anchor`` is 1000 when it is among the agents, else so
    that the mean rating is 1000. With two agents and ``W`` points of ``N`` games (prior
    included), the rating difference is exactly ``400 * log10(W / (N - W))``.
    """
    agents = list(dict.fromkeys(name for pair in score_counts for name in pair))
    index = {name: i for i, name in enumerate(agents)}
    n = len(agents)
    if n == 0:
        return {}
    points = [[0.0] * n for _ in range(n)]  # points[i][j]: what i scored against j
    games = [[0.0] * n for _ in range(n)]
    for (a, b), (score, played) in score_counts.items():
        if a == b:
            raise ValueError(f"an agent cannot play itself: {a!r}")
        if played < 0 or not 0 <= score <= played:
            raise ValueError(f"need 0 <= points <= games for {(a, b)}, got {(score, played)}")
        i, j = index[a], index[b]
        points[i][j] += score
        points[j][i] += played - score
        games[i][j] += played
        games[j][i] += played
    for i in range(n):
        for j in range(n):
            if i != j:
                points[i][j] += prior_draws / 2
                games[i][j] += prior_draws
    totals = [sum(row) for row in points]
    if n > 1 and any(total <= 0 for total in totals):
        raise ValueError("an agent without a point has no finite rating; use prior_draws > 0")
    strength = [1.0] * n
    for _ in range(max_iterations):
        updated = [
            totals[i] / sum(games[i][j] / (strength[i] + strength[j]) for j in range(n) if j != i) if n > 1 else 1.0
            for i in range(n)
        ]
        # strengths are defined up to a factor: fix their geometric mean at 1
        log_mean = sum(math.log(s) for s in updated) / n
        updated = [s / math.exp(log_mean) for s in updated]
        change = max(abs(math.log(u / s)) for u, s in zip(updated, strength, strict=True))
        strength = updated
        if change < tolerance:
            break
    ratings = {name: 400.0 * math.log10(strength[index[name]]) for name in agents}
    shift = 1000.0 - (ratings[anchor] if anchor in ratings else sum(ratings.values()) / n)
    return {name: rating + shift for name, rating in ratings.items()}


#: the Weng-Lin defaults of OpenSkill (and TrueSkill): a new player's mean and spread
WENG_LIN_MU = 25.0
WENG_LIN_SIGMA = 25.0 / 3.0
#: the spread of one game's performance around a player's skill: half the initial sigma
WENG_LIN_BETA = WENG_LIN_SIGMA / 2.0
#: the least factor by which one game may scale a variance (keeps sigma positive)
WENG_LIN_KAPPA = 1e-4


def weng_lin_update(
    ratings: Sequence[tuple[float, float]],
    ranks: Sequence[float],
    beta: float = WENG_LIN_BETA,
    kappa: float = WENG_LIN_KAPPA,
) -> list[tuple[float, float]]:
    """One game's Weng-Lin update under the Plackett-Luce model (Weng & Lin 2011, "A Bayesian
    Approximation Method for Online Ranking", JMLR 12; the model OpenSkill rates with by default).

    ``ratings[i]`` is player ``i``'s ``(mu, sigma)`` before the game, ``ranks[i]`` its finishing
    place (1 is first; a lower rank finished ahead; equal ranks tie). Each player is a team of
    one. Returns the ``(mu, sigma)`` of every player after the game, in the same order.

    With ``c^2 = sum_i (sigma_i^2 + beta^2)``, ``e_i = exp(mu_i / c)``, ``C_q`` the players ranked
    at or behind ``q`` (``rank >= rank_q``), ``S_q = sum_{s in C_q} e_s``, ``A_q`` the number of
    players tied with ``q`` (``q`` included) and ``p_{i,q} = e_i / S_q``, the sums running over
    the players ``q`` ranked at or ahead of ``i`` (``rank_q <= rank_i``)::

        Omega_i = sigma_i^2 / c   * sum_q (delta_{iq} - p_{i,q}) / A_q
        Delta_i = gamma_i * sigma_i^2 / c^2 * sum_q p_{i,q} (1 - p_{i,q}) / A_q,  gamma_i = sigma_i / c
        mu_i'   = mu_i + Omega_i
        sigma_i' = sigma_i * sqrt(max(1 - Delta_i, kappa))

    A player's mean rises by what it did better than the model expected (a win it was given a
    probability ``p`` of is worth ``1 - p``) and every sigma shrinks. With equal sigmas the
    means' changes sum to zero. Raises ``ValueError`` for fewer than two players, lengths that
    differ, or a sigma, beta or kappa that is not positive, or a value that is not finite.
    """
    if len(ratings) != len(ranks):
        raise ValueError(f"{len(ratings)} ratings but {len(ranks)} ranks")
    if len(ratings) < 2:
        raise ValueError(f"a game is rated between two or more players, got {len(ratings)}")
    if not (beta > 0 and math.isfinite(beta)) or not (0 < kappa <= 1):
        raise ValueError(f"need beta > 0 and 0 < kappa <= 1, got beta={beta}, kappa={kappa}")
    for (mu, sigma), rank in zip(ratings, ranks, strict=True):
        if not (math.isfinite(mu) and math.isfinite(sigma) and sigma > 0 and math.isfinite(rank)):
            raise ValueError(f"need a finite mu, a finite positive sigma and a finite rank, got {(mu, sigma)}, {rank}")
    c = math.sqrt(sum(sigma * sigma + beta * beta for _, sigma in ratings))
    # shifting every mu by one constant leaves every p unchanged; it keeps exp() in range
    top = max(mu for mu, _ in ratings)
    strength = [math.exp((mu - top) / c) for mu, _ in ratings]
    players = range(len(ratings))
    behind = [sum(strength[s] for s in players if ranks[s] >= ranks[q]) for q in players]
    tied = [sum(1 for s in players if ranks[s] == ranks[q]) for q in players]
    updated = []
    for i in players:
        mu, sigma = ratings[i]
        omega = delta = 0.0
        for q in players:
            if ranks[q] > ranks[i]:
                continue
            p = strength[i] / behind[q]
            omega += ((1.0 if q == i else 0.0) - p) / tied[q]
            delta += p * (1.0 - p) / tied[q]
        variance = sigma * sigma
        omega *= variance / c
        delta *= (sigma / c) * variance / (c * c)
        updated.append((mu + omega, sigma * math.sqrt(max(1.0 - delta, kappa))))
    return updated


def weng_lin_ratings(
    games: Sequence[Mapping[str, float]],
    mu: float = WENG_LIN_MU,
    sigma: float = WENG_LIN_SIGMA,
    beta: float | None = None,
    kappa: float = WENG_LIN_KAPPA,
) -> dict[str, dict[str, float]]:
    """Weng-Lin (Plackett-Luce) ratings of agents from games played in the order given.

    Each game maps the agents that played it (two or more, each in one seat) to their finishing
    ranks (1 first, ties equal); ``weng_lin_update`` rates it. Every agent starts at ``(mu,
    sigma)``; ``beta`` defaults to ``sigma / 2``. Returns, per agent in order of first
    appearance, ``mu``, ``sigma``, ``ordinal`` (``mu - 3 * sigma``, the conservative estimate
    OpenSkill ranks by), ``games`` and ``mean_rank``. The update is online, so the order of the
    games matters a little; a fixed schedule gives fixed ratings.
    """
    beta = sigma / 2.0 if beta is None else beta
    state: dict[str, tuple[float, float]] = {}
    played: dict[str, int] = {}
    rank_sum: dict[str, float] = {}
    for number, game in enumerate(games):
        names = list(game)
        if len(names) < 2:
            raise ValueError(f"game {number} has {len(names)} agent(s); a rated game needs two or more")
        for name in names:
            state.setdefault(name, (mu, sigma))
        ranks = [float(game[name]) for name in names]
        after = weng_lin_update([state[name] for name in names], ranks, beta=beta, kappa=kappa)
        for name, rank, rating in zip(names, ranks, after, strict=True):
            state[name] = rating
            played[name] = played.get(name, 0) + 1
            rank_sum[name] = rank_sum.get(name, 0.0) + rank
    return {
        name: {
            "mu": m,
            "sigma": s,
            "ordinal": m - 3.0 * s,
            "games": played[name],
            "mean_rank": rank_sum[name] / played[name],
        }
        for name, (m, s) in state.items()
    }


def finishing_ranks(returns: Sequence[float]) -> list[int]:
    """Each seat's finishing place from the final returns: 1 plus the number of seats that
    scored strictly more (equal returns share a place: ``[1, -1, 1] -> [1, 3, 1]``)."""
    return [1 + sum(1 for other in returns if other > value) for value in returns]


#: the result keys of ``evaluate_agent`` that count episodes (summed when results are combined)
_COUNT_KEYS = ("wins", "losses", "draws", "truncations", "illegal", "total_steps")
_RATE_KEYS = {"win": "wins", "loss": "losses", "draw": "draws", "truncation": "truncations", "illegal": "illegal"}


def combine_results(results: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """One ``evaluate_agent`` result from those of consecutive parts of one evaluation (the same
    agent, opponent and env on seeds that follow on, ``spec.split_episodes``).

    Counts (``deals`` too), and wall times are summed; every rate and its Wilson 95% interval is recomputed from
    the sums; ``mean_length``, ``mean_return`` and ``std_return`` are those of all the episodes
    together; ``seed`` is the first part's. Any other key keeps its value when every part has the
    same one; a numeric ``mean_...`` key that differs is averaged over the episodes; any other key
    that differs is left out. One result comes back as a copy.
    """
    if not results:
        raise ValueError("no result to combine")
    if len(results) == 1:
        return dict(results[0])
    episodes = sum(r["episodes"] for r in results)
    combined: dict[str, Any] = {}
    for key in results[0]:
        values = [r.get(key) for r in results]
        if all(value == values[0] for value in values):
            combined[key] = values[0]
        elif key.startswith("mean_") and all(isinstance(v, (int, float)) for v in values):
            combined[key] = sum(v * r["episodes"] for v, r in zip(values, results, strict=True)) / episodes
    summed = [*_COUNT_KEYS, *(["deals"] if all(isinstance(r.get("deals"), int) for r in results) else [])]
    combined.update({key: sum(r[key] for r in results) for key in summed})
    combined["seed"] = results[0]["seed"]
    combined["episodes"] = episodes
    for prefix, key in _RATE_KEYS.items():
        combined[f"{prefix}_rate"] = combined[key] / episodes
        combined[f"{prefix}_ci95"] = list(wilson_interval(combined[key], episodes))
    mean_return = sum(r["mean_return"] * r["episodes"] for r in results) / episodes
    second_moment = sum((r["std_return"] ** 2 + r["mean_return"] ** 2) * r["episodes"] for r in results) / episodes
    wall = sum(r["wall_time_s"] for r in results)
    combined.update(
        {
            "mean_length": combined["total_steps"] / episodes,
            "mean_return": mean_return,
            "std_return": math.sqrt(max(0.0, second_moment - mean_return * mean_return)),
            "wall_time_s": wall,
            "steps_per_second": combined["total_steps"] / wall if wall > 0 else float("inf"),
        }
    )
    return combined
