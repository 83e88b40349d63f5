"""Agents that play the environments through one small interface (``Agent.act``).

``make_agent("random" | "heuristic", game_name)`` builds one by name.
"""

from .base import Agent, RandomAgent, make_agent

__all__ = ["Agent", "RandomAgent", "make_agent"]
