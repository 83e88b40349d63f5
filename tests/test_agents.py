"""Every agent of every game builds by name and plays whole episodes with legal actions only."""

from __future__ import annotations

import dataclasses

import gymnasium
import pytest

import empire_envs
from empire_envs.adapters.single_agent import AECSingleAgentEnv
from empire_envs.agents import agent_names, make_agent
from empire_envs.agents.base import game_agents
from empire_envs.agents.registry import GAME_AGENTS, register_agents
from empire_envs.registry import GAMES, NAMESPACE, game_entry

#: game key -> (env id of its main variant, api), from the registry's game table
GAME_ENV = {game.key: (f"{NAMESPACE}/{game.variants[0].name}", game.api) for game in GAMES}

#: settings that cut a multiplayer game short, so that search agents finish three of them
#: quickly; each game gets those its config has (a campaign also caps its number of games)
SHORT_SETTINGS = {"length_limit": 4, "campaign_max_games": 3}

CASES = [(game, name) for game in sorted(GAME_ENV) for name in agent_names(game)]


def test_every_game_has_its_own_heuristic_agent():
    for key in GAME_ENV:
        assert "heuristic" in game_agents(key), f"{key} has no heuristic agent"
    assert {"solo", "solitaire", "pillars", "pillars_campaign"} <= set(GAME_ENV)


def test_the_agents_table_names_the_games_of_the_game_table():
    assert set(GAME_AGENTS) == set(GAME_ENV)


def test_a_game_is_named_by_its_key_or_an_env_id_never_its_display_name():
    for key, (env_id, _) in GAME_ENV.items():
        by_key = agent_names(key)
        assert agent_names(env_id) == agent_names(env_id.removeprefix(f"{NAMESPACE}/")) == by_key
        display_name = game_entry(key).load().name
        if display_name != key:
            assert agent_names(display_name) == ["random"]
    with pytest.raises(ValueError, match="'Map Duel' is no registered game key or env id"):
        make_agent("heuristic", "Map Duel")


def test_register_agents_refuses_unknown_games_and_taken_names():
    with pytest.raises(KeyError, match="no_such_game"):
        register_agents("no_such_game", {"mine": "tests.test_agents:Nothing"})
    for taken in ("heuristic", "random", "ppo"):
        with pytest.raises(ValueError, match="already"):
            register_agents("solo", {taken: "tests.test_agents:Nothing"})
    with pytest.raises(ValueError, match="':'"):
        register_agents("solo", {"a:b": "tests.test_agents:Nothing"})
    assert agent_names("solo") == ["random", *GAME_AGENTS["solo"]]


def short_settings(key: str) -> dict[str, int]:
    """The ``SHORT_SETTINGS`` that the game's config has; ``length_limit`` always (a game without
    it would run to its full length and slow every search agent's test)."""
    fields = {field.name for field in dataclasses.fields(game_entry(key).load().config_class)}
    assert "length_limit" in fields, f"{key} has no length_limit to cut its games short"
    return {name: value for name, value in SHORT_SETTINGS.items() if name in fields}


def _multiplayer_env(key: str, env_id: str) -> AECSingleAgentEnv:
    env = empire_envs.make(env_id, **short_settings(key))
    return AECSingleAgentEnv(env, learner_seat="all", illegal_action="raise")


@pytest.mark.parametrize(("game", "name"), CASES, ids=[f"{g}:{n}" for g, n in CASES])
def test_agent_plays_legal_episodes(game, name):
    env_id, api = GAME_ENV[game]
    if api == "gymnasium":
        env = gymnasium.make(env_id, illegal_action="raise")
    else:  # one seat of the game, every seat in turn, random players elsewhere
        env = _multiplayer_env(game, env_id)
    agent = make_agent(name, game, seed=0)
    for episode in range(3):
        agent.reset(seed=episode)
        obs, info = env.reset(seed=episode)
        done = False
        while not done:
            action = agent.act(obs, info["action_mask"], env.unwrapped.state)
            assert info["action_mask"][action] == 1, f"{name} chose an illegal action"
            obs, _, terminated, truncated, info = env.step(action)
            done = terminated or truncated
        assert info["outcome"] in ("won", "lost", "truncated")


def test_unknown_agents_are_refused_with_the_known_names():
    for game in GAME_ENV:
        with pytest.raises(ValueError, match="known agents: random"):
            make_agent("no-such-agent", game)
