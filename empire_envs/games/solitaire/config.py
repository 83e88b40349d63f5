"""Every variant knob of Empire Solitaire, validated; the only place where their defaults live."""

from __future__ import annotations

import math
from dataclasses import dataclass

MAX_CAPTURES = 17  # 18 cards in play, one must remain


@dataclass(frozen=True)
class SolitaireConfig:
    """Rule variants of Empire Solitaire (``docs/rules/solitaire.md`` explains each).

    Attributes:
        shaping: the reward paid for every capture (0, the default, pays none). At most 17
            captures happen in a game, and ``17 * shaping`` must stay below 0.5, half the win
            reward.
    """

    shaping: float = 0.0

    def __post_init__(self) -> None:
        value = self.shaping
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"shaping must be a number, got {value!r}")
        if not math.isfinite(value) or value < 0 or MAX_CAPTURES * value >= 0.5:
            raise ValueError(
                f"shaping must be >= 0 and below {0.5 / MAX_CAPTURES:.4f} so that a "
                f"game's shaping stays well below the win reward, got {value!r}"
            )
        object.__setattr__(self, "shaping", float(value))
