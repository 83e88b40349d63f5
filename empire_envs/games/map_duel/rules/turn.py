"""The turn (sections 3, 19, 45): the seat to act, a turn beginning (or the game truncated after
``length_limit`` turns) and a turn ending (a draw after ``no_progress_turns`` turns without
progress, else the other seat's turn).
"""

from __future__ import annotations

from ..state import DRAW, TRUNCATED, MapDuelState, Phase


def acting_seat(state: MapDuelState) -> int:
    """The actor of every decision phase: the seat whose turn it is."""
    return state.current


def begin_turn(state: MapDuelState) -> None:
    """The seat to act begins a turn at step 1, unless ``length_limit`` turns have been played."""
    if state.turn >= state.config.length_limit:
        state.outcome = TRUNCATED
        state.phase = Phase.OVER
        return
    state.turn += 1
    state.step1_done = False
    state.acted = set()
    state.progress_this_turn = False
    state.pending_face = -1
    state.pending_cell = -1
    state.paid = []
    state.phase = Phase.STEP_1


def end_turn(state: MapDuelState) -> None:
    """The turn ends: a draw after ``no_progress_turns`` turns without progress, else the other
    seat begins its turn."""
    state.no_progress = 0 if state.progress_this_turn else state.no_progress + 1
    if state.no_progress >= state.config.no_progress_turns:
        state.outcome = DRAW
        state.phase = Phase.OVER
        return
    state.current = 1 - state.current
    begin_turn(state)
