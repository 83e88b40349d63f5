"""Rule scenarios for Pillars: one test (or a small group) per rule-check scenario of section 7 of
``shared/rulings/002-pillars.md``, then one group per ``PillarsConfig`` flag and the config
validation errors.

Every test builds the exact state it needs (``helpers.build_state``) or stacks the deck of
``rules.new_game``; none depends on a lucky seed. Where a coin decides, the rng is chosen for a
known first draw (a stub or the first seed whose first ``random()`` falls on the wanted side).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from empire_envs.core.errors import IllegalActionError
from empire_envs.envs import PillarsEnv as raw_env
from empire_envs.games.pillars import observe, rules
from empire_envs.games.pillars.actions import CARD_LAYOUT, RANK_LAYOUT, Kind
from empire_envs.games.pillars.config import PillarsConfig
from empire_envs.games.pillars.state import (
    ANSWER_NO,
    ANSWER_YES,
    BUILD,
    DISCARD,
    MAIN,
    MERCHANT,
    ONGOING,
    OVER,
    RANK_KINDS,
    RPS_ATTACKER,
    RPS_DEFENDER,
    SKIP_TARGET,
    THIEF,
    TRADE_OFFER,
    TRADE_PICK,
    TRUNCATED,
    WARLORD,
    WON,
    full_deck_counts,
)

from .helpers import (
    JOKER,
    TWO,
    CoinStub,
    act,
    block,
    build_state,
    counts,
    kind,
    kinds,
    legal,
    quiet_turn,
    random_states,
    rank,
    seat_block,
    stacked_deck,
)

L = RANK_LAYOUT
ROCK, PAPER, SCISSORS = range(3)
STEALS = set(L.block_range(Kind.STEAL))
TRADES = set(L.block_range(Kind.TRADE))
BATTLES = set(L.block_range(Kind.BATTLE))
PILLARS = set(L.block_range(Kind.PILLAR))
THROWS = {L.throw_index(t) for t in range(3)}
FILLER = ["3", "4", "5", "6", "8", "9", "10", "Q"] * 3  # deck filler for draws


def rng0():
    return np.random.default_rng(0)


def first_seed(wanted_low: bool) -> int:
    """The first seed whose generator's first ``random()`` is below (or not below) 0.5."""
    return next(s for s in range(1000) if (np.random.default_rng(s).random() < 0.5) == wanted_low)


def pillar_set(state) -> set[int]:
    return legal(state) & PILLARS


# =========================================================================== section 7


def test_scenario_01_round_one():
    """Scenario 1: in round 1 the mask is DISCARD(k) for the kinds in hand only; a 2 discarded
    in round 1 opens no SKIP_TARGET, and the pile it tops cannot be stolen from in round 2."""
    config = PillarsConfig(num_players=4)
    hands = {
        0: ["2", "3", "3", "4", "5", "6", "7", "8", "9", "10"],
        1: ["2", "J", "J", "Q", "K", "A", "3", "4", "5", "6"],
        2: ["2", "7", "8", "9", "10", "J", "Q", "K", "A", "A"],
        3: ["2", "2", "3", "4", "5", "6", "7", "8", "9", "10"],
    }
    deck = stacked_deck(config, 0, hands, top=["Q", "K", "K", "K", "Joker", "A"])
    state = rules.new_game(config, rng0(), deck=deck, first_player=0)
    assert state.current == 0 and state.phase == DISCARD and state.in_first_round
    assert state.hands[0] == counts(hands[0] + ["Q"])  # the automatic draw
    assert legal(state) == {L.discard_index(k) for k in range(14) if state.hands[0][k]}
    for seat in range(4):
        assert state.current == seat and state.phase == DISCARD
        rewards = act(state, L.discard_index(TWO))
        assert rewards == [0.0] * 4
        assert state.phase != SKIP_TARGET and not any(state.pending_skip)
        assert state.piles[seat] == [TWO]
    # Round 2, seat 0: every other pile is topped by a round-1 2.
    assert state.round == 2 and state.current == 0 and state.phase == MAIN
    assert state.hands[0][JOKER] == 1
    assert not legal(state) & STEALS
    assert not any(rules.is_legal(state, L.steal_index(o)) for o in range(1, 4))
    with pytest.raises(IllegalActionError):
        rules.apply_action(state, L.steal_index(1), rng0())
    quiet_turn(state)  # covers seat 0's 2 with another card
    assert state.current == 1 and state.phase == MAIN
    # seat 0 is offset 3 from seat 1: now stealable; seats 2, 3 are still 2-topped
    assert legal(state) & STEALS == {L.steal_index(3)}


def test_scenario_02_steal_blocked_by_two():
    """Scenario 2: pile [5, 2] (2 on top) cannot be stolen from; pile [2, 5] can, and after the
    steal the 2 is on top and STEAL(1) is masked again."""
    state = build_state(hands={0: ["3"], 1: ["4"]}, piles={1: ["5", "2"]}, deck=FILLER)
    assert L.steal_index(1) not in legal(state)
    assert not rules.is_legal(state, L.steal_index(1))

    state = build_state(hands={0: ["3"], 1: ["4"]}, piles={1: ["2", "5"]}, deck=FILLER)
    assert legal(state) & STEALS == {L.steal_index(1)}
    act(state, L.steal_index(1))
    assert state.hands[0] == counts(["3", "5"]) and state.hand_sizes[0] == 2
    assert state.piles[1] == [TWO] and state.pile_counts[1] == counts(["2"])
    assert state.known[0][kind("5")] == 1
    assert state.phase == BUILD and state.main_done
    assert not rules.can_steal(state, 0, 1)
    # the same table at the start of a fresh main action: still masked
    state.phase, state.main_done = MAIN, False
    assert L.steal_index(1) not in legal(state)
    assert not rules.is_legal(state, L.steal_index(1))


def test_scenario_03_steal_empty_pile_and_joker():
    """Scenario 3: stealing from an empty pile is masked; a Joker on top can be stolen."""
    state = build_state(hands={0: ["3"]}, piles={2: ["6", "Joker"]}, deck=FILLER)
    assert legal(state) & STEALS == {L.steal_index(2)}  # seats 1 and 3 have empty piles
    for o in (1, 3):
        assert not rules.is_legal(state, L.steal_index(o))
    act(state, L.steal_index(2))
    assert state.hands[0][JOKER] == 1 and state.piles[2] == [kind("6")]
    assert state.known[0][JOKER] == 1


def test_scenario_04_battle_answer_no():
    """Scenario 4: demanding a 7 from a seat without 7s: no RPS, hands unchanged, BUILD, and
    the answer "no" is visible to every seat."""
    hands = {0: ["3", "4"], 1: ["8", "8", "9"], 2: ["7"], 3: ["5"]}
    state = build_state(hands=hands, deck=FILLER)
    before = [h[:] for h in state.hands]
    act(state, L.battle_index(1, kind("7")))
    assert state.phase == BUILD and state.main_done
    assert state.hands == before
    assert state.battle_answer == ANSWER_NO
    assert not legal(state) & THROWS
    for seat in range(4):
        obs = observe.observe(state, seat)
        assert list(block(obs, "battle answer")) == [0, 0, 1]
        demand = block(obs, "battle demand")
        assert demand[kind("7") + 1] == 1 and demand.sum() == 1
        assert block(obs, "battle attacker")[(0 - seat) % 4] == 1
        assert block(obs, "battle defender")[(1 - seat) % 4] == 1


def test_scenario_05_battle_win():
    """Scenario 5: defender holds two 7s; rock beats scissors: the attacker takes one 7, the
    defender keeps one; the tracker shows attacker >= 1 seven and defender >= 0."""
    seven = kind("7")
    state = build_state(hands={0: ["3"], 1: ["7", "7", "9"]}, deck=FILLER)
    act(state, L.battle_index(1, seven))
    assert state.phase == RPS_ATTACKER and rules.acting_player(state) == 0
    assert state.battle_answer == ANSWER_YES and state.known[1][seven] >= 1
    act(state, L.throw_index(ROCK))
    assert state.phase == RPS_DEFENDER and rules.acting_player(state) == 1
    act(state, L.throw_index(SCISSORS))
    assert state.phase == BUILD and state.current == 0 and state.main_done
    assert state.hands[0][seven] == 1 and state.hands[1][seven] == 1
    assert state.hand_sizes == [2, 2, 0, 0]
    assert state.known[0][seven] >= 1 and state.known[1][seven] == 0
    obs = observe.observe(state, 2)  # a bystander's view of the tracker
    assert seat_block(obs, 2, "known")[seven] >= 1  # seat 0 is offset 2 from seat 2
    assert seat_block(obs, 3, "known")[seven] == 0  # seat 1 is offset 3 from seat 2


@pytest.mark.parametrize("attacker", range(3))
@pytest.mark.parametrize("defender", range(3))
def test_scenario_05_rps_table(attacker, defender):
    """Scenario 5 (all throws): rock > scissors > paper > rock; a tie asks the attacker again."""
    seven = kind("7")
    state = build_state(hands={0: ["3"], 1: ["7", "9"]}, deck=FILLER)
    act(state, L.battle_index(1, seven))
    act(state, L.throw_index(attacker))
    act(state, L.throw_index(defender))
    assert state.last_throws == [attacker, defender]
    if attacker == defender:
        assert state.phase == RPS_ATTACKER and state.battle_ties == 1
        assert state.hands[1][seven] == 1
        return
    attacker_wins = (attacker, defender) in {(ROCK, SCISSORS), (SCISSORS, PAPER), (PAPER, ROCK)}
    assert state.phase == BUILD
    assert state.hands[0][seven] == int(attacker_wins)
    assert state.hands[1][seven] == int(not attacker_wins)


@pytest.mark.parametrize("attacker_wins", [True, False])
def test_scenario_06_rps_tie_cap(attacker_wins):
    """Scenario 6: five rock/rock ties with rps_max_ties=5: the env flips the coin (both coin
    outcomes, by a generator whose first draw is known) and asks for no sixth throw."""
    seed = first_seed(wanted_low=attacker_wins)  # rng.random() < 0.5 means the attacker wins
    rng = np.random.default_rng(seed)
    seven = kind("7")
    state = build_state(hands={0: ["3"], 1: ["7", "9"]}, deck=FILLER)
    act(state, L.battle_index(1, seven), rng)
    for tie in range(1, 6):
        assert state.phase == RPS_ATTACKER and legal(state) == THROWS
        act(state, L.throw_index(ROCK), rng)
        assert state.phase == RPS_DEFENDER
        act(state, L.throw_index(ROCK), rng)
        assert state.battle_ties == tie
        assert state.coin_flips == (1 if tie == 5 else 0)
    assert state.phase == BUILD and not legal(state) & THROWS
    assert state.hands[0][seven] == int(attacker_wins)
    assert state.hands[1][seven] == int(not attacker_wins)
    with pytest.raises(IllegalActionError):
        rules.apply_action(state, L.throw_index(ROCK), rng)


def test_scenario_07_jokers_not_wild_for_demands():
    """Scenario 7: a defender with a Joker and no 7 answers "no" to a 7, "yes" to a Joker."""
    base = build_state(hands={0: ["3"], 1: ["Joker", "9"]}, deck=FILLER)
    state = base.clone()
    act(state, L.battle_index(1, kind("7")))
    assert state.battle_answer == ANSWER_NO and state.phase == BUILD
    assert state.hands[1] == base.hands[1]
    state = base.clone()
    act(state, L.battle_index(1, JOKER))
    assert state.battle_answer == ANSWER_YES and state.phase == RPS_ATTACKER
    assert state.known[1][JOKER] == 1


def test_scenario_08_pillar_with_jokers():
    """Scenario 8: hand {7,7,Joker,Joker,4}: only PILLAR(7, j=2) is legal; afterwards the empire
    is Merchant and only ranks 8-10 remain; a Merchant with one pillar lays an all-joker 9."""
    state = build_state(hands={0: ["7", "7", "Joker", "Joker", "4"]}, phase=BUILD, deck=FILLER)
    assert pillar_set(state) == {L.pillar_index(rank("7"), 2)}
    for r, j in ((rank("7"), 1), (rank("7"), 4), (rank("4"), 3), (rank("7"), 3)):
        assert not rules.is_legal(state, L.pillar_index(r, j))
        with pytest.raises(IllegalActionError):
            rules.apply_action(state.clone(), L.pillar_index(r, j), rng0())
    act(state, L.pillar_index(rank("7"), 2))
    assert state.empire[0] == MERCHANT and state.pillars[0][rank("7")] == 1
    assert state.pillar_jokers[0] == 2
    # Give the Merchant every kind four times: only the other Merchant ranks are offered.
    state.hands[0] = [4] * 14
    state.hand_sizes[0] = 56
    merchant_rest = {rank("8"), rank("9"), rank("10")}
    assert pillar_set(state) == {L.pillar_index(r, j) for r in merchant_rest for j in range(5)}

    state = build_state(hands={0: ["Joker"] * 4}, pillars={0: [rank("7")]}, phase=BUILD,
                        deck=FILLER)
    assert state.empire[0] == MERCHANT
    assert L.pillar_index(rank("9"), 4) in legal(state)
    assert pillar_set(state) == {L.pillar_index(r, 4) for r in merchant_rest}
    act(state, L.pillar_index(rank("9"), 4))
    assert state.pillars[0][rank("9")] == 1 and state.hand_sizes[0] == 0
    # Not a first pillar, so no draw of six; the empty hand ends the turn (ruling 35) and the
    # only card taken from the pile is the next seat's automatic draw.
    assert state.pillar_cards[0][JOKER] == 4 and len(state.deck) == len(FILLER) - 1
    assert state.current == 1 and state.phase == MAIN


def test_scenario_09_first_pillar_draw():
    """Scenario 9: resource pile 30, hand 9 before the first pillar: afterwards hand 11, pile 24
    (the six top cards); a second pillar draws nothing."""
    deck = (FILLER + ["A", "K", "J", "J", "J", "J"])[-30:]
    assert len(deck) == 30
    hand = ["7", "7", "7", "7", "8", "8", "8", "8", "2"]
    state = build_state(hands={0: hand}, phase=BUILD, deck=deck)
    top_six = deck[-6:]
    act(state, L.pillar_index(rank("7"), 0))
    assert state.hand_sizes[0] == 11 and len(state.deck) == 24
    expected = counts(["8", "8", "8", "8", "2"] + top_six)
    assert state.hands[0] == expected
    assert state.known[0] == [0] * 14  # the drawn cards stay hidden
    act(state, L.pillar_index(rank("8"), 0))
    assert state.hand_sizes[0] == 7 and len(state.deck) == 24


def test_scenario_10_second_pillar_bonus():
    """Scenario 10: a Thief laying its second pillar may steal in the same BUILD; once used the
    bonus is masked; next turn the bonus steal is legal again in BUILD after the main action."""
    hands = {0: ["4", "4", "4", "4", "9", "9", "9"], 1: ["8"] * 3, 2: ["8"] * 3, 3: ["8"] * 3}
    state = build_state(hands=hands, piles={1: ["K"], 2: ["Q"]}, pillars={0: [rank("3")]},
                        phase=BUILD, deck=FILLER)
    assert state.empire[0] == THIEF
    assert not legal(state) & STEALS
    act(state, L.pillar_index(rank("4"), 0))
    assert state.pillar_count(0) == 2
    assert legal(state) & STEALS == {L.steal_index(1), L.steal_index(2)}
    assert not legal(state) & (TRADES | BATTLES)  # only the Thief's own bonus kind
    assert block(observe.observe(state, 0), "public")[6] == 1  # bonus available
    act(state, L.steal_index(1))
    assert state.phase == BUILD and state.bonus_used and state.hands[0][kind("K")] == 1
    assert not legal(state) & STEALS
    act(state, L.end_build)
    act(state, L.discard_index(kind("9")))
    for _ in range(3):
        quiet_turn(state)
    assert state.current == 0 and state.phase == MAIN and not state.bonus_used
    assert legal(state) & STEALS  # as the main action
    act(state, L.battle_index(1, JOKER))  # main action: a battle answered "no"
    assert state.phase == BUILD and state.main_done and not state.bonus_used
    assert legal(state) & STEALS == {L.steal_index(o) for o in (1, 2, 3)}
    act(state, L.steal_index(3))
    assert state.bonus_used and not legal(state) & STEALS


def test_scenario_11_trade():
    """Scenario 11: the trader tables a 5; A then B offer; B does not see A's offer and the
    trader sees neither while offers are collected; in TRADE_PICK all offers are public; picking
    B swaps the 5 and B's card, A keeps its card, and the tracker marks A's offered kind."""
    five, a_card, b_card = kind("5"), kind("K"), kind("9")
    hands = {0: ["5", "3"], 1: ["K", "6"], 2: ["9", "6"]}
    state = build_state(3, hands=hands, deck=FILLER)
    k1 = 15  # one-hot width of an offer row (none + 14 kinds)

    def offer_row(obs, offset):
        return block(obs, "trade offers")[offset * k1:(offset + 1) * k1]

    act(state, L.trade_index(five))
    assert state.phase == TRADE_OFFER and rules.acting_player(state) == 1
    assert state.trade_queue == [1, 2]
    assert state.known[0][five] == 1  # the tabled card is public
    assert legal(state) == {L.offer_index(a_card), L.offer_index(kind("6"))}
    act(state, L.offer_index(a_card))
    assert state.phase == TRADE_OFFER and rules.acting_player(state) == 2
    obs_b, obs_t, obs_a = (observe.observe(state, s) for s in (2, 0, 1))
    assert offer_row(obs_b, 2)[0] == 1 and offer_row(obs_b, 2).sum() == 1  # A is offset 2 of B
    assert offer_row(obs_t, 1)[0] == 1 and offer_row(obs_t, 1).sum() == 1  # trader: hidden
    assert offer_row(obs_a, 0)[a_card + 1] == 1  # A sees its own offer
    for obs in (obs_a, obs_b, obs_t):
        assert block(obs, "trade tabled")[five + 1] == 1
    assert state.known[1][a_card] == 0  # not public yet
    act(state, L.offer_index(b_card))
    assert state.phase == TRADE_PICK and rules.acting_player(state) == 0
    assert legal(state) == {L.pick_index(1), L.pick_index(2)}
    for seat in range(3):
        obs = observe.observe(state, seat)
        assert offer_row(obs, (1 - seat) % 3)[a_card + 1] == 1
        assert offer_row(obs, (2 - seat) % 3)[b_card + 1] == 1
    act(state, L.pick_index(2))
    assert state.phase == BUILD and state.main_done
    assert state.hands[0] == counts(["9", "3"])
    assert state.hands[2] == counts(["5", "6"])
    assert state.hands[1] == counts(["K", "6"])  # A takes its offer back
    assert state.known[1][a_card] >= 1
    assert state.known[2][five] >= 1 and state.known[2][b_card] == 0
    assert state.known[0][b_card] >= 1 and state.known[0][five] == 0


def test_scenario_11_trade_skips_empty_hands():
    """Scenario 11 (rulings 17-18): players with empty hands sit out; offers are collected
    clockwise from the trader's left."""
    state = build_state(5, hands={2: ["5"], 3: ["3"], 4: ["K"], 1: ["9"]}, current=2,
                        deck=FILLER)
    act(state, L.trade_index(kind("5")))
    assert state.trade_queue == [3, 4, 1]  # seat 0 (empty hand) is not asked


def test_scenario_12_trade_masked_without_partners():
    """Scenario 12: trade is masked while every other player's hand is empty."""
    state = build_state(hands={0: ["5", "6"]}, deck=FILLER)
    assert not legal(state) & TRADES
    assert not any(rules.is_legal(state, L.trade_index(k)) for k in range(14))
    with pytest.raises(IllegalActionError):
        rules.apply_action(state, L.trade_index(kind("5")), rng0())
    assert legal(state) & BATTLES  # the main action is still possible
    state = build_state(hands={0: ["5", "6"], 2: ["A"]}, deck=FILLER)
    assert legal(state) & TRADES == {L.trade_index(kind("5")), L.trade_index(kind("6"))}


def test_scenario_13_skip():
    """Scenario 13: discarding a 2 in round 2 opens SKIP_TARGET; a seat with a pending skip is
    masked; the skipped seat gets no step and no draw, and its flag is cleared."""
    hands = {0: ["2", "3"], 1: ["4", "4"], 2: ["5", "5"], 3: ["6", "6"]}
    state = build_state(hands=hands, phase=DISCARD, pending_skip=[3], deck=FILLER)
    act(state, L.discard_index(TWO))
    assert state.phase == SKIP_TARGET and rules.acting_player(state) == 0
    assert legal(state) == {L.skip_index(1), L.skip_index(2), L.no_skip}
    assert not rules.is_legal(state, L.skip_index(3))
    deck_before, hand1 = len(state.deck), state.hands[1][:]
    act(state, L.skip_index(1))
    assert not state.pending_skip[1]  # cleared when its turn was skipped
    assert state.current == 2 and rules.acting_player(state) == 2 and state.phase == MAIN
    assert state.turn == 4 + 2  # seat 1's turn counted
    assert state.hands[1] == hand1  # no draw for the skipped seat
    assert len(state.deck) == deck_before - 1  # only seat 2's draw
    quiet_turn(state)  # seat 2; seat 3's pending skip is consumed in turn
    assert state.current == 0 and not state.pending_skip[3]
    assert state.hands[3] == counts(["6", "6"])
    # seat 1 can be skipped again
    assert 1 in rules.skip_targets(state, 0)


def _last_pillar_state(**config_kwargs):
    hands = {0: ["A"] * 4, 1: ["3", "4"], 2: ["5", "6"], 3: ["8", "9"]}
    return build_state(hands=hands, pillars={0: [rank("J"), rank("Q"), rank("K")]},
                       phase=BUILD, deck=FILLER + ["5", "10", "10", "10"], **config_kwargs)


@pytest.mark.parametrize("scheme, loss", [("win_loss", -1.0), ("zero_sum", -1.0 / 3)])
def test_scenario_14_win_needs_the_discard(scheme, loss):
    """Scenario 14: the fourth pillar empties the hand, which ends the turn (ruling 35): no win
    that turn; next turn the player
    draws, acts, discards and wins: +1/-1/-1/-1 (zero_sum: +1/-1/3 each)."""
    state = _last_pillar_state(reward_scheme=scheme)
    assert state.empire[0] == WARLORD
    assert act(state, L.pillar_index(rank("A"), 0)) == [0.0] * 4
    assert state.pillar_count(0) == 4 and state.hand_sizes[0] == 0
    # Ruling 35: the empty hand ends the turn at once, with no discard and so no win.
    assert state.outcome == ONGOING and state.current == 1 and state.piles[0] == []
    for _ in range(3):
        quiet_turn(state)
        assert state.outcome == ONGOING
    assert state.current == 0 and state.phase == MAIN and state.hands[0] == counts(["5"])
    assert act(state, L.battle_index(1, JOKER)) == [0.0] * 4
    assert act(state, L.end_build) == [0.0] * 4
    rewards = act(state, L.discard_index(kind("5")))
    assert rewards == [1.0, loss, loss, loss]
    assert state.outcome == WON and state.winner == 0 and state.phase == OVER
    assert rules.final_rewards(state) == [1.0, loss, loss, loss]
    assert rules.legal_actions(state) == []


def test_scenario_14_winning_two_chooses_no_skip():
    """Scenario 14 with ruling 46: a winning discard of a 2 ends the game at the win check; no
    SKIP_TARGET is opened."""
    state = _last_pillar_state()
    state.hands[0] = counts(["A"] * 4 + ["2"])
    state.hand_sizes[0] = 5
    act(state, L.pillar_index(rank("A"), 0))
    act(state, L.end_build)
    assert state.phase == DISCARD
    assert act(state, L.discard_index(TWO)) == [1.0, -1.0, -1.0, -1.0]
    assert state.phase == OVER and state.winner == 0 and not any(state.pending_skip)


def test_scenario_14_env_terminations():
    """Scenario 14 through the AEC env: the winning discard terminates every agent."""
    env = raw_env(num_players=4)
    env.reset(seed=0)
    state = _last_pillar_state()
    state.pillars[0][rank("A")] = 1
    state.pillar_cards[0][kind("A")] = 4
    state.hands[0] = counts(["5"])
    state.hand_sizes[0] = 1
    state.phase = DISCARD
    env.game_state = state
    env.agent_selection = "player_0"
    env.step(L.discard_index(kind("5")))
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert env.rewards == {"player_0": 1.0, "player_1": -1.0, "player_2": -1.0, "player_3": -1.0}


def test_scenario_15_reshuffle():
    """Scenario 15: a draw from an empty pile with discard piles of 5, 1, 0, 3 cards makes a
    pile of 4 + 0 + 0 + 2 = 6; every pile keeps its top; a 2 on top still blocks stealing."""
    hands = {0: ["7", "8"], 1: ["J"], 2: ["Q"], 3: ["K"]}
    piles = {0: ["3", "4", "5", "6"], 1: ["8"], 3: ["9", "10", "2"]}
    state = build_state(hands=hands, piles=piles, phase=DISCARD, deck=[])
    total = state.card_total()
    act(state, L.discard_index(kind("7")))  # seat 0's pile has 5 cards now; seat 1 draws
    assert state.current == 1 and state.phase == MAIN
    assert [len(p) for p in state.piles] == [1, 1, 0, 1]
    assert state.piles == [[kind("7")], [kind("8")], [], [TWO]]
    assert len(state.deck) == 6 - 1
    drawn = [k for k in range(14) for _ in range(state.hands[1][k] - counts(["J"])[k])]
    assert sorted(state.deck + drawn) == sorted(kinds(["3", "4", "5", "6", "9", "10"]))
    assert state.card_total() == total
    # seat 1: seat 3 (offset 2, top 2) masked, seat 0 (offset 3, top 7) stealable
    assert legal(state) & STEALS == {L.steal_index(3)}


@pytest.mark.parametrize("players, total, jokers, per_rank", [
    (3, 108, 4, 8), (4, 108, 4, 8), (5, 162, 6, 12), (6, 162, 6, 12),
])
def test_scenario_16_deck_sizes(players, total, jokers, per_rank):
    """Scenario 16: five (and six) players use 3 packs: 162 cards, 12 of each rank, 6 Jokers;
    10 dealt to each seat, the rest is the resource pile (then the first automatic draw)."""
    config = PillarsConfig(num_players=players)
    state = rules.new_game(config, np.random.default_rng(3))
    assert config.num_cards == total == state.card_total()
    assert state.kind_totals() == [per_rank] * 13 + [jokers]
    dealt = 10 * players
    assert sum(state.hand_sizes) == dealt + 1
    assert len(state.deck) == total - dealt - 1
    assert sorted(state.hand_sizes) == [10] * (players - 1) + [11]


def test_scenario_17_twos_never_pillar():
    """Scenario 17: no PILLAR index refers to the 2; four 2s (with jokers) never make a pillar."""
    for index in PILLARS:
        action = L.decode(index)
        assert action.kind is Kind.PILLAR and 0 <= action.a < 12
        assert RANK_KINDS.naturals[action.a] != (TWO,)
    state = build_state(hands={0: ["2"] * 4 + ["Joker"] * 3}, phase=BUILD, deck=FILLER)
    assert pillar_set(state) == set()
    state = build_state(hands={0: ["2"] * 4 + ["Joker"] * 4}, phase=BUILD, deck=FILLER)
    assert pillar_set(state) == {L.pillar_index(r, 4) for r in range(12)}  # jokers only
    act(state, L.pillar_index(rank("5"), 4))
    assert state.hands[0][TWO] == 4 and state.pillar_cards[0][TWO] == 0


def test_scenario_18_truncation():
    """Scenario 18: after length_limit rounds without a winner the game is truncated, rewards 0;
    through the env every agent is truncated (and none terminated)."""
    config = PillarsConfig(num_players=4, length_limit=2)
    state = rules.new_game(config, rng0(), first_player=1)
    turns = 0
    while state.phase != OVER:
        assert state.outcome == ONGOING
        quiet_turn(state)
        turns += 1
    assert turns == 8 and state.turn == 8
    assert state.outcome == TRUNCATED and rules.is_truncated(state)
    assert rules.final_rewards(state) == [0.0] * 4
    with pytest.raises(IllegalActionError):
        rules.apply_action(state, L.end_build, rng0())

    env = raw_env(num_players=3, length_limit=1)
    env.reset(seed=5)
    steps = 0
    while not any(env.truncations.values()):
        assert not any(env.terminations.values())
        env.step(env.legal_actions()[0])
        steps += 1
        assert all(r == 0.0 for r in env.rewards.values())
    assert steps == 3  # one discard per seat in round 1
    assert all(env.truncations.values()) and not any(env.terminations.values())


def test_scenario_18_skipped_turns_count():
    """Scenario 18 (ruling 47): skipped turns count toward length_limit."""
    hands = {0: ["2", "3"], 1: ["4", "4"], 2: ["5", "5"], 3: ["6", "6"]}
    state = build_state(hands=hands, phase=DISCARD, deck=FILLER, length_limit=2)
    act(state, L.discard_index(TWO))
    act(state, L.skip_index(1))  # seat 1's turn (the 6th) is skipped
    assert state.current == 2
    quiet_turn(state)
    quiet_turn(state)
    assert state.phase == OVER and state.outcome == TRUNCATED and state.turn == 8


def _offset_indices(offsets) -> set[int]:
    out = set()
    for o in offsets:
        out |= {L.steal_index(o), L.skip_index(o), L.pick_index(o)}
        out |= {L.battle_index(o, k) for k in range(14)}
    return out


def test_scenario_19_masked_seats():
    """Scenario 19: in a 3p game every index with seat offset 3, 4 or 5 is always masked (over
    states of seeded random play, which must visit every phase that names offsets)."""
    config = PillarsConfig(num_players=3, length_limit=30)
    absent = sorted(_offset_indices((3, 4, 5)))
    present = _offset_indices((1, 2))
    seen_phases, seen_present = set(), set()
    for seed in range(3):
        for state in random_states(config, seed, 700):
            mask = rules.legal_mask(state)
            assert not mask[absent].any()
            seen_phases.add(state.phase)
            seen_present |= set(np.flatnonzero(mask)) & present
    assert {MAIN, BUILD, SKIP_TARGET, TRADE_PICK} <= seen_phases
    assert seen_present & {L.steal_index(2), L.skip_index(2), L.pick_index(2)}
    # and explicitly, on states where offsets 1-2 are all legal
    state = build_state(3, hands={0: ["3"], 1: ["4"], 2: ["5"]}, piles={1: ["7"], 2: ["8"]},
                        deck=FILLER)
    assert {L.steal_index(1), L.steal_index(2)} <= legal(state)
    assert not any(rules.is_legal(state, i) for i in absent)
    state = build_state(3, hands={0: ["2", "3"]}, phase=DISCARD, deck=FILLER)
    act(state, L.discard_index(TWO))
    assert legal(state) == {L.skip_index(1), L.skip_index(2), L.no_skip}
    assert not any(rules.is_legal(state, i) for i in absent)


# =========================================================================== flags


def test_flag_first_round_pillars():
    """Ruling 8: with first_round_pillars a round-1 turn opens a BUILD phase with pillars only
    (no steal/trade/battle, no bonus) before the discard; by default only DISCARD."""
    hands = {0: ["7", "7", "7", "7", "8", "8", "8", "8", "3", "4"]}
    for flag in (False, True):
        config = PillarsConfig(num_players=4, first_round_pillars=flag)
        deck = stacked_deck(config, 0, hands, top=["5"] + ["3"] * 6)
        state = rules.new_game(config, rng0(), deck=deck, first_player=0)
        if not flag:
            assert state.phase == DISCARD and not legal(state) & PILLARS
            continue
        assert state.phase == BUILD and state.in_first_round
        assert legal(state) == {L.pillar_index(rank("7"), 0), L.pillar_index(rank("8"), 0),
                                L.end_build}
        act(state, L.pillar_index(rank("7"), 0))
        assert state.hand_sizes[0] == 11 - 4 + 6  # first-pillar draw
        act(state, L.pillar_index(rank("8"), 0))
        assert state.pillar_count(0) == 2 and state.empire[0] == MERCHANT
        assert legal(state) == {L.end_build}  # no bonus trade in round 1
        act(state, L.end_build)
        assert state.phase == DISCARD
        act(state, L.discard_index(kind("3")))
        assert state.current == 1 and state.phase == BUILD


def test_flag_main_action_optional():
    """Ruling 11: END_BUILD in MAIN only with main_action_optional; it skips the main action."""
    for flag in (False, True):
        state = build_state(hands={0: ["3", "4"]}, deck=FILLER, main_action_optional=flag)
        assert (L.end_build in legal(state)) == flag
        assert rules.is_legal(state, L.end_build) == flag
        if not flag:
            with pytest.raises(IllegalActionError):
                rules.apply_action(state, L.end_build, rng0())
            continue
        act(state, L.end_build)
        assert state.phase == BUILD and state.main_done
        assert not legal(state) & (STEALS | TRADES | BATTLES)
        act(state, L.end_build)
        assert state.phase == DISCARD


def _empty_deck_state(mode):
    hands = {0: ["7", "8"], 1: ["J"], 2: ["Q"], 3: ["K"]}
    piles = {0: ["3", "4"], 1: ["5", "6"]}
    return build_state(hands=hands, piles=piles, phase=DISCARD, deck=[], resource_empty=mode)


def test_flag_resource_empty_skip_draw():
    """Ruling 12, "skip_draw": an empty pile is never refilled; the draw is skipped."""
    state = _empty_deck_state("skip_draw")
    act(state, L.discard_index(kind("7")))
    assert state.current == 1 and state.phase == MAIN and state.outcome == ONGOING
    assert state.hands[1] == counts(["J"]) and state.deck == []
    assert state.piles == [kinds(["3", "4", "7"]), kinds(["5", "6"]), [], []]
    # the default reshuffles the same table
    state = _empty_deck_state("reshuffle")
    act(state, L.discard_index(kind("7")))
    assert state.hand_sizes[1] == 2 and len(state.deck) == 2
    assert state.piles == [[kind("7")], [kind("6")], [], []]


def test_flag_resource_empty_skip_draw_first_pillar():
    """Ruling 36 with "skip_draw": the first-pillar draw takes what is left (fewer than 6)."""
    state = build_state(hands={0: ["7"] * 4 + ["3"]}, piles={1: ["5", "6", "8"]}, phase=BUILD,
                        deck=["K", "Q"], resource_empty="skip_draw")
    act(state, L.pillar_index(rank("7"), 0))
    assert state.hands[0] == counts(["3", "K", "Q"]) and state.deck == []
    state = build_state(hands={0: ["7"] * 4 + ["3"]}, piles={1: ["5", "6", "8"]}, phase=BUILD,
                        deck=["K", "Q"])  # reshuffle: 2 more cards come from seat 1's pile
    act(state, L.pillar_index(rank("7"), 0))
    assert state.hand_sizes[0] == 5 and state.piles[1] == [kind("8")] and state.deck == []


def test_flag_resource_empty_end_draw():
    """Ruling 12, "end_draw": a draw from an empty pile truncates the episode, rewards 0."""
    state = _empty_deck_state("end_draw")
    rewards = act(state, L.discard_index(kind("7")))
    assert rewards == [0.0] * 4
    assert state.phase == OVER and state.outcome == TRUNCATED and rules.is_truncated(state)
    assert rules.final_rewards(state) == [0.0] * 4 and rules.legal_actions(state) == []


def test_flag_battle_demand_card():
    """Ruling 21, battle_demand="card": 53 kinds, 504 actions; a battle demands an exact card
    (another suit of the rank answers "no"); pillars still go by rank (mixed suits)."""
    config = PillarsConfig(num_players=4, battle_demand="card")
    assert config.num_kinds == 53 and CARD_LAYOUT.size == 504
    state = rules.new_game(config, np.random.default_rng(1))
    assert state.kind_totals() == [2] * 52 + [4]
    assert rules.legal_mask(state).shape == (504,)
    assert observe.observe(state, 0).shape == (observe.CARD_LAYOUT.size,)
    sevens = state.kinds.naturals[rank("7")]
    assert len(sevens) == 4 and len(set(state.kinds.rank_kind[c] for c in sevens)) == 1
    c = CARD_LAYOUT
    base = build_state(config=config, hands={0: [3], 1: [sevens[0], 52]}, deck=[5] * 10)
    state = base.clone()
    act(state, c.battle_index(1, sevens[1]))  # same rank, other suit
    assert state.battle_answer == ANSWER_NO and state.hands[1] == base.hands[1]
    state = base.clone()
    act(state, c.battle_index(1, sevens[0]))
    assert state.battle_answer == ANSWER_YES and state.phase == RPS_ATTACKER
    # a pillar of four different sevens, and one of two pairs of identical cards
    for hand in (list(sevens), [sevens[0], sevens[0], sevens[2], sevens[2]]):
        state = build_state(config=config, hands={0: hand + [3]}, phase=BUILD, deck=[5] * 10)
        pillars = {i for i in rules.legal_actions(state) if i in c.block_range(Kind.PILLAR)}
        assert pillars == {c.pillar_index(rank("7"), 0)}
        act(state, c.pillar_index(rank("7"), 0))
        assert all(state.hands[0][s] == 0 for s in sevens) and state.empire[0] == MERCHANT


@pytest.mark.parametrize("attacker_wins", [True, False])
def test_flag_rps_mode_random(attacker_wins):
    """Ruling 27, rps_mode="random": a "yes" battle is settled by the env coin at once; no RPS
    phase or THROW is ever offered."""
    stub = CoinStub(0.1 if attacker_wins else 0.9)
    seven = kind("7")
    state = build_state(hands={0: ["3"], 1: ["7", "9"]}, deck=FILLER, rps_mode="random")
    act(state, L.battle_index(1, seven), stub)
    assert stub.calls == 1 and state.coin_flips == 1
    assert state.phase == BUILD and not legal(state) & THROWS
    assert state.hands[0][seven] == int(attacker_wins)
    assert state.hands[1][seven] == int(not attacker_wins)
    config = PillarsConfig(num_players=4, rps_mode="random", length_limit=20)
    for s in random_states(config, 0, 400):
        assert s.phase not in (RPS_ATTACKER, RPS_DEFENDER)


@pytest.mark.parametrize("cap", [1, 3])
def test_flag_rps_max_ties(cap):
    """Ruling 26: the coin comes after exactly rps_max_ties consecutive ties."""
    stub = CoinStub(0.1)
    state = build_state(hands={0: ["3"], 1: ["7", "9"]}, deck=FILLER, rps_max_ties=cap)
    act(state, L.battle_index(1, kind("7")), stub)
    for _ in range(cap):
        assert state.phase == RPS_ATTACKER and stub.calls == 0
        act(state, L.throw_index(PAPER), stub)
        act(state, L.throw_index(PAPER), stub)
    assert stub.calls == 1 and state.phase == BUILD and state.hands[0][kind("7")] == 1


def test_flag_min_natural_per_pillar():
    """Ruling 28: min_natural_per_pillar=2 masks pillars with fewer natural cards."""
    hand = ["7", "7", "8", "Joker", "Joker", "Joker", "Joker"]
    expected = {
        0: {L.pillar_index(rank("7"), 2), L.pillar_index(rank("7"), 3), L.pillar_index(rank("7"), 4),
            L.pillar_index(rank("8"), 3), L.pillar_index(rank("8"), 4)}
        | {L.pillar_index(r, 4) for r in range(12)},
        2: {L.pillar_index(rank("7"), 2)},
    }
    for minimum, wanted in expected.items():
        state = build_state(hands={0: hand}, phase=BUILD, deck=FILLER,
                            min_natural_per_pillar=minimum)
        assert pillar_set(state) == wanted
        assert rules.is_legal(state, L.pillar_index(rank("8"), 3)) == (minimum == 0)


def test_flag_skip_optional():
    """Ruling 43: skip_optional=False removes NO_SKIP while a target exists."""
    for flag in (True, False):
        state = build_state(hands={0: ["2", "3"]}, phase=DISCARD, deck=FILLER, skip_optional=flag)
        act(state, L.discard_index(TWO))
        assert state.phase == SKIP_TARGET
        targets = {L.skip_index(o) for o in (1, 2, 3)}
        assert legal(state) == (targets | {L.no_skip} if flag else targets)
        assert rules.is_legal(state, L.no_skip) == flag
    # with every other seat already pending, there is no sub-decision at all
    state = build_state(hands={0: ["2", "3"], 1: ["4"], 2: ["4"], 3: ["4"]}, phase=DISCARD,
                        deck=FILLER, skip_optional=False, pending_skip=[1, 2, 3])
    act(state, L.discard_index(TWO))
    assert state.phase == MAIN and state.current == 0 and state.turn == 8  # 1, 2, 3 skipped


def test_flag_pillar_shaping():
    """Ruling 1: shaping=c pays c to the seat on each pillar it lays (default 0)."""
    for c in (0.0, 0.1, 0.05):
        kwargs = {} if c == 0.0 else {"shaping": c}
        state = build_state(hands={1: ["7"] * 4 + ["8"] * 4}, current=1, phase=BUILD,
                            deck=FILLER, **kwargs)
        assert act(state, L.pillar_index(rank("7"), 0)) == [0.0, c, 0.0, 0.0]
        assert act(state, L.pillar_index(rank("8"), 0)) == [0.0, c, 0.0, 0.0]
        assert act(state, L.end_build) == [0.0] * 4


@pytest.mark.parametrize("jokers", [0, 1, 3])
def test_flag_jokers_per_pack(jokers):
    """Ruling 1: jokers_per_pack sets the Jokers of each pack (2 packs for 4 players)."""
    config = PillarsConfig(num_players=4, jokers_per_pack=jokers)
    assert config.num_cards == 2 * (52 + jokers)
    state = rules.new_game(config, np.random.default_rng(7))
    assert state.kind_totals() == [8] * 13 + [2 * jokers]
    assert full_deck_counts(config)[JOKER] == 2 * jokers


def test_flag_packs():
    """Ruling 2: packs="auto" is 2 packs for 3-4 players and 3 for 5-6; an int overrides."""
    assert PillarsConfig(num_players=4).num_packs == 2
    assert PillarsConfig(num_players=5).num_packs == 3
    config = PillarsConfig(num_players=4, packs=3)
    state = rules.new_game(config, np.random.default_rng(2))
    assert state.card_total() == 162 and state.kind_totals() == [12] * 13 + [6]
    assert len(state.deck) == 162 - 40 - 1
    config = PillarsConfig(num_players=6, packs=2)
    assert rules.new_game(config, np.random.default_rng(2)).card_total() == 108


def test_flag_allow_2p():
    """Ruling 2: two players only with allow_2p (2 packs); only seat offset 1 exists."""
    with pytest.raises(ValueError, match="allow_2p"):
        PillarsConfig(num_players=2)
    config = PillarsConfig(num_players=2, allow_2p=True)
    assert config.num_packs == 2
    state = rules.new_game(config, np.random.default_rng(4), first_player=1)
    assert state.card_total() == 108 and state.hand_sizes == [10, 11]
    present = _offset_indices((1,))
    absent = sorted(_offset_indices((2, 3, 4, 5)))
    seen = set()
    for s in random_states(PillarsConfig(num_players=2, allow_2p=True, length_limit=40), 1, 500):
        mask = rules.legal_mask(s)
        assert not mask[absent].any()
        seen |= set(np.flatnonzero(mask)) & present
    assert seen


# =========================================================================== validation


@pytest.mark.parametrize("kwargs, error, match", [
    ({"num_players": "4"}, TypeError, "num_players"),
    ({"num_players": 4.0}, TypeError, "num_players"),
    ({"num_players": True}, TypeError, "num_players"),
    ({"num_players": 7}, ValueError, "num_players"),
    ({"num_players": 1}, ValueError, "num_players"),
    ({"num_players": 2}, ValueError, "allow_2p"),
    ({"num_players": 1, "allow_2p": True}, ValueError, "num_players"),
    ({"packs": "three"}, ValueError, "packs"),
    ({"packs": 0}, ValueError, "packs"),
    ({"packs": 2.0}, TypeError, "packs"),
    ({"packs": 1, "num_players": 6}, ValueError, "cannot deal"),
    ({"jokers_per_pack": -1}, ValueError, "jokers_per_pack"),
    ({"jokers_per_pack": "2"}, TypeError, "jokers_per_pack"),
    ({"allow_2p": 1}, TypeError, "allow_2p"),
    ({"first_round_pillars": "yes"}, TypeError, "first_round_pillars"),
    ({"main_action_optional": None}, TypeError, "main_action_optional"),
    ({"skip_optional": 0}, TypeError, "skip_optional"),
    ({"obs_known_cards": 1}, TypeError, "obs_known_cards"),
    ({"resource_empty": "refill"}, ValueError, "resource_empty"),
    ({"battle_demand": "suit"}, ValueError, "battle_demand"),
    ({"rps_max_ties": 0}, ValueError, "rps_max_ties"),
    ({"rps_max_ties": 2.5}, TypeError, "rps_max_ties"),
    ({"rps_mode": "coin"}, ValueError, "rps_mode"),
    ({"min_natural_per_pillar": 5}, ValueError, "min_natural_per_pillar"),
    ({"min_natural_per_pillar": -1}, ValueError, "min_natural_per_pillar"),
    ({"length_limit": 0}, ValueError, "length_limit"),
    ({"length_limit": "200"}, TypeError, "length_limit"),
    ({"reward_scheme": "shaped"}, ValueError, "reward_scheme"),
    ({"shaping": 0.2}, ValueError, "shaping"),
    ({"shaping": -0.01}, ValueError, "shaping"),
    ({"shaping": math.nan}, ValueError, "shaping"),
    ({"shaping": "0.1"}, TypeError, "shaping"),
    ({"shaping": True}, TypeError, "shaping"),
])
def test_config_validation(kwargs, error, match):
    """Bad types give TypeError and bad values ValueError, each naming the option."""
    with pytest.raises(error, match=match):
        PillarsConfig(**kwargs)


def test_config_valid_edges():
    """The documented bounds themselves are accepted; shaping becomes a float."""
    for kwargs in ({"num_players": 3}, {"num_players": 6}, {"shaping": 0.1},
                   {"shaping": 0}, {"min_natural_per_pillar": 4}, {"jokers_per_pack": 0},
                   {"length_limit": 1}, {"rps_max_ties": 1}, {"packs": 8}):
        PillarsConfig(**kwargs)
    assert isinstance(PillarsConfig(shaping=0).shaping, float)
    with pytest.raises(dataclasses.FrozenInstanceError):
        PillarsConfig().num_players = 5  # frozen


def test_new_game_rejects_bad_deck_and_seat():
    """new_game(deck=...) must hold exactly the packs' cards; first_player must be a seat."""
    config = PillarsConfig(num_players=4)
    good = stacked_deck(config, 0, {})
    rules.new_game(config, rng0(), deck=good, first_player=0)
    with pytest.raises(ValueError, match="stacked deck"):
        rules.new_game(config, rng0(), deck=good[:-1], first_player=0)
    with pytest.raises(ValueError, match="reset option 'deck'"):
        rules.new_game(config, rng0(), deck=good[:-1] + [14], first_player=0)
    with pytest.raises(ValueError, match="first_player"):
        rules.new_game(config, rng0(), deck=good, first_player=4)


def test_ruling_35_an_emptied_hand_forfeits_the_unused_bonus():
    """Ruling 35: a Thief whose third pillar takes its last four cards cannot use its unused
    bonus steal to refill the hand; the turn passes at once, with no discard."""
    state = build_state(
        hands={0: ["5", "5", "5", "5"], 1: ["9"], 2: ["9"], 3: ["9"]},
        piles={1: ["J"]}, pillars={0: [rank("3"), rank("4")]}, phase=BUILD, deck=FILLER,
    )
    assert L.steal_index(1) in legal(state), "the bonus steal is open before the pillar"
    act(state, L.pillar_index(rank("5"), 0))
    assert state.pillar_count(0) == 3 and state.hand_sizes[0] == 0
    assert state.current == 1 and state.phase == MAIN
    assert state.piles[0] == [] and state.piles[1] == [kind("J")]
