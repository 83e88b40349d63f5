"""The Empires and Generals action table: ``int <-> Action(kind, a, b, c)``.

``K`` card kinds (50 in the default pool, ascending ``ref``), ``U = 10`` unit slots, ``O =
max_seats - 1`` seat offsets (``o = 1`` is the next player clockwise). Default table (K = 50,
``max_seats = 4``): 310 actions, ``7 + 4K + 4U + 2UO + O`` in general.

=========  ==================  =================================================================
index      action              meaning
=========  ==================  =================================================================
0          PLAY_TURN           declare: play this turn
1          PASS                declare: pass this turn
2          DRAW_PLAYING        draw from my Playing Deck
3          DRAW_SUPPLY         draw from my Supply Pile
4          END_PHASE           end the Kingdom, Army or Attack phase
5          NO_BLOCK            present no blocker
6          NO_TACTIC           play no tactic in this battle
7-56       PLAY(k)             play kind k from hand to its place (Kingdom, Strategy, Capitol,
                               Warcamp for a unit, or a tactic)
57-106     PLAY_TO_BF(k)       play unit kind k straight into the Battlefield
107-116    MOVE(u)             move my unit in slot u to the other zone
117-126    DISCARD_UNIT(u)     discard my unit in slot u (a Soldier, or a General to replace)
127-136    ACTIVATE(u)         use the ability of my unit in slot u
137-196    ATTACK(u, o, z)     137 + 6u + 2(o - 1) + z: unit u attacks seat offset o; z 0 the
                               Battlefield, 1 the Warcamp
197-206    BLOCK(u)            block with my unit in slot u
207-256    DISCARD_HAND(k)     discard kind k from my hand (hand limit)
257-259    TARGET_PLAYER(o)    choose seat offset o as the target
260-309    TARGET_KIND(k)      choose kind k in the target's Kingdom
=========  ==================  =================================================================
"""

from __future__ import annotations

from enum import IntEnum
from functools import cache
from typing import NamedTuple

from ...core.action_table import Argument, Block, BlockLayout
from ...core.game import seat_offset_name
from .config import UNIT_SLOTS


class Kind(IntEnum):
    PLAY_TURN = 0
    PASS = 1
    DRAW_PLAYING = 2
    DRAW_SUPPLY = 3
    END_PHASE = 4
    NO_BLOCK = 5
    NO_TACTIC = 6
    PLAY = 7
    PLAY_TO_BF = 8
    MOVE = 9
    DISCARD_UNIT = 10
    ACTIVATE = 11
    ATTACK = 12
    BLOCK = 13
    DISCARD_HAND = 14
    TARGET_PLAYER = 15
    TARGET_KIND = 16


class Action(NamedTuple):
    """A structured action; unused arguments are -1 (ATTACK: a = slot, b = offset, c = zone)."""

    kind: Kind
    a: int = -1
    b: int = -1
    c: int = -1


#: the actions without an argument, at the head of every table: their indices do not depend on
#: the pool or the table size
SINGLE_ACTIONS = (
    Kind.PLAY_TURN,
    Kind.PASS,
    Kind.DRAW_PLAYING,
    Kind.DRAW_SUPPLY,
    Kind.END_PHASE,
    Kind.NO_BLOCK,
    Kind.NO_TACTIC,
)


def action_blocks(num_kinds: int, offsets: int) -> tuple[Block, ...]:
    """The one declaration of the table: each kind of action with its arguments, in index order
    (the module docstring's table, which ``tests/generals/test_tables.py`` holds to it).

    ``K = num_kinds`` card kinds ``k``, ``U = UNIT_SLOTS`` unit slots ``u``, ``offsets`` seat
    offsets ``o`` (``1..offsets``, 1 the next player clockwise); an ATTACK's zone ``z`` is 0
    (Battlefield) or 1 (Warcamp)."""
    kind = Argument("k", num_kinds)
    slot = Argument("u", UNIT_SLOTS)
    offset = Argument("o", offsets, first=1)
    zone = Argument("z", 2)
    return (
        *(Block(single) for single in SINGLE_ACTIONS),
        Block(Kind.PLAY, (kind,)),
        Block(Kind.PLAY_TO_BF, (kind,)),
        Block(Kind.MOVE, (slot,)),
        Block(Kind.DISCARD_UNIT, (slot,)),
        Block(Kind.ACTIVATE, (slot,)),
        Block(Kind.ATTACK, (slot, offset, zone)),
        Block(Kind.BLOCK, (slot,)),
        Block(Kind.DISCARD_HAND, (kind,)),
        Block(Kind.TARGET_PLAYER, (offset,)),
        Block(Kind.TARGET_KIND, (kind,)),
    )


class ActionLayout(BlockLayout):
    """The table for ``K`` kinds and ``S`` seat offsets (``action_blocks``): where each kind's
    indices start (``starts``), the index of an action (``index(Kind.ATTACK, u, o, z)``), the
    ``ActionTable`` (``table``) and the short names of the actions."""

    def __init__(self, num_kinds: int, offsets: int) -> None:
        self.num_kinds, self.offsets = num_kinds, offsets
        super().__init__("Empires and Generals", Kind, Action, action_blocks(num_kinds, offsets))

    def __reduce__(self) -> tuple:
        # a pickled state brings back the shared layout of its sizes, not a private copy
        return layout_for, (self.num_kinds, self.offsets)

    def rows(self) -> list[tuple[str, int, int]]:
        """``(kind name, first index, last index)`` for each kind: the docstring table's rows."""
        spans = [(block.kind, self.block_range(block.kind)) for block in self.blocks]
        return [(kind.name, span.start, span.stop - 1) for kind, span in spans]

    def decode(self, index: int) -> Action:
        return self.table.decode(index)

    def name(self, index: int, kind_ids: tuple[str, ...] | None = None) -> str:
        """A short readable name, e.g. ``"PLAY rom_legionary"`` or ``"ATTACK u3 -> +1 WC"``."""
        kind, a, b, c = self.decode(index)

        def card(k: int) -> str:
            return kind_ids[k] if kind_ids is not None else f"k{k}"

        if kind in (Kind.PLAY, Kind.PLAY_TO_BF, Kind.DISCARD_HAND, Kind.TARGET_KIND):
            return f"{kind.name} {card(a)}"
        if kind in (Kind.MOVE, Kind.DISCARD_UNIT, Kind.ACTIVATE, Kind.BLOCK):
            return f"{kind.name} u{a}"
        if kind is Kind.ATTACK:
            return f"ATTACK u{a} -> +{b} {'WC' if c else 'BF'}"
        if kind is Kind.TARGET_PLAYER:
            return f"TARGET_PLAYER +{a}"
        return kind.name


@cache
def layout_for(num_kinds: int, offsets: int) -> ActionLayout:
    return ActionLayout(num_kinds, offsets)


DEFAULT_LAYOUT = layout_for(50, 3)
NUM_ACTIONS = DEFAULT_LAYOUT.size
PLAY_TURN, PASS, DRAW_PLAYING, DRAW_SUPPLY, END_PHASE, NO_BLOCK, NO_TACTIC = (
    DEFAULT_LAYOUT.starts[kind] for kind in SINGLE_ACTIONS
)


def announce_action(state, seat: int, action: int, viewer: int, reveal: bool = False) -> str:
    """The name of ``seat``'s ``action`` as seat ``viewer`` is told it before it is played
    (``Game.announce_action``): every move is public (cards are played face up; a draw names
    the pile, never the card), so ``reveal`` changes nothing; a seat offset is followed by the
    seat it points at."""
    config = state.config
    lay = layout_for(config.pool.size, config.offsets)
    kind, a, b, _ = lay.decode(action)
    name = lay.name(action, tuple(kind_def.id for kind_def in config.pool.kinds))
    if kind is Kind.ATTACK:
        name += f" ({seat_offset_name(seat, b, viewer, config.num_players)})"
    elif kind is Kind.TARGET_PLAYER:
        name += f" ({seat_offset_name(seat, a, viewer, config.num_players)})"
    return name
