"""The one table of games and their environment ids.

``GAMES`` lists every game once (``GameEntry``); ``ENTRIES``, every registered id, is derived from
it. Registration, the env classes (``empire_envs.envs``), the agents' table
(``empire_envs.agents.registry``, keyed by ``GameEntry.key``), the speed benchmark, the gallery,
the documentation site and the registry-wide tests all iterate this table, so adding a game is one
package under ``empire_envs/games/`` and one ``GameEntry`` (see ``docs/adding_a_game.md``).

A game is named by its key (``"solo"``, ``"map_duel"``) everywhere; its ``Game`` record's
``name`` is for people to read. The table names the modules it does not import (so that
``import empire_envs`` imports no game) as ``"package.module:attribute"`` strings: the games'
records and JAX twins, a layer below, and the env classes and batched envs that Gymnasium and
PettingZoo load from their entry points. The layers contract of ``pyproject.toml`` reads every
such string of the package as an import (``tests/import_contracts.py``), so none can point up a
layer unseen.
"""

from __future__ import annotations

import functools
import importlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

NAMESPACE = "empire_envs"


@dataclass(frozen=True)
class Variant:
    """One registered id of a game: its name (without the namespace), the config settings that
    differ from the defaults, and a one-line summary."""

    name: str
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    summary: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "kwargs", MappingProxyType(dict(self.kwargs)))


@dataclass(frozen=True)
class GalleryShot:
    """The README's picture of a game: the position after ``steps`` decisions of a seeded game
    played by ``agent`` on every seat (``experiments/gallery.py``)."""

    seed: int
    steps: int
    agent: str = "heuristic"


@dataclass(frozen=True)
class GameEntry:
    """Everything the package knows about one game, in one place: where its rules are, its env
    class, its registered variants and how to show and time it (its agents live a layer up, in
    ``empire_envs.agents.registry``, under the same ``key``).

    A new game is one package under ``empire_envs/games/`` plus one ``GameEntry`` here (or
    ``register_game`` for a game that lives outside the package): envs, ids, the speed benchmark,
    the gallery, the documentation site and the registry-wide tests all read this.
    """

    #: the game's name in code, also the package name for the games of this package: ``"solo"``
    key: str
    #: ``"gymnasium"`` (one seat) or ``"pettingzoo"`` (AEC, several seats)
    api: str
    #: ``"package.module:ATTRIBUTE"`` of the game's ``core.game.Game`` record
    game: str
    #: the game's env class, ``empire_envs.envs.<class_name>`` (written out there for the games of
    #: this package, built for a game added with ``register_game``); for a PettingZoo game this is
    #: the bare ``raw_env``, and ``empire_envs.envs.<key>_env`` the wrapped factory
    class_name: str
    #: the game's registered ids, the first one the main benchmark
    variants: tuple[Variant, ...]
    #: the README's picture of the game (None: not shown)
    gallery: GalleryShot | None = None
    #: the peer env the speed benchmark compares this game with (a name in ``bench_speed``)
    speed_peer: str = ""
    #: the rules page, relative to the repository root
    rules_page: str = ""
    #: PettingZoo's ``metadata["name"]`` of the env
    env_name: str = ""
    #: ``"package.module:function"`` giving the game's batched JAX twin for a config
    #: (``empire_envs.jax``; a one-seat twin also backs ``gymnasium.make_vec``), or "" when it has none
    jax_rules: str = ""

    def __post_init__(self) -> None:
        if self.api not in APIS:
            raise ValueError(f"api must be one of {APIS}, got {self.api!r}")
        if not self.variants:
            raise ValueError(f"game {self.key!r} registers no id")

    @property
    def entry_point(self) -> str:
        """What ``gymnasium.register`` / ``pettingzoo.register`` import to build an env."""
        factory = self.class_name if self.api == "gymnasium" else f"{self.key}_env"
        return f"empire_envs.envs:{factory}"

    def load(self) -> Any:
        """The game's ``Game`` record (imports the game package on first use)."""
        return _load(self.game)


@dataclass(frozen=True)
class EnvEntry:
    """One registered id: which game, which environment class, with which variant settings."""

    env_id: str
    api: str  # "gymnasium" or "pettingzoo"
    entry_point: str
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    summary: str = ""
    #: the ``GameEntry.key`` of the game the id plays
    game: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "kwargs", MappingProxyType(dict(self.kwargs)))


APIS = ("gymnasium", "pettingzoo")

#: The one table of games; ``ENTRIES`` (every registered id) is derived from it.
GAMES: tuple[GameEntry, ...] = (
    GameEntry(
        key="solo",
        api="gymnasium",
        game="empire_envs.games.solo:GAME",
        class_name="EmpireSoloEnv",
        variants=(
            Variant("EmpireSolo-v0", {}, "Empire solo, as ruled"),
            Variant("EmpireSoloShaped-v0", {"shaping": 1.0}, "Empire solo with small rewards for forming units"),
            Variant(
                "EmpireSoloMergeInBattle-v0",
                {"merge_in_battle": True},
                "Empire solo where units may merge while a battle waits",
            ),
        ),
        gallery=GalleryShot(seed=3, steps=12),
        speed_peer="pz_connect_four",
        rules_page="docs/rules/solo.md",
        jax_rules="empire_envs.games.solo.jax_rules:rules_for",
    ),
    GameEntry(
        key="solitaire",
        api="gymnasium",
        game="empire_envs.games.solitaire:GAME",
        class_name="EmpireSolitaireEnv",
        variants=(
            Variant("EmpireSolitaire-v0", {}, "Empire Solitaire, as ruled"),
            Variant("EmpireSolitaireShaped-v0", {"shaping": 0.02}, "Empire Solitaire with a small reward per capture"),
        ),
        gallery=GalleryShot(seed=5, steps=4),
        speed_peer="pz_connect_four",
        rules_page="docs/rules/solitaire.md",
        jax_rules="empire_envs.games.solitaire.jax_rules:rules_for",
    ),
    # Pillars: the ruling's pillars_<n>p_v0 family (docs/rules/pillars.md, section 6).
    GameEntry(
        key="pillars",
        api="pettingzoo",
        game="empire_envs.games.pillars:GAME",
        class_name="PillarsEnv",
        variants=(
            Variant("Pillars-v0", {}, "Pillars, 4 players, 2 packs"),
            Variant("Pillars3p-v0", {"num_players": 3}, "Pillars, 3 players, 2 packs"),
            Variant("Pillars5p-v0", {"num_players": 5}, "Pillars, 5 players, 3 packs"),
            Variant("Pillars6p-v0", {"num_players": 6}, "Pillars, 6 players, 3 packs"),
            Variant(
                "PillarsRPSRandom-v0",
                {"rps_mode": "random"},
                "Pillars, 4 players, battles decided by a coin (no rock-paper-scissors steps)",
            ),
            Variant(
                "PillarsExactCard-v0",
                {"battle_demand": "card"},
                "Pillars, 4 players, battles demand an exact card (53 kinds)",
            ),
            Variant(
                "Pillars2p-v0",
                {"num_players": 2, "allow_2p": True},
                "Pillars, unofficial two-player game, 2 packs",
            ),
        ),
        gallery=GalleryShot(seed=1, steps=40),
        speed_peer="pz_texas_holdem",
        rules_page="docs/rules/pillars.md",
        env_name="pillars_v0",
        jax_rules="empire_envs.games.pillars.jax_rules:rules_for",
    ),
    GameEntry(
        key="pillars_campaign",
        api="pettingzoo",
        game="empire_envs.games.pillars.campaign:CAMPAIGN_GAME",
        class_name="PillarsCampaignEnv",
        variants=(
            Variant(
                "PillarsCampaign-v0",
                {},
                "Pillars' Emperor Overlord series: games until one player has won with all three empires",
            ),
        ),
        rules_page="docs/rules/pillars.md",
        env_name="pillars_campaign_v0",
        jax_rules="empire_envs.games.pillars.jax_campaign:rules_for",
    ),
    # Map Duel: the ruling's map_duel_*_v0 family (docs/rules/map_duel.md).
    GameEntry(
        key="map_duel",
        api="pettingzoo",
        game="empire_envs.games.map_duel:GAME",
        class_name="MapDuelEnv",
        variants=(
            Variant("MapDuel-v0", {}, "Map Duel, as ruled"),
            Variant("MapDuelRandomFirst-v0", {"first_player": "random"}, "Map Duel with a random first player"),
            Variant(
                "MapDuelHiddenPools-v0",
                {"hidden_pools": True},
                "Map Duel where the opponent's pool shows only its size",
            ),
            Variant(
                "MapDuelKing8-v0",
                {"king_reach": "all8", "ace_blocking": "faces"},
                "Map Duel, chess-like: Kings reach diagonals, faces block Aces",
            ),
            Variant("MapDuelB15-v0", {"board_size": 15}, "Map Duel on a 15 x 15 board"),
        ),
        gallery=GalleryShot(seed=2, steps=40),
        speed_peer="pz_connect_four",
        rules_page="docs/rules/map_duel.md",
        env_name="map_duel_v0",
        jax_rules="empire_envs.games.map_duel.jax_rules:rules_for",
    ),
    # Empires and Generals: the ruling's generals_*_v0 family (docs/rules/generals.md).
    GameEntry(
        key="generals",
        api="pettingzoo",
        game="empire_envs.games.generals:GAME",
        class_name="GeneralsEnv",
        variants=(
            Variant(
                "Generals-v0",
                {},
                "Empires and Generals, 2 players, normal game (target 5): the main benchmark",
            ),
            Variant(
                "GeneralsQuick-v0", {"game_type": "quick"}, "Empires and Generals, 2 players, quick game (target 3)"
            ),
            Variant(
                "GeneralsEpic-v0",
                {"game_type": "epic", "length_limit": 100},
                "Empires and Generals, 2 players, epic game (target 8, 100 rounds)",
            ),
            Variant(
                "GeneralsSlaughter-v0",
                {"slaughterhouse": True},
                "Empires and Generals, 2 players, Slaughterhouse (start at 5, no Chancellor victory)",
            ),
            Variant("Generals3p-v0", {"num_players": 3}, "Empires and Generals, 3 players, normal game"),
            Variant("Generals4p-v0", {"num_players": 4}, "Empires and Generals, 4 players, normal game"),
            Variant(
                "Generals4pSlaughter-v0",
                {"num_players": 4, "slaughterhouse": True},
                "Empires and Generals, 4 players, Slaughterhouse",
            ),
        ),
        gallery=GalleryShot(seed=4, steps=60),
        speed_peer="pz_texas_holdem",
        rules_page="docs/rules/generals.md",
        env_name="generals_v0",
        jax_rules="empire_envs.games.generals.jax_rules:rules_for",
    ),
)

_EXTRA_GAMES: list[GameEntry] = []


def _entries_of(game: GameEntry) -> tuple[EnvEntry, ...]:
    return tuple(
        EnvEntry(f"{NAMESPACE}/{variant.name}", game.api, game.entry_point, variant.kwargs, variant.summary, game.key)
        for variant in game.variants
    )


#: Every registered id of the package's own games, in table order.
ENTRIES: tuple[EnvEntry, ...] = tuple(item for game in GAMES for item in _entries_of(game))


def all_games() -> tuple[GameEntry, ...]:
    """The package's games, then those added with ``register_game``."""
    return GAMES + tuple(_EXTRA_GAMES)


def all_entries() -> tuple[EnvEntry, ...]:
    """Every registered id: the package's own, then those of games added with ``register_game``."""
    return ENTRIES + tuple(item for game in _EXTRA_GAMES for item in _entries_of(game))


def game_entry(key: str) -> GameEntry:
    """The ``GameEntry`` of the game ``key`` (``"solo"``)."""
    for game in all_games():
        if game.key == key:
            return game
    known = ", ".join(game.key for game in all_games())
    raise KeyError(f"unknown game {key!r}; games: {known}")


def find_game(key_or_id: str) -> GameEntry | None:
    """The ``GameEntry`` of a game named by its key (``"map_duel"``) or one of its registered
    ids (``"empire_envs/MapDuel-v0"``, or ``"MapDuel-v0"`` without the namespace); None for any
    other name (an env of another package). Imports no game."""
    for game in all_games():
        if game.key == key_or_id:
            return game
    for item in all_entries():
        if key_or_id in (item.env_id, item.env_id.removeprefix(f"{NAMESPACE}/")):
            return game_entry(item.game)
    return None


def game_of_state(state: Any) -> Any:
    """The ``Game`` record whose rules drive ``state`` (found by the state's class)."""
    for game in all_games():
        record = game.load()
        if isinstance(state, record.state_class):
            return record
    raise TypeError(f"no registered game plays states of type {type(state).__name__}")


def register_game(game: GameEntry) -> None:
    """Add a game that lives outside this package (its ``game`` path names your own module) and
    register its ids; everything that iterates the registry (envs, benchmarks) then knows it, and
    ``empire_envs.agents.registry.register_agents`` names its agents. Registering the same key
    twice is an error."""
    if not isinstance(game, GameEntry):
        raise TypeError(f"expected a GameEntry, got {type(game).__name__}")
    if any(known.key == game.key for known in all_games()):
        raise ValueError(f"a game with key {game.key!r} is registered already")
    taken = {item.env_id for item in all_entries()}
    clash = [item.env_id for item in _entries_of(game) if item.env_id in taken]
    if clash:
        raise ValueError(f"ids registered already: {clash}")
    _EXTRA_GAMES.append(game)
    register_all()


def _load(path: str) -> Any:
    module_name, _, attribute = path.partition(":")
    return getattr(importlib.import_module(module_name), attribute)


def entry(env_id: str) -> EnvEntry:
    for candidate in all_entries():
        if candidate.env_id == env_id:
            return candidate
    known = ", ".join(e.env_id for e in all_entries())
    raise KeyError(f"unknown env id {env_id!r}; registered ids: {known}")


def register_all() -> None:
    """Register every id with Gymnasium or PettingZoo; safe to call more than once.

    The Gymnasium ids are registered without ``max_episode_steps``, on purpose. Every game ends,
    or truncates itself by its own ``length_limit`` (reported as ``truncated``), within
    ``max_game_length`` steps (``env.unwrapped.max_game_length``, from the game's record), so
    the ``TimeLimit`` wrapper that ``max_episode_steps`` adds could only do harm: set to that
    bound it would also flag as truncated a game that ends on its last possible step (every won
    Empire Solitaire game takes exactly 23 steps); fixed here, from the variant's settings, it
    would cut short a game whose ``length_limit`` a caller raised with
    ``gymnasium.make(id, length_limit=...)``; and reading the bound here would import every game
    on ``import empire_envs``. For a step limit of your own, pass ``max_episode_steps`` to
    ``gymnasium.make``. PettingZoo's registry has no step limit.

    The ids of games with a JAX twin (``GameEntry.jax_rules``) also get a ``vector_entry_point``:
    ``gymnasium.make_vec(id, num_envs=N)`` then builds the batched JAX env (it needs the ``jax``
    extra; ``vectorization_mode="sync"`` or ``"async"`` still copies the Python env).
    """
    import gymnasium

    twins = {game.key for game in all_games() if game.jax_rules}
    for item in all_entries():
        if item.api == "gymnasium" and item.env_id not in gymnasium.registry:
            gymnasium.register(
                id=item.env_id,
                entry_point=item.entry_point,
                vector_entry_point=_vector_creator(item.env_id) if item.game in twins else None,
                kwargs=dict(item.kwargs),
                max_episode_steps=None,
            )
        elif item.api == "pettingzoo":
            import pettingzoo

            if item.env_id not in pettingzoo.aec_registry:
                pettingzoo.register("aec", item.env_id, item.entry_point, kwargs=dict(item.kwargs))
            if item.env_id not in pettingzoo.parallel_registry:
                pettingzoo.register("parallel", item.env_id, functools.partial(no_parallel_env, item.env_id))


def no_parallel_env(env_id: str, **kwargs: Any) -> Any:
    """What ``pettingzoo.make("parallel", id)`` calls for one of our ids: an error that says why
    there is no parallel env (registered so that the user reads this, not "namespace not found")."""
    raise NotImplementedError(
        f"{env_id} is a turn-based game: one seat acts at a time, so PettingZoo's parallel API (every "
        f'agent acts each step) does not fit it. Make it with pettingzoo.make("aec", "{env_id}") or '
        f'empire_envs.make("{env_id}"). pettingzoo.utils.aec_to_parallel cannot convert it either: it '
        "takes only AEC envs whose metadata says is_parallelizable, which a turn-based game is not."
    )


def _vector_creator(env_id: str) -> Any:
    """What ``gymnasium.make_vec`` calls for ``env_id`` with ``vectorization_mode=
    "vector_entry_point"``: ``make_twin_vec`` bound to the id (a partial of a module-level
    function, so that a spec holding it pickles)."""
    return functools.partial(make_twin_vec, env_id)


def make_twin_vec(env_id: str, num_envs: int = 1, **kwargs: Any) -> Any:
    """``empire_envs.jax.make_vec(env_id, num_envs, **kwargs)``, imported only when called (it
    needs jax), with a clear error when jax is missing. The ids' vector entry point: named by a
    string, as Gymnasium names entry points, since ``empire_envs.jax`` is a layer above."""
    try:
        factory = _load("empire_envs.jax:make_vec")
    except ImportError as error:  # names the extra; say what else the user can do
        raise type(error)(f"{error} (or pass vectorization_mode='sync' to copy the Python env)") from None
    return factory(env_id, num_envs, **kwargs)


def make(env_id: str, **kwargs: Any) -> Any:
    """Build any registered environment (Gymnasium or PettingZoo) by id."""
    item = entry(env_id)
    if item.api == "gymnasium":
        import gymnasium

        register_all()
        return gymnasium.make(env_id, **kwargs)
    return _load(item.entry_point)(**{**item.kwargs, **kwargs})


_IMPORT_PATH = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_]\w*$")


def is_import_path(spec: str) -> bool:
    """True for ``package.module:factory`` (an env factory to import), not for an env id."""
    return bool(_IMPORT_PATH.match(spec))


def make_any(spec: str, **kwargs: Any) -> Any:
    """An environment from any spec, tried in this order: an id of this registry, an AEC id of
    PettingZoo's own registry (``classic/tictactoe-v3``), ``package.module:factory`` (any
    factory, for example one of your own AEC games), or another Gymnasium id."""
    if any(item.env_id == spec for item in all_entries()):
        return make(spec, **kwargs)
    import pettingzoo

    if spec in getattr(pettingzoo, "aec_registry", {}):
        return pettingzoo.make("aec", spec, **kwargs)
    if is_import_path(spec):
        try:
            factory = _load(spec)
        except (ImportError, AttributeError) as error:
            raise ValueError(f"cannot import the env factory {spec!r}: {error}") from None
        if not callable(factory):
            raise ValueError(f"{spec!r} is a {type(factory).__name__}, not an env factory")
        made = factory(**kwargs)
        if not _is_env(made):
            raise ValueError(
                f"{spec!r} made a {type(made).__name__}, not an env: a factory must return a PettingZoo "
                "AEC env or a Gymnasium env"
            )
        return made
    import gymnasium

    register_all()
    namespaced = f"{NAMESPACE}/{spec}"
    if spec not in gymnasium.registry and any(item.env_id == namespaced for item in all_entries()):
        return make(namespaced, **kwargs)
    return gymnasium.make(spec, **kwargs)


def _is_env(candidate: Any) -> bool:
    """Whether ``candidate`` is a PettingZoo AEC env or a Gymnasium env."""
    import gymnasium
    from pettingzoo import AECEnv

    return isinstance(candidate, (AECEnv, gymnasium.Env))


def is_multiplayer(env: Any) -> bool:
    """True for a PettingZoo AEC environment (it has seats), False for a Gymnasium one."""
    from pettingzoo import AECEnv

    return isinstance(env, AECEnv)
