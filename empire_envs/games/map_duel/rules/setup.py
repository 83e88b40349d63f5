"""The setup (sections 13-18): a new game, where a drawn card may go under the placement rule
(which builds follow too, section 31), each seat's starting face, laid face down first, and
``determinize``, which draws again what the setup hides (the deck's order, the face-down face).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ....core.options import index_list_option
from ....core.phases import PhaseRules
from ..actions import Kind
from ..config import MapDuelConfig
from ..state import (
    ACE_TYPE,
    DECK,
    EMPTY,
    NUM_FACES,
    NUM_NUMBER_CARDS,
    ON_MAP,
    MapDuelState,
    Phase,
    face_code,
    face_index,
    face_type,
    number_rank,
)
from .board import ORTHOGONAL, RED_IDS, chosen_cell, ego_cells, from_ego, geometry, layout
from .turn import acting_seat, begin_turn

# --------------------------------------------------------------------------- the map


def new_game(config: MapDuelConfig, rng: np.random.Generator, *, deck: Sequence[int] | None = None) -> MapDuelState:
    """Shuffle the 36 number cards (or take ``deck``, in draw order), put the first on the
    centre cell, and draw the card the first placer must place (sections 13, 14)."""
    state = MapDuelState(config)
    if deck is None:
        order = [int(n) for n in rng.permutation(NUM_NUMBER_CARDS)]
    else:
        order = index_list_option("deck", deck, NUM_NUMBER_CARDS)
        if sorted(order) != list(range(NUM_NUMBER_CARDS)):
            raise ValueError(
                f"reset option 'deck' (a stacked Map Duel deck) lists each of the {NUM_NUMBER_CARDS} number ids "
                f"0..{NUM_NUMBER_CARDS - 1} once, got {len(order)} ids with {len(order) - len(set(order))} repeats"
            )
    first = int(rng.integers(2)) if config.first_player == "random" else int(config.first_player)
    centre = (state.B // 2) * state.B + state.B // 2
    state.board[centre] = order[0]
    state.setup_deck = order[1:][::-1]  # top card last
    state.drawn = state.setup_deck.pop()
    state.first = first
    state.current = first
    state.phase = Phase.SETUP_PLACE
    return state


def placement_ok(state: MapDuelState, card: int, cell: int, rule: str) -> bool:
    """Section 15 (and 31, for builds with ``build_uses_placement_rule``): even cards want the
    same colour beside them and the opposite colour above or below; odd cards the reverse. At
    least one neighbouring number card is required."""
    board = state.board
    even = number_rank(card) % 2 == 0
    red = card in RED_IDS
    seen = satisfied = 0
    for direction, other in enumerate(geometry(state.B).orthogonal[cell]):
        if other < 0 or not 0 <= board[other] < NUM_NUMBER_CARDS:
            continue
        seen += 1
        same_colour = (board[other] in RED_IDS) == red
        horizontal = ORTHOGONAL[direction][0] == 0
        if same_colour == (horizontal == even):
            satisfied += 1
        elif rule == "all_neighbours":
            return False
    if not seen:
        return False
    return satisfied == seen if rule == "all_neighbours" else satisfied > 0


def _frontier(state: MapDuelState) -> list[int]:
    """Empty cells orthogonally next to a card of the map, ascending."""
    board = state.board
    orthogonal = geometry(state.B).orthogonal
    cells: set[int] = set()
    for cell, code in enumerate(board):
        if code != EMPTY:
            cells.update(other for other in orthogonal[cell] if other >= 0 and board[other] == EMPTY)
    return sorted(cells)


def setup_cells(state: MapDuelState, card: int) -> list[int]:
    """Absolute cells where the drawn card may go: the rule of the config, else the relaxed
    rule, else any empty cell touching the map (section 16)."""
    empty = _frontier(state)
    for rule in (state.config.placement_rule, "any_neighbour"):
        cells = [c for c in empty if placement_ok(state, card, c, rule)]
        if cells:
            return cells
    return empty


def starting_face_cells(state: MapDuelState) -> list[int]:
    """Empty cells orthogonally next to a number card (section 17)."""
    board = state.board
    orthogonal = geometry(state.B).orthogonal
    return [
        cell
        for cell, code in enumerate(board)
        if code == EMPTY and any(other >= 0 and 0 <= board[other] < NUM_NUMBER_CARDS for other in orthogonal[cell])
    ]


# --------------------------------------------------------------------------- the setup's phases
#
# Place the drawn card (sections 13-16), then each seat's starting face and its cell (17, 18).


def _setup_place_actions(state: MapDuelState) -> list[int]:
    return ego_cells(state, setup_cells(state, state.drawn))


def _setup_place_allows(state: MapDuelState, action: int) -> bool:
    kind, a, _ = layout(state).decode(action)
    if kind is Kind.CELL:
        cell = from_ego(state, state.current, a)
        if state.board[cell] == EMPTY and placement_ok(state, state.drawn, cell, state.config.placement_rule):
            return True  # the rule of the config always allows it; the fallbacks need the list
    return action in _setup_place_actions(state)


def _setup_place(state: MapDuelState, action: int, rng: np.random.Generator) -> list[float]:
    state.board[chosen_cell(state, action)] = state.drawn
    if state.setup_deck:
        state.drawn = state.setup_deck.pop()
        state.current = 1 - state.current
    else:
        state.drawn = -1
        state.current = state.first
        state.phase = Phase.SETUP_FACE
    return [0.0, 0.0]


def _setup_face_actions(state: MapDuelState) -> list[int]:
    face = layout(state).starts[Kind.FACE]
    return [face + f for f in range(NUM_FACES) if face_type(f) != ACE_TYPE]


def _setup_face(state: MapDuelState, action: int, rng: np.random.Generator) -> list[float]:
    state.pending_face = layout(state).decode(action).a
    state.phase = Phase.SETUP_FACE_CELL
    return [0.0, 0.0]


def _setup_face_cell_actions(state: MapDuelState) -> list[int]:
    return ego_cells(state, starting_face_cells(state))


def _setup_face_cell(state: MapDuelState, action: int, rng: np.random.Generator) -> list[float]:
    seat, face, cell = state.current, state.pending_face, chosen_cell(state, action)
    state.pending_face = -1
    state.board[cell] = face_code(seat, face)
    state.face_pos[seat][face] = cell
    state.face_status[seat][face] = ON_MAP
    state.setup_faces_placed += 1
    if state.setup_faces_placed == 1:
        state.hidden_face = (seat, face)  # face down until the other seat has placed (18)
        state.current = 1 - seat
        state.phase = Phase.SETUP_FACE
    else:
        state.hidden_face = None
        state.current = state.first
        begin_turn(state)
    return [0.0, 0.0]


#: the setup's decisions, each the turn of the seat to act
SETUP_PLACE = PhaseRules(
    actor=acting_seat, legal_actions=_setup_place_actions, apply=_setup_place, allows=_setup_place_allows
)
SETUP_FACE = PhaseRules(actor=acting_seat, legal_actions=_setup_face_actions, apply=_setup_face)
SETUP_FACE_CELL = PhaseRules(actor=acting_seat, legal_actions=_setup_face_cell_actions, apply=_setup_face_cell)


# --------------------------------------------------------------------------- determinize


def determinize(state: MapDuelState, seat: int, rng: np.random.Generator) -> MapDuelState:
    """A copy with what ``seat`` cannot see resampled: the setup deck's order and, during
    setup, the identity of the other seat's face-down starting card (any J, Q or K of its
    suits). Pools are public (section 39); with ``hidden_pools`` the opponent's pool is kept,
    since every card entering or leaving it does so in the open."""
    if seat not in (0, 1):
        raise ValueError(f"determinize needs seat 0 or 1, got {seat!r}")
    copy = state.clone()
    if copy.setup_deck:
        copy.setup_deck = [copy.setup_deck[i] for i in rng.permutation(len(copy.setup_deck))]
    hidden = state.hidden_face
    if hidden is not None and hidden[0] != seat:
        owner, face = hidden
        choice = int(rng.integers(6))
        new_face = face_index(choice // 3, choice % 3)  # a Jack, Queen or King of either suit
        cell = state.face_pos[owner][face]
        copy.face_status[owner][face] = DECK
        copy.face_pos[owner][face] = -1
        copy.face_status[owner][new_face] = ON_MAP
        copy.face_pos[owner][new_face] = cell
        copy.board[cell] = face_code(owner, new_face)
        copy.hidden_face = (owner, new_face)
    return copy
