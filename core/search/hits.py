"""What a search answers: hits, the preview of each around its first match, and the snippet
with the query's terms marked (the app highlights the same spans).

Both engines make their hits here: the index (core/search/index.py) and the scanning search
(core/search/scan.py).
"""
from __future__ import annotations

import re
from datetime import datetime, timezone
from functools import lru_cache
from typing import Any

from ..records import record
from ..model import Locator, iso
from ..text import masking_on
from .query import Query, Term
from .terms import ALNUM, stem


@record(frozen=True)
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


@record
class SearchResult:
    hits: list[Hit]
    mode: str  # "ranked", "recent", "substring"
    query: Query


def window(text: str, start: int, length: int, max_chars: int) -> str:
    """About `max_chars` of `text` around [start, start+length), on one line."""
    match = " ".join(text[start : start + length].split()) or text[start : start + length]
    room = max(0, max_chars - len(match))
    before = ""
    if room // 3:
        tail = flat_tail(text, start, 40, room // 3)
        before = tail[-(room // 3) :]
        if len(tail) > len(before) and tail[-len(before) - 1] != " ":  # (a word cut in two)
            # `eated successfully at:` shows from its next word; one long token, marked as cut
            before = before[before.index(" ") + 1 :] if " " in before else "…" + before[1:]
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


def hit_of(text: str, q: Query, max_chars: int, session: str, entry: str, agent: str, fmt: str, role: str,
            kind: str, locator: Locator, project: str | None, ts: int, rank: int, score: float | None) -> Hit:
    """A hit on an entry's searchable `text`: its preview around the first match, and the
    snippet marking the query's terms. Masked first when masking is on (mask first, cut after):
    the window the preview is cut from, not the whole text (which may be megabytes)."""
    return hits_of([(text, (session, entry, agent, fmt, role, kind, locator, project, ts, rank, score))],
                   q, max_chars)[0]


HitFields = tuple[str, str, str, str, str, str, Locator, "str | None", int, int, "float | None"]


def hits_of(found: list[tuple[str, HitFields]], q: Query, max_chars: int) -> list[Hit]:
    """`hit_of` of each (text, the hit's other fields), their windows masked together."""
    pattern = _patterns(q)
    plain = _plain_substring(q)
    texts = [text for text, _ in found]
    if masking_on():
        from ..secrets import WINDOW_MARGIN, masked_windows

        # (the preview shows at most a third of its room before the match: `window`)
        firsts = [_first(text, pattern, plain) for text in texts]
        texts = masked_windows([(text, start, start + length, WINDOW_MARGIN + max_chars,
                                 WINDOW_MARGIN + max_chars // 2) for text, (start, length) in zip(texts, firsts)])
    return [_hit(text, pattern, plain, max_chars, *fields) for text, (_, fields) in zip(texts, found)]


def _hit(text: str, pattern: re.Pattern[str] | None, plain: str | None, max_chars: int, session: str, entry: str,
         agent: str, fmt: str, role: str, kind: str, locator: Locator, project: str | None, ts: int, rank: int,
         score: float | None) -> Hit:
    start, length = _first(text, pattern, plain)
    preview = window(text, start, length, max_chars) if length else flat_head(text, 0, len(text), max_chars)[:max_chars]
    return Hit(
        session_id=session,
        entry_id=entry,
        agent=agent,
        source_plugin=fmt,
        role=role,
        kind=kind,
        timestamp=datetime.fromtimestamp(ts / 1000, tz=timezone.utc) if ts else None,
        preview=preview,
        locator=locator,
        project=project or None,
        rank=rank,
        score=round(score, 4) if score is not None else None,
        snippet=pattern.sub(_marked, preview) if pattern else preview,
    )


def _patterns(q: Query) -> re.Pattern[str] | None:
    """A regex finding the query's terms in text: words and phrases on word boundaries,
    prefixes as word starts, substrings anywhere."""
    return patterns_of(tuple(tuple(alts) for alts in q.must))


@lru_cache(maxsize=64)  # asked once or twice per hit shown
def patterns_of(must: tuple[tuple[Term, ...], ...]) -> re.Pattern[str] | None:
    # Each word start is checked after its first run matched (`run(?<![^\W_]run)`), not before
    # every character (`(?<![^\W_])run`): the same matches, ~5x faster on kilobytes of text.
    parts: list[tuple[int, str]] = []  # (length of the plain form, which orders them), pattern
    for alts in must:
        for t in alts:
            runs = ALNUM.findall(t.text.lower())
            if t.kind == "substring":
                pat = re.escape(t.text)
                parts.append((len(pat), pat))
            elif t.kind == "prefix" and runs:
                head = re.escape(runs[0])
                parts.append((len(r"(?<![^\W_])" + head + r"[^\W_]*"),
                              head + r"(?<![^\W_]" + head + r")[^\W_]*"))
            elif t.kind == "word" and len(runs) == 1 and len(stem(runs[0])) >= 3:
                # the word or its inflections (shown by their common start: "balanc" + ...)
                root = re.escape(stem(runs[0]) if runs[0].startswith(stem(runs[0])) else runs[0])
                parts.append((len(r"(?<![^\W_])" + root + r"[^\W_]*"),
                              root + r"(?<![^\W_]" + root + r")[^\W_]*"))
            elif runs:
                head = re.escape(runs[0])
                rest = "".join(r"[\W_]+" + re.escape(r) for r in runs[1:])
                parts.append((len(r"(?<![^\W_])" + head + rest + r"(?![^\W_])"),
                              head + r"(?<![^\W_]" + head + ")" + rest + r"(?![^\W_])"))
    if not parts:
        return None
    parts.sort(key=lambda p: p[0], reverse=True)
    return re.compile("|".join(p for _, p in parts), re.IGNORECASE)


def _plain_substring(q: Query) -> str | None:
    """The query's text, lower-cased, when the query is one ASCII substring and nothing else (as
    every MCP and `search --substring` query is)."""
    if len(q.must) == 1 and len(q.must[0]) == 1 and q.must[0][0].kind == "substring" and q.must[0][0].text.isascii():
        return q.must[0][0].text.lower()
    return None


def _first(text: str, pattern: re.Pattern[str] | None, plain: str | None = None) -> tuple[int, int]:
    if plain is not None and text.isascii():
        # In ASCII text, IGNORECASE and lower-casing agree: str.find is ~5x the regex's speed.
        at = text.lower().find(plain)
        return (at, len(plain)) if at >= 0 else (0, 0)
    m = pattern.search(text) if pattern else None
    return (m.start(), m.end() - m.start()) if m else (0, 0)


def _marked(m: re.Match[str]) -> str:
    """An occurrence of the query's terms in a preview, marked «» for humans."""
    return f"«{m.group(0)}»"


def highlight_spans(preview: str, q: Query) -> list[tuple[int, int]]:
    """Character spans of the query's terms in a preview (for the app's highlighting)."""
    pattern = _patterns(q)
    return [(m.start(), m.end()) for m in pattern.finditer(preview)] if pattern else []
