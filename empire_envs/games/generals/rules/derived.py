"""Numbers the rules read off a state without changing it (section 5.1 of the rulings): static
totals and keywords, units' strength and life and whether they may enter the Battlefield, costs,
money and the payment a cost takes, hand limits, who is still in, and an action's arguments."""

from __future__ import annotations

from operator import mul

from ....core.errors import IllegalActionError
from ..actions import Kind
from ..cards import CardKind
from ..config import BASE_HAND_LIMIT
from ..state import BF, WC, GeneralsState, PlayerState


def decoded(state: GeneralsState, action: int) -> tuple[Kind, int, int, int]:
    """An action's kind and arguments (-1 where unused); legal, hence in range."""
    kind, a, b, c = state.layout.table.actions[action]
    return kind, a, b, c


def statics(state: GeneralsState, seat: int) -> dict[str, int]:
    """Every static effect's total over the seat's Kingdom, Strategy and Capitol."""
    player = state.players[seat]
    return state.tables.statics_of((bytes(player.kingdom), player.strategy, player.capitol))


def static_total(state: GeneralsState, seat: int, effect: str) -> int:
    """The sum of a static effect over the seat's Kingdom, Strategy and Capitol."""
    return statics(state, seat)[effect]


def has_keyword(state: GeneralsState, seat: int, kind: int, keyword: str) -> bool:
    """A unit kind's keyword, own or granted to all the seat's Soldiers by a static card."""
    if keyword in state.tables.kinds[kind].keywords:
        return True
    if state.tables.is_soldier[kind] and keyword in ("raider", "no_pull"):
        return static_total(state, seat, "grant_" + keyword) > 0
    return False


def _obeys_pull(card, general: bool, granted_no_pull: bool) -> bool:
    """Rulings 34-35: a Soldier waits a turn in the Warcamp unless ``no_pull`` (its own or
    granted to all the owner's Soldiers); a General only with the ``pull`` keyword."""
    if general:
        return "pull" in card.keywords
    return not ("no_pull" in card.keywords or granted_no_pull)


def obeys_pull(state: GeneralsState, seat: int, kind: int) -> bool:
    granted = statics(state, seat)["grant_no_pull"] > 0
    return _obeys_pull(state.tables.kinds[kind], state.tables.is_general[kind], granted)


def bf_entry_flags(state: GeneralsState, seat: int) -> list[bool]:
    """Per slot, whether the unit there may move from the Warcamp to the Battlefield now."""
    player = state.players[seat]
    kinds, is_general = state.tables.kinds, state.tables.is_general
    granted = statics(state, seat)["grant_no_pull"] > 0
    return [
        unit is not None
        and unit.zone == WC
        and (
            not _obeys_pull(kinds[unit.kind], is_general[unit.kind], granted) or player.turns_taken > unit.entered_turn
        )
        for unit in player.units
    ]


def may_enter_bf(state: GeneralsState, seat: int, slot: int) -> bool:
    return bf_entry_flags(state, seat)[slot]


def unit_numbers(state: GeneralsState, seat: int) -> list[tuple[int, int] | None]:
    """``(strength, life)`` of every slot of the seat outside a battle (None for an empty
    slot), section 5.1: base numbers, the owner's statics, ``field_str`` and the other Generals'
    auras in the Battlefield, ``camp_life`` and ``camp_life_all`` in the Warcamp."""
    player = state.players[seat]
    kinds = state.tables.kinds
    totals = statics(state, seat)
    auras = _battlefield_auras(state, seat)
    return [None if unit is None else _numbers(kinds[unit.kind], unit.zone, totals, auras) for unit in player.units]


def _battlefield_auras(state: GeneralsState, seat: int) -> int:
    """The ``aura_str`` of every unit of the seat in the Battlefield, summed."""
    kinds = state.tables.kinds
    return sum(kinds[u.kind].aura_str for u in state.players[seat].units if u is not None and u.zone == BF)


def _numbers(card: CardKind, zone: int, totals: dict[str, int], auras: int) -> tuple[int, int]:
    """``(strength, life)`` of a unit of ``card`` in ``zone`` (``unit_numbers``): ``totals`` the
    owner's statics, ``auras`` its Battlefield auras (the unit's own among them when it is there)."""
    general = card.is_general
    strength = card.strength + totals["general_str" if general else "soldier_str"]
    life = card.life + totals["general_life" if general else "soldier_life"]
    if zone == BF:
        strength += card.field_str + auras - card.aura_str
    else:
        life += card.camp_life + totals["camp_life_all"]
    return strength, life


def unit_numbers_at(
    state: GeneralsState, seat: int, slot: int, attacking: bool = False, blocking: bool = False
) -> tuple[int, int]:
    """``(strength, life)`` of the unit in one slot outside tactic pumps: ``unit_numbers(state,
    seat)[slot]`` without the other slots' (a battle reads one or two units), with ``attack_str``
    when attacking and ``block_life`` when blocking."""
    unit = state.players[seat].units[slot]
    assert unit is not None, f"seat {seat} has no unit in slot {slot}"
    card = state.tables.kinds[unit.kind]
    auras = _battlefield_auras(state, seat) if unit.zone == BF else 0
    strength, life = _numbers(card, unit.zone, statics(state, seat), auras)
    if attacking:
        strength += card.attack_str
    if blocking:
        life += card.block_life
    return strength, life


def unit_strength(state: GeneralsState, seat: int, slot: int, attacking: bool = False) -> int:
    """Effective strength outside tactic pumps, with ``attack_str`` when attacking."""
    return unit_numbers_at(state, seat, slot, attacking=attacking)[0]


def unit_life(state: GeneralsState, seat: int, slot: int, blocking: bool = False) -> int:
    """Effective life outside tactic pumps, with ``block_life`` when blocking."""
    return unit_numbers_at(state, seat, slot, blocking=blocking)[1]


def effective_cost(state: GeneralsState, seat: int, kind: int) -> int:
    cost = state.tables.cost[kind]
    if state.tables.is_soldier[kind]:
        cost = max(0, cost - static_total(state, seat, "soldier_discount"))
    return cost


def ready_value(state: GeneralsState, seat: int) -> int:
    return sum(map(mul, state.players[seat].supply_ready, state.tables.value))


def fresh_value(state: GeneralsState, seat: int) -> int:
    return sum(map(mul, state.players[seat].supply_fresh, state.tables.value))


def money(state: GeneralsState, seat: int) -> int:
    """What the seat can pay right now: its budget and every ready Supply Line card (ruling 24)."""
    return state.players[seat].budget + ready_value(state, seat)


def can_pay(state: GeneralsState, seat: int, amount: int) -> bool:
    return amount <= money(state, seat)


def payment_choice(state: GeneralsState, seat: int, amount: int) -> list[int]:
    """The ready cards (kinds, one entry per card) a payment spends after the budget: least
    overpayment, then fewest cards, then the lowest refs (ruling 24)."""
    player = state.players[seat]
    need = amount - player.budget
    if need <= 0:
        return []
    values, kinds = state.tables.value, state.tables.kinds
    ready = sorted((kinds[k].ref, k) for k, count in enumerate(player.supply_ready) if count)
    best: list = []  # [key, kinds spent]

    def search(i: int, total: int, spent: list[int]) -> None:
        if total >= need:
            key = (total - need, len(spent), sorted(kinds[k].ref for k in spent))
            if not best or key < best[0]:
                best[:] = [key, spent]
            return
        if i == len(ready):
            return
        kind = ready[i][1]
        for copies in range(player.supply_ready[kind] + 1):
            search(i + 1, total + copies * values[kind], spent + [kind] * copies)
            if total + copies * values[kind] >= need:
                break  # another copy would only overpay more

    search(0, 0, [])
    if not best:
        raise IllegalActionError(f"seat {seat} cannot pay {amount}")
    return best[1]


def generals_in_play(state: GeneralsState, seat: int) -> list[int]:
    is_general = state.tables.is_general
    return [u for u, unit in enumerate(state.players[seat].units) if unit is not None and is_general[unit.kind]]


def free_slot(player: PlayerState) -> int:
    for slot, unit in enumerate(player.units):
        if unit is None:
            return slot
    return -1


def hand_limit(state: GeneralsState, seat: int) -> int:
    return BASE_HAND_LIMIT + static_total(state, seat, "hand_limit")


def opponents_in_game(state: GeneralsState, seat: int) -> list[int]:
    return [p for p in range(state.num_players) if p != seat and state.players[p].alive]
