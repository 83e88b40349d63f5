"""Empire Solitaire renderers: ``to_text`` (``ansi``) and ``to_rgb`` (``rgb_array``)."""

from __future__ import annotations

import numpy as np

from ...core.cards import card_str, is_black
from ...core.drawing import default_font
from .state import COLS, OUTCOME_NAMES, ROWS, SolitaireState
from .tables import NAME


def to_text(state: SolitaireState) -> str:
    lines = [f"{NAME} | stock {len(state.stock)} | captures {len(state.out)} | cards in grid {state.cards_in_grid()}"]
    for row in range(ROWS):
        cells = state.grid[row * COLS : (row + 1) * COLS]
        lines.append("  " + " ".join(f"{card_str(c) if c >= 0 else '.':>3}" for c in cells))
    if state.revealed >= 0:
        lines.append(f"Revealed: {card_str(state.revealed)} (place it on an empty cell)")
    if state.outcome:
        lines.append(f"Result: {OUTCOME_NAMES[state.outcome]}")
    return "\n".join(lines)


WIDTH, HEIGHT = 480, 340
_CARD_W, _CARD_H, _GAP = 64, 84, 12
_BACKGROUND = (24, 96, 56)
_SLOT = (34, 120, 72)
_CARD_FILL = (250, 250, 245)
_BACK_FILL = (92, 64, 160)
_RED, _BLACK, _TEXT = (200, 30, 40), (20, 20, 20), (240, 240, 230)


def to_rgb(state: SolitaireState) -> np.ndarray:
    """A ``(340, 480, 3) uint8`` picture: the 3x5 grid, the stock and the revealed card."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (WIDTH, HEIGHT), _BACKGROUND)
    draw = ImageDraw.Draw(image)
    font, small = default_font(16), default_font(12)
    draw.text((12, 8), to_text(state).splitlines()[0], fill=_TEXT, font=small)
    for cell, card in enumerate(state.grid):
        row, col = divmod(cell, COLS)
        x, y = 12 + col * (_CARD_W + _GAP), 30 + row * (_CARD_H + _GAP)
        box = (x, y, x + _CARD_W, y + _CARD_H)
        if card < 0:
            draw.rounded_rectangle(box, radius=6, outline=_SLOT, width=2)
            draw.text((x + 4, y + 4), str(cell), fill=_SLOT, font=small)
            continue
        draw.rounded_rectangle(box, radius=6, fill=_CARD_FILL, outline=_BLACK)
        draw.text((x + 6, y + 6), card_str(card), fill=_BLACK if is_black(card) else _RED, font=font)
    sx = 12 + COLS * (_CARD_W + _GAP) - 4
    for index in range(len(state.stock)):
        draw.rounded_rectangle(
            (sx - 4 * index, 30 + 4 * index, sx - 4 * index + 40, 30 + 4 * index + 56),
            radius=5,
            fill=_BACK_FILL,
            outline=_BLACK,
        )
    draw.text((sx - 10, 96), "stock", fill=_TEXT, font=small)
    if state.revealed >= 0:
        draw.rounded_rectangle((sx - 10, 126, sx + 40, 196), radius=5, fill=_CARD_FILL, outline=_BLACK)
        colour = _BLACK if is_black(state.revealed) else _RED
        draw.text((sx - 4, 132), card_str(state.revealed), fill=colour, font=font)
    if state.outcome:
        draw.text((12, HEIGHT - 24), f"Result: {OUTCOME_NAMES[state.outcome]}", fill=_TEXT, font=font)
    return np.asarray(image, dtype=np.uint8).copy()
