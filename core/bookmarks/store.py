"""The bookmark store: one SQLite file in sessionscope's data folder.

    <data dir>/bookmarks.sqlite        (the demo corpus's: <data dir>/demo-bookmarks.sqlite)

One row per bookmark; `key` (agent, session id and the entry's anchor) is unique, so the same
entry is bookmarked once and an import never duplicates one. Every string of a bookmark but the
note is transcript text and is masked for secrets before it is written (the note is the user's
own). Opened per use with a busy timeout: the app and a command may use it at the same time.
"""
from __future__ import annotations

import sqlite3
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, TypeVar

from ..config import bookmarks_file
from ..model import iso, parse_timestamp

SCHEMA = 1
#: characters of the entry's text kept with the bookmark (shown when the entry is gone)
EXCERPT_CHARS = 600
#: the longest note kept
NOTE_CHARS = 4000

_COLUMNS = ("key", "agent", "session_id", "path", "project", "title", "entry_id", "line", "hash", "role",
            "kind", "entry_time", "excerpt", "note", "created_at", "updated_at")


def store_path(demo: bool = False) -> Path:
    return bookmarks_file(demo)


@dataclass(frozen=True)
class Bookmark:
    """A bookmark on a session (`entry_id` None) or on one of its entries."""

    agent: str
    session_id: str
    path: str
    project: str | None = None
    title: str | None = None  # the session's title when bookmarked
    entry_id: str | None = None
    line: int | None = None  # the entry's line in its file (1-based)
    hash: str | None = None  # a short hash of the entry's role, kind and text (anchor.content_hash)
    role: str | None = None
    kind: str | None = None
    entry_time: datetime | None = None
    excerpt: str = ""  # the entry's text (the start of it), masked
    note: str = ""
    created_at: datetime | None = None
    updated_at: datetime | None = None
    id: int | None = None  # the row's id in the store

    @property
    def on_entry(self) -> bool:
        return self.entry_id is not None

    @property
    def key(self) -> str:
        """What makes two bookmarks the same: the session and the entry's anchor."""
        from .anchor import entry_key

        head = f"{self.agent}:{self.session_id}"
        return f"{head}#{entry_key(self.entry_id, self.line, self.hash)}" if self.on_entry else head

    @property
    def ref(self) -> str:
        """`sessionscope read` opens this as printed (AGENT:SESSION#ENTRY)."""
        return f"{self.agent}:{self.session_id}" + (f"#{self.entry_id}" if self.entry_id else "")

    def to_dict(self) -> dict[str, Any]:
        entry = None
        if self.on_entry:
            entry = {"entry_id": self.entry_id, "line": self.line, "hash": self.hash, "role": self.role,
                     "kind": self.kind, "timestamp": iso(self.entry_time), "text": self.excerpt}
        return {"agent_id": self.agent, "session_id": self.session_id, "path": self.path,
                "project": self.project, "session_title": self.title, "entry": entry, "note": self.note,
                "created_at": iso(self.created_at), "updated_at": iso(self.updated_at)}


def masked(b: Bookmark) -> Bookmark:
    """The bookmark with its transcript text masked (the note is the user's and kept)."""
    from ..secrets import mask_text

    def m(s: str | None) -> str | None:
        return mask_text(s) if s else s

    return replace(b, title=m(b.title), excerpt=mask_text(b.excerpt[:EXCERPT_CHARS * 2])[:EXCERPT_CHARS],
                   project=b.project, note=b.note[:NOTE_CHARS])


def from_dict(data: Any) -> Bookmark:
    """A bookmark from its `to_dict` form (an exported file); ValueError saying what is wrong."""
    if not isinstance(data, dict):
        raise ValueError("a bookmark is not a JSON object")

    def text(obj: dict[str, Any], name: str, *, required: bool = False) -> str | None:
        value = obj.get(name)
        if value is None and not required:
            return None
        if not isinstance(value, str) or (required and not value):
            raise ValueError(f"{name!r} is {'missing' if value is None else 'not a string'}")
        return value

    entry = data.get("entry")
    if entry is not None and not isinstance(entry, dict):
        raise ValueError("'entry' is not an object")
    line = entry.get("line") if entry else None
    if line is not None and (not isinstance(line, int) or isinstance(line, bool) or line < 1):
        raise ValueError("'line' is not a line number")
    return Bookmark(
        agent=text(data, "agent_id", required=True) or "",
        session_id=text(data, "session_id", required=True) or "",
        path=text(data, "path") or "",
        project=text(data, "project"),
        title=text(data, "session_title"),
        entry_id=text(entry, "entry_id", required=True) if entry else None,
        line=line,
        hash=text(entry, "hash") if entry else None,
        role=text(entry, "role") if entry else None,
        kind=text(entry, "kind") if entry else None,
        entry_time=parse_timestamp(entry.get("timestamp")) if entry else None,
        excerpt=(text(entry, "text") or "") if entry else "",
        note=text(data, "note") or "",
        created_at=parse_timestamp(data.get("created_at")),
        updated_at=parse_timestamp(data.get("updated_at")),
    )


class StoreError(Exception):
    """The bookmarks file cannot be read or written: one line for the user."""


T = TypeVar("T")


def _guarded(method: Callable[..., T]) -> Callable[..., T]:
    """SQLite and file errors as StoreError naming the file (a damaged or unwritable store)."""
    def run(self: BookmarkStore, *args: Any, **kwargs: Any) -> T:
        try:
            return method(self, *args, **kwargs)
        except sqlite3.Error as exc:
            raise StoreError(f"bookmarks file {self.path} cannot be used: {exc}") from None
        except OSError as exc:
            raise StoreError(f"bookmarks file {self.path} cannot be used: {exc.strerror or exc}") from None

    run.__doc__ = method.__doc__
    return run


class BookmarkStore:
    """The bookmarks in one SQLite file (created with its folder on first write)."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or store_path()

    def _connect(self, write: bool) -> sqlite3.Connection | None:
        if not write and not self.path.exists():
            return None
        if write:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(self.path, timeout=10, isolation_level=None)
        try:
            db.execute("PRAGMA busy_timeout = 10000")
            if db.execute("PRAGMA user_version").fetchone()[0] < SCHEMA:
                if not write and not db.execute(
                        "SELECT 1 FROM sqlite_master WHERE name = 'bookmarks'").fetchone():
                    db.close()
                    return None
                db.execute("""CREATE TABLE IF NOT EXISTS bookmarks (
                    id INTEGER PRIMARY KEY, key TEXT NOT NULL UNIQUE, agent TEXT NOT NULL,
                    session_id TEXT NOT NULL, path TEXT NOT NULL, project TEXT, title TEXT,
                    entry_id TEXT, line INTEGER, hash TEXT, role TEXT, kind TEXT, entry_time TEXT,
                    excerpt TEXT NOT NULL DEFAULT '', note TEXT NOT NULL DEFAULT '',
                    created_at TEXT NOT NULL, updated_at TEXT NOT NULL)""")
                db.execute("CREATE INDEX IF NOT EXISTS bookmarks_session ON bookmarks (agent, session_id)")
                db.execute(f"PRAGMA user_version = {SCHEMA}")
        except sqlite3.DatabaseError:
            db.close()
            raise
        return db

    def _rows(self, sql: str, params: tuple[Any, ...] = ()) -> list[Bookmark]:
        db = self._connect(False)
        if db is None:
            return []
        try:
            return [_bookmark(row) for row in db.execute(sql, params)]
        finally:
            db.close()

    @_guarded
    def all(self) -> list[Bookmark]:
        """Every bookmark, newest first."""
        return self._rows(f"SELECT id, {', '.join(_COLUMNS)} FROM bookmarks ORDER BY created_at DESC, id DESC")

    @_guarded
    def of_session(self, agent: str, session_id: str) -> list[Bookmark]:
        return self._rows(f"SELECT id, {', '.join(_COLUMNS)} FROM bookmarks WHERE agent = ? AND session_id = ? "
                          "ORDER BY created_at DESC, id DESC", (agent, session_id))

    @_guarded
    def get(self, bookmark_id: int) -> Bookmark | None:
        found = self._rows(f"SELECT id, {', '.join(_COLUMNS)} FROM bookmarks WHERE id = ?", (bookmark_id,))
        return found[0] if found else None

    @_guarded
    def add(self, bookmark: Bookmark, *, now: datetime | None = None) -> Bookmark:
        """Keep the bookmark (masked); the same entry bookmarked again gets the new note."""
        when = now or datetime.now(timezone.utc)
        b = masked(replace(bookmark, created_at=bookmark.created_at or when, updated_at=when))
        with self._transaction() as db:
            row = db.execute("SELECT id FROM bookmarks WHERE key = ?", (b.key,)).fetchone()
            if row is not None:
                db.execute("UPDATE bookmarks SET note = ?, updated_at = ? WHERE id = ?",
                           (b.note, iso(when), row[0]))
                bookmark_id = row[0]
            else:
                bookmark_id = db.execute(
                    f"INSERT INTO bookmarks ({', '.join(_COLUMNS)}) VALUES ({', '.join('?' * len(_COLUMNS))})",
                    _values(b)).lastrowid
        return replace(b, id=bookmark_id)

    @_guarded
    def set_note(self, bookmark_id: int, note: str, *, now: datetime | None = None) -> bool:
        with self._transaction() as db:
            cur = db.execute("UPDATE bookmarks SET note = ?, updated_at = ? WHERE id = ?",
                             (note[:NOTE_CHARS], iso(now or datetime.now(timezone.utc)), bookmark_id))
        return cur.rowcount > 0

    @_guarded
    def remove(self, bookmark_id: int) -> bool:
        with self._transaction() as db:
            cur = db.execute("DELETE FROM bookmarks WHERE id = ?", (bookmark_id,))
        return cur.rowcount > 0

    @_guarded
    def merge(self, bookmarks: list[Bookmark]) -> tuple[int, int]:
        """Add those not kept yet (by key), in one transaction: (added, already kept)."""
        added = kept = 0
        with self._transaction() as db:
            for b in bookmarks:
                b = masked(b)
                if db.execute("SELECT 1 FROM bookmarks WHERE key = ?", (b.key,)).fetchone():
                    kept += 1
                    continue
                when = datetime.now(timezone.utc)
                b = replace(b, created_at=b.created_at or when, updated_at=b.updated_at or b.created_at or when)
                db.execute(f"INSERT INTO bookmarks ({', '.join(_COLUMNS)}) VALUES ({', '.join('?' * len(_COLUMNS))})",
                           _values(b))
                added += 1
        return added, kept

    def _transaction(self) -> _Transaction:
        return _Transaction(self)


class _Transaction:
    def __init__(self, store: BookmarkStore) -> None:
        self.store = store
        self.db: sqlite3.Connection | None = None

    def __enter__(self) -> sqlite3.Connection:
        db = self.store._connect(True)
        assert db is not None
        db.execute("BEGIN IMMEDIATE")
        self.db = db
        return db

    def __exit__(self, kind: Any, exc: Any, tb: Any) -> None:
        assert self.db is not None
        try:
            self.db.execute("ROLLBACK" if kind else "COMMIT")
        finally:
            self.db.close()


def _values(b: Bookmark) -> tuple[Any, ...]:
    return (b.key, b.agent, b.session_id, b.path, b.project, b.title, b.entry_id, b.line, b.hash, b.role,
            b.kind, iso(b.entry_time), b.excerpt, b.note, iso(b.created_at), iso(b.updated_at))


def _bookmark(row: tuple[Any, ...]) -> Bookmark:
    (bid, _key, agent, session_id, path, project, title, entry_id, line, hash_, role, kind, entry_time, excerpt,
     note, created, updated) = row
    return Bookmark(agent=agent, session_id=session_id, path=path, project=project, title=title,
                    entry_id=entry_id, line=line, hash=hash_, role=role, kind=kind,
                    entry_time=parse_timestamp(entry_time), excerpt=excerpt or "", note=note or "",
                    created_at=parse_timestamp(created), updated_at=parse_timestamp(updated), id=bid)

