"""Bookmarks (core/bookmarks/): the store, an entry's identity across a rebuilt catalog, a deleted
cache, a growing or rewritten file, and the JSON export and import."""
from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from sessionscope.core.bookmarks.anchor import State, bookmark_of, find_entry, resolve, stable_id
from sessionscope.core.bookmarks.store import Bookmark, BookmarkStore, StoreError, store_path
from sessionscope.core.bookmarks.transfer import TransferError, export_file, import_file, read_file
from sessionscope.core.catalog.library import Library
from sessionscope.core.catalog.store import Catalog
from sessionscope.core.read.discovery import Root

HEADER = {"session_id": "s-ids", "agent_id": "my-agent", "started_at": "2026-11-01T09:00:00Z",
          "project": "/p/alpha", "title": "with ids"}


def _line(n: int, text: str, *, ident: bool) -> str:
    entry = {"role": "user" if n % 2 else "assistant", "content": text,
             "timestamp": f"2026-11-01T09:{n:02d}:00Z"}
    if ident:
        entry["id"] = f"e{n}"
    return json.dumps(entry)


def _write(path: Path, header: dict[str, str], texts: list[str], *, ident: bool) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join([json.dumps(header)] + [_line(n, t, ident=ident) for n, t in enumerate(texts, 1)]) + "\n")
    return path


@pytest.fixture
def root(tmp_path: Path) -> Path:
    r = tmp_path / "root"
    _write(r / "ids.jsonl", HEADER, ["first ask", "an answer", "the key finding"], ident=True)
    _write(r / "lines.jsonl", dict(HEADER, session_id="s-lines", title="line ids"),
           ["second ask", "another answer", "the bookmarked line"], ident=False)
    return r


def _library(root: Path, cache: Path) -> Library:
    lib = Library([Root(str(root), "--root")], catalog=Catalog(cache / "catalog.sqlite"))
    lib.scan()
    return lib


def _entry(lib: Library, session_id: str, text: str):  # noqa: ANN202
    session = lib.get(session_id)
    assert session is not None
    return session, next(e for e in lib.load(session).entries if e.text == text)


def test_store_keeps_bookmarks_newest_first_and_one_per_entry(tmp_path: Path, root: Path) -> None:
    lib = _library(root, tmp_path / "cache")
    store = BookmarkStore(tmp_path / "data" / "bookmarks.sqlite")
    assert store.all() == []  # no file yet: nothing, and nothing created
    assert not store.path.exists()
    session, entry = _entry(lib, "s-ids", "an answer")
    first = store.add(bookmark_of(session, entry, "why it matters"))
    second = store.add(bookmark_of(session))
    again = store.add(bookmark_of(session, entry, "a new note"))
    assert again.id == first.id  # the same entry: its note changed, no second bookmark
    listed = store.all()
    assert [b.id for b in listed] == [second.id, first.id]
    assert listed[1].note == "a new note" and listed[1].excerpt == "an answer" and listed[1].line == 3
    assert store.set_note(second.id, "whole session") and store.get(second.id).note == "whole session"
    assert store.remove(first.id) and not store.remove(first.id)
    assert [b.id for b in store.all()] == [second.id]


def test_a_bookmark_survives_a_rebuilt_catalog_and_a_deleted_cache(tmp_path: Path, root: Path) -> None:
    cache = tmp_path / "cache"
    lib = _library(root, cache)
    store = BookmarkStore(tmp_path / "data" / "bookmarks.sqlite")
    for sid, text in (("s-ids", "the key finding"), ("s-lines", "the bookmarked line")):
        store.add(bookmark_of(*_entry(lib, sid, text)))
    shutil.rmtree(cache)  # the user deletes the cache: catalog and index are rebuilt
    found = resolve(_library(root, cache), store.all())
    assert [(r.state, r.entry_id) for r in found] == [(State.FOUND, "L4"), (State.FOUND, "e3")]


def test_an_entry_is_found_in_a_growing_file_and_by_its_text_in_a_rewritten_one(tmp_path: Path, root: Path) -> None:
    lib = _library(root, tmp_path / "cache")
    store = BookmarkStore(tmp_path / "bm.sqlite")
    session, entry = _entry(lib, "s-lines", "the bookmarked line")
    assert not stable_id(entry.id) and stable_id("e3")
    store.add(bookmark_of(session, entry, "n"))
    path = root / "lines.jsonl"
    with path.open("a") as fh:  # the session goes on
        fh.write(_line(9, "later", ident=False) + "\n")
    [grown] = resolve(_library(root, tmp_path / "cache"), store.all())
    assert (grown.state, grown.entry_id) == (State.FOUND, entry.id)
    # Rewritten with entries before it: its line (and L-id) changed, its text did not.
    texts = ["inserted first", "inserted second", "second ask", "another answer", "the bookmarked line"]
    _write(path, dict(HEADER, session_id="s-lines"), texts, ident=False)
    [moved] = resolve(_library(root, tmp_path / "cache2"), store.all())
    assert moved.state is State.MOVED and moved.entry_id == "L6"


def test_a_lost_entry_or_session_still_lists_with_its_saved_text(tmp_path: Path, root: Path) -> None:
    lib = _library(root, tmp_path / "cache")
    store = BookmarkStore(tmp_path / "bm.sqlite")
    store.add(bookmark_of(*_entry(lib, "s-lines", "the bookmarked line")))
    store.add(bookmark_of(*_entry(lib, "s-ids", "the key finding")))
    _write(root / "lines.jsonl", dict(HEADER, session_id="s-lines"), ["only this now"], ident=False)
    (root / "ids.jsonl").unlink()
    states = {r.bookmark.session_id: r for r in resolve(_library(root, tmp_path / "c2"), store.all())}
    assert states["s-lines"].state is State.ENTRY_GONE and not states["s-lines"].found
    assert states["s-lines"].bookmark.excerpt == "the bookmarked line"
    assert states["s-ids"].state is State.SESSION_GONE


def test_a_stable_id_is_trusted_and_a_line_id_needs_its_text(tmp_path: Path, root: Path) -> None:
    lib = _library(root, tmp_path / "cache")
    session, entry = _entry(lib, "s-lines", "the bookmarked line")
    b = bookmark_of(session, entry)
    other = next(e for e in lib.load(session).entries if e.text == "second ask")
    assert find_entry(b, [entry]) == (entry, False)
    # The same L-id on a different text is not the bookmarked entry.
    from dataclasses import replace

    assert find_entry(b, [replace(other, id=entry.id)]) == (None, False)


def test_transcript_text_is_masked_in_the_store_and_the_note_is_kept(tmp_path: Path) -> None:
    secret = "AKIA" + "IOSFODNN7EXAMPLE"
    root = tmp_path / "root"
    _write(root / "s.jsonl", HEADER, [f"my key is {secret}"], ident=True)
    lib = _library(root, tmp_path / "cache")
    session, entry = _entry(lib, "s-ids", f"my key is {secret}")
    store = BookmarkStore(tmp_path / "bm.sqlite")
    store.add(bookmark_of(session, entry, "note with \x1b[31m as typed"))
    [b] = store.all()
    assert secret not in b.excerpt and "secret masked" in b.excerpt
    assert b.note == "note with \x1b[31m as typed"
    assert secret not in store.path.read_bytes().decode("utf-8", "replace")


def test_export_and_import_round_trip_without_duplicates(tmp_path: Path, root: Path) -> None:
    lib = _library(root, tmp_path / "cache")
    store = BookmarkStore(tmp_path / "a.sqlite")
    store.add(bookmark_of(*_entry(lib, "s-lines", "the bookmarked line"), note="line note"))
    store.add(bookmark_of(lib.get("s-ids"), note="session note"))
    out = tmp_path / "bookmarks.json"
    assert export_file(store, out) == 2
    other = BookmarkStore(tmp_path / "b.sqlite")
    done = import_file(other, out)
    assert (done.added, done.already, done.invalid) == (2, 0, [])
    strip = lambda bs: [(b.key, b.note, b.excerpt, b.created_at) for b in bs]  # noqa: E731
    assert strip(other.all()) == strip(store.all())
    again = import_file(other, out)
    assert (again.added, again.already) == (0, 2) and len(other.all()) == 2


@pytest.mark.parametrize(("content", "said"), [
    (b"{not json", "is not JSON"),
    (b"\xff\xfe\x00", "not UTF-8"),
    (b'{"format": "something-else", "bookmarks": []}', "is not a bookmarks export"),
    (b'[1, 2]', "is not a bookmarks export"),
    (b'{"format": "sessionscope-bookmarks", "version": 99, "bookmarks": []}', "version 99"),
    (b'{"format": "sessionscope-bookmarks", "version": 1, "bookmarks": {}}', "is not a list"),
])
def test_a_broken_file_is_one_error_and_imports_nothing(tmp_path: Path, content: bytes, said: str) -> None:
    path = tmp_path / "in.json"
    path.write_bytes(content)
    store = BookmarkStore(tmp_path / "bm.sqlite")
    with pytest.raises(TransferError, match=said) as caught:
        import_file(store, path)
    assert "\n" not in str(caught.value)
    assert store.all() == []
    with pytest.raises(TransferError, match="cannot read"):
        read_file(tmp_path / "missing.json")


def test_items_that_are_not_bookmarks_are_named_and_the_rest_imported(tmp_path: Path) -> None:
    good = Bookmark(agent="a", session_id="s", path="/x").to_dict()
    doc = {"format": "sessionscope-bookmarks", "version": 1,
           "bookmarks": [good, "text", {"agent_id": 3}, dict(good, entry={"entry_id": "e1", "line": -2})]}
    path = tmp_path / "in.json"
    path.write_text(json.dumps(doc))
    done = import_file(BookmarkStore(tmp_path / "bm.sqlite"), path)
    assert done.added == 1
    assert [p.split(":")[0] for p in done.invalid] == ["bookmark 2", "bookmark 3", "bookmark 4"]


def test_a_damaged_store_is_one_error(tmp_path: Path) -> None:
    path = tmp_path / "bm.sqlite"
    path.write_bytes(b"this is not a database" * 100)
    store = BookmarkStore(path)
    with pytest.raises(StoreError, match="cannot be used"):
        store.all()
    with pytest.raises(StoreError):
        store.add(Bookmark(agent="a", session_id="s", path="/x"))


def test_the_store_is_in_the_data_folder_not_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SESSIONSCOPE_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("SESSIONSCOPE_CACHE_DIR", str(tmp_path / "cache"))
    assert store_path() == tmp_path / "data" / "bookmarks.sqlite"
    assert store_path(demo=True) == tmp_path / "data" / "demo-bookmarks.sqlite"
    assert isinstance(sqlite3.sqlite_version, str)
