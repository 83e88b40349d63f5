"""What a seat may do, apart from whose turn it is: steals, trades, battles, pillars, skip
targets and the bonus action (sections 14-39 of ``docs/rules/pillars.md``). The phase table
(``phases``) builds each phase's legal actions from these."""

from __future__ import annotations

from ..actions import ActionLayout, Kind, layout_for
from ..state import (
    BUILD,
    CARDS_PER_PILLAR,
    MERCHANT,
    NO_EMPIRE,
    NUM_PILLAR_RANKS,
    THIEF,
    WARLORD,
    PillarsState,
    empire_ranks,
)

#: the interaction each empire's bonus action repeats (section 37)
BONUS_KIND = {THIEF: Kind.STEAL, MERCHANT: Kind.TRADE, WARLORD: Kind.BATTLE}


def layout(state: PillarsState) -> ActionLayout:
    """The action layout of ``state``'s kinds of card."""
    return layout_for(state.kinds)


def seat_at(state: PillarsState, actor: int, offset: int) -> int:
    """The seat at ``offset`` (1..n-1) clockwise from ``actor``."""
    return (actor + offset) % state.n


def can_steal(state: PillarsState, player: int, offset: int) -> bool:
    """Only the top card of another seat's non-empty pile, never a 2 (sections 14, 15)."""
    if not 1 <= offset < state.n:
        return False
    pile = state.piles[seat_at(state, player, offset)]
    return bool(pile) and not state.kinds.is_two[pile[-1]]


def _someone_to_trade_with(state: PillarsState, player: int) -> bool:
    return any(state.hand_sizes[s] > 0 for s in range(state.n) if s != player)


def pillars_allowed(state: PillarsState) -> bool:
    """Pillars are laid in the build phase from round 2, or in round 1 too by flag (section 8)."""
    return not state.in_first_round or state.config.first_round_pillars


def pillar_actions(state: PillarsState, player: int, lay: ActionLayout) -> list[int]:
    """The legal PILLAR indices of a build phase (sections 28-31): a rank not laid yet, of the
    player's empire (any rank before its first pillar), with ``j`` Jokers held and the other
    ``4 - j`` cards natural, ``4 - j`` at least ``min_natural_per_pillar``."""
    if not pillars_allowed(state):
        return []
    hand = state.hands[player]
    jokers_held = hand[state.kinds.joker]
    empire = state.empire[player]
    laid = state.pillars[player]
    most_jokers = min(jokers_held, CARDS_PER_PILLAR - state.config.min_natural_per_pillar)
    actions = []
    for rank in range(NUM_PILLAR_RANKS) if empire == NO_EMPIRE else empire_ranks(empire):
        if laid[rank]:
            continue
        naturals = sum(hand[k] for k in state.kinds.naturals[rank])
        for jokers in range(max(0, CARDS_PER_PILLAR - naturals), most_jokers + 1):
            actions.append(lay.pillar_index(rank, jokers))
    return actions


def skip_targets(state: PillarsState, player: int) -> list[int]:
    """Seat offsets that may receive a skip: other seats without one pending (section 43)."""
    return [o for o in range(1, state.n) if not state.pending_skip[seat_at(state, player, o)]]


def interaction_actions(state: PillarsState, player: int, lay: ActionLayout, kind: Kind) -> list[int]:
    """The legal indices of one kind of interaction: the steals of stealable piles (14, 15), the
    trades of the kinds held when another seat holds a card (16, 17), or every battle against
    another seat (21: any demand may be made, the answer decides)."""
    if kind is Kind.STEAL:
        # the block lists the offsets 1, 2, ... in order: zip pairs each other seat with its steal
        steals = zip(range(1, state.n), lay.block_range(Kind.STEAL), strict=False)
        return [steal for offset, steal in steals if can_steal(state, player, offset)]
    if kind is Kind.TRADE:
        if not _someone_to_trade_with(state, player):
            return []
        hand = state.hands[player]
        start = lay.starts[Kind.TRADE]  # TRADE(k) is the block's k-th action
        return [start + k for k in range(state.kinds.size) if hand[k]]
    return list(lay.battle_range(state.n))


def interaction_allowed(state: PillarsState, player: int, kind: Kind, argument: int) -> bool:
    """Whether ``interaction_actions(state, player, lay, kind)`` holds the ``kind`` action whose
    first argument is ``argument`` (a seat offset, or a TRADE's kind), without listing them."""
    if kind is Kind.STEAL:
        return can_steal(state, player, argument)
    if kind is Kind.TRADE:
        return state.hands[player][argument] > 0 and _someone_to_trade_with(state, player)
    return kind is Kind.BATTLE and argument < state.n  # any demand of the seats at offsets 1..n-1


def bonus_kind(state: PillarsState, player: int) -> Kind | None:
    """The interaction the turn player's bonus action may start now, if any (sections 37, 38):
    from round 2, after the main action, once a turn, with two pillars of an empire."""
    if state.in_first_round or not state.main_done or state.bonus_used or state.pillar_count(player) < 2:
        return None
    return BONUS_KIND.get(state.empire[player])


def bonus_actions(state: PillarsState, player: int, lay: ActionLayout) -> list[int]:
    """The legal indices of the turn player's bonus action now (none when it has no bonus)."""
    kind = bonus_kind(state, player)
    return [] if kind is None else interaction_actions(state, player, lay, kind)


def bonus_action_available(state: PillarsState) -> bool:
    """Whether the turn's player could take its bonus action right now (section 39: a bonus
    with no legal use is not available)."""
    return state.phase == BUILD and bool(bonus_actions(state, state.current, layout(state)))
