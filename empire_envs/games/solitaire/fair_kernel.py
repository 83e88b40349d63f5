"""The fair optimum's expectimax compiled: the search of ``fair.py`` as one numba kernel, and
the clairvoyant upper bound.

``CompiledFairSearch().evaluate(position, time_limit=..., node_limit=...)`` returns the same
``FairResult`` as ``fair.FairSearch.evaluate``: the exact value of a ``FairPosition`` when the
search finishes, else sound bounds. It searches the same tree (``fair.py``'s docstring has the
expectimax, the card classes, the connectivity bound, the windows and the widening, each argued
there) with three differences, none of which changes a value:

- **Leaves are part of the tree.** Once the stock is empty a position is won or lost whatever
  the unseen cards are. ``_k_win`` decides it depth first with every verdict (won and lost) kept
  in one table keyed by the grid alone, so a position proven once is known to every leaf that
  reaches it (``fair.py`` calls the known-order solver per leaf, whose table is private to one
  solve: it relabels the cards per solve). It restarts with growing budgets, as the solver does.
- **One table of bounds** in flat arrays: a key of three words (the grid in 6 bits a cell; the
  node kind, stock left and waiting card; the unseen set while stock is left), four entries a
  bucket; a full bucket overwrites an entry, which loses work but never soundness.
- **Limits by nodes.** numba cannot read the process clock, so a kernel call runs to a node
  budget and the wrapper calls again (continuing from the table) until the search is exact, a
  width is done or the CPU time limit has passed; the budget of a call is half the time left at
  the rate measured so far.

**The test "is the value 1?" first.** ``evaluate`` gives the first ``value_one_share`` of its
limits (``VALUE_ONE_SHARE``, three quarters) to the same search with the null window
(``VALUE_ONE_ALPHA``, 1): values are multiples of 1/(37*36*35), so a value above the window's
floor is 1. In that window a decision stops at its first child proven to win every card, and a
chance node at its first card class proven below 1, so a strategy is refuted by one losing class
instead of valued in full; the widening search values the first strategy of every width in
full, at some 20,000 leaves before any alternative is tried. Every deal of the env that has
finished so far has value 1, proven this way.

The test runs in two orders, one after the other: first with REVEAL as a decision's last child
(captures are tried first, so its first strategies capture all they can before each reveal),
for ``REVEAL_LAST_SHARE`` of its limits, then with REVEAL first. Which order proves a deal
quickly differs from deal to deal (REVEAL last took deal 9 from 5.1 to 0.2 CPU s, and deal 3
from 9.1 to 19.8; docs/benchmarks/solitaire_ladder.md); the order changes which children are
searched first, never a bound. When the test proves the value below 1, or its share runs out,
the widening search (below) runs for the rest of the limits, from the bounds the test left in
the table (all sound, whatever the window or the order).

``clairvoyant_bound(position)`` is a sound upper bound that falls below 1 before a position is
solved: the known-order verdict (``_k_clair``, the solver's question) averaged over the stock
orders, a fair strategy being, order by order, one of the strategies the known-order solve
considers. The orders are taken by card classes (``_k_clair_bound``); a solve stopped by
its node budget counts as won. On whole deals it costs seconds to minutes (a lost order that
keeps its cards connected needs a full proof).

How far this reaches on the env's deals, and what it does not reach, is measured in
docs/benchmarks/solitaire_ladder.md: deals of value 1 mostly finish within a minute; a deal of
value below 1 needs every strategy valued or refuted below the best, and so far none finishes.

The recursive kernels are compiled in each process (about 20 s: numba's disk cache cannot load
self-recursive functions); the others are cached on disk, keyed on this file, so the constants
they read are restated here as numbers.
"""

from __future__ import annotations

import threading
import time

import numpy as np

from .actions import RAYS
from .fair import EPS, WIDTHS, FairPosition, FairResult
from .state import NUM_CELLS

#: nodes of a kernel call when the time left is unknown (the first call, or a node limit)
CHUNK_NODES = 20_000
#: the node budget of one known-order solve in the clairvoyant bound (past it the order counts as
#: won, which keeps the bound sound)
CLAIRVOYANT_NODE_LIMIT = 200_000
#: the most nodes of one kernel call
MAX_CHUNK_NODES = 50_000_000
#: the share of a search's limits given first to the test "is the value 1?"
VALUE_ONE_SHARE = 0.75
#: the share of the test's limits run with REVEAL after every capture, before REVEAL first
REVEAL_LAST_SHARE = 0.6
#: the test's window is (VALUE_ONE_ALPHA, 1): values are multiples of 1/(37*36*35), so a value
#: above it is 1
VALUE_ONE_ALPHA = 1.0 - 1e-6
#: the table of bounds: 2**TABLE_BITS entries of 40 bytes (160 MiB at 22); the table of
#: stock-empty verdicts beside it has twice the entries, of 16 bytes (128 MiB at 22)
TABLE_BITS = 22

# node kinds (the kernel restates them as numbers)
_DECIDE, _CHANCE, _WAITING = 0, 1, 2

_LOCK = threading.Lock()
_KERNEL: dict = {}

_RECURSIVE = ("_k_clair", "_k_clair_bound", "_k_search")
_KERNEL_NAMES = (
    "_k_card_nodes",
    "_k_bound",
    "_k_captures",
    "_k_classes",
    "_k_win_key",
    "_k_slot",
    "_k_key",
    "_k_lookup",
    "_k_store",
    "_k_win_slot",
    "_k_win_lookup",
    "_k_win_store",
    "_k_cards_connected",
    "_k_grid_cards",
    "_k_win_moves",
    "_k_win_phase",
    "_k_win",
    "_k_clair",
    "_k_clair_bound",
    "_k_search",
)


# --------------------------------------------------------------------------- the kernel
# Cards are suit * 13 + rank. Geometry: ray[cell, direction, i] (the cells a capture may reach,
# nearest first; -1 past the end), as actions.RAYS.


def _k_card_nodes(card):
    """The card's rank node (0-12) and suit node (13-16) as a bit set."""
    return (1 << (card % 13)) | (1 << (13 + card // 13))


def _k_bound(grid, waiting, pool, stock_left, groups):
    """``fair.connectivity_bound`` of the grid's cards plus the waiting card (``groups``: a
    scratch array of 16)."""
    ngroups = 0
    for cell in range(16):
        card = waiting if cell == 15 else grid[cell]
        if card < 0:
            continue
        node = _k_card_nodes(card)
        merged = node
        kept = 0
        for g in range(ngroups):
            if groups[g] & node:
                merged |= groups[g]
            else:
                groups[kept] = groups[g]
                kept += 1
        groups[kept] = merged
        ngroups = kept + 1
    if ngroups <= 1 and stock_left != 1:
        return 1.0
    if ngroups > stock_left + 1:
        return 0.0
    if stock_left != 1:
        return 1.0
    good = 0
    total = 0
    for card in range(52):
        if not (pool >> card) & 1:
            continue
        total += 1
        node = _k_card_nodes(card)
        if ngroups == 1:
            if node & groups[0]:
                good += 1
        elif node & groups[0] and node & groups[1]:
            good += 1
    return good / total


def _k_captures(grid, ray, out):
    """The legal captures of ``grid`` as (source, target) pairs into ``out``; their number."""
    n = 0
    for cell in range(15):
        card = grid[cell]
        if card < 0:
            continue
        for direction in range(8):
            for i in range(4):
                target = ray[cell, direction, i]
                if target < 0:
                    break
                other = grid[target]
                if other >= 0:
                    if other % 13 == card % 13 or other // 13 == card // 13:
                        out[n, 0] = cell
                        out[n, 1] = target
                        n += 1
                    break
    return n


def _k_classes(grid, pool, last, extra, reps, sizes):
    """``fair._card_classes`` of the unseen cards ``pool``: representatives and sizes, heaviest
    first (ties in card order, as fair.py's stable sort); returns how many classes. ``extra``:
    cards fixed besides the grid's (a bit set; the clairvoyant bound's stock cards drawn so
    far), read only when not ``last``."""
    keys = np.empty(52, np.int64)
    ncls = 0
    rank_cells = np.zeros(13, np.int64)
    suit_cells = np.zeros(4, np.int64)
    grid_ranks = 0
    grid_suits = 0
    for cell in range(15):
        card = grid[cell]
        if card >= 0:
            rank_cells[card % 13] |= 1 << cell
            suit_cells[card // 13] |= 1 << cell
            grid_ranks |= 1 << (card % 13)
            grid_suits |= 1 << (card // 13)
    for card in range(52):
        if (extra >> card) & 1:
            grid_ranks |= 1 << (card % 13)
            grid_suits |= 1 << (card // 13)
    for card in range(52):
        if not (pool >> card) & 1:
            continue
        rank = card % 13
        suit = card // 13
        if last:
            key = rank_cells[rank] | suit_cells[suit]
        else:
            if (grid_ranks >> rank) & 1:
                rank_class = rank
            else:
                rank_class = 13
                for s in range(4):
                    if (pool >> (s * 13 + rank)) & 1:
                        rank_class += 1 << s
            if (grid_suits >> suit) & 1:
                suit_class = suit
            else:
                suit_class = 4
                for r in range(13):
                    if (pool >> (suit * 13 + r)) & 1:
                        suit_class += 1 << r
            key = rank_class * 16384 + suit_class
        found = -1
        for c in range(ncls):
            if keys[c] == key:
                found = c
                break
        if found < 0:
            keys[ncls] = key
            reps[ncls] = card
            sizes[ncls] = 1
            ncls += 1
        else:
            sizes[found] += 1
    for q in range(1, ncls):  # stable insertion sort, heaviest first
        rep, size = reps[q], sizes[q]
        r = q - 1
        while r >= 0 and sizes[r] < size:
            reps[r + 1] = reps[r]
            sizes[r + 1] = sizes[r]
            r -= 1
        reps[r + 1] = rep
        sizes[r + 1] = size
    return ncls


def _k_key(kind, grid, stock_left, pool, waiting, key):
    """The node's key into ``key`` (3 words): _k_win_key's grid words, the second extended by the
    kind, stock left and waiting card; the unseen set, dropped once the stock is empty."""
    _k_win_key(grid, key)
    hi = (key[1] << np.uint64(8)) | np.uint64((kind << 6) | (stock_left << 4))
    key[1] = (hi << np.uint64(6)) | np.uint64(waiting + 1)
    key[2] = np.uint64(pool) if stock_left > 0 else np.uint64(0)


def _k_slot(key, bits):
    h = key[0] * np.uint64(0x9E3779B97F4A7C15)
    h ^= (key[1] + np.uint64(0xC2B2AE3D27D4EB4F)) * np.uint64(0xBF58476D1CE4E5B9)
    h ^= (key[2] + np.uint64(0x165667B19E3779F9)) * np.uint64(0x94D049BB133111EB)
    h ^= h >> np.uint64(31)
    h *= np.uint64(0x9E3779B97F4A7C15)
    return np.int64(h >> np.uint64(64 - (bits - 2))) * 4


def _k_lookup(keys, bounds, bits, key):
    """The entry of ``key``, or -1."""
    base = _k_slot(key, bits)
    for e in range(4):
        i = base + e
        if keys[i, 1] == 0:
            return -1
        if keys[i, 0] == key[0] and keys[i, 1] == key[1] and keys[i, 2] == key[2]:
            return i
    return -1


def _k_store(keys, bounds, bits, key, lower, upper):
    base = _k_slot(key, bits)
    slot = base + np.int64((key[0] ^ key[1]) & np.uint64(3))
    for e in range(4):
        i = base + e
        if keys[i, 1] == 0 or (keys[i, 0] == key[0] and keys[i, 1] == key[1] and keys[i, 2] == key[2]):
            slot = i
            break
    keys[slot, 0] = key[0]
    keys[slot, 1] = key[1]
    keys[slot, 2] = key[2]
    bounds[slot, 0] = lower
    bounds[slot, 1] = upper


def _k_win_key(grid, key):
    """The grid in two words, 6 bits a cell (card + 1): cells 0-9, then a 1 and cells 10-14."""
    lo = np.uint64(0)
    for cell in range(10):
        lo = (lo << np.uint64(6)) | np.uint64(grid[cell] + 1)
    hi = np.uint64(1)
    for cell in range(10, 15):
        hi = (hi << np.uint64(6)) | np.uint64(grid[cell] + 1)
    key[0] = lo
    key[1] = hi


def _k_win_slot(lo, hi, bits):
    h = (lo * np.uint64(0x9E3779B97F4A7C15)) ^ ((hi + np.uint64(0xC2B2AE3D27D4EB4F)) * np.uint64(0xBF58476D1CE4E5B9))
    h ^= h >> np.uint64(31)
    h *= np.uint64(0x9E3779B97F4A7C15)
    return np.int64(h >> np.uint64(64 - (bits - 2))) * 4


def _k_win_lookup(wkeys, wbits, lo, hi):
    """1 won, 0 lost, -1 unknown (the value is stored in the key's top bit of the hi word)."""
    base = _k_win_slot(lo, hi, wbits)
    for e in range(4):
        i = base + e
        stored = wkeys[i, 1]
        if stored == 0:
            return -1
        if wkeys[i, 0] == lo and (stored & np.uint64(0x7FFFFFFFFFFFFFFF)) == hi:
            return 1 if stored >> np.uint64(63) else 0
    return -1


def _k_win_store(wkeys, wbits, lo, hi, won):
    base = _k_win_slot(lo, hi, wbits)
    slot = base + np.int64((lo ^ hi) & np.uint64(3))
    for e in range(4):
        if wkeys[base + e, 1] == 0:
            slot = base + e
            break
    wkeys[slot, 0] = lo
    wkeys[slot, 1] = hi | (np.uint64(1) << np.uint64(63)) if won else hi


def _k_cards_connected(cards):
    """Whether the cards of the set ``cards`` (bit ``suit * 13 + rank``) form one rank-or-suit
    group (rules.connected): every card joins its suit to its rank, so the cards are one group
    exactly when the suits in play are linked by shared ranks."""
    present = 0
    for suit in range(4):
        if (cards >> (13 * suit)) & 0x1FFF:
            present |= 1 << suit
    if present == 0:
        return True
    linked = present & -present
    ranks = 0
    for suit in range(4):
        if (linked >> suit) & 1:
            ranks = (cards >> (13 * suit)) & 0x1FFF
    changed = True
    while changed:
        changed = False
        for suit in range(4):
            suit_ranks = (cards >> (13 * suit)) & 0x1FFF
            if (present >> suit) & 1 and not (linked >> suit) & 1 and suit_ranks & ranks:
                linked |= 1 << suit
                ranks |= suit_ranks
                changed = True
    return linked == present


def _k_grid_cards(grid):
    """The set of the grid's cards (bit ``card``) and how many there are."""
    cards = 0
    count = 0
    for cell in range(15):
        if grid[cell] >= 0:
            cards |= 1 << grid[cell]
            count += 1
    return cards, count


def _k_win_moves(grid, ray, row, counts, rng, pairs):
    """The captures of ``grid`` into ``row`` as codes ``partners << 16 | tie << 8 | source << 4
    | target``, the victim with the fewest partners left first (the solver's order); their number.
    Ties go by cell order when ``rng[0]`` is 0, else at random (an xorshift state, advanced).
    ``counts`` and ``pairs``: scratch."""
    for i in range(17):
        counts[i] = 0
    for cell in range(15):
        card = grid[cell]
        if card >= 0:
            counts[card % 13] += 1
            counts[13 + card // 13] += 1
    n = _k_captures(grid, ray, pairs)
    for m in range(n):
        source = pairs[m, 0]
        target = pairs[m, 1]
        other = grid[target]
        # no two cards share both rank and suit: the victim's partners
        partners = counts[other % 13] + counts[13 + other // 13] - 2
        tie = 0
        if rng[0]:
            x = rng[0]
            x ^= (x << 13) & 0xFFFFFFFFFFFF
            x ^= x >> 7
            x ^= (x << 17) & 0xFFFFFFFFFFFF
            rng[0] = x
            tie = x & 255
        code = (partners << 16) | (tie << 8) | (source << 4) | target
        r = m - 1
        while r >= 0 and row[r] > code:
            row[r + 1] = row[r]
            r -= 1
        row[r + 1] = code
    return n


def _k_win(grid, ray, wkeys, wbits, ws, state):
    """Whether the stock-empty position ``grid`` can be won: 1, 0, or -1 when the node budget ran
    out (``state`` as in _k_search).

    Restarts, as the solver's: winnable grids are heavy-tailed for a depth-first search (one
    early choice can cost thousands of times the nodes of another), so the search runs in phases
    of growing node budgets (WIN_FIRST_PHASE x 1.5**k), alternating the deterministic order
    with random tie-breaks, then without a budget of its own. Every verdict a phase proves is
    kept in the table, so a stopped phase is not lost work."""
    rng = ws[7]
    budget = state[1]
    phase_budget = 300  # WIN_FIRST_PHASE
    for phase in range(14):  # WIN_PHASES
        rng[0] = 0 if phase % 2 == 0 else ((phase * 0x9E3779B1 + state[7] * 0x632BE5AB) & 0xFFFFFFFFFFFF) | 1
        state[1] = min(budget, state[0] + phase_budget)
        result = _k_win_phase(grid, ray, wkeys, wbits, ws, state)
        state[1] = budget
        if result >= 0:
            return result
        if state[0] >= budget:
            return -1  # state[2] is set: the whole search stops
        state[2] = 0
        phase_budget = phase_budget * 3 // 2
    rng[0] = 0
    return _k_win_phase(grid, ray, wkeys, wbits, ws, state)


def _k_win_phase(grid, ray, wkeys, wbits, ws, state):
    """One phase of _k_win: depth first with an explicit stack, every verdict remembered (the
    grid alone fixes it); a capture that splits the cards into groups sharing no rank or suit is
    not searched (it loses: fair.py's connectivity bound). The grid is restored before
    returning. ``ws``: the scratch of ``CompiledFairSearch.workspace``."""
    moves, keys, nmv, idx, cards_at, victims, counts, rng, pairs = ws
    cards, ncards = _k_grid_cards(grid)
    if ncards == 1:
        return 1
    if not _k_cards_connected(cards):
        return 0
    depth = 0
    result = 0
    entering = True
    while True:
        if entering:
            entering = False
            if ncards - depth == 1:
                result = 1
            else:
                _k_win_key(grid, keys[depth])
                known = _k_win_lookup(wkeys, wbits, keys[depth, 0], keys[depth, 1])
                if known >= 0:
                    result = known
                elif state[0] >= state[1]:
                    state[2] = 1
                    result = -1
                else:
                    state[0] += 1
                    state[4] += 1
                    cards_at[depth] = cards
                    nmv[depth] = _k_win_moves(grid, ray, moves[depth], counts, rng, pairs)
                    idx[depth] = 0
                    result = 2  # searching
            if result != 2:
                if depth == 0:
                    return result
                depth -= 1  # back to the parent with this result
                code = moves[depth, idx[depth] - 1]
                source = (code >> 4) & 15
                target = code & 15
                grid[source] = grid[target]
                grid[target] = victims[depth]
                cards = cards_at[depth]
                if result != 0:  # won or stopped: so is every node on the stack
                    if result == 1:
                        _k_win_store(wkeys, wbits, keys[depth, 0], keys[depth, 1], True)
                    while depth > 0:
                        depth -= 1
                        code = moves[depth, idx[depth] - 1]
                        source = (code >> 4) & 15
                        target = code & 15
                        grid[source] = grid[target]
                        grid[target] = victims[depth]
                        if result == 1:
                            _k_win_store(wkeys, wbits, keys[depth, 0], keys[depth, 1], True)
                    return result
        # the next capture of the node at ``depth``
        moved = False
        while idx[depth] < nmv[depth]:
            code = moves[depth, idx[depth]]
            idx[depth] += 1
            source = (code >> 4) & 15
            target = code & 15
            victim = grid[target]
            left = cards_at[depth] & ~(1 << victim)
            grid[target] = grid[source]
            grid[source] = -1
            if _k_cards_connected(left):
                victims[depth] = victim
                cards = left
                depth += 1
                entering = True
                moved = True
                break
            grid[source] = grid[target]
            grid[target] = victim
        if moved:
            continue
        _k_win_store(wkeys, wbits, keys[depth, 0], keys[depth, 1], False)
        result = 0
        if depth == 0:
            return 0
        depth -= 1
        code = moves[depth, idx[depth] - 1]
        source = (code >> 4) & 15
        target = code & 15
        grid[source] = grid[target]
        grid[target] = victims[depth]
        cards = cards_at[depth]


def _k_clair(grid, stock, nstock, used, ray, keys, bounds, bits, wkeys, wbits, ws, state):
    """Whether ``grid`` can be won when the stock is known: ``stock[used:nstock]`` are still to
    come, in that order (solver.solve's question). 1, 0, or -1 when the node budget ran out.
    Depth first, placements before captures; verdicts are kept in the table of bounds (kind 3,
    keyed by the grid and the cards still to come) and, once the stock is empty, in _k_win's."""
    if used == nstock:
        return _k_win(grid, ray, wkeys, wbits, ws, state)
    cards, ncards = _k_grid_cards(grid)
    coming = 0
    sequence = 0
    for i in range(used, nstock):
        coming |= 1 << stock[i]
        sequence |= (stock[i] + 1) << (6 * (i - used))
    key = np.empty(3, np.uint64)
    _k_key(3, grid, nstock - used, sequence, -1, key)
    entry = _k_lookup(keys, bounds, bits, key)
    if entry >= 0:
        return np.int64(bounds[entry, 0])
    if state[0] >= state[1]:
        state[2] = 1
        return -1
    state[0] += 1
    if not _k_cards_connected(cards | coming):
        _k_store(keys, bounds, bits, key, 0.0, 0.0)
        return 0
    # reveal and place the next card (the stock opens with the first capture: 18 cards in play)
    if ncards + nstock - used < 18:
        for cell in range(15):
            if grid[cell] < 0:
                grid[cell] = stock[used]
                result = _k_clair(grid, stock, nstock, used + 1, ray, keys, bounds, bits, wkeys, wbits, ws, state)
                grid[cell] = -1
                if result != 0:
                    if result == 1:
                        _k_store(keys, bounds, bits, key, 1.0, 1.0)
                    return result
    row = np.empty(128, np.int64)
    counts = np.empty(17, np.int64)
    n = _k_win_moves(grid, ray, row, counts, np.zeros(1, np.int64), np.empty((128, 2), np.int64))
    for m in range(n):
        source = (row[m] >> 4) & 15
        target = row[m] & 15
        victim = grid[target]
        if not _k_cards_connected((cards | coming) & ~(1 << victim)):
            continue
        grid[target] = grid[source]
        grid[source] = -1
        result = _k_clair(grid, stock, nstock, used, ray, keys, bounds, bits, wkeys, wbits, ws, state)
        grid[source] = grid[target]
        grid[target] = victim
        if result != 0:
            if result == 1:
                _k_store(keys, bounds, bits, key, 1.0, 1.0)
            return result
    _k_store(keys, bounds, bits, key, 0.0, 0.0)
    return 0


def _k_clair_bound(grid, pool, nstock, stock, depth, ray, keys, bounds, bits, wkeys, wbits, ws, state):
    """The clairvoyant bound: the mean over the stock orders (``nstock`` cards drawn in order
    from ``pool``) of _k_clair's verdict, an unfinished verdict counted as a win. Cards are
    taken by classes (_k_classes with the grid and the cards drawn before fixed), each class
    weighted by its size: a relabelling of ranks and suits that fixes the grid and the earlier
    cards maps the game with one card of a class onto the game with any other."""
    if depth == nstock:  # one solve, within state[5] nodes
        budget, stopped = state[1], state[2]
        state[1] = state[0] + state[5]
        state[2] = 0
        result = _k_clair(grid, stock, nstock, 0, ray, keys, bounds, bits, wkeys, wbits, ws, state)
        state[1], state[2] = budget, stopped
        if result < 0:
            state[6] += 1
        return 0.0 if result == 0 else 1.0
    drawn = 0
    for i in range(depth):
        drawn |= 1 << stock[i]
    reps = np.empty(52, np.int64)
    sizes = np.empty(52, np.int64)
    ncls = _k_classes(grid, pool, False, drawn, reps, sizes)
    total = 0
    for c in range(ncls):
        total += sizes[c]
    value = 0.0
    for c in range(ncls):
        stock[depth] = reps[c]
        value += (
            sizes[c]
            / total
            * _k_clair_bound(
                grid, pool & ~(1 << reps[c]), nstock, stock, depth + 1, ray, keys, bounds, bits, wkeys, wbits, ws, state
            )
        )
    return value


def _k_search(kind, grid, stock_left, pool, waiting, alpha, beta, ray, keys, bounds, bits, wkeys, wbits, ws, state):
    """``fair.FairSearch._search`` for one node: narrow its bounds until exact, outside
    ``(alpha, beta)``, or out of nodes. Returns the node's bounds (lower, upper), stored.

    ``state``: [nodes entered, node budget (this call stops past it), stopped flag, width
    (0: unlimited), nodes of _k_win, the node budget of one clairvoyant solve, clairvoyant
    solves stopped by it, leaves entered (stock-empty positions handed to _k_win), REVEAL's
    place among a decision's children (0: first, 1: last)].
    ``wkeys``: the table of stock-empty verdicts (``_k_win``); ``ws``: its scratch.
    """
    eps = 1e-12
    if kind == 0 and stock_left == 0:  # the stock is empty: won or lost
        state[7] += 1
        won = _k_win(grid, ray, wkeys, wbits, ws, state)
        if won < 0:
            return 0.0, 1.0
        return float(won), float(won)
    key = np.empty(3, np.uint64)
    _k_key(kind, grid, stock_left, pool, waiting, key)
    groups = np.empty(16, np.int64)
    entry = _k_lookup(keys, bounds, bits, key)
    if entry >= 0:
        lower = bounds[entry, 0]
        upper = bounds[entry, 1]
    else:  # (a stock-empty decision returned above)
        lower = 0.0
        upper = _k_bound(grid, waiting, pool, stock_left, groups)
    if upper - lower <= eps or lower >= beta - eps or upper <= alpha + eps or state[2]:
        if entry < 0:
            _k_store(keys, bounds, bits, key, lower, upper)
        return lower, upper
    state[0] += 1
    if state[0] >= state[1]:
        state[2] = 1

    # the children: (kind, grid, stock left, pool, waiting) and a weight for chance nodes
    pairs = np.empty((128, 2), np.int64)
    scratch = np.empty((128, 2), np.int64)
    child_grids = np.empty((128, 15), np.int64)
    child_kind = np.empty(128, np.int64)
    child_stock = np.empty(128, np.int64)
    child_pool = np.empty(128, np.int64)
    child_waiting = np.empty(128, np.int64)
    child_weight = np.empty(128, np.float64)
    order_key = np.empty(128, np.int64)
    n = 0
    if kind == 1:  # a reveal: one child per class of unseen cards
        reps = np.empty(52, np.int64)
        sizes = np.empty(52, np.int64)
        ncls = _k_classes(grid, pool, stock_left == 1, 0, reps, sizes)
        total = 0
        for c in range(ncls):
            total += sizes[c]
        for c in range(ncls):
            child_grids[n, :] = grid
            child_kind[n] = 2
            child_stock[n] = stock_left - 1
            child_pool[n] = pool & ~(1 << reps[c])
            child_waiting[n] = reps[c]
            child_weight[n] = sizes[c] / total
            order_key[n] = 0
            n += 1
    elif kind == 2:  # a waiting card: one child per empty cell
        for cell in range(15):
            if grid[cell] < 0:
                child_grids[n, :] = grid
                child_grids[n, cell] = waiting
                child_kind[n] = 0
                child_stock[n] = stock_left
                child_pool[n] = pool if stock_left > 0 else 0
                child_waiting[n] = -1
                order_key[n] = _k_captures(child_grids[n], ray, scratch)
                n += 1
    else:
        ncards = 0
        empty = False
        for cell in range(15):
            if grid[cell] >= 0:
                ncards += 1
            else:
                empty = True
        if stock_left > 0 and empty and ncards + stock_left < 18:
            child_grids[n, :] = grid
            child_kind[n] = 1
            child_stock[n] = stock_left
            child_pool[n] = pool
            child_waiting[n] = -1
            order_key[n] = -1 if state[8] else 1 << 20  # REVEAL after every capture, or before
            n += 1
        ncap = _k_captures(grid, ray, pairs)
        for m in range(ncap):
            source = pairs[m, 0]
            target = pairs[m, 1]
            child_grids[n, :] = grid
            child_grids[n, target] = grid[source]
            child_grids[n, source] = -1
            child_kind[n] = 0
            child_stock[n] = stock_left
            child_pool[n] = pool
            child_waiting[n] = -1
            if stock_left > 0:  # the capture leaving the most captures first (fair.py's order)
                order_key[n] = _k_captures(child_grids[n], ray, scratch)
            else:  # the victim with the fewest partners left first (the solver's order)
                victim = grid[target]
                partners = 0
                for cell in range(15):
                    other = child_grids[n, cell]
                    if other >= 0 and (other % 13 == victim % 13 or other // 13 == victim // 13):
                        partners += 1
                order_key[n] = 64 - partners
            n += 1
    perm = np.arange(n)
    if kind != 1:  # stable sort, highest order key first (classes come sorted by weight)
        for q in range(1, n):
            p = perm[q]
            r = q - 1
            while r >= 0 and order_key[perm[r]] < order_key[p]:
                perm[r + 1] = perm[r]
                r -= 1
            perm[r + 1] = p

    if n == 0:  # nothing legal: lost
        _k_store(keys, bounds, bits, key, 0.0, 0.0)
        return 0.0, 0.0

    # the children's bounds so far
    child_lower = np.zeros(n, np.float64)
    child_upper = np.ones(n, np.float64)
    child_key = np.empty(3, np.uint64)
    for i in range(n):
        c = perm[i]
        if child_kind[c] == 0 and child_stock[c] == 0:  # a leaf: only _k_win's table holds it
            cards, ncards = _k_grid_cards(child_grids[c])
            if ncards == 1:
                child_lower[i] = 1.0
                continue
            _k_win_key(child_grids[c], child_key)
            known = _k_win_lookup(wkeys, wbits, child_key[0], child_key[1])
            if known >= 0:
                child_lower[i] = known
                child_upper[i] = known
            elif not _k_cards_connected(cards):
                child_upper[i] = 0.0
            continue
        _k_key(child_kind[c], child_grids[c], child_stock[c], child_pool[c], child_waiting[c], child_key)
        found = _k_lookup(keys, bounds, bits, child_key)
        if found >= 0:
            child_lower[i] = bounds[found, 0]
            child_upper[i] = bounds[found, 1]
        else:
            child_upper[i] = _k_bound(child_grids[c], child_waiting[c], child_pool[c], child_stock[c], groups)

    if kind == 1:  # chance: Star1 windows (child bounds are in perm's order, as everywhere)
        new_lower = 0.0
        new_upper = 0.0
        for i in range(n):
            new_lower += child_weight[perm[i]] * child_lower[i]
            new_upper += child_weight[perm[i]] * child_upper[i]
        for i in range(n):
            if new_lower >= beta - eps or new_upper <= alpha + eps or state[2]:
                break
            if child_upper[i] - child_lower[i] <= eps:
                continue
            c = perm[i]
            weight = child_weight[c]
            old_lower = child_lower[i]
            old_upper = child_upper[i]
            child_alpha = (alpha - (new_upper - weight * old_upper)) / weight
            child_beta = (beta - (new_lower - weight * old_lower)) / weight
            c_lo, c_up = _k_search(
                2, child_grids[c], child_stock[c], child_pool[c], child_waiting[c],
                child_alpha, child_beta, ray, keys, bounds, bits, wkeys, wbits, ws, state,
            )  # fmt: skip
            child_lower[i] = c_lo
            child_upper[i] = c_up
            new_lower += weight * (c_lo - old_lower)
            new_upper += weight * (c_up - old_upper)
        new_lower = 0.0
        new_upper = 0.0
        for i in range(n):
            new_lower += child_weight[perm[i]] * child_lower[i]
            new_upper += child_weight[perm[i]] * child_upper[i]
    else:  # a decision or a placement: the best child
        width = n
        if stock_left > 0 and state[3] > 0 and state[3] < n:
            width = state[3]
        new_lower = 0.0
        for i in range(n):
            new_lower = max(new_lower, child_lower[i])
        for i in range(width):
            if new_lower >= beta - eps or state[2]:
                break
            if child_upper[i] <= max(new_lower, alpha) + eps or child_upper[i] - child_lower[i] <= eps:
                continue
            c = perm[i]
            c_lo, c_up = _k_search(
                child_kind[c], child_grids[c], child_stock[c], child_pool[c], child_waiting[c],
                max(alpha, new_lower), beta, ray, keys, bounds, bits, wkeys, wbits, ws, state,
            )  # fmt: skip
            child_lower[i] = c_lo
            child_upper[i] = c_up
            new_lower = max(new_lower, c_lo)
        new_upper = 0.0
        for i in range(n):
            new_upper = max(new_upper, child_upper[i])
    lower = max(lower, new_lower)
    upper = min(upper, new_upper)
    _k_store(keys, bounds, bits, key, lower, upper)
    return lower, upper


# --------------------------------------------------------------------------- loading


def _rays() -> np.ndarray:
    ray = np.full((NUM_CELLS, 8, 4), -1, dtype=np.int64)
    for cell in range(NUM_CELLS):
        for direction in range(8):
            for i, target in enumerate(RAYS[cell][direction]):
                ray[cell, direction, i] = target
    return ray


def _load() -> dict:
    """Compile (or load from numba's disk cache) the kernel; raises when numba is missing."""
    with _LOCK:
        if "search" not in _KERNEL:
            try:
                import numba
            except ImportError as error:  # pragma: no cover - the solver extra is installed in tests
                raise RuntimeError("the compiled fair search needs numba: pip install 'empire-envs[solver]'") from error
            module = globals()
            for name in _KERNEL_NAMES:  # callees first: a kernel binds the callees it names
                # numba's disk cache breaks self-recursive functions (a crash when loaded)
                module[name] = numba.njit(cache=name not in _RECURSIVE)(module[name])
            _KERNEL["ray"] = _rays()
            _KERNEL["search"] = module["_k_search"]
            _warm_up(_KERNEL)
            _KERNEL["clair"] = module["_k_clair"]
            _KERNEL["win"] = module["_k_win"]
            _KERNEL["clair_bound"] = module["_k_clair_bound"]
    return _KERNEL


def _warm_up(kernel: dict) -> None:
    """Compile the search on a two-card position, so that no caller's time limit pays for it."""
    tiny = CompiledFairSearch(8)
    grid = np.full(NUM_CELLS, -1, dtype=np.int64)
    grid[0], grid[1] = 0, 1
    kernel["search"](
        _DECIDE, grid, 0, 0, -1, 0.0, 1.0, kernel["ray"], tiny.keys, tiny.bounds, tiny.bits,
        tiny.win_keys, tiny.win_bits, tiny.workspace, tiny._state(1000),
    )  # fmt: skip


class CompiledFairSearch:
    """``fair.FairSearch.evaluate``, compiled; one table of bounds, kept between calls.

    ``table_bits``: the table has 2**table_bits entries (40 bytes each).
    """

    def __init__(self, table_bits: int = TABLE_BITS) -> None:
        if not 8 <= table_bits <= 30:
            raise ValueError(f"table_bits must be 8..30, got {table_bits}")
        self.bits = table_bits
        self.keys = np.zeros((1 << table_bits, 3), dtype=np.uint64)
        self.bounds = np.zeros((1 << table_bits, 2), dtype=np.float64)
        #: the verdicts of stock-empty grids (``_k_win``): 16 bytes an entry
        self.win_bits = table_bits + 1
        self.win_keys = np.zeros((1 << self.win_bits, 2), dtype=np.uint64)
        # _k_win's scratch
        self.workspace = (
            np.zeros((24, 128), dtype=np.int64),  # per depth: the moves in order
            np.zeros((24, 2), dtype=np.uint64),  # per depth: the position's key
            np.zeros(24, dtype=np.int64),  # per depth: how many moves
            np.zeros(24, dtype=np.int64),  # per depth: the next move
            np.zeros(24, dtype=np.int64),  # per depth: the set of the grid's cards
            np.zeros(24, dtype=np.int64),  # per depth: the card the move took (to undo it)
            np.zeros(17, dtype=np.int64),  # rank and suit counts; scratch
            np.zeros(1, dtype=np.int64),  # the random tie-breaks' state (0: none)
            np.zeros((128, 2), dtype=np.int64),  # captures as (source, target): scratch
        )
        self.nodes = 0
        self.win_nodes = 0
        self.clairvoyant_stopped = 0
        self.leaf_solves = 0

    def _state(self, budget: int, width: int = 0, solve_node_limit: int = 0, reveal_last: bool = False) -> np.ndarray:
        return np.array([0, budget, 0, width, 0, solve_node_limit, 0, 0, int(reveal_last)], dtype=np.int64)

    def clairvoyant_bound(self, position: FairPosition, solve_node_limit: int = CLAIRVOYANT_NODE_LIMIT) -> float:
        """A sound upper bound on the fair optimum: the mean over the stock orders of "won with
        the order known" (a fair strategy is one of the strategies the known-order solve
        considers, order by order). A solve past ``solve_node_limit`` nodes counts as won."""
        kernel = _load()
        grid, pool = _position_arrays(position)
        stock = np.zeros(max(position.stock_left, 1), dtype=np.int64)
        placements = [None] if position.revealed < 0 else [c for c in range(NUM_CELLS) if grid[c] < 0]
        best = 0.0
        for cell in placements:
            start = grid.copy()
            if cell is not None:
                start[cell] = position.revealed
            state = self._state(1 << 62, 0, solve_node_limit)
            value = kernel["clair_bound"](
                start, pool, position.stock_left, stock, 0, kernel["ray"], self.keys, self.bounds, self.bits,
                self.win_keys, self.win_bits, self.workspace, state,
            )  # fmt: skip
            self.nodes += int(state[0])
            self.clairvoyant_stopped += int(state[6])
            best = max(best, value)
        return best

    def evaluate(
        self,
        position: FairPosition,
        time_limit: float | None = None,
        node_limit: int | None = None,
        clairvoyant_bound: bool = False,
        value_one_share: float = VALUE_ONE_SHARE,
        reveal_last_share: float = REVEAL_LAST_SHARE,
    ) -> FairResult:
        """The optimal win probability of ``position``, or sound bounds when a limit stopped it.

        ``time_limit``: CPU seconds of this process; ``node_limit``: nodes entered by this call.
        ``clairvoyant_bound``: when the search ends unfinished, tighten its upper bound with
        ``clairvoyant_bound`` (outside the limits: it costs seconds on a whole deal).
        ``value_one_share``: the share of the limits given first to the test "is the value 1?"
        (the module docstring); 0 skips it, 1 lets it run until it has an answer.
        ``reveal_last_share``: the share of the test's limits that it runs with REVEAL after
        every capture, before it goes on with REVEAL first (0: REVEAL first throughout).
        """
        if not 0.0 <= value_one_share <= 1.0:
            raise ValueError(f"value_one_share must be in [0, 1], got {value_one_share}")
        if not 0.0 <= reveal_last_share <= 1.0:
            raise ValueError(f"reveal_last_share must be in [0, 1], got {reveal_last_share}")
        start, cpu_start = time.perf_counter(), time.process_time()
        nodes0, leaves0 = self.nodes, self.leaf_solves
        grid, pool = _position_arrays(position)
        root = (_WAITING if position.revealed >= 0 else _DECIDE, grid, position.stock_left, pool, position.revealed)
        lower, upper, out_of_limits = 0.0, 1.0, False
        if value_one_share > 0:
            # REVEAL after every capture, then REVEAL first: each order proves some deals' value
            # 1 many times faster than the other (docs/benchmarks/solitaire_ladder.md), and the
            # second starts from the bounds the first left in the table
            orders = ((True, reveal_last_share), (False, 1.0)) if reveal_last_share < 1.0 else ((True, 1.0),)
            for reveal_last, until in orders:  # until: the share of the test's limits this order ends at
                if until <= 0 or upper - lower <= EPS or upper <= VALUE_ONE_ALPHA + EPS:
                    continue
                share = until * value_one_share
                test_deadline = None if time_limit is None else cpu_start + share * time_limit
                test_nodes = None if node_limit is None else max(1, int(share * node_limit)) - (self.nodes - nodes0)
                if test_nodes is not None and test_nodes <= 0:
                    continue
                lower, upper, _ = self._search_until(
                    root, VALUE_ONE_ALPHA, 1.0, 0, test_deadline, test_nodes, reveal_last=reveal_last
                )
            # proven 1, or proven below 1 (upper <= alpha), or out of its share: the widening
            # search takes over from the bounds the test left in the table
        deadline = None if time_limit is None else cpu_start + time_limit
        for width in WIDTHS:
            if upper - lower <= EPS:
                break
            spent = self.nodes - nodes0
            remaining = None if node_limit is None else node_limit - spent
            if remaining is not None and remaining <= 0:
                break
            # every call's bounds are sound, so they are combined (a table entry can be lost)
            call_lower, call_upper, out_of_limits = self._search_until(root, 0.0, 1.0, width or 0, deadline, remaining)
            lower, upper = max(lower, call_lower), min(upper, call_upper)
            if out_of_limits:
                break
        if upper - lower > EPS and clairvoyant_bound:
            upper = min(upper, self.clairvoyant_bound(position))
        return FairResult.from_bounds(
            lower,
            upper,
            self.nodes - nodes0,
            self.leaf_solves - leaves0,
            time.perf_counter() - start,
            {"cpu_milliseconds": round(1000 * (time.process_time() - cpu_start))},
        )

    def _search_until(
        self,
        root: tuple,
        alpha: float,
        beta: float,
        width: int,
        deadline: float | None,
        node_limit: int | None,
        reveal_last: bool = False,
    ) -> tuple[float, float, bool]:
        """Kernel calls on ``root`` with the window (alpha, beta) at one width until the root's
        bounds are exact or outside the window, the width is searched through, or the CPU
        ``deadline`` or ``node_limit`` has passed. Returns the root's bounds and whether a limit
        stopped it. Each call starts again from the root (the table keeps what earlier calls
        proved), so a call is given half the time left at the slowest rate of the calls so far
        (the rate varies: a call deep in the leaves enters nodes more slowly than one that finds
        its children in the table). ``reveal_last``: REVEAL is a decision's last child, after
        every capture, instead of its first."""
        kernel = _load()
        kind, grid, stock_left, pool, waiting = root
        nodes0 = self.nodes
        lower, upper = 0.0, 1.0
        slowest = 0.0  # nodes per CPU second; 0: not measured yet
        while True:
            budget = CHUNK_NODES
            if deadline is not None and slowest > 0:
                left = deadline - time.process_time()
                budget = max(CHUNK_NODES, min(MAX_CHUNK_NODES, int(slowest * left / 2)))
            elif deadline is None and node_limit is None:
                budget = MAX_CHUNK_NODES
            if node_limit is not None:
                budget = min(budget, nodes0 + node_limit - self.nodes)
            if budget <= 0:
                return lower, upper, True
            state = self._state(budget, width, reveal_last=reveal_last)
            call_start = time.process_time()
            lower, upper = kernel["search"](
                kind, grid, stock_left, pool, waiting, alpha, beta,
                kernel["ray"], self.keys, self.bounds, self.bits, self.win_keys, self.win_bits,
                self.workspace, state,
            )  # fmt: skip
            self.nodes += int(state[0])
            self.win_nodes += int(state[4])
            self.leaf_solves += int(state[7])
            call_seconds = time.process_time() - call_start
            if call_seconds > 0.01 and state[0] > 0:
                rate = state[0] / call_seconds
                slowest = rate if slowest == 0 else min(slowest, rate)
            if upper - lower <= EPS or lower >= beta - EPS or upper <= alpha + EPS or not state[2]:
                return lower, upper, False
            if deadline is not None and time.process_time() > deadline:
                return lower, upper, True


def _position_arrays(position: FairPosition) -> tuple[np.ndarray, int]:
    pool = 0
    for card in position.unseen:
        pool |= 1 << card
    return np.array(position.grid, dtype=np.int64), pool


def evaluate(position: FairPosition, time_limit: float | None = None, node_limit: int | None = None) -> FairResult:
    """``CompiledFairSearch().evaluate(...)``: a fresh table for one position."""
    return CompiledFairSearch().evaluate(position, time_limit=time_limit, node_limit=node_limit)
