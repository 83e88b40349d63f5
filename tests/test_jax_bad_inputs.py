"""The batched JAX handles check what they are given (issue 24, item 3).

- ``JaxVectorEnv.reset(seed=...)`` takes every seed Gymnasium takes and deals distinct games for
  distinct seeds below ``2**64`` (``2**32`` used to deal what ``0`` deals, ``2**64`` raised a raw
  ``OverflowError``); seeds below ``2**32`` deal what they dealt before.
- ``JaxEnv.step(state, action, key)`` refuses on the host, before anything is traced, a float
  (``0.7`` used to play action 0), a bool, a string, an array of another dtype or shape, and an
  integer int32 cannot hold (``np.int64(2**32)`` used to wrap round to action 0); a traced action
  is checked for dtype and shape while tracing, and for its value inside the step.
- ``JaxVectorEnv.step`` names the expected shape ``(num_envs,)`` and integer dtype.
- ``num_envs``, ``spare_resets``, ``max_episode_steps``, ``reset_finished``'s ``spare`` and the
  other arguments are refused when the env is built (``spare_resets=-3``,
  ``max_episode_steps=2.5`` used to be accepted).

Each function is compiled once per module (batches of 4 games); the "raise before tracing" tests
use an env whose rules fail the test if they are ever called.
"""

from __future__ import annotations

import dataclasses
import math
import re

import numpy as np
import pytest

jax = pytest.importorskip("jax")
import gymnasium  # noqa: E402
import jax.numpy as jnp  # noqa: E402

import empire_envs  # noqa: E402, F401  (registers the ids for gymnasium.make / make_vec)
import empire_envs.jax as empire_jax  # noqa: E402
from empire_envs.jax import ActionTypeError, JaxEnv, seed_key  # noqa: E402

SOLO = "EmpireSolo-v0"
NUM_ENVS = 4


@pytest.fixture(scope="module")
def vec():
    return empire_jax.make_vec(SOLO, NUM_ENVS)


@pytest.fixture(scope="module")
def solo():
    """The pgx-style env, its jitted init and step, and one fresh game."""
    env = empire_jax.make(SOLO)
    step = jax.jit(env.step)
    state = jax.jit(env.init)(jax.random.PRNGKey(0))
    return env, step, state


@pytest.fixture(scope="module")
def batch(solo):
    """A batch of fresh games (the state ``jax.vmap(env.step)`` takes)."""
    env, _, _ = solo
    return jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.PRNGKey(0), NUM_ENVS))


def _never(*args, **kwargs):
    raise AssertionError("the rules were reached: the input was not checked before tracing")


@pytest.fixture(scope="module")
def guarded(solo):
    """The same env over rules that fail the test when called: a check that raises with this env
    raised before anything was traced or played."""
    env, _, _ = solo
    return JaxEnv(env.id, dataclasses.replace(env.rules, step=_never, init=_never))


def _deal(vec, seed):
    observation, _ = vec.reset(seed=seed)
    return observation, np.asarray(vec.state.cards)


def _same_deal(first, second) -> bool:
    return all(np.array_equal(a, b) for a, b in zip(first, second, strict=True))


def _leaves(state) -> list[np.ndarray]:
    return [np.asarray(leaf) for leaf in jax.tree_util.tree_leaves(state)]


# --------------------------------------------------------------------------- seeds


def test_seed_key_is_the_seed_two_words_below_2_to_64():
    seeds = [0, 1, 7, 2**31, 2**32 - 1, 2**32, 2**32 + 7, 2**63, 2**64 - 1]
    keys = [tuple(int(word) for word in np.asarray(seed_key(seed))) for seed in seeds]
    assert keys == [(seed >> 32, seed & 0xFFFFFFFF) for seed in seeds]
    assert len(set(keys)) == len(seeds), "two seeds below 2**64 share a key"
    for seed in [0, 7, 2**31, 2**32 - 1]:  # below 2**32: PRNGKey(seed), the key of earlier versions
        assert np.array_equal(np.asarray(seed_key(seed)), np.asarray(jax.random.PRNGKey(seed)))


def test_seed_key_of_seeds_from_2_to_64_is_a_fixed_hash():
    big = [2**64, 2**64 + 1, 2**100, 10**40]
    keys = [tuple(np.asarray(seed_key(seed)).tolist()) for seed in big]
    assert keys == [tuple(np.asarray(seed_key(seed)).tolist()) for seed in big], "not deterministic"
    words = np.random.SeedSequence(2**64).generate_state(2, dtype=np.uint32).tolist()
    assert list(keys[0]) == words, "not numpy's SeedSequence, the same in every process"
    assert len(set(keys)) == len(big)
    assert np.asarray(seed_key(2**64)).dtype == np.uint32 and np.asarray(seed_key(2**64)).shape == (2,)


def test_seed_2_to_32_deals_other_games_than_seed_0(vec):
    assert not _same_deal(_deal(vec, 0), _deal(vec, 2**32))
    assert not _same_deal(_deal(vec, 5), _deal(vec, 2**32 + 5))
    assert not _same_deal(_deal(vec, 2**32), _deal(vec, 2**33))


@pytest.mark.parametrize("seed", [2**64 - 1, 2**64, 2**64 + 1, 10**40])
def test_seeds_up_to_and_beyond_2_to_64_deal_and_repeat(vec, seed):
    first = _deal(vec, seed)
    assert first[0].shape == (NUM_ENVS, 207)
    assert _same_deal(first, _deal(vec, seed)), "the same seed dealt other games"
    assert not _same_deal(first, _deal(vec, 0))


def test_seeds_below_2_to_32_deal_what_they_dealt_before(vec):
    """Before issue 24 the key was ``jax.random.PRNGKey(seed)``; for these seeds it still is, so
    seed 0 (and every recorded run) deals the same games. Above, the key is the seed's two words."""
    init = jax.jit(jax.vmap(vec.jax_env.init))
    for seed, key in [
        (0, jax.random.PRNGKey(0)),
        (123, jax.random.PRNGKey(123)),
        (2**32 - 1, jax.random.PRNGKey(2**32 - 1)),
        (2**32 + 7, jnp.asarray([1, 7], dtype=jnp.uint32)),
    ]:
        _, deal = jax.random.split(key)
        expected = init(jax.random.split(deal, NUM_ENVS))
        observation, _ = vec.reset(seed=seed)
        assert np.array_equal(observation, np.asarray(expected.observation)), seed
        assert all(np.array_equal(a, b) for a, b in zip(_leaves(vec.state), _leaves(expected), strict=True)), seed


@pytest.mark.parametrize(
    ("seed", "message"),
    [
        (-1, "greater or equal to zero"),
        (-(2**70), "greater or equal to zero"),
        (1.5, "python integer"),
        ("3", "python integer"),
        (np.int64(3), "python integer"),
        ([1, 2], "python integer"),
    ],
)
def test_seeds_gymnasium_refuses_are_refused_as_gymnasium_refuses_them(vec, seed, message):
    python = gymnasium.make(f"empire_envs/{SOLO}")
    with pytest.raises(gymnasium.error.Error, match=message):
        python.reset(seed=seed)  # the Python env, for comparison
    with pytest.raises(gymnasium.error.Error, match=message):
        vec.reset(seed=seed)


def test_a_bool_seed_is_what_gymnasium_makes_of_it(vec):
    """Gymnasium takes ``True`` as the int 1 (``isinstance(True, int)``); so does the batched env."""
    assert _same_deal(_deal(vec, True), _deal(vec, 1))


# --------------------------------------------------------------------------- JaxEnv.step from the host

WRONG_TYPES = [
    0.7,
    1.0,
    True,
    False,
    np.float32(1.0),
    np.float64(0.7),
    np.bool_(True),
    "3",
    None,
    [1],
    1 + 0j,
    np.array(1.0),
    np.array(True),
    np.array("3"),
    np.array(1, dtype=object),
    jnp.float32(1.0),
    jnp.array(True),
]


@pytest.mark.parametrize("action", WRONG_TYPES, ids=[f"{type(a).__name__}:{a!r}" for a in WRONG_TYPES])
def test_an_action_of_the_wrong_type_raises_before_anything_is_traced(solo, guarded, action):
    _, _, state = solo
    with pytest.raises(ActionTypeError, match=re.escape("an integer of shape ()")) as raised:
        guarded.step(state, action, jax.random.PRNGKey(1))
    assert isinstance(raised.value, TypeError) and isinstance(raised.value, ValueError)


@pytest.mark.parametrize(
    "action",
    [np.int64(2**32), 2**31, -(2**31) - 1, 2**64, np.uint32(2**31), np.uint64(2**63), np.array(2**40)],
    ids=repr,
)
def test_an_integer_int32_cannot_hold_raises_instead_of_wrapping_round(solo, guarded, action):
    _, _, state = solo
    with pytest.raises(ValueError, match="int32 cannot hold"):
        guarded.step(state, action, jax.random.PRNGKey(1))


@pytest.mark.parametrize(
    "action",
    [np.array([1, 2]), np.array([3]), np.zeros((1, 1), dtype=np.int32), jnp.array([3])],
    ids=["two", "one-element", "1x1", "jax-one-element"],
)
def test_an_action_of_another_shape_raises_naming_the_shape(solo, guarded, action):
    _, _, state = solo
    with pytest.raises(ValueError, match=re.escape(f"of shape {tuple(action.shape)}")):
        guarded.step(state, action, jax.random.PRNGKey(1))


def test_a_batch_of_states_without_vmap_is_refused(batch, guarded):
    with pytest.raises(ValueError, match=r"one game.*jax\.vmap\(env\.step\)"):
        guarded.step(batch, np.zeros(NUM_ENVS, dtype=np.int32), jax.random.PRNGKey(1))


def test_every_accepted_integer_form_plays_what_an_int32_plays(solo):
    env, step, state = solo
    legal = int(np.flatnonzero(np.asarray(state.legal_action_mask))[0])
    key = jax.random.PRNGKey(1)
    expected = _leaves(step(state, jnp.int32(legal), key))
    for action in [legal, np.int64(legal), np.int8(legal), np.uint16(legal), np.array(legal), jnp.int32(legal)]:
        played = env.step(state, action, key)  # from the host, not traced
        assert env.outcome(played) != "illegal action", action
        assert all(np.array_equal(a, b) for a, b in zip(_leaves(played), expected, strict=True)), repr(action)


@pytest.mark.parametrize("action", [-1, 68, 2**31 - 1, -(2**31)], ids=repr)
def test_an_int32_that_is_not_in_the_table_is_the_illegal_action_outcome(solo, action):
    env, _, state = solo
    after = env.step(state, action, jax.random.PRNGKey(1))
    assert env.outcome(after) == "illegal action" and bool(after.terminated)
    assert float(after.rewards[0]) == env.illegal_action_penalty == -1.0


# --------------------------------------------------------------------------- traced actions


def test_a_traced_float_or_bool_action_raises_while_tracing(solo, guarded):
    _, _, state = solo
    key = jax.random.PRNGKey(1)
    with pytest.raises(ActionTypeError, match="dtype float32"):
        jax.jit(guarded.step)(state, 0.7, key)
    with pytest.raises(ActionTypeError, match="dtype bool"):
        jax.jit(guarded.step)(state, jnp.bool_(True), key)


def test_vmapped_actions_must_be_integers_one_per_game(batch, guarded):
    keys = jax.random.split(jax.random.PRNGKey(1), NUM_ENVS)
    with pytest.raises(ActionTypeError, match="dtype float32"):
        jax.vmap(guarded.step)(batch, jnp.zeros(NUM_ENVS, dtype=jnp.float32), keys)
    with pytest.raises(ValueError, match=re.escape("of shape (1,)")):
        jax.vmap(guarded.step)(batch, jnp.zeros((NUM_ENVS, 1), dtype=jnp.int32), keys)


def test_a_traced_integer_beyond_int32_is_illegal_not_wrapped_round(solo):
    """With 64-bit integers on, an int64 action ``2**32 + legal`` used to be cast to int32, i.e.
    to ``legal``, and played; it is compared in its own dtype now, so it is illegal."""
    env, _, state = solo
    legal = int(np.flatnonzero(np.asarray(state.legal_action_mask))[0])
    with jax.enable_x64(True):
        after = jax.jit(env.step)(state, jnp.asarray(2**32 + legal, dtype=jnp.int64), jax.random.PRNGKey(1))
        assert env.outcome(after) == "illegal action" and bool(after.terminated)
    wide = jax.jit(env.step)(state, jnp.asarray(2**31 + legal, dtype=jnp.uint32), jax.random.PRNGKey(1))
    assert env.outcome(wide) == "illegal action"


# --------------------------------------------------------------------------- JaxVectorEnv.step

WRONG_DTYPES = [
    np.zeros(NUM_ENVS),
    np.full(NUM_ENVS, 0.7, dtype=np.float32),
    [0.5] * NUM_ENVS,
    np.ones(NUM_ENVS, dtype=bool),
    [True] * NUM_ENVS,
    np.array([0, 1, None, 2], dtype=object),
    np.array([0, 1, 2, 3], dtype=object),
    np.array(["0"] * NUM_ENVS),
]
WRONG_SHAPES = [
    np.zeros(NUM_ENVS - 1, dtype=np.int64),
    np.zeros(NUM_ENVS + 1, dtype=np.int64),
    np.zeros((NUM_ENVS, 1), dtype=np.int64),
    np.int64(0),
    0,
    [[0, 1], [2]],
]


@pytest.fixture()
def reset_vec(vec):
    _, info = vec.reset(seed=11)
    return vec, info


def _unchanged(vec, before) -> bool:
    return all(np.array_equal(a, b) for a, b in zip(_leaves(vec.state), before, strict=True))


@pytest.mark.parametrize("actions", WRONG_DTYPES, ids=[f"dtype{i}" for i in range(len(WRONG_DTYPES))])
def test_vector_actions_that_are_not_integers_name_the_dtype_and_shape(reset_vec, actions):
    vec, _ = reset_vec
    before = _leaves(vec.state)
    with pytest.raises(ActionTypeError, match=re.escape(f"integers of shape ({NUM_ENVS},)")) as raised:
        vec.step(actions)
    assert "dtype" in str(raised.value)
    assert _unchanged(vec, before)


@pytest.mark.parametrize("actions", WRONG_SHAPES, ids=[f"shape{i}" for i in range(len(WRONG_SHAPES))])
def test_vector_actions_of_another_shape_name_the_expected_shape(reset_vec, actions):
    vec, _ = reset_vec
    before = _leaves(vec.state)
    with pytest.raises(ValueError, match=re.escape(f"integers of shape ({NUM_ENVS},)")):
        vec.step(actions)
    assert _unchanged(vec, before)


def test_vector_actions_beyond_the_table_or_int32_are_refused(reset_vec):
    vec, _ = reset_vec
    for wide in [np.array([2**32, 0, 0, 0], dtype=np.int64), np.array([0, 0, 0, 2**63], dtype=np.uint64)]:
        with pytest.raises(ValueError, match=r"env \d: action \d+ is outside 0\.\.67"):
            vec.step(wide)


def test_vector_actions_of_every_integer_dtype_play_alike(vec):
    forms = [
        lambda legal: [int(action) for action in legal],
        lambda legal: legal.astype(np.int8),
        lambda legal: legal.astype(np.uint16),
        lambda legal: legal.astype(np.int32),
        lambda legal: legal.astype(np.int64),
        lambda legal: jnp.asarray(legal, dtype=jnp.int32),
    ]
    results = []
    for form in forms:
        _, info = vec.reset(seed=11)
        observation, reward, terminated, truncated, _ = vec.step(form(info["action_mask"].argmax(axis=1)))
        results.append((observation, reward, terminated, truncated))
    for result in results[1:]:
        assert all(np.array_equal(a, b) for a, b in zip(result, results[0], strict=True))


# --------------------------------------------------------------------------- arguments

NAN = float("nan")
BAD_VECTOR_ARGUMENTS = [
    ("spare_resets", -3, ValueError),
    ("spare_resets", -1, ValueError),
    ("spare_resets", 2.5, TypeError),
    ("spare_resets", 2.0, TypeError),
    ("spare_resets", NAN, TypeError),
    ("spare_resets", True, TypeError),
    ("spare_resets", "2", TypeError),
    ("spare_resets", NUM_ENVS + 1, ValueError),
    ("max_episode_steps", 2.5, TypeError),
    ("max_episode_steps", NAN, TypeError),
    ("max_episode_steps", 0, ValueError),
    ("max_episode_steps", -1, ValueError),
    ("max_episode_steps", True, TypeError),
    ("max_episode_steps", "3", TypeError),
    ("num_envs", 0, ValueError),
    ("num_envs", -2, ValueError),
    ("num_envs", 2.0, TypeError),
    ("num_envs", 2.5, TypeError),
    ("num_envs", True, TypeError),
    ("illegal_action", "ignore", ValueError),
    ("illegal_action", ["raise"], ValueError),
    ("illegal_action_penalty", NAN, ValueError),
    ("illegal_action_penalty", math.inf, ValueError),
    ("illegal_action_penalty", "-1", TypeError),
    ("illegal_action_penalty", True, TypeError),
    ("check_actions", "no", TypeError),
    ("check_actions", None, TypeError),
]


@pytest.mark.parametrize(
    ("name", "value", "error"), BAD_VECTOR_ARGUMENTS, ids=[f"{n}={v!r}" for n, v, _ in BAD_VECTOR_ARGUMENTS]
)
def test_bad_arguments_are_refused_when_the_vector_env_is_built(name, value, error):
    arguments = {"num_envs": NUM_ENVS, name: value}
    with pytest.raises(error, match=rf"{name}.*{re.escape(repr(value))}"):
        empire_jax.make_vec(SOLO, **arguments)


@pytest.mark.parametrize(
    ("name", "value", "error"),
    [(n, v, e) for n, v, e in BAD_VECTOR_ARGUMENTS if n in ("max_episode_steps", "illegal_action_penalty")],
    ids=[f"{n}={v!r}" for n, v, _ in BAD_VECTOR_ARGUMENTS if n in ("max_episode_steps", "illegal_action_penalty")],
)
def test_bad_arguments_are_refused_when_the_pgx_env_is_built(name, value, error):
    with pytest.raises(error, match=rf"{name}.*{re.escape(repr(value))}"):
        empire_jax.make(SOLO, **{name: value})


def test_gymnasium_make_vec_passes_the_check_on():
    with pytest.raises(TypeError, match=r"max_episode_steps.*2\.5"):
        gymnasium.make_vec(
            f"empire_envs/{SOLO}", num_envs=NUM_ENVS, vectorization_mode="vector_entry_point", max_episode_steps=2.5
        )


@pytest.mark.parametrize("spare", [-1, 1.5, 2.0, True, NAN, None, "1"], ids=repr)
def test_reset_finished_refuses_a_bad_spare_before_tracing(batch, guarded, spare):
    error = ValueError if spare == -1 else TypeError
    with pytest.raises(error, match=rf"spare.*{re.escape(repr(spare))}"):
        empire_jax.reset_finished(guarded, batch, jax.random.PRNGKey(1), spare)


def test_reset_finished_refuses_a_traced_spare(batch, guarded):
    with pytest.raises(TypeError, match="spare must be an int"):
        jax.jit(lambda state, spare: empire_jax.reset_finished(guarded, state, jax.random.PRNGKey(1), spare))(batch, 1)


def test_accepted_arguments_are_kept_as_ints():
    vec = empire_jax.make_vec(
        SOLO, np.int32(NUM_ENVS), spare_resets=np.int64(NUM_ENVS), max_episode_steps=np.int64(3), check_actions=False
    )
    assert vec.num_envs == NUM_ENVS and type(vec.num_envs) is int
    assert vec.spare_resets == NUM_ENVS and type(vec.spare_resets) is int
    assert vec.jax_env.max_episode_steps == 3 and type(vec.jax_env.max_episode_steps) is int
    assert empire_jax.make_vec(SOLO, NUM_ENVS).spare_resets == 1, "the default, max(1, num_envs // 8)"


def test_no_spare_deals_and_a_step_limit_play_as_documented():
    """``spare_resets=0`` (every reset deals a whole batch) and ``max_episode_steps=np.int64(2)``
    are accepted and do what they say: each game is truncated after two steps and dealt again."""
    vec = empire_jax.make_vec(SOLO, NUM_ENVS, spare_resets=0, max_episode_steps=np.int64(2))
    _, info = vec.reset(seed=0)
    _, _, terminated, truncated, info = vec.step(info["action_mask"].argmax(axis=1))
    second = ~(terminated | truncated)  # the games now at their second step
    assert not truncated.any(), "no game is truncated after one step"
    _, _, terminated, truncated, info = vec.step(info["action_mask"].argmax(axis=1))
    assert (terminated | truncated)[second].all(), "a game still running is truncated at its second step"
    assert info["_final_obs"][second].all(), "their final observations are reported"
    assert (np.asarray(vec.state.step_count)[second] == 0).all(), "every game that ended was dealt again"
