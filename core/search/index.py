"""The full-text index: tantivy for text (embedded, no server), the SQLite catalog for its state.

Why tantivy: on this kind of machine it built ~3x faster than SQLite FTS5 and answered top-20
queries for common words in milliseconds where FTS5 took hundreds (it scores every match); see
../shared/docs/PERFORMANCE.md and bench/bench_index.py.

`SearchIndex` is made of parts, one module each, in the order a query meets them:

    query.py     the query language: text -> Query
    compile.py   Query -> tantivy query (QueryCompiler): stems, common-word pairs, substrings
                 through the term vocabulary (vocabulary.py: stored at each commit), filters,
                 the time range
    matching.py  confirming substring candidates against their stored text; the scan's matcher
    hits.py      Hit and SearchResult, previews around the first match, «» snippets
    scan.py      the query answered by reading the sessions (no index yet, or a damaged one)
and, for the documents themselves, terms.py (what of an entry is searched, its terms), schema.py
(IndexSchema: fields, tokenizers, settings), ingest.py (IndexIngest: the incremental writer) and
failures.py (tantivy's failures in one line). This module opens the index (damage, repair, the
one writer per directory) and answers `search` from top to bottom: parse, compile, search,
confirm, make the hits.

Ingest is incremental per file (ingest.py): a grown file is read from where it stopped, a
rewritten one re-read; memory is bounded (a fixed writer heap, files streamed line by line,
commits every few thousand documents, which also makes the index searchable while it is built).
`update(library, scan=True)` runs the library's scan itself and indexes every file the scan
parses from that same parse, so a new or rewritten file is read once, not twice (a cold 1 GB
build: ~20% less CPU, ~25% less time; bench/bench_index.py measures both ways).

Search: words, phrases and prefixes are BM25-ranked (recency breaks ties); a phrase of common
words starts from the documents holding its word pairs (the `pairs` field, see
`QueryCompiler._phrase`); substring terms are answered from a superset of candidates (the terms
that contain each fragment's pieces, found in a per-commit list of the term dictionary)
confirmed against the stored text, so every hit contains the substring and none is missed.
"""
from __future__ import annotations

import json
import os
import time
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

from ..catalog.library import Library
from ..catalog.store import IndexState
from ..model import Entry, EntryKind, Locator, Session
from . import index_check
from .compile import QueryCompiler, unscored
from .failures import IndexFailed, index_failure, nearly_full, no_space
from .hits import Hit, SearchResult, hit_of, hits_of
from .ingest import IndexIngest, unchanged
from .matching import alternative_check, entry_match
from .query import Query, Term, parse
from .schema import INDEX_VERSION, IndexSchema, ts_ms
from .terms import ALNUM, SEARCHABLE, searchable_text
from .vocabulary import GRAM_TERMS_MAX, Vocabulary

WAIT_STEP = 0.1  # seconds between attempts to take a busy writer, with `update(wait=…)`
#: documents a long-lived process keeps in newest-first order (`keep_newest`)
NEWEST = 4096
#: a substring that at least this share of the documents hold as a word is looked for among
#: the newest documents first (`_walk_newest`)
COMMON_SHARE = 0.2

_loads = json.loads  # (a hit's few fields: core/onuse.py)


class SearchIndex(IndexSchema, IndexIngest, QueryCompiler):
    """One tantivy index directory: its documents' shape (IndexSchema, schema.py), the writer
    that keeps it current (IndexIngest, ingest.py) and query compilation (QueryCompiler,
    compile.py) are parts of it; opening, repair, the writer lock and the searches are here."""

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
            hint = "; free some space" if no_space(why) or nearly_full(self.directory) else ""
            raise IndexFailed(f"the search index ({self.directory}) cannot be opened ({why}){hint}") from None
        self._writer: Any = None
        # The reader reloads only when told (after our commits, or when another process's commit
        # changed meta.json), so `_generation` says exactly when the searcher may have changed.
        self.index.config_reader(reload_policy="manual")
        self._generation = 0
        self._meta_seen: Any = self._meta_stamp()
        self._vocab: tuple[int, Vocabulary] | None = None  # the terms of `text`, per generation
        self._newest: tuple[int, list[Any]] | None = None  # `keep_newest`'s addresses, per generation
        # The writer's side of it (vocabulary.py): the vocabulary of a commit (its stamp), and the
        # terms of the documents added since (bytes or str, see `pairs_and_stems`).
        self._vocab_file: tuple[int, Vocabulary] | None = None
        self._new_terms: set = set()
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
                    import shutil  # (here, as below: a search that rebuilds nothing never needs it)

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
        import shutil

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
        self._vocab_file = None
        self._new_terms.clear()
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
        excluded = [t.text.lower() for t in q.must_not if t.kind == "substring"]
        walked = self._walk_newest(generation, searcher, q, limit) if q.substrings() else None
        if walked is not None:  # (before the query is made: its terms are not needed)
            return SearchResult(self._hits(walked, q, max_chars), "substring", q)
        tq = self._query(q, lambda: self._vocabulary(generation, searcher), searcher)
        if q.substrings() or excluded:
            hits = self._confirmed(searcher, tq, q, excluded, limit, max_chars)
            mode = "substring"
        elif not q.has_text or sort == "recent" or unscored(q):
            # Filters alone, or prefixes only (every match scores the same): newest first.
            res = searcher.search(tq, limit, count=False, order_by_field="ts")
            hits = self._hits([(searcher.doc(addr), None) for _, addr in res.hits], q, max_chars)
            mode = "recent"
        else:
            res = searcher.search(tq, limit + 32, count=False)
            # Recency breaks ties: read from the fast field, so only the shown hits are fetched.
            addrs = [addr for _, addr in res.hits]
            stamps = searcher.fast_field_values("ts", addrs) if addrs else []
            scored = sorted(((round(score, 4), ts, score, addr) for (score, addr), ts in zip(res.hits, stamps)),
                            key=lambda x: (x[0], x[1]), reverse=True)
            hits = self._hits([(searcher.doc(addr), score) for _, _, score, addr in scored[:limit]], q, max_chars)
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
        unseen = {t: alternative_check(t, stems=False) for t in fragments}  # (held as is, as in `search`)
        match = entry_match(q)
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
            return hit_of(text, q, max_chars, s.id, e.id, s.agent.lower(), s.source_format, e.role.lower(),
                           e.kind.value, e.locator, s.project, ts_ms(e.timestamp), 0, None)

        from .scan import scan_entries  # (a search the index answers never reads the sessions)

        hits = scan_entries(library, keep, limit=limit)
        if unseen:
            def fix(t: Term) -> Term:
                return Term(t.text, "substring") if t in unseen else t

            q = replace(q, must=[[fix(t) for t in alts] for alts in q.must], must_not=[fix(t) for t in q.must_not])
            match = entry_match(q)
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
                searcher.doc_freq("text", run) == 0 for run in ALNUM.findall(t.text.lower())
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
            [alternative_check(t) for t in alts] for alts in q.must if any(t.kind == "substring" for t in alts)
        ]
        out: list[tuple[Any, None]] = []
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
                    out.append((doc, None))
                    if len(out) >= limit:
                        break
            offset += batch
            batch = min(batch * 2, 4096)
        return self._hits(out, q, max_chars)

    def keep_warm(self) -> None:
        """For a long-lived process (the MCP server, after opening and after each batch it
        applies, never at call time): the newest documents kept (`keep_newest`) and the
        vocabulary of this generation read, so the next substring search pays neither."""
        self.keep_newest()
        if self.damaged is None:
            generation, searcher = self._searcher()
            self._vocabulary(generation, searcher)

    def index_vocabulary(self) -> None:
        """For a long-lived process, after `keep_warm` and before it answers calls (0.32 s at 1 GB,
        2.3 s at 10 GB): the kept vocabulary's trigram index (`Vocabulary.index_grams`), which each
        commit's vocabulary then inherits. Again if a commit replaced the vocabulary meanwhile."""
        for _ in range(8):
            kept = self._vocab
            if kept is None or kept[1].has_grams or len(kept[1]) > GRAM_TERMS_MAX:
                return
            kept[1].index_grams()

    def keep_newest(self) -> None:
        """Keep the addresses of the newest `NEWEST` documents, in order, for the current
        generation (nothing to do when they are kept already). For a long-lived process (the MCP
        server, after opening and after each batch it applies): a search for a common substring
        then reads those first instead of ordering every document that holds it (`_walk_newest`).
        Searches never do this themselves: ordering every document costs more than one search."""
        if self.damaged is not None:
            return
        generation, searcher = self._searcher()
        if self._newest is not None and self._newest[0] == generation:
            return
        res = searcher.search(self._t.Query.all_query(), NEWEST, count=False, order_by_field="ts")
        self._newest = (generation, [addr for _, addr in res.hits])

    def _walk_newest(self, generation: int, searcher: Any, q: Query, limit: int) -> list[tuple[Any, None]] | None:
        """The hits of a substring that many documents hold, found by reading the newest documents
        in order (`keep_newest`) and keeping those whose text holds it: the same hits in the same
        order as `_confirmed` (which orders every candidate by time: 2-4 ms for a word half the
        documents hold, where ~2x `limit` documents read here suffice). Only for one clause of
        plain alphanumeric substrings with nothing else (an MCP or `--substring` search), when
        their commonest word is in at least `COMMON_SHARE` of the documents; None when that does
        not hold or the newest documents read did not give `limit` hits (the caller then orders
        the candidates as usual)."""
        newest = self._newest
        if newest is None or newest[0] != generation or len(q.must) != 1 or q.must_not or q.filters \
                or q.since or q.until:
            return None
        needles = [t.text.lower() for t in q.must[0]]
        if not all(t.kind == "substring" for t in q.must[0]) or not all(ALNUM.fullmatch(n) for n in needles):
            return None
        total = searcher.num_docs
        share = max(searcher.doc_freq("text", n) for n in needles) / total if total else 0.0
        if share < COMMON_SHARE:
            return None
        checks = [alternative_check(t) for t in q.must[0]]  # (as `_confirmed` checks a candidate)
        addrs = newest[1]
        budget = min(len(addrs), int(4 * limit / share) + 1)
        out: list[tuple[Any, None]] = []
        for addr in addrs[:budget]:
            doc = searcher.doc(addr)
            texts = doc["text"]
            low = texts[0].lower() if texts else ""
            if any(check(low) for check in checks):
                out.append((doc, None))
                if len(out) >= limit:
                    return out
        # Fewer than `limit`: exact only when every document was read.
        return out if budget == len(addrs) and len(addrs) >= total else None

    @staticmethod
    def _hits(docs: list[tuple[Any, float | None]], q: Query, max_chars: int) -> list[Hit]:
        """The hits of stored documents (with their scores), ranked in this order."""
        found = []
        for rank, (doc, score) in enumerate(docs, 1):
            session, entry, agent, fmt, role, kind, path, project, offset, line = _loads(doc["hit"][0])
            found.append((doc["text"][0], (session, entry, agent, fmt, role, kind, Locator(path, offset, line),
                                           project, doc["ts"][0], rank, score)))
        return hits_of(found, q, max_chars)

    # -- status ---------------------------------------------------------------------------------
    def status(self, library: Library) -> dict[str, Any]:
        states = library.catalog.index_states()
        rows = {p: r for p, r in library.rows.items() if r.adapter and not r.error and not library.shadowed(r)}
        stale = sum(1 for p, r in rows.items() if p not in states or not unchanged(states[p].key, r))
        size = sum(f.stat().st_size for f in self.directory.rglob("*") if f.is_file()) if self.directory else 0
        return {
            "documents": self.index.searcher().num_docs,
            "files_in_index": len(states),
            "files_stale": stale,
            "index_bytes": size,
            "directory": str(self.directory) if self.directory else None,
        }


