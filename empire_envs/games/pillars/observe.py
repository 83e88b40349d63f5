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
            ("present", 1),
            ("current", 1),
            ("hand size", 1),
            ("pending skip", 1),
            ("empire", 4),
            ("pillars", NUM_PILLAR_RANKS),
            ("pillar jokers", 1),
            ("bonus unlocked", 1),
            ("discard top", k + 1),
            ("discard counts", k),
            ("known", k),
        ]
    )


def observation_layout(kinds: KindSet) -> ObsLayout:
    k = kinds.size
    seat_size = seat_layout(kinds).size
    return ObsLayout(
        [("hand", k)]
        + [(f"seat {o}", seat_size) for o in range(MAX_SEATS)]
        + [
            ("public", 7),
            ("phase", NUM_DECISION_PHASES),
            ("trade trader", MAX_SEATS),
            ("trade tabled", k + 1),
            ("trade offers", MAX_SEATS * (k + 1)),
            ("battle attacker", MAX_SEATS),
            ("battle defender", MAX_SEATS),
            ("battle demand", k + 1),
            ("battle answer", 3),
            ("battle ties", 1),
            ("battle throws", 8),
        ]
    )


LAYOUT = observation_layout(RANK_KINDS)
SEAT_LAYOUT = seat_layout(RANK_KINDS)
CARD_LAYOUT = observation_layout(CARD_KINDS)
OBSERVATION_SIZE = LAYOUT.size


class _Offsets:
    """Start indices of one kind set's fields and the one-hot rows it uses, built once rather
    than per observation."""

    def __init__(self, kinds: KindSet) -> None:
        full, seat = observation_layout(kinds), seat_layout(kinds)
        k = kinds.size
        self.size = full.size
        self.k = k
        self.seat_size = seat.size
        self.hand = full.start("hand")
        self.seats_end = full.start("public")
        self.public = full.start("public")
        self.phase = full.start("phase")
        self.tail = self.phase  # phase, trade and battle blocks are built as one list
        self.empire_rows = [_one_hot(4, e) for e in range(4)]
        self.top_rows = [_one_hot(k + 1, t) for t in range(k + 1)]  # 0: empty pile
        self.kind_rows = self.top_rows  # one-hot "none or kind" rows share the layout
        self.seat_rows = [_one_hot(MAX_SEATS, o) for o in range(MAX_SEATS)]
        self.phase_rows = [_one_hot(NUM_DECISION_PHASES, p) for p in range(NUM_DECISION_PHASES)]
        self.no_phase = [0] * NUM_DECISION_PHASES
        self.answer_rows = [_one_hot(3, a) for a in range(3)]
        self.throw_rows = [_one_hot(4, t + 1) for t in range(-1, 3)]  # -1: none
        self.zero_seats = [0] * MAX_SEATS
        self.zero_seat_row = [0] * seat.size
        self.zero_k = [0] * k
        self.no_trade = [0] * MAX_SEATS + self.top_rows[0] + [0] * (MAX_SEATS * (k + 1))
        self.no_battle = [0] * (2 * MAX_SEATS) + self.top_rows[0] + self.answer_rows[0] + [0] + [0] * 8


def _one_hot(size: int, index: int) -> list[int]:
    row = [0] * size
    row[index] = 1
    return row


_OFFSETS = {RANK_KINDS.size: _Offsets(RANK_KINDS), CARD_KINDS.size: _Offsets(CARD_KINDS)}

#: counts that fit a byte are converted in one C call (``bytes``); larger ones take the float path
_BYTE_LIMIT = 256


def observation_size(kinds: KindSet) -> int:
    return _OFFSETS[kinds.size].size


def observation_high(state_config) -> float:
    """An upper bound of every entry for a config (the Box's ``high``)."""
    return float(max(state_config.num_cards, state_config.max_rounds + 1, state_config.rps_max_ties, 6))


def observe(state: PillarsState, player: int) -> np.ndarray:
    """What seat ``player`` sees (section 4 of the rules page)."""
    off = _OFFSETS[state.kinds.size]
    n = state.n
    over = state.phase == OVER
    known_on = state.config.obs_known_cards
    hand = state.hands[player]
    current = -1 if over else state.current
    # One Python list of small counts, converted to float32 in one go (per-entry numpy writes
    # cost far more than building the list).
    values: list[int] = list(hand)
    for o in range(n):
        seat = (player + o) % n
        pile = state.piles[seat]
        pillars = state.pillars[seat]
        values += (1, 1 if seat == current else 0, 0, 1 if state.pending_skip[seat] else 0)
        values += off.empire_rows[state.empire[seat]]
        values += pillars
        values += (state.pillar_jokers[seat], 1 if sum(pillars) >= 2 else 0)
        values += off.top_rows[pile[-1] + 1 if pile else 0]
        values += state.pile_counts[seat]
        values += hand if o == 0 else (state.known[seat] if known_on else off.zero_k)
    for _ in range(n, MAX_SEATS):
        values += off.zero_seat_row
    values += [0] * 7  # the public block, written below (its counts may exceed a byte)
    values += off.no_phase if over else off.phase_rows[state.phase]
    trader = state.trade_trader
    if trader >= 0:
        values += off.seat_rows[(trader - player) % n]
        values += off.kind_rows[state.trade_tabled + 1]
        revealed = state.trade_revealed
        for o in range(n):
            seat = (player + o) % n
            offered = state.offers[seat]  # the trader's own row always reads "none"
            visible = offered >= 0 and (revealed or seat == player)
            values += off.kind_rows[offered + 1 if visible else 0]
        for _ in range(n, MAX_SEATS):
            values += off.zero_k
            values.append(0)
    else:
        values += off.no_trade
    attacker = state.battle_attacker
    if attacker >= 0:
        values += off.seat_rows[(attacker - player) % n]
        values += off.seat_rows[(state.battle_defender - player) % n]
        values += off.kind_rows[state.battle_kind + 1]
        values += off.answer_rows[state.battle_answer]
        values.append(state.battle_ties)
        shown = state.last_throws[0]
        if player == attacker and state.pending_throw >= 0:
            shown = state.pending_throw
        values += off.throw_rows[shown + 1]
        values += off.throw_rows[state.last_throws[1] + 1]
    else:
        values += off.no_battle
    if max(state.hand_sizes) < _BYTE_LIMIT and state.battle_ties < _BYTE_LIMIT:
        obs = np.frombuffer(bytes(values), dtype=np.uint8).astype(np.float32)
    else:
        obs = np.array(values, dtype=np.float32)
    size_at = off.hand + off.k + 2  # each seat row's "hand size" entry
    for o in range(n):
        obs[size_at + o * off.seat_size] = state.hand_sizes[(player + o) % n]
    obs[off.public : off.public + 7] = (
        len(state.deck),
        state.round,
        state.turn % n,
        1 if state.in_first_round else 0,
        1 if state.main_done else 0,
        1 if state.bonus_used else 0,
        1 if not over and bonus_action_available(state) else 0,
    )
    return obs
