"""The Map Duel twin's state (one game; ``jax.vmap`` batches it) and its conversions to and from
the Python rules' ``MapDuelState``, derived from ``MapDuelState.FIELDS`` (``core.jax_game.
state_codec``): only the fields the twin keeps another way are converted here by hand.

=====================  ===============  ========================================================
field                  type             meaning (the Python field of the same name, unless said)
=====================  ===============  ========================================================
``board``              int8[C]          board codes, ``C = B * B`` cells
``face_pos``           int16[2, 8]      each seat's faces' cells (-1 off the map)
``face_status``        int8[2, 8]       DECK, ON_MAP or REMOVED
``pools``              bool[2, 36]      each seat's pool
``removed_numbers``    bool[36]         number cards out of the game
``deck_order``         int8[36]         the deal's order: ``deck_order[0]`` opened the map, the
                                        rest are drawn in turn (Python: ``setup_deck``, top last)
``deck_drawn``         int8             cards of ``deck_order`` taken so far (the centre one too)
``drawn``              int8             the setup card to place (-1 none)
``phase``              int8             ``state.Phase``
``current_player``     int32            pgx's field: Python's ``current``
``first``              int8             the seat that moves first
``turn``, ``no_progress``  int32        turns begun; turns in a row without progress
``progress_this_turn``, ``step1_done``  bool
``acted``              bool[8]          own faces that acted in step 2 (Python: a set)
``pending_face``       int8             own face index of the pending sub-decision (-1 none)
``pending_cell``, ``build_cell``  int16  cells of a new face, of a build (-1 none)
``pay_target``         int8             7, 8, 9 or ``ACE_PAYMENT`` (-1); 0 none
``paid``               bool[36]         cards paid (or sacrificed) in this step 1 (Python: a
                                        list; the rules read only its sum, its count and, in a
                                        sacrifice, its one card, so the twin keeps the set)
``moves_left``         int8             sacrifice swaps left
``setup_faces_placed`` int8             starting faces placed (0..2)
``hidden_face``        int8[2]          ``(seat, face)`` of the face-down starting face, or
                                        ``(-1, -1)`` (Python: a tuple or None)
``outcome``            int8             an index of ``OUTCOME_NAMES`` (Python: ``outcome`` and
                                        ``winner``)
``coin_flips``         int32            coins flipped so far
``last_coin``          int8             the coin this step flipped: 1 heads, 0 tails, -1 none
                                        (twin only: the lockstep tests hand it to Python)
=====================  ===============  ========================================================
"""

from __future__ import annotations

import dataclasses
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from ...core.errors import ILLEGAL_ACTION_OUTCOME
from ...core.jax_game import JaxState, fresh_pgx_fields, jax_state, state_codec
from ...core.rng import PresetDraws
from .actions import layout_for
from .config import MapDuelConfig
from .observe import observation_size
from .state import (
    DECK,
    DRAW,
    EMPTY,
    NUM_FACES,
    NUM_NUMBER_CARDS,
    ONGOING,
    TRUNCATED,
    WON,
    MapDuelState,
    Phase,
)
from .tables import OUTCOME_NAMES as PYTHON_OUTCOME_NAMES

#: ``state.outcome`` indexes these: the Python rules' results, then the env's illegal action
OUTCOME_NAMES = (*PYTHON_OUTCOME_NAMES, ILLEGAL_ACTION_OUTCOME)
ONGOING_RESULT, WON_BY_0, WON_BY_1, DRAW_RESULT, TRUNCATED_RESULT, ILLEGAL = range(len(OUTCOME_NAMES))


@jax_state
@dataclasses.dataclass(frozen=True)
class State(JaxState):
    board: jax.Array
    face_pos: jax.Array
    face_status: jax.Array
    pools: jax.Array
    removed_numbers: jax.Array
    deck_order: jax.Array
    deck_drawn: jax.Array
    drawn: jax.Array
    phase: jax.Array
    first: jax.Array
    turn: jax.Array
    no_progress: jax.Array
    progress_this_turn: jax.Array
    step1_done: jax.Array
    acted: jax.Array
    pending_face: jax.Array
    pending_cell: jax.Array
    pay_target: jax.Array
    paid: jax.Array
    moves_left: jax.Array
    build_cell: jax.Array
    setup_faces_placed: jax.Array
    hidden_face: jax.Array
    outcome: jax.Array
    coin_flips: jax.Array
    last_coin: jax.Array


def blank_state(config: MapDuelConfig) -> State:
    """A state before the deal: an empty board, every face in its deck, nothing drawn, the
    phase SETUP_PLACE. ``jax_rules.init`` deals into it."""
    cells = config.board_size * config.board_size
    return State(
        board=jnp.full(cells, EMPTY, dtype=jnp.int8),
        face_pos=jnp.full((2, NUM_FACES), -1, dtype=jnp.int16),
        face_status=jnp.full((2, NUM_FACES), DECK, dtype=jnp.int8),
        pools=jnp.zeros((2, NUM_NUMBER_CARDS), dtype=jnp.bool_),
        removed_numbers=jnp.zeros(NUM_NUMBER_CARDS, dtype=jnp.bool_),
        deck_order=jnp.arange(NUM_NUMBER_CARDS, dtype=jnp.int8),
        deck_drawn=jnp.int8(0),
        drawn=jnp.int8(-1),
        phase=jnp.int8(Phase.SETUP_PLACE),
        first=jnp.int8(0),
        turn=jnp.int32(0),
        no_progress=jnp.int32(0),
        progress_this_turn=jnp.bool_(False),
        step1_done=jnp.bool_(False),
        acted=jnp.zeros(NUM_FACES, dtype=jnp.bool_),
        pending_face=jnp.int8(-1),
        pending_cell=jnp.int16(-1),
        pay_target=jnp.int8(0),
        paid=jnp.zeros(NUM_NUMBER_CARDS, dtype=jnp.bool_),
        moves_left=jnp.int8(0),
        build_cell=jnp.int16(-1),
        setup_faces_placed=jnp.int8(0),
        hidden_face=jnp.full(2, -1, dtype=jnp.int8),
        outcome=jnp.int8(ONGOING_RESULT),
        coin_flips=jnp.int32(0),
        last_coin=jnp.int8(-1),
        **fresh_pgx_fields(observation_size(config.board_size), layout_for(config.board_size).size, 2),
    )


# --------------------------------------------------------------------------- to and from Python


def _python_result(outcome: int, seat_to_act: int) -> tuple[int, int]:
    """Python's ``(outcome, winner)`` of a twin result (an illegal action loses the game for the
    seat that played it, ``seat_to_act``)."""
    if outcome in (WON_BY_0, WON_BY_1):
        return WON, outcome - WON_BY_0
    if outcome == ILLEGAL:
        return WON, 1 - seat_to_act
    return {ONGOING_RESULT: ONGOING, DRAW_RESULT: DRAW, TRUNCATED_RESULT: TRUNCATED}[outcome], -1


def twin_result(python: MapDuelState) -> int:
    """The twin's ``outcome`` of a Python state."""
    if python.outcome == WON:
        return WON_BY_0 + python.winner
    return {ONGOING: ONGOING_RESULT, DRAW: DRAW_RESULT, TRUNCATED: TRUNCATED_RESULT}[python.outcome]


def _setup_deck(state: Any, config: MapDuelConfig) -> list[int]:
    return [int(card) for card in np.asarray(state.deck_order)[int(state.deck_drawn) :][::-1]]


def _deck_order(python: MapDuelState) -> np.ndarray:
    """A deal order whose untaken part is Python's setup deck (top card first): the cards
    already taken come first, in card order (which of them came when is not kept)."""
    waiting = python.setup_deck[::-1]
    taken = [card for card in range(NUM_NUMBER_CARDS) if card not in set(waiting)]
    return np.array(taken + waiting, dtype=np.int8)


def _hidden_face(python: MapDuelState) -> np.ndarray:
    return np.array(python.hidden_face if python.hidden_face is not None else (-1, -1), dtype=np.int8)


def _python_hidden_face(state: Any, config: MapDuelConfig) -> tuple[int, int] | None:
    seat, face = (int(value) for value in np.asarray(state.hidden_face))
    return None if seat < 0 else (seat, face)


def make_codec(config: MapDuelConfig):
    """``core.jax_game.StateCodec`` of the twin for one config."""
    return state_codec(
        MapDuelState,
        State,
        blank_state(config),
        renamed={"current": "current_player"},
        to_python={
            "B": lambda state, config: config.board_size,
            "setup_deck": _setup_deck,
            "paid": lambda state, config: [int(card) for card in np.flatnonzero(np.asarray(state.paid))],
            "hidden_face": _python_hidden_face,
            "outcome": lambda state, config: _python_result(int(state.outcome), int(state.current_player))[0],
            "winner": lambda state, config: _python_result(int(state.outcome), int(state.current_player))[1],
        },
        from_python={
            "deck_order": _deck_order,
            "deck_drawn": lambda python: NUM_NUMBER_CARDS - len(python.setup_deck),
            "paid": lambda python: np.isin(np.arange(NUM_NUMBER_CARDS), python.paid),
            "hidden_face": _hidden_face,
            "outcome": twin_result,
            "last_coin": lambda python: -1,
        },
    )


def python_deck(state: State) -> list[int]:
    """The ``deck`` reset option that makes the Python rules deal the twin's game: the deal
    order, the map's first card first."""
    return [int(card) for card in np.asarray(state.deck_order)]


def make_python_draws(config: MapDuelConfig):
    """``JaxRules.python_draws`` of one config: the Python rules' draws of one twin step (the
    coin it flipped), or of the deal (``before`` None: the first player, where it is random)."""

    def python_draws(before: Any, after: Any) -> PresetDraws:
        if before is None:
            return PresetDraws(integers=[int(after.first)] if config.first_player == "random" else [])
        coin = int(after.last_coin)
        return PresetDraws(coins=[coin == 1] if coin >= 0 else [])

    return python_draws
