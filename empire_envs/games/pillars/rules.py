"""Pillars rules as pure functions over a ``PillarsState``: deal, legal actions, apply, returns,
determinize, and the game's metadata (``max_game_length``, ``utility_range``). Each phase is one
entry of the phase table ``PHASES`` (who acts, its legal actions, what an action does), through
which ``acting_player``, ``legal_actions``, ``legal_mask``, ``is_legal`` and ``apply_action``
dispatch. Randomness enters only through the ``rng`` arguments (the deal, the first player,
reshuffles, coin flips). The section numbers in comments are those of ``docs/rules/pillars.md``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...core.compat import deprecated
from ...core.errors import IllegalActionError
from ...core.phases import PhaseRules, phase_table
from .actions import ActionLayout, Kind, layout_for
from .config import HAND_SIZE, PillarsConfig
from .state import (
    ANSWER_NO,
    ANSWER_YES,
    BUILD,
    CARDS_PER_PILLAR,
    DISCARD,
    EVENT_BATTLE,
    EVENT_STEAL,
    EVENT_TRADE,
    MERCHANT,
    NO_EMPIRE,
    NUM_PILLAR_RANKS,
    ONGOING,
    ORIGIN_BONUS,
    ORIGIN_MAIN,
    OVER,
    PILLARS_TO_WIN,
    RANKS_PER_EMPIRE,
    RPS_ATTACKER,
    RPS_DEFENDER,
    SKIP_TARGET,
    THIEF,
    TRADE_OFFER,
    TRADE_PICK,
    TRUNCATED,
    TURN_PLAYED,
    TURN_SKIPPED,
    WARLORD,
    WON,
    Interaction,
    Phase,
    PillarsState,
    SeatTurn,
    empire_of,
    empire_ranks,
    full_deck_counts,
    with_interaction,
    with_skip_given,
)

FIRST_PILLAR_DRAW = 6

# A played turn's record at its start (immutable, so one instance serves every seat and game).
PLAYED_TURN = SeatTurn(TURN_PLAYED)

#: the interaction each empire's bonus action repeats (section 37)
BONUS_KIND = {THIEF: Kind.STEAL, MERCHANT: Kind.TRADE, WARLORD: Kind.BATTLE}


def layout(state: PillarsState) -> ActionLayout:
    return layout_for(state.kinds)


# --------------------------------------------------------------------------- setting up


def new_game(
    config: PillarsConfig,
    rng: np.random.Generator,
    *,
    deck: Sequence[int] | None = None,
    first_player: int | None = None,
) -> PillarsState:
    """Shuffle all packs, deal 10 cards to each seat, pick the first player at random (3, 4, 5)
    and start its turn with the automatic draw.

    ``deck`` stacks the whole shuffled deck as kinds, top card first (dealt one card at a time
    clockwise from the first player); ``first_player`` fixes the first seat. Both are checked
    before anything is drawn: a wrong type is a ``TypeError``, a wrong value a ``ValueError``,
    each naming the option (never a silent conversion).
    """
    state = PillarsState(config)
    n = config.num_players
    counts = full_deck_counts(config)
    order = None if deck is None else checked_deck(deck, counts)
    chosen = None if first_player is None else checked_first_player(first_player, n)
    if order is None:
        cards = [k for k, c in enumerate(counts) for _ in range(c)]
        order = [cards[i] for i in rng.permutation(len(cards))]
    first_player = int(rng.integers(n)) if chosen is None else chosen
    state.deck = order[::-1]  # top card last
    for i in range(HAND_SIZE * n):
        seat = (first_player + i) % n
        kind = state.deck.pop()
        state.hands[seat][kind] += 1
        state.hand_sizes[seat] += 1
    state.current = int(first_player)
    state.turn = 0
    _begin_turn(state, rng)
    return state


def checked_first_player(value: object, n: int) -> int:
    """The ``first_player`` reset option as a seat: an int (or numpy integer) in 0..n-1."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"reset option 'first_player' must be an int seat 0..{n - 1}, got {value!r}")
    if not 0 <= value < n:
        raise ValueError(f"reset option 'first_player' must be a seat 0..{n - 1}, got {value!r}")
    return int(value)


def checked_deck(deck: object, counts: list[int]) -> list[int]:
    """The ``deck`` reset option as a list of kinds, top card first: a list, tuple or 1-D array
    of ints holding exactly the cards of the packs (``counts`` per kind). Strings, numbers,
    floats and digit strings are refused by name, never converted."""
    size = len(counts)
    expected = f"a sequence of card kinds (ints 0..{size - 1}, top card first)"
    if isinstance(deck, np.ndarray):
        if deck.ndim != 1:
            raise TypeError(f"reset option 'deck' must be {expected}, got an array of shape {deck.shape}")
    elif isinstance(deck, (str, bytes)) or not isinstance(deck, Sequence):
        raise TypeError(f"reset option 'deck' must be {expected}, got {_short_repr(deck)}")
    given = [0] * size
    order = []
    for k in deck:
        if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)):
            raise TypeError(f"reset option 'deck' must be {expected}, got the entry {k!r}")
        if not 0 <= k < size:
            raise ValueError(f"reset option 'deck' must be {expected}, got the kind {k!r}")
        given[k] += 1
        order.append(int(k))
    if given != counts:
        raise ValueError(
            f"reset option 'deck': a stacked deck must hold exactly the {sum(counts)} cards of the packs "
            f"(counts per kind {counts}), got counts {given}"
        )
    return order


def _short_repr(value: object, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


# --------------------------------------------------------------------------- what may be done


def _seat(state: PillarsState, actor: int, offset: int) -> int:
    return (actor + offset) % state.n


def can_steal(state: PillarsState, player: int, offset: int) -> bool:
    """Only the top card of another seat's non-empty pile, never a 2 (sections 14, 15)."""
    if not 1 <= offset < state.n:
        return False
    pile = state.piles[_seat(state, player, offset)]
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
    return [o for o in range(1, state.n) if not state.pending_skip[_seat(state, player, o)]]


def _interaction_actions(state: PillarsState, player: int, lay: ActionLayout, kind: Kind) -> list[int]:
    """The legal indices of one kind of interaction: the steals of stealable piles (14, 15), the
    trades of the kinds held when another seat holds a card (16, 17), or every battle against
    another seat (21: any demand may be made, the answer decides)."""
    if kind is Kind.STEAL:
        return [lay.steal_index(o) for o in range(1, state.n) if can_steal(state, player, o)]
    if kind is Kind.TRADE:
        if not _someone_to_trade_with(state, player):
            return []
        hand = state.hands[player]
        return [lay.trade + k for k in range(state.kinds.size) if hand[k]]
    return list(lay.battle_range(state.n))


def _bonus_kind(state: PillarsState, player: int) -> Kind | None:
    """The interaction the turn player's bonus action may start now, if any (sections 37, 38):
    from round 2, after the main action, once a turn, with two pillars of an empire."""
    if state.in_first_round or not state.main_done or state.bonus_used or state.pillar_count(player) < 2:
        return None
    return BONUS_KIND.get(state.empire[player])


def _bonus_actions(state: PillarsState, player: int, lay: ActionLayout) -> list[int]:
    kind = _bonus_kind(state, player)
    return [] if kind is None else _interaction_actions(state, player, lay, kind)


def bonus_action_available(state: PillarsState) -> bool:
    """Whether the turn's player could take its bonus action right now (section 39: a bonus
    with no legal use is not available)."""
    return state.phase == BUILD and bool(_bonus_actions(state, state.current, layout(state)))


# --------------------------------------------------------------------------- the phases
#
# Each phase in one place: who acts (``actor``), its legal actions, ascending (``legal_actions``),
# and what a legal action does (``apply``, in place; it returns the reward the acting seat earns
# on the spot: the shaping of a pillar, 0.0 otherwise). ``PHASES`` collects them; the public
# functions below dispatch through it.


def _turn_player(state: PillarsState) -> int:
    return state.current


def _next_responder(state: PillarsState) -> int:
    return state.trade_queue[0]


def _defender(state: PillarsState) -> int:
    return state.battle_defender


def _nobody(state: PillarsState) -> int:
    return -1


def _main_actions(state: PillarsState) -> list[int]:
    """Section 11: one steal, trade or battle (or END_BUILD, when the main action is optional)."""
    player, lay = state.current, layout(state)
    actions = _interaction_actions(state, player, lay, Kind.STEAL)
    actions += _interaction_actions(state, player, lay, Kind.TRADE)
    actions += lay.battle_range(state.n)
    if state.config.main_action_optional:
        actions.append(lay.end_build)
    return actions


def _apply_main(state: PillarsState, action: int, rng: np.random.Generator) -> float:
    kind, a, b = layout(state).decode(action)
    if kind is Kind.END_BUILD:  # declining the optional main action (section 11)
        state.main_done = True
        state.phase = BUILD
    else:
        _interact(state, ORIGIN_MAIN, kind, a, b, rng)
    return 0.0


def _build_actions(state: PillarsState) -> list[int]:
    """Sections 28-39: the bonus action, pillars, and END_BUILD (always)."""
    player, lay = state.current, layout(state)
    actions = _bonus_actions(state, player, lay)
    actions += pillar_actions(state, player, lay)
    actions.append(lay.end_build)
    return actions


def _apply_build(state: PillarsState, action: int, rng: np.random.Generator) -> float:
    kind, a, b = layout(state).decode(action)
    player = state.current
    if kind is Kind.PILLAR:
        _lay_pillar(state, player, a, b, rng)
        if state.hand_sizes[player] == 0 and state.outcome == ONGOING:
            _end_turn(state, rng)  # section 35: an empty hand ends the turn, no discard, no win
        return state.config.shaping
    if kind is Kind.END_BUILD:
        if state.hand_sizes[player] == 0:  # nothing to discard: the turn just ends (41)
            _end_turn(state, rng)
        else:
            state.phase = DISCARD
        return 0.0
    _interact(state, ORIGIN_BONUS, kind, a, b, rng)
    return 0.0


def _discard_actions(state: PillarsState) -> list[int]:
    """Section 40: any one card of the hand."""
    hand, start = state.hands[state.current], layout(state).discard
    return [start + k for k in range(state.kinds.size) if hand[k]]


def _apply_discard(state: PillarsState, action: int, rng: np.random.Generator) -> float:
    _discard(state, state.current, action - layout(state).discard, rng)
    return 0.0


def _skip_actions(state: PillarsState) -> list[int]:
    """Section 43: a seat without a pending skip, or no one (if optional, or if none is left)."""
    lay = layout(state)
    actions = [lay.skip_index(o) for o in skip_targets(state, state.current)]
    if state.config.skip_optional or not actions:
        actions.append(lay.no_skip)
    return actions


def _apply_skip(state: PillarsState, action: int, rng: np.random.Generator) -> float:
    lay = layout(state)
    if action != lay.no_skip:
        player = state.current
        target = _seat(state, player, action - lay.skip + 1)
        state.pending_skip[target] = True
        state.turn_log[player] = with_skip_given(state.turn_log[player], target)
    _end_turn(state, rng)
    return 0.0


def _offer_actions(state: PillarsState) -> list[int]:
    """Section 18: the next responder offers any one card of its hand."""
    hand, start = state.hands[state.trade_queue[0]], layout(state).offer
    return [start + k for k in range(state.kinds.size) if hand[k]]


def _apply_offer(state: PillarsState, action: int, rng: np.random.Generator) -> float:
    _offer(state, state.trade_queue[0], action - layout(state).offer)
    return 0.0


def _pick_actions(state: PillarsState) -> list[int]:
    """Section 19: the trader takes one of the offers."""
    lay, trader = layout(state), state.current
    return [lay.pick_index(o) for o in range(1, state.n) if state.offers[_seat(state, trader, o)] >= 0]


def _apply_pick(state: PillarsState, action: int, rng: np.random.Generator) -> float:
    trader = state.current
    _pick(state, trader, _seat(state, trader, action - layout(state).pick + 1))
    _finish_interaction(state)
    return 0.0


def _throw_actions(state: PillarsState) -> list[int]:
    """Sections 24-26: rock, paper or scissors."""
    return list(layout(state).blocks[Kind.THROW])


def _apply_attacker_throw(state: PillarsState, action: int, rng: np.random.Generator) -> float:
    state.pending_throw = action - layout(state).throw  # hidden from everyone else until the defender throws
    state.phase = RPS_DEFENDER
    return 0.0


def _apply_defender_throw(state: PillarsState, action: int, rng: np.random.Generator) -> float:
    throw = action - layout(state).throw
    attacker_throw = state.pending_throw
    state.pending_throw = -1
    state.last_throws = [attacker_throw, throw]
    if attacker_throw != throw:
        _resolve_battle(state, (attacker_throw - throw) % 3 == 1)
        return 0.0
    # A tie: throw again, or a coin after rps_max_ties ties (26).
    state.battle_ties += 1
    state.battle_tie_throws[throw] += 1
    if state.battle_ties >= state.config.rps_max_ties:
        _resolve_battle(state, _coin(state, rng), by_coin=True)
    else:
        state.phase = RPS_ATTACKER
    return 0.0


def _no_actions(state: PillarsState) -> list[int]:
    return []


def _game_over(state: PillarsState, action: int, rng: np.random.Generator) -> float:
    raise IllegalActionError("the game is over")


PHASES = phase_table(
    Phase,
    {
        Phase.MAIN: PhaseRules(_turn_player, _main_actions, _apply_main),
        Phase.BUILD: PhaseRules(_turn_player, _build_actions, _apply_build),
        Phase.DISCARD: PhaseRules(_turn_player, _discard_actions, _apply_discard),
        Phase.SKIP_TARGET: PhaseRules(_turn_player, _skip_actions, _apply_skip),
        Phase.TRADE_OFFER: PhaseRules(_next_responder, _offer_actions, _apply_offer),
        Phase.TRADE_PICK: PhaseRules(_turn_player, _pick_actions, _apply_pick),
        Phase.RPS_ATTACKER: PhaseRules(_turn_player, _throw_actions, _apply_attacker_throw),
        Phase.RPS_DEFENDER: PhaseRules(_defender, _throw_actions, _apply_defender_throw),
        Phase.OVER: PhaseRules(_nobody, _no_actions, _game_over),
    },
)
PillarsState.phase_rules = PHASES  # the state's acting_player() reads the same table


def acting_player(state: PillarsState) -> int:
    """The seat whose decision is pending, -1 once the episode is over."""
    return PHASES[state.phase].actor(state)


def legal_actions(state: PillarsState) -> list[int]:
    """The legal action indices of the acting seat, ascending."""
    return PHASES[state.phase].legal_actions(state)


def legal_mask(state: PillarsState) -> np.ndarray:
    """The int8 mask of the acting seat (a fresh array)."""
    mask = bytearray(layout(state).size)
    for action in PHASES[state.phase].legal_actions(state):
        mask[action] = 1
    return np.frombuffer(mask, dtype=np.int8)


def is_legal(state: PillarsState, action: int) -> bool:
    """Whether ``action`` (an int, or a numpy integer) is legal for the acting seat."""
    index = _as_index(action)
    return index is not None and index in PHASES[state.phase].legal_actions(state)


def _as_index(action: object) -> int | None:
    """An action as a plain int; None for anything that is not an integer (bools included)."""
    if isinstance(action, np.integer):
        return int(action)
    if isinstance(action, bool) or not isinstance(action, int):
        return None
    return action


# --------------------------------------------------------------------------- applying actions


def apply_action(state: PillarsState, action: int, rng: np.random.Generator) -> list[float]:
    """Play ``action`` for the acting seat (mutating ``state``); the rewards each seat earned by
    it. Raises ``IllegalActionError`` (leaving the state untouched) for an illegal action."""
    phase = PHASES[state.phase]
    index = _as_index(action)
    if index is None or index not in phase.legal_actions(state):
        raise IllegalActionError(_illegal_message(state, action))
    player = phase.actor(state)
    state.last_decision[player] = state.event_serial  # records from here on are news to player
    rewards = [0.0] * state.n
    rewards[player] += phase.apply(state, index, rng)
    if state.outcome == WON:
        for seat, value in enumerate(final_rewards(state)):
            rewards[seat] += value
    return rewards


def _illegal_message(state: PillarsState, action: object) -> str:
    if state.phase == OVER:
        return "the game is over"
    lay = layout(state)
    index = _as_index(action)
    name = lay.name(index) if index is not None and 0 <= index < lay.size else repr(action)
    return (
        f"{name} (action {action}) is not legal for seat {acting_player(state)} in phase "
        f"{Phase(state.phase).name}; legal: {legal_actions(state)}"
    )


def _interact(state: PillarsState, origin: int, kind: Kind, a: int, b: int, rng: np.random.Generator) -> None:
    """Start the turn player's steal, trade or battle as its main action or its bonus action."""
    player = state.current
    state.origin = origin
    if kind is Kind.STEAL:
        # A steal leaves the last trade or battle on record (section 7): only a new one replaces it.
        victim = _seat(state, player, a)
        stolen = _steal(state, player, victim)
        _record(state, EVENT_STEAL, player, victim, stolen)
        _finish_interaction(state)
        return
    state.clear_records()
    if kind is Kind.TRADE:
        _open_trade(state, player, a)
    else:
        _open_battle(state, player, _seat(state, player, a), b, rng)


def _record(state: PillarsState, event: int, actor: int, partner: int, kind: int, **details) -> None:
    """Log a finished interaction in the actor's turn record (main or bonus slot by origin)."""
    record = Interaction(state.event_serial, event, actor, partner, kind, **details)
    state.event_serial += 1
    state.turn_log[actor] = with_interaction(state.turn_log[actor], record, state.origin == ORIGIN_BONUS)


def _finish_interaction(state: PillarsState) -> None:
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


def _offer(state: PillarsState, responder: int, kind: int) -> None:
    state.offers[responder] = kind
    state.trade_queue.pop(0)
    if not state.trade_queue:  # all offers are in: they are revealed together (18, 20)
        state.trade_revealed = True
        for seat, offered in enumerate(state.offers):
            if offered >= 0:
                state.known[seat][offered] = max(state.known[seat][offered], 1)
        state.phase = TRADE_PICK


def _pick(state: PillarsState, trader: int, partner: int) -> None:
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
        _finish_interaction(state)
        return
    state.battle_answer = ANSWER_YES
    state.known[defender][kind] = max(state.known[defender][kind], 1)
    if state.config.rps_mode == "random":
        _resolve_battle(state, _coin(state, rng), by_coin=True)
    else:
        state.phase = RPS_ATTACKER


def _coin(state: PillarsState, rng: np.random.Generator) -> bool:
    state.coin_flips += 1
    return bool(rng.random() < 0.5)


def _resolve_battle(state: PillarsState, attacker_wins: bool, by_coin: bool = False) -> None:
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
    _finish_interaction(state)


def _lay_pillar(state: PillarsState, player: int, rank: int, jokers: int, rng: np.random.Generator) -> None:
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


def _discard(state: PillarsState, player: int, kind: int, rng: np.random.Generator) -> None:
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
    _end_turn(state, rng)


def _end_turn(state: PillarsState, rng: np.random.Generator) -> None:
    state.clear_records()
    state.main_done = False
    state.bonus_used = False
    state.current = (state.current + 1) % state.n
    state.turn += 1
    _begin_turn(state, rng)


def _begin_turn(state: PillarsState, rng: np.random.Generator) -> None:
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
        _end_turn(state, rng)


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


# --------------------------------------------------------------------------- outcomes


def is_terminal(state: PillarsState) -> bool:
    return state.phase == OVER


def is_truncated(state: PillarsState) -> bool:
    return state.outcome == TRUNCATED


def final_rewards(state: PillarsState) -> list[float]:
    """Section 1: winner +1, the others -1 (or ``-1/(n-1)`` when zero-sum); 0 on truncation."""
    return win_rewards(state.n, state.winner if state.outcome == WON else -1, state.config)


def win_rewards(n: int, winner: int, config: PillarsConfig) -> list[float]:
    """+1 to ``winner`` and the scheme's loss to every other seat; all 0 when ``winner`` is -1."""
    if winner < 0:
        return [0.0] * n
    loss = -1.0 if config.reward_scheme == "win_loss" else -1.0 / (n - 1)
    return [1.0 if seat == winner else loss for seat in range(n)]


def outcome_name(state: PillarsState) -> str:
    if state.outcome == WON:
        return f"won by seat {state.winner}"
    return "truncated" if state.outcome == TRUNCATED else "ongoing"


# --------------------------------------------------------------------------- determinize


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


# --------------------------------------------------------------------------- search support


def progress(state: PillarsState, seat: int) -> float:
    """Pillars laid plus the share of the next pillar already in hand (0..4.75): a rough
    distance to winning, used by ``heuristic_values`` and the heuristic agent."""
    laid = state.pillar_count(seat)
    hand = state.hands[seat]
    empire = state.empire[seat]
    jokers = hand[state.kinds.joker]
    best = 0
    for rank in range(NUM_PILLAR_RANKS):
        if state.pillars[seat][rank] or (empire != NO_EMPIRE and empire_of(rank) != empire):
            continue
        best = max(best, min(4, sum(hand[k] for k in state.kinds.naturals[rank]) + jokers))
    return laid + best / 4.0 * 0.75


def heuristic_values(state: PillarsState) -> list[float]:
    """A guess in [-1, 1] of each seat's final reward for a game cut short: the seat's progress
    against the best of the others."""
    if state.phase == OVER:
        return final_rewards(state)
    scores = [progress(state, seat) for seat in range(state.n)]
    values = []
    for seat in range(state.n):
        best_other = max(scores[s] for s in range(state.n) if s != seat)
        values.append(max(-1.0, min(1.0, (scores[seat] - best_other) / 3.0)))
    return values


def apply(state: PillarsState, action: int, rng: np.random.Generator) -> list[float]:
    """Deprecated: ``apply_action`` (the same: in place, every seat's reward)."""
    deprecated("rules.apply(state, action, rng)", "rules.apply_action(state, action, rng)")
    return apply_action(state, action, rng)


# --------------------------------------------------------------------------- game metadata


def max_interaction_decisions(config: PillarsConfig) -> int:
    """The most decisions one steal, trade or battle takes, its start included: a steal is 1; a
    trade is ``n + 1`` (the start, one offer from each other seat, the pick; 16-19); a battle is
    1 plus two throws per round of rock-paper-scissors, of which there are at most
    ``rps_max_ties`` (the ``rps_max_ties``-th tie in a row is settled by a coin, 26), so
    ``1 + 2 * rps_max_ties``, or 1 when ``rps_mode="random"`` (a coin, no throws, 27)."""
    throws = 2 * config.rps_max_ties if config.rps_mode == "played" else 0
    return 1 + max(config.num_players, throws)


def max_turn_decisions(config: PillarsConfig) -> int:
    """The most decisions one turn takes, pillar lays aside (``max_game_length`` counts those
    per game): the main action and the bonus action, each at most one interaction
    (``max_interaction_decisions``; declining an optional main action is a single END_BUILD),
    then END_BUILD, the discard and, after a discarded 2, the skip target. A round-1 turn has no
    interaction (at most END_BUILD and the discard) and a skipped turn no decision at all."""
    return 2 * max_interaction_decisions(config) + 3


def max_game_length(config: PillarsConfig) -> int:
    """An upper bound on the decisions of one game: at most ``length_limit * n`` turns begin
    (skipped turns count, and the game is truncated when turn ``length_limit * n`` would begin;
    section 47), each at most ``max_turn_decisions``, plus every pillar lay of the game: a seat
    lays at most four pillars (the four ranks of its empire, each once; sections 30, 31), so
    ``4 * n`` in all. ``tests/pillars/test_game_length.py`` plays turns that take exactly
    ``max_turn_decisions``."""
    n = config.num_players
    return config.length_limit * n * max_turn_decisions(config) + RANKS_PER_EMPIRE * n


def utility_range(config: PillarsConfig) -> tuple[float, float]:
    """The least and greatest final return of a seat (shaping excluded): a loser's -1 (or
    ``-1/(n-1)`` when zero-sum) and the winner's +1; a truncated game's 0 lies between."""
    return min(win_rewards(config.num_players, 0, config)), max(win_rewards(config.num_players, 0, config))
