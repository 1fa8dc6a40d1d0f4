"""Gemini CLI chats (`~/.gemini/tmp/<project>/chats/session-*.json` and `.jsonl`).

Why: Gemini CLI keeps one file per chat in a folder named after the project's hash (or, since
its project registry, a short slug), in two formats over time; this adapter reads both and names
the project from what maps that hash to a folder.

Formats read (content-sniffed, see FORMATS.md §3):
  * legacy single JSON (until spring 2026): one pretty-printed document rewritten on every
    message, `{"sessionId", "projectHash", "startTime", "lastUpdated", "kind"?, "summary"?,
    "messages": [...]}`. Read whole (`base.load_json_document`): the header, then one record per
    message, located where its JSON starts; its `account` counts records, not lines.
  * JSONL (2026): line 1 the same metadata without `messages`, then one message record per line,
    **re-appended with the same `id` when it is updated** (tool calls and results arriving): the
    last version wins, at the place of the first; the lines of earlier versions become noise.
    `{"$set": {...}}` patches the metadata (noise), `{"$rewindTo": "<id>"}` rewinds: that
    message and everything after it are kept, marked off the active branch (`b` shows them).
    A grown chat is read on from its last line (`GeminiParser.carry`), unless the new lines
    write again a message other than the last one or rewind into the lines read before.

Messages: `type` user (`content` a string or a list of parts; `displayContent`, what the user
typed, is shown when it has text), gemini (`thoughts` -> one THINKING entry, `content` -> TEXT,
each of `toolCalls` -> TOOL_USE plus its TOOL_RESULT from the `functionResponse` parts or
`resultDisplay`; `status: error` marks the result an error), info / warning / error -> SYSTEM.
Other types are kept as unknown records. Entry ids: the message id, `<id>.thinking`,
`<id>.<call id>` and `<id>.<call id>.result`.

Tokens (`tokens` on gemini messages, counted once per message id): Gemini's `input` includes
`cached`, so input = input - cached (+ `tool`, the tool-use prompt), cache_read = cached,
output = output + thoughts.

Project: the folder the chat's project folder maps to, first found of: the `.project_root`
marker Gemini's registry writes into the project's temp folder; a metadata `directories` entry
whose sha256 is `projectHash`; Gemini's registry `projects.json` (path -> slug, beside `tmp/`);
the sha256 of the working directory, its parents, and the folders of the config's
`project_roots` (each and its direct subfolders). Else the hash itself (the library replaces it
by a known session's project that hashes to it, core/catalog/library.py).
"""
from __future__ import annotations

import hashlib
import os
import re
from dataclasses import replace
from datetime import datetime
from functools import lru_cache
from typing import Any, Iterator

import orjson

from ..jsonl import HeadTail, ParsedLine, RecordFile
from ..passes import once
from ...model import Entry, EntryKind, Locator, Role, Session, SessionKind, TokenUsage, parse_timestamp, truncate
from ..ends import (FIELDS, Ends, Lines, QuickMeta, first_json_lines, last_stamp, last_stamp_of, line_values,
                    one_spaced, tail_values)
from .base import Extension, LoadedSession, RecordParser, ResumingAdapter, UsagePart, load_json_document
from .collect import carried_title, count
from .base import json_text as _dumps

_loads, _DecodeError = orjson.loads, orjson.JSONDecodeError

NAME = "gemini-cli"
AGENT = "gemini-cli"
_HEX64 = re.compile(r"[0-9a-f]{64}")
_JSON_HEAD = re.compile(rb'\A(?:\xef\xbb\xbf)?\s*\{\s*"sessionId"\s*:\s*"([^"\\]*)"\s*,\s*"projectHash"\s*:')
_SYSTEM_TYPES = {"info": False, "warning": False, "error": True}
_BOM = b"\xef\xbb\xbf"


def is_metadata(value: Any) -> bool:
    """A chat's metadata record: `sessionId` and `projectHash`, no message `type`."""
    return isinstance(value, dict) and "sessionId" in value and "projectHash" in value and "type" not in value


_CHATS = f"{os.sep}chats{os.sep}"


class GeminiAdapter(ResumingAdapter):
    name = NAME
    agent = AGENT
    suffixes = (".jsonl", ".json")

    def likely(self, path: str) -> bool:
        """`chats/session-<time>-<id8>.jsonl` (the legacy `.json` too)."""
        return _CHATS in path and os.path.basename(path).startswith("session-")

    def sniff(self, path: str, head: bytes) -> bool:
        if path.endswith(".json"):
            return _JSON_HEAD.match(head) is not None
        objs = first_json_lines(head, 1)
        return bool(objs) and is_metadata(objs[0])

    def parser(self, path: str) -> GeminiParser:
        return GeminiParser(path)

    def grows(self, path: str) -> bool:
        return not path.endswith(".json")  # the legacy chat is rewritten whole on every message

    def extend(self, old: Session, tail: RecordParser, size: int,
               carried: object = None) -> Extension | None:
        """Read on (`ResumingAdapter`) unless the appended lines write again a message read
        before other than the last one, rewind into the lines read, or hold a line of several
        records: then read whole."""
        if not isinstance(tail, GeminiParser) or tail.refused or tail._multi:
            return None
        return super().extend(old, tail, size, carried)

    def read_grown(self, path: str, rf: RecordFile, offset: int, line: int,
                   old_end: int, carried: bytes | None = None) -> LoadedSession | None:
        """`Adapter.read_grown`: the lines from `offset` read as a file of their own. A chat's
        lines depend on earlier ones only by message id (a message written again takes the place
        of its first version; a rewind takes its target and what follows off the branch), and the
        scan read every line appended since on (`extend`), which refuses a message read before
        written again (but the last one, the open message, whose entries end the window's), a
        rewind into the lines read, and a line of several records: so the appended lines place
        their messages after the window's, as in a whole reading."""
        if not self.grows(path):
            return None
        parser = self.parser(path)
        got = self.grown_session(parser, rf, offset, line, old_end)
        return got[0] if got is not None and not parser._multi else None

    def load(self, path: str, record_file: RecordFile | None = None) -> list[LoadedSession]:
        if path.endswith(".json"):
            return load_json_document(self.parser(path), path, "messages")
        return super().load(path, record_file)

    def quick(self, ends: Ends) -> QuickMeta:
        """JSONL: the metadata line gives id, kind, start and project; the first user message the
        title unless a summary may come later; the tail the last time. A legacy JSON document is
        parsed when it was read whole, else only its id is known."""
        if ends.path.endswith(".json"):
            listed = _quick_document(self, ends) if ends.whole else None
            if listed is not None:
                return listed
            if ends.whole:
                s = self.load(ends.path)[0].session
                return ends.meta(self, (), session_id=s.id, kind=s.kind, project=s.project,
                                 title=s.title, first_timestamp=s.first_timestamp,
                                 last_timestamp=s.last_timestamp)
            m = _JSON_HEAD.match(ends.head.buf)
            sid = m.group(1).decode("utf-8", "replace") if m and m.group(1) else None
            return ends.meta(self, [f for f in FIELDS if f != "session_id" or not sid], session_id=sid)
        parser = self.parser(ends.path)
        title_seen = False
        rest = -1  # where the lines not read yet start (-1: none left)
        for piece in ends.head_pieces():
            values = ends.head.values(piece)
            if values is None:
                continue
            for value in values:
                parser.observe(value)
            if parser.meta is not None and parser.first_prompt is not None:
                title_seen = True
                if not ends.whole or parser.first_ts is not None:
                    rest = piece[1] + 1
                    break
        escapes = False
        if ends.whole and title_seen and rest >= 0:
            # The rest of a whole file can change the listing only by a `$set` patch (a summary
            # titles it): only the lines that may hold one are parsed, found by searching the
            # bytes for the key, not line by line (one spelled with escapes is not looked for).
            for values in _patch_lines(ends.head, rest):
                for value in values:
                    parser.observe(value)
            escapes = _rest_escapes(ends.head.buf, rest)
        return _jsonl_meta(self, ends.path, ends.size, ends.mtime, ends.whole, parser, title_seen,
                           last_stamp(ends, _stamp), escapes)

    def quick_lane(self, path: str, ht: HeadTail, nbytes: int, narrow: bool) -> QuickMeta | None:
        return _quick_lane(self, path, ht, nbytes, narrow)


def _jsonl_meta(adapter: GeminiAdapter, path: str, size: int, mtime: float, whole: bool,
                parser: _ChatHead, title_seen: bool, last: datetime | None,
                escapes: bool = False) -> QuickMeta:
    """A JSONL chat's listing from what `parser` observed of its head (`title_seen`: the head
    walk met the metadata and a prompt) and the last time its tail shows: `quick`'s answer, and
    its lane's. `escapes`: the rest of a whole file was searched for patches but holds a
    backslash (`_rest_escapes`): the title is then a guess, as a file's read at its ends is."""
    meta = parser.meta or {}
    # (a `$set` summary may come later and title the session)
    unsure = _SURE if whole and not escapes else _UNSURE[
        parser.meta is None, whole or not title_seen or meta.get("summary") is None, last is None]
    started, updated = meta.get("startTime"), meta.get("lastUpdated")
    first = parse_timestamp(started)
    # (the metadata's last time is often its start: then parsed once)
    updated = first if type(updated) is str and updated == started else parse_timestamp(updated)
    first = first or parser.first_ts
    # the latest of the tail's time, the metadata's and the first (the first of equal ones, as
    # `max` takes it)
    if updated is not None and (last is None or updated > last):
        last = updated
    if first is not None and (last is None or first > last):
        last = first
    ident = parser.identity()
    return QuickMeta(path, size, mtime, adapter.agent, adapter.name, ident["id"], ident["kind"],
                     ident["project"], parser.title(), first, last, unsure, whole)


_SURE: frozenset[str] = frozenset()
#: what a JSONL chat's listing from its ends leaves unsure, by (no metadata seen, the title unsure,
#: no last time seen)
_UNSURE = {(meta, title, last): frozenset(
    [*(FIELDS if meta else ()), *(("title",) if title else ()), *(("last_timestamp",) if last else ())])
    for meta in (False, True) for title in (False, True) for last in (False, True)}


def _quick_lane(adapter: GeminiAdapter, path: str, ht: HeadTail, nbytes: int,
                narrow: bool) -> QuickMeta | None:
    """`GeminiAdapter.quick_lane`: the listing of a JSONL chat whose first line is its metadata
    (the sniffer then takes it), its lines read straight from the buffers; None for any other
    file (a legacy document, another first line), for a whole file whose rest holds a patch
    other than Gemini's `lastUpdated` ones (`_simple_patches`), or when anything raises: the
    listing then asks as it does every format."""
    if narrow or not path.endswith(".jsonl"):
        return None
    try:
        return _lane(adapter, path, ht, nbytes)
    except Exception:  # noqa: BLE001 - the general way tells what went wrong
        return None


def _lane(adapter: GeminiAdapter, path: str, ht: HeadTail, nbytes: int) -> QuickMeta | None:
    head = ht.head
    start = 3 if head[:3] == _BOM else 0
    find, n = head.find, len(head)
    end = find(b"\n", start)
    if end < 0 or end >= nbytes:
        return None  # (the sniffer would see line 1 cut, or other lines)
    try:
        first = _loads(head[start:end])  # (a short line is copied sooner than viewed)
    except _DecodeError:
        return None
    if not is_metadata(first):
        return None  # the sniffer's first object is line 1's: not a chat's metadata, not this lane's
    whole = ht.tail is head
    chat = _ChatHead(path)
    chat.meta = dict(first)
    observe = chat.observe
    title_seen, rest = False, -1
    while True:  # `quick`'s head walk on, each complete line after the first
        start = end + 1
        end = find(b"\n", start)
        if end < 0:
            if not whole or start >= n:
                break
            end = n  # a whole file's unterminated end counts when it parses
        try:
            values: tuple[Any, ...] | None = (_loads(head[start:end]),)
        except _DecodeError:
            values = line_values(head[start:end])
            if values is None:
                continue
        for value in values:
            observe(value)
        if chat.first_prompt is not None:
            title_seen = True
            if not whole or chat.first_ts is not None:
                rest = end + 1
                break
    last, escapes = None, False
    if whole and title_seen and rest >= 0:
        patch = _simple_patches(head, rest)
        if patch is None:
            return None
        if patch:
            observe(patch[0])
            if patch[1]:  # the last line: the tail's last time, unless it shows none
                last = _stamp(patch[0])
        escapes = _rest_escapes(head, rest)
    if last is None:
        last = _last_time(ht.tail, whole)
    return _jsonl_meta(adapter, path, ht.size, ht.mtime, whole, chat, title_seen, last, escapes)


def _last_time(tail: bytes, whole: bool) -> datetime | None:
    """`last_stamp_of(tail_values(tail, whole), _stamp)`: the last line read straight when it
    ends the buffer with its newline, parses and has a time (a patch or a message, as Gemini
    writes them); any other end the general way."""
    n = len(tail)
    if tail[n - 1:] == b"\n":
        start = tail.rfind(b"\n", 0, n - 1) + 1
        if start > 3:  # (past a BOM; and not a window's first piece, cut)
            try:
                ts = _stamp(_loads(tail[start:n - 1]))
            except _DecodeError:
                ts = None
            if ts is not None:
                return ts
    return last_stamp_of(tail_values(tail, whole), _stamp)


def _simple_patches(buf: bytes, pos: int) -> tuple[Any, bool] | tuple[()] | None:
    """What `_patch_lines` gives from `pos` on (the rest of a whole file) when every patch there
    is one of Gemini's `lastUpdated` alone (each line of the shape `_patch_lines` takes for
    one): (the last one's value, whether its line is the file's last), or () when there is none;
    None for any other rest (a `$set` of another shape, a `$` before an escape, a last patch
    that does not parse), which the general way then reads. A key spelled with escapes is not
    looked for, as `_patch_lines` does not look (`_rest_escapes`).

    The usual rest first, with few steps a line (a chat holds one such patch a message): each
    `$` is found by memchr and the line around it taken as one slice, of the length of a patch
    whose value is a timestamp as Gemini writes it; all of them together are then held against
    that shape (`_STAMPED`: its digits as zeros) in one comparison. When they are not all of it,
    each `$` is looked at in turn (`_each_patch`)."""
    find = buf.find
    d = find(b"$", pos)
    if d < 0:
        return ()
    form = 0 if buf[d + 4:d + 7] == b'":{' else 1  # compact, or spaced as `json.dumps` writes it
    template, size = _STAMPED[form], len(_STAMPED[form]) - 3
    lines: list[bytes] = []
    take = lines.append
    while d >= 0:
        take(buf[d - 3:d + size])
        d = find(b"$", d + 1)
    if b"".join(lines).translate(_ZEROS) != template * len(lines):
        return _each_patch(buf, pos)
    values = line_values(lines[-1][1:-1])
    if values is None or len(values) != 1:
        return None
    return values[0], buf.rfind(b"$") + size >= len(buf)


def _each_patch(buf: bytes, pos: int) -> tuple[Any, bool] | tuple[()] | None:
    """`_simple_patches` looking at each `$` from `pos` on in turn: a patch of `lastUpdated`
    alone of any value (`_UPDATED`), or a `$` that cannot begin a `$set` key (not followed by
    `set` or an escape)."""
    find, n = buf.find, len(buf)
    compact, spaced = _UPDATED
    last = q = -1
    d = find(b"$", pos)
    while d >= 0:
        if buf[d - 3:d + 24] == spaced:
            q = find(b'"', d + 24)
        elif buf[d - 3:d + 22] == compact:
            q = find(b'"', d + 22)
        elif buf[d + 1:d + 4] == b"set" or buf[d + 1:d + 2] == b"\\":
            return None  # a patch of another shape (or a key that may spell one)
        else:
            d = find(b"$", d + 1)
            continue
        if buf[q:q + 4] != b'"}}\n' and (q + 3 != n or buf[q:q + 3] != b'"}}'):
            return None
        last = d
        d = find(b"$", q)
    if last < 0:
        return ()
    values = line_values(memoryview(buf)[last - 2:q + 3])
    if values is None or len(values) != 1:
        return None
    return values[0], q + 4 >= n


def _quick_document(adapter: GeminiAdapter, ends: Ends) -> QuickMeta | None:
    """A legacy chat read whole, listed from its parsed document without building its entries:
    what the parser's metadata hook (`observe`) makes of its header and messages, fed as
    `load_json_document` feeds them; its times those of its first and last records, as a JSONL
    chat's listing takes them. None when it is not a JSON object holding a list of messages
    (the full parse says what it is)."""
    buf = ends.head.buf
    try:
        doc = orjson.loads(buf[3:] if buf.startswith(b"\xef\xbb\xbf") else buf)
    except orjson.JSONDecodeError:
        return None
    messages = doc.get("messages") if isinstance(doc, dict) else None
    if not isinstance(messages, list):
        return None
    parser = adapter.parser(ends.path)
    parser.observe({k: v for k, v in doc.items() if k != "messages"})
    for value in messages:
        parser.observe(value)
    meta = parser.meta or {}
    first = parse_timestamp(meta.get("startTime")) or parser.first_ts
    last = next((t for value in reversed(messages) if (t := _stamp(value)) is not None), None)
    last = max((t for t in (last, parse_timestamp(meta.get("lastUpdated")), first) if t), default=None)
    ident = parser.identity()
    return ends.meta(adapter, (), session_id=ident["id"], kind=ident["kind"], project=ident["project"],
                     title=parser.title(), first_timestamp=first, last_timestamp=last)


def _patch_lines(lines: Lines, pos: int, fast: bool = True) -> list[tuple[Any, ...]]:
    """The values of each line from `pos` on (the rest of a whole file) that may patch the
    metadata, in order, each line once: what a walk over the lines observes, without the walk.

    A patch has the key `$set`, found as such (each `$` by memchr): a key spelled with escapes
    (`\\u0024set`, which Gemini never writes) is not looked for, since looking costs more than
    reading the file (a search for a needle of six bytes crawls at ~0.45 ns a byte, and a real
    chat holds backslashes everywhere); `_rest_escapes` tells the caller when one could be there.
    A line that does not parse gives nothing; an unterminated last one counts only when it
    parses, as `Ends.head_pieces` has it.

    The patches that set `lastUpdated` alone, one per message in a chat, are not parsed but the
    last one of each run (before another patch, and at the end): each overwrites the one before.
    With `fast`, a line is taken for one by its shape, as Gemini writes it (`_UPDATED`: the key,
    then a string without a quote up to `"}}` and the line's end), without a pattern match:
    such a line either parses to exactly that patch or not at all (a string cut by a backslash,
    a control character or bytes that are not UTF-8), and either way the lines before it in its
    run change nothing the last one does not overwrite, so only the last one is parsed; should
    it not parse, the rest is looked at again with each line matched (`_LAST_UPDATED`), as
    before."""
    buf = lines.buf
    find, rfind, starts, n = buf.find, buf.rfind, buf.startswith, len(buf)
    simple = _LAST_UPDATED.fullmatch
    values_of = lines.values
    dollar = find(b"$", pos)  # (each `$` found by memchr: a search for `$set` crawls)
    pending: tuple[int, int] | None = None  # the last `lastUpdated` patch not observed yet
    out: list[tuple[Any, ...]] = []
    begin = pos
    updated = _UPDATED
    while True:
        if fast:
            # A run of lines as Gemini writes a patch of `lastUpdated` alone: the line's `$`
            # follows the newline before it and `{"` (compact, or spaced as `json.dumps` writes
            # it: `{` or a space after the colon). (One loop of few steps: a chat holds one such
            # line a message.)
            last = -1
            while dollar >= 0 and starts(updated, dollar - 3):
                q = find(b'"', dollar + 22 if buf[dollar + 6] == 123 else dollar + 24)
                if not starts(b'"}}\n', q) and (q + 3 != n or not starts(b'"}}', q)):
                    break
                last, pos = dollar, q + 4
                dollar = find(b"$", pos)
            if last >= 0:
                pending = (last - 2, pos - 1)
        while dollar >= 0 and not starts(b"$set", dollar):
            dollar = find(b"$", dollar + 1)
        if dollar < 0:
            break
        start = rfind(b"\n", pos, dollar) + 1 or pos
        end = find(b"\n", dollar)
        if end < 0:
            end = n
        if simple(buf, start, end):
            pending = (start, end)
        else:
            if pending is not None:
                if not (got := values_of(pending)):
                    return _patch_lines(lines, begin, fast=False)
                out.append(got)
                pending = None
            values = values_of((start, end))
            if values:
                out.append(values)
        pos = end + 1
        if 0 <= dollar < pos:
            dollar = find(b"$", pos)
    if pending is not None:
        if not (got := values_of(pending)):
            return _patch_lines(lines, begin, fast=False)
        out.append(got)
    return out


def _rest_escapes(buf: bytes, pos: int) -> bool:
    """Whether the rest of a whole file from `pos` holds a backslash, so a `$set` key spelled
    with escapes could be there, which `_patch_lines` and `_simple_patches` do not look for:
    the listing's title is then a guess, as a file's read at its ends is (one memchr, which a
    real chat ends at once: every reply of more than a line holds `\\n`)."""
    return buf.find(b"\\", pos) >= 0


#: how Gemini writes a patch of `lastUpdated` alone (JSON.stringify), from the newline before it
#: up to its value; spaced as Python's `json.dumps` writes it
_UPDATED = (b'\n{"$set":{"lastUpdated":"', b'\n{"$set": {"lastUpdated": "')

#: a patch of `lastUpdated` alone as Gemini writes one a message (`_UPDATED`, its value a time as
#: `Date.toISOString` writes it), from the newline before it to the one after, its digits zeros
#: (`_ZEROS`): compact, and spaced as `json.dumps` writes it
_STAMPED = tuple(u + b'0000-00-00T00:00:00.000Z"}}\n' for u in _UPDATED)
_ZEROS = bytes.maketrans(b"123456789", b"000000000")


#: a line that is one patch of `lastUpdated` alone, its value printable ASCII without escapes
_LAST_UPDATED = re.compile(rb'[ \t]*\{[ \t]*"\$set"[ \t]*:[ \t]*\{[ \t]*"lastUpdated"[ \t]*:[ \t]*'
                           rb'"[ !#-\[\]-~]*"[ \t]*\}[ \t]*\}[ \t\r]*')


def _stamp(value: Any) -> datetime | None:
    if not isinstance(value, dict):
        return None
    if isinstance(value.get("$set"), dict):
        return parse_timestamp(value["$set"].get("lastUpdated"))
    return parse_timestamp(value.get("timestamp")) or parse_timestamp(value.get("lastUpdated"))


class _Record:
    """One fed message version (or any other record that gave entries), in file order."""

    __slots__ = ("mid", "entries", "locator", "usage")

    def __init__(self, mid: str | None, entries: list[Entry], locator: Locator, usage: TokenUsage) -> None:
        self.mid = mid
        self.entries = entries
        self.locator = locator
        self.usage = usage


class _ChatHead:
    """What a chat's metadata and first records tell its session (`observe`): the metadata with
    its patches, the first prompt and the first time. `GeminiParser`'s metadata half, and all a
    quick listing keeps (`_lane`)."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.meta: dict[str, Any] | None = None
        self.first_prompt: str | None = None
        self.first_ts: datetime | None = None

    def observe(self, value: Any) -> None:
        """What a record tells the session (metadata, patches, the first prompt, times)."""
        if not isinstance(value, dict):
            return
        if is_metadata(value):
            if self.meta is None:
                self.meta = dict(value)
            return
        patch = value.get("$set")
        if isinstance(patch, dict):
            if self.meta is not None:
                self.meta.update(patch)
            return
        if self.first_ts is None:
            self.first_ts = parse_timestamp(value.get("timestamp"))
        if value.get("type") == "user" and self.first_prompt is None:
            text = _user_text(value).strip()
            if text:
                self.first_prompt = one_spaced(text)

    def title(self) -> str | None:
        summary = (self.meta or {}).get("summary")
        title = summary if isinstance(summary, str) and summary.strip() else self.first_prompt
        return truncate(one_spaced(title), 200) if title else None

    def identity(self) -> dict[str, Any]:
        meta = self.meta or {}
        sid = meta.get("sessionId")
        kind = SessionKind.SUBAGENT if meta.get("kind") == "subagent" else SessionKind.MAIN
        parent = None
        if kind is SessionKind.SUBAGENT:  # (its folder looked at only then: a listing asks every chat)
            folder = os.path.basename(os.path.dirname(self.path))
            if folder != "chats":
                parent = folder  # chats/<parent session id>/<session id>.jsonl
        return {
            "id": sid if isinstance(sid, str) and sid else _stem(self.path),
            "kind": kind,
            "parent_id": parent,
            "project": project_of(self.path, meta),
        }


class GeminiParser(RecordParser, _ChatHead):
    def __init__(self, path: str) -> None:
        super().__init__(path)
        self.meta: dict[str, Any] | None = None
        self.first_prompt: str | None = None
        self.first_ts: datetime | None = None
        self.records: list[_Record] = []
        self.noise: list[Locator] = []
        self.warnings: list[str] = []
        self._rewinds: list[tuple[str, int]] = []  # (message id, records fed before the rewind)
        # reading on (`carry`, `resume`): the state taken up, the ids of the messages read before
        # but the open one, what `finish` added up, a line of several records seen, and whether
        # these lines change what was read before (a message of it written again, a rewind into it)
        self._before: dict[str, Any] | None = None
        self._prior: frozenset[str] = frozenset()
        self._done: tuple[Any, ...] | None = None
        self._multi = False
        self.refused = False

    def forget(self) -> None:
        self.records.clear()
        self.noise.clear()

    # -- records -------------------------------------------------------------------------
    def feed(self, parsed: ParsedLine) -> list[Entry]:
        if len(parsed.values) > 1:
            self._multi = True
        entries = super().feed(parsed)
        if not entries:
            self.noise.append(self.locator(parsed))
        elif not parsed.ok or not any(isinstance(v, dict) and "id" in v and "type" in v for v in parsed.values):
            self.records.append(_Record(None, entries, self.locator(parsed), TokenUsage()))
        return entries

    def convert(self, parsed: ParsedLine) -> tuple[list[Entry], bool]:
        out: list[Entry] = []
        for value in parsed.values:
            self.observe(value)
            if not isinstance(value, dict):
                out.append(self.unknown_entry(parsed))
                continue
            if is_metadata(value) or isinstance(value.get("$set"), dict):
                continue
            target = value.get("$rewindTo")
            if isinstance(target, str):
                self._rewinds.append((target, len(self.records)))
                if self._before is not None and (target in self._prior or target == self._before["open"]):
                    self.refused = True
                continue
            mid, mtype = value.get("id"), value.get("type")
            if not isinstance(mid, str) or not isinstance(mtype, str):
                out.append(self.unknown_entry(parsed))
                continue
            if mid in self._prior:
                self.refused = True
            try:
                entries, usage = self._message(value, mid, mtype, parsed)
            except Exception:  # noqa: BLE001 - a message of an unexpected shape must not stop a load
                entries, usage = [self.unknown_entry(parsed)], TokenUsage()
            if entries:
                self.records.append(_Record(mid, entries, self.locator(parsed), usage))
            out.extend(entries)
        return out, True

    def _message(self, m: dict[str, Any], mid: str, mtype: str,
                 parsed: ParsedLine) -> tuple[list[Entry], TokenUsage]:
        loc = self.locator(parsed)
        ts = parse_timestamp(m.get("timestamp"))
        model = m.get("model") if isinstance(m.get("model"), str) else None
        if mtype == "user":
            return [Entry(mid, Role.USER.value, EntryKind.TEXT, _user_text(m), loc, timestamp=ts,
                          message_id=mid, raw_type=mtype)], TokenUsage()
        if mtype in _SYSTEM_TYPES:
            return [Entry(mid, Role.SYSTEM.value, EntryKind.SYSTEM, _parts_text(m.get("content")), loc,
                          timestamp=ts, is_error=_SYSTEM_TYPES[mtype], message_id=mid, raw_type=mtype)], TokenUsage()
        if mtype != "gemini":
            return [self.unknown_entry(parsed, mtype)], TokenUsage()
        out: list[Entry] = []
        common = {"timestamp": ts, "message_id": mid, "model": model, "raw_type": mtype}
        thoughts = _thoughts_text(m.get("thoughts"))
        if thoughts:
            out.append(Entry(f"{mid}.thinking", Role.ASSISTANT.value, EntryKind.THINKING, thoughts, loc, **common))
        text = _parts_text(m.get("content"))
        if text:
            out.append(Entry(mid, Role.ASSISTANT.value, EntryKind.TEXT, text, loc, **common))
        calls = m.get("toolCalls")
        for n, call in enumerate(calls if isinstance(calls, list) else ()):
            if not isinstance(call, dict):
                continue
            cid = call.get("id") if isinstance(call.get("id"), str) and call.get("id") else f"call{n}"
            name = call.get("name") if isinstance(call.get("name"), str) else "tool"
            out.append(Entry(f"{mid}.{cid}", Role.ASSISTANT.value, EntryKind.TOOL_USE, _dumps(call.get("args")),
                             loc, tool_name=name, tool_input=call.get("args"), tool_use_id=cid, **common))
            result = _result_text(call)
            if result is not None or "status" in call:
                out.append(Entry(f"{mid}.{cid}.result", Role.TOOL.value, EntryKind.TOOL_RESULT, result or "",
                                 loc, timestamp=parse_timestamp(call.get("timestamp")) or ts,
                                 tool_name=name, tool_use_id=cid, is_error=call.get("status") == "error",
                                 message_id=mid, raw_type="toolCall"))
        return out, _usage(m.get("tokens"))

    # -- the session ---------------------------------------------------------------------
    def finish(self) -> list[LoadedSession]:
        first_of: dict[str, int] = {}
        last_of: dict[str, int] = {}
        for i, rec in enumerate(self.records):
            if rec.mid is not None:
                first_of.setdefault(rec.mid, i)
                last_of[rec.mid] = i
        raw = (self.account.lines, self.account.conversation, self.account.noise, self.account.malformed)
        # An earlier version's line leaves the conversation (still shown raw, as noise).
        kept = {rec.locator for i, rec in enumerate(self.records) if rec.mid is None or last_of[rec.mid] == i}
        moved = 0
        for loc in dict.fromkeys(rec.locator for rec in self.records if rec.locator not in kept):
            self.account.conversation -= 1
            self.account.noise += 1
            self.noise.append(loc)
            moved += 1
        # A rewind takes its target message and everything fed after it (before the rewind).
        off: set[int] = set()
        for target, fed in self._rewinds:
            start = first_of.get(target)
            if start is not None:
                off.update(range(start, fed))
        entries = self._ordered(last_of, first_of, off)
        # What the session adds up to, from what the lines before carried (nothing, for a whole
        # read): each message's last version at the place of its first, the open message (the
        # last one of the lines before) perhaps written again here.
        state = self._before or _EMPTY
        opened = state["open"]
        x, x_off = state["x"], state["x_off"]
        if opened is not None and opened in last_of:
            x = _sum_of(self.records[last_of[opened]])
            moved += 1  # (its version read before leaves the conversation)
        placed = [(_sum_of(self.records[last_of[rec.mid]] if rec.mid is not None else rec), i in off, rec.mid)
                  for i, rec in enumerate(self.records)
                  if rec.mid is None or (first_of[rec.mid] == i and rec.mid != opened)]
        total = _plus(state["before"], (x, x_off), state["after"], *placed)
        self._done = (placed, x, x_off, moved, last_of, raw, total)
        ident = self.identity()
        meta = self.meta or {}
        if self.meta is None:
            self.warnings.append("no Gemini CLI metadata record: session id taken from the file name")
        first = parse_timestamp(meta.get("startTime")) or total["min"]
        last = max((t for t in (parse_timestamp(meta.get("lastUpdated")), total["max"], first) if t), default=None)
        try:
            size = os.path.getsize(self.path)
        except OSError:
            size = 0
        lines, _conversation, noise, malformed = (a + b for a, b in zip(state["raw"], raw))
        session = Session(
            id=ident["id"], agent=AGENT, source_format=NAME, paths=(self.path,), kind=ident["kind"],
            project=ident["project"], title=self.title(), first_timestamp=first, last_timestamp=last,
            entry_count=total["n"], models=tuple(total["models"]), usage=TokenUsage(*total["usage"]),
            parent_id=ident["parent_id"], line_count=lines, malformed_count=malformed,
            noise_count=noise + state["moved"] + moved, size=size)
        parts: list[UsagePart] = []
        for i in last_of.values():
            rec = self.records[i]
            if rec.usage.total:
                said = rec.entries[0] if rec.entries else None
                parts.append((said.timestamp if said else None, said.model if said else None, rec.usage))
        return [LoadedSession(session, entries, self.noise, self.account, self.warnings, parts, carry=self.carry)]

    # -- reading on (the catalog's scan: core/catalog/library.py `_read_on`) -----------------
    CARRY_VERSION = 1

    def carry(self) -> bytes | None:
        """What the session depends on of the lines read so far, as JSON (after `finish`): the
        metadata with its patches, the first prompt cut to what a title shows, the counts, and
        the messages' entry counts, models, times and tokens summed around the open message (the
        last one written: Gemini writes a message again as its tool calls arrive), kept apart,
        with the ids of all others. None after a line of several records, or when these lines
        could not be read on (`refused`)."""
        if self._done is None or self._multi or self.refused:
            return None
        placed, x, x_off, moved, last_of, raw, total = self._done
        state = self._before or _EMPTY
        opened = state["open"]
        newest = max(last_of, key=last_of.__getitem__) if last_of else opened
        before, after = state["before"], state["after"]
        if newest == opened:
            after = _plus(after, *placed)
        else:
            k = next(n for n, p in enumerate(placed) if p[2] == newest)
            before = _plus(before, (x, x_off), after, *placed[:k])
            x, x_off, after = placed[k][0], placed[k][1], _plus(_NONE, *placed[k + 1:])
        mids = [*state["mids"], *([opened] if opened is not None and opened != newest else []),
                *(mid for mid in last_of if mid not in (newest, opened))]
        return orjson.dumps({
            "v": self.CARRY_VERSION, "meta": self.meta, "prompt": carried_title(self.first_prompt),
            "first_ts": _iso(self.first_ts), "open": newest, "x": _sum_json(x), "x_off": x_off,
            "before": _sum_json(before), "after": _sum_json(after), "mids": mids,
            "moved": state["moved"] + moved, "raw": [a + b for a, b in zip(state["raw"], raw)],
            "usage": total["usage"]})

    def resume(self, blob: bytes) -> bool:
        """Take up the state `carry` gave (False: not this version's)."""
        state = orjson.loads(blob)
        if not isinstance(state, dict) or state.get("v") != self.CARRY_VERSION:
            return False
        state.update(x=_sum_load(state["x"]), before=_sum_load(state["before"]), after=_sum_load(state["after"]))
        self.meta, self.first_prompt = state["meta"], state["prompt"]
        self.first_ts = _time(state["first_ts"])
        self._prior = frozenset(state["mids"])
        self._before = state
        return True

    def _placed(self, rec: _Record, rewound: bool) -> list[Entry]:
        if not rewound:
            return rec.entries
        return [replace(e, on_active_branch=False) for e in rec.entries]

    def _ordered(self, last_of: dict[str, int], first_of: dict[str, int], off: set[int]) -> list[Entry]:
        """Entries in the order messages first appeared, each with its last version's content."""
        out: list[Entry] = []
        for i, rec in enumerate(self.records):
            if rec.mid is None:
                out.extend(self._placed(rec, i in off))
            elif first_of[rec.mid] == i:
                out.extend(self._placed(self.records[last_of[rec.mid]], i in off))
        return out


# -- reading on: what messages add up to ----------------------------------------------------------
#: a message's (or several's) part of the session: its entries counted (those on the active
#: branch), models in the order met, the first and last time of its entries, its tokens
Sum = dict

_NONE: Sum = {"n": 0, "models": [], "min": None, "max": None, "usage": [0, 0, 0, 0]}
#: the carried state of a reading from the top (nothing read before)
_EMPTY: dict[str, Any] = {"open": None, "x": None, "x_off": False, "before": _NONE, "after": _NONE, "mids": [],
                          "moved": 0, "raw": [0, 0, 0, 0], "usage": [0, 0, 0, 0]}


def _sum_of(rec: _Record) -> Sum:
    models: list[str] = []
    stamps = []
    for e in rec.entries:
        if e.model and e.model not in models:
            models.append(e.model)
        if e.timestamp and e.kind is not EntryKind.UNKNOWN:
            stamps.append(e.timestamp)
    u = rec.usage
    return {"n": sum(1 for e in rec.entries if e.kind is not EntryKind.MALFORMED), "models": models,
            "min": min(stamps, default=None), "max": max(stamps, default=None),
            "usage": [u.input, u.output, u.cache_read, u.cache_creation]}


def _plus(total: Sum, *parts: Any) -> Sum:
    """`total` with `parts` added (a new dict): sums, or `(sum, off the active branch, ...)`
    tuples whose entries are then not counted; a None sum adds nothing."""
    n, models, lo, hi, usage = total["n"], list(total["models"]), total["min"], total["max"], list(total["usage"])
    for part in parts:
        part, off = (part[0], part[1]) if isinstance(part, tuple) else (part, False)
        if part is None:
            continue
        n += 0 if off else part["n"]
        models.extend(m for m in part["models"] if m not in models)
        if part["min"] is not None and (lo is None or part["min"] < lo):
            lo = part["min"]
        if part["max"] is not None and (hi is None or part["max"] > hi):
            hi = part["max"]
        usage = [a + b for a, b in zip(usage, part["usage"])]
    return {"n": n, "models": models, "min": lo, "max": hi, "usage": usage}


def _iso(ts: datetime | None) -> str | None:
    return ts.isoformat() if ts is not None else None


def _time(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text else None


def _sum_json(s: Sum | None) -> Sum | None:
    return None if s is None else {**s, "min": _iso(s["min"]), "max": _iso(s["max"])}


def _sum_load(s: Sum | None) -> Sum | None:
    return None if s is None else {**s, "min": _time(s["min"]), "max": _time(s["max"])}


# -- content ---------------------------------------------------------------------------------
def _parts_text(content: Any) -> str:
    """A `PartListUnion` as text: a string, a part, or a list of them; the text of text parts
    (function calls and responses inside content are left to the tool call entries)."""
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        content = [content]
    if not isinstance(content, list):
        return ""
    out = []
    for part in content:
        if isinstance(part, str):
            out.append(part)
        elif isinstance(part, dict) and isinstance(part.get("text"), str) and not part.get("thought"):
            out.append(part["text"])
    return "".join(out)


def _user_text(m: dict[str, Any]) -> str:
    shown = _parts_text(m.get("displayContent"))
    return shown if shown.strip() else _parts_text(m.get("content"))


def _thoughts_text(thoughts: Any) -> str:
    if not isinstance(thoughts, list):
        return ""
    out = []
    for t in thoughts:
        if not isinstance(t, dict):
            continue
        subject = t.get("subject") if isinstance(t.get("subject"), str) else ""
        desc = t.get("description") if isinstance(t.get("description"), str) else ""
        out.append(f"**{subject}**\n{desc}" if subject and desc else subject or desc)
    return "\n\n".join(o for o in out if o)


def _result_text(call: dict[str, Any]) -> str | None:
    """A tool call's output: the `functionResponse` parts' `output` (or `error`, or the response
    as JSON), else `resultDisplay` when it is text; None when the call has no result yet."""
    result = call.get("result")
    parts = result if isinstance(result, list) else [result] if isinstance(result, dict) else []
    texts = []
    for part in parts:
        if not isinstance(part, dict):
            continue
        fr = part.get("functionResponse")
        if isinstance(fr, dict):
            resp = fr.get("response")
            if isinstance(resp, dict):
                value = resp.get("output", resp.get("error", resp))
                texts.append(value if isinstance(value, str) else _dumps(value))
            elif resp is not None:
                texts.append(resp if isinstance(resp, str) else _dumps(resp))
        elif isinstance(part.get("text"), str):
            texts.append(part["text"])
    if texts:
        return "\n".join(texts)
    display = call.get("resultDisplay")
    if isinstance(display, str) and display:
        return display
    if isinstance(display, dict):
        return _dumps(display)
    return None


def _usage(tokens: Any) -> TokenUsage:
    if not isinstance(tokens, dict):
        return TokenUsage()

    def n(key: str) -> int:
        return count(tokens.get(key))

    cached = n("cached")
    return TokenUsage(max(n("input") - cached, 0) + n("tool"), n("output") + n("thoughts"), cached, 0)


def _stem(path: str) -> str:
    name = os.path.basename(path)
    return name.rsplit(".", 1)[0] if "." in name else name


# -- the project ---------------------------------------------------------------------------------
def path_hash(folder: str) -> str:
    """Gemini's `projectHash` of a project folder: the sha256 of its absolute path."""
    return hashlib.sha256(folder.encode("utf-8", "surrogateescape")).hexdigest()


def project_of(path: str, meta: dict[str, Any]) -> str | None:
    """The project folder of the chat at `path` (see the module docstring), else its hash."""
    phash = meta.get("projectHash")
    phash = phash if isinstance(phash, str) and phash else None
    places = _places(path)
    if places is not None:
        marked = once(_read_marker, places[1])  # (a listing asks for every chat of a folder)
        if marked:
            return marked
    dirs = meta.get("directories")
    if phash and isinstance(dirs, list):
        for d in dirs:
            if isinstance(d, str) and d and path_hash(d) == phash:
                return d
    if places is not None:
        slug = places[3]
        for folder, sid in once(_registry_of, places[2]):
            if sid == slug or (phash and path_hash(folder) == phash):
                return folder
    if phash:
        found = known_folders().get(phash)
        if found:
            return found
    return phash or (places[3] if places is not None else None)


#: a chat folder's (project folder, its marker, Gemini's registry, the project folder's name), by
#: the folder (`_places`)
_PLACES: dict[str, tuple[str, str, str, str] | None] = {}


def _places(path: str) -> tuple[str, str, str, str] | None:
    """(`_project_dir(path)`, the `.project_root` marker in it, the `projects.json` registry
    two folders above it, its name); None outside a `chats` folder. Kept by the chat's folder
    (a listing asks for every chat, and the answer is the same for all of a folder's): only for
    an absolute path whose name is a name, not `.` or `..` (then the folder alone decides)."""
    folder, _, name = path.rpartition(os.sep)
    memo = not os.altsep and path.startswith(os.sep) and name not in ("", ".", "..")
    if memo and (got := _PLACES.get(folder, _NO_PLACES)) is not _NO_PLACES:
        return got
    project_dir = _project_dir(path)
    places = None if project_dir is None else (
        project_dir, os.path.join(project_dir, ".project_root"),
        os.path.join(os.path.dirname(os.path.dirname(project_dir)), "projects.json"), os.path.basename(project_dir))
    if memo:
        if len(_PLACES) >= 4096:
            _PLACES.clear()
        _PLACES[folder] = places
    return places


_NO_PLACES: Any = object()


def _project_dir(path: str) -> str | None:
    """`tmp/<project>` of `tmp/<project>/chats/x.json` or `tmp/<project>/chats/<parent>/x.jsonl`."""
    d = os.path.dirname(os.path.abspath(path))
    for _ in range(2):
        if os.path.basename(d) == "chats":
            return os.path.dirname(d)
        d = os.path.dirname(d)
    return None


def _read_marker(path: str) -> str | None:
    # (a folder without one is the usual case: `access` tells it without an OSError raised)
    if not os.access(path, os.F_OK):
        return None
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        text = os.read(fd, 4096).decode("utf-8", "replace").strip()
    except OSError:
        return None
    finally:
        os.close(fd)
    return text if text.startswith(("/", "\\")) or re.match(r"[A-Za-z]:[\\/]", text) else None


def _registry_of(p: str) -> tuple[tuple[str, str], ...]:
    """Gemini's project registry `p` (`<gemini dir>/projects.json`): (folder, slug) pairs."""
    if not os.access(p, os.F_OK):  # (no OSError raised where there is none)
        return ()
    try:
        st = os.stat(p)
    except OSError:
        return ()
    return _read_registry(p, st.st_mtime_ns, st.st_size)


@lru_cache(maxsize=16)
def _read_registry(path: str, mtime_ns: int, size: int) -> tuple[tuple[str, str], ...]:
    try:
        with open(path, "rb") as fh:
            data = orjson.loads(fh.read(1 << 22))
    except (OSError, orjson.JSONDecodeError):
        return ()
    projects = data.get("projects") if isinstance(data, dict) else None
    if not isinstance(projects, dict):
        return ()
    return tuple((k, v) for k, v in projects.items() if isinstance(k, str) and isinstance(v, str))


def known_folders() -> dict[str, str]:
    """projectHash -> folder for the folders a user works in that sessionscope knows without
    reading any session: the working directory and its parents, and the config's
    `project_roots` with their direct subfolders."""
    return once(_known_folders, None)


def _known_folders(_: None) -> dict[str, str]:
    global _config_path
    if _config_path is None:
        from ...config import config_path as _config_path
    p = str(_config_path())
    if not os.access(p, os.F_OK):  # (no config, the usual case: no OSError raised)
        return _known(os.getcwd(), ())
    try:
        st = os.stat(p)
    except OSError:
        return _known(os.getcwd(), ())
    # (the config read again only when it changed: a listing asks this for every chat)
    return _known(os.getcwd(), _config_roots(p, st.st_mtime_ns, st.st_size, st.st_ino) if st.st_mtime_ns else ())


_config_path: Any = None


@lru_cache(maxsize=4)
def _config_roots(path: str, mtime_ns: int, size: int, ino: int) -> tuple[str, ...]:
    from pathlib import Path

    from ...config import load_config

    return load_config(Path(path)).project_roots


@lru_cache(maxsize=8)
def _known(cwd: str, roots: tuple[str, ...]) -> dict[str, str]:
    folders: list[str] = []
    d = cwd
    while True:
        folders.append(d)
        up = os.path.dirname(d)
        if up == d:
            break
        d = up
    for root in roots:
        root = os.path.abspath(os.path.expanduser(root))
        folders.append(root)
        try:
            with os.scandir(root) as it:
                folders.extend(e.path for e in it if e.is_dir(follow_symlinks=True))
        except OSError:
            continue
    return {path_hash(f): f for f in folders}


def resolve_hashed(sessions: list[Session], projects: set[str]) -> list[Session]:
    """Gemini sessions whose project is still a hash, named by a known project (of any
    agent's session) that hashes to it; the others unchanged."""
    todo = [s for s in sessions if s.agent == AGENT and s.project and _HEX64.fullmatch(s.project)]
    if not todo:
        return sessions
    table = {path_hash(p): p for p in projects if p and not _HEX64.fullmatch(p)}
    fixed = {id(s): replace(s, project=table[s.project]) for s in todo if s.project in table}
    return [fixed.get(id(s), s) for s in sessions] if fixed else sessions


__all__ = ["GeminiAdapter", "GeminiParser", "path_hash", "project_of", "resolve_hashed"]
