"""Agents that play the environments through one small interface (``Agent.act``).

``make_agent(name, game)`` builds one by name for a game named by its registry key (``"solo"``) or an
env id; ``agent_names(game)`` lists them, and ``agents.registry`` holds each game's own.
"""

from .base import Agent, RandomAgent, agent_names, make_agent

__all__ = ["Agent", "RandomAgent", "agent_names", "make_agent"]
