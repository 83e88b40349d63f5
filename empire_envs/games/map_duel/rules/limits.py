"""The bounds of a game: the most decisions it may take (``max_game_length``, what search agents
and the protocol tests read) and the least and greatest result of a seat (``utility_range``).
"""

from __future__ import annotations

from ..config import MapDuelConfig
from ..state import NUM_FACES, NUM_NUMBER_CARDS, NUMBER_RANKS, SUITS_PER_SEAT
from ..tables import ACE_PRIMES
from .new_face import FACE_COST


def _most_payment_cards() -> int:
    """The most cards one payment can take: an Ace takes two primes; a J, Q or K the smallest
    opposite-colour ranks (each rank twice, one per suit of that colour) that still fit its cost."""
    most, total = 0, 0
    for rank in sorted(list(NUMBER_RANKS) * SUITS_PER_SEAT):
        if total + rank > max(FACE_COST.values()):
            break
        most, total = most + 1, total + rank
    return max(most, ACE_PRIMES)


#: the setup's decisions: a cell for each number card but the centre one (which places itself),
#: then for each seat its starting face and that face's cell (sections 13-18)
SETUP_DECISIONS = (NUM_NUMBER_CARDS - 1) + 2 * 2
#: the most decisions of a step 1: a sacrifice (the pool card, the face when two or more of its
#: suit are on the map, then one MOVE or STOP per swap, at most the card's rank) outnumbers a new
#: face (the face, its cell, the payment cards), a swap and a pass (one each) (sections 19-27)
STEP_1_DECISIONS = max(1 + 1 + max(NUMBER_RANKS), 1 + 1 + _most_payment_cards(), 1)
#: the most decisions of a step 2: each face acts once, a BUILD and its card being two decisions;
#: END_TURN is asked only while a face that has not acted can still act, so a step 2 in which
#: every face builds ends by itself (sections 3, 28-31)
STEP_2_DECISIONS = 2 * NUM_FACES
#: the most decisions of one turn
TURN_DECISIONS = STEP_1_DECISIONS + STEP_2_DECISIONS


def max_game_length(config: MapDuelConfig) -> int:
    """An upper bound on the decisions (``apply_action`` calls) of one game:
    ``SETUP_DECISIONS + length_limit * TURN_DECISIONS`` = ``39 + 28 * length_limit``.

    - The setup takes exactly 39 decisions: 35 cells for the number cards (the first card opens
      the map on the centre by itself), then a starting face and its cell for each seat.
    - At most ``length_limit`` turns are played (truncation is checked as a turn would begin).
    - A turn takes at most 28 decisions: step 1 at most 12 (sacrificing a 10: the card, the face
      to move, then up to 10 swaps or a STOP; a new face takes at most 5, with a payment of at most
      3 cards, since four opposite-colour cards sum to at least 2 + 2 + 3 + 3 > 9), step 2 at most
      16 (each of the 8 faces builds, 2 decisions each; with a face left out, 14 and END_TURN).

    The board size changes no term: every board (9 x 9 and up) has room for all 36 number cards
    and the 16 faces, each setup card always finds a cell (ruling 16), and the counts above are
    of cards and faces, not of cells. Draws and wins only end a game earlier."""
    return SETUP_DECISIONS + config.length_limit * TURN_DECISIONS


def utility_range(config: MapDuelConfig) -> tuple[float, float]:
    """The least and greatest final return of a seat: a loss and a win."""
    return -1.0, 1.0
