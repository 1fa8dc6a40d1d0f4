"""Tolerant JSONL reading through a byte-offset index.

Why: transcripts reach hundreds of MB with multi-MB lines, and they grow while we read them. So a
file is memory-mapped and its newline offsets are scanned lazily (forward from the head, or
backward from the tail), and a record is read on demand with `os.pread`. Nothing is parsed until
asked for: a 50 MB line costs nothing until someone wants that record.

Decoding never raises: UTF-8 is decoded with replacement (lone surrogates in `\\u` escapes too),
a leading BOM and NUL bytes are stripped, and a line that is not JSON becomes a `ParsedLine` with
an error, never an exception. An unterminated last line is held back while it does not parse (the
writer is mid-line); `complete_end` is the offset after the last newline, from which a reader of a
growing file continues.

A file whose first bytes are gzip's magic (`sessionscope archive`'s compressed copies keep the
transcript's own name) is decompressed whole on opening, like a `.zst` (`compressed`).
"""
from __future__ import annotations

import json
import mmap
import os
import stat
from array import array
from typing import Any, Iterator, NamedTuple

import orjson

from ..records import record
from ..config import ZSTD_HINT

_BOM = b"\xef\xbb\xbf"
_SCAN_CHUNK = 1 << 20
#: bytes of a file read with `iter_parsed(release=True)` between two releases of its pages
RELEASE_EVERY = 16 << 20


#: the first bytes of a gzip stream: no JSONL transcript starts with them (0x1f is a control)
GZIP_MAGIC = b"\x1f\x8b"


def compressed(path: str) -> bool:
    """Whether a file is read decompressed (a `.zst`, or gzip by its first bytes): such a file
    is read whole, never from an offset, and its size on disk is not its content's."""
    if path.endswith(".zst"):
        return True
    try:
        with open(path, "rb") as fh:
            return fh.read(2) == GZIP_MAGIC
    except OSError:
        return False


def _gunzip(data: bytes | mmap.mmap) -> bytes | None:
    """The content of a gzip stream; None when it is not one after all (bytes that only begin
    like one, or a cut stream): the file is then read as it is, its lines malformed as any
    other binary's, never an exception."""
    import gzip
    import zlib

    try:
        return gzip.decompress(data)
    except (OSError, EOFError, zlib.error):
        return None


class ReaderError(Exception):
    """A file that cannot be read at all (missing, unreadable, compressed without support)."""


def reader_error(path: str, exc: OSError) -> ReaderError:
    """The one-line reason an OSError gives for not reading `path`."""
    if isinstance(exc, FileNotFoundError):
        return ReaderError(f"file not found: {path}")
    if isinstance(exc, PermissionError):
        return ReaderError(f"permission denied: {path}")
    if isinstance(exc, IsADirectoryError):
        return ReaderError(f"is a directory: {path}")
    return ReaderError(f"cannot read {path}: {exc.strerror}")


@record(frozen=True, slots=True)
class RawLine:
    """One line of a file: `line` is 1-based; `terminated` is False for a last line without `\\n`."""

    offset: int
    line: int
    data: bytes
    terminated: bool = True


@record(frozen=True, slots=True)
class ParsedLine:
    """The JSON values on one line (usually one), or the reason it could not be parsed."""

    raw: RawLine
    values: tuple[Any, ...]
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def value(self) -> Any:
        return self.values[0] if self.values else None


def clean_bytes(data: bytes, first_line: bool) -> bytes:
    if first_line and data.startswith(_BOM):
        data = data[3:]
    if b"\x00" in data:
        data = data.replace(b"\x00", b"")
    if data.endswith(b"\r"):
        data = data[:-1]
    return data


def _sanitize(value: Any) -> Any:
    """Replace lone surrogates (which stdlib json lets through) so every string encodes."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
            return value
        except UnicodeEncodeError:
            return value.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    if isinstance(value, list):
        return [_sanitize(v) for v in value]
    if isinstance(value, dict):
        return {_sanitize(k): _sanitize(v) for k, v in value.items()}
    return value


def parse_line(raw: RawLine) -> ParsedLine:
    data = clean_bytes(raw.data, raw.line == 1)
    if not data.strip():
        return ParsedLine(raw, (), None)
    try:
        return ParsedLine(raw, (orjson.loads(data),))
    except orjson.JSONDecodeError:
        pass
    # Slow path: invalid UTF-8, lone surrogates, or several objects concatenated on one line.
    text = data.decode("utf-8", "replace")
    decoder = json.JSONDecoder()
    values: list[Any] = []
    pos, end = 0, len(text)
    try:
        while pos < end:
            while pos < end and text[pos] in " \t\r":
                pos += 1
            if pos >= end:
                break
            value, pos = decoder.raw_decode(text, pos)
            values.append(_sanitize(value))
    except (json.JSONDecodeError, RecursionError) as exc:
        msg = exc.msg if isinstance(exc, json.JSONDecodeError) else "nesting too deep"
        col = exc.colno if isinstance(exc, json.JSONDecodeError) else 0
        return ParsedLine(raw, (), f"line {raw.line}: not valid JSON ({msg} at column {col})")
    return ParsedLine(raw, tuple(values))


def decode_text(data: bytes) -> str:
    return data.decode("utf-8", "replace")


class RecordFile:
    """A JSONL file opened for random access by line.

    `scan()` walks newline offsets forward (lazily, a chunk at a time); `tail(n)` walks backward
    from the end without scanning the rest. Line numbers are exact for lines reached by the
    forward scan; `tail()` reports them only once the forward scan covered the file, else it
    counts newlines before the tail (a memchr-speed pass, no parsing).
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        self._buf: bytes | mmap.mmap | None = None
        self._fd: int | None = None
        self._starts = array("Q")  # offset of each known line start (forward scan)
        self._scanned_to = 0  # forward scan has covered bytes [0, _scanned_to)
        self.size = 0
        self._open()

    # -- opening -------------------------------------------------------------------------
    def _open(self) -> None:
        try:
            if self.path.endswith(".zst"):
                self._buf = _read_zst(self.path)
                self.size = len(self._buf)
                return
            fd = os.open(self.path, os.O_RDONLY)
        except OSError as exc:
            raise reader_error(self.path, exc) from exc
        self._fd = fd
        self.size = os.fstat(fd).st_size
        self._buf = mmap.mmap(fd, 0, access=mmap.ACCESS_READ) if self.size else b""
        if self._buf[:2] == GZIP_MAGIC:  # an archived compressed copy: its content, whole
            data = _gunzip(self._buf)
            if data is not None:
                self.close()
                self._buf, self.size = data, len(data)

    def close(self) -> None:
        if isinstance(self._buf, mmap.mmap):
            self._buf.close()
        self._buf = None
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> RecordFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def reopen_if_grown(self) -> bool:
        """Re-map the file if it grew; True when new bytes are visible. Truncation raises."""
        if self._fd is None:
            return False
        size = os.fstat(self._fd).st_size
        if size == self.size:
            return False
        if size < self.size:
            raise ReaderError(f"file was truncated: {self.path}")
        if isinstance(self._buf, mmap.mmap):
            self._buf.close()
        self._buf = mmap.mmap(self._fd, 0, access=mmap.ACCESS_READ)
        self.size = size
        return True

    def stat(self) -> os.stat_result | None:
        """The open file's status now (None: its content was decompressed, or it is closed)."""
        return os.fstat(self._fd) if self._fd is not None and not self.decompressed else None

    @property
    def decompressed(self) -> bool:
        """Whether the content was decompressed (a `.zst`, a gzip copy): offsets are into it, not
        into the file on disk, whose size is another."""
        return self._fd is None and self._buf is not None

    @property
    def buffer(self) -> bytes | mmap.mmap:
        assert self._buf is not None, "file is closed"
        return self._buf

    # -- reading -------------------------------------------------------------------------
    def read_bytes(self, offset: int, length: int) -> bytes:
        if self._fd is not None:
            return os.pread(self._fd, length, offset)
        return bytes(self.buffer[offset : offset + length])

    def iter_lines(self, start_offset: int = 0, start_line: int = 1) -> Iterator[RawLine]:
        """Lines from `start_offset` (which must be a line start) to the end.

        The last line is yielded with `terminated=False` if it has no newline; callers decide
        whether it is complete (see `iter_parsed`).
        """
        buf = self.buffer
        find = buf.find
        pos, line, end = start_offset, start_line, self.size
        while pos < end:
            nl = find(b"\n", pos, end)
            if nl < 0:
                yield RawLine(pos, line, bytes(buf[pos:end]), terminated=False)
                return
            yield RawLine(pos, line, bytes(buf[pos:nl]))
            self._note_start(pos, line)
            pos, line = nl + 1, line + 1

    def _note_start(self, offset: int, line: int) -> None:
        # Record line starts met by a forward scan from the top, so later random access is O(1).
        if line == len(self._starts) + 1 and offset >= self._scanned_to:
            self._starts.append(offset)
            self._scanned_to = offset + 1

    def iter_parsed(
        self, start_offset: int = 0, start_line: int = 1, *, final: bool = False,
        release: bool = False,
    ) -> Iterator[ParsedLine]:
        """Parsed lines from `start_offset`.

        An unterminated last line that does not parse is held back, never reported as malformed:
        the writer is mid-line and it is read again when it completes. With `final` (the file is
        not expected to grow) it is reported as malformed instead. One that parses is yielded.

        `release`: the mapped pages of the lines read are let go every RELEASE_EVERY bytes (and
        those before `start_offset` at once), so a big file read to its end does not stay in
        the process's RSS (they stay in the page cache)."""
        releasing = release and isinstance(self._buf, mmap.mmap) and hasattr(mmap, "MADV_DONTNEED")
        if releasing:
            self.release()
        dropped = start_offset - start_offset % mmap.PAGESIZE
        for raw in self.iter_lines(start_offset, start_line):
            parsed = parse_line(raw)
            if not raw.terminated and not parsed.ok and not final:
                return
            yield parsed
            if releasing and raw.offset - dropped >= RELEASE_EVERY:
                upto = raw.offset - raw.offset % mmap.PAGESIZE
                self.release(dropped, upto)
                dropped = upto

    def release(self, start: int = 0, end: int | None = None) -> None:
        """Let the mapped pages of bytes [start, end) go from the process's RSS (all by
        default); they are read again from the page cache if touched."""
        buf = self._buf
        if isinstance(buf, mmap.mmap) and hasattr(mmap, "MADV_DONTNEED") and self.size:
            end = self.size if end is None else end
            if end > start:
                buf.madvise(mmap.MADV_DONTNEED, start, end - start)

    @property
    def complete_end(self) -> int:
        """Offset just after the last newline: where a reader of a growing file resumes."""
        buf = self.buffer
        if not self.size:
            return 0
        nl = buf.rfind(b"\n", 0, self.size)
        return nl + 1

    def build_index(self) -> array:
        """Offsets of every line start (full forward scan, no parsing)."""
        buf = self.buffer
        if self._scanned_to < self.size or not self._starts:
            starts = self._starts
            if not starts:
                starts.append(0)
            pos = starts[-1]
            find = buf.find
            end = self.size
            while True:
                nl = find(b"\n", pos, end)
                if nl < 0 or nl + 1 >= end:
                    break
                pos = nl + 1
                starts.append(pos)
            self._scanned_to = self.size
            if self.size == 0:
                del starts[:]
        return self._starts

    @property
    def line_count(self) -> int:
        return len(self.build_index())

    def line_at(self, index: int) -> RawLine:
        """The line with 0-based `index`, read with pread."""
        starts = self.build_index()
        start = starts[index]
        end = starts[index + 1] if index + 1 < len(starts) else self.size
        data = self.read_bytes(start, end - start)
        terminated = data.endswith(b"\n")
        if terminated:
            data = data[:-1]
        return RawLine(start, index + 1, data, terminated)

    def line_at_offset(self, offset: int, line: int = 0) -> RawLine:
        """The line starting at byte `offset`, read without any index."""
        buf = self.buffer
        nl = buf.find(b"\n", offset, self.size)
        end = self.size if nl < 0 else nl
        return RawLine(offset, line, self.read_bytes(offset, end - offset), nl >= 0)

    def head(self, n: int) -> list[RawLine]:
        out: list[RawLine] = []
        for raw in self.iter_lines():
            out.append(raw)
            if len(out) >= n:
                break
        return out

    def line_of(self, offset: int, mark: LineMark | None = None) -> int:
        """The 1-based number of the line starting at `offset`: counted from `mark` (a line start
        whose number is known, as the catalog stores one) to `offset` alone when it holds for
        this file, else from the forward scan's index, else by counting from the top."""
        if mark is not None and self.holds(mark):
            if offset >= mark.offset:
                return mark.lines + self._newlines(mark.offset, offset) + 1
            return mark.lines - self._newlines(offset, mark.offset) + 1
        from bisect import bisect_right

        return bisect_right(self.build_index(), offset)

    def _newlines(self, start: int, end: int) -> int:
        """The newlines in bytes [start, end), counted a chunk at a time (an mmap has no count)."""
        buf, n = self.buffer, 0
        for pos in range(start, end, _SCAN_CHUNK):
            n += buf[pos : min(end, pos + _SCAN_CHUNK)].count(b"\n")
        return n

    def holds(self, mark: LineMark) -> bool:
        """Whether `mark` can be a line start of this content: within it, at its top or just
        after a newline. (Whether it is this file's is the caller's check: the catalog's
        fingerprint.)"""
        if not 0 <= mark.offset <= self.size or mark.lines < 0:
            return False
        return mark.offset == 0 or self.buffer[mark.offset - 1 : mark.offset] == b"\n"

    def last_starts(self, n: int) -> list[int]:
        """The offsets where the last `n` lines start (fewer in a shorter file), in file order,
        found backward from the end."""
        buf, end = self.buffer, self.size
        if end == 0:
            return []
        pos = end - 1 if buf[end - 1 : end] == b"\n" else end
        starts: list[int] = []
        while len(starts) < n:
            nl = buf.rfind(b"\n", 0, pos)
            if nl < 0:
                starts.append(0)
                break
            starts.append(nl + 1)
            pos = nl
        starts.reverse()
        return starts

    def tail(self, n: int, *, line_numbers: bool = True, mark: LineMark | None = None) -> list[RawLine]:
        """The last `n` lines, found by scanning backward from the end.

        Without `line_numbers` nothing before the tail is touched (lines are numbered 0:
        unknown). With them, given `mark` (where a line starts and how many lines come before
        it, as the catalog stores for a file it read: `read_end`, `read_lines`), only the
        newlines between the mark and the tail are counted (`line_of`); else those before the
        tail are (a memchr-speed pass, no parsing)."""
        buf = self.buffer
        end = self.size
        if end == 0:
            return []
        terminated_last = buf[end - 1 : end] == b"\n"
        stop = end - 1 if terminated_last else end
        starts = self.last_starts(n)
        first_line = self.line_of(starts[0], mark) if line_numbers else 0
        out: list[RawLine] = []
        for i, start in enumerate(starts):
            line_end = starts[i + 1] - 1 if i + 1 < len(starts) else stop
            is_last = i + 1 == len(starts)
            out.append(
                RawLine(
                    start,
                    first_line + i if line_numbers else 0,
                    bytes(buf[start:line_end]),
                    terminated=terminated_last or not is_last,
                )
            )
        return out


def _read_zst(path: str) -> bytes:
    try:
        import zstandard  # optional extra: sessionscope[zstd]
    except ImportError as exc:
        raise ReaderError(
            f"{path} is zstd-compressed; install the optional extra to read it: {ZSTD_HINT}"
        ) from exc
    try:
        with open(path, "rb") as fh:
            reader = zstandard.ZstdDecompressor().stream_reader(fh)
            return reader.read()
    except (OSError, zstandard.ZstdError) as exc:
        raise ReaderError(f"cannot decompress {path}: {exc}") from exc


class LineMark(NamedTuple):
    """A known line start: `offset`, with `lines` complete lines before it (the catalog's
    `read_end` and `read_lines` of a file read up to there)."""

    offset: int
    lines: int


class HeadTail(NamedTuple):
    """The first and last bytes of a file: `head` is the whole file when it is at most twice the
    size asked for (then `tail is head`), else its first `nbytes`, and `tail` its last."""

    head: bytes
    tail: bytes
    size: int
    mtime: float

    @property
    def whole(self) -> bool:
        return self.tail is self.head


def read_head_tail(path: str, nbytes: int = 65536, window: int | None = None) -> HeadTail:
    """The first and last `nbytes` of a file, for cheap metadata sniffing: one `os.pread` per end
    on one descriptor (no buffered file object, no seek). A file of at most `2 * nbytes` is read
    whole in one pread, which is the same bytes. With `window` (less than `nbytes`), the head of a
    file longer than that is its first `window` bytes instead (the quick listing's first try).

    Raises ReaderError for a missing, unreadable or non-regular file (a FIFO is never waited on)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise reader_error(path, exc) from exc
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            kind = "a directory" if stat.S_ISDIR(st.st_mode) else "not a regular file"
            raise ReaderError(f"is {kind}: {path}")
        size = st.st_size
        head = _gunzip(os.pread(fd, size, 0)) if os.pread(fd, 2, 0) == GZIP_MAGIC else None
        if head is not None:  # decompressed whole: gzip has no random access
            if len(head) <= 2 * nbytes:
                return HeadTail(head, head, len(head), st.st_mtime)
            return HeadTail(head[:nbytes], head[-nbytes:], len(head), st.st_mtime)
        if size <= 2 * nbytes:
            head = os.pread(fd, size, 0)
            return HeadTail(head, head, size, st.st_mtime)
        first = window if window is not None and window < nbytes else nbytes
        return HeadTail(os.pread(fd, first, 0), os.pread(fd, nbytes, size - nbytes), size,
                        st.st_mtime)
    except OSError as exc:
        raise ReaderError(f"cannot read {path}: {exc.strerror}") from exc
    finally:
        os.close(fd)


def lines_of(chunk: bytes, *, drop_first_partial: bool, drop_last_partial: bool) -> list[bytes]:
    parts = chunk.split(b"\n")
    if drop_first_partial and parts:
        parts = parts[1:]
    if drop_last_partial and parts and not chunk.endswith(b"\n"):
        parts = parts[:-1]
    return [p for p in parts if p.strip()]


def loads_lenient(data: bytes) -> Any:
    """One JSON value or None, never raising."""
    parsed = parse_line(RawLine(0, 2, data))
    return parsed.value if parsed.ok else None
