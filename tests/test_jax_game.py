"""The word tricks the JAX twins and the batched benchmark share (``core.jax_game``)."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax")
import jax.numpy as jnp  # noqa: E402

from empire_envs.core.jax_game import FRACTION_BOUND, exact_fraction, nth_member, scaled_draw  # noqa: E402


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


def test_exact_fraction_is_the_python_quotient_as_float32():
    """Every numerator 0..d+1 of the denominators 1..300 and of the Generals length limits, the
    smallest and largest quotients near the bounds (the longest division: 1 / (2**24 - 1)) and
    random pairs over the whole range, bit for bit against ``np.float32(n / d)``."""
    rng = np.random.default_rng(7)
    pairs = [(n, d) for d in range(1, 301) for n in range(d + 2)]
    pairs += [(n, d) for d in (60, 100, 99_991, 100_000) for n in range(d + 2)]
    top = FRACTION_BOUND - 1
    pairs += [(1, top), (0, top), (top, 1), (top, top), (top - 1, top), (1, 2**23 + 1)]
    pairs += [
        (int(n), int(d)) for n, d in zip(rng.integers(0, top, 100_000), rng.integers(1, top, 100_000), strict=True)
    ]
    numerators, denominators = (np.array(column, dtype=np.int32) for column in zip(*pairs, strict=True))
    got = np.asarray(jax.jit(exact_fraction)(jnp.asarray(numerators), jnp.asarray(denominators)))
    expected = np.array([np.float32(n / d) for n, d in pairs], dtype=np.float32)
    wrong = np.flatnonzero(got.view(np.uint32) != expected.view(np.uint32))
    assert wrong.size == 0, [(pairs[i], got[i], expected[i]) for i in wrong[:5]]


def test_a_full_bit_set_loses_exactly_the_cleared_bits():
    from empire_envs.core.jax_game import clear_bit, full_bit_set, nth_set_bit

    words = full_bit_set(52)
    assert [int(word) for word in words] == [2**32 - 1, 2**20 - 1]
    for position in (0, 31, 32, 51):
        words = clear_bit(words, jnp.int32(position))
    left = [position for position in range(52) if position not in (0, 31, 32, 51)]
    assert [int(nth_set_bit(words, jnp.int32(rank))) for rank in range(48)] == left


# --------------------------------------------------------------------------- one source per fact


def _toy_classes():
    """A Python state of every default copy kind and a twin state that keeps two fields its own way."""
    import dataclasses
    from enum import IntEnum

    from empire_envs.core.jax_game import JaxState, jax_state
    from empire_envs.core.state import LIST, LISTS, SET, SHARED, VALUE, DeclaredState

    class Stage(IntEnum):
        START = 0
        MIDDLE = 1

    class ToyState(DeclaredState):
        FIELDS = {
            "config": SHARED,
            "stage": VALUE,
            "flag": VALUE,
            "score": VALUE,
            "counts": LIST,
            "grid": LISTS,
            "marked": SET,
            "pile": LIST,
            "current": VALUE,
        }
        __slots__ = tuple(FIELDS)

        def __init__(self, config):
            self.config, self.stage, self.flag, self.score = config, Stage.START, False, 0.0
            self.counts, self.grid, self.marked, self.pile, self.current = [0] * 3, [[0] * 2] * 2, set(), [], 0

    @jax_state
    @dataclasses.dataclass(frozen=True)
    class ToyTwin(JaxState):
        stage: jax.Array
        flag: jax.Array
        score: jax.Array
        counts: jax.Array
        grid: jax.Array
        marked: jax.Array
        pile_cards: jax.Array
        pile_size: jax.Array

    def template():
        from empire_envs.core.jax_game import fresh_pgx_fields

        return ToyTwin(
            stage=jnp.int8(0),
            flag=jnp.bool_(False),
            score=jnp.float32(0),
            counts=jnp.zeros(3, jnp.int8),
            grid=jnp.zeros((2, 2), jnp.bool_),
            marked=jnp.zeros(5, jnp.bool_),
            pile_cards=jnp.zeros(4, jnp.int8),
            pile_size=jnp.int8(0),
            **fresh_pgx_fields(1, 1, 2),
        )

    return Stage, ToyState, ToyTwin, template()


def _toy_codec(**overrides):
    from empire_envs.core.jax_game import state_codec

    Stage, ToyState, ToyTwin, template = _toy_classes()
    options = {
        "renamed": {"current": "current_player"},
        "to_python": {"pile": lambda state, config: state.pile_cards[: int(state.pile_size)].tolist()},
        "from_python": {
            "pile_cards": lambda python: python.pile + [0] * (4 - len(python.pile)),
            "pile_size": lambda python: len(python.pile),
        },
    }
    options.update(overrides)
    return Stage, ToyState, ToyTwin, template, state_codec(ToyState, ToyTwin, template, **options)


def test_state_codec_round_trips_every_default_copy_kind():
    Stage, ToyState, ToyTwin, template, codec = _toy_codec()
    python = ToyState("config")
    python.stage, python.flag, python.score = Stage.MIDDLE, True, 0.5
    python.counts, python.grid, python.marked, python.pile, python.current = (
        [1, 2, 3],
        [[1, 0], [0, 1]],
        {0, 4},
        [7, 9],
        1,
    )
    arrays = codec.from_python(python)
    assert arrays["grid"].dtype == np.bool_ and arrays["counts"].dtype == np.int8 and arrays["pile_size"] == 2
    back = codec.to_python(template.replace(**{name: jnp.asarray(value) for name, value in arrays.items()}), "config")
    assert back == python
    assert type(back.stage) is Stage and type(back.flag) is bool and type(back.score) is float
    assert back.grid == [[1, 0], [0, 1]] and back.config == "config"


def test_state_codec_refuses_a_field_left_without_a_conversion():
    with pytest.raises(TypeError, match=r"no field for the Python fields \['pile'\]"):
        _toy_codec(to_python={})
    with pytest.raises(TypeError, match=r"fields \['pile_cards', 'pile_size'\] have no Python field"):
        _toy_codec(from_python={})
    with pytest.raises(TypeError, match=r"\['current'\]"):
        _toy_codec(renamed={})


def test_state_codec_refuses_a_python_value_of_the_wrong_shape():
    Stage, ToyState, ToyTwin, template, codec = _toy_codec()
    python = ToyState("config")
    python.counts = [1, 2]
    with pytest.raises(ValueError, match="field 'counts'"):
        codec.from_python(python)


def test_assemble_observation_follows_the_layout_and_checks_each_block():
    from empire_envs.core.jax_game import assemble_observation
    from empire_envs.core.layout import ObsLayout

    layout = ObsLayout([("first", 2), ("second", 3)])
    observation = assemble_observation(layout, {"second": jnp.arange(3), "first": jnp.array([[7, 8]])})
    assert observation.dtype == jnp.float32 and observation.tolist() == [7, 8, 0, 1, 2]
    with pytest.raises(ValueError, match="block 'second' has 4 entries, the layout 3"):
        assemble_observation(layout, {"first": jnp.zeros(2), "second": jnp.zeros(4)})
    with pytest.raises(ValueError, match=r"missing \['second'\], unknown \['third'\]"):
        assemble_observation(layout, {"first": jnp.zeros(2), "third": jnp.zeros(3)})


def test_preset_draws_answer_as_preset_and_refuse_what_was_not():
    from empire_envs.core.rng import PresetDraws

    draws = PresetDraws(coins=[True, False], integers=[1])
    assert draws.unused == 3
    assert draws.random() < 0.5 and draws.random() >= 0.5
    assert draws.integers(2) == 1 and draws.unused == 0
    with pytest.raises(AssertionError, match="flipped a coin"):
        draws.random()
    with pytest.raises(AssertionError, match="drew an integer"):
        draws.integers(2)
    with pytest.raises(AssertionError, match="not below 2"):
        PresetDraws(integers=[2]).integers(2)


def test_preset_draws_shuffle_in_place_and_draw_several_integers():
    from empire_envs.core.rng import PresetDraws

    draws = PresetDraws(integers=[2, 0, 1], permutations=[[2, 0, 1]])
    cards = ["a", "b", "c"]
    draws.shuffle(cards)
    assert cards == ["c", "a", "b"]  # cards[i] is the old cards[order[i]], as numpy's shuffle
    assert draws.integers(3, size=3).tolist() == [2, 0, 1] and draws.unused == 0
    with pytest.raises(AssertionError, match="not a permutation of range"):
        PresetDraws(permutations=[[0, 1]]).shuffle(["x", "y", "z"])
    with pytest.raises(AssertionError, match="shuffled 2 items"):
        PresetDraws().shuffle(["x", "y"])
