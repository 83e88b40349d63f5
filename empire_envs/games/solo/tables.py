"""Empire solo facts that the Python rules and the JAX twin (``jax_rules``) both read: the one
place each is written. ``rules.py``, ``observe.py``, ``actions.py`` and the package's ``GAME``
import them from here; the twin applies the same functions to arrays and indexes the same tables.

- The game's name.
- The card tests (``is_soldier``, ``is_face``, ``is_promotion``, ``is_black_face``) and a card's
  battle value (``battle_value``): written with ``%``, ``//``, ``==``, ``&`` and ``|`` only, so
  that one function serves a Python ``int`` (the rules' per-card tables below are built from it)
  and a JAX array (the twin calls it on traced cards).
- The units: what a merge forms (``MERGED``), which kinds host a recruit (``HOSTS``), what
  forming one pays (``SHAPING_INDEX``); how many bases win, the win and loss rewards.
- The observation's fractions (``UNIT_VALUE_FRACTION`` and the others): Python divides in
  float64 and stores float32, while XLA may divide by multiplying with a reciprocal, one unit in
  the last place away; so both read the quotient from one table (``core.layout.quotient_table``)
  instead. Only ``draws / length_limit``, whose table could be large, is divided by the Python
  observation and looked up by the twin in ``quotient_table(length_limit)``.

The outcome codes and names, the unit kinds and the phases stay where the state declares them
(``state.py``): they are how its fields are encoded.
"""

from __future__ import annotations

from ...core.cards import ACE, CLUBS, JACK, NUM_CARDS, NUM_RANKS, SPADES
from ...core.layout import quotient_table
from .state import BASE, BATTALION, BUILDER, NATIVE, SOLDIER, SUPER

#: the game's display name (``GAME.name``, the action table's, the twin's, the text render's)
NAME = "Empire solo"

# --------------------------------------------------------------------------- cards


def battle_value(card):
    """A card's battle value: A=1, 2..10 face value, J=11, Q=12, K=13 (an int or an array)."""
    return card % NUM_RANKS + 1


def is_soldier(card):
    """A-10 of any suit."""
    return card % NUM_RANKS < JACK


def is_face(card):
    """J, Q, K of any suit."""
    return card % NUM_RANKS >= JACK


def is_promotion(card):
    """A black (clubs, spades) J, Q, K or A: promotes a battalion, founds a base."""
    suit, rank = card // NUM_RANKS, card % NUM_RANKS
    return ((suit == CLUBS) | (suit == SPADES)) & ((rank == ACE) | (rank >= JACK))


def is_black_face(card):
    """A black J, Q or K: the face cards a native may take as its recruit."""
    return is_face(card) & is_promotion(card)


#: the card tests and values per card index, as the Python rules read them
VALUE = tuple(int(battle_value(card)) for card in range(NUM_CARDS))
IS_SOLDIER = tuple(bool(is_soldier(card)) for card in range(NUM_CARDS))
IS_FACE = tuple(bool(is_face(card)) for card in range(NUM_CARDS))
IS_PROMOTION = tuple(bool(is_promotion(card)) for card in range(NUM_CARDS))
IS_BLACK_FACE = tuple(bool(is_black_face(card)) for card in range(NUM_CARDS))

# --------------------------------------------------------------------------- the game

BASES_TO_WIN = 3
WIN_REWARD, LOSS_REWARD = 1.0, -1.0
#: what merging two units of a kind forms (onto a keep)
MERGED = {SOLDIER: SUPER, SUPER: BATTALION, NATIVE: BUILDER}
#: the unit kinds that take a recruit (and may send it alone)
HOSTS = (NATIVE, BASE)
#: the index into ``SoloConfig.shaping_values`` of what forming each unit kind pays
SHAPING_INDEX = {SUPER: 0, BATTALION: 1, NATIVE: 2, BUILDER: 3, BASE: 4}

# --------------------------------------------------------------------------- observation fractions

#: a unit's battle value is reported as a fraction of this (a base, which beats anything: 1)
MAX_UNIT_VALUE = 52
#: a card's battle value is at most a King's, 13
MAX_CARD_VALUE = 13
#: rounds lost in one battle are reported as a fraction of this, clipped to 1
ROUNDS_LOST_SCALE = 6


# ``core.layout.quotient_table``s, their float32 values as Python floats: the Python observation
# reads a tuple faster than an array; the twin makes each a float32 array again.
#: a unit's battle value / 52, for values 0..52
UNIT_VALUE_FRACTION = tuple(quotient_table(MAX_UNIT_VALUE).tolist())
#: a card's battle value / 13, for values 0..13
CARD_VALUE_FRACTION = tuple(quotient_table(MAX_CARD_VALUE).tolist())
#: cards in a pile (deck, discard) / 52, for 0..52 cards
PILE_FRACTION = tuple(quotient_table(NUM_CARDS).tolist())
#: bases / 3, for 0..3 bases
BASES_FRACTION = tuple(quotient_table(BASES_TO_WIN).tolist())
#: rounds lost / 6 clipped to 1, for 0..6 rounds lost (index with ``min(rounds_lost, 6)``)
ROUNDS_LOST_FRACTION = tuple(quotient_table(ROUNDS_LOST_SCALE).tolist())
