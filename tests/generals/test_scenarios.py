"""Rule scenarios of Empires and Generals: section 7 of the rulings (scenarios 1-20), the
fourteen battle outcomes (W1-W7 on the Warcamp, B1-B7 on the Battlefield, section 5.5), and the
rule flags. Every state is built by hand (``helpers.blank_state`` and friends); no test depends
on a shuffle. Seat 0 acts first unless said; with two players seat offset 1 is the other seat.
"""

from __future__ import annotations

import numpy as np
import pytest

from empire_envs.games.generals import observe, rules
from empire_envs.games.generals.actions import Kind
from empire_envs.games.generals.config import GeneralsConfig
from empire_envs.games.generals.rules import (
    ATTACKER_KILLS,
    ATTACKER_OUT,
    BLOCKER_OUT,
    COUNTER_ATTACK,
    DOUBLE_BLOCK,
    DOUBLE_DEATH,
    NO_BLOCKER,
)
from empire_envs.games.generals.state import (
    ARMY,
    ATTACK,
    BF,
    DECLARE,
    DRAW,
    KINGDOM,
    OVER,
    REPLACE_GENERAL,
    TACTIC,
    WC,
)
from empire_envs.games.generals.state import (
    BLOCK as BLOCK_PHASE,
)
from empire_envs.games.generals.state import (
    DISCARD_HAND as DISCARD_HAND_PHASE,
)
from empire_envs.games.generals.state import (
    TARGET_KIND as TARGET_KIND_PHASE,
)
from empire_envs.games.generals.state import (
    TARGET_PLAYER as TARGET_PLAYER_PHASE,
)

from .helpers import (
    ATTACK_AT,
    BLOCK,
    DISCARD_HAND,
    DISCARD_UNIT,
    DRAW_PLAYING,
    DRAW_SUPPLY,
    END_PHASE,
    MOVE,
    NO_BLOCK,
    NO_TACTIC,
    PASS,
    PLAY,
    PLAY_TO_BF,
    PLAY_TURN,
    TARGET_KIND,
    TARGET_PLAYER,
    act,
    blank_state,
    chs,
    cost,
    discards,
    give_fresh,
    give_hand,
    give_ready,
    hand_of,
    kill_tests_for,
    kind,
    kingdom_phase_card_costing,
    lay,
    legal,
    mask,
    put_unit,
    set_capitol,
    set_kingdom,
    set_pile,
    set_strategy,
    start_attack,
    units_of,
)
from .test_cards import default_pool_data, write


def attack_mask(state) -> np.ndarray:
    """The ATTACK(u, o, z) part of the legal mask."""
    attacks = lay(state).block_range(Kind.ATTACK)
    return mask(state)[attacks.start : attacks.stop]


def mongol_raider_vs_rome(**config_kw):
    """Mongols (seat 0): Horse Archer (3/2 raider) in the BF slot 0, Noyan in the WC slot 1.
    Rome (seat 1): nothing yet."""
    s = blank_state(("mongols", "rome"), **config_kw)
    put_unit(s, 0, 0, "mon_horse_archer", BF)
    put_unit(s, 0, 1, "mon_noyan", WC)
    return s


def mongol_lancer_vs_rome(**config_kw):
    """Mongols (seat 0): Steppe Lancer (4/3, +1 attacking) in the BF slot 0, Noyan in the WC."""
    s = blank_state(("mongols", "rome"), **config_kw)
    put_unit(s, 0, 0, "mon_lancer", BF)
    put_unit(s, 0, 1, "mon_noyan", WC)
    return s


def rome_legionary_vs_mongols(**config_kw):
    """Rome (seat 0): Legionary (3/3) in the BF slot 0, Centurion Commander in the WC slot 1
    (its aura works only from the BF)."""
    s = blank_state(("rome", "mongols"), **config_kw)
    put_unit(s, 0, 0, "rom_legionary", BF)
    put_unit(s, 0, 1, "rom_centurion", WC)
    return s


def assert_turn_passed_to(s, seat: int) -> None:
    """The battle is over, the attacker's turn ended and ``seat`` is at its DECLARE."""
    assert s.battle is None
    assert s.phase == DECLARE and s.current == seat


# ============================================================================ section 7


def test_scenario_01_pass_rules():
    # PASS is legal on the very first turn of a game
    fresh = rules.new_game(GeneralsConfig(), np.random.default_rng(0), decks=["rome", "mongols"],
                           first_player=1, shuffle=False)
    assert fresh.current == 1 and fresh.phase == DECLARE and legal(fresh) == [PLAY_TURN, PASS]
    s = blank_state(("egypt", "mongols"), phase=DECLARE)
    set_pile(s, 0, "playing", ["egy_archer", "egy_medjay", "egy_chariot"])
    set_pile(s, 0, "supply", ["grain", "timber"])
    give_hand(s, 0, *["egy_archer"] * 3, *["egy_medjay"] * 3, "egy_chariot", "egy_chariot",
              "egy_sandstorm")  # 9 cards: over the hand limit
    set_kingdom(s, 0, "egy_pyramid")  # ch_per_turn 1
    set_capitol(s, 0, "market")  # harvest 1
    give_ready(s, 0, "grain")
    set_pile(s, 1, "playing", ["mon_scout"] * 3)
    assert legal(s) == sorted([PLAY_TURN, PASS])
    p0 = s.players[0]
    before = (p0.hand[:], p0.playing_deck[:], p0.supply_pile[:], p0.supply_ready[:],
              p0.discard[:], p0.kingdom[:], p0.ch, p0.budget)
    rewards = act(s, PASS)
    assert rewards == [0.0, 0.0]
    # the pass skipped everything: no draw, no Harvest, no CH per turn, no hand limit
    assert (p0.hand, p0.playing_deck, p0.supply_pile, p0.supply_ready, p0.discard, p0.kingdom,
            p0.ch, p0.budget) == before
    assert sum(p0.hand) == 9
    assert p0.passed_last is True
    assert s.current == 1 and s.phase == DECLARE
    # the same player's next DECLARE masks PASS
    probe = s.clone()
    probe.current = 0
    assert legal(probe) == sorted([PLAY_TURN])
    assert mask(probe)[PASS] == 0 and mask(probe)[PLAY_TURN] == 1
    # seat 1 plays a turn (everything after PLAY_TURN is automatic for it); seat 0's DECLARE
    # then had the one legal action PLAY_TURN, auto-resolved: seat 0 is at its draw
    act(s, PLAY_TURN)
    assert s.current == 0 and s.phase == DRAW
    assert legal(s) == sorted([DRAW_PLAYING, DRAW_SUPPLY])
    assert p0.passed_last is False
    assert p0.turns_taken == 2  # the passed turn counted as one of seat 0's turns


def test_scenario_02_fresh_and_continuous():
    s = blank_state(("rome", "mongols"), phase=DECLARE)
    one, two = kingdom_phase_card_costing(s, 1), kingdom_phase_card_costing(s, 2)
    give_hand(s, 0, "grain", "caravan", one, two)
    act(s, PLAY_TURN)  # both piles empty: no draw; automatic Harvest; Kingdom phase
    assert s.phase == KINGDOM and s.current == 0
    p0 = s.players[0]
    assert p0.supply_ready[kind(s, "caravan")] == 1 and p0.supply_ready[kind(s, "grain")] == 0
    assert p0.supply_fresh[kind(s, "grain")] == 1 and p0.supply_fresh[kind(s, "caravan")] == 0
    assert hand_of(s, 0) == {one: 1, two: 1}
    assert p0.budget == 0
    assert legal(s) == sorted([PLAY(s, one), END_PHASE])
    assert mask(s)[PLAY(s, two)] == 0
    act(s, END_PHASE)  # nothing else to do: the turn ends, seat 1 declares
    assert s.current == 1 and s.phase == DECLARE
    assert p0.supply_ready[kind(s, "grain")] == 1 and p0.supply_ready[kind(s, "caravan")] == 1
    assert sum(p0.supply_fresh) == 0
    act(s, PASS)
    act(s, PLAY_TURN)
    assert s.current == 0 and s.phase == KINGDOM
    assert legal(s) == sorted([PLAY(s, one), PLAY(s, two), END_PHASE])
    act(s, PLAY(s, two))  # cost 2: both resources spent
    assert sum(p0.supply_ready) == 0
    assert discards(s, 0) == {"grain": 1, "caravan": 1}
    assert hand_of(s, 0) == {one: 1}


def test_scenario_03_auto_pay():
    s = blank_state(("rome", "mongols"))
    give_ready(s, 0, "grain", "iron", "gold")
    grain, iron, gold = kind(s, "grain"), kind(s, "iron"), kind(s, "gold")
    assert sorted(rules.payment_choice(s, 0, 2)) == [iron]
    assert sorted(rules.payment_choice(s, 0, 4)) == sorted([grain, gold])
    assert sorted(rules.payment_choice(s, 0, 5)) == sorted([iron, gold])
    assert sorted(rules.payment_choice(s, 0, 6)) == sorted([grain, iron, gold])
    # paying 4 for real spends Grain and Gold, the Iron stays ready
    one, two, four = (kingdom_phase_card_costing(s, c) for c in (1, 2, 4))
    give_hand(s, 0, four, two, one)  # the cost-1 card keeps the phase open
    act(s, PLAY(s, four))
    p0 = s.players[0]
    assert discards(s, 0) == {"grain": 1, "gold": 1}
    assert p0.supply_ready[iron] == 1 and sum(p0.supply_ready) == 1
    assert p0.budget == 0
    # change: a Gold (3) paying 2 leaves 1 in the budget until END
    p0.supply_ready[iron] = 0
    p0.removed[iron] += 1
    give_ready(s, 0, "gold")
    act(s, PLAY(s, two))
    assert s.phase == KINGDOM
    assert p0.budget == 1 and sum(p0.supply_ready) == 0
    assert discards(s, 0) == {"grain": 1, "gold": 2}
    assert legal(s) == sorted([PLAY(s, one), END_PHASE])  # payable from the change
    act(s, END_PHASE)  # Army and Attack phases have nothing: the turn ends
    assert s.current == 1 and s.phase == DECLARE
    assert p0.budget == 0


def test_scenario_04_pull():
    s = blank_state(("rome", "mongols"), phase=ARMY)
    p0 = s.players[0]
    p0.budget = 100
    give_hand(s, 0, "rom_legionary", "rom_velites")
    put_unit(s, 0, 5, "rom_velites", BF)
    assert legal(s) == sorted([
        PLAY(s, "rom_legionary"), PLAY(s, "rom_velites"), PLAY_TO_BF(s, "rom_velites"),
        DISCARD_UNIT(s, 5), END_PHASE,
    ])
    assert mask(s)[PLAY_TO_BF(s, "rom_legionary")] == 0
    after_roads = s.clone()
    act(s, PLAY(s, "rom_legionary"))
    assert units_of(s, 0)[0] == ("rom_legionary", WC)
    act(s, END_PHASE)
    assert s.phase == ATTACK
    assert legal(s) == sorted([MOVE(s, 5), END_PHASE])  # MOVE(0): the Legionary is pulled
    next_turn = s.clone()
    # A: the next turn (the opponent passed in between): MOVE(0) is legal
    act(s, END_PHASE)
    act(s, PASS)  # seat 1
    assert s.current == 0 and s.phase == DECLARE
    act(s, PLAY_TURN)  # no draw (empty piles), nothing for the Kingdom phase
    assert s.phase == ARMY
    act(s, END_PHASE)
    assert s.phase == ATTACK and MOVE(s, 0) in legal(s)
    # B: Rome passes its next turn; on the turn after, MOVE(0) is legal
    s = next_turn
    act(s, END_PHASE)
    act(s, PLAY_TURN)  # seat 1 plays an empty turn
    assert s.current == 0 and s.phase == DECLARE
    act(s, PASS)
    assert s.players[0].turns_taken == 2
    act(s, PASS)  # seat 1 passes too: seat 0 may not pass twice, its turn 3 begins at once
    assert s.current == 0 and s.players[0].turns_taken == 3
    assert s.phase == ARMY
    act(s, END_PHASE)
    assert s.phase == ATTACK and MOVE(s, 0) in legal(s)
    # Military Roads grants no_pull: PLAY_TO_BF(Legionary) is legal
    s = after_roads
    set_strategy(s, 0, "rom_roads")
    assert PLAY_TO_BF(s, "rom_legionary") in legal(s)
    act(s, PLAY_TO_BF(s, "rom_legionary"))
    assert units_of(s, 0)[0] == ("rom_legionary", BF)


def test_no_pull_soldier_played_to_the_warcamp_may_move_at_once():
    s = blank_state(("rome", "mongols"), phase=ARMY)
    give_hand(s, 0, "rom_velites", "rom_legionary")
    s.players[0].budget = 100
    act(s, PLAY(s, "rom_velites"))
    act(s, PLAY(s, "rom_legionary"))  # then the Army phase has nothing but END and discards
    act(s, END_PHASE)
    assert s.phase == ATTACK
    assert units_of(s, 0) == {0: ("rom_velites", WC), 1: ("rom_legionary", WC)}
    assert legal(s) == sorted([MOVE(s, 0), END_PHASE])


def test_scenario_05_general_needed():
    s = blank_state(("rome", "mongols"), phase=ATTACK)
    put_unit(s, 0, 0, "rom_velites", BF)
    assert legal(s) == sorted([MOVE(s, 0), END_PHASE])
    assert attack_mask(s).sum() == 0
    s = blank_state(("rome", "mongols"), phase=ARMY)
    put_unit(s, 0, 0, "rom_velites", BF)
    give_hand(s, 0, "rom_centurion")
    s.players[0].budget = cost(s, "rom_centurion")
    assert PLAY_TO_BF(s, "rom_centurion") in legal(s)
    act(s, PLAY_TO_BF(s, "rom_centurion"))
    assert units_of(s, 0) == {0: ("rom_velites", BF), 1: ("rom_centurion", BF)}
    act(s, END_PHASE)
    assert s.phase == ATTACK
    assert legal(s) == sorted([
        MOVE(s, 0), MOVE(s, 1), ATTACK_AT(s, 0, 1, BF), ATTACK_AT(s, 1, 1, BF), END_PHASE,
    ])
    assert attack_mask(s).sum() == 2


def test_scenario_06_general_cap():
    s = blank_state(("rome", "mongols"), phase=ARMY)
    put_unit(s, 0, 0, "rom_centurion", WC)
    give_hand(s, 0, "rom_imperator", "rom_velites")  # the Velites keep the Army phase open
    s.players[0].budget = cost(s, "rom_imperator") + cost(s, "rom_velites")
    act(s, PLAY(s, "rom_imperator"))
    assert s.phase == ARMY and s.current == 0  # no REPLACE_GENERAL sub-decision
    assert discards(s, 0) == {"rom_centurion": 1}
    assert units_of(s, 0) == {0: ("rom_imperator", WC)}
    assert rules.generals_in_play(s, 0) == [0]
    # a General is never discarded in the Army phase (ruling 38: Soldiers only)
    assert legal(s) == sorted([PLAY(s, "rom_velites"), PLAY_TO_BF(s, "rom_velites"), END_PHASE])


def test_scenario_07_W1():
    s = mongol_raider_vs_rome()
    put_unit(s, 1, 0, "rom_legionary", BF)  # a BF unit cannot block a Warcamp attack
    assert ATTACK_AT(s, 0, 1, WC) in legal(_attack_probe(s))
    start_attack(s, 0, 0, 1, WC)  # no WC unit: NO_BLOCK is automatic, no tactics
    assert s.last_battle == (0, 1, ((WC, NO_BLOCKER),))
    assert chs(s) == [0, -1]
    assert units_of(s, 0) == {0: ("mon_horse_archer", BF), 1: ("mon_noyan", WC)}
    assert units_of(s, 1) == {0: ("rom_legionary", BF)}
    assert_turn_passed_to(s, 1)


def _attack_probe(s):
    probe = s.clone()
    probe.phase = ATTACK
    return probe


def test_scenario_08_B1_then_W3():
    s = rome_legionary_vs_mongols()
    put_unit(s, 1, 0, "mon_scout", WC)
    start_attack(s, 0, 0, 1, BF)  # the Mongol BF is empty: NO_BLOCK automatic, redirect
    assert s.phase == BLOCK_PHASE and s.acting_player() == 1
    assert s.battle.zone == WC and s.battle.outcomes == [(BF, NO_BLOCKER)]
    assert legal(s) == sorted([NO_BLOCK, BLOCK(s, 0)])
    assert rules.unit_strength(s, 0, 0, attacking=True) == 3
    assert rules.unit_life(s, 1, 0, blocking=True) == 1
    act(s, BLOCK(s, 0))
    assert s.last_battle == (0, 1, ((BF, NO_BLOCKER), (WC, ATTACKER_KILLS)))
    assert discards(s, 1) == {"mon_scout": 1}
    assert units_of(s, 1) == {}
    assert units_of(s, 0) == {0: ("rom_legionary", BF), 1: ("rom_centurion", WC)}
    assert chs(s) == [0, -1]
    assert_turn_passed_to(s, 1)


def test_scenario_09_B4():
    s = mongol_lancer_vs_rome()
    put_unit(s, 1, 0, "rom_legionary", BF)
    assert rules.unit_strength(s, 0, 0, attacking=True) == 5
    assert rules.unit_life(s, 0, 0) == 3
    assert rules.unit_life(s, 1, 0, blocking=True) == 3  # no Warcamp bonus in the BF
    assert kill_tests_for(s, 0, 0, 1, 0, BF) == (True, True)
    start_attack(s, 0, 0, 1, BF)
    assert legal(s) == sorted([NO_BLOCK, BLOCK(s, 0)])
    act(s, BLOCK(s, 0))
    assert s.last_battle == (0, 1, ((BF, DOUBLE_DEATH),))
    assert discards(s, 0) == {"mon_lancer": 1} and discards(s, 1) == {"rom_legionary": 1}
    assert units_of(s, 0) == {1: ("mon_noyan", WC)} and units_of(s, 1) == {}
    assert chs(s) == [0, 0]


@pytest.mark.parametrize("ties, outcome", [(True, COUNTER_ATTACK), (False, DOUBLE_BLOCK)])
def test_scenario_10_B5_and_the_tie_rule(ties, outcome):
    s = blank_state(("rome", "rome"), defender_wins_ties=ties)
    put_unit(s, 0, 0, "rom_legionary", BF)
    put_unit(s, 0, 1, "rom_centurion", WC)
    put_unit(s, 1, 0, "rom_legionary", BF)
    assert kill_tests_for(s, 0, 0, 1, 0, BF) == (False, ties)
    start_attack(s, 0, 0, 1, BF)
    act(s, BLOCK(s, 0))
    assert s.last_battle == (0, 1, ((BF, outcome),))
    assert units_of(s, 1) == {0: ("rom_legionary", BF)}
    if ties:
        assert discards(s, 0) == {"rom_legionary": 1}
        assert units_of(s, 0) == {1: ("rom_centurion", WC)}
    else:
        assert discards(s, 0) == {}
        assert units_of(s, 0) == {0: ("rom_legionary", BF), 1: ("rom_centurion", WC)}
    assert chs(s) == [0, 0]


def test_scenario_11_B7():
    s = blank_state(("rome", "franks"))
    put_unit(s, 0, 0, "rom_imperator", BF)
    put_unit(s, 1, 0, "fra_high_king", BF)
    assert rules.unit_strength(s, 0, 0, attacking=True) == 5
    assert rules.unit_life(s, 1, 0, blocking=True) == 6
    assert kill_tests_for(s, 0, 0, 1, 0, BF) == (False, False)
    start_attack(s, 0, 0, 1, BF)
    act(s, BLOCK(s, 0))
    assert s.last_battle == (0, 1, ((BF, DOUBLE_BLOCK),))
    assert units_of(s, 0) == {0: ("rom_imperator", BF)}
    assert units_of(s, 1) == {0: ("fra_high_king", BF)}
    assert discards(s, 0) == {} and discards(s, 1) == {}
    assert chs(s) == [0, 0]


def test_scenario_12_B2_redirect_by_withdrawal():
    s = mongol_lancer_vs_rome()
    give_hand(s, 0, "feigned_retreat")  # the attacker could play a tactic in a second window
    put_unit(s, 1, 0, "rom_praetorian", BF)
    put_unit(s, 1, 1, "rom_legionary", WC)
    give_hand(s, 1, "feigned_retreat", "rom_pilum")
    s.players[1].budget = cost(s, "rom_pilum")
    start_attack(s, 0, 0, 1, BF)
    assert legal(s) == sorted([NO_BLOCK, BLOCK(s, 0)])
    act(s, BLOCK(s, 0))
    assert s.phase == TACTIC and s.acting_player() == 0
    assert legal(s) == sorted([NO_TACTIC, PLAY(s, "feigned_retreat")])
    act(s, NO_TACTIC)
    assert s.phase == TACTIC and s.acting_player() == 1
    assert legal(s) == sorted([NO_TACTIC, PLAY(s, "feigned_retreat"), PLAY(s, "rom_pilum")])
    act(s, PLAY(s, "feigned_retreat"))
    # redirect: Rome chooses a WC blocker or none
    assert s.phase == BLOCK_PHASE and s.acting_player() == 1 and s.battle.zone == WC
    assert s.battle.outcomes == [(BF, BLOCKER_OUT)]
    assert legal(s) == sorted([NO_BLOCK, BLOCK(s, 1)])
    act(s, NO_BLOCK)
    # resolved at once: no second tactic window although both sides still hold a tactic
    assert s.last_battle == (0, 1, ((BF, BLOCKER_OUT), (WC, NO_BLOCKER)))
    assert chs(s) == [0, -1]
    assert units_of(s, 1) == {0: ("rom_praetorian", BF), 1: ("rom_legionary", WC)}
    assert units_of(s, 0) == {0: ("mon_lancer", BF), 1: ("mon_noyan", WC)}
    assert discards(s, 1) == {"feigned_retreat": 1}
    assert hand_of(s, 0) == {"feigned_retreat": 1}
    assert hand_of(s, 1) == {"rom_pilum": 1}
    assert_turn_passed_to(s, 1)


def test_scenario_13_W6_by_removal():
    s = mongol_raider_vs_rome()
    give_hand(s, 1, "ambush")
    golds = -(-cost(s, "ambush") // 3)
    give_ready(s, 1, *["gold"] * golds)  # paying on another player's turn (ruling 29)
    start_attack(s, 0, 0, 1, WC)  # Rome has no WC unit: no blocker
    assert s.phase == TACTIC and s.acting_player() == 1
    assert legal(s) == sorted([NO_TACTIC, PLAY(s, "ambush")])
    act(s, PLAY(s, "ambush"))
    assert s.last_battle == (0, 1, ((WC, ATTACKER_OUT),))
    assert discards(s, 0) == {"mon_horse_archer": 1}
    assert units_of(s, 0) == {1: ("mon_noyan", WC)}
    assert discards(s, 1) == {"ambush": 1, **({"gold": golds} if golds else {})}
    assert chs(s) == [0, 0]
    assert_turn_passed_to(s, 1)


def test_scenario_14_first_strike():
    s = blank_state(("franks", "egypt"))
    put_unit(s, 0, 0, "fra_knight", BF)
    put_unit(s, 0, 1, "fra_count", WC)
    put_unit(s, 1, 0, "egy_chariot", BF)
    assert rules.unit_strength(s, 0, 0, attacking=True) == 5
    assert rules.unit_strength(s, 1, 0) == 4  # no attack bonus while blocking
    assert rules.unit_life(s, 1, 0, blocking=True) == 4
    assert kill_tests_for(s, 0, 0, 1, 0, BF) == (True, False)
    start_attack(s, 0, 0, 1, BF)
    act(s, BLOCK(s, 0))
    assert s.last_battle == (0, 1, ((BF, ATTACKER_KILLS),))
    assert discards(s, 1) == {"egy_chariot": 1} and discards(s, 0) == {}
    assert units_of(s, 0) == {0: ("fra_knight", BF), 1: ("fra_count", WC)}
    assert chs(s) == [0, 0]


def test_scenario_15_chancellor_victory():
    s = blank_state(("franks", "rome"))
    s.players[0].ch = 4
    give_hand(s, 0, "fra_monastery")
    s.players[0].budget = cost(s, "fra_monastery")
    rewards = act(s, PLAY(s, "fra_monastery"))
    assert s.players[0].ch == 5
    assert s.phase == OVER and rules.is_terminal(s)
    assert s.winner == 0 and s.victory == "chancellor"
    assert rewards == [1.0, -1.0]
    assert rules.final_rewards(s) == [1.0, -1.0]
    assert legal(s) == sorted([])


def test_scenario_16_slaughterhouse():
    fresh = rules.new_game(GeneralsConfig(slaughterhouse=True), np.random.default_rng(0),
                           decks=["rome", "mongols"], first_player=0, shuffle=False)
    assert chs(fresh) == [5, 5]
    # a Forum at 5 leaves 5; at 4 it makes 5; no Chancellor victory either way
    for start, after in ((5, 5), (4, 5)):
        s = blank_state(("rome", "mongols"), slaughterhouse=True)
        s.players[0].ch = start
        give_hand(s, 0, "rom_forum", "prison")  # the Prison keeps the phase open
        s.players[0].budget = cost(s, "rom_forum") + cost(s, "prison")
        act(s, PLAY(s, "rom_forum"))
        assert s.players[0].ch == after
        assert s.phase == KINGDOM and s.winner == -1 and s.players[0].alive
    # at CH 1 an unblocked Warcamp hit makes 0: eliminated, the other player wins
    s = mongol_raider_vs_rome(slaughterhouse=True)
    s.players[1].ch = 1
    rewards = start_attack(s, 0, 0, 1, WC)
    assert s.last_battle == (0, 1, ((WC, NO_BLOCKER),))
    assert chs(s) == [5, 0]
    assert s.phase == OVER and s.winner == 0 and s.victory == "warlord"
    assert rewards == [1.0, -1.0]
    assert rules.final_rewards(s) == [1.0, -1.0]


def test_scenario_17_ultra_rare_ban():
    s = blank_state(("egypt", "egypt"), allow_mirror=True)
    give_hand(s, 0, "egy_pyramid", "egy_pyramid", "prison")  # a second copy, to try again
    s.players[0].budget = 2 * cost(s, "egy_pyramid") + cost(s, "prison")
    act(s, PLAY(s, "egy_pyramid"))
    pyramid = kind(s, "egy_pyramid")
    assert s.players[0].kingdom[pyramid] == 1
    assert pyramid in s.banned
    assert rules.can_pay(s, 0, cost(s, "egy_pyramid"))
    assert s.phase == KINGDOM and s.current == 0
    assert mask(s)[PLAY(s, "egy_pyramid")] == 0  # even for its owner
    assert legal(s) == sorted([PLAY(s, "prison"), END_PHASE])
    act(s, END_PHASE)  # seat 0 has nothing else: its turn ends
    assert s.current == 1 and s.phase == DECLARE
    give_hand(s, 1, "egy_pyramid", "sabotage", "egy_granary")
    s.players[1].budget = cost(s, "sabotage") + cost(s, "egy_pyramid") + cost(s, "egy_granary")
    act(s, PLAY_TURN)
    assert s.phase == KINGDOM and s.current == 1
    assert rules.can_pay(s, 1, cost(s, "egy_pyramid"))
    assert legal(s) == sorted([PLAY(s, "sabotage"), PLAY(s, "egy_granary"), END_PHASE])
    # Sabotage: one target player, one target kind: both choices are automatic
    act(s, PLAY(s, "sabotage"))
    assert s.phase == KINGDOM
    assert s.players[0].kingdom[pyramid] == 0 and discards(s, 0) == {"egy_pyramid": 1}
    assert rules.can_pay(s, 1, cost(s, "egy_pyramid"))
    assert pyramid in s.banned
    assert legal(s) == sorted([PLAY(s, "egy_granary"), END_PHASE])


def test_scenario_18_sabotage():
    decks = ("rome", "mongols", "egypt", "franks")
    s = blank_state(decks)
    give_hand(s, 0, "sabotage")
    s.players[0].budget = cost(s, "sabotage")
    assert mask(s)[PLAY(s, "sabotage")] == 0  # no opponent has a Kingdom card
    set_kingdom(s, 1, "mon_yam", "mon_tribute")
    set_kingdom(s, 3, "fra_castle")
    assert legal(s) == sorted([PLAY(s, "sabotage"), END_PHASE])
    set_pile(s, 1, "playing", ["mon_scout", "mon_scout", "mon_scout"])
    assert rules.static_total(s, 1, "draw_extra") == 1
    act(s, PLAY(s, "sabotage"))
    assert s.phase == TARGET_PLAYER_PHASE
    assert legal(s) == sorted([TARGET_PLAYER(s, 1), TARGET_PLAYER(s, 3)])  # seat 2: no Kingdom
    act(s, TARGET_PLAYER(s, 1))
    assert s.phase == TARGET_KIND_PHASE and s.target_player == 1
    assert legal(s) == sorted([TARGET_KIND(s, "mon_yam"), TARGET_KIND(s, "mon_tribute")])
    act(s, TARGET_KIND(s, "mon_yam"))
    p1 = s.players[1]
    assert p1.kingdom[kind(s, "mon_yam")] == 0 and p1.kingdom[kind(s, "mon_tribute")] == 1
    assert discards(s, 1) == {"mon_yam": 1}
    assert discards(s, 0) == {"sabotage": 1}
    assert s.players[3].kingdom[kind(s, "fra_castle")] == 1
    assert rules.static_total(s, 1, "draw_extra") == 0
    # seat 0's turn ended (nothing left); seat 1 now draws one card, not two
    assert s.current == 1 and s.phase == DECLARE
    act(s, PLAY_TURN)
    assert hand_of(s, 1) == {"mon_scout": 1}
    assert len(p1.playing_deck) == 2
    assert p1.budget == 1  # the Tribute Camp still harvests
    assert s.phase == ARMY


@pytest.mark.parametrize("hand_size, discards_expected", [(9, 2), (7, 0)])
def test_scenario_19_hand_limit(hand_size, discards_expected):
    s = blank_state(("rome", "mongols"), phase=ATTACK)
    cards = ["rom_legionary"] * 4 + ["rom_velites"] * 3 + ["rom_praetorian"] * 2
    give_hand(s, 0, *cards[:hand_size])
    assert legal(s) == sorted([END_PHASE])
    act(s, END_PHASE)
    steps = 0
    while s.phase == DISCARD_HAND_PHASE:
        assert s.current == 0
        assert legal(s) == [DISCARD_HAND(s, c) for c in sorted(set(cards[:hand_size]),
                                                                 key=lambda c: kind(s, c))]
        act(s, legal(s)[steps % len(legal(s))])
        steps += 1
    assert steps == discards_expected
    assert sum(s.players[0].hand) == 7
    assert sum(s.players[0].discard) == discards_expected
    assert s.current == 1 and s.phase == DECLARE


def test_scenario_20_elimination_with_three_players():
    s = blank_state(("mongols", "rome", "egypt"))
    put_unit(s, 0, 0, "mon_horse_archer", BF)
    put_unit(s, 0, 1, "mon_noyan", WC)
    p2 = s.players[2]
    p2.ch = -4
    put_unit(s, 2, 0, "egy_archer", BF)
    put_unit(s, 2, 1, "egy_charioteer", BF)
    set_kingdom(s, 2, "egy_granary")
    removed_before = p2.removed[:]
    rewards = start_attack(s, 0, 0, 2, WC)  # seat 2 is offset 2 from seat 0
    assert s.last_battle == (0, 2, ((WC, NO_BLOCKER),))
    assert p2.ch == -5 and p2.alive is False
    assert rewards == [0.0, 0.0, -1.0]
    assert units_of(s, 2) == {}
    assert sum(p2.kingdom) == 0
    for card_id in ("egy_archer", "egy_charioteer", "egy_granary"):
        k = kind(s, card_id)
        assert p2.removed[k] == removed_before[k] + 1
    assert s.phase != OVER and s.winner == -1
    assert rules.eliminated(s) == [False, False, True]
    assert s.current == 1 and s.phase == DECLARE
    # seat 1 may attack seat 0 (offset 2) but not seat 2 (offset 1)
    put_unit(s, 1, 0, "rom_legionary", BF)
    put_unit(s, 1, 1, "rom_centurion", WC)
    s.phase = ATTACK
    assert legal(s) == sorted([MOVE(s, 0), MOVE(s, 1), ATTACK_AT(s, 0, 2, BF), END_PHASE])
    act(s, END_PHASE)
    assert s.current == 0 and s.phase == DECLARE  # seat 2 is skipped
    s.phase = ATTACK
    assert ATTACK_AT(s, 0, 1, WC) in legal(s)
    for u in range(10):
        for z in (BF, WC):
            assert mask(s)[ATTACK_AT(s, u, 2, z)] == 0
    act(s, END_PHASE)
    assert s.current == 1 and s.phase == DECLARE


# ============================================================================ battle outcomes
# Mongols (seat 0) attack Rome (seat 1) unless said. W = attack on the Warcamp, B = on the BF.


def test_outcome_W1_no_blocker():
    s = mongol_raider_vs_rome()
    start_attack(s, 0, 0, 1, WC)
    assert s.last_battle == (0, 1, ((WC, NO_BLOCKER),))
    assert chs(s) == [0, -1]  # the attacker gains nothing (attack_transfer=False)
    assert units_of(s, 0) == {0: ("mon_horse_archer", BF), 1: ("mon_noyan", WC)}
    assert discards(s, 0) == {} and discards(s, 1) == {}


def test_outcome_W2_blocker_withdrawn():
    s = mongol_raider_vs_rome()
    put_unit(s, 1, 0, "rom_legionary", WC)
    give_hand(s, 1, "feigned_retreat")
    start_attack(s, 0, 0, 1, WC)
    assert legal(s) == sorted([NO_BLOCK, BLOCK(s, 0)])
    act(s, BLOCK(s, 0))
    assert s.acting_player() == 1 and legal(s) == sorted([NO_TACTIC, PLAY(s, "feigned_retreat")])
    act(s, PLAY(s, "feigned_retreat"))
    assert s.last_battle == (0, 1, ((WC, BLOCKER_OUT),))
    assert chs(s) == [0, -1]
    assert units_of(s, 1) == {0: ("rom_legionary", WC)}  # a withdrawn blocker stays
    assert units_of(s, 0) == {0: ("mon_horse_archer", BF), 1: ("mon_noyan", WC)}
    assert discards(s, 1) == {"feigned_retreat": 1}


def test_outcome_W2_blocker_removed():
    s = mongol_raider_vs_rome()
    give_hand(s, 0, "mon_encircle")
    s.players[0].budget = cost(s, "mon_encircle")
    put_unit(s, 1, 0, "rom_legionary", WC)
    start_attack(s, 0, 0, 1, WC)
    act(s, BLOCK(s, 0))
    assert s.acting_player() == 0 and legal(s) == sorted([NO_TACTIC, PLAY(s, "mon_encircle")])
    act(s, PLAY(s, "mon_encircle"))  # Rome has no tactic: its NO_TACTIC is automatic
    assert s.last_battle == (0, 1, ((WC, BLOCKER_OUT),))
    assert chs(s) == [0, -1]
    assert units_of(s, 1) == {}
    assert discards(s, 1) == {"rom_legionary": 1}  # the removed blocker is already discarded
    assert discards(s, 0) == {"mon_encircle": 1}


def test_outcome_W3_attacker_kills():
    s = blank_state(("mongols", "rome"))
    put_unit(s, 0, 0, "mon_noyan", BF)  # 4/4 raider General
    put_unit(s, 1, 0, "rom_velites", WC)  # 2/1
    assert kill_tests_for(s, 0, 0, 1, 0, WC) == (True, False)
    start_attack(s, 0, 0, 1, WC)
    act(s, BLOCK(s, 0))
    assert s.last_battle == (0, 1, ((WC, ATTACKER_KILLS),))
    assert discards(s, 1) == {"rom_velites": 1} and units_of(s, 1) == {}
    assert units_of(s, 0) == {0: ("mon_noyan", BF)}
    assert chs(s) == [0, -1]


def test_outcome_W4_double_death():
    s = mongol_raider_vs_rome()
    put_unit(s, 1, 0, "rom_velites", WC)  # 2/1 against the 3/2 Horse Archer
    start_attack(s, 0, 0, 1, WC)
    act(s, BLOCK(s, 0))
    assert s.last_battle == (0, 1, ((WC, DOUBLE_DEATH),))
    assert discards(s, 0) == {"mon_horse_archer": 1} and discards(s, 1) == {"rom_velites": 1}
    assert units_of(s, 0) == {1: ("mon_noyan", WC)} and units_of(s, 1) == {}
    assert chs(s) == [0, 0]


def test_outcome_W5_counter_attack():
    s = mongol_raider_vs_rome()
    put_unit(s, 1, 0, "rom_legionary", WC)  # 3/3, +1 life in the Warcamp
    assert rules.unit_life(s, 1, 0, blocking=True) == 4
    start_attack(s, 0, 0, 1, WC)
    act(s, BLOCK(s, 0))
    assert s.last_battle == (0, 1, ((WC, COUNTER_ATTACK),))
    assert discards(s, 0) == {"mon_horse_archer": 1} and discards(s, 1) == {}
    assert units_of(s, 1) == {0: ("rom_legionary", WC)}
    assert chs(s) == [0, 0]


def test_outcome_W6_attacker_withdrawn():
    s = mongol_raider_vs_rome()
    give_hand(s, 0, "feigned_retreat")
    put_unit(s, 1, 0, "rom_legionary", WC)
    start_attack(s, 0, 0, 1, WC)
    act(s, BLOCK(s, 0))
    act(s, PLAY(s, "feigned_retreat"))
    assert s.last_battle == (0, 1, ((WC, ATTACKER_OUT),))
    assert units_of(s, 0) == {0: ("mon_horse_archer", BF), 1: ("mon_noyan", WC)}
    assert units_of(s, 1) == {0: ("rom_legionary", WC)}
    assert discards(s, 0) == {"feigned_retreat": 1} and discards(s, 1) == {}
    assert chs(s) == [0, 0]


def test_outcome_W7_double_block():
    s = blank_state(("mongols", "rome"))
    put_unit(s, 0, 0, "mon_noyan", BF)  # 4/4
    put_unit(s, 1, 0, "rom_legionary", WC)  # 3/4 in the Warcamp
    assert kill_tests_for(s, 0, 0, 1, 0, WC) == (False, False)
    start_attack(s, 0, 0, 1, WC)
    act(s, BLOCK(s, 0))
    assert s.last_battle == (0, 1, ((WC, DOUBLE_BLOCK),))
    assert units_of(s, 0) == {0: ("mon_noyan", BF)}
    assert units_of(s, 1) == {0: ("rom_legionary", WC)}
    assert discards(s, 0) == {} and discards(s, 1) == {}
    assert chs(s) == [0, 0]


def test_outcome_B1_no_blocker():
    s = rome_legionary_vs_mongols()
    put_unit(s, 1, 0, "mon_scout", BF)
    put_unit(s, 1, 1, "mon_noyan", WC)
    start_attack(s, 0, 0, 1, BF)
    assert s.battle.zone == BF and legal(s) == sorted([NO_BLOCK, BLOCK(s, 0)])
    act(s, NO_BLOCK)
    assert s.phase == BLOCK_PHASE and s.battle.zone == WC and s.battle.redirected
    assert legal(s) == sorted([NO_BLOCK, BLOCK(s, 1)])
    act(s, NO_BLOCK)
    assert s.last_battle == (0, 1, ((BF, NO_BLOCKER), (WC, NO_BLOCKER)))
    assert chs(s) == [0, -1]
    assert units_of(s, 1) == {0: ("mon_scout", BF), 1: ("mon_noyan", WC)}
    assert units_of(s, 0) == {0: ("rom_legionary", BF), 1: ("rom_centurion", WC)}


def test_outcome_B2_blocker_withdrawn():
    s = mongol_lancer_vs_rome()
    put_unit(s, 1, 0, "rom_praetorian", BF)
    give_hand(s, 1, "feigned_retreat")
    start_attack(s, 0, 0, 1, BF)
    act(s, BLOCK(s, 0))
    act(s, PLAY(s, "feigned_retreat"))  # Rome has no WC unit: no blocker, automatically
    assert s.last_battle == (0, 1, ((BF, BLOCKER_OUT), (WC, NO_BLOCKER)))
    assert chs(s) == [0, -1]
    assert units_of(s, 1) == {0: ("rom_praetorian", BF)}


def test_outcome_B2_blocker_removed_then_wc_battle():
    s = mongol_lancer_vs_rome()
    give_hand(s, 0, "mon_encircle")
    s.players[0].budget = cost(s, "mon_encircle")
    put_unit(s, 1, 0, "rom_praetorian", BF)
    put_unit(s, 1, 1, "rom_legionary", WC)
    start_attack(s, 0, 0, 1, BF)
    act(s, BLOCK(s, 0))
    act(s, PLAY(s, "mon_encircle"))
    assert s.phase == BLOCK_PHASE and s.battle.zone == WC
    assert legal(s) == sorted([NO_BLOCK, BLOCK(s, 1)])
    act(s, BLOCK(s, 1))  # step 5 again, no tactic window: 5 > 4 and 3 >= 3
    assert s.last_battle == (0, 1, ((BF, BLOCKER_OUT), (WC, DOUBLE_DEATH)))
    assert discards(s, 1) == {"rom_praetorian": 1, "rom_legionary": 1}
    assert discards(s, 0) == {"mon_lancer": 1, "mon_encircle": 1}
    assert chs(s) == [0, 0]


def test_outcome_B3_attacker_kills():
    s = rome_legionary_vs_mongols()
    put_unit(s, 1, 0, "mon_scout", BF)
    start_attack(s, 0, 0, 1, BF)
    act(s, BLOCK(s, 0))
    assert s.last_battle == (0, 1, ((BF, ATTACKER_KILLS),))
    assert discards(s, 1) == {"mon_scout": 1} and units_of(s, 1) == {}
    assert units_of(s, 0) == {0: ("rom_legionary", BF), 1: ("rom_centurion", WC)}
    assert chs(s) == [0, 0]  # no CH change on the Battlefield


def test_outcome_B4_double_death():
    s = mongol_lancer_vs_rome()
    put_unit(s, 1, 0, "rom_legionary", BF)
    start_attack(s, 0, 0, 1, BF)
    act(s, BLOCK(s, 0))
    assert s.last_battle == (0, 1, ((BF, DOUBLE_DEATH),))
    assert discards(s, 0) == {"mon_lancer": 1} and discards(s, 1) == {"rom_legionary": 1}
    assert chs(s) == [0, 0]


def test_outcome_B5_counter_attack():
    s = rome_legionary_vs_mongols()
    put_unit(s, 1, 0, "mon_lancer", BF)  # 4/3 blocking: no attack bonus
    assert kill_tests_for(s, 0, 0, 1, 0, BF) == (False, True)
    start_attack(s, 0, 0, 1, BF)
    act(s, BLOCK(s, 0))
    assert s.last_battle == (0, 1, ((BF, COUNTER_ATTACK),))
    assert discards(s, 0) == {"rom_legionary": 1} and discards(s, 1) == {}
    assert units_of(s, 1) == {0: ("mon_lancer", BF)}
    assert chs(s) == [0, 0]


def test_outcome_B6_attacker_withdrawn():
    s = mongol_lancer_vs_rome()
    give_hand(s, 0, "feigned_retreat")
    put_unit(s, 1, 0, "rom_legionary", BF)
    start_attack(s, 0, 0, 1, BF)
    act(s, BLOCK(s, 0))
    act(s, PLAY(s, "feigned_retreat"))
    assert s.last_battle == (0, 1, ((BF, ATTACKER_OUT),))
    assert units_of(s, 0) == {0: ("mon_lancer", BF), 1: ("mon_noyan", WC)}
    assert units_of(s, 1) == {0: ("rom_legionary", BF)}
    assert chs(s) == [0, 0]


def test_outcome_B6_attacker_removed():
    s = mongol_lancer_vs_rome()
    put_unit(s, 1, 0, "rom_legionary", BF)
    give_hand(s, 1, "ambush")
    s.players[1].budget = cost(s, "ambush")
    start_attack(s, 0, 0, 1, BF)
    act(s, BLOCK(s, 0))
    act(s, PLAY(s, "ambush"))
    assert s.last_battle == (0, 1, ((BF, ATTACKER_OUT),))
    assert discards(s, 0) == {"mon_lancer": 1}
    assert units_of(s, 1) == {0: ("rom_legionary", BF)}
    assert chs(s) == [0, 0]


def test_outcome_B7_double_block():
    s = blank_state(("rome", "mongols"))
    put_unit(s, 0, 0, "rom_centurion", BF)  # 3/5 General; its aura is for the others
    put_unit(s, 1, 0, "mon_noyan", BF)  # 4/4
    assert rules.unit_strength(s, 0, 0, attacking=True) == 3
    start_attack(s, 0, 0, 1, BF)
    act(s, BLOCK(s, 0))
    assert s.last_battle == (0, 1, ((BF, DOUBLE_BLOCK),))
    assert units_of(s, 0) == {0: ("rom_centurion", BF)}
    assert units_of(s, 1) == {0: ("mon_noyan", BF)}
    assert chs(s) == [0, 0]


# ============================================================================ kill triggers


def test_on_kill_ch_attacker():
    s = blank_state(("rome", "mongols"))
    put_unit(s, 0, 0, "rom_imperator", BF)
    put_unit(s, 1, 0, "mon_scout", BF)
    start_attack(s, 0, 0, 1, BF)
    act(s, BLOCK(s, 0))
    assert s.last_battle == (0, 1, ((BF, ATTACKER_KILLS),))
    assert chs(s) == [1, 0]


def test_on_kill_ch_blocker():
    s = mongol_lancer_vs_rome()
    put_unit(s, 1, 0, "rom_imperator", BF)  # 5/6: 5 > 6 fails, 5 >= 3 holds
    start_attack(s, 0, 0, 1, BF)
    act(s, BLOCK(s, 0))
    assert s.last_battle == (0, 1, ((BF, COUNTER_ATTACK),))
    assert chs(s) == [0, 1]


def test_on_kill_ch_double_death_both_fire_and_prison():
    s = blank_state(("rome", "rome"))
    put_unit(s, 0, 0, "rom_imperator", BF)
    put_unit(s, 1, 0, "rom_imperator", BF)
    set_capitol(s, 1, "prison")
    for seat in (0, 1):
        give_hand(s, seat, "rom_pilum")
        s.players[seat].budget = cost(s, "rom_pilum")
    start_attack(s, 0, 0, 1, BF)
    act(s, BLOCK(s, 0))
    act(s, PLAY(s, "rom_pilum"))  # attacker 7 > 6
    act(s, PLAY(s, "rom_pilum"))  # blocker 7 >= 6
    assert s.last_battle == (0, 1, ((BF, DOUBLE_DEATH),))
    assert units_of(s, 0) == {} and units_of(s, 1) == {}
    assert chs(s) == [1, 2]  # each Imperator +1; Rome's Prison +1 for its blocker's kill


@pytest.mark.parametrize("blocker, outcome, ch", [
    ("rom_legionary", COUNTER_ATTACK, 1),  # W5 + Prison
    ("rom_velites", DOUBLE_DEATH, 1),  # W4 + Prison
])
def test_on_block_kill_ch_prison(blocker, outcome, ch):
    s = mongol_raider_vs_rome()
    set_capitol(s, 1, "prison")
    put_unit(s, 1, 0, blocker, WC)
    start_attack(s, 0, 0, 1, WC)
    act(s, BLOCK(s, 0))
    assert s.last_battle == (0, 1, ((WC, outcome),))
    assert chs(s) == [0, ch]


def test_prison_does_not_fire_when_the_blocker_dies_or_for_the_attacker():
    s = blank_state(("mongols", "rome"))
    put_unit(s, 0, 0, "mon_noyan", BF)
    set_capitol(s, 0, "prison")  # the attacker's Prison: never
    set_capitol(s, 1, "prison")  # the defender's: its blocker does not kill here
    put_unit(s, 1, 0, "rom_velites", WC)
    start_attack(s, 0, 0, 1, WC)
    act(s, BLOCK(s, 0))
    assert s.last_battle == (0, 1, ((WC, ATTACKER_KILLS),))
    assert chs(s) == [0, -1]


def test_remove_enemy_fires_no_kill_trigger():
    # the defender removes the attacker: neither its Imperator's on_kill_ch nor its Prison fire
    s = mongol_lancer_vs_rome()
    put_unit(s, 1, 0, "rom_imperator", BF)
    set_capitol(s, 1, "prison")
    give_hand(s, 1, "ambush")
    s.players[1].budget = cost(s, "ambush")
    start_attack(s, 0, 0, 1, BF)
    act(s, BLOCK(s, 0))
    act(s, PLAY(s, "ambush"))
    assert s.last_battle == (0, 1, ((BF, ATTACKER_OUT),))
    assert discards(s, 0) == {"mon_lancer": 1}
    assert chs(s) == [0, 0]
    # the attacker removes the blocker: the attacking Imperator gains nothing
    s = blank_state(("rome", "mongols"))
    put_unit(s, 0, 0, "rom_imperator", BF)
    give_hand(s, 0, "mon_encircle")
    s.players[0].budget = cost(s, "mon_encircle")
    put_unit(s, 1, 0, "mon_scout", BF)
    start_attack(s, 0, 0, 1, BF)
    act(s, BLOCK(s, 0))
    act(s, PLAY(s, "mon_encircle"))  # redirect; the Mongol WC is empty: no blocker
    assert s.last_battle == (0, 1, ((BF, BLOCKER_OUT), (WC, NO_BLOCKER)))
    assert discards(s, 1) == {"mon_scout": 1}
    assert chs(s) == [0, -1]


# ============================================================================ first strike, ties


def test_first_strike_defender():
    s = blank_state(("mongols", "egypt"))
    put_unit(s, 0, 0, "mon_horse_archer", BF)  # 3/2
    put_unit(s, 0, 1, "mon_noyan", WC)
    put_unit(s, 1, 0, "egy_archer", BF)  # 2/2 first strike
    assert kill_tests_for(s, 0, 0, 1, 0, BF) == (False, True)
    start_attack(s, 0, 0, 1, BF)
    act(s, BLOCK(s, 0))
    assert s.last_battle == (0, 1, ((BF, COUNTER_ATTACK),))
    assert discards(s, 0) == {"mon_horse_archer": 1}
    assert units_of(s, 1) == {0: ("egy_archer", BF)}


def test_first_strike_on_both_sides_cancels_out():
    s = blank_state(("franks", "franks"))
    put_unit(s, 0, 0, "fra_knight", BF)
    put_unit(s, 0, 1, "fra_count", WC)
    put_unit(s, 1, 0, "fra_knight", BF)
    assert kill_tests_for(s, 0, 0, 1, 0, BF) == (True, True)
    start_attack(s, 0, 0, 1, BF)
    act(s, BLOCK(s, 0))
    assert s.last_battle == (0, 1, ((BF, DOUBLE_DEATH),))


def test_first_strike_attacker_that_does_not_kill_is_killed():
    # first strike only cancels the other's kill when its owner kills
    s = blank_state(("egypt", "rome"))
    put_unit(s, 0, 0, "egy_archer", BF)  # 2/2 first strike
    put_unit(s, 0, 1, "egy_charioteer", WC)
    put_unit(s, 1, 0, "rom_legionary", BF)  # 3/3
    assert kill_tests_for(s, 0, 0, 1, 0, BF) == (False, True)
    start_attack(s, 0, 0, 1, BF)
    act(s, BLOCK(s, 0))
    assert s.last_battle == (0, 1, ((BF, COUNTER_ATTACK),))


def test_defender_wins_ties_false_still_kills_on_greater():
    s = rome_legionary_vs_mongols(defender_wins_ties=False)
    put_unit(s, 1, 0, "mon_lancer", BF)  # 4 > 3
    start_attack(s, 0, 0, 1, BF)
    act(s, BLOCK(s, 0))
    assert s.last_battle == (0, 1, ((BF, COUNTER_ATTACK),))


# ============================================================================ flags


@pytest.mark.parametrize("transfer, expected", [(False, [0, -1]), (True, [1, -1])])
def test_attack_transfer(transfer, expected):
    s = mongol_raider_vs_rome(attack_transfer=transfer)
    start_attack(s, 0, 0, 1, WC)
    assert s.last_battle == (0, 1, ((WC, NO_BLOCKER),))
    assert chs(s) == expected


def test_attack_transfer_only_where_the_defender_loses_ch():
    s = rome_legionary_vs_mongols(attack_transfer=True)
    put_unit(s, 1, 0, "mon_scout", BF)
    start_attack(s, 0, 0, 1, BF)
    act(s, BLOCK(s, 0))
    assert s.last_battle == (0, 1, ((BF, ATTACKER_KILLS),))
    assert chs(s) == [0, 0]
    s = blank_state(("mongols", "rome"), attack_transfer=True)
    put_unit(s, 0, 0, "mon_noyan", BF)
    put_unit(s, 1, 0, "rom_velites", WC)
    start_attack(s, 0, 0, 1, WC)
    act(s, BLOCK(s, 0))
    assert s.last_battle == (0, 1, ((WC, ATTACKER_KILLS),))
    assert chs(s) == [1, -1]


def test_attack_transfer_can_win():
    s = mongol_raider_vs_rome(attack_transfer=True)
    s.players[0].ch = 4
    rewards = start_attack(s, 0, 0, 1, WC)
    assert chs(s) == [5, -1]
    assert s.phase == OVER and s.winner == 0 and s.victory == "chancellor"
    assert rewards == [1.0, -1.0]


@pytest.mark.parametrize("mode", ["raider", "any"])
def test_warcamp_attacks(mode):
    s = rome_legionary_vs_mongols(warcamp_attacks=mode)
    put_unit(s, 1, 0, "mon_noyan", WC)
    s.phase = ATTACK
    wc_attack = ATTACK_AT(s, 0, 1, WC)
    assert ATTACK_AT(s, 0, 1, BF) in legal(s)
    if mode == "raider":
        assert wc_attack not in legal(s)
        assert attack_mask(s).sum() == 1
        return
    assert wc_attack in legal(s)
    act(s, wc_attack)
    assert s.battle.zone == WC and legal(s) == sorted([NO_BLOCK, BLOCK(s, 0)])
    act(s, NO_BLOCK)
    assert s.last_battle == (0, 1, ((WC, NO_BLOCKER),))
    assert chs(s) == [0, -1]


def test_raider_keyword_and_granted_raider():
    s = blank_state(("mongols", "rome"), phase=ATTACK)
    put_unit(s, 0, 0, "mon_horse_archer", BF)  # raider
    put_unit(s, 0, 1, "mon_lancer", BF)  # not a raider
    put_unit(s, 0, 2, "mon_noyan", WC)
    assert ATTACK_AT(s, 0, 1, WC) in legal(s) and ATTACK_AT(s, 1, 1, WC) not in legal(s)
    set_strategy(s, 0, "mon_steppe")  # grant_raider to Soldiers
    assert ATTACK_AT(s, 1, 1, WC) in legal(s)


def test_max_generals_two_replace_general_decision():
    s = blank_state(("rome", "mongols"), phase=ARMY, max_generals=2)
    put_unit(s, 0, 0, "rom_centurion", WC)
    give_hand(s, 0, "rom_imperator", "rom_centurion", "rom_velites")  # Velites: phase stays open
    s.players[0].budget = (cost(s, "rom_imperator") + cost(s, "rom_centurion")
                           + cost(s, "rom_velites"))
    act(s, PLAY(s, "rom_imperator"))  # below the cap: no replacement
    assert s.phase == ARMY
    assert units_of(s, 0) == {0: ("rom_centurion", WC), 1: ("rom_imperator", WC)}
    act(s, PLAY_TO_BF(s, "rom_centurion"))
    assert s.phase == REPLACE_GENERAL and s.current == 0
    assert legal(s) == sorted([DISCARD_UNIT(s, 0), DISCARD_UNIT(s, 1)])
    act(s, DISCARD_UNIT(s, 1))
    assert s.phase == ARMY
    assert discards(s, 0) == {"rom_imperator": 1}
    assert units_of(s, 0) == {0: ("rom_centurion", WC), 1: ("rom_centurion", BF)}
    assert hand_of(s, 0) == {"rom_velites": 1}
    assert s.players[0].budget == cost(s, "rom_velites")


def test_draw_mode_both():
    s = blank_state(("rome", "mongols"), phase=DECLARE, draw_mode="both")
    set_pile(s, 0, "playing", ["rom_velites", "rom_legionary"])
    set_pile(s, 0, "supply", ["grain", "timber"])
    act(s, PLAY_TURN)  # one card from each pile, no decision; then the turn has nothing to do
    p0 = s.players[0]
    assert hand_of(s, 0) == {"rom_legionary": 1}
    assert p0.supply_fresh[kind(s, "timber")] == 0  # made ready at the end of the turn
    assert p0.supply_ready[kind(s, "timber")] == 1
    assert p0.playing_deck == [kind(s, "rom_velites")] and p0.supply_pile == [kind(s, "grain")]
    assert s.current == 1
    # one pile empty: one card only
    s = blank_state(("rome", "mongols"), phase=DECLARE, draw_mode="both")
    set_pile(s, 0, "playing", ["rom_velites", "rom_legionary"])
    give_hand(s, 0, "rom_forum")
    act(s, PLAY_TURN)
    assert hand_of(s, 0) == {"rom_forum": 1, "rom_legionary": 1}
    assert s.players[0].playing_deck == [kind(s, "rom_velites")]


def test_draw_mode_choose():
    s = blank_state(("rome", "mongols"), phase=DECLARE)
    set_pile(s, 0, "playing", ["rom_velites", "rom_legionary"])
    set_pile(s, 0, "supply", ["grain", "timber"])
    give_hand(s, 0, "prison")
    s.players[0].budget = cost(s, "prison")  # the Prison is affordable: the phase stays open
    act(s, PLAY_TURN)
    assert s.phase == DRAW and legal(s) == sorted([DRAW_PLAYING, DRAW_SUPPLY])
    act(s, DRAW_SUPPLY)
    assert s.phase == KINGDOM
    assert s.players[0].supply_fresh[kind(s, "timber")] == 1
    assert s.players[0].supply_pile == [kind(s, "grain")]
    assert len(s.players[0].playing_deck) == 2


def test_deckout_loses_two_players():
    s = blank_state(("rome", "mongols"), phase=DECLARE, deckout_loses=True)
    rewards = act(s, PLAY_TURN)
    assert s.phase == OVER and s.winner == 1 and s.victory == "warlord"
    assert rewards == [-1.0, 1.0]
    assert rules.final_rewards(s) == [-1.0, 1.0]


def test_deckout_loses_three_players_and_pass():
    s = blank_state(("rome", "mongols", "egypt"), phase=DECLARE, deckout_loses=True)
    set_pile(s, 1, "playing", ["mon_scout"])
    set_pile(s, 2, "playing", ["egy_archer"])
    act(s, PASS)  # a pass draws nothing: no deck-out
    assert s.players[0].alive and s.current == 1
    s.current, s.phase = 0, DECLARE
    s.players[0].passed_last = False
    rewards = act(s, PLAY_TURN)
    assert rewards == [-1.0, 0.0, 0.0]
    assert rules.eliminated(s) == [True, False, False]
    assert s.phase != OVER and s.current == 1


def test_deckout_default_does_not_lose():
    s = blank_state(("rome", "mongols"), phase=DECLARE)
    give_hand(s, 0, "rom_forum")
    act(s, PLAY_TURN)
    assert s.players[0].alive and s.phase != OVER
    assert s.current == 1 and s.phase == DECLARE  # no draw, nothing to do: turn over


@pytest.mark.parametrize("floor, start, out", [
    ("zero", 1, True), ("bottom", 1, False), ("bottom", -4, True),
])
def test_slaughterhouse_floors(floor, start, out):
    s = mongol_raider_vs_rome(slaughterhouse=True, slaughter_floor=floor)
    s.players[1].ch = start
    rewards = start_attack(s, 0, 0, 1, WC)
    assert s.players[1].ch == start - 1
    assert (s.phase == OVER) is out and s.players[1].alive is (not out)
    assert rewards == ([1.0, -1.0] if out else [0.0, 0.0])


def test_standard_game_elimination_line():
    s = mongol_raider_vs_rome()
    s.players[1].ch = -4
    rewards = start_attack(s, 0, 0, 1, WC)
    assert chs(s) == [0, -5] and s.phase == OVER and s.winner == 0
    assert rewards == [1.0, -1.0]


def test_hand_limit_discard_choice():
    s = blank_state(("rome", "mongols"), phase=ATTACK)
    give_hand(s, 0, *["rom_legionary"] * 6, "ambush", "sabotage")  # 8
    act(s, END_PHASE)
    assert s.phase == DISCARD_HAND_PHASE
    assert legal(s) == sorted([DISCARD_HAND(s, "ambush"), DISCARD_HAND(s, "sabotage"),
                               DISCARD_HAND(s, "rom_legionary")])
    act(s, DISCARD_HAND(s, "sabotage"))
    assert hand_of(s, 0) == {"rom_legionary": 6, "ambush": 1}
    assert discards(s, 0) == {"sabotage": 1}
    assert s.current == 1 and s.phase == DECLARE


def test_ultra_rare_ban_blocks_every_seat():
    s = blank_state(("egypt", "egypt"), allow_mirror=True)
    give_hand(s, 0, "egy_pyramid")
    s.players[0].budget = cost(s, "egy_pyramid")
    give_hand(s, 1, "egy_pyramid")
    s.players[1].budget = cost(s, "egy_pyramid")
    probe = s.clone()
    probe.current = 1
    assert PLAY(probe, "egy_pyramid") in legal(probe)
    act(s, PLAY(s, "egy_pyramid"))
    probe = s.clone()
    probe.current = 1
    assert PLAY(probe, "egy_pyramid") not in legal(probe)


def test_sabotage_masked_without_targets_and_ignores_eliminated():
    s = blank_state(("rome", "mongols", "egypt"))
    give_hand(s, 0, "sabotage", "rom_testudo")
    s.players[0].budget = cost(s, "sabotage") + cost(s, "rom_testudo")
    set_kingdom(s, 2, "egy_granary")
    s.players[2].alive = False  # out of the game: not a target
    assert PLAY(s, "sabotage") not in legal(s)
    s.players[2].alive = True
    assert PLAY(s, "sabotage") in legal(s)
    act(s, PLAY(s, "sabotage"))  # one target, one kind: automatic
    assert s.phase == KINGDOM and discards(s, 2) == {"egy_granary": 1}


def test_auto_payment_tie_breaks():
    s = blank_state(("rome", "mongols"))
    grain, timber, iron, caravan = (kind(s, c) for c in ("grain", "timber", "iron", "caravan"))
    give_ready(s, 0, "grain", "timber", "iron")
    assert rules.payment_choice(s, 0, 2) == [iron]  # fewest cards among exact payments
    assert rules.payment_choice(s, 0, 1) == [grain]  # lowest ref
    assert sorted(rules.payment_choice(s, 0, 3)) == sorted([grain, iron])
    s.players[0].budget = 1
    assert rules.payment_choice(s, 0, 1) == []  # the budget first
    assert rules.payment_choice(s, 0, 2) == [grain]
    s = blank_state(("rome", "mongols"))
    give_ready(s, 0, "caravan", "timber")
    assert rules.payment_choice(s, 0, 1) == [timber]
    assert not rules.can_pay(s, 0, 3) and rules.can_pay(s, 0, 2)
    assert caravan != timber


def test_fresh_cards_cannot_pay():
    s = blank_state(("rome", "mongols"))
    give_hand(s, 0, "rom_testudo")
    give_fresh(s, 0, "gold")
    assert not rules.can_pay(s, 0, 2)
    assert legal(s) == sorted([END_PHASE])


def test_play_for_second_placement_three_players():
    s = blank_state(("franks", "mongols", "rome"), play_for_second=True,
                    reward_scheme="placement")
    s.players[0].ch = 4
    give_hand(s, 0, "fra_monastery")
    s.players[0].budget = cost(s, "fra_monastery")
    rewards = act(s, PLAY(s, "fra_monastery"))
    assert rewards == [1.0, 0.0, 0.0]
    assert s.winner == 0 and s.victory == "chancellor"
    assert s.phase != OVER and rules.eliminated(s) == [True, False, False]
    assert s.players[0].place == 1
    assert s.current == 1 and s.phase == DECLARE  # seat 0 left mid-turn: its turn ended
    # seat 1 eliminates seat 2: third place for seat 2, second for seat 1
    put_unit(s, 1, 0, "mon_horse_archer", BF)
    put_unit(s, 1, 1, "mon_noyan", WC)
    s.players[2].ch = -4
    rewards = start_attack(s, 1, 0, 2, WC)
    assert s.phase == OVER
    assert s.winner == 0 and s.victory == "chancellor"
    assert [p.place for p in s.players] == [1, 2, 3]
    assert rewards == [0.0, 0.0, -1.0]
    assert rules.final_rewards(s) == [1.0, 0.0, -1.0]


def test_chancellor_after_an_elimination_three_players():
    s = blank_state(("franks", "mongols", "rome"))
    put_unit(s, 0, 0, "fra_count", BF)
    s.players[2].ch = -4
    start_attack(s, 0, 0, 2, BF)  # no blockers anywhere: -5, seat 2 eliminated
    assert rules.eliminated(s) == [False, False, True]
    s.current, s.phase = 0, KINGDOM
    s.players[0].ch = 4
    give_hand(s, 0, "fra_monastery")
    s.players[0].budget = cost(s, "fra_monastery")
    rewards = act(s, PLAY(s, "fra_monastery"))
    assert s.phase == OVER and s.winner == 0 and s.victory == "chancellor"
    assert rewards == [1.0, -1.0, 0.0]
    assert [p.place for p in s.players] == [1, 2, 3]
    assert rules.final_rewards(s) == [1.0, -1.0, -1.0]


def test_warlord_victory_three_players():
    s = blank_state(("mongols", "rome", "egypt"))
    put_unit(s, 0, 0, "mon_horse_archer", BF)
    put_unit(s, 0, 1, "mon_noyan", WC)
    s.players[2].ch = -4
    assert start_attack(s, 0, 0, 2, WC) == [0.0, 0.0, -1.0]
    s.players[1].ch = -4
    s.current = 0
    rewards = start_attack(s, 0, 0, 1, WC)
    assert s.phase == OVER and s.winner == 0 and s.victory == "warlord"
    assert rewards == [1.0, -1.0, 0.0]
    assert [p.place for p in s.players] == [1, 2, 3]
    assert rules.final_rewards(s) == [1.0, -1.0, -1.0]


def test_placement_without_play_for_second_rewards_agree():
    # the rewards apply() hands out over the game add up to final_rewards()
    s = blank_state(("franks", "mongols", "rome"), reward_scheme="placement")
    s.players[0].ch = 4
    give_hand(s, 0, "fra_monastery")
    s.players[0].budget = cost(s, "fra_monastery")
    rewards = act(s, PLAY(s, "fra_monastery"))
    assert s.phase == OVER and rewards[0] == 1.0
    assert rewards == pytest.approx(rules.final_rewards(s))


# ============================================================================ more rulings


def test_defender_change_is_lost_at_the_end_of_the_turn():
    s = mongol_raider_vs_rome()
    give_hand(s, 1, "ambush")
    give_ready(s, 1, *["gold"] * (cost(s, "ambush") // 3 + 1))  # leaves change
    start_attack(s, 0, 0, 1, WC)
    act(s, PLAY(s, "ambush"))
    assert s.last_battle == (0, 1, ((WC, ATTACKER_OUT),))
    assert s.current == 1 and s.players[1].budget == 0 and s.players[0].budget == 0


def test_chancellor_victory_three_players_ends_the_game_for_everyone():
    s = blank_state(("franks", "mongols", "rome"))
    s.players[0].ch = 4
    give_hand(s, 0, "fra_monastery")
    s.players[0].budget = cost(s, "fra_monastery")
    rewards = act(s, PLAY(s, "fra_monastery"))
    assert s.phase == OVER and s.winner == 0 and s.victory == "chancellor"
    assert rewards == [1.0, -1.0, -1.0]
    assert rules.final_rewards(s) == [1.0, -1.0, -1.0]


def test_harvest_effects_and_ch_per_turn():
    s = blank_state(("egypt", "mongols"), phase=DECLARE)
    set_kingdom(s, 0, "egy_pyramid", "egy_granary")  # ch_per_turn 1, harvest 1
    set_capitol(s, 0, "market")  # harvest 1
    card = {c: s.pool.kinds[kind(s, c)] for c in ("egy_pyramid", "egy_granary", "market",
                                                   "egy_priesthood")}
    harvest = card["egy_granary"].harvest + card["market"].harvest
    assert harvest > 0 and card["egy_pyramid"].ch_per_turn > 0
    give_hand(s, 0, "egy_priesthood")  # paid with the Harvest budget plus ready Grain
    grains = max(0, cost(s, "egy_priesthood") - harvest)
    give_ready(s, 0, *["grain"] * grains)
    act(s, PLAY_TURN)
    assert s.phase == KINGDOM
    assert s.players[0].budget == harvest and s.players[0].ch == card["egy_pyramid"].ch_per_turn
    assert legal(s) == sorted([PLAY(s, "egy_priesthood"), END_PHASE])
    act(s, PLAY(s, "egy_priesthood"))
    assert s.players[0].ch == card["egy_pyramid"].ch_per_turn + card["egy_priesthood"].on_play_ch
    assert discards(s, 0) == ({"grain": grains} if grains else {})


def test_ability_once_per_turn_and_on_the_turn_played():
    s = blank_state(("mongols", "rome"), phase=ARMY)
    set_pile(s, 0, "playing", ["mon_lancer", "mon_lancer"])
    give_hand(s, 0, "mon_scout")
    ability = s.pool.kinds[kind(s, "mon_scout")].ability
    assert ability.effect == "draw" and ability.amount == 1
    s.players[0].budget = cost(s, "mon_scout") + ability.cost
    act(s, PLAY_TO_BF(s, "mon_scout"))
    assert units_of(s, 0) == {0: ("mon_scout", BF)}
    activate = lay(s).index(Kind.ACTIVATE, 0)
    assert activate in legal(s)
    act(s, activate)  # draw 1
    assert hand_of(s, 0) == {"mon_lancer": 1} and s.players[0].budget == 0
    assert activate not in legal(s)
    # the next turn it is available again
    act(s, END_PHASE)
    act(s, END_PHASE)
    act(s, PASS)  # seat 1
    act(s, PLAY_TURN)  # seat 0 draws the last Lancer (only the Playing Deck has cards)
    assert s.phase == ARMY
    s.players[0].budget = ability.cost
    assert activate in legal(s)


def test_effective_numbers():
    s = blank_state(("rome", "egypt"))
    put_unit(s, 0, 0, "rom_centurion", BF)  # aura_str 1 from the BF
    put_unit(s, 0, 1, "rom_legionary", BF)
    put_unit(s, 0, 2, "rom_legionary", WC)  # camp_life 1; no aura in the WC
    put_unit(s, 0, 3, "rom_praetorian", BF)  # block_life 1
    assert rules.unit_strength(s, 0, 1) == 4 and rules.unit_strength(s, 0, 2) == 3
    assert rules.unit_strength(s, 0, 0) == 3  # not its own aura
    assert rules.unit_life(s, 0, 1) == 3 and rules.unit_life(s, 0, 2) == 4
    assert rules.unit_life(s, 0, 3) == 4 and rules.unit_life(s, 0, 3, blocking=True) == 5
    set_strategy(s, 0, "rom_testudo")  # soldier_life 1
    assert rules.unit_life(s, 0, 1) == 4 and rules.unit_life(s, 0, 0) == 5
    put_unit(s, 1, 0, "egy_charioteer", BF)  # field_str 1
    put_unit(s, 1, 1, "egy_chariot", WC)  # attack_str 1
    set_kingdom(s, 1, "egy_granary")
    set_strategy(s, 1, "egy_fortified")  # camp_life_all 1
    assert rules.unit_strength(s, 1, 0) == 5
    assert rules.unit_strength(s, 1, 1) == 4 and rules.unit_strength(s, 1, 1, attacking=True) == 5
    assert rules.unit_life(s, 1, 1) == 5 and rules.unit_life(s, 1, 0) == 4


def _pool_with_an_ultra_rare_resource(tmp_path) -> str:
    data = default_pool_data()
    data["card"].append({"ref": 51, "id": "dragon_hoard", "name": "Dragon Hoard", "type": "resource",
                         "faction": "unaffiliated", "era": "any", "rarity": "ultra_rare", "value": 4})
    return str(write(tmp_path, "pool.toml", data))


def test_ultra_rare_resource_is_banned_when_harvested(tmp_path):
    """Ruling 7 covers resources: the Harvest that puts one into play bans its ref; another
    player's copy can no longer enter play and stays in the hand."""
    s = blank_state(("rome", "mongols"), phase=DECLARE, card_pool=_pool_with_an_ultra_rare_resource(tmp_path))
    hoard = kind(s, "dragon_hoard")
    give_hand(s, 0, "dragon_hoard", "grain")
    give_hand(s, 1, "dragon_hoard")
    set_pile(s, 0, "playing", ["rom_legionary"])
    set_pile(s, 1, "playing", ["mon_lancer"])
    act(s, PLAY_TURN)  # the only draw is automatic, then the Harvest; nothing else to do
    assert s.players[0].supply_ready[hoard] == 1 and s.players[0].hand[hoard] == 0
    assert hoard in s.banned
    banned_at = observe.observation_layout(s.pool.size, s.config.max_seats).start("banned") + hoard
    assert all(observe.observe(s, seat)[banned_at] == 1 for seat in (0, 1))
    assert s.current == 1 and s.phase == DECLARE  # seat 0 had nothing more to do
    act(s, PLAY_TURN)
    assert s.players[1].hand[hoard] == 1, "a banned resource stays in the hand"
    assert s.players[1].supply_fresh[hoard] == 0 and s.players[1].supply_ready[hoard] == 0


def test_two_copies_of_an_ultra_rare_resource_one_enters_play(tmp_path):
    s = blank_state(("rome", "mongols"), phase=DECLARE, card_pool=_pool_with_an_ultra_rare_resource(tmp_path))
    hoard = kind(s, "dragon_hoard")
    give_hand(s, 0, "dragon_hoard", "dragon_hoard")  # only a deck without deck rules holds two
    set_pile(s, 0, "playing", ["rom_legionary"])
    act(s, PLAY_TURN)
    assert (s.players[0].supply_ready[hoard], s.players[0].hand[hoard]) == (1, 1)
    assert hoard in s.banned
