"""Seeding: ``reset(seed=...)`` makes a whole trajectory reproducible (design, tests layer 4).

Same seed -> same trajectory within one process (two envs side by side) and across processes
(also with different ``PYTHONHASHSEED``); different seeds -> different deals; rendering never
draws from the game's RNG. Trajectories include later episodes started with ``reset()`` (no
seed) and reshuffles of the discard pile, which draw from the env's RNG mid-episode.
"""

from __future__ import annotations

import json
import os
import pickle
import subprocess
import sys
from pathlib import Path

import gymnasium
import numpy as np
import pytest

import empire_envs  # noqa: F401  (registers the ids)
from empire_envs.registry import ENTRIES

ROOT = Path(__file__).resolve().parents[1]
GYM_ENTRIES = [e for e in ENTRIES if e.api == "gymnasium"]
gym_entries = pytest.mark.parametrize("entry", GYM_ENTRIES, ids=[e.env_id for e in GYM_ENTRIES])

#: Shared by this module and the subprocesses: a seeded random masked policy's trajectories,
#: hashed step by step (observation, reward, flags, mask, outcome).
TRAJECTORY_CODE = r'''
import hashlib

import gymnasium
import numpy as np

import empire_envs


def trajectory_digest(env_id, seeds, episodes_per_seed=2):
    """sha256 over every step of ``episodes_per_seed`` episodes per seed: the first reset with
    the seed, the next ones with plain ``reset()``; the policy is seeded with the same seed."""
    digest = hashlib.sha256()
    env = gymnasium.make(env_id)
    for seed in seeds:
        policy = np.random.default_rng(seed)
        for episode in range(episodes_per_seed):
            obs, info = env.reset(seed=seed if episode == 0 else None)
            digest.update(obs.tobytes() + info["action_mask"].tobytes())
            while True:
                legal = np.flatnonzero(info["action_mask"])
                action = int(legal[policy.integers(legal.size)])
                obs, reward, terminated, truncated, info = env.step(action)
                digest.update(obs.tobytes() + info["action_mask"].tobytes())
                digest.update(repr((float(reward).hex(), terminated, truncated,
                                    info.get("outcome"))).encode())
                if terminated or truncated:
                    break
    return digest.hexdigest()
'''

SUBPROCESS_MAIN = r'''
import json
import sys

ids = json.loads(sys.argv[1])
seeds = range(int(sys.argv[2]))
print(json.dumps({env_id: trajectory_digest(env_id, seeds) for env_id in ids}))
'''

CROSS_PROCESS_SEEDS = 20


def _trajectory_digest(env_id, seeds, episodes_per_seed=2):
    namespace: dict = {}
    exec(compile(TRAJECTORY_CODE, "<trajectory>", "exec"), namespace)
    return namespace["trajectory_digest"](env_id, seeds, episodes_per_seed)


def run_episode(env, seed, policy_seed, render=False):
    """One episode's record (obs, reward, flags, mask, outcome per step) and its reshuffle count."""
    policy = np.random.default_rng(policy_seed)
    obs, info = env.reset(seed=seed)
    record = [(obs, info["action_mask"])]
    reshuffles = 0
    while True:
        if render:
            env.render()
        deck = len(env.unwrapped.state.deck) if hasattr(env.unwrapped.state, "deck") else None
        legal = np.flatnonzero(info["action_mask"])
        obs, reward, terminated, truncated, info = env.step(int(legal[policy.integers(legal.size)]))
        if deck is not None:
            reshuffles += len(env.unwrapped.state.deck) > deck
        record.append((obs, reward, terminated, truncated, info["action_mask"], info.get("outcome")))
        if terminated or truncated:
            return record, reshuffles


def assert_same_record(a, b):
    assert len(a) == len(b), f"episode lengths differ: {len(a)} vs {len(b)}"
    for step, (x, y) in enumerate(zip(a, b, strict=True)):
        assert len(x) == len(y)
        for u, v in zip(x, y, strict=True):
            if isinstance(u, np.ndarray):
                assert u.dtype == v.dtype and np.array_equal(u, v), f"step {step} differs"
            else:
                assert u == v, f"step {step} differs: {u!r} vs {v!r}"


# --------------------------------------------------------------------------- within one process


@gym_entries
def test_same_seed_same_trajectory_in_process(entry):
    first, second = gymnasium.make(entry.env_id), gymnasium.make(entry.env_id)
    reshuffles = 0
    for seed in range(30):
        for episode in range(2):  # the second episode starts with reset() and no seed
            reset_seed = seed if episode == 0 else None
            a, shuffled = run_episode(first, reset_seed, (seed, episode))
            b, _ = run_episode(second, reset_seed, (seed, episode))
            assert_same_record(a, b)
            reshuffles += shuffled
    if hasattr(first.unwrapped.state, "deck"):  # games that reshuffle mid-episode (solo)
        assert reshuffles > 0, "no trajectory reshuffled the deck, so mid-episode RNG use is untested"


@gym_entries
def test_reset_with_the_same_seed_repeats_the_episode(entry):
    env = gymnasium.make(entry.env_id)
    a, _ = run_episode(env, 5, 0)
    run_episode(env, None, 1)  # anything in between
    b, _ = run_episode(env, 5, 0)
    assert_same_record(a, b)


@gym_entries
def test_rendering_never_draws_from_the_game_rng(entry, monkeypatch):
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")  # "human" opens a pygame window: keep it in memory
    modes = gymnasium.make(entry.env_id).unwrapped.metadata["render_modes"]
    for mode in modes:
        rendered, plain = gymnasium.make(entry.env_id, render_mode=mode), gymnasium.make(entry.env_id)
        # A draw by render() would change the second episode's deal (reset() with no seed).
        for seed in range(3):
            for episode in range(2):
                reset_seed = seed if episode == 0 else None
                a, _ = run_episode(rendered, reset_seed, (seed, episode), render=True)
                b, _ = run_episode(plain, reset_seed, (seed, episode))
                assert_same_record(a, b)


@gym_entries
def test_different_seeds_give_different_deals(entry):
    env = gymnasium.make(entry.env_id)
    observations, states = set(), set()
    for seed in range(100):
        obs, _ = env.reset(seed=seed)
        observations.add(obs.tobytes())
        states.add(pickle.dumps(env.unwrapped.state))  # hidden cards included
    assert len(observations) == 100 and len(states) == 100
    digests = {_trajectory_digest(entry.env_id, [seed], 1) for seed in range(20)}
    assert len(digests) == 20
    # Unseeded resets draw fresh entropy.
    unseeded = {gymnasium.make(entry.env_id).reset()[0].tobytes() for _ in range(5)}
    assert len(unseeded) == 5


# --------------------------------------------------------------------------- across processes


def _digests_in_subprocess(hash_seed: str) -> dict[str, str]:
    env = {**os.environ, "PYTHONHASHSEED": hash_seed}
    ids = json.dumps([e.env_id for e in GYM_ENTRIES])
    result = subprocess.run(
        [sys.executable, "-c", TRAJECTORY_CODE + SUBPROCESS_MAIN, ids, str(CROSS_PROCESS_SEEDS)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_same_seed_same_trajectory_across_processes():
    seeds = range(CROSS_PROCESS_SEEDS)
    here = {e.env_id: _trajectory_digest(e.env_id, seeds) for e in GYM_ENTRIES}
    first = _digests_in_subprocess("0")
    second = _digests_in_subprocess("4242")
    assert first == second, "trajectories depend on PYTHONHASHSEED"
    assert first == here, "a subprocess and this process disagree on the same seeds"
    assert len(set(here.values())) == len(here), "different variants gave identical trajectories"
