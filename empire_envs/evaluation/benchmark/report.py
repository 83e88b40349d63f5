"""What a benchmark writes: the markdown table and ``results.csv`` of the main table, the round
robin's matrix and Elo table (``roundrobin_<label>.md`` and ``.csv``), their charts (PNG, drawn
through ``evaluation.plotting`` when matplotlib is installed), and ``benchmark_report``, the whole
run behind ``python -m empire_envs benchmark`` with its JSON-ready summary.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..plotting import HAVE_MATPLOTLIB, pyplot, save_figure
from ..reporting import Log
from .run import plan_benchmark, round_robin, run_benchmark
from .spec import SEED_STRIDE, EnvVariant, check_counts, safe_label

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


def plot_results(rows: Sequence[Mapping[str, Any]], path: str | Path) -> Path:
    """A grouped bar chart of ``run_benchmark`` rows: env variants on the x axis, one bar colour
    per agent, win rate in % with its 95% interval as error bars; written as PNG to ``path``.
    A skipped env x agent leaves a gap.
    """
    plt = pyplot()
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
    return save_figure(figure, path, dpi=120)


def _games_per_pair(result: Mapping[str, Any]) -> str:
    """How many games each ordered pair of a round robin played, in words."""
    seeds = len(result["seeds"])
    usual = result["episodes_per_seed"]
    fewer: dict[int, list[str]] = {}
    for (a, b), n in result.get("pair_episodes", {}).items():
        if n != usual:
            fewer.setdefault(n, []).append(f"`{a}` vs `{b}`")
    text = f"{seeds} seed(s) x {usual} games per ordered pair"
    for n, pairs in sorted(fewer.items()):
        text += f"; {seeds} seed(s) x {n} for {', '.join(pairs)}"
    return text


def round_robin_rows(result: Mapping[str, Any]) -> list[list[str]]:
    """The CSV rows of a ``round_robin`` result: a header ``agent, <agents...>, elo``, then one
    row per agent A with its score against each column agent B (blank on the diagonal) and its
    Elo rating."""
    rows = [["agent", *result["agents"], "elo"]]
    for a, row in zip(result["agents"], result["matrix"], strict=True):
        rows.append([a, *("" if s is None else f"{s:.6f}" for s in row), f"{result['elo'][a]:.2f}"])
    return rows


def format_round_robin(result: Mapping[str, Any]) -> str:
    """The markdown of a ``round_robin`` result: the score matrix and the Elo table."""
    agents = result["agents"]
    lines = [
        f"## Round robin on `{result['env']}`",
        "",
        f"Score of the row agent A against the column agent B: (wins + (draws + truncated) / 2) / games, with A "
        f"taking the {result['players']} seats in turn and B playing every other seat; "
        f"{_games_per_pair(result)}.",
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
        csv.writer(handle).writerows(round_robin_rows(result))
    paths = {"md": md_path, "csv": csv_path}
    if plot:
        paths["png"] = plot_round_robin(result, png_path)
    return paths


def plot_round_robin(result: Mapping[str, Any], path: str | Path) -> Path:
    """A heatmap of a ``round_robin`` score matrix (rows A, columns B) with the scores written in
    the cells and the Elo rating beside each row label; written as PNG to ``path``."""
    import numpy as np

    plt = pyplot()
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
    return save_figure(figure, path, dpi=120)


def _jsonable_round_robin(result: Mapping[str, Any]) -> dict[str, Any]:
    counts = [{"agent": a, "opponent": b, **c} for (a, b), c in result["counts"].items()]
    env_kwargs = {
        key: value if isinstance(value, (bool, int, float, str, type(None))) else repr(value)
        for key, value in result["env_kwargs"].items()
    }
    pair_episodes = [
        {"agent": a, "opponent": b, "episodes_per_seed": n} for (a, b), n in result.get("pair_episodes", {}).items()
    ]
    return {**result, "env_kwargs": env_kwargs, "counts": counts, "pair_episodes": pair_episodes}


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
    check_counts(seeds, episodes)
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
