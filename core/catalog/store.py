"""The catalog: a SQLite cache of every transcript file's fingerprint and session metadata.

Why: listing 20k sessions must not re-parse 20 GB. A file is re-read only when its fingerprint
(device, inode, size, mtime_ns, hash of the first 4 KB) changes. The catalog is a cache, never
the truth: rows are their own type with explicit converters, a schema-version mismatch or a
corrupt database is deleted and rebuilt with a message, and deleting it loses nothing.
"""
from __future__ import annotations

import json
import os
import sqlite3
import threading
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, NamedTuple

from ..onuse import orjson

from ..records import record
from ..config import ZSTD_HINT, CacheError
from ..model import Session, SessionKind, TokenUsage
from .activity import ActivityRow
from .warm import SnapshotFiles

# 4: a session is a compact array with epoch-millisecond times (decoding 20k of them was most of
# the app's startup as dicts with ISO strings), and each file has its newest session's time, so
# that the newest screenful can be read first. 5: each file has where its reading stopped (the
# offset after its last complete line, and the lines fed up to it), so a file that grew is read on
# from there rather than whole. 6: each session's messages and tokens per quarter hour and model
# (the `activity` table, core/catalog/activity.py), for the usage pictures. 7: each file's sessions'
# keys (`keys`: id, kind, parent, recency, ...; core/catalog/keys.py), so that a command lists,
# links and looks sessions up without decoding every session; a schema-6 catalog is migrated in
# place (the column added, filled as rows are read), not rebuilt.
SCHEMA_VERSION = 7

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
    error TEXT,
    recency INTEGER,  -- epoch ms of the file's newest session; NULL when it has none
    read_end INTEGER NOT NULL DEFAULT -1,  -- offset after the last line read; -1: read it whole
    read_lines INTEGER NOT NULL DEFAULT 0,  -- lines fed to the parser before read_end
    keys BLOB  -- its sessions' keys (core/catalog/keys.py); NULL: not yet made (a migrated row)
);
CREATE INDEX IF NOT EXISTS files_by_recency ON files(recency, path);
-- What the full-text index holds of each file: the fingerprint it was read under, and the offset
-- and line just after its last indexed complete line (appends resume there).
CREATE TABLE IF NOT EXISTS index_files (
    path TEXT PRIMARY KEY,
    key TEXT NOT NULL,
    offset INTEGER NOT NULL,
    line INTEGER NOT NULL
);
-- The marks of the sessions the index holds of a file of many sessions (a database): the next
-- update indexes only the sessions whose marks changed. Added without a schema change.
CREATE TABLE IF NOT EXISTS index_marks (
    path TEXT PRIMARY KEY,
    marks BLOB NOT NULL
);
-- Each file's sessions' messages and tokens per quarter hour and model (core/catalog/activity.py):
-- read by the usage pictures alone, so the session list never decodes them.
CREATE TABLE IF NOT EXISTS activity (
    path TEXT NOT NULL,
    session TEXT NOT NULL,
    slot INTEGER,  -- epoch seconds // 900; NULL: no time known
    model TEXT NOT NULL,  -- '' : not known
    messages INTEGER NOT NULL,
    input INTEGER NOT NULL,
    output INTEGER NOT NULL,
    cache_read INTEGER NOT NULL,
    cache_creation INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS activity_by_path ON activity(path);
-- Where a file's session's last entries can be read from (core/catalog/tails.py): a whole read
-- of the file under the fingerprint `key` gave the same last `verified` entries of its
-- conversation (of `total`) as reading from `offset`, line `line`, to its end. (A table added
-- without a schema change: a catalog without it gets it, empty, when next opened.)
CREATE TABLE IF NOT EXISTS tails (
    path TEXT PRIMARY KEY,
    key TEXT NOT NULL,
    offset INTEGER NOT NULL,
    line INTEGER NOT NULL,
    verified INTEGER NOT NULL,
    total INTEGER NOT NULL
);
-- Where a file's session's first entries can be read from (the same, at the file's start): a
-- whole read under the fingerprint `key` gave the same first `verified` entries of its
-- conversation (of `total`) as reading its first `lines` lines, up to offset `end`, alone.
CREATE TABLE IF NOT EXISTS head_marks (
    path TEXT PRIMARY KEY,
    key TEXT NOT NULL,
    "end" INTEGER NOT NULL,
    lines INTEGER NOT NULL,
    verified INTEGER NOT NULL,
    total INTEGER NOT NULL
);
-- What reading a file on from its read_end needs of the part read (an adapter's carried state,
-- core/read/adapters/base.py `Adapter.extend`), or, at read_end -1, what reading a file of many
-- sessions again for its changed sessions needs (their marks, `Adapter.load_changed`): read only
-- for a file that changed, so the session list never reads it. Added to a catalog of this schema
-- without rebuilding it.
CREATE TABLE IF NOT EXISTS carries (
    path TEXT PRIMARY KEY,
    read_end INTEGER NOT NULL,  -- the files row's read_end it was carried to
    state BLOB NOT NULL
);
-- What the last walk found in each folder it could trust (core/read/walk.py `Listings`): a folder
-- whose stat is as it was then is not listed again.
-- Each session's id by file (what `keys` holds, indexed): one session looked up by its id or a
-- prefix, with its copies, parent and children, without reading every row (Library.lookup).
CREATE TABLE IF NOT EXISTS ids (
    id TEXT NOT NULL,
    path TEXT NOT NULL,
    kind TEXT NOT NULL,
    parent TEXT
);
CREATE INDEX IF NOT EXISTS ids_by_id ON ids(id);
CREATE INDEX IF NOT EXISTS ids_by_parent ON ids(parent);
CREATE INDEX IF NOT EXISTS ids_by_path ON ids(path);
-- The last scan of a set of roots, for the next one to see that nothing changed
-- (core/catalog/warm.py): its files and folders with their stats, and every file's keys and error.
-- Added without a schema change (a catalog without it gets it, empty).
CREATE TABLE IF NOT EXISTS scans (
    sig TEXT PRIMARY KEY,  -- warm.signature: the roots, the names looked for, the reader's ids
    paths BLOB NOT NULL,  -- the files, NUL-separated, in the scan's order
    stats BLOB NOT NULL,  -- each file's dev, ino, size, mtime_ns, ctime_ns (int64s)
    folders BLOB NOT NULL,  -- the folders walked, NUL-separated
    fstats BLOB NOT NULL,  -- each folder's dev, ino, mtime_ns, ctime_ns
    data BLOB NOT NULL,  -- JSON: the roots read, the files' errors, the head of the listing
    token TEXT NOT NULL  -- names this snapshot (what the search index was last brought up to)
);
CREATE TABLE IF NOT EXISTS folders (
    path TEXT PRIMARY KEY,
    dev INTEGER NOT NULL,
    ino INTEGER NOT NULL,
    mtime_ns INTEGER NOT NULL,
    ctime_ns INTEGER NOT NULL,
    suffixes TEXT NOT NULL,  -- the name endings looked for, NUL-separated
    entries BLOB NOT NULL  -- [[name, is_folder], ...] in the walk's order
);
-- What a command may need of a snapshot in `scans` (the same sig and token) beyond the listing's
-- head, each read only when it does: every file's sessions' keys and how the scan linked them
-- (3 MB at 20,000 files: reading and parsing them was a fifth of a warm `sessions`), and every
-- session id's part before a "/" once, sorted (a search's table prints its hits' short ids from
-- them). Added without a schema change.
CREATE TABLE IF NOT EXISTS scan_parts (
    sig TEXT PRIMARY KEY,
    token TEXT NOT NULL,
    keys BLOB NOT NULL,  -- JSON: {"keys": each file's keys, "linked": Keys.state or null}
    heads BLOB  -- the heads, NUL-separated (NULL: not kept, as when linking names projects)
);
"""
#: what `_SCHEMA` creates
_SCHEMA_NAMES = frozenset({"meta", "files", "files_by_recency", "index_files", "index_marks", "activity",
                           "activity_by_path", "tails", "head_marks", "carries", "folders", "scans", "scan_parts",
                           "ids", "ids_by_id", "ids_by_parent", "ids_by_path"})


def _schema_state(db: sqlite3.Connection) -> tuple[int | str | None, bool]:
    """The schema version the database says it has (None: none, as in a new file; a string
    when it is no number) and whether every table and index of `_SCHEMA` is there."""
    names = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'index')")}
    if "meta" not in names:
        return None, False
    row = db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
    if row is None:
        return None, False
    try:
        version: int | str = int(row[0])
    except (TypeError, ValueError):
        version = str(row[0])
    return version, _SCHEMA_NAMES <= names


def _migrate(db: sqlite3.Connection, version: int | str | None) -> bool:
    """Bring an older catalog to this schema in place where that is known how: True when done.
    6 -> 7 adds `files.keys` (NULL: made from the sessions when the row is next read, with its
    `ids`) and the `ids` and `folders` tables."""
    if version != 6:
        return False
    db.execute("BEGIN IMMEDIATE")  # (another process opening it at once waits, then sees it done)
    try:
        if _schema_state(db)[0] == SCHEMA_VERSION:
            db.execute("COMMIT")
            return True
        columns = {r[1] for r in db.execute("PRAGMA table_info(files)")}
        if "keys" not in columns:
            db.execute("ALTER TABLE files ADD COLUMN keys BLOB")
            # (until `light` has made them: `complete_keys` asks this, not every row)
            db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES('keys_missing', '1')")
        for statement in _SCHEMA[_SCHEMA.index("CREATE TABLE IF NOT EXISTS ids"):].split(";"):
            if statement.strip():  # (the tables and indexes 7 adds; one by one: a script would commit)
                db.execute(statement)
        db.execute("UPDATE meta SET value=? WHERE key='schema_version'", (str(SCHEMA_VERSION),))
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    return True


def _create(db: sqlite3.Connection) -> None:
    db.executescript(_SCHEMA)
    db.execute("INSERT OR IGNORE INTO meta(key, value) VALUES('schema_version', ?)", (str(SCHEMA_VERSION),))


@record(frozen=True, slots=True)
class Fingerprint:
    dev: int
    ino: int
    size: int
    mtime_ns: int
    head_hash: str

    @classmethod
    def of(cls, path: str, st: os.stat_result | None = None) -> Fingerprint:
        st = st or os.stat(path)
        import hashlib  # (not at import: the app's first frame never fingerprints a file)

        with open(path, "rb") as fh:
            head = fh.read(4096)
        return cls(st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, hashlib.sha1(head).hexdigest())

    @property
    def key(self) -> str:
        """The fingerprint as one string (what a stored fact about the file was made under)."""
        return f"{self.dev}:{self.ino}:{self.size}:{self.mtime_ns}:{self.head_hash}"

    def same_file(self, other: Fingerprint) -> bool:
        """Same file identity and head: unchanged, or grown by appending."""
        return (self.dev, self.ino) == (other.dev, other.ino) and (
            self.head_hash == other.head_hash or other.size < 4096
        )


@record
class FileRow:
    path: str
    fingerprint: Fingerprint
    adapter: str | None
    sessions: list[Session]
    error: str | None
    #: where the reading stopped: the offset just after the last complete line fed to the
    #: adapter, and the lines fed before it; a file that grew is read on from there (-1: whole)
    read_end: int = -1
    read_lines: int = 0
    #: its sessions' activity rows (core/catalog/activity.py): None leaves those stored as they
    #: are; `activity_added` adds these to them (lines appended) rather than replacing them
    activity: list[ActivityRow] | None = None
    activity_added: bool = False
    #: where its session's last entries can be read from, found by a whole read (stored in
    #: `tails`; None leaves what is stored, which a changed fingerprint makes void)
    tail: TailMark | None = None
    #: where its session's first entries can be read from (stored in `head_marks`; the same)
    head: HeadMark | None = None
    #: what the adapter needs to read on from `read_end` (`Adapter.extend`), or at read_end -1
    #: to read a file of many sessions again for those that changed (`Adapter.load_changed`'s
    #: marks); stored in its own table, never decoded with the row: None stores none
    carry: bytes | None = None


@record(frozen=True)
class TailMark:
    """A file's session's last `verified` conversation entries (of `total`) are those read from
    `offset` (line `line`) to the end, for the file under fingerprint `key`
    (core/catalog/tails.py)."""

    key: str
    offset: int
    line: int
    verified: int
    total: int


@record(frozen=True)
class HeadMark:
    """A file's session's first `verified` conversation entries (of `total`) are those its
    first `lines` lines give, read alone up to offset `end`, for the file under fingerprint `key`
    (core/catalog/tails.py)."""

    key: str
    end: int
    lines: int
    verified: int
    total: int


class LightRow(NamedTuple):
    """A file's row as a warm scan needs it: its fingerprint's stat part, its error and its
    sessions' keys (core/catalog/keys.py), the sessions themselves not decoded. (A tuple: 20,000
    of them are made on each call.)"""

    path: str
    dev: int
    ino: int
    size: int
    mtime_ns: int
    error: str | None
    keys: list[list[Any]]

    @property
    def fingerprint(self) -> LightRow:
        """What the scan compares with a file's stat (`files._stat_matches`): its own fields."""
        return self


def marks_of(blob: bytes | None) -> dict | None:
    """Sessions' marks as stored (`Adapter.load_changed`, a carry at read_end -1 or an index's
    marks); None: none stored, or not marks."""
    try:
        marks = orjson.loads(blob) if blob is not None else None
    except ValueError:
        return None
    return marks if type(marks) is dict else None


@record(frozen=True)
class IndexState:
    path: str
    key: str
    offset: int
    line: int
    #: the marks of the sessions indexed (`Adapter.load_changed`, a file of many sessions): what
    #: the next update compares to index only the sessions that changed (stored apart, in
    #: `index_marks`; read by `Catalog.index_marks`, never with the states)
    marks: bytes | None = None


def _write_failure(exc: sqlite3.Error) -> bool:
    """A failure of the disk or the folder (full, read-only), not of the database's contents:
    deleting the catalog would not help, and must not be done."""
    text = str(exc).lower()
    return any(w in text for w in ("full", "readonly", "read-only", "disk i/o", "unable to open"))


def _cache_error(path: str, exc: sqlite3.Error) -> CacheError:
    hint = "; free some space" if "full" in str(exc).lower() else ""
    return CacheError(f"catalog {path} cannot be written ({exc}){hint}")


class _Db:
    """The catalog's connection, whose write failures (disk full, read-only) are a CacheError:
    one line for the user, not a traceback."""

    __slots__ = ("_db", "_path")

    def __init__(self, db: sqlite3.Connection, path: str) -> None:
        self._db, self._path = db, path

    def execute(self, *args: Any) -> sqlite3.Cursor:
        try:
            return self._db.execute(*args)
        except sqlite3.OperationalError as exc:
            raise _cache_error(self._path, exc) from None

    def executemany(self, *args: Any) -> sqlite3.Cursor:
        try:
            return self._db.executemany(*args)
        except sqlite3.OperationalError as exc:
            raise _cache_error(self._path, exc) from None

    def close(self) -> None:
        self._db.close()


class Catalog:
    """Thread-safe (one lock) access to the catalog database."""

    def __init__(self, path: str | Path | None) -> None:
        self.path = str(path) if path else ":memory:"
        self.messages: list[str] = []
        self._lock = threading.RLock()
        self._db = _Db(self._open(), self.path)
        self._warm_files = None if self.path == ":memory:" else SnapshotFiles(self.path + ".warm")

    def _open(self) -> sqlite3.Connection:
        """The database, as it is when it has this schema (the common case, and at every app
        start: only reads, a fraction of a millisecond); else created, or rebuilt with a message."""
        if self.path != ":memory:":
            try:
                Path(self.path).parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise CacheError(f"catalog {self.path} cannot be created ({exc.strerror or exc})") from None
            if os.path.exists(self.path) and not os.path.isfile(self.path):
                # Not a database we could delete and rebuild: something else is in the way.
                raise CacheError(f"catalog {self.path} is not a file; move it away or set "
                                 "SESSIONSCOPE_CACHE_DIR elsewhere")
        try:
            db = self._connect()
            version, complete = _schema_state(db)
            if version is not None and version != SCHEMA_VERSION and _migrate(db, version):
                version, complete = _schema_state(db)
            if version is not None and version != SCHEMA_VERSION:
                self.messages.append(
                    f"catalog schema changed ({version} -> {SCHEMA_VERSION}): rebuilding {self.path}"
                )
                db.close()
                self._delete()
                db = self._connect()
            elif complete:
                return db
            _create(db)
            return db
        except sqlite3.DatabaseError as exc:
            if isinstance(exc, sqlite3.OperationalError) and _write_failure(exc):
                raise _cache_error(self.path, exc) from None
            self.messages.append(f"catalog unreadable ({exc}): rebuilding {self.path}")
            try:
                self._delete()
                db = self._connect()
                _create(db)
            except (OSError, sqlite3.Error) as again:
                raise CacheError(f"catalog {self.path} cannot be used ({again})") from None
            return db

    def _connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")  # (reads the header: a file that is no database fails here)
        db.execute("PRAGMA synchronous=NORMAL")
        return db

    def _delete(self) -> None:
        if self.path == ":memory:":
            return
        for suffix in ("", "-wal", "-shm"):
            try:
                os.unlink(self.path + suffix)
            except FileNotFoundError:
                pass
        SnapshotFiles(self.path + ".warm").keep(set(), grace=0)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # -- rows ----------------------------------------------------------------------------
    def get(self, path: str) -> FileRow | None:
        with self._lock:
            row = self._db.execute("SELECT * FROM files WHERE path=?", (path,)).fetchone()
        if not row:
            return None
        # (a row of one session or a few, a few hundred bytes each, by the standard library: a
        # warm `sessions` table decodes only the rows it prints, and importing orjson for them
        # was most of that work; a database's row of many sessions by orjson, ~4x faster on it)
        small = len(row[7] or b"") <= _SMALL_ROW
        return _row_to_file(row, _Decoder(json.loads) if small else None)

    def all(self) -> list[FileRow]:
        with self._lock:
            rows = self._db.execute("SELECT * FROM files").fetchall()
        decode = _Decoder()
        return [_row_to_file(r, decode) for r in rows]

    def light(self) -> dict[str, LightRow]:
        """Every file's fingerprint, error and its sessions' keys, none of its sessions decoded:
        what a warm scan compares with the files and lists from (core/catalog/keys.py). A row
        whose keys are not made yet (a migrated catalog) gets them now, once."""
        with self._lock:
            rows = self._db.execute(
                "SELECT path, dev, ino, size, mtime_ns, error, keys FROM files").fetchall()
        out: dict[str, LightRow] = {}
        missing: list[str] = []
        for path, dev, ino, size, mtime_ns, error, blob in rows:
            keys = None
            if blob is not None:
                try:
                    keys = orjson.loads(blob)
                except ValueError:
                    keys = None
            if keys is None:
                missing.append(path)
                keys = []
            if error and ZSTD_HINT in error and _zstd_installed():
                size = -1  # (as `_row_to_file`: read it again now that zstandard is there)
            out[path] = LightRow(path, dev, ino, size, mtime_ns, error, keys)
        if missing:
            self._fill_keys(missing, out)
        return out

    def _fill_keys(self, paths: list[str], out: dict[str, LightRow]) -> None:
        """Keys for rows without them (made from their sessions, and stored); a row whose
        sessions cannot be decoded is marked to be read again, as `_row_to_file` does."""
        made = []
        for path in paths:
            row = self.get(path)
            if row is None:
                out.pop(path, None)
                continue
            keys = [session_key(s, path) for s in row.sessions]
            fp = row.fingerprint
            out[path] = LightRow(path, fp.dev, fp.ino, fp.size, fp.mtime_ns, row.error, keys)
            made.append((orjson.dumps(keys), path))
        try:
            with self.transaction():
                self._db.executemany("UPDATE files SET keys=? WHERE path=?", made)
                for path in paths:
                    if path in out:
                        self._put_ids(path, out[path].keys)
                self._db.execute("DELETE FROM meta WHERE key='keys_missing'")
        except CacheError:
            pass  # (a read-only cache: made again next time)

    def _put_ids(self, path: str, keys: list[list[Any]]) -> None:
        self._db.execute("DELETE FROM ids WHERE path=?", (path,))
        self._db.executemany("INSERT INTO ids(id, path, kind, parent) VALUES(?,?,?,?)",
                             [(k[0], path, k[3], k[5]) for k in keys])

    def complete_keys(self) -> bool:
        """Whether every row has its keys and ids (a migrated catalog's get them in `light`)."""
        with self._lock:
            return self._db.execute("SELECT 1 FROM meta WHERE key='keys_missing'").fetchone() is None

    def ids_like(self, ref: str, exact: bool = False) -> list[tuple[str, str, str, str | None]]:
        """Every copy of the sessions whose id is `ref` or (not `exact`) starts with it:
        (id, path, kind, parent)."""
        with self._lock:
            if exact:
                return self._db.execute("SELECT id, path, kind, parent FROM ids WHERE id=?", (ref,)).fetchall()
            return self._db.execute(
                "SELECT id, path, kind, parent FROM ids WHERE id >= ? AND id < ? LIMIT 200",
                (ref, ref + "\U0010ffff")).fetchall()

    def child_ids_like(self, head: str, tail: str) -> list[tuple[str, str, str, str | None]]:
        """Every copy of the children `PARENT/CHILD` whose parent part starts with `head` and child
        part with `tail` (what `Library.find` tries when no id starts with the text)."""
        def esc(text: str) -> str:
            return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")

        with self._lock:
            rows = self._db.execute("SELECT id, path, kind, parent FROM ids WHERE id LIKE ? ESCAPE '\\'",
                                    (f"{esc(head)}%/{esc(tail)}%",)).fetchall()
        return [r for r in rows if (parts := r[0].partition("/"))[1] and parts[0].startswith(head)
                and parts[2].startswith(tail)]

    def kin_paths(self, ids: Iterable[str]) -> set[str]:
        """The files holding a copy of any of `ids` or a session naming one as its parent."""
        ids = list(ids)
        with self._lock:
            got = set()
            for sid in ids:
                got.update(r[0] for r in self._db.execute(
                    "SELECT path FROM ids WHERE id=? UNION SELECT path FROM ids WHERE parent=?", (sid, sid)))
        return got

    def light_of(self, paths: Iterable[str]) -> list[LightRow]:
        """`light()`'s rows of these files (those the catalog has), keys made."""
        out = []
        with self._lock:
            for path in paths:
                r = self._db.execute("SELECT path, dev, ino, size, mtime_ns, error, keys FROM files WHERE path=?",
                                     (path,)).fetchone()
                if r is None or r[6] is None:
                    continue
                try:
                    keys = orjson.loads(r[6])
                except ValueError:
                    continue
                size = -1 if r[5] and ZSTD_HINT in r[5] and _zstd_installed() else r[3]
                out.append(LightRow(r[0], r[1], r[2], size, r[4], r[5], keys))
        return out

    def warm_scan(self, sig: str, known: tuple[str, tuple[bytes, bytes, bytes, bytes]] | None = None
                  ) -> tuple[tuple[bytes, bytes, bytes, bytes, bytes], str] | None:
        """The last scan's snapshot for these roots (core/catalog/warm.py): (paths, stats,
        folders, folder stats, data) and its token. None also when its file is gone or damaged
        (`SnapshotFiles`): the scan walks, and keeps a new one. `known`: a token and the parts
        of its file, read already (`warm.Early`): not read again when the row names that token."""
        with self._lock:
            r = self._db.execute("SELECT data, token, length(paths) + length(stats) + length(folders)"
                                 " + length(fstats) FROM scans WHERE sig=?", (sig,)).fetchone()
            if r is None:
                return None
            data, token, inline = r
            if inline or self._warm_files is None:
                blobs = self._db.execute("SELECT paths, stats, folders, fstats FROM scans WHERE sig=?",
                                         (sig,)).fetchone()
                if blobs is None:
                    return None
            else:
                blobs = known[1] if known is not None and known[0] == token else self._warm_files.read(token)
                if blobs is None:
                    return None
        return (*blobs, data), token

    def warm_part(self, sig: str, token: str, part: str) -> bytes | None:
        """A part (`keys` or `heads`) kept with the snapshot `token` of these roots (None: it
        was replaced since, or the part was not kept)."""
        assert part in ("keys", "heads")
        with self._lock:
            r = self._db.execute(f"SELECT {part} FROM scan_parts WHERE sig=? AND token=?", (sig, token)).fetchone()
        return r[0] if r else None

    def set_warm_scan(self, sig: str, snap: tuple[bytes, bytes, bytes, bytes, bytes], keys: bytes,
                      heads: bytes | None, token: str) -> None:
        """Keep a scan's snapshot and its parts (a few per catalog: one per set of roots read
        lately). The snapshot's paths and stats go to a file of their own (`SnapshotFiles`) when
        the catalog is a file, its token and data to the database."""
        inline = snap[:4]
        if self._warm_files is not None:
            self._warm_files.write(token, snap[:4])
            inline = (b"", b"", b"", b"")
        with self.transaction():
            self._db.execute("INSERT OR REPLACE INTO scans(sig, paths, stats, folders, fstats, data, token)"
                             " VALUES(?,?,?,?,?,?,?)", (sig, *inline, snap[4], token))
            self._db.execute("INSERT OR REPLACE INTO scan_parts(sig, token, keys, heads) VALUES(?,?,?,?)",
                             (sig, token, keys, heads))
            self._db.execute("DELETE FROM scans WHERE rowid NOT IN (SELECT rowid FROM scans ORDER BY rowid DESC LIMIT 4)")
            self._db.execute("DELETE FROM scan_parts WHERE sig NOT IN (SELECT sig FROM scans)")
            self._keep_warm_files()

    def drop_warm_scan(self, sig: str) -> None:
        with self.transaction():
            self._db.execute("DELETE FROM scans WHERE sig=?", (sig,))
            self._db.execute("DELETE FROM scan_parts WHERE sig=?", (sig,))
            self._keep_warm_files()

    def _keep_warm_files(self) -> None:
        """(In a transaction) the snapshot files no row names any more deleted."""
        if self._warm_files is not None:
            self._warm_files.keep({r[0] for r in self._db.execute("SELECT token FROM scans")})

    def noted(self, key: str) -> str | None:
        """A value kept in `meta` (`note`)."""
        with self._lock:
            r = self._db.execute("SELECT value FROM meta WHERE key=?", ("note:" + key,)).fetchone()
        return r[0] if r else None

    def note(self, key: str, value: str | None) -> None:
        with self._lock:
            if value is None:
                self._db.execute("DELETE FROM meta WHERE key=?", ("note:" + key,))
            else:
                self._db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES(?,?)", ("note:" + key, value))

    def projects(self) -> tuple[list[int], list[str | None]]:
        """Every row's sessions' projects, from their keys (each once, none decoded here), and
        the rows they are of (`rows_stamp`), read together."""
        with self._lock:
            self._db.execute("BEGIN")
            try:
                stamp = self.rows_stamp()
                try:
                    found = [r[0] for r in self._db.execute(
                        "SELECT DISTINCT json_extract(k.value, '$[4]') FROM files, json_each(files.keys) AS k")]
                except CacheError:  # (an SQLite without JSON)
                    blobs = self._db.execute("SELECT keys FROM files WHERE keys IS NOT NULL").fetchall()
                    found = list({k[4] for (b,) in blobs for k in orjson.loads(b)})
            finally:
                self._db.execute("COMMIT")
        return stamp, found

    def rows_stamp(self) -> list[int]:
        """What changes when a row is added, replaced or removed: the rows' count and highest rowid
        (a replaced row gets a new one)."""
        with self._lock:
            n, top = self._db.execute("SELECT count(*), max(rowid) FROM files").fetchone()
        return [n, top or 0]

    def folders(self) -> dict[str, tuple[Any, ...]]:
        """The folders the last walk listed (core/read/walk.py `Listings.known`)."""
        with self._lock:
            rows = self._db.execute(
                "SELECT path, dev, ino, mtime_ns, ctime_ns, suffixes, entries FROM folders").fetchall()
        out = {}
        for path, dev, ino, mtime_ns, ctime_ns, suffixes, entries in rows:
            try:
                out[path] = (dev, ino, mtime_ns, ctime_ns, suffixes, orjson.loads(entries))
            except ValueError:
                continue  # (listed again)
        return out

    def set_folders(self, listed: dict[str, tuple[Any, ...]], gone: Iterable[str]) -> None:
        """Keep what a walk listed (`Listings.fresh`), forget the folders it found gone."""
        with self._lock:
            self._db.executemany("DELETE FROM folders WHERE path=?", [(p,) for p in gone])
            self._db.executemany(
                "INSERT OR REPLACE INTO folders(path, dev, ino, mtime_ns, ctime_ns, suffixes, entries)"
                " VALUES(?,?,?,?,?,?,?)",
                [(p, *row[:5], orjson.dumps(row[5])) for p, row in listed.items()])

    def sessions_by_file(self, page: int = 1000) -> Iterator[tuple[str, list[Session]]]:
        """Every file's path and sessions, a page of rows at a time: what reading the whole
        catalog for the session list needs, without each row's FileRow and Fingerprint or all
        the raw rows held at once (their peak was most of the memory a 20k catalog took)."""
        decode = _Decoder()
        last = 0
        while True:
            with self._lock:
                rows = self._db.execute(
                    "SELECT rowid, path, sessions FROM files WHERE rowid > ? ORDER BY rowid LIMIT ?",
                    (last, page),
                ).fetchall()
            for _, path, blob in rows:
                try:
                    yield path, decode.sessions(blob) if blob else []
                except _UNREADABLE:  # scan() reads such a file again
                    yield path, []
            if len(rows) < page:
                return
            last = rows[-1][0]

    def by_recency(self, batch: int = 100) -> Iterator[tuple[int | None, list[FileRow]]]:
        """Every row, the files with the newest sessions first (those without sessions last), a
        batch at a time with the recency (epoch ms) of its last file: no file still to come
        holds a session newer than that, so a first screen can be shown before the rest is
        read. (None: the batch is of files without sessions.)"""
        decode = _Decoder()
        # Keyset paging along the (recency, path) index rather than one long-lived cursor: the
        # lock is held for a batch at a time, and rows written meanwhile do not repeat others.
        query = "SELECT * FROM files WHERE recency IS NOT NULL ORDER BY recency DESC, path DESC LIMIT ?"
        args: tuple[Any, ...] = (batch,)
        dated = True
        while True:
            with self._lock:
                rows = self._db.execute(query, args).fetchall()
            if rows:
                yield rows[-1][9], [_row_to_file(r, decode) for r in rows]
            if len(rows) == batch:
                last = rows[-1]
                if dated:
                    query = ("SELECT * FROM files WHERE (recency, path) < (?, ?)"
                             " ORDER BY recency DESC, path DESC LIMIT ?")
                    args = (last[9], last[0], batch)
                else:
                    args = (last[0], batch)
            elif dated:  # then the files without sessions
                dated = False
                query = "SELECT * FROM files WHERE recency IS NULL AND path > ? ORDER BY path LIMIT ?"
                args = ("", batch)
            else:
                return

    def put(self, row: FileRow) -> None:
        fp = row.fingerprint
        blob = orjson.dumps([session_to_row(s) for s in row.sessions])
        made = [session_key(s, row.path) for s in row.sessions]
        keys = orjson.dumps(made)
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO files(path, dev, ino, size, mtime_ns, head_hash, adapter,"
                " sessions, error, recency, read_end, read_lines, keys) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (row.path, fp.dev, fp.ino, fp.size, fp.mtime_ns, fp.head_hash, row.adapter,
                 blob, row.error, file_recency(row.sessions), row.read_end, row.read_lines, keys),
            )
            self.put_marks(row.path, row.tail, row.head, add_none=False)
            if row.carry is not None:
                self._db.execute("INSERT OR REPLACE INTO carries(path, read_end, state) VALUES(?,?,?)",
                                 (row.path, row.read_end, row.carry))
            else:  # (none carried this time: one of an earlier reading must not serve)
                self._db.execute("DELETE FROM carries WHERE path=?", (row.path,))
            self._put_ids(row.path, made)
            if row.activity is not None:
                if not row.activity_added:
                    self._db.execute("DELETE FROM activity WHERE path=?", (row.path,))
                self._db.executemany(
                    "INSERT INTO activity(path, session, slot, model, messages, input, output,"
                    " cache_read, cache_creation) VALUES(?,?,?,?,?,?,?,?,?)",
                    [(row.path, *a) for a in row.activity],
                )

    def tail(self, path: str) -> TailMark | None:
        """Where the last entries of the file's session can be read from, as last found (its
        `key` says under which fingerprint)."""
        with self._lock:
            r = self._db.execute("SELECT key, offset, line, verified, total FROM tails WHERE path=?",
                                 (path,)).fetchone()
        return TailMark(*r) if r else None

    def put_marks(self, path: str, tail: TailMark | None, head: HeadMark | None, *,
                  add_none: bool = True) -> None:
        """Store where the file's session's last and first entries can be read from (found by a
        whole reading, the scan's or `read`'s, core/catalog/window.py); None leaves what is
        stored. A mark of none found (`verified` 0) replaces a stored one, and is added only
        with `add_none` (the scan's whole reading of each file adds none: it only makes sure
        that no mark of an earlier reading stays). The file's row is not touched."""
        with self._lock:
            for table, mark, at, lines in (("tails", tail, "offset", "line"), ("head_marks", head, "end", "lines")):
                if mark is None:
                    continue
                values = (mark.key, getattr(mark, at), getattr(mark, lines), mark.verified, mark.total)
                if mark.verified > 0 or add_none:  # (a column quoted: "end" is a keyword)
                    self._db.execute(f'INSERT OR REPLACE INTO {table}(path, key, "{at}", {lines}, verified, total)'
                                     " VALUES(?,?,?,?,?,?)", (path, *values))
                else:  # (over a stored row only)
                    self._db.execute(f'UPDATE {table} SET key=?, "{at}"=?, {lines}=?, verified=?, total=?'
                                     " WHERE path=?", (*values, path))

    def head(self, path: str) -> HeadMark | None:
        """Where the first entries of the file's session can be read from, as last found (its
        `key` says under which fingerprint)."""
        with self._lock:
            r = self._db.execute('SELECT key, "end", lines, verified, total FROM head_marks WHERE path=?',
                                 (path,)).fetchone()
        return HeadMark(*r) if r else None

    def carried(self, path: str, read_end: int) -> bytes | None:
        """What was carried for reading `path` on from `read_end` (None: nothing, or carried to
        another end)."""
        with self._lock:
            r = self._db.execute("SELECT state FROM carries WHERE path=? AND read_end=?",
                                 (path, read_end)).fetchone()
        return r[0] if r else None

    def file_activity(self, path: str) -> list[tuple[str, int | None, str, int, int, int, int, int]]:
        """The activity rows of one file, as stored (`FileRow.activity`)."""
        with self._lock:
            return self._db.execute(
                "SELECT session, slot, model, messages, input, output, cache_read, cache_creation FROM activity"
                " WHERE path=?", (path,)).fetchall()

    def activity(self) -> list[tuple[str, int | None, str, int, int, int, int, int]]:
        """Every activity row, summed per session, slot and model: `(session_id, slot, model,
        messages, input, output, cache_read, cache_creation)`."""
        with self._lock:
            return self._db.execute(
                "SELECT session, slot, model, SUM(messages), SUM(input), SUM(output), SUM(cache_read),"
                " SUM(cache_creation) FROM activity GROUP BY session, slot, model"
            ).fetchall()

    # -- what the full-text index holds ---------------------------------------------------
    def index_states(self) -> dict[str, IndexState]:
        with self._lock:
            rows = self._db.execute("SELECT path, key, offset, line FROM index_files").fetchall()
        return {r[0]: IndexState(*r) for r in rows}

    def index_state(self, path: str) -> IndexState | None:
        """One file's index state (a live update looks at the files that changed, not all)."""
        with self._lock:
            r = self._db.execute("SELECT path, key, offset, line FROM index_files WHERE path=?",
                                 (path,)).fetchone()
        return IndexState(*r) if r else None

    def set_index_states(self, states: Iterable[IndexState]) -> None:
        states = list(states)
        with self._lock:
            self._db.executemany(
                "INSERT OR REPLACE INTO index_files(path, key, offset, line) VALUES(?,?,?,?)",
                [(st.path, st.key, st.offset, st.line) for st in states],
            )
            self._db.executemany("DELETE FROM index_marks WHERE path=?",
                                 [(st.path,) for st in states if st.marks is None])
            self._db.executemany("INSERT OR REPLACE INTO index_marks(path, marks) VALUES(?,?)",
                                 [(st.path, st.marks) for st in states if st.marks is not None])

    def index_marks(self, path: str) -> bytes | None:
        """The marks of the sessions of `path` the index holds (`IndexState.marks`)."""
        with self._lock:
            r = self._db.execute("SELECT marks FROM index_marks WHERE path=?", (path,)).fetchone()
        return r[0] if r else None

    def drop_index_states(self, paths: Iterable[str] | None = None) -> None:
        with self._lock:
            if paths is None:
                self._db.execute("DELETE FROM index_files")
                self._db.execute("DELETE FROM index_marks")
            else:
                self._db.executemany("DELETE FROM index_files WHERE path=?", [(p,) for p in paths])
                self._db.executemany("DELETE FROM index_marks WHERE path=?", [(p,) for p in paths])

    def remove(self, paths: Iterable[str]) -> None:
        paths = [(p,) for p in paths]
        with self._lock:
            self._db.executemany("DELETE FROM files WHERE path=?", paths)
            self._db.executemany("DELETE FROM activity WHERE path=?", paths)
            self._db.executemany("DELETE FROM tails WHERE path=?", paths)
            self._db.executemany("DELETE FROM head_marks WHERE path=?", paths)
            self._db.executemany("DELETE FROM carries WHERE path=?", paths)
            self._db.executemany("DELETE FROM ids WHERE path=?", paths)

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
        except CacheError:
            if not exc_type:  # the commit failed (disk full): leave no transaction open
                try:
                    self.cat._db.execute("ROLLBACK")
                except CacheError:
                    pass
            raise
        finally:
            self.cat._lock.release()


def _row_to_file(row: tuple[Any, ...], decode: _Decoder | None = None) -> FileRow:
    """A `SELECT *` row of `files` as a FileRow."""
    (path, dev, ino, size, mtime_ns, head_hash, adapter, sessions, error) = row[:9]
    try:
        parsed = (decode or _Decoder()).sessions(sessions) if sessions else []
    except _UNREADABLE:
        parsed, size = [], -1  # unreadable row: force a re-read by spoiling the fingerprint
    if error and ZSTD_HINT in error and _zstd_installed():
        size = -1  # not read for want of zstandard, which is there now: read it again
    read_end, read_lines = row[10:12] if len(row) >= 12 else (-1, 0)
    return FileRow(
        path, Fingerprint(dev, ino, size, mtime_ns, head_hash), adapter, parsed, error,
        read_end if size >= 0 else -1, read_lines,
    )


def _zstd_installed() -> bool:
    try:
        import zstandard  # noqa: F401 - only whether it imports
    except ImportError:
        return False
    return True


# -- converters: the row format is the catalog's own, not the domain type -------------------
#
# A session is an array, in this order (times in epoch milliseconds, as the ISO strings of
# schema 3 held them: to the millisecond, UTC):
#   id, agent, format, paths, kind, project, title, first, last, entries, models, branch,
#   [input, output, cache_read, cache_creation], parent, children, lines, malformed, noise, size

_SMALL_ROW = 16_384  # bytes of a row's sessions that `Catalog.get` decodes with the standard library
_UNREADABLE = (KeyError, TypeError, ValueError, OverflowError, RecursionError)  # (JSONDecodeError: a ValueError)
_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_MS = timedelta(milliseconds=1)
_KINDS = {k.value: k for k in SessionKind}


def epoch_ms(ts: datetime | None) -> int | None:
    """A time as whole epoch milliseconds (truncated, as `iso` does); naive means local time."""
    if ts is None:
        return None
    if ts.tzinfo is None:
        ts = ts.astimezone(timezone.utc)
    return (ts - _EPOCH) // _MS


def file_recency(sessions: Iterable[Session]) -> int | None:
    """What `files.recency` holds: the newest of the sessions' last (else first) times."""
    newest = None
    for s in sessions:
        ms = epoch_ms(s.last_timestamp or s.first_timestamp)
        if ms is not None and (newest is None or ms > newest):
            newest = ms
    return newest


def session_key(s: Session, path: str) -> list[Any]:
    """What listing, linking and looking a session of the file `path` up need of it (the `keys`
    column; the fields in core/catalog/keys.py's order): [id, agent, format, kind, project,
    parent, recency (epoch ms of the last, else first time; None: none), size, first path (None:
    `path`, as it nearly always is: half the bytes of the column otherwise)]."""
    first = s.paths[0] if s.paths else ""
    return [s.id, s.agent, s.source_format, s.kind.value, s.project, s.parent_id,
            epoch_ms(s.last_timestamp or s.first_timestamp), s.size, None if first == path else first]


def session_to_row(s: Session) -> list[Any]:
    u = s.usage
    return [
        s.id, s.agent, s.source_format, list(s.paths), s.kind.value, s.project, s.title,
        epoch_ms(s.first_timestamp), epoch_ms(s.last_timestamp), s.entry_count, list(s.models),
        s.git_branch, [u.input, u.output, u.cache_read, u.cache_creation], s.parent_id,
        list(s.child_ids), s.line_count, s.malformed_count, s.noise_count, s.size,
    ]


class _Decoder:
    """Rows to Sessions. Strings that repeat across sessions (agent, format, project, branch,
    model) are shared rather than one copy per session: 20k sessions hold a few hundred."""

    def __init__(self, loads: Callable[[bytes], Any] | None = None) -> None:
        self._strings: dict[str, str] = {}
        self._loads = loads  # (None: orjson's)

    def sessions(self, blob: bytes) -> list[Session]:
        return [self.session(r) for r in (self._loads or orjson.loads)(blob)]

    def session(self, r: list[Any]) -> Session:
        (sid, agent, fmt, paths, kind, project, title, first, last, n, models, branch, usage,
         parent, children, lines, malformed, noise, size) = r
        share = self._strings.setdefault
        return Session(
            sid, share(agent, agent), share(fmt, fmt), tuple(paths), _KINDS[kind],
            None if project is None else share(project, project), title,
            None if first is None else _EPOCH + timedelta(milliseconds=first),
            None if last is None else _EPOCH + timedelta(milliseconds=last),
            n, tuple(share(m, m) for m in models) if models else (),
            None if branch is None else share(branch, branch), TokenUsage(*usage), parent,
            tuple(children) if children else (), lines, malformed, noise, size,
        )


def session_from_row(r: list[Any]) -> Session:
    return _Decoder().session(r)
