"""Tests of ``empire_envs.evaluation.selfplay_tables`` (``experiments/selfplay_tables.py``): the
three tables of a trained multiplayer agent on Map Duel (two seats) and Pillars (four), with
random-weight policy files and tiny budgets; the files' numbers against their counts; the
refusal to write over files the script did not write; bad flags."""

from __future__ import annotations

import csv
import io
import os
import runpy
import shlex
import sys
from pathlib import Path

import numpy as np
import pytest

from empire_envs.agents.jax_ppo import layer_names, save_policy
from empire_envs.evaluation import selfplay_tables as tables
from empire_envs.evaluation.benchmark import elo_ratings
from empire_envs.evaluation.evaluate import wilson_interval

ROOT = Path(__file__).resolve().parents[1]
MAP_DUEL = "empire_envs/MapDuel-v0"
PILLARS = "empire_envs/Pillars-v0"
FIRST_LEGAL = "tests.test_benchmark:FirstLegalAgent"
#: observation size and actions of each env
SIZES = {MAP_DUEL: (3400, 396), PILLARS: (2096, 192)}


def random_policy(path: Path, env_id: str, seed: int) -> str:
    """A policy file of random weights, hidden_sizes [8], for ``env_id``; its agent spec."""
    observations, actions = SIZES[env_id]
    rng = np.random.default_rng(seed)
    arrays = {}
    for network, outputs in (("actor", actions), ("critic", 1)):
        widths = [observations, 8, outputs]
        for index, prefix in enumerate(layer_names(network, [8])):
            arrays[f"{prefix}/kernel"] = rng.normal(0.0, 0.5, (widths[index], widths[index + 1])).astype(np.float32)
            arrays[f"{prefix}/bias"] = np.zeros(widths[index + 1], np.float32)
    metadata = {
        "env_id": env_id,
        "observation_size": observations,
        "num_actions": actions,
        "hidden_sizes": [8],
        "activation": "tanh",
    }
    save_policy(path, arrays, metadata)
    return f"jaxppo:{path}"


#: Map Duel cut short (20 main-game turns), so that games of random-weight policies stay short
#: (a policy plays a game of another length with a warning)
SHORT = ["--env-kwarg", "length_limit=20"]
pytestmark = pytest.mark.filterwarnings("ignore:.*cut short differently:UserWarning")

TINY = [
    *SHORT, "--episodes-random", "4", "--episodes-heuristic", "2", "--episodes-ismcts", "2",
    "--ismcts-iterations", "2", "--rr-games", "2", "--rr-games-ismcts", "2",
]  # fmt: skip


def run(argv: list[str]) -> int:
    return tables.main(argv, log=lambda line: None)


def read_csv(path: Path) -> tuple[str, list[dict[str, str]]]:
    """The command line of a CSV file of the script, and its records."""
    first, rest = path.read_text().split("\n", 1)
    assert first.startswith(tables.CSV_PREFIX)
    return first[len(tables.CSV_PREFIX) :], list(csv.DictReader(io.StringIO(rest)))


@pytest.fixture(scope="module")
def map_duel(tmp_path_factory):
    """The three tables of one Map Duel run: agent, one checkpoint, a best response."""
    folder = tmp_path_factory.mktemp("map_duel")
    agent = random_policy(folder / "policy.npz", MAP_DUEL, 0)
    checkpoint = random_policy(folder / "policy_100.npz", MAP_DUEL, 1)
    best_response = random_policy(folder / "best_response.npz", MAP_DUEL, 2)
    out = folder / "tables"
    argv = [
        "--env", MAP_DUEL, "--agent", agent, "--checkpoint", checkpoint, "--out", str(out), *TINY,
        "--best-response", best_response, "--episodes-best-response", "4",
        "--best-response-training", "python -m empire_envs train --config br.toml (runs/br/summary.json)",
    ]  # fmt: skip
    assert run(argv) == 0
    return {"out": out, "argv": argv, "agent": agent, "checkpoint": checkpoint, "best_response": best_response}


def test_every_file_starts_with_its_command(map_duel):
    out = map_duel["out"]
    assert sorted(path.name for path in out.iterdir()) == sorted(tables.OWN_FILES)
    command = f"python {tables.PROGRAM} {shlex.join(map_duel['argv'])}"
    for path in out.iterdir():
        first = path.read_text().splitlines()[0]
        if path.suffix == ".md":
            assert first == f"Command: `{command}`"
        else:
            assert first == f"# command: {command}"
        assert tables.written_here(path)
        # the command runs again: its words are the argv
        assert shlex.split(first.split("selfplay_tables.py ", 1)[1].rstrip("`")) == map_duel["argv"]
        assert not path.name.startswith(".")
        assert path.stat().st_mode & 0o044  # readable beyond its owner, unlike a bare temporary file


def _check_result_record(record: dict[str, str], episodes: int) -> None:
    counts = {key: int(record[key]) for key in ("wins", "draws", "losses", "truncations", "illegal")}
    assert int(record["episodes"]) == episodes == sum(counts.values())
    for prefix, key in (("win", "wins"), ("draw", "draws"), ("loss", "losses")):
        assert float(record[f"{prefix}_rate"]) == pytest.approx(counts[key] / episodes, abs=1e-6)
        low, high = wilson_interval(counts[key], episodes)
        assert float(record[f"{prefix}_ci_low"]) == pytest.approx(low, abs=1e-6)
        assert float(record[f"{prefix}_ci_high"]) == pytest.approx(high, abs=1e-6)
    unwon = (counts["draws"] + counts["truncations"]) / int(record["players"])  # a share to each seat
    assert float(record["score"]) == pytest.approx((counts["wins"] + unwon) / episodes, abs=1e-6)
    assert counts["illegal"] == 0  # a masked policy never plays an illegal action


def test_table_a_counts_rates_and_intervals(map_duel):
    _, records = read_csv(map_duel["out"] / "table_a.csv")
    assert [r["opponent"] for r in records] == ["random", "heuristic", "ismcts"]
    for record, episodes in zip(records, (4, 2, 2), strict=True):
        _check_result_record(record, episodes)
        assert record["agent"] == map_duel["agent"] and record["env_id"] == MAP_DUEL
        assert record["env_kwargs"] == "length_limit=20"
        assert record["chance"] == "0.500000" and record["players"] == "2"
        assert record["seat_rotation"] == "deal" and record["first_seed"] == "0"
    assert records[2]["opponent_settings"] == "iterations=2"
    md = (map_duel["out"] / "table_a.md").read_text()
    assert "Chance level: 1/2 = 50.0%" in md and "every deal played once from each seat" in md
    assert f"# Table A: `{map_duel['agent']}` on `{MAP_DUEL}` with `length_limit=20`" in md
    for record in records:
        wins, games = int(record["wins"]), int(record["episodes"])
        low, high = wilson_interval(wins, games)
        cell = f"{100 * wins / games:.1f} [{100 * low:.1f}, {100 * high:.1f}]"
        assert f"| `{record['opponent']}` |" in md and cell in md


def test_table_b_round_robin_and_elo(map_duel):
    out = map_duel["out"]
    roster = ["random", "heuristic", "ismcts", map_duel["agent"], map_duel["checkpoint"]]
    rows = list(csv.reader(io.StringIO((out / "ratings.csv").read_text().split("\n", 1)[1])))
    assert rows[0] == ["agent", *roster, "elo"]
    assert [row[0] for row in rows[1:]] == roster
    md = (out / "ratings.md").read_text()
    # the games of each pair, read back from the Markdown, give the Elo column of the CSV
    counts = {}
    for line in md.splitlines():
        cells = [cell.strip().strip("`") for cell in line.strip("|").split("|")]
        if len(cells) == 9 and cells[0] in roster and cells[1] in roster:
            games, wins, draws, losses, truncations, illegal = map(int, cells[2:8])
            assert wins + draws + losses + truncations + illegal == games
            assert games == 2
            # a game nobody won, drawn or truncated, is half a point to each side
            counts[(cells[0], cells[1])] = (wins + (draws + truncations) / 2, games)
            score = rows[1 + roster.index(cells[0])][1 + roster.index(cells[1])]
            assert float(score) == pytest.approx((wins + (draws + truncations) / 2) / games, abs=1e-6)
    assert len(counts) == 5 * 4
    elo = elo_ratings(counts)
    for row in rows[1:]:
        assert float(row[-1]) == pytest.approx(elo[row[0]], abs=0.01)
    assert float(rows[1][-1]) == pytest.approx(1000.0)  # random is the anchor
    assert "`ismcts` searches with `iterations=2`" in md and "Elo" in md
    assert "# Table B: ratings on `MapDuel-v0@length_limit=20`" in md


def test_table_c_best_response(map_duel):
    out = map_duel["out"]
    _, (record,) = read_csv(out / "best_response.csv")
    _check_result_record(record, 4)
    assert record["agent"] == map_duel["best_response"] and record["opponent"] == map_duel["agent"]
    md = (out / "best_response.md").read_text()
    assert "python -m empire_envs train --config br.toml (runs/br/summary.json)" in md
    wins = int(record["wins"])
    assert f"wins {100 * wins / 4:.1f}% of the games" in md
    assert "lower bound" in md


def _only_table_c(argv: list[str], out: Path) -> list[str]:
    """The fixture's command for Table C alone, into ``out``."""
    argv = [*argv, "--tables", "c"]
    argv[argv.index("--out") + 1] = str(out)
    return argv


def test_jobs_give_the_same_counts(map_duel, tmp_path):
    # two processes play the four games as two parts of two: the same games, the same counts
    assert run([*_only_table_c(map_duel["argv"], tmp_path / "two"), "--jobs", "2"]) == 0
    _, one = read_csv(map_duel["out"] / "best_response.csv")
    _, two = read_csv(tmp_path / "two" / "best_response.csv")
    for a, b in zip(one, two, strict=True):
        for key in a:
            if key != "wall_time_s":
                assert a[key] == b[key], key
    assert "with 2 process(es)" in (tmp_path / "two" / "best_response.md").read_text()


class FakeRunner:
    """Plays no game: every ``evaluate_agent`` call is won by the evaluated agent when it comes
    first in ``ORDER`` (a made-up strength order), and every call is recorded."""

    ORDER = ["heuristic", "ismcts", "random"]
    calls: list[dict] = []

    def __init__(self, jobs: int = 1) -> None:
        self.jobs = jobs

    def __call__(self, function, tasks):
        for task in tasks:
            FakeRunner.calls.append(dict(task))
            n = task["episodes"]
            rank = {name: i for i, name in enumerate(self.ORDER)}
            won = rank.get(task["agent_spec"], 9) < rank.get(task["opponent"], 9)
            yield {
                "agent": task["agent_spec"], "opponent": task["opponent"], "env_id": task["env_id"],
                "episodes": n, "seed": task["seed"], "wins": n if won else 0, "losses": 0 if won else n,
                "draws": 0, "truncations": 0, "illegal": 0, "total_steps": 10 * n, "mean_return": 0.0,
                "std_return": 1.0, "wall_time_s": 0.001, "seat_rotation": "deal",
            }  # fmt: skip

    def close(self) -> None:
        pass


def test_pairs_with_ismcts_play_their_own_count(map_duel, tmp_path, monkeypatch):
    monkeypatch.setattr(tables, "ProcessRunner", FakeRunner)
    FakeRunner.calls = []
    argv = [
        "--env", MAP_DUEL, "--agent", map_duel["agent"], "--checkpoint", map_duel["checkpoint"],
        "--out", str(tmp_path / "b"), "--tables", "b", "--rr-games", "6", "--rr-games-ismcts", "2",
        "--ismcts-iterations", "7", "--seed", "3",
    ]  # fmt: skip
    assert run(argv) == 0
    roster = ["random", "heuristic", "ismcts", map_duel["agent"], map_duel["checkpoint"]]
    pairs = {(call["agent_spec"], call["opponent"]): call for call in FakeRunner.calls}
    assert set(pairs) == {(a, b) for a in roster for b in roster if a != b}
    for (a, b), call in pairs.items():
        assert call["episodes"] == (2 if "ismcts" in (a, b) else 6)
        assert call["seed"] == 3_000_000
        assert call["agent_kwargs"] == ({"iterations": 7} if a == "ismcts" else {})
        assert call["opponent_kwargs"] == ({"iterations": 7} if b == "ismcts" else {})
    rows = list(csv.reader(io.StringIO((tmp_path / "b" / "ratings.csv").read_text().split("\n", 1)[1])))
    elo = {row[0]: float(row[-1]) for row in rows[1:]}
    assert elo["heuristic"] > elo["ismcts"] > elo["random"] == pytest.approx(1000.0)


def test_pillars_tables_rank_players(tmp_path):
    agent = FIRST_LEGAL  # any agent spec plays; a naive one keeps the games short
    out = tmp_path / "pillars"
    argv = [
        "--env", PILLARS, "--agent", agent, "--out", str(out), "--episodes-random", "4",
        "--episodes-heuristic", "4", "--episodes-ismcts", "4", "--ismcts-iterations", "2",
        "--rr-games", "2", "--rr-games-ismcts", "1",
    ]  # fmt: skip
    assert run(argv) == 0
    _, records = read_csv(out / "table_a.csv")
    for record in records:
        _check_result_record(record, 4)
        assert record["chance"] == "0.250000"
        assert 1.0 <= float(record["mean_rank"]) <= 4.0
        assert float(record["mean_rank_ci_low"]) <= float(record["mean_rank"]) <= float(record["mean_rank_ci_high"])
    assert "mean place" in (out / "table_a.md").read_text()
    _, ratings = read_csv(out / "ratings.csv")
    assert {r["agent"] for r in ratings} == {"random", "heuristic", "ismcts", agent}
    ordinals = [float(r["ordinal"]) for r in ratings]
    assert ordinals == sorted(ordinals, reverse=True) and [int(r["rank"]) for r in ratings] == [1, 2, 3, 4]
    for r in ratings:
        assert float(r["ordinal"]) == pytest.approx(float(r["mu"]) - 3 * float(r["sigma"]), abs=2e-3)
        # four agents, four seats: one combination with ismcts, 1 deal in 4 rotations
        assert int(r["games"]) == 4
    md = (out / "ratings.md").read_text()
    assert "Weng-Lin" in md and "4 games in all" in md
    # Table C: the best response on one seat, the frozen agent on the three others
    best_response = random_policy(tmp_path / "br.npz", PILLARS, 3)
    table_c = [*argv, "--tables", "c", "--best-response", best_response, "--episodes-best-response", "4"]
    assert run(table_c) == 0
    _, (record,) = read_csv(out / "best_response.csv")
    assert record["agent"] == best_response and record["opponent"] == agent and record["chance"] == "0.250000"
    wins, unwon = int(record["wins"]), int(record["draws"]) + int(record["truncations"])
    md = (out / "best_response.md").read_text()
    assert f"a score of {(wins + unwon / 4) / 4:.3f} counting a game nobody won (drawn or truncated) as a 1/4" in md
    assert "concedes at most 1/4 (the frozen agent takes the other 3 seats)" in md
    assert f"takes {(wins + unwon / 4) / 4 - 0.25:+.3f} beyond that" in md
    assert float(record["score"]) == pytest.approx((wins + unwon / 4) / 4, abs=1e-6)


def test_refuses_a_folder_with_files_it_did_not_write(map_duel, tmp_path, capsys):
    out = tmp_path / "docs"
    out.mkdir()
    notes = out / "notes.md"
    notes.write_text("mine\n")
    argv = _only_table_c(map_duel["argv"], out)
    assert run(argv) == 2
    error = capsys.readouterr().err
    assert "notes.md" in error and "--force" in error
    assert sorted(path.name for path in out.iterdir()) == ["notes.md"] and notes.read_text() == "mine\n"
    # a file of one of its names that it did not write is refused the same way
    notes.unlink()
    (out / "best_response.md").write_text("# my own table\n")
    assert run(argv) == 2
    assert (out / "best_response.md").read_text() == "# my own table\n"
    # with --force it writes its files (replacing that one) and leaves any other file alone
    notes.write_text("mine\n")
    assert run([*argv, "--force"]) == 0
    assert sorted(path.name for path in out.iterdir()) == ["best_response.csv", "best_response.md", "notes.md"]
    assert notes.read_text() == "mine\n" and tables.written_here(out / "best_response.md")


def test_writes_again_over_its_own_files(map_duel, tmp_path):
    out = tmp_path / "again"
    argv = _only_table_c(map_duel["argv"], out)
    assert run(argv) == 0
    first = (out / "best_response.csv").read_text()
    assert run(argv) == 0  # its own files, from the same command: written again
    assert sorted(path.name for path in out.iterdir()) == ["best_response.csv", "best_response.md"]  # no temporary
    assert (out / "best_response.csv").read_text().split("\n")[:2] == first.split("\n")[:2]


@pytest.mark.parametrize(
    "extra, fragment",
    [
        (["--episodes-random", "0"], "at least 1"),
        (["--episodes-ismcts", "two"], "whole number"),
        (["--tables", "ad"], "letters of a, b, c"),
        (["--tables", "aa"], "named twice"),
        (["--seed", "-1"], "at least 0"),
        (["--jobs", "0"], "at least 1"),
    ],
)
def test_bad_flags_are_usage_errors(map_duel, tmp_path, capsys, extra, fragment):
    argv = ["--env", MAP_DUEL, "--agent", map_duel["agent"], "--out", str(tmp_path / "out"), *extra]
    with pytest.raises(SystemExit) as exit_info:
        run(argv)
    assert exit_info.value.code == 2
    assert fragment in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "change, fragment",
    [
        (["--tables", "c"], "needs --best-response"),
        (["--episodes-random", "3"], "multiples of 2"),
        (["--rr-games", "5"], "multiples of 2"),
        (["--checkpoint", "AGENT"], "named twice"),
        (["--checkpoint", "heuristic"], "built-in opponent"),
        (["--checkpoint", "jaxppo:/no/such/policy.npz"], "no policy file"),
        (["--env", "empire_envs/EmpireSolo-v0"], "one-seat"),
        (["--env", "empire_envs/Generals-v0"], "this env has observations of shape (3779,)"),
        (["--env-kwarg", "length_limit=30"], "sets 'length_limit' twice"),
        (["--env-kwarg", "no_such_setting=1"], "no_such_setting"),
    ],
)
def test_bad_input_exits_2_before_any_game(map_duel, tmp_path, capsys, change, fragment):
    argv = ["--env", MAP_DUEL, "--agent", map_duel["agent"], "--out", str(tmp_path / "out"), *TINY]
    argv += [map_duel["agent"] if word == "AGENT" else word for word in change]
    assert run(argv) == 2
    assert fragment in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_script_is_a_thin_wrapper(monkeypatch, capsys):
    script = ROOT / "experiments" / "selfplay_tables.py"
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):  # the script sets them
        monkeypatch.setenv(name, os.environ.get(name, "1"))
    monkeypatch.setattr(sys, "argv", [str(script), "--help"])
    with pytest.raises(SystemExit) as exit_info:
        runpy.run_path(str(script), run_name="__main__")
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.startswith("usage: selfplay_tables.py ")
