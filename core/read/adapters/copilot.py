"""GitHub Copilot CLI sessions: `~/.copilot/session-state/<id>/events.jsonl` (and the older
`session-state/<id>.jsonl`), and the legacy `~/.copilot/history-session-state/*.json`.

Why: Copilot CLI writes an event log (the same events its SDK streams: a turn, each tool's start
and completion, model changes, the session's shutdown with its token use) in which every tool
call is recorded twice; the 2025 builds wrote one JSON document per session instead, holding the
model-facing chat messages and the UI's timeline side by side. This adapter reads both and shows
each message and tool call once.

Events (FORMATS.md §8; seen in Copilot CLI 1.0.34, names also in the Copilot SDK's event schema):
`{"type", "data", "id", "timestamp", "parentId"}` per line.
  * `session.start` (`data.sessionId`, `data.context.{cwd, gitRoot, branch}`, `copilotVersion`) is
    noise that names the session; `session.model_change` (noise) adds `newModel` to the models;
    `session.shutdown` (noise) gives the tokens: the sum over `modelMetrics[*].usage` of
    `inputTokens`, `outputTokens`, `cacheReadTokens`, `cacheWriteTokens` (input is taken as
    including the cached reads, as OpenAI-style usage reports it: input = inputTokens - cacheRead);
  * `user.message`: the user's `content` is a user TEXT entry; one with no `content` (the prompts
    autopilot injects, "You have not yet marked the task as complete…") is META with its
    `transformedContent`;
  * `assistant.message`: its `content` (TEXT), `reasoningText` (THINKING) and one TOOL_USE per
    `toolRequests[]` (`toolCallId`, `name`, `arguments`); `assistant.reasoning` is THINKING;
  * `tool.execution_start` repeats a tool request: noise, unless its `toolCallId` was never
    requested (then it is the TOOL_USE); `tool.execution_complete` is the TOOL_RESULT
    (`result.content`, or `error.message`; `success: false` marks it an error);
  * `system.message` (the system prompt) is META; `session.info`, `session.warning`,
    `session.error`, `abort`, `subagent.*` and `session.compaction_*` are SYSTEM (compaction:
    COMPACTION); turn starts/ends, mode changes, `session.task_complete` (the summary the
    `task_complete` tool call already holds), usage and idle events are noise;
  * entry ids are the event `id` (`id.1`, … for an assistant message's later parts).

Legacy document (Oct 2025): `{"sessionId", "startTime", "chatMessages": [...], "timeline": [...]}`.
The `timeline` is what the user saw, with times: `user`, `copilot` (assistant text), `info`
(SYSTEM), `tool_call_completed` (a TOOL_USE `name`/`arguments` and its TOOL_RESULT `result.log`,
an error unless `result.type` is "success"). The `chatMessages` (OpenAI chat messages, no times)
say the same to the model and are noise, unless the document has no timeline: then they are read
(`user`, `assistant` text and `tool_calls`, `tool` results). Records are counted, not lines: the
header plus each element of both arrays, each located at the byte where it starts in the file.
The document has no project folder.
"""
from __future__ import annotations

import os
import re
from datetime import datetime
from itertools import chain
from typing import Any, Iterable, NamedTuple

import orjson

from ..jsonl import HeadTail, ParsedLine, RawLine, RecordFile, parse_line, reader_error
from ...model import Entry, EntryKind, Role, SessionKind, parse_timestamp, truncate
from ..ends import (Ends, QuickMeta, basename, first_json_lines, head_values_from, last_stamp_of, line_values,
                    one_spaced, tail_values)
from .base import LoadedSession, array_spans, results_named
from .collect import CollectingAdapter, CollectingParser, s, stem, text_of

_LEGACY_HEAD = re.compile(rb'^\s*\{\s*"sessionId"\s*:\s*"[^"]*"\s*,\s*"(?:startTime|chatMessages|timeline)"\s*:')
_EVENT_PREFIXES = ("session.", "user.", "assistant.", "tool.", "system.", "subagent.", "hook.")
_NOISE_EVENTS = frozenset({
    "assistant.turn_start", "assistant.turn_end", "session.mode_changed", "session.task_complete",
    "assistant.usage", "session.usage_info", "session.idle", "assistant.intent", "session.truncation",
    "assistant.message_delta", "assistant.reasoning_delta", "tool.execution_partial_result",
    "session.resume",
})
_SYSTEM_EVENTS = frozenset({"session.info", "session.warning", "session.error", "abort", "session.handoff"})


def is_event(value: Any) -> bool:
    """A Copilot CLI event line: a dotted `type` of one of its families, a `data` object, an id."""
    return (isinstance(value, dict) and isinstance(value.get("type"), str)
            and value["type"].startswith(_EVENT_PREFIXES) and isinstance(value.get("data"), dict)
            and "id" in value and "timestamp" in value)


_EVENTS = f"{os.sep}events.jsonl"
_BOM = b"\xef\xbb\xbf"
_loads, _DecodeError = orjson.loads, orjson.JSONDecodeError
#: characters of requested tool call ids a grown file's reading carries at most (else: read whole)
_CARRY_MAX = 1 << 20


class CopilotAdapter(CollectingAdapter):
    name = "copilot-cli"
    agent = "copilot-cli"
    suffixes = (".jsonl", ".json")
    # `quick` reads an events file's ends line by line (a big legacy document's first 4 KB only,
    # which a narrow head holds whole): a narrow head's answer is the full one's.
    narrow_ends = True

    def likely(self, path: str) -> bool:
        """`session-state/<id>/events.jsonl`."""
        return path.endswith(_EVENTS)

    def sniff(self, path: str, head: bytes) -> bool:
        if path.endswith(".json"):
            return bool(_LEGACY_HEAD.match(head[3:] if head.startswith(b"\xef\xbb\xbf") else head))
        objs = first_json_lines(head, 1)
        return bool(objs) and is_event(objs[0])

    def parser(self, path: str) -> CopilotParser:
        return CopilotParser(path)

    def grows(self, path: str) -> bool:
        return not path.endswith(".json")  # a legacy document is rewritten whole

    def load(self, path: str, record_file: RecordFile | None = None) -> list[LoadedSession]:
        if path.endswith(".json"):
            return _load_legacy(self, path)
        return super().load(path, record_file)

    def quick(self, ends: Ends) -> QuickMeta:
        if ends.path.endswith(".json"):
            if not ends.whole:  # a big legacy document: its id and start are in its first bytes
                head = ends.head.buf[:4096]
                m = re.search(rb'"sessionId"\s*:\s*"([^"]*)"', head)
                t = re.search(rb'"startTime"\s*:\s*"([^"]*)"', head)
                first = parse_timestamp(t.group(1).decode("ascii", "replace")) if t else None
                unsure = {"project", "title", "last_timestamp"} | ({"session_id"} if m is None else set()) \
                    | ({"first_timestamp"} if first is None else set())
                return ends.meta(self, unsure, session_id=m.group(1).decode("utf-8", "replace") if m else None,
                                 first_timestamp=first, last_timestamp=first, kind=SessionKind.MAIN)
            session = self.load(ends.path)[0].session
            return ends.meta(self, (), session_id=session.id, kind=session.kind, project=session.project,
                             title=session.title, first_timestamp=session.first_timestamp,
                             last_timestamp=session.last_timestamp)
        head = _head_events(ends.head_values())
        return self._quick_of(ends.path, ends.size, ends.mtime, ends.whole, head,
                              ends.tail_values_backward())

    def quick_lane(self, path: str, ht: HeadTail, nbytes: int, narrow: bool) -> QuickMeta | None:
        """`quick`'s answer for the usual head (a first line that is one event, which the sniffer
        takes), its lines read straight from the buffers; None for any other file (the listing
        then reads it as it does every format)."""
        head = ht.head
        e1 = head.find(b"\n")
        if e1 <= 0 or e1 >= nbytes or head[:3] == _BOM:
            return None  # (the sniffer would not see the first line whole, or sees past a BOM)
        try:
            first = _loads(memoryview(head)[:e1])  # (a slice of a view is not copied)
        except _DecodeError:
            return None
        if not is_event(first):
            return None  # (`sniff` takes the first line that is an object: the general way)
        whole = ht.tail is head
        # The usual head: the session's start and the prompt on the next line. When those two do
        # not settle it, the walk is made again from the top over every line it asks for.
        e2 = head.find(b"\n", e1 + 1)
        if e2 >= 0:
            two = ((first,), line_values(memoryview(head)[e1 + 1:e2]))
            got = _head_events(two)
            if not (got[0] and got[2]):
                got = _head_events(chain(two, head_values_from(head, e2 + 1, whole, ran_out := [False])))
                if narrow and ran_out[0]:
                    return None
        else:
            got = _head_events(chain(((first,),), head_values_from(head, e1 + 1, whole, ran_out := [False])))
            if narrow and ran_out[0]:
                return None
        return self._quick_of(path, ht.size, ht.mtime, whole, got, _last_line_stamp(ht.tail, whole))

    def _quick_of(self, path: str, size: int, mtime: float, whole: bool, head: _Head,
                  tail_values: Iterable[tuple[Any, ...] | None]) -> QuickMeta:
        """The listing from what the head's events said and the values of the tail's lines from
        the end backward."""
        sid, project, prompt, first = head
        unsure = set()
        if not whole:  # (whole: what the lines did not say, the full parse does not either)
            if not prompt:
                unsure.add("title")
            if not sid:
                unsure.add("session_id")
            if project is None:
                unsure.add("project")
        last = tail_values if type(tail_values) is datetime else last_stamp_of(tail_values, _event_stamp)
        if last is None:
            unsure.add("last_timestamp")
        if sid is None:  # (as `CopilotParser.session` names it)
            folder = basename(os.path.dirname(path)) if basename(path) == "events.jsonl" else None
            sid = folder or stem(path)
        return QuickMeta(path, size, mtime, self.agent, self.name, sid, SessionKind.MAIN, project,
                         truncate(prompt, 200) if prompt else None, first, last, frozenset(unsure),
                         whole)


_Head = tuple[str | None, str | None, str | None, Any]  # (session id, project, prompt title, first time)


class _LegacyPart(NamedTuple):
    """A part of a legacy session document (`_load_legacy`) as the parser is fed it: of a type no
    JSON line can make, so a line of an events file that looks like one (a `_legacy` key) is an
    unknown record there, not a header that would give the session another's id."""

    which: str  # "header", "chatMessages" or "timeline"
    item: Any
    timeline: bool = False  # (the header's: whether the document has a timeline)


def _head_events(head_values: Iterable[tuple[Any, ...] | None]) -> _Head:
    """What `CopilotParser` makes of the head's lines (the values of each from the top), read
    until it has the session id and the prompt title (the session id, project and first user
    text of its `session.start` and `user.message` events, the oldest time of its events),
    without the parser: no entry is built for a listing (`_head_parsed` is the reference)."""
    sid = project = prompt = first = None
    for values in head_values:
        for value in values or ():
            if not is_event(value):
                continue
            ts = parse_timestamp(value.get("timestamp"))
            if ts is not None and (first is None or ts < first):
                first = ts
            etype, data = value["type"], value["data"]
            if etype == "session.start":
                sid = sid or s(data.get("sessionId"))
                ctx = data.get("context")
                if isinstance(ctx, dict):
                    project = project or s(ctx.get("cwd")) or s(ctx.get("gitRoot"))
            elif etype == "user.message" and prompt is None:
                content = s(data.get("content"))
                if content is not None and content.strip():
                    prompt = one_spaced(content)
        if sid and prompt:
            break
    return sid, project, prompt, first


def _head_parsed(parser: CopilotParser, ends: Ends) -> _Head:
    """`_head_events`' answer from the parser fed the head's lines (the reference it mirrors)."""
    for piece in ends.head_pieces():
        parser.feed(ParsedLine(RawLine(piece[0], 0, b""), ends.head.values(piece) or ()))
        if parser.session_id and parser.prompt_title:
            break
    return parser.session_id, parser.project, parser.prompt_title, parser.first_ts


def _last_line_stamp(tail: bytes, whole: bool) -> Any:
    """The last time of a tail buffer (`tail_values` read by `_event_stamp`): the usual last line,
    a complete line that is one event with a time, read here; any other tail, the values of its
    lines from the end backward (for `_quick_of` to read)."""
    end = len(tail) - 1
    if end > 0 and tail[end] == 10:  # (b"\n": what follows it is empty, not a line)
        start = tail.rfind(b"\n", 0, end) + 1
        if start:  # (a line after a newline: complete, in a window as in a whole file)
            try:
                value = _loads(memoryview(tail)[start:end])
            except _DecodeError:
                value = None
            if value is not None and is_event(value):
                ts = parse_timestamp(value["timestamp"])
                if ts is not None:
                    return ts
    return tail_values(tail, whole)


def _event_stamp(value: Any) -> Any:
    return parse_timestamp(value.get("timestamp")) if is_event(value) else None


class CopilotParser(CollectingParser):
    agent = "copilot-cli"
    source_format = "copilot-cli"

    def __init__(self, path: str) -> None:
        super().__init__(path)
        self._requested: set[str] = set()
        self._tools: dict[str, str] = {}
        self._shutdown_usage = False
        self._legacy_timeline = True  # (legacy documents: which array is the conversation)

    def session(self, **over: Any) -> Any:
        # (not kept in `session_id`: a later session.start of a file read on still names it)
        if self.session_id is None and os.path.basename(self.path) == "events.jsonl":
            folder = os.path.basename(os.path.dirname(self.path))
            if folder:
                over = {"id": folder, **over}
        return super().session(**over)

    def carry_own(self) -> object:
        """The tool calls requested so far (a later execution start of one is not an entry) and
        whether a shutdown's totals replaced the replies' tokens; None past `_CARRY_MAX` ids."""
        if sum(len(c) for c in self._requested) > _CARRY_MAX:
            return None
        return {"requested": sorted(self._requested), "shutdown": self._shutdown_usage}

    def resume_own(self, own: Any) -> bool:
        if not isinstance(own, dict) or not isinstance(own.get("requested"), list):
            return False
        self._requested = set(own["requested"])
        self._shutdown_usage = own["shutdown"] is True
        return True

    def continues_after(self, loaded: LoadedSession, first_new: int) -> bool:
        """The appended events name tools as a whole reading does: none is an execution start
        whose call this reading had not seen requested (one before the window makes it noise in
        a whole reading), and each tool result's call was read here (its tool's name)."""
        return results_named(loaded.entries, first_new) and not any(
            e.raw_type == "tool.execution_start" and e.locator.line >= first_new for e in loaded.entries)

    def record(self, value: Any, parsed: ParsedLine) -> list[Entry] | None:
        if type(value) is _LegacyPart:
            return self._legacy(value, parsed)
        if not is_event(value):
            return None
        etype, data, ident = value["type"], value["data"], s(value.get("id"))
        ts = self.note_time(value.get("timestamp"))
        kw = dict(ident=ident, timestamp=ts, parent_id=s(value.get("parentId")), raw_type=etype)

        if etype == "session.start":
            self.session_id = self.session_id or s(data.get("sessionId"))
            ctx = data.get("context") if isinstance(data.get("context"), dict) else {}
            self.project = self.project or s(ctx.get("cwd")) or s(ctx.get("gitRoot"))
            self.git_branch = self.git_branch or s(ctx.get("branch"))
            return []
        if etype == "session.model_change":
            self.note_model(data.get("newModel"))
            return []
        if etype == "session.shutdown":
            self._shutdown(data)
            return []
        if etype in _NOISE_EVENTS:
            return []
        if etype == "user.message":
            content = s(data.get("content"))
            if content is not None:
                return [self.entry(parsed, Role.USER.value, EntryKind.TEXT, content, **kw)]
            return [self.entry(parsed, Role.USER.value, EntryKind.META,
                               str(data.get("transformedContent") or ""), **kw)]
        if etype == "system.message":
            return [self.entry(parsed, Role.SYSTEM.value, EntryKind.META, str(data.get("content") or ""), **kw)]
        if etype == "assistant.message":
            return self._assistant(data, parsed, kw)
        if etype == "assistant.reasoning":
            return [self.entry(parsed, Role.ASSISTANT.value, EntryKind.THINKING, str(data.get("content") or ""), **kw)]
        if etype == "tool.execution_start":
            call = s(data.get("toolCallId"))
            if call is not None and call in self._requested:
                return []
            name = s(data.get("toolName")) or "tool"
            if call:
                self._requested.add(call)
                self._tools[call] = name
            return [self.entry(parsed, Role.ASSISTANT.value, EntryKind.TOOL_USE, name, tool_name=name,
                               tool_input=data.get("arguments"), tool_use_id=call, **kw)]
        if etype == "tool.execution_complete":
            call = s(data.get("toolCallId"))
            result = data.get("result") if isinstance(data.get("result"), dict) else {}
            error = data.get("error")
            text = result.get("content")
            if text is None and isinstance(error, dict):
                text = error.get("message")
            text = text if isinstance(text, str) else ("" if text is None else orjson.dumps(text).decode())
            self.note_model(data.get("model"))
            return [self.entry(parsed, Role.TOOL.value, EntryKind.TOOL_RESULT, text,
                               tool_name=self._tools.get(call or ""), tool_use_id=call,
                               is_error=data.get("success") is False or error is not None, **kw)]
        if etype.startswith("session.compaction"):
            summary = s(data.get("summaryContent")) or s(data.get("summary")) or etype
            kind = EntryKind.COMPACTION if etype.endswith("complete") else EntryKind.SYSTEM
            return [self.entry(parsed, Role.SYSTEM.value, kind, summary, **kw)]
        if etype in _SYSTEM_EVENTS or etype.startswith("subagent."):
            text = s(data.get("message")) or s(data.get("agentDisplayName")) or s(data.get("agentName")) or etype
            return [self.entry(parsed, Role.SYSTEM.value, EntryKind.SYSTEM, text,
                               is_error=etype in ("session.error", "subagent.failed"), **kw)]
        return None

    def _assistant(self, data: dict, parsed: ParsedLine, kw: dict) -> list[Entry]:
        out: list[Entry] = []
        if s(data.get("reasoningText")):
            out.append(self.entry(parsed, Role.ASSISTANT.value, EntryKind.THINKING, data["reasoningText"], n=len(out),
                                  **kw))
        if s(data.get("content")):
            out.append(self.entry(parsed, Role.ASSISTANT.value, EntryKind.TEXT, data["content"], n=len(out), **kw))
        requests = data.get("toolRequests")
        for req in requests if isinstance(requests, list) else ():
            if not isinstance(req, dict):
                continue
            name = s(req.get("name")) or "tool"
            call = s(req.get("toolCallId"))
            if call:
                self._requested.add(call)
                self._tools[call] = name
            out.append(self.entry(parsed, Role.ASSISTANT.value, EntryKind.TOOL_USE, name, n=len(out), tool_name=name,
                                  tool_input=req.get("arguments"), tool_use_id=call, **kw))
        if not self._shutdown_usage:
            self.add_usage(output=data.get("outputTokens"))
        if not out:
            out.append(self.entry(parsed, Role.ASSISTANT.value, EntryKind.TEXT, "", **kw))
        return out

    def _shutdown(self, data: dict) -> None:
        metrics = data.get("modelMetrics")
        if not isinstance(metrics, dict):
            return
        from ...model import TokenUsage

        self.usage, self._shutdown_usage = TokenUsage(), True
        self.usage_parts = []  # (the totals below replace the replies' output counts)
        for model, m in metrics.items():
            self.note_model(model)
            usage = m.get("usage") if isinstance(m, dict) else None
            if not isinstance(usage, dict):
                continue
            read = usage.get("cacheReadTokens")
            inp = usage.get("inputTokens")
            if isinstance(inp, int) and isinstance(read, int) and inp >= read:
                inp -= read
            self.add_usage(inp, usage.get("outputTokens"), read, usage.get("cacheWriteTokens"),
                           model=model if isinstance(model, str) else None)

    # -- the legacy document ---------------------------------------------------------------------
    def _legacy(self, value: _LegacyPart, parsed: ParsedLine) -> list[Entry] | None:
        which, item = value.which, value.item
        if which == "header":
            self.session_id = s(item.get("sessionId"))
            self.note_time(item.get("startTime"))
            self._legacy_timeline = value.timeline
            return []
        if not isinstance(item, dict):
            return None
        if which == "chatMessages":
            return [] if self._legacy_timeline else self._chat(item, parsed)
        ts = self.note_time(item.get("timestamp"))
        kw = dict(ident=s(item.get("id")), timestamp=ts, raw_type=f"timeline/{item.get('type')}")
        itype = item.get("type")
        text = str(item.get("text") or "")
        if itype == "user":
            return [self.entry(parsed, Role.USER.value, EntryKind.TEXT, text, **kw)]
        if itype == "copilot":
            return [self.entry(parsed, Role.ASSISTANT.value, EntryKind.TEXT, text, **kw)]
        if itype in ("info", "warning", "error"):
            return [self.entry(parsed, Role.SYSTEM.value, EntryKind.SYSTEM, text, is_error=itype == "error", **kw)]
        if itype == "tool_call_completed":
            name = s(item.get("name")) or "tool"
            call = s(item.get("callId"))
            result = item.get("result") if isinstance(item.get("result"), dict) else {}
            log = result.get("log")
            return [
                self.entry(parsed, Role.ASSISTANT.value, EntryKind.TOOL_USE, name, tool_name=name,
                           tool_input=item.get("arguments"), tool_use_id=call, **kw),
                self.entry(parsed, Role.TOOL.value, EntryKind.TOOL_RESULT, log if isinstance(log, str) else "",
                           n=1, tool_name=name, tool_use_id=call, is_error=result.get("type") != "success", **kw),
            ]
        return None

    def _chat(self, msg: dict, parsed: ParsedLine) -> list[Entry] | None:
        role = msg.get("role")
        out: list[Entry] = []
        if role == "user":
            out.append(self.entry(parsed, Role.USER.value, EntryKind.TEXT, text_of(msg.get("content"))))
        elif role == "assistant":
            if text_of(msg.get("content")):
                out.append(self.entry(parsed, Role.ASSISTANT.value, EntryKind.TEXT, text_of(msg.get("content"))))
            calls = msg.get("tool_calls")
            for call in calls if isinstance(calls, list) else ():
                fn = call.get("function") if isinstance(call, dict) else None
                if not isinstance(fn, dict):
                    continue
                name = s(fn.get("name")) or "tool"
                args = fn.get("arguments")
                if isinstance(args, str):
                    try:
                        args = orjson.loads(args)
                    except orjson.JSONDecodeError:
                        pass
                out.append(self.entry(parsed, Role.ASSISTANT.value, EntryKind.TOOL_USE, name, n=len(out),
                                      tool_name=name, tool_input=args, tool_use_id=s(call.get("id"))))
                self._tools[s(call.get("id")) or ""] = name
        elif role == "tool":
            call = s(msg.get("tool_call_id"))
            out.append(self.entry(parsed, Role.TOOL.value, EntryKind.TOOL_RESULT, text_of(msg.get("content")),
                                  tool_use_id=call, tool_name=self._tools.get(call or "")))
        elif role == "system":
            out.append(self.entry(parsed, Role.SYSTEM.value, EntryKind.META, text_of(msg.get("content"))))
        else:
            return None
        return out or [self.entry(parsed, Role.ASSISTANT.value, EntryKind.TEXT, "")]


def _load_legacy(adapter: CopilotAdapter, path: str) -> list[LoadedSession]:
    """A legacy session document: the header, then each element of `chatMessages` and `timeline`
    fed as one record located where it starts in the file."""
    try:
        with open(path, "rb") as fh:
            buf = fh.read()
    except OSError as exc:
        raise reader_error(path, exc) from exc
    parser = adapter.parser(path)
    body = buf[3:] if buf.startswith(b"\xef\xbb\xbf") else buf
    shift = len(buf) - len(body)
    try:
        doc = orjson.loads(body)
    except orjson.JSONDecodeError as exc:  # rewritten whole on each change: caught half-written
        parser.feed(ParsedLine(RawLine(0, 1, buf[:65536]), (), f"not a complete JSON document ({exc})"))
        return parser.finish()
    if not isinstance(doc, dict):
        parser.feed(parse_line(RawLine(0, 1, buf[:65536])))
        return parser.finish()
    timeline = doc.get("timeline")
    header = {k: v for k, v in doc.items() if k not in ("chatMessages", "timeline")}
    parser.feed(ParsedLine(RawLine(shift, 1, b""), (_LegacyPart("header", header,
                                                              isinstance(timeline, list) and bool(timeline)),)))
    for key in ("chatMessages", "timeline"):
        items = doc.get(key)
        if not isinstance(items, list):
            continue
        spans = array_spans(body, f'"{key}"'.encode())
        aligned = spans is not None and len(spans) == len(items)
        line, pos = 1, 0
        for index, item in enumerate(items):
            start = spans[index][0] if aligned else 0  # type: ignore[index]
            line += body.count(b"\n", pos, start)
            pos = max(pos, start)
            raw = RawLine(start + shift, line, orjson.dumps(item))
            parser.feed(ParsedLine(raw, (_LegacyPart(key, item),)))
    return parser.finish()


__all__ = ["CopilotAdapter", "CopilotParser"]
