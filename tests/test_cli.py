"""The command-line tools: ``python -m empire_envs list | render | play`` and the experiment commands."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

import empire_envs
from empire_envs.cli import COMMANDS, main
from empire_envs.cli.common import resolve_entry
from empire_envs.cli.match import new_match
from empire_envs.cli.play import (
    Command,
    Invalid,
    Pick,
    PlaySession,
    parse_reply,
    result_line,
)
from empire_envs.registry import ENTRIES

ROOT = Path(__file__).resolve().parents[1]
IDS = [entry.env_id for entry in ENTRIES]


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "empire_envs", *args], cwd=ROOT, capture_output=True, text=True,
        timeout=120, check=False,
    )


def sizes(env_id: str) -> tuple[int, int]:
    """(actions, observation size) of an id, read from the env itself."""
    env = empire_envs.make(env_id)
    if env_id.startswith("empire_envs/") and hasattr(env, "possible_agents"):
        seat = env.possible_agents[0]
        return int(env.action_space(seat).n), int(env.observation_space(seat)["observation"].shape[0])
    return int(env.action_space.n), int(env.observation_space.shape[0])


# ---------------------------------------------------------------------- list and help


def test_list_names_every_id_with_its_sizes() -> None:
    result = run_cli("list")
    assert result.returncode == 0, result.stderr
    rows = {line.split()[0]: line.split() for line in result.stdout.splitlines()[1:]}
    assert list(rows) == IDS
    for env_id in IDS:
        actions, observation = sizes(env_id)
        assert rows[env_id][3:5] == [str(actions), str(observation)], rows[env_id]


def test_list_json_parses_and_matches_the_registry() -> None:
    result = run_cli("list", "--format", "json")
    assert result.returncode == 0, result.stderr
    rows = json.loads(result.stdout)
    assert [row["env_id"] for row in rows] == IDS
    for row, entry in zip(rows, ENTRIES, strict=True):
        assert row["api"] == entry.api
        assert row["kwargs"] == dict(entry.kwargs)
        assert (row["actions"], row["observation_size"]) == sizes(entry.env_id)
        assert row["players"] >= 1


@pytest.mark.parametrize("command", [[], ["list"], ["render"], ["play"]])
def test_help(command: list[str]) -> None:
    result = run_cli(*command, "--help")
    assert result.returncode == 0
    assert "usage:" in result.stdout
    if not command:
        for name in COMMANDS:
            assert f"    {name}" in result.stdout, f"--help does not list {name}"


#: the commands that run the experiments (the scripts of experiments/ call them; build_docs.py
#: runs docs/tools/build_site.py, a tool of the repository: tests/test_docs_site.py)
EXPERIMENT_COMMANDS = [
    "evaluate", "benchmark", "bench", "solvability", "fair-optimum", "deck-balance", "train", "imitate", "demo",
    "train-rllib", "gallery",
]


@pytest.mark.parametrize("command", EXPERIMENT_COMMANDS)
def test_experiment_command_help(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert command in COMMANDS
    with pytest.raises(SystemExit) as exit_info:
        main([command, "--help"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.startswith(f"usage: empire_envs {command} ")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["evaluate", "--agent", "nonsense", "--episodes", "1"], "agent 'nonsense'"),
        (["evaluate", "--episodes", "0"], "--episodes: must be at least 1"),
        (["benchmark", "--env", "empire_envs/EmpireSolo-v0", "--seeds", "0", "0"], "seed is given twice"),
        (["bench", "--only", "no_such_row"], "no_such_row"),
        (["bench", "--seconds", "0"], "must be positive"),
        (["solvability", "--deals", "0"], "must be at least 1"),
        (["deck-balance", "--games", "0"], "must be at least 1"),
        (["train", "--config", "no/such/config.toml"], "no config file"),
        (["train", "--set", "ppo.learnin_rate=1"], "unknown config key 'ppo.learnin_rate'"),
        (["imitate", "--env", "empire_envs/EmpireSolo-v0", "--teacher", "greedy", "--epochs", "0", "--out", "x"],
         "at least 1"),
    ],
)
def test_experiment_commands_bad_input_is_one_line_and_status_2(
    args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    try:
        status = main(args)
    except SystemExit as exit_info:  # argparse refused the value
        status = exit_info.code
    assert status == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err


# ---------------------------------------------------------------------- render


@pytest.mark.parametrize("env_id", IDS)
def test_render_png_and_gif_for_every_id(env_id: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    png, gif = tmp_path / "frame.png", tmp_path / "game.gif"
    assert main(["render", env_id, "--seed", "1", "--steps", "3", "--out", str(png)]) == 0
    assert main(["render", env_id, "--seed", "1", "--steps", "5", "--out", str(gif)]) == 0
    with Image.open(png) as image:
        assert image.format == "PNG"
        assert image.size[0] > 100 and image.size[1] > 100
        png_size = image.size
    with Image.open(gif) as image:
        assert image.format == "GIF"
        assert image.size == png_size
        assert getattr(image, "n_frames", 1) > 1
    assert "wrote" in capsys.readouterr().out


def test_render_png_at_step_zero_is_the_start_position(tmp_path: Path) -> None:
    out = tmp_path / "start.png"
    assert main(["render", "empire_envs/EmpireSolo-v0", "--seed", "4", "--steps", "0", "--out", str(out)]) == 0
    env = empire_envs.make("empire_envs/EmpireSolo-v0", render_mode="rgb_array")
    env.reset(seed=4)
    with Image.open(out) as image:
        assert (image.convert("RGB").tobytes()) == env.render().tobytes()


def test_render_heuristic_agent(tmp_path: Path) -> None:
    out = tmp_path / "h.gif"
    assert main(["render", "empire_envs/MapDuel-v0", "--agent", "heuristic", "--steps", "4",
                 "--out", str(out)]) == 0
    with Image.open(out) as image:
        assert getattr(image, "n_frames", 1) == 5


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["render", "empire_envs/NoSuchGame-v0", "--out", "x.png"], "unknown env id"),
        (["render", "empire_envs/EmpireSolo-v0", "--out", "x.jpg"], ".png or .gif"),
        (["render", "empire_envs/EmpireSolo-v0", "--out", "x.png", "--steps", "-2"], "0 or more"),
        (["render", "empire_envs/MapDuel-v0", "--out", "x.png", "--agent", "solver"],
         "its agents are: random, heuristic"),
        (["play", "empire_envs/MapDuel-v0", "--seat", "2"], "--seat must be"),
    ],
)
def test_bad_input_is_one_line_and_status_2(args: list[str], message: str) -> None:
    result = run_cli(*args)
    assert result.returncode == 2
    assert message in result.stderr
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


# ---------------------------------------------------------------------- play, in process


def test_parse_reply() -> None:
    assert parse_reply(" 2 ", 3) == Pick(2)
    assert parse_reply("U", 3) == Command("undo")
    assert parse_reply("q", 3) == Command("quit")
    assert parse_reply("h", 3) == Command("help")
    assert isinstance(parse_reply("3", 3), Invalid)
    assert isinstance(parse_reply("-1", 3), Invalid)
    assert isinstance(parse_reply("abc", 3), Invalid)
    assert isinstance(parse_reply("", 3), Invalid)


def test_result_line() -> None:
    assert result_line("won", 1.0, None) == "Result: you won (+1.0)"
    assert result_line("lost", -1.0, "won by player_1") == "Result: you lost (-1.0) - won by player_1"
    assert result_line("draw", 0.0, None) == "Result: draw (+0.0)"
    assert result_line("truncated", 0.0, None) == "Result: truncated (+0.0)"


class Script:
    """A ``read`` function: replies in order, then end of input; records each prompt's position."""

    def __init__(self, replies: list[str], session_holder: list[PlaySession]) -> None:
        self.replies = list(replies)
        self.holder = session_holder
        self.positions: list[tuple[str, list[tuple[int, int]]]] = []

    def __call__(self, prompt: str) -> str:
        match = self.holder[0].match
        self.positions.append((match.text(None), list(match.history)))
        if not self.replies:
            raise EOFError
        return self.replies.pop(0)


def scripted_session(
    env_id: str, replies: list[str], seed: int, opponents: str
) -> tuple[PlaySession, Script, io.StringIO]:
    match = new_match(resolve_entry(env_id), seed, "ansi")
    holder: list[PlaySession] = []
    script = Script(replies, holder)
    out = io.StringIO()
    seats = {seat: opponents for seat in range(1, match.players)}
    session = PlaySession(match, 0, seats, read=script, out=out)
    holder.append(session)
    return session, script, out


@pytest.mark.parametrize("env_id", ["empire_envs/Pillars-v0", "empire_envs/Generals-v0"])
def test_undo_restores_the_position_exactly(env_id: str) -> None:
    session, script, out = scripted_session(env_id, ["0", "1", "0", "u", "u", "q"], seed=5,
                                            opponents="heuristic")
    assert session.run() == 0
    # prompts: before moves 1, 2 and 3, before the first "u" (after move 3), after each undo
    before_move = script.positions[:3]
    assert script.positions[4] == before_move[2]  # text and history as before move 3
    assert script.positions[5] == before_move[1]  # ... and as before move 2
    assert "Result: abandoned" in out.getvalue()


def test_solo_game_played_to_the_end_prints_a_result() -> None:
    session, _, out = scripted_session("empire_envs/EmpireSolo-v0", ["0"] * 2000, seed=2,
                                       opponents="random")
    assert session.run() == 0
    assert "=== game over ===" in out.getvalue()
    assert out.getvalue().strip().splitlines()[-1].startswith("Result: ")


# ---------------------------------------------------------------------- play, in a terminal


def spawn_play(*args: str) -> tuple[Any, Any]:
    """pexpect and a child running ``python -m empire_envs play ARGS`` in a pseudo-terminal."""
    pexpect = pytest.importorskip("pexpect")
    return pexpect, pexpect.spawn(
        sys.executable, ["-m", "empire_envs", "play", *args], cwd=str(ROOT), encoding="utf-8",
        timeout=30,
    )


def test_play_solo_in_a_terminal() -> None:
    pexpect, child = spawn_play("empire_envs/EmpireSolo-v0", "--seed", "0")
    try:
        child.expect(r"Your move \[0-\d+, u, h, q\]: ")
        for _ in range(3):
            child.sendline("0")
            child.expect("=== your move #")
            child.expect(r"Your move \[")
        child.sendline("999")
        child.expect("No move number 999")
        child.sendline("abc")
        child.expect("Not a move or command: 'abc'")
        child.sendline("h")
        child.expect("undo your last move")
        child.sendline("u")
        child.expect("Undone: your last move")
        child.expect(r"=== your move #3 ")
        child.sendline("q")
        child.expect("Result: abandoned")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0


def test_play_multiplayer_in_a_terminal_ends_cleanly_on_eof() -> None:
    pexpect, child = spawn_play("empire_envs/MapDuel-v0", "--seed", "0", "--opponents", "random")
    try:
        child.expect("you are player_0")
        for _ in range(2):
            child.expect(r"Your move \[")
            child.sendline("0")
        child.expect(r"Your move \[")
        child.sendeof()
        child.expect("End of input")
        child.expect("Result: abandoned")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0
