"""A lazy scan (`Library.scan(lazy=True)`): sessions listed, linked and looked up by the catalog's
keys, each decoded when asked for, with the same answers as a scan that decodes them all; the
catalog of the previous schema migrated in place; folders not listed again while unchanged."""
from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path

import orjson
import pytest

from helpers import DATA, assert_same, both, claude_record as claude, roots_of, v6, write_records as write
from sessionscope.core.catalog import store
from sessionscope.core.catalog.library import Library, LookupFailed
from sessionscope.core.catalog.store import Catalog
from sessionscope.core.read import walk
from sessionscope.core.read.discovery import DEFAULT_PROJECT_FILES, DEFAULT_SUFFIXES, Root

A = "aaaaaaaa-0000-4000-8000-000000000001"
B = "bbbbbbbb-0000-4000-8000-000000000002"


def test_lazy_listing_and_lookups_agree_with_decoding_every_session(tmp_path: Path) -> None:
    # every fixture format: subagents (nested, inline, siblings), Gemini projects named by hash,
    # orphans, Copilot, pi, OpenCode, Aider
    folders = sorted(p for p in DATA.iterdir() if p.is_dir() and p.name not in ("brief", "memory"))
    full, lazy = both(roots_of(*folders), tmp_path)
    assert len(full.session_ids()) > 10
    assert_same(full, lazy)


def test_lazy_linking_keeps_the_copy_linking_keeps(tmp_path: Path) -> None:
    # one id in two files (a resumed or archived copy): the larger one wins, in both
    root = tmp_path / "projects"
    small = [claude("u1", None, A, 1)]
    big = small + [claude("a1", "u1", A, 2, "assistant"), claude("u2", "a1", A, 3)]
    write(root / "p" / f"{A}.jsonl", small)
    write(root / "q" / f"{A}.jsonl", big)
    write(root / "p" / f"{B}.jsonl", [claude("u1", None, B, 5)])
    write(root / "p" / B / "subagents" / "agent-x1.jsonl",
          [dict(claude("s1", None, B, 6), isSidechain=True, agentId="x1")])
    full, lazy = both(roots_of(root), tmp_path)
    assert full.get(A).path.endswith(f"q/{A}.jsonl")
    assert_same(full, lazy)


def test_a_lazy_scan_decodes_only_the_sessions_asked_for(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "projects"
    for n in range(30):
        sid = f"{n:08d}-0000-4000-8000-000000000000"
        write(root / "p" / f"{sid}.jsonl", [claude(f"u{n}", None, sid, n % 60)])
    Library(roots_of(root), catalog=Catalog(tmp_path / "c.sqlite")).scan()
    decoded = []
    real = store._Decoder.session
    monkeypatch.setattr(store._Decoder, "session", lambda self, r: decoded.append(r[0]) or real(self, r))
    lib = Library(roots_of(root), catalog=Catalog(tmp_path / "c.sqlite"))
    lib.scan(lazy=True)
    top, _ = lib.top_level()
    assert len(top) == 30 and [s.id for s in top[:3]] == [f"{n:08d}-0000-4000-8000-000000000000" for n in (29, 28, 27)]
    assert len(decoded) == 3
    assert lib.find("00000012").id.startswith("00000012") and len(decoded) == 4
    lib.rows  # every row asked for: all decoded, as a scan that is not lazy
    assert len(decoded) == 34 and not lib.lazy


def test_a_lazy_scan_reads_a_changed_file_again(tmp_path: Path) -> None:
    root = tmp_path / "projects"
    write(root / "p" / f"{A}.jsonl", [claude("u1", None, A, 1)])
    Library(roots_of(root), catalog=Catalog(tmp_path / "c.sqlite")).scan()
    write(root / "p" / f"{A}.jsonl", [claude("u1", None, A, 1), claude("a1", "u1", A, 2, "assistant")])
    write(root / "p" / f"{B}.jsonl", [claude("b1", None, B, 3)])
    lib = Library(roots_of(root), catalog=Catalog(tmp_path / "c.sqlite"))
    report = lib.scan(lazy=True)
    assert report.reread == 2
    assert lib.get(A).entry_count == 2 and lib.top_level()[0][0].id == B


def test_a_schema_6_catalog_is_migrated_in_place_not_rebuilt(tmp_path: Path) -> None:
    root = tmp_path / "projects"
    write(root / "p" / f"{A}.jsonl", [claude("u1", None, A, 1)])
    write(root / "p" / f"{B}.jsonl", [claude("b1", None, B, 2)])
    Library(roots_of(root), catalog=Catalog(tmp_path / "c.sqlite")).scan()
    v6(tmp_path / "c.sqlite")
    cat = Catalog(tmp_path / "c.sqlite")
    assert cat.messages == []  # no "rebuilding"
    assert not cat.complete_keys()
    assert Library(roots_of(root), catalog=cat).lookup(B) == Library(roots_of(root), catalog=cat).lookup(B) is not None
    assert cat.complete_keys()  # (made by the first lookup, once)
    lib = Library(roots_of(root), catalog=cat)
    report = lib.scan(lazy=True)
    assert report.reread == 0 and lib.top_level()[0][0].id == B
    keys = sqlite3.connect(tmp_path / "c.sqlite").execute("SELECT keys FROM files").fetchall()
    assert all(k[0] is not None for k in keys)  # made once, kept
    again = Catalog(tmp_path / "c.sqlite")
    assert again.messages == [] and sorted(again.light()) == sorted(cat.light())


def test_the_default_names_are_the_default_adapters(tmp_path: Path) -> None:
    from sessionscope.core.read.adapters import _BUILT_IN, default_adapter, default_registry

    reg = default_registry()
    assert DEFAULT_SUFFIXES == tuple(sorted({s for a in reg.adapters for s in a.suffixes}))
    assert DEFAULT_PROJECT_FILES == tuple(n for a in reg.adapters for n in a.project_files)
    assert {a.name: type(a) for a in reg.adapters} == {n: type(default_adapter(n)) for n in _BUILT_IN}
    assert default_adapter("no-such") is None


# -- folders not listed again while unchanged ---------------------------------------------------
def scandirs(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    listed: list[str] = []
    real = os.scandir

    def spy(path: str = ".") -> object:
        listed.append(str(path))
        return real(path)

    monkeypatch.setattr(walk.os, "scandir", spy)
    return listed


def walked(root: Path, listings: walk.Listings) -> list[str]:
    return sorted(walk.walk_files(str(root), (".jsonl",), listings=listings))


def test_an_unchanged_folder_is_not_listed_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(walk, "LISTING_MARGIN_NS", -10**18)  # (trusted however recent)
    root = tmp_path / "r"
    for p in ("a/1.jsonl", "a/sub/2.jsonl", "b/3.jsonl", "b/x.txt"):
        (root / p).parent.mkdir(parents=True, exist_ok=True)
        (root / p).write_text("{}\n")
    first = walk.Listings()
    before = walked(root, first)
    assert len(before) == 3 and len(first.fresh) == 4
    listed = scandirs(monkeypatch)
    known = walk.Listings(dict(first.fresh))
    assert walked(root, known) == before and listed == []
    # a new file, a new subfolder inside an unchanged parent's child, a removed file, a renamed folder
    (root / "a" / "sub" / "new.jsonl").write_text("{}\n")
    (root / "b" / "deeper").mkdir()
    (root / "b" / "deeper" / "4.jsonl").write_text("{}\n")
    (root / "b" / "3.jsonl").unlink()
    (root / "a" / "1.jsonl").rename(root / "a" / "one.jsonl")
    after = walked(root, walk.Listings(dict(first.fresh)))
    assert after == sorted(str(root / p) for p in ("a/one.jsonl", "a/sub/2.jsonl", "a/sub/new.jsonl", "b/deeper/4.jsonl"))
    assert sorted(listed) == sorted(str(root / p) for p in ("a", "a/sub", "b", "b/deeper"))
    os.rename(root / "b", root / "c")
    assert walked(root, walk.Listings(dict(first.fresh))) == sorted(
        str(root / p) for p in ("a/one.jsonl", "a/sub/2.jsonl", "a/sub/new.jsonl", "c/deeper/4.jsonl"))


def test_a_folder_changed_just_before_its_listing_is_listed_again(tmp_path: Path) -> None:
    root = tmp_path / "r"
    (root / "a").mkdir(parents=True)
    (root / "a" / "1.jsonl").write_text("{}\n")
    first = walk.Listings()
    walked(root, first)
    assert first.fresh == {}  # changed within the margin: a change in the same tick would not show


def test_a_folder_holding_a_link_is_listed_each_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(walk, "LISTING_MARGIN_NS", -10**18)
    root = tmp_path / "r"
    (root / "real").mkdir(parents=True)
    (root / "real" / "1.jsonl").write_text("{}\n")
    (root / "link").symlink_to(root / "real")
    (root / "loop").symlink_to(root)
    (root / "f.jsonl").symlink_to(root / "real" / "1.jsonl")
    first = walk.Listings()
    before = walked(root, first)
    # the root holds links: listed each time; the folder they lead to (reached once, by either
    # name) holds none: trusted while its own stat is as it was
    assert str(root) not in first.fresh and [e[5] for e in first.fresh.values()] == [[["1.jsonl", False]]]
    assert walked(root, walk.Listings(dict(first.fresh))) == before


def test_a_warm_scan_lists_no_unchanged_folder_and_sees_new_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(walk, "LISTING_MARGIN_NS", -10**18)
    root = tmp_path / "projects"
    write(root / "p" / f"{A}.jsonl", [claude("u1", None, A, 1)])
    roots = roots_of(root)
    Library(roots, catalog=Catalog(tmp_path / "c.sqlite")).scan()
    listed = scandirs(monkeypatch)
    lib = Library(roots, catalog=Catalog(tmp_path / "c.sqlite"))
    lib.scan(lazy=True)
    assert listed == [] and lib.session_ids() == [A]
    write(root / "p" / B / "subagents" / "agent-x1.jsonl",
          [dict(claude("s1", None, B, 6), isSidechain=True, agentId="x1")])
    lib = Library(roots, catalog=Catalog(tmp_path / "c.sqlite"))
    lib.scan(lazy=True)
    assert sorted(lib.session_ids()) == sorted([A, f"{B}/agent-x1"])
    shutil.rmtree(root / "p" / B)
    lib = Library(roots, catalog=Catalog(tmp_path / "c.sqlite"))
    lib.scan(lazy=True)
    assert lib.session_ids() == [A]
    stored = sqlite3.connect(tmp_path / "c.sqlite").execute("SELECT path, entries FROM folders").fetchall()
    assert {p for p, _ in stored} == {str(root), str(root / "p")}
    assert orjson.loads(dict(stored)[str(root / "p")]) == [[f"{A}.jsonl", False]]


# -- one session looked up without a walk ---------------------------------------------------------
def test_a_lookup_stats_only_the_files_of_the_session_and_its_kin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "projects"
    write(root / "p" / f"{A}.jsonl", [claude("a1", None, A, 1)])
    write(root / "p" / f"{B}.jsonl", [claude("b1", None, B, 5)])
    child = root / "p" / B / "subagents" / "agent-x1.jsonl"
    write(child, [dict(claude("s1", None, B, 6), isSidechain=True, agentId="x1")])
    for n in range(5):
        sid = f"{n:08d}-0000-4000-8000-000000000000"
        write(root / "q" / f"{sid}.jsonl", [claude(f"u{n}", None, sid, n)])
    roots = roots_of(root)
    warm = Library(roots, catalog=Catalog(tmp_path / "c.sqlite"))
    warm.scan()
    stated: list[str] = []
    real_stat = os.stat
    monkeypatch.setattr(os, "stat", lambda p, *a, **kw: stated.append(os.fspath(p)) or real_stat(p, *a, **kw))
    listed = scandirs(monkeypatch)
    lib = Library(roots, catalog=Catalog(tmp_path / "c.sqlite"))
    found = lib.lookup("bbbb")
    assert found == warm.get(B) and found.child_ids == (f"{B}/agent-x1",)
    assert listed == [] and sorted(p for p in stated if p.endswith(".jsonl")) == sorted([str(root / "p" / f"{B}.jsonl"), str(child)])
    assert lib.find("bbbb") == found and lib.get(f"{B}/agent-x1") == warm.get(f"{B}/agent-x1")
    # a child names its parent's file too; an exact id; ambiguous and unknown prefixes are the scan's
    stated.clear()
    assert Library(roots, catalog=Catalog(tmp_path / "c.sqlite")).lookup("agent-x1") == warm.get(f"{B}/agent-x1")
    assert sorted(p for p in stated if p.endswith(".jsonl")) == sorted([str(root / "p" / f"{B}.jsonl"), str(child)])
    fresh = Library(roots, catalog=Catalog(tmp_path / "c.sqlite"))
    assert fresh.lookup(A, exact=True) == warm.get(A) and fresh.lookup("aaaa", exact=True) is None
    assert fresh.lookup("0000000") is None and fresh.lookup("zzz") is None and fresh.lookup("") is None


def test_a_lookup_gives_way_to_a_scan_when_a_file_of_the_session_changed(tmp_path: Path) -> None:
    root = tmp_path / "projects"
    write(root / "p" / f"{B}.jsonl", [claude("b1", None, B, 5)])
    child = root / "p" / B / "subagents" / "agent-x1.jsonl"
    write(child, [dict(claude("s1", None, B, 6), isSidechain=True, agentId="x1")])
    roots = roots_of(root)
    Library(roots, catalog=Catalog(tmp_path / "c.sqlite")).scan()
    assert Library(roots, catalog=Catalog(tmp_path / "c.sqlite")).lookup(B) is not None
    with child.open("a") as fh:  # the child grew: the parent's listing may change with it
        fh.write(orjson.dumps(dict(claude("s2", "s1", B, 7, "assistant"), isSidechain=True, agentId="x1")).decode() + "\n")
    assert Library(roots, catalog=Catalog(tmp_path / "c.sqlite")).lookup(B) is None
    child.unlink()
    assert Library(roots, catalog=Catalog(tmp_path / "c.sqlite")).lookup(B) is None
    lib = Library(roots, catalog=Catalog(tmp_path / "c.sqlite"))
    lib.scan(lazy=True)
    assert lib.get(B).child_ids == () and Library(roots, catalog=Catalog(tmp_path / "c.sqlite")).lookup(B) == lib.get(B)


def test_one_row_decodes_alike_by_the_standard_library_and_by_orjson(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """`Catalog.get` decodes a small row with `json.loads` (no orjson import for a table of a few
    rows), a big one with orjson: the same rows either way, every file of the demo's formats."""
    from sessionscope.core.demo import generate_demo

    demo = generate_demo(tmp_path / "demo")
    lib = Library([Root(str(p), "demo") for p in demo.roots], catalog=Catalog(tmp_path / "c.sqlite"))
    lib.scan()
    cat = lib.catalog
    paths = [row.path for row in cat.all()]
    assert len(paths) >= 7
    got = {}
    for small in (0, 1 << 30):  # every row by orjson, then every row by the standard library
        monkeypatch.setattr(store, "_SMALL_ROW", small)
        got[small] = [cat.get(p) for p in paths]
    assert got[0] == got[1 << 30] == [next(r for r in cat.all() if r.path == p) for p in paths]
