"""Single-observer information-set Monte Carlo tree search (SO-ISMCTS) for any multiplayer game.

The agent searches one tree of action histories seen from the seat that must act (the
*observer*). Each iteration:

1. **Determinize**: ``game.determinize(state, observer, rng)`` draws one full state that agrees
   with everything the observer can see (other hands, the resource pile's order, hidden
   commitments are resampled). The agent never reads hidden information any other way: the true
   state goes only to ``determinize`` and ``acting_player`` (public), and the root's legal
   actions are those of the observer's own mask.
2. **Select**: walk down the shared tree. At each node only the children whose actions are legal
   in this determinization are candidates; each candidate's *availability* count goes up by one,
   and the child maximizing UCB1 ``mean + c * sqrt(ln(availability) / visits)`` is taken. A
   child's mean is the average final reward *of the seat that chose it* (the seat acting at its
   parent), so every seat plays to maximize its own reward: rewards are vectors, one per seat.
3. **Expand** one untried legal action (chosen at random, or by the rollout policy with
   ``guided_expansion``; with ``first_play_urgency`` an untried action competes with the tried
   ones instead of always coming first).
4. **Play out** with the rollout policy (uniform random by default) for at most
   ``max_playout_steps`` steps.
5. **Score**: ``game.returns`` if the game is over, else ``game.heuristic_values`` when the game
   provides it, else zeros; back the vector up the path (per-step rewards such as Pillars'
   ``shaping`` are not counted).

The move played is the root child visited most (ties: higher mean, then lower index). With a
single legal action the agent returns it at once without searching. For a fixed seed the agent
is deterministic unless ``time_budget`` cuts the search short (a wall-clock limit depends on the
machine).

Limitations (those of SO-ISMCTS): the tree treats the other seats' moves as if the observer saw
them, so a hidden commitment (a sealed trade offer, a rock-paper-scissors throw) is searched as
if the next seat could react to it; searching its own throw is therefore little better than
uniform.

The game is the constructor's ``game`` argument, or found from the state with ``game_of``.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from ..core.game import Game
from ..registry import game_of_state
from .base import Agent

#: ``rollout_policy(state, legal_actions, rng) -> action``: the playout move of the acting seat
#: (``rng`` is a ``random.Random``); it sees the determinized state, which is all sampled.
RolloutPolicy = Callable[[Any, list[int], random.Random], int]


def game_of(state: Any) -> Game:
    """The ``Game`` whose rules drive ``state``: the registry's game whose ``state_class`` the
    state is an instance of (games added with ``empire_envs.registry.register_game`` included).
    Raises ``TypeError`` for an unknown state type."""
    try:
        return game_of_state(state)
    except TypeError:
        raise TypeError(
            f"no registered game plays a {type(state).__name__}; pass game=... to the agent or add the game "
            "with empire_envs.registry.register_game"
        ) from None


class _Node:
    """A tree node: the statistics of the action leading to it, for the seat that chose it."""

    __slots__ = ("children", "visits", "avail", "total", "player")

    def __init__(self, player: int) -> None:
        self.children: dict[int, _Node] = {}
        self.visits = 0
        self.avail = 1
        self.total = 0.0
        self.player = player  # the seat that chose this node's action (acting at the parent)


def random_rollout(state: Any, legal: list[int], rng: random.Random) -> int:
    """The default rollout policy: uniform over the legal actions."""
    return legal[int(rng.random() * len(legal))]


class ISMCTSAgent(Agent):
    """SO-ISMCTS over any ``Game`` (see the module docstring).

    Args:
        iterations: determinize-select-expand-playout iterations per decision (the cap when
            ``time_budget`` is also given; None with a time budget means no cap).
        exploration: the UCB1 constant ``c``.
        max_playout_steps: playout moves after the expanded node before the heuristic scores
            the state (0: score the expanded node directly).
        seed: seeds the agent's generators (``reset(seed)`` reseeds them).
        time_budget: optional wall-clock seconds per decision.
        game: the rules; None finds them from the state with ``game_of``.
        rollout_policy: the playout policy (``RolloutPolicy``); uniform random by default.
        first_play_urgency: None (classic): every legal untried action of a node is expanded
            before any child is selected again. A number ``r``: an untried action is worth the
            mean of its tried siblings less ``r``, and is expanded only when that beats every
            tried child's UCB value (helps when nodes have many actions and few iterations).
        guided_expansion: expand the untried action the rollout policy picks among the untried
            ones (the default picks uniformly); useful with an informed rollout policy.
    """

    name = "ismcts"

    def __init__(
        self,
        iterations: int | None = 200,
        exploration: float = 0.7,
        max_playout_steps: int = 20,
        seed: int | None = None,
        time_budget: float | None = None,
        game: Game | None = None,
        rollout_policy: RolloutPolicy | None = None,
        first_play_urgency: float | None = None,
        guided_expansion: bool = False,
    ) -> None:
        if iterations is None and time_budget is None:
            raise ValueError("give iterations, time_budget or both")
        if iterations is not None and iterations < 1:
            raise ValueError(f"iterations must be at least 1, got {iterations}")
        if max_playout_steps < 0:
            raise ValueError(f"max_playout_steps must be >= 0, got {max_playout_steps}")
        self.iterations = iterations
        self.exploration = float(exploration)
        self.max_playout_steps = int(max_playout_steps)
        self.time_budget = time_budget
        self.game = game
        self.rollout_policy = rollout_policy or random_rollout
        self.first_play_urgency = None if first_play_urgency is None else float(first_play_urgency)
        self.guided_expansion = bool(guided_expansion)
        self._seed(seed)
        self.last_iterations = 0  # iterations run by the last search (for diagnostics)

    def _seed(self, seed: int | None) -> None:
        self.np_rng = np.random.default_rng(seed)
        self.py_rng = random.Random(int(self.np_rng.integers(2**63)))

    def reset(self, seed: int | None = None) -> None:
        if seed is not None:
            self._seed(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray, state: Any = None) -> int:
        legal = [int(a) for a in np.flatnonzero(action_mask)]
        if not legal:
            raise ValueError("no legal action in the mask")
        if len(legal) == 1:
            return legal[0]
        if state is None:
            raise ValueError("ISMCTSAgent searches from the game state; pass it to act()")
        game = self.game if self.game is not None else game_of(state)
        return self.search(game, state, legal)

    def search(self, game: Game, state: Any, legal: list[int]) -> int:
        """Run the search from ``state`` for its acting seat; the chosen action of ``legal``."""
        observer = game.acting_player(state)
        root = _Node(observer)
        np_rng, rng = self.np_rng, self.py_rng
        determinize, apply_action = game.determinize, game.apply_action
        legal_actions, acting_player = game.legal_actions, game.acting_player
        is_terminal, returns = game.is_terminal, game.returns
        heuristic = game.heuristic_values
        rollout = self.rollout_policy
        c = self.exploration
        fpu = self.first_play_urgency
        guided = self.guided_expansion
        max_steps = self.max_playout_steps
        log, sqrt = math.log, math.sqrt
        limit = self.iterations
        deadline = None if self.time_budget is None else time.perf_counter() + self.time_budget
        done = 0
        while (limit is None or done < limit) and (deadline is None or done == 0 or time.perf_counter() < deadline):
            done += 1
            s = determinize(state, observer, np_rng)
            node = root
            path = []
            # Selection and expansion.
            while not is_terminal(s):
                actions = legal_actions(s)
                children = node.children
                untried = [a for a in actions if a not in children]
                best_value, best_action, best_child = -math.inf, actions[0], None
                if untried and fpu is not None and len(untried) < len(actions):
                    # First-play urgency: an untried action is worth the tried ones' mean less
                    # the reduction; it is only expanded when that beats every tried child.
                    visits = total = 0.0
                    for a in actions:
                        child = children.get(a)
                        if child is not None:
                            visits += child.visits
                            total += child.total
                    best_value = total / visits - fpu if visits else -math.inf
                    expand = False
                    for a in actions:
                        child = children.get(a)
                        if child is None:
                            continue
                        child.avail += 1
                        value = child.total / child.visits + c * sqrt(log(child.avail) / child.visits)
                        if value > best_value:
                            best_value, best_action, best_child = value, a, child
                    if best_child is None:
                        expand = True
                elif untried:
                    expand = True
                else:
                    expand = False
                    for a in actions:
                        child = children[a]
                        child.avail += 1
                        value = child.total / child.visits + c * sqrt(log(child.avail) / child.visits)
                        if value > best_value:
                            best_value, best_action, best_child = value, a, child
                if expand:
                    if guided:
                        action = rollout(s, untried, rng)
                    else:
                        action = untried[int(rng.random() * len(untried))]
                    child = _Node(acting_player(s))
                    children[action] = child
                    apply_action(s, action, np_rng)
                    path.append(child)
                    break
                assert best_child is not None  # a node with no untried action has children
                apply_action(s, best_action, np_rng)
                path.append(best_child)
                node = best_child
            # Playout.
            steps = 0
            while steps < max_steps and not is_terminal(s):
                apply_action(s, rollout(s, legal_actions(s), rng), np_rng)
                steps += 1
            if is_terminal(s):
                values = returns(s)
            elif heuristic is not None:
                values = heuristic(s)
            else:
                values = None
            if values is None:
                for child in path:
                    child.visits += 1
            else:
                for child in path:
                    child.visits += 1
                    child.total += values[child.player]
        self.last_iterations = done
        best, best_key = legal[0], None
        for a in legal:
            child = root.children.get(a)
            if child is None:
                continue
            key = (child.visits, child.total / child.visits)
            if best_key is None or key > best_key:
                best, best_key = a, key
        return best


__all__ = ["ISMCTSAgent", "game_of", "random_rollout"]
