"""Seeded games of every registered id replay exactly as recorded (``tests/golden_trajectories.py``).

A failure names the id, the game and the first checkpoint whose digest differs: the behaviour of
that env changed somewhere in the steps before it. If the change is meant, record again
(``python -m tests.golden_trajectories --record``) and say why in the commit.
"""

from __future__ import annotations

import json

import pytest

from empire_envs.registry import ENTRIES

from .golden_trajectories import GAMES, GOLDEN_FILE, game_key, trajectory

GOLDEN = json.loads(GOLDEN_FILE.read_text())


def test_every_registered_id_has_golden_games():
    missing = [item.env_id for item in ENTRIES if set(GOLDEN.get(item.env_id, {})) != {game_key(*g) for g in GAMES}]
    assert not missing, f"no golden games recorded for {missing}: python -m tests.golden_trajectories --record"


@pytest.mark.parametrize("policy,seed", GAMES, ids=[game_key(*g) for g in GAMES])
@pytest.mark.parametrize("env_id", [item.env_id for item in ENTRIES])
def test_trajectory_matches_golden(env_id, policy, seed):
    expected = GOLDEN[env_id][game_key(policy, seed)]
    actual = trajectory(env_id, policy, seed)
    for step, digest in expected["checkpoints"].items():
        got = actual["checkpoints"].get(step)
        assert got == digest, (
            f"{env_id} {policy} seed {seed}: the trajectory parts from the recording before step {step} "
            f"(recorded {expected['steps']} steps, now {actual['steps']})"
        )
    assert actual == expected
