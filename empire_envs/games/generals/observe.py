"""Empires and Generals observation: one flat float32 vector for one seat.

``K`` kinds (50), ``U = 10`` unit slots, ``P = max_seats`` (4) rows in **seat-offset order**
(row 0 is me, row 1 the next player clockwise, ...; rows of absent players are zero, and so are
the rows of players out of the game, their "alive" entry included). The blocks are declared once
(``seat_layout``, ``unit_layout``, ``battle_layout`` and ``observation_layout``, each an
``ObsLayout``); these tables are the default game's. Default size (K = 50, P = 4): 3,779 entries,
``3K + P(17 + 5K) + PU(K + 9) + (9 + 2P + 2U + 2K) + 11 + 3 + K`` in general.

==========  ===============  ====================================================================
index       field            meaning
==========  ===============  ====================================================================
0-49        my hand          my hand, count per kind
50-99       my deck          cards left in my Playing Deck, count per kind (the order is hidden)
100-149     my supply        cards left in my Supply Pile, count per kind
150-1217    seats            P seat rows (table below), in seat-offset order
1218-3577   units            P x U unit slots (table below), by seat offset, then slot
3578-3714   battle           the battle under way (table below)
3715-3725   phase            one-hot of the 11 decision phases, in ``state.Phase`` order (all 0
                             once the game is over)
3726        target           the target T / 10
3727        slaughterhouse   1 in a Slaughterhouse game
3728        round            the round / length_limit
3729-3778   banned           1 for each ultra rare kind nobody may play any more
==========  ===============  ====================================================================

A seat row (267 entries, ``17 + 5K``):

=======  ===============  =======================================================================
offset   field            meaning
=======  ===============  =======================================================================
0        alive            1 while the seat is in the game
1        turn player      1 for the turn player (0 once the game is over)
2        ch               its cultural health / T
3        hand size        cards in its hand
4        deck size        cards left in its Playing Deck
5        supply size      cards left in its Supply Pile
6        passed           1 if it passed its last turn
7        budget           its budget (Harvest income and change not yet spent this turn)
8        ready value      the value of its ready Supply Line cards
9        fresh value      the value of its fresh ones
10-14    empire           one-hot rome, mongols, egypt, franks, any other empire
15       has general      1 if it has a General in play
16       kingdom cards    its Kingdom cards in play
17-66    supply line      its Supply Line, ready and fresh, count per kind
67-116   kingdom          its Kingdom, count per kind
117-166  strategy         one-hot of its Strategy
167-216  capitol          one-hot of its Capitol
217-266  discard          its discard pile, count per kind
=======  ===============  =======================================================================

A unit slot (59 entries, ``K + 9``; all 0 for an empty slot):

=======  ===============  =======================================================================
offset   field            meaning
=======  ===============  =======================================================================
0        present          1 if a unit is in the slot
1-50     kind             one-hot of its kind
51       battlefield      1 in the Battlefield, 0 in the Warcamp
52       may enter        1 if it may move to the Battlefield now (Pull)
53       strength         its strength, outside battle modifiers
54       life             its life, outside battle modifiers
55       general          1 for a General
56       ability          1 if it has an ability not used this turn
57       attacker         1 for the attacker of the battle under way
58       blocker          1 for the blocker of the battle under way
=======  ===============  =======================================================================

The battle block (137 entries, ``9 + 2P + 2U + 2K``; outside a battle, stage "none" is 1 and
everything else 0):

=======  ===============  =======================================================================
offset   field            meaning
=======  ===============  =======================================================================
0-4      stage            one-hot none, block in the Battlefield, block in the Warcamp,
                          attacker's tactic, defender's tactic
5-8      attacker         one-hot seat offset of the attacker
9-18     attacker slot    one-hot slot of the attacking unit
19-22    defender         one-hot seat offset of the defender
23-24    zone             one-hot Battlefield, Warcamp
25-35    blocker          one-hot slot of the blocker; the last entry: no blocker
36       redirected       1 once the battle has moved to the Warcamp
37-86    attacker tactic  one-hot kind of the tactic the attacker played
87-136   defender tactic  one-hot kind of the tactic the defender played
=======  ===============  =======================================================================

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
from .cards import KNOWN_EMPIRES, CardPool, Deck
from .config import MAX_KINGDOM, UNIT_SLOTS
from .rules import bf_entry_flags, unit_numbers
from .state import BF, BLOCK, COUNT_TYPECODE, NUM_DECISION_PHASES, OVER, TACTIC, GeneralsState, new_counts

#: the empire one-hot: the known empires, then one entry for any other
EMPIRE_SLOT = {name: slot for slot, name in enumerate(KNOWN_EMPIRES)}
OTHER_EMPIRE = len(KNOWN_EMPIRES)
#: the battle stages of the one-hot, after "none" (0)
BLOCK_IN_BF, BLOCK_IN_WC, ATTACKER_TACTIC, DEFENDER_TACTIC = 1, 2, 3, 4
OBSERVATION_HIGH = 100.0
OBSERVATION_LOW = -1.0
#: the state's per-kind counts (``array("H")``) read as one buffer
_COUNT_DTYPE = np.dtype(np.uint16)
assert _COUNT_DTYPE.itemsize == array(COUNT_TYPECODE).itemsize

#: the seat row's single entries, in order: ``observe`` writes them as one run
SEAT_SCALARS = (
    "alive",
    "turn player",
    "ch",
    "hand size",
    "deck size",
    "supply size",
    "passed",
    "budget",
    "ready value",
    "fresh value",
)
#: a seat row's count vectors, in the order ``observe`` gathers them
_SEAT_COUNTS = ("supply line", "kingdom", "discard")
#: the unit slot's single entries after the kind one-hot, in order
UNIT_SCALARS = ("battlefield", "may enter", "strength", "life", "general", "ability", "attacker", "blocker")


@cache
def seat_layout(num_kinds: int) -> ObsLayout:
    """One seat row: what everyone sees of a seat (table above)."""
    K = num_kinds
    return ObsLayout(
        [(name, 1) for name in SEAT_SCALARS]
        + [("empire", OTHER_EMPIRE + 1), ("has general", 1), ("kingdom cards", 1)]
        + [("supply line", K), ("kingdom", K), ("strategy", K), ("capitol", K), ("discard", K)]
    )


@cache
def unit_layout(num_kinds: int) -> ObsLayout:
    """One unit slot (table above)."""
    return ObsLayout([("present", 1), ("kind", num_kinds)] + [(name, 1) for name in UNIT_SCALARS])


@cache
def battle_layout(num_kinds: int, max_seats: int) -> ObsLayout:
    """The battle under way (table above)."""
    K, P, U = num_kinds, max_seats, UNIT_SLOTS
    return ObsLayout(
        [
            ("stage", DEFENDER_TACTIC + 1),
            ("attacker", P),
            ("attacker slot", U),
            ("defender", P),
            ("zone", 2),
            ("blocker", U + 1),
            ("redirected", 1),
            ("attacker tactic", K),
            ("defender tactic", K),
        ]
    )


@cache
def observation_layout(num_kinds: int, max_seats: int) -> ObsLayout:
    """The whole vector (table above): ``P`` seat rows and ``P x U`` unit slots in two blocks."""
    K, P = num_kinds, max_seats
    return ObsLayout(
        [
            ("my hand", K),
            ("my deck", K),
            ("my supply", K),
            ("seats", P * seat_layout(K).size),
            ("units", P * UNIT_SLOTS * unit_layout(K).size),
            ("battle", battle_layout(K, P).size),
            ("phase", NUM_DECISION_PHASES),
            ("target", 1),
            ("slaughterhouse", 1),
            ("round", 1),
            ("banned", K),
        ]
    )


LAYOUT = observation_layout(50, 4)
SEAT_LAYOUT = seat_layout(50)
UNIT_LAYOUT = unit_layout(50)
BATTLE_LAYOUT = battle_layout(50, 4)
OBSERVATION_SIZE = LAYOUT.size


def observation_size(num_kinds: int, max_seats: int) -> int:
    return observation_layout(num_kinds, max_seats).size


class _Positions:
    """Where each entry of one game size goes, from the layouts: built once per size, so an
    observation only adds a kind or a slot to a start it looks up."""

    def __init__(self, num_kinds: int, max_seats: int) -> None:
        K, P, U = num_kinds, max_seats, UNIT_SLOTS
        whole, seat, unit, battle = (
            observation_layout(K, P),
            seat_layout(K),
            unit_layout(K),
            battle_layout(K, P),
        )
        self.size = whole.size
        rows = [whole.start("seats") + offset * seat.size for offset in range(P)]
        #: per seat offset: the positions of SEAT_SCALARS, then where the one-hots and the
        #: Kingdom count start
        self.seat_scalars = [tuple(row + seat.start(name) for name in SEAT_SCALARS) for row in rows]
        self.empire = [row + seat.start("empire") for row in rows]
        self.has_general = [row + seat.start("has general") for row in rows]
        self.kingdom_cards = [row + seat.start("kingdom cards") for row in rows]
        self.strategy = [row + seat.start("strategy") for row in rows]
        self.capitol = [row + seat.start("capitol") for row in rows]
        #: per seat offset and slot: the positions of "present" and UNIT_SCALARS, and where the
        #: kind one-hot starts
        slots = [[whole.start("units") + (offset * U + slot) * unit.size for slot in range(U)] for offset in range(P)]
        self.unit_scalars = [
            [(at + unit.start("present"), *(at + unit.start(name) for name in UNIT_SCALARS)) for at in row]
            for row in slots
        ]
        self.unit_kind = [[at + unit.start("kind") for at in row] for row in slots]
        at = whole.start("battle")
        self.battle = {name: at + start for name, start, _ in battle.rows()}
        self.phase = whole.start("phase")
        self.globals = (whole.start("target"), whole.start("slaughterhouse"), whole.start("round"))
        self.banned = whole.start("banned")
        counts = [whole[name] for name in ("my hand", "my deck", "my supply")]
        for row in rows:
            counts += [slice(row + seat.start(name), row + seat.start(name) + K) for name in _SEAT_COUNTS]
        #: per number of players: where the gathered count vectors go (the seats' three
        #: vectors follow the observer's, in view order)
        self.count_positions = [
            np.concatenate([np.arange(block.start, block.stop) for block in counts[: 3 + 3 * players]])
            for players in range(P + 1)
        ]
        self.zero_seat_counts = bytes(3 * K * _COUNT_DTYPE.itemsize)


@cache
def _positions(num_kinds: int, max_seats: int) -> _Positions:
    return _Positions(num_kinds, max_seats)


def observe(state: GeneralsState, seat: int) -> np.ndarray:
    """What ``seat`` sees (ruling section 4): the vector of the tables above."""
    config = state.config
    K = state.pool.size
    at = _positions(K, config.max_seats)
    obs = np.zeros(at.size, dtype=np.float32)
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
            parts.append(at.zero_seat_counts)
    obs[at.count_positions[state.num_players]] = np.frombuffer(b"".join(parts), dtype=_COUNT_DTYPE)
    battle = state.battle
    target = config.target
    is_general = state.tables.is_general
    card_values = state.tables.value
    has_ability = state.tables.has_ability
    over = state.phase == OVER
    for offset, p in enumerate(order):
        player = state.players[p]
        if not player.alive:
            continue
        index += at.seat_scalars[offset]
        value += (  # in SEAT_SCALARS order
            1.0,
            p == state.current and not over,
            player.ch / target,
            sum(player.hand),
            len(player.playing_deck),
            len(player.supply_pile),
            player.passed_last,
            player.budget,
            sum(map(mul, player.supply_ready, card_values)),
            sum(map(mul, player.supply_fresh, card_values)) if any(player.supply_fresh) else 0,
        )
        index += (at.empire[offset] + EMPIRE_SLOT.get(player.empire, OTHER_EMPIRE), at.kingdom_cards[offset])
        value += (1.0, sum(player.kingdom))
        if player.strategy >= 0:
            index.append(at.strategy[offset] + player.strategy)
            value.append(1.0)
        if player.capitol >= 0:
            index.append(at.capitol[offset] + player.capitol)
            value.append(1.0)
        units = player.units
        if not any(units):
            continue
        numbers = unit_numbers(state, p)
        may_enter = bf_entry_flags(state, p)
        attacker_slot = battle.a_slot if battle is not None and battle.attacker == p and not battle.a_out else -1
        blocker_slot = battle.blocker if battle is not None and battle.defender == p else -1
        slot_scalars, slot_kind = at.unit_scalars[offset], at.unit_kind[offset]
        has_general = False
        for slot, unit in enumerate(units):
            if unit is None:
                continue
            general = is_general[unit.kind]
            has_general = has_general or general
            strength, life = numbers[slot]  # type: ignore[misc]  # not None: the slot holds a unit
            index += slot_scalars[slot]
            index.append(slot_kind[slot] + unit.kind)
            value += (  # "present", UNIT_SCALARS in order, then the kind one-hot
                1.0,
                unit.zone == BF,
                may_enter[slot],
                strength,
                life,
                general,
                has_ability[unit.kind] and not unit.ability_used,
                slot == attacker_slot,
                slot == blocker_slot,
                1.0,
            )
        if has_general:
            index.append(at.has_general[offset])
            value.append(1.0)
    stage, attacker, attacker_slot_at, defender, zone, blocker, redirected, tactics = (
        at.battle["stage"],
        at.battle["attacker"],
        at.battle["attacker slot"],
        at.battle["defender"],
        at.battle["zone"],
        at.battle["blocker"],
        at.battle["redirected"],
        (at.battle["attacker tactic"], at.battle["defender tactic"]),
    )
    if battle is None or state.phase not in (BLOCK, TACTIC):
        index.append(stage)  # stage "none"
        value.append(1.0)
    else:
        if state.phase == BLOCK:
            stage += BLOCK_IN_BF if battle.zone == BF else BLOCK_IN_WC
        else:
            stage += ATTACKER_TACTIC + battle.tactic_turn
        index += (
            stage,
            attacker + state.offset_of(seat, battle.attacker),
            attacker_slot_at + battle.a_slot,
            defender + state.offset_of(seat, battle.defender),
            zone + (0 if battle.zone == BF else 1),
            blocker + (battle.blocker if battle.blocker >= 0 else UNIT_SLOTS),
            redirected,
        )
        value += (1.0, 1.0, 1.0, 1.0, 1.0, 1.0, battle.redirected)
        for side in (0, 1):
            if battle.tactics[side] >= 0:
                index.append(tactics[side] + battle.tactics[side])
                value.append(1.0)
    if not over:
        index.append(at.phase + state.phase)
        value.append(1.0)
    index += at.globals
    value += (target / 10.0, config.slaughterhouse, state.round / config.length_limit)
    for kind in state.banned:
        index.append(at.banned + kind)
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


__all__ = ["OBSERVATION_SIZE", "observe", "observation_size", "observation_layout"]
