"""The Attack phase and battles: free moves, then at most one attack or END_PHASE (rulings
40-44); the BLOCK decision (section 5.5, steps 2-3); and the resolution of a battle by the
outcome table (steps 5-6: kill tests with first strike, ruling 46; the CH column; kill
triggers). The tactic window between blocking and resolution is in ``tactics``."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ..actions import END_PHASE, NO_BLOCK, ActionLayout, Kind
from ..state import BF, BLOCK, OVER, TACTIC, WC, Battle, BattleOutcome, GeneralsState
from .derived import (
    bf_entry_flags,
    decoded,
    generals_in_play,
    has_keyword,
    opponents_in_game,
    static_total,
    unit_numbers_at,
)
from .effects import discard_unit
from .scoring import change_ch, no_rewards
from .turn import resolve_phase

# the Kind members the legality loops read, bound once (an enum member lookup is slow in Python 3.11)
_MOVE, _ATTACK, _BLOCK = Kind.MOVE, Kind.ATTACK, Kind.BLOCK

# Battle outcomes (section 5.5 of the rulings): the row numbers of the outcome table.
(
    NO_BLOCKER,
    BLOCKER_OUT,
    ATTACKER_KILLS,
    DOUBLE_DEATH,
    COUNTER_ATTACK,
    ATTACKER_OUT,
    DOUBLE_BLOCK,
) = BattleOutcome


# ATTACK (rulings 40-44): free moves, then at most one attack, or END_PHASE.


def attack_moves(state: GeneralsState, seat: int, lay: ActionLayout) -> Iterator[int]:
    """The ATTACK row's moves and attacks, ascending."""
    player = state.players[seat]
    may_enter = bf_entry_flags(state, seat)
    move = lay.starts[_MOVE]
    for slot, unit in enumerate(player.units):
        if unit is not None and (unit.zone == BF or may_enter[slot]):
            yield move + slot
    if state.attacked or not generals_in_play(state, seat):
        return
    targets = sorted(state.offset_of(seat, p) for p in opponents_in_game(state, seat))
    any_zone = state.config.warcamp_attacks == "any"
    index = lay.index
    for slot, unit in enumerate(player.units):
        if unit is None or unit.zone != BF:
            continue
        raider = any_zone or has_keyword(state, seat, unit.kind, "raider")
        for offset in targets:
            yield index(_ATTACK, slot, offset, BF)
            if raider:
                yield index(_ATTACK, slot, offset, WC)


def attack_choices(state: GeneralsState) -> tuple[int, Iterator[int]]:
    return END_PHASE, attack_moves(state, state.current, state.layout)


def attack_actions(state: GeneralsState) -> list[int]:
    first, more = attack_choices(state)
    return [first, *more]  # moves then attacks, ascending


def apply_attack(state: GeneralsState, action: int, rng: np.random.Generator) -> list[float]:
    kind, a, b, c = decoded(state, action)
    seat = state.current
    if kind is Kind.END_PHASE:
        resolve_phase(state)
    elif kind is Kind.MOVE:
        units = state.players[seat].units
        unit = units[a]
        assert unit is not None
        units[a] = unit._replace(zone=WC if unit.zone == BF else BF)
    else:
        state.attacked = True
        state.battle = Battle(seat, a, state.seat_at(seat, b), c)
        state.phase = BLOCK
    return no_rewards(state)


# BLOCK (section 5.5, steps 2-3): the defender blocks with a unit of the battle's zone, or not.


def defender(state: GeneralsState) -> int:
    battle = state.battle
    assert battle is not None  # BLOCK and TACTIC happen inside a battle
    return battle.defender


def block_actions(state: GeneralsState) -> list[int]:
    battle = state.battle
    assert battle is not None
    block = state.layout.starts[_BLOCK]
    units = state.players[battle.defender].units
    return [NO_BLOCK] + [
        block + slot for slot, unit in enumerate(units) if unit is not None and unit.zone == battle.zone
    ]


def apply_block(state: GeneralsState, action: int, rng: np.random.Generator) -> list[float]:
    """Section 5.5, steps 2, 3 and 6: a blocker or none; an unblocked Battlefield attack turns
    on the Warcamp."""
    earned = no_rewards(state)
    kind, a, _, _ = decoded(state, action)
    slot = a if kind is Kind.BLOCK else -1
    battle = state.battle
    assert battle is not None  # only called while a battle is under way
    battle.blocker = slot
    battle.blocker_declared = slot >= 0
    if battle.zone == BF and slot < 0:
        battle.outcomes.append((BF, NO_BLOCKER))
        battle.zone = WC
        battle.redirected = True
        return earned  # the defender chooses a Warcamp blocker (phase stays BLOCK)
    if battle.window_done:
        resolve_battle(state, earned)
    else:
        state.phase = TACTIC
        battle.stage = TACTIC
        battle.tactic_turn = 0
    return earned


# Resolution (section 5.5, steps 5-6).


def kill_tests(state: GeneralsState) -> tuple[bool, bool]:
    """(the attacker kills the blocker, the blocker kills the attacker) of the battle under way,
    with first strike applied (rulings 46, section 5.1)."""
    battle = state.battle
    assert battle is not None  # only called while a battle is under way
    att, dfn = battle.attacker, battle.defender
    a_unit, d_unit = state.players[att].units[battle.a_slot], state.players[dfn].units[battle.blocker]
    assert a_unit is not None and d_unit is not None  # the attacker and its blocker are both in
    a_card = state.tables.kinds[a_unit.kind]
    d_card = state.tables.kinds[d_unit.kind]
    a_str, a_life = unit_numbers_at(state, att, battle.a_slot, attacking=True)
    d_str, d_life = unit_numbers_at(state, dfn, battle.blocker, blocking=True)
    a_str, a_life = a_str + battle.pumps[0], a_life + battle.pumps[1]
    d_str, d_life = d_str + battle.pumps[2], d_life + battle.pumps[3]
    a_kills = a_str > d_life
    d_kills = d_str >= a_life if state.config.defender_wins_ties else d_str > a_life
    a_first = "first_strike" in a_card.keywords
    d_first = "first_strike" in d_card.keywords
    if a_first and not d_first and a_kills:
        d_kills = False
    elif d_first and not a_first and d_kills:
        a_kills = False
    return a_kills, d_kills


def resolve_battle(state: GeneralsState, earned: list[float]) -> None:
    """Step 5 (and 6): the first rule that applies decides the outcome."""
    battle = state.battle
    assert battle is not None  # only called while a battle is under way
    att, dfn, zone = battle.attacker, battle.defender, battle.zone
    if battle.a_out:
        return _finish_battle(state, ATTACKER_OUT, [], earned)
    if battle.blocker_declared and battle.b_out:
        if zone == BF:  # step 6: redirect to the Warcamp, no new tactic window
            battle.outcomes.append((BF, BLOCKER_OUT))
            battle.zone = WC
            battle.blocker = -1
            battle.blocker_declared = False
            battle.b_out = False
            battle.redirected = True
            battle.stage = BLOCK
            state.phase = BLOCK
            return None
        return _finish_battle(state, BLOCKER_OUT, [], earned)
    if battle.blocker < 0:
        return _finish_battle(state, NO_BLOCKER, [], earned)
    a_kills, d_kills = kill_tests(state)
    outcome = (
        DOUBLE_DEATH
        if a_kills and d_kills
        else ATTACKER_KILLS
        if a_kills
        else COUNTER_ATTACK
        if d_kills
        else DOUBLE_BLOCK
    )
    killers: list[tuple[int, int]] = []
    a_unit, d_unit = state.players[att].units[battle.a_slot], state.players[dfn].units[battle.blocker]
    if a_kills:
        assert a_unit is not None
        killers.append((att, a_unit.kind))
    if d_kills:
        assert d_unit is not None
        killers.append((dfn, d_unit.kind))
    if a_kills:
        discard_unit(state, dfn, battle.blocker)
    if d_kills:
        discard_unit(state, att, battle.a_slot)
    return _finish_battle(state, outcome, killers, earned)


def _finish_battle(state: GeneralsState, outcome: int, killers: list[tuple[int, int]], earned: list[float]) -> None:
    """The outcome table's CH column, then the kill triggers, then the Resolve phase."""
    battle = state.battle
    assert battle is not None  # only called while a battle is under way
    att, dfn, zone = battle.attacker, battle.defender, battle.zone
    battle.outcomes.append((zone, outcome))
    state.last_battle = (att, dfn, tuple(battle.outcomes))
    if zone == WC and outcome in (NO_BLOCKER, BLOCKER_OUT, ATTACKER_KILLS):
        change_ch(state, dfn, -1, earned)
        if state.config.attack_transfer:  # ruling 11 flag
            change_ch(state, att, 1, earned)
    for seat, kind in killers:
        change_ch(state, seat, state.tables.kinds[kind].on_kill_ch, earned)
    if outcome in (DOUBLE_DEATH, COUNTER_ATTACK):
        change_ch(state, dfn, static_total(state, dfn, "on_block_kill_ch"), earned)
    if state.phase == OVER:
        return
    state.battle = None
    resolve_phase(state)
