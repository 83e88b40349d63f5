"""Empire Solitaire's relational network (games.solitaire.network): what it reads of the rules,
its numpy and JAX forms, and its policy files (agents.jax_ppo)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from empire_envs.agents import jax_ppo as policy_files
from empire_envs.agents.base import make_agent
from empire_envs.games.solitaire import actions as A
from empire_envs.games.solitaire import network, rules
from empire_envs.games.solitaire.tables import matches
from empire_envs.registry import make_any

SMALL = {"width": 16, "heads": 2, "layers": 2, "feedforward": 24}
ENV = "empire_envs/EmpireSolitaire-v0"


def _positions(games: int = 6, seed: int = 0) -> tuple[list, np.ndarray, np.ndarray]:
    """States, observations and masks of random play (every phase: captures, reveals, placements)."""
    env = make_any(ENV)
    rng = np.random.default_rng(seed)
    states, observations, masks = [], [], []
    for game in range(games):
        observation, info = env.reset(seed=seed + game)
        done = False
        while not done:
            states.append(env.unwrapped.state.clone())
            observations.append(observation)
            masks.append(info["action_mask"])
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            observation, _, terminated, truncated, info = env.step(action)
            done = terminated or truncated
    env.close()
    return states, np.asarray(observations, np.float32), np.asarray(masks)


@pytest.fixture(scope="module")
def positions():
    return _positions()


@pytest.fixture(scope="module")
def params():
    return network.init_params(np.random.default_rng(3), **SMALL)


def test_the_capture_targets_are_the_rules_targets(positions):
    states, observations, _ = positions
    occupied = np.asarray([[1.0 if card >= 0 else 0.0 for card in state.grid] for state in states], np.float32)
    targets = network.capture_targets(occupied, np)
    for state, row in zip(states, targets, strict=True):
        for cell in range(len(state.grid)):
            for direction in range(A.NUM_DIRECTIONS):
                expected = rules.capture_target(state.grid, cell, direction)
                assert row[cell, direction] == (expected if expected >= 0 else network.NUM_CELLS)


def test_the_legal_captures_are_the_pairs_that_match_and_reach(positions):
    # the attention's "may capture now" feature (pair 4) is the rules' capture mask
    states, observations, masks = positions
    occupied = (observations[:, :255].reshape(-1, 15, 17).sum(-1) > 0).astype(np.float32)
    targets = network.capture_targets(occupied, np)
    for state, row, mask in zip(states, targets, masks, strict=True):
        if state.revealed >= 0:
            continue  # a card waits: only placements are legal
        for cell in range(15):
            for direction in range(A.NUM_DIRECTIONS):
                target = int(row[cell, direction])
                card = state.grid[cell]
                may = card >= 0 and target < 15 and matches(card, state.grid[target])
                assert bool(mask[A.capture(cell, direction)]) == may


def test_shapes_and_outputs_follow_the_action_table(positions, params):
    _, observations, _ = positions
    logits, value = network.forward(params, observations, np)
    assert logits.shape == (observations.shape[0], A.NUM_ACTIONS)
    assert value.shape == (observations.shape[0],)
    assert np.all(np.abs(value) <= 1.0) and np.all(np.isfinite(logits))
    # capture outputs are laid out as the table: cell * 8 + direction
    assert [A.CAPTURE[c][d] for c, d in zip(network.CAPTURE_CELL, network.CAPTURE_DIRECTION, strict=True)] == list(
        range(A.REVEAL)
    )
    assert set(network.shapes(**SMALL)) == set(params)


def test_one_position_alone_gets_the_logits_it_gets_in_a_batch(positions, params):
    _, observations, _ = positions
    batch, _ = network.forward(params, observations[:7], np)
    for index in range(7):
        single, _ = network.forward(params, observations[index : index + 1], np)
        np.testing.assert_allclose(single[0], batch[index], rtol=1e-5, atol=1e-5)


def test_numpy_and_jax_forms_agree(positions, params):
    jnp = pytest.importorskip("jax.numpy")
    _, observations, _ = positions
    numpy_logits, numpy_value = network.forward(params, observations, np)
    jax_params = {name: jnp.asarray(array) for name, array in params.items()}
    jax_logits, jax_value = network.forward(jax_params, jnp.asarray(observations), jnp)
    np.testing.assert_allclose(np.asarray(jax_logits), numpy_logits, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(np.asarray(jax_value), numpy_value, rtol=1e-4, atol=1e-4)


def test_check_arrays_names_a_missing_or_misshapen_array(params):
    network.check_arrays(params, SMALL)
    missing = {name: array for name, array in params.items() if name != "capture/out"}
    with pytest.raises(ValueError, match="lacks the array 'capture/out'"):
        network.check_arrays(missing, SMALL)
    bent = dict(params, **{"block1/qkv": np.zeros((16, 47), np.float32)})
    with pytest.raises(ValueError, match=r"'block1/qkv' has shape \(16, 47\); the network needs \(16, 48\)"):
        network.check_arrays(bent, SMALL)
    with pytest.raises(ValueError, match="must be a multiple of heads"):
        network.shapes(width=10, heads=4, layers=1, feedforward=8)
    with pytest.raises(ValueError, match="'layers' must be a positive integer"):
        network.sizes_of({"architecture": network.ARCHITECTURE, **SMALL, "layers": 0})


def _metadata(**changes: object) -> dict:
    return {
        "env_id": ENV,
        "env_kwargs": {},
        "observation_size": 326,
        "num_actions": 136,
        "network": {"architecture": network.ARCHITECTURE, **SMALL},
        **changes,
    }


def test_a_relational_policy_file_plays_the_networks_argmax(tmp_path, positions, params):
    path = policy_files.save_policy(tmp_path / "policy.npz", params, _metadata())
    agent = make_agent(f"jaxppo:{path}", "solitaire")
    assert agent.policy.architecture == network.ARCHITECTURE
    states, observations, masks = positions
    logits, _ = network.forward(params, observations, np)
    expected = np.argmax(np.where(masks > 0, logits, -np.inf), axis=-1)
    for state, observation, mask, move in zip(states[:40], observations, masks, expected, strict=False):
        assert agent.act(observation, mask, state) == move
        assert mask[move]
    # a whole game on the env, every move legal
    env = make_any(ENV)
    agent.check_env(env)
    observation, info = env.reset(seed=11)
    done = False
    while not done:
        move = agent.act(observation, info["action_mask"], env.unwrapped.state)
        assert info["action_mask"][move]
        observation, _, terminated, truncated, info = env.step(move)
        done = terminated or truncated


def test_relational_policy_files_with_bad_metadata_are_refused(tmp_path, params):
    cases = [
        (_metadata(network={"architecture": "transformer-xl"}), "unknown network 'transformer-xl'"),
        (_metadata(observation_size=327), "reads Empire Solitaire's 326 observation entries"),
        (_metadata(mask_in_observation=True), "does not read the mask"),
        (_metadata(network={"architecture": network.ARCHITECTURE, **SMALL, "heads": "two"}), "'heads' must be"),
    ]
    for metadata, message in cases:
        with pytest.raises(ValueError, match=message):
            policy_files.save_policy(tmp_path / "bad.npz", params, metadata)
        assert not (tmp_path / "bad.npz").exists()
    # a file whose arrays do not fit its sizes: refused at load, naming the file
    path = policy_files.save_policy(tmp_path / "policy.npz", params, _metadata())
    with np.load(path) as archive:
        entries = {name: archive[name] for name in archive.files}
    record = json.loads(str(entries["metadata"]))
    record["network"]["width"] = 32
    entries["metadata"] = np.array(json.dumps(record))
    with (tmp_path / "wide.npz").open("wb") as handle:
        np.savez(handle, **entries)
    with pytest.raises(ValueError, match=r"wide\.npz: the array 'embed/kernel' has shape"):
        policy_files.load_policy(tmp_path / "wide.npz")
