"""Pictures of a Map Duel state: ``to_text`` (plain text, for ``render_mode="ansi"``) and ``to_rgb``
(a ``uint8`` image, for ``render_mode="rgb_array"``).

Both draw the board in absolute coordinates (row 0 north, ``player_1``'s edge, at the top; row
``B - 1`` south, ``player_0``'s edge, at the bottom), whoever looks: the egocentric frame belongs
to the observation and the action indices, not to the pictures.

``to_text(state, viewer)`` shows either the whole truth (``viewer=None``, a spectator) or what seat
``viewer`` may know: the other seat's face-down starting card as ``??`` until both are revealed,
and with ``hidden_pools=True`` the other seat's pool as its size only. ``to_rgb(state)`` is always
the spectator's picture; its shape depends on the board size only (``image_size(B)``). Neither
draws from any random generator, and both read the state's fields only.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ...core.cards import SUIT_LETTERS
from ...core.drawing import default_font, text_label
from .state import (
    DECK,
    DRAW,
    EMPTY,
    FACE_BASE,
    FACE_TYPE_LETTERS,
    FACES_PER_SUIT,
    NUM_FACES,
    NUM_NUMBER_CARDS,
    NUMBER_RANKS,
    NUMBERS_PER_SUIT,
    ON_MAP,
    REMOVED,
    SEAT_SUITS,
    SETUP_PHASES,
    TRUNCATED,
    WON,
    MapDuelState,
    Phase,
    face_str,
    face_suit,
    face_type,
    number_rank,
    number_str,
    number_suit,
)

#: the agents' names, seat 0 first (the adapter names the agents ``player_<seat>``)
SEAT_NAMES = tuple(f"player_{seat}" for seat in range(2))
COLOUR_NAMES = ("red", "black")
#: the mark before a face card in the text grid: the way its owner faces (north, south)
OWNER_MARKS = ("^", "v")

#: the phases whose sub-decision is about a face (named in the text header)
_FACE_PENDING_PHASES = (
    Phase.SACRIFICE_FACE,
    Phase.SACRIFICE_MOVE,
    Phase.PLACE_CELL,
    Phase.PLACE_PAY,
    Phase.BUILD_CARD,
)
_SACRIFICE_PHASES = (Phase.SACRIFICE_FACE, Phase.SACRIFICE_MOVE)

# --------------------------------------------------------------------------- shared reading


def _decode_face(code: int) -> tuple[int, int]:
    """A board code ``>= FACE_BASE`` -> (seat, own face index)."""
    return divmod(code - FACE_BASE, NUM_FACES)


def _is_face_down(state: MapDuelState, seat: int, face: int) -> bool:
    return state.hidden_face is not None and tuple(state.hidden_face) == (seat, face)


def _pool_cards(state: MapDuelState, seat: int) -> list[int]:
    return [n for n in range(NUM_NUMBER_CARDS) if state.pools[seat][n]]


def _pool_value(state: MapDuelState, seat: int, suits: tuple[int, ...]) -> int:
    return sum(number_rank(n) for n in _pool_cards(state, seat) if number_suit(n) in suits)


def _pending_text(state: MapDuelState) -> str:
    """The sub-decision under way, in words (empty when there is none). Only the fields that the
    current phase uses are read: the engine leaves some of them set after a sub-decision ends."""
    seat, phase = state.current, state.phase
    parts = []
    if phase in _FACE_PENDING_PHASES and state.pending_face >= 0:
        parts.append(f"face {face_str(seat, state.pending_face)}")
    if phase in _SACRIFICE_PHASES:
        sacrificed = number_str(state.paid[0]) if state.paid else "-"
        parts.append(f"sacrificed {sacrificed}, {state.moves_left} swaps left")
    if phase == Phase.PLACE_PAY:
        parts.append(f"cell {divmod(state.pending_cell, state.B)}")
        target = state.pay_target if state.pay_target in (7, 8, 9) else "two primes"
        paid = " ".join(number_str(n) for n in state.paid) or "-"
        parts.append(f"pay {target}, paid {paid}")
    if phase == Phase.BUILD_CARD:
        parts.append(f"build on {divmod(state.build_cell, state.B)}")
    return ", ".join(parts)


def _result_text(state: MapDuelState) -> str:
    if state.outcome == WON:
        return f"game over: {SEAT_NAMES[state.winner]} ({COLOUR_NAMES[state.winner]}) wins"
    if state.outcome == DRAW:
        return "game over: draw"
    if state.outcome == TRUNCATED:
        return "game over: truncated, no winner"
    return "game over"


# --------------------------------------------------------------------------- text

CELL_TEXT_W = 4


def _cell_text(state: MapDuelState, cell: int, viewer: int | None) -> str:
    code = state.board[cell]
    if code == EMPTY:
        return "."
    if code < FACE_BASE:
        return number_str(code)
    seat, face = _decode_face(code)
    mark = OWNER_MARKS[seat]
    if _is_face_down(state, seat, face):
        if viewer is not None and viewer != seat:
            return mark + "??"
        return mark + face_str(seat, face).lower()  # face down, but this viewer knows it
    return mark + face_str(seat, face)


def _face_summary(state: MapDuelState, seat: int, viewer: int | None) -> str:
    on_map, deck, removed = [], [], []
    for face in range(NUM_FACES):
        status = state.face_status[seat][face]
        if status == ON_MAP and _is_face_down(state, seat, face) and viewer not in (None, seat):
            on_map.append("??")
            continue
        name = face_str(seat, face)
        if status == ON_MAP and _is_face_down(state, seat, face):
            name = name.lower()
        if status == ON_MAP:
            acted = seat == state.current and face in state.acted and state.phase != Phase.OVER
            on_map.append(name + ("*" if acted else ""))
        elif status == DECK:
            deck.append(name)
        elif status == REMOVED:
            removed.append(name)
    return f"map [{' '.join(on_map) or '-'}] deck [{' '.join(deck) or '-'}] removed [{' '.join(removed) or '-'}]"


def _pool_text(state: MapDuelState, seat: int, viewer: int | None) -> str:
    cards = _pool_cards(state, seat)
    if state.config.hidden_pools and viewer is not None and viewer != seat:
        return f"pool {len(cards)} cards (hidden)"
    own = SEAT_SUITS[seat]
    low, high = own
    values = (
        f"K {_pool_value(state, seat, own)}, Q{SUIT_LETTERS[low]} "
        f"{_pool_value(state, seat, (low,))}, Q{SUIT_LETTERS[high]} "
        f"{_pool_value(state, seat, (high,))}"
    )
    return f"pool {len(cards)} [{' '.join(number_str(n) for n in cards) or '-'}] ({values})"


def to_text(state: MapDuelState, viewer: int | None = None) -> str:
    """A header (phase, seat to act, turn, no-progress count, pools, faces, removed cards) above
    the board as a grid: a number card as ``9D`` / ``10S``; a face card as ``^QH`` (``player_0``'s,
    facing north) or ``vKS`` (``player_1``'s, facing south), with ``*`` in the faces list once it
    has acted this turn; ``.`` an empty cell.

    ``viewer=None`` is a spectator: the face-down starting card shows in lower case (``^qh``).
    ``viewer=0`` or ``1`` sees the other seat's face-down card as ``^??`` / ``v??`` and, with
    ``hidden_pools=True``, the other seat's pool as a size."""
    B = state.B
    over = state.phase == Phase.OVER
    head = f"Map Duel {B}x{B}: phase {Phase(state.phase).label}"
    if not over:
        head += f", to act {SEAT_NAMES[state.current]} ({COLOUR_NAMES[state.current]})"
    head += (
        f", turn {state.turn}/{state.config.length_limit}, no progress "
        f"{state.no_progress}/{state.config.no_progress_turns}, first {SEAT_NAMES[state.first]}"
    )
    if viewer is not None:
        head += f" (view of {SEAT_NAMES[viewer]})"
    lines = [head]
    if state.phase in SETUP_PHASES:
        drawn = number_str(state.drawn) if state.drawn >= 0 else "-"
        lines.append(
            f"setup: drawn {drawn}, deck {len(state.setup_deck)} left, starting faces placed {state.setup_faces_placed}"
        )
    elif not over:
        flags = ["step 1 done" if state.step1_done else "step 1 open"]
        pending = _pending_text(state)
        if pending:
            flags.append(pending)
        lines.append(", ".join(flags))
    for seat in range(2):
        marker = ">" if seat == state.current and not over else " "
        if over and state.outcome == WON and seat == state.winner:
            marker = "*"
        lines.append(
            f"{marker}{SEAT_NAMES[seat]} ({COLOUR_NAMES[seat]}): "
            f"{_pool_text(state, seat, viewer)} | faces {_face_summary(state, seat, viewer)}"
        )
    removed = [number_str(n) for n in range(NUM_NUMBER_CARDS) if state.removed_numbers[n]]
    lines.append(
        f"removed from the game: {len(removed)} number cards "
        f"[{' '.join(removed) or '-'}], faces {sum(s == REMOVED for s in state.face_status[0])}"
        f" red / {sum(s == REMOVED for s in state.face_status[1])} black"
    )
    if over:
        lines.append(_result_text(state))
    lines.append("    " + "".join(f"{c:>{CELL_TEXT_W}}" for c in range(B)))
    for row in range(B):
        cells = "".join(f"{_cell_text(state, row * B + col, viewer):>{CELL_TEXT_W}}" for col in range(B))
        lines.append(f"{row:>4}" + cells)
    return "\n".join(lines)


# --------------------------------------------------------------------------- picture

CARD_W, CARD_H = 26, 32
PITCH_X, PITCH_Y = CARD_W + 2, CARD_H + 2
MARGIN = 6
HEADER_H = 42
LABEL_W, LABEL_H = 18, 14
PANEL_W = 176
MINI = 14  # the pool grids' cell
PANEL_H = 3 * (LABEL_H + 4 * MINI + 6) + 2 * (LABEL_H + 2 * 18) + LABEL_H + CARD_H + 8

_BACKGROUND = (22, 70, 48)
_BOARD = (30, 88, 60)
_CELL = (40, 104, 72)
_PANEL = (34, 96, 66)
_TEXT = (238, 238, 226)
_MUTED = (170, 196, 178)
_CARD_FILL = (250, 248, 240)
_CARD_EDGE = (30, 30, 30)
_RED = (200, 36, 44)
_BLACK = (24, 24, 28)
_GOLD = (240, 190, 40)
_ACT = (255, 214, 90)
#: per seat: a face card's fill and frame (red seat rose, black seat slate)
_FACE_FILL = ((255, 214, 214), (200, 210, 228))
_FACE_EDGE = ((196, 30, 40), (40, 52, 90))
_BACK = (70, 60, 140)
_REMOVED = (120, 150, 132)
#: the phases whose pending face is framed in gold in the picture
_PENDING_PHASES = (Phase.SACRIFICE_FACE, Phase.SACRIFICE_MOVE, Phase.BUILD_CARD)


def image_size(board_size: int) -> tuple[int, int]:
    """``(height, width)`` of the picture of a ``board_size x board_size`` board."""
    board_h = LABEL_H + board_size * PITCH_Y
    height = HEADER_H + max(board_h, PANEL_H) + MARGIN
    width = MARGIN + LABEL_W + board_size * PITCH_X + MARGIN + PANEL_W + MARGIN
    return height, width


def _text(image, x: int, y: int, text: str, size: int = 12, fill=_TEXT, centre: bool = False) -> int:
    """Draw ``text`` with its left-middle (or its middle) at (x, y); returns the x after it."""
    strip, left, top, advance = text_label(text, size, fill)
    if centre:
        x -= advance // 2
    image.paste(strip, (x + left, y + top), strip)
    return x + advance + 4


@lru_cache(maxsize=256)
def _number_glyph(n: int, faint: bool = False):
    from PIL import Image, ImageDraw

    image = Image.new("RGBA", (CARD_W, CARD_H), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    suit = number_suit(n)
    colour = _RED if suit in (1, 2) else _BLACK
    draw.rounded_rectangle((0, 0, CARD_W - 1, CARD_H - 1), radius=3, fill=_CARD_FILL, outline=_CARD_EDGE)
    draw.text((CARD_W // 2, 12), str(number_rank(n)), fill=colour, font=default_font(12), anchor="mm")
    draw.text((CARD_W // 2, CARD_H - 8), SUIT_LETTERS[suit], fill=colour, font=default_font(10), anchor="mm")
    return image


@lru_cache(maxsize=256)
def _face_glyph(seat: int, face: int, face_down: bool, acted: bool, pending: bool):
    """A face card: its owner's fill and thick frame, a notch on the side it faces (north for
    ``player_0``, south for ``player_1``), a back-coloured band when it still lies face down, dim
    once it has acted this turn, a gold frame while a sub-decision is about it."""
    from PIL import Image, ImageDraw

    image = Image.new("RGBA", (CARD_W, CARD_H), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    suit = face_suit(seat, face)
    colour = _RED if suit in (1, 2) else _BLACK
    edge = _GOLD if pending else _FACE_EDGE[seat]
    fill: tuple[int, ...] = _FACE_FILL[seat]
    if acted:
        fill = tuple((c + 3 * b) // 4 for c, b in zip(fill, _CELL, strict=True))
    draw.rounded_rectangle((0, 0, CARD_W - 1, CARD_H - 1), radius=3, fill=fill, outline=edge, width=3)
    if face_down:
        draw.rectangle((3, CARD_H - 9, CARD_W - 4, CARD_H - 4), fill=_BACK)
    tip_y, base_y = (3, 7) if seat == 0 else (CARD_H - 4, CARD_H - 8)
    mid = CARD_W // 2
    draw.polygon([(mid, tip_y), (mid - 4, base_y), (mid + 4, base_y)], fill=edge)
    text_y = 17 if seat == 0 else 13
    draw.text(
        (mid, text_y),
        FACE_TYPE_LETTERS[face_type(face)] + SUIT_LETTERS[suit],
        fill=colour,
        font=default_font(12),
        anchor="mm",
    )
    return image


@lru_cache(maxsize=4)
def _empty_board(board_size: int):
    """The background with the board's empty cells and its row and column numbers (one per size)."""
    from PIL import Image, ImageDraw

    height, width = image_size(board_size)
    image = Image.new("RGB", (width, height), _BACKGROUND)
    draw = ImageDraw.Draw(image)
    x0, y0 = MARGIN + LABEL_W, HEADER_H + LABEL_H
    draw.rectangle((x0 - 2, y0 - 2, x0 + board_size * PITCH_X, y0 + board_size * PITCH_Y), fill=_BOARD)
    for row in range(board_size):
        for col in range(board_size):
            x, y = x0 + col * PITCH_X, y0 + row * PITCH_Y
            draw.rectangle((x, y, x + CARD_W - 1, y + CARD_H - 1), fill=_CELL)
    for i in range(board_size):
        _text(image, x0 + i * PITCH_X + CARD_W // 2, HEADER_H + LABEL_H // 2, str(i), 9, _MUTED, True)
        _text(image, MARGIN + LABEL_W // 2, y0 + i * PITCH_Y + CARD_H // 2, str(i), 9, _MUTED, True)
    px = x0 + board_size * PITCH_X + MARGIN
    draw.rounded_rectangle((px, HEADER_H, px + PANEL_W, HEADER_H + PANEL_H), radius=6, fill=_PANEL)
    return image


def _mini_grid(draw, image, x: int, y: int, title: str, cards) -> int:
    """A 4 x 9 grid (suits C, D, H, S by ranks 2..10), a cell filled for each card in ``cards``."""
    _text(image, x, y + LABEL_H // 2, title, 10)
    y += LABEL_H
    for suit in range(4):
        colour = _RED if suit in (1, 2) else _BLACK
        _text(image, x, y + suit * MINI + MINI // 2, SUIT_LETTERS[suit], 9, _MUTED)
        for r in range(NUMBERS_PER_SUIT):
            cx, cy = x + 10 + r * MINI, y + suit * MINI
            if cards[suit * NUMBERS_PER_SUIT + r]:
                draw.rectangle((cx, cy, cx + MINI - 2, cy + MINI - 2), fill=_CARD_FILL)
                _text(image, cx + MINI // 2 - 1, cy + MINI // 2 - 1, str(NUMBER_RANKS[r]), 8, colour, True)
            else:
                draw.rectangle((cx, cy, cx + MINI - 2, cy + MINI - 2), outline=_CELL)
    return y + 4 * MINI + 6


def _face_row(draw, image, state: MapDuelState, x: int, y: int, seat: int) -> int:
    """The seat's eight faces as chips: filled on the map, outlined in the deck, crossed removed."""
    _text(image, x, y + LABEL_H // 2, f"{SEAT_NAMES[seat]} faces", 10)
    y += LABEL_H
    for face in range(NUM_FACES):
        cx, cy = x + (face % FACES_PER_SUIT) * 40, y + (face // FACES_PER_SUIT) * 18
        status = state.face_status[seat][face]
        box = (cx, cy, cx + 36, cy + 15)
        name = face_str(seat, face)
        if status == ON_MAP:
            draw.rectangle(box, fill=_FACE_FILL[seat], outline=_FACE_EDGE[seat], width=2)
            _text(image, cx + 18, cy + 8, name, 10, _BLACK, True)
        elif status == DECK:
            draw.rectangle(box, outline=_MUTED)
            _text(image, cx + 18, cy + 8, name, 10, _MUTED, True)
        else:
            draw.rectangle(box, outline=_REMOVED)
            _text(image, cx + 18, cy + 8, name, 10, _REMOVED, True)
            draw.line((cx + 2, cy + 13, cx + 34, cy + 2), fill=_RED, width=2)
    return y + 2 * 18


def to_rgb(state: MapDuelState) -> np.ndarray:
    """The spectator's picture, ``image_size(B) + (3,)`` ``uint8`` (``(504, 576, 3)`` for the
    default 13 x 13 board): a header (turn, phase, who acts, no-progress count, result), the board
    as a grid of small cards (number cards white with red or black ink; face cards rose for
    ``player_0`` and slate for ``player_1``, a notch on the side they face, a band when face down,
    dimmed once they acted this turn, a gold frame while a sub-decision is about them), and a
    panel with both pools, the cards removed from the game, both face decks and the setup card
    just drawn."""
    from PIL import ImageDraw

    B = state.B
    image = _empty_board(B).copy()
    draw = ImageDraw.Draw(image)
    over = state.phase == Phase.OVER
    # Header.
    title = f"MAP DUEL  turn {state.turn}/{state.config.length_limit}"
    x = _text(image, MARGIN + 4, 12, title, 14)
    _text(image, x + 8, 12, f"no progress {state.no_progress}/{state.config.no_progress_turns}", 11, _MUTED)
    if over:
        _text(image, MARGIN + 4, 31, _result_text(state).upper(), 12, _GOLD)
    else:
        x = _text(image, MARGIN + 4, 31, f"phase: {Phase(state.phase).label}", 12)
        x = _text(image, x + 8, 31, f"to act: {SEAT_NAMES[state.current]}", 12, _ACT)
        pending_text = _pending_text(state)
        if pending_text:
            _text(image, x + 8, 31, pending_text, 10, _MUTED)
    # Board.
    x0, y0 = MARGIN + LABEL_W, HEADER_H + LABEL_H
    for cell, code in enumerate(state.board):
        if code == EMPTY:
            continue
        row, col = divmod(cell, B)
        if code < FACE_BASE:
            glyph = _number_glyph(code)
        else:
            seat, face = _decode_face(code)
            acted = not over and seat == state.current and face in state.acted
            pending = state.phase in _PENDING_PHASES and seat == state.current and face == state.pending_face
            glyph = _face_glyph(seat, face, _is_face_down(state, seat, face), acted, pending)
        image.paste(glyph, (x0 + col * PITCH_X, y0 + row * PITCH_Y), glyph)
    # Panel.
    px, py = x0 + B * PITCH_X + MARGIN + 6, HEADER_H + 4
    for seat in range(2):
        pool = state.pools[seat]
        py = _mini_grid(draw, image, px, py, f"{SEAT_NAMES[seat]} pool ({sum(pool)})", pool)
    removed = state.removed_numbers
    py = _mini_grid(draw, image, px, py, f"removed ({sum(removed)})", removed)
    for seat in range(2):
        py = _face_row(draw, image, state, px, py, seat)
    if state.drawn >= 0:
        _text(image, px, py + LABEL_H // 2, f"drawn ({len(state.setup_deck)} left)", 10)
        glyph = _number_glyph(state.drawn)
        image.paste(glyph, (px + 100, py + 2), glyph)
    return np.asarray(image, dtype=np.uint8).copy()
