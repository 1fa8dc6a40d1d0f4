"""Session memory notes: the condensed per-session files in a project's `memory/` folder.

Why: an agent that stops mid-task (context limit, a paused plan, a new day) leaves one small
note per session so the next session can resume where it stopped. Those notes are the project's
memory, so writing them must never cost the previous version (atomic replace), reading them must
survive a damaged one (skip it and take the next newest), and sessionscope never deletes them.

A note is `{YYYY-MM-DD-HH-MM}-{project_name}.md`: YAML frontmatter plus a Markdown body.

```markdown
---
schema_version: 1.1
project-name: foo-system
session: 2026-11-17-09-30
mode: guided
status: in-progress            # in-progress | paused | completed
last-checkpoint: CP-S2
checkpoints-approved: [CP-S1]
checkpoint_decisions:
  CP-S1: {option: b, note: keep the v1 API, regenerated_count: 1}
target-dir: /home/dev/foo
last_session_at: '2026-11-17T10:02:11Z'   # set by every save
---
## Session summary
## Steps completed        (one line per step id)
## Active state
## Key decisions
```

Schema versions. A note without `schema_version` is 1.0: it is read, reported as 1.0, and
migrated to 1.1 by its next save. Version 1.1 added the underscore fields (`schema_version`,
`checkpoint_decisions`, `last_session_at`); migration therefore
  1. adds `schema_version: 1.1` and sets `last_session_at` to the save time;
  2. renames fields to their 1.1 spelling (`project_name` -> `project-name`, `last_checkpoint`
     -> `last-checkpoint`, `checkpoints_approved` -> `checkpoints-approved`, `target_dir` ->
     `target-dir`, `checkpoint-decisions` -> `checkpoint_decisions`, ...);
  3. turns a plain-text decision (`CP-S1: b`) into `{option: b, note: '', regenerated_count: 0}`
     and a comma-separated `checkpoints-approved` string into a list; a missing
     `checkpoint_decisions` becomes `{}`;
  4. keeps every other field and the whole body (unknown sections, text above the first
     section) as they were.
It is back-compatible: every 1.0 field keeps its name and meaning, so a 1.0 reader that ignores
unknown keys still reads a migrated note. A note with a newer schema than 1.1 is read
best-effort with a warning and is not merged into by a save (that could drop what it added).
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from typing import Any

import frontmatter
from frontmatter.default_handlers import YAMLHandler

from ..model import parse_timestamp
from .markdown import NoteCorrupt, _type_name, list_lines, parse_markdown, read_text, split_sections

SCHEMA_VERSION = "1.1"
LEGACY_VERSION = "1.0"
STATUSES = ("in-progress", "paused", "completed")
NOTE_NAME = re.compile(r"^(?P<stamp>\d{4}-\d{2}-\d{2}-\d{2}-\d{2})-(?P<project>.+)\.md$")
STAMP_FORMAT = "%Y-%m-%d-%H-%M"
CONDENSED_BYTES = 4096  # notes are meant to be about 1-2 KB; past this a save warns

# Canonical 1.1 keys, in the order a save writes them.
FIELD_ORDER = (
    "schema_version", "project-name", "session", "mode", "status", "last-checkpoint",
    "checkpoints-approved", "checkpoint_decisions", "target-dir", "last_session_at",
)
REQUIRED = ("project-name", "session", "status")
_ALIASES = {
    alias: key
    for key in FIELD_ORDER
    for alias in {key.replace("-", "_"), key.replace("_", "-")} - {key}
}
SECTIONS = {  # body field -> heading
    "summary": "Session summary",
    "steps": "Steps completed",
    "active_state": "Active state",
    "key_decisions": "Key decisions",
}
_SECTION_KEYS = {title.lower(): key for key, title in SECTIONS.items()}


class NoteError(Exception):
    """A note cannot be saved (the message says why; nothing was written)."""


# -- the note -----------------------------------------------------------------------------------------
@dataclass
class Decision:
    option: str
    note: str = ""
    regenerated_count: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"option": self.option, "note": self.note, "regenerated_count": self.regenerated_count}


@dataclass
class SessionNote:
    """One session's memory note, as typed fields. `extra_meta`, `preamble` and `extra_sections`
    hold whatever the file had beyond the schema, so a save never drops it."""

    project: str
    session: str  # YYYY-MM-DD-HH-MM
    mode: str | None = None
    status: str | None = None
    last_checkpoint: str | None = None
    checkpoints_approved: list[str] = field(default_factory=list)
    checkpoint_decisions: dict[str, Decision] = field(default_factory=dict)
    target_dir: str | None = None
    last_session_at: datetime | None = None
    summary: str = ""
    steps: list[str] = field(default_factory=list)
    active_state: str = ""
    key_decisions: list[str] = field(default_factory=list)
    preamble: str = ""
    extra_sections: list[tuple[str, str]] = field(default_factory=list)
    extra_meta: dict[str, Any] = field(default_factory=dict)
    schema_version: str = SCHEMA_VERSION
    path: str | None = None
    warnings: list[str] = field(default_factory=list)
    source_meta: dict[str, Any] | None = None  # the frontmatter as read (None for a new note)
    source_body: str | None = None

    # -- writing --
    def frontmatter(self) -> dict[str, Any]:
        """The 1.1 frontmatter, every schema field present (null / empty when unknown)."""
        meta: dict[str, Any] = {
            "schema_version": float(SCHEMA_VERSION),  # written as the YAML number `1.1`
            "project-name": self.project,
            "session": self.session,
            "mode": self.mode,
            "status": self.status,
            "last-checkpoint": self.last_checkpoint,
            "checkpoints-approved": list(self.checkpoints_approved),
            "checkpoint_decisions": {cp: d.to_dict() for cp, d in self.checkpoint_decisions.items()},
            "target-dir": self.target_dir,
            "last_session_at": _iso_z(self.last_session_at),
        }
        for k, v in self.extra_meta.items():
            meta.setdefault(k, v)
        return meta

    def body(self) -> str:
        parts = [self.preamble] if self.preamble else []
        for key, title in SECTIONS.items():
            value = getattr(self, key)
            text = "\n".join(f"- {item}" for item in value) if isinstance(value, list) else value
            parts.append(f"## {title}\n\n{text}".rstrip())
        parts += [f"## {title}\n\n{text}".rstrip() for title, text in self.extra_sections]
        return "\n\n".join(parts)

    def to_text(self) -> str:
        post = frontmatter.Post(self.body(), handler=YAMLHandler(), **self.frontmatter())
        return frontmatter.dumps(post, sort_keys=False) + "\n"

    # -- display --
    def to_dict(self) -> dict[str, Any]:
        return {
            "project": self.project,
            "session": self.session,
            "schema_version": self.schema_version,
            "mode": self.mode,
            "status": self.status,
            "last_checkpoint": self.last_checkpoint,
            "checkpoints_approved": list(self.checkpoints_approved),
            "checkpoint_decisions": {cp: d.to_dict() for cp, d in self.checkpoint_decisions.items()},
            "target_dir": self.target_dir,
            "last_session_at": _iso_z(self.last_session_at),
            "summary": self.summary,
            "steps": list(self.steps),
            "active_state": self.active_state,
            "key_decisions": list(self.key_decisions),
            "path": self.path,
            "warnings": list(self.warnings),
        }

    @property
    def stamp_time(self) -> datetime | None:
        """The session time from the name, as local wall-clock time (the name has no zone)."""
        return stamp_datetime(self.session)

    @property
    def touched(self) -> datetime | None:
        """When the note was last saved: `last_session_at`, else the name's time."""
        return self.last_session_at or self.stamp_time


def _iso_z(ts: datetime | None) -> str | None:
    if ts is None:
        return None
    return ts.astimezone(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


# -- names and timestamps -------------------------------------------------------------------------------
_PROJECT_NAME = re.compile(r"^\w[\w.+-]*$")
_ISO_MINUTES = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}")


def check_project_name(name: str) -> str:
    """A project name usable in a file name: letters, digits, `.`, `_`, `+`, `-`; no path parts."""
    name = name.strip()
    if not _PROJECT_NAME.match(name) or name.endswith(".md"):
        raise NoteError(
            f"project name {name!r} cannot be used in a note's file name "
            "(use letters, digits, '.', '_', '+' or '-', starting with a letter or digit)"
        )
    return name


def normalize_stamp(value: str) -> str:
    """A session timestamp as `YYYY-MM-DD-HH-MM`, from that form or from ISO 8601.

    The name holds wall-clock minutes and no zone: an ISO value keeps the clock time as written
    (its offset and seconds are dropped), so `date -Iminutes` and `date +%Y-%m-%d-%H-%M` agree."""
    raw = value.strip()
    problem = (
        f"session timestamp must be YYYY-MM-DD-HH-MM or ISO 8601 (e.g. 2026-11-20-14-05 or "
        f"2026-11-20T14:05), got {value!r}"
    )
    try:
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}-\d{2}-\d{2}", raw):
            return datetime.strptime(raw, STAMP_FORMAT).strftime(STAMP_FORMAT)
        if _ISO_MINUTES.match(raw):
            text = raw[:-1] + "+00:00" if raw.endswith(("Z", "z")) else raw
            return datetime.fromisoformat(text).strftime(STAMP_FORMAT)
    except ValueError:
        pass
    raise NoteError(problem)


def stamp_datetime(stamp: str) -> datetime | None:
    try:
        return datetime.strptime(stamp, STAMP_FORMAT).astimezone()
    except (ValueError, OverflowError, OSError):
        return None


def note_filename(stamp: str, project: str) -> str:
    return f"{stamp}-{project}.md"


def parse_note_name(name: str) -> tuple[str, str] | None:
    """(stamp, project) of a note's file name, or None when it is not a note's name."""
    m = NOTE_NAME.match(name)
    if not m or name.startswith("."):
        return None
    return m.group("stamp"), m.group("project")


def version_text(value: Any) -> str | None:
    """`schema_version` as text ("1.1"); None when the value is not a version."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return f"{value}.0"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str) and re.fullmatch(r"\d+(\.\d+)*", value.strip()):
        return value.strip()
    return None


def _version_key(v: str) -> tuple[int, ...]:
    return tuple(int(p) for p in v.split("."))


# -- parsing a note --------------------------------------------------------------------------------------
def parse_note(text: str, *, path: str | None = None) -> SessionNote:
    """A note from its text. Raises NoteCorrupt when the frontmatter cannot be used at all;
    anything milder (missing fields, wrong types, unknown status) becomes a warning."""
    doc = parse_markdown(text)
    if doc.fatal:
        raise NoteCorrupt(doc.fatal)
    if doc.metadata is None:
        raise NoteCorrupt("has no frontmatter (a note starts with a '---' block of fields)")
    name = parse_note_name(os.path.basename(path)) if path else None
    note = note_from_fields(doc.metadata, doc.body, name=name, warnings=list(doc.warnings))
    note.path = path
    return note


def read_note(path: str | os.PathLike[str]) -> SessionNote:
    text, warnings = read_text(path)
    note = parse_note(text, path=str(path))
    note.warnings[:0] = warnings
    return note


def note_from_fields(
    meta: dict[str, Any],
    body: str | None = None,
    *,
    name: tuple[str, str] | None = None,
    warnings: list[str] | None = None,
) -> SessionNote:
    """A note from a frontmatter mapping and a Markdown body (either key spelling accepted).

    `name` is the (stamp, project) of the file name, which wins over the frontmatter's
    `session` / `project-name` (it is what finds the file)."""
    warn = warnings if warnings is not None else []
    fields: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    for key, value in meta.items():
        canon = _ALIASES.get(key, key)
        if canon in FIELD_ORDER:
            if canon in fields and canon != key:
                warn.append(f"both {key!r} and {canon!r} are set; using {canon!r}")
                continue
            fields[canon] = value
        else:
            extra[key] = value

    version = LEGACY_VERSION
    if "schema_version" in fields:
        v = version_text(fields["schema_version"])
        if v is None:
            warn.append(f"schema_version {fields['schema_version']!r} is not a version number; read as {SCHEMA_VERSION}")
            version = SCHEMA_VERSION
        else:
            version = v
            if _version_key(v) > _version_key(SCHEMA_VERSION):
                warn.append(f"schema_version {v} is newer than this sessionscope reads ({SCHEMA_VERSION}); read best-effort")
    legacy = version == LEGACY_VERSION
    required = REQUIRED if legacy else (*REQUIRED, "last_session_at")
    for key in required:
        if fields.get(key) in (None, ""):
            warn.append(f"missing field {key!r}")

    project = _text(fields, "project-name", warn)
    session = _text(fields, "session", warn)
    if name is not None:
        stamp, file_project = name
        if project and project != file_project:
            warn.append(f"project-name {project!r} differs from the file name's {file_project!r}; using the file name")
        if session and _loose_stamp(session) != stamp:
            warn.append(f"session {session!r} differs from the file name's {stamp}; using the file name")
        project, session = file_project, stamp
    elif session:
        try:
            session = normalize_stamp(session)
        except NoteError:
            warn.append(f"session {session!r} is not a YYYY-MM-DD-HH-MM timestamp")

    note = SessionNote(project=project or "", session=session or "")
    note.schema_version = version
    note.mode = _text(fields, "mode", warn)
    note.status = _text(fields, "status", warn)
    if note.status is not None and note.status not in STATUSES:
        warn.append(f"unknown status {note.status!r} (expected {', '.join(STATUSES)})")
    note.last_checkpoint = _text(fields, "last-checkpoint", warn)
    note.target_dir = _text(fields, "target-dir", warn)
    note.checkpoints_approved = _text_list(fields.get("checkpoints-approved"), "checkpoints-approved", warn, legacy)
    note.checkpoint_decisions = _decisions(fields.get("checkpoint_decisions"), warn, legacy)
    note.last_session_at = _when(fields.get("last_session_at"), warn)
    note.extra_meta = extra
    note.source_meta = dict(meta)

    if body is not None:
        note.source_body = body
        preamble, sections = split_sections(body)
        note.preamble = preamble
        seen: set[str] = set()
        for title, text in sections:
            key = _SECTION_KEYS.get(title.strip().rstrip(":").strip().lower())
            if key is None:
                note.extra_sections.append((title, text))
                continue
            if key in seen:
                warn.append(f"section '## {SECTIONS[key]}' appears twice; both kept, joined")
            seen.add(key)
            current = getattr(note, key)
            if isinstance(current, list):
                current.extend(list_lines(text))
            else:
                setattr(note, key, f"{current}\n\n{text}".strip() if current else text)
    note.warnings = warn
    return note


def _loose_stamp(value: str) -> str | None:
    try:
        return normalize_stamp(value)
    except NoteError:
        return None


def _text(fields: dict[str, Any], key: str, warn: list[str]) -> str | None:
    value = fields.get(key)
    if value is None or isinstance(value, str):
        return value.strip() if isinstance(value, str) else None
    if isinstance(value, datetime):
        return value.strftime(STAMP_FORMAT) if key == "session" else value.isoformat()
    if isinstance(value, (int, float, date)) and not isinstance(value, bool):
        warn.append(f"field {key!r} should be text, got the {_type_name(value)} {value!r}; read as text")
        return str(value)
    warn.append(f"field {key!r} should be text, got a {_type_name(value)}; ignored")
    return None


def _text_list(value: Any, key: str, warn: list[str], legacy: bool) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        if not legacy:
            warn.append(f"field {key!r} should be a list, got text; split on commas")
        return [p.strip() for p in value.split(",") if p.strip()]
    if isinstance(value, list):
        out = []
        for item in value:
            if isinstance(item, (str, int, float)) and not isinstance(item, bool):
                out.append(str(item).strip())
            else:
                warn.append(f"field {key!r} holds a {_type_name(item)} item; skipped")
        return out
    warn.append(f"field {key!r} should be a list, got a {_type_name(value)}; ignored")
    return []


def _decisions(value: Any, warn: list[str], legacy: bool) -> dict[str, Decision]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        warn.append(f"field 'checkpoint_decisions' should map checkpoint ids to decisions, got a {_type_name(value)}; ignored")
        return {}
    out: dict[str, Decision] = {}
    for cp, d in value.items():
        cp = str(cp)
        if isinstance(d, (str, int, float)) and not isinstance(d, bool):
            if not legacy:
                warn.append(f"decision {cp!r} is plain text; read as its option")
            out[cp] = Decision(str(d))
            continue
        if not isinstance(d, dict):
            warn.append(f"decision {cp!r} should be {{option, note, regenerated_count}}, got a {_type_name(d)}; skipped")
            continue
        option, note, count = d.get("option"), d.get("note"), d.get("regenerated_count", 0)
        if option is None or isinstance(option, (dict, list)):
            warn.append(f"decision {cp!r} has no option")
            option = ""
        if note is not None and not isinstance(note, str):
            note = str(note)
        if count is None:
            count = 0
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            warn.append(f"decision {cp!r}: regenerated_count should be a whole number >= 0, got {count!r}; read as 0")
            count = 0
        out[cp] = Decision(str(option), note or "", count)
    return out


def _when(value: Any, warn: list[str]) -> datetime | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=timezone.utc)
    ts = parse_timestamp(value) if isinstance(value, str) else None
    if ts is None:
        warn.append(f"last_session_at {value!r} is not an ISO 8601 time; ignored")
    return ts


def note_from_json(obj: Any) -> SessionNote:
    """A note from a JSON object: either `{"frontmatter": {...}, "body": "..."}` (the shape
    `load-last --json` prints under `note_file`) or flat fields (frontmatter keys in either
    spelling, plus `summary`, `steps`, `active_state`, `key_decisions`, optionally `body`)."""
    if not isinstance(obj, dict):
        raise NoteError(f"the JSON must be an object of note fields, got a {_type_name(obj)}")
    if isinstance(obj.get("frontmatter"), dict):
        return note_from_fields(obj["frontmatter"], _str_or_none(obj.get("body")))
    meta = {k: v for k, v in obj.items() if k not in (*SECTIONS, "body", "active-state", "key-decisions")}
    note = note_from_fields(meta, _str_or_none(obj.get("body")))
    for key in SECTIONS:
        value = obj.get(key, obj.get(key.replace("_", "-")))
        if value is None:
            continue
        if key in ("steps", "key_decisions"):
            if isinstance(value, str):
                value = list_lines(value)
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise NoteError(f"{key!r} must be a list of text lines")
            setattr(note, key, [v.strip() for v in value if v.strip()])
        else:
            if not isinstance(value, str):
                raise NoteError(f"{key!r} must be text")
            setattr(note, key, value.strip())
    return note


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def note_from_source(text: str) -> SessionNote:
    """A note given whole (`save --from`): a JSON object, or a Markdown note with frontmatter."""
    stripped = text.strip()
    if stripped.startswith("{"):
        try:
            obj = json.loads(stripped)
        except json.JSONDecodeError as exc:
            raise NoteError(f"not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") from None
        return note_from_json(obj)
    try:
        return parse_note(text)
    except NoteCorrupt as exc:
        raise NoteError(f"not a note: {exc}") from None

