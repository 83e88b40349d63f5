"""State builders and checks shared by the Empire solo tests.

A territory is written compactly (cards as ``parse_card`` reads them, joined by ``+``):

========================  ===========================================================
text                      unit
========================  ===========================================================
``""`` or ``"-"``         empty
``"7S"``                  soldier
``"3S+4H"``               super soldier (2 soldiers)
``"2C+3C+4C+5C"``         battalion (4 soldiers)
``"N:QS"``                native with host QS, no recruit
``"N:QS+7D"``             native with host QS and recruit 7D
``"X:QS+7D+KC+8H"``       base builder (host, recruit, host, recruit)
``"B:AC"``                base with host AC, no recruit
``"B:AC+KH"``             base with host AC and recruit KH
========================  ===========================================================

Decks are given **top card first** (the engine keeps the top card at the end of the list).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import pytest

from empire_envs.core.cards import NUM_CARDS, card_str, parse_card, parse_cards
from empire_envs.core.errors import IllegalActionError
from empire_envs.games.solo import rules
from empire_envs.games.solo.config import SoloConfig
from empire_envs.games.solo.state import (
    BASE,
    BATTALION,
    BUILDER,
    EMPTY,
    NATIVE,
    NO_MODE,
    NUM_TERRITORIES,
    ORGANIZE,
    REACT,
    SOLDIER,
    SUPER,
    SoloState,
)

_PREFIX_KIND = {"N": NATIVE, "X": BUILDER, "B": BASE}
_KIND_PREFIX = {kind: prefix for prefix, kind in _PREFIX_KIND.items()}
_SOLDIER_KINDS = {1: SOLDIER, 2: SUPER, 4: BATTALION}


def c(text: str) -> int:
    """One card index: ``c("QS")``."""
    return parse_card(text)


def cs(*texts: str) -> list[int]:
    """Card indices: ``cs("QS", "7H")``."""
    return parse_cards(list(texts))


def parse_unit(text: str | None) -> tuple[int, tuple[int, ...], int]:
    """``(kind, body cards, recruit or -1)`` of one compact territory text."""
    if text is None or text.strip() in ("", "-"):
        return EMPTY, (), -1
    text = text.strip()
    if ":" in text:
        prefix, rest = text.split(":", 1)
        kind = _PREFIX_KIND[prefix.strip().upper()]
        cards = parse_cards([part for part in rest.split("+")])
        if kind == BUILDER:
            if len(cards) != 4:
                raise ValueError(f"a base builder has 4 cards: {text!r}")
            return BUILDER, tuple(cards), -1
        if len(cards) not in (1, 2):
            raise ValueError(f"a native or base is a host and at most one recruit: {text!r}")
        return kind, (cards[0],), cards[1] if len(cards) == 2 else -1
    cards = parse_cards(text.split("+"))
    if len(cards) not in _SOLDIER_KINDS or not all(rules.IS_SOLDIER[card] for card in cards):
        raise ValueError(f"a soldier unit is 1, 2 or 4 soldiers: {text!r}")
    return _SOLDIER_KINDS[len(cards)], tuple(cards), -1


def unit_text(state: SoloState, t: int) -> str:
    """The compact text of territory ``t`` (the inverse of ``parse_unit``)."""
    kind = state.unit_kind[t]
    if kind == EMPTY:
        return ""
    cards = list(state.unit_cards[t])
    if state.recruit[t] >= 0:
        cards.append(state.recruit[t])
    body = "+".join(card_str(card) for card in cards)
    prefix = _KIND_PREFIX.get(kind)
    return f"{prefix}:{body}" if prefix else body


def board(state: SoloState) -> list[str]:
    """The six territories as compact texts, e.g. ``["7S", "", "N:QS+7D", "", "", "B:AC"]``."""
    return [unit_text(state, t) for t in range(NUM_TERRITORIES)]


def build_state(
    territories: Sequence[str | None] | dict[int, str] = (),
    *,
    deck: Iterable[str] = (),
    drawn: str | None = None,
    phase: int | None = None,
    discard: Iterable[str] = (),
    rest: str | None = "deck",
    attacker: str | None = None,
    enemies: Iterable[str] = (),
    mode: int = NO_MODE,
    split_first_won: int = -1,
    sent: Iterable[str] = (),
    rounds_lost: int = 0,
    draws: int = 0,
    config: SoloConfig | None = None,
    **config_kwargs,
) -> SoloState:
    """A state built field by field.

    ``territories``: up to six compact texts (a list for 0.., or a dict ``{t: text}``).
    ``deck``: cards top first. ``rest``: where the cards not named anywhere go, so that all 52
    are accounted for: ``"deck"`` (beneath the named deck cards, in card index order),
    ``"discard"``, or ``None`` (left out: a partial state). ``phase`` defaults to REACT when a
    card is drawn, else ORGANIZE. Extra keyword arguments build the ``SoloConfig``.
    """
    if config is None:
        config = SoloConfig(**config_kwargs)
    elif config_kwargs:
        raise TypeError("give either config or config keyword arguments")
    state = SoloState(config)
    if isinstance(territories, dict):
        texts: list[str | None] = [territories.get(t) for t in range(NUM_TERRITORIES)]
    else:
        texts = list(territories) + [None] * (NUM_TERRITORIES - len(territories))
    if len(texts) != NUM_TERRITORIES:
        raise ValueError("six territories at most")
    for t, text in enumerate(texts):
        kind, cards, recruit = parse_unit(text)
        state.unit_kind[t], state.unit_cards[t], state.recruit[t] = kind, cards, recruit
    deck_top_first = parse_cards(list(deck))
    state.discard = parse_cards(list(discard))
    state.drawn = parse_card(drawn) if drawn is not None else -1
    state.attacker = parse_card(attacker) if attacker is not None else -1
    state.enemies = parse_cards(list(enemies))
    state.sent = parse_cards(list(sent))
    state.mode = mode
    state.split_first_won = split_first_won
    state.rounds_lost = rounds_lost
    state.draws = draws
    state.phase = phase if phase is not None else (REACT if drawn is not None else ORGANIZE)

    named = (
        state.board_cards() + deck_top_first + state.discard + state.battle_cards()
        + ([state.drawn] if state.drawn >= 0 else [])
    )
    if len(named) != len(set(named)):
        raise ValueError("a card is named twice")
    leftover = [card for card in range(NUM_CARDS) if card not in set(named)]
    if rest == "deck":
        deck_top_first = deck_top_first + leftover
    elif rest == "discard":
        state.discard = state.discard + leftover
    elif rest is not None:
        raise ValueError(f"rest must be 'deck', 'discard' or None, got {rest!r}")
    state.deck = deck_top_first[::-1]  # the engine's top card is the last element
    return state


def deck_top_first(state: SoloState) -> list[int]:
    return state.deck[::-1]


def all_cards(state: SoloState) -> list[int]:
    """Every card in every zone, sorted (52 distinct cards in a complete state)."""
    cards = state.board_cards() + state.deck + state.discard + state.battle_cards()
    if state.drawn >= 0:
        cards.append(state.drawn)
    return sorted(cards)


def assert_conserved(state: SoloState) -> None:
    assert all_cards(state) == list(range(NUM_CARDS))


def assert_illegal(state: SoloState, action: int) -> None:
    """``action`` is not offered, raises ``IllegalActionError`` and leaves ``state`` unchanged."""
    assert action not in rules.legal_actions(state)
    before = state.clone()
    with pytest.raises(IllegalActionError):
        rules.apply_action(state, action, 0)
    assert state == before


def play(state: SoloState, *actions: int, rng=0) -> list[float]:
    """Apply legal ``actions`` in order (each must be in ``legal_actions``); the rewards."""
    rewards = []
    for action in actions:
        legal = rules.legal_actions(state)
        assert action in legal, f"{action} not legal; legal: {legal}"
        rewards.append(rules.apply_action(state, action, rng)[0])
    return rewards
