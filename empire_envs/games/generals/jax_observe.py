"""The Empires and Generals twin's observation: ``observe.observe`` of the Python rules, for a
twin ``State`` (``jax_state``) and any seat, entry for entry and bit for bit, whoever is to act.

``observe(state, seat, config)`` is pure: ``jit`` and ``vmap`` it freely; ``seat`` may be traced
(an int32 of shape ``()``); ``config`` is static (its ``n`` seats, ``K`` kinds and ``max_seats``
fix the shapes), but the target, ``slaughterhouse`` and ``length_limit`` are read from the
state's own fields, so one compiled view serves every game type of a card pool. The card
numbers come from the pool's ``jax_tables.CardArrays`` (``cards``: by default the config's,
built once; a caller may pass them, traced or not). The layout is the Python module's
(``observe.observation_layout``, ``seat_layout``, ``unit_layout``, ``battle_layout``);
``core.jax_game.assemble_observation`` checks every block against it.

**How.** Every seat row and every unit slot is built for all seats at once, by absolute seat,
as one ``[n, F]`` float32 matrix; one select-and-sum over the ``n x n`` permutation turns it
into seat-offset order (row ``o`` the seat ``(seat + o) % n``: one term of each sum is nonzero,
so the values pass unchanged); rows of seats out of the game are set to zero (``where``, so a
negative CH never leaves a -0.0), and the ``max_seats - n`` absent rows are zeros. The derived
numbers (static totals, strength and life, "may enter") are ``jax_derived``'s.

=================  ===========================================================================
block              what the twin reads (the Python ``observe`` reads the same per seat)
=================  ===========================================================================
my hand, deck,     the observer's row of ``hand``; its ``playing_deck`` and ``supply_pile``
supply             positions below their sizes counted per kind (what lies past a size is
                   never read)
seats              alive, turn player (none once over), CH / T (``ch_quotients``), hand, pile
                   sizes, passed, budget, ready and fresh values (``jax_derived``), the empire
                   one-hot (an unknown or no empire: "other"), has a General, Kingdom cards,
                   the count vectors (Supply Line: ready + fresh), Strategy and Capitol
units              per slot: present, kind, zone, ``jax_derived.bf_entry_flags``, ``unit_numbers``
                   (statics, field and camp bonuses, auras), General, an unused ability, the
                   battle's attacking unit (unless taken out) and blocker
battle             only in BLOCK or TACTIC with a battle under way: the stage (the zone in
                   BLOCK, whose tactic turn in TACTIC), offsets, slots, zone, blocker (or
                   none), redirected, both tactics played; else stage "none"
phase, globals,    the phase one-hot (none once over), T / 10 (``target_tenths``),
banned             Slaughterhouse, round / ``length_limit`` (``core.jax_game.exact_fraction``),
                   the banned kinds
=================  ===========================================================================

**Exact fractions.** The Python observation divides in float64 and stores float32; XLA may turn
a division by a constant into a multiplication by its reciprocal, one unit in the last place
away. So the twin divides nothing: CH / T and T / 10 are read from tables the Python arithmetic
built, one row per game type's target (``ch_quotients``, ``target_tenths``), and round /
``length_limit`` (any limit) is built with integers (``core.jax_game.exact_fraction``).
"""

from __future__ import annotations

import functools
from functools import cache

import jax
import jax.numpy as jnp
import numpy as np

from ...core.jax_game import assemble_observation, exact_fraction, one_hot
from .cards import MAX_CARD_NUMBER
from .config import GAME_TYPES, MAX_KINGDOM, UNIT_SLOTS, GeneralsConfig
from .jax_derived import bf_entry_flags, fresh_value, per_kind, ready_value, static_totals, unit_numbers
from .jax_tables import CardArrays, card_arrays
from .observe import (
    ATTACKER_TACTIC,
    BLOCK_IN_BF,
    BLOCK_IN_WC,
    DEFENDER_TACTIC,
    OTHER_EMPIRE,
    SEAT_SCALARS,
    battle_layout,
    observation_layout,
    seat_layout,
    unit_layout,
)
from .state import BF, BLOCK, NUM_DECISION_PHASES, OVER, TACTIC

__all__ = ["TARGETS", "ch_quotients", "observation_size", "observe", "target_tenths"]

_I32 = jnp.int32
_F32 = jnp.float32
#: the most CH one change adds: one card's number, or the total of the statics a seat can hold
#: (``MAX_KINGDOM`` Kingdom cards, a Strategy, a Capitol) of one effect (``ch_per_turn``,
#: ``on_block_kill_ch``)
MAX_CH_RISE = (MAX_KINGDOM + 2) * MAX_CARD_NUMBER
#: every game type's target, ascending: the rows of ``ch_quotients`` and ``target_tenths``
TARGETS = tuple(sorted(GAME_TYPES.values()))


def observation_size(config: GeneralsConfig) -> int:
    """``O``, the observation's entries: ``observe.observation_size`` of the config's pool and
    ``max_seats``."""
    return observation_layout(config.pool.size, config.max_seats).size


# --------------------------------------------------------------------------- exact fractions


@cache
def ch_quotients() -> tuple[int, np.ndarray]:
    """``(low, table)``: ``table[t, ch - low]`` is ``ch / TARGETS[t]`` as the Python observation
    stores it (a float64 quotient cast to float32), for every CH a seat can hold under any target:
    from ``-max(TARGETS)`` (the lowest elimination line) to ``max(TARGETS) - 1 + MAX_CH_RISE`` (a
    change starts below the target; a seat at or above it has left the game, or is capped at
    it)."""
    low = -max(TARGETS)
    span = range(low, max(TARGETS) + MAX_CH_RISE)
    values = np.array([[ch / target for ch in span] for target in TARGETS], dtype=np.float32)
    values.setflags(write=False)
    return low, values


@cache
def target_tenths() -> np.ndarray:
    """``table[t]`` is ``TARGETS[t] / 10`` as the Python observation stores it."""
    values = np.array([target / 10.0 for target in TARGETS], dtype=np.float32)
    values.setflags(write=False)
    return values


def _lookup(table: np.ndarray | jax.Array, index: jax.Array) -> jax.Array:
    return jnp.asarray(table)[jnp.clip(index, 0, table.shape[0] - 1)]


# --------------------------------------------------------------------------- helpers


def _f32(value) -> jax.Array:
    return jnp.asarray(value).astype(_F32)


def _pile_counts(pile: jax.Array, size: jax.Array, num_kinds: int) -> jax.Array:
    """``int32[K]``: the kinds of ``pile[:size]`` counted (``pile`` one seat's row)."""
    below = jnp.arange(pile.shape[0]) < size
    hits = (pile.astype(_I32)[:, None] == jnp.arange(num_kinds)[None, :]) & below[:, None]
    return hits.sum(axis=0, dtype=_I32)


def _rows(layout, blocks: dict[str, jax.Array]) -> jax.Array:
    """``float32[m, layout.size]``: ``m`` rows laid out as ``layout`` (each block ``[m, ...]``)."""
    return jax.vmap(functools.partial(assemble_observation, layout))(blocks)


# --------------------------------------------------------------------------- the observation


def observe(state, seat, config: GeneralsConfig, cards: CardArrays | None = None) -> jax.Array:
    """``float32[observation_size(config)]``: what ``seat`` sees of ``state``, exactly
    ``observe.observe`` of the Python state for that seat (see the module docstring)."""
    cards = card_arrays(config.pool) if cards is None else cards
    n, k, max_seats, u = config.num_players, config.pool.size, config.max_seats, UNIT_SLOTS
    seat = jnp.asarray(seat, dtype=_I32)
    seats = jnp.arange(n)
    is_me = seats == seat
    over = state.phase == OVER
    rotation = jnp.mod(seat + seats[:, None], n) == seats[None, :]  # [offset, seat]
    alive = state.alive

    # ---- the observer's own counts
    def mine(rows: jax.Array) -> jax.Array:
        return jnp.where(is_me.reshape((n,) + (1,) * (rows.ndim - 1)), rows.astype(_I32), 0).sum(axis=0)

    my_deck = _pile_counts(mine(state.playing_deck), mine(state.playing_size), k)
    my_supply = _pile_counts(mine(state.supply_pile), mine(state.supply_size), k)

    # ---- the seat rows, by absolute seat
    totals = static_totals(cards, state)
    kinds = state.unit_kind.astype(_I32)
    present = kinds >= 0
    general = per_kind(cards.is_general, kinds) & present
    ch_low, ch_tables = ch_quotients()
    target_row = jnp.argmax(jnp.asarray(TARGETS) == state.ch_target.astype(_I32))
    ch_table = jnp.asarray(ch_tables)[target_row]
    empire = state.empire.astype(_I32)
    scalars = jnp.stack(
        [
            jnp.ones(n, _F32),
            _f32((seats == state.turn_player.astype(_I32)) & ~over),
            _lookup(ch_table, state.ch.astype(_I32) - ch_low),
            _f32(state.hand.astype(_I32).sum(axis=1)),
            _f32(state.playing_size),
            _f32(state.supply_size),
            _f32(state.passed_last),
            _f32(state.budget),
            _f32(ready_value(cards, state)),
            _f32(fresh_value(cards, state)),
        ],
        axis=1,
    )
    seat_blocks = {name: scalars[:, i] for i, name in enumerate(SEAT_SCALARS)}
    seat_blocks.update(
        {
            "empire": one_hot(jnp.where(empire < 0, OTHER_EMPIRE, empire), OTHER_EMPIRE + 1),
            "has general": _f32(general.any(axis=1)),
            "kingdom cards": _f32(state.kingdom.astype(_I32).sum(axis=1)),
            "supply line": _f32(state.supply_ready.astype(_I32) + state.supply_fresh.astype(_I32)),
            "kingdom": _f32(state.kingdom),
            "strategy": one_hot(state.strategy.astype(_I32), k),
            "capitol": one_hot(state.capitol.astype(_I32), k),
            "discard": _f32(state.discard),
        }
    )
    seat_rows = _rows(seat_layout(k), seat_blocks)  # [n, seat row]

    # ---- the unit slots, by absolute seat
    strength, life = unit_numbers(cards, state, totals)
    slots = jnp.arange(u)[None, :]
    battle_on = state.battle_on
    attacking = (
        battle_on
        & ~state.battle_a_out
        & (seats == state.battle_attacker.astype(_I32))[:, None]
        & (slots == state.battle_a_slot.astype(_I32))
    )
    blocking = battle_on & (seats == state.battle_defender.astype(_I32))[:, None] & (slots == state.battle_blocker)
    ability = per_kind(cards.has_ability, kinds) & ~state.unit_ability_used
    unit_blocks = {
        "present": present,
        "kind": one_hot(kinds, k),
        "battlefield": present & (state.unit_zone == BF),
        "may enter": bf_entry_flags(cards, state, totals),
        "strength": strength,
        "life": life,
        "general": general,
        "ability": ability,
        "attacker": attacking,
        "blocker": blocking,
    }
    units = unit_layout(k)
    unit_rows = _rows(units, {name: _f32(block).reshape(n * u, -1) for name, block in unit_blocks.items()})
    unit_rows = jnp.where(present.reshape(n * u, 1), unit_rows, 0.0).reshape(n, u * units.size)

    # ---- seat-offset order: rotate, clear the seats out of the game, add the absent rows
    rows = jnp.concatenate([seat_rows, unit_rows], axis=1)
    rotated = jnp.where(rotation[:, :, None], rows[None, :, :], 0.0).sum(axis=1)
    in_game = (rotation & alive[None, :]).any(axis=1)
    rotated = jnp.where(in_game[:, None], rotated, 0.0)
    rotated = jnp.concatenate([rotated, jnp.zeros((max_seats - n, rotated.shape[1]), _F32)])
    seat_part, unit_part = rotated[:, : seat_rows.shape[1]], rotated[:, seat_rows.shape[1] :]

    # ---- the battle under way
    phase = state.phase.astype(_I32)
    in_battle = battle_on & ((phase == BLOCK) | (phase == TACTIC))

    def code(value: jax.Array) -> jax.Array:
        """The battle's one-hot index while a battle shows, -1 (nothing hot) otherwise."""
        return jnp.where(in_battle, value, -1)

    zone = state.battle_zone.astype(_I32)
    blocker = state.battle_blocker.astype(_I32)
    stage = jnp.where(
        phase == BLOCK,
        jnp.where(zone == BF, BLOCK_IN_BF, BLOCK_IN_WC),
        ATTACKER_TACTIC + state.battle_tactic_turn.astype(_I32),
    )
    tactics = state.battle_tactics.astype(_I32)
    battle = battle_layout(k, max_seats)
    battle_blocks = {
        "stage": one_hot(jnp.where(in_battle, stage, 0), DEFENDER_TACTIC + 1),
        "attacker": one_hot(code(jnp.mod(state.battle_attacker.astype(_I32) - seat, n)), max_seats),
        "attacker slot": one_hot(code(state.battle_a_slot.astype(_I32)), u),
        "defender": one_hot(code(jnp.mod(state.battle_defender.astype(_I32) - seat, n)), max_seats),
        "zone": one_hot(code(jnp.where(zone == BF, 0, 1)), 2),
        "blocker": one_hot(code(jnp.where(blocker >= 0, blocker, u)), u + 1),
        "redirected": _f32(in_battle & state.battle_redirected),
        "attacker tactic": one_hot(code(tactics[0]), k),
        "defender tactic": one_hot(code(tactics[1]), k),
    }

    # ---- the whole vector
    blocks = {
        "my hand": _f32(mine(state.hand)),
        "my deck": _f32(my_deck),
        "my supply": _f32(my_supply),
        "seats": seat_part,
        "units": unit_part,
        "battle": assemble_observation(battle, battle_blocks),
        "phase": one_hot(jnp.where(over, -1, phase), NUM_DECISION_PHASES),
        "target": jnp.asarray(target_tenths())[target_row],
        "slaughterhouse": _f32(state.slaughterhouse),
        "round": exact_fraction(state.round, state.length_limit),
        "banned": _f32(state.banned),
    }
    return assemble_observation(observation_layout(k, max_seats), blocks)
