"""The memory manager's public API in one import: session notes and agent memory files.

Why a facade: the CLI and the app's timeline pane should not care that notes (read in `notes`
and `load`, written in `save`) and the agent's other memory (read-only, `agent` and `imports`)
live in several modules.
"""
from __future__ import annotations

from .agent import (
    AUTO_INDEX,
    AUTO_TOPIC,
    INSTRUCTIONS,
    KINDS,
    SESSION_NOTE,
    SUMMARY,
    MemoryItem,
    claude_dir_name,
    describe_places,
    discover_memory,
    group_by_project,
    memory_places,
    project_memory_dirs,
    render_note,
    watched_memory_dirs,
)
from .imports import ImportRef, find_imports, resolve_imports
from .load import LoadResult, ago, find_notes, load_last, resume_line
from .markdown import NoteCorrupt
from .notes import (
    SCHEMA_VERSION,
    STATUSES,
    Decision,
    NoteError,
    SessionNote,
    normalize_stamp,
    note_from_json,
    note_from_source,
    parse_note,
    read_note,
)
from .save import NoteUpdate, SaveResult, save_note

__all__ = [
    "AUTO_INDEX", "AUTO_TOPIC", "INSTRUCTIONS", "KINDS", "SESSION_NOTE", "SUMMARY", "ImportRef",
    "MemoryItem", "claude_dir_name", "describe_places", "discover_memory", "memory_places", "find_imports", "group_by_project",
    "project_memory_dirs", "render_note", "resolve_imports", "watched_memory_dirs", "SCHEMA_VERSION", "STATUSES",
    "Decision", "LoadResult", "NoteCorrupt", "NoteError", "NoteUpdate", "SaveResult", "SessionNote",
    "ago", "find_notes", "load_last", "normalize_stamp", "note_from_json", "note_from_source",
    "parse_note", "read_note", "resume_line", "save_note",
]
