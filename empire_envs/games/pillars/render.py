"""Pictures of a Pillars state: ``to_text`` (plain text, for ``render_mode="ansi"``) and ``to_rgb``
(a ``uint8`` image, for ``render_mode="rgb_array"``).

``to_text(state, viewer)`` shows either the whole truth (``viewer=None``, a spectator) or what seat
``viewer`` may know: its own hand, the other hands' sizes and their public known cards, sealed
trade offers as ``?`` and the attacker's sealed throw as ``sealed``. ``to_rgb(state)`` is always the
spectator's picture (every hand face up), ``720`` pixels wide and ``image_height(n)`` high, so its
shape depends on the number of seats only. Neither draws from any random generator.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ...core.cards import RANK_LABELS, SUIT_LETTERS, is_black, rank_of, suit_of
from ...core.drawing import default_font, text_label
from .rules import acting_player
from .state import (
    ANSWER_NO,
    ANSWER_YES,
    EMPIRE_NAMES,
    FIRST_PILLAR_KIND,
    JOKER_KIND,
    NO_EMPIRE,
    NUM_PILLAR_RANKS,
    OVER,
    PILLAR_RANK_LABELS,
    PILLARS_TO_WIN,
    RPS_ATTACKER,
    RPS_DEFENDER,
    THROW_NAMES,
    TRADE_OFFER,
    TRADE_PICK,
    TRUNCATED,
    TWO_KIND,
    WON,
    Phase,
    PillarsState,
    empire_of,
    empire_ranks,
)

# --------------------------------------------------------------------------- text


def _cards(counts: list[int], labels: tuple[str, ...]) -> str:
    parts = [f"{labels[k]}x{c}" if c > 1 else labels[k] for k, c in enumerate(counts) if c]
    return " ".join(parts) or "-"


def _name(seat: int) -> str:
    return f"seat {seat}"


def _pillars_text(state: PillarsState, seat: int) -> str:
    laid = [PILLAR_RANK_LABELS[r] for r in range(NUM_PILLAR_RANKS) if state.pillars[seat][r]]
    if not laid:
        return "pillars -"
    jokers = state.pillar_jokers[seat]
    extra = f", {jokers} joker{'s' if jokers != 1 else ''}" if jokers else ""
    return f"pillars {','.join(laid)} ({len(laid)}/{PILLARS_TO_WIN}{extra})"


def _battle_result(state: PillarsState) -> str:
    """How a battle on record ended (or where it stands)."""
    if state.battle_answer == ANSWER_NO:
        return "answer no"
    if state.phase in (RPS_ATTACKER, RPS_DEFENDER):
        return "answer yes, rock-paper-scissors under way"
    attacker, defender = state.last_throws
    if attacker >= 0 and attacker != defender:
        won = (attacker - defender) % 3 == 1
        return "answer yes, attacker won the card" if won else "answer yes, defender kept the card"
    return "answer yes, settled by a coin"


_ROUND_ONE = "round 1: no steal, trade or battle"


def _throw_name(throw: int) -> str:
    return THROW_NAMES[throw] if throw >= 0 else "-"


def to_text(state: PillarsState, viewer: int | None = None) -> str:
    """Every seat's zones, the open trade or battle, and the result once over.

    ``viewer=None`` shows every hand and every sealed commitment (a spectator with the whole
    truth); a seat number shows that seat's own hand only, the others as sizes plus the public
    known-cards lower bound, other responders' offers as ``?`` until all are in, and the
    attacker's throw as ``sealed`` to everyone but the attacker."""
    labels = state.kinds.labels
    over = state.phase == OVER
    n = state.n
    head = (
        f"Pillars, {n} players: round {state.round}, turn of {_name(state.current)}, phase {Phase(state.phase).label}"
    )
    if not over:
        head += f", to act {_name(acting_player(state))}"
    head += f", resource pile {len(state.deck)}"
    if viewer is not None:
        head += f" (view of {_name(viewer)})"
    lines = [head]
    if not over and state.in_first_round:
        lines.append(_ROUND_ONE)
    elif not over:
        flags = ["main action done" if state.main_done else "main action to take"]
        if state.bonus_unlocked(state.current) and state.empire[state.current] != NO_EMPIRE:
            flags.append("bonus used" if state.bonus_used else "bonus unused")
        lines.append(", ".join(flags))
    for seat in range(n):
        marker = ">" if seat == state.current and not over else " "
        if over and seat == state.winner:
            marker = "*"
        skip = " (skip pending)" if state.pending_skip[seat] else ""
        if viewer is None or viewer == seat:
            hand = f"hand {state.hand_sizes[seat]} [{_cards(state.hands[seat], labels)}]"
        else:
            hand = f"hand {state.hand_sizes[seat]} cards"
            if state.config.obs_known_cards and any(state.known[seat]):
                hand += f" (known: {_cards(state.known[seat], labels)})"
        pile = state.piles[seat]
        top = labels[pile[-1]] if pile else "empty"
        size = f"{len(pile)} card{'s' if len(pile) != 1 else ''}"
        lines.append(
            f"{marker}{_name(seat)}{skip}: empire {EMPIRE_NAMES[state.empire[seat]]}, "
            f"{_pillars_text(state, seat)} | {hand} | discard top {top} ({size})"
        )
    if state.trade_trader >= 0:
        parts = []
        for o in range(1, n):
            seat = (state.trade_trader + o) % n
            offered = state.offers[seat]
            if offered >= 0:
                shown = state.trade_revealed or viewer is None or viewer == seat
                parts.append(f"{_name(seat)}: {labels[offered] if shown else '?'}")
            elif seat in state.trade_queue:
                parts.append(f"{_name(seat)}: waiting")
        stage = (
            "offers sealed"
            if state.phase == TRADE_OFFER
            else ("offers revealed" if state.phase == TRADE_PICK else "settled")
        )
        lines.append(
            f"trade by {_name(state.trade_trader)}, tabled {labels[state.trade_tabled]} ({stage}); "
            f"offers {', '.join(parts) or 'none'}"
        )
    if state.battle_attacker >= 0:
        throws = "/".join(_throw_name(t) for t in state.last_throws)
        line = (
            f"battle: {_name(state.battle_attacker)} demands {labels[state.battle_kind]} from "
            f"{_name(state.battle_defender)}: {_battle_result(state)}; ties {state.battle_ties}; "
            f"last throws {throws}"
        )
        if state.pending_throw >= 0:
            see = viewer is None or viewer == state.battle_attacker
            line += f"; attacker's throw {THROW_NAMES[state.pending_throw] if see else 'sealed'}"
        lines.append(line)
    if over:
        if state.outcome == WON:
            lines.append(
                f"game over: {_name(state.winner)} wins with the {EMPIRE_NAMES[state.empire[state.winner]]} empire"
            )
        elif state.outcome == TRUNCATED:
            lines.append("game over: truncated, no winner")
    return "\n".join(lines)


# --------------------------------------------------------------------------- picture

WIDTH = 720
HEADER_H = 54
BAND_H = 50
PANEL_H = 98
PANEL_GAP = 4
MARGIN = 6
CARD_W, CARD_H = 27, 36
CARD_STEP = CARD_W + 2

_BACKGROUND = (22, 70, 48)
_PANEL = (34, 96, 66)
_PANEL_TURN = (52, 124, 86)
_PANEL_ACT = (255, 214, 90)
_TEXT = (238, 238, 226)
_MUTED = (170, 196, 178)
_CARD_FILL = (250, 248, 240)
_CARD_EDGE = (30, 30, 30)
_SLOT = (70, 128, 96)
_RED = (200, 36, 44)
_GOLD = (240, 190, 40)
_BADGE_SKIP = (206, 52, 52)
_GROUP_COLOURS = (
    (110, 110, 120),  # 2: security & sabotage
    (30, 130, 70),  # Thief 3-6
    (40, 90, 190),  # Merchant 7-10
    (170, 40, 50),  # Warlord J-A
    (150, 90, 10),  # Joker
)
_EMPIRE_TEXT = ((200, 200, 200), (120, 220, 150), (140, 180, 255), (255, 140, 140))


def image_height(num_players: int) -> int:
    """The picture's height for ``num_players`` seats (its width is always ``WIDTH``)."""
    return HEADER_H + BAND_H + num_players * (PANEL_H + PANEL_GAP) + MARGIN


def _group(rank_kind: int) -> int:
    """0 for a 2, 1-3 for the Thief, Merchant and Warlord ranks, 4 for the Joker."""
    if rank_kind == TWO_KIND:
        return 0
    if rank_kind == JOKER_KIND:
        return 4
    return empire_of(rank_kind - FIRST_PILLAR_KIND)


@lru_cache(maxsize=1024)
def _glyph(rank: str, suit: str, group: int, red: bool, count: int, faint: bool = False):
    """One small card picture (cached: the same few dozen are pasted again and again)."""
    from PIL import Image, ImageDraw

    image = Image.new("RGBA", (CARD_W, CARD_H), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    box = (0, 0, CARD_W - 1, CARD_H - 1)
    colour = _GROUP_COLOURS[group]
    if faint:  # a pillar slot of the seat's empire not laid yet
        draw.rounded_rectangle(box, radius=4, outline=_SLOT, width=1)
        draw.text((CARD_W // 2, 15), rank, fill=_SLOT, font=default_font(12), anchor="mm")
        return image
    draw.rounded_rectangle(box, radius=4, fill=_CARD_FILL, outline=_CARD_EDGE)
    draw.rectangle((2, 2, CARD_W - 3, 5), fill=colour)
    text_colour = _RED if red else colour
    if suit:  # the exact-card game: the suit in the bottom left corner
        draw.text((CARD_W // 2, 16), rank, fill=text_colour, font=default_font(13), anchor="mm")
        draw.text((3, CARD_H - 2), suit, fill=text_colour, font=default_font(10), anchor="ld")
    else:
        draw.text((CARD_W // 2, 16), rank, fill=text_colour, font=default_font(13), anchor="mm")
    if count > 1:
        draw.text((CARD_W - 3, CARD_H - 2), f"x{count}", fill=_CARD_EDGE, font=default_font(10), anchor="rd")
    return image


@lru_cache(maxsize=64)
def _empty_slot(text: str):
    from PIL import Image, ImageDraw

    image = Image.new("RGBA", (CARD_W, CARD_H), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle((0, 0, CARD_W - 1, CARD_H - 1), radius=4, outline=_SLOT, width=1)
    draw.text((CARD_W // 2, CARD_H // 2), text, fill=_MUTED, font=default_font(11), anchor="mm")
    return image


def _paste(image, glyph, spot: tuple[int, int]) -> None:
    image.paste(glyph, spot, glyph)  # the glyph's own alpha keeps the panel's colour around it


def _kind_glyph(state: PillarsState, kind: int, count: int = 1):
    kinds = state.kinds
    group = _group(kinds.rank_kind[kind])
    if kind == kinds.joker:
        return _glyph("Jk", "", group, False, count)
    label = kinds.labels[kind]
    if not kinds.exact_cards:
        return _glyph(label, "", group, False, count)
    return _glyph(RANK_LABELS[rank_of(kind)], SUIT_LETTERS[suit_of(kind)], group, not is_black(kind), count)


def _text(image, x: int, y: int, text: str, size: int = 12, fill=_TEXT, right: bool = False) -> int:
    """Draw ``text`` with its left-middle (or right-middle) at (x, y); returns the x after it."""
    strip, left, top, advance = text_label(text, size, fill)
    if right:
        x -= advance
    image.paste(strip, (x + left, y + top), strip)
    return x + advance + 4


@lru_cache(maxsize=64)
def _badge_image(text: str, fill: tuple[int, int, int], text_fill: tuple[int, int, int]):
    from PIL import Image, ImageDraw

    font = default_font(11)
    width = int(font.getlength(text)) + 10
    image = Image.new("RGBA", (width + 1, 17), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle((0, 0, width, 16), radius=4, fill=fill)
    draw.text((5, 8), text, fill=text_fill, font=font, anchor="lm")
    return image


def _badge(image, x: int, y: int, text: str, fill, text_fill=(255, 255, 255)) -> int:
    """A small filled label with its top left at (x, y); returns the x after it."""
    badge = _badge_image(text, fill, text_fill)
    image.paste(badge, (x, y), badge)
    return x + badge.width + 3


def _draw_header(image, state: PillarsState) -> None:
    over = state.phase == OVER
    title = f"PILLARS  {state.n} players   round {state.round}/{state.config.length_limit}"
    _text(image, MARGIN + 6, 16, title, 16)
    _text(image, WIDTH - MARGIN - 6, 16, f"resource pile {len(state.deck)}", 14, right=True)
    if over:
        if state.outcome == WON:
            empire = EMPIRE_NAMES[state.empire[state.winner]]
            line = f"GAME OVER: {_name(state.winner)} (player_{state.winner}) wins as {empire}"
        else:
            line = "GAME OVER: truncated, no winner"
        _text(image, MARGIN + 6, 40, line, 14, _GOLD)
        return
    x = _text(image, MARGIN + 6, 40, f"phase: {Phase(state.phase).label}", 13)
    x = _text(image, x + 10, 40, f"turn: {_name(state.current)}", 13)
    _text(image, x + 10, 40, f"to act: {_name(acting_player(state))}", 13, _PANEL_ACT)


def _draw_band(image, draw, state: PillarsState) -> None:
    top = HEADER_H
    draw.rounded_rectangle((MARGIN, top, WIDTH - MARGIN, top + BAND_H - 6), radius=6, fill=_PANEL)
    mid = top + (BAND_H - 6) // 2
    glyph_y = top + (BAND_H - 6 - CARD_H) // 2
    x = MARGIN + 8
    if state.trade_trader >= 0:
        x = _badge(image, x, mid - 8, "TRADE", _GROUP_COLOURS[2])
        x = _text(image, x, mid, f"{_name(state.trade_trader)} tables")
        _paste(image, _kind_glyph(state, state.trade_tabled), (x, glyph_y))
        x += CARD_STEP + 6
        stage = {TRADE_OFFER: "offers (sealed):", TRADE_PICK: "offers (revealed):"}.get(
            state.phase, "offers (settled):"
        )
        x = _text(image, x, mid, stage, 12, _MUTED)
        for o in range(1, state.n):
            seat = (state.trade_trader + o) % state.n
            offered = state.offers[seat]
            if offered < 0 and seat not in state.trade_queue:
                continue  # an empty hand sits the trade out
            x = _text(image, x, mid, f"s{seat}", 12)
            glyph = _kind_glyph(state, offered) if offered >= 0 else _empty_slot("...")
            _paste(image, glyph, (x, glyph_y))
            x += CARD_STEP + 4
        return
    if state.battle_attacker >= 0:
        x = _badge(image, x, mid - 8, "BATTLE", _GROUP_COLOURS[3])
        x = _text(image, x, mid, f"{_name(state.battle_attacker)} demands")
        _paste(image, _kind_glyph(state, state.battle_kind), (x, glyph_y))
        x += CARD_STEP + 4
        x = _text(image, x, mid, f"from {_name(state.battle_defender)}:")
        answer = {ANSWER_YES: "yes", ANSWER_NO: "no"}.get(state.battle_answer, "?")
        x = _text(image, x, mid, answer, 13, _PANEL_ACT)
        if state.battle_answer == ANSWER_YES:
            first, second = (_throw_name(t) for t in state.last_throws)
            detail = f"ties {state.battle_ties}   last throws {first} v {second}"
            if state.pending_throw >= 0:
                detail += f"   sealed: {THROW_NAMES[state.pending_throw]}"
            elif state.phase not in (RPS_ATTACKER, RPS_DEFENDER):
                detail += "   " + _battle_result(state).split(", ", 1)[1]
            _text(image, x + 6, mid, detail, 12, _MUTED)
        return
    if state.phase == OVER:
        _text(image, x, mid, "no trade or battle open", 12, _MUTED)
        return
    if state.in_first_round:
        _text(image, x, mid, _ROUND_ONE, 12, _MUTED)
        return
    seat = state.current
    x = _text(image, x, mid, "main action: " + ("done" if state.main_done else "to take"), 12)
    if state.empire[seat] != NO_EMPIRE and state.bonus_unlocked(seat):
        bonus = ("steal", "trade", "battle")[state.empire[seat] - 1]
        used = "used" if state.bonus_used else "unused"
        _text(image, x + 12, mid, f"bonus {bonus}: {used}", 12)


def _draw_panel(image, draw, state: PillarsState, seat: int) -> None:
    top = HEADER_H + BAND_H + seat * (PANEL_H + PANEL_GAP)
    over = state.phase == OVER
    is_turn = seat == state.current and not over
    acting = not over and seat == acting_player(state)
    winner = over and seat == state.winner
    box = (MARGIN, top, WIDTH - MARGIN, top + PANEL_H)
    outline = _GOLD if winner else (_PANEL_ACT if acting else None)
    draw.rounded_rectangle(
        box, radius=7, fill=_PANEL_TURN if is_turn else _PANEL, outline=outline, width=3 if outline else 1
    )
    # Name, empire, counts and badges.
    x0 = MARGIN + 10
    _text(image, x0, top + 14, f"player_{seat}", 15)
    _text(image, x0 + 74, top + 14, f"seat {seat}", 11, _MUTED)
    empire = state.empire[seat]
    _text(image, x0, top + 34, EMPIRE_NAMES[empire] if empire != NO_EMPIRE else "no empire", 13, _EMPIRE_TEXT[empire])
    counts = f"hand {state.hand_sizes[seat]}   pillars {state.pillar_count(seat)}/{PILLARS_TO_WIN}"
    _text(image, x0, top + 52, counts, 11)
    bx = x0
    if winner:
        bx = _badge(image, bx, top + 70, "WINNER", _GOLD, (30, 30, 30))
    elif is_turn:
        bx = _badge(image, bx, top + 70, "TURN", (30, 60, 44))
    if acting and not is_turn:
        bx = _badge(image, bx, top + 70, "TO ACT", _PANEL_ACT, (30, 30, 30))
    if state.pending_skip[seat]:
        bx = _badge(image, bx, top + 70, "SKIP", _BADGE_SKIP)
    # Pillars: the empire's four ranks (laid ones face up), or four empty slots.
    px = MARGIN + 150
    _text(image, px, top + 10, "pillars", 10, _MUTED)
    ranks = list(empire_ranks(empire)) if empire != NO_EMPIRE else [-1] * PILLARS_TO_WIN
    for i, rank in enumerate(ranks):
        spot = (px + i * CARD_STEP, top + 20)
        if rank < 0:
            _paste(image, _empty_slot(""), spot)
        elif state.pillars[seat][rank]:
            _paste(image, _glyph(PILLAR_RANK_LABELS[rank], "", empire, False, 1), spot)
        else:
            _paste(image, _glyph(PILLAR_RANK_LABELS[rank], "", empire, False, 1, True), spot)
    jokers = state.pillar_jokers[seat]
    if jokers:
        plural = "s" if jokers != 1 else ""
        _text(image, px, top + 66, f"{jokers} joker{plural} in pillars", 10, _MUTED)
    # Discard pile: its top card and size.
    dx = px + PILLARS_TO_WIN * CARD_STEP + 14
    _text(image, dx, top + 10, "discard", 10, _MUTED)
    pile = state.piles[seat]
    _paste(image, _kind_glyph(state, pile[-1]) if pile else _empty_slot("-"), (dx + 4, top + 20))
    _text(image, dx, top + 66, f"{len(pile)} card{'s' if len(pile) != 1 else ''}", 10, _MUTED)
    if pile and state.kinds.is_two[pile[-1]]:
        _text(image, dx, top + 80, "locked", 10, (255, 160, 160))
    # Hand: one glyph per kind held, with its count, on up to two rows.
    hx = dx + 54
    _text(image, hx, top + 10, f"hand ({state.hand_sizes[seat]})", 10, _MUTED)
    per_row = (WIDTH - MARGIN - 6 - hx) // CARD_STEP
    held = [k for k, c in enumerate(state.hands[seat]) if c]
    shown = held if len(held) <= 2 * per_row else held[: 2 * per_row - 1]
    for i, kind in enumerate(shown):
        row, col = divmod(i, per_row)
        spot = (hx + col * CARD_STEP, top + 20 + row * (CARD_H + 3))
        _paste(image, _kind_glyph(state, kind, state.hands[seat][kind]), spot)
    if len(shown) < len(held):
        rest = sum(state.hands[seat][k] for k in held[len(shown) :])
        i = len(shown)
        spot = (hx + (i % per_row) * CARD_STEP, top + 20 + (i // per_row) * (CARD_H + 3))
        _paste(image, _empty_slot(f"+{rest}"), spot)
    if not held:
        _text(image, hx, top + 38, "empty", 12, _MUTED)


def to_rgb(state: PillarsState) -> np.ndarray:
    """The spectator's picture, ``(image_height(n), 720, 3) uint8``: a header (round, phase, whose
    turn, who acts, the resource pile), a band with the open trade or battle, then one panel per
    seat with its empire, pillars, discard pile, pending skip and whole hand."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (WIDTH, image_height(state.n)), _BACKGROUND)
    draw = ImageDraw.Draw(image)
    _draw_header(image, state)
    _draw_band(image, draw, state)
    for seat in range(state.n):
        _draw_panel(image, draw, state, seat)
    return np.asarray(image, dtype=np.uint8).copy()
