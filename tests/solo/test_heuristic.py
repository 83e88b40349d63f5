"""The solo heuristic plays legally, never reads the hidden deck order, and wins often."""

from __future__ import annotations

import numpy as np

from empire_envs.agents import RandomAgent, make_agent
from empire_envs.agents.solo_heuristic import HeuristicSoloAgent
from empire_envs.games.solo import rules
from empire_envs.games.solo.state import WON


def _play(agent, seed: int, check_hidden: bool = False) -> tuple[int, int]:
    rng = np.random.default_rng(seed)
    state = rules.new_game(None, rng)
    steps = 0
    while not rules.is_terminal(state):
        mask = rules.legal_mask(state)
        action = agent.act(None, mask, state)
        assert mask[action] == 1
        if check_hidden:
            # Same visible position, other deck order: the same choice.
            other = rules.determinize(state, 0, np.random.default_rng(steps))
            assert agent.act(None, mask, other) == action
        rules.apply_action(state, action, rng)
        steps += 1
    return state.outcome, steps


def test_heuristic_ignores_the_hidden_deck_order():
    agent = HeuristicSoloAgent()
    for seed in range(15):
        _play(agent, seed, check_hidden=True)


def test_heuristic_wins_far_more_than_random():
    # 120 fixed deals; the heuristic's rate is about 0.6 (see README), so 0.35 leaves > 5 sigma.
    deals = range(120)
    heuristic_wins = sum(_play(HeuristicSoloAgent(), seed)[0] == WON for seed in deals)
    random_wins = sum(_play(RandomAgent(seed), seed)[0] == WON for seed in deals)
    assert heuristic_wins >= 0.35 * len(deals)
    assert random_wins <= 0.05 * len(deals)


def test_make_agent_builds_the_solo_agents():
    assert isinstance(make_agent("heuristic", "solo"), HeuristicSoloAgent)
    assert isinstance(make_agent("random", "solo", seed=1), RandomAgent)
    for bad in ("ppo", "greedy", ""):
        try:
            make_agent(bad, "solo")
        except ValueError as error:
            assert "known agents" in str(error)
        else:
            raise AssertionError(f"{bad!r} should be refused")
