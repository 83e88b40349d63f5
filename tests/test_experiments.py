"""The measuring tools of ``empire_envs.evaluation`` and their commands, and the thin scripts of
``experiments/`` that call them (seconds; speed is never asserted)."""

from __future__ import annotations

import json
import math
import runpy
import subprocess
import sys
from pathlib import Path

import pytest

from empire_envs.cli import main as cli_main
from empire_envs.evaluation import evaluate as evaluate_module
from empire_envs.evaluation import speed as speed_module
from empire_envs.registry import GAMES, GameEntry, Variant

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = sorted((ROOT / "experiments").glob("*.py"))


@pytest.fixture(scope="module")
def evaluate():
    return evaluate_module


@pytest.fixture(scope="module")
def bench():
    return speed_module


# --------------------------------------------------------------------------- the scripts


#: the command each script of experiments/ runs: a ``python -m empire_envs`` command, or (a path)
#: a tool of the repository, run as a script of its own
SCRIPT_COMMANDS = {
    "bench_speed": "bench",
    "benchmark": "benchmark",
    "build_docs": "docs/tools/build_site.py",
    "deck_balance": "deck-balance",
    "demo": "demo",
    "evaluate": "evaluate",
    "gallery": "gallery",
    "imitate": "imitate",
    "solvability": "solvability",
    "selfplay_tables": "experiments/selfplay_tables.py",
    "solitaire_fair_optimum": "fair-optimum",
    "train": "train",
    "train_rllib": "train-rllib",
}


def test_every_script_is_listed():
    assert sorted(path.stem for path in SCRIPTS) == sorted(SCRIPT_COMMANDS)


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: path.name)
def test_scripts_are_thin_wrappers_of_the_commands(script, monkeypatch, capfd):
    """Each script runs its ``python -m empire_envs`` command or repository tool (its ``--help``
    is the command's) and holds no code of its own beyond the call."""
    command = SCRIPT_COMMANDS[script.stem]
    usage = Path(command).name if command.endswith(".py") else f"empire_envs {command}"
    monkeypatch.setattr(sys, "argv", [str(script), "--help"])
    with pytest.raises(SystemExit) as exit_info:
        runpy.run_path(str(script), run_name="__main__")
    assert exit_info.value.code == 0
    assert capfd.readouterr().out.startswith(f"usage: {usage} ")
    assert len(script.read_text().splitlines()) <= 45, f"{script.name} is more than a thin wrapper"


# --------------------------------------------------------------------------- wilson_interval


@pytest.mark.parametrize(
    "successes, n, expected",
    [
        # by hand, z = 1.96, z^2 = 3.8416, d = 1 + z^2/n = 1.38416 for n = 10:
        # 0/10: centre = (0 + 0.19208)/d, half = (z/d) * sqrt(0 + 0.009604) -> (0, 0.38416/d)
        (0, 10, (0.0, 0.277540)),
        # 5/10: centre 0.5, half = (1.96/1.38416) * sqrt(0.025 + 0.009604) = 0.263411
        (5, 10, (0.236589, 0.763411)),
        (10, 10, (0.722460, 1.0)),
        # 1/2: d = 2.9208, centre 0.5, half = (1.96/2.9208) * sqrt(0.125 + 0.2401) = 0.405471
        (1, 2, (0.094529, 0.905471)),
    ],
)
def test_wilson_interval_known_values(evaluate, successes, n, expected):
    low, high = evaluate.wilson_interval(successes, n)
    assert low == pytest.approx(expected[0], abs=1e-6)
    assert high == pytest.approx(expected[1], abs=1e-6)


def test_wilson_interval_edges(evaluate):
    assert evaluate.wilson_interval(0, 0) == (0.0, 1.0)
    low, high = evaluate.wilson_interval(30, 100, z=1.0)
    assert low < 0.3 < high
    with pytest.raises(ValueError):
        evaluate.wilson_interval(11, 10)


def test_parse_env_kwarg(evaluate):
    assert evaluate.parse_env_kwarg("length_limit=200") == ("length_limit", 200)
    assert evaluate.parse_env_kwarg("merge_in_battle=True") == ("merge_in_battle", True)
    assert evaluate.parse_env_kwarg("shaping_values=(0,0,0,0,1)") == ("shaping_values", (0, 0, 0, 0, 1))
    assert evaluate.parse_env_kwarg("render_mode=ansi") == ("render_mode", "ansi")


# --------------------------------------------------------------------------- evaluate_agent


def test_evaluate_random_counts_are_consistent(evaluate):
    result = evaluate.evaluate_agent("empire_envs/EmpireSolo-v0", "random", 20, seed=3)
    assert result["episodes"] == 20
    assert result["wins"] + result["losses"] + result["truncations"] + result["illegal"] == 20
    assert result["illegal"] == 0  # a masked random agent never plays an illegal action
    for key in ("win", "loss", "truncation", "illegal"):
        low, high = result[f"{key}_ci95"]
        assert 0.0 <= low <= result[f"{key}_rate"] <= high <= 1.0
    assert result["mean_length"] >= 1
    assert math.isfinite(result["mean_return"])
    # same seeds, same games: the evaluation is repeatable
    again = evaluate.evaluate_agent("EmpireSolo-v0", "random", 20, seed=3)
    for key in ("wins", "losses", "truncations", "total_steps", "mean_return"):
        assert again[key] == result[key]
    assert "agent" in evaluate.format_table([result, again])


def test_evaluate_env_kwargs_reach_the_env(evaluate):
    # two draws are too few to finish a game: most episodes end truncated
    result = evaluate.evaluate_agent(
        "empire_envs/EmpireSolo-v0", "random", 20, seed=0, env_kwargs={"length_limit": 2}
    )
    assert result["env_kwargs"] == {"length_limit": 2}
    assert result["truncations"] > 0
    assert result["wins"] + result["losses"] + result["truncations"] + result["illegal"] == 20


@pytest.mark.parametrize(
    "program", [["experiments/evaluate.py"], ["-m", "empire_envs", "evaluate"]], ids=["script", "module"]
)
def test_evaluate_command_json(tmp_path, program):
    """The script and ``python -m empire_envs evaluate``: the table, then the JSON alone on stdout."""
    out = tmp_path / "out.json"
    command = [
        sys.executable, *program,
        "--env", "empire_envs/EmpireSolo-v0", "--agent", "random", "--episodes", "20",
        "--seed", "0", "--json", str(out),
    ]
    completed = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert completed.returncode == 0, completed.stderr
    assert "random" in completed.stdout
    data = json.loads(out.read_text())
    (result,) = data["results"]
    assert result["agent"] == "random"
    assert result["wins"] + result["losses"] + result["truncations"] + result["illegal"] == 20

    # --json -: the JSON alone on stdout
    command[-1] = "-"
    completed = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert completed.returncode == 0, completed.stderr
    assert json.loads(completed.stdout)["results"][0]["episodes"] == 20


def test_evaluate_unknown_agent_is_a_clean_error(capsys):
    assert cli_main(["evaluate", "--agent", "nonsense", "--episodes", "1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("empire_envs evaluate: error: agent 'nonsense'") and err.count("\n") == 1


# --------------------------------------------------------------------------- bench (speed)


def _game_rows(game: GameEntry) -> set[str]:
    """The rows the speed benchmark promises every game of the registry."""
    key = game.key
    api = {f"gym_{key}"} if game.api == "gymnasium" else {f"pz_{key}", f"pz_{key}_raw", f"pz_{key}_stock"}
    return api | {f"raw_{key}_step", f"raw_{key}_apply", f"{key}_clone"}


PEERS = {"gym_blackjack", "pz_connect_four", "pz_connect_four_raw", "pz_texas_holdem", "pz_texas_holdem_raw"}


def test_bench_rows_come_from_the_registry(bench):
    names = [row.name for row in bench.benchmarks()]
    assert len(names) == len(set(names)), "a row name is given twice"
    assert set(names) == set().union(*(_game_rows(game) for game in GAMES)) | PEERS
    for game in GAMES:
        assert {row.name for row in bench.select([game.key])} == _game_rows(game)
        ratio_names = {name for name, *_ in bench.game_ratios(game)}
        assert f"raw_{game.key}_step / {'gym' if game.api == 'gymnasium' else 'pz'}_{game.key}" in ratio_names
        if game.speed_peer:
            assert game.speed_peer in PEERS
            assert f"raw_{game.key}_step / {game.speed_peer}" in ratio_names
    # the rows and ratios the README quotes
    ratios = {name for name, *_ in bench.ratios()}
    assert {
        "gym_solo / pz_connect_four", "raw_solo_step / gym_solo", "gym_solo / gym_blackjack",
        "pz_pillars_raw / pz_texas_holdem_raw", "pz_pillars_stock / pz_texas_holdem",
        "pz_map_duel_raw / pz_connect_four_raw", "raw_generals_step / pz_texas_holdem",
    } <= ratios
    for _, top, bottom, _ in bench.ratios():
        assert {top, bottom} <= set(names)


def test_bench_every_row_runs(bench):
    report = bench.run_benchmarks(0.03, warmup=0, log=None)
    ours = {name for game in GAMES for name in _game_rows(game)}
    assert set(report["results"]) == ours | PEERS
    for name, entry in report["results"].items():
        if "skipped" in entry:  # an optional peer that cannot be imported here
            assert name not in ours, entry
            continue
        if name.endswith("_clone"):
            assert entry["us_per_clone"] > 0 and entry["clones"] > 0
        else:
            assert entry["steps"] > 0 and entry["steps_per_second"] > 0
    expected_ratios = {
        ratio for ratio, top, bottom, _ in bench.ratios()
        if "skipped" not in report["results"][top] and "skipped" not in report["results"][bottom]
    }
    assert set(report["ratios"]) == expected_ratios
    assert "raw_solo_step / gym_solo" in report["ratios"]
    assert "solo_clone state.clone()" in bench.format_ratios(report)


def test_bench_command_json(tmp_path, capsys):
    out = tmp_path / "bench.json"
    assert cli_main(["bench", "--seconds", "0.02", "--only", "raw_solo_step,gym_solo", "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    assert set(report["results"]) == {"raw_solo_step", "gym_solo"}
    assert set(report["ratios"]) == {"raw_solo_step / gym_solo"}
    assert "raw_solo_step / gym_solo" in capsys.readouterr().out
    assert cli_main(["bench", "--only", "no_such_bench"]) == 2
    assert "no_such_bench" in capsys.readouterr().err


def test_bench_speed_only_selects(bench):
    assert [b.name for b in bench.select(["raw_solo_step"])] == ["raw_solo_step"]
    assert {b.name for b in bench.select(["peers"])} == PEERS
    assert {b.name for b in bench.select(["generals"])} == {
        "pz_generals", "pz_generals_raw", "pz_generals_stock", "raw_generals_step", "raw_generals_apply",
        "generals_clone",
    }
    # the selectors the README's commands use
    assert {"pz_pillars", "pillars_clone", "pz_texas_holdem"} <= {b.name for b in bench.select(["pillars,peers"])}
    assert {b.name for b in bench.select(["map_duel,pz_connect_four,pz_connect_four_raw"])} == (
        _game_rows(next(game for game in GAMES if game.key == "map_duel")) | {"pz_connect_four", "pz_connect_four_raw"}
    )
    assert "pz_texas_holdem_raw" in {b.name for b in bench.select(["generals,pz_texas_holdem,pz_texas_holdem_raw"])}
    with pytest.raises(ValueError):
        bench.select(["no_such_bench"])
    report = bench.run_benchmarks(0.02, ["raw_solo_apply"], warmup=0, log=None)
    assert list(report["results"]) == ["raw_solo_apply"]
    assert report["ratios"] == {}


def test_a_new_game_gets_its_rows_for_free(bench):
    """A table entry is all a game needs: its rows and ratios follow, and the raw-rules and clone
    rows run through its ``Game`` record (here Empire solo's rules under another key)."""
    twin = GameEntry(
        key="solo_twin", api="gymnasium", game="empire_envs.games.solo:GAME", class_name="SoloTwinEnv",
        variants=(Variant("SoloTwin-v0"),), speed_peer="pz_connect_four",
    )
    rows = {row.name: row for row in bench.game_benchmarks(twin)}
    assert set(rows) == _game_rows(twin)
    assert {name for name, *_ in bench.game_ratios(twin)} == {
        "gym_solo_twin / pz_connect_four", "raw_solo_twin_step / pz_connect_four",
        "raw_solo_twin_step / gym_solo_twin", "gym_solo_twin / gym_blackjack",
    }
    step = rows["raw_solo_twin_step"].run(0.02, 0)
    assert step["steps"] > 0 and step["episodes"] >= 1
    assert rows["solo_twin_clone"].run(0.02, 0)["states"] > 0


def test_bench_speed_repeat_reports_the_median_round(bench):
    report = bench.run_benchmarks(
        0.02, ["raw_solo_step", "raw_pillars_step"], warmup=0, log=None, repeat=3
    )
    for entry in report["results"].values():
        rounds = entry["steps_per_second_runs"]
        assert len(rounds) == 3
        assert entry["steps_per_second"] == sorted(rounds)[1]
    with pytest.raises(ValueError, match="repeat"):
        bench.run_benchmarks(0.02, ["raw_solo_step"], log=None, repeat=0)


def test_evaluate_passes_agent_settings(tmp_path):
    out = tmp_path / "ismcts.json"
    code = cli_main([
        "evaluate", "--env", "empire_envs/Pillars-v0", "--env-kwarg", "length_limit=2", "--agent", "ismcts",
        "--agent-kwarg", "iterations=3", "--episodes", "2", "--json", str(out),
    ])
    assert code == 0
    result = json.loads(out.read_text())["results"][0]
    assert result["agent_kwargs"] == {"iterations": 3} and result["episodes"] == 2
    assert cli_main([
        "evaluate", "--env", "empire_envs/Pillars-v0", "--agent", "ismcts", "--agent-kwarg", "no_such=1",
        "--episodes", "1",
    ]) == 2
    assert cli_main([
        "evaluate", "--env", "empire_envs/Pillars-v0", "--agent", "random", "--agent-kwarg", "iterations=3",
        "--episodes", "1",
    ]) == 2
