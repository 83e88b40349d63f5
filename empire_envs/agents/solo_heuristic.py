"""A rule-of-thumb player for Empire solo.

It plays the plan the rules reward: stack soldiers in the keeps into battalions, promote them
into natives, give each native a recruit, merge two natives into a base builder, and found bases
in the outposts (a base in a keep blocks the keeps the next base needs). Battles send the
cheapest unit that wins; the King's SUM/SPLIT choice is made from the odds over the cards still
in the deck (their identity is public, their order is not).

Choices outside battle compare *afterstates*: the board an action leaves, before any new card is
drawn. The probe runs the real rules on a clone whose draw budget is spent, so it never sees a
hidden card.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..games.solo import actions as A
from ..games.solo import rules
from ..games.solo.actions import Kind
from ..games.solo.state import (
    BASE,
    BATTALION,
    BUILDER,
    EMPTY,
    KEEPS,
    KING_MODE,
    LOST,
    NATIVE,
    OUTPOSTS,
    SEND,
    SOLDIER,
    SPLIT,
    SUPER,
    WON,
    SoloState,
)
from .base import Agent

# Worth of what stands on the board (see ``board_score``).
WORTH = {
    EMPTY: 0.0,
    SOLDIER: 4.0,
    SUPER: 18.0,
    BATTALION: 60.0,
    NATIVE: 130.0,
    BUILDER: 420.0,
}
BASE_IN_OUTPOST = 1000.0
BASE_IN_KEEP = 150.0  # still a one-shot unit that beats anything, but it blocks a keep
RECRUIT_ON_NATIVE = 70.0
RECRUIT_ON_BASE = 25.0
NO_FREE_OUTPOST_FOR_BUILDER = 60.0
SAFETY = {0: -400.0, 1: -120.0, 2: -40.0, 3: -10.0}  # by number of units that can be sent
WIN_SCORE, LOSS_SCORE = 1e6, -1e6


def board_score(state: SoloState) -> float:
    """How good a board is for the plan above (higher is better)."""
    if state.outcome == WON:
        return WIN_SCORE
    if state.outcome == LOST:
        return LOSS_SCORE
    kinds, recruits = state.unit_kind, state.recruit
    score = 0.0
    units = 0
    for t, kind in enumerate(kinds):
        if kind == EMPTY:
            continue
        units += 1
        if kind == BASE:
            score += BASE_IN_KEEP if t in KEEPS else BASE_IN_OUTPOST
            if recruits[t] >= 0:
                score += RECRUIT_ON_BASE
                units += 1
            continue
        score += WORTH[kind]
        if kind == NATIVE and recruits[t] >= 0:
            score += RECRUIT_ON_NATIVE
            units += 1
        # Stronger fodder wins more Queen rounds.
        score += 0.4 * min(rules.unit_value(state, t), 13)
    score += SAFETY.get(units, 0.0)
    if BUILDER in kinds and all(kinds[t] != EMPTY for t in OUTPOSTS):
        score -= NO_FREE_OUTPOST_FOR_BUILDER
    return score


def afterstate(state: SoloState, action: int) -> SoloState:
    """The state ``action`` leaves, with no new card drawn (the probe's draw budget is spent)."""
    probe = state.clone()
    probe.draws = probe.config.length_limit
    rules.apply_action(probe, action, None)
    return probe


class HeuristicSoloAgent(Agent):
    """Builds toward bases in the outposts and fights with the cheapest winning unit."""

    name = "heuristic"

    def act(self, observation: np.ndarray, action_mask: np.ndarray, state: Any = None) -> int:
        if state is None:
            raise ValueError("HeuristicSoloAgent reads the board: pass the game state")
        legal = [int(a) for a in np.flatnonzero(action_mask)]
        if not legal:
            raise ValueError("no legal action in the mask")
        if len(legal) == 1:
            return legal[0]
        if state.phase == KING_MODE:
            return self._king_mode(state, legal)
        if state.phase == SEND:
            return self._send(state, legal)
        return self._best_afterstate(state, legal)

    # ------------------------------------------------------------------ outside battle

    def _best_afterstate(self, state: SoloState, legal: list[int]) -> int:
        best, best_score = legal[0], -np.inf
        for action in legal:
            if action == A.FIGHT:
                score = board_score(state) - self._expected_fight_cost(state)
            else:
                score = board_score(afterstate(state, action))
            if score > best_score:
                best, best_score = action, score
        return best

    def _expected_fight_cost(self, state: SoloState) -> float:
        """A rough price for fighting the drawn face card: the cheapest unit, more for Q/K."""
        cheapest = min(
            (
                board_score(state) - board_score(self._without(state, t))
                for t in range(6)
                if state.unit_kind[t] != EMPTY
            ),
            default=-LOSS_SCORE,
        )
        rank = state.drawn % 13
        return cheapest * (1.0 if rank == 10 else 1.6 if rank == 11 else 2.2)

    @staticmethod
    def _without(state: SoloState, territory: int, recruit_only: bool = False) -> SoloState:
        """A copy with the unit at ``territory`` (or only its recruit) gone, as if sent."""
        probe = state.clone()
        if not recruit_only:
            probe.unit_kind[territory], probe.unit_cards[territory] = EMPTY, ()
        probe.recruit[territory] = -1
        return probe

    # ------------------------------------------------------------------ battle

    def _send(self, state: SoloState, legal: list[int]) -> int:
        target = rules.enemy_target(state)
        round_already_lost = state.mode == SPLIT and state.split_first_won == 0
        sends = [a for a in legal if A.ACTIONS[a].kind in (Kind.SEND, Kind.SEND_RECRUIT)]
        merges = [a for a in legal if A.ACTIONS[a].kind == Kind.MERGE]

        def value(action: int) -> int:
            kind, t, _ = A.ACTIONS[action]
            return rules.unit_value(state, t, recruit_only=kind == Kind.SEND_RECRUIT)

        def cost(action: int) -> float:
            kind, t, _ = A.ACTIONS[action]
            probe = self._without(state, t, recruit_only=kind == Kind.SEND_RECRUIT)
            return board_score(state) - board_score(probe)

        if state.mode == SPLIT and state.split_first_won < 0:
            return self._first_split_send(state, sends, value, cost)
        winners = [a for a in sends if value(a) >= target] if not round_already_lost else []
        cheapest_any = min(sends, key=cost)
        if winners:
            cheapest_winner = min(winners, key=cost)
            # Losing a round costs the unit sent and brings a new enemy: about two units.
            if cost(cheapest_winner) <= 2.0 * cost(cheapest_any) + 20.0:
                return cheapest_winner
        if merges and not round_already_lost:  # merge_in_battle: build a winner if it helps
            for merge in merges:
                if rules.unit_value(afterstate(state, merge), A.ACTIONS[merge].b) >= target:
                    return merge
        return cheapest_any

    def _first_split_send(self, state, sends, value, cost) -> int:
        second = rules.VALUE[state.enemies[1]]
        first = rules.VALUE[state.enemies[0]]
        best, best_key = sends[0], None
        for a in sends:
            rest = [b for b in sends if b != a and not self._same_unit(a, b)]
            can_win_second = any(value(b) >= second for b in rest)
            wins_both = value(a) >= first and can_win_second
            key = (wins_both, -cost(a))
            if best_key is None or key > best_key:
                best, best_key = a, key
        return best

    @staticmethod
    def _same_unit(a: int, b: int) -> bool:
        # Sending the whole unit after its recruit went is fine; the reverse is not possible.
        return A.ACTIONS[a].a == A.ACTIONS[b].a and A.ACTIONS[a].kind == Kind.SEND

    def _king_mode(self, state: SoloState, legal: list[int]) -> int:
        if A.SPLIT_ACTION not in legal:
            return A.SUM_ACTION
        first = rules.VALUE[state.enemies[0]]
        values = sorted(self._unit_values(state), reverse=True)
        candidates = [rules.VALUE[card] for card in state.deck] or [7]
        p_sum = np.mean([values[0] >= first + second for second in candidates])
        p_split = np.mean([self._split_wins(values, first, second) for second in candidates])
        # SPLIT spends two units on the round, SUM one: it must be clearly likelier to win.
        return A.SPLIT_ACTION if p_split > p_sum + 0.25 else A.SUM_ACTION

    @staticmethod
    def _split_wins(values: list[int], first: int, second: int) -> bool:
        for i, a in enumerate(values):
            if a >= first:
                return any(b >= second for j, b in enumerate(values) if j != i)
        return False

    @staticmethod
    def _unit_values(state: SoloState) -> list[int]:
        """Battle values of units worth risking: bases only when nothing else stands."""
        values = [rules.unit_value(state, t) for t in range(6) if state.unit_kind[t] not in (EMPTY, BASE)]
        return values or [rules.BASE_VALUE] * state.num_bases()
