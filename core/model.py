"""The domain model: sessions, entries, locators and token usage as frozen dataclasses.

Everything the adapters produce and the CLI, index and app consume. Plain data only, so it can be
cached, compared in tests and sent across threads without locks.
"""
from __future__ import annotations

from dataclasses import field
from datetime import datetime, timezone
from enum import Enum
from typing import Any

from .records import record


class EntryKind(str, Enum):
    TEXT = "text"
    THINKING = "thinking"
    TOOL_USE = "tool_use"
    TOOL_RESULT = "tool_result"
    SUMMARY = "summary"
    COMPACTION = "compaction"
    SYSTEM = "system"
    META = "meta"
    MALFORMED = "malformed"
    UNKNOWN = "unknown"


class Role(str, Enum):
    USER = "user"
    ASSISTANT = "assistant"
    SYSTEM = "system"
    TOOL = "tool"


class SessionKind(str, Enum):
    MAIN = "main"
    SUBAGENT = "subagent"
    COMPACTION = "compaction"
    EXEC = "exec"
    WARMUP = "warmup"


@record(frozen=True, slots=True)
class Locator:
    """Where a record lives on disk: enough to open the exact entry again.

    `line` is 1-based. `offset` is the byte offset of the line's first byte.
    """

    path: str
    offset: int
    line: int

    def __str__(self) -> str:
        return f"{self.path}:{self.line}@{self.offset}"


@record(frozen=True, slots=True)
class TokenUsage:
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_creation: int = 0

    @property
    def total(self) -> int:
        return self.input + self.output + self.cache_read + self.cache_creation

    def __add__(self, other: TokenUsage) -> TokenUsage:
        return TokenUsage(
            self.input + other.input,
            self.output + other.output,
            self.cache_read + other.cache_read,
            self.cache_creation + other.cache_creation,
        )

    def to_dict(self) -> dict[str, int]:
        return {
            "input": self.input,
            "output": self.output,
            "cache_read": self.cache_read,
            "cache_creation": self.cache_creation,
            "total": self.total,
        }


@record(frozen=True, slots=True)
class Entry:
    """One displayable unit of a transcript: a text block, a tool call, a tool result, ...

    `id` is stable across runs and unique within its session. `message_id` groups the entries of
    one model reply (Claude writes one reply over several lines). `raw_type` is the record's own
    type string, for display of unknown records. `on_active_branch` is False for entries that
    live on an abandoned branch of a Claude conversation tree (rewind, edit, retry).
    """

    id: str
    role: str
    kind: EntryKind
    text: str
    locator: Locator
    parent_id: str | None = None
    timestamp: datetime | None = None
    tool_name: str | None = None
    tool_input: Any = None
    tool_use_id: str | None = None
    is_error: bool = False
    message_id: str | None = None
    raw_type: str = ""
    is_sidechain: bool = False
    on_active_branch: bool = True
    model: str | None = None

    def preview(self, max_chars: int) -> str:
        return truncate(self.text, max_chars)

    def to_dict(self, max_chars: int | None = None) -> dict[str, Any]:
        text = self.text if max_chars is None else truncate(self.text, max_chars)
        return {
            "entry_id": self.id,
            "parent_id": self.parent_id,
            "role": self.role,
            "kind": self.kind.value,
            "timestamp": iso(self.timestamp),
            "content": text,
            "tool_name": self.tool_name,
            "is_error": self.is_error,
            "locator": {
                "path": self.locator.path,
                "offset": self.locator.offset,
                "line": self.locator.line,
            },
        }


@record(frozen=True, slots=True)
class Session:
    """Metadata of one session (one transcript file, or a subagent run inside one)."""

    id: str
    agent: str
    source_format: str
    paths: tuple[str, ...]
    kind: SessionKind = SessionKind.MAIN
    project: str | None = None
    title: str | None = None
    first_timestamp: datetime | None = None
    last_timestamp: datetime | None = None
    entry_count: int = 0
    models: tuple[str, ...] = ()
    git_branch: str | None = None
    usage: TokenUsage = field(default_factory=TokenUsage)
    parent_id: str | None = None
    child_ids: tuple[str, ...] = ()
    line_count: int = 0
    malformed_count: int = 0
    noise_count: int = 0
    size: int = 0

    @property
    def path(self) -> str:
        return self.paths[0]

    def to_dict(self) -> dict[str, Any]:
        return {
            "session_id": self.id,
            "agent_id": self.agent,
            "source_plugin": self.source_format,
            "kind": self.kind.value,
            "project": self.project,
            "title": self.title,
            "entry_count": self.entry_count,
            "first_timestamp": iso(self.first_timestamp),
            "last_timestamp": iso(self.last_timestamp),
            "models": list(self.models),
            "git_branch": self.git_branch,
            "tokens": self.usage.to_dict(),
            "parent_session_id": self.parent_id,
            "child_session_ids": list(self.child_ids),
            "paths": list(self.paths),
            "lines": self.line_count,
            "malformed_lines": self.malformed_count,
            "noise_records": self.noise_count,
        }


def truncate(text: str, max_chars: int) -> str:
    if len(text) <= max_chars:
        return text
    return text[: max(0, max_chars - 1)] + "…"


def iso(ts: datetime | None) -> str | None:
    if ts is None:
        return None
    return ts.astimezone(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


_fromisoformat = datetime.fromisoformat


def parse_timestamp(value: Any) -> datetime | None:
    """ISO-8601 strings (with `Z`), epoch seconds or epoch milliseconds; None when unusable."""
    if type(value) is str and len(value) == 24 and value[23] == "Z" and value[10] == "T":
        # The agents' usual form (`2026-02-19T17:16:55.644Z`, a listing reads two a file) parsed
        # as is: no strip, no `+00:00` spliced in (`Z` is UTC to `fromisoformat` since 3.11).
        # Whatever this does not parse goes the long way (tests/core/test_model.py holds both
        # ways equal on this shape).
        try:
            ts = _fromisoformat(value)
        except ValueError:
            ts = None
        if ts is not None and ts.tzinfo is not None:
            return ts
    return _parse_timestamp(value)


def _parse_timestamp(value: Any) -> datetime | None:
    """`parse_timestamp` the long way: any form it takes."""
    try:
        if isinstance(value, str) and value:
            v = value.strip()
            if v.endswith("Z"):
                v = v[:-1] + "+00:00"
            ts = datetime.fromisoformat(v)
            if ts.tzinfo is None:
                ts = ts.replace(tzinfo=timezone.utc)
            return ts
        if isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
            seconds = value / 1000.0 if value > 1e11 else float(value)
            return datetime.fromtimestamp(seconds, tz=timezone.utc)
    except (ValueError, OverflowError, OSError):
        return None
    return None
