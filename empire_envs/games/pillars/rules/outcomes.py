"""How a game ends and what it pays: the terminal test, each seat's final reward (section 1 of
``docs/rules/pillars.md``), a guess of it for search agents that stop early, and the game's
metadata (``max_game_length``, ``utility_range``)."""

from __future__ import annotations

from ..config import PillarsConfig
from ..state import (
    NO_EMPIRE,
    NUM_PILLAR_RANKS,
    OVER,
    RANKS_PER_EMPIRE,
    TRUNCATED,
    WON,
    PillarsState,
    empire_of,
)
from ..tables import ONGOING_NAME, TRUNCATED_NAME, won_name


def is_terminal(state: PillarsState) -> bool:
    return state.phase == OVER


def is_truncated(state: PillarsState) -> bool:
    return state.outcome == TRUNCATED


def final_rewards(state: PillarsState) -> list[float]:
    """Section 1: winner +1, the others -1 (or ``-1/(n-1)`` when zero-sum); 0 on truncation."""
    return win_rewards(state.n, state.winner if state.outcome == WON else -1, state.config)


def win_rewards(n: int, winner: int, config: PillarsConfig) -> list[float]:
    """+1 to ``winner`` and the scheme's loss to every other seat; all 0 when ``winner`` is -1."""
    if winner < 0:
        return [0.0] * n
    loss = -1.0 if config.reward_scheme == "win_loss" else -1.0 / (n - 1)
    return [1.0 if seat == winner else loss for seat in range(n)]


def outcome_name(state: PillarsState) -> str:
    if state.outcome == WON:
        return won_name(state.winner)
    return TRUNCATED_NAME if state.outcome == TRUNCATED else ONGOING_NAME


# --------------------------------------------------------------------------- search support


def progress(state: PillarsState, seat: int) -> float:
    """Pillars laid plus the share of the next pillar already in hand (0..4.75): a rough
    distance to winning, used by ``heuristic_values`` and the heuristic agent."""
    laid = state.pillar_count(seat)
    hand = state.hands[seat]
    empire = state.empire[seat]
    jokers = hand[state.kinds.joker]
    best = 0
    for rank in range(NUM_PILLAR_RANKS):
        if state.pillars[seat][rank] or (empire != NO_EMPIRE and empire_of(rank) != empire):
            continue
        best = max(best, min(4, sum(hand[k] for k in state.kinds.naturals[rank]) + jokers))
    return laid + best / 4.0 * 0.75


def heuristic_values(state: PillarsState) -> list[float]:
    """A guess in [-1, 1] of each seat's final reward for a game cut short: the seat's progress
    against the best of the others."""
    if state.phase == OVER:
        return final_rewards(state)
    scores = [progress(state, seat) for seat in range(state.n)]
    values = []
    for seat in range(state.n):
        best_other = max(scores[s] for s in range(state.n) if s != seat)
        values.append(max(-1.0, min(1.0, (scores[seat] - best_other) / 3.0)))
    return values


# --------------------------------------------------------------------------- game metadata


def max_interaction_decisions(config: PillarsConfig) -> int:
    """The most decisions one steal, trade or battle takes, its start included: a steal is 1; a
    trade is ``n + 1`` (the start, one offer from each other seat, the pick; 16-19); a battle is
    1 plus two throws per round of rock-paper-scissors, of which there are at most
    ``rps_max_ties`` (the ``rps_max_ties``-th tie in a row is settled by a coin, 26), so
    ``1 + 2 * rps_max_ties``, or 1 when ``rps_mode="random"`` (a coin, no throws, 27)."""
    throws = 2 * config.rps_max_ties if config.rps_mode == "played" else 0
    return 1 + max(config.num_players, throws)


def max_turn_decisions(config: PillarsConfig) -> int:
    """The most decisions one turn takes, pillar lays aside (``max_game_length`` counts those
    per game): the main action and the bonus action, each at most one interaction
    (``max_interaction_decisions``; declining an optional main action is a single END_BUILD),
    then END_BUILD, the discard and, after a discarded 2, the skip target. A round-1 turn has no
    interaction (at most END_BUILD and the discard) and a skipped turn no decision at all."""
    return 2 * max_interaction_decisions(config) + 3


def max_game_length(config: PillarsConfig) -> int:
    """An upper bound on the decisions of one game: at most ``length_limit * n`` turns begin
    (skipped turns count, and the game is truncated when turn ``length_limit * n`` would begin;
    section 47), each at most ``max_turn_decisions``, plus every pillar lay of the game: a seat
    lays at most four pillars (the four ranks of its empire, each once; sections 30, 31), so
    ``4 * n`` in all. ``tests/pillars/test_game_length.py`` plays turns that take exactly
    ``max_turn_decisions``."""
    n = config.num_players
    return config.length_limit * n * max_turn_decisions(config) + RANKS_PER_EMPIRE * n


def utility_range(config: PillarsConfig) -> tuple[float, float]:
    """The least and greatest final return of a seat (shaping excluded): a loser's -1 (or
    ``-1/(n-1)`` when zero-sum) and the winner's +1; a truncated game's 0 lies between."""
    return min(win_rewards(config.num_players, 0, config)), max(win_rewards(config.num_players, 0, config))
