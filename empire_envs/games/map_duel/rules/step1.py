"""Step 1 (sections 19-27): the STEP_1 phase, one optional move of the turn: a face swaps with a
neighbouring number card or with an own Ace (done here), a sacrifice (``sacrifice``), a new
face paid for (``new_face``), or PASS_STEP1.
"""

from __future__ import annotations

import numpy as np

from ....core.phases import PhaseRules
from ..actions import NUM_DIRECTIONS, Kind
from ..state import (
    ACE_FACES,
    CARD_AT_SLOT,
    CARD_SLOT,
    DECK,
    NUM_FACES,
    NUM_NUMBER_CARDS,
    ON_MAP,
    ONGOING,
    SEAT_SUITS,
    SUITS_PER_SEAT,
    MapDuelState,
    face_suit,
    face_type,
    numbers_of_suit,
)
from .board import faces_on_map, geometry, is_number, is_own_colour, layout, neighbour, swap
from .end import check_end
from .new_face import affordable, affords, begin_new_face, can_afford, has_placement_cell, placement_cells
from .sacrifice import begin_sacrifice, sacrifice_faces
from .step2 import to_step2
from .turn import acting_seat

#: the kinds ``_step1_actions`` lists, read once: on Python 3.11 reading a member of ``Kind``
#: costs several times a dict lookup, and listing step 1's actions is a hot path of the rules
_SWAP_ADJ, _SWAP_ACE, _POOL, _FACE, _PASS_STEP1 = Kind.SWAP_ADJ, Kind.SWAP_ACE, Kind.POOL, Kind.FACE, Kind.PASS_STEP1


def _step1_actions(state: MapDuelState) -> list[int]:
    starts, seat, board = layout(state).starts, state.current, state.board
    status, pos, pool = state.face_status[seat], state.face_pos[seat], state.pools[seat]
    neighbours = geometry(state.B).neighbours[seat]
    on_map = [f for f in range(NUM_FACES) if status[f] == ON_MAP]
    actions: list[int] = []
    swap_adj = starts[_SWAP_ADJ]
    for f in on_map:
        base = swap_adj + NUM_DIRECTIONS * f
        actions.extend(
            base + d
            for d, other in enumerate(neighbours[pos[f]])
            if other >= 0 and 0 <= board[other] < NUM_NUMBER_CARDS
        )
    aces = [a for a, ace in enumerate(ACE_FACES) if status[ace] == ON_MAP]
    swap_ace = starts[_SWAP_ACE]
    actions.extend(swap_ace + SUITS_PER_SEAT * f + a for f in on_map for a in aces if ACE_FACES[a] != f)
    # a sacrifice: an own-colour pool card of a suit that has a face on the map (sections 23-25)
    suits_on_map = {face_suit(seat, f) for f in on_map}
    slot, pool_start = CARD_SLOT[seat], starts[_POOL]
    for suit in SEAT_SUITS[seat]:
        if suit in suits_on_map:
            actions.extend(pool_start + slot[n] for n in numbers_of_suit(suit) if pool[n])
    if on_map and has_placement_cell(state, seat):
        sums, primes = affordable(state, seat)
        face = starts[_FACE]
        actions.extend(face + f for f in range(NUM_FACES) if status[f] == DECK and affords(face_type(f), sums, primes))
    actions.append(starts[_PASS_STEP1])
    return sorted(actions)


def _step1_allows(state: MapDuelState, action: int) -> bool:
    kind, a, b = layout(state).decode(action)
    seat = state.current
    status = state.face_status[seat]
    if kind is Kind.PASS_STEP1:
        return True
    if kind is Kind.SWAP_ADJ:
        if status[a] != ON_MAP:
            return False
        other = neighbour(state, seat, state.face_pos[seat][a], b)
        return other >= 0 and is_number(state.board[other])
    if kind is Kind.SWAP_ACE:
        return status[a] == ON_MAP and a != ACE_FACES[b] and status[ACE_FACES[b]] == ON_MAP
    if kind is Kind.POOL:
        n = CARD_AT_SLOT[seat][a]
        return bool(state.pools[seat][n]) and is_own_colour(seat, n) and bool(sacrifice_faces(state, seat, n))
    if kind is Kind.FACE:
        return (
            status[a] == DECK
            and bool(faces_on_map(state, seat))
            and can_afford(state, seat, a)
            and bool(placement_cells(state, seat))
        )
    return False


def _step1(state: MapDuelState, action: int, rng: np.random.Generator) -> list[float]:
    kind, a, b = layout(state).decode(action)
    seat = state.current
    if kind is Kind.PASS_STEP1:
        to_step2(state)
    elif kind is Kind.SWAP_ADJ or kind is Kind.SWAP_ACE:
        other = (
            neighbour(state, seat, state.face_pos[seat][a], b)
            if kind is Kind.SWAP_ADJ
            else state.face_pos[seat][ACE_FACES[b]]
        )
        swap(state, seat, a, other)
        check_end(state)
        if state.outcome == ONGOING:
            to_step2(state)
    elif kind is Kind.POOL:  # a sacrifice (sections 23-25)
        begin_sacrifice(state, seat, CARD_AT_SLOT[seat][a])
    else:  # FACE: paying to place a new face (sections 26, 27)
        begin_new_face(state, a)
    return [0.0, 0.0]


#: step 1's decision, the turn of the seat to act
STEP_1 = PhaseRules(actor=acting_seat, legal_actions=_step1_actions, apply=_step1, allows=_step1_allows)
