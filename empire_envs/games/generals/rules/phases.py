"""The phase table and the verbs that dispatch through it.

``PHASES`` says, for each ``Phase``, who acts, what that seat may do and what an action does
and earns (a ``core.phases.PhaseRules``; the functions live in the modules of their topic:
``turn``, ``kingdom``, ``army``, ``battle``, ``tactics``). The four main phases also give
``choices``: the action always legal there (end the phase, no tactic) and an iterator over the
others, so the mask, the legality test and the automatic single choice need not list and sort.

``apply_action`` plays a decision and every automatic step that follows (a decision with
exactly one legal action is taken by the engine and leaves no trace), sums what each step's
``apply`` returned, then adds the game's own terms: the final result of each seat placed in
the step (``scoring.add_final_results``), and truncation at ``max_game_length`` decisions."""

from __future__ import annotations

from operator import add

import numpy as np

from ....core import phases as core_phases
from ....core.errors import IllegalActionError
from ....core.phases import PhaseRules, phase_table, single_action
from ..state import OVER, PHASE_NAMES, GeneralsState, Phase
from . import army, battle, kingdom, tactics, turn
from .scoring import add_final_results, truncate


def _turn_player(state: GeneralsState) -> int:
    return state.current


def _nobody(state: GeneralsState) -> int:
    return -1


def _no_actions(state: GeneralsState) -> list[int]:
    return []


def _apply_nothing(state: GeneralsState, action: int, rng: np.random.Generator) -> list[float]:
    raise IllegalActionError("the game is over")


#: every phase's rules, indexed by ``Phase``
PHASES: tuple[PhaseRules[GeneralsState], ...] = phase_table(
    Phase,
    {
        Phase.DECLARE: PhaseRules(_turn_player, turn.declare_actions, turn.apply_declare),
        Phase.DRAW: PhaseRules(_turn_player, turn.draw_actions, turn.apply_draw),
        Phase.KINGDOM: PhaseRules(
            _turn_player, kingdom.kingdom_actions, kingdom.apply_kingdom, choices=kingdom.kingdom_choices
        ),
        Phase.ARMY: PhaseRules(_turn_player, army.army_actions, army.apply_army, choices=army.army_choices),
        Phase.ATTACK: PhaseRules(
            _turn_player, battle.attack_actions, battle.apply_attack, choices=battle.attack_choices
        ),
        Phase.BLOCK: PhaseRules(battle.defender, battle.block_actions, battle.apply_block),
        Phase.TACTIC: PhaseRules(
            tactics.tactic_side, tactics.tactic_actions, tactics.apply_tactic, choices=tactics.tactic_choices
        ),
        Phase.TARGET_PLAYER: PhaseRules(_turn_player, kingdom.target_player_actions, kingdom.apply_target_player),
        Phase.TARGET_KIND: PhaseRules(_turn_player, kingdom.target_kind_actions, kingdom.apply_target_kind),
        Phase.DISCARD_HAND: PhaseRules(_turn_player, turn.discard_hand_actions, turn.apply_discard_hand),
        Phase.REPLACE_GENERAL: PhaseRules(_turn_player, army.replace_general_actions, army.apply_replace_general),
        Phase.OVER: PhaseRules(_nobody, _no_actions, _apply_nothing),
    },
)
GeneralsState.phase_rules = PHASES  # what ``state.acting_player()`` reads


def acting_player(state: GeneralsState) -> int:
    """The seat whose decision is pending (-1 once the game is over)."""
    return PHASES[state.phase].actor(state)


def legal_actions(state: GeneralsState) -> list[int]:
    """The legal action indices of the acting seat, ascending."""
    return PHASES[state.phase].legal_actions(state)


def legal_mask(state: GeneralsState) -> np.ndarray:
    return core_phases.legal_mask(PHASES[state.phase], state, state.layout.size)


def is_legal(state: GeneralsState, action: int) -> bool:
    """Whether ``action`` is legal for the acting seat (the phase's candidates are generated only
    until it turns up)."""
    if isinstance(action, np.integer):
        action = int(action)
    if isinstance(action, bool) or not isinstance(action, int):
        return False
    return core_phases.is_legal(PHASES[state.phase], state, action)


def apply_action(state: GeneralsState, action: int, rng: np.random.Generator) -> list[float]:
    """Play ``action`` for the acting seat (mutating ``state``), then every automatic step that
    follows; each seat's reward for it. ``IllegalActionError`` (state untouched) if illegal."""
    if state.phase == OVER:
        raise IllegalActionError("the game is over")
    if isinstance(action, np.integer):
        action = int(action)
    if not is_legal(state, action):
        legal = legal_actions(state)
        lay = state.layout
        name = (
            lay.name(action, state.tables.ids) if isinstance(action, int) and 0 <= action < lay.size else repr(action)
        )
        raise IllegalActionError(
            f"{name} (action {action!r}) is not legal for seat {acting_player(state)} in phase "
            f"{PHASE_NAMES[state.phase]}; legal: {legal}"
        )
    finished = len(state.finish_order)
    rewards = _do(state, action, rng)
    auto_resolve(state, rng, rewards)
    if state.phase == OVER or len(state.finish_order) != finished:  # a seat got its place
        add_final_results(state, finished, rewards)
    state.decisions += 1
    if state.decisions >= state.decision_limit and state.phase != OVER:
        truncate(state)  # only endless back-and-forth moves get here (setup.max_game_length)
    return rewards


def auto_resolve(state: GeneralsState, rng: np.random.Generator, rewards: list[float]) -> None:
    """Take every decision that has exactly one legal action (they leave no trace), adding what
    each earns to ``rewards``."""
    while state.phase != OVER:
        action = single_action(PHASES[state.phase], state)
        if action is None:
            return
        earned = _do(state, action, rng)
        if any(earned):
            rewards[:] = map(add, rewards, earned)


def _do(state: GeneralsState, action: int, rng: np.random.Generator) -> list[float]:
    """One step: the phase's ``apply``; then a turn player that left the game mid-turn (a
    Chancellor victory with play for second, or running out of cards with ``deckout_loses``)
    ends its turn there."""
    earned = PHASES[state.phase].apply(state, action, rng)
    if state.phase != OVER and not state.players[state.current].alive:
        state.battle = None
        turn.end_turn(state)
    return earned
