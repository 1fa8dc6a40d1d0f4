"""OpenCode sessions: the JSON storage tree (`~/.local/share/opencode/storage/`, before v1.2) and
the SQLite database that replaced it (`~/.local/share/opencode/opencode.db`, v1.2 on).

Why: an OpenCode session is not one file. The tree keeps a session's metadata, each message and
each part of a message in files of their own; the database keeps them as rows. Both are fitted to
the one-file interface here:
  * tree: the session's JSON (`storage/session/<projectID>/ses_<id>.json`) is the session's path;
    its messages are read beside it from `storage/message/<sessionID>/msg_*.json` and their parts
    from `storage/part/<messageID>/prt_*.json` (the older layout, `storage/session/info/ses_*.json`
    with `session/message/<sessionID>/` and `session/part/<sessionID>/<messageID>/`, too). Each
    entry's locator is the message or part file it comes from (offset 0: the file is one record).
    The session's JSON is rewritten as the session goes on (its `time.updated`), which is what a
    listing and the watcher see change; a message file written without touching it is read
    with the next change of the session's JSON.
  * database: the file is a root whose sessions are the `session` rows; `load` gives one session
    per row, `load_session` reads one. It is opened read-only (`mode=ro`: never created, locked
    for writing or written; OpenCode's WAL is read as it stands) and closed after each read.
    An entry's locator is the database with `offset` = rowid * 2 (+1 for a `message` row, else a
    `part` row) and `line` = the record's place in the session; `db_record` reads it back.
Both are rewritten in place (`appends` is False): any change re-reads the session whole. A
changed database is read again only for the sessions that changed (`load_changed`: each session's
mark is its row and, of its messages and of its parts, the count, the latest `time_updated`, the
highest rowid and the bytes of `data`, all read in one snapshot with the sessions read): OpenCode
writes it on every streamed part, and reading 1,000 sessions again at each write took seconds.
The catalog (core/catalog/library.py) and the search index (core/search/ingest.py) each keep the
marks of what they hold.

Records (OpenCode `packages/opencode/src/session/message-v2.ts`, `storage/json-migration.ts`,
FORMATS.md §5): a session `{id, projectID, directory, parentID?, title, version, time: {created,
updated}}` (a `parentID` makes it a subagent run of that session; the database's `session` row has
the same as columns: `parent_id`, `directory`, `title`, `time_created`, ...); a message `{id,
sessionID, role, time: {created, completed?}, modelID?, providerID?, model?: {modelID}, tokens?:
{input, output, reasoning, cache: {read, write}}, error?, summary?}`; a part `{id, messageID,
sessionID, type, ...}` (in the database the ids are columns and the rest is the JSON `data`).
Times are epoch milliseconds. Messages are ordered by creation time then id, parts by id (ids are
time-sortable).

Rules:
  * the session record and each message record are noise (a message's `error` is a SYSTEM entry);
    tokens are the sum of the assistant messages' (output includes reasoning);
  * parts: `text` (a `synthetic` one is META; in a compaction `summary` message it is the
    COMPACTION), `reasoning` (THINKING), `tool` (a TOOL_USE of `tool` with `state.input`, and once
    `state.status` is completed or error, its TOOL_RESULT: `state.output` / `state.error`), `file`
    (META naming the file), `subtask` (META: the prompt handed to a subagent), `compaction`
    (COMPACTION), `retry` (SYSTEM); `step-start`, `step-finish`, `snapshot`, `patch` and `agent` are
    noise; any other type is kept as unknown;
  * entry ids are the part's id (`id.1` for a tool's result), a message's for its error;
  * accounting counts records (the session, each message and each part): a file or row that is
    not a JSON object is malformed.
"""
from __future__ import annotations

import os
import re
import sqlite3
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator

import orjson

from ..jsonl import HeadTail, ParsedLine, RawLine, RecordFile, ReaderError, parse_line, reader_error
from ...model import Entry, EntryKind, Locator, Role, Session, SessionKind, parse_timestamp, truncate
from ..ends import Ends, QuickMeta
from .base import Adapter, Changed, LoadedSession, walk_files
from .collect import CollectingParser, s

SQLITE_MAGIC = b"SQLite format 3\x00"
_SESSION_HEAD = re.compile(rb'^\s*\{\s*"id"\s*:\s*"ses_')
_TABLES = frozenset({"session", "message", "part"})
_STORAGE_SESSION = f"{os.sep}storage{os.sep}session{os.sep}"
_DB_NAME = f"{os.sep}opencode.db"
_NOISE_PARTS = frozenset({"step-start", "step-finish", "snapshot", "patch", "agent"})


def is_database(path: str) -> bool:
    """Whether `path` is an SQLite database (its first bytes); False when it cannot be read."""
    try:
        with open(path, "rb") as fh:
            return fh.read(16) == SQLITE_MAGIC
    except OSError:
        return False


def connect(path: str) -> sqlite3.Connection:
    """A read-only connection (`mode=ro`): the database is never created, written or locked for
    writing; ReaderError when it cannot be opened.

    Without a `-wal` file beside it (OpenCode is not running: everything is in the file) it is
    also opened `immutable`: a read-only connection to a WAL database would otherwise create
    `-wal` and `-shm` files in OpenCode's folder. With one, OpenCode's WAL is read as SQLite
    reads it for any reader (which takes its shared read lock in `-shm`)."""
    live = os.path.exists(path + "-wal")
    uri = Path(os.path.abspath(path)).as_uri() + ("?mode=ro" if live else "?mode=ro&immutable=1")
    try:
        con = sqlite3.connect(uri, uri=True, timeout=2.0, check_same_thread=False)
        con.row_factory = sqlite3.Row
        con.execute("PRAGMA query_only = 1")
        return con
    except sqlite3.Error as exc:
        raise ReaderError(f"cannot open database {path}: {exc}") from exc


def _tables(con: sqlite3.Connection) -> set[str]:
    return {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}


def db_record(locator: Locator) -> Any:
    """The row a database locator points at, as JSON (its `data` parsed), or None."""
    table = "message" if locator.offset % 2 else "part"
    try:
        con = connect(locator.path)
        try:
            row = con.execute(f"SELECT * FROM {table} WHERE rowid = ?", (locator.offset // 2,)).fetchone()
        finally:
            con.close()
    except (ReaderError, sqlite3.Error):
        return None
    if row is None:
        return None
    out = dict(row)
    try:
        out["data"] = orjson.loads(out.get("data") or b"")
    except (orjson.JSONDecodeError, TypeError):
        pass
    return out


class OpenCodeAdapter(Adapter):
    name = "opencode"
    agent = "opencode"
    suffixes = (".json", ".db")
    appends = False

    def accepts_name(self, path: str) -> bool:
        return path.endswith(".db") or (path.endswith(".json") and os.path.basename(path).startswith("ses_"))

    def likely(self, path: str) -> bool:
        """`storage/session/<project or info>/ses_*.json` of the JSON tree, or an `opencode.db`
        (the registry then sniffs it as OpenCode's first; other `.json` readers after)."""
        if path.endswith(".json"):
            return _STORAGE_SESSION in path and path[path.rfind(os.sep) + 1:].startswith("ses_")
        return path.endswith(_DB_NAME)

    def sniff(self, path: str, head: bytes) -> bool:
        if path.endswith(".db"):
            if not head.startswith(SQLITE_MAGIC):
                return False
            try:
                con = connect(path)
                try:
                    return _TABLES <= _tables(con)
                finally:
                    con.close()
            except (ReaderError, sqlite3.Error):
                return False
        return bool(_SESSION_HEAD.match(head[3:] if head.startswith(b"\xef\xbb\xbf") else head))

    def parser(self, path: str) -> OpenCodeParser:
        return OpenCodeParser(path)

    def discover(self, root: str) -> Iterator[str]:
        for path in walk_files(root, self.suffixes):
            if self.accepts_name(path):
                yield path

    def load(self, path: str, record_file: RecordFile | None = None) -> list[LoadedSession]:
        if path.endswith(".db"):
            return _load_db(self, path)
        return [_load_tree(self, path)]

    def load_session(self, path: str, session_id: str) -> list[LoadedSession]:
        if path.endswith(".db"):
            return _load_db(self, path, session_id)
        return self.load(path)

    def load_changed(self, path: str, marks: dict | None) -> Changed | None:
        return _changed_db(self, path, marks) if path.endswith(".db") else None

    def quick(self, ends: Ends) -> QuickMeta:
        """Tree: the session's JSON says id, kind, project, title and start; the last time is in
        its messages (unsure). Database: its most recently updated session (one row per file)."""
        if ends.path.endswith(".db"):
            s_ = _quick_db(self, ends.path)
            if s_ is None:
                return ends.meta(self, error="no session in the database")
            return ends.meta(self, (), session_id=s_.id, kind=s_.kind, project=s_.project, title=s_.title,
                             first_timestamp=s_.first_timestamp, last_timestamp=s_.last_timestamp)
        parsed = parse_line(RawLine(0, 1, ends.head.buf)) if ends.whole else None
        value = parsed.values[0] if parsed is not None and len(parsed.values) == 1 else None
        if type(value) is dict and _session_json(value):
            return self._quick_session(ends.path, ends.size, ends.mtime, value)
        parser = self.parser(ends.path)
        parser.feed(parsed or ParsedLine(RawLine(0, 1, b""), (), "cut"))
        if parser.session_id is None:
            return ends.meta(self)
        s_ = parser.session()
        return ends.meta(self, ("last_timestamp",), session_id=s_.id, kind=s_.kind, project=s_.project,
                         title=s_.title, first_timestamp=s_.first_timestamp, last_timestamp=s_.last_timestamp)

    def quick_lane(self, path: str, ht: HeadTail, nbytes: int, narrow: bool) -> QuickMeta | None:
        """`quick`'s answer for the usual session JSON of the tree (a file read whole, whose
        first three lines the sniffer takes, one JSON object that is a session's), from the
        buffer straight; None for any other file (the listing then reads it as it does every
        format)."""
        head = ht.head
        if ht.tail is not head or not path.endswith(".json"):
            return None  # (a database, or a document too big to read whole: the general way)
        m = _SESSION_HEAD.match(head)
        if m is None:
            return None  # (`sniff` says no, or sees a BOM: the general way)
        # The sniffer sees the first three lines (to the end of the third, past its newline)
        # when they end inside the window, else the window (core/read/listing.py `_quick`):
        # the match must end inside what it sees.
        e1 = head.find(b"\n")
        e2 = head.find(b"\n", e1 + 1) if e1 >= 0 else -1
        if e2 >= 0:
            e3 = head.find(b"\n", e2 + 1)
            cut = (e3 if e3 >= 0 else len(head)) + 1
            seen = cut if cut < nbytes else nbytes
        else:
            seen = nbytes
        if m.end() > seen:
            return None
        try:
            # (a document orjson reads has no NUL nor anything `parse_line` cleans that would
            # change its value: its one value is `parse_line`'s)
            value = _loads(head)
        except _DecodeError:
            return None
        if type(value) is not dict or not _session_json(value):
            return None
        return self._quick_session(path, ht.size, ht.mtime, value)

    def _quick_session(self, path: str, size: int, mtime: float, value: dict) -> QuickMeta:
        """The listing of a tree's session JSON, read whole, that is one session record: what
        the parser makes of it, without a parser (`_session` of this one record); the last time
        is in its messages (unsure)."""
        sid, project, title, parent, created, updated = _session_info(value)
        first = last = None
        if type(created) is int and type(updated) is int and created > 1e11 and updated > 1e11:
            # Both epoch milliseconds (as OpenCode writes them): the earlier and the later made
            # times as `parse_timestamp` makes them, compared as the numbers they are.
            lo, hi = (created, updated) if created <= updated else (updated, created)
            try:
                first = _fromtimestamp(lo / 1000.0, _UTC)
                last = first if hi == lo else _fromtimestamp(hi / 1000.0, _UTC)
            except (ValueError, OverflowError, OSError):
                first = last = None  # (out of range: as any other, the long way)
        if first is None:
            times = [t for t in (parse_timestamp(created), parse_timestamp(updated)) if t is not None]
            first, last = min(times, default=None), max(times, default=None)
        return QuickMeta(path, size, mtime, self.agent, self.name, sid,
                         SessionKind.SUBAGENT if parent else SessionKind.MAIN, project,
                         truncate(title, 200) if title else None, first, last, _LAST_UNSURE, True, None)


_LAST_UNSURE = frozenset(("last_timestamp",))
_fromtimestamp, _UTC = datetime.fromtimestamp, timezone.utc
_loads, _DecodeError = orjson.loads, orjson.JSONDecodeError


def _session_json(value: dict) -> bool:
    """Whether a record is a session's JSON (`ses_...` id, not a wrapped database row)."""
    return (not ("_session" in value or "_message" in value or "_part" in value)
            and isinstance(value.get("id"), str) and value["id"].startswith("ses_"))


def _session_info(info: dict) -> tuple[str | None, str | None, str | None, str | None, Any, Any]:
    """(id, directory, title, parent id, created, updated) of a session record."""
    t = info.get("time") if isinstance(info.get("time"), dict) else {}
    return (s(info.get("id")), s(info.get("directory")), s(info.get("title")), s(info.get("parentID")),
            t.get("created"), t.get("updated"))


class OpenCodeParser(CollectingParser):
    """Fed the session record, then each message record followed by its parts (one JSON object
    per record, from a file or a row), with `at(path)` saying where each comes from."""

    agent = "opencode"
    source_format = "opencode"

    def __init__(self, path: str) -> None:
        super().__init__(path)
        self.session_path = path
        self._role = Role.USER.value
        self._summary = False
        self._message_id: str | None = None
        self._message_ts: Any = None
        self._model: str | None = None

    def at(self, path: str) -> None:
        self.path = path

    def record(self, value: Any, parsed: ParsedLine) -> list[Entry] | None:
        if not isinstance(value, dict):
            return None
        if "_session" in value:
            return self._session(value["_session"])
        if "_message" in value:
            return self._message(value["_message"], parsed)
        if "_part" in value:
            return self._part(value["_part"], parsed)
        if _session_json(value):
            return self._session(value)
        return None

    def _session(self, info: dict) -> list[Entry]:
        sid, self.project, self.named_title, parent, created, updated = _session_info(info)
        self.session_id = sid or self.session_id
        if parent:
            self.parent_id, self.kind = parent, SessionKind.SUBAGENT
        self.note_time(created)
        self.note_time(updated)
        return []

    def _message(self, info: dict, parsed: ParsedLine) -> list[Entry]:
        role = info.get("role")
        self._role = role if role in (Role.USER.value, Role.ASSISTANT.value) else Role.SYSTEM.value
        self._summary = info.get("summary") is True
        self._message_id = s(info.get("id"))
        t = info.get("time") if isinstance(info.get("time"), dict) else {}
        self._message_ts = self.note_time(t.get("created"))
        self.note_time(t.get("completed"))
        model = info.get("model")
        self._model = s(info.get("modelID")) or (s(model.get("modelID")) if isinstance(model, dict) else None)
        self.note_model(self._model if role == "assistant" else None)
        tokens = info.get("tokens")
        if role == "assistant" and isinstance(tokens, dict):
            cache = tokens.get("cache") if isinstance(tokens.get("cache"), dict) else {}
            out = tokens.get("output") if isinstance(tokens.get("output"), int) else 0
            reasoning = tokens.get("reasoning") if isinstance(tokens.get("reasoning"), int) else 0
            self.add_usage(tokens.get("input"), out + reasoning, cache.get("read"), cache.get("write"),
                           at=self._message_ts, model=self._model)
        error = info.get("error")
        if isinstance(error, dict):
            data = error.get("data") if isinstance(error.get("data"), dict) else {}
            text = s(data.get("message")) or s(error.get("name")) or "error"
            return [self.entry(parsed, Role.SYSTEM.value, EntryKind.SYSTEM, text, ident=self._message_id,
                               timestamp=self._message_ts, is_error=True, raw_type="message/error")]
        return []

    def _part(self, part: dict, parsed: ParsedLine) -> list[Entry] | None:
        ptype = part.get("type")
        if ptype in _NOISE_PARTS:
            return []
        ident = s(part.get("id"))
        t = part.get("time") if isinstance(part.get("time"), dict) else {}
        ts = self.note_time(t.get("start")) or self._message_ts
        kw = dict(ident=ident, timestamp=ts, parent_id=self._message_id, raw_type=f"part/{ptype}",
                  model=self._model if self._role == Role.ASSISTANT.value else None)
        role = self._role
        if ptype == "text":
            text = str(part.get("text") or "")
            kind = (EntryKind.COMPACTION if self._summary else
                    EntryKind.META if part.get("synthetic") is True else EntryKind.TEXT)
            return [self.entry(parsed, Role.SYSTEM.value if kind is EntryKind.COMPACTION else role, kind, text, **kw)]
        if ptype == "reasoning":
            return [self.entry(parsed, role, EntryKind.THINKING, str(part.get("text") or ""), **kw)]
        if ptype == "tool":
            name = s(part.get("tool")) or "tool"
            call = s(part.get("callID"))
            state = part.get("state") if isinstance(part.get("state"), dict) else {}
            st = state.get("time") if isinstance(state.get("time"), dict) else {}
            kw["timestamp"] = self.note_time(st.get("start")) or ts
            out = [self.entry(parsed, Role.ASSISTANT.value, EntryKind.TOOL_USE, s(state.get("title")) or name,
                              tool_name=name, tool_input=state.get("input"), tool_use_id=call, **kw)]
            status = state.get("status")
            if status in ("completed", "error"):
                result = state.get("output") if status == "completed" else state.get("error")
                result = result if isinstance(result, str) else ("" if result is None else orjson.dumps(result).decode())
                kw["timestamp"] = self.note_time(st.get("end")) or kw["timestamp"]
                kw["model"] = None
                out.append(self.entry(parsed, Role.TOOL.value, EntryKind.TOOL_RESULT, result, n=1, tool_name=name,
                                      tool_use_id=call, is_error=status == "error", **kw))
            return out
        if ptype == "file":
            name = s(part.get("filename")) or s(part.get("url")) or "file"
            return [self.entry(parsed, role, EntryKind.META, f"[file: {name}]", **kw)]
        if ptype == "subtask":
            text = s(part.get("prompt")) or s(part.get("description")) or ""
            return [self.entry(parsed, role, EntryKind.META, text, **kw)]
        if ptype == "compaction":
            return [self.entry(parsed, Role.SYSTEM.value, EntryKind.COMPACTION, "compaction", **kw)]
        if ptype == "retry":
            return [self.entry(parsed, Role.SYSTEM.value, EntryKind.SYSTEM, "retry", is_error=True, **kw)]
        return None

    def finish(self) -> list[LoadedSession]:
        self.path = self.session_path
        return super().finish()


# -- the JSON tree ---------------------------------------------------------------------------------

def _tree_dirs(session_path: str, session_id: str) -> tuple[str, str, bool]:
    """(messages folder of the session, parts root, whether parts are under the session id): the
    current layout `storage/session/<project>/ses_.json`, else the older `storage/session/info/`."""
    parent = os.path.dirname(session_path)
    if os.path.basename(parent) == "info":
        base = os.path.dirname(parent)  # storage/session
        return os.path.join(base, "message", session_id), os.path.join(base, "part", session_id), False
    storage = os.path.dirname(os.path.dirname(parent))
    return os.path.join(storage, "message", session_id), os.path.join(storage, "part"), True


def _json_files(folder: str) -> list[str]:
    try:
        names = [e.name for e in os.scandir(folder) if e.name.endswith(".json") and e.is_file()]
    except OSError:
        return []
    return [os.path.join(folder, n) for n in sorted(names)]


def _read_record(parser: OpenCodeParser, path: str, wrap: str, line: int) -> dict | None:
    """Feed one record file; its value when it is a JSON object."""
    parser.at(path)
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        parser.feed(ParsedLine(RawLine(0, line, b""), (), f"{reader_error(path, exc)}"))
        return None
    raw = RawLine(0, line, data)
    try:
        value = orjson.loads(data[3:] if data.startswith(b"\xef\xbb\xbf") else data)
    except orjson.JSONDecodeError as exc:
        parser.feed(ParsedLine(raw, (), f"not a JSON record ({exc})"))
        return None
    if not isinstance(value, dict):
        parser.feed(ParsedLine(raw, (), "not a JSON object"))
        return None
    parser.feed(ParsedLine(raw, ({wrap: value},)))
    return value


def _load_tree(adapter: OpenCodeAdapter, path: str) -> LoadedSession:
    parser = adapter.parser(path)
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        raise reader_error(path, exc) from exc
    parser.feed(parse_line(RawLine(0, 1, data.replace(b"\n", b" "))))
    sid = parser.session_id or os.path.basename(path)[: -len(".json")]
    messages_dir, parts_root, by_message = _tree_dirs(path, sid)
    records = []
    for mpath in _json_files(messages_dir):
        try:
            with open(mpath, "rb") as fh:
                info = orjson.loads(fh.read())
            t = info["time"]["created"] if isinstance(info, dict) else 0
        except (OSError, orjson.JSONDecodeError, KeyError, TypeError):
            t = 0
        records.append((t if isinstance(t, (int, float)) else 0, os.path.basename(mpath), mpath))
    records.sort()
    line = 1
    for _t, name, mpath in records:
        line += 1
        info = _read_record(parser, mpath, "_message", line)
        mid = s(info.get("id")) if info else None
        mid = mid or name[: -len(".json")]
        for ppath in _json_files(os.path.join(parts_root, mid) if by_message else os.path.join(parts_root, mid)):
            line += 1
            _read_record(parser, ppath, "_part", line)
    return parser.finish()[0]


# -- the database ----------------------------------------------------------------------------------

def _load_db(adapter: OpenCodeAdapter, path: str, session_id: str | None = None,
             newest: bool = False) -> list[LoadedSession]:
    """The sessions of an OpenCode database (one, or the most recently updated, when asked)."""
    con = connect(path)
    try:
        if not _TABLES <= _tables(con):
            raise ReaderError(f"{path} is not an OpenCode database (no session/message/part tables)")
        if session_id is not None:
            rows = con.execute("SELECT * FROM session WHERE id = ?", (session_id,)).fetchall()
        elif newest:
            rows = con.execute("SELECT * FROM session ORDER BY time_updated DESC LIMIT 1").fetchall()
        else:
            rows = con.execute("SELECT * FROM session ORDER BY time_created, id").fetchall()
        out = []
        for row in rows:
            out.append(_db_session(adapter, con, path, dict(row)))
        return out
    except sqlite3.Error as exc:
        raise ReaderError(f"cannot read database {path}: {exc}") from exc
    finally:
        con.close()


#: a session's messages' or parts' mark: how many, the latest written, the last added, their bytes
_MARK_SQL = ("SELECT session_id, count(*), max({updated}), max(rowid), total(length(CAST(data AS BLOB)))"
             " FROM {table} GROUP BY session_id")


def _changed_db(adapter: OpenCodeAdapter, path: str, marks: dict | None) -> Changed:
    """`OpenCodeAdapter.load_changed` of a database: one read transaction (one snapshot of the
    file, however OpenCode writes meanwhile) for the marks and the sessions read. A session whose
    row cannot be a mark's key (an id that is not text, or twice) gives no marks: everything read."""
    con = connect(path)
    try:
        if not _TABLES <= _tables(con):
            raise ReaderError(f"{path} is not an OpenCode database (no session/message/part tables)")
        con.execute("BEGIN")
        rows = [dict(r) for r in con.execute("SELECT * FROM session ORDER BY time_created, id")]
        aggregates: dict[Any, list[Any]] = {}
        for table in ("message", "part"):
            columns = {r[1] for r in con.execute(f"PRAGMA table_info({table})")}
            sql = _MARK_SQL.format(table=table, updated="time_updated" if "time_updated" in columns else "NULL")
            for sid, *agg in con.execute(sql):
                aggregates.setdefault(sid, [None, None])[table == "part"] = agg
        now: dict[str, list[Any]] | None = {}
        for row in rows:
            sid = row.get("id")
            if type(sid) is not str or sid in now:
                now = None
                break
            now[sid] = [[v.hex() if isinstance(v, bytes) else v for v in row.values()],
                        *aggregates.get(sid, (None, None))]
        if now is None:
            return Changed({}, [_db_session(adapter, con, path, row) for row in rows], whole=True)
        loaded = [_db_session(adapter, con, path, row) for row in rows
                  if marks is None or marks.get(row["id"]) != now[row["id"]]]
        return Changed(now, loaded)
    except sqlite3.Error as exc:
        raise ReaderError(f"cannot read database {path}: {exc}") from exc
    finally:
        con.close()


def _quick_db(adapter: OpenCodeAdapter, path: str) -> Session | None:
    """The most recently updated session of a database as its full parse (`_load_db`) gives it,
    without building its entries when it has a title (OpenCode names every session): its
    first and last times are the earliest and latest of the times the parser notes (the
    session row's, each message's created and completed, each part's start, a tool's start
    and end), read from the rows' JSON without the rest of the parse. None: no session."""
    con = connect(path)
    try:
        if not _TABLES <= _tables(con):
            raise ReaderError(f"{path} is not an OpenCode database (no session/message/part tables)")
        row = con.execute("SELECT * FROM session ORDER BY time_updated DESC LIMIT 1").fetchone()
        if row is None:
            return None
        row = dict(row)
        parser = _session_parser(adapter, path, row)
        if parser.named_title is None:  # titled by its first prompt: parsed whole
            return _db_session(adapter, con, path, row).session
        sid = row.get("id")
        stamps: list[Any] = []
        for data, created in con.execute("SELECT data, time_created FROM message WHERE session_id = ?", (sid,)):
            value = _row_value(data)
            if value is not None:
                t = value.get("time") if "time" in value else {"created": created} if created is not None else None
                if type(t) is dict:
                    stamps += (t.get("created"), t.get("completed"))
        for (data,) in con.execute("SELECT data FROM part WHERE session_id = ?", (sid,)):
            value = _row_value(data)
            if value is None:
                continue
            ptype = value.get("type")
            try:
                if ptype in _NOISE_PARTS:  # (noted nothing; an unhashable type fails the part)
                    continue
            except TypeError:
                continue
            t = value.get("time")
            if type(t) is dict:
                stamps.append(t.get("start"))
            if ptype == "tool":
                state = value.get("state")
                st = state.get("time") if type(state) is dict else None
                if type(st) is dict:
                    stamps.append(st.get("start"))
                    if state.get("status") in ("completed", "error"):
                        stamps.append(st.get("end"))
        _note_extremes(parser, stamps)
        return parser.session()
    except sqlite3.Error as exc:
        raise ReaderError(f"cannot read database {path}: {exc}") from exc
    finally:
        con.close()


def _row_value(data: Any) -> dict | None:
    """A row's `data` as `_feed_row` reads it, when that is a JSON object."""
    data = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else (data or b"")
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError:
        return None
    return value if type(value) is dict else None


def _note_extremes(parser: OpenCodeParser, stamps: list[Any]) -> None:
    """`parser.note_time` of each of `stamps` (what it keeps: the earliest and latest), with
    epoch numbers compared as numbers: only the earliest and latest are made times (one that
    is not a time, out of range, is passed over as `note_time` passes it)."""
    numbers: list[tuple[float, Any]] = []
    for v in stamps:
        if type(v) is int or type(v) is float:
            if v > 0:  # (as `parse_timestamp` reads epoch seconds or milliseconds)
                numbers.append((v / 1000.0 if v > 1e11 else float(v), v))
        elif v is not None:
            parser.note_time(v)
    if not numbers:
        return
    numbers.sort(key=lambda n: n[0])
    for _, v in numbers:
        if parser.note_time(v) is not None:
            break
    for _, v in reversed(numbers):
        if parser.note_time(v) is not None:
            break


def _session_parser(adapter: OpenCodeAdapter, path: str, row: dict) -> OpenCodeParser:
    """A parser fed a session row (its id, project, title, parent and times)."""
    parser = adapter.parser(path)
    info = {"id": row.get("id"), "directory": row.get("directory"), "title": row.get("title"),
            "parentID": row.get("parent_id"),
            "time": {"created": row.get("time_created"), "updated": row.get("time_updated")}}
    parser.feed(ParsedLine(RawLine(0, 1, b""), ({"_session": info},)))
    return parser


def _db_session(adapter: OpenCodeAdapter, con: sqlite3.Connection, path: str, row: dict) -> LoadedSession:
    parser = _session_parser(adapter, path, row)
    sid = row.get("id")
    line = 1
    parts: dict[str, list[sqlite3.Row]] = {}
    for p in con.execute("SELECT rowid AS _rowid, * FROM part WHERE session_id = ? ORDER BY message_id, id", (sid,)):
        parts.setdefault(p["message_id"], []).append(p)
    for m in con.execute("SELECT rowid AS _rowid, * FROM message WHERE session_id = ? ORDER BY time_created, id",
                         (sid,)):
        line += 1
        _feed_row(parser, m, "_message", m["_rowid"] * 2 + 1, line, {"id": m["id"], "sessionID": sid})
        for p in parts.pop(m["id"], ()):
            line += 1
            _feed_row(parser, p, "_part", p["_rowid"] * 2, line, {"id": p["id"], "messageID": m["id"]})
    for orphans in parts.values():  # parts of a message that is gone: still shown
        for p in orphans:
            line += 1
            _feed_row(parser, p, "_part", p["_rowid"] * 2, line, {"id": p["id"], "messageID": p["message_id"]})
    return parser.finish()[0]


def _feed_row(parser: OpenCodeParser, row: sqlite3.Row, wrap: str, offset: int, line: int, ids: dict) -> None:
    data = row["data"]
    data = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else (data or b"")
    raw = RawLine(offset, line, data)
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        parser.feed(ParsedLine(raw, (), f"{wrap[1:]} row {row['id']}: not valid JSON ({exc})"))
        return
    if not isinstance(value, dict):
        parser.feed(ParsedLine(raw, (), f"{wrap[1:]} row {row['id']}: not a JSON object"))
        return
    if "time" not in value and row["time_created"] is not None:
        value["time"] = {"created": row["time_created"]}
    parser.feed(ParsedLine(raw, ({wrap: {**value, **ids}},)))


__all__ = ["OpenCodeAdapter", "OpenCodeParser", "connect", "db_record", "is_database"]
