"""Typed session events from changed paths: what happened to a session, applied to the library.

The app, the index and `sessionscope watch` need to know *what* happened to a session, not that an
inode changed: a session was created, grew (with its new entries, read from the last complete
line, never by re-reading the file), was rewritten or truncated (re-read whole), was deleted; or a
memory file changed. The watcher (watch.py) hands the tracker each batch of changed paths; a live
index follows the files whose rows changed (`take_changed`), not every file.
"""
from __future__ import annotations

import hashlib
import os
import threading
from dataclasses import dataclass, replace
from enum import Enum
from typing import Any, Iterable

from ..catalog.activity import tail_activity
from ..catalog.files import with_wal
from ..catalog.library import Library
from ..catalog.store import FileRow, Fingerprint
from ..config import CacheError
from ..model import Entry, EntryKind, Session, iso
from ..read.jsonl import RecordFile, ReaderError
from ..read.walk import walk_files


class Change(str, Enum):
    CREATED = "created"
    GREW = "grew"
    REWRITTEN = "rewritten"
    DELETED = "deleted"
    MEMORY = "memory_changed"


@dataclass(frozen=True)
class SessionEvent:
    kind: Change
    path: str
    sessions: tuple[Session, ...] = ()  # the file's sessions after the change (before, if deleted)
    entries: tuple[Entry, ...] = ()  # the new entries: of a session that grew, or all of a new file

    def to_dict(self) -> dict[str, Any]:
        return {
            "event": self.kind.value,
            "path": self.path,
            "session_ids": [s.id for s in self.sessions],
            "new_entries": len(self.entries),
            "last_timestamp": iso(max((s.last_timestamp for s in self.sessions if s.last_timestamp), default=None)),
            "entries": [e.to_dict(200) for e in self.entries],
        }

    def line(self) -> str:
        ids = ",".join(s.id[:8] for s in self.sessions) or "-"
        extra = f" +{len(self.entries)} entries" if self.kind in (Change.GREW, Change.CREATED) else ""
        return f"{self.kind.value:<15} {ids}{extra}  {self.path}"


def is_memory_file(path: str) -> bool:
    parts = path.split(os.sep)
    name = parts[-1]
    return name.endswith(".md") and ("memory" in parts[:-1] or name in {"CLAUDE.md", "AGENTS.md", "GEMINI.md", "CLAUDE.local.md"})


class Tracker:
    """Applies changed paths to a library (and so to its catalog), returning one event per path."""

    def __init__(self, library: Library) -> None:
        self.library = library
        self._suffixes = tuple({s for a in library.registry.adapters for s in a.suffixes})
        self._tails: dict[str, tuple[int, int, int, Any]] = {}  # path -> (inode, offset, line, parser)
        self._changed: set[str] = set()  # files whose rows changed since `take_changed`
        self._changed_lock = threading.Lock()
        # Files the catalog could not take (disk full, a read-only cache): tried again with the
        # next batch; `failures` says why, until the caller takes it.
        self._retry: set[str] = set()
        self.failures: list[str] = []

    def take_changed(self) -> set[str]:
        """The files whose rows in the library changed since the last call: all an index that
        follows the library needs to look at (`SearchIndex.update(paths=…)`)."""
        with self._changed_lock:
            out, self._changed = self._changed, set()
        return out

    def _mark(self, path: str) -> None:
        with self._changed_lock:
            self._changed.add(path)

    def apply(self, paths: Iterable[str]) -> list[SessionEvent]:
        self.library.prepare_relink()  # once: a file's change then relinks only its sessions
        events = []
        retry, self._retry = self._retry, set()
        for path in sorted(self._expand(paths) | retry):
            try:
                event = self._apply_one(path)
            except CacheError as exc:
                event = None
                self._retry.add(path)
                if str(exc) not in self.failures:
                    self.failures.append(str(exc))
            except (OSError, ReaderError):
                event = None  # vanished or unreadable between the change and now: next change tells
            if event is not None:
                events.append(event)
        return events

    def _expand(self, paths: Iterable[str]) -> set[str]:
        """The changed paths, with directories replaced by the session files they hold: a project
        folder created (or moved in) with its files already written reports only itself, and one
        moved away or removed whole may report only itself too."""
        out: set[str] = set()
        for path in paths:
            if path.endswith(self._suffixes) or is_memory_file(path):
                out.add(path)
            elif os.path.isdir(path):
                out.update(walk_files(path, self._suffixes))
            elif not os.path.exists(path):
                prefix = path.rstrip(os.sep) + os.sep
                out.update(p for p in list(self.library.rows) if p.startswith(prefix))
        return out

    def _apply_one(self, path: str) -> SessionEvent | None:
        if is_memory_file(path):
            return SessionEvent(Change.MEMORY, path)
        if not path.endswith(self._suffixes) or os.sep + "tool-results" + os.sep in path:
            return None
        lib = self.library
        row = lib.rows.get(path)
        if not os.path.exists(path):
            self._tails.pop(path, None)
            if row is None:
                return None
            lib.drop_file(path)
            self._mark(path)
            copy = lib.archived_copy(path)
            if copy is not None:
                # the archive's copy serves its sessions now: read if it was left out while the
                # live file was there (a hard link of it), indexed now that nothing shadows it
                if copy not in lib.rows:
                    lib.read_file(copy)
                self._mark(copy)
            return SessionEvent(Change.DELETED, path, tuple(row.sessions))
        if row is None:
            new, loaded = lib.read_file_loaded(path)
            self._mark(path)
            if not new.adapter:
                return None
            # A new file's entries are all new: reported as a grown file's are.
            return SessionEvent(Change.CREATED, path, tuple(new.sessions), tuple(e for ls in loaded for e in ls.entries))
        st = with_wal(path, os.stat(path))
        fp = row.fingerprint
        if (st.st_size, st.st_mtime_ns, st.st_ino) == (fp.size, fp.mtime_ns, fp.ino):
            return None
        adapter = lib.registry.by_name(row.adapter or "")
        if (adapter is not None and adapter.grows(path) and st.st_ino == fp.ino and st.st_size >= fp.size
                and _head_unchanged(path, fp)):
            return self._grew(row, st)
        self._tails.pop(path, None)
        new = lib.read_file(path)
        self._mark(path)
        return SessionEvent(Change.REWRITTEN, path, tuple(new.sessions))

    def _grew(self, row: FileRow, st: os.stat_result) -> SessionEvent | None:
        lib = self.library
        adapter = lib.registry.by_name(row.adapter or "")
        if adapter is None or not row.sessions:
            return None
        with RecordFile(row.path) as rf:
            tail = self._tails.get(row.path)
            if tail is None or tail[0] != st.st_ino:
                # Resume after the last newline the catalog's reading of the file had seen.
                offset = rf.buffer.rfind(b"\n", 0, row.fingerprint.size) + 1
                line = rf.buffer[:offset].count(b"\n") + 1
                parser = adapter.parser(row.path)
            else:
                _, offset, line, parser = tail
            end = rf.complete_end
            new: list[Entry] = []
            for parsed in rf.iter_parsed(offset, line):
                if parsed.raw.offset >= end:
                    break  # the unterminated last line: read when it completes
                new.extend(parser.feed(parsed))
            next_line = line + rf.buffer[offset:end].count(b"\n")
        self._tails[row.path] = (st.st_ino, end, next_line, parser)
        # The row as a whole read gives it, read on from where the catalog's reading stopped with
        # what it carried (title, merged replies, tokens, noise: what the lines below only guess),
        # so the next command finds it current and can read on from it in turn.
        exact = lib.read_on(row, st)
        if exact is not None:
            lib.put_row(exact)
            self._mark(row.path)
            return SessionEvent(Change.GREW, row.path, (exact.sessions[0],), tuple(new)) if new else None
        main = row.sessions[0]
        fresh = [e for e in new if e.on_active_branch and e.kind is not EntryKind.MALFORMED]
        stamps = [e.timestamp for e in new if e.timestamp]
        updated = replace(
            main,
            entry_count=main.entry_count + len(fresh),
            malformed_count=main.malformed_count + sum(e.kind is EntryKind.MALFORMED for e in new),
            last_timestamp=max([*stamps, *([main.last_timestamp] if main.last_timestamp else [])], default=None),
            size=st.st_size,
            line_count=main.line_count + (next_line - line),
        )
        lib.put_row(FileRow(row.path, Fingerprint.of(row.path, st), row.adapter, [updated, *row.sessions[1:]], None,
                            activity=tail_activity(main, updated, new), activity_added=True))
        self._mark(row.path)
        if not new:
            return None
        return SessionEvent(Change.GREW, row.path, (updated,), tuple(new))


def _head_unchanged(path: str, fp: Fingerprint) -> bool:
    """The bytes the fingerprint hashed (the first 4 KB, or the whole file if it was smaller)
    are still the same: the file was appended to, not rewritten."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(min(4096, fp.size))
    except OSError:
        return False
    return hashlib.sha1(head).hexdigest() == fp.head_hash
