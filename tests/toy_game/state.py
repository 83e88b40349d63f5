"""The Toy Nim state: fields declared once; ``clone``, equality and pickling derive from them.

- ``pile``: the face-down pile, **top card last** (``list.pop()`` takes it).
- ``hands``: each seat's hand, hidden from the other seat.
- ``discards``: the cards discarded face up, in the order they came (public).
- ``unused``: the cards of the pack dealt out of the game, never seen.
- ``phase``: a ``Phase``; ``seat``: the seat to act (also during its discards).
- ``last_taker``: the seat that took the pile's last card (-1 until then).
"""

from __future__ import annotations

from enum import IntEnum

from empire_envs.core.state import LIST, LISTS, SHARED, VALUE, DeclaredState

from .config import ToyNimConfig

NUM_SEATS = 2


class Phase(IntEnum):
    """What the next decision is about (numbered 0, 1, 2, ...: ``core.phases.phase_table``)."""

    TAKE = 0
    DISCARD = 1
    OVER = 2


class ToyNimState(DeclaredState):
    #: every field and how ``clone()`` copies it; ``unused`` is replaced, never changed in place
    FIELDS = {
        "config": SHARED,
        "pile": LIST,
        "hands": LISTS,
        "discards": LIST,
        "unused": SHARED,
        "phase": VALUE,
        "seat": VALUE,
        "last_taker": VALUE,
    }
    __slots__ = tuple(FIELDS)

    def __init__(self, config: ToyNimConfig | None = None) -> None:
        self.config = config if config is not None else ToyNimConfig()
        self.pile: list[int] = []
        self.hands: list[list[int]] = [[] for _ in range(NUM_SEATS)]
        self.discards: list[int] = []
        self.unused: list[int] = []
        self.phase = Phase.TAKE
        self.seat = 0
        self.last_taker = -1

    def __repr__(self) -> str:
        return (
            f"ToyNimState(phase={Phase(self.phase).name}, seat={self.seat}, pile={len(self.pile)} cards, "
            f"hands={self.hands}, discards={self.discards})"
        )
