"""A window of a session's entries (`read`'s), from a big file without holding every entry's text.

Why: `sessionscope read ID --limit 20` and the session-logs `read_session` show a few entries of a
session, but the entries a format's parser gives depend on the whole file (Claude Code's active
branch is found from the last record; a split reply is merged from its parts): a window read
alone is not the whole read's. Reading the file whole held every entry's text, ~2x the file in
memory (a 100 MB transcript: 200 MB; a 1 GB one would need 2 GB).

First, a session's first entries come from its file's first lines alone where the catalog's
scan checked that those give them (core/catalog/tails.py `first_entries`: a 100 MB transcript's
first 20 in 130 ms, 18 MB RSS). Else a big file is read thin (`Adapter.load_thin`: every entry
cut to what settles the session, ids, kinds, branches, merges), except the entries the window
will show, kept whole. Which ones those are is known only once the file is read (the branch
that is shown is found at the end), so:

1. the first entries fed (from the one asked for, given an entry id) are kept whole, `MARGIN`
   more than asked for, with the rest of their lines and of their replies;
2. the window is cut from the entries the thin read gives, as from a whole read; if every entry
   in it (and every part merged into one) came from lines whose entries were all kept whole, it
   is the whole read's window;
3. else (entries of other branches or subagents before it, more than `MARGIN`) the file is read
   thin again keeping exactly the window's lines whole, and checked again;
4. else, or for a format whose parser thins nothing, or a small file, the file is read whole as
   before. Every answer is the whole read's; only the memory differs.

Any whole reading of a file of one session that its catalog row describes (this thin one, or a
plain one of a file over `tails.TAIL_MIN_BYTES`) also looks for both ends' windows and stores
them, as the scan does: a file grown since its last whole read, which the scan reads on without
finding them, is then read once, not at each call.

The last entries (`recent`'s, where the scan's checked window at the file's end does not serve,
as when the file grew since) are read so too, step 1 keeping whole the entries of the file's
last lines (4 for each entry asked for and of the margin, from the line count the catalog has).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Callable, NamedTuple, TypeVar

if TYPE_CHECKING:
    from ..model import Entry, Session
    from ..read.adapters import Adapter, LoadedSession
    from ..read.jsonl import RecordFile
    from .library import Library

T = TypeVar("T")

#: files smaller than this are read whole: faster (a thin reading takes 5-20% more CPU time,
#: bench_reader), and the memory a whole read holds, ~2x the file, is small
WINDOW_MIN_BYTES = 8 << 20
#: entries kept whole beyond those asked for, so that a few entries of other branches before
#: the window do not cost a second read
MARGIN = 64


class Window(NamedTuple):
    """Entries `start` to `start + len(entries)` of the session's `total` (its conversation, or
    every entry with `all_branches`); `start` is -1 when the entry asked for is not there."""

    entries: list[Entry]
    total: int
    start: int
    #: how the file was read: "head" (its first lines alone, as the scan checked they can be),
    #: "whole" (small file, or no window could be checked), "thin" (one thin reading), "thin2"
    #: (a second, for a window beyond the first reading's margin)
    how: str = "whole"


class _Keep:
    """Which entries a thin reading keeps whole (`Adapter.load_thin(keep=)`), and the lines of
    those it kept and of those it cut: either the first `budget` entries fed (from the one of id
    `entry_id`, given one) with the other entries of their lines and of their replies (the same
    message id), or those from line `from_line` on (with the same), or those of the ids `ids`
    (with the same), or, given `lines`, the entries of those lines."""

    def __init__(self, budget: int = 0, entry_id: str | None = None, lines: set[int] | None = None,
                 from_line: int | None = None, ids: set[str] | None = None) -> None:
        self.budget = budget
        self.entry_id = entry_id
        self.started = entry_id is None
        self.lines = lines
        self.from_line = from_line
        self.ids = ids
        self.whole: set[int] = set()
        self.thinned: set[int] = set()
        self.mids: set[str] = set()
        self.calls = 0

    def __call__(self, e: Entry) -> bool:
        self.calls += 1
        line = e.locator.line
        if self.lines is not None:
            keep = line in self.lines
        else:
            if not self.started and e.id == self.entry_id:
                self.started = True
            keep = line in self.whole or (e.message_id is not None and e.message_id in self.mids)
            if self.ids is not None:
                keep = keep or e.id in self.ids
            elif self.from_line is not None:
                keep = keep or line >= self.from_line
            elif not keep and self.started and self.budget > 0:
                self.budget -= 1
                keep = True
            if keep and e.message_id:
                self.mids.add(e.message_id)
        (self.whole if keep else self.thinned).add(line)
        return keep

    def all_whole(self, chosen: list[Entry], loaded: LoadedSession) -> bool:
        """Whether every entry in `chosen` is as a whole read gives it."""
        if self.calls == 0:
            return True  # a parser that thins nothing (Aider's own): every entry is whole
        from .tails import entry_lines

        return all(line in self.whole and line not in self.thinned
                   for e in chosen for line in entry_lines(e, loaded))


def read_window(lib: Library, session: Session, limit: int, *, start: int = 0, entry_id: str | None = None,
                all_branches: bool = False, last: bool = False, threshold: int | None = None) -> Window:
    """Up to `limit` entries of the session from index `start`, or from the entry `entry_id`,
    or its last `limit` entries (`last`: `recent`'s, when no checked window gives them); of its
    conversation (`conversation`: the active branch), or of every entry with `all_branches`.
    A plain file of lines of at least `threshold` bytes (`WINDOW_MIN_BYTES`) is
    read thin but for the window (see the module's doc); anything else whole, as `Library.load`
    reads it (one over `tails.TAIL_MIN_BYTES` noting its ends' windows). Raises what
    `Library.load` raises."""
    from ..read.jsonl import compressed

    if start == 0 and entry_id is None and not all_branches and not last:
        # (the session's first entries, from its file's first lines where the scan checked that
        # they give them: core/catalog/tails.py)
        from .tails import first_entries

        first = first_entries(lib, session, limit)
        if first is not None:
            return Window(first[0], first[1], 0, "head")
    from .tails import TAIL_MIN_BYTES

    size = session.size or 0
    big = size >= (WINDOW_MIN_BYTES if threshold is None else threshold)
    plain = size >= min(TAIL_MIN_BYTES, WINDOW_MIN_BYTES if threshold is None else threshold)
    adapter = lib.adapter_named(session.source_format) if plain and not compressed(session.path) else None
    if adapter is not None and adapter.grows(session.path):
        if big:
            got = _thin_window(lib, adapter, session, limit, -1 if last else start, entry_id, all_branches)
            if got is not None:
                return got
        else:  # read whole, as below, and the ends' windows found from that reading
            ls = _read_noting_ends(lib, adapter, session)
            if ls is not None:
                return _cut(ls, limit, -1 if last else start, entry_id, all_branches)[0]
    loaded = lib.load(session)
    return _cut(loaded, limit, -1 if last else start, entry_id, all_branches)[0]


def read_entries(lib: Library, session: Session, ids: set[str], *,
                 threshold: int | None = None) -> dict[str, Entry] | None:
    """The first entry of each id of `ids` among every entry of the session (all branches), as a
    whole read gives it, from a big file of lines read thin but for them and checked as
    `read_window`'s windows are (a second reading keeping exactly their lines where the first
    cannot tell); None where it cannot be told so (a file under `threshold` (`WINDOW_MIN_BYTES`),
    compressed or of a format read whole, an id not there, an entry not checked): the caller reads
    the session whole. Why: resolving a bookmark on an entry (core/bookmarks/anchor.py) loaded
    its session whole, ~2x the file in memory."""
    from ..read.jsonl import compressed

    if not ids or (session.size or 0) < (WINDOW_MIN_BYTES if threshold is None else threshold):
        return None
    adapter = None if compressed(session.path) else lib.adapter_named(session.source_format)
    if adapter is None or not adapter.grows(session.path):
        return None
    def chosen(ls: LoadedSession, how: str) -> tuple[dict[str, Entry], list[Entry]] | None:
        found: dict[str, Entry] = {}
        for e in ls.entries:
            if e.id in ids:
                found.setdefault(e.id, e)
        return (found, list(found.values())) if len(found) == len(ids) else None

    return _checked(lib, adapter, session, _Keep(ids=ids), chosen)


def _cut(loaded: LoadedSession, limit: int, start: int, entry_id: str | None,
         all_branches: bool, how: str = "whole") -> tuple[Window, list[Entry]]:
    """The window of `loaded`'s entries: from `start` (-1: the last `limit`), or from the entry
    `entry_id`."""
    from .library import conversation

    entries = loaded.entries if all_branches else conversation(loaded.entries)
    if start < 0:
        start = max(0, len(entries) - max(0, limit))
    elif entry_id is not None:
        start = next((i for i, e in enumerate(entries) if e.id == entry_id), -1)
        if start < 0:
            return Window([], len(entries), -1, how), []
    start = max(0, start)
    chosen = entries[start : start + max(0, limit)]
    return Window(chosen, len(entries), start, how), chosen


def _pick(loaded: list[LoadedSession], session_id: str) -> LoadedSession | None:
    """The session of `session_id` among those of a file, as `Library.load` picks it."""
    for ls in loaded:
        if ls.session.id == session_id:
            return ls
    return loaded[0] if len(loaded) == 1 else None


def _read_noting_ends(lib: Library, adapter: Adapter, session: Session,
                      keep: _Keep | None = None) -> LoadedSession | None:
    """The session read from its whole file, whole, or thin but for what `keep` keeps (picked as
    `Library.load` picks it), its ends' windows found from that same reading and stored
    (`_remember_ends`)."""
    from ..read.jsonl import RecordFile

    with RecordFile(session.path) as rf:  # (the same bytes read for the window and for the ends)
        loaded = adapter.load(session.path, rf) if keep is None else adapter.load_thin(session.path, rf, keep=keep)
        _remember_ends(lib, adapter, session, rf, loaded, thin=keep is not None)
    return _pick(loaded, session.id)


def _remember_ends(lib: Library, adapter: Adapter, session: Session, rf: RecordFile,
                   loaded: list[LoadedSession], thin: bool) -> None:
    """Where the session's first and last entries can be read from alone, found from this
    reading of its whole file (`rf`; read thin, with `thin`) as the scan finds them
    (core/catalog/tails.py), and stored: a file grown since its last whole read (read on by the
    scan, which finds neither) is then read once, not at each `read` or `recent` while it stays
    as it is. Only for a file of one session whose catalog row is of the file as read; a failure
    to store is let go (the next reading looks again)."""
    from . import tails
    from .store import HeadMark, TailMark

    path = session.path
    row = tails.single_row(lib, session)
    if len(loaded) != 1 or row is None or rf.size < tails.TAIL_MIN_BYTES:
        return
    fp = row.fingerprint
    end, account = rf.complete_end, loaded[0].account
    if not tails.describes(fp, rf) or end + account.pending_bytes != rf.size:
        return  # (changed since the scan: its row is not of these bytes)
    catalog = lib.catalog
    try:
        had_tail, had_head = catalog.tail(path), catalog.head(path)
        key = tails.mark_key(fp)
        # (none found is stored too, as a window of no entries (`verified` 0, which serves no
        # call): not looked for again at each call while the file stays as it is)
        want_tail = had_tail is None or had_tail.key != key
        want_head = had_head is None or had_head.key != key
        if not (want_tail or want_head):
            return
        tail, head = tails.find_ends(adapter, path, rf, loaded[0], fp, end, account.lines, thin,
                                     tail=want_tail, head=want_head)
        catalog.put_marks(path, tail or (TailMark(key, -1, 0, 0, 0) if want_tail else None),
                          head or (HeadMark(key, -1, 0, 0, 0) if want_head else None))
    except Exception:  # noqa: BLE001 - a refinement: a cache that cannot be written reads thin again
        return


def _thin_window(lib: Library, adapter: Adapter, session: Session, limit: int, start: int,
                 entry_id: str | None, all_branches: bool) -> Window | None:
    """The window from thin readings, checked whole (steps 1-3 of the module's doc; the last
    entries, `start` -1: those of the file's last lines, as many lines as 4 entries each, the
    margin included, from the line count the catalog has); None when it could not be checked
    (the caller reads whole)."""
    if start < 0:
        if session.line_count <= 0:
            return None  # (no line count: where the last entries begin is not known)
        keep = _Keep(from_line=max(1, session.line_count - 4 * (max(0, limit) + MARGIN) + 1))
    else:
        keep = _Keep((0 if entry_id is not None else start) + max(0, limit) + MARGIN, entry_id)
    return _checked(lib, adapter, session, keep,
                    lambda ls, how: _cut(ls, limit, start, entry_id, all_branches, how))


def _checked(lib: Library, adapter: Adapter, session: Session, keep: _Keep,
             choose: Callable[[LoadedSession, str], tuple[T, list[Entry]] | None]) -> T | None:
    """What `choose(ls, how)` answers of a thin reading keeping what `keep` keeps (with the
    entries the answer shows), when those entries are as a whole read gives them (or it shows
    none); else of a second reading keeping exactly their lines, checked again (`how`: "thin",
    "thin2"); None when neither is, or `choose` gives none (the caller reads whole)."""
    from .tails import entry_lines

    ls = _read_noting_ends(lib, adapter, session, keep)
    for how in ("thin", "thin2"):
        got = choose(ls, how) if ls is not None else None
        if got is None:
            return None
        answer, shown = got
        if keep.all_whole(shown, ls):
            return answer
        if how == "thin2":
            return None
        lines = {line for e in shown for line in entry_lines(e, ls)}
        del ls, got, answer, shown  # (the first reading's entries: not held through the second)
        keep = _Keep(lines=lines)
        ls = _pick(adapter.load_thin(session.path, keep=keep), session.id)
    return None
