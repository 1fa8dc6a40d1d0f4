"""Claude Code transcripts (`~/.claude/projects/<escaped-cwd>/*.jsonl`) read as sessions of entries.

Why this shape: Claude writes one record per content block of a reply, threads records into a
uuid tree (rewinds, retries, resumes and parallel tool calls branch it; progress records fake
branch points), stores subagents three ways across versions and copies records into resumed
sessions. So the parser turns each line into entries at once (live tails need that) and keeps a
small `_Rec` per record; whatever needs the whole file (sidechain split, active branch, merging a
split reply's text, titles, usage) is settled in `finish()`, and cross-file work in `link()`.

Rules chosen:
* Entry ids: the record `uuid` when the record yields one entry, else `uuid.N` with N the index of
  the block in `message.content`; `L<line>` (`L<line>.N`) for records without a uuid. A record whose
  uuid already appeared earlier in the same file (a resume copy) is kept as noise.
* Roles are Claude's own: tool results are "user" (they live in user records); summaries, system
  and unknown records are "system".
* `parent_id` is the record's `parentUuid` resolved through progress and other non-conversation
  records (they are siblings, not turns); a parent missing from the file is kept as written, and
  the record counts as a root.
* Active branch: walk back from the last user/assistant record (crossing compact boundaries by
  `logicalParentUuid`); when the walk reaches a root, continue from the latest record before it
  (dangling-parent write bugs and resumes start new roots without abandoning history). Then add
  the other records of the same API message, tool results answering active tool calls (parallel
  calls branch the tree) and system/meta records hanging off active ones. Everything else was
  abandoned by a rewind, edit or retry: `on_active_branch=False`, kept in file order.
* Resumed-session duplicates (`link()`): among the main sessions of one directory, ordered by
  (first timestamp, last timestamp, path), a record uuid belongs to the first session holding it
  (the original ends before its resumption); later copies (same uuid and same content: a uuid
  that merely repeats is no copy) move from `entries` to `noise`, the
  usage of messages dropped entirely is subtracted, and `duplicates_hidden` plus a warning keep
  the count.
* Inline (<=1.0.x) sidechains become child sessions `<id>/sidechain-<root uuid prefix>`; their
  lines stay counted in the file's account, which is the main session's.
"""
from __future__ import annotations

from array import array

import json
import os
import re
import stat
from bisect import bisect_left
from dataclasses import field, replace
from datetime import datetime, timezone
from typing import Any, Callable, Iterable, Iterator

import orjson

from ...text import LazyPattern
from ...records import record
from ..jsonl import HeadTail, ParsedLine, RecordFile
from ...model import (
    Entry,
    EntryKind,
    Locator,
    Session,
    SessionKind,
    TokenUsage,
    parse_timestamp,
    truncate,
)
from ..ends import (FIELDS, Ends, Look, QuickMeta, basename, first_json_lines, head_values_from, one_spaced,
                    tail_values)
from .base import (Adapter, Extension, LineAccount, LoadedSession, RecordParser, UsagePart, hash8,
                   is_codex_record, walk_files)


def _log() -> Any:
    """This module's logger; logging is imported on the first failure logged (not with the module:
    it and what it imports were ~15% of a whole `read ID`)."""
    import logging

    return logging.getLogger(__name__)

JSON = dict[str, Any]  # one decoded record or content block
_loads, _DecodeError = orjson.loads, orjson.JSONDecodeError
_BOM = b"\xef\xbb\xbf"

_NOISE_TYPES = frozenset({
    "progress", "file-history-snapshot", "file-history-delta", "queue-operation", "last-prompt",
    "custom-title", "ai-title", "agent-name", "permission-mode", "mode", "attachment", "pr-link",
    "frame-link", "worktree-state", "relocated", "bridge-session", "started", "result", "tag",
})
_CLAUDE_TYPES = _NOISE_TYPES | {"user", "assistant", "system", "summary"}
_CLAUDE_KEYS = frozenset(("uuid", "sessionId", "parentUuid", "leafUuid", "messageId", "message",
                          "snapshot", "operation", "customTitle", "aiTitle", "agentName", "lastPrompt"))
_MARKUP = LazyPattern(
    r"\s*(?:<(?:command-name|command-message|command-args|local-command-stdout|local-command-stderr"
    r"|local-command-caveat|bash-input|bash-stdout|bash-stderr|system-reminder"
    r"|user-prompt-submit-hook|task-notification)>|Caveat: The messages below were generated)"
)
_UUID = LazyPattern(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_INTERRUPTED = "[Request interrupted by user"
_SYNTHETIC = "<synthetic>"
_TITLE_CHARS = 120
# Title sources, weakest first: a later, stronger source replaces an earlier one.
RANK_NONE, RANK_COMMAND, RANK_PROMPT, RANK_SUMMARY, RANK_AI, RANK_CUSTOM = range(6)


@record
class ClaudeLoadedSession(LoadedSession):
    """A LoadedSession plus what `link()` needs from its file."""

    title_rank: int = RANK_NONE
    summaries: list[tuple[str, str]] = field(default_factory=list)  # (leafUuid, text)
    summary_links: dict[str, str] = field(default_factory=dict)  # leafUuid -> session it summarizes
    record_uuids: dict[str, str] = field(default_factory=dict)  # entry id -> record uuid
    merged_from: dict[str, list[Locator]] = field(default_factory=dict)  # entry id -> merged lines
    usage_by_message: dict[str, TokenUsage] = field(default_factory=dict)
    agent_type: str | None = None
    duplicates_hidden: int = 0

    def usage_by_time(self) -> list[UsagePart]:
        """Each reply's tokens (`usage_by_message`, which hiding duplicates keeps current) at the
        time and model of that reply's first entry."""
        first: dict[str, Entry] = {}
        for e in self.entries:
            if e.message_id and e.message_id not in first:
                first[e.message_id] = e
        out: list[UsagePart] = []
        for mid, usage in self.usage_by_message.items():
            e = first.get(mid)
            model = e.model if e is not None and e.model != _SYNTHETIC else None
            out.append((e.timestamp if e is not None else None, model, usage))
        return out


@record(slots=True)
class _Rec:
    """What threading, grouping and titles need of one user/assistant/system record."""

    uuid: str | None
    parent: str | None
    logical_parent: str | None
    type: str
    line: int
    sidechain: bool = False
    meta: bool = False
    message_id: str | None = None
    tool_uses: tuple[str, ...] = ()
    tool_results: tuple[str, ...] = ()
    prompt: str | None = None
    command: str | None = None
    cwd: str | None = None
    branch: str | None = None
    group: str = ""
    number: int = -1  # its place in a compact thread (`_Branches`), when one is kept


@record(slots=True)
class _Spec:
    index: int
    kind: EntryKind
    text: str
    tool_name: str | None = None
    tool_input: Any = None
    tool_use_id: str | None = None
    is_error: bool = False


_PROJECTS = f"{os.sep}projects{os.sep}"


class ClaudeAdapter(Adapter):
    name = "claude-code"
    agent = "claude-code"
    continues = True
    narrow_ends = True
    carries = True

    def likely(self, path: str) -> bool:
        """Under a `projects` folder (`~/.claude/projects/<project>/<id>.jsonl`, its subagents)."""
        return _PROJECTS in path and path.endswith(".jsonl")

    def read_grown(self, path: str, rf: RecordFile, offset: int, line: int,
                   old_end: int, carried: bytes | None = None) -> LoadedSession | None:
        """`Adapter.read_grown`: the lines from `offset` read as a file of their own, when the
        records appended from `old_end` on (the end of a line) add to the end of its
        conversation (`ClaudeParser.continues_at`) and hold no summary and no record seen
        before in these lines."""
        parser = self.parser(path)
        at_cut: list[tuple[int, int]] = []

        def note() -> bool:
            at_cut.append((len(parser._summaries), parser._duplicates))
            return True

        got = self.grown_session(parser, rf, offset, line, old_end, note)
        if got is None or at_cut != [(len(parser._summaries), parser._duplicates)]:
            return None
        return got[0] if parser.continues_at(got[1]) else None

    def extend(self, old: Session, tail: RecordParser, size: int,
               carried: object = None) -> Extension | None:
        """A grown one-session file's session from its appended lines and what the reading so
        far carried (`_Carry`); None (read it whole) whenever those lines could change what the
        earlier part means (see `_extend`)."""
        if not isinstance(tail, ClaudeParser) or not isinstance(carried, bytes):
            return None
        try:
            return _extend(tail, size, carried)
        except Exception:  # noqa: BLE001 - any doubt about the carried state: read whole
            _log().debug("claude: cannot read %s on", tail.path, exc_info=True)
            return None

    def sniff(self, path: str, head: bytes) -> bool:
        try:
            records = first_json_lines(head, 8)
        except Exception:  # noqa: BLE001 - sniffing never raises
            return False
        # Majority of the records that tell: one record of a type this reader does not know
        # (kept as an unknown entry by the parser) must not lose a whole Claude file.
        claude = other = 0
        for rec in records:
            verdict = _classify(rec)
            if verdict is True:
                claude += 1
            elif verdict is False:
                other += 1
        if records:
            return claude > other
        # No complete line in the head (a first line over 64 KB): look at the bytes.
        start = head.lstrip(b"\xef\xbb\xbf \t\r\n")[:200]
        if start.startswith(b'{"type":"file-history-snapshot"'):
            return True
        return (start.startswith(b"{") and b'"parentUuid":' in head and b'"sessionId":' in head
                and b'"source_plugin"' not in head and b'"payload":' not in start)

    def parser(self, path: str) -> ClaudeParser:
        return ClaudeParser(path, self.name, self.agent)

    def quick(self, ends: Ends) -> QuickMeta:
        return _quick(self, ends)

    def quick_lane(self, path: str, ht: HeadTail, nbytes: int, narrow: bool) -> QuickMeta | None:
        return _quick_lane(self, path, ht, nbytes, narrow)

    def discover(self, root: str) -> Iterator[str]:
        marker = f"{os.sep}tool-results{os.sep}"
        for path in walk_files(root, self.suffixes):
            if marker not in path:
                yield path

    # -- cross-file --------------------------------------------------------------------
    def link(self, sessions: list[LoadedSession]) -> None:
        mine = [s for s in sessions if s.session.source_format == self.name]
        by_id: dict[str, LoadedSession] = {}
        for s in mine:
            by_id.setdefault(s.session.id, s)
        _link_children(mine, by_id)
        _dedupe_resumed(mine)
        _link_summaries(mine)


def _classify(rec: JSON) -> bool | None:
    """True: a Claude record; False: another format's record; None: cannot tell.

    Claude's own: a known type with Claude's keys, or any type carrying `sessionId` with a
    `uuid`/`parentUuid` (new record types keep the envelope). Another format's: session-logs
    lines (`source_plugin`, `session_id` + `agent_id`) and Codex records (a Codex type with a
    `payload`). A record of a type nobody knows, `payload` or not, tells nothing: the records
    around it decide."""
    if "source_plugin" in rec or ("session_id" in rec and "agent_id" in rec):
        return False
    if "sessionId" in rec and ("uuid" in rec or "parentUuid" in rec):
        return True
    if is_codex_record(rec):
        return False
    rtype = rec.get("type")
    if not isinstance(rtype, str) or rtype not in _CLAUDE_TYPES:
        return None
    if rtype == "summary":
        return "leafUuid" in rec or isinstance(rec.get("summary"), str)
    return not _CLAUDE_KEYS.isdisjoint(rec)


class ClaudeParser(RecordParser):
    def __init__(self, path: str, name: str, agent: str) -> None:
        super().__init__(path)
        self.name, self.agent = name, agent
        self._entries: list[Entry] = []
        self._owner: dict[str, _Rec] = {}  # entry id -> its record
        self._recs: list[_Rec] = []
        self._nodes: dict[str, _Rec] = {}  # uuid -> first record with it
        self._via: dict[str, str | None] = {}  # uuid of a non-conversation record -> its parent
        self._ids: set[str] = set()
        self._tool_names: dict[str, str] = {}
        self._usage: dict[tuple[str, str], tuple[TokenUsage, _Rec]] = {}
        self._noise: list[Locator] = []
        self._titles: dict[str, str] = {}
        self._summaries: list[tuple[str, str]] = []
        self._session_id: str | None = None  # last sessionId of a main-thread record
        self._any_session_id: str | None = None
        self._agent_id: str | None = None
        self._main_records = 0
        self._duplicates = 0
        self._strings: dict[str, str] = {}
        self._branches: _Branches | None = None

    def track_branches(self) -> None:
        """Keep the thread as int arrays (`_Branches`) rather than records, for branch marks
        (`off_branch_lines`) of a reading that never finishes (the reader's stream): ~25 bytes a
        record instead of a record object and a map of every entry id to it."""
        self.threads = False
        self._branches = _Branches()

    # -- lines -------------------------------------------------------------------------
    def feed(self, parsed: ParsedLine) -> list[Entry]:
        out = super().feed(parsed)
        # (kept here, not in convert: malformed lines stay in the conversation, in file order,
        # marked; and a thin parser keeps the thin copies `feed` returns)
        self._entries.extend(out)
        return out

    def forget(self) -> None:
        self._entries.clear()
        self._noise.clear()

    def convert(self, parsed: ParsedLine) -> tuple[list[Entry], bool]:
        out: list[Entry] = []
        for k, value in enumerate(parsed.values):
            try:
                out.extend(self._record(value, parsed, k))
            except Exception:  # noqa: BLE001 - an odd record must never stop a load
                _log().debug("claude: cannot convert %s:%d", self.path, parsed.raw.line, exc_info=True)
                out.append(self._unknown(parsed, k, "unreadable"))
        if not out:
            self._noise.append(self.locator(parsed))
        return out, not out

    def _record(self, value: Any, parsed: ParsedLine, k: int) -> list[Entry]:
        if not isinstance(value, dict):
            return [self._unknown(parsed, k)]
        rtype = value.get("type")
        rtype = rtype if isinstance(rtype, str) else ""
        if rtype in ("user", "assistant", "system"):
            rtype = self._same(rtype)  # (only known types: others are noise, let go with their line)
            rec = self._register(value, rtype, parsed)
            if rec is None:
                return []
            out = self._system(value, rec, parsed, k) if rtype == "system" else self._message(value, rec, parsed, k)
            if self._branches is not None and rec.number >= 0:
                self._branches.fill(rec)
            return out
        if rtype == "summary":
            return self._summary(value, parsed, k)
        self._note_metadata(value, rtype)
        uuid = _s(value.get("uuid"))
        if uuid and uuid not in self._nodes:
            self._via.setdefault(uuid, self._known(_s(value.get("parentUuid"))))
        if rtype in _NOISE_TYPES:
            return []
        return [self._unknown(parsed, k, rtype)]

    def _register(self, value: JSON, rtype: str, parsed: ParsedLine) -> _Rec | None:
        uuid = _s(value.get("uuid"))
        if uuid and (uuid in self._nodes or uuid in self._via):
            self._duplicates += 1
            return None
        rec = _Rec(
            uuid=uuid, parent=self._known(_s(value.get("parentUuid"))),
            logical_parent=self._known(_s(value.get("logicalParentUuid"))), type=rtype, line=parsed.raw.line,
            sidechain=value.get("isSidechain") is True, meta=value.get("isMeta") is True,
            cwd=self._same(_s(value.get("cwd"))), branch=self._same(_s(value.get("gitBranch"))),
        )
        if self.threads:
            self._recs.append(rec)
        if uuid:
            self._nodes[uuid] = rec if self.threads else None  # (None: seen, for dedupe and _resolve)
            if self._branches is not None:
                self._nodes[uuid] = rec.number = self._branches.add(rec, self)
        sid = _s(value.get("sessionId"))
        self._any_session_id = self._any_session_id or sid
        if rec.sidechain:
            self._agent_id = _s(value.get("agentId")) or self._agent_id
        else:
            self._main_records += 1
            self._session_id = sid or self._session_id
        return rec

    def _known(self, uuid: str | None) -> str | None:
        """A link to a record read before as that record's own uuid object: a parent link then
        holds no copy of the string (the thread of a 1 GB transcript links ~300k records)."""
        node = self._nodes.get(uuid) if uuid is not None else None
        return node.uuid if isinstance(node, _Rec) else uuid

    def _same(self, text: str | None) -> str | None:
        """One string object for each repeated value (a type, a folder, a branch, a model, a tool
        name): every record or entry holds one, and a transcript has a few distinct ones."""
        return None if text is None else self._strings.setdefault(text, text)

    def _note_metadata(self, value: JSON, rtype: str) -> None:
        named = _file_title(value, rtype)
        if named:
            self._titles[named[0]] = named[1]

    def _message(self, value: JSON, rec: _Rec, parsed: ParsedLine, k: int) -> list[Entry]:
        msg = value.get("message")
        if isinstance(msg, str):
            msg = {"content": msg}
        if not isinstance(msg, dict):
            return [self._unknown(parsed, k, rec.type)]
        content = msg.get("content")
        blocks = [content] if isinstance(content, str) else content if isinstance(content, list) else []
        model = None
        if rec.type == "assistant":
            rec.message_id = _s(msg.get("id"))
            model = self._same(_s(msg.get("model")))
            usage = msg.get("usage")
            if isinstance(usage, dict) and self.threads and self.settles:
                key = (rec.message_id or rec.uuid or f"L{rec.line}", _s(value.get("requestId")) or "")
                self._usage[key] = (_usage(usage), rec)
            specs = [self._assistant_block(i, b, rec) for i, b in enumerate(blocks)]
        else:
            compact = value.get("isCompactSummary") is True
            specs = [self._user_block(i, b, rec, compact) for i, b in enumerate(blocks)]
        return self._emit(rec, value, parsed, k, specs, model=model)

    def _user_block(self, i: int, block: Any, rec: _Rec, compact: bool) -> _Spec:
        if isinstance(block, str):
            block = {"type": "text", "text": block}
        if not isinstance(block, dict):
            return _Spec(i, EntryKind.UNKNOWN, _dump(block))
        btype = block.get("type")
        if btype == "text":
            text = _s(block.get("text")) or ""
            kind, markup = _user_text_kind(text, rec.meta, compact)
            if markup and rec.command is None and self.settles:
                rec.command = _command(text)
            if rec.prompt is None and self.settles and _is_prompt(kind, text):
                rec.prompt = text
            return _Spec(i, kind, text)
        if isinstance(btype, str) and btype.endswith("tool_result"):
            tid = _s(block.get("tool_use_id"))
            if tid:
                rec.tool_results += (tid,)
            return _Spec(i, EntryKind.TOOL_RESULT, _result_text(block.get("content")),
                         tool_name=self._tool_names.get(tid or ""), tool_use_id=tid,
                         is_error=block.get("is_error") is True)
        if btype in ("image", "document"):
            kind = EntryKind.META if rec.meta else EntryKind.TEXT
            return _Spec(i, kind, _media(block, btype))
        return _Spec(i, EntryKind.UNKNOWN, _dump(block))

    def _assistant_block(self, i: int, block: Any, rec: _Rec) -> _Spec:
        if isinstance(block, str):
            return _Spec(i, EntryKind.TEXT, block)
        if not isinstance(block, dict):
            return _Spec(i, EntryKind.UNKNOWN, _dump(block))
        btype = block.get("type")
        if btype == "text":
            return _Spec(i, EntryKind.TEXT, _s(block.get("text")) or "")
        if btype == "thinking":
            return _Spec(i, EntryKind.THINKING, _s(block.get("thinking")) or "")
        if btype == "redacted_thinking":
            return _Spec(i, EntryKind.THINKING, "[redacted thinking]")
        if isinstance(btype, str) and btype.endswith("tool_use"):
            tid, name = _s(block.get("id")), self._same(_s(block.get("name")))
            if tid:
                rec.tool_uses += (tid,)
                if name:
                    self._tool_names[tid] = name
            tool_input = block.get("input")
            return _Spec(i, EntryKind.TOOL_USE, _dump(tool_input), tool_name=name,
                         tool_input=tool_input, tool_use_id=tid)
        if isinstance(btype, str) and btype.endswith("tool_result"):
            return _Spec(i, EntryKind.TOOL_RESULT, _result_text(block.get("content")),
                         tool_use_id=_s(block.get("tool_use_id")),
                         tool_name=self._tool_names.get(_s(block.get("tool_use_id")) or ""))
        if btype in ("image", "document"):
            return _Spec(i, EntryKind.TEXT, _media(block, btype))
        return _Spec(i, EntryKind.UNKNOWN, _dump(block))

    def _system(self, value: JSON, rec: _Rec, parsed: ParsedLine, k: int) -> list[Entry]:
        subtype = _s(value.get("subtype"))
        content = value.get("content")
        text = content if isinstance(content, str) else _dump(content) if content else subtype or "system"
        kind = EntryKind.SYSTEM
        if subtype == "compact_boundary":
            kind = EntryKind.COMPACTION
            meta = value.get("compactMetadata")
            if isinstance(meta, dict):
                detail = ", ".join(f"{key} {meta[key]}" for key in ("trigger", "preTokens")
                                   if isinstance(meta.get(key), (str, int)))
                text = f"{text} ({detail})" if detail else text
        elif subtype and not isinstance(content, str) and "error" in value:
            text = f"{text}: {_dump(value.get('error'))}"
        raw_type = f"system/{subtype}" if subtype else "system"
        return self._emit(rec, value, parsed, k, [_Spec(0, kind, text)], raw_type=raw_type)

    def _summary(self, value: JSON, parsed: ParsedLine, k: int) -> list[Entry]:
        text = _s(value.get("summary")) or ""
        leaf = _s(value.get("leafUuid"))
        if text:
            self._summaries.append((leaf or "", text))
        eid = self._unique(f"L{parsed.raw.line}" + (f"v{k}" if k else ""))
        return [Entry(id=eid, role="system", kind=EntryKind.SUMMARY, text=text,
                      locator=self.locator(parsed), raw_type="summary")]

    def _emit(self, rec: _Rec, value: JSON, parsed: ParsedLine, k: int, specs: list[_Spec],
              *, model: str | None = None, raw_type: str | None = None) -> list[Entry]:
        base = rec.uuid or f"L{parsed.raw.line}" + (f"v{k}" if k else "")
        single = len(specs) == 1
        timestamp = parse_timestamp(value.get("timestamp"))
        parent = self._parent_id(rec)
        out = []
        locator = self.locator(parsed)  # (one for the record's entries)
        for spec in specs:
            eid = self._unique(base if single else f"{base}.{spec.index}")
            entry = Entry(
                id=eid, role=rec.type, kind=spec.kind, text=spec.text, locator=locator,
                parent_id=parent, timestamp=timestamp, tool_name=spec.tool_name,
                tool_input=spec.tool_input, tool_use_id=spec.tool_use_id, is_error=spec.is_error,
                message_id=rec.message_id, raw_type=raw_type or rec.type, is_sidechain=rec.sidechain,
                model=model,
            )
            if self.threads:
                self._owner[eid] = rec
            out.append(entry)
        if self._branches is not None and rec.number >= 0:
            self._branches.entries[rec.number] += len(out)
        return out

    def _unknown(self, parsed: ParsedLine, k: int, raw_type: str = "") -> Entry:
        entry = self.unknown_entry(parsed, raw_type)
        return replace(entry, id=self._unique(entry.id + (f"v{k}" if k else "")))

    def _unique(self, eid: str) -> str:
        candidate, n = eid, 1
        while candidate in self._ids:
            n += 1
            candidate = f"{eid}~{n}"
        self._ids.add(candidate)
        return candidate

    # -- threading ---------------------------------------------------------------------
    def _resolve(self, uuid: str | None) -> str | None:
        """Follow non-conversation records (progress, attachments, ...) up to a real parent."""
        path: list[str] = []
        while uuid is not None and uuid in self._via and uuid not in self._nodes:
            if len(path) > len(self._via):  # a cycle in garbage input
                return None
            path.append(uuid)
            uuid = self._via[uuid]
        for hop in path:  # path compression: long progress chains are walked once
            self._via[hop] = uuid
        return uuid

    def _parent_id(self, rec: _Rec) -> str | None:
        return self._resolve(rec.parent)

    def _branch_nodes(self, recs: list[_Rec]) -> dict[str, _Rec]:
        """The records of `recs` a branch is worked out over, by uuid, in file order: those with
        a uuid, each the one kept for it."""
        return {r.uuid: r for r in recs if r.uuid and self._nodes.get(r.uuid) is r}

    def _branch_parent(self, r: _Rec, nodes: dict[str, _Rec]) -> str | None:
        """The record of `nodes` a branch walks to from `r`: its parent (through non-conversation
        records), else its logical parent (across a compaction); None at a root."""
        p = self._resolve(r.parent)
        if p in nodes:
            return p
        lp = self._resolve(r.logical_parent) if r.logical_parent else None
        return lp if lp in nodes else None

    def _active_uuids(self, recs: list[_Rec]) -> set[str] | None:
        """Uuids on the active branch of one group of records, or None when all are active."""
        nodes = self._branch_nodes(recs)
        seq = list(nodes.values())
        parent = self._branch_parent
        cur = next((r for r in reversed(seq) if r.type in ("user", "assistant")), None)
        if cur is None:
            return None
        active: set[str] = set()
        while cur is not None:
            u: str | None = cur.uuid
            root = cur
            while u is not None and u not in active:
                active.add(u)
                root = nodes[u]
                u = parent(root, nodes)
            if u is not None:  # joined the active chain: nothing older is left to reach
                break
            before = _position(seq, root)
            cur = next((seq[i] for i in range(before - 1, -1, -1) if seq[i].uuid not in active), None)
        changed = True
        while changed:
            changed = False
            mids = {nodes[u].message_id for u in active if nodes[u].message_id}
            calls = {t for u in active for t in nodes[u].tool_uses}
            for r in seq:
                if r.uuid not in active and (
                    (r.message_id and r.message_id in mids)
                    or any(t in calls for t in r.tool_results)
                ):
                    active.add(r.uuid or "")
                    changed = True
        for r in seq:
            if r.uuid not in active and (r.type == "system" or r.meta) and parent(r, nodes) in active:
                active.add(r.uuid or "")
        return active

    def continues_at(self, first_new: int) -> bool:
        """Whether the records from line `first_new` on (the lines appended to what this parser
        was fed before them) only add to the end of the conversation, as a whole reading of the
        file would have them too, with none of the lines before the first it was fed: the branch
        mark of every record before them is what it was, and every record from them on is on
        the branch or off it alike, whatever came before. So when the last entries of the lines
        before were checked against a whole reading, those lines with the new ones give its
        last entries (core/catalog/tails.py `regrow`).

        The conditions: the last user or assistant record (the leaf the branch is walked from) is
        reached from the new leaf through new records, or through the system records written
        after the old leaf (a prompt's parent is the reply's `turn_duration` record), as a
        record's parent (`_active_uuids`): no branch from an older record; every new record's
        parent is read here, each tool result's call too; a new record off the branch in these
        lines has no message id (no part of a reply of the lines before, unseen here, can put it
        on the branch); not a new sidechain record but in an agent's own file. (The records
        appended were each checked against every uuid of the file by the scan's `extend` (no
        resume copy); the caller keeps to windows the scan read on.)"""
        if not self.threads or self._branches is not None:
            return False
        is_agent = self._is_agent_file(_stem(self.path))
        group = [r for r in self._recs if is_agent or not r.sidechain]
        if not is_agent and any(r.sidechain for r in self._recs if r.line >= first_new):
            return False
        new = [r for r in group if r.line >= first_new]
        nodes = self._branch_nodes(group)
        seq = list(nodes.values())
        old_leaf = next((r for r in reversed(seq) if r.line < first_new and r.type in ("user", "assistant")), None)
        leaf = next((r for r in reversed(seq) if r.type in ("user", "assistant")), None)
        if old_leaf is None or leaf is None:
            return False
        for r in new:
            for link in (r.parent, r.logical_parent):
                if link is not None and self._resolve(link) not in nodes:
                    return False  # (a parent before these lines, or unknown: a whole reading may differ)
        cur, steps = leaf, 0
        while cur is not old_leaf:
            if cur.line < first_new and not ((cur.type == "system" or cur.meta) and cur.line > old_leaf.line):
                return False  # a branch from an older record (a rewind, an edit)
            p = self._branch_parent(cur, nodes)
            steps += 1
            if p is None or steps > len(nodes):  # (a root, or a cycle in garbage input)
                return False
            cur = nodes[p]
        calls = {t for r in group for t in r.tool_uses}
        if any(t not in calls for r in new for t in r.tool_results):
            return False
        before = self._active_uuids([r for r in group if r.line < first_new])
        after = self._active_uuids(group)
        for r in seq:
            now = after is None or r.uuid in after
            if r.line < first_new:
                if (before is None or r.uuid in before) != now:
                    return False  # (a record of the lines before changed branch)
            elif not now and r.message_id is not None:
                return False
        return True

    def off_branch_ids(self, *, sidechains: bool = False) -> set[str]:
        """Ids of the entries produced so far that lie on an abandoned branch, by the same rule
        as `finish()`, for a streamed reading that never calls it (main-thread records only,
        unless `sidechains`: a subagent's own file holds nothing else)."""
        recs = [r for r in self._recs if sidechains or not r.sidechain]
        active = self._active_uuids(recs)
        if active is None:
            return set()
        return {eid for eid, o in self._owner.items()
                if self._off_branch(o, active) and (sidechains or not o.sidechain)}

    def off_branch_lines(self, *, sidechains: bool = False) -> tuple[frozenset[int], int]:
        """With a compact thread (`track_branches`): the lines of the records produced so far
        that lie on an abandoned branch, by the same rule as `off_branch_ids`, and how many
        entries they gave."""
        if self._branches is None:
            return frozenset(), 0
        return self._branches.off_branch(self, sidechains)

    def _off_branch(self, o: _Rec, active: set[str]) -> bool:
        """Whether a record (the one kept for its uuid) lies outside the active branch."""
        return bool(o.uuid) and o.uuid not in active and self._nodes.get(o.uuid) is o

    # -- the file's sessions -----------------------------------------------------------
    def finish(self) -> list[LoadedSession]:
        try:
            return self._finish()
        except Exception:  # noqa: BLE001 - a load never raises; fall back to the flat file
            _log().exception("claude: cannot settle %s", self.path)
            session = Session(id=_stem(self.path), agent=self.agent, source_format=self.name,
                              paths=(self.path,), entry_count=len(self._entries),
                              line_count=self.account.lines, malformed_count=self.account.malformed,
                              noise_count=self.account.noise, size=_size_of(self.path))
            return [LoadedSession(session, list(self._entries), list(self._noise), self.account,
                                  ["could not thread this file; entries shown flat"])]

    def _finish(self) -> list[LoadedSession]:
        stem = _stem(self.path)
        is_agent = self._is_agent_file(stem)
        groups: dict[str, list[_Rec]] = {"": []}
        for rec in self._recs:
            if rec.sidechain and not is_agent:
                parent = self._nodes.get(self._resolve(rec.parent) or "")
                rec.group = parent.group if parent is not None and parent.sidechain and parent.group \
                    else rec.uuid or f"L{rec.line}"
            groups.setdefault(rec.group, []).append(rec)
        buckets: dict[str, list[Entry]] = {key: [] for key in groups}
        for entry in self._entries:
            owner = self._owner.get(entry.id)
            buckets[owner.group if owner else ""].append(entry)

        if is_agent:
            main = self._agent_session(stem, groups[""], buckets[""])
        else:
            main_id = self._main_id(stem)
            main = self._build(main_id, SessionKind.MAIN, groups[""], buckets[""], self.account)
            main.noise = list(self._noise)
            main.summaries = list(self._summaries)
            self._apply_title(main, groups[""], with_file_titles=True)
        out: list[LoadedSession] = [main]
        taken = {main.session.id}
        for key, recs in groups.items():
            if not key:
                continue
            child_id = f"{main.session.id}/sidechain-{key[:8]}"
            while child_id in taken:
                child_id += "+"
            taken.add(child_id)
            lines = {e.locator.line for e in buckets[key]}
            account = LineAccount(lines=len(lines), conversation=len(lines))
            child = self._build(child_id, SessionKind.SUBAGENT, recs, buckets[key], account)
            self._apply_title(child, recs)
            kind = SessionKind.WARMUP if _is_warmup(recs) else SessionKind.SUBAGENT
            child.session = replace(child.session, kind=kind, parent_id=main.session.id)
            out.append(child)
        if len(out) > 1:
            main.session = replace(main.session, child_ids=tuple(c.session.id for c in out[1:]))
        else:
            main.carry = self._carrier(main, is_agent, groups[""])
        if self._duplicates:
            main.warnings.append(f"{self._duplicates} records repeat an earlier uuid of this file "
                                 "(resume copies); kept as noise")
        return out

    def _carrier(self, main: ClaudeLoadedSession, is_agent: bool, recs: list[_Rec]) -> Callable[[], bytes]:
        """What reading this (one-session) file on needs, as `_Carry` packs it; worked out only
        when asked, of the session as the file alone gives it (before `link()`)."""
        pre, last = main.session, main.entries[-1] if main.entries else None

        def carry() -> bytes:
            own = [text for leaf, text in self._summaries if leaf in self._nodes]
            prompt = next((r.prompt for r in recs if r.prompt), None)
            c = _Carry(
                agent=is_agent, sid=self._session_id, any_sid=self._any_session_id, aid=self._agent_id,
                mains=self._main_records, cwd=pre.project, branch=pre.git_branch,
                prompt=one_line(prompt) if prompt is not None else None,
                warm=prompt is not None and prompt.strip() == "Warmup",
                command=_line_or_none(next((r.command for r in recs if r.command), None)),
                custom=_line_or_none(self._titles.get("custom")), ai=_line_or_none(self._titles.get("ai")),
                own=_line_or_none(own[-1] if own else None),
                last_summary=_line_or_none(self._summaries[-1][1] if self._summaries else None),
                pending=sorted({leaf for leaf, _ in self._summaries if leaf not in self._nodes}),
                count=pre.entry_count, first=pre.first_timestamp, last=pre.last_timestamp,
                models=list(pre.models), prev=_prev_of(last), usage=pre.usage,
                lines=self.account.lines, noise=self.account.noise, malformed=self.account.malformed,
                conversation=self.account.conversation,
            )
            c.note_keys((key, usage) for key, (usage, _rec) in self._usage.items())
            return c.pack(more_seen=(self._nodes, self._via))

        return carry

    def _is_agent_file(self, stem: str) -> bool:
        return _named_agent_file(self.path, stem) or (self._agent_id is not None
                                                      and self._main_records == 0)

    def _main_id(self, stem: str) -> str:
        return _main_session_id(stem, self._session_id, self._any_session_id)

    def _agent_session(self, stem: str, recs: list[_Rec], entries: list[Entry]) -> ClaudeLoadedSession:
        sid, parent_id, agent_id = _agent_session_id(self.path, stem, self._agent_id,
                                                     self._any_session_id)
        loaded = self._build(sid, SessionKind.SUBAGENT, recs, entries, self.account)
        loaded.noise = list(self._noise)
        loaded.summaries = list(self._summaries)
        loaded.agent_type = _agent_type(self.path)
        self._apply_title(loaded, recs, with_file_titles=True)
        if loaded.agent_type and loaded.title_rank <= RANK_PROMPT and loaded.session.title:
            loaded.session = replace(loaded.session, title=f"{loaded.agent_type}: {loaded.session.title}")
        kind = _agent_kind(agent_id, _is_warmup(recs))
        loaded.session = replace(loaded.session, kind=kind, parent_id=parent_id)
        return loaded

    def _build(self, sid: str, kind: SessionKind, recs: list[_Rec], entries: list[Entry],
               account: LineAccount) -> ClaudeLoadedSession:
        active = self._active_uuids(recs)
        if active is not None:
            entries = [
                replace(e, on_active_branch=False)
                if (o := self._owner.get(e.id)) is not None and self._off_branch(o, active) else e
                for e in entries
            ]
        entries, merged_from = _merge_text(entries)
        group = recs[0].group if recs else None  # (the records of one group: `_finish`)
        usage_by_message: dict[str, TokenUsage] = {}
        for (mid, _req), (usage, rec) in self._usage.items():
            if rec.group == group:
                usage_by_message[mid] = usage_by_message.get(mid, TokenUsage()) + usage
        total = sum(usage_by_message.values(), TokenUsage())
        models: dict[str, None] = {}
        for e in entries:
            if e.model and e.model != _SYNTHETIC:
                models.setdefault(e.model)
        first, last = _span(entries)
        session = Session(
            id=sid, agent=self.agent, source_format=self.name, paths=(self.path,), kind=kind,
            project=next((r.cwd for r in recs if r.cwd), None),
            first_timestamp=first, last_timestamp=last, entry_count=_count(entries),
            models=tuple(models), git_branch=next((r.branch for r in reversed(recs) if r.branch), None),
            usage=total, line_count=account.lines, malformed_count=account.malformed,
            noise_count=account.noise, size=_size_of(self.path),
        )
        uuids = {e.id: o.uuid for e in entries if (o := self._owner.get(e.id)) is not None and o.uuid}
        return ClaudeLoadedSession(session, entries, account=account, record_uuids=uuids,
                                   merged_from=merged_from, usage_by_message=usage_by_message)

    def _apply_title(self, loaded: ClaudeLoadedSession, recs: list[_Rec],
                     with_file_titles: bool = False) -> None:
        candidates: list[tuple[int, str | None]] = []
        foreign: str | None = None
        if with_file_titles:
            own = [text for leaf, text in self._summaries if leaf in self._nodes]
            # A summary whose leaf is in another file describes that conversation (link() titles
            # it there); here it is only a last resort, for a file holding nothing else.
            foreign = self._summaries[-1][1] if self._summaries and not own else None
            candidates += [(RANK_CUSTOM, self._titles.get("custom")), (RANK_AI, self._titles.get("ai")),
                           (RANK_SUMMARY, own[-1] if own else None)]
        candidates += [(RANK_PROMPT, next((r.prompt for r in recs if r.prompt), None)),
                       (RANK_COMMAND, next((r.command for r in recs if r.command), None)),
                       (RANK_COMMAND, foreign)]
        picked = _pick_title(candidates)
        if picked:
            loaded.title_rank = picked[0]
            loaded.session = replace(loaded.session, title=picked[1])


# -- linking (module functions: they need no adapter state) -----------------------------------
def _link_children(mine: list[LoadedSession], by_id: dict[str, LoadedSession]) -> None:
    children: dict[str, list[LoadedSession]] = {}
    for s in mine:
        pid = s.session.parent_id
        parent = by_id.get(pid) if pid else None
        if parent is not None and parent is not s and s.session.kind is not SessionKind.MAIN:
            children.setdefault(pid or "", []).append(s)
    for pid, kids in children.items():
        parent = by_id[pid]
        existing = list(parent.session.child_ids)
        kids.sort(key=lambda k: (_ts_key(k.session.first_timestamp), k.session.id))
        new = [k.session.id for k in kids if k.session.id not in existing]
        if new:
            parent.session = replace(parent.session, child_ids=tuple(existing + new))


def _record_uuids(s: LoadedSession) -> dict[str, str]:
    if isinstance(s, ClaudeLoadedSession):
        return s.record_uuids
    return {e.id: e.id.split(".", 1)[0] for e in s.entries
            if not e.id.startswith("L") and e.kind is not EntryKind.MALFORMED}


def _dedupe_resumed(mine: list[LoadedSession]) -> None:
    by_dir: dict[str, list[LoadedSession]] = {}
    for s in mine:
        if s.session.kind is SessionKind.MAIN:
            by_dir.setdefault(os.path.dirname(s.session.path), []).append(s)
    for group in by_dir.values():
        if len(group) < 2:
            continue
        group.sort(key=lambda s: (_ts_key(s.session.first_timestamp),
                                  _ts_key(s.session.last_timestamp), s.session.path))
        owner: dict[str, tuple[str, tuple[Any, ...]]] = {}  # uuid -> (first session, its content)
        for s in group:
            uuids = _record_uuids(s)
            content = _record_contents(s, uuids)
            drop: dict[str, str] = {}  # entry id -> session that already shows it
            for e in s.entries:
                u = uuids.get(e.id)
                first = owner.get(u) if u else None
                if first is not None and first[0] != s.session.id and first[1] == content[u]:
                    drop[e.id] = first[0]
            for u, c in content.items():
                owner.setdefault(u, (s.session.id, c))
            if drop:
                _drop_duplicates(s, drop)


def _record_contents(s: LoadedSession, uuids: dict[str, str]) -> dict[str, tuple[Any, ...]]:
    """What each record (by uuid) of a session shows: its entries' kind, role, text and tool
    data. A record is a copy of another session's only when uuid and content both match; a uuid
    that merely repeats (another tool, a hand-made file, a collision) is not a copy."""
    out: dict[str, list[Any]] = {u: [] for u in uuids.values()}
    for e in s.entries:
        u = uuids.get(e.id)
        if u is not None:
            out[u].append((e.kind, e.role, e.text, e.tool_name, e.tool_use_id, e.is_error, repr(e.tool_input)))
    return {u: tuple(v) for u, v in out.items()}


def _drop_duplicates(s: LoadedSession, drop: dict[str, str]) -> None:
    merged = s.merged_from if isinstance(s, ClaudeLoadedSession) else {}
    keep = [e for e in s.entries if e.id not in drop]
    gone = [e for e in s.entries if e.id in drop]
    kept_lines = {e.locator.line for e in keep} | {
        loc.line for e in keep for loc in merged.get(e.id, ())}
    moved: dict[int, Locator] = {}
    for e in gone:
        for loc in (e.locator, *merged.get(e.id, ())):
            if loc.line not in kept_lines:
                moved.setdefault(loc.line, loc)
    s.entries = keep
    s.noise = sorted([*s.noise, *moved.values()], key=lambda loc: loc.line)
    s.account.conversation -= len(moved)
    s.account.noise += len(moved)
    usage = s.session.usage
    if isinstance(s, ClaudeLoadedSession):
        s.duplicates_hidden += len(moved)
        remaining = {e.message_id for e in keep if e.message_id}
        for mid in {e.message_id for e in gone if e.message_id} - remaining:
            usage = _minus(usage, s.usage_by_message.pop(mid, TokenUsage()))
    first, last = _span(keep)
    s.session = replace(s.session, entry_count=_count(keep), noise_count=s.account.noise,
                        first_timestamp=first, last_timestamp=last, usage=usage)
    sources = ", ".join(sorted(set(drop.values())))
    s.warnings.append(f"{len(moved)} records already shown in {sources} (resumed session) hidden")


def _link_summaries(mine: list[LoadedSession]) -> None:
    uuid_owner: dict[str, LoadedSession] = {}
    for s in mine:
        for u in _record_uuids(s).values():
            uuid_owner.setdefault(u, s)
    for s in mine:
        if not isinstance(s, ClaudeLoadedSession):
            continue
        for leaf, text in s.summaries:
            target = uuid_owner.get(leaf)
            if target is None or target is s:
                continue
            s.summary_links[leaf] = target.session.id
            if isinstance(target, ClaudeLoadedSession) and target.title_rank < RANK_SUMMARY:
                target.title_rank = RANK_SUMMARY
                target.session = replace(target.session, title=one_line(text))


# -- reading a grown file on (the catalog's scan: core/catalog/library.py `_read_on`) ---------------
_CARRY_VERSION = 1
_KEY_WINDOW = 16  # usage keys carried as they are (a split reply's records repeat its key)


def _key_text(key: tuple[str, str]) -> str:
    return f"{key[0]}\x00{key[1]}"


def _line_or_none(text: str | None) -> str | None:
    return one_line(text) if text is not None else None


def _prev_of(e: Entry | None) -> list[Any] | None:
    """What `_merge_text` looks at of the last entry: whether a next one can merge into it."""
    return None if e is None else [e.kind is EntryKind.TEXT, e.message_id, e.role]


def _odd_uuid(uuid: str) -> bool:
    """A uuid whose entry ids could meet another record's (`uuid.N`, `L<line>`, `~n`): such a
    file is read whole rather than its ids worked out across the cut."""
    return uuid.startswith("L") or "." in uuid or "~" in uuid


@record
class _Carry:
    """What a whole read of a one-session file settles that its appended lines can still change,
    and no more (titles cut to one line, record uuids and older usage keys as 8-byte hashes):
    the session is the file's alone, before `link()`. Packed as JSON, a newline, then the hashes.

    `seen`: the uuids of the records read (a later record repeating one is a resume copy, which
    a whole read drops: read whole). `keys`: the last `_KEY_WINDOW` usage keys (message id,
    request id) with their usage, `older`: the others' hashes (a split reply's later records
    repeat its key and replace its usage). `pending`: leaves of summaries not in this file (a
    later record with such a uuid makes that summary the file's own). `prev`: what the merging
    of a split reply's text needs of the last entry."""

    agent: bool
    sid: str | None
    any_sid: str | None
    aid: str | None
    mains: int
    cwd: str | None
    branch: str | None
    prompt: str | None
    warm: bool
    command: str | None
    custom: str | None
    ai: str | None
    own: str | None
    last_summary: str | None
    pending: list[str]
    count: int
    first: datetime | None
    last: datetime | None
    models: list[str]
    prev: list[Any] | None
    usage: TokenUsage
    lines: int
    noise: int
    malformed: int
    conversation: int
    keys: dict[tuple[str, str], TokenUsage] = field(default_factory=dict)
    older: set[bytes] = field(default_factory=set)
    seen: set[bytes] = field(default_factory=set)

    def note_keys(self, items: Iterator[tuple[tuple[str, str], TokenUsage]] | Any) -> None:
        """Usage keys in the order first met (a key met again keeps its place), the window
        keeping the last `_KEY_WINDOW`."""
        for key, usage in items:
            self.keys[key] = usage
        while len(self.keys) > _KEY_WINDOW:
            key = next(iter(self.keys))
            del self.keys[key]
            self.older.add(hash8(_key_text(key)))

    def pack(self, more_seen: Iterable[Iterable[str]] = ()) -> bytes:
        """`more_seen`: uuids read besides `seen`, packed as their hashes one at a time (a 1 GB
        transcript's ~350k would be ~30 MB as a set of hashes, for a few MB of bytes)."""
        head = {
            "v": _CARRY_VERSION, "agent": self.agent, "sid": self.sid, "any": self.any_sid, "aid": self.aid,
            "mains": self.mains, "cwd": self.cwd, "branch": self.branch, "prompt": self.prompt,
            "warm": self.warm, "command": self.command, "custom": self.custom, "ai": self.ai,
            "own": self.own, "lastsum": self.last_summary, "pending": self.pending, "count": self.count,
            "first": self.first.isoformat() if self.first else None,
            "last": self.last.isoformat() if self.last else None,
            "models": self.models, "prev": self.prev, "usage": list(_usage_tuple(self.usage)),
            "account": [self.lines, self.conversation, self.noise, self.malformed],
            "keys": [[k[0], k[1], list(_usage_tuple(u))] for k, u in self.keys.items()],
            "older": len(self.older),
        }
        out = bytearray(orjson.dumps(head))
        out += b"\n"
        for h in self.older:
            out += h
        for h in self.seen:
            out += h
        for uuids in more_seen:
            for u in uuids:
                out += hash8(u)
        return bytes(out)

    @classmethod
    def unpack(cls, blob: bytes) -> _Carry | None:
        cut = blob.index(b"\n")
        h = orjson.loads(blob[:cut])
        if not isinstance(h, dict) or h.get("v") != _CARRY_VERSION:
            return None
        body = blob[cut + 1:]
        if len(body) % 8:
            return None
        hashes = [body[i:i + 8] for i in range(0, len(body), 8)]
        n_older = h["older"]
        lines, conversation, noise, malformed = h["account"]
        return cls(
            agent=h["agent"], sid=h["sid"], any_sid=h["any"], aid=h["aid"], mains=h["mains"], cwd=h["cwd"],
            branch=h["branch"], prompt=h["prompt"], warm=h["warm"], command=h["command"], custom=h["custom"],
            ai=h["ai"], own=h["own"], last_summary=h["lastsum"], pending=h["pending"], count=h["count"],
            first=datetime.fromisoformat(h["first"]) if h["first"] else None,
            last=datetime.fromisoformat(h["last"]) if h["last"] else None,
            models=h["models"], prev=h["prev"], usage=TokenUsage(*h["usage"]), lines=lines,
            noise=noise, malformed=malformed, conversation=conversation,
            keys={(m, r): TokenUsage(*u) for m, r, u in h["keys"]},
            older=set(hashes[:n_older]), seen=set(hashes[n_older:]),
        )


def _usage_tuple(u: TokenUsage) -> tuple[int, int, int, int]:
    return (u.input, u.output, u.cache_read, u.cache_creation)


def _extend(t: ClaudeParser, size: int, blob: bytes) -> Extension | None:
    """`ClaudeAdapter.extend`: the carried state of the part read, and the parser `t` fed the
    lines appended since. None (read whole) when those lines hold a summary record, repeat a
    record uuid of the part read (a resume copy), carry a uuid that is a leaf of an earlier
    summary, would make the file an agent file or not, or a sidechain (a child session), or
    repeat an older usage key than the last `_KEY_WINDOW`. Else the rules of `_finish`, worked
    out across the cut: a split reply's text merging into the last entry, a repeated usage key
    replacing its usage, the strongest title, the first cwd and prompt, the last branch and ids."""
    c = _Carry.unpack(blob)
    if c is None or t._summaries:
        return None
    pending = set(c.pending)
    for rec in t._recs:
        u = rec.uuid
        if u is not None and (_odd_uuid(u) or u in pending or hash8(u) in c.seen):
            return None
    path = t.path
    stem = _stem(path)
    sid, any_sid = t._session_id or c.sid, c.any_sid or t._any_session_id
    aid, mains = t._agent_id or c.aid, c.mains + t._main_records
    is_agent = _named_agent_file(path, stem) or (aid is not None and mains == 0)
    if is_agent != c.agent or (not is_agent and any(r.sidechain for r in t._recs)):
        return None

    usage_before = c.usage
    total = list(_usage_tuple(c.usage))
    for key, (usage, _rec) in t._usage.items():
        if key in c.keys:
            was = _usage_tuple(c.keys[key])
        elif hash8(_key_text(key)) in c.older:
            return None  # (which usage it replaces is not carried)
        else:
            was = (0, 0, 0, 0)
        total = [a - b + n for a, b, n in zip(total, was, _usage_tuple(usage))]
    c.note_keys((key, usage) for key, (usage, _rec) in t._usage.items())
    c.usage = TokenUsage(*total)

    raw = t._entries
    first_raw = raw[0] if raw else None
    joins = (first_raw is not None and c.prev is not None and c.prev[0] and first_raw.kind is EntryKind.TEXT
             and bool(first_raw.message_id) and first_raw.message_id == c.prev[1]
             and first_raw.role == c.prev[2])
    merged, _ = _merge_text(raw)
    fresh = merged[1:] if joins else merged
    c.count += _count(fresh)
    first, last = _span(fresh)
    c.first = min((x for x in (c.first, first) if x is not None), default=None)
    c.last = max((x for x in (c.last, last) if x is not None), default=None)
    models = dict.fromkeys(c.models)
    for e in fresh:
        if e.model and e.model != _SYNTHETIC:
            models.setdefault(e.model)
    c.models = list(models)
    if merged:
        c.prev = _prev_of(merged[-1])

    recs = t._recs
    c.sid, c.any_sid, c.aid, c.mains = sid, any_sid, aid, mains
    if c.cwd is None:
        c.cwd = next((r.cwd for r in recs if r.cwd), None)
    c.branch = next((r.branch for r in reversed(recs) if r.branch), None) or c.branch
    if c.prompt is None:
        prompt = next((r.prompt for r in recs if r.prompt), None)
        if prompt is not None:
            c.prompt, c.warm = one_line(prompt), prompt.strip() == "Warmup"
    if c.command is None:
        c.command = _line_or_none(next((r.command for r in recs if r.command), None))
    c.custom = _line_or_none(t._titles.get("custom")) or c.custom
    c.ai = _line_or_none(t._titles.get("ai")) or c.ai
    account = t.account
    c.lines += account.lines
    c.conversation += account.conversation
    c.noise += account.noise
    c.malformed += account.malformed
    c.seen.update(hash8(u) for u in t._nodes)
    c.seen.update(hash8(u) for u in t._via)

    picked = _pick_title([(RANK_CUSTOM, c.custom), (RANK_AI, c.ai), (RANK_SUMMARY, c.own),
                          (RANK_PROMPT, c.prompt), (RANK_COMMAND, c.command),
                          (RANK_COMMAND, c.last_summary if c.own is None else None)])
    rank, title = picked if picked else (RANK_NONE, None)
    kind, parent_id = SessionKind.MAIN, None
    if is_agent:
        session_id, parent_id, agent_id = _agent_session_id(path, stem, aid, any_sid)
        agent_type = _agent_type(path)
        if agent_type and rank <= RANK_PROMPT and title:
            title = f"{agent_type}: {title}"
        kind = _agent_kind(agent_id, c.warm and c.prompt is not None)
    else:
        session_id = _main_session_id(stem, sid, any_sid)
    session = Session(
        id=session_id, agent=t.agent, source_format=t.name, paths=(path,),
        kind=kind, project=c.cwd, title=title, first_timestamp=c.first, last_timestamp=c.last,
        entry_count=c.count, models=tuple(c.models), git_branch=c.branch, usage=c.usage,
        parent_id=parent_id, line_count=c.lines, malformed_count=c.malformed, noise_count=c.noise,
        size=size,
    )
    return Extension(session, c.pack(), fresh, usage_before)


# -- rules shared by the parser and the quick listing ---------------------------------------------
def _file_title(value: JSON, rtype: str) -> tuple[str, str] | None:
    """("custom" | "ai", title) of a custom-title / ai-title record."""
    if rtype == "custom-title":
        title = _s(value.get("customTitle")) or _s(value.get("title"))
        return ("custom", title) if title else None
    if rtype == "ai-title":
        title = _s(value.get("aiTitle")) or _s(value.get("title"))
        return ("ai", title) if title else None
    return None


def _user_text_kind(text: str, meta: bool, compact: bool) -> tuple[EntryKind, bool]:
    """The kind of a user text block, and whether it is harness markup (a slash command...)."""
    markup = bool(_MARKUP.match(text))
    return (EntryKind.COMPACTION if compact else EntryKind.META if meta or markup
            else EntryKind.TEXT), markup


def _is_prompt(kind: EntryKind, text: str) -> bool:
    return kind is EntryKind.TEXT and bool(text.strip()) and not text.startswith(_INTERRUPTED)


def _pick_title(candidates: list[tuple[int, str | None]]) -> tuple[int, str] | None:
    """The first usable (rank, text) of candidates listed strongest first, as a one-line title."""
    for rank, text in candidates:
        if text and text.strip():
            return rank, one_line(text)
    return None


def _named_agent_file(path: str, stem: str) -> bool:
    return stem.startswith("agent-") or (
        "subagents" in path and os.path.basename(os.path.dirname(path)) == "subagents")


def _main_session_id(stem: str, session_id: str | None, any_session_id: str | None) -> str:
    if _UUID.fullmatch(stem):
        return stem
    if session_id or any_session_id:
        return session_id or any_session_id or stem
    found = _UUID.search(stem)
    return found.group(0) if found else stem


def _agent_session_id(path: str, stem: str, agent_id: str | None,
                      any_session_id: str | None) -> tuple[str, str | None, str | None]:
    """(session id, parent session id, agent id) of a subagent file."""
    agent_id = agent_id or (stem[len("agent-"):] if stem.startswith("agent-") else None)
    directory = os.path.dirname(path)
    parent_id = any_session_id
    if parent_id is None and os.path.basename(directory) == "subagents":
        parent_id = os.path.basename(os.path.dirname(directory)) or None
    sid = f"agent-{agent_id}" if agent_id else stem
    if parent_id:
        sid = f"{parent_id}/{sid}"
    return sid, parent_id, agent_id


def _agent_kind(agent_id: str | None, warmup: bool) -> SessionKind:
    if (agent_id or "").startswith("acompact"):
        return SessionKind.COMPACTION
    return SessionKind.WARMUP if warmup else SessionKind.SUBAGENT


# -- small helpers ------------------------------------------------------------------------------
def _s(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _int(value: Any) -> int:
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return max(value, 0)
    if isinstance(value, float) and value == value and 0 <= value < 1e18:
        return int(value)
    return 0


def _usage(u: JSON) -> TokenUsage:
    return TokenUsage(_int(u.get("input_tokens")), _int(u.get("output_tokens")),
                      _int(u.get("cache_read_input_tokens")), _int(u.get("cache_creation_input_tokens")))


def _minus(a: TokenUsage, b: TokenUsage) -> TokenUsage:
    return TokenUsage(max(a.input - b.input, 0), max(a.output - b.output, 0),
                      max(a.cache_read - b.cache_read, 0), max(a.cache_creation - b.cache_creation, 0))


def _dump(value: Any) -> str:
    if value is None:
        return ""
    try:
        return orjson.dumps(value).decode()
    except (TypeError, orjson.JSONEncodeError):  # ints over 64 bits from the slow-path parser
        return json.dumps(value, ensure_ascii=False, default=str)


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        content = [content]
    if not isinstance(content, list):
        return _dump(content)
    parts = []
    for block in content:
        if isinstance(block, str):
            parts.append(block)
        elif isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
            parts.append(block["text"])
        elif isinstance(block, dict) and block.get("type") in ("image", "document"):
            parts.append(_media(block, str(block["type"])))
        else:
            parts.append(_dump(block))
    return "\n".join(parts)


def _media(block: JSON, btype: str) -> str:
    """A short placeholder for an image or document block; never its base64 data."""
    raw_source = block.get("source")
    source: JSON = raw_source if isinstance(raw_source, dict) else {}
    desc = btype
    media = _s(source.get("media_type")) or _s(block.get("media_type"))
    if media:
        desc += f" {media}"
    data = source.get("data")
    if isinstance(data, str):
        desc += f", {human_size(len(data) * 3 // 4 - data[-2:].count('='))}"
    elif _s(source.get("url")):
        desc += f", {source['url']}"
    if _s(block.get("title")):
        desc += f" “{block['title']}”"
    return f"[{desc}]"


def human_size(n: int) -> str:
    if n < 1024:
        return f"{n} B"
    if n < 1024 * 1024:
        return f"{n / 1024:.1f} KB"
    return f"{n / (1024 * 1024):.1f} MB"


def one_line(text: str, limit: int = _TITLE_CHARS) -> str:
    """`text` with whitespace runs made one space, cut to `limit` characters."""
    # (the first cut: a few characters past the limit, which a prompt's start usually keeps once
    # its whitespace is collapsed; a listing makes a title of one prompt a file)
    if len(text) > limit + 8:
        for cut in (limit + 8, 2 * limit + 8, 16 * limit):
            if len(text) > cut:  # a prompt can be a paste of megabytes: its start makes the title
                start = one_spaced(text[:cut])  # a prefix of the whole text's, so its cut is too
                if len(start) > limit:
                    return truncate(start, limit)
    return truncate(one_spaced(text), limit)


def _tag_text(text: str, tag: str) -> str | None:
    """What `<tag>\\s*(.*?)\\s*</tag>` (re.S) finds first in `text`: the text from the first `<tag>`
    to the first `</tag>` after it, stripped (str.strip's whitespace is re's `\\s`); None without
    that closing tag. In linear time: re tried each `<tag>` to the text's end, and each length of a
    run of spaces (a text of `<command-args>` a thousand times took seconds)."""
    start = text.find(f"<{tag}>")
    if start < 0:
        return None
    start += len(tag) + 2
    end = text.find(f"</{tag}>", start)
    return None if end < 0 else text[start:end].strip()


def _command(text: str) -> str | None:
    name = _tag_text(text, "command-name")
    if not name:
        return None
    args = _tag_text(text, "command-args")
    return f"{name} {args}".strip() if args is not None else name


def _is_warmup(recs: list[_Rec]) -> bool:
    prompt = next((r.prompt for r in recs if r.prompt), None)
    return prompt is not None and prompt.strip() == "Warmup"


class _Branches:
    """A stream's thread as int arrays, for branch marks: each record with a uuid gets a number
    (the parser's uuid map holds it); its parent and logical parent are kept as numbers (-1: none;
    a uuid not seen yet when the record was read is kept aside and looked up at the end), its
    reply's id and its tool ids as string hashes. `off_branch` follows `_active_uuids` step by
    step over these (a 64-bit hash of a reply or tool id standing for the id)."""

    CONVERSATION, SYSTEM, META, SIDECHAIN = 1, 2, 4, 8

    def __init__(self) -> None:
        self.line = array("i")
        self.parent = array("i")
        self.logical = array("i")
        self.flags = bytearray()
        self.mid = array("q")
        self.entries = array("i")  # entries each record gave
        self.uses: list[array] = [array("i"), array("q")]  # (record, tool id hash) of each tool call
        self.results: list[array] = [array("i"), array("q")]  # and of each tool result
        self.pending: dict[int, tuple[str | None, str | None]] = {}

    def add(self, rec: _Rec, parser: ClaudeParser) -> int:
        n = len(self.line)
        self.line.append(rec.line)
        parent, logical = self._link(rec.parent, parser), self._link(rec.logical_parent, parser)
        if parent == -2 or logical == -2:
            self.pending[n] = (rec.parent if parent == -2 else None, rec.logical_parent if logical == -2 else None)
        self.parent.append(parent)
        self.logical.append(logical)
        self.flags.append((self.CONVERSATION if rec.type in ("user", "assistant") else 0)
                          | (self.SYSTEM if rec.type == "system" else 0) | (self.META if rec.meta else 0)
                          | (self.SIDECHAIN if rec.sidechain else 0))
        self.mid.append(0)
        self.entries.append(0)
        return n

    @staticmethod
    def _link(uuid: str | None, parser: ClaudeParser) -> int:
        """A link as a record number: -1 for none, -2 for a uuid not seen yet (looked up at the end)."""
        if uuid is None:
            return -1
        found = parser._resolve(uuid)
        if found is None:
            return -1
        number = parser._nodes.get(found)
        return number if isinstance(number, int) else -2

    def fill(self, rec: _Rec) -> None:
        """What a record's message says once read: its reply and tool ids."""
        n = rec.number
        if rec.message_id:
            self.mid[n] = hash(rec.message_id) or 1
        for t in rec.tool_uses:
            self.uses[0].append(n)
            self.uses[1].append(hash(t))
        for t in rec.tool_results:
            self.results[0].append(n)
            self.results[1].append(hash(t))

    def off_branch(self, parser: ClaudeParser, sidechains: bool) -> tuple[frozenset[int], int]:
        n = len(self.line)
        for i, (p, lp) in self.pending.items():  # (links to records read after them)
            if p is not None:
                self.parent[i] = max(-1, self._link(p, parser))
            if lp is not None:
                self.logical[i] = max(-1, self._link(lp, parser))
        self.pending.clear()
        flags, parents, logicals = self.flags, self.parent, self.logical
        side = self.SIDECHAIN
        sel = bytearray(1 if sidechains or not f & side else 0 for f in flags)

        def parent(i: int) -> int:
            p = parents[i]
            if p >= 0 and sel[p]:
                return p
            lp = logicals[i]
            return lp if lp >= 0 and sel[lp] else -1

        cur = next((i for i in range(n - 1, -1, -1) if sel[i] and flags[i] & self.CONVERSATION), -1)
        if cur < 0:
            return frozenset(), 0
        active = bytearray(n)
        while cur >= 0:
            u = root = cur
            while u >= 0 and not active[u]:
                active[u] = 1
                root = u
                u = parent(root)
            if u >= 0:  # joined the active chain: nothing older is left to reach
                break
            cur = next((i for i in range(root - 1, -1, -1) if sel[i] and not active[i]), -1)
        mid = self.mid
        use_rec, use_id = self.uses
        res_rec, res_id = self.results
        changed = True
        while changed:
            changed = False
            mids = {mid[i] for i in range(n) if active[i] and mid[i]}
            calls = {use_id[j] for j in range(len(use_rec)) if active[use_rec[j]]}
            joined = {res_rec[j] for j in range(len(res_rec)) if res_id[j] in calls}
            for i in range(n):
                if sel[i] and not active[i] and ((mid[i] and mid[i] in mids) or i in joined):
                    active[i] = 1
                    changed = True
        for i in range(n):
            if sel[i] and not active[i] and flags[i] & (self.SYSTEM | self.META) and parent(i) >= 0 \
                    and active[parent(i)]:
                active[i] = 1
        lines, count = set(), 0
        for i in range(n):
            if sel[i] and not active[i] and self.entries[i]:
                lines.add(self.line[i])
                count += self.entries[i]
        return frozenset(lines), count


def _position(seq: list[_Rec], rec: _Rec) -> int:
    """Where `rec` is in `seq` (records in file order), found by its line: no map of every
    record to its place (~20 MB for a 1 GB transcript)."""
    i = bisect_left(seq, rec.line, key=_line_of)
    while seq[i] is not rec:  # (the records of one line: a line can hold several values)
        i += 1
    return i


def _line_of(rec: _Rec) -> int:
    return rec.line


def _merge_text(entries: list[Entry]) -> tuple[list[Entry], dict[str, list[Locator]]]:
    """Consecutive TEXT blocks of one split assistant reply become one entry (the first's id)."""
    out: list[Entry] = []
    merged: dict[str, list[Locator]] = {}
    for e in entries:
        prev = out[-1] if out else None
        if (prev is not None and e.kind is EntryKind.TEXT and prev.kind is EntryKind.TEXT
                and e.message_id and e.message_id == prev.message_id and e.role == prev.role):
            parts = [t for t in (prev.text, e.text) if t.strip()]
            out[-1] = replace(prev, text="\n\n".join(parts) if parts else prev.text + e.text)
            merged.setdefault(prev.id, []).append(e.locator)
            continue
        out.append(e)
    return out, merged


def _count(entries: list[Entry]) -> int:
    return sum(1 for e in entries if e.kind is not EntryKind.MALFORMED)


def _span(entries: list[Entry]) -> tuple[datetime | None, datetime | None]:
    # (Unknown records' times are shown with them but do not stretch the session: the listing,
    # which reads only the file's ends, does not know them as entries with a time.)
    stamps = [e.timestamp for e in entries if e.timestamp is not None and e.kind is not EntryKind.UNKNOWN]
    return (min(stamps), max(stamps)) if stamps else (None, None)


def _ts_key(ts: datetime | None) -> tuple[bool, datetime]:
    return (ts is None, ts or datetime.min.replace(tzinfo=timezone.utc))


def _stem(path: str) -> str:
    name = basename(path)
    return name[: -len(".jsonl")] if name.endswith(".jsonl") else name


def _size_of(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def _agent_type(path: str) -> str | None:
    """`agentType` from the 2.1.x `agent-<id>.meta.json` next to a subagent file."""
    if not path.endswith(".jsonl"):
        return None
    # (one descriptor, no file object: a listing asks this of every subagent file; a missing,
    # non-regular or unreadable file has none, and a FIFO is never waited on)
    try:
        fd = os.open(path[: -len(".jsonl")] + ".meta.json", os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None
        want = min(st.st_size, 65536)
        data = os.read(fd, 65536)
        while len(data) < want and (more := os.read(fd, 65536 - len(data))):  # (a short read)
            data += more
        value = orjson.loads(data)
    except (OSError, orjson.JSONDecodeError):
        return None
    finally:
        os.close(fd)
    return _s(value.get("agentType")) if isinstance(value, dict) else None


# -- quick listing: the main session of a file from its first and last 64 KB (core/read/listing.py) ---
_CONV = ("user", "assistant", "system")
_TITLE_TYPES = ("custom-title", "ai-title", "summary")


class _Shape:
    """What one record gives its session, as far as a listing needs: `conv` for a registered
    user/assistant/system record, `entries` whether it yields any entry, and what `_merge_text`
    looks at (an assistant record whose blocks are all text merges into the text before it).
    (A plain class, not a record: a listing makes one or two a file, and this one is made in
    two thirds of the time.)"""

    __slots__ = ("conv", "entries", "side", "ts", "mid", "all_text", "last_text", "value", "title", "texts")

    def __init__(self, conv: bool = False, entries: bool = False, side: bool = False,
                 value: JSON | None = None, title: JSON | None = None) -> None:
        self.conv = conv
        self.entries = entries
        self.side = side
        self.ts: datetime | None = None
        self.mid: str | None = None
        self.all_text = self.last_text = False
        self.value = value  # a conversation record's
        self.title = title  # a custom-title, ai-title or summary record
        self.texts: tuple[str | None, str | None] | None = None  # (prompt, command), once looked for


_NOISE_SHAPE = _Shape()
_ENTRY_SHAPE = _Shape(entries=True)  # malformed, unknown or summary: an entry without a time


def _shapes(values: tuple[Any, ...] | None, seen: set[str] | None) -> list[_Shape] | tuple[_Shape, ...]:
    """The shapes of one line's values (a line that is not JSON is one malformed entry)."""
    if values is None:
        return _MALFORMED_LINE
    if len(values) == 1:  # the usual line: one value
        return (_shape(values[0], seen),)
    return [_shape(v, seen) for v in values]


_MALFORMED_LINE = (_ENTRY_SHAPE,)
_TEXT_BLOCKS = ("text", "image", "document")


def _shape(value: Any, seen: set[str] | None) -> _Shape:
    """Mirror of `ClaudeParser._record` for one value; `seen` (uuids met so far, when known)
    makes a repeated uuid noise, as the parser does with resume copies."""
    if not isinstance(value, dict):
        return _ENTRY_SHAPE
    get = value.get
    rtype = get("type")
    if rtype not in _CONV:
        if seen is not None and rtype != "summary":
            uuid = get("uuid")
            if uuid and isinstance(uuid, str):
                seen.add(uuid)
        if rtype in _TITLE_TYPES:
            return _Shape(False, rtype == "summary", title=value)
        return _ENTRY_SHAPE if rtype not in _NOISE_TYPES else _NOISE_SHAPE
    if seen is not None:
        uuid = get("uuid")
        if uuid and isinstance(uuid, str):
            if uuid in seen:
                return _NOISE_SHAPE
            seen.add(uuid)
    shape = _Shape(True, True, get("isSidechain") is True, value=value)
    if rtype != "system":
        msg = get("message")
        if isinstance(msg, dict):
            content = msg.get("content")
        elif isinstance(msg, str):
            content, msg = msg, {"content": msg}
        else:
            return shape  # an unknown entry: no time
        if isinstance(content, str):
            blocks: list[Any] = [content]
        elif isinstance(content, list) and content:
            blocks = content
        else:  # no blocks
            shape.entries = False
            return shape
        if rtype == "assistant":
            text = [isinstance(b, str) or (isinstance(b, dict) and b.get("type") in _TEXT_BLOCKS)
                    for b in blocks]
            mid = msg.get("id")
            shape.mid, shape.all_text, shape.last_text = (
                mid if mid and isinstance(mid, str) else None), all(text), text[-1]
    shape.ts = parse_timestamp(get("timestamp"))
    return shape


def _merged_away(shape: _Shape, prev: _Shape | None) -> bool:
    """True when every entry of `shape` merges into the entry before it (so its time is lost)."""
    return (shape.all_text and shape.mid is not None and prev is not None
            and prev.mid == shape.mid and prev.last_text)


class _Track:
    """One grouping of a file's records (the main thread's, or all of an agent file's) read from
    the top: its first cwd, prompt, command and time."""

    __slots__ = ("cwd", "first", "prompt", "command", "prev")

    def __init__(self) -> None:
        self.cwd: str | None = None
        self.first: datetime | None = None
        self.prompt: str | None = None
        self.command: str | None = None
        self.prev: _Shape | None = None

    def add(self, shape: _Shape) -> None:
        if self.first is None and shape.ts is not None and not (
                shape.all_text and _merged_away(shape, self.prev)):
            self.first = shape.ts
        if shape.entries:
            self.prev = shape
        value = shape.value
        if value is None:
            return
        self.cwd = self.cwd or _s(value.get("cwd"))
        if self.prompt is None or self.command is None:
            if shape.texts is None:
                shape.texts = _user_texts(value) if value.get("type") == "user" else (None, None)
            self.prompt = self.prompt or shape.texts[0]
            self.command = self.command or shape.texts[1]


def _user_texts(value: JSON) -> tuple[str | None, str | None]:
    """(prompt, command) of a user record, as `ClaudeParser._user_block` finds them."""
    msg = value.get("message")
    content = msg if isinstance(msg, str) else msg.get("content") if isinstance(msg, dict) else None
    blocks = [content] if isinstance(content, str) else content if isinstance(content, list) else []
    meta, compact = value.get("isMeta") is True, value.get("isCompactSummary") is True
    prompt = command = None
    plain = not (meta or compact)
    for block in blocks:
        text = block if isinstance(block, str) else (
            _s(block.get("text")) or "" if isinstance(block, dict) and block.get("type") == "text"
            else None)
        if text is None:
            continue
        # (`_user_text_kind` and `_is_prompt` inline: a prompt is a TEXT block, neither meta,
        # compact nor markup, not blank, not an interruption)
        if _MARKUP.match(text) is not None:
            if command is None:
                command = _command(text)
        elif (prompt is None and plain and text and not text.isspace()
              and not text.startswith(_INTERRUPTED)):
            prompt = text
    return prompt, command


class _Tail:
    """The records of a file read from the end backward until it has the time of the last entry
    of the grouping (a reply merged into the text before it has none of its own), the last agent
    id or main-thread session id where they are wanted, and whether main-thread records exist."""

    def __init__(self, tail_values: Iterable[tuple[Any, ...] | None], whole: bool, agent_file: bool,
                 need_sid: bool, need_main: bool) -> None:
        # (in locals while the walk goes, set once at its end: a listing makes one a file)
        last: datetime | None = None
        agent_id: str | None = None
        session_id: str | None = None
        main = found = False
        pending: _Shape | None = None  # an all-text reply: its time depends on the entry before it
        for values in tail_values:
            # (the usual line holds one value: its shape alone, no list to reverse)
            for shape in ((_shape(values[0], None),) if values is not None and len(values) == 1
                          else reversed(_shapes(values, None))):
                value = shape.value
                if shape.conv and value is not None:
                    if shape.side:
                        agent_id = agent_id or _s(value.get("agentId"))
                    else:
                        main = True
                        session_id = session_id or _s(value.get("sessionId"))
                if found or not shape.entries or (shape.side and not agent_file):
                    continue
                if pending is not None:
                    if not _merged_away(pending, shape):
                        last, found = pending.ts, True
                        continue
                    pending = None
                if shape.ts is None:
                    continue
                if shape.all_text and shape.mid is not None:
                    pending = shape
                else:
                    last, found = shape.ts, True
            if (found and (agent_id or not agent_file) and (session_id or not need_sid)
                    and (main or not need_main)):
                break
        else:
            if not found and pending is not None and whole:
                # The first entry of the file: nothing before it to merge into.
                last, found = pending.ts, True
        self.last, self.agent_id, self.session_id, self.main, self.found = last, agent_id, session_id, main, found


def _quick(adapter: ClaudeAdapter, ends: Ends) -> QuickMeta:
    look = _title_look()
    return _quick_of(adapter, ends.path, ends.size, ends.mtime, ends.whole, ends.head_values(look),
                     ends.tail_values_backward, look)


def _quick_lane(adapter: ClaudeAdapter, path: str, ht: HeadTail, nbytes: int,
                narrow: bool) -> QuickMeta | None:
    """`ClaudeAdapter.quick_lane`: the listing's answer for the usual head (three lines, each one
    JSON object, that Claude's sniffer takes), its lines read straight from the buffers; None
    for any other head, or when the head walk runs out of lines: the listing then asks as it
    does every format."""
    head = ht.head
    e1 = head.find(b"\n")
    e2 = head.find(b"\n", e1 + 1) if e1 > 0 else -1
    e3 = head.find(b"\n", e2 + 1) if e2 > 0 else -1
    if e3 < 0 or e3 + 1 >= nbytes or head[:3] == _BOM:
        return None  # (the sniffers would see other lines than these three)
    try:
        view = memoryview(head)  # (slices of it are not copied)
        first = (_loads(view[:e1]), _loads(view[e1 + 1:e2]), _loads(view[e2 + 1:e3]))
    except _DecodeError:
        return None
    claude = other = 0
    for rec in first:  # `ClaudeAdapter.sniff` on those lines
        if type(rec) is not dict:
            return None
        verdict = _classify(rec)
        if verdict is True:
            claude += 1
        elif verdict is False:
            other += 1
    if claude <= other:
        return None
    whole, ran_out, look = ht.tail is head, [False], _title_look()
    # A small file read whole is one buffer: a line the head walk parsed, the tail's is not
    # parsed again (a short session ending in a reply reads back to the prompt the head read).
    memo = {0: (first[0],), e1 + 1: (first[1],), e2 + 1: (first[2],)} if whole else None

    def head_values() -> Iterator[tuple[Any, ...]]:
        # (the three lines parsed for the sniff, then the rest: each line through `look` alike)
        for start, end, value in ((0, e1, first[0]), (e1 + 1, e2, first[1]), (e2 + 1, e3, first[2])):
            if look.active:
                if look.past(start):
                    return
                if not look.wants(head, start, end):
                    yield ()
                    continue
            yield (value,)
        yield from head_values_from(head, e3 + 1, whole, ran_out, look, memo)

    meta = _quick_of(adapter, path, ht.size, ht.mtime, whole, head_values(),
                     lambda: tail_values(ht.tail, whole, memo), look)
    return None if narrow and ran_out[0] else meta


def _quick_of(adapter: ClaudeAdapter, path: str, size: int, mtime: float, whole: bool,
              head_values: Iterator[tuple[Any, ...] | None],
              tail_values: Callable[[], Iterable[tuple[Any, ...] | None]], look: Look) -> QuickMeta:
    """The quick listing from the values of the head's lines from the top and (asked for when
    needed) of the tail's from the end; `look`, the head's: once the grouping knows all but its
    prompt, the walk goes on for it through `_TITLE_LOOK` bytes more only, parsing only the
    lines that may hold a prompt, a command or a title record (`_may_title`)."""
    stem = _stem(path)
    named = _named_agent_file(path, stem)
    uuid_stem = len(stem) == 36 and _UUID.fullmatch(stem) is not None
    unsure: set[str] = set()

    # Head, in file order, until the grouping that applies has them: the first cwd, prompt and
    # time of the main-thread records and of all records (an agent file's).
    seen: set[str] = set()
    main, every = _Track(), _Track()
    track: _Track | None = None  # the grouping that applies, once the head tells
    agent_id = any_sid = None
    main_records = 0
    titles: list[JSON] = []
    for values in head_values:
        for shape in ((_shape(values[0], seen),) if values is not None and len(values) == 1
                      else _shapes(values, seen)):  # (`_shapes`, its usual case without the call)
            if shape is _NOISE_SHAPE:
                continue
            value = shape.value
            if value is None:
                if shape.title is not None:
                    titles.append(shape.title)
            elif shape.conv:
                if any_sid is None:
                    any_sid = _s(value.get("sessionId"))
                if shape.side:
                    agent_id = _s(value.get("agentId")) or agent_id
                else:
                    main_records += 1
                    if not named:
                        track = main  # (settled: the grouping of all records is never asked then)
            if track is not main:
                every.add(shape)
            if track is not every and not shape.side:
                main.add(shape)
        if track is None and (named or main_records):
            track = every if named else main
        if (track is not None and any_sid and track.cwd is not None and track.first is not None
                and not look.active):  # the grouping knows its cwd and first time
            if track.prompt is not None:  # and its prompt
                break
            look.active = True  # a prompt (for a title, a guess) is looked for a little further
        elif look.active and track.prompt is not None:  # (`track` is set by then)
            break
    # An agent file holds sidechain records only; a head without main-thread records leaves it
    # to the tail (and, in the unseen middle, possibly to the full parse).
    is_agent = named or (main_records == 0 and agent_id is not None)
    need_sid = not is_agent and not uuid_stem
    tail = _Tail(tail_values(), whole, is_agent, need_sid, not (main_records or named))
    if not named and not main_records and not whole:
        if tail.main and is_agent:  # the tail was read as an agent file's
            is_agent = False
            unsure.update(("last_timestamp", "session_id"))
        elif not tail.main:  # sidechain records only in sight: an agent file, or not
            unsure.update(FIELDS)
    track = every if is_agent else main
    if not whole:
        if track.cwd is None:
            unsure.add("project")
        if track.first is None:
            unsure.add("first_timestamp")
        if not tail.found:
            unsure.add("last_timestamp")

    title, rank = _quick_title(track, seen, titles)
    unsure.add("title")
    if is_agent:
        if not whole and (not tail.agent_id or any_sid is None):
            unsure.update(("session_id", "kind"))
        sid, _parent, aid = _agent_session_id(path, stem, tail.agent_id or agent_id, any_sid)
        if every.prompt is None and (not whole or look.active):  # (a looked-for prompt: a guess)
            unsure.add("kind")
        kind = _agent_kind(aid, every.prompt is not None and every.prompt.strip() == "Warmup")
        agent_type = _agent_type(path) if title and rank <= RANK_PROMPT else None
        if agent_type:
            title = f"{agent_type}: {title}"
    else:
        if need_sid and not tail.session_id and not whole:
            unsure.add("session_id")
        sid = stem if uuid_stem else _main_session_id(stem, tail.session_id, any_sid)
        kind = SessionKind.MAIN
    return QuickMeta(path, size, mtime, adapter.agent, adapter.name, sid, kind, track.cwd, title,
                     track.first, tail.last, frozenset(unsure), whole)


#: how many bytes of a file's head past the line that settled all else a listing looks through
#: for a prompt (`Look`; a title is a guess): a session started by a slash command (`/init`, a
#: command of the user's own) has none for many lines, or none at all
_TITLE_LOOK = 8192


def _title_look() -> Look:
    return Look(_TITLE_LOOK, _may_title)


def _may_title(buf: bytes, start: int, end: int) -> bool:
    """Whether the line at `buf[start:end]` may hold what a title is made of: a user record's
    prompt or command, but not a tool result's (its text is a tool's), or a title record (a
    custom or AI title, a summary). Over the raw bytes: a parse of every line is what a look
    for a prompt costs a session started by a command (a few false yeses cost only a parse)."""
    find = buf.find
    if find(b'"user"', start, end) >= 0:
        return find(b'"tool_result"', start, end) < 0
    return find(b'-title"', start, end) >= 0 or find(b'"summary"', start, end) >= 0


def _quick_title(track: _Track, seen: set[str], head_titles: list[JSON]) -> tuple[str | None, int]:
    """(title, its rank) by the parser's rules, from the records the head walk read. A guess:
    a rename (custom title) or AI title can be anywhere, and looking at every line of even a
    small file costs more than the rest of its listing."""
    if not head_titles and track.prompt:  # (a prompt is never blank: `_is_prompt`)
        return one_line(track.prompt), RANK_PROMPT  # the usual head: no title records in it
    custom = ai = None
    summaries: list[tuple[str, str]] = []
    for value in head_titles:
        rtype = value["type"]
        named = _file_title(value, rtype)
        if named and named[0] == "custom":
            custom = named[1]
        elif named:
            ai = named[1]
        elif rtype == "summary" and _s(value.get("summary")):
            summaries.append((_s(value.get("leafUuid")) or "", value["summary"]))
    own = [text for leaf, text in summaries if leaf in seen]
    foreign = summaries[-1][1] if summaries and not own else None
    picked = _pick_title([(RANK_CUSTOM, custom), (RANK_AI, ai), (RANK_SUMMARY, own[-1] if own else None),
                          (RANK_PROMPT, track.prompt), (RANK_COMMAND, track.command),
                          (RANK_COMMAND, foreign)])
    return (picked[1], picked[0]) if picked else (None, RANK_NONE)
