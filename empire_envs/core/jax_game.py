"""What the batched JAX twins of the one-seat games share (needs the ``jax`` extra).

A twin is a module ``games/<game>/jax_rules.py`` beside the Python rules. It builds, for one
config, a ``JaxRules`` record of pure functions over a ``State`` pytree of fixed-shape arrays:

- ``init(key) -> State``: a fresh deal, stopped at the first decision;
- ``step(state, action, key) -> State``: one decision; ``key`` feeds every random draw the move
  needs (a reshuffle);
- ``observe(state) -> float32[observation_size]``: exactly the Python observation.

Every state carries the fields pgx names (``current_player``, ``observation``, ``rewards``,
``terminated``, ``truncated``, ``legal_action_mask``), so pgx-style training code runs
unchanged. The functions use no Python control flow on traced values: they ``jit`` and ``vmap``.
Variant flags are Python values closed over when the record is built (static, as pgx does).

``empire_envs.adapters.jax_env`` wraps a ``JaxRules`` as a pgx-style env (illegal actions,
finished states) and as a Gymnasium ``VectorEnv``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, TypeVar

import jax
import jax.numpy as jnp
import numpy as np

T = TypeVar("T")

#: the fields every twin's state has, named as pgx names them
PGX_FIELDS = ("current_player", "observation", "rewards", "terminated", "truncated", "legal_action_mask")


class JaxState:
    """Base of the twins' states: pgx's ``state.replace(**changes)``."""

    def replace(self: T, **changes: Any) -> T:
        return dataclasses.replace(self, **changes)  # type: ignore[type-var]


def jax_state(cls: type[T]) -> type[T]:
    """Register a frozen dataclass (every field an array) as a JAX pytree, after checking that
    it has the pgx fields. Use under ``@dataclasses.dataclass(frozen=True)``."""
    if not dataclasses.is_dataclass(cls):
        raise TypeError(f"{cls.__name__} must be a dataclass")
    names = [field.name for field in dataclasses.fields(cls)]
    missing = [name for name in PGX_FIELDS if name not in names]
    if missing:
        raise TypeError(f"{cls.__name__} lacks the pgx fields {missing}")
    jax.tree_util.register_dataclass(cls, data_fields=names, meta_fields=[])
    return cls


@dataclasses.dataclass(frozen=True)
class JaxRules:
    """One game's JAX rules for one config (see the module docstring)."""

    name: str
    #: the Python rules' ``Game`` record of the same game (text rendering, the reference)
    game: Any
    config: Any
    num_actions: int
    observation_size: int
    init: Callable[[jax.Array], Any]
    step: Callable[[Any, jax.Array, jax.Array], Any]
    observe: Callable[[Any], jax.Array]
    #: ``outcome_names[state.outcome]`` is the Python rules' outcome name ("won", "lost", ...)
    outcome_names: tuple[str, ...]
    #: ``to_python(state)``: the Python rules' state of one (unbatched) twin state, for tests and
    #: rendering
    to_python: Callable[[Any], Any]
    #: ``python_deck(state)``: the ``deck`` reset option that makes the Python rules deal the
    #: game of a freshly dealt twin state
    python_deck: Callable[[Any], list[int]]
    #: ``reshuffle_orders(before, after)``: for one step of one game, the card lists (top card
    #: last, as the Python rules keep a deck) that the Python rules' reshuffles in that step must
    #: produce to draw what the twin drew; empty when the step did not reshuffle
    reshuffle_orders: Callable[[Any, Any], list[list[int]]]


_BIT = np.array([1 << (index % 32) for index in range(64)], dtype=np.uint32)


def nth_member(members: jax.Array, n: jax.Array) -> jax.Array:
    """The index of the ``n``-th (0-based) True entry of a bool vector of at most 64 entries
    (0 if there is none such). The vector is packed into two 32-bit words and the position found
    by a binary search on population counts: a handful of word operations, where a cumulative
    sum over the vector is what XLA on the CPU does slowly."""
    size = members.shape[-1]
    if size > 64:
        raise ValueError(f"nth_member handles at most 64 entries, got {size}")
    bits = jnp.asarray(_BIT[:size])
    low = jnp.arange(size) < 32
    word_low = jnp.where(members & low, bits, jnp.uint32(0)).sum(dtype=jnp.uint32)
    word_high = jnp.where(members & ~low, bits, jnp.uint32(0)).sum(dtype=jnp.uint32)
    count_low = jax.lax.population_count(word_low).astype(jnp.int32)
    n = jnp.asarray(n, dtype=jnp.int32)
    high = n >= count_low
    word = jnp.where(high, word_high, word_low)
    rank = jnp.where(high, n - count_low, n)
    position = jnp.int32(0)
    for half in (16, 8, 4, 2, 1):  # the largest position whose lower bits hold at most `rank` members
        middle = position + half
        below = jax.lax.population_count(word & ((jnp.uint32(1) << middle.astype(jnp.uint32)) - jnp.uint32(1)))
        position = jnp.where(below.astype(jnp.int32) <= rank, middle, position)
    return jnp.where(high, 32 + position, position)


def host(array: Any) -> np.ndarray:
    """A JAX array (or pytree leaf) as a numpy array on the host."""
    return np.asarray(jax.device_get(array))
