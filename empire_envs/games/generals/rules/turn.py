"""The turn: its start, the DECLARE and DRAW phases (rulings 19-22), the Harvest (rulings 23-26),
the Resolve phase with its DISCARD_HAND decisions (ruling 52) and the end of the turn (rulings
26, 54). The Kingdom, Army and Attack phases between them have modules of their own.

Each phase's functions come in pairs: ``<phase>_actions(state)``, the legal actions ascending,
and ``apply_<phase>(state, action, rng)``, which plays one and returns what it earned each seat
(``phases.PHASES`` collects them)."""

from __future__ import annotations

from array import array
from operator import add

import numpy as np

from ..actions import DRAW_PLAYING, DRAW_SUPPLY, PASS, PLAY_TURN, Kind
from ..state import COUNT_TYPECODE, DECLARE, DISCARD_HAND, DRAW, KINGDOM, OVER, GeneralsState, new_counts
from .derived import decoded, hand_limit, static_total
from .effects import draw
from .scoring import change_ch, eliminate, no_rewards, truncate


def begin_turn(state: GeneralsState) -> None:
    player = state.players[state.current]
    player.turns_taken += 1
    state.attacked = False
    state.phase = DECLARE


# DECLARE (ruling 19): play this turn, or pass it; never two passes in a row.


def declare_actions(state: GeneralsState) -> list[int]:
    return [PLAY_TURN] if state.players[state.current].passed_last else [PLAY_TURN, PASS]


def apply_declare(state: GeneralsState, action: int, rng: np.random.Generator) -> list[float]:
    """Ruling 19: a pass skips the whole turn; never two in a row."""
    earned = no_rewards(state)
    player = state.players[state.current]
    player.passed_last = passes = action == PASS
    if passes:
        end_turn(state)
        return earned
    state.draws_left = 1 + static_total(state, state.current, "draw_extra")
    state.phase = DRAW
    _continue_draw(state, earned)
    return earned


# DRAW (rulings 21-22): one pile per draw, as long as it holds a card.


def draw_actions(state: GeneralsState) -> list[int]:
    player = state.players[state.current]
    actions = []
    if player.playing_deck:
        actions.append(DRAW_PLAYING)
    if player.supply_pile:
        actions.append(DRAW_SUPPLY)
    return actions


def apply_draw(state: GeneralsState, action: int, rng: np.random.Generator) -> list[float]:
    earned = no_rewards(state)
    player = state.players[state.current]
    draw(player, player.playing_deck if action == DRAW_PLAYING else player.supply_pile)
    state.draws_left -= 1
    _continue_draw(state, earned)
    return earned


def _continue_draw(state: GeneralsState, earned: list[float]) -> None:
    """Draw until the draws are used (rulings 21-22), then Harvest and the Kingdom phase."""
    seat = state.current
    player = state.players[seat]
    while state.draws_left > 0:
        if not player.playing_deck and not player.supply_pile:
            if state.config.deckout_loses:
                eliminate(state, seat)
                return
            state.draws_left = 0
            break
        if state.config.draw_mode == "both":
            draw(player, player.playing_deck)
            draw(player, player.supply_pile)
            state.draws_left -= 1
            continue
        return  # a decision (or an automatic single choice) per draw
    _harvest(state, seat, earned)


def _harvest(state: GeneralsState, seat: int, earned: list[float]) -> None:
    """Rulings 23-26: resources go from hand to the Supply Line (fresh unless continuous), but
    for banned ones, and an ultra rare bans its kind as it enters play (ruling 7); harvest
    effects add budget; ch_per_turn effects add CH."""
    player = state.players[seat]
    tables = state.tables
    banned = state.banned
    for kind, count in enumerate(player.hand):
        if not count or not tables.is_resource[kind] or kind in banned:
            continue  # a banned resource cannot be played: it stays in the hand (ruling 7)
        if tables.ultra_rare[kind]:
            count = 1  # the first copy to enter play bans the others
            banned.add(kind)
        player.hand[kind] -= count
        if tables.kinds[kind].continuous:
            player.supply_ready[kind] += count
        else:
            player.supply_fresh[kind] += count
    player.drawn_playing = player.drawn_supply = player.resources_discarded = 0
    if len(player.banned_at_harvest) != len(banned):  # bans only ever grow
        player.banned_at_harvest = frozenset(banned)
    player.budget += static_total(state, seat, "harvest")
    state.phase = KINGDOM
    change_ch(state, seat, static_total(state, seat, "ch_per_turn"), earned)


# The Resolve phase, then DISCARD_HAND (ruling 52): one card at a time down to the hand limit.


def resolve_phase(state: GeneralsState) -> None:
    """Ruling 52: discard down to the hand limit, then the turn ends."""
    state.battle = None
    seat = state.current
    if state.players[seat].alive and sum(state.players[seat].hand) > hand_limit(state, seat):
        state.phase = DISCARD_HAND
    else:
        end_turn(state)


def discard_hand_actions(state: GeneralsState) -> list[int]:
    discard_hand = state.layout.starts[Kind.DISCARD_HAND]
    return [discard_hand + kind for kind, count in enumerate(state.players[state.current].hand) if count]


def apply_discard_hand(state: GeneralsState, action: int, rng: np.random.Generator) -> list[float]:
    kind = decoded(state, action)[1]
    seat = state.current
    player = state.players[seat]
    player.hand[kind] -= 1
    player.discard[kind] += 1
    if state.tables.is_resource[kind] and kind not in player.banned_at_harvest:
        player.resources_discarded += 1
    if sum(player.hand) <= hand_limit(state, seat):
        end_turn(state)
    return no_rewards(state)


def end_turn(state: GeneralsState) -> None:
    """Budgets cleared, fresh resources ready, abilities reset, next seat in the game (26, 54)."""
    if state.phase == OVER:
        return
    seat = state.current
    for player in state.players:
        player.budget = 0
        units = player.units
        for slot, unit in enumerate(units):
            if unit is not None and unit.ability_used:
                units[slot] = unit._replace(ability_used=False)
    player = state.players[seat]
    if any(player.supply_fresh):
        player.supply_ready = array(COUNT_TYPECODE, map(add, player.supply_ready, player.supply_fresh))
        player.supply_fresh = new_counts(len(player.supply_fresh))
    state.battle = None
    alive = [p for p in range(state.num_players) if state.players[p].alive]
    if len(alive) < 2:  # the game ended on this turn (a win is handled where it happens)
        return
    n = state.num_players
    nxt = next(state.seat_at(seat, o) for o in range(1, n + 1) if state.players[state.seat_at(seat, o)].alive)
    # a new round begins when play passes the first player's place at the table
    if (nxt - state.first) % n <= (seat - state.first) % n:
        if state.round >= state.config.length_limit:
            truncate(state)
            return
        state.round += 1
    state.current = nxt
    begin_turn(state)
