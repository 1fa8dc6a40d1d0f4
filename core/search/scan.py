"""The streaming substring scan: the query answered by reading the sessions, without an index.

Why a scan at all: it is the ground truth the index (core/search/index.py) is held against, and it needs
no index to exist. It reads sessions most recent first and stops as soon as no older session can
contribute to the top `limit` hits.
"""
from __future__ import annotations

from typing import Callable

from ..catalog.library import Library, recency
from ..model import Entry, Session
from ..text import masking_on
from .hits import Hit, window
from .terms import SEARCHABLE, searchable_text


def scan_search(
    library: Library,
    query: str,
    *,
    limit: int = 20,
    max_chars: int = 200,
    sessions: list[Session] | None = None,
) -> list[Hit]:
    """Entries containing `query` case-insensitively, most recent first."""
    needle = query.lower()
    if not needle:
        return []

    def keep(session: Session, e: Entry) -> Hit | None:
        if e.kind not in SEARCHABLE:
            return None
        text = searchable_text(e)
        pos = text.lower().find(needle)
        if pos >= 0 and masking_on():  # (mask first, cut after: the window the preview is cut from)
            from ..secrets import WINDOW_MARGIN, masked_window

            text = masked_window(text, pos, pos + len(query), WINDOW_MARGIN + max_chars)
            pos = text.lower().find(needle)
        return None if pos < 0 else _hit(session, e, window(text, pos, len(query), max_chars))

    return scan_entries(library, keep, limit=limit, sessions=sessions)


def scan_entries(
    library: Library,
    keep: Callable[[Session, Entry], Hit | None],
    *,
    limit: int = 20,
    sessions: list[Session] | None = None,
) -> list[Hit]:
    """The hits `keep` makes of the entries, most recent first: sessions are read newest first,
    and the scan stops as soon as no older session can contribute to the top `limit` hits."""
    if limit <= 0:
        return []
    pool = sessions if sessions is not None else library.all_sessions()
    pool = sorted(pool, key=recency, reverse=True)
    hits: list[Hit] = []
    for session, loaded in library.iter_loaded(pool):
        if len(hits) >= limit and hits[-1].timestamp and recency(session) < hits[-1].timestamp:
            break  # every entry of this and older sessions is older than the current last hit
        for e in loaded.entries:
            hit = keep(session, e)
            if hit is not None:
                hits.append(hit)
        hits.sort(key=lambda h: h.timestamp.timestamp() if h.timestamp else 0.0, reverse=True)
        del hits[limit:]
    return hits


def _hit(session: Session, e: Entry, preview: str) -> Hit:
    return Hit(
        session_id=session.id,
        entry_id=e.id,
        agent=session.agent,
        source_plugin=session.source_format,
        role=e.role,
        kind=e.kind.value,
        timestamp=e.timestamp,
        preview=preview,
        locator=e.locator,
        project=session.project,
    )
