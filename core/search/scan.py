"""Search hits, snippets, and the streaming substring scan behind `sessionscope search`.

Why a scan at all: it is the ground truth the index (core/search/index.py) is held against, and it needs
no index to exist. It reads sessions most recent first and stops as soon as no older session can
contribute to the top `limit` hits.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Callable

from ..catalog.library import Library, recency
from ..model import Entry, Locator, Session, iso
from ..secrets import mask_if_on
from .terms import SEARCHABLE, searchable_text


@dataclass(frozen=True)
class Hit:
    session_id: str
    entry_id: str
    agent: str
    source_plugin: str
    role: str
    kind: str
    timestamp: datetime | None
    preview: str
    locator: Locator
    project: str | None = None
    rank: int = 0
    score: float | None = None
    snippet: str | None = None  # with «» around matched terms, where the engine knows them

    def to_dict(self) -> dict[str, Any]:
        d = {
            "session_id": self.session_id,
            "entry_id": self.entry_id,
            "timestamp": iso(self.timestamp),
            "role": self.role,
            "kind": self.kind,
            "agent_id": self.agent,
            "source_plugin": self.source_plugin,
            "project": self.project,
            "preview": self.preview,
            "locator": {"path": self.locator.path, "offset": self.locator.offset, "line": self.locator.line},
        }
        if self.rank:
            d["rank"] = self.rank
        if self.score is not None:
            d["score"] = self.score
        if self.snippet is not None:
            d["snippet"] = self.snippet
        return d


def window(text: str, start: int, length: int, max_chars: int) -> str:
    """About `max_chars` of `text` around [start, start+length), on one line."""
    match = " ".join(text[start : start + length].split()) or text[start : start + length]
    room = max(0, max_chars - len(match))
    before = flat_tail(text, start, 40, room // 3)[-(room // 3) :] if room // 3 else ""
    need = max(0, room - len(before) - 2)
    after = flat_head(text, start + length, 80, need)[:need]
    out = (before + (" " if before and text[start - 1 : start].isspace() else "") + match
           + (" " if after and text[start + length : start + length + 1].isspace() else "") + after)
    if len(out) > max_chars:
        out = out[: max(1, max_chars - 1)] + "…"
    return out


def flat_head(text: str, pos: int, max_words: int, chars: int) -> str:
    """Of " ".join(text[pos:].split()[:max_words]), at least the first `chars` characters (all of
    it when shorter), splitting only as much of `text` as that needs (texts run to megabytes)."""
    span = 2 * chars + 64
    n = len(text)
    while True:
        end = pos + span
        if end >= n:
            return " ".join(text[pos:].split()[:max_words])
        words = text[pos:end].split()
        if words and not text[end - 1].isspace() and not text[end].isspace():
            words.pop()  # cut mid-word: the last one is not whole
        if len(words) >= max_words:
            return " ".join(words[:max_words])
        flat = " ".join(words)
        if len(flat) >= chars:
            return flat
        span *= 4


def flat_tail(text: str, end: int, max_words: int, chars: int) -> str:
    """Of " ".join(text[:end].split()[-max_words:]), at least the last `chars` characters (all of
    it when shorter); the mirror of `flat_head`."""
    span = 2 * chars + 64
    while True:
        start = end - span
        if start <= 0:
            return " ".join(text[:end].split()[-max_words:])
        words = text[start:end].split()
        if words and not text[start].isspace() and not text[start - 1].isspace():
            words.pop(0)  # cut mid-word: the first one is not whole
        if len(words) >= max_words:
            return " ".join(words[-max_words:])
        flat = " ".join(words)
        if len(flat) >= chars:
            return flat
        span *= 4


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
        text = mask_if_on(searchable_text(e))
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
