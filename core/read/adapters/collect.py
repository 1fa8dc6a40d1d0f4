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

import orjson

from ..jsonl import ParsedLine
from ...model import Entry, EntryKind, Locator, Role, Session, SessionKind, TokenUsage, parse_timestamp, truncate
from .base import KeepingParser, LoadedSession, ResumingAdapter, UsagePart


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
        self._before: dict[str, Any] | None = None  # the carried state this parser went on from

    # -- reading on (the catalog's scan: core/catalog/library.py `_read_on`) -------------------
    #: the version of `carry`'s shape (a state of another version is not taken up: read whole)
    CARRY_VERSION = 1

    def carry(self) -> bytes | None:
        """What the session depends on of the lines read so far, as JSON: the scalar metadata,
        titles cut to what a title can show, models, tokens, times, counts, and the subclass's
        own (`carry_own`); None when that cannot be carried (the file is then read whole when it
        grows). Entry ids are not carried: they name entries, not the session."""
        own = self.carry_own()
        if own is None:
            return None
        before = self._before or {}
        account = self.account
        return orjson.dumps({
            "v": self.CARRY_VERSION, "format": self.source_format, "own": own,
            "session_id": self.session_id, "project": self.project, "git_branch": self.git_branch,
            "kind": self.kind.value, "parent_id": self.parent_id,
            "named_title": carried_title(self.named_title), "prompt_title": carried_title(self.prompt_title),
            "models": self.models, "usage": [self.usage.input, self.usage.output, self.usage.cache_read,
                                             self.usage.cache_creation],
            "first": self.first_ts.isoformat() if self.first_ts else None,
            "last": self.last_ts.isoformat() if self.last_ts else None,
            "entries": before.get("entries", 0) + _counted(self.entries),
            "account": [a + b for a, b in zip(before.get("account", (0, 0, 0, 0)),
                                              (account.lines, account.conversation, account.noise,
                                               account.malformed))],
        })

    def resume(self, blob: bytes) -> bool:
        """Take up the state `carry` gave (False: not this version's or this format's)."""
        state = orjson.loads(blob)
        if (not isinstance(state, dict) or state.get("v") != self.CARRY_VERSION
                or state.get("format") != self.source_format or not self.resume_own(state["own"])):
            return False
        self.session_id, self.project = state["session_id"], state["project"]
        self.git_branch, self.kind, self.parent_id = state["git_branch"], SessionKind(state["kind"]), state["parent_id"]
        self.named_title, self.prompt_title = state["named_title"], state["prompt_title"]
        self.models = list(state["models"])
        self.usage = TokenUsage(*state["usage"])
        self.first_ts = datetime.fromisoformat(state["first"]) if state["first"] else None
        self.last_ts = datetime.fromisoformat(state["last"]) if state["last"] else None
        self._before = state
        return True

    def carry_own(self) -> object:
        """The subclass's own state the session depends on, JSON-able (None: cannot carry)."""
        return {}

    def resume_own(self, own: Any) -> bool:
        """Take up `carry_own`'s value (False: cannot)."""
        return own == {}

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
            entry_count=_counted(self.entries),
            models=tuple(self.models),
            git_branch=self.git_branch,
            usage=self.usage,
            parent_id=self.parent_id,
            line_count=self.account.lines,
            malformed_count=self.account.malformed,
            noise_count=self.account.noise,
            size=size,
        )
        before = self._before
        if before is not None:  # read on: the lines before count too
            lines, _conversation, noise, malformed = before["account"]
            fields.update(entry_count=fields["entry_count"] + before["entries"],
                          line_count=fields["line_count"] + lines,
                          malformed_count=fields["malformed_count"] + malformed,
                          noise_count=fields["noise_count"] + noise)
        fields.update(over)
        return Session(**fields)

    def finish(self) -> list[LoadedSession]:
        return [LoadedSession(self.session(), self.entries, self.noise, self.account, self.warnings,
                              self.usage_parts, carry=self.carry)]


class CollectingAdapter(ResumingAdapter):
    """An adapter of a `CollectingParser` format whose JSONL files only grow by appended lines:
    a grown file is read on from the state its reading so far carried (`CollectingParser.carry`)."""


#: characters of a title kept when carried: `truncate(" ".join(t.split()), 200)` of the cut text is
#: that of the whole one (over 201 characters either way, the same first 199 shown)
_TITLE_KEEP = 400


def carried_title(text: str | None) -> str | None:
    """A title candidate as a reading on carries it (cut to `_TITLE_KEEP` characters)."""
    return text[:_TITLE_KEEP] if text is not None else None


def _counted(entries: list[Entry]) -> int:
    return sum(1 for e in entries if e.kind is not EntryKind.MALFORMED)


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


__all__ = ["CollectingAdapter", "CollectingParser", "carried_title", "count", "off_branch", "s", "stem", "text_of"]
