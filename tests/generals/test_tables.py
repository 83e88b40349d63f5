"""The declarations the Generals rules are built from, held to the code and the docs:

- the phase table (``rules.PHASES``): one entry per ``Phase``, each read in one place, the actor
  of each phase is the one the rules page names, and ``acting_player`` is that actor;
- the states' declared fields (``core.state.DeclaredState``): clone, equality and pickling;
- the action table (``actions.action_blocks``): the docstring's index ranges, its size formula and
  the ATTACK index formula are the table's own;
- the observation layouts: the docstring's tables, sizes and formula, and each named field;
- the card encoding: card types asked through ``CardKind``'s predicates, one list of empires.
"""

from __future__ import annotations

import inspect
import math
import pickle
import random
import re
from pathlib import Path

import numpy as np
import pytest

from empire_envs.agents import generals_heuristic as heuristic
from empire_envs.games.generals import GeneralsConfig, actions, observe, render, rules
from empire_envs.games.generals import state as state_module
from empire_envs.games.generals.actions import SINGLE_ACTIONS, Kind, action_blocks, layout_for
from empire_envs.games.generals.cards import BATTLE_EFFECTS, KNOWN_EMPIRES, default_deck_ids
from empire_envs.games.generals.config import UNIT_SLOTS
from empire_envs.games.generals.state import (
    BF,
    NUM_DECISION_PHASES,
    OVER,
    WC,
    Battle,
    GeneralsState,
    Phase,
    PlayerState,
    Unit,
)

from ..doc_tables import index_span, rest_tables

ROOT = Path(__file__).resolve().parents[2]
#: configs whose random games reach every phase: two Generals allowed (REPLACE_GENERAL), three
#: seats (the Sabotage target is a choice), any unit may attack a Warcamp
EVERY_PHASE_CONFIGS = (
    GeneralsConfig(num_players=3, max_generals=2, warcamp_attacks="any"),
    GeneralsConfig(num_players=2, max_generals=3),
)


def random_states(config: GeneralsConfig, seeds: range):
    """Every decision state of random games (the state is shared: read it before the next one)."""
    for seed in seeds:
        rng = np.random.default_rng(seed)
        choose = random.Random(seed).choice
        state = rules.new_game(config, rng)
        while not rules.is_terminal(state):
            yield state
            rules.apply_action(state, choose(rules.legal_actions(state)), rng)
        yield state


# --------------------------------------------------------------------------- phases


def test_the_phase_table_has_one_entry_per_phase_in_value_order():
    assert len(rules.PHASES) == len(Phase) == NUM_DECISION_PHASES + 1
    assert [phase.value for phase in Phase] == list(range(len(Phase)))
    assert Phase.OVER == OVER == len(Phase) - 1, "OVER is last: the one-hot covers the others"


def test_phase_values_are_the_observation_phase_entries():
    """A phase's value is its entry in the phase one-hot, so renumbering would move it."""
    config = EVERY_PHASE_CONFIGS[0]
    start = observe.observation_layout(config.pool.size, config.max_seats).start("phase")
    for state in random_states(config, range(6)):
        one_hot = observe.observe(state, 0)[start : start + NUM_DECISION_PHASES]
        expected = np.zeros(NUM_DECISION_PHASES, dtype=np.float32)
        if state.phase != OVER:
            expected[state.phase] = 1
        np.testing.assert_array_equal(one_hot, expected)


def _who_acts_column() -> dict[str, str]:
    """The rules page's "Legal actions by phase" table: phase name -> who acts."""
    page = (ROOT / "docs" / "rules" / "generals.md").read_text()
    section = page.split("Legal actions by phase:", 1)[1].split("\n\n", 2)[1]
    rows = [line.split("|")[1:3] for line in section.splitlines()[2:]]
    return {phase.strip(): who.strip() for phase, who in rows}


def test_every_phase_is_read_in_one_place_and_acted_by_the_seat_the_rules_page_names():
    documented = _who_acts_column()
    assert set(documented) == {phase.name for phase in Phase if phase != OVER}
    seen: set[Phase] = set()
    for config in EVERY_PHASE_CONFIGS:
        for state in random_states(config, range(25)):
            phase = Phase(state.phase)
            seen.add(phase)
            seat = rules.acting_player(state)
            assert seat == state.acting_player() == rules.PHASES[phase].actor(state)
            if phase == OVER:
                assert seat == -1 and rules.legal_actions(state) == [] and not rules.legal_mask(state).any()
                continue
            battle = state.battle
            expected = {
                "turn player": state.current,
                "defender": battle.defender if battle else None,
                "attacker, then defender": (battle.attacker if battle.tactic_turn == 0 else battle.defender)
                if battle
                else None,
            }[documented[phase.name]]
            assert seat == expected, phase.name
            assert rules.legal_actions(state) == rules.PHASES[phase].legal_actions(state)
    assert seen == set(Phase), f"random play never reached {set(Phase) - seen}"


def test_the_mask_and_the_legality_test_agree_with_the_legal_list_in_every_phase():
    for state in random_states(EVERY_PHASE_CONFIGS[0], range(4)):
        legal = rules.legal_actions(state)
        assert np.flatnonzero(rules.legal_mask(state)).tolist() == legal
        candidates = set(legal) | {0, 4, 6, state.layout.size - 1}
        assert [a for a in sorted(candidates) if rules.is_legal(state, a)] == legal


def test_an_action_after_the_end_is_refused():
    state = next(s for s in random_states(GeneralsConfig(length_limit=2), range(1)) if s.phase == OVER)
    with pytest.raises(rules.IllegalActionError, match="over"):
        rules.apply_action(state, 0, np.random.default_rng(0))


# --------------------------------------------------------------------------- declared state


def _midgame_state() -> GeneralsState:
    """A state inside a battle, with units in play (random play until one turns up)."""
    for state in random_states(GeneralsConfig(num_players=3, warcamp_attacks="any"), range(40)):
        if state.battle is not None and sum(u is not None for p in state.players for u in p.units) >= 2:
            return state.clone()
    raise AssertionError("no battle in 40 random games")


def test_every_declared_field_is_set_by_the_constructors():
    """A declared field left unset would break ``clone`` and pickling of a fresh state."""
    state = rules.new_game(GeneralsConfig(), np.random.default_rng(0))
    for instance in (GeneralsState(state.config, state.pool, state.tables), PlayerState(5), Battle(0, 1, 1, BF)):
        cls = type(instance)
        assert tuple(cls.FIELDS) == cls.__slots__
        assert [name for name in cls.FIELDS if not hasattr(instance, name)] == []


def test_clone_is_equal_and_independent_and_pickles():
    state = _midgame_state()
    copy = state.clone()
    assert copy == state and copy is not state
    assert copy.battle == state.battle and copy.battle is not state.battle
    assert all(a is not b for a, b in zip(copy.players, state.players, strict=True))
    assert pickle.loads(pickle.dumps(state)) == state
    copy.battle.pumps[0] += 1
    copy.players[0].hand[0] += 1
    assert copy != state and state.battle.pumps[0] == copy.battle.pumps[0] - 1
    rng = np.random.default_rng(0)
    before = pickle.dumps(state)
    while not rules.is_terminal(copy):
        rules.apply_action(copy, rules.legal_actions(copy)[-1], rng)
    assert pickle.dumps(state) == before, "playing the clone to the end left the original alone"


def test_a_unit_is_a_value_that_moves_and_activations_replace():
    unit = Unit(kind=3, zone=WC, entered_turn=2)
    assert unit == Unit(3, WC, 2, False) and not unit.ability_used
    with pytest.raises(AttributeError):
        unit.zone = BF  # type: ignore[misc]
    assert repr(unit) == "Unit(kind=3, zone=WC, entered=2)"


def test_no_battle_is_none_and_a_battle_is_cloned_with_the_state():
    state = rules.new_game(GeneralsConfig(), np.random.default_rng(0))
    assert state.battle is None and state.clone().battle is None
    state.battle = Battle(0, 1, 1, BF)
    copy = state.clone()
    assert copy.battle == state.battle and copy.battle is not state.battle
    state.battle = None
    assert copy.battle is not None and state.clone() != copy


# --------------------------------------------------------------------------- action table


def _documented_rows() -> list[tuple[str, int, int]]:
    (rows,) = rest_tables(actions.__doc__)
    return [(re.match(r"[A-Z_]+", row[1]).group(0), *index_span(row[0])) for row in rows]


def test_the_action_docstring_table_is_the_declared_layout():
    assert _documented_rows() == actions.DEFAULT_LAYOUT.rows()
    assert actions.DEFAULT_LAYOUT.size == actions.NUM_ACTIONS == 310


@pytest.mark.parametrize("num_kinds, offsets", [(50, 3), (1, 1), (7, 5), (120, 2)])
def test_the_documented_size_formula_and_attack_formula_are_the_tables(num_kinds, offsets):
    layout = layout_for(num_kinds, offsets)
    K, U, S = num_kinds, UNIT_SLOTS, offsets  # the docstring's O, seat offsets
    assert layout.size == 7 + 4 * K + 4 * U + 2 * U * S + S
    assert layout.size == sum(math.prod(block.shape) for block in action_blocks(num_kinds, offsets))
    for u in range(U):
        for o in range(1, S + 1):
            for z in (BF, WC):
                index = layout.index(Kind.ATTACK, u, o, z)
                assert index == layout.starts[Kind.ATTACK] + 2 * S * u + 2 * (o - 1) + z  # the docstring's
                assert layout.decode(index) == (Kind.ATTACK, u, o, z)
                assert layout.table.encode((Kind.ATTACK, u, o, z)) == index
    for kind in SINGLE_ACTIONS:
        assert layout.starts[kind] == getattr(actions, kind.name) == SINGLE_ACTIONS.index(kind)


def test_the_attack_formula_in_the_docstring_is_the_default_tables():
    (rows,) = rest_tables(actions.__doc__)
    meaning = next(row[2] for row in rows if row[1].startswith("ATTACK"))
    start = actions.DEFAULT_LAYOUT.starts[Kind.ATTACK]
    assert meaning.startswith(f"{start} + 6u + 2(o - 1) + z")
    assert 2 * actions.DEFAULT_LAYOUT.offsets == 6


# --------------------------------------------------------------------------- observation layout

OBSERVATION_LAYOUTS = {
    "index": observe.LAYOUT,
    "seat row": observe.SEAT_LAYOUT,
    "unit slot": observe.UNIT_LAYOUT,
    "battle block": observe.BATTLE_LAYOUT,
}


def test_the_observation_docstring_tables_are_the_declared_layouts():
    tables = rest_tables(observe.__doc__)
    assert len(tables) == len(OBSERVATION_LAYOUTS)
    for rows, layout in zip(tables, OBSERVATION_LAYOUTS.values(), strict=True):
        assert [(row[1], *index_span(row[0])) for row in rows] == layout.rows()
    for caption, layout in list(OBSERVATION_LAYOUTS.items())[1:]:
        assert f"{caption} ({layout.size} entries" in observe.__doc__, caption
    assert observe.OBSERVATION_SIZE == observe.LAYOUT.size == 3779
    assert "Default size (K = 50, P = 4): 3,779 entries" in observe.__doc__


@pytest.mark.parametrize("num_kinds, max_seats", [(50, 4), (1, 2), (13, 6), (200, 3)])
def test_the_documented_observation_size_formula_is_the_layouts(num_kinds, max_seats):
    K, P, U = num_kinds, max_seats, UNIT_SLOTS
    layout = observe.observation_layout(K, P)
    assert layout.size == 3 * K + P * (17 + 5 * K) + P * U * (K + 9) + (9 + 2 * P + 2 * U + 2 * K) + 11 + 3 + K
    assert observe.seat_layout(K).size == 17 + 5 * K and observe.unit_layout(K).size == K + 9
    assert observe.battle_layout(K, P).size == 9 + 2 * P + 2 * U + 2 * K


def _read_seat(observation: np.ndarray, state: GeneralsState, offset: int) -> dict[str, object]:
    """A seat row read back through the declared layout, field by field."""
    K = state.pool.size
    row = observe.seat_layout(K)
    start = observe.observation_layout(K, state.config.max_seats).start("seats") + offset * row.size
    return {name: observation[start + first : start + last + 1].tolist() for name, first, last in row.rows()}


def test_every_named_field_holds_what_its_table_row_says():
    """The observation read back through the layouts, against the state it shows (a battle, so
    that the battle block and the unit flags are in use too)."""
    state = _midgame_state()
    config, K = state.config, state.pool.size
    whole, unit_row = observe.observation_layout(K, config.max_seats), observe.unit_layout(K)
    battle = state.battle
    values = state.tables.value
    for seat in range(state.num_players):
        observation = observe.observe(state, seat)
        assert observation[whole["my hand"]].tolist() == list(state.players[seat].hand)
        for offset in range(state.num_players):
            p = state.seat_at(seat, offset)
            player, read = state.players[p], _read_seat(observation, state, offset)
            if not player.alive:
                assert not any(sum(read.values(), []))
                continue
            assert read["alive"] == [1] and read["turn player"] == [p == state.current]
            assert read["ch"] == [pytest.approx(player.ch / config.target)]
            assert read["hand size"] == [sum(player.hand)] and read["deck size"] == [len(player.playing_deck)]
            assert read["supply size"] == [len(player.supply_pile)] and read["passed"] == [player.passed_last]
            assert read["budget"] == [player.budget]
            assert read["ready value"] == [sum(c * v for c, v in zip(player.supply_ready, values, strict=True))]
            assert read["fresh value"] == [sum(c * v for c, v in zip(player.supply_fresh, values, strict=True))]
            empire = ["rome", "mongols", "egypt", "franks"].index(player.empire)
            assert read["empire"] == [float(i == empire) for i in range(5)]
            generals = [u for u in player.units if u is not None and state.tables.is_general[u.kind]]
            assert read["has general"] == [bool(generals)] and read["kingdom cards"] == [sum(player.kingdom)]
            line = [a + b for a, b in zip(player.supply_ready, player.supply_fresh, strict=True)]
            assert read["supply line"] == line and read["kingdom"] == list(player.kingdom)
            assert read["discard"] == list(player.discard)
            assert read["strategy"] == [float(k == player.strategy) for k in range(K)]
            assert read["capitol"] == [float(k == player.capitol) for k in range(K)]
            numbers = rules.unit_numbers(state, p)
            for slot, unit in enumerate(player.units):
                at = whole.start("units") + (offset * UNIT_SLOTS + slot) * unit_row.size
                cell = {name: observation[at + a : at + b + 1].tolist() for name, a, b in unit_row.rows()}
                if unit is None:
                    assert not any(sum(cell.values(), []))
                    continue
                assert cell["present"] == [1] and cell["kind"] == [float(k == unit.kind) for k in range(K)]
                assert cell["battlefield"] == [unit.zone == BF]
                assert cell["may enter"] == [rules.may_enter_bf(state, p, slot)]
                assert (cell["strength"][0], cell["life"][0]) == numbers[slot]
                assert cell["general"] == [state.tables.is_general[unit.kind]]
                assert cell["ability"] == [state.tables.has_ability[unit.kind] and not unit.ability_used]
                assert cell["attacker"] == [p == battle.attacker and slot == battle.a_slot and not battle.a_out]
                assert cell["blocker"] == [p == battle.defender and slot == battle.blocker]
        block = observe.battle_layout(K, config.max_seats)
        at = whole.start("battle")
        read = {name: observation[at + a : at + b + 1].tolist() for name, a, b in block.rows()}
        assert read["attacker"].index(1) == state.offset_of(seat, battle.attacker)
        assert read["defender"].index(1) == state.offset_of(seat, battle.defender)
        assert read["attacker slot"].index(1) == battle.a_slot
        assert read["zone"].index(1) == battle.zone
        assert read["blocker"].index(1) == (battle.blocker if battle.blocker >= 0 else UNIT_SLOTS)
        assert read["stage"].index(1) in (1, 2, 3, 4)
        assert observation[whole["target"]].tolist() == [config.target / 10]
        assert observation[whole["slaughterhouse"]].tolist() == [config.slaughterhouse]
        assert observation[whole["round"]].tolist() == [pytest.approx(state.round / config.length_limit)]


# --------------------------------------------------------------------------- card encoding


def test_the_engine_asks_card_types_through_the_card_predicates():
    """The type words live in cards.py; the engine never compares a card's type to a literal."""
    for module in (rules, observe, state_module, render, heuristic):
        source = inspect.getsource(module)
        assert not re.search(r"\.type\s*(==|!=|in)\s*[(\"']", source), module.__name__
        assert "EMPIRES = (" not in source, f"{module.__name__} lists the empires again"


def test_card_predicates_split_the_pool_as_the_types_say():
    pool = GeneralsConfig().pool
    for card in pool.kinds:
        assert card.is_unit == (card.type in ("general", "soldier")) == (card.is_general or card.is_soldier)
        assert card.is_static == (card.type in ("kingdom", "strategy", "capitol"))
        assert card.is_tactic == (card.is_main_tactic or card.is_battle_tactic)
    tables = rules.CardTables(pool)
    assert tables.kingdom_phase_kinds == tuple(k.index for k in pool.kinds if k.is_static or k.is_main_tactic)
    assert {pool.kinds[k].effect for k in tables.battle_tactic_kinds} <= set(BATTLE_EFFECTS)
    assert {name: slot for slot, name in enumerate(KNOWN_EMPIRES)} == observe.EMPIRE_SLOT
    assert default_deck_ids() == KNOWN_EMPIRES
