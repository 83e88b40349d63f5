"""The environment classes of every registered game, built from the game table.

For each ``GameEntry`` of ``empire_envs.registry``, this module offers, built on first use:

- ``<class_name>`` (``EmpireSoloEnv``, ``PillarsEnv``, ...): the game's env class: a
  ``GymAdapter`` subclass for a one-seat game, the bare PettingZoo ``AECAdapter`` subclass (what
  PettingZoo calls ``raw_env``) for a multiplayer game. Its docstring is the game's ``env_doc``.
- ``<key>_env(**kwargs)`` for a multiplayer game (``pillars_env``, ``map_duel_env``, ...): the
  env wrapped in PettingZoo's standard wrappers, what ``empire_envs.make`` and
  ``pettingzoo.make("aec", id)`` return.

``env_class(key)``, ``raw_env(key, **kwargs)`` and ``env(key, **kwargs)`` do the same by game key.
The classes live in this module (``__module__`` is ``empire_envs.envs``), so envs pickle and
subprocess vector envs rebuild them by name. No game package knows these adapters: the arrow
goes from here to the games, never back.
"""

from __future__ import annotations

import inspect
from functools import cache
from typing import Any

from .adapters.aec_env import AECAdapter, wrapped_env
from .adapters.gym_env import GymAdapter
from .core.docstrings import call_with_defaults
from .registry import NAMESPACE, GameEntry, all_games, game_entry

#: what a game's ``env_doc`` writes where its Arguments section lists the constructor's keywords
ARGUMENTS_MARK = "{arguments}"


@cache
def env_class(key: str) -> type:
    """The env class of the game ``key`` (built once)."""
    entry = game_entry(key)
    game = entry.load()
    base: type = GymAdapter if entry.api == "gymnasium" else AECAdapter
    namespace: dict[str, Any] = {
        "game": game,
        "__doc__": _docstring(entry, base, game),
        "__module__": __name__,
        "__qualname__": entry.class_name,
    }
    if entry.api == "pettingzoo":
        namespace["metadata"] = {**AECAdapter.metadata, "name": entry.env_name or f"{entry.key}_v0"}
    return type(entry.class_name, (base,), namespace)


def _docstring(entry: GameEntry, base: type, game: Any) -> str:
    """The game's ``env_doc`` with its Arguments mark replaced by the real call: the adapter's
    keywords and every config field, each with its default read from the code."""
    doc = game.env_doc or f"The environment of {game.name}."
    adapter = inspect.signature(base).parameters.values()
    leading = tuple((p.name, p.default) for p in adapter if p.default is not inspect.Parameter.empty)
    main_id = f'"{NAMESPACE}/{entry.variants[0].name}"'
    return doc.replace(ARGUMENTS_MARK, call_with_defaults("empire_envs.make", game.config_class, leading, main_id))


def raw_env(key: str, **kwargs: Any) -> Any:
    """The bare env of game ``key`` (for a multiplayer game: no PettingZoo wrappers)."""
    return env_class(key)(**kwargs)


def env(key: str, **kwargs: Any) -> Any:
    """The env of game ``key`` as the registry makes it: wrapped in PettingZoo's standard
    wrappers for a multiplayer game, the bare class for a one-seat game (``gymnasium.make``
    adds Gymnasium's own wrappers)."""
    made = raw_env(key, **kwargs)
    return wrapped_env(made) if game_entry(key).api == "pettingzoo" else made


def _by_attribute(name: str) -> GameEntry | None:
    for entry in all_games():
        if name == entry.class_name or (entry.api == "pettingzoo" and name == f"{entry.key}_env"):
            return entry
    return None


def __getattr__(name: str) -> Any:
    entry = _by_attribute(name)
    if entry is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if name == entry.class_name:
        return env_class(entry.key)

    def factory(**kwargs: Any) -> Any:
        return env(entry.key, **kwargs)

    factory.__name__ = factory.__qualname__ = name
    factory.__doc__ = f"{entry.class_name} with PettingZoo's standard wrappers (see its docstring for the arguments)."
    return factory


def __dir__() -> list[str]:
    names = [entry.class_name for entry in all_games()]
    names += [f"{entry.key}_env" for entry in all_games() if entry.api == "pettingzoo"]
    return sorted([*globals(), *names])
