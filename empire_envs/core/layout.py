"""Named fields laid end to end in one flat observation vector."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np


class ObsLayout:
    """An ordered list of ``(name, size)`` fields and their offsets in a flat vector.

    >>> layout = ObsLayout([("phase", 3), ("cards", 52)])
    >>> layout.size, layout.start("cards"), layout["cards"]
    (55, 3, slice(3, 55, None))
    """

    def __init__(self, fields: Sequence[tuple[str, int]]) -> None:
        self.fields = tuple(fields)
        self._slices: dict[str, slice] = {}
        offset = 0
        for name, size in self.fields:
            if name in self._slices:
                raise ValueError(f"field {name!r} appears twice")
            if size < 1:
                raise ValueError(f"field {name!r} must have a positive size, got {size}")
            self._slices[name] = slice(offset, offset + size)
            offset += size
        self.size = offset

    def __getitem__(self, name: str) -> slice:
        return self._slices[name]

    def start(self, name: str) -> int:
        return self._slices[name].start

    def rows(self) -> list[tuple[str, int, int]]:
        """``(name, first index, last index)`` for each field: the docstring table's rows."""
        return [(name, s.start, s.stop - 1) for name, s in self._slices.items()]


def quotient_table(denominator: int, count: int | None = None) -> np.ndarray:
    """``n / denominator`` for ``n`` in ``0 .. count - 1`` (``denominator + 1`` entries by default),
    divided as Python divides (float64) and stored as float32, as the Python observations store
    such a fraction. A JAX twin indexes this table rather than dividing: XLA may multiply by a
    reciprocal instead, one unit in the last place away."""
    count = denominator + 1 if count is None else count
    return np.array([n / denominator for n in range(count)], dtype=np.float32)
