"""Loading a transcript for the reader, and reading one of its records again.

Why two ways to load: a small file is read whole through `Library.load` (full fidelity: merged
split replies, the active branch). A big one is streamed from the head with the adapter's own
parser, in batches, so the first screen paints before the file is read; its entries are slimmed
(long texts and tool inputs cut to a few KB, `Item.cut`) and read again through their locator
when someone expands or copies them. Streaming reads with plain `read()` rather than mmap, so the
file's pages stay in the page cache instead of the process's RSS.

An entry that was slimmed, or whose raw JSON is asked for, is read again through its locator
(`reread`, `raw_record`).
"""
from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Iterable, Iterator

from .jsonl import ParsedLine, RawLine, RecordFile, ReaderError, compressed, parse_line
from ..model import Entry, EntryKind, Locator, Session, SessionKind
from ..text import printable

if TYPE_CHECKING:
    from .adapters.base import Adapter, RecordParser
    from ..catalog.library import Library

#: files at least this big are streamed (and slimmed) instead of loaded whole
BIG_FILE_BYTES = 8 * 1024 * 1024
#: in streamed files, how much of a message / of anything else is kept in memory
TEXT_CAP = 8 * 1024
OTHER_CAP = 1024
INPUT_CAP = 512


@dataclass(frozen=True, slots=True)
class RawRecord:
    text: str  # pretty-printed JSON (or the raw line), with control characters made visible
    note: str | None = None  # why it is not pretty-printed, or cut


def raw_record(locator: Locator, max_bytes: int = 2 * 1024 * 1024) -> RawRecord:
    """The record at a locator, read from disk now and pretty-printed.

    A JSONL record is its line. In a JSON document (or a file holding one record) the locator
    points at where the record's value starts: when that line alone is not JSON, the one value
    starting there is read. A database row (OpenCode's SQLite) is read by its adapter."""
    from .adapters.opencode import db_record, is_database

    if is_database(locator.path):
        value = db_record(locator)
        if value is None:
            return RawRecord("", "the row is no longer in the database")
        return RawRecord(printable(json.dumps(value, indent=2, ensure_ascii=False, default=str)))
    with RecordFile(locator.path) as rf:
        raw = rf.line_at_offset(locator.offset, locator.line)
        parsed = parse_line(raw) if len(raw.data) <= max_bytes else None
        if parsed is not None and (not parsed.ok or not parsed.values):
            value = _value_at(rf, locator.offset, max_bytes)
            if value is not None:
                parsed = ParsedLine(raw, (value,))
    if parsed is None:
        head = raw.data[:max_bytes].decode("utf-8", "replace")
        return RawRecord(printable(head), f"line is {len(raw.data):,} bytes; the first {max_bytes:,} shown raw")
    if not parsed.ok or not parsed.values:
        return RawRecord(printable(raw.data.decode("utf-8", "replace")), parsed.error or "empty line")
    pretty = "\n".join(json.dumps(v, indent=2, ensure_ascii=False, default=str) for v in parsed.values)
    return RawRecord(printable(pretty))


def _value_at(rf: RecordFile, offset: int, max_bytes: int) -> Any:
    """The one JSON value starting at `offset` (within `max_bytes`), or None."""
    data = rf.read_bytes(offset, min(max_bytes, max(0, rf.size - offset)))
    try:
        value, _end = json.JSONDecoder().raw_decode(data.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return None
    return value


def reread(adapter: Adapter, entry: Entry) -> Entry | None:
    """An entry in full, read again from its line (for items slimmed in memory)."""
    try:
        with RecordFile(entry.locator.path) as rf:
            raw = rf.line_at_offset(entry.locator.offset, entry.locator.line)
    except (ReaderError, OSError):
        return None
    fresh = adapter.parser(entry.locator.path).feed(parse_line(raw))
    for e in fresh:
        if e.id == entry.id:
            return e
    same = [e for e in fresh if e.kind is entry.kind and e.tool_use_id == entry.tool_use_id]
    return same[0] if len(same) == 1 else None


@dataclass(slots=True)
class Batch:
    """Entries read so far (in file order), how far the reading got, and which were slimmed."""

    entries: list[Entry]
    done: bool
    fraction: float
    cut: frozenset[str] = frozenset()
    streamed: bool = False
    #: ids of entries read earlier (in this batch or before) that lie on an abandoned branch:
    #: a stream learns the branches once the whole file is read, so only its last batch has them
    off_branch: frozenset[str] = frozenset()
    #: the same from a parser keeping its thread compact (Claude's, `track_branches`): the lines
    #: of the records on an abandoned branch, and how many entries they gave
    off_branch_lines: frozenset[int] = frozenset()
    off_branch_count: int = 0


def is_big(session: Session, threshold: int | None = None) -> bool:
    """Whether a session is streamed: a big plain file holding one session."""
    threshold = BIG_FILE_BYTES if threshold is None else threshold
    size = session.size or _size(session.path)
    return (size >= threshold and not compressed(session.path)
            and "/sidechain-" not in session.id)


def load_batches(
    library: Library,
    session: Session,
    *,
    threshold: int | None = None,
    interval: float = 0.25,
    first_batch: int = 80,
) -> Iterator[Batch]:
    """The session's entries in batches: one for a small file, a stream for a big one."""
    if not is_big(session, threshold):
        yield Batch(library.load(session).entries, True, 1.0)
        return
    adapter = library.registry.by_name(session.source_format) or library.registry.sniff(session.path)
    if adapter is None:
        raise ReaderError(f"no adapter reads {session.path}")
    if not adapter.grows(session.path):  # a document or database: read whole (no lines to stream)
        yield Batch(library.load(session).entries, True, 1.0)
        return
    yield from stream_batches(adapter, session.path, interval=interval, first_batch=first_batch,
                              skip_sidechains=session.kind is SessionKind.MAIN)


def stream_batches(
    adapter: Adapter,
    path: str,
    *,
    interval: float = 0.25,
    first_batch: int = 80,
    skip_sidechains: bool = True,
) -> Iterator[Batch]:
    """Entries of a file read from the head with the adapter's parser, slimmed, in batches: the
    first as soon as it holds `first_batch` entries, then one every `interval` seconds."""
    parser = adapter.parser(path)
    parser.settles = False  # (a stream never finishes: only the thread is kept, for branch marks)
    compact = getattr(parser, "track_branches", None)
    if compact is not None:  # (the thread as int arrays, not a record object for each line)
        compact()
    size = _size(path)
    pending: list[Entry] = []
    cut: set[str] = set()
    first = True
    last = time.monotonic()
    consumed = 0
    for parsed, consumed in _parsed_lines(path):
        for e in parser.feed(parsed):
            if skip_sidechains and e.is_sidechain:
                continue
            small, was_cut = slim(e)
            pending.append(small)
            if was_cut:
                cut.add(e.id)
        parser.forget()  # (a stream never finishes: the full texts would stay in memory)
        now = time.monotonic()
        if pending and ((first and len(pending) >= first_batch) or (not first and now - last >= interval)):
            yield Batch(pending, False, consumed / size if size else 1.0, frozenset(cut), True)
            pending, cut, first, last = [], set(), False, now
    if compact is not None:
        lines, count = off_branch_lines(parser, skip_sidechains)
        yield Batch(pending, True, 1.0, frozenset(cut), True, frozenset(), lines, count)
    else:
        yield Batch(pending, True, 1.0, frozenset(cut), True, off_branch_ids(parser, skip_sidechains))


def off_branch_ids(parser: RecordParser, skip_sidechains: bool) -> frozenset[str]:
    """Ids of the entries a parser produced that lie on an abandoned branch, from the uuid links
    it kept (for parsers whose format branches: Claude's). Bad input gives none, never an error."""
    find = getattr(parser, "off_branch_ids", None)
    if find is None:
        return frozenset()
    try:
        return frozenset(find(sidechains=not skip_sidechains))
    except Exception:  # noqa: BLE001 - a branch pass must never lose the transcript
        return frozenset()


def off_branch_lines(parser: RecordParser, skip_sidechains: bool) -> tuple[frozenset[int], int]:
    """`off_branch_ids` of a parser keeping its thread compact: the lines of the records on an
    abandoned branch and how many entries they gave. Bad input gives none, never an error."""
    try:
        return parser.off_branch_lines(sidechains=not skip_sidechains)  # type: ignore[attr-defined]
    except Exception:  # noqa: BLE001 - a branch pass must never lose the transcript
        return frozenset(), 0


def last_offset(entries: list[Entry], path: str) -> int:
    """The offset of the last line of `path` that gave any of these entries (-1 for none)."""
    return max((e.locator.offset for e in entries if e.locator.path == path), default=-1)


def live_batch(entries: Iterable[Entry], path: str, *, after: int, streamed: bool,
               skip_sidechains: bool) -> Batch:
    """Entries appended to a session's file (from a `GREW` event) that a loaded transcript does
    not hold yet: those of lines after offset `after` (the loading may have read the append
    already), slimmed like the rest when the transcript was streamed.

    Why by offset and not by id: ids of some formats are only unique within one reading of
    the file; the offset of a line is the same for every reader."""
    out: list[Entry] = []
    cut: set[str] = set()
    for e in entries:
        if e.locator.path != path or e.locator.offset <= after:
            continue
        if skip_sidechains and e.is_sidechain:
            continue
        if streamed:
            e, was_cut = slim(e)
            if was_cut:
                cut.add(e.id)
        out.append(e)
    return Batch(out, True, 1.0, frozenset(cut), streamed)


def _parsed_lines(path: str, chunk: int = 1 << 20) -> Iterator[tuple[ParsedLine, int]]:
    """Parsed lines of a file read sequentially, each with the offset just after it."""
    with open(path, "rb") as fh:
        base, line, carry = 0, 1, b""
        while True:
            data = fh.read(chunk)
            if not data:
                break
            buf = carry + data if carry else data
            start = 0
            find = buf.find
            while True:
                nl = find(b"\n", start)
                if nl < 0:
                    break
                yield parse_line(RawLine(base + start, line, buf[start:nl])), base + nl + 1
                start, line = nl + 1, line + 1
            carry = buf[start:]
            base += start
        if carry.strip():
            parsed = parse_line(RawLine(base, line, carry, terminated=False))
            if parsed.ok:  # else the writer is mid-line
                yield parsed, base + len(carry)


def slim(e: Entry) -> tuple[Entry, bool]:
    """The entry with its long texts and tool input cut to what a streamed file keeps in memory,
    and whether anything was cut."""
    cap = TEXT_CAP if e.kind in (EntryKind.TEXT, EntryKind.THINKING, EntryKind.COMPACTION) else OTHER_CAP
    text, cut = e.text, False
    if len(text) > cap:
        text, cut = text[:cap], True
    inp = e.tool_input
    if inp is not None:
        slim_inp, inp_cut = _slim_value(inp, INPUT_CAP if e.kind is EntryKind.TOOL_USE else OTHER_CAP)
        if inp_cut:
            inp, cut = slim_inp, True
    if not cut:
        return e, False
    return replace(e, text=text, tool_input=inp), True


def _slim_value(value: Any, cap: int, depth: int = 0) -> tuple[Any, bool]:
    if isinstance(value, str):
        return (value[:cap], True) if len(value) > cap else (value, False)
    if depth > 4:
        return None, True
    if isinstance(value, dict):
        out, cut = {}, False
        for k, v in value.items():
            out[k], c = _slim_value(v, cap, depth + 1)
            cut = cut or c
        return (out, True) if cut else (value, False)
    if isinstance(value, list):
        items = value[:50]
        out_list, cut = [], len(value) > 50
        for v in items:
            s, c = _slim_value(v, cap, depth + 1)
            out_list.append(s)
            cut = cut or c
        return (out_list, True) if cut else (value, False)
    return value, False


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0
