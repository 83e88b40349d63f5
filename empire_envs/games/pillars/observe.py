"""Pillars observation: one flat ``float32`` vector of raw counts, for one seat's view.

Seat-indexed blocks use seat offsets: 0 = the observer, 1..5 = the seats clockwise from it;
absent seats (offsets ``>= n``) are all zero. The table is the default game (``K = 14`` kinds,
569 entries); with ``battle_demand="card"`` every kind-wide block is 53 (or 54) wide, in the
same order (``observation_layout(kinds)`` gives the offsets of either).

=========  ==================  ================================================================
index      field               meaning
=========  ==================  ================================================================
0-13       hand                my count of each kind
14-78      seat 0              me (layout of one seat below)
79-143     seat 1              the next seat clockwise
144-208    seat 2              two seats clockwise
209-273    seat 3              three seats clockwise
274-338    seat 4              four seats clockwise
339-403    seat 5              five seats clockwise
404-410    public              resource pile size, round number, turn index within the round,
                               round-1 flag, main action done, bonus action used, bonus action
                               available to the acting seat now
411-418    phase               one-hot MAIN, BUILD, DISCARD, SKIP_TARGET, TRADE_OFFER,
                               TRADE_PICK, RPS_ATTACKER, RPS_DEFENDER (all 0 once over)
419-424    trade trader        one-hot seat offset of the trader
425-439    trade tabled        one-hot tabled kind (index 0: none)
440-529    trade offers        per seat offset 0..5, one-hot offered kind (index 0: none or
                               hidden); other responders' offers show only once all are in
530-535    battle attacker     one-hot seat offset of the attacker
536-541    battle defender     one-hot seat offset of the defender
542-556    battle demand       one-hot demanded kind (index 0: none)
557-559    battle answer       one-hot unknown, yes, no
560        battle ties         consecutive rock-paper-scissors ties so far
561-568    battle throws       attacker's then defender's last revealed throw, each one-hot
                               none, rock, paper, scissors (the attacker sees its own pending
                               throw in its slot)
=========  ==================  ================================================================

One seat (65 entries, ``K = 14``):

=======  =========================================================================================
offset   meaning
=======  =========================================================================================
0        1 if the seat is in the game
1        1 if it is the seat's turn
2        its hand size
3        1 if it has a pending skip
4-7      one-hot empire: none, Thief, Merchant, Warlord
8-19     1 for each pillar rank laid (3, 4, ..., K, A)
20       jokers used in its pillars
21       1 if its bonus action is unlocked (two pillars or more)
22-36    one-hot kind on top of its discard pile (index 22: empty pile)
37-50    its discard pile's count of each kind
51-64    known cards: a public lower bound of its copies of each kind (my own row: my hand)
=======  =========================================================================================
"""

from __future__ import annotations

import numpy as np

from ...core.layout import ObsLayout
from .rules import bonus_action_available
from .state import (
    CARD_KINDS,
    NUM_DECISION_PHASES,
    NUM_PILLAR_RANKS,
    OVER,
    RANK_KINDS,
    KindSet,
    PillarsState,
)

MAX_SEATS = 6


def seat_layout(kinds: KindSet) -> ObsLayout:
    k = kinds.size
    return ObsLayout(
        [
            ("present", 1), ("current", 1), ("hand size", 1), ("pending skip", 1),
            ("empire", 4), ("pillars", NUM_PILLAR_RANKS), ("pillar jokers", 1),
            ("bonus unlocked", 1), ("discard top", k + 1), ("discard counts", k), ("known", k),
        ]
    )


def observation_layout(kinds: KindSet) -> ObsLayout:
    k = kinds.size
    seat_size = seat_layout(kinds).size
    return ObsLayout(
        [("hand", k)]
        + [(f"seat {o}", seat_size) for o in range(MAX_SEATS)]
        + [
            ("public", 7), ("phase", NUM_DECISION_PHASES),
            ("trade trader", MAX_SEATS), ("trade tabled", k + 1),
            ("trade offers", MAX_SEATS * (k + 1)),
            ("battle attacker", MAX_SEATS), ("battle defender", MAX_SEATS),
            ("battle demand", k + 1), ("battle answer", 3), ("battle ties", 1),
            ("battle throws", 8),
        ]
    )


LAYOUT = observation_layout(RANK_KINDS)
SEAT_LAYOUT = seat_layout(RANK_KINDS)
CARD_LAYOUT = observation_layout(CARD_KINDS)
OBSERVATION_SIZE = LAYOUT.size


class _Offsets:
    """Start indices of one kind set's fields, looked up once rather than per observation."""

    def __init__(self, kinds: KindSet) -> None:
        full, seat = observation_layout(kinds), seat_layout(kinds)
        self.size = full.size
        self.k = kinds.size
        self.hand = full.start("hand")
        self.seat = [full.start(f"seat {o}") for o in range(MAX_SEATS)]
        self.seat_fields = {name: seat.start(name) for name, _ in seat.fields}
        self.public = full.start("public")
        self.phase = full.start("phase")
        self.trader = full.start("trade trader")
        self.tabled = full.start("trade tabled")
        self.offers = full.start("trade offers")
        self.attacker = full.start("battle attacker")
        self.defender = full.start("battle defender")
        self.demand = full.start("battle demand")
        self.answer = full.start("battle answer")
        self.ties = full.start("battle ties")
        self.throws = full.start("battle throws")


_OFFSETS = {RANK_KINDS.size: _Offsets(RANK_KINDS), CARD_KINDS.size: _Offsets(CARD_KINDS)}


def observation_size(kinds: KindSet) -> int:
    return _OFFSETS[kinds.size].size


def observation_high(state_config) -> float:
    """An upper bound of every entry for a config (the Box's ``high``)."""
    return float(max(state_config.num_cards, state_config.max_rounds + 1, state_config.rps_max_ties, 6))


def observe(state: PillarsState, player: int) -> np.ndarray:
    """What seat ``player`` sees (section 4 of the rules page)."""
    off = _OFFSETS[state.kinds.size]
    k = off.k
    n = state.n
    over = state.phase == OVER
    known_on = state.config.obs_known_cards
    zeros_k = [0] * k
    hand = state.hands[player]
    # Built as one Python list and converted once: far cheaper than per-entry numpy writes.
    values: list[float] = list(hand)
    for o in range(n):
        seat = (player + o) % n
        pile = state.piles[seat]
        pillars = state.pillars[seat]
        empire = [0, 0, 0, 0]
        empire[state.empire[seat]] = 1
        top = [0] * (k + 1)
        top[pile[-1] + 1 if pile else 0] = 1
        values += (1, 1 if seat == state.current and not over else 0, state.hand_sizes[seat],
                   1 if state.pending_skip[seat] else 0)
        values += empire
        values += pillars
        values += (state.pillar_jokers[seat], 1 if sum(pillars) >= 2 else 0)
        values += top
        values += state.pile_counts[seat]
        values += hand if o == 0 else (state.known[seat] if known_on else zeros_k)
    obs = np.zeros(off.size, dtype=np.float32)
    obs[:len(values)] = values
    p = off.public
    obs[p] = len(state.deck)
    obs[p + 1] = state.round
    obs[p + 2] = state.turn % n
    obs[p + 3] = 1.0 if state.in_first_round else 0.0
    obs[p + 4] = 1.0 if state.main_done else 0.0
    obs[p + 5] = 1.0 if state.bonus_used else 0.0
    phase = state.phase
    if not over:
        if bonus_action_available(state):
            obs[p + 6] = 1.0
        obs[off.phase + phase] = 1.0
    trader = state.trade_trader
    if trader >= 0:
        obs[off.trader + (trader - player) % n] = 1.0
        obs[off.tabled + state.trade_tabled + 1] = 1.0
        for o in range(n):
            seat = (player + o) % n
            offered = state.offers[seat]  # the trader's own row always reads "none"
            visible = offered >= 0 and (state.trade_revealed or seat == player)
            obs[off.offers + o * (k + 1) + (offered + 1 if visible else 0)] = 1.0
    else:
        obs[off.tabled] = 1.0
    attacker = state.battle_attacker
    if attacker >= 0:
        obs[off.attacker + (attacker - player) % n] = 1.0
        obs[off.defender + (state.battle_defender - player) % n] = 1.0
        obs[off.demand + state.battle_kind + 1] = 1.0
        obs[off.answer + state.battle_answer] = 1.0
        obs[off.ties] = state.battle_ties
        shown = state.last_throws[0]
        if player == attacker and state.pending_throw >= 0:
            shown = state.pending_throw
        obs[off.throws + shown + 1] = 1.0
        obs[off.throws + 4 + state.last_throws[1] + 1] = 1.0
    else:
        obs[off.demand] = 1.0
        obs[off.answer] = 1.0
    return obs
