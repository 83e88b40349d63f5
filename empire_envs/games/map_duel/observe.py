"""Map Duel observation: 19 planes of ``B x B`` cells, then a vector, for one seat's own frame.

The planes are in the seat's egocentric frame (``player_1`` sees the board turned 180 degrees, so
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
3395-3399  scalars             I am red, I moved first, turn / length_limit, no-progress turns /
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

from functools import cache

import numpy as np

from ...core.layout import ObsLayout
from .rules import ACE_PAYMENT
from .state import (
    CARD_AT_SLOT,
    CARD_SLOT,
    DECK,
    FACE_BASE,
    NUM_DECISION_PHASES,
    NUM_FACE_STATUSES,
    NUM_FACES,
    NUM_NUMBER_CARDS,
    ON_MAP,
    SEAT_SUITS,
    SUIT_SLOT,
    MapDuelState,
    Phase,
    face_suit,
    face_type,
    is_red_suit,
    number_rank,
    number_suit,
)

NUM_PLANES = 19
#: the planes that a board code does not set (``code_planes`` leaves them 0): my faces that have
#: acted this turn, a face-down card I do not know, the face of my pending sub-decision
ACTED_PLANE, FACE_DOWN_PLANE, PENDING_PLANE = 16, 17, 18
MAX_POOL_VALUE = 108  # a King's value with all 18 own-colour cards in its pool


#: the entries after the planes, the same on every board (the docstring's table from 3211 on)
VECTOR = ObsLayout(
    [
        ("my pool", NUM_NUMBER_CARDS),
        ("opponent pool", NUM_NUMBER_CARDS),
        ("my faces", NUM_FACES * NUM_FACE_STATUSES),
        ("enemy faces", NUM_FACES * NUM_FACE_STATUSES),
        ("pool values", 6),
        ("phase", NUM_DECISION_PHASES),
        ("drawn card", NUM_NUMBER_CARDS),
        ("pending face", NUM_FACES),
        ("pending", 4),
        ("scalars", 5),
    ]
)


def observation_layout(board_size: int) -> ObsLayout:
    return ObsLayout([("planes", NUM_PLANES * board_size * board_size), *VECTOR.fields])


LAYOUT = observation_layout(13)
VECTOR_SIZE = VECTOR.size
OBSERVATION_SIZE = LAYOUT.size

# Where ``observe`` writes in the vector, read from ``VECTOR``. The pool matrix writes every entry
# before the phase one-hot: both pools, zeros for the two face blocks, the pool values (my King,
# lower Queen, higher Queen, then the enemy's).
_OPPONENT_POOL = VECTOR.start("opponent pool")
_MY_FACES = VECTOR.start("my faces")
_ENEMY_FACES = VECTOR.start("enemy faces")
_MY_VALUES = VECTOR.start("pool values")
_ENEMY_VALUES = _MY_VALUES + 3
_PHASE = VECTOR.start("phase")
_DRAWN = VECTOR.start("drawn card")
_PENDING_FACE = VECTOR.start("pending face")
#: the entries of the "pending" block, indices in the vector (the JAX twin reads them too)
MOVES_LEFT, STILL_TO_PAY, PAYING_FOR_ACE, STEP_1_DONE = range(VECTOR["pending"].start, VECTOR["pending"].stop)
#: the entries of the "scalars" block, indices in the vector (the JAX twin reads them too)
I_AM_RED, I_MOVED_FIRST, TURN_FRACTION, NO_PROGRESS_FRACTION, OPPONENT_POOL_SIZE = range(
    VECTOR["scalars"].start, VECTOR["scalars"].stop
)


def observation_size(board_size: int) -> int:
    return observation_layout(board_size).size


@cache
def code_planes(seat: int) -> np.ndarray:
    """``table[:, code]``: the 19 plane values a card code puts on its cell, seen from ``seat``
    (presence, colour, rank, suit slot for number cards; suit slot and piece for faces). The
    last column, which ``EMPTY = -1`` indexes, is all zeros."""
    table = np.zeros((NUM_PLANES, FACE_BASE + 2 * NUM_FACES + 1), dtype=np.float32)
    for code in range(FACE_BASE + 2 * NUM_FACES):
        if code < FACE_BASE:
            suit = number_suit(code)
            mine = is_red_suit(suit) == (seat == 0)
            table[0, code] = 1.0
            table[1 if mine else 2, code] = 1.0
            table[3, code] = number_rank(code) / 10.0
            table[4 + SUIT_SLOT[seat][suit], code] = 1.0
        else:
            owner, face = divmod(code - FACE_BASE, NUM_FACES)
            table[4 + SUIT_SLOT[seat][face_suit(owner, face)], code] = 1.0
            table[(8 if owner == seat else 12) + face_type(face), code] = 1.0
    return table


@cache
def pool_matrix(seat: int, hidden_pools: bool) -> np.ndarray:
    """The ``72 x 126`` matrix that takes both seats' flat pools (seat 0's 36 entries first) to
    vector entries 0-125 (all before the phase one-hot) seen from ``seat``: my pool and the
    opponent's pool in card-slot order, zeros for the face blocks, then the pool values (my King,
    lower Queen, higher Queen, then the enemy's). With ``hidden_pools`` the opponent's columns
    stay zero."""
    enemy = 1 - seat
    matrix = np.zeros((2 * NUM_NUMBER_CARDS, _PHASE), dtype=np.float32)
    for owner, pool_column, value_column in ((seat, 0, _MY_VALUES), (enemy, _OPPONENT_POOL, _ENEMY_VALUES)):
        if owner == enemy and hidden_pools:
            continue
        low, high = SEAT_SUITS[owner]
        for slot, n in enumerate(CARD_AT_SLOT[seat]):
            row, suit, rank = owner * NUM_NUMBER_CARDS + n, number_suit(n), number_rank(n)
            matrix[row, pool_column + slot] = 1.0
            if suit in (low, high):
                matrix[row, value_column] = rank  # the King counts both own suits
                matrix[row, value_column + (1 if suit == low else 2)] = rank
    return matrix


def observe(state: MapDuelState, seat: int) -> np.ndarray:
    """What ``seat`` sees, in its own frame (sections 12, 18, 39)."""
    cells = state.B * state.B
    enemy = 1 - seat
    config = state.config
    obs = np.zeros(NUM_PLANES * cells + VECTOR_SIZE, dtype=np.float32)
    planes = obs[: NUM_PLANES * cells].reshape(NUM_PLANES, cells)
    board = np.fromiter(state.board, dtype=np.intp, count=cells)
    # player_1's frame is the board turned 180 degrees: its cell x is absolute cell C - 1 - x
    np.take(code_planes(seat), board if seat == 0 else board[::-1], axis=1, out=planes)
    hidden = state.hidden_face
    if hidden is not None and hidden[0] == seat:
        hidden = None  # a seat knows its own face-down card
    if hidden is not None:
        x = state.face_pos[hidden[0]][hidden[1]]
        x = x if seat == 0 else cells - 1 - x
        planes[:, x] = 0.0  # only "a face-down card" shows
        planes[FACE_DOWN_PLANE, x] = 1.0
    phase = state.phase
    own_turn = state.current == seat and phase != Phase.OVER
    if own_turn:
        status, pos = state.face_status[seat], state.face_pos[seat]
        marked = [(ACTED_PLANE, pos[face]) for face in state.acted if status[face] == ON_MAP]
        if state.pending_face >= 0 and status[state.pending_face] == ON_MAP:
            marked.append((PENDING_PLANE, pos[state.pending_face]))
        for plane, cell in marked:
            planes[plane, cell if seat == 0 else cells - 1 - cell] = 1.0

    vector = obs[NUM_PLANES * cells :]
    pools = np.frombuffer(bytes(state.pools[0] + state.pools[1]), dtype=np.uint8)  # 0/1 entries
    np.dot(pools, pool_matrix(seat, config.hidden_pools), out=vector[:_PHASE])
    # one-hot entries: face status, phase, drawn card, pending face
    ones = [_MY_FACES + NUM_FACE_STATUSES * f + s for f, s in enumerate(state.face_status[seat])]
    if hidden is None:  # while a face is down, which of the enemy's faces it is stays unknown
        ones += [_ENEMY_FACES + NUM_FACE_STATUSES * f + s for f, s in enumerate(state.face_status[enemy])]
    else:
        ones += range(_ENEMY_FACES + DECK, _MY_VALUES, NUM_FACE_STATUSES)
    if phase != Phase.OVER:
        ones.append(_PHASE + phase)
    if state.drawn >= 0:
        ones.append(_DRAWN + CARD_SLOT[seat][state.drawn])
    if own_turn:
        if state.pending_face >= 0:
            ones.append(_PENDING_FACE + state.pending_face)
        if phase == Phase.SACRIFICE_MOVE:
            vector[MOVES_LEFT] = state.moves_left
        if state.pay_target and (phase == Phase.PLACE_CELL or phase == Phase.PLACE_PAY):
            if state.pay_target == ACE_PAYMENT:
                ones.append(PAYING_FOR_ACE)
            else:
                vector[STILL_TO_PAY] = state.pay_target - sum(number_rank(n) for n in state.paid)
        if state.step1_done:
            ones.append(STEP_1_DONE)
    if seat == 0:
        ones.append(I_AM_RED)
    if state.first == seat:
        ones.append(I_MOVED_FIRST)
    vector[ones] = 1.0
    vector[TURN_FRACTION] = state.turn / config.length_limit
    vector[NO_PROGRESS_FRACTION] = state.no_progress / config.no_progress_turns
    vector[OPPONENT_POOL_SIZE] = sum(state.pools[enemy])
    return obs


def observation_high(config) -> float:
    """An upper bound of every entry: pool values are the largest counts."""
    return float(MAX_POOL_VALUE)
