"""The "session-logs" format: a plain JSONL transcript that any agent or exporter can write.

Why: agents without an adapter of their own (and tools converting from formats we do not read)
get browsed, searched and indexed by writing this one documented shape; it is also what the
CLI's JSON export of a session holds, so an export reads back in.

Format (UTF-8 JSONL, one JSON object per line):

Line 1 is the header:

    {"session_id": "…",              required, string, unique for the agent
     "agent_id": "…",                required, string: the agent that wrote it, e.g. "my-agent"
     "source_plugin": "…",           optional, the writer/format name (default "session-logs")
     "started_at": "ISO-8601",       required, e.g. "2026-01-31T09:15:00Z"
     "project": "…" or "cwd": "…",   optional, the working directory (project wins)
     "title": "…",                   optional
     "model": "…" or "models": […],  optional
     "git_branch", "parent_session_id", "kind" (main|subagent|compaction|exec|warmup),
     "tokens": {"input", "output", "cache_read", "cache_creation"}   optional}

Every further line is one entry:

    {"role": "user" | "assistant" | "system" | "tool",                       required
     "content": "text" | [{"type": "text", "text": "…"}, …],                  required
     "timestamp": "ISO-8601",                                                 required
     "id": "…" (or "entry_id"), "parent_id": "…",                            optional
     "kind": "text" | "thinking" | "tool_use" | "tool_result" | "summary" | "compaction"
             | "system" | "meta" | "unknown",                                 optional
     "tool_name": "…", "tool_input": <any JSON>, "tool_use_id": "…",         optional
     "is_error": true | false, "model": "…"}                                  optional

Reading rules (lenient, never raising on content):
  * agent = the header's `agent_id`, source format = its `source_plugin` (or "session-logs");
    a numeric `session_id`/`agent_id` reads as its digits, any other non-string is reported
    (a warning) and the file name (or agent "unknown") stands in;
  * without a header the file still reads: id from the file name, agent "unknown", a warning;
    its first line must then be an entry with `role`, `content` and `timestamp` and no key
    other than an entry's (so no other agent's records are taken for one);
  * content parts other than text are kept by their `text` if they have one, else skipped;
  * `kind` defaults to tool_result for role tool, tool_use when `tool_name` and `tool_input` are
    given, else text; an unknown kind falls back to that default, "malformed" (reserved for
    lines we cannot parse) reads as unknown; an unknown role reads as system;
  * the entry id is the line's `id` (or `entry_id`), else `L{line}`; a repeated id gets `L{line}`;
  * the CLI's export names (`first_timestamp` for `started_at`, `models`, `tokens`,
    `parent_session_id`, `entry_id`) are accepted, so an exported session reads back;
  * timestamps may also be epoch seconds or milliseconds;
  * blank lines and a repeated header are noise, lines that are not JSON are malformed, JSON that
    is neither header nor entry (no `role` and no `content`) is kept as an unknown entry.
"""
from __future__ import annotations

import os
from dataclasses import replace
from datetime import datetime
from typing import Any

from ..jsonl import ParsedLine, RecordFile
from ...model import (
    Entry,
    EntryKind,
    Locator,
    Role,
    Session,
    SessionKind,
    TokenUsage,
    parse_timestamp,
    truncate,
)
from ..ends import FIELDS, Ends, QuickMeta, first_json_lines, last_stamp
from .base import Adapter, Extension, KeepingParser, LoadedSession, RecordParser
from .collect import CarriedIds, carried_state, count

DEFAULT_SOURCE = "session-logs"
_ROLES = frozenset(r.value for r in Role)
_KINDS = {k.value: k for k in EntryKind}
_SESSION_KINDS = {k.value: k for k in SessionKind}


#: the keys an entry line may have (the format's, and those of the CLI's export)
ENTRY_KEYS = frozenset({
    "role", "content", "timestamp", "id", "entry_id", "parent_id", "kind", "tool_name",
    "tool_input", "tool_use_id", "is_error", "model", "message_id", "locator",
})


def is_header(value: Any) -> bool:
    """A header line: `session_id` and `agent_id` both given. Of any type: a number is read as
    its digits, anything else is reported (`header_problems`) rather than the file dropped."""
    return isinstance(value, dict) and "session_id" in value and "agent_id" in value


def header_problems(header: dict[str, Any]) -> list[str]:
    """What of a header cannot be used as it is (its identity then comes from elsewhere)."""
    return [f"header {key} {header.get(key)!r} is not a string: "
            + ("the file name stands in" if key == "session_id" else f"agent {SessionLogsAdapter.agent!r}")
            for key in ("session_id", "agent_id") if _ident(header.get(key)) is None]


def is_entry_line(value: Any) -> bool:
    """A headerless file's first line, strictly: an entry with `role`, `content` and `timestamp`
    and no key outside the format's. Strict because this sniffer is tried first: other formats'
    records carry `type`, `message`, `payload`, ... and are never taken for entries."""
    return (
        isinstance(value, dict)
        and value.get("role") in _ROLES
        and isinstance(value.get("content"), (str, list))
        and parse_timestamp(value.get("timestamp")) is not None
        and value.keys() <= ENTRY_KEYS
    )


class SessionLogsAdapter(Adapter):
    name = DEFAULT_SOURCE
    continues = True
    carries = True  # (the entry ids' hashes: `SessionLogsParser.carry`)
    agent = "unknown"  # each file names its agent in the header
    suffixes = (".jsonl", ".jsonl.zst")

    def sniff(self, path: str, head: bytes) -> bool:
        """A header first, or (the README allows a file without one) an entry line first."""
        objs = first_json_lines(head, 1)
        return bool(objs) and (is_header(objs[0]) or is_entry_line(objs[0]))

    def parser(self, path: str) -> SessionLogsParser:
        return SessionLogsParser(path)

    def parser_on(self, path: str, carried: object = None) -> RecordParser | None:
        parser = self.parser(path)
        return parser if isinstance(carried, bytes) and parser.resume(carried) else None

    def extend(self, old: Session, tail: RecordParser, size: int,
               carried: object = None) -> Extension | None:
        session = _extend(old, tail, size) if isinstance(tail, SessionLogsParser) else None
        return Extension(session, tail.carry()) if session is not None else None  # type: ignore[union-attr]

    def read_grown(self, path: str, rf: RecordFile, offset: int, line: int,
                   old_end: int, carried: bytes | None = None) -> LoadedSession | None:
        """`Adapter.read_grown`: an entry is its own line's alone but for its id, which repeats
        none given before (else it is named by its line): the lines from `offset` read alone
        give the whole reading's last entries with the appended ones after them when no appended
        entry's id repeated one of before in the whole reading (`carried`'s clash line)."""
        state = carried_state(carried, SessionLogsParser.CARRY_VERSION, DEFAULT_SOURCE)
        if state is None:
            return None
        got = self.grown_session(self.parser(path), rf, offset, line, old_end)
        return got[0] if got is not None and state["clash"] < got[1] else None

    def quick(self, ends: Ends) -> QuickMeta:
        """The header (the sniffed first line) says almost everything; the first user entry
        titles a session without a header title, the last entry gives the last time."""
        header: dict[str, Any] | None = None
        title = first = None
        for values in ends.head_values():
            for value in values or ():
                if header is None and is_header(value):
                    header = value
                elif _is_entry(value):
                    role, kind = _role_kind(value)
                    title = title or _prompt_title(role, kind, _content_text(value.get("content")))
                    first = first or parse_timestamp(value.get("timestamp"))
            if header is not None and (title or _str(header.get("title"))) and first:
                break
        h = header or {}
        started = _started(h)
        last = last_stamp(ends, lambda v: parse_timestamp(v.get("timestamp")) if _is_entry(v) else None)
        unsure: set[str] = set()
        if not ends.whole:
            if header is None:
                unsure.update(FIELDS)
            if not (title or _str(h.get("title"))):
                unsure.add("title")
            if not (first or started):
                unsure.add("first_timestamp")
            if last is None:
                unsure.add("last_timestamp")
        # The header's start counts as a time too (before the entries, after them if it is odd).
        first = min((t for t in (started, first) if t is not None), default=None)
        last = max((t for t in (started, last) if t is not None), default=None)
        title = _str(h.get("title")) or title
        ident = _identity(h, ends.path)
        return ends.meta(self, unsure, agent=ident["agent"], format=ident["source_format"],
                         session_id=ident["id"], kind=ident["kind"], project=ident["project"],
                         title=truncate(title, 200) if title else None,
                         first_timestamp=first, last_timestamp=last)


def _extend(old: Session, tail: SessionLogsParser, size: int) -> Session | None:
    """`SessionLogsAdapter.extend`: a header decides only the first line's (a header line among
    the appended ones is read whole, as it may be the file's header); the rest adds up."""
    if tail._header is not None:
        return None
    firsts = [t for t in (old.first_timestamp, tail._first_ts) if t is not None]
    lasts = [t for t in (old.last_timestamp, tail._last_ts) if t is not None]
    title = old.title or (truncate(tail._title, 200) if tail._title else None)
    account = tail.account
    return replace(
        old, title=title, first_timestamp=min(firsts, default=None), last_timestamp=max(lasts, default=None),
        entry_count=old.entry_count + sum(1 for e in tail.entries if e.kind is not EntryKind.MALFORMED),
        models=(*old.models, *(m for m in tail._models if m not in old.models)),
        line_count=old.line_count + account.lines, malformed_count=old.malformed_count + account.malformed,
        noise_count=old.noise_count + account.noise, size=size)


class SessionLogsParser(KeepingParser, CarriedIds):
    """Header, then one entry per line; keeps the session's metadata as it goes."""

    def __init__(self, path: str) -> None:
        super().__init__(path)
        self.warnings: list[str] = []
        self._header: dict[str, Any] | None = None
        self._ids: set[str] = set()
        self._models: list[str] = []
        self._first_ts: datetime | None = None
        self._last_ts: datetime | None = None
        self._title: str | None = None
        self._entry_seen = False

    #: the version of `carry`'s shape
    CARRY_VERSION = 1

    def carry(self) -> bytes:
        """What reading on needs of the lines read: the hashes of the entry ids given (a new
        entry repeating one is named by its line, as in a whole reading) and the clash line."""
        return self.packed_ids({"v": self.CARRY_VERSION, "format": DEFAULT_SOURCE})

    def resume(self, blob: bytes) -> bool:
        """Take up what `carry` gave (False: another version's or format's)."""
        state = carried_state(blob, self.CARRY_VERSION, DEFAULT_SOURCE)
        if state is None:
            return False
        try:
            self.take_ids(blob, state)
        except ValueError:
            return False
        return True

    def convert(self, parsed: ParsedLine) -> tuple[list[Entry], bool]:
        out: list[Entry] = []
        for value in parsed.values:
            try:
                entry = self._value(value, parsed)
            except Exception:  # noqa: BLE001 - a line of an unexpected shape must not stop a load
                entry = self.unknown_entry(parsed)
            if entry is not None:
                out.append(entry)
        return out, True

    def _value(self, value: Any, parsed: ParsedLine) -> Entry | None:
        if is_header(value):
            if self._header is None and not self._entry_seen:
                self._set_header(value)
            return None
        if not isinstance(value, dict) or ("role" not in value and "content" not in value):
            return self.unknown_entry(parsed)
        self._entry_seen = True
        line = parsed.raw.line
        role, kind = _role_kind(value)
        tool_name = _str(value.get("tool_name"))
        tool_input = value.get("tool_input")
        entry_id = _str(value.get("id")) or _str(value.get("entry_id"))
        if entry_id is not None and self.id_used(entry_id):
            self.clash_line = line
            entry_id = None
        if entry_id is None:
            entry_id = f"L{line}"
        self._ids.add(entry_id)
        ts = parse_timestamp(value.get("timestamp"))
        self._note_ts(ts)
        text = _content_text(value.get("content"))
        model = _str(value.get("model"))
        if model and model not in self._models:
            self._models.append(model)
        if self._title is None:
            self._title = _prompt_title(role, kind, text)
        return Entry(
            id=entry_id,
            role=role,
            kind=kind,
            text=text,
            locator=self.locator(parsed),
            parent_id=_str(value.get("parent_id")),
            timestamp=ts,
            tool_name=tool_name,
            tool_input=tool_input,
            tool_use_id=_str(value.get("tool_use_id")),
            is_error=value.get("is_error") is True,
            message_id=_str(value.get("message_id")),
            raw_type=_str(value.get("kind")) or role,
            model=model,
        )

    def _set_header(self, header: dict[str, Any]) -> None:
        self._header = header
        self._note_ts(_started(header))
        models = header.get("models")
        for m in [header.get("model"), *(models if isinstance(models, list) else [])]:
            if isinstance(m, str) and m and m not in self._models:
                self._models.append(m)

    def _note_ts(self, ts: datetime | None) -> None:
        if ts is None:
            return
        if self._first_ts is None or ts < self._first_ts:
            self._first_ts = ts
        if self._last_ts is None or ts > self._last_ts:
            self._last_ts = ts

    def finish(self) -> list[LoadedSession]:
        h = self._header or {}
        if self._header is None:
            self.warnings.append("no session-logs header line: session id taken from the file name")
        else:
            self.warnings.extend(header_problems(h))
        title = _str(h.get("title")) or self._title
        try:
            size = os.path.getsize(self.path)
        except OSError:
            size = 0
        session = Session(
            **_identity(h, self.path),
            paths=(self.path,),
            title=truncate(title, 200) if title else None,
            first_timestamp=self._first_ts,
            last_timestamp=self._last_ts,
            entry_count=sum(1 for e in self.entries if e.kind is not EntryKind.MALFORMED),
            models=tuple(self._models),
            git_branch=_str(h.get("git_branch")),
            usage=_usage(h.get("tokens") or h.get("usage")),
            parent_id=_str(h.get("parent_session_id")) or _str(h.get("parent_id")),
            line_count=self.account.lines,
            malformed_count=self.account.malformed,
            noise_count=self.account.noise,
            size=size,
        )
        return [LoadedSession(session, self.entries, self.noise, self.account, self.warnings, carry=self.carry)]


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _ident(value: Any) -> str | None:
    """A header's id: a string as it is, a whole number as its digits (JSON writers that keep
    ids numeric), else None."""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return _str(value)


def _identity(h: dict[str, Any], path: str) -> dict[str, Any]:
    """The Session fields a header decides (the file name stands in for a missing id)."""
    raw_kind = h.get("kind")
    return {
        "id": _ident(h.get("session_id")) or _stem(path),
        "agent": _ident(h.get("agent_id")) or SessionLogsAdapter.agent,
        "source_format": _str(h.get("source_plugin")) or DEFAULT_SOURCE,
        "kind": _SESSION_KINDS.get(raw_kind, SessionKind.MAIN) if isinstance(raw_kind, str) else SessionKind.MAIN,
        "project": _str(h.get("project")) or _str(h.get("cwd")),
    }


def _role_kind(value: dict[str, Any]) -> tuple[str, EntryKind]:
    """An entry line's role and kind, with the defaults of the format."""
    role = value.get("role")
    role = role if role in _ROLES else Role.SYSTEM.value
    kind = _KINDS.get(value.get("kind")) if isinstance(value.get("kind"), str) else None
    if kind is EntryKind.MALFORMED:
        kind = EntryKind.UNKNOWN
    if kind is None:
        if role == Role.TOOL.value:
            kind = EntryKind.TOOL_RESULT
        elif _str(value.get("tool_name")) and value.get("tool_input") is not None:
            kind = EntryKind.TOOL_USE
        else:
            kind = EntryKind.TEXT
    return role, kind


def _prompt_title(role: str, kind: EntryKind, text: str) -> str | None:
    """The title a user's text entry gives a session without a header title."""
    if role == Role.USER.value and kind is EntryKind.TEXT and text.strip():
        return " ".join(text.split())
    return None


def _started(header: dict[str, Any]) -> datetime | None:
    return parse_timestamp(header.get("started_at", header.get("first_timestamp")))  # or the export's name


def _is_entry(value: Any) -> bool:
    return isinstance(value, dict) and ("role" in value or "content" in value) and not is_header(value)


def _stem(path: str) -> str:
    name = os.path.basename(path)
    for suffix in (".jsonl.zst", ".jsonl"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, str):
                parts.append(part)
            elif isinstance(part, dict) and isinstance(part.get("text"), str):
                parts.append(part["text"])
        return "\n".join(parts)
    return ""


def _usage(tokens: Any) -> TokenUsage:
    if not isinstance(tokens, dict):
        return TokenUsage()
    return TokenUsage(*(count(tokens.get(k)) for k in ("input", "output", "cache_read", "cache_creation")))


__all__ = ["SessionLogsAdapter", "SessionLogsParser", "is_header"]
