"""Tests of ``empire_envs.evaluation.benchmark`` and ``python -m empire_envs benchmark``: env specs,
pooled tables, files, Elo and the round robin."""

from __future__ import annotations

import csv
import importlib.util
import itertools
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from empire_envs.agents.base import Agent
from empire_envs.cli import main as cli_main
from empire_envs.evaluation import benchmark as benchmark_module
from empire_envs.evaluation import evaluate as evaluate_module

ROOT = Path(__file__).resolve().parents[1]
SOLO = "empire_envs/EmpireSolo-v0"
SOLO_MERGE = "empire_envs/EmpireSoloMergeInBattle-v0"
SOLITAIRE = "empire_envs/EmpireSolitaire-v0"
TICTACTOE = "classic/tictactoe-v3"
FIRST_LEGAL = "tests.test_benchmark:FirstLegalAgent"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# the charts need matplotlib, which comes with the train extra
HAVE_MATPLOTLIB = importlib.util.find_spec("matplotlib") is not None
needs_matplotlib = pytest.mark.skipif(not HAVE_MATPLOTLIB, reason="matplotlib not installed")


class FirstLegalAgent(Agent):
    """Always the lowest legal index: a naive deterministic player, unlike any built-in agent."""

    name = "first-legal"

    def act(self, observation: np.ndarray, action_mask: np.ndarray, state: Any = None) -> int:
        return int(np.flatnonzero(action_mask)[0])


@pytest.fixture(scope="module")
def benchmark():
    return benchmark_module


@pytest.fixture(scope="module")
def evaluate():
    return evaluate_module


def benchmark_command(argv: list[str]) -> int:
    """``python -m empire_envs benchmark ARGV``, in this process."""
    return cli_main(["benchmark", *argv])


def _assert_png(path: Path) -> None:
    assert path.read_bytes()[:8] == PNG_SIGNATURE
    with Image.open(path) as image:
        image.verify()
    with Image.open(path) as image:
        assert image.format == "PNG"
        assert image.size[0] > 0 and image.size[1] > 0


# --------------------------------------------------------------------------- parse_env_spec


def test_parse_env_spec_plain_and_with_settings(benchmark):
    assert benchmark.parse_env_spec(SOLO) == (SOLO, {})
    assert benchmark.parse_env_spec(TICTACTOE) == (TICTACTOE, {})
    assert benchmark.parse_env_spec(f"{SOLO}@length_limit=200,shaping=1.0") == (
        SOLO, {"length_limit": 200, "shaping": 1.0}
    )
    # commas inside a literal do not split the settings; a bare word stays a string
    assert benchmark.parse_env_spec(f"{SOLO}@shaping_values=(0,0,1),render_mode=ansi") == (
        SOLO, {"shaping_values": (0, 0, 1), "render_mode": "ansi"}
    )


def test_env_labels_drop_the_package_prefix(benchmark):
    variant = benchmark.EnvVariant.parse(f"{SOLO}@length_limit=200")
    assert variant.label == "EmpireSolo-v0@length_limit=200"
    assert variant.spec == SOLO and dict(variant.kwargs) == {"length_limit": 200}
    assert benchmark.env_label(TICTACTOE) == TICTACTOE
    assert benchmark.safe_label("EmpireSolo-v0@length_limit=200") == "EmpireSolo-v0_length_limit_200"


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("X@novalue", "key=value"),
        ("@length_limit=2", "names no env"),
        (f"{SOLO}@", "no key=value"),
        (f"{SOLO}@length_limit=2,length_limit=3", "twice"),
        (f"{SOLO}@length_limit=2,", "key=value"),
    ],
)
def test_parse_env_spec_bad_input(benchmark, text, fragment):
    with pytest.raises(ValueError, match=fragment):
        benchmark.parse_env_spec(text)


def test_bad_env_spec_is_an_argparse_error(benchmark, capsys):
    with pytest.raises(SystemExit) as exit_info:
        benchmark_command(["--env", "X@novalue", "--episodes", "1"])
    assert exit_info.value.code == 2
    assert "novalue" in capsys.readouterr().err


# --------------------------------------------------------------------------- run_benchmark


@pytest.fixture(scope="module")
def solo_run(benchmark, tmp_path_factory):
    envs = [SOLO, SOLO_MERGE]
    agents = ["random", "heuristic"]
    seeds = [0, 1]
    episodes = 8
    rows = benchmark.run_benchmark(envs, agents, seeds, episodes, log=None)
    out = tmp_path_factory.mktemp("bench")
    paths = benchmark.write_table(rows, out, "python -m empire_envs benchmark --test")
    if HAVE_MATPLOTLIB:
        paths["png"] = benchmark.plot_results(rows, out / "results.png")
    return {"envs": envs, "agents": agents, "seeds": seeds, "episodes": episodes,
            "rows": rows, "paths": paths}


def test_run_benchmark_pools_the_per_seed_evaluations(evaluate, solo_run):
    rows = solo_run["rows"]
    assert [(r["env"], r["agent"]) for r in rows] == [
        (env.removeprefix("empire_envs/"), agent)
        for env in solo_run["envs"] for agent in solo_run["agents"]
    ]
    for row in rows:
        env = f"empire_envs/{row['env']}"
        per_seed = [
            evaluate.evaluate_agent(env, row["agent"], solo_run["episodes"], seed=k * 1_000_000)
            for k in solo_run["seeds"]
        ]
        total = solo_run["episodes"] * len(solo_run["seeds"])
        assert row["episodes"] == total
        assert row["wins"] == sum(r["wins"] for r in per_seed)
        assert row["losses"] == sum(r["losses"] for r in per_seed)
        assert row["win_rate"] == pytest.approx(row["wins"] / total)
        assert row["mean_length"] == pytest.approx(sum(r["total_steps"] for r in per_seed) / total)
        assert row["mean_return"] == pytest.approx(
            sum(r["mean_return"] for r in per_seed) / len(per_seed)
        )
        assert (row["win_ci_low"], row["win_ci_high"]) == pytest.approx(
            evaluate.wilson_interval(row["wins"], total)
        )
        assert row["win_ci_low"] <= row["win_rate"] <= row["win_ci_high"]
        assert row["win_ci_high"] - row["win_ci_low"] > 0
        rates = [r["win_rate"] for r in per_seed]
        assert row["win_rate_seed_std"] == pytest.approx(float(np.std(rates, ddof=1)))
    # the heuristic wins Empire solo often enough to win something in 16 games; random never
    by_key = {(r["env"], r["agent"]): r for r in rows}
    assert by_key[("EmpireSolo-v0", "heuristic")]["wins"] > by_key[("EmpireSolo-v0", "random")]["wins"]


def test_seeds_do_not_share_deals(benchmark):
    (one,) = benchmark.run_benchmark([SOLO], ["random"], [0], 6, log=None)
    (other,) = benchmark.run_benchmark([SOLO], ["random"], [1], 6, log=None)
    assert one["seeds"] == [0] and other["seeds"] == [1]
    assert one["win_rate_seed_std"] is None
    # different deals give different random games (lengths equal by chance are very unlikely)
    assert one["mean_length"] != other["mean_length"]


def test_results_csv_has_the_expected_rows_and_columns(benchmark, solo_run):
    with solo_run["paths"]["csv"].open(newline="") as handle:
        reader = csv.DictReader(handle)
        records = list(reader)
        columns = reader.fieldnames
    required = {"env", "agent", "seeds", "episodes", "wins", "win_rate", "win_ci_low",
                "win_ci_high", "win_rate_seed_std", "draws", "draw_rate", "mean_return",
                "mean_length"}
    assert required <= set(columns)
    assert list(columns) == list(benchmark.CSV_COLUMNS)
    expected = {(env.removeprefix("empire_envs/"), agent)
                for env in solo_run["envs"] for agent in solo_run["agents"]}
    assert len(records) == len(expected)
    assert {(r["env"], r["agent"]) for r in records} == expected
    by_key = {(r["env"], r["agent"]): r for r in solo_run["rows"]}
    for record in records:
        row = by_key[(record["env"], record["agent"])]
        assert int(record["wins"]) == row["wins"]
        assert int(record["episodes"]) == 16
        assert record["seeds"] == "0 1"
        assert float(record["win_ci_high"]) == pytest.approx(row["win_ci_high"])


def test_results_md_has_one_row_per_env_and_agent(solo_run):
    text = solo_run["paths"]["md"].read_text()
    assert "python -m empire_envs benchmark --test" in text
    table_rows = [line for line in text.splitlines()
                  if line.startswith("| `")]
    assert len(table_rows) == len(solo_run["envs"]) * len(solo_run["agents"])
    for env in ("EmpireSolo-v0", "EmpireSoloMergeInBattle-v0"):
        for agent in solo_run["agents"]:
            assert sum(f"`{env}` | `{agent}`" in line for line in table_rows) == 1


@needs_matplotlib
def test_results_png_is_a_png(solo_run):
    _assert_png(solo_run["paths"]["png"])


def test_agent_unknown_for_one_env_is_skipped_there_only(benchmark):
    notes: list[str] = []
    rows = benchmark.run_benchmark([SOLO, SOLITAIRE], ["random", "reveal-solve"], [0], 2,
                                   log=notes.append)
    assert [(r["env"], r["agent"]) for r in rows] == [
        ("EmpireSolo-v0", "random"),
        ("EmpireSolitaire-v0", "random"),
        ("EmpireSolitaire-v0", "reveal-solve"),
    ]
    skip_notes = [note for note in notes if note.startswith("note:")]
    assert len(skip_notes) == 1
    assert "reveal-solve" in skip_notes[0] and "EmpireSolo-v0" in skip_notes[0]


def test_agent_unknown_everywhere_is_an_error(benchmark, tmp_path, capsys):
    with pytest.raises(benchmark.BenchmarkError, match="no-such-agent"):
        benchmark.run_benchmark([SOLO, SOLITAIRE], ["random", "no-such-agent"], [0], 2, log=None)
    code = benchmark_command(["--env", SOLO, "--env", SOLITAIRE, "--agent", "random",
                           "--agent", "no-such-agent", "--episodes", "2",
                           "--out", str(tmp_path / "out")])
    assert code == 2
    err = capsys.readouterr().err
    assert "no-such-agent" in err and "none of the envs" in err
    assert not (tmp_path / "out").exists()  # nothing ran, nothing written


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["--episodes", "0"], "--episodes: must be at least 1"),
        (["--seeds", "0", "0"], "seed is given twice"),
        (["--seeds", "-1"], "--seeds: a seed must be 0 or more"),
        (["--env", "empire_envs/NoSuchEnv-v0"], "cannot build env"),
        (["--env", f"{SOLO}@no_such_setting=1"], "cannot build env"),
    ],
)
def test_main_bad_numbers_and_envs_exit_2(benchmark, tmp_path, capsys, argv, fragment):
    if "--env" not in argv:
        argv = ["--env", SOLO, *argv]
    try:
        status = benchmark_command([*argv, "--out", str(tmp_path)])
    except SystemExit as exit_info:  # argparse refused a number
        status = exit_info.code
    assert status == 2
    assert fragment in capsys.readouterr().err


def test_main_without_env_is_an_argparse_error(benchmark, capsys):
    with pytest.raises(SystemExit) as exit_info:
        benchmark_command(["--agent", "random"])
    assert exit_info.value.code == 2
    assert "--env" in capsys.readouterr().err


# --------------------------------------------------------------------------- elo_ratings


def test_a_game_nobody_won_is_a_share_to_each_seat():
    from empire_envs.evaluation.benchmark.statistics import score_points

    assert score_points(3, 1, 2) == 4.5  # 3 wins, then a draw and 2 truncations at half a point
    assert score_points(1, 0, 3, players=4) == 1.75
    # two equal agents whose games all reach the length limit score their fair share, not 0
    assert score_points(0, 0, 10) / 10 == 0.5
    assert score_points(0, 0, 0) == 0.0


def test_elo_two_agents_matches_the_closed_form(benchmark):
    games = 1000
    ratings = benchmark.elo_ratings({("A", "B"): (0.75 * games, games)})
    # one virtual draw: A has 750.5 points of 1001 games; for two agents the fit is exact
    expected = 400 * math.log10((0.75 * games + 0.5) / (0.25 * games + 0.5))
    assert ratings["A"] - ratings["B"] == pytest.approx(expected, abs=1e-6)
    assert ratings["A"] - ratings["B"] == pytest.approx(400 * math.log10(3), abs=1.0)
    assert (ratings["A"] + ratings["B"]) / 2 == pytest.approx(1000.0)  # no "random": mean 1000


def test_elo_pools_both_orders_of_a_pair(benchmark):
    # A scores 600/800 as the seat-taker and concedes only 200/800 when B takes the seats
    both = benchmark.elo_ratings({("A", "B"): (600, 800), ("B", "A"): (200, 800)})
    single = benchmark.elo_ratings({("A", "B"): (1200, 1600)})
    assert both["A"] - both["B"] == pytest.approx(single["A"] - single["B"], abs=1e-6)


def test_elo_equal_records_give_equal_ratings(benchmark):
    counts = {("A", "B"): (50, 100), ("B", "C"): (50, 100), ("C", "A"): (50, 100)}
    ratings = benchmark.elo_ratings(counts)
    assert ratings["A"] == pytest.approx(ratings["B"], abs=1e-6)
    assert ratings["B"] == pytest.approx(ratings["C"], abs=1e-6)
    assert ratings["A"] == pytest.approx(1000.0, abs=1e-6)


def test_elo_transitive_order_and_random_anchor(benchmark):
    counts = {
        ("A", "B"): (70, 100), ("B", "random"): (70, 100), ("A", "random"): (85, 100),
    }
    ratings = benchmark.elo_ratings(counts)
    assert ratings["random"] == pytest.approx(1000.0)
    assert ratings["A"] > ratings["B"] > ratings["random"]
    # a perfect record stays finite thanks to the virtual draws
    perfect = benchmark.elo_ratings({("A", "random"): (100, 100)})
    assert perfect["random"] == pytest.approx(1000.0)
    assert 1000.0 < perfect["A"] < math.inf
    assert perfect["A"] - 1000.0 == pytest.approx(400 * math.log10(100.5 / 0.5), abs=1e-6)


def test_elo_rejects_impossible_counts(benchmark):
    with pytest.raises(ValueError):
        benchmark.elo_ratings({("A", "B"): (11, 10)})
    with pytest.raises(ValueError):
        benchmark.elo_ratings({("A", "A"): (1, 2)})


# --------------------------------------------------------------------------- round robin


def test_first_legal_agent_is_importable_by_spec():
    from empire_envs.agents.base import make_agent

    agent = make_agent(FIRST_LEGAL, TICTACTOE)
    assert isinstance(agent, FirstLegalAgent)
    assert agent.act(np.zeros(9), np.array([0, 0, 1, 1, 0, 0, 0, 0, 0], dtype=np.int8)) == 2


@needs_matplotlib
def test_round_robin_on_tictactoe(benchmark, tmp_path):
    agents = ["random", FIRST_LEGAL]
    seeds, episodes = [0, 1], 10
    result = benchmark.round_robin(TICTACTOE, {}, agents, seeds, episodes)
    assert result["agents"] == agents
    assert result["players"] == 2
    matrix = result["matrix"]
    assert len(matrix) == 2 and all(len(row) == 2 for row in matrix)
    assert matrix[0][0] is None and matrix[1][1] is None
    assert set(result["counts"]) == {("random", FIRST_LEGAL), (FIRST_LEGAL, "random")}
    for (a, b), count in result["counts"].items():
        assert count["games"] == episodes * len(seeds)
        assert count["wins"] + count["draws"] + count["losses"] + count["truncations"] \
            + count["illegal"] == count["games"]
        assert count["points"] == count["wins"] + 0.5 * count["draws"]
        assert 0 <= count["points"] <= count["games"]
        score = matrix[agents.index(a)][agents.index(b)]
        assert 0.0 <= score <= 1.0
        assert score == pytest.approx(count["points"] / count["games"])
    assert result["elo"]["random"] == pytest.approx(1000.0)
    assert result["elo"] == pytest.approx(benchmark.elo_ratings(
        {pair: (c["points"], c["games"]) for pair, c in result["counts"].items()}
    ))

    paths = benchmark.write_round_robin(result, tmp_path)
    stem = f"roundrobin_{benchmark.safe_label(TICTACTOE)}"
    assert {p.name for p in paths.values()} == {f"{stem}.md", f"{stem}.csv", f"{stem}.png"}
    text = paths["md"].read_text()
    assert "Elo" in text and f"`{FIRST_LEGAL}`" in text
    with paths["csv"].open(newline="") as handle:
        records = list(csv.reader(handle))
    assert records[0] == ["agent", *agents, "elo"]
    assert [r[0] for r in records[1:]] == agents
    assert records[1][1] == "" and records[2][2] == ""  # the diagonal is blank
    assert float(records[1][2]) == pytest.approx(matrix[0][1])
    _assert_png(paths["png"])


def test_round_robin_needs_a_multiplayer_env(benchmark):
    with pytest.raises(ValueError, match="single-player"):
        benchmark.round_robin(SOLO, {}, ["random", "heuristic"], [0], 2)
    with pytest.raises(ValueError, match="two or more"):
        benchmark.round_robin(TICTACTOE, {}, ["random"], [0], 2)


# --------------------------------------------------------------------------- main


@needs_matplotlib
def test_main_end_to_end(benchmark, tmp_path, capsys):
    out = tmp_path / "bench"
    argv = ["--env", SOLO, "--env", f"{SOLO}@length_limit=2", "--env", TICTACTOE,
            "--agent", "random", "--agent", FIRST_LEGAL, "--agent", "heuristic",
            "--seeds", "0", "1", "--episodes", "4", "--out", str(out),
            "--json", str(tmp_path / "bench.json")]
    assert benchmark_command(argv) == 0
    stdout = capsys.readouterr().out
    stem = f"roundrobin_{benchmark.safe_label(TICTACTOE)}"
    expected = {"results.md", "results.csv", "results.png",
                f"{stem}.md", f"{stem}.csv", f"{stem}.png"}
    assert {p.name for p in out.iterdir()} == expected
    for name in expected:
        assert str(out / name) in stdout
    assert "Round robin" in stdout and "| `EmpireSolo-v0@length_limit=2` | `heuristic`" in stdout
    _assert_png(out / "results.png")
    _assert_png(out / f"{stem}.png")

    with (out / "results.csv").open(newline="") as handle:
        records = list(csv.DictReader(handle))
    pairs = [(r["env"], r["agent"]) for r in records]
    # heuristic is Empire solo's own agent: skipped on tictactoe, where the other two play
    assert pairs == [
        ("EmpireSolo-v0", "random"), ("EmpireSolo-v0", FIRST_LEGAL),
        ("EmpireSolo-v0", "heuristic"),
        ("EmpireSolo-v0@length_limit=2", "random"), ("EmpireSolo-v0@length_limit=2", FIRST_LEGAL),
        ("EmpireSolo-v0@length_limit=2", "heuristic"),
        (TICTACTOE, "random"), (TICTACTOE, FIRST_LEGAL),
    ]
    ttt = [r for r in records if r["env"] == TICTACTOE]
    assert all(r["opponent"] == "random" for r in ttt)
    # two draws cannot finish a game: the variant's settings reached the env
    capped = [r for r in records if r["env"] == "EmpireSolo-v0@length_limit=2"]
    assert all(int(r["truncations"]) == 8 for r in capped)
    md = (out / "results.md").read_text()
    assert "python -m empire_envs benchmark " + " ".join(argv[:4]) in md
    assert "heuristic" in md and "skipped" in md

    import json

    data = json.loads((tmp_path / "bench.json").read_text())
    assert len(data["results"]) == len(records)
    (rr,) = data["round_robins"]
    assert {c["games"] for c in rr["counts"]} == {8}


# --------------------------------------------------------------------------- Weng-Lin ratings

SIGMA = 25.0 / 3.0
BETA = SIGMA / 2.0
FRESH = (25.0, SIGMA)


def test_weng_lin_two_players_by_hand(benchmark):
    # c^2 = 2 (sigma^2 + beta^2); each p is 1/2, so the winner's Omega is sigma^2 / c * (1 - 1/2),
    # the loser's sigma^2 / c * (0 - 1/2), and both Deltas (sigma / c) * sigma^2 / c^2 * 1/4
    c = math.sqrt(2 * (SIGMA**2 + BETA**2))
    step = SIGMA**2 / (2 * c)
    sigma_after = SIGMA * math.sqrt(1 - (SIGMA / c) * SIGMA**2 / c**2 / 4)
    (winner, loser) = benchmark.weng_lin_update([FRESH, FRESH], [1, 2])
    assert winner == pytest.approx((25.0 + step, sigma_after), rel=1e-12)
    assert loser == pytest.approx((25.0 - step, sigma_after), rel=1e-12)
    # the figures themselves, worked on paper: c = 13.176, step = 2.6352, sigma' = 8.0655
    assert winner[0] == pytest.approx(27.6352, abs=1e-4) and winner[1] == pytest.approx(8.0655, abs=1e-4)


def test_weng_lin_three_players_by_hand(benchmark):
    # equal ratings, places 1, 2, 3: S_1 = 3e, S_2 = 2e, S_3 = e. The first is ahead of all
    # (Omega factor 1 - 1/3); the second loses to the first (-1/3) and beats the third (1 - 1/2);
    # the third loses to both (-1/3 - 1/2). Delta factors: 2/9, 2/9 + 1/4, 2/9 + 1/4 + 0.
    c = math.sqrt(3 * (SIGMA**2 + BETA**2))
    omega = [2 / 3, 1 / 6, -5 / 6]
    delta = [2 / 9, 17 / 36, 17 / 36]
    after = benchmark.weng_lin_update([FRESH] * 3, [1, 2, 3])
    for (mu, sigma), o, d in zip(after, omega, delta, strict=True):
        assert mu == pytest.approx(25.0 + SIGMA**2 / c * o, rel=1e-12)
        assert sigma == pytest.approx(SIGMA * math.sqrt(1 - (SIGMA / c) * SIGMA**2 / c**2 * d), rel=1e-12)


def test_weng_lin_winner_rises_and_equal_sigmas_sum_to_zero(benchmark):
    ratings = [(25.0, SIGMA), (30.0, 6.0), (20.0, 7.0), (25.0, 5.0)]
    ranks = [3, 1, 4, 2]
    after = benchmark.weng_lin_update(ratings, ranks)
    assert after[1][0] > ratings[1][0]  # the winner's mean rises, even as the favourite
    assert after[2][0] < ratings[2][0]  # the last one's falls
    assert all(new[1] < old[1] for new, old in zip(after, ratings, strict=True))  # every sigma shrinks
    equal = benchmark.weng_lin_update([FRESH] * 4, ranks)
    assert sum(mu - 25.0 for mu, _ in equal) == pytest.approx(0.0, abs=1e-12)
    order = sorted(range(4), key=lambda i: -equal[i][0])
    assert order == sorted(range(4), key=lambda i: ranks[i])  # better place, higher mean


def test_weng_lin_upset_moves_more_than_the_expected_result(benchmark):
    strong, weak = (30.0, SIGMA), (20.0, SIGMA)
    expected = benchmark.weng_lin_update([strong, weak], [1, 2])
    upset = benchmark.weng_lin_update([strong, weak], [2, 1])
    assert upset[1][0] - weak[0] > expected[0][0] - strong[0] > 0


def test_weng_lin_is_symmetric_in_the_order_of_the_players(benchmark):
    ratings = [(25.0, SIGMA), (28.0, 6.0), (21.0, 7.5)]
    ranks = [2, 1, 2]  # a tie for second
    after = benchmark.weng_lin_update(ratings, ranks)
    order = [2, 0, 1]
    permuted = benchmark.weng_lin_update([ratings[i] for i in order], [ranks[i] for i in order])
    for position, i in enumerate(order):
        assert permuted[position] == pytest.approx(after[i], rel=1e-12)
    # two equal players who tie keep their means
    tied = benchmark.weng_lin_update([FRESH, FRESH], [1, 1])
    assert tied[0][0] == pytest.approx(25.0) and tied[1][0] == pytest.approx(25.0)
    assert tied[0][1] < SIGMA


def test_weng_lin_ratings_over_games(benchmark):
    games = [{"a": 1, "b": 2, "c": 3}, {"b": 1, "c": 2, "a": 3}, {"a": 1, "c": 2}]
    ratings = benchmark.weng_lin_ratings(games)
    assert list(ratings) == ["a", "b", "c"]
    assert ratings["a"]["games"] == 3 and ratings["b"]["games"] == 2
    assert ratings["a"]["mean_rank"] == pytest.approx(5 / 3)
    for record in ratings.values():
        assert record["ordinal"] == pytest.approx(record["mu"] - 3 * record["sigma"])
    # the first game alone is weng_lin_update from fresh ratings
    (first,) = [benchmark.weng_lin_ratings(games[:1])]
    expected = benchmark.weng_lin_update([FRESH] * 3, [1, 2, 3])
    assert (first["a"]["mu"], first["a"]["sigma"]) == pytest.approx(expected[0])


@pytest.mark.parametrize(
    "ratings, ranks, fragment",
    [
        ([FRESH], [1], "two or more"),
        ([FRESH, FRESH], [1], "ranks"),
        ([FRESH, (25.0, 0.0)], [1, 2], "positive sigma"),
        ([FRESH, (math.nan, SIGMA)], [1, 2], "finite"),
    ],
)
def test_weng_lin_bad_input(benchmark, ratings, ranks, fragment):
    with pytest.raises(ValueError, match=fragment):
        benchmark.weng_lin_update(ratings, ranks)


def test_weng_lin_ratings_refuse_a_game_of_one(benchmark):
    with pytest.raises(ValueError, match="two or more"):
        benchmark.weng_lin_ratings([{"a": 1, "b": 2}, {"a": 1}])


def test_finishing_ranks_share_places(benchmark):
    assert benchmark.finishing_ranks([1.0, -1.0, 1.0]) == [1, 3, 1]
    assert benchmark.finishing_ranks([0.0, 0.0]) == [1, 1]
    assert benchmark.finishing_ranks([-1.0, 2.0, 0.5, -1.0]) == [3, 1, 2, 3]


# --------------------------------------------------------------------------- parts of a run


def test_split_episodes_parts(benchmark):
    assert benchmark.split_episodes(100, 10, 1, 2) == [(100, 10)]
    # 10 episodes in 3 parts of 4 (rounded up to whole rounds of 2 seats): deals advance by 2
    assert benchmark.split_episodes(100, 10, 3, 2) == [(100, 4), (102, 4), (104, 2)]
    # one seat: the deal is the episode
    assert benchmark.split_episodes(0, 7, 2, 1) == [(0, 4), (4, 3)]
    with pytest.raises(ValueError, match=">= 1"):
        benchmark.split_episodes(0, 0, 2, 2)


def test_parts_play_the_same_episodes_as_one_call(benchmark, evaluate):
    # the parts, combined, are the one call: every count, the steps and the return
    whole = evaluate.evaluate_agent(TICTACTOE, "random", 18, seed=5_000, opponent=FIRST_LEGAL)
    split = benchmark.split_episodes(5_000, 18, 4, 2)
    assert split == [(5_000, 6), (5_003, 6), (5_006, 6)]  # 18 / 4 rounded up to whole rounds of 2 seats
    parts = [
        evaluate.evaluate_agent(TICTACTOE, "random", count, seed=first, opponent=FIRST_LEGAL)
        for first, count in split
    ]
    combined = benchmark.combine_results(parts)
    for key in ("episodes", "wins", "draws", "losses", "truncations", "illegal", "total_steps", "deals"):
        assert combined[key] == whole[key], key
    for key in ("mean_return", "std_return", "mean_length", "win_rate", "loss_rate", "draw_rate"):
        assert combined[key] == pytest.approx(whole[key], rel=1e-12), key
    assert combined["win_ci95"] == pytest.approx(whole["win_ci95"])
    assert combined["seed"] == 5_000 and combined["wall_time_s"] == pytest.approx(
        sum(part["wall_time_s"] for part in parts)
    )


def test_combine_results_keeps_equal_keys_and_drops_differing_ones(benchmark):
    base = {"episodes": 2, "wins": 1, "losses": 1, "draws": 0, "truncations": 0, "illegal": 0,
            "total_steps": 10, "mean_return": 0.0, "std_return": 1.0, "wall_time_s": 1.0,
            "seed": 0, "agent": "x", "interval": [0, 1], "mean_rank": 1.0}
    other = {**base, "seed": 1, "wins": 2, "losses": 0, "mean_return": 1.0, "std_return": 0.0,
             "interval": [0.5, 1], "mean_rank": 2.0}
    combined = benchmark.combine_results([base, other])
    assert combined["agent"] == "x" and "interval" not in combined
    assert combined["wins"] == 3 and combined["episodes"] == 4 and combined["seed"] == 0
    assert combined["mean_rank"] == pytest.approx(1.5)
    # returns -1, 1 (mean 0, population sd 1) and 1, 1: mean 0.5, sd sqrt(1 - 0.25)
    assert combined["mean_return"] == pytest.approx(0.5)
    assert combined["std_return"] == pytest.approx(math.sqrt(0.75))
    with pytest.raises(ValueError, match="no result"):
        benchmark.combine_results([])


def test_round_robin_pair_episodes_and_parts(benchmark):
    agents = ["random", FIRST_LEGAL, "tests.test_benchmark:LastLegalAgent"]
    fewer = {(FIRST_LEGAL, "random"): 4, ("random", FIRST_LEGAL): 4}
    result = benchmark.round_robin(TICTACTOE, {}, agents, [0], 8, pair_episodes=fewer)
    assert result["pair_episodes"][(FIRST_LEGAL, "random")] == 4
    for pair, count in result["counts"].items():
        assert count["games"] == (4 if pair in fewer else 8)
    assert "1 seed(s) x 4 for" in benchmark.format_round_robin(result)
    calls = []

    def counting_runner(function, tasks):
        calls.append(len(tasks))
        return benchmark.sequential_runner(function, tasks)

    split = benchmark.round_robin(TICTACTOE, {}, agents, [0], 8, pair_episodes=fewer, runner=counting_runner, parts=2)
    assert calls == [12]  # six pairs, two parts each
    assert split["counts"] == result["counts"] and split["elo"] == pytest.approx(result["elo"])
    with pytest.raises(ValueError, match="no ordered pair"):
        benchmark.round_robin(TICTACTOE, {}, agents, [0], 8, pair_episodes={("random", "random"): 2})


class LastLegalAgent(Agent):
    """Always the highest legal index: another naive deterministic player."""

    name = "last-legal"

    def act(self, observation: np.ndarray, action_mask: np.ndarray, state: Any = None) -> int:
        return int(np.flatnonzero(action_mask)[-1])


# --------------------------------------------------------------------------- several seats


def test_seatings_put_every_agent_on_every_seat(benchmark):
    order = benchmark.seatings(["a", "b", "c", "d"], 3)
    assert len(order) == 4 * 3  # C(4, 3) combinations, 3 rotations each
    assert order[:3] == [("a", "b", "c"), ("b", "c", "a"), ("c", "a", "b")]
    for name in "abcd":
        seats = [seating.index(name) for seating in order if name in seating]
        assert sorted(seats) == [0, 0, 0, 1, 1, 1, 2, 2, 2]
    with pytest.raises(ValueError, match="distinct"):
        benchmark.seatings(["a", "b"], 3)


PILLARS = "empire_envs/Pillars-v0"


def test_rank_round_robin_on_pillars(benchmark):
    agents = ["random", "heuristic", FIRST_LEGAL, "tests.test_benchmark:LastLegalAgent", "ismcts"]
    ismcts_combinations = {combo: 1 for combo in itertools.combinations(agents, 4) if "ismcts" in combo}
    result = benchmark.rank_round_robin(
        PILLARS, {}, agents, 0, 2, agent_kwargs={"iterations": 2}, combination_games=ismcts_combinations
    )
    assert result["players"] == 4
    # one combination without ismcts plays 2 deals, the four with it 1 deal, each in 4 rotations
    assert len(result["games"]) == 1 * 2 * 4 + 4 * 1 * 4
    for game in result["games"]:
        assert game["ranks"] == benchmark.finishing_ranks(game["results"])
        assert len(set(game["seating"])) == 4
    # deal by deal: the first 5 * 4 games are deal 0, the last 4 deal 1 of the one combination
    assert {game["seed"] for game in result["games"][:20]} == {0}
    assert {game["seed"] for game in result["games"][20:]} == {1}
    ratings = result["ratings"]
    assert set(ratings) == set(agents)
    assert ratings["ismcts"]["games"] == 16 and ratings["random"]["games"] == 8 + 12
    expected = benchmark.weng_lin_ratings(
        [dict(zip(game["seating"], game["ranks"], strict=True)) for game in result["games"]]
    )
    assert ratings == expected
    firsts = {name: sum(
        rank == 1 for game in result["games"] for seat, rank in zip(game["seating"], game["ranks"], strict=True)
        if seat == name) for name in agents}
    assert result["firsts"] == firsts
    # the heuristic wins most of these games: its ordinal leads
    assert max(ratings, key=lambda name: ratings[name]["ordinal"]) == "heuristic"


def test_play_seated_games_is_repeatable_and_split_freely(benchmark):
    seating = ["random", "heuristic", FIRST_LEGAL, "random"][:3] + ["tests.test_benchmark:LastLegalAgent"]
    whole = benchmark.play_seated_games(PILLARS, {}, seating, 10, 3)
    pieces = benchmark.play_seated_games(PILLARS, {}, seating, 10, 1) + benchmark.play_seated_games(
        PILLARS, {}, seating, 11, 2
    )
    assert whole == pieces
    assert [game["seed"] for game in whole] == [10, 11, 12]
    with pytest.raises(ValueError, match="4 seats"):
        benchmark.play_seated_games(PILLARS, {}, seating[:3], 0, 1)
    with pytest.raises(ValueError, match="single-player"):
        benchmark.play_seated_games(SOLO, {}, ["random", "random"], 0, 1)
