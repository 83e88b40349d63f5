"""The Empire solo action table: round trips, size, named indices, and the docstring table."""

from __future__ import annotations

import itertools

import gymnasium
import pytest

import empire_envs  # noqa: F401  (registers the ids)
from empire_envs.envs import EmpireSoloEnv
from empire_envs.games.solo import GAME
from empire_envs.games.solo import actions as A
from empire_envs.games.solo.actions import Action, Kind
from empire_envs.games.solo.state import KEEPS, NUM_TERRITORIES

from ..doc_tables import action_ranges_in_code, documented_action_ranges, rest_headers


def test_encode_decode_round_trip_for_every_index():
    for index in range(A.NUM_ACTIONS):
        action = A.decode(index)
        assert isinstance(action, Action) and isinstance(action.kind, Kind)
        assert A.encode(action) == index
        assert A.encode(tuple(action)) == index  # a plain tuple works too
        assert A.ACTIONS[index] == action
    assert len(set(A.ACTIONS)) == A.NUM_ACTIONS


def test_action_names_are_unique_and_readable():
    names = [A.action_name(index) for index in range(A.NUM_ACTIONS)]
    assert len(set(names)) == A.NUM_ACTIONS and all(names)
    assert A.action_name(A.DRAW) == "DRAW"
    assert A.action_name(A.MERGE[4, 1]) == "MERGE 4->1"
    assert A.action_name(A.FOUND[0, 3]) == "FOUND keep 0 -> base at 3"
    assert A.action_name(A.STACK[2]) == "STACK keep 2"
    assert A.action_name(A.PROMOTE[1]) == "PROMOTE keep 1"
    assert A.action_name(A.PLACE[5]) == "PLACE 5"
    assert A.action_name(A.SEND_RECRUIT[3]) == "SEND_RECRUIT 3"
    for index in range(A.NUM_ACTIONS):
        assert A.action_name(index).startswith(A.decode(index).kind.name)


def test_table_size_matches_the_action_spaces():
    assert A.NUM_ACTIONS == len(A.ACTIONS) == 68
    assert GAME.num_actions(GAME.config_class()) == A.NUM_ACTIONS
    env = EmpireSoloEnv()
    assert env.action_space.n == A.NUM_ACTIONS
    env.close()
    made = gymnasium.make("empire_envs/EmpireSolo-v0")
    assert made.action_space.n == A.NUM_ACTIONS
    _, info = made.reset(seed=0)
    assert info["action_mask"].shape == (A.NUM_ACTIONS,)
    made.close()


def test_named_indices_decode_to_their_actions():
    assert A.decode(A.DRAW) == Action(Kind.DRAW)
    assert A.decode(A.DISCARD) == Action(Kind.DISCARD)
    assert A.decode(A.FIGHT) == Action(Kind.FIGHT)
    assert A.decode(A.SUM_ACTION) == Action(Kind.SUM)
    assert A.decode(A.SPLIT_ACTION) == Action(Kind.SPLIT)
    for t in range(NUM_TERRITORIES):
        assert A.decode(A.PLACE[t]) == Action(Kind.PLACE, t)
        assert A.decode(A.RECRUIT[t]) == Action(Kind.RECRUIT, t)
        assert A.decode(A.SEND[t]) == Action(Kind.SEND, t)
        assert A.decode(A.SEND_RECRUIT[t]) == Action(Kind.SEND_RECRUIT, t)
    for i in KEEPS:
        assert A.decode(A.STACK[i]) == Action(Kind.STACK, i)
        assert A.decode(A.PROMOTE[i]) == Action(Kind.PROMOTE, i)
        for t in range(NUM_TERRITORIES):
            assert A.decode(A.FOUND[i, t]) == Action(Kind.FOUND, i, t)
            if t != i:
                assert A.decode(A.MERGE[t, i]) == Action(Kind.MERGE, t, i)
    # Every index is named exactly once by the constants.
    named = [A.DRAW, A.DISCARD, A.FIGHT, A.SUM_ACTION, A.SPLIT_ACTION]
    named += list(A.PLACE) + list(A.RECRUIT) + list(A.SEND) + list(A.SEND_RECRUIT)
    for table in (A.MERGE, A.STACK, A.PROMOTE, A.FOUND):
        named += list(table.values())
    assert sorted(named) == list(range(A.NUM_ACTIONS))


def test_merges_are_i_major_and_land_only_on_keeps():
    merges = [A.decode(index) for index in range(A.NUM_ACTIONS)
              if A.decode(index).kind is Kind.MERGE]
    assert [(m.b, m.a) for m in merges] == sorted((m.b, m.a) for m in merges)
    assert {m.b for m in merges} == set(KEEPS) and all(m.a != m.b for m in merges)
    founds = [A.decode(index) for index in range(A.NUM_ACTIONS)
              if A.decode(index).kind is Kind.FOUND]
    assert [(f.a, f.b) for f in founds] == [(i, t) for i in KEEPS for t in range(6)]


@pytest.mark.parametrize("bad", [-1, 68, 1000, True, False])
def test_decode_refuses_out_of_range(bad):
    with pytest.raises(ValueError):
        A.decode(bad)


@pytest.mark.parametrize(
    "bad",
    [
        Action(Kind.MERGE, 0, 0),  # onto itself
        Action(Kind.MERGE, 0, 3),  # onto an outpost
        Action(Kind.STACK, 3),  # stacks only in keeps
        Action(Kind.PROMOTE, 4),
        Action(Kind.FOUND, 3, 0),  # builders stand in keeps
        Action(Kind.PLACE, 6),
        Action(Kind.DRAW, 0),
        (99,),
        ("DRAW",),
    ],
)
def test_encode_refuses_actions_outside_the_table(bad):
    with pytest.raises(ValueError):
        A.encode(bad)


def test_docstring_table_lists_exactly_the_code_index_ranges():
    assert rest_headers(A.__doc__) == [["index", "action", "meaning"]]
    documented = documented_action_ranges(A.__doc__)
    assert documented == action_ranges_in_code(A.ACTIONS)
    # The rows tile 0..NUM_ACTIONS-1 in order, without gaps.
    spans = sorted((first, last) for first, last, _ in documented.values())
    assert spans[0][0] == 0 and spans[-1][1] == A.NUM_ACTIONS - 1
    assert all(prev[1] + 1 == nxt[0] for prev, nxt in itertools.pairwise(spans))
