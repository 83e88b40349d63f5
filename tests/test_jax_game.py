"""The word tricks the JAX twins and the batched benchmark share (``core.jax_game``)."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

from empire_envs.core.jax_game import nth_member, scaled_draw  # noqa: E402


@pytest.mark.parametrize("size", [1, 5, 32, 33, 52, 64, 68, 96])
def test_nth_member_is_the_nth_true_entry(size):
    rng = np.random.default_rng(size)
    vectors = rng.random((40, size)) < rng.random((40, 1))  # from nearly empty to nearly full
    vectors[0], vectors[1] = False, True
    ranks = np.arange(size + 1)
    found = jax.jit(jax.vmap(jax.vmap(nth_member, in_axes=(None, 0)), in_axes=(0, None)))(
        jnp.asarray(vectors), jnp.asarray(ranks)
    )
    for vector, row in zip(vectors, np.asarray(found), strict=True):
        members = np.flatnonzero(vector)
        expected = np.concatenate([members, np.zeros(size + 1 - members.size, dtype=int)])
        assert np.array_equal(row, expected), (vector, row)


def test_scaled_draw_is_the_exact_floor_of_the_product():
    rng = np.random.default_rng(0)
    words = np.concatenate([rng.integers(0, 2**32, 2000, dtype=np.uint64), [0, 2**32 - 1, 2**31, 2**16 - 1]])
    bounds = np.concatenate([rng.integers(1, 2**16, 2000), [1, 52, 68, 2**16 - 1]])
    drawn = np.asarray(jax.jit(scaled_draw)(jnp.asarray(words, dtype=jnp.uint32), jnp.asarray(bounds)))
    expected = [(int(word) * int(bound)) >> 32 for word, bound in zip(words, bounds, strict=True)]
    assert drawn.tolist() == expected
    assert ((drawn >= 0) & (drawn < bounds)).all()


def test_a_full_bit_set_loses_exactly_the_cleared_bits():
    from empire_envs.core.jax_game import clear_bit, full_bit_set, nth_set_bit

    words = full_bit_set(52)
    assert [int(word) for word in words] == [2**32 - 1, 2**20 - 1]
    for position in (0, 31, 32, 51):
        words = clear_bit(words, jnp.int32(position))
    left = [position for position in range(52) if position not in (0, 31, 32, 51)]
    assert [int(nth_set_bit(words, jnp.int32(rank))) for rank in range(48)] == left
