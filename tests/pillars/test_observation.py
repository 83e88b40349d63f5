"""Pillars observation: index-table spot checks, the no-leak guarantees of section 4 of
``shared/rulings/002-pillars.md``, bounds, and mask/legality/apply properties over states of
seeded random play."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from empire_envs.core.errors import IllegalActionError
from empire_envs.games.pillars import observe, rules
from empire_envs.games.pillars.actions import RANK_LAYOUT, layout_for
from empire_envs.games.pillars.config import PillarsConfig
from empire_envs.games.pillars.state import (
    ANSWER_NO,
    BUILD,
    DISCARD,
    MAIN,
    OVER,
    RPS_ATTACKER,
    RPS_DEFENDER,
    SKIP_TARGET,
    TRADE_OFFER,
    TRADE_PICK,
    Phase,
    PillarsState,
    full_deck_counts,
)

from .helpers import (
    JOKER,
    TWO,
    act,
    block,
    build_state,
    check_invariants,
    counts,
    kind,
    random_states,
    rank,
    seat_block,
)

L = RANK_LAYOUT
FILLER = ["3", "4", "5", "6", "8", "9", "10", "Q"] * 3
K1 = 15  # one-hot width of a kind field with its "none" slot


def obs_all(state) -> list[np.ndarray]:
    return [observe.observe(state, seat) for seat in range(state.n)]


# =========================================================================== index table


def test_layout_matches_the_rulings_table():
    """The ruling's 569 entries come first, in its order (one seat is 65), then the battle's
    per-throw tie counts and the event block: 2096 entries in all."""
    rows = {name: (lo, hi) for name, lo, hi in observe.LAYOUT.rows()}
    assert observe.LAYOUT.size == observe.OBSERVATION_SIZE == 2096
    assert rows["hand"] == (0, 13)
    assert [rows[f"seat {o}"] for o in range(6)] == [(14 + 65 * o, 78 + 65 * o) for o in range(6)]
    assert rows["public"] == (404, 410) and rows["phase"] == (411, 418)
    assert rows["trade trader"] == (419, 424) and rows["trade tabled"] == (425, 439)
    assert rows["trade offers"] == (440, 529)
    assert rows["battle attacker"] == (530, 535) and rows["battle defender"] == (536, 541)
    assert rows["battle demand"] == (542, 556) and rows["battle answer"] == (557, 559)
    assert rows["battle ties"] == (560, 560) and rows["battle tie throws"] == (561, 563)
    assert rows["battle throws"] == (564, 571)
    assert [rows[f"events seat {o}"] for o in range(6)] == [(572 + 254 * o, 825 + 254 * o) for o in range(6)]
    seat = {name: (lo, hi) for name, lo, hi in observe.SEAT_LAYOUT.rows()}
    assert observe.SEAT_LAYOUT.size == 65
    assert seat["empire"] == (4, 7) and seat["pillars"] == (8, 19)
    assert seat["discard top"] == (22, 36) and seat["known"] == (51, 64)
    card = PillarsConfig(battle_demand="card")
    state = rules.new_game(card, np.random.default_rng(0))
    obs = observe.observe(state, 0)
    assert obs.shape == (observe.CARD_LAYOUT.size,) == (observe.observation_size(state.kinds),)
    assert observe.CARD_LAYOUT["hand"].stop == 53
    assert observe.CARD_LAYOUT["trade offers"].stop - observe.CARD_LAYOUT["trade offers"].start == 6 * 54


def _table_state() -> PillarsState:
    """4 seats with distinguishable public facts."""
    hands = {0: ["3"], 1: ["4", "4"], 2: ["5", "5", "5"], 3: ["6", "6", "6", "6", "Joker"]}
    state = build_state(
        hands=hands,
        piles={1: ["9", "7"], 3: ["2", "K", "2"]},
        pillars={2: [rank("3"), rank("4")], 3: [rank("J")]},
        pending_skip=[1],
        known={3: ["6", "Joker"], 1: ["4"]},
        current=2,
        deck=FILLER,
    )
    state.pillar_jokers[2] = 3
    return state


def test_hand_and_seat_blocks_rotate_per_observer():
    """Hand block = my hand; seat block o shows seat (me + o) mod n; absent seats are zero."""
    state = _table_state()
    for me in range(4):
        obs = observe.observe(state, me)
        assert list(block(obs, "hand")) == state.hands[me]
        for o in range(4):
            seat = (me + o) % 4
            assert seat_block(obs, o, "present")[0] == 1
            assert seat_block(obs, o, "current")[0] == (seat == 2)
            assert seat_block(obs, o, "hand size")[0] == state.hand_sizes[seat]
            assert seat_block(obs, o, "pending skip")[0] == (seat == 1)
            empire = seat_block(obs, o, "empire")
            assert empire.sum() == 1 and empire[state.empire[seat]] == 1
            assert list(seat_block(obs, o, "pillars")) == state.pillars[seat]
            assert seat_block(obs, o, "pillar jokers")[0] == state.pillar_jokers[seat]
            assert seat_block(obs, o, "bonus unlocked")[0] == (seat == 2)
            assert list(seat_block(obs, o, "discard counts")) == state.pile_counts[seat]
            known = state.hands[me] if o == 0 else state.known[seat]
            assert list(seat_block(obs, o, "known")) == known
        for o in (4, 5):
            start = observe.LAYOUT.start(f"seat {o}")
            assert not obs[start:start + 65].any()
    obs = observe.observe(state, 1)  # spot values: seat 3 is offset 2 of seat 1
    assert seat_block(obs, 2, "hand size")[0] == 5
    assert seat_block(obs, 2, "known")[JOKER] == 1 and seat_block(obs, 2, "known")[kind("6")] == 1
    assert seat_block(obs, 1, "pillars")[rank("3")] == 1 and seat_block(obs, 1, "empire")[1] == 1


def test_discard_top_one_hot():
    """Discard top: slot 0 for an empty pile, else slot kind + 1 (a 2 on top is slot 1)."""
    state = _table_state()
    obs = observe.observe(state, 0)
    expected_top = {0: 0, 1: kind("7") + 1, 2: 0, 3: TWO + 1}
    for o, slot in expected_top.items():
        top = seat_block(obs, o, "discard top")
        assert top.sum() == 1 and top[slot] == 1, o
    assert seat_block(obs, 3, "discard counts")[TWO] == 2


def test_public_block():
    """Public: pile size, round, turn within round, round-1 flag, main done, bonus used, bonus
    available now."""
    state = _table_state()
    p = block(observe.observe(state, 0), "public")
    assert list(p) == [len(FILLER), 2, 2, 0, 0, 0, 0]
    state.phase, state.main_done = BUILD, True  # seat 2 (Thief, two pillars) in BUILD
    p = block(observe.observe(state, 3), "public")
    assert list(p) == [len(FILLER), 2, 2, 0, 1, 0, 1]
    state.bonus_used = True
    assert list(block(observe.observe(state, 3), "public")[4:]) == [1, 1, 0]
    fresh = rules.new_game(PillarsConfig(), np.random.default_rng(0), first_player=3)
    p = block(observe.observe(fresh, 0), "public")
    assert list(p) == [108 - 41, 1, 0, 1, 0, 0, 0]


@pytest.mark.parametrize("phase", [MAIN, BUILD, DISCARD])
def test_phase_one_hot(phase):
    """Phase: one-hot over the 8 decision phases, all zero once the game is over."""
    state = build_state(hands={0: ["3"]}, phase=phase, deck=FILLER)
    for obs in obs_all(state):
        ph = block(obs, "phase")
        assert ph.sum() == 1 and ph[phase] == 1
    state.phase = OVER
    state.outcome = 1
    for obs in obs_all(state):
        assert not block(obs, "phase").any() and seat_block(obs, 0, "current")[0] == 0


def test_phase_one_hot_interaction_phases():
    """TRADE_OFFER, TRADE_PICK, RPS_ATTACKER, RPS_DEFENDER, SKIP_TARGET light slots 4, 5, 6, 7, 3."""
    seen = {}
    for state in random_states(PillarsConfig(length_limit=40), 11, 1500):
        if state.phase not in seen:
            seen[state.phase] = True
            for obs in obs_all(state):
                ph = block(obs, "phase")
                assert ph.sum() == 1 and ph[state.phase] == 1, Phase(state.phase).label
    assert {TRADE_OFFER, TRADE_PICK, RPS_ATTACKER, RPS_DEFENDER, SKIP_TARGET} <= set(seen)


def test_trade_blocks():
    """Trade: trader as a seat offset of the observer, the tabled kind, offer rows per offset
    (the trader's own row reads none)."""
    state = build_state(hands={0: ["3"], 1: ["5", "6"], 2: ["J"], 3: ["A"]}, current=1,
                        deck=FILLER)
    for obs in obs_all(state):  # no trade yet
        assert not block(obs, "trade trader").any()
        assert block(obs, "trade tabled")[0] == 1 and block(obs, "trade tabled").sum() == 1
        assert not block(obs, "trade offers").any()
    act(state, L.trade_index(kind("5")))
    for me, obs in enumerate(obs_all(state)):
        trader = block(obs, "trade trader")
        assert trader.sum() == 1 and trader[(1 - me) % 4] == 1
        assert block(obs, "trade tabled")[kind("5") + 1] == 1
        rows = block(obs, "trade offers").reshape(6, K1)
        trader_row = rows[(1 - me) % 4]  # the trader never offers: its row reads "none"
        assert trader_row[0] == 1 and trader_row.sum() == 1
        for seat in (2, 3, 0):  # responders: no offer yet
            assert rows[(seat - me) % 4][0] == 1 and rows[(seat - me) % 4].sum() == 1
    for k in ("J", "A", "3"):
        act(state, L.offer_index(kind(k)))
    assert state.phase == TRADE_PICK
    for me, obs in enumerate(obs_all(state)):
        rows = block(obs, "trade offers").reshape(6, K1)
        for seat, k in ((2, "J"), (3, "A"), (0, "3")):
            assert rows[(seat - me) % 4][kind(k) + 1] == 1 and rows[(seat - me) % 4].sum() == 1


def test_battle_blocks():
    """Battle: attacker/defender offsets, demand, answer, tie count, revealed throws; the
    attacker alone sees its pending throw."""
    state = build_state(hands={0: ["3"], 1: ["4"], 2: ["7", "7"]}, current=1, deck=FILLER)
    for obs in obs_all(state):
        assert block(obs, "battle demand")[0] == 1 and block(obs, "battle answer")[0] == 1
        assert not block(obs, "battle throws").any() and not block(obs, "battle attacker").any()
    act(state, L.battle_index(1, kind("7")))  # seat 1 attacks seat 2
    act(state, L.throw_index(1))
    act(state, L.throw_index(1))  # paper / paper: a tie
    act(state, L.throw_index(2))  # attacker's pending scissors
    assert state.phase == RPS_DEFENDER and state.battle_ties == 1
    for me, obs in enumerate(obs_all(state)):
        assert block(obs, "battle attacker")[(1 - me) % 4] == 1
        assert block(obs, "battle defender")[(2 - me) % 4] == 1
        assert block(obs, "battle demand")[kind("7") + 1] == 1
        assert list(block(obs, "battle answer")) == [0, 1, 0]
        assert block(obs, "battle ties")[0] == 1
        throws = block(obs, "battle throws")
        shown_attacker = 3 if me == 1 else 2  # scissors (pending) for the attacker, else paper
        assert list(throws[:4]) == [0] * shown_attacker + [1] + [0] * (3 - shown_attacker)
        assert list(throws[4:]) == [0, 0, 1, 0]


def test_obs_known_cards_flag():
    """obs_known_cards=False zeroes the tracker rows of the other seats (mine is my hand)."""
    kwargs = dict(hands={0: ["3", "3"], 1: ["4"]}, known={1: ["4"]}, deck=FILLER)
    on = observe.observe(build_state(**kwargs), 0)
    off = observe.observe(build_state(obs_known_cards=False, **kwargs), 0)
    assert seat_block(on, 1, "known")[kind("4")] == 1
    assert not seat_block(off, 1, "known").any()
    assert list(seat_block(off, 0, "known")) == counts(["3", "3"])
    diff = np.flatnonzero(on != off)
    start = observe.LAYOUT.start("seat 1") + observe.SEAT_LAYOUT.start("known")
    assert list(diff) == [start + kind("4")]


# =========================================================================== no leaks


def _assert_only_owner_sees(before: list[np.ndarray], after: list[np.ndarray], owner: int) -> None:
    for seat, (a, b) in enumerate(zip(before, after, strict=True)):
        if seat == owner:
            assert not np.array_equal(a, b), f"the owner {seat} must see its own change"
        else:
            assert a.tobytes() == b.tobytes(), f"seat {seat} sees a hidden change of seat {owner}"


def _swap_hidden_card(state: PillarsState, q: int) -> PillarsState | None:
    """A copy in which one card of q's hand that no public fact pins (beyond the known-cards
    tracker, an unrevealed own offer, a tabled card, a standing "no") is exchanged with a card
    of another kind from the resource pile. None when there is no such exchange."""
    hand, known = state.hands[q], state.known[q]
    pinned = [0] * state.kinds.size
    if state.offers[q] >= 0:
        pinned[state.offers[q]] += 1
    if state.trade_trader == q and state.trade_tabled >= 0:
        pinned[state.trade_tabled] += 1
    forbidden = state.battle_kind if state.battle_answer == ANSWER_NO and state.battle_defender == q else -1
    for a in range(state.kinds.size):
        if hand[a] - max(known[a], pinned[a]) < 1:
            continue
        for i, b in enumerate(state.deck):
            if b != a and b != forbidden:
                other = state.clone()
                other.hands[q][a] -= 1
                other.hands[q][b] += 1
                other.deck[i] = a
                return other
    return None


def test_no_leak_other_hand_constructed():
    """Changing another player's hidden cards (same size, tracker still true) leaves every
    other observer's observation bit for bit unchanged; the owner's changes."""
    state = build_state(hands={0: ["3", "4"], 1: ["5", "6", "7"], 2: ["8"], 3: ["9"]},
                        known={1: ["5"]}, deck=FILLER)
    other = state.clone()
    other.hands[1] = counts(["5", "K", "K"])
    _assert_only_owner_sees(obs_all(state), obs_all(other), 1)


@pytest.mark.parametrize("players", [3, 4, 6])
def test_no_leak_other_hand_random_play(players):
    """Property: on states of random play, swapping a hidden card of any seat changes only
    that seat's observation."""
    config = PillarsConfig(num_players=players, length_limit=30)
    checked = 0
    for i, state in enumerate(random_states(config, players, 900)):
        if i % 3:
            continue
        before = obs_all(state)
        for q in range(players):
            other = _swap_hidden_card(state, q)
            if other is None:
                continue
            check_invariants(other)
            _assert_only_owner_sees(before, obs_all(other), q)
            checked += 1
    assert checked > 200


def test_no_leak_pending_trade_offer_constructed():
    """During TRADE_OFFER, the offer of a responder who already offered is seen by that
    responder only (not the trader, not the next responder, not a bystander)."""
    state = build_state(hands={0: ["5"], 1: ["J", "Q"], 2: ["A", "K"], 3: ["3"]}, deck=FILLER)
    act(state, L.trade_index(kind("5")))
    act(state, L.offer_index(kind("J")))
    assert state.phase == TRADE_OFFER and rules.acting_player(state) == 2
    other = state.clone()
    other.offers[1] = kind("Q")
    _assert_only_owner_sees(obs_all(state), obs_all(other), 1)
    # once all offers are in, the offer is public: everyone's view differs
    for s in (state, other):
        act(s, L.offer_index(kind("A")))
        act(s, L.offer_index(kind("3")))
    assert all(not np.array_equal(a, b) for a, b in zip(obs_all(state), obs_all(other), strict=True))


def test_no_leak_pending_trade_offer_random_play():
    """Property: in TRADE_OFFER states of random play, changing any recorded (hidden) offer to
    another card of the responder's hand changes the responder's observation only."""
    checked = 0
    for players, seed in ((4, 21), (5, 22), (6, 23)):
        config = PillarsConfig(num_players=players, length_limit=30)
        for state in random_states(config, seed, 1500):
            if state.phase != TRADE_OFFER:
                continue
            before = obs_all(state)
            for r in range(players):
                offered = state.offers[r]
                if offered < 0:
                    continue
                alt = next((k for k in range(14) if k != offered and state.hands[r][k]), None)
                if alt is None:
                    continue
                other = state.clone()
                other.offers[r] = alt
                _assert_only_owner_sees(before, obs_all(other), r)
                checked += 1
    assert checked >= 20


def test_no_leak_pending_rps_throw():
    """During RPS_DEFENDER the attacker's pending throw is seen by the attacker only (property
    over random play, plus an explicit case)."""
    state = build_state(hands={0: ["3"], 1: ["7"]}, deck=FILLER)
    act(state, L.battle_index(1, kind("7")))
    act(state, L.throw_index(0))
    assert state.phase == RPS_DEFENDER
    other = state.clone()
    other.pending_throw = 2
    _assert_only_owner_sees(obs_all(state), obs_all(other), 0)
    checked = 0
    for state in random_states(PillarsConfig(num_players=4, length_limit=30), 31, 1500):
        if state.phase != RPS_DEFENDER:
            continue
        other = state.clone()
        other.pending_throw = (state.pending_throw + 1) % 3
        _assert_only_owner_sees(obs_all(state), obs_all(other), state.battle_attacker)
        checked += 1
    assert checked >= 20


@pytest.mark.parametrize("players", [3, 4, 6])
def test_resource_pile_order_is_invisible(players):
    """Reordering the resource pile never changes anyone's observation."""
    config = PillarsConfig(num_players=players, length_limit=30)
    shuffler = np.random.default_rng(99)
    checked = 0
    for i, state in enumerate(random_states(config, 40 + players, 600)):
        if i % 5 or len(set(state.deck)) < 2:
            continue
        before = obs_all(state)
        shuffled = state.clone()
        shuffled.deck = [state.deck[j] for j in shuffler.permutation(len(state.deck))]
        ordered = state.clone()  # surely a different order: sorted one way or the other
        ordered.deck = sorted(state.deck, reverse=sorted(state.deck) == state.deck)
        assert ordered.deck != state.deck
        for other in (shuffled, ordered):
            for a, b in zip(before, obs_all(other), strict=True):
                assert a.tobytes() == b.tobytes()
        checked += 1
    assert checked > 50


# =========================================================================== properties


CONFIGS = [
    PillarsConfig(num_players=3, length_limit=25),
    PillarsConfig(num_players=4, length_limit=25, shaping=0.1),
    PillarsConfig(num_players=6, length_limit=25, skip_optional=False),
    PillarsConfig(num_players=4, length_limit=25, rps_mode="random", main_action_optional=True),
    PillarsConfig(num_players=4, length_limit=25, first_round_pillars=True, min_natural_per_pillar=1),
    PillarsConfig(num_players=4, length_limit=25, resource_empty="skip_draw", rps_max_ties=1),
    PillarsConfig(num_players=2, allow_2p=True, length_limit=25),
    PillarsConfig(num_players=4, length_limit=8, battle_demand="card"),
]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.num_players}p-{c.battle_demand}-{c.rps_mode}")
def test_observation_bounds_dtype_and_invariants(config):
    """Every observation is float32, has the layout's size and stays in
    [0, observation_high(config)]; the bookkeeping stays consistent and cards are conserved."""
    high = observe.observation_high(config)
    totals = full_deck_counts(config)
    for i, state in enumerate(random_states(config, 5, 500)):
        if i % 2:
            continue
        check_invariants(state)
        assert state.kind_totals() == totals
        for obs in obs_all(state):
            assert obs.dtype == np.float32
            assert obs.shape == (observe.observation_size(state.kinds),)
            assert obs.min() >= 0.0 and obs.max() <= high


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.num_players}p-{c.battle_demand}-{c.rps_mode}")
def test_the_mask_is_what_apply_accepts(config):
    """legal_mask marks exactly the actions is_legal accepts, and every one of them plays (on a
    copy) without error and keeps the bookkeeping: each phase's apply handles every action its
    legal_actions offers."""
    size = layout_for(PillarsState(config).kinds).size
    phases = set()
    for i, state in enumerate(random_states(config, 6, 400)):
        if i % 2:
            continue
        mask = rules.legal_mask(state)
        assert mask.dtype == np.int8 and mask.shape == (size,)
        by_is_legal = np.array([rules.is_legal(state, a) for a in range(size)], dtype=np.int8)
        np.testing.assert_array_equal(mask, by_is_legal, err_msg=Phase(state.phase).label)
        assert list(np.flatnonzero(mask)) == rules.legal_actions(state)
        for action in rules.legal_actions(state):
            twin = state.clone()
            rules.apply_action(twin, action, np.random.default_rng(i))
            check_invariants(twin)
        phases.add(state.phase)
    assert {MAIN, BUILD, DISCARD} <= phases


def _snapshot(state: PillarsState) -> dict:
    return {name: copy.deepcopy(getattr(state, name)) for name in PillarsState.__slots__
            if name not in ("config", "kinds")}


@pytest.mark.parametrize("config", CONFIGS[:3] + CONFIGS[-1:],
                         ids=lambda c: f"{c.num_players}p-{c.battle_demand}")
def test_illegal_apply_leaves_state_untouched(config):
    """apply raises IllegalActionError for an illegal action and mutates nothing (nor draws
    from the rng)."""
    pick = np.random.default_rng(8)
    size = layout_for(PillarsState(config).kinds).size
    raised = 0
    for i, state in enumerate(random_states(config, 9, 300)):
        if i % 3:
            continue
        mask = rules.legal_mask(state)
        illegal = np.flatnonzero(mask == 0)
        candidates = list(pick.choice(illegal, size=min(4, len(illegal)), replace=False))
        candidates = [int(a) for a in candidates] + [-1, size, size + 7]
        before = _snapshot(state)
        rng = np.random.default_rng(1)
        rng_state = rng.bit_generator.state
        for action in candidates:
            assert not rules.is_legal(state, action)
            with pytest.raises(IllegalActionError):
                rules.apply_action(state, action, rng)
            raised += 1
        assert _snapshot(state) == before
        assert rng.bit_generator.state == rng_state
    assert raised > 100
    # a finished game rejects everything
    state = build_state(hands={0: ["3"]}, deck=FILLER)
    state.phase = OVER
    before = _snapshot(state)
    with pytest.raises(IllegalActionError):
        rules.apply_action(state, L.end_build, np.random.default_rng(0))
    assert _snapshot(state) == before


def test_numpy_integer_actions():
    """A numpy integer index is an action like the same Python int (as the other games'
    rules accept it): is_legal answers, a legal one applies identically, an illegal one raises
    IllegalActionError with the state untouched."""
    state = build_state(hands={0: ["3", "4"], 1: ["7"]}, deck=FILLER)
    legal_index = L.battle_index(1, kind("K"))
    illegal_index = L.discard_index(kind("3"))
    assert rules.is_legal(state, np.int64(legal_index)) is True
    assert rules.is_legal(state, np.int32(illegal_index)) is False
    before = _snapshot(state)
    with pytest.raises(IllegalActionError):
        rules.apply_action(state, np.int64(illegal_index), np.random.default_rng(0))
    assert _snapshot(state) == before
    twin = state.clone()
    rules.apply_action(state, np.int64(legal_index), np.random.default_rng(0))
    rules.apply_action(twin, legal_index, np.random.default_rng(0))
    assert _snapshot(state) == _snapshot(twin)
