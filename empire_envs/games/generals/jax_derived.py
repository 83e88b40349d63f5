"""The numbers the Generals rules read off a state without changing it (``rules.derived``), for
the JAX twin: static totals and the keywords they grant, units' strength and life and whether
they may enter the Battlefield, costs, money, hand limits, who is still in.

Each function mirrors one Python function (named in its docstring) and computes it for **every
seat at once**: row ``s`` of the result is the Python function's value for seat ``s``. Every
number comes from the pool's ``jax_tables.CardArrays`` rows (``cards``), never from a card
written here. The functions are pure and select-style (no Python branching on traced values):
``jit`` and ``vmap`` them; ``state`` is a twin ``jax_state.State`` (or any object with its
fields), ``cards`` the config's ``CardArrays`` (numpy constants, or traced arrays).

Empty unit slots (``unit_kind`` -1) read as a kind with every number 0 and no flag, and each
per-slot result is 0 / False there, where the Python rules have None or skip the slot.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from .config import BASE_HAND_LIMIT
from .jax_tables import STATIC_INDEX, TWIN_KEYWORDS, CardArrays
from .state import BF, WC

__all__ = [
    "bf_entry_flags",
    "can_pay",
    "effective_costs",
    "free_slot",
    "fresh_value",
    "generals_in_play",
    "hand_limit",
    "has_keyword",
    "money",
    "obeys_pull",
    "opponents_in_game",
    "per_kind",
    "ready_value",
    "static_total",
    "static_totals",
    "unit_life",
    "unit_numbers",
    "unit_strength",
]

_I32 = jnp.int32


def per_kind(column, kinds: jax.Array) -> jax.Array:
    """``column[kinds]`` (a ``CardArrays`` column, one entry or row per kind) for an array of
    kinds, its zero (0, False) where the kind is -1 (no card: an empty slot, no Strategy)."""
    table = jnp.asarray(column)
    kinds = jnp.asarray(kinds).astype(_I32)
    picked = table[jnp.clip(kinds, 0, table.shape[0] - 1)]
    absent = (kinds < 0).reshape(kinds.shape + (1,) * (table.ndim - 1))
    return jnp.where(absent, jnp.zeros((), table.dtype), picked)


# --------------------------------------------------------------------------- statics


def static_totals(cards: CardArrays, state) -> jax.Array:
    """``int32[n, E]``: every static effect's total (columns in ``jax_tables.
    TWIN_STATIC_EFFECTS`` order, ``STATIC_INDEX``) over each seat's Kingdom counts, Strategy and
    Capitol; ``rules.derived.statics`` (``CardTables.statics_of``): the sum of count x value over
    the Kingdom, plus the Strategy's and the Capitol's values (none: 0). The two grants are the
    number of statics granting them."""
    static = jnp.asarray(cards.static).astype(_I32)  # [K, E]
    kingdom = state.kingdom.astype(_I32)  # [n, K]
    from_kingdom = (kingdom[:, :, None] * static[None, :, :]).sum(axis=1)
    return from_kingdom + per_kind(static, state.strategy) + per_kind(static, state.capitol)


def static_total(cards: CardArrays, state, effect: str, totals: jax.Array | None = None) -> jax.Array:
    """``int32[n]``: one static effect's total per seat; ``rules.derived.static_total``.
    ``totals`` (``static_totals``) is computed when not given."""
    totals = static_totals(cards, state) if totals is None else totals
    return totals[:, STATIC_INDEX[effect]]


def _seat_rows(totals: jax.Array, kinds: jax.Array) -> jax.Array:
    """``totals`` (``[n, E]``) broadcast against ``kinds`` whose leading axis is the seat."""
    return totals.reshape(totals.shape[:1] + (1,) * (kinds.ndim - 1) + totals.shape[1:])


def has_keyword(cards: CardArrays, totals: jax.Array, kinds: jax.Array, keyword: str) -> jax.Array:
    """``bool[n, ...]``: whether each kind of ``kinds`` (``[n, ...]``: the kinds of seat ``s``
    in row ``s``; -1 none) has ``keyword`` for its seat, its own or, for a Soldier and the words
    ``raider`` and ``no_pull``, granted to all the seat's Soldiers by a static card
    (``grant_<word>`` total above 0); ``rules.derived.has_keyword``."""
    own = per_kind(cards.keywords, kinds)[..., TWIN_KEYWORDS.index(keyword)]
    if keyword not in ("raider", "no_pull"):
        return own
    granted = _seat_rows(totals, kinds)[..., STATIC_INDEX["grant_" + keyword]] > 0
    return own | (per_kind(cards.is_soldier, kinds) & granted)


def obeys_pull(cards: CardArrays, totals: jax.Array, kinds: jax.Array) -> jax.Array:
    """``bool[n, ...]``: whether a unit of each kind waits a turn in the Warcamp (rulings 34-35):
    a General only with the ``pull`` keyword, any other unit unless ``no_pull`` (its own or
    granted to the seat's Soldiers); ``rules.derived.obeys_pull`` (``_obeys_pull``)."""
    words = per_kind(cards.keywords, kinds)
    general = per_kind(cards.is_general, kinds)
    granted = _seat_rows(totals, kinds)[..., STATIC_INDEX["grant_no_pull"]] > 0
    no_pull = words[..., TWIN_KEYWORDS.index("no_pull")] | granted
    return jnp.where(general, words[..., TWIN_KEYWORDS.index("pull")], ~no_pull)


# --------------------------------------------------------------------------- units


def bf_entry_flags(cards: CardArrays, state, totals: jax.Array | None = None) -> jax.Array:
    """``bool[n, U]``: per seat and slot, whether the unit there may move from the Warcamp to
    the Battlefield now: in the Warcamp, and either not obeying Pull or entered before the
    seat's current turn (``turns_taken > entered_turn``); ``rules.derived.bf_entry_flags``."""
    totals = static_totals(cards, state) if totals is None else totals
    kinds = state.unit_kind.astype(_I32)
    waited = state.turns_taken.astype(_I32)[:, None] > state.unit_entered_turn.astype(_I32)
    in_camp = (kinds >= 0) & (state.unit_zone == WC)
    return in_camp & (~obeys_pull(cards, totals, kinds) | waited)


def unit_numbers(cards: CardArrays, state, totals: jax.Array | None = None) -> tuple[jax.Array, jax.Array]:
    """``(strength, life)``, ``int32[n, U]`` each: every unit's numbers outside a battle
    (section 5.1), 0 for an empty slot; ``rules.derived.unit_numbers``: the base numbers plus
    the owner's ``general_*`` or ``soldier_*`` totals; in the Battlefield ``field_str`` and the
    auras of the owner's other Battlefield units (``aura_str`` of every unit there, less its
    own); in the Warcamp ``camp_life`` and the ``camp_life_all`` total."""
    totals = static_totals(cards, state) if totals is None else totals
    kinds = state.unit_kind.astype(_I32)
    present = kinds >= 0
    in_field = present & (state.unit_zone == BF)

    def column(name: str) -> jax.Array:
        return per_kind(getattr(cards, name), kinds).astype(_I32)

    def total(name: str) -> jax.Array:
        return totals[:, STATIC_INDEX[name]][:, None]

    general = per_kind(cards.is_general, kinds)
    aura = column("aura_str")
    auras = jnp.where(in_field, aura, 0).sum(axis=1, keepdims=True)
    strength = column("strength") + jnp.where(general, total("general_str"), total("soldier_str"))
    life = column("life") + jnp.where(general, total("general_life"), total("soldier_life"))
    strength = strength + jnp.where(in_field, column("field_str") + auras - aura, 0)
    life = life + jnp.where(in_field, 0, column("camp_life") + total("camp_life_all"))
    return jnp.where(present, strength, 0), jnp.where(present, life, 0)


def unit_strength(cards: CardArrays, state, attacking=False, totals: jax.Array | None = None) -> jax.Array:
    """``int32[n, U]``: effective strength outside tactic pumps, plus ``attack_str`` where
    ``attacking`` (a bool, or a bool array broadcast against ``[n, U]``);
    ``rules.derived.unit_strength``."""
    strength, _ = unit_numbers(cards, state, totals)
    bonus = per_kind(cards.attack_str, state.unit_kind).astype(_I32)
    return strength + jnp.where(attacking, bonus, 0)


def unit_life(cards: CardArrays, state, blocking=False, totals: jax.Array | None = None) -> jax.Array:
    """``int32[n, U]``: effective life outside tactic pumps, plus ``block_life`` where
    ``blocking`` (as ``unit_strength``'s ``attacking``); ``rules.derived.unit_life``."""
    _, life = unit_numbers(cards, state, totals)
    bonus = per_kind(cards.block_life, state.unit_kind).astype(_I32)
    return life + jnp.where(blocking, bonus, 0)


def generals_in_play(cards: CardArrays, state) -> jax.Array:
    """``bool[n, U]``: the slots holding a General; ``rules.derived.generals_in_play`` lists
    these slots (its length is ``.sum(axis=1)``)."""
    return per_kind(cards.is_general, state.unit_kind)


def free_slot(state) -> jax.Array:
    """``int32[n]``: each seat's first empty unit slot, -1 when every slot holds a unit;
    ``rules.derived.free_slot``."""
    empty = state.unit_kind < 0
    first = jnp.argmax(empty, axis=1).astype(_I32)
    return jnp.where(empty.any(axis=1), first, -1)


# --------------------------------------------------------------------------- costs and money


def effective_costs(cards: CardArrays, state, totals: jax.Array | None = None) -> jax.Array:
    """``int32[n, K]``: what each seat pays for each kind: the printed cost, less the seat's
    ``soldier_discount`` total for a Soldier (never below 0); ``rules.derived.effective_cost``
    (row ``s``, column ``k``)."""
    totals = static_totals(cards, state) if totals is None else totals
    cost = jnp.asarray(cards.cost).astype(_I32)[None, :]
    discounted = jnp.maximum(0, cost - totals[:, STATIC_INDEX["soldier_discount"]][:, None])
    return jnp.where(jnp.asarray(cards.is_soldier)[None, :], discounted, cost)


def ready_value(cards: CardArrays, state) -> jax.Array:
    """``int32[n]``: the value of each seat's ready Supply Line cards; ``rules.derived.
    ready_value``."""
    return (state.supply_ready.astype(_I32) * jnp.asarray(cards.value).astype(_I32)).sum(axis=1)


def fresh_value(cards: CardArrays, state) -> jax.Array:
    """``int32[n]``: the value of each seat's fresh Supply Line cards; ``rules.derived.
    fresh_value``."""
    return (state.supply_fresh.astype(_I32) * jnp.asarray(cards.value).astype(_I32)).sum(axis=1)


def money(cards: CardArrays, state) -> jax.Array:
    """``int32[n]``: what each seat can pay right now, its budget and every ready Supply Line
    card (ruling 24); ``rules.derived.money``."""
    return state.budget.astype(_I32) + ready_value(cards, state)


def can_pay(cards: CardArrays, state, amount) -> jax.Array:
    """``bool[n]`` (or broadcast against ``amount``, whose leading axis is the seat): whether
    each seat can pay ``amount``; ``rules.derived.can_pay``."""
    amount = jnp.asarray(amount, dtype=_I32)
    wealth = money(cards, state)
    return amount <= wealth.reshape(wealth.shape + (1,) * max(amount.ndim - 1, 0))


def hand_limit(cards: CardArrays, state, totals: jax.Array | None = None) -> jax.Array:
    """``int32[n]``: each seat's hand limit, ``config.BASE_HAND_LIMIT`` plus its ``hand_limit``
    total; ``rules.derived.hand_limit``."""
    return BASE_HAND_LIMIT + static_total(cards, state, "hand_limit", totals)


def opponents_in_game(state, seat) -> jax.Array:
    """``bool[n]``: the seats other than ``seat`` still in the game; ``rules.derived.
    opponents_in_game`` lists them."""
    seats = jnp.arange(state.alive.shape[0])
    return state.alive & (seats != jnp.asarray(seat, dtype=_I32))
