"""The phase table and the generic verbs: ``PHASES`` says, for each phase, which module's rules
hold it (who acts, what is legal, what an action does), and ``acting_player``,
``legal_actions``, ``legal_mask``, ``is_legal`` and ``apply_action`` dispatch through it.
``apply_action`` adds the game's own rewards to the phase's: the shaping over the colour share
and the final result.
"""

from __future__ import annotations

import numpy as np

from ....core.errors import IllegalActionError
from ....core.phases import is_legal as phase_allows
from ....core.phases import legal_mask as phase_mask
from ....core.phases import phase_table
from ..state import DRAW, ONGOING, WON, MapDuelState, Phase
from . import end, new_face, sacrifice, setup, step1, step2
from .board import layout
from .end import colour_share, final_rewards

#: everything about each phase, indexed by ``state.phase``
PHASES = phase_table(
    Phase,
    {
        Phase.SETUP_PLACE: setup.SETUP_PLACE,
        Phase.SETUP_FACE: setup.SETUP_FACE,
        Phase.SETUP_FACE_CELL: setup.SETUP_FACE_CELL,
        Phase.STEP_1: step1.STEP_1,
        Phase.SACRIFICE_FACE: sacrifice.SACRIFICE_FACE,
        Phase.SACRIFICE_MOVE: sacrifice.SACRIFICE_MOVE,
        Phase.PLACE_CELL: new_face.PLACE_CELL,
        Phase.PLACE_PAY: new_face.PLACE_PAY,
        Phase.STEP_2: step2.STEP_2,
        Phase.BUILD_CARD: step2.BUILD_CARD,
        Phase.OVER: end.OVER,
    },
)


def acting_player(state: MapDuelState) -> int:
    """The seat to act, -1 once the game is over."""
    return PHASES[state.phase].actor(state)


def legal_actions(state: MapDuelState) -> list[int]:
    """The legal action indices of the acting seat, ascending, in its own frame."""
    return PHASES[state.phase].legal_actions(state)


def legal_mask(state: MapDuelState) -> np.ndarray:
    """The acting seat's legal actions as a fresh ``int8`` mask."""
    return phase_mask(PHASES[state.phase], state, layout(state).size)


def is_legal(state: MapDuelState, action: int) -> bool:
    """Whether ``action`` is legal for the acting seat: the phase's ``allows`` checks the one
    action where it can; the other sub-decisions compare with the whole list."""
    if isinstance(action, np.integer):
        action = int(action)
    if isinstance(action, bool) or not isinstance(action, int) or not 0 <= action < layout(state).size:
        return False
    return phase_allows(PHASES[state.phase], state, action)


def apply_action(state: MapDuelState, action: int, rng: np.random.Generator) -> list[float]:
    """Play ``action`` for the acting seat (mutating ``state``); both seats' rewards for it: the
    phase's, then the game's own (the shaping, the final result). Raises ``IllegalActionError``
    (the state untouched) for an illegal action."""
    if isinstance(action, np.integer):
        action = int(action)
    if not is_legal(state, action):
        raise IllegalActionError(_why_illegal(state, action))
    shaping = state.config.shaping
    before = colour_share(state) if shaping else 0.0
    rewards = PHASES[state.phase].apply(state, action, rng)
    if shaping and state.outcome == ONGOING:
        after = colour_share(state)
        rewards[0] += shaping * (after - before)
        rewards[1] += shaping * (before - after)
    if state.outcome in (WON, DRAW):
        for p, value in enumerate(final_rewards(state)):
            rewards[p] += value
    return rewards


def _why_illegal(state: MapDuelState, action: object) -> str:
    if state.phase == Phase.OVER:
        return "the game is over"
    lay = layout(state)
    valid_index = isinstance(action, int) and not isinstance(action, bool) and 0 <= action < lay.size
    name = lay.name(action, state.current) if valid_index else repr(action)  # type: ignore[arg-type]
    return (
        f"{name} (action {action}) is not legal for seat {state.current} in phase "
        f"{Phase(state.phase).label}; legal: {legal_actions(state)}"
    )
