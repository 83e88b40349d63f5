"""Setting a game up: the deal, the first player and the reset options that stack them
(``deck``, ``first_player``), checked before anything is drawn."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..config import HAND_SIZE, PillarsConfig
from ..state import PillarsState, full_deck_counts
from .turns import begin_turn


def new_game(
    config: PillarsConfig,
    rng: np.random.Generator,
    *,
    deck: Sequence[int] | None = None,
    first_player: int | None = None,
) -> PillarsState:
    """Shuffle all packs, deal 10 cards to each seat, pick the first player at random (3, 4, 5)
    and start its turn with the automatic draw.

    ``deck`` stacks the whole shuffled deck as kinds, top card first (dealt one card at a time
    clockwise from the first player); ``first_player`` fixes the first seat. Both are checked
    before anything is drawn: a wrong type is a ``TypeError``, a wrong value a ``ValueError``,
    each naming the option (never a silent conversion).
    """
    state = PillarsState(config)
    n = config.num_players
    counts = full_deck_counts(config)
    order = None if deck is None else checked_deck(deck, counts)
    chosen = None if first_player is None else checked_first_player(first_player, n)
    if order is None:
        cards = [k for k, c in enumerate(counts) for _ in range(c)]
        order = [cards[i] for i in rng.permutation(len(cards))]
    first_player = int(rng.integers(n)) if chosen is None else chosen
    state.deck = order[::-1]  # top card last
    for i in range(HAND_SIZE * n):
        seat = (first_player + i) % n
        kind = state.deck.pop()
        state.hands[seat][kind] += 1
        state.hand_sizes[seat] += 1
    state.current = int(first_player)
    state.turn = 0
    begin_turn(state, rng)
    return state


def checked_first_player(value: object, n: int) -> int:
    """The ``first_player`` reset option as a seat: an int (or numpy integer) in 0..n-1."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"reset option 'first_player' must be an int seat 0..{n - 1}, got {value!r}")
    if not 0 <= value < n:
        raise ValueError(f"reset option 'first_player' must be a seat 0..{n - 1}, got {value!r}")
    return int(value)


def checked_deck(deck: object, counts: list[int]) -> list[int]:
    """The ``deck`` reset option as a list of kinds, top card first: a list, tuple or 1-D array
    of ints holding exactly the cards of the packs (``counts`` per kind). Strings, numbers,
    floats and digit strings are refused by name, never converted."""
    size = len(counts)
    expected = f"a sequence of card kinds (ints 0..{size - 1}, top card first)"
    if isinstance(deck, np.ndarray):
        if deck.ndim != 1:
            raise TypeError(f"reset option 'deck' must be {expected}, got an array of shape {deck.shape}")
    elif isinstance(deck, (str, bytes)) or not isinstance(deck, Sequence):
        raise TypeError(f"reset option 'deck' must be {expected}, got {_short_repr(deck)}")
    given = [0] * size
    order = []
    for k in deck:
        if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)):
            raise TypeError(f"reset option 'deck' must be {expected}, got the entry {k!r}")
        if not 0 <= k < size:
            raise ValueError(f"reset option 'deck' must be {expected}, got the kind {k!r}")
        given[k] += 1
        order.append(int(k))
    if given != counts:
        raise ValueError(
            f"reset option 'deck': a stacked deck must hold exactly the {sum(counts)} cards of the packs "
            f"(counts per kind {counts}), got counts {given}"
        )
    return order


def _short_repr(value: object, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
