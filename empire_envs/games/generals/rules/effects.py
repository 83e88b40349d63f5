"""The small moves of cards that many rules share: drawing a card, paying a cost (ruling 24),
an ultra rare banning its kind (ruling 7) and discarding a unit from play."""

from __future__ import annotations

from ..state import GeneralsState, PlayerState
from .derived import payment_choice


def draw(player: PlayerState, pile: list[int]) -> int:
    """Move the top card of ``pile`` to the hand; -1 if the pile is empty."""
    if not pile:
        return -1
    kind = pile.pop()
    player.hand[kind] += 1
    if pile is player.playing_deck:
        player.drawn_playing += 1
    else:
        player.drawn_supply += 1
    return kind


def pay(state: GeneralsState, seat: int, amount: int) -> None:
    """Spend the budget, then the ready cards ``payment_choice`` picks (they go to the discard
    pile, their value to the budget)."""
    player = state.players[seat]
    spent = payment_choice(state, seat, amount)
    for kind in spent:
        player.supply_ready[kind] -= 1
        player.discard[kind] += 1
        player.budget += state.tables.value[kind]
    player.budget -= amount


def ban_if_ultra_rare(state: GeneralsState, kind: int) -> None:
    """Ruling 7: once an ultra rare enters play, nobody may play that card again."""
    if state.tables.ultra_rare[kind]:
        state.banned.add(kind)


def discard_unit(state: GeneralsState, seat: int, slot: int) -> None:
    player = state.players[seat]
    unit = player.units[slot]
    assert unit is not None
    player.discard[unit.kind] += 1
    player.units[slot] = None
