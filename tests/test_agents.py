"""Every agent of every game builds by name and plays whole episodes with legal actions only."""

from __future__ import annotations

import gymnasium
import pytest

import empire_envs
from empire_envs.adapters.single_agent import AECSingleAgentEnv
from empire_envs.agents import agent_names, make_agent
from empire_envs.agents.base import game_agents
from empire_envs.registry import GAMES, NAMESPACE

#: game name -> (env id of its main variant, api), from the registry's game table
GAME_ENV = {game.load().name: (f"{NAMESPACE}/{game.variants[0].name}", game.api) for game in GAMES}

#: short multiplayer games, so that search agents finish three of them quickly
SHORT_GAME = {"length_limit": 3}
SHORT_CAMPAIGN = {"length_limit": 3, "campaign_max_games": 3}
SHORT_DUEL = {"length_limit": 4}

CASES = [(game, name) for game in sorted(GAME_ENV) for name in agent_names(game)]


def test_every_game_has_its_own_heuristic_agent():
    for name in GAME_ENV:
        assert "heuristic" in game_agents(name), f"{name} has no heuristic agent"
    assert {"Empire solo", "Empire Solitaire", "Pillars", "Pillars campaign"} <= set(GAME_ENV)


def _multiplayer_env(env_id: str) -> AECSingleAgentEnv:
    short = SHORT_CAMPAIGN if "Campaign" in env_id else SHORT_DUEL if "MapDuel" in env_id else SHORT_GAME
    return AECSingleAgentEnv(empire_envs.make(env_id, **short), learner_seat="all", illegal_action="raise")


@pytest.mark.parametrize(("game", "name"), CASES, ids=[f"{g}:{n}" for g, n in CASES])
def test_agent_plays_legal_episodes(game, name):
    env_id, api = GAME_ENV[game]
    if api == "gymnasium":
        env = gymnasium.make(env_id, illegal_action="raise")
    else:  # one seat of the game, every seat in turn, random players elsewhere
        env = _multiplayer_env(env_id)
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
