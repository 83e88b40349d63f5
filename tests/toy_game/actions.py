"""The Toy Nim action table: every index declared here, used by the rules and the docstring.

=====================  ============  ==================================================
index                  action        meaning
=====================  ============  ==================================================
0 .. max_take-1        TAKE(n)       take ``n = index + 1`` cards from the top of the pile
max_take .. +51        DISCARD(c)    discard card ``c = index - max_take`` face up
=====================  ============  ==================================================

The table's size depends on the config (``max_take + 52``), so the sizes are functions of it.
"""

from __future__ import annotations

from enum import IntEnum

from empire_envs.core.cards import NUM_CARDS, card_str

from .config import ToyNimConfig


class Kind(IntEnum):
    TAKE = 0
    DISCARD = 1


def num_actions(config: ToyNimConfig) -> int:
    return config.max_take + NUM_CARDS


def take(count: int) -> int:
    """The index of "take ``count`` cards" (``count`` from 1)."""
    return count - 1


def discard(card: int, config: ToyNimConfig) -> int:
    """The index of "discard ``card``"."""
    return config.max_take + card


def decode(index: int, config: ToyNimConfig) -> tuple[Kind, int]:
    """``(Kind.TAKE, count)`` or ``(Kind.DISCARD, card)``; ``ValueError`` outside the table."""
    if not 0 <= index < num_actions(config):
        raise ValueError(f"action index must be in 0..{num_actions(config) - 1}, got {index!r}")
    if index < config.max_take:
        return Kind.TAKE, index + 1
    return Kind.DISCARD, index - config.max_take


def action_name(state_or_config, index: int) -> str:
    """``"TAKE 2"`` or ``"DISCARD QS"``."""
    config = getattr(state_or_config, "config", state_or_config)
    kind, value = decode(index, config)
    return f"TAKE {value}" if kind is Kind.TAKE else f"DISCARD {card_str(value)}"
