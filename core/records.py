"""`record`: `dataclasses.dataclass` at a lower cost to define.

Why: `dataclass` writes each method it adds as Python source and compiles it (`exec`) when the
class is defined, every time a process imports the module: ~6 compiles for a frozen class, 1-3 ms
each class, and a whole `sessionscope read ID` defined ~25 such classes (a third of its time
above Python's own start). `record` asks `dataclass` for `__init__` (and a frozen class's
`__setattr__`/`__delattr__`) alone and gives the class `__repr__`, `__eq__` and `__hash__` made
here, without compiling anything, that behave as the generated ones do: the same text, the same
equality (the compared fields as a tuple, `NotImplemented` for another class), the same hash
(frozen and compared: the hashed fields' tuple; compared and not frozen: unhashable), a method
written in the class body kept. It also gives a class without a docstring one, as `dataclass`
would, without `inspect.signature` (a millisecond a class).
"""
from __future__ import annotations

import dataclasses
from operator import attrgetter
from threading import get_ident
from typing import Any, Callable, TypeVar

T = TypeVar("T", bound=type)


def record(cls: T | None = None, /, *, frozen: bool = False, slots: bool = False,
           **options: Any) -> Any:
    """`@record`, `@record(frozen=True, slots=True, ...)`: as `@dataclass` with the same options
    (repr, eq, order and unsafe_hash left at their defaults: `order` and `unsafe_hash` are not
    taken)."""
    if {"repr", "eq", "order", "unsafe_hash"} & options.keys():
        raise TypeError("record: repr, eq, order and unsafe_hash are not options (use dataclass)")

    def wrap(c: T) -> T:
        own = c.__dict__
        keep_repr, keep_eq = "__repr__" in own, "__eq__" in own
        class_hash = own.get("__hash__", dataclasses.MISSING)
        explicit_hash = not (class_hash is dataclasses.MISSING or (class_hash is None and keep_eq))
        if not own.get("__doc__"):
            c.__doc__ = c.__name__  # (set before the slots copy, which copies it)
        made = dataclasses.dataclass(c, repr=False, eq=False, frozen=frozen, slots=slots, **options)
        fields = [f for f in dataclasses.fields(made)]
        if not keep_repr:
            made.__repr__ = _repr([f.name for f in fields if f.repr])  # type: ignore[method-assign]
        if not keep_eq:
            made.__eq__ = _eq(_getter([f.name for f in fields if f.compare]))  # type: ignore[method-assign]
        if not explicit_hash:  # (dataclass's rule for eq=True without unsafe_hash)
            hashed = [f.name for f in fields if (f.compare if f.hash is None else f.hash)]
            made.__hash__ = _hash(_getter(hashed)) if frozen else None  # type: ignore[method-assign]
        return made

    return wrap if cls is None else wrap(cls)


def _getter(names: list[str]) -> Callable[[Any], tuple[Any, ...]]:
    """The named attributes of an object as a tuple (one name too: a 1-tuple, as dataclass compares)."""
    if not names:
        return lambda obj: ()
    if len(names) == 1:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    return attrgetter(*names)


def _repr(names: list[str]) -> Callable[[Any], str]:
    running: set[tuple[int, int]] = set()

    def __repr__(self: Any) -> str:
        key = id(self), get_ident()
        if key in running:  # (a record holding itself: "...", as dataclass's repr says)
            return "..."
        running.add(key)
        try:
            return f"{self.__class__.__qualname__}({', '.join(f'{n}={getattr(self, n)!r}' for n in names)})"
        finally:
            running.discard(key)

    return __repr__


def _eq(get: Callable[[Any], tuple[Any, ...]]) -> Callable[[Any, Any], Any]:
    def __eq__(self: Any, other: Any) -> Any:
        if other.__class__ is self.__class__:
            return get(self) == get(other)
        return NotImplemented

    return __eq__


def _hash(get: Callable[[Any], tuple[Any, ...]]) -> Callable[[Any], int]:
    def __hash__(self: Any) -> int:
        return hash(get(self))

    return __hash__
