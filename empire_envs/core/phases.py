"""Phases as data: one table per multiplayer game maps each phase to what it means.

A game's ``state.phase`` is a member of the game's own ``IntEnum`` of phases. Its rules module
declares, once per phase, who acts (``actor``), what that seat may do (``legal_actions``) and
what an action does and earns (``apply``, returning each seat's rewards) in a ``PhaseRules``
record, and collects them with ``phase_table``, so a reader finds everything about a phase in one place and the generic
functions (``legal_actions``, ``acting_player``, ``apply_action``) dispatch through the table
instead of switching on the phase again and again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from enum import IntEnum
from typing import Generic, TypeVar

import numpy as np

S = TypeVar("S")
P = TypeVar("P", bound=IntEnum)


class GamePhase(IntEnum):
    """The base of a game's ``Phase`` enum: members numbered 0, 1, 2, ... (``phase_table``), each
    with its ``label``, the phase in words as the renders print it (``"king mode"``)."""

    @property
    def label(self) -> str:
        return self.name.lower().replace("_", " ")


@dataclass(frozen=True)
class PhaseRules(Generic[S]):
    """One phase: the seat to act, its legal actions (ascending) and the effect of an action.

    ``apply(state, action, rng)`` is called only with an action that ``legal_actions`` allows
    (the game checks legality first); it changes ``state`` in place and returns the rewards the
    action earned, one per seat (a list of ``float``; zeros when it earned none). Rewards that
    belong to the game rather than to one phase (shaping over the whole position, the final
    result) are added by the game's ``apply_action`` after it.

    Two optional parts let a game answer faster than by listing every legal action; the generic
    ``is_legal``, ``legal_mask`` and ``single_action`` below use them where a phase has them:

    - ``allows(state, action)``: whether one action is legal, without listing the others;
    - ``choices(state)``: ``(first, others)``: one action that is always legal in the phase and
      an iterator over the others, in any order.
    """

    actor: Callable[[S], int]
    legal_actions: Callable[[S], list[int]]
    apply: Callable[[S, int, np.random.Generator], list[float]]
    allows: Callable[[S, int], bool] | None = None
    choices: Callable[[S], tuple[int, Iterator[int]]] | None = None


def is_legal(rules: PhaseRules[S], state: S, action: int) -> bool:
    """Whether ``action`` (an ``int``) is legal in ``state``'s phase, asking ``allows`` or
    ``choices`` where the phase has them."""
    if rules.allows is not None:
        return rules.allows(state, action)
    if rules.choices is not None:
        first, others = rules.choices(state)
        return action == first or action in others
    return action in rules.legal_actions(state)


def legal_mask(rules: PhaseRules[S], state: S, size: int) -> np.ndarray:
    """The int8 mask of the phase's legal actions over ``size`` actions (unsorted ``choices``
    are enough to mark it)."""
    mask = np.zeros(size, dtype=np.int8)
    if rules.choices is None:
        mask[rules.legal_actions(state)] = 1
    else:
        first, others = rules.choices(state)
        mask[[first, *others]] = 1
    return mask


def single_action(rules: PhaseRules[S], state: S) -> int | None:
    """The one legal action when there is exactly one, else None (``choices`` stops at the
    second)."""
    if rules.choices is not None:
        first, others = rules.choices(state)
        return first if next(others, None) is None else None
    legal = rules.legal_actions(state)
    return legal[0] if len(legal) == 1 else None


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
