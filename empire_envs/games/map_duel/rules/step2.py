"""Step 2 (sections 28-35): entering it, what each face may do once (consume, build or confront)
and END_TURN, the STEP_2 phase, the BUILD_CARD phase (the pool card a build lays) and the turn
ending by itself when nothing but END_TURN is left (section 3).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ....core.phases import PhaseRules
from ..actions import NUM_DIRECTIONS, ActionLayout, Kind
from ..state import CARD_AT_SLOT, CARD_SLOT, EMPTY, NUM_FACES, NUM_NUMBER_CARDS, ON_MAP, ONGOING, MapDuelState, Phase
from .board import chosen_card, geometry, is_number, layout, neighbour
from .confront import confront_targets, remove_face, resolve
from .end import check_end
from .setup import placement_ok
from .turn import acting_seat, end_turn

#: the kinds ``_step2_moves`` and ``_step2_actions`` list, read once: on Python 3.11 reading a
#: member of ``Kind`` costs several times a dict lookup, and step 2's listing is the hottest path
_CONSUME, _BUILD, _CONFRONT, _END_TURN = Kind.CONSUME, Kind.BUILD, Kind.CONFRONT, Kind.END_TURN


def to_step2(state: MapDuelState) -> None:
    """Step 1 is over (passed, or its move made): step 2 begins."""
    state.step1_done = True
    state.pending_face = -1
    state.pending_cell = -1
    state.paid = []
    state.pay_target = 0
    state.moves_left = 0
    state.phase = Phase.STEP_2
    _auto_end(state)


def _auto_end(state: MapDuelState) -> None:
    """Section 3: a step 2 with nothing but END_TURN ends the turn by itself."""
    if (
        state.phase == Phase.STEP_2
        and state.outcome == ONGOING
        and next(_step2_moves(state, state.current, layout(state)), None) is None
    ):
        end_turn(state)


# --------------------------------------------------------------------------- step 2: each face acts once


def _step2_moves(state: MapDuelState, seat: int, lay: ActionLayout) -> Iterator[int]:
    """The seat's legal CONSUME, BUILD and CONFRONT actions, face by face (not sorted)."""
    board = state.board
    status, pos, pool = state.face_status[seat], state.face_pos[seat], state.pools[seat]
    neighbours = geometry(state.B).neighbours[seat]
    can_build = any(pool)
    placement_rule = state.config.placement_rule if state.config.build_uses_placement_rule else None
    acted = state.acted
    starts = lay.starts
    consume, build, confront = starts[_CONSUME], starts[_BUILD], starts[_CONFRONT]
    for f in range(NUM_FACES):
        if status[f] != ON_MAP or f in acted:
            continue
        for d, other in enumerate(neighbours[pos[f]]):
            if other < 0:
                continue
            code = board[other]
            if 0 <= code < NUM_NUMBER_CARDS:
                yield consume + NUM_DIRECTIONS * f + d
            elif (
                code == EMPTY
                and can_build
                and (
                    placement_rule is None
                    or any(pool[n] and placement_ok(state, n, other, placement_rule) for n in range(NUM_NUMBER_CARDS))
                )
            ):
                yield build + NUM_DIRECTIONS * f + d
        base = confront + NUM_FACES * f
        for e in confront_targets(state, seat, f):
            yield base + e


def _step2_actions(state: MapDuelState) -> list[int]:
    lay = layout(state)
    actions = sorted(_step2_moves(state, state.current, lay))
    actions.append(lay.starts[_END_TURN])
    return actions


def _step2_allows(state: MapDuelState, action: int) -> bool:
    kind, a, b = layout(state).decode(action)
    seat = state.current
    if kind is Kind.END_TURN:
        return True
    if kind not in (Kind.CONSUME, Kind.BUILD, Kind.CONFRONT):
        return False
    if state.face_status[seat][a] != ON_MAP or a in state.acted:
        return False
    if kind is Kind.CONFRONT:
        return b in confront_targets(state, seat, a)
    other = neighbour(state, seat, state.face_pos[seat][a], b)
    if other < 0:
        return False
    code = state.board[other]
    if kind is Kind.CONSUME:
        return is_number(code)
    if code != EMPTY or not any(state.pools[seat]):
        return False
    return not state.config.build_uses_placement_rule or any(
        state.pools[seat][n] and placement_ok(state, n, other, state.config.placement_rule)
        for n in range(NUM_NUMBER_CARDS)
    )


def _step2(state: MapDuelState, action: int, rng: np.random.Generator) -> list[float]:
    kind, a, b = layout(state).decode(action)
    if kind is Kind.END_TURN:
        end_turn(state)
        return [0.0, 0.0]
    seat = state.current
    cell = state.face_pos[seat][a]
    if kind is Kind.CONSUME:
        other = neighbour(state, seat, cell, b)
        state.pools[seat][state.board[other]] = 1
        state.board[other] = EMPTY
        state.acted.add(a)
    elif kind is Kind.BUILD:
        state.pending_face = a
        state.build_cell = neighbour(state, seat, cell, b)
        state.phase = Phase.BUILD_CARD
        return [0.0, 0.0]
    else:  # CONFRONT
        loser = resolve(state, seat, a, b, rng)
        if loser == 1:
            remove_face(state, 1 - seat, b)
        elif loser == -1:
            remove_face(state, seat, a)
        state.acted.add(a)
    state.progress_this_turn = True
    check_end(state)
    _auto_end(state)
    return [0.0, 0.0]


# --------------------------------------------------------------------------- a build: the pool card to lay (section 31)


def _can_build_card(state: MapDuelState, seat: int, n: int) -> bool:
    if not state.pools[seat][n]:
        return False
    if state.config.build_uses_placement_rule:
        return placement_ok(state, n, state.build_cell, state.config.placement_rule)
    return True


def _build_card_actions(state: MapDuelState) -> list[int]:
    seat, pool = state.current, layout(state).starts[Kind.POOL]
    slot = CARD_SLOT[seat]
    return sorted(pool + slot[n] for n in range(NUM_NUMBER_CARDS) if _can_build_card(state, seat, n))


def _build_card_allows(state: MapDuelState, action: int) -> bool:
    kind, slot, _ = layout(state).decode(action)
    return kind is Kind.POOL and _can_build_card(state, state.current, CARD_AT_SLOT[state.current][slot])


def _build_card(state: MapDuelState, action: int, rng: np.random.Generator) -> list[float]:
    seat, n = state.current, chosen_card(state, action)
    state.pools[seat][n] = 0
    state.board[state.build_cell] = n
    state.acted.add(state.pending_face)
    state.pending_face = -1
    state.build_cell = -1
    state.progress_this_turn = True
    state.phase = Phase.STEP_2
    check_end(state)
    _auto_end(state)
    return [0.0, 0.0]


#: step 2's decisions, each the turn of the seat to act
STEP_2 = PhaseRules(actor=acting_seat, legal_actions=_step2_actions, apply=_step2, allows=_step2_allows)
BUILD_CARD = PhaseRules(
    actor=acting_seat, legal_actions=_build_card_actions, apply=_build_card, allows=_build_card_allows
)
