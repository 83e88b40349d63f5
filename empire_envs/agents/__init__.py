"""Agents that play the environments through one small interface (``Agent.act``).

``make_agent("random" | "heuristic" | "ppo:path/to/model.zip", game_name)`` builds one by name;
torch-backed agents are imported only when asked for.
"""

from .base import Agent, RandomAgent, make_agent

__all__ = ["Agent", "RandomAgent", "make_agent"]
