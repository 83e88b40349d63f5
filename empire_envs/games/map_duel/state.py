"""The Map Duel game state: plain data and a cheap, exact ``clone()``.

Cards. A **number card** has id ``n = suit * 9 + (rank - 2)`` (suits C 0, D 1, H 2, S 3; ranks
2..10), 36 ids. A **face card** belongs to a seat ``p`` (0 = ``player_0``, red; 1 = ``player_1``,
black) and has own index ``f = 4 * s + t``: ``s = 0`` the seat's lower suit (red D, black C),
``s = 1`` its higher suit (red H, black S); ``t = 0..3`` Jack, Queen, King, Ace.

The board is ``B x B`` cells in absolute coordinates, cell ``row * B + col``, row 0 north
(``player_1``'s edge), row ``B - 1`` south (``player_0``'s edge). ``board[cell]`` is ``EMPTY``
(-1), a number id ``0..35``, or ``face_code(p, f) = 36 + 8p + f``.

Zones: the setup deck (``setup_deck``, top card last) and the card drawn from it (``drawn``); the
map; each seat's pool (``pools[p][n]`` 0/1); the cards removed from the game
(``removed_numbers[n]``, and face status ``REMOVED``); each seat's face deck (status ``DECK``).
"""

from __future__ import annotations

from .config import MapDuelConfig

NUM_NUMBER_CARDS = 36
NUM_FACES = 8
EMPTY = -1
FACE_BASE = 36

CLUBS, DIAMONDS, HEARTS, SPADES = range(4)
SUIT_LETTERS = "CDHS"
RED_SUITS = (DIAMONDS, HEARTS)
BLACK_SUITS = (CLUBS, SPADES)
#: the two suits of each seat's face deck, lower first
SEAT_SUITS = ((DIAMONDS, HEARTS), (CLUBS, SPADES))
JACK, QUEEN, KING, ACE = range(4)
FACE_LETTERS = "JQKA"
PRIMES = (2, 3, 5, 7)

#: ``SUIT_SLOT[seat][suit]``: suits seen from a seat: 0 my lower, 1 my higher, 2 the
#: opponent's lower, 3 its higher (so a mirrored position with the colours swapped looks the same)
SUIT_SLOT = tuple(
    tuple((SEAT_SUITS[seat] + SEAT_SUITS[1 - seat]).index(suit) for suit in range(4)) for seat in range(2)
)
#: ``CARD_SLOT[seat][n]``: number card ``n`` seen from a seat, ``9 * suit slot + rank - 2``
CARD_SLOT = tuple(tuple(9 * SUIT_SLOT[seat][n // 9] + n % 9 for n in range(36)) for seat in range(2))
#: ``CARD_AT_SLOT[seat][slot]``: the number card id at a seat's card slot (the inverse)
CARD_AT_SLOT = tuple(tuple(CARD_SLOT[seat].index(slot) for slot in range(36)) for seat in range(2))

# Face status.
DECK, ON_MAP, REMOVED = range(3)

# Phases: the pending sub-decision (OVER once the game has ended).
(
    SETUP_PLACE,
    SETUP_FACE,
    SETUP_FACE_CELL,
    STEP1,
    SAC_FACE,
    SAC_MOVE,
    PLACE_CELL,
    PLACE_PAY,
    STEP2,
    BUILD_CARD,
    OVER,
) = range(11)
PHASE_NAMES = (
    "setup place",
    "setup face",
    "setup face cell",
    "step 1",
    "sacrifice face",
    "sacrifice move",
    "place cell",
    "place pay",
    "step 2",
    "build card",
    "over",
)
NUM_DECISION_PHASES = 10

# How an episode ended.
ONGOING, WON, DRAW, TRUNCATED = range(4)


def number_id(suit: int, rank: int) -> int:
    return suit * 9 + (rank - 2)


def number_suit(n: int) -> int:
    return n // 9


def number_rank(n: int) -> int:
    return n % 9 + 2


def is_red_suit(suit: int) -> bool:
    return suit in RED_SUITS


def seat_of_colour_suit(suit: int) -> int:
    """The seat whose colour a suit is: 0 for red, 1 for black."""
    return 0 if is_red_suit(suit) else 1


def face_code(seat: int, face: int) -> int:
    return FACE_BASE + NUM_FACES * seat + face


def face_suit(seat: int, face: int) -> int:
    return SEAT_SUITS[seat][face // 4]


def face_type(face: int) -> int:
    return face % 4


def number_str(n: int) -> str:
    return f"{number_rank(n)}{SUIT_LETTERS[number_suit(n)]}"


def face_str(seat: int, face: int) -> str:
    return f"{FACE_LETTERS[face_type(face)]}{SUIT_LETTERS[face_suit(seat, face)]}"


class MapDuelState:
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

    __slots__ = (
        "config",
        "B",
        "board",
        "face_pos",
        "face_status",
        "pools",
        "removed_numbers",
        "setup_deck",
        "drawn",
        "phase",
        "current",
        "first",
        "turn",
        "no_progress",
        "progress_this_turn",
        "step1_done",
        "acted",
        "pending_face",
        "pending_cell",
        "pay_target",
        "paid",
        "moves_left",
        "build_cell",
        "setup_faces_placed",
        "hidden_face",
        "outcome",
        "winner",
        "coin_flips",
    )

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
        self.phase = STEP1
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

    def clone(self) -> MapDuelState:
        other = MapDuelState.__new__(MapDuelState)
        other.config = self.config
        other.B = self.B
        other.board = self.board[:]
        other.face_pos = [row[:] for row in self.face_pos]
        other.face_status = [row[:] for row in self.face_status]
        other.pools = [row[:] for row in self.pools]
        other.removed_numbers = self.removed_numbers[:]
        other.setup_deck = self.setup_deck[:]
        other.drawn = self.drawn
        other.phase = self.phase
        other.current = self.current
        other.first = self.first
        other.turn = self.turn
        other.no_progress = self.no_progress
        other.progress_this_turn = self.progress_this_turn
        other.step1_done = self.step1_done
        other.acted = set(self.acted)
        other.pending_face = self.pending_face
        other.pending_cell = self.pending_cell
        other.pay_target = self.pay_target
        other.paid = self.paid[:]
        other.moves_left = self.moves_left
        other.build_cell = self.build_cell
        other.setup_faces_placed = self.setup_faces_placed
        other.hidden_face = self.hidden_face
        other.outcome = self.outcome
        other.winner = self.winner
        other.coin_flips = self.coin_flips
        return other

    def acting_player(self) -> int:
        return -1 if self.phase == OVER else self.current

    def number_cards_on_map(self) -> list[int]:
        return [c for c in self.board if 0 <= c < NUM_NUMBER_CARDS]

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
