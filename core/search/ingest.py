"""Ingest: the index brought up to date with the library, file by file, incrementally.

The catalog's `index_files` table remembers, per file, the fingerprint it was indexed under and
the offset after its last complete line: a grown file is read from there, a rewritten or
truncated one is dropped and re-read, a deleted one dropped. Before a file is (re)read from
offset X, its documents at offsets >= X are deleted, so an interrupted ingest never leaves
duplicates. Memory is bounded: a fixed writer heap, files streamed line by line, commits every
COMMIT_DOCS documents (which also makes the index searchable while it is still being built).

`IndexIngest` is one of the parts `SearchIndex` (core/search/index.py) is made of; its methods
use the index's writer, schema and state.
"""
from __future__ import annotations

import mmap
import os
import time
from dataclasses import field
from typing import TYPE_CHECKING, Any, Callable, Iterable

from ..onuse import compact_json, orjson

from ..records import record
from ..catalog.library import Library
from ..catalog.store import FileRow, Fingerprint, IndexState, marks_of
from ..config import CacheError
from ..model import Entry, EntryKind, Session, SessionKind
from .failures import IndexFailed, index_failure, nearly_full, no_space
from .query import QueryError
from .schema import ts_ms
from .terms import SEARCHABLE, pairs_and_stems, searchable_text
from . import vocabulary
from .vocabulary import Vocabulary

if TYPE_CHECKING:  # (the readers are imported where files are read: a warm search reads none)
    from ..read.adapters.base import LoadedSession
    from ..read.jsonl import RecordFile

STREAM_OVER = 32 << 20  # files larger than this are streamed instead of loaded whole
# Each commit makes a segment; tantivy merges eight alike into one, reading them through mmap, and
# those pages count in RSS. Segments of 10k documents keep such merges ~100 MB (peak RSS of a 1 GB
# build 385 -> 290 MB, a 2.7 GB one 424 -> 328 MB) at no measurable cost in build time.
COMMIT_DOCS = 10_000
LIVE_STATES = 4096  # most index states kept for `update(paths=…)` (then they are read again)
# `update(paths=…)` reads these many files' index states one by one; more than this (or an eighth
# of the library) and the one query for every file's state is cheaper.
PATHS_AT_ONCE = 64

ProgressFn = Callable[["Progress"], None]


@record
class Progress:
    files_done: int = 0
    files_total: int = 0
    bytes_done: int = 0
    bytes_total: int = 0
    docs: int = 0


@record
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


SYNCED = "index_synced"  # the catalog's note of the scan the index was last brought up to


def _scan_progress(progress: ProgressFn | None) -> Callable[[int, int, int, int], None] | None:
    """A scan's progress calls as the index's `Progress`."""
    if progress is None:
        return None
    return lambda files_done, files_total, bytes_done, bytes_total: progress(
        Progress(files_done, files_total, bytes_done, bytes_total))


def _head_hash(path: str, n: int) -> str:
    with open(path, "rb") as fh:
        return _sha1(fh.read(n))


def _sha1(data: bytes | memoryview | Any) -> str:
    import hashlib  # (here: OpenSSL's load, ~5 ms, is for a search that indexes something)

    return hashlib.sha1(data).hexdigest()


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


def unchanged(key: str, row: FileRow) -> bool:
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


def _resume_point(rf: RecordFile, offset: int, line: int) -> tuple[int, int]:
    """Offset and line number just after the last newline: where the next update resumes.

    An unterminated last line that parses is indexed now, but the next update starts before it
    again (its documents are deleted first), since the writer may still be extending it."""
    end = rf.complete_end
    if end <= offset:
        return offset, line
    buf = rf.buffer
    count, pos = 0, offset
    while pos < end:  # count in chunks: no copy of a 100 MB range at once, no page kept mapped
        stop = min(pos + (16 << 20), end)
        count += buf[pos:stop].count(b"\n")
        rf.release(pos - pos % mmap.PAGESIZE, stop)
        pos = stop
    return end, line + count


class IndexIngest:
    """Bringing the index up to date: which files changed, reading them, the commits."""

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
            from ..read.jsonl import ReaderError

            if why is None or isinstance(exc, (ReaderError, QueryError)):
                raise
            try:
                self._drop_writer()
            except BaseException:  # noqa: BLE001 - the writer is gone either way
                self._writer = None
            self._missed, self._dirty = True, False
            self._live_states.clear()
            if no_space(why) or nearly_full(self.directory):
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
        if scan and not rebuild and paths is None and self.damaged is None and self._writer is None:
            # Nothing changed since the last scan (its snapshot), and the index was brought up to
            # that scan (`_synced`): no writer taken, no row read, no file compared.
            warm = library.scan_warm(_scan_progress(progress))
            if warm is not None and library.warm_token is not None and catalog.noted(SYNCED) == self._synced(library.warm_token):
                report.scan = warm
                report.seconds = time.perf_counter() - started
                return report
            # (else the pass below; a warm scan's state is replaced by its scan)
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
                rows = {p: r for p in wanted if (r := library.rows.get(p)) is not None
                        and r.adapter and not r.error and not library.shadowed(r)}
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
            self._vocabulary_restarted()
            catalog.drop_index_states()
            states = {}
        if save_settings:  # (after the old documents are gone: a crash before rebuilds again)
            self._save_settings()
        if scan:
            catalog.note(SYNCED, None)  # (until this pass is done)
            self._scan_ingesting(library, states, report, progress, cancelled)
            states = catalog.index_states()
        said = len(report.messages)
        # (an archived copy of a live file is not indexed: its hits would come twice)
        rows = {p: r for p, r in library.rows.items() if r.adapter and not r.error and not library.shadowed(r)}
        report = self._bring_up(library, rows, states, report, progress, cancelled, started)
        if scan and library.warm_token is not None and len(report.messages) == said and not cancelled():
            catalog.note(SYNCED, self._synced(library.warm_token))
        return report

    def _synced(self, token: str) -> str:
        """What says that the index holds every file of the scan whose snapshot is `token`
        (core/catalog/warm.py) as it is: that token, the index's last commit (its meta.json's
        stat: another process's commit or a new index changes it) and its settings."""
        return compact_json([token, self._meta_stamp(), self._settings()])

    def _without_writer(self, library: Library, report: IndexReport, progress: ProgressFn | None,
                        scan: bool, started: float) -> IndexReport:
        """`update` when another process holds the writer: the scan alone, and why (once)."""
        self.read_only = self._missed = report.read_only = True
        if scan:
            report.scan = library.scan(_scan_progress(progress))
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
            if st is not None and unchanged(st.key, row):
                continue
            if (st is not None and _same_file(st.key, row) and row.fingerprint.size >= st.offset
                    and _appends(library, row)):
                plan.append((row, st.offset, st.line))
            else:
                plan.append((row, 0, 1))
        prog = Progress(files_total=len(plan), bytes_total=sum(r.fingerprint.size - o for r, o, _ in plan))
        from ..read.jsonl import ReaderError
        pending_states: list[IndexState] = []
        since_commit = 0
        for row, offset, line in plan:
            if cancelled():
                break
            if offset:
                report.files_appended += 1
            else:
                report.files_indexed += 1
            try:
                # (a database that cannot be read now, as while OpenCode holds it locked, keeps
                # what the index holds of it: its state unchanged, it is read at the next update)
                done = self._ingest_apart(library, row, states.get(row.path)) if not offset else None
                if done is None:
                    self._delete_from(row.path, offset)
                    added, end, end_line, key = self._ingest(library, row, offset, line)
                    done = added, IndexState(row.path, key, end, end_line)
            except (ReaderError, OSError) as exc:
                report.messages.append(f"{row.path}: {exc}")
                continue
            added, state = done
            report.docs_added += added
            since_commit += added
            report.bytes_read += row.fingerprint.size - offset
            pending_states.append(state)
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
        said = len(report.messages)

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

        from ..read.adapters.base import loads_observed

        with loads_observed(on_load):
            report.scan = library.scan(on_scan)
        self._commit(catalog, pending)
        if len(report.messages) != said:
            library.warm_token = None  # (a file that failed to index: the next update looks again)

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
        if stat.st_size != rf.size or rf.decompressed:
            return None  # still being written (or decompressed): update() reads it properly
        fp = Fingerprint(stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns, "")
        row = FileRow(path, fp, None, [ls.session for ls in loaded], None)
        if st is not None and (unchanged(st.key, row) or (_same_file(st.key, row) and fp.size >= st.offset)):
            return None
        end, end_line = _resume_point(rf, 0, 1)
        head_len = min(4096, end)
        key = _key(row, head_len, _sha1(rf.buffer[:head_len]))
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
            base = self._vocabulary_base()
            self._writer_().commit()
            self.index.reload()
            self._generation += 1  # after the reload: a concurrent search keyed on the old one rebuilds
            self._vocabulary_committed(base)
        # Only after the documents are durable does the catalog say so: a crash in between
        # re-reads those files (their documents are deleted first, so no duplicates).
        catalog.set_index_states(pending)
        pending.clear()

    # -- the stored vocabulary (see vocabulary.py) ---------------------------------------------
    def _stamp(self) -> int | None:
        """What identifies the last commit: tantivy's opstamp (an index in memory: the generation)."""
        return vocabulary.opstamp(self.directory) if self.directory is not None else self._generation

    def _vocabulary_base(self) -> Vocabulary | None:
        """Before a commit: the vocabulary of the last commit, if known (in memory or stored), or
        an empty one for an empty index; None: to be listed from the index after the commit."""
        stamp = self._stamp()
        known = self._vocab_file
        if known is not None and known[0] == stamp and stamp is not None:
            return known[1]
        base = vocabulary.load(self.directory, stamp) if self.directory is not None else None
        if base is None and self.index.searcher().num_docs == 0:
            base = Vocabulary()
        return base

    def _vocabulary_committed(self, base: Vocabulary | None) -> None:
        """After a commit: the last commit's vocabulary and the terms of the documents it added,
        kept in memory for searches and stored for other processes."""
        new = {t.decode() if isinstance(t, bytes) else t for t in self._new_terms}
        self._new_terms.clear()
        vocab = vocabulary.listed(self.index.searcher()) if base is None else base.with_terms(new)
        self._vocab = (self._generation, vocab)
        self._keep_vocabulary(vocab)

    def _vocabulary_restarted(self) -> None:
        """After every document was deleted and committed: the next commit's base is empty."""
        self._new_terms.clear()
        self._keep_vocabulary(Vocabulary())

    def _keep_vocabulary(self, vocab: Vocabulary) -> None:
        stamp = self._stamp()
        self._vocab_file = (stamp, vocab) if stamp is not None else None
        if self.directory is not None and stamp is not None:
            vocabulary.save(self.directory, stamp, vocab)

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

    def _ingest_apart(self, library: Library, row: FileRow, st: IndexState | None) -> tuple[int, IndexState] | None:
        """Index a file of many sessions rewritten in place (`Adapter.load_changed`: None when it
        is not one): the documents of the sessions whose marks changed since the index's (`st`'s,
        stored in the catalog) replaced, those of sessions gone deleted, the others left; every
        session's when the index holds no marks of the file. Why: OpenCode writes its database
        on every streamed part, and indexing 1,000 sessions again at each write took seconds."""
        adapter = library.registry.by_name(row.adapter or "")
        if adapter is None:
            return None
        marks = marks_of(library.catalog.index_marks(row.path)) if st is not None else None
        changed = adapter.load_changed(row.path, marks)
        if changed is None:
            return None
        t, path = self._t, row.path
        writer = self._writer_()
        self._dirty = True
        if marks is None or changed.whole:
            writer.delete_documents_by_term("file", path)
        else:
            for sid in [ls.session.id for ls in changed.loaded] + [sid for sid in marks if sid not in changed.marks]:
                writer.delete_documents_by_query(t.Query.boolean_query([
                    (t.Occur.Must, t.Query.term_query(self.schema, "file", path)),
                    (t.Occur.Must, t.Query.term_query(self.schema, "session", sid)),
                ]))
        sessions = {s.id: s for s in row.sessions}
        added = 0
        for ls in changed.loaded:
            meta = sessions.get(ls.session.id, ls.session)
            for e in ls.entries:
                if self._add(writer, path, meta, e):
                    added += 1
        head_len = min(4096, row.fingerprint.size)
        key = _key(row, head_len, _head_hash(path, head_len))
        return added, IndexState(path, key, 0, 1, None if changed.whole else orjson.dumps(changed.marks))

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
        from ..read.jsonl import RecordFile

        with RecordFile(row.path) as rf:
            end, end_line = _resume_point(rf, offset, line)
            head_len = min(4096, end)
            key = _key(row, head_len, _sha1(rf.buffer[:head_len]))
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
            parser.threads = False  # (entries are only passed on: no branch marks, no finish())
            # (a streamed file's mapped pages would all stay in our RSS until it is closed: +1 GB
            # for a 1 GB transcript; they are let go as it is read)
            for parsed in rf.iter_parsed(offset, line, release=True):
                for e in parser.feed(parsed):
                    if self._add(writer, row.path, main, e):
                        added += 1
                parser.forget()  # (memory follows a line's entries, not the file)
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
        doc.add_bytes("hit", orjson.dumps((s.id, e.id, agent, s.source_format, role, e.kind.value, loc.path, project,
                                          loc.offset, loc.line)))
        doc.add_integer("ts", ts_ms(e.timestamp))
        doc.add_unsigned("offset", int(loc.offset))
        doc.add_text("text", text)
        doc.add_text("stemmed", text)
        pairs, stems = pairs_and_stems(text, self._words, self._new_terms)
        if pairs:
            doc.add_text("pairs", pairs)
        if stems:
            doc.add_text("stems", stems)
        writer.add_document(doc)
        self._dirty = True
        return True
