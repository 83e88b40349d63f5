"""Pictures of an Empires and Generals state: ``to_text`` (for ``render_mode="ansi"``) and
``to_rgb`` (a ``uint8`` image, for ``render_mode="rgb_array"``).

``to_text(state, viewer)`` shows the whole truth (``viewer=None``, a spectator) or what seat
``viewer`` may know (its own hand; other hands as sizes). ``to_rgb(state)`` is the spectator's
picture, ``WIDTH`` pixels wide and ``image_height(num_players)`` high: a header, then one panel per
seat with its cultural health, economy, Kingdom and its units in the Warcamp and the Battlefield.
Neither draws from any random generator.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ...core.drawing import text_label
from .rules import fresh_value, ready_value, unit_life, unit_strength
from .state import BF, OUTCOME_NAMES, OVER, PHASE_NAMES, TRUNCATED, WC, ZONE_NAMES, GeneralsState

# --------------------------------------------------------------------------- text


def _counts(state: GeneralsState, counts: Sequence[int]) -> str:
    ids = state.tables.ids
    parts = [f"{ids[k]}x{c}" if c > 1 else ids[k] for k, c in enumerate(counts) if c]
    return " ".join(parts) or "-"


def _unit_text(state: GeneralsState, seat: int, slot: int) -> str:
    unit = state.players[seat].units[slot]
    assert unit is not None
    card = state.tables.kinds[unit.kind]
    marks = "G" if card.is_general else "S"
    return f"u{slot}:{card.id}({marks} {unit_strength(state, seat, slot)}/{unit_life(state, seat, slot)})"


def battle_text(state: GeneralsState) -> str:
    """The battle under way, or the latest one."""
    battle = state.battle
    if battle is not None:
        a_unit = state.players[battle.attacker].units[battle.a_slot]
        attacker = state.tables.ids[a_unit.kind] if a_unit is not None and not battle.a_out else "out"
        blocker = "none"
        if battle.blocker >= 0:
            unit = state.players[battle.defender].units[battle.blocker]
            blocker = state.tables.ids[unit.kind] if unit is not None else "removed"
        return (
            f"battle: player_{battle.attacker} {attacker} -> player_{battle.defender} "
            f"{ZONE_NAMES[battle.zone]}, blocker {blocker}{' (redirected)' if battle.redirected else ''}"
        )
    if state.last_battle:
        attacker, defender, steps = state.last_battle
        path = ", ".join(f"{ZONE_NAMES[z]} {n} {OUTCOME_NAMES[n]}" for z, n in steps)
        return f"last battle: player_{attacker} -> player_{defender}: {path}"
    return "no battle yet"


def to_text(state: GeneralsState, viewer: int | None = None) -> str:
    config = state.config
    if state.phase == OVER:
        from .rules import outcome_name

        status = f"game over: {outcome_name(state)}" if state.outcome != TRUNCATED else "game over: truncated"
    else:
        status = f"player_{state.current}'s turn, {PHASE_NAMES[state.phase]}; player_{state.acting_player()} to act"
    lines = [
        f"Empires and Generals, {config.game_type}{' Slaughterhouse' if config.slaughterhouse else ''}"
        f" (target {config.target}), round {state.round}/{config.length_limit}: {status}",
        battle_text(state),
    ]
    if state.banned:
        lines.append("banned: " + ", ".join(state.tables.ids[k] for k in sorted(state.banned)))
    for seat, player in enumerate(state.players):
        head = f"player_{seat} [{player.deck_id}]"
        if not player.alive:
            lines.append(f"{head}: out of the game (place {player.place}), CH {player.ch}")
            continue
        hand_size = sum(player.hand)
        if viewer is None or viewer == seat:
            hand = _counts(state, player.hand)
        else:
            hand = f"{hand_size} cards"
        lines.append(
            f"{head}: CH {player.ch:+d}  budget {player.budget}  supply line {ready_value(state, seat)} ready"
            f" + {fresh_value(state, seat)} fresh  deck {len(player.playing_deck)}  supply pile"
            f" {len(player.supply_pile)}  discard {sum(player.discard)}"
            f"{'  (passed last turn)' if player.passed_last else ''}"
        )
        lines.append(f"  hand: {hand}")
        strategy = state.tables.ids[player.strategy] if player.strategy >= 0 else "-"
        capitol = state.tables.ids[player.capitol] if player.capitol >= 0 else "-"
        lines.append(f"  kingdom: {_counts(state, player.kingdom)}  strategy: {strategy}  capitol: {capitol}")
        for zone in (WC, BF):
            units = [
                _unit_text(state, seat, u)
                for u, unit in enumerate(player.units)
                if unit is not None and unit.zone == zone
            ]
            lines.append(f"  {ZONE_NAMES[zone]}: {' '.join(units) or '-'}")
    return "\n".join(lines)


# --------------------------------------------------------------------------- image

WIDTH = 760
HEADER_H = 46
PANEL_H = 150
PANEL_GAP = 6
MARGIN = 8
_BACKGROUND = (28, 40, 34)
_PANEL = (44, 58, 50)
_PANEL_OUT = (60, 60, 60)
_TEXT = (235, 235, 225)
_MUTED = (160, 170, 160)
_CH_GOOD = (70, 170, 90)
_CH_BAD = (200, 70, 60)
_UNIT_COLOURS = {"general": (150, 110, 30), "soldier": (70, 90, 150)}
_ATTACK = (220, 60, 50)
_BLOCK = (60, 170, 220)
UNIT_W, UNIT_H = 66, 44


def image_height(num_players: int) -> int:
    return HEADER_H + num_players * (PANEL_H + PANEL_GAP) + MARGIN


def _text(image, x: int, y: int, text: str, size: int = 12, fill=_TEXT) -> int:
    label, left, top, advance = text_label(text, size, fill)
    image.paste(label, (x + left, y + top), label)
    return x + advance


def _draw_unit(image, draw, state: GeneralsState, seat: int, slot: int, x: int, y: int) -> None:
    unit = state.players[seat].units[slot]
    assert unit is not None
    card = state.tables.kinds[unit.kind]
    battle = state.battle
    outline = None
    if battle is not None and battle.attacker == seat and battle.a_slot == slot:
        outline = _ATTACK
    elif battle is not None and battle.defender == seat and battle.blocker == slot:
        outline = _BLOCK
    draw.rounded_rectangle(
        (x, y, x + UNIT_W, y + UNIT_H),
        radius=5,
        fill=_UNIT_COLOURS[card.type],
        outline=outline or (20, 20, 20),
        width=3 if outline else 1,
    )
    _text(image, x + 4, y + 11, card.name[:11], 11)
    _text(image, x + 4, y + 30, f"{unit_strength(state, seat, slot)}/{unit_life(state, seat, slot)}", 13)


def _draw_panel(image, draw, state: GeneralsState, seat: int) -> None:
    player = state.players[seat]
    top = HEADER_H + seat * (PANEL_H + PANEL_GAP)
    draw.rectangle((MARGIN, top, WIDTH - MARGIN, top + PANEL_H), fill=_PANEL if player.alive else _PANEL_OUT)
    x = _text(image, MARGIN + 8, top + 12, f"player_{seat}  {player.deck_id}", 14)
    if state.phase != OVER and seat == state.current:
        _text(image, x + 10, top + 12, "to play" if state.acting_player() == seat else "turn", 12, _MUTED)
    # cultural health as a bar from -T to +T
    target = state.config.target
    bar_x, bar_y, bar_w = WIDTH - 230, top + 6, 200
    draw.rectangle((bar_x, bar_y, bar_x + bar_w, bar_y + 12), fill=(30, 30, 30))
    centre = bar_x + bar_w // 2
    reach = int(max(-1.0, min(1.0, player.ch / target)) * bar_w / 2)
    draw.rectangle(
        (min(centre, centre + reach), bar_y, max(centre, centre + reach), bar_y + 12),
        fill=_CH_GOOD if player.ch >= 0 else _CH_BAD,
    )
    _text(image, bar_x - 52, bar_y + 7, f"CH {player.ch:+d}", 12)
    if not player.alive:
        _text(image, MARGIN + 8, top + 40, f"out of the game (place {player.place})", 14, _MUTED)
        return
    economy = (
        f"hand {sum(player.hand)}  deck {len(player.playing_deck)}  supply {len(player.supply_pile)}  "
        f"line {ready_value(state, seat)}+{fresh_value(state, seat)}  budget {player.budget}  "
        f"discard {sum(player.discard)}"
    )
    _text(image, MARGIN + 8, top + 32, economy, 11, _MUTED)
    ids = state.tables.ids
    static = [ids[k] + (f"x{c}" if c > 1 else "") for k, c in enumerate(player.kingdom) if c]
    if player.strategy >= 0:
        static.append("S:" + ids[player.strategy])
    if player.capitol >= 0:
        static.append("C:" + ids[player.capitol])
    _text(image, MARGIN + 8, top + 50, ("kingdom " + " ".join(static))[:110], 11, _MUTED)
    for zone, label, y in ((WC, "Warcamp", top + 66), (BF, "Battlefield", top + 66)):
        x0 = MARGIN + 8 if zone == WC else WIDTH // 2 + 4
        _text(image, x0, y + 6, label, 11, _MUTED)
        x = x0
        for slot, unit in enumerate(player.units):
            if unit is not None and unit.zone == zone:
                if x + UNIT_W > (WIDTH // 2 - 6 if zone == WC else WIDTH - MARGIN - 4):
                    break
                _draw_unit(image, draw, state, seat, slot, x, y + 16)
                x += UNIT_W + 4


def to_rgb(state: GeneralsState) -> np.ndarray:
    """The spectator's picture, ``(image_height(n), 760, 3) uint8``."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (WIDTH, image_height(state.num_players)), _BACKGROUND)
    draw = ImageDraw.Draw(image)
    if state.phase == OVER:
        from .rules import outcome_name

        head = f"round {state.round}: {outcome_name(state)}"
    else:
        phase = PHASE_NAMES[state.phase]
        head = f"round {state.round}/{state.config.length_limit}  {phase}  player_{state.acting_player()} to act"
    _text(image, MARGIN + 4, 14, head, 14)
    _text(image, MARGIN + 4, 32, battle_text(state)[:120], 11, _MUTED)
    for seat in range(state.num_players):
        _draw_panel(image, draw, state, seat)
    return np.asarray(image, dtype=np.uint8).copy()


__all__ = ["to_text", "to_rgb", "image_height", "battle_text"]
