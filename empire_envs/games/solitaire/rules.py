"""Empire Solitaire rules: pure game logic over ``SolitaireState`` (prose: docs/rules/solitaire.md).

- ``new_game(config, rng, deck=None)``: deal 15 cards face up and 3 to the stock.
- ``legal_actions(state)`` (ascending), ``legal_mask(state)`` (int8).
- ``apply_action(state, action, rng=None)``: play in place; the reward as ``[reward]`` (one seat),
  as in every game (``GAME.child`` is the pure form).
- ``determinize(state, seat, rng)``: resample the hidden stock from the cards the player has not
  seen.

The game has no randomness after the deal; ``rng`` is accepted by ``apply_action`` for the common
protocol and ignored.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import numpy as np

from ...core.cards import NUM_CARDS, NUM_RANKS, NUM_SUITS
from ...core.errors import IllegalActionError
from ...core.options import card_list_option
from ...core.rng import as_generator, shuffled
from . import actions as A
from .actions import CAPTURE, RAYS, Kind
from .config import MAX_CAPTURES, SolitaireConfig
from .state import LOST, NUM_CELLS, ONGOING, STOCK_SIZE, WON, SolitaireState
from .tables import DEAL_SIZE, LOSS_REWARD, WIN_REWARD, matches


def new_game(
    config: SolitaireConfig | None = None,
    rng: np.random.Generator | int | None = None,
    deck: Sequence[str | int] | None = None,
) -> SolitaireState:
    """A new game; ``deck`` is the top of the deck in dealing order: the 15 tableau cards row by
    row, then the 3 stock cards top first."""
    config = config if config is not None else SolitaireConfig()
    if not isinstance(config, SolitaireConfig):
        raise TypeError(f"config must be a SolitaireConfig, got {type(config).__name__}")
    rng = as_generator(rng)
    if deck is None:
        order = [int(card) for card in rng.permutation(NUM_CARDS)]
    else:
        cards = card_list_option("deck", deck)  # refuses a card listed twice
        if len(cards) != DEAL_SIZE:
            raise ValueError(
                f"reset option 'deck' is {NUM_CELLS} tableau cards then {STOCK_SIZE} stock cards "
                f"({DEAL_SIZE} in all), got {len(cards)}"
            )
        dealt = set(cards)
        order = cards + shuffled([c for c in range(NUM_CARDS) if c not in dealt], rng)
    state = SolitaireState(config)
    state.grid = order[:NUM_CELLS]
    state.stock = order[NUM_CELLS:DEAL_SIZE][::-1]  # top card last
    state.unused = order[DEAL_SIZE:]
    _settle(state)
    return state


def connected(cards: Sequence[int]) -> bool:
    """Whether the cards form one group under "shares a rank or a suit" (fewer than 2: True).

    Captures happen only between cards that share a rank or suit, so cards of two such groups
    never meet: each group keeps at least one card and the game cannot be won.
    """
    if len(cards) <= 1:
        return True
    # one node per rank (0-12), then one per suit (13-16); a card joins its rank to its suit
    parent = list(range(NUM_RANKS + NUM_SUITS))

    def find(node: int) -> int:
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    for card in cards:
        suit, rank = divmod(card, NUM_RANKS)
        parent[find(rank)] = find(NUM_RANKS + suit)
    root = find(cards[0] % NUM_RANKS)
    return all(find(card % NUM_RANKS) == root for card in cards)


def capture_target(grid: Sequence[int], cell: int, direction: int) -> int:
    """The cell a card at ``cell`` would capture in ``direction`` (match not checked), or -1."""
    for target in RAYS[cell][direction]:
        if grid[target] >= 0:
            return target
    return -1


def legal_actions(state: SolitaireState) -> list[int]:
    if state.outcome != ONGOING:
        return []
    grid = state.grid
    if state.revealed >= 0:
        return [A.PLACE[cell] for cell in range(NUM_CELLS) if grid[cell] < 0]
    legal = _captures(grid)
    if state.out and state.stock and -1 in grid:
        legal.append(A.REVEAL)
    return legal


def capture_moves(grid: Sequence[int]) -> Iterator[tuple[int, int, int]]:
    """``(cell, direction, target)`` of every legal capture, in action-index order."""
    ranks = NUM_RANKS  # a local: this loop runs for every legal-action query
    for cell in range(NUM_CELLS):
        card = grid[cell]
        if card < 0:
            continue
        rank, suit = card % ranks, card // ranks
        for direction, ray in enumerate(RAYS[cell]):
            for target in ray:
                other = grid[target]
                if other >= 0:
                    if other % ranks == rank or other // ranks == suit:
                        yield cell, direction, target
                    break


def _captures(grid: Sequence[int]) -> list[int]:
    return [CAPTURE[cell][direction] for cell, direction, _ in capture_moves(grid)]


def legal_mask(state: SolitaireState) -> np.ndarray:
    mask = np.zeros(A.NUM_ACTIONS, dtype=np.int8)
    mask[legal_actions(state)] = 1
    return mask


def is_terminal(state: SolitaireState) -> bool:
    return state.outcome != ONGOING


def returns(state: SolitaireState) -> float:
    return WIN_REWARD if state.outcome == WON else LOSS_REWARD if state.outcome == LOST else 0.0


#: an episode lasts at most 17 captures, 3 reveals and 3 placements
MAX_GAME_LENGTH = MAX_CAPTURES + 2 * STOCK_SIZE


def apply_action(state: SolitaireState, action: int, rng=None) -> list[float]:
    """Play ``action`` in place; ``[reward]``. ``IllegalActionError`` (state untouched) when it is
    not legal."""
    return [_play(state, action)]


def _play(state: SolitaireState, action: int) -> float:
    if state.outcome != ONGOING:
        raise IllegalActionError("the game is over; start a new one")
    if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
        raise TypeError(f"an action is an int index, got {action!r}")
    kind, a, b = A.decode(int(action))
    grid = state.grid
    name = A.action_name(int(action))
    reward = 0.0
    if kind is Kind.CAPTURE:
        if state.revealed >= 0:
            raise IllegalActionError(f"{name}: the revealed card must be placed first")
        if grid[a] < 0:
            raise IllegalActionError(f"{name}: cell {a} is empty")
        target = capture_target(grid, a, b)
        if target < 0:
            raise IllegalActionError(f"{name}: no card to capture in that direction")
        if not matches(grid[a], grid[target]):
            raise IllegalActionError(f"{name}: the cards share neither rank nor suit")
        state.out.append(grid[target])
        grid[target], grid[a] = grid[a], -1
        if state.config.shaping:
            reward += state.config.shaping
    elif kind is Kind.REVEAL:
        if state.revealed >= 0:
            raise IllegalActionError("REVEAL: a revealed card waits to be placed")
        if not state.out:
            raise IllegalActionError("REVEAL: the stock opens only after the first capture")
        if not state.stock:
            raise IllegalActionError("REVEAL: the stock is empty")
        if -1 not in grid:
            raise IllegalActionError("REVEAL: no empty cell to place the card on")
        state.revealed = state.stock.pop()
    else:
        if state.revealed < 0:
            raise IllegalActionError(f"{name}: no revealed card to place")
        if grid[a] >= 0:
            raise IllegalActionError(f"{name}: cell {a} is occupied")
        grid[a], state.revealed = state.revealed, -1
    return reward + _settle(state)


def _settle(state: SolitaireState) -> float:
    """End the game when it is won or no legal action remains; the terminal reward."""
    if not state.stock and state.revealed < 0 and state.cards_in_grid() == 1:
        state.outcome = WON
        return WIN_REWARD
    if not legal_actions(state):
        state.outcome = LOST
        return LOSS_REWARD
    return 0.0


def determinize(state: SolitaireState, seat: int = 0, rng: np.random.Generator | int | None = None) -> SolitaireState:
    """A copy whose stock is redrawn from the cards the player has not seen (order included).
    ``seat`` is always 0 (one player)."""
    if seat != 0:
        raise ValueError(f"a one-player game has seat 0 only, got seat {seat!r}")
    rng = as_generator(rng)
    copy = state.clone()
    hidden = sorted(copy.stock + copy.unused)
    pool = shuffled(hidden, rng)
    copy.stock = pool[: len(copy.stock)]
    copy.unused = pool[len(copy.stock) :]
    return copy
