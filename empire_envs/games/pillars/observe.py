"""Pillars observation: one flat ``float32`` vector of raw counts, for one seat's view.

Seat-indexed blocks use seat offsets: 0 = the observer, 1..5 = the seats clockwise from it;
absent seats (offsets ``>= n``) are all zero. The tables are the default game (``K = 14`` kinds,
2096 entries); with ``battle_demand="card"`` every kind-wide block is 53 (or 54) wide, in the
same order, for 6425 entries (``observation_layout(kinds)``, ``turn_layout(kinds)`` and
``record_layout(kinds)`` give the offsets of either). The sizes are those of six seats whatever
the table size, so one network serves 3 to 6 players.

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
561-563    battle tie throws   those ties counted per throw: rock, paper, scissors
564-571    battle throws       attacker's then defender's last revealed throw, each one-hot
                               none, rock, paper, scissors (the attacker sees its own pending
                               throw in its slot)
572-825    events seat 0       the event block: my own latest turn (layout of one turn below)
826-1079   events seat 1       the latest turn of the next seat clockwise
1080-1333  events seat 2       ... of two seats clockwise
1334-1587  events seat 3       ... of three seats clockwise
1588-1841  events seat 4       ... of four seats clockwise
1842-2095  events seat 5       ... of five seats clockwise
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

The event block keeps the public events of every seat's latest turn (the turn in progress for
the turn player; a turn's record is replaced when that seat's next turn begins), so it always
spans one full round: every steal, trade and battle since my own last decision, the ones I took
part in included, unless my own turn was skipped in between (then the turns before the skip are
gone; piles, pillars and the tracker still hold their lasting effects). Only finished
interactions are written, so nothing hidden ever enters it: a trade appears once its pick is
made, with every revealed offer, and a battle once it is decided. A new game (of the campaign
too) starts with an empty block.

One seat's latest turn (254 entries, ``K = 14``):

=======  ==================  ===================================================================
offset   field               meaning
=======  ==================  ===================================================================
0-1      status              one-hot played, skipped (both 0: no turn yet in this game)
2-7      skip given          one-hot seat offset this turn gave a pending skip (0s: none)
8-130    main                the main action's steal, trade or battle (layout of a record below)
131-253  bonus               the bonus action's steal, trade or battle
=======  ==================  ===================================================================

One record (123 entries, ``K = 14``; all 0: no interaction):

=======  ==================  ===================================================================
offset   field               meaning
=======  ==================  ===================================================================
0        new                 1 if it was recorded after my last decision began (news to me)
1-3      type                one-hot steal, trade, battle
4-9      partner             one-hot seat offset of the seat robbed, of the responder whose
                             offer was taken, or of the defender
10-23    kind                one-hot kind stolen, tabled or demanded
24-107   offers              trade: per seat offset 0..5, one-hot revealed offer (0s: none)
108-109  answer              battle: yes, no
110      ties                battle: rock-paper-scissors ties before it was decided
111-113  tie throws          battle: those ties counted per throw: rock, paper, scissors
114-119  throws              battle: the deciding throws, attacker's then defender's, each
                             one-hot rock, paper, scissors (0s: a coin decided)
120-121  result              battle answered yes: the attacker took the card, the defender kept
                             it
122      coin                1 if a coin decided the battle (``rps_mode="random"`` or
                             ``rps_max_ties`` ties)
=======  ==================  ===================================================================
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ...core.layout import ObsLayout
from .rules import bonus_action_available
from .state import (
    ANSWER_NO,
    ANSWER_YES,
    CARD_KINDS,
    EVENT_STEAL,
    NUM_DECISION_PHASES,
    NUM_PILLAR_RANKS,
    OVER,
    RANK_KINDS,
    TURN_NONE,
    TURN_PLAYED,
    Interaction,
    KindSet,
    PillarsState,
    SeatTurn,
)
from .tables import MAX_SEATS


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


def record_layout(kinds: KindSet) -> ObsLayout:
    """One finished interaction of the event block (all zeros: none)."""
    k = kinds.size
    return ObsLayout(
        [
            ("new", 1),
            ("type", 3),
            ("partner", MAX_SEATS),
            ("kind", k),
            ("offers", MAX_SEATS * k),
            ("answer", 2),
            ("ties", 1),
            ("tie throws", 3),
            ("throws", 6),
            ("result", 2),
            ("coin", 1),
        ]
    )


def turn_layout(kinds: KindSet) -> ObsLayout:
    """One seat's latest turn in the event block."""
    record_size = record_layout(kinds).size
    return ObsLayout([("status", 2), ("skip given", MAX_SEATS), ("main", record_size), ("bonus", record_size)])


def observation_layout(kinds: KindSet) -> ObsLayout:
    k = kinds.size
    seat_size = seat_layout(kinds).size
    turn_size = turn_layout(kinds).size
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
            ("battle tie throws", 3),
            ("battle throws", 8),
        ]
        + [(f"events seat {o}", turn_size) for o in range(MAX_SEATS)]
    )


LAYOUT = observation_layout(RANK_KINDS)
SEAT_LAYOUT = seat_layout(RANK_KINDS)
TURN_LAYOUT = turn_layout(RANK_KINDS)
RECORD_LAYOUT = record_layout(RANK_KINDS)
CARD_LAYOUT = observation_layout(CARD_KINDS)
OBSERVATION_SIZE = LAYOUT.size


class _Offsets:
    """Start indices of one kind set's fields and the one-hot rows it uses, built once rather
    than per observation."""

    def __init__(self, kinds: KindSet) -> None:
        full, seat, turn = observation_layout(kinds), seat_layout(kinds), turn_layout(kinds)
        k = kinds.size
        self.size = full.size
        self.k = k
        self.seat_size = seat.size
        self.hand = full.start("hand")
        self.seats_end = full.start("public")
        self.public = full.start("public")
        self.phase = full.start("phase")
        self.tail = self.phase  # phase, trade and battle blocks are built as one list
        self.events = full.start("events seat 0")
        self.turn_size = turn.size
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
        self.no_battle = [0] * (2 * MAX_SEATS) + self.top_rows[0] + self.answer_rows[0] + [0] * 4 + [0] * 8
        self.no_turns = [bytes(turn.size * (MAX_SEATS - n)) for n in range(MAX_SEATS + 1)]
        self.encode_turn = _turn_encoder(kinds)


def _one_hot(size: int, index: int) -> list[int]:
    row = [0] * size
    row[index] = 1
    return row


#: counts that fit a byte are converted in one C call (``bytes``); larger ones take the float path
_BYTE_LIMIT = 256


def observation_size(kinds: KindSet) -> int:
    return _OFFSETS[kinds.size].size


def observation_high(state_config) -> float:
    """An upper bound of every entry for a config (the Box's ``high``)."""
    return float(max(state_config.num_cards, state_config.length_limit + 1, state_config.rps_max_ties, 6))


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
        values += state.battle_tie_throws
        shown = state.last_throws[0]
        if player == attacker and state.pending_throw >= 0:
            shown = state.pending_throw
        values += off.throw_rows[shown + 1]
        values += off.throw_rows[state.last_throws[1] + 1]
    else:
        values += off.no_battle
    events = _event_block(state, player, off)
    if max(state.hand_sizes) < _BYTE_LIMIT and state.battle_ties < _BYTE_LIMIT:
        obs = np.frombuffer(bytes(values) + events, dtype=np.uint8).astype(np.float32)
    else:
        obs = np.concatenate(
            (np.array(values, dtype=np.float32), np.frombuffer(events, dtype=np.uint8).astype(np.float32))
        )
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


# --------------------------------------------------------------------------- event block


def _event_block(state: PillarsState, player: int, off: _Offsets) -> bytearray:
    """The event block, one byte an entry (every entry fits: counts are at most
    ``rps_max_ties``). The turn records are encoded once per observer and kept; only the "new"
    flags, which depend on the observer's last decision, are set here."""
    n = state.n
    turn_log = state.turn_log
    last_decision = state.last_decision[player]
    key = (player, n, off.k)
    parts = []
    new_at = []
    base = 0
    for o in range(n):
        turn = turn_log[(player + o) % n]
        view = turn.views.get(key)
        if view is None:  # encoded once per record and observer: records never change
            view = turn.views[key] = off.encode_turn(turn, player, n)
        encoded, marks = view
        parts.append(encoded)
        for at, serial in marks:
            if serial >= last_decision:
                new_at.append(base + at)
        base += off.turn_size
    parts.append(off.no_turns[n])
    block = bytearray().join(parts)
    for at in new_at:
        block[at] = 1
    return block


def _turn_encoder(kinds: KindSet) -> Callable[[SeatTurn, int, int], tuple[bytes, tuple[tuple[int, int], ...]]]:
    """``encode(turn, observer, n)``: one seat's turn record as the observer sees it (seats as
    offsets from the observer), and the slot-relative index and serial of each record's "new"
    entry (left 0 here). A record is mostly zeros, so the few set entries are written into a
    zero row; the offsets are bound once per kind set (this runs for every new record and
    observer, on the hot path)."""
    turn, record = turn_layout(kinds), record_layout(kinds)
    k, size = kinds.size, turn.size
    status_at, skip_at = turn.start("status"), turn.start("skip given")
    main_at, bonus_at = turn.start("main"), turn.start("bonus")
    type_at, partner_at, kind_at = record.start("type"), record.start("partner"), record.start("kind")
    offers_at, answer_at, result_at = record.start("offers"), record.start("answer"), record.start("result")
    ties_at, tie_throws_at, throws_at = record.start("ties"), record.start("tie throws"), record.start("throws")
    coin_at = record.start("coin")

    def write(row: bytearray, start: int, rec: Interaction, observer: int, n: int) -> None:
        row[start + type_at + rec.event - EVENT_STEAL] = 1
        row[start + partner_at + (rec.partner - observer) % n] = 1
        row[start + kind_at + rec.kind] = 1
        if rec.offers:
            at = start + offers_at
            for o in range(n):
                offered = rec.offers[(observer + o) % n]
                if offered >= 0:
                    row[at + offered] = 1
                at += k
        if rec.answer == ANSWER_YES:
            row[start + answer_at] = 1
            row[start + result_at + (0 if rec.attacker_won else 1)] = 1
            if rec.ties:
                row[start + ties_at] = rec.ties
                row[start + tie_throws_at : start + tie_throws_at + 3] = bytes(rec.tie_throws)
            attacker_throw, defender_throw = rec.throws
            if attacker_throw >= 0:
                row[start + throws_at + attacker_throw] = 1
                row[start + throws_at + 3 + defender_throw] = 1
            if rec.coin:
                row[start + coin_at] = 1
        elif rec.answer == ANSWER_NO:
            row[start + answer_at + 1] = 1

    def encode(turn: SeatTurn, observer: int, n: int) -> tuple[bytes, tuple[tuple[int, int], ...]]:
        row = bytearray(size)
        if turn.status != TURN_NONE:
            row[status_at + turn.status - TURN_PLAYED] = 1
        if turn.skip_given >= 0:
            row[skip_at + (turn.skip_given - observer) % n] = 1
        main, bonus = turn.main, turn.bonus
        if main is None:
            return bytes(row), ()
        write(row, main_at, main, observer, n)
        if bonus is None:
            return bytes(row), ((main_at, main.serial),)
        write(row, bonus_at, bonus, observer, n)
        return bytes(row), ((main_at, main.serial), (bonus_at, bonus.serial))

    return encode


_OFFSETS = {RANK_KINDS.size: _Offsets(RANK_KINDS), CARD_KINDS.size: _Offsets(CARD_KINDS)}
