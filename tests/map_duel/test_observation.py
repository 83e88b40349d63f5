"""The vectorized Map Duel observation against a plain cell-by-cell reading of its docstring.

``observe`` builds the planes with one table lookup and the pool block with a matrix product;
this file re-derives every entry from the module's index tables the slow, obvious way, on states
of seeded random games (every phase occurs) and on the variants that change what is shown.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from empire_envs.games.map_duel import MapDuelConfig, observe, rules
from empire_envs.games.map_duel.state import (
    CARD_SLOT,
    EMPTY,
    FACE_BASE,
    NUM_FACES,
    NUM_NUMBER_CARDS,
    ON_MAP,
    SEAT_SUITS,
    SUIT_SLOT,
    Phase,
    face_suit,
    number_rank,
)


def reference_observation(state, seat: int) -> np.ndarray:
    B = state.B
    cells = B * B
    enemy = 1 - seat
    planes = np.zeros((observe.NUM_PLANES, cells), dtype=np.float32)
    hidden = state.hidden_face if state.hidden_face is not None and state.hidden_face[0] != seat else None
    own_turn = state.current == seat and state.phase != Phase.OVER
    for cell, code in enumerate(state.board):
        x = cell if seat == 0 else cells - 1 - cell
        if code == EMPTY:
            continue
        if code < FACE_BASE:
            suit = code // 9
            red = suit in SEAT_SUITS[0]
            planes[0, x] = 1
            planes[1 if red == (seat == 0) else 2, x] = 1
            planes[3, x] = number_rank(code) / 10
            planes[4 + SUIT_SLOT[seat][suit], x] = 1
            continue
        owner, face = divmod(code - FACE_BASE, NUM_FACES)
        if hidden is not None and (owner, face) == hidden:
            planes[17, x] = 1
            continue
        planes[4 + SUIT_SLOT[seat][face_suit(owner, face)], x] = 1
        planes[(8 if owner == seat else 12) + face % 4, x] = 1
        if owner == seat and own_turn:
            planes[16, x] = face in state.acted
            planes[18, x] = face == state.pending_face
    vector = np.zeros(observe.VECTOR_SIZE, dtype=np.float32)
    for n in range(NUM_NUMBER_CARDS):
        vector[CARD_SLOT[seat][n]] = state.pools[seat][n]
        if not state.config.hidden_pools:
            vector[36 + CARD_SLOT[seat][n]] = state.pools[enemy][n]
    for f in range(NUM_FACES):
        vector[72 + 3 * f + state.face_status[seat][f]] = 1
        vector[96 + 3 * f + (0 if hidden else state.face_status[enemy][f])] = 1

    def values(owner):  # King (both own suits), lower-suit Queen, higher-suit Queen
        per_suit = [sum(number_rank(n) for n in range(NUM_NUMBER_CARDS) if state.pools[owner][n] and n // 9 == s)
                    for s in range(4)]
        low, high = SEAT_SUITS[owner]
        return [per_suit[low] + per_suit[high], per_suit[low], per_suit[high]]

    vector[120:123] = values(seat)
    if not state.config.hidden_pools:
        vector[123:126] = values(enemy)
    if state.phase != Phase.OVER:
        vector[126 + state.phase] = 1
    if state.drawn >= 0:
        vector[136 + CARD_SLOT[seat][state.drawn]] = 1
    if own_turn:
        if state.pending_face >= 0:
            vector[172 + state.pending_face] = 1
        if state.phase == Phase.SACRIFICE_MOVE:
            vector[180] = state.moves_left
        if state.phase in (Phase.PLACE_CELL, Phase.PLACE_PAY) and state.pay_target:
            if state.pay_target == rules.ACE_PAYMENT:
                vector[182] = 1
            else:
                vector[181] = state.pay_target - sum(number_rank(n) for n in state.paid)
        vector[183] = state.step1_done
    vector[184] = seat == 0
    vector[185] = state.first == seat
    vector[186] = state.turn / state.config.length_limit
    vector[187] = state.no_progress / state.config.no_progress_turns
    vector[188] = sum(state.pools[enemy])
    return np.concatenate([planes.ravel(), vector])


CONFIGS = {
    "default": MapDuelConfig(),
    "hidden_pools": MapDuelConfig(hidden_pools=True),
    "board_9_random_first": MapDuelConfig(board_size=9, first_player="random"),
}


@pytest.mark.parametrize("name", sorted(CONFIGS))
def test_observation_matches_the_cell_by_cell_reading(name):
    config = CONFIGS[name]
    phases_seen = set()
    for game in range(4):
        rng = np.random.default_rng(game)
        choose = random.Random(game).choice
        state = rules.new_game(config, rng)
        for _ in range(400):
            phases_seen.add(state.phase)
            for seat in (0, 1):
                got = observe.observe(state, seat)
                expected = reference_observation(state, seat)
                assert got.dtype == np.float32 and got.shape == expected.shape
                differs = np.flatnonzero(got != expected)
                assert differs.size == 0, (
                    f"game {game}, phase {state.phase}, seat {seat}: entries {differs[:10]} differ"
                )
            if rules.is_terminal(state):
                break
            rules.apply_action(state, choose(rules.legal_actions(state)), rng)
    assert len(phases_seen) >= 7, phases_seen  # the setup, both steps and several sub-decisions


def test_face_down_starting_card_shows_only_as_unknown():
    state = rules.new_game(MapDuelConfig(), np.random.default_rng(3))
    choose = random.Random(3).choice
    while state.hidden_face is None:
        rules.apply_action(state, choose(rules.legal_actions(state)), np.random.default_rng(0))
    owner, face = state.hidden_face
    other = 1 - owner
    assert state.face_status[owner][face] == ON_MAP
    np.testing.assert_array_equal(observe.observe(state, other), reference_observation(state, other))
    np.testing.assert_array_equal(observe.observe(state, owner), reference_observation(state, owner))
    cells = state.B * state.B
    planes = observe.observe(state, other)[: observe.NUM_PLANES * cells].reshape(observe.NUM_PLANES, cells)
    assert planes[17].sum() == 1 and planes[8:16].sum() == 0
