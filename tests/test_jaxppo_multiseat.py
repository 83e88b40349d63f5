"""A compiled-PPO policy file (``jaxppo:PATH``) of Map Duel, a two-seat game, plays whole games
through ``evaluate`` (on either seat, as the agent or as the opponent), a match with the policy
on every seat, and ``play`` against a human. The policy has random weights (hidden layer of 8):
what is tested is that it plays, legally, from every seat."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest

from empire_envs.agents.base import make_agent
from empire_envs.agents.jax_ppo import JaxPPOAgent, layer_names, save_policy
from empire_envs.cli import main as cli_main
from empire_envs.cli.common import choose, resolve_entry
from empire_envs.cli.match import new_match
from empire_envs.evaluation.evaluate import evaluate_agent

MAP_DUEL = "empire_envs/MapDuel-v0"
OBSERVATION_SIZE = 3400
NUM_ACTIONS = 396
HIDDEN = [8]


@pytest.fixture(scope="module")
def policy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A Map Duel policy file with random weights, written by ``save_policy``."""
    rng = np.random.default_rng(0)
    arrays: dict[str, np.ndarray] = {}
    for network, outputs in (("actor", NUM_ACTIONS), ("critic", 1)):
        widths = [OBSERVATION_SIZE, *HIDDEN, outputs]
        for index, prefix in enumerate(layer_names(network, HIDDEN)):
            arrays[f"{prefix}/kernel"] = rng.normal(0.0, 0.5, (widths[index], widths[index + 1])).astype(np.float32)
            arrays[f"{prefix}/bias"] = rng.normal(0.0, 0.5, widths[index + 1]).astype(np.float32)
    metadata = {
        "env_id": MAP_DUEL,
        "observation_size": OBSERVATION_SIZE,
        "num_actions": NUM_ACTIONS,
        "hidden_sizes": HIDDEN,
        "activation": "tanh",
    }
    return save_policy(tmp_path_factory.mktemp("policy") / "policy.npz", arrays, metadata)


@pytest.fixture
def decisions(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, bool]]:
    """Every decision a ``JaxPPOAgent`` makes: the action, and whether its mask allowed it."""
    made: list[tuple[int, bool]] = []
    real_act = JaxPPOAgent.act

    def act(self: JaxPPOAgent, observation: np.ndarray, action_mask: np.ndarray, state=None) -> int:
        action = real_act(self, observation, action_mask, state)
        made.append((action, bool(action_mask[action])))
        return action

    monkeypatch.setattr(JaxPPOAgent, "act", act)
    return made


def finished(result: dict) -> int:
    return sum(result[key] for key in ("wins", "losses", "draws", "truncations", "illegal"))


def test_the_policy_is_evaluated_from_both_seats(policy: Path, decisions: list[tuple[int, bool]]) -> None:
    result = evaluate_agent(MAP_DUEL, f"jaxppo:{policy}", 2, seed=0)  # one deal, from each seat
    assert finished(result) == 2 and result["illegal"] == 0
    assert result["seats"] == 2 and result["deals"] == 1
    assert len(decisions) == result["total_steps"]  # the policy made every decision of its seat
    assert all(legal for _, legal in decisions)


def test_the_policy_is_an_opponent_in_evaluate(policy: Path, decisions: list[tuple[int, bool]]) -> None:
    result = evaluate_agent(MAP_DUEL, "random", 2, seed=1, opponent=f"jaxppo:{policy}")
    assert finished(result) == 2 and result["opponent"] == f"jaxppo:{policy}"
    assert decisions and all(legal for _, legal in decisions)


def test_the_evaluate_command_plays_the_policy_against_itself(
    policy: Path, decisions: list[tuple[int, bool]], capsys: pytest.CaptureFixture[str]
) -> None:
    spec = f"jaxppo:{policy}"
    args = ["evaluate", "--env", MAP_DUEL, "--agent", spec, "--opponent", spec, "--episodes", "2", "--json", "-"]
    assert cli_main(args) == 0
    captured = capsys.readouterr()
    (result,) = json.loads(captured.out)["results"]
    assert result["agent"] == spec and finished(result) == 2 and result["illegal"] == 0
    assert "chance level with 2 seats: 50.0% of games won" in captured.err
    assert len(decisions) > result["total_steps"]  # its opponent's decisions too
    assert all(legal for _, legal in decisions)


def test_the_policy_holds_every_seat_of_a_match(policy: Path, decisions: list[tuple[int, bool]]) -> None:
    match = new_match(resolve_entry(MAP_DUEL), 4, "ansi")
    try:
        agents = {seat: make_agent(f"jaxppo:{policy}", match.game_key) for seat in range(match.players)}
        for agent in agents.values():
            agent.check_env(match.env)
        seats_played: set[int] = set()
        while not match.over:
            seats_played.add(match.seat)
            match.step(choose(agents[match.seat], match))
        assert seats_played == {0, 1}
        assert all(match.outcome(seat) is not None for seat in (0, 1))
        assert len(decisions) == len(match.history) and all(legal for _, legal in decisions)
    finally:
        match.close()


@pytest.mark.parametrize("seat", [0, 1])
def test_a_human_plays_against_the_policy(
    seat: int,
    policy: Path,
    decisions: list[tuple[int, bool]],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """``python -m empire_envs play MapDuel-v0 --opponents jaxppo:PATH``, the human always
    choosing the first listed move, to the end of the game."""
    monkeypatch.setattr("sys.stdin", io.StringIO("0\n" * 5000))
    spec = f"jaxppo:{policy}"
    assert cli_main(["play", MAP_DUEL, "--seed", "3", "--seat", str(seat), "--opponents", spec]) == 0
    out = capsys.readouterr().out
    other = f"player_{1 - seat}"
    assert f"you are player_{seat} (seat {seat}); {other}: {spec}" in out
    assert "=== game over ===" in out
    assert out.rstrip().splitlines()[-1].startswith("Result: ")
    assert out.count(f"{other} (jaxppo:") == len(decisions) > 0  # each of its moves announced
    assert all(legal for _, legal in decisions)


def test_play_refuses_a_policy_of_another_game(policy: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert cli_main(["play", "empire_envs/Pillars-v0", "--seed", "0", "--opponents", f"jaxppo:{policy}"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("empire_envs play: error: ") and "trained on empire_envs/MapDuel-v0" in err
    assert err.count("\n") == 1
