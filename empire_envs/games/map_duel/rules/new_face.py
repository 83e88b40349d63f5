"""A new face (sections 26, 27), one of step 1's moves: what a face costs and whether a seat's
pool can pay it, the cells a new face may take, and the PLACE_CELL phase (its cell) and the
PLACE_PAY phase (the payment, card by card).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ....core.phases import PhaseRules
from ..actions import Kind
from ..state import (
    ACE_TYPE,
    CARD_AT_SLOT,
    CARD_SLOT,
    EMPTY,
    JACK_TYPE,
    KING_TYPE,
    NUM_FACES,
    NUM_NUMBER_CARDS,
    ON_MAP,
    ONGOING,
    QUEEN_TYPE,
    SEAT_SUITS,
    MapDuelState,
    Phase,
    face_code,
    face_type,
    number_rank,
    numbers_of_suit,
)
from ..tables import ACE_PAYMENT, ACE_PRIMES, FACE_COSTS, PRIME_RANKS
from .board import chosen_card, chosen_cell, ego_cells, faces_on_map, geometry, is_own_colour, layout
from .end import check_end
from .step2 import to_step2
from .turn import acting_seat

#: what a placed J, Q, K costs (section 26); an Ace costs ``ACE_PRIMES`` primes
FACE_COST = {face: FACE_COSTS[face] for face in (JACK_TYPE, QUEEN_TYPE, KING_TYPE)}


def _opposite_pool(state: MapDuelState, seat: int) -> list[int]:
    """The seat's pool cards of the opponent's colour (what it pays new faces with)."""
    pool = state.pools[seat]
    return [n for suit in SEAT_SUITS[1 - seat] for n in numbers_of_suit(suit) if pool[n]]


def _subset_sums(ranks: Sequence[int], limit: int) -> set[int]:
    sums = {0}
    for rank in ranks:
        sums |= {s + rank for s in sums if s + rank <= limit}
    return sums


def affordable(state: MapDuelState, seat: int) -> tuple[set[int], int]:
    """What the seat's opposite-colour pool can pay: the exact sums up to 9 it can make, and how
    many prime ranks it holds."""
    ranks = [number_rank(n) for n in _opposite_pool(state, seat)]
    return _subset_sums(ranks, FACE_COST[KING_TYPE]), sum(1 for rank in ranks if rank in PRIME_RANKS)


def affords(kind: int, sums: set[int], primes: int) -> bool:
    """Whether a pool with these ``affordable`` sums and primes pays a face of type ``kind``."""
    return primes >= ACE_PRIMES if kind == ACE_TYPE else FACE_COST[kind] in sums


def can_afford(state: MapDuelState, seat: int, face: int) -> bool:
    """Section 26: J/Q/K cost opposite-colour cards summing to exactly 7/8/9; an Ace two primes."""
    return affords(face_type(face), *affordable(state, seat))


def placement_cells(state: MapDuelState, seat: int) -> list[int]:
    """Empty cells orthogonally next to one of the seat's faces on the map (section 27)."""
    board = state.board
    orthogonal = geometry(state.B).orthogonal
    cells: set[int] = set()
    for f in faces_on_map(state, seat):
        cells.update(other for other in orthogonal[state.face_pos[seat][f]] if other >= 0 and board[other] == EMPTY)
    return sorted(cells)


def has_placement_cell(state: MapDuelState, seat: int) -> bool:
    """Whether ``placement_cells`` has one, without listing them."""
    board = state.board
    orthogonal = geometry(state.B).orthogonal
    status, pos = state.face_status[seat], state.face_pos[seat]
    return any(
        other >= 0 and board[other] == EMPTY
        for f in range(NUM_FACES)
        if status[f] == ON_MAP
        for other in orthogonal[pos[f]]
    )


def can_pay(state: MapDuelState, seat: int, n: int) -> bool:
    """Section 26 and the PLACE_PAY mask: the card keeps an exact payment reachable."""
    if not state.pools[seat][n] or is_own_colour(seat, n):
        return False
    rank = number_rank(n)
    if state.pay_target == ACE_PAYMENT:
        return rank in PRIME_RANKS
    remaining = state.pay_target - sum(number_rank(m) for m in state.paid) - rank
    if remaining < 0:
        return False
    others = [number_rank(m) for m in _opposite_pool(state, seat) if m != n]
    return remaining in _subset_sums(others, remaining)


def begin_new_face(state: MapDuelState, face: int) -> None:
    """Step 1's FACE action: the acting seat will place ``face``; its cell is chosen next."""
    state.pending_face = face
    state.pay_target = ACE_PAYMENT if face_type(face) == ACE_TYPE else FACE_COST[face_type(face)]
    state.paid = []
    state.step1_done = True
    state.phase = Phase.PLACE_CELL


# --------------------------------------------------------------------------- the new face's phases


def _place_cell_actions(state: MapDuelState) -> list[int]:
    return ego_cells(state, placement_cells(state, state.current))


def _place_cell(state: MapDuelState, action: int, rng: np.random.Generator) -> list[float]:
    state.pending_cell = chosen_cell(state, action)
    state.phase = Phase.PLACE_PAY
    return [0.0, 0.0]


def _place_pay_actions(state: MapDuelState) -> list[int]:
    seat, pool = state.current, layout(state).starts[Kind.POOL]
    return sorted(pool + CARD_SLOT[seat][n] for n in range(NUM_NUMBER_CARDS) if can_pay(state, seat, n))


def _place_pay_allows(state: MapDuelState, action: int) -> bool:
    kind, slot, _ = layout(state).decode(action)
    return kind is Kind.POOL and can_pay(state, state.current, CARD_AT_SLOT[state.current][slot])


def _place_pay(state: MapDuelState, action: int, rng: np.random.Generator) -> list[float]:
    seat, n = state.current, chosen_card(state, action)
    state.pools[seat][n] = 0
    state.removed_numbers[n] = 1
    state.paid.append(n)
    state.progress_this_turn = True
    if state.pay_target == ACE_PAYMENT:
        done = len(state.paid) == ACE_PRIMES
    else:
        done = sum(number_rank(m) for m in state.paid) == state.pay_target
    if done:
        face, cell = state.pending_face, state.pending_cell
        state.board[cell] = face_code(seat, face)
        state.face_pos[seat][face] = cell
        state.face_status[seat][face] = ON_MAP
        check_end(state)
        if state.outcome == ONGOING:
            to_step2(state)
    return [0.0, 0.0]


#: the new face's decisions, each the turn of the seat to act
PLACE_CELL = PhaseRules(actor=acting_seat, legal_actions=_place_cell_actions, apply=_place_cell)
PLACE_PAY = PhaseRules(actor=acting_seat, legal_actions=_place_pay_actions, apply=_place_pay, allows=_place_pay_allows)
