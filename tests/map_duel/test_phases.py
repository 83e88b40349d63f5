"""Map Duel's phases as data (``rules.PHASES``), its action layout declared once
(``actions.blocks``, laid out by ``core.action_table.BlockLayout``) and its state declared once
(``MapDuelState.FIELDS``)."""

from __future__ import annotations

import pickle
import re
from itertools import product
from math import prod

import numpy as np
import pytest

from empire_envs.core.errors import IllegalActionError
from empire_envs.games.map_duel import actions, rules
from empire_envs.games.map_duel.actions import BLOCKS, FIXED_ACTIONS, Action, Kind, layout_for
from empire_envs.games.map_duel.config import MapDuelConfig
from empire_envs.games.map_duel.state import NUM_DECISION_PHASES, MapDuelState, Phase

from .helpers import build_state, face, nums

# --------------------------------------------------------------------------- phases


def test_the_table_has_one_row_per_phase_and_the_decisions_come_first():
    assert len(rules.PHASES) == len(Phase)
    assert [int(phase) for phase in Phase] == list(range(len(Phase)))
    assert Phase.OVER == NUM_DECISION_PHASES == len(Phase) - 1  # the observation's one-hot
    assert Phase.STEP_1.label == "step 1" and Phase.SACRIFICE_MOVE.label == "sacrifice move"


def test_a_finished_game_has_no_actor_no_action_and_refuses_to_play():
    state = build_state(board={(6, 6): "9D", (6, 7): "KH"})
    state.phase = Phase.OVER
    over = rules.PHASES[Phase.OVER]
    assert rules.acting_player(state) == over.actor(state) == -1
    assert rules.legal_actions(state) == over.legal_actions(state) == []
    with pytest.raises(IllegalActionError, match="the game is over"):
        rules.apply_action(state, 0, np.random.default_rng(0))
    with pytest.raises(IllegalActionError, match="the game is over"):
        over.apply(state, 0, np.random.default_rng(0))


VARIANTS = [
    MapDuelConfig(length_limit=30),
    MapDuelConfig(length_limit=30, first_player="random", king_reach="all8", ace_blocking="faces"),
    MapDuelConfig(length_limit=30, board_size=9, sacrifice_exact=True, build_uses_placement_rule=True),
]


@pytest.mark.parametrize("config", VARIANTS)
def test_each_phase_row_answers_for_the_seat_to_act(config):
    """Along random games: the actor of every decision phase is the seat to act; where a phase
    checks one action by itself (``allows``), it agrees with its list of legal actions on
    every action index."""
    rng = np.random.default_rng(11)
    state = rules.new_game(config, rng)
    size = layout_for(config.board_size).size
    checked: set[Phase] = set()
    step = 0
    while not rules.is_terminal(state):
        row = rules.PHASES[state.phase]
        assert rules.acting_player(state) == state.current
        legal = row.legal_actions(state)
        if row.allows is not None and step % 3 == 0:
            allowed = [action for action in range(size) if row.allows(state, action)]
            assert allowed == legal, Phase(state.phase).label
            checked.add(Phase(state.phase))
        rules.apply_action(state, legal[int(rng.integers(len(legal)))], rng)
        step += 1
    assert rules.acting_player(state) == -1
    assert {Phase.SETUP_PLACE, Phase.STEP_1, Phase.STEP_2} <= checked


def test_a_sacrifice_with_two_faces_of_its_suit_asks_which_one_moves():
    """The SACRIFICE_FACE row: its actor, its choices (the faces of the sacrificed suit) and
    its effect (the chosen face becomes the pending one, the swaps begin)."""
    state = build_state(
        board={(6, 6): "9D", (6, 7): "QH", (6, 5): "JH", (5, 6): "4C", (7, 7): "3S"},
        pools={0: ["5H"]},
    )
    lay = layout_for(state.B)
    rules.apply_action(state, rules.pool_action(state, nums(["5H"])[0]), np.random.default_rng(0))
    assert state.phase == Phase.SACRIFICE_FACE and rules.acting_player(state) == 0
    hearts = sorted(face(card)[1] for card in ("QH", "JH"))
    assert rules.legal_actions(state) == [lay.face_index(f) for f in hearts]
    rules.apply_action(state, lay.face_index(face("QH")[1]), np.random.default_rng(0))
    assert state.phase == Phase.SACRIFICE_MOVE and state.pending_face == face("QH")[1]


def test_offset_cell_is_board_geometry():
    """``rules.offset_cell`` (formerly ``rules.step``) moves one unit in absolute rows and columns."""
    state = build_state(board={(6, 6): "9D", (6, 7): "KH"})
    B = state.B
    assert rules.offset_cell(state, 6 * B + 6, -1, 0) == 5 * B + 6
    assert rules.offset_cell(state, 6 * B + 6, 1, 1) == 7 * B + 7
    assert rules.offset_cell(state, 0, -1, 0) == -1 and rules.offset_cell(state, B - 1, 0, 1) == -1
    assert not hasattr(rules, "step")


# --------------------------------------------------------------------------- the action layout


@pytest.mark.parametrize("board_size", [9, 13, 15, 25])
def test_the_blocks_lay_out_every_board(board_size):
    """Each block starts where the one before it ends, its actions in row-major order of its
    arguments; the table has ``B * B + FIXED_ACTIONS`` actions."""
    cells = board_size * board_size
    lay = layout_for(board_size)
    assert lay.size == cells + FIXED_ACTIONS
    assert lay.blocks == actions.blocks(board_size) and lay.shapes[Kind.CELL] == (cells,)
    index = 0
    for block in lay.blocks:
        assert lay.starts[block.kind] == index
        assert lay.block_range(block.kind) == range(index, index + prod(block.shape))
        for arguments in product(*map(range, block.shape)):
            assert lay.index(block.kind, *arguments) == index
            assert lay.decode(index) == Action(block.kind, *arguments)
            index += 1
    assert index == lay.size
    with pytest.raises(ValueError):
        lay.index(BLOCKS[1].kind, 99)


def test_the_docstring_table_is_the_default_layout():
    """Each row of the table in ``actions.__doc__`` (and so in the env docstring and the rules
    page) names a block, its index range and, for two arguments, its index formula."""
    lay = actions.DEFAULT_LAYOUT
    rows = re.findall(r"^(\d+)(?:-(\d+))?\s+([A-Z_0-9]+)(?:\(([a-z, ]+)\))?\s+(.*)$", actions.__doc__, re.MULTILINE)
    assert [row[2] for row in rows] == [block.kind.name for block in BLOCKS]
    for (first, last, name, arguments, meaning), block in zip(rows, BLOCKS, strict=True):
        start = lay.starts[block.kind]
        count = prod(lay.shapes[block.kind])
        assert int(first) == start and int(last or first) == start + count - 1, name
        assert arguments.split(", ") == [argument.name for argument in block.arguments] or not block.arguments
        if len(block.arguments) == 2:
            stride = lay.shapes[block.kind][1]
            formula = re.search(r"\((\d+) \+ (\d+)[a-z] \+ [a-z]\)$", meaning)
            assert formula and (int(formula[1]), int(formula[2])) == (start, stride), name
            assert lay.index(block.kind, 1, 0) == start + stride
    assert f"({lay.size} actions; ``C + {FIXED_ACTIONS}`` in general)" in " ".join(actions.__doc__.split())


# --------------------------------------------------------------------------- the state


def _midgame_state() -> MapDuelState:
    rng = np.random.default_rng(5)
    state = rules.new_game(MapDuelConfig(), rng)
    for _ in range(60):
        legal = rules.legal_actions(state)
        rules.apply_action(state, legal[int(rng.integers(len(legal)))], rng)
    state.acted.add(1)
    state.paid.append(3)
    return state


def test_clone_copies_every_declared_field_and_shares_none_that_changes():
    state = _midgame_state()
    assert tuple(MapDuelState.FIELDS) == MapDuelState.__slots__
    twin = state.clone()
    assert twin == state
    twin.board[0] = 7
    twin.face_pos[1][0] = 3
    twin.face_status[0][0] = 2
    twin.pools[1][5] = 1 - twin.pools[1][5]
    twin.removed_numbers[2] = 1 - twin.removed_numbers[2]
    twin.setup_deck.append(35)
    twin.acted.add(5)
    twin.paid.append(4)
    assert state == _midgame_state(), "a change to the clone reached the original"
    assert twin.config is state.config  # shared, never changed


def test_a_state_pickles_to_an_equal_state():
    state = _midgame_state()
    again = pickle.loads(pickle.dumps(state))
    assert again == state and again is not state
    assert rules.legal_actions(again) == rules.legal_actions(state)
