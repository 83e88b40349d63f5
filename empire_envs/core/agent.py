"""The agent interface every player of the envs shares, and the masked random agent.

It lives in ``core`` because the adapters drive agents too (``AECSingleAgentEnv`` plays the
opponents' seats); ``empire_envs.agents`` builds the games' own agents on it.
"""

from __future__ import annotations

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

    def reset(self, seed: int | None = None) -> None:  # noqa: B027 (an optional hook, a no-op by default)
        """Called at the start of every episode; ``seed`` makes a stochastic agent repeatable."""

    @abstractmethod
    def act(self, observation: np.ndarray, action_mask: np.ndarray, state: Any = None) -> int:
        """A legal action index."""

    def check_spaces(self, observation_space: Any, action_space: Any) -> None:  # noqa: B027 (optional hook)
        """Raise ``ValueError`` if this agent cannot play an env with these spaces.

        Agents that read only the mask play anything; a trained model fits only the spaces it
        was trained on and says so here, before any game starts.
        """

    def check_env(self, env: Any) -> None:
        """Raise ``ValueError`` if this agent cannot play ``env`` (a Gymnasium env, or a PettingZoo
        AEC env: then as its first seat sees it). By default its spaces (``check_spaces``); an
        agent that knows the rules it was trained on checks them too."""
        if hasattr(env, "possible_agents"):
            seat = env.possible_agents[0]
            self.check_spaces(env.observation_space(seat)["observation"], env.action_space(seat))
        else:
            self.check_spaces(env.observation_space, env.action_space)


class SeededAgent(Agent):
    """An agent whose random choices come from its own generator ``self.rng``, seeded at
    construction and reseeded by ``reset(seed)``."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)


class RandomAgent(SeededAgent):
    """Uniform over the legal actions of the mask."""

    name = "random"

    def act(self, observation: np.ndarray, action_mask: np.ndarray, state: Any = None) -> int:
        legal = np.flatnonzero(action_mask)
        if legal.size == 0:
            raise ValueError("no legal action in the mask")
        return int(legal[self.rng.integers(legal.size)])
