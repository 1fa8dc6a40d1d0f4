"""OpenAI Codex rollouts (`~/.codex/sessions/**/rollout-*.jsonl[.zst]`, older `rollout-*.json`).

Why: Codex writes each turn two or three times (the model-facing `response_item`s and the UI's
`event_msg`s), repeats cumulative token counts, and changed its file format three times; this
adapter reads every era and shows each turn once.

Eras read (content-sniffed, see FORMATS.md §2.2):
  * TypeScript codex (Apr-May 2025): `rollout-*.json`, one pretty-printed JSON document
    `{"session": {"timestamp", "id", "instructions"}, "items": [...]}`. Read whole with orjson in
    `load`. Each item is one record whose locator is the byte offset and 1-based line where the
    item's JSON starts in the file (found by a small structural scan; offset 0 / line 1 when the
    scan cannot align with the parsed items), and whose raw text is that slice of the file. The
    `account` of such a file counts records (the session header plus one per item), not lines.
  * early Rust (<= 0.2x): JSONL, line 1 a bare header `{"id", "timestamp", "instructions",
    "git"?}`, then `{"record_type": "state"}` markers and bare response items.
  * wrapped (0.3x, Sept 2025 on): `{"timestamp", "type", "payload"}` on every line; the 2026
    paginated variant adds an `ordinal`, which is ignored. `.jsonl.zst` goes through `RecordFile`.

One stream per turn. Codex writes the user prompt as `response_item/message role=user` and again
as `event_msg/user_message`, assistant text as `event_msg/agent_message` and
`response_item/message role=assistant`, reasoning as `event_msg/agent_reasoning` (one per summary
part) and `response_item/reasoning`. The parser is fed line by line (full loads, incremental index
updates and live tails share it), so it cannot look ahead: of two twins the one that arrives
first is kept and the later one is noise. In every era seen that is the `response_item` for user
prompts and the `event_msg` for assistant text and reasoning. Twins are matched by their text; when
the texts differ (some redacted corpora rewrite the two streams differently) a later twin is
paired by position with the most recent unmatched entry(ies) of the other stream. The window for
a match is short: user twins are dropped from it once the assistant answers, assistant/reasoning
twins once a tool call or a new prompt is emitted. A file with only one stream (older eras,
cut-off writes) thus shows that stream whole.

Other rules:
  * injected context (`<environment_context>`, `<user_instructions>`, `# AGENTS.md instructions`,
    any message that is one `<tag>...</tag>` block) and developer/system messages are META;
  * reasoning with no readable text (only `encrypted_content`) is noise;
  * `token_count` lines are noise; a repeat of the previous cumulative total is skipped, the
    session's usage is the sum of `last_token_usage` of the others (equal to the final
    `total_token_usage`). `input_tokens` includes `cached_input_tokens`, so input = the uncached
    part and cache_read = the cached part; `output_tokens` already contains
    `reasoning_output_tokens` (added only if `total_tokens` shows it was not);
  * `compacted`, `response_item/compaction` and `event_msg/context_compacted` of one compaction
    give one COMPACTION entry; `turn_aborted`, errors, warnings, rollbacks, review mode -> SYSTEM;
  * session_meta, turn_context, task/turn start/complete, ghost_snapshot, `record_type: state`,
    and the `*_end` tool events (duplicates of the tool outputs) are noise; a second
    `session_meta` (the parent's, replayed into a forked file) is noise;
  * entry ids are `L{line}`, or `L{line}.{n}` (n from 1) when one line yields several entries.
"""
from __future__ import annotations

import os
import re
import shlex
from dataclasses import replace
from datetime import datetime
from typing import Any, Callable, Iterator

import orjson

from ...text import LazyPattern
from ..jsonl import HeadTail, ParsedLine, RawLine, RecordFile, loads_lenient
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
from ..ends import (Ends, Lines, QuickMeta, first_json_lines, last_stamp, last_stamp_of, line_values,
                    tail_values)
from .base import (KeepingParser, LoadedSession, ResumingAdapter, UsagePart,
                   is_codex_record, load_json_document, results_named, walk_files)
from .base import json_text as _dumps

_WRAPPED_HEAD = LazyPattern(
    rb'^\s*\{\s*"timestamp"\s*:\s*"[^"]*"\s*,\s*(?:"ordinal"\s*:\s*\d+\s*,\s*)?'
    rb'"type"\s*:\s*"(?:session_meta|response_item|event_msg|turn_context|compacted)"'
)
_BARE_HEADER_HEAD = LazyPattern(
    rb'^\s*\{\s*"id"\s*:\s*"[^"]*"\s*,\s*"timestamp"\s*:\s*"[^"]*"\s*,\s*"instructions"\s*:'
)
_TS_HEAD = LazyPattern(rb'^\s*\{\s*"session"\s*:\s*\{')
_UUID = LazyPattern(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
_EXIT = LazyPattern(r"(?:Process exited with code|Exit code:)\s*(-?\d+)")
_CWD_TAG = LazyPattern(r"<cwd>\s*([^<]+?)\s*</cwd>")
_INJECTED_PREFIXES = (
    "<environment_context>",
    "<user_instructions>",
    "<INSTRUCTIONS>",
    "# AGENTS.md instructions",
    "<user_shell_command>",
    "<turn_aborted>",
    "<skill>",
    "<subagent_notification>",
    "<permissions instructions>",
)
# A message that is exactly one `<tag ...>...</tag>` block is harness-injected context
# (`_one_block`); a tag's name:
_TAG_NAME = LazyPattern(r"[A-Za-z_][\w\- ]*")
_IDE_REQUEST = "## My request for Codex:"
_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "fish", "pwsh", "powershell", "cmd", "cmd.exe"})
_NOISE_EVENTS = frozenset(
    {
        "token_count",  # read for usage, then dropped
        "task_started",
        "task_complete",
        "turn_started",
        "turn_complete",
        "thread_settings_applied",
        "session_configured",
        "plan_update",  # duplicate of the update_plan function_call
        "patch_apply_begin",
        "patch_apply_end",
        "exec_command_begin",
        "exec_command_end",
        "mcp_tool_call_begin",
        "mcp_tool_call_end",
        "web_search_begin",
        "web_search_end",
        "image_generation_end",
        "agent_message_delta",
        "agent_reasoning_delta",
        "agent_reasoning_raw_content_delta",
        "agent_reasoning_section_break",
        "realtime_conversation_closed",
        "background_event",
        "item_started",
    }
)
_NOISE_ITEMS = frozenset({"ghost_snapshot", "additional_tools", "compaction_trigger", "other"})
_TOOL_CALLS = frozenset(
    {
        "function_call",
        "custom_tool_call",
        "local_shell_call",
        "web_search_call",
        "image_generation_call",
        "tool_search_call",
    }
)
_TOOL_OUTPUTS = frozenset({"function_call_output", "custom_tool_call_output", "tool_search_output"})

ITEM, EVENT = "item", "event"


class CodexAdapter(ResumingAdapter):
    name = "codex"
    agent = "codex"
    suffixes = (".jsonl", ".jsonl.zst", ".json")

    def likely(self, path: str) -> bool:
        """A rollout's name (`rollout-<time>-<uuid>.jsonl`)."""
        return "rollout-" in path and os.path.basename(path).startswith("rollout-")

    def sniff(self, path: str, head: bytes) -> bool:
        if head.startswith(b"\xef\xbb\xbf"):
            head = head[3:]
        if path.endswith(".json"):
            return bool(_TS_HEAD.match(head))
        objs = first_json_lines(head, 1)
        if objs and (is_codex_record(objs[0]) or _is_bare_header(objs[0])):
            return True
        # The first line may be longer than the head (base_instructions, huge instructions).
        return bool(_WRAPPED_HEAD.match(head) or _BARE_HEADER_HEAD.match(head))

    def parser(self, path: str) -> CodexParser:
        return CodexParser(path)

    def read_grown(self, path: str, rf: RecordFile, offset: int, line: int,
                   old_end: int, carried: bytes | None = None) -> LoadedSession | None:
        """`Adapter.read_grown`: a rollout has no branches, so its lines from `offset` read alone
        give the whole reading's last entries with the appended ones after them when what the
        parser carries into those lines is the same either way: every twin window was closed
        in the lines before them (a tool call or output emitted: the twins still waiting are then
        of these lines alone), the model a reply is written by was set in them (a turn context),
        and each tool output appended answers a call read here (its tool's name)."""
        parser = self.parser(path)
        got = self.grown_session(parser, rf, offset, line, old_end,
                                 lambda: parser._cleared and parser._model is not None)
        return got[0] if got is not None and results_named(got[0].entries, got[1]) else None

    def quick(self, ends: Ends) -> QuickMeta:
        """Id, project, kind and title by the parser's own rules, from the head's lines fed to it
        (see `_quick_head`); the last record gives the last time."""
        if ends.path.endswith(".json"):
            return self._quick_document(ends)
        parser, title, sure_title, cut = self._quick_head(ends)
        return self._quick_meta(ends.path, ends.size, ends.mtime, ends.whole, parser, title, sure_title,
                                cut, last_stamp(ends, _record_ts))

    def quick_lane(self, path: str, ht: HeadTail, nbytes: int, narrow: bool) -> QuickMeta | None:
        """`quick`'s answer for the usual head (a first line that is one wrapped session_meta with
        a cwd, which Codex's sniffer takes, and a prompt event in the head), its lines read
        straight from the buffers; None for any other file (the listing then reads it as it
        does every format)."""
        head = ht.head
        e1 = head.find(b"\n")
        if e1 <= 0 or path.endswith(".json") or head[:3] == _BOM:
            return None
        if e1 >= nbytes:
            return None  # (the sniffer would not see the first line whole)
        view = memoryview(head)  # (slices of it are not copied)
        values = line_values(view[:e1])
        first = values[0] if values else None
        if type(first) is not dict or not (is_codex_record(first) or _is_bare_header(first)):
            return None  # (`sniff` on the first line; what else it tries, the listing asks)
        meta = _meta_line(values)
        if meta is None:
            return None
        # The first prompt event: the head's complete lines after the first (`_quick_head`).
        find, pos, title = head.find, e1 + 1, None
        whole = ht.tail is head
        while title is None:
            nl = find(b"\n", pos)
            if nl < 0:
                if pos == e1 + 1 and not narrow and (pos == len(head) or not whole):
                    # The first line is the head's only complete line (a session that never
                    # had a prompt): the parser fed it has the meta line's state, no title.
                    return self._quick_meta(path, ht.size, ht.mtime, whole, meta, None, False, False,
                                            last_stamp_of(tail_values(ht.tail, whole), _record_ts))
                return None  # (none in the head: the parser reads it all, the general way)
            if _may_title(head, (pos, nl)):
                for value in line_values(view[pos:nl]) or ():
                    title = _prompt_event(value, _TITLE_CHARS)
                    if title is not None:
                        break
            pos = nl + 1
        return self._quick_meta(path, ht.size, ht.mtime, whole, meta, title, True, False,
                                last_stamp_of(tail_values(ht.tail, whole), _record_ts))

    def _quick_meta(self, path: str, size: int, mtime: float, whole: bool, parser: CodexParser | _MetaLine,
                    title: str | None, sure_title: bool, cut: bool, last: datetime | None) -> QuickMeta:
        """The listing from what `_quick_head` found and the last record's time."""
        project = parser._cwd or parser._cwd_fallback
        unsure: set[str] = set()
        if not whole:
            if cut or not parser._meta_seen:
                # Without a session_meta line, or with the start of one too long for the head
                # (a guess: the line may end broken), id and kind are the full parse's to say.
                unsure.update(("session_id", "kind", "project", "first_timestamp"))
            if project is None:
                unsure.add("project")
            if not sure_title:
                unsure.add("title")
            if parser._first_ts is None:
                unsure.add("first_timestamp")
            if last is None:
                unsure.add("last_timestamp")
        return QuickMeta(path, size, mtime, self.agent, self.name, parser._session_id or _name_session_id(path),
                         parser._kind(), project, truncate(title, _TITLE_CHARS) if title else None, parser._first_ts,
                         last or parser._last_ts, frozenset(unsure), whole)

    def _quick_head(self, ends: Ends) -> tuple[CodexParser | _MetaLine, str | None, bool, bool]:
        """(a parser fed the head, the title, whether it is the first prompt event's, whether the
        session_meta was guessed from the start of a line too long for the head).

        The common shape is quick: a first line that is a session_meta with its cwd, then the
        first prompt event, found by the lines' first bytes and parsed alone. Any other head is
        fed to the parser line by line, for its fallbacks (cwd from turn_context or <cwd>, the
        first user item as title)."""
        head, pieces = ends.head, ends.head_pieces()
        first = next(pieces, None)
        if first is None:  # not even one complete line: the window may cut a long session_meta
            parser = self.parser(ends.path)
            cut = not ends.whole and _cut_session_meta(parser, head.buf[head.first:])
            return parser, None, False, cut
        parser = _meta_line(head.values(first))  # the usual first line, read without the parser
        if parser is None:
            parser = self.parser(ends.path)
            _feed(parser, head, first)
        if parser._meta_seen and parser._cwd:
            for piece in pieces:
                if _may_title(head.buf, piece):
                    for value in head.values(piece) or ():
                        title = _prompt_event(value)
                        if title is not None:
                            return parser, title, True, False
            parser, pieces = self.parser(ends.path), ends.head_pieces()  # none: read it all
        for piece in pieces:
            _feed(parser, head, piece)
        return parser, parser._title_event or parser._title_item, parser._title_event is not None, False

    def _quick_document(self, ends: Ends) -> QuickMeta:
        """A TypeScript-era document is one JSON value: read whole when small, else unsure."""
        if not ends.whole:
            return ends.meta(self, session_id=_name_session_id(ends.path))
        session = self.load(ends.path)[0].session
        return ends.meta(self, (), session_id=session.id, kind=session.kind,
                         project=session.project, title=session.title,
                         first_timestamp=session.first_timestamp,
                         last_timestamp=session.last_timestamp)

    def grows(self, path: str) -> bool:
        return not path.endswith(".json")  # a TypeScript-era document is one JSON value, not lines

    continues = True
    narrow_ends = True
    carries = True

    def load(self, path: str, record_file: RecordFile | None = None) -> list[LoadedSession]:
        if path.endswith(".json"):
            return self._load_json_document(path)
        return super().load(path, record_file)

    def discover(self, root: str) -> Iterator[str]:
        found = [p for p in walk_files(root, self.suffixes) if os.path.basename(p).startswith("rollout-")]
        plain = set(found)
        for p in found:
            if p.endswith(".zst") and p[: -len(".zst")] in plain:
                continue  # the plain twin of a compressed rollout wins
            yield p

    def link(self, sessions: list[LoadedSession]) -> None:
        """Fill `child_ids` of threads that others were spawned by or forked from."""
        by_id = {ls.session.id: ls for ls in sessions}
        children: dict[str, list[str]] = {}
        for ls in sessions:
            parent = ls.session.parent_id
            if parent and parent in by_id and parent != ls.session.id:
                children.setdefault(parent, []).append(ls.session.id)
        for parent, kids in children.items():
            ls = by_id[parent]
            merged = tuple(dict.fromkeys((*ls.session.child_ids, *kids)))
            ls.session = replace(ls.session, child_ids=merged)

    # -- TypeScript era: one JSON document ------------------------------------------------
    def _load_json_document(self, path: str) -> list[LoadedSession]:
        # Codex rewrote this file on every change; a half-written one is one bad record.
        loaded = load_json_document(self.parser(path), path, "items")
        for ls in loaded:
            ls.entries = _unique_ids(ls.entries)
        return loaded


class CodexParser(KeepingParser):
    """State of one rollout: session metadata, the twin matcher, call names, token totals."""

    def __init__(self, path: str) -> None:
        super().__init__(path)
        self.warnings: list[str] = []
        self._meta_seen = False
        self._session_id: str | None = None
        self._cwd: str | None = None
        self._cwd_fallback: str | None = None
        self._branch: str | None = None
        self._originator: str | None = None
        self._source: Any = None
        self._thread_source: Any = None
        self._parent: str | None = None
        self._model: str | None = None
        self._models: list[str] = []
        self._calls: dict[str, str] = {}
        self._usage = TokenUsage()
        self._usage_parts: list[UsagePart] = []
        self._prev_total: Any = None
        self._first_ts: datetime | None = None
        self._last_ts: datetime | None = None
        self._title_event: str | None = None
        self._title_item: str | None = None
        self._twins = _Twins()
        self._compaction_open = False
        self._cleared = False  # every twin window closed once (a tool call or output emitted)
        self._before: dict[str, Any] | None = None  # the carried state this parser went on from

    # -- reading on (the catalog's scan: core/catalog/library.py `_read_on`) ----------------
    _CARRY_VERSION = 1
    _CARRIED = ("_meta_seen", "_session_id", "_cwd", "_cwd_fallback", "_branch", "_originator", "_source",
                "_thread_source", "_parent", "_model", "_models", "_prev_total", "_title_event",
                "_title_item", "_compaction_open")

    def carry(self) -> bytes | None:
        """Everything the session depends on of the lines read so far (the scalar state, the
        token sum, the twins still waiting for their match, the counts), as JSON; None when the
        waiting twins are too long to carry (then the file is read whole when it grows). Tool
        names by call id are not carried: they name entries, not the session."""
        pending = {cat: [list(x) for x in items] for cat, items in self._twins._pending.items() if items}
        if sum(len(k) for items in pending.values() for _, k in items) > 65536:
            return None
        before = self._before or {}
        account = self.account
        state = {name: getattr(self, name) for name in self._CARRIED}
        state.update({
            "v": self._CARRY_VERSION, "usage": list(_usage_tuple(self._usage)), "twins": pending,
            "first": self._first_ts.isoformat() if self._first_ts else None,
            "last": self._last_ts.isoformat() if self._last_ts else None,
            "entries": before.get("entries", 0) + sum(1 for e in self.entries if e.kind is not EntryKind.MALFORMED),
            "account": [a + b for a, b in zip(before.get("account", (0, 0, 0, 0)),
                                              (account.lines, account.conversation, account.noise,
                                               account.malformed))],
        })
        return orjson.dumps(state)

    def resume(self, blob: bytes) -> bool:
        """Take up the state `carry` gave (False: not this version's)."""
        state = orjson.loads(blob)
        if not isinstance(state, dict) or state.get("v") != self._CARRY_VERSION:
            return False
        for name in self._CARRIED:
            setattr(self, name, state[name])
        self._usage = TokenUsage(*state["usage"])
        self._first_ts = datetime.fromisoformat(state["first"]) if state["first"] else None
        self._last_ts = datetime.fromisoformat(state["last"]) if state["last"] else None
        self._twins._pending = {cat: [(s, k) for s, k in items] for cat, items in state["twins"].items()}
        self._before = state
        return True

    # -- RecordParser ----------------------------------------------------------------------
    def convert(self, parsed: ParsedLine) -> tuple[list[Entry], bool]:
        out: list[Entry] = []
        for value in parsed.values:
            try:
                out.extend(self._record(value, parsed))
            except Exception:  # noqa: BLE001 - a record of an unexpected shape must not stop a load
                out.append(self.unknown_entry(parsed))
        if len(out) > 1:
            line = parsed.raw.line
            out = [replace(e, id=f"L{line}.{n}") for n, e in enumerate(out, 1)]
        return out, True

    def finish(self) -> list[LoadedSession]:
        session_id = self._session_id
        if not session_id:
            session_id = _name_session_id(self.path)
            self.warnings.append("no session_meta or header: session id taken from the file name")
        try:
            size = os.path.getsize(self.path)
        except OSError:
            size = 0
        title = self._title_event or self._title_item
        session = Session(
            id=session_id,
            agent=CodexAdapter.agent,
            source_format=CodexAdapter.name,
            paths=(self.path,),
            kind=self._kind(),
            project=self._cwd or self._cwd_fallback,
            title=truncate(title, 200) if title else None,
            first_timestamp=self._first_ts,
            last_timestamp=self._last_ts,
            entry_count=sum(1 for e in self.entries if e.kind is not EntryKind.MALFORMED),
            models=tuple(self._models),
            git_branch=self._branch,
            usage=self._usage,
            parent_id=self._parent,
            line_count=self.account.lines,
            malformed_count=self.account.malformed,
            noise_count=self.account.noise,
            size=size,
        )
        if self._before is not None:  # read on: the lines before count too
            before = self._before
            lines, _conversation, noise, malformed = before["account"]
            session = replace(session, entry_count=session.entry_count + before["entries"],
                              line_count=session.line_count + lines, noise_count=session.noise_count + noise,
                              malformed_count=session.malformed_count + malformed)
        return [LoadedSession(session, self.entries, self.noise, self.account, self.warnings,
                              self._usage_parts, carry=self.carry)]

    # -- dispatch --------------------------------------------------------------------------
    def _record(self, value: Any, parsed: ParsedLine) -> list[Entry]:
        if not isinstance(value, dict):
            return [self.unknown_entry(parsed)]
        ts = parse_timestamp(value.get("timestamp"))
        self._note_ts(ts)
        typ = value.get("type")
        if "payload" in value and isinstance(typ, str):
            payload = value.get("payload")
            if not isinstance(payload, dict):
                return [self.unknown_entry(parsed, typ)]
            if typ == "session_meta":
                self._session_meta(payload)
                return []
            if typ == "turn_context":
                self._turn_context(payload)
                return []
            if typ == "response_item":
                return self._item(payload, parsed, ts)
            if typ == "event_msg":
                return self._event(payload, parsed, ts)
            if typ == "compacted":
                return self._compaction(parsed, ts, payload.get("message"), "compacted")
            if typ == "world_state":
                return []
            return [self.unknown_entry(parsed, typ)]
        if "record_type" in value:
            return []  # early-Rust `{"record_type": "state"}` marker
        if isinstance(typ, str):
            return self._item(value, parsed, ts)  # bare response item (early Rust, TypeScript)
        if "session" in value and isinstance(value.get("session"), dict):
            self._header(value["session"])  # TypeScript document header
            return []
        if _is_bare_header(value) or ("id" in value and "timestamp" in value):
            self._header(value)
            return []
        return [self.unknown_entry(parsed)]

    def _note_ts(self, ts: datetime | None) -> None:
        if ts is None:
            return
        if self._first_ts is None or ts < self._first_ts:
            self._first_ts = ts
        if self._last_ts is None or ts > self._last_ts:
            self._last_ts = ts

    # -- metadata --------------------------------------------------------------------------
    def _session_meta(self, p: dict[str, Any]) -> None:
        if self._meta_seen:
            return  # the parent's session_meta replayed into a forked thread
        self._meta_seen = True
        self._header(p)
        self._originator = _str(p.get("originator"))
        self._source = p.get("source")
        self._thread_source = p.get("thread_source")
        self._parent = _str(p.get("forked_from_id")) or _subagent_parent(p.get("source"))

    def _header(self, p: dict[str, Any]) -> None:
        self._meta_seen = True
        self._session_id = self._session_id or _str(p.get("id"))
        self._note_ts(parse_timestamp(p.get("timestamp")))
        self._cwd = self._cwd or _str(p.get("cwd"))
        git = p.get("git")
        if isinstance(git, dict):
            self._branch = self._branch or _str(git.get("branch"))

    def _turn_context(self, p: dict[str, Any]) -> None:
        model = _str(p.get("model"))
        if model:
            self._model = model
            if model not in self._models:
                self._models.append(model)
        if not self._cwd_fallback:
            self._cwd_fallback = _str(p.get("cwd"))

    def _kind(self) -> SessionKind:
        source = self._source
        if self._originator == "codex_exec" or source == "exec":
            return SessionKind.EXEC
        if (
            source == "subagent"
            or (isinstance(source, dict) and "subagent" in source)
            or self._thread_source == "subagent"
        ):
            return SessionKind.SUBAGENT
        return SessionKind.MAIN

    # -- entries ---------------------------------------------------------------------------
    def _entry(
        self,
        parsed: ParsedLine,
        role: str,
        kind: EntryKind,
        text: str,
        ts: datetime | None,
        raw_type: str,
        **kw: Any,
    ) -> Entry:
        return Entry(
            id=f"L{parsed.raw.line}",
            role=role,
            kind=kind,
            text=text,
            locator=self.locator(parsed),
            timestamp=ts,
            raw_type=raw_type,
            **kw,
        )

    def _twin(
        self, cat: str, stream: str, texts: list[str], make: Callable[[list[str]], list[Entry]]
    ) -> list[Entry]:
        """Entries for `texts` unless they are the later twin of entries already emitted."""
        matched = self._twins.arrive(cat, stream, [_norm(t) for t in texts])
        remaining = [t for t, m in zip(texts, matched) if not m]
        if not remaining:
            return []
        self._emitted(cat)
        return make(remaining)

    def _emitted(self, cat: str) -> None:
        """Close the twin windows that an entry of category `cat` ends."""
        if cat != "compaction":
            self._compaction_open = False
        if cat == "user":
            self._twins.clear("assistant", "reasoning", "reasoning_raw")
        elif cat in ("assistant", "reasoning", "reasoning_raw"):
            self._twins.clear("user", "context")
        elif cat == "tool":
            self._twins.clear("user", "context", "assistant", "reasoning", "reasoning_raw")
            self._cleared = True

    # -- response items --------------------------------------------------------------------
    def _item(self, p: dict[str, Any], parsed: ParsedLine, ts: datetime | None) -> list[Entry]:
        t = p.get("type")
        if not isinstance(t, str):
            return [self.unknown_entry(parsed, "response_item")]
        raw_type = f"response_item/{t}"
        if t == "message":
            return self._message(p, parsed, ts, raw_type)
        if t == "reasoning":
            return self._reasoning(p, parsed, ts, raw_type)
        if t in _TOOL_CALLS:
            return self._tool_call(t, p, parsed, ts, raw_type)
        if t in _TOOL_OUTPUTS:
            return self._tool_output(p, parsed, ts, raw_type)
        if t in ("compaction", "context_compaction"):
            return self._compaction(parsed, ts, p.get("summary") or p.get("message"), raw_type)
        if t == "agent_message":
            text = _content_text(p.get("content")) or _str(p.get("message")) or ""
            if text:
                return self._assistant_text(text, ITEM, parsed, ts, raw_type)
            return [self.unknown_entry(parsed, raw_type)]
        if t in _NOISE_ITEMS:
            return []
        return [self.unknown_entry(parsed, raw_type)]

    def _message(
        self, p: dict[str, Any], parsed: ParsedLine, ts: datetime | None, raw_type: str
    ) -> list[Entry]:
        role = p.get("role")
        text = _content_text(p.get("content"))
        if role == "assistant":
            return self._assistant_text(text, ITEM, parsed, ts, raw_type) if text else []
        if role == "user":
            return self._user_text(text, ITEM, parsed, ts, raw_type) if text.strip() else []
        if role in ("developer", "system"):
            if not self._cwd_fallback:
                self._cwd_fallback = _cwd_of(text)
            self._emitted("context")
            return [self._entry(parsed, Role.SYSTEM.value, EntryKind.META, text, ts, raw_type)]
        return [self.unknown_entry(parsed, raw_type)]

    def _user_text(
        self,
        text: str,
        stream: str,
        parsed: ParsedLine,
        ts: datetime | None,
        raw_type: str,
        injected: bool = False,
    ) -> list[Entry]:
        if injected or _is_injected(text):
            if not self._cwd_fallback:
                self._cwd_fallback = _cwd_of(text)
            return self._twin(
                "context",
                stream,
                [text],
                lambda _: [self._entry(parsed, Role.USER.value, EntryKind.META, text, ts, raw_type)],
            )
        if stream == EVENT and self._title_event is None and text.strip():
            self._title_event = _title(text)
        out = self._twin(
            "user",
            stream,
            [text],
            lambda _: [self._entry(parsed, Role.USER.value, EntryKind.TEXT, text, ts, raw_type)],
        )
        if out and self._title_item is None and text.strip():
            self._title_item = _title(text)
        return out

    def _assistant_text(
        self, text: str, stream: str, parsed: ParsedLine, ts: datetime | None, raw_type: str
    ) -> list[Entry]:
        return self._twin(
            "assistant",
            stream,
            [text],
            lambda _: [
                self._entry(
                    parsed, Role.ASSISTANT.value, EntryKind.TEXT, text, ts, raw_type, model=self._model
                )
            ],
        )

    def _thinking(
        self, cat: str, texts: list[str], stream: str, parsed: ParsedLine, ts: datetime | None, raw_type: str
    ) -> list[Entry]:
        texts = [t for t in texts if t.strip()]
        if not texts:
            return []
        return self._twin(
            cat,
            stream,
            texts,
            lambda rest: [
                self._entry(
                    parsed,
                    Role.ASSISTANT.value,
                    EntryKind.THINKING,
                    "\n\n".join(rest),
                    ts,
                    raw_type,
                    model=self._model,
                )
            ],
        )

    def _reasoning(
        self, p: dict[str, Any], parsed: ParsedLine, ts: datetime | None, raw_type: str
    ) -> list[Entry]:
        summary = _part_texts(p.get("summary"))
        if summary:
            return self._thinking("reasoning", summary, ITEM, parsed, ts, raw_type)
        raw = _part_texts(p.get("content"))
        if raw:
            return self._thinking("reasoning_raw", raw, ITEM, parsed, ts, raw_type)
        return []  # only encrypted_content: nothing readable

    def _tool_call(
        self, t: str, p: dict[str, Any], parsed: ParsedLine, ts: datetime | None, raw_type: str
    ) -> list[Entry]:
        call_id = _str(p.get("call_id")) or _str(p.get("id"))
        tool_input: Any
        if t == "function_call":
            name = _str(p.get("name")) or "function"
            raw_args = p.get("arguments")
            tool_input = _lenient_json(raw_args) if isinstance(raw_args, str) else raw_args
            if tool_input is None and raw_args is not None:
                tool_input = raw_args
            text = _call_text(name, tool_input)
        elif t == "custom_tool_call":
            name = _str(p.get("name")) or "custom_tool"
            tool_input = p.get("input")
            text = tool_input if isinstance(tool_input, str) else _dumps(tool_input)
        elif t == "local_shell_call":
            name = "local_shell"
            action = p.get("action")
            tool_input = action
            text = _command_text(action.get("command")) if isinstance(action, dict) else _dumps(action)
        elif t == "web_search_call":
            name = "web_search"
            action = p.get("action")
            tool_input = action
            text = "web search"
            if isinstance(action, dict):
                found = (_str(action.get(k)) for k in ("query", "url", "pattern"))
                text = next((f for f in found if f), text)
        elif t == "image_generation_call":
            name = "image_generation"
            tool_input = {k: v for k, v in p.items() if k != "result"}  # result is base64 image data
            text = _str(p.get("revised_prompt")) or "image generation"
        else:
            name = "tool_search"
            tool_input = p.get("arguments", p.get("query"))
            text = _call_text(name, tool_input)
        if call_id:
            self._calls[call_id] = name
        self._emitted("tool")
        return [
            self._entry(
                parsed,
                Role.ASSISTANT.value,
                EntryKind.TOOL_USE,
                text,
                ts,
                raw_type,
                tool_name=name,
                tool_input=tool_input,
                tool_use_id=call_id,
                model=self._model,
            )
        ]

    def _tool_output(
        self, p: dict[str, Any], parsed: ParsedLine, ts: datetime | None, raw_type: str
    ) -> list[Entry]:
        call_id = _str(p.get("call_id")) or _str(p.get("id"))
        text, is_error = _output_text(p.get("output"))
        self._emitted("tool")
        return [
            self._entry(
                parsed,
                Role.TOOL.value,
                EntryKind.TOOL_RESULT,
                text,
                ts,
                raw_type,
                tool_name=self._calls.get(call_id) if call_id else None,
                tool_use_id=call_id,
                is_error=is_error,
            )
        ]

    def _compaction(
        self, parsed: ParsedLine, ts: datetime | None, message: Any, raw_type: str
    ) -> list[Entry]:
        if self._compaction_open:
            return []  # the same compaction, written again by another record type
        self._emitted("compaction")
        self._compaction_open = True
        text = message if isinstance(message, str) and message.strip() else "Context compacted"
        return [self._entry(parsed, Role.SYSTEM.value, EntryKind.COMPACTION, text, ts, raw_type)]

    # -- events ----------------------------------------------------------------------------
    def _event(self, p: dict[str, Any], parsed: ParsedLine, ts: datetime | None) -> list[Entry]:
        t = p.get("type")
        if not isinstance(t, str):
            return [self.unknown_entry(parsed, "event_msg")]
        raw_type = f"event_msg/{t}"
        if t == "user_message":
            text, injected = _user_message(p)
            if not text.strip():
                return []
            return self._user_text(text, EVENT, parsed, ts, raw_type, injected=injected)
        if t == "agent_message":
            text = _str(p.get("message")) or ""
            return self._assistant_text(text, EVENT, parsed, ts, raw_type) if text else []
        if t == "agent_reasoning":
            return self._thinking("reasoning", [_str(p.get("text")) or ""], EVENT, parsed, ts, raw_type)
        if t == "agent_reasoning_raw_content":
            return self._thinking("reasoning_raw", [_str(p.get("text")) or ""], EVENT, parsed, ts, raw_type)
        if t == "token_count":
            self._token_count(p.get("info"), ts)
            return []
        if t == "context_compacted":
            return self._compaction(parsed, ts, p.get("message"), raw_type)
        if t == "item_completed":
            return self._item_completed(p.get("item"), parsed, ts, raw_type)
        system = _system_event_text(t, p)
        if system is not None:
            text, is_error = system
            self._emitted("system")
            kind = EntryKind.META if t == "thread_goal_updated" else EntryKind.SYSTEM
            return [self._entry(parsed, Role.SYSTEM.value, kind, text, ts, raw_type, is_error=is_error)]
        if t in _NOISE_EVENTS:
            return []
        return [self.unknown_entry(parsed, raw_type)]

    def _item_completed(
        self, item: Any, parsed: ParsedLine, ts: datetime | None, raw_type: str
    ) -> list[Entry]:
        """Paginated rollouts (2026) carry turn items as `item_completed` events."""
        if not isinstance(item, dict):
            return []
        kind = str(item.get("type", "")).lower().replace("_", "")
        if kind == "plan":
            text = _str(item.get("text")) or _content_text(item.get("content"))
            if text:
                self._emitted("system")
                return [self._entry(parsed, Role.ASSISTANT.value, EntryKind.META, text, ts, raw_type)]
            return []
        if kind == "usermessage":
            text = _content_text(item.get("content"))
            return self._user_text(text, EVENT, parsed, ts, raw_type) if text else []
        if kind == "agentmessage":
            text = _content_text(item.get("content")) or _str(item.get("text")) or ""
            return self._assistant_text(text, EVENT, parsed, ts, raw_type) if text else []
        if kind == "reasoning":
            texts = [t for t in _list(item.get("summary_text")) if isinstance(t, str)]
            return self._thinking("reasoning", texts, EVENT, parsed, ts, raw_type)
        return []

    def _token_count(self, info: Any, ts: datetime | None) -> None:
        if not isinstance(info, dict):
            return  # rate-limit-only update
        total = info.get("total_token_usage")
        last = info.get("last_token_usage")
        if total is not None and total == self._prev_total:
            return  # the second emission of the same response's totals
        part = None
        if isinstance(last, dict):
            part = _usage_of(last)
        elif isinstance(total, dict):
            now = _usage_of(total)
            before = _usage_of(self._prev_total) if isinstance(self._prev_total, dict) else TokenUsage()
            part = _minus(now, before) or now
        if part is not None:
            self._usage = self._usage + part
            self._usage_parts.append((ts, self._model, part))
        if total is not None:
            self._prev_total = total


class _Twins:
    """Entries emitted from one stream, each waiting for its duplicate from the other stream.

    Per category, a list of (stream, key) in emission order. A later arrival whose key equals a
    pending one of the other stream is its twin; failing any text match, it is paired by position
    with the most recent pending entries of the other stream (as many as it has parts). Twins keep
    their order, so pending entries older than a match can never match any more and are dropped.
    """

    def __init__(self) -> None:
        self._pending: dict[str, list[tuple[str, str]]] = {}

    def arrive(self, cat: str, stream: str, keys: list[str]) -> list[bool]:
        pend = self._pending.setdefault(cat, [])
        other = [i for i, (s, _) in enumerate(pend) if s != stream]
        matched = [False] * len(keys)
        used: list[int] = []
        at = 0
        for n, key in enumerate(keys):
            for q in range(at, len(other)):
                if pend[other[q]][1] == key:
                    matched[n] = True
                    used.append(other[q])
                    at = q + 1
                    break
        if not used and keys and len(other) >= len(keys):
            used = other[-len(keys) :]
            matched = [True] * len(keys)
        if used:
            last = max(used)
            gone = set(used) | {i for i in other if i < last}
            pend[:] = [x for i, x in enumerate(pend) if i not in gone]
        pend.extend((stream, k) for k, m in zip(keys, matched) if not m)
        return matched

    def clear(self, *cats: str) -> None:
        for cat in cats:
            self._pending.pop(cat, None)


# -- helpers ---------------------------------------------------------------------------------
_CUT_META = LazyPattern(
    rb'^\{"timestamp":"([^"]*)","type":"session_meta","payload":\{"id":"([^"]*)",'
    rb'"timestamp":"([^"]*)","cwd":"((?:[^"\\]|\\.)*)"(?:,"originator":"([^"\\]*)")?'
)


_WRAPPED_LINE = b'{"timestamp":"'
_BOM = b"\xef\xbb\xbf"
_TITLE_CHARS = 200  # a quick listing's title
_TITLE_EVENTS = (b'"type":"event_msg","payload":{"type":"user_message"',
                 b'"type":"event_msg","payload":{"type":"item_completed"')


def _may_title(buf: bytes, piece: tuple[int, int]) -> bool:
    """Whether a line may be a prompt event, by its first bytes: a wrapped line names its type
    within them (`{"timestamp":…,["ordinal":…,]"type":…,"payload":{"type":…`); a line of any
    other shape may be anything."""
    start, end = piece
    if not buf.startswith(_WRAPPED_LINE, start):
        return True
    end = min(end, start + 160)
    return buf.find(_TITLE_EVENTS[0], start, end) >= 0 or buf.find(_TITLE_EVENTS[1], start, end) >= 0


def _feed(parser: CodexParser, lines: Lines, piece: tuple[int, int]) -> None:
    """One head line through the parser (its values are parsed once, shared with the sniffers):
    each value read as `CodexParser.convert` reads it, for the state it leaves. The entries it
    makes are not kept (a listing asks the parser for metadata only), so no line object is built
    for them: they all point at `_QUICK_LINE`."""
    for value in lines.values(piece) or ():
        try:
            parser._record(value, _QUICK_LINE)
        except Exception:  # noqa: BLE001, S110 - as `convert`: the record is then an unknown entry
            pass


#: the line the entries of a quick listing's head point at (they are thrown away)
_QUICK_LINE = ParsedLine(RawLine(0, 0, b""), ())


class _MetaLine:
    """What a `CodexParser` holds after reading a first line that is one wrapped session_meta
    with a cwd (the head of nearly every rollout), as far as `CodexAdapter.quick` reads it; made
    without the parser (`_meta_line`)."""

    __slots__ = ("_meta_seen", "_session_id", "_cwd", "_cwd_fallback", "_originator", "_source",
                 "_thread_source", "_first_ts", "_last_ts")
    _kind = CodexParser._kind


def _meta_line(values: tuple[Any, ...] | None) -> _MetaLine | None:
    """The parser's state after a first line of `values` when that line is one wrapped
    session_meta with a cwd (`CodexParser._record`, `_session_meta`, `_header` on a fresh
    parser); None for any other line (the parser reads it)."""
    if values is None or len(values) != 1:
        return None
    value = values[0]
    if type(value) is not dict or value.get("type") != "session_meta":
        return None
    p = value.get("payload")
    if type(p) is not dict:
        return None
    cwd = _str(p.get("cwd"))
    if cwd is None:
        return None
    line = _MetaLine()
    line._meta_seen, line._session_id, line._cwd, line._cwd_fallback = True, _str(p.get("id")), cwd, None
    line._originator, line._source, line._thread_source = (_str(p.get("originator")), p.get("source"),
                                                           p.get("thread_source"))
    first = last = parse_timestamp(value.get("timestamp"))  # the record's time, then its payload's
    ts = parse_timestamp(p.get("timestamp"))
    if ts is not None:
        if first is None or ts < first:
            first = ts
        if last is None or ts > last:
            last = ts
    line._first_ts, line._last_ts = first, last
    return line


def _record_ts(value: Any) -> datetime | None:
    return parse_timestamp(value.get("timestamp")) if isinstance(value, dict) else None


def _cut_session_meta(parser: CodexParser, first: bytes) -> bool:
    """Id, times, cwd (and originator) from the start of a session_meta line too long for the
    head (base_instructions can fill it), fed to the parser as a session_meta of those keys."""
    m = _CUT_META.match(first)
    if m is None:
        return False
    try:
        cwd = orjson.loads(b'"' + m.group(4) + b'"')
    except orjson.JSONDecodeError:
        return False
    payload = {"id": m.group(2).decode("utf-8", "replace"), "timestamp": m.group(3).decode("ascii", "replace"),
               "cwd": cwd}
    if m.group(5):
        payload["originator"] = m.group(5).decode("utf-8", "replace")
    record = {"timestamp": m.group(1).decode("ascii", "replace"), "type": "session_meta", "payload": payload}
    parser.convert(ParsedLine(RawLine(0, 1, first[:m.end()]), (record,)))
    return True


def _user_message(p: dict[str, Any]) -> tuple[str, bool]:
    """The text of a `user_message` event (images as placeholders), and whether its `kind` says
    the harness injected it."""
    text = _str(p.get("message")) or ""
    images = ([i for key in ("images", "local_images") for i in _list(p.get(key)) if i]
              if p.get("images") or p.get("local_images") else None)  # (usually both empty)
    if images:
        text = (text + "\n" if text else "") + " ".join("[image]" for _ in images)
    kind = p.get("kind")
    return text, bool(kind) and kind != "plain"


def _prompt_event(value: Any, limit: int | None = None) -> str | None:
    """The title a record gives as the first prompt event (`CodexParser._title_event`; with
    `limit`, as `truncate` cuts it to that many characters)."""
    p = value.get("payload") if isinstance(value, dict) and value.get("type") == "event_msg" else None
    if not isinstance(p, dict):
        return None
    if p.get("type") == "user_message":
        text, injected = _user_message(p)
    elif p.get("type") == "item_completed" and isinstance(p.get("item"), dict):
        item = p["item"]
        if str(item.get("type", "")).lower().replace("_", "") != "usermessage":
            return None
        text, injected = _content_text(item.get("content")), False
    else:
        return None
    if not text or text.isspace() or injected or _is_injected(text):  # (`not text.strip()`, no copy)
        return None
    return _title(text, limit)


def _name_session_id(path: str) -> str:
    found = _UUID.findall(os.path.basename(path))
    return found[-1].lower() if found else _stem(path)


def _is_bare_header(obj: dict[str, Any]) -> bool:
    return "id" in obj and "timestamp" in obj and "instructions" in obj and "type" not in obj


def _usage_tuple(u: TokenUsage) -> tuple[int, int, int, int]:
    return (u.input, u.output, u.cache_read, u.cache_creation)


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _stem(path: str) -> str:
    name = os.path.basename(path)
    for suffix in (".jsonl.zst", ".jsonl", ".json"):
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def _norm(text: str) -> str:
    return " ".join(text.split())


def _title(text: str, limit: int | None = None) -> str:
    """The text of a prompt as a title; with `limit`, as `truncate` cuts it to that many characters."""
    if _IDE_REQUEST in text:  # VS Code prepends "# Context from my IDE setup: ..."
        text = text.split(_IDE_REQUEST, 1)[1]
    if limit is not None and len(text) > 2 * limit + 8:
        # A prompt can be a paste of kilobytes: the normal form of its start is a prefix of the
        # whole text's (its last word perhaps cut), so when longer than the cut, that is the cut.
        start = _norm(text[:2 * limit + 8])
        if len(start) > limit:
            return truncate(start, limit)
    return _norm(text) if limit is None else truncate(_norm(text), limit)


def _is_injected(text: str) -> bool:
    s = text.strip()
    return s.startswith(_INJECTED_PREFIXES) or _one_block(s)


def _one_block(s: str) -> bool:
    """Whether stripped `s` matches `^<([A-Za-z_][\\w\\- ]*?)(?:\\s[^>]*)?>.*</\\1>$` (re.S), in
    linear time: re tried each length of the name, each read to the first `>` (seconds on a
    prompt of `<a a a …` without one). The name can only be what stands between the last `</`
    and the final `>` (a name holds no `<`); the `>` after it, the first `>` of the text."""
    close = s.rfind("</")
    if close < 0 or not s.startswith("<") or not s.endswith(">"):
        return False
    name = s[close + 2:-1]
    after = 1 + len(name)
    if not _TAG_NAME.fullmatch(name) or not s.startswith(name, 1):
        return False
    gt = s.find(">", after)
    return 0 <= gt < close and (gt == after or s[after].isspace())


def _cwd_of(text: str) -> str | None:
    m = _CWD_TAG.search(text) if "<cwd>" in text else None
    return m.group(1) if m else None


def _subagent_parent(source: Any) -> str | None:
    """`{"subagent": {"thread_spawn": {"parent_thread_id": ...}}}` -> the parent thread id."""
    if not isinstance(source, dict):
        return None
    sub = source.get("subagent")
    if isinstance(sub, dict):
        spawn = sub.get("thread_spawn")
        if isinstance(spawn, dict):
            return _str(spawn.get("parent_thread_id"))
    return None


def _part_texts(parts: Any) -> list[str]:
    if isinstance(parts, str):
        return [parts]
    if not isinstance(parts, list):
        return []
    out = []
    for part in parts:
        if isinstance(part, dict):
            text = part.get("text")
            if isinstance(text, str) and text:
                out.append(text)
        elif isinstance(part, str) and part:
            out.append(part)
    return out


def _content_text(content: Any) -> str:
    """Text of a Responses API content list (`input_text`, `output_text`, images as [image])."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts: list[str] = []
    for part in content:
        if isinstance(part, str):
            parts.append(part)
        elif isinstance(part, dict):
            text = part.get("text")
            if not isinstance(text, str):
                text = part.get("refusal")
            if isinstance(text, str):
                parts.append(text)
            elif "image" in str(part.get("type", "")):
                parts.append("[image]")
    return "\n".join(parts)


def _lenient_json(text: str) -> Any:
    return loads_lenient(text.encode("utf-8", "replace"))


def _command_text(command: Any) -> str:
    if isinstance(command, str):
        return command
    if isinstance(command, list) and command:
        argv = [str(c) for c in command]
        shell = os.path.basename(argv[0]) in _SHELLS
        if len(argv) >= 3 and shell and argv[1] in ("-lc", "-c", "-l", "/c", "-Command"):
            return " ".join(argv[2:])
        return shlex.join(argv)
    return _dumps(command)


def _call_text(name: str, args: Any) -> str:
    """What a tool call shows: the command of shell-like tools, the plan of update_plan, else args."""
    if isinstance(args, dict):
        if "command" in args and isinstance(args["command"], (list, str)):
            return _command_text(args["command"])
        if isinstance(args.get("cmd"), (list, str)):
            return _command_text(args["cmd"])
        if name == "update_plan" and isinstance(args.get("plan"), list):
            lines = [_str(args.get("explanation")) or ""]
            for step in args["plan"]:
                if isinstance(step, dict):
                    lines.append(f"[{step.get('status', '')}] {step.get('step', '')}")
            return "\n".join(line for line in lines if line)
        if isinstance(args.get("input"), str) and len(args) == 1:
            return args["input"]
    if isinstance(args, str):
        return args
    return _dumps(args)


def _output_text(output: Any) -> tuple[str, bool]:
    """A tool output's text and whether it reports failure (non-zero exit code, success=false)."""
    if isinstance(output, str):
        head = output.lstrip()
        if head.startswith("{"):
            value = _lenient_json(output)
            if isinstance(value, dict) and ("output" in value or "metadata" in value):
                return _output_text_of_dict(value)
        m = _EXIT.search(output[:400])
        return output, bool(m and int(m.group(1)) != 0)
    if isinstance(output, list):
        return _content_text(output), False
    if isinstance(output, dict):
        return _output_text_of_dict(output)
    return ("" if output is None else str(output)), False


def _output_text_of_dict(value: dict[str, Any]) -> tuple[str, bool]:
    body = value.get("output", value.get("content"))
    if isinstance(body, str):
        text = body
    elif isinstance(body, list):
        text = _content_text(body)
    else:
        text = _dumps(body) if body is not None else ""
    is_error = value.get("success") is False
    meta = value.get("metadata")
    if isinstance(meta, dict):
        code = meta.get("exit_code")
        if isinstance(code, int) and not isinstance(code, bool) and code != 0:
            is_error = True
    return text, is_error


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _usage_of(u: dict[str, Any]) -> TokenUsage:
    inp = _int(u.get("input_tokens"))
    cached = min(_int(u.get("cached_input_tokens")), inp) if inp else _int(u.get("cached_input_tokens"))
    out = _int(u.get("output_tokens"))
    reasoning = _int(u.get("reasoning_output_tokens"))
    total = _int(u.get("total_tokens"))
    if reasoning and total and total == inp + out + reasoning:
        out += reasoning  # a writer that did not count reasoning inside output_tokens
    return TokenUsage(input=max(0, inp - cached), output=out, cache_read=cached)


def _minus(a: TokenUsage, b: TokenUsage) -> TokenUsage | None:
    d = TokenUsage(a.input - b.input, a.output - b.output, a.cache_read - b.cache_read, 0)
    return d if min(d.input, d.output, d.cache_read) >= 0 else None


def _system_event_text(t: Any, p: dict[str, Any]) -> tuple[str, bool] | None:
    msg = _str(p.get("message"))
    if t == "turn_aborted":
        reason = _str(p.get("reason"))
        return (f"Turn aborted ({reason})" if reason else "Turn aborted"), False
    if t in ("error", "stream_error"):
        return msg or "error", True
    if t == "warning":
        return msg or "warning", False
    if t == "thread_rolled_back":
        n = p.get("num_turns")
        return f"Rolled back {n} turn(s)" if isinstance(n, int) else "Rolled back", False
    if t == "entered_review_mode":
        hint = _str(p.get("user_facing_hint"))
        return ("Entered review mode" + (f": {hint}" if hint else "")), False
    if t == "exited_review_mode":
        out = p.get("review_output")
        expl = _str(out.get("overall_explanation")) if isinstance(out, dict) else None
        return ("Exited review mode" + (f": {expl}" if expl else "")), False
    if t == "undo_completed":
        return msg or "Undo completed", p.get("success") is False
    if t == "thread_goal_updated":
        return _str(p.get("goal")) or msg or _dumps(p), False
    if t == "sub_agent_activity":
        return msg or _dumps({k: v for k, v in p.items() if k != "type"}), False
    return None


# -- the TypeScript-era document -------------------------------------------------------------
def _unique_ids(entries: list[Entry]) -> list[Entry]:
    """Several items starting on one line (a minified document) would share an `L{line}` id."""
    seen: dict[str, int] = {}
    for e in entries:
        seen[e.id] = seen.get(e.id, 0) + 1
    if all(n == 1 for n in seen.values()):
        return entries
    counter: dict[str, int] = {}
    out = []
    for e in entries:
        if seen[e.id] > 1:
            counter[e.id] = counter.get(e.id, 0) + 1
            e = replace(e, id=f"{e.id}.{counter[e.id]}")
        out.append(e)
    return out


__all__ = ["CodexAdapter", "CodexParser"]
