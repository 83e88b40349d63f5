"""An enumerated action table: a game's actions as indices ``0..n-1`` and back.

``ActionTable`` maps indices to structured actions; ``BlockLayout`` declares a table as blocks
(one per kind of action, each with its arguments' ranges) and derives everything else from that
one declaration: where each block starts, the index arithmetic, the docstring table.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from enum import IntEnum
from itertools import product
from math import prod
from typing import Any, NamedTuple


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


class Argument(NamedTuple):
    """One argument of a block of actions: its name, how many values it takes, and the first of
    them (``first .. first + size - 1``; seat offsets start at 1)."""

    name: str
    size: int
    first: int = 0


class Block(NamedTuple):
    """One block of an action table: a kind and its arguments, laid out row-major (the first
    argument varies slowest: ``index = start + (a - first_a) * size_b + (b - first_b)``);
    ``meaning`` for the docstring table."""

    kind: IntEnum
    arguments: tuple[Argument, ...] = ()
    meaning: str = ""

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(argument.size for argument in self.arguments)

    def label(self) -> str:
        names = ", ".join(argument.name for argument in self.arguments)
        return f"{self.kind.name}({names})" if names else self.kind.name


class BlockLayout:
    """An action table declared as blocks, one per kind, in index order: the starts, the index
    arithmetic, the ``ActionTable`` and the docstring table all follow from the one declaration.

    ``action`` builds the structured action of a kind and its argument values (a NamedTuple whose
    first field is the kind; arguments a block does not use are left to its defaults).
    """

    def __init__(
        self, game_name: str, kind: type[IntEnum], action: Callable[..., Any], blocks: Sequence[Block]
    ) -> None:
        self.blocks = tuple(blocks)
        kinds = [block.kind for block in self.blocks]
        if len(set(kinds)) != len(kinds):
            raise ValueError(f"{game_name}: a kind has two blocks")
        self.starts: dict[Any, int] = {}
        self.shapes: dict[Any, tuple[int, ...]] = {}
        self._firsts: dict[Any, tuple[int, ...]] = {}
        actions: list[Any] = []
        for block in self.blocks:
            self.starts[block.kind] = len(actions)
            self.shapes[block.kind] = block.shape
            firsts = tuple(argument.first for argument in block.arguments)
            self._firsts[block.kind] = firsts
            ranges = [range(first, first + count) for first, count in zip(firsts, block.shape, strict=True)]
            actions += [action(block.kind, *values) for values in product(*ranges)]
        self.table = ActionTable(game_name, kind, action, actions)
        self.size = self.table.size
        # (kind, *values) -> index: rules list actions by index in their hot loops, and a dict
        # lookup is several times faster than the arithmetic below
        self._indices: dict[tuple[Any, ...], int] = {}
        self._ranges = {
            block.kind: range(self.starts[block.kind], self.starts[block.kind] + prod(block.shape))
            for block in self.blocks
        }
        for block in self.blocks:
            start, firsts = self.starts[block.kind], self._firsts[block.kind]
            ranges = [range(first, first + size) for first, size in zip(firsts, block.shape, strict=True)]
            for offset, values in enumerate(product(*ranges)):
                self._indices[(block.kind,) + values] = start + offset

    def index(self, kind: Any, *values: int) -> int:
        """The index of ``kind(*values)``; ``ValueError`` for values out of the block's ranges."""
        try:
            return self._indices[(kind,) + values]
        except (KeyError, TypeError):  # every valid action is in the dict: say what is wrong
            shape, firsts = self.shapes[kind], self._firsts[kind]
            ranges = [f"{first}..{first + size - 1}" for first, size in zip(firsts, shape, strict=True)]
            raise ValueError(f"{kind.name} takes arguments in {ranges}, got {values}") from None

    def block_range(self, kind: Any) -> range:
        """Every index of ``kind``'s block."""
        return self._ranges[kind]

    def decode(self, index: int) -> Any:
        return self.table.decode(index)

    def encode(self, action: Sequence[Any]) -> int:
        return self.table.encode(action)

    def doc_table(self) -> str:
        """The reST table of the blocks (index range, action, meaning), as the docstrings show it;
        two-argument blocks end with the index formula, e.g. ``(177 + 4f + d)``."""
        width = max(16, *(len(block.label()) for block in self.blocks))
        rule = f"{'=' * 10}  {'=' * width}  {'=' * 63}"
        rows = [rule, f"{'index':<10}  {'action':<{width}}  meaning", rule]
        for block in self.blocks:
            span_range = self.block_range(block.kind)
            start, stop = span_range.start, span_range.stop - 1
            span = f"{start}" if start == stop else f"{start}-{stop}"
            meaning = block.meaning
            if len(block.arguments) == 2 and not any(argument.first for argument in block.arguments):
                first, second = block.arguments
                meaning += f" ({start} + {second.size}{first.name} + {second.name})"
            rows.append(f"{span:<10}  {block.label():<{width}}  {meaning}")
        rows.append(rule)
        return "\n".join(rows)
