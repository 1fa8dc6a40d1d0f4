"""A quick-listing scan (`Library.scan(quick=True)`): on a cold catalog the files are listed from
their two ends first, and those provisional sessions give way to the parsed ones file by file."""
from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable

import orjson
import pytest

import sessionscope.core.catalog.library as library
from sessionscope.core.catalog.store import Catalog
from sessionscope.core.demo import generate_demo
from sessionscope.core.read.discovery import Root
from sessionscope.core.catalog.library import Interim, Library, ListedSession, is_child
from sessionscope.core.model import SessionKind

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=timezone.utc)


def _demo(tmp_path: Path) -> Library:
    corpus = generate_demo(tmp_path / "demo", now=NOW)
    roots = [Root(str(corpus.claude_root), "demo"), Root(str(corpus.codex_root), "demo")]
    return Library(roots, catalog=Catalog(tmp_path / "catalog.sqlite"))


def _claude(path: Path, sid: str, text: str, second: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    rec = {"type": "user", "uuid": f"u-{sid}", "parentUuid": None, "sessionId": sid, "cwd": "/w/proj",
           "timestamp": f"2025-01-01T00:00:{second:02d}.000Z",
           "message": {"role": "user", "content": text}}
    path.write_bytes(orjson.dumps(rec) + b"\n")


def _recorder(lib: Library) -> tuple[list[tuple[Interim, dict[str, object]]], Callable[[Interim], None]]:
    """An `interim` callback recording the map's sessions by path at each call (a listed
    session, or the set of parsed ids), and what it recorded."""
    seen: list[tuple[Interim, dict[str, object]]] = []

    def interim(state: Interim) -> None:
        by_path: dict[str, object] = {}
        for s in lib.all_sessions():
            if isinstance(s, ListedSession):
                assert s.path not in by_path, "a file is listed once, and not beside its parsed sessions"
                by_path[s.path] = s
            else:
                found = by_path.setdefault(s.path, set())
                assert isinstance(found, set), "a file's listed session went when it was parsed"
                found.add(s.id)
        seen.append((state, by_path))

    return seen, interim


def test_cold_scan_lists_every_file_first_then_the_parse_replaces_them(tmp_path: Path) -> None:
    lib = _demo(tmp_path)
    seen, interim = _recorder(lib)
    report = lib.scan(quick=True, interim=interim, interim_every=0)
    final = lib.all_sessions()
    assert not any(isinstance(s, ListedSession) for s in final)

    # The first interim: nothing read yet, every file listed (the demo has fewer than QUICK_FIRST).
    first, by_path = seen[0]
    assert first == Interim(0, report.files, report.files)
    listed = {p: s for p, s in by_path.items() if isinstance(s, ListedSession)}
    assert len(listed) == report.files
    # What the listing is sure of is what the full parse gives: ids, kinds, projects, agents.
    parsed = {s.id: s for s in final}
    for path, s in listed.items():
        assert isinstance(s, ListedSession) and s.entry_count == 0 and s.usage.total == 0
        full = parsed[s.id]
        assert full.path == path
        assert (s.agent, s.source_format, s.project) == (full.agent, full.source_format, full.project)
        if "kind" not in s.unsure:
            assert s.kind is full.kind
        if "title" not in s.unsure:
            assert s.title == full.title
    # Children are listed as children (the list hides them), though without their parent link.
    assert {s.id for s in listed.values() if is_child(s)} == {
        s.id for s in final if s.kind is not SessionKind.MAIN}

    # Then, file by file (interim_every=0), the files read so far have their parsed sessions and
    # the others are still listed; the last file is never published (the scan's map replaces it).
    order = sorted(listed)
    for state, by_path in seen[1:]:
        assert 0 < state.files_done < state.files_total == report.files
        assert state.listed == report.files - state.files_done
        for n, path in enumerate(order):
            assert isinstance(by_path.get(path), ListedSession) == (n >= state.files_done)
    assert [s.files_done for s, _ in seen[1:]] == list(range(1, report.files))


def test_a_warm_catalog_lists_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lib = _demo(tmp_path)
    lib.scan()
    warm = Library(lib.roots, catalog=lib.catalog)
    warm.load_cached()

    def fail(*args: object, **kwargs: object) -> None:
        raise AssertionError("a warm catalog needs no quick listing")

    monkeypatch.setattr("sessionscope.core.read.listing.quick_meta", fail)
    calls: list[Interim] = []
    report = warm.scan(quick=True, interim=calls.append, interim_every=0)
    assert report.reread == 0 and calls == []
    assert [s.id for s in warm.all_sessions()] == [s.id for s in lib.all_sessions()]


def test_new_and_changed_files_of_a_warm_catalog(tmp_path: Path) -> None:
    """Only the file the catalog does not know is listed; a changed one shows its cached
    sessions until it is read again, and files the catalog knows keep theirs."""
    root = tmp_path / "projects"
    a, b, c = "a" * 8 + "-0000-4000-8000-000000000001", "b" * 8 + "-0000-4000-8000-000000000002", \
        "c" * 8 + "-0000-4000-8000-000000000003"
    _claude(root / "p" / f"{a}.jsonl", a, "first one", 1)
    _claude(root / "p" / f"{b}.jsonl", b, "second one", 2)
    lib = Library([Root(str(root), "--root", explicit=True)], catalog=Catalog(tmp_path / "c.sqlite"))
    lib.scan()
    _claude(root / "p" / f"{b}.jsonl", b, "second one, rewritten", 3)
    _claude(root / "q" / f"{c}.jsonl", c, "a new one", 4)
    warm = Library(lib.roots, catalog=lib.catalog)
    warm.load_cached()
    seen: list[dict[str, tuple[bool, str | None]]] = []
    warm.scan(quick=True, interim=lambda _: seen.append(
        {s.id: (isinstance(s, ListedSession), s.title) for s in warm.all_sessions()}), interim_every=0)
    assert seen[0] == {a: (False, "first one"), b: (False, "second one"), c: (True, "a new one")}
    assert seen[-1][c] == (True, "a new one") and seen[-1][b] == (False, "second one, rewritten")
    assert warm.get(c) is not None and not isinstance(warm.get(c), ListedSession)


def test_files_the_listing_cannot_read_are_left_to_the_scan(tmp_path: Path) -> None:
    root = tmp_path / "projects"
    good = "d" * 8 + "-0000-4000-8000-000000000004"
    _claude(root / "p" / f"{good}.jsonl", good, "readable", 1)
    (root / "p" / "empty.jsonl").write_bytes(b"")
    (root / "p" / "garbage.jsonl").write_bytes(b"\x00\xff not json at all\n" * 3)
    (root / "p" / "half.jsonl").write_bytes(b'{"type": "user", "sessionId": ')
    lib = Library([Root(str(root), "--root", explicit=True)], catalog=Catalog(None))
    firsts: list[list[str]] = []
    report = lib.scan(quick=True, interim=lambda _: firsts.append([s.id for s in lib.all_sessions()]))
    assert firsts[0] == [good]
    assert report.files == 4 and [s.id for s in lib.all_sessions()] == [good]


def test_the_newest_files_are_listed_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With more files than QUICK_FIRST, the newest (by mtime) are published before the rest."""
    monkeypatch.setattr(library, "QUICK_FIRST", 2)
    root = tmp_path / "projects"
    ids = [f"{i:08d}-0000-4000-8000-00000000000{i}" for i in range(5)]
    for i, sid in enumerate(ids):
        path = root / "p" / f"{sid}.jsonl"
        _claude(path, sid, f"session {i}", i)
        os.utime(path, (1_700_000_000 + i, 1_700_000_000 + i))
    lib = Library([Root(str(root), "--root", explicit=True)], catalog=Catalog(None))
    seen: list[set[str]] = []
    lib.scan(quick=True, interim=lambda st: seen.append(
        {s.id for s in lib.all_sessions() if isinstance(s, ListedSession)}) if st.files_done == 0 else None,
        interim_every=3600)
    assert seen == [set(ids[3:]), set(ids)]
