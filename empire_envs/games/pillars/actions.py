"""The Pillars action table: ``int <-> Action(kind, a, b)``.

``K`` is the number of card kinds: 14 by default (``2..10, J, Q, K, A, Joker`` at 0..13), 53
with ``battle_demand="card"``. A seat offset ``o = 1..5`` is "the o-th player clockwise from the
acting seat"; offsets beyond ``n - 1`` are always masked, so one network fits 3 to 6 players.
The table below is the default (``K = 14``, 192 actions; ``80 + 8K`` in general, 504 for the
card game, whose ranges keep this order).

==========  ================  ===============================================================
index       action            meaning
==========  ================  ===============================================================
0-4         STEAL(o)          take the top card of seat offset o's discard pile
5-18        TRADE(k)          start a trade by tabling one card of kind k
19-88       BATTLE(o, k)      battle seat offset o demanding kind k (index 19 + 14(o-1) + k)
89-148      PILLAR(r, j)      lay a pillar of rank r (3..A as 0..11) with j jokers (89 + 5r + j)
149         END_BUILD         end the build phase (and skip the main action if optional)
150-163     DISCARD(k)        discard one card of kind k, ending the turn
164-168     SKIP(o)           give seat offset o a pending skip
169         NO_SKIP           give no one a skip
170-183     OFFER(k)          offer one card of kind k to the open trade
184-188     PICK(o)           take the offer of seat offset o
189-191     THROW(t)          rock, paper or scissors
==========  ================  ===============================================================
"""

from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple

from ...core.action_table import ActionTable
from .state import CARD_KINDS, NUM_PILLAR_RANKS, PILLAR_RANK_LABELS, RANK_KINDS, THROW_NAMES, KindSet

MAX_OFFSET = 5
MAX_JOKERS = 4


class Kind(IntEnum):
    STEAL = 0
    TRADE = 1
    BATTLE = 2
    PILLAR = 3
    END_BUILD = 4
    DISCARD = 5
    SKIP = 6
    NO_SKIP = 7
    OFFER = 8
    PICK = 9
    THROW = 10


class Action(NamedTuple):
    """A structured action; unused arguments are -1."""

    kind: Kind
    a: int = -1
    b: int = -1


class ActionLayout:
    """The index ranges of one kind set, and its ``ActionTable``."""

    def __init__(self, kinds: KindSet) -> None:
        k = kinds.size
        self.kinds = kinds
        self.steal = 0
        self.trade = self.steal + MAX_OFFSET
        self.battle = self.trade + k
        self.pillar = self.battle + MAX_OFFSET * k
        self.end_build = self.pillar + NUM_PILLAR_RANKS * (MAX_JOKERS + 1)
        self.discard = self.end_build + 1
        self.skip = self.discard + k
        self.no_skip = self.skip + MAX_OFFSET
        self.offer = self.no_skip + 1
        self.pick = self.offer + k
        self.throw = self.pick + MAX_OFFSET
        self.size = self.throw + 3
        table = [Action(Kind.STEAL, o) for o in range(1, MAX_OFFSET + 1)]
        table += [Action(Kind.TRADE, kind) for kind in range(k)]
        table += [Action(Kind.BATTLE, o, kind) for o in range(1, MAX_OFFSET + 1) for kind in range(k)]
        table += [Action(Kind.PILLAR, r, j) for r in range(NUM_PILLAR_RANKS) for j in range(MAX_JOKERS + 1)]
        table += [Action(Kind.END_BUILD)]
        table += [Action(Kind.DISCARD, kind) for kind in range(k)]
        table += [Action(Kind.SKIP, o) for o in range(1, MAX_OFFSET + 1)]
        table += [Action(Kind.NO_SKIP)]
        table += [Action(Kind.OFFER, kind) for kind in range(k)]
        table += [Action(Kind.PICK, o) for o in range(1, MAX_OFFSET + 1)]
        table += [Action(Kind.THROW, t) for t in range(3)]
        self.table = ActionTable("Pillars", Kind, Action, table)
        assert self.table.size == self.size == 80 + 8 * k

    # Index helpers: offsets are 1..5, kinds 0..K-1, pillar ranks 0..11, jokers 0..4.
    def steal_index(self, offset: int) -> int:
        return self.steal + offset - 1

    def trade_index(self, kind: int) -> int:
        return self.trade + kind

    def battle_index(self, offset: int, kind: int) -> int:
        return self.battle + (offset - 1) * self.kinds.size + kind

    def pillar_index(self, rank: int, jokers: int) -> int:
        return self.pillar + (MAX_JOKERS + 1) * rank + jokers

    def discard_index(self, kind: int) -> int:
        return self.discard + kind

    def skip_index(self, offset: int) -> int:
        return self.skip + offset - 1

    def offer_index(self, kind: int) -> int:
        return self.offer + kind

    def pick_index(self, offset: int) -> int:
        return self.pick + offset - 1

    def throw_index(self, throw: int) -> int:
        return self.throw + throw

    def decode(self, index: int) -> Action:
        return self.table.decode(index)

    def encode(self, action) -> int:
        return self.table.encode(action)

    def name(self, index: int) -> str:
        """A short readable name, e.g. ``"BATTLE +2 for 7"`` or ``"PILLAR 9 (1 joker)"``."""
        kind, a, b = self.decode(index)
        labels = self.kinds.labels
        if kind in (Kind.STEAL, Kind.SKIP, Kind.PICK):
            return f"{kind.name} +{a}"
        if kind in (Kind.TRADE, Kind.DISCARD, Kind.OFFER):
            return f"{kind.name} {labels[a]}"
        if kind is Kind.BATTLE:
            return f"BATTLE +{a} for {labels[b]}"
        if kind is Kind.PILLAR:
            return f"PILLAR {PILLAR_RANK_LABELS[a]} ({b} joker{'s' if b != 1 else ''})"
        if kind is Kind.THROW:
            return f"THROW {THROW_NAMES[a]}"
        return kind.name


RANK_LAYOUT = ActionLayout(RANK_KINDS)
CARD_LAYOUT = ActionLayout(CARD_KINDS)
NUM_ACTIONS = RANK_LAYOUT.size  # the default game's action count (192)


def layout_for(kinds: KindSet) -> ActionLayout:
    return RANK_LAYOUT if kinds.size == RANK_KINDS.size else CARD_LAYOUT
