"""Toy Nim rules: pure functions over ``ToyNimState``, one phase table.

Two seats take turns. On its turn a seat takes 1 to ``max_take`` cards from the top of a
face-down pile into its hidden hand; a hand above ``hand_limit`` cards is then discarded from,
face up, one card a decision, down to the limit. When the pile is empty (and the discards are
done) each seat scores its hand (A = 1 ... K = 13), plus ``last_card_bonus`` for the seat that
took the last card; the higher score wins (+1, the other -1; equal scores: 0 each).

Randomness enters only through ``rng``, at the deal.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from empire_envs.core.cards import NUM_CARDS, rank_of
from empire_envs.core.errors import IllegalActionError
from empire_envs.core.options import card_list_option
from empire_envs.core.phases import PhaseRules, phase_table

from . import actions as A
from .config import ToyNimConfig
from .state import NUM_SEATS, Phase, ToyNimState

WIN_REWARD, LOSS_REWARD = 1.0, -1.0


def new_game(config: ToyNimConfig, rng: np.random.Generator, deck: Sequence[str | int] | None = None) -> ToyNimState:
    """A fresh game; ``deck`` (a reset option) stacks the pile, top card first."""
    if deck is None:
        order = [int(card) for card in rng.permutation(NUM_CARDS)]
    else:
        top = card_list_option("deck", deck)
        listed = set(top)
        order = top + [int(card) for card in rng.permutation([c for c in range(NUM_CARDS) if c not in listed])]
    state = ToyNimState(config)
    state.pile = order[: config.pile_size][::-1]  # the top card last
    state.unused = order[config.pile_size :]
    return state


# --------------------------------------------------------------------------- the phases


def _seat_to_act(state: ToyNimState) -> int:
    return state.seat


def _take_actions(state: ToyNimState) -> list[int]:
    return [A.take(count) for count in range(1, min(state.config.max_take, len(state.pile)) + 1)]


def _take(state: ToyNimState, action: int, rng: np.random.Generator) -> None:
    _, count = A.decode(action, state.config)
    hand = state.hands[state.seat]
    for _ in range(count):
        hand.append(state.pile.pop())
    if not state.pile:
        state.last_taker = state.seat
    _end_decision(state)


def _discard_actions(state: ToyNimState) -> list[int]:
    return sorted(A.discard(card, state.config) for card in state.hands[state.seat])


def _discard(state: ToyNimState, action: int, rng: np.random.Generator) -> None:
    _, card = A.decode(action, state.config)
    state.hands[state.seat].remove(card)
    state.discards.append(card)
    _end_decision(state)


def _nobody(state: ToyNimState) -> int:
    return -1


def _no_actions(state: ToyNimState) -> list[int]:
    return []


def _game_over(state: ToyNimState, action: int, rng: np.random.Generator) -> None:
    raise IllegalActionError("the game is over; start a new one")


#: everything about each phase, indexed by ``state.phase``
PHASES = phase_table(
    Phase,
    {
        Phase.TAKE: PhaseRules(actor=_seat_to_act, legal_actions=_take_actions, apply=_take),
        Phase.DISCARD: PhaseRules(actor=_seat_to_act, legal_actions=_discard_actions, apply=_discard),
        Phase.OVER: PhaseRules(actor=_nobody, legal_actions=_no_actions, apply=_game_over),
    },
)


def _end_decision(state: ToyNimState) -> None:
    """After a take or a discard: discard again, end the game, or pass the turn."""
    if len(state.hands[state.seat]) > state.config.hand_limit:
        state.phase = Phase.DISCARD
    elif not state.pile:
        state.phase = Phase.OVER
    else:
        state.phase = Phase.TAKE
        state.seat = (state.seat + 1) % NUM_SEATS


# --------------------------------------------------------------------------- the generic verbs


def acting_player(state: ToyNimState) -> int:
    return PHASES[state.phase].actor(state)


def legal_actions(state: ToyNimState) -> list[int]:
    return PHASES[state.phase].legal_actions(state)


def legal_mask(state: ToyNimState) -> np.ndarray:
    mask = np.zeros(A.num_actions(state.config), dtype=np.int8)
    mask[legal_actions(state)] = 1
    return mask


def apply_action(state: ToyNimState, action: int, rng: np.random.Generator) -> list[float]:
    """Play the acting seat's ``action`` in place; both seats' rewards (the result, at the end)."""
    if state.phase == Phase.OVER:
        raise IllegalActionError("the game is over; start a new one")
    if action not in legal_actions(state):
        raise IllegalActionError(f"{A.action_name(state, action)} is not legal now")
    PHASES[state.phase].apply(state, action, rng)
    return returns(state) if state.phase == Phase.OVER else [0.0] * NUM_SEATS


def is_terminal(state: ToyNimState) -> bool:
    return state.phase == Phase.OVER


def scores(state: ToyNimState) -> list[int]:
    """Each seat's points: its hand (A = 1 ... K = 13) and the last card's bonus."""
    points = [sum(rank_of(card) + 1 for card in hand) for hand in state.hands]
    if state.last_taker >= 0:
        points[state.last_taker] += state.config.last_card_bonus
    return points


def returns(state: ToyNimState) -> list[float]:
    """+1 for the higher score and -1 for the other once the game is over; zeros before, or on a tie."""
    if state.phase != Phase.OVER:
        return [0.0] * NUM_SEATS
    first, second = scores(state)
    if first == second:
        return [0.0] * NUM_SEATS
    return [WIN_REWARD, LOSS_REWARD] if first > second else [LOSS_REWARD, WIN_REWARD]


def outcome(state: ToyNimState) -> str:
    if state.phase != Phase.OVER:
        return "ongoing"
    result = returns(state)
    return "draw" if result[0] == result[1] else f"won by seat {result.index(WIN_REWARD)}"


def max_game_length(config: ToyNimConfig) -> int:
    """Every take moves at least one pile card into a hand and every discard moves one out of a
    hand: at most ``pile_size`` of each."""
    return 2 * config.pile_size


def determinize(state: ToyNimState, seat: int, rng: np.random.Generator) -> ToyNimState:
    """A copy in which everything ``seat`` cannot see is drawn again: the pile's cards and order,
    the other hand and the cards out of the game (their sizes kept)."""
    copy = state.clone()
    other = 1 - seat
    hidden = copy.pile + copy.hands[other] + copy.unused
    pool = [hidden[i] for i in rng.permutation(len(hidden))]
    pile_size, hand_size = len(copy.pile), len(copy.hands[other])
    copy.pile = pool[:pile_size]
    copy.hands[other] = pool[pile_size : pile_size + hand_size]
    copy.unused = pool[pile_size + hand_size :]
    return copy
