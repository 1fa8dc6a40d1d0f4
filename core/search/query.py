"""The search query language, parsed into a small AST (no engine types here).

    words              all must match (AND)          retry  flaky
    "a phrase"         the words in this order       "connection refused"
    prefix*            words starting with prefix    migrat*
    a OR b             either                         postgres OR sqlite
    -word, -"phrase"   must not match                 -test
    name:value         filters: agent: project: role: kind: tool: session: branch:
                       since: until: (ISO date/time, or relative: 12h 7d 2w 1y)

A term that is not a plain word (a path, `foo.bar`, `snake_case`, `camelCase`, anything with
punctuation) is a *substring* term: it matches entries whose text contains it, case-insensitively,
whatever the word boundaries; the index confirms every candidate against the stored text.
Errors are `QueryError` with the 1-based column where the problem starts.
"""
from __future__ import annotations

import re
from dataclasses import field
from datetime import datetime, timedelta, timezone

from ..records import record
from ..model import EntryKind, Role

FILTERS = ("agent", "project", "role", "kind", "tool", "session", "branch", "since", "until")
#: the filters with a closed set of values: any other value could never match, so it is refused
_VALUES = {"role": tuple(r.value for r in Role), "kind": tuple(k.value for k in EntryKind)}
_RELATIVE = re.compile(r"^(\d+)\s*(h|d|w|y)$")
_WORD = re.compile(r"^\w+$")
_CAMEL = re.compile(r"[a-z][A-Z]")
_SURROGATE = re.compile("[\ud800-\udfff]")


class QueryError(ValueError):
    def __init__(self, message: str, column: int) -> None:
        super().__init__(f"{message} (at column {column})")
        self.column = column
        self.reason = message


@record(frozen=True)
class Term:
    """A word, prefix, phrase or substring to look for in the text."""

    text: str
    kind: str  # "word" | "prefix" | "phrase" | "substring"

    def words(self) -> list[str]:
        return re.findall(r"\w+", self.text.lower())


@record
class Query:
    """Clauses are ANDed; each clause is a list of alternatives (ORed)."""

    must: list[list[Term]] = field(default_factory=list)
    must_not: list[Term] = field(default_factory=list)
    filters: dict[str, list[str]] = field(default_factory=dict)
    since: datetime | None = None
    until: datetime | None = None
    source: str = ""

    @property
    def has_text(self) -> bool:
        return bool(self.must)

    def substrings(self) -> list[Term]:
        return [t for alts in self.must for t in alts if t.kind == "substring"]


def classify(token: str) -> str:
    if token.endswith("*") and len(token) > 1 and _WORD.match(token[:-1]):
        return "prefix"
    if _WORD.match(token) and not _CAMEL.search(token) and "_" not in token:
        return "word"
    return "substring"


def _quoted_kind(text: str) -> str:
    """A quoted plain word is a word; plain words with spaces a phrase; anything else a substring."""
    parts = text.split()
    if all(classify(p) == "word" for p in parts):
        return "word" if len(parts) == 1 else "phrase"
    return "substring"


def parse_time(value: str, column: int, now: datetime | None = None, *, end: bool = False) -> datetime:
    now = now or datetime.now(timezone.utc)
    m = _RELATIVE.match(value.strip().lower())
    if m:
        try:
            n, unit = int(m.group(1)), m.group(2)
            delta = {"h": timedelta(hours=n), "d": timedelta(days=n), "w": timedelta(weeks=n),
                     "y": timedelta(days=365 * n)}[unit]
            return _in_range(now - delta)
        except (OverflowError, ValueError):  # past year 1, or more digits than int() takes
            raise QueryError(f"{_shown(value)} reaches back before the year 1", column) from None
    try:
        ts = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise QueryError(
            f"cannot read {value!r} as a date: use an ISO date like 2026-11-01 or a relative age like 7d, 2w",
            column,
        ) from None
    if ts.tzinfo is None:
        ts = ts.replace(tzinfo=timezone.utc)
    try:
        if end and len(value.strip()) == 10:  # until:2026-11-01 includes that whole day
            ts += timedelta(days=1)
        return _in_range(ts)
    except (OverflowError, ValueError):
        raise QueryError(f"{_shown(value)} is outside the dates that can be compared (years 1 to 9999)",
                         column) from None


def _shown(value: str) -> str:
    return repr(value if len(value) <= 40 else value[:40] + "…")


def _in_range(ts: datetime) -> datetime:
    """`ts` if it can be turned into UTC and a POSIX time (the index compares those); raises
    OverflowError or ValueError otherwise."""
    ts.astimezone(timezone.utc).timestamp()
    return ts


def _undecodable(source: str) -> int | None:
    """The 0-based position of the first lone surrogate: a byte that is not UTF-8, as Python
    hands it over from the command line (surrogateescape); None when the text is clean."""
    m = _SURROGATE.search(source)
    return m.start() if m else None


def parse(source: str, now: datetime | None = None) -> Query:
    """The query in `source`; QueryError (and nothing else) when it cannot be one."""
    if not isinstance(source, str):
        raise QueryError(f"a query is text, not {type(source).__name__}", 1)
    bad = _undecodable(source)
    if bad is not None:
        raise QueryError("the query is not valid UTF-8 text (a byte that is no character)", bad + 1)
    q = Query(source=source)
    i, n = 0, len(source)
    pending_or = False
    while i < n:
        ch = source[i]
        if ch.isspace():
            i += 1
            continue
        col = i + 1
        negate = False
        if ch == "-":
            negate = True
            i += 1
            if i >= n or source[i].isspace():
                raise QueryError("'-' must be followed by a word or phrase to exclude", col)
        # OR
        if not negate and source.startswith("OR", i) and (i + 2 == n or source[i + 2].isspace()):
            if not q.must or pending_or:
                raise QueryError("OR needs a term on its left", col)
            pending_or = True
            i += 2
            continue
        if source[i] == '"':
            close = source.find('"', i + 1)
            if close < 0:
                raise QueryError("unclosed quote", i + 1)
            text = source[i + 1 : close]
            if not text.strip():
                raise QueryError("empty phrase", i + 1)
            i = close + 1
            term = Term(text, _quoted_kind(text))
        else:
            j = i
            while j < n and not source[j].isspace():
                j += 1
            token = source[i:j]
            name, sep, value = token.partition(":")
            if sep and name.lower() in FILTERS:
                if negate:
                    raise QueryError(f"a filter cannot be excluded ('-{name}:')", col)
                if value.startswith('"'):
                    close = source.find('"', i + len(name) + 2)
                    if close < 0:
                        raise QueryError("unclosed quote", i + len(name) + 2)
                    value = source[i + len(name) + 2 : close]
                    j = close + 1
                if not value:
                    raise QueryError(f"filter {name}: needs a value", col)
                key = name.lower()
                allowed = _VALUES.get(key)
                if allowed is not None and value.lower() not in allowed:
                    raise QueryError(f"unknown {key} {value!r} ({key}s are {', '.join(allowed)})", col)
                if key == "since":
                    q.since = parse_time(value, col, now)
                elif key == "until":
                    q.until = parse_time(value, col, now, end=True)
                else:
                    q.filters.setdefault(key, []).append(value)
                i = j
                if pending_or:
                    raise QueryError("OR cannot join a filter", col)
                continue
            if sep and _WORD.match(name) and value and not value.startswith("/") and name.isalpha():
                known = ", ".join(f"{f}:" for f in FILTERS)
                raise QueryError(f"unknown filter {name}: (filters are {known})", col)
            i = j
            term = Term(token, classify(token))
        if negate:
            if pending_or:
                raise QueryError("OR cannot join an exclusion", col)
            q.must_not.append(term)
        elif pending_or:
            q.must[-1].append(term)
            pending_or = False
        else:
            q.must.append([term])
    if pending_or:
        raise QueryError("OR needs a term on its right", n)
    if not q.must and not q.filters and q.since is None and q.until is None:
        if q.must_not:
            raise QueryError("a query needs at least one term or filter besides exclusions", 1)
        raise QueryError("the query is empty", 1)
    if q.since and q.until and q.since >= q.until:
        raise QueryError("since: is not before until:", 1)
    return q
