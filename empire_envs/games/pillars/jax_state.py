"""The Pillars twin's state (one game; ``jax.vmap`` batches it) and its conversions to and from
the Python rules' ``PillarsState``, derived from ``PillarsState.FIELDS`` (``core.jax_game.
state_codec``): only the fields the twin keeps another way are converted here by hand.

Sizes are static per config: ``n`` seats, ``K`` kinds (14, or 53 with ``battle_demand="card"``),
``C`` cards in the packs (``config.num_cards``), 12 pillar ranks. Seats are absolute here (the
observation turns them into offsets).

=======================  ==============  ======================================================
field                    type            meaning (the Python field of the same name, unless said)
=======================  ==============  ======================================================
``deck``                 int8[C]         the resource pile, bottom first: ``deck[:deck_size]``
                                         (Python: a list, top card last); entries past the size
                                         are left as they were (the deal's order survives there
                                         until a reshuffle writes over it)
``deck_size``            int16           cards in the resource pile
``hands``                int16[n, K]     each seat's count of each kind
``hand_sizes``           int16[n]
``piles``                int8[n, C]      each discard pile, bottom first: ``piles[s, :pile_sizes[s]]``
                                         (Python: lists, top card last); -1 past the size
``pile_sizes``           int16[n]        twin only: Python's ``len(piles[s])``
``pile_counts``          int16[n, K]
``pillars``              bool[n, 12]     pillar ranks laid
``pillar_cards``         int16[n, K]     the cards in each seat's pillars
``pillar_jokers``        int8[n]
``empire``               int8[n]         ``state.NO_EMPIRE``, ``THIEF``, ``MERCHANT``, ``WARLORD``
``pending_skip``         bool[n]
``known``                int16[n, K]     the public known-cards tracker
``turn_player``          int8            Python's ``current``: whose turn it is
``current_player``       int32           pgx's field: the seat to act (the turn player, a trade's
                                         next responder or a battle's defender; Python's
                                         ``acting_player``); once the game is over, the seat that
                                         acted last (``core.jax_game``'s rule)
``turn``                 int32           turns begun, skipped ones included
``phase``                int8            ``state.Phase``
``main_done``,           bool
``bonus_used``
``origin``               int8            ``ORIGIN_MAIN`` or ``ORIGIN_BONUS``
``trade_trader``         int8            -1: no trade on record
``trade_tabled``         int8            kind, -1 none
``trade_queue``          bool[n]         responders still to offer (Python: a list, head first;
                                         its order is always clockwise from the trader's left,
                                         so the set says it all)
``offers``               int8[n]         each seat's offered kind, -1 none
``trade_revealed``       bool
``battle_attacker``,     int8            -1: no battle on record
``battle_defender``,
``battle_kind``
``battle_answer``        int8            ``ANSWER_UNKNOWN``, ``ANSWER_YES``, ``ANSWER_NO``
``battle_ties``          int16
``pending_throw``        int8            the attacker's hidden throw, -1 none
``last_throws``          int8[2]         the last revealed pair, -1 none
``battle_tie_throws``    int16[3]        this battle's ties per throw
``turn_status``          int8[n]         Python ``turn_log[s].status`` (``TURN_NONE``,
                                         ``TURN_PLAYED``, ``TURN_SKIPPED``)
``skip_given``           int8[n]         Python ``turn_log[s].skip_given`` (-1 none)
``rec_*``                [n, 2, ...]     Python ``turn_log[s].main`` (slot 0) and ``.bonus``
                                         (slot 1), each an ``Interaction``; ``rec_event`` 0 is
                                         None, else ``EVENT_STEAL``, ``EVENT_TRADE``,
                                         ``EVENT_BATTLE``; the actor of a record is its seat
``rec_serial``           int32[n, 2]
``rec_event``            int8[n, 2]
``rec_partner``          int8[n, 2]
``rec_kind``             int8[n, 2]
``rec_offers``           int8[n, 2, n]   a trade's revealed offers (-1 none); all -1 otherwise
``rec_answer``           int8[n, 2]
``rec_ties``             int16[n, 2]
``rec_tie_throws``       int16[n, 2, 3]
``rec_throws``           int8[n, 2, 2]   -1, -1 when a coin decided or there was no throw
``rec_attacker_won``,    bool[n, 2]
``rec_coin``
``event_serial``         int32
``last_decision``        int32[n]
``outcome``              int8            an index of ``OUTCOME_NAMES`` (Python: ``outcome`` and
                                         ``winner``)
``coin_flips``           int32           coins flipped so far
``last_coin``            int8            the coin this step flipped: 1 heads (Python's
                                         ``random() < 0.5``: the attacker wins), 0 tails, -1
                                         none (twin only: the lockstep tests hand it to Python)
``shuffled``             int16           cards this step's reshuffle gathered, 0 none (twin only:
                                         ``deck[:shuffled]`` is then the new pile's order, which
                                         the lockstep tests hand to Python as a permutation)
=======================  ==============  ======================================================
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from ...core.errors import ILLEGAL_ACTION_OUTCOME
from ...core.jax_game import JaxState, fresh_pgx_fields, jax_state, state_codec
from ...core.rng import PresetDraws
from .actions import layout_for
from .config import PillarsConfig
from .observe import observation_size
from .state import (
    ANSWER_UNKNOWN,
    DISCARD,
    NO_EMPIRE,
    NUM_PILLAR_RANKS,
    ONGOING,
    TRUNCATED,
    TURN_NONE,
    WON,
    Interaction,
    PillarsState,
    SeatTurn,
    full_deck_counts,
    kinds_for,
)
from .tables import OUTCOME_NAMES as PYTHON_OUTCOME_NAMES
from .tables import TRUNCATED_NAME, won_name

#: ``state.outcome`` indexes these: ongoing, a win of each of the six seats, truncated (the
#: Python rules' results, ``tables.OUTCOME_NAMES``), then the env's illegal action
OUTCOME_NAMES = (*PYTHON_OUTCOME_NAMES, ILLEGAL_ACTION_OUTCOME)
ONGOING_RESULT = 0
WON_BY_0 = 1  # WON_BY_0 + seat
TRUNCATED_RESULT = PYTHON_OUTCOME_NAMES.index(TRUNCATED_NAME)
ILLEGAL = len(PYTHON_OUTCOME_NAMES)
assert PYTHON_OUTCOME_NAMES[WON_BY_0] == won_name(0)

#: record slots of a seat's latest turn: the main action's interaction, the bonus action's
MAIN_SLOT, BONUS_SLOT = 0, 1
NUM_SLOTS = 2


@jax_state
@dataclasses.dataclass(frozen=True)
class State(JaxState):
    deck: jax.Array
    deck_size: jax.Array
    hands: jax.Array
    hand_sizes: jax.Array
    piles: jax.Array
    pile_sizes: jax.Array
    pile_counts: jax.Array
    pillars: jax.Array
    pillar_cards: jax.Array
    pillar_jokers: jax.Array
    empire: jax.Array
    pending_skip: jax.Array
    known: jax.Array
    turn_player: jax.Array
    turn: jax.Array
    phase: jax.Array
    main_done: jax.Array
    bonus_used: jax.Array
    origin: jax.Array
    trade_trader: jax.Array
    trade_tabled: jax.Array
    trade_queue: jax.Array
    offers: jax.Array
    trade_revealed: jax.Array
    battle_attacker: jax.Array
    battle_defender: jax.Array
    battle_kind: jax.Array
    battle_answer: jax.Array
    battle_ties: jax.Array
    pending_throw: jax.Array
    last_throws: jax.Array
    battle_tie_throws: jax.Array
    turn_status: jax.Array
    skip_given: jax.Array
    rec_serial: jax.Array
    rec_event: jax.Array
    rec_partner: jax.Array
    rec_kind: jax.Array
    rec_offers: jax.Array
    rec_answer: jax.Array
    rec_ties: jax.Array
    rec_tie_throws: jax.Array
    rec_throws: jax.Array
    rec_attacker_won: jax.Array
    rec_coin: jax.Array
    event_serial: jax.Array
    last_decision: jax.Array
    outcome: jax.Array
    coin_flips: jax.Array
    last_coin: jax.Array
    shuffled: jax.Array


def blank_state(config: PillarsConfig) -> State:
    """A state before the deal: every card in the resource pile in kind order, empty hands and
    piles, seat 0's round-1 DISCARD phase. ``jax_rules.init`` shuffles and deals into it."""
    n, k, c = config.num_players, config.num_kinds, config.num_cards
    deck = np.array([kind for kind, count in enumerate(full_deck_counts(config)) for _ in range(count)], np.int8)

    def seats(dtype, fill=0) -> jax.Array:
        return jnp.full(n, fill, dtype=dtype)

    def per_kind() -> jax.Array:
        return jnp.zeros((n, k), dtype=jnp.int16)

    def records(dtype, fill=0, *tail) -> jax.Array:
        return jnp.full((n, NUM_SLOTS, *tail), fill, dtype=dtype)

    return State(
        deck=jnp.asarray(deck),
        deck_size=jnp.int16(c),
        hands=per_kind(),
        hand_sizes=seats(jnp.int16),
        piles=jnp.full((n, c), -1, dtype=jnp.int8),
        pile_sizes=seats(jnp.int16),
        pile_counts=per_kind(),
        pillars=jnp.zeros((n, NUM_PILLAR_RANKS), dtype=jnp.bool_),
        pillar_cards=per_kind(),
        pillar_jokers=seats(jnp.int8),
        empire=seats(jnp.int8, NO_EMPIRE),
        pending_skip=seats(jnp.bool_, False),
        known=per_kind(),
        turn_player=jnp.int8(0),
        turn=jnp.int32(0),
        phase=jnp.int8(DISCARD),
        main_done=jnp.bool_(False),
        bonus_used=jnp.bool_(False),
        origin=jnp.int8(0),
        trade_trader=jnp.int8(-1),
        trade_tabled=jnp.int8(-1),
        trade_queue=seats(jnp.bool_, False),
        offers=seats(jnp.int8, -1),
        trade_revealed=jnp.bool_(False),
        battle_attacker=jnp.int8(-1),
        battle_defender=jnp.int8(-1),
        battle_kind=jnp.int8(-1),
        battle_answer=jnp.int8(ANSWER_UNKNOWN),
        battle_ties=jnp.int16(0),
        pending_throw=jnp.int8(-1),
        last_throws=jnp.full(2, -1, dtype=jnp.int8),
        battle_tie_throws=jnp.zeros(3, dtype=jnp.int16),
        turn_status=seats(jnp.int8, TURN_NONE),
        skip_given=seats(jnp.int8, -1),
        rec_serial=records(jnp.int32),
        rec_event=records(jnp.int8),
        rec_partner=records(jnp.int8, -1),
        rec_kind=records(jnp.int8, -1),
        rec_offers=records(jnp.int8, -1, n),
        rec_answer=records(jnp.int8, ANSWER_UNKNOWN),
        rec_ties=records(jnp.int16),
        rec_tie_throws=records(jnp.int16, 0, 3),
        rec_throws=records(jnp.int8, -1, 2),
        rec_attacker_won=records(jnp.bool_, False),
        rec_coin=records(jnp.bool_, False),
        event_serial=jnp.int32(0),
        last_decision=seats(jnp.int32),
        outcome=jnp.int8(ONGOING_RESULT),
        coin_flips=jnp.int32(0),
        last_coin=jnp.int8(-1),
        shuffled=jnp.int16(0),
        **fresh_pgx_fields(observation_size(kinds_for(config)), layout_for(kinds_for(config)).size, n),
    )


# --------------------------------------------------------------------------- to and from Python


def _python_result(outcome: int, n: int) -> tuple[int, int]:
    """Python's ``(outcome, winner)`` of a twin result. An illegal action has no Python
    counterpart: it is reported as a truncation (the lockstep tests never play one)."""
    if WON_BY_0 <= outcome < WON_BY_0 + n:
        return WON, outcome - WON_BY_0
    if outcome == ONGOING_RESULT:
        return ONGOING, -1
    return TRUNCATED, -1


def twin_result(python: PillarsState) -> int:
    """The twin's ``outcome`` of a Python state."""
    if python.outcome == WON:
        return WON_BY_0 + python.winner
    return TRUNCATED_RESULT if python.outcome == TRUNCATED else ONGOING_RESULT


def _record(state: Any, seat: int, slot: int) -> Interaction | None:
    event = int(state.rec_event[seat, slot])
    if event == 0:
        return None
    offers = tuple(int(k) for k in state.rec_offers[seat, slot])
    return Interaction(
        serial=int(state.rec_serial[seat, slot]),
        event=event,
        actor=seat,
        partner=int(state.rec_partner[seat, slot]),
        kind=int(state.rec_kind[seat, slot]),
        offers=offers if any(k >= 0 for k in offers) else (),
        answer=int(state.rec_answer[seat, slot]),
        ties=int(state.rec_ties[seat, slot]),
        tie_throws=tuple(int(t) for t in state.rec_tie_throws[seat, slot]),  # type: ignore[arg-type]
        throws=(int(state.rec_throws[seat, slot, 0]), int(state.rec_throws[seat, slot, 1])),
        attacker_won=bool(state.rec_attacker_won[seat, slot]),
        coin=bool(state.rec_coin[seat, slot]),
    )


def _turn_log(state: Any, config: PillarsConfig) -> list[SeatTurn]:
    return [
        SeatTurn(
            int(state.turn_status[seat]),
            int(state.skip_given[seat]),
            _record(state, seat, MAIN_SLOT),
            _record(state, seat, BONUS_SLOT),
        )
        for seat in range(config.num_players)
    ]


def _records(python: PillarsState) -> list[list[Interaction | None]]:
    return [[turn.main, turn.bonus] for turn in python.turn_log]


def _record_field(python: PillarsState, read, empty) -> np.ndarray:
    return np.array([[empty if r is None else read(r) for r in pair] for pair in _records(python)])


def _record_offers(python: PillarsState) -> np.ndarray:
    n = python.n

    def offers(record: Interaction) -> tuple[int, ...]:
        return record.offers if record.offers else (-1,) * n

    return _record_field(python, offers, (-1,) * n)


def _padded(rows: list[list[int]], width: int) -> np.ndarray:
    return np.array([row + [-1] * (width - len(row)) for row in rows], dtype=np.int64)


def make_codec(config: PillarsConfig):
    """``core.jax_game.StateCodec`` of the twin for one config."""
    n, c = config.num_players, config.num_cards
    return state_codec(
        PillarsState,
        State,
        jax.eval_shape(functools.partial(blank_state, config)),  # shapes and dtypes only: no arrays built
        renamed={"current": "turn_player"},
        to_python={
            "kinds": lambda state, config: kinds_for(config),
            "n": lambda state, config: config.num_players,
            "deck": lambda state, config: [int(k) for k in state.deck[: int(state.deck_size)]],
            "piles": lambda state, config: [
                [int(k) for k in state.piles[s, : int(state.pile_sizes[s])]] for s in range(config.num_players)
            ],
            "trade_queue": lambda state, config: [
                (int(state.trade_trader) + o) % config.num_players
                for o in range(1, config.num_players)
                if state.trade_queue[(int(state.trade_trader) + o) % config.num_players]
            ],
            "turn_log": _turn_log,
            "outcome": lambda state, config: _python_result(int(state.outcome), config.num_players)[0],
            "winner": lambda state, config: _python_result(int(state.outcome), config.num_players)[1],
        },
        from_python={
            "deck": lambda python: np.array(python.deck + [0] * (c - len(python.deck))),
            "deck_size": lambda python: len(python.deck),
            "piles": lambda python: _padded(python.piles, c),
            "pile_sizes": lambda python: [len(pile) for pile in python.piles],
            "trade_queue": lambda python: [seat in python.trade_queue for seat in range(n)],
            "turn_status": lambda python: [turn.status for turn in python.turn_log],
            "skip_given": lambda python: [turn.skip_given for turn in python.turn_log],
            "rec_serial": lambda python: _record_field(python, lambda r: r.serial, 0),
            "rec_event": lambda python: _record_field(python, lambda r: r.event, 0),
            "rec_partner": lambda python: _record_field(python, lambda r: r.partner, -1),
            "rec_kind": lambda python: _record_field(python, lambda r: r.kind, -1),
            "rec_offers": _record_offers,
            "rec_answer": lambda python: _record_field(python, lambda r: r.answer, ANSWER_UNKNOWN),
            "rec_ties": lambda python: _record_field(python, lambda r: r.ties, 0),
            "rec_tie_throws": lambda python: _record_field(python, lambda r: r.tie_throws, (0, 0, 0)),
            "rec_throws": lambda python: _record_field(python, lambda r: r.throws, (-1, -1)),
            "rec_attacker_won": lambda python: _record_field(python, lambda r: r.attacker_won, False),
            "rec_coin": lambda python: _record_field(python, lambda r: r.coin, False),
            "outcome": twin_result,
            "last_coin": lambda python: -1,
            "shuffled": lambda python: 0,
        },
    )


def python_deck(state: State) -> list[int]:
    """The ``deck`` reset option that makes the Python rules deal the twin's game (kinds, top
    card first): right after ``init`` the whole deal order is still in ``state.deck``."""
    return [int(k) for k in np.asarray(state.deck)[::-1]]


def arrangement(cards: list[int], order: list[int]) -> list[int]:
    """A permutation ``p`` with ``[cards[i] for i in p] == order`` (cards of one kind are
    interchangeable, so the first unused copy is taken): what the Python rules' ``rng.
    permutation`` must return to arrange ``cards`` as the twin did."""
    unused: dict[int, list[int]] = {}
    for index, kind in enumerate(cards):
        unused.setdefault(kind, []).append(index)
    return [unused[kind].pop(0) for kind in order]


def gathered_cards(python_piles: list[list[int]]) -> list[int]:
    """The cards a reshuffle gathers, in the Python rules' order: each pile but its top card,
    seat by seat."""
    return [k for pile in python_piles for k in pile[:-1]]


def make_python_draws(config: PillarsConfig):
    """``JaxRules.python_draws`` of one config: the Python rules' draws of one twin step (the
    coin it flipped, the reshuffle's order), or of the deal (``before`` None: the first player)."""

    def python_draws(before: Any, after: Any) -> PresetDraws:
        if before is None:
            return PresetDraws(integers=[int(after.turn_player)])
        coin = int(after.last_coin)
        shuffled = int(after.shuffled)
        permutations = []
        if shuffled:
            piles = [
                [int(k) for k in np.asarray(before.piles)[s, : int(before.pile_sizes[s])]]
                for s in range(config.num_players)
            ]
            if len(gathered_cards(piles)) < shuffled:
                # the step's discard went on before the reshuffle and buried the old top, which
                # was gathered too (only the turn player discards; after a reshuffle each pile
                # holds its top alone, here the card just discarded)
                seat = int(before.turn_player)
                piles[seat].append(int(np.asarray(after.piles)[seat, 0]))
            order = [int(k) for k in np.asarray(after.deck)[:shuffled]]
            permutations.append(arrangement(gathered_cards(piles), order))
        return PresetDraws(coins=[coin == 1] if coin >= 0 else [], permutations=permutations)

    return python_draws
