"""Empires and Generals observation: one flat float32 vector for one seat.

``K`` kinds (50), ``U = 10`` unit slots, ``P = max_seats`` (4) rows in **seat-offset order**
(row 0 is me, row 1 the next player clockwise, ...; rows of absent players are zero, rows of
players out of the game zero but for nothing: their "alive" entry is 0 too). Default size
(K = 50, P = 4): 3,779 entries, ``3K + P(17 + 5K) + PU(K + 9) + (9 + 2P + 2U + 2K) + 11 + 3 + K``
in general.

=========  ===========  ======================================================================
index      field        meaning
=========  ===========  ======================================================================
0-49       my hand      my hand, count per kind
50-99      my deck      cards left in my Playing Deck, count per kind (the order is hidden)
100-149    my supply    cards left in my Supply Pile, count per kind
150-1217   seats        P rows of 17 + 5K (table below)
1218-3577  units        P x U slots of K + 9 (table below), row-major by seat offset then slot
3578-3714  battle       the battle under way (table below); outside one, stage "none" is 1
3715-3725  phase        one-hot of the 11 decision phases (all 0 once over)
3726-3728  global       target T / 10, Slaughterhouse, round / length_limit
3729-3778  banned       1 for each ultra rare kind nobody may play any more
=========  ===========  ======================================================================

A seat row: 0 alive, 1 is the turn player, 2 CH / T, 3 hand size, 4 Playing Deck size, 5 Supply
Pile size, 6 passed its last turn, 7 budget, 8 value of ready Supply Line cards, 9 value of
fresh ones, 10-14 empire one-hot (rome, mongols, egypt, franks, other), 15 has a General in
play, 16 Kingdom cards in play; then per kind: 17 + k Supply Line count, 17 + K + k Kingdom
count, 17 + 2K + k its Strategy, 17 + 3K + k its Capitol, 17 + 4K + k discard pile count.

A unit slot: 0 present, 1..K kind one-hot, K + 1 in the Battlefield, K + 2 may enter the
Battlefield now (Pull), K + 3 strength, K + 4 life (both outside battle modifiers), K + 5 is a
General, K + 6 ability available, K + 7 is the attacker, K + 8 is the blocker.

The battle block: 0-4 stage one-hot (none: no battle under way, block in the Battlefield, block
in the Warcamp, attacker's tactic, defender's tactic), then the attacker's seat offset (P), its
slot (U), the defender's seat offset (P), the zone (Battlefield, Warcamp), the blocker's slot or
none (U + 1), redirected (1), the tactic kind played by the attacker (K) and by the defender (K);
all but the stage are 0 when no battle is under way.

Bounds: every entry lies in [-1, 100] for the default pool and decks; the space's upper bound is
``observation_high(config)``, which rises above 100 only for card files whose numbers can (a
300-card deck, a resource worth 1,000), and is computed from the pool and decks when the env is
made.

Hidden: other hands (their sizes show), the order of every pile, and the contents of other
players' piles (their sizes show; with the prebuilt decks, each player's empire makes its deck
list public).
"""

from __future__ import annotations

from array import array
from functools import cache
from operator import mul

import numpy as np

from ...core.layout import ObsLayout
from .cards import KNOWN_EMPIRES as EMPIRES
from .cards import CardPool, Deck
from .config import MAX_KINGDOM, UNIT_SLOTS
from .rules import bf_entry_flags, unit_numbers
from .state import BF, BLOCK, COUNT_TYPECODE, NUM_DECISION_PHASES, OVER, TACTIC, WC, GeneralsState, new_counts

SEAT_FIXED = 17
EMPIRE_SLOT = {name: slot for slot, name in enumerate(EMPIRES)}  # any other empire: slot 4
UNIT_FIXED = 9
OBSERVATION_HIGH = 100.0
OBSERVATION_LOW = -1.0
#: the state's per-kind counts (``array("H")``) read as one buffer
_COUNT_DTYPE = np.dtype(np.uint16)
assert _COUNT_DTYPE.itemsize == array(COUNT_TYPECODE).itemsize


@cache
def _zero_bytes(entries: int) -> bytes:
    return bytes(entries * _COUNT_DTYPE.itemsize)


@cache
def observation_layout(num_kinds: int, max_seats: int) -> ObsLayout:
    K, P, U = num_kinds, max_seats, UNIT_SLOTS
    return ObsLayout(
        [
            ("my hand", K),
            ("my deck", K),
            ("my supply", K),
            ("seats", P * (SEAT_FIXED + 5 * K)),
            ("units", P * U * (K + UNIT_FIXED)),
            ("battle", 9 + 2 * P + 2 * U + 2 * K),
            ("phase", NUM_DECISION_PHASES),
            ("global", 3),
            ("banned", K),
        ]
    )


LAYOUT = observation_layout(50, 4)
OBSERVATION_SIZE = LAYOUT.size


def observation_size(num_kinds: int, max_seats: int) -> int:
    return observation_layout(num_kinds, max_seats).size


@cache
def _count_positions(num_kinds: int, max_seats: int, num_players: int) -> np.ndarray:
    """Where ``observe``'s gathered count vectors go: my hand, deck and supply, then per seat
    in view order its Supply Line, Kingdom and discard pile."""
    K = num_kinds
    lay = observation_layout(K, max_seats)
    positions = list(range(3 * K))
    seat_width = SEAT_FIXED + 5 * K
    for offset in range(num_players):
        per_kind = lay.start("seats") + offset * seat_width + SEAT_FIXED
        positions += range(per_kind, per_kind + 2 * K)  # Supply Line, Kingdom
        positions += range(per_kind + 4 * K, per_kind + 5 * K)  # discard pile
    return np.array(positions, dtype=np.intp)


def observe(state: GeneralsState, seat: int) -> np.ndarray:
    """What ``seat`` sees (ruling section 4)."""
    config = state.config
    K = state.pool.size
    P, U = config.max_seats, UNIT_SLOTS
    lay = observation_layout(K, P)
    obs = np.zeros(lay.size, dtype=np.float32)
    # the scalar entries are gathered as (index, value) and written with one assignment
    index: list[int] = []
    value: list[float] = []
    me = state.players[seat]
    order = [state.seat_at(seat, offset) for offset in range(state.num_players)]
    # every count vector of the view in one conversion and one write: my hand, my Playing Deck
    # and Supply Pile contents, then per seat in view order its Supply Line, Kingdom and discard
    deck_counts, supply_counts = new_counts(K), new_counts(K)
    for kind in me.playing_deck:
        deck_counts[kind] += 1
    for kind in me.supply_pile:
        supply_counts[kind] += 1
    parts: list[bytes | array] = [me.hand, deck_counts, supply_counts]
    for p in order:
        player = state.players[p]
        if player.alive:
            # fresh cards exist only in the turn player's line, until its turn ends
            line = (
                (
                    np.frombuffer(player.supply_ready, _COUNT_DTYPE) + np.frombuffer(player.supply_fresh, _COUNT_DTYPE)
                ).tobytes()
                if any(player.supply_fresh)
                else player.supply_ready
            )
            parts += (line, player.kingdom, player.discard)
        else:
            parts.append(_zero_bytes(3 * K))
    obs[_count_positions(K, P, state.num_players)] = np.frombuffer(b"".join(parts), dtype=_COUNT_DTYPE)
    seat_width = SEAT_FIXED + 5 * K
    unit_width = K + UNIT_FIXED
    seats_at, units_at = lay.start("seats"), lay.start("units")
    battle = state.battle
    target = config.target
    is_general = state.tables.is_general
    card_values = state.tables.value
    has_ability = state.tables.has_ability
    for offset, p in enumerate(order):
        player = state.players[p]
        if not player.alive:
            continue
        row = seats_at + offset * seat_width
        empire = EMPIRE_SLOT.get(player.empire, 4)
        units = player.units
        index += range(row, row + 10)
        value += (
            1.0,
            p == state.current and state.phase != OVER,
            player.ch / target,
            sum(player.hand),
            len(player.playing_deck),
            len(player.supply_pile),
            player.passed_last,
            player.budget,
            sum(map(mul, player.supply_ready, card_values)),
            sum(map(mul, player.supply_fresh, card_values)) if any(player.supply_fresh) else 0,
        )
        index += (row + 10 + empire, row + 16)
        value += (1.0, sum(player.kingdom))
        per_kind = row + SEAT_FIXED
        if player.strategy >= 0:
            index.append(per_kind + 2 * K + player.strategy)
            value.append(1.0)
        if player.capitol >= 0:
            index.append(per_kind + 3 * K + player.capitol)
            value.append(1.0)
        if not any(units):
            continue
        numbers = unit_numbers(state, p)
        may_enter = bf_entry_flags(state, p)
        attacker_slot = battle.a_slot if battle is not None and battle.attacker == p and not battle.a_out else -1
        blocker_slot = battle.blocker if battle is not None and battle.defender == p else -1
        has_general = False
        for slot, unit in enumerate(units):
            if unit is None:
                continue
            general = is_general[unit.kind]
            has_general = has_general or general
            at = units_at + (offset * U + slot) * unit_width
            strength, life = numbers[slot]  # type: ignore[misc]  # not None: the slot holds a unit
            index += (
                at,
                at + 1 + unit.kind,
                at + K + 1,
                at + K + 2,
                at + K + 3,
                at + K + 4,
                at + K + 5,
                at + K + 6,
                at + K + 7,
                at + K + 8,
            )
            value += (
                1.0,
                1.0,
                unit.zone == BF,
                may_enter[slot],
                strength,
                life,
                general,
                has_ability[unit.kind] and not unit.ability_used,
                slot == attacker_slot,
                slot == blocker_slot,
            )
        if has_general:
            index.append(row + 15)
            value.append(1.0)
    if battle is None or state.phase not in (BLOCK, TACTIC):
        index.append(lay.start("battle"))  # stage "none"
        value.append(1.0)
    else:
        at = lay.start("battle")
        stage = (1 if battle.zone == BF else 2) if state.phase == BLOCK else 3 + battle.tactic_turn
        index += (
            at + stage,
            at + 5 + state.offset_of(seat, battle.attacker),
            at + 5 + P + battle.a_slot,
            at + 5 + P + U + state.offset_of(seat, battle.defender),
        )
        value += (1.0, 1.0, 1.0, 1.0)
        at += 5 + 2 * P + U
        index += (
            at + (0 if battle.zone == BF else 1),
            at + 2 + (battle.blocker if battle.blocker >= 0 else U),
            at + 3 + U,
        )
        value += (1.0, 1.0, battle.redirected)
        at += 4 + U
        for side in (0, 1):
            if battle.tactics[side] >= 0:
                index.append(at + side * K + battle.tactics[side])
                value.append(1.0)
    if state.phase != OVER:
        index.append(lay.start("phase") + state.phase)
        value.append(1.0)
    at = lay.start("global")
    index += (at, at + 1, at + 2)
    value += (target / 10.0, config.slaughterhouse, state.round / config.length_limit)
    at = lay.start("banned")
    for kind in state.banned:
        index.append(at + kind)
        value.append(1.0)
    obs[np.fromiter(index, np.intp, len(index))] = np.fromiter(value, np.float32, len(value))
    return obs


def observation_high(config) -> float:
    """An upper bound of every entry: ``OBSERVATION_HIGH`` (100), or more when the config's
    decks can exceed it (``entry_bound``)."""
    decks = tuple(config.available_decks[deck_id] for deck_id in sorted(config.available_decks))
    return float(max(OBSERVATION_HIGH, entry_bound(config.pool, decks, config.max_generals)))


@cache
def entry_bound(pool: CardPool, decks: tuple[Deck, ...], max_generals: int) -> int:
    """The largest value an observation entry can take in a game between these decks.

    A player's cards stay its own, so each number is bounded by one deck: counts and pile and
    hand sizes by its card count; Supply Line values by the value of all its resources; the
    budget by its best Harvest statics (8 Kingdom cards, a Strategy, a Capitol) or the change of
    one payment (less than a card's value); a unit's strength and life by its best base numbers
    plus the best statics, zone bonuses and the auras of ``max_generals`` Generals. Kingdom
    counts stop at 8, flags at 1, and the scaled entries (CH / T, T / 10, round / length_limit)
    lie within [-1, 1]."""
    return max((_deck_bound(pool, deck, max_generals) for deck in decks), default=1)


def _deck_bound(pool: CardPool, deck: Deck, max_generals: int) -> int:
    cards = [pool.kinds[k] for k in deck.playing + deck.supply]

    def best(effect: str, card_type: str, copies: int) -> int:
        return sum(sorted((getattr(card, effect) for card in cards if card.type == card_type), reverse=True)[:copies])

    def statics(effect: str) -> int:
        return best(effect, "kingdom", MAX_KINGDOM) + best(effect, "strategy", 1) + best(effect, "capitol", 1)

    units = [card for card in cards if card.is_unit]
    auras = best("aura_str", "general", max_generals)
    strength = max((card.strength + card.field_str for card in units), default=0)
    strength += max(statics("soldier_str"), statics("general_str")) + auras
    life = max((card.life + card.camp_life for card in units), default=0)
    life += max(statics("soldier_life"), statics("general_life")) + statics("camp_life_all")
    wealth = sum(card.value for card in cards)
    budget = max(statics("harvest"), max((card.value for card in cards), default=0))
    return max(len(cards), wealth, budget, strength, life, MAX_KINGDOM)


def observation_low(config) -> float:
    """CH / T, the only signed entry, is never below -1 (elimination)."""
    return OBSERVATION_LOW


__all__ = ["OBSERVATION_SIZE", "observe", "observation_size", "observation_layout", "WC"]
