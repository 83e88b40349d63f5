"""The Empire Solitaire action table: ``int <-> Action(kind, a, b)``.

========  ==================  =========================================================
index     action              meaning
========  ==================  =========================================================
0-119     CAPTURE(cell, dir)  the card at ``cell`` captures in direction ``dir``
                              (index = cell * 8 + dir; dirs: 0 up, 1 down, 2 left,
                              3 right, 4 up-left, 5 up-right, 6 down-left, 7 down-right)
120       REVEAL              turn up the top stock card
121-135   PLACE(cell)         put the revealed stock card on empty ``cell``
========  ==================  =========================================================

Orthogonal captures take the first occupied cell in that direction (empty cells are skipped);
diagonal captures take the adjacent diagonal cell only.
"""

from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple

from ...core.action_table import ActionTable
from .state import COLS, NUM_CELLS, ROWS
from .tables import NAME

DIRECTIONS = ((-1, 0), (1, 0), (0, -1), (0, 1), (-1, -1), (-1, 1), (1, -1), (1, 1))
DIRECTION_NAMES = ("up", "down", "left", "right", "up-left", "up-right", "down-left", "down-right")
NUM_DIRECTIONS = len(DIRECTIONS)


class Kind(IntEnum):
    CAPTURE = 0
    REVEAL = 1
    PLACE = 2


class Action(NamedTuple):
    kind: Kind
    a: int = -1
    b: int = -1


TABLE = ActionTable(
    NAME,
    Kind,
    Action,
    tuple(Action(Kind.CAPTURE, cell, d) for cell in range(NUM_CELLS) for d in range(NUM_DIRECTIONS))
    + (Action(Kind.REVEAL),)
    + tuple(Action(Kind.PLACE, cell) for cell in range(NUM_CELLS)),
)
ACTIONS: tuple[Action, ...] = TABLE.actions
NUM_ACTIONS = TABLE.size
encode = TABLE.encode
decode = TABLE.decode
#: CAPTURE[cell][direction]: the index of that capture (``cell * 8 + direction``, as the table lays it out)
CAPTURE = tuple(tuple(encode((Kind.CAPTURE, cell, d)) for d in range(NUM_DIRECTIONS)) for cell in range(NUM_CELLS))
REVEAL = encode((Kind.REVEAL,))
PLACE = tuple(encode((Kind.PLACE, cell)) for cell in range(NUM_CELLS))


def capture(cell: int, direction: int) -> int:
    """The index of the capture from ``cell`` in ``direction``."""
    return CAPTURE[cell][direction]


def _ray(cell: int, direction: int) -> tuple[int, ...]:
    """The cells a capture from ``cell`` may reach in ``direction``, nearest first."""
    row, col = divmod(cell, COLS)
    d_row, d_col = DIRECTIONS[direction]
    cells = []
    row, col = row + d_row, col + d_col
    while 0 <= row < ROWS and 0 <= col < COLS:
        cells.append(row * COLS + col)
        if d_row and d_col:  # diagonal: the adjacent cell only
            break
        row, col = row + d_row, col + d_col
    return tuple(cells)


#: RAYS[cell][direction]: reachable cells, nearest first.
RAYS = tuple(tuple(_ray(cell, d) for d in range(NUM_DIRECTIONS)) for cell in range(NUM_CELLS))


def action_name(index: int) -> str:
    """``"CAPTURE 7 up-left"``, ``"REVEAL"``, ``"PLACE 4"``."""
    kind, a, b = decode(index)
    if kind is Kind.CAPTURE:
        return f"CAPTURE {a} {DIRECTION_NAMES[b]}"
    if kind is Kind.PLACE:
        return f"PLACE {a}"
    return "REVEAL"
