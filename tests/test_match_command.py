"""``python -m empire_envs match``: agents against each other on the seats of a multiplayer game."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from empire_envs.agents.jax_ppo import layer_names, save_policy
from empire_envs.cli import main
from empire_envs.cli.common import CliError, resolve_entry
from empire_envs.cli.match_command import (
    AgentKwarg,
    MatchRequest,
    agent_kwarg,
    game_plan,
    seating,
    settings_per_agent,
)

MAP_DUEL = "empire_envs/MapDuel-v0"
PILLARS_3 = "empire_envs/Pillars3p-v0"
GAME_LINE = re.compile(r"^game (\d+)/(\d+)  seed (\d+)  (.+?)  ->  (.+?)  returns (.+?)  (\d+) decisions$")
OUTCOME_KEYS = ("wins", "draws", "losses", "truncations", "illegal", "other")


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """``main(argv)``'s status (argparse's exit too), stdout and stderr."""
    try:
        status = main(["match", *argv])
    except SystemExit as exit_info:
        status = int(exit_info.code or 0)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def game_lines(out: str) -> list[re.Match[str]]:
    return [match for line in out.splitlines() if (match := GAME_LINE.match(line))]


def summary_rows(out: str, labels: list[str]) -> dict[str, list[str]]:
    """The summary row of each agent, split into cells, by its label."""
    rows = {}
    for line in out.splitlines():
        for index, label in enumerate(labels):
            if line.startswith(f"{index} {label} "):
                rows[label] = line.split()
    return rows


def counts(row: list[str]) -> tuple[int, list[int]]:
    """(games, [wins, draws, losses]) of a printed summary row ``0 random 4 w s [a, b] d ...``."""
    games = int(row[2])
    numbers = [int(row[3 + 4 * k]) for k in range(3)]
    return games, numbers


@pytest.fixture(scope="module")
def policy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A Map Duel policy file with random weights (hidden layer of 8), written by ``save_policy``."""
    rng = np.random.default_rng(0)
    observation_size, num_actions, hidden = 3400, 396, [8]
    arrays: dict[str, np.ndarray] = {}
    for network, outputs in (("actor", num_actions), ("critic", 1)):
        widths = [observation_size, *hidden, outputs]
        for index, prefix in enumerate(layer_names(network, hidden)):
            arrays[f"{prefix}/kernel"] = rng.normal(0.0, 0.5, (widths[index], widths[index + 1])).astype(np.float32)
            arrays[f"{prefix}/bias"] = rng.normal(0.0, 0.5, widths[index + 1]).astype(np.float32)
    metadata = {
        "env_id": MAP_DUEL,
        "observation_size": observation_size,
        "num_actions": num_actions,
        "hidden_sizes": hidden,
        "activation": "tanh",
    }
    return save_policy(tmp_path_factory.mktemp("policy") / "policy.npz", arrays, metadata)


# --------------------------------------------------------------------------- games and summary


def test_a_swapped_map_duel_match_prints_every_game_and_a_summary_that_adds_up(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, err = run(["MapDuel-v0", "random", "heuristic", "--games", "2", "--swap", "--seed", "5"], capsys)
    assert status == 0, err
    lines = game_lines(out)
    assert [int(line[1]) for line in lines] == [1, 2, 3, 4]
    assert {int(line[2]) for line in lines} == {4}
    assert [int(line[3]) for line in lines] == [5, 5, 6, 6]  # deal seed + g, each deal in both seatings
    assert [line[4] for line in lines] == [
        "player_0 random, player_1 heuristic",
        "player_0 heuristic, player_1 random",
    ] * 2
    rows = summary_rows(out, ["random", "heuristic"])
    wins: dict[str, int] = {}
    for label in ("random", "heuristic"):
        games, (won, drawn, lost) = counts(rows[label])
        assert games == 4
        assert won + drawn + lost <= games
        wins[label] = won
    # every game has one line, and the summary counts what the lines say
    winners = [line[5] for line in lines]
    assert wins["heuristic"] == sum(" (heuristic) won" in text for text in winners)
    assert wins["random"] == sum(" (random) won" in text for text in winners)
    assert counts(rows["random"])[1][2] == wins["heuristic"]  # two seats: one's win is the other's loss


def test_the_same_command_plays_the_same_games(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["MapDuel-v0", "random", "random", "--games", "2", "--seed", "3"]
    first = run(argv, capsys)
    second = run(argv, capsys)
    assert first[0] == 0 and first == second
    assert len(game_lines(first[1])) == 2  # no --swap: one game a deal


def test_the_plan_rotates_every_seat_on_every_deal() -> None:
    request = MatchRequest(resolve_entry(PILLARS_3), ("random",) * 3, games=2, seed=10, swap=True)
    assert game_plan(request, 3) == [(10, 0), (10, 1), (10, 2), (11, 0), (11, 1), (11, 2)]
    assert [seating(rotation, 3) for rotation in range(3)] == [[0, 1, 2], [2, 0, 1], [1, 2, 0]]
    for seat in range(3):  # every agent holds every seat once over the rotations
        assert sorted(seating(rotation, 3)[seat] for rotation in range(3)) == [0, 1, 2]
    plain = MatchRequest(resolve_entry(PILLARS_3), ("random",) * 3, games=2, seed=10)
    assert game_plan(plain, 3) == [(10, 0), (11, 0)]


def test_three_random_agents_play_pillars(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run([PILLARS_3, "random", "random", "random", "--games", "1"], capsys)
    assert status == 0, err
    (line,) = game_lines(out)
    assert line[4] == "player_0 random#0, player_1 random#1, player_2 random#2"
    assert len(line[6].split()) == 3  # one return per seat
    rows = summary_rows(out, ["random#0", "random#1", "random#2"])
    assert len(rows) == 3
    total_wins = 0
    for row in rows.values():
        games, (won, drawn, lost) = counts(row)
        assert games == 1 and won + drawn + lost <= 1
        total_wins += won
    assert total_wins == (1 if " won" in line[5] else 0)


def test_render_text_prints_each_final_position(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(["MapDuel-v0", "heuristic", "heuristic", "--games", "2", "--render", "text"], capsys)
    assert status == 0, err
    assert out.count("Map Duel 13x13: phase over") == 2
    assert len(game_lines(out)) == 2


def test_render_steps_prints_every_move(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(["MapDuel-v0", "heuristic", "random", "--seed", "1", "--render", "steps"], capsys)
    assert status == 0, err
    (line,) = game_lines(out)
    moves = [text for text in out.splitlines() if re.match(r"^player_[01] \((heuristic|random)\): ", text)]
    assert len(moves) == int(line[7])
    assert out.count("Map Duel 13x13:") == len(moves) + 1  # the start position and one after each move


# --------------------------------------------------------------------------- file agents


def test_a_policy_file_plays_as_jaxppo(policy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = f"jaxppo:{policy}"
    status, out, err = run(["MapDuel-v0", spec, "heuristic", "--games", "1", "--swap"], capsys)
    assert status == 0, err
    lines = game_lines(out)
    assert [line[4] for line in lines] == [
        f"player_0 {spec}, player_1 heuristic",
        f"player_0 heuristic, player_1 {spec}",
    ]
    games, outcomes = counts(summary_rows(out, [spec, "heuristic"])[spec])
    assert games == 2 and sum(outcomes) <= 2


# --------------------------------------------------------------------------- settings


def test_agent_kwarg_reads_shared_and_numbered_settings() -> None:
    assert agent_kwarg("iterations=50") == AgentKwarg(None, "iterations", 50)
    assert agent_kwarg("1:iterations=50") == AgentKwarg(1, "iterations", 50)
    assert agent_kwarg("name=a:b") == AgentKwarg(None, "name", "a:b")
    for bad in ("x:iterations=5", "-1:iterations=5", "1:iterations", "1:=5"):
        with pytest.raises(argparse.ArgumentTypeError):
            agent_kwarg(bad)


def test_a_shared_setting_reaches_only_the_agents_that_take_it() -> None:
    specs = ["ismcts", "heuristic"]
    shared = settings_per_agent(specs, "map_duel", [AgentKwarg(None, "iterations", 7)])
    assert shared == [{"iterations": 7}, {}]
    numbered = settings_per_agent(
        specs, "map_duel", [AgentKwarg(None, "iterations", 7), AgentKwarg(0, "iterations", 3)]
    )
    assert numbered == [{"iterations": 3}, {}]  # the numbered setting wins
    with pytest.raises(CliError, match="no agent of ismcts, heuristic takes 'depth'"):
        settings_per_agent(specs, "map_duel", [AgentKwarg(None, "depth", 2)])
    with pytest.raises(CliError, match="there are 2 agents, numbered 0..1"):
        settings_per_agent(specs, "map_duel", [AgentKwarg(2, "iterations", 3)])


def test_settings_reach_the_agent_and_the_json(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(
        ["MapDuel-v0", "heuristic", "ismcts", "--agent-kwarg", "1:iterations=4", "--json", "-"], capsys
    )
    assert status == 0, err
    report = json.loads(out)
    assert [agent["settings"] for agent in report["agents"]] == [{}, {"iterations": 4}]
    assert len(game_lines(err)) == 1  # the text went to stderr


# --------------------------------------------------------------------------- the JSON file


def test_the_json_file_holds_what_was_printed_and_is_not_overwritten(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "games.json"
    status, out, err = run(
        ["MapDuel-v0", "random", "heuristic", "--games", "2", "--swap", "--json", str(target)], capsys
    )
    assert status == 0, err
    report: dict[str, Any] = json.loads(target.read_text())
    printed = [line[0] for line in game_lines(out)]
    assert [game["line"] for game in report["games"]] == printed
    for game, line in zip(report["games"], game_lines(out), strict=True):
        assert game["seed"] == int(line[3]) and game["decisions"] == int(line[7])
        assert game["outcome"] == line[5]
        assert " ".join(f"{seat['return']:+.1f}" for seat in game["seats"]) == line[6]
        assert ", ".join(f"{seat['seat']} {seat['label']}" for seat in game["seats"]) == line[4]
        assert sum(seat["decisions"] for seat in game["seats"]) == game["decisions"]
    for row, label in zip(report["summary"], ["random", "heuristic"], strict=True):
        assert row["label"] == label and row["games"] == 4
        assert sum(row.get(key, 0) for key in OUTCOME_KEYS) == 4
        assert counts(summary_rows(out, ["random", "heuristic"])[label]) == (
            4,
            [row["wins"], row["draws"], row["losses"]],
        )
        low, high = row["wins_ci95"]
        assert 0.0 <= low <= row["wins"] / 4 <= high <= 1.0
    assert report["command"].startswith("python -m empire_envs match MapDuel-v0 random heuristic")

    before = target.read_bytes()
    status, out, err = run(["MapDuel-v0", "random", "random", "--json", str(target)], capsys)
    assert status == 2 and "exists; pass --overwrite" in err
    assert not game_lines(out)  # refused before any game
    assert target.read_bytes() == before
    status, out, err = run(
        ["MapDuel-v0", "random", "random", "--seed", "9", "--json", str(target), "--overwrite"], capsys
    )
    assert status == 0, err
    assert json.loads(target.read_text())["seed"] == 9
    assert sorted(path.name for path in tmp_path.iterdir()) == ["games.json"]  # no temporary file left


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["EmpireSolo-v0", "random"], "is a one-seat game; match plays agents against each other"),
        (["EmpireSolo-v0", "random"], "python -m empire_envs evaluate --env empire_envs/EmpireSolo-v0"),
        (["Pillars-v0", "random", "heuristic"], "has 4 seats: give 4 agents, one per seat in seat order (got 2)"),
        (["MapDuel-v0", "random", "random", "random"], "has 2 seats: give 2 agents"),
        (["MapDuel-v0", "random", "nonsense"], "has no agent 'nonsense'; its agents are: random, heuristic, ismcts"),
        (["MapDuel-v0", "pretrained:EmpireSolo-v0", "random"], "agent 'pretrained:EmpireSolo-v0' cannot play"),
        (["MapDuel-v0", "jaxppo:no/such/policy.npz", "random"], "agent 'jaxppo:no/such/policy.npz' cannot play"),
        (["MapDuel-v0", "random", "random", "--agent-kwarg", "iterations=3"], "no agent of random, random takes"),
        (["MapDuel-v0", "random", "heuristic", "--agent-kwarg", "1:bogus=3"], "bad settings for agent 'heuristic'"),
        (["MapDuel-v0", "random", "random", "--agent-kwarg", "5:x=3"], "there are 2 agents"),
        (["MapDuel-v0", "random", "random", "--agent-kwarg", "a:x=3"], "expected N:KEY=VALUE"),
        (["MapDuel-v0", "random", "random", "--overwrite"], "--overwrite goes with --json PATH"),
        (["MapDuel-v0", "random", "random", "--games", "0"], "argument --games"),
        (["MapDuel-v0", "random", "random", "--render", "gif"], "argument --render"),
        (["NoSuchGame-v0", "random", "random"], "unknown env id 'NoSuchGame-v0'"),
    ],
)
def test_bad_input_is_one_line_and_status_2(argv: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(argv, capsys)
    assert status == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert lines[0].startswith("empire_envs match: error: ") and message in lines[0], err
    assert not game_lines(out)


def test_a_policy_of_another_game_is_refused(policy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spec = f"jaxppo:{policy}"
    status, out, err = run([PILLARS_3, spec, "random", "random"], capsys)
    assert status == 2, (out, err)
    assert err.startswith(f"empire_envs match: error: agent {spec!r} cannot play {PILLARS_3}: ")
    assert len(err.strip().splitlines()) == 1 and not game_lines(out)
