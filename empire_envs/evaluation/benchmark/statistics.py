"""The benchmark's arithmetic: per-seed results pooled into one row (counts summed, the Wilson 95%
interval of the pooled win rate, the spread of the per-seed win rates), and Bradley-Terry ratings
on the Elo scale from pairwise results. Pure functions over numbers; nothing here plays a game.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from ..evaluate import wilson_interval
from .spec import SEED_STRIDE


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
