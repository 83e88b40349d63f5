"""Game metadata of Empires and Generals: ``rules.max_game_length`` and ``rules.utility_range``.

- Random games of every registered Generals variant stay within the bound, and within its precise
  claim: the decisions beyond the per-turn and per-card terms are only moves that undo a move.
- A scripted turn uses every decision the per-turn term allows but one (the General has no
  ability), so the term is not loose.
- MOVE is not limited by the rules, so a policy that undoes its moves could outlast any bound:
  the game is truncated when it reaches ``max_game_length`` decisions (a gap we filled).
- Every final reward lies in ``utility_range``, whose ends are the place rewards of first and last.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from empire_envs.games.generals import GeneralsConfig, rules
from empire_envs.games.generals.actions import Kind
from empire_envs.games.generals.config import UNIT_SLOTS
from empire_envs.games.generals.state import ATTACK, DECLARE
from empire_envs.registry import ENTRIES

from .helpers import (
    BF,
    WC,
    blank_state,
    give_hand,
    give_ready,
    put_unit,
    set_pile,
)

GENERALS_VARIANTS = [item for item in ENTRIES if item.game == "generals"]
#: the action kinds whose decisions the per-turn term counts; the others are about a card
PER_TURN_KINDS = {
    Kind.PLAY_TURN,
    Kind.PASS,
    Kind.END_PHASE,
    Kind.ATTACK,
    Kind.BLOCK,
    Kind.NO_BLOCK,
    Kind.NO_TACTIC,
    Kind.ACTIVATE,
    Kind.MOVE,
}


def _decisions(config: GeneralsConfig, seed: int) -> tuple[int, int]:
    """A random game's decisions, and among them the moves of a unit already moved that turn."""
    rng = np.random.default_rng(seed)
    choose = random.Random(seed).choice
    state = rules.new_game(config, rng)
    decisions = undoing_moves = 0
    moved: set[int] = set()
    turn = None
    while not rules.is_terminal(state):
        if (state.current, state.round) != turn:
            turn, moved = (state.current, state.round), set()
        action = choose(rules.legal_actions(state))
        kind, slot, _, _ = state.layout.decode(action)
        if kind is Kind.MOVE:
            undoing_moves += slot in moved
            moved.add(slot)
        rules.apply_action(state, action, rng)
        decisions += 1
    return decisions, undoing_moves


@pytest.mark.parametrize("item", GENERALS_VARIANTS, ids=[item.env_id for item in GENERALS_VARIANTS])
def test_random_games_of_every_variant_stay_within_max_game_length(item):
    config = GeneralsConfig(**item.kwargs)
    bound = rules.max_game_length(config)
    for seed in range(3):
        decisions, undoing_moves = _decisions(config, seed)
        assert decisions - undoing_moves <= bound
        assert decisions <= bound, f"{item.env_id}: {decisions} decisions, max_game_length={bound}"


def test_the_bound_is_its_documented_terms():
    config = GeneralsConfig()
    per_turn = rules.TURN_DECISIONS + 2 * UNIT_SLOTS
    assert rules.decisions_per_turn(config) == per_turn == 8 + 20
    largest = max(len(deck.playing) + len(deck.supply) for deck in config.available_decks.values())
    assert largest == 47  # 29 + 18 cards in every prebuilt deck
    assert rules.max_game_length(config) == 60 * 2 * per_turn + 2 * rules.CARD_DECISIONS * largest == 3736
    epic = GeneralsConfig(game_type="epic", num_players=4, length_limit=100)
    assert rules.max_game_length(epic) == 100 * 4 * per_turn + 4 * rules.CARD_DECISIONS * largest


def _long_turn() -> tuple:
    """Seat 0 to declare, with a choice in every phase: 1 card in each pile, a Kingdom card and a
    battle tactic in hand, money, a General and 9 Scouts (abilities: pay 1, draw 1) in the
    Warcamp; seat 1 with a unit in each zone and a tactic of its own."""
    s = blank_state(("mongols", "rome"), phase=DECLARE)
    set_pile(s, 0, "playing", ["mon_lancer"])
    set_pile(s, 0, "supply", ["grain"])
    give_hand(s, 0, "mon_yam", "feigned_retreat")
    give_ready(s, 0, "gold", "gold", "gold", "gold", "gold")
    put_unit(s, 0, 0, "mon_noyan", WC)
    for slot in range(1, UNIT_SLOTS):
        put_unit(s, 0, slot, "mon_scout", WC)
    put_unit(s, 1, 0, "rom_legionary", BF)
    put_unit(s, 1, 1, "rom_praetorian", WC)
    give_hand(s, 1, "feigned_retreat")
    return s


def test_a_scripted_long_turn_uses_the_per_turn_term():
    s = _long_turn()
    lay = s.layout
    rng = np.random.default_rng(0)
    script = [rules.PLAY_TURN, rules.DRAW_SUPPLY, rules.END_PHASE]
    script += [lay.index(Kind.ACTIVATE, slot) for slot in range(1, UNIT_SLOTS)] + [rules.END_PHASE]
    script += [lay.index(Kind.MOVE, slot) for slot in range(UNIT_SLOTS)] + [lay.index(Kind.ATTACK, 0, 1, BF)]
    script += [rules.NO_BLOCK, lay.index(Kind.BLOCK, 1), rules.NO_TACTIC, rules.NO_TACTIC]
    kinds = []
    for action in script:
        legal = rules.legal_actions(s)
        assert action in legal and len(legal) > 1, "every step of the script is a real choice"
        kinds.append(lay.decode(action).kind)
        rules.apply_action(s, action, rng)
    assert s.current == 1 and s.phase == DECLARE, "the turn is over"
    per_turn = sum(kind in PER_TURN_KINDS for kind in kinds)
    card_decisions = len(kinds) - per_turn  # the one draw
    assert per_turn == rules.decisions_per_turn(s.config) - 1, "all but the General's missing ability"
    assert card_decisions == 1
    assert len(kinds) <= rules.decisions_per_turn(s.config) + rules.CARD_DECISIONS * card_decisions


def test_endless_moves_are_truncated_at_max_game_length():
    """MOVE is unlimited (ruling 41), so a turn of moves out and back never ends by itself; the
    game stops, truncated with 0 for everyone still in, when it reaches max_game_length."""
    s = blank_state(("rome", "mongols"), phase=ATTACK)
    put_unit(s, 0, 0, "rom_legionary", BF)
    s.decision_limit = rules.max_game_length(s.config)  # what new_game sets
    s.decisions = s.decision_limit - 5
    moves = 0
    while not rules.is_terminal(s):
        assert s.current == 0 and s.phase == ATTACK, "only moves are played"
        rules.apply_action(s, s.layout.index(Kind.MOVE, 0), np.random.default_rng(0))  # out and back
        moves += 1
    assert moves == 5 and s.decisions == rules.max_game_length(s.config)
    assert rules.is_truncated(s) and rules.final_rewards(s) == [0.0, 0.0]


def test_new_game_sets_the_decision_limit_of_its_config():
    for config in (GeneralsConfig(), GeneralsConfig(num_players=4, length_limit=7)):
        state = rules.new_game(config, np.random.default_rng(0))
        assert state.decision_limit == rules.max_game_length(config) and state.decisions == 0


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("scheme", ["win_loss", "placement"])
def test_utility_range_is_the_rewards_of_first_and_last_place(players, scheme):
    config = GeneralsConfig(num_players=players, max_seats=max(4, players), reward_scheme=scheme,
                            allow_mirror=players > 4)
    assert rules.utility_range(config) == (-1.0, 1.0)
    if scheme == "placement":
        rewards = [rules.place_reward(config, place) for place in range(1, players + 1)]
        assert rules.utility_range(config) == (min(rewards), max(rewards)) == (rewards[-1], rewards[0])


@pytest.mark.parametrize("scheme", ["win_loss", "placement"])
def test_final_rewards_lie_in_the_utility_range_and_reach_both_ends(scheme):
    config = GeneralsConfig(num_players=3, reward_scheme=scheme, game_type="quick", attack_transfer=True)
    low, high = rules.utility_range(config)
    seen: set[float] = set()
    for seed in range(12):
        rng = np.random.default_rng(seed)
        choose = random.Random(seed).choice
        state = rules.new_game(config, rng)
        while not rules.is_terminal(state):
            rules.apply_action(state, choose(rules.legal_actions(state)), rng)
        rewards = rules.final_rewards(state)
        assert all(low <= reward <= high for reward in rewards)
        seen.update(rewards)
    assert {low, high} <= seen
