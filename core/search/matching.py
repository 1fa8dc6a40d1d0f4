"""Whether an entry's text answers a query, decided in Python as the index would: the check
that confirms a substring's candidates against their stored text, and the matcher of the
scanning search (`SearchIndex.scan`, when there is no index to ask).
"""
from __future__ import annotations

import re
from typing import Callable

from ..model import Entry, Session
from .hits import patterns_of
from .query import Query, Term
from .schema import ts_ms
from .terms import ALNUM, stem


def entry_match(q: Query) -> Callable[[Session, Entry, str], bool]:
    """Whether an entry (of a session, with its lowercased searchable text) answers the query,
    as the index would: the same term meanings (`alternative_check`), filters and time range
    (`SearchIndex._filter`, `_query`)."""
    must = [[alternative_check(t) for t in alts] for alts in q.must]
    must_not = [alternative_check(t) for t in q.must_not]
    filters = [[(name, v.lower(), v) for v in values] for name, values in q.filters.items()]
    lo = ts_ms(q.since) if q.since else (1 if q.until else None)  # undated (0) out of any date filter
    hi = ts_ms(q.until) if q.until else None

    def holds(name: str, low: str, value: str, s: Session, e: Entry) -> bool:
        if name == "agent":
            return s.agent.lower().startswith(low)
        if name == "project":
            return low in (s.project or "").lower()
        if name == "session":
            return s.id.startswith(value)
        if name == "branch":
            return (s.git_branch or "") == value
        if name == "role":
            return e.role.lower() == low
        if name == "kind":
            return e.kind.value == low
        return (e.tool_name or "").lower() == low  # tool

    def match(s: Session, e: Entry, low: str) -> bool:
        if not all(any(check(low) for check in alts) for alts in must) or any(check(low) for check in must_not):
            return False
        if not all(any(holds(name, lv, v, s, e) for name, lv, v in alts) for alts in filters):
            return False
        if lo is not None or hi is not None:
            ts = ts_ms(e.timestamp)
            return (lo is None or ts >= lo) and (hi is None or ts < hi)
        return True

    return match


def alternative_check(t: Term, *, stems: bool = True) -> Callable[[str], bool]:
    """Whether lowercased text holds a term: a substring anywhere, a word or phrase on word
    boundaries (the tokenizer's: runs of letters and digits); with `stems`, a word also as any
    word of its English stem (as `SearchIndex._word`)."""
    if t.kind == "substring":
        needle = t.text.lower()
        return lambda low: needle in low
    runs = ALNUM.findall(t.text.lower())
    if t.kind == "word" and len(runs) == 1:
        exact = re.compile(r"(?<![^\W_])" + re.escape(runs[0]) + r"(?![^\W_])")
        root = stem(runs[0]) if stems else ""
        if not root:
            return lambda low: exact.search(low) is not None
        # A word of a stem shares its first two letters (skies -> sky, dying -> die): only the
        # words starting with those are stemmed.
        starts = re.compile(r"(?<![^\W_])" + re.escape(root[:2]) + r"[^\W_]*")
        return lambda low: exact.search(low) is not None or any(
            stem(m.group(0)) == root for m in starts.finditer(low))
    pattern = patterns_of(((t,),))
    return (lambda low: pattern.search(low) is not None) if pattern else (lambda low: True)
