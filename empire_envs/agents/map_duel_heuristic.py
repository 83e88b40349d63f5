"""A one-move-deep rule-of-thumb player for Map Duel.

Every legal action is scored by the position it leads to (the game is open: both pools and the
map are public, so nothing hidden is read), and the best is played:

* the colour share of the map's number cards (consuming the opponent's colour, building my own);
* faces on the map, mine against the enemy's (a confrontation counts by its odds, coins at 1/2,
  from ``rules.confront_odds``, never by a coin flip the agent could not know);
* my Kings' and Queens' pool values (keep pools strong);
* how far the opponent-colour cards of the map are from my nearest face (go where the work is);
* a small bonus for ending the game as the winner, a large one for winning.

Setup placements and cells are scored the same way (the starting face goes next to the most
opposite-colour cards). Ties fall to the agent's own seeded generator, so it is repeatable.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from ..games.map_duel import rules
from ..games.map_duel.actions import Kind, layout_for
from ..games.map_duel.state import KING_TYPE, NUM_NUMBER_CARDS, REMOVED, MapDuelState, Phase, face_type
from .base import SeededAgent


def evaluate(state: MapDuelState, seat: int) -> float:
    """How good ``state`` looks for ``seat`` (higher is better; a win is worth 100)."""
    if state.phase == Phase.OVER:
        if state.winner == seat:
            return 100.0
        return -100.0 if state.winner == 1 - seat else 0.0
    share = rules.colour_share(state)
    mine_share = share if seat == 0 else 1.0 - share
    my_faces = len(rules.faces_on_map(state, seat))
    their_faces = len(rules.faces_on_map(state, 1 - seat))
    totals = rules.suit_totals(state.pools[seat])
    strength = sum(rules.face_value(state, seat, f, totals) for f in rules.faces_on_map(state, seat))
    return (
        10.0 * mine_share
        + 3.0 * (my_faces - their_faces)
        + 0.05 * strength
        + 0.1 * sum(state.pools[seat])
        - 0.2 * _reach(state, seat)
    )


#: per seat, the number cards of the other seat's colour (the cards its faces must consume)
_OTHER_COLOUR = tuple(
    frozenset(code for code in range(NUM_NUMBER_CARDS) if not rules.is_own_colour(seat, code)) for seat in range(2)
)


@cache
def _coordinates(B: int) -> tuple[tuple[int, int], ...]:
    """(row, column) of each cell of a ``B`` x ``B`` map."""
    return tuple(divmod(cell, B) for cell in range(B * B))


def _reach(state: MapDuelState, seat: int) -> float:
    """The mean distance (in steps) from the opponent-colour cards of the map to my nearest
    face: small when my faces stand where the cards they must consume are."""
    at = _coordinates(state.B)
    faces = [at[state.face_pos[seat][f]] for f in rules.faces_on_map(state, seat)]
    other = _OTHER_COLOUR[seat]
    targets = [at[cell] for cell, code in enumerate(state.board) if code in other]
    if not faces or not targets:
        return 0.0
    return sum(min(abs(r - fr) + abs(c - fc) for fr, fc in faces) for r, c in targets) / len(targets)


class MapDuelHeuristicAgent(SeededAgent):
    """Scores each legal action one move deep (see the module docstring)."""

    name = "heuristic"

    def act(self, observation: np.ndarray, action_mask: np.ndarray, state: Any = None) -> int:
        if state is None:
            raise ValueError("the Map Duel heuristic reads the game state; pass it to act()")
        legal = [int(a) for a in np.flatnonzero(action_mask)]
        if not legal:
            raise ValueError("no legal action in the mask")
        if len(legal) == 1:
            return legal[0]
        seat = state.current
        lay = layout_for(state.B)
        if state.phase == Phase.SETUP_FACE:  # a King: its pool value counts most in confrontations
            kings = [a for a in legal if face_type(lay.decode(a).a) == KING_TYPE]
            return kings[int(self.rng.integers(len(kings)))] if kings else legal[0]
        best, best_score = [], -np.inf
        # no move but a confrontation flips a coin, and confrontations are scored by their odds:
        # the rules are handed a generator that is never drawn from (one per decision: making a
        # generator costs more than scoring a move)
        no_coin = np.random.default_rng(0)
        for action in legal:
            score = self._score(state, seat, lay, action, no_coin)
            if score > best_score + 1e-9:
                best, best_score = [action], score
            elif abs(score - best_score) <= 1e-9:
                best.append(action)
        return best[int(self.rng.integers(len(best)))]

    def _score(self, state: MapDuelState, seat: int, lay, action: int, no_coin: np.random.Generator) -> float:
        kind, a, b = lay.decode(action)
        if kind is Kind.CONFRONT:
            win, lose = rules.confront_odds(state, seat, a, b)
            score = 0.0
            for removed_seat, removed_face, p in ((1 - seat, b, win), (seat, a, lose)):
                if p:
                    after = state.clone()
                    after.board[after.face_pos[removed_seat][removed_face]] = -1
                    after.face_pos[removed_seat][removed_face] = -1
                    after.face_status[removed_seat][removed_face] = REMOVED
                    rules.check_end(after)
                    score += p * evaluate(after, seat)
            return score + (1.0 - win - lose) * evaluate(state, seat)
        if kind is Kind.END_TURN or kind is Kind.PASS_STEP1:
            return evaluate(state, seat) - 0.01
        after = state.clone()
        rules.apply_action(after, action, no_coin)
        return evaluate(after, seat)
