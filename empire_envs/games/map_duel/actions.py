"""The Map Duel action table: ``int <-> Action(kind, a, b)``, in the acting seat's own frame.

``C = B * B`` cells (169 on the default 13 x 13 board). Cells and directions are egocentric:
``player_1`` sees the board rotated 180 degrees, so for each seat cell ``row * B + col`` counts
from its own far-left corner and direction ``d`` is 0 forward (towards the opponent), 1 right,
2 back, 3 left. ``f`` and ``e`` are own and enemy face indices ``4 * s + t`` (``s`` lower/higher
suit, ``t`` J, Q, K, A); ``k`` a card slot ``9 * suit slot + rank - 2``, with suit slots 0 my
lower suit, 1 my higher, 2 the opponent's lower, 3 its higher (``state.CARD_SLOT``).

``blocks(board_size)`` declares the blocks in index order with their arguments, once (only the
CELL block depends on the board); ``core.action_table.BlockLayout`` lays them out: each block's
start (``layout.starts[Kind.X]``), the index arithmetic (``layout.index(Kind.X, ...)``) and the
table below (written from ``BLOCKS``, the default board's blocks, as the module loads).
"""

from __future__ import annotations

from enum import IntEnum
from functools import cache
from math import prod
from typing import NamedTuple

from ...core.action_table import Argument, Block, BlockLayout
from .state import (
    ACE_FACES,
    CARD_AT_SLOT,
    NUM_FACES,
    NUM_NUMBER_CARDS,
    SUITS_PER_SEAT,
    Phase,
    face_str,
    number_str,
)

NUM_DIRECTIONS = 4
DIRECTION_NAMES = ("forward", "right", "back", "left")


class Kind(IntEnum):
    CELL = 0
    FACE = 1
    SWAP_ADJ = 2
    SWAP_ACE = 3
    POOL = 4
    MOVE = 5
    STOP = 6
    PASS_STEP1 = 7
    CONSUME = 8
    BUILD = 9
    CONFRONT = 10
    END_TURN = 11


class Action(NamedTuple):
    """A structured action; unused arguments are -1."""

    kind: Kind
    a: int = -1
    b: int = -1


#: the board size of the table in the docstrings (the default ``board_size``)
DOC_BOARD_SIZE = 13

_FACE = Argument("f", NUM_FACES)
_DIRECTION = Argument("d", NUM_DIRECTIONS)


def blocks(board_size: int) -> tuple[Block, ...]:
    """The action table of a ``board_size x board_size`` board, block by block in index order:
    the one declaration of its layout."""
    return (
        Block(
            Kind.CELL,
            (Argument("x", board_size * board_size),),
            "a cell (setup placement, starting face, a new face's cell)",
        ),
        Block(Kind.FACE, (_FACE,), "one of my face cards (starting face, face to place, sacrifice)"),
        Block(Kind.SWAP_ADJ, (_FACE, _DIRECTION), "face f swaps with the number card in direction d"),
        Block(
            Kind.SWAP_ACE,
            (_FACE, Argument("a", SUITS_PER_SEAT)),
            "face f swaps with my Ace a (a = 0: lower suit, 1: higher)",
        ),
        Block(
            Kind.POOL,
            (Argument("k", NUM_NUMBER_CARDS),),
            "the card at my card slot k of my pool (sacrifice, payment, build)",
        ),
        Block(Kind.MOVE, (_DIRECTION,), "one swap of the sacrifice chain in direction d"),
        Block(Kind.STOP, (), "end the sacrifice chain early"),
        Block(Kind.PASS_STEP1, (), "skip step 1"),
        Block(Kind.CONSUME, (_FACE, _DIRECTION), "face f takes the number card in direction d into my pool"),
        Block(
            Kind.BUILD,
            (_FACE, _DIRECTION),
            "face f builds a pool card (POOL next) on the empty cell in direction d",
        ),
        Block(Kind.CONFRONT, (_FACE, Argument("e", NUM_FACES)), "my face f confronts enemy face e"),
        Block(Kind.END_TURN, (), "end step 2 and the turn"),
    )


#: the blocks of the default board (the table in the docstrings)
BLOCKS = blocks(DOC_BOARD_SIZE)
#: the actions besides the cells, on every board
FIXED_ACTIONS = sum(prod(block.shape) for block in BLOCKS if block.kind is not Kind.CELL)


class ActionLayout(BlockLayout):
    """The action table of one board size, laid out from ``blocks(board_size)``: each block's
    start is ``starts[Kind.X]``, an action's index ``index(Kind.X, ...)``."""

    def __init__(self, board_size: int) -> None:
        super().__init__("Map Duel", Kind, Action, blocks(board_size))
        self.board_size = board_size
        self.cells = board_size * board_size

    def decode(self, index: int) -> Action:
        return self.table.decode(index)

    def cell_index(self, ego_cell: int) -> int:
        return self.index(Kind.CELL, ego_cell)

    def face_index(self, face: int) -> int:
        return self.index(Kind.FACE, face)

    def swap_adj_index(self, face: int, direction: int) -> int:
        return self.index(Kind.SWAP_ADJ, face, direction)

    def swap_ace_index(self, face: int, ace: int) -> int:
        return self.index(Kind.SWAP_ACE, face, ace)

    def pool_index(self, slot: int) -> int:
        """POOL of a card slot (``state.CARD_SLOT[seat][n]`` for number card ``n``)."""
        return self.index(Kind.POOL, slot)

    def move_index(self, direction: int) -> int:
        return self.index(Kind.MOVE, direction)

    def consume_index(self, face: int, direction: int) -> int:
        return self.index(Kind.CONSUME, face, direction)

    def build_index(self, face: int, direction: int) -> int:
        return self.index(Kind.BUILD, face, direction)

    def confront_index(self, face: int, enemy: int) -> int:
        return self.index(Kind.CONFRONT, face, enemy)

    def name(self, index: int, seat: int = 0) -> str:
        """A short readable name, e.g. ``"CONSUME KH forward"`` (faces named for ``seat``)."""
        kind, a, b = self.decode(index)
        if kind is Kind.CELL:
            return f"CELL ({a // self.board_size}, {a % self.board_size})"
        if kind is Kind.FACE:
            return f"FACE {face_str(seat, a)}"
        if kind in (Kind.SWAP_ADJ, Kind.CONSUME, Kind.BUILD):
            return f"{kind.name} {face_str(seat, a)} {DIRECTION_NAMES[b]}"
        if kind is Kind.SWAP_ACE:
            return f"SWAP_ACE {face_str(seat, a)} with {face_str(seat, ACE_FACES[b])}"
        if kind is Kind.POOL:
            return f"POOL {number_str(CARD_AT_SLOT[seat][a])}"
        if kind is Kind.MOVE:
            return f"MOVE {DIRECTION_NAMES[a]}"
        if kind is Kind.CONFRONT:
            return f"CONFRONT {face_str(seat, a)} -> {face_str(1 - seat, b)}"
        return kind.name


@cache
def layout_for(board_size: int) -> ActionLayout:
    return ActionLayout(board_size)


DEFAULT_LAYOUT = layout_for(DOC_BOARD_SIZE)
NUM_ACTIONS = DEFAULT_LAYOUT.size
__doc__ = (
    f"{(__doc__ or '').rstrip()}\n\nThe table for the default {DOC_BOARD_SIZE} x {DOC_BOARD_SIZE} board "
    f"({NUM_ACTIONS} actions; ``C + {FIXED_ACTIONS}`` in general):\n\n{DEFAULT_LAYOUT.doc_table()}\n"
)


def announce_action(state, seat: int, action: int, viewer: int, reveal: bool = False) -> str:
    """The name of ``seat``'s ``action`` as seat ``viewer`` may be told it before it is played
    (``Game.announce_action``). Every move is public but the first starting face, laid face
    down in setup: its cell is told, not the face (the second seat's face turns both up). Cells
    and directions are named in ``viewer``'s own frame, as ``viewer``'s own moves are: the
    mover's frame turned half a circle (cell ``x`` is ``B*B - 1 - x``, direction ``d`` is
    ``d + 2``)."""
    lay = layout_for(state.B)
    kind, a, b = lay.decode(action)
    if not reveal and kind is Kind.FACE and state.phase == Phase.SETUP_FACE and state.setup_faces_placed == 0:
        return "FACE (face down)"
    if seat == viewer:
        return lay.name(action, seat)

    def turned(direction: int) -> int:
        return (direction + NUM_DIRECTIONS // 2) % NUM_DIRECTIONS

    if kind is Kind.CELL:
        action = lay.index(kind, state.B * state.B - 1 - a)
    elif kind is Kind.MOVE:
        action = lay.index(kind, turned(a))
    elif kind in (Kind.SWAP_ADJ, Kind.CONSUME, Kind.BUILD):
        action = lay.index(kind, a, turned(b))
    return lay.name(action, seat)
