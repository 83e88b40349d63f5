"""Agents that play the environments through one small interface (``Agent.act``).

``make_agent(name, game_name)`` builds one by name (``agent_names(game_name)`` lists them).
"""

from .base import Agent, RandomAgent, agent_names, make_agent

__all__ = ["Agent", "RandomAgent", "agent_names", "make_agent"]
