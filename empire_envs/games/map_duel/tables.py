"""Map Duel facts that the Python rules and the JAX twin (``jax_rules``) both read: the one
place each is written. The Python rules' modules import them from here; the twin turns them
into arrays. (The card codes, face types, seats' suits and phases are ``state``'s, which both
read too; this module imports nothing of the game, so ``state`` can read it.)
"""

from __future__ import annotations

from ...core.cards import CLUBS, DIAMONDS, HEARTS, SPADES

# --------------------------------------------------------------------------- results

ONGOING_NAME = "ongoing"
#: ``WIN_NAMES[p]``: the result when seat ``p`` (agent ``player_p``) has won
WIN_NAMES = ("won by player_0", "won by player_1")
DRAW_NAME = "draw"
TRUNCATED_NAME = "truncated"
#: the results a game can end with, as ``rules.outcome_name`` names them; the twin's
#: ``state.outcome`` indexes this tuple (the env adds ``"illegal action"`` after them)
OUTCOME_NAMES = (ONGOING_NAME, *WIN_NAMES, DRAW_NAME, TRUNCATED_NAME)

# --------------------------------------------------------------------------- geometry (sections 10-12)

#: absolute (row, col) step of each egocentric direction (forward, right, back, left), per seat:
#: ``player_0`` faces north from the south edge, ``player_1`` south from the north edge (10-12)
DIRECTIONS = (
    ((-1, 0), (0, 1), (1, 0), (0, -1)),
    ((1, 0), (0, -1), (-1, 0), (0, 1)),
)
#: the absolute orthogonal steps: north, east, south, west (a step with ``dr == 0`` is
#: horizontal, which the placement rule reads)
ORTHOGONAL = ((-1, 0), (0, 1), (1, 0), (0, -1))
#: the absolute diagonal steps, along which an Ace reaches
DIAGONAL = ((-1, -1), (-1, 1), (1, -1), (1, 1))

# --------------------------------------------------------------------------- new faces (section 26)

#: what a placed Jack, Queen, King costs, indexed by face type (``state.JACK_TYPE``,
#: ``QUEEN_TYPE``, ``KING_TYPE``): opposite-colour pool cards whose ranks sum to exactly this
FACE_COSTS = (7, 8, 9)
#: the prime ranks among the number cards: an Ace is paid with ``ACE_PRIMES`` of them
PRIME_RANKS = (2, 3, 5, 7)
ACE_PRIMES = 2
#: ``state.pay_target`` while an Ace is paid for (two primes, whatever their sum)
ACE_PAYMENT = -1

# --------------------------------------------------------------------------- confrontations (sections 35-37)

#: a Jack's value in a confrontation (a Queen's and a King's come from the pool)
JACK_VALUE = 5
#: ``jack_suit_rule="major_minor"``: a Jack of a minor suit is "low-suit" against a major one
MINOR_SUITS = (CLUBS, DIAMONDS)
MAJOR_SUITS = (HEARTS, SPADES)
