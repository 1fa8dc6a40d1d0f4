"""A file's two ends as lines: the head and tail buffers of a transcript, its lines found and parsed
on demand. The registry's sniffers (`first_json_lines`) and the quick listing read through these.

Lowest of core/read's transcript modules beside `jsonl`: the adapters and the listing import it,
it imports neither.
"""
from __future__ import annotations

from typing import Any, Iterator

import orjson


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
        self.first = 3 if buf.startswith(_BOM) else 0  # where line 1 starts
        self._fwd: list[tuple[int, int]] = []  # pieces found from the top
        self._fpos = self.first
        self._bwd: list[tuple[int, int]] = []  # pieces found from the end
        self._bpos = len(buf)
        # Parsed values by piece; a prefix of the same bytes may share them (same pieces).
        self._values: dict[tuple[int, int], Any] = {} if values is None else values
        self._objects: list[dict] = []  # the first JSON object of each line, from the top
        self._next = 0  # the next piece `objects` looks at

    def objects(self, n: int) -> list[dict]:
        """The first `n` lines (from the top) whose first value is a JSON object, those values."""
        found = self._objects
        while len(found) < n and (piece := self.piece(self._next)) is not None:
            self._next += 1
            values = self.values(piece)
            if values and type(values[0]) is dict:  # orjson and json give plain dicts
                found.append(values[0])
        return found[:n]

    def piece(self, i: int) -> tuple[int, int] | None:
        """The `i`-th piece from the top (0-based), None past the end."""
        found = self._fwd
        buf = self.buf
        while len(found) <= i:
            pos, n = self._fpos, len(buf)
            if pos > n:
                return None
            nl = buf.find(b"\n", pos)
            end = n if nl < 0 else nl
            self._fpos = end + 1
            found.append((pos, end))
        return found[i]

    def back(self, j: int) -> tuple[int, int] | None:
        """The `j`-th piece from the end (0: what follows the last newline), None past the top."""
        found = self._bwd
        while len(found) <= j:
            end = self._bpos
            if end < self.first:
                return None
            start = self.buf.rfind(b"\n", self.first, end) + 1 or self.first
            self._bpos = start - 1
            found.append((start, end))
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
            got = self._values[piece] = loads_values(self.buf[piece[0]:piece[1]])
        return got


def loads_values(line: bytes) -> tuple[Any, ...] | None:
    """The values on one line as the full parse sees them (`jsonl.parse_line`, orjson first);
    None when the line is not JSON. Never raises."""
    if not line:
        return ()  # the empty piece after a file's or window's last newline
    try:
        return (orjson.loads(line),)
    except orjson.JSONDecodeError:
        from .jsonl import RawLine, parse_line

        parsed = parse_line(RawLine(0, 2, line))
        return parsed.values if parsed.ok else None


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
            memo = _memo = Lines(head, None if share is None else share._values)
    return memo


def first_json_lines(head: bytes, n: int = 5) -> list[dict]:
    """Up to `n` JSON objects from the lines of a file's head (for sniffing), in order.

    A last line cut off by the head's size simply fails to parse and is skipped."""
    return head_lines(head).objects(n)
