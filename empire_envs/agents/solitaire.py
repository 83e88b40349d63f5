"""Agents for Empire Solitaire: greedy, reveal-then-solve and the fair expectimax (fair), and the
solver's oracle."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..games.solitaire import actions as A
from ..games.solitaire import rules
from ..games.solitaire.fair import EPS as FAIR_EPS
from ..games.solitaire.fair import FairPosition, FairSearch
from ..games.solitaire.solver import solve
from ..games.solitaire.state import ONGOING, WON, SolitaireState
from .base import Agent


def _mobility(state: SolitaireState) -> int:
    """Captures available in a position (the greedy player's measure of a good position)."""
    return len(rules._captures(state.grid))


class GreedySolitaireAgent(Agent):
    """One-step lookahead on what it can see.

    Captures first, choosing the capture that leaves the most captures available and never one
    that splits the visible cards into groups that can no longer meet (when the stock is empty);
    reveals the stock only when no capture is left; places a revealed card where it has the most
    captures.
    """

    name = "greedy"

    def act(self, observation: np.ndarray, action_mask: np.ndarray, state: Any = None) -> int:
        if state is None:
            raise ValueError("GreedySolitaireAgent reads the grid: pass the game state")
        legal = [int(a) for a in np.flatnonzero(action_mask)]
        if not legal:
            raise ValueError("no legal action in the mask")
        captures = [a for a in legal if a < A.REVEAL]
        if state.revealed < 0 and not captures:
            return A.REVEAL if A.REVEAL in legal else legal[0]
        candidates = captures if state.revealed < 0 else legal
        return max(candidates, key=lambda action: self._score(state, action))

    @staticmethod
    def _score(state: SolitaireState, action: int) -> float:
        child = state.clone()
        child.stock = []  # the probe must not see the stock; an empty one also skips the reveal
        child.outcome = 0
        grid = child.grid
        kind, a, b = A.ACTIONS[action]
        if kind is A.Kind.CAPTURE:
            target = rules.capture_target(grid, a, b)
            grid[target], grid[a] = grid[a], -1
        else:
            grid[a] = state.revealed
        score = float(_mobility(child))
        if not state.stock and not rules.connected([c for c in grid if c >= 0]):
            score -= 100.0
        return score


class RevealThenGreedyAgent(GreedySolitaireAgent):
    """The greedy player, except that it opens the stock as soon as the rules allow.

    Revealing early turns the rest of the game into one the player sees whole, which is what
    makes ``reveal-solve`` strong; without the solver the greedy choices then still win about
    fifteen times as often as plain greedy (7.5% against 0.5% over 2,000 deals).
    """

    name = "reveal-greedy"

    def act(self, observation: np.ndarray, action_mask: np.ndarray, state: Any = None) -> int:
        if action_mask[A.REVEAL]:
            return A.REVEAL
        return super().act(observation, action_mask, state)


class _SolvesWhenNothingHidden:
    """What a fair planner that plays the exact solver once nothing is hidden tells imitation
    (``training.jax_imitate``): it is content with any winning line there. Reads the grid, never
    the stock."""

    def acceptable_actions(self, observation: np.ndarray, action_mask: np.ndarray, state: Any = None) -> list[int]:
        """The moves the planner would be content with besides its own: once nothing is hidden
        (the stock empty, or its last card in view), each legal move after which the visible game
        can still be won, since its solver takes any winning line; before that, none."""
        if state is None:
            raise ValueError(f"{type(self).__name__} reads the grid: pass the game state")
        if state.stock or state.outcome != ONGOING:
            return []
        return [action for action in map(int, np.flatnonzero(action_mask)) if _still_winnable(state, action)]

    def judges(self, observation: np.ndarray, action_mask: np.ndarray, state: Any = None) -> bool:
        """Whether ``acceptable_actions`` names every move that keeps a win here: once nothing is
        hidden. There, none named means the position is lost (``training.jax_imitate`` can leave
        such positions out, and fits every move of the others)."""
        if state is None:
            raise ValueError(f"{type(self).__name__} reads the grid: pass the game state")
        return not state.stock and state.outcome == ONGOING


class RevealThenSolveAgent(_SolvesWhenNothingHidden, Agent):
    """A fair planner: open the stock as early as the rules allow, then play perfectly.

    Once the last stock card is placed, nothing is hidden any more and the exact solver finds a
    winning line if one exists. Before that it captures greedily (a capture is needed to open
    the stock), reveals whenever it may, and places the last stock card on a cell from which
    the solver can win. It never reads the stock: it calls the solver only on visible grids.
    """

    name = "reveal-solve"

    def __init__(self) -> None:
        self._plan: list[int] = []
        self._greedy = GreedySolitaireAgent()

    def reset(self, seed: int | None = None) -> None:
        self._plan = []

    def act(self, observation: np.ndarray, action_mask: np.ndarray, state: Any = None) -> int:
        if state is None:
            raise ValueError("RevealThenSolveAgent reads the grid: pass the game state")
        if self._plan and action_mask[self._plan[0]] == 1:
            return self._plan.pop(0)
        self._plan = []
        legal = [int(a) for a in np.flatnonzero(action_mask)]
        if state.revealed >= 0 and not state.stock:  # the last hidden card is in view
            for action in legal:
                grid = list(state.grid)
                grid[A.ACTIONS[action].a] = state.revealed
                line = solve(grid, [])
                if line is not None:
                    self._plan = list(line)
                    return action
        elif state.revealed < 0 and A.REVEAL in legal:
            return A.REVEAL
        elif state.revealed < 0 and not state.stock:
            line = solve(state.grid, [])
            if line:
                self._plan = list(line[1:])
                return line[0]
        return self._greedy.act(observation, action_mask, state)


def _still_winnable(state: SolitaireState, action: int) -> bool:
    """Whether the position after ``action`` can be won, for a state whose stock is empty (its last
    card may be in view, waiting to be placed)."""
    after = state.clone()
    rules.apply_action(after, action)
    if after.outcome != ONGOING:
        return after.outcome == WON
    return solve(after.grid, []) is not None


class SolverAgent(Agent):
    """An ORACLE: it reads the hidden stock order and plays the solver's winning line.

    Its results bound any fair agent from above; where a deal cannot be won it plays greedily.
    """

    name = "solver"

    def __init__(self) -> None:
        self._plan: list[int] = []
        self._fallback = GreedySolitaireAgent()

    def reset(self, seed: int | None = None) -> None:
        self._plan = []

    def act(self, observation: np.ndarray, action_mask: np.ndarray, state: Any = None) -> int:
        if state is None:
            raise ValueError("SolverAgent reads the (hidden) stock: pass the game state")
        if not self._plan or action_mask[self._plan[0]] != 1:
            self._plan = []
            if state.revealed < 0:
                line = solve(state.grid, state.stock[::-1])
                self._plan = list(line) if line else []
        if self._plan and action_mask[self._plan[0]] == 1:
            return self._plan.pop(0)
        return self._fallback.act(observation, action_mask, state)


class OptimalSolitaireAgent(_SolvesWhenNothingHidden, Agent):
    """A fair expectimax player: the best action by the fair optimum (``games.solitaire.fair``).

    At each decision it searches the expectimax over the hidden stock from the position it sees
    (``FairPosition.from_state``: grid, captured cards, waiting card and the stock's size; never
    the stock's cards) for at most ``time_limit`` CPU seconds (default 0.05; forced moves are played
    without a search) and, when given, ``node_limit`` nodes (a limit that makes the agent
    deterministic, for tests; ``time_limit=None`` then drops the clock), and plays the action with
    the best proven lower bound: exact when the search finished, otherwise the value of the best
    strategy found after that action. The ``prior``'s choice (reveal-then-solve by default; an
    agent, or any agent spec, such as a trained network ``jaxppo:PATH`` or
    ``pretrained:EmpireSolitaire-v0``) is searched first and kept unless another action's lower
    bound is strictly higher, so where the search proves nothing the agent plays as its prior
    does. Once the stock is empty nothing is hidden and it plays the solver's winning line. Its
    table of bounds lives for one game (``reset`` clears it): each search starts from what the
    earlier ones proved, so the lower bounds only rise. As a teacher for imitation it names, once
    nothing is hidden, every move that keeps a win (``acceptable_actions``, as reveal-solve does).
    """

    name = "optimal"

    def __init__(
        self, time_limit: float | None = 0.05, node_limit: int | None = None, prior: str | Agent | None = None
    ) -> None:
        if time_limit is not None and time_limit <= 0:
            raise ValueError(f"time_limit must be positive seconds or None, got {time_limit!r}")
        if node_limit is not None and node_limit < 1:
            raise ValueError(f"node_limit must be a positive number of nodes or None, got {node_limit!r}")
        if time_limit is None and node_limit is None:
            raise ValueError("give a time_limit or a node_limit: a whole deal's expectimax does not finish")
        self.time_limit = None if time_limit is None else float(time_limit)
        self.node_limit = node_limit
        self._search = FairSearch()
        self._plan: list[int] = []
        self._prior: Agent | None = None
        if isinstance(prior, Agent):
            self._prior = prior
        elif prior is not None:
            from .base import make_agent  # the registry imports this module

            self._prior = make_agent(prior, "solitaire")

    def reset(self, seed: int | None = None) -> None:
        self._search = FairSearch()
        self._plan = []
        if self._prior is not None:
            self._prior.reset(seed=seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, state: Any = None) -> int:
        if state is None:
            raise ValueError("OptimalSolitaireAgent reads the grid: pass the game state")
        legal = [int(a) for a in np.flatnonzero(action_mask)]
        if not legal:
            raise ValueError("no legal action in the mask")
        if len(legal) == 1:
            return legal[0]
        position = FairPosition.from_state(state)
        if position.stock_left == 0 and position.revealed < 0:  # nothing hidden: play the solver's line
            if not (self._plan and self._plan[0] in legal):
                self._plan = list(solve(position.grid, []) or [])
            if self._plan and self._plan[0] in legal:
                return self._plan.pop(0)
        self._plan = []
        if self._prior is None:
            fallback = RevealThenSolveAgent().act(observation, action_mask, state)  # a fresh one: no stale plan
        else:
            fallback = int(self._prior.act(observation, action_mask, state))
        bounds = self._search.action_bounds(
            position, time_limit=self.time_limit, node_limit=self.node_limit, first=fallback
        )
        best = max(legal, key=lambda action: bounds.get(action, (0.0, 0.0))[0])
        if bounds.get(best, (0.0, 0.0))[0] > bounds.get(fallback, (0.0, 0.0))[0] + FAIR_EPS:
            return best
        return fallback
