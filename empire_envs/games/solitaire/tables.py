"""Empire Solitaire facts that the Python rules and the JAX twin (``jax_rules``) both read: the
one place each is written. ``rules.py``, ``observe.py``, ``actions.py``, ``render.py`` and the
package's ``GAME`` import them from here; the twin applies the same function to arrays and
indexes the same tables.

- The game's name, the deal's size, the win and loss rewards.
- When a card captures another (``matches``): written with ``%``, ``//``, ``==`` and ``|`` only,
  so that one function serves Python ``int`` cards and JAX arrays.
- The observation's fractions (``STOCK_FRACTION``, ``CAPTURE_FRACTION``): Python divides in
  float64 and stores float32, while XLA may divide by multiplying with a reciprocal, one unit in
  the last place away; so both read the quotient from one ``core.layout.quotient_table``, its
  float32 values kept as Python floats (the Python observation reads a tuple faster than an
  array; the twin makes it a float32 array again).

The outcome codes and names stay where the state declares them (``state.py``): they are how its
``outcome`` field is encoded.
"""

from __future__ import annotations

from ...core.cards import NUM_RANKS
from ...core.layout import quotient_table
from .config import MAX_CAPTURES
from .state import NUM_CELLS, STOCK_SIZE

#: the game's display name (``GAME.name``, the action table's, the twin's, the text render's)
NAME = "Empire Solitaire"
#: the cards in play: the tableau, then the stock
DEAL_SIZE = NUM_CELLS + STOCK_SIZE
WIN_REWARD, LOSS_REWARD = 1.0, -1.0


def matches(card, other):
    """Whether ``card`` may capture ``other``: same rank or same suit (ints or arrays)."""
    return (card % NUM_RANKS == other % NUM_RANKS) | (card // NUM_RANKS == other // NUM_RANKS)


#: stock cards not yet revealed / 3, for 0..3 cards
STOCK_FRACTION = tuple(quotient_table(STOCK_SIZE).tolist())
#: captures made / 17, for 0..17 captures
CAPTURE_FRACTION = tuple(quotient_table(MAX_CAPTURES).tolist())
