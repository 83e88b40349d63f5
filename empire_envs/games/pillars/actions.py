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
# (``describe``), so the indices a reader sees are the ones the code uses.

from __future__ import annotations

import re
import textwrap
from enum import IntEnum
from typing import NamedTuple

from ...core.action_table import ActionTable
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


def block_arguments(num_kinds: int) -> dict[Kind, list[tuple[int, ...]]]:
    """The arguments of every action of each kind, in index order (the first argument varies
    slowest): the one declaration the blocks' sizes and offsets follow from."""
    cards = range(num_kinds)
    return {
        Kind.STEAL: [(o,) for o in OFFSETS],
        Kind.TRADE: [(k,) for k in cards],
        Kind.BATTLE: [(o, k) for o in OFFSETS for k in cards],
        Kind.PILLAR: [(r, j) for r in range(NUM_PILLAR_RANKS) for j in range(MAX_JOKERS + 1)],
        Kind.END_BUILD: [()],
        Kind.DISCARD: [(k,) for k in cards],
        Kind.SKIP: [(o,) for o in OFFSETS],
        Kind.NO_SKIP: [()],
        Kind.OFFER: [(k,) for k in cards],
        Kind.PICK: [(o,) for o in OFFSETS],
        Kind.THROW: [(t,) for t in range(len(THROW_NAMES))],
    }


class ActionLayout:
    """The index blocks of one kind set (one per ``Kind``, in ``Kind`` order) and its
    ``ActionTable``. ``steal``, ``trade``, ... ``throw`` are the blocks' first indices."""

    def __init__(self, kinds: KindSet) -> None:
        self.kinds = kinds
        arguments = block_arguments(kinds.size)
        actions = [Action(kind, *args) for kind in Kind for args in arguments[kind]]
        self.table = ActionTable("Pillars", Kind, Action, actions)
        self.size = self.table.size
        self.blocks: dict[Kind, range] = {}
        start = 0
        for kind in Kind:
            self.blocks[kind] = range(start, start + len(arguments[kind]))
            start += len(arguments[kind])
        first = {kind: block.start for kind, block in self.blocks.items()}
        self.steal = first[Kind.STEAL]
        self.trade = first[Kind.TRADE]
        self.battle = first[Kind.BATTLE]
        self.pillar = first[Kind.PILLAR]
        self.end_build = first[Kind.END_BUILD]
        self.discard = first[Kind.DISCARD]
        self.skip = first[Kind.SKIP]
        self.no_skip = first[Kind.NO_SKIP]
        self.offer = first[Kind.OFFER]
        self.pick = first[Kind.PICK]
        self.throw = first[Kind.THROW]

    # Index helpers: offsets are 1..5, kinds 0..K-1, pillar ranks 0..11, jokers 0..4 (the
    # argument order of ``block_arguments``; tests check them against the table).
    def steal_index(self, offset: int) -> int:
        return self.steal + offset - 1

    def trade_index(self, kind: int) -> int:
        return self.trade + kind

    def battle_index(self, offset: int, kind: int) -> int:
        return self.battle + (offset - 1) * self.kinds.size + kind

    def battle_range(self, n: int) -> range:
        """Every battle against the other seats of an ``n``-seat table (offsets 1..n-1, any kind)."""
        return range(self.battle, self.battle + (n - 1) * self.kinds.size)

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
NUM_ACTIONS = RANK_LAYOUT.size  # the default game's action count


def layout_for(kinds: KindSet) -> ActionLayout:
    return RANK_LAYOUT if kinds.size == RANK_KINDS.size else CARD_LAYOUT


# --------------------------------------------------------------------------- the docstring table

#: how the docstring table writes each kind of action and what it does; ``{start}`` is the
#: block's first index, ``{k}`` the number of kinds, ``{jokers}`` the PILLAR block's stride
MEANINGS: dict[Kind, tuple[str, str]] = {
    Kind.STEAL: ("STEAL(o)", "take the top card of seat offset o's discard pile"),
    Kind.TRADE: ("TRADE(k)", "start a trade by tabling one card of kind k"),
    Kind.BATTLE: ("BATTLE(o, k)", "battle seat offset o demanding kind k (index {start} + {k}(o-1) + k)"),
    Kind.PILLAR: (
        "PILLAR(r, j)",
        "lay a pillar of rank r ({lowest}..{highest} as 0..{last_rank}) with j jokers ({start} + {jokers}r + j)",
    ),
    Kind.END_BUILD: ("END_BUILD", "end the build phase (and skip the main action if optional)"),
    Kind.DISCARD: ("DISCARD(k)", "discard one card of kind k, ending the turn"),
    Kind.SKIP: ("SKIP(o)", "give seat offset o a pending skip"),
    Kind.NO_SKIP: ("NO_SKIP", "give no one a skip"),
    Kind.OFFER: ("OFFER(k)", "offer one card of kind k to the open trade"),
    Kind.PICK: ("PICK(o)", "take the offer of seat offset o"),
    Kind.THROW: ("THROW(t)", "rock, paper or scissors"),
}
_COLUMN_WIDTHS = (10, 16, 63)


def describe(lay: ActionLayout) -> str:
    """The layout as a reST table: each block's indices, how it is written, what it does."""
    rule = "  ".join("=" * width for width in _COLUMN_WIDTHS)
    lines = [rule, _row("index", "action", "meaning"), rule]
    for kind, block in lay.blocks.items():
        indices = str(block.start) if len(block) == 1 else f"{block.start}-{block.stop - 1}"
        written, meaning = MEANINGS[kind]
        text = meaning.format(
            start=block.start,
            k=lay.kinds.size,
            jokers=MAX_JOKERS + 1,
            lowest=PILLAR_RANK_LABELS[0],
            highest=PILLAR_RANK_LABELS[-1],
            last_rank=NUM_PILLAR_RANKS - 1,
        )
        lines.append(_row(indices, written, text))  # the last column may run past its rule
    lines.append(rule)
    return "\n".join(lines)


def _row(*cells: str) -> str:
    padded = [cell.ljust(width) for cell, width in zip(cells[:-1], _COLUMN_WIDTHS, strict=False)]
    return "  ".join([*padded, cells[-1]])


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
    return "\n\n".join([*paragraphs, describe(RANK_LAYOUT)]) + "\n"


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
