"""Pillars pictures: ``to_text`` (a spectator's or one seat's view) and ``to_rgb`` (the
spectator's image)."""

from __future__ import annotations

import numpy as np
import pytest

from empire_envs.envs import PillarsEnv as raw_env
from empire_envs.games.pillars import observe, render, rules
from empire_envs.games.pillars.actions import RANK_LAYOUT as LAY
from empire_envs.games.pillars.config import PillarsConfig
from empire_envs.games.pillars.state import (
    BUILD,
    DISCARD,
    EMPIRE_NAMES,
    MAIN,
    OVER,
    ROCK,
    RPS_ATTACKER,
    RPS_DEFENDER,
    SKIP_TARGET,
    TRADE_OFFER,
    TRADE_PICK,
    TRUNCATED,
    WON,
    Phase,
)

from .helpers import act, block, build_state, counts, describe_turn, kind, random_states, stacked_deck

VARIANTS = [
    PillarsConfig(num_players=3),
    PillarsConfig(num_players=4),
    PillarsConfig(num_players=5),
    PillarsConfig(num_players=6),
    PillarsConfig(battle_demand="card"),
    PillarsConfig(num_players=2, allow_2p=True),
]


def _ids(config: PillarsConfig) -> str:
    return f"{config.num_players}p-{config.battle_demand}"


def _hands_state():
    """Seat 0 to act in MAIN; every seat holds a hand no other seat holds."""
    return build_state(
        hands={
            0: ["3", "3", "4", "Joker"],
            1: ["7", "8", "9"],
            2: ["J", "Q", "K", "A", "A"],
            3: ["2", "5", "10"],
        },
        piles={1: ["6"], 2: ["5", "2"]},
        pending_skip=[3],
    )


def _trade_state():
    """Seat 0 has tabled a 4; seat 1 has offered a 7 (sealed), seat 2 is to offer next."""
    state = _hands_state()
    act(state, LAY.trade_index(kind("4")))
    assert state.phase == TRADE_OFFER and state.trade_queue == [1, 2, 3]
    act(state, LAY.offer_index(kind("7")))
    assert rules.acting_player(state) == 2
    return state


def _won_state():
    """Seat 0, a Merchant with 7, 8 and 9 laid, lays the 10s and discards: it wins."""
    state = build_state(
        hands={0: ["10", "10", "10", "10", "3"], 1: ["5"], 2: ["6"], 3: ["J"]},
        pillars={0: [4, 5, 6]},
        phase=BUILD,
    )
    act(state, LAY.pillar_index(7, 0))
    act(state, LAY.end_build)
    act(state, LAY.discard_index(kind("3")))
    assert state.outcome == WON and state.phase == OVER
    return state


def _truncated_state():
    """A one-round game: the four round-1 discards end it."""
    rng = np.random.default_rng(3)
    state = rules.new_game(PillarsConfig(length_limit=1), rng, first_player=0)
    while state.phase != OVER:
        rules.apply_action(state, rules.legal_actions(state)[0], rng)
    assert state.outcome == TRUNCATED
    return state


# --------------------------------------------------------------------------- text


@pytest.mark.parametrize("config", VARIANTS, ids=_ids)
def test_text_names_every_seat_and_the_phase(config):
    state = rules.new_game(config, np.random.default_rng(0))
    for viewer in [None, *range(config.num_players)]:
        text = render.to_text(state, viewer)
        for seat in range(config.num_players):
            assert f"seat {seat}" in text
        assert f"phase {Phase(state.phase).label}" in text
        assert f"resource pile {len(state.deck)}" in text


def test_text_follows_the_phase_and_marks_turn_and_skip():
    state = _hands_state()
    text = render.to_text(state)
    assert "phase main" in text
    lines = text.splitlines()
    assert next(line for line in lines if "seat 0:" in line).startswith(">")
    assert "seat 3 (skip pending)" in text
    act(state, LAY.battle_index(1, kind("Joker")))  # seat 1 has no Joker: "no"
    assert state.phase == BUILD
    text = render.to_text(state)
    assert "phase build" in text
    assert "battle: seat 0 demands Joker from seat 1: answer no" in text


def test_spectator_sees_every_hand():
    text = render.to_text(_hands_state())
    assert "[3x2 4 Joker]" in text
    assert "[7 8 9]" in text
    assert "[J Q K Ax2]" in text
    assert "[2 5 10]" in text


@pytest.mark.parametrize("viewer", range(4))
def test_a_viewer_sees_only_its_own_hand(viewer):
    state = _hands_state()
    hands = ["[3x2 4 Joker]", "[7 8 9]", "[J Q K Ax2]", "[2 5 10]"]
    text = render.to_text(state, viewer)
    for seat, hand in enumerate(hands):
        assert (hand in text) == (seat == viewer), (seat, text)
        if seat != viewer:
            assert f"seat {seat}" in text
            assert f"hand {state.hand_sizes[seat]} cards" in text
    # Public facts stay visible to everyone: discard tops, pile sizes, the pending skip.
    assert "discard top 2 (2 cards)" in text
    assert "seat 3 (skip pending)" in text


def test_a_viewer_sees_the_public_known_cards_of_others():
    state = _hands_state()
    act(state, LAY.battle_index(2, kind("A")))  # seat 2 answers yes: it holds an ace
    text = render.to_text(state, viewer=1)
    assert "hand 5 cards (known: A)" in text
    assert "[J Q K Ax2]" not in text


def test_sealed_offers_show_as_question_marks_until_all_are_in():
    state = _trade_state()
    spectator = render.to_text(state)
    assert "tabled 4" in spectator and "seat 1: 7" in spectator
    assert "seat 2: waiting" in spectator and "seat 3: waiting" in spectator
    assert "seat 1: 7" in render.to_text(state, viewer=1)  # its own offer
    for viewer in (0, 2, 3):  # the trader and the other responders
        text = render.to_text(state, viewer)
        assert "seat 1: ?" in text and "seat 1: 7" not in text
        assert "tabled 4" in text  # the tabled card is public
    act(state, LAY.offer_index(kind("J")))
    text = render.to_text(state, viewer=3)
    assert "seat 1: ?" in text and "seat 2: ?" in text
    assert "seat 2: J" in render.to_text(state, viewer=2)
    act(state, LAY.offer_index(kind("5")))
    assert state.phase == TRADE_PICK
    for viewer in (None, 0, 1, 2, 3):
        text = render.to_text(state, viewer)
        assert "seat 1: 7" in text and "seat 2: J" in text and "seat 3: 5" in text
        assert "?" not in text


def test_the_attackers_throw_is_sealed_from_everyone_else():
    state = _hands_state()
    act(state, LAY.battle_index(2, kind("K")))
    assert state.phase == RPS_ATTACKER
    act(state, LAY.throw_index(ROCK))
    assert state.phase == RPS_DEFENDER
    assert "attacker's throw rock" in render.to_text(state)
    assert "attacker's throw rock" in render.to_text(state, viewer=0)
    for viewer in (1, 2, 3):
        text = render.to_text(state, viewer)
        assert "attacker's throw sealed" in text
        assert "rock/" not in text and "throw rock" not in text


def test_finished_games_say_how_they_ended():
    won = render.to_text(_won_state())
    assert "game over: seat 0 wins with the Merchant empire" in won
    assert "pillars 7,8,9,10 (4/4)" in won
    assert "game over: truncated" in render.to_text(_truncated_state())
    for state in (_won_state(), _truncated_state()):
        for viewer in (None, 1):
            assert "phase over" in render.to_text(state, viewer)


def test_card_game_text_uses_card_labels():
    config = PillarsConfig(battle_demand="card")
    state = rules.new_game(config, np.random.default_rng(5))
    text = render.to_text(state)
    labels = state.kinds.labels
    held = [labels[k] for k in range(state.kinds.size) if state.hands[state.current][k]]
    assert any(label[-1] in "CDHS" for label in held)
    for label in held:
        assert label in text


# --------------------------------------------------------------------------- picture


@pytest.mark.parametrize("config", VARIANTS, ids=_ids)
def test_rgb_has_one_fixed_shape_per_player_count(config):
    expected = (render.image_height(config.num_players), render.WIDTH, 3)
    for seen, state in enumerate(random_states(config, seed=1, steps=400)):
        if seen % 25 == 0 or state.phase in (TRADE_OFFER, TRADE_PICK, RPS_DEFENDER, OVER):
            picture = render.to_rgb(state)
            assert picture.dtype == np.uint8 and picture.shape == expected
            assert picture.flags.writeable and picture.flags.c_contiguous


def test_rgb_height_grows_with_the_seats_and_the_card_game_keeps_it():
    heights = [render.image_height(n) for n in range(2, 7)]
    assert heights == sorted(set(heights))
    rank = render.to_rgb(rules.new_game(PillarsConfig(), np.random.default_rng(0)))
    card_game = PillarsConfig(battle_demand="card")
    card = render.to_rgb(rules.new_game(card_game, np.random.default_rng(0)))
    assert rank.shape == card.shape == (render.image_height(4), render.WIDTH, 3)


def test_rgb_is_deterministic_and_differs_between_states():
    state = _hands_state()
    first = render.to_rgb(state)
    assert np.array_equal(first, render.to_rgb(state.clone()))
    act(state, LAY.steal_index(1))  # seat 0 takes the 6 on top of seat 1's pile
    second = render.to_rgb(state)
    assert first.shape == second.shape
    assert not np.array_equal(first, second)
    other = _trade_state()
    assert not np.array_equal(render.to_rgb(other), first)


def test_rgb_draws_something_in_every_panel():
    picture = render.to_rgb(_hands_state()).astype(int)
    for seat in range(4):
        top = render.HEADER_H + render.BAND_H + seat * (render.PANEL_H + render.PANEL_GAP)
        panel = picture[top + 4:top + render.PANEL_H - 4, 20:render.WIDTH - 20]
        assert len(np.unique(panel.reshape(-1, 3), axis=0)) > 20, seat


@pytest.mark.parametrize("make", [_won_state, _truncated_state], ids=["won", "truncated"])
def test_finished_games_render(make):
    state = make()
    picture = render.to_rgb(state)
    assert picture.shape == (render.image_height(state.n), render.WIDTH, 3)
    assert picture.dtype == np.uint8


def test_rendering_leaves_the_state_alone():
    for state in (_trade_state(), _won_state()):
        before = [observe.observe(state, seat).copy() for seat in range(state.n)]
        hands, deck, phase = [h[:] for h in state.hands], state.deck[:], state.phase
        render.to_rgb(state)
        for viewer in (None, 0, 1, 2, 3):
            render.to_text(state, viewer)
        assert all(np.array_equal(a, observe.observe(state, s)) for s, a in enumerate(before))
        assert (state.hands, state.deck, state.phase) == (hands, deck, phase)


def test_rgb_is_fast_enough():
    import time

    states = [s.clone() for i, s in enumerate(random_states(PillarsConfig(num_players=6), 2, 300))
              if i % 10 == 0]
    render.to_rgb(states[0])  # fonts load on the first call
    start = time.perf_counter()
    for state in states:
        render.to_rgb(state)
    per_frame = (time.perf_counter() - start) / len(states)
    assert per_frame < 0.1, f"{per_frame * 1000:.1f} ms per frame"  # ~5 ms on the dev machine


def test_env_render_modes():
    env = raw_env(render_mode="rgb_array", num_players=5)
    env.reset(seed=3)
    picture = env.render()
    assert picture.shape == (render.image_height(5), render.WIDTH, 3)
    env = raw_env(render_mode="ansi")
    env.reset(seed=3, options={"first_player": 2})
    text = env.render()
    assert "turn of seat 2" in text and "phase discard" in text
    assert all(f"seat {s}" in text for s in range(4))


def test_round_one_and_main_phase_bands():
    state = rules.new_game(PillarsConfig(), np.random.default_rng(0), first_player=0)
    assert state.phase == DISCARD
    assert "round 1: no steal, trade or battle" in render.to_text(state)
    state = _hands_state()
    assert state.phase == MAIN
    assert "main action to take" in render.to_text(state)


def test_worked_turn_of_the_rules_page():
    """docs/rules/pillars.md, section 8, step by step."""
    config = PillarsConfig()
    hands = {
        0: ["9", "9", "Joker", "2", "3", "5", "8", "J", "K", "A"],
        1: ["4", "4", "6", "7", "10", "Q", "K", "A", "3", "5"],
        2: ["9", "7", "7", "8", "10", "J", "Q", "2", "6", "4"],
        3: ["3", "3", "5", "6", "8", "10", "J", "Q", "K", "A"],
    }
    # round-1 draws, seat 0's round-2 draw, its first-pillar draw of six, seat 1's draw
    top = ["7", "10", "J", "K", "8", "10", "J", "6", "Q", "9", "4", "3"]
    rng = np.random.default_rng(0)
    state = rules.new_game(config, rng, deck=stacked_deck(config, 0, hands, top), first_player=0)
    for label in ("7", "4", "2", "3"):  # round 1: each seat discards
        act(state, LAY.discard_index(kind(label)), rng)
    assert state.piles == [[kind("7")], [kind("4")], [kind("2")], [kind("3")]]
    assert state.current == 0 and state.phase == MAIN and len(state.deck) == 63
    assert state.hands[0] == counts(["2", "3", "5", "8", "8", "9", "9", "J", "K", "A", "Joker"])
    nine = kind("9")
    assert LAY.battle_index(2, nine) == 40
    act(state, 40, rng)
    assert state.phase == RPS_ATTACKER and state.known[2][nine] == 1
    act(state, 189, rng)  # rock, sealed
    assert state.phase == RPS_DEFENDER
    text_1, text_0 = render.to_text(state, 1), render.to_text(state, 0)
    assert "attacker's throw sealed" in text_1 and "attacker's throw rock" in text_0
    obs = observe.observe(state, 1)
    assert block(obs, "battle attacker")[3] == 1 and block(obs, "battle defender")[1] == 1
    assert block(obs, "battle demand")[nine + 1] == 1 and block(obs, "battle answer")[1] == 1
    assert block(obs, "battle ties")[0] == 0
    assert block(obs, "battle throws")[0] == 1 and block(obs, "battle throws")[4] == 1
    act(state, 189, rng)  # player_2: rock, a tie
    assert state.phase == RPS_ATTACKER and state.battle_ties == 1
    act(state, 189, rng)
    act(state, 191, rng)  # player_2: scissors
    assert state.phase == BUILD and state.main_done
    assert state.known[2][nine] == 0 and state.known[0][nine] == 1 and state.hand_sizes[0] == 12
    assert LAY.pillar_index(6, 1) == 120
    act(state, 120, rng)
    assert EMPIRE_NAMES[state.empire[0]] == "Merchant"
    assert state.hand_sizes[0] == 14 and len(state.deck) == 57 and state.known[0][nine] == 0
    act(state, 149, rng)
    assert state.phase == DISCARD
    act(state, 150, rng)  # the 2
    assert state.phase == SKIP_TARGET and state.outcome != WON
    assert set(rules.legal_actions(state)) == {164, 165, 166, 169}
    act(state, 166, rng)
    assert state.pending_skip[3] and state.current == 1 and state.phase == MAIN
    assert state.battle_attacker == -1 and state.hand_sizes[1] == 11
    # player_1's next decision still has the whole battle: seat 0's slot is offset 3
    seen = describe_turn(observe.observe(state, 1), 3)
    assert seen["skip given"] == 2 and seen["bonus"] is None
    assert seen["main"] == {
        "new": 1, "type": "battle", "partner": 1, "kind": nine, "offers": {}, "answer": "yes", "ties": 1,
        "tie throws": (1, 0, 0), "throws": (0, 2), "result": "attacker took it", "coin": 0,
    }
