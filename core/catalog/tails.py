"""A session's last entries read from the end of its file, exactly as a whole read gives them.

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
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from .store import Fingerprint, TailMark

if TYPE_CHECKING:
    from ..model import Entry, Session
    from ..read.adapters import Adapter, LoadedSession
    from ..read.jsonl import RecordFile
    from .library import Library

#: files smaller than this are read whole (fast enough; no window is looked for)
TAIL_MIN_BYTES = 1 << 20
#: how many of the last entries a window is checked for (`recent` asks for 10 by default)
VERIFY = 50
#: lines in the first window tried (then 4x larger while it stays within 1/SHARE of the file:
#: a real Claude Code transcript of 3 MB needs 170-260 KB for its last 50 entries)
FIRST_LINES = 4 * VERIFY
SHARE = 4


def read_from(adapter: Adapter, path: str, rf: RecordFile, offset: int, line: int) -> list[Entry]:
    """The entries the adapter's parser gives from the line at `offset` (numbered `line`) to
    the end, read like `Adapter.load` reads a whole file; those of its first session."""
    parser = adapter.parser(path)
    for parsed in rf.iter_parsed(offset, line):
        parser.feed(parsed)
    loaded = parser.finish()
    return loaded[0].entries if loaded else []


def find_tail(adapter: Adapter, path: str, rf: RecordFile, loaded: LoadedSession,
              fingerprint: Fingerprint, end: int, lines: int, thin: bool = False) -> TailMark | None:
    """Where the last entries of `loaded` (the whole read of `rf`, with `lines` lines before
    offset `end`) can be read from, checked against it; None when no window within
    1/SHARE of the file gives them. `thin`: `loaded` was read thin (`Adapter.load_thin`: texts
    cut, split replies merged from cut parts), so entries are compared without their texts."""
    from ..read.jsonl import LineMark
    from .library import conversation

    def read(entries: list) -> list:
        if not thin:
            return entries
        return [(e.id, e.kind, e.role, e.timestamp, e.message_id, e.on_active_branch, e.locator, e.tool_use_id)
                for e in entries]

    whole = conversation(loaded.entries)
    want = read(whole[-VERIFY:])
    if not want:
        return None
    mark = LineMark(end, lines)
    n = FIRST_LINES
    while True:
        starts = rf.last_starts(n)
        offset = starts[0] if starts else 0
        if offset == 0 or rf.size - offset > rf.size // SHARE:
            return None  # as good as the whole file: nothing to win
        line = rf.line_of(offset, mark)
        if read(conversation(read_from(adapter, path, rf, offset, line))[-VERIFY:]) == want:
            return TailMark(fingerprint.key, offset, line, len(want), len(whole))
        n *= 4


def last_entries(library: Library, session: Session, n: int) -> tuple[list[Entry], int] | None:
    """The last `n` entries of the session's conversation and how many it has in all, read from
    its stored window (`find_tail`); None when that cannot be done, to read the session whole."""
    from ..read.jsonl import ReaderError, RecordFile
    from .library import conversation

    row = library.row(session.path)  # (that row alone: a lazy library decodes no other)
    if row is None or len(row.sessions) != 1 or row.sessions[0].id != session.id:
        return None
    mark = library.catalog.tail(session.path)
    fp = row.fingerprint
    if mark is None or mark.key != fp.key or n > mark.verified:
        return None
    adapter = library.adapter_named(row.adapter or "")
    if adapter is None:
        return None
    try:
        with RecordFile(session.path) as rf:
            st = rf.stat()
            if (st is None or (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
                    != (fp.dev, fp.ino, fp.size, fp.mtime_ns) or rf.size != fp.size):
                return None  # changed since the scan (or decompressed): read whole
            entries = conversation(read_from(adapter, session.path, rf, mark.offset, mark.line))
    except (OSError, ReaderError):
        return None
    return entries[max(0, len(entries) - n):], mark.total
