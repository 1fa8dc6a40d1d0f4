"""The terms of the index's `text` field, kept with the index: what a substring query looks in for
the terms that hold its pieces (see `QueryCompiler._term`).

Why a file: listing the term dictionary from tantivy costs ~0.15 s at 1 GB (83k terms), paid by
every process (each `sessionscope search` of a substring) and again after every commit (the app's
first substring search after each live append). The writer keeps the list up to date instead, at
each commit, from the terms of the documents it added (the same words the `pairs` field is made
of, see terms.py): the stored list plus those. It is written next to the index's own files
(`vocabulary`), stamped with the commit's opstamp (tantivy's meta.json); a reader uses it only
when the stamps agree, and otherwise lists the terms from the index as before. It is mapped
into memory rather than read (`Stored`): a process's first queries search its bytes, and the
lists are decoded only when asked for (the writer's next commit, a long-lived process's trigrams).

Deleting documents leaves their terms in the list: a term no document holds finds nothing, so the
list may be larger than the dictionary, never short of it (a rebuilt index starts a new list).
"""
from __future__ import annotations

import json
import mmap
from bisect import bisect_left
from pathlib import Path
from typing import Any, Iterable

from .index_check import replace_file

VOCABULARY_FILE = "vocabulary"
_MAGIC = b"sessionscope-vocabulary 1"


#: the length of the pieces of terms `Vocabulary.index_grams` files them under
GRAM = 3
#: a larger vocabulary keeps the scan (filing 83k terms took 0.32 s and 11 MB; 392k, 2.3 s and 21 MB)
GRAM_TERMS_MAX = 1_000_000


class Vocabulary:
    """The terms, to find those holding a piece of a substring: anywhere (one scan of all terms
    joined by newlines, or the terms filed under the piece's rarest trigram once `index_grams`
    made that index), at the start (bisect in the sorted terms) or at the end (bisect in the
    sorted reversed terms). The sorted lists are made from the joined text when first asked for."""

    def __init__(self, terms: Iterable[str] = (), *, blob: str | None = None, reversed_blob: str | None = None,
                 stored: Stored | None = None) -> None:
        if blob is None and stored is None:
            blob = "\n" + "\n".join(sorted(set(terms))) + "\n"
        self._blob = blob  # "\n" + the sorted terms joined by "\n" + "\n" ("\n\n": none)
        # The file this vocabulary was read from, not decoded (`load`): answers a process's first
        # queries until the lists themselves are asked for.
        self._stored = stored
        self._sorted: list[str] | None = None
        self._reversed_blob = reversed_blob
        self._reversed: list[str] | None = None
        self._grams: dict[str, list[str]] | None = None

    @property
    def blob(self) -> str:
        if self._blob is None:
            assert self._stored is not None
            self._blob = "\n" + self._stored.text(self._stored.terms) + "\n"
        return self._blob

    @property
    def sorted(self) -> list[str]:
        if self._sorted is None:
            inner = self.blob[1:-1]
            self._sorted = inner.split("\n") if inner else []
        return self._sorted

    @property
    def reversed(self) -> list[str]:
        if self._reversed is None:
            if self._reversed_blob is None and self._stored is not None:
                self._reversed_blob = self._stored.text(self._stored.reversed)
            if self._reversed_blob is not None:
                inner = self._reversed_blob
                self._reversed = inner.split("\n") if inner else []
            else:
                self._reversed = sorted(t[::-1] for t in self.sorted)
        return self._reversed

    def __len__(self) -> int:
        return len(self.sorted)

    def with_terms(self, terms: Iterable[str]) -> Vocabulary:
        """This vocabulary and `terms` (itself when it holds them all already)."""
        have = self.sorted
        new = sorted({t for t in terms if t and not _holds(have, t)})
        if not new:
            return self
        merged = sorted(have + new)  # (two sorted runs: timsort merges them in linear time)
        out = Vocabulary(blob="\n" + "\n".join(merged) + "\n")
        out._sorted = merged
        out._reversed = sorted(self.reversed + [t[::-1] for t in new])
        grams = self._grams
        if grams is not None:  # (the new terms filed in a copy: this vocabulary stays as it was)
            grams = dict(grams)
            added: dict[str, list[str]] = {}
            for term in new:
                for g in _grams_of(term):
                    added.setdefault(g, []).append(term)
            for g, terms in added.items():
                grams[g] = sorted(grams.get(g, []) + terms)
            out._grams = grams
        return out

    def index_grams(self) -> None:
        """File every term under each of its trigrams (for a long-lived process: 0.32 s and 11 MB
        at 1 GB, 83k terms), so `containing` reads the few terms of a piece's rarest trigram
        instead of scanning all of them (0.3-0.6 ms per query at 1 GB). Kept by `with_terms`.
        Not for more than GRAM_TERMS_MAX terms: the scan stays."""
        if self._grams is not None or len(self.sorted) > GRAM_TERMS_MAX:
            return
        grams: dict[str, list[str]] = {}
        for term in self.sorted:  # (in order: each list is sorted, as the scan's answer is)
            for g in _grams_of(term):
                have = grams.get(g)
                if have is None:
                    grams[g] = [term]
                else:
                    have.append(term)
        self._grams = grams

    @property
    def has_grams(self) -> bool:
        return self._grams is not None

    def containing(self, run: str) -> list[str]:
        grams = self._grams
        if grams is not None and len(run) >= GRAM:
            fewest = min((grams.get(run[i : i + GRAM], ()) for i in range(len(run) - GRAM + 1)), key=len)
            return [t for t in fewest if run in t]
        if self._blob is None and self._stored is not None:
            return self._stored.containing(run)
        out: list[str] = []
        blob = self.blob
        find, rfind = blob.find, blob.rfind
        pos = find(run)
        while pos >= 0:
            start = rfind("\n", 0, pos)
            end = find("\n", pos + len(run))
            out.append(blob[start + 1 : end])
            pos = find(run, end)  # the next term: one holding `run` twice is listed once
        return out

    def starting_with(self, run: str) -> list[str]:
        if self._sorted is None and self._stored is not None:
            return self._stored.with_prefix(self._stored.terms, run)
        return _with_prefix(self.sorted, run)

    def ending_with(self, run: str) -> list[str]:
        if self._reversed is None and self._stored is not None:
            return [t[::-1] for t in self._stored.with_prefix(self._stored.reversed, run[::-1])]
        return [t[::-1] for t in _with_prefix(self.reversed, run[::-1])]


class Stored:
    """The vocabulary file, mapped into memory and searched as bytes: a process asking one query
    reads only the pages it searches, and decodes only the terms it finds.

    Why: reading the file and decoding its two lists cost a fresh process ~8,000 page faults at
    10 GB (392k terms, 5.9 MB: 16 ms of CPU, ~25 ms in all) before its first query; the mapped
    file is searched in ~2 ms. UTF-8 keeps both answers the same: a run's bytes are found only
    where the run is (at character boundaries), and bytes sort as their code points do, so a
    bisection over the sorted lines finds what `bisect` over the decoded list finds. The file is
    only ever replaced whole (`save`), never rewritten in place, so the mapping stays valid."""

    def __init__(self, buf: Any, terms: tuple[int, int], reversed: tuple[int, int]) -> None:
        self.buf = buf
        self.terms = terms  # [start, end) of the sorted terms joined by "\n"
        self.reversed = reversed  # [start, end) of the sorted reversed terms joined by "\n"

    def text(self, part: tuple[int, int]) -> str:
        return self.buf[part[0] : part[1]].decode(errors="replace")

    def containing(self, run: str) -> list[str]:
        """The terms holding `run`, in order (as `Vocabulary.containing`'s scan)."""
        buf, (lo, hi) = self.buf, self.terms
        try:
            needle = run.encode()
        except UnicodeEncodeError:  # (a lone surrogate: no stored term holds one)
            return []
        out: list[str] = []
        pos = buf.find(needle, lo, hi)
        while pos >= 0:
            start = _line_start(buf, lo, pos)
            end = buf.find(b"\n", pos + len(needle), hi)
            if end < 0:
                end = hi
            out.append(buf[start:end].decode(errors="replace"))
            pos = buf.find(needle, end, hi)
        return out

    def with_prefix(self, part: tuple[int, int], prefix: str) -> list[str]:
        """The lines of `part` (sorted) starting with `prefix`, found by bisection on the bytes."""
        buf, (lo, hi) = self.buf, part
        try:
            key = prefix.encode()
        except UnicodeEncodeError:
            return []
        if lo >= hi:
            return []
        # Every line starting before `a` sorts before `key`; the line starting at `b` does not
        # (`hi + 1`: past the last line).
        a, b = lo, hi + 1
        while a < b:
            mid = (a + b) // 2
            start = _line_start(buf, lo, mid)
            end = buf.find(b"\n", start, hi)
            if end < 0:
                end = hi
            if buf[start:end] < key:
                a = end + 1
            else:
                b = start
        out: list[str] = []
        while a <= hi:
            end = buf.find(b"\n", a, hi)
            if end < 0:
                end = hi
            line = buf[a:end]
            if not line.startswith(key):
                break
            out.append(line.decode(errors="replace"))
            a = end + 1
        return out


def _line_start(buf: Any, lo: int, pos: int) -> int:
    """Where the line holding `pos` starts (lines from `lo` on, joined by "\\n")."""
    nl = buf.rfind(b"\n", lo, pos)
    return lo if nl < 0 else nl + 1


def _grams_of(term: str) -> set[str]:
    return {term[i : i + GRAM] for i in range(len(term) - GRAM + 1)}


def _holds(terms: list[str], term: str) -> bool:
    i = bisect_left(terms, term)
    return i < len(terms) and terms[i] == term


def _with_prefix(terms: list[str], prefix: str) -> list[str]:
    i = bisect_left(terms, prefix)
    j = i
    while j < len(terms) and terms[j].startswith(prefix):
        j += 1
    return terms[i:j]


def listed(searcher: Any) -> Vocabulary:
    """Every term of `text` in the searcher's index, from tantivy's term dictionary (the slow way)."""
    return Vocabulary(t for t, _ in searcher.terms_with_prefix("text", ""))


def opstamp(directory: Path) -> int | None:
    """The opstamp of the index's last commit (None: no commit, or meta.json unreadable)."""
    try:
        value = json.loads((directory / "meta.json").read_bytes()).get("opstamp")
    except (OSError, ValueError, AttributeError):
        return None
    return value if isinstance(value, int) else None


def load(directory: Path, stamp: int | None) -> Vocabulary | None:
    """The stored vocabulary when it was written for the commit `stamp` (None otherwise), mapped
    into memory rather than read (see `Stored`)."""
    if stamp is None:
        return None
    try:
        with open(directory / VOCABULARY_FILE, "rb") as fh:
            buf = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):  # (ValueError: an empty file cannot be mapped)
        return None
    nl = buf.find(b"\n")
    head = buf[: max(nl, 0)].split(b" ")
    if nl < 0 or len(head) != 3 or b" ".join(head[:2]) != _MAGIC or head[2] != str(stamp).encode():
        return None
    zero = buf.find(b"\0", nl + 1)
    if zero < 0:
        return None
    return Vocabulary(stored=Stored(buf, (nl + 1, zero), (zero + 1, len(buf))))


def save(directory: Path, stamp: int, vocab: Vocabulary) -> None:
    """Write `vocab` as the vocabulary of commit `stamp` (atomically: a reader sees the old file or
    the new one). A failure to write is left silent: readers then list the terms themselves."""
    body = b"%s %d\n%s\0%s" % (_MAGIC, stamp, "\n".join(vocab.sorted).encode(), "\n".join(vocab.reversed).encode())
    replace_file(directory, VOCABULARY_FILE, body)
