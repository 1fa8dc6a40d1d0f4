"""Every kind of memory an agent keeps on disk, as one list of `MemoryItem`s for the timeline.

Why one list: a resumed session is shaped by its session notes, by Claude Code's auto-memory
(`MEMORY.md` index + topic files) and by the instruction files loaded at start (`CLAUDE.md`,
`AGENTS.md`, `GEMINI.md`, ... with their `@path` imports). Showing them side by side, each with
its time, project and any problem found, answers "what did the agent know when it started?".

Everything here only reads: nothing is ever written or deleted, and a damaged file becomes an
item with warnings, never an exception.

Kinds and where they are found (see `discover_memory`):
  session-note       `<project>/memory/`, `<project>/.claude/memory/`, explicit folders
  auto-memory-index  `MEMORY.md` in `<claude projects dir>/<escaped project>/memory/` (or in the
                     repo when `autoMemoryDirectory` points there, e.g. `.claude/memory/`)
  auto-memory-topic  the other `.md` files of an auto-memory folder (`name`, `description`,
                     `type` or `metadata.type` frontmatter)
  instructions       `CLAUDE.md`, `.claude/CLAUDE.md`, `CLAUDE.local.md`, `AGENTS.md`,
                     `AGENTS.override.md`, `GEMINI.md`, `.claude/rules/*.md`, Copilot's
                     `.github/copilot-instructions.md` and `.github/instructions/*.instructions.md`,
                     nested ones, and the user-level ones under the home directory (also
                     `~/.copilot/copilot-instructions.md`, `~/.pi/agent/AGENTS.md`,
                     `~/.config/opencode/AGENTS.md`)
  summary            a user-made `SUMMARY.md` in a Claude projects folder (e.g. claude-summaries)
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Iterable

from .markdown import NoteCorrupt, jsonable, parse_markdown, read_text, split_sections
from .notes import parse_note, parse_note_name, stamp_datetime
from ..model import parse_timestamp
from .imports import resolve_imports

SESSION_NOTE = "session-note"
AUTO_INDEX = "auto-memory-index"
AUTO_TOPIC = "auto-memory-topic"
INSTRUCTIONS = "instructions"
SUMMARY = "summary"
KINDS = (SESSION_NOTE, AUTO_INDEX, AUTO_TOPIC, INSTRUCTIONS, SUMMARY)
USER_PROJECT = "(user)"

TOPIC_TYPES = ("user", "feedback", "project", "reference")
INDEX_LINES_LOADED = 200  # Claude Code loads about the first 200 lines of MEMORY.md
INSTRUCTION_NAMES = ("CLAUDE.md", "CLAUDE.local.md", "AGENTS.md", "AGENTS.override.md", "GEMINI.md")
NESTED_MAX_DEPTH = 4  # how deep below a project root nested instruction files are looked for
NESTED_MAX_DIRS = 3000
_SKIP_DIRS = {"node_modules", "__pycache__", "venv", "build", "dist", "target", "vendor", "site-packages"}
_INDEX_LINE = re.compile(r"^\s*[-*+]\s*\[(?P<title>[^\]]*)\]\((?P<file>[^)\s]+)\)\s*(?:[—–:-]+\s*(?P<hook>.*))?$")


@dataclass(frozen=True)
class MemoryItem:
    """One memory or instruction file, summarised for a list or a timeline.

    `timestamp` comes from the name for session notes, else from `last_session_at` (or a
    summary's `generated`), else the file's mtime; `timestamp_source` says which."""

    kind: str
    project: str
    path: str
    timestamp: datetime | None
    name: str = ""
    status: str | None = None
    last_checkpoint: str | None = None
    summary: str = ""
    schema_version: str | None = None
    warnings: tuple[str, ...] = ()
    topic_type: str | None = None
    link_target: str | None = None  # a symlink's target as written (CLAUDE.md -> AGENTS.md)
    imports: tuple[str, ...] = ()  # resolved paths of the file's direct `@path` imports
    timestamp_source: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "project": self.project,
            "path": self.path,
            "name": self.name,
            "timestamp": _iso(self.timestamp),
            "timestamp_source": self.timestamp_source,
            "status": self.status,
            "last_checkpoint": self.last_checkpoint,
            "summary": self.summary,
            "schema_version": self.schema_version,
            "topic_type": self.topic_type,
            "link_target": self.link_target,
            "imports": list(self.imports),
            "warnings": list(self.warnings),
        }


def _iso(ts: datetime | None) -> str | None:
    return None if ts is None else ts.astimezone(timezone.utc).isoformat(timespec="seconds").replace("+00:00", "Z")


def _mtime(path: str) -> datetime | None:
    try:
        return datetime.fromtimestamp(os.stat(path).st_mtime, timezone.utc)
    except OSError:
        try:
            return datetime.fromtimestamp(os.lstat(path).st_mtime, timezone.utc)
        except OSError:
            return None


def _first_lines(text: str, lines: int = 3, limit: int = 240) -> str:
    """The first non-blank lines of `text`, joined, without Markdown heading/list markers."""
    out: list[str] = []
    for line in text.splitlines():
        s = line.strip().lstrip("#").strip()
        if s and s != "---":
            out.append(s)
        if len(out) >= lines:
            break
    joined = " ".join(out)
    return joined if len(joined) <= limit else joined[: limit - 1] + "…"


def claude_dir_name(project_path: str) -> str:
    """The folder name Claude Code gives a project under `projects/` (every non-alphanumeric
    character becomes `-`): `/Users/kim/foo` -> `-Users-kim-foo`."""
    return re.sub(r"[^A-Za-z0-9]", "-", project_path.rstrip("/\\") or project_path)


# -- single files -----------------------------------------------------------------------------------
def note_item(path: str, project: str) -> MemoryItem:
    parsed = parse_note_name(os.path.basename(path))
    stamp = stamp_datetime(parsed[0]) if parsed else None
    ts, source = (stamp, "name") if stamp else (_mtime(path), "mtime")
    name = parsed[1] if parsed else os.path.basename(path)
    try:
        text, read_warnings = read_text(path)
        note = parse_note(text, path=path)
    except NoteCorrupt as exc:
        return MemoryItem(SESSION_NOTE, project, path, ts, name, warnings=(str(exc),), timestamp_source=source)
    return MemoryItem(
        SESSION_NOTE, project, path, ts, name,
        status=note.status, last_checkpoint=note.last_checkpoint, summary=_first_lines(note.summary),
        schema_version=note.schema_version, warnings=tuple(read_warnings + note.warnings), timestamp_source=source,
    )


@dataclass
class IndexEntry:
    title: str
    file: str
    hook: str
    path: str
    exists: bool
    line: int

    def to_dict(self) -> dict[str, Any]:
        return {"title": self.title, "file": self.file, "hook": self.hook, "path": self.path,
                "exists": self.exists, "line": self.line}


def parse_index(text: str, folder: str) -> tuple[list[IndexEntry], list[str]]:
    """MEMORY.md lines `- [Title](file.md) — hook`; other non-blank lines are warned about."""
    entries: list[IndexEntry] = []
    warnings: list[str] = []
    lines = text.splitlines()
    for n, line in enumerate(lines, 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        m = _INDEX_LINE.match(line)
        if not m:
            warnings.append(f"line {n} is not an index entry ('- [Title](file.md) — hook')")
            continue
        target = os.path.normpath(os.path.join(folder, m.group("file")))
        exists = os.path.isfile(target)
        if not exists:
            warnings.append(f"line {n}: {m.group('file')} not found")
        entries.append(IndexEntry(m.group("title").strip(), m.group("file"), (m.group("hook") or "").strip(),
                                  target, exists, n))
    if len(lines) > INDEX_LINES_LOADED:
        warnings.append(f"{len(lines)} lines; Claude Code loads only the first {INDEX_LINES_LOADED}")
    return entries, warnings


def index_item(path: str, project: str) -> MemoryItem:
    ts = _mtime(path)
    try:
        text, warnings = read_text(path)
    except NoteCorrupt as exc:
        return MemoryItem(AUTO_INDEX, project, path, ts, "MEMORY.md", warnings=(str(exc),), timestamp_source="mtime")
    doc = parse_markdown(text)
    if doc.metadata:
        warnings.append("MEMORY.md is an index and should have no frontmatter")
    entries, index_warnings = parse_index(doc.body, os.path.dirname(path))
    titles = ", ".join(e.title for e in entries)
    summary = f"{len(entries)} {'memory' if len(entries) == 1 else 'memories'}" + (f": {titles}" if titles else "")
    return MemoryItem(AUTO_INDEX, project, path, ts, "MEMORY.md",
                      summary=summary if len(summary) <= 240 else summary[:239] + "…",
                      warnings=tuple(warnings + index_warnings), timestamp_source="mtime")


def _meta_time(meta: dict[str, Any] | None, keys: Iterable[str]) -> tuple[datetime | None, str]:
    for key in keys:
        value = (meta or {}).get(key)
        if isinstance(value, datetime):
            return (value if value.tzinfo else value.replace(tzinfo=timezone.utc)), key
        ts = parse_timestamp(value) if isinstance(value, str) else None
        if ts is not None:
            return ts, key
    return None, ""


def topic_type(meta: dict[str, Any]) -> Any:
    nested = meta.get("metadata")
    return meta.get("type") if meta.get("type") is not None else (nested.get("type") if isinstance(nested, dict) else None)


def topic_item(path: str, project: str, doc: Any = None, warnings: list[str] | None = None) -> MemoryItem:
    warns = list(warnings or [])
    if doc is None:
        try:
            text, read_warnings = read_text(path)
        except NoteCorrupt as exc:
            return MemoryItem(AUTO_TOPIC, project, path, _mtime(path), os.path.basename(path)[:-3],
                              warnings=(str(exc),), timestamp_source="mtime")
        warns += read_warnings
        doc = parse_markdown(text)
    warns += doc.warnings
    meta = doc.metadata or {}
    if doc.fatal:
        warns.append(doc.fatal)
    elif doc.metadata is None:
        warns.append("no frontmatter (a topic file has name, description and type)")
    name, description, kind = meta.get("name"), meta.get("description"), topic_type(meta)
    for key, value in (("name", name), ("description", description), ("type", kind)):
        if doc.metadata is not None and value is None:
            warns.append(f"missing field {key!r}")
        elif value is not None and not isinstance(value, str):
            warns.append(f"field {key!r} should be text, got {jsonable(value)!r}")
    if isinstance(kind, str) and kind not in TOPIC_TYPES:
        warns.append(f"unknown type {kind!r} (expected {', '.join(TOPIC_TYPES)})")
    ts, source = _meta_time(meta, ("last_session_at",))
    if ts is None:
        ts, source = _mtime(path), "mtime"
    summary = description if isinstance(description, str) else _first_lines(doc.body, 2)
    return MemoryItem(
        AUTO_TOPIC, project, path, ts, name if isinstance(name, str) else os.path.basename(path)[:-3],
        summary=_first_lines(summary, 3), warnings=tuple(warns),
        topic_type=kind if isinstance(kind, str) else None, timestamp_source=source,
    )


def instructions_item(path: str, project: str, home: str | None = None) -> MemoryItem:
    warnings: list[str] = []
    link = None
    if os.path.islink(path):
        try:
            link = os.readlink(path)
        except OSError as exc:
            warnings.append(f"symlink cannot be read ({exc.strerror})")
        if not os.path.exists(path):
            warnings.append(f"symlink to {link}, which does not exist")
            return MemoryItem(INSTRUCTIONS, project, path, _mtime(path), os.path.basename(path),
                              warnings=tuple(warnings), link_target=link, timestamp_source="mtime")
    ts = _mtime(path)
    try:
        text, read_warnings = read_text(path)
    except NoteCorrupt as exc:
        return MemoryItem(INSTRUCTIONS, project, path, ts, os.path.basename(path), warnings=(*warnings, str(exc)),
                          link_target=link, timestamp_source="mtime")
    warnings += read_warnings
    doc = parse_markdown(text)
    if doc.fatal:
        warnings.append(doc.fatal)
    refs, import_warnings = resolve_imports(path, text=doc.body, home=home)
    warnings += import_warnings
    summary = _first_lines(doc.body, 1, 160)
    if link:
        summary = f"→ {link}" + (f": {summary}" if summary else "")
    return MemoryItem(INSTRUCTIONS, project, path, ts, os.path.basename(path), summary=summary,
                      warnings=tuple(warnings), link_target=link,
                      imports=tuple(r.path for r in refs if r.path), timestamp_source="mtime")


def summary_item(path: str, project: str) -> MemoryItem:
    try:
        text, warnings = read_text(path)
    except NoteCorrupt as exc:
        return MemoryItem(SUMMARY, project, path, _mtime(path), os.path.basename(path), warnings=(str(exc),),
                          timestamp_source="mtime")
    doc = parse_markdown(text)
    if doc.fatal:
        warnings.append(doc.fatal)
    meta = doc.metadata or {}
    ts, source = _meta_time(meta, ("last_session_at", "generated"))
    if ts is None:
        ts, source = _mtime(path), "mtime"
    preamble, sections = split_sections(doc.body)
    overview = next((t for title, t in sections if title.strip().lower() == "overview"), None)
    status = meta.get("status")
    return MemoryItem(SUMMARY, project, path, ts, os.path.basename(path),
                      status=str(status) if status is not None else None,
                      summary=_first_lines(overview if overview is not None else doc.body),
                      warnings=tuple(warnings), timestamp_source=source)


# -- folders --------------------------------------------------------------------------------------------
def scan_memory_dir(folder: str, project: str) -> list[MemoryItem]:
    """The session notes and auto-memory files of one memory folder. Other `.md` files count as
    topic files only when the folder has a MEMORY.md or they carry topic frontmatter."""
    try:
        names = sorted(n for n in os.listdir(folder) if n.endswith(".md") and not n.startswith("."))
    except OSError:
        return []
    has_index = "MEMORY.md" in names
    items: list[MemoryItem] = []
    for name in names:
        path = os.path.join(folder, name)
        if os.path.isdir(path):
            continue
        if name == "MEMORY.md":
            items.append(index_item(path, project))
        elif parse_note_name(name):
            items.append(note_item(path, project))
        else:
            try:
                text, warnings = read_text(path)
            except NoteCorrupt as exc:
                if has_index:
                    items.append(MemoryItem(AUTO_TOPIC, project, path, _mtime(path), name[:-3],
                                            warnings=(str(exc),), timestamp_source="mtime"))
                continue
            doc = parse_markdown(text)
            meta = doc.metadata or {}
            if has_index or any(k in meta for k in ("name", "description", "type")) or topic_type(meta):
                items.append(topic_item(path, project, doc, warnings))
    return items


def instruction_files(project: str) -> list[str]:
    """The instruction files of a project: the root ones, `.claude/CLAUDE.md`, `.claude/rules/*.md`
    and nested ones (up to NESTED_MAX_DEPTH folders deep; hidden, dependency and build folders
    skipped, symlinked folders not followed)."""
    out: list[str] = []
    for sub in ("", ".claude"):
        base = os.path.join(project, sub) if sub else project
        for name in INSTRUCTION_NAMES if not sub else ("CLAUDE.md",):
            p = os.path.join(base, name)
            if os.path.isfile(p) or os.path.islink(p):
                out.append(p)
    rules = os.path.join(project, ".claude", "rules")
    try:
        out += [os.path.join(rules, n) for n in sorted(os.listdir(rules)) if n.endswith(".md")]
    except OSError:
        pass
    out += _copilot_files(project)
    visited = 0
    stack: list[tuple[str, int]] = [(project, 0)]
    while stack and visited < NESTED_MAX_DIRS:
        d, depth = stack.pop()
        visited += 1
        try:
            with os.scandir(d) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError:
            continue
        for e in entries:
            try:
                if e.is_dir(follow_symlinks=False):
                    if depth < NESTED_MAX_DEPTH and not e.name.startswith(".") and e.name not in _SKIP_DIRS:
                        stack.append((e.path, depth + 1))
                elif depth > 0 and e.name in INSTRUCTION_NAMES:
                    out.append(e.path)
            except OSError:
                continue
    return out


def _copilot_files(project: str) -> list[str]:
    """GitHub Copilot's instructions in a repository: `.github/copilot-instructions.md` and the
    path-specific `.github/instructions/*.instructions.md`."""
    out = []
    p = os.path.join(project, ".github", "copilot-instructions.md")
    if os.path.isfile(p) or os.path.islink(p):
        out.append(p)
    folder = os.path.join(project, ".github", "instructions")
    try:
        out += [os.path.join(folder, n) for n in sorted(os.listdir(folder)) if n.endswith(".instructions.md")]
    except OSError:
        pass
    return out


#: user-level instruction files of Copilot CLI, pi and OpenCode (beside Claude's, Codex's, Gemini's)
MORE_USER_FILES = (".copilot/copilot-instructions.md", ".pi/agent/AGENTS.md", ".config/opencode/AGENTS.md")


def user_instruction_files(home: str) -> list[str]:
    out = [p for rel in MORE_USER_FILES if os.path.isfile(p := os.path.join(home, rel)) or os.path.islink(p)]
    for rel in (".claude/CLAUDE.md", ".codex/AGENTS.md", ".codex/AGENTS.override.md", ".gemini/GEMINI.md"):
        p = os.path.join(home, rel)
        if os.path.isfile(p) or os.path.islink(p):
            out.append(p)
    gemini_home = os.environ.get("GEMINI_CLI_HOME")  # (the home Gemini CLI takes instead of the user's)
    if gemini_home:
        p = os.path.join(os.path.expanduser(gemini_home), ".gemini", "GEMINI.md")
        if (os.path.isfile(p) or os.path.islink(p)) and p not in out:
            out.append(p)
    rules = os.path.join(home, ".claude", "rules")
    try:
        out += [os.path.join(rules, n) for n in sorted(os.listdir(rules)) if n.endswith(".md")]
    except OSError:
        pass
    return out


def project_memory_dirs(project: str) -> list[str]:
    """Where a project keeps session notes: `<project>/memory/` and `<project>/.claude/memory/`."""
    return [os.path.join(project, "memory"), os.path.join(project, ".claude", "memory")]


def watched_memory_dirs(projects: Iterable[str]) -> list[str]:
    """The existing session-note folders of these projects: what a watcher follows besides the
    agents' roots (each is small; a project's own tree is never watched whole)."""
    return [d for p in sorted(set(projects)) if p for d in project_memory_dirs(p) if os.path.isdir(d)]


def memory_places(projects: Iterable[str], roots: Iterable[str], cwd: str | None = None) -> tuple[list[str], list[str]]:
    """Where memory is looked for without an explicit folder, by `memory list` and the app
    alike: the folder the user is in and the projects of the sessions (each project's
    `memory/`, `.claude/memory/` and instruction files), and the readable roots (Claude
    auto-memory under `projects/<escaped>/memory/`)."""
    places = [cwd] if cwd else []
    places += sorted({p for p in projects if p and p != cwd})
    return places, list(roots)


def describe_places(projects: list[str], roots: list[str], memory_dirs: Iterable[str] = (),
                    cwd: str | None = None) -> str:
    """Where `discover_memory(projects, roots, memory_dirs=...)` looked, in a sentence."""
    parts = []
    if cwd:
        parts.append(" and ".join(project_memory_dirs(cwd)) + " (the folder the app started in)")
    others = [p for p in projects if p != cwd]
    if others:
        parts.append(f"the memory/ folders of {len(others):,} project{'s' if len(others) != 1 else ''} "
                     "with sessions")
    if roots:
        parts.append(f"auto-memory under {len(roots):,} root{'s' if len(roots) != 1 else ''}")
    extra = list(memory_dirs)
    if extra:
        parts.append(", ".join(extra))
    if not parts:
        return "Looked nowhere: no project, root or memory folder is known."
    return "Looked in " + "; ".join(parts) + "."


def memory_dir_owner(folder: str) -> str:
    """The project a memory folder belongs to: `<p>/memory` and `<p>/.claude/memory` -> `<p>`."""
    parent = os.path.dirname(os.path.abspath(folder).rstrip(os.sep))
    return os.path.dirname(parent) if os.path.basename(parent) == ".claude" else parent


def _is_dir(entry: os.DirEntry[str]) -> bool:
    """Whether a directory entry is a folder; a symlink loop or an unreadable link is not (it
    must not end the scan of the folder that holds it)."""
    try:
        return entry.is_dir()
    except OSError:
        return False


def discover_memory(
    project_paths: Iterable[str],
    claude_projects_dirs: Iterable[str],
    *,
    memory_dirs: Iterable[str] = (),
    home: str | None = None,
) -> list[MemoryItem]:
    """Every memory and instruction file of the given projects, newest first.

    `project_paths` are project directories (the cwd of sessions); `claude_projects_dirs` are
    Claude Code `projects/` folders, whose `<escaped project>/memory/` hold auto-memory (mapped
    back to a project path when one of `project_paths` escapes to that name); `memory_dirs` are
    extra memory folders; `home`, when given, adds the user-level instruction files. Each file is
    listed once, under the most specific project that holds it."""
    items: list[MemoryItem] = []
    seen: set[str] = set()

    def add(new: Iterable[MemoryItem]) -> None:
        for it in new:
            key = os.path.abspath(it.path)
            if key not in seen:
                seen.add(key)
                items.append(it)

    for folder in memory_dirs:
        add(scan_memory_dir(folder, memory_dir_owner(folder)))
    projects = sorted({os.path.abspath(p) for p in project_paths if p and os.path.isdir(p)}, key=len, reverse=True)
    by_escaped = {claude_dir_name(p): p for p in projects}
    for p in projects:
        for folder in project_memory_dirs(p):
            add(scan_memory_dir(folder, p))
        add(instructions_item(f, p, home) for f in instruction_files(p) if os.path.abspath(f) not in seen)
    for cdir in claude_projects_dirs:
        try:
            with os.scandir(cdir) as it:
                subdirs = sorted(e.path for e in it if _is_dir(e))
        except OSError:
            continue
        for sub in subdirs:
            project = by_escaped.get(os.path.basename(sub), os.path.basename(sub))
            add(scan_memory_dir(os.path.join(sub, "memory"), project))
            summary = os.path.join(sub, "SUMMARY.md")
            if os.path.isfile(summary):
                add([summary_item(summary, project)])
    if home:
        add(instructions_item(f, USER_PROJECT, home) for f in user_instruction_files(home))
    items.sort(key=_newest_first)
    return items


_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


def _newest_first(item: MemoryItem) -> tuple[float, str]:
    return (-(item.timestamp or _EPOCH).timestamp(), item.path)


def group_by_project(items: Iterable[MemoryItem]) -> list[tuple[str, list[MemoryItem]]]:
    """Items grouped by project, groups ordered by their newest item, items newest first."""
    groups: dict[str, list[MemoryItem]] = {}
    for it in sorted(items, key=_newest_first):
        groups.setdefault(it.project, []).append(it)
    return list(groups.items())


# -- display ------------------------------------------------------------------------------------------
def render_note(item: MemoryItem, *, home: str | None = None) -> dict[str, Any]:
    """What a viewer shows for an item, read from disk now: the frontmatter (JSON-safe) and the
    body, the body's `## ` sections, and per kind the typed note, the index entries or the import
    tree (with each imported file's text). Never raises: problems are in `warnings`."""
    out: dict[str, Any] = {**item.to_dict(), "frontmatter": {}, "body": "", "sections": []}
    warnings = list(item.warnings)
    try:
        text, _ = read_text(item.path)
    except NoteCorrupt as exc:
        out["warnings"] = list(dict.fromkeys([*warnings, str(exc)]))
        return out
    doc = parse_markdown(text)
    out["frontmatter"] = jsonable(doc.metadata or {})
    out["body"] = doc.body
    preamble, sections = split_sections(doc.body)
    out["sections"] = ([{"title": "", "text": preamble}] if preamble else []) + [
        {"title": t, "text": s} for t, s in sections
    ]
    if item.kind == SESSION_NOTE and not doc.fatal and doc.metadata is not None:
        try:
            out["note"] = parse_note(text, path=item.path).to_dict()
        except NoteCorrupt:
            pass
    elif item.kind == AUTO_INDEX:
        entries, _ = parse_index(doc.body, os.path.dirname(item.path))
        out["entries"] = [e.to_dict() for e in entries]
    elif item.kind == INSTRUCTIONS:
        refs, _ = resolve_imports(item.path, text=doc.body, with_text=True, home=home)
        out["imports"] = [r.to_dict() for r in refs]
    out["warnings"] = warnings
    return out
