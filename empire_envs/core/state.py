"""Game states as declared fields: ``clone``, equality and pickling derived from one declaration.

A state class lists its fields once, each with how a copy takes it, and subclassing
``DeclaredState`` writes the methods every game needs from that list, so adding a field cannot
leave ``clone()`` behind::

    class NimState(DeclaredState):
        FIELDS = {"config": SHARED, "stones": VALUE, "history": LIST}
        __slots__ = tuple(FIELDS)

Copy kinds: ``VALUE`` (an immutable value: int, str, tuple), ``SHARED`` (an object the states
share and never change, such as the config), ``LIST`` (a list of immutable values, copied),
``LISTS`` (a list of such lists), ``CLONE`` (an object with its own ``clone()``),
``OPTIONAL_CLONE`` (such an object or None), ``CLONES`` (a list of such objects), ``DICT`` and
``SET`` (shallow copies).

``clone()`` is generated as straight-line code (one assignment per field, as ``dataclasses``
generates its methods), so it costs no more than a hand-written one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

if TYPE_CHECKING:  # typing.Self is Python 3.11+; the package runs on 3.10
    from typing_extensions import Self

VALUE = "value"
SHARED = "shared"
LIST = "list"
LISTS = "lists"
CLONE = "clone"
OPTIONAL_CLONE = "optional clone"
CLONES = "clones"
DICT = "dict"
SET = "set"

_COPY_EXPRESSION = {
    VALUE: "self.{name}",
    SHARED: "self.{name}",
    LIST: "self.{name}[:]",
    LISTS: "[row[:] for row in self.{name}]",
    CLONE: "self.{name}.clone()",
    OPTIONAL_CLONE: "None if self.{name} is None else self.{name}.clone()",
    CLONES: "[item.clone() for item in self.{name}]",
    DICT: "dict(self.{name})",
    SET: "set(self.{name})",
}


class DeclaredState:
    """Base of the game states: a subclass declares ``FIELDS`` (field name -> copy kind, in order)
    and ``__slots__ = tuple(FIELDS)``, and gets ``clone``, ``__eq__`` (field by field),
    ``__getstate__`` / ``__setstate__`` (pickling) and no hash (states change)."""

    __slots__ = ()
    FIELDS: ClassVar[Mapping[str, str]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "FIELDS" in cls.__dict__:
            _derive_methods(cls)

    def clone(self) -> Self:
        """An exact, independent copy (each field copied as ``FIELDS`` declares)."""
        raise NotImplementedError(f"{type(self).__name__} declares no FIELDS")


def _derive_methods(cls: type) -> None:
    fields: Mapping[str, str] = cls.FIELDS  # type: ignore[attr-defined]
    unknown = {name: kind for name, kind in fields.items() if kind not in _COPY_EXPRESSION}
    if unknown:
        raise ValueError(f"{cls.__name__}: unknown copy kinds {unknown}; use one of {sorted(_COPY_EXPRESSION)}")
    slots = getattr(cls, "__slots__", None)
    if slots is not None and tuple(slots) != tuple(fields):
        raise ValueError(f"{cls.__name__}: __slots__ must be tuple(FIELDS) so that every field is declared once")
    lines = ["def clone(self):", "    other = _new(_cls)"]
    lines += [f"    other.{name} = {_COPY_EXPRESSION[kind].format(name=name)}" for name, kind in fields.items()]
    lines.append("    return other")
    namespace: dict[str, Any] = {"_new": object.__new__, "_cls": cls}
    exec("\n".join(lines), namespace)  # noqa: S102 (code built from the class's own field names)
    clone = namespace["clone"]
    clone.__qualname__ = f"{cls.__qualname__}.clone"
    clone.__doc__ = f"An exact, independent copy (fields copied as declared in ``{cls.__name__}.FIELDS``)."
    names = tuple(fields)

    def __eq__(self: Any, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(getattr(self, name) == getattr(other, name) for name in names)

    def __getstate__(self: Any) -> dict[str, Any]:
        return {name: getattr(self, name) for name in names}

    def __setstate__(self: Any, data: dict[str, Any]) -> None:
        for name in names:
            setattr(self, name, data[name])

    cls.clone = clone  # type: ignore[attr-defined]
    cls.__eq__ = __eq__  # type: ignore[method-assign,assignment]
    cls.__hash__ = None  # type: ignore[assignment]
    cls.__getstate__ = __getstate__  # type: ignore[attr-defined]
    cls.__setstate__ = __setstate__  # type: ignore[attr-defined]
