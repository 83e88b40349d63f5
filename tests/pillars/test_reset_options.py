"""The reset options of Pillars and its campaign (``deck``, ``first_player``) are checked before
use: a wrong type is a TypeError, a wrong value a ValueError, each naming the option; nothing is
ever converted with ``int()``."""

from __future__ import annotations

import numpy as np
import pytest

from empire_envs.envs import PillarsCampaignEnv
from empire_envs.envs import PillarsEnv as raw_env
from empire_envs.games.pillars import rules
from empire_envs.games.pillars.config import PillarsConfig

from .helpers import stacked_deck

CONFIG = PillarsConfig()
GOOD = stacked_deck(CONFIG, 0, {})  # a full deck, top card first

ENVS = {"pillars": raw_env, "campaign": PillarsCampaignEnv}

BAD_DECKS = [
    pytest.param("abc", TypeError, id="string"),
    pytest.param("".join(str(k % 10) for k in GOOD), TypeError, id="one-digit-string"),
    pytest.param(5, TypeError, id="int"),
    pytest.param(5.0, TypeError, id="float"),
    pytest.param({k: 1 for k in range(14)}, TypeError, id="dict"),
    pytest.param([float(k) for k in GOOD], TypeError, id="float-entries"),
    pytest.param([str(k) for k in GOOD], TypeError, id="digit-string-entries"),
    pytest.param([True] + GOOD[1:], TypeError, id="bool-entry"),
    pytest.param(np.array(GOOD, dtype=np.float64), TypeError, id="float-array"),
    pytest.param(np.array([GOOD[:54], GOOD[54:]]), TypeError, id="2d-array"),
    pytest.param(GOOD[:-1] + [14], ValueError, id="kind-out-of-range"),
    pytest.param(GOOD[:-1] + [-1], ValueError, id="negative-kind"),
    pytest.param(GOOD[:-1], ValueError, id="a-card-short"),
]
BAD_SEATS = [
    pytest.param("1", TypeError, id="string"),
    pytest.param(1.0, TypeError, id="float"),
    pytest.param(np.float32(1), TypeError, id="numpy-float"),
    pytest.param(True, TypeError, id="bool"),
    pytest.param(np.bool_(True), TypeError, id="numpy-bool"),
    pytest.param([1], TypeError, id="list"),
    pytest.param(4, ValueError, id="past-the-last-seat"),
    pytest.param(-1, ValueError, id="negative"),
]


@pytest.mark.parametrize("name", sorted(ENVS))
@pytest.mark.parametrize(("deck", "error"), BAD_DECKS)
def test_bad_deck_is_refused_by_name(name, deck, error):
    env = ENVS[name]()
    with pytest.raises(error, match="reset option 'deck'"):
        env.reset(seed=0, options={"deck": deck, "first_player": 0})


@pytest.mark.parametrize("name", sorted(ENVS))
@pytest.mark.parametrize(("seat", "error"), BAD_SEATS)
def test_bad_first_player_is_refused_by_name(name, seat, error):
    env = ENVS[name]()
    with pytest.raises(error, match="reset option 'first_player'"):
        env.reset(seed=0, options={"first_player": seat})


def test_bad_options_draw_nothing_from_the_generator():
    """The options are checked before the shuffle, so a refused reset consumes no randomness."""
    rng = np.random.default_rng(3)
    before = rng.bit_generator.state
    with pytest.raises(TypeError):
        rules.new_game(CONFIG, rng, first_player="2")
    assert rng.bit_generator.state == before


@pytest.mark.parametrize("name", sorted(ENVS))
@pytest.mark.parametrize(
    "deck",
    [GOOD, tuple(GOOD), np.array(GOOD, dtype=np.int64), np.array(GOOD, dtype=np.int8), range(0)],
    ids=["list", "tuple", "int64-array", "int8-array", "empty-range"],
)
def test_good_decks_and_seats_are_accepted(name, deck):
    """Lists, tuples and integer arrays deal the same game; numpy integer seats are seats."""
    env = ENVS[name]()
    if len(deck) == 0:  # a sequence, so the type passes; the count does not
        with pytest.raises(ValueError, match="reset option 'deck'"):
            env.reset(seed=0, options={"deck": deck})
        return
    env.reset(seed=0, options={"deck": deck, "first_player": np.int64(2)})
    state = env.unwrapped.game_state
    game = state.game if name == "campaign" else state
    expected = rules.new_game(CONFIG, np.random.default_rng(0), deck=GOOD, first_player=2)
    assert game.current == 2 and game.hands == expected.hands and game.deck == expected.deck
