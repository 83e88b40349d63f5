"""Every variant knob of Empires and Generals, validated; the only place where their defaults
live. ``docs/rules/generals.md`` explains each rule they change (ruling numbers in brackets)."""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from . import cards
from .cards import CardFileError, CardPool, Deck

GAME_TYPES = {"quick": 3, "normal": 5, "epic": 8}
SLAUGHTER_FLOORS = ("zero", "bottom")
DRAW_MODES = ("choose", "both")
WARCAMP_ATTACKS = ("raider", "any")
REWARD_SCHEMES = ("win_loss", "placement")
PREDESTINATION_NAMES = (
    "standard",
    "ancient_rumble",
    "peaceful_past",
    "knights_of_valor",
    "alone_in_the_dark",
    "classic",
    "classic_peaceful",
    "dynasty_variant",
    "days_gone_by",
    "is_this_real_life",
    "up_to_date",
    "free_for_all",
)
#: the units in play a player may have at once: the slots of the action and observation tables
UNIT_SLOTS = 10
#: Kingdom cards a player may have in play at once [30]
MAX_KINGDOM = 8
BASE_HAND_LIMIT = 7


def _check_choice(name: str, value: object, choices: Sequence[str]) -> None:
    if value not in choices:
        raise ValueError(f"{name} must be one of {tuple(choices)}, got {value!r}")


def _check_int(name: str, value: object, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, got {value!r}")
    if not low <= value <= high:
        raise ValueError(f"{name} must be in {low}..{high}, got {value}")


def _check_bool(name: str, value: object) -> None:
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be a bool, got {value!r}")


def _opening_hand(value: object) -> tuple[int, int]:
    """``opening_hand`` as a pair of card counts; every error quotes the whole value given (a
    string is not read as its characters)."""
    expected = "a pair of ints (cards from the Playing Deck, cards from the Supply Pile), each in 0..30, e.g. (5, 2)"
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        raise TypeError(f"opening_hand must be {expected}; got {value!r} of type {type(value).__name__}")
    if len(value) != 2:
        raise ValueError(f"opening_hand must be {expected}; got {value!r}, which has {len(value)} entries")
    for part in value:
        if isinstance(part, bool) or not isinstance(part, int):
            raise TypeError(f"opening_hand must be {expected}; got {value!r}, whose entry {part!r} is not an int")
        if not 0 <= part <= 30:
            raise ValueError(f"opening_hand must be {expected}; got {value!r}, whose entry {part} is out of range")
    return (value[0], value[1])


def _path_text(name: str, value: object) -> str:
    """A file name given as text or as a ``pathlib.Path`` (any ``os.PathLike``), as text."""
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if not isinstance(value, str) or not value:
        raise TypeError(f"{name} must be a file path (str or pathlib.Path), got {value!r}")
    return value


def _check_card_pool(value: object) -> str:
    path = _path_text("card_pool", value)
    if path != "default" and Path(path).suffix.lower() not in (".toml", ".json"):
        raise CardFileError(f"card_pool must be 'default' or the path of a .toml or .json pool file, got {value!r}")
    return path


def _check_deck_files(value: object) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, (str, bytes, os.PathLike)) or not isinstance(value, Sequence):
        raise TypeError(f"deck_files must be None or a list of deck file paths, got {value!r}")
    paths = tuple(_path_text("deck_files entries", path) for path in value)
    if not paths:
        raise CardFileError(
            "deck_files must name at least one deck file, got an empty list (None means the prebuilt decks)"
        )
    return paths


@functools.lru_cache(maxsize=8)
def _prebuilt_decks(pool: CardPool) -> Mapping[str, Deck]:
    return cards.load_default_decks(pool)


def _load_cards(config: GeneralsConfig) -> tuple[CardPool, dict[str, Deck]]:
    """The pool and the decks seats may be given, read once (when the config is made) and
    checked; every error names the argument that led to it."""
    try:
        pool = cards.load_pool(config.card_pool)
    except CardFileError as error:
        raise type(error)(f"card_pool: {error}") from None
    source = "deck_files" if config.deck_files is not None else "deck_files=None (the prebuilt decks)"
    try:
        if config.deck_files is None:
            decks = dict(_prebuilt_decks(pool))
        else:
            decks = {deck.id: deck for deck in cards.load_decks(config.deck_files, pool)}
        if config.enforce_deck_rules:
            for deck in decks.values():
                cards.check_deck(deck, pool, predestination=config.predestination)
    except CardFileError as error:
        raise type(error)(f"{source}: {error}") from None
    return pool, decks


@dataclass(frozen=True)
class GeneralsConfig:
    """Rule variants of Empires and Generals.

    Attributes:
        num_players: 2 to ``max_seats`` players [3].
        max_seats: the seat rows of the observation and the seat offsets of the action table
            (4; 6 allows 5 and 6 players) [3].
        card_pool: ``"default"`` or the path of a pool file (TOML or JSON; text or a
            ``pathlib.Path``) [1]. The pool and the decks are read and checked once, when the config
            is made; ``pool`` and ``available_decks`` hold them.
        deck_files: ``None`` (the prebuilt decks) or a non-empty list of deck file paths that
            replace them [1].
        decks: ``"random"`` (distinct empires drawn at reset) or one deck id per seat [6].
        allow_mirror: ``decks="random"`` may give two seats the same deck [6].
        enforce_deck_rules: check deck sizes and rarity caps when decks are loaded [5].
        predestination: the legality filter of eras and tags, e.g. ``"standard"`` [8].
        game_type: ``"quick"`` (target 3), ``"normal"`` (5) or ``"epic"`` (8) [9].
        slaughterhouse: start at the target, no Chancellor victory [10].
        slaughter_floor: where a Slaughterhouse player is eliminated: ``"zero"`` or ``"bottom"``
            (minus the target) [10].
        attack_transfer: the attacker gains the CH point its unblocked hit takes [11].
        play_for_second: after a Chancellor victory the others play on for the lower places [15].
        opening_hand: cards drawn at setup from the Playing Deck and from the Supply Pile [17].
        draw_mode: ``"choose"`` a pile for each draw, or draw from ``"both"`` [21].
        deckout_loses: a player who must draw from two empty piles is eliminated [22].
        explicit_harvest: reserved; only ``False`` (lazy, optimal spending) is implemented, as
            the rulings allow for v0 [24].
        max_generals: Generals a player may have in play at once [36].
        warcamp_attacks: who may attack a Warcamp directly: ``"raider"`` units or ``"any"`` [42].
        defender_wins_ties: a blocker kills on strength >= the attacker's life (else > too) [46].
        length_limit: truncation (reward 0 to those still in) after this many rounds [55].
        reward_scheme: ``"win_loss"`` (+1 winner, -1 others) or ``"placement"`` (by finishing
            order, from +1 for first to -1 for last) [1].
        shaping: ``c`` of the optional shaped reward, +c per CH point gained and -c per point
            lost [1].
    """

    num_players: int = 2
    max_seats: int = 4
    card_pool: str | os.PathLike[str] = "default"
    deck_files: Sequence[str | os.PathLike[str]] | None = None
    decks: str | tuple[str, ...] = "random"
    allow_mirror: bool = False
    enforce_deck_rules: bool = True
    predestination: str = "standard"
    game_type: str = "normal"
    slaughterhouse: bool = False
    slaughter_floor: str = "zero"
    attack_transfer: bool = False
    play_for_second: bool = False
    opening_hand: tuple[int, int] = (5, 2)
    draw_mode: str = "choose"
    deckout_loses: bool = False
    explicit_harvest: bool = False
    max_generals: int = 1
    warcamp_attacks: str = "raider"
    defender_wins_ties: bool = True
    length_limit: int = 60
    reward_scheme: str = "win_loss"
    shaping: float = 0.0

    def __post_init__(self) -> None:
        _check_int("max_seats", self.max_seats, 2, 6)
        _check_int("num_players", self.num_players, 2, self.max_seats)
        object.__setattr__(self, "card_pool", _check_card_pool(self.card_pool))
        object.__setattr__(self, "deck_files", _check_deck_files(self.deck_files))
        if isinstance(self.decks, str):
            if self.decks != "random":
                raise ValueError(f"decks must be 'random' or one deck id per seat, got {self.decks!r}")
        else:
            if not isinstance(self.decks, Sequence):
                raise TypeError(f"decks must be 'random' or a list of deck ids, got {self.decks!r}")
            decks = tuple(self.decks)
            if len(decks) != self.num_players or not all(isinstance(d, str) for d in decks):
                raise ValueError(f"decks must name one deck id per seat ({self.num_players}), got {self.decks!r}")
            object.__setattr__(self, "decks", decks)
        for name in (
            "allow_mirror",
            "enforce_deck_rules",
            "slaughterhouse",
            "attack_transfer",
            "play_for_second",
            "deckout_loses",
            "explicit_harvest",
            "defender_wins_ties",
        ):
            _check_bool(name, getattr(self, name))
        if self.explicit_harvest:
            raise ValueError(
                "explicit_harvest=True (spending as a decision) is not part of v0; the env spends "
                "lazily and optimally (ruling 24), so leave it False"
            )
        _check_choice("predestination", self.predestination, PREDESTINATION_NAMES)
        _check_choice("game_type", self.game_type, tuple(GAME_TYPES))
        _check_choice("slaughter_floor", self.slaughter_floor, SLAUGHTER_FLOORS)
        _check_choice("draw_mode", self.draw_mode, DRAW_MODES)
        _check_choice("warcamp_attacks", self.warcamp_attacks, WARCAMP_ATTACKS)
        _check_choice("reward_scheme", self.reward_scheme, REWARD_SCHEMES)
        object.__setattr__(self, "opening_hand", _opening_hand(self.opening_hand))
        _check_int("max_generals", self.max_generals, 1, UNIT_SLOTS)
        _check_int("length_limit", self.length_limit, 1, 100_000)
        if isinstance(self.shaping, bool) or not isinstance(self.shaping, (int, float)):
            raise TypeError(f"shaping must be a number, got {self.shaping!r}")
        if not 0.0 <= self.shaping <= 0.1:
            raise ValueError(f"shaping must be in [0, 0.1] so it stays below a win, got {self.shaping!r}")
        object.__setattr__(self, "shaping", float(self.shaping))
        pool, available = _load_cards(self)
        if isinstance(self.decks, tuple):
            unknown = [name for name in self.decks if name not in available]
            if unknown:
                raise ValueError(f"decks names unknown deck id(s) {unknown}; the decks are {sorted(available)}")
        elif not self.allow_mirror and len(available) < self.num_players:
            raise ValueError(
                f"decks='random' gives {self.num_players} players distinct decks, but only {len(available)} "
                f"{'is' if len(available) == 1 else 'are'} available ({sorted(available)}); add deck_files or "
                "set allow_mirror=True"
            )
        # not fields: loaded data, kept out of equality, hashing and repr
        object.__setattr__(self, "_pool", pool)
        object.__setattr__(self, "_decks", available)

    @property
    def pool(self) -> CardPool:
        """The card pool, read when the config was made."""
        pool: CardPool = self.__dict__["_pool"]
        return pool

    @property
    def available_decks(self) -> Mapping[str, Deck]:
        """The decks seats may be given, by id: the prebuilt ones or those of ``deck_files``,
        read (and checked, with ``enforce_deck_rules``) when the config was made."""
        decks: Mapping[str, Deck] = self.__dict__["_decks"]
        return decks

    @property
    def target(self) -> int:
        """T: the CH a Chancellor victory needs, and the distance to elimination."""
        return GAME_TYPES[self.game_type]

    @property
    def offsets(self) -> int:
        """O: seat offsets 1..O of the action table."""
        return self.max_seats - 1
