"""The catalog: a SQLite cache of every transcript file's fingerprint and session metadata.

Why: listing 20k sessions must not re-parse 20 GB. A file is re-read only when its fingerprint
(device, inode, size, mtime_ns, hash of the first 4 KB) changes. The catalog is a cache, never
the truth: rows are their own type with explicit converters, a schema-version mismatch or a
corrupt database is deleted and rebuilt with a message, and deleting it loses nothing.
"""
from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

import orjson

from .model import Session, SessionKind, TokenUsage, iso, parse_timestamp

SCHEMA_VERSION = 3

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (
    path TEXT PRIMARY KEY,
    dev INTEGER NOT NULL,
    ino INTEGER NOT NULL,
    size INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    head_hash TEXT NOT NULL,
    adapter TEXT,
    sessions BLOB,
    error TEXT
);
-- What the full-text index holds of each file: the fingerprint it was read under, and the offset
-- and line just after its last indexed complete line (appends resume there).
CREATE TABLE IF NOT EXISTS index_files (
    path TEXT PRIMARY KEY,
    key TEXT NOT NULL,
    offset INTEGER NOT NULL,
    line INTEGER NOT NULL
);
"""


@dataclass(frozen=True, slots=True)
class Fingerprint:
    dev: int
    ino: int
    size: int
    mtime_ns: int
    head_hash: str

    @classmethod
    def of(cls, path: str, st: os.stat_result | None = None) -> Fingerprint:
        st = st or os.stat(path)
        with open(path, "rb") as fh:
            head = fh.read(4096)
        return cls(st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, hashlib.sha1(head).hexdigest())

    def same_file(self, other: Fingerprint) -> bool:
        """Same file identity and head: unchanged, or grown by appending."""
        return (self.dev, self.ino) == (other.dev, other.ino) and (
            self.head_hash == other.head_hash or other.size < 4096
        )


@dataclass
class FileRow:
    path: str
    fingerprint: Fingerprint
    adapter: str | None
    sessions: list[Session]
    error: str | None


@dataclass(frozen=True)
class IndexState:
    path: str
    key: str
    offset: int
    line: int


class Catalog:
    """Thread-safe (one lock) access to the catalog database."""

    def __init__(self, path: str | Path | None) -> None:
        self.path = str(path) if path else ":memory:"
        self.messages: list[str] = []
        self._lock = threading.RLock()
        self._db = self._open()

    def _open(self) -> sqlite3.Connection:
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        try:
            db = self._connect()
            row = db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
            if row is None or int(row[0]) != SCHEMA_VERSION:
                if row is not None:
                    self.messages.append(
                        f"catalog schema changed ({row[0]} -> {SCHEMA_VERSION}): rebuilding {self.path}"
                    )
                db.close()
                self._delete()
                db = self._connect()
            return db
        except sqlite3.DatabaseError as exc:
            self.messages.append(f"catalog unreadable ({exc}): rebuilding {self.path}")
            self._delete()
            return self._connect()

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.executescript(_SCHEMA)
        db.execute(
            "INSERT OR IGNORE INTO meta(key, value) VALUES('schema_version', ?)", (str(SCHEMA_VERSION),)
        )
        db.execute("SELECT count(*) FROM files").fetchone()
        return db

    def _delete(self) -> None:
        if self.path == ":memory:":
            return
        for suffix in ("", "-wal", "-shm"):
            try:
                os.unlink(self.path + suffix)
            except FileNotFoundError:
                pass

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # -- rows ----------------------------------------------------------------------------
    def get(self, path: str) -> FileRow | None:
        with self._lock:
            row = self._db.execute("SELECT * FROM files WHERE path=?", (path,)).fetchone()
        return _row_to_file(row) if row else None

    def all(self) -> list[FileRow]:
        with self._lock:
            rows = self._db.execute("SELECT * FROM files").fetchall()
        return [_row_to_file(r) for r in rows]

    def put(self, row: FileRow) -> None:
        fp = row.fingerprint
        blob = orjson.dumps([session_to_dict(s) for s in row.sessions])
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO files(path, dev, ino, size, mtime_ns, head_hash, adapter,"
                " sessions, error) VALUES(?,?,?,?,?,?,?,?,?)",
                (row.path, fp.dev, fp.ino, fp.size, fp.mtime_ns, fp.head_hash, row.adapter,
                 blob, row.error),
            )

    # -- what the full-text index holds ---------------------------------------------------
    def index_states(self) -> dict[str, IndexState]:
        with self._lock:
            rows = self._db.execute("SELECT path, key, offset, line FROM index_files").fetchall()
        return {r[0]: IndexState(*r) for r in rows}

    def set_index_states(self, states: Iterable[IndexState]) -> None:
        with self._lock:
            self._db.executemany(
                "INSERT OR REPLACE INTO index_files(path, key, offset, line) VALUES(?,?,?,?)",
                [(st.path, st.key, st.offset, st.line) for st in states],
            )

    def drop_index_states(self, paths: Iterable[str] | None = None) -> None:
        with self._lock:
            if paths is None:
                self._db.execute("DELETE FROM index_files")
            else:
                self._db.executemany("DELETE FROM index_files WHERE path=?", [(p,) for p in paths])

    def remove(self, paths: Iterable[str]) -> None:
        with self._lock:
            self._db.executemany("DELETE FROM files WHERE path=?", [(p,) for p in paths])

    def transaction(self) -> _Tx:
        return _Tx(self)


class _Tx:
    def __init__(self, cat: Catalog) -> None:
        self.cat = cat

    def __enter__(self) -> Catalog:
        self.cat._lock.acquire()
        self.cat._db.execute("BEGIN")
        return self.cat

    def __exit__(self, exc_type: object, *rest: object) -> None:
        try:
            self.cat._db.execute("ROLLBACK" if exc_type else "COMMIT")
        finally:
            self.cat._lock.release()


def _row_to_file(row: tuple[Any, ...]) -> FileRow:
    (path, dev, ino, size, mtime_ns, head_hash, adapter, sessions, error) = row
    try:
        parsed = [session_from_dict(d) for d in orjson.loads(sessions)] if sessions else []
    except (orjson.JSONDecodeError, KeyError, TypeError, ValueError):
        parsed, size = [], -1  # unreadable row: force a re-read by spoiling the fingerprint
    return FileRow(
        path, Fingerprint(dev, ino, size, mtime_ns, head_hash), adapter, parsed, error
    )


# -- converters: the row format is the catalog's own, not the domain type -------------------
def session_to_dict(s: Session) -> dict[str, Any]:
    return {
        "id": s.id, "agent": s.agent, "fmt": s.source_format, "paths": list(s.paths),
        "kind": s.kind.value, "project": s.project, "title": s.title,
        "first": iso(s.first_timestamp), "last": iso(s.last_timestamp), "n": s.entry_count,
        "models": list(s.models), "branch": s.git_branch,
        "usage": [s.usage.input, s.usage.output, s.usage.cache_read, s.usage.cache_creation],
        "parent": s.parent_id, "children": list(s.child_ids), "lines": s.line_count,
        "malformed": s.malformed_count, "noise": s.noise_count, "size": s.size,
    }


def session_from_dict(d: dict[str, Any]) -> Session:
    return Session(
        id=d["id"], agent=d["agent"], source_format=d["fmt"], paths=tuple(d["paths"]),
        kind=SessionKind(d["kind"]), project=d.get("project"), title=d.get("title"),
        first_timestamp=parse_timestamp(d.get("first")), last_timestamp=parse_timestamp(d.get("last")),
        entry_count=d.get("n", 0), models=tuple(d.get("models", ())), git_branch=d.get("branch"),
        usage=TokenUsage(*d.get("usage", (0, 0, 0, 0))), parent_id=d.get("parent"),
        child_ids=tuple(d.get("children", ())), line_count=d.get("lines", 0),
        malformed_count=d.get("malformed", 0), noise_count=d.get("noise", 0), size=d.get("size", 0),
    )
