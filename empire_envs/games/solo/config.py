"""Every variant knob of Empire solo, validated; the only place where their defaults live."""

from __future__ import annotations

import math
from dataclasses import dataclass

#: Shaping payment per formation, in the order super soldier, battalion, native, builder, base.
DEFAULT_SHAPING_VALUES = (0.01, 0.02, 0.04, 0.06, 0.10)


@dataclass(frozen=True)
class SoloConfig:
    """Rule variants of Empire solo (``docs/rules/solo.md`` explains each).

    Attributes:
        merge_in_battle: allow ORGANIZE merges while a battle waits for a unit (ruling flag,
            default False: merges happen only before the turn's draw).
        length_limit: the episode is truncated when a card must be drawn and this many cards
            have already been drawn (turn draws and enemies revealed in battle both count).
        shaping: the scale of the small rewards for forming units: 0 (default) pays none, 1 pays
            ``shaping_values`` as listed.
        shaping_values: payment for forming a super soldier, battalion, native, base builder and
            base, before ``shaping`` scales it.
        shaping_cap: an episode's shaping payments stop once their total reaches this, so that
            shaping can never rival the win reward of +1.
    """

    merge_in_battle: bool = False
    length_limit: int = 1000
    shaping: float = 0.0
    shaping_values: tuple[float, float, float, float, float] = DEFAULT_SHAPING_VALUES
    shaping_cap: float = 0.5

    def __post_init__(self) -> None:
        if not isinstance(self.merge_in_battle, bool):
            raise TypeError(f"merge_in_battle must be a bool, got {self.merge_in_battle!r}")
        if isinstance(self.length_limit, bool) or not isinstance(self.length_limit, int):
            raise TypeError(f"length_limit must be an int, got {self.length_limit!r}")
        if self.length_limit < 1:
            raise ValueError(f"length_limit must be at least 1, got {self.length_limit}")
        if isinstance(self.shaping, bool) or not isinstance(self.shaping, (int, float)):
            raise TypeError(f"shaping must be a number, got {self.shaping!r}")
        if not math.isfinite(self.shaping) or self.shaping < 0:
            raise ValueError(f"shaping must be finite and >= 0, got {self.shaping!r}")
        object.__setattr__(self, "shaping", float(self.shaping))
        values = tuple(self.shaping_values)
        if len(values) != 5:
            raise ValueError(
                f"shaping_values needs 5 numbers (super, battalion, native, builder, base), got {len(values)}"
            )
        for value in values:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise TypeError(f"shaping_values must be numbers, got {value!r}")
            if not math.isfinite(value) or value < 0:
                raise ValueError(f"shaping_values must be finite and >= 0, got {value!r}")
        object.__setattr__(self, "shaping_values", tuple(float(v) for v in values))
        if isinstance(self.shaping_cap, bool) or not isinstance(self.shaping_cap, (int, float)):
            raise TypeError(f"shaping_cap must be a number, got {self.shaping_cap!r}")
        if not 0 <= self.shaping_cap < 1:
            raise ValueError(
                f"shaping_cap must be in [0, 1) so shaping stays below the win reward, got {self.shaping_cap!r}"
            )
        object.__setattr__(self, "shaping_cap", float(self.shaping_cap))
