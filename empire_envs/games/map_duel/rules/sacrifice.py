"""A sacrifice (sections 23-25), one of step 1's moves: an own-colour pool card leaves the game
and a face of its suit makes up to its rank swaps with neighbouring number cards; the
SACRIFICE_FACE phase (which face, when several may) and the SACRIFICE_MOVE phase (each swap,
or STOP).
"""

from __future__ import annotations

import numpy as np

from ....core.phases import PhaseRules
from ..actions import Kind
from ..state import NUM_NUMBER_CARDS, ONGOING, MapDuelState, Phase, face_suit, number_rank, number_suit
from .board import faces_on_map, geometry, layout, neighbour, swap
from .end import check_end
from .step2 import to_step2
from .turn import acting_seat


def sacrifice_faces(state: MapDuelState, seat: int, n: int) -> list[int]:
    """The seat's faces on the map of card ``n``'s suit: those a sacrifice of ``n`` may move."""
    suit = number_suit(n)
    return [f for f in faces_on_map(state, seat) if face_suit(seat, f) == suit]


def _sac_moves(state: MapDuelState, seat: int) -> list[int]:
    board = state.board
    neighbours = geometry(state.B).neighbours[seat][state.face_pos[seat][state.pending_face]]
    return [d for d, other in enumerate(neighbours) if other >= 0 and 0 <= board[other] < NUM_NUMBER_CARDS]


def begin_sacrifice(state: MapDuelState, seat: int, n: int) -> None:
    """Step 1's POOL action: ``seat`` sacrifices its pool card ``n``; the face of its suit moves
    next, or the seat chooses which one first."""
    state.pools[seat][n] = 0
    state.removed_numbers[n] = 1
    state.progress_this_turn = True
    state.step1_done = True
    state.paid = [n]  # remembers the sacrificed card for the face choice
    state.moves_left = number_rank(n)
    candidates = sacrifice_faces(state, seat, n)
    if len(candidates) == 1:
        state.pending_face = candidates[0]
        _enter_sac_move(state, seat)
    else:
        state.phase = Phase.SACRIFICE_FACE


# --------------------------------------------------------------------------- the sacrifice's phases


def _sacrifice_face_actions(state: MapDuelState) -> list[int]:
    """Faces that may move for the sacrificed card (kept as ``paid[0]`` during the choice)."""
    if not state.paid:
        return []
    face = layout(state).starts[Kind.FACE]
    return [face + f for f in sacrifice_faces(state, state.current, state.paid[0])]


def _sacrifice_face(state: MapDuelState, action: int, rng: np.random.Generator) -> list[float]:
    state.pending_face = layout(state).decode(action).a
    _enter_sac_move(state, state.current)
    return [0.0, 0.0]


def _enter_sac_move(state: MapDuelState, seat: int) -> None:
    """The chosen face's swaps begin; with no number card beside it, step 2 does."""
    state.phase = Phase.SACRIFICE_MOVE
    if not _sac_moves(state, seat):
        to_step2(state)


def _sacrifice_move_actions(state: MapDuelState) -> list[int]:
    starts = layout(state).starts
    move = starts[Kind.MOVE]
    moves = [move + d for d in _sac_moves(state, state.current)]
    if not state.config.sacrifice_exact or not moves:
        moves.append(starts[Kind.STOP])
    return moves


def _sacrifice_move(state: MapDuelState, action: int, rng: np.random.Generator) -> list[float]:
    kind, direction, _ = layout(state).decode(action)
    if kind is Kind.STOP:
        to_step2(state)
        return [0.0, 0.0]
    seat, face = state.current, state.pending_face
    swap(state, seat, face, neighbour(state, seat, state.face_pos[seat][face], direction))
    state.moves_left -= 1
    check_end(state)
    if state.outcome == ONGOING and (state.moves_left <= 0 or not _sac_moves(state, seat)):
        to_step2(state)
    return [0.0, 0.0]


#: the sacrifice's decisions, each the turn of the seat to act
SACRIFICE_FACE = PhaseRules(actor=acting_seat, legal_actions=_sacrifice_face_actions, apply=_sacrifice_face)
SACRIFICE_MOVE = PhaseRules(actor=acting_seat, legal_actions=_sacrifice_move_actions, apply=_sacrifice_move)
