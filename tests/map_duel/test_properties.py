"""Properties of Map Duel over random masked games (design, tests layer 4): the egocentric
symmetry of the observation, card conservation, the end within ``length_limit``, rewards as ruled.
``make test`` plays a sample; ``pytest -m soak`` plays the issue's 2,000 games."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from empire_envs.core.cards import CLUBS, DIAMONDS, HEARTS, SPADES
from empire_envs.games.map_duel import rules
from empire_envs.games.map_duel.actions import layout_for
from empire_envs.games.map_duel.config import MapDuelConfig
from empire_envs.games.map_duel.observe import LAYOUT, observe
from empire_envs.games.map_duel.state import (
    EMPTY,
    FACE_BASE,
    NUM_FACES,
    NUM_NUMBER_CARDS,
    TRUNCATED,
    WON,
    MapDuelState,
    Phase,
    number_id,
    number_rank,
    number_suit,
)
from empire_envs.registry import ENTRIES

from .helpers import BACK, FORWARD, LEFT, NoCoin, build_state, fidx, num
from .helpers import cell as cell_at

#: the colour swap: each red suit becomes the black suit of the same rank in its colour pair
SWAP_SUIT = {DIAMONDS: CLUBS, HEARTS: SPADES, CLUBS: DIAMONDS, SPADES: HEARTS}
I_AM_RED = LAYOUT.start("scalars")


def swap_card(n: int) -> int:
    return number_id(SWAP_SUIT[number_suit(n)], number_rank(n))


def mirror(state: MapDuelState) -> MapDuelState:
    """The position turned 180 degrees with the colours swapped: each seat takes the other's
    place, pieces and pool, with every suit replaced by its counterpart of the other colour."""
    m = state.clone()
    last = state.B * state.B - 1
    flip = lambda cell: last - cell if cell >= 0 else -1  # noqa: E731
    m.board = [EMPTY] * len(state.board)
    for cell, code in enumerate(state.board):
        if code == EMPTY:
            continue
        if code < FACE_BASE:
            m.board[last - cell] = swap_card(code)
        else:
            owner, face = divmod(code - FACE_BASE, NUM_FACES)
            m.board[last - cell] = FACE_BASE + NUM_FACES * (1 - owner) + face
    m.face_pos = [[flip(c) for c in state.face_pos[1 - p]] for p in range(2)]
    m.face_status = [state.face_status[1 - p][:] for p in range(2)]
    m.pools = [[0] * NUM_NUMBER_CARDS for _ in range(2)]
    for p in range(2):
        for n in range(NUM_NUMBER_CARDS):
            if state.pools[p][n]:
                m.pools[1 - p][swap_card(n)] = 1
    m.removed_numbers = [0] * NUM_NUMBER_CARDS
    for n in range(NUM_NUMBER_CARDS):
        if state.removed_numbers[n]:
            m.removed_numbers[swap_card(n)] = 1
    m.setup_deck = [swap_card(n) for n in state.setup_deck]
    m.drawn = swap_card(state.drawn) if state.drawn >= 0 else -1
    m.current, m.first = 1 - state.current, 1 - state.first
    m.winner = 1 - state.winner if state.winner >= 0 else -1
    m.pending_cell, m.build_cell = flip(state.pending_cell), flip(state.build_cell)
    m.paid = [swap_card(n) for n in state.paid]
    if state.hidden_face is not None:
        m.hidden_face = (1 - state.hidden_face[0], state.hidden_face[1])
    return m


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_mirrored_position_looks_the_same_to_the_other_seat(seed):
    """A position and its 180-degree mirror with colours swapped give the two seats the same
    observation (all but the "I am red" scalar) and the same mask, at every step of a game."""
    config = MapDuelConfig(length_limit=40)
    rng = np.random.default_rng(seed)
    state = rules.new_game(config, rng)
    checked = 0
    while not rules.is_terminal(state):
        twin = mirror(state)
        assert twin.card_count() == 52
        for seat in (0, 1):
            mine, theirs = observe(state, seat), observe(twin, 1 - seat)
            different = np.flatnonzero(mine != theirs)
            assert list(different) == [I_AM_RED], (seat, state.phase, different[:10])
        assert np.array_equal(rules.legal_mask(state), rules.legal_mask(twin))
        checked += 1
        legal = rules.legal_actions(state)
        rules.apply_action(state, legal[int(rng.integers(len(legal)))], rng)
    assert checked > 100


def play_random_game(config: MapDuelConfig, seed: int) -> dict:
    """A seeded masked random game, checked as it goes; its outcome, decisions and turns, and the
    most decisions any one turn took."""
    rng = np.random.default_rng(seed)
    state = rules.new_game(config, rng)
    totals = [0.0, 0.0]
    steps = 0
    decisions_in_turn: Counter[int] = Counter()  # turn 0 is the setup
    while not rules.is_terminal(state):
        legal = rules.legal_actions(state)
        assert legal
        decisions_in_turn[state.turn] += 1
        rewards = rules.apply_action(state, legal[int(rng.integers(len(legal)))], rng)
        totals = [t + r for t, r in zip(totals, rewards, strict=True)]
        steps += 1
        assert state.card_count() == 52, "cards were created or lost"
        assert state.turn <= config.length_limit
    assert totals == pytest.approx(rules.final_rewards(state))
    if state.outcome == WON:
        assert sorted(totals) == [-1.0, 1.0]
    elif state.outcome == TRUNCATED:
        assert state.turn == config.length_limit
    assert decisions_in_turn[0] == rules.SETUP_DECISIONS
    busiest = max(count for turn, count in decisions_in_turn.items() if turn > 0)
    assert busiest <= rules.TURN_DECISIONS
    assert steps <= rules.max_game_length(config)
    return {"outcome": state.outcome, "steps": steps, "turns": state.turn, "busiest turn": busiest}


def test_random_games_sample():
    outcomes = [play_random_game(MapDuelConfig(), seed)["outcome"] for seed in range(20)]
    assert WON in outcomes, "no random game was won: the win path is unreachable"


@pytest.mark.soak
def test_random_games_soak():
    summaries = [play_random_game(MapDuelConfig(), 10_000 + seed) for seed in range(2000)]
    counts = {name: sum(s["outcome"] == value for s in summaries)
              for name, value in (("won", WON), ("truncated", TRUNCATED))}
    counts["draw"] = len(summaries) - counts["won"] - counts["truncated"]
    print(f"2000 games: {counts}, mean {np.mean([s['steps'] for s in summaries]):.0f} decisions, "
          f"mean {np.mean([s['turns'] for s in summaries]):.0f} turns, "
          f"busiest turn {max(s['busiest turn'] for s in summaries)} decisions")
    assert counts["won"] > 0


# --------------------------------------------------------------------------- the length bound

#: every registered Map Duel id's settings, and the flags that change what a turn may hold
BOUND_VARIANTS = {
    **{item.env_id.split("/")[-1]: dict(item.kwargs) for item in ENTRIES if item.game == "map_duel"},
    "exact sacrifices, built cards placed by the rule": {"sacrifice_exact": True, "build_uses_placement_rule": True},
    "board 9, any neighbour, cards block Aces": {
        "board_size": 9, "placement_rule": "any_neighbour", "ace_blocking": "cards", "first_player": 1,
    },
    "board 25": {"board_size": 25},
}


@pytest.mark.parametrize("name", sorted(BOUND_VARIANTS))
def test_random_games_of_every_variant_stay_within_max_game_length(name):
    """The setup takes ``SETUP_DECISIONS`` decisions, no turn more than ``TURN_DECISIONS``, and a
    game no more than ``max_game_length`` (``play_random_game`` checks each)."""
    config = MapDuelConfig(**{"length_limit": 80, **BOUND_VARIANTS[name]})
    busiest = [play_random_game(config, seed)["busiest turn"] for seed in range(4)]
    assert max(busiest) > 1  # turns with several decisions were played


def test_max_game_length_docstring_states_its_terms():
    doc = " ".join((rules.max_game_length.__doc__ or "").split())
    terms = f"{rules.SETUP_DECISIONS} + {rules.TURN_DECISIONS} * length_limit"
    assert terms in doc
    assert f"step 1 at most {rules.STEP_1_DECISIONS}" in doc and f"step 2 at most {rules.STEP_2_DECISIONS}" in doc
    assert rules.max_game_length(MapDuelConfig(length_limit=7)) == rules.SETUP_DECISIONS + 7 * rules.TURN_DECISIONS
    page = " ".join((Path(__file__).parents[2] / "docs" / "rules" / "map_duel.md").read_text().split())
    assert f"at most `{terms}` decisions" in page


def test_a_scripted_turn_takes_every_decision_a_turn_may_take():
    """The per-turn term is reached: red has all 8 faces on the map and sacrifices a 10 (the
    card, which hearts face moves, ten swaps back and forth), then every face builds (BUILD and
    the card, 8 times); the turn ends by itself after the last build."""
    board = {
        (8, 1): "JH", (8, 4): "QH", (8, 7): "KH", (8, 10): "AH",
        (2, 1): "JD", (2, 4): "QD", (2, 7): "KD", (2, 10): "AD",
        (9, 1): "9D", (12, 12): "4C", (0, 12): "KS",
    }
    builds = ["2C", "3C", "5C", "6C", "2S", "3S", "5S", "6S"]
    state = build_state(board=board, pools={0: ["10H", *builds]})
    lay = layout_for(state.B)
    jack = fidx("JH")
    decisions = 0

    def play(action: int) -> None:
        nonlocal decisions
        assert rules.is_legal(state, action), lay.name(action, state.current)
        rules.apply_action(state, action, NoCoin())
        decisions += 1

    play(rules.pool_action(state, num("10H")))
    assert state.phase == Phase.SACRIFICE_FACE
    play(lay.face_index(jack))
    for swap in range(10):
        assert state.phase == Phase.SACRIFICE_MOVE and state.moves_left == 10 - swap
        play(lay.move_index(BACK if swap % 2 == 0 else FORWARD))  # onto the 9D below, and back
    assert state.phase == Phase.STEP_2 and state.face_pos[0][jack] == cell_at(8, 1)
    for card in ("JH", "QH", "KH", "AH", "JD", "QD", "KD", "AD"):
        play(lay.build_index(fidx(card), LEFT))
        play(rules.pool_action(state, num(builds.pop())))
    assert state.current == 1 and state.turn == 2 and state.phase == Phase.STEP_1  # ended by itself
    assert decisions == rules.TURN_DECISIONS == 28
