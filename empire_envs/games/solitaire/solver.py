"""Exact solver for Empire Solitaire with the stock order known.

``solve(tableau, stock)`` returns a winning line of env action indices (``actions.capture(cell,
dir)``, ``actions.REVEAL``, ``actions.PLACE[cell]``), or None when the position cannot be won.
Knowing the stock makes this an upper bound on any agent, which must play without it. ``solve_stats(...)`` gives
the same answer with the nodes searched and the time taken (``experiments/solvability.py``).

Two backends, the same verdicts:

- ``"fast"`` (the default when numba is installed: ``pip install 'empire-envs[solver]'``): a
  compiled iterative search with bitboards, sleep sets and restarts (notes in its section).
  numba is imported on the first fast solve, never by ``import empire_envs``; the compiled code
  is cached on disk (``cache=True``): the first solve on a machine compiles for about 3 s, later
  processes load it in about 0.15 s. Without numba, ``"auto"`` warns once and uses Python.
  1,000 random deals take about 3 s (median 0.2 ms a deal; rare lost deals whose cards stay
  connected need up to ~400M nodes, 1-2 minutes: about 1 deal in 10,000).
- ``"python"``: the pure-Python reference (about 80k nodes/s), short enough to check by reading.

The search (both backends): depth first over positions ``(grid, stock cards used)``; a move is a
capture or "reveal the next stock card and place it on cell c" (the player sees the card before
placing it, and with the stock known the two steps are one decision). A table remembers the
positions proven lost; stock placements are tried before captures and, among captures, first
the one whose victim has the fewest partners (rank or suit mates) left; one sound prune, the
disconnected match graph, drops captures that leave two groups of cards that can never meet.
Every reduction only ever discards lost positions (each is argued where it is used), so the
verdict is exact and a returned line always wins when replayed through ``rules.apply_action``.

The stock hidden (what an agent faces) is solved in ``fair.py``: the expectimax over the
unseen cards (at each REVEAL the card is uniform over them, then placed by choice), with this
solver (fast backend) at the leaves, a table of bounds, Star1 pruning, classes of equivalent
cards and anytime bounds. Exact for positions a few cards from the end; a whole deal (3 hidden
cards of 37, ~20k leaf solves for even one strategy) mostly ends on its time limit with sound
bounds (docs/benchmarks/solitaire_ladder.md).

One module, over 600 lines, on purpose: the numba kernel and the Python reference search it is
tested against stay together, and numba's on-disk cache of the kernel notices changes to this
file only (see the comment above ``_K_DIRECTION_BITS``), so a kernel split across modules could
run stale compiled code.
"""

from __future__ import annotations

import threading
import time
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ...core.cards import parse_card, parse_cards
from . import actions as A
from .actions import RAYS
from .rules import capture_moves as _capture_moves
from .rules import connected as _connected
from .rules import matches as _matches
from .state import NUM_CELLS, STOCK_SIZE

BACKENDS = ("auto", "fast", "python")
MAX_CARDS = NUM_CELLS + STOCK_SIZE  # 18: at most 5 bits per cell in a position key

#: The fast backend's table of lost positions: it starts with 2**TT_MIN_BITS entries of 16 bytes
#: (1 MiB) and grows by 4x, up to 2**TT_BITS entries (64 MiB), when a solve has stored as many
#: positions as it has entries; it is kept (one per process) for later solves.
TT_MIN_BITS = 16
TT_BITS = 22
GEN_SHIFT = 24  # a table entry's key carries the number of the solve that stored it from here


@dataclass
class SolveResult:
    """What ``solve_stats`` returns.

    ``winnable``: True / False, or None when ``node_limit`` stopped the search first.
    ``line``: a winning line of env action indices when winnable, else None.
    ``nodes``: positions entered by the search; ``seconds``: wall time of this call (for the
    fast backend it includes the one-time compile or cache load when this call paid it; see
    ``compile_seconds``).
    """

    winnable: bool | None
    line: list[int] | None
    nodes: int
    seconds: float
    backend: str
    compile_seconds: float = 0.0
    counters: dict[str, int] = field(default_factory=dict)


def solve(tableau: Sequence[int | str | None], stock: Sequence[int | str], backend: str = "auto") -> list[int] | None:
    """A winning line (env action indices) for this position, or None when it cannot be won.

    ``tableau``: the 15 cells row by row (cards, or -1 / None for an empty cell);
    ``stock``: the stock cards still to come, top first. The position is taken as a position of
    the game: when fewer than 18 cards are left in grid and stock, a capture has been made and
    the stock is open. ``backend``: ``"auto"`` (fast when numba is installed), ``"fast"`` or
    ``"python"``.
    """
    return solve_stats(tableau, stock, backend=backend).line


def solve_stats(
    tableau: Sequence[int | str | None],
    stock: Sequence[int | str],
    backend: str = "auto",
    node_limit: int | None = None,
) -> SolveResult:
    """``solve`` with the search figures: a ``SolveResult``.

    ``node_limit``: stop after this many nodes (``winnable`` is then None, unless the answer was
    found first).
    """
    grid, stock_cards = _parse_position(tableau, stock)
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    if node_limit is not None and node_limit < 1:
        raise ValueError(f"node_limit must be positive, got {node_limit!r}")
    if backend == "auto":
        backend = "fast" if _fast_available(warn=True) else "python"
    if backend == "fast":
        return _solve_fast(grid, stock_cards, node_limit)
    return _solve_python(grid, stock_cards, node_limit)


def _parse_position(tableau, stock) -> tuple[tuple[int, ...], tuple[int, ...]]:
    grid = tuple(-1 if cell is None or cell == -1 else parse_card(cell) for cell in tableau)
    if len(grid) != NUM_CELLS:
        raise ValueError(f"the tableau has {NUM_CELLS} cells, got {len(grid)}")
    stock_cards = tuple(parse_cards(list(stock)))
    if len(stock_cards) > STOCK_SIZE:
        raise ValueError(f"the stock holds at most {STOCK_SIZE} cards, got {len(stock_cards)}")
    cards = [c for c in grid if c >= 0] + list(stock_cards)
    if len(set(cards)) != len(cards):
        raise ValueError("a card appears twice in the tableau and stock")
    return grid, stock_cards


def _captured_before(grid: Sequence[int], stock: Sequence[int]) -> bool:
    """Whether a capture has been made: the deal had 18 cards, and only captures remove one."""
    return MAX_CARDS - len(stock) - sum(c >= 0 for c in grid) > 0


def _line_from_moves(moves: Sequence[int]) -> list[int]:
    """Solver moves (a capture's index, or a PLACE index for "reveal and place") as env actions."""
    line: list[int] = []
    for move in moves:
        if move > A.REVEAL:
            line.extend((A.REVEAL, move))
        else:
            line.append(move)
    return line


# --------------------------------------------------------------------------------------------
# The pure-Python reference backend
# --------------------------------------------------------------------------------------------


class _NodeLimit(Exception):
    pass


def _solve_python(grid, stock, node_limit) -> SolveResult:
    start = time.perf_counter()
    search = _Search(stock, node_limit)
    winnable: bool | None
    try:
        moves = search.run(grid, _captured_before(grid, stock))
        winnable = moves is not None
    except _NodeLimit:
        moves, winnable = None, None
    line = _line_from_moves(moves) if moves is not None else None
    return SolveResult(
        winnable,
        line,
        search.nodes,
        time.perf_counter() - start,
        "python",
        counters={"lost_positions": len(search.lost)},
    )


class _Search:
    """Depth-first search with a table of lost positions; the reference for the fast backend.

    A position is ``(grid, stock cards used)``: whether the stock is open (a capture was made)
    follows from the card count, so the pair decides everything that can still happen.
    """

    def __init__(self, stock: tuple[int, ...], node_limit: int | None = None) -> None:
        self.stock = stock
        self.node_limit = node_limit
        self.lost: set[tuple[tuple[int, ...], int]] = set()
        self.nodes = 0

    def run(self, grid: tuple[int, ...], captured: bool) -> list[int] | None:
        if not _connected([c for c in grid if c >= 0] + list(self.stock)):
            self.nodes = 1
            return None
        moves: list[int] = []
        return moves if self._search(grid, 0, captured, moves) else None

    def _search(self, grid: tuple[int, ...], used: int, captured: bool, moves: list[int]) -> bool:
        self.nodes += 1
        if self.node_limit is not None and self.nodes > self.node_limit:
            raise _NodeLimit
        remaining_stock = self.stock[used:]
        in_grid = [c for c in grid if c >= 0]
        if not remaining_stock and len(in_grid) == 1:
            return True
        key = (grid, used)
        if key in self.lost:
            return False
        children = self._children(grid, used, captured, in_grid, remaining_stock)
        for move, child, child_used in children:
            moves.append(move)
            if self._search(child, child_used, True, moves):
                return True
            moves.pop()
        self.lost.add(key)
        return False

    def _children(self, grid, used, captured, in_grid, remaining_stock):
        """The children in search order, those whose cards are disconnected left out.

        Prune (sound): a capture needs the two cards to share a rank or a suit. If the cards
        still to play (grid and stock) split into groups that share no rank or suit between
        them, no capture ever joins two groups, so each group keeps a card until the end and the
        position is lost; such a child is not searched.
        """
        # 1. Reveal the next stock card and place it: every empty cell, in cell order.
        if captured and remaining_stock and len(in_grid) < NUM_CELLS:
            card = remaining_stock[0]
            for cell in range(NUM_CELLS):
                if grid[cell] < 0:
                    child = list(grid)
                    child[cell] = card
                    yield A.PLACE[cell], tuple(child), used + 1
        # 2. Captures, the captured card with the fewest partners left first (stable order).
        cards = in_grid + list(remaining_stock)
        captures = []
        for cell, direction, target in _capture_moves(grid):
            victim = grid[target]
            left = [c for c in cards if c != victim]
            if not _connected(left):
                continue
            partners = sum(1 for c in left if c != victim and _matches(c, victim))
            captures.append((partners, cell, direction, target))
        captures.sort(key=lambda item: item[0])
        for _, cell, direction, target in captures:
            child = list(grid)
            child[target], child[cell] = grid[cell], -1
            yield A.capture(cell, direction), tuple(child), used


# --------------------------------------------------------------------------------------------
# The fast backend: bitboards, sleep sets, restarts, a compiled iterative search
# --------------------------------------------------------------------------------------------
#
# Representation. The (at most 18) cards of the position get local ids: grid cards 0..g-1 in
# cell order, then the stock cards g..g+s-1, top first. ``match[i]`` is the bit mask of the ids
# sharing a rank or a suit with card i. The grid is 15 small ints (local id or -1), ``occ`` its
# 15-bit occupancy mask, ``rem`` the mask of cards still to play (in the grid, or in the stock
# and not yet revealed). Captures are found pairwise: from each occupied cell, the first occupied
# cell below and to the right (lowest set bit of ray mask & occ, by table) and the two lower
# diagonal neighbours; a matching pair gives both captures (X takes Y, Y takes X).
#
# Moves are ints: a capture is its action index + ``256 * target``, a stock placement is its
# PLACE action index + ``256 * cell`` (reveal the next card and place it on ``cell``).
#
# Position key: 5 bits per cell (id + 1, 0 = empty) and the stock cards used: cells 0-11 in
# ``lo`` (60 bits); cells 12-14, ``used``, a marker bit and the solve's generation number in
# ``hi``. The key is the whole position (whether the stock is open follows from the card count),
# so a table hit is never a collision. The table is a bucketed hash set (4 entries of 16 bytes,
# one cache line, per bucket); when a bucket is full an entry is overwritten. It only ever holds
# positions proven lost, so forgetting one costs time, never exactness. One table serves all the
# solves of a process: entries of older solves carry an older generation number, never match,
# and count as free. It starts at 1 MiB; when a solve has stored as many positions as it has
# entries, the search stops at the node it is entering, the table grows 4x (this solve's entries
# copied over) and the search resumes from its saved stack, up to 64 MiB.
#
# Sleep sets (partial-order reduction; Godefroid 1996). Two moves are INDEPENDENT at a position
# when each stays legal after the other and both orders reach the same position:
#   - captures a->b and c->d with {a, b} and {c, d} disjoint. A capture empties its source
#     and refills its target, so it changes occupancy at one cell only (a). If a lay on the ray
#     from c up to d it would be d itself or lie between c and d; the first is excluded and the
#     second is impossible, since d is the FIRST occupied cell of that ray. So c->d still finds
#     d and the same two cards, and symmetrically; disjoint cells give the same final grid.
#   - a placement on p and a capture a->b, unless p lies strictly between a and b (then the
#     placed card would block the ray). The placement only needs p empty and the stock open,
#     both still true after the capture; the capture's ray is unchanged when p is not between.
#   - two placements are never independent (they place different stock cards).
# At a node x, after the children x.m1 .. x.m(k-1) have been searched and found lost, the child
# x.mk gets the sleep set {m in sleep(x) + {m1..m(k-1)} : m independent of mk}, and moves in a
# node's sleep set are not searched. Claim: for every m in sleep(y), the position y.m is lost.
# Induction: if m = mi was searched at x, x.mi is lost (the search returns at the first win);
# if m was in sleep(x), x.m is lost by hypothesis. Independence gives x.mk.m = x.m.mk, a
# successor of the lost position x.m, hence lost (a lost position has only lost successors). So
# a node is declared lost only when all its children are lost, and the table of lost positions
# stays exact. (The game is acyclic: every move removes a card or uses a stock card.) Sleep sets
# are bit sets over the action index (captures cell*8+dir in two words, placements in a third);
# a move's dependent set is built from per-node masks: the moves from or onto its cells, and
# for a placement the captures whose ray crosses its cell.
#
# Connectivity prune: as in the reference, a capture whose victim would leave the remaining
# cards (grid + stock) split into groups sharing no rank or suit is never searched, because no
# capture can ever join two such groups, so each keeps a card to the end. The verdict for each
# card set is memoised in a 2**n byte table.
#
# Move order and restarts. Placements come first, then captures, the victim with the fewest
# partners left first. Depth-first search on winnable deals is heavy-tailed: one unlucky early
# choice can cost 100M nodes where another order needs 1000. So a solve runs short searches with
# growing node budgets (2000 x 1.5**k), alternating that order with randomised tie-breaks (a
# fixed seed per phase: results are reproducible), up to RESTART_BUDGET (about 2.6M) nodes in
# all, then one unbounded search in the deterministic order.
# All phases share the table of lost positions (every entry is a proven fact, whatever order
# found it), so an aborted phase is not wasted. Lost deals pay at most RESTART_BUDGET extra nodes.

# The kernel's move codes are the env's action indices, and its bit tricks follow the action
# table's layout (actions.py): captures first, 8 directions a cell (a capture's source cell is
# ``code >> 3``), then REVEAL, then one PLACE per cell. They are restated here as numbers
# because numba freezes globals into its on-disk cache, which notices changes to this file only;
# tests/solitaire/test_solver.py checks them against the action table.
_K_DIRECTION_BITS = 3
_K_REVEAL = 120
_K_PLACE_BASE = 121

_FAST_LOCK = threading.Lock()
_FAST: dict = {}  # "search": the compiled kernel; "error": why numba is unusable; tables
_WARNED = False

#: Restart phases: (order, node budget) before the final unbounded search; order 0 is the
#: deterministic order, 1 the same with random tie-breaks.
RESTART_PHASES = tuple((phase % 2, int(2000 * 1.5**phase)) for phase in range(16))
RESTART_BUDGET = sum(budget for _, budget in RESTART_PHASES)

_KERNEL_NAMES = ("_k_popcount", "_k_connected", "_k_bucket", "_k_search", "_k_rehash")


def _k_popcount(x):
    # x < 2**32 (all masks here have at most 18 bits)
    x = x - ((x >> 1) & 0x55555555)
    x = (x & 0x33333333) + ((x >> 2) & 0x33333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F
    return ((x * 0x01010101) & 0xFFFFFFFF) >> 24


def _k_connected(mask, match):
    """Whether the cards of ``mask`` are connected by "shares a rank or a suit"."""
    if mask == 0:
        return True
    reach = mask & -mask
    frontier = reach
    while frontier:
        grown = 0
        while frontier:
            bit = frontier & -frontier
            frontier ^= bit
            grown |= match[_k_popcount(bit - 1)]
        grown &= mask
        frontier = grown & ~reach
        reach |= grown
    return reach == mask


def _k_bucket(lo, hi, tt_bits):
    """The index in ``tt`` of the bucket (4 entries of 2 words) of key (lo, hi)."""
    h = (lo * np.uint64(0x9E3779B97F4A7C15)) ^ ((hi + np.uint64(0xC2B2AE3D27D4EB4F)) * np.uint64(0xBF58476D1CE4E5B9))
    h ^= h >> np.uint64(31)
    h *= np.uint64(0x9E3779B97F4A7C15)
    return np.int64(h >> np.uint64(64 - (tt_bits - 2))) * 8


def _k_rehash(old, new, new_bits, generation):
    """Copy the entries of the current solve (``generation``) from ``old`` into ``new``."""
    gen_mask = np.uint64(0xFFFFFFFF) << np.uint64(GEN_SHIFT)
    for i in range(0, old.shape[0], 2):
        hi = old[i + 1]
        if hi == 0 or (hi & gen_mask) != generation:
            continue
        lo = old[i]
        base = _k_bucket(lo, hi, new_bits)
        slot = base + 2 * np.int64((lo ^ (lo >> np.uint64(29))) & np.uint64(3))
        for e in range(4):
            if new[base + 2 * e + 1] == 0:
                slot = base + 2 * e
                break
        new[slot] = lo
        new[slot + 1] = hi


def _k_search(
    grid0,
    nstock,
    match,
    captured0,
    forward,
    lowbit,
    between,
    tt,
    tt_bits,
    generation,
    memo,
    node_limit,
    store_limit,
    use_sleep,
    order,
    seed,
    line,
    counters,
    ws,
):
    """The search from ``grid0`` (local ids). Returns 1 (won: ``line[:counters[0]]`` holds the
    moves), 0 (lost), -1 (``node_limit`` nodes searched) or -2 (more than ``store_limit``
    positions stored: the caller grows the table and calls again with the same workspace ``ws``,
    and the search resumes where it stopped). ``order``: 0 deterministic, 1 random tie-breaks,
    2 random (placements still first). ``counters`` (added to): [line length, nodes, table
    hits, table stores, connectivity prunes, sleeping moves skipped]."""
    # the search stack (ws, from _workspace): per depth the moves in order, how many, the next
    # one, whether the node was a table hit, the undo data, the key, the sleep set and the moves
    # searched (bit sets), and the per-node masks for the dependency relation
    grid, moves, nmv, idx, hit, undo_a, undo_card, keys, sleepw, donew, onto, across, regs = ws
    MAXM = moves.shape[1]
    MASK48 = 0xFFFFFFFFFFFF
    g = 0
    for c in range(15):
        if grid0[c] >= 0:
            g += 1
    ntot0 = g + nstock
    stock_mask = 0
    for s in range(nstock):
        stock_mask |= 1 << (g + s)
    sort_keys = np.zeros(MAXM, np.int64)

    nodes = 0
    hits = 0
    stores = 0
    conn_pruned = 0
    slept = 0
    status = 0
    s5 = np.uint64(5)
    gen_mask = np.uint64(0xFFFFFFFF) << np.uint64(GEN_SHIFT)

    if regs[0] == 0:  # a new search
        occ = 0
        ingrid = 0
        for c in range(15):
            grid[c] = grid0[c]
            if grid0[c] >= 0:
                occ |= 1 << c
                ingrid |= 1 << grid0[c]
        used = 0
        depth = 0
        rng = (seed * 0x9E3779B1 + 0x7F4A7C15) & MASK48 | 1
        rem0 = ingrid | stock_mask
        if memo[rem0] == 0:
            memo[rem0] = 1 if _k_connected(rem0, match) else 2
        if memo[rem0] == 2:
            counters[1] += 1
            counters[4] += 1
            return 0
    else:  # resumed: re-enter the node where the search stopped
        occ, ingrid, used, depth, rng = regs[1], regs[2], regs[3], regs[4], regs[5]

    entering = True
    while True:
        if entering:
            if store_limit > 0 and stores > store_limit:
                regs[0], regs[1], regs[2] = 1, occ, ingrid
                regs[3], regs[4], regs[5] = used, depth, rng
                status = -2
                break
            entering = False
            nodes += 1
            if node_limit > 0 and nodes > node_limit:
                nodes -= 1
                status = -1
                break
            ncards = _k_popcount(occ)
            if used == nstock and ncards == 1:
                for d in range(depth):
                    line[d] = moves[d, idx[d] - 1] & 255
                counters[0] = depth
                status = 1
                break
            # the position key and its table bucket
            lo = np.uint64(0)
            for c in range(12):
                lo = (lo << s5) | np.uint64(grid[c] + 1)
            hi = np.uint64(1)
            for c in range(12, 15):
                hi = (hi << s5) | np.uint64(grid[c] + 1)
            hi = (hi << np.uint64(2)) | np.uint64(used) | generation
            keys[depth, 0] = lo
            keys[depth, 1] = hi
            base = _k_bucket(lo, hi, tt_bits)
            found = False
            for e in range(4):
                khi = tt[base + 2 * e + 1]
                if khi == 0:
                    break
                if khi == hi and tt[base + 2 * e] == lo:
                    found = True
                    break
            hit[depth] = 1 if found else 0
            n = 0
            if found:
                hits += 1
            else:
                rem = ingrid | (stock_mask >> (g + used) << (g + used))
                s0 = sleepw[depth, 0]
                s1 = sleepw[depth, 1]
                s2 = sleepw[depth, 2]
                donew[depth, 0] = 0
                donew[depth, 1] = 0
                donew[depth, 2] = 0
                if use_sleep:
                    for c in range(15):
                        onto[depth, c, 0] = 0
                        onto[depth, c, 1] = 0
                        across[depth, c, 0] = 0
                        across[depth, c, 1] = 0
                # 1. reveal the next stock card and place it (the stock opens after a capture)
                captured = captured0 or (_k_popcount(ingrid) + nstock - used < ntot0)
                if captured and used < nstock and ncards < 15:
                    for c in range(15):
                        if grid[c] < 0:
                            if (s2 >> c) & 1:
                                slept += 1
                                continue
                            moves[depth, n] = _K_PLACE_BASE + c + (c << 8)
                            if order == 0:
                                sort_keys[n] = (1 << 40) + 1023 - (_K_PLACE_BASE + c)
                            else:
                                rng ^= (rng << 13) & MASK48
                                rng ^= rng >> 7
                                rng ^= (rng << 17) & MASK48
                                sort_keys[n] = (1 << 40) + (rng & 1023)
                            n += 1
                # 2. captures, pairwise: cell c with the first occupied cell below, to the
                # right, down-left and down-right (forward[c, j]: a ray mask for j < 2, a cell or
                # -1 for j >= 2); a matching pair gives both captures
                o = occ
                while o:
                    bit = o & -o
                    o ^= bit
                    c = _k_popcount(bit - 1)
                    x = grid[c]
                    mx = match[x]
                    for j in range(4):
                        if j < 2:
                            t = np.int64(lowbit[forward[c, j] & occ])
                        else:
                            t = forward[c, j]
                            if t >= 0 and grid[t] < 0:
                                t = -1
                        if t < 0:
                            continue
                        y = grid[t]
                        if not (mx >> y) & 1:
                            continue
                        # direction from c to t, and back: down/up, right/left, down-left/
                        # up-right, down-right/up-left
                        if j == 0:
                            d_ct, d_tc = 1, 0
                        elif j == 1:
                            d_ct, d_tc = 3, 2
                        elif j == 2:
                            d_ct, d_tc = 6, 5
                        else:
                            d_ct, d_tc = 7, 4
                        for side in range(2):
                            if side == 0:
                                src, dst, code, victim = c, t, (c << _K_DIRECTION_BITS) + d_ct, y
                            else:
                                src, dst, code, victim = t, c, (t << _K_DIRECTION_BITS) + d_tc, x
                            word = code >> 6
                            cbit = 1 << (code & 63)
                            if use_sleep:
                                onto[depth, dst, word] |= cbit
                                over = between[src, dst]
                                while over:
                                    pb = over & -over
                                    over ^= pb
                                    across[depth, _k_popcount(pb - 1), word] |= cbit
                                if (s0 if word == 0 else s1) & cbit:
                                    slept += 1
                                    continue
                            left = rem & ~(1 << victim)
                            ok = memo[left]
                            if ok == 0:
                                ok = 1 if _k_connected(left, match) else 2
                                memo[left] = ok
                            if ok == 2:
                                conn_pruned += 1
                                continue
                            moves[depth, n] = code + (dst << 8)
                            partners = _k_popcount(match[victim] & left)
                            if order == 0:
                                tie = 1023 - code
                            else:
                                rng ^= (rng << 13) & MASK48
                                rng ^= rng >> 7
                                rng ^= (rng << 17) & MASK48
                                tie = rng & 1023
                            if order == 2:
                                sort_keys[n] = tie
                            else:
                                sort_keys[n] = ((32 - partners) << 20) + tie
                            n += 1
                # order: highest key first
                for q in range(1, n):
                    kv = sort_keys[q]
                    mv = moves[depth, q]
                    r = q - 1
                    while r >= 0 and sort_keys[r] < kv:
                        sort_keys[r + 1] = sort_keys[r]
                        moves[depth, r + 1] = moves[depth, r]
                        r -= 1
                    sort_keys[r + 1] = kv
                    moves[depth, r + 1] = mv
            nmv[depth] = n
            idx[depth] = 0

        if idx[depth] < nmv[depth]:
            m = moves[depth, idx[depth]]
            idx[depth] += 1
            code = m & 255
            t = m >> 8
            if use_sleep:
                # the child's sleep set: (sleep + searched siblings) minus moves dependent on m
                if code > _K_REVEAL:
                    dep0 = across[depth, t, 0]
                    dep1 = across[depth, t, 1]
                    dep2 = 0x7FFF
                else:
                    a = code >> _K_DIRECTION_BITS
                    dep0 = onto[depth, a, 0] | onto[depth, t, 0]
                    dep1 = onto[depth, a, 1] | onto[depth, t, 1]
                    for cell in (a, t):
                        if cell < 8:
                            dep0 |= 0xFF << (8 * cell)
                        else:
                            dep1 |= 0xFF << (8 * (cell - 8))
                    dep2 = between[a, t]
                sleepw[depth + 1, 0] = (sleepw[depth, 0] | donew[depth, 0]) & ~dep0
                sleepw[depth + 1, 1] = (sleepw[depth, 1] | donew[depth, 1]) & ~dep1
                sleepw[depth + 1, 2] = (sleepw[depth, 2] | donew[depth, 2]) & ~dep2
                if code > _K_REVEAL:
                    donew[depth, 2] |= 1 << t
                else:
                    donew[depth, code >> 6] |= 1 << (code & 63)
            if code > _K_REVEAL:  # place the next stock card on t
                grid[t] = g + used
                ingrid |= 1 << (g + used)
                occ |= 1 << t
                used += 1
            else:
                a = code >> _K_DIRECTION_BITS
                undo_a[depth] = a
                victim = grid[t]
                undo_card[depth] = victim
                ingrid &= ~(1 << victim)
                grid[t] = grid[a]
                grid[a] = -1
                occ &= ~(1 << a)
            depth += 1
            entering = True
            continue

        # every child lost: the position is lost; remember it
        if hit[depth] == 0:
            lo = keys[depth, 0]
            hi = keys[depth, 1]
            base = _k_bucket(lo, hi, tt_bits)
            # a full bucket: overwrite one entry
            slot = base + 2 * np.int64((lo ^ (lo >> np.uint64(29))) & np.uint64(3))
            for e in range(4):
                khi = tt[base + 2 * e + 1]
                if khi == 0 or (khi & gen_mask) != generation:  # free, or left by an old solve
                    slot = base + 2 * e
                    break
            tt[slot] = lo
            tt[slot + 1] = hi
            stores += 1
        if depth == 0:
            status = 0
            break
        depth -= 1
        m = moves[depth, idx[depth] - 1]
        t = m >> 8
        if (m & 255) > _K_REVEAL:
            used -= 1
            ingrid &= ~(1 << grid[t])
            grid[t] = -1
            occ &= ~(1 << t)
        else:
            a = undo_a[depth]
            grid[a] = grid[t]
            grid[t] = undo_card[depth]
            ingrid |= 1 << undo_card[depth]
            occ |= 1 << a

    counters[1] += nodes
    counters[2] += hits
    counters[3] += stores
    counters[4] += conn_pruned
    counters[5] += slept
    return status


def _tables() -> dict[str, np.ndarray]:
    """The kernel's geometry tables.

    ``forward[cell]``: the ray masks down and right (its nearest occupied cell is the lowest set
    bit of ``mask & occ``), then the down-left and down-right neighbours (-1: off the grid);
    ``lowbit[mask]``: the index of the lowest set bit (-1 for 0); ``between[a, b]``: the cells
    strictly between a and b when b lies on an orthogonal ray from a (0 otherwise).
    """
    forward = np.full((NUM_CELLS, 4), -1, dtype=np.int64)
    between = np.zeros((NUM_CELLS, NUM_CELLS), dtype=np.int64)
    for cell in range(NUM_CELLS):
        for j, direction in enumerate((1, 3, 6, 7)):  # down, right, down-left, down-right
            ray = RAYS[cell][direction]
            if j < 2:
                forward[cell, j] = sum(1 << target for target in ray)
            elif ray:
                forward[cell, j] = ray[0]
        for direction in range(A.NUM_DIRECTIONS):
            passed = 0
            for target in RAYS[cell][direction]:
                between[cell, target] = passed
                passed |= 1 << target
    lowbit = np.full(1 << NUM_CELLS, -1, dtype=np.int8)
    for mask in range(1, 1 << NUM_CELLS):
        lowbit[mask] = (mask & -mask).bit_length() - 1
    return {"forward": forward, "lowbit": lowbit, "between": between}


def _fast_available(warn: bool = False) -> bool:
    """Whether numba can be imported (importing it the first time); warn once when not."""
    global _WARNED
    if "search" not in _FAST and "error" not in _FAST:
        _load_fast()
    if "error" in _FAST and warn and not _WARNED:
        _WARNED = True
        warnings.warn(
            "numba is not available (" + _FAST["error"] + "); the Empire Solitaire solver falls "
            "back to its pure-Python backend, which is 50-100x slower. Install the extra: "
            "pip install 'empire-envs[solver]'",
            RuntimeWarning,
            stacklevel=3,
        )
    return "search" in _FAST


def _load_fast() -> None:
    with _FAST_LOCK:
        if "search" in _FAST or "error" in _FAST:
            return
        try:
            import numba
        except ImportError as error:
            _FAST["error"] = f"{type(error).__name__}: {error}"
            return
        module = globals()
        for name in _KERNEL_NAMES:  # callees first: a kernel binds the callees it names
            module[name] = numba.njit(cache=True, nogil=True)(module[name])
        _FAST.update(_tables())
        _FAST["search"] = module["_k_search"]
        _FAST["rehash"] = module["_k_rehash"]
        _FAST["compiled"] = False


def _solve_fast(
    grid, stock, node_limit, restarts: bool = True, use_sleep: bool = True, fixed_bits: int | None = None
) -> SolveResult:
    """The fast backend; ``restarts``, ``use_sleep`` and ``fixed_bits`` (a private table of that
    size, never grown) are for tests and measurements."""
    if not _fast_available():
        raise RuntimeError(
            "the fast solver backend needs numba (" + _FAST["error"] + "): "
            "pip install 'empire-envs[solver]', or pass backend='python'"
        )
    start = time.perf_counter()
    compile_seconds = 0.0
    if not _FAST["compiled"]:
        with _FAST_LOCK:
            if not _FAST["compiled"]:
                _warm_up()
                compile_seconds = time.perf_counter() - start
                _FAST["compile_seconds"] = compile_seconds
                _FAST["compiled"] = True
    cards = [c for c in grid if c >= 0] + list(stock)
    n = len(cards)
    grid0 = np.full(NUM_CELLS, -1, dtype=np.int64)
    ids = iter(range(n))
    for cell, card in enumerate(grid):
        if card >= 0:
            grid0[cell] = next(ids)
    match = np.zeros(max(n, 1), dtype=np.int64)
    for i, card in enumerate(cards):
        for j, other in enumerate(cards):
            if i != j and _matches(card, other):
                match[i] |= 1 << j
    phases = list(RESTART_PHASES) if restarts else []
    status, moves, counters, stats = _run_kernel(
        grid0,
        len(stock),
        match,
        _captured_before(grid, stock),
        node_limit,
        phases,
        use_sleep,
        fixed_bits,
    )
    winnable = None if status < 0 else bool(status)
    line = _line_from_moves(moves) if status == 1 else None
    names = ("line_moves", "nodes", "table_hits", "table_stores", "connectivity_prunes", "sleeping_moves_skipped")
    figures = {name: int(v) for name, v in zip(names, counters, strict=True)}
    figures.update(stats)
    return SolveResult(
        winnable,
        line,
        figures["nodes"],
        time.perf_counter() - start,
        "fast",
        compile_seconds,
        figures,
    )


def _workspace(max_depth: int = 24, max_moves: int = 144) -> tuple:
    """A fresh search stack for ``_k_search`` (17 captures + 3 placements at most: depth 20)."""
    return (
        np.zeros(NUM_CELLS, dtype=np.int64),  # grid
        np.zeros((max_depth, max_moves), dtype=np.int64),  # moves, in search order
        np.zeros(max_depth, dtype=np.int64),  # how many moves
        np.zeros(max_depth, dtype=np.int64),  # the next move to search
        np.zeros(max_depth, dtype=np.int64),  # 1: a table hit
        np.zeros(max_depth, dtype=np.int64),  # undo: capture source
        np.zeros(max_depth, dtype=np.int64),  # undo: captured card
        np.zeros((max_depth, 2), dtype=np.uint64),  # position keys
        np.zeros((max_depth + 1, 3), dtype=np.int64),  # sleep sets
        np.zeros((max_depth, 3), dtype=np.int64),  # moves searched
        np.zeros((max_depth, NUM_CELLS, 2), dtype=np.int64),  # captures onto a cell
        np.zeros((max_depth, NUM_CELLS, 2), dtype=np.int64),  # captures passing over a cell
        np.zeros(8, dtype=np.int64),  # registers saved when the search stops to grow the table
    )


class _Table:
    """The table of lost positions: a flat uint64 array of (lo, hi) entries, grown on demand."""

    def __init__(self, bits: int = TT_MIN_BITS) -> None:
        self.lock = threading.Lock()
        self.bits = bits
        self.array = np.zeros(2 << self.bits, dtype=np.uint64)
        self.generation = 0

    def new_solve(self) -> np.uint64:
        self.generation += 1
        if self.generation >= 1 << 32:  # generation numbers wrap: start from a clean table
            self.array.fill(0)
            self.generation = 1
        return np.uint64(self.generation << GEN_SHIFT)

    def grow(self, bits: int, generation: np.uint64) -> None:
        bigger = np.zeros(2 << bits, dtype=np.uint64)
        _FAST["rehash"](self.array, bigger, bits, generation)
        self.array, self.bits = bigger, bits


def _run_kernel(grid0, nstock, match, captured, node_limit, phases, use_sleep=True, fixed_bits=None):
    """Run the compiled search: the restart ``phases`` ((order, budget) pairs), then an
    unbounded deterministic phase, all within ``node_limit`` nodes in total (None: no limit).
    Returns (status, moves, counters, {"phases": run, "table_bits": final size}).

    The process keeps one table for all solves, each solve stamping its entries with a new
    generation number (older entries never match and count as free). When a phase has stored as
    many positions as the table has entries, the search stops, the table grows 4x (keeping this
    solve's entries) and the search resumes where it stopped. A solve that finds the shared table
    busy (another thread) gets a private one.
    """
    shared = _FAST.get("table")
    if shared is None:
        shared = _FAST.setdefault("table", _Table())
    if fixed_bits is not None:
        table, max_bits = _Table(fixed_bits), fixed_bits
    else:
        table = shared if shared.lock.acquire(blocking=False) else _Table()
        max_bits = TT_BITS
    try:
        generation = table.new_solve()
        memo = np.zeros(1 << len(match), dtype=np.uint8)
        line = np.zeros(32, dtype=np.int64)
        counters = np.zeros(6, dtype=np.int64)
        status, ran = -1, 0
        for phase, (order, budget) in enumerate(list(phases) + [(0, 0)]):
            ran += 1
            ws = _workspace()
            phase_start = int(counters[1])
            while True:
                limit = budget - (int(counters[1]) - phase_start) if budget else 0
                if node_limit is not None:
                    left = node_limit - int(counters[1])
                    limit = left if budget == 0 else min(limit, left)
                if budget and limit <= 0 or node_limit is not None and limit <= 0:
                    status = -1
                    break
                grows = table.bits < max_bits
                status = _FAST["search"](
                    grid0,
                    nstock,
                    match,
                    captured,
                    _FAST["forward"],
                    _FAST["lowbit"],
                    _FAST["between"],
                    table.array,
                    table.bits,
                    generation,
                    memo,
                    limit,
                    (1 << table.bits) if grows else 0,
                    use_sleep,
                    order,
                    phase,
                    line,
                    counters,
                    ws,
                )
                if status != -2:
                    break
                table.grow(min(table.bits + 2, max_bits), generation)
            if status >= 0 or (node_limit is not None and counters[1] >= node_limit):
                break
    finally:
        if table is shared:
            shared.lock.release()
    moves = [int(m) for m in line[: counters[0]]] if status == 1 else []
    return int(status), moves, counters, {"phases": ran, "table_bits": table.bits}


def _warm_up() -> None:
    """Compile (or load from numba's on-disk cache) the kernel on a tiny position."""
    grid0 = np.full(NUM_CELLS, -1, dtype=np.int64)
    grid0[0], grid0[1] = 0, 1
    match = np.array([2, 1], dtype=np.int64)
    _run_kernel(grid0, 0, match, True, None, [])
    table = _Table()  # and the table's growth
    _FAST["rehash"](table.array, np.zeros(2 << (TT_MIN_BITS + 2), dtype=np.uint64), TT_MIN_BITS + 2, table.new_solve())
