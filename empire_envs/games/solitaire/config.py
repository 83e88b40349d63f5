"""Every variant knob of Empire Solitaire, validated; the only place where their defaults live."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ...core.compat import accepts_old_names, deprecated

MAX_CAPTURES = 17  # 18 cards in play, one must remain


#: what ``shaped_reward=True`` paid per capture before ``shaping`` (the registered Shaped id's value)
OLD_CAPTURE_REWARD = 0.02


def _old_shaping_pair(kwargs: dict[str, Any]) -> dict[str, Any]:
    """``shaped_reward`` and ``capture_reward`` (before ``shaping``): shaping is the capture reward
    when ``shaped_reward`` was True, else 0."""
    if "shaped_reward" not in kwargs and "capture_reward" not in kwargs:
        return kwargs
    kwargs = dict(kwargs)
    switch = kwargs.pop("shaped_reward", False)
    payment = kwargs.pop("capture_reward", OLD_CAPTURE_REWARD)
    deprecated(
        "SolitaireConfig options 'shaped_reward' and 'capture_reward'", "shaping=<reward per capture>", stacklevel=4
    )
    if not isinstance(switch, bool):
        raise TypeError(f"shaped_reward must be a bool, got {switch!r}")
    if "shaping" in kwargs:
        raise TypeError("SolitaireConfig: give 'shaping' only; 'shaped_reward' and 'capture_reward' are its old form")
    kwargs["shaping"] = payment if switch else 0.0
    return kwargs


@accepts_old_names({}, convert=_old_shaping_pair)
@dataclass(frozen=True)
class SolitaireConfig:
    """Rule variants of Empire Solitaire (``docs/rules/solitaire.md`` explains each).

    Attributes:
        shaping: the reward paid for every capture (0, the default, pays none). At most 17
            captures happen in a game, and ``17 * shaping`` must stay below 0.5, half the win
            reward. Formerly ``shaped_reward=True`` with ``capture_reward``.
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

    @property
    def shaped_reward(self) -> bool:
        """Deprecated: ``shaping > 0``."""
        deprecated("SolitaireConfig.shaped_reward", "SolitaireConfig.shaping")
        return self.shaping > 0

    @property
    def capture_reward(self) -> float:
        """Deprecated: ``shaping``."""
        deprecated("SolitaireConfig.capture_reward", "SolitaireConfig.shaping")
        return self.shaping
