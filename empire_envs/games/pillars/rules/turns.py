"""What actions do to the state: the steals, trades and battles (sections 14-27 of
``docs/rules/pillars.md``), pillars (28-36), the discard (40-46), and the flow of turns: the
skip check, the draw, reshuffles and truncation (10-12, 47). The phase table (``phases``) calls
these after checking that an action is legal."""

from __future__ import annotations

import numpy as np

from ..actions import Kind
from ..state import (
    ANSWER_NO,
    ANSWER_YES,
    BUILD,
    CARDS_PER_PILLAR,
    DISCARD,
    EVENT_BATTLE,
    EVENT_STEAL,
    EVENT_TRADE,
    NO_EMPIRE,
    ONGOING,
    ORIGIN_BONUS,
    ORIGIN_MAIN,
    OVER,
    PILLARS_TO_WIN,
    RPS_ATTACKER,
    SKIP_TARGET,
    TRADE_OFFER,
    TRADE_PICK,
    TRUNCATED,
    TURN_PLAYED,
    TURN_SKIPPED,
    WON,
    Interaction,
    Phase,
    PillarsState,
    SeatTurn,
    empire_of,
    with_interaction,
)
from ..tables import FIRST_PILLAR_DRAW
from .legality import seat_at, skip_targets

# A played turn's record at its start (immutable, so one instance serves every seat and game).
PLAYED_TURN = SeatTurn(TURN_PLAYED)


def interact(state: PillarsState, origin: int, kind: Kind, a: int, b: int, rng: np.random.Generator) -> None:
    """Start the turn player's steal, trade or battle as its main action or its bonus action."""
    player = state.current
    state.origin = origin
    if kind is Kind.STEAL:
        # A steal leaves the last trade or battle on record (section 7): only a new one replaces it.
        victim = seat_at(state, player, a)
        stolen = _steal(state, player, victim)
        _record(state, EVENT_STEAL, player, victim, stolen)
        finish_interaction(state)
        return
    state.clear_records()
    if kind is Kind.TRADE:
        _open_trade(state, player, a)
    else:
        _open_battle(state, player, seat_at(state, player, a), b, rng)


def _record(state: PillarsState, event: int, actor: int, partner: int, kind: int, **details) -> None:
    """Log a finished interaction in the actor's turn record (main or bonus slot by origin)."""
    record = Interaction(state.event_serial, event, actor, partner, kind, **details)
    state.event_serial += 1
    state.turn_log[actor] = with_interaction(state.turn_log[actor], record, state.origin == ORIGIN_BONUS)


def finish_interaction(state: PillarsState) -> None:
    """Mark the main or bonus action done and go back to the build phase."""
    if state.origin == ORIGIN_MAIN:
        state.main_done = True
    else:
        state.bonus_used = True
    state.phase = BUILD


def _move_card(state: PillarsState, giver: int, taker: int, kind: int) -> None:
    state.hands[giver][kind] -= 1
    state.hand_sizes[giver] -= 1
    state.hands[taker][kind] += 1
    state.hand_sizes[taker] += 1


def _forget(known: list[int], kind: int, count: int = 1) -> None:
    known[kind] = max(known[kind] - count, 0)


def _steal(state: PillarsState, thief: int, victim: int) -> int:
    """Move the top of the victim's pile into the thief's hand; the kind taken."""
    kind = state.piles[victim].pop()
    state.pile_counts[victim][kind] -= 1
    state.hands[thief][kind] += 1
    state.hand_sizes[thief] += 1
    state.known[thief][kind] += 1
    return kind


def _open_trade(state: PillarsState, trader: int, kind: int) -> None:
    """Section 16-18: table the card; every other seat holding cards offers, clockwise."""
    state.trade_trader = trader
    state.trade_tabled = kind
    state.known[trader][kind] = max(state.known[trader][kind], 1)
    state.trade_queue = [s for s in ((trader + o) % state.n for o in range(1, state.n)) if state.hand_sizes[s] > 0]
    state.phase = TRADE_OFFER


def offer(state: PillarsState, responder: int, kind: int) -> None:
    """Section 18: the next responder's sealed offer; the last one reveals them all."""
    state.offers[responder] = kind
    state.trade_queue.pop(0)
    if not state.trade_queue:  # all offers are in: they are revealed together (18, 20)
        state.trade_revealed = True
        for seat, offered in enumerate(state.offers):
            if offered >= 0:
                state.known[seat][offered] = max(state.known[seat][offered], 1)
        state.phase = TRADE_PICK


def pick(state: PillarsState, trader: int, partner: int) -> None:
    """Section 19: the trader takes the partner's offer, the partner gets the tabled card."""
    tabled, taken = state.trade_tabled, state.offers[partner]
    _move_card(state, trader, partner, tabled)
    _move_card(state, partner, trader, taken)
    _forget(state.known[partner], taken)
    state.known[partner][tabled] += 1
    _forget(state.known[trader], tabled)
    state.known[trader][taken] += 1
    _record(state, EVENT_TRADE, trader, partner, tabled, offers=tuple(state.offers))


def _open_battle(state: PillarsState, attacker: int, defender: int, kind: int, rng: np.random.Generator) -> None:
    """Sections 21-27: the env answers truthfully; a "yes" leads to rock-paper-scissors."""
    state.battle_attacker = attacker
    state.battle_defender = defender
    state.battle_kind = kind
    if state.hands[defender][kind] < 1:
        state.battle_answer = ANSWER_NO
        _record(state, EVENT_BATTLE, attacker, defender, kind, answer=ANSWER_NO)
        finish_interaction(state)
        return
    state.battle_answer = ANSWER_YES
    state.known[defender][kind] = max(state.known[defender][kind], 1)
    if state.config.rps_mode == "random":
        resolve_battle(state, coin(state, rng), by_coin=True)
    else:
        state.phase = RPS_ATTACKER


def coin(state: PillarsState, rng: np.random.Generator) -> bool:
    """A coin flip (sections 26, 27): whether the attacker wins."""
    state.coin_flips += 1
    return bool(rng.random() < 0.5)


def resolve_battle(state: PillarsState, attacker_wins: bool, by_coin: bool = False) -> None:
    """The winner of a "yes" battle: the attacker takes the demanded card, or nothing moves."""
    attacker, defender, kind = state.battle_attacker, state.battle_defender, state.battle_kind
    if attacker_wins:
        _move_card(state, defender, attacker, kind)
        _forget(state.known[defender], kind)
        state.known[attacker][kind] += 1
    _record(
        state,
        EVENT_BATTLE,
        attacker,
        defender,
        kind,
        answer=ANSWER_YES,
        ties=state.battle_ties,
        tie_throws=(state.battle_tie_throws[0], state.battle_tie_throws[1], state.battle_tie_throws[2]),
        throws=(-1, -1) if by_coin else (state.last_throws[0], state.last_throws[1]),
        attacker_won=attacker_wins,
        coin=by_coin,
    )
    finish_interaction(state)


def lay_pillar(state: PillarsState, player: int, rank: int, jokers: int, rng: np.random.Generator) -> None:
    """Sections 28-36: naturals in suit order, then jokers; the first pillar draws 6."""
    hand, laid, known = state.hands[player], state.pillar_cards[player], state.known[player]
    needed = CARDS_PER_PILLAR - jokers
    for kind in state.kinds.naturals[rank]:
        used = min(needed, hand[kind])
        if used:
            hand[kind] -= used
            laid[kind] += used
            _forget(known, kind, used)
            needed -= used
    joker = state.kinds.joker
    hand[joker] -= jokers
    laid[joker] += jokers
    _forget(known, joker, jokers)
    state.hand_sizes[player] -= CARDS_PER_PILLAR
    state.pillar_jokers[player] += jokers
    first = state.empire[player] == NO_EMPIRE
    state.pillars[player][rank] = 1
    if first:
        state.empire[player] = empire_of(rank)
        _draw(state, player, FIRST_PILLAR_DRAW, rng)


def discard(state: PillarsState, player: int, kind: int, rng: np.random.Generator) -> None:
    """Sections 40-46: discard, then the win check, then the skip target after a 2."""
    state.hands[player][kind] -= 1
    state.hand_sizes[player] -= 1
    state.piles[player].append(kind)
    state.pile_counts[player][kind] += 1
    _forget(state.known[player], kind)
    if state.pillar_count(player) >= PILLARS_TO_WIN:
        state.outcome = WON
        state.winner = player
        state.phase = OVER
        return
    if state.kinds.is_two[kind] and not state.in_first_round and skip_targets(state, player):
        state.phase = SKIP_TARGET
        return
    end_turn(state, rng)


def end_turn(state: PillarsState, rng: np.random.Generator) -> None:
    """Pass the turn clockwise and begin the next one."""
    state.clear_records()
    state.main_done = False
    state.bonus_used = False
    state.current = (state.current + 1) % state.n
    state.turn += 1
    begin_turn(state, rng)


def begin_turn(state: PillarsState, rng: np.random.Generator) -> None:
    """Section 10: skip check, truncation, automatic draw, then the first decision phase."""
    while True:
        if state.turn >= state.config.length_limit * state.n:
            _truncate(state)
            return
        seat = state.current
        if not state.pending_skip[seat]:
            break
        state.pending_skip[seat] = False  # the skipped turn is the whole turn (44)
        state.turn_log[seat] = SeatTurn(TURN_SKIPPED)  # its own object: each skip is an event
        state.current = (seat + 1) % state.n
        state.turn += 1
    state.turn_log[state.current] = PLAYED_TURN  # its previous turn's record gives way
    _draw(state, state.current, 1, rng)
    if state.outcome != ONGOING:
        return
    if state.in_first_round:
        state.main_done = False
        state.phase = BUILD if state.config.first_round_pillars else DISCARD
    else:
        state.phase = Phase.MAIN
    if state.phase == DISCARD and state.hand_sizes[state.current] == 0:
        end_turn(state, rng)


def _truncate(state: PillarsState) -> None:
    state.outcome = TRUNCATED
    state.phase = OVER


def _draw(state: PillarsState, seat: int, count: int, rng: np.random.Generator) -> None:
    """Draw up to ``count`` cards; an empty pile is handled per ``resource_empty`` (12)."""
    deck, hand = state.deck, state.hands[seat]
    for _ in range(count):
        if not deck:
            mode = state.config.resource_empty
            if mode == "end_draw":
                _truncate(state)
                return
            if mode == "reshuffle":
                reshuffle(state, rng)
                deck = state.deck  # the reshuffle built a new pile
            if not deck:
                return
        kind = deck.pop()
        hand[kind] += 1
        state.hand_sizes[seat] += 1


def reshuffle(state: PillarsState, rng: np.random.Generator) -> None:
    """Every discard pile but its top card becomes the new resource pile, shuffled."""
    gathered: list[int] = []
    for seat in range(state.n):
        pile = state.piles[seat]
        if len(pile) > 1:
            gathered += pile[:-1]
            top = pile[-1]
            state.piles[seat] = [top]
            counts = [0] * state.kinds.size
            counts[top] = 1
            state.pile_counts[seat] = counts
    state.deck = [gathered[i] for i in rng.permutation(len(gathered))] if gathered else []
