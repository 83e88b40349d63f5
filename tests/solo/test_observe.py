"""The Empire solo observation: index-table spot checks and no leak of the deck's order.

Indices are written out as the docstring table gives them, so a silent layout change fails here.
"""

from __future__ import annotations

import numpy as np
import pytest

from empire_envs.core.cards import NUM_CARDS
from empire_envs.envs import EmpireSoloEnv
from empire_envs.games.solo import GAME, observe, rules
from empire_envs.games.solo import actions as A
from empire_envs.games.solo.config import SoloConfig
from empire_envs.games.solo.observe import COUNTS, LAYOUT, OBSERVATION_SIZE, TERRITORY, TERRITORY_SIZE
from empire_envs.games.solo.state import (
    BASE,
    BATTALION,
    BUILDER,
    EMPTY,
    KING_MODE,
    NATIVE,
    OVER,
    REACT,
    SEND,
    SOLDIER,
    SPLIT,
    SUM,
    SUPER,
)

from ..doc_tables import index_span, rest_tables
from .helpers import build_state, cs, play


def obs_of(state) -> np.ndarray:
    obs = observe.observe(state)
    assert obs.shape == (OBSERVATION_SIZE,) and obs.dtype == np.float32
    assert obs.min() >= 0.0 and obs.max() <= 1.0
    return obs


def test_sizes_agree():
    assert OBSERVATION_SIZE == LAYOUT.size == 207 == GAME.observation_size(GAME.config_class())
    assert TERRITORY_SIZE == 11
    env = EmpireSoloEnv()
    assert env.observation_space.shape == (OBSERVATION_SIZE,)
    obs, _ = env.reset(seed=3)
    assert env.observation_space.contains(obs)
    env.close()


# --------------------------------------------------------------------------- spot checks


def test_territory_blocks():
    state = build_state(["2H+3H", "N:QS+7D", "X:QC+7C+JC+8D", "5H", "B:AC+KH", ""])
    obs = obs_of(state)
    blocks = [obs[11 * t:11 * t + 11] for t in range(6)]
    expected_kind = [SUPER, NATIVE, BUILDER, SOLDIER, BASE, EMPTY]
    for t, block in enumerate(blocks):
        one_hot = np.zeros(7)
        one_hot[expected_kind[t]] = 1
        assert np.array_equal(block[:7], one_hot), t
    approx = pytest.approx
    assert list(blocks[0][7:]) == approx([5 / 52, 0, 0, 0])  # super 2+3
    assert list(blocks[1][7:]) == approx([19 / 52, 12 / 13, 1, 7 / 13])  # native Q + 7
    assert list(blocks[2][7:]) == approx([38 / 52, 0, 0, 0])  # builder: 4 cards, no host
    assert list(blocks[3][7:]) == approx([5 / 52, 0, 0, 0])  # soldier 5
    assert list(blocks[4][7:]) == approx([1, 1 / 13, 1, 1])  # base beats anything; K recruit
    assert list(blocks[5][7:]) == approx([0, 0, 0, 0])
    # A battalion, a native without recruit, and a base without one.
    state = build_state(["AC+2D+3H+4S", "N:KS", "", "", "", "B:JC"])
    obs = obs_of(state)
    assert obs[0 + BATTALION] == 1 and obs[7] == approx(10 / 52)
    assert obs[11 + NATIVE] == 1 and list(obs[18:22]) == approx([13 / 52, 1, 0, 0])
    assert obs[55 + BASE] == 1 and list(obs[62:66]) == approx([1, 11 / 13, 0, 0])


def test_drawn_card_rank_and_suit():
    obs = obs_of(build_state({0: "2H"}, drawn="10H"))
    assert list(np.flatnonzero(obs[66:79])) == [9] and obs[66 + 9] == 1  # rank 10
    assert list(np.flatnonzero(obs[79:83])) == [2]  # hearts
    obs = obs_of(build_state({0: "2H"}, drawn="AC"))
    assert list(np.flatnonzero(obs[66:79])) == [0] and list(np.flatnonzero(obs[79:83])) == [0]
    obs = obs_of(build_state({0: "2H"}, drawn="KS"))
    assert list(np.flatnonzero(obs[66:79])) == [12] and list(np.flatnonzero(obs[79:83])) == [3]
    obs = obs_of(build_state({0: "2H", 1: "3H"}))  # no drawn card
    assert not obs[66:83].any()


@pytest.mark.parametrize("phase", range(5))
def test_phase_one_hot(phase):
    state = build_state({0: "2H"}, phase=phase)
    obs = obs_of(state)
    assert list(np.flatnonzero(obs[83:88])) == [phase]


def test_battle_fields():
    # Queen, one enemy, two rounds lost.
    state = build_state({0: "2H"}, attacker="QD", enemies=["9C"], phase=SEND, rounds_lost=2)
    obs = obs_of(state)
    assert list(obs[88:91]) == [0, 1, 0]
    assert list(obs[91:95]) == pytest.approx([9 / 13, 1, 0, 0])
    assert list(obs[95:99]) == pytest.approx([0, 0, 0, 2 / 6])
    # King, SPLIT, first enemy fought; many rounds lost (clipped to 1).
    state = build_state({0: "2H", 3: "4H"}, attacker="KD", enemies=["9C", "JC"], phase=SEND,
                        mode=SPLIT, split_first_won=0, rounds_lost=9)
    obs = obs_of(state)
    assert list(obs[88:91]) == [0, 0, 1]
    assert list(obs[91:95]) == pytest.approx([9 / 13, 1, 11 / 13, 1])
    assert list(obs[95:97]) == [0, 1] and obs[97] == 1 and obs[98] == 1
    # SPLIT, first enemy not fought yet: split stage 0.
    state.split_first_won = -1
    assert obs_of(state)[97] == 0
    # King, SUM chosen.
    state = build_state({0: "2H"}, attacker="KD", enemies=["9C", "3C"], phase=SEND, mode=SUM)
    assert list(obs_of(state)[95:98]) == [1, 0, 0]
    # King round before the choice: one enemy, no mode.
    state = build_state({0: "2H"}, attacker="KD", enemies=["9C"], phase=KING_MODE)
    obs = obs_of(state)
    assert list(obs[91:98]) == pytest.approx([9 / 13, 1, 0, 0, 0, 0, 0])
    assert obs[83 + KING_MODE] == 1
    # Jack: attacker only.
    obs = obs_of(build_state({0: "2H"}, attacker="JS", phase=SEND))
    assert list(obs[88:99]) == [1] + [0] * 10
    # No battle: all zero.
    assert not obs_of(build_state({0: "2H"}, drawn="5D"))[88:99].any()


def test_counts():
    state = build_state({3: "B:AC", 4: "B:AS"}, deck=["5D", "6D"], discard=["7D", "8D", "9D"],
                        drawn="2H", rest=None, draws=250)
    obs = obs_of(state)
    assert list(obs[99:103]) == pytest.approx([2 / 52, 3 / 52, 2 / 3, 250 / 1000])
    state = build_state({}, rest="deck", draws=5, length_limit=20)
    assert list(obs_of(state)[99:103]) == pytest.approx([1, 0, 0, 5 / 20])


def test_discard_and_deck_multi_hots():
    state = build_state({0: "2H"}, deck=["5D", "6D"], discard=["7D", "KS"], drawn="QH",
                        rest=None)
    obs = obs_of(state)
    assert sorted(np.flatnonzero(obs[103:155])) == sorted(cs("7D", "KS"))
    assert sorted(np.flatnonzero(obs[155:207])) == sorted(cs("5D", "6D"))
    # In a complete state, board + drawn + battle + discard + deck account for all 52 cards.
    state = build_state(["2H", "N:QS+7D"], attacker="QD", enemies=["9C"], phase=SEND,
                        discard=["3S", "4S"])
    obs = obs_of(state)
    assert obs[103:155].sum() == 2 and obs[155:207].sum() == len(state.deck) == 52 - 7
    assert not (obs[103:155] * obs[155:207]).any()


def test_observation_is_a_fresh_array():
    state = build_state({0: "2H"}, drawn="5D")
    first = observe.observe(state)
    first[:] = 0.5
    assert not np.array_equal(observe.observe(state), first)


# --------------------------------------------------------------------------- docstring tables


def test_docstring_field_table_matches_the_layout():
    fields, _ = rest_tables(observe.__doc__)
    documented = [(row[1], *index_span(row[0])) for row in fields]
    assert documented == LAYOUT.rows()


def test_docstring_counts_row_names_the_counts_in_layout_order():
    fields, _ = rest_tables(observe.__doc__)
    (meaning,) = [row[2] for row in fields if row[1] == "counts"]
    assert [part.split("/")[0].strip() for part in meaning.split(",")] == [name for name, _, _ in COUNTS.rows()]


def test_docstring_territory_table_covers_one_territory():
    _, territory = rest_tables(observe.__doc__)
    spans = [index_span(row[0]) for row in territory]
    assert spans == [(0, 6), (7, 7), (8, 8), (9, 9), (10, 10)]
    assert spans == [(first, last) for _, first, last in TERRITORY.rows()]
    assert spans[-1][1] + 1 == TERRITORY_SIZE
    for t in range(6):
        assert LAYOUT[f"territory {t}"] == slice(TERRITORY_SIZE * t, TERRITORY_SIZE * (t + 1))


# --------------------------------------------------------------------------- no leaks


def _mid_battle_state():
    state = build_state(["2H+3H", "N:QS+7D", "", "5H", "", "B:AC"], drawn="KD",
                        deck=["9C", "3C"], discard=["4S", "JH"])
    play(state, A.FIGHT)
    assert state.phase == KING_MODE
    return state


@pytest.mark.parametrize("make", ["opening", "mid battle", "after reshuffle"])
def test_permuting_the_deck_leaves_the_observation_unchanged(make):
    if make == "opening":
        state = rules.new_game(SoloConfig(), 11)
    elif make == "mid battle":
        state = _mid_battle_state()
    else:
        state = build_state({0: "2H", 1: "3H"}, discard=["4D", "5D", "6D", "7D"], rest=None)
        play(state, A.DRAW, rng=np.random.default_rng(2))
        assert state.phase == REACT and len(state.deck) == 3
    seen = obs_of(state)
    rng = np.random.default_rng(0)
    for _ in range(20):
        shuffled = state.clone()
        shuffled.deck = [state.deck[i] for i in rng.permutation(len(state.deck))]
        assert np.array_equal(obs_of(shuffled), seen)
    reversed_deck = state.clone()
    reversed_deck.deck.reverse()
    assert reversed_deck != state or len(state.deck) < 2
    assert np.array_equal(obs_of(reversed_deck), seen)


def test_moving_a_card_from_deck_to_discard_changes_the_observation():
    state = _mid_battle_state()
    seen = obs_of(state)
    moved = state.clone()
    card = moved.deck.pop(0)  # the bottom card, whichever it is
    moved.discard.append(card)
    obs = obs_of(moved)
    assert not np.array_equal(obs, seen)
    assert obs[155 + card] == 0 and seen[155 + card] == 1
    assert obs[103 + card] == 1 and seen[103 + card] == 0
    # Only the two multi-hot entries and the two counts changed.
    changed = set(np.flatnonzero(obs != seen))
    assert changed == {99, 100, 103 + card, 155 + card}


def test_the_deck_multi_hot_is_the_complement_of_what_is_seen():
    """Everything not on the board, drawn, in battle or discarded is exactly the deck set."""
    state = _mid_battle_state()
    obs = obs_of(state)
    visible = set(state.board_cards()) | set(state.battle_cards()) | set(state.discard)
    assert set(np.flatnonzero(obs[155:207])) == set(range(NUM_CARDS)) - visible
    assert state.phase != OVER and rules.legal_actions(state) == [A.SUM_ACTION, A.SPLIT_ACTION]
