"""State builders and play helpers shared by the Map Duel tests.

Cards are written as strings: number cards ``"9D"``, ``"10H"`` (ranks 2..10, suits C D H S) and
face cards ``"QH"``, ``"AS"`` (J Q K A). A face card's seat follows from its colour: red (D, H)
faces are ``player_0``'s (seat 0), black (C, S) faces ``player_1``'s (seat 1).

Coordinates in these helpers are ABSOLUTE ``(row, col)``, row 0 north (``player_1``'s edge); the
action indices are egocentric, so ``cell_action`` / ``move_dir`` convert for seat 1.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from empire_envs.core.cards import SUIT_LETTERS
from empire_envs.games.map_duel.actions import Kind, layout_for
from empire_envs.games.map_duel.config import MapDuelConfig
from empire_envs.games.map_duel.state import (
    DECK,
    EMPTY,
    FACE_TYPE_LETTERS,
    NUM_FACES,
    NUM_NUMBER_CARDS,
    ON_MAP,
    REMOVED,
    SEAT_SUITS,
    SETUP_PHASES,
    MapDuelState,
    Phase,
    face_code,
    face_index,
    number_id,
    seat_of_colour_suit,
)

#: absolute (drow, dcol) of direction d (0 forward, 1 right, 2 back, 3 left), per seat [11, 12]
EXPECTED_DIRECTIONS = (
    ((-1, 0), (0, 1), (1, 0), (0, -1)),  # player_0 faces north
    ((1, 0), (0, -1), (-1, 0), (0, 1)),  # player_1 faces south
)
FORWARD, RIGHT, BACK, LEFT = range(4)


def _rules():
    from empire_envs.games.map_duel import rules

    return rules


# --------------------------------------------------------------------------- cards


def is_face(card: str) -> bool:
    return card[0] in FACE_TYPE_LETTERS


def num(card: str) -> int:
    """A number card id from ``"9D"`` / ``"10H"``."""
    assert not is_face(card), card
    rank, suit = int(card[:-1]), SUIT_LETTERS.index(card[-1])
    assert 2 <= rank <= 10, card
    return number_id(suit, rank)


def nums(cards: Iterable[str]) -> list[int]:
    return [num(c) for c in cards]


def face(card: str) -> tuple[int, int]:
    """``(seat, own face index)`` from ``"QH"``: the seat owning that colour."""
    assert is_face(card) and len(card) == 2, card
    t = FACE_TYPE_LETTERS.index(card[0])
    suit = SUIT_LETTERS.index(card[1])
    seat = seat_of_colour_suit(suit)
    return seat, face_index(SEAT_SUITS[seat].index(suit), t)


def fidx(card: str) -> int:
    """The own face index only (``"KH"`` -> 6)."""
    return face(card)[1]


# --------------------------------------------------------------------------- geometry


def cell(r: int, c: int, B: int = 13) -> int:
    assert 0 <= r < B and 0 <= c < B
    return r * B + c


def ego_cell(state: MapDuelState, seat: int, r: int, c: int) -> int:
    """The egocentric cell index of absolute (r, c) for ``seat``."""
    return _rules().to_ego(state, seat, cell(r, c, state.B))


def cell_action(state: MapDuelState, seat: int, r: int, c: int) -> int:
    return layout_for(state.B).cell_index(ego_cell(state, seat, r, c))


def direction(seat: int, src: tuple[int, int], dst: tuple[int, int]) -> int:
    """The egocentric direction d for ``seat`` from absolute ``src`` to the neighbour ``dst``."""
    delta = (dst[0] - src[0], dst[1] - src[1])
    return EXPECTED_DIRECTIONS[seat].index(delta)


# --------------------------------------------------------------------------- state builder


def build_state(
    config: MapDuelConfig | None = None,
    *,
    board: Mapping[tuple[int, int], str] | None = None,
    pools: Mapping[int, Sequence[str]] | None = None,
    removed: Sequence[str] = (),
    removed_faces: Sequence[str] = (),
    current: int = 0,
    first: int = 0,
    phase: int = Phase.STEP_1,
    step1_done: bool | None = None,
    acted: Iterable[int] = (),
    turn: int = 1,
    no_progress: int = 0,
    fill_removed: bool = True,
) -> MapDuelState:
    """A main-game state with everything consistent.

    ``board`` maps absolute (row, col) to a card string; face cards there are ``ON_MAP`` at that
    cell, every other face stays in its ``DECK`` (or is ``REMOVED`` if in ``removed_faces``).
    ``pools`` maps seat to its pool cards; ``removed`` lists number cards removed from the game.
    With ``fill_removed`` every number card not placed anywhere is put on the removed pile, so
    ``card_count() == 52`` holds (the removed pile plays no part in the rules).
    """
    config = config or MapDuelConfig()
    state = MapDuelState(config)
    B = state.B
    seen: set[int] = set()
    seen_faces: set[tuple[int, int]] = set()

    def take(n: int) -> None:
        assert n not in seen, f"number card {n} used twice"
        seen.add(n)

    for (r, c), card in (board or {}).items():
        x = cell(r, c, B)
        if is_face(card):
            seat, f = face(card)
            assert (seat, f) not in seen_faces, card
            seen_faces.add((seat, f))
            state.board[x] = face_code(seat, f)
            state.face_pos[seat][f] = x
            state.face_status[seat][f] = ON_MAP
        else:
            n = num(card)
            take(n)
            state.board[x] = n
    for seat, cards in (pools or {}).items():
        for card in cards:
            n = num(card)
            take(n)
            state.pools[seat][n] = 1
    for card in removed:
        n = num(card)
        take(n)
        state.removed_numbers[n] = 1
    for card in removed_faces:
        seat, f = face(card)
        assert (seat, f) not in seen_faces, card
        state.face_status[seat][f] = REMOVED
        state.face_pos[seat][f] = -1
    if fill_removed:
        for n in range(NUM_NUMBER_CARDS):
            if n not in seen:
                state.removed_numbers[n] = 1
    state.setup_deck = []
    state.drawn = -1
    state.phase = phase
    state.current = current
    state.first = first
    state.turn = turn
    state.no_progress = no_progress
    state.step1_done = (phase != Phase.STEP_1) if step1_done is None else step1_done
    state.acted = set(acted)
    if fill_removed:
        assert state.card_count() == 52
    return state


def step2_state(config: MapDuelConfig | None = None, **kwargs) -> MapDuelState:
    """``build_state`` in step 2 (step 1 done)."""
    return build_state(config, phase=Phase.STEP_2, **kwargs)


# --------------------------------------------------------------------------- play


class CoinStub:
    """A stand-in rng whose ``random()`` always returns ``value``; counts its calls."""

    def __init__(self, value: float) -> None:
        self.value = value
        self.calls = 0

    def random(self) -> float:
        self.calls += 1
        return self.value


class NoCoin:
    """An rng that must not be used."""

    def random(self) -> float:  # pragma: no cover - only reached on a failure
        raise AssertionError("the rng was used where no coin is ruled")

    def __getattr__(self, name):  # pragma: no cover
        raise AssertionError(f"the rng was used ({name}) where no chance is ruled")


def legal(state: MapDuelState) -> set[int]:
    return set(_rules().legal_actions(state))


def act(state: MapDuelState, action: int, rng=None) -> list[float]:
    """Apply one action, asserting it is legal first."""
    rules = _rules()
    assert rules.is_legal(state, action), (
        f"{layout_for(state.B).name(action, state.current)} is not legal in phase {state.phase}"
    )
    return rules.apply_action(state, action, rng if rng is not None else NoCoin())


def finish_turn(state: MapDuelState, rng=None) -> None:
    """End the current seat's turn: PASS_STEP1 if in step 1, then END_TURN unless the engine ended
    the turn itself (only END_TURN legal)."""
    L = layout_for(state.B)
    seat, turn = state.current, state.turn
    if state.phase == Phase.STEP_1:
        act(state, L.index(Kind.PASS_STEP1), rng)
    if state.phase != Phase.OVER and state.current == seat and state.turn == turn and state.phase == Phase.STEP_2:
        act(state, L.index(Kind.END_TURN), rng)


def snapshot(state: MapDuelState) -> dict:
    """Every field of the state, deep-copied, for 'untouched' comparisons."""
    copy = state.clone()
    return {name: getattr(copy, name) for name in MapDuelState.__slots__}


def play_setup(state: MapDuelState, rng: np.random.Generator) -> None:
    """Play the rest of the setup with uniformly random legal choices."""
    rules = _rules()
    while state.phase in SETUP_PHASES:
        actions = rules.legal_actions(state)
        rules.apply_action(state, actions[int(rng.integers(len(actions)))], rng)


def deck_order(first: Sequence[str], rest_seed: int = 0) -> list[int]:
    """The 36 number ids: ``first`` (centre card first) then the others in a seeded order."""
    head = nums(first)
    others = [n for n in range(NUM_NUMBER_CARDS) if n not in head]
    order = np.random.default_rng(rest_seed).permutation(len(others))
    return head + [others[i] for i in order]


def face_count(state: MapDuelState, seat: int, status: int) -> int:
    return sum(1 for f in range(NUM_FACES) if state.face_status[seat][f] == status)


__all__ = [
    "BACK", "DECK", "EMPTY", "FORWARD", "LEFT", "ON_MAP", "REMOVED", "RIGHT",
    "CoinStub", "NoCoin", "act", "build_state", "cell", "cell_action", "deck_order", "direction",
    "ego_cell", "face", "face_count", "fidx", "finish_turn", "legal", "num", "nums", "play_setup",
    "snapshot", "step2_state",
]
