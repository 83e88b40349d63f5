"""State builders and checks shared by the Empire Solitaire tests.

A grid is drawn as three strings, one per row, of five tokens each: a card as ``parse_card``
reads it (``"QH"``, ``"10S"``) or ``"."`` for an empty cell. Cell ``row * 5 + col``::

    build_state(["QH .  .  .  4H",
                 ".  .  .  .  . ",
                 ".  .  .  .  . "], stock=["9C"], out=["2H"])

Stocks are given **top card first** (the engine keeps the top card at the end of its list), as
the ``deal`` of ``rules.new_game`` does. Actions may be named as ``action_name`` prints them:
``act("CAPTURE 7 up-left")``, ``act("REVEAL")``, ``act("PLACE 4")``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import pytest

from empire_envs.core.cards import NUM_CARDS, card_str, parse_card, parse_cards
from empire_envs.core.errors import IllegalActionError
from empire_envs.games.solitaire import actions as A
from empire_envs.games.solitaire import rules
from empire_envs.games.solitaire.config import SolitaireConfig
from empire_envs.games.solitaire.state import COLS, NUM_CELLS, ONGOING, ROWS, SolitaireState

EMPTY = "."

_ACTION_BY_NAME = {A.action_name(index): index for index in range(A.NUM_ACTIONS)}
DIRECTION = {name: d for d, name in enumerate(A.DIRECTION_NAMES)}


def c(text: str) -> int:
    """One card index: ``c("QS")``."""
    return parse_card(text)


def cs(*texts: str) -> list[int]:
    """Card indices: ``cs("QS", "7H")``."""
    return parse_cards(list(texts))


def act(name: str) -> int:
    """The action index of a name as ``actions.action_name`` prints it."""
    return _ACTION_BY_NAME[" ".join(name.split())]


def cap(cell: int, direction: str) -> int:
    """``CAPTURE(cell, direction)`` by direction name: ``cap(7, "up-left")``."""
    return A.capture(cell, DIRECTION[direction])


def parse_grid(rows: Sequence[str]) -> list[int]:
    """The 15 cells (card index or -1) of a three-row picture."""
    if isinstance(rows, str) or len(rows) != ROWS:
        raise ValueError(f"a grid picture is {ROWS} row strings, got {rows!r}")
    grid = []
    for row in rows:
        tokens = row.split()
        if len(tokens) != COLS:
            raise ValueError(f"a row has {COLS} cells, got {row!r}")
        grid += [-1 if token == EMPTY else parse_card(token) for token in tokens]
    return grid


def grid_rows(state_or_grid: SolitaireState | Sequence[int]) -> list[str]:
    """The grid as three normalised row strings (the inverse of ``parse_grid``)."""
    grid = state_or_grid.grid if isinstance(state_or_grid, SolitaireState) else state_or_grid
    return [
        " ".join(card_str(card) if card >= 0 else EMPTY for card in grid[r * COLS:(r + 1) * COLS])
        for r in range(ROWS)
    ]


def picture(*rows: str) -> list[str]:
    """Rows written for readability, normalised like ``grid_rows`` (for comparisons)."""
    return grid_rows(parse_grid(rows))


def deal(rows: Sequence[str], stock: Iterable[str]) -> list[int]:
    """A ``rules.new_game`` deal: the 15 cells row by row, then the stock top first."""
    grid = parse_grid(rows)
    if -1 in grid:
        raise ValueError("a deal fills every cell")
    return grid + parse_cards(list(stock))


def build_state(
    rows: Sequence[str],
    *,
    stock: Iterable[str] = (),
    out: Iterable[str] | int = (),
    revealed: str | None = None,
    rest: str | None = "unused",
    outcome: int = ONGOING,
    config: SolitaireConfig | None = None,
    **config_kwargs,
) -> SolitaireState:
    """A state built field by field (no rule is applied: the caller draws a sensible position).

    ``stock``: top card first. ``out``: the captured cards in capture order, or a number ``n``
    for ``n`` filler cards (the lowest card indices named nowhere else). ``rest``: ``"unused"``
    puts every card named nowhere into ``state.unused`` (card index order) so that all 52 are
    accounted for; ``None`` leaves ``unused`` empty. Extra keyword arguments build the config.
    """
    if config is None:
        config = SolitaireConfig(**config_kwargs)
    elif config_kwargs:
        raise TypeError("give either config or config keyword arguments")
    state = SolitaireState(config)
    state.grid = parse_grid(rows)
    stock_top_first = parse_cards(list(stock))
    state.stock = stock_top_first[::-1]
    state.revealed = parse_card(revealed) if revealed is not None else -1
    named = [card for card in state.grid if card >= 0] + stock_top_first
    if state.revealed >= 0:
        named.append(state.revealed)
    if isinstance(out, int):
        taken = set(named)
        state.out = [card for card in range(NUM_CARDS) if card not in taken][:out]
    else:
        state.out = parse_cards(list(out))
    named += state.out
    if len(named) != len(set(named)):
        raise ValueError("a card is named twice")
    if rest == "unused":
        taken = set(named)
        state.unused = [card for card in range(NUM_CARDS) if card not in taken]
    elif rest is not None:
        raise ValueError(f"rest must be 'unused' or None, got {rest!r}")
    state.outcome = outcome
    return state


# A winnable deal and one winning line (17 captures, 3 reveals, 3 placements: 23 steps).
WIN_ROWS = ["KH  QC  6D  JC  JD",
            "3H  5C  JH  9H  2H",
            "10H QD  9D  3C  8D"]
WIN_STOCK = ["4C", "2C", "JS"]  # top first
WIN_LINE = [
    "CAPTURE 0 down", "CAPTURE 1 down", "CAPTURE 3 right", "CAPTURE 5 down", "CAPTURE 6 down",
    "REVEAL", "PLACE 3",
    "CAPTURE 4 left", "CAPTURE 7 up-right", "CAPTURE 12 up", "CAPTURE 11 right",  # 12 is empty
    "REVEAL", "PLACE 7",
    "CAPTURE 7 down-right", "CAPTURE 9 down-left", "CAPTURE 10 right", "CAPTURE 8 down",
    "REVEAL", "PLACE 8",
    "CAPTURE 3 down", "CAPTURE 13 up", "CAPTURE 2 down-right", "CAPTURE 8 down-right",
]


def transform(
    deal_cards: Sequence[int],
    line: Sequence[int],
    *,
    ranks: Sequence[int] = tuple(range(13)),
    suits: Sequence[int] = tuple(range(4)),
    flip_rows: bool = False,
    flip_cols: bool = False,
) -> tuple[list[int], list[int]]:
    """A deal and a line of actions under a symmetry of the rules.

    Renaming ranks (``ranks[old] = new``) and suits keeps "shares a rank or a suit"; mirroring
    the grid top-bottom or left-right maps rays onto rays. So a winning line of ``deal_cards``
    maps to a winning line of the transformed deal.
    """
    def card(old: int) -> int:
        return suits[old // 13] * 13 + ranks[old % 13]

    def cell(old: int) -> int:
        row, col = divmod(old, COLS)
        row = ROWS - 1 - row if flip_rows else row
        return row * COLS + (COLS - 1 - col if flip_cols else col)

    grid = [-1] * NUM_CELLS
    for old, value in enumerate(deal_cards[:NUM_CELLS]):
        grid[cell(old)] = card(value)
    new_deal = grid + [card(value) for value in deal_cards[NUM_CELLS:]]
    new_line = []
    for index in line:
        kind, a, b = A.decode(index)
        if kind is A.Kind.CAPTURE:
            d_row, d_col = A.DIRECTIONS[b]
            d_row, d_col = -d_row if flip_rows else d_row, -d_col if flip_cols else d_col
            new_line.append(A.capture(cell(a), A.DIRECTIONS.index((d_row, d_col))))
        elif kind is A.Kind.PLACE:
            new_line.append(A.PLACE[cell(a)])
        else:
            new_line.append(index)
    return new_deal, new_line


def stock_top_first(state: SolitaireState) -> list[int]:
    return state.stock[::-1]


def all_cards(state: SolitaireState) -> list[int]:
    """Every card of every zone, sorted (the 52 distinct cards in a complete state)."""
    cards = [card for card in state.grid if card >= 0] + state.stock + state.out + state.unused
    if state.revealed >= 0:
        cards.append(state.revealed)
    return sorted(cards)


def assert_conserved(state: SolitaireState) -> None:
    assert all_cards(state) == list(range(NUM_CARDS))
    assert len(state.unused) == NUM_CARDS - rules.DEAL_SIZE


def assert_illegal(state: SolitaireState, action: int) -> None:
    """``action`` is not offered, raises ``IllegalActionError`` and leaves ``state`` unchanged."""
    assert action not in rules.legal_actions(state)
    assert rules.legal_mask(state)[action] == 0
    before = state.clone()
    with pytest.raises(IllegalActionError):
        rules.apply_action(state, action)
    assert state == before


def play(state: SolitaireState, *actions: int | str) -> list[float]:
    """Apply legal actions in order (indices or names; each must be legal); the rewards."""
    rewards = []
    for action in actions:
        index = act(action) if isinstance(action, str) else action
        legal = rules.legal_actions(state)
        assert index in legal, (
            f"{A.action_name(index)} not legal; legal: {[A.action_name(a) for a in legal]}\n{state}"
        )
        rewards.append(rules.apply_action(state, index)[0])
    return rewards


def legal_names(state: SolitaireState) -> list[str]:
    return [A.action_name(action) for action in rules.legal_actions(state)]

