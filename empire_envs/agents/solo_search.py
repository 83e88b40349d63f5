"""A determinized search for Empire solo: perfect-information Monte Carlo (PIMC) over the heuristic.

At a decision with more than one legal action, ``SoloSearchAgent``:

1. asks ``HeuristicSoloAgent`` for its move (the *default*), and plays it at once unless the
   decision is one it searches (``is_searched``: every send of a battle, and a drawn card the
   heuristic would make a recruit or use to promote; ``search_everywhere=True`` searches all);
2. groups the legal actions by the board they leave (``afterstate_key``): actions that differ
   only by which keep or which outpost they use lead to positions the rules treat alike (keeps
   are interchangeable, and so are outposts), so one of each group is a *candidate*, the
   default's group represented by the default itself;
3. draws ``determinizations`` deck orders with ``rules.determinize`` (the deck order is the only
   hidden thing) from a copy of the state whose deck is put in card order first
   (``public_view``), so that no choice can depend on the true order; on each deal it plays every
   candidate followed by the heuristic to the end of the game. Every candidate meets the same
   deck order and the same generator for later reshuffles (common random numbers), so the
   comparison between two candidates is paired: where both win or both lose, the deal says
   nothing, and only the deals that split them count;
4. after the first quarter of the deals (at least one), drops every alternative that won fewer
   of them than the default or never differed from it (``worth_more_deals``), and plays the
   rest of the deals with the default and the survivors only;
5. plays the survivor with the most wins, but leaves the default only when it wins more than
   ``switch_margin * n`` more of the ``n`` deals than the default does (a small sample may
   favour a worse move by luck; the default is the better bet on a tie).

Why these decisions: a move chosen on a dozen deals and then judged on two dozen fresh ones
beat the heuristic's move on average where the drawn card becomes a recruit (+3.3 points of win
probability per decision, standard error 1.4) or a battle sends a recruit (+4.3, se 2.6), while
searching where a soldier is placed or stacked, or units merge, chose worse moves than the
heuristic's (-1.0, -1.4 and -1.1 points): the heuristic is hard to beat there, and the noise of
a small sample is not. Skipping those decisions also saves three quarters of the playouts.

PIMC or the generic ``ISMCTSAgent`` with heuristic playouts? Both spend their time in the same
playouts (a whole game of the heuristic is about 5 ms on the reference machine), so what differs
is what a playout buys. The reason to expect PIMC ahead: a single-seat ISMCTS samples a new deck
order at every iteration and compares the root's actions on different deals, while an Empire
solo game is won or lost mostly by the deal; PIMC compares the actions on the same deals, which
cancels that luck. The measurement did not bear this out: on 80 searched decisions, with the
same number of playouts (about 30) and each chosen move judged against the heuristic's on 32
fresh paired deals, ISMCTS's moves gained +2.4 points of win probability per decision (standard
error 1.4) and PIMC's +0.9 (se 0.9); the difference, +1.5 (se 1.2), does not separate them.
PIMC leaves the heuristic's move at 23% of those decisions, ISMCTS at 71%: the screening and
``switch_margin`` make PIMC cautious. This agent is PIMC because it is the one measured over
whole games (``docs/benchmarks/solo_ladder.md``: 78.0% [71.8, 83.2] wins at 16 deals per
decision, the heuristic 63.5% on the same 200 deals) and it needs no tree; a whole-game
measurement of ISMCTS at the same budget did not fit the session's compute.

Budget: ``determinizations`` deck orders per searched decision (each costs one playout per
surviving candidate, usually 2 to 4), optionally cut by ``time_budget_ms`` (at least one deck
order is always played). With one legal action, or one candidate, the agent answers at once.
For a fixed seed (``reset(seed)``) and without ``time_budget_ms`` it is deterministic.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from ..games.solo import actions as A
from ..games.solo import rules
from ..games.solo.actions import Kind
from ..games.solo.state import KEEPS, OUTPOSTS, REACT, SEND, WON, SoloState
from .base import Agent
from .solo_heuristic import HeuristicSoloAgent, afterstate

#: the heuristic reads the state, not the observation: playouts skip encoding one
NO_OBSERVATION = np.zeros(0, dtype=np.float32)


def territory_key(state: SoloState, territory: int) -> tuple[Any, ...]:
    """What stands on ``territory``: its kind, its cards and its recruit."""
    return state.unit_kind[territory], state.unit_cards[territory], state.recruit[territory]


def position_key(state: SoloState) -> tuple[Any, ...]:
    """The position up to the board's symmetries (keeps among keeps, outposts among outposts)
    and the order of the hidden deck: two states with equal keys are worth the same to a player
    who cannot see the deck order."""
    return (
        tuple(sorted(territory_key(state, t) for t in KEEPS)),
        tuple(sorted(territory_key(state, t) for t in OUTPOSTS)),
        state.drawn,
        state.phase,
        state.attacker,
        tuple(state.enemies),
        state.mode,
        state.split_first_won,
        tuple(sorted(state.sent)),
        tuple(sorted(state.discard)),
        state.outcome,
    )


def afterstate_key(state: SoloState, action: int) -> tuple[Any, ...]:
    """``position_key`` of the board ``action`` leaves before any new card is drawn."""
    return position_key(afterstate(state, action))


def candidate_actions(state: SoloState, legal: list[int], default: int) -> list[int]:
    """One action per group of ``legal`` actions leaving the same ``afterstate_key``, the
    ``default`` first (it stands for its own group)."""
    seen = {afterstate_key(state, default)}
    candidates = [default]
    for action in legal:
        if action == default:
            continue
        key = afterstate_key(state, action)
        if key not in seen:
            seen.add(key)
            candidates.append(action)
    return candidates


def public_view(state: SoloState) -> SoloState:
    """A copy of ``state`` with the deck in card order: which cards are in the deck is public,
    their order is not, so the search's deals (``determinize`` of this copy) cannot depend on it."""
    view = state.clone()
    view.deck.sort()
    return view


def play_out(state: SoloState, policy: HeuristicSoloAgent, rng: np.random.Generator) -> bool:
    """Play ``policy`` on ``state`` (in place) to the end of the game; True if it was won."""
    while not rules.is_terminal(state):
        legal = rules.legal_actions(state)
        if len(legal) == 1:
            action = legal[0]
        else:
            action = policy.act(NO_OBSERVATION, rules.legal_mask(state), state)
        rules.apply_action(state, action, rng)
    return state.outcome == WON


class SoloSearchAgent(Agent):
    """PIMC over the heuristic for Empire solo (see the module docstring).

    Args:
        determinizations: deck orders drawn per decision; each is played once per candidate.
        switch_margin: the default move is left only for a candidate that wins more than
            ``switch_margin * n`` more of the ``n`` deals played (0: any strictly larger count).
        time_budget_ms: optional wall-clock limit per decision; no new deck order is started
            after it (the agent is then no longer deterministic).
        seed: seeds the deck orders and reshuffles (``reset(seed)`` reseeds).
    """

    name = "search"

    def __init__(
        self,
        determinizations: int = 8,
        switch_margin: float = 0.1,
        time_budget_ms: float | None = None,
        seed: int | None = None,
        search_everywhere: bool = False,
    ) -> None:
        if determinizations < 1:
            raise ValueError(f"determinizations must be at least 1, got {determinizations}")
        if switch_margin < 0:
            raise ValueError(f"switch_margin must be >= 0, got {switch_margin}")
        if time_budget_ms is not None and time_budget_ms <= 0:
            raise ValueError(f"time_budget_ms must be positive, got {time_budget_ms}")
        self.determinizations = int(determinizations)
        self.switch_margin = float(switch_margin)
        self.time_budget_ms = time_budget_ms
        self.search_everywhere = bool(search_everywhere)
        self.heuristic = HeuristicSoloAgent()
        self.rng = np.random.default_rng(seed)
        self.last_playouts = 0  # playouts of the last decision (diagnostics)

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, state: Any = None) -> int:
        legal = [int(a) for a in np.flatnonzero(action_mask)]
        if not legal:
            raise ValueError("no legal action in the mask")
        self.last_playouts = 0
        if len(legal) == 1:
            return legal[0]
        if state is None:
            raise ValueError("SoloSearchAgent searches from the game state: pass it to act()")
        default = self.heuristic.act(observation, action_mask, state)
        if not (self.search_everywhere or is_searched(state, default)):
            return default
        candidates = candidate_actions(state, legal, default)
        if len(candidates) == 1:
            return default
        return self.search(state, candidates)

    def search(self, state: SoloState, candidates: list[int]) -> int:
        """The chosen one of ``candidates`` (``candidates[0]`` is the default move)."""
        deadline = None if self.time_budget_ms is None else time.perf_counter() + self.time_budget_ms / 1000
        total = self.determinizations
        screening = max(1, (total + 3) // 4)
        outcomes: list[list[bool]] = [[] for _ in candidates]
        alive = list(range(len(candidates)))
        played = 0
        public = public_view(state)
        while played < total and (deadline is None or played == 0 or time.perf_counter() < deadline):
            deal = rules.determinize(public, 0, self.rng)
            reshuffle_seed = int(self.rng.integers(2**63))
            for index in alive:
                rng = np.random.default_rng(reshuffle_seed)
                child = deal.clone()
                rules.apply_action(child, candidates[index], rng)
                outcomes[index].append(play_out(child, self.heuristic, rng))
                self.last_playouts += 1
            played += 1
            if played == screening:
                alive = [0] + [i for i in alive[1:] if worth_more_deals(outcomes[0], outcomes[i])]
                if len(alive) == 1:
                    return candidates[0]
        default_wins = sum(outcomes[0])
        best, best_gain = 0, 0
        for index in alive[1:]:
            gain = sum(outcomes[index]) - default_wins
            if gain > best_gain:
                best, best_gain = index, gain
        return candidates[best] if best_gain > self.switch_margin * played else candidates[0]


def is_searched(state: SoloState, default: int) -> bool:
    """Whether the agent searches a decision whose heuristic move is ``default``: every send of
    a battle, and a drawn card the heuristic would use as a recruit or to promote."""
    if state.phase == SEND:
        return True
    return state.phase == REACT and A.ACTIONS[default].kind in (Kind.RECRUIT, Kind.PROMOTE)


def worth_more_deals(default: list[bool], other: list[bool]) -> bool:
    """After the screening deals: an alternative is kept if it did at least as well as the
    default and some deal told them apart (one with no difference would need many deals to
    show one)."""
    return sum(other) >= sum(default) and any(a != b for a, b in zip(default, other, strict=True))


__all__ = [
    "SoloSearchAgent",
    "afterstate_key",
    "candidate_actions",
    "play_out",
    "position_key",
    "public_view",
]
