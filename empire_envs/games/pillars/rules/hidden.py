"""Hidden information for search agents: ``determinize`` redraws everything one seat cannot
see, consistent with what it has seen."""

from __future__ import annotations

import numpy as np

from ..state import ANSWER_NO, TRADE_OFFER, PillarsState, full_deck_counts


def determinize(state: PillarsState, player: int, rng: np.random.Generator) -> PillarsState:
    """A copy in which everything ``player`` cannot see is resampled, consistent with what is
    public: hand sizes, the known-cards tracker, a standing "no" answer of this turn's battle,
    and the kinds of cards still unseen. The resource pile's order, the other hands beyond the
    tracker, hidden trade offers and a hidden attacker throw are redrawn."""
    n, size = state.n, state.kinds.size
    if isinstance(player, bool) or not isinstance(player, (int, np.integer)) or not 0 <= player < n:
        raise ValueError(f"determinize needs a seat 0..{n - 1}, got {player!r}")
    copy = state.clone()
    others = [s for s in range(n) if s != player]
    unseen = list(full_deck_counts(state.config))
    for seat in range(n):
        for k in range(size):
            unseen[k] -= state.pile_counts[seat][k] + state.pillar_cards[seat][k]
    hand = state.hands[player]
    for k in range(size):
        unseen[k] -= hand[k]
    for seat in others:
        for k in range(size):
            unseen[k] -= state.known[seat][k]
    # The standing "no": the defender holds none of the demanded kind right now.
    excluded = (
        (state.battle_defender, state.battle_kind)
        if state.battle_answer == ANSWER_NO and state.battle_defender != player
        else None
    )
    pool = [k for k in range(size) for _ in range(unseen[k])]
    order = rng.permutation(len(pool))
    pool = [pool[i] for i in order]
    new_hands = {}
    if excluded is not None:  # the constrained hand is dealt first, while every kind is left
        others.remove(excluded[0])
        others.insert(0, excluded[0])
    for seat in others:
        new_hand = state.known[seat][:]
        missing = state.hand_sizes[seat] - sum(new_hand)
        if excluded is not None and excluded[0] == seat:
            picked: list[int] = []
            rest: list[int] = []
            for k in pool:
                (rest if k == excluded[1] or len(picked) >= missing else picked).append(k)
            pool = rest
        else:
            picked, pool = pool[:missing], pool[missing:]
        for k in picked:
            new_hand[k] += 1
        new_hands[seat] = new_hand
    for seat in others:
        copy.hands[seat] = new_hands[seat]
    copy.deck = pool  # already in a random order
    # Hidden commitments: offers not yet revealed and the attacker's pending throw.
    if state.phase == TRADE_OFFER:
        for seat in others:
            if state.offers[seat] >= 0:
                held = [k for k in range(size) if copy.hands[seat][k]]
                copy.offers[seat] = held[int(rng.integers(len(held)))]
    if state.pending_throw >= 0 and state.battle_attacker != player:
        copy.pending_throw = int(rng.integers(3))
    return copy
