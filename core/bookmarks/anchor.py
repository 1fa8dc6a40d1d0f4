"""An entry's anchor, and finding a bookmark's session and entry again.

Entry ids fall in two kinds. Most formats give each record an id of its own (the record ids of
Claude Code, Copilot CLI and pi, Gemini CLI's message ids, session-logs' `id`): it stays the
same however the file grows and whatever cache is rebuilt, so it names the entry. Others (Codex
CLI, Aider, a session-logs line without an id) have only `L{line}` ids: those stay right while
the file only grows, but not when it is rewritten, so such a bookmark also keeps a short hash of
the entry's role, kind and text, and the entry is looked for by that hash (the nearest to its
old line) when the line holds something else now.
"""
from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Iterable, Sequence

from ..model import Entry, Session
from .store import Bookmark

if TYPE_CHECKING:
    from ..catalog.library import Library

#: an id made from the entry's line (`L12`, `L12.3`, `L12'`): not the record's own
_LINE_ID = re.compile(r"L\d+(?:\.\d+)*'*")
#: characters of an entry's text its hash covers (no more than the reader keeps of a long one
#: in memory, loading.OTHER_CAP, so the reader and a full read hash the same)
HASH_CHARS = 1000


def stable_id(entry_id: str | None) -> bool:
    """Whether the id is the record's own (not made from its line number)."""
    return bool(entry_id) and not _LINE_ID.fullmatch(entry_id or "")


def content_hash(entry: Entry) -> str:
    data = "\0".join((entry.role, entry.kind.value, entry.text[:HASH_CHARS]))
    return hashlib.sha256(data.encode("utf-8", "surrogatepass")).hexdigest()[:12]


def entry_key(entry_id: str | None, line: int | None, digest: str | None) -> str:
    """The part of a bookmark's key that names its entry: the id when stable, else line and hash."""
    if stable_id(entry_id):
        return entry_id or ""
    return f"L{line or 0}:{digest or ''}"


def bookmark_of(session: Session, entry: Entry | None = None, note: str = "") -> Bookmark:
    """A bookmark on the session, or on one of its entries (not yet kept: `BookmarkStore.add`)."""
    b = Bookmark(agent=session.agent, session_id=session.id, path=session.path, project=session.project,
                 title=session.title, note=note)
    if entry is None:
        return b
    from dataclasses import replace

    # (a tool call's text is its input: its tool's name says more at a glance)
    excerpt = f"{entry.tool_name}: {entry.text}" if entry.tool_name else entry.text
    return replace(b, entry_id=entry.id, line=entry.locator.line, hash=content_hash(entry), role=entry.role,
                   kind=entry.kind.value, entry_time=entry.timestamp, excerpt=excerpt)


def marks(bookmark: Bookmark, entry: Entry) -> bool:
    """Whether the bookmark is on this entry (as read now)."""
    if bookmark.entry_id != entry.id:
        return False
    return stable_id(entry.id) or content_hash(entry) == bookmark.hash


class State(str, Enum):
    FOUND = "found"  # the entry (or session) where it was
    MOVED = "moved"  # the entry found by its content under another id (its file was rewritten)
    ENTRY_GONE = "entry not found"  # the session is there, the entry no longer
    SESSION_GONE = "session not found"  # no session with that agent and id is read now
    UNREADABLE = "session unreadable"  # its file could not be read


@dataclass(frozen=True)
class Resolved:
    bookmark: Bookmark
    state: State
    session: Session | None = None
    entry_id: str | None = None  # the entry's id now (the bookmark's, unless MOVED)
    reason: str = ""  # why it could not be read (UNREADABLE)

    @property
    def found(self) -> bool:
        return self.state in (State.FOUND, State.MOVED)


def find_session(library: Library, bookmark: Bookmark) -> Session | None:
    """The bookmark's session as the library knows it now, by agent and id (wherever its file is
    now: a session moved to another root is still found)."""
    s = library.get(bookmark.session_id)
    return s if s is not None and s.agent == bookmark.agent else None


def find_entry(bookmark: Bookmark, entries: Sequence[Entry]) -> tuple[Entry | None, bool]:
    """The bookmarked entry among `entries` and whether it moved (found by its content under
    another id); (None, False) when it is not there."""
    digest = bookmark.hash
    same = next((e for e in entries if e.id == bookmark.entry_id), None)
    if same is not None and (stable_id(same.id) or content_hash(same) == digest):
        return same, False
    if digest:
        alike = [e for e in entries if content_hash(e) == digest]
        if alike:
            line = bookmark.line or 0
            return min(alike, key=lambda e: abs(e.locator.line - line)), True
    return None, False


def resolve(library: Library, bookmarks: Iterable[Bookmark]) -> list[Resolved]:
    """Each bookmark's session and entry as they are now, in the order given; each session file
    is read once (the entries of one in memory at a time)."""
    from ..read.jsonl import ReaderError

    marks_ = list(bookmarks)
    sessions = {i: find_session(library, b) for i, b in enumerate(marks_)}
    out: dict[int, Resolved] = {}
    by_session: dict[str, list[int]] = {}
    for i, b in enumerate(marks_):
        s = sessions[i]
        if s is None:
            out[i] = Resolved(b, State.SESSION_GONE)
        elif not b.on_entry:
            out[i] = Resolved(b, State.FOUND, s)
        else:
            by_session.setdefault(s.id, []).append(i)
    from ..catalog.window import read_entries

    for indices in by_session.values():
        session = sessions[indices[0]]
        assert session is not None
        try:
            # A big session's bookmarked entries alone, where each is where it was (its id there,
            # stable or of the same content); else the session whole, to look for moved ones.
            got = read_entries(library, session, {marks_[i].entry_id or "" for i in indices})
            if got is not None and all(marks(marks_[i], got[marks_[i].entry_id or ""]) for i in indices):
                entries: Sequence[Entry] = list(got.values())
            else:
                entries = library.load(session).entries
        except (ReaderError, OSError) as exc:
            reason = getattr(exc, "strerror", None) or str(exc)
            for i in indices:
                out[i] = Resolved(marks_[i], State.UNREADABLE, session, reason=reason)
            continue
        for i in indices:
            found, moved = find_entry(marks_[i], entries)
            if found is None:
                out[i] = Resolved(marks_[i], State.ENTRY_GONE, session)
            else:
                out[i] = Resolved(marks_[i], State.MOVED if moved else State.FOUND, session, found.id)
    return [out[i] for i in range(len(marks_))]
