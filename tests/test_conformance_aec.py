"""Conformance of every PettingZoo entry of the registry (design, tests layer 5).

PettingZoo's ``api_test`` (1,000 cycles) and ``seed_test`` with warnings as errors, registration,
spaces and masks, illegal actions in ``env()`` and ``raw_env``, strict action types, pickling,
every render mode, the docstring, and the reset options. Parametrized over
``empire_envs.registry.ENTRIES``, so every multiplayer id added later is checked the same way.
"""

from __future__ import annotations

import importlib
import pickle
import re
import warnings

import numpy as np
import pytest
from gymnasium import spaces

import empire_envs
from empire_envs import envs
from empire_envs.core.errors import IllegalActionError
from empire_envs.registry import ENTRIES

pytestmark = pytest.mark.filterwarnings("error")


@pytest.fixture(autouse=True)
def _headless_display(monkeypatch):
    """``render_mode="human"`` (one of the render modes iterated here) opens a pygame window:
    SDL's dummy video driver keeps it in memory, on machines without a display too."""
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")


PZ_ENTRIES = [e for e in ENTRIES if e.api == "pettingzoo"]
pz_entries = pytest.mark.parametrize("entry", PZ_ENTRIES, ids=[e.env_id for e in PZ_ENTRIES])
_API_TEST = importlib.import_module("pettingzoo.test.api_test")


#: cuts any multiplayer game short enough to end in a few hundred steps (every multiplayer
#: config has ``length_limit``, in rounds or turns), too short for any seat to win
SHORT_GAME = {"length_limit": 1}


def names_every_seat(text: str, env) -> bool:
    """Whether a text render names each seat, by its agent name (``player_0``) or as ``seat 0``."""
    return all(agent in text or f"seat {seat}" in text for seat, agent in enumerate(env.possible_agents))


def raw(entry, **kwargs):
    """The bare ``raw_env`` behind an entry (its game's env class), with its kwargs."""
    return envs.raw_env(entry.game, **{**entry.kwargs, **kwargs})


def pick(mask: np.ndarray, rng: np.random.Generator) -> int:
    legal = np.flatnonzero(mask)
    assert legal.size, "no legal action for the acting agent"
    return int(legal[rng.integers(legal.size)])


def dict_observation_env(monkeypatch, env) -> None:
    """PettingZoo's api_test warns about Dict observations unless the env's name is on its own
    lists of Dict-observation envs (its classic games with action masks are listed there); our
    envs follow the same design (DESIGN.md, masks), so they are put on those lists."""
    name = str(env.unwrapped)
    monkeypatch.setattr(_API_TEST, "env_obs_dicts", [*_API_TEST.env_obs_dicts, name])
    monkeypatch.setattr(_API_TEST, "env_obs_space", [*_API_TEST.env_obs_space, name])


def test_there_are_pettingzoo_entries():
    assert {"empire_envs/Pillars-v0", "empire_envs/Pillars3p-v0"} <= {e.env_id for e in PZ_ENTRIES}


@pz_entries
def test_pettingzoo_api_test(entry, monkeypatch):
    from pettingzoo.test import api_test

    env = empire_envs.make(entry.env_id)
    dict_observation_env(monkeypatch, env)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        api_test(env, num_cycles=1000, verbose_progress=False)


@pz_entries
def test_pettingzoo_seed_test(entry):
    from pettingzoo.test import seed_test

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        seed_test(lambda: empire_envs.make(entry.env_id), num_cycles=500)


@pz_entries
def test_registered_with_pettingzoo_and_kwargs_applied(entry):
    import pettingzoo

    assert entry.env_id in pettingzoo.aec_registry
    env = pettingzoo.make("aec", entry.env_id)
    for name, value in entry.kwargs.items():
        assert getattr(env.unwrapped.config, name) == value
    env.reset(seed=3)
    other = empire_envs.make(entry.env_id)
    other.reset(seed=3)
    agent = env.agent_selection
    assert other.agent_selection == agent
    assert np.array_equal(env.observe(agent)["observation"], other.observe(agent)["observation"])


@pz_entries
def test_spaces_masks_and_observations(entry):
    env = empire_envs.make(entry.env_id)
    env.reset(seed=1)
    rng = np.random.default_rng(1)
    first = env.possible_agents[0]
    for agent in env.possible_agents:
        space = env.observation_space(agent)
        assert space is env.observation_space(agent) and env.action_space(agent) is env.action_space(agent)
        assert isinstance(space, spaces.Dict)
        assert space["observation"].dtype == np.float32
        assert space["action_mask"].dtype == np.int8
        assert space["action_mask"].shape == (env.action_space(agent).n,)
        assert space == env.observation_space(first)
    for _ in range(300):
        acting = env.agent_selection
        for agent in env.agents:
            seen = env.observe(agent)
            assert env.observation_space(agent).contains(seen), agent
            assert seen["action_mask"].dtype == np.int8
            if agent != acting:
                assert not seen["action_mask"].any(), "a waiting agent must get an all-zero mask"
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            break
        mask = observation["action_mask"]
        assert mask.any()
        assert mask is not env.observe(acting)["action_mask"], "masks must be fresh arrays"
        env.step(pick(mask, rng))


@pz_entries
def test_illegal_action_in_env_ends_the_game_with_minus_one(entry, caplog):
    env = empire_envs.make(entry.env_id)
    env.reset(seed=2)
    mover = env.agent_selection
    mask = env.last()[0]["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    env.step(illegal)
    assert "Illegal move" in caplog.text  # PettingZoo's TerminateIllegalWrapper logs it
    assert all(env.terminations.values()) or all(env.truncations.values())
    assert env._cumulative_rewards[mover] == -1.0
    assert all(env._cumulative_rewards[a] == 0 for a in env.agents if a != mover)


@pz_entries
def test_raw_env_raises_on_illegal_action_and_keeps_the_state(entry):
    env = raw(entry)
    env.reset(seed=4)
    agent = env.agent_selection
    before = env.observe(agent)
    illegal = int(np.flatnonzero(before["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError):
        env.step(illegal)
    after = env.observe(agent)
    assert env.agent_selection == agent
    assert np.array_equal(before["observation"], after["observation"])
    assert np.array_equal(before["action_mask"], after["action_mask"])


@pz_entries
def test_wrong_action_types_and_out_of_space_actions_raise(entry):
    env = raw(entry)
    env.reset(seed=5)
    n = env.action_space(env.agent_selection).n
    with pytest.raises(TypeError, match="integer index"):
        env.step("3")
    with pytest.raises(TypeError):
        env.step(1.0)
    with pytest.raises(ValueError, match="outside the action space"):
        env.step(n)
    with pytest.raises(ValueError, match="outside the action space"):
        env.step(-1)
    wrapped = empire_envs.make(entry.env_id)
    with pytest.raises(AssertionError, match="reset"):
        wrapped.step(0)
    wrapped.reset(seed=5)
    with pytest.raises(AssertionError, match="action space"):
        wrapped.step(n)


@pz_entries
def test_pickle_round_trip_mid_game(entry):
    env = empire_envs.make(entry.env_id)
    env.reset(seed=6)
    rng = np.random.default_rng(6)
    for _ in range(40):
        env.step(pick(env.last()[0]["action_mask"], rng))
    copy = pickle.loads(pickle.dumps(env))
    assert copy.agent_selection == env.agent_selection
    for _ in range(200):
        observation, reward, terminated, truncated, _ = env.last()
        twin = copy.last()
        assert np.array_equal(observation["observation"], twin[0]["observation"])
        assert (reward, terminated, truncated) == twin[1:4]
        if terminated or truncated:
            break
        action = pick(observation["action_mask"], rng)
        env.step(action)
        copy.step(action)


@pz_entries
def test_every_render_mode(entry):
    for mode in raw(entry).metadata["render_modes"]:
        env = empire_envs.make(entry.env_id, render_mode=mode)
        env.reset(seed=7)
        picture = env.render()
        if mode == "ansi":
            assert isinstance(picture, str) and names_every_seat(picture, env), picture
        elif mode == "rgb_array":
            assert isinstance(picture, np.ndarray) and picture.dtype == np.uint8
            assert picture.ndim == 3 and picture.shape[2] == 3
        else:  # "human": the picture went to the window
            assert mode == "human" and picture is None
        env.close()
    quiet = empire_envs.make(entry.env_id)
    quiet.reset(seed=7)
    with pytest.warns(UserWarning, match="render_mode"):
        assert quiet.render() is None
    with pytest.raises(ValueError, match="render_mode"):
        raw(entry, render_mode="human-ish")


@pz_entries
def test_unknown_config_kwargs_and_unknown_reset_options_raise(entry):
    with pytest.raises(TypeError, match="options are"):
        raw(entry, no_such_flag=1)
    env = raw(entry)
    with pytest.raises(ValueError, match="unrelated"):
        env.reset(seed=8, options={"unrelated": 1})
    with pytest.raises(ValueError, match="unrelated"):
        empire_envs.make(entry.env_id).reset(seed=8, options={"unrelated": 1})


@pz_entries
def test_the_reset_option_key_that_pettingzoos_api_test_sends_is_ignored(entry):
    """``api_test`` calls ``reset(seed=0, options={"options": 1})``; that one key is accepted and
    changes nothing (IGNORED_RESET_OPTIONS), raw and wrapped."""
    for make in (raw, lambda e: empire_envs.make(e.env_id)):
        probed, plain = make(entry), make(entry)
        probed.reset(seed=8, options={"options": 1})
        plain.reset(seed=8)
        agent = plain.agent_selection
        assert probed.agent_selection == agent
        assert np.array_equal(probed.observe(agent)["observation"], plain.observe(agent)["observation"])


@pz_entries
def test_observation_spaces_and_action_spaces_dicts(entry):
    """PettingZoo's attributes: a dict from every possible agent to the space the methods return."""
    for env in (raw(entry), empire_envs.make(entry.env_id)):
        assert isinstance(env.observation_spaces, dict) and isinstance(env.action_spaces, dict)
        assert list(env.observation_spaces) == list(env.possible_agents)
        assert list(env.action_spaces) == list(env.possible_agents)
        for agent in env.possible_agents:
            assert env.observation_spaces[agent] is env.observation_space(agent)
            assert env.action_spaces[agent] is env.action_space(agent)
            assert isinstance(env.observation_spaces[agent], spaces.Dict)
            assert isinstance(env.action_spaces[agent], spaces.Discrete)


@pz_entries
def test_dead_agents_step_with_none_only(entry):
    env = raw(entry, **SHORT_GAME)
    env.reset(seed=9)
    rng = np.random.default_rng(9)
    while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
        env.step(pick(env.observe(env.agent_selection)["action_mask"], rng))
    assert all(env.truncations.values()), "so short a game cannot be won"
    assert all(env._cumulative_rewards[a] == 0 for a in env.agents)
    with pytest.raises(ValueError):
        env.step(0)
    while env.agents:
        env.step(None)


def _sections(doc: str) -> dict[str, str]:
    parts = re.split(r"^## +(.+?)\s*$", doc, flags=re.MULTILINE)
    return {parts[i]: parts[i + 1] for i in range(1, len(parts) - 1, 2)}


@pz_entries
def test_docstring_follows_gymnasium_sections_and_matches_spaces(entry):
    env = raw(entry)
    doc = type(env).__doc__
    sections = _sections(doc)
    for name in ("Description", "Action Space", "Observation Space", "Rewards", "Episode End",
                 "Arguments", "Version History"):
        assert name in sections, f"docstring lacks section {name}"
    default = type(env)()  # the docstring's tables and sizes are the default game's
    agent = default.possible_agents[0]
    assert f"Discrete({default.action_space(agent).n})" in sections["Action Space"]
    size = default.observation_space(agent)["observation"].shape[0]
    assert f"({size},)" in sections["Observation Space"]
    assert entry.env_id.rsplit("/", 1)[1] in doc
