"""Empire Solitaire rules in JAX: the batched twin of ``rules.py``, proven identical to it.

Read it beside ``rules.py``; each rule has one place in both files:

=========================  ==============================  =================================
rule                       ``rules.py``                    here
=========================  ==============================  =================================
the deal                   ``new_game``                    ``_deal``, ``init``
a capture's target         ``capture_target``, ``RAYS``    ``_targets`` (rays unrolled)
legal actions              ``legal_actions``               ``_legal_mask``
capture / reveal / place   ``_play``                       ``step``
won or lost                ``_settle``                     ``_settle``
the observation            ``observe.observe``             ``observe``
=========================  ==============================  =================================

What both files need is written once: when a card captures another, the deal's size, the
rewards and the observation's fractions in ``tables.py``; the outcome codes and names in
``state.py``; the rays and the action table in ``actions.py``. ``to_python`` and ``from_python``
are derived from ``SolitaireState.FIELDS`` (``core.jax_game.state_codec``), and the observation
is assembled in the order of ``observe.LAYOUT`` (``core.jax_game.assemble_observation``).

State (one game; ``jax.vmap`` batches it): ``grid`` int8[15] (a card or -1), ``stock`` int8[3]
(the stock in reveal order: ``stock[3 - stock_left]`` is turned up next), ``revealed`` int8,
``out`` bool[52] (captured cards), ``num_out``, ``outcome`` (an index of ``OUTCOME_NAMES``), and
pgx's fields. The stock's cards stay in the state: the observation, like Python's, never shows
them.

The game has no randomness after the deal. ``init(key)`` shuffles with the key and deals again
(a ``lax.while_loop``) while a deal has no possible capture, as the Gymnasium env does.
"""

from __future__ import annotations

import dataclasses
import functools

import jax
import jax.numpy as jnp
import numpy as np

from ...core.cards import NUM_CARDS, NUM_RANKS, NUM_SUITS
from ...core.errors import ILLEGAL_ACTION_OUTCOME
from ...core.jax_game import (
    JaxRules,
    JaxState,
    StateCodec,
    assemble_observation,
    clear_bit,
    fresh_pgx_fields,
    full_bit_set,
    jax_state,
    nth_set_bit,
    scaled_draw,
    state_codec,
)
from . import actions as A
from . import observe as O
from .config import SolitaireConfig
from .state import LOST, NUM_CELLS, ONGOING, STOCK_SIZE, WON, SolitaireState
from .state import OUTCOME_NAMES as PYTHON_OUTCOME_NAMES
from .tables import CAPTURE_FRACTION, DEAL_SIZE, LOSS_REWARD, STOCK_FRACTION, WIN_REWARD, matches

#: ``state.outcome`` indexes these: the Python rules' outcomes, then an illegal action (which
#: only the env knows)
OUTCOME_NAMES = (*PYTHON_OUTCOME_NAMES, ILLEGAL_ACTION_OUTCOME)
ILLEGAL = len(PYTHON_OUTCOME_NAMES)
NUM_CAPTURES = A.REVEAL  # capture actions are 0 .. 119


@jax_state
@dataclasses.dataclass(frozen=True)
class State(JaxState):
    grid: jax.Array
    stock: jax.Array
    stock_left: jax.Array
    revealed: jax.Array
    out: jax.Array
    num_out: jax.Array
    outcome: jax.Array


# --------------------------------------------------------------------------- captures


def _targets(grid: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Per capture action ``cell * 8 + direction``: the card it would capture and its cell (-1 and
    15 when the ray meets no card). The rays are unrolled at trace time (``actions.RAYS``): each
    target is a chain of selects over fixed cells, which XLA fuses, instead of a gather."""
    cards, cells = [], []
    for cell in range(NUM_CELLS):
        for ray in A.RAYS[cell]:
            card, at = jnp.int8(-1), jnp.int8(NUM_CELLS)
            for target in reversed(ray):  # the nearest occupied cell wins: fold from the far end
                occupied = grid[target] >= 0
                card = jnp.where(occupied, grid[target], card)
                at = jnp.where(occupied, jnp.int8(target), at)
            cards.append(card)
            cells.append(at)
    return jnp.stack(cards), jnp.stack(cells)


_MOVER_CELL = np.repeat(np.arange(NUM_CELLS), A.NUM_DIRECTIONS)


def _capture_mask(grid: jax.Array, target_cards: jax.Array) -> jax.Array:
    mover = grid[_MOVER_CELL].astype(jnp.int32)
    target = target_cards.astype(jnp.int32)
    return (mover >= 0) & (target >= 0) & matches(mover, target)


def _legal_mask(state: State, target_cards: jax.Array) -> jax.Array:
    """``rules.legal_actions`` as a bool mask."""
    waiting = state.revealed >= 0
    empty = state.grid < 0
    captures = _capture_mask(state.grid, target_cards) & ~waiting
    reveal = ~waiting & (state.num_out > 0) & (state.stock_left > 0) & empty.any()
    place = waiting & empty
    mask = jnp.concatenate([captures, reveal[None], place])
    return mask & (state.outcome == ONGOING)


def _settle(state: State) -> tuple[State, jax.Array]:
    """``rules._settle``: won when the stock is used up and one card is left, lost when no action
    is legal; the terminal reward."""
    won = (state.stock_left == 0) & (state.revealed < 0) & ((state.grid >= 0).sum() == 1)
    mask = _legal_mask(state, _targets(state.grid)[0])
    lost = ~won & ~mask.any()
    outcome = jnp.where(won, WON, jnp.where(lost, LOST, ONGOING)).astype(jnp.int8)
    reward = jnp.where(won, WIN_REWARD, jnp.where(lost, LOSS_REWARD, 0.0))
    return state.replace(outcome=outcome, legal_action_mask=mask & ~(won | lost), terminated=won | lost), reward


# --------------------------------------------------------------------------- observation


def _float32(table: tuple[float, ...]) -> jax.Array:
    """A fraction table of ``tables`` (float32 values kept as Python floats) as the float32
    array the observation indexes."""
    return jnp.asarray(table, dtype=jnp.float32)


def _card_features(cards: jax.Array) -> jax.Array:
    """Per card (-1: none) its entries of ``observe.CARD`` (one-hot rank, one-hot suit), as
    float32 ``[n, 17]``."""
    # The barrier has XLA divide once per card: fused into the one-hot comparisons, the
    # divisions were repeated for each of the 17 entries.
    rank, suit = jax.lax.optimization_barrier((cards % NUM_RANKS, cards // NUM_RANKS))
    present = (cards >= 0)[:, None]
    return jax.vmap(functools.partial(assemble_observation, O.CARD))(
        {
            "rank": (rank[:, None] == jnp.arange(NUM_RANKS)) & present,
            "suit": (suit[:, None] == jnp.arange(NUM_SUITS)) & present,
        }
    )


def observe(state: State) -> jax.Array:
    """``observe.observe``: the same 326 floats, laid out by ``observe.LAYOUT``."""
    return assemble_observation(
        O.LAYOUT,
        {
            "cells": _card_features(state.grid.astype(jnp.int32)),
            "revealed": _card_features(state.revealed.astype(jnp.int32)[None]),
            "stock size": _float32(STOCK_FRACTION)[state.stock_left],
            "captures": _float32(CAPTURE_FRACTION)[state.num_out],
            "out of game": state.out,
        },
    )


# --------------------------------------------------------------------------- deal and step


def _deal(order: jax.Array) -> State:
    """``rules.new_game`` with ``deck=order[:18]``: 15 cards face up row by row, then the stock."""
    order = order.astype(jnp.int8)
    state = State(
        grid=order[:NUM_CELLS],
        stock=order[NUM_CELLS:DEAL_SIZE],
        stock_left=jnp.int8(STOCK_SIZE),
        revealed=jnp.int8(-1),
        out=jnp.zeros(NUM_CARDS, dtype=jnp.bool_),
        num_out=jnp.int8(0),
        outcome=jnp.int8(ONGOING),
        **fresh_pgx_fields(O.OBSERVATION_SIZE, A.NUM_ACTIONS),
    )
    state, _ = _settle(state)
    return state.replace(observation=observe(state))


def _draw_cards(key: jax.Array) -> jax.Array:
    """The first 18 cards of a uniformly shuffled deck: each card a uniform choice among the
    cards not drawn yet, from one random word (the other 34 cards never enter the game)."""
    words = jax.random.bits(key, (DEAL_SIZE,), dtype=jnp.uint32)
    left = full_bit_set(NUM_CARDS)
    cards = []
    for position in range(DEAL_SIZE):  # unrolled: a loop with a dynamic swap is slow on the CPU
        card = nth_set_bit(left, scaled_draw(words[position], jnp.int32(NUM_CARDS - position)))
        left = clear_bit(left, card)
        cards.append(card)
    return jnp.stack(cards)


@functools.cache
def _deal_shapes() -> State:
    """The shapes and dtypes of a dealt ``State`` (nothing is computed)."""
    return jax.eval_shape(_deal, jax.ShapeDtypeStruct((DEAL_SIZE,), jnp.int32))


def init(key: jax.Array) -> State:
    """A random deal with at least one legal action (dealt again from the key until then)."""

    def dead(carry: tuple[jax.Array, State]) -> jax.Array:
        return carry[1].terminated

    def deal_again(carry: tuple[jax.Array, State]) -> tuple[jax.Array, State]:
        key, _ = carry
        key, sub = jax.random.split(key)
        return key, _deal(_draw_cards(sub))

    # the loop starts from a placeholder marked dead, so that it deals at least once and the
    # deal is compiled once (a first deal before the loop would be a second copy of it)
    placeholder = jax.tree_util.tree_map(lambda leaf: jnp.zeros(leaf.shape, leaf.dtype), _deal_shapes())
    return jax.lax.while_loop(dead, deal_again, (key, placeholder.replace(terminated=jnp.bool_(True))))[1]


def make_step(config: SolitaireConfig):
    shaping = float(config.shaping)

    def step(state: State, action: jax.Array, key: jax.Array | None = None) -> State:
        """One legal action (the caller, ``adapters.jax_env``, handles illegal ones); ``key`` is
        unused: nothing is random after the deal."""
        del key
        action = jnp.asarray(action, dtype=jnp.int32)
        grid = state.grid
        is_capture = action < NUM_CAPTURES
        is_reveal = action == A.REVEAL
        is_place = action > A.REVEAL
        cells = jnp.arange(NUM_CELLS)
        target_cards, target_cells = _targets(grid)
        chosen = jnp.arange(NUM_CAPTURES) == action
        captured = jnp.where(chosen, target_cards, 0).sum().astype(jnp.int8)
        captured_at = jnp.where(chosen, target_cells, 0).sum()
        mover_at = action // A.NUM_DIRECTIONS
        mover = jnp.where(cells == mover_at, grid, 0).sum().astype(jnp.int8)
        after_capture = jnp.where(cells == captured_at, mover, jnp.where(cells == mover_at, jnp.int8(-1), grid))
        after_place = jnp.where(cells == action - A.PLACE[0], state.revealed, grid)
        grid = jnp.where(is_capture, after_capture, jnp.where(is_place, after_place, grid))
        turned_up = jnp.where(jnp.arange(STOCK_SIZE) == STOCK_SIZE - state.stock_left, state.stock, 0).sum()
        revealed = jnp.where(is_reveal, turned_up, jnp.where(is_place, -1, state.revealed)).astype(jnp.int8)
        moved = state.replace(
            grid=grid,
            out=state.out | (is_capture & (jnp.arange(NUM_CARDS) == captured)),
            num_out=state.num_out + is_capture.astype(jnp.int8),
            revealed=revealed,
            stock_left=state.stock_left - is_reveal.astype(jnp.int8),
            step_count=state.step_count + 1,
        )
        settled, terminal_reward = _settle(moved)
        reward = terminal_reward + jnp.where(is_capture, shaping, 0.0)
        settled = settled.replace(rewards=reward.astype(jnp.float32)[None])
        return settled.replace(observation=observe(settled))

    return step


@functools.cache
def _codec() -> StateCodec:
    """The conversions between ``State`` and ``SolitaireState``, derived from
    ``SolitaireState.FIELDS``: only the fields the twin keeps another way are converted here."""
    return state_codec(
        SolitaireState,
        State,
        _deal_shapes(),
        to_python={
            "stock": lambda state, config: _python_stock(state),
            "out": lambda state, config: [int(card) for card in np.flatnonzero(state.out)],
            "outcome": lambda state, config: LOST if int(state.outcome) == ILLEGAL else int(state.outcome),
        },
        from_python={
            "stock": _reveal_order,
            "stock_left": lambda python: len(python.stock),
            "out": lambda python: np.isin(np.arange(NUM_CARDS), python.out),
            "num_out": lambda python: len(python.out),
            "outcome": lambda python: python.outcome,
        },
    )


def _python_stock(state: State) -> list[int]:
    """The Python stock of a (host) twin state: the cards not revealed yet, top card last."""
    return [int(card) for card in state.stock[STOCK_SIZE - int(state.stock_left) :]][::-1]


def _reveal_order(python: SolitaireState) -> np.ndarray:
    """The twin's ``stock`` of a Python state: the cards left in reveal order (the next one
    first) at its end, after -1 for each card revealed."""
    stock = np.full(STOCK_SIZE, -1, dtype=np.int8)
    stock[STOCK_SIZE - len(python.stock) :] = python.stock[::-1]
    return stock


def to_python(state: State, config: SolitaireConfig | None = None) -> SolitaireState:
    """The Python rules' state of one twin state (captured cards in card order; the 34 unused
    cards are not kept: empty; an illegal action's end as a loss)."""
    return _codec().to_python(state, config if config is not None else SolitaireConfig())


def from_python(python: SolitaireState) -> State:
    """A twin state of a Python state (tests build edge positions in Python)."""
    fields = {name: jnp.asarray(array) for name, array in _codec().from_python(python).items()}
    state = State(**fields, **fresh_pgx_fields(O.OBSERVATION_SIZE, A.NUM_ACTIONS))
    mask = _legal_mask(state, _targets(state.grid)[0])
    state = state.replace(legal_action_mask=mask, terminated=jnp.bool_(python.outcome != ONGOING))
    return state.replace(observation=observe(state))


def python_deck(state: State) -> list[int]:
    """The ``deck`` reset option that makes the Python rules deal this twin state's deal (the 15
    tableau cards row by row, then the stock top first); only for a state before any action."""
    return [int(card) for card in np.asarray(state.grid)] + [int(card) for card in np.asarray(state.stock)]


def rules_for(config: SolitaireConfig | None = None) -> JaxRules:
    config = config if config is not None else SolitaireConfig()
    from . import GAME  # the package's record (imported late: the package does not import this module)

    return JaxRules(
        game=GAME,
        name=GAME.name,
        config=config,
        num_actions=A.NUM_ACTIONS,
        observation_size=O.OBSERVATION_SIZE,
        init=init,
        step=make_step(config),
        observe=lambda state, seat: observe(state),  # one seat: seat is always 0
        outcome_names=OUTCOME_NAMES,
        to_python=lambda state: to_python(state, config),
        python_deck=python_deck,
        reshuffle_orders=lambda before, after: [],  # nothing is shuffled after the deal
    )
