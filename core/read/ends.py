"""A file's two ends as lines, and what a quick listing reads from them.

`Lines`: a head or tail buffer of a transcript, its lines found and parsed on demand (the
registry's sniffers read the head through `first_json_lines`). `Ends`: the complete lines of both
windows, handed to an adapter's `quick` hook, which answers with a `QuickMeta`
(core/read/listing.py reads the windows and says what a `QuickMeta` promises).

Why a module of its own: the adapters and the listing both need these; here, below both, the
imports go one way (listing -> adapters -> ends -> jsonl). It imports neither the adapters nor
the listing (tests/core/test_layering.py checks).
"""
from __future__ import annotations

import os
from datetime import datetime, timezone
from typing import Any, Callable, Iterable, Iterator, NamedTuple, Protocol

import orjson

from .jsonl import HeadTail, RawLine, parse_line
from ..model import SessionKind, iso


class Format(Protocol):
    """What `Ends.meta` needs of an adapter (core/read/adapters/base.py), named here so this
    module does not import the adapters that import it."""

    agent: str
    name: str


#: the fields a quick listing reports on (agent and format are known whenever `error` is None)
FIELDS = ("session_id", "kind", "project", "title", "first_timestamp", "last_timestamp")
ALL_UNSURE = frozenset(FIELDS)


class QuickMeta(NamedTuple):
    """One file's listing metadata. See core/read/listing.py's docstring for what `unsure` promises.
    (A NamedTuple: a listing builds thousands, and a frozen dataclass costs 6x as much.)"""

    path: str
    size: int = 0
    mtime: float = 0.0
    agent: str | None = None
    format: str | None = None
    session_id: str | None = None
    kind: SessionKind | None = None
    project: str | None = None
    title: str | None = None
    first_timestamp: datetime | None = None
    last_timestamp: datetime | None = None
    unsure: frozenset[str] = ALL_UNSURE
    whole: bool = False
    error: str | None = None

    def knows(self, name: str) -> bool:
        """True when field `name` is what the full parse gives (times: within CLOCK_SKEW)."""
        return self.error is None and name not in self.unsure

    @property
    def sort_time(self) -> datetime:
        """The last timestamp, else the file's mtime: what "most recent first" orders by."""
        return self.last_timestamp or datetime.fromtimestamp(self.mtime, timezone.utc)

    def to_dict(self) -> dict[str, Any]:
        return {
            "session_id": self.session_id,
            "agent_id": self.agent,
            "source_plugin": self.format,
            "kind": self.kind.value if self.kind else None,
            "project": self.project,
            "title": self.title,
            "first_timestamp": iso(self.first_timestamp),
            "last_timestamp": iso(self.last_timestamp),
            "paths": [self.path],
            "size": self.size,
            "unsure": [f for f in FIELDS if f in self.unsure],
            "error": self.error,
        }


class Ends:
    """The bytes a quick listing may look at, as lines found and parsed on demand.

    Only complete lines are given: lines cut by the 64 KB windows are skipped, and an
    unterminated last line of the file counts only when it parses (as in a full load of a growing
    file). For a whole file, head and tail are one buffer read from either end."""

    __slots__ = ("path", "size", "mtime", "whole", "head", "tail", "narrow", "ran_out")

    def __init__(self, path: str, ht: HeadTail, head: Lines | None = None,
                 narrow: bool = False) -> None:
        self.path = path
        self.size = ht.size
        self.mtime = ht.mtime
        self.whole = ht.tail is ht.head  # (`HeadTail.whole`, without the property call)
        self.head = head if head is not None and head.buf is ht.head else Lines(ht.head)
        self.tail = self.head if self.whole else Lines(ht.tail)
        #: the head is narrower than the listing's window (core/read/listing.py tries it first)
        self.narrow = narrow
        #: a reader went past the last complete line of a narrow head: what the full window
        #: holds beyond it could change the answer, which is then read from that
        self.ran_out = False

    def _last_counts(self, lines: Lines, piece: tuple[int, int]) -> bool:
        """Whether what follows the last newline is a line: not when cut by the head window,
        else the file's unterminated end, when it parses (a writer mid-line has not finished)."""
        if not self.whole and lines is self.head:
            return False
        return piece[0] < piece[1] and lines.values(piece) is not None

    def head_pieces(self, look: Look | None = None) -> Iterator[tuple[int, int]]:
        """The complete lines of the head, from the top, as `(start, end)` of `self.head.buf`;
        with `look`, once it is active, those it does not want as the empty piece `(start,
        start)` (no values), and none from where it is cut (`Look`)."""
        lines = self.head
        found, piece_at, n, i = lines._fwd, lines.piece, len(lines.buf), 0
        while (piece := found[i] if i < len(found) else piece_at(i)) is not None:
            if look is not None and look.active and look.past(piece[0]):
                return  # (not run out: what lies further on is not looked at)
            if piece[1] < n or self._last_counts(lines, piece):
                skip = look is not None and look.active and not look.wants(lines.buf, *piece)
                yield (piece[0], piece[0]) if skip else piece
            i += 1
        if self.narrow:
            self.ran_out = True

    def tail_pieces(self) -> Iterator[tuple[int, int]]:
        """The complete lines of the tail, from the end backward (a tail window's first piece
        starts mid-line and is left out)."""
        lines = self.tail
        back, first = lines.back, -1 if self.whole else lines.first
        piece = back(0)
        if piece is not None and piece[0] > first and self._last_counts(lines, piece):
            yield piece
        j = 1
        while (piece := back(j)) is not None and piece[0] > first:
            yield piece
            j += 1

    def head_values(self, look: Look | None = None) -> Iterator[tuple[Any, ...] | None]:
        """The values of each complete head line from the top (None: not JSON); with `look`,
        as `head_pieces` says."""
        return map(self.head.values, self.head_pieces(look))

    def tail_values_backward(self) -> Iterator[tuple[Any, ...] | None]:
        """The values of each complete tail line from the end backward (None: not JSON)."""
        return map(self.tail.values, self.tail_pieces())

    def meta(self, adapter: Format, unsure: Iterable[str] = FIELDS, *, agent: str | None = None,
             format: str | None = None, session_id: str | None = None,
             kind: SessionKind | None = None, project: str | None = None, title: str | None = None,
             first_timestamp: datetime | None = None, last_timestamp: datetime | None = None,
             error: str | None = None) -> QuickMeta:
        """The result for this file, read by `adapter` (its agent and format unless given)."""
        return QuickMeta(self.path, self.size, self.mtime, agent or adapter.agent,
                         format or adapter.name, session_id, kind, project, title, first_timestamp,
                         last_timestamp, frozenset(unsure), self.whole, error)


def last_stamp(ends: Ends, stamp: Callable[[Any], datetime | None]) -> datetime | None:
    """The time of the last record that has one (`stamp(value)`; None: the value has none that
    counts), read from the end backward; None when the tail shows none."""
    return last_stamp_of(ends.tail_values_backward(), stamp)


def last_stamp_of(tail_values: Iterable[tuple[Any, ...] | None],
                  stamp: Callable[[Any], datetime | None]) -> datetime | None:
    """`last_stamp` of the tail's lines' values from the end backward."""
    for values in tail_values:
        if values:
            for value in reversed(values) if len(values) > 1 else values:
                ts = stamp(value)
                if ts is not None:
                    return ts
    return None


if os.altsep is None:
    def basename(path: str) -> str:
        """`os.path.basename` of a str path where there is one separator (POSIX): the same
        answer without its generality, which costs a listing a microsecond a call."""
        return path[path.rfind(os.sep) + 1:]
else:  # pragma: no cover - Windows
    basename = os.path.basename


_BOM = b"\xef\xbb\xbf"
_UNPARSED: Any = object()


class Lines:
    """The lines of a buffer (a file's head, tail, or all of it), found on demand from either end
    with memchr-speed finds, each parsed at most once.

    Why: the registry hands the same head to every adapter's `sniff`, and the quick listing
    (core/read/listing.py) then reads lines of the same bytes for metadata; only the lines someone
    asks for are found and parsed (`bytes.split` would walk all of it byte by byte). A piece is
    `(start, end)` without its newline; the last piece is whatever follows the last newline (cut
    off by a window, or the unterminated end of a file); a leading BOM is not part of line 1."""

    __slots__ = ("buf", "first", "_fwd", "_fpos", "_bwd", "_bpos", "_values", "_objects", "_next")

    def __init__(self, buf: bytes, values: dict[tuple[int, int], Any] | None = None) -> None:
        self.buf = buf
        self.first = first = 3 if buf[:3] == _BOM else 0  # where line 1 starts
        self._fwd: list[tuple[int, int]] = []  # pieces found from the top
        self._fpos = first
        self._bwd: list[tuple[int, int]] = []  # pieces found from the end
        self._bpos = len(buf)
        # Parsed values by piece; a prefix of the same bytes may share them (same pieces).
        self._values: dict[tuple[int, int], Any] = {} if values is None else values
        self._objects: list[dict] = []  # the first JSON object of each line, from the top
        self._next = 0  # the next piece `objects` looks at

    def prefix(self, buf: bytes) -> Lines:
        """The `Lines` of `buf`, a prefix of this buffer, sharing the pieces already found that
        end inside it (a prefix's pieces are the same as far as it goes) and the parsed values."""
        lines = Lines(buf, self._values)
        n, found = len(buf), lines._fwd
        for piece in self._fwd:
            if piece[1] >= n:
                break
            found.append(piece)
        if found:
            lines._fpos = found[-1][1] + 1
        return lines

    def objects(self, n: int) -> list[dict]:
        """The first `n` lines (from the top) whose first value is a JSON object, those values."""
        found = self._objects
        if len(found) < n:
            # (the pieces already found and the values already parsed are taken in place: a
            # sniffer asks for the first lines, which the listing has usually found)
            fwd, cache, piece_at, values_of, i = self._fwd, self._values, self.piece, self.values, self._next
            while (piece := fwd[i] if i < len(fwd) else piece_at(i)) is not None:
                i += 1
                values = cache.get(piece, _UNPARSED)
                if values is _UNPARSED:
                    values = values_of(piece)
                if values and type(values[0]) is dict:  # orjson and json give plain dicts
                    found.append(values[0])
                    if len(found) == n:
                        break
            self._next = i
        return found[:n]

    def piece(self, i: int) -> tuple[int, int] | None:
        """The `i`-th piece from the top (0-based), None past the end."""
        found = self._fwd
        k = len(found)
        if i < k:
            return found[i]
        buf, pos = self.buf, self._fpos
        n, find = len(buf), buf.find
        while k <= i:
            if pos > n:
                self._fpos = pos
                return None
            nl = find(b"\n", pos)
            if nl < 0:
                nl = n
            found.append((pos, nl))
            pos = nl + 1
            k += 1
        self._fpos = pos
        return found[i]

    def back(self, j: int) -> tuple[int, int] | None:
        """The `j`-th piece from the end (0: what follows the last newline), None past the top."""
        found = self._bwd
        k = len(found)
        if j < k:
            return found[j]
        first, end, rfind = self.first, self._bpos, self.buf.rfind
        while k <= j:
            if end < first:
                self._bpos = end
                return None
            start = rfind(b"\n", first, end) + 1 or first
            found.append((start, end))
            end = start - 1
            k += 1
        self._bpos = end
        return found[j]

    def forward(self) -> Iterator[tuple[int, int]]:
        """Every piece from the top."""
        i = 0
        while (piece := self.piece(i)) is not None:
            yield piece
            i += 1

    def values(self, piece: tuple[int, int]) -> tuple[Any, ...] | None:
        """The JSON values of a piece (usually one; none for a blank line), None if not JSON."""
        got = self._values.get(piece, _UNPARSED)
        if got is _UNPARSED:
            start, end = piece
            if start == end:
                got = ()  # the empty piece after a file's or window's last newline
            else:
                try:
                    got = (_loads(self.buf[start:end]),)
                except _DecodeError:
                    got = loads_values(self.buf[start:end])
            self._values[piece] = got
        return got


_loads, _DecodeError = orjson.loads, orjson.JSONDecodeError


def loads_values(line: bytes) -> tuple[Any, ...] | None:
    """The values on one line as the full parse sees them (`jsonl.parse_line`, orjson first);
    None when the line is not JSON. Never raises."""
    if not line:
        return ()  # the empty piece after a file's or window's last newline
    try:
        return (orjson.loads(line),)
    except orjson.JSONDecodeError:
        parsed = parse_line(RawLine(0, 2, line))
        return parsed.values if parsed.ok else None


def line_values(line: bytes | memoryview) -> tuple[Any, ...] | None:
    """`Lines.values` of a piece holding `line` (without a `Lines`: a format's quick lane reads
    its few lines straight from the buffer, `Adapter.quick_lane`; a view of it is not copied)."""
    if not line:
        return ()
    try:
        return (_loads(line),)
    except _DecodeError:
        return loads_values(bytes(line))


def head_values_from(buf: bytes, pos: int, whole: bool, ran_out: list[bool],
                     look: Look | None = None, memo: dict[int, Any] | None = None,
                     ) -> Iterator[tuple[Any, ...] | None]:
    """`Ends.head_values` of a head buffer `buf` (the whole file when `whole`) from the line that
    starts at `pos` on, without a `Lines`; `ran_out[0]` is set when they are all read (not when
    `look` cut them short). With `memo`, the values of each line parsed are kept by where it
    starts (for `tail_values` of the same buffer: a small file read whole is one buffer)."""
    find, n, view = buf.find, len(buf), memoryview(buf)
    while (nl := find(b"\n", pos)) >= 0:
        if look is not None and look.active:
            if look.past(pos):
                return
            if not look.wants(buf, pos, nl):
                yield ()
                pos = nl + 1
                continue
        values = line_values(view[pos:nl])
        if memo is not None:
            memo[pos] = values
        yield values
        pos = nl + 1
    if whole and pos < n:  # the file's unterminated end, when it parses (`Ends._last_counts`)
        if look is not None and look.active and look.past(pos):
            return
        values = line_values(view[pos:])
        if memo is not None:
            memo[pos] = values
        if values is not None:
            yield values if look is None or not look.active or look.wants(buf, pos, n) else ()
    ran_out[0] = True


class Look:
    """How far a head walk goes on once what it must know is known, and which lines it still
    parses: a reader that has what it needs but would like more (a title is a guess: a prompt
    further down) turns it on (`active`); from then on, a line that `wants(buf, start, end)`
    says no to is given as a blank one (not parsed), and the walk stops at the first line that
    starts `budget` bytes or more after the first line it looked at so (`cut` is then set; the
    head has not run out: a narrow one is not read again for it).

    Why: a session started by a slash command has no typed prompt for many lines, or none at
    all, and looking for one parsed every line of the head (of a whole small file: all of it),
    10 to 100 times the cost of reading the ends, for a guess."""

    __slots__ = ("budget", "wants", "active", "until", "cut")

    def __init__(self, budget: int, wants: Callable[[bytes, int, int], bool]) -> None:
        self.budget = budget
        self.wants = wants
        self.active = False
        self.until = -1  # (set at the first line looked at once active)
        self.cut = False

    def past(self, start: int) -> bool:
        """Whether the line that starts at `start` lies past the budget (then `cut`)."""
        if self.until < 0:
            self.until = start + self.budget
        elif start >= self.until:
            self.cut = True
        return self.cut


def tail_values(buf: bytes, whole: bool, memo: dict[int, Any] | None = None) -> Iterator[tuple[Any, ...] | None]:
    """`Ends.tail_values_backward` of a tail buffer `buf` (the whole file when `whole`), without
    a `Lines`; a line whose values `memo` holds by where it starts (`head_values_from`'s, of the
    same buffer) is not parsed again."""
    first = 3 if buf[:3] == _BOM else 0
    least = -1 if whole else first  # (a tail window's first piece starts mid-line: left out)
    rfind, end, view = buf.rfind, len(buf), memoryview(buf)
    known = memo.get if memo else None
    start = rfind(b"\n", first, end) + 1 or first
    if start > least and start < end:  # what follows the last newline: the unterminated end
        values = known(start, _UNPARSED) if known is not None else _UNPARSED
        if values is _UNPARSED:
            values = line_values(view[start:end])
        if values is not None:
            yield values
    end = start - 1
    while end >= first:
        start = rfind(b"\n", first, end) + 1 or first
        if start <= least:
            return
        values = known(start, _UNPARSED) if known is not None else _UNPARSED
        yield line_values(view[start:end]) if values is _UNPARSED else values
        end = start - 1


_memo: Lines | None = None


def head_lines(head: bytes, share: Lines | None = None) -> Lines:
    """The shared `Lines` of a file's head (the last one asked for is kept, by identity). With
    `share`, lines of bytes that `head` begins: the two share their parsed lines."""
    global _memo
    memo = _memo
    if memo is None or memo.buf is not head:
        if share is not None and share.buf is head:
            memo = _memo = share
        else:
            memo = _memo = Lines(head) if share is None else share.prefix(head)
    return memo


def first_json_lines(head: bytes, n: int = 5) -> list[dict]:
    """Up to `n` JSON objects from the lines of a file's head (for sniffing), in order.

    A last line cut off by the head's size simply fails to parse and is skipped."""
    return head_lines(head).objects(n)


#: the mean gap (bytes) between hits of `find_by_byte`'s byte under which its walk costs more
#: than `bytes.find` over the same span (a hit costs two calls and a loop step, ~250 ns;
#: `bytes.find` of a needle of a dozen bytes crawls at ~0.25 ns a byte)
_SPARSE = 1024


def find_by_byte(buf: bytes, needle: bytes, key: int, start: int = 0) -> int:
    """`buf.find(needle, start)` (`start` >= 0), found by walking the occurrences of the needle's
    byte at index `key` (one rare in the text searched; not the needle's last) with memchr while
    they are sparse, and by `bytes.find` from where they turn dense (then slower than it by the
    first four hits' calls, ~1 us); a span of less than 4 KB by `bytes.find` alone.

    Why: CPython's `bytes.find` of a needle of a dozen bytes advances at most the needle's length
    a step, ~3.5 GB/s; memchr, which finds one byte, ten times that. A listing that must know
    whether a whole file holds a record type anywhere (pi's `"session_info"`) spent more on that
    one search than on reading the file."""
    n, find = len(buf), buf.find
    if n - start < 4 * _SPARSE:
        return find(needle, start)  # (the walk's first hits cost what searching all of it does)
    byte, after = needle[key:key + 1], needle[key + 1]
    end = n - len(needle) + key + 1  # (a hit from here on leaves no room for the needle)
    d = find(byte, start + key, end)
    hits = 0
    while d >= 0:
        # (the byte after it first: an int compared, cheaper than a call)
        if buf[d + 1] == after and buf.startswith(needle, d - key):
            return d - key
        hits += 1
        if not hits & 3 and d - start < hits * _SPARSE:  # dense: the plain search from here on
            return find(needle, d - key + 1)
        d = find(byte, d + 1, end)
    return -1


def one_spaced(text: str) -> str:
    """`" ".join(text.split())` (a text on one line, its words one space apart), without splitting a
    text that already is so, as a prompt usually is: every whitespace character but the space is
    non-printable (tests/core/test_quick_lanes_more.py checks all of Unicode), so a printable
    text with no space at either end and no two together is its own answer. Why: a listing
    makes a title of a prompt a file, and splitting one costs more than parsing its line.
    A text whose only unprintable characters are newlines, single ones between words, is that
    text with each made a space (a prompt of several lines usually is)."""
    flat = text.replace("\n", " ") if "\n" in text else text
    if flat.isprintable() and "  " not in flat and flat[:1] != " " and flat[-1:] != " ":
        return flat
    return " ".join(text.split())
