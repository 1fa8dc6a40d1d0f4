"""Live updates: turn raw file-system changes under the roots into typed session events.

Why a layer of our own over watchfiles: the app, the index and `sessionscope watch` need to know
*what* happened to a session, not that an inode changed: a session was created, grew (with its
new entries, read from the last complete line, never by re-reading the file), was rewritten or
truncated (re-read whole), was deleted; or a memory file changed. A burst of writes to one file
becomes one event, because watchfiles batches changes (its debounce is tuned down from 1.6 s so a
change reaches the app well within 300 ms) and each batch is reduced to one event per path.
Waiting uses inotify, so an idle watcher costs no CPU; `poll=True` is for file systems without it.
"""
from __future__ import annotations

import hashlib
import os
import threading
import time
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, replace
from enum import Enum
from typing import Any, Iterable, Iterator

from .adapters.base import walk_files
from .catalog import FileRow, Fingerprint
from .discovery import candidate_files
from .jsonl import RecordFile, ReaderError
from .library import Library
from .model import Entry, EntryKind, Session, iso

DEBOUNCE_MS = 150  # longest a burst is held back before it is reported
STEP_MS = 30  # a batch closes after this long without a new change
# Polling compares modification times to the second, so a file changed again within the second of
# its last reported change (or of the watches being armed) goes unseen: such files are looked at
# once more this long after. Also the longest the first catch-up pass waits (see `batches`).
RECHECK_MS = 1100


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
    entries: tuple[Entry, ...] = ()  # the new entries of a session that grew

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
        extra = f" +{len(self.entries)} entries" if self.kind is Change.GREW else ""
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
        for path in sorted(self._expand(paths)):
            try:
                event = self._apply_one(path)
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
            return SessionEvent(Change.DELETED, path, tuple(row.sessions))
        if row is None:
            new = lib.read_file(path)
            self._mark(path)
            return SessionEvent(Change.CREATED, path, tuple(new.sessions)) if new.adapter else None
        st = os.stat(path)
        fp = row.fingerprint
        if (st.st_size, st.st_mtime_ns, st.st_ino) == (fp.size, fp.mtime_ns, fp.ino):
            return None
        if row.adapter and st.st_ino == fp.ino and st.st_size >= fp.size and _head_unchanged(path, fp):
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
        lib.put_row(FileRow(row.path, Fingerprint.of(row.path, st), row.adapter, [updated, *row.sessions[1:]], None))
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


class _StopProbe:
    """The stop event as watchfiles sees it: watchfiles asks `is_set()` from its wait loop, which
    it enters only once the file-system watches are in place, so the first question means armed."""

    def __init__(self, stop: threading.Event, armed: threading.Event) -> None:
        self._stop = stop
        self._armed = armed
        self.armed_at: float | None = None

    def is_set(self) -> bool:
        if self.armed_at is None:
            self.armed_at = time.monotonic()
            self._armed.set()
        return self._stop.is_set()


class Watcher:
    """Watches a library's roots (and extra paths, e.g. memory folders) and yields event batches.

    `lock`, when given, is held while a batch is applied to the library (and so to its catalog):
    an app that also reads or indexes the library in other threads shares it. `armed` is set once
    changes are being seen (what is written before that may be missed)."""

    def __init__(self, library: Library, *, poll: bool = False, extra: Iterable[str] = (),
                 debounce_ms: int = DEBOUNCE_MS, lock: AbstractContextManager[Any] | None = None) -> None:
        self.library = library
        self.tracker = Tracker(library)
        self.poll = poll
        self.debounce_ms = debounce_ms
        self.paths = [r.path for r in library.roots if r.error is None] + [p for p in extra if os.path.isdir(p)]
        self.stop = threading.Event()
        self.armed = threading.Event()
        self.lock: AbstractContextManager[Any] = lock if lock is not None else nullcontext()

    def batches(self) -> Iterator[list[SessionEvent]]:
        """Blocking: one list of events per batch of changes, until `stop` is set.

        Besides what watchfiles reports, two things are looked at here. Once, soon after the
        watches are armed, every known file and every session file under the roots is compared
        with what the library holds: changes between the library's last scan and the arming are
        not lost. When polling, a file reported changed is looked at once more RECHECK_MS later
        (see there). Looking at an unchanged file costs a stat and reports nothing."""
        import watchfiles

        if not self.paths:
            return
        probe = _StopProbe(self.stop, self.armed)
        caught_up = False
        recheck: dict[str, float] = {}  # polling: path -> when it was last reported
        for changes in watchfiles.watch(
            *self.paths,
            watch_filter=None,
            debounce=self.debounce_ms,
            step=STEP_MS,
            stop_event=probe,
            rust_timeout=RECHECK_MS,
            yield_on_timeout=True,
            force_polling=self.poll,
            poll_delay_ms=100,
            raise_interrupt=False,
            ignore_permission_denied=True,
        ):
            paths = {path for _, path in changes}
            now = time.monotonic()
            if self.poll:
                due = [p for p, t in recheck.items() if now - t >= RECHECK_MS / 1000]
                for p in due:
                    del recheck[p]
                recheck.update(dict.fromkeys(paths, now))
                paths.update(due)
            armed_at = probe.armed_at if probe.armed_at is not None else now
            if not caught_up and (not self.poll or now - armed_at >= RECHECK_MS / 1000):
                caught_up = True
                paths.update(self._known_and_present())
            if not paths:
                continue
            with self.lock:
                events = self.tracker.apply(paths)
            if events:
                yield events

    def take_changed(self) -> set[str]:
        """The files whose library rows the watcher changed since the last call (see Tracker)."""
        return self.tracker.take_changed()

    def _known_and_present(self) -> set[str]:
        """Every file the library knows and every session file under its roots (none when the
        library was never scanned, only loaded from its catalog: each would be read again)."""
        if not self.library.rows and self.library.all_sessions():
            return set()
        found = set(self.library.rows)
        for root in self.library.roots:
            if root.error is None:
                found.update(candidate_files(root, self.library.registry))
        return found
