"""Properties of Map Duel over random masked games (design, tests layer 4): the egocentric
symmetry of the observation, card conservation, the end within ``length_limit``, rewards as ruled.
``make test`` plays a sample; ``pytest -m soak`` plays the issue's 2,000 games."""

from __future__ import annotations

import numpy as np
import pytest

from empire_envs.games.map_duel import rules
from empire_envs.games.map_duel.config import MapDuelConfig
from empire_envs.games.map_duel.observe import LAYOUT, observe
from empire_envs.games.map_duel.state import (
    CLUBS,
    DIAMONDS,
    EMPTY,
    FACE_BASE,
    HEARTS,
    NUM_FACES,
    NUM_NUMBER_CARDS,
    SPADES,
    TRUNCATED,
    WON,
    MapDuelState,
)

#: the colour swap: each red suit becomes the black suit of the same rank in its colour pair
SWAP_SUIT = {DIAMONDS: CLUBS, HEARTS: SPADES, CLUBS: DIAMONDS, SPADES: HEARTS}
I_AM_RED = LAYOUT.start("scalars")


def swap_card(n: int) -> int:
    return SWAP_SUIT[n // 9] * 9 + n % 9


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
    rng = np.random.default_rng(seed)
    state = rules.new_game(config, rng)
    totals = [0.0, 0.0]
    steps = 0
    while not rules.is_terminal(state):
        legal = rules.legal_actions(state)
        assert legal
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
    return {"outcome": state.outcome, "steps": steps, "turns": state.turn}


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
          f"mean {np.mean([s['turns'] for s in summaries]):.0f} turns")
    assert counts["won"] > 0
