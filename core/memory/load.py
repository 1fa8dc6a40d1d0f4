"""Finding a project's session notes in its memory folders, newest first by the time in their names,
and loading the last one (a damaged newer note is reported and skipped, never deleted), with the
one line `memory load-last` and the Memory tab say about it (`resume_line`, `ago`)."""
from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Iterable

from .markdown import NoteCorrupt, jsonable, read_text
from .notes import SessionNote, parse_note, parse_note_name, stamp_datetime


# -- finding and loading ---------------------------------------------------------------------------------
def find_notes(memory_dirs: Iterable[str | os.PathLike[str]], project: str | None = None,
               warnings: list[str] | None = None) -> list[tuple[str, str, str]]:
    """(stamp, project, path) of the notes in `memory_dirs` (of one project when given), newest
    first by the name's timestamp. A name whose timestamp is not a real time is skipped with a
    warning."""
    found: list[tuple[str, str, str]] = []
    seen: set[str] = set()
    for d in memory_dirs:
        try:
            names = sorted(os.listdir(d))
        except OSError:
            continue
        for name in names:
            parsed = parse_note_name(name)
            if parsed is None or (project is not None and parsed[1] != project):
                continue
            path = os.path.join(d, name)
            key = os.path.realpath(path)
            if key in seen or os.path.isdir(path):
                continue
            seen.add(key)
            if stamp_datetime(parsed[0]) is None:
                if warnings is not None:
                    warnings.append(f"skipped {path}: {parsed[0]} is not a real date and time")
                continue
            found.append((parsed[0], parsed[1], path))
    found.sort(key=lambda t: (t[0], t[2]), reverse=True)
    return found


@dataclass
class LoadResult:
    """The newest readable note of a project, or why there is none (not an error)."""

    project: str
    note: SessionNote | None
    content: str | None
    line: str
    warnings: list[str]
    searched: list[str]

    @property
    def found(self) -> bool:
        return self.note is not None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"project": self.project, "found": self.found}
        if self.note is None:
            out["message"] = self.line
        else:
            out["line"] = self.line
            out["path"] = self.note.path
            out["schema_version"] = self.note.schema_version
            out["note"] = self.note.to_dict()
            out["note_file"] = {
                "frontmatter": jsonable(self.note.source_meta or {}),
                "body": self.note.source_body or "",
            }
            out["content"] = self.content
        out["warnings"] = list(self.warnings)
        out["searched"] = list(self.searched)
        return out


def load_last(
    project: str,
    memory_dirs: Iterable[str | os.PathLike[str]],
    *,
    now: datetime | None = None,
) -> LoadResult:
    """The newest note of `project` (by the name's timestamp) across `memory_dirs`; a damaged or
    unreadable note is skipped with a warning and the next newest is tried."""
    dirs = [str(d) for d in memory_dirs]
    warnings: list[str] = []
    for _stamp, _project, path in find_notes(dirs, project, warnings):
        try:
            text, read_warnings = read_text(path)
            note = parse_note(text, path=path)
        except NoteCorrupt as exc:
            warnings.append(f"skipped {path}: {exc}")
            continue
        note.warnings[:0] = read_warnings
        warnings += [f"{os.path.basename(path)}: {w}" for w in note.warnings]
        return LoadResult(project, note, text, resume_line(note, now), warnings, dirs)
    return LoadResult(project, None, None, f"No previous memory found for project '{project}'", warnings, dirs)


def resume_line(note: SessionNote, now: datetime | None = None) -> str:
    """`Resuming foo-system (last touched 3 days ago, status: in-progress at CP-S2)`."""
    status = note.status or "unknown"
    if note.last_checkpoint:
        status += f" at {note.last_checkpoint}"
    return f"Resuming {note.project} (last touched {ago(note.touched, now)}, status: {status})"


def ago(ts: datetime | None, now: datetime | None = None) -> str:
    """An age in words: "just now", "5 minutes ago", "1 day ago", "3 months ago"."""
    if ts is None:
        return "at an unknown time"
    now = now or datetime.now(timezone.utc)
    if ts.tzinfo is None:
        ts = ts.astimezone()
    secs = (now - ts).total_seconds()
    for unit, size in (("year", 365 * 86400), ("month", 30 * 86400), ("day", 86400),
                       ("hour", 3600), ("minute", 60)):
        if secs >= size:
            n = int(secs // size)
            return f"{n} {unit}{'' if n == 1 else 's'} ago"
    return "just now"
