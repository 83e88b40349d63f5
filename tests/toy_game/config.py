"""Every variant knob of Toy Nim, validated; the only place their defaults live."""

from __future__ import annotations

from dataclasses import dataclass

from empire_envs.core.cards import NUM_CARDS


@dataclass(frozen=True)
class ToyNimConfig:
    """Rule variants of Toy Nim.

    Attributes:
        pile_size: cards dealt face down to the pile (1 to 52); the rest of the pack stays out
            of the game, unseen.
        max_take: the most cards a seat may take from the pile in one turn.
        hand_limit: the cards a hand may keep at the end of a turn; a seat above it discards,
            face up, one card at a time, down to the limit.
        last_card_bonus: points for the seat that takes the pile's last card.
    """

    pile_size: int = 12
    max_take: int = 3
    hand_limit: int = 4
    last_card_bonus: int = 10

    def __post_init__(self) -> None:
        for name, low, high in (
            ("pile_size", 1, NUM_CARDS),
            ("max_take", 1, NUM_CARDS),
            ("hand_limit", 1, NUM_CARDS),
            ("last_card_bonus", 0, 1000),
        ):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise TypeError(f"{name} must be an int, got {value!r}")
            if not low <= value <= high:
                raise ValueError(f"{name} must be in {low}..{high}, got {value!r}")
