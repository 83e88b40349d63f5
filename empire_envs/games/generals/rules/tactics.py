"""The tactic window of a battle (section 5.5, step 4): one battle tactic per side, the attacker
first, or none; each resolves at once (a pump, a withdrawal, the removal of the enemy unit),
and the battle is resolved when the defender has answered."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ..actions import NO_TACTIC, Kind
from ..state import GeneralsState
from .battle import resolve_battle
from .derived import decoded, effective_cost, money
from .effects import ban_if_ultra_rare, discard_unit, pay
from .scoring import no_rewards

# the Kind members the legality loops read, bound once (an enum member lookup is slow in Python 3.11)
_PLAY = Kind.PLAY


def tactic_side(state: GeneralsState) -> int:
    """The attacker plays (or declines) its tactic first, then the defender."""
    battle = state.battle
    assert battle is not None
    return battle.attacker if battle.tactic_turn == 0 else battle.defender


def tactic_plays(state: GeneralsState, seat: int) -> Iterator[int]:
    """Battle tactics the acting side may play now (section 5.5, step 4), ascending."""
    battle = state.battle
    assert battle is not None  # only called while a battle is under way
    attacking = seat == battle.attacker
    own_in = not battle.a_out if attacking else battle.blocker >= 0 and not battle.b_out
    enemy_in = (battle.blocker >= 0 and not battle.b_out) if attacking else not battle.a_out
    side = "attacker" if attacking else "defender"
    tables = state.tables
    hand, banned = state.players[seat].hand, state.banned
    money_at_hand = money(state, seat)
    for kind in tables.battle_tactic_kinds:
        if not hand[kind] or kind in banned or tables.cost[kind] > money_at_hand:
            continue
        card = tables.kinds[kind]
        if card.side not in ("any", side):
            continue
        if enemy_in if card.effect == "remove_enemy" else own_in:
            yield kind


def tactic_choices(state: GeneralsState) -> tuple[int, Iterator[int]]:
    play = state.layout.starts[_PLAY]
    return NO_TACTIC, (play + kind for kind in tactic_plays(state, tactic_side(state)))


def tactic_actions(state: GeneralsState) -> list[int]:
    first, more = tactic_choices(state)
    return [first, *more]  # the tactics come ascending


def apply_tactic(state: GeneralsState, action: int, rng: np.random.Generator) -> list[float]:
    """Step 4: one tactic per side, the attacker first; each resolves at once."""
    earned = no_rewards(state)
    kind, a, _, _ = decoded(state, action)
    seat = tactic_side(state)
    battle = state.battle
    assert battle is not None  # only called while a battle is under way
    attacking = seat == battle.attacker
    if kind is Kind.PLAY:
        _play_tactic(state, seat, a, attacking)
    if attacking:
        battle.tactic_turn = 1
    else:
        battle.window_done = True
        resolve_battle(state, earned)
    return earned


def _play_tactic(state: GeneralsState, seat: int, kind: int, attacking: bool) -> None:
    battle = state.battle
    assert battle is not None
    player = state.players[seat]
    card = state.tables.kinds[kind]
    pay(state, seat, effective_cost(state, seat, kind))
    player.hand[kind] -= 1
    player.discard[kind] += 1
    ban_if_ultra_rare(state, kind)
    battle.tactics[0 if attacking else 1] = kind
    if card.effect == "pump_str":
        battle.pumps[0 if attacking else 2] += card.amount
    elif card.effect == "pump_life":
        battle.pumps[1 if attacking else 3] += card.amount
    elif card.effect == "withdraw_self":
        if attacking:
            battle.a_out = True
        else:
            battle.b_out = True
    else:  # remove_enemy: the opposing unit is discarded (not killed: no kill trigger)
        if attacking:
            discard_unit(state, battle.defender, battle.blocker)
            battle.b_out = True
        else:
            discard_unit(state, battle.attacker, battle.a_slot)
            battle.a_out = True
