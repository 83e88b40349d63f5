"""Every command-line command against bad input (issue 24, item 8).

What a user may type wrongly, class by class: NaN, infinities, negative, zero, fractional, huge
and non-numeric values for every count, time, share and seed; an unwritable or impossible output
path; an output folder holding a user's files, with and without ``--overwrite``; bad training
settings. Each must give one line ``empire_envs COMMAND: error: ...`` on stderr and exit status 2,
before any work starts, and must leave every file that was there before exactly as it was.

The numeric cases are read from the parser itself: every argument of every command whose type is
one of ``empire_envs.cli.arguments``'s gets every bad value of its class, so a new flag is tried
without any change here, and a flag with a bare ``int`` or ``float`` type fails a test.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from empire_envs.cli import arguments, build_parser, main
from empire_envs.training import run_folder

SOLO = "empire_envs/EmpireSolo-v0"

#: what each command needs besides the flag under test
REQUIRED: dict[str, list[str]] = {
    "match": ["empire_envs/MapDuel-v0", "random", "random"],
    "render": [SOLO, "--out", "frame.png"],
    "play": [SOLO],
    "benchmark": ["--env", SOLO],
    "imitate": ["--env", SOLO, "--teacher", "heuristic", "--out", "student"],
    "train-rllib": ["--env", SOLO],
}

#: the bad values of each argument type, by class
HUGE = str(2**80)
BAD_VALUES: dict[Callable[[str], Any], dict[str, str]] = {
    arguments.positive_int: {
        "zero": "0",
        "negative": "-3",
        "nan": "nan",
        "inf": "inf",
        "fraction": "2.5",
        "word": "ten",
        "huge": HUGE,
    },
    arguments.non_negative_int: {
        "negative": "-1",
        "nan": "nan",
        "inf": "inf",
        "fraction": "0.5",
        "word": "x",
        "huge": HUGE,
    },
    arguments.seed_int: {"negative": "-1", "nan": "nan", "inf": "inf", "fraction": "1.5", "word": "seed"},
    arguments.positive_float: {"zero": "0", "negative": "-1", "nan": "nan", "inf": "inf", "-inf": "-inf", "word": "x"},
    arguments.share: {"negative": "-0.1", "above one": "1.5", "nan": "nan", "inf": "inf", "word": "half"},
    arguments.non_negative_float: {"negative": "-0.5", "nan": "nan", "inf": "inf", "word": "heavy"},
}


def subcommands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def option_actions() -> list[tuple[str, argparse.Action]]:
    """(command, action) for every optional argument that takes a value."""
    return [
        (name, action)
        for name, sub in subcommands().items()
        for action in sub._actions
        if action.option_strings and action.nargs != 0 and not isinstance(action, argparse._HelpAction)
    ]


def numeric_cases() -> list[Any]:
    return [
        pytest.param(command, action.option_strings[0], value, id=f"{command}-{action.option_strings[0]}-{label}")
        for command, action in option_actions()
        if action.type in BAD_VALUES
        for label, value in BAD_VALUES[action.type].items()
    ]


def snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Every file under ``folder``: its bytes and modification time."""
    return {
        str(path.relative_to(folder)): (path.read_bytes(), path.stat().st_mtime_ns)
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def run_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """``main(argv)``'s status (argparse's exit too) and stderr."""
    try:
        status = main(argv)
    except SystemExit as exit_info:
        status = int(exit_info.code or 0)
    return status, capsys.readouterr().err


def assert_one_line_error(command: str, status: int, err: str, *fragments: str) -> None:
    assert status == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert lines[0].startswith(f"empire_envs {command}: error: "), err
    for fragment in fragments:
        assert fragment in lines[0], (fragment, err)


@pytest.fixture
def user_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working folder holding a user's files: ``keep/notes.txt`` and a plain file ``a_file``;
    the tests run inside it."""
    (tmp_path / "keep").mkdir()
    (tmp_path / "keep" / "notes.txt").write_text("my notes\n")
    (tmp_path / "a_file").write_text("data\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


# --------------------------------------------------------------------------- numbers


def test_every_number_argument_has_a_checked_type() -> None:
    """No count, time or seed is read with a bare int or float: each goes through a type of
    ``cli.arguments`` (or is a closed set of choices), so the cases below cover it."""
    loose = [
        f"{command} {action.option_strings[0]}"
        for command, action in option_actions()
        if action.type in (int, float) and not action.choices
    ]
    assert not loose, loose


def test_the_numeric_cases_reach_every_command_with_numbers() -> None:
    commands = {case.values[0] for case in numeric_cases()}
    assert commands >= {"render", "play", "evaluate", "benchmark", "bench", "solvability", "fair-optimum"}
    assert commands >= {"deck-balance", "train", "imitate", "demo", "train-rllib"}


@pytest.mark.parametrize(("command", "flag", "value"), numeric_cases())
def test_a_bad_number_is_one_line_and_status_2(
    command: str, flag: str, value: str, user_files: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = snapshot(user_files)
    status, err = run_cli([command, *REQUIRED.get(command, []), flag, value], capsys)
    assert_one_line_error(command, status, err, f"argument {flag}")
    assert snapshot(user_files) == before


@pytest.mark.parametrize("seconds", ["nan", "inf"])
def test_fair_optimum_refuses_endless_seconds(seconds: str, capsys: pytest.CaptureFixture[str]) -> None:
    status, err = run_cli(["fair-optimum", "--deals", "1", "--seconds", seconds], capsys)
    assert_one_line_error("fair-optimum", status, err, "finite")


def test_fair_optimum_refuses_a_negative_seed(capsys: pytest.CaptureFixture[str]) -> None:
    status, err = run_cli(["fair-optimum", "--deals", "1", "--seed", "-1"], capsys)
    assert_one_line_error("fair-optimum", status, err, "seed must be 0 or more")


@pytest.mark.parametrize("flag", ["--value-one-share", "--reveal-last-share"])
def test_fair_optimum_test_shares_are_the_compiled_engines(flag: str, capsys: pytest.CaptureFixture[str]) -> None:
    status, err = run_cli(["fair-optimum", "--deals", "1", flag, "0.5"], capsys)
    assert_one_line_error("fair-optimum", status, err, "--engine compiled")


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--regret-agent", "no-such-agent"], "unknown agent"),
        (["--regret-agent", "reveal-solve", "--after-reveals", "1"], "whole deals"),
    ],
)
def test_fair_optimum_refuses_a_bad_regret_agent_before_searching(
    flags: list[str], message: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_search(*args, **kwargs):
        raise AssertionError("the searches started")

    monkeypatch.setattr("empire_envs.evaluation.fair_optimum.run", no_search)
    status, err = run_cli(["fair-optimum", "--deals", "1", *flags], capsys)
    assert_one_line_error("fair-optimum", status, err, message)


def test_a_huge_seed_is_a_seed() -> None:
    assert arguments.seed_int(str(2**70)) == 2**70


# --------------------------------------------------------------------------- output files


#: every command with --json, each with the work that must not start when the path is bad
JSON_COMMANDS = {
    "evaluate": "empire_envs.cli.evaluation_commands.evaluate_agent",
    "benchmark": "empire_envs.evaluation.benchmark.benchmark_report",
    "bench": "empire_envs.evaluation.speed.run_benchmarks",
    "solvability": "empire_envs.evaluation.solvability.run",
    "fair-optimum": "empire_envs.evaluation.fair_optimum.run",
    "match": "empire_envs.cli.match_command.play_games",
}

BAD_FILES = {
    "under a file": "a_file/out.json",
    "a folder": "keep",
    "missing folder": "no/such/folder/out.json",
}


def test_the_json_commands_are_every_command_with_json() -> None:
    with_json = {command for command, action in option_actions() if "--json" in action.option_strings}
    assert with_json == set(JSON_COMMANDS)


@pytest.mark.parametrize("where", list(BAD_FILES))
@pytest.mark.parametrize("command", list(JSON_COMMANDS))
def test_an_unwritable_json_path_fails_before_the_work(
    command: str, where: str, user_files: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    work = JSON_COMMANDS[command]

    def must_not_run(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError(f"{work} ran before --json was checked")

    monkeypatch.setattr(work, must_not_run)
    before = snapshot(user_files)
    status, err = run_cli([command, *REQUIRED.get(command, []), "--json", BAD_FILES[where]], capsys)
    assert_one_line_error(command, status, err)
    assert snapshot(user_files) == before


def test_an_existing_json_file_is_checked_without_being_changed(user_files: Path) -> None:
    arguments.check_output_file(user_files / "a_file")
    assert (user_files / "a_file").read_text() == "data\n"
    arguments.check_output_file(user_files / "new.json")
    assert not (user_files / "new.json").exists()  # the check leaves nothing behind
    assert sorted(os.listdir(user_files)) == ["a_file", "keep"]


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="needs a folder nobody can write in (/proc)")
def test_a_folder_nobody_can_write_in_is_refused_even_for_root() -> None:
    with pytest.raises(arguments.CliError, match="cannot write in /proc"):
        arguments.check_output_file("/proc/out.json")
    with pytest.raises(arguments.CliError, match="cannot write in /proc"):
        arguments.check_output_folder("/proc/run")


@pytest.mark.parametrize(
    "argv",
    [
        ["render", SOLO, "--out", "a_file/frame.png"],
        ["benchmark", "--env", SOLO, "--out", "a_file"],
        ["deck-balance", "--out", "a_file"],
        ["gallery", "--out", "a_file"],
        ["train-rllib", "--env", SOLO, "--out", "keep"],
    ],
    ids=lambda argv: argv[0],
)
def test_an_output_folder_that_cannot_be_used_is_refused_first(
    argv: list[str], user_files: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = snapshot(user_files)
    status, err = run_cli(argv, capsys)
    assert_one_line_error(argv[0], status, err)
    assert snapshot(user_files) == before


# --------------------------------------------------------------------------- run folders


#: the commands that write a training run, each with arguments that would train for a moment
RUN_COMMANDS = {
    "train": ["train", "--timesteps", "64", "--no-progress", "--set", "eval.freq=0", "--set", "checkpoint.freq=0"],
    "train-jax": ["train", "--backend", "jax", "--timesteps", "64", "--no-progress"],
    "demo": ["demo", "--backend", "sb3", "--timesteps", "64", "--episodes", "1", "--no-progress"],
    "imitate": ["imitate", "--env", SOLO, "--teacher", "heuristic", "--episodes", "1", "--epochs", "1"],
}


@pytest.mark.parametrize("overwrite", [[], ["--overwrite"]], ids=["plain", "overwrite"])
@pytest.mark.parametrize("name", list(RUN_COMMANDS))
def test_a_folder_with_a_users_files_is_never_touched(
    name: str, overwrite: list[str], user_files: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = snapshot(user_files)
    argv = RUN_COMMANDS[name]
    status, err = run_cli([*argv, "--out", "keep", *overwrite], capsys)
    assert_one_line_error(argv[0], status, err, "notes.txt", "nothing was changed")
    assert snapshot(user_files) == before


@pytest.mark.parametrize("name", list(RUN_COMMANDS))
@pytest.mark.parametrize("where", ["a_file", "a_file/run", "/proc/run"])
def test_a_run_folder_that_cannot_be_written_is_one_line(
    name: str, where: str, user_files: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = snapshot(user_files)
    argv = RUN_COMMANDS[name]
    status, err = run_cli([*argv, "--out", where], capsys)
    assert_one_line_error(argv[0], status, err)
    assert snapshot(user_files) == before


def fake_run(user_files: Path) -> Path:
    """A folder holding an earlier run of ours (its files only)."""
    run = user_files / "old_run"
    (run / "checkpoints").mkdir(parents=True)
    (run / "config.json").write_text("{}\n")
    (run / "progress.csv").write_text("timesteps\n")
    (run / "checkpoints" / "model_64_steps.zip").write_bytes(b"old")
    return run


#: settings that are wrong, each with what the message names; each is refused before a folder
#: is claimed, so an earlier run given with --overwrite survives it
BAD_SETTINGS = {
    "env kwarg": (["--set", "env_kwargs.bogus=1"], "bogus"),
    "gamma": (["--set", "ppo.gamma=5"], "ppo.gamma"),
    "clip range": (["--set", "ppo.clip_range=-1"], "ppo.clip_range"),
    "learning rate": (["--set", "ppo.learning_rate=-1"], "ppo.learning_rate"),
    "seed": (["--set", "seed=-1"], "seed"),
    "opponent": (["--set", 'eval.opponents=["nobody"]'], "nobody"),
}
HUGE_RUNS = {"train": "n_envs=10000000", "train-jax": "num_envs=10000000"}


def bad_setting_cases() -> list[Any]:
    cases = [
        pytest.param(name, flags, fragment, id=f"{name}-{label}")
        for name in ("train", "train-jax", "demo")
        for label, (flags, fragment) in BAD_SETTINGS.items()
        if not (name == "train-jax" and label == "opponent")  # the jax trainer has no opponents
    ]
    return cases + [
        pytest.param(name, ["--set", setting], "memory", id=f"{name}-too big") for name, setting in HUGE_RUNS.items()
    ]


@pytest.mark.parametrize(("name", "flags", "fragment"), bad_setting_cases())
def test_a_bad_setting_is_refused_before_an_earlier_run_is_replaced(
    name: str, flags: list[str], fragment: str, user_files: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fake_run(user_files)
    before = snapshot(user_files)
    argv = RUN_COMMANDS[name]
    status, err = run_cli([*argv, *flags, "--out", "old_run", "--overwrite"], capsys)
    assert_one_line_error(argv[0], status, err, fragment)
    assert snapshot(user_files) == before


def test_a_run_is_replaced_only_with_overwrite(user_files: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = fake_run(user_files)
    argv = RUN_COMMANDS["train"]
    status, err = run_cli([*argv, "--out", "old_run"], capsys)
    assert_one_line_error("train", status, err, "already holds a run", "--overwrite")
    assert (run / "checkpoints" / "model_64_steps.zip").read_bytes() == b"old"
    assert main([*argv, "--out", "old_run", "--overwrite"]) == 0
    assert not (run / "checkpoints").exists()  # the earlier run's files are gone, the new run's are there
    assert {"config.json", "model.zip", "summary.json"} <= set(os.listdir(run))


def test_a_failed_start_leaves_nothing_that_blocks_the_next_run(
    user_files: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from empire_envs.training import train as train_module

    real_train = train_module.train

    def fails_after_writing(config: Any, out: Path, **kwargs: Any) -> Any:
        (out / "config.json").write_text("{}\n")
        (out / "progress.csv").write_text("timesteps\n")
        raise ValueError("the env broke at its first reset")

    monkeypatch.setattr(train_module, "train", fails_after_writing)
    argv = [*RUN_COMMANDS["train"], "--out", "runs/first"]
    status, err = run_cli(argv, capsys)
    assert_one_line_error("train", status, err, "the env broke")
    assert not (user_files / "runs").exists()  # the folders the start made are gone too
    monkeypatch.setattr(train_module, "train", real_train)
    assert main(argv) == 0  # no --overwrite needed: nothing was left


def test_a_failed_run_keeps_what_it_saved(user_files: Path) -> None:
    with pytest.raises(RuntimeError), run_folder.run_folder(user_files / "run", overwrite=False) as folder:
        (folder.path / "config.json").write_text("{}\n")
        (folder.path / "model.zip").write_bytes(b"weights")
        raise RuntimeError("crashed after saving")
    assert (user_files / "run" / "model.zip").read_bytes() == b"weights"


def test_a_run_folder_is_recognised_by_its_files_alone(tmp_path: Path) -> None:
    run = tmp_path / "run"
    for name in ("config.json", "progress.csv", "events.out.tfevents.1.host", "learning_curve.png", "policy.npz"):
        (run / name).parent.mkdir(parents=True, exist_ok=True)
        (run / name).write_text("")
    for name in (
        "eval/evaluations.npz",
        "checkpoints/model_64_steps.zip",
        "checkpoints/policy_64.npz",
        "tb/events.out.tfevents.2.host",
    ):
        (run / name).parent.mkdir(parents=True, exist_ok=True)
        (run / name).write_text("")
    assert run_folder.foreign_entries(run) == []
    (run / "checkpoints" / "mine.txt").write_text("")
    (run / "data").mkdir()
    assert run_folder.foreign_entries(run) == ["checkpoints/mine.txt", "data/"]


def test_experiments_demo_replaces_only_its_own_folder(monkeypatch: pytest.MonkeyPatch) -> None:
    """``make demo`` reruns into runs/demo (--overwrite); a folder the user names is replaced
    only when the user says --overwrite too."""
    import importlib.util

    path = Path(__file__).resolve().parents[1] / "experiments" / "demo.py"
    spec = importlib.util.spec_from_file_location("experiments_demo", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    seen: list[list[str]] = []
    monkeypatch.setattr(module, "cli_main", lambda argv: seen.append(argv) or 0)
    module.main([])
    module.main(["--out", "mine"])
    assert "--overwrite" in seen[0] and "--overwrite" not in seen[1]


# --------------------------------------------------------------------------- smaller


def test_bench_refuses_batched_flags_without_batched(capsys: pytest.CaptureFixture[str]) -> None:
    for flags in (["--env", "empire_envs/Nope-v0"], ["--peers", "nope"]):
        status, err = run_cli(["bench", *flags], capsys)
        assert_one_line_error("bench", status, err, flags[0], "--batched")


def test_evaluate_refuses_a_factory_that_makes_no_env(capsys: pytest.CaptureFixture[str]) -> None:
    status, err = run_cli(["evaluate", "--env", "os:getcwd", "--episodes", "1"], capsys)
    assert_one_line_error("evaluate", status, err, "os:getcwd", "not an env")


def test_evaluate_help_is_plain_and_names_every_agent_kind(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["evaluate", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "%%" not in text and "95% Wilson" in text
    for prefix in ("ppo:PATH", "jaxppo:PATH", "pretrained:ENV_ID"):
        assert prefix in text
