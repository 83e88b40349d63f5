"""The Pillars heuristic agent (and its ISMCTS preset): legal play for every player count and the
exact-card variant, repeatability, and blindness to hidden information."""

from __future__ import annotations

import numpy as np
import pytest

from empire_envs.agents import make_agent
from empire_envs.agents.base import RandomAgent
from empire_envs.agents.pillars_heuristic import HeuristicISMCTSAgent, PillarsHeuristicAgent
from empire_envs.games.pillars import GAME, PillarsConfig
from empire_envs.games.pillars.actions import Kind, layout_for
from empire_envs.games.pillars.state import OVER, WON


def play(config: PillarsConfig, agents, seed: int, record=None, max_steps: int = 20000):
    """Play one game; ``apply`` raises on an illegal action. ``record(state)`` sees every
    decision point before the move."""
    rng = np.random.default_rng(seed)
    state = GAME.new_game(config, rng)
    steps = 0
    while not GAME.is_terminal(state) and steps < max_steps:
        seat = GAME.acting_player(state)
        mask = GAME.legal_mask(state)
        if record is not None:
            record(state)
        action = agents[seat].act(None, mask, state)
        assert mask[action] == 1, f"seat {seat} chose illegal {GAME.action_name(state, action)}"
        GAME.apply_action(state, action, rng)
        steps += 1
    return state


@pytest.mark.parametrize(
    ("players", "demand", "games"),
    [(3, "rank", 12), (4, "rank", 12), (6, "rank", 8), (4, "card", 8), (5, "card", 4)],
)
def test_heuristic_plays_only_legal_actions(players, demand, games):
    config = PillarsConfig(num_players=players, battle_demand=demand)
    for game in range(games):
        # all heuristic seats, and one heuristic among random seats
        if game % 2:
            agents = [PillarsHeuristicAgent(seed=game * 10 + s) for s in range(players)]
        else:
            agents = [RandomAgent(seed=game * 10 + s) for s in range(players)]
            agents[game % players] = PillarsHeuristicAgent(seed=game)
        state = play(config, agents, seed=game)
        assert state.phase == OVER


def test_heuristic_is_repeatable_for_a_seed():
    config = PillarsConfig()
    ends = []
    for _ in range(2):
        agents = [PillarsHeuristicAgent(seed=s) for s in range(4)]
        state = play(config, agents, seed=7)
        ends.append((state.turn, state.winner, [row[:] for row in state.hands]))
    assert ends[0] == ends[1]


def test_heuristic_beats_random_seats():
    config = PillarsConfig()
    wins = 0
    for game in range(12):
        agents = [RandomAgent(seed=game * 10 + s) for s in range(4)]
        agents[game % 4] = PillarsHeuristicAgent(seed=game)
        state = play(config, agents, seed=100 + game)
        wins += state.outcome == WON and state.winner == game % 4
    assert wins >= 9


@pytest.mark.parametrize("demand", ["rank", "card"])
def test_heuristic_ignores_hidden_information(demand):
    """At every decision, the same agent (same seed) chooses the same action in the true state
    and in a copy whose hidden parts (other hands, the resource pile's order, unrevealed offers,
    the attacker's pending throw) are redrawn consistently with the acting seat's view."""
    config = PillarsConfig(battle_demand=demand)
    states = []
    agents = [PillarsHeuristicAgent(seed=s) for s in range(4)]
    agents[1] = RandomAgent(seed=1)  # random play reaches more kinds of position
    play(config, agents, seed=3, record=lambda s: states.append(s.clone()))
    assert len(states) > 100
    rng = np.random.default_rng(0)
    differing = 0
    for index, state in enumerate(states[::2]):
        seat = GAME.acting_player(state)
        other = GAME.determinize(state, seat, rng)
        differing += other.hands != state.hands or other.deck != state.deck
        mask = GAME.legal_mask(state)
        assert (GAME.legal_mask(other) == mask).all()
        first = PillarsHeuristicAgent(seed=index).act(None, mask, state)
        second = PillarsHeuristicAgent(seed=index).act(None, mask, other)
        assert first == second, f"decision {index}: {GAME.action_name(state, first)} vs " \
            f"{GAME.action_name(state, second)}"
    assert differing > 10


def test_heuristic_lays_a_pillar_and_names_the_leader_for_a_skip():
    config = PillarsConfig()
    lay = layout_for(GAME.new_game(config, np.random.default_rng(0)).kinds)
    laid = skips = 0

    def record(state):
        nonlocal laid, skips
        if state.phase == OVER:
            return
        mask = GAME.legal_mask(state)
        pillar = [a for a in np.flatnonzero(mask) if a in lay.block_range(Kind.PILLAR)]
        agent = PillarsHeuristicAgent(seed=0)
        choice = agent.act(None, mask, state)
        if pillar:
            assert choice in lay.block_range(Kind.PILLAR), "a legal pillar was not laid"
            laid += 1
        skip = [int(a) for a in np.flatnonzero(mask) if a in lay.block_range(Kind.SKIP)]
        if skip:
            assert choice != lay.no_skip
            me, n = GAME.acting_player(state), state.n
            chosen = (me + lay.decode(choice).a) % n
            eligible = [(me + lay.decode(a).a) % n for a in skip]
            assert state.pillar_count(chosen) == max(state.pillar_count(s) for s in eligible)
            skips += 1

    agents = [PillarsHeuristicAgent(seed=s) for s in range(4)]
    for seed in range(3):
        play(config, agents, seed=seed, record=record)
    assert laid > 0 and skips > 0


def test_make_agent_builds_the_pillars_agents():
    assert isinstance(make_agent("heuristic", "pillars"), PillarsHeuristicAgent)
    assert make_agent("ismcts", "pillars").name == "ismcts"


def test_heuristic_ismcts_preset_plays_legally_and_repeatably():
    config = PillarsConfig(length_limit=6)
    ends = []
    for _ in range(2):
        agents = [PillarsHeuristicAgent(seed=s) for s in range(4)]
        agents[2] = HeuristicISMCTSAgent(iterations=8, seed=5)
        state = play(config, agents, seed=11)
        ends.append((state.turn, state.outcome, [row[:] for row in state.hands]))
    assert ends[0] == ends[1]
