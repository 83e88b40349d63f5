"""Empire solo renderers: ``to_text`` (the ``ansi`` mode) and ``to_rgb`` (the ``rgb_array`` mode)."""

from __future__ import annotations

import numpy as np

from ...core.cards import JACK, KING, QUEEN, card_str, is_black, rank_of
from ...core.drawing import default_font
from . import rules
from .state import (
    BASE,
    KEEPS,
    NUM_TERRITORIES,
    ONGOING,
    OUTCOME_NAMES,
    SEND,
    SPLIT,
    SUM,
    UNIT_NAMES,
    Phase,
    SoloState,
)
from .tables import BASES_TO_WIN, NAME

_ATTACKER_NAMES = {JACK: "Jack", QUEEN: "Queen", KING: "King"}


def territory_label(t: int) -> str:
    return f"keep {t}" if t in KEEPS else f"outpost {t}"


def unit_text(state: SoloState, t: int) -> str:
    """``"super soldier 7C+5H (12)"``, ``"native KS +7D (20)"``, ``"BASE QC"`` or ``"-"``."""
    kind = state.unit_kind[t]
    if not state.unit_cards[t]:
        return "-"
    body = "+".join(card_str(card) for card in state.unit_cards[t])
    recruit = state.recruit[t]
    extra = f" +{card_str(recruit)}" if recruit >= 0 else ""
    if kind == BASE:
        return f"BASE {body}{extra}"
    return f"{UNIT_NAMES[kind]} {body}{extra} ({rules.unit_value(state, t)})"


def battle_text(state: SoloState) -> str:
    if state.attacker < 0:
        return ""
    rank = rank_of(state.attacker)
    parts = [f"Battle: {_ATTACKER_NAMES[rank]} {card_str(state.attacker)}"]
    if state.enemies:
        parts.append("enemies " + ", ".join(f"{card_str(card)} ({rules.VALUE[card]})" for card in state.enemies))
    if state.mode in (SUM, SPLIT):
        parts.append("mode " + ("SUM" if state.mode == SUM else "SPLIT"))
    if state.phase == SEND and state.outcome == ONGOING:
        parts.append(f"a unit must reach {rules.enemy_target(state)}")
    if state.rounds_lost:
        parts.append(f"rounds lost {state.rounds_lost}")
    return "; ".join(parts)


def to_text(state: SoloState) -> str:
    """A plain-text picture of the position, a few lines long."""
    lines = [
        f"{NAME} | draws {state.draws}/{state.config.length_limit} | deck {len(state.deck)}"
        f" | discard {len(state.discard)} | bases {state.num_bases()}/{BASES_TO_WIN}"
        f" | phase {Phase(state.phase).label}"
    ]
    for t in range(NUM_TERRITORIES):
        lines.append(f"  {territory_label(t):<10} {unit_text(state, t)}")
    if state.drawn >= 0:
        lines.append(f"Drawn: {card_str(state.drawn)}")
    battle = battle_text(state)
    if battle:
        lines.append(battle)
    if state.outcome:
        lines.append(f"Result: {OUTCOME_NAMES[state.outcome]}")
    return "\n".join(lines)


# --------------------------------------------------------------------------- image

WIDTH, HEIGHT = 720, 420
_CARD_W, _CARD_H = 46, 64
_BACKGROUND = (24, 96, 56)
_KEEP_FILL = (34, 120, 72)
_OUTPOST_FILL = (30, 108, 64)
_CARD_FILL = (250, 250, 245)
_BASE_FILL = (92, 64, 160)
_RED = (200, 30, 40)
_BLACK = (20, 20, 20)
_TEXT = (240, 240, 230)


def to_rgb(state: SoloState) -> np.ndarray:
    """An ``(420, 720, 3) uint8`` picture: six territories with their stacks, the drawn card,
    the battle, and the counters. Needs Pillow (a dependency of the package)."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (WIDTH, HEIGHT), _BACKGROUND)
    draw = ImageDraw.Draw(image)
    font = default_font(14)
    small = default_font(12)
    draw.text((12, 8), to_text(state).splitlines()[0], fill=_TEXT, font=small)

    column = WIDTH // NUM_TERRITORIES
    for t in range(NUM_TERRITORIES):
        left = t * column + 4
        fill = _KEEP_FILL if t in KEEPS else _OUTPOST_FILL
        draw.rounded_rectangle((left, 30, left + column - 8, 250), radius=8, fill=fill)
        draw.text((left + 6, 34), territory_label(t), fill=_TEXT, font=small)
        cards = list(state.unit_cards[t])
        if state.recruit[t] >= 0:
            cards.append(state.recruit[t])
        is_base = state.unit_kind[t] == BASE
        for index, card in enumerate(cards):
            if is_base:  # the base lies sideways, its recruit below it
                x, y = left + 10 + 20 * index, 56 + 58 * index
            else:
                x, y = left + 10 + 14 * index, 56 + 22 * index
            _card(draw, x, y, card, font, face_down=is_base and index == 0)
        kind = UNIT_NAMES[state.unit_kind[t]]
        value = "" if not cards or state.unit_kind[t] == BASE else f" {rules.unit_value(state, t)}"
        draw.text((left + 6, 230), f"{kind}{value}", fill=_TEXT, font=small)

    draw.text((12, 262), "drawn", fill=_TEXT, font=small)
    if state.drawn >= 0:
        _card(draw, 14, 280, state.drawn, font)
    if state.attacker >= 0:
        draw.text((120, 262), "battle", fill=_TEXT, font=small)
        _card(draw, 122, 280, state.attacker, font)
        for index, enemy in enumerate(state.enemies):
            _card(draw, 190 + 56 * index, 280, enemy, font)
        for index, card in enumerate(state.sent):
            _card(draw, 320 + 16 * index, 280 + 6 * index, card, font)
    text = battle_text(state)
    if text:
        draw.text((12, 356), text, fill=_TEXT, font=small)
    if state.outcome:
        draw.text((12, 380), f"Result: {OUTCOME_NAMES[state.outcome]}", fill=_TEXT, font=font)
    return np.asarray(image, dtype=np.uint8).copy()


def _card(draw, x: int, y: int, card: int, font, face_down: bool = False) -> None:
    if face_down:
        draw.rounded_rectangle((x, y, x + _CARD_H, y + _CARD_W), radius=5, fill=_BASE_FILL, outline=_BLACK)
        draw.text((x + 5, y + 4), card_str(card), fill=_TEXT, font=font)
        draw.text((x + 5, y + 24), "base", fill=_TEXT, font=font)
        return
    box = (x, y, x + _CARD_W, y + _CARD_H)
    draw.rounded_rectangle(box, radius=5, fill=_CARD_FILL, outline=_BLACK)
    colour = _BLACK if is_black(card) else _RED
    draw.text((x + 5, y + 4), card_str(card), fill=colour, font=font)
