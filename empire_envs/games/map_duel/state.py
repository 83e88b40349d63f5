"""The Map Duel game state, and the card codes Map Duel numbers its own way.

Standard-card facts (the four suits, their bridge order clubs < diamonds < hearts < spades and
their letters) are ``empire_envs.core.cards``'. Map Duel's own codes are declared here, once:

- A **number card id** ``n = NUMBERS_PER_SUIT * suit + (rank - LOWEST_NUMBER_RANK)``, that is
  ``9 * suit + rank - 2``: suits as ``core.cards`` numbers them (C 0, D 1, H 2, S 3), ranks 2..10;
  36 ids (``number_id``, ``number_suit``, ``number_rank``).
- A **face type** ``t``: ``JACK_TYPE, QUEEN_TYPE, KING_TYPE, ACE_TYPE = 0, 1, 2, 3``, Map Duel's
  order of the four faces of a suit (not ``core.cards``' rank indices, where the Ace is 0 and the
  Jack 10).
- A seat ``p`` (0 = ``player_0``, red; 1 = ``player_1``, black) owns 8 faces, each named by its
  **own face index** ``f = FACES_PER_SUIT * s + t`` (``face_index(s, t)``): ``s = 0`` the seat's
  lower suit (red D, black C), ``s = 1`` its higher suit (red H, black S).
- A **board code**: ``EMPTY`` (-1), a number card id ``0..35``, or ``face_code(p, f) = 36 + 8p + f``.

The board is ``B x B`` cells in absolute coordinates, cell ``row * B + col``, row 0 north
(``player_1``'s edge), row ``B - 1`` south (``player_0``'s edge).

Zones: the setup deck (``setup_deck``, top card last) and the card drawn from it (``drawn``); the
map; each seat's pool (``pools[p][n]`` 0/1); the cards removed from the game
(``removed_numbers[n]``, and face status ``REMOVED``); each seat's face deck (status ``DECK``).
"""

from __future__ import annotations

from ...core.cards import CLUBS, DIAMONDS, HEARTS, NUM_SUITS, SPADES, SUIT_LETTERS
from ...core.phases import GamePhase
from ...core.state import LIST, LISTS, SET, SHARED, VALUE, DeclaredState
from .config import MapDuelConfig

# Number cards: the 2 to 10 of every suit.
LOWEST_NUMBER_RANK = 2
NUMBERS_PER_SUIT = 9
NUMBER_RANKS = range(LOWEST_NUMBER_RANK, LOWEST_NUMBER_RANK + NUMBERS_PER_SUIT)
NUM_NUMBER_CARDS = NUM_SUITS * NUMBERS_PER_SUIT

# Face cards: a seat's 8 faces, 4 types in each of its 2 suits.
FACES_PER_SUIT = 4
JACK_TYPE, QUEEN_TYPE, KING_TYPE, ACE_TYPE = range(FACES_PER_SUIT)
SUITS_PER_SEAT = 2
NUM_FACES = SUITS_PER_SEAT * FACES_PER_SUIT
#: a face type's letter, indexed by ``JACK_TYPE`` ... ``ACE_TYPE``
FACE_TYPE_LETTERS = "JQKA"

# Board codes.
EMPTY = -1
FACE_BASE = NUM_NUMBER_CARDS

RED_SUITS = (DIAMONDS, HEARTS)
BLACK_SUITS = (CLUBS, SPADES)
#: the two suits of each seat's face deck, lower first
SEAT_SUITS = (RED_SUITS, BLACK_SUITS)


def face_index(suit_slot: int, face_type: int) -> int:
    """A seat's own index of its face of ``face_type`` in its lower (0) or higher (1) suit."""
    return FACES_PER_SUIT * suit_slot + face_type


#: each seat's own face indices of its two Aces, lower suit first (what SWAP_ACE(f, a) names)
ACE_FACES = tuple(face_index(suit_slot, ACE_TYPE) for suit_slot in range(SUITS_PER_SEAT))

#: ``SUIT_SLOT[seat][suit]``: suits seen from a seat: 0 my lower, 1 my higher, 2 the
#: opponent's lower, 3 its higher (so a mirrored position with the colours swapped looks the same)
SUIT_SLOT = tuple(
    tuple((SEAT_SUITS[seat] + SEAT_SUITS[1 - seat]).index(suit) for suit in range(NUM_SUITS)) for seat in range(2)
)
#: ``CARD_SLOT[seat][n]``: number card ``n`` seen from a seat, ``9 * suit slot + rank - 2``
CARD_SLOT = tuple(
    tuple(
        NUMBERS_PER_SUIT * SUIT_SLOT[seat][n // NUMBERS_PER_SUIT] + n % NUMBERS_PER_SUIT
        for n in range(NUM_NUMBER_CARDS)
    )
    for seat in range(2)
)
#: ``CARD_AT_SLOT[seat][slot]``: the number card id at a seat's card slot (the inverse)
CARD_AT_SLOT = tuple(tuple(CARD_SLOT[seat].index(slot) for slot in range(NUM_NUMBER_CARDS)) for seat in range(2))

# Face status.
NUM_FACE_STATUSES = 3
DECK, ON_MAP, REMOVED = range(NUM_FACE_STATUSES)


class Phase(GamePhase):
    """The decision the game waits for (``OVER`` once it has ended). ``rules.PHASES`` says, for
    each, who acts, what is legal and what an action does."""

    SETUP_PLACE = 0
    SETUP_FACE = 1
    SETUP_FACE_CELL = 2
    STEP_1 = 3
    SACRIFICE_FACE = 4
    SACRIFICE_MOVE = 5
    PLACE_CELL = 6
    PLACE_PAY = 7
    STEP_2 = 8
    BUILD_CARD = 9
    OVER = 10


#: the decision phases are the ones before ``OVER`` (the observation's phase one-hot)
NUM_DECISION_PHASES = int(Phase.OVER)
SETUP_PHASES = (Phase.SETUP_PLACE, Phase.SETUP_FACE, Phase.SETUP_FACE_CELL)

# How an episode ended.
ONGOING, WON, DRAW, TRUNCATED = range(4)


def number_id(suit: int, rank: int) -> int:
    return suit * NUMBERS_PER_SUIT + (rank - LOWEST_NUMBER_RANK)


def number_suit(n: int) -> int:
    return n // NUMBERS_PER_SUIT


def number_rank(n: int) -> int:
    return n % NUMBERS_PER_SUIT + LOWEST_NUMBER_RANK


def numbers_of_suit(suit: int) -> range:
    """The number card ids of one suit, 2 to 10."""
    return range(NUMBERS_PER_SUIT * suit, NUMBERS_PER_SUIT * (suit + 1))


def is_red_suit(suit: int) -> bool:
    return suit in RED_SUITS


def seat_of_colour_suit(suit: int) -> int:
    """The seat whose colour a suit is: 0 for red, 1 for black."""
    return 0 if is_red_suit(suit) else 1


def face_code(seat: int, face: int) -> int:
    return FACE_BASE + NUM_FACES * seat + face


def face_suit(seat: int, face: int) -> int:
    return SEAT_SUITS[seat][face // FACES_PER_SUIT]


def face_type(face: int) -> int:
    return face % FACES_PER_SUIT


def number_str(n: int) -> str:
    return f"{number_rank(n)}{SUIT_LETTERS[number_suit(n)]}"


def face_str(seat: int, face: int) -> str:
    return f"{FACE_TYPE_LETTERS[face_type(face)]}{SUIT_LETTERS[face_suit(seat, face)]}"


class MapDuelState(DeclaredState):
    """Mutable game state. Build one with ``rules.new_game`` or field by field in tests.

    Turn bookkeeping: ``current`` is the seat to act; ``first`` the seat that moves first;
    ``turn`` counts main-game turns begun; ``no_progress`` counts turns in a row without a
    consume, build, placement, sacrifice, spend or confrontation; ``progress_this_turn`` marks
    one in the turn under way; ``step1_done`` and ``acted`` (own face indices) track step 1 and
    step 2. Pending sub-decisions: ``pending_face`` (own index, -1 none), ``pending_cell``,
    ``pay_target`` (7, 8, 9 or ``ACE_PAYMENT``), ``paid`` (number ids paid so far),
    ``moves_left`` (sacrifice swaps left), ``build_cell``. Setup: ``drawn`` (number id, -1
    none), ``setup_faces_placed`` and ``hidden_face`` (the first starting face, hidden from the
    other seat until both are placed: ``(seat, face)`` or None).
    """

    FIELDS = {
        "config": SHARED,
        "B": VALUE,
        "board": LIST,
        "face_pos": LISTS,
        "face_status": LISTS,
        "pools": LISTS,
        "removed_numbers": LIST,
        "setup_deck": LIST,
        "drawn": VALUE,
        "phase": VALUE,
        "current": VALUE,
        "first": VALUE,
        "turn": VALUE,
        "no_progress": VALUE,
        "progress_this_turn": VALUE,
        "step1_done": VALUE,
        "acted": SET,
        "pending_face": VALUE,
        "pending_cell": VALUE,
        "pay_target": VALUE,
        "paid": LIST,
        "moves_left": VALUE,
        "build_cell": VALUE,
        "setup_faces_placed": VALUE,
        "hidden_face": VALUE,
        "outcome": VALUE,
        "winner": VALUE,
        "coin_flips": VALUE,
    }
    __slots__ = tuple(FIELDS)

    def __init__(self, config: MapDuelConfig) -> None:
        B = config.board_size
        self.config = config
        self.B = B
        self.board = [EMPTY] * (B * B)
        self.face_pos = [[-1] * NUM_FACES for _ in range(2)]
        self.face_status = [[DECK] * NUM_FACES for _ in range(2)]
        self.pools = [[0] * NUM_NUMBER_CARDS for _ in range(2)]
        self.removed_numbers = [0] * NUM_NUMBER_CARDS
        self.setup_deck: list[int] = []
        self.drawn = -1
        self.phase = Phase.STEP_1
        self.current = 0
        self.first = 0
        self.turn = 0
        self.no_progress = 0
        self.progress_this_turn = False
        self.step1_done = False
        self.acted: set[int] = set()
        self.pending_face = -1
        self.pending_cell = -1
        self.pay_target = 0
        self.paid: list[int] = []
        self.moves_left = 0
        self.build_cell = -1
        self.setup_faces_placed = 0
        self.hidden_face: tuple[int, int] | None = None
        self.outcome = ONGOING
        self.winner = -1
        self.coin_flips = 0

    def number_cards_on_map(self) -> list[int]:
        return [code for code in self.board if 0 <= code < NUM_NUMBER_CARDS]

    def card_count(self) -> int:
        """Cards accounted for in all zones: 36 number cards and 16 faces (a conservation check)."""
        numbers = (
            len(self.number_cards_on_map())
            + sum(self.pools[0])
            + sum(self.pools[1])
            + sum(self.removed_numbers)
            + len(self.setup_deck)
            + (1 if self.drawn >= 0 else 0)
        )
        return numbers + 2 * NUM_FACES
