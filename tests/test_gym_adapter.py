"""Behaviour of the generic Gymnasium adapter that no registered game exercises by chance."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from empire_envs.adapters.gym_env import MAX_REDEALS
from empire_envs.envs import EmpireSolitaireEnv
from empire_envs.games.solitaire import GAME, rules

# Every card's neighbours share neither rank nor suit with it: no capture exists.
DEAD_DEAL = [
    "AC", "2D", "3C", "4D", "5C",
    "6H", "7S", "8H", "9S", "10H",
    "JC", "QD", "KC", "AD", "2C",
    "3H", "4S", "5H",
]


def _env_whose_random_deals_start_dead(dead_deals: int) -> EmpireSolitaireEnv:
    calls = {"count": 0}

    def new_game(config, rng, deck=None):
        calls["count"] += 1
        if deck is None and calls["count"] <= dead_deals:
            rng.integers(1 << 30)  # consume randomness like a real deal would
            return rules.new_game(config, rng, deck=DEAD_DEAL)
        return rules.new_game(config, rng, deck=deck)

    class Env(EmpireSolitaireEnv):
        game = dataclasses.replace(GAME, new_game=new_game)

    env = Env()
    env.calls = calls
    return env


def test_dead_deal_is_really_dead():
    state = rules.new_game(None, 0, deck=DEAD_DEAL)
    assert rules.is_terminal(state) and rules.legal_actions(state) == []


def test_a_random_deal_over_before_any_decision_is_dealt_again():
    env = _env_whose_random_deals_start_dead(dead_deals=2)
    obs, info = env.reset(seed=3)
    assert env.calls["count"] == 3
    assert not rules.is_terminal(env.unwrapped.state)
    assert info["action_mask"].any() and obs.shape == env.observation_space.shape
    # Reproducible: the same seed redeals to the same game.
    again = _env_whose_random_deals_start_dead(dead_deals=2)
    again.reset(seed=3)
    assert again.state == env.state


def test_endless_dead_deals_fail_loudly():
    env = _env_whose_random_deals_start_dead(dead_deals=MAX_REDEALS + 5)
    with pytest.raises(RuntimeError, match="over before any decision"):
        env.reset(seed=0)


def test_an_explicit_dead_deal_is_refused():
    env = EmpireSolitaireEnv()
    with pytest.raises(ValueError, match="over before any decision"):
        env.reset(seed=0, options={"deck": DEAD_DEAL})
    # The env stays usable.
    obs, info = env.reset(seed=0)
    assert np.any(info["action_mask"])
