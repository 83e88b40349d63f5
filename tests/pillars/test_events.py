"""The event block of the Pillars observation (section 4 of ``docs/rules/pillars.md``, ruling 50:
every announcement is an observable event): each seat's latest turn, its steals, trades and
battles in full once they are finished, seen by every seat from its own seat offset.

The scenarios build the states they need; the properties replay seeded random play and check
that every interaction since a seat's last decision is in that seat's next observation.
"""

from __future__ import annotations

import numpy as np
import pytest

from empire_envs.games.pillars import campaign, observe, rules
from empire_envs.games.pillars.actions import RANK_LAYOUT, layout_for
from empire_envs.games.pillars.config import PillarsConfig
from empire_envs.games.pillars.state import (
    BUILD,
    DISCARD,
    EVENT_BATTLE,
    EVENT_STEAL,
    EVENT_TRADE,
    MAIN,
    OVER,
    RPS_DEFENDER,
    TRADE_OFFER,
    TRADE_PICK,
    TURN_SKIPPED,
    kinds_for,
)

from ..doc_tables import index_span, rest_tables
from .helpers import act, block, build_state, describe_turn, kind, quiet_turn, rank

L = RANK_LAYOUT
ROCK, PAPER, SCISSORS = range(3)
FILLER = ["3", "4", "5", "6", "8", "9", "10", "Q"] * 3
TYPES = {EVENT_STEAL: "steal", EVENT_TRADE: "trade", EVENT_BATTLE: "battle"}


def battle(
    new, partner, demanded, *, answer="yes", ties=0, tie_throws=(0, 0, 0), throws=(None, None), result=None, coin=0
) -> dict:
    return {
        "new": new,
        "type": "battle",
        "partner": partner,
        "kind": kind(demanded),
        "offers": {},
        "answer": answer,
        "ties": ties,
        "tie throws": tie_throws,
        "throws": throws,
        "result": result,
        "coin": coin,
    }


def trade(new, partner, tabled, offers) -> dict:
    return {
        "new": new,
        "type": "trade",
        "partner": partner,
        "kind": kind(tabled),
        "offers": {o: kind(k) for o, k in offers.items()},
        "answer": None,
        "ties": 0,
        "tie throws": (0, 0, 0),
        "throws": (None, None),
        "result": None,
        "coin": 0,
    }


def steal(new, partner, taken) -> dict:
    return {
        "new": new,
        "type": "steal",
        "partner": partner,
        "kind": kind(taken),
        "offers": {},
        "answer": None,
        "ties": 0,
        "tie throws": (0, 0, 0),
        "throws": (None, None),
        "result": None,
        "coin": 0,
    }


def events_of(state, seat: int) -> np.ndarray:
    start = observe.LAYOUT.start("events seat 0")
    return observe.observe(state, seat)[start:]


# --------------------------------------------------------------------------- the scenario


def _merchant_turn_state():
    """Seat 0, a Merchant with pillars of 7 and 8 (so its bonus action is a trade), to act in
    MAIN of round 2; seat 2 holds two Jacks."""
    return build_state(
        hands={0: ["K", "3", "9", "9"], 1: ["4", "5"], 2: ["J", "J", "6"], 3: ["10", "Q"]},
        pillars={0: [rank("7"), rank("8")]},
        deck=FILLER,
    )


def test_a_battle_and_a_trade_reach_every_other_seat():
    """Seat 0 battles seat 2 for a Jack (a rock tie, then paper beats rock) and then trades
    (bonus) its King; seat 3's Queen is taken. Each other seat's next decision shows both, from
    its own seat offsets, although the live trade and battle blocks were cleared at the turn's
    end; the records flag as new exactly what came after the seat's last decision."""
    state = _merchant_turn_state()
    act(state, L.battle_index(2, kind("J")))
    for throw in (ROCK, ROCK, PAPER, ROCK):  # attacker, defender, attacker, defender
        act(state, L.throw_index(throw))
    assert state.phase == BUILD and state.hands[0][kind("J")] == 1
    act(state, L.trade_index(kind("K")))  # the Merchant's bonus trade
    for me in (1, 2, 3):  # each responder decides right after the battle: it is news to all
        assert state.phase == TRADE_OFFER and rules.acting_player(state) == me
        seen = describe_turn(observe.observe(state, me), (0 - me) % 4)
        assert seen["main"] == battle(
            1, (2 - me) % 4, "J", ties=1, tie_throws=(1, 0, 0), throws=(PAPER, ROCK), result="attacker took it"
        )
        assert seen["bonus"] is None  # the open trade is not finished: not in the block yet
        act(state, L.offer_index(kind({1: "4", 2: "6", 3: "Q"}[me])))
    assert state.phase == TRADE_PICK
    act(state, L.pick_index(3))
    act(state, L.end_build)
    act(state, L.discard_index(kind("3")))
    assert state.current == 1 and state.phase == MAIN
    for me in (1, 2, 3):  # play on to each seat's next decision
        while rules.acting_player(state) != me:
            quiet_turn(state)
        obs = observe.observe(state, me)
        assert not block(obs, "trade trader").any() and not block(obs, "battle attacker").any()
        seen = describe_turn(obs, (0 - me) % 4)
        assert seen["status"] == "played" and seen["skip given"] is None
        assert seen["main"] == battle(
            0, (2 - me) % 4, "J", ties=1, tie_throws=(1, 0, 0), throws=(PAPER, ROCK), result="attacker took it"
        )
        offers = {(1 - me) % 4: "4", (2 - me) % 4: "6", (3 - me) % 4: "Q"}
        assert seen["bonus"] == trade(1, (3 - me) % 4, "K", offers)
    # seat 0 has decided since its pick wrote the trade record (END_BUILD, the discard): not news
    assert describe_turn(observe.observe(state, 0), 0)["bonus"]["new"] == 0


def test_the_turn_players_own_slot_and_its_reset():
    """The turn player sees its own finished interactions in slot 0 at once; its record gives
    way when its next turn begins."""
    state = _merchant_turn_state()
    act(state, L.battle_index(1, kind("A")))  # seat 1 holds no Ace: "no"
    assert describe_turn(observe.observe(state, 0), 0)["main"] == battle(1, 1, "A", answer="no")
    assert describe_turn(observe.observe(state, 1), 3)["main"] == battle(1, 0, "A", answer="no")
    act(state, L.end_build)
    act(state, L.discard_index(kind("3")))
    for _ in range(3):
        quiet_turn(state)
    assert state.current == 0 and state.phase == MAIN
    mine = describe_turn(observe.observe(state, 0), 0)
    assert mine == {"status": "played", "skip given": None, "main": None, "bonus": None}


def test_a_steal_keeps_the_battle_on_record():
    """A Thief battles (answered no) and then takes its bonus steal: the live battle block
    still shows the battle, and the event block holds both, the steal as the bonus."""
    state = build_state(
        hands={0: ["K", "9"], 1: ["4"], 2: ["5"], 3: ["6"]},
        piles={2: ["10", "J"]},
        pillars={0: [rank("3"), rank("4")]},
        deck=FILLER,
    )
    act(state, L.battle_index(1, kind("Q")))
    assert L.steal_index(2) in rules.legal_actions(state)
    act(state, L.steal_index(2))
    assert state.bonus_used and state.hands[0][kind("J")] == 1
    for me in range(4):
        obs = observe.observe(state, me)
        assert block(obs, "battle attacker")[(0 - me) % 4] == 1
        assert block(obs, "battle defender")[(1 - me) % 4] == 1
        assert list(block(obs, "battle answer")) == [0, 0, 1]
        seen = describe_turn(obs, (0 - me) % 4)
        assert seen["main"] == battle(0 if me == 0 else 1, (1 - me) % 4, "Q", answer="no")  # seat 0 stole since
        assert seen["bonus"] == steal(1, (2 - me) % 4, "J")


def test_skips_given_and_taken():
    """A skip given is in the giver's slot; a skipped turn shows as skipped, with no record."""
    state = build_state(hands={0: ["2", "9"], 1: ["4", "4"], 2: ["5"], 3: ["6", "6"]}, phase=DISCARD, deck=FILLER)
    act(state, L.discard_index(kind("2")))
    act(state, L.skip_index(2))
    quiet_turn(state)  # seat 1; seat 2 is passed over
    assert state.current == 3 and state.phase == MAIN
    obs = observe.observe(state, 3)
    assert describe_turn(obs, 1)["skip given"] == 3  # seat 0 skipped seat 2, offset 3 from seat 3
    assert describe_turn(obs, 3) == {"status": "skipped", "skip given": None, "main": None, "bonus": None}
    assert state.turn_log[2].status == TURN_SKIPPED


def test_tie_cap_and_random_mode_record_a_coin():
    """A battle settled by the coin after rps_max_ties ties records the ties per throw, no
    deciding throws, and the coin; rps_mode="random" records the coin alone."""
    state = build_state(hands={0: ["3"], 1: ["7"], 2: ["8"], 3: ["9"]}, deck=FILLER, rps_max_ties=2)
    act(state, L.battle_index(1, kind("7")))
    for throw in (SCISSORS, SCISSORS):
        act(state, L.throw_index(throw))
    assert list(block(observe.observe(state, 2), "battle tie throws")) == [0, 0, 1]
    act(state, L.throw_index(PAPER))
    assert state.phase == RPS_DEFENDER
    act(state, L.throw_index(PAPER), rng=np.random.default_rng(first_low_seed()))  # coin < 0.5
    seen = describe_turn(observe.observe(state, 2), 2)["main"]
    assert seen == battle(1, 3, "7", ties=2, tie_throws=(0, 1, 1), result="attacker took it", coin=1)
    state = build_state(hands={0: ["3"], 1: ["7"], 2: ["8"], 3: ["9"]}, deck=FILLER, rps_mode="random")
    act(state, L.battle_index(1, kind("7")), rng=np.random.default_rng(first_low_seed(False)))
    seen = describe_turn(observe.observe(state, 1), 3)["main"]
    assert seen == battle(1, 0, "7", result="defender kept it", coin=1)


def first_low_seed(low: bool = True) -> int:
    """The first seed whose generator's first ``random()`` is below (or not below) 0.5."""
    return next(s for s in range(1000) if (np.random.default_rng(s).random() < 0.5) == low)


# --------------------------------------------------------------------------- no leaks


def test_hidden_offers_stay_out_of_the_block_until_revealed():
    """While offers are sealed the event block is the same whatever they are, for every seat;
    once the pick is made every offer is in everyone's block."""
    state = _merchant_turn_state()
    act(state, L.battle_index(1, kind("A")))  # "no": a finished record before the trade
    act(state, L.trade_index(kind("K")))
    act(state, L.offer_index(kind("4")))
    act(state, L.offer_index(kind("J")))
    assert state.phase == TRADE_OFFER
    other = state.clone()
    other.offers[1], other.offers[2] = kind("5"), kind("6")
    for me in range(4):
        assert events_of(state, me).tobytes() == events_of(other, me).tobytes()
    act(state, L.offer_index(kind("Q")))
    act(state, L.pick_index(2))
    for me in range(4):
        seen = describe_turn(observe.observe(state, me), (0 - me) % 4)["bonus"]
        assert seen["offers"] == {(1 - me) % 4: kind("4"), (2 - me) % 4: kind("J"), (3 - me) % 4: kind("Q")}


def test_a_sealed_throw_stays_out_of_the_block_until_revealed():
    """The attacker's sealed throw is nowhere in the event block (not even the attacker's:
    its own view of it is the live battle block); revealed throws of a tie show in the live
    block's per-throw count and the record once the battle is decided."""
    state = build_state(hands={0: ["3"], 1: ["7", "7"], 2: ["8"], 3: ["9"]}, deck=FILLER)
    act(state, L.battle_index(1, kind("7")))
    act(state, L.throw_index(ROCK))
    assert state.phase == RPS_DEFENDER
    others = []
    for throw in (PAPER, SCISSORS):
        other = state.clone()
        other.pending_throw = throw
        others.append(other)
    for me in range(4):
        assert events_of(state, me).tobytes() == events_of(others[0], me).tobytes()
        assert events_of(state, me).tobytes() == events_of(others[1], me).tobytes()
        tie_count = block(observe.observe(state, me), "battle tie throws")
        assert not tie_count.any()
    act(state, L.throw_index(SCISSORS))  # rock beats scissors: now both throws are public
    for me in range(4):
        seen = describe_turn(observe.observe(state, me), (0 - me) % 4)["main"]
        assert seen["throws"] == (ROCK, SCISSORS) and seen["result"] == "attacker took it"


@pytest.mark.parametrize("players", [4, 6])
def test_hidden_commitments_never_reach_the_block_random_play(players):
    """Property: in every TRADE_OFFER and RPS_DEFENDER state of random play, changing a sealed
    offer or the sealed throw leaves every seat's event block bit for bit the same."""
    checked = 0
    for state in _random_play(PillarsConfig(num_players=players, length_limit=30), players, 3000):
        if state.phase == TRADE_OFFER:
            responder = next((s for s in range(players) if state.offers[s] >= 0), None)
            if responder is None:
                continue
            other = state.clone()
            held = [k for k in range(14) if state.hands[responder][k] and k != state.offers[responder]]
            if not held:
                continue
            other.offers[responder] = held[0]
        elif state.phase == RPS_DEFENDER:
            other = state.clone()
            other.pending_throw = (state.pending_throw + 1) % 3
        else:
            continue
        for me in range(players):
            assert events_of(state, me).tobytes() == events_of(other, me).tobytes()
        checked += 1
    assert checked >= 30


# --------------------------------------------------------------------------- every table size


def _random_play(config, seed: int, steps: int):
    rng = np.random.default_rng(seed)
    state = rules.new_game(config, rng)
    for _ in range(steps):
        if state.phase == OVER:
            state = rules.new_game(config, rng)
        yield state
        actions = rules.legal_actions(state)
        rules.apply_action(state, actions[int(rng.integers(len(actions)))], rng)


def _signature(record, me: int, n: int) -> tuple:
    """What a record looks like from seat ``me``: actor and partner as offsets, type, kind."""
    return ((record.actor - me) % n, TYPES[record.event], (record.partner - me) % n, record.kind)


def _new_in_observation(obs: np.ndarray, n: int, kinds) -> list[tuple]:
    found = []
    for offset in range(n):
        turn = describe_turn(obs, offset, kinds)
        for record in (turn["main"], turn["bonus"]):
            if record is not None and record["new"]:
                found.append((offset, record["type"], record["partner"], record["kind"]))
    return sorted(found)


EVENT_CONFIGS = [
    PillarsConfig(num_players=3, length_limit=60),
    PillarsConfig(num_players=4, length_limit=60),
    PillarsConfig(num_players=5, length_limit=60),
    PillarsConfig(num_players=6, length_limit=60),
    PillarsConfig(num_players=2, allow_2p=True, length_limit=60),
    PillarsConfig(num_players=4, length_limit=60, rps_mode="random", main_action_optional=True),
    PillarsConfig(num_players=4, length_limit=20, battle_demand="card"),
]


@pytest.mark.parametrize("config", EVENT_CONFIGS, ids=lambda c: f"{c.num_players}p-{c.battle_demand}-{c.rps_mode}")
def test_every_event_since_my_last_decision_is_in_my_next_observation(config):
    """Property over seeded random play: at each decision, the records flagged new in the
    acting seat's observation are exactly the interactions finished since that seat's previous
    decision (each with the right actor, type, partner and kind), for every table size and the
    card game. A seat whose own turn was skipped meanwhile is exempt (the documented bound)."""
    n = config.num_players
    rng = np.random.default_rng(n)
    state = rules.new_game(config, rng)
    kinds = state.kinds
    unseen: dict[int, list] = {seat: [] for seat in range(n)}
    skipped = set()
    checked = records = 0
    for _ in range(2500):
        if state.phase == OVER:
            state = rules.new_game(config, rng)
            unseen = {seat: [] for seat in range(n)}
            skipped = set()
        me = rules.acting_player(state)
        if me not in skipped:
            expected = sorted(_signature(r, me, n) for r in unseen[me])
            assert _new_in_observation(observe.observe(state, me), n, kinds) == expected
            checked += 1
            records += len(expected)
        unseen[me] = []
        skipped.discard(me)
        before_serial, before_log = state.event_serial, state.turn_log[:]
        actions = rules.legal_actions(state)
        rules.apply_action(state, actions[int(rng.integers(len(actions)))], rng)
        written = [
            r for turn in state.turn_log for r in (turn.main, turn.bonus) if r is not None and r.serial >= before_serial
        ]
        assert sorted(r.serial for r in written) == list(range(before_serial, state.event_serial))
        for seat in range(n):
            unseen[seat] += written
            if state.turn_log[seat] is not before_log[seat] and state.turn_log[seat].status == TURN_SKIPPED:
                skipped.add(seat)
    assert checked > 1000 and records > 200


def test_event_block_bounds_over_many_ties():
    """Counts in the block (ties per throw) stay within the Box's high even at the tie cap."""
    config = PillarsConfig(rps_max_ties=100)
    state = build_state(config=config, hands={0: ["3"], 1: ["7"], 2: ["8"], 3: ["9"]}, deck=FILLER)
    act(state, L.battle_index(1, kind("7")))
    for _ in range(99):
        act(state, L.throw_index(ROCK))
        act(state, L.throw_index(ROCK))
    act(state, L.throw_index(ROCK))
    act(state, L.throw_index(PAPER))  # paper beats rock: the defender keeps its 7
    obs = observe.observe(state, 2)
    assert obs.max() <= observe.observation_high(config)
    seen = describe_turn(obs, 2)["main"]
    assert seen["ties"] == 99 and seen["tie throws"] == (99, 0, 0) and seen["result"] == "defender kept it"


# --------------------------------------------------------------------------- the campaign


def test_campaign_observation_carries_the_event_block_and_a_new_game_starts_empty():
    """The campaign's observation starts with the game's, event block included; the next game
    of the series starts with no record."""
    config = campaign.CampaignConfig()
    game = build_state(
        config=config,
        hands={0: ["3", "9"], 1: ["4"], 2: ["5"], 3: ["6"]},
        pillars={0: [rank("J"), rank("Q"), rank("K"), rank("A")]},
        deck=FILLER * 5,
    )
    state = campaign.CampaignState(config, game)
    rng = np.random.default_rng(0)
    campaign.apply_action(state, L.battle_index(1, kind("9")), rng)  # "no"
    for me in range(4):
        obs = campaign.observe_campaign(state, me)
        assert obs.shape == (campaign.observation_size(config),) == (observe.OBSERVATION_SIZE + 19,)
        assert np.array_equal(obs[: observe.OBSERVATION_SIZE], observe.observe(state.game, me))
        assert describe_turn(obs, (0 - me) % 4)["main"] == battle(1, (1 - me) % 4, "9", answer="no")
    campaign.apply_action(state, L.end_build, rng)
    campaign.apply_action(state, L.discard_index(kind("3")), rng)  # four pillars and a discard: a win
    assert state.games_played == 1 and state.game.phase != OVER
    for me in range(4):
        obs = campaign.observe_campaign(state, me)
        for offset in range(4):
            turn = describe_turn(obs, offset)
            assert turn["main"] is None and turn["bonus"] is None and turn["skip given"] is None


# --------------------------------------------------------------------------- documentation


def _documented(table) -> list[tuple[str, int, int]]:
    return [(row[1], *index_span(row[0])) for row in table]


def test_observation_docstring_tables_match_the_layouts():
    """The observe module's tables (whole observation, one turn, one record) are the layouts'
    own rows; the seat table covers the seat layout, row for row."""
    whole, seat, turn, record = rest_tables(observe.__doc__)
    assert _documented(whole) == observe.LAYOUT.rows()
    assert [index_span(row[0]) for row in seat] == [(lo, hi) for _, lo, hi in observe.SEAT_LAYOUT.rows()]
    assert _documented(turn) == observe.TURN_LAYOUT.rows()
    assert _documented(record) == observe.RECORD_LAYOUT.rows()
    doc = " ".join(observe.__doc__.split())
    assert f"{observe.OBSERVATION_SIZE} entries" in doc
    assert f"for {observe.CARD_LAYOUT.size} entries" in doc
    assert f"One seat's latest turn ({observe.TURN_LAYOUT.size} entries" in doc
    assert f"One record ({observe.RECORD_LAYOUT.size} entries" in doc


def test_campaign_docstring_table_matches_its_observation():
    (table,) = rest_tables(campaign.__doc__)
    size = observe.OBSERVATION_SIZE
    assert _documented(table) == [
        ("game", 0, size - 1),
        ("empires won", size, size + 17),
        ("games played", size + 18, size + 18),
    ]
    assert campaign.observation_size(campaign.CampaignConfig()) == size + 19


def test_card_game_event_block_layout():
    """With battle_demand="card" every kind field of a record is 53 wide."""
    kinds = kinds_for(PillarsConfig(battle_demand="card"))
    assert observe.record_layout(kinds).size == 25 + 7 * 53
    assert observe.CARD_LAYOUT.size == observe.observation_size(kinds) == 6425
    state = build_state(
        config=PillarsConfig(battle_demand="card"), hands={0: [0], 1: [1], 2: [2], 3: [3]}, deck=[4, 5, 6]
    )
    lay = layout_for(kinds)
    act(state, lay.battle_index(1, 1))  # seat 1 holds card 1 (2 of clubs): "yes"
    assert state.phase != MAIN
    act(state, lay.throw_index(ROCK))
    act(state, lay.throw_index(SCISSORS))
    seen = describe_turn(observe.observe(state, 1), 3, kinds)["main"]
    assert seen["kind"] == 1 and seen["partner"] == 0 and seen["result"] == "attacker took it"
