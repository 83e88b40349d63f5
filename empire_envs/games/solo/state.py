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

from ...core.phases import GamePhase
from ...core.state import LIST, SHARED, VALUE, DeclaredState
from .config import SoloConfig

NUM_TERRITORIES = 6
KEEPS = (0, 1, 2)
OUTPOSTS = (3, 4, 5)

# Unit kinds, in growth order.
EMPTY, SOLDIER, SUPER, BATTALION, NATIVE, BUILDER, BASE = range(7)
UNIT_NAMES = ("empty", "soldier", "super soldier", "battalion", "native", "base builder", "base")
NUM_UNIT_KINDS = len(UNIT_NAMES)


class Phase(GamePhase):
    """What the next decision is about; ``OVER`` once the episode has ended."""

    ORGANIZE = 0
    REACT = 1
    KING_MODE = 2
    SEND = 3
    OVER = 4


# The members under their bare names, as the rules compare with them on the hot path (a module
# constant is read several times faster than an enum attribute such as ``Phase.SEND``).
ORGANIZE = Phase.ORGANIZE
REACT = Phase.REACT
KING_MODE = Phase.KING_MODE
SEND = Phase.SEND
OVER = Phase.OVER
#: each phase's label, in phase order (the observation's one-hot block)
PHASE_NAMES = tuple(phase.label for phase in Phase)

# King round modes.
NO_MODE, SUM, SPLIT = range(3)

# How an episode ended.
ONGOING, WON, LOST, TRUNCATED = range(4)
OUTCOME_NAMES = ("ongoing", "won", "lost", "truncated")

#: A base beats any enemy: its battle value is larger than any sum of cards.
BASE_VALUE = 1000


class SoloState(DeclaredState):
    """Mutable game state. Build one with ``rules.new_game`` or field by field in tests."""

    #: every field and how ``clone()`` copies it (``core.state``); tuples in ``unit_cards`` are
    #: immutable, so a copy of the list is exact
    FIELDS = {
        "config": SHARED,
        "unit_kind": LIST,
        "unit_cards": LIST,
        "recruit": LIST,
        "deck": LIST,
        "discard": LIST,
        "drawn": VALUE,
        "phase": VALUE,
        "attacker": VALUE,
        "enemies": LIST,
        "mode": VALUE,
        "split_first_won": VALUE,
        "sent": LIST,
        "rounds_lost": VALUE,
        "draws": VALUE,
        "outcome": VALUE,
        "shaping_paid": VALUE,
    }
    __slots__ = tuple(FIELDS)

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
            f"SoloState(phase={Phase(self.phase).label!r}, drawn={self.drawn}, units=[{units}], "
            f"attacker={self.attacker}, enemies={self.enemies}, sent={self.sent}, deck={len(self.deck)} cards, "
            f"discard={self.discard}, draws={self.draws}, outcome={OUTCOME_NAMES[self.outcome]!r})"
        )
