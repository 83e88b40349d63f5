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

import jax
import jax.numpy as jnp
import numpy as np

from ...core.cards import NUM_CARDS, NUM_RANKS
from ...core.jax_game import (
    JaxRules,
    JaxState,
    clear_bit,
    fresh_pgx_fields,
    full_bit_set,
    jax_state,
    nth_set_bit,
    scaled_draw,
)
from . import actions as A
from . import observe as O
from .config import MAX_CAPTURES, SolitaireConfig
from .rules import DEAL_SIZE, LOSS_REWARD, WIN_REWARD
from .state import LOST, NUM_CELLS, ONGOING, STOCK_SIZE, WON, SolitaireState

#: outcome indices: the Python rules' three, then an illegal action (which only the env knows)
OUTCOME_NAMES = ("ongoing", "won", "lost", "illegal action")
ILLEGAL = 3
NUM_CAPTURES = A.REVEAL  # capture actions are 0 .. 119
CARD_SIZE = O.CARD_SIZE

# Python divides in float64 and stores float32; tables made the same way give the same floats.
_STOCK_FRACTION = np.array([n / STOCK_SIZE for n in range(STOCK_SIZE + 1)], dtype=np.float32)
_CAPTURE_FRACTION = np.array([n / MAX_CAPTURES for n in range(MAX_CAPTURES + 1)], dtype=np.float32)


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
    same_rank = mover % NUM_RANKS == target % NUM_RANKS
    same_suit = mover // NUM_RANKS == target // NUM_RANKS
    return (mover >= 0) & (target >= 0) & (same_rank | same_suit)


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


def _card_features(cards: jax.Array) -> jax.Array:
    """Per card (-1: none) its one-hot rank then one-hot suit, as float32 ``[n, 17]``."""
    # The barrier has XLA divide once per card: fused into the one-hot comparisons, the
    # divisions were repeated for each of the 17 entries.
    rank, suit = jax.lax.optimization_barrier((cards % NUM_RANKS, cards // NUM_RANKS))
    features = jnp.concatenate([rank[:, None] == jnp.arange(NUM_RANKS), suit[:, None] == jnp.arange(4)], axis=1)
    return (features & (cards >= 0)[:, None]).astype(jnp.float32)


def observe(state: State) -> jax.Array:
    """``observe.observe``: the same 326 floats in the same layout."""
    cells = _card_features(state.grid.astype(jnp.int32)).reshape(-1)
    shown = _card_features(state.revealed.astype(jnp.int32)[None])[0]
    return jnp.concatenate(
        [
            cells,
            shown,
            jnp.asarray(_STOCK_FRACTION)[state.stock_left][None],
            jnp.asarray(_CAPTURE_FRACTION)[state.num_out][None],
            state.out.astype(jnp.float32),
        ]
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


def init(key: jax.Array) -> State:
    """A random deal with at least one legal action (dealt again from the key until then)."""

    def dead(carry: tuple[jax.Array, State]) -> jax.Array:
        return carry[1].terminated

    def deal_again(carry: tuple[jax.Array, State]) -> tuple[jax.Array, State]:
        key, _ = carry
        key, sub = jax.random.split(key)
        return key, _deal(_draw_cards(sub))

    key, sub = jax.random.split(key)
    return jax.lax.while_loop(dead, deal_again, (key, _deal(_draw_cards(sub))))[1]


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


def to_python(state: State, config: SolitaireConfig | None = None) -> SolitaireState:
    """The Python rules' state of one twin state (the 34 unused cards are not kept: empty)."""
    grid = np.asarray(state.grid).tolist()
    left = int(state.stock_left)
    python = SolitaireState(config)
    python.grid = [int(card) for card in grid]
    python.stock = [int(card) for card in np.asarray(state.stock)[STOCK_SIZE - left :]][::-1]
    python.revealed = int(state.revealed)
    python.out = [int(card) for card in np.flatnonzero(np.asarray(state.out))]
    outcome = int(state.outcome)
    python.outcome = outcome if outcome != 3 else LOST
    return python


def from_python(python: SolitaireState) -> State:
    """A twin state of a Python state (tests build edge positions in Python)."""
    stock = np.full(STOCK_SIZE, -1, dtype=np.int8)
    left = len(python.stock)
    stock[STOCK_SIZE - left :] = python.stock[::-1]  # reveal order, the next one first
    state = State(
        grid=jnp.asarray(python.grid, dtype=jnp.int8),
        stock=jnp.asarray(stock),
        stock_left=jnp.int8(left),
        revealed=jnp.int8(python.revealed),
        out=jnp.asarray(np.isin(np.arange(NUM_CARDS), python.out)),
        num_out=jnp.int8(len(python.out)),
        outcome=jnp.int8(python.outcome),
        **fresh_pgx_fields(O.OBSERVATION_SIZE, A.NUM_ACTIONS),
    )
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
        name="Empire Solitaire",
        config=config,
        num_actions=A.NUM_ACTIONS,
        observation_size=O.OBSERVATION_SIZE,
        init=init,
        step=make_step(config),
        observe=observe,
        outcome_names=OUTCOME_NAMES,
        to_python=lambda state: to_python(state, config),
        python_deck=python_deck,
        reshuffle_orders=lambda before, after: [],  # nothing is shuffled after the deal
    )
