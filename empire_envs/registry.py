"""The one table of environment ids: it drives registration and the conformance tests."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

NAMESPACE = "empire_envs"


@dataclass(frozen=True)
class EnvEntry:
    """One registered id: which environment class, with which variant settings."""

    env_id: str
    api: str  # "gymnasium" or "pettingzoo"
    entry_point: str
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    summary: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "kwargs", MappingProxyType(dict(self.kwargs)))


_SOLO = "empire_envs.games.solo.env:EmpireSoloEnv"

_SOLITAIRE = "empire_envs.games.solitaire.env:EmpireSolitaireEnv"

_PILLARS = "empire_envs.games.pillars.env:env"

_PILLARS_CAMPAIGN = "empire_envs.games.pillars.campaign:env"

_MAP_DUEL = "empire_envs.games.map_duel.env:env"

_GENERALS = "empire_envs.games.generals.env:env"

ENTRIES: tuple[EnvEntry, ...] = (
    EnvEntry(f"{NAMESPACE}/EmpireSolo-v0", "gymnasium", _SOLO, {}, "Empire solo, as ruled"),
    EnvEntry(
        f"{NAMESPACE}/EmpireSoloShaped-v0",
        "gymnasium",
        _SOLO,
        {"shaped_reward": True},
        "Empire solo with small rewards for forming units",
    ),
    EnvEntry(
        f"{NAMESPACE}/EmpireSoloMergeInBattle-v0",
        "gymnasium",
        _SOLO,
        {"merge_in_battle": True},
        "Empire solo where units may merge while a battle waits",
    ),
    EnvEntry(
        f"{NAMESPACE}/EmpireSolitaire-v0",
        "gymnasium",
        _SOLITAIRE,
        {},
        "Empire Solitaire, as ruled",
    ),
    EnvEntry(
        f"{NAMESPACE}/EmpireSolitaireShaped-v0",
        "gymnasium",
        _SOLITAIRE,
        {"shaped_reward": True},
        "Empire Solitaire with a small reward per capture",
    ),
    # Pillars: the ruling's pillars_<n>p_v0 family (docs/rules/pillars.md, section 6).
    EnvEntry(f"{NAMESPACE}/Pillars-v0", "pettingzoo", _PILLARS, {}, "Pillars, 4 players, 2 packs"),
    EnvEntry(
        f"{NAMESPACE}/Pillars3p-v0",
        "pettingzoo",
        _PILLARS,
        {"num_players": 3},
        "Pillars, 3 players, 2 packs",
    ),
    EnvEntry(
        f"{NAMESPACE}/Pillars5p-v0",
        "pettingzoo",
        _PILLARS,
        {"num_players": 5},
        "Pillars, 5 players, 3 packs",
    ),
    EnvEntry(
        f"{NAMESPACE}/Pillars6p-v0",
        "pettingzoo",
        _PILLARS,
        {"num_players": 6},
        "Pillars, 6 players, 3 packs",
    ),
    EnvEntry(
        f"{NAMESPACE}/PillarsRPSRandom-v0",
        "pettingzoo",
        _PILLARS,
        {"rps_mode": "random"},
        "Pillars, 4 players, battles decided by a coin (no rock-paper-scissors steps)",
    ),
    EnvEntry(
        f"{NAMESPACE}/PillarsExactCard-v0",
        "pettingzoo",
        _PILLARS,
        {"battle_demand": "card"},
        "Pillars, 4 players, battles demand an exact card (53 kinds)",
    ),
    EnvEntry(
        f"{NAMESPACE}/Pillars2p-v0",
        "pettingzoo",
        _PILLARS,
        {"num_players": 2, "allow_2p": True},
        "Pillars, unofficial two-player game, 2 packs",
    ),
    EnvEntry(
        f"{NAMESPACE}/PillarsCampaign-v0",
        "pettingzoo",
        _PILLARS_CAMPAIGN,
        {},
        "Pillars' Emperor Overlord series: games until one player has won with all three empires",
    ),
    # Map Duel: the ruling's map_duel_*_v0 family (docs/rules/map_duel.md).
    EnvEntry(f"{NAMESPACE}/MapDuel-v0", "pettingzoo", _MAP_DUEL, {}, "Map Duel, as ruled"),
    EnvEntry(
        f"{NAMESPACE}/MapDuelRandomFirst-v0",
        "pettingzoo",
        _MAP_DUEL,
        {"first_player": "random"},
        "Map Duel with a random first player",
    ),
    EnvEntry(
        f"{NAMESPACE}/MapDuelHiddenPools-v0",
        "pettingzoo",
        _MAP_DUEL,
        {"hidden_pools": True},
        "Map Duel where the opponent's pool shows only its size",
    ),
    EnvEntry(
        f"{NAMESPACE}/MapDuelKing8-v0",
        "pettingzoo",
        _MAP_DUEL,
        {"king_reach": "all8", "ace_blocking": "faces"},
        "Map Duel, chess-like: Kings reach diagonals, faces block Aces",
    ),
    EnvEntry(
        f"{NAMESPACE}/MapDuelB15-v0",
        "pettingzoo",
        _MAP_DUEL,
        {"board_size": 15},
        "Map Duel on a 15 x 15 board",
    ),
    # Empires and Generals: the ruling's generals_*_v0 family (docs/rules/generals.md).
    EnvEntry(
        f"{NAMESPACE}/Generals-v0",
        "pettingzoo",
        _GENERALS,
        {},
        "Empires and Generals, 2 players, normal game (target 5): the main benchmark",
    ),
    EnvEntry(
        f"{NAMESPACE}/GeneralsQuick-v0",
        "pettingzoo",
        _GENERALS,
        {"game_type": "quick"},
        "Empires and Generals, 2 players, quick game (target 3)",
    ),
    EnvEntry(
        f"{NAMESPACE}/GeneralsEpic-v0",
        "pettingzoo",
        _GENERALS,
        {"game_type": "epic", "max_rounds": 100},
        "Empires and Generals, 2 players, epic game (target 8, 100 rounds)",
    ),
    EnvEntry(
        f"{NAMESPACE}/GeneralsSlaughter-v0",
        "pettingzoo",
        _GENERALS,
        {"slaughterhouse": True},
        "Empires and Generals, 2 players, Slaughterhouse (start at 5, no Chancellor victory)",
    ),
    EnvEntry(
        f"{NAMESPACE}/Generals3p-v0",
        "pettingzoo",
        _GENERALS,
        {"num_players": 3},
        "Empires and Generals, 3 players, normal game",
    ),
    EnvEntry(
        f"{NAMESPACE}/Generals4p-v0",
        "pettingzoo",
        _GENERALS,
        {"num_players": 4},
        "Empires and Generals, 4 players, normal game",
    ),
    EnvEntry(
        f"{NAMESPACE}/Generals4pSlaughter-v0",
        "pettingzoo",
        _GENERALS,
        {"num_players": 4, "slaughterhouse": True},
        "Empires and Generals, 4 players, Slaughterhouse",
    ),
)


def entry(env_id: str) -> EnvEntry:
    for candidate in ENTRIES:
        if candidate.env_id == env_id:
            return candidate
    known = ", ".join(e.env_id for e in ENTRIES)
    raise KeyError(f"unknown env id {env_id!r}; registered ids: {known}")


def register_all() -> None:
    """Register every id with Gymnasium or PettingZoo; safe to call more than once."""
    import gymnasium

    for item in ENTRIES:
        if item.api == "gymnasium" and item.env_id not in gymnasium.registry:
            gymnasium.register(id=item.env_id, entry_point=item.entry_point, kwargs=dict(item.kwargs))
        elif item.api == "pettingzoo":
            import pettingzoo

            if item.env_id not in pettingzoo.aec_registry:
                pettingzoo.register("aec", item.env_id, item.entry_point, kwargs=dict(item.kwargs))


def make(env_id: str, **kwargs: Any) -> Any:
    """Build any registered environment (Gymnasium or PettingZoo) by id."""
    item = entry(env_id)
    if item.api == "gymnasium":
        import gymnasium

        register_all()
        return gymnasium.make(env_id, **kwargs)
    import importlib

    module_name, _, attribute = item.entry_point.partition(":")
    factory = getattr(importlib.import_module(module_name), attribute)
    return factory(**{**item.kwargs, **kwargs})


_IMPORT_PATH = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")


def is_import_path(spec: str) -> bool:
    """True for ``package.module:factory`` (an env factory to import), not for an env id."""
    return bool(_IMPORT_PATH.match(spec))


def make_any(spec: str, **kwargs: Any) -> Any:
    """An environment from any spec, tried in this order: an id of this registry, an AEC id of
    PettingZoo's own registry (``classic/tictactoe-v3``), ``package.module:factory`` (any
    factory, for example one of your own AEC games), or another Gymnasium id."""
    if any(item.env_id == spec for item in ENTRIES):
        return make(spec, **kwargs)
    import pettingzoo

    if spec in getattr(pettingzoo, "aec_registry", {}):
        return pettingzoo.make("aec", spec, **kwargs)
    if is_import_path(spec):
        import importlib

        module_name, _, attribute = spec.partition(":")
        try:
            factory = getattr(importlib.import_module(module_name), attribute)
        except (ImportError, AttributeError) as error:
            raise ValueError(f"cannot import the env factory {spec!r}: {error}") from None
        return factory(**kwargs)
    import gymnasium

    register_all()
    namespaced = f"{NAMESPACE}/{spec}"
    if spec not in gymnasium.registry and any(item.env_id == namespaced for item in ENTRIES):
        return make(namespaced, **kwargs)
    return gymnasium.make(spec, **kwargs)


def is_multiplayer(env: Any) -> bool:
    """True for a PettingZoo AEC environment (it has seats), False for a Gymnasium one."""
    from pettingzoo import AECEnv

    return isinstance(env, AECEnv)
