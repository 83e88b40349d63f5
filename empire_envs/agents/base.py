"""The common agent interface and the masked random agent."""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from typing import Any

import numpy as np


class Agent(ABC):
    """Chooses one legal action per decision.

    ``act(observation, action_mask, state)`` gets the acting player's observation, its int8
    mask and the game state object. An agent may read from ``state`` only what that player can
    see (search agents call the game's ``determinize`` for the rest); ``state`` may be None for
    agents that need only the observation.
    """

    name = "agent"

    def reset(self, seed: int | None = None) -> None:
        """Called at the start of every episode; ``seed`` makes a stochastic agent repeatable."""

    @abstractmethod
    def act(self, observation: np.ndarray, action_mask: np.ndarray, state: Any = None) -> int:
        """A legal action index."""


class RandomAgent(Agent):
    """Uniform over the legal actions of the mask."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, state: Any = None) -> int:
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise ValueError("no legal action in the mask")
        return int(legal[self.rng.integers(legal.size)])


#: game name (``SinglePlayerGame.name`` or the multiplayer equivalent) -> heuristic class path
HEURISTICS = {
    "Empire solo": "empire_envs.agents.solo_heuristic:HeuristicSoloAgent",
    "Empire Solitaire": "empire_envs.agents.solitaire:GreedySolitaireAgent",
}
#: game name -> oracle solver agent class path (agents that read hidden state, to bound others)
SOLVERS = {
    "Empire Solitaire": "empire_envs.agents.solitaire:SolverAgent",
}


def _load(path: str) -> Any:
    module, _, attribute = path.partition(":")
    return getattr(importlib.import_module(module), attribute)


def make_agent(spec: str, game_name: str, seed: int | None = None) -> Agent:
    """An agent from a short spec: ``random``, ``heuristic`` or ``solver`` (the game's own)."""
    kind = spec
    if kind == "random":
        return RandomAgent(seed)
    if kind == "heuristic":
        if game_name not in HEURISTICS:
            raise ValueError(f"no heuristic agent for {game_name!r} (known: {sorted(HEURISTICS)})")
        return _load(HEURISTICS[game_name])()
    if kind == "solver":
        if game_name not in SOLVERS:
            raise ValueError(f"no solver agent for {game_name!r} (known: {sorted(SOLVERS)})")
        return _load(SOLVERS[game_name])()
    raise ValueError(f"unknown agent {spec!r}; known agents: random, heuristic, solver")
