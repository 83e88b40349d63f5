"""Empire solo rules: pure game logic over ``SoloState`` (``docs/rules/solo.md`` is the prose).

Public functions:

- ``new_game(config, rng, deck=None)``: shuffle (or take a stacked deck), deal, start turn one.
- ``legal_actions(state)``: the legal action indices, ascending.
- ``apply_action(state, action, rng)``: play an action **in place**; the reward as a one-entry
  list (one seat), as in every game (``GAME.child`` is the pure form).
- ``determinize(state, seat, rng)``: a copy with the hidden deck order resampled.
- ``is_terminal``, ``returns``, ``unit_value``, ``max_game_length``.

Randomness enters only through ``rng``: at the deal and whenever the discard pile is
reshuffled into an empty deck. ``legal_actions`` and the checks inside ``apply_action`` are
written separately on purpose; the property tests prove they agree.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...core.cards import JACK, KING, NUM_CARDS, QUEEN, rank_of
from ...core.errors import IllegalActionError
from ...core.options import card_list_option
from ...core.rng import as_generator, shuffled
from . import actions as A
from .actions import Kind
from .config import SoloConfig
from .state import (
    BASE,
    BASE_VALUE,
    BATTALION,
    BUILDER,
    EMPTY,
    KEEPS,
    KING_MODE,
    LOST,
    NATIVE,
    NO_MODE,
    NUM_TERRITORIES,
    ORGANIZE,
    OVER,
    REACT,
    SEND,
    SOLDIER,
    SPLIT,
    SUM,
    SUPER,
    TRUNCATED,
    WON,
    Phase,
    SoloState,
)
from .tables import (
    BASES_TO_WIN,
    HOSTS,
    IS_BLACK_FACE,
    IS_FACE,
    IS_PROMOTION,
    IS_SOLDIER,
    LOSS_REWARD,
    MERGED,
    SHAPING_INDEX,
    VALUE,
    WIN_REWARD,
)

# --------------------------------------------------------------------------- set-up


def new_game(
    config: SoloConfig | None = None,
    rng: np.random.Generator | int | None = None,
    deck: Sequence[str | int] | None = None,
) -> SoloState:
    """Shuffle, found the six territories, and stop at the first decision.

    ``deck`` stacks the deck, top card first: a full order of the 52 cards, or just the top
    cards (the others follow, beneath them, in an order drawn from ``rng``). Setup deals from
    the top, placing soldiers in territories 0..5; face cards met on the way are shuffled back
    into the deck, except in a stacked deck, where they go to the bottom in the order met, so
    that a stacked deck is dealt exactly as written.
    """
    config = config if config is not None else SoloConfig()
    if not isinstance(config, SoloConfig):
        raise TypeError(f"config must be a SoloConfig, got {type(config).__name__}")
    rng = as_generator(rng)
    if deck is None:
        order = [int(card) for card in rng.permutation(NUM_CARDS)]
    else:
        order = _stacked_order(deck, rng)

    state = SoloState(config)
    set_aside: list[int] = []
    position = 0
    for territory in range(NUM_TERRITORIES):
        while not IS_SOLDIER[order[position]]:
            set_aside.append(order[position])
            position += 1
        state.unit_kind[territory] = SOLDIER
        state.unit_cards[territory] = (order[position],)
        position += 1
    rest = order[position:] + set_aside
    if set_aside and deck is None:
        rest = shuffled(rest, rng)
    state.deck = rest[::-1]  # the top card is the last element
    _begin_turn(state, rng)
    return state


def _stacked_order(deck: Sequence[str | int], rng: np.random.Generator) -> list[int]:
    top = card_list_option("deck", deck)  # refuses a card listed twice
    listed = set(top)
    missing = [card for card in range(NUM_CARDS) if card not in listed]
    return top + shuffled(missing, rng)


def determinize(state: SoloState, seat: int = 0, rng: np.random.Generator | int | None = None) -> SoloState:
    """A copy of ``state`` with the deck's order resampled: the only thing the player cannot see.

    Search agents plan on determinized copies, never on the true deck order. ``seat`` is always
    0 (one player).
    """
    if seat != 0:
        raise ValueError(f"a one-player game has seat 0 only, got seat {seat!r}")
    copy = state.clone()
    copy.deck = shuffled(copy.deck, as_generator(rng))
    return copy


# --------------------------------------------------------------------------- queries


def is_terminal(state: SoloState) -> bool:
    return state.phase == OVER


def returns(state: SoloState) -> float:
    """The game result without shaping: +1 won, -1 lost, 0 truncated or still going."""
    return WIN_REWARD if state.outcome == WON else LOSS_REWARD if state.outcome == LOST else 0.0


def max_game_length(config: SoloConfig) -> int:
    """An upper bound on decisions per episode.

    Between two draws there are at most 5 merges (each one empties a territory), one DRAW and
    one reaction; a battle round costs one draw and at most a mode choice, two sends and, with
    ``merge_in_battle``, 5 merges. A Jack's single send follows a turn draw.
    """
    per_draw = 5 + 1 + 1 + 1 + 2 + (5 if config.merge_in_battle else 0)
    return per_draw * (config.length_limit + 1)


def num_units(state: SoloState) -> int:
    return NUM_TERRITORIES - state.unit_kind.count(EMPTY)


def unit_value(state: SoloState, territory: int, recruit_only: bool = False) -> int:
    """Battle value of the unit at ``territory`` (or of its recruit alone)."""
    if recruit_only:
        return VALUE[state.recruit[territory]]
    if state.unit_kind[territory] == BASE:
        return BASE_VALUE
    total = sum(VALUE[card] for card in state.unit_cards[territory])
    if state.recruit[territory] >= 0:
        total += VALUE[state.recruit[territory]]
    return total


def enemy_target(state: SoloState) -> int:
    """The value a unit sent now must reach (0 for a Jack: any unit wins)."""
    rank = rank_of(state.attacker)
    if rank == JACK:
        return 0
    if rank == QUEEN or state.mode == SPLIT:
        index = 0 if rank == QUEEN or state.split_first_won < 0 else 1
        return VALUE[state.enemies[index]]
    return VALUE[state.enemies[0]] + VALUE[state.enemies[1]]


# --------------------------------------------------------------------------- legal actions


def legal_actions(state: SoloState) -> list[int]:
    """Indices of the legal actions, ascending."""
    phase = state.phase
    if phase == OVER:
        return []
    kind = state.unit_kind
    legal: list[int] = []
    if phase == ORGANIZE or (state.config.merge_in_battle and phase in (KING_MODE, SEND)):
        _add_merges(state, legal)
    if phase == ORGANIZE:
        legal.insert(0, A.DRAW)
        return legal
    if phase == REACT:
        card = state.drawn
        recruit = state.recruit
        if IS_SOLDIER[card]:
            legal += [A.PLACE[t] for t in range(NUM_TERRITORIES) if kind[t] == EMPTY]
            legal += [A.STACK[i] for i in KEEPS if kind[i] == SOLDIER]
            legal += [A.RECRUIT[t] for t in range(NUM_TERRITORIES) if kind[t] in HOSTS and recruit[t] < 0]
            legal.append(A.DISCARD)
        else:
            black_face = IS_BLACK_FACE[card]
            legal += [
                A.RECRUIT[t]
                for t in range(NUM_TERRITORIES)
                if recruit[t] < 0 and (kind[t] == BASE or (black_face and kind[t] == NATIVE))
            ]
        if IS_PROMOTION[card]:
            legal += [A.PROMOTE[i] for i in KEEPS if kind[i] == BATTALION]
            for i in KEEPS:
                if kind[i] == BUILDER:
                    legal += [A.FOUND[i, t] for t in range(NUM_TERRITORIES) if t == i or kind[t] == EMPTY]
        if IS_FACE[card]:
            legal.append(A.FIGHT)
        return legal
    if phase == KING_MODE:
        legal.append(A.SUM_ACTION)
        if num_units(state) >= 2:
            legal.append(A.SPLIT_ACTION)
        return legal
    # SEND
    legal += [A.SEND[t] for t in range(NUM_TERRITORIES) if kind[t] != EMPTY]
    legal += [A.SEND_RECRUIT[t] for t in range(NUM_TERRITORIES) if kind[t] in HOSTS and state.recruit[t] >= 0]
    return legal


def _add_merges(state: SoloState, legal: list[int]) -> None:
    kind, recruit = state.unit_kind, state.recruit
    for i in KEEPS:
        target = kind[i]
        if target in (SOLDIER, SUPER):
            legal += [A.MERGE[j, i] for j in range(NUM_TERRITORIES) if j != i and kind[j] == target]
        elif target == NATIVE and recruit[i] >= 0:
            legal += [A.MERGE[j, i] for j in KEEPS if j != i and kind[j] == NATIVE and recruit[j] >= 0]


def _has_merge(state: SoloState) -> bool:
    found: list[int] = []
    _add_merges(state, found)
    return bool(found)


def legal_mask(state: SoloState) -> np.ndarray:
    """A fresh ``int8`` array of length ``NUM_ACTIONS``: 1 where the action is legal."""
    mask = np.zeros(A.NUM_ACTIONS, dtype=np.int8)
    mask[legal_actions(state)] = 1
    return mask


# --------------------------------------------------------------------------- transitions


def apply_action(state: SoloState, action: int, rng: np.random.Generator | int | None = None) -> list[float]:
    """Play ``action`` on ``state`` in place; the reward it earns, as ``[reward]`` (one seat).

    Raises ``IllegalActionError`` (leaving ``state`` untouched) when the action is not legal.
    ``rng`` is drawn from only when the discard pile must be reshuffled into the deck.
    """
    return [_play(state, action, rng)]


def _play(state: SoloState, action: int, rng: np.random.Generator | int | None) -> float:
    if state.phase == OVER:
        raise IllegalActionError("the game is over; start a new one")
    if isinstance(action, bool) or not isinstance(action, (int, np.integer)):
        raise TypeError(f"an action is an int index, got {action!r}")
    kind, a, b = A.decode(int(action))
    handler = _HANDLERS[kind]
    return handler(state, a, b, rng)


def _illegal(state: SoloState, why: str, kind: Kind, a: int, b: int) -> IllegalActionError:
    name = A.action_name(A.encode((kind, a, b)))
    return IllegalActionError(f"{name} is illegal now ({why}); phase is {Phase(state.phase).label}")


def _require(state: SoloState, ok: bool, why: str, kind: Kind, a: int = -1, b: int = -1) -> None:
    if not ok:
        raise _illegal(state, why, kind, a, b)


def _do_draw(state: SoloState, a: int, b: int, rng) -> float:
    _require(state, state.phase == ORGANIZE, "draw only ends the organize phase", Kind.DRAW)
    _draw_for_turn(state, rng)
    return 0.0


def _do_merge(state: SoloState, j: int, i: int, rng) -> float:
    in_battle = state.phase in (KING_MODE, SEND)
    _require(
        state,
        state.phase == ORGANIZE or (in_battle and state.config.merge_in_battle),
        "merges happen in the organize phase" + (" (merge_in_battle is off)" if in_battle else ""),
        Kind.MERGE,
        j,
        i,
    )
    kind = state.unit_kind
    same = kind[i] == kind[j] and kind[i] in MERGED
    if same and kind[i] == NATIVE:
        same = state.recruit[i] >= 0 and state.recruit[j] >= 0
    _require(
        state,
        same,
        "only soldier+soldier, super+super or native-with-recruit pairs merge",
        Kind.MERGE,
        j,
        i,
    )
    merged = MERGED[kind[i]]
    if merged == BUILDER:
        cards: tuple[int, ...] = (state.unit_cards[i][0], state.recruit[i], state.unit_cards[j][0], state.recruit[j])
        state.recruit[i] = state.recruit[j] = -1
    else:
        cards = state.unit_cards[i] + state.unit_cards[j]
    kind[i], state.unit_cards[i] = merged, cards
    kind[j], state.unit_cards[j] = EMPTY, ()
    reward = _shaping(state, merged)
    if state.phase == ORGANIZE and not _has_merge(state):
        _draw_for_turn(state, rng)
    return reward


def _do_place(state: SoloState, t: int, b: int, rng) -> float:
    _require_reacting(state, IS_SOLDIER, "only a drawn soldier is placed", Kind.PLACE, t)
    _require(state, state.unit_kind[t] == EMPTY, f"territory {t} is not empty", Kind.PLACE, t)
    state.unit_kind[t], state.unit_cards[t] = SOLDIER, (state.drawn,)
    state.drawn = -1
    _begin_turn(state, rng)
    return 0.0


def _do_stack(state: SoloState, i: int, b: int, rng) -> float:
    _require_reacting(state, IS_SOLDIER, "only a drawn soldier is stacked", Kind.STACK, i)
    _require(state, state.unit_kind[i] == SOLDIER, f"keep {i} holds no lone soldier", Kind.STACK, i)
    state.unit_kind[i], state.unit_cards[i] = SUPER, state.unit_cards[i] + (state.drawn,)
    state.drawn = -1
    reward = _shaping(state, SUPER)
    _begin_turn(state, rng)
    return reward


def _do_recruit(state: SoloState, t: int, b: int, rng) -> float:
    _require(state, state.phase == REACT, "no drawn card to recruit", Kind.RECRUIT, t)
    card, kind = state.drawn, state.unit_kind[t]
    _require(state, kind in HOSTS, f"territory {t} holds no native or base", Kind.RECRUIT, t)
    _require(state, state.recruit[t] < 0, f"the unit at {t} has a recruit", Kind.RECRUIT, t)
    _require(
        state,
        kind == BASE or IS_SOLDIER[card] or IS_BLACK_FACE[card],
        "a native recruits only soldiers and black J/Q/K",
        Kind.RECRUIT,
        t,
    )
    state.recruit[t] = card
    state.drawn = -1
    _begin_turn(state, rng)
    return 0.0


def _do_discard(state: SoloState, a: int, b: int, rng) -> float:
    _require_reacting(state, IS_SOLDIER, "only soldiers are discarded; faces are fought", Kind.DISCARD)
    state.discard.append(state.drawn)
    state.drawn = -1
    _begin_turn(state, rng)
    return 0.0


def _do_promote(state: SoloState, i: int, b: int, rng) -> float:
    _require_reacting(state, IS_PROMOTION, "promotion needs a black J, Q, K or A", Kind.PROMOTE, i)
    _require(state, state.unit_kind[i] == BATTALION, f"keep {i} holds no battalion", Kind.PROMOTE, i)
    state.discard.extend(state.unit_cards[i])
    state.unit_kind[i], state.unit_cards[i] = NATIVE, (state.drawn,)
    state.drawn = -1
    reward = _shaping(state, NATIVE)
    _begin_turn(state, rng)
    return reward


def _do_found(state: SoloState, i: int, t: int, rng) -> float:
    _require_reacting(state, IS_PROMOTION, "a base needs a black J, Q, K or A", Kind.FOUND, i, t)
    kind = state.unit_kind
    _require(state, kind[i] == BUILDER, f"keep {i} holds no base builder", Kind.FOUND, i, t)
    _require(state, t == i or kind[t] == EMPTY, f"territory {t} is not free", Kind.FOUND, i, t)
    state.discard.extend(state.unit_cards[i])
    kind[i], state.unit_cards[i] = EMPTY, ()
    kind[t], state.unit_cards[t] = BASE, (state.drawn,)
    state.drawn = -1
    reward = _shaping(state, BASE)
    if state.num_bases() >= BASES_TO_WIN:
        return reward + _finish(state, WON)
    _begin_turn(state, rng)
    return reward


def _do_fight(state: SoloState, a: int, b: int, rng) -> float:
    _require_reacting(state, IS_FACE, "only face cards are fought", Kind.FIGHT)
    state.attacker, state.drawn = state.drawn, -1
    return _start_round(state, rng)


def _do_mode(state: SoloState, a: int, b: int, rng, mode: int) -> float:
    kind = Kind.SUM if mode == SUM else Kind.SPLIT
    _require(state, state.phase == KING_MODE, "SUM/SPLIT is chosen once per King round", kind)
    _require(state, mode == SUM or num_units(state) >= 2, "SPLIT needs two units", kind)
    state.mode = mode
    second = _take_card(state, rng)
    if second < 0:
        return 0.0
    state.enemies.append(second)
    return _await_send(state)


def _do_send(state: SoloState, t: int, b: int, rng, recruit_only: bool = False) -> float:
    kind = Kind.SEND_RECRUIT if recruit_only else Kind.SEND
    _require(state, state.phase == SEND, "no battle waits for a unit", kind, t)
    unit = state.unit_kind[t]
    _require(state, unit != EMPTY, f"territory {t} is empty", kind, t)
    if recruit_only:
        _require(
            state,
            unit in HOSTS and state.recruit[t] >= 0,
            f"the unit at {t} has no recruit",
            kind,
            t,
        )
    value = unit_value(state, t, recruit_only)
    beats = value >= enemy_target(state)
    if recruit_only:
        state.sent.append(state.recruit[t])
        state.recruit[t] = -1
    else:
        state.sent.extend(state.unit_cards[t])
        if state.recruit[t] >= 0:
            state.sent.append(state.recruit[t])
        state.unit_kind[t], state.unit_cards[t], state.recruit[t] = EMPTY, (), -1

    if state.mode == SPLIT and state.split_first_won < 0:
        state.split_first_won = int(beats)
        return _await_send(state)
    if state.mode == SPLIT:
        beats = beats and state.split_first_won == 1
    if beats:
        return _win_battle(state, rng)
    return _lose_round(state, rng)


def _require_reacting(
    state: SoloState, allowed: tuple[bool, ...], why: str, kind: Kind, a: int = -1, b: int = -1
) -> None:
    _require(state, state.phase == REACT and allowed[state.drawn], why, kind, a, b)


_HANDLERS = {
    Kind.DRAW: _do_draw,
    Kind.MERGE: _do_merge,
    Kind.PLACE: _do_place,
    Kind.STACK: _do_stack,
    Kind.RECRUIT: _do_recruit,
    Kind.DISCARD: _do_discard,
    Kind.PROMOTE: _do_promote,
    Kind.FOUND: _do_found,
    Kind.FIGHT: _do_fight,
    Kind.SUM: lambda s, a, b, rng: _do_mode(s, a, b, rng, SUM),
    Kind.SPLIT: lambda s, a, b, rng: _do_mode(s, a, b, rng, SPLIT),
    Kind.SEND: _do_send,
    Kind.SEND_RECRUIT: lambda s, a, b, rng: _do_send(s, a, b, rng, recruit_only=True),
}


# --------------------------------------------------------------------------- turn and battle flow


def _begin_turn(state: SoloState, rng) -> None:
    """Offer the organize phase when a merge is possible; otherwise draw at once."""
    if _has_merge(state):
        state.phase = ORGANIZE
    else:
        _draw_for_turn(state, rng)


def _draw_for_turn(state: SoloState, rng) -> None:
    card = _take_card(state, rng)
    if card >= 0:
        state.drawn = card
        state.phase = REACT


def _take_card(state: SoloState, rng) -> int:
    """Draw the top card, reshuffling the discard pile into an empty deck; -1 if truncated."""
    if state.draws >= state.config.length_limit:
        _finish(state, TRUNCATED)
        return -1
    if not state.deck:
        if not state.discard:
            _finish(state, TRUNCATED)
            return -1
        state.deck = shuffled(state.discard, as_generator(rng))
        state.discard = []
    state.draws += 1
    return state.deck.pop()


def _start_round(state: SoloState, rng) -> float:
    """Begin a battle round: reveal its enemy (Queen, King) and ask for a unit or a mode."""
    if num_units(state) == 0:
        return _finish(state, LOST)
    rank = rank_of(state.attacker)
    if rank == JACK:
        state.phase = SEND
        return 0.0
    enemy = _take_card(state, rng)
    if enemy < 0:
        return 0.0
    state.enemies.append(enemy)
    if rank == KING:
        state.phase = KING_MODE
        return 0.0
    state.phase = SEND
    return 0.0


def _await_send(state: SoloState) -> float:
    if num_units(state) == 0:
        return _finish(state, LOST)
    state.phase = SEND
    return 0.0


def _clear_round(state: SoloState) -> None:
    state.discard.extend(state.enemies)
    state.discard.extend(state.sent)
    state.enemies = []
    state.sent = []
    state.mode = NO_MODE
    state.split_first_won = -1


def _lose_round(state: SoloState, rng) -> float:
    _clear_round(state)
    state.rounds_lost += 1
    return _start_round(state, rng)


def _win_battle(state: SoloState, rng) -> float:
    _clear_round(state)
    state.discard.append(state.attacker)
    state.attacker = -1
    state.rounds_lost = 0
    _begin_turn(state, rng)
    return 0.0


def _finish(state: SoloState, outcome: int) -> float:
    state.outcome = outcome
    state.phase = OVER
    return WIN_REWARD if outcome == WON else LOSS_REWARD if outcome == LOST else 0.0


def _shaping(state: SoloState, formed: int) -> float:
    config = state.config
    if not config.shaping:
        return 0.0
    payment = min(
        config.shaping * config.shaping_values[SHAPING_INDEX[formed]], config.shaping_cap - state.shaping_paid
    )
    payment = max(payment, 0.0)
    state.shaping_paid += payment
    return payment
