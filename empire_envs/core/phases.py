"""Phases as data: one table per multiplayer game maps each phase to what it means.

A game's ``state.phase`` is a member of the game's own ``IntEnum`` of phases. Its rules module
declares, once per phase, who acts (``actor``), what that seat may do (``legal_actions``) and
what an action does (``apply``) in a ``PhaseRules`` record, and collects them with
``phase_table``, so a reader finds everything about a phase in one place and the generic
functions (``legal_actions``, ``acting_player``, ``apply_action``) dispatch through the table
instead of switching on the phase again and again.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import IntEnum
from typing import Any, Generic, TypeVar

import numpy as np

S = TypeVar("S")
P = TypeVar("P", bound=IntEnum)


@dataclass(frozen=True)
class PhaseRules(Generic[S]):
    """One phase: the seat to act, its legal actions (ascending) and the effect of an action.

    ``apply(state, action, rng)`` is called only with an action that ``legal_actions`` allows
    (the game checks legality first); it changes ``state`` in place.
    """

    actor: Callable[[S], int]
    legal_actions: Callable[[S], list[int]]
    apply: Callable[[S, int, np.random.Generator], Any]


def phase_table(phases: type[P], rules: Mapping[P, PhaseRules[S]]) -> tuple[PhaseRules[S], ...]:
    """The phase rules indexed by phase value (a tuple: the fastest lookup by an ``int`` phase).

    Raises ``ValueError`` unless ``rules`` covers every member of ``phases`` exactly once and the
    members are numbered 0, 1, 2, ... (so the tuple index is the phase).
    """
    members = list(phases)
    if [int(member) for member in members] != list(range(len(members))):
        raise ValueError(f"{phases.__name__} must number its phases 0, 1, 2, ...")
    missing = [member.name for member in members if member not in rules]
    extra = [key for key in rules if key not in members]
    if missing or extra:
        raise ValueError(f"the {phases.__name__} table lacks {missing} and has unknown keys {extra}")
    return tuple(rules[member] for member in members)
