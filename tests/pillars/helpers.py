"""State builders and play helpers shared by the Pillars tests.

Kinds are written as labels (``"2"``, ``"7"``, ``"J"``, ``"A"``, ``"Joker"``) or as ints
(0..13 in the default game: 2, 3, ..., 10, J, Q, K, A, Joker). A pillar rank is ``kind - 1``
(``rank("7") == 4``).

Order conventions (those of the engine): a discard pile lists its cards bottom first, top card
LAST; ``build_state(deck=...)`` takes the resource pile as the engine keeps it, top card LAST;
``stacked_deck`` returns the *top-first* order that ``rules.new_game(deck=...)`` expects.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from empire_envs.games.pillars import observe, rules
from empire_envs.games.pillars.actions import layout_for
from empire_envs.games.pillars.config import PillarsConfig
from empire_envs.games.pillars.state import (
    BUILD,
    DISCARD,
    MAIN,
    NO_EMPIRE,
    OVER,
    SKIP_TARGET,
    PillarsState,
    empire_of,
    full_deck_counts,
    kinds_for,
)

LABELS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "Joker")
KIND = {label: k for k, label in enumerate(LABELS)}
TWO, JOKER = KIND["2"], KIND["Joker"]


def kind(label: str | int) -> int:
    """A kind index from a label (``"7"``) or an int (returned as is)."""
    return label if isinstance(label, int) else KIND[label]


def kinds(items: Iterable[str | int]) -> list[int]:
    return [kind(x) for x in items]


def rank(label: str | int) -> int:
    """The pillar rank (0..11 = 3..A) of a natural kind."""
    r = kind(label) - 1
    assert 0 <= r < 12, label
    return r


def counts(items: Iterable[str | int], size: int = 14) -> list[int]:
    """Per-kind counts of a list of kinds."""
    out = [0] * size
    for k in kinds(items):
        out[k] += 1
    return out


def build_state(
    n: int = 4,
    *,
    config: PillarsConfig | None = None,
    hands: Mapping[int, Sequence[str | int]] | None = None,
    piles: Mapping[int, Sequence[str | int]] | None = None,
    deck: Sequence[str | int] = (),
    pillars: Mapping[int, Sequence[int]] | None = None,
    pending_skip: Iterable[int] = (),
    known: Mapping[int, Sequence[str | int]] | None = None,
    current: int = 0,
    phase: int = MAIN,
    round_: int = 2,
    main_done: bool | None = None,
    **config_kwargs,
) -> PillarsState:
    """A consistent state in round ``round_`` (default 2, so not the first round) with seat
    ``current`` to act in ``phase``.

    ``hands``/``piles``: seat -> kinds (piles bottom first); ``deck``: engine order, top LAST;
    ``pillars``: seat -> pillar ranks laid (each made of four natural cards, the empire is that of
    the first rank); ``pending_skip``: seats with a pending skip; ``known``: seat -> kinds for the
    public tracker. ``main_done`` defaults to True in BUILD/DISCARD/SKIP_TARGET outside round 1.
    The turn counter is ``(round_ - 1) * n + current`` (as if seat 0 had started); every seat
    that has had a turn by then has an empty "played" turn record (the event block).
    """
    if config is None:
        config = PillarsConfig(num_players=n, **config_kwargs)
    else:
        assert not config_kwargs and config.num_players == n
    state = PillarsState(config)
    size = state.kinds.size
    for seat, items in (hands or {}).items():
        state.hands[seat] = counts(items, size)
        state.hand_sizes[seat] = sum(state.hands[seat])
    for seat, items in (piles or {}).items():
        state.piles[seat] = kinds(items)
        state.pile_counts[seat] = counts(items, size)
    state.deck = kinds(deck)
    for seat, ranks in (pillars or {}).items():
        ranks = list(ranks)
        empires = {empire_of(r) for r in ranks}
        assert len(empires) == 1, "pillars of one seat must share an empire"
        state.empire[seat] = empires.pop()
        for r in ranks:
            state.pillars[seat][r] = 1
            natural = state.kinds.naturals[r][0]
            state.pillar_cards[seat][natural] += 4
    for seat in pending_skip:
        state.pending_skip[seat] = True
    for seat, items in (known or {}).items():
        state.known[seat] = counts(items, size)
    state.current = current
    state.turn = (round_ - 1) * n + current
    for seat in range(n if round_ > 1 else current + 1):
        state.turn_log[seat] = rules.PLAYED_TURN
    state.phase = phase
    if main_done is None:
        main_done = phase in (BUILD, DISCARD, SKIP_TARGET) and round_ > 1
    state.main_done = main_done
    check_invariants(state)
    return state


def check_invariants(state: PillarsState) -> None:
    """The bookkeeping every state must keep: mirrors, sizes, non-negative counts, a tracker
    that never exceeds the hand (the lower bound is true)."""
    n, size = state.n, state.kinds.size
    for seat in range(n):
        assert state.pile_counts[seat] == counts(state.piles[seat], size), seat
        assert state.hand_sizes[seat] == sum(state.hands[seat]), seat
        assert min(state.hands[seat]) >= 0, seat
        assert all(0 <= state.known[seat][k] <= state.hands[seat][k] for k in range(size)), (
            seat, state.known[seat], state.hands[seat])
        assert sum(state.pillar_cards[seat]) == 4 * state.pillar_count(seat)
        assert (state.empire[seat] == NO_EMPIRE) == (state.pillar_count(seat) == 0)
    if state.phase != OVER:
        assert 0 <= rules.acting_player(state) < n
        assert rules.legal_actions(state), "every decision phase has a legal action"


def stacked_deck(
    config: PillarsConfig,
    first_player: int,
    hands: Mapping[int, Sequence[str | int]],
    top: Sequence[str | int] = (),
) -> list[int]:
    """A full deck (top card FIRST, as ``new_game(deck=...)`` takes it) that deals exactly
    ``hands[seat]`` (10 cards each; seats not given get the lowest remaining kinds that are
    not 2s or Jokers, in order) and leaves ``top`` (top first: the first player's automatic draw
    comes first) on the resource pile; the rest of the packs follows in kind order."""
    n = config.num_players
    pool = full_deck_counts(config)

    def take(k: int) -> int:
        assert pool[k] > 0, f"no copy of kind {k} left"
        pool[k] -= 1
        return k

    dealt: dict[int, list[int]] = {}
    for seat, items in hands.items():
        assert len(items) == 10, seat
        dealt[seat] = [take(k) for k in kinds(items)]
    wanted_top = [take(k) for k in kinds(top)]
    fill_order = [k for k in range(1, len(pool) - 1)] + [0, len(pool) - 1]
    for seat in range(n):
        if seat not in dealt:
            dealt[seat] = []
            for k in fill_order:
                while pool[k] and len(dealt[seat]) < 10:
                    dealt[seat].append(take(k))
    order = [dealt[(first_player + i) % n][i // n] for i in range(10 * n)]
    order += wanted_top
    order += [k for k in range(len(pool)) for _ in range(pool[k])]
    return order


# --------------------------------------------------------------------------- playing


def legal(state: PillarsState) -> set[int]:
    return set(rules.legal_actions(state))


def act(state: PillarsState, action: int, rng=None) -> list[float]:
    """Apply a legal action (asserting that both legality views agree it is legal)."""
    assert action in rules.legal_actions(state), (action, rules.legal_actions(state))
    assert rules.is_legal(state, action)
    rewards = rules.apply_action(state, action, rng if rng is not None else np.random.default_rng(0))
    check_invariants(state)
    return rewards


def quiet_turn(state: PillarsState, rng=None) -> None:
    """Play the current seat's turn without moving cards between players: a battle answered
    "no" (MAIN), END_BUILD, a discard of a non-2 if possible, NO_SKIP if asked."""
    lay = layout_for(state.kinds)
    seat = state.current
    turn = state.turn
    if state.phase == MAIN:
        choice = next(
            (o, k)
            for o in range(1, state.n)
            for k in range(state.kinds.size)
            if state.hands[(seat + o) % state.n][k] == 0
        )
        act(state, lay.battle_index(*choice), rng)
        assert state.phase == BUILD
    if state.phase == BUILD:
        act(state, lay.end_build, rng)
    if state.phase == DISCARD and state.current == seat:
        hand = state.hands[seat]
        k = next((k for k in range(state.kinds.size) if hand[k] and not state.kinds.is_two[k]), None)
        if k is None:
            k = next(k for k in range(state.kinds.size) if hand[k])
        act(state, lay.discard_index(k), rng)
    if state.phase == SKIP_TARGET and state.current == seat:
        act(state, lay.no_skip, rng)
    assert state.phase == OVER or state.turn > turn


def random_states(config: PillarsConfig, seed: int, steps: int):
    """States reached by seeded uniformly random legal play (new game on every end)."""
    rng = np.random.default_rng(seed)
    state = rules.new_game(config, rng)
    for _ in range(steps):
        if state.phase == OVER:
            state = rules.new_game(config, rng)
        yield state
        actions = rules.legal_actions(state)
        rules.apply_action(state, actions[int(rng.integers(len(actions)))], rng)


# --------------------------------------------------------------------------- observation


def seat_block(obs: np.ndarray, offset: int, field: str, layout=None, seat_layout=None) -> np.ndarray:
    """One field of the seat block at ``offset`` (0 = the observer) of an observation."""
    layout = layout or observe.LAYOUT
    seat_layout = seat_layout or observe.SEAT_LAYOUT
    start = layout.start(f"seat {offset}")
    part = seat_layout[field]
    return obs[start + part.start:start + part.stop]


def block(obs: np.ndarray, field: str, layout=None) -> np.ndarray:
    return obs[(layout or observe.LAYOUT)[field]]


class CoinStub:
    """A stand-in rng whose ``random()`` always returns ``value`` (a known coin)."""

    def __init__(self, value: float) -> None:
        self.value = value
        self.calls = 0

    def random(self) -> float:
        self.calls += 1
        return self.value


# --------------------------------------------------------------------------- the event block


def _one(values: np.ndarray) -> int | None:
    """The index of a one-hot field (None when all zero)."""
    hot = np.flatnonzero(values)
    assert len(hot) <= 1 and all(values[hot] == 1), values
    return int(hot[0]) if len(hot) else None


def turn_block(obs: np.ndarray, offset: int, kinds=None) -> np.ndarray:
    """The event block's slot of the seat at ``offset`` from the observer."""
    kinds = kinds or kinds_for(PillarsConfig())
    start = observe.observation_layout(kinds).start(f"events seat {offset}")
    return obs[start : start + observe.turn_layout(kinds).size]


def describe_turn(obs: np.ndarray, offset: int, kinds=None) -> dict:
    """The slot as plain values: status, skip given (a seat offset), main and bonus records."""
    kinds = kinds or kinds_for(PillarsConfig())
    slot, layout = turn_block(obs, offset, kinds), observe.turn_layout(kinds)
    status = _one(slot[layout["status"]])
    return {
        "status": {None: "none", 0: "played", 1: "skipped"}[status],
        "skip given": _one(slot[layout["skip given"]]),
        "main": describe_record(slot[layout["main"]], kinds),
        "bonus": describe_record(slot[layout["bonus"]], kinds),
    }


def describe_record(record: np.ndarray, kinds) -> dict | None:
    """One record as plain values (kinds as indices, seats as offsets); None when empty."""
    if not record.any():
        return None
    layout = observe.record_layout(kinds)
    offers = record[layout["offers"]].reshape(6, kinds.size)
    throws = record[layout["throws"]]
    return {
        "new": int(record[layout["new"]][0]),
        "type": ("steal", "trade", "battle")[_one(record[layout["type"]])],
        "partner": _one(record[layout["partner"]]),
        "kind": _one(record[layout["kind"]]),
        "offers": {o: _one(row) for o, row in enumerate(offers) if row.any()},
        "answer": {None: None, 0: "yes", 1: "no"}[_one(record[layout["answer"]])],
        "ties": int(record[layout["ties"]][0]),
        "tie throws": tuple(int(x) for x in record[layout["tie throws"]]),
        "throws": (_one(throws[:3]), _one(throws[3:])),
        "result": {None: None, 0: "attacker took it", 1: "defender kept it"}[_one(record[layout["result"]])],
        "coin": int(record[layout["coin"]][0]),
    }
