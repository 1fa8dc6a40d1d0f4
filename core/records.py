"""`record`: `dataclasses.dataclass` at a lower cost to define.

Why: `dataclass` writes each method it adds as Python source and compiles it (`exec`) when the
class is defined, every time a process imports the module: ~6 compiles for a frozen class, 1-3 ms
each class, and a whole `sessionscope read ID` defined ~25 such classes (a third of its time
above Python's own start). `record` asks `dataclass` for the fields, slots and the rest, and
none of the methods it would compile: it gives the class `__repr__`, `__eq__` and `__hash__` made
here, without compiling anything, that behave as the generated ones do: the same text, the same
equality (the compared fields as a tuple, `NotImplemented` for another class), the same hash
(frozen and compared: the hashed fields' tuple; compared and not frozen: unhashable), a method
written in the class body kept. It also gives a class without a docstring one, as `dataclass`
would, without `inspect.signature` (a millisecond a class).

The methods `dataclass` would still compile (`__init__` for each class, `__setattr__` and
`__delattr__` for each frozen one: 44 compiles in a warm `sessionscope search`, ~10% of its
instructions, for 20 classes of which it makes instances of 10): a frozen class's `__setattr__`
and `__delattr__` are closures made here, and `__init__` is bound here for a class's first calls
(`_first_init`), then written (the source `dataclass` writes) and compiled: a class made a few
times in a process compiles nothing.
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
    taken; no ClassVar or InitVar fields)."""
    if {"repr", "eq", "order", "unsafe_hash"} & options.keys():
        raise TypeError("record: repr, eq, order and unsafe_hash are not options (use dataclass)")
    init = options.pop("init", True)

    def wrap(c: T) -> T:
        own = c.__dict__
        keep_repr, keep_eq = "__repr__" in own, "__eq__" in own
        class_hash = own.get("__hash__", dataclasses.MISSING)
        explicit_hash = not (class_hash is dataclasses.MISSING or (class_hash is None and keep_eq))
        if frozen:
            for name in ("__setattr__", "__delattr__"):
                if name in own:  # (dataclass's own refusal)
                    raise TypeError(f"Cannot overwrite attribute {name} in class {c.__name__}")
        # (under a frozen plain dataclass, dataclass must be told: it refuses otherwise)
        dataclass_frozen = _same_frozen_as_bases(c, frozen)
        if not own.get("__doc__"):
            c.__doc__ = c.__name__  # (set before the slots copy, which copies it)
        made = dataclasses.dataclass(c, init=False, repr=False, eq=False, frozen=dataclass_frozen, slots=slots,
                                     **options)
        made.__record_frozen__ = frozen  # type: ignore[attr-defined]
        fields = dataclasses.fields(made)
        if len(fields) != len(made.__dataclass_fields__):
            raise TypeError(f"record: {c.__name__} has a ClassVar or InitVar field (use dataclass)")
        if not keep_repr:
            made.__repr__ = _repr([f.name for f in fields if f.repr])  # type: ignore[method-assign]
        if not keep_eq:
            made.__eq__ = _eq(_getter([f.name for f in fields if f.compare]))  # type: ignore[method-assign]
        if not explicit_hash:  # (dataclass's rule for eq=True without unsafe_hash)
            hashed = [f.name for f in fields if (f.compare if f.hash is None else f.hash)]
            made.__hash__ = _hash(_getter(hashed)) if frozen else None  # type: ignore[method-assign]
        if frozen and not dataclass_frozen:
            _make_frozen(made, tuple(f.name for f in fields), slots)
        if init and "__init__" not in own:
            made.__init__ = _first_init(made, frozen, slots)  # type: ignore[misc]
            made.__signature__ = _SIGNATURE  # type: ignore[attr-defined]
        return made

    return wrap if cls is None else wrap(cls)


def _same_frozen_as_bases(c: type, frozen: bool) -> bool:
    """dataclass's rule: a frozen class does not inherit from a dataclass that is not, nor the
    other way round (a record's own flag read for a record, whose dataclass params say not
    frozen). True when a base is a frozen plain dataclass."""
    plain_frozen = False
    for base in c.__mro__[-1:0:-1]:
        params = base.__dict__.get("__dataclass_params__")
        if params is None or "__dataclass_fields__" not in base.__dict__:
            continue
        base_frozen = base.__dict__.get("__record_frozen__", params.frozen)
        plain_frozen |= "__record_frozen__" not in base.__dict__ and params.frozen
        if base_frozen and not frozen:
            raise TypeError("cannot inherit non-frozen dataclass from a frozen one")
        if frozen and not base_frozen:
            raise TypeError("cannot inherit frozen dataclass from a non-frozen one")
    return plain_frozen


def _make_frozen(cls: type, names: tuple[str, ...], slots: bool) -> None:
    """A frozen class's `__setattr__` and `__delattr__` as dataclass writes them (and, with
    slots, the state a copy or pickle restores past them), as closures."""
    error = dataclasses.FrozenInstanceError

    def __setattr__(self: Any, name: str, value: Any) -> None:
        if type(self) is cls or name in names:
            raise error(f"cannot assign to field {name!r}")
        super(cls, self).__setattr__(name, value)

    def __delattr__(self: Any, name: str) -> None:
        if type(self) is cls or name in names:
            raise error(f"cannot delete field {name!r}")
        super(cls, self).__delattr__(name)

    for fn in (__setattr__, __delattr__):
        fn.__qualname__ = f"{cls.__qualname__}.{fn.__name__}"
        setattr(cls, fn.__name__, fn)
    if slots:
        own = cls.__dict__
        if "__getstate__" not in own:
            cls.__getstate__ = lambda self: [getattr(self, n) for n in names]  # type: ignore[attr-defined]
        if "__setstate__" not in own:
            def __setstate__(self: Any, state: list[Any]) -> None:
                for name, value in zip(names, state):
                    object.__setattr__(self, name, value)

            cls.__setstate__ = __setstate__  # type: ignore[attr-defined]


#: calls a record's first `__init__` answers itself (`_bind`) before the real one is compiled
FIRST_CALLS = 32


def _first_init(cls: type, frozen: bool, slots: bool) -> Callable[..., None]:
    """The `__init__` a class has until it is compiled: its first FIRST_CALLS calls with the
    arguments a compiled one takes are answered here (`_bind`: the same fields set in the same
    order, defaults and factories, `__post_init__`); then, or at once for any other call (its
    TypeError is the compiled one's), the real `__init__` is compiled (`_init_of`), put in its
    place and run. A class made a few times in a process (a command) compiles nothing."""
    plan: Any = None
    calls = 0

    def __init__(*args: Any, **kwargs: Any) -> None:  # (the instance is args[0]: a field may be named self)
        nonlocal plan, calls
        if calls < FIRST_CALLS:
            calls += 1
            if plan is None:
                plan = _plan(cls, slots)
            if _bind(args[0], plan, frozen, args[1:], kwargs):
                return
        _real_init(cls, frozen, slots)(*args, **kwargs)

    __init__.__qualname__ = f"{cls.__qualname__}.__init__"
    __init__._record = (frozen, slots)  # type: ignore[attr-defined]
    return __init__


_GIVEN, _GIVEN_OR_MADE, _MADE, _DEFAULT = range(4)  # how `_bind` sets a field (see `_init_of`)


def _plan(cls: type, slots: bool) -> tuple[Any, ...]:
    """What `_bind` needs of a record: its positional and keyword-only parameters, every
    parameter's default, how each field is set, in order, and whether `__post_init__` follows."""
    fields = dataclasses.fields(cls)
    positional = tuple(f.name for f in fields if f.init and not f.kw_only)
    defaults: dict[str, Any] = {}
    steps: list[tuple[str, int, Any]] = []
    for f in fields:
        factory = f.default_factory is not dataclasses.MISSING
        if f.init:
            defaults[f.name] = _HAS_DEFAULT_FACTORY if factory else f.default
            steps.append((f.name, _GIVEN_OR_MADE, f.default_factory) if factory else (f.name, _GIVEN, None))
        elif factory:
            steps.append((f.name, _MADE, f.default_factory))
        elif slots and f.default is not dataclasses.MISSING:
            steps.append((f.name, _DEFAULT, f.default))
    return positional, defaults, tuple(steps), hasattr(cls, "__post_init__")


def _bind(self: Any, plan: tuple[Any, ...], frozen: bool, args: tuple[Any, ...], kwargs: dict[str, Any]) -> bool:
    """The compiled `__init__`'s work, when `args` and `kwargs` are what it takes; False, with
    nothing done, when they are not."""
    positional, defaults, steps, post_init = plan
    if len(args) > len(positional):
        return False
    given = dict(zip(positional, args))
    for name, value in kwargs.items():
        if name in given or name not in defaults:
            return False
        given[name] = value
    if len(given) < len(defaults):
        for name, default in defaults.items():
            if name not in given:
                if default is dataclasses.MISSING:
                    return False
                given[name] = default
    put = object.__setattr__ if frozen else setattr
    for name, how, extra in steps:
        if how == _GIVEN:
            put(self, name, given[name])
        elif how == _GIVEN_OR_MADE:
            value = given[name]
            put(self, name, extra() if value is _HAS_DEFAULT_FACTORY else value)
        elif how == _MADE:
            put(self, name, extra())
        else:
            put(self, name, extra)
    if post_init:
        self.__post_init__()
    return True


def _real_init(cls: type, frozen: bool, slots: bool) -> Callable[..., None]:
    init = cls.__dict__["__init__"]
    if getattr(init, "_record", None) is not None:  # (not yet compiled: by this thread or another)
        init = _init_of(cls, frozen, slots)
        type.__setattr__(cls, "__init__", init)
    return init  # type: ignore[no-any-return]


def _init_of(cls: type, frozen: bool, slots: bool) -> Callable[..., None]:
    """The `__init__` dataclass writes for `cls` (the same source, its defaults and factories,
    keyword-only fields, `__post_init__`), compiled."""
    fields = dataclasses.fields(cls)
    self_name = "__dataclass_self__" if any(f.name == "self" for f in fields) else "self"
    names: dict[str, Any] = {"__dataclass_builtins_object__": object,
                             "_HAS_DEFAULT_FACTORY": _HAS_DEFAULT_FACTORY}
    params: list[str] = []
    keywords: list[str] = []
    body: list[str] = []
    for f in fields:
        names[f"_type_{f.name}"] = f.type
        dflt = f"_dflt_{f.name}"
        if f.default_factory is not dataclasses.MISSING:
            names[dflt] = f.default_factory
            value = f"{dflt}() if {f.name} is _HAS_DEFAULT_FACTORY else {f.name}" if f.init else f"{dflt}()"
        elif f.init:
            if f.default is not dataclasses.MISSING:
                names[dflt] = f.default
            value = f.name
        elif slots and f.default is not dataclasses.MISSING:
            names[dflt] = f.default
            value = dflt
        else:
            value = ""
        if value:
            body.append(f"__dataclass_builtins_object__.__setattr__({self_name},{f.name!r},{value})" if frozen
                        else f"{self_name}.{f.name}={value}")
        if f.init:
            default = ("" if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
                       else f"=_dflt_{f.name}" if f.default is not dataclasses.MISSING else "=_HAS_DEFAULT_FACTORY")
            (keywords if f.kw_only else params).append(f"{f.name}:_type_{f.name}{default}")
    if hasattr(cls, "__post_init__"):
        body.append(f"{self_name}.__post_init__()")
    args = ",".join([self_name, *params, *(["*", *keywords] if keywords else [])])
    lines = "\n".join(f"  {b}" for b in body or ["pass"])
    source = (f"def __create_fn__({', '.join(names)}):\n def __init__({args})->None:\n{lines}\n"
              " return __init__")
    import sys

    space: dict[str, Any] = {}
    # (this module's `from __future__ import annotations` not inherited: the types, not their names)
    code = compile(source, "<string>", "exec", dont_inherit=True)
    exec(code, getattr(sys.modules.get(cls.__module__), "__dict__", {}), space)  # noqa: S102
    fn = space["__create_fn__"](**names)
    fn.__qualname__ = f"{cls.__qualname__}.__init__"
    return fn  # type: ignore[no-any-return]


class _Signature:
    """A record's `__signature__`: asked for (`inspect.signature`), it compiles the `__init__` of
    each record the class is made of, then answers None, so that inspect reads those."""

    def __get__(self, obj: Any, owner: type) -> None:
        for c in owner.__mro__:
            init = c.__dict__.get("__init__")
            if getattr(init, "_record", None) is not None:
                _real_init(c, *init._record)
        return None


_SIGNATURE = _Signature()
#: dataclass's marker of a default made by a factory (shown as `<factory>` in a signature)
_HAS_DEFAULT_FACTORY = getattr(dataclasses, "_HAS_DEFAULT_FACTORY", object())


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
