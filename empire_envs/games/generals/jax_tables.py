"""The card pool and the decks of a Generals config as fixed-shape arrays, for the JAX twin.

The Python rules read a card's numbers off its ``CardKind`` (``rules.tables.CardTables`` and
``tables.kinds[k]``); the twin reads the same numbers as one row per kind of these arrays
(``k = 0..K-1``, ``CardPool.kinds``' order, ascending ref), so that no card is special-cased in
the twin's code: a new card with today's vocabulary is a new row, nothing else.

Every column holds the raw value of the card, whatever its type, just as the Python rules read
``getattr(kind, ...)`` (``derived.unit_numbers`` sums ``aura_str`` over every Battlefield unit,
Soldiers included, for instance); where the rules ask a field only of some types, the twin's step
asks it in the same place. Codes index the twin's own vocabulary tuples (``TWIN_CARD_TYPES``,
...), which equal the card module's (``cards.CARD_TYPES``, ...) today; -1 is "none".

=====================  ============  ===================================  ======================================
column                 dtype/shape   meaning                              the Python it mirrors
=====================  ============  ===================================  ======================================
``ref``                int32[K]      the card's ref                       ``CardKind.ref``
``pay_order``          int32[K]      the kind's rank by ref (0 lowest):   ``derived.payment_choice``'s
                                     the payment rule's tie-break on      ``sorted(kinds[k].ref ...)``
                                     refs compares these
``type_code``          int32[K]      index into ``TWIN_CARD_TYPES``       ``CardKind.type``, ``CardTables.type``
``is_unit``            bool[K]       General or Soldier                   ``CardKind.is_unit``
``is_general``         bool[K]                                            ``CardKind.is_general``
``is_soldier``         bool[K]                                            ``CardKind.is_soldier``
``is_resource``        bool[K]                                            ``CardKind.is_resource``
``is_static``          bool[K]       Kingdom, Strategy or Capitol         ``CardKind.is_static``
``is_kingdom``         bool[K]                                            ``CardKind.is_kingdom``
``is_strategy``        bool[K]                                            ``CardKind.is_strategy``
``is_capitol``         bool[K]                                            ``CardKind.is_capitol``
``is_tactic``          bool[K]                                            ``CardKind.is_tactic``
``is_battle_tactic``   bool[K]       a tactic with timing battle          ``CardKind.is_battle_tactic``
``is_main_tactic``     bool[K]       a tactic with timing main            ``CardKind.is_main_tactic``
``ultra_rare``         bool[K]       playing it bans its kind (ruling 7)  ``CardKind.is_ultra_rare``,
                                                                          ``CardTables.ultra_rare``
``cost``               int32[K]      printed cost (before the Soldier     ``CardKind.cost``, ``CardTables.cost``
                                     discount)
``strength``           int32[K]      base strength                        ``CardKind.strength``
``life``               int32[K]      base life                            ``CardKind.life``
``keywords``           bool[K, 4]    one column per ``TWIN_KEYWORDS``     ``word in CardKind.keywords``
                                     word: no_pull, pull, raider,
                                     first_strike (a card's own
                                     keywords; statics grant more)
``field_str``          int32[K]      strength in the Battlefield          ``CardKind.field_str``
``camp_life``          int32[K]      life in the Warcamp                  ``CardKind.camp_life``
``attack_str``         int32[K]      strength when attacking              ``CardKind.attack_str``
``block_life``         int32[K]      life when blocking                   ``CardKind.block_life``
``aura_str``           int32[K]      strength it gives the other units    ``CardKind.aura_str``
                                     in its owner's Battlefield
``on_play_ch``         int32[K]      CH when a unit or a static enters    ``CardKind.on_play_ch``
                                     play
``on_play_draw``       int32[K]      cards drawn when a unit enters play  ``CardKind.on_play_draw``
``on_kill_ch``         int32[K]      CH when the unit kills in battle     ``CardKind.on_kill_ch``
``has_ability``        bool[K]       an activated ability                 ``CardKind.ability is not None``,
                                                                          ``CardTables.has_ability``
``ability_cost``       int32[K]      its cost, 0 without one              ``CardKind.ability.cost``
``ability_code``       int32[K]      index into                           ``CardKind.ability.effect``
                                     ``TWIN_ABILITY_EFFECTS``, -1 none
``ability_amount``     int32[K]      its amount, 0 without one            ``CardKind.ability.amount``
``static``             int32[K, 13]  one column per                       ``CardTables.static`` (``harvest``,
                                     ``TWIN_STATIC_EFFECTS`` name, in     ..., ``on_block_kill_ch``,
                                     its order (``STATIC_INDEX``); the    ``grant_raider``, ``grant_no_pull``)
                                     two grants as 0/1
``has_static``         bool[K]       a static with a nonzero static       ``CardTables.has_static``
                                     effect
``side_code``          int32[K]      index into ``TWIN_SIDES``, -1 none   ``CardKind.side`` (the loader gives a
                                     (a battle tactic without a side is   battle tactic without one ``any``)
                                     played by nobody, as in Python)
``effect_code``        int32[K]      index into ``TWIN_TACTIC_EFFECTS``   ``CardKind.effect``
                                     (battle effects, then main ones),
                                     -1 none
``amount``             int32[K]      a tactic's amount                    ``CardKind.amount``
``value``              int32[K]      a resource's value                   ``CardKind.value``, ``CardTables.value``
``continuous``         bool[K]       a resource that is ready at once     ``CardKind.continuous``
=====================  ============  ===================================  ======================================

The decks (``deck_arrays``): ``D`` decks, in the order given (a mapping's values in its order),
each pile padded with -1 past its size.

=====================  ============  ===================================  ======================================
column                 dtype/shape   meaning                              the Python it mirrors
=====================  ============  ===================================  ======================================
``playing``            int32[D, P]   the Playing Deck's kinds, in the     ``Deck.playing``
                                     deck's order (sorted), -1 past the
                                     size
``playing_size``       int32[D]      cards in the Playing Deck            ``len(Deck.playing)``
``supply``             int32[D, S]   the Supply Pile's kinds, -1 past     ``Deck.supply``
                                     the size
``supply_size``        int32[D]      cards in the Supply Pile             ``len(Deck.supply)``
``empire``             int32[D]      index into ``cards.KNOWN_EMPIRES``,  ``Deck.empire``, ``observe.EMPIRE_SLOT``
                                     ``len(KNOWN_EMPIRES)`` for any other
=====================  ============  ===================================  ======================================

What the twin cannot express is refused by name when it is built (``card_arrays`` raises
``TwinUnsupportedError``), never run wrong: a card type, rarity, keyword, ability effect, tactic
timing, side or effect outside the twin's tuples below; a battle tactic whose effect is not a
battle effect, or a main tactic whose effect is not a main one (the Python rules would run their
``else`` branch on it); a number outside ``0..cards.MAX_CARD_NUMBER`` (ref ``1..MAX_REF``) or a
flag that is not a bool; two kinds with one ref (the payment tie-break needs distinct refs); a
kind whose ``index`` is not its row; and any ``CardKind`` (or ``Ability``) field the twin neither
reads nor knowingly ignores (``TWIN_READ_FIELDS``, ``TWIN_IGNORED_FIELDS``) holding a value other
than its default, so a field added to the loader is never silently ignored.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import jax
import numpy as np

from .cards import KNOWN_EMPIRES, MAX_CARD_NUMBER, MAX_REF, Ability, CardKind, CardPool, Deck, short_repr

__all__ = [
    "NO_CODE",
    "STATIC_INDEX",
    "TWIN_ABILITY_EFFECTS",
    "TWIN_BATTLE_EFFECTS",
    "TWIN_CARD_TYPES",
    "TWIN_IGNORED_FIELDS",
    "TWIN_KEYWORDS",
    "TWIN_MAIN_EFFECTS",
    "TWIN_RARITIES",
    "TWIN_READ_FIELDS",
    "TWIN_SIDES",
    "TWIN_STATIC_EFFECTS",
    "TWIN_TACTIC_EFFECTS",
    "TWIN_TIMINGS",
    "CardArrays",
    "DeckArrays",
    "TwinUnsupportedError",
    "card_arrays",
    "deck_arrays",
]

# ---------------------------------------------------------------------------------------------
# the vocabulary the twin implements: its own copies, so that a word the card module learns
# later is refused here until the twin learns it too

TWIN_CARD_TYPES = ("general", "soldier", "kingdom", "strategy", "tactics", "resource", "capitol")
TWIN_RARITIES = ("common", "uncommon", "rare", "ultra_rare")
TWIN_KEYWORDS = ("no_pull", "pull", "raider", "first_strike")
TWIN_ABILITY_EFFECTS = ("draw", "gain_ch")
TWIN_TIMINGS = ("battle", "main")
TWIN_SIDES = ("attacker", "defender", "any")
TWIN_BATTLE_EFFECTS = ("withdraw_self", "remove_enemy", "pump_str", "pump_life")
TWIN_MAIN_EFFECTS = ("destroy_kingdom", "draw", "gain_ch")
TWIN_TACTIC_EFFECTS = TWIN_BATTLE_EFFECTS + TWIN_MAIN_EFFECTS
TWIN_STATIC_EFFECTS = (
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
    "grant_raider",
    "grant_no_pull",
)
#: the static effects that are flags (0/1 in ``static``); the others are counts
_STATIC_FLAGS = ("grant_raider", "grant_no_pull")
#: the ``CardKind`` counts the twin reads besides the statics' (``0..MAX_CARD_NUMBER`` each)
_NUMBERS = (
    "cost",
    "strength",
    "life",
    "field_str",
    "camp_life",
    "attack_str",
    "block_life",
    "aura_str",
    "on_play_ch",
    "on_play_draw",
    "on_kill_ch",
    "amount",
    "value",
)
_FLAGS = ("continuous",)
#: ``CardKind`` fields the twin reads (besides the ``TWIN_STATIC_EFFECTS`` ones): the counts and
#: flags above, the words it codes, and the row checks
TWIN_READ_FIELDS = frozenset(
    {"index", "ref", "type", "rarity", "keywords", "ability", "timing", "side", "effect", *_NUMBERS, *_FLAGS}
)
#: ``CardKind`` fields the twin knowingly ignores: names and text for people, and what only deck
#: legality reads (era, faction and tags: the predestination filter, checked when the config is
#: made)
TWIN_IGNORED_FIELDS = frozenset({"id", "name", "faction", "era", "tags", "text"})
#: ``Ability`` fields the twin reads
_ABILITY_FIELDS = frozenset({"cost", "effect", "amount"})
#: the predicates the flag columns copy, by column name
_PREDICATES = {
    "is_unit": "is_unit",
    "is_general": "is_general",
    "is_soldier": "is_soldier",
    "is_resource": "is_resource",
    "is_static": "is_static",
    "is_kingdom": "is_kingdom",
    "is_strategy": "is_strategy",
    "is_capitol": "is_capitol",
    "is_tactic": "is_tactic",
    "is_battle_tactic": "is_battle_tactic",
    "is_main_tactic": "is_main_tactic",
    "ultra_rare": "is_ultra_rare",
}

NO_CODE = -1
#: ``static[:, STATIC_INDEX[name]]`` is the static effect ``name``
STATIC_INDEX = {name: column for column, name in enumerate(TWIN_STATIC_EFFECTS)}


class TwinUnsupportedError(ValueError):
    """A card the JAX twin cannot express; the message names the pool, the card, the key and the
    value."""


@dataclasses.dataclass(frozen=True, eq=False)
class CardArrays:
    """The pool's per-kind numbers, one row per kind (see the module docstring's table).

    Built with numpy (read-only arrays, shared by every twin of the pool); a JAX pytree, so a
    jitted function may take it as an argument or close over it."""

    ref: np.ndarray
    pay_order: np.ndarray
    type_code: np.ndarray
    is_unit: np.ndarray
    is_general: np.ndarray
    is_soldier: np.ndarray
    is_resource: np.ndarray
    is_static: np.ndarray
    is_kingdom: np.ndarray
    is_strategy: np.ndarray
    is_capitol: np.ndarray
    is_tactic: np.ndarray
    is_battle_tactic: np.ndarray
    is_main_tactic: np.ndarray
    ultra_rare: np.ndarray
    cost: np.ndarray
    strength: np.ndarray
    life: np.ndarray
    keywords: np.ndarray
    field_str: np.ndarray
    camp_life: np.ndarray
    attack_str: np.ndarray
    block_life: np.ndarray
    aura_str: np.ndarray
    on_play_ch: np.ndarray
    on_play_draw: np.ndarray
    on_kill_ch: np.ndarray
    has_ability: np.ndarray
    ability_cost: np.ndarray
    ability_code: np.ndarray
    ability_amount: np.ndarray
    static: np.ndarray
    has_static: np.ndarray
    side_code: np.ndarray
    effect_code: np.ndarray
    amount: np.ndarray
    value: np.ndarray
    continuous: np.ndarray

    @property
    def size(self) -> int:
        """K, the number of kinds."""
        return int(self.ref.shape[0])


@dataclasses.dataclass(frozen=True, eq=False)
class DeckArrays:
    """Decks as padded kind arrays (see the module docstring's second table); a JAX pytree."""

    playing: np.ndarray
    playing_size: np.ndarray
    supply: np.ndarray
    supply_size: np.ndarray
    empire: np.ndarray


for _cls in (CardArrays, DeckArrays):
    jax.tree_util.register_dataclass(
        _cls, data_fields=[field.name for field in dataclasses.fields(_cls)], meta_fields=[]
    )


# ---------------------------------------------------------------------------------------------
# the refusal


def _vocabulary() -> tuple[tuple[str, ...], ...]:
    """The twin's tuples as they are now (tests may narrow them): the cache key of a build."""
    return (
        TWIN_CARD_TYPES,
        TWIN_RARITIES,
        TWIN_KEYWORDS,
        TWIN_ABILITY_EFFECTS,
        TWIN_TIMINGS,
        TWIN_SIDES,
        TWIN_BATTLE_EFFECTS,
        TWIN_MAIN_EFFECTS,
        TWIN_TACTIC_EFFECTS,
        TWIN_STATIC_EFFECTS,
        tuple(sorted(TWIN_READ_FIELDS)),
        tuple(sorted(TWIN_IGNORED_FIELDS)),
    )


def _card_label(pool: CardPool, kind: Any) -> str:
    ident = getattr(kind, "id", None)
    ref = getattr(kind, "ref", None)
    return f"card pool {pool.name!r} ({pool.source}): card {ident!r} (ref {short_repr(ref)})"


def _refuse(pool: CardPool, kind: Any, key: str, value: object, reason: str) -> TwinUnsupportedError:
    return TwinUnsupportedError(
        f"{_card_label(pool, kind)}: key {key!r} = {short_repr(value)}: {reason}; the JAX twin of Empires and "
        "Generals cannot express this card (use the Python rules, or teach the twin the new word)"
    )


def _choices(options: Sequence[str], where: str) -> str:
    return f"the twin implements{where} " + ", ".join(options)


def _default_of(field: dataclasses.Field) -> object:
    if field.default is not dataclasses.MISSING:
        return field.default
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory()
    return dataclasses.MISSING


def _unknown_fields(pool: CardPool, kind: CardKind, part: Any, known: frozenset[str], prefix: str = "") -> None:
    """Refuse a field of the dataclass ``part`` (the card, or its ability: ``prefix``
    ``"ability."``) outside ``known`` that holds a value other than its default."""
    for field in dataclasses.fields(part):
        if field.name in known:
            continue
        value = getattr(part, field.name)
        default = _default_of(field)
        if default is dataclasses.MISSING or value != default:
            raise _refuse(
                pool, kind, prefix + field.name, value, "a field the twin neither reads nor knowingly ignores"
            )


def _check_number(pool: CardPool, kind: CardKind, key: str, value: object, low: int, high: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or not low <= value <= high:
        raise _refuse(pool, kind, key, value, f"the twin holds integers {low}..{high} here")


def _check_flag(pool: CardPool, kind: CardKind, key: str, value: object) -> None:
    if not isinstance(value, bool | np.bool_):
        raise _refuse(pool, kind, key, value, "the twin holds true or false here")


def _check_word(
    pool: CardPool, kind: CardKind, key: str, value: object, options: Sequence[str], none: bool, where: str = ""
) -> None:
    if (value is None and none) or (isinstance(value, str) and value in options):
        return
    raise _refuse(pool, kind, key, value, _choices(options, where) + (" (or none)" if none else ""))


def _check_kind(pool: CardPool, row: int, kind: CardKind) -> None:
    """Refuse ``kind`` (row ``row`` of ``pool``) unless the twin can express all of it."""
    if not dataclasses.is_dataclass(kind):
        raise TwinUnsupportedError(f"card pool {pool.name!r} ({pool.source}): kind {row} is not a CardKind")
    known = TWIN_READ_FIELDS | frozenset(TWIN_STATIC_EFFECTS) | TWIN_IGNORED_FIELDS
    names = {field.name for field in dataclasses.fields(kind)}
    missing = sorted((TWIN_READ_FIELDS | frozenset(TWIN_STATIC_EFFECTS)) - names)
    if missing:
        raise _refuse(pool, kind, missing[0], None, "the twin reads this field, which the card does not have")
    _unknown_fields(pool, kind, kind, known)
    if kind.index != row:
        raise _refuse(pool, kind, "index", kind.index, f"the kind is row {row} of the pool")
    _check_number(pool, kind, "ref", kind.ref, 1, MAX_REF)
    _check_word(pool, kind, "type", kind.type, TWIN_CARD_TYPES, none=False)
    _check_word(pool, kind, "rarity", kind.rarity, TWIN_RARITIES, none=False)
    keywords = kind.keywords
    if not isinstance(keywords, frozenset | set | tuple | list):
        raise _refuse(pool, kind, "keywords", keywords, "the twin reads a set of keywords")
    for word in sorted(keywords, key=str):
        _check_word(pool, kind, "keywords", word, TWIN_KEYWORDS, none=False)
    for name in _NUMBERS:
        _check_number(pool, kind, name, getattr(kind, name), 0, MAX_CARD_NUMBER)
    for name in TWIN_STATIC_EFFECTS:
        if name in _STATIC_FLAGS:
            _check_flag(pool, kind, name, getattr(kind, name))
        else:
            _check_number(pool, kind, name, getattr(kind, name), 0, MAX_CARD_NUMBER)
    for name in _FLAGS:
        _check_flag(pool, kind, name, getattr(kind, name))
    ability = kind.ability
    if ability is not None:
        if not isinstance(ability, Ability):
            raise _refuse(pool, kind, "ability", ability, "the twin reads an Ability (cost, effect, amount)")
        _unknown_fields(pool, kind, ability, _ABILITY_FIELDS, "ability.")
        _check_number(pool, kind, "ability.cost", ability.cost, 0, MAX_CARD_NUMBER)
        _check_word(pool, kind, "ability.effect", ability.effect, TWIN_ABILITY_EFFECTS, none=False)
        _check_number(pool, kind, "ability.amount", ability.amount, 0, MAX_CARD_NUMBER)
    _check_word(pool, kind, "timing", kind.timing, TWIN_TIMINGS, none=True)
    _check_word(pool, kind, "side", kind.side, TWIN_SIDES, none=True)
    _check_word(pool, kind, "effect", kind.effect, TWIN_TACTIC_EFFECTS, none=True)
    # the Python rules branch on a tactic's effect with a final ``else``: an effect of the other
    # timing (or none) would take that branch there, which the twin's codes do not copy
    if kind.is_battle_tactic:
        _check_word(pool, kind, "effect", kind.effect, TWIN_BATTLE_EFFECTS, none=False, where=" for battle tactics")
    if kind.is_main_tactic:
        _check_word(pool, kind, "effect", kind.effect, TWIN_MAIN_EFFECTS, none=False, where=" for main tactics")


def _check_pool(pool: CardPool) -> None:
    refs: dict[int, CardKind] = {}
    for row, kind in enumerate(pool.kinds):
        _check_kind(pool, row, kind)
        earlier = refs.setdefault(kind.ref, kind)
        if earlier is not kind:
            raise _refuse(
                pool,
                kind,
                "ref",
                kind.ref,
                f"card {earlier.id!r} has this ref too; the payment tie-break needs distinct refs",
            )


# ---------------------------------------------------------------------------------------------
# the build


def _code(value: str | None, options: Sequence[str]) -> int:
    return NO_CODE if value is None else options.index(value)


def _column(values: Iterable[object], dtype: type) -> np.ndarray:
    array: np.ndarray = np.array(list(values), dtype=dtype)
    array.setflags(write=False)
    return array


@functools.lru_cache(maxsize=8)
def _build(pool: CardPool, vocabulary: tuple[tuple[str, ...], ...]) -> CardArrays:
    del vocabulary  # the cache key only: a build under other twin tuples is another build
    kinds = pool.kinds
    refs = [kind.ref for kind in kinds]
    order = sorted(range(len(kinds)), key=lambda k: (refs[k], k))
    rank = [0] * len(kinds)
    for position, k in enumerate(order):
        rank[k] = position
    int32, boolean = np.int32, np.bool_
    columns: dict[str, np.ndarray] = {
        "ref": _column(refs, int32),
        "pay_order": _column(rank, int32),
        "type_code": _column((_code(kind.type, TWIN_CARD_TYPES) for kind in kinds), int32),
    }
    for column, predicate in _PREDICATES.items():
        columns[column] = _column((bool(getattr(kind, predicate)) for kind in kinds), boolean)
    for name in ("cost", "strength", "life"):
        columns[name] = _column((getattr(kind, name) for kind in kinds), int32)
    keywords = np.array([[word in kind.keywords for word in TWIN_KEYWORDS] for kind in kinds], dtype=boolean)
    columns["keywords"] = keywords.reshape(len(kinds), len(TWIN_KEYWORDS))
    columns["keywords"].setflags(write=False)
    for name in ("field_str", "camp_life", "attack_str", "block_life", "aura_str"):
        columns[name] = _column((getattr(kind, name) for kind in kinds), int32)
    for name in ("on_play_ch", "on_play_draw", "on_kill_ch"):
        columns[name] = _column((getattr(kind, name) for kind in kinds), int32)
    abilities = [kind.ability for kind in kinds]
    columns["has_ability"] = _column((ability is not None for ability in abilities), boolean)
    columns["ability_cost"] = _column((0 if a is None else a.cost for a in abilities), int32)
    columns["ability_code"] = _column(
        (NO_CODE if a is None else _code(a.effect, TWIN_ABILITY_EFFECTS) for a in abilities), int32
    )
    columns["ability_amount"] = _column((0 if a is None else a.amount for a in abilities), int32)
    static = np.array([[int(getattr(kind, name)) for name in TWIN_STATIC_EFFECTS] for kind in kinds], dtype=int32)
    columns["static"] = static.reshape(len(kinds), len(TWIN_STATIC_EFFECTS))
    columns["static"].setflags(write=False)
    columns["has_static"] = _column(
        (kind.is_static and bool(row.any()) for kind, row in zip(kinds, static, strict=True)), boolean
    )
    columns["side_code"] = _column((_code(kind.side, TWIN_SIDES) for kind in kinds), int32)
    columns["effect_code"] = _column((_code(kind.effect, TWIN_TACTIC_EFFECTS) for kind in kinds), int32)
    columns["amount"] = _column((kind.amount for kind in kinds), int32)
    columns["value"] = _column((kind.value for kind in kinds), int32)
    columns["continuous"] = _column((kind.continuous for kind in kinds), boolean)
    return CardArrays(**columns)


def card_arrays(pool: CardPool) -> CardArrays:
    """The pool's ``CardArrays``; raises ``TwinUnsupportedError`` for the first card the twin
    cannot express (see the module docstring). Built once per pool (and twin vocabulary)."""
    _check_pool(pool)
    return _build(pool, _vocabulary())


def _empire_code(empire: str) -> int:
    return KNOWN_EMPIRES.index(empire) if empire in KNOWN_EMPIRES else len(KNOWN_EMPIRES)


def deck_arrays(
    decks: Sequence[Deck] | Mapping[str, Deck],
    pool: CardPool,
    max_playing: int | None = None,
    max_supply: int | None = None,
) -> DeckArrays:
    """``decks`` (a sequence, or a mapping's values in its order) as ``DeckArrays``: each pile's
    kind indices in the deck's order, padded with -1 to ``max_playing`` / ``max_supply`` cards
    (None: the longest such pile of ``decks``). A pile longer than its size, or a kind outside
    ``pool``, is a ``ValueError`` naming the deck."""
    listed = list(decks.values()) if isinstance(decks, Mapping) else list(decks)
    sizes = {"playing": max_playing, "supply": max_supply}
    padded: dict[str, np.ndarray] = {}
    for pile, size in sizes.items():
        piles = [getattr(deck, pile) for deck in listed]
        width = max((len(cards) for cards in piles), default=0) if size is None else size
        if width < 0:
            raise ValueError(f"deck_arrays: max_{pile} must be >= 0, got {width}")
        array = np.full((len(listed), width), -1, dtype=np.int32)
        for row, (deck, cards) in enumerate(zip(listed, piles, strict=True)):
            label = f"{deck.source}: deck {deck.id!r}: [{pile}]"
            if len(cards) > width:
                raise ValueError(f"{label} holds {len(cards)} cards, more than max_{pile}={width}")
            outside = [k for k in cards if not 0 <= k < pool.size]
            if outside:
                raise ValueError(
                    f"{label} holds kind {outside[0]}, outside card pool {pool.name!r} (0..{pool.size - 1})"
                )
            array[row, : len(cards)] = cards
        array.setflags(write=False)
        padded[pile] = array
        padded[f"{pile}_size"] = _column((len(cards) for cards in piles), np.int32)
    padded["empire"] = _column((_empire_code(deck.empire) for deck in listed), np.int32)
    return DeckArrays(**padded)
