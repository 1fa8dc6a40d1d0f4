"""Live updates: watch the roots, batch the raw changes, and turn each batch into session events.

A burst of writes to one file becomes one event: changes are batched (a batch closes after
QUIET_MS without a new change, or DEBOUNCE_MS after its first), each batch is reduced to one event
per path, and the tracker (tracker.py) applies it to the library.

The changes come from one of three sources. On Linux the watcher reads inotify itself
(inotify.py): it blocks until the kernel has something, so an idle watcher wakes for nothing, and
a change is seen as it happens. watchfiles, used where inotify is missing (macOS, Windows), wakes
every STEP_MS to look at what its thread collected. `poll=True` is for file systems without change
notification: our own poller (poller.py) follows the files being written every POLL_MS and walks
everything in sweeps that take at most POLL_BUDGET of the time.

Why not watchfiles alone (issue 12; bench/bench_watch.py, 2,000 session files, 2 loaded cores,
2026-12-01; targets: a change on screen within 100 ms median, idle at most 0.2% of a core,
polling at most 2%): our reader takes 11 ms from append to event and 0.000% of a core idle.
watchfiles' wake-ups cost what its step saves: at 30 ms 42 ms and 0.32% idle (1.6x the target),
at 50 ms 80-95 ms and 0.19-0.23% (both at their edge), at 100 ms 147 ms (1.5x) and 0.10%; and it
follows directory links out of the root (a link to / meant a watch on every folder of the file
system), which the scan's walking rules forbid. Its poller stats every file each round: 11.4% of
a core at 100 ms (5.7x the target), 2.6% at 1 s (1.3x, a change ~750 ms late), and it compares
modification times to the second: an append in the same second as the change before it waits
for a later write. Our poller: 0.9%, a file being written followed within 40 ms (median).
"""
from __future__ import annotations

import os
import select
import threading
import time
from contextlib import AbstractContextManager, nullcontext
from typing import Any, Callable, Iterable, Iterator

from ..catalog.files import WAL
from ..catalog.library import Library
from ..read.discovery import ARCHIVE, candidate_files
from .inotify import Inotify, WakingEvent
from .poller import POLL_MS, Poller
from .tracker import SessionEvent, Tracker

_DB_WAL = ".db" + WAL
#: a SQLite database (OpenCode's: every session in one file, written at each message part while
#: OpenCode streams) is read again at most every DB_MIN_S, and at most this many times the last
#: reading's time (so its re-reading takes at most ~1/DB_COST_RATIO of a core however big it grows)
DB_MIN_S = 3.0
DB_COST_RATIO = 10.0
DEBOUNCE_MS = 150  # longest a burst is held back before it is reported
QUIET_MS = 10  # a batch closes after this long without a new change (our inotify reader)
STEP_MS = 30  # the same, and how often it wakes to look, for watchfiles (where inotify is missing);
# 50 ms would be at the idle target only at its edge, with 80-95 ms to the event (bench_watch.py)
# How often watchfiles hands back control while nothing changes (the first catch-up pass runs then).
RECHECK_MS = 1100


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



class Watcher:
    """Watches a library's roots (and extra paths, e.g. memory folders) and yields event batches.

    `lock`, when given, is held while a batch is applied to the library (and so to its catalog):
    an app that also reads or indexes the library in other threads shares it. `armed` is set once
    changes are being seen (what is written before that may be missed); `caught_up` once the
    changes made before that (since the library's last scan) are applied too."""

    def __init__(self, library: Library, *, poll: bool = False, extra: Iterable[str] = (),
                 debounce_ms: int = DEBOUNCE_MS, lock: AbstractContextManager[Any] | None = None) -> None:
        self.library = library
        self.tracker = Tracker(library)
        self.poll = poll
        self.debounce_ms = debounce_ms
        # (not the archive's mirrors: only `sessionscope archive` writes there, and the copy of a
        # deleted live file is read when its deletion is seen: Tracker._apply_one)
        self.paths = ([r.path for r in library.roots if r.error is None and os.path.isdir(r.path)
                       and not r.shallow and r.origin != ARCHIVE]
                      + [p for p in extra if os.path.isdir(p)])
        self.flat = self._flat_folders(library)
        self.db_min_s, self.db_cost_ratio = DB_MIN_S, DB_COST_RATIO
        self._db_next: dict[str, float] = {}  # a database -> when it may be read again
        self._held: set[str] = set()  # databases changed, waiting for that time
        self._wake_at: float | None = None  # the earliest of those times (the inotify reader wakes then)
        self.stop = WakingEvent()
        self.armed = threading.Event()
        self.caught_up = threading.Event()
        self.lock: AbstractContextManager[Any] = lock if lock is not None else nullcontext()

    def _flat_folders(self, library: Library) -> dict[str, tuple[frozenset[str], tuple[str, ...]]]:
        """The folders watched alone, with what matters in each: (names, name endings). A
        database root's folder (the database, and its write-ahead log, which OpenCode writes
        while it runs: reported as the database); a project folder root's (shallow: the files an
        adapter keeps there by name, as the scan reads it, `Adapter.project_files`). Watched by
        our inotify reader (Linux) and looked at by the poller (`--poll`); watchfiles (macOS,
        Windows) does not watch a folder alone: they wait for the next scan there."""
        endings = tuple(n for a in library.registry.adapters for n in a.project_files)
        flat: dict[str, tuple[frozenset[str], tuple[str, ...]]] = {}
        for r in library.roots:
            if r.error is not None or r.origin == ARCHIVE or self._in_tree(r.path):
                continue
            if r.shallow and endings and os.path.isdir(r.path):
                names, ends = flat.get(r.path, (frozenset(), ()))
                flat[r.path] = (names, endings)
            elif os.path.isfile(r.path):  # a database root
                folder, name = os.path.split(r.path)
                names, ends = flat.get(folder, (frozenset(), ()))
                flat[folder] = (names | {name}, ends)
        return flat

    def _in_tree(self, path: str) -> bool:
        return any(path == p or path.startswith(p.rstrip(os.sep) + os.sep) for p in self.paths)

    def _wanted(self, changed: set[str]) -> set[str]:
        """The changed paths as the tracker takes them: a SQLite database's write-ahead log
        reported as the database (OpenCode commits to the log while it runs); in a folder
        watched alone, only what matters there."""
        out = set()
        for path in changed:
            if path.endswith(_DB_WAL):
                path = path[: -len(WAL)]
            folder, name = os.path.split(path)
            what = self.flat.get(folder)
            if what is None or name in what[0] or (what[1] and name.endswith(what[1])):
                out.add(path)
        return out

    @staticmethod
    def _flat_wanted(names: frozenset[str], endings: tuple[str, ...]) -> Callable[[str], bool]:
        """Whether a file name in a folder watched alone matters (`_wanted`'s rule, by name: a
        database named there, or its write-ahead log, or a name with one of the endings)."""
        def wanted(name: str) -> bool:
            return (name in names or (name.endswith(_DB_WAL) and name[: -len(WAL)] in names)
                    or bool(endings) and name.endswith(endings))
        return wanted

    def batches(self) -> Iterator[list[SessionEvent]]:
        """Blocking: one list of events per batch of changes, until `stop` is set.

        Besides what is reported changed, every known file and every session file under the
        roots is compared with what the library holds once, soon after the watches are armed:
        changes between the library's last scan and the arming are not lost. Looking at an
        unchanged file costs a stat and reports nothing."""
        if not self.paths and not self.flat:
            return
        probe = _StopProbe(self.stop, self.armed)
        caught_up = False
        if self.poll:
            source = self._polled(probe)
        else:
            inotify = Inotify.open()
            if inotify is None and not self.paths:
                return  # (likewise watchfiles)
            source = self._inotified(inotify, probe) if inotify is not None else self._notified(probe)
        for paths in source:
            first = not caught_up
            if first:
                caught_up = True
                paths |= self._known_and_present()
            paths = self._hold_databases(paths)
            events: list[SessionEvent] = []
            if paths:
                started = time.monotonic()
                with self.lock:
                    events = self.tracker.apply(paths)
                self._databases_read(paths, time.monotonic() - started)
            if paths and (events or self.tracker.failures):  # (failures: said even with no event)
                yield events
            if first:  # (after the caller handled that batch: it asks for the next one)
                self.caught_up.set()

    def _hold_databases(self, paths: set[str]) -> set[str]:
        """The paths to apply now: a database read again too recently is held back (with the
        changes to it that follow) until its time comes, then applied once."""
        now = time.monotonic()
        due = {p for p in self._held if self._db_next.get(p, 0.0) <= now}
        self._held -= due
        out = paths | due
        for p in [p for p in out if p.endswith(".db") and self._db_next.get(p, 0.0) > now]:
            out.discard(p)
            self._held.add(p)
        self._wake_at = min((self._db_next[p] for p in self._held), default=None)
        return out

    def _databases_read(self, paths: set[str], took: float) -> None:
        now = time.monotonic()
        for p in paths:
            if p.endswith(".db"):
                self._db_next[p] = now + max(self.db_min_s, self.db_cost_ratio * took)

    def _inotified(self, inotify: Inotify, probe: _StopProbe) -> Iterator[set[str]]:
        """Changed paths as inotify reports them: a batch closes QUIET_MS after its last change
        or DEBOUNCE_MS after its first; an empty set once, when armed (for the catch-up pass),
        and when a held database's time comes (`_hold_databases`)."""
        wake = os.eventfd(0, os.EFD_NONBLOCK | os.EFD_CLOEXEC)
        self.stop.wakes.add(wake)
        try:
            inotify.roots = list(self.paths)
            for path in self.paths:
                inotify.add_tree(path)
            for folder in self.flat:
                inotify.add_dir(folder)
            poller = select.poll()
            poller.register(inotify.fd, select.POLLIN)
            poller.register(wake, select.POLLIN)
            if probe.is_set():  # (the first question arms)
                return
            yield set()
            while True:
                # (blocks: no timeout, no wake-ups while nothing happens; but when a database's
                # change is held back, until its time)
                wake_at = self._wake_at
                timeout = None if wake_at is None else max(0.0, (wake_at - time.monotonic()) * 1000)
                if not poller.poll(timeout) and wake_at is not None and not self.stop.is_set():
                    yield set()  # (a held database's time: `batches` applies it)
                    continue
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
                changed = self._wanted(changed)
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
            yield self._wanted({path for _, path in changes})

    def _polled(self, probe: _StopProbe) -> Iterator[set[str]]:
        """Changed paths found by polling (see `Poller`), every POLL_MS."""
        suffixes = self.tracker._suffixes
        poller = Poller(self.paths, lambda name: name.endswith(suffixes) or name.endswith((".md", _DB_WAL)),
                        {folder: self._flat_wanted(*what) for folder, what in self.flat.items()})
        poller.sweep()  # what is there now: changes are compared with it
        next_sweep = time.monotonic() + poller.sweep_interval()
        while not probe.is_set():  # (the first question arms)
            if self.stop.wait(POLL_MS / 1000):
                return
            changed = poller.tick()
            if time.monotonic() >= next_sweep:
                changed |= poller.sweep()
                next_sweep = time.monotonic() + poller.sweep_interval()
            yield self._wanted(changed)

    def take_changed(self) -> set[str]:
        """The files whose library rows the watcher changed since the last call (see Tracker)."""
        return self.tracker.take_changed()

    def _known_and_present(self) -> set[str]:
        """Every file the library knows and every session file under its roots (none when the
        library was never scanned, only loaded from its catalog: each would be read again)."""
        with self.lock:  # (the rows of a lazy scan are decoded when first asked for: not beside a call)
            if not self.library.rows and self.library.all_sessions():
                return set()
            found = set(self.library.rows)
        for root in self.library.roots:
            if root.error is None and root.origin != ARCHIVE:  # (not watched: see __init__)
                found.update(candidate_files(root, self.library.registry))
        return found
