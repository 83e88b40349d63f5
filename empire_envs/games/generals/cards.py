"""Card data of Empires and Generals: the pool file, the deck files and deck legality.

Every card is data (ruling 1); the engine only knows the closed effect vocabulary below. This
module turns card and deck files into immutable objects and refuses anything it cannot read
with certainty. ``docs/rules/generals.md (section 8)`` is the human version of this docstring.

Pool file (TOML, or JSON with the same structure when the name ends in ``.json``)
    Top level: ``schema_version = 1`` (required), ``pool = "<name>"`` (required, non-empty
    text) and ``card``, a non-empty list of tables. No other top-level key is accepted.

    Every card needs ``ref`` (integer >= 1, unique: the ultra-rare ban compares refs), ``id``
    (unique, ``[a-z0-9_]+``), ``name`` (non-empty text), ``type`` (general, soldier, kingdom,
    strategy, tactics, resource, capitol), ``faction`` (a lower-case word such as rome or
    unaffiliated), ``era`` (antiquity, medieval, early_modern, modern, any) and ``rarity``
    (common, uncommon, rare, ultra_rare). Optional everywhere: ``tags`` (a list drawn from
    act_of_god and great_mystery; only predestinations read them) and ``text`` (free text for
    people; the engine never reads it). Every type but resource requires ``cost``.

    ================  ==========================  ========================================
    key               types                       value
    ================  ==========================  ========================================
    strength, life    general, soldier            integer >= 0, required
    keywords          general, soldier            list from no_pull, pull, raider,
                                                  first_strike (not both pull and no_pull)
    field_str         general, soldier            integer >= 0
    camp_life         general, soldier            integer >= 0
    attack_str        general, soldier            integer >= 0
    block_life        general, soldier            integer >= 0
    aura_str          general                     integer >= 0
    on_play_ch        units and statics           integer >= 0
    on_play_draw      general, soldier            integer >= 0
    on_kill_ch        general, soldier            integer >= 0
    ability           general, soldier            table of exactly cost (>= 0), effect
                                                  (draw or gain_ch) and amount (>= 1)
    harvest ...       statics                     integer >= 0 (harvest, draw_extra,
                                                  ch_per_turn, soldier_str, soldier_life,
                                                  general_str, general_life, camp_life_all,
                                                  soldier_discount, hand_limit,
                                                  on_block_kill_ch)
    grant_raider      statics                     true or false
    grant_no_pull     statics                     true or false
    timing            tactics                     battle or main, required
    side              tactics                     attacker, defender or any; battle only;
                                                  a battle tactic without it is ``any``
    effect            tactics                     battle: withdraw_self, remove_enemy,
                                                  pump_str, pump_life; main:
                                                  destroy_kingdom, draw, gain_ch; required
    amount            tactics                     integer >= 1, required by pump_str,
                                                  pump_life, draw and gain_ch, refused
                                                  by the other effects
    value             resource                    integer >= 1, required
    continuous        resource                    true or false
    ================  ==========================  ========================================

    "Statics" are kingdom, strategy and capitol. A boolean is never accepted as an integer, and
    no integer may exceed ``MAX_CARD_NUMBER`` (1,000; ``ref``: ``MAX_REF``, 999,999), which
    keeps every total of the engine and the observation exact in float32.
    Any other key, or a key on a type the table does not list, is an error. Errors are
    ``CardFileError`` whose message names the file, the card (id, else its position, plus its
    ref when readable) and the key. The whole file is checked before any object is built, so a
    failed load returns nothing.

Deck file (TOML or JSON)
    ``id`` (``[a-z0-9_]+``), ``name`` (text), ``empire`` (a lower-case word; rome, mongols,
    egypt and franks are the known empires), ``playing`` (table: card id -> count 1..1,000) and
    an optional ``supply`` table of the same form (missing means empty); a pile holds at most
    ``MAX_PILE_CARDS`` (1,000) cards, and a card id may appear in one pile only (the pile a card
    is drawn from is public, and ``rules.determinize`` relies on it). Unknown card ids raise
    ``DeckError``; malformed entries raise ``CardFileError``; ``load_decks`` refuses two decks
    with one id. Loading does not judge legality: ``check_deck`` does (the engine skips it when
    ``enforce_deck_rules=False``).

Either file
    Besides bad syntax, a reader refuses a key named twice in one table (JSON readers would keep
    the last value), an integer too long for Python to read, and lists or tables nested deeper
    than ``MAX_NESTING`` (32), each with the file and the line or key.

Deck legality (``check_deck``, ruling 5 plus the placement rule of sections 5.2 and 5.4)
    Resources and capitols belong to the Supply Pile, every other card to the Playing Deck
    (the opening hand and the draw choice of rulings 17 and 21 assume it). The Playing Deck
    holds 25 to 75 cards; the Supply Pile any number, 0 included. Within one pile a kind
    appears at most 5 times if common, 3 if uncommon, 1 if rare; a player holds at most one
    ultra rare card across both piles. Every card must pass the predestination filter
    (section 5.7): its era is allowed (era ``any`` always is), and neither one of its tags nor
    its faction is excluded.

Card encoding
    Generals deals no standard playing cards, so nothing here comes from
    ``empire_envs.core.cards``. A card is a **kind** of the loaded pool: ``k = 0..K-1`` in
    ascending ``ref`` order (``CardPool.kinds[k]``, and ``CardPool.index(card_id)`` back), and
    every copy of a kind is identical, so a zone holds a count per kind and a ``Deck`` lists kind
    indices. The rules, the action table (``PLAY(k)``, ``DISCARD_HAND(k)``, ``TARGET_KIND(k)``)
    and the observation (counts and one-hots per kind) all index by ``k``; a card's ``id`` names
    it in files, action names and pictures. The type words of the files are declared here once
    (``CARD_TYPES``, ``UNIT_TYPES``, ``STATIC_TYPES``) and the engine asks them through
    ``CardKind``'s predicates (``is_unit``, ``is_general``, ``is_static``, ``is_main_tactic``,
    ...); ``KNOWN_EMPIRES`` are the prebuilt decks' empires and the observation's empire one-hot
    (any other empire shares one last entry).

One module, over 600 lines, on purpose: it is the card file format's one reader and checker,
and its docstring is the format's specification; each check sits beside the key it reads.
"""

from __future__ import annotations

import functools
import json
import os
import re
import reprlib
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, TypeGuard

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised only on Python 3.10
    import tomli as tomllib

__all__ = [
    "ABILITY_EFFECTS",
    "BATTLE_EFFECTS",
    "CARD_TYPES",
    "ERAS",
    "KEYWORDS",
    "MAIN_EFFECTS",
    "PREDESTINATIONS",
    "RARITIES",
    "RARITY_CAPS",
    "SCHEMA_VERSION",
    "Ability",
    "CardFileError",
    "CardKind",
    "CardPool",
    "Deck",
    "DeckError",
    "card_allowed",
    "check_deck",
    "decks_table_markdown",
    "default_deck_ids",
    "describe_effects",
    "load_deck",
    "load_decks",
    "load_default_decks",
    "load_pool",
    "pool_as_dict",
    "pool_table_markdown",
    "predestinations_table_markdown",
]

SCHEMA_VERSION = 1
DATA_DIR = Path(__file__).resolve().parent / "data"
DEFAULT_POOL_PATH = DATA_DIR / "default_pool.toml"
DEFAULT_DECKS_DIR = DATA_DIR / "decks"

CARD_TYPES = ("general", "soldier", "kingdom", "strategy", "tactics", "resource", "capitol")
ERAS = ("antiquity", "medieval", "early_modern", "modern", "any")
RARITIES = ("common", "uncommon", "rare", "ultra_rare")
KEYWORDS = ("no_pull", "pull", "raider", "first_strike")
TAGS = ("act_of_god", "great_mystery")
TIMINGS = ("battle", "main")
SIDES = ("attacker", "defender", "any")
BATTLE_EFFECTS = ("withdraw_self", "remove_enemy", "pump_str", "pump_life")
MAIN_EFFECTS = ("destroy_kingdom", "draw", "gain_ch")
EFFECTS_WITH_AMOUNT = frozenset({"pump_str", "pump_life", "draw", "gain_ch"})
ABILITY_EFFECTS = ("draw", "gain_ch")
KNOWN_EMPIRES = ("rome", "mongols", "egypt", "franks")

UNIT_TYPES = frozenset({"general", "soldier"})
STATIC_TYPES = frozenset({"kingdom", "strategy", "capitol"})
SUPPLY_TYPES = frozenset({"resource", "capitol"})

#: copies of one kind allowed in one pile; ultra rares are limited per player instead
RARITY_CAPS = {"common": 5, "uncommon": 3, "rare": 1}
ULTRA_RARES_PER_PLAYER = 1
PLAYING_DECK_SIZE = (25, 75)

#: the largest number a card may carry (cost, strength, value, ...): every total the engine and
#: the observation form from such numbers stays exact in float32
MAX_CARD_NUMBER = 1000
MAX_REF = 999_999
#: the most cards one pile of a deck file may hold, legal or not (``enforce_deck_rules=False``)
MAX_PILE_CARDS = 1000
#: lists and tables nested deeper than this are refused (a valid file needs 3 levels)
MAX_NESTING = 32

#: name -> (allowed eras, None for all; excluded tags; excluded factions). Era "any" always passes.
PREDESTINATIONS: dict[str, tuple[frozenset[str] | None, frozenset[str], frozenset[str]]] = {
    "standard": (None, frozenset({"act_of_god"}), frozenset()),
    "ancient_rumble": (frozenset({"antiquity"}), frozenset(), frozenset()),
    "peaceful_past": (frozenset({"antiquity"}), frozenset({"act_of_god"}), frozenset()),
    "knights_of_valor": (frozenset({"medieval"}), frozenset(), frozenset()),
    "alone_in_the_dark": (frozenset({"medieval"}), frozenset({"act_of_god"}), frozenset()),
    "classic": (frozenset({"antiquity", "medieval"}), frozenset({"great_mystery"}), frozenset()),
    "classic_peaceful": (frozenset({"antiquity", "medieval"}), frozenset({"act_of_god"}), frozenset()),
    "dynasty_variant": (frozenset({"antiquity", "medieval"}), frozenset({"act_of_god"}), frozenset({"unaffiliated"})),
    "days_gone_by": (frozenset({"antiquity", "medieval", "early_modern"}), frozenset(), frozenset()),
    "is_this_real_life": (
        frozenset({"antiquity", "medieval", "early_modern"}),
        frozenset({"great_mystery"}),
        frozenset(),
    ),
    "up_to_date": (frozenset({"antiquity", "medieval", "early_modern"}), frozenset({"act_of_god"}), frozenset()),
    "free_for_all": (None, frozenset(), frozenset()),
}
#: the printed names, for the rules page
PREDESTINATION_TITLES = {
    "standard": "Standard",
    "ancient_rumble": "Ancient Rumble",
    "peaceful_past": "Peaceful Past",
    "knights_of_valor": "Knights of Valor",
    "alone_in_the_dark": "Alone in the Dark",
    "classic": "Classic",
    "classic_peaceful": "Classic Peaceful",
    "dynasty_variant": "Dynasty Variant",
    "days_gone_by": "Days Gone By",
    "is_this_real_life": "Is this real life?",
    "up_to_date": "Up to date",
    "free_for_all": "Free For All, No Holds Barred",
}

_WORD = re.compile(r"[a-z0-9_]+")


class CardFileError(ValueError):
    """A card or deck file cannot be read; the message names the file, the card and the key."""


class DeckError(CardFileError):
    """A deck is not legal (size, rarity caps, placement, unknown card, predestination)."""


@dataclass(frozen=True)
class Ability:
    """An activated ability: pay ``cost`` once per turn in the Army phase for ``effect``."""

    cost: int
    effect: str
    amount: int


@dataclass(frozen=True)
class CardKind:
    """One card definition of a pool; every copy of a kind is identical."""

    index: int
    ref: int
    id: str
    name: str
    type: str
    faction: str
    era: str
    rarity: str
    tags: tuple[str, ...] = ()
    cost: int = 0
    strength: int = 0
    life: int = 0
    keywords: frozenset[str] = frozenset()
    field_str: int = 0
    camp_life: int = 0
    attack_str: int = 0
    block_life: int = 0
    aura_str: int = 0
    on_play_ch: int = 0
    on_play_draw: int = 0
    on_kill_ch: int = 0
    ability: Ability | None = None
    harvest: int = 0
    draw_extra: int = 0
    ch_per_turn: int = 0
    soldier_str: int = 0
    soldier_life: int = 0
    general_str: int = 0
    general_life: int = 0
    camp_life_all: int = 0
    soldier_discount: int = 0
    hand_limit: int = 0
    on_block_kill_ch: int = 0
    grant_raider: bool = False
    grant_no_pull: bool = False
    timing: str | None = None
    side: str | None = None
    effect: str | None = None
    amount: int = 0
    value: int = 0
    continuous: bool = False
    text: str = ""

    @property
    def is_unit(self) -> bool:
        return self.type in UNIT_TYPES

    @property
    def is_general(self) -> bool:
        return self.type == "general"

    @property
    def is_soldier(self) -> bool:
        return self.type == "soldier"

    @property
    def is_kingdom(self) -> bool:
        return self.type == "kingdom"

    @property
    def is_strategy(self) -> bool:
        return self.type == "strategy"

    @property
    def is_capitol(self) -> bool:
        return self.type == "capitol"

    @property
    def is_tactic(self) -> bool:
        return self.type == "tactics"

    @property
    def is_main_tactic(self) -> bool:
        """A tactic played in its owner's Kingdom phase (``timing = "main"``)."""
        return self.type == "tactics" and self.timing == "main"

    @property
    def is_battle_tactic(self) -> bool:
        """A tactic played in a battle's tactic window (``timing = "battle"``)."""
        return self.type == "tactics" and self.timing == "battle"

    @property
    def is_resource(self) -> bool:
        return self.type == "resource"

    @property
    def is_static(self) -> bool:
        """Kingdom, Strategy and Capitol cards: their effects hold while they are in play."""
        return self.type in STATIC_TYPES

    @property
    def is_ultra_rare(self) -> bool:
        return self.rarity == "ultra_rare"

    @property
    def in_supply(self) -> bool:
        """Whether the card belongs to the Supply Pile (resources, capitols) or the Playing Deck."""
        return self.type in SUPPLY_TYPES


@dataclass(frozen=True)
class CardPool:
    """The loaded card definitions, in ascending ref order (kind k is ``kinds[k]``)."""

    name: str
    kinds: tuple[CardKind, ...]
    source: str
    _by_id: Mapping[str, int] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_by_id", {kind.id: kind.index for kind in self.kinds})

    def index(self, card_id: str) -> int:
        """The kind index of ``card_id``."""
        try:
            return self._by_id[card_id]
        except KeyError:
            raise KeyError(f"card pool {self.name!r} has no card {card_id!r}") from None

    def kind(self, card_id: str) -> CardKind:
        return self.kinds[self.index(card_id)]

    @property
    def size(self) -> int:
        return len(self.kinds)


@dataclass(frozen=True)
class Deck:
    """A player's two decks as sorted kind indices, one entry per copy."""

    id: str
    name: str
    empire: str
    playing: tuple[int, ...]
    supply: tuple[int, ...]
    source: str


# ---------------------------------------------------------------------------------------------
# value checks: each returns the normalized value or raises _Bad with the reason


class _Bad(Exception):
    """A value is wrong; the caller adds the file, the card and the key to the reason."""


class _LongNumber:
    """What the JSON reader makes of an integer too long to be a card number: no Python int is
    built from it (Python refuses beyond 4,300 digits, and a shorter one only needs refusing)."""

    def __init__(self, digits: str) -> None:
        self.digits = len(digits.lstrip("-"))

    def __repr__(self) -> str:
        return f"<an integer of {self.digits} digits>"


class _ShortRepr(reprlib.Repr):
    def repr_int(self, x: int, level: int) -> str:
        if x.bit_length() > 200:  # Python will not even print one of more than 4,300 digits
            return f"<an integer of about {int(x.bit_length() * 0.30103) + 1} digits>"
        return super().repr_int(x, level)


_SHORT = _ShortRepr()
_SHORT.maxlevel = 3
_SHORT.maxstring = _SHORT.maxother = 60
_SHORT.maxlong = 40


def short_repr(value: object) -> str:
    """A bad value as messages show it: long lists, texts, numbers and deep nesting cut short."""
    return _SHORT.repr(value)


def _is_int(value: object) -> TypeGuard[int]:
    # bool is a subclass of int, but `strength = true` is a mistake, not 1
    return isinstance(value, int) and not isinstance(value, bool)


def _integer_in(low: int, high: int) -> Callable[[object], int]:
    def check(value: object) -> int:
        if not _is_int(value) or not low <= value <= high:
            raise _Bad(f"must be an integer {low}..{high}, got {short_repr(value)}")
        return value

    return check


_count = _integer_in(0, MAX_CARD_NUMBER)
_positive = _integer_in(1, MAX_CARD_NUMBER)
_ref = _integer_in(1, MAX_REF)


def _flag(value: object) -> bool:
    if not isinstance(value, bool):
        raise _Bad(f"must be true or false, got {short_repr(value)}")
    return value


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise _Bad(f"must be text, got {short_repr(value)}")
    return value


def _name(value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _Bad(f"must be non-empty text, got {short_repr(value)}")
    return value


def _word(value: object) -> str:
    if not isinstance(value, str) or not _WORD.fullmatch(value):
        raise _Bad(f"must match [a-z0-9_]+, got {short_repr(value)}")
    return value


def _choice(options: Sequence[str]) -> Callable[[object], str]:
    def check(value: object) -> str:
        if not isinstance(value, str) or value not in options:
            raise _Bad(f"must be one of {', '.join(options)}; got {short_repr(value)}")
        return value

    return check


def _distinct_words(options: Sequence[str]) -> Callable[[object], tuple[str, ...]]:
    def check(value: object) -> tuple[str, ...]:
        if not isinstance(value, list):
            raise _Bad(f"must be a list drawn from {', '.join(options)}; got {short_repr(value)}")
        for word in value:
            if word not in options:
                raise _Bad(f"must only hold {', '.join(options)}; got {short_repr(word)}")
        if len(set(value)) != len(value):
            raise _Bad(f"repeats an entry: {short_repr(value)}")
        return tuple(sorted(value, key=options.index))

    return check


_ABILITY_CHECKS = {"cost": _count, "effect": _choice(ABILITY_EFFECTS), "amount": _positive}


def _ability(value: object) -> Ability:
    if not isinstance(value, dict) or set(value) != set(_ABILITY_CHECKS):
        raise _Bad(f"must be a table of exactly cost, effect and amount; got {short_repr(value)}")
    checked: dict[str, Any] = {}
    for part, check in _ABILITY_CHECKS.items():
        try:
            checked[part] = check(value[part])
        except _Bad as bad:
            raise _Bad(f"part {part!r} {bad}") from None
    return Ability(**checked)


# ---------------------------------------------------------------------------------------------
# the vocabulary of section 5.1: key -> (card types that may carry it, value check)

_EVERY_TYPE = frozenset(CARD_TYPES)
_UNIT_OR_STATIC = UNIT_TYPES | STATIC_TYPES
STATIC_COUNTS = (
    "harvest",
    "draw_extra",
    "ch_per_turn",
    "soldier_str",
    "soldier_life",
    "general_str",
    "general_life",
    "camp_life_all",
    "soldier_discount",
    "hand_limit",
    "on_block_kill_ch",
)
#: every effect a Kingdom, Strategy or Capitol card holds while in play: the counts, then the
#: keywords granted to all of the owner's Soldiers
STATIC_EFFECTS = (*STATIC_COUNTS, "grant_raider", "grant_no_pull")

CARD_KEYS: dict[str, tuple[frozenset[str], Callable[[object], Any]]] = {
    "ref": (_EVERY_TYPE, _ref),
    "id": (_EVERY_TYPE, _word),
    "name": (_EVERY_TYPE, _name),
    "type": (_EVERY_TYPE, _choice(CARD_TYPES)),
    "faction": (_EVERY_TYPE, _word),
    "era": (_EVERY_TYPE, _choice(ERAS)),
    "rarity": (_EVERY_TYPE, _choice(RARITIES)),
    "tags": (_EVERY_TYPE, _distinct_words(TAGS)),
    "text": (_EVERY_TYPE, _text),
    "cost": (_EVERY_TYPE - {"resource"}, _count),
    "strength": (UNIT_TYPES, _count),
    "life": (UNIT_TYPES, _count),
    "keywords": (UNIT_TYPES, _distinct_words(KEYWORDS)),
    "field_str": (UNIT_TYPES, _count),
    "camp_life": (UNIT_TYPES, _count),
    "attack_str": (UNIT_TYPES, _count),
    "block_life": (UNIT_TYPES, _count),
    "aura_str": (frozenset({"general"}), _count),
    "on_play_ch": (_UNIT_OR_STATIC, _count),
    "on_play_draw": (UNIT_TYPES, _count),
    "on_kill_ch": (UNIT_TYPES, _count),
    "ability": (UNIT_TYPES, _ability),
    **{key: (STATIC_TYPES, _count) for key in STATIC_COUNTS},
    "grant_raider": (STATIC_TYPES, _flag),
    "grant_no_pull": (STATIC_TYPES, _flag),
    "timing": (frozenset({"tactics"}), _choice(TIMINGS)),
    "side": (frozenset({"tactics"}), _choice(SIDES)),
    "effect": (frozenset({"tactics"}), _choice(BATTLE_EFFECTS + MAIN_EFFECTS)),
    "amount": (frozenset({"tactics"}), _positive),
    "value": (frozenset({"resource"}), _positive),
    "continuous": (frozenset({"resource"}), _flag),
}

_REQUIRED_EVERYWHERE = ("ref", "id", "name", "type", "faction", "era", "rarity")
REQUIRED_KEYS: dict[str, tuple[str, ...]] = {
    "general": (*_REQUIRED_EVERYWHERE, "cost", "strength", "life"),
    "soldier": (*_REQUIRED_EVERYWHERE, "cost", "strength", "life"),
    "kingdom": (*_REQUIRED_EVERYWHERE, "cost"),
    "strategy": (*_REQUIRED_EVERYWHERE, "cost"),
    "capitol": (*_REQUIRED_EVERYWHERE, "cost"),
    "tactics": (*_REQUIRED_EVERYWHERE, "cost", "timing", "effect"),
    "resource": (*_REQUIRED_EVERYWHERE, "value"),
}
_POOL_KEYS = ("schema_version", "pool", "card")


def _card_label(raw: Mapping[str, object], position: int) -> str:
    """How messages name a card: its id when readable, else its 1-based position; plus its ref."""
    ident, ref = raw.get("id"), raw.get("ref")
    label = f"card {ident!r}" if isinstance(ident, str) and _WORD.fullmatch(ident) else (f"card #{position}")
    return f"{label} (ref {ref})" if _is_int(ref) else label


def _tactic_problem(card: Mapping[str, Any]) -> tuple[str, str] | None:
    """(key, reason) when timing, side, effect and amount of a tactic do not fit together."""
    timing, effect = card["timing"], card["effect"]
    if timing == "main" and "side" in card:
        return "side", "is only allowed with timing 'battle'"
    if timing == "battle" and effect not in BATTLE_EFFECTS:
        return "effect", f"{effect!r} needs timing 'main', not 'battle'"
    if timing == "main" and effect not in MAIN_EFFECTS:
        return "effect", f"{effect!r} needs timing 'battle', not 'main'"
    if effect in EFFECTS_WITH_AMOUNT and "amount" not in card:
        return "amount", f"is missing (effect {effect!r} needs it)"
    if effect not in EFFECTS_WITH_AMOUNT and "amount" in card:
        return "amount", f"is not used by effect {effect!r}"
    return None


def _checked_card(raw: object, position: int, where_file: str) -> dict[str, Any]:
    """One card table, validated and normalized into CardKind keyword arguments (no index)."""
    if not isinstance(raw, dict):
        raise CardFileError(f"{where_file}: card #{position}: must be a table, got {short_repr(raw)}")
    label = f"{where_file}: {_card_label(raw, position)}"

    def fail(key: str, reason: str) -> CardFileError:
        return CardFileError(f"{label}: key {key!r} {reason}")

    for key in raw:
        if key not in CARD_KEYS:
            raise CardFileError(f"{label}: unknown key {key!r} (not in the card vocabulary)")
    if "type" not in raw:
        raise fail("type", "is missing")
    try:
        card_type = CARD_KEYS["type"][1](raw["type"])
    except _Bad as bad:
        raise fail("type", str(bad)) from None
    for key in raw:
        if card_type not in CARD_KEYS[key][0]:
            raise fail(key, f"is not allowed on a {card_type} card")
    for key in REQUIRED_KEYS[card_type]:
        if key not in raw:
            raise fail(key, f"is missing (required on a {card_type} card)")
    card: dict[str, Any] = {}
    for key, value in raw.items():
        try:
            card[key] = CARD_KEYS[key][1](value)
        except _Bad as bad:
            raise fail(key, str(bad)) from None
    if {"pull", "no_pull"} <= set(card.get("keywords", ())):
        raise fail("keywords", "cannot hold both 'pull' and 'no_pull'")
    if card_type == "tactics":
        problem = _tactic_problem(card)
        if problem:
            raise fail(*problem)
        if card["timing"] == "battle":
            card.setdefault("side", "any")  # a battle tactic that names no side fits either
    if "keywords" in card:
        card["keywords"] = frozenset(card["keywords"])
    return card


def _check_unique(cards: Sequence[dict[str, Any]], key: str, where_file: str) -> None:
    first_holder: dict[object, dict[str, Any]] = {}
    for position, card in enumerate(cards, start=1):
        holder = first_holder.setdefault(card[key], card)
        if holder is not card:
            raise CardFileError(
                f"{where_file}: {_card_label(card, position)}: key {key!r} {card[key]!r} is "
                f"already used by card {holder['id']!r}"
            )


def _checked_pool(data: object, where_file: str) -> tuple[str, list[dict[str, Any]]]:
    """The pool name and its cards as validated keyword arguments, in ascending ref order."""
    if not isinstance(data, dict):
        raise CardFileError(f"{where_file}: the file must hold a table at the top level")
    for key in data:
        if key not in _POOL_KEYS:
            raise CardFileError(f"{where_file}: unknown top-level key {key!r}")
    version = data.get("schema_version")
    if not _is_int(version) or version != SCHEMA_VERSION:
        raise CardFileError(f"{where_file}: key 'schema_version' must be {SCHEMA_VERSION}, got {short_repr(version)}")
    try:
        name = _name(data.get("pool"))
    except _Bad as bad:
        raise CardFileError(f"{where_file}: key 'pool' {bad}") from None
    raw_cards = data.get("card")
    if not isinstance(raw_cards, list) or not raw_cards:
        raise CardFileError(f"{where_file}: key 'card' must be a non-empty list of card tables")
    cards = [_checked_card(raw, position, where_file) for position, raw in enumerate(raw_cards, start=1)]
    _check_unique(cards, "ref", where_file)
    _check_unique(cards, "id", where_file)
    return name, sorted(cards, key=lambda card: card["ref"])


class _RepeatedKey(Exception):
    """A JSON table names one key twice (JSON readers would silently keep the last one)."""


def _json_table(pairs: list[tuple[str, object]]) -> dict[str, object]:
    table: dict[str, object] = {}
    for key, value in pairs:
        if key in table:
            raise _RepeatedKey(key, dict(pairs).get("id"))
        table[key] = value
    return table


def _json_int(digits: str) -> int | _LongNumber:
    return _LongNumber(digits) if len(digits) > 40 else int(digits)


def _where(text: str, offset: int) -> str:
    """A place in a file as "line N", plus "(key 'k')" when a key starts that line: for
    errors the readers report without a position."""
    line_start = text.rfind("\n", 0, offset) + 1
    where = f"line {text.count(chr(10), 0, offset) + 1}"
    key = re.match(r"\s*[\"']?([A-Za-z0-9_]+)[\"']?\s*[=:]", text[line_start:])
    return f"{where} (key {key.group(1)!r})" if key else where


def _deep_offset(text: str) -> int:
    """Where brackets first nest deeper than ``MAX_NESTING`` (quoted text skipped)."""
    depth, quote, escaped = 0, "", False
    for offset, char in enumerate(text):
        if quote:
            escaped = char == "\\" and not escaped
            if char == quote and not escaped:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char in "[{":
            depth += 1
            if depth > MAX_NESTING:
                return offset
        elif char in "]}":
            depth -= 1
    return 0


def _too_deep(data: object) -> list[str | int] | None:
    """The path (keys and list positions) to a list or table nested deeper than
    ``MAX_NESTING``, or None; no recursion, since the data may be pathological."""
    stack: list[tuple[object, list[str | int]]] = [(data, [])]
    while stack:
        item, path = stack.pop()
        if not isinstance(item, (dict, list)):
            continue
        if len(path) >= MAX_NESTING:
            return path
        children = item.items() if isinstance(item, dict) else enumerate(item)
        stack.extend((child, [*path, step]) for step, child in children)
    return None


def _path_text(path: list[str | int]) -> str:
    steps = [f"key {step!r}" if isinstance(step, str) else f"entry {step + 1}" for step in path[:4]]
    return ", ".join(steps) + (", ..." if len(path) > 4 else "")


def _read_structured(path: Path) -> object:
    """A TOML or JSON file's data; the suffix decides the format. Refused, with the file and
    the line or key at fault: bad syntax, a key given twice in one table (TOML forbids it;
    JSON readers would keep the last one), integers too long for Python to read, and lists or
    tables nested more than ``MAX_NESTING`` deep."""
    suffix = path.suffix.lower()
    if suffix not in (".toml", ".json"):
        raise CardFileError(f"{path}: a card or deck file must end in .toml or .json")
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise CardFileError(f"{path}: cannot read the file ({error})") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise CardFileError(f"{path}: not valid UTF-8 text ({error})") from None
    try:
        if suffix == ".toml":
            data = tomllib.loads(text)
        else:
            data = json.loads(text, object_pairs_hook=_json_table, parse_int=_json_int)
    except _RepeatedKey as repeated:
        key, ident = repeated.args
        within = f" (the table with id {short_repr(ident)})" if isinstance(ident, str) else ""
        raise CardFileError(
            f"{path}: key {short_repr(key)} appears twice in one table{within}; a JSON reader would keep "
            "only the last value, so give each key once"
        ) from None
    except RecursionError:
        where = _where(text, _deep_offset(text))
        raise CardFileError(f"{path}: lists or tables nested more than {MAX_NESTING} levels deep ({where})") from None
    except ValueError as error:  # TOMLDecodeError and JSONDecodeError are ValueErrors too
        too_long = re.search(r"[0-9_]{4000}", text)
        if too_long is None:
            raise CardFileError(f"{path}: not valid {suffix[1:].upper()} ({error})") from None
        raise CardFileError(
            f"{path}: an integer too long to read ({_where(text, too_long.start())}); card numbers "
            f"are at most {MAX_CARD_NUMBER}"
        ) from None
    deep = _too_deep(data)
    if deep is not None:
        raise CardFileError(f"{path}: {_path_text(deep)}: lists or tables nested more than {MAX_NESTING} levels deep")
    return data


def _pool_from_file(path: Path) -> CardPool:
    name, cards = _checked_pool(_read_structured(path), str(path))
    kinds = tuple(CardKind(index=k, **card) for k, card in enumerate(cards))
    return CardPool(name=name, kinds=kinds, source=str(path))


@functools.lru_cache(maxsize=1)
def _default_pool() -> CardPool:
    pool = _pool_from_file(DEFAULT_POOL_PATH)
    return CardPool(name=pool.name, kinds=pool.kinds, source="default")


def load_pool(source: str | os.PathLike[str] = "default") -> CardPool:
    """The card pool of a file, or the packaged default pool for ``"default"`` (cached)."""
    if isinstance(source, str) and source == "default":
        return _default_pool()
    return _pool_from_file(Path(source))


# ---------------------------------------------------------------------------------------------
# decks

_DECK_KEYS = ("id", "name", "empire", "playing", "supply")
_PILES = ("playing", "supply")


def _pile_indices(section: object, pile: str, pool: CardPool, label: str) -> tuple[int, ...]:
    """One ``[playing]`` or ``[supply]`` table as sorted kind indices, one per copy."""
    if not isinstance(section, dict):
        raise CardFileError(f"{label}: key {pile!r} must be a table of card id = count")
    indices: list[int] = []
    for card_id, count in section.items():
        if not _is_int(count) or not 1 <= count <= MAX_PILE_CARDS:
            raise CardFileError(
                f"{label}: [{pile}] card {short_repr(card_id)}: count must be an integer 1..{MAX_PILE_CARDS}, "
                f"got {short_repr(count)}"
            )
        try:
            k = pool.index(card_id)
        except KeyError:
            raise DeckError(
                f"{label}: [{pile}] card {short_repr(card_id)}: unknown card id "
                f"(card pool {pool.name!r} has no such card)"
            ) from None
        indices.extend([k] * count)
        if len(indices) > MAX_PILE_CARDS:
            raise CardFileError(
                f"{label}: [{pile}] card {short_repr(card_id)}: the pile holds more than {MAX_PILE_CARDS} cards, "
                "the most a pile may hold"
            )
    return tuple(sorted(indices))


def _deck_from_data(data: object, pool: CardPool, where_file: str) -> Deck:
    if not isinstance(data, dict):
        raise CardFileError(f"{where_file}: the file must hold a table at the top level")
    ident = data.get("id")
    label = f"{where_file}: deck {ident!r}" if isinstance(ident, str) else f"{where_file}: deck"
    for key in data:
        if key not in _DECK_KEYS:
            raise CardFileError(f"{label}: unknown key {key!r}")
    checks = {"id": _word, "name": _name, "empire": _word}
    header: dict[str, Any] = {}
    for key, check in checks.items():
        if key not in data:
            raise CardFileError(f"{label}: key {key!r} is missing")
        try:
            header[key] = check(data[key])
        except _Bad as bad:
            raise CardFileError(f"{label}: key {key!r} {bad}") from None
    if "playing" not in data:
        raise CardFileError(f"{label}: key 'playing' is missing")
    piles: dict[str, Any] = {pile: _pile_indices(data.get(pile, {}), pile, pool, label) for pile in _PILES}
    in_both = sorted(set(piles["playing"]) & set(piles["supply"]))
    if in_both:
        # the pile a card is drawn from is public, so the pile each card came from must be clear
        raise CardFileError(
            f"{label}: [supply] card {pool.kinds[in_both[0]].id!r}: is in [playing] too; a card id may "
            "appear in one pile of a deck only"
        )
    return Deck(**header, **piles, source=where_file)


def load_deck(path: str | os.PathLike[str], pool: CardPool) -> Deck:
    """A deck file, its card ids resolved against ``pool``; legality is ``check_deck``'s job."""
    path = Path(path)
    return _deck_from_data(_read_structured(path), pool, str(path))


def load_decks(paths: Iterable[str | os.PathLike[str]], pool: CardPool) -> list[Deck]:
    """Several deck files, in the given order; two decks with the same id are refused."""
    decks: list[Deck] = []
    first_with: dict[str, Deck] = {}
    for path in paths:
        deck = load_deck(path, pool)
        earlier = first_with.setdefault(deck.id, deck)
        if earlier is not deck:
            raise CardFileError(
                f"{deck.source}: deck {deck.id!r}: key 'id' {deck.id!r} is already the id of the deck in "
                f"{earlier.source}; deck ids must be unique"
            )
        decks.append(deck)
    return decks


def default_deck_ids() -> tuple[str, ...]:
    """The prebuilt decks of section 5.4, in the order of the empire one-hot."""
    return KNOWN_EMPIRES


def load_default_decks(pool: CardPool) -> dict[str, Deck]:
    """The four prebuilt decks, by id."""
    decks = {}
    for deck_id in default_deck_ids():
        deck = load_deck(DEFAULT_DECKS_DIR / f"{deck_id}.toml", pool)
        if deck.id != deck_id:
            raise DeckError(f"{deck.source}: key 'id' must be {deck_id!r}, got {deck.id!r}")
        decks[deck_id] = deck
    return decks


def card_allowed(kind: CardKind, predestination: str = "standard") -> str | None:
    """None if the predestination admits the card, else the reason it does not."""
    eras, excluded_tags, excluded_factions = _predestination(predestination)
    if eras is not None and kind.era != "any" and kind.era not in eras:
        return (
            f"era {kind.era!r} is not allowed by predestination {predestination!r} (allowed: {', '.join(sorted(eras))})"
        )
    for tag in kind.tags:
        if tag in excluded_tags:
            return f"tags: {tag!r} is excluded by predestination {predestination!r}"
    if kind.faction in excluded_factions:
        return f"faction {kind.faction!r} is excluded by predestination {predestination!r}"
    return None


def _predestination(name: str) -> tuple[frozenset[str] | None, frozenset[str], frozenset[str]]:
    try:
        return PREDESTINATIONS[name]
    except KeyError:
        raise ValueError(f"unknown predestination {name!r}; choose one of {', '.join(PREDESTINATIONS)}") from None


def _kind_label(kind: CardKind) -> str:
    return f"card {kind.id!r} (ref {kind.ref})"


def check_deck(deck: Deck, pool: CardPool, *, predestination: str = "standard") -> None:
    """Raise ``DeckError`` unless the deck is legal (see the module docstring)."""
    _predestination(predestination)  # a misspelt name is a config error even for a legal deck
    label = f"{deck.source}: deck {deck.id!r}"
    piles = {"playing": deck.playing, "supply": deck.supply}
    for pile, indices in piles.items():
        if any(not 0 <= k < pool.size for k in indices):
            raise DeckError(f"{label}: [{pile}] holds a kind index outside pool {pool.name!r}")
    for pile, indices in piles.items():
        for kind in (pool.kinds[k] for k in sorted(set(indices))):
            belongs = "supply" if kind.in_supply else "playing"
            if belongs != pile:
                raise DeckError(f"{label}: [{pile}] {_kind_label(kind)}: type {kind.type!r} belongs in [{belongs}]")
    low, high = PLAYING_DECK_SIZE
    if not low <= len(deck.playing) <= high:
        raise DeckError(f"{label}: [playing] holds {len(deck.playing)} cards; a Playing Deck needs {low} to {high}")
    for pile, indices in piles.items():
        for k, copies in sorted(Counter(indices).items()):
            kind = pool.kinds[k]
            cap = RARITY_CAPS.get(kind.rarity)
            if cap is not None and copies > cap:
                raise DeckError(
                    f"{label}: [{pile}] {_kind_label(kind)}: {copies} copies, but "
                    f"rarity {kind.rarity!r} allows at most {cap} per deck"
                )
    ultra = [pool.kinds[k] for k in deck.playing + deck.supply if pool.kinds[k].is_ultra_rare]
    if len(ultra) > ULTRA_RARES_PER_PLAYER:
        names = ", ".join(_kind_label(kind) for kind in ultra)
        raise DeckError(
            f"{label}: [playing] and [supply] hold {len(ultra)} cards of rarity "
            f"'ultra_rare' ({names}); a player may hold at most "
            f"{ULTRA_RARES_PER_PLAYER}"
        )
    for pile, indices in piles.items():
        for kind in (pool.kinds[k] for k in sorted(set(indices))):
            reason = card_allowed(kind, predestination)
            if reason:
                raise DeckError(f"{label}: [{pile}] {_kind_label(kind)}: {reason}")


# ---------------------------------------------------------------------------------------------
# writing pools back out, and the tables of the rules page

_DEFAULTS = {f.name: f.default for f in fields(CardKind) if f.name != "index"}


def _card_as_dict(kind: CardKind) -> dict[str, Any]:
    """A kind in the file structure: the keys its type requires, plus every non-default one."""
    required = REQUIRED_KEYS[kind.type]
    card: dict[str, Any] = {}
    for key, (types, _) in CARD_KEYS.items():
        value = getattr(kind, key)
        if kind.type not in types or (key not in required and value == _DEFAULTS[key]):
            continue
        if key == "keywords":
            value = [word for word in KEYWORDS if word in value]
        elif key == "tags":
            value = list(value)
        elif key == "ability":
            value = {"cost": value.cost, "effect": value.effect, "amount": value.amount}
        card[key] = value
    return card


def pool_as_dict(pool: CardPool) -> dict[str, Any]:
    """The pool in the structure of a pool file (``json.dump`` it to get a loadable file)."""
    return {"schema_version": SCHEMA_VERSION, "pool": pool.name, "card": [_card_as_dict(kind) for kind in pool.kinds]}


def describe_effects(kind: CardKind) -> str:
    """A short summary of what a kind does, e.g. ``"no_pull, raider"`` or
    ``"battle, any, pump_str 2"``."""
    parts = [word for word in KEYWORDS if word in kind.keywords]
    if kind.is_tactic:
        parts.append(", ".join(filter(None, (kind.timing, kind.side, kind.effect))))
        if kind.effect in EFFECTS_WITH_AMOUNT:
            parts[-1] += f" {kind.amount}"
    skip = {
        "ref",
        "id",
        "name",
        "type",
        "faction",
        "era",
        "rarity",
        "tags",
        "text",
        "cost",
        "strength",
        "life",
        "keywords",
        "ability",
        "timing",
        "side",
        "effect",
        "amount",
        "value",
    }
    for key in CARD_KEYS:
        value = getattr(kind, key)
        if key in skip or value == _DEFAULTS[key]:
            continue
        parts.append(key if isinstance(value, bool) else f"{key} {value}")
    if kind.ability:
        ability = kind.ability
        parts.append(f"ability cost {ability.cost}: {ability.effect} {ability.amount}")
    parts.extend(f"tag {tag}" for tag in kind.tags)
    return ", ".join(parts)


def _markdown_table(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    def line(cells: Sequence[object]) -> str:
        return "| " + " | ".join(str(cell).replace("|", "\\|") for cell in cells) + " |"

    return "\n".join([line(header), line(["---"] * len(header)), *map(line, rows)]) + "\n"


def pool_table_markdown(pool: CardPool) -> str:
    """The pool as a Markdown table, one row per kind, for the rules page."""

    def numbers(kind: CardKind) -> str:
        if kind.is_unit:
            return f"{kind.strength}/{kind.life}"
        return str(kind.value) if kind.is_resource else ""

    rows = [
        (
            kind.ref,
            f"`{kind.id}`",
            kind.name,
            kind.type,
            kind.faction,
            kind.era,
            kind.rarity,
            "-" if kind.is_resource else kind.cost,
            numbers(kind),
            describe_effects(kind),
        )
        for kind in pool.kinds
    ]
    header = ("ref", "id", "name", "type", "faction", "era", "rarity", "cost", "S/L or value", "effects")
    return _markdown_table(header, rows)


def _counts_text(pool: CardPool, indices: Sequence[int], wanted: Callable[[CardKind], bool]) -> str:
    counts = Counter(indices)
    return ", ".join(f"{pool.kinds[k].id} {n}" for k, n in sorted(counts.items()) if wanted(pool.kinds[k]))


def decks_table_markdown(pool: CardPool, decks: Mapping[str, Deck]) -> str:
    """The decks as a Markdown table: one row per deck, one column per card type."""
    columns = (
        ("Generals", lambda kind: kind.is_general),
        ("Soldiers", lambda kind: kind.is_soldier),
        ("Kingdom", lambda kind: kind.is_kingdom),
        ("Strategy", lambda kind: kind.is_strategy),
        ("Tactics", lambda kind: kind.is_tactic),
    )
    rows = []
    for deck in decks.values():
        cells = [_counts_text(pool, deck.playing, wanted) for _, wanted in columns]
        supply = _counts_text(pool, deck.supply, lambda kind: True)
        rows.append((f"{deck.name} (`{deck.id}`)", len(deck.playing), *cells, len(deck.supply), supply))
    header = ("deck", "playing", *(name for name, _ in columns), "supply", "Supply Pile")
    return _markdown_table(header, rows)


def predestinations_table_markdown() -> str:
    """``PREDESTINATIONS`` as a Markdown table, for the rules page."""
    rows = []
    for name, (eras, tags, factions) in PREDESTINATIONS.items():
        allowed = "all" if eras is None else ", ".join(e for e in ERAS if e in eras)
        excluded = [f"tag {tag}" for tag in sorted(tags)]
        excluded += [f"faction {faction}" for faction in sorted(factions)]
        rows.append((PREDESTINATION_TITLES[name], f"`{name}`", allowed, ", ".join(excluded) or "-"))
    return _markdown_table(("predestination", "key", "eras (besides any)", "excluded"), rows)
