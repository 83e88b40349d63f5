"""The board and the acting seat's frame: the geometry of cells and directions, what a board code
is, the action layout of a state and the actions that name a cell or a pool card, and the two
things every phase asks of the map (the faces a seat has on it, a face swapping places).
"""

from __future__ import annotations

from functools import cache

from ..actions import NUM_DIRECTIONS, ActionLayout, Kind, layout_for
from ..state import (
    CARD_AT_SLOT,
    CARD_SLOT,
    FACE_BASE,
    NUM_FACES,
    NUM_NUMBER_CARDS,
    ON_MAP,
    MapDuelState,
    is_red_suit,
    number_suit,
)
from ..tables import DIAGONAL, DIRECTIONS, ORTHOGONAL

#: the number cards of the red suits (diamonds and hearts)
RED_IDS = frozenset(n for n in range(NUM_NUMBER_CARDS) if is_red_suit(number_suit(n)))


def layout(state: MapDuelState) -> ActionLayout:
    """The action table of the state's board."""
    return layout_for(state.B)


# --------------------------------------------------------------------------- geometry


def to_ego(state: MapDuelState, seat: int, cell: int) -> int:
    """A seat's own index of an absolute cell (``player_1`` sees the board turned 180 degrees)."""
    return cell if seat == 0 else state.B * state.B - 1 - cell


def from_ego(state: MapDuelState, seat: int, ego_cell: int) -> int:
    return to_ego(state, seat, ego_cell)  # the rotation is its own inverse


@cache
def _offset_cells(board_size: int) -> dict[tuple[int, int], tuple[int, ...]]:
    """For each unit offset ``(dr, dc)`` (orthogonal or diagonal), the cell it reaches from every
    cell (-1 off the board): geometry computed once per board size."""
    table = {}
    for dr, dc in ORTHOGONAL + DIAGONAL:
        reached = []
        for cell in range(board_size * board_size):
            row, col = divmod(cell, board_size)
            row, col = row + dr, col + dc
            reached.append(row * board_size + col if 0 <= row < board_size and 0 <= col < board_size else -1)
        table[(dr, dc)] = tuple(reached)
    return table


class Geometry:
    """Per board size, the cell tables the legality checks walk (built once, then read):
    ``neighbours[seat][cell]`` the cells in the seat's four egocentric directions (-1 off the
    board), ``orthogonal[cell]`` / ``diagonal[cell]`` the absolute unit neighbours, and
    ``diagonal_rays[cell]`` the cells along each diagonal, nearest first."""

    def __init__(self, board_size: int) -> None:
        offsets = _offset_cells(board_size)
        cells = range(board_size * board_size)
        self.neighbours = tuple(
            tuple(tuple(offsets[DIRECTIONS[seat][d]][c] for d in range(NUM_DIRECTIONS)) for c in cells)
            for seat in range(2)
        )
        self.orthogonal = tuple(tuple(offsets[v][c] for v in ORTHOGONAL) for c in cells)
        self.diagonal = tuple(tuple(offsets[v][c] for v in DIAGONAL) for c in cells)
        rays = []
        for c in cells:
            per_cell = []
            for v in DIAGONAL:
                ray, other = [], offsets[v][c]
                while other >= 0:
                    ray.append(other)
                    other = offsets[v][other]
                per_cell.append(tuple(ray))
            rays.append(tuple(per_cell))
        self.diagonal_rays = tuple(rays)


@cache
def geometry(board_size: int) -> Geometry:
    return Geometry(board_size)


def offset_cell(state: MapDuelState, cell: int, dr: int, dc: int) -> int:
    """The cell at the unit offset ``(dr, dc)`` from ``cell`` (absolute rows and columns), or -1
    off the board."""
    return _offset_cells(state.B)[(dr, dc)][cell]


def neighbour(state: MapDuelState, seat: int, cell: int, direction: int) -> int:
    return geometry(state.B).neighbours[seat][cell][direction]


def is_number(code: int) -> bool:
    return 0 <= code < NUM_NUMBER_CARDS


def is_face(code: int) -> bool:
    return code >= FACE_BASE


def seat_colour_is_red(seat: int) -> bool:
    return seat == 0


def is_own_colour(seat: int, n: int) -> bool:
    return is_red_suit(number_suit(n)) == seat_colour_is_red(seat)


# --------------------------------------------------------------------------- actions that name a cell or a card


def pool_action(state: MapDuelState, n: int) -> int:
    """The POOL action index by which the acting seat names its number card ``n``."""
    return layout(state).starts[Kind.POOL] + CARD_SLOT[state.current][n]


def ego_cells(state: MapDuelState, cells: list[int]) -> list[int]:
    """CELL actions of absolute ``cells`` for the acting seat (the CELL block starts at 0)."""
    if state.current == 0:
        return cells  # the cell lists are ascending already
    last = state.B * state.B - 1
    return sorted(last - cell for cell in cells)


def chosen_cell(state: MapDuelState, action: int) -> int:
    """The absolute cell a CELL action of the acting seat names."""
    return from_ego(state, state.current, layout(state).decode(action).a)


def chosen_card(state: MapDuelState, action: int) -> int:
    """The number card a POOL action of the acting seat names (its own card slots)."""
    return CARD_AT_SLOT[state.current][layout(state).decode(action).a]


# --------------------------------------------------------------------------- faces on the map


def faces_on_map(state: MapDuelState, seat: int) -> list[int]:
    return [f for f in range(NUM_FACES) if state.face_status[seat][f] == ON_MAP]


def swap(state: MapDuelState, seat: int, face: int, other: int) -> None:
    """``seat``'s ``face`` and the card at cell ``other`` change places (sections 21, 22, 24)."""
    cell = state.face_pos[seat][face]
    state.board[cell], state.board[other] = state.board[other], state.board[cell]
    state.face_pos[seat][face] = other
    code = state.board[cell]
    if is_face(code):  # an Ace swap moves the other face too
        owner, f = divmod(code - FACE_BASE, NUM_FACES)
        state.face_pos[owner][f] = cell
