"""Every variant knob of Empire Solitaire, validated; the only place where their defaults live."""

from __future__ import annotations

import math
from dataclasses import dataclass

MAX_CAPTURES = 17  # 18 cards in play, one must remain


@dataclass(frozen=True)
class SolitaireConfig:
    """Rule variants of Empire Solitaire (``docs/rules/solitaire.md`` explains each).

    Attributes:
        shaped_reward: add ``capture_reward`` for every capture (ruling flag, default False).
        capture_reward: the shaping paid per capture; at most 17 captures happen in a game, and
            ``17 * capture_reward`` must stay below 0.5, half the win reward.
    """

    shaped_reward: bool = False
    capture_reward: float = 0.02

    def __post_init__(self) -> None:
        if not isinstance(self.shaped_reward, bool):
            raise TypeError(f"shaped_reward must be a bool, got {self.shaped_reward!r}")
        value = self.capture_reward
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"capture_reward must be a number, got {value!r}")
        if not math.isfinite(value) or value < 0 or MAX_CAPTURES * value >= 0.5:
            raise ValueError(
                f"capture_reward must be >= 0 and below {0.5 / MAX_CAPTURES:.4f} so that a "
                f"game's shaping stays well below the win reward, got {value!r}"
            )
        object.__setattr__(self, "capture_reward", float(value))
