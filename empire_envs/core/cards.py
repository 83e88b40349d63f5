"""The card encoding shared by every game.

``card = suit * 13 + rank_index`` with suits in bridge order (clubs < diamonds < hearts < spades)
and ranks ``A, 2, ..., 10, J, Q, K`` at indices ``0 .. 12``. Cards print and parse as ``"AS"``,
``"10H"``, ``"QD"`` (``"T"`` is accepted for ten on input). Games that need jokers or several
packs extend this encoding explicitly in their own package.
"""

from __future__ import annotations

from collections.abc import Iterable

NUM_RANKS = 13
NUM_SUITS = 4
NUM_CARDS = NUM_RANKS * NUM_SUITS

SUIT_LETTERS = "CDHS"
SUIT_NAMES = ("clubs", "diamonds", "hearts", "spades")
RANK_LABELS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
RANK_NAMES = (
    "ace",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "jack",
    "queen",
    "king",
)

CLUBS, DIAMONDS, HEARTS, SPADES = range(NUM_SUITS)
ACE, JACK, QUEEN, KING = 0, 10, 11, 12

_RANK_BY_LABEL = {label: index for index, label in enumerate(RANK_LABELS)}
_RANK_BY_LABEL["T"] = 9


def make_card(rank_index: int, suit: int) -> int:
    """The card of a rank index (0 = ace .. 12 = king) and a suit (0 = clubs .. 3 = spades)."""
    if not 0 <= rank_index < NUM_RANKS:
        raise ValueError(f"rank index must be in 0..12, got {rank_index!r}")
    if not 0 <= suit < NUM_SUITS:
        raise ValueError(f"suit must be in 0..3, got {suit!r}")
    return suit * NUM_RANKS + rank_index


def rank_of(card: int) -> int:
    return card % NUM_RANKS


def suit_of(card: int) -> int:
    return card // NUM_RANKS


def is_black(card: int) -> bool:
    return suit_of(card) in (CLUBS, SPADES)


def card_str(card: int) -> str:
    """``"10H"`` for the ten of hearts; raises on anything that is not a card index."""
    _check_index(card)
    return RANK_LABELS[rank_of(card)] + SUIT_LETTERS[suit_of(card)]


def card_name(card: int) -> str:
    """``"ten of hearts"``."""
    _check_index(card)
    return f"{RANK_NAMES[rank_of(card)]} of {SUIT_NAMES[suit_of(card)]}"


def parse_card(text: str | int) -> int:
    """Parse ``"AS"``, ``"10h"``, ``"TD"`` (or pass through a valid card index)."""
    if isinstance(text, bool):
        raise TypeError(f"a card is a string like 'QS' or an int 0..51, got {text!r}")
    if isinstance(text, int) or (hasattr(text, "__index__") and not isinstance(text, str)):
        index = int(text)  # numpy integers
        _check_index(index)
        return index
    if not isinstance(text, str):
        raise TypeError(f"a card is a string like 'QS' or an int 0..51, got {text!r}")
    cleaned = text.strip().upper()
    rank_label, suit_letter = cleaned[:-1], cleaned[-1:]
    if rank_label not in _RANK_BY_LABEL or not suit_letter or suit_letter not in SUIT_LETTERS:
        raise ValueError(f"cannot read card {text!r}: expected rank A,2-10,J,Q,K then suit C,D,H,S")
    return make_card(_RANK_BY_LABEL[rank_label], SUIT_LETTERS.index(suit_letter))


def parse_cards(cards: Iterable[str | int]) -> list[int]:
    """Parse a sequence of cards; a bare string is refused (it would be read letter by letter)."""
    if isinstance(cards, str):
        raise TypeError("give a list of cards such as ['QS', '7H'], not one string")
    return [parse_card(card) for card in cards]


def _check_index(card: int) -> None:
    if not isinstance(card, int) or isinstance(card, bool) or not 0 <= card < NUM_CARDS:
        raise ValueError(f"not a card index 0..51: {card!r}")
