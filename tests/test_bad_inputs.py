"""Bad inputs to every registered id, raw and wrapped (issue 16, items 3 and 4).

For each id of ``empire_envs.registry.ENTRIES`` and each class of mistake: a call before
``reset``, an action that is not an integer, an unknown reset option key, options that are not a
dict, and a reset option value of the wrong kind. Each must raise its clear exception type, and
the env must then be exactly where it was: the same legal actions and observation, and a legal
step that gives what a twin env that never saw the mistake gives. Ids added to the registry get
these tests without any change here: the valid value of each reset option is the game's own
``Game.example_reset_options``; a new kind of reset option needs an entry in ``OPTION_KINDS`` (a
test below says so).

The option checks themselves (``empire_envs.core.options``) are tested at the end, with
hypothesis drawing arbitrary bad values.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np
import pytest
from gymnasium.error import ResetNeeded
from hypothesis import given, settings
from hypothesis import strategies as st

import empire_envs
from empire_envs import envs
from empire_envs.core.cards import NUM_CARDS, card_str
from empire_envs.core.errors import ResetNeeded as EmpireResetNeeded
from empire_envs.core.options import card_list_option, index_list_option, known_reset_options, seat_option
from empire_envs.registry import ENTRIES

pytestmark = pytest.mark.filterwarnings("error")

STEPS_BEFORE_MISTAKE = 2
SEED = 5


# --------------------------------------------------------------------------- building envs


def raw_env(entry) -> Any:
    """The bare env behind an entry: its game's env class (``empire_envs.envs``), unwrapped."""
    return envs.raw_env(entry.game, **entry.kwargs)


def wrapped_env(entry) -> Any:
    """What a user gets: ``gymnasium.make`` (its checker and order-enforcing wrappers) or the
    PettingZoo ``env()`` factory (PettingZoo's standard wrappers)."""
    if entry.api == "gymnasium":
        empire_envs.register_all()
        return gymnasium.make(entry.env_id)
    return empire_envs.make(entry.env_id)


BUILDERS: dict[str, Callable[[Any], Any]] = {"raw": raw_env, "wrapped": wrapped_env}


def cases(*values: Any, api: str | None = None) -> list[Any]:
    """Every (entry, raw or wrapped, value) combination, with readable test ids; ``api`` keeps
    the entries of one API only."""
    return [
        pytest.param(entry, how, value, id=f"{entry.env_id.split('/')[1]}-{how}-{label}")
        for entry in ENTRIES
        if api is None or entry.api == api
        for how in BUILDERS
        for label, value in values
    ]


def is_multiplayer(env) -> bool:
    return not isinstance(env, gymnasium.Env)


def game_of(entry):
    return raw_env(entry).unwrapped.game


# --------------------------------------------------------------------------- playing and comparing


def legal_actions(env) -> list[int]:
    if is_multiplayer(env):
        return env.legal_actions()
    return env.get_wrapper_attr("legal_actions")()


def position(env) -> tuple[Any, ...]:
    """What must not change when a mistake is refused: whose turn, the legal actions, and what the
    acting player sees (its observation and mask)."""
    if is_multiplayer(env):
        agent = env.agent_selection
        seen = env.observe(agent)
        return agent, legal_actions(env), seen["observation"].tobytes(), seen["action_mask"].tobytes()
    inner = env.unwrapped
    observation = inner.game.observe(inner.state)
    return legal_actions(env), observation.tobytes(), env.get_wrapper_attr("action_masks")().tobytes()


def play_legal_step(env) -> tuple[Any, ...]:
    """Play the smallest legal action; what the step gave, comparable between two envs."""
    action = min(legal_actions(env))
    if is_multiplayer(env):
        env.step(action)
        observation, reward, terminated, truncated, _ = env.last()
        return env.agent_selection, observation["observation"].tobytes(), reward, terminated, truncated
    observation, reward, terminated, truncated, _ = env.step(action)
    return observation.tobytes(), reward, terminated, truncated


def started(entry, how: str):
    """An env reset with a seed and a few legal steps into its game."""
    env = BUILDERS[how](entry)
    env.reset(seed=SEED)
    for _ in range(STEPS_BEFORE_MISTAKE):
        play_legal_step(env)
    assert legal_actions(env), "the game must still be going when the mistake is made"
    return env


def assert_untouched_and_playable(env, entry, how: str, before: tuple[Any, ...]) -> None:
    """The refused call changed nothing: same position, and the next legal step gives exactly
    what it gives in a twin that never saw the mistake (so the RNG was untouched too)."""
    assert position(env) == before
    twin = started(entry, how)
    assert position(twin) == before
    assert rng_state(env) == rng_state(twin)
    assert play_legal_step(env) == play_legal_step(twin)


def rng_state(env) -> dict[str, Any]:
    return env.unwrapped.np_random.bit_generator.state


# --------------------------------------------------------------------------- before reset


BEFORE_RESET_CALLS = [
    *cases(("step", lambda env: env.step(0)), ("legal_actions", legal_actions), ("render", lambda env: env.render())),
    # a Gymnasium env has no observe(): its observations come from reset and step
    *cases(("observe", lambda env: env.observe(env.possible_agents[0])), api="pettingzoo"),
]


@pytest.mark.parametrize("entry, how, call", BEFORE_RESET_CALLS)
def test_calls_before_reset_raise_reset_needed(entry, how, call):
    env = BUILDERS[how](entry)
    with pytest.raises(ResetNeeded, match="reset"):
        call(env)
    env.reset(seed=SEED)
    before = position(env)
    twin = BUILDERS[how](entry)
    twin.reset(seed=SEED)
    assert position(twin) == before
    assert play_legal_step(env) == play_legal_step(twin)


def test_reset_needed_is_gymnasiums_and_pettingzoos_class():
    assert issubclass(EmpireResetNeeded, ResetNeeded)
    assert issubclass(EmpireResetNeeded, AssertionError)  # what PettingZoo's order-enforcing wrapper raises


# --------------------------------------------------------------------------- actions of the wrong type

WRONG_ACTIONS = (
    ("True", True),
    ("False", False),
    ("numpy-bool", np.True_),
    ("float", 1.0),
    ("numpy-float", np.float32(0)),
    ("digit-string", "0"),
    ("list", [0]),
    ("array", np.array([0])),
    ("None", None),
)


@pytest.mark.parametrize("entry, how, action", cases(*WRONG_ACTIONS))
def test_an_action_that_is_not_an_integer_raises_type_error(entry, how, action):
    env = started(entry, how)
    before = position(env)
    with pytest.raises(TypeError, match="integer index"):
        env.step(action)
    assert_untouched_and_playable(env, entry, how, before)


# --------------------------------------------------------------------------- reset option keys

UNKNOWN_KEYS = (("typo", "dek"), ("capitalised", "Deck"), ("trailing-space", "deck "), ("unrelated", "seed"))


@pytest.mark.parametrize("entry, how, key", cases(*UNKNOWN_KEYS))
def test_an_unknown_reset_option_is_refused_by_name(entry, how, key):
    env = started(entry, how)
    before = position(env)
    with pytest.raises(ValueError, match=re.escape(repr(key))):
        env.reset(options={key: [0]})
    assert_untouched_and_playable(env, entry, how, before)


@pytest.mark.parametrize("entry, how, options", cases(("list", [("deck", [0])]), ("string", "deck"), ("number", 1)))
def test_reset_options_that_are_not_a_dict_raise_type_error(entry, how, options):
    env = started(entry, how)
    before = position(env)
    with pytest.raises(TypeError, match="dict"):
        env.reset(options=options)
    assert_untouched_and_playable(env, entry, how, before)


# --------------------------------------------------------------------------- reset option values

#: every reset option of every game, by the kind of value it takes: "list" (a stacked deck, a deal,
#: one deck id per seat) or "seat" (a seat index)
OPTION_KINDS = {"deck": "list", "decks": "list", "first_player": "seat"}


def valid_options(entry) -> dict[str, Any]:
    """A value of each reset option that the game accepts, from the game's own record
    (``Game.example_reset_options``); the bad values below are these with a wrong type, so a
    check that coerces (int("7"), int(7.0)) would let them through."""
    env = raw_env(entry)
    example = env.game.example_reset_options
    return example(env.config) if example is not None else {}


def bad_list_values(valid: list[Any]) -> list[tuple[str, Any]]:
    """Values that are not a list of the option's entries; the last ones are a valid list with
    each entry turned into something that only converts to it."""
    bad: list[tuple[str, Any]] = [
        ("letters", "abc"),
        ("digits", "12"),
        ("int", 5),
        ("bool", True),
        ("float", 1.5),
        ("floats", [1.5, 2.0]),
        ("digit-strings", ["12", "3"]),
        ("dict", {1: 2}),
        ("nested", [valid]),
    ]
    if all(isinstance(item, int) for item in valid):
        bad += [
            ("valid-as-floats", [float(item) for item in valid]),
            ("valid-as-numpy-floats", np.asarray(valid, dtype=np.float64)),
            ("valid-as-digit-strings", [str(item) for item in valid]),
            ("valid-as-bools", [bool(item % 2) for item in valid]),
            ("valid-as-one-string", " ".join(map(str, valid))),
        ]
    return bad


def bad_seat_values(num_seats: int) -> list[tuple[str, Any]]:
    return [
        ("digit-string", "0"),
        ("letters", "abc"),
        ("float", 0.0),
        ("numpy-float", np.float64(1)),
        ("bool", True),
        ("list", [0]),
        ("past-the-last-seat", num_seats),
        ("negative", -1),
    ]


def _bad_option_cases() -> list[Any]:
    params = []
    for entry in ENTRIES:
        valid = valid_options(entry)
        num_seats = len(raw_env(entry).possible_agents) if entry.api == "pettingzoo" else 1
        for option in game_of(entry).reset_options:
            kind = OPTION_KINDS.get(option)
            if kind is None or option not in valid:
                continue  # test_every_reset_option_has_a_kind_and_a_valid_value says what is missing
            values = bad_list_values(valid[option]) if kind == "list" else bad_seat_values(num_seats)
            for how in BUILDERS:
                for label, value in values:
                    name = f"{entry.env_id.split('/')[1]}-{how}-{option}-{label}"
                    params.append(pytest.param(entry, how, option, value, id=name))
    return params


def test_every_reset_option_has_a_kind_and_a_valid_value():
    for entry in ENTRIES:
        game = game_of(entry)
        if game.reset_options:
            assert game.example_reset_options is not None, f"{entry.game}: the Game record needs example_reset_options"
        valid = valid_options(entry)
        assert set(valid) == set(game.reset_options), f"{entry.game}: example_reset_options gives {sorted(valid)}"
        for option in game.reset_options:
            assert option in OPTION_KINDS, f"add {entry.game}'s reset option {option!r} to OPTION_KINDS"


@pytest.mark.parametrize("entry", ENTRIES, ids=[e.env_id.split("/")[1] for e in ENTRIES])
def test_the_valid_option_values_are_accepted(entry):
    """The anchor of the bad-value tests: each bad value differs from one of these by type."""
    for how in BUILDERS:
        env = BUILDERS[how](entry)
        for option, value in valid_options(entry).items():
            env.reset(seed=SEED, options={option: value})
            assert legal_actions(env)


@pytest.mark.parametrize("entry, how, option, value", _bad_option_cases())
def test_a_reset_option_of_the_wrong_kind_is_refused_by_name(entry, how, option, value):
    env = started(entry, how)
    before = position(env)
    with pytest.raises((TypeError, ValueError)) as refused:
        env.reset(seed=SEED + 1, options={option: value})  # the seed must not be taken either
    assert re.search(rf"\b{option}\b", str(refused.value)), f"the message does not name {option!r}: {refused.value}"
    assert_untouched_and_playable(env, entry, how, before)


# --------------------------------------------------------------------------- the option checks, on any value

#: anything at all, nested a little: what a careless caller might pass
ANY_VALUE = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True)
    | st.text(max_size=6)
    | st.binary(max_size=4)
    | st.builds(np.float64, st.floats())
    | st.builds(np.bool_, st.booleans()),
    lambda inner: (
        st.lists(inner, max_size=5) | st.tuples(inner) | st.dictionaries(st.text(max_size=3), inner, max_size=2)
    ),
    max_leaves=12,
)


#: no example database written into the checkout, and no per-example deadline (the machine is shared)
quick_check = settings(database=None, deadline=None)


def _as_written(value: Any, read: Callable[[Any], Any]) -> Any:
    """What a check returned, or the type of what it raised (which must name the option)."""
    try:
        return read(value)
    except (TypeError, ValueError) as error:
        assert "'opt'" in str(error), f"the message does not name the option: {error}"
        return type(error)


@quick_check
@given(ANY_VALUE)
def test_a_card_list_is_read_exactly_as_written_or_refused(value):
    """Either every entry was a card (an int 0..51, or a card name) in a list or tuple and comes
    back unchanged, or the value is refused naming the option: nothing is coerced."""
    result = _as_written(value, lambda v: card_list_option("opt", v))
    if isinstance(result, list):
        assert isinstance(value, (list, tuple))
        assert len(result) == len(value) == len(set(result))
        for item, card in zip(value, result, strict=True):
            if isinstance(item, str):
                name = item.strip().upper()
                assert card_str(card) == ("10" + name[1:] if name.startswith("T") else name)
            else:
                assert type(item) is int and item == card


@quick_check
@given(ANY_VALUE)
def test_an_index_list_is_read_exactly_as_written_or_refused(value):
    result = _as_written(value, lambda v: index_list_option("opt", v, 36))
    if isinstance(result, list):
        assert isinstance(value, (list, tuple))
        assert all(type(item) is int and 0 <= item < 36 for item in value)
        assert result == list(value)


@quick_check
@given(ANY_VALUE)
def test_a_seat_is_read_exactly_as_written_or_refused(value):
    result = _as_written(value, lambda v: seat_option("opt", v, 4))
    if result not in (TypeError, ValueError):
        assert type(value) is int and result == value and 0 <= value < 4


@quick_check
@given(st.lists(st.integers(0, NUM_CARDS - 1), unique=True))
def test_card_lists_of_valid_cards_are_accepted_in_every_written_form(cards):
    as_names = [card_str(card) for card in cards]
    assert card_list_option("opt", cards) == cards
    assert card_list_option("opt", tuple(as_names)) == cards
    assert card_list_option("opt", np.asarray(cards, dtype=np.int64)) == cards


def test_option_checks_refuse_unordered_and_one_shot_containers():
    for value in ({1, 2}, frozenset({1}), iter([1, 2]), (card for card in [1, 2]), {1: 2}):
        with pytest.raises(TypeError, match="'opt'"):
            card_list_option("opt", value)
        with pytest.raises(TypeError, match="'opt'"):
            index_list_option("opt", value, 36)


def test_a_card_listed_twice_and_a_huge_integer_are_refused_with_short_messages():
    with pytest.raises(ValueError, match="QS twice"):
        card_list_option("opt", ["QS", "7H", "qs"])
    with pytest.raises(ValueError, match="bits") as huge:
        index_list_option("opt", [10**5000], 36)
    assert len(str(huge.value)) < 200


def test_reset_option_keys_are_checked_before_use():
    assert known_reset_options(None, ("deck",), "Game") == {}
    assert known_reset_options({"deck": 1, "options": 2}, ("deck",), "Game", ignored={"options"}) == {"deck": 1}
    with pytest.raises(ValueError, match="'options'"):
        known_reset_options({"options": 2}, ("deck",), "Game")
    with pytest.raises(TypeError, match="dict"):
        known_reset_options([("deck", 1)], ("deck",), "Game")  # type: ignore[arg-type]
