"""The environment classes of the games, one class per entry of the game table.

- ``EmpireSoloEnv``, ``EmpireSolitaireEnv``: ``GymAdapter`` subclasses (Gymnasium, one seat).
- ``PillarsEnv``, ``PillarsCampaignEnv``, ``MapDuelEnv``, ``GeneralsEnv``: ``AECAdapter``
  subclasses, the bare PettingZoo envs (what PettingZoo calls ``raw_env``); ``pillars_env()``,
  ``pillars_campaign_env()``, ``map_duel_env()`` and ``generals_env()`` wrap them in PettingZoo's
  standard wrappers, which is what ``empire_envs.make`` and ``pettingzoo.make("aec", id)`` return.

Each class names its game's ``Game`` record and registry key; ``@game_env`` checks them against
the game's ``GameEntry`` (``empire_envs.registry``) and writes the docstring from the game's
``env_doc``. ``env_class(key)``, ``raw_env(key, **kwargs)`` and ``env(key, **kwargs)`` do the same
by game key, also for a game added with ``registry.register_game``, whose class is built here on
first use (``empire_envs.envs.<class_name>``). The classes live in this module, so envs pickle
and subprocess vector envs rebuild them by name. No game package knows these adapters: the arrow
goes from here to the games, never back.
"""

from __future__ import annotations

import inspect
from functools import cache
from typing import Any, TypeVar

from .adapters.aec_env import AECAdapter, wrapped_env
from .adapters.gym_env import GymAdapter
from .core.docstrings import call_with_defaults
from .games import generals, map_duel, pillars, solitaire, solo
from .games.pillars import campaign
from .registry import NAMESPACE, GameEntry, all_games, game_entry

#: what a game's ``env_doc`` writes where its Arguments section lists the constructor's keywords
ARGUMENTS_MARK = "{arguments}"

EnvClass = TypeVar("EnvClass")


def _docstring(entry: GameEntry, base: type, game: Any) -> str:
    """The game's ``env_doc`` with its Arguments mark replaced by the real call: the adapter's
    keywords and every config field, each with its default read from the code."""
    doc = game.env_doc or f"The environment of {game.name}."
    adapter = inspect.signature(base).parameters.values()
    leading = tuple((p.name, p.default) for p in adapter if p.default is not inspect.Parameter.empty)
    main_id = f'"{NAMESPACE}/{entry.variants[0].name}"'
    return doc.replace(ARGUMENTS_MARK, call_with_defaults("empire_envs.make", game.config_class, leading, main_id))


def game_env(env_class: EnvClass) -> EnvClass:
    """Finish an env class of the game table: check that its name, ``game`` and ``game_key`` are
    those of its ``GameEntry``, write its docstring (the game's ``env_doc`` with the real call,
    every argument with its default) and, for a PettingZoo game, its ``metadata["name"]``."""
    cls: Any = env_class
    entry = game_entry(cls.game_key)
    if cls.__name__ != entry.class_name or cls.game is not entry.load():
        raise TypeError(f"{cls.__name__} is not the env class of {entry.key!r} ({entry.class_name}, {entry.game})")
    base = GymAdapter if entry.api == "gymnasium" else AECAdapter
    if not issubclass(cls, base):
        raise TypeError(f"{cls.__name__}: a {entry.api} game's env class subclasses {base.__name__}")
    cls.__doc__ = _docstring(entry, base, cls.game)
    if entry.api == "pettingzoo":
        cls.metadata = {**AECAdapter.metadata, "name": entry.env_name or f"{entry.key}_v0"}
    return env_class


@game_env
class EmpireSoloEnv(GymAdapter):
    game = solo.GAME
    game_key = "solo"


@game_env
class EmpireSolitaireEnv(GymAdapter):
    game = solitaire.GAME
    game_key = "solitaire"


@game_env
class PillarsEnv(AECAdapter):
    game = pillars.GAME
    game_key = "pillars"


@game_env
class PillarsCampaignEnv(AECAdapter):
    game = campaign.CAMPAIGN_GAME
    game_key = "pillars_campaign"


@game_env
class MapDuelEnv(AECAdapter):
    game = map_duel.GAME
    game_key = "map_duel"


@game_env
class GeneralsEnv(AECAdapter):
    game = generals.GAME
    game_key = "generals"


def pillars_env(**kwargs: Any) -> Any:
    """``PillarsEnv`` with PettingZoo's standard wrappers (its docstring lists the arguments)."""
    return wrapped_env(PillarsEnv(**kwargs))


def pillars_campaign_env(**kwargs: Any) -> Any:
    """``PillarsCampaignEnv`` with PettingZoo's standard wrappers (its docstring lists the arguments)."""
    return wrapped_env(PillarsCampaignEnv(**kwargs))


def map_duel_env(**kwargs: Any) -> Any:
    """``MapDuelEnv`` with PettingZoo's standard wrappers (its docstring lists the arguments)."""
    return wrapped_env(MapDuelEnv(**kwargs))


def generals_env(**kwargs: Any) -> Any:
    """``GeneralsEnv`` with PettingZoo's standard wrappers (its docstring lists the arguments)."""
    return wrapped_env(GeneralsEnv(**kwargs))


#: the env class of each game of ``registry.GAMES``, by key
ENV_CLASSES: dict[str, type] = {
    cls.game_key: cls
    for cls in (EmpireSoloEnv, EmpireSolitaireEnv, PillarsEnv, PillarsCampaignEnv, MapDuelEnv, GeneralsEnv)
}


def env_class(key: str) -> type:
    """The env class of the game ``key``."""
    return ENV_CLASSES.get(key) or _added_game_class(key)


@cache
def _added_game_class(key: str) -> type:
    """The env class of a game added with ``register_game``, built once, the way the classes
    above are written."""
    entry = game_entry(key)
    base: type = GymAdapter if entry.api == "gymnasium" else AECAdapter
    namespace = {"game": entry.load(), "game_key": entry.key, "__module__": __name__, "__qualname__": entry.class_name}
    return game_env(type(entry.class_name, (base,), namespace))


def raw_env(key: str, **kwargs: Any) -> Any:
    """The bare env of game ``key`` (for a multiplayer game: no PettingZoo wrappers)."""
    return env_class(key)(**kwargs)


def env(key: str, **kwargs: Any) -> Any:
    """The env of game ``key`` as the registry makes it: wrapped in PettingZoo's standard
    wrappers for a multiplayer game, the bare class for a one-seat game (``gymnasium.make``
    adds Gymnasium's own wrappers)."""
    made = raw_env(key, **kwargs)
    return wrapped_env(made) if game_entry(key).api == "pettingzoo" else made


def _added_game(name: str) -> GameEntry | None:
    """The game added with ``register_game`` whose class or wrapped factory is ``name``."""
    for entry in all_games():
        if entry.key in ENV_CLASSES:
            continue
        if name == entry.class_name or (entry.api == "pettingzoo" and name == f"{entry.key}_env"):
            return entry
    return None


def __getattr__(name: str) -> Any:
    """``empire_envs.envs.<class_name>`` and ``<key>_env`` of a game added with ``register_game``
    (what its registered entry point names)."""
    entry = _added_game(name)
    if entry is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    if name == entry.class_name:
        return env_class(entry.key)
    key = entry.key

    def factory(**kwargs: Any) -> Any:
        return env(key, **kwargs)

    factory.__name__ = factory.__qualname__ = name
    factory.__doc__ = f"{entry.class_name} with PettingZoo's standard wrappers (see its docstring for the arguments)."
    return factory


def __dir__() -> list[str]:
    added = [entry for entry in all_games() if entry.key not in ENV_CLASSES]
    names = [entry.class_name for entry in added]
    names += [f"{entry.key}_env" for entry in added if entry.api == "pettingzoo"]
    return sorted([*globals(), *names])
