"""The Map Duel JAX twin plays exactly the Python rules, for both seats (issue 27).

- Whole games (``tests/jax_twins.py``): every registered Map Duel id, dealt by the twin and
  given to the Python rules (the deck, a random first player), every coin preset to the one the
  twin flipped; at every step the observation of BOTH seats, ``state.observation``, the mask,
  the seat to act, both rewards, terminated, truncated and the outcome are compared. ``make
  test`` plays 24 games per id (120 in all), a third random masked play, a third heuristic
  against heuristic, a third heuristic against random (seats alternating), and 48 games of a
  variant config no id registers (``VARIANT``: the flags no id sets, and a length limit of 20
  turns and a draw after 3 idle turns, so that games are truncated and drawn); ``pytest -m
  soak`` plays 2,000 games per id (10,000 in all).
- Scripted positions built in Python (``helpers.build_state``), converted with
  ``jax_rules.from_python``, and stepped on both sides: each confrontation outcome, Ace swaps,
  sacrifices, exact-sum spending, King-8 diagonals and Ace blocking, every way a game ends, the
  automatic end of step 2. Each position is stepped in ``BATCH`` copies, each with its own key,
  so one step sees both sides of a coin, each copy compared with a Python copy given that coin.
- The harness fails on a planted difference: a leak or a wrong rotation in the view of the seat
  not to act, a wrong reward for the seat not to act, a coin flipped on one side only.
- The pgx-style env of a game of two seats: seats, ``observe(state, seat)``, illegal actions,
  finished games, ``reset_finished``, malformed actions and seats, no Gymnasium vector env.
"""

from __future__ import annotations

import dataclasses
import re
from functools import cache

import numpy as np
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

import empire_envs.jax as empire_jax  # noqa: E402
from empire_envs.agents import make_agent  # noqa: E402
from empire_envs.games.map_duel import jax_rules, rules  # noqa: E402
from empire_envs.games.map_duel.actions import Kind, layout_for  # noqa: E402
from empire_envs.games.map_duel.config import MapDuelConfig  # noqa: E402
from empire_envs.games.map_duel.state import DRAW, ONGOING, TRUNCATED, WON, Phase  # noqa: E402
from empire_envs.jax import ActionTypeError, JaxEnv, reset_finished  # noqa: E402
from tests.jax_twins import (  # noqa: E402
    LockstepReport,
    Mismatch,
    agent_policy,
    as_flags,
    check_step_everywhere,
    compiled,
    play_lockstep,
    random_policy,
    seat_policies,
    views_of_the_seat_to_act,
)

from .helpers import BACK, FORWARD, LEFT, build_state, cell_action, face, fidx, num, step2_state  # noqa: E402

MAP_DUEL = "empire_envs/MapDuel-v0"
MAP_DUEL_IDS = [
    f"empire_envs/{name}"
    for name in ("MapDuel-v0", "MapDuelRandomFirst-v0", "MapDuelHiddenPools-v0", "MapDuelKing8-v0", "MapDuelB15-v0")
]
#: games per compiled batch; the scripted positions are stepped in as many copies, so every test
#: of a config shares one compiled step
BATCH = 24
GAMES_PER_ID = 24
SOAK_GAMES_PER_ID, SOAK_BATCH = 2_000, 200

#: a variant config no id registers (every flag the ids leave at its default, and some they set),
#: played whole and used by the scripted positions (one config: one compile)
VARIANT = {
    "sacrifice_exact": True,
    "build_uses_placement_rule": True,
    "ace_blocking": "cards",
    "suit_order": "none",
    "jack_suit_rule": "major_minor",
    "ace_vs_ace": "aggressor_wins",
    "shaping": 0.1,
    "length_limit": 20,  # so that games are truncated
    "no_progress_turns": 3,  # so that games are drawn
    "placement_rule": "any_neighbour",
    "king_reach": "all8",
    "first_player": 1,
    "hidden_pools": True,
}
KING8_ID = "empire_envs/MapDuelKing8-v0"
KING8 = {"king_reach": "all8", "ace_blocking": "faces"}  # as MapDuelKing8-v0 registers it

B = 13
L = layout_for(B)
#: number cards of both colours far from the action, so no colour victory is near
FILLER = {(0, 0): "10S", (12, 12): "10H"}


def with_filler(board: dict) -> dict:
    return {**FILLER, **board}


# --------------------------------------------------------------------------- policies


def _heuristic():
    return agent_policy(lambda: make_agent("heuristic", "map_duel"))


def mixed_policy():
    """Game ``i`` of a batch: ``i % 3 == 0`` random masked play, 1 heuristic against heuristic,
    2 heuristic against random (the heuristic's seat alternating from one such game to the next)."""
    heuristic = _heuristic()
    heuristic_first = seat_policies(heuristic, random_policy)
    random_first = seat_policies(random_policy, heuristic)

    def act(state, mask, seat, index, rng):
        if index % 3 == 0:
            return random_policy(state, mask, seat, index, rng)
        if index % 3 == 1:
            return heuristic(state, mask, seat, index, rng)
        chosen = heuristic_first if (index // 3) % 2 == 0 else random_first
        return chosen(state, mask, seat, index, rng)

    return act


# --------------------------------------------------------------------------- whole games


def _assert_varied(report: LockstepReport, where: str) -> None:
    outcomes = report.outcomes
    assert outcomes["won by player_0"] > 0 and outcomes["won by player_1"] > 0, (where, outcomes)
    assert outcomes["draw"] + outcomes["truncated"] > 0, (where, outcomes)
    assert report.coins > 0, f"{where}: no coin was flipped"


@pytest.mark.parametrize("env_id", MAP_DUEL_IDS)
def test_twin_plays_the_python_rules_step_for_step(env_id):
    seed = 1_000 * MAP_DUEL_IDS.index(env_id)  # other deals for each id
    report = play_lockstep(env_id, mixed_policy(), GAMES_PER_ID, seed=seed, batch=BATCH)
    assert report.games == GAMES_PER_ID
    _assert_varied(report, env_id)
    print(env_id, report)


def test_twin_plays_a_variant_config_step_for_step():
    report = play_lockstep(MAP_DUEL, mixed_policy(), 2 * BATCH, seed=100, batch=BATCH, flags=VARIANT)
    assert report.games == 2 * BATCH
    assert report.outcomes["truncated"] > 0 and report.outcomes["draw"] > 0, report.outcomes
    assert report.outcomes["won by player_0"] > 0 and report.outcomes["won by player_1"] > 0, report.outcomes
    print(VARIANT, report)


@pytest.mark.soak
@pytest.mark.parametrize("env_id", MAP_DUEL_IDS)
def test_twin_plays_the_python_rules_step_for_step_soak(env_id):
    seed = 10_000 * (1 + MAP_DUEL_IDS.index(env_id))
    report = play_lockstep(env_id, mixed_policy(), SOAK_GAMES_PER_ID, seed=seed, batch=SOAK_BATCH)
    assert report.games == SOAK_GAMES_PER_ID
    print(env_id, "games", report.games, "steps", report.steps, "coins", report.coins, "outcomes", report.outcomes)
    _assert_varied(report, env_id)


# --------------------------------------------------------------------------- scripted positions


def _tiled(state, count: int):
    return jax.tree_util.tree_map(lambda leaf: jnp.broadcast_to(leaf, (count, *leaf.shape)), state)


class Line:
    """A Python position and its twin (``jax_rules.from_python``) in ``BATCH`` copies, each
    twin copy stepping with its own key and each Python copy with the draws of its twin copy;
    every step compared as the lockstep harness compares (``check_step_everywhere``)."""

    def __init__(self, python, flags: dict | None = None, seed: int = 0, env_id: str = MAP_DUEL) -> None:
        self.twin = compiled(env_id, BATCH, as_flags(flags or {}))
        assert python.config == self.twin.config, "build the position with the twin's config"
        self.pythons = [python.clone() for _ in range(BATCH)]
        self.state = _tiled(jax_rules.from_python(python), BATCH)
        self.seed, self.number, self.coins = seed, 0, 0
        self.finished = [False] * BATCH
        self.rewards = np.zeros((BATCH, 2), dtype=np.float32)

    def play(self, action: int) -> np.ndarray:
        """Play ``action`` in every copy (legal in each); each copy's rewards ``[BATCH, 2]``."""
        for python in self.pythons:
            assert rules.is_legal(python, action), f"{L.name(action, python.current)} is not legal"
        keys = jax.random.split(jax.random.fold_in(jax.random.PRNGKey(self.seed), self.number), BATCH)
        where = f"scripted line (seed {self.seed}), step {self.number}, {L.name(action, self.pythons[0].current)}"
        self.state, self.finished, report = check_step_everywhere(
            self.twin, self.pythons, self.state, [action] * BATCH, keys, where
        )
        self.number += 1
        self.coins += report.coins
        self.rewards = np.asarray(self.state.rewards)
        return self.rewards

    def end_turn(self) -> None:
        """Pass step 1 if in it, then END_TURN unless the rules ended the turn themselves."""
        python = self.pythons[0]
        seat, turn = python.current, python.turn
        if python.phase == Phase.STEP_1:
            self.play(L.index(Kind.PASS_STEP1))
        python = self.pythons[0]
        if python.phase == Phase.STEP_2 and python.current == seat and python.turn == turn:
            self.play(L.index(Kind.END_TURN))

    @property
    def python(self):
        """The first Python copy (all copies agree until a coin sends them apart)."""
        return self.pythons[0]


def _confront(attacker: str, defender: str) -> int:
    return L.confront_index(fidx(attacker), fidx(defender))


def _removed(state, card: str) -> bool:
    from empire_envs.games.map_duel.state import REMOVED

    seat, index = face(card)
    return state.face_status[seat][index] == REMOVED


def _losers(line: Line, cards: tuple[str, ...]) -> set[tuple[str, ...]]:
    """The sets of ``cards`` removed, over the copies."""
    return {tuple(card for card in cards if _removed(python, card)) for python in line.pythons}


def test_scripted_attacker_wins():
    """A King of value 9 (5H + 4D: its own-colour pool; the 9C does not count) removes a Queen of
    value 6: no coin."""
    board = with_filler({(6, 6): "KH", (6, 7): "QS", (0, 6): "JC"})
    line = Line(step2_state(board=board, pools={0: ["5H", "4D", "9C"], 1: ["6S", "2C"]}, current=0))
    line.play(_confront("KH", "QS"))
    assert _losers(line, ("KH", "QS")) == {("QS",)} and line.coins == 0


def test_scripted_defender_wins_and_the_game_goes_on():
    board = with_filler({(6, 6): "JD", (5, 6): "KC", (10, 10): "QD"})
    line = Line(step2_state(board=board, pools={1: ["4S", "5C", "8H"]}, current=0))
    line.play(_confront("JD", "KC"))
    assert _losers(line, ("JD", "KC")) == {("JD",)} and line.python.outcome == ONGOING


def test_scripted_ace_coin_removes_the_defender_or_nobody():
    """An Ace aggressor flips a coin: heads removes the defender, tails nobody (both occur over
    the copies, each Python copy given its twin copy's coin)."""
    board = with_filler({(9, 3): "AD", (6, 6): "KC", (12, 9): "JD", (11, 9): "5S", (0, 6): "JC"})
    line = Line(step2_state(board=board, current=0))
    line.play(_confront("AD", "KC"))
    assert _losers(line, ("AD", "KC")) == {("KC",), ()} and line.coins == BATCH


@pytest.mark.parametrize("aggressor", [0, 1])
def test_scripted_tie_broken_by_suit_order(aggressor):
    """KH and KS both of value 7: spades wins, whoever is the aggressor, with no coin."""
    board = with_filler({(6, 6): "KH", (5, 6): "KS", (12, 6): "JD", (0, 6): "JC"})
    pools = {0: ["4H", "3D", "10C"], 1: ["5C", "2S", "9H"]}
    line = Line(step2_state(board=board, pools=pools, current=aggressor))
    line.play(_confront("KH", "KS") if aggressor == 0 else _confront("KS", "KH"))
    assert _losers(line, ("KH", "KS")) == {("KH",)} and line.coins == 0


def test_scripted_tie_goes_to_a_coin_without_a_suit_order():
    board = with_filler({(6, 6): "KH", (5, 6): "KS", (12, 6): "JD", (0, 6): "JC"})
    pools = {0: ["4H", "3D"], 1: ["5C", "2S"]}
    config = MapDuelConfig(**VARIANT)
    line = Line(step2_state(config, board=board, pools=pools, current=0), VARIANT)
    line.play(_confront("KH", "KS"))
    assert _losers(line, ("KH", "KS")) == {("KH",), ("KS",)} and line.coins == BATCH


def test_scripted_jack_versus_queen_tie():
    """A Jack (5) against QH of value 5: JC loses on the suit order, JS wins."""
    for jack, loser in (("JC", "JC"), ("JS", "QH")):
        board = with_filler({(5, 6): jack, (6, 6): "QH", (12, 6): "JD", (0, 3): "KC"})
        line = Line(step2_state(board=board, pools={0: ["3H", "2H", "9D"]}, current=1))
        line.play(_confront(jack, "QH"))
        assert _losers(line, (jack, "QH")) == {(loser,)}


@pytest.mark.parametrize(
    "attacker, defender, flags, coin",
    [
        ("JD", "JS", {}, True),  # pairwise: diamonds below spades: the low-suit Jack's coin
        ("JS", "JD", {}, False),  # the high suit attacks: the aggressor wins
        ("JC", "JD", {}, True),
        ("JH", "JS", VARIANT, False),  # major_minor: hearts is high
        ("JD", "JS", VARIANT, True),
    ],
)
def test_scripted_jack_versus_jack(attacker, defender, flags, coin):
    seat = face(attacker)[0]
    a_pos, d_pos = ((6, 6), (5, 6)) if seat == 0 else ((5, 6), (6, 6))
    board = with_filler({a_pos: attacker, d_pos: defender, (12, 6): "KD", (0, 6): "KC"})
    line = Line(step2_state(MapDuelConfig(**flags), board=board, current=seat), flags)
    line.play(_confront(attacker, defender))
    if coin:
        assert _losers(line, (attacker, defender)) == {(attacker,), (defender,)} and line.coins == BATCH
    else:
        assert _losers(line, (attacker, defender)) == {(defender,)} and line.coins == 0


def test_scripted_anything_beats_an_ace_it_confronts():
    board = with_filler({(5, 6): "KC", (6, 6): "AD", (12, 6): "JD"})
    line = Line(step2_state(board=board, current=1))
    line.play(_confront("KC", "AD"))
    assert _losers(line, ("KC", "AD")) == {("AD",)} and line.coins == 0


@pytest.mark.parametrize("flags", [{}, VARIANT], ids=["coin", "aggressor_wins"])
def test_scripted_ace_versus_ace(flags):
    board = with_filler({(9, 3): "AD", (6, 6): "AC", (12, 9): "JD", (0, 9): "JC"})
    line = Line(step2_state(MapDuelConfig(**flags), board=board, current=0), flags)
    line.play(_confront("AD", "AC"))
    if flags:
        assert _losers(line, ("AD", "AC")) == {("AC",)} and line.coins == 0
    else:
        assert _losers(line, ("AD", "AC")) == {("AC",), ()} and line.coins == BATCH


def test_scripted_swaps_with_an_ace_and_a_neighbour():
    board = with_filler({(6, 6): "KD", (5, 6): "5C", (6, 7): "JC", (2, 2): "AH", (0, 6): "KC", (1, 6): "4D"})
    line = Line(build_state(board=board, current=0))
    line.play(L.swap_ace_index(fidx("KD"), 1))
    assert line.python.face_pos[0][fidx("KD")] == 2 * B + 2 and line.python.face_pos[0][fidx("AH")] == 6 * B + 6
    line.end_turn()
    line.play(L.swap_adj_index(fidx("KC"), FORWARD))  # player_1's King, forward is south
    assert line.python.current == 1


def _sacrifice_position(config=None, extra=None, pool=("3H",)):
    board = with_filler(
        {(6, 6): "QH", (5, 6): "4C", (4, 6): "5S", (3, 6): "6C", (2, 6): "7S", (10, 10): "KD", (0, 9): "KC"}
    )
    board.update(extra or {})
    return build_state(config, board=board, pools={0: list(pool)}, current=0)


def test_scripted_sacrifice_with_a_choice_of_face_moves_and_stop():
    line = Line(_sacrifice_position(extra={(8, 8): "KH"}))
    line.play(rules.pool_action(line.python, num("3H")))
    assert line.python.phase == Phase.SACRIFICE_FACE
    line.play(L.face_index(fidx("QH")))
    line.play(L.move_index(FORWARD))
    line.play(L.move_index(FORWARD))
    line.play(L.index(Kind.STOP))
    assert line.python.phase == Phase.STEP_2 and line.python.removed_numbers[num("3H")] == 1


def test_scripted_sacrifice_runs_out_of_moves():
    line = Line(_sacrifice_position())
    line.play(rules.pool_action(line.python, num("3H")))
    for _ in range(3):
        line.play(L.move_index(FORWARD))
    assert line.python.phase == Phase.STEP_2


def test_scripted_sacrifice_chain_ends_without_an_adjacent_number_card():
    line = Line(_sacrifice_position(extra={(8, 8): "KH"}))
    line.play(rules.pool_action(line.python, num("3H")))
    line.play(L.face_index(fidx("KH")))
    assert line.python.phase == Phase.STEP_2


def test_scripted_exact_sacrifice():
    """With ``sacrifice_exact`` STOP is masked while swaps remain (the masks are compared)."""
    line = Line(_sacrifice_position(MapDuelConfig(**VARIANT)), VARIANT)
    line.play(rules.pool_action(line.python, num("3H")))
    line.play(L.move_index(FORWARD))
    assert L.index(Kind.STOP) not in rules.legal_actions(line.python)
    line.play(L.move_index(BACK))
    line.play(L.move_index(FORWARD))
    assert line.python.phase == Phase.STEP_2


def _pay_position(pool, config=None):
    return build_state(config, board=with_filler({(6, 6): "KD", (0, 6): "KC"}), pools={0: pool}, current=0)


def test_scripted_exact_sum_spending_masks_what_would_leave_the_sum_unreachable():
    """A Jack costs 7 from {6, 4, 3, 5D}: POOL(6C) is masked at the start (no card makes 1), and
    after 4S only 3C is legal (the masks of every step are compared with the Python rules')."""
    line = Line(_pay_position(["6C", "4S", "3C", "5D"]))
    line.play(L.face_index(fidx("JH")))
    line.play(cell_action(line.python, 0, 5, 6))
    assert line.python.phase == Phase.PLACE_PAY
    assert rules.pool_action(line.python, num("6C")) not in rules.legal_actions(line.python)
    line.play(rules.pool_action(line.python, num("4S")))
    assert rules.legal_actions(line.python) == [rules.pool_action(line.python, num("3C"))]
    line.play(rules.pool_action(line.python, num("3C")))
    assert line.python.phase == Phase.STEP_2


def test_scripted_an_ace_is_paid_with_two_primes():
    line = Line(_pay_position(["2C", "9S", "5C"]))
    line.play(L.face_index(fidx("AD")))
    line.play(cell_action(line.python, 0, 6, 7))
    assert rules.pool_action(line.python, num("9S")) not in rules.legal_actions(line.python)
    line.play(rules.pool_action(line.python, num("5C")))
    line.play(rules.pool_action(line.python, num("2C")))
    assert line.python.phase == Phase.STEP_2 and line.python.face_pos[0][fidx("AD")] == 6 * B + 7


def test_scripted_a_king_reaches_diagonals_under_king8():
    """KD (value 9) confronts the Jack on its diagonal; a Queen never reaches diagonals."""
    board = with_filler({(6, 6): "KD", (5, 5): "JC", (7, 7): "QC", (8, 2): "QD", (7, 3): "KC"})
    line = Line(step2_state(MapDuelConfig(**KING8), board=board, pools={0: ["9D"]}, current=0), env_id=KING8_ID)
    assert _confront("QD", "KC") not in rules.legal_actions(line.python)
    line.play(_confront("KD", "JC"))
    assert _losers(line, ("KD", "JC")) == {("JC",)}


@pytest.mark.parametrize("flags", [{}, KING8, VARIANT], ids=["none", "faces", "cards"])
def test_scripted_ace_diagonals_and_what_blocks_them(flags):
    """An Ace at (9,3) looks along its diagonal past 5H (a number card), JC (a face) to KC: with
    no blocking it reaches both, faces stop it at JC, cards at 5H (the masks compared)."""
    board = with_filler({(9, 3): "AD", (8, 4): "5H", (7, 5): "JC", (6, 6): "KC", (12, 0): "3C"})
    env_id, flags_of_line = (KING8_ID, None) if flags == KING8 else (MAP_DUEL, flags)
    line = Line(step2_state(MapDuelConfig(**flags), board=board, current=0), flags_of_line, env_id=env_id)
    legal = set(rules.legal_actions(line.python))
    reach = {card for card in ("JC", "KC") if _confront("AD", card) in legal}
    assert reach == {"none": {"JC", "KC"}, "faces": {"JC"}, "cards": set()}[flags.get("ace_blocking", "none")]
    if reach:
        line.play(_confront("AD", max(reach)))  # KC where it is reached, else JC


def test_scripted_colour_victory_for_player_0():
    board = {
        (5, 6): "5C", (6, 6): "KD", (3, 3): "2D", (3, 4): "3H", (9, 9): "4D",
        (10, 10): "JD", (10, 11): "6H", (0, 6): "JC",
    }  # fmt: skip
    line = Line(step2_state(board=board, current=0))
    rewards = line.play(L.consume_index(fidx("KD"), FORWARD))
    assert (rewards == [1.0, -1.0]).all() and line.python.winner == 0


def test_scripted_colour_victory_for_player_1():
    board = {
        (6, 6): "5D", (5, 6): "KC", (3, 3): "2C", (3, 4): "3S", (9, 9): "4C",
        (10, 10): "JD", (10, 11): "6S",
    }  # fmt: skip
    line = Line(step2_state(board=board, current=1))
    rewards = line.play(L.consume_index(fidx("KC"), FORWARD))  # player_1's forward is south
    assert (rewards == [-1.0, 1.0]).all() and line.python.winner == 1


def test_scripted_the_last_enemy_face_removed_wins():
    board = with_filler({(6, 6): "KD", (5, 6): "QC"})
    line = Line(step2_state(board=board, pools={0: ["9D"]}, current=0))
    rewards = line.play(_confront("KD", "QC"))
    assert (rewards == [1.0, -1.0]).all() and line.python.outcome == WON


def test_scripted_losing_the_last_face_as_aggressor_loses():
    board = with_filler({(6, 6): "JD", (5, 6): "KC"})
    line = Line(step2_state(board=board, pools={1: ["4S", "5C", "8H"]}, current=0))
    rewards = line.play(_confront("JD", "KC"))
    assert (rewards == [-1.0, 1.0]).all() and line.python.winner == 1


def test_scripted_a_win_and_a_loss_at_once_is_a_draw():
    board = {(6, 6): "JD", (5, 6): "KC", (9, 9): "4D", (9, 10): "5H"}
    line = Line(step2_state(board=board, pools={1: ["9C"]}, current=0))
    rewards = line.play(_confront("JD", "KC"))
    assert (rewards == 0).all() and line.python.outcome == DRAW and all(line.finished)


def _idle_board():
    return {(6, 6): "KD", (5, 6): "5C", (2, 2): "KC", (3, 2): "4D", (9, 9): "9H", (1, 10): "9S"}


def test_scripted_no_progress_draw():
    """``no_progress_turns=3``: three idle turns (passes) draw the game."""
    line = Line(build_state(MapDuelConfig(**VARIANT), board=_idle_board(), current=0), VARIANT)
    for _ in range(3):
        assert line.python.phase != Phase.OVER
        line.end_turn()
    assert line.python.outcome == DRAW and all(line.finished)


def test_scripted_length_limit_truncates():
    """``length_limit=20``: the turn after the 20th is never begun: the game is truncated."""
    line = Line(build_state(MapDuelConfig(**VARIANT), board=_idle_board(), current=0, turn=19), VARIANT)
    line.end_turn()
    assert line.python.phase != Phase.OVER and line.python.turn == 20
    line.end_turn()
    assert line.python.outcome == TRUNCATED and all(line.finished)
    assert not bool(np.asarray(line.state.terminated).any()) and bool(np.asarray(line.state.truncated).all())


def test_scripted_step_2_ends_by_itself_when_only_end_turn_is_left():
    board = with_filler({(6, 6): "KD", (0, 6): "KC", (1, 6): "4D"})
    line = Line(build_state(board=board, current=0, turn=1))
    line.play(L.index(Kind.PASS_STEP1))
    assert line.python.current == 1 and line.python.phase == Phase.STEP_1 and line.python.turn == 2


def test_scripted_consume_then_build():
    board = with_filler({(6, 6): "KD", (5, 6): "5C", (5, 7): "JD", (0, 6): "KC", (3, 3): "9H"})
    line = Line(step2_state(board=board, current=0))
    line.play(L.consume_index(fidx("KD"), FORWARD))
    line.play(L.build_index(fidx("JD"), LEFT))
    line.play(rules.pool_action(line.python, num("5C")))
    assert line.python.board[5 * B + 6] == num("5C")


# --------------------------------------------------------------------------- planted differences


@pytest.fixture(scope="module")
def twin():
    return compiled(MAP_DUEL, BATCH)


def _other_seat_views(views, current, change):
    """``views`` ``[batch, 2, obs]`` with the view of the seat NOT to act replaced by
    ``change(views, current)`` (the seat to act's view kept, so ``state.observation`` agrees)."""
    other = (1 - current)[:, None, None]
    seats = jnp.arange(2)[None, :, None]
    return jnp.where(seats == other, change(views, current), views)


def test_the_harness_catches_a_leak_in_the_view_of_the_seat_not_to_act(twin):
    """One entry of seat 1's view, while seat 0 is to act, differs: caught at the first step."""

    def planted(state):
        views = twin.observe_seats(state)
        changed = views.at[:, 1, -1].add(1.0)
        return jnp.where((state.current_player == 0)[:, None, None], changed, views)

    with pytest.raises(Mismatch, match="observation of seat 1"):
        play_lockstep(MAP_DUEL, random_policy, 2, seed=1, twin=dataclasses.replace(twin, observe_seats=planted))


def test_the_harness_catches_a_view_not_turned_for_the_seat_not_to_act(twin):
    """Every seat shown the view of the seat to act (a rotation forgotten): caught."""
    planted = views_of_the_seat_to_act(twin.observe_seats)
    with pytest.raises(Mismatch, match=r"observation of seat [01]"):
        play_lockstep(MAP_DUEL, random_policy, 2, seed=2, twin=dataclasses.replace(twin, observe_seats=planted))


def _mover_only_rewards(step):
    """A step that forgets the reward of the seat not to act."""

    def planted(state, actions, keys):
        after = step(state, actions, keys)
        mover = state.current_player[:, None] == jnp.arange(2)[None, :]
        return after.replace(rewards=jnp.where(mover, after.rewards, 0.0))

    return planted


def test_the_harness_catches_a_wrong_reward_of_the_seat_not_to_act(twin):
    """player_0 wins by colour: player_1 (not to act) must receive -1; a twin that forgets it is
    caught, naming the seat."""
    board = {
        (5, 6): "5C", (6, 6): "KD", (3, 3): "2D", (3, 4): "3H", (9, 9): "4D",
        (10, 10): "JD", (10, 11): "6H", (0, 6): "JC",
    }  # fmt: skip
    line = Line(step2_state(board=board, current=0))
    line.twin = dataclasses.replace(twin, step=_mover_only_rewards(twin.step))
    with pytest.raises(Mismatch, match="seat 1: reward differs"):
        line.play(L.consume_index(fidx("KD"), FORWARD))


def test_the_harness_catches_a_wrong_shaping_reward_in_play():
    """With shaping, the seat not to act receives a reward at every change of the colour share:
    a twin that forgets it is caught in random play."""
    shaped = compiled(MAP_DUEL, BATCH, as_flags(VARIANT))
    planted = dataclasses.replace(shaped, step=_mover_only_rewards(shaped.step))
    with pytest.raises(Mismatch, match=r"seat [01]: reward differs"):
        play_lockstep(MAP_DUEL, random_policy, BATCH, seed=3, twin=planted)


def _ace_line():
    board = with_filler({(9, 3): "AD", (6, 6): "KC", (12, 9): "JD", (11, 9): "5S", (0, 6): "JC"})
    return Line(step2_state(board=board, current=0))


def test_the_harness_catches_a_coin_the_python_rules_were_not_given():
    line = _ace_line()
    line.twin = dataclasses.replace(line.twin, python_draws=lambda before, after: _draws(coins=[]))
    with pytest.raises(Mismatch, match="flipped a coin"):
        line.play(_confront("AD", "KC"))


def test_the_harness_catches_a_coin_the_python_rules_did_not_flip():
    """A step without a coin, for which the twin says it flipped one: caught as an unused draw."""
    board = with_filler({(6, 6): "KH", (6, 7): "QS", (0, 6): "JC"})
    line = Line(step2_state(board=board, pools={0: ["5H", "4D"], 1: ["6S"]}, current=0))
    line.twin = dataclasses.replace(line.twin, python_draws=lambda before, after: _draws(coins=[True]))
    with pytest.raises(Mismatch, match="the Python rules did not"):
        line.play(_confront("KH", "QS"))


def test_the_harness_catches_a_coin_read_the_other_way():
    line = _ace_line()
    honest = line.twin.python_draws

    def flipped(before, after):
        draws = honest(before, after)
        return _draws(coins=[not coin for coin in draws._coins])

    line.twin = dataclasses.replace(line.twin, python_draws=flipped)
    with pytest.raises(Mismatch):
        line.play(_confront("AD", "KC"))


def _draws(coins):
    from empire_envs.core.rng import PresetDraws

    return PresetDraws(coins=coins)


# --------------------------------------------------------------------------- the pgx-style env


@cache
def _env_and_batch():
    """The env, its compiled batch functions and a fresh batch (shared with the lockstep tests)."""
    twin = compiled(MAP_DUEL, BATCH)
    state = twin.init(jax.random.split(jax.random.PRNGKey(7), BATCH))
    return twin.env, twin, state


def _first(state):
    return jax.tree_util.tree_map(lambda leaf: leaf[0], state)


@cache
def _both_seats_to_act():
    """A batch whose even games have player_0 to act, odd ones player_1 (a fresh deal, and the
    same deal after player_0 placed the drawn card)."""
    _, twin, state = _env_and_batch()
    legal = np.array([np.flatnonzero(row)[0] for row in np.asarray(state.legal_action_mask)], dtype=np.int32)
    placed = twin.step(state, jnp.asarray(legal), jax.random.split(jax.random.PRNGKey(2), BATCH))
    odd = jnp.asarray(np.arange(BATCH) % 2 == 1)
    mixed = jax.tree_util.tree_map(
        lambda fresh, later: jnp.where(odd.reshape((BATCH,) + (1,) * (fresh.ndim - 1)), later, fresh), state, placed
    )
    assert np.array_equal(np.asarray(mixed.current_player), np.arange(BATCH) % 2)
    return mixed


def test_the_env_has_two_seats_and_observes_either():
    env, twin, _ = _env_and_batch()
    state = _both_seats_to_act()
    assert env.num_players == 2 and env.num_actions == L.size and env.observation_shape == (19 * B * B + 189,)
    assert state.rewards.shape == (BATCH, 2) and state.legal_action_mask.shape == (BATCH, L.size)
    views = np.asarray(twin.observe_seats(state))
    for game in (0, 1):
        one = jax.tree_util.tree_map(lambda leaf, game=game: leaf[game], state)
        assert one.rewards.shape == (2,) and int(one.current_player) == game
        for seat in (0, 1):
            for given in (seat, np.int64(seat), jnp.int32(seat)):
                assert np.array_equal(np.asarray(env.observe(one, given)), views[game, seat])
        assert not np.array_equal(views[game, 0], views[game, 1]), "each seat sees the game from its own side"
        assert np.array_equal(np.asarray(env.observe(one)), views[game, game]), "no seat: the seat to act"
        assert np.array_equal(np.asarray(one.observation), views[game, game])
    assert np.array_equal(np.asarray(state.observation), views[np.arange(BATCH), np.arange(BATCH) % 2])


def test_observe_takes_a_traced_seat_inside_jit():
    env, twin, state = _env_and_batch()
    seats = jnp.asarray(np.arange(BATCH) % 2, dtype=jnp.int32)
    views = jax.jit(jax.vmap(env.observe))(state, seats)
    expected = np.asarray(twin.observe_seats(state))[np.arange(BATCH), np.arange(BATCH) % 2]
    assert np.array_equal(np.asarray(views), expected)


def test_an_illegal_action_ends_the_game_mover_minus_one_other_plus_one():
    """As pgx's ``Env.step`` does in a game of two seats: an illegal action (no exception can be
    raised in a compiled step) ends the game, ``terminated``, outcome ``"illegal action"``, the
    seat that played it receiving -1 and the other seat +1; the finished state's mask is all
    ones."""
    env, twin, _ = _env_and_batch()
    state = _both_seats_to_act()
    mask = np.asarray(state.legal_action_mask)
    actions = np.array([np.flatnonzero(~row)[0] for row in mask], dtype=np.int32)
    after = twin.step(state, jnp.asarray(actions), jax.random.split(jax.random.PRNGKey(1), BATCH))
    mover = np.asarray(state.current_player)
    rewards = np.asarray(after.rewards)
    assert np.asarray(after.terminated).all() and not np.asarray(after.truncated).any()
    assert (rewards[np.arange(BATCH), mover] == -1.0).all() and (rewards[np.arange(BATCH), 1 - mover] == 1.0).all()
    assert {env.outcome(_first(after))} == {"illegal action"}
    assert np.asarray(after.legal_action_mask).all()
    for game in (0, 1):
        python = env.rules.to_python(jax.tree_util.tree_map(lambda leaf, game=game: leaf[game], after))
        assert python.outcome == WON and python.winner == 1 - game, "the Python view: the other seat won"


def test_a_step_on_a_finished_game_changes_nothing_and_pays_nothing():
    env, twin, state = _env_and_batch()
    mask = np.asarray(state.legal_action_mask)
    illegal = np.array([np.flatnonzero(~row)[0] for row in mask], dtype=np.int32)
    over = twin.step(state, jnp.asarray(illegal), jax.random.split(jax.random.PRNGKey(1), BATCH))
    again = twin.step(over, jnp.zeros(BATCH, dtype=jnp.int32), jax.random.split(jax.random.PRNGKey(2), BATCH))
    assert not np.asarray(again.rewards).any()
    assert np.asarray(again.legal_action_mask).all()
    for name in ("board", "pools", "face_status", "phase", "current_player", "outcome", "step_count", "observation"):
        assert np.array_equal(np.asarray(getattr(again, name)), np.asarray(getattr(over, name))), name


def test_reset_finished_deals_fresh_games_in_place_of_finished_ones():
    env, twin, state = _env_and_batch()
    mask = np.asarray(state.legal_action_mask)
    legal = np.array([np.flatnonzero(row)[0] for row in mask], dtype=np.int32)
    illegal = np.array([np.flatnonzero(~row)[0] for row in mask], dtype=np.int32)
    finish = np.arange(BATCH) % 3 == 0
    after = twin.step(
        state, jnp.asarray(np.where(finish, illegal, legal)), jax.random.split(jax.random.PRNGKey(3), BATCH)
    )
    assert np.array_equal(np.asarray(after.terminated), finish)
    fresh = jax.jit(lambda s, k: reset_finished(env, s, k, spare=BATCH // 3 + 1))(after, jax.random.PRNGKey(4))
    done = np.asarray(fresh.terminated) | np.asarray(fresh.truncated)
    assert not done.any()
    assert (np.asarray(fresh.step_count)[finish] == 0).all() and (np.asarray(fresh.step_count)[~finish] == 1).all()
    kept = ~finish
    for name in ("board", "deck_order", "observation"):
        assert np.array_equal(np.asarray(getattr(fresh, name))[kept], np.asarray(getattr(after, name))[kept]), name
    new_decks = {tuple(row) for row in np.asarray(fresh.deck_order)[finish]}
    old_decks = {tuple(row) for row in np.asarray(state.deck_order)}
    assert len(new_decks) == finish.sum() and not new_decks & old_decks, "fresh deals, each its own"


@pytest.fixture(scope="module")
def guarded():
    """The env over rules that fail the test when reached: a check raising with it raised before
    anything was traced or played."""

    def never(*args, **kwargs):
        raise AssertionError("the rules were reached: the input was not checked first")

    env, _, _ = _env_and_batch()
    return JaxEnv(env.id, dataclasses.replace(env.rules, step=never, init=never, observe=never))


@pytest.mark.parametrize(
    "action", [0.7, 1.0, True, np.bool_(False), np.float32(2.0), "3", None, jnp.float32(1.0)], ids=repr
)
def test_an_action_of_the_wrong_type_is_an_action_type_error(guarded, action):
    _, _, state = _env_and_batch()
    with pytest.raises(ActionTypeError, match=re.escape("an integer of shape ()")):
        guarded.step(_first(state), action, jax.random.PRNGKey(0))


@pytest.mark.parametrize(
    "action", [np.array([1, 2]), jnp.zeros(3, dtype=jnp.int32), np.zeros((1,), dtype=np.int64)], ids=repr
)
def test_an_action_of_the_wrong_shape_is_a_value_error(guarded, action):
    _, _, state = _env_and_batch()
    with pytest.raises(ValueError, match="shape"):
        guarded.step(_first(state), action, jax.random.PRNGKey(0))


@pytest.mark.parametrize("action", [np.int64(2**32), 2**31, -(2**31) - 1, 2**64], ids=repr)
def test_an_integer_int32_cannot_hold_is_a_value_error(guarded, action):
    _, _, state = _env_and_batch()
    with pytest.raises(ValueError, match="int32 cannot hold"):
        guarded.step(_first(state), action, jax.random.PRNGKey(0))


@pytest.mark.parametrize("seat", [2, -1, 1.5, True, "0", np.float32(1.0)], ids=repr)
def test_a_bad_seat_is_refused_before_the_rules_are_reached(guarded, seat):
    _, _, state = _env_and_batch()
    with pytest.raises((TypeError, ValueError), match="seat"):
        guarded.observe(_first(state), seat)


def test_a_gymnasium_vector_env_of_map_duel_is_refused_clearly():
    """A Gymnasium ``VectorEnv`` plays one seat: Map Duel's is refused, naming what to use."""
    with pytest.raises(ValueError, match=r"2 seats.*empire_envs\.jax\.make"):
        empire_jax.make_vec(MAP_DUEL, 4)


def test_twin_ids_list_the_map_duel_ids():
    assert set(MAP_DUEL_IDS) <= set(empire_jax.twin_ids())
