"""What the parsers of the simpler formats (Copilot CLI, pi, OpenCode) share: a `RecordParser`
that collects entries and noise, the session's times, models, tokens and title as records come,
and builds the `Session` in `finish()`.

Why: each of those formats needs only its own record-to-entry rules; the bookkeeping around them
(accounting, ids unique within the session, first/last times, the first prompt as title) is the
same, and written once here.
"""
from __future__ import annotations

import os
from dataclasses import replace
from datetime import datetime
from typing import Any, Iterable

from ..jsonl import ParsedLine
from ...model import Entry, EntryKind, Locator, Role, Session, SessionKind, TokenUsage, parse_timestamp, truncate
from .base import KeepingParser, LoadedSession, UsagePart


def text_of(content: Any, image: str = "[image]") -> str:
    """The text of a message content: a string, or a list of parts whose `text` is kept (an image
    part shows as `image`; other parts are skipped)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    out = []
    for part in content:
        if isinstance(part, str):
            out.append(part)
        elif isinstance(part, dict):
            if isinstance(part.get("text"), str):
                out.append(part["text"])
            elif part.get("type") in ("image", "image_url", "file"):
                out.append(image)
    return "\n".join(out)


def s(value: Any) -> str | None:
    """A non-empty string, else None."""
    return value if isinstance(value, str) and value else None


def count(value: Any) -> int:
    """A token count: a non-negative int, else 0."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def stem(path: str, suffixes: Iterable[str] = (".jsonl", ".json")) -> str:
    name = os.path.basename(path)
    for suffix in suffixes:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


class CollectingParser(KeepingParser):
    """A parser that keeps its entries, noise and session metadata; subclasses implement
    `convert` with `self.entry(...)` and set `session_id`, `project`, `named_title`, ... as
    their records tell."""

    agent = ""
    source_format = ""

    def __init__(self, path: str) -> None:
        super().__init__(path)
        self.warnings: list[str] = []
        self.session_id: str | None = None
        self.project: str | None = None
        self.git_branch: str | None = None
        self.kind = SessionKind.MAIN
        self.parent_id: str | None = None
        self.named_title: str | None = None  # a title the agent stored (wins over the first prompt)
        self.prompt_title: str | None = None
        self.models: list[str] = []
        self.usage = TokenUsage()
        self.usage_parts: list[UsagePart] = []
        self.first_ts: datetime | None = None
        self.last_ts: datetime | None = None
        self._ids: set[str] = set()

    # -- feeding -----------------------------------------------------------------------------
    def convert(self, parsed: ParsedLine) -> tuple[list[Entry], bool]:
        out: list[Entry] = []
        for value in parsed.values:
            try:
                got = self.record(value, parsed)
            except Exception:  # noqa: BLE001 - a record of an unexpected shape must not stop a load
                got = None
            if got is None:  # not understood: kept raw
                out.append(self.unknown_entry(parsed, self.type_of(value)))
            else:
                out.extend(got)
        return out, True

    def record(self, value: Any, parsed: ParsedLine) -> list[Entry] | None:
        """The entries of one record ([] for noise), None when it is not understood."""
        raise NotImplementedError

    def type_of(self, value: Any) -> str:
        """The type an unknown record is shown with ("" : its `type`, as for any format)."""
        if isinstance(value, dict) and len(value) <= 3:
            for key in ("_part", "_message", "item"):  # records handed over wrapped
                inner = value.get(key)
                if isinstance(inner, dict) and isinstance(inner.get("type"), str):
                    return inner["type"]
        return ""

    # -- helpers for subclasses ----------------------------------------------------------------
    def note_time(self, value: Any) -> datetime | None:
        ts = parse_timestamp(value)
        if ts is not None:
            if self.first_ts is None or ts < self.first_ts:
                self.first_ts = ts
            if self.last_ts is None or ts > self.last_ts:
                self.last_ts = ts
        return ts

    def note_model(self, model: Any) -> None:
        if isinstance(model, str) and model and model not in self.models:
            self.models.append(model)

    def add_usage(self, input: Any = 0, output: Any = 0, cache_read: Any = 0, cache_creation: Any = 0, *,
                  at: datetime | None = None, model: str | None = None) -> None:
        """Add tokens to the session's; `at` and `model` (when the record says them) place them
        for the usage pictures."""
        part = TokenUsage(count(input), count(output), count(cache_read), count(cache_creation))
        self.usage = self.usage + part
        self.usage_parts.append((at, model, part))

    def unique_id(self, wanted: str | None, parsed: ParsedLine, n: int = 0) -> str:
        """`wanted` (with `.n` for a record's later entries), else `L{line}`; never one used before."""
        base = wanted or f"L{parsed.raw.line}"
        ident = base if n == 0 else f"{base}.{n}"
        if ident in self._ids:
            ident = f"L{parsed.raw.line}" + (f".{n}" if n else "")
            while ident in self._ids:
                ident += "'"
        self._ids.add(ident)
        return ident

    def entry(self, parsed: ParsedLine, role: str, kind: EntryKind, text: str, *, ident: str | None = None,
              n: int = 0, timestamp: datetime | None = None, **fields: Any) -> Entry:
        """One entry of the record on `parsed` (its `n`-th), the first user text becoming the title."""
        if (self.prompt_title is None and role == Role.USER.value and kind is EntryKind.TEXT
                and text.strip()):
            self.prompt_title = " ".join(text.split())
        return Entry(id=self.unique_id(ident, parsed, n), role=role, kind=kind, text=text,
                     locator=self.locator(parsed), timestamp=timestamp, **fields)

    # -- finishing -----------------------------------------------------------------------------
    def session(self, **over: Any) -> Session:
        try:
            size = os.path.getsize(self.path)
        except OSError:
            size = 0
        title = self.named_title or self.prompt_title
        fields: dict[str, Any] = dict(
            id=self.session_id or stem(self.path),
            agent=self.agent,
            source_format=self.source_format,
            paths=(self.path,),
            kind=self.kind,
            project=self.project,
            title=truncate(title, 200) if title else None,
            first_timestamp=self.first_ts,
            last_timestamp=self.last_ts,
            entry_count=sum(1 for e in self.entries if e.kind is not EntryKind.MALFORMED),
            models=tuple(self.models),
            git_branch=self.git_branch,
            usage=self.usage,
            parent_id=self.parent_id,
            line_count=self.account.lines,
            malformed_count=self.account.malformed,
            noise_count=self.account.noise,
            size=size,
        )
        fields.update(over)
        return Session(**fields)

    def finish(self) -> list[LoadedSession]:
        return [LoadedSession(self.session(), self.entries, self.noise, self.account, self.warnings,
                              self.usage_parts)]


def off_branch(entries: list[Entry], parents: dict[str, str | None], leaf: str | None,
               record_of: dict[str, str]) -> list[Entry]:
    """`entries` with those whose record is not an ancestor of `leaf` (nor `leaf`) marked off the
    active branch. `parents` maps record id -> parent record id, `record_of` entry id -> record id;
    entries of records without an id stay on the branch."""
    if leaf is None:
        return entries
    active: set[str] = set()
    node: str | None = leaf
    while node is not None and node not in active:
        active.add(node)
        node = parents.get(node)
    out = []
    for e in entries:
        rec = record_of.get(e.id)
        out.append(replace(e, on_active_branch=False) if rec is not None and rec not in active else e)
    return out


__all__ = ["CollectingParser", "count", "off_branch", "s", "stem", "text_of"]
