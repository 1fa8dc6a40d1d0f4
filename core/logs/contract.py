"""The session-logs shapes (see core/logs/__init__.py for why they live here).

    list_sessions  limit 1-500 (50)                      {sessions: [{session_id, agent_id, source_plugin,
                                                           entry_count, first_timestamp, last_timestamp}]}
    read_session   session_id, limit 1-500 (50),         {header, total_entries, returned, truncated, entries}
                   max_chars 20-4000 (200)
    search         query (a case-insensitive substring),  {hits: [{session_id, timestamp, role, source_plugin,
                   limit 1-500 (50), max_chars             preview}]}
    recent         session_id (default: the caller's      {session_id, count, entries}
                   current session), limit 1-500 (10),
                   max_chars

Bad input is a `LogsError` whose message says what is wrong (an unknown id, a value out of range).
Entries are `Entry.to_dict`'s keys; their `content` (and a header's title) is `clean`ed whole,
then cut to `max_chars`.
"""
from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from ..records import record
from ..config import AGENT_SESSION_VARS
from ..model import Entry, Session, truncate

if TYPE_CHECKING:
    from ..catalog.library import Library
    from ..catalog.window import Window

Clean = Callable[[str], str]


def _as_is(text: str) -> str:
    return text


class LogsError(ValueError):
    """Bad input to a session-logs call; the message says what is wrong, in one line."""


@record(frozen=True)
class Bounds:
    lo: int
    hi: int
    default: int

    def check(self, name: str, value: Any) -> int:
        """`value` (None: the default) as an int within the bounds, else a LogsError."""
        if value is None:
            return self.default
        if isinstance(value, bool) or not isinstance(value, int):
            if isinstance(value, float) and value.is_integer():
                value = int(value)
            else:
                raise LogsError(f"{name} must be an integer between {self.lo} and {self.hi}, got {value!r}")
        if not self.lo <= value <= self.hi:
            raise LogsError(f"{name} must be between {self.lo} and {self.hi}, got {value}")
        return value


LIMITS: Mapping[str, Bounds] = {
    "list_sessions": Bounds(1, 500, 50),
    "read_session": Bounds(1, 500, 50),
    "search": Bounds(1, 500, 50),
    "recent": Bounds(1, 500, 10),
}
MAX_CHARS = Bounds(20, 4000, 200)

#: the environment variables an agent puts its session id in (as `context` reads them)
ENV_SESSION_VARS = AGENT_SESSION_VARS


# -- rows ------------------------------------------------------------------------------------------
def session_row(s: Session) -> dict[str, Any]:
    """A session as `list_sessions` gives it."""
    d = s.to_dict()
    return {k: d[k] for k in ("session_id", "agent_id", "source_plugin", "entry_count",
                              "first_timestamp", "last_timestamp")}


def entry_row(e: Entry, max_chars: int, clean: Clean = _as_is) -> dict[str, Any]:
    """An entry as `read_session` and `recent` give it: its content cleaned whole, then cut."""
    d = e.to_dict()
    d["content"] = truncate(clean(e.text), max_chars)
    return d


def header(s: Session, max_chars: int | None = None, clean: Clean = _as_is) -> dict[str, Any]:
    """A session's header (`Session.to_dict`), its title cleaned and, given `max_chars`, cut."""
    d = s.to_dict()
    if s.title:
        title = clean(s.title)
        d["title"] = title if max_chars is None else truncate(title, max_chars)
    return d


def hit_row(hit: Any, max_chars: int, clean: Clean = _as_is) -> dict[str, Any]:
    """A search hit as `search` gives it (the preview cleaned, then cut to `max_chars`)."""
    d = hit.to_dict()
    return {"session_id": d["session_id"], "timestamp": d["timestamp"], "role": d["role"],
            "source_plugin": d["source_plugin"], "preview": truncate(clean(d["preview"]), max_chars)}


# -- the calls -------------------------------------------------------------------------------------
def top_level(lib: Library, *, agent: str | None = None, project: str | None = None,
              orphans: bool = True) -> tuple[Sequence[Session], set[str]]:
    """The sessions a listing starts from, most recent first: the main sessions, and (with
    `orphans`) the children whose parent is not known (a `codex exec` run has none, a subagent
    file may have outlived its parent's); plus the ids of those orphans, listed or not.

    Why: nesting children under their parents alone would never show an orphan at all. (After
    a lazy scan, a session of the sequence is decoded when it is taken: `Library.top_level`.)"""
    return lib.top_level(agent=agent, project=project, orphans=orphans)


def list_sessions(lib: Library, limit: Any = None) -> dict[str, Any]:
    """The most recent sessions (main sessions and orphans, as `sessions` lists them)."""
    n = LIMITS["list_sessions"].check("limit", limit)
    top, _ = top_level(lib)
    return {"sessions": [session_row(s) for s in top[:n]]}


def find_session(lib: Library, session_id: Any) -> Session:
    """The session of an id or unique prefix (or a transcript's path), else a LogsError."""
    from ..catalog.library import LookupFailed

    if not isinstance(session_id, str) or not session_id.strip():
        raise LogsError(f"session_id must be a session id (or a unique prefix of one), got {session_id!r}")
    try:
        return lib.find(session_id.strip())
    except LookupFailed as exc:
        raise LogsError(str(exc)) from None


def window_of(lib: Library, session: Session, limit: int, **how: Any) -> Window:
    """`read_window` (core/catalog/window.py: a big file read without holding every entry's
    text), else a LogsError (the CLI's `read` and `recent` too)."""
    from ..catalog.window import read_window
    from ..read.jsonl import ReaderError

    try:
        return read_window(lib, session, limit, **how)
    except (ReaderError, OSError) as exc:
        raise LogsError(f"cannot read session {session.id}: {exc}") from None


def read_shape(session: Session, total: int, chosen: list[Entry], max_chars: int,
               clean: Clean = _as_is, *, cut_title: bool = True) -> dict[str, Any]:
    """`read_session`'s answer for `chosen`, a slice of the session's `total` entries."""
    return {
        "header": header(session, max_chars if cut_title else None, clean),
        "total_entries": total,
        "returned": len(chosen),
        "truncated": len(chosen) < total,
        "entries": [entry_row(e, max_chars, clean) for e in chosen],
    }


def read_session(lib: Library, session_id: Any, limit: Any = None, max_chars: Any = None,
                 clean: Clean = _as_is) -> dict[str, Any]:
    n = LIMITS["read_session"].check("limit", limit)
    cut = MAX_CHARS.check("max_chars", max_chars)
    session = find_session(lib, session_id)
    # (a big file read thin but for these entries: core/catalog/window.py)
    window = window_of(lib, session, n)
    return read_shape(session, window.total, window.entries, cut, clean)


def recent_shape(session: Session, chosen: list[Entry], max_chars: int, clean: Clean = _as_is) -> dict[str, Any]:
    """`recent`'s answer: the last entries of the session."""
    return {"session_id": session.id, "count": len(chosen),
            "entries": [entry_row(e, max_chars, clean) for e in chosen]}


def current_session(lib: Library, cwd: str | None = None, env: Mapping[str, str] | None = None) -> Session:
    """The calling agent's current session: the one whose id the agent put in its environment
    (`CLAUDE_CODE_SESSION_ID`, `CLAUDE_SESSION_ID`, `CODEX_SESSION_ID`), else the most recently written main session (or
    orphan) of the working directory's project (its git repository, as `context` scopes it:
    a session recorded in it or in a folder above it), else the most recently written one of all. A LogsError when there is none."""
    from ..brief.retrieval import inside, project_root

    env = os.environ if env is None else env
    for var in ENV_SESSION_VARS:
        ref = env.get(var)
        if ref:
            try:
                return find_session(lib, ref)
            except LogsError:
                continue  # (a session not under the roots read: fall back to the project's)
    top, _ = top_level(lib)
    if not top:
        raise LogsError("no sessions found under the roots read")
    root, _ = project_root(cwd)
    projects = top.projects() if hasattr(top, "projects") else [s.project for s in top]
    here = next((i for i, p in enumerate(projects) if p and (inside(p, root) or inside(root, p))), 0)
    return top[here]


def recent(lib: Library, session_id: Any = None, limit: Any = None, max_chars: Any = None,
           clean: Clean = _as_is, *, cwd: str | None = None, env: Mapping[str, str] | None = None) -> dict[str, Any]:
    n = LIMITS["recent"].check("limit", limit)
    cut = MAX_CHARS.check("max_chars", max_chars)
    from ..catalog.tails import last_entries

    session = current_session(lib, cwd, env) if session_id is None else find_session(lib, session_id)
    got = last_entries(lib, session, n)  # from the file's end, where a whole read checked that works
    if got is not None:
        return recent_shape(session, got[0], cut, clean)
    return recent_shape(session, window_of(lib, session, n, last=True).entries, cut, clean)


def substring_query(text: Any) -> Any:
    """A query for `text` as one case-insensitive substring (no query language)."""
    from ..search.query import Query, Term

    if not isinstance(text, str) or not text.strip():
        raise LogsError(f"query must be a non-empty string, got {text!r}")
    return Query(must=[[Term(text.strip(), "substring")]], source=text.strip())


def search(index: Any, query: Any, limit: Any = None, max_chars: Any = None, clean: Clean = _as_is) -> dict[str, Any]:
    """Entries holding `query` as a case-insensitive substring, best first."""
    n = LIMITS["search"].check("limit", limit)
    cut = MAX_CHARS.check("max_chars", max_chars)
    q = substring_query(query)
    result = index.search(q, limit=n, max_chars=cut)
    return {"hits": [hit_row(h, cut, clean) for h in result.hits]}
