"""The full-text index: tantivy for text (embedded, no server), the SQLite catalog for its state.

Why tantivy: on this kind of machine it built ~3x faster than SQLite FTS5 and answered top-20
queries for common words in milliseconds where FTS5 took hundreds (it scores every match); see
../shared/docs/PERFORMANCE.md and bench/bench_index.py.

Ingest is incremental per file. The catalog's `index_files` table remembers, per file, the
fingerprint it was indexed under and the offset after its last complete line: a grown file is
read from there, a rewritten or truncated one is dropped and re-read, a deleted one dropped.
Before a file is (re)read from offset X, its documents at offsets >= X are deleted, so an
interrupted ingest never leaves duplicates. Memory is bounded: a fixed writer heap, files
streamed line by line, commits every few thousand documents (which also makes the index
searchable while it is still being built).

`update(library, scan=True)` runs the library's scan itself and indexes every file the scan
parses from that same parse, so a new or rewritten file is read once, not twice (a cold 1 GB
build: ~20% less CPU, ~25% less time; bench/bench_index.py measures both ways).

Search: the query language of core/search/query.py. Words, phrases and prefixes are BM25-ranked
(recency breaks ties); a phrase of common words starts from the documents holding its word pairs
(the `pairs` field, see `SearchIndex._phrase`); substring terms are answered from a superset of candidates (the terms that
contain each fragment's pieces, found in a per-commit list of the term dictionary) confirmed
against the stored text, so every hit contains the substring and none is missed.
"""
from __future__ import annotations

import hashlib
import mmap
import os
import shutil
import time
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

import orjson

from ..read.adapters.base import LoadedSession, loads_observed
from . import index_check
from ..catalog.store import FileRow, Fingerprint, IndexState
from ..config import CacheError
from ..read.jsonl import RecordFile, ReaderError
from ..catalog.library import Library
from ..model import Entry, EntryKind, Locator, Session, SessionKind
from .query import Query, QueryError, Term, parse
from .terms import SEARCHABLE, _ALNUM, _pairs_and_stems, searchable_text
from .compile import QueryCompiler, _Vocabulary, _unscored
from .failures import IndexFailed, _nearly_full, index_failure, no_space
from .matching import _alternative_check, _entry_match
from .schema import INDEX_VERSION, IndexSchema, _ms
from .hits import Hit, SearchResult, _hit_of
from .scan import scan_entries

STREAM_OVER = 32 << 20  # files larger than this are streamed instead of loaded whole
# Each commit makes a segment; tantivy merges eight alike into one, reading them through mmap, and
# those pages count in RSS. Segments of 10k documents keep such merges ~100 MB (peak RSS of a 1 GB
# build 385 -> 290 MB, a 2.7 GB one 424 -> 328 MB) at no measurable cost in build time.
COMMIT_DOCS = 10_000
LIVE_STATES = 4096  # most index states kept for `update(paths=…)` (then they are read again)
# `update(paths=…)` reads these many files' index states one by one; more than this (or an eighth
# of the library) and the one query for every file's state is cheaper.
PATHS_AT_ONCE = 64
_DROP_EVERY = 16 << 20  # bytes of a streamed file parsed before its pages leave our RSS

WAIT_STEP = 0.1  # seconds between attempts to take a busy writer, with `update(wait=…)`

ProgressFn = Callable[["Progress"], None]
_dumps, _loads = orjson.dumps, orjson.loads


@dataclass
class Progress:
    files_done: int = 0
    files_total: int = 0
    bytes_done: int = 0
    bytes_total: int = 0
    docs: int = 0


@dataclass
class IndexReport:
    files_indexed: int = 0
    files_appended: int = 0
    files_dropped: int = 0
    docs_added: int = 0
    bytes_read: int = 0
    seconds: float = 0.0
    messages: list[str] = field(default_factory=list)
    scan: Any = None  # the library's ScanReport, when `update(scan=True)` ran the scan
    files_from_scan: int = 0  # files indexed from the scan's own parse (not read again)
    read_only: bool = False  # another process held the writer: nothing was indexed (see `update`)


def _head_hash(path: str, n: int) -> str:
    with open(path, "rb") as fh:
        return hashlib.sha1(fh.read(n)).hexdigest()


def _key(row: FileRow, head_len: int, head_hash: str) -> str:
    """What the index knew of a file: identity, the hash of its first `head_len` bytes (at most
    4 KB, never past the indexed part, so an appended small file still matches), size, mtime."""
    fp = row.fingerprint
    return f"{fp.dev}:{fp.ino}:{head_len}:{head_hash}:{fp.size}:{fp.mtime_ns}"


def _appends(library: Library, row: FileRow) -> bool:
    """Whether the file's format appends lines (a grown file is read on from where it stopped);
    a document or database rewritten in place is read whole again."""
    adapter = library.registry.by_name(row.adapter or "")
    return adapter is None or adapter.grows(row.path)


def _unchanged(key: str, row: FileRow) -> bool:
    fp = row.fingerprint
    return key.endswith(f":{fp.size}:{fp.mtime_ns}") and key.startswith(f"{fp.dev}:{fp.ino}:")


def _same_file(key: str, row: FileRow) -> bool:
    """Same inode and the same head bytes: the file only grew since it was indexed."""
    dev, ino, head_len, head_hash, _size, _mtime = key.split(":")
    fp = row.fingerprint
    if (dev, ino) != (str(fp.dev), str(fp.ino)):
        return False
    if int(head_len) == 4096 and fp.size >= 4096 and fp.head_hash:
        return fp.head_hash == head_hash  # the row's fingerprint hashed the same 4 KB: no read
    try:
        return _head_hash(row.path, int(head_len)) == head_hash
    except OSError:
        return False


class SearchIndex(IndexSchema, QueryCompiler):
    def __init__(self, directory: str | Path | None, *, heap_mb: int = 64, tool_result_cap: int = 4000) -> None:
        import tantivy

        self._t = tantivy
        self.messages: list[str] = []
        self.heap = heap_mb << 20
        self.cap = tool_result_cap
        self.directory = Path(directory) / f"tantivy-v{INDEX_VERSION}" if directory else None
        self.schema = self._schema()
        # Damage found and not repaired yet (see `_repair`): searches read the session files.
        self.damaged: str | None = None
        self._library: Library | None = None  # the library of the last update (for those searches)
        self._dirty = False  # documents added or deleted since the last commit
        try:
            self.index = self._open()
        except BaseException as exc:  # (no space for a new index, a folder made read-only)
            why = index_failure(exc)
            if why is None:
                raise
            hint = "; free some space" if no_space(why) or _nearly_full(self.directory) else ""
            raise IndexFailed(f"the search index ({self.directory}) cannot be opened ({why}){hint}") from None
        self._writer: Any = None
        # The reader reloads only when told (after our commits, or when another process's commit
        # changed meta.json), so `_generation` says exactly when the searcher may have changed.
        self.index.config_reader(reload_policy="manual")
        self._generation = 0
        self._meta_seen: Any = self._meta_stamp()
        self._vocab: tuple[int, _Vocabulary] | None = None  # the terms of `text`, per generation
        # The index states of the files live updates looked at (None: not indexed), as this
        # index last wrote them: a session being written is not read back from the catalog on
        # every append (a query that, in the app, also waits for the UI thread's GIL).
        self._live_states: dict[str, IndexState | None] = {}
        self._written: dict[str, IndexState] | None = None  # committed by the current live update
        # Without the writer (another process holds it): why, whether that was said, whether
        # changes went unindexed meanwhile, and the library to scan while nothing is committed.
        self.read_only = False
        self.writer_error: str | None = None
        self._told_read_only = False
        self._missed = False
        self._scan_library: Library | None = None
        self._check_settings = False  # set when the writer is taken: compare `_settings()` then

    # -- setup ------------------------------------------------------------------------------
    def _open(self) -> Any:
        t = self._t
        if self.directory is None:
            index = t.Index(self.schema)
        else:
            parent = self.directory.parent
            for stale in parent.glob("tantivy-v*") if parent.is_dir() else []:
                if stale != self.directory:
                    shutil.rmtree(stale, ignore_errors=True)
                    self.messages.append(f"index format changed: rebuilding in {self.directory}")
            self.directory.mkdir(parents=True, exist_ok=True)
            damage = self._damage()
            if damage is not None and index_check.writer_busy(self.directory):
                # Not ours to delete while another process writes it: the session files answer
                # (see `update`), and whichever process takes the writer next rebuilds it.
                self.damaged = damage
                self.messages.append(f"search index damaged ({damage}) while another sessionscope process "
                                     "is updating it: searching the session files directly (slower)")
                index = t.Index(self.schema)
            elif damage is not None:
                self.messages.append(f"search index damaged ({damage}): rebuilding {self.directory}")
                index = self._emptied()
            else:
                try:
                    index = t.Index(self.schema, path=str(self.directory), reuse=True)
                    index.searcher()
                except (ValueError, OSError) as exc:
                    # A schema change needs no version bump: tantivy refuses the old index.
                    why = "format changed" if "schema does not match" in str(exc) else f"unreadable ({index_failure(exc)})"
                    self.messages.append(f"index {why}: rebuilding {self.directory}")
                    index = self._emptied()
        return self._prepared(index)

    def _emptied(self) -> Any:
        """A new, empty index in place of what the directory held."""
        assert self.directory is not None
        shutil.rmtree(self.directory, ignore_errors=True)
        self.directory.mkdir(parents=True, exist_ok=True)
        return self._t.Index(self.schema, path=str(self.directory), reuse=False)

    def _damage(self) -> str | None:
        """What is wrong with the index's files (None: nothing, or no index yet); see
        core/search/index_check.py. Only files not checked before at their size and mtime are read."""
        assert self.directory is not None
        if not (self.directory / "meta.json").exists():
            return None
        result = index_check.check(self.directory)
        if result.ok and result.changed:
            index_check.save_verified(self.directory, result.verified)
        return None if result.ok else result.summary()

    def verify(self, *, full: bool = False) -> index_check.Check | None:
        """Check the index's files now (every checksum with `full`), recording those that pass."""
        if self.directory is None:
            return None
        result = index_check.check(self.directory, full=full)
        if result.changed and not result.problems:
            index_check.save_verified(self.directory, result.verified)
        return result

    def _repair(self) -> bool:
        """Replace a damaged index with an empty one (the update that follows rebuilds it).
        False when another process holds the writer (it is left alone)."""
        if self.directory is None:
            return False
        if self._writer is None and index_check.writer_busy(self.directory):
            return False
        self._drop_writer()
        self.index = self._prepared(self._emptied())
        self.index.config_reader(reload_policy="manual")
        self.damaged = None
        self._generation += 1
        self._vocab = None
        self._meta_seen = self._meta_stamp()
        self._live_states.clear()
        return True

    def _drop_writer(self) -> None:
        writer, self._writer = self._writer, None
        if writer is not None:
            try:
                writer.wait_merging_threads()  # (releases the writer's lock)
            except BaseException as exc:  # noqa: BLE001 - a merge of damaged segments panics
                if index_failure(exc) is None:
                    raise

    @property
    def fresh(self) -> bool:
        """True when the index directory was just created (its catalog state must be dropped)."""
        return self.index.searcher().num_docs == 0

    def _writer_(self) -> Any:
        if self._writer is None:
            self._writer = self.index.writer(self.heap, 1)
            self._check_settings = True
        return self._writer

    def _take_writer(self, wait: float = 0.0) -> bool:
        """Whether this index holds the writer, taking it if it can (trying for up to `wait`
        seconds). Tantivy allows one writer per index directory, in any process: the others
        search what it has committed. Any other failure to take it (a read-only cache) is
        kept in `writer_error` too: searching needs no writer."""
        if self._writer is not None:
            return True
        deadline = time.monotonic() + wait
        while True:
            try:
                self._writer_()
            except (ValueError, OSError) as exc:
                busy = "LockBusy" in str(exc)
                if busy:
                    self.writer_error = f"another sessionscope process is updating the index ({self.directory})"
                else:
                    self.writer_error = f"the index ({self.directory}) cannot be written ({exc})"
                left = deadline - time.monotonic()
                if left <= 0 or not busy:
                    return False
                time.sleep(min(WAIT_STEP, left))
            else:
                self.writer_error = None
                return True

    def close(self) -> None:
        """Let the writer's merges finish, and record the files they wrote as checked (so the
        next process opening the index reads none of them again)."""
        if self._writer is not None:
            self._drop_writer()
            if self.damaged is None:
                self.verify()

    # -- ingest -------------------------------------------------------------------------------
    def update(self, library: Library, progress: ProgressFn | None = None, **options: Any) -> IndexReport:
        """`_update` (see there), whose write failures (no space left, a writer killed by one, a
        cache folder made read-only) are an IndexFailed: one line, no traceback. The writer is
        dropped, and the next update takes it again for a full pass (nothing is lost: the
        catalog records a file as indexed only after its documents are committed)."""
        try:
            return self._update(library, progress, **options)
        except CacheError:
            raise
        except BaseException as exc:
            why = index_failure(exc)
            if why is None or isinstance(exc, (ReaderError, QueryError)):
                raise
            try:
                self._drop_writer()
            except BaseException:  # noqa: BLE001 - the writer is gone either way
                self._writer = None
            self._missed, self._dirty = True, False
            self._live_states.clear()
            if no_space(why) or _nearly_full(self.directory):
                raise IndexFailed(f"the search index cannot be written: no space left on the device of "
                                  f"{self.directory}; free some space and run the command again") from None
            raise IndexFailed(f"the search index ({self.directory}) cannot be updated ({why})") from None

    def _update(
        self,
        library: Library,
        progress: ProgressFn | None = None,
        *,
        rebuild: bool = False,
        cancelled: Callable[[], bool] = lambda: False,
        scan: bool = False,
        paths: Iterable[str] | None = None,
        wait: float = 0.0,
    ) -> IndexReport:
        """Bring the index up to date with the library's last scan.

        With `scan=True` the library is scanned here first (its report is `report.scan`), and
        every file the scan parses is indexed from that same parse: a changed file is read once,
        not once for the catalog and again for the index. Progress then covers the scan too.

        With `paths` (the files a watcher applied to the library since the last update), only
        those files are looked at, and only their index states are read from the catalog: every
        other file is taken to be as the index last saw it. A live append then costs its own
        lines and a commit, not a comparison of every file (~0.1 s at 20k files). Many paths at
        once (the watcher's catch-up pass), an empty index, `rebuild` or `scan` take the full
        pass instead.

        Only one process at a time holds the writer. When another one does (for up to `wait`
        seconds), nothing is indexed: the report says `read_only` (and, the first time, why);
        with `scan`, the library is scanned all the same. Searches then answer from what the other
        process has committed, or, while it has committed nothing, by reading the session files
        (`scan`). Each later update tries to take the writer again; the first that does is a full
        pass, since the changes made meanwhile went unindexed here.

        The index's settings (`_settings`: the tool result cap, ...) are compared when the
        writer is taken: documents built under others are rebuilt, with a message."""
        started = time.perf_counter()
        report = IndexReport(messages=list(self.messages))
        self.messages.clear()
        catalog = library.catalog
        self._library = library
        if self.damaged is not None:
            if not self._repair():
                return self._without_writer(library, report, progress, scan, started)
            report.messages.append(f"rebuilding the damaged search index in {self.directory}")
        if not self._take_writer(wait):
            return self._without_writer(library, report, progress, scan, started)
        if self.read_only:
            self.read_only, self._told_read_only, self._scan_library = False, False, None
        if self._missed:
            self._missed, paths = False, None
        save_settings = False
        if self._check_settings:
            self._check_settings = False
            save_settings, why = self._settings_change()
            if why:
                report.messages.append(f"{why}: rebuilding the index")
                rebuild = True
        writer = self._writer_()
        if paths is not None and not (rebuild or scan):
            wanted = set(paths)
            if len(wanted) <= max(PATHS_AT_ONCE, len(library.rows) // 8) and not self.fresh:
                known = self._live_states
                states = {p: st for p in wanted
                          if (st := known[p] if p in known else catalog.index_state(p)) is not None}
                rows = {p: r for p in wanted
                        if (r := library.rows.get(p)) is not None and r.adapter and not r.error}
                self._written = written = {}
                try:
                    report = self._bring_up(library, rows, states, report, progress, cancelled, started)
                except BaseException:
                    for p in wanted:
                        known.pop(p, None)
                    raise
                finally:
                    self._written = None
                if len(known) > LIVE_STATES:
                    known.clear()
                for p in wanted:  # what the catalog now says of each
                    known[p] = None if p in states and p not in rows else written.get(p, states.get(p))
                return report
        self._live_states.clear()
        states = catalog.index_states()
        if rebuild or (states and self.fresh):
            writer.delete_all_documents()
            writer.commit()
            self._dirty = False
            catalog.drop_index_states()
            states = {}
        if save_settings:  # (after the old documents are gone: a crash before rebuilds again)
            self._save_settings()
        if scan:
            self._scan_ingesting(library, states, report, progress, cancelled)
            states = catalog.index_states()
        rows = {p: r for p, r in library.rows.items() if r.adapter and not r.error}
        return self._bring_up(library, rows, states, report, progress, cancelled, started)

    def _without_writer(self, library: Library, report: IndexReport, progress: ProgressFn | None,
                        scan: bool, started: float) -> IndexReport:
        """`update` when another process holds the writer: the scan alone, and why (once)."""
        self.read_only = self._missed = report.read_only = True
        if scan:
            def on_scan(files_done: int, files_total: int, bytes_done: int, bytes_total: int) -> None:
                if progress:
                    progress(Progress(files_done, files_total, bytes_done, bytes_total))

            report.scan = library.scan(on_scan)
        empty = self.damaged is not None or self._searcher()[1].num_docs == 0
        self._scan_library = library if empty else None
        if not self._told_read_only:
            self._told_read_only = True
            what = (" and has committed nothing yet: searching the session files directly (slower)" if empty
                    else ": searching what it has committed, so hits may lag behind what it has not committed yet")
            report.messages.append(f"{self.writer_error}{what}")
        report.seconds = time.perf_counter() - started
        return report

    def _bring_up(self, library: Library, rows: dict[str, FileRow], states: dict[str, IndexState],
                  report: IndexReport, progress: ProgressFn | None, cancelled: Callable[[], bool],
                  started: float) -> IndexReport:
        """Index `rows` from where `states` say the index stopped; drop the files of `states`
        that are not in `rows` (deleted, or no longer sessions)."""
        catalog = library.catalog
        writer = self._writer_()
        gone = [p for p in states if p not in rows]
        for p in gone:
            writer.delete_documents_by_term("file", p)
            self._dirty = True
        if gone:
            catalog.drop_index_states(gone)
            report.files_dropped += len(gone)
        plan: list[tuple[FileRow, int, int]] = []  # row, start offset, start line
        for path, row in rows.items():
            st = states.get(path)
            if st is not None and _unchanged(st.key, row):
                continue
            if (st is not None and _same_file(st.key, row) and row.fingerprint.size >= st.offset
                    and _appends(library, row)):
                plan.append((row, st.offset, st.line))
            else:
                plan.append((row, 0, 1))
        prog = Progress(files_total=len(plan), bytes_total=sum(r.fingerprint.size - o for r, o, _ in plan))
        pending_states: list[IndexState] = []
        since_commit = 0
        for row, offset, line in plan:
            if cancelled():
                break
            if offset:
                report.files_appended += 1
            else:
                report.files_indexed += 1
            self._delete_from(row.path, offset)
            try:
                added, end, end_line, key = self._ingest(library, row, offset, line)
            except (ReaderError, OSError) as exc:
                report.messages.append(f"{row.path}: {exc}")
                continue
            report.docs_added += added
            since_commit += added
            report.bytes_read += row.fingerprint.size - offset
            pending_states.append(IndexState(row.path, key, end, end_line))
            prog.files_done += 1
            prog.bytes_done += row.fingerprint.size - offset
            prog.docs += added
            if since_commit >= COMMIT_DOCS:
                self._commit(catalog, pending_states)
                since_commit = 0
            if progress:
                progress(prog)
        if plan or gone:  # (nothing to commit: the searcher and its term list stay as they are)
            self._commit(catalog, pending_states)
        report.seconds = time.perf_counter() - started
        return report

    def _scan_ingesting(self, library: Library, states: dict[str, IndexState], report: IndexReport,
                        progress: ProgressFn | None, cancelled: Callable[[], bool]) -> None:
        """`library.scan()`, indexing each file it parses while its entries are in memory."""
        catalog = library.catalog
        pending: list[IndexState] = []
        prog = Progress()
        since_commit = 0

        def on_load(path: str, rf: RecordFile, loaded: list[LoadedSession]) -> None:
            nonlocal since_commit
            if cancelled():
                return
            try:
                done = self._ingest_loaded(path, rf, loaded, states.get(path))
            except Exception as exc:  # noqa: BLE001 - the scan goes on; update() reads it again
                report.messages.append(f"{path}: {exc}")
                return
            if done is None:
                return
            added, state = done
            report.files_from_scan += 1
            report.files_indexed += 1
            report.docs_added += added
            report.bytes_read += rf.size
            prog.docs += added
            pending.append(state)
            since_commit += added
            if since_commit >= COMMIT_DOCS:
                self._commit(catalog, pending)
                since_commit = 0

        def on_scan(files_done: int, files_total: int, bytes_done: int, bytes_total: int) -> None:
            prog.files_done, prog.files_total = files_done, files_total
            prog.bytes_done, prog.bytes_total = bytes_done, bytes_total
            if progress:
                progress(prog)

        with loads_observed(on_load):
            report.scan = library.scan(on_scan)
        self._commit(catalog, pending)

    def _ingest_loaded(self, path: str, rf: RecordFile, loaded: list[LoadedSession],
                       st: IndexState | None) -> tuple[int, IndexState] | None:
        """Index a file the scan just loaded whole (new or rewritten). None when it is left to the
        normal path: a file that only grew (streaming its new lines beats re-adding it, and a
        split reply merged across the old end would hide its new text), one that changed under
        the scan, or one that is not plain JSONL."""
        try:
            stat = os.stat(path)
        except OSError:
            return None
        if stat.st_size != rf.size or path.endswith(".zst"):
            return None  # still being written (or decompressed): update() reads it properly
        fp = Fingerprint(stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns, "")
        row = FileRow(path, fp, None, [ls.session for ls in loaded], None)
        if st is not None and (_unchanged(st.key, row) or (_same_file(st.key, row) and fp.size >= st.offset)):
            return None
        end, end_line = _resume_point(rf, 0, 1)
        head_len = min(4096, end)
        key = _key(row, head_len, hashlib.sha1(rf.buffer[:head_len]).hexdigest())
        buf = rf.buffer
        if isinstance(buf, mmap.mmap) and hasattr(mmap, "MADV_DONTNEED"):
            buf.madvise(mmap.MADV_DONTNEED)  # its pages are parsed: out of our RSS
        self._delete_from(path, 0)
        writer = self._writer_()
        add = self._add
        added = 0
        for ls in loaded:
            meta = ls.session
            for e in ls.entries:
                if add(writer, path, meta, e):
                    added += 1
        return added, IndexState(path, key, end, end_line)

    def _commit(self, catalog: Any, pending: list[IndexState]) -> None:
        if self._written is not None:
            self._written.update((st.path, st) for st in pending)
        if self._dirty:  # (nothing changed: no commit, so a search after a complete `index` writes nothing)
            self._dirty = False
            self._writer_().commit()
            self.index.reload()
            self._generation += 1  # after the reload: a concurrent search keyed on the old one rebuilds
        # Only after the documents are durable does the catalog say so: a crash in between
        # re-reads those files (their documents are deleted first, so no duplicates).
        catalog.set_index_states(pending)
        pending.clear()

    def _delete_from(self, path: str, offset: int) -> None:
        t = self._t
        writer = self._writer_()
        self._dirty = True
        if offset == 0:
            writer.delete_documents_by_term("file", path)
            return
        q = t.Query.boolean_query([
            (t.Occur.Must, t.Query.term_query(self.schema, "file", path)),
            (t.Occur.Must, t.Query.range_query(self.schema, "offset", t.FieldType.Unsigned, offset, None)),
        ])
        writer.delete_documents_by_query(q)

    def _ingest(self, library: Library, row: FileRow, offset: int, line: int) -> tuple[int, int, int, str]:
        """Add the documents of one file from `offset`; the offset/line to resume from next time,
        and the key that identifies what was read."""
        adapter = library.registry.by_name(row.adapter or "")
        if adapter is None:
            return 0, 0, 1, _key(row, 0, "")
        sessions = {s.id: s for s in row.sessions}
        main = next((s for s in row.sessions if s.path == row.path and s.kind is not SessionKind.SUBAGENT),
                    row.sessions[0] if row.sessions else None)
        writer = self._writer_()
        added = 0
        with RecordFile(row.path) as rf:
            end, end_line = _resume_point(rf, offset, line)
            head_len = min(4096, end)
            key = _key(row, head_len, hashlib.sha1(rf.buffer[:head_len]).hexdigest())
            if (offset == 0 and rf.size <= STREAM_OVER) or not adapter.grows(row.path):
                loaded = adapter.load(row.path, rf)
                for ls in loaded:
                    meta = sessions.get(ls.session.id, ls.session)
                    for e in ls.entries:
                        if self._add(writer, row.path, meta, e):
                            added += 1
                return added, end, end_line, key
            if main is None:
                return 0, end, end_line, key
            parser = adapter.parser(row.path)
            buf = rf.buffer
            # A streamed file's mapped pages would all stay in our RSS until it is closed (+100 MB
            # for a 100 MB transcript, on top of a merge): drop those the newline count above
            # touched, then each parsed stretch.
            drop = isinstance(buf, mmap.mmap) and hasattr(mmap, "MADV_DONTNEED")
            if drop:
                buf.madvise(mmap.MADV_DONTNEED)
            dropped = offset - offset % mmap.PAGESIZE
            for parsed in rf.iter_parsed(offset, line):
                for e in parser.feed(parsed):
                    if self._add(writer, row.path, main, e):
                        added += 1
                if drop and parsed.raw.offset - dropped >= _DROP_EVERY:
                    upto = parsed.raw.offset - parsed.raw.offset % mmap.PAGESIZE
                    buf.madvise(mmap.MADV_DONTNEED, dropped, upto - dropped)
                    dropped = upto
        return added, end, end_line, key

    def _add(self, writer: Any, path: str, s: Session, e: Entry) -> bool:
        if e.kind not in SEARCHABLE and e.kind is not EntryKind.MALFORMED:
            return False
        text = searchable_text(e, self.cap)
        if not text:
            return False
        doc = self._t.Document()
        agent, role, tool, project = s.agent.lower(), e.role.lower(), (e.tool_name or "").lower(), s.project or ""
        doc.add_text("session", s.id)
        doc.add_text("agent", agent)
        doc.add_text("role", role)
        doc.add_text("kind", e.kind.value)
        doc.add_text("tool", tool)
        doc.add_text("branch", s.git_branch or "")
        doc.add_text("file", path)
        doc.add_text("project_l", project.lower())
        loc = e.locator
        doc.add_bytes("hit", _dumps((s.id, e.id, agent, s.source_format, role, e.kind.value, loc.path, project,
                                     loc.offset, loc.line)))
        doc.add_integer("ts", _ms(e.timestamp))
        doc.add_unsigned("offset", int(loc.offset))
        doc.add_text("text", text)
        doc.add_text("stemmed", text)
        pairs, stems = _pairs_and_stems(text, self._words)
        if pairs:
            doc.add_text("pairs", pairs)
        if stems:
            doc.add_text("stems", stems)
        writer.add_document(doc)
        self._dirty = True
        return True

    # -- search -------------------------------------------------------------------------------
    def search(
        self,
        query: str | Query,
        *,
        limit: int = 20,
        sort: str = "rank",
        max_chars: int = 200,
        now: datetime | None = None,
    ) -> SearchResult:
        q = parse(query, now) if isinstance(query, str) else query
        if self.damaged is None:
            try:
                return self._search(q, limit, sort, max_chars)
            except BaseException as exc:  # a Rust panic is a BaseException
                why = index_failure(exc)
                if why is None:
                    raise
                self.damaged = why
                self.messages.append(f"search index damaged ({why}): answering from the session files; "
                                     "it is rebuilt at the next update")
        library = self._library or self._scan_library
        if library is None:
            raise IndexFailed(f"search index damaged ({self.damaged}): run `sessionscope index` to rebuild it")
        return self.scan(library, q, limit=limit, max_chars=max_chars)

    def _search(self, q: Query, limit: int, sort: str, max_chars: int) -> SearchResult:
        generation, searcher = self._searcher()
        if self._scan_library is not None:  # read-only, and the writer had committed nothing
            if searcher.num_docs == 0:
                return self.scan(self._scan_library, q, limit=limit, max_chars=max_chars)
            self._scan_library = None
        q = self._fragments_as_substrings(searcher, q)
        tq = self._query(q, lambda: self._vocabulary(generation, searcher), searcher)
        excluded = [t.text.lower() for t in q.must_not if t.kind == "substring"]
        if q.substrings() or excluded:
            hits = self._confirmed(searcher, tq, q, excluded, limit, max_chars)
            mode = "substring"
        elif not q.has_text or sort == "recent" or _unscored(q):
            # Filters alone, or prefixes only (every match scores the same): newest first.
            res = searcher.search(tq, limit, count=False, order_by_field="ts")
            hits = [self._hit(searcher, addr, q, max_chars, rank=i + 1) for i, (_, addr) in enumerate(res.hits)]
            mode = "recent"
        else:
            res = searcher.search(tq, limit + 32, count=False)
            # Recency breaks ties: read from the fast field, so only the shown hits are fetched.
            addrs = [addr for _, addr in res.hits]
            stamps = searcher.fast_field_values("ts", addrs) if addrs else []
            scored = sorted(((round(score, 4), ts, score, addr) for (score, addr), ts in zip(res.hits, stamps)),
                            key=lambda x: (x[0], x[1]), reverse=True)
            hits = [self._hit_doc(searcher.doc(addr), q, max_chars, rank=i + 1, score=score)
                    for i, (_, _, score, addr) in enumerate(scored[:limit])]
            mode = "ranked"
        return SearchResult(hits, mode, q)

    def scan(self, library: Library, query: str | Query, *, limit: int = 20, max_chars: int = 200,
             now: datetime | None = None) -> SearchResult:
        """The query answered without the index, by reading the library's sessions newest first
        (mode "scan"): the hits the index would give, newest first instead of ranked.

        For when the index has nothing yet (another process is building it). A word or phrase
        that no entry holds as words is a fragment, as in `search`: it is matched as a substring
        then (in a second pass, which also knows every entry was read)."""
        q = parse(query, now) if isinstance(query, str) else query
        fragments = [t for alts in q.must for t in alts if t.kind in ("word", "phrase")]
        fragments += [t for t in q.must_not if t.kind in ("word", "phrase")]
        unseen = {t: _alternative_check(t, stems=False) for t in fragments}  # (held as is, as in `search`)
        match = _entry_match(q)
        cap = self.cap

        def keep(s: Session, e: Entry) -> Hit | None:
            if e.kind not in SEARCHABLE and e.kind is not EntryKind.MALFORMED:
                return None
            text = searchable_text(e, cap)
            if not text:
                return None
            low = text.lower()
            for t in [t for t, check in unseen.items() if check(low)]:
                del unseen[t]
            if not match(s, e, low):
                return None
            return _hit_of(text, q, max_chars, s.id, e.id, s.agent.lower(), s.source_format, e.role.lower(),
                           e.kind.value, e.locator, s.project, _ms(e.timestamp), 0, None)

        hits = scan_entries(library, keep, limit=limit)
        if unseen:
            def fix(t: Term) -> Term:
                return Term(t.text, "substring") if t in unseen else t

            q = replace(q, must=[[fix(t) for t in alts] for alts in q.must], must_not=[fix(t) for t in q.must_not])
            match = _entry_match(q)
            unseen = {}
            hits = scan_entries(library, keep, limit=limit)
        return SearchResult([replace(h, rank=i + 1) for i, h in enumerate(hits)], "scan", q)

    def answer_from_files(self, library: Library) -> None:
        """Search by reading the library's session files (no index to keep: a cache folder that
        cannot be written)."""
        self._scan_library = library

    def _meta_stamp(self) -> Any:
        if self.directory is None:
            return None
        try:
            st = os.stat(self.directory / "meta.json")
        except OSError:
            return None
        return st.st_ino, st.st_size, st.st_mtime_ns

    def _searcher(self) -> tuple[int, Any]:
        """The current searcher and its generation (reloaded first when another process
        committed since we last looked)."""
        stamp = self._meta_stamp()
        if stamp != self._meta_seen:
            self._meta_seen = stamp
            self.index.reload()
            self._generation += 1
        generation = self._generation  # read before the searcher: never newer than it
        return generation, self.index.searcher()

    def _fragments_as_substrings(self, searcher: Any, q: Query) -> Query:
        """A word or phrase with a word no document holds is a fragment (`ssionsco`, `"pha bet"`):
        it keeps the substring meaning, so it finds `sessionscope` and `alpha beta`."""
        def fix(t: Term) -> Term:
            if t.kind in ("word", "phrase") and any(
                searcher.doc_freq("text", run) == 0 for run in _ALNUM.findall(t.text.lower())
            ):
                return Term(t.text, "substring")
            return t

        return replace(q, must=[[fix(t) for t in alts] for alts in q.must],
                       must_not=[fix(t) for t in q.must_not])

    def _confirmed(self, searcher: Any, tq: Any, q: Query, excluded: list[str],
                   limit: int, max_chars: int) -> list[Hit]:
        """Candidates newest first, each confirmed against its stored text: every clause holding a
        substring has one alternative present (an OR stays an OR), no excluded substring is."""
        checks = [
            [_alternative_check(t) for t in alts] for alts in q.must if any(t.kind == "substring" for t in alts)
        ]
        out: list[Hit] = []
        offset, batch = 0, max(64, limit * 4)
        while len(out) < limit:
            res = searcher.search(tq, batch, count=False, order_by_field="ts", offset=offset)
            if not res.hits:
                break
            for _, addr in res.hits:
                doc = searcher.doc(addr)
                low = doc["text"][0].lower()
                if all(any(check(low) for check in alts) for alts in checks) and not any(
                    x in low for x in excluded
                ):
                    out.append(self._hit_doc(doc, q, max_chars, rank=len(out) + 1))
                    if len(out) >= limit:
                        break
            offset += batch
            batch = min(batch * 2, 4096)
        return out

    def _hit(self, searcher: Any, addr: Any, q: Query, max_chars: int, rank: int) -> Hit:
        return self._hit_doc(searcher.doc(addr), q, max_chars, rank)

    def _hit_doc(self, doc: Any, q: Query, max_chars: int, rank: int, score: float | None = None) -> Hit:
        session, entry, agent, fmt, role, kind, path, project, offset, line = _loads(doc["hit"][0])
        return _hit_of(doc["text"][0], q, max_chars, session, entry, agent, fmt, role, kind,
                       Locator(path, offset, line), project, doc["ts"][0], rank, score)

    # -- status ---------------------------------------------------------------------------------
    def status(self, library: Library) -> dict[str, Any]:
        states = library.catalog.index_states()
        rows = {p: r for p, r in library.rows.items() if r.adapter and not r.error}
        stale = sum(1 for p, r in rows.items() if p not in states or not _unchanged(states[p].key, r))
        size = sum(f.stat().st_size for f in self.directory.rglob("*") if f.is_file()) if self.directory else 0
        return {
            "documents": self.index.searcher().num_docs,
            "files_in_index": len(states),
            "files_stale": stale,
            "index_bytes": size,
            "directory": str(self.directory) if self.directory else None,
        }


def _resume_point(rf: RecordFile, offset: int, line: int) -> tuple[int, int]:
    """Offset and line number just after the last newline: where the next update resumes.

    An unterminated last line that parses is indexed now, but the next update starts before it
    again (its documents are deleted first), since the writer may still be extending it."""
    end = rf.complete_end
    if end <= offset:
        return offset, line
    buf = rf.buffer
    count, pos = 0, offset
    while pos < end:  # count in chunks: no copy of a 100 MB range at once
        stop = min(pos + (16 << 20), end)
        count += buf[pos:stop].count(b"\n")
        pos = stop
    return end, line + count


