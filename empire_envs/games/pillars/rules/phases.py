"""The phase table: each phase in one place, who acts (``actor``), its legal actions, ascending
(``legal_actions``), and what a legal action does and earns (``apply``, in place; it returns
every seat's reward on the spot: the shaping of a pillar to its builder, 0.0 otherwise).
``PHASES`` collects them; ``acting_player``, ``legal_actions``, ``legal_mask``, ``is_legal`` and
``apply_action`` dispatch through it, and ``apply_action`` adds the game's final rewards.

The most frequent phases (the main action, the build phase, the throws) also answer whether one
action is legal without listing the others (``allows``), which is what ``apply_action`` asks
before every move; ``tests/pillars`` checks that the two answers agree on every index, over the
states of random and of heuristic games."""

from __future__ import annotations

import numpy as np

from ....core import phases as core_phases
from ....core.errors import IllegalActionError
from ....core.phases import PhaseRules, phase_table
from ..actions import Kind
from ..state import (
    BUILD,
    DISCARD,
    ONGOING,
    ORIGIN_BONUS,
    ORIGIN_MAIN,
    OVER,
    RPS_ATTACKER,
    RPS_DEFENDER,
    WON,
    Phase,
    PillarsState,
    with_skip_given,
)
from .legality import (
    bonus_actions,
    bonus_kind,
    interaction_actions,
    interaction_allowed,
    layout,
    pillar_actions,
    seat_at,
    skip_targets,
)
from .outcomes import final_rewards
from .turns import coin, discard, end_turn, finish_interaction, interact, lay_pillar, offer, pick, resolve_battle


def _turn_player(state: PillarsState) -> int:
    return state.current


def _next_responder(state: PillarsState) -> int:
    return state.trade_queue[0]


def _defender(state: PillarsState) -> int:
    return state.battle_defender


def _nobody(state: PillarsState) -> int:
    return -1


def _main_actions(state: PillarsState) -> list[int]:
    """Section 11: one steal, trade or battle (or END_BUILD, when the main action is optional)."""
    player, lay = state.current, layout(state)
    actions = interaction_actions(state, player, lay, Kind.STEAL)
    actions += interaction_actions(state, player, lay, Kind.TRADE)
    actions += lay.battle_range(state.n)
    if state.config.main_action_optional:
        actions.append(lay.end_build)
    return actions


def _main_allows(state: PillarsState, action: int) -> bool:
    """``action in _main_actions(state)``, without listing them."""
    lay = layout(state)
    if not 0 <= action < lay.size:
        return False
    kind, a, _ = lay.actions[action]
    if kind is Kind.END_BUILD:
        return state.config.main_action_optional
    return interaction_allowed(state, state.current, kind, a)


def _apply_main(state: PillarsState, action: int, rng: np.random.Generator) -> list[float]:
    kind, a, b = layout(state).actions[action]
    if kind is Kind.END_BUILD:  # declining the optional main action (section 11)
        state.main_done = True
        state.phase = BUILD
    else:
        interact(state, ORIGIN_MAIN, kind, a, b, rng)
    return [0.0] * state.n


def _build_actions(state: PillarsState) -> list[int]:
    """Sections 28-39: the bonus action, pillars, and END_BUILD (always)."""
    player, lay = state.current, layout(state)
    actions = bonus_actions(state, player, lay)
    actions += pillar_actions(state, player, lay)
    actions.append(lay.end_build)
    return actions


def _build_allows(state: PillarsState, action: int) -> bool:
    """``action in _build_actions(state)``, listing only the pillars (for a PILLAR)."""
    lay = layout(state)
    if not 0 <= action < lay.size:
        return False
    kind, a, _ = lay.actions[action]
    if kind is Kind.END_BUILD:
        return True
    if kind is Kind.PILLAR:
        return action in pillar_actions(state, state.current, lay)
    return kind is bonus_kind(state, state.current) and interaction_allowed(state, state.current, kind, a)


def _apply_build(state: PillarsState, action: int, rng: np.random.Generator) -> list[float]:
    kind, a, b = layout(state).actions[action]
    player = state.current
    rewards = [0.0] * state.n
    if kind is Kind.PILLAR:
        lay_pillar(state, player, a, b, rng)
        if state.hand_sizes[player] == 0 and state.outcome == ONGOING:
            end_turn(state, rng)  # section 35: an empty hand ends the turn, no discard, no win
        rewards[player] += state.config.shaping
    elif kind is Kind.END_BUILD:
        if state.hand_sizes[player] == 0:  # nothing to discard: the turn just ends (41)
            end_turn(state, rng)
        else:
            state.phase = DISCARD
    else:
        interact(state, ORIGIN_BONUS, kind, a, b, rng)
    return rewards


def _discard_actions(state: PillarsState) -> list[int]:
    """Section 40: any one card of the hand."""
    hand, start = state.hands[state.current], layout(state).starts[Kind.DISCARD]  # DISCARD(k): the k-th
    return [start + k for k in range(state.kinds.size) if hand[k]]


def _apply_discard(state: PillarsState, action: int, rng: np.random.Generator) -> list[float]:
    discard(state, state.current, layout(state).actions[action].a, rng)
    return [0.0] * state.n


def _skip_actions(state: PillarsState) -> list[int]:
    """Section 43: a seat without a pending skip, or no one (if optional, or if none is left)."""
    lay = layout(state)
    actions = [lay.skip_index(o) for o in skip_targets(state, state.current)]
    if state.config.skip_optional or not actions:
        actions.append(lay.no_skip)
    return actions


def _apply_skip(state: PillarsState, action: int, rng: np.random.Generator) -> list[float]:
    kind, offset, _ = layout(state).actions[action]
    if kind is Kind.SKIP:
        player = state.current
        target = seat_at(state, player, offset)
        state.pending_skip[target] = True
        state.turn_log[player] = with_skip_given(state.turn_log[player], target)
    end_turn(state, rng)
    return [0.0] * state.n


def _offer_actions(state: PillarsState) -> list[int]:
    """Section 18: the next responder offers any one card of its hand."""
    hand, start = state.hands[state.trade_queue[0]], layout(state).starts[Kind.OFFER]  # OFFER(k): the k-th
    return [start + k for k in range(state.kinds.size) if hand[k]]


def _apply_offer(state: PillarsState, action: int, rng: np.random.Generator) -> list[float]:
    offer(state, state.trade_queue[0], layout(state).actions[action].a)
    return [0.0] * state.n


def _pick_actions(state: PillarsState) -> list[int]:
    """Section 19: the trader takes one of the offers."""
    lay, trader = layout(state), state.current
    return [lay.pick_index(o) for o in range(1, state.n) if state.offers[seat_at(state, trader, o)] >= 0]


def _apply_pick(state: PillarsState, action: int, rng: np.random.Generator) -> list[float]:
    trader = state.current
    pick(state, trader, seat_at(state, trader, layout(state).actions[action].a))
    finish_interaction(state)
    return [0.0] * state.n


def _throw_actions(state: PillarsState) -> list[int]:
    """Sections 24-26: rock, paper or scissors."""
    return list(layout(state).block_range(Kind.THROW))


def _throw_allows(state: PillarsState, action: int) -> bool:
    return action in layout(state).block_range(Kind.THROW)


def _apply_attacker_throw(state: PillarsState, action: int, rng: np.random.Generator) -> list[float]:
    state.pending_throw = layout(state).actions[action].a  # hidden from everyone else until the defender throws
    state.phase = RPS_DEFENDER
    return [0.0] * state.n


def _apply_defender_throw(state: PillarsState, action: int, rng: np.random.Generator) -> list[float]:
    throw = layout(state).actions[action].a
    attacker_throw = state.pending_throw
    state.pending_throw = -1
    state.last_throws = [attacker_throw, throw]
    if attacker_throw != throw:
        resolve_battle(state, (attacker_throw - throw) % 3 == 1)
        return [0.0] * state.n
    # A tie: throw again, or a coin after rps_max_ties ties (26).
    state.battle_ties += 1
    state.battle_tie_throws[throw] += 1
    if state.battle_ties >= state.config.rps_max_ties:
        resolve_battle(state, coin(state, rng), by_coin=True)
    else:
        state.phase = RPS_ATTACKER
    return [0.0] * state.n


def _no_actions(state: PillarsState) -> list[int]:
    return []


def _game_over(state: PillarsState, action: int, rng: np.random.Generator) -> list[float]:
    raise IllegalActionError("the game is over")


PHASES = phase_table(
    Phase,
    {
        Phase.MAIN: PhaseRules(_turn_player, _main_actions, _apply_main, allows=_main_allows),
        Phase.BUILD: PhaseRules(_turn_player, _build_actions, _apply_build, allows=_build_allows),
        Phase.DISCARD: PhaseRules(_turn_player, _discard_actions, _apply_discard),
        Phase.SKIP_TARGET: PhaseRules(_turn_player, _skip_actions, _apply_skip),
        Phase.TRADE_OFFER: PhaseRules(_next_responder, _offer_actions, _apply_offer),
        Phase.TRADE_PICK: PhaseRules(_turn_player, _pick_actions, _apply_pick),
        Phase.RPS_ATTACKER: PhaseRules(_turn_player, _throw_actions, _apply_attacker_throw, allows=_throw_allows),
        Phase.RPS_DEFENDER: PhaseRules(_defender, _throw_actions, _apply_defender_throw, allows=_throw_allows),
        Phase.OVER: PhaseRules(_nobody, _no_actions, _game_over),
    },
)
PillarsState.phase_rules = PHASES  # the state's acting_player() reads the same table


def acting_player(state: PillarsState) -> int:
    """The seat whose decision is pending, -1 once the episode is over."""
    return PHASES[state.phase].actor(state)


def legal_actions(state: PillarsState) -> list[int]:
    """The legal action indices of the acting seat, ascending."""
    return PHASES[state.phase].legal_actions(state)


def legal_mask(state: PillarsState) -> np.ndarray:
    """The int8 mask of the acting seat (a fresh array)."""
    return core_phases.legal_mask(PHASES[state.phase], state, layout(state).size)


def is_legal(state: PillarsState, action: int) -> bool:
    """Whether ``action`` (an int, or a numpy integer) is legal for the acting seat."""
    index = _as_index(action)
    return index is not None and core_phases.is_legal(PHASES[state.phase], state, index)


def _as_index(action: object) -> int | None:
    """An action as a plain int; None for anything that is not an integer (bools included)."""
    if isinstance(action, np.integer):
        return int(action)
    if isinstance(action, bool) or not isinstance(action, int):
        return None
    return action


def apply_action(state: PillarsState, action: int, rng: np.random.Generator) -> list[float]:
    """Play ``action`` for the acting seat (mutating ``state``); the rewards each seat earned by
    it: the phase's own, then the final result when the action won the game. Raises
    ``IllegalActionError`` (leaving the state untouched) for an illegal action."""
    phase = PHASES[state.phase]
    index = _as_index(action)
    if index is None or not core_phases.is_legal(phase, state, index):
        raise IllegalActionError(_illegal_message(state, action))
    player = phase.actor(state)
    state.last_decision[player] = state.event_serial  # records from here on are news to player
    rewards = phase.apply(state, index, rng)
    if state.outcome == WON:
        for seat, value in enumerate(final_rewards(state)):
            rewards[seat] += value
    return rewards


def _illegal_message(state: PillarsState, action: object) -> str:
    if state.phase == OVER:
        return "the game is over"
    lay = layout(state)
    index = _as_index(action)
    name = lay.name(index) if index is not None and 0 <= index < lay.size else repr(action)
    return (
        f"{name} (action {action}) is not legal for seat {acting_player(state)} in phase "
        f"{Phase(state.phase).name}; legal: {legal_actions(state)}"
    )
