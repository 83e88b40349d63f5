"""What the batched JAX twins share (needs the ``jax`` extra).

A twin is a module ``games/<game>/jax_rules.py`` beside the Python rules. It builds, for one
config, a ``JaxRules`` record of pure functions over a ``State`` pytree of fixed-shape arrays:

- ``init(key) -> State``: a fresh deal, stopped at the first decision;
- ``step(state, action, key) -> State``: one decision of the seat to act; ``key`` feeds every
  random draw the move needs (a reshuffle, a coin);
- ``observe(state, seat) -> float32[observation_size]``: exactly the Python env's observation of
  that seat (its own, egocentric view), whoever is to act.

**Seats** (pgx's convention): ``state.current_player`` is the seat to act (seat ``i`` is the
AEC agent ``player_i``; 0 in a one-seat game), ``state.rewards`` is ``float32[num_players]``,
what each seat received from the step that made the state (summed over a game: each seat's AEC
return), ``state.legal_action_mask`` is the current seat's and ``state.observation`` the current
seat's view. Once a game has ended nobody acts: ``current_player`` keeps the seat the Python
state last named (the last mover, or the seat whose turn a truncation cut off), and the env
turns the mask to all ones.

Every state carries the fields pgx names (``current_player``, ``observation``, ``rewards``,
``terminated``, ``truncated``, ``legal_action_mask``), so pgx-style training code runs
unchanged. The functions use no Python control flow on traced values: they ``jit`` and ``vmap``.
Variant flags are Python values closed over when the record is built (static, as pgx does).

**One source per fact.** A twin reads the game's facts from the game's ``tables`` module, which
the Python rules read too; ``state_codec`` derives its conversions to and from the Python state
from the Python state's declared ``FIELDS``; ``assemble_observation`` lays its observation out
in the order of the game's ``ObsLayout``, checking each block's size.

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


def fresh_pgx_fields(observation_size: int, num_actions: int, num_players: int = 1) -> dict[str, jax.Array]:
    """The pgx fields of a game before its first decision (seat 0, no reward, nothing ended);
    the game then writes its seat to act, its observation and mask."""
    return {
        "current_player": jnp.int32(0),
        "observation": jnp.zeros(observation_size, dtype=jnp.float32),
        "rewards": jnp.zeros(num_players, dtype=jnp.float32),
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
    #: ``observe(state, seat)``: that seat's view, exactly the Python env's (pure; ``seat`` may be
    #: traced)
    observe: Callable[[Any, Any], jax.Array]
    #: ``outcome_names[state.outcome]`` is the Python rules' outcome name ("won", "lost", ...)
    outcome_names: tuple[str, ...]
    #: ``to_python(state)``: the Python rules' state of one (unbatched) twin state, for tests and
    #: rendering
    to_python: Callable[[Any], Any]
    #: ``python_deck(state)``: the ``deck`` reset option that makes the Python rules deal the
    #: game of a freshly dealt twin state; None where ``python_draws`` alone makes them deal it
    python_deck: Callable[[Any], list[int] | None]
    #: ``reshuffle_orders(before, after)``: for one step of one game, the card lists (top card
    #: last, as the Python rules keep a deck) that the Python rules' reshuffles in that step must
    #: produce to draw what the twin drew; empty when the step did not reshuffle
    reshuffle_orders: Callable[[Any, Any], list[list[int]]]
    #: the seats (``rewards`` has this many entries; ``current_player`` is one of them)
    num_players: int = 1
    #: ``python_draws(before, after)``: for one step of one game (``before`` the fresh deal for
    #: the deal itself), the ``core.rng.PresetDraws`` that makes the Python rules draw what the
    #: twin drew in it (coins, a first player); None for a game whose only draws are reshuffles
    python_draws: Callable[[Any, Any], Any] | None = None


# --------------------------------------------------------------------------- one source per fact


@dataclasses.dataclass(frozen=True)
class StateCodec:
    """A twin state's conversions to and from its Python state (``state_codec`` builds one)."""

    #: ``to_python(state, config)``: the Python state of one (unbatched, host or device) twin state
    to_python: Callable[[Any, Any], Any]
    #: ``from_python(python)``: the twin's own fields (not the pgx ones) as numpy arrays
    from_python: Callable[[Any], dict[str, np.ndarray]]


def _python_value(array: np.ndarray, kind: str, default: Any) -> Any:
    """A host array as the Python state keeps a field of copy ``kind`` whose fresh value is
    ``default`` (an enum default gives the enum, a bool a bool, a float a float)."""
    from .state import LIST, LISTS, SET, VALUE

    if kind == VALUE:
        value = array.item()
        if isinstance(default, bool):
            return bool(value)
        if isinstance(default, float):
            return float(value)
        if isinstance(default, int):
            return type(default)(int(value)) if type(default) is not int else int(value)
        return value
    if kind == SET:
        return {int(index) for index in np.flatnonzero(array)}
    if kind in (LIST, LISTS):
        return (array.astype(np.int64) if array.dtype == np.bool_ else array).tolist()
    raise TypeError(f"no default conversion for a field of copy kind {kind!r}: give one")


def _twin_array(value: Any, kind: str, dtype: np.dtype, shape: tuple[int, ...], name: str) -> np.ndarray:
    from .state import SET

    if kind == SET:
        array = np.zeros(shape, dtype=dtype)
        array[sorted(value)] = True
        return array
    array = np.asarray(value, dtype=dtype)
    if array.shape != shape:
        raise ValueError(f"field {name!r}: the Python value has shape {array.shape}, the twin's field {shape}")
    return array


def state_codec(
    python_class: Any,
    twin_class: type,
    template: Any,
    *,
    renamed: dict[str, str] | None = None,
    to_python: dict[str, Callable[[Any, Any], Any]] | None = None,
    from_python: dict[str, Callable[[Any], Any]] | None = None,
) -> StateCodec:
    """The conversions between a twin state and a Python ``DeclaredState``, derived from the
    Python class's ``FIELDS``: no field list is typed twice.

    Each Python field (but the ``SHARED`` config) is the twin field of the same name (or
    ``renamed[name]``) converted by its copy kind: ``VALUE`` a scalar (typed as the fresh Python
    state's value: an enum, a bool, an int, a float), ``LIST``/``LISTS`` nested lists (bools as
    0/1), ``SET`` the indices of a bool mask. A field kept another way has a function in
    ``to_python`` (``(host state, config) -> value``); a twin field with no Python field of its
    own has one in ``from_python`` (``python -> array``). ``template`` is one twin state (or its
    ``jax.eval_shape``), whose dtypes and shapes ``from_python`` produces. A field left without
    a conversion on either side is a ``TypeError`` here, when the twin is built."""
    from .state import SHARED

    renamed, to_python, from_python = dict(renamed or {}), dict(to_python or {}), dict(from_python or {})
    fields = {name: kind for name, kind in python_class.FIELDS.items() if kind != SHARED}
    twin_names = [field.name for field in dataclasses.fields(twin_class) if field.name not in PGX_FIELDS]
    twin_names += [name for name in renamed.values() if name in PGX_FIELDS]
    direct = {name: renamed.get(name, name) for name in fields if name not in to_python}
    lacking = [name for name, twin in direct.items() if twin not in twin_names]
    if lacking:
        raise TypeError(
            f"{twin_class.__name__} has no field for the Python fields {lacking} and no conversion for them"
        )
    sourced = set(direct.values()) | set(from_python)
    unsourced = [name for name in twin_names if name not in sourced]
    if unsourced:
        raise TypeError(f"{twin_class.__name__} fields {unsourced} have no Python field and no from_python conversion")
    specs = {name: (getattr(template, name).dtype, tuple(getattr(template, name).shape)) for name in twin_names}

    def to_python_state(state: Any, config: Any) -> Any:
        host_state = jax.tree_util.tree_map(lambda leaf: np.asarray(jax.device_get(leaf)), state)
        python = python_class(config)
        for name, kind in fields.items():
            if name in to_python:
                value = to_python[name](host_state, config)
            else:
                value = _python_value(getattr(host_state, direct[name]), kind, getattr(python, name))
            setattr(python, name, value)
        return python

    def from_python_state(python: Any) -> dict[str, np.ndarray]:
        arrays = {}
        for name, twin in direct.items():
            dtype, shape = specs[twin]
            arrays[twin] = _twin_array(getattr(python, name), fields[name], np.dtype(dtype), shape, name)
        for twin, convert in from_python.items():
            dtype, shape = specs[twin]
            arrays[twin] = _twin_array(convert(python), "", np.dtype(dtype), shape, twin)
        return arrays

    return StateCodec(to_python=to_python_state, from_python=from_python_state)


def one_hot(index: Any, size: int) -> jax.Array:
    """``float32[..., size]``: 1 at ``index`` (nothing for an index outside ``0..size-1``), the
    observations' one-hot blocks."""
    return (jnp.asarray(index)[..., None] == jnp.arange(size)).astype(jnp.float32)


def assemble_observation(layout: Any, blocks: dict[str, jax.Array]) -> jax.Array:
    """A flat float32 observation from its blocks, laid out in the order of ``layout`` (a
    ``core.layout.ObsLayout``, the Python observation's): ``blocks`` names every field of the
    layout once, each with exactly the field's number of entries (checked as the function is
    traced, so a block that grows or shrinks fails at once, naming itself)."""
    names = [name for name, _ in layout.fields]
    if sorted(blocks) != sorted(names):
        missing, extra = sorted(set(names) - set(blocks)), sorted(set(blocks) - set(names))
        raise ValueError(f"observation blocks differ from the layout: missing {missing}, unknown {extra}")
    parts = []
    for name, size in layout.fields:
        block = jnp.asarray(blocks[name], dtype=jnp.float32).reshape(-1)
        if block.shape[0] != size:
            raise ValueError(f"observation block {name!r} has {block.shape[0]} entries, the layout {size}")
        parts.append(block)
    return jnp.concatenate(parts)


#: ``exact_fraction``'s bound on numerator and denominator
FRACTION_BOUND = 1 << 24


def exact_fraction(numerator: Any, denominator: Any) -> jax.Array:
    """``float32``: ``numerator / denominator`` (int arrays, ``0 <= numerator < 2**24``, ``1 <=
    denominator < 2**24``) exactly as a Python observation stores it, ``np.float32(n / d)``.
    For a denominator below 2**29 the float64 quotient rounds to the float32 nearest the true
    quotient (it could only differ if the float64 landed on a float32 tie the true quotient is
    not, which takes a numerator error below one); so the quotient is built with integers, 25
    bits by long division and rounded half to even, never by XLA's division (which may multiply
    by a reciprocal when the denominator is known). Values outside the bounds are not checked."""
    numerator = jnp.asarray(numerator).astype(jnp.int32)
    denominator = jnp.asarray(denominator).astype(jnp.int32)
    whole = numerator // denominator

    def next_bit(_, carry):
        quotient, remainder, shift = carry
        more = quotient < FRACTION_BOUND  # 24 bits and the rounding bit not yet all taken
        doubled = remainder * 2
        bit = doubled >= denominator
        return (
            jnp.where(more, quotient * 2 + bit, quotient),
            jnp.where(more, doubled - jnp.where(bit, denominator, 0), remainder),
            shift + more,
        )

    # from a zero whole part, the first set bit comes within log2(denominator) < 24 doublings
    start = (whole, numerator - whole * denominator, jnp.zeros_like(whole))
    quotient, remainder, shift = jax.lax.fori_loop(0, 49, next_bit, start)
    significand = quotient >> 1
    round_up = (quotient & 1).astype(bool) & ((remainder != 0) | (significand & 1).astype(bool))
    significand = significand + round_up
    scale = jax.lax.bitcast_convert_type((127 + 1 - shift) << 23, jnp.float32)  # 2 ** (1 - shift)
    return significand.astype(jnp.float32) * scale


# --------------------------------------------------------------------------- bit sets


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
