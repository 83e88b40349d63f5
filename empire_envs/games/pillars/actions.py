"""The Pillars action table: ``int <-> Action(kind, a, b)``.

``K`` is the number of card kinds: {rank_kinds} by default (``2..10, J, Q, K, A, Joker``
at 0..{last_rank_kind}), {card_kinds} with ``battle_demand="card"``. A seat offset
``o = 1..{max_offset}`` is "the o-th player clockwise from the acting seat"; offsets beyond
``n - 1`` are always masked, so one network fits 3 to 6 players. The table below is the default
(``K = {rank_kinds}``, {num_actions} actions; ``{fixed} + {per_kind}K`` in general,
{card_actions} for the card game, whose ranges keep this order).

{action_table}
"""

# The docstring above is a template: its sizes and its table are written from the layout below
# (``blocks`` and ``BlockLayout.doc_table``), so the indices a reader sees are the ones the code
# uses.

from __future__ import annotations

import re
import textwrap
from collections.abc import Iterable
from enum import IntEnum
from typing import NamedTuple

from ...core.action_table import Argument, Block, BlockLayout
from ...core.game import seat_offset_name
from .state import (
    CARD_KINDS,
    CARDS_PER_PILLAR,
    NUM_PILLAR_RANKS,
    PILLAR_RANK_LABELS,
    RANK_KINDS,
    THROW_NAMES,
    KindSet,
    Phase,
)

#: seat offsets 1..MAX_OFFSET: the other seats of the largest table (6 players)
MAX_OFFSET = 5
#: a pillar may hold 0..MAX_JOKERS Jokers (four Jokers make a pillar on their own)
MAX_JOKERS = CARDS_PER_PILLAR
OFFSETS = range(1, MAX_OFFSET + 1)


class Kind(IntEnum):
    """The kinds of action, in the order of their index blocks."""

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


def blocks(kinds: KindSet) -> tuple[Block, ...]:
    """The action table of one kind set, block by block in index order (the first argument
    varies slowest): the one declaration its indices, sizes and docstring table follow from. The
    BATTLE row writes its own index formula (``{start}``: the block's first index), as its
    offset counts from 1; the layout appends one to the two-argument rows that count from 0."""
    offset, kind = Argument("o", MAX_OFFSET, first=1), Argument("k", kinds.size)
    ranks = f"{PILLAR_RANK_LABELS[0]}..{PILLAR_RANK_LABELS[-1]} as 0..{NUM_PILLAR_RANKS - 1}"
    return (
        Block(Kind.STEAL, (offset,), "take the top card of seat offset o's discard pile"),
        Block(Kind.TRADE, (kind,), "start a trade by tabling one card of kind k"),
        Block(
            Kind.BATTLE,
            (offset, kind),
            f"battle seat offset o demanding kind k (index {{start}} + {kinds.size}(o-1) + k)",
        ),
        Block(
            Kind.PILLAR,
            (Argument("r", NUM_PILLAR_RANKS), Argument("j", MAX_JOKERS + 1)),
            f"lay a pillar of rank r ({ranks}) with j jokers",
        ),
        Block(Kind.END_BUILD, (), "end the build phase (and skip the main action if optional)"),
        Block(Kind.DISCARD, (kind,), "discard one card of kind k, ending the turn"),
        Block(Kind.SKIP, (offset,), "give seat offset o a pending skip"),
        Block(Kind.NO_SKIP, (), "give no one a skip"),
        Block(Kind.OFFER, (kind,), "offer one card of kind k to the open trade"),
        Block(Kind.PICK, (offset,), "take the offer of seat offset o"),
        Block(Kind.THROW, (Argument("t", len(THROW_NAMES)),), "rock, paper or scissors"),
    )


class ActionLayout(BlockLayout):
    """The action table of one kind set, laid out from ``blocks(kinds)``: each block's first
    index is ``starts[Kind.X]``, its indices ``block_range(Kind.X)``, an action's index
    ``index(Kind.X, ...)``; ``end_build`` and ``no_skip`` are the indices of the two actions
    without arguments.
    """

    def __init__(self, kinds: KindSet) -> None:
        super().__init__("Pillars", Kind, Action, blocks(kinds))
        self.kinds = kinds
        #: the structured action of each index: ``decode`` without its checks, for the rules
        self.actions: tuple[Action, ...] = self.table.actions
        # the BATTLE row's meaning names its block's first index (``blocks``), known from here on
        self.blocks = tuple(
            block._replace(meaning=block.meaning.format(start=self.starts[block.kind])) for block in self.blocks
        )
        self._battle_ranges = {
            n: range(self.starts[Kind.BATTLE], self.index(Kind.BATTLE, n - 1, kinds.size - 1) + 1)
            for n in range(2, MAX_OFFSET + 2)
        }
        self.end_build = self.index(Kind.END_BUILD)
        self.no_skip = self.index(Kind.NO_SKIP)

    def of_kind(self, kind: Kind, actions: Iterable[int]) -> list[int]:
        """The indices among ``actions`` that are ``kind`` actions, in their order."""
        block = self.block_range(kind)
        return [action for action in actions if action in block]

    def battle_range(self, n: int) -> range:
        """Every battle against the other seats of an ``n``-seat table (offsets 1..n-1, any kind)."""
        return self._battle_ranges[n]

    # Index helpers, for the call sites that name one action (offsets 1..5, kinds 0..K-1, pillar
    # ranks 0..11, jokers 0..4).
    def steal_index(self, offset: int) -> int:
        return self.index(Kind.STEAL, offset)

    def trade_index(self, kind: int) -> int:
        return self.index(Kind.TRADE, kind)

    def battle_index(self, offset: int, kind: int) -> int:
        return self.index(Kind.BATTLE, offset, kind)

    def pillar_index(self, rank: int, jokers: int) -> int:
        return self.index(Kind.PILLAR, rank, jokers)

    def discard_index(self, kind: int) -> int:
        return self.index(Kind.DISCARD, kind)

    def skip_index(self, offset: int) -> int:
        return self.index(Kind.SKIP, offset)

    def offer_index(self, kind: int) -> int:
        return self.index(Kind.OFFER, kind)

    def pick_index(self, offset: int) -> int:
        return self.index(Kind.PICK, offset)

    def throw_index(self, throw: int) -> int:
        return self.index(Kind.THROW, throw)

    def decode(self, index: int) -> Action:
        return self.table.decode(index)

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
NUM_ACTIONS = RANK_LAYOUT.size  # the default game's action count


def layout_for(kinds: KindSet) -> ActionLayout:
    return RANK_LAYOUT if kinds.size == RANK_KINDS.size else CARD_LAYOUT


# --------------------------------------------------------------------------- the docstring


def _docstring(template: str) -> str:
    """The module docstring: the template's prose with the layouts' sizes, wrapped again at 96
    columns, then the table of the default layout."""
    per_kind = (CARD_LAYOUT.size - RANK_LAYOUT.size) // (CARD_KINDS.size - RANK_KINDS.size)
    prose = template.partition("{action_table}")[0].format(
        rank_kinds=RANK_KINDS.size,
        last_rank_kind=RANK_KINDS.size - 1,
        card_kinds=CARD_KINDS.size,
        max_offset=MAX_OFFSET,
        num_actions=RANK_LAYOUT.size,
        fixed=RANK_LAYOUT.size - per_kind * RANK_KINDS.size,
        per_kind=per_kind,
        card_actions=CARD_LAYOUT.size,
    )
    paragraphs = [_fill(paragraph) for paragraph in prose.strip().split("\n\n")]
    return "\n\n".join([*paragraphs, RANK_LAYOUT.doc_table()]) + "\n"


_LITERAL = re.compile(r"``[^`]*``")
_KEEP_TOGETHER = "\x00"  # stands for a space inside a ``literal`` while the lines are filled


def _fill(paragraph: str) -> str:
    joined = _LITERAL.sub(lambda literal: literal.group(0).replace(" ", _KEEP_TOGETHER), " ".join(paragraph.split()))
    return textwrap.fill(joined, width=96, break_long_words=False, break_on_hyphens=False).replace(_KEEP_TOGETHER, " ")


if __doc__:  # absent under ``python -OO``
    __doc__ = _docstring(__doc__)


def announce_action(state, seat: int, action: int, viewer: int, reveal: bool = False) -> str:
    """The name of ``seat``'s ``action`` as seat ``viewer`` may be told it before it is played
    (``Game.announce_action``). Every move is public but two sealed commitments: a trade
    ``OFFER``, hidden until every offer is in, and the attacker's rock-paper-scissors ``THROW``,
    hidden until the defender has thrown (the defender's throw shows both, so it is named). A seat
    offset is followed by the seat it points at. ``state`` may be a campaign's: its current game
    is read."""
    game = getattr(state, "game", state)
    kind, offset, _ = layout_for(game.kinds).decode(action)
    if not reveal and kind is Kind.OFFER:
        return "OFFER (sealed)"
    if not reveal and kind is Kind.THROW and game.phase == Phase.RPS_ATTACKER:
        return "THROW (sealed)"
    name = layout_for(game.kinds).name(action)
    if kind in (Kind.STEAL, Kind.BATTLE, Kind.SKIP, Kind.PICK):
        name += f" ({seat_offset_name(seat, offset, viewer, game.n)})"
    return name
