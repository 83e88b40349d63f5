"""Checks for ``reset(options=...)``: which keys a game takes, and the values of its deck options.

Every game reads its reset options through these functions, so a wrong value gets the same kind
of answer everywhere: the option's name in the message, raised before anything is dealt, and no
coercion. ``int("12")``, ``int(1.5)`` or iterating over ``"abc"`` would each turn a caller's
mistake into a different, silently random game. A value of the wrong kind (a string or a number
where a list belongs, a float or a bool where an integer belongs) raises ``TypeError``; a value
of the right kind that the game cannot use (a card out of range, a card listed twice, an
unreadable card name such as ``"12"``) raises ``ValueError``.
"""

from __future__ import annotations

import operator
import reprlib
from collections.abc import Collection, Mapping, Sequence
from typing import Any

import numpy as np

from .cards import NUM_CARDS, card_str, parse_card


class _ShortRepr(reprlib.Repr):
    """reprlib's abbreviations, and integers too long to print (Python refuses to turn one of
    more than 4,300 digits into text) described by their size."""

    def repr_int(self, x: int, level: int) -> str:
        if x.bit_length() > 128:
            return f"<int of {x.bit_length()} bits>"
        return super().repr_int(x, level)


#: keeps messages short when the bad value is a long list or a 5,000-digit number
_SHORT = _ShortRepr()
_SHORT.maxstring = 40
_SHORT.maxother = 40
_SHORT.maxlist = _SHORT.maxtuple = 8


def short_repr(value: Any) -> str:
    return _SHORT.repr(value)


def known_reset_options(
    options: Mapping[str, Any] | None,
    known: Collection[str],
    game_name: str,
    ignored: Collection[str] = (),
) -> dict[str, Any]:
    """The options a game's deal takes, from ``reset(options=...)``.

    ``None`` means no options. Anything but a mapping is a ``TypeError``; a key that is neither
    in ``known`` nor in ``ignored`` is a ``ValueError`` naming it, since a misspelt option would
    otherwise be dropped and the caller would get a random deal instead of the one asked for.
    Keys in ``ignored`` are accepted and left out of the result.
    """
    if options is None:
        return {}
    if not isinstance(options, Mapping):
        raise TypeError(f"reset options are a dict of option name -> value, got {short_repr(options)}")
    unknown = [key for key in options if key not in known and key not in ignored]
    if unknown:
        raise ValueError(
            f"unknown reset option(s) {sorted(map(str, unknown))}; {game_name} takes {sorted(known) or 'none'}"
        )
    return {key: value for key, value in options.items() if key in known}


def list_option(name: str, value: Any) -> list[Any]:
    """The entries of a list-valued option: a list, tuple, range or one-dimensional numpy array.

    A string is refused rather than read letter by letter; sets, dicts and iterators are refused
    because their order (which is the whole point of a stacked deck) is not the caller's.
    """
    if isinstance(value, (str, bytes, bytearray)):
        raise TypeError(f"reset option {name!r} is a list, not one string: got {short_repr(value)}")
    if isinstance(value, np.ndarray):
        if value.ndim != 1:
            raise TypeError(f"reset option {name!r} is a list; got a numpy array of shape {value.shape}")
        return value.tolist()
    if not isinstance(value, Sequence):
        raise TypeError(f"reset option {name!r} is a list or tuple, got {type(value).__name__} {short_repr(value)}")
    return list(value)


def integer_entry(name: str, position: int, item: Any) -> int:
    """An integer entry of an option, as a Python int: an ``int`` or a numpy integer, nothing that
    merely converts to one (bools, floats, digit strings)."""
    if not isinstance(item, (bool, np.bool_)):
        try:
            return operator.index(item)
        except TypeError:
            pass
    raise TypeError(
        f"reset option {name!r}: entry {position} must be an integer, "
        f"got {short_repr(item)} of type {type(item).__name__}"
    )


def index_list_option(name: str, value: Any, size: int) -> list[int]:
    """A list of integers in ``0 .. size - 1`` (a stacked deck of a game's own card ids)."""
    indices = []
    for position, item in enumerate(list_option(name, value)):
        index = integer_entry(name, position, item)
        if not 0 <= index < size:
            raise ValueError(f"reset option {name!r}: entry {position} is {short_repr(index)}, outside 0..{size - 1}")
        indices.append(index)
    return indices


def card_list_option(name: str, value: Any, *, distinct: bool = True) -> list[int]:
    """A list of cards of the standard pack (``core.cards``): names such as ``"QS"`` or ``"10h"``,
    or card indices 0..51. With ``distinct`` (one pack) a card listed twice is refused."""
    cards = []
    seen: set[int] = set()
    for position, item in enumerate(list_option(name, value)):
        card = _card_entry(name, position, item)
        if distinct and card in seen:
            raise ValueError(f"reset option {name!r} lists {card_str(card)} twice (entry {position})")
        seen.add(card)
        cards.append(card)
    return cards


def seat_option(name: str, value: Any, num_seats: int) -> int:
    """A seat index ``0 .. num_seats - 1`` (an option such as ``first_player``)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(
            f"reset option {name!r} is a seat index 0..{num_seats - 1}, got {short_repr(value)} "
            f"of type {type(value).__name__}"
        )
    if not 0 <= value < num_seats:
        raise ValueError(f"reset option {name!r} is a seat index 0..{num_seats - 1}, got {short_repr(value)}")
    return int(value)


def _card_entry(name: str, position: int, item: Any) -> int:
    if isinstance(item, str):
        try:
            return parse_card(item)
        except ValueError as error:
            raise ValueError(f"reset option {name!r}: entry {position}: {error}") from None
    try:
        index = integer_entry(name, position, item)
    except TypeError:
        raise TypeError(
            f"reset option {name!r}: entry {position} must be a card such as 'QS' or a card index "
            f"0..{NUM_CARDS - 1}, got {short_repr(item)} of type {type(item).__name__}"
        ) from None
    if not 0 <= index < NUM_CARDS:
        raise ValueError(f"reset option {name!r}: entry {position} is {short_repr(index)}, not a card index 0..51")
    return index
