"""Agents by name: the masked random agent for every game, each game's own agents (the table of
``empire_envs.agents.registry``), trained models from files, and your own classes.

A game is named by its registry key (``"map_duel"``) or one of its env ids
(``"empire_envs/MapDuel-v0"``, or ``"MapDuel-v0"``); ``game_key(env, fallback)`` gives the key of
an env's game.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Mapping
from typing import Any

from ..core.agent import Agent, RandomAgent, SeededAgent
from ..registry import find_game
from .registry import AgentFactory, agents_of

__all__ = [
    "FILE_AGENTS",
    "Agent",
    "RandomAgent",
    "SeededAgent",
    "agent_names",
    "agent_settings",
    "game_agents",
    "game_key",
    "make_agent",
]


def game_agents(game: str) -> dict[str, AgentFactory]:
    """A game's own agents, name -> ``"package.module:Class"`` (or a callable), for the game named
    by its key (``"map_duel"``) or one of its env ids (``"empire_envs/MapDuel-v0"``, or without
    the namespace); empty for a game the registry does not know (an env of another package)."""
    entry = find_game(game)
    return agents_of(entry.key) if entry is not None else {}


def game_key(env: Any, fallback: str) -> str:
    """The registry key of the game an env plays (its env class's ``game_key``: ``"solo"``), else
    ``fallback``, e.g. the env id (an env of another package has no agents of its own here)."""
    return str(getattr(getattr(env, "unwrapped", env), "game_key", None) or fallback)


def agent_names(game: str) -> list[str]:
    """The agent specs ``make_agent`` accepts for a game (its key or an env id)."""
    return ["random", *game_agents(game)]


def _load(factory: AgentFactory) -> Any:
    if not isinstance(factory, str):
        return factory
    module, _, attribute = factory.partition(":")
    return getattr(importlib.import_module(module), attribute)


#: spec prefixes of agents loaded from a file: ``ppo:PATH`` (a MaskablePPO ``.zip``), ``rllib:PATH``
#: (an RLlib checkpoint, needs the ``distributed`` extra), ``jaxppo:PATH`` (a ``policy.npz`` of the
#: compiled PPO trainer, played with numpy) and ``pretrained:ENV_ID`` (such a policy shipped with
#: the package)
FILE_AGENTS: dict[str, str] = {
    "ppo": "empire_envs.agents.ppo:PPOAgent",
    "rllib": "empire_envs.agents.rllib_agent:RLlibAgent",
    "jaxppo": "empire_envs.agents.jax_ppo:JaxPPOAgent",
    "pretrained": "empire_envs.agents.jax_ppo:pretrained_agent",
}
#: what follows a prefix of ``FILE_AGENTS`` when it is not a path
_FILE_AGENT_ARGUMENT = {"pretrained": "ENV_ID"}
#: the prefixes of ``FILE_AGENTS`` whose agents also take ``game`` (the key or env id of the game
#: they are made for, which they check against the game their file was trained on)
_FILE_AGENT_TAKES_GAME = frozenset({"jaxppo", "pretrained"})


def make_agent(spec: str, game: str, seed: int | None = None, **settings: Any) -> Agent:
    """An agent from its spec, for ``game``: a registry key (``"solo"``) or an env id
    (``"empire_envs/EmpireSolo-v0"``; any id for an env of another package, which has only
    ``random``, the file agents and your own classes).

    ``random`` for any game; one of the game's own names (``agent_names``); ``ppo:PATH`` for a
    MaskablePPO model saved by ``experiments/train.py`` (needs the ``train`` extra);
    ``jaxppo:PATH`` for a ``policy.npz`` of ``train --backend jax`` (numpy only);
    ``pretrained:ENV_ID`` for the policy of that id shipped with the package; or
    ``package.module:ClassName`` for an ``Agent`` subclass of your own. ``settings`` are keyword
    arguments for a game's own agent or your class (e.g. ``iterations=50`` for ``ismcts``).
    """
    if settings and (spec == "random" or spec.partition(":")[0] in FILE_AGENTS):
        raise ValueError(f"agent {spec!r} takes no settings, got {sorted(settings)}")
    if spec == "random":
        return RandomAgent(seed)
    own = game_agents(game)
    if spec in own:
        try:
            return _load(own[spec])(**settings)
        except TypeError as error:
            raise ValueError(f"bad settings for agent {spec!r}: {error}") from None
    prefix, sep, rest = spec.partition(":")
    if sep and prefix in FILE_AGENTS:
        if not rest:
            raise ValueError(
                f"agent spec {spec!r} names no file; write {prefix}:{_FILE_AGENT_ARGUMENT.get(prefix, 'PATH')}"
            )
        if prefix in _FILE_AGENT_TAKES_GAME:
            return _load(FILE_AGENTS[prefix])(rest, game=game)
        return _load(FILE_AGENTS[prefix])(rest)
    if sep and rest:  # module:Class, a top-level module or a dotted one
        return _load_user_agent(spec, settings)
    unknown_game = "" if own or find_game(game) is not None else f" ({game!r} is no registered game key or env id)"
    raise ValueError(
        f"unknown agent {spec!r} for {game!r}{unknown_game}; known agents: "
        f"{', '.join(agent_names(game))}, "
        f"{', '.join(p + ':' + _FILE_AGENT_ARGUMENT.get(p, 'PATH') for p in FILE_AGENTS)}, or package.module:ClassName"
    )


def agent_settings(spec: str, game: str, settings: Mapping[str, Any]) -> dict[str, Any]:
    """The part of ``settings`` that ``spec``'s agent takes as keyword arguments: all of them for
    a class with ``**kwargs``, none for ``random`` and the file agents (``ppo:`` ...). A benchmark
    hands each agent its own part, so ``iterations=50`` reaches ISMCTS and leaves the heuristic
    alone."""
    if not settings or spec == "random" or spec.partition(":")[0] in FILE_AGENTS:
        return {}
    own = game_agents(game)
    try:
        factory = _load(own[spec]) if spec in own else _load(spec) if ":" in spec else None
    except (ImportError, AttributeError):
        return {}  # make_agent says what is wrong with the spec
    if factory is None or not callable(factory):
        return {}
    try:
        parameters = inspect.signature(factory).parameters.values()
    except (TypeError, ValueError):  # a builtin without a signature
        return {}
    if any(parameter.kind is inspect.Parameter.VAR_KEYWORD for parameter in parameters):
        return dict(settings)
    names = {parameter.name for parameter in parameters}
    return {key: value for key, value in settings.items() if key in names}


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
