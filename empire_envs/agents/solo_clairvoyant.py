"""The clairvoyant reference for Empire solo: a search that sees the deck order. An ORACLE.

What clairvoyance means here: the deck order alone does not fix the future, because every
reshuffle of the discard pile into an empty deck draws a new order from the env's generator
(``rules.apply_action``'s ``rng``), and no game is won without a reshuffle (three bases need nine
promotion cards; the deck holds eight). So the clairvoyant knows the deck order **and the
generator's state**: it searches on copies of the state and of the generator, and every line it
tries meets exactly the cards the env would deal it, reshuffles included
(``docs/rules/solo.md``, "The clairvoyant reference").

``clairvoyant_search(state, rng, node_limit)`` is a depth-first search for a won line:

- **move ordering**: the heuristic's move first (so the first line tried is the heuristic's own
  game), then the other legal actions, best ``board_score`` of their afterstate first;
- **memo of lost positions**: a position whose every line was searched without a win is
  remembered by its key (the board up to the symmetries of keeps and outposts, the exact deck
  and discard orders, the battle, the generator's state) with the fewest draws it was searched
  at; the same position met again with as many draws or more is lost too (more draws only bring
  truncation nearer), so it is skipped;
- **node limit**: every action applied counts one node; at the limit the search stops.

Its verdict on a position: ``"winnable"`` with a line that wins (an exact proof: replayed
through the rules from the same state and generator, it wins), ``"lost"`` when every line was
searched (no line wins: each one is lost or truncated), or ``"undecided"`` at the node limit.
Read as a reference: over deals, the share proven winnable is a lower bound on the clairvoyant
optimum, and the share not proven lost an upper bound on it; the clairvoyant optimum bounds any
fair agent (one that does not see the deck) from above only where it is exact.

``ClairvoyantSoloAgent`` (``--agent clairvoyant``) plays the found line and otherwise the
heuristic. It needs the env's generator, which an agent is not handed: it rebuilds it from the
seed the evaluation gives ``reset`` (``python -m empire_envs evaluate`` resets agent and env
with the same seed, and Gymnasium seeds a PCG64 generator from it), replays the deal, and uses
the generator only if the replayed deal equals the real one. It then keeps a shadow copy of the
game, stepped with its own copy of the generator, and checks at every decision that the shadow
still equals the real state; if either check fails it plays the heuristic. So the oracle never
guesses: it plays a line only while it provably sees the env's future.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.rng import PresetOrders
from ..games.solo import rules
from ..games.solo.state import KEEPS, OUTPOSTS, WON, SoloState
from .base import Agent
from .solo_heuristic import HeuristicSoloAgent, afterstate, board_score
from .solo_search import NO_OBSERVATION, territory_key

WINNABLE, LOST, UNDECIDED = "winnable", "lost", "undecided"

#: nodes searched per deal by default (under a second on the reference machine; most deals need a few hundred)
DEFAULT_NODE_LIMIT = 20_000

#: no action draws more than one card, so a deck this big cannot run out during one
_NO_RESHUFFLE_DECK = 2
#: stands in for the generator where no reshuffle can happen: if one did, it would fail loudly
#: instead of drawing an order from a generator in the wrong position
_NO_SHUFFLE: Any = PresetOrders()


@dataclass(frozen=True)
class ClairvoyantResult:
    """What the clairvoyant search found: ``verdict`` (``WINNABLE``, ``LOST`` or ``UNDECIDED``),
    a winning ``line`` of actions when winnable (empty otherwise) and the ``nodes`` it searched."""

    verdict: str
    line: tuple[int, ...]
    nodes: int


def frozen(value: Any) -> Any:
    """A hashable copy of a generator's state (nested dicts of numbers and strings)."""
    if isinstance(value, dict):
        return tuple((key, frozen(item)) for key, item in sorted(value.items()))
    return value


def exact_key(state: SoloState) -> tuple[Any, ...]:
    """Everything the rules' future depends on, except the generator and the draw count: the
    board up to its symmetries (keeps are interchangeable, so are outposts), the deck and
    discard in their order, the drawn card and the battle."""
    return (
        tuple(sorted(territory_key(state, t) for t in KEEPS)),
        tuple(sorted(territory_key(state, t) for t in OUTPOSTS)),
        tuple(state.deck),
        tuple(state.discard),
        state.drawn,
        state.phase,
        state.attacker,
        tuple(state.enemies),
        state.mode,
        state.split_first_won,
        tuple(state.sent),
    )


def ordered_actions(state: SoloState, heuristic: HeuristicSoloAgent) -> list[int]:
    """The legal actions, the heuristic's first, then by the ``board_score`` of their afterstate."""
    legal = rules.legal_actions(state)
    if len(legal) == 1:
        return legal
    first = heuristic.act(NO_OBSERVATION, rules.legal_mask(state), state)
    rest = [action for action in legal if action != first]
    rest.sort(key=lambda action: -board_score(afterstate(state, action)))
    return [first, *rest]


class _Frame:
    """One position on the search path and the actions still to try from it."""

    __slots__ = ("state", "generator_state", "key", "actions", "next")

    def __init__(self, state: SoloState, generator_state: Any, key: Any, actions: list[int]) -> None:
        self.state = state
        self.generator_state = generator_state
        self.key = key
        self.actions = actions
        self.next = 0


def clairvoyant_search(
    state: SoloState,
    rng: np.random.Generator,
    node_limit: int = DEFAULT_NODE_LIMIT,
    heuristic: HeuristicSoloAgent | None = None,
) -> ClairvoyantResult:
    """Search ``state`` for a won line, knowing the deck order and ``rng`` (the generator the
    game will reshuffle with, in its current position); see the module docstring. Neither
    ``state`` nor ``rng`` is changed."""
    if node_limit < 0:
        raise ValueError(f"node_limit must be >= 0, got {node_limit}")
    if state.outcome == WON:
        return ClairvoyantResult(WINNABLE, (), 0)
    if rules.is_terminal(state):
        return ClairvoyantResult(LOST, (), 0)
    heuristic = heuristic or HeuristicSoloAgent()
    generator = copy.deepcopy(rng)  # the search's own: it is rewound to each position's state
    bit_generator = generator.bit_generator
    root_generator_state = bit_generator.state
    lost_at: dict[Any, int] = {}  # position key -> fewest draws it was proven lost with
    frames = [_Frame(state, root_generator_state, _key(state, root_generator_state), ordered_actions(state, heuristic))]
    line: list[int] = []
    nodes = 0
    while frames:
        frame = frames[-1]
        if frame.next == len(frame.actions):
            previous = lost_at.get(frame.key)
            if previous is None or frame.state.draws < previous:
                lost_at[frame.key] = frame.state.draws
            frames.pop()
            if line:
                line.pop()
            continue
        if nodes >= node_limit:
            return ClairvoyantResult(UNDECIDED, (), nodes)
        action = frame.actions[frame.next]
        frame.next += 1
        child = frame.state.clone()
        generator_state = frame.generator_state
        if len(child.deck) < _NO_RESHUFFLE_DECK:
            bit_generator.state = generator_state
            rules.apply_action(child, action, generator)
            generator_state = bit_generator.state
        else:
            rules.apply_action(child, action, _NO_SHUFFLE)
        nodes += 1
        if child.outcome == WON:
            return ClairvoyantResult(WINNABLE, (*line, action), nodes)
        if rules.is_terminal(child):
            continue
        key = _key(child, generator_state)
        proven = lost_at.get(key)
        if proven is not None and child.draws >= proven:
            continue
        frames.append(_Frame(child, generator_state, key, ordered_actions(child, heuristic)))
        line.append(action)
    return ClairvoyantResult(LOST, (), nodes)


def _key(state: SoloState, generator_state: Any) -> tuple[Any, ...]:
    return exact_key(state), frozen(generator_state)


def gymnasium_generator(seed: int) -> np.random.Generator:
    """The generator ``gymnasium.Env.reset(seed=seed)`` gives an env (PCG64 from the seed's
    ``SeedSequence``)."""
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed)))


class ClairvoyantSoloAgent(Agent):
    """An ORACLE: it sees the deck order and the env's generator, searches each deal for a won
    line once (``clairvoyant_search`` from its first decision, ``node_limit`` nodes) and plays
    it; where none was found, or where it cannot follow the env's generator, it plays the
    heuristic. See the module docstring for how it follows the generator.

    Its results bound a fair agent from above only on the deals the search proved; the verdict
    of the last search is kept in ``last_result``.
    """

    name = "clairvoyant"

    def __init__(self, node_limit: int = DEFAULT_NODE_LIMIT) -> None:
        if node_limit < 0:
            raise ValueError(f"node_limit must be >= 0, got {node_limit}")
        self.node_limit = int(node_limit)
        self.heuristic = HeuristicSoloAgent()
        self.last_result: ClairvoyantResult | None = None
        self.reset()

    def reset(self, seed: int | None = None) -> None:
        self._seed = seed
        self._shadow: SoloState | None = None
        self._generator: np.random.Generator | None = None
        self._followed = True  # until a check fails
        self._plan: list[int] = []
        self._searched = False

    def act(self, observation: np.ndarray, action_mask: np.ndarray, state: Any = None) -> int:
        if state is None:
            raise ValueError("ClairvoyantSoloAgent reads the (hidden) deck: pass the game state")
        legal = [int(a) for a in np.flatnonzero(action_mask)]
        if not legal:
            raise ValueError("no legal action in the mask")
        self._follow(state)
        if self._followed and not self._searched:
            assert self._generator is not None
            self._searched = True
            self.last_result = clairvoyant_search(state, self._generator, self.node_limit, self.heuristic)
            self._plan = list(self.last_result.line)
        if self._followed and self._plan and action_mask[self._plan[0]] == 1:
            action = self._plan.pop(0)
        else:
            self._plan = []
            action = legal[0] if len(legal) == 1 else self.heuristic.act(observation, action_mask, state)
        if self._followed:
            assert self._shadow is not None and self._generator is not None
            rules.apply_action(self._shadow, action, self._generator)
        return action

    def _follow(self, state: SoloState) -> None:
        """Check that the shadow game (and so the generator) still matches the env's."""
        if not self._followed:
            return
        if self._shadow is None:
            self._shadow, self._generator = self._replayed_deal(state)
            if self._shadow is None:
                self._followed = False
                return
        if _full_key(self._shadow) != _full_key(state):
            self._followed, self._shadow, self._generator = False, None, None

    def _replayed_deal(self, state: SoloState) -> tuple[SoloState | None, np.random.Generator | None]:
        if self._seed is None:
            return None, None
        generator = gymnasium_generator(self._seed)
        return rules.new_game(state.config, generator), generator


def _full_key(state: SoloState) -> tuple[Any, ...]:
    """The state field by field (no symmetry): equal only for the very same game."""
    return tuple(
        tuple(value) if isinstance(value, list) else value
        for name, value in ((name, getattr(state, name)) for name in SoloState.FIELDS)
        if name != "config"
    )


__all__ = [
    "DEFAULT_NODE_LIMIT",
    "LOST",
    "UNDECIDED",
    "WINNABLE",
    "ClairvoyantResult",
    "ClairvoyantSoloAgent",
    "clairvoyant_search",
    "exact_key",
    "gymnasium_generator",
]
