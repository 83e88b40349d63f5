"""An enumerated action table: a game's actions as indices ``0..n-1`` and back."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from enum import IntEnum
from typing import Any


class ActionTable:
    """Index <-> structured action for one game.

    ``actions`` are NamedTuples whose first field is a member of ``kind`` (an IntEnum); their
    position in the sequence is their index.
    """

    def __init__(self, game_name: str, kind: type[IntEnum], make: Callable[..., Any], actions: Sequence[Any]) -> None:
        self.game_name = game_name
        self.kind = kind
        self.make = make
        self.actions = tuple(actions)
        self.size = len(self.actions)
        self._index = {action: index for index, action in enumerate(self.actions)}
        if len(self._index) != self.size:
            raise ValueError(f"{game_name}: the action table lists an action twice")

    def encode(self, action: Sequence[Any]) -> int:
        """The index of a structured action (a plain tuple works too); ``ValueError`` if unknown."""
        try:
            return self._index[self.make(self.kind(action[0]), *action[1:])]
        except (KeyError, ValueError, TypeError, IndexError):
            raise ValueError(f"not an {self.game_name} action: {action!r}") from None

    def decode(self, index: int) -> Any:
        """The structured action of an index; ``ValueError`` outside ``0..size-1``."""
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < self.size:
            raise ValueError(f"action index must be in 0..{self.size - 1}, got {index!r}")
        return self.actions[index]
