"""A session's last (or first) entries read from the end (or start) of its file, exactly as a
whole read gives them.

Why: `recent` (the CLI's and the session-logs tool's) shows the last entries of a session, often
the caller's own, long, session; parsing a 100 MB transcript whole for its last ten entries takes
seconds. But a format's parser carries state from line to line (Claude Code's active branch is
found by walking the record tree back from the last record, a split reply merges into the entry
before it, a repeated uuid is a resume copy; Codex drops the later of two twin records), so the
entries a parser gives from a window at the end are not always the whole read's.

So a window is believed only once checked: when the catalog's scan reads a big file whole, it
also reads the file's last lines alone (`find_tail`) and compares the last `VERIFY` entries of
the conversation (the active branch, as the CLI shows it) with the whole read's; when they are the
same, it stores where that window starts (its offset and line) and the conversation's length, under
the file's fingerprint (`TailMark`, the catalog's `tails` table). Reading the same bytes again
gives the same entries, so later, while the file's fingerprint is unchanged, `last_entries` reads
only that window. Anything else (a changed or grown file, a window that did not match, more
entries asked for than were checked, a file of several sessions) is read whole, as before.

The same holds at the other end, for `read` and `read_session`, which show a session's first
entries: the scan also reads the file's first lines alone (`find_head`), and where they give the
whole read's first `HEAD_VERIFY` entries (and one more), stores how many lines that took
(`HeadMark`, the `head_marks` table); `first_entries` then reads those lines alone.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from .store import FileRow, Fingerprint, HeadMark, TailMark

if TYPE_CHECKING:
    from ..model import Entry, Session
    from ..read.adapters import Adapter, LoadedSession
    from ..read.jsonl import RecordFile
    from .library import Library

#: files smaller than this are read whole (fast enough; no window is looked for)
TAIL_MIN_BYTES = 1 << 20
#: how many of the last entries a window is checked for (`recent` asks for 10 by default)
VERIFY = 50
#: a window is looked for within the last 1/SHARE of the file (a real Claude Code transcript of
#: 3 MB needs 170-260 KB for its last 50 entries)
SHARE = 4
#: `regrow` reads a window's lines and those appended since alone up to this many bytes, or
#: 1/SHARE of the file when that is more (below it, reading them costs less than the thin reading
#: of the whole file it replaces, whatever their share: a 3 MB transcript grown by 1 MB was read
#: whole, thin, at each call, in 400-860 ms)
REGROW_BYTES = 8 << 20


def mark_key(fingerprint: Fingerprint) -> str:
    """What a window found is stored under: the file's fingerprint, and how windows were checked
    (2: a thin scan's comparison takes every field a thin entry keeps; a window of before, under
    the bare fingerprint, compared fewer: it is not used, and found again by the next whole read)."""
    return "2:" + fingerprint.key


def read_lines(adapter: Adapter, path: str, rf: RecordFile, offset: int = 0, line: int = 1,
               end: int | None = None) -> LoadedSession | None:
    """The first session the adapter's parser gives from the line at `offset` (numbered `line`)
    to offset `end` (None: the file's end), read like `Adapter.load` reads a whole file."""
    parser = adapter.parser(path)
    for parsed in rf.iter_parsed(offset, line):
        if end is not None and parsed.raw.offset >= end:
            break
        parser.feed(parsed)
    loaded = parser.finish()
    return loaded[0] if loaded else None


def read_from(adapter: Adapter, path: str, rf: RecordFile, offset: int, line: int) -> list[Entry]:
    """The entries `read_lines` gives from the line at `offset` to the end."""
    got = read_lines(adapter, path, rf, offset, line)
    return got.entries if got is not None else []


def find_tail(adapter: Adapter, path: str, rf: RecordFile, loaded: LoadedSession,
              fingerprint: Fingerprint, end: int, lines: int, thin: bool = False) -> TailMark | None:
    """Where the last entries of `loaded` (the whole read of `rf`, with `lines` lines before
    offset `end`) can be read from, checked against it: from the line of the first of them,
    then twice as many lines while those do not give them; None when no window within
    1/SHARE of the file gives them. `thin`: `loaded` was read thin (`Adapter.load_thin`: texts
    cut, split replies merged from cut parts), so entries are compared without their texts."""
    from ..read.jsonl import LineMark
    from .library import conversation

    def read(entries: list) -> list:
        return _compared(entries, thin)

    whole = conversation(loaded.entries)
    want = read(whole[-VERIFY:])
    if not want:
        return None
    mark = LineMark(end, lines)
    # First the fewest lines that can do: from the line the first of those entries comes from
    # (as the whole read locates it); then twice as many lines back from the end while they do
    # not give them.
    first = min((e.locator for e in whole[-VERIFY:]), key=lambda loc: loc.offset)
    if first.path != path:
        return None  # (entries of another file: no window of this one holds them)
    offset, line = first.offset, first.line
    while True:
        if offset <= 0 or rf.size - offset > rf.size // SHARE:
            return None  # as good as the whole file: nothing to win
        if read(conversation(read_from(adapter, path, rf, offset, line))[-VERIFY:]) == want:
            return TailMark(mark_key(fingerprint), offset, line, len(want), len(whole))
        # (one line more for an unfinished last line, which last_starts counts too)
        starts = rf.last_starts(2 * max(1, lines - line + 1) + 1)
        before, offset = offset, starts[0] if starts else 0
        if offset >= before:
            return None  # (no line further back: never the same window twice)
        line = rf.line_of(offset, mark)


def _compared(entries: list[Entry], thin: bool, loaded: LoadedSession | None = None) -> list:
    """Entries as they are compared with a whole read's: whole, or without their texts when
    that read was thin (`Adapter.load_thin`); given `loaded` (theirs), each with the lines of the
    parts of a split reply merged into it (a reply cut at a window's end merges fewer)."""
    def one(e: Entry) -> object:
        # (thin: every field a thin entry keeps, all but its text and tool input: a tool result's
        # name, from its call, is one a window can miss)
        return e if not thin else (e.id, e.role, e.kind, e.locator, e.parent_id, e.timestamp, e.tool_name,
                                   e.tool_use_id, e.is_error, e.message_id, e.raw_type, e.is_sidechain,
                                   e.on_active_branch, e.model)

    if loaded is None:
        return [one(e) for e in entries]
    return [(one(e), entry_lines(e, loaded)) for e in entries]


def entry_lines(e: Entry, loaded: LoadedSession) -> list[int]:
    """The lines entry `e` of `loaded` was made from: its own, and those of the parts of a split
    reply merged into it (Claude Code's `merged_from`)."""
    merged = getattr(loaded, "merged_from", None) or {}
    return [e.locator.line, *(loc.line for loc in merged.get(e.id, ()))]


def last_entries(library: Library, session: Session, n: int) -> tuple[list[Entry], int] | None:
    """The last `n` entries of the session's conversation and how many it has in all, read from
    its stored window (`find_tail`); None when that cannot be done, to read the session whole."""
    from .library import conversation

    def read(adapter: Adapter, rf: RecordFile, mark: TailMark) -> tuple[list[Entry], int] | None:
        if n > mark.verified:
            return None
        entries = conversation(read_from(adapter, session.path, rf, mark.offset, mark.line))
        return entries[max(0, len(entries) - n):], mark.total

    return _from_mark(library, session, library.catalog.tail, read, TAIL_MIN_BYTES)


def _from_mark(library: Library, session: Session, stored: Callable[[str], Any],
               read: Callable[[Adapter, RecordFile, Any], tuple[list[Entry], int] | None],
               min_size: int) -> tuple[list[Entry], int] | None:
    """`read(adapter, rf, mark)` of the session's file, with the mark `stored(path)` gives, when
    that mark was found for the file as it is (its fingerprint unchanged since the scan) and
    the file holds that session alone; else None. A file under `min_size` bytes has no such mark
    stored: nothing is looked up (a small session's `read` and `recent` ask nothing more)."""
    from ..read.jsonl import ReaderError, RecordFile

    if (session.size or 0) < min_size:
        return None
    row = single_row(library, session)
    if row is None:
        return None
    mark = stored(session.path)
    if mark is not None and mark.key != mark_key(row.fingerprint) and regrow(library, session, row):
        mark = stored(session.path)  # (carried across the file's growth)
    if mark is None or mark.key != mark_key(row.fingerprint) or mark.verified <= 0:  # (0: none was found)
        return None
    adapter = library.adapter_named(row.adapter or "")
    if adapter is None:
        return None
    try:
        with RecordFile(session.path) as rf:
            if not describes(row.fingerprint, rf):
                return None  # changed since the scan (or decompressed): read whole
            return read(adapter, rf, mark)
    except (OSError, ReaderError):
        return None


def no_marks(fingerprint: Fingerprint) -> tuple[TailMark, HeadMark]:
    """The marks of a file read whole without a window found (`verified` 0: none serves a call)."""
    key = mark_key(fingerprint)
    return TailMark(key, -1, 0, 0, 0), HeadMark(key, -1, 0, 0, 0)


def grown_from(key: str, fingerprint: Fingerprint) -> int | None:
    """The size at which a mark stored under `key` was found, when that was this file (same
    device, inode and first 4 KB) before it grew to `fingerprint`; else None."""
    now = mark_key(fingerprint)
    version = now[:now.index(":") + 1]  # (how windows were checked: the same way)
    parts = key[len(version):].split(":") if key.startswith(version) else []
    if len(parts) != 5:
        return None
    try:
        dev, ino, size = int(parts[0]), int(parts[1]), int(parts[2])
    except ValueError:
        return None
    if (dev, ino, parts[4]) != (fingerprint.dev, fingerprint.ino, fingerprint.head_hash) or size >= fingerprint.size:
        return None
    return size


def regrow(library: Library, session: Session, row: FileRow) -> bool:
    """Carry the windows stored for the file's session to the file as it is, when it only grew
    since the whole reading that checked them, and store them: True when done.

    A whole reading of a file that grows stores its marks, found or not (`no_marks`), so a mark
    under an earlier fingerprint of the same file means that every line written since was read
    on by the scan (the adapter's `extend` took each: for Claude Code, no resume copy and no
    summary among them). The lines from the tail window's start to the end are then read alone
    (`Adapter.read_grown`): when the adapter can tell that the new lines only add to the end of
    the conversation, the window's last entries are a whole reading's, its length is the one
    stored plus what the window's lines give more with the new lines, and a window nearer the
    end is looked for against that reading (`find_tail`); the head window, when it was found by
    the same reading, still gives the first entries. Not when the lines to read are over
    REGROW_BYTES and 1/SHARE of the file (a file grown much since, unasked: reading them whole
    holds ~2x them; the caller's thin reading holds less)."""
    from ..read.jsonl import RecordFile
    from .library import conversation

    catalog, path, fp = library.catalog, session.path, row.fingerprint
    tail = catalog.tail(path)
    old = grown_from(tail.key, fp) if tail is not None and tail.verified > 0 else None
    adapter = library.adapter_named(row.adapter or "") if old is not None else None
    if adapter is None or tail is None or old is None:
        return False
    try:
        with RecordFile(path) as rf:
            if (not describes(fp, rf) or rf.complete_end != rf.size or row.read_end != rf.size
                    or rf.size - tail.offset > max(rf.size // SHARE, REGROW_BYTES)):
                return False
            got = adapter.read_grown(path, rf, tail.offset, tail.line, old,
                                     catalog.carried(path, row.read_end) if adapter.carries else None)
            if got is None:
                return False
            # (the conversation grew by what the window's lines gave more with the new ones: a
            # message of before written again in them, as Gemini CLI does, is not a new one)
            was = read_lines(adapter, path, rf, tail.offset, tail.line, end=old)
            total = tail.total + len(conversation(got.entries)) - len(conversation(was.entries) if was else ())
            key = mark_key(fp)
            found = find_tail(adapter, path, rf, got, fp, row.read_end, row.read_lines)
            at = found or tail
            head = catalog.head(path)
            catalog.put_marks(path, TailMark(key, at.offset, at.line, at.verified, total),
                              HeadMark(key, head.end, head.lines, head.verified, total)
                              if head is not None and head.key == tail.key and head.verified > 0 else None)
            return True
    except Exception:  # noqa: BLE001 - a refinement (unreadable, or anything odd): the caller reads otherwise
        return False


def single_row(library: Library, session: Session) -> FileRow | None:
    """The catalog row of the session's file when that file holds this session alone."""
    row = library.row(session.path)  # (that row alone: a lazy library decodes no other)
    if row is None or len(row.sessions) != 1 or row.sessions[0].id != session.id:
        return None
    return row


def describes(fingerprint: Fingerprint, rf: RecordFile) -> bool:
    """Whether the open file is the one `fingerprint` was taken of, unchanged since (its stat;
    a decompressed file's size is not its file's)."""
    st = rf.stat()
    return (st is not None and (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
            == (fingerprint.dev, fingerprint.ino, fingerprint.size, fingerprint.mtime_ns)
            and rf.size == fingerprint.size)


def find_ends(adapter: Adapter, path: str, rf: RecordFile, loaded: LoadedSession, fingerprint: Fingerprint,
              end: int, lines: int, thin: bool, *, tail: bool = True,
              head: bool = True) -> tuple[TailMark | None, HeadMark | None]:
    """Where the last and the first entries of `loaded`, the whole read of a file of one session
    (`lines` lines before offset `end`), can be read from (`find_tail`, `find_head`; those asked
    for); none in a file under TAIL_MIN_BYTES, read whole fast enough."""
    if rf.size < TAIL_MIN_BYTES:
        return None, None
    return (find_tail(adapter, path, rf, loaded, fingerprint, end, lines, thin) if tail else None,
            find_head(adapter, path, rf, loaded, fingerprint, thin) if head else None)


# -- the first entries ------------------------------------------------------------------------------
#: how many of the first entries a head window is checked for (`read` shows 100 by default, the
#: session-logs `read_session` 50)
HEAD_VERIFY = 100
#: files smaller than this get no head window: `read` reads them whole in ~60 ms (4 MB), and
#: looking for one costs a cold scan ~10% more CPU over files of 1-8 MB (measured: a parse of the
#: first ~150 lines for each)
HEAD_MIN_BYTES = 4 << 20


def read_head(adapter: Adapter, path: str, rf: RecordFile, end: int) -> LoadedSession | None:
    """The first session `read_lines` gives from the file's lines before offset `end`."""
    return read_lines(adapter, path, rf, end=end)


def find_head(adapter: Adapter, path: str, rf: RecordFile, loaded: LoadedSession,
              fingerprint: Fingerprint, thin: bool = False) -> HeadMark | None:
    """How many of the file's first lines give the first entries of `loaded` (the whole read
    of `rf`) read alone, checked against it: `find_tail` at the other end, starting from the
    lines the whole read says the first entries come from. The window must give
    one entry more than those checked (a reply split over lines at its end would merge fewer
    parts; the entry after it shows it is whole). None when no window within 1/SHARE of the
    file does (or the conversation is not longer than that)."""
    from .library import conversation

    if rf.size < HEAD_MIN_BYTES:
        return None
    whole = conversation(loaded.entries)
    if len(whole) <= HEAD_VERIFY:
        return None
    want = _compared(whole[:HEAD_VERIFY], thin, loaded)
    # (first the fewest lines that can do: through the line of the entry after those checked;
    # then twice as many while they do not)
    n = max(e.locator.line for e in whole[: HEAD_VERIFY + 1])
    while True:
        end = _line_end(rf, n)
        if end is None or end > rf.size // SHARE:
            return None
        got = read_head(adapter, path, rf, end)
        entries = conversation(got.entries) if got is not None else []
        if len(entries) > HEAD_VERIFY and _compared(entries[:HEAD_VERIFY], thin, got) == want:
            return HeadMark(mark_key(fingerprint), end, n, HEAD_VERIFY, len(whole))
        n *= 2


def _line_end(rf: RecordFile, n: int) -> int | None:
    """The offset just after the file's `n`th line; None when it has no more lines than that."""
    buf, pos = rf.buffer, 0
    for _ in range(n):
        nl = buf.find(b"\n", pos, rf.size)
        if nl < 0:
            return None
        pos = nl + 1
    return pos if pos < rf.size else None


def first_entries(library: Library, session: Session, n: int) -> tuple[list[Entry], int] | None:
    """The first `n` entries of the session's conversation and how many it has in all, read from
    its stored head window (`find_head`); None when that cannot be done, to read it otherwise."""
    from .library import conversation

    def read(adapter: Adapter, rf: RecordFile, mark: HeadMark) -> tuple[list[Entry], int] | None:
        if n > mark.verified:
            return None
        got = read_head(adapter, session.path, rf, mark.end)
        return (conversation(got.entries)[:n], mark.total) if got is not None else None

    return _from_mark(library, session, library.catalog.head, read, HEAD_MIN_BYTES)
