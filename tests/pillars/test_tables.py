"""Pillars' declarations, each read in one place: the phase table (who acts, what is legal, what an
action does), the declared state fields (clone, equality, pickling), the action layout (its blocks,
index helpers and docstring table) and the card kinds (built on ``core.cards``)."""

from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest

from empire_envs.core.cards import NUM_CARDS, NUM_SUITS, RANK_LABELS, card_str, make_card, rank_of
from empire_envs.core.phases import PhaseRules
from empire_envs.core.state import LIST, LISTS
from empire_envs.games.pillars import actions, campaign, rules
from empire_envs.games.pillars.actions import CARD_LAYOUT, NUM_ACTIONS, RANK_LAYOUT, Action, Kind
from empire_envs.games.pillars.config import PillarsConfig
from empire_envs.games.pillars.state import (
    CARD_KINDS,
    DECISION_PHASES,
    PILLAR_RANK_LABELS,
    RANK_KINDS,
    Phase,
    PillarsState,
    full_deck_counts,
    kinds_for,
)

from ..doc_tables import action_ranges_in_code, documented_action_ranges
from .helpers import random_states

RULES_PAGE = Path(__file__).resolve().parents[2] / "docs" / "rules" / "pillars.md"
CONFIGS = (
    PillarsConfig(),
    PillarsConfig(num_players=6, battle_demand="card"),
    PillarsConfig(num_players=3, rps_mode="random", main_action_optional=True, first_round_pillars=True),
)


# --------------------------------------------------------------------------- phases


def test_the_phase_table_has_one_row_per_phase_in_phase_order():
    assert len(rules.PHASES) == len(Phase)
    assert all(isinstance(row, PhaseRules) for row in rules.PHASES)
    assert [phase.label for phase in Phase] == [
        "main", "build", "discard", "skip target", "trade offer", "trade pick", "rps attacker", "rps defender", "over",
    ]
    assert Phase.OVER not in DECISION_PHASES and len(DECISION_PHASES) == len(Phase) - 1


def test_the_rules_page_lists_the_decision_phases_in_order():
    page = RULES_PAGE.read_text()
    table = page[page.index("| phase | who acts | legal |") :].split("\n\n")[0].splitlines()[2:]
    assert [row.split("|")[1].strip() for row in table] == [phase.name for phase in DECISION_PHASES]


def _expected_actor(state: PillarsState) -> int:
    """The rules page's "who acts" column, said again independently of the table."""
    if state.phase == Phase.OVER:
        return -1
    if state.phase == Phase.TRADE_OFFER:
        return state.trade_queue[0]  # the next responder in the queue
    if state.phase == Phase.RPS_DEFENDER:
        return state.battle_defender
    return state.current  # the turn player, who is also the trader and the attacker


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.num_players}p-{c.battle_demand}-{c.rps_mode}")
def test_the_acting_seat_is_the_one_the_rules_page_names(config):
    phases = set()
    for state in random_states(config, 4, 1500):
        assert rules.acting_player(state) == state.acting_player() == _expected_actor(state)
        phases.add(state.phase)
    throws = {Phase.RPS_ATTACKER, Phase.RPS_DEFENDER}
    assert set(DECISION_PHASES) - (throws if config.rps_mode == "random" else set()) <= phases


def test_a_finished_game_has_no_actor_and_no_action():
    state = rules.new_game(PillarsConfig(length_limit=1), np.random.default_rng(0))
    while not rules.is_terminal(state):
        rules.apply_action(state, rules.legal_actions(state)[0], np.random.default_rng(0))
    assert state.phase == Phase.OVER and rules.acting_player(state) == -1
    assert rules.legal_actions(state) == [] and not rules.legal_mask(state).any()
    assert not rules.is_legal(state, RANK_LAYOUT.end_build)


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.num_players}p-{c.battle_demand}-{c.rps_mode}")
def test_a_phase_that_allows_without_listing_answers_as_its_list(config):
    """A phase's ``allows`` (the main action, the build phase, the throws) accepts exactly the
    actions of its ``legal_actions``, over the whole table and a few indices outside it, on the
    states of heuristic games: they lay pillars, so bonus actions come up too."""
    from empire_envs.agents.pillars_heuristic import PillarsHeuristicAgent

    agent, rng = PillarsHeuristicAgent(seed=1), np.random.default_rng(1)
    indices = range(-2, actions.layout_for(kinds_for(config)).size + 2)
    checked, bonuses = set(), 0
    state = rules.new_game(config, rng)
    for _ in range(2500):
        if rules.is_terminal(state):
            state = rules.new_game(config, rng)
        row, legal = rules.PHASES[state.phase], rules.legal_actions(state)
        if row.allows is not None:
            assert [index for index in indices if row.allows(state, index)] == legal, Phase(state.phase).label
            checked.add(state.phase)
            bonuses += rules.bonus_action_available(state)
        rules.apply_action(state, agent.choose(state, legal), rng)
    assert {Phase.MAIN, Phase.BUILD} <= checked and bonuses
    if config.rps_mode == "played":
        assert {Phase.RPS_ATTACKER, Phase.RPS_DEFENDER} <= checked


# --------------------------------------------------------------------------- declared state


def _states(config: PillarsConfig) -> list[PillarsState]:
    return [state.clone() for i, state in enumerate(random_states(config, 2, 600)) if i % 37 == 0]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.num_players}p-{c.battle_demand}-{c.rps_mode}")
def test_clone_is_equal_and_shares_no_mutable_field(config):
    for state in _states(config):
        before = pickle.dumps(state)
        copy = state.clone()
        assert copy == state and copy is not state
        assert copy.config is state.config and copy.kinds is state.kinds
        for name, how in PillarsState.FIELDS.items():
            value = getattr(copy, name)
            if how == LIST:
                value.append(-7)
            elif how == LISTS:
                value[0].append(-7)
        assert copy != state
        assert pickle.loads(before) == state, "changing the copy changed the original"


def test_a_fresh_state_sets_every_declared_field():
    """``__slots__`` is the declaration, so no undeclared field can be set; ``clone`` reads every
    declared one, so it fails on a field ``__init__`` forgot."""
    for config in CONFIGS:
        state = PillarsState(config)
        assert state.clone() == state


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.num_players}p-{c.battle_demand}-{c.rps_mode}")
def test_pickling_keeps_the_state_and_the_shared_kind_table(config):
    for state in _states(config):
        copy = pickle.loads(pickle.dumps(state))
        assert copy == state and copy.kinds is kinds_for(config)


def test_the_campaign_state_clones_its_game_and_record():
    config = campaign.CampaignConfig(num_players=3, length_limit=2, campaign_max_games=4)
    record = campaign.CAMPAIGN_GAME
    rng = np.random.default_rng(5)
    state = record.new_game(config, rng)
    while state.games_played < 2:
        record.apply_action(state, record.legal_actions(state)[0], rng)
    copy = state.clone()
    assert copy == state and copy.game is not state.game and copy.config is state.config
    copy.empires_won[0][0] = 1
    copy.game.hands[0][0] += 1
    assert state.empires_won[0][0] == 0 and copy.game != state.game
    assert pickle.loads(pickle.dumps(state)) == state


# --------------------------------------------------------------------------- the action layout


@pytest.mark.parametrize("lay", (RANK_LAYOUT, CARD_LAYOUT), ids=("rank", "card"))
def test_the_blocks_tile_the_table_in_kind_order(lay):
    assert [block.kind for block in lay.blocks] == list(Kind)
    assert [index for kind in Kind for index in lay.block_range(kind)] == list(range(lay.size))
    for kind in Kind:
        assert lay.block_range(kind).start == lay.starts[kind]
        assert {lay.decode(index).kind for index in lay.block_range(kind)} == {kind}


@pytest.mark.parametrize("lay", (RANK_LAYOUT, CARD_LAYOUT), ids=("rank", "card"))
def test_every_index_helper_agrees_with_the_table(lay):
    helpers = {
        Kind.STEAL: lay.steal_index,
        Kind.TRADE: lay.trade_index,
        Kind.BATTLE: lay.battle_index,
        Kind.PILLAR: lay.pillar_index,
        Kind.DISCARD: lay.discard_index,
        Kind.SKIP: lay.skip_index,
        Kind.OFFER: lay.offer_index,
        Kind.PICK: lay.pick_index,
        Kind.THROW: lay.throw_index,
    }
    for index, action in enumerate(lay.table.actions):
        assert lay.encode(action) == index
        arguments = [value for value in action[1:] if value >= 0]
        if action.kind in helpers:
            assert helpers[action.kind](*arguments) == index, lay.name(index)
        assert lay.index(action.kind, *arguments) == index and index in lay.block_range(action.kind)
    assert [index for kind in Kind for index in lay.block_range(kind)] == list(range(lay.size))  # blocks tile
    for kind, arguments in ((Kind.STEAL, (0,)), (Kind.BATTLE, (1, lay.kinds.size)), (Kind.NO_SKIP, (0,))):
        with pytest.raises(ValueError, match="takes arguments in"):
            lay.index(kind, *arguments)
    assert lay.end_build == lay.encode(Action(Kind.END_BUILD)) and lay.no_skip == lay.encode(Action(Kind.NO_SKIP))
    for n in range(2, 7):
        assert list(lay.battle_range(n)) == [lay.battle_index(o, k) for o in range(1, n) for k in range(lay.kinds.size)]


def test_the_docstring_table_and_sizes_are_the_layout():
    assert documented_action_ranges(actions.__doc__) == action_ranges_in_code(RANK_LAYOUT.table.actions)
    per_kind = {kind: (len(CARD_LAYOUT.block_range(kind)) - len(RANK_LAYOUT.block_range(kind)))
                // (CARD_KINDS.size - RANK_KINDS.size) for kind in Kind}
    fixed = RANK_LAYOUT.size - sum(per_kind.values()) * RANK_KINDS.size
    for lay in (RANK_LAYOUT, CARD_LAYOUT):
        assert lay.size == fixed + sum(per_kind.values()) * lay.kinds.size
    doc = " ".join(actions.__doc__.split())
    sizes = f"``K = {RANK_KINDS.size}``, {NUM_ACTIONS} actions; ``{fixed} + {sum(per_kind.values())}K`` in general"
    assert sizes in doc
    assert f"{CARD_LAYOUT.size} for the card game" in doc
    battle, pillar = RANK_LAYOUT.starts[Kind.BATTLE], RANK_LAYOUT.starts[Kind.PILLAR]
    assert f"(index {battle} + {RANK_KINDS.size}(o-1) + k)" in doc and f"({pillar} + 5r + j)" in doc


# --------------------------------------------------------------------------- card kinds


def test_rank_kinds_are_the_ranks_in_pillars_order_then_the_joker():
    assert RANK_KINDS.labels == ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "Joker")
    assert RANK_KINDS.joker == 13 and [k for k in range(RANK_KINDS.size) if RANK_KINDS.is_two[k]] == [0]
    assert PILLAR_RANK_LABELS == ("3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
    assert RANK_KINDS.labels[1:13] == PILLAR_RANK_LABELS
    assert RANK_KINDS.naturals == tuple((r + 1,) for r in range(12))
    assert full_deck_counts(PillarsConfig()) == [2 * NUM_SUITS] * 13 + [4]
    page = RULES_PAGE.read_text()
    row = next(line for line in page.splitlines() if line.startswith("| card |"))
    assert tuple(cell.strip() for cell in row.strip("|").split("|")[1:]) == RANK_KINDS.labels


def test_card_kinds_are_the_shared_card_encoding_then_the_joker():
    assert CARD_KINDS.size == NUM_CARDS + 1 and CARD_KINDS.joker == NUM_CARDS
    for card in range(NUM_CARDS):
        assert CARD_KINDS.labels[card] == card_str(card)
        assert RANK_KINDS.labels[CARD_KINDS.rank_kind[card]] == RANK_LABELS[rank_of(card)]
        assert CARD_KINDS.is_two[card] == (RANK_LABELS[rank_of(card)] == "2")
    for r, label in enumerate(PILLAR_RANK_LABELS):  # each rank's four cards, in suit order
        assert CARD_KINDS.naturals[r] == tuple(make_card(RANK_LABELS.index(label), suit) for suit in range(NUM_SUITS))
    assert full_deck_counts(PillarsConfig(battle_demand="card", packs=3)) == [3] * NUM_CARDS + [6]


@pytest.mark.parametrize("demand", ("rank", "card"))
def test_the_config_counts_the_kinds_the_state_uses(demand):
    config = PillarsConfig(battle_demand=demand)
    assert config.num_kinds == kinds_for(config).size == len(full_deck_counts(config))
