"""The Army phase (rulings 34-39): units from the hand to the Warcamp or straight to the
Battlefield, unit abilities, Soldier discards, then END_PHASE; and REPLACE_GENERAL (ruling 36,
``max_generals > 1``): the General a new one replaces."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ..actions import END_PHASE, ActionLayout, Kind
from ..state import ARMY, ATTACK, BF, REPLACE_GENERAL, WC, GeneralsState, Unit
from .derived import decoded, effective_cost, free_slot, generals_in_play, money, obeys_pull, statics
from .effects import ban_if_ultra_rare, discard_unit, draw, pay
from .scoring import change_ch, no_rewards

# the Kind members the legality loops read, bound once (an enum member lookup is slow in Python 3.11)
_PLAY, _PLAY_TO_BF, _ACTIVATE, _DISCARD_UNIT = Kind.PLAY, Kind.PLAY_TO_BF, Kind.ACTIVATE, Kind.DISCARD_UNIT


def army_moves(state: GeneralsState, seat: int, lay: ActionLayout) -> Iterator[int]:
    """The ARMY row's plays, abilities and Soldier discards (not in index order)."""
    player = state.players[seat]
    tables = state.tables
    hand, banned = player.hand, state.banned
    money_at_hand = money(state, seat)
    has_slot = free_slot(player) >= 0
    at_cap = len(generals_in_play(state, seat)) >= state.config.max_generals
    discount = statics(state, seat)["soldier_discount"]
    starts = lay.starts
    play, play_to_bf, activate, discard = starts[_PLAY], starts[_PLAY_TO_BF], starts[_ACTIVATE], starts[_DISCARD_UNIT]
    for kind in tables.unit_kinds:
        if not hand[kind] or kind in banned:
            continue
        general = tables.is_general[kind]
        cost = tables.cost[kind] if general else max(0, tables.cost[kind] - discount)
        if cost > money_at_hand:
            continue
        # a General at the cap replaces one of the seat's Generals, which frees a slot
        if not (has_slot or (general and at_cap)):
            continue
        yield play + kind
        if not obeys_pull(state, seat, kind):
            yield play_to_bf + kind
    for slot, unit in enumerate(player.units):
        if unit is None:
            continue
        ability = tables.kinds[unit.kind].ability
        if ability is not None and not unit.ability_used and ability.cost <= money_at_hand:
            yield activate + slot
        if tables.is_soldier[unit.kind]:
            yield discard + slot


def army_choices(state: GeneralsState) -> tuple[int, Iterator[int]]:
    return END_PHASE, army_moves(state, state.current, state.layout)


def army_actions(state: GeneralsState) -> list[int]:
    first, more = army_choices(state)
    return [first, *sorted(more)]


def apply_army(state: GeneralsState, action: int, rng: np.random.Generator) -> list[float]:
    earned = no_rewards(state)
    kind, a, _, _ = decoded(state, action)
    seat = state.current
    if kind is Kind.END_PHASE:
        state.phase = ATTACK
    elif kind is Kind.PLAY or kind is Kind.PLAY_TO_BF:
        play_unit(state, seat, a, kind is Kind.PLAY_TO_BF, earned)
    elif kind is Kind.ACTIVATE:
        activate(state, seat, a, earned)
    else:  # DISCARD_UNIT of a Soldier (ruling 38)
        discard_unit(state, seat, a)
    return earned


def play_unit(state: GeneralsState, seat: int, kind: int, to_bf: bool, earned: list[float]) -> None:
    player = state.players[seat]
    pay(state, seat, effective_cost(state, seat, kind))
    if state.tables.is_general[kind]:
        generals = generals_in_play(state, seat)
        if len(generals) >= state.config.max_generals:  # ruling 36
            if state.config.max_generals == 1:
                discard_unit(state, seat, generals[0])
            else:  # the card waits in the hand (paid) while its owner picks the General to go
                state.pending_card, state.pending_to_bf = kind, to_bf
                state.phase = REPLACE_GENERAL
                return
    player.hand[kind] -= 1
    enter_play(state, seat, kind, to_bf, earned)


def enter_play(state: GeneralsState, seat: int, kind: int, to_bf: bool, earned: list[float]) -> None:
    player = state.players[seat]
    slot = free_slot(player)
    player.units[slot] = Unit(kind, BF if to_bf else WC, player.turns_taken)
    ban_if_ultra_rare(state, kind)
    card = state.tables.kinds[kind]
    for _ in range(card.on_play_draw):
        draw(player, player.playing_deck)
    change_ch(state, seat, card.on_play_ch, earned)


def activate(state: GeneralsState, seat: int, slot: int, earned: list[float]) -> None:
    """Ruling 37: a paid ability, once per unit per turn."""
    player = state.players[seat]
    unit = player.units[slot]
    assert unit is not None
    ability = state.tables.kinds[unit.kind].ability
    pay(state, seat, ability.cost)
    player.units[slot] = unit._replace(ability_used=True)
    if ability.effect == "draw":
        for _ in range(ability.amount):
            draw(player, player.playing_deck)
    else:
        change_ch(state, seat, ability.amount, earned)


# REPLACE_GENERAL (ruling 36, max_generals > 1): the General a new one replaces.


def replace_general_actions(state: GeneralsState) -> list[int]:
    discard = state.layout.starts[Kind.DISCARD_UNIT]
    return [discard + slot for slot in generals_in_play(state, state.current)]


def apply_replace_general(state: GeneralsState, action: int, rng: np.random.Generator) -> list[float]:
    earned = no_rewards(state)
    seat = state.current
    discard_unit(state, seat, decoded(state, action)[1])
    state.phase = ARMY
    state.players[seat].hand[state.pending_card] -= 1
    enter_play(state, seat, state.pending_card, state.pending_to_bf, earned)
    state.pending_card = -1
    return earned
