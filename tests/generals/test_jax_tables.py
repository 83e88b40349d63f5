"""The Generals JAX twin's card and deck arrays (``jax_tables``) against the Python rules.

- Every column equals what ``CardKind`` and ``rules.tables.CardTables`` say, for every card of
  the default pool and of a pool that adds a card for every word of today's vocabulary (every
  keyword, ability effect, side, tactic effect, static effect); the codes index the twin's
  tuples, which are the card module's today; ``pay_order`` orders kinds as their refs do.
- The module docstring's tables list exactly the fields of ``CardArrays`` and ``DeckArrays``,
  with their dtypes and shapes; both are JAX pytrees a jitted function takes.
- The refusal (issue point 6): a card the twin cannot express is refused by name (the pool, the
  card id and ref, the key, the value), whether its word is outside the twin's tuples (narrowed by
  ``monkeypatch``), its number or flag out of the twin's range, its tactic effect of the other
  timing, or it carries a field the twin does not know (a subclass of ``CardKind`` or ``Ability``
  with one more field); the default pool and the shipped decks pass, and a cached build never
  hides a refusal.
- Deck arrays: the kinds of the ``Deck`` tuples, padded with -1, their sizes, the empire slot of
  the observation; too small a size or a kind outside the pool is refused with the deck's name.
"""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest

jax = pytest.importorskip("jax")

from empire_envs.games.generals import GeneralsConfig, jax_tables, observe  # noqa: E402
from empire_envs.games.generals import cards as cards_module  # noqa: E402
from empire_envs.games.generals.cards import Ability, CardKind, CardPool, Deck  # noqa: E402
from empire_envs.games.generals.jax_tables import (  # noqa: E402
    CardArrays,
    DeckArrays,
    TwinUnsupportedError,
    card_arrays,
    deck_arrays,
)
from empire_envs.games.generals.rules.tables import CardTables  # noqa: E402

from ..doc_tables import rest_tables  # noqa: E402

CONFIG = GeneralsConfig()
POOL = CONFIG.pool


def _first(pool: CardPool, wanted) -> CardKind:
    return next(kind for kind in pool.kinds if wanted(kind))


def _pool_with(kinds, name: str = "test-pool") -> CardPool:
    """A pool of ``kinds`` re-indexed by position (refs as given)."""
    return CardPool(
        name=name,
        kinds=tuple(dataclasses.replace(kind, index=k) for k, kind in enumerate(kinds)),
        source="tests/generals/test_jax_tables.py",
    )


def _every_word_pool() -> CardPool:
    """The default pool plus one card for every word of today's vocabulary that it lacks."""
    kinds = list(POOL.kinds)
    ref = max(kind.ref for kind in kinds)
    soldier = _first(POOL, lambda kind: kind.is_soldier)
    tactic = _first(POOL, lambda kind: kind.is_tactic)
    kingdom = _first(POOL, lambda kind: kind.is_kingdom)
    no_statics = {effect: False if effect.startswith("grant_") else 0 for effect in cards_module.STATIC_EFFECTS}
    kingdom = dataclasses.replace(kingdom, **no_statics)
    resource = _first(POOL, lambda kind: kind.is_resource)

    def add(base: CardKind, **changes) -> None:
        nonlocal ref
        ref += 1
        kinds.append(dataclasses.replace(base, ref=ref, id=f"extra_{ref}", rarity="common", **changes))

    for word in cards_module.KEYWORDS:
        add(soldier, keywords=frozenset({word}), field_str=1, camp_life=2, attack_str=3, block_life=4)
    for effect in cards_module.ABILITY_EFFECTS:
        add(soldier, ability=Ability(cost=2, effect=effect, amount=3), on_play_draw=1, on_kill_ch=2)
    for side in cards_module.SIDES:
        for effect in cards_module.BATTLE_EFFECTS:
            amount = 2 if effect in cards_module.EFFECTS_WITH_AMOUNT else 0
            add(tactic, timing="battle", side=side, effect=effect, amount=amount)
    for effect in cards_module.MAIN_EFFECTS:
        amount = 3 if effect in cards_module.EFFECTS_WITH_AMOUNT else 0
        add(tactic, timing="main", side=None, effect=effect, amount=amount)
    for number, effect in enumerate(cards_module.STATIC_EFFECTS):
        value = True if effect.startswith("grant_") else number + 1
        add(kingdom, **{effect: value})
    add(kingdom, on_play_ch=1)  # a static without static effects: has_static False
    add(soldier, harvest=1)  # hand-built: a static number on a unit (has_static False, as in Python)
    add(resource, continuous=True, value=7)
    general = _first(POOL, lambda kind: kind.is_general)
    add(general, aura_str=2)
    ultra = dataclasses.replace(resource, ref=ref + 1, id="extra_ultra", rarity="ultra_rare")
    kinds.append(ultra)
    return _pool_with(kinds, "every-word")


EVERY_WORD_POOL = _every_word_pool()
POOLS = {"default": POOL, "every_word": EVERY_WORD_POOL}


# --------------------------------------------------------------------------- the vocabulary


def test_the_twin_implements_todays_whole_vocabulary():
    """The twin's own tuples are the card module's, word for word and in order (so the codes
    index both); when the card module learns a word, this fails until the twin learns it."""
    assert jax_tables.TWIN_CARD_TYPES == cards_module.CARD_TYPES
    assert jax_tables.TWIN_RARITIES == cards_module.RARITIES
    assert jax_tables.TWIN_KEYWORDS == cards_module.KEYWORDS
    assert jax_tables.TWIN_ABILITY_EFFECTS == cards_module.ABILITY_EFFECTS
    assert jax_tables.TWIN_TIMINGS == cards_module.TIMINGS
    assert jax_tables.TWIN_SIDES == cards_module.SIDES
    assert jax_tables.TWIN_BATTLE_EFFECTS == cards_module.BATTLE_EFFECTS
    assert jax_tables.TWIN_MAIN_EFFECTS == cards_module.MAIN_EFFECTS
    assert jax_tables.TWIN_TACTIC_EFFECTS == cards_module.BATTLE_EFFECTS + cards_module.MAIN_EFFECTS
    assert jax_tables.TWIN_STATIC_EFFECTS == cards_module.STATIC_EFFECTS
    assert {name: i for i, name in enumerate(cards_module.STATIC_EFFECTS)} == jax_tables.STATIC_INDEX


def test_every_card_field_is_read_or_knowingly_ignored():
    """The twin's field sets cover ``CardKind`` and ``Ability`` exactly: a field the loader
    gains fails here (and is refused at build time once a card sets it)."""
    read = jax_tables.TWIN_READ_FIELDS | set(jax_tables.TWIN_STATIC_EFFECTS)
    assert not read & jax_tables.TWIN_IGNORED_FIELDS
    assert read | jax_tables.TWIN_IGNORED_FIELDS == {field.name for field in dataclasses.fields(CardKind)}
    assert {field.name for field in dataclasses.fields(Ability)} == {"cost", "effect", "amount"}


def test_every_word_pool_holds_every_word():
    kinds = EVERY_WORD_POOL.kinds
    assert {kind.type for kind in kinds} == set(cards_module.CARD_TYPES)
    assert {kind.rarity for kind in kinds} == set(cards_module.RARITIES)
    assert set().union(*(kind.keywords for kind in kinds)) == set(cards_module.KEYWORDS)
    assert {kind.ability.effect for kind in kinds if kind.ability} == set(cards_module.ABILITY_EFFECTS)
    battle = {(kind.side, kind.effect) for kind in kinds if kind.is_battle_tactic}
    assert battle >= {(s, e) for s in cards_module.SIDES for e in cards_module.BATTLE_EFFECTS}
    assert {kind.effect for kind in kinds if kind.is_main_tactic} == set(cards_module.MAIN_EFFECTS)
    for effect in cards_module.STATIC_EFFECTS:
        assert any(getattr(kind, effect) for kind in kinds if kind.is_static), effect


# --------------------------------------------------------------------------- the columns


def _code(value, options) -> int:
    return -1 if value is None else options.index(value)


@pytest.mark.parametrize("pool_name", POOLS)
def test_every_column_equals_the_python_card(pool_name):
    pool = POOLS[pool_name]
    arrays = card_arrays(pool)
    tables = CardTables(pool)
    size = pool.size
    assert arrays.size == size
    for field in dataclasses.fields(CardArrays):
        column = getattr(arrays, field.name)
        assert isinstance(column, np.ndarray) and column.shape[0] == size, field.name
        assert column.dtype in (np.int32, np.bool_), field.name
        assert not column.flags.writeable, f"{field.name}: the cached arrays are shared, so read-only"
    for k, kind in enumerate(pool.kinds):
        at = f"{pool_name} card {kind.id!r}"
        assert arrays.ref[k] == kind.ref, at
        assert (
            arrays.type_code[k]
            == _code(kind.type, cards_module.CARD_TYPES)
            == _code(tables.type[k], jax_tables.TWIN_CARD_TYPES)
        )
        for column, predicate in (
            ("is_unit", "is_unit"),
            ("is_general", "is_general"),
            ("is_soldier", "is_soldier"),
            ("is_resource", "is_resource"),
            ("is_static", "is_static"),
            ("is_kingdom", "is_kingdom"),
            ("is_strategy", "is_strategy"),
            ("is_capitol", "is_capitol"),
            ("is_tactic", "is_tactic"),
            ("is_battle_tactic", "is_battle_tactic"),
            ("is_main_tactic", "is_main_tactic"),
            ("ultra_rare", "is_ultra_rare"),
        ):
            assert bool(getattr(arrays, column)[k]) is getattr(kind, predicate), (at, column)
        for column in ("is_unit", "is_general", "is_soldier", "is_resource", "ultra_rare", "has_ability", "has_static"):
            assert bool(getattr(arrays, column)[k]) is bool(getattr(tables, column)[k]), (at, column)
        assert arrays.cost[k] == kind.cost == tables.cost[k], at
        assert arrays.value[k] == kind.value == tables.value[k], at
        for column in (
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
        ):
            assert getattr(arrays, column)[k] == getattr(kind, column), (at, column)
        assert bool(arrays.continuous[k]) is kind.continuous, at
        assert [bool(b) for b in arrays.keywords[k]] == [w in kind.keywords for w in cards_module.KEYWORDS], at
        ability = kind.ability
        assert bool(arrays.has_ability[k]) is (ability is not None), at
        assert arrays.ability_cost[k] == (ability.cost if ability else 0), at
        assert arrays.ability_code[k] == (_code(ability.effect, cards_module.ABILITY_EFFECTS) if ability else -1), at
        assert arrays.ability_amount[k] == (ability.amount if ability else 0), at
        for name, column in jax_tables.STATIC_INDEX.items():
            assert arrays.static[k, column] == int(getattr(kind, name)) == tables.static[name][k], (at, name)
        assert arrays.side_code[k] == _code(kind.side, cards_module.SIDES), at
        assert arrays.effect_code[k] == _code(kind.effect, cards_module.BATTLE_EFFECTS + cards_module.MAIN_EFFECTS), at


@pytest.mark.parametrize("pool_name", POOLS)
def test_pay_order_orders_kinds_as_their_refs(pool_name):
    """``derived.payment_choice`` breaks ties on the sorted refs of the cards spent: the ranks
    compare as the refs do, and are 0..K-1."""
    pool = POOLS[pool_name]
    order = card_arrays(pool).pay_order
    assert sorted(order.tolist()) == list(range(pool.size))
    refs = [kind.ref for kind in pool.kinds]
    for a in range(pool.size):
        for b in range(pool.size):
            assert (order[a] < order[b]) == (refs[a] < refs[b])


def test_pay_order_of_a_pool_not_in_ref_order():
    """Rows in another order than the refs (a hand-built pool): the rank follows the refs."""
    kinds = list(POOL.kinds[:6])
    kinds[0], kinds[5] = kinds[5], kinds[0]
    pool = _pool_with(kinds)
    order = card_arrays(pool).pay_order.tolist()
    assert [pool.kinds[k].ref for k in sorted(range(6), key=order.__getitem__)] == sorted(k.ref for k in kinds)


def test_a_battle_tactic_without_a_side_is_played_by_nobody_as_in_python():
    """The loader gives a side-less battle tactic side ``any``; a hand-built one keeps None, and
    ``tactics.tactic_plays`` (``card.side not in ("any", side)``) never plays it: code -1
    matches no side either."""
    tactic = _first(POOL, lambda kind: kind.is_battle_tactic)
    pool = _pool_with([dataclasses.replace(tactic, side=None)])
    assert card_arrays(pool).side_code.tolist() == [-1]


# --------------------------------------------------------------------------- docstring, pytree


def _doc_shape(cell: str, sizes: dict[str, int]) -> tuple[str, tuple[int, ...]]:
    match = re.fullmatch(r"(int32|bool)\[([^\]]*)\]", cell)
    assert match, f"bad dtype/shape cell {cell!r}"
    dims = tuple(sizes[d] if d in sizes else int(d) for d in (s.strip() for s in match.group(2).split(",")))
    return match.group(1), dims


def test_the_docstring_tables_are_the_dataclasses():
    card_table, deck_table = rest_tables(jax_tables.__doc__)
    arrays = card_arrays(POOL)
    assert [row[0].strip("`") for row in card_table] == [f.name for f in dataclasses.fields(CardArrays)]
    for name, shape_cell, *_ in card_table:
        column = getattr(arrays, name.strip("`"))
        assert _doc_shape(shape_cell, {"K": POOL.size}) == (str(column.dtype), column.shape), name
    decks = deck_arrays(CONFIG.available_decks, POOL, 80, 30)
    assert [row[0].strip("`") for row in deck_table] == [f.name for f in dataclasses.fields(DeckArrays)]
    sizes = {"D": len(CONFIG.available_decks), "P": 80, "S": 30}
    for name, shape_cell, *_ in deck_table:
        column = getattr(decks, name.strip("`"))
        assert _doc_shape(shape_cell, sizes) == (str(column.dtype), column.shape), name


def test_the_arrays_are_pytrees_a_jitted_function_takes():
    arrays = card_arrays(POOL)
    leaves = jax.tree_util.tree_leaves(arrays)
    assert len(leaves) == len(dataclasses.fields(CardArrays))
    total = jax.jit(lambda t: t.cost.sum() + t.static[:, jax_tables.STATIC_INDEX["harvest"]].sum())(arrays)
    assert int(total) == sum(kind.cost + kind.harvest for kind in POOL.kinds)
    decks = deck_arrays(CONFIG.available_decks, POOL)
    sizes = jax.jit(lambda d: d.playing_size + d.supply_size)(decks)
    assert sizes.tolist() == [len(d.playing) + len(d.supply) for d in CONFIG.available_decks.values()]
    doubled = jax.tree_util.tree_map(lambda leaf: leaf, arrays)
    assert isinstance(doubled, CardArrays)


def test_card_arrays_is_built_once_per_pool():
    assert card_arrays(POOL) is card_arrays(CONFIG.pool)


# --------------------------------------------------------------------------- the refusal


def _refusal(pool: CardPool) -> str:
    with pytest.raises(TwinUnsupportedError) as caught:
        card_arrays(pool)
    assert isinstance(caught.value, ValueError)
    return str(caught.value)


def _assert_names(message: str, kind: CardKind, key: str, value: object, pool: CardPool) -> None:
    assert pool.source in message and repr(pool.name) in message, message
    assert f"card {kind.id!r} (ref {kind.ref})" in message, message
    assert f"key {key!r}" in message, message
    assert repr(value) in message, message


def test_the_default_pool_and_the_shipped_decks_pass():
    arrays = card_arrays(POOL)
    assert arrays.size == POOL.size == 50
    decks = deck_arrays(CONFIG.available_decks, POOL)
    assert decks.playing.shape[0] == len(CONFIG.available_decks) == 4


_SOLDIER = _first(POOL, lambda kind: kind.is_soldier)
_GENERAL = _first(POOL, lambda kind: kind.is_general)
_BATTLE = _first(POOL, lambda kind: kind.is_battle_tactic)
_MAIN = _first(POOL, lambda kind: kind.is_main_tactic)
_KINGDOM = _first(POOL, lambda kind: kind.is_kingdom)
_RESOURCE = _first(POOL, lambda kind: kind.is_resource)

#: (what, the changed card, the key the message names, the value it names)
BAD_CARDS = [
    ("unknown type", dataclasses.replace(_SOLDIER, type="dragon"), "type", "dragon"),
    ("unknown rarity", dataclasses.replace(_SOLDIER, rarity="mythic"), "rarity", "mythic"),
    ("unknown keyword", dataclasses.replace(_SOLDIER, keywords=frozenset({"flying"})), "keywords", "flying"),
    ("unknown tactic effect", dataclasses.replace(_BATTLE, effect="heal"), "effect", "heal"),
    ("main effect on a battle tactic", dataclasses.replace(_BATTLE, effect="draw", amount=1), "effect", "draw"),
    ("battle effect on a main tactic", dataclasses.replace(_MAIN, effect="pump_str", amount=1), "effect", "pump_str"),
    ("main tactic without effect", dataclasses.replace(_MAIN, effect=None), "effect", None),
    ("unknown side", dataclasses.replace(_BATTLE, side="flank"), "side", "flank"),
    ("unknown timing", dataclasses.replace(_BATTLE, timing="reaction"), "timing", "reaction"),
    (
        "unknown ability effect",
        dataclasses.replace(_SOLDIER, ability=Ability(cost=1, effect="heal", amount=1)),
        "ability.effect",
        "heal",
    ),
    ("ability not an Ability", dataclasses.replace(_SOLDIER, ability=("draw", 1)), "ability", ("draw", 1)),
    (
        "number too large",
        dataclasses.replace(_SOLDIER, strength=cards_module.MAX_CARD_NUMBER + 1),
        "strength",
        cards_module.MAX_CARD_NUMBER + 1,
    ),
    ("negative number", dataclasses.replace(_GENERAL, cost=-1), "cost", -1),
    ("bool as a number", dataclasses.replace(_SOLDIER, life=True), "life", True),
    ("static number too large", dataclasses.replace(_KINGDOM, harvest=10**6), "harvest", 10**6),
    ("int as a flag", dataclasses.replace(_RESOURCE, continuous=1), "continuous", 1),
    ("int as a grant", dataclasses.replace(_KINGDOM, grant_raider=1), "grant_raider", 1),
    ("ref too large", dataclasses.replace(_SOLDIER, ref=cards_module.MAX_REF + 1), "ref", cards_module.MAX_REF + 1),
]


@pytest.mark.parametrize(("what", "bad", "key", "value"), BAD_CARDS, ids=[case[0] for case in BAD_CARDS])
def test_a_card_the_twin_cannot_express_is_refused_by_name(what, bad, key, value):
    kinds = list(POOL.kinds)
    kinds[bad.index] = bad
    pool = _pool_with(kinds, f"bad-{what.replace(' ', '-')}")
    _assert_names(_refusal(pool), bad, key, value, pool)


@pytest.mark.parametrize(
    ("tuple_name", "word", "wanted", "key"),
    [
        ("TWIN_KEYWORDS", "first_strike", lambda kind: "first_strike" in kind.keywords, "keywords"),
        ("TWIN_CARD_TYPES", "capitol", lambda kind: kind.is_capitol, "type"),
        ("TWIN_RARITIES", "ultra_rare", lambda kind: kind.is_ultra_rare, "rarity"),
        ("TWIN_ABILITY_EFFECTS", "draw", lambda kind: kind.ability is not None, "ability.effect"),
        ("TWIN_SIDES", "defender", lambda kind: kind.side == "defender", "side"),
        ("TWIN_TIMINGS", "main", lambda kind: kind.timing == "main", "timing"),
        ("TWIN_TACTIC_EFFECTS", "pump_life", lambda kind: kind.effect == "pump_life", "effect"),
        ("TWIN_BATTLE_EFFECTS", "withdraw_self", lambda kind: kind.effect == "withdraw_self", "effect"),
        ("TWIN_MAIN_EFFECTS", "destroy_kingdom", lambda kind: kind.effect == "destroy_kingdom", "effect"),
        ("TWIN_STATIC_EFFECTS", "harvest", lambda kind: kind.harvest, "harvest"),
    ],
)
def test_a_word_the_twin_does_not_implement_is_refused(monkeypatch, tuple_name, word, wanted, key):
    """A twin narrower than the card vocabulary (a word the card module learned and the twin
    not yet) refuses the first card using the word, naming it, even after a cached build."""
    card_arrays(POOL)  # a cached build must not hide the refusal
    narrowed = tuple(w for w in getattr(jax_tables, tuple_name) if w != word)
    monkeypatch.setattr(jax_tables, tuple_name, narrowed)
    message = _refusal(POOL)
    kind = _first(POOL, wanted)
    value = kind.harvest if key == "harvest" else word
    _assert_names(message, kind, key, value, POOL)


def test_a_field_the_twin_does_not_know_is_refused_by_name(monkeypatch):
    """A field ``CardKind`` gains is refused as soon as a card sets it to other than its
    default; a read field the twin stops knowing likewise."""

    @dataclasses.dataclass(frozen=True)
    class KindWithMorale(CardKind):
        morale: int = 0

    base = {field.name: getattr(_SOLDIER, field.name) for field in dataclasses.fields(CardKind)}
    kinds = list(POOL.kinds)
    kinds[_SOLDIER.index] = KindWithMorale(**base)  # the default: nothing the twin misses
    card_arrays(_pool_with(kinds))
    kinds[_SOLDIER.index] = KindWithMorale(**base, morale=3)
    pool = _pool_with(kinds, "with-morale")
    _assert_names(_refusal(pool), _SOLDIER, "morale", 3, pool)

    @dataclasses.dataclass(frozen=True)
    class KindWithOath(CardKind):
        oath: str = dataclasses.field(default_factory=str)

    kinds[_SOLDIER.index] = KindWithOath(**base, oath="")
    card_arrays(_pool_with(kinds))
    kinds[_SOLDIER.index] = KindWithOath(**base, oath="loyal")
    _assert_names(_refusal(_pool_with(kinds)), _SOLDIER, "oath", "loyal", _pool_with(kinds))

    monkeypatch.setattr(jax_tables, "TWIN_IGNORED_FIELDS", jax_tables.TWIN_IGNORED_FIELDS - {"text"})
    texted = next((kind for kind in POOL.kinds if kind.text), None) or dataclasses.replace(_SOLDIER, text="a text")
    kinds = list(POOL.kinds)
    kinds[texted.index] = texted
    _assert_names(_refusal(_pool_with(kinds)), texted, "text", texted.text, _pool_with(kinds))


def test_an_ability_field_the_twin_does_not_know_is_refused_by_name():
    @dataclasses.dataclass(frozen=True)
    class TimedAbility(Ability):
        uses: int = 0

    ability = _first(POOL, lambda kind: kind.ability is not None)
    kinds = list(POOL.kinds)
    kinds[ability.index] = dataclasses.replace(ability, ability=TimedAbility(cost=1, effect="draw", amount=1))
    card_arrays(_pool_with(kinds))
    kinds[ability.index] = dataclasses.replace(ability, ability=TimedAbility(cost=1, effect="draw", amount=1, uses=2))
    pool = _pool_with(kinds)
    _assert_names(_refusal(pool), ability, "ability.uses", 2, pool)


def test_two_kinds_with_one_ref_and_a_misplaced_index_are_refused():
    kinds = list(POOL.kinds[:4])
    kinds[3] = dataclasses.replace(kinds[3], ref=kinds[1].ref)
    pool = _pool_with(kinds)
    _assert_names(_refusal(pool), pool.kinds[3], "ref", kinds[1].ref, pool)
    assert repr(kinds[1].id) in _refusal(pool)
    shifted = CardPool(name="shifted", kinds=(dataclasses.replace(POOL.kinds[0], index=5),), source="here")
    _assert_names(_refusal(shifted), shifted.kinds[0], "index", 5, shifted)


# --------------------------------------------------------------------------- deck arrays


def test_deck_arrays_of_the_shipped_decks():
    decks = CONFIG.available_decks
    listed = list(decks.values())
    arrays = deck_arrays(decks, POOL, 75, 40)
    assert arrays.playing.shape == (len(listed), 75) and arrays.supply.shape == (len(listed), 40)
    for row, deck in enumerate(listed):
        assert arrays.playing_size[row] == len(deck.playing)
        assert arrays.supply_size[row] == len(deck.supply)
        assert arrays.playing[row, : len(deck.playing)].tolist() == list(deck.playing)
        assert arrays.supply[row, : len(deck.supply)].tolist() == list(deck.supply)
        assert (arrays.playing[row, len(deck.playing) :] == -1).all()
        assert (arrays.supply[row, len(deck.supply) :] == -1).all()
        assert arrays.empire[row] == observe.EMPIRE_SLOT.get(deck.empire, observe.OTHER_EMPIRE)
    for name in ("playing", "playing_size", "supply", "supply_size", "empire"):
        assert getattr(arrays, name).dtype == np.int32
    tight = deck_arrays(listed, POOL)
    assert tight.playing.shape[1] == max(len(d.playing) for d in listed)
    assert tight.supply.shape[1] == max(len(d.supply) for d in listed)
    assert (tight.playing == arrays.playing[:, : tight.playing.shape[1]]).all()


def test_deck_arrays_of_other_empires_and_empty_piles():
    deck = Deck(id="odd", name="Odd", empire="vikings", playing=(0, 0, 3), supply=(), source="here")
    arrays = deck_arrays([deck], POOL, 5, 2)
    assert arrays.empire.tolist() == [observe.OTHER_EMPIRE]
    assert arrays.playing.tolist() == [[0, 0, 3, -1, -1]] and arrays.supply.tolist() == [[-1, -1]]
    assert arrays.playing_size.tolist() == [3] and arrays.supply_size.tolist() == [0]


def test_deck_arrays_refuse_a_deck_too_long_or_outside_the_pool():
    deck = CONFIG.available_decks["rome"]
    with pytest.raises(ValueError, match=r"deck 'rome': \[playing\] holds 29 cards, more than max_playing=10"):
        deck_arrays([deck], POOL, 10, 40)
    with pytest.raises(ValueError, match=r"deck 'rome': \[supply\] holds 18 cards, more than max_supply=3"):
        deck_arrays([deck], POOL, 40, 3)
    stray = dataclasses.replace(deck, supply=(*deck.supply, POOL.size))
    with pytest.raises(ValueError, match=rf"deck 'rome': \[supply\] holds kind {POOL.size}, outside card pool"):
        deck_arrays([stray], POOL)
