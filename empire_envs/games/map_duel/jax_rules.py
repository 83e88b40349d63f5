"""Map Duel rules in JAX: the batched twin of the ``rules`` package, proven identical to it.

Read it beside the Python rules; each rule has one place in both:

==================================  ==================================  ===========================
rule                                Python (``rules/``)                 here
==================================  ==================================  ===========================
the deal, the first player          ``setup.new_game``                  ``make_init``
a setup card's cells (the           ``setup.placement_ok``,             ``_summaries``, ``_fits``,
placement rule, its fallbacks)      ``setup.setup_cells``               ``_cell_mask``
starting faces and their cells      ``setup._setup_face*``,             ``make_step`` (setup),
                                    ``setup.starting_face_cells``       ``_cell_mask``
step 1: swaps, pass, the choices    ``step1._step1``, ``_step1_*``      ``make_step`` (swaps),
                                                                        ``_legal_mask``
a sacrifice and its swaps           ``sacrifice.begin_sacrifice``,      ``make_step`` (sacrifice),
                                    ``sacrifice._sacrifice_*``          ``_follow_up``
a new face: cost, cells, payment    ``new_face.affordable``,            ``_payments``,
                                    ``can_pay``, ``placement_cells``,   ``_legal_mask``,
                                    ``_place_pay``                      ``make_step`` (payment)
step 2: consume, build, confront    ``step2._step2_moves``,             ``_step2_moves``,
                                    ``_step2``, ``_build_card``         ``make_step``
what a face reaches                 ``confront.confront_targets``       ``_reach``, ``_ace_reach``
who loses, the coin                 ``confront.resolve``,               ``_resolve``,
                                    ``face_value``                      ``_face_values``
step 2 begins, ends by itself       ``step2.to_step2``, ``_auto_end``   ``_follow_up``
a turn ends, the next begins        ``turn.end_turn``, ``begin_turn``   ``_follow_up``
colour share, wins, draws           ``end.colour_share``,               ``_map_counts``,
                                    ``end.check_end``                   ``_follow_up``
rewards: shaping, the result        ``phases.apply_action``             ``_rewards``
legal actions (every phase)         ``PHASES[phase].legal_actions``     ``_legal_mask``
the observation                     ``observe.observe``                 ``jax_observe.observe``
==================================  ==================================  ===========================

The facts both sides read (face costs, primes, the Jack's value, geometry, outcome names) are
``tables``'; the card codes, seats' suits and phases are ``state``'s.

**The step is select-style.** Under ``vmap`` every branch of a ``cond`` runs, so ``step``
computes the effect of every kind of action as masked updates of the few things an action
changes (at most two board cells, two faces, one pool card), then the follow-ups in the Python
rules' order (check the end, the sacrifice's swaps, step 2 begins, step 2 ends by itself, the
turn ends, the next begins) as guarded updates, then ONE legal mask for the new state from
shared pieces:

- each cell's **summary byte** (``_summaries``): which number cards (red or black, above or
  below, beside) and which seats' faces are next to it, and whether it is empty, from four
  shifted slices of the board (arrays of ``C`` entries: no gather). The CELL block (setup
  cells with their fallbacks, starting faces' cells, a new face's cells) tests these bytes
  against a few bits chosen per game. The placement rule (section 15) depends on a card only
  through its **class** ``red XOR even``: a neighbour satisfies a card of class ``p`` when it
  is a number card whose ``red XOR horizontal`` is ``p``;
- the **neighbourhoods of the 16 faces** (``_neighbourhoods``: one gather of ``2 x 8 x 4``
  board codes), which swaps, sacrifices, consumes, builds and "a new face has a cell" read;
- **what each face reaches** from the faces' positions alone (``_reach``: row and column
  differences; faces between an Ace and its target for ``ace_blocking="faces"``), the board's
  diagonal rays only for ``ace_blocking="cards"``;
- **payments** as bit sets of subset sums (``sums |= sums << rank``, ranks counted per rank),
  for the whole opposite-colour pool and for it without one card of each rank (``can_pay``).

Step 2's moves are computed once, for the state after the action's effect: they decide whether
step 2 ends by itself (section 3) and, when it does not, they are the new mask's step 2 part
(the board and the seat are then unchanged). The other parts are computed for the seat to act
after the step (a turn may have passed). Variant flags are Python values (static).

Two habits keep the compiled step cheap on the CPU: no gather of one element from a table or a
short array (``_pick``, ``_decode``, ``_select`` use selects), and per-game values that many
entries read are stored once (``_computed_once``) rather than recomputed for each entry.

The coins: ``_resolve`` flips a coin from the step's key only where the Python rules flip one;
``state.last_coin`` records it (1 heads, Python's ``random() < 0.5``; 0 tails; -1 none) and
``coin_flips`` counts it (``jax_state.make_python_draws`` hands it to Python).

One module, over 600 lines, on purpose: it is the whole game as one compiled step, the twin of
the rules package that the lockstep tests hold to it.
"""

from __future__ import annotations

import dataclasses
from functools import cache
from typing import NamedTuple, TypeVar

import jax
import jax.numpy as jnp
import numpy as np

from ...core.cards import NUM_SUITS
from ...core.jax_game import PGX_FIELDS, JaxRules
from .actions import NUM_DIRECTIONS, Kind, layout_for
from .config import MapDuelConfig
from .jax_state import (
    DRAW_RESULT,
    ONGOING_RESULT,
    OUTCOME_NAMES,
    TRUNCATED_RESULT,
    WON_BY_0,
    State,
    blank_state,
    make_codec,
    make_python_draws,
    python_deck,
)
from .observe import observation_size
from .state import (
    ACE_FACES,
    ACE_TYPE,
    CARD_AT_SLOT,
    DECK,
    EMPTY,
    FACE_BASE,
    FACES_PER_SUIT,
    JACK_TYPE,
    KING_TYPE,
    LOWEST_NUMBER_RANK,
    NUM_FACES,
    NUM_NUMBER_CARDS,
    NUMBERS_PER_SUIT,
    ON_MAP,
    QUEEN_TYPE,
    RED_SUITS,
    REMOVED,
    SEAT_SUITS,
    Phase,
    face_suit,
    face_type,
    number_rank,
    number_suit,
)
from .tables import (
    ACE_PAYMENT,
    ACE_PRIMES,
    DIAGONAL,
    DIRECTIONS,
    FACE_COSTS,
    JACK_VALUE,
    MAJOR_SUITS,
    MINOR_SUITS,
    ORTHOGONAL,
    PRIME_RANKS,
)

NUM_SEATS = 2
Tree = TypeVar("Tree")
#: the 36 number cards' facts
_CARDS = np.arange(NUM_NUMBER_CARDS)
_RANK = np.array([number_rank(n) for n in range(NUM_NUMBER_CARDS)], dtype=np.int32)
_SUIT = np.array([number_suit(n) for n in range(NUM_NUMBER_CARDS)], dtype=np.int32)
_IS_RED = np.isin(_SUIT, RED_SUITS)
#: a card's placement class: a neighbour satisfies it when ``red XOR horizontal`` equals it
_CLASS = (_IS_RED ^ (_RANK % 2 == 0)).astype(np.int32)
#: the red number ids are one range of codes (diamonds and hearts follow each other): a board
#: code is red when ``_RED_LOW <= code < _RED_HIGH``
_RED_LOW, _RED_HIGH = int(_CARDS[_IS_RED].min()), int(_CARDS[_IS_RED].max()) + 1
assert np.array_equal(np.flatnonzero(_IS_RED), np.arange(_RED_LOW, _RED_HIGH))
#: the ranks of a suit's cards in card-slot order, and which are primes
_SUIT_RANKS = np.arange(LOWEST_NUMBER_RANK, LOWEST_NUMBER_RANK + NUMBERS_PER_SUIT)
_SUIT_PRIMES = np.isin(_SUIT_RANKS, PRIME_RANKS)
#: ``[seat, slot]``: the number card at a seat's card slot, and its class
_SLOT_CARD = np.array(CARD_AT_SLOT, dtype=np.int32)
_SLOT_CLASS = _CLASS[_SLOT_CARD]
#: each seat's suits in card-slot order: its own two, then the opponent's
_SLOT_SUITS = tuple(SEAT_SUITS[seat] + SEAT_SUITS[1 - seat] for seat in range(NUM_SEATS))
#: own face facts, by own face index
_FACE_TYPE = np.array([face_type(f) for f in range(NUM_FACES)], dtype=np.int32)
_FACE_SUIT = np.array([[face_suit(seat, f) for f in range(NUM_FACES)] for seat in range(NUM_SEATS)], dtype=np.int32)
#: ``state.pay_target`` of a new face: its cost, or ``ACE_PAYMENT``
_PAY_TARGET = np.array([FACE_COSTS[t] if t != ACE_TYPE else ACE_PAYMENT for t in _FACE_TYPE], dtype=np.int32)

# A cell's byte: what is on it (a number card of either colour, a face of either seat).
_RED, _BLACK, _FACE_0, _FACE_1 = 1, 2, 16, 32
# A cell's summary byte (``_summaries``): a red or black number card above or below it
# (vertical), beside it (horizontal), a face of seat 0 or 1 next to it, and the cell empty.
_RED_V, _BLACK_V, _RED_H, _BLACK_H, _SELF_EMPTY = 1, 2, 4, 8, 64
_NUMBER_NEXT = _RED_V | _BLACK_V | _RED_H | _BLACK_H
_FACE_NEXT = (_FACE_0, _FACE_1)
_CARD_NEXT = _NUMBER_NEXT | _FACE_0 | _FACE_1
#: ``[class]``: the neighbours that satisfy a card of the class under the placement rule
#: (section 15): a number card whose ``red XOR horizontal`` is the class
_SATISFIES = (_BLACK_V | _RED_H, _RED_V | _BLACK_H)


def _slots(row: jax.Array, seat: jax.Array) -> jax.Array:
    """A per-card row (36 entries in card-id order) in ``seat``'s card-slot order."""
    views = [
        jnp.concatenate([row[NUMBERS_PER_SUIT * suit : NUMBERS_PER_SUIT * (suit + 1)] for suit in _SLOT_SUITS[s]])
        for s in range(NUM_SEATS)
    ]
    return jnp.where(seat == 0, views[0], views[1])


assert all(
    np.array_equal(
        np.concatenate([_CARDS[NUMBERS_PER_SUIT * suit : NUMBERS_PER_SUIT * (suit + 1)] for suit in _SLOT_SUITS[s]]),
        _SLOT_CARD[s],
    )
    for s in range(NUM_SEATS)
), "card slots follow the seat's suits, own first (state.CARD_SLOT)"


def _of_seat(pair: jax.Array, seat: jax.Array) -> jax.Array:
    """``pair[seat]`` of a ``[2, ...]`` array, as a select (no gather)."""
    return jnp.where(seat == 0, pair[0], pair[1])


def _pick(values, index: jax.Array) -> jax.Array:
    """``values[index]`` of a short array (its first axis: a face, a seat, a direction; 0 for an
    index out of range) as a masked sum: cheaper on the CPU than a gather of one element."""
    values = jnp.asarray(values)
    hit = (jnp.arange(values.shape[0]) == index).reshape((-1,) + (1,) * (values.ndim - 1))
    if values.dtype == jnp.bool_:
        return (hit & values).any(axis=0)
    return jnp.where(hit, values, 0).sum(axis=0, dtype=values.dtype)


def _computed_once(tree: Tree, state: State) -> Tree:
    """``tree`` computed here, once per game, and stored.

    The CPU compiler fuses chains of cheap operations into every consumer, so a value that a
    block of the mask spreads over many entries (a face's neighbours, the payment sums, the
    faces' rows and columns) was computed again for each entry, which cost more than the rest
    of the step. It does not fuse an integer division into a consumer that reads its elements
    more than once: dividing by a one the compiler cannot see is one (``state.phase >= 0``)
    stores the value. (``lax.optimization_barrier`` does not: the CPU pipeline removes it
    before fusing.)"""
    one = (state.phase >= 0).astype(jnp.int32)

    def once(value: jax.Array) -> jax.Array:
        if value.dtype == jnp.bool_:
            return jax.lax.div(value.astype(jnp.int32), one) != 0
        return jax.lax.div(value, one.astype(value.dtype))

    return jax.tree_util.tree_map(once, tree)


def _card_of_slot(seat: jax.Array, slot: jax.Array) -> jax.Array:
    """The number card at ``seat``'s card slot (``state.CARD_AT_SLOT``)."""
    suit = _pick(jnp.asarray(_SLOT_SUITS, dtype=jnp.int32).T, slot // NUMBERS_PER_SUIT)
    return NUMBERS_PER_SUIT * _of_seat(suit, seat) + slot % NUMBERS_PER_SUIT


def _card_class(card: jax.Array) -> jax.Array:
    """A number card's placement class, ``red XOR even`` (``_CLASS``)."""
    red = (card >= _RED_LOW) & (card < _RED_HIGH)
    even = (card % NUMBERS_PER_SUIT + LOWEST_NUMBER_RANK) % 2 == 0
    return (red ^ even).astype(jnp.int32)


assert np.array_equal(_card_class(jnp.asarray(_CARDS)), _CLASS), "the class arithmetic follows the card codes"


def _decode(action: jax.Array, board_size: int) -> tuple[jax.Array, jax.Array, jax.Array]:
    """``ActionLayout.decode`` of an index: its kind, ``a`` and ``b`` (-1 where unused), by the
    blocks' starts and shapes (no table to gather from)."""
    layout = layout_for(board_size)
    kind = a = b = jnp.int32(-1)
    for block in layout.blocks:
        start = layout.starts[block.kind]
        offset = action - start
        inside = (offset >= 0) & (offset < int(np.prod(block.shape, dtype=int)))
        offset = jnp.maximum(offset, 0)
        kind = jnp.where(inside, int(block.kind), kind)
        if len(block.shape) == 1:
            a = jnp.where(inside, offset, a)
        elif len(block.shape) == 2:
            a = jnp.where(inside, offset // block.shape[1], a)
            b = jnp.where(inside, offset % block.shape[1], b)
    return kind, a, b


def _select(conditions, cases, default):
    """``jnp.select`` as nested selects: the case of the first condition that holds
    (``jnp.select`` finds it with a cumulative reduction, which is slow on the CPU)."""
    value = default
    for condition, case in reversed(list(zip(conditions, cases, strict=True))):
        value = jnp.where(condition, case, value)
    return value


# --------------------------------------------------------------------------- geometry of one board size


@dataclasses.dataclass(frozen=True)
class _Geometry:
    """Per board size, the numpy tables the twin closes over."""

    size: int
    cells: int
    #: ``[seat, d]``: the cell offset of a step in the seat's egocentric direction ``d``
    step: np.ndarray
    #: ``[seat, d]``: the (dr, dc) of the seat's egocentric direction ``d``
    directions: np.ndarray
    #: ``[orthogonal step]``: whether a cell has a neighbour in that column (not off the side)
    has_column: np.ndarray
    #: ``[seat]``: the (dr, dc) of the Jack's forward step and of the Queen's two sideways ones
    forward: np.ndarray
    sideways: np.ndarray
    #: ``[cell + 1, diagonal, k]``: the cells along each diagonal, nearest first, padded with
    #: ``cells`` (the sentinel one past the board); row ``cells`` is all sentinels (off the map)
    rays: np.ndarray
    centre: int


@cache
def _geometry(board_size: int) -> _Geometry:
    B = board_size
    step = np.array([[dr * B + dc for dr, dc in DIRECTIONS[seat]] for seat in range(NUM_SEATS)], dtype=np.int32)
    rays = np.full((B * B + 1, len(DIAGONAL), B - 1), B * B, dtype=np.int32)
    for cell in range(B * B):
        row, col = divmod(cell, B)
        for ray, (dr, dc) in enumerate(DIAGONAL):
            for k in range(1, B):
                r, c = row + k * dr, col + k * dc
                if 0 <= r < B and 0 <= c < B:
                    rays[cell, ray, k - 1] = r * B + c
    return _Geometry(
        size=B,
        cells=B * B,
        step=step,
        directions=np.array(DIRECTIONS, dtype=np.int32),
        has_column=np.array(
            [(np.arange(B * B) % B + dc >= 0) & (np.arange(B * B) % B + dc < B) for _, dc in ORTHOGONAL]
        ),
        forward=np.array([DIRECTIONS[seat][0] for seat in range(NUM_SEATS)], dtype=np.int32),
        sideways=np.array([(DIRECTIONS[seat][1], DIRECTIONS[seat][3]) for seat in range(NUM_SEATS)], dtype=np.int32),
        rays=rays,
        centre=(B // 2) * B + B // 2,
    )


# --------------------------------------------------------------------------- the board view


def _summaries(board: jax.Array, geo: _Geometry) -> jax.Array:
    """``uint8[C]``: each cell's summary byte, what is beside it and whether it is empty, from
    four shifted slices of the board padded by a row at each end (arrays of ``C`` entries, what
    the CPU vectorizes well)."""
    B, C = geo.size, geo.cells
    number = (board >= 0) & (board < NUM_NUMBER_CARDS)
    red = (board >= _RED_LOW) & (board < _RED_HIGH)
    on_cell = (
        jnp.where(red, _RED, 0)
        | jnp.where(number & ~red, _BLACK, 0)
        | jnp.where((board >= FACE_BASE) & (board < FACE_BASE + NUM_FACES), _FACE_0, 0)
        | jnp.where(board >= FACE_BASE + NUM_FACES, _FACE_1, 0)
    ).astype(jnp.uint8)
    padded = jnp.pad(on_cell, (B, B))
    vertical = horizontal = jnp.zeros(C, dtype=jnp.uint8)
    for step, (dr, dc) in enumerate(ORTHOGONAL):
        start = B + dr * B + dc
        beside = jnp.where(jnp.asarray(geo.has_column[step]), padded[start : start + C], jnp.uint8(0))
        if dr == 0:
            horizontal = horizontal | beside
        else:
            vertical = vertical | beside
    numbers = _RED | _BLACK
    return (
        (vertical & numbers)
        | ((horizontal & numbers) << 2)
        | ((vertical | horizontal) & (_FACE_0 | _FACE_1))
        | jnp.where(board == EMPTY, _SELF_EMPTY, 0).astype(jnp.uint8)
    )


def _holds(summary: jax.Array, wanted, forbidden) -> jax.Array:
    """Empty cells with one of the ``wanted`` neighbours and none of the ``forbidden`` ones."""
    return ((summary & _SELF_EMPTY) != 0) & ((summary & wanted) != 0) & ((summary & forbidden) == 0)


def _fits(summary: jax.Array, card_class, config: MapDuelConfig) -> jax.Array:
    """``setup.placement_ok`` by the config's rule for a card of ``card_class`` on empty cells."""
    satisfies = jnp.asarray(_SATISFIES, dtype=jnp.uint8)
    unsatisfied = _pick(satisfies, 1 - card_class) if config.placement_rule == "all_neighbours" else jnp.uint8(0)
    return _holds(summary, _pick(satisfies, card_class), unsatisfied)


def _row_col(cell: jax.Array, geo: _Geometry) -> tuple[jax.Array, jax.Array]:
    """The row and column of cells (anything for a negative cell: a face off the map)."""
    cell = jnp.maximum(cell, 0)
    row = jax.lax.div(cell, jnp.int32(geo.size))
    return row, cell - row * geo.size


def _map_counts(board: jax.Array) -> tuple[jax.Array, jax.Array]:
    """(number cards on the map, red ones among them): ``end._map_counts``."""
    numbers = ((board >= 0) & (board < NUM_NUMBER_CARDS)).sum(dtype=jnp.int32)
    reds = ((board >= _RED_LOW) & (board < _RED_HIGH)).sum(dtype=jnp.int32)
    return numbers, reds


def _cell_mask(state: State, summary: jax.Array, geo: _Geometry, config: MapDuelConfig) -> jax.Array:
    """The CELL block of the seat to act, in its frame: setup cells (section 16: the config's
    rule, else any neighbour, else any cell touching the map), starting faces' cells (17), a
    new face's cells (27)."""
    seat, phase = state.current_player, state.phase
    card_class = _card_class(state.drawn.astype(jnp.int32))
    satisfies = jnp.asarray(_SATISFIES, dtype=jnp.uint8)
    wanted = _select(
        [phase == Phase.SETUP_PLACE, phase == Phase.SETUP_FACE_CELL, phase == Phase.PLACE_CELL],
        [
            _pick(satisfies, card_class),
            jnp.uint8(_NUMBER_NEXT),
            _of_seat(jnp.asarray(_FACE_NEXT, dtype=jnp.uint8), seat),
        ],
        jnp.uint8(0),
    )
    setup = phase == Phase.SETUP_PLACE
    ruled = jnp.where(setup, _fits(summary, card_class, config), _holds(summary, wanted, 0))
    loose = _holds(summary, wanted, 0)
    touching = _holds(summary, jnp.where(setup, jnp.uint8(_CARD_NEXT), wanted), 0)
    cells = jnp.where(ruled.any(), ruled, jnp.where(loose.any(), loose, touching))
    return jnp.where(seat == 0, cells, cells[::-1])  # player_1's cell x is absolute C - 1 - x


class _Near(NamedTuple):
    """``[seat, face, d]``: what is beside every face in each of its seat's egocentric
    directions (nothing off the board; anything for a face off the map)."""

    number: jax.Array
    empty: jax.Array
    #: ``[class, seat, face, d]``: an empty cell where a card of the class may be built
    #: (``build_uses_placement_rule`` only; else None)
    fits: jax.Array | None


def _neighbourhoods(
    board: jax.Array, face_pos: jax.Array, summary: jax.Array, geo: _Geometry, config: MapDuelConfig
) -> _Near:
    """The cells beside the 16 faces: one gather of ``2 x 8 x 4`` board codes."""
    B = geo.size
    pos = face_pos.astype(jnp.int32)
    steps = jnp.asarray(geo.directions)  # [seat, d, (dr, dc)]
    row, col = _row_col(pos, geo)
    row = row[:, :, None] + steps[:, None, :, 0]
    col = col[:, :, None] + steps[:, None, :, 1]
    inside = (pos >= 0)[:, :, None] & (row >= 0) & (row < B) & (col >= 0) & (col < B)
    cell = jnp.clip(row * B + col, 0, geo.cells - 1)
    code = board[cell]
    fits = None
    if config.build_uses_placement_rule:
        fits = jnp.stack([inside & _fits(summary[cell], card_class, config) for card_class in range(2)])
    return _Near(
        number=inside & (code >= 0) & (code < NUM_NUMBER_CARDS),
        empty=inside & (code == EMPTY),
        fits=fits,
    )


# --------------------------------------------------------------------------- confrontations


def _reach(state: State, seat: jax.Array, geo: _Geometry, config: MapDuelConfig) -> jax.Array:
    """``[own face, enemy face]``: ``confront.confront_targets`` of each of ``seat``'s faces on
    the map, from the faces' positions alone (section 32): the two faces of each type get their
    type's reach."""
    pos = state.face_pos.astype(jnp.int32)
    on_map = state.face_status == ON_MAP
    own, enemy = _of_seat(pos, seat), _of_seat(pos[::-1], seat)
    own_on, enemy_on = _of_seat(on_map, seat), _of_seat(on_map[::-1], seat)
    own_row, own_col = _row_col(own, geo)
    enemy_row, enemy_col = _row_col(enemy, geo)
    forward = _of_seat(jnp.asarray(geo.forward), seat)
    sideways = _of_seat(jnp.asarray(geo.sideways), seat)
    # the small per-game values, computed once before they are spread over face pairs
    own_row, own_col, enemy_row, enemy_col, forward, sideways = _computed_once(
        (own_row, own_col, enemy_row, enemy_col, forward, sideways), state
    )

    def offsets(kind: int) -> tuple[jax.Array, jax.Array]:
        """``[face of the type, enemy face]``: the row and column differences to each enemy."""
        rows, cols = own_row[kind::FACES_PER_SUIT], own_col[kind::FACES_PER_SUIT]
        return enemy_row[None, :] - rows[:, None], enemy_col[None, :] - cols[:, None]

    def one_of(dr: jax.Array, dc: jax.Array, steps) -> jax.Array:
        hit = jnp.zeros(dr.shape, dtype=jnp.bool_)
        for step_r, step_c in steps:
            hit = hit | ((dr == step_r) & (dc == step_c))
        return hit

    jack = one_of(*offsets(JACK_TYPE), [(forward[0], forward[1])])
    queen = one_of(*offsets(QUEEN_TYPE), [(sideways[0, 0], sideways[0, 1]), (sideways[1, 0], sideways[1, 1])])
    king = one_of(*offsets(KING_TYPE), ORTHOGONAL + (DIAGONAL if config.king_reach == "all8" else ()))
    ace = _ace_reach(state, seat, *offsets(ACE_TYPE), geo, config)
    by_type = {JACK_TYPE: jack, QUEEN_TYPE: queen, KING_TYPE: king, ACE_TYPE: ace}
    reach = jnp.stack([by_type[face_type(f)][f // FACES_PER_SUIT] for f in range(NUM_FACES)])
    return reach & own_on[:, None] & enemy_on[None, :]


def _ace_reach(
    state: State, seat: jax.Array, dr: jax.Array, dc: jax.Array, geo: _Geometry, config: MapDuelConfig
) -> jax.Array:
    """``[ace, enemy face]``: the enemy faces each of ``seat``'s Aces (``ACE_FACES``) reaches
    from its offsets ``dr``, ``dc`` to them: along the diagonals, up to what blocks them."""
    diagonal = (jnp.abs(dr) == jnp.abs(dc)) & (dr != 0)
    ace_pos = _of_seat(state.face_pos, seat)[ACE_TYPE::FACES_PER_SUIT].astype(jnp.int32)
    if config.ace_blocking == "none":
        return diagonal
    if config.ace_blocking == "faces":
        # a face (either seat's, on the map) strictly between the Ace and the target blocks
        every_on = (state.face_status == ON_MAP).reshape(-1)
        every_row, every_col = _row_col(state.face_pos.astype(jnp.int32).reshape(-1), geo)
        ace_row, ace_col = _row_col(ace_pos, geo)
        gr = every_row[None, :] - ace_row[:, None]  # [ace, any face]
        gc = every_col[None, :] - ace_col[:, None]
        gr, gc, every_on = _computed_once((gr, gc, every_on), state)
        er, ec = dr[:, :, None], dc[:, :, None]  # [ace, enemy, 1]
        between = (
            every_on[None, None, :]
            & (gr[:, None, :] * er > 0)
            & (gc[:, None, :] * ec > 0)
            & (jnp.abs(gr) == jnp.abs(gc))[:, None, :]
            & (jnp.abs(gr)[:, None, :] < jnp.abs(er))
        )
        return diagonal & ~between.any(axis=-1)
    # "cards": the first card along each diagonal stops it; it is a target if it is an enemy face
    cells = jnp.asarray(geo.rays)[jnp.where(ace_pos >= 0, ace_pos, geo.cells)]  # [ace, diagonal, k]
    codes = jnp.concatenate([state.board, jnp.full(1, EMPTY, dtype=state.board.dtype)])[cells].astype(jnp.int32)
    occupied = codes != EMPTY
    first = jnp.take_along_axis(codes, jnp.argmax(occupied, axis=-1)[..., None], axis=-1)[..., 0]
    first = jnp.where(occupied.any(axis=-1), first, EMPTY)
    low = FACE_BASE + NUM_FACES * (1 - seat)
    hit = (first[:, :, None] - low) == jnp.arange(NUM_FACES)[None, None, :]  # [ace, diagonal, enemy]
    return hit.any(axis=1)


def _face_values(pools: jax.Array) -> jax.Array:
    """``[seat, face]``: ``confront.face_value`` of every face (section 35(d)): a Jack
    ``JACK_VALUE``, a Queen the ranks of its suit's pool cards, a King those of both own suits."""
    totals = (pools.reshape(NUM_SEATS, NUM_SUITS, NUMBERS_PER_SUIT) * jnp.asarray(_SUIT_RANKS)).sum(axis=-1)
    rows = []
    for seat in range(NUM_SEATS):
        values = []
        for f in range(NUM_FACES):
            kind = face_type(f)
            if kind == JACK_TYPE:
                values.append(jnp.int32(JACK_VALUE))
            elif kind == KING_TYPE:
                values.append(totals[seat, SEAT_SUITS[seat][0]] + totals[seat, SEAT_SUITS[seat][1]])
            elif kind == QUEEN_TYPE:
                values.append(totals[seat, face_suit(seat, f)])
            else:
                values.append(jnp.int32(0))  # an Ace's value is never compared
        rows.append(jnp.stack(values))
    return jnp.stack(rows)


def _resolve(
    state: State, seat: jax.Array, face: jax.Array, enemy_face: jax.Array, key: jax.Array, config: MapDuelConfig
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """``confront.resolve``: (who loses: 1 the defender, -1 the attacker, 0 nobody; whether a
    coin was flipped; whether it came up heads)."""
    enemy = 1 - seat
    kind, other = face % FACES_PER_SUIT, enemy_face % FACES_PER_SUIT
    suits, values = jnp.asarray(_FACE_SUIT), _face_values(state.pools)
    attacker_suit, defender_suit = _pick(_of_seat(suits, seat), face), _pick(_of_seat(suits, enemy), enemy_face)
    mine, theirs = _pick(_of_seat(values, seat), face), _pick(_of_seat(values, enemy), enemy_face)
    if config.jack_suit_rule == "major_minor":
        jack_low = jnp.isin(attacker_suit, jnp.asarray(MINOR_SUITS)) & jnp.isin(defender_suit, jnp.asarray(MAJOR_SUITS))
    else:
        jack_low = jnp.bool_(config.suit_order == "CDHS") & (attacker_suit < defender_suit)
    aggressor_wins = config.ace_vs_ace == "aggressor_wins"
    ace, against_ace = kind == ACE_TYPE, other == ACE_TYPE
    jacks = (kind == JACK_TYPE) & (other == JACK_TYPE)
    tie = mine == theirs
    ace_sure = against_ace & aggressor_wins  # an Ace against an Ace, the aggressor winning
    coin = jnp.where(
        ace,
        ~ace_sure,
        ~against_ace & jnp.where(jacks, jack_low, tie & (config.suit_order != "CDHS")),
    )
    heads = jax.random.bits(key, (), jnp.uint32) < jnp.uint32(1 << 31)
    coin_loser = jnp.where(heads, 1, jnp.where(ace, 0, -1))
    by_value = jnp.where(
        ~tie, jnp.where(mine > theirs, 1, -1), jnp.where(attacker_suit > defender_suit, 1, -1)
    )  # a tie under "CDHS" (under "none" the coin decides)
    loser = jnp.where(coin, coin_loser, jnp.where(ace | against_ace | jacks, 1, by_value))
    return loser.astype(jnp.int32), coin, heads


# --------------------------------------------------------------------------- legal actions


class _Step2Moves(NamedTuple):
    """The acting seat's CONSUME, BUILD (``[face, d]``) and CONFRONT (``[face, enemy]``)."""

    consume: jax.Array
    build: jax.Array
    confront: jax.Array

    def any(self) -> jax.Array:
        return self.consume.any() | self.build.any() | self.confront.any()


def _step2_moves(state: State, seat: jax.Array, near: _Near, geo: _Geometry, config: MapDuelConfig) -> _Step2Moves:
    """``step2._step2_moves``: what each of ``seat``'s faces that has not acted may do."""
    free = (_of_seat(state.face_status, seat) == ON_MAP) & ~state.acted
    pool = _of_seat(state.pools, seat)
    build = _of_seat(near.empty, seat) & pool.any()
    if near.fits is not None:  # build_uses_placement_rule
        has_class = [(pool & (jnp.asarray(_CLASS) == p)).any() for p in range(2)]
        build = build & ((_of_seat(near.fits[0], seat) & has_class[0]) | (_of_seat(near.fits[1], seat) & has_class[1]))
    return _Step2Moves(
        consume=free[:, None] & _of_seat(near.number, seat),
        build=free[:, None] & build,
        confront=free[:, None] & _reach(state, seat, geo, config),
    )


def _payments(opposite: jax.Array) -> tuple[jax.Array, jax.Array, jax.Array]:
    """What an opposite-colour pool (18 entries in card-slot order: two suits of ranks 2..10)
    can pay (``new_face.affordable``, ``can_pay``): the bit set of its subset sums, its count of
    prime ranks, and ``[rank index]`` the subset sums without one card of that rank."""
    counts = opposite[:NUMBERS_PER_SUIT].astype(jnp.int32) + opposite[NUMBERS_PER_SUIT:].astype(jnp.int32)
    # row r < 9: the pool without one card of rank index r; row 9: the whole pool
    rows = counts[None, :] - jnp.eye(NUMBERS_PER_SUIT + 1, NUMBERS_PER_SUIT, dtype=jnp.int32)
    sums = jnp.ones(NUMBERS_PER_SUIT + 1, dtype=jnp.uint32)
    for index, rank in enumerate(_SUIT_RANKS):
        for copies in (1, 2):
            sums = jnp.where(rows[:, index] >= copies, sums | (sums << int(rank)), sums)
    primes = (counts * jnp.asarray(_SUIT_PRIMES)).sum()
    return sums[NUMBERS_PER_SUIT], primes, sums[:NUMBERS_PER_SUIT]


def _has_bit(bits: jax.Array, index: jax.Array) -> jax.Array:
    return ((bits >> jnp.clip(index, 0, 31).astype(jnp.uint32)) & 1) == 1


def _legal_mask(
    state: State, summary: jax.Array, near: _Near, moves: _Step2Moves, geo: _Geometry, config: MapDuelConfig
) -> jax.Array:
    """``legal_mask`` of the seat to act, in its own frame: the blocks in table order, each
    from the phase that allows it (all zero once the game is over). ``moves`` are the seat's
    step 2 moves when the phase is STEP_2."""
    seat = state.current_player
    phase = state.phase
    cells = _cell_mask(state, summary, geo, config)

    # the seat's own view of the small things, computed once before the blocks spread them
    status = _of_seat(state.face_status, seat)
    pool = _slots(_of_seat(state.pools, seat), seat)
    paid = _slots(state.paid, seat)
    paid_sum = (state.paid * jnp.asarray(_RANK)).sum()
    status, pool, paid, paid_sum, number_beside, empty_beside = _computed_once(
        (status, pool, paid, paid_sum, _of_seat(near.number, seat), _of_seat(near.empty, seat)), state
    )
    on_map = status == ON_MAP
    own_pool, opposite = pool[: 2 * NUMBERS_PER_SUIT], pool[2 * NUMBERS_PER_SUIT :]
    sums, primes, sums_without = _computed_once(_payments(opposite), state)

    # FACE: a starting face, a new face, the face a sacrifice moves
    has_cell = (on_map[:, None] & empty_beside).any()
    affords = jnp.where(
        jnp.asarray(_FACE_TYPE) == ACE_TYPE, primes >= ACE_PRIMES, _has_bit(sums, jnp.asarray(_PAY_TARGET))
    )
    new_face = (status == DECK) & on_map.any() & has_cell & affords
    paid_suit = jnp.stack([paid[:NUMBERS_PER_SUIT].any(), paid[NUMBERS_PER_SUIT : 2 * NUMBERS_PER_SUIT].any()])
    sacrificed = on_map & jnp.repeat(paid_suit, FACES_PER_SUIT)
    faces = jnp.where(
        phase == Phase.SETUP_FACE,
        jnp.asarray(_FACE_TYPE != ACE_TYPE),
        jnp.where(phase == Phase.STEP_1, new_face, (phase == Phase.SACRIFICE_FACE) & sacrificed),
    )

    step_1 = phase == Phase.STEP_1
    swap_adj = step_1 & on_map[:, None] & number_beside
    aces = np.array(ACE_FACES)
    swap_ace = (
        step_1
        & on_map[:, None]
        & on_map[ACE_TYPE::FACES_PER_SUIT][None, :]
        & (np.arange(NUM_FACES)[:, None] != aces[None, :])
    )

    # POOL: a sacrifice, a payment, a build's card
    suit_on_map = jnp.stack([on_map[:FACES_PER_SUIT].any(), on_map[FACES_PER_SUIT:].any()])
    sacrifice = own_pool & jnp.repeat(suit_on_map, NUMBERS_PER_SUIT)
    remaining = state.pay_target.astype(jnp.int32) - paid_sum - jnp.asarray(_SUIT_RANKS)
    pays_rank = jnp.where(
        state.pay_target == ACE_PAYMENT,
        jnp.asarray(_SUIT_PRIMES),
        (remaining >= 0) & _has_bit(sums_without, remaining),
    )
    payment = opposite & jnp.tile(pays_rank, 2)
    if config.build_uses_placement_rule:
        here = summary[jnp.maximum(state.build_cell, 0)]
        fits_here = jnp.stack([_fits(here, card_class, config) for card_class in range(2)])
        buildable = pool & fits_here[_of_seat(jnp.asarray(_SLOT_CLASS), seat)]
    else:
        buildable = pool
    zeros = jnp.zeros(2 * NUMBERS_PER_SUIT, dtype=jnp.bool_)
    pools = jnp.where(
        step_1,
        jnp.concatenate([sacrifice, zeros]),
        jnp.where(
            phase == Phase.PLACE_PAY,
            jnp.concatenate([zeros, payment]),
            (phase == Phase.BUILD_CARD) & buildable,
        ),
    )

    # MOVE, STOP: the sacrifice's swaps
    moving = phase == Phase.SACRIFICE_MOVE
    pending = jnp.maximum(state.pending_face, 0)
    move = moving & _pick(number_beside, pending)
    stop = moving & (jnp.bool_(not config.sacrifice_exact) | ~move.any())

    step_2 = phase == Phase.STEP_2
    pieces = (
        (Kind.CELL, cells),
        (Kind.FACE, faces),
        (Kind.SWAP_ADJ, swap_adj),
        (Kind.SWAP_ACE, swap_ace),
        (Kind.POOL, pools),
        (Kind.MOVE, move),
        (Kind.STOP, stop[None]),
        (Kind.PASS_STEP1, step_1[None]),
        (Kind.CONSUME, step_2 & moves.consume),
        (Kind.BUILD, step_2 & moves.build),
        (Kind.CONFRONT, step_2 & moves.confront),
        (Kind.END_TURN, step_2[None]),
    )
    layout = layout_for(geo.size)
    for kind, piece in pieces:  # checked as traced: the pieces follow the action table
        block = layout.block_range(kind)
        if piece.size != len(block) or block.start != sum(p.size for k, p in pieces if k < kind):
            raise AssertionError(f"the {kind.name} piece does not fit the action table")
    return jnp.concatenate([piece.reshape(-1) for _, piece in pieces])


class _Derived(NamedTuple):
    """The pieces of a state that its legal mask is built from."""

    summary: jax.Array
    near: _Near


def _derive(state: State, geo: _Geometry, config: MapDuelConfig) -> _Derived:
    summary = _summaries(state.board, geo)
    return _Derived(summary, _neighbourhoods(state.board, state.face_pos, summary, geo, config))


def _finish(state: State, derived: _Derived, moves: _Step2Moves, geo: _Geometry, config: MapDuelConfig) -> State:
    """The fields a state's rules fill after every change: the mask (all zero once over), the
    end flags and the observation of the seat to act."""
    from . import jax_observe

    mask = _legal_mask(state, derived.summary, derived.near, moves, geo, config)
    state = state.replace(
        legal_action_mask=mask & (state.phase != Phase.OVER),
        terminated=(state.outcome != ONGOING_RESULT) & (state.outcome != TRUNCATED_RESULT),
        truncated=state.outcome == TRUNCATED_RESULT,
    )
    return state.replace(observation=jax_observe.observe(state, state.current_player, config))


# --------------------------------------------------------------------------- the step


#: the fields a step computes (the pgx fields but the seat, and the deal order, pass through)
_STEP_FIELDS = tuple(
    field.name
    for field in dataclasses.fields(State)
    if field.name == "current_player" or field.name not in PGX_FIELDS and field.name != "deck_order"
)


def _state_computed_once(state: State) -> State:
    """The fields a step computes, each computed once (``_computed_once``)."""
    return state.replace(**_computed_once({name: getattr(state, name) for name in _STEP_FIELDS}, state))


def _put(array: jax.Array, hit: jax.Array, value) -> jax.Array:
    return jnp.where(hit, jnp.asarray(value).astype(array.dtype), array)


def make_step(config: MapDuelConfig):
    """The twin of ``rules.apply_action`` for one config (its flags are static)."""
    geo = _geometry(config.board_size)
    C = geo.cells
    seat_grid = np.arange(NUM_SEATS)[:, None]
    face_grid = np.arange(NUM_FACES)[None, :]

    def step(state: State, action: jax.Array, key: jax.Array) -> State:
        """One legal action of the seat to act (``adapters.jax_env`` handles illegal actions
        and finished games)."""
        action = jnp.asarray(action, dtype=jnp.int32)
        kind, a, b = _computed_once(_decode(action, geo.size), state)
        seat = state.current_player.astype(jnp.int32)
        phase = state.phase.astype(jnp.int32)
        board = state.board
        s = state

        # which effect: the kind, and the phase for kinds several phases share
        placing_card = phase == Phase.SETUP_PLACE
        choosing_start = phase == Phase.SETUP_FACE
        placing_start = phase == Phase.SETUP_FACE_CELL
        swap_adj, swap_ace = kind == Kind.SWAP_ADJ, kind == Kind.SWAP_ACE
        sacrificing = (phase == Phase.STEP_1) & (kind == Kind.POOL)
        new_face = (phase == Phase.STEP_1) & (kind == Kind.FACE)
        passing = kind == Kind.PASS_STEP1
        choosing_sacrificed = phase == Phase.SACRIFICE_FACE
        moving, stopping = kind == Kind.MOVE, kind == Kind.STOP
        choosing_cell = phase == Phase.PLACE_CELL
        paying = phase == Phase.PLACE_PAY
        consuming, building = kind == Kind.CONSUME, kind == Kind.BUILD
        confronting, ending = kind == Kind.CONFRONT, kind == Kind.END_TURN
        building_card = phase == Phase.BUILD_CARD

        # the arguments: a cell, a card of the pool, a face and the cell it moves to or acts on
        chosen_cell = jnp.where(seat == 0, a, C - 1 - a)
        card = _card_of_slot(seat, jnp.clip(a, 0, NUM_NUMBER_CARDS - 1))
        card_hot = jnp.asarray(_CARDS) == card
        own_pos = _of_seat(s.face_pos, seat).astype(jnp.int32)
        pending_face = s.pending_face.astype(jnp.int32)
        mover = jnp.where(moving, pending_face, jnp.clip(a, 0, NUM_FACES - 1))
        direction = jnp.clip(jnp.where(moving, a, b), 0, NUM_DIRECTIONS - 1)
        here = _pick(own_pos, mover)
        ace_face = ACE_FACES[0] + FACES_PER_SUIT * jnp.clip(b, 0, 1)
        there = jnp.where(
            swap_ace, _pick(own_pos, ace_face), here + _pick(_of_seat(jnp.asarray(geo.step), seat), direction)
        )
        here, there = _computed_once((here, there), state)
        here_code, there_code = board[jnp.clip(here, 0, C - 1)], board[jnp.clip(there, 0, C - 1)]
        swapping = swap_adj | swap_ace | moving
        own_face_code = (FACE_BASE + NUM_FACES * seat + pending_face).astype(board.dtype)

        # a payment that completes the new face (section 26)
        paid_after = s.paid | (paying & card_hot)
        paid_count = paid_after.sum()
        paid_sum = (paid_after * jnp.asarray(_RANK)).sum()
        paid_up = paying & jnp.where(
            s.pay_target == ACE_PAYMENT, paid_count == ACE_PRIMES, paid_sum == s.pay_target.astype(jnp.int32)
        )

        # a confrontation (section 35)
        loser, coin, heads = _computed_once(
            _resolve(s, seat, jnp.clip(a, 0, NUM_FACES - 1), jnp.clip(b, 0, NUM_FACES - 1), key, config), state
        )
        coin = confronting & coin
        loser = jnp.where(confronting, loser, 0)
        loser_seat = jnp.where(loser == 1, 1 - seat, seat)
        loser_face = jnp.where(loser == 1, b, a)
        loser_pos = _pick(_of_seat(s.face_pos, loser_seat), loser_face).astype(jnp.int32)
        paid_up, loser_seat, loser_face, loser_pos = _computed_once((paid_up, loser_seat, loser_face, loser_pos), state)

        # the board: at most two cells change
        first_cell = _select(
            [placing_card | placing_start, swapping, paid_up, consuming, loser != 0, building_card],
            [chosen_cell, here, s.pending_cell.astype(jnp.int32), there, loser_pos, s.build_cell.astype(jnp.int32)],
            -1,
        )
        first_code = _select(
            [placing_card, placing_start | paid_up, swapping, building_card],
            [s.drawn, own_face_code, there_code, card.astype(board.dtype)],
            jnp.int8(EMPTY),
        )
        second_cell = jnp.where(swapping, there, -1)
        first_cell, first_code, second_cell = _computed_once((first_cell, first_code, second_cell), state)
        cells = jnp.arange(C)
        board = jnp.where(cells == first_cell, first_code, jnp.where(cells == second_cell, here_code, board))

        # the faces: at most two change place or status
        face_pos, face_status = s.face_pos, s.face_status
        placed = placing_start | paid_up
        first_face = jnp.where(loser != 0, loser_face, jnp.where(swapping, mover, pending_face))
        first_seat = jnp.where(loser != 0, loser_seat, seat)
        first_pos = jnp.where(
            swapping, there, jnp.where(placing_start, chosen_cell, jnp.where(paid_up, s.pending_cell, -1))
        )
        first_face, first_seat, first_pos = _computed_once((first_face, first_seat, first_pos), state)
        first_hit = (swapping | placed | (loser != 0)) & (seat_grid == first_seat) & (face_grid == first_face)
        face_pos = _put(face_pos, first_hit, first_pos)
        face_status = _put(face_status, first_hit & placed, ON_MAP)
        face_status = _put(face_status, first_hit & (loser != 0), REMOVED)
        face_pos = _put(face_pos, swap_ace & (seat_grid == seat) & (face_grid == ace_face), here)

        # the pools: a card leaves (sacrifice, payment, build) or comes (consume)
        seat_row = seat_grid == seat
        pools = jnp.where(seat_row & card_hot & (sacrificing | paying | building_card), False, s.pools)
        pools = jnp.where(seat_row & (jnp.asarray(_CARDS) == there_code) & consuming, True, pools)
        removed = s.removed_numbers | ((sacrificing | paying) & card_hot)
        paid = jnp.where(sacrificing, card_hot, paid_after)

        # a sacrifice: the faces of the card's suit that may move (section 24)
        candidates = (_of_seat(s.face_status, seat) == ON_MAP) & (
            _of_seat(jnp.asarray(_FACE_SUIT), seat) == card // NUMBERS_PER_SUIT
        )
        single = candidates.sum() == 1
        only_candidate = jnp.argmax(candidates).astype(jnp.int32)
        single, only_candidate = _computed_once((single, only_candidate), state)
        entering_moves = (sacrificing & single) | choosing_sacrificed

        # the setup's next card
        more_cards = s.deck_drawn < NUM_NUMBER_CARDS
        next_card = s.deck_order[jnp.minimum(s.deck_drawn, NUM_NUMBER_CARDS - 1)]
        second_start = placing_start & (s.setup_faces_placed == 1)

        # the decision that comes next, and whose it is
        new_phase = _select(
            [
                placing_card & ~more_cards,
                choosing_start,
                placing_start & ~second_start,
                new_face,
                sacrificing & ~single,
                entering_moves,
                choosing_cell,
                building,
                building_card,
            ],
            [
                Phase.SETUP_FACE,
                Phase.SETUP_FACE_CELL,
                Phase.SETUP_FACE,
                Phase.PLACE_CELL,
                Phase.SACRIFICE_FACE,
                Phase.SACRIFICE_MOVE,
                Phase.PLACE_PAY,
                Phase.BUILD_CARD,
                Phase.STEP_2,
            ],
            phase,
        )
        current = jnp.where(
            (placing_card & more_cards) | (placing_start & ~second_start),
            1 - seat,
            jnp.where((placing_card & ~more_cards) | second_start, s.first.astype(jnp.int32), seat),
        )
        acted_face = jnp.where(building_card, pending_face, a)
        s = s.replace(
            board=board,
            face_pos=face_pos,
            face_status=face_status,
            pools=pools,
            removed_numbers=removed,
            paid=paid,
            drawn=jnp.where(placing_card, jnp.where(more_cards, next_card, -1), s.drawn).astype(s.drawn.dtype),
            deck_drawn=s.deck_drawn + (placing_card & more_cards).astype(s.deck_drawn.dtype),
            phase=new_phase.astype(s.phase.dtype),
            current_player=current.astype(s.current_player.dtype),
            progress_this_turn=s.progress_this_turn | sacrificing | paying | consuming | confronting | building_card,
            step1_done=s.step1_done | sacrificing | new_face,
            acted=s.acted | ((consuming | confronting | building_card) & (jnp.arange(NUM_FACES) == acted_face)),
            pending_face=_select(
                [
                    choosing_start | new_face | choosing_sacrificed | building,
                    sacrificing & single,
                    placing_start | building_card,
                ],
                [a, only_candidate, -1],
                pending_face,
            ).astype(s.pending_face.dtype),
            pending_cell=jnp.where(choosing_cell, chosen_cell, s.pending_cell).astype(s.pending_cell.dtype),
            pay_target=jnp.where(new_face, _pick(jnp.asarray(_PAY_TARGET), a), s.pay_target).astype(s.pay_target.dtype),
            moves_left=jnp.where(
                sacrificing,
                card % NUMBERS_PER_SUIT + LOWEST_NUMBER_RANK,
                s.moves_left - moving.astype(s.moves_left.dtype),
            ).astype(s.moves_left.dtype),
            build_cell=jnp.where(building, there, jnp.where(building_card, -1, s.build_cell)).astype(
                s.build_cell.dtype
            ),
            setup_faces_placed=s.setup_faces_placed + placing_start.astype(s.setup_faces_placed.dtype),
            hidden_face=jnp.where(
                placing_start,
                jnp.where(second_start, jnp.array([-1, -1]), jnp.stack([seat, pending_face])),
                s.hidden_face,
            ).astype(s.hidden_face.dtype),
            coin_flips=s.coin_flips + coin.astype(s.coin_flips.dtype),
            last_coin=jnp.where(coin, heads.astype(jnp.int8), jnp.int8(-1)),
        )
        checks_end = swapping | paid_up | consuming | confronting | building_card
        s = _state_computed_once(s)
        to_step2 = passing | stopping | swap_adj | swap_ace | paid_up  # while the game goes on
        s, derived, moves = _follow_up(
            s, seat, checks_end, to_step2, entering_moves, moving, ending, second_start, geo, config
        )
        s = s.replace(rewards=_rewards(state, s, config), step_count=state.step_count + 1)
        return _finish(s, derived, moves, geo, config)

    return step


def _follow_up(
    s: State,
    seat: jax.Array,
    checks_end: jax.Array,
    to_step2: jax.Array,
    entering_moves: jax.Array,
    moved: jax.Array,
    ending: jax.Array,
    begins_play: jax.Array,
    geo: _Geometry,
    config: MapDuelConfig,
) -> tuple[State, _Derived, _Step2Moves]:
    """What the Python rules do after an action's own effect, in their order: ``check_end``,
    a sacrifice's swaps that cannot begin or go on, ``to_step2``, ``_auto_end``, ``end_turn``
    and ``begin_turn``. Returns the state, its board's derived pieces and ``seat``'s step 2
    moves (the mask's, when step 2 goes on)."""
    derived = _computed_once(_derive(s, geo, config), s)

    # check_end (sections 41-44): colour victory or an opponent without faces; both a draw
    numbers, reds = _map_counts(s.board)
    colour = jnp.stack([(numbers > 0) & (reds == numbers), (numbers > 0) & (reds == 0)])
    has_faces = (s.face_status == ON_MAP).any(axis=1)
    succeeds = colour | ~has_faces[::-1]
    result = jnp.where(succeeds[0] & succeeds[1], DRAW_RESULT, jnp.where(succeeds[0], WON_BY_0, WON_BY_0 + 1))
    ends, result = _computed_once((checks_end & succeeds.any(), result), s)
    s = s.replace(
        outcome=jnp.where(ends, result, s.outcome).astype(s.outcome.dtype),
        phase=jnp.where(ends, Phase.OVER, s.phase).astype(s.phase.dtype),
    )
    ongoing = s.outcome == ONGOING_RESULT

    # a sacrifice's face with no number card beside it, or out of swaps (section 25)
    can_swap = _pick(_of_seat(derived.near.number, seat), s.pending_face).any()
    to_step2 = _computed_once(
        (to_step2 & ongoing) | (entering_moves & ~can_swap) | (moved & ongoing & ((s.moves_left <= 0) | ~can_swap)), s
    )
    s = s.replace(
        step1_done=s.step1_done | to_step2,
        pending_face=jnp.where(to_step2, -1, s.pending_face).astype(s.pending_face.dtype),
        pending_cell=jnp.where(to_step2, -1, s.pending_cell).astype(s.pending_cell.dtype),
        paid=s.paid & ~to_step2,
        pay_target=jnp.where(to_step2, 0, s.pay_target).astype(s.pay_target.dtype),
        moves_left=jnp.where(to_step2, 0, s.moves_left).astype(s.moves_left.dtype),
        phase=jnp.where(to_step2, Phase.STEP_2, s.phase).astype(s.phase.dtype),
    )

    # step 2 with nothing but END_TURN ends the turn by itself (section 3)
    moves = _computed_once(_step2_moves(s, seat, derived.near, geo, config), s)
    auto_end = (s.phase == Phase.STEP_2) & ongoing & ~moves.any()
    turn_ends = (ending | auto_end) & ongoing

    # end_turn: a draw after no_progress_turns turns without progress, else the other seat's turn
    no_progress = jnp.where(s.progress_this_turn, 0, s.no_progress + 1)
    drawn = turn_ends & (no_progress >= config.no_progress_turns)
    turn_ends, drawn, passes = _computed_once((turn_ends, drawn, turn_ends & ~drawn), s)
    s = s.replace(
        no_progress=jnp.where(turn_ends, no_progress, s.no_progress).astype(s.no_progress.dtype),
        outcome=jnp.where(drawn, DRAW_RESULT, s.outcome).astype(s.outcome.dtype),
        phase=jnp.where(drawn, Phase.OVER, s.phase).astype(s.phase.dtype),
        current_player=jnp.where(passes, 1 - s.current_player, s.current_player),
    )

    # begin_turn: truncation after length_limit turns, else step 1 of a fresh turn
    begins = passes | begins_play
    truncated = begins & (s.turn >= config.length_limit)
    truncated, fresh = _computed_once((truncated, begins & ~truncated), s)
    s = s.replace(
        outcome=jnp.where(truncated, TRUNCATED_RESULT, s.outcome).astype(s.outcome.dtype),
        phase=jnp.where(truncated, Phase.OVER, jnp.where(fresh, Phase.STEP_1, s.phase)).astype(s.phase.dtype),
        turn=s.turn + fresh.astype(s.turn.dtype),
        step1_done=s.step1_done & ~fresh,
        acted=s.acted & ~fresh,
        progress_this_turn=s.progress_this_turn & ~fresh,
        pending_face=jnp.where(fresh, -1, s.pending_face).astype(s.pending_face.dtype),
        pending_cell=jnp.where(fresh, -1, s.pending_cell).astype(s.pending_cell.dtype),
        paid=s.paid & ~fresh,
    )
    return _state_computed_once(s), derived, moves


def _rewards(before: State, after: State, config: MapDuelConfig) -> jax.Array:
    """Both seats' rewards of a step (``phases.apply_action``): the shaping over red's colour
    share while the game goes on, and the result once won (a draw and a truncation pay 0)."""
    winner = after.outcome.astype(jnp.int32) - WON_BY_0
    won = (winner == 0) | (winner == 1)
    rewards = jnp.where(won, jnp.where(jnp.arange(NUM_SEATS) == winner, 1.0, -1.0), 0.0).astype(jnp.float32)
    if config.shaping:
        numbers, reds = _map_counts(before.board)
        after_numbers, after_reds = _map_counts(after.board)
        # a step puts at most one number card on the map or takes one off
        more_numbers = jnp.clip(after_numbers - numbers, -1, 1) + 1
        more_reds = jnp.clip(after_reds - reds, -1, 1) + 1
        index = ((numbers * _SHAPING_SHAPE[1] + reds) * _SHAPING_SHAPE[2] + more_numbers) * _SHAPING_SHAPE[
            3
        ] + more_reds
        paid = jnp.asarray(_shaping_table(config.shaping).reshape(-1))[index]
        rewards = rewards + jnp.where(after.outcome == ONGOING_RESULT, jnp.stack([paid, -paid]), 0.0)
    return rewards


#: ``_shaping_table``'s shape: number cards on the map before, red ones, the change of each + 1
_SHAPING_SHAPE = (NUM_NUMBER_CARDS + 1, NUM_NUMBER_CARDS + 1, 3, 3)


@cache
def _shaping_table(shaping: float) -> np.ndarray:
    """``float32[_SHAPING_SHAPE]``: ``player_0``'s shaped reward of a step (section 1) from the
    map's number cards and red ones before it and their changes (-1, 0 or +1), computed as
    ``phases.apply_action`` computes it, in double precision (``end.colour_share``: 1/2 on an
    empty map), so that the twin's float32 equals the Python reward rounded to float32."""

    def share(numbers: int, reds: int) -> float:
        return reds / numbers if numbers else 0.5

    table = np.zeros(_SHAPING_SHAPE, dtype=np.float32)
    for numbers, reds, more_numbers, more_reds in np.ndindex(*_SHAPING_SHAPE):
        after_numbers, after_reds = numbers + more_numbers - 1, reds + more_reds - 1
        if 0 <= reds <= numbers and 0 <= after_reds <= after_numbers:
            table[numbers, reds, more_numbers, more_reds] = shaping * (
                share(after_numbers, after_reds) - share(numbers, reds)
            )
    return table


# --------------------------------------------------------------------------- the deal, scripted states


def _deal_order(key: jax.Array) -> jax.Array:
    """``int8[36]``: the number cards in a uniformly random order: each card draws a random
    32-bit word and the cards are ordered by it (ties by card id), as
    ``jax.random.permutation`` orders them, but ranked by comparing every pair of words: twice
    as fast on the CPU as its sort."""
    words = jax.random.bits(key, (NUM_NUMBER_CARDS,), jnp.uint32)
    cards = jnp.arange(NUM_NUMBER_CARDS)
    ahead = (words[None, :] < words[:, None]) | ((words[None, :] == words[:, None]) & (cards[None, :] < cards[:, None]))
    place = ahead.sum(axis=1)  # how many cards come before each card
    return jnp.where(place[None, :] == cards[:, None], cards[None, :], 0).sum(axis=1).astype(jnp.int8)


def make_init(config: MapDuelConfig):
    """The twin of ``rules.new_game`` for one config: a uniformly random deal order of the 36
    number cards (the first on the centre cell, the second drawn) and, with
    ``first_player="random"``, the first player, both from ``key``."""
    geo = _geometry(config.board_size)
    template = blank_state(config)

    def init(key: jax.Array) -> State:
        order_key, first_key = jax.random.split(key)
        order = _deal_order(order_key)
        if config.first_player == "random":
            first = (jax.random.bits(first_key, (), jnp.uint32) >> 31).astype(jnp.int32)
        else:
            first = jnp.int32(config.first_player)
        state = template.replace(
            board=template.board.at[geo.centre].set(order[0]),
            deck_order=order,
            deck_drawn=jnp.int8(2),
            drawn=order[1],
            first=first.astype(jnp.int8),
            current_player=first,
            phase=jnp.int8(Phase.SETUP_PLACE),
        )
        return _settle(state, geo, config)

    return init


def _settle(state: State, geo: _Geometry, config: MapDuelConfig) -> State:
    """A state with its mask, end flags and observation filled for the seat to act."""
    derived = _derive(state, geo, config)
    moves = _step2_moves(state, state.current_player, derived.near, geo, config)
    return _finish(state, derived, moves, geo, config)


def from_python(python) -> State:
    """The twin state of a Python ``MapDuelState`` (scripted positions), with its mask, end
    flags and observation as ``step`` would leave them (rewards zero)."""
    config = python.config
    fields = {name: jnp.asarray(value) for name, value in make_codec(config).from_python(python).items()}
    return _settler(config)(blank_state(config).replace(**fields))


@cache
def _settler(config: MapDuelConfig):
    """``_settle`` for one config, compiled once (``from_python`` is called position by
    position)."""
    geo = _geometry(config.board_size)
    return jax.jit(lambda state: _settle(state, geo, config))


def rules_for(config: MapDuelConfig) -> JaxRules:
    """The Map Duel twin of one config, as ``core.jax_game.JaxRules``."""
    from . import GAME, jax_observe

    codec = make_codec(config)
    return JaxRules(
        name="Map Duel",
        game=GAME,
        config=config,
        num_actions=layout_for(config.board_size).size,
        observation_size=observation_size(config.board_size),
        init=make_init(config),
        step=make_step(config),
        observe=lambda state, seat: jax_observe.observe(state, seat, config),
        outcome_names=OUTCOME_NAMES,
        to_python=lambda state: codec.to_python(state, config),
        python_deck=python_deck,
        reshuffle_orders=lambda before, after: [],
        num_players=NUM_SEATS,
        python_draws=make_python_draws(config),
    )
