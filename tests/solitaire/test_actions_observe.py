"""Empire Solitaire action table and observation (design, tests layers 2 and 3).

- The action table: round trips, names, size == the env's action space, the module docstring's
  reST table == the index ranges in code, and the capture rays.
- The observation: index spot checks on built positions (indices written out as the docstring
  gives them, so a silent layout change fails here), the docstring table == ``LAYOUT.rows()``,
  and no leak of hidden information (the stock's cards and order, the 34 unused cards).
- ``rules.determinize`` keeps everything visible and redraws only what is hidden.
"""

from __future__ import annotations

import re

import gymnasium
import numpy as np
import pytest

import empire_envs  # noqa: F401  (registers the environments)
from empire_envs.core.cards import NUM_CARDS
from empire_envs.games.solitaire import actions as A
from empire_envs.games.solitaire import observe, rules
from empire_envs.games.solitaire.actions import Action, Kind
from empire_envs.games.solitaire.config import SolitaireConfig
from empire_envs.games.solitaire.state import COLS, NUM_CELLS, ROWS

from ..doc_tables import action_ranges_in_code, documented_action_ranges, index_span, rest_tables
from .helpers import act, build_state, c, cap, cs, deal, play

ROWS_A = ["KH  QC  6D  JC  JD",
          "3H  5C  JH  9H  2H",
          "10H QD  9D  3C  8D"]
STOCK_A = ["4C", "2C", "JS"]


# ============================================================================ action table


def test_encode_decode_round_trip_for_every_index():
    seen = set()
    for index in range(A.NUM_ACTIONS):
        action = A.decode(index)
        assert isinstance(action, Action)
        assert A.encode(action) == index
        assert A.encode(tuple(action)) == index
        seen.add(action)
    assert len(seen) == A.NUM_ACTIONS


def test_table_layout_in_code():
    assert A.NUM_ACTIONS == 136 == NUM_CELLS * 8 + 1 + NUM_CELLS
    for cell in range(NUM_CELLS):
        for direction in range(8):
            index = A.capture(cell, direction)
            assert index == cell * 8 + direction
            assert A.decode(index) == (Kind.CAPTURE, cell, direction)
        assert A.PLACE[cell] == 121 + cell
        assert A.decode(A.PLACE[cell]) == (Kind.PLACE, cell, -1)
    assert A.REVEAL == 120 and A.decode(120) == (Kind.REVEAL, -1, -1)


@pytest.mark.parametrize(
    "index, name",
    [(0, "CAPTURE 0 up"), (7 * 8 + 4, "CAPTURE 7 up-left"), (119, "CAPTURE 14 down-right"),
     (3, "CAPTURE 0 right"), (14 * 8 + 2, "CAPTURE 14 left"),
     (120, "REVEAL"), (121, "PLACE 0"), (125, "PLACE 4"), (135, "PLACE 14")],
)
def test_action_names(index, name):
    assert A.action_name(index) == name
    assert act(name) == index


def test_action_names_are_unique():
    names = [A.action_name(index) for index in range(A.NUM_ACTIONS)]
    assert len(set(names)) == A.NUM_ACTIONS


def test_table_size_matches_the_env_action_space():
    env = gymnasium.make("empire_envs/EmpireSolitaire-v0")
    assert env.action_space.n == A.NUM_ACTIONS
    assert env.observation_space.shape == (observe.OBSERVATION_SIZE,)
    _, info = env.reset(seed=0)
    assert info["action_mask"].shape == (A.NUM_ACTIONS,)
    assert len(rules.legal_mask(rules.new_game(SolitaireConfig(), 0))) == A.NUM_ACTIONS


@pytest.mark.parametrize("bad", [-1, A.NUM_ACTIONS, 1000, True])
def test_decode_refuses_out_of_range(bad):
    with pytest.raises(ValueError):
        A.decode(bad)
    with pytest.raises(ValueError):
        A.action_name(bad)


@pytest.mark.parametrize(
    "bad",
    [(Kind.CAPTURE, 15, 0), (Kind.CAPTURE, 0, 8), (Kind.CAPTURE, 0), (Kind.PLACE, 15),
     (Kind.REVEAL, 0), (7, 0, 0), "REVEAL"],
)
def test_encode_refuses_actions_outside_the_table(bad):
    with pytest.raises(ValueError):
        A.encode(bad)


def test_action_docstring_table_lists_exactly_the_code_index_ranges():
    documented = documented_action_ranges(A.__doc__)
    assert documented == action_ranges_in_code(A.ACTIONS) == {
        "CAPTURE": (0, 119, 2), "REVEAL": (120, 120, 0), "PLACE": (121, 135, 1)}


def test_action_docstring_gives_the_direction_numbers_and_index_formula():
    (rows,) = rest_tables(A.__doc__)
    meaning = dict((row[1].split("(")[0], row[2]) for row in rows)["CAPTURE"]
    assert "index = cell * 8 + dir" in meaning
    listed = re.search(r"dirs: (.*?)\)", meaning).group(1)
    pairs = [item.strip().split(" ", 1) for item in listed.split(",")]
    assert [(int(number), name) for number, name in pairs] == list(enumerate(A.DIRECTION_NAMES))
    # ... and the names are the geometry of DIRECTIONS: (d_row, d_col).
    expected = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1),
                "up-left": (-1, -1), "up-right": (-1, 1), "down-left": (1, -1),
                "down-right": (1, 1)}
    assert [expected[name] for name in A.DIRECTION_NAMES] == list(A.DIRECTIONS)
    # the documented formula is the table's own index of each capture
    assert all(
        A.capture(cell, d) == A.CAPTURE[cell][d] == cell * 8 + d == A.encode((A.Kind.CAPTURE, cell, d))
        for cell in range(15)
        for d in range(8)
    )


@pytest.mark.parametrize(
    "cell, direction, ray",
    [
        (0, "right", (1, 2, 3, 4)),
        (0, "down", (5, 10)),
        (0, "up", ()),
        (0, "left", ()),
        (0, "up-left", ()),
        (0, "down-right", (6,)),
        (4, "right", ()),  # no wrap to row 1
        (4, "down-right", ()),
        (4, "down-left", (8,)),
        (4, "left", (3, 2, 1, 0)),
        (5, "left", ()),  # no wrap to row 0
        (5, "up-left", ()),
        (5, "up-right", (1,)),
        (7, "up", (2,)),
        (7, "down", (12,)),
        (7, "left", (6, 5)),
        (7, "right", (8, 9)),
        (7, "up-left", (1,)),
        (7, "up-right", (3,)),
        (7, "down-left", (11,)),
        (7, "down-right", (13,)),
        (12, "up", (7, 2)),
        (14, "down", ()),
        (14, "right", ()),
        (14, "up", (9, 4)),
        (14, "up-left", (8,)),
        (10, "up-right", (6,)),
        (10, "down-left", ()),
    ],
)
def test_rays_spot_checks(cell, direction, ray):
    assert A.RAYS[cell][A.DIRECTION_NAMES.index(direction)] == ray


def test_rays_follow_the_grid_geometry():
    """Orthogonal rays run to the edge of the row or column; diagonal rays hold one cell."""
    total = 0
    for cell in range(NUM_CELLS):
        row, col = divmod(cell, COLS)
        for d, (d_row, d_col) in enumerate(A.DIRECTIONS):
            ray = A.RAYS[cell][d]
            total += len(ray)
            cells = [divmod(t, COLS) for t in ray]
            if d_row and d_col:
                assert len(ray) <= 1
            for step, (r, k) in enumerate(cells, 1):
                assert (r, k) == (row + step * d_row, col + step * d_col)
            # The ray stops only at the edge of the grid.
            r, k = row + (len(ray) + 1) * d_row, col + (len(ray) + 1) * d_col
            if not (d_row and d_col):
                assert not (0 <= r < ROWS and 0 <= k < COLS)
    # Orthogonal: each row pair (5 choose 2 ordered) and column pair, diagonals: the 2x2 blocks.
    orthogonal = ROWS * COLS * (COLS - 1) + COLS * ROWS * (ROWS - 1)
    diagonal = 4 * (ROWS - 1) * (COLS - 1)
    assert total == orthogonal + diagonal == 60 + 30 + 32


# ============================================================================= observation

# Offsets as observe.py's docstring writes them.
CELLS, REVEALED, STOCK_SIZE, CAPTURES, OUT = 0, 255, 272, 273, 274


def test_sizes():
    assert observe.OBSERVATION_SIZE == 326 == 15 * 17 + 17 + 1 + 1 + 52
    obs = observe.observe(rules.new_game(SolitaireConfig(), 0))
    assert obs.dtype == np.float32 and obs.shape == (326,)
    assert obs.min() >= 0.0 and obs.max() <= 1.0


def test_observation_docstring_table_matches_the_layout():
    (rows,) = rest_tables(observe.__doc__)
    documented = [(row[1], *index_span(row[0])) for row in rows]
    assert documented == observe.LAYOUT.rows()
    assert [first for _, first, _ in documented] == [CELLS, REVEALED, STOCK_SIZE, CAPTURES, OUT]


def _card_block(obs, start):
    """(rank index, suit index) read from a 17-entry one-hot block, or None when all zero."""
    block = obs[start:start + 17]
    if not block.any():
        return None
    ranks, suits = np.flatnonzero(block[:13]), np.flatnonzero(block[13:])
    assert len(ranks) == 1 and len(suits) == 1 and set(block.tolist()) <= {0.0, 1.0}
    return int(ranks[0]), int(suits[0])


def test_cell_blocks():
    state = build_state(["QH . . . .", ". . 10S . .", ". . . . AC"], stock=["KD"], out=cs("2D"))
    obs = observe.observe(state)
    assert obs[CELLS + 0 * 17 + 11] == 1 and obs[CELLS + 0 * 17 + 13 + 2] == 1  # QH at cell 0
    assert obs[CELLS + 7 * 17 + 9] == 1 and obs[CELLS + 7 * 17 + 13 + 3] == 1  # 10S at cell 7
    assert obs[CELLS + 14 * 17 + 0] == 1 and obs[CELLS + 14 * 17 + 13 + 0] == 1  # AC at cell 14
    blocks = [_card_block(obs, CELLS + cell * 17) for cell in range(NUM_CELLS)]
    assert blocks == [(11, 2)] + [None] * 6 + [(9, 3)] + [None] * 6 + [(0, 0)]
    assert obs[CELLS:REVEALED].sum() == 6


def test_revealed_block():
    waiting = build_state(["QH . . . .", ". . . . .", ". . . . ."], revealed="4C", out=cs("2D"))
    obs = observe.observe(waiting)
    assert _card_block(obs, REVEALED) == (3, 0)
    assert obs[REVEALED + 3] == 1 and obs[REVEALED + 13] == 1
    none = build_state(["QH . . . .", ". . . . .", ". . . . ."], stock=["4C"], out=cs("2D"))
    assert _card_block(observe.observe(none), REVEALED) is None


@pytest.mark.parametrize("stock, value", [([], 0.0), (["4C"], 1 / 3), (["4C", "5C"], 2 / 3),
                                          (["4C", "5C", "6C"], 1.0)])
def test_stock_size(stock, value):
    state = build_state(["QH . . . .", ". . . . .", ". . . . ."], stock=stock, out=cs("2D"))
    assert observe.observe(state)[STOCK_SIZE] == pytest.approx(value)


def test_captures_and_out_of_game():
    state = build_state(["QH . . . .", ". . . . .", ". . . . ."], out=cs("2D", "AS", "KC"))
    obs = observe.observe(state)
    assert obs[CAPTURES] == pytest.approx(3 / 17)
    assert np.flatnonzero(obs[OUT:OUT + NUM_CARDS]).tolist() == sorted(cs("2D", "AS", "KC"))
    assert obs[OUT + c("AS")] == 1 and obs[OUT + c("QH")] == 0
    full = build_state(["QH . . . .", ". . . . .", ". . . . ."], out=17)
    assert observe.observe(full)[CAPTURES] == 1.0


def test_observation_is_a_fresh_array():
    state = rules.new_game(SolitaireConfig(), 0)
    first = observe.observe(state)
    first[:] = 0.5
    assert not np.array_equal(observe.observe(state), first)


# ---------------------------------------------------------------------------------- no leak


def _game(stock=STOCK_A, rng=0):
    return rules.new_game(SolitaireConfig(), rng, deck=deal(ROWS_A, stock))


@pytest.mark.parametrize(
    "other_stock",
    [["2C", "4C", "JS"], ["JS", "2C", "4C"], ["AS", "KS", "7D"], ["4C", "2C", "AS"]],
)
def test_the_stock_cards_and_order_are_not_observed(other_stock):
    base, other = _game(), _game(other_stock)
    assert base.stock != other.stock
    assert np.array_equal(observe.observe(base), observe.observe(other))
    # ... also after a capture, and once one card is revealed the others stay hidden.
    for state in (base, other):
        play(state, "CAPTURE 0 down")
    assert np.array_equal(observe.observe(base), observe.observe(other))


def test_the_unused_cards_are_not_observed():
    base = _game()
    for rng in range(1, 6):
        other = _game(rng=rng)
        assert other.unused != base.unused
        assert np.array_equal(observe.observe(base), observe.observe(other))
    swapped = base.clone()
    swapped.unused = swapped.unused[::-1]
    assert np.array_equal(observe.observe(base), observe.observe(swapped))


def test_swapping_a_stock_card_with_an_unused_card_is_not_observed():
    base = _game()
    other = base.clone()
    other.stock = other.stock[:]
    other.unused = other.unused[:]
    other.stock[0], other.unused[0] = other.unused[0], other.stock[0]
    assert np.array_equal(observe.observe(base), observe.observe(other))


def test_a_capture_changes_the_observation():
    base = _game()
    after = base.clone()
    play(after, "CAPTURE 0 down")
    before_obs, after_obs = observe.observe(base), observe.observe(after)
    assert not np.array_equal(before_obs, after_obs)
    changed = set(np.flatnonzero(before_obs != after_obs).tolist())
    # Cell 0 emptied, cell 5 now KH instead of 3H, one capture, 3H out of game.
    assert CAPTURES in changed and OUT + c("3H") in changed
    assert {0 * 17 + 12, 0 * 17 + 13 + 2} <= changed  # KH left cell 0
    assert 5 * 17 + 12 in changed and 5 * 17 + 2 in changed  # rank K replaces rank 3 at cell 5


def test_reveal_shows_the_card_and_shrinks_the_stock():
    state = _game()
    play(state, "CAPTURE 0 down")
    before = observe.observe(state)
    play(state, "REVEAL")
    after = observe.observe(state)
    assert _card_block(after, REVEALED) == (3, 0)  # 4C
    assert before[STOCK_SIZE] == 1.0 and after[STOCK_SIZE] == pytest.approx(2 / 3)


# ------------------------------------------------------------------------------ determinize


def _mid_game(waiting: bool):
    state = _game()
    play(state, "CAPTURE 0 down", "CAPTURE 1 down", "REVEAL")
    if not waiting:
        play(state, "PLACE 0")
    return state


@pytest.mark.parametrize("waiting", [False, True])
def test_determinize_keeps_everything_visible_and_redraws_the_stock(waiting):
    state = _mid_game(waiting)
    original = state.clone()
    hidden = sorted(state.stock + state.unused)
    stocks = set()
    for seed in range(40):
        copy = rules.determinize(state, 0, seed)
        assert state == original  # the input is left alone
        assert copy is not state and copy.grid is not state.grid and copy.stock is not state.stock
        assert copy.grid == state.grid and copy.revealed == state.revealed
        assert copy.out == state.out and copy.outcome == state.outcome
        assert copy.config == state.config and len(copy.stock) == len(state.stock)
        assert sorted(copy.stock + copy.unused) == hidden  # drawn from unseen cards only
        assert np.array_equal(observe.observe(copy), observe.observe(state))
        assert rules.legal_actions(copy) == rules.legal_actions(state)
        stocks.add(tuple(copy.stock))
        assert rules.determinize(state, 0, seed) == copy  # same seed, same draw
    assert len(stocks) > 1
    assert any(set(s) - set(state.stock) for s in stocks)  # unused cards do enter the stock


def test_determinize_never_draws_a_seen_card():
    state = _mid_game(False)
    seen = {card for card in state.grid if card >= 0} | set(state.out)
    for seed in range(40):
        copy = rules.determinize(state, 0, seed)
        assert not seen & set(copy.stock)
        assert not seen & set(copy.unused)
        assert len(set(copy.stock) | set(copy.unused)) == NUM_CARDS - len(seen)


def test_determinize_of_a_copy_can_be_played_on_without_touching_the_input():
    state = _mid_game(False)
    original = state.clone()
    copy = rules.determinize(state, 0, 3)
    top = copy.stock[-1]
    play(copy, "REVEAL", "PLACE 1")
    assert copy.grid[1] == top and len(copy.stock) == len(original.stock) - 1
    assert state == original


def test_cap_helper_matches_action_names():
    assert cap(7, "up-left") == act("CAPTURE 7 up-left") == 60
