"""Confrontations (sections 32-38): the enemy faces a face can reach, what a face is worth, who
loses (``resolve``, flipping the seeded coin where the rules do) and the odds of it
(``confront_odds``, for agents), and the loser leaving the game.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import mul

import numpy as np

from ....core.cards import NUM_SUITS
from ..config import MapDuelConfig
from ..state import (
    ACE_TYPE,
    EMPTY,
    FACE_BASE,
    JACK_TYPE,
    KING_TYPE,
    NUM_FACES,
    NUMBER_RANKS,
    NUMBERS_PER_SUIT,
    QUEEN_TYPE,
    REMOVED,
    SEAT_SUITS,
    MapDuelState,
    face_suit,
    face_type,
)
from ..tables import JACK_VALUE, MAJOR_SUITS, MINOR_SUITS
from .board import geometry


def confront_targets(state: MapDuelState, seat: int, face: int) -> list[int]:
    """Enemy faces within reach of ``face`` (section 32), as enemy face indices, ascending."""
    geo = geometry(state.B)
    board = state.board
    cell = state.face_pos[seat][face]
    low = FACE_BASE + NUM_FACES * (1 - seat)
    high = low + NUM_FACES
    kind = face_type(face)
    if kind == ACE_TYPE:
        blocking = state.config.ace_blocking
        targets = []
        for ray in geo.diagonal_rays[cell]:
            for other in ray:
                code = board[other]
                if low <= code < high:
                    targets.append(code - low)
                if (blocking == "cards" and code != EMPTY) or (blocking == "faces" and code >= FACE_BASE):
                    break
        return sorted(targets)
    if kind == JACK_TYPE:
        cells: Sequence[int] = geo.neighbours[seat][cell][:1]
    elif kind == QUEEN_TYPE:
        cells = geo.neighbours[seat][cell][1::2]
    else:
        cells = geo.orthogonal[cell] + (geo.diagonal[cell] if state.config.king_reach == "all8" else ())
    return sorted(board[c] - low for c in cells if c >= 0 and low <= board[c] < high)


_RANKS_OF_A_SUIT = tuple(NUMBER_RANKS)


def suit_totals(pool: Sequence[int]) -> list[int]:
    """The sum of the ranks of a pool's cards, per suit."""
    return [
        sum(map(mul, pool[NUMBERS_PER_SUIT * suit : NUMBERS_PER_SUIT * (suit + 1)], _RANKS_OF_A_SUIT))
        for suit in range(NUM_SUITS)
    ]


def face_value(state: MapDuelState, seat: int, face: int, totals: Sequence[int] | None = None) -> int:
    """Section 35(d): J = 5; K = the ranks of the seat's own-colour pool cards; Q = the ranks of
    the pool cards of the Queen's suit (``totals``: the pool's ``suit_totals``, if at hand)."""
    kind = face_type(face)
    if kind == JACK_TYPE:
        return JACK_VALUE
    if totals is None:
        totals = suit_totals(state.pools[seat])
    if kind == KING_TYPE:
        low, high = SEAT_SUITS[seat]
        return totals[low] + totals[high]
    return totals[face_suit(seat, face)]


def _coin(state: MapDuelState, rng: np.random.Generator) -> bool:
    state.coin_flips += 1
    return bool(rng.random() < 0.5)


def _jack_is_low(config: MapDuelConfig, attacker_suit: int, defender_suit: int) -> bool:
    if config.jack_suit_rule == "major_minor":
        return attacker_suit in MINOR_SUITS and defender_suit in MAJOR_SUITS
    return config.suit_order == "CDHS" and attacker_suit < defender_suit


def resolve(state: MapDuelState, seat: int, face: int, enemy_face: int, rng: np.random.Generator) -> int:
    """Section 35: who loses a confrontation: 1 the defender, -1 the attacker, 0 nobody."""
    config = state.config
    enemy = 1 - seat
    kind, other = face_type(face), face_type(enemy_face)
    a_suit, d_suit = face_suit(seat, face), face_suit(enemy, enemy_face)
    if kind == ACE_TYPE:
        if other == ACE_TYPE and config.ace_vs_ace == "aggressor_wins":
            return 1
        return 1 if _coin(state, rng) else 0
    if other == ACE_TYPE:
        return 1
    if kind == JACK_TYPE and other == JACK_TYPE:
        if _jack_is_low(config, a_suit, d_suit):
            return 1 if _coin(state, rng) else -1
        return 1
    mine, theirs = face_value(state, seat, face), face_value(state, enemy, enemy_face)
    if mine != theirs:
        return 1 if mine > theirs else -1
    if config.suit_order == "CDHS":
        return 1 if a_suit > d_suit else -1
    return 1 if _coin(state, rng) else -1


def confront_odds(state: MapDuelState, seat: int, face: int, enemy_face: int) -> tuple[float, float]:
    """(probability the defender is removed, probability the attacker is removed) of a
    confrontation, by the rules of ``resolve`` with each coin counted as 1/2."""
    config = state.config
    enemy = 1 - seat
    kind, other = face_type(face), face_type(enemy_face)
    a_suit, d_suit = face_suit(seat, face), face_suit(enemy, enemy_face)
    if kind == ACE_TYPE:
        return (1.0, 0.0) if other == ACE_TYPE and config.ace_vs_ace == "aggressor_wins" else (0.5, 0.0)
    if other == ACE_TYPE:
        return 1.0, 0.0
    if kind == JACK_TYPE and other == JACK_TYPE:
        return (0.5, 0.5) if _jack_is_low(config, a_suit, d_suit) else (1.0, 0.0)
    mine, theirs = face_value(state, seat, face), face_value(state, enemy, enemy_face)
    if mine != theirs:
        return (1.0, 0.0) if mine > theirs else (0.0, 1.0)
    if config.suit_order == "CDHS":
        return (1.0, 0.0) if a_suit > d_suit else (0.0, 1.0)
    return 0.5, 0.5


def remove_face(state: MapDuelState, seat: int, face: int) -> None:
    """A confrontation's loser leaves the map and the game for good (section 28)."""
    state.board[state.face_pos[seat][face]] = EMPTY
    state.face_pos[seat][face] = -1
    state.face_status[seat][face] = REMOVED
