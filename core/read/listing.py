"""The quick listing: a session's metadata from the first and last 64 KB of its file only.

Why: listing thousands of transcripts (a cold catalog, `sessionscope sessions --quick`) must not
parse gigabytes. The head of a file holds its session id, project, first prompt and first
timestamp, its tail the last timestamp. This module reads both ends with one `os.pread` each, lets
the registry sniff the format from the first lines, and asks that format's adapter
(`Adapter.quick`, one small hook each) what those bytes settle. Only the lines needed are parsed:
typically the first three and the last one. A Claude Code or Codex file (a format whose hook
reads the ends line by line, `Adapter.narrow_ends`) is read with a 16 KB head first, and again
with the full one only when that head does not hold what the hook looked for: the same answer.
A format may answer for its usual head itself (`Adapter.quick_lane`, Claude Code's and Codex's:
the few lines it reads taken straight from the buffers, without the registry's sniff, `Lines`
and `Ends`), and leaves any other file to the general way, whose answer its own must be.

The contract, tested on real transcripts and the project's fixtures: a field not in
`QuickMeta.unsure` has the value the full parse of the file gives (`adapter.load(path)[0].session`,
before cross-file linking), with one tolerance: `first_timestamp` and `last_timestamp` are the
times of the first and last records, where the full parse takes the oldest and newest of all, and
records are written out of order by up to a second (real transcripts go back by up to 0.7 s:
parallel tool results, async writes). Assuming no record is more than `CLOCK_SKEW` (10 s) older
than one written before it, the full parse's first time lies within 10 s before the quick one and
its last time within 10 s after. Reading back until that is settled would parse several more
multi-KB lines per file for a difference no listing shows.

A field in `unsure` is a best guess from the two ends (None when they showed nothing), left to the
full parse: a line longer than the 64 KB windows can hide a record, the unseen middle of a file
can hold what the ends do not show. A Claude Code title is always a guess: a rename (custom title)
or AI title can be anywhere, and looking at every line of even a small file would cost more than
the rest of its listing; so is its first prompt, looked for only 8 KB past the line that settled
the rest (`ends.Look`: a session opened by a slash command may have none for many lines). A file of at most 128 KB is read whole (`whole`), and then nothing else
is unsure. The format is sniffed from the first three lines (the full scan's sniffer reads up to
eight): a file whose lines 4 to 8 belong to another format is listed here and rejected by the full
parse. Unreadable, empty, compressed-without-support and unrecognised files give a result with
`error` set and never raise.
"""
from __future__ import annotations

import logging
import os
from datetime import timedelta
from typing import Iterable

from .adapters import Adapter, Registry, default_registry
from .ends import Ends, Lines, QuickMeta, head_lines
from .jsonl import HeadTail, ReaderError, RecordFile, read_head_tail
from .passes import one_pass

log = logging.getLogger(__name__)

HEAD_TAIL = 65536
NARROW = 16384
SNIFF_LINES = 3
CLOCK_SKEW = timedelta(seconds=10)


def quick_meta(path: str | os.PathLike[str], registry: Registry | None = None,
               nbytes: int = HEAD_TAIL) -> QuickMeta:
    """Listing metadata of one transcript from its first and last `nbytes` only. Never raises."""
    path = os.fspath(path)
    registry = registry or _registry()
    plain, others = _suffixes(registry)
    if not (path.endswith(plain) or any(a.accepts_name(path) for a in others)):
        return QuickMeta(path, error="not a transcript file name any adapter reads")
    # A file of a format whose hook reads the ends only line by line (`Adapter.narrow_ends`, by
    # the format its path names) is read with a head of NARROW bytes first: its first lines
    # settle what the head tells, and a quarter of the bytes costs a third less of the read
    # (the tail keeps its full window: a last line is often longer). When the sniffers' lines
    # do not fit or the hook goes past the last complete line (`Ends.ran_out`), the answer is
    # read again from the full windows.
    likely = registry.likely(path)
    window = NARROW if nbytes > NARROW and likely is not None and likely.narrow_ends else None
    try:
        if path.endswith(".zst"):
            ht, window = _read_zst(path, nbytes), None
        else:
            ht = read_head_tail(path, nbytes, window)
    except ReaderError as exc:
        return QuickMeta(path, error=str(exc))
    if not ht.size:
        return QuickMeta(path, 0, ht.mtime, error="empty file")
    narrow = window is not None and ht.tail is not ht.head and len(ht.head) == window
    # The format the path names may answer for the usual head itself (`Adapter.quick_lane`).
    # Its answer from a narrow head is the full one's (the contract below), so a lane that does
    # not answer from one is asked again of the full windows, before the general way is.
    lane = likely.quick_lane if likely is not None else None
    if lane is not None:
        meta = lane(path, ht, window if narrow else nbytes, narrow)  # type: ignore[arg-type]
        if meta is None and narrow:
            try:
                ht = read_head_tail(path, nbytes)
            except ReaderError as exc:
                return QuickMeta(path, error=str(exc))
            narrow = False
            meta = lane(path, ht, nbytes, False)
        if meta is not None:
            return meta
    if narrow:
        meta = _quick(path, registry, ht, window, narrow=True)
        if meta is not None:
            return meta
        try:
            ht = read_head_tail(path, nbytes)
        except ReaderError as exc:
            return QuickMeta(path, error=str(exc))
    return _quick(path, registry, ht, nbytes)  # type: ignore[return-value]


def _quick(path: str, registry: Registry, ht: HeadTail, nbytes: int,
           narrow: bool = False) -> QuickMeta | None:
    """The listing of `path` from windows of `nbytes` (`ht`). With a `narrow` head (of
    `nbytes`; the tail is the listing's), None whenever the full head could answer otherwise:
    the sniffers' lines do not all fit, the format is not one whose hook reads only lines, the
    hook ran out of lines or failed."""
    # The sniffers see the first SNIFF_LINES lines: the Claude one would parse up to eight.
    lines = Lines(ht.head)
    third = lines.piece(SNIFF_LINES - 1)
    cut = third[1] + 1 if third is not None else 0
    if 0 < cut < nbytes:
        sniff_head = ht.head[:cut]
    elif narrow:
        return None  # the full head would show the sniffers more
    else:
        sniff_head = ht.head[:nbytes]
    head_lines(sniff_head, share=lines)  # what the sniffers parse, the listing reuses
    adapter = registry.sniff(path, sniff_head)
    if adapter is None:
        if narrow:
            return None
        return QuickMeta(path, ht.size, ht.mtime,
                         error="no adapter recognises its first lines (not a transcript format "
                               "sessionscope reads)")
    if narrow and not adapter.narrow_ends:
        return None
    ends = Ends(path, ht, lines, narrow)
    try:
        meta = adapter.quick(ends)
    except Exception as exc:  # noqa: BLE001 - a listing never raises; the full parse will tell
        if narrow:
            return None
        log.debug("quick listing of %s failed", path, exc_info=True)
        return ends.meta(adapter, error=f"quick read failed ({type(exc).__name__}); "
                                        "the full parse will tell")
    return None if ends.ran_out else meta


def quick_listing(paths: Iterable[str | os.PathLike[str]], registry: Registry | None = None,
                  nbytes: int = HEAD_TAIL) -> list[QuickMeta]:
    """`quick_meta` of each path, in the given order, in one pass (`passes.one_pass`: what every
    file of a folder asks of the file system besides itself is asked once)."""
    registry = registry or _registry()
    with one_pass():
        return [quick_meta(p, registry, nbytes) for p in paths]


def _read_zst(path: str, nbytes: int) -> HeadTail:
    """Both ends of the decompressed stream (decompressing it whole: zstd has no random access)."""
    with RecordFile(path) as rf:  # ReaderError when missing, unreadable, or without zstandard
        buf = bytes(rf.buffer)
    try:
        mtime = os.stat(path).st_mtime
    except OSError:
        mtime = 0.0
    if len(buf) <= 2 * nbytes:
        return HeadTail(buf, buf, len(buf), mtime)
    return HeadTail(buf[:nbytes], buf[-nbytes:], len(buf), mtime)


_REGISTRY: Registry | None = None
_SUFFIXES: tuple[Registry | None, tuple[str, ...], tuple[Adapter, ...]] = (None, (), ())


def _suffixes(registry: Registry) -> tuple[tuple[str, ...], tuple[Adapter, ...]]:
    """(the file name endings of the adapters of `registry` that decide by their `suffixes`
    alone, for one `endswith`; the adapters that decide by more, asked one by one)."""
    global _SUFFIXES
    if _SUFFIXES[0] is not registry:
        plain = [a for a in registry.adapters if type(a).accepts_name is Adapter.accepts_name]
        _SUFFIXES = (registry, tuple(s for a in plain for s in a.suffixes),
                     tuple(a for a in registry.adapters if a not in plain))
    return _SUFFIXES[1], _SUFFIXES[2]


def _registry() -> Registry:
    global _REGISTRY
    if _REGISTRY is None:
        _REGISTRY = default_registry()
    return _REGISTRY


__all__ = ["CLOCK_SKEW", "HEAD_TAIL", "NARROW", "quick_listing", "quick_meta"]
