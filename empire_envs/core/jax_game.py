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


@dataclasses.dataclass(frozen=True)
class JaxState:
    """Base of the twins' states: the fields pgx names (a game's own fields follow them), and
    pgx's ``state.replace(**changes)``."""

    current_player: jax.Array
    observation: jax.Array
    rewards: jax.Array
    terminated: jax.Array
    truncated: jax.Array
    legal_action_mask: jax.Array
    step_count: jax.Array

    def replace(self: T, **changes: Any) -> T:
        return dataclasses.replace(self, **changes)  # type: ignore[type-var]


#: the fields every twin's state has, named as pgx names them (``JaxState`` declares them)
PGX_FIELDS = tuple(field.name for field in dataclasses.fields(JaxState))


def fresh_pgx_fields(observation_size: int, num_actions: int) -> dict[str, jax.Array]:
    """The pgx fields of a game before its first decision (seat 0, no reward, nothing ended);
    the game then writes its observation and mask."""
    return {
        "current_player": jnp.int32(0),
        "observation": jnp.zeros(observation_size, dtype=jnp.float32),
        "rewards": jnp.zeros(1, dtype=jnp.float32),
        "terminated": jnp.bool_(False),
        "truncated": jnp.bool_(False),
        "legal_action_mask": jnp.zeros(num_actions, dtype=jnp.bool_),
        "step_count": jnp.int32(0),
    }


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


_BIT = np.array([1 << (index % 32) for index in range(32)], dtype=np.uint32)


def _words(members: jax.Array) -> list[jax.Array]:
    """A bool vector packed into 32-bit words, entry ``i`` at bit ``i % 32`` of word ``i // 32``."""
    size = members.shape[-1]
    words = []
    for first in range(0, size, 32):
        chunk = members[..., first : first + 32]
        bits = jnp.asarray(_BIT[: chunk.shape[-1]])
        words.append(jnp.where(chunk, bits, jnp.uint32(0)).sum(axis=-1, dtype=jnp.uint32))
    return words


def nth_member(members: jax.Array, n: jax.Array) -> jax.Array:
    """The index of the ``n``-th (``n >= 0``, 0-based) True entry of a bool vector (0 if there is
    none such). The vector is packed into 32-bit words (``nth_set_bit``): a handful of word
    operations, where a cumulative sum over the vector is what XLA on the CPU does slowly."""
    return nth_set_bit(_words(members), n)


def nth_set_bit(words: list[jax.Array], n: jax.Array) -> jax.Array:
    """The position of the ``n``-th (``n >= 0``, 0-based) set bit of a bit set held as 32-bit
    words (bit ``i`` is bit ``i % 32`` of ``words[i // 32]``), or 0 if there is none such. The
    word holding it is found by counting bits per word, the bit by a binary search on
    population counts."""
    n = jnp.asarray(n, dtype=jnp.int32)
    word, offset, rank = jnp.uint32(0), jnp.int32(0), n
    before = jnp.int32(0)  # set bits in the words before the current one
    for index, candidate in enumerate(words):
        count = jax.lax.population_count(candidate).astype(jnp.int32)
        here = (n >= before) & (n < before + count)
        word = jnp.where(here, candidate, word)
        offset = jnp.where(here, 32 * index, offset)
        rank = jnp.where(here, n - before, rank)
        before = before + count
    position = jnp.int32(0)
    for half in (16, 8, 4, 2, 1):  # the largest position whose lower bits hold at most `rank` members
        middle = position + half
        below = jax.lax.population_count(word & ((jnp.uint32(1) << middle.astype(jnp.uint32)) - jnp.uint32(1)))
        position = jnp.where(below.astype(jnp.int32) <= rank, middle, position)
    return jnp.where(n < before, offset + position, 0)


def clear_bit(words: list[jax.Array], position: jax.Array) -> list[jax.Array]:
    """The bit set without bit ``position`` (words as in ``nth_set_bit``)."""
    position = jnp.asarray(position, dtype=jnp.int32)
    bit = jnp.uint32(1) << (position % 32).astype(jnp.uint32)
    return [jnp.where(position // 32 == index, word & ~bit, word) for index, word in enumerate(words)]


def full_bit_set(size: int) -> list[jax.Array]:
    """The words of a bit set holding bits ``0 .. size - 1``."""
    return [jnp.uint32((1 << min(32, size - first)) - 1) for first in range(0, size, 32)]


def scaled_draw(word: jax.Array, bound: jax.Array) -> jax.Array:
    """``floor(word * bound / 2**32)`` for a random ``uint32`` word and ``0 <= bound < 2**16``:
    a number in ``[0, bound)`` from one random word, uniform up to ``bound / 2**32`` (the product
    is formed from 16-bit halves, so no 64-bit integers are needed)."""
    word, bound = word.astype(jnp.uint32), bound.astype(jnp.uint32)
    high = (word >> 16) * bound
    low = (word & jnp.uint32(0xFFFF)) * bound
    return ((high + (low >> 16)) >> 16).astype(jnp.int32)


def host(array: Any) -> np.ndarray:
    """A JAX array (or pytree leaf) as a numpy array on the host."""
    return np.asarray(jax.device_get(array))
