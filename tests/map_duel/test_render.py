"""Map Duel pictures: ``to_text`` (a spectator's or one seat's view) and ``to_rgb`` (the
spectator's image)."""

from __future__ import annotations

import copy
import time

import numpy as np
import pytest

from empire_envs.core.cards import CLUBS, DIAMONDS, HEARTS, SPADES
from empire_envs.games.map_duel import render, rules
from empire_envs.games.map_duel.config import MapDuelConfig
from empire_envs.games.map_duel.state import (
    EMPTY,
    ON_MAP,
    REMOVED,
    WON,
    MapDuelState,
    Phase,
    face_code,
    number_id,
)

JD, QD, KD, AD, JH, QH, KH, AH = range(8)  # red's own face indices (black's: C for D, S for H)


def _put_face(state: MapDuelState, seat: int, face: int, row: int, col: int) -> None:
    cell = row * state.B + col
    state.board[cell] = face_code(seat, face)
    state.face_pos[seat][face] = cell
    state.face_status[seat][face] = ON_MAP


def _hand_built(config: MapDuelConfig | None = None) -> MapDuelState:
    """Step 2 of player_0's turn 5 on a small map: 9D, 10H, 4C, 7S; red's QH (acted) and black's
    KS on the map, red's JD removed; pools on both sides, one card removed from the game."""
    state = MapDuelState(config or MapDuelConfig())
    B = state.B
    for (row, col), n in {
        (6, 6): number_id(DIAMONDS, 9), (6, 7): number_id(HEARTS, 10),
        (5, 6): number_id(CLUBS, 4), (6, 5): number_id(SPADES, 7),
    }.items():
        state.board[row * B + col] = n
    _put_face(state, 0, QH, 7, 6)
    _put_face(state, 1, KH, 5, 7)  # black's index 6: the King of spades
    state.face_status[0][JD] = REMOVED
    state.pools[0][number_id(HEARTS, 5)] = 1
    state.pools[0][number_id(CLUBS, 3)] = 1
    state.pools[1][number_id(SPADES, 8)] = 1
    state.removed_numbers[number_id(DIAMONDS, 2)] = 1
    state.phase = Phase.STEP_2
    state.current = 0
    state.turn = 5
    state.step1_done = True
    state.acted = {QH}
    return state


def _grid(text: str, B: int) -> list[list[str]]:
    """The board part of ``to_text``: its last ``B`` lines, split into cells."""
    return [line.split()[1:] for line in text.splitlines()[-B:]]


def _play_until(state: MapDuelState, rng: np.random.Generator, stop) -> MapDuelState:
    while state.phase != Phase.OVER and not stop(state):
        rules.apply_action(state, int(rng.choice(rules.legal_actions(state))), rng)
    return state


def _face_down_state(seed: int = 0, config: MapDuelConfig | None = None) -> MapDuelState:
    """A real game right after the first starting face went down, face down."""
    rng = np.random.default_rng(seed)
    state = rules.new_game(config or MapDuelConfig(), rng)
    state = _play_until(state, rng, lambda s: s.setup_faces_placed == 1)
    assert state.phase == Phase.SETUP_FACE and state.hidden_face is not None
    return state


def _random_states(config: MapDuelConfig, seed: int, every: int = 7, limit: int = 1500):
    """States of one random game, every ``every`` actions, and its last one."""
    rng = np.random.default_rng(seed)
    state = rules.new_game(config, rng)
    count = 0
    while state.phase != Phase.OVER and count < limit:
        if count % every == 0:
            yield state.clone()
        rules.apply_action(state, int(rng.choice(rules.legal_actions(state))), rng)
        count += 1
    yield state


# --------------------------------------------------------------------------- text


def test_text_grid_of_a_hand_built_state():
    state = _hand_built()
    text = render.to_text(state)
    grid = _grid(text, state.B)
    assert grid[6][6] == "9D" and grid[6][7] == "10H" and grid[5][6] == "4C" and grid[6][5] == "7S"
    assert grid[7][6] == "^QH"  # player_0's face, facing north
    assert grid[5][7] == "vKS"  # player_1's face, facing south
    assert sum(cell == "." for row in grid for cell in row) == state.B * state.B - 6
    assert "phase step 2" in text and "to act player_0" in text and "turn 5/300" in text
    assert "pool 2 [3C 5H]" in text and "pool 1 [8S]" in text
    assert "QH*" in text  # acted this turn
    assert "removed [JD]" in text
    assert "1 number cards [2D]" in text


def test_text_works_on_a_fresh_game():
    state = rules.new_game(MapDuelConfig(), np.random.default_rng(3))
    assert state.phase == Phase.SETUP_PLACE
    text = render.to_text(state)
    grid = _grid(text, state.B)
    centre = state.B // 2
    assert grid[centre][centre] not in (".", "??")
    assert sum(cell != "." for row in grid for cell in row) == 1
    assert "drawn " in text and "deck 34 left" in text


def test_face_down_card_is_hidden_from_the_other_seat_only():
    state = _face_down_state()
    owner, face = state.hidden_face
    cell = state.face_pos[owner][face]
    row, col = divmod(cell, state.B)
    mark = render.OWNER_MARKS[owner]
    name = render.face_str(owner, face)
    other = _grid(render.to_text(state, viewer=1 - owner), state.B)[row][col]
    mine = _grid(render.to_text(state, viewer=owner), state.B)[row][col]
    spectator = _grid(render.to_text(state), state.B)[row][col]
    assert other == mark + "??"
    assert mine == spectator == mark + name.lower()
    assert name not in render.to_text(state, viewer=1 - owner).split("map [", 2)[1 + owner].split("]")[0]
    # Once both starting faces are down, both are revealed.
    rng = np.random.default_rng(1)
    _play_until(state, rng, lambda s: s.phase == Phase.STEP_1)
    assert state.hidden_face is None
    for viewer in (None, 0, 1):
        text = render.to_text(state, viewer=viewer)
        assert "??" not in text
        assert _grid(text, state.B)[row][col] == mark + name


def test_hidden_pools_show_only_a_size_to_the_other_seat():
    state = _hand_built(MapDuelConfig(hidden_pools=True))
    seen_by_red = render.to_text(state, viewer=0)
    assert "pool 2 [3C 5H]" in seen_by_red and "pool 1 cards (hidden)" in seen_by_red
    seen_by_black = render.to_text(state, viewer=1)
    assert "pool 2 cards (hidden)" in seen_by_black and "pool 1 [8S]" in seen_by_black
    assert "(hidden)" not in render.to_text(state)


def test_text_of_a_finished_game():
    state = _hand_built()
    state.phase, state.outcome, state.winner = Phase.OVER, WON, 1
    text = render.to_text(state)
    assert "game over: player_1 (black) wins" in text
    assert "QH*" not in text  # nothing has "acted" once the game is over


# --------------------------------------------------------------------------- picture


@pytest.mark.parametrize("board_size", [9, 13, 15])
def test_picture_shape_and_dtype_depend_on_the_board_size_only(board_size):
    config = MapDuelConfig(board_size=board_size)
    height, width = render.image_size(board_size)
    for state in _random_states(config, seed=board_size, every=40, limit=600):
        image = render.to_rgb(state)
        assert image.dtype == np.uint8
        assert image.shape == (height, width, 3)
    assert render.image_size(13) == (504, 576)


def test_picture_is_deterministic_and_leaves_the_state_alone():
    state = _face_down_state(seed=5)
    before = copy.deepcopy({name: getattr(state, name) for name in MapDuelState.__slots__ if name != "config"})
    first = render.to_rgb(state)
    second = render.to_rgb(state.clone())
    assert np.array_equal(first, second)
    render.to_text(state)
    render.to_text(state, viewer=0)
    after = {name: getattr(state, name) for name in MapDuelState.__slots__ if name != "config"}
    assert after == before
    first[:] = 0  # the caller owns the array: the next picture is unharmed
    assert np.array_equal(render.to_rgb(state), second)


def _cell_patch(image: np.ndarray, B: int, row: int, col: int) -> np.ndarray:
    x = render.MARGIN + render.LABEL_W + col * render.PITCH_X
    y = render.HEADER_H + render.LABEL_H + row * render.PITCH_Y
    return image[y:y + render.CARD_H, x:x + render.CARD_W]


def _has_colour(patch: np.ndarray, colour) -> bool:
    return bool((patch.reshape(-1, 3) == np.array(colour, dtype=np.uint8)).all(axis=1).any())


def test_picture_marks_cards_by_suit_colour_and_faces_by_owner():
    state = _hand_built()
    state.acted = set()
    image = render.to_rgb(state)
    B = state.B
    red_number = _cell_patch(image, B, 6, 6)  # 9D
    black_number = _cell_patch(image, B, 5, 6)  # 4C
    assert _has_colour(red_number, render._RED) and not _has_colour(black_number, render._RED)
    red_face = _cell_patch(image, B, 7, 6)
    black_face = _cell_patch(image, B, 5, 7)
    assert _has_colour(red_face, render._FACE_FILL[0]) and not _has_colour(red_face, render._FACE_FILL[1])
    assert _has_colour(black_face, render._FACE_FILL[1]) and not _has_colour(black_face, render._FACE_FILL[0])
    empty = _cell_patch(image, B, 0, 0)
    assert state.board[0] == EMPTY and (empty.reshape(-1, 3) == np.array(render._CELL)).all()


def test_picture_shows_which_card_is_face_down():
    state = _face_down_state(seed=2)
    owner, face = state.hidden_face
    row, col = divmod(state.face_pos[owner][face], state.B)
    down = _cell_patch(render.to_rgb(state), state.B, row, col)
    assert _has_colour(down, render._BACK)
    state.hidden_face = None
    up = _cell_patch(render.to_rgb(state), state.B, row, col)
    assert not _has_colour(up, render._BACK)


def test_pictures_of_whole_random_games_are_fast():
    frames = 0
    start = time.perf_counter()
    for seed in range(2):
        for state in _random_states(MapDuelConfig(), seed=seed, every=5, limit=1200):
            render.to_rgb(state)
            for viewer in (None, 0, 1):
                render.to_text(state, viewer=viewer)
            frames += 1
    per_frame = (time.perf_counter() - start) / frames
    assert frames > 100
    assert per_frame < 0.05, f"{per_frame * 1000:.1f} ms a frame"
