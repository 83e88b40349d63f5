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
the seats in turn and B plays every other seat. A's score is ``(wins + draws / 2) / episodes``.
The pooled pairwise results give Bradley-Terry ratings on the Elo scale (``elo_ratings``).

Files written under the output folder: ``results.md``, ``results.csv``, ``results.png`` (win
rates with 95% intervals) and, per multiplayer env, ``roundrobin_<label>.md``, ``.csv`` and
``.png`` (the score matrix as a heatmap).
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import gymnasium

from ..agents.base import agent_settings, game_name, make_agent
from ..registry import NAMESPACE, is_multiplayer, make_any
from .evaluate import evaluate_agent, parse_env_kwarg, resolve_env_id, wilson_interval
from .reporting import Log

#: seed k plays episodes seed_base(k) + i; episodes per seed may not exceed it (no shared deals)
SEED_STRIDE = 1_000_000

#: the columns of results.csv, in order
CSV_COLUMNS = (
    "env",
    "env_id",
    "env_kwargs",
    "agent",
    "opponent",
    "seeds",
    "episodes_per_seed",
    "episodes",
    "wins",
    "win_rate",
    "win_ci_low",
    "win_ci_high",
    "win_rate_seed_std",
    "draws",
    "draw_rate",
    "losses",
    "loss_rate",
    "truncations",
    "truncation_rate",
    "illegal",
    "mean_return",
    "mean_length",
    "wall_time_s",
)

#: plots need matplotlib (the ``train`` extra); without it the tables are still written
HAVE_MATPLOTLIB = importlib.util.find_spec("matplotlib") is not None

#: the prefix dropped from env labels
_PACKAGE_PREFIX = f"{NAMESPACE}/"


class BenchmarkError(ValueError):
    """Input the benchmark cannot run (an unknown env, an agent no env has, bad numbers)."""


# --------------------------------------------------------------------------- env specs


@dataclass(frozen=True)
class EnvVariant:
    """One column group of the benchmark: an env spec, its settings and its table label."""

    spec: str
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    label: str = ""

    @classmethod
    def parse(cls, text: str) -> EnvVariant:
        """The variant written as ``SPEC[@key=value,...]``, labelled by that text."""
        spec, kwargs = parse_env_spec(text)
        return cls(spec, kwargs, env_label(text))


def env_label(text: str) -> str:
    """The table label of an env spec text: the text with the ``empire_envs/`` prefix dropped."""
    text = text.strip()
    return text[len(_PACKAGE_PREFIX) :] if text.startswith(_PACKAGE_PREFIX) else text


def _split_settings(text: str) -> list[str]:
    """Split ``a=1,b=(1,2),c='x,y'`` at the commas outside brackets and quotes."""
    parts: list[str] = []
    depth = 0
    quote: str | None = None
    start = 0
    for index, char in enumerate(text):
        if quote:
            if char == quote:
                quote = None
        elif char in "'\"":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "," and depth == 0:
            parts.append(text[start:index])
            start = index + 1
    parts.append(text[start:])
    return parts


def parse_env_spec(text: str) -> tuple[str, dict[str, Any]]:
    """``SPEC[@key=value,key=value]`` -> ``(spec, kwargs)``.

    Values are read as Python literals as ``evaluate.parse_env_kwarg`` does (``200``, ``True``,
    ``(0, 1)``; a bare word stays a string); commas inside brackets or quotes do not split.
    Raises ``BenchmarkError`` (a ``ValueError``) for an empty spec, a setting without ``=``,
    an empty settings part or a key given twice.
    """
    spec, at, settings = text.strip().partition("@")
    spec = spec.strip()
    if not spec:
        raise BenchmarkError(f"env spec {text!r} names no env (expected SPEC[@key=value,...])")
    kwargs: dict[str, Any] = {}
    if not at:
        return spec, kwargs
    if not settings.strip():
        raise BenchmarkError(f"env spec {text!r} has an '@' but no key=value settings after it")
    for part in _split_settings(settings):
        try:
            key, value = parse_env_kwarg(part)
        except argparse.ArgumentTypeError as error:
            raise BenchmarkError(f"env spec {text!r}: {error}") from None
        if not key.isidentifier():
            raise BenchmarkError(f"env spec {text!r}: {key!r} is not a keyword name")
        if key in kwargs:
            raise BenchmarkError(f"env spec {text!r} sets {key!r} twice")
        kwargs[key] = value
    return spec, kwargs


def _as_variant(env: str | EnvVariant) -> EnvVariant:
    return env if isinstance(env, EnvVariant) else EnvVariant.parse(env)


def safe_label(label: str) -> str:
    """``label`` as a file-name part: runs of characters other than ``[A-Za-z0-9._-]`` become ``_``."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", label).strip("_") or "env"


# --------------------------------------------------------------------------- planning


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


def _inspect_env(variant: EnvVariant) -> tuple[str, str, int, Any]:
    """``(env_id, game_name, players, env)`` of a variant (the caller closes the env);
    BenchmarkError if it cannot be built."""
    env_id = resolve_env_id(variant.spec)
    try:
        env = make_any(env_id, **dict(variant.kwargs))
    except _ENV_ERRORS as error:
        raise BenchmarkError(f"cannot build env {variant.label!r}: {type(error).__name__}: {error}") from None
    players = len(env.possible_agents) if is_multiplayer(env) else 1
    return env_id, game_name(env, env_id), players, env


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
    variants = [_as_variant(env) for env in envs]
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
        env_id, name, players, env = _inspect_env(variant)
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


def _check_counts(seeds: Sequence[int], episodes: int) -> None:
    if episodes < 1:
        raise BenchmarkError(f"episodes must be at least 1, got {episodes}")
    if episodes > SEED_STRIDE:
        raise BenchmarkError(
            f"episodes per seed may be at most {SEED_STRIDE} (seeds would share deals), got {episodes}"
        )
    if not seeds:
        raise BenchmarkError("no seed given")
    if any(seed < 0 for seed in seeds):
        raise BenchmarkError(f"seeds must be non-negative, got {list(seeds)}")
    if len(set(seeds)) != len(seeds):
        raise BenchmarkError(f"a seed is given twice: {list(seeds)}")


def seed_base(seed: int) -> int:
    """The first episode seed of benchmark seed ``seed``."""
    return seed * SEED_STRIDE


# --------------------------------------------------------------------------- the main table


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
    _check_counts(seeds, episodes)
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


def _pct(rate: float) -> str:
    return f"{100 * rate:.1f}"


def _csv_value(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, (list, tuple)):
        return " ".join(str(v) for v in value)
    if isinstance(value, Mapping):
        return ",".join(f"{k}={v!r}" for k, v in value.items())
    return value


def format_markdown(rows: Sequence[Mapping[str, Any]]) -> str:
    """The markdown table of ``run_benchmark`` rows (rates in %, intervals are Wilson 95%)."""
    with_opponent = any(r.get("opponent") for r in rows)
    with_draws = any(r["draws"] for r in rows)
    header = ["env", "agent"]
    if with_opponent:
        header.append("opponent")
    header += ["seeds", "episodes", "win % [95% CI]", "seed std (pp)"]
    if with_draws:
        header.append("draw %")
    header += ["loss %", "trunc %", "illegal", "mean return", "mean length"]
    text_columns = {"env", "agent", "opponent", "seeds"}
    lines = [
        "| " + " | ".join(header) + " |",
        "|" + "|".join("---" if name in text_columns else "---:" for name in header) + "|",
    ]
    for r in rows:
        std = r["win_rate_seed_std"]
        cells = [f"`{r['env']}`", f"`{r['agent']}`"]
        if with_opponent:
            cells.append(f"`{r['opponent']}`" if r.get("opponent") else "")
        cells += [
            " ".join(str(s) for s in r["seeds"]),
            str(r["episodes"]),
            f"{_pct(r['win_rate'])} [{_pct(r['win_ci_low'])}, {_pct(r['win_ci_high'])}]",
            "" if std is None else f"{100 * std:.1f}",
        ]
        if with_draws:
            cells.append(_pct(r["draw_rate"]))
        cells += [
            _pct(r["loss_rate"]),
            _pct(r["truncation_rate"]),
            str(r["illegal"]),
            f"{r['mean_return']:+.3f}",
            f"{r['mean_length']:.1f}",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _describe(rows: Sequence[Mapping[str, Any]]) -> str:
    envs = list(dict.fromkeys(r["env"] for r in rows))
    agents = list(dict.fromkeys(r["agent"] for r in rows))
    seeds = rows[0]["seeds"] if rows else []
    per_seed = rows[0]["episodes_per_seed"] if rows else 0
    return (
        f"{len(agents)} agent(s) ({', '.join(agents)}) on {len(envs)} env variant(s) "
        f"({', '.join(envs)}), seeds {' '.join(map(str, seeds))}, {per_seed} episodes per "
        f"seed (seed k plays episode seeds k*{SEED_STRIDE} + i)."
    )


def write_table(
    rows: Sequence[Mapping[str, Any]],
    out_dir: str | Path,
    command: str,
    notes: Iterable[str] = (),
) -> dict[str, Path]:
    """Write ``results.md`` (what was run, ``command``, the table, ``notes``) and ``results.csv``
    (one row per env x agent, columns ``CSV_COLUMNS``) under ``out_dir``; returns their paths.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    md_path, csv_path = out / "results.md", out / "results.csv"
    parts = [
        "# Benchmark results",
        "",
        _describe(rows),
        "",
        f"Command: `{command}`",
        "",
        format_markdown(rows),
        "",
        "Win rate pooled over the seeds with its Wilson 95% interval; seed std is the sample "
        "standard deviation of the per-seed win rates, in percentage points.",
    ]
    notes = list(notes)
    if notes:
        parts += ["", "Notes:", "", *(f"- {note}" for note in notes)]
    md_path.write_text("\n".join(parts) + "\n")
    with csv_path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=CSV_COLUMNS)
        writer.writeheader()
        for r in rows:
            writer.writerow({key: _csv_value(r.get(key)) for key in CSV_COLUMNS})
    return {"md": md_path, "csv": csv_path}


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")  # files only; never open a window
    import matplotlib.pyplot as plt

    return plt


def plot_results(rows: Sequence[Mapping[str, Any]], path: str | Path) -> Path:
    """A grouped bar chart of ``run_benchmark`` rows: env variants on the x axis, one bar colour
    per agent, win rate in % with its 95% interval as error bars; written as PNG to ``path``.
    A skipped env x agent leaves a gap.
    """
    plt = _pyplot()
    envs = list(dict.fromkeys(r["env"] for r in rows))
    agents = list(dict.fromkeys(r["agent"] for r in rows))
    by_key = {(r["env"], r["agent"]): r for r in rows}
    width = 0.8 / max(1, len(agents))
    span = 2.0 + len(envs) * (0.6 + 0.45 * len(agents))
    figure, axes = plt.subplots(figsize=(min(16.0, max(6.0, span)) + 2.0, 4.8), layout="constrained")
    colours = plt.get_cmap("tab10")
    top = 0.0
    for a, agent in enumerate(agents):
        xs, heights, lows, highs = [], [], [], []
        for e, env in enumerate(envs):
            row = by_key.get((env, agent))
            if row is None:
                continue
            xs.append(e - 0.4 + width * (a + 0.5))
            heights.append(100 * row["win_rate"])
            lows.append(100 * (row["win_rate"] - row["win_ci_low"]))
            highs.append(100 * (row["win_ci_high"] - row["win_rate"]))
            top = max(top, 100 * row["win_ci_high"])
        bars = axes.bar(
            xs,
            heights,
            width * 0.92,
            yerr=[lows, highs],
            capsize=3,
            color=colours(a % 10),
            label=agent,
            error_kw={"elinewidth": 1},
        )
        for bar, height, high in zip(bars, heights, highs, strict=True):
            axes.annotate(
                f"{height:.1f}",
                (bar.get_x() + bar.get_width() / 2, height + high),
                xytext=(0, 2),
                textcoords="offset points",
                ha="center",
                va="bottom",
                fontsize=7,
            )
    ticks = []
    for env in envs:
        opponents = {r["opponent"] for r in rows if r["env"] == env and r.get("opponent")}
        ticks.append(env + (f"\n(vs {', '.join(sorted(opponents))})" if opponents else ""))
    axes.set_xticks(range(len(envs)))
    axes.set_xticklabels(
        ticks, rotation=15 if len(envs) > 3 else 0, ha="right" if len(envs) > 3 else "center", fontsize=8
    )
    axes.set_ylabel("win rate (%)")
    axes.set_ylim(0, min(100.0, top * 1.15 + 2) if top < 87 else 105)
    seeds = rows[0]["seeds"] if rows else []
    per_seed = rows[0]["episodes_per_seed"] if rows else 0
    axes.set_title(
        f"Win rate by env and agent\n(error bars: 95% Wilson interval; seeds "
        f"{' '.join(map(str, seeds))}, {per_seed} episodes each)",
        fontsize=10,
    )
    # outside the axes, so it never hides a bar
    axes.legend(
        title="agent", fontsize=8, title_fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0
    )
    axes.grid(axis="y", alpha=0.3)
    axes.set_axisbelow(True)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return path


# --------------------------------------------------------------------------- round robin and Elo


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


def round_robin(
    env: str,
    kwargs: Mapping[str, Any] | None,
    agents: Sequence[str],
    seeds: Sequence[int],
    episodes: int,
    label: str | None = None,
    log: Log | None = None,
    agent_kwargs: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Every agent against every other on a multiplayer env, and their Elo ratings; each agent
    gets its part of ``agent_kwargs`` (``agents.base.agent_settings``), as player and as opponent.

    For each ordered pair (A, B), A != B, and each seed ``k``:
    ``evaluate_agent(env, A, episodes, seed=k * 1_000_000, env_kwargs=kwargs, opponent=B)``
    (A takes the seats in turn, B plays every other seat). Returns a dict with ``env`` (the
    label), ``env_id``, ``env_kwargs``, ``players``, ``agents``, ``seeds``, ``episodes_per_seed``,
    ``counts`` (``{(A, B): {"wins", "draws", "losses", "truncations", "illegal", "points",
    "games"}}`` pooled over seeds, points = wins + draws / 2), ``matrix`` (``matrix[a][b]`` is
    A's score points / games against B, None on the diagonal) and ``elo`` (``elo_ratings`` of
    the counts). Raises ``BenchmarkError`` for a single-player env or fewer than two agents.
    """
    _check_counts(seeds, episodes)
    kwargs = dict(kwargs or {})
    label = label or env_label(env)
    if len(agents) < 2 or len(set(agents)) != len(agents):
        raise BenchmarkError(f"a round robin needs two or more distinct agents, got {list(agents)}")
    env_id, name, players, probe = _inspect_env(EnvVariant(env, kwargs, label))
    probe.close()
    settings = {spec: agent_settings(spec, name, dict(agent_kwargs or {})) for spec in agents}
    if players < 2:
        raise BenchmarkError(f"{label} is a single-player env: no round robin")
    counts: dict[tuple[str, str], dict[str, float]] = {}
    for a in agents:
        for b in agents:
            if a == b:
                continue
            pooled = dict.fromkeys(("wins", "draws", "losses", "truncations", "illegal"), 0)
            games = 0
            for seed in seeds:
                result = evaluate_agent(
                    env,
                    a,
                    episodes,
                    seed=seed_base(seed),
                    env_kwargs=kwargs,
                    opponent=b,
                    agent_kwargs=settings[a],
                    opponent_kwargs=settings[b],
                )
                for key in pooled:
                    pooled[key] += result[key]
                games += result["episodes"]
            counts[(a, b)] = {**pooled, "points": pooled["wins"] + 0.5 * pooled["draws"], "games": games}
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
        "counts": counts,
        "matrix": matrix,
        "elo": elo,
    }


def format_round_robin(result: Mapping[str, Any]) -> str:
    """The markdown of a ``round_robin`` result: the score matrix and the Elo table."""
    agents = result["agents"]
    lines = [
        f"## Round robin on `{result['env']}`",
        "",
        f"Score of the row agent A against the column agent B: (wins + draws / 2) / games, with A "
        f"taking the {result['players']} seats in turn and B playing every other seat; "
        f"{len(result['seeds'])} seed(s) x {result['episodes_per_seed']} games per ordered pair.",
        "",
        "| A \\ B | " + " | ".join(f"`{b}`" for b in agents) + " |",
        "|---|" + "---:|" * len(agents),
    ]
    for a, row in zip(agents, result["matrix"], strict=True):
        cells = ["" if score is None else f"{score:.3f}" for score in row]
        lines.append(f"| `{a}` | " + " | ".join(cells) + " |")
    anchor = "`random` = 1000" if "random" in result["elo"] else "mean 1000"
    lines += [
        "",
        f"Elo (Bradley-Terry fit of all pairwise games, one virtual draw per pair; {anchor}):",
        "",
        "| rank | agent | Elo | score vs all |",
        "|---:|---|---:|---:|",
    ]
    ranked = sorted(agents, key=lambda name: -result["elo"][name])
    for rank, name in enumerate(ranked, 1):
        scored = sum(c["points"] for (a, _), c in result["counts"].items() if a == name)
        scored += sum(c["games"] - c["points"] for (_, b), c in result["counts"].items() if b == name)
        played = sum(c["games"] for pair, c in result["counts"].items() if name in pair)
        lines.append(f"| {rank} | `{name}` | {result['elo'][name]:.0f} | {scored / played:.3f} |")
    if result["players"] > 2:
        lines += [
            "",
            f"Note: with {result['players']} players, A's score is against B on every "
            "other seat, not a two-player game, so these ratings are approximate.",
        ]
    return "\n".join(lines)


def write_round_robin(result: Mapping[str, Any], out_dir: str | Path, plot: bool = True) -> dict[str, Path]:
    """Write ``roundrobin_<label>.md`` (matrix and Elo), ``.csv`` (the matrix, rows A, columns B,
    then an ``elo`` column) and, with ``plot``, ``.png`` (``plot_round_robin``) under ``out_dir``;
    returns their paths by kind (``md``, ``csv``, ``png``)."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    # labels hold dots (pettingzoo.classic...), so the suffix is appended, not swapped in
    stem = f"roundrobin_{safe_label(result['env'])}"
    md_path, csv_path, png_path = (out / f"{stem}{ext}" for ext in (".md", ".csv", ".png"))
    md_path.write_text(format_round_robin(result) + "\n")
    with csv_path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["agent", *result["agents"], "elo"])
        for a, row in zip(result["agents"], result["matrix"], strict=True):
            writer.writerow([a, *("" if s is None else f"{s:.6f}" for s in row), f"{result['elo'][a]:.2f}"])
    paths = {"md": md_path, "csv": csv_path}
    if plot:
        paths["png"] = plot_round_robin(result, png_path)
    return paths


def plot_round_robin(result: Mapping[str, Any], path: str | Path) -> Path:
    """A heatmap of a ``round_robin`` score matrix (rows A, columns B) with the scores written in
    the cells and the Elo rating beside each row label; written as PNG to ``path``."""
    import numpy as np

    plt = _pyplot()
    agents = result["agents"]
    values = np.array([[np.nan if s is None else s for s in row] for row in result["matrix"]], dtype=float)
    size = 1.2 + 0.9 * len(agents)
    figure, axes = plt.subplots(figsize=(size + 4.0, size + 1.8), layout="constrained")
    colour_map = plt.get_cmap("RdYlGn").with_extremes(bad="lightgrey")
    image = axes.imshow(np.ma.masked_invalid(values), cmap=colour_map, vmin=0.0, vmax=1.0)
    for i in range(len(agents)):
        for j in range(len(agents)):
            text = "—" if i == j else f"{values[i, j]:.2f}"
            axes.text(
                j,
                i,
                text,
                ha="center",
                va="center",
                fontsize=9,
                color="black" if i == j or 0.2 < values[i, j] < 0.8 else "white",
            )
    axes.set_xticks(range(len(agents)))
    axes.set_xticklabels(agents, rotation=30, ha="right", fontsize=8)
    axes.set_yticks(range(len(agents)))
    axes.set_yticklabels([f"{a} ({result['elo'][a]:.0f})" for a in agents], fontsize=8)
    axes.set_xlabel("opponent B (every other seat)")
    axes.set_ylabel("agent A (Elo)")
    axes.set_title(f"Round robin on {result['env']}\nscore of A vs B: (wins + draws/2) / games", fontsize=10)
    figure.colorbar(image, ax=axes, label="score of A", shrink=0.8)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return path


# --------------------------------------------------------------------------- the whole report


def _jsonable_round_robin(result: Mapping[str, Any]) -> dict[str, Any]:
    counts = [{"agent": a, "opponent": b, **c} for (a, b), c in result["counts"].items()]
    env_kwargs = {
        key: value if isinstance(value, (bool, int, float, str, type(None))) else repr(value)
        for key, value in result["env_kwargs"].items()
    }
    return {**result, "env_kwargs": env_kwargs, "counts": counts}


def benchmark_report(
    envs: Sequence[str | EnvVariant],
    agents: Sequence[str],
    seeds: Sequence[int],
    episodes: int,
    opponent: str,
    out_dir: str | Path,
    command: str,
    log: Log = print,
    agent_kwargs: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The whole benchmark: the main table (``run_benchmark``) and a round robin per multiplayer
    env with two or more agents, their files written under ``out_dir`` (``command`` is quoted in
    ``results.md``) and their text sent to ``log``; ``agent_kwargs`` are settings for the agents
    that take them. Returns the JSON-ready report: ``command``, ``results``, ``round_robins`` and
    ``files``. Raises ``BenchmarkError`` for bad input before anything runs.
    """
    _check_counts(seeds, episodes)
    plan = plan_benchmark(envs, agents, opponent, agent_kwargs)
    rows = run_benchmark(envs, agents, seeds, episodes, opponent, log=log, agent_kwargs=agent_kwargs)
    notes = [f"agent `{spec}` skipped on `{p.variant.label}`: {why}" for p in plan for spec, why in p.skipped.items()]
    out = Path(out_dir)
    paths = write_table(rows, out, command, notes)
    if HAVE_MATPLOTLIB:
        paths["png"] = plot_results(rows, out / "results.png")
    else:
        log("note: matplotlib is not installed (pip install -e '.[train]'): no PNG charts")
    texts = [format_markdown(rows)]
    round_robins = []
    for planned in plan:
        if not planned.multiplayer:
            continue
        if len(planned.agents) < 2:
            log(f"note: no round robin on {planned.variant.label}: it needs two or more agents")
            continue
        result = round_robin(
            planned.variant.spec,
            planned.variant.kwargs,
            planned.agents,
            seeds,
            episodes,
            label=planned.variant.label,
            log=log,
            agent_kwargs=agent_kwargs,
        )
        round_robins.append(result)
        for kind, path in write_round_robin(result, out, plot=HAVE_MATPLOTLIB).items():
            paths[f"roundrobin_{safe_label(planned.variant.label)}_{kind}"] = path
        texts.append(format_round_robin(result))
    log("")
    log("\n\n".join(texts))
    log("")
    for path in paths.values():
        log(f"wrote {path}")
    return {
        "command": command,
        "results": rows,
        "round_robins": [_jsonable_round_robin(r) for r in round_robins],
        "files": {key: str(path) for key, path in paths.items()},
    }
