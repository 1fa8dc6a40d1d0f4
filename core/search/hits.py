"""What a search answers: hits, the preview of each around its first match, and the snippet
with the query's terms marked (the app highlights the same spans).

Both engines make their hits here: the index (core/search/index.py) and the scanning search
(core/search/scan.py).
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..model import Locator, iso


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
