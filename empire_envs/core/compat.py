"""Old names that still work for one release, each with a ``DeprecationWarning`` naming the new one."""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np


def deprecated(old: str, new: str, *, stacklevel: int = 3) -> None:
    """Warn that ``old`` is deprecated in favour of ``new``."""
    warnings.warn(
        f"{old} is deprecated and will be removed in the next release; use {new}", DeprecationWarning, stacklevel
    )


def legacy_determinize_arguments(seat: Any, rng: Any) -> tuple[int, Any]:
    """``(seat, rng)`` of a one-seat game's ``determinize(state, seat, rng)``; the old call
    ``determinize(state, rng)`` passed the generator (or a seed) where the seat now goes."""
    if isinstance(seat, np.random.Generator) or (seat is not None and rng is None and seat != 0):
        deprecated("determinize(state, rng)", "determinize(state, seat, rng)", stacklevel=4)
        return 0, seat
    if seat not in (0, None):
        raise ValueError(f"a one-player game has seat 0 only, got seat {seat!r}")
    return 0, rng


def renamed_options(owner: str, values: dict[str, Any], renames: dict[str, str]) -> dict[str, Any]:
    """``values`` with each old key of ``renames`` (old -> new) moved to its new name, warning once
    per old key; giving both the old and the new name is an error."""
    if not any(old in values for old in renames):
        return values
    moved = dict(values)
    for old, new in renames.items():
        if old in moved:
            if new in moved:
                raise TypeError(f"{owner}: give {new!r} only; {old!r} is its deprecated old name")
            deprecated(f"{owner} option {old!r}", repr(new), stacklevel=4)
            moved[new] = moved.pop(old)
    return moved


def accepts_old_names(renames: dict[str, str], convert: Callable[[dict[str, Any]], dict[str, Any]] | None = None):
    """A class decorator for a config dataclass whose fields were renamed: the constructor takes
    each old keyword of ``renames`` (old -> new) with a ``DeprecationWarning``, and reading the old
    attribute returns the new field's value with one. ``convert`` turns old keywords whose meaning
    changed (not just their name) into new ones before the plain renames; it must remove the old
    keys it handles and warn with ``deprecated``. The class's ``RENAMED`` lists the old names."""

    def decorate(cls: type) -> type:
        init = cls.__dict__["__init__"]  # the dataclass-generated one

        @functools.wraps(init)
        def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
            if convert is not None:
                kwargs = convert(kwargs)
            init(self, *args, **renamed_options(cls.__name__, kwargs, renames))

        cls.__init__ = __init__  # type: ignore[misc]
        for old, new in renames.items():
            setattr(cls, old, _old_attribute(cls.__name__, old, new))
        cls.RENAMED = dict(renames)  # type: ignore[attr-defined]
        return cls

    return decorate


def _old_attribute(owner: str, old: str, new: str) -> property:
    def read(self: Any) -> Any:
        deprecated(f"{owner}.{old}", f"{owner}.{new}")
        return getattr(self, new)

    return property(read, doc=f"Deprecated: ``{new}``.")
