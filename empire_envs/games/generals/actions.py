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

from ...core.action_table import ActionTable
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


def action_blocks(num_kinds: int, offsets: int) -> tuple[tuple[Kind, tuple[tuple[int, ...], ...]], ...]:
    """The one declaration of the table: each kind of action with its arguments, in index order.

    ``K = num_kinds`` card kinds, ``U = UNIT_SLOTS`` unit slots, ``S = offsets`` seat offsets
    (``1..S``, 1 the next player clockwise); an ATTACK's zone is 0 (Battlefield) or 1 (Warcamp)."""
    kinds = tuple((k,) for k in range(num_kinds))
    slots = tuple((u,) for u in range(UNIT_SLOTS))
    seats = tuple((o,) for o in range(1, offsets + 1))
    attacks = tuple((u, o, z) for u in range(UNIT_SLOTS) for o in range(1, offsets + 1) for z in range(2))
    return (
        *((kind, ((),)) for kind in SINGLE_ACTIONS),
        (Kind.PLAY, kinds),
        (Kind.PLAY_TO_BF, kinds),
        (Kind.MOVE, slots),
        (Kind.DISCARD_UNIT, slots),
        (Kind.ACTIVATE, slots),
        (Kind.ATTACK, attacks),
        (Kind.BLOCK, slots),
        (Kind.DISCARD_HAND, kinds),
        (Kind.TARGET_PLAYER, seats),
        (Kind.TARGET_KIND, kinds),
    )


class ActionLayout:
    """The table for ``K`` kinds and ``S`` seat offsets (``action_blocks``): its ``ActionTable``,
    where each kind's indices start (``start``) and the starts the rules read by name."""

    def __init__(self, num_kinds: int, offsets: int) -> None:
        self.num_kinds, self.offsets = num_kinds, offsets
        table: list[Action] = []
        self.start: dict[Kind, int] = {}
        self.stop: dict[Kind, int] = {}
        for kind, arguments in action_blocks(num_kinds, offsets):
            self.start[kind] = len(table)
            table += [Action(kind, *args) for args in arguments]
            self.stop[kind] = len(table)
        self.table = ActionTable("Empires and Generals", Kind, Action, table)
        self.size = self.table.size
        self.play = self.start[Kind.PLAY]
        self.play_to_bf = self.start[Kind.PLAY_TO_BF]
        self.move = self.start[Kind.MOVE]
        self.discard_unit = self.start[Kind.DISCARD_UNIT]
        self.activate = self.start[Kind.ACTIVATE]
        self.attack = self.start[Kind.ATTACK]
        self.block = self.start[Kind.BLOCK]
        self.discard_hand = self.start[Kind.DISCARD_HAND]
        self.target_player = self.start[Kind.TARGET_PLAYER]
        self.target_kind = self.start[Kind.TARGET_KIND]

    def __reduce__(self) -> tuple:
        # a pickled state brings back the shared layout of its sizes, not a private copy
        return layout_for, (self.num_kinds, self.offsets)

    def rows(self) -> list[tuple[str, int, int]]:
        """``(kind name, first index, last index)`` for each kind: the docstring table's rows."""
        return [(kind.name, self.start[kind], self.stop[kind] - 1) for kind in self.start]

    def attack_index(self, slot: int, offset: int, zone: int) -> int:
        """The ATTACK of ``slot`` on seat offset ``offset`` in ``zone``: the block's order, slot
        then offset then zone, as arithmetic (the rules list attacks often; a test holds it to the
        table)."""
        return self.attack + 2 * self.offsets * slot + 2 * (offset - 1) + zone

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
    DEFAULT_LAYOUT.start[kind] for kind in SINGLE_ACTIONS
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
