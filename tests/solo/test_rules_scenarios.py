"""Rule scenarios for Empire solo: one test per ruling of ``shared/rulings/000-solo.md``.

Every test builds the exact state it needs (``helpers.build_state``) or stacks the deck of
``rules.new_game``; none depends on a lucky seed. Tests are grouped by the ruling's sections;
the five examples the rules page must make true come last, under their own heading.
"""

from __future__ import annotations

import heapq

import numpy as np
import pytest

from empire_envs.core.cards import NUM_CARDS, is_black
from empire_envs.core.errors import IllegalActionError
from empire_envs.games.solo import actions as A
from empire_envs.games.solo import rules
from empire_envs.games.solo.actions import Action, Kind
from empire_envs.games.solo.config import DEFAULT_SHAPING_VALUES, SoloConfig
from empire_envs.games.solo.state import (
    BASE,
    BASE_VALUE,
    BATTALION,
    BUILDER,
    EMPTY,
    KING_MODE,
    LOST,
    NATIVE,
    ONGOING,
    ORGANIZE,
    OVER,
    REACT,
    SEND,
    SOLDIER,
    SPLIT,
    SUM,
    SUPER,
    TRUNCATED,
    WON,
    SoloState,
)

from .helpers import (
    assert_conserved,
    assert_illegal,
    board,
    build_state,
    c,
    cs,
    deck_top_first,
    play,
)

SOLDIER_RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10")
FACE_RANKS = ("J", "Q", "K")


def legal(state: SoloState) -> list[int]:
    return rules.legal_actions(state)


def battle_state(
    territories, attacker: str, deck=(), enemies=(), phase=SEND, **kwargs
) -> SoloState:
    """A battle waiting for a unit (or, with ``phase=KING_MODE``, a SUM/SPLIT choice)."""
    return build_state(
        territories, attacker=attacker, enemies=enemies, deck=deck, phase=phase, **kwargs
    )


# =========================================================================== Cards and values


def test_one_52_card_deck_soldiers_faces_and_black_suits():
    """Ruling: one 52-card deck, no jokers; soldier = A-10, face = J, Q, K; black = S, C."""
    state = rules.new_game(SoloConfig(), 0)
    assert_conserved(state)  # 52 distinct cards, indices 0..51: no jokers
    assert sum(rules.IS_SOLDIER) == 40 and sum(rules.IS_FACE) == 12
    for suit in "CDHS":
        for rank in SOLDIER_RANKS:
            card = c(rank + suit)
            assert rules.IS_SOLDIER[card] and not rules.IS_FACE[card]
            assert is_black(card) == (suit in "CS")
        for rank in FACE_RANKS:
            card = c(rank + suit)
            assert rules.IS_FACE[card] and not rules.IS_SOLDIER[card]
    # Behaviour: a drawn ace is a soldier (it can be placed), a drawn jack a face (fought).
    assert A.PLACE[3] in legal(build_state({0: "5H"}, drawn="AH"))
    assert legal(build_state({0: "5H"}, drawn="JH")) == [A.FIGHT]


@pytest.mark.parametrize("enemy_rank", SOLDIER_RANKS + FACE_RANKS)
def test_battle_values_ace_1_to_king_13(enemy_rank):
    """Ruling: A=1, 2-10 face value, J=11, Q=12, K=13 (as enemy and in units; >= wins)."""
    expected = SOLDIER_RANKS.index(enemy_rank) + 1 if enemy_rank in SOLDIER_RANKS else (
        11 + FACE_RANKS.index(enemy_rank))
    enemy = enemy_rank + "D"
    assert rules.VALUE[c(enemy)] == expected
    # A unit worth exactly ``expected`` (spades) and one worth one less (hearts).
    exact = {11: "10S+AS", 12: "10S+2S", 13: "10S+3S"}.get(expected, enemy_rank + "S")
    if expected <= 10:
        below = SOLDIER_RANKS[expected - 2] + "H" if expected > 1 else None
    else:
        below = {11: "10H", 12: "10H+AH", 13: "10H+2H"}[expected]
    territories = {0: exact, 1: below} if below else {0: exact}
    state = battle_state(territories, attacker="QC", enemies=[enemy], deck=["5C"])
    assert rules.unit_value(state, 0) == expected
    if below:
        assert rules.unit_value(state, 1) == expected - 1
        probe = state.clone()
        rules.apply_action(probe, A.SEND[1], 0)
        assert probe.attacker == c("QC") and probe.rounds_lost == 1  # one less: round lost
    rules.apply_action(state, A.SEND[0], 0)
    assert state.attacker == -1 and state.outcome == ONGOING  # exactly equal: battle won
    assert c(enemy) in state.discard and c("QC") in state.discard


def test_promotion_cards_are_the_black_jack_queen_king_and_ace():
    """Ruling: "promotion card" = a black J, Q, K or A (and no other card)."""
    promoting = []
    for card in range(NUM_CARDS):
        state = build_state({1: "2H+3H+4H+5H"}, rest=None)
        state.drawn, state.phase = card, REACT
        if A.PROMOTE[1] in legal(state):
            promoting.append(card)
            play(state, A.PROMOTE[1])
            assert state.unit_kind[1] == NATIVE
        else:
            assert_illegal(state, A.PROMOTE[1])
    assert sorted(promoting) == sorted(cs("AC", "JC", "QC", "KC", "AS", "JS", "QS", "KS"))


# =========================================================================== Territories


def test_keeps_hold_stacks_outposts_hold_one_card():
    """Ruling: territories 0-2 are keeps and may hold stacks; 3-5 are outposts of one soldier."""
    state = build_state(["2C", "3C", "4C", "5C", "6C", "7C"], drawn="9D")
    # A drawn soldier stacks only in the keeps; there is no action to stack in an outpost.
    assert [a for a in legal(state) if A.decode(a).kind is Kind.STACK] == [
        A.STACK[0], A.STACK[1], A.STACK[2]]
    for t in (3, 4, 5):
        with pytest.raises(ValueError):
            A.encode(Action(Kind.STACK, t))
    play(state, A.STACK[2])
    assert board(state)[2] == "4C+9D" and state.unit_kind[2] == SUPER
    # Merges land only on keeps: two outpost soldiers cannot merge, onto each other or at all.
    outposts_only = build_state({3: "5H", 4: "6H", 5: "7H"})
    assert legal(outposts_only) == [A.DRAW]
    for j, i in ((4, 3), (3, 5), (5, 4)):
        with pytest.raises(ValueError):
            A.encode(Action(Kind.MERGE, j, i))
    # ... but an outpost soldier merges onto a keep's soldier, leaving the outpost empty.
    state = build_state({0: "2H", 3: "5H"})
    play(state, A.MERGE[3, 0])
    assert board(state)[:4] == ["2H+5H", "", "", ""]


def test_setup_stacked_deck_deals_soldiers_in_order_faces_to_bottom():
    """Ruling: deal from the top, soldiers into 0..5 in order; faces met go back into the deck
    (a stacked deck puts them at the bottom, in the order met)."""
    top = ["KH", "5C", "JS", "QD", "7H", "2D", "AS", "KC", "9S", "10D", "3H", "4S"]
    state = rules.new_game(SoloConfig(), 0, deck=top)
    assert board(state) == ["5C", "7H", "2D", "AS", "9S", "10D"]
    assert all(kind == SOLDIER for kind in state.unit_kind)
    order = deck_top_first(state)
    assert len(order) == 46 and order[:2] == cs("3H", "4S")
    assert order[-4:] == cs("KH", "JS", "QD", "KC")
    assert state.discard == [] and state.draws == 0 and state.drawn == -1
    assert state.phase == ORGANIZE  # six soldiers: merges are possible before the first draw
    assert_conserved(state)
    play(state, A.DRAW)
    assert state.drawn == c("3H") and state.draws == 1

    # A full 52-card order is dealt exactly as written too.
    full = [c("QH"), c("3D")] + [card for card in range(NUM_CARDS) if card not in cs("QH", "3D")]
    state = rules.new_game(SoloConfig(), 1, deck=full)
    soldiers = [card for card in full if rules.IS_SOLDIER[card]][:6]
    assert [state.unit_cards[t] for t in range(6)] == [(card,) for card in soldiers]
    assert deck_top_first(state)[-1] == c("QH")


@pytest.mark.parametrize("seed", range(8))
def test_setup_shuffled_deck_six_soldiers_faces_back_in_the_deck(seed):
    """Ruling: setup shuffles, deals one soldier to each territory; faces go back in the deck."""
    state = rules.new_game(SoloConfig(), seed)
    assert all(kind == SOLDIER for kind in state.unit_kind)
    assert all(len(cards) == 1 and rules.IS_SOLDIER[cards[0]] for cards in state.unit_cards)
    assert len(state.deck) == 46 and state.discard == []
    faces = [card for card in range(NUM_CARDS) if rules.IS_FACE[card]]
    assert set(faces) <= set(state.deck)
    assert_conserved(state)
    # Same seed, same deal; the deal is a deterministic function of the rng.
    assert rules.new_game(SoloConfig(), seed) == state


def test_base_is_founded_in_any_empty_territory_keep_or_outpost():
    """Ruling: a base is one card laid in one empty territory of the player's choice."""
    state = build_state(["5H", "X:QC+7D+JC+8D", "", "6H", "", ""], drawn="KS")
    found = [a for a in legal(state) if A.decode(a).kind is Kind.FOUND]
    assert found == [A.FOUND[1, 1], A.FOUND[1, 2], A.FOUND[1, 4], A.FOUND[1, 5]]
    assert_illegal(state, A.FOUND[1, 0])  # occupied keep
    assert_illegal(state, A.FOUND[1, 3])  # occupied outpost
    for t in (1, 2, 4, 5):  # keeps and outposts alike: the base is one card
        probe = state.clone()
        play(probe, A.FOUND[1, t])
        assert probe.unit_kind[t] == BASE and probe.unit_cards[t] == (c("KS"),)
        assert probe.unit_kind[1] == (BASE if t == 1 else EMPTY)
        assert probe.num_bases() == 1


# =========================================================================== Units (the table)


def test_unit_soldier_takes_a_drawn_soldier_only_in_a_keep():
    """Table, soldier: 1 soldier, anywhere, its value; receives a drawn soldier only in a keep."""
    state = build_state({0: "4C", 3: "7C"}, drawn="4D")
    assert rules.unit_value(state, 0) == 4 and rules.unit_value(state, 3) == 7
    assert A.STACK[0] in legal(state)
    assert A.RECRUIT[0] not in legal(state) and A.RECRUIT[3] not in legal(state)
    assert_illegal(state, A.RECRUIT[3])
    play(state, A.STACK[0])
    assert state.unit_kind[0] == SUPER and board(state)[0] == "4C+4D"
    assert rules.unit_value(state, 0) == 8


def test_unit_super_soldier_receives_nothing():
    """Table, super soldier: 2 soldiers in a keep, worth their sum, receives nothing."""
    state = build_state({0: "6C+7D", 1: "2C"}, drawn="3D")
    assert rules.unit_value(state, 0) == 13
    assert legal(state) == sorted(
        [A.PLACE[2], A.PLACE[3], A.PLACE[4], A.PLACE[5], A.STACK[1], A.DISCARD])
    assert_illegal(state, A.STACK[0])
    assert_illegal(state, A.RECRUIT[0])


def test_unit_battalion_receives_nothing_and_is_promotable():
    """Table, battalion: 2 supers (4 cards) in a keep, worth their sum; promotable to native."""
    state = build_state({2: "AC+2D+3H+4S"}, drawn="5D")
    assert state.unit_kind[2] == BATTALION and rules.unit_value(state, 2) == 10
    assert_illegal(state, A.STACK[2])
    assert_illegal(state, A.RECRUIT[2])
    assert_illegal(state, A.PROMOTE[2])  # a red soldier promotes nothing
    promo = build_state({2: "AC+2D+3H+4S"}, drawn="JC")
    assert A.PROMOTE[2] in legal(promo)


def test_unit_native_takes_one_soldier_or_black_face_recruit():
    """Table, native: promotion-card host (+0/1 recruit) in a keep; host alone or host+recruit;
    one recruit: a soldier or a black J/Q/K."""
    for drawn, ok in (("5D", True), ("AS", True), ("JS", True), ("QC", True), ("KC", True),
                      ("JH", False), ("QD", False), ("KH", False)):
        state = build_state({0: "N:QS"}, drawn=drawn)
        if ok:
            play(state, A.RECRUIT[0])
            assert state.recruit[0] == c(drawn) and state.unit_cards[0] == (c("QS"),)
        else:
            assert_illegal(state, A.RECRUIT[0])
    alone = build_state({0: "N:QS"})
    assert rules.unit_value(alone, 0) == 12
    with_recruit = build_state({0: "N:QS+7D"}, drawn="2D")
    assert rules.unit_value(with_recruit, 0) == 19
    assert rules.unit_value(with_recruit, 0, recruit_only=True) == 7
    assert_illegal(with_recruit, A.RECRUIT[0])  # one recruit only
    assert_illegal(with_recruit, A.STACK[0])


def test_unit_base_builder_is_worth_its_four_cards_and_receives_nothing():
    """Table, base builder: 2 natives with recruits (4 cards), worth their sum; receives nothing;
    promotable to base."""
    state = build_state({0: "X:QC+7D+JC+8D"}, drawn="9H")
    assert state.unit_kind[0] == BUILDER and rules.unit_value(state, 0) == 12 + 7 + 11 + 8
    assert_illegal(state, A.STACK[0])
    assert_illegal(state, A.RECRUIT[0])
    black = build_state({0: "X:QC+7D+JC+8D"}, drawn="AS")
    assert A.FOUND[0, 0] in legal(black)


def test_unit_base_takes_any_one_recruit_and_beats_anything():
    """Table, base: 1 face-down promotion card (+0/1 recruit) anywhere; beats anything; one
    recruit of any card."""
    for drawn in ("5D", "AS", "JH", "QD", "KS"):
        state = build_state({4: "B:AC"}, drawn=drawn)
        play(state, A.RECRUIT[4])
        assert state.recruit[4] == c(drawn) and state.unit_kind[4] == BASE
        assert rules.unit_value(state, 4) == BASE_VALUE
        full = build_state({4: "B:AC+" + drawn}, drawn="KH")
        assert_illegal(full, A.RECRUIT[4])  # one recruit only
    assert BASE_VALUE > 4 * 13 + 13  # more than any unit or any King sum


# =========================================================================== A turn: organize


def test_organize_merges_every_kind_result_stands_at_the_keep():
    """Ruling 1: soldier+soldier -> super, super+super -> battalion, native-with-recruit x2 ->
    base builder; the result stands at keep i, j is freed, nothing else moves."""
    others = {1: "N:KS", 5: "B:AC"}
    cases = [
        ({0: "2H", 4: "3H"}, (4, 0), SUPER, "2H+3H"),
        ({0: "2H", 2: "3H"}, (2, 0), SUPER, "2H+3H"),
        ({2: "2H+3H", 0: "4H+5H"}, (0, 2), BATTALION, "2H+3H+4H+5H"),
        ({0: "N:QC+7D", 2: "N:JC+8D"}, (2, 0), BUILDER, "X:QC+7D+JC+8D"),
    ]
    for units, (j, i), kind, text in cases:
        layout = dict(others)
        if 1 in units:
            del layout[1]
        layout.update(units)
        state = build_state(layout, deck=["9S"])
        before = board(state)
        play(state, A.MERGE[j, i])
        after = board(state)
        assert state.unit_kind[i] == kind and after[i] == text
        assert state.unit_kind[j] == EMPTY and state.recruit[j] == -1
        assert [after[t] for t in range(6) if t not in (i, j)] == [
            before[t] for t in range(6) if t not in (i, j)]
        # No merge remains, so the turn's card is drawn at once.
        assert state.phase == REACT and state.drawn == c("9S")


def test_organize_any_number_of_merges_then_draw():
    """Ruling 1: free merges, any number and in any order, then the draw."""
    state = build_state({0: "2H", 1: "3H", 3: "4H", 4: "5H"}, deck=["9S"])
    play(state, A.MERGE[3, 0])
    assert state.phase == ORGANIZE  # more merges possible: still organizing
    play(state, A.MERGE[4, 1])
    assert state.phase == ORGANIZE
    play(state, A.MERGE[1, 0])
    assert board(state)[:5] == ["2H+4H+3H+5H", "", "", "", ""]
    assert state.phase == REACT and state.drawn == c("9S")
    # DRAW ends organizing early, whatever merges remain.
    state = build_state({0: "2H", 1: "3H"}, deck=["9S"])
    play(state, A.DRAW)
    assert state.drawn == c("9S") and board(state)[:2] == ["2H", "3H"]


def test_organize_illegal_merges():
    """Ruling 1: kinds must match, the target must be a keep, natives need their recruits."""
    illegal = [
        ({0: "2H+3H", 1: "4H"}, (1, 0)),  # soldier onto super
        ({0: "2H", 1: "4H+5H"}, (1, 0)),  # super onto soldier
        ({0: "2H+3H+4H+5H", 1: "6H+7H+8H+9H"}, (1, 0)),  # battalion + battalion
        ({0: "N:QC", 1: "N:JC"}, (1, 0)),  # natives without recruits
        ({0: "N:QC+7D", 1: "N:JC"}, (1, 0)),  # one native without its recruit
        ({0: "N:QC", 1: "N:JC+8D"}, (1, 0)),
        ({0: "X:QC+7D+JC+8D", 1: "X:KC+9D+AS+10D"}, (1, 0)),  # builder + builder
        ({0: "B:AC", 3: "B:AS"}, (3, 0)),  # base + base
        ({0: "N:QC+7D", 1: "2H"}, (1, 0)),  # soldier onto native
        ({0: "2H"}, (3, 0)),  # nothing to merge from
        ({0: "", 3: "2H"}, (3, 0)),  # nothing to merge onto
    ]
    for units, (j, i) in illegal:
        state = build_state(units, deck=["9S"])
        assert legal(state) == [A.DRAW], units
        assert_illegal(state, A.MERGE[j, i])
    # Merges belong to the organize phase: not while reacting to a drawn card.
    state = build_state({0: "2H", 1: "3H"}, drawn="4D")
    assert_illegal(state, A.MERGE[1, 0])


def test_merge_in_battle_flag_off_by_default():
    """Ruling 1, flag merge_in_battle=False: no merges while a battle waits."""
    assert SoloConfig().merge_in_battle is False
    for phase, enemies in ((SEND, ["9D"]), (KING_MODE, ["9D"])):
        attacker = "QD" if phase == SEND else "KD"
        state = battle_state({0: "2H", 1: "3H", 3: "4H"}, attacker, ["8D"], enemies, phase)
        assert not any(A.decode(a).kind is Kind.MERGE for a in legal(state))
        assert_illegal(state, A.MERGE[1, 0])


def test_merge_in_battle_flag_on():
    """Ruling 1, flag merge_in_battle=True: merges are allowed while a battle waits for a unit
    (or a King mode); the battle continues (no draw)."""
    state = battle_state({0: "2H", 1: "7H", 3: "4H"}, "QD", ["8D"], ["9D"], merge_in_battle=True)
    assert A.MERGE[1, 0] in legal(state) and A.MERGE[3, 0] in legal(state)
    play(state, A.MERGE[1, 0])
    assert state.phase == SEND and state.enemies == [c("9D")] and state.drawn == -1
    assert board(state)[0] == "2H+7H"
    play(state, A.SEND[0])  # 9 >= 9: the merged unit wins the battle
    assert state.attacker == -1 and c("QD") in state.discard
    king = battle_state({0: "2H", 1: "7H"}, "KD", ["8D"], ["9D"], KING_MODE,
                        merge_in_battle=True)
    assert legal(king) == [A.MERGE[1, 0], A.MERGE[0, 1], A.SUM_ACTION, A.SPLIT_ACTION]
    play(king, A.MERGE[1, 0])
    assert king.phase == KING_MODE and legal(king) == [A.SUM_ACTION]  # one unit: no SPLIT
    # Reacting to a drawn card is not a battle: still no merges there.
    react = build_state({0: "2H", 1: "3H"}, drawn="4D", merge_in_battle=True)
    assert_illegal(react, A.MERGE[1, 0])


# =========================================================================== A turn: draw


def test_draw_reshuffles_the_discard_pile_into_an_empty_deck():
    """Ruling 2: if the deck is empty, shuffle the discard pile into a new deck."""
    pile = cs("2D", "3D", "4D", "5D", "6D", "7D")
    state = build_state({0: "2H", 1: "3H"}, discard=["2D", "3D", "4D", "5D", "6D", "7D"],
                        rest=None)
    assert state.deck == []
    twin = state.clone()
    play(state, A.DRAW, rng=np.random.default_rng(7))
    assert state.drawn in pile and state.draws == 1
    assert state.discard == [] and sorted(state.deck + [state.drawn]) == sorted(pile)
    play(twin, A.DRAW, rng=np.random.default_rng(7))
    assert twin == state  # the reshuffle draws only from the rng it is given


def test_draw_with_deck_and_discard_empty_truncates():
    """Ruling 2: if both the deck and the discard pile are empty, the episode is truncated."""
    state = build_state({0: "2H", 1: "3H"}, rest=None)
    reward = play(state, A.DRAW)[0]
    assert reward == 0.0
    assert state.outcome == TRUNCATED and state.phase == OVER and legal(state) == []
    assert rules.returns(state) == 0.0 and rules.is_terminal(state)


# =========================================================================== A turn: react


def test_react_to_a_soldier_place_stack_recruit_or_discard():
    """Ruling 3, soldier: place in an empty territory; stack on a lone keep soldier; recruit onto
    a native/base without one; or discard."""
    layout = ["2C", "N:QS", "3C+4C", "", "B:KC+6D", "B:AC"]
    state = build_state(layout, drawn="7D", deck=["9S"])
    assert legal(state) == sorted(
        [A.PLACE[3], A.STACK[0], A.RECRUIT[1], A.RECRUIT[5], A.DISCARD])
    outcomes = {
        A.PLACE[3]: (3, "7D"),
        A.STACK[0]: (0, "2C+7D"),
        A.RECRUIT[1]: (1, "N:QS+7D"),
        A.RECRUIT[5]: (5, "B:AC+7D"),
    }
    for action, (t, text) in outcomes.items():
        probe = state.clone()
        play(probe, action)
        after = board(probe)
        assert after[t] == text
        assert [after[u] for u in range(6) if u != t] == [layout[u] for u in range(6) if u != t]
        assert c("7D") not in probe.discard
    play(state, A.DISCARD)
    assert state.discard[-1] == c("7D") and board(state) == layout
    assert state.drawn == c("9S")  # the next turn began
    # Not for a soldier: occupied places, supers, fighting, promoting.
    state = build_state(layout, drawn="7D")
    for action in (A.PLACE[0], A.PLACE[4], A.STACK[2], A.FIGHT, A.PROMOTE[0]):
        assert_illegal(state, action)


def test_react_to_a_promotion_card_promote_found_or_recruit():
    """Ruling 3, promotion card outside battle: promote a battalion into a native (its 4 soldiers
    to the discard); found a base from a builder (4 cards to the discard, keep freed, any empty
    territory or the keep itself); or recruit it (black J/Q/K onto native/base, black A as a
    soldier)."""
    layout = ["2H+3H+4H+5H", "X:QC+7D+JC+8D", "N:KC", "", "B:AS", "6D"]
    state = build_state(layout, drawn="QS", deck=["9S"])
    assert legal(state) == sorted([A.PROMOTE[0], A.FOUND[1, 1], A.FOUND[1, 3], A.RECRUIT[2],
                                   A.RECRUIT[4], A.FIGHT])

    promote = state.clone()
    play(promote, A.PROMOTE[0])
    assert board(promote)[0] == "N:QS" and promote.unit_kind[0] == NATIVE
    assert promote.discard[-4:] == cs("2H", "3H", "4H", "5H")
    assert board(promote)[1:] == layout[1:]

    for t in (1, 3):
        found = state.clone()
        play(found, A.FOUND[1, t])
        assert found.unit_kind[t] == BASE and found.unit_cards[t] == (c("QS"),)
        assert found.discard[-4:] == cs("QC", "7D", "JC", "8D")
        assert found.num_bases() == 2 and found.outcome == ONGOING
        if t != 1:
            assert found.unit_kind[1] == EMPTY

    recruit = state.clone()
    play(recruit, A.RECRUIT[2])
    assert board(recruit)[2] == "N:KC+QS"

    # A black ace is a promotion card and a soldier: every soldier move, and no fight.
    ace = build_state(layout, drawn="AC")
    assert legal(ace) == sorted([A.PLACE[3], A.RECRUIT[2], A.RECRUIT[4], A.DISCARD,
                                 A.PROMOTE[0], A.FOUND[1, 1], A.FOUND[1, 3]])


def test_react_to_a_face_card_recruit_onto_a_base_else_fight():
    """Ruling 3, any face card: recruit it onto a base without a recruit (bases take any card),
    else fight; a face card not used so must be fought."""
    plain = ["2H+3H+4H+5H", "N:KC", "6H", "", "", ""]
    for face in ("JH", "QD", "KH"):  # red faces: no native takes them, nothing promotes
        state = build_state(plain, drawn=face)
        assert legal(state) == [A.FIGHT]
        for action in (A.DISCARD, A.PLACE[3], A.RECRUIT[1], A.PROMOTE[0], A.STACK[2]):
            assert_illegal(state, action)
        with_base = build_state(plain[:5] + ["B:AC"], drawn=face)
        assert legal(with_base) == [A.RECRUIT[5], A.FIGHT]
        play(with_base, A.RECRUIT[5])
        assert board(with_base)[5] == "B:AC+" + face
        busy_base = build_state(plain[:5] + ["B:AC+2D"], drawn=face)
        assert legal(busy_base) == [A.FIGHT]
    black = build_state(plain, drawn="JS")  # a black face may go to the native or fight
    assert legal(black) == [A.RECRUIT[1], A.PROMOTE[0], A.FIGHT]
    play(black, A.FIGHT)
    assert black.attacker == c("JS") and black.phase == SEND


# =========================================================================== Battles


def test_sent_units_and_enemies_are_discarded_win_or_lose():
    """Ruling 4: every unit sent is discarded with the enemy cards, win or lose."""
    state = build_state({0: "6H+7H", 3: "5H"}, drawn="QD", deck=["9D", "4D", "8S"])
    play(state, A.FIGHT)
    assert state.enemies == [c("9D")] and state.attacker == c("QD")
    play(state, A.SEND[3])  # 5 < 9: round lost
    assert cs("9D", "5H") == state.discard[-2:] and state.sent == []
    assert state.rounds_lost == 1 and state.attacker == c("QD")
    assert state.enemies == [c("4D")] and state.unit_kind[3] == EMPTY
    play(state, A.SEND[0])  # 13 >= 4: battle won
    assert set(cs("9D", "5H", "4D", "6H", "7H", "QD")) == set(state.discard)
    assert state.attacker == -1 and state.enemies == [] and state.sent == []
    assert state.unit_kind[0] == EMPTY and state.rounds_lost == 0
    assert_conserved(state)


def test_host_never_fights_alone_while_it_has_a_recruit():
    """Ruling 4: a native or base with a recruit sends the recruit alone, or host and recruit
    together; never the host alone."""
    state = battle_state({1: "N:QS+2D", 3: "5H"}, "QD", ["8D", "KC"], ["KD"])
    assert legal(state) == [A.SEND[1], A.SEND[3], A.SEND_RECRUIT[1]]
    both = state.clone()
    play(both, A.SEND[1])  # 12 + 2 >= 13: host and recruit went together and won
    assert both.unit_kind[1] == EMPTY and both.recruit[1] == -1
    assert set(cs("QS", "2D", "KD", "QD")) <= set(both.discard) and both.attacker == -1

    play(state, A.SEND_RECRUIT[1])  # only the 2 goes: round lost
    assert board(state)[1] == "N:QS" and state.discard[-2:] == cs("KD", "2D")
    assert state.enemies == [c("8D")]
    # Without its recruit the host may now fight alone.
    assert legal(state) == [A.SEND[1], A.SEND[3]]
    assert_illegal(state, A.SEND_RECRUIT[1])
    play(state, A.SEND[1])
    assert state.attacker == -1 and c("QS") in state.discard

    base = battle_state({4: "B:AC+5D", 3: "5H"}, "QD", ["8D"], ["KD"])
    assert legal(base) == [A.SEND[3], A.SEND[4], A.SEND_RECRUIT[4]]
    recruit_only = base.clone()
    play(recruit_only, A.SEND_RECRUIT[4])  # the recruit alone is worth 5: round lost
    assert recruit_only.rounds_lost == 1 and board(recruit_only)[4] == "B:AC"
    play(base, A.SEND[4])  # base and recruit together: won
    assert base.attacker == -1 and set(cs("AC", "5D")) <= set(base.discard)
    assert base.num_bases() == 0


def test_a_base_wins_any_round_it_is_sent_to():
    """Ruling 4: a base (alone or with its recruit) wins any round it is sent to."""
    queen = battle_state({3: "B:AC"}, "QD", ["8D"], ["KD"])
    play(queen, A.SEND[3])
    assert queen.attacker == -1 and queen.outcome == ONGOING and c("AC") in queen.discard
    king_sum = battle_state({3: "B:AC+2D", 4: "3H"}, "KD", ["QH", "8D"], ["KH"], KING_MODE)
    play(king_sum, A.SUM_ACTION, A.SEND[3])  # 13 + 12 = 25
    assert king_sum.attacker == -1 and king_sum.num_bases() == 0
    king_split = battle_state({1: "N:KC", 3: "B:AC"}, "KD", ["QH", "8D"], ["KH"], KING_MODE)
    play(king_split, A.SPLIT_ACTION, A.SEND[3], A.SEND[1])  # base beats K, 13 beats Q
    assert king_split.attacker == -1 and king_split.outcome == ONGOING


def test_lost_the_moment_a_unit_must_be_sent_and_none_is_left():
    """Ruling 4: the game is lost the moment a unit must be sent and none is left."""
    for face in ("JH", "QH", "KH"):
        state = build_state({}, drawn=face, deck=["9S", "8S"])
        assert legal(state) == [A.FIGHT]
        assert play(state, A.FIGHT) == [-1.0]
        assert state.outcome == LOST and state.phase == OVER and legal(state) == []
        assert rules.returns(state) == -1.0
        with pytest.raises(IllegalActionError):
            rules.apply_action(state, A.DRAW, 0)
    # King SUM: the only unit loses the round; the next round has no unit to send.
    state = battle_state({0: "2H"}, "KD", ["9S", "8S", "7S"], ["3D"], KING_MODE)
    assert play(state, A.SUM_ACTION, A.SEND[0]) == [0.0, -1.0]
    assert state.outcome == LOST


def test_jack_any_one_unit_wins():
    """Ruling 4, Jack: send any one unit; the battle is won (no enemy is revealed)."""
    state = build_state({0: "10H+9H+8H+7H", 3: "AH"}, drawn="JD", deck=["KS", "9S"])
    play(state, A.FIGHT)
    assert state.phase == SEND and state.enemies == [] and state.draws == 0
    assert deck_top_first(state)[0] == c("KS")
    assert legal(state) == [A.SEND[0], A.SEND[3]]
    play(state, A.SEND[3])  # an ace, worth 1, beats the Jack
    assert state.attacker == -1 and state.discard == cs("AH", "JD")
    assert board(state)[0] == "10H+9H+8H+7H" and state.drawn == c("KS")


def test_queen_reveals_an_enemy_then_a_unit_until_won():
    """Ruling 4, Queen: reveal the next card, then choose a unit; value >= enemy wins, otherwise
    the round is lost and a new enemy is revealed, until won or lost."""
    state = build_state({0: "2H", 1: "3H+4H", 3: "5H"}, drawn="QC", deck=["6D", "5D", "8S"],
                        draws=4)
    play(state, A.FIGHT)
    assert state.phase == SEND and state.enemies == [c("6D")] and state.draws == 5
    assert rules.enemy_target(state) == 6
    play(state, A.SEND[3])  # 5 < 6
    assert state.rounds_lost == 1 and state.enemies == [c("5D")] and state.draws == 6
    play(state, A.SEND[0])  # 2 < 5
    assert state.rounds_lost == 2 and state.enemies == [c("8S")]
    play(state, A.SEND[1])  # 7 < 8
    assert state.outcome == LOST
    # With a 5 instead of the 2 the second round is a tie, and a tie wins.
    state = build_state({0: "5C", 1: "3H+4H", 3: "5H"}, drawn="QC", deck=["6D", "5D", "8S"])
    play(state, A.FIGHT, A.SEND[3], A.SEND[0])
    assert state.attacker == -1 and state.outcome == ONGOING and board(state)[1] == "3H+4H"


def test_king_rounds_sum_or_split_chosen_before_the_second_enemy():
    """Ruling 4, King: reveal the first enemy; choose SUM or SPLIT before the second is revealed;
    SUM: one unit reaches the sum; SPLIT (needs 2+ units): one unit per enemy, in order; both
    beaten wins, otherwise a new two-enemy round with its own choice."""
    layout = {0: "2H+3H+4H+5H", 3: "10H", 4: "4C"}
    state = build_state(layout, drawn="KD", deck=["9C", "3C", "7S", "2S", "8S"])
    play(state, A.FIGHT)
    assert state.phase == KING_MODE and state.enemies == [c("9C")]
    assert deck_top_first(state)[0] == c("3C")  # the second enemy is not revealed yet
    assert legal(state) == [A.SUM_ACTION, A.SPLIT_ACTION]

    in_order = state.clone()
    play(in_order, A.SPLIT_ACTION)
    assert in_order.enemies == cs("9C", "3C") and in_order.mode == SPLIT
    assert rules.enemy_target(in_order) == 9
    play(in_order, A.SEND[3])  # 10 >= 9
    assert in_order.phase == SEND and rules.enemy_target(in_order) == 3
    play(in_order, A.SEND[4])  # 4 >= 3: both beaten
    assert in_order.attacker == -1 and board(in_order)[0] == "2H+3H+4H+5H"

    wrong_order = state.clone()
    play(wrong_order, A.SPLIT_ACTION, A.SEND[4])  # 4 < 9: the first enemy stands ...
    assert wrong_order.phase == SEND  # ... but the second enemy is still fought
    play(wrong_order, A.SEND[3])  # 10 >= 3, yet the round is lost
    assert wrong_order.rounds_lost == 1 and wrong_order.phase == KING_MODE
    assert wrong_order.enemies == [c("7S")] and wrong_order.mode != SPLIT
    assert legal(wrong_order) == [A.SUM_ACTION]  # one unit left: SPLIT is not offered
    assert_illegal(wrong_order, A.SPLIT_ACTION)
    play(wrong_order, A.SUM_ACTION)
    assert wrong_order.enemies == cs("7S", "2S") and rules.enemy_target(wrong_order) == 9
    play(wrong_order, A.SEND[0])  # 14 >= 9
    assert wrong_order.attacker == -1 and wrong_order.outcome == ONGOING

    total = state.clone()
    play(total, A.SUM_ACTION)
    assert total.mode == SUM and rules.enemy_target(total) == 12
    play(total, A.SEND[3])  # 10 < 12: round lost, new round
    assert total.phase == KING_MODE and total.enemies == [c("7S")]


def test_cards_revealed_as_enemies_are_only_enemies():
    """Ruling 4: a face card revealed mid-battle starts no battle, is not recruited, promotes
    nothing."""
    layout = {0: "2H+3H+4H+5H", 1: "N:QC", 5: "B:AC"}
    state = build_state(layout, drawn="QD", deck=["KS", "JC", "9S"])
    play(state, A.FIGHT)
    assert state.enemies == [c("KS")] and state.attacker == c("QD") and state.drawn == -1
    assert legal(state) == [A.SEND[0], A.SEND[1], A.SEND[5]]
    play(state, A.SEND[1])  # 12 < 13: lost round; the next enemy is a Jack, just an 11
    assert state.enemies == [c("JC")] and state.attacker == c("QD")
    assert legal(state) == [A.SEND[0], A.SEND[5]]
    play(state, A.SEND[0])  # 14 >= 11
    assert state.attacker == -1 and set(cs("KS", "JC", "QD")) <= set(state.discard)
    assert board(state)[5] == "B:AC" and state.drawn == c("9S")


def test_won_the_moment_three_bases_stand():
    """Ruling 5: the game is won the moment three bases stand (+1)."""
    two = build_state({0: "X:QC+7D+JC+8D", 3: "B:AC"}, drawn="KS")
    assert play(two, A.FOUND[0, 4]) == [0.0]  # the second base: the game goes on
    assert two.outcome == ONGOING and two.num_bases() == 2 and two.phase != OVER
    three = build_state({0: "X:QC+7D+JC+8D", 3: "B:AC", 4: "B:AS"}, drawn="KS")
    assert play(three, A.FOUND[0, 0]) == [1.0]
    assert three.outcome == WON and three.phase == OVER and three.num_bases() == 3
    assert legal(three) == [] and rules.is_terminal(three) and rules.returns(three) == 1.0
    with pytest.raises(IllegalActionError):
        rules.apply_action(three, A.DRAW, 0)


# =========================================================================== Winnability


def test_winnable_from_the_opening_deal_with_favourable_cards():
    """Winnability: from the opening board (six soldiers) some sequence of draws and choices
    wins. The search below drives the engine over board shapes, assuming favourable cards."""
    start = tuple((SOLDIER, False) for _ in range(6))
    assert _search_shapes(start, protected=(), stop_at_win=True).won


# =========================================================================== Episode


def test_rewards_and_length_limit_default():
    """Episode: +1 win, -1 loss, 0 otherwise; length_limit defaults to 1000."""
    assert SoloConfig().length_limit == 1000
    state = build_state({0: "2H"}, drawn="5D")
    assert play(state, A.DISCARD) == [0.0] and rules.returns(state) == 0.0
    # (win: test_won_the_moment_three_bases_stand; loss: test_lost_the_moment_...)


def test_truncation_after_length_limit_draws():
    """Episode: truncated when a card must be drawn after length_limit draws (enemies count)."""
    state = build_state({3: "2H"}, deck=["3D", "4D", "5D", "6D"], length_limit=3)
    play(state, A.DRAW, A.DISCARD, A.DISCARD)
    assert state.draws == 3 and state.drawn == c("5D") and state.outcome == ONGOING
    assert play(state, A.DISCARD) == [0.0]
    assert state.outcome == TRUNCATED and state.phase == OVER and legal(state) == []
    assert deck_top_first(state)[0] == c("6D")
    # An enemy revealed in battle is a draw too.
    queen = build_state({3: "2H"}, drawn="QD", deck=["3D"], draws=3, length_limit=3)
    assert play(queen, A.FIGHT) == [0.0]
    assert queen.outcome == TRUNCATED and queen.enemies == []


def _shaping_script(config: SoloConfig) -> list[float]:
    """Stack, merge, promote, merge natives, found the third base: the five shaped formations."""
    state = build_state(
        {0: "2H", 1: "3H+4H", 2: "N:JC+9D", 3: "B:AC", 4: "B:AS"},
        drawn="5H", deck=["QC", "10D", "KS"], config=config,
    )
    return play(
        state,
        A.STACK[0],  # super soldier
        A.MERGE[1, 0],  # battalion
        A.PROMOTE[0],  # native (QC)
        A.RECRUIT[0],  # 10D
        A.MERGE[2, 0],  # base builder
        A.FOUND[0, 5],  # base: the third, a win
    )


def test_shaped_rewards_values_and_unshaped_default():
    """Episode flag shaping=0.0: no shaping by default; at shaping=1.0, the documented values
    for super, battalion, native, builder and base."""
    assert SoloConfig().shaping == 0.0
    assert _shaping_script(SoloConfig()) == [0.0, 0.0, 0.0, 0.0, 0.0, 1.0]
    s, b, n, x, base = DEFAULT_SHAPING_VALUES
    assert DEFAULT_SHAPING_VALUES == (0.01, 0.02, 0.04, 0.06, 0.10)
    rewards = _shaping_script(SoloConfig(shaping=1.0))
    assert rewards == pytest.approx([s, b, n, 0.0, x, 1.0 + base])
    custom = SoloConfig(shaping=1.0, shaping_values=(0.03, 0.05, 0.07, 0.11, 0.13))
    assert _shaping_script(custom) == pytest.approx([0.03, 0.05, 0.07, 0.0, 0.11, 1.13])


def test_shaped_rewards_stop_at_the_episode_cap():
    """Episode: the sum of shaping over an episode stays well below the win reward (a cap)."""
    config = SoloConfig(shaping=1.0, shaping_cap=0.05)
    rewards = _shaping_script(config)
    assert rewards == pytest.approx([0.01, 0.02, 0.02, 0.0, 0.0, 1.0])  # native: 0.02 of 0.04
    assert sum(rewards) - 1.0 == pytest.approx(0.05)
    assert SoloConfig().shaping_cap == 0.5 < 1.0
    with pytest.raises(ValueError):
        SoloConfig(shaping_cap=1.0)


def test_everything_the_player_could_know_is_observable():
    """Episode: the board, the drawn card, the battle and the discard pile are observed."""
    from empire_envs.games.solo.observe import observe

    base = battle_state({0: "2H", 3: "5H"}, "QD", ["8D"], ["9D"], discard=["3S"])
    seen = observe(base)
    variants = [
        battle_state({0: "3H", 3: "5H"}, "QD", ["8D"], ["9D"], discard=["3S"]),  # board
        battle_state({0: "2H", 3: "5H"}, "KD", ["8D"], ["9D"], discard=["3S"]),  # attacker
        battle_state({0: "2H", 3: "5H"}, "QD", ["8D"], ["10D"], discard=["3S"]),  # enemy
        battle_state({0: "2H", 3: "5H"}, "QD", ["8D"], ["9D"], discard=["4S"]),  # discard
        build_state({0: "2H", 3: "5H"}, drawn="QD", deck=["9D", "8D"], discard=["3S"]),  # drawn
    ]
    for variant in variants:
        assert not np.array_equal(observe(variant), seen)


# =========================================================================== The five examples


def test_example_queen_stacked_deck_loses_then_wins_with_a_battalion():
    """Example 1: a queen, then enemies 10 and 9, against {soldier 7, super 3+4}: the 7 loses and
    the 9 is revealed; the super (7) loses again; no unit is left: lost. With a battalion of 12
    instead of the super, the second round is won and the battle ends."""
    state = build_state({0: "3H+4H", 3: "7C"}, deck=["QD", "10D", "9D", "8S"])
    assert legal(state) == [A.DRAW]
    play(state, A.DRAW, A.FIGHT)
    assert state.enemies == [c("10D")]
    play(state, A.SEND[3])
    assert state.rounds_lost == 1 and state.enemies == [c("9D")]
    assert play(state, A.SEND[0]) == [-1.0]
    assert state.outcome == LOST and state.phase == OVER

    state = build_state({0: "2H+3H+3D+4H", 3: "7C"}, deck=["QD", "10D", "9D", "8S"])
    assert rules.unit_value(state, 0) == 12
    play(state, A.DRAW, A.FIGHT, A.SEND[3])
    assert state.enemies == [c("9D")]
    assert play(state, A.SEND[0]) == [0.0]
    assert state.attacker == -1 and state.outcome == ONGOING
    assert set(cs("QD", "10D", "9D", "7C", "2H", "3H", "3D", "4H")) == set(state.discard)
    assert state.drawn == c("8S")  # the battle ended and the next turn began


def test_example_king_sum_6_and_5_beaten_by_a_battalion_of_12_split_needs_two_units():
    """Example 2: King SUM with enemies 6 and 5 beaten by a battalion of value 12; SPLIT needs
    two units."""
    state = build_state({0: "2H+3H+3D+4H"}, deck=["KD", "6C", "5C", "8S"])
    play(state, A.DRAW, A.FIGHT)
    assert state.phase == KING_MODE and state.enemies == [c("6C")]
    assert legal(state) == [A.SUM_ACTION]
    assert_illegal(state, A.SPLIT_ACTION)
    play(state, A.SUM_ACTION)
    assert state.enemies == cs("6C", "5C") and rules.enemy_target(state) == 11
    play(state, A.SEND[0])
    assert state.attacker == -1 and state.outcome == ONGOING and state.drawn == c("8S")
    # With a second unit, SPLIT is offered.
    two = build_state({0: "2H+3H+3D+4H", 3: "AS"}, deck=["KD", "6C", "5C", "8S"])
    play(two, A.DRAW, A.FIGHT)
    assert legal(two) == [A.SUM_ACTION, A.SPLIT_ACTION]


def test_example_black_queen_with_a_battalion_at_keep_1_promote_else_only_fight():
    """Example 3: a black queen drawn with a battalion at keep 1: PROMOTE is legal; with none,
    only FIGHT."""
    state = build_state({0: "9C", 1: "2H+3H+4H+5H", 3: "6H"}, drawn="QS")
    assert legal(state) == [A.PROMOTE[1], A.FIGHT]
    none = build_state({0: "9C", 1: "2H+3H", 3: "6H"}, drawn="QS")
    assert legal(none) == [A.FIGHT]
    assert_illegal(none, A.PROMOTE[1])


def test_example_founding_offers_every_empty_territory_the_builders_keep_included():
    """Example 4: founding a base offers every empty territory, the builder's own keep included."""
    state = build_state({0: "X:QC+7D+JC+8D", 1: "5H", 4: "6H", 5: "B:AS"}, drawn="KS")
    found = [a for a in legal(state) if A.decode(a).kind is Kind.FOUND]
    assert found == [A.FOUND[0, 0], A.FOUND[0, 2], A.FOUND[0, 3]]
    play(state, A.FOUND[0, 0])
    assert board(state)[0] == "B:KS" and state.discard[-4:] == cs("QC", "7D", "JC", "8D")
    # With every other territory taken, the builder's own keep is still offered.
    full = build_state(["X:QC+7D+JC+8D", "2H", "3H", "4H", "5H", "6H"], drawn="KS")
    assert [a for a in legal(full) if A.decode(a).kind is Kind.FOUND] == [A.FOUND[0, 0]]


def test_example_bases_in_outposts_3_and_4_a_third_base_can_be_built():
    """Example 5a: with bases in outposts 3 and 4, a third base can still be built (keeps 0-2
    free): scripted from a stacked deck to the win."""
    state = build_state(
        {3: "B:AC", 4: "B:AS"},
        drawn="2H",
        deck=["3H", "4H", "5H", "KS", "6H", "7H", "8H", "9H", "QS", "10H", "10D", "JS"],
    )
    rewards = play(state, A.PLACE[0], A.STACK[0], A.PLACE[1], A.STACK[1], A.MERGE[1, 0])
    assert board(state)[:3] == ["2H+3H+4H+5H", "", ""] and state.drawn == c("KS")
    play(state, A.PROMOTE[0], A.PLACE[1], A.STACK[1], A.PLACE[2], A.STACK[2])
    # The moment that needs all three keeps: a native and a battalion in the making.
    assert [state.unit_kind[t] for t in (0, 1, 2)] == [NATIVE, SUPER, SUPER]
    rewards += play(state, A.MERGE[2, 1], A.PROMOTE[1], A.RECRUIT[0], A.RECRUIT[1], A.MERGE[1, 0])
    assert board(state)[:3] == ["X:KS+10H+QS+10D", "", ""] and state.drawn == c("JS")
    assert [a for a in legal(state) if A.decode(a).kind is Kind.FOUND] == [
        A.FOUND[0, 0], A.FOUND[0, 1], A.FOUND[0, 2], A.FOUND[0, 5]]
    rewards += play(state, A.FOUND[0, 5])
    assert rewards[-1] == 1.0 and sum(rewards) == 1.0
    assert state.outcome == WON and state.num_bases() == 3
    assert_conserved(state)


def test_example_base_in_keep_0_no_third_base_the_game_goes_on():
    """Example 5b: with a base in keep 0, only two keeps remain and no third base can be built:
    the game goes on, unwinnable (while that base stands).

    Exhaustive over board shapes (kind and recruit of each territory), driving the engine: from
    bases at keep 0 and outpost 3 and everything else empty, every reaction to every kind of
    drawn card (plain soldier, black ace, black face, red face), every merge, and every unit a
    battle could take (except the base in keep 0) is applied; no base builder ever forms and no
    third base is founded. The same search with the bases in outposts 3 and 4 finds the win.
    """
    start = ((BASE, False), (EMPTY, False), (EMPTY, False), (BASE, False), (EMPTY, False),
             (EMPTY, False))
    result = _search_shapes(start, protected=(0,))
    assert not result.won
    assert all(shape[0][0] == BASE for shape in result.shapes)
    assert not any(kind == BUILDER for shape in result.shapes for kind, _ in shape)
    assert max(sum(kind == BASE for kind, _ in shape) for shape in result.shapes) == 2
    assert any(kind == NATIVE for shape in result.shapes for kind, _ in shape)  # not vacuous
    # The game goes on: founding the second base in keep 0 ends nothing.
    state = build_state({0: "X:QC+7D+JC+8D", 3: "B:AC"}, drawn="KS")
    assert play(state, A.FOUND[0, 0]) == [0.0]
    assert state.outcome == ONGOING and state.phase in (ORGANIZE, REACT)
    # The control: with the bases in outposts 3 and 4 the same search wins.
    control = ((EMPTY, False),) * 3 + ((BASE, False), (BASE, False), (EMPTY, False))
    assert _search_shapes(control, protected=(3, 4), stop_at_win=True).won


# --------------------------------------------------------------------------- shape search

Shape = tuple  # six (kind, has_recruit) pairs

# One concrete unit per shape entry (cards may repeat across territories: the engine does not
# care, and only the shape is read back).
_UNIT_TEXT = {
    (EMPTY, False): "",
    (SOLDIER, False): "5D",
    (SUPER, False): "5D+6D",
    (BATTALION, False): "2D+3D+4D+5D",
    (NATIVE, False): "N:QC",
    (NATIVE, True): "N:QC+7D",
    (BUILDER, False): "X:QC+7D+JC+8D",
    (BASE, False): "B:AC",
    (BASE, True): "B:AC+9D",
}
_DRAWS = ("9D", "AS", "KS", "KH")  # soldier, black ace, black face, red face


class _SearchResult:
    def __init__(self) -> None:
        self.shapes: set = set()
        self.won = False


def _shape_of(state: SoloState) -> Shape:
    return tuple((state.unit_kind[t], state.recruit[t] >= 0) for t in range(6))


def _concrete(shape: Shape, phase: int, drawn: int = -1, attacker: int = -1) -> SoloState:
    from .helpers import parse_unit

    state = SoloState(SoloConfig())
    for t, entry in enumerate(shape):
        kind, cards, recruit = parse_unit(_UNIT_TEXT[entry])
        state.unit_kind[t], state.unit_cards[t], state.recruit[t] = kind, cards, recruit
    state.deck = cs("2S", "3S", "4S")
    state.phase, state.drawn, state.attacker = phase, drawn, attacker
    return state


_PROGRESS = {EMPTY: 0, SOLDIER: 1, SUPER: 2, BATTALION: 4, NATIVE: 8, BUILDER: 20, BASE: 40}


def _progress(shape: Shape) -> int:
    return sum(_PROGRESS[kind] + has_recruit for kind, has_recruit in shape)


def _search_shapes(start: Shape, protected=(), stop_at_win=False) -> _SearchResult:
    """Every board shape reachable from ``start`` (best-first, so that a win, if any, is found
    early when ``stop_at_win``); units in ``protected`` territories are never sent to battle."""
    result = _SearchResult()
    result.shapes.add(start)
    frontier = [(-_progress(start), start)]
    while frontier:
        _, shape = heapq.heappop(frontier)
        states = [_concrete(shape, ORGANIZE)]
        states += [_concrete(shape, REACT, drawn=c(card)) for card in _DRAWS]
        states += [_concrete(shape, SEND, attacker=c("JD"))]
        for state in states:
            for action in rules.legal_actions(state):
                kind, a, _ = A.decode(action)
                if kind in (Kind.DRAW, Kind.FIGHT) or (kind is Kind.SEND and a in protected):
                    continue
                child = state.clone()
                rules.apply_action(child, action, 0)
                if child.outcome == WON:
                    result.won = True
                    if stop_at_win:
                        return result
                    continue
                new = _shape_of(child)
                if new not in result.shapes:
                    result.shapes.add(new)
                    heapq.heappush(frontier, (-_progress(new), new))
    return result
