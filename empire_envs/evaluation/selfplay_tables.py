"""The three tables of a trained multiplayer agent (``experiments/selfplay_tables.py``).

Given an env, the trained agent (``jaxppo:PATH`` or ``pretrained:ID``), its checkpoints and an
output folder, ``main`` writes there:

- **Table A** (``table_a.md``, ``table_a.csv``): the agent against ``random``, ``heuristic``
  and ``ismcts`` (at ``--ismcts-iterations``), each opponent on every other seat, through
  ``evaluate.evaluate_agent`` with its default seat rotation: win, draw and loss rates with
  Wilson 95% intervals, the chance level ``1 / seats``, the wall time;
- **Table B** (``ratings.md``, ``ratings.csv``): a round robin over ``random``, ``heuristic``,
  ``ismcts``, the agent and its checkpoints. Two seats: every ordered pair plays
  (``benchmark.round_robin``) and Bradley-Terry ratings on the Elo scale (``random`` = 1000)
  rank them. More seats: every combination of that many agents plays in every rotation
  (``benchmark.rank_round_robin``) and Weng-Lin (Plackett-Luce) ratings rank them by their
  ordinal ``mu - 3 sigma``. Pairs (or combinations) with ISMCTS play ``--rr-games-ismcts``
  games, the others ``--rr-games``;
- **Table C** (``best_response.md``, ``best_response.csv``): a best response trained against
  the frozen agent (``--best-response``; ``--best-response-training`` says how, as text) plays
  the agent on every other seat, seats rotated. Against copies of an agent that none could
  exploit it would score at most the fair share ``1 / seats`` (a game nobody won, drawn or
  truncated, counts ``1 / seats``: ``benchmark.statistics.score_points``), so
  its score beyond that share, with the win rate's interval, is a lower bound on how exploitable
  the agent is.

``experiments/selfplay_tables.py`` keeps numpy's BLAS to one thread per process (a policy's
small matrix products run many times slower split over threads on a busy machine).

``--env-kwarg KEY=VALUE`` sets the env's settings for every table (a variant; a policy trained
on other rules is refused, one trained with another ``length_limit`` plays with a warning).

Deals are fixed: with ``--seed k`` every table plays the deals from seed ``k * 1_000_000`` on
(``benchmark.seed_base``), so two tables or two runs face the same games. ``--jobs N`` plays each
evaluation as ``N`` parts of the same episodes (``benchmark.split_episodes``) in ``N`` processes,
so the counts are the same for any ``N``; only the interval of the mean finishing rank (Table A
with more than two seats) cannot be combined from parts, and is left out when ``N > 1``.

Every file starts with the command that wrote it (``Command: `...` `` in Markdown, ``# command:
...`` in CSV) and is written whole or not at all (a temporary file, then a rename). The script
writes only the files of ``OWN_FILES``; it refuses (exit status 2, before any game) an output
folder that holds anything else, or a file of those names that it did not write, unless
``--force`` (which then overwrites those names, and never touches another file). Bad flags and
agents that cannot play the env are errors with exit status 2, also before any game.
"""

from __future__ import annotations

import argparse
import csv
import io
import itertools
import multiprocessing
import os
import shlex
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from ..core.paths import folder_write_problem
from .benchmark import (
    BenchmarkError,
    combine_results,
    env_label,
    format_round_robin,
    plan_benchmark,
    rank_round_robin,
    round_robin,
    round_robin_rows,
    seed_base,
    sequential_runner,
    split_episodes,
)
from .benchmark.run import inspect_env
from .benchmark.spec import EnvVariant
from .benchmark.statistics import score_points
from .evaluate import evaluate_agent, parse_env_kwarg, wilson_interval
from .reporting import Log

#: how this script is named in the command line its files start with
PROGRAM = "experiments/selfplay_tables.py"
#: the files of each table
TABLE_FILES = {
    "a": ("table_a.md", "table_a.csv"),
    "b": ("ratings.md", "ratings.csv"),
    "c": ("best_response.md", "best_response.csv"),
}
#: every file this script writes; an output folder may hold these and nothing else
OWN_FILES = frozenset(name for names in TABLE_FILES.values() for name in names)
#: the opponents of Table A, in order
OPPONENTS = ("random", "heuristic", "ismcts")
#: how a file of this script starts (Markdown, CSV): the command follows
MD_PREFIX = "Command: `"
CSV_PREFIX = "# command: "


class TablesError(ValueError):
    """Input the tables cannot be made from, or an output folder they may not write into."""


# --------------------------------------------------------------------------- the flags


def _count(least: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < least:
            raise argparse.ArgumentTypeError(f"must be at least {least}, got {value}")
        return value

    parse.__name__ = "count"
    return parse


def parse_tables(text: str) -> str:
    """The tables asked for: letters of ``abc``, optionally separated by commas (``a,c``, ``ab``),
    as a sorted string; an ``argparse`` type."""
    letters = [char for char in text.replace(",", "").replace(" ", "").lower()]
    unknown = sorted(set(letters) - set(TABLE_FILES))
    if not letters or unknown:
        raise argparse.ArgumentTypeError(f"expected letters of a, b, c (such as a,b), got {text!r}")
    if len(set(letters)) != len(letters):
        raise argparse.ArgumentTypeError(f"a table is named twice in {text!r}")
    return "".join(sorted(letters))


def build_parser(prog: str = Path(PROGRAM).name) -> argparse.ArgumentParser:
    """The command line of ``experiments/selfplay_tables.py``."""
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Tables A (against random, heuristic, ISMCTS), B (round-robin ratings) and C "
        "(a best response) of a trained multiplayer agent, written into one folder.",
    )
    positive = _count(1)
    parser.add_argument("--env", required=True, help="a multiplayer env id, e.g. empire_envs/MapDuel-v0")
    parser.add_argument("--agent", required=True, help="the trained agent: jaxppo:PATH or pretrained:ID")
    parser.add_argument(
        "--checkpoint",
        action="append",
        default=[],
        metavar="SPEC",
        help="a checkpoint of the agent for Table B (jaxppo:RUN/checkpoints/policy_N.npz); repeatable",
    )
    parser.add_argument(
        "--env-kwarg",
        action="append",
        default=[],
        type=parse_env_kwarg,
        metavar="KEY=VALUE",
        help="a setting of the env (a Python literal), e.g. length_limit=100; repeatable",
    )
    parser.add_argument("--out", required=True, help="the output folder, e.g. docs/benchmarks/map_duel")
    parser.add_argument("--episodes-random", type=positive, default=2000, help="Table A games against random")
    parser.add_argument("--episodes-heuristic", type=positive, default=2000, help="Table A games against heuristic")
    parser.add_argument("--episodes-ismcts", type=positive, default=200, help="Table A games against ISMCTS")
    parser.add_argument(
        "--ismcts-iterations", type=positive, default=50, help="ISMCTS iterations per decision (Tables A and B)"
    )
    parser.add_argument(
        "--rr-games",
        type=positive,
        default=100,
        help="Table B: games per ordered pair (two seats), or deals per combination of agents (more seats)",
    )
    parser.add_argument(
        "--rr-games-ismcts",
        type=positive,
        default=20,
        help="Table B: the same, for the pairs or combinations with ISMCTS",
    )
    parser.add_argument("--best-response", metavar="SPEC", help="Table C: the best response's policy, jaxppo:PATH")
    parser.add_argument(
        "--best-response-training",
        metavar="TEXT",
        default="",
        help="Table C: how the best response was trained (its command or summary path), printed in the table",
    )
    parser.add_argument("--episodes-best-response", type=positive, default=2000, help="Table C games")
    parser.add_argument("--seed", type=_count(0), default=0, help="deals from seed * 1,000,000 on (default 0)")
    parser.add_argument(
        "--tables",
        type=parse_tables,
        default=None,
        help="which tables to make, letters of a, b, c (default: a,b, and c with --best-response)",
    )
    parser.add_argument("--jobs", type=positive, default=1, help="processes that play the games (default 1)")
    parser.add_argument(
        "--force", action="store_true", help="write even where the folder holds files this script did not write"
    )
    return parser


def command_line(argv: Sequence[str]) -> str:
    """The command that runs this script with ``argv``, as its files quote it."""
    return f"python {PROGRAM} {shlex.join(argv)}".rstrip()


# --------------------------------------------------------------------------- the output folder


def written_here(path: Path) -> bool:
    """Whether the file ``path`` was written by this script: its first line is the command."""
    try:
        with path.open(encoding="utf-8", errors="replace") as handle:
            first = handle.readline()
    except OSError:
        return False
    return first.startswith((f"{MD_PREFIX}python {PROGRAM}", f"{CSV_PREFIX}python {PROGRAM}"))


def check_output_folder(out: Path, force: bool) -> None:
    """Raise ``TablesError`` unless the tables may be written into ``out``: it is a writable
    folder (or can be made) holding only files of ``OWN_FILES`` that this script wrote; with
    ``force`` anything else there is allowed (and left alone)."""
    problem = folder_write_problem(out)
    if problem:
        raise TablesError(problem)
    if not out.is_dir() or force:
        return
    foreign = sorted(entry.name for entry in out.iterdir() if entry.name not in OWN_FILES or not written_here(entry))
    if foreign:
        raise TablesError(
            f"{out} holds {len(foreign)} file(s) this script did not write ({', '.join(foreign[:5])}"
            f"{', ...' if len(foreign) > 5 else ''}); it writes only {', '.join(sorted(OWN_FILES))}. "
            "Choose another --out, or give --force to write beside them (files of those names are then replaced)"
        )


def write_atomic(path: Path, text: str) -> Path:
    """Write ``text`` to ``path`` whole or not at all: into a temporary file of the same folder,
    then renamed over ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as stream:
            stream.write(text)
        os.chmod(temporary, 0o666 & ~_umask())  # mkstemp makes it private; a table is for everyone
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return path


def _umask() -> int:
    current = os.umask(0o022)
    os.umask(current)
    return current


def _csv_text(command: str, rows: Sequence[Sequence[Any]]) -> str:
    buffer = io.StringIO()
    buffer.write(f"{CSV_PREFIX}{command}\n")
    csv.writer(buffer, lineterminator="\n").writerows(rows)
    return buffer.getvalue()


# --------------------------------------------------------------------------- playing


def _call(job: tuple[Callable[..., Any], Mapping[str, Any]]) -> Any:
    function, task = job
    return function(**task)


class ProcessRunner:
    """A ``benchmark.Runner`` over ``jobs`` processes (``jobs == 1``: in this process), results
    in the order of the tasks. Processes are spawned, not forked, and made at the first call;
    ``close`` ends them."""

    def __init__(self, jobs: int = 1) -> None:
        self.jobs = jobs
        self._pool: ProcessPoolExecutor | None = None

    def __call__(self, function: Callable[..., Any], tasks: Sequence[Mapping[str, Any]]) -> Iterator[Any]:
        if self.jobs == 1:
            return sequential_runner(function, tasks)
        if self._pool is None:
            self._pool = ProcessPoolExecutor(self.jobs, mp_context=multiprocessing.get_context("spawn"))
        return self._pool.map(_call, [(function, dict(task)) for task in tasks])

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None


def evaluate_in_parts(
    runner: Callable[..., Any], tasks: Sequence[Mapping[str, Any]], players: int, parts: int
) -> list[dict[str, Any]]:
    """``evaluate_agent(**task)`` for each task (with ``evaluate_agent``'s default seat
    rotation), each played as up to ``parts`` calls of the same episodes
    (``benchmark.split_episodes``) through ``runner``, and combined
    (``benchmark.combine_results``)."""
    split = [split_episodes(task["seed"], task["episodes"], parts, players) for task in tasks]
    calls = [
        {**task, "seed": first, "episodes": count}
        for task, pieces in zip(tasks, split, strict=True)
        for first, count in pieces
    ]
    results = iter(runner(evaluate_agent, calls))
    return [combine_results([next(results) for _ in pieces]) for pieces in split]


# --------------------------------------------------------------------------- the tables


def _pct(rate: float) -> str:
    return f"{100 * rate:.1f}"


def _rate_cell(count: int, games: int) -> str:
    low, high = wilson_interval(count, games)
    return f"{_pct(count / games)} [{_pct(low)}, {_pct(high)}]"


#: what each seat rotation of ``evaluate_agent`` means, in words
ROTATIONS = {
    "deal": "every deal played once from each seat (`seat_rotation=deal`)",
    "episode": "episode i on deal seed + i from seat i mod N (`seat_rotation=episode`)",
}


def _rotation(result: Mapping[str, Any]) -> str:
    rotation = result.get("seat_rotation")
    if not rotation:
        return "evaluate_agent's default rotation (its result does not name it)"
    return ROTATIONS.get(str(rotation), f"`seat_rotation={rotation}`")


def _kwargs_text(kwargs: Mapping[str, Any]) -> str:
    return ",".join(f"{key}={value!r}" for key, value in kwargs.items())


def _env_text(env: str, kwargs: Mapping[str, Any]) -> str:
    """How the tables name the env: ``empire_envs/MapDuel-v0``, with its settings if any."""
    return f"`{env}`" + (f" with `{_kwargs_text(kwargs)}`" if kwargs else "")


def _ismcts_text(iterations: int) -> str:
    return f"iterations={iterations}"


def table_a(
    env: str,
    env_kwargs: Mapping[str, Any],
    agent: str,
    episodes: Mapping[str, int],
    iterations: int,
    seed: int,
    players: int,
    runner: Any,
    parts: int = 1,
) -> list[dict[str, Any]]:
    """Table A's rows: ``agent`` against each opponent of ``episodes`` (name -> games) on the
    deals from ``seed_base(seed)``, one ``evaluate_agent`` result per opponent (played in up to
    ``parts`` parts) with ``opponent_settings`` added."""
    settings = {name: {"iterations": iterations} if name == "ismcts" else {} for name in episodes}
    tasks = [
        {
            "env_id": env,
            "env_kwargs": dict(env_kwargs),
            "agent_spec": agent,
            "episodes": count,
            "seed": seed_base(seed),
            "opponent": name,
            "opponent_kwargs": settings[name] or None,
        }
        for name, count in episodes.items()
    ]
    rows = evaluate_in_parts(runner, tasks, players, parts)
    for row, name in zip(rows, episodes, strict=True):
        row["opponent_settings"] = _ismcts_text(iterations) if name == "ismcts" else ""
    return rows


#: the CSV columns of Tables A and C
RESULT_COLUMNS = (
    "env_id",
    "env_kwargs",
    "agent",
    "opponent",
    "opponent_settings",
    "players",
    "first_seed",
    "episodes",
    "wins",
    "draws",
    "losses",
    "truncations",
    "illegal",
    "win_rate",
    "win_ci_low",
    "win_ci_high",
    "draw_rate",
    "draw_ci_low",
    "draw_ci_high",
    "loss_rate",
    "loss_ci_low",
    "loss_ci_high",
    "score",
    "chance",
    "mean_rank",
    "mean_rank_ci_low",
    "mean_rank_ci_high",
    "mean_length",
    "mean_return",
    "wall_time_s",
    "seat_rotation",
)


def _result_record(row: Mapping[str, Any], players: int) -> list[Any]:
    games = row["episodes"]
    values: dict[str, Any] = {
        "env_id": row["env_id"],
        "env_kwargs": _kwargs_text(row.get("env_kwargs") or {}),
        "agent": row["agent"],
        "opponent": row["opponent"],
        "opponent_settings": row.get("opponent_settings", ""),
        "players": players,
        "first_seed": row["seed"],
        "episodes": games,
        "score": f"{score_points(row['wins'], row['draws'], row['truncations'], players) / games:.6f}",
        "chance": f"{1 / players:.6f}",
        "mean_length": f"{row['mean_length']:.3f}",
        "mean_return": f"{row['mean_return']:.6f}",
        "wall_time_s": f"{row['wall_time_s']:.3f}",
        "seat_rotation": row.get("seat_rotation") or "",
        "mean_rank": "" if row.get("mean_rank") is None else f"{row['mean_rank']:.4f}",
        "mean_rank_ci_low": "",
        "mean_rank_ci_high": "",
    }
    if row.get("mean_rank_ci95"):
        values["mean_rank_ci_low"], values["mean_rank_ci_high"] = (f"{x:.4f}" for x in row["mean_rank_ci95"])
    for key in ("wins", "draws", "losses", "truncations", "illegal"):
        values[key] = row[key]
    for prefix, key in (("win", "wins"), ("draw", "draws"), ("loss", "losses")):
        low, high = wilson_interval(row[key], games)
        values.update(
            {
                f"{prefix}_rate": f"{row[key] / games:.6f}",
                f"{prefix}_ci_low": f"{low:.6f}",
                f"{prefix}_ci_high": f"{high:.6f}",
            }
        )
    return [values[column] for column in RESULT_COLUMNS]


def _mean_rank_cell(row: Mapping[str, Any]) -> str:
    if row.get("mean_rank") is None:
        return ""
    interval = row.get("mean_rank_ci95")
    text = f"{row['mean_rank']:.2f}"
    return f"{text} [{interval[0]:.2f}, {interval[1]:.2f}]" if interval else text


def _result_lines(rows: Sequence[Mapping[str, Any]], first_column: str) -> list[str]:
    ranked = any(row.get("mean_rank") is not None for row in rows)
    lines = [
        f"| {first_column} | settings | games | win % [95% CI] | draw % [95% CI] | loss % [95% CI] | "
        + ("mean place | " if ranked else "")
        + "trunc | illegal | mean length | wall s |",
        "|---|---|---:|---:|---:|---:|" + ("---:|" if ranked else "") + "---:|---:|---:|---:|",
    ]
    for row in rows:
        games = row["episodes"]
        settings = row.get("opponent_settings", "")
        cells = [
            f"`{row['opponent']}`",
            f"`{settings}`" if settings else "",
            str(games),
            _rate_cell(row["wins"], games),
            _rate_cell(row["draws"], games),
            _rate_cell(row["losses"], games),
            *([_mean_rank_cell(row)] if ranked else []),
            str(row["truncations"]),
            str(row["illegal"]),
            f"{row['mean_length']:.1f}",
            f"{row['wall_time_s']:.1f}",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def format_table_a(
    command: str,
    env: str,
    agent: str,
    rows: Sequence[Mapping[str, Any]],
    players: int,
    seed: int,
    wall: float,
    jobs: int,
) -> str:
    """Table A's Markdown."""
    parts = [
        f"{MD_PREFIX}{command}`",
        "",
        f"# Table A: `{agent}` on {env}",
        "",
        f"The agent against each opponent, the opponent on every other seat of the {players}; every "
        f"opponent faces the same deals, from seed {seed_base(seed)} on (`--seed {seed}`). Seats: "
        f"{_rotation(rows[0]) if rows else ''}. Rates with Wilson 95% intervals. Chance level: "
        f"1/{players} = {_pct(1 / players)}% (a win rate of one seat in {players}, draws aside). "
        "`ismcts` takes the settings shown, the others at their defaults."
        + (
            " Mean place: the agent's finishing place, 1 the best (its interval is left out when the "
            "games were played in parts, --jobs > 1)."
            if players > 2
            else ""
        ),
        "",
        *_result_lines(rows, "opponent"),
        "",
        f"Wall time {wall:.1f} s with {jobs} process(es); the wall s column sums the time of "
        "each opponent's games, however many processes played them.",
    ]
    return "\n".join(parts) + "\n"


def _roster(agent: str, checkpoints: Sequence[str]) -> list[str]:
    return [*OPPONENTS, agent, *checkpoints]


def table_b(
    env: str,
    env_kwargs: Mapping[str, Any],
    roster: Sequence[str],
    options: argparse.Namespace,
    players: int,
    runner: Any,
    log: Log,
) -> dict[str, Any]:
    """Table B's result: ``benchmark.round_robin`` for two seats, ``benchmark.rank_round_robin``
    for more (the pairs or combinations with ``ismcts`` play ``--rr-games-ismcts``)."""
    settings = {"iterations": options.ismcts_iterations}
    label = env_label(env) + (f"@{_kwargs_text(env_kwargs)}" if env_kwargs else "")
    if players == 2:
        slow = {(a, b): options.rr_games_ismcts for a in roster for b in roster if a != b and "ismcts" in (a, b)}
        return round_robin(
            env,
            env_kwargs,
            roster,
            [options.seed],
            options.rr_games,
            label=label,
            log=log,
            agent_kwargs=settings,
            pair_episodes=slow,
            runner=runner,
            parts=options.jobs,
        )
    slow_combinations = {
        combination: options.rr_games_ismcts
        for combination in itertools.combinations(roster, players)
        if "ismcts" in combination
    }
    return rank_round_robin(
        env,
        env_kwargs,
        roster,
        options.seed,
        options.rr_games,
        label=label,
        log=log,
        agent_kwargs=settings,
        combination_games=slow_combinations,
        runner=runner,
        parts=options.jobs,
    )


def format_ratings(command: str, result: Mapping[str, Any], iterations: int, wall: float, jobs: int) -> str:
    """Table B's Markdown: the round robin's matrix and Elo (two seats) or the Weng-Lin table."""
    parts = [
        f"{MD_PREFIX}{command}`",
        "",
        f"# Table B: ratings on `{result['env']}`",
        "",
        f"Roster: {', '.join(f'`{name}`' for name in result['agents'])}; `ismcts` searches with "
        f"`{_ismcts_text(iterations)}` (its other settings at their defaults).",
        "",
    ]
    if result["players"] == 2:
        parts += [
            format_round_robin(result),
            "",
            "Games of each ordered pair (A takes the seats in turn, B the other seat):",
            "",
            "| A | B | games | wins | draws | losses | trunc | illegal | score of A |",
            "|---|---|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for (a, b), count in result["counts"].items():
            parts.append(
                f"| `{a}` | `{b}` | {count['games']} | {count['wins']} | {count['draws']} | {count['losses']} "
                f"| {count['truncations']} | {count['illegal']} | {count['points'] / count['games']:.3f} |"
            )
    else:
        parts += _weng_lin_lines(result)
    parts += ["", f"Wall time {wall:.1f} s with {jobs} process(es)."]
    return "\n".join(parts) + "\n"


#: the CSV columns of Table B for more than two seats
WENG_LIN_COLUMNS = ("rank", "agent", "ordinal", "mu", "sigma", "games", "mean_rank", "first_rate")


def _weng_lin_records(result: Mapping[str, Any]) -> list[list[Any]]:
    ratings = result["ratings"]
    ranked = sorted(result["agents"], key=lambda name: -ratings[name]["ordinal"])
    return [
        [
            place,
            name,
            f"{ratings[name]['ordinal']:.3f}",
            f"{ratings[name]['mu']:.3f}",
            f"{ratings[name]['sigma']:.3f}",
            ratings[name]["games"],
            f"{ratings[name]['mean_rank']:.3f}",
            f"{result['firsts'][name] / ratings[name]['games']:.4f}",
        ]
        for place, name in enumerate(ranked, 1)
    ]


def _weng_lin_lines(result: Mapping[str, Any]) -> list[str]:
    players = result["players"]
    counts = sorted(set(result["games_per_combination"].values()), reverse=True)
    lines = [
        f"Every combination of {players} agents of the roster plays each of its deals in its {players} "
        f"rotations (each agent on every seat), {' or '.join(map(str, counts))} deal(s) per combination "
        f"(fewer for those with `ismcts`), deals from seed {seed_base(result['seed'])} on; "
        f"{len(result['games'])} games in all. A seat's place is the one the game records (Generals "
        "ranks the seats as they leave), else 1 plus the seats with a strictly higher final result. "
        "Weng-Lin (Plackett-Luce) ratings, mu 25 and sigma 25/3 at the start, beta sigma/2, the games "
        "rated deal by deal; ranked by the ordinal mu - 3 sigma.",
        "",
        "| rank | agent | ordinal | mu | sigma | games | mean place | first % |",
        "|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    for record in _weng_lin_records(result):
        place, name, ordinal, mu, sigma, games, mean_rank, first = record
        lines.append(
            f"| {place} | `{name}` | {ordinal} | {mu} | {sigma} | {games} | {mean_rank} | {_pct(float(first))} |"
        )
    return lines


def ratings_rows(result: Mapping[str, Any]) -> list[list[Any]]:
    """Table B's CSV rows: ``benchmark.round_robin_rows`` for two seats, else a header
    ``WENG_LIN_COLUMNS`` and one row per agent, best ordinal first."""
    if result["players"] == 2:
        return round_robin_rows(result)
    return [list(WENG_LIN_COLUMNS), *_weng_lin_records(result)]


def format_best_response(
    command: str,
    env: str,
    agent: str,
    row: Mapping[str, Any],
    training: str,
    wall: float,
    jobs: int,
    players: int = 2,
) -> str:
    """Table C's Markdown, for a game of ``players`` seats."""
    games = row["episodes"]
    low, _ = wilson_interval(row["wins"], games)
    share = 1 / players
    score = score_points(row["wins"], row["draws"], row["truncations"], players) / games
    fair = "1/2" if players == 2 else f"1/{players} (the frozen agent takes the other {players - 1} seats)"
    parts = [
        f"{MD_PREFIX}{command}`",
        "",
        f"# Table C: a best response to `{agent}` on {env}",
        "",
        f"The best response `{row['agent']}` was trained against the frozen agent"
        + (f": {training}" if training else " (how was not given: --best-response-training)")
        + ".",
        "",
        f"It plays the frozen agent `{agent}` on every other seat, seats rotated ({_rotation(row)}), deals from seed "
        f"{row['seed']} on. Rates with Wilson 95% intervals.",
        "",
        *_result_lines([{**row, "opponent": agent}], "frozen agent"),
        "",
        f"The best response wins {_pct(row['wins'] / games)}% of the games (95% interval from "
        f"{_pct(low)}%), a score of {score:.3f} counting a game nobody won (drawn or truncated) as a "
        f"1/{players} share. With seats rotated the game is even between equal players, so an agent "
        f"that no opponent can exploit concedes at most {fair}; this best response takes "
        f"{score - share:+.3f} beyond that: a lower bound on how exploitable the agent is (a stronger "
        "best response could take more).",
        "",
        f"Wall time {wall:.1f} s with {jobs} process(es).",
    ]
    return "\n".join(parts) + "\n"


# --------------------------------------------------------------------------- main


def _check(options: argparse.Namespace, tables: str, env_kwargs: Mapping[str, Any]) -> tuple[str, int]:
    """The env id and its seats; ``TablesError`` for anything the tables cannot be made of."""
    specs = [options.agent, *options.checkpoint, *([options.best_response] if options.best_response else [])]
    clash = sorted({spec for spec in specs if specs.count(spec) > 1} | (set(specs) & set(OPPONENTS)))
    if clash:
        raise TablesError(f"an agent is named twice, or as a built-in opponent: {', '.join(clash)}")
    if "c" in tables and not options.best_response:
        raise TablesError("Table C needs --best-response SPEC (the best response's policy)")
    if options.best_response and "c" not in tables:
        raise TablesError("--best-response is given but --tables leaves out c")
    try:
        variant = EnvVariant(options.env, env_kwargs, options.env)
        env_id, _, players, probe = inspect_env(variant)
        probe.close()
        if players < 2:
            raise TablesError(f"{options.env} is a one-seat env: these tables are for games of several seats")
        counts = {"--episodes-random": options.episodes_random, "--episodes-heuristic": options.episodes_heuristic}
        counts["--episodes-ismcts"] = options.episodes_ismcts
        if players == 2:
            counts.update({"--rr-games": options.rr_games, "--rr-games-ismcts": options.rr_games_ismcts})
        if "c" in tables:
            counts["--episodes-best-response"] = options.episodes_best_response
        uneven = [f"{flag} {value}" for flag, value in counts.items() if value % players]
        if uneven:
            raise TablesError(
                f"{options.env} has {players} seats: give games in multiples of {players}, so that the agent "
                f"takes every seat equally often ({', '.join(uneven)})"
            )
        roster = [*_roster(options.agent, options.checkpoint), *specs[1 + len(options.checkpoint) :]]
        plan_benchmark([variant], roster, "random", {"iterations": options.ismcts_iterations})
    except BenchmarkError as error:
        raise TablesError(str(error)) from None
    return env_id, players


def main(argv: Sequence[str] | None = None, log: Log = print) -> int:
    """Run the script with ``argv`` (default ``sys.argv[1:]``) and return its exit status: 0
    when the tables are written, 2 (the message on standard error, before any game) for an
    output folder it may not write into or input the tables cannot be made of. A malformed
    flag is argparse's ``SystemExit(2)``."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    options = parser.parse_args(argv)
    tables = options.tables or ("abc" if options.best_response else "ab")
    command = command_line(argv)
    out = Path(options.out)
    env_kwargs: dict[str, Any] = {}
    try:
        for key, value in options.env_kwarg:
            if key in env_kwargs:
                raise TablesError(f"--env-kwarg sets {key!r} twice")
            env_kwargs[key] = value
        check_output_folder(out, options.force)
        env_id, players = _check(options, tables, env_kwargs)
    except TablesError as error:
        print(f"{parser.prog}: error: {error}", file=sys.stderr)
        return 2
    runner = ProcessRunner(options.jobs)
    try:
        for table in tables:
            start = time.perf_counter()
            md, csv_name = (out / name for name in TABLE_FILES[table])
            if table == "a":
                episodes = {
                    "random": options.episodes_random,
                    "heuristic": options.episodes_heuristic,
                    "ismcts": options.episodes_ismcts,
                }
                rows = table_a(
                    env_id,
                    env_kwargs,
                    options.agent,
                    episodes,
                    options.ismcts_iterations,
                    options.seed,
                    players,
                    runner,
                    options.jobs,
                )
                wall = time.perf_counter() - start
                md_text = format_table_a(
                    command,
                    _env_text(env_id, env_kwargs),
                    options.agent,
                    rows,
                    players,
                    options.seed,
                    wall,
                    options.jobs,
                )
                csv_text = _csv_text(command, [RESULT_COLUMNS, *(_result_record(row, players) for row in rows)])
            elif table == "b":
                roster = _roster(options.agent, options.checkpoint)
                result = table_b(env_id, env_kwargs, roster, options, players, runner, log)
                wall = time.perf_counter() - start
                md_text = format_ratings(command, result, options.ismcts_iterations, wall, options.jobs)
                csv_text = _csv_text(command, ratings_rows(result))
            else:
                task = {
                    "env_id": env_id,
                    "env_kwargs": env_kwargs,
                    "agent_spec": options.best_response,
                    "episodes": options.episodes_best_response,
                    "seed": seed_base(options.seed),
                    "opponent": options.agent,
                }
                (row,) = evaluate_in_parts(runner, [task], players, options.jobs)
                wall = time.perf_counter() - start
                md_text = format_best_response(
                    command,
                    _env_text(env_id, env_kwargs),
                    options.agent,
                    row,
                    options.best_response_training,
                    wall,
                    options.jobs,
                    players,
                )
                csv_text = _csv_text(command, [RESULT_COLUMNS, _result_record(row, players)])
            for path, text in ((md, md_text), (csv_name, csv_text)):
                write_atomic(path, text)
                log(f"wrote {path}")
            log(md_text)
    finally:
        runner.close()
    return 0


__all__ = [
    "OWN_FILES",
    "PROGRAM",
    "TABLE_FILES",
    "ProcessRunner",
    "TablesError",
    "build_parser",
    "check_output_folder",
    "command_line",
    "evaluate_in_parts",
    "main",
    "parse_tables",
    "written_here",
    "write_atomic",
]
