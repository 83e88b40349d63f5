"""Each game's own agents, by game key: what ``make_agent(name, game)`` builds besides ``random``.

The table sits beside the agents it names: the game table (``empire_envs.registry``) is a layer
below and names no agent. An agent is ``"package.module:Class"`` (any callable that returns an
``Agent`` will do), imported only when it is made, so naming an agent costs nothing until it
plays. The layers contract of ``pyproject.toml`` reads these strings as imports
(``tests/import_contracts.py``): an agent of the package named here must be in the agents layer
or below, like an import. A game added with ``empire_envs.registry.register_game`` names its
agents with ``register_agents``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any

from ..registry import all_games

#: what builds an agent: ``"package.module:Class"`` (imported when the agent is made) or a callable
AgentFactory = str | Callable[..., Any]

_ISMCTS = {"ismcts": "empire_envs.agents.ismcts:ISMCTSAgent"}
_PILLARS = {
    "heuristic": "empire_envs.agents.pillars_heuristic:PillarsHeuristicAgent",
    **_ISMCTS,
    "heuristic-ismcts": "empire_envs.agents.pillars_heuristic:HeuristicISMCTSAgent",
}

#: game key -> agent name -> agent, for the games of ``empire_envs.registry.GAMES``
GAME_AGENTS: Mapping[str, Mapping[str, AgentFactory]] = MappingProxyType(
    {
        "solo": {
            "heuristic": "empire_envs.agents.solo_heuristic:HeuristicSoloAgent",
            "search": "empire_envs.agents.solo_search:SoloSearchAgent",
            "clairvoyant": "empire_envs.agents.solo_clairvoyant:ClairvoyantSoloAgent",
        },
        "solitaire": {
            "heuristic": "empire_envs.agents.solitaire:GreedySolitaireAgent",
            "greedy": "empire_envs.agents.solitaire:GreedySolitaireAgent",
            "reveal-greedy": "empire_envs.agents.solitaire:RevealThenGreedyAgent",
            "reveal-solve": "empire_envs.agents.solitaire:RevealThenSolveAgent",
            "solver": "empire_envs.agents.solitaire:SolverAgent",
            "optimal": "empire_envs.agents.solitaire:OptimalSolitaireAgent",
        },
        "pillars": _PILLARS,
        # the campaign plays Pillars games: the same agents play its current game
        "pillars_campaign": _PILLARS,
        "map_duel": {"heuristic": "empire_envs.agents.map_duel_heuristic:MapDuelHeuristicAgent", **_ISMCTS},
        "generals": {"heuristic": "empire_envs.agents.generals_heuristic:GeneralsHeuristicAgent", **_ISMCTS},
    }
)

#: agents named with ``register_agents``, by game key
_EXTRA_AGENTS: dict[str, dict[str, AgentFactory]] = {}

#: agent names that mean something for every game (``make_agent``), so no game may take them
RESERVED_NAMES = frozenset({"random", "ppo", "rllib", "jaxppo", "pretrained"})


def agents_of(game_key: str) -> dict[str, AgentFactory]:
    """The own agents of the game ``game_key``, name -> agent (empty for a key without any)."""
    return {**GAME_AGENTS.get(game_key, {}), **_EXTRA_AGENTS.get(game_key, {})}


def register_agents(game_key: str, agents: Mapping[str, AgentFactory]) -> None:
    """Name agents of a registered game (typically one added with ``register_game``), each as
    ``"package.module:Class"`` or a callable returning an ``Agent``; ``make_agent(name, game_key)``
    then builds them. A name the game has already, or one of ``RESERVED_NAMES``, is an error."""
    if not any(game.key == game_key for game in all_games()):
        known = ", ".join(game.key for game in all_games())
        raise KeyError(f"unknown game {game_key!r}; register it first (register_game); games: {known}")
    for name, factory in agents.items():
        if not isinstance(name, str) or not name or ":" in name:
            raise ValueError(f"an agent name is a non-empty string without ':', got {name!r}")
        if not (isinstance(factory, str) or callable(factory)):
            raise TypeError(f"agent {name!r}: expected 'package.module:Class' or a callable, got {factory!r}")
    taken = sorted((set(agents) & set(agents_of(game_key))) | (set(agents) & RESERVED_NAMES))
    if taken:
        raise ValueError(f"{game_key} has agents named {taken} already")
    _EXTRA_AGENTS.setdefault(game_key, {}).update(agents)
