"""Properties of Pillars over many random masked games (design, tests layer 4).

Each game is played by masked random choices from a seeded generator; after every step the
rewards are summed and at every turn boundary all cards are counted; every turn, the game's
pillar lays and the whole game stay within the terms of ``rules.max_game_length``. ``make test``
plays a sample of each player count; ``pytest -m soak`` plays the issue's 2,000 games per player
count.
"""

from __future__ import annotations

import numpy as np
import pytest

from empire_envs.games.pillars import PillarsConfig, rules
from empire_envs.games.pillars.actions import Kind, layout_for
from empire_envs.games.pillars.observe import observation_high, observe
from empire_envs.games.pillars.state import TRUNCATED, WON, full_deck_counts

PLAYER_COUNTS = (3, 4, 5, 6)
SAMPLE_GAMES = 25
SOAK_GAMES = 2000


def play_random_game(config: PillarsConfig, seed: int, check_every_step: bool = False) -> dict:
    """Play one masked random game; assert the invariants along the way; return its summary."""
    rng = np.random.default_rng(seed)
    state = rules.new_game(config, rng)
    full = full_deck_counts(config)
    n = config.num_players
    totals = [0.0] * n
    steps = 0
    last_turn = state.turn
    pillars = layout_for(state.kinds).block_range(Kind.PILLAR)
    turn_decisions = lays = 0  # of the turn in progress, pillar lays aside; of the game
    while not rules.is_terminal(state):
        legal = rules.legal_actions(state)
        assert legal, "a live state without a legal action"
        action = legal[int(rng.integers(len(legal)))]
        if action in pillars:
            lays += 1
        else:
            turn_decisions += 1
            assert turn_decisions <= rules.max_turn_decisions(config), "a turn outlived its bound"
        turn = state.turn
        rewards = rules.apply_action(state, action, rng)
        if state.turn != turn:
            turn_decisions = 0
        assert len(rewards) == n
        totals = [t + r for t, r in zip(totals, rewards, strict=True)]
        steps += 1
        if check_every_step or state.turn != last_turn or rules.is_terminal(state):
            last_turn = state.turn
            assert state.kind_totals() == full, "cards were created or lost"
            assert state.hand_sizes == [sum(h) for h in state.hands]
            assert all(min(h) >= 0 for h in state.hands)
            assert state.pile_counts == [
                [pile.count(k) for k in range(state.kinds.size)] for pile in state.piles
            ]
            for seat in range(n):  # the public tracker never claims more than a hand holds
                assert all(state.known[seat][k] <= state.hands[seat][k] for k in range(state.kinds.size))
    assert state.turn <= config.length_limit * n, "the game outlived its round bound"
    assert lays <= 4 * n and steps <= rules.max_game_length(config), "the game outlived max_game_length"
    if state.outcome == WON:
        loss = -1.0 if config.reward_scheme == "win_loss" else -1.0 / (n - 1)
        expected = [1.0 if seat == state.winner else loss for seat in range(n)]
        assert state.pillar_count(state.winner) == 4
    else:
        assert state.outcome == TRUNCATED
        expected = [0.0] * n
        if config.resource_empty != "end_draw":
            assert state.turn == config.length_limit * n
    assert totals == pytest.approx(expected), "rewards differ from the ruled ones"
    return {"outcome": state.outcome, "steps": steps, "turns": state.turn}


@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_random_games_sample(players):
    config = PillarsConfig(num_players=players)
    outcomes = [play_random_game(config, seed)["outcome"] for seed in range(SAMPLE_GAMES)]
    assert WON in outcomes, "no random game was won: the win path is unreachable"


@pytest.mark.soak
@pytest.mark.parametrize("players", PLAYER_COUNTS)
def test_random_games_soak(players):
    config = PillarsConfig(num_players=players)
    summaries = [play_random_game(config, 10_000 + seed) for seed in range(SOAK_GAMES)]
    wins = sum(s["outcome"] == WON for s in summaries)
    print(f"{players} players: {SOAK_GAMES} games, {wins} won, {SOAK_GAMES - wins} truncated, "
          f"mean {np.mean([s['steps'] for s in summaries]):.0f} decisions")
    assert wins > 0


VARIANTS = {
    "card": dict(battle_demand="card"),
    "rps_random": dict(rps_mode="random"),
    "skip_draw": dict(resource_empty="skip_draw", length_limit=60),
    "end_draw": dict(resource_empty="end_draw"),
    "first_round_pillars": dict(first_round_pillars=True, main_action_optional=True),
    "strict": dict(skip_optional=False, min_natural_per_pillar=2, rps_max_ties=1),
    "zero_sum_shaped": dict(reward_scheme="zero_sum", num_players=5),
    "two_players": dict(num_players=2, allow_2p=True),
    "one_pack_no_jokers": dict(num_players=3, packs=1, jokers_per_pack=0, length_limit=80),
}


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_random_games_of_every_variant(variant):
    config = PillarsConfig(**VARIANTS[variant])
    for seed in range(6):
        play_random_game(config, seed, check_every_step=seed == 0)


def test_shaping_pays_each_pillar_on_top_of_the_result():
    config = PillarsConfig(shaping=0.05)
    rng = np.random.default_rng(3)
    for seed in range(10):
        state = rules.new_game(config, np.random.default_rng(seed))
        totals = [0.0] * 4
        while not rules.is_terminal(state):
            legal = rules.legal_actions(state)
            for seat, value in enumerate(rules.apply_action(state, legal[int(rng.integers(len(legal)))], rng)):
                totals[seat] += value
        expected = [v + 0.05 * state.pillar_count(s) for s, v in enumerate(rules.final_rewards(state))]
        assert totals == pytest.approx(expected)


def test_same_seed_same_game_and_other_seed_other_game():
    def trajectory(seed: int) -> list[int]:
        rng = np.random.default_rng(seed)
        state = rules.new_game(PillarsConfig(), rng)
        chosen = []
        for _ in range(400):
            legal = rules.legal_actions(state)
            chosen.append(legal[int(rng.integers(len(legal)))])
            rules.apply_action(state, chosen[-1], rng)
        return chosen

    assert trajectory(5) == trajectory(5)
    assert trajectory(5) != trajectory(6)


@pytest.mark.parametrize("players", (3, 6))
def test_determinize_keeps_the_players_view_and_every_card(players):
    """A determinized state is a possible truth: the same observation for the player, the same
    cards overall, hands that hold at least what the public tracker says."""
    config = PillarsConfig(num_players=players)
    rng = np.random.default_rng(players)
    state = rules.new_game(config, rng)
    full = full_deck_counts(config)
    checked = changed = 0
    while not rules.is_terminal(state) and checked < 600:
        player = checked % players
        copy = rules.determinize(state, player, np.random.default_rng(checked))
        assert np.array_equal(observe(copy, player), observe(state, player))
        assert copy.kind_totals() == full
        assert copy.hands[player] == state.hands[player]
        for seat in range(players):
            assert all(copy.hands[seat][k] >= state.known[seat][k] for k in range(state.kinds.size))
        if rules.legal_actions(copy) != rules.legal_actions(state):
            assert rules.acting_player(copy) != player, "the player's own options must not change"
        changed += any(copy.hands[s] != state.hands[s] for s in range(players) if s != player)
        legal = rules.legal_actions(state)
        rules.apply_action(state, legal[int(rng.integers(len(legal)))], rng)
        checked += 1
    assert changed > checked // 2, "determinize rarely resampled anything"


def test_observations_stay_inside_the_space_bounds():
    config = PillarsConfig(num_players=6, length_limit=30)
    high = observation_high(config)
    rng = np.random.default_rng(11)
    state = rules.new_game(config, rng)
    while not rules.is_terminal(state):
        for seat in range(6):
            vector = observe(state, seat)
            assert vector.dtype == np.float32 and vector.min() >= 0 and vector.max() <= high
        legal = rules.legal_actions(state)
        rules.apply_action(state, legal[int(rng.integers(len(legal)))], rng)
