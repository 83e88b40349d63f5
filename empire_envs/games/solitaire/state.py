"""The Empire Solitaire state: plain data and a cheap, exact ``clone()``.

- ``grid``: 15 cells, ``cell = row * 5 + col`` (3 rows x 5 columns); a card index or -1 (empty).
- ``stock``: the face-down stock; the **top card is the last element**.
- ``revealed``: the stock card turned up and waiting to be placed (-1 when none).
- ``out``: the captured cards, in capture order (they have left the game, face up).
- ``unused``: the 34 cards dealt out of the game, never seen.
"""

from __future__ import annotations

from ...core.state import LIST, SHARED, VALUE, DeclaredState
from .config import SolitaireConfig

ROWS, COLS = 3, 5
NUM_CELLS = ROWS * COLS
STOCK_SIZE = 3

ONGOING, WON, LOST = range(3)
OUTCOME_NAMES = ("ongoing", "won", "lost")


class SolitaireState(DeclaredState):
    #: every field and how ``clone()`` copies it (``core.state``); ``unused`` never changes during
    #: a game, so copies share it like the config
    FIELDS = {
        "config": SHARED,
        "grid": LIST,
        "stock": LIST,
        "revealed": VALUE,
        "out": LIST,
        "unused": SHARED,
        "outcome": VALUE,
    }
    __slots__ = tuple(FIELDS)

    def __init__(self, config: SolitaireConfig | None = None) -> None:
        self.config = config if config is not None else SolitaireConfig()
        self.grid = [-1] * NUM_CELLS
        self.stock: list[int] = []
        self.revealed = -1
        self.out: list[int] = []
        self.unused: list[int] = []
        self.outcome = ONGOING

    @property
    def captures(self) -> int:
        return len(self.out)

    def cards_in_grid(self) -> int:
        return NUM_CELLS - self.grid.count(-1)

    def __repr__(self) -> str:
        # the fields, not the picture (render.to_text draws the grid): state stays below render
        return (
            f"SolitaireState(grid={self.grid}, stock={self.stock}, revealed={self.revealed}, out={self.out}, "
            f"outcome={OUTCOME_NAMES[self.outcome]!r})"
        )
