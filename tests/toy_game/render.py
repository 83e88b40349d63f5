"""Toy Nim pictures: ``to_text`` (every card shown, a spectator's view) and ``to_rgb``."""

from __future__ import annotations

import numpy as np

from empire_envs.core.cards import card_str

from .state import Phase, ToyNimState

_CELL = 8  # pixels per card square in the picture


def to_text(state: ToyNimState) -> str:
    to_act = "game over" if state.phase == Phase.OVER else f"seat {state.seat} to {Phase(state.phase).name.lower()}"
    lines = [f"Toy Nim: {to_act}, {len(state.pile)} in the pile"]
    for seat, hand in enumerate(state.hands):
        lines.append(f"seat {seat}: {' '.join(card_str(card) for card in hand) or '-'}")
    lines.append(f"discards: {' '.join(card_str(card) for card in state.discards) or '-'}")
    return "\n".join(lines)


def to_rgb(state: ToyNimState) -> np.ndarray:
    """One row of squares per zone (pile, seat 0, seat 1, discards): grey for a face-down card,
    white for a card shown."""
    rows = [[None] * len(state.pile), *state.hands, state.discards]
    width = max(1, *(len(row) for row in rows))
    image = np.full((len(rows) * _CELL, width * _CELL, 3), 30, dtype=np.uint8)
    for r, row in enumerate(rows):
        for c, card in enumerate(row):
            colour = 128 if card is None else 240
            image[r * _CELL + 1 : (r + 1) * _CELL - 1, c * _CELL + 1 : (c + 1) * _CELL - 1] = colour
    return image
