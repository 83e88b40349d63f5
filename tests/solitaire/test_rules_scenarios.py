"""Rule scenarios for Empire Solitaire: one test per ruling of ``shared/rulings/001-solitaire.md``.

Every test plays an explicit deal (``rules.new_game(deck=...)`` or the env's ``reset(options=
{"deal": ...})``) or builds the exact position it needs (``helpers.build_state``); none depends on
a lucky seed. Tests follow the ruling's sections: deal, capture, stock, end, rewards, illegal
actions.
"""

from __future__ import annotations

import math

import gymnasium
import numpy as np
import pytest

import empire_envs  # noqa: F401  (registers the environments)
from empire_envs.core.cards import NUM_CARDS
from empire_envs.core.errors import IllegalActionError
from empire_envs.games.solitaire import actions as A
from empire_envs.games.solitaire import observe, rules
from empire_envs.games.solitaire.actions import Kind
from empire_envs.games.solitaire.config import MAX_CAPTURES, SolitaireConfig
from empire_envs.games.solitaire.state import LOST, NUM_CELLS, ONGOING, WON

from .helpers import (
    WIN_LINE,
    WIN_ROWS,
    WIN_STOCK,
    act,
    all_cards,
    assert_conserved,
    assert_illegal,
    build_state,
    c,
    cap,
    cs,
    deal,
    grid_rows,
    legal_names,
    picture,
    play,
    stock_top_first,
)

ENV_ID = "empire_envs/EmpireSolitaire-v0"

# WIN_ROWS, WIN_STOCK, WIN_LINE (helpers): a winnable deal and a 23-step winning line.
WIN_DEAL = deal(WIN_ROWS, WIN_STOCK)

# No card can capture: suits in a 2x2 pattern (no two neighbours share a suit), ranks repeated
# only far apart. The game is lost as dealt.
NO_CAPTURE_ROWS = ["AC 2D 3C 4D 5C",
                   "6H 7S 8H 9S 10H",
                   "JC QD KC 5D 4C"]
NO_CAPTURE_DEAL = deal(NO_CAPTURE_ROWS, ["9C", "KS", "KH"])

# The same with AD in the corner: the one capture is AD x 2D (or 2D x AD); after AD x 2D and
# placing the revealed 9C on cell 0 the grid is full, nothing captures, and two stock cards remain.
FULL_GRID_ROWS = ["AD 2D 3C 4D 5C",
                  "6H 7S 8H 9S 10H",
                  "JC QD KC 5D 4C"]
FULL_GRID_DEAL = deal(FULL_GRID_ROWS, ["9C", "KS", "KH"])


def new(deal_cards=WIN_DEAL, rng=0, **config_kwargs):
    return rules.new_game(SolitaireConfig(**config_kwargs), rng, deck=deal_cards)


def make_env(**kwargs):
    return gymnasium.make(ENV_ID, **kwargs)


def reset(env, deal_cards, seed=0):
    return env.reset(seed=seed, options={"deck": deal_cards})


# ================================================================================== Deal


def test_deal_fills_the_grid_row_by_row_and_the_stock_top_first():
    """Ruling: 15 face-up cards row by row (cell = row*5 + col), then 3 face down as the stock."""
    state = new()
    for row, line in enumerate(WIN_ROWS):
        for col, card in enumerate(line.split()):
            assert state.grid[row * 5 + col] == c(card)
    assert state.grid[7] == c("JH") and state.grid[14] == c("8D")  # (1, 2) and (2, 4)
    assert stock_top_first(state) == cs(*WIN_STOCK)
    assert state.stock[-1] == c("4C")  # the engine's top card is the last element
    assert state.out == [] and state.revealed == -1 and state.outcome == ONGOING
    # The stock is turned up in deal order: 4C, then 2C, then JS.
    revealed = []
    for name in WIN_LINE:
        play(state, name)
        if name == "REVEAL":
            revealed.append(state.revealed)
    assert revealed == cs(*WIN_STOCK)


def test_the_other_34_cards_are_out_of_the_game():
    """Ruling: one 52-card deck; the 34 cards not dealt are out of the game."""
    state = new()
    assert_conserved(state)
    assert set(state.unused) == set(range(NUM_CARDS)) - set(WIN_DEAL)
    assert len(state.unused) == 34
    # No unused card ever enters play: the whole winning line only moves the 18 dealt cards.
    for name in WIN_LINE:
        play(state, name)
        in_play = [card for card in state.grid if card >= 0] + state.stock + state.out
        assert set(in_play) <= set(WIN_DEAL)
    assert sorted(state.out + [card for card in state.grid if card >= 0]) == sorted(WIN_DEAL)


@pytest.mark.parametrize("seed", range(10))
def test_a_random_deal_is_one_shuffled_52_card_deck(seed):
    state = rules.new_game(SolitaireConfig(), seed)
    assert_conserved(state)
    assert -1 not in state.grid and len(state.stock) == 3
    again = rules.new_game(SolitaireConfig(), seed)
    assert again == state  # same seed, same deal
    other = rules.new_game(SolitaireConfig(), seed + 1000)
    assert other.grid != state.grid


def test_the_34_unused_cards_are_never_observed():
    """Ruling: the other 34 cards are never seen (their order depends on the RNG, not the obs)."""
    first, second = new(rng=1), new(rng=2)
    assert first.unused != second.unused and sorted(first.unused) == sorted(second.unused)
    assert np.array_equal(observe.observe(first), observe.observe(second))
    env = make_env()
    obs_a, _ = reset(env, WIN_DEAL, seed=1)
    unused_a = list(env.unwrapped.state.unused)
    obs_b, _ = reset(env, WIN_DEAL, seed=2)
    assert env.unwrapped.state.unused != unused_a
    assert np.array_equal(obs_a, obs_b)
    assert np.array_equal(obs_a, observe.observe(first))


def test_env_reset_plays_the_given_deal():
    env = make_env()
    as_text = " ".join(WIN_ROWS + WIN_STOCK).split()  # card names work as well as indices
    _, info = reset(env, as_text)
    state = env.unwrapped.state
    assert grid_rows(state) == picture(*WIN_ROWS)
    assert stock_top_first(state) == cs(*WIN_STOCK)
    assert np.array_equal(info["action_mask"], rules.legal_mask(state))


@pytest.mark.parametrize(
    "bad, error",
    [
        (WIN_DEAL[:17], ValueError),  # too short
        (WIN_DEAL + [c("AS")], ValueError),  # too long
        (WIN_DEAL[:17] + [WIN_DEAL[0]], ValueError),  # a card twice
        (WIN_DEAL[:17] + ["1X"], ValueError),  # not a card
    ],
)
def test_a_malformed_deal_is_refused(bad, error):
    with pytest.raises(error):
        rules.new_game(SolitaireConfig(), 0, deck=bad)


# ================================================================================ Capture


@pytest.mark.parametrize(
    "attacker, target, shared",
    [
        ("QH", "4H", "suit"),
        ("QH", "QS", "rank"),
        ("AC", "AD", "rank"),
        ("10S", "2S", "suit"),
        ("QH", "4S", None),
        ("10D", "9C", None),
        ("KC", "QD", None),
    ],
)
@pytest.mark.parametrize("geometry", ["orthogonal", "diagonal"])
def test_capture_needs_a_shared_rank_or_suit(attacker, target, shared, geometry):
    """Ruling: a card captures another only when both share a rank or a suit."""
    target_cell, forward, backward = (7, "right", "left") if geometry == "orthogonal" else (
        12, "down-right", "up-left")
    rows = [". . . . .", f". {attacker} . . .", ". . . . ."]
    if geometry == "orthogonal":
        rows[1] = f". {attacker} {target} . ."
    else:
        rows[2] = f". . {target} . ."
    state = build_state(rows, stock=["7D"], out=1)
    if shared:
        assert set(rules.legal_actions(state)) == {
            cap(6, forward), cap(target_cell, backward), A.REVEAL}
        play(state, cap(6, forward))
        assert state.grid[target_cell] == c(attacker) and state.grid[6] == -1
        assert state.out[-1] == c(target)
    else:
        assert rules.legal_actions(state) == [A.REVEAL]
        assert_illegal(state, cap(6, forward))
        assert_illegal(state, cap(target_cell, backward))


@pytest.mark.parametrize(
    "rows, action, after",
    [
        (["QH . . . 4H", ". . . . .", ". . . . ."], "CAPTURE 0 right",
         [". . . . QH", ". . . . .", ". . . . ."]),
        (["QH . . . 4H", ". . . . .", ". . . . ."], "CAPTURE 4 left",
         ["4H . . . .", ". . . . .", ". . . . ."]),
        ([". . 5S . .", ". . . . .", ". . 5D . ."], "CAPTURE 2 down",
         [". . . . .", ". . . . .", ". . 5S . ."]),
        ([". . 5S . .", ". . . . .", ". . 5D . ."], "CAPTURE 12 up",
         [". . 5D . .", ". . . . .", ". . . . ."]),
        ([". . . . .", "7C . 9C . .", ". . . . ."], "CAPTURE 5 right",  # one empty skipped
         [". . . . .", ". . 7C . .", ". . . . ."]),
    ],
)
def test_orthogonal_capture_skips_empty_cells(rows, action, after):
    """Ruling: orthogonally, b is the first occupied cell; any number of empty cells are skipped."""
    state = build_state(rows, out=16)
    source = A.decode(act(action)).a
    (target,) = [card for cell, card in enumerate(state.grid) if card >= 0 and cell != source]
    play(state, action)
    assert grid_rows(state) == picture(*after)
    assert state.out[-1] == target


def test_orthogonal_capture_takes_the_first_occupied_cell_and_cannot_jump():
    """Ruling: the target is the FIRST occupied cell; an occupied non-matching card blocks."""
    blocked = build_state(["QH 5S . 4H .", ". . . . .", ". . . . ."], stock=["9C"], out=1)
    assert_illegal(blocked, act("CAPTURE 0 right"))  # 5S is first: no match, 4H out of reach
    assert_illegal(blocked, act("CAPTURE 3 left"))
    assert legal_names(blocked) == ["REVEAL"]
    column = build_state(["QH . . . .", "5S . . . .", "4H . . . ."], stock=["9C"], out=1)
    assert_illegal(column, act("CAPTURE 0 down"))
    assert_illegal(column, act("CAPTURE 10 up"))
    assert legal_names(column) == ["REVEAL"]
    # A matching first card is the one taken, never the one behind it.
    first = build_state(["QH 5H . 4H .", ". . . . .", ". . . . ."], out=15)
    play(first, "CAPTURE 0 right")
    assert grid_rows(first) == picture(". QH . 4H .", ". . . . .", ". . . . .")
    assert first.out[-1] == c("5H")


@pytest.mark.parametrize(
    "direction, target",
    [("up-left", 1), ("up-right", 3), ("down-left", 11), ("down-right", 13)],
)
def test_diagonal_capture_takes_the_adjacent_diagonal_cell(direction, target):
    """Ruling: diagonally, b is the immediately adjacent diagonal cell (all four directions)."""
    grid_target = ["."] * NUM_CELLS
    grid_target[7], grid_target[target] = "QH", "4H"
    rows = [" ".join(grid_target[r * 5:(r + 1) * 5]) for r in range(3)]
    state = build_state(rows, out=16)
    play(state, cap(7, direction))
    assert state.grid[target] == c("QH") and state.grid[7] == -1
    assert state.cards_in_grid() == 1 and state.out[-1] == c("4H")


def test_diagonal_capture_never_skips_an_empty_cell():
    """Ruling: diagonally, only the immediately adjacent cell; no skipping."""
    state = build_state(["QH . . . .", ". . . . .", ". . 4H . ."], stock=["9C"], out=1)
    assert_illegal(state, act("CAPTURE 0 down-right"))
    assert_illegal(state, act("CAPTURE 12 up-left"))
    corner = build_state([". . . . 5D", ". . . . .", "5S . . . ."], stock=["9C"], out=1)
    assert_illegal(corner, act("CAPTURE 4 down-left"))
    assert_illegal(corner, act("CAPTURE 10 up-right"))
    assert legal_names(state) == legal_names(corner) == ["REVEAL"]
    # With the diagonal neighbour present (and matching), only it can be taken.
    state.grid[6] = c("7H")
    assert set(legal_names(state)) == {
        "REVEAL", "CAPTURE 0 down-right", "CAPTURE 6 up-left", "CAPTURE 6 down-right",
        "CAPTURE 12 up-left"}


@pytest.mark.parametrize(
    "cell_a, cell_b",
    [
        (4, 5),  # end of row 0 / start of row 1 (flat index + 1)
        (9, 10),  # end of row 1 / start of row 2
        (4, 10),  # flat index + 6 ("down-right" from the right edge)
        (14, 0),  # last cell / first cell (index modulo 15, or Python's index -1)
        (5, 14),  # flat index - 6 from the left edge is -1, i.e. cell 14 in Python
    ],
)
def test_no_wrap_around_at_the_grid_edges(cell_a, cell_b):
    """Ruling: there is no wrap-around (the right edge of row 0 does not reach row 1, etc.)."""
    cells = ["."] * NUM_CELLS
    cells[cell_a], cells[cell_b] = "QH", "QS"  # they would match
    rows = [" ".join(cells[r * 5:(r + 1) * 5]) for r in range(3)]
    state = build_state(rows, stock=["9C"], out=1)
    assert legal_names(state) == ["REVEAL"]
    for cell in (cell_a, cell_b):
        for direction in range(A.NUM_DIRECTIONS):
            assert_illegal(state, A.capture(cell, direction))


def test_a_capture_removes_the_captured_card_and_moves_the_capturing_card():
    """Ruling: the captured card leaves the game; the capturing card moves to b; a becomes empty."""
    state = new()
    before = state.clone()
    play(state, "CAPTURE 0 down")  # KH takes 3H
    assert grid_rows(state) == picture(". QC 6D JC JD", "KH 5C JH 9H 2H", "10H QD 9D 3C 8D")
    assert state.out == cs("3H")
    assert state.stock == before.stock and state.revealed == -1
    play(state, "CAPTURE 1 down")  # QC takes 5C
    assert grid_rows(state) == picture(". . 6D JC JD", "KH QC JH 9H 2H", "10H QD 9D 3C 8D")
    assert state.out == cs("3H", "5C")  # in capture order
    assert_conserved(state)
    # The other way round: the card below captures upwards.
    other = new()
    play(other, "CAPTURE 5 up")  # 3H takes KH
    assert grid_rows(other) == picture("3H QC 6D JC JD", ". 5C JH 9H 2H", "10H QD 9D 3C 8D")
    assert other.out == cs("KH")
    # An out card is shown in the observation's out-of-game field, never on the grid again.
    obs = observe.observe(state)
    assert obs[observe.LAYOUT["out of game"]][cs("3H", "5C")].tolist() == [1.0, 1.0]


# ================================================================================== Stock


def test_reveal_only_after_a_capture():
    """Ruling: the stock opens only once at least one capture has been made."""
    state = new()
    assert "REVEAL" not in legal_names(state)
    assert_illegal(state, A.REVEAL)
    play(state, "CAPTURE 0 down")
    assert "REVEAL" in legal_names(state)
    # An empty cell alone is not enough (a built position with no capture made yet).
    built = build_state(["QH . . . 4S", ". . . . .", ". . . . ."], stock=["9C"])
    assert_illegal(built, A.REVEAL)
    built.out = cs("2D")
    assert legal_names(built) == ["REVEAL"]


def test_reveal_needs_an_empty_cell():
    """Ruling: REVEAL only while at least one cell is empty."""
    state = new()
    play(state, "CAPTURE 0 down", "REVEAL", "PLACE 0")
    assert state.cards_in_grid() == NUM_CELLS and state.captures == 1 and len(state.stock) == 2
    assert state.outcome == ONGOING and rules.legal_actions(state)  # captures remain
    assert "REVEAL" not in legal_names(state)
    assert_illegal(state, A.REVEAL)
    play(state, "CAPTURE 0 right")
    assert "REVEAL" in legal_names(state)


def _waiting_state():
    state = new()
    play(state, *WIN_LINE[:WIN_LINE.index("REVEAL") + 1])
    return state


def test_the_revealed_card_must_be_placed_and_nothing_else_is_legal():
    """Ruling: while a revealed card waits, only PLACE on an empty cell is legal; the player sees
    the card before choosing."""
    state = _waiting_state()
    assert state.revealed == c("4C") and stock_top_first(state) == cs("2C", "JS")
    empty = [cell for cell in range(NUM_CELLS) if state.grid[cell] < 0]
    assert empty == [0, 1, 3, 5, 6]
    assert rules.legal_actions(state) == [A.PLACE[cell] for cell in empty]
    # Captures that are legal once the card is placed are not legal now.
    placed = state.clone()
    play(placed, A.PLACE[0])
    pending_captures = [a for a in rules.legal_actions(placed) if A.decode(a).kind is Kind.CAPTURE]
    assert pending_captures
    for action in range(A.NUM_ACTIONS):
        if action not in rules.legal_actions(state):
            assert_illegal(state, action)  # every capture, REVEAL, PLACE on an occupied cell
    # The player sees the card: rank 4 and clubs in the observation's revealed field.
    revealed = observe.observe(state)[observe.LAYOUT["revealed"]]
    assert np.flatnonzero(revealed).tolist() == [3, 13 + 0]


@pytest.mark.parametrize("cell", [0, 1, 3, 5, 6])
def test_the_revealed_card_goes_to_the_empty_cell_of_the_players_choice(cell):
    state = _waiting_state()
    before = state.clone()
    play(state, A.PLACE[cell])
    assert state.grid[cell] == c("4C") and state.revealed == -1
    assert [g for i, g in enumerate(state.grid) if i != cell] == [
        g for i, g in enumerate(before.grid) if i != cell]
    assert state.stock == before.stock and state.out == before.out


# ==================================================================================== End


def test_won_when_the_stock_is_empty_and_one_card_remains():
    """Ruling: won = stock empty and exactly one card in the grid; reward +1, terminated."""
    state = build_state(["QH . . . 4H", ". . . . .", ". . . . ."], out=16)
    assert_conserved(state)
    assert play(state, "CAPTURE 0 right") == [1.0]
    assert state.outcome == WON and rules.is_terminal(state) and rules.returns(state) == 1.0
    assert state.cards_in_grid() == 1 and state.stock == [] and state.captures == MAX_CAPTURES
    assert rules.legal_actions(state) == [] and not rules.legal_mask(state).any()
    for action in range(A.NUM_ACTIONS):
        assert_illegal(state, action)  # the game is over


def test_one_card_left_is_not_a_win_while_stock_cards_remain():
    """Ruling: a single card with the stock (or a revealed card) still to play is not a win."""
    state = build_state(["AH 2H . . .", ". . . . .", ". . . . ."], stock=["3H"], out=15)
    assert play(state, "CAPTURE 0 right") == [0.0]
    assert state.cards_in_grid() == 1 and state.outcome == ONGOING
    assert legal_names(state) == ["REVEAL"]
    assert play(state, "REVEAL") == [0.0]
    assert state.stock == [] and state.cards_in_grid() == 1 and state.outcome == ONGOING
    assert rules.legal_actions(state) == [A.PLACE[cell] for cell in range(NUM_CELLS) if cell != 1]
    assert play(state, "PLACE 2") == [0.0]
    assert play(state, "CAPTURE 2 left") == [1.0]
    assert state.outcome == WON and grid_rows(state)[0] == ". 3H . . ."


def test_a_full_winning_game_lasts_23_steps_in_the_env():
    """Ruling: 17 captures + 3 reveals + 3 placements = 23 steps; +1 on the win, terminated."""
    kinds = [A.decode(act(name)).kind for name in WIN_LINE]
    assert (kinds.count(Kind.CAPTURE), kinds.count(Kind.REVEAL), kinds.count(Kind.PLACE)) == (
        17, 3, 3)
    env = make_env()
    _, info = reset(env, WIN_DEAL)
    rewards = []
    for step, name in enumerate(WIN_LINE, 1):
        action = act(name)
        assert info["action_mask"][action] == 1
        _, reward, terminated, truncated, info = env.step(action)
        rewards.append(reward)
        assert not truncated
        assert terminated == (step == len(WIN_LINE))
    assert len(WIN_LINE) == 23
    assert rewards == [0.0] * 22 + [1.0]
    assert info["outcome"] == "won"
    state = env.unwrapped.state
    assert state.cards_in_grid() == 1 and state.stock == [] and state.revealed == -1
    assert not env.unwrapped.action_masks().any()


def test_lost_when_stock_is_empty_and_no_capture_remains():
    """Ruling: lost = no legal action and the game is not won; reward -1."""
    state = build_state(["AH 2H . . .", ". . . . .", ". . . . KS"], out=15)
    assert play(state, "CAPTURE 0 right") == [-1.0]
    assert state.outcome == LOST and rules.returns(state) == -1.0 and rules.is_terminal(state)
    assert state.cards_in_grid() == 2 and rules.legal_actions(state) == []


def test_never_lost_while_a_reveal_is_possible():
    """With a capture made, a stock card and an empty cell, REVEAL keeps the game alive."""
    state = build_state(["AH 2H . . .", ". . . . .", ". . . . KS"], stock=["5C"], out=14)
    assert play(state, "CAPTURE 0 right") == [0.0]
    assert state.outcome == ONGOING and legal_names(state) == ["REVEAL"]


def test_a_deal_with_no_capture_at_all_is_lost():
    """Ruling: a deal with no capture at all is lost (stock cards left unplayed)."""
    state = new(NO_CAPTURE_DEAL)
    assert state.outcome == LOST and rules.is_terminal(state) and rules.returns(state) == -1.0
    assert rules.legal_actions(state) == [] and len(state.stock) == 3
    for action in range(A.NUM_ACTIONS):
        assert_illegal(state, action)
    # A sanity check that no capture exists, independent of the engine's move generator: no two
    # orthogonal or diagonal neighbours share a rank or a suit (the grid is full).
    for cell in range(NUM_CELLS):
        row, col = divmod(cell, 5)
        for other in range(NUM_CELLS):
            r, k = divmod(other, 5)
            if other != cell and max(abs(r - row), abs(k - col)) == 1:
                assert not rules.matches(state.grid[cell], state.grid[other])
    # The env cannot deliver a reward for a game without a decision: it refuses the deal.
    env = make_env()
    with pytest.raises(ValueError, match="over before any decision"):
        reset(env, NO_CAPTURE_DEAL)


def test_a_full_grid_with_no_capture_and_stock_left_is_lost():
    """Ruling: a full grid with no capture and cards still in the stock is lost."""
    state = new(FULL_GRID_DEAL)
    assert legal_names(state) == ["CAPTURE 0 right", "CAPTURE 1 left"]
    assert play(state, "CAPTURE 0 right") == [0.0]
    assert legal_names(state) == ["REVEAL"]
    assert play(state, "REVEAL", "PLACE 0") == [0.0, -1.0]
    assert state.cards_in_grid() == NUM_CELLS and stock_top_first(state) == cs("KS", "KH")
    assert state.outcome == LOST and rules.legal_actions(state) == []
    # The same game in the env: terminated with -1 and outcome "lost".
    env = make_env()
    reset(env, FULL_GRID_DEAL)
    results = [env.step(act(name)) for name in ("CAPTURE 0 right", "REVEAL", "PLACE 0")]
    assert [r[1] for r in results] == [0.0, 0.0, -1.0]
    assert [r[2] for r in results] == [False, False, True]
    assert results[-1][4]["outcome"] == "lost" and not results[-1][3]


def test_an_episode_never_needs_truncation():
    """Ruling: at most 23 steps; the longest game (a win) ends by termination, not truncation."""
    from empire_envs.games.solitaire import GAME

    state = new()
    steps = 0
    while not rules.is_terminal(state):
        assert not GAME.is_truncated(state)
        play(state, WIN_LINE[steps])
        steps += 1
    assert steps == 23 == MAX_CAPTURES + 3 + 3
    assert not GAME.is_truncated(state)


# ================================================================================ Rewards


@pytest.mark.parametrize("shaping", [0.02, 0.01, 0.0])
def test_shaping_pays_its_value_per_capture(shaping):
    """Ruling: optional shaping adds a small reward per capture (flag ``shaping``)."""
    state = new(shaping=shaping)
    rewards = play(state, *WIN_LINE)
    for name, reward in zip(WIN_LINE[:-1], rewards[:-1], strict=True):
        expected = shaping if name.startswith("CAPTURE") else 0.0
        assert reward == pytest.approx(expected)
    assert rewards[-1] == pytest.approx(1.0 + shaping)
    assert sum(rewards) == pytest.approx(1.0 + MAX_CAPTURES * shaping)
    # A shaped loss: the capture still pays, the loss is -1.
    lost = new(FULL_GRID_DEAL, shaping=shaping)
    assert play(lost, "CAPTURE 0 right", "REVEAL", "PLACE 0") == pytest.approx([shaping, 0.0, -1.0])


def test_no_shaping_by_default():
    assert SolitaireConfig().shaping == 0.0  # the ruling's default
    assert play(new(), *WIN_LINE) == [0.0] * 22 + [1.0]


def test_shaped_env_variant():
    env = gymnasium.make("empire_envs/EmpireSolitaireShaped-v0")
    reset(env, WIN_DEAL)
    total = sum(env.step(act(name))[1] for name in WIN_LINE)
    assert total == pytest.approx(1.0 + MAX_CAPTURES * 0.02)
    assert total < 1.5


@pytest.mark.parametrize("value", [0.0, 0.001, 0.02, 0.029, 0.5 / MAX_CAPTURES - 1e-9])
def test_config_accepts_a_shaping_whose_total_stays_well_below_one(value):
    config = SolitaireConfig(shaping=value)
    assert MAX_CAPTURES == 17
    assert MAX_CAPTURES * config.shaping < 0.5  # at most half the win reward


@pytest.mark.parametrize(
    "value, error",
    [
        (0.5 / MAX_CAPTURES, ValueError),  # a game's shaping would reach half the win reward
        (0.03, ValueError),
        (1 / MAX_CAPTURES, ValueError),  # the shaping would equal the win reward
        (0.1, ValueError),
        (1.0, ValueError),
        (-0.01, ValueError),
        (math.nan, ValueError),
        (math.inf, ValueError),
        (True, TypeError),
        ("0.01", TypeError),
    ],
)
def test_config_rejects_a_shaping_that_could_rival_the_win(value, error):
    with pytest.raises(error):
        SolitaireConfig(shaping=value)
    with pytest.raises(error):
        make_env(shaping=value)


# ======================================================================= Illegal actions


@pytest.mark.parametrize("moment", ["start", "waiting", "full grid", "won", "lost"])
def test_every_illegal_action_raises_and_leaves_the_state_unchanged(moment):
    state = new()
    if moment == "waiting":
        state = _waiting_state()
    elif moment == "full grid":
        play(state, "CAPTURE 0 down", "REVEAL", "PLACE 0")
    elif moment == "won":
        play(state, *WIN_LINE)
    elif moment == "lost":
        state = new(NO_CAPTURE_DEAL)
    legal = set(rules.legal_actions(state))
    illegal = [action for action in range(A.NUM_ACTIONS) if action not in legal]
    assert len(illegal) >= A.NUM_ACTIONS - 25
    for action in illegal:
        assert_illegal(state, action)  # compares with a clone (states support ==)


def test_state_equality_sees_every_field():
    """``assert_illegal`` relies on ``==``: it must notice a change to any field."""
    base = new()
    for change in (
        lambda s: s.grid.__setitem__(0, -1),
        lambda s: s.stock.pop(),
        lambda s: s.out.append(c("AS")),
        lambda s: setattr(s, "revealed", c("AS")),
        lambda s: setattr(s, "outcome", LOST),
        lambda s: setattr(s, "unused", s.unused[::-1]),
    ):
        other = base.clone()
        change(other)
        assert other != base


@pytest.mark.parametrize("bad, error", [(A.NUM_ACTIONS, ValueError), (-1, ValueError),
                                        (True, TypeError), (1.0, TypeError), ("0", TypeError)])
def test_a_non_action_is_refused_and_leaves_the_state_unchanged(bad, error):
    state = new()
    before = state.clone()
    with pytest.raises(error):
        rules.apply_action(state, bad)
    assert state == before


def test_env_illegal_action_penalizes_or_raises():
    env = make_env()
    reset(env, WIN_DEAL)
    _, reward, terminated, truncated, info = env.step(A.REVEAL)  # no capture yet
    assert (reward, terminated, truncated) == (-1.0, True, False)
    assert info["illegal_action"] is True and info["outcome"] == "illegal action"
    strict = make_env(illegal_action="raise")
    reset(strict, WIN_DEAL)
    before = strict.unwrapped.state.clone()
    with pytest.raises(IllegalActionError):
        strict.step(A.REVEAL)
    assert strict.unwrapped.state == before
    assert all_cards(strict.unwrapped.state) == list(range(NUM_CARDS))
