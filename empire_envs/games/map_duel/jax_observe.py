"""The Map Duel twin's observation: ``observe.observe`` of the Python rules, for a twin ``State``
(``jax_state``) and a seat, entry for entry and bit for bit, whoever is to act.

``observe(state, seat, config)`` is pure: ``jit`` and ``vmap`` it freely; ``seat`` may be traced
(an int32 of shape ``()``), ``config`` is static. Every fact comes from the Python ``observe``
module (its layout, its tables, the planes and entries it names) and from ``state.py``; the
observation is put together by ``core.jax_game.assemble_observation`` in the layout's order, each
block's size checked.

=================  ===========================================================================
block              how the twin builds it (the Python ``observe`` does the same in numpy)
=================  ===========================================================================
planes             a table of what each board code shows to the seat (``observe.code_planes``,
                   its planes packed as bits, ``_plane_bits``), adjusted for this state: the
                   other seat's face-down starting face shows only ``FACE_DOWN_PLANE``; on the
                   seat's own turn (not once the game is over) its acted faces on the map add
                   ``ACTED_PLANE`` and the face of its pending sub-decision ``PENDING_PLANE``.
                   One gather of that table by the board codes in the seat's frame
                   (``player_1``'s is the board turned 180 degrees), unpacked in one
                   elementwise pass. (Python finds those faces' cells by ``face_pos``; a face on
                   the map is the code on its cell, so the two agree.)
my pool,           one product of both seats' pools with ``observe.pool_matrix`` of both seats
opponent pool,     side by side, the seat's half kept (under ``hidden_pools`` the opponent's
pool values        columns are zero)
my faces,          one-hots of the face statuses; the enemy's all "deck" while its starting
enemy faces        face is face down
phase              one-hot of the phase (none once the game is over)
drawn card         one-hot of the setup card's card slot (``CARD_SLOT``), none when no card
pending face,      on the seat's own turn only: the pending face's one-hot, the sacrifice moves
pending            left, the sum still to pay or "paying for an Ace", step 1 done
scalars            I am red, I moved first, turn / length_limit, no-progress turns / limit
                   (tables of the quotients as Python computes them), the opponent's pool size
                   (shown under ``hidden_pools`` too)
=================  ===========================================================================
"""

from __future__ import annotations

from functools import cache

import jax
import jax.numpy as jnp
import numpy as np

from ...core.jax_game import assemble_observation, one_hot
from ...core.layout import quotient_table
from . import observe as python_observe
from .config import MapDuelConfig
from .rules import ACE_PAYMENT
from .state import (
    CARD_SLOT,
    DECK,
    FACE_BASE,
    NUM_DECISION_PHASES,
    NUM_FACE_STATUSES,
    NUM_FACES,
    NUM_NUMBER_CARDS,
    ON_MAP,
    Phase,
    number_rank,
)

VECTOR = python_observe.VECTOR
#: the board codes: number cards, then both seats' faces (``EMPTY`` = -1 is the column after)
NUM_CODES = FACE_BASE + 2 * NUM_FACES
#: the twin's extra column of the code table: the other seat's face-down starting face
FACE_DOWN_CODE = NUM_CODES + 1
#: columns per seat of the twin's code table: the codes, empty, face down
CODE_COLUMNS = NUM_CODES + 2
#: the rank of each number card, what a payment sums
_RANKS = np.array([number_rank(card) for card in range(NUM_NUMBER_CARDS)], dtype=np.int32)


@cache
def _seat_code_rows() -> np.ndarray:
    """``rows[seat * CODE_COLUMNS + column]``: the ``NUM_PLANES`` plane values one cell shows to
    ``seat``, ``column`` a board code, ``NUM_CODES`` an empty cell (``observe.code_planes``) or
    ``FACE_DOWN_CODE`` (only ``FACE_DOWN_PLANE``)."""
    face_down = np.zeros((python_observe.NUM_PLANES, 1), dtype=np.float32)
    face_down[python_observe.FACE_DOWN_PLANE] = 1.0
    per_seat = [np.concatenate([python_observe.code_planes(seat), face_down], axis=1).T for seat in (0, 1)]
    return np.concatenate(per_seat, axis=0)


@cache
def _plane_bits() -> tuple[np.ndarray, tuple[int, ...], np.ndarray]:
    """``_seat_code_rows`` packed for speed: ``(bits, valued, values)``. ``bits[row]`` has bit
    ``p`` set where plane ``p`` is 1 (the planes whose values are all 0 or 1); ``valued`` names
    the other planes (the rank), ``values[row, i]`` the value of plane ``valued[i]``. XLA on the
    CPU gathers one number a cell quickly, a row of 19 slowly; the planes are then unpacked in
    one elementwise pass."""
    rows = _seat_code_rows()
    binary = [plane for plane in range(rows.shape[1]) if np.isin(rows[:, plane], (0.0, 1.0)).all()]
    assert {python_observe.ACTED_PLANE, python_observe.PENDING_PLANE} <= set(binary), "marks are bits"
    bits = np.zeros(rows.shape[0], dtype=np.int32)
    for plane in binary:
        bits |= rows[:, plane].astype(np.int32) << plane
    valued = tuple(plane for plane in range(rows.shape[1]) if plane not in binary)
    return bits, valued, rows[:, list(valued)]


#: the blocks the pool product fills, in the order of its columns
_POOL_BLOCKS = ("my pool", "opponent pool", "pool values")


@cache
def _pool_columns(hidden_pools: bool) -> np.ndarray:
    """``float32[72, 2 * width]``: both seats' flat pools (seat 0's first) to the
    ``_POOL_BLOCKS`` entries, seat 0's view then seat 1's (``observe.pool_matrix``'s columns of
    those blocks)."""
    columns = np.concatenate([np.arange(VECTOR[name].start, VECTOR[name].stop) for name in _POOL_BLOCKS])
    return np.concatenate([python_observe.pool_matrix(seat, hidden_pools)[:, columns] for seat in (0, 1)], axis=1)


@cache
def _quotients(denominator: int) -> np.ndarray:
    """``core.layout.quotient_table``, kept per denominator. The count it divides never passes
    the denominator (the game ends there)."""
    return quotient_table(denominator)


def _entries(block: str, values: dict[int, jax.Array]) -> jax.Array:
    """A block of the vector from its entries, keyed by their index in ``VECTOR`` (the Python
    observation's names for them), every entry of the block named once."""
    indices = range(VECTOR[block].start, VECTOR[block].stop)
    if sorted(values) != list(indices):
        raise ValueError(f"block {block!r} needs entries {list(indices)}, got {sorted(values)}")
    return jnp.stack([jnp.asarray(values[index], dtype=jnp.float32) for index in indices])


def _planes(state, seat: jax.Array, hidden: jax.Array, own_turn: jax.Array) -> jax.Array:
    """The ``NUM_PLANES x C`` planes, plane-major, in the seat's frame."""
    bits_table, valued, values_table = _plane_bits()
    # this state's table: each code's bits as the seat sees them now, the other seat's face-down
    # starting face showing only FACE_DOWN_PLANE and the seat's own faces its marks
    column = jnp.arange(CODE_COLUMNS)
    own_face = column - (FACE_BASE + NUM_FACES * seat)  # the own face index of a face code
    is_own_face = (own_face >= 0) & (own_face < NUM_FACES)
    own_face = jnp.clip(own_face, 0, NUM_FACES - 1)
    own_on_map = jnp.where(seat == 0, state.face_status[0], state.face_status[1]) == ON_MAP
    acted = own_turn & is_own_face & state.acted[own_face] & own_on_map[own_face]
    pending = own_turn & is_own_face & (own_face == state.pending_face) & own_on_map[own_face]
    hidden_code = FACE_BASE + NUM_FACES * state.hidden_face[0].astype(jnp.int32) + state.hidden_face[1]
    face_down = hidden & (column == hidden_code)
    rows = jnp.where(face_down, FACE_DOWN_CODE, column) + seat * CODE_COLUMNS
    bits = jnp.asarray(bits_table)[rows]
    bits |= jnp.where(acted, 1 << python_observe.ACTED_PLANE, 0)
    bits |= jnp.where(pending, 1 << python_observe.PENDING_PLANE, 0)
    # the cells: board codes in the seat's frame (player_1's is the board turned 180 degrees)
    codes = jnp.where(seat == 0, state.board, state.board[::-1]).astype(jnp.int32)
    codes = jnp.where(codes < 0, NUM_CODES, codes)
    cell_bits = bits[codes]
    plane = jnp.arange(python_observe.NUM_PLANES)[:, None]
    planes = ((cell_bits[None, :] >> plane) & 1).astype(jnp.float32)
    for index, valued_plane in enumerate(valued):
        cell_values = jnp.asarray(values_table[:, index])[rows][codes]
        planes = jnp.where(plane == valued_plane, cell_values[None, :], planes)
    return planes


def observe(state, seat, config: MapDuelConfig) -> jax.Array:
    """``float32[observation_size(B)]``: what ``seat`` sees of ``state``, exactly
    ``observe.observe`` of the Python state for that seat."""
    seat = jnp.asarray(seat, dtype=jnp.int32)
    over = state.phase == Phase.OVER
    own_turn = (state.current_player == seat) & ~over
    hidden_seat = state.hidden_face[0].astype(jnp.int32)
    hidden = (hidden_seat >= 0) & (hidden_seat != seat)  # a seat knows its own face-down card

    pools = state.pools.reshape(-1).astype(jnp.float32)
    both_views = jnp.dot(pools, jnp.asarray(_pool_columns(config.hidden_pools)), precision=jax.lax.Precision.HIGHEST)
    width = both_views.shape[0] // 2
    view = jnp.where(seat == 0, both_views[:width], both_views[width:])
    pool_blocks, start = {}, 0
    for name in _POOL_BLOCKS:
        size = VECTOR[name].stop - VECTOR[name].start
        pool_blocks[name], start = view[start : start + size], start + size

    own_status = jnp.where(seat == 0, state.face_status[0], state.face_status[1])
    enemy_status = jnp.where(seat == 0, state.face_status[1], state.face_status[0])
    enemy_status = jnp.where(hidden, DECK, enemy_status)  # which face is down stays unknown
    drawn_slot = jnp.asarray(np.array(CARD_SLOT, dtype=np.int32))[seat, jnp.maximum(state.drawn, 0)]
    paying = own_turn & (state.pay_target != 0) & ((state.phase == Phase.PLACE_CELL) | (state.phase == Phase.PLACE_PAY))
    paid_sum = jnp.sum(jnp.where(state.paid, _RANKS, 0))
    return assemble_observation(
        python_observe.observation_layout(config.board_size),
        {
            "planes": _planes(state, seat, hidden, own_turn),
            **pool_blocks,
            "my faces": one_hot(own_status, NUM_FACE_STATUSES),
            "enemy faces": one_hot(enemy_status, NUM_FACE_STATUSES),
            "phase": one_hot(state.phase, NUM_DECISION_PHASES),
            "drawn card": one_hot(jnp.where(state.drawn >= 0, drawn_slot, -1), NUM_NUMBER_CARDS),
            "pending face": one_hot(jnp.where(own_turn, state.pending_face, -1), NUM_FACES),
            "pending": _entries(
                "pending",
                {
                    python_observe.MOVES_LEFT: jnp.where(
                        own_turn & (state.phase == Phase.SACRIFICE_MOVE), state.moves_left, 0
                    ),
                    python_observe.STILL_TO_PAY: jnp.where(
                        paying & (state.pay_target != ACE_PAYMENT), state.pay_target - paid_sum, 0
                    ),
                    python_observe.PAYING_FOR_ACE: paying & (state.pay_target == ACE_PAYMENT),
                    python_observe.STEP_1_DONE: own_turn & state.step1_done,
                },
            ),
            "scalars": _entries(
                "scalars",
                {
                    python_observe.I_AM_RED: seat == 0,
                    python_observe.I_MOVED_FIRST: state.first == seat,
                    python_observe.TURN_FRACTION: jnp.asarray(_quotients(config.length_limit))[state.turn],
                    python_observe.NO_PROGRESS_FRACTION: jnp.asarray(_quotients(config.no_progress_turns))[
                        state.no_progress
                    ],
                    python_observe.OPPONENT_POOL_SIZE: jnp.where(seat == 0, state.pools[1], state.pools[0]).sum(),
                },
            ),
        },
    )
