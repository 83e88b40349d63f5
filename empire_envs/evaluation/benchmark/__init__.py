"""Benchmark agents on several environments and variants over several seeds: one results table.

``python -m empire_envs benchmark`` (and ``experiments/benchmark.py``) runs ``benchmark_report``.

An env is written ``SPEC[@key=value,...]``: any env spec ``evaluate_agent`` takes, optionally
followed by the variant's settings (values are Python literals; a bare word stays a string). Tables
label a variant by its text as given, with the ``empire_envs/`` prefix dropped.

Seed ``k`` plays episodes ``k * 1_000_000 + i`` (``evaluate_agent(..., seed=k * 1_000_000)``), so
two seeds never share a deal. Counts are pooled over the seeds: the win rate carries the Wilson
95% interval of all pooled episodes, and ``win_rate_seed_std`` is the sample standard deviation
(ddof 1) of the per-seed win rates (blank with one seed).

An agent that a game does not have (``reveal-solve`` exists for Solitaire only) is skipped for
that env with a note; an agent that no env has is an error (``BenchmarkError``).

In a multiplayer (PettingZoo AEC) env every agent gets a row against ``opponent`` in the main
table, and the agents also play a round robin: for every ordered pair (A, B) with A != B, A takes
the seats in turn and B plays every other seat. A's score is ``(wins + (draws + truncations) / 2) / episodes``
(``statistics.score_points``: a game nobody won, drawn or truncated, is half a point each).
The pooled pairwise results give Bradley-Terry ratings on the Elo scale (``elo_ratings``).

Files written under the output folder: ``results.md``, ``results.csv``, ``results.png`` (win
rates with 95% intervals) and, per multiplayer env, ``roundrobin_<label>.md``, ``.csv`` and
``.png`` (the score matrix as a heatmap).

With more than two seats a game is no duel: ``rank_round_robin`` seats different agents of a
roster in every seat at once (every combination, in every rotation) and rates them by Weng-Lin
(Plackett-Luce, OpenSkill's model) from their finishing ranks (``weng_lin_ratings``).

The round robins take a ``Runner`` (``runner(function, tasks)``, default ``sequential_runner``)
and a number of ``parts`` per call, so that a caller can spread their games over processes with
the same results.

The code, by topic: ``spec`` (env variants, labels, seeds, parts of a run), ``run`` (planning,
the main table, the round robin), ``multiseat`` (the rank-based round robin of several seats),
``statistics`` (pooling, Wilson intervals, Elo, Weng-Lin) and ``report`` (the files, the
charts and ``benchmark_report``). This package re-exports their public names; a test that
replaces a function replaces it in the module that calls it (``run.evaluate_agent``).
"""

from __future__ import annotations

from .multiseat import play_seated_games, rank_round_robin, seatings
from .report import (
    CSV_COLUMNS,
    HAVE_MATPLOTLIB,
    benchmark_report,
    format_markdown,
    format_round_robin,
    plot_results,
    plot_round_robin,
    round_robin_rows,
    write_round_robin,
    write_table,
)
from .run import PlannedEnv, Runner, plan_benchmark, round_robin, run_benchmark, sequential_runner
from .spec import (
    SEED_STRIDE,
    BenchmarkError,
    EnvVariant,
    env_label,
    parse_env_spec,
    safe_label,
    seed_base,
    split_episodes,
)
from .statistics import (
    combine_results,
    elo_ratings,
    finishing_ranks,
    pool_results,
    weng_lin_ratings,
    weng_lin_update,
)

__all__ = [
    "CSV_COLUMNS",
    "HAVE_MATPLOTLIB",
    "SEED_STRIDE",
    "BenchmarkError",
    "EnvVariant",
    "PlannedEnv",
    "Runner",
    "benchmark_report",
    "combine_results",
    "elo_ratings",
    "env_label",
    "finishing_ranks",
    "format_markdown",
    "format_round_robin",
    "parse_env_spec",
    "plan_benchmark",
    "play_seated_games",
    "plot_results",
    "plot_round_robin",
    "pool_results",
    "rank_round_robin",
    "round_robin",
    "round_robin_rows",
    "run_benchmark",
    "safe_label",
    "seatings",
    "seed_base",
    "sequential_runner",
    "split_episodes",
    "weng_lin_ratings",
    "weng_lin_update",
    "write_round_robin",
    "write_table",
]
