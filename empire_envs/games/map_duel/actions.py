"""The Map Duel action table: ``int <-> Action(kind, a, b)``, in the acting seat's own frame.

``C = B * B`` cells (169 on the default 13 x 13 board). Cells and directions are egocentric:
``player_1`` sees the board rotated 180 degrees, so for each seat cell ``row * B + col`` counts
from its own far-left corner and direction ``d`` is 0 forward (towards the opponent), 1 right,
2 back, 3 left. ``f`` and ``e`` are own and enemy face indices ``4 * s + t`` (``s`` lower/higher
suit, ``t`` J, Q, K, A); ``k`` a card slot ``9 * suit slot + rank - 2``, with suit slots 0 my
lower suit, 1 my higher, 2 the opponent's lower, 3 its higher (``state.CARD_SLOT``). The table is the default
board (396 actions; ``C + 227`` in general).

==========  ================  ===============================================================
index       action            meaning
==========  ================  ===============================================================
0-168       CELL(x)           a cell (setup placement, starting face, a new face's cell)
169-176     FACE(f)           one of my face cards (starting face, face to place, sacrifice)
177-208     SWAP_ADJ(f, d)    face f swaps with the number card in direction d (177 + 4f + d)
209-224     SWAP_ACE(f, a)    face f swaps with my Ace a (a = 0: lower suit, 1: higher) (209 + 2f + a)
225-260     POOL(k)           the card at my card slot k of my pool (sacrifice, payment, build)
261-264     MOVE(d)           one swap of the sacrifice chain in direction d
265         STOP              end the sacrifice chain early
266         PASS_STEP1        skip step 1
267-298     CONSUME(f, d)     face f takes the number card in direction d into my pool
299-330     BUILD(f, d)       face f builds on the empty cell in direction d (card: POOL next)
331-394     CONFRONT(f, e)    my face f confronts enemy face e (331 + 8f + e)
395         END_TURN          end step 2 and the turn
==========  ================  ===============================================================
"""

from __future__ import annotations

from enum import IntEnum
from functools import cache
from typing import NamedTuple

from ...core.action_table import ActionTable
from .state import CARD_AT_SLOT, NUM_FACES, NUM_NUMBER_CARDS, face_str, number_str

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


class ActionLayout:
    """The index ranges for one board size, and its ``ActionTable``."""

    def __init__(self, board_size: int) -> None:
        cells = board_size * board_size
        self.board_size = board_size
        self.cells = cells
        self.face = cells
        self.swap_adj = self.face + NUM_FACES
        self.swap_ace = self.swap_adj + NUM_FACES * NUM_DIRECTIONS
        self.pool = self.swap_ace + NUM_FACES * 2
        self.move = self.pool + NUM_NUMBER_CARDS
        self.stop = self.move + NUM_DIRECTIONS
        self.pass_step1 = self.stop + 1
        self.consume = self.pass_step1 + 1
        self.build = self.consume + NUM_FACES * NUM_DIRECTIONS
        self.confront = self.build + NUM_FACES * NUM_DIRECTIONS
        self.end_turn = self.confront + NUM_FACES * NUM_FACES
        self.size = self.end_turn + 1
        table = [Action(Kind.CELL, x) for x in range(cells)]
        table += [Action(Kind.FACE, f) for f in range(NUM_FACES)]
        table += [Action(Kind.SWAP_ADJ, f, d) for f in range(NUM_FACES) for d in range(NUM_DIRECTIONS)]
        table += [Action(Kind.SWAP_ACE, f, a) for f in range(NUM_FACES) for a in range(2)]
        table += [Action(Kind.POOL, n) for n in range(NUM_NUMBER_CARDS)]
        table += [Action(Kind.MOVE, d) for d in range(NUM_DIRECTIONS)]
        table += [Action(Kind.STOP), Action(Kind.PASS_STEP1)]
        table += [Action(Kind.CONSUME, f, d) for f in range(NUM_FACES) for d in range(NUM_DIRECTIONS)]
        table += [Action(Kind.BUILD, f, d) for f in range(NUM_FACES) for d in range(NUM_DIRECTIONS)]
        table += [Action(Kind.CONFRONT, f, e) for f in range(NUM_FACES) for e in range(NUM_FACES)]
        table += [Action(Kind.END_TURN)]
        self.table = ActionTable("Map Duel", Kind, Action, table)
        assert self.table.size == self.size == cells + 227

    def cell_index(self, ego_cell: int) -> int:
        return ego_cell

    def face_index(self, face: int) -> int:
        return self.face + face

    def swap_adj_index(self, face: int, direction: int) -> int:
        return self.swap_adj + NUM_DIRECTIONS * face + direction

    def swap_ace_index(self, face: int, ace: int) -> int:
        return self.swap_ace + 2 * face + ace

    def pool_index(self, slot: int) -> int:
        """POOL of a card slot (``state.CARD_SLOT[seat][n]`` for number card ``n``)."""
        return self.pool + slot

    def move_index(self, direction: int) -> int:
        return self.move + direction

    def consume_index(self, face: int, direction: int) -> int:
        return self.consume + NUM_DIRECTIONS * face + direction

    def build_index(self, face: int, direction: int) -> int:
        return self.build + NUM_DIRECTIONS * face + direction

    def confront_index(self, face: int, enemy: int) -> int:
        return self.confront + NUM_FACES * face + enemy

    def decode(self, index: int) -> Action:
        return self.table.decode(index)

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
            return f"SWAP_ACE {face_str(seat, a)} with {face_str(seat, 4 * b + 3)}"
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


DEFAULT_LAYOUT = layout_for(13)
NUM_ACTIONS = DEFAULT_LAYOUT.size
