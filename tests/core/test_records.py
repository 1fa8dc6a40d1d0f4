"""`record` (core/records.py) behaves as `dataclass` does: the same repr, equality, hash,
immutability, copies and introspection, for each kind of class the package defines."""
from __future__ import annotations

import copy
import dataclasses
import math
import pickle
from pathlib import Path
from dataclasses import FrozenInstanceError, dataclass, field
from typing import Any, Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sessionscope.core.records import record


def _kinds(deco: Callable[..., Any]) -> dict[str, type]:
    """The same classes made by `deco` (dataclass or record); module-level names for pickling."""

    @deco
    class Plain:
        a: int
        b: Any = None
        c: list[int] = field(default_factory=list)

    @deco(frozen=True)
    class Frozen:
        a: int
        b: Any = None

    @deco(frozen=True, slots=True)
    class FrozenSlots:
        a: int
        b: Any = "x"
        hidden: Any = field(default=0, repr=False)
        ignored: Any = field(default=0, compare=False)
        unhashed: Any = field(default=0, hash=False)

    @deco(slots=True)
    class Slots:
        a: int
        b: Any = None

    @deco(frozen=True)
    class One:
        a: Any

    @deco(frozen=True)
    class Empty:
        pass

    @deco
    class Own:
        a: int

        def __repr__(self) -> str:
            return "own"

        def __eq__(self, other: object) -> bool:
            return True

        __hash__ = object.__hash__

    @deco(frozen=True)
    class Child(Frozen):
        d: int = 4

    @deco(kw_only=True)
    class Keywords:
        a: int = 1
        b: Any = None

    @deco(slots=True)
    class Later:  # fields not taken by __init__, set by it
        a: Any
        b: Any = None
        c: Any = field(init=False, default=3)
        d: list[Any] = field(init=False, default_factory=list)

        def __post_init__(self) -> None:
            self.d.append(self.c)

    @deco(frozen=True, slots=True)
    class Posted:
        a: Any
        b: Any = None
        both: Any = field(init=False, default=None)

        def __post_init__(self) -> None:
            object.__setattr__(self, "both", (self.a, self.b))

    @deco
    class Selfish:  # a field named self
        a: Any
        b: Any = None
        self: Any = 0

    @deco(frozen=True)
    class Mixed:  # keyword-only fields, one with a factory
        a: Any
        b: Any = field(default=None, kw_only=True)
        c: list[Any] = field(default_factory=list, kw_only=True)

    return {c.__name__: c for c in (Plain, Frozen, FrozenSlots, Slots, One, Empty, Own, Child, Keywords, Later,
                                    Posted, Selfish, Mixed)}


DATA, RECORD = _kinds(dataclass), _kinds(record)
for _name, _cls in RECORD.items():  # (picklable by name)
    _cls.__qualname__ = _name
    globals()[_name] = _cls


def _args(name: str, a: Any, b: Any) -> dict[str, Any]:
    return {"Empty": {}, "One": {"a": a}, "Own": {"a": a}}.get(name, {"a": a, "b": b})


def _outcome(fn: Callable[[], Any]) -> Any:
    try:
        return ("ok", fn())
    except Exception as exc:  # noqa: BLE001 - the same error is part of the same behaviour
        return ("raised", type(exc).__name__, str(exc))


values = st.one_of(st.integers(), st.floats(allow_nan=True), st.text(max_size=5), st.none(),
                   st.lists(st.integers(), max_size=3), st.tuples(st.integers()))


@pytest.mark.parametrize("name", sorted(DATA))
@given(a=values, b=values, a2=values, b2=values)
def test_a_record_behaves_as_the_dataclass(name: str, a: Any, b: Any, a2: Any, b2: Any) -> None:
    got = {}
    for kind, classes in (("dataclass", DATA), ("record", RECORD)):
        cls = classes[name]
        x, y, z, w = (cls(**_args(name, *ab)) for ab in ((a, b), (a2, b2), (a, b), (a, b)))
        got[kind] = [
            repr(x).replace(cls.__qualname__, name), x == y, x != y, x == z, x == x, x == 1, x != None,  # noqa: E711
            _outcome(lambda: cls.__hash__ is object.__hash__ or hash(x)), _outcome(lambda: hash(x) == hash(z)), _outcome(lambda: hash(x) == hash(y)),
            _outcome(lambda: setattr(w, "a", 5)), _outcome(lambda: delattr(w, "a")),
            _outcome(lambda: repr(dataclasses.replace(y)).replace(cls.__qualname__, name)),
            [f.name for f in dataclasses.fields(cls)], getattr(cls, "__match_args__", None),
            dataclasses.asdict(x), "__slots__" in cls.__dict__, cls.__hash__ is None,
            repr(copy.deepcopy(x)).replace(cls.__qualname__, name),
            # by position; wrong calls: the same TypeError (the qualname the class has when it is raised)
            *(str(_outcome(call)).replace("_kinds.<locals>.", "").replace(cls.__qualname__, name) for call in (
                lambda: repr(cls(*_args(name, a, b).values())), lambda: cls(a, a=a), lambda: cls(nope=1))),
        ]
    assert got["record"] == got["dataclass"]


@pytest.mark.parametrize("name", sorted(RECORD))
def test_a_record_pickles_and_has_a_docstring(name: str) -> None:
    cls = RECORD[name]
    x = cls(**_args(name, 1, (2,)))
    assert pickle.loads(pickle.dumps(x)) == x and cls.__doc__


def test_a_record_repr_of_itself_says_dots_and_nan_equals_itself_as_in_a_tuple() -> None:
    for classes in (DATA, RECORD):
        x = classes["Plain"](1)
        x.b = x
        assert repr(x).endswith("(a=1, b=..., c=[])")
        nan = classes["One"](math.nan)
        assert nan == nan and nan == classes["One"](nan.a) and hash(nan) == hash(classes["One"](nan.a))


def test_record_refuses_the_options_it_does_not_make() -> None:
    with pytest.raises(TypeError, match="not options"):
        record(eq=False)
    with pytest.raises(FrozenInstanceError):
        RECORD["Frozen"](1).a = 2


def test_records_do_not_import_inspect_and_dataclasses_still_reach_it() -> None:
    """The core (core/__init__.py) imports `dataclasses` with `inspect` put off until first used
    (`_InspectOnUse`): defining records imports no inspect (nor ast, dis, tokenize), and a plain
    dataclass without a docstring still gets the one `inspect.signature` writes."""
    import subprocess
    import sys

    code = """if True:
        import sys
        from sessionscope.core.records import record
        @record(frozen=True)
        class R:
            x: int
        print(sorted(m for m in ("inspect", "ast", "dis", "tokenize") if m in sys.modules))
        import dataclasses
        @dataclasses.dataclass
        class A:
            x: int
            y: str = "a"
        print(A.__doc__, R(1) == R(1))
        import inspect
        print(type(inspect).__name__, inspect.signature(A))
    """
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["[]", "A(x: int, y: str = 'a') True", "module (x: int, y: str = 'a') -> None"]


def test_a_record_has_the_dataclass_signature_before_and_after_its_first_instance() -> None:
    """`record` compiles `__init__` when the class is first called or its signature first asked
    for: `inspect.signature` gives dataclass's signature either way."""
    import inspect

    data, fresh = _kinds(dataclass), _kinds(record)
    for name in data:
        assert str(inspect.signature(fresh[name])) == str(inspect.signature(data[name])), name
        assert str(inspect.signature(RECORD[name])) == str(inspect.signature(data[name])), name


def test_defining_a_record_compiles_nothing_and_its_init_only_after_its_first_calls() -> None:
    """What `record` saves: `dataclass` compiles `__init__`, and for a frozen class `__setattr__`
    and `__delattr__`, from source at definition (44 compiles in a warm search); a record
    compiles none there; its `__init__` is compiled once, after FIRST_CALLS instances, or at
    once for a call its first `__init__` does not answer (wrong arguments), or when its
    signature is asked for."""
    import subprocess
    import sys

    code = """if True:
        import sys
        from dataclasses import field
        from sessionscope.core.records import record
        compiled = []
        sys.addaudithook(lambda ev, args: ev == "compile" and compiled.append(args[1]))
        @record(frozen=True, slots=True)
        class R:
            x: int
            y: list = field(default_factory=list)
        @record
        class S:
            x: int
        @record
        class T:
            x: int
        from sessionscope.core.records import FIRST_CALLS
        made = [R(i) for i in range(FIRST_CALLS)]
        print(len(compiled), made[1] == R(1), made[2].y, len(compiled), S(3).x, len(compiled))
        try:
            S(1, 2)
        except TypeError as exc:
            print("TypeError", len(compiled), str(exc).replace(" ", "_"))
        import inspect
        print(inspect.signature(T), len(compiled))
    """
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "0 True [] 1 3 1",  # (the 33rd R compiled its __init__; one S did not)
        "TypeError 2 S.__init__()_takes_2_positional_arguments_but_3_were_given",
        "(x: int) -> None 3"]


def test_frozen_and_not_frozen_records_do_not_mix_as_dataclasses_do_not() -> None:
    @record(frozen=True)
    class Base:
        a: int

    with pytest.raises(TypeError, match="non-frozen dataclass from a frozen"):
        @record
        class Thawed(Base):
            b: int = 0

    @dataclass(frozen=True)
    class PlainBase:
        a: int

    @record(frozen=True)
    class OnPlain(PlainBase):
        b: int = 0

    x = OnPlain(1, 2)
    with pytest.raises(FrozenInstanceError):
        x.b = 3
    assert (x.a, x.b) == (1, 2) and x == OnPlain(1, 2)
    with pytest.raises(TypeError, match="frozen dataclass from a non-frozen"):
        @record(frozen=True)
        class Frosted(RECORD["Plain"]):  # type: ignore[misc]
            e: int = 0


def test_the_core_imports_pathlib_without_urllib_parse_which_as_uri_still_gets(tmp_path: Path) -> None:
    """core/__init__.py imports `pathlib` with `urllib.parse` (and ipaddress) put off until
    `Path.as_uri` is first called; any later `import urllib.parse` is the real module. (Run with
    -S and the package by a link, as a plain install finds it: the test venv's editable-install
    finder imports pathlib itself at start.)"""
    import subprocess
    import sys

    (tmp_path / "sessionscope").symlink_to(Path(__file__).resolve().parents[2])
    code = """if True:
        import sys
        import sessionscope.core
        print(sorted(m for m in ("urllib.parse", "ipaddress") if m in sys.modules), "pathlib" in sys.modules)
        import pathlib
        print(pathlib.Path("/a b").as_uri(), pathlib.PurePosixPath("/x").as_uri())
        import urllib.parse
        print(type(urllib.parse).__name__, urllib.parse.urlsplit("http://h/p").path)
    """
    done = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, timeout=60,
                          env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["[] True", "file:///a%20b file:///x", "module /p"]
