"""The library: roots + adapters + catalog behind one object that the CLI and the app share.

`scan()` walks the roots, re-reads only files whose stat changed since the catalog saw them, and
links subagent/compaction/exec sessions to their parents. Sessions are looked up by id or unique
prefix, and loaded (entries) on demand.

On a cold catalog (a first launch, a deleted cache) the full parse of every file takes seconds to
minutes, so `scan(quick=True)` first lists the files the catalog does not know from their two ends
(core/read/listing.py, ~0.1 ms a file): their `ListedSession`s are in the session map at once, and
give way to the parsed sessions as the scan reads their files.
"""
from __future__ import annotations

import gc
import json
import os
import time
from bisect import bisect_left
from dataclasses import field, replace
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, NamedTuple, Sequence, overload

from ..onuse import orjson
from ..records import record
from .activity import activity_of, tail_activity
from .files import UNREADABLE, _NO_FORMAT, _readable_changed, _stat_matches, file_problem, wal_beside, with_wal
from .keys import AGENT, ID, PROJECT, Key, Keys, WarmKeys, keys_of
from .links import _link, _Links, _named_projects, in_folders
from .store import Catalog, FileRow, Fingerprint, LightRow, _zstd_installed, marks_of
from .warm import WarmRows
from ..read.discovery import ARCHIVE, Root, looked_for, looks_in_projects, project_root, roots_files
from ..model import Entry, EntryKind, Session, SessionKind
from ..config import ZSTD_HINT, CacheError
from ..read.walk import Listings, WalkReport

# The adapters (and the reader) come with the first scan or load, not with this module: the
# app's first frame needs only the catalog's sessions.
if TYPE_CHECKING:
    from ..read.adapters import Adapter, LoadedSession, Registry
    from ..read.ends import QuickMeta
    from .warm import Early

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


LINK_GROUP_BYTES = 64 << 20  # most file bytes of one directory held together for linking
#: main sessions of the unfiltered listing a warm scan answers without every key (`Keys.head`):
#: `sessions`' and `list_sessions`' default limit is 50; a longer listing reads every key
LISTING_HEAD = 100
#: files bigger than this are read thin by the scan (`Adapter.load_thin`: no entry's text held);
#: never linked then (linking compares texts), as a group holding one is over LINK_GROUP_BYTES
THIN_OVER = LINK_GROUP_BYTES + 1


class LookupFailed(Exception):
    """An unknown or ambiguous session id (the message says which)."""


@record
class ScanReport:
    roots: list[Root] = field(default_factory=list)
    files: int = 0
    reread: int = 0
    removed: int = 0
    errors: list[str] = field(default_factory=list)  # files, folders or roots that could not be read
    notes: list[str] = field(default_factory=list)  # e.g. default roots that do not exist
    skipped: list[str] = field(default_factory=list)  # folders left out on purpose (core/read/walk.py)


ProgressFn = Callable[[int, int, int, int], None]  # files done, files total, bytes done, bytes total


#: a quick-listing scan brings the session map up to date at most once per this many seconds
INTERIM_EVERY = 1.0
#: the newest (by mtime) files a quick listing lists before it first shows what it has
QUICK_FIRST = 100


class Interim(NamedTuple):
    """Where a quick-listing scan is when it has brought the session map up to date."""

    files_done: int  # files the scan has been through (read, or unchanged since the catalog saw them)
    files_total: int
    listed: int  # sessions in the map that are still the quick listing's (`ListedSession`)


InterimFn = Callable[[Interim], None]


@record(frozen=True, slots=True)
class ListedSession(Session):
    """A session as the quick listing saw its file's two ends, in the session map until the scan
    has parsed the file: no entry count, tokens, models or parent link, and the fields named in
    `unsure` are guesses (see core/read/listing.py). Its id is the file's path when the ends did not
    show one."""

    unsure: frozenset[str] = frozenset()


def listed_session(meta: QuickMeta) -> ListedSession | None:
    """The provisional session of a quick listing's result (None when it has an error)."""
    if meta.error is not None:
        return None
    return ListedSession(
        id=meta.session_id or meta.path, agent=meta.agent or "?", source_format=meta.format or "?",
        paths=(meta.path,), kind=meta.kind or SessionKind.MAIN, project=meta.project,
        title=meta.title, first_timestamp=meta.first_timestamp,
        last_timestamp=meta.last_timestamp or meta.sort_time, size=meta.size, unsure=meta.unsure)


def recency(s: Session) -> datetime:
    return s.last_timestamp or s.first_timestamp or _EPOCH


class Library:
    #: a warm scan may share its files' stats with a forked child (core/catalog/warm.py
    #: `same_stats(split=True)`): set by a command, whose process runs no other thread
    split_stats = False
    #: a warm scan's stat comparison begun before this library was made (cli/common.py
    #: `open_library`): the next warm scan takes its answer when it compares the same snapshot
    early: Early | None = None
    #: `prime_warm`'s outcome (False: not warm) and its last progress call, until used
    _primed: tuple[ScanReport | bool, tuple[int, int, int, int] | None] | None = None

    def __init__(
        self,
        roots: list[Root],
        *,
        registry: Registry | None = None,
        catalog: Catalog | None = None,
    ) -> None:
        self.roots = list(roots)
        self._registry = registry
        self._named: dict[str, Adapter | None] = {}  # default adapters imported one by one (`load`)
        self.catalog = catalog or Catalog(None)
        self._map: dict[str, Session] = {}
        self._file_errors: dict[str, str] = {}
        self._rows: dict[str, FileRow] = {}
        # After a lazy scan (`scan(lazy=True)`): its rows (those not read again only as the
        # catalog's keys), the keys linked, and the sessions decoded so far; `rows` and
        # `_sessions` decode the rest when first asked for (see `_decode_all`).
        self._lazy: dict[str, FileRow | LightRow] | None = None
        self._keys: Keys | WarmKeys | None = None
        self._decoded: dict[str, Session] = {}
        # After `lookup`: only the rows of one session and its kin are known; anything asking
        # for more (a listing, every row) scans first.
        self._partial = False
        self._links: _Links | None = None  # for relinking one changed file (see `_relink`)
        #: the token of the snapshot the last scan stored or found unchanged (core/catalog/warm.py):
        #: what the files are as far as a warm scan can tell; None: none (the next scan walks)
        self.warm_token: str | None = None
        self._prepared_for: tuple[dict[str, FileRow], dict[str, Session]] | None = None

    @property
    def rows(self) -> dict[str, FileRow]:
        """The files of the last scan, by path."""
        if self._lazy is not None:
            self._decode_all()
        return self._rows

    @rows.setter
    def rows(self, rows: dict[str, FileRow]) -> None:
        self._drop_lazy()
        self._rows = rows

    @property
    def _sessions(self) -> dict[str, Session]:
        """Every session by id, linked (`_link`), in the map's order."""
        if self._lazy is not None:
            self._decode_all()
        return self._map

    @_sessions.setter
    def _sessions(self, sessions: dict[str, Session]) -> None:
        self._drop_lazy()
        self._map = sessions

    def _drop_lazy(self) -> None:
        """Forget a lazy scan's state (what replaces it is set whole: nothing to decode)."""
        self._lazy, self._keys, self._decoded, self._partial = None, None, {}, False

    def _decode_all(self) -> None:
        """After a lazy scan: every row decoded and linked, as a scan that is not lazy leaves
        them (for the callers that need every session; the CLI's listings ask `Keys`)."""
        self._whole()
        lazy = self._lazy
        if lazy is None:
            return
        self._lazy, self._keys, self._decoded = None, None, {}
        whole = {}
        if any(isinstance(r, LightRow) for r in lazy.values()):
            whole = {r.path: r for r in self.catalog.all() if r.path in lazy}
        rows: dict[str, FileRow] = {}
        for path, row in lazy.items():
            if isinstance(row, LightRow):
                row = whole.get(path) or FileRow(
                    path, Fingerprint(row.dev, row.ino, row.size, row.mtime_ns, ""), None, [], row.error)
            rows[path] = row
        self._rows = rows
        self._map = _link([s for r in rows.values() for s in r.sessions], self.archived)

    def _whole(self) -> None:
        """After `lookup`, which knows one session's rows: a (lazy) scan, for the rest."""
        if self._partial:
            self._partial = False
            self.scan(lazy=True)

    @property
    def lazy(self) -> bool:
        """Whether the sessions are known by their keys only (after `scan(lazy=True)`), not yet
        decoded all."""
        return self._lazy is not None

    def row(self, path: str, hint: int | None = None) -> FileRow | None:
        """The last scan's row of one file (after a lazy scan or `lookup`, that row alone
        decoded): `rows.get(path)` without decoding every row. (`hint`: where the file may be
        among a warm scan's, `WarmRows.stat`.)"""
        lazy = self._lazy
        if lazy is None:
            return self.rows.get(path)
        if isinstance(lazy, WarmRows) and lazy.made(path) is None:
            seen: tuple[int, int, int] | None = lazy.stat(path, hint)  # (its LightRow would read every key)
        else:
            row = lazy.get(path)
            if not isinstance(row, LightRow):
                return row
            seen = (row.dev, row.ino, row.mtime_ns)
        if seen is None:
            return None
        whole = self.catalog.get(path)
        fp = None if whole is None else whole.fingerprint
        if fp is None or (fp.dev, fp.ino, fp.mtime_ns) != seen:
            return None  # (changed under us by another process)
        lazy[path] = whole
        return whole

    def _decode(self, sid: str) -> Session | None:
        """After a lazy scan: one session as `_link` over every row makes it (its copy kept,
        its project named, its linked children added), decoding its file's row alone."""
        keys, lazy = self._keys, self._lazy
        if keys is None or lazy is None:
            return self._sessions.get(sid)
        s = self._decoded.get(sid)
        if s is not None:
            return s
        place = keys.place(sid)
        if place is None:
            return None
        path, i = place
        row = self.row(path, keys.file_index(sid))
        if row is None or i >= len(row.sessions) or row.sessions[i].id != sid:
            # (changed under us by another process: decode all)
            return self._sessions.get(sid)
        s = row.sessions[i]
        key = keys.key(sid)
        assert key is not None  # (placed: known)
        if key[PROJECT] != s.project:
            s = replace(s, project=key[PROJECT])
        kids = keys.children(sid)
        if kids:
            s = replace(s, child_ids=tuple(dict.fromkeys([*s.child_ids, *kids])))
        self._decoded[sid] = s
        return s

    @property
    def registry(self) -> Registry:
        """The adapters; the default ones are made at first use (the first scan or load), so
        that reading the catalog alone, as the app's first frame does, never imports them."""
        if self._registry is None:
            from ..read.adapters import default_registry

            self._registry = default_registry()
        return self._registry

    # -- scanning -----------------------------------------------------------------------
    def load_cached(self) -> int:
        """Sessions as the catalog last saw them, without touching the files (for a first paint
        before `scan()` confirms them). Returns how many sessions are known."""
        sessions: list[Session] = []
        gc_was = gc.isenabled()
        gc.disable()  # ~10 objects per session, all long-lived: GC passes would only slow it
        try:
            every = list(self.catalog.sessions_by_file())
            self._add_project_roots(s.project for _, found in every for s in found)
            for path, found in every:
                if found and _under_any(path, self.roots):
                    sessions.extend(found)
        finally:
            if gc_was:
                gc.enable()
        self._sessions = _link(sessions, self.archived)
        return len(self._sessions)

    def load_cached_newest(self, count: int) -> int:
        """Like `load_cached`, but only as far as it takes to know the `count` most recent
        top-level sessions (with whatever else their files hold): a first screen of a long list
        in milliseconds, while `load_cached` reads the rest. Returns how many sessions are known.

        Files come newest first; a file holds no session newer than its own recency, so once
        `count` top-level sessions are at least as recent as the last file read, no file still
        unread can hold a newer one."""
        from .store import epoch_ms

        rows: list[FileRow] = []
        tops: list[int] = []  # the recency (epoch ms) of each top-level session read
        # A first page a little bigger than `count`: usually enough (some files hold only
        # child runs) without a second query.
        for floor, batch in self.catalog.by_recency(batch=count + count // 4 + 8):
            for row in batch:
                if _under_any(row.path, self.roots):
                    rows.append(row)
                    tops.extend(epoch_ms(recency(s)) for s in row.sessions if not is_child(s))
            if floor is None or sum(ms >= floor for ms in tops) >= count:
                break
        self._sessions = _link([s for r in rows for s in r.sessions], self.archived)
        return len(self._sessions)

    def _add_project_roots(self, projects: Iterable[str | None]) -> None:
        """With the agents' default roots, the known projects' folders join the roots (shallow):
        agents that keep their history in the project (Aider) are found there, without walking
        the disk (core/read/discovery.py `project_roots`)."""
        if not looks_in_projects(self.roots):
            return
        have = {r.path for r in self.roots if r.shallow}
        for p in sorted({p for p in projects if p and p not in have}):
            if os.path.isabs(p) and os.path.isdir(p):
                self.roots.append(project_root(p))
                have.add(p)

    def scan(self, progress: ProgressFn | None = None, *, quick: bool = False,
             interim: InterimFn | None = None, interim_every: float = INTERIM_EVERY,
             lazy: bool = False) -> ScanReport:
        """Bring the catalog and the session map up to date with the files under the roots.

        `quick`: the files the catalog does not know are first listed from their two ends, and
        their `ListedSession`s join the session map (with the catalog's sessions of the other
        files): after the newest QUICK_FIRST of them by mtime, then at most every
        `interim_every` seconds, and once all are listed. While the scan then reads the files, the
        map is brought up to date at most as often (the files read so far with their parsed
        sessions, the others as before), while any listed session is left in it; after the last
        file, the scan's own map replaces it. `interim` is called (in the scanning thread) each
        time the map has been replaced. A warm catalog knows every file: nothing is listed.

        `lazy` (not with `quick`): the unchanged files' sessions are not decoded; the session
        map is linked from the catalog's keys (core/catalog/keys.py), a session decoded when it
        is asked for (`get`, `find`, `top_level`), all of them when `rows` or the whole map is."""
        self._partial, self._primed = False, None
        lazy = lazy and not quick
        if lazy:
            warm = self._scan_warm(progress)
            if warm is not None:
                return warm
        if self.early is not None:  # (a comparison begun for a warm scan this one is not)
            self.early.cancel()
            self.early = None
        started_ns, given = time.time_ns(), list(self.roots)
        self.warm_token = None
        if not lazy and not self.catalog.complete_keys():
            self.catalog.light()  # (a migrated catalog: every row's keys made, once; the next scan is warm)
        known: dict[str, FileRow | LightRow] = (
            dict(self.catalog.light()) if lazy else {row.path: row for row in self.catalog.all()})
        self._add_project_roots(k[PROJECT] for _, keys in keys_of(known.values()) for k in keys)
        report = ScanReport(roots=list(self.roots), notes=list(self.catalog.messages))
        self.catalog.messages.clear()
        todo: list[tuple[str, os.stat_result]] = []
        live_roots = []
        for root in self.roots:
            err = root.error
            if err:
                (report.errors if root.explicit else report.notes).append(err)
                continue
            live_roots.append(root)
        walk = WalkReport()
        stats: dict[str, os.stat_result] = {}  # (the walk's own stat of each file)
        listings = Listings(self.catalog.folders())  # (folders unchanged since are not listed)
        # (each file once: an archive's copy only once its original is gone; the default
        # adapters' names known without importing them: nothing may need reading)
        stat_failed = False
        for path in roots_files(live_roots, self._registry, walk, stats, listings):
            try:
                todo.append((path, with_wal(path, stats.pop(path, None) or os.stat(path))))
            except FileNotFoundError:
                stat_failed = True
                continue  # removed since the walk listed it: nothing to miss
            except OSError as exc:
                stat_failed = True
                report.errors.append(f"cannot stat {path}: {exc.strerror}")
        report.errors += walk.errors()
        report.skipped += walk.notes()
        self._keep_listings(listings, live_roots)
        report.files = len(todo)
        seen = {p for p, _ in todo}
        gone = [p for p in known if p not in seen and _under_any(p, live_roots)]
        if gone:
            self.catalog.remove(gone)
            report.removed = len(gone)
        todo.sort(key=lambda item: item[0])  # files of one directory together
        rows: list[FileRow | LightRow] = []
        listed: dict[str, Session] = {}
        last_interim = 0.0

        def publish(done: int) -> None:
            nonlocal last_interim
            self._sessions = self._interim_map(rows, todo[done:], known, listed)
            last_interim = time.monotonic()
            if interim is not None:
                interim(Interim(done, len(todo), sum(isinstance(s, ListedSession)
                                                     for s in self._sessions.values())))

        total_bytes = sum(st.st_size for _, st in todo)
        done_bytes = 0
        group: list[tuple[FileRow, list[LoadedSession]]] = []
        group_dir, group_bytes = "", 0

        def flush() -> None:
            # Cross-file linking (resumed-session duplicates, summaries of other files) needs the
            # entries of a directory's sessions together; it is done for the files read in this
            # scan, a directory at a time, while that stays small enough to hold in memory.
            nonlocal group_bytes
            if group_bytes <= LINK_GROUP_BYTES:
                by_adapter: dict[str, list[LoadedSession]] = {}
                for row, loaded in group:
                    by_adapter.setdefault(row.adapter or "", []).extend(loaded)
                for name, loaded in by_adapter.items():
                    adapter = self.registry.by_name(name)
                    if adapter is not None and len(loaded) > 1:
                        try:
                            adapter.link(loaded)
                        except Exception as exc:  # noqa: BLE001 - linking is a refinement
                            report.notes.append(f"linking sessions in {group_dir} failed: {exc}")
            with self.catalog.transaction():  # one commit per directory, not per file
                for row, loaded in group:
                    if loaded:  # as linking left them
                        row.sessions = [ls.session for ls in loaded]
                        row.activity = activity_of(loaded)
                    self.catalog.put(row)
                    row.activity = None  # (stored: not held in memory with the scan's rows)
            group.clear()
            group_bytes = 0

        gc_was = gc.isenabled()
        gc.disable()  # parsing allocates many long-lived objects: GC passes halve throughput
        try:
            if quick:
                unknown = [(p, st) for p, st in todo if p not in known]
                if unknown:
                    self._quick_list(unknown, listed, lambda: publish(0), interim_every)
            listed_left = len(listed)
            for i, (path, st) in enumerate(todo):
                row = known.get(path)
                if row is None or not _stat_matches(row.fingerprint, st) or _readable_changed(row, path, st):
                    directory = os.path.dirname(path)
                    if directory != group_dir:
                        flush()
                        group_dir = directory
                    if isinstance(row, LightRow):  # (its sessions, to read it on from)
                        row = self.catalog.get(path)
                    grown = self._read_on(row, path, st) if row is not None else None
                    row, loaded = (grown, []) if grown is not None else self._load_file(path, st, row)
                    group.append((row, loaded))
                    group_bytes += st.st_size
                    if group_bytes > LINK_GROUP_BYTES:
                        flush()
                    report.reread += 1
                rows.append(row)
                done_bytes += st.st_size
                if listed_left:
                    listed_left -= path in listed
                    if listed_left and time.monotonic() - last_interim >= interim_every:
                        publish(i + 1)
                if progress:
                    progress(i + 1, len(todo), done_bytes, total_bytes)
            flush()
        finally:
            if gc_was:
                gc.enable()
        self._lazy = None
        linked = None
        if not quick:
            linked = self._keep_warm(given, todo, rows, listings, live_roots, started_ns,
                                     not stat_failed and not walk.errors() and not walk.notes())
        if lazy:
            self._lazy, self._decoded = {r.path: r for r in rows}, {}
            self._keys = linked or Keys(keys_of(rows), self.archived)
            self._rows, self._map = {}, {}
        else:
            self.rows = {r.path: r for r in rows}  # type: ignore[misc]  # (FileRows all)
        self._file_errors = {r.path: r.error for r in rows if r.error}
        report.errors.extend(f"{p}: {e}" for p, e in self._file_errors.items())
        if not lazy:
            self._sessions = _link([s for r in rows for s in r.sessions], self.archived)  # type: ignore[union-attr]
        return report

    def scan_warm(self, progress: ProgressFn | None = None) -> ScanReport | None:
        """`scan(lazy=True)` when the last scan's snapshot shows nothing changed (no walk, no
        row read); None, with nothing done, when something may have: the caller scans. (The
        outcome of `prime_warm`, when it ran just before and nothing else since.)"""
        primed, self._primed = self._primed, None
        if primed is not None:
            report, said = primed
            if progress is not None and said is not None:
                progress(*said)  # (what the primed scan told its progress)
            return report if isinstance(report, ScanReport) else None
        self._partial = False
        return self._scan_warm(progress)

    def prime_warm(self) -> None:
        """`scan_warm` now, its outcome kept for the next call of it. Why: a command runs it
        before opening the search index, whose reader starts a thread; with one thread only,
        the warm scan shares its stats with a forked child (`split_stats`)."""
        said: list[tuple[int, int, int, int]] = []
        report = self.scan_warm(lambda *done: said.append(done))
        self._primed = (report if report is not None else False, said[-1] if said else None)

    def _scan_warm(self, progress: ProgressFn | None) -> ScanReport | None:
        """A lazy scan's outcome when the last scan of these roots left a snapshot and every
        folder and file it saw has the same stat now (core/catalog/warm.py): its rows and keys,
        no folder walked, no row read one by one. None: the scan must walk."""
        gc_was = gc.isenabled()
        gc.disable()  # (the stats' numbers and 20,000 keys, all kept: GC passes would only traverse them)
        try:
            return self._warm_report(progress)
        finally:
            if gc_was:
                gc.enable()

    def _warm_report(self, progress: ProgressFn | None) -> ScanReport | None:
        early, self.early = self.early, None
        try:
            return self._warm_report_with(progress, early)
        finally:
            if early is not None:
                early.cancel()  # (not taken, or taken already: nothing then)

    def _warm_report_with(self, progress: ProgressFn | None, early: Early | None) -> ScanReport | None:
        from . import warm

        cat = self.catalog
        self.warm_token = None
        sig = warm.signature(self.roots, looked_for(self._registry))
        # (a token names one snapshot of one signature: the row of this one naming the early
        # comparison's token is the snapshot it compares)
        found = cat.warm_scan(sig, None if early is None else (early.token, early.parts))
        if found is None or not cat.complete_keys():
            return None
        (paths_blob, stats_blob, folders_blob, fstats_blob, data_blob), token = found
        try:
            data = json.loads(data_blob)  # (~60 KB: json, not orjson; core/onuse.py)
        except ValueError:
            return None
        if data["zstd"] and _zstd_installed():
            return None  # (files not read for want of zstandard, which is there now: read them)
        if looks_in_projects(self.roots):  # (the projects of every row, as the scan's)
            known = data.get("projects")
            self._add_project_roots(known[1] if known and cat.rows_stamp() == known[0] else cat.projects()[1])
        errors = [(root, root.error) for root in self.roots]
        live = [root for root, err in errors if err is None]
        if warm.roots_key(live) != data["roots"]:
            return None
        if wal_beside(data.get("db", ())):
            return None  # (a database being written: its log's changes are not in the snapshot's stats)
        if early is not None and early.token == token:
            paths = early.paths
            if not early.same():  # (the comparison begun before: see warm.Early)
                return None
        else:
            paths = warm.unpack_paths(paths_blob)
            if not warm.same_stats([(paths, stats_blob, warm.FILE_FIELDS),
                                    (warm.unpack_paths(folders_blob), fstats_blob, warm.FOLDER_FIELDS)],
                                   split=self.split_stats):
                return None
        report = ScanReport(roots=list(self.roots), notes=list(cat.messages))
        cat.messages.clear()
        for root, err in errors:
            if err:
                (report.errors if root.explicit else report.notes).append(err)
        stats = warm.unpack_stats(stats_blob)
        file_errors = data["errors"]
        stored = warm.StoredKeys(cat, sig, token, paths, self.archived)
        self._lazy, self._decoded = warm.WarmRows(paths, stats, dict(file_errors), stored.lists), {}
        self._keys = WarmKeys(data.get("head"), stored.keys, stored.heads)
        self._rows, self._map = {}, {}
        self._file_errors = {paths[i]: e for i, e in file_errors}
        report.files = len(paths)
        report.errors.extend(f"{p}: {e}" for p, e in self._file_errors.items())
        self.warm_token = token
        if progress:
            total = sum(stats[2::warm.FILE_FIELDS])
            progress(len(paths), len(paths), total, total)
        return report

    def _keep_warm(self, given: list[Root], todo: list[tuple[str, os.stat_result]],
                   rows: list[FileRow | LightRow], listings: Listings, live: list[Root], started_ns: int,
                   trusted: bool) -> Keys | None:
        """Store what this scan saw for the next one to compare with (`_scan_warm`), when it
        is `trusted` (no folder unreadable, no file vanished, nothing skipped), every folder it
        walked may be trusted (core/read/walk.py `Listings`) and every shallow root's folder too;
        else forget what was stored for these roots. Returns the rows' linked keys when it made
        them (stored with the rest: the next scan restores them rather than linking again)."""
        from . import warm
        from ..read.walk import LISTING_MARGIN_NS

        self.warm_token = None
        sig = warm.signature(given, looked_for(self._registry))
        folders = dict(listings.trusted)
        trusted = trusted and len(folders) == len(listings.visited)
        for root in live:
            if root.shallow and trusted:
                try:
                    st = os.stat(root.path)
                except OSError:
                    trusted = False
                    break
                trusted = max(st.st_mtime_ns, st.st_ctime_ns) < started_ns - LISTING_MARGIN_NS
                folders[root.path] = (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_ctime_ns)
        try:
            if not trusted:
                self.catalog.drop_warm_scan(sig)
                return None
            errors = [[i, r.error] for i, r in enumerate(rows) if r.error]
            paths = [p for p, _ in todo]
            keys = [k for _, k in keys_of(rows)]
            keys_blob = orjson.dumps(keys)  # (before linking: it fills in the keys' paths and names)
            linked = Keys(zip(paths, keys), self.archived)
            at = {p: n for n, p in enumerate(paths)}
            state = linked.state(at)
            keys_blob = b'{"keys":' + keys_blob + b',"linked":' + orjson.dumps(state) + b"}"
            data = {"roots": warm.roots_key(live), "errors": errors,
                    "zstd": any(ZSTD_HINT in e for _, e in errors),
                    # (SQLite databases, a root or in a folder: not trusted while a log is beside one)
                    "db": [p for p in paths if p.endswith(".db")],
                    # (the projects the next scan's project roots come from, while no row changes)
                    "projects": self.catalog.projects() if looks_in_projects(given) else None,
                    # (projects named by linking (Gemini): the listing is made from every key)
                    "head": None if state is None else linked.head(LISTING_HEAD, at)}
            snap = (warm.pack_paths(paths), warm.file_stats(st for _, st in todo),
                    warm.pack_paths(list(folders)), warm.folder_stats(folders.values()), orjson.dumps(data))
            stored = self.catalog.warm_scan(sig)
            if (stored is not None and stored[0] == snap
                    and self.catalog.warm_part(sig, stored[1], "keys") == keys_blob):
                self.warm_token = stored[1]
            else:
                token = os.urandom(8).hex()
                self.catalog.set_warm_scan(sig, snap, keys_blob, None if state is None else warm.pack_heads(linked.by_id),
                                           token)
                self.warm_token = token
        except OverflowError:
            return None  # (a stat beyond 64 bits: no snapshot, the next scan walks)
        except CacheError:
            pass  # (a cache that cannot be written: the next scan walks)
        return linked

    def lookup(self, ref: str, *, exact: bool = False) -> Session | None:
        """The session `find(ref)` names (`exact`: `get(ref)`), from the catalog as the last scan
        left it, without walking the roots: only the files that hold it, its copies, its parent
        and its children are stat'ed. None when the catalog does not name one session by `ref`,
        or when one of those files changed (or is gone, or became unreadable): a scan then says
        what is there. The library is then as after a lazy scan of those rows (`find`, `get`,
        `load` work; `rows` and the whole map decode every row).

        Why: `read ID` and `recent ID` show one session; a walk and a stat of 20,000 files was
        most of their time. (What it cannot see: a file added since the last scan holding a
        copy or a child of the session, or an id that makes the prefix ambiguous.)"""
        if os.path.isfile(ref) or not ref:
            return None  # (a transcript's path: what the scan found under the roots decides)
        if not self.catalog.complete_keys():
            self.catalog.light()  # (a migrated catalog: every row's keys and ids made, once)
        found = self.catalog.ids_like(ref, exact)
        if not found and not exact:  # (as `find`: a child as PARENT-PREFIX/CHILD, or by its own part)
            head, _, tail = ref.rpartition("/") if "/" in ref else ("", "", ref)
            found = self.catalog.child_ids_like(head, tail)
            whole = {i for i, *_ in found if i.partition("/")[2] == tail}
            found = [f for f in found if f[0] in whole] if len(whole) == 1 else found
        ids = {sid: kind for sid, _, kind, _ in found}
        if ref in ids:  # (an id given whole, even where it is the prefix of another)
            ids = {ref: ids[ref]}
        if len(ids) > 1:  # a parent among its own children: the parent (as `find`)
            ids = {sid: kind for sid, kind, parent in ((i, k, p) for i, _, k, p in found)
                   if kind == "main" and parent is None}
        if len(ids) != 1:
            return None  # (none, or ambiguous, or a child named by its own part: the scan says)
        sid = next(iter(ids))
        parents = {p for i, _, _, p in found if i == sid and p}
        paths = self.catalog.kin_paths([sid, *parents]) | {path for _, path, _, _ in found}
        rows = self.catalog.light_of(sorted(paths))
        self._add_project_roots(k[PROJECT] for row in rows for k in row.keys)
        live = [r for r in self.roots if r.error is None]
        rows = [r for r in rows if _under_any(r.path, live)]
        if any(k[AGENT] == "gemini-cli" for r in rows for k in r.keys):
            return None  # (its project may be named by any other session's: the scan's keys)
        for row in rows:
            try:
                st = with_wal(row.path, os.stat(row.path))
            except OSError:
                return None
            if not _stat_matches(row.fingerprint, st) or _readable_changed(row, row.path, st):
                return None
        self._lazy, self._decoded, self._keys = {r.path: r for r in rows}, {}, Keys(keys_of(rows), self.archived)
        self._rows, self._map, self._partial = {}, {}, True
        self._file_errors = {r.path: r.error for r in rows if r.error}
        return self._decode(sid)

    def _keep_listings(self, listings: Listings, roots: list[Root]) -> None:
        """Store what the walk listed anew, forget the folders it no longer found."""
        fresh = {p: row for p, row in listings.fresh.items() if listings.known.get(p) != row}
        gone = [p for p in listings.known if p not in listings.visited and _under_any(p, roots)]
        if fresh or gone:
            try:
                with self.catalog.transaction():
                    self.catalog.set_folders(fresh, gone)
            except CacheError:
                pass  # (a cache that cannot be written: listed again next time)

    def _quick_list(self, files: list[tuple[str, os.stat_result]], listed: dict[str, Session],
                    publish: Callable[[], None], every: float) -> None:
        """Quick-list `files` into `listed` (by path), newest first, publishing as the scan's
        docstring says."""
        from ..read.listing import quick_meta
        from ..read.passes import one_pass

        registry = self.registry
        files = sorted(files, key=lambda item: item[1].st_mtime, reverse=True)
        last = time.monotonic()
        with one_pass():  # (what every file of a folder asks of it, asked once: read/passes.py)
            for n, (path, _) in enumerate(files, 1):
                session = listed_session(quick_meta(path, registry))
                if session is not None:
                    listed[path] = session
                if (n == len(files) or n == QUICK_FIRST
                        or (n > QUICK_FIRST and time.monotonic() - last >= every)):
                    publish()
                    last = time.monotonic()

    def _interim_map(self, rows: list[FileRow], pending: list[tuple[str, os.stat_result]],
                     known: dict[str, FileRow], listed: dict[str, Session]) -> dict[str, Session]:
        """The session map in the middle of a scan: the rows read so far, and for the files
        still to come, their catalog rows' sessions or else their listed ones."""
        sessions = [s for r in rows for s in r.sessions]
        for path, _ in pending:
            row = known.get(path)
            if row is not None:
                sessions.extend(row.sessions)
            else:
                found = listed.get(path)
                if found is not None:
                    sessions.append(found)
        return _link(sessions, self.archived)

    def read_on(self, row: FileRow, st: os.stat_result) -> FileRow | None:
        """The row of `row`'s file grown to `st` from its appended lines alone, as a whole read
        would give it (not stored); None when it must be read whole (`_read_on`). For the live
        tracker, whose own reading of the new lines gives their entries, not the session."""
        return self._read_on(row, row.path, st)

    def _read_on(self, row: FileRow, path: str, st: os.stat_result) -> FileRow | None:
        """The row of a file that grew by appending, from its lines after `row.read_end` alone
        (what the adapter's `extend` makes of them, with what the reading so far carried where
        the adapter needs it); None when it must be read whole: it shrank, is another file, its
        first 4 KB changed, its adapter cannot carry a session over (`continues`, `grows`, a
        carry of this read_end), its row holds other than one session, or its last line, not
        yet ended by a newline, parses (a whole read would count it; the next could not tell)."""
        import hashlib

        from ..read.jsonl import RecordFile, ReaderError, compressed

        fp = row.fingerprint
        if (row.read_end < 0 or row.error or len(row.sessions) != 1 or compressed(path)
                or (st.st_dev, st.st_ino) != (fp.dev, fp.ino) or st.st_size < fp.size):
            return None
        adapter = self.registry.by_name(row.adapter or "")
        if adapter is None or not adapter.continues or not adapter.grows(path):
            return None
        carried: object = None
        if adapter.carries:
            blob = self.catalog.carried(path, row.read_end)
            if blob is None:
                return None
            carried = blob
        try:
            with RecordFile(path) as rf:
                if rf.size != st.st_size or rf.size < row.read_end:
                    return None  # changed again since the stat: read whole
                buf = rf.buffer
                if hashlib.sha1(buf[:min(4096, fp.size)]).hexdigest() != fp.head_hash:
                    return None
                end = rf.complete_end
                parser = adapter.parser_on(path, carried)
                if parser is None:
                    return None
                fed: list[Entry] = []
                for parsed in rf.iter_parsed(row.read_end, row.read_lines + 1):
                    if parsed.raw.offset >= end:
                        return None  # an unterminated last line that parses
                    fed.extend(parser.feed(parsed))
                ext = adapter.extend(row.sessions[0], parser, st.st_size, carried)
                if ext is None:
                    return None
                before = row.sessions[0] if ext.usage_before is None else replace(
                    row.sessions[0], usage=ext.usage_before)
                return FileRow(path, Fingerprint.of(path, st), row.adapter, [ext.session], None,
                               end, row.read_lines + parser.account.lines,
                               tail_activity(before, ext.session, fed if ext.entries is None else ext.entries),
                               activity_added=True, carry=_carry_blob(ext.carry))
        except (OSError, ReaderError):
            return None  # the whole read says why

    def _load_file(self, path: str, st: os.stat_result,
                   old: FileRow | None = None) -> tuple[FileRow, list[LoadedSession]]:
        """A file's row and its loaded sessions (empty when unreadable or not a transcript). A
        file of many sessions rewritten in place (`Adapter.load_changed`) is read again only for
        the sessions that changed since `old`, its row as the catalog holds it: the loaded
        sessions are then those alone, and the row holds them with the others kept."""
        from ..read.jsonl import ReaderError, compressed

        try:
            fp = Fingerprint.of(path, st)
        except OSError as exc:
            fp = Fingerprint(st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, "")
            return FileRow(path, fp, None, [], f"{UNREADABLE}{exc.strerror}", activity=[]), []
        adapter = self.registry.sniff(path)
        row = FileRow(path, fp, adapter.name if adapter else None, [], None, activity=[])
        loaded: list[LoadedSession] = []
        if adapter is not None:
            # A big file's entries are read thin (no texts): the catalog needs its sessions, and
            # the index reads the file itself, in batches (core/search/ingest.py).
            thin = st.st_size >= THIN_OVER
            try:
                if adapter.grows(path) and not compressed(path):
                    loaded = self._load_noting_end(adapter, path, row, thin)
                elif (apart := self._load_changed(adapter, path, row, old)) is not None:
                    return row, apart
                else:
                    loaded = adapter.load_thin(path) if thin else adapter.load(path)
                # (the map as it is: after a lazy scan, its decoded part, never all decoded for this)
                row.sessions = _named_projects([ls.session for ls in loaded], self._map.values())
                row.activity = activity_of(loaded)
            except ReaderError as exc:
                row.error = str(exc)
            except Exception as exc:  # noqa: BLE001 - one bad file must not stop the scan
                row.error = f"could not be read ({type(exc).__name__}: {exc})"
        return row, loaded

    def _load_changed(self, adapter: Adapter, path: str, row: FileRow,
                      old: FileRow | None) -> list[LoadedSession] | None:
        """`_load_file` of a file whose adapter reads its sessions apart (`load_changed`; None:
        not such a file): `row` filled in with every session and its activity, and with the
        marks as its carry (read_end stays -1: nothing is read on); the loaded sessions when
        every one was read, else none (the sessions kept come from `old` and its stored
        activity). Read whole when `old` is of another reading than its marks say (a kept
        session missing from it)."""
        marks = None
        if old is not None and old.adapter == adapter.name and not old.error and old.read_end < 0:
            marks = marks_of(self.catalog.carried(path, -1))
        changed = adapter.load_changed(path, marks)
        if changed is None:
            return None
        fresh = {ls.session.id: ls for ls in changed.loaded}
        before = {s.id: s for s in old.sessions} if old is not None and marks is not None else {}
        if changed.whole or marks is None or any(sid not in fresh and sid not in before for sid in changed.marks):
            if marks is not None and not changed.whole:  # (the old row does not hold what its marks say)
                changed = adapter.load_changed(path, None)
                assert changed is not None
            row.sessions = _named_projects([ls.session for ls in changed.loaded], self._map.values())
            row.activity = activity_of(changed.loaded)
            row.carry = None if changed.whole else orjson.dumps(changed.marks)
            return changed.loaded
        named = dict(zip(fresh, _named_projects([ls.session for ls in changed.loaded], self._map.values())))
        row.sessions = [named.get(sid) or before[sid] for sid in changed.marks]
        row.activity = [a for a in self.catalog.file_activity(path) if a[0] in before and a[0] not in fresh
                        and a[0] in changed.marks] + activity_of(changed.loaded)
        row.carry = orjson.dumps(changed.marks)
        return []  # (the row is made: nothing for the scan to link or to make it from again)

    @staticmethod
    def _load_noting_end(adapter: Adapter, path: str, row: FileRow, thin: bool = False) -> list[LoadedSession]:
        """`adapter.load(path)` (`load_thin` with `thin`), noting in `row` where the reading
        stopped (`read_end`, `read_lines`) when a later scan can read on from there (if its
        adapter `continues`): one session, read at the size the fingerprint has, with no
        unterminated last line fed to the parser. Noted for every format that appends lines: the
        count is also where a tail's line numbers start (`RecordFile.tail(mark=...)`), without
        counting the file's newlines."""
        from ..read.jsonl import RecordFile
        from . import tails  # (here: a warm command reads no file)

        # A whole reading stores its windows, or none found (`verified` 0): a window stored under
        # an earlier fingerprint then says that every line since was read on, never read whole
        # (tails.regrow carries it across that growth).
        row.tail, row.head = tails.no_marks(row.fingerprint)
        with RecordFile(path) as rf:
            loaded = adapter.load_thin(path, rf) if thin else adapter.load(path, rf)
            if len(loaded) == 1 and rf.size == row.fingerprint.size:
                end, account = rf.complete_end, loaded[0].account
                if end + account.pending_bytes == rf.size:
                    row.read_end, row.read_lines = end, account.lines
                    if adapter.continues:  # what reading on needs of the part read
                        carry = loaded[0].carry
                        try:
                            row.carry = _carry_blob(carry() if carry is not None else None)
                        except Exception:  # noqa: BLE001 - carrying is a refinement: read whole next time
                            row.carry = None
                    # where `recent` can read its last entries, and `read` its first ones
                    tail, head = tails.find_ends(adapter, path, rf, loaded[0], row.fingerprint, end,
                                                 account.lines, thin)
                    row.tail, row.head = tail or row.tail, head or row.head
        return loaded

    def _read_file(self, path: str, st: os.stat_result) -> FileRow:
        row, _ = self._load_file(path, st)
        self.catalog.put(row)
        row.activity = None  # (stored: not held in memory)
        return row

    # -- single files (live updates) -----------------------------------------------------
    def read_file(self, path: str) -> FileRow:
        """Read (or re-read) one file whole and make its sessions current."""
        return self.read_file_loaded(path)[0]

    def read_file_loaded(self, path: str) -> tuple[FileRow, list[LoadedSession]]:
        """`read_file`, with the sessions it loaded (their entries: what a new file reports)."""
        row, loaded = self._load_file(path, with_wal(path, os.stat(path)), self.catalog.get(path))
        self.put_row(row)
        return row, loaded

    def put_row(self, row: FileRow) -> None:
        """Make a file's row current in the catalog and the session map."""
        self.catalog.put(row)
        row.activity = None  # (stored: not held in memory)
        old = self.rows.get(row.path)
        self.rows[row.path] = row
        self._relink(row.path, old, row)

    def drop_file(self, path: str) -> FileRow | None:
        """Forget a deleted file; its row as it was, if it was known."""
        row = self.rows.pop(path, None)
        self.catalog.remove([path])
        self._relink(path, row, None)
        return row

    def prepare_relink(self) -> None:
        """Index the rows for relinking one file at a time now, if the session map is what
        linking them makes (it is after a scan): a watcher calls this when it starts, so that
        its first change does not pay for the index (~25 ms at 20k files; more under load)."""
        links, tried = self._links, self._prepared_for
        if not self.rows or (links is not None and links.rows is self.rows and links.sessions is self._sessions):
            return
        if tried is not None and tried[0] is self.rows and tried[1] is self._sessions:
            return  # looked at already: the map is not the rows' (the next change links in full)
        self._prepared_for = (self.rows, self._sessions)
        links = _Links.build(self.rows, self.archived)
        if list(links.sessions.items()) == list(self._sessions.items()):
            links.sessions = self._sessions
            self._links = links

    def _relink(self, path: str | None = None, old: FileRow | None = None,
                new: FileRow | None = None) -> None:
        """The session map (and file errors) after one file's row changed from `old` to `new`
        (None: absent), as `_link` over every row would make it, down to the map's order.

        Live updates call this on every append: linking all rows again cost 12 ms at 20k files
        (bench/bench_live.py), so only the sessions of the changed file and their parents are
        recomputed, from an index of the rows kept since the last full link (`_Links`). A full
        link runs when there is no such index for the current rows and map (after a scan or a
        catalog load replaced them), or when a change would move a session within the map's
        order (a rewrite with new ids, a duplicated id losing its first copy): rare events."""
        links = self._links
        if (path is None or links is None or links.rows is not self.rows
                or links.sessions is not self._sessions
                or not links.apply(path, old, new, len(self.rows))):
            self._links = _Links.build(self.rows, self.archived)
            self._sessions = self._links.sessions
            self._file_errors = {r.path: r.error for r in self.rows.values() if r.error}
            return
        self._sessions = links.sessions
        if bool(old is not None and old.error) != bool(new is not None and new.error):
            self._file_errors = {r.path: r.error for r in self.rows.values() if r.error}
        elif new is not None and new.error:
            self._file_errors[path] = new.error

    def covers(self, path: str) -> bool:
        return _under_any(path, self.roots)

    # -- the archive (`sessionscope archive`'s mirrors, roots of origin ARCHIVE) ---------------
    @property
    def archived(self) -> tuple[str, ...]:
        """The archive's roots: their copies of a session give way to a live one."""
        return tuple(r.path for r in self.roots if r.origin == ARCHIVE)

    def shadowed(self, row: FileRow) -> bool:
        """Whether a file is an archived copy whose every session is served from another file
        (the live one, while it exists): the index leaves it out, so no hit is found twice."""
        archived = self.archived
        if not archived or not row.sessions or not in_folders(row.path, archived):
            return False
        for s in row.sessions:
            won = self._sessions.get(s.id)
            if won is None or row.path in won.paths:
                return False
        return True

    def archived_copy(self, path: str) -> str | None:
        """The archive's copy of a live file (where `sessionscope archive` mirrors it), if there
        is one: what serves its sessions once the agent deleted it."""
        for a in self.roots:
            src = (a.source or "").rstrip(os.sep)
            if a.origin == ARCHIVE and src and (path.startswith(src + os.sep) if not a.shallow
                                                 else os.path.dirname(path) == src):
                copy = a.path.rstrip(os.sep) + path[len(src):]
                if os.path.isfile(copy):
                    return copy
        return None

    # -- lookups ------------------------------------------------------------------------
    @property
    def file_errors(self) -> dict[str, str]:
        return dict(self._file_errors)

    def all_sessions(self) -> list[Session]:
        return sorted(self._sessions.values(), key=recency, reverse=True)

    def sessions(
        self,
        *,
        agent: str | None = None,
        project: str | None = None,
        include_children: bool = False,
    ) -> list[Session]:
        """Most recent first; children (subagent, compaction, exec, warmup) only when asked."""
        out = []
        for s in self.all_sessions():
            if not include_children and is_child(s):
                continue
            if agent and agent.lower() not in (s.agent.lower(), s.source_format.lower()):
                continue
            if project and project.lower() not in (s.project or "").lower():
                continue
            out.append(s)
        return out

    def get(self, session_id: str) -> Session | None:
        if self._keys is not None:
            return self._decode(session_id)
        return self._sessions.get(session_id)

    def session_ids(self) -> list[str]:
        """Every session's id (after a lazy scan, none decoded for it)."""
        self._whole()
        if self._keys is not None:
            return list(self._keys.ids())
        return list(self._sessions)

    def short_ids(self, ids: Sequence[str]) -> dict[str, str]:
        """Each of `ids` as a table prints it: core/format.py's `short_ids` over every session's
        id (and `ids`); after a warm scan without reading every key: from what it kept of the
        listing's first sessions when they are all of `ids`, else from every id's head it kept."""
        from ..format import short_among, short_ids

        if self._keys is not None:
            kept = {sid: self._keys.short(sid) for sid in ids}
            if all(kept.values()):
                return kept  # type: ignore[return-value]
            heads = self._keys.heads()
            if heads is not None:  # (every id's head, kept by the scan: no key read)
                for head in {sid.partition("/")[0] for sid in ids}:
                    at = bisect_left(heads, head)
                    if at == len(heads) or heads[at] != head:
                        heads.insert(at, head)  # (a session not of this library: as short_ids counts it)
                return short_among(heads, list(ids))
        return short_ids([*self.session_ids(), *ids], only=ids)

    def kind_of(self, session_id: str) -> str | None:
        """A session's kind (`SessionKind` value), None when it is not known."""
        if self._keys is not None:
            return self._keys.kind(session_id)
        s = self._sessions.get(session_id)
        return None if s is None else s.kind.value

    def top_level(self, *, agent: str | None = None, project: str | None = None,
                  orphans: bool = True) -> tuple[Sequence[Session], set[str]]:
        """The sessions a listing starts from, most recent first: the main sessions, and (with
        `orphans`) the children whose parent is not known (a `codex exec` run has none, a subagent
        file may have outlived its parent's); plus the ids of those orphans, listed or not. After
        a lazy scan the sequence decodes a session when it is taken from it.

        Why: nesting children under their parents alone would never show an orphan at all."""
        self._whole()
        if self._keys is not None:
            keys, found = self._keys.top_level(agent, project, orphans)
            return _Decoding(self, keys), found
        top: list[Session] = []
        found = set()
        for s in self.sessions(agent=agent, project=project, include_children=True):
            if not is_child(s):
                top.append(s)
            elif s.parent_id is None or self.get(s.parent_id) is None:
                found.add(s.id)
                if orphans:
                    top.append(s)
        return top, found

    def find(self, prefix: str) -> Session:
        if self._keys is not None and not os.path.isfile(prefix):
            ids = self._keys.find(prefix) if prefix else []
            if len(ids) == 1:
                found = self._decode(ids[0])
                if found is not None:
                    return found
            elif ids:
                raise LookupFailed(f"session id {prefix!r} is ambiguous: {len(ids)} match "
                                   f"({', '.join(sorted(ids)[:5])})")
            else:
                raise LookupFailed(self._no_session_file(prefix) or f"no session matches id {prefix!r}")
        if prefix in self._sessions:
            return self._sessions[prefix]
        if os.path.isfile(prefix):  # a transcript's path, as `ls` or a file manager gives it
            return self._find_file(prefix)
        matches = [s for sid, s in self._sessions.items() if sid.startswith(prefix)]
        if prefix and not matches:
            # A child as `PARENT-PREFIX/CHILD` (how lists show one), or by its own part alone
            # (`agent-a662314`) when only one child has it; the child part in full or as a prefix.
            head, slash, tail = prefix.rpartition("/") if "/" in prefix else ("", "", prefix)
            matches = [s for sid, s in self._sessions.items()
                       if (parts := sid.partition("/"))[1] and parts[0].startswith(head) and parts[2].startswith(tail)]
            # `P/agent-1` names agent-1, not also agent-10: a child part given whole is that child.
            whole = [s for s in matches if s.id.partition("/")[2] == tail]
            matches = whole if len(whole) == 1 else matches
        if not prefix or not matches:
            raise LookupFailed(self._no_session_file(prefix) or f"no session matches id {prefix!r}")
        if len(matches) > 1:
            # A parent and its own children share a prefix: the parent is what was meant.
            parents = [m for m in matches if not is_child(m)]
            if len(parents) == 1:
                return parents[0]
            ids = ", ".join(sorted(m.id for m in matches)[:5])
            raise LookupFailed(f"session id {prefix!r} is ambiguous: {len(matches)} match ({ids})")
        return matches[0]

    def _find_file(self, path: str) -> Session:
        """The session of a transcript file given by its path; why there is none, if none."""
        where = os.path.realpath(path)
        row = next((r for p, r in self.rows.items() if os.path.realpath(p) == where), None)
        if row is None:
            raise LookupFailed(f"{path}: {file_problem(path) or 'not under the roots read (pass --root with its folder)'}")
        if not row.sessions:
            raise LookupFailed(f"{path}: {file_problem(path, row.error) or _NO_FORMAT}")
        parents = [s for s in row.sessions if not is_child(s)]
        if len(row.sessions) == 1 or len(parents) == 1:
            return self._sessions.get((parents or row.sessions)[0].id, (parents or row.sessions)[0])
        ids = ", ".join(sorted(s.id for s in row.sessions)[:5])
        raise LookupFailed(f"{path} holds {len(row.sessions)} sessions ({ids}): give one's id")

    def _no_session_file(self, prefix: str) -> str | None:
        """When no session id starts with `prefix`: why, if a file of the last scan named after it
        (Claude and Codex name their files after the session) held no session."""
        rows: dict[str, FileRow | LightRow] = self._lazy if self._lazy is not None else dict(self.rows)
        named = sorted(p for p, r in rows.items()
                       if not (r.keys if isinstance(r, LightRow) else r.sessions) and os.path.basename(p).startswith(prefix))
        if not named:
            return None
        return f"{named[0]}: {file_problem(named[0], rows[named[0]].error) or _NO_FORMAT}"

    def most_recent(self) -> Session | None:
        top = self.sessions()
        return top[0] if top else None

    def load(self, session: Session) -> LoadedSession:
        """The session's entries, read from disk now (the catalog keeps only metadata)."""
        from ..read.jsonl import ReaderError

        adapter = self.adapter_named(session.source_format) or self.registry.sniff(session.path)
        if adapter is None:
            raise ReaderError(f"no adapter reads {session.path}")
        loaded = adapter.load_session(session.path, session.id)
        for ls in loaded:
            if ls.session.id == session.id:
                return ls
        if len(loaded) == 1:
            return loaded[0]
        raise ReaderError(f"session {session.id} is no longer in {session.path}")

    def adapter_named(self, name: str) -> Adapter | None:
        """The adapter of this name; of the default ones, that one alone imported."""
        if self._registry is None:
            from ..read.adapters import default_adapter

            if name not in self._named:
                self._named[name] = default_adapter(name)
            return self._named[name]
        return self._registry.by_name(name)

    def iter_loaded(self, sessions: Iterable[Session]) -> Iterator[tuple[Session, LoadedSession]]:
        """Load sessions one after another, skipping (not raising on) unreadable ones."""
        from ..read.jsonl import ReaderError

        cache: dict[str, list[LoadedSession]] = {}
        for s in sessions:
            try:
                if s.path not in cache:
                    cache.clear()  # keep at most one file's sessions in memory
                    adapter = self.registry.by_name(s.source_format) or self.registry.sniff(s.path)
                    cache[s.path] = adapter.load(s.path) if adapter else []
                match = next((ls for ls in cache[s.path] if ls.session.id == s.id), None)
            except (ReaderError, OSError):
                continue
            if match is not None:
                yield s, match


def _carry_blob(carry: object) -> bytes | None:
    """A carried state as the catalog stores it (bytes as they are, else JSON)."""
    if carry is None or isinstance(carry, bytes):
        return carry
    from ..onuse import orjson

    return orjson.dumps(carry)


class _Decoding(Sequence[Session]):
    """Sessions by their keys, each decoded (`Library.get`) when it is taken."""

    def __init__(self, lib: Library, keys: list[Key]) -> None:
        self._lib, self.keys = lib, keys

    def __len__(self) -> int:
        return len(self.keys)

    @overload
    def __getitem__(self, i: int) -> Session: ...
    @overload
    def __getitem__(self, i: slice) -> list[Session]: ...
    def __getitem__(self, i: int | slice) -> Session | list[Session]:
        if isinstance(i, slice):
            return [self._one(k) for k in self.keys[i]]
        return self._one(self.keys[i])

    def _one(self, key: Key) -> Session:
        s = self._lib.get(key[ID])
        assert s is not None  # (a key of the library's own)
        return s

    def projects(self) -> list[str | None]:
        """Each session's project, none decoded for it."""
        return [k[PROJECT] for k in self.keys]


def is_child(s: Session) -> bool:
    return s.kind is not SessionKind.MAIN or s.parent_id is not None


def _under_any(path: str, roots: list[Root]) -> bool:
    return any(os.path.dirname(path) == r.path.rstrip(os.sep) if r.shallow
               else path == r.path or path.startswith(r.path.rstrip(os.sep) + os.sep) for r in roots)


def conversation(entries: list[Entry]) -> list[Entry]:
    """Entries as the CLI shows them: the active branch, no malformed noise filtered out."""
    return [e for e in entries if e.on_active_branch or e.kind is EntryKind.MALFORMED]
