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


#: game name -> that game's own agents (name -> class path). ``random`` works for every game.
#: Agents marked oracle in their docstring read hidden state, to bound fair agents from above.
GAME_AGENTS: dict[str, dict[str, str]] = {
    "Empire solo": {
        "heuristic": "empire_envs.agents.solo_heuristic:HeuristicSoloAgent",
    },
    "Empire Solitaire": {
        "heuristic": "empire_envs.agents.solitaire:GreedySolitaireAgent",
        "greedy": "empire_envs.agents.solitaire:GreedySolitaireAgent",
        "reveal-greedy": "empire_envs.agents.solitaire:RevealThenGreedyAgent",
        "reveal-solve": "empire_envs.agents.solitaire:RevealThenSolveAgent",
        "solver": "empire_envs.agents.solitaire:SolverAgent",
    },
    "Pillars": {
        "heuristic": "empire_envs.agents.pillars_heuristic:PillarsHeuristicAgent",
        "ismcts": "empire_envs.agents.ismcts:ISMCTSAgent",
        "heuristic-ismcts": "empire_envs.agents.pillars_heuristic:HeuristicISMCTSAgent",
    },
}
GAME_AGENTS["Map Duel"] = {
    "heuristic": "empire_envs.agents.map_duel_heuristic:MapDuelHeuristicAgent",
    "ismcts": "empire_envs.agents.ismcts:ISMCTSAgent",
}
GAME_AGENTS["Empires and Generals"] = {
    "heuristic": "empire_envs.agents.generals_heuristic:GeneralsHeuristicAgent",
    "ismcts": "empire_envs.agents.ismcts:ISMCTSAgent",
}
#: the campaign plays Pillars games: the same agents play its current game
GAME_AGENTS["Pillars campaign"] = dict(GAME_AGENTS["Pillars"])


def game_name(env: Any, fallback: str) -> str:
    """The name agents of ``GAME_AGENTS`` are keyed by: the env's game's own name, else
    ``fallback`` (an env of another package has no agents of its own here)."""
    game = getattr(getattr(env, "unwrapped", env), "game", None)
    return str(getattr(game, "name", None) or fallback)


def agent_names(game_name: str) -> list[str]:
    """The agent specs ``make_agent`` accepts for a game."""
    return ["random", *GAME_AGENTS.get(game_name, {})]


def _load(path: str) -> Any:
    module, _, attribute = path.partition(":")
    return getattr(importlib.import_module(module), attribute)


#: spec prefixes of agents loaded from a file: ``ppo:PATH`` (a MaskablePPO ``.zip``), ``rllib:PATH``
#: (an RLlib checkpoint, needs the ``distributed`` extra)
FILE_AGENTS: dict[str, str] = {
    "ppo": "empire_envs.agents.ppo:PPOAgent",
    "rllib": "empire_envs.agents.rllib_agent:RLlibAgent",
}


def make_agent(spec: str, game_name: str, seed: int | None = None, **settings: Any) -> Agent:
    """An agent from its spec.

    ``random`` for any game; one of the game's own names (``agent_names``); ``ppo:PATH`` for a
    MaskablePPO model saved by ``experiments/train.py`` (needs the ``train`` extra); or
    ``package.module:ClassName`` for an ``Agent`` subclass of your own. ``settings`` are keyword
    arguments for a game's own agent or your class (e.g. ``iterations=50`` for ``ismcts``).
    """
    if settings and (spec == "random" or spec.partition(":")[0] in FILE_AGENTS):
        raise ValueError(f"agent {spec!r} takes no settings, got {sorted(settings)}")
    if spec == "random":
        return RandomAgent(seed)
    own = GAME_AGENTS.get(game_name, {})
    if spec in own:
        try:
            return _load(own[spec])(**settings)
        except TypeError as error:
            raise ValueError(f"bad settings for agent {spec!r}: {error}") from None
    prefix, sep, rest = spec.partition(":")
    if sep and prefix in FILE_AGENTS:
        if not rest:
            raise ValueError(f"agent spec {spec!r} names no file; write {prefix}:PATH")
        return _load(FILE_AGENTS[prefix])(rest)
    if sep and rest:  # module:Class, a top-level module or a dotted one
        return _load_user_agent(spec, settings)
    raise ValueError(
        f"unknown agent {spec!r} for {game_name!r}; known agents: "
        f"{', '.join(agent_names(game_name))}, "
        f"{', '.join(p + ':PATH' for p in FILE_AGENTS)}, or package.module:ClassName"
    )


def _load_user_agent(spec: str, settings: dict[str, Any]) -> Agent:
    try:
        factory = _load(spec)
    except (ImportError, AttributeError) as error:
        raise ValueError(f"cannot import agent {spec!r}: {error}") from None
    if not callable(factory):
        raise ValueError(f"{spec!r} is a {type(factory).__name__}, not an empire_envs Agent class")
    try:
        agent = factory(**settings)
    except TypeError as error:
        raise ValueError(f"bad settings for agent {spec!r}: {error}") from None
    if not isinstance(agent, Agent):
        raise ValueError(f"{spec!r} built a {type(agent).__name__}, not an empire_envs Agent")
    return agent
