"""Properties of the Empire Solitaire rules over many playouts (design, tests layer 4).

Every playout runs on the raw rules (``rules.new_game``, ``rules.legal_actions``,
``rules.legal_mask``, ``GAME.child``) and checks after every step:

- the 52 cards are all accounted for, each exactly once (grid + stock + revealed + out + unused);
- ``rules.legal_mask`` is an ``int8`` array whose ones are exactly ``rules.legal_actions``
  (ascending), and the legal captures equal those of a move generator written here from the
  ruling's geometry (not from ``RAYS``);
- on a sample of steps, every one of the 136 actions is tried on a clone: the legal ones are
  accepted, every other one raises ``IllegalActionError`` and leaves the clone unchanged;
- ``GAME.child`` never mutates its input; rewards are 0 (or ``shaping`` for a shaped
  capture) before the end, and the terminal reward is +1 (won) or -1 (lost) plus any shaping;
- an episode ends within 23 steps (17 captures, 3 reveals, 3 placements), never before a win
  or a loss is decided: a terminal state has no legal action, and WON means stock empty, no card
  waiting and one card in the grid.

The sample is 2,000 seeded random deals played by a uniformly random masked policy (shaping on
for half of them), plus 200 winning games: the deal and 23-step winning line of the rule
scenarios under random symmetries of the rules (renamed ranks and suits, mirrored grid), since
random play practically never wins. Seeds are fixed; the coverage assertions hold over hundreds
of episodes, not for a lucky seed.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import numpy as np
import pytest

from empire_envs.core.cards import NUM_CARDS
from empire_envs.core.errors import IllegalActionError
from empire_envs.games.solitaire import GAME, rules
from empire_envs.games.solitaire import actions as A
from empire_envs.games.solitaire.actions import Kind
from empire_envs.games.solitaire.config import MAX_CAPTURES, SolitaireConfig
from empire_envs.games.solitaire.state import COLS, LOST, NUM_CELLS, ONGOING, ROWS, WON

from .helpers import WIN_LINE, WIN_ROWS, WIN_STOCK, act, deal, transform

RANDOM_DEALS = 2000
EXHAUSTIVE_EVERY = 5  # every this many random episodes, all 136 actions are tried at each step
WINNING_GAMES = 200
MAX_STEPS = MAX_CAPTURES + 3 + 3  # 23
ALL_CARDS = list(range(NUM_CARDS))
CONFIGS = (SolitaireConfig(), SolitaireConfig(shaping=0.02))

# The eight directions as (d_row, d_col), by the ruling's words, for the reference generator.
GEOMETRY = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1),
            "up-left": (-1, -1), "up-right": (-1, 1), "down-left": (1, -1), "down-right": (1, 1)}


def reference_captures(grid: list[int]) -> list[int]:
    """Legal captures written from the ruling: orthogonally the first occupied cell (empty cells
    skipped), diagonally the adjacent cell only; no wrap-around; a shared rank or suit."""
    legal = []
    for cell, card in enumerate(grid):
        if card < 0:
            continue
        row, col = cell // COLS, cell % COLS
        for d, name in enumerate(A.DIRECTION_NAMES):
            d_row, d_col = GEOMETRY[name]
            r, k = row + d_row, col + d_col
            while 0 <= r < ROWS and 0 <= k < COLS and grid[r * COLS + k] < 0 and not (
                    d_row and d_col):
                r, k = r + d_row, k + d_col
            if not (0 <= r < ROWS and 0 <= k < COLS):
                continue
            other = grid[r * COLS + k]
            if other >= 0 and (other % 13 == card % 13 or other // 13 == card // 13):
                legal.append(cell * 8 + d)
    return legal


def all_cards(state) -> list[int]:
    cards = [c for c in state.grid if c >= 0] + state.stock + state.out + state.unused
    if state.revealed >= 0:
        cards.append(state.revealed)
    return sorted(cards)


@dataclass
class Stats:
    episodes: int = 0
    steps: int = 0
    exhaustive_steps: int = 0
    outcomes: Counter = field(default_factory=Counter)
    kinds: Counter = field(default_factory=Counter)
    lengths: Counter = field(default_factory=Counter)
    waiting_steps: int = 0
    shaped_rewards: int = 0
    illegal_tried: int = 0


def check_state(state) -> list[int]:
    """The per-step checks that do not play; returns the legal actions."""
    assert all_cards(state) == ALL_CARDS
    assert len(state.unused) == NUM_CARDS - rules.DEAL_SIZE
    legal = rules.legal_actions(state)
    mask = rules.legal_mask(state)
    assert mask.dtype == np.int8 and mask.shape == (A.NUM_ACTIONS,)
    assert np.flatnonzero(mask).tolist() == legal == sorted(set(legal))
    if state.outcome != ONGOING:
        assert legal == []
        return legal
    assert legal, "an ongoing state always has a legal action"
    if state.revealed >= 0:
        assert legal == [A.PLACE[cell] for cell in range(NUM_CELLS) if state.grid[cell] < 0]
    else:
        captures = [a for a in legal if a < A.REVEAL]
        assert captures == reference_captures(state.grid)
        can_reveal = bool(state.out) and bool(state.stock) and -1 in state.grid
        assert (A.REVEAL in legal) == can_reveal
        assert legal == captures + ([A.REVEAL] if can_reveal else [])
    return legal


def check_every_action(state, legal: list[int], stats: Stats) -> None:
    """All 136 actions on clones: the accepted ones are exactly ``legal``."""
    accepted = []
    for action in range(A.NUM_ACTIONS):
        probe = state.clone()
        try:
            rules.apply_action(probe, action)
        except IllegalActionError:
            assert probe == state, f"{A.action_name(action)} raised but changed the state"
            stats.illegal_tried += 1
        else:
            accepted.append(action)
    assert accepted == legal
    stats.exhaustive_steps += 1


def check_terminal(state, reward: float, capture_paid: float) -> None:
    terminal = reward - capture_paid
    assert terminal in (1.0, -1.0)
    assert rules.returns(state) == terminal
    if state.outcome == WON:
        assert terminal == 1.0
        assert state.stock == [] and state.revealed == -1 and state.cards_in_grid() == 1
    else:
        assert state.outcome == LOST and terminal == -1.0
        assert not (state.stock == [] and state.revealed == -1 and state.cards_in_grid() == 1)
    assert rules.legal_actions(state) == []
    # Lost (or won) only when nothing is left to do: reopened, the position offers no action,
    # by the rules' generator and by the ruling's own conditions.
    reopened = state.clone()
    reopened.outcome = ONGOING
    assert rules.legal_actions(reopened) == []
    assert reference_captures(state.grid) == [] and state.revealed == -1
    assert not (state.out and state.stock and -1 in state.grid)


def run_episode(state, choose, stats: Stats, exhaustive: bool) -> list[tuple[int, float]]:
    """Play ``state`` to the end with ``choose(legal, step) -> action``; the trajectory."""
    config = state.config
    trajectory = []
    kinds = Counter()
    while True:
        legal = check_state(state)
        if state.outcome != ONGOING:
            break
        if exhaustive:
            check_every_action(state, legal, stats)
        if state.revealed >= 0:
            stats.waiting_steps += 1
        action = choose(legal, len(trajectory))
        assert action in legal
        before = state.clone()
        child, (reward,) = GAME.child(state, action, None)
        assert state == before, "GAME.child mutated its input"
        assert child is not state and child.grid is not state.grid and child.out is not state.out
        kind = A.decode(action).kind
        kinds[kind] += 1
        paid = config.shaping if kind is Kind.CAPTURE else 0.0
        if paid:
            stats.shaped_rewards += 1
        if child.outcome == ONGOING:
            assert reward == paid
        else:
            check_terminal(child, reward, paid)
        trajectory.append((action, reward))
        assert len(trajectory) <= MAX_STEPS
        state = child
    assert trajectory, "a dealt game that is already over is a separate scenario"
    assert kinds[Kind.CAPTURE] == len(state.out) <= MAX_CAPTURES
    assert kinds[Kind.REVEAL] == 3 - len(state.stock) <= 3
    assert kinds[Kind.PLACE] == kinds[Kind.REVEAL] - (state.revealed >= 0)
    stats.episodes += 1
    stats.steps += len(trajectory)
    stats.outcomes[state.outcome] += 1
    stats.lengths[len(trajectory)] += 1
    stats.kinds.update(kinds)
    return trajectory


def random_episode(seed: int, stats: Stats, exhaustive: bool) -> list[tuple[int, float]]:
    state = rules.new_game(CONFIGS[seed % 2], seed)
    rng = np.random.default_rng(10_000 + seed)
    return run_episode(state, lambda legal, _: legal[rng.integers(len(legal))], stats, exhaustive)


@pytest.fixture(scope="module")
def random_stats() -> Stats:
    stats = Stats()
    for seed in range(RANDOM_DEALS):
        random_episode(seed, stats, exhaustive=seed % EXHAUSTIVE_EVERY == 0)
    return stats


def test_random_playouts_keep_every_invariant(random_stats):
    stats = random_stats
    assert stats.episodes == RANDOM_DEALS
    assert set(stats.outcomes) <= {WON, LOST}
    assert max(stats.lengths) <= MAX_STEPS
    # The cases these checks exist for did occur.
    assert stats.outcomes[LOST] > RANDOM_DEALS // 2
    assert stats.kinds[Kind.REVEAL] > RANDOM_DEALS and stats.kinds[Kind.PLACE] > RANDOM_DEALS
    assert stats.waiting_steps > RANDOM_DEALS
    assert stats.shaped_rewards > RANDOM_DEALS
    assert max(stats.lengths) >= 20 and min(stats.lengths) <= 15


def test_every_action_outside_the_mask_was_tried(random_stats):
    stats = random_stats
    assert stats.exhaustive_steps >= RANDOM_DEALS // EXHAUSTIVE_EVERY * 10
    assert stats.illegal_tried > stats.exhaustive_steps * 100


def _winning_variant(index: int) -> tuple[list[int], list[int]]:
    rng = np.random.default_rng(20_000 + index)
    return transform(
        deal(WIN_ROWS, WIN_STOCK), [act(name) for name in WIN_LINE],
        ranks=[int(r) for r in rng.permutation(13)], suits=[int(s) for s in rng.permutation(4)],
        flip_rows=bool(index & 1), flip_cols=bool(index & 2),
    )


def test_winning_games_under_the_symmetries_of_the_rules():
    """The scenarios' winning line, renamed and mirrored, wins every variant in 23 steps, +1."""
    stats = Stats()
    for index in range(WINNING_GAMES):
        cards, line = _winning_variant(index)
        state = rules.new_game(CONFIGS[index % 2], index, deck=cards)
        trajectory = run_episode(state, lambda legal, step, line=line: line[step], stats,
                                 exhaustive=index % EXHAUSTIVE_EVERY == 0)
        assert len(trajectory) == MAX_STEPS
        assert trajectory[-1][1] == pytest.approx(1.0 + CONFIGS[index % 2].shaping)
    assert stats.outcomes == Counter({WON: WINNING_GAMES})
    assert stats.lengths == Counter({MAX_STEPS: WINNING_GAMES})


def test_same_seed_same_trajectory():
    for seed in range(0, 200, 7):
        first, second = Stats(), Stats()
        assert random_episode(seed, first, False) == random_episode(seed, second, False)
        assert rules.new_game(CONFIGS[0], seed) == rules.new_game(CONFIGS[0], seed)
