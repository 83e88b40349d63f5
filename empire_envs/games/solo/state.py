"""The Empire solo game state: plain data and a cheap, exact ``clone()``.

Zones (every one of the 52 cards is in exactly one of them):

- ``deck``: face-down draw pile; the **top card is the last element** (``list.pop()`` draws).
- ``discard``: the discard pile, in the order cards arrived.
- the board: six territories ``0..5`` (0-2 keeps, 3-5 outposts). Territory ``t`` holds
  ``unit_kind[t]``, its body cards ``unit_cards[t]`` (a tuple) and ``recruit[t]`` (a card or -1).
- ``drawn``: the card drawn this turn and waiting for a reaction (-1 when none).
- the battle: ``attacker`` (the J/Q/K being fought, -1 when none), ``enemies`` (the current
  round's revealed enemy cards) and ``sent`` (cards of units sent this round).
"""

from __future__ import annotations

from .config import SoloConfig

NUM_TERRITORIES = 6
KEEPS = (0, 1, 2)
OUTPOSTS = (3, 4, 5)

# Unit kinds, in growth order.
EMPTY, SOLDIER, SUPER, BATTALION, NATIVE, BUILDER, BASE = range(7)
UNIT_NAMES = ("empty", "soldier", "super soldier", "battalion", "native", "base builder", "base")
NUM_UNIT_KINDS = len(UNIT_NAMES)

# Phases: what the next decision is about.
ORGANIZE, REACT, KING_MODE, SEND, OVER = range(5)
PHASE_NAMES = ("organize", "react", "king mode", "send", "over")

# King round modes.
NO_MODE, SUM, SPLIT = range(3)

# How an episode ended.
ONGOING, WON, LOST, TRUNCATED = range(4)
OUTCOME_NAMES = ("ongoing", "won", "lost", "truncated")

#: A base beats any enemy: its battle value is larger than any sum of cards.
BASE_VALUE = 1000


class SoloState:
    """Mutable game state. Build one with ``rules.new_game`` or field by field in tests."""

    __slots__ = (
        "config",
        "unit_kind",
        "unit_cards",
        "recruit",
        "deck",
        "discard",
        "drawn",
        "phase",
        "attacker",
        "enemies",
        "mode",
        "split_first_won",
        "sent",
        "rounds_lost",
        "draws",
        "outcome",
        "shaping_paid",
    )

    def __init__(self, config: SoloConfig | None = None) -> None:
        self.config = config if config is not None else SoloConfig()
        self.unit_kind = [EMPTY] * NUM_TERRITORIES
        self.unit_cards: list[tuple[int, ...]] = [()] * NUM_TERRITORIES
        self.recruit = [-1] * NUM_TERRITORIES
        self.deck: list[int] = []
        self.discard: list[int] = []
        self.drawn = -1
        self.phase = ORGANIZE
        self.attacker = -1
        self.enemies: list[int] = []
        self.mode = NO_MODE
        self.split_first_won = -1  # SPLIT: -1 first enemy not fought yet, 0 lost, 1 won
        self.sent: list[int] = []
        self.rounds_lost = 0
        self.draws = 0
        self.outcome = ONGOING
        self.shaping_paid = 0.0

    def clone(self) -> SoloState:
        other = SoloState.__new__(SoloState)
        other.config = self.config
        other.unit_kind = self.unit_kind[:]
        other.unit_cards = self.unit_cards[:]  # tuples are immutable: a shallow copy is exact
        other.recruit = self.recruit[:]
        other.deck = self.deck[:]
        other.discard = self.discard[:]
        other.drawn = self.drawn
        other.phase = self.phase
        other.attacker = self.attacker
        other.enemies = self.enemies[:]
        other.mode = self.mode
        other.split_first_won = self.split_first_won
        other.sent = self.sent[:]
        other.rounds_lost = self.rounds_lost
        other.draws = self.draws
        other.outcome = self.outcome
        other.shaping_paid = self.shaping_paid
        return other

    # Plain-data equality and pickling: the state is a value.
    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SoloState):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in self.__slots__)

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __getstate__(self) -> dict:
        return {name: getattr(self, name) for name in self.__slots__}

    def __setstate__(self, data: dict) -> None:
        for name in self.__slots__:
            setattr(self, name, data[name])

    def board_cards(self) -> list[int]:
        """Every card on the board (unit bodies and recruits)."""
        cards: list[int] = []
        for t in range(NUM_TERRITORIES):
            cards.extend(self.unit_cards[t])
            if self.recruit[t] >= 0:
                cards.append(self.recruit[t])
        return cards

    def battle_cards(self) -> list[int]:
        """Cards in the battle area: the attacker, revealed enemies and units sent this round."""
        cards = [self.attacker] if self.attacker >= 0 else []
        return cards + self.enemies + self.sent

    def num_bases(self) -> int:
        return self.unit_kind.count(BASE)

    def __repr__(self) -> str:
        # the fields, not the picture (render.to_text draws the board): state stays below render
        units = ", ".join(
            f"{t}:{UNIT_NAMES[kind]}{list(self.unit_cards[t])}"
            + (f"+{self.recruit[t]}" if self.recruit[t] >= 0 else "")
            for t, kind in enumerate(self.unit_kind)
            if kind != EMPTY
        )
        return (
            f"SoloState(phase={PHASE_NAMES[self.phase]!r}, drawn={self.drawn}, units=[{units}], "
            f"attacker={self.attacker}, enemies={self.enemies}, sent={self.sent}, deck={len(self.deck)} cards, "
            f"discard={self.discard}, draws={self.draws}, outcome={OUTCOME_NAMES[self.outcome]!r})"
        )
