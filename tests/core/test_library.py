"""The library: scanning roots through the catalog, lookups, and cross-file linking."""
from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from helpers import claude_record as claude, write_records as write
from sessionscope.core.catalog.store import Catalog
from sessionscope.core.read.discovery import Root
from sessionscope.core.catalog.library import Library, LookupFailed


def make(tmp_path: Path) -> tuple[Path, Library]:
    root = tmp_path / "projects"
    root.mkdir()
    return root, Library([Root(str(root), "--root", explicit=True)], catalog=Catalog(tmp_path / "c.sqlite"))


A = "aaaaaaaa-0000-4000-8000-000000000001"
B = "bbbbbbbb-0000-4000-8000-000000000002"


def test_scan_dedupes_records_copied_into_a_resumed_session(tmp_path: Path) -> None:
    root, lib = make(tmp_path)
    write(root / "p" / f"{A}.jsonl", [claude("u1", None, A, 1), claude("a1", "u1", A, 2, "assistant")])
    write(root / "p" / f"{B}.jsonl", [claude("u1", None, B, 1), claude("a1", "u1", B, 2, "assistant"),
                                      claude("u2", "a1", B, 3, text="resumed"), claude("a2", "u2", B, 4, "assistant")])
    lib.scan()
    assert lib.get(A).entry_count == 2
    assert lib.get(B).entry_count == 2  # the two copied records are not counted again
    assert lib.get(B).usage.input == 10  # nor their tokens
    # a second library over the same catalog sees the linked figures without re-reading
    again = Library(lib.roots, catalog=lib.catalog)
    report = again.scan()
    assert report.reread == 0 and again.get(B).entry_count == 2


def test_load_cached_needs_no_files(tmp_path: Path) -> None:
    root, lib = make(tmp_path)
    write(root / "p" / f"{A}.jsonl", [claude("u1", None, A, 1)])
    lib.scan()
    cold = Library(lib.roots, catalog=lib.catalog)
    assert cold.load_cached() == 1 and cold.find("aaaa").id == A


def test_find_by_prefix(tmp_path: Path) -> None:
    root, lib = make(tmp_path)
    write(root / "p" / f"{A}.jsonl", [claude("u1", None, A, 1)])
    write(root / "p" / "aaaaaaaa-1111-4000-8000-000000000003.jsonl",
          [claude("u9", None, "aaaaaaaa-1111-4000-8000-000000000003", 1)])
    lib.scan()
    with pytest.raises(LookupFailed, match="ambiguous"):
        lib.find("aaaaaaaa")
    assert lib.find("aaaaaaaa-0").id == A
    with pytest.raises(LookupFailed, match="no session matches"):
        lib.find("zzz")


def test_unreadable_and_deleted_files(tmp_path: Path) -> None:
    root, lib = make(tmp_path)
    p = root / "p" / f"{A}.jsonl"
    write(p, [claude("u1", None, A, 1)])
    lib.scan()
    p.unlink()
    report = lib.scan()
    assert report.removed == 1 and lib.get(A) is None


def test_missing_default_root_is_a_note_not_an_error(tmp_path: Path) -> None:
    lib = Library([Root(str(tmp_path / "nope"), "codex")], catalog=Catalog(None))
    report = lib.scan()
    assert report.errors == [] and "root not found" in report.notes[0]


# -- live updates: one file's change relinks only what it touches ------------------------------

def _synthetic_row(rng, path: str, ids: list[str]):  # noqa: ANN001, ANN202
    from sessionscope.core.catalog.store import FileRow, Fingerprint
    from sessionscope.core.model import Session, SessionKind

    sessions = []
    for sid in ids:
        parent = rng.choice([None, None, *IDS])
        sessions.append(Session(id=sid, agent="a", source_format="claude-code", paths=(path,),
                                kind=SessionKind.SUBAGENT if parent else SessionKind.MAIN,
                                parent_id=parent, child_ids=tuple(rng.sample(IDS, rng.choice([0, 0, 1]))),
                                size=rng.choice([1, 2, 3])))  # few sizes: ties between copies
    error = "broken" if rng.random() < 0.1 else None
    return FileRow(path, Fingerprint(1, rng.randrange(1 << 30), 1, 1, ""), "claude-code", sessions, error)


IDS = [f"s{i}" for i in range(12)]  # few ids over many files: duplicates, parents, children


@pytest.mark.parametrize("seed", range(40))
def test_relinking_one_file_matches_linking_every_row(seed: int) -> None:
    """put_row/drop_file keep the map exactly as `_link` over all rows makes it (values, and the
    order that ties in recency fall back on), and the file errors as a full pass would."""
    import random

    from sessionscope.core.catalog.links import _link

    rng = random.Random(seed)
    lib = Library([], catalog=Catalog(None))
    paths = [f"/r/p{i}.jsonl" for i in range(10)]

    def ids() -> list[str]:
        return rng.sample(IDS, rng.choice([1, 1, 1, 2, 3]))
    for p in paths[:5]:
        lib.rows[p] = _synthetic_row(rng, p, ids())
    lib._relink()  # what a scan leaves
    for step in range(60):
        path = rng.choice(paths)
        op = rng.random()
        old = lib.rows.get(path)
        if op < 0.25:
            lib.drop_file(path)
        elif op < 0.7 and old is not None:  # grew: the same ids, other figures
            lib.put_row(_synthetic_row(rng, path, [s.id for s in old.sessions]))
        else:  # created, or rewritten with other ids
            lib.put_row(_synthetic_row(rng, path, ids()))
        want = _link([s for r in lib.rows.values() for s in r.sessions])
        assert list(lib._sessions.items()) == list(want.items()), f"step {step}"
        assert list(lib.file_errors.items()) == [(r.path, r.error) for r in lib.rows.values() if r.error]
        if step == 30:  # a rescan replaces the rows wholesale: the next change links in full
            lib.rows = dict(lib.rows)
            lib._sessions = _link([s for r in lib.rows.values() for s in r.sessions])


def test_an_append_relinks_without_visiting_the_other_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sessionscope.core.catalog.library as library

    root, lib = make(tmp_path)
    for i in range(30):
        write(root / "p" / f"{i:08d}-0000-4000-8000-000000000000.jsonl", [claude("u1", None, f"{i:08d}-0000-4000-8000-000000000000", 1)])
    lib.scan()
    path = str(root / "p" / f"{3:08d}-0000-4000-8000-000000000000.jsonl")
    row = lib.rows[path]
    lib.put_row(row)  # the first change after a scan indexes the rows once
    linked: list[int] = []
    real = library._link
    monkeypatch.setattr(library, "_link", lambda sessions: linked.append(len(sessions)) or real(sessions))
    from dataclasses import replace as dc_replace
    grown = dc_replace(row.sessions[0], entry_count=5)
    from sessionscope.core.catalog.store import FileRow
    lib.put_row(FileRow(path, row.fingerprint, row.adapter, [grown], None))
    assert linked == [] and lib.get(grown.id).entry_count == 5 and len(lib.all_sessions()) == 30


def test_a_scanned_library_is_prepared_for_relinking_without_changing_its_map(tmp_path: Path) -> None:
    root, lib = make(tmp_path)
    write(root / "p" / f"{A}.jsonl", [claude("u1", None, A, 1)])
    write(root / "p" / f"{B}.jsonl", [claude("u1", None, B, 2)])
    lib.scan()
    before = lib._sessions
    lib.prepare_relink()
    assert lib._sessions is before and lib._links is not None and lib._links.sessions is before
    lib.load_cached()  # a map that did not come from linking the rows: left for a full link
    cached = lib._sessions
    lib.prepare_relink()
    assert lib._sessions is cached
    empty = Library(lib.roots, catalog=lib.catalog)
    empty.load_cached()
    empty.prepare_relink()  # never scanned: nothing to index, the catalog's sessions stay
    assert empty._links is None and len(empty.all_sessions()) == 2


def _realpath_calls_of_a_warm_scan(tmp_path: Path, files: int, monkeypatch: pytest.MonkeyPatch) -> int:
    import os

    tmp_path.mkdir()
    root, lib = make(tmp_path)
    for i in range(files):
        sid = f"{i:08d}-0000-4000-8000-000000000001"
        write(root / f"p{i % 3}" / f"{sid}.jsonl", [claude("u1", None, sid, 1), claude("a1", "u1", sid, 2, "assistant")])
    lib.scan()
    calls = []
    real = os.path.realpath
    with monkeypatch.context() as mp:
        mp.setattr(os.path, "realpath", lambda p, *a, **kw: calls.append(p) or real(p, *a, **kw))
        report = Library(lib.roots, catalog=lib.catalog).scan()
    assert report.files == files and report.reread == 0
    return len(calls)


def test_a_warm_scan_resolves_no_file_one_by_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A warm scan stats each file; resolving each path (an lstat per part of it) cost a quarter of it."""
    few = _realpath_calls_of_a_warm_scan(tmp_path / "few", 2, monkeypatch)
    many = _realpath_calls_of_a_warm_scan(tmp_path / "many", 12, monkeypatch)
    assert many == few  # the roots and folders may be resolved; no file is


def test_a_file_reached_twice_through_a_link_is_listed_once(tmp_path: Path) -> None:
    root, lib = make(tmp_path)
    write(root / "p" / f"{A}.jsonl", [claude("u1", None, A, 1), claude("a1", "u1", A, 2, "assistant")])
    (root / "q").mkdir()
    (root / "q" / f"{A}.jsonl").symlink_to(root / "p" / f"{A}.jsonl")
    report = lib.scan()
    assert report.files == 1 and lib.get(A).entry_count == 2
