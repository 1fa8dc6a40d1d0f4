"""The `@path` imports of instruction files (CLAUDE.md and its kin): found outside code spans and
fences, resolved relative to the importing file (`~` to the home folder), followed to
`MAX_IMPORT_DEPTH` levels and `MAX_IMPORT_NODES` files in all, a cycle or a missing file a
warning on the import, never an error."""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from typing import Any

from ..text import code_spans
from .markdown import NoteCorrupt, code_marked, read_text

MAX_IMPORT_DEPTH = 5
MAX_IMPORT_NODES = 200
_IMPORT = re.compile(r"(?:(?<=\s)|^)@(?P<ref>[^\s`]+)")


# -- imports ------------------------------------------------------------------------------------------
@dataclass
class ImportRef:
    """One `@path` import: where it points and whether it was followed."""

    ref: str
    line: int
    path: str | None
    status: str  # ok | missing | cycle | too-deep | unreadable | not-followed
    children: list[ImportRef] = field(default_factory=list)
    text: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"ref": self.ref, "line": self.line, "path": self.path, "status": self.status,
                               "imports": [c.to_dict() for c in self.children]}
        if self.text is not None:
            out["text"] = self.text
        return out


def _blank_code_spans(line: str) -> str:
    """`line` with each code span (`code_spans`) written over with spaces."""
    parts, at = [], 0
    for start, end in code_spans(line):
        parts += [line[at:start], " " * (end - start)]
        at = end
    parts.append(line[at:])
    return "".join(parts)


def find_imports(text: str) -> list[tuple[str, int]]:
    """`@path` references outside code blocks and code spans, as (path, 1-based line).

    Only references that look like paths count (they contain `/` or `.`, or start with `~`), so
    `@someone` mentions are not taken for imports; trailing punctuation is not part of the path."""
    found: list[tuple[str, int]] = []
    for n, (line, code) in enumerate(code_marked(text), 1):
        if code:
            continue
        for im in _IMPORT.finditer(_blank_code_spans(line)):
            ref = im.group("ref").rstrip(".,;:!?)]}'\"")
            if ref and ("/" in ref or "." in ref or ref.startswith("~")):
                found.append((ref, n))
    return found


def resolve_imports(
    path: str,
    *,
    text: str | None = None,
    with_text: bool = False,
    home: str | None = None,
    max_depth: int = MAX_IMPORT_DEPTH,
) -> tuple[list[ImportRef], list[str]]:
    """The import tree of an instruction file, followed up to `max_depth` hops (Claude Code's
    limit), relative paths against the importing file's folder; cycles are detected, not followed.
    Returns the direct imports (with their children) and warnings."""
    warnings: list[str] = []
    budget = [MAX_IMPORT_NODES]
    home = home or os.path.expanduser("~")

    def walk(file: str, content: str, depth: int, chain: tuple[str, ...]) -> list[ImportRef]:
        refs: list[ImportRef] = []
        for ref, line in find_imports(content):
            budget[0] -= 1
            if budget[0] < 0:
                if budget[0] == -1:
                    warnings.append(f"more than {MAX_IMPORT_NODES} imports; the rest not followed")
                break
            target = os.path.join(home, ref[2:]) if ref.startswith("~/") else os.path.join(os.path.dirname(file), ref)
            target = os.path.normpath(target)
            where = f"{os.path.basename(file)}:{line}"
            if not os.path.isfile(target):
                warnings.append(f"{where}: import @{ref} not found ({target})")
                refs.append(ImportRef(ref, line, target, "missing"))
                continue
            real = os.path.realpath(target)
            if real in chain:
                warnings.append(f"{where}: import @{ref} is a cycle (already being imported); not followed")
                refs.append(ImportRef(ref, line, target, "cycle"))
                continue
            if depth >= max_depth:
                warnings.append(f"{where}: import @{ref} is deeper than {max_depth} levels; not followed")
                refs.append(ImportRef(ref, line, target, "too-deep"))
                continue
            try:
                sub, _ = read_text(target)
            except NoteCorrupt as exc:
                warnings.append(f"{where}: import @{ref} {exc}")
                refs.append(ImportRef(ref, line, target, "unreadable"))
                continue
            node = ImportRef(ref, line, target, "ok", text=sub if with_text else None)
            node.children = walk(target, sub, depth + 1, (*chain, real))
            refs.append(node)
        return refs

    if text is None:
        try:
            text, _ = read_text(path)
        except NoteCorrupt:
            return [], warnings
    return walk(path, text, 0, (os.path.realpath(path),)), warnings
