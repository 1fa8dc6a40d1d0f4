"""A cache that cannot be written: a full disk (one line, exit 2; `watch` says so and retries;
afterwards the results match a clean build) and a read-only cache folder (listing, reading and
searching work without it, with one warning)."""
from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import orjson
import pytest

from sessionscope.cli.main import main
from sessionscope.core.catalog import store as catalog_module
from sessionscope.core.catalog.store import Catalog
from sessionscope.core.config import CacheError
from sessionscope.core.read.discovery import Root
from sessionscope.core.search.failures import IndexFailed
from sessionscope.core.search.index import SearchIndex
from sessionscope.core.catalog.library import Library
from sessionscope.core.live.tracker import Change, Tracker

T0 = datetime(2026, 11, 1, 9, 0, tzinfo=timezone.utc)
FULL = "database or disk is full"  # sqlite3.OperationalError's text for SQLITE_FULL
NO_SPACE = "An IO error occurred: 'No space left on device (os error 28) at path \"/c/index/.tmpX\"'"  # tantivy's


def session(path: Path, sid: str, texts: list[str]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [{"session_id": sid, "agent_id": "a", "started_at": T0.isoformat()}]
    lines += [{"role": "user", "content": t, "timestamp": (T0 + timedelta(minutes=i)).isoformat()}
              for i, t in enumerate(texts)]
    path.write_bytes(b"".join(orjson.dumps(x) + b"\n" for x in lines))
    return path


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SESSIONSCOPE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("SESSIONSCOPE_CONFIG", str(tmp_path / "none.toml"))
    r = tmp_path / "root"
    session(r / "a.jsonl", "sess-a", ["the flaky retry test", "stale balances again"])
    session(r / "b.jsonl", "sess-b", ["retry budget spent", "unrelated words"])
    return r


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


class FullConnection:
    """A sqlite connection on a full disk: reads work, every write raises SQLITE_FULL."""

    WRITES = ("INSERT", "DELETE", "UPDATE", "CREATE", "COMMIT", "REPLACE")

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db

    def _check(self, sql: str) -> None:
        if sql.lstrip().upper().startswith(self.WRITES):
            raise sqlite3.OperationalError(FULL)

    def execute(self, sql: str, *args: Any) -> sqlite3.Cursor:
        self._check(sql)
        return self._db.execute(sql, *args)

    def executemany(self, sql: str, *args: Any) -> sqlite3.Cursor:
        self._check(sql)
        return self._db.executemany(sql, *args)

    def executescript(self, sql: str) -> sqlite3.Cursor:
        self._check(sql)
        return self._db.executescript(sql)

    def close(self) -> None:
        self._db.close()


def fill_disk(monkeypatch: pytest.MonkeyPatch) -> None:
    connect = sqlite3.connect
    monkeypatch.setattr(catalog_module.sqlite3, "connect", lambda *a, **k: FullConnection(connect(*a, **k)))


class FullWriter:
    """A tantivy writer on a full disk: documents go in, the commit fails as tantivy's does."""

    def __init__(self, writer: Any) -> None:
        self._w = writer

    def commit(self) -> None:
        raise ValueError(NO_SPACE)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._w, name)


def fill_index_disk(monkeypatch: pytest.MonkeyPatch) -> None:
    real = SearchIndex._writer_

    def writer(self: SearchIndex) -> Any:
        w = real(self)
        return w if isinstance(w, FullWriter) else FullWriter(w)

    monkeypatch.setattr(SearchIndex, "_writer_", writer)


def hits(capsys: pytest.CaptureFixture[str], root: Path, query: str) -> list[tuple[str, str]]:
    code, out, err = run(capsys, "search", query, "--root", str(root), "--json", "--limit", "100")
    assert code == 0, err
    return sorted((h["session_id"], h["entry_id"]) for h in json.loads(out)["hits"])


def test_full_disk_in_the_catalog_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, root: Path,
) -> None:
    fill_disk(monkeypatch)
    for argv in (["sessions"], ["read", "sess-a"], ["search", "retry"], ["index"], ["context", "fix the retry"]):
        code, _out, err = run(capsys, *argv, "--root", str(root))
        assert code == 2 and FULL in err and "free some space" in err, (argv, err)
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_a_full_disk_deletes_no_catalog(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "catalog.sqlite"
    Catalog(path).close()
    fill_disk(monkeypatch)
    catalog = Catalog(path)  # (opening a complete catalog only reads)
    with pytest.raises(CacheError, match="disk is full"):
        catalog.drop_index_states()
    assert path.exists() and not catalog.messages
    with pytest.raises(CacheError, match="disk is full"):  # a new one cannot be created: no "rebuilding"
        Catalog(tmp_path / "new.sqlite")


def test_full_disk_in_the_index_is_one_line_then_a_clean_build_after_space_frees(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, root: Path, tmp_path: Path,
) -> None:
    with monkeypatch.context() as m:
        fill_index_disk(m)
        for argv in (["index"], ["search", "retry"]):
            code, _out, err = run(capsys, *argv, "--root", str(root))
            assert code == 2 and "no space left" in err and "Traceback" not in err, (argv, err)
            assert len(err.strip().splitlines()) == 1
    after = {q: hits(capsys, root, q) for q in ("retry", "flaky", "unrelated")}
    assert after["retry"] and after["flaky"]
    m2 = pytest.MonkeyPatch()
    m2.setenv("SESSIONSCOPE_CACHE_DIR", str(tmp_path / "clean-cache"))
    try:
        clean = {q: hits(capsys, root, q) for q in after}
    finally:
        m2.undo()
    assert after == clean


def test_a_search_after_a_complete_index_writes_nothing(
    capsys: pytest.CaptureFixture[str], root: Path, tmp_path: Path,
) -> None:
    assert run(capsys, "index", "--root", str(root))[0] == 0
    cache = tmp_path / "cache"

    def state() -> dict[str, tuple[int, int]]:
        # The index's files (the catalog's WAL is checkpointed by sqlite when a reader closes it)
        return {str(p.relative_to(cache)): (p.stat().st_size, p.stat().st_mtime_ns)
                for p in (cache / "index").rglob("*") if p.is_file()}

    before = state()
    assert hits(capsys, root, "retry") and hits(capsys, root, "ssionsco") == []
    assert state() == before


def test_watch_reports_a_full_disk_and_retries(tmp_path: Path) -> None:
    r = tmp_path / "root"
    r.mkdir()
    catalog = Catalog(tmp_path / "c.sqlite")
    lib = Library([Root(str(r), "--root", explicit=True)], catalog=catalog)
    lib.scan()
    tracker = Tracker(lib)
    index = SearchIndex(tmp_path / "index")
    early = session(r / "early.jsonl", "sess-early", ["written before the disk filled"])
    assert [e.kind for e in tracker.apply([str(early)])] == [Change.CREATED]
    real = catalog._db._db
    catalog._db._db = FullConnection(real)  # the disk fills up
    p = session(r / "new.jsonl", "sess-new", ["zebracorn arrives"])
    assert tracker.apply([str(p)]) == [] and FULL in tracker.failures[0]
    tracker.failures.clear()
    with pytest.MonkeyPatch.context() as m:
        fill_index_disk(m)
        with pytest.raises(IndexFailed, match="no space left"):
            index.update(lib, paths=tracker.take_changed())
    catalog._db._db = real  # space freed: the next change retries the file
    other = session(r / "other.jsonl", "sess-other", ["second file"])
    events = tracker.apply([str(other)])
    assert {(e.kind, e.path) for e in events} == {(Change.CREATED, str(p)), (Change.CREATED, str(other))}
    assert not tracker.failures
    index.update(lib, paths=tracker.take_changed())
    assert [h.session_id for h in index.search("zebracorn").hits] == ["sess-new"]
    assert [h.session_id for h in index.search("second").hits] == ["sess-other"]
    assert [h.session_id for h in index.search("filled").hits] == ["sess-early"]  # its failed commit redone


@pytest.mark.parametrize("how", ["read-only folder", "a file in the way"])
def test_listing_reading_and_searching_work_without_a_writable_cache(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, root: Path, tmp_path: Path, how: str,
) -> None:
    if how == "read-only folder":
        cache = tmp_path / "ro-cache"
        cache.mkdir()
        cache.chmod(0o555)
        if os.access(cache, os.W_OK):
            pytest.skip("running as root: a mode-555 folder stays writable (a read-only mount is tried by hand)")
    else:
        (tmp_path / "file").write_text("x")
        cache = tmp_path / "file" / "cache"
    monkeypatch.setenv("SESSIONSCOPE_CACHE_DIR", str(cache))
    for argv in (["sessions"], ["read", "sess-a"], ["recent", "sess-b"], ["search", "retry"]):
        code, out, err = run(capsys, *argv, "--root", str(root))
        assert code == 0 and out, (argv, err)
        assert err.count("warning") == 1 and "working without it" in err, (argv, err)
    assert hits(capsys, root, "retry") == [("sess-a", "L2"), ("sess-b", "L2")]
    code, _out, err = run(capsys, "index", "--root", str(root))
    assert code == 2 and len(err.strip().splitlines()) == 1


def test_watch_cli_survives_a_cache_it_cannot_write(tmp_path: Path) -> None:
    """`watch` without a usable cache watches all the same (no index to keep)."""
    r = tmp_path / "root"
    session(r / "a.jsonl", "sess-a", ["hello"])
    (tmp_path / "file").write_text("x")
    env = {**os.environ, "SESSIONSCOPE_CACHE_DIR": str(tmp_path / "file" / "cache"),
           "SESSIONSCOPE_CONFIG": str(tmp_path / "none.toml")}
    proc = subprocess.Popen([sys.executable, "-m", "sessionscope", "watch", "--root", str(r), "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        first = b""
        while b"watching" not in first:
            line = proc.stderr.readline()
            assert line, first
            first += line
        assert b"working without it" in first and b"Traceback" not in first
    finally:
        proc.terminate()
        proc.wait(timeout=30)
