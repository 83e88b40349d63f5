"""Pictures of a Pillars state: ``to_text`` (a table in plain text) and ``to_rgb`` (an image)."""

from __future__ import annotations

import numpy as np

from .state import EMPIRE_NAMES, PHASE_NAMES, PILLAR_RANK_LABELS, THROW_NAMES, OVER, PillarsState


def _cards(counts: list[int], labels: tuple[str, ...]) -> str:
    parts = [f"{labels[k]}x{c}" if c > 1 else labels[k] for k, c in enumerate(counts) if c]
    return " ".join(parts) or "-"


def to_text(state: PillarsState, viewer: int | None = None) -> str:
    """Every seat's zones; hands are shown in full for ``viewer=None`` (a spectator with the
    whole truth) and only for the viewer's own seat otherwise."""
    labels = state.kinds.labels
    lines = [
        f"Pillars, {state.n} players: round {state.round}, turn of seat {state.current}, "
        f"phase {PHASE_NAMES[state.phase]}, resource pile {len(state.deck)}",
    ]
    for seat in range(state.n):
        marker = ">" if seat == state.current and state.phase != OVER else " "
        pillars = ",".join(PILLAR_RANK_LABELS[r] for r in range(12) if state.pillars[seat][r]) or "-"
        hand = (
            _cards(state.hands[seat], labels)
            if viewer is None or viewer == seat
            else f"{state.hand_sizes[seat]} cards"
        )
        pile = state.piles[seat]
        top = labels[pile[-1]] if pile else "empty"
        skip = " (skip pending)" if state.pending_skip[seat] else ""
        lines.append(
            f"{marker}seat {seat}{skip}: empire {EMPIRE_NAMES[state.empire[seat]]}, pillars {pillars}"
            f" | hand [{hand}] | discard top {top} ({len(pile)} cards)"
        )
    if state.trade_trader >= 0:
        offers = ", ".join(
            f"seat {s}: {labels[k] if (state.trade_revealed or viewer in (None, s)) else '?'}"
            for s, k in enumerate(state.offers) if k >= 0
        )
        lines.append(
            f"trade by seat {state.trade_trader}, tabled {labels[state.trade_tabled]}; "
            f"offers {offers or 'none yet'}"
        )
    if state.battle_attacker >= 0:
        answer = ("pending", "yes", "no")[state.battle_answer]
        throws = "/".join(THROW_NAMES[t] if t >= 0 else "-" for t in state.last_throws)
        lines.append(
            f"battle: seat {state.battle_attacker} demands {labels[state.battle_kind]} from seat "
            f"{state.battle_defender}: {answer}; ties {state.battle_ties}; last throws {throws}"
        )
    if state.phase == OVER:
        lines.append(f"game over: {'seat %d wins' % state.winner if state.winner >= 0 else 'truncated'}")
    return "\n".join(lines)


def to_rgb(state: PillarsState) -> np.ndarray:
    """The text view drawn on a light background (H x W x 3, uint8)."""
    from PIL import Image, ImageDraw

    text = to_text(state)
    lines = text.splitlines()
    width = 12 + 7 * max(len(line) for line in lines)
    height = 12 + 16 * len(lines)
    image = Image.new("RGB", (width, height), (245, 240, 225))
    draw = ImageDraw.Draw(image)
    for row, line in enumerate(lines):
        draw.text((6, 6 + 16 * row), line, fill=(20, 20, 20))
    return np.asarray(image, dtype=np.uint8)
