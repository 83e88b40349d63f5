"""determinize() resamples the deck order and nothing else."""

from __future__ import annotations

import numpy as np

from empire_envs.games.solo import observe, rules


def test_determinize_changes_only_the_deck_order():
    rng = np.random.default_rng(5)
    state = rules.new_game(None, rng)
    orders = set()
    for seed in range(20):
        copy = rules.determinize(state, 0, np.random.default_rng(seed))
        assert sorted(copy.deck) == sorted(state.deck)
        assert np.array_equal(observe.observe(copy), observe.observe(state))
        copy.deck = state.deck[:]
        assert copy == state
        orders.add(tuple(rules.determinize(state, 0, np.random.default_rng(seed)).deck))
    assert len(orders) > 1, "the deck order was never resampled"


def test_determinize_leaves_the_input_alone():
    state = rules.new_game(None, np.random.default_rng(1))
    before = state.clone()
    rules.determinize(state, 0, np.random.default_rng(2))
    assert state == before
