"""What a newcomer meets in the first hour (issue 25): every missing extra named, agent settings
and ids accepted everywhere, one default for illegal actions, PettingZoo's conventions."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pettingzoo
import pytest

import empire_envs
from empire_envs.agents.base import agent_settings, make_agent
from empire_envs.cli import main
from empire_envs.core.extras import EXTRAS, MissingExtraError, require_extra
from empire_envs.evaluation import benchmark, evaluate

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
SOLO = "empire_envs/EmpireSolo-v0"
DUEL = "empire_envs/MapDuel-v0"


# --------------------------------------------------------------------------- extras


def test_every_extra_named_exists_in_pyproject_and_lists_its_modules() -> None:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert set(EXTRAS) <= set(extras)
    for extra, modules in EXTRAS.items():
        distributions = " ".join(extras[extra]).lower().replace("-", "_")
        for module in modules:
            # each module comes with a distribution of the extra; torch comes in as a dependency
            # of stable-baselines3 (train) and of ray's rllib (distributed)
            assert module in distributions or module == "torch", (extra, module)


def run_without(modules: list[str], code: str) -> subprocess.CompletedProcess[str]:
    """``code`` in a fresh interpreter where importing any of ``modules`` fails."""
    prelude = "import sys\n" + "".join(f"sys.modules[{name!r}] = None\n" for name in modules)
    return subprocess.run(
        [sys.executable, "-c", prelude + textwrap.dedent(code)], cwd=ROOT, capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize(
    ("missing", "argv", "extra"),
    [
        (["torch"], ["train", "--timesteps", "64"], "train"),
        (["sb3_contrib"], ["imitate", "--env", SOLO, "--teacher", "heuristic", "--out", "x"], "train"),
        (["torch"], ["demo", "--backend", "sb3"], "train"),
        (["jax"], ["train", "--backend", "jax"], "jax"),
        (["flax"], ["demo"], "jax"),
        (["ray"], ["train-rllib", "--env", SOLO], "distributed"),
    ],
    ids=["train", "imitate", "demo-sb3", "train-jax", "demo-jax", "train-rllib"],
)
def test_a_command_without_its_extra_names_the_extra(missing: list[str], argv: list[str], extra: str, tmp_path) -> None:
    result = run_without(
        missing,
        f"""
        import os
        os.chdir({str(tmp_path)!r})
        from empire_envs.cli import main
        raise SystemExit(main({argv!r}))
        """,
    )
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    assert f"pip install 'empire-envs[{extra}]'" in lines[0] and missing[0] in lines[0]
    assert not any(tmp_path.iterdir())  # refused before anything was written


def test_require_extra_names_what_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    require_extra("train", "training")  # installed in the test environment: no error
    monkeypatch.setitem(sys.modules, "pgx", None)
    with pytest.raises(
        MissingExtraError, match=r"the bench extra \(pgx not installed\): pip install 'empire-envs\[bench\]'"
    ):
        require_extra("bench", "the batched benchmark")


@pytest.mark.parametrize(("missing", "row"), [("rlcard", "_texas_holdem"), ("pygame", "_connect_four")])
def test_the_bench_peer_rows_name_the_bench_extra(missing: str, row: str) -> None:
    build = f"speed.{row}(False)()" if row == "_texas_holdem" else f"speed.{row}()"
    result = run_without(
        [
            missing,
            "pettingzoo.classic.rlcard_envs",
            "pettingzoo.classic.connect_four",
            "pettingzoo.classic.connect_four_v3",
        ],
        f"""
        from empire_envs.evaluation import speed
        try:
            {build}
        except speed.Skipped as skipped:
            print(skipped)
        """,
    )
    assert "pip install 'empire-envs[bench]'" in result.stdout, result.stdout + result.stderr


# --------------------------------------------------------------------------- agents


def test_an_agent_is_found_by_the_env_id_too() -> None:
    by_name = type(make_agent("heuristic", "map_duel"))
    assert type(make_agent("heuristic", DUEL)) is by_name
    assert type(make_agent("heuristic", "MapDuel-v0")) is by_name


def test_agent_settings_go_to_the_agents_that_take_them() -> None:
    settings = {"iterations": 3}
    assert agent_settings("ismcts", "map_duel", settings) == settings
    assert agent_settings("heuristic", "map_duel", settings) == {}
    assert agent_settings("random", "map_duel", settings) == {}


def test_benchmark_agent_kwarg_reaches_ismcts_and_leaves_the_heuristic(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[str, dict, str | None, dict]] = []
    real = evaluate.evaluate_agent

    def spy(env, spec, episodes, seed=0, env_kwargs=None, opponent=None, agent_kwargs=None, opponent_kwargs=None):
        seen.append((spec, dict(agent_kwargs or {}), opponent, dict(opponent_kwargs or {})))
        return real(env, spec, episodes, seed, env_kwargs, opponent, agent_kwargs, opponent_kwargs)

    monkeypatch.setattr(benchmark.run, "evaluate_agent", spy)  # where run_benchmark looks it up
    duel = benchmark.EnvVariant(DUEL, {"length_limit": 4}, "duel")
    benchmark.run_benchmark([duel], ["heuristic", "ismcts"], [0], 1, opponent="ismcts", log=None,
                            agent_kwargs={"iterations": 2})  # fmt: skip
    assert ("heuristic", {}, "ismcts", {"iterations": 2}) in seen
    assert ("ismcts", {"iterations": 2}, "ismcts", {"iterations": 2}) in seen


def test_benchmark_refuses_a_setting_no_agent_takes() -> None:
    with pytest.raises(benchmark.BenchmarkError, match="iterations"):
        benchmark.plan_benchmark([SOLO], ["random", "heuristic"], agent_kwargs={"iterations": 2})


def test_evaluate_refuses_an_opponent_on_a_one_seat_game(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ValueError, match="one-seat game"):
        evaluate.evaluate_agent(SOLO, "random", 1, opponent="heuristic")
    assert main(["evaluate", "--env", SOLO, "--episodes", "1", "--opponent", "heuristic"]) == 2
    assert "no seat for the opponent" in capsys.readouterr().err
    assert evaluate.evaluate_agent(SOLO, "random", 1)["opponent"] is None  # the default stays silent


def test_the_evaluate_command_train_prints_names_the_opponent_and_the_variant() -> None:
    from empire_envs.cli.training_commands import evaluate_command
    from empire_envs.training.config import load_config

    config = load_config(None, [("env_id", DUEL), ("env_kwargs.length_limit", 8), ("eval.opponents", ["heuristic"])])
    line = evaluate_command(config, "runs/duel/model.zip", multiplayer=True)
    assert line == (
        "python -m empire_envs evaluate --env empire_envs/MapDuel-v0 --agent random --agent ppo:runs/duel/model.zip "
        "--opponent heuristic --env-kwarg length_limit=8"
    )
    assert "--opponent" not in evaluate_command(load_config(None), "m.zip", multiplayer=False)


# --------------------------------------------------------------------------- PettingZoo


def test_pettingzoo_parallel_says_the_games_are_turn_based() -> None:
    empire_envs.register_all()
    with pytest.raises(NotImplementedError, match="turn-based.*aec_to_parallel"):
        pettingzoo.make("parallel", DUEL)
    assert pettingzoo.make("aec", DUEL).metadata["is_parallelizable"] is False


def test_the_readme_says_to_import_before_pettingzoo_make() -> None:
    readme = " ".join((ROOT / "README.md").read_text().split())
    assert "Import `empire_envs` before `pettingzoo.make`" in readme


def test_the_pgx_style_handle_has_a_version() -> None:
    jax_handles = pytest.importorskip("empire_envs.jax")
    assert jax_handles.make("EmpireSolo-v0").version == "v0"
