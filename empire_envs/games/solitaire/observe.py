"""Empire Solitaire observation: one flat ``float32`` vector, every entry in ``[0, 1]``.

The player sees the tableau, the revealed stock card, how many stock cards remain, and the cards
captured so far. The stock's cards and the 34 cards left out of the game stay hidden.

=========  ===================  ===============================================================
index      field                meaning
=========  ===================  ===============================================================
0-254      cells                15 cells (row by row) x 17: one-hot rank (A..K), one-hot suit
                                (C, D, H, S); all zero for an empty cell
255-271    revealed             the revealed stock card waiting to be placed: rank, suit
272        stock size           stock cards not yet revealed / 3
273        captures             captures made / 17
274-325    out of game          1 for each card captured so far (card index order)
=========  ===================  ===============================================================
"""

from __future__ import annotations

import numpy as np

from ...core.cards import NUM_CARDS, NUM_RANKS, NUM_SUITS
from ...core.layout import ObsLayout
from .state import NUM_CELLS, SolitaireState
from .tables import CAPTURE_FRACTION, STOCK_FRACTION

#: one card's entries: a one-hot rank, then a one-hot suit (all zero for no card)
CARD = ObsLayout([("rank", NUM_RANKS), ("suit", NUM_SUITS)])
CARD_SIZE = CARD.size
_SUIT = CARD.start("suit")
LAYOUT = ObsLayout(
    [
        ("cells", NUM_CELLS * CARD_SIZE),
        ("revealed", CARD_SIZE),
        ("stock size", 1),
        ("captures", 1),
        ("out of game", NUM_CARDS),
    ]
)
OBSERVATION_SIZE = LAYOUT.size
_REVEALED = LAYOUT.start("revealed")
_STOCK = LAYOUT.start("stock size")
_CAPTURES = LAYOUT.start("captures")
_OUT = LAYOUT.start("out of game")


def observe(state: SolitaireState, seat: int = 0) -> np.ndarray:
    """The player's observation of ``state`` (a fresh array); ``seat`` is always 0 (one player)."""
    obs = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    indices: list[int] = []
    for cell, card in enumerate(state.grid):
        if card >= 0:
            base = cell * CARD_SIZE
            indices += (base + card % NUM_RANKS, base + _SUIT + card // NUM_RANKS)
    if state.revealed >= 0:
        card = state.revealed
        indices += (_REVEALED + card % NUM_RANKS, _REVEALED + _SUIT + card // NUM_RANKS)
    indices += [_OUT + card for card in state.out]
    obs[indices] = 1.0
    obs[_STOCK] = STOCK_FRACTION[len(state.stock)]
    obs[_CAPTURES] = CAPTURE_FRACTION[len(state.out)]
    return obs
