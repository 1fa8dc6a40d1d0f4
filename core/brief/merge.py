"""Findings across sessions: two decisions that choose each other's rejected option become
`conflicting`, near-duplicates merge into the best-evidenced one (`also_from`), and a finding
a project memory note already states is marked (`in_memory`). The thresholds are in
core/brief/findings.py's docstring."""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Iterable, Sequence

from .finding import CONFLICTING, CORRECTION, Conflict, DECISION, Finding, _EVIDENCE_RANK
from .patterns import content_words, sentences, similarity


# -- across sessions ----------------------------------------------------------------------------
def _newest(f: Finding) -> float:
    return f.date.timestamp() if f.date else 0.0


def cross_conflicts(findings: list[Finding]) -> list[Finding]:
    """Decisions of different sessions that choose what the other rejects: the newer is kept,
    labelled conflicting, with the older shown as its conflicting source."""
    out = sorted(findings, key=_newest, reverse=True)
    drop: set[int] = set()
    for i, a in enumerate(out):
        if a.type not in (DECISION, CORRECTION) or i in drop:
            continue
        for j in range(i + 1, len(out)):
            b = out[j]
            if j in drop or b.type not in (DECISION, CORRECTION) or b.source.session_id == a.source.session_id:
                continue
            (ac, ar), (bc, br) = a.choice, b.choice
            if (set(ac) & set(br)) or (set(bc) & set(ar)):
                conflict = Conflict(b.source, b.text, "an earlier session chose differently")
                out[i] = a = replace(a, evidence=CONFLICTING, conflicts=(*a.conflicts, conflict))
                drop.add(j)
    return [f for k, f in enumerate(out) if k not in drop]


def merge_duplicates(findings: list[Finding]) -> list[Finding]:
    """Findings of one type saying the same thing become one: the best evidenced, then newest."""
    order = sorted(findings, key=lambda f: (_EVIDENCE_RANK[f.evidence], _newest(f)), reverse=True)
    kept: list[Finding] = []
    words: list[list[str]] = []
    for f in order:
        fw = content_words(f.text)
        for k, g in enumerate(kept):
            if g.type != f.type:
                continue
            sim, shared = similarity(fw, words[k])
            if sim >= 0.7 and shared >= 3:
                kept[k] = replace(g, also_from=(*g.also_from, f.source, *f.also_from),
                                  conflicts=(*g.conflicts, *f.conflicts))
                break
        else:
            kept.append(f)
            words.append(fw)
    return kept


@dataclass(frozen=True)
class MemoryStatement:
    """One line or sentence of a memory note (key decisions, summaries, auto-memory, instructions)."""

    path: str
    text: str


def mark_memory(findings: list[Finding], statements: Sequence[MemoryStatement]) -> list[Finding]:
    """Record, on each finding, the memory notes that already say it."""
    mem = [(s.path, content_words(s.text)) for s in statements if s.text.strip()]
    out = []
    for f in findings:
        fw = content_words(f.text)
        hits = []
        for path, words in mem:
            sim, shared = similarity(fw, words)
            if sim >= 0.6 and shared >= 3:
                hits.append(path)
        out.append(replace(f, in_memory=tuple(dict.fromkeys(hits))) if hits else f)
    return out


def memory_statements(paths_and_texts: Iterable[tuple[str, str]]) -> list[MemoryStatement]:
    """Memory files' texts as statements: bullet lines and sentences, frontmatter and headings out."""
    out: list[MemoryStatement] = []
    for path, text in paths_and_texts:
        body = re.sub(r"\A---\n.*?\n---\n", "", text, flags=re.S)
        for s in sentences(body):
            if s.startswith("#") or len(s) < 12:
                continue
            out.append(MemoryStatement(path, s))
    return out
