"""The Empire solo action table: ``int <-> Action(kind, a, b)``.

========  =================  ==========================================================
index     action             meaning
========  =================  ==========================================================
0         DRAW               end the organize phase and draw the turn's card
1-15      MERGE(j, i)        move the unit at territory ``j`` onto the same kind of unit
                             at keep ``i`` (i-major: i = 0, 1, 2; j = 0..5 without i)
16-21     PLACE(t)           put the drawn soldier in empty territory ``t``
22-24     STACK(i)           put the drawn soldier on the lone soldier in keep ``i``
25-30     RECRUIT(t)         put the drawn card on the native or base at ``t`` as its recruit
31        DISCARD            discard the drawn soldier
32-34     PROMOTE(i)         the drawn promotion card replaces the battalion in keep ``i``
35-52     FOUND(i, t)        the drawn promotion card becomes a base in empty territory ``t``;
                             the base builder in keep ``i`` is discarded (i-major, t = 0..5)
53        FIGHT              fight the drawn face card
54        SUM                King round: one unit fights the sum of both enemies
55        SPLIT              King round: one unit against each enemy, in order
56-61     SEND(t)            send the whole unit at ``t`` (host and recruit together)
62-67     SEND_RECRUIT(t)    send only the recruit of the native or base at ``t``
========  =================  ==========================================================
"""

from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple

from ...core.action_table import ActionTable
from .state import KEEPS, NUM_TERRITORIES
from .tables import NAME


class Kind(IntEnum):
    DRAW = 0
    MERGE = 1
    PLACE = 2
    STACK = 3
    RECRUIT = 4
    DISCARD = 5
    PROMOTE = 6
    FOUND = 7
    FIGHT = 8
    SUM = 9
    SPLIT = 10
    SEND = 11
    SEND_RECRUIT = 12


class Action(NamedTuple):
    """A structured action; unused arguments are -1."""

    kind: Kind
    a: int = -1
    b: int = -1


def _build_table() -> tuple[Action, ...]:
    table = [Action(Kind.DRAW)]
    table += [Action(Kind.MERGE, j, i) for i in KEEPS for j in range(NUM_TERRITORIES) if j != i]
    table += [Action(Kind.PLACE, t) for t in range(NUM_TERRITORIES)]
    table += [Action(Kind.STACK, i) for i in KEEPS]
    table += [Action(Kind.RECRUIT, t) for t in range(NUM_TERRITORIES)]
    table += [Action(Kind.DISCARD)]
    table += [Action(Kind.PROMOTE, i) for i in KEEPS]
    table += [Action(Kind.FOUND, i, t) for i in KEEPS for t in range(NUM_TERRITORIES)]
    table += [Action(Kind.FIGHT), Action(Kind.SUM), Action(Kind.SPLIT)]
    table += [Action(Kind.SEND, t) for t in range(NUM_TERRITORIES)]
    table += [Action(Kind.SEND_RECRUIT, t) for t in range(NUM_TERRITORIES)]
    return tuple(table)


TABLE = ActionTable(NAME, Kind, Action, _build_table())
ACTIONS: tuple[Action, ...] = TABLE.actions
NUM_ACTIONS = TABLE.size
encode = TABLE.encode
decode = TABLE.decode

DRAW = encode((Kind.DRAW,))
DISCARD = encode((Kind.DISCARD,))
FIGHT = encode((Kind.FIGHT,))
SUM_ACTION = encode((Kind.SUM,))
SPLIT_ACTION = encode((Kind.SPLIT,))
MERGE = {(j, i): encode((Kind.MERGE, j, i)) for i in KEEPS for j in range(6) if j != i}
PLACE = tuple(encode((Kind.PLACE, t)) for t in range(NUM_TERRITORIES))
STACK = {i: encode((Kind.STACK, i)) for i in KEEPS}
RECRUIT = tuple(encode((Kind.RECRUIT, t)) for t in range(NUM_TERRITORIES))
PROMOTE = {i: encode((Kind.PROMOTE, i)) for i in KEEPS}
FOUND = {(i, t): encode((Kind.FOUND, i, t)) for i in KEEPS for t in range(NUM_TERRITORIES)}
SEND = tuple(encode((Kind.SEND, t)) for t in range(NUM_TERRITORIES))
SEND_RECRUIT = tuple(encode((Kind.SEND_RECRUIT, t)) for t in range(NUM_TERRITORIES))


def action_name(index: int) -> str:
    """A short readable name, e.g. ``"MERGE 4->1"`` or ``"FOUND keep 0 -> base at 3"``."""
    kind, a, b = decode(index)
    if kind is Kind.MERGE:
        return f"MERGE {a}->{b}"
    if kind is Kind.FOUND:
        return f"FOUND keep {a} -> base at {b}"
    if kind in (Kind.STACK, Kind.PROMOTE):
        return f"{kind.name} keep {a}"
    if a >= 0:
        return f"{kind.name} {a}"
    return kind.name
