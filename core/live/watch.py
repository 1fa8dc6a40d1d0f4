"""Live updates: turn raw file-system changes under the roots into typed session events.

Why a layer of our own over watchfiles: the app, the index and `sessionscope watch` need to know
*what* happened to a session, not that an inode changed: a session was created, grew (with its
new entries, read from the last complete line, never by re-reading the file), was rewritten or
truncated (re-read whole), was deleted; or a memory file changed. A burst of writes to one file
becomes one event: changes are batched (a batch closes after QUIET_MS without a new change, or
DEBOUNCE_MS after its first) and each batch is reduced to one event per path.

On Linux the watcher reads inotify itself (`_Inotify`, through ctypes): it blocks until the kernel
has something, so an idle watcher wakes for nothing, and a change is seen as it happens.
watchfiles, used where inotify is missing, wakes every STEP_MS to look at what its thread
collected, which costs both: ~50 ms of latency on each change and 0.2% of a core idle at a 30 ms
step (bench/bench_live.py). `poll=True` is for file systems without change notification: our own
poller (`_Poller`) follows the files being written every POLL_MS and walks everything in sweeps
that take at most POLL_BUDGET of the time. A live index follows the files whose rows changed
(`take_changed`), not every file.
"""
from __future__ import annotations

import ctypes
import hashlib
import os
import select
import struct
import sys
import threading
import time
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, replace
from enum import Enum
from typing import Any, Iterable, Iterator

from ..catalog.store import FileRow, Fingerprint
from ..config import CacheError
from ..read.discovery import candidate_files
from ..read.jsonl import RecordFile, ReaderError
from ..catalog.library import Library
from ..model import Entry, EntryKind, Session, iso
from ..read.walk import walk_files

DEBOUNCE_MS = 150  # longest a burst is held back before it is reported
QUIET_MS = 10  # a batch closes after this long without a new change (our inotify reader)
STEP_MS = 30  # the same, and how often it wakes to look, for watchfiles (where inotify is missing)
# How often watchfiles hands back control while nothing changes (the first catch-up pass runs then).
RECHECK_MS = 1100
# Polling (`poll=True`, for file systems without inotify): files and folders modified within HOT_S
# (and those seen changing since) are looked at every POLL_MS; everything is walked again in a sweep
# whose share of the time stays under POLL_BUDGET, so the sweeps thin out as the history grows
# (2,000 files: ~0.7 s apart; 20,000: ~7 s), at most SWEEP_MAX_S apart.
POLL_MS = 100
POLL_BUDGET = 0.02
HOT_S = 900
SWEEP_MAX_S = 10.0


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
            return SessionEvent(Change.DELETED, path, tuple(row.sessions))
        if row is None:
            new, loaded = lib.read_file_loaded(path)
            self._mark(path)
            if not new.adapter:
                return None
            # A new file's entries are all new: reported as a grown file's are.
            return SessionEvent(Change.CREATED, path, tuple(new.sessions), tuple(e for ls in loaded for e in ls.entries))
        st = os.stat(path)
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
    """The stop event as watchfiles (or the poller) sees it: `is_set()` is first asked once the
    file-system watches are in place (the poller's first sweep is done), so it means armed."""

    def __init__(self, stop: threading.Event, armed: threading.Event) -> None:
        self._stop = stop
        self._armed = armed
        self.armed_at: float | None = None

    def is_set(self) -> bool:
        if self.armed_at is None:
            self.armed_at = time.monotonic()
            self._armed.set()
        return self._stop.is_set()


class _WakingEvent(threading.Event):
    """A stop event that also wakes a reader blocked on its file descriptors (`wakes`)."""

    def __init__(self) -> None:
        super().__init__()
        self.wakes: set[int] = set()

    def set(self) -> None:
        super().set()
        for fd in list(self.wakes):
            try:
                os.eventfd_write(fd, 1)
            except OSError:
                pass


# <sys/inotify.h>
_IN_MODIFY, _IN_ATTRIB, _IN_MOVED_FROM, _IN_MOVED_TO = 0x2, 0x4, 0x40, 0x80
_IN_CREATE, _IN_DELETE, _IN_DELETE_SELF, _IN_MOVE_SELF = 0x100, 0x200, 0x400, 0x800
_IN_Q_OVERFLOW, _IN_IGNORED, _IN_ONLYDIR, _IN_ISDIR = 0x4000, 0x8000, 0x01000000, 0x40000000
_IN_MASK = (_IN_MODIFY | _IN_ATTRIB | _IN_MOVED_FROM | _IN_MOVED_TO | _IN_CREATE | _IN_DELETE
            | _IN_DELETE_SELF | _IN_MOVE_SELF | _IN_ONLYDIR)
_EVENT = struct.Struct("iIII")  # wd, mask, cookie, len (then the name, NUL-padded)


class _Inotify:
    """Linux inotify through ctypes: a watch on every folder under the roots (as notify, which
    watchfiles wraps, keeps), and the paths its events name. A folder created or moved in is
    watched at once and reported itself (the tracker walks it: files written into it before its
    watch was in place are not missed); one moved away or removed is reported (the tracker drops
    what was under it). When the kernel's queue overflowed, the roots are reported: the tracker
    compares everything under them."""

    def __init__(self, libc: Any, fd: int) -> None:
        self._libc = libc
        self.fd = fd
        self.roots: list[str] = []
        self.dirs: dict[int, str] = {}  # watch descriptor -> folder
        self.wds: dict[str, int] = {}  # folder -> watch descriptor

    @classmethod
    def open(cls) -> _Inotify | None:
        """None where there is no inotify (not Linux, or not allowed): watchfiles then."""
        if not sys.platform.startswith("linux"):
            return None
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.inotify_init1.argtypes = [ctypes.c_int]
            libc.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
            libc.inotify_rm_watch.argtypes = [ctypes.c_int, ctypes.c_int]
            fd = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        except (OSError, AttributeError):
            return None
        return cls(libc, fd) if fd >= 0 else None

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def add_tree(self, root: str) -> None:
        """Watch `root` and every folder under it, walked as a scan walks (core/read/walk.py: folders
        once by inode, no link out of the root it is under, no pseudo file system). A folder
        that cannot be watched (gone, no permission) is skipped; running out of watches raises."""
        top = next((r for r in self.roots if root == r or root.startswith(r.rstrip(os.sep) + os.sep)), root)

        def watch(d: str, _st: os.stat_result) -> None:
            wd = self._libc.inotify_add_watch(self.fd, os.fsencode(d), _IN_MASK)
            if wd < 0:
                err = ctypes.get_errno()
                if err == 28:  # ENOSPC: out of watches (fs.inotify.max_user_watches)
                    raise OSError(err, f"out of inotify watches adding {d}")
                return
            old = self.dirs.get(wd)
            if old is not None and old != d:
                self.wds.pop(old, None)
            self.dirs[wd] = d
            self.wds[d] = wd

        for _ in walk_files(root, ("\0",), inside=top, on_dir=watch):  # (no name ends in NUL:
            pass  # the walk yields no file, it only calls `watch` on each folder)

    def _forget_tree(self, top: str) -> None:
        prefix = top + os.sep
        for d in [d for d in self.wds if d == top or d.startswith(prefix)]:
            wd = self.wds.pop(d)
            self.dirs.pop(wd, None)
            self._libc.inotify_rm_watch(self.fd, wd)

    def read(self) -> set[str]:
        """The paths named by every event queued now (never blocks)."""
        changed: set[str] = set()
        while True:
            try:
                buf = os.read(self.fd, 64 * 1024)
            except BlockingIOError:
                return changed
            pos = 0
            while pos + _EVENT.size <= len(buf):
                wd, mask, _cookie, length = _EVENT.unpack_from(buf, pos)
                raw = buf[pos + _EVENT.size: pos + _EVENT.size + length]
                pos += _EVENT.size + length
                self._event(wd, mask, os.fsdecode(raw.rstrip(b"\0")), changed)

    def _event(self, wd: int, mask: int, name: str, changed: set[str]) -> None:
        if mask & _IN_Q_OVERFLOW:
            changed.update(self.roots)
            return
        d = self.dirs.get(wd)
        if d is None:
            return
        if mask & _IN_IGNORED:  # the folder went (or its watch was removed)
            if self.wds.get(d) == wd:
                del self.wds[d]
            del self.dirs[wd]
            return
        if not name:  # about a watched folder itself: one of the roots matters, the others'
            if d in self.roots and mask & (_IN_DELETE_SELF | _IN_MOVE_SELF):  # parents tell
                changed.add(d)
            return
        path = os.path.join(d, name)
        if mask & _IN_ISDIR:
            if mask & (_IN_CREATE | _IN_MOVED_TO):
                self.add_tree(path)
                changed.add(path)
            elif mask & (_IN_DELETE | _IN_MOVED_FROM):
                self._forget_tree(path)
                changed.add(path)
            return
        changed.add(path)


class _Poller:
    """Polling at a bounded cost. A sweep walks every folder under the roots and stats every file
    that `wanted` names (session and memory files): new, changed (inode, size or mtime in ns) and
    vanished ones are reported. Between sweeps only the hot part is looked at: the files and
    folders modified within HOT_S of the last sweep, the roots, and whatever was seen changing
    since. A session being written is so followed within POLL_MS; one written again after a quiet
    spell, or a new one in a quiet folder, within a sweep interval. Polling every file every
    100 ms (watchfiles' poller) cost 8.6% of a core idle with 2,000 files (bench/bench_live.py),
    and grows with the history."""

    def __init__(self, roots: list[str], wanted: Any) -> None:
        self.roots = roots
        self.wanted = wanted  # file name -> bool
        self.files: dict[str, tuple[int, int, int, int]] = {}  # path -> (inode, size, mtime_ns, device)
        self.dirs: dict[str, int] = {}  # folder -> mtime_ns
        # Each real folder and file is known by one path, as the scan and inotify know it: a
        # symlink loop, or a second link to a folder, is not a new folder full of new sessions.
        self.dir_keys: dict[tuple[int, int], str] = {}  # (device, inode) -> the folder's path
        self.file_keys: dict[tuple[int, int], str] = {}
        self.hot_files: set[str] = set()
        self.hot_dirs: set[str] = set()
        self.cost = 0.0  # seconds the last sweep took

    def sweep_interval(self) -> float:
        return min(SWEEP_MAX_S, max(POLL_MS / 1000, self.cost / POLL_BUDGET))

    def sweep(self) -> set[str]:
        """Everything under the roots; the changes since the last sweep (none the first time)."""
        started = time.perf_counter()
        files: dict[str, tuple[int, int, int, int]] = {}
        dirs: dict[str, int] = {}
        dir_keys: dict[tuple[int, int], str] = {}
        file_keys: dict[tuple[int, int], str] = {}
        seen: set[tuple[int, int]] = set()
        for d in self.roots:
            self._walk(d, d, files, dirs, seen, dir_keys, file_keys)
        first = not self.files and not self.dirs
        changed = set() if first else {p for p, v in files.items() if self.files.get(p) != v}
        if not first:
            changed.update(p for p in self.files if p not in files)
        self.files, self.dirs, self.dir_keys, self.file_keys = files, dirs, dir_keys, file_keys
        recent = time.time_ns() - HOT_S * 1_000_000_000
        self.hot_files = {p for p, v in files.items() if v[2] >= recent} | (changed & files.keys())
        self.hot_dirs = {d for d, m in dirs.items() if m >= recent} | set(self.roots)
        self.cost = time.perf_counter() - started
        return changed

    def tick(self) -> set[str]:
        """The hot files and folders looked at again; what changed (it is hot from now on)."""
        changed: set[str] = set()
        for p in list(self.hot_files):
            try:
                st = os.stat(p)
            except FileNotFoundError:
                self.hot_files.discard(p)
                if self.files.pop(p, None) is not None:
                    changed.add(p)
                continue
            except OSError:
                continue
            v = (st.st_ino, st.st_size, st.st_mtime_ns, st.st_dev)
            if self.files.get(p) != v:
                self.files[p] = v
                self.file_keys[(st.st_dev, st.st_ino)] = p
                changed.add(p)
        for d in list(self.hot_dirs):
            try:
                m = os.stat(d).st_mtime_ns
            except OSError:
                self.hot_dirs.discard(d)  # gone: its files are found gone by the tick or a sweep
                continue
            if self.dirs.get(d) != m:
                self.dirs[d] = m
                changed |= self._new_in(d)
        return changed

    def _new_in(self, d: str) -> set[str]:
        """Files that appeared directly in folder `d`, and everything in folders that appeared
        there (files that went are left to the sweep, or to the tick if they were hot). A folder
        or file already known by another path (a link to it, a loop) is not new."""
        new: set[str] = set()
        try:
            with os.scandir(d) as it:
                items = list(it)
        except OSError:
            return new
        top = next((r for r in self.roots if d == r or d.startswith(r.rstrip(os.sep) + os.sep)), d)
        for item in items:
            try:
                if item.is_dir(follow_symlinks=True):
                    if item.path not in self.dirs:
                        seen = {k for k, p in self.dir_keys.items() if p in self.dirs}
                        files: dict[str, tuple[int, int, int, int]] = {}
                        dirs: dict[str, int] = {}
                        self._walk(item.path, top, files, dirs, seen, self.dir_keys, self.file_keys)
                        self.dirs.update(dirs)
                        self.hot_dirs.update(dirs)
                        new.update(p for p in files if p not in self.files)
                        self.files.update(files)
                elif item.path not in self.files and self.wanted(item.name) and item.is_file(follow_symlinks=True):
                    if self._add(item.path, item.stat(follow_symlinks=True), self.files, self.file_keys):
                        new.add(item.path)
            except OSError:
                continue
        self.hot_files.update(new)
        return new

    def _add(self, path: str, st: os.stat_result, files: dict[str, tuple[int, int, int, int]],
             keys: dict[tuple[int, int], str]) -> bool:
        """Record a file, unless it is one known by another path still: False then."""
        key = (st.st_dev, st.st_ino)
        known = keys.get(key)
        if known is not None and known != path:
            v = files.get(known) or self.files.get(known)
            if v is not None and (v[3], v[0]) == key:
                return False
        keys[key] = path
        files[path] = (st.st_ino, st.st_size, st.st_mtime_ns, st.st_dev)
        return True

    def _walk(self, start: str, top: str, files: dict[str, tuple[int, int, int, int]], dirs: dict[str, int],
              seen: set[tuple[int, int]], dir_keys: dict[tuple[int, int], str],
              file_keys: dict[tuple[int, int], str]) -> None:
        """Walk `start` (under root `top`) as a scan does (core/read/walk.py: folders once by inode,
        no link out of the root, no pseudo file system), recording the folders and wanted files."""
        def on_dir(d: str, st: os.stat_result) -> None:
            dirs[d] = st.st_mtime_ns
            dir_keys[(st.st_dev, st.st_ino)] = d

        for path in walk_files(start, ("",), seen=seen, inside=top, on_dir=on_dir):
            if not self.wanted(os.path.basename(path)):
                continue
            try:
                self._add(path, os.stat(path), files, file_keys)
            except OSError:
                continue


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
        self.paths = ([r.path for r in library.roots if r.error is None and os.path.isdir(r.path)]
                      + [p for p in extra if os.path.isdir(p)])
        self.stop = _WakingEvent()
        self.armed = threading.Event()
        self.lock: AbstractContextManager[Any] = lock if lock is not None else nullcontext()

    def batches(self) -> Iterator[list[SessionEvent]]:
        """Blocking: one list of events per batch of changes, until `stop` is set.

        Besides what is reported changed, every known file and every session file under the
        roots is compared with what the library holds once, soon after the watches are armed:
        changes between the library's last scan and the arming are not lost. Looking at an
        unchanged file costs a stat and reports nothing."""
        if not self.paths:
            return
        probe = _StopProbe(self.stop, self.armed)
        caught_up = False
        if self.poll:
            source = self._polled(probe)
        else:
            inotify = _Inotify.open()
            source = self._inotified(inotify, probe) if inotify is not None else self._notified(probe)
        for paths in source:
            if not caught_up:
                caught_up = True
                paths |= self._known_and_present()
            if not paths:
                continue
            with self.lock:
                events = self.tracker.apply(paths)
            if events or self.tracker.failures:  # (failures: the caller says so, even with no event)
                yield events

    def _inotified(self, inotify: _Inotify, probe: _StopProbe) -> Iterator[set[str]]:
        """Changed paths as inotify reports them: a batch closes QUIET_MS after its last change
        or DEBOUNCE_MS after its first; an empty set once, when armed (for the catch-up pass)."""
        wake = os.eventfd(0, os.EFD_NONBLOCK | os.EFD_CLOEXEC)
        self.stop.wakes.add(wake)
        try:
            inotify.roots = list(self.paths)
            for path in self.paths:
                inotify.add_tree(path)
            poller = select.poll()
            poller.register(inotify.fd, select.POLLIN)
            poller.register(wake, select.POLLIN)
            if probe.is_set():  # (the first question arms)
                return
            yield set()
            while True:
                poller.poll()  # blocks: no timeout, no wake-ups while nothing happens
                if self.stop.is_set():
                    return
                changed = inotify.read()
                deadline = time.monotonic() + self.debounce_ms / 1000
                while (left := deadline - time.monotonic()) > 0:
                    if not poller.poll(min(QUIET_MS, left * 1000)) or self.stop.is_set():
                        break
                    changed |= inotify.read()
                if self.stop.is_set():
                    return
                if changed:
                    yield changed
        finally:
            self.stop.wakes.discard(wake)
            os.close(wake)
            inotify.close()

    def _notified(self, probe: _StopProbe) -> Iterator[set[str]]:
        """Changed paths as inotify (through watchfiles) reports them, a burst as one set; an
        empty set every RECHECK_MS while nothing changes."""
        import watchfiles

        for changes in watchfiles.watch(
            *self.paths,
            watch_filter=None,
            debounce=self.debounce_ms,
            step=STEP_MS,
            stop_event=probe,
            rust_timeout=RECHECK_MS,
            yield_on_timeout=True,
            raise_interrupt=False,
            ignore_permission_denied=True,
        ):
            yield {path for _, path in changes}

    def _polled(self, probe: _StopProbe) -> Iterator[set[str]]:
        """Changed paths found by polling (see `_Poller`), every POLL_MS."""
        suffixes = self.tracker._suffixes
        poller = _Poller(self.paths, lambda name: name.endswith(suffixes) or name.endswith(".md"))
        poller.sweep()  # what is there now: changes are compared with it
        next_sweep = time.monotonic() + poller.sweep_interval()
        while not probe.is_set():  # (the first question arms)
            if self.stop.wait(POLL_MS / 1000):
                return
            changed = poller.tick()
            if time.monotonic() >= next_sweep:
                changed |= poller.sweep()
                next_sweep = time.monotonic() + poller.sweep_interval()
            yield changed

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
