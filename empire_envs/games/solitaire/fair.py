"""The fair optimum of Empire Solitaire: an expectimax over the hidden stock.

A fair player sees the grid and every card that has left it, hence the set of **unseen** cards
(52 minus the grid, the captured cards and a revealed card waiting to be placed), and the number
of stock cards left, but not which unseen cards are in the stock nor their order. The stock of a
deal is a uniformly random ordered draw from the cards unseen at the deal, so at every REVEAL the
card is uniform over the cards still unseen; the player then places it where they choose. The
optimal win probability of a position is the expectimax value::

    V(decision)       = max over the children: each capture, and REVEAL (a chance node)
    V(chance)         = mean over the unseen cards c of V(c revealed, waiting)
    V(c waiting)      = max over the empty cells p of V(decision with c on p)
    V(no stock left)  = 1 if the visible game can be won, else 0 (``solver.solve``, fast backend)

``evaluate(position, time_limit=..., node_limit=...)`` returns a ``FairResult``: the exact value
when the search finishes, otherwise sound bounds ``lower <= V <= upper``: ``lower`` is the value
of the best strategy found (what it does in unexplored parts counted as a loss), ``upper`` counts
unexplored parts at a cheap sound upper bound (the connectivity bound below, else 1).
``action_bounds`` gives the same bounds for each legal action of the position; the ``optimal``
agent (``empire_envs.agents.solitaire``) plays from them. A ``FairSearch`` keeps its table of
bounds between calls (an agent keeps one per game), so a later search starts from what earlier
ones proved.

Positions (``FairPosition``) are explicit: ``grid`` (15 cells, -1 empty), ``unseen`` (the cards
that may be in the stock), ``stock_left`` and ``revealed`` (a card waiting to be placed, or -1).
As in ``solver.solve``, the stock counts as open (a capture has been made) when fewer than 18
cards are left in the grid, the stock and the hand; a real game's position is
``FairPosition.from_state(state)``, which never reads ``state.stock``'s cards nor
``state.unused``.

The search (all of it exact; each reduction is argued where it is used):

- a table of bounds per node, keyed by the node's (grid, unseen set, stock left, waiting card);
  the unseen set is dropped from the key once the stock is empty (it can no longer matter);
- windows: a node is searched only as far as its parent needs (value-1 cut-offs at decision
  nodes, a child whose upper bound cannot beat its best sibling is skipped) and chance nodes
  prune Star1-style: a child's window is what keeps the weighted sum inside the parent's;
- equivalent cards at a chance node are evaluated once and weighted by their number;
- the connectivity bound: the cards still to play (grid, waiting card and the cards still to
  come) must form one rank-or-suit group, since a capture never joins two groups;
- optionally (``FairSearch(one_card_bound=True)``) a decision before the last reveal is bounded
  by the known-stock solver's verdicts for each possible last card (off by default: on the
  positions measured it cost more time than its cut-offs saved);
- widening: the search runs at growing widths (``WIDTHS``), the choices before a hidden card
  limited to the first k in a greedy order (reveal first, then the capture or placement that
  leaves the most captures), so that one complete strategy, close to reveal-then-solve's, is
  valued first and the lower bound is useful early; the last, unlimited width is the exact one.

How far it reaches (measured on the 2-core project machine, docs/benchmarks/solitaire_ladder.md):
before the last reveal (one hidden card), 39 of 50 positions finished within 2 CPU s (median
0.016 s); before the second reveal, 18 of 50 (those of value 1); whole deals (three hidden cards
of 37), 18 of 200 within 6 CPU s (all of value 1). The others end with their bounds: one
complete strategy of a deal has some 20,000 leaf solves of about 0.3 ms.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ...core.cards import NUM_CARDS, NUM_RANKS, NUM_SUITS
from . import actions as A
from .rules import capture_moves
from .solver import solve, solve_stats
from .state import NUM_CELLS, STOCK_SIZE

CARDS_IN_PLAY = NUM_CELLS + STOCK_SIZE  # 18 cards at the deal: fewer means a capture opened the stock
EPS = 1e-12  # values are sums of multiples of 1/(37*36*35); float noise is far below one such step
CHECK_EVERY = 64  # nodes between two looks at the clock
#: the widths of the successive searches (``FairSearch._widening_search``); None: unlimited
WIDTHS: tuple[int | None, ...] = (1, 2, 3, None)
#: the node budget of one known-stock solve in the one-card clairvoyant bound: a lost verdict can
#: cost millions of nodes, and an unfinished solve only makes the bound weaker (it counts as won)
CLAIRVOYANT_NODE_LIMIT = 3000

# node kinds, the first field of a node key
DECIDE, CHANCE, WAITING = 0, 1, 2


@dataclass(frozen=True)
class FairPosition:
    """What a fair player knows: the grid, the unseen cards, the stock size, a waiting card.

    ``grid``: 15 cells (card index or -1); ``unseen``: the cards the stock is drawn from;
    ``stock_left``: stock cards not yet revealed; ``revealed``: the revealed card waiting to be
    placed (-1: none).
    """

    grid: tuple[int, ...]
    unseen: frozenset[int]
    stock_left: int
    revealed: int = -1

    def __post_init__(self) -> None:
        if len(self.grid) != NUM_CELLS:
            raise ValueError(f"the grid has {NUM_CELLS} cells, got {len(self.grid)}")
        cards = [c for c in self.grid if c >= 0] + ([self.revealed] if self.revealed >= 0 else [])
        if len(set(cards)) != len(cards) or set(cards) & self.unseen:
            raise ValueError("a card is in two places (grid, waiting card, unseen set)")
        if not 0 <= self.stock_left <= min(STOCK_SIZE, len(self.unseen)):
            raise ValueError(f"stock_left must be 0..min(3, unseen cards), got {self.stock_left}")
        if any(not 0 <= c < NUM_CARDS for c in list(cards) + list(self.unseen)):
            raise ValueError("cards are indices 0..51")

    @classmethod
    def from_state(cls, state) -> FairPosition:
        """The fair view of a game state: grid, captured cards, waiting card and the stock's SIZE
        (``len(state.stock)``, which the observation shows); the stock's cards are never read."""
        seen = {c for c in state.grid if c >= 0} | set(state.out)
        if state.revealed >= 0:
            seen.add(state.revealed)
        unseen = frozenset(c for c in range(NUM_CARDS) if c not in seen)
        return cls(tuple(state.grid), unseen, len(state.stock), state.revealed)

    def key(self) -> tuple:
        mask = _mask(self.unseen)
        if self.revealed >= 0:
            return (WAITING, self.grid, mask, self.stock_left, self.revealed)
        return (DECIDE, self.grid, mask if self.stock_left else 0, self.stock_left)


@dataclass
class FairResult:
    """``lower <= V <= upper``; ``exact`` when the search finished (then lower == upper)."""

    lower: float
    upper: float
    exact: bool
    nodes: int
    leaf_solves: int
    seconds: float
    counters: dict[str, int] = field(default_factory=dict)

    @classmethod
    def from_bounds(
        cls, lower: float, upper: float, nodes: int, leaf_solves: int, seconds: float, counters: dict[str, int]
    ) -> FairResult:
        """A search's result from its root bounds: float sums can stray from [0, 1], and the two
        bounds' sums from each other, by a few ulps, so both are clipped to [0, 1] and bounds
        within ``EPS`` are one exact value."""
        lower, upper = min(max(lower, 0.0), 1.0), min(max(upper, 0.0), 1.0)
        exact = upper - lower <= EPS
        if exact:
            lower = upper = (lower + upper) / 2
        return cls(lower, upper, exact, nodes, leaf_solves, seconds, counters)


def _mask(cards: Iterable[int]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


def _cards(mask: int) -> list[int]:
    cards = []
    while mask:
        low = mask & -mask
        cards.append(low.bit_length() - 1)
        mask ^= low
    return cards


def _mobility(grid: Sequence[int]) -> int:
    """The captures available on a grid (the greedy players' measure, used to order the search)."""
    return sum(1 for _ in capture_moves(grid))


def _stock_open(grid: Sequence[int], stock_left: int, waiting: int) -> bool:
    """A capture has been made: the deal put 18 cards in play and only a capture removes one."""
    in_play = sum(c >= 0 for c in grid) + stock_left + (waiting >= 0)
    return in_play < CARDS_IN_PLAY


def _groups(cards: Iterable[int]) -> list[int]:
    """The rank-or-suit groups of ``cards``, as bit sets over 17 nodes (ranks 0-12, suits 13-16).

    A card joins its rank to its suit; two cards share a group when a chain of shared ranks or
    suits links them (rules.connected asks whether there is one group).
    """
    groups: list[int] = []
    for card in cards:
        suit, rank = divmod(card, NUM_RANKS)
        node = (1 << rank) | (1 << (NUM_RANKS + suit))
        merged = node
        rest = []
        for group in groups:
            if group & node:
                merged |= group
            else:
                rest.append(group)
        groups = [*rest, merged]
    return groups


def _card_nodes(card: int) -> int:
    suit, rank = divmod(card, NUM_RANKS)
    return (1 << rank) | (1 << (NUM_RANKS + suit))


def connectivity_bound(cards: Sequence[int], unseen_mask: int, still_to_come: int) -> float:
    """An upper bound on the win probability from the groups of the cards in play.

    Sound: a capture takes a card of the capturer's rank or suit and leaves the capturer, so the
    groups of the cards still to play (rules.connected) never merge and none ever empties; the
    game is won only when one card, hence one group, is left. The cards to come join the game
    when revealed, and one card joins at most two groups. So with ``g`` groups now the win needs
    ``g <= still_to_come + 1``; with exactly one card to come the bound is the exact share of the
    unseen cards that leave a single group.
    """
    groups = _groups(cards)
    if len(groups) <= 1 and still_to_come != 1:
        return 1.0
    if len(groups) > still_to_come + 1:
        return 0.0
    if still_to_come != 1:
        return 1.0
    unseen = _cards(unseen_mask)
    if len(groups) == 1:
        good = sum(1 for c in unseen if _card_nodes(c) & groups[0])
    else:  # two groups: the card must touch both
        good = sum(1 for c in unseen if _card_nodes(c) & groups[0] and _card_nodes(c) & groups[1])
    return good / len(unseen)


def _card_classes(grid: Sequence[int], unseen: list[int], last: bool) -> list[tuple[int, int]]:
    """The unseen cards in classes that are worth the same at a reveal: ``(representative, size)``.

    - ``last`` (no stock card after this one): from here on the game is the visible one, and the
      rules look at cards only through "shares a rank or a suit". The card revealed then matters
      only through WHICH grid cells hold a card it matches (solver.solve sees nothing else), so
      cards with the same set of matching cells are equivalent.
    - otherwise: relabelling ranks among themselves and suits among themselves keeps every rule
      (again only rank and suit equality are tested). A relabelling that fixes every grid card and
      maps the unseen set onto itself maps the game after revealing c onto the game after
      revealing its image, with the same value. Ranks absent from the grid with the same unseen
      suits can be swapped that way, and likewise suits absent from the grid with the same unseen
      ranks; two cards are equivalent when their ranks and their suits are so swappable.
    """
    if last:
        by_cells: dict[int, list[int]] = {}
        rank_cells = [0] * NUM_RANKS
        suit_cells = [0] * NUM_SUITS
        for cell, card in enumerate(grid):
            if card >= 0:
                suit, rank = divmod(card, NUM_RANKS)
                rank_cells[rank] |= 1 << cell
                suit_cells[suit] |= 1 << cell
        for card in unseen:
            suit, rank = divmod(card, NUM_RANKS)
            by_cells.setdefault(rank_cells[rank] | suit_cells[suit], []).append(card)
        return [(cards[0], len(cards)) for cards in by_cells.values()]
    grid_ranks = {c % NUM_RANKS for c in grid if c >= 0}
    grid_suits = {c // NUM_RANKS for c in grid if c >= 0}
    unseen_set = set(unseen)

    def rank_class(rank: int) -> tuple:
        if rank in grid_ranks:
            return ("grid", rank)
        return ("free", tuple(suit * NUM_RANKS + rank in unseen_set for suit in range(NUM_SUITS)))

    def suit_class(suit: int) -> tuple:
        if suit in grid_suits:
            return ("grid", suit)
        return ("free", tuple(suit * NUM_RANKS + rank in unseen_set for rank in range(NUM_RANKS)))

    by_class: dict[tuple, list[int]] = {}
    for card in unseen:
        suit, rank = divmod(card, NUM_RANKS)
        by_class.setdefault((rank_class(rank), suit_class(suit)), []).append(card)
    return [(cards[0], len(cards)) for cards in by_class.values()]


class _Stop(Exception):
    pass


class FairSearch:
    """The expectimax, with its table of bounds kept between calls.

    ``evaluate`` / ``action_bounds`` take a ``time_limit`` (CPU seconds of this process, so that
    a shared machine's load does not shrink the search) and/or a ``node_limit``
    (nodes entered by this call); without either the search runs until exact.
    """

    def __init__(self, one_card_bound: bool = False) -> None:
        #: tighten decisions before the last reveal with ``_one_card_clairvoyant_bound`` (costly)
        self.one_card_bound = one_card_bound
        # key -> [lower, upper, children or None]; children: list of (weight or action, child key)
        self.table: dict[tuple, list] = {}
        self.nodes = 0
        self.leaf_solves = 0
        self.clairvoyant_solves = 0
        self.width: int | None = None
        self._deadline: float | None = None
        self._node_cap: int | None = None
        self.stopped = False

    # ---------------------------------------------------------------- public

    def evaluate(
        self, position: FairPosition, time_limit: float | None = None, node_limit: int | None = None
    ) -> FairResult:
        """The optimal win probability of ``position``, or bounds on it when a limit stopped the search."""
        start, cpu_start = time.perf_counter(), time.process_time()
        nodes0, leaves0 = self.nodes, self.leaf_solves
        self._start(time_limit, node_limit)
        lower, upper = self._widening_search(position.key())
        return FairResult.from_bounds(
            lower,
            upper,
            self.nodes - nodes0,
            self.leaf_solves - leaves0,
            time.perf_counter() - start,
            {"table_entries": len(self.table), "cpu_milliseconds": round(1000 * (time.process_time() - cpu_start))},
        )

    def action_bounds(
        self,
        position: FairPosition,
        time_limit: float | None = None,
        node_limit: int | None = None,
        first: int | None = None,
    ) -> dict[int, tuple[float, float]]:
        """``{legal action: (lower, upper)}``: bounds on the win probability after each action
        (REVEAL: before the card is known). ``first``: an action to search before the others
        (the agent's fallback choice, so that its bounds are the most developed)."""
        self._start(time_limit, node_limit)
        key = position.key()
        entry = self._bounds(key)
        if entry[2] is None and not (key[0] == DECIDE and key[3] == 0):
            entry[2] = self._children(key)
        if first is not None and entry[2]:
            entry[2].sort(key=lambda item: item[0] != first)  # stable: the rest keep their order
        self._widening_search(key)
        children = entry[2] if entry[2] is not None else self._children(key)
        return {action: (self._bounds(child)[0], self._bounds(child)[1]) for action, child in children}

    # ---------------------------------------------------------------- the search

    def _widening_search(self, key: tuple) -> tuple[float, float]:
        """Search with growing widths (``WIDTHS``), the last one unlimited, until exact or stopped.

        At width k a decision or a placement with stock cards still to come searches only its
        first k children in search order (the heuristic ones first); the others keep their
        bounds (0, cheap upper bound). Width 1 is one complete strategy, close to reveal-then-
        solve's, so a lower bound exists early; every bound stored at any width is sound, and
        exact results carry over to the next width. Only the unlimited width can finish.
        """
        lower, upper = self._bounds(key)[:2]
        for width in WIDTHS:
            self.width = width
            lower, upper = self._search(key, 0.0, 1.0)
            if upper - lower <= EPS or self.stopped:
                break
        self.width = None
        return lower, upper

    def _start(self, time_limit: float | None, node_limit: int | None) -> None:
        self._deadline = None if time_limit is None else time.process_time() + time_limit
        self._node_cap = None if node_limit is None else self.nodes + node_limit
        self.stopped = False

    def _tick(self) -> None:
        self.nodes += 1
        out_of_nodes = self._node_cap is not None and self.nodes >= self._node_cap
        deadline = self._deadline
        if out_of_nodes or deadline is not None and self.nodes % CHECK_EVERY == 0 and time.process_time() > deadline:
            self.stopped = True

    def _bounds(self, key: tuple) -> list:
        entry = self.table.get(key)
        if entry is None:
            entry = [0.0, self._initial_upper(key), None]
            self.table[key] = entry
        return entry

    def _search(self, key: tuple, alpha: float, beta: float) -> tuple[float, float]:
        """Narrow the bounds of ``key`` until they are exact, or the value is shown to lie outside
        ``(alpha, beta)`` (only whether it is above or below matters to the parent), or the limit
        is hit. Returns the node's bounds; every bound stored is sound, whatever stopped it."""
        entry = self._bounds(key)
        if entry[1] - entry[0] <= EPS or entry[0] >= beta - EPS or entry[1] <= alpha + EPS or self.stopped:
            return entry[0], entry[1]
        self._tick()
        kind = key[0]
        if kind == DECIDE and key[3] == 0:
            value = 1.0 if self._solve_leaf(key[1]) else 0.0
            entry[0] = entry[1] = value
            return value, value
        if entry[2] is None:
            if self.one_card_bound and kind == DECIDE and key[3] == 1:
                entry[1] = min(entry[1], self._one_card_clairvoyant_bound(key[1], key[2]))
                if entry[1] - entry[0] <= EPS or entry[1] <= alpha + EPS:
                    return entry[0], entry[1]
            entry[2] = self._children(key)
        children = entry[2]
        if not children:  # nothing legal: the game is lost
            entry[0] = entry[1] = 0.0
            return 0.0, 0.0
        if kind == CHANCE:
            lower, upper = self._search_chance(children, alpha, beta)
        else:
            # the width limits the choices that precede a hidden card; the last placement and
            # the play after it are cheap (leaf solves) and searched in full
            width = self.width if key[3] > 0 and self.width is not None else len(children)
            lower, upper = self._search_max(children, alpha, beta, width)
        entry[0] = max(entry[0], lower)
        entry[1] = min(entry[1], upper)
        return entry[0], entry[1]

    def _search_max(self, children: list, alpha: float, beta: float, width: int) -> tuple[float, float]:
        """A decision (or a placement): the best child. A child is searched only while it could
        still beat the best lower bound found and the parent's ``alpha``; the search stops at
        ``beta`` (a value-1 cut-off when beta is 1)."""
        bounds = [self._bounds(child) for _, child in children]
        lower = max(b[0] for b in bounds)
        for (_, child), b in zip(children[:width], bounds, strict=False):
            if lower >= beta - EPS or self.stopped:
                break
            if b[1] <= max(lower, alpha) + EPS or b[1] - b[0] <= EPS:
                continue
            child_lower, _ = self._search(child, max(alpha, lower), beta)
            lower = max(lower, child_lower)
        return lower, max(b[1] for b in bounds)

    def _search_chance(self, children: list, alpha: float, beta: float) -> tuple[float, float]:
        """A reveal: the weighted mean of the card classes. Star1: with the other children at
        their bounds, child i's value matters only inside ``(a_i, b_i)``, the window that keeps
        the weighted sum between alpha and beta; the loop stops once the sum's bounds leave
        ``(alpha, beta)``."""
        bounds = [self._bounds(child) for _, child in children]
        lower = sum(w * b[0] for (w, _), b in zip(children, bounds, strict=True))
        upper = sum(w * b[1] for (w, _), b in zip(children, bounds, strict=True))
        for (weight, child), b in zip(children, bounds, strict=True):
            if lower >= beta - EPS or upper <= alpha + EPS or self.stopped:
                break
            if b[1] - b[0] <= EPS:
                continue
            old_lower, old_upper = b[0], b[1]
            child_alpha = (alpha - (upper - weight * old_upper)) / weight
            child_beta = (beta - (lower - weight * old_lower)) / weight
            new_lower, new_upper = self._search(child, child_alpha, child_beta)
            lower += weight * (new_lower - old_lower)
            upper += weight * (new_upper - old_upper)
        # recomputed from the children: no drift from the running sums
        lower = sum(w * b[0] for (w, _), b in zip(children, bounds, strict=True))
        upper = sum(w * b[1] for (w, _), b in zip(children, bounds, strict=True))
        return lower, upper

    def _solve_leaf(self, grid: tuple[int, ...]) -> bool:
        self.leaf_solves += 1
        return solve(grid, [], backend="fast") is not None

    def _one_card_clairvoyant_bound(self, grid: tuple[int, ...], unseen_mask: int) -> float:
        """With one stock card left: the mean over the unseen cards c of "the game can be won
        with c known to be the stock card" (``solver.solve(grid, [c])``).

        Sound: a fair strategy plays the same as it would knowing c up to the reveal and then
        sees c, so for each c it is one of the strategies the clairvoyant solver considers; its
        win probability is the mean over c of wins, at most the mean of the solver's verdicts.
        Cards are grouped as at the last reveal (``_card_classes``): the known-stock game also
        sees c only through the grid cells it matches.
        """
        unseen = _cards(unseen_mask)
        total = 0
        for card, size in _card_classes(grid, unseen, last=True):
            self.clairvoyant_solves += 1
            # a solve stopped by the node limit (None) counts as a win: the bound stays sound
            if solve_stats(grid, [card], backend="fast", node_limit=CLAIRVOYANT_NODE_LIMIT).winnable is not False:
                total += size
        return total / len(unseen)

    # ---------------------------------------------------------------- the tree

    def _children(self, key: tuple) -> list:
        """``[(action or weight, child key)]`` in search order."""
        kind, grid, unseen_mask, stock_left = key[:4]
        if kind == WAITING:
            return self._placements(grid, unseen_mask, stock_left, key[4])
        if kind == CHANCE:
            return self._reveal_outcomes(grid, unseen_mask, stock_left)
        children = []
        # REVEAL first: it keeps every card, and opening the stock early is what makes the
        # reveal-then-solve agent strong, so its subtree gives a good lower bound early
        if stock_left and -1 in grid and _stock_open(grid, stock_left, -1):
            children.append((A.REVEAL, (CHANCE, grid, unseen_mask, stock_left)))
        captures = []
        for cell, direction, target in capture_moves(grid):
            child = list(grid)
            child[target], child[cell] = grid[cell], -1
            captures.append((A.capture(cell, direction), (DECIDE, tuple(child), unseen_mask, stock_left)))
        # the capture that leaves the most captures first (the greedy player's choice)
        captures.sort(key=lambda item: -_mobility(item[1][1]))
        return children + captures

    def _reveal_outcomes(self, grid: tuple[int, ...], unseen_mask: int, stock_left: int) -> list:
        unseen = _cards(unseen_mask)
        classes = _card_classes(grid, unseen, last=stock_left == 1)
        classes.sort(key=lambda item: -item[1])  # heavy classes first: they move the bounds most
        total = len(unseen)
        return [
            (size / total, (WAITING, grid, unseen_mask & ~(1 << card), stock_left - 1, card)) for card, size in classes
        ]

    def _placements(self, grid: tuple[int, ...], unseen_mask: int, stock_left: int, card: int) -> list:
        after_mask = unseen_mask if stock_left else 0  # an empty stock: the unseen set no longer matters
        children = []
        for cell in range(NUM_CELLS):
            if grid[cell] < 0:
                child = list(grid)
                child[cell] = card
                children.append((A.PLACE[cell], (DECIDE, tuple(child), after_mask, stock_left)))
        # the placement that leaves the most captures first (the greedy player's choice): a good
        # first guess raises the lower bound early and lets the others be cut off
        children.sort(key=lambda item: -_mobility(item[1][1]))
        return children

    def _initial_upper(self, key: tuple) -> float:
        kind, grid, unseen_mask, stock_left = key[:4]
        cards = [c for c in grid if c >= 0]
        if kind == WAITING:
            cards.append(key[4])
        if kind == DECIDE and stock_left == 0:
            return 1.0  # a leaf: solved when searched
        return connectivity_bound(cards, unseen_mask, stock_left)


def evaluate(position: FairPosition, time_limit: float | None = None, node_limit: int | None = None) -> FairResult:
    """``FairSearch().evaluate(...)``: the fair optimum of one position (a fresh table)."""
    return FairSearch().evaluate(position, time_limit=time_limit, node_limit=node_limit)
