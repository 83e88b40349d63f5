"""Exact solver for Empire Solitaire with the stock order known.

``solve(tableau, stock)`` returns a winning line of env actions, or None when the deal cannot be
won. Knowing the stock makes this an upper bound on any agent, which must play without it.

Search: depth-first over positions ``(grid, stock cards used)``, with a transposition table of
positions already shown lost, captures tried before stock plays, and one sound prune: cards
capture only cards that share their rank or suit, so when the cards still in play split into
groups with no rank or suit in common, every group keeps a card and the position is lost.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...core.cards import parse_card, parse_cards
from . import actions as A
from .actions import RAYS
from .state import NUM_CELLS, STOCK_SIZE


def solve(tableau: Sequence[int | str], stock: Sequence[int | str]) -> list[int] | None:
    """A winning line (env action indices) for this deal, or None.

    ``tableau``: the 15 cells row by row (cards, or -1 / None for an empty cell);
    ``stock``: the stock cards still to come, top first.
    """
    grid = tuple(-1 if cell is None or cell == -1 else parse_card(cell) for cell in tableau)
    if len(grid) != NUM_CELLS:
        raise ValueError(f"the tableau has {NUM_CELLS} cells, got {len(grid)}")
    stock_cards = tuple(parse_cards(stock))
    if len(stock_cards) > STOCK_SIZE:
        raise ValueError(f"the stock holds at most {STOCK_SIZE} cards, got {len(stock_cards)}")
    captured_before = NUM_CELLS + STOCK_SIZE - len(stock_cards) - sum(c >= 0 for c in grid) > 0
    return _Search(stock_cards).run(grid, captured_before)


class _Search:
    def __init__(self, stock: tuple[int, ...]) -> None:
        self.stock = stock
        self.lost: set[tuple[tuple[int, ...], int]] = set()
        self.nodes = 0

    def run(self, grid: tuple[int, ...], captured: bool) -> list[int] | None:
        line: list[int] = []
        return line if self._search(grid, 0, captured, line) else None

    def _search(self, grid: tuple[int, ...], used: int, captured: bool, line: list[int]) -> bool:
        self.nodes += 1
        remaining_stock = len(self.stock) - used
        in_grid = NUM_CELLS - grid.count(-1)
        if remaining_stock == 0 and in_grid == 1:
            return True
        key = (grid, used)
        if key in self.lost:
            return False
        if _disconnected(grid, self.stock[used:]):
            self.lost.add(key)
            return False
        for cell, direction, target in _capture_moves(grid):
            child = list(grid)
            child[target], child[cell] = grid[cell], -1
            line.append(cell * 8 + direction)
            if self._search(tuple(child), used, True, line):
                return True
            line.pop()
        if captured and remaining_stock and -1 in grid:
            card = self.stock[used]
            for cell in range(NUM_CELLS):
                if grid[cell] < 0:
                    child = list(grid)
                    child[cell] = card
                    line.extend((A.REVEAL, A.PLACE[cell]))
                    if self._search(tuple(child), used + 1, True, line):
                        return True
                    del line[-2:]
        self.lost.add(key)
        return False


def _capture_moves(grid: tuple[int, ...]):
    for cell in range(NUM_CELLS):
        card = grid[cell]
        if card < 0:
            continue
        rank, suit = card % 13, card // 13
        for direction, ray in enumerate(RAYS[cell]):
            for target in ray:
                other = grid[target]
                if other >= 0:
                    if other % 13 == rank or other // 13 == suit:
                        yield cell, direction, target
                    break


def _disconnected(grid: tuple[int, ...], stock: tuple[int, ...]) -> bool:
    """True when the cards in play fall into two or more groups that share no rank or suit.

    Captures happen only between cards that share a rank or a suit, so cards of different
    groups never meet: each group keeps at least one card, and the game cannot be won.
    """
    cards = [c for c in grid if c >= 0]
    cards.extend(stock)
    if len(cards) <= 1:
        return False
    # Union ranks and suits: a card links its rank node (0-12) to its suit node (13-16).
    parent = list(range(17))

    def find(node: int) -> int:
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    for card in cards:
        parent[find(card % 13)] = find(13 + card // 13)
    root = find(cards[0] % 13)
    return any(find(card % 13) != root for card in cards)
