"""Pillars' game metadata: ``max_game_length`` is a true and close upper bound on the decisions of
a game (and of a campaign), and ``utility_range`` spans exactly the final returns.

The bound is ``length_limit * n`` turns of at most ``max_turn_decisions`` decisions each, plus at
most four pillar lays per seat over the game (``rules.max_game_length``). Scripted turns take
exactly ``max_turn_decisions`` decisions (the bound's per-turn term is reached), and random games
at every table size and variant keep every term of it: per turn, over all lays, over the game.
"""

from __future__ import annotations

import numpy as np
import pytest

from empire_envs.games.pillars import campaign, rules
from empire_envs.games.pillars.actions import RANK_LAYOUT, Kind, layout_for
from empire_envs.games.pillars.config import PillarsConfig
from empire_envs.games.pillars.state import (
    BUILD,
    DISCARD,
    MAIN,
    MERCHANT,
    RPS_ATTACKER,
    RPS_DEFENDER,
    SKIP_TARGET,
    TRADE_OFFER,
    TRADE_PICK,
    TRUNCATED,
    WARLORD,
    PillarsState,
)

from .helpers import build_state, check_invariants, kind, rank

L = RANK_LAYOUT
ROCK = 0
FILLER = ["3", "4", "5", "6", "8", "9", "10", "Q"] * 3


# --------------------------------------------------------------------------- the worst turn


def _battles_dominate(config: PillarsConfig) -> bool:
    """Whether a played-out battle takes more decisions than a trade (else a trade is the longest
    interaction: ``n + 1``)."""
    return config.rps_mode == "played" and 2 * config.rps_max_ties >= config.num_players


def _longest_turn_state(config: PillarsConfig) -> PillarsState:
    """Seat 0 to act in MAIN of round 2, with two pillars of the empire whose bonus repeats the
    longest interaction (a Warlord battles, a Merchant trades), a 2 to discard, and every other
    seat holding a King and an Ace (so both battles are answered "yes") or cards to offer."""
    n = config.num_players
    if _battles_dominate(config):
        pillars = [rank("J"), rank("Q")]
    else:
        pillars = [rank("7"), rank("8")]
    hands = {0: ["2", "3", "4", "5", "9"], **{seat: ["K", "A", "6"] for seat in range(1, n)}}
    return build_state(n, config=config, hands=hands, pillars={0: pillars}, deck=FILLER)


def _play_longest_turn(state: PillarsState) -> int:
    """Play seat 0's turn as long as the rules let it last: the longest interaction as main and
    bonus action (every rock-paper-scissors round a tie, every trade offered to by everyone),
    then END_BUILD, the discard of a 2 and a skip. The number of decisions it took."""
    lay = layout_for(state.kinds)
    rng = np.random.default_rng(0)  # only a coin after the last tie draws from it
    battles = _battles_dominate(state.config)
    turn, decisions = state.turn, 0
    while state.turn == turn:
        phase = state.phase
        if phase in (MAIN, BUILD) and (phase == MAIN or not state.bonus_used):
            demanded = kind("K") if phase == MAIN else kind("A")
            action = lay.battle_index(1, demanded) if battles else lay.trade_index(kind("3" if phase == MAIN else "4"))
        elif phase == BUILD:
            action = lay.end_build
        elif phase in (RPS_ATTACKER, RPS_DEFENDER):
            action = lay.throw_index(ROCK)
        elif phase in (TRADE_OFFER, TRADE_PICK):
            action = rules.legal_actions(state)[0]
        elif phase == DISCARD:
            action = lay.discard_index(kind("2"))
        else:
            assert phase == SKIP_TARGET
            action = lay.skip_index(1)
        assert rules.is_legal(state, action), (phase, lay.name(action))
        rules.apply_action(state, action, rng)
        check_invariants(state)
        decisions += 1
    return decisions


LONGEST_TURN_CONFIGS = {
    "4 players, battles": PillarsConfig(),
    "2 players, battles": PillarsConfig(num_players=2, allow_2p=True),
    "6 players, 3 ties at most": PillarsConfig(num_players=6, rps_max_ties=3),
    "3 players, one tie, trades": PillarsConfig(num_players=3, rps_max_ties=1),
    "6 players, coin battles, trades": PillarsConfig(num_players=6, rps_mode="random"),
}


@pytest.mark.parametrize("name", sorted(LONGEST_TURN_CONFIGS))
def test_the_longest_turn_takes_exactly_the_per_turn_term(name):
    config = LONGEST_TURN_CONFIGS[name]
    state = _longest_turn_state(config)
    expected_empire = WARLORD if _battles_dominate(config) else MERCHANT
    assert state.empire[0] == expected_empire and state.phase == MAIN and state.event_serial == 0
    turn = state.turn
    decisions = _play_longest_turn(state)
    assert state.event_serial == 2  # the main and the bonus interaction were played out
    assert state.turn == turn + 2 and state.current == 2 % config.num_players  # seat 1 was skipped
    assert decisions == rules.max_turn_decisions(config) == 2 * rules.max_interaction_decisions(config) + 3


def test_the_interaction_term_is_the_longest_of_steal_trade_and_battle():
    """A steal is 1 decision, a trade ``n + 1``, a played battle ``1 + 2 * rps_max_ties``."""
    assert rules.max_interaction_decisions(PillarsConfig()) == 1 + 2 * 5
    assert rules.max_interaction_decisions(PillarsConfig(rps_max_ties=1)) == 1 + 4  # a trade: 4 players
    assert rules.max_interaction_decisions(PillarsConfig(num_players=6, rps_mode="random")) == 1 + 6
    assert rules.max_game_length(PillarsConfig()) == 200 * 4 * 25 + 4 * 4


# --------------------------------------------------------------------------- random games


def play_counting(config: PillarsConfig, seed: int) -> tuple[int, dict[int, int], int]:
    """A masked random game: its decisions, the decisions of each turn other than pillar lays,
    and its pillar lays."""
    rng = np.random.default_rng(seed)
    state = rules.new_game(config, rng)
    pillars = layout_for(state.kinds).block_range(Kind.PILLAR)
    per_turn: dict[int, int] = {}
    decisions = lays = 0
    while not rules.is_terminal(state):
        legal = rules.legal_actions(state)
        action = legal[int(rng.integers(len(legal)))]
        if action in pillars:
            lays += 1
        else:
            per_turn[state.turn] = per_turn.get(state.turn, 0) + 1
        rules.apply_action(state, action, rng)
        decisions += 1
    return decisions, per_turn, lays


VARIANTS = {
    "default": {},
    "card": {"battle_demand": "card"},
    "rps_random": {"rps_mode": "random"},
    "one_tie": {"rps_max_ties": 1},
    "optional_main_first_round_pillars": {"main_action_optional": True, "first_round_pillars": True},
    "strict_skips_one_pack": {"skip_optional": False, "packs": 1, "jokers_per_pack": 4},
}


@pytest.mark.parametrize("players", (2, 3, 4, 5, 6))
@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_random_games_stay_within_every_term_of_the_bound(players, variant):
    settings = {"num_players": players, "allow_2p": players == 2, "length_limit": 40, **VARIANTS[variant]}
    if settings.get("packs") == 1 and players > 4:
        settings["packs"] = 2  # one pack cannot deal 5 or 6 hands and leave a pile
    config = PillarsConfig(**settings)
    for seed in range(2):
        decisions, per_turn, lays = play_counting(config, seed)
        assert max(per_turn.values()) <= rules.max_turn_decisions(config)
        assert lays <= 4 * players
        assert max(per_turn) < config.length_limit * players
        assert decisions <= rules.max_game_length(config)


# --------------------------------------------------------------------------- the campaign


def test_campaign_bound_is_its_games_times_the_game_bound():
    config = campaign.CampaignConfig(length_limit=7, campaign_max_games=4)
    assert campaign.CAMPAIGN_GAME.max_game_length(config) == 4 * rules.max_game_length(config)


@pytest.mark.parametrize("players", (3, 4, 6))
def test_a_campaign_without_a_champion_plays_every_game_it_may(players):
    """One-round games cannot be won (no pillar before round 2), so the campaign plays exactly
    ``campaign_max_games`` games, each inside the game bound, and ends truncated."""
    config = campaign.CampaignConfig(num_players=players, length_limit=1, campaign_max_games=5)
    record = campaign.CAMPAIGN_GAME
    rng = np.random.default_rng(players)
    state = record.new_game(config, rng)
    decisions = game_decisions = 0
    games = []
    while not record.is_terminal(state):
        before = state.games_played
        legal = record.legal_actions(state)
        record.apply_action(state, legal[int(rng.integers(len(legal)))], rng)
        decisions += 1
        game_decisions += 1
        if state.games_played != before:
            games.append(game_decisions)
            game_decisions = 0
    assert state.outcome == TRUNCATED and state.games_played == len(games) == 5
    assert all(0 < count <= rules.max_game_length(config) for count in games)
    assert decisions == sum(games) <= record.max_game_length(config)


# --------------------------------------------------------------------------- utility range


@pytest.mark.parametrize("players", (2, 3, 4, 5, 6))
@pytest.mark.parametrize("scheme", ("win_loss", "zero_sum"))
def test_utility_range_is_the_loss_and_the_win(players, scheme):
    """Ruling of section 1: the winner +1, every other seat -1 (``-1/(n-1)`` when zero-sum); a
    truncated game 0 to all, inside the range. The campaign scores its winner the same way."""
    config = PillarsConfig(num_players=players, allow_2p=players == 2, reward_scheme=scheme)
    loss = -1.0 if scheme == "win_loss" else -1.0 / (players - 1)
    assert rules.utility_range(config) == (loss, 1.0)
    for winner in range(players):
        returns = rules.win_rewards(players, winner, config)
        assert returns[winner] == 1.0 and sorted(returns)[:-1] == [loss] * (players - 1)
        if scheme == "zero_sum":
            assert sum(returns) == pytest.approx(0.0)
    assert rules.win_rewards(players, -1, config) == [0.0] * players
    series = campaign.CampaignConfig(num_players=players, allow_2p=players == 2, reward_scheme=scheme)
    assert campaign.CAMPAIGN_GAME.utility_range(series) == (loss, 1.0)
