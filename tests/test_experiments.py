"""Smoke tests of the experiment scripts (seconds; speed is never asserted)."""

from __future__ import annotations

import importlib.util
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _load(name: str):
    """Import ``experiments/<name>.py`` (the folder is scripts, not a package)."""
    module_name = f"_experiments_{name}"
    if module_name in sys.modules:
        return sys.modules[module_name]
    spec = importlib.util.spec_from_file_location(module_name, ROOT / "experiments" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # dataclasses look their module up while the file runs
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def evaluate():
    return _load("evaluate")


@pytest.fixture(scope="module")
def bench():
    return _load("bench_speed")


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


def test_evaluate_script_json(tmp_path):
    out = tmp_path / "out.json"
    command = [
        sys.executable, str(ROOT / "experiments" / "evaluate.py"),
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


def test_evaluate_main_unknown_agent_is_a_clean_error(evaluate, capsys):
    assert evaluate.main(["--agent", "nonsense", "--episodes", "1"]) == 2
    assert "nonsense" in capsys.readouterr().err


# --------------------------------------------------------------------------- bench_speed


def test_bench_speed_produces_all_keys(bench, tmp_path):
    out = tmp_path / "bench.json"
    assert bench.main(["--seconds", "0.05", "--json", str(out)]) == 0
    report = json.loads(out.read_text())
    names = {b.name for b in bench.BENCHMARKS}
    assert set(report["results"]) == names
    ours = {b.name for b in bench.BENCHMARKS if "empire" in b.groups}
    assert {"gym_solo", "raw_solo_step", "solo_clone", "gym_solitaire", "pz_pillars", "pz_map_duel"} <= ours
    for name, entry in report["results"].items():
        if "skipped" in entry:  # an optional peer that cannot be imported here
            assert name not in ours, entry
            continue
        if name.endswith("_clone"):
            assert entry["us_per_clone"] > 0 and entry["clones"] > 0
        else:
            assert entry["steps"] > 0 and entry["steps_per_second"] > 0
    expected_ratios = {
        ratio for ratio, top, bottom, _ in bench.RATIOS
        if "skipped" not in report["results"][top] and "skipped" not in report["results"][bottom]
    }
    assert set(report["ratios"]) == expected_ratios
    assert "raw_solo_step / gym_solo" in report["ratios"]


def test_bench_speed_only_selects(bench):
    assert [b.name for b in bench.select(["raw_solo_step"])] == ["raw_solo_step"]
    assert {b.name for b in bench.select(["peers"])} == {
        "gym_blackjack", "pz_connect_four", "pz_connect_four_raw", "pz_texas_holdem",
        "pz_texas_holdem_raw",
    }
    assert {b.name for b in bench.select(["generals"])} == {
        "pz_generals", "pz_generals_raw", "pz_generals_stock", "raw_generals_step",
    }
    assert {b.name for b in bench.select(["map_duel"])} == {
        "pz_map_duel", "pz_map_duel_raw", "pz_map_duel_stock", "raw_map_duel_step",
    }
    assert {b.name for b in bench.select(["pillars"])} == {
        "pz_pillars", "pz_pillars_raw", "pz_pillars_stock", "raw_pillars_step", "pillars_clone",
    }
    with pytest.raises(ValueError):
        bench.select(["no_such_bench"])
    report = bench.run_benchmarks(0.02, ["raw_solo_apply"], warmup=0, log=None)
    assert list(report["results"]) == ["raw_solo_apply"]
    assert report["ratios"] == {}


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
    evaluate = _load("evaluate")
    out = tmp_path / "ismcts.json"
    code = evaluate.main([
        "--env", "empire_envs/Pillars-v0", "--env-kwarg", "length_limit=2", "--agent", "ismcts",
        "--agent-kwarg", "iterations=3", "--episodes", "2", "--json", str(out),
    ])
    assert code == 0
    result = json.loads(out.read_text())["results"][0]
    assert result["agent_kwargs"] == {"iterations": 3} and result["episodes"] == 2
    assert evaluate.main([
        "--env", "empire_envs/Pillars-v0", "--agent", "ismcts", "--agent-kwarg", "no_such=1",
        "--episodes", "1",
    ]) == 2
    assert evaluate.main([
        "--env", "empire_envs/Pillars-v0", "--agent", "random", "--agent-kwarg", "iterations=3",
        "--episodes", "1",
    ]) == 2
