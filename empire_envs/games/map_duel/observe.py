"""Map Duel observation: 19 planes of ``B x B`` cells, then a vector, for one seat's own frame.

The planes are in the seat's egocentric frame (``player_2`` sees the board turned 180 degrees, so
its forward is up). Default board (``B = 13``): 3,400 entries; ``19 * B * B + 189`` in general.

=========  ==================  ================================================================
index      field               meaning
=========  ==================  ================================================================
0-3210     planes              19 planes of B x B (table below), plane-major
3211-3246  my pool             1 for each number card in my pool, at its card slot (below)
3247-3282  opponent pool       the same for the opponent's pool (0 if hidden)
3283-3306  my faces            per own face index 0..7: one-hot in deck, on map, removed
3307-3330  enemy faces         the same for the enemy's faces (all "deck" while one is face down)
3331-3336  pool values         King, lower-suit Queen, higher-suit Queen: mine, then the enemy's
3337-3346  phase               one-hot of the 10 decision phases (all 0 once over)
3347-3382  drawn card          one-hot card slot of the setup card to place
3383-3390  pending face        one-hot own face index of the pending sub-decision
3391-3394  pending             sacrifice moves left, sum still to pay, paying for an Ace, step 1
                               done
3395-3399  scalars             I am red, I moved first, turn / max_turns, no-progress turns /
                               limit, opponent pool size
=========  ==================  ================================================================

The planes:

=======  =========================================================================================
plane    meaning
=======  =========================================================================================
0        a number card is on the cell
1-2      the number card is of my colour / of the opponent's colour
3        the number card's rank / 10
4-7      the suit slot of the card on the cell, number or face (below)
8-11     my Jack, Queen, King, Ace
12-15    the enemy's Jack, Queen, King, Ace
16       my face card has acted this turn
17       a face-down card whose identity I do not know
18       the face card of the pending sub-decision
=======  =========================================================================================

Suits are egocentric too, so that a position and its mirror with the colours swapped look the
same to the two seats: **suit slot** 0 is my lower suit, 1 my higher suit, 2 the opponent's lower
suit, 3 its higher suit (red: diamonds, hearts; black: clubs, spades). A number card's **card
slot** is ``9 * suit slot + rank - 2``. Only the scalars "I am red" and "I moved first" tell the
seats apart (the suit order of tie-breaks makes colour matter).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ...core.layout import ObsLayout
from .rules import ACE_PAYMENT, face_value, suit_totals
from .state import (
    EMPTY,
    FACE_BASE,
    NUM_DECISION_PHASES,
    NUM_FACES,
    NUM_NUMBER_CARDS,
    ON_MAP,
    OVER,
    PLACE_CELL,
    PLACE_PAY,
    SAC_MOVE,
    CARD_AT_SLOT,
    CARD_SLOT,
    SUIT_SLOT,
    MapDuelState,
    face_suit,
    number_rank,
)

NUM_PLANES = 19
MAX_POOL_VALUE = 108  # a King's value with all 18 own-colour cards in its pool


def observation_layout(board_size: int) -> ObsLayout:
    return ObsLayout(
        [
            ("planes", NUM_PLANES * board_size * board_size),
            ("my pool", NUM_NUMBER_CARDS), ("opponent pool", NUM_NUMBER_CARDS),
            ("my faces", NUM_FACES * 3), ("enemy faces", NUM_FACES * 3),
            ("pool values", 6), ("phase", NUM_DECISION_PHASES), ("drawn card", NUM_NUMBER_CARDS),
            ("pending face", NUM_FACES), ("pending", 4), ("scalars", 5),
        ]
    )


LAYOUT = observation_layout(13)
VECTOR_SIZE = LAYOUT.size - LAYOUT.start("my pool")
OBSERVATION_SIZE = LAYOUT.size


def observation_size(board_size: int) -> int:
    return observation_layout(board_size).size


_RANK_VALUES = tuple((n % 9 + 2) / 10.0 for n in range(NUM_NUMBER_CARDS))
@lru_cache(maxsize=None)
def _plane_indices(board_size: int, seat: int) -> tuple:
    """For a seat's frame: ``table[code][cell]``, the flat plane indices a card sets to 1 (its
    fixed planes: presence, colour, suit, or the face's suit and piece), and last the egocentric
    cell of every absolute cell. Built once per board size and seat."""
    cells = board_size * board_size
    ego = [cells - 1 - c if seat == 1 else c for c in range(cells)]
    table = []
    for code in range(FACE_BASE + 2 * NUM_FACES):
        rows = []
        for cell in range(cells):
            x = ego[cell]
            if code < FACE_BASE:
                suit = code // 9
                mine = (suit in (1, 2)) == (seat == 0)
                rows.append((x, (1 if mine else 2) * cells + x, (4 + SUIT_SLOT[seat][suit]) * cells + x))
            else:
                owner, face = divmod(code - FACE_BASE, NUM_FACES)
                rows.append((
                    (4 + SUIT_SLOT[seat][face_suit(owner, face)]) * cells + x,
                    ((8 if owner == seat else 12) + face % 4) * cells + x,
                ))
        table.append(tuple(rows))
    table.append(tuple(ego))
    return tuple(table)


def observe(state: MapDuelState, seat: int) -> np.ndarray:
    """What ``seat`` sees, in its own frame (sections 12, 18, 39)."""
    B = state.B
    cells = B * B
    enemy = 1 - seat
    config = state.config
    hidden = state.hidden_face if state.hidden_face is not None and state.hidden_face[0] != seat else None
    hidden_cell = state.face_pos[hidden[0]][hidden[1]] if hidden else -1
    own_turn = state.current == seat and state.phase != OVER
    pending_cell = (
        state.face_pos[seat][state.pending_face]
        if own_turn and state.pending_face >= 0 and state.face_status[seat][state.pending_face] == ON_MAP
        else -1
    )
    hot = _plane_indices(B, seat)
    x_of = hot[-1]
    ones_at: list[int] = []  # flat plane indices set to 1
    rank_at: list[int] = []
    rank_values: list[float] = []
    acted = state.acted if own_turn else ()
    for cell, code in enumerate(state.board):
        if code == EMPTY:
            continue
        if code < FACE_BASE:
            ones_at += hot[code][cell]
            rank_at.append(3 * cells + x_of[cell])
            rank_values.append(_RANK_VALUES[code])
        elif cell == hidden_cell:
            ones_at.append(17 * cells + x_of[cell])
        else:
            ones_at += hot[code][cell]
            face = (code - FACE_BASE) % NUM_FACES
            if code - FACE_BASE < NUM_FACES * (seat + 1) and code - FACE_BASE >= NUM_FACES * seat:
                if face in acted:
                    ones_at.append(16 * cells + x_of[cell])
                if cell == pending_cell:
                    ones_at.append(18 * cells + x_of[cell])
    obs = np.zeros(NUM_PLANES * cells + VECTOR_SIZE, dtype=np.float32)
    obs[ones_at] = 1.0
    obs[rank_at] = rank_values
    vector = np.zeros(VECTOR_SIZE, dtype=np.float32)
    at_slot = CARD_AT_SLOT[seat]
    mine_pool, their_pool = state.pools[seat], state.pools[enemy]
    vector[0:36] = [mine_pool[n] for n in at_slot]
    if not config.hidden_pools:
        vector[36:72] = [their_pool[n] for n in at_slot]
    for f in range(NUM_FACES):
        vector[72 + 3 * f + state.face_status[seat][f]] = 1.0
        # while a face is down, which of the enemy's faces it is stays unknown
        vector[96 + 3 * f + (0 if hidden is not None else state.face_status[enemy][f])] = 1.0
    mine = suit_totals(state.pools[seat])
    vector[120:123] = [face_value(state, seat, face, mine) for face in (2, 1, 5)]
    if not config.hidden_pools:
        theirs = suit_totals(state.pools[enemy])
        vector[123:126] = [face_value(state, enemy, face, theirs) for face in (2, 1, 5)]
    if state.phase != OVER:
        vector[126 + state.phase] = 1.0
    if state.drawn >= 0:
        vector[136 + CARD_SLOT[seat][state.drawn]] = 1.0
    if own_turn:
        if state.pending_face >= 0:
            vector[172 + state.pending_face] = 1.0
        if state.phase == SAC_MOVE:
            vector[180] = state.moves_left
        if state.pay_target and state.phase in (PLACE_CELL, PLACE_PAY):
            if state.pay_target == ACE_PAYMENT:
                vector[182] = 1.0
            else:
                vector[181] = state.pay_target - sum(number_rank(n) for n in state.paid)
        vector[183] = 1.0 if state.step1_done else 0.0
    vector[184] = 1.0 if seat == 0 else 0.0
    vector[185] = 1.0 if state.first == seat else 0.0
    vector[186] = state.turn / config.max_turns
    vector[187] = state.no_progress / config.no_progress_turns
    vector[188] = sum(state.pools[enemy])
    obs[NUM_PLANES * cells:] = vector
    return obs


def observation_high(config) -> float:
    """An upper bound of every entry: pool values are the largest counts."""
    return float(MAX_POOL_VALUE)


