"""The Kingdom phase (ruling 33): Kingdom, Strategy and Capitol cards and main tactics, then
END_PHASE; and the two choices of a Sabotage (a ``destroy_kingdom`` main tactic): the
opponent (TARGET_PLAYER), then a Kingdom card of it (TARGET_KIND)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from ..actions import END_PHASE, Kind
from ..config import MAX_KINGDOM
from ..state import ARMY, KINGDOM, TARGET_KIND, TARGET_PLAYER, GeneralsState
from .derived import decoded, effective_cost, money, opponents_in_game
from .effects import ban_if_ultra_rare, draw, pay
from .scoring import change_ch, no_rewards

# the Kind members the legality loops read, bound once (an enum member lookup is slow in Python 3.11)
_PLAY = Kind.PLAY


def kingdom_plays(state: GeneralsState, seat: int) -> Iterator[int]:
    """Ruling 33 and the KINGDOM row: Kingdom (fewer than 8), Strategy, Capitol and main
    tactics, ascending."""
    player = state.players[seat]
    tables = state.tables
    hand, cost, banned = player.hand, tables.cost, state.banned
    money_at_hand = money(state, seat)
    for kind in tables.kingdom_phase_kinds:
        if not hand[kind] or kind in banned or cost[kind] > money_at_hand:
            continue
        card = tables.kinds[kind]
        if card.is_kingdom:
            if sum(player.kingdom) >= MAX_KINGDOM:
                continue
        elif (
            card.is_tactic
            and card.effect == "destroy_kingdom"
            and not any(sum(state.players[p].kingdom) for p in opponents_in_game(state, seat))
        ):
            continue
        yield kind


def kingdom_choices(state: GeneralsState) -> tuple[int, Iterator[int]]:
    play = state.layout.starts[_PLAY]
    return END_PHASE, (play + kind for kind in kingdom_plays(state, state.current))


def kingdom_actions(state: GeneralsState) -> list[int]:
    first, more = kingdom_choices(state)
    return [first, *more]  # the plays come ascending


def apply_kingdom(state: GeneralsState, action: int, rng: np.random.Generator) -> list[float]:
    earned = no_rewards(state)
    if action == END_PHASE:
        state.phase = ARMY
    else:
        play_kingdom_card(state, state.current, decoded(state, action)[1], earned)
    return earned


def play_kingdom_card(state: GeneralsState, seat: int, kind: int, earned: list[float]) -> None:
    player = state.players[seat]
    card = state.tables.kinds[kind]
    pay(state, seat, effective_cost(state, seat, kind))
    player.hand[kind] -= 1
    ban_if_ultra_rare(state, kind)
    if card.is_kingdom:
        player.kingdom[kind] += 1
    elif card.is_strategy:  # ruling 31: one slot, the old one is discarded
        if player.strategy >= 0:
            player.discard[player.strategy] += 1
        player.strategy = kind
    elif card.is_capitol:  # ruling 28
        if player.capitol >= 0:
            player.discard[player.capitol] += 1
        player.capitol = kind
    else:  # a main tactic: resolves and goes to the discard pile
        player.discard[kind] += 1
        if card.effect == "draw":
            for _ in range(card.amount):
                draw(player, player.playing_deck)
        elif card.effect == "gain_ch":
            change_ch(state, seat, card.amount, earned)
        else:  # destroy_kingdom: choose the player, then the card
            state.phase = TARGET_PLAYER
        return
    change_ch(state, seat, card.on_play_ch, earned)


# TARGET_PLAYER, TARGET_KIND (a destroy_kingdom tactic): an opponent, then a Kingdom card of it.


def target_player_actions(state: GeneralsState) -> list[int]:
    seat, lay = state.current, state.layout
    return sorted(
        lay.index(Kind.TARGET_PLAYER, state.offset_of(seat, p))
        for p in opponents_in_game(state, seat)
        if sum(state.players[p].kingdom)
    )


def apply_target_player(state: GeneralsState, action: int, rng: np.random.Generator) -> list[float]:
    state.target_player = state.seat_at(state.current, decoded(state, action)[1])
    state.phase = TARGET_KIND
    return no_rewards(state)


def target_kind_actions(state: GeneralsState) -> list[int]:
    target_kind = state.layout.starts[Kind.TARGET_KIND]
    return [target_kind + kind for kind, count in enumerate(state.players[state.target_player].kingdom) if count]


def apply_target_kind(state: GeneralsState, action: int, rng: np.random.Generator) -> list[float]:
    kind = decoded(state, action)[1]
    target = state.players[state.target_player]
    target.kingdom[kind] -= 1
    target.discard[kind] += 1
    state.target_player = -1
    state.phase = KINGDOM
    return no_rewards(state)
