"""pi coding agent sessions (`~/.pi/agent/sessions/--<escaped-cwd>--/<time>_<uuid>.jsonl`).

Why: pi keeps a whole conversation tree in one append-only JSONL file (`/tree` continues from any
earlier point, so abandoned branches stay in the file); this adapter shows each record once and
marks the entries off the branch the session was left on.

Format (pi-mono `packages/coding-agent/src/core/session-manager.ts`, FORMATS.md §9), versions read:
  * v3 (current): line 1 the header `{"type": "session", "version": 3, "id", "timestamp", "cwd",
    "parentSession"?}`; then entries `{"type", "id" (8 hex), "parentId", "timestamp"}` of types
    `message`, `model_change`, `thinking_level_change`, `compaction`, `branch_summary`, `custom`,
    `custom_message`, `label`, `session_info` (`name`: the user's title for the session);
  * v2: the same, an extension message has role `hookMessage` (v3: `custom`);
  * v1: no `version`, no entry ids (each entry then gets `L{line}`; no branches).
A `message` holds `{role, content, timestamp (ms)}`: `user` (text or text/image parts),
`assistant` (parts `text`, `thinking`, `toolCall {id, name, arguments}`, plus `model`, `usage
{input, output, cacheRead, cacheWrite}`, `stopReason`, `errorMessage`), `toolResult`
(`toolCallId`, `toolName`, `content`, `isError`), `bashExecution` (a command the user ran with
`!`: `command`, `output`, `exitCode`), `custom`/`hookMessage` (injected by an extension),
`branchSummary`, `compactionSummary`.

Rules:
  * the header, `model_change`, `thinking_level_change`, `label`, `custom` (extension state, never
    shown to the model) and `session_info` are noise; the last `session_info` name is the title,
    else the first user text;
  * an assistant message gives one entry per part (thinking parts without text are skipped), and
    a SYSTEM entry for an `errorMessage`; tokens are the sum of every assistant message's usage;
  * `bashExecution` gives a user TOOL_USE (`bash`) and its TOOL_RESULT (error when the exit code is
    not 0); extension messages and `custom_message` are META; compaction -> COMPACTION, branch
    summaries -> SUMMARY;
  * entry ids are the record's `id` (`id.1`, `id.2` for its later parts), else `L{line}`;
  * the active branch is the chain of `parentId`s from the file's last record (where pi continues
    when the session is resumed); entries of other records are marked off it.
"""
from __future__ import annotations

import os
from datetime import datetime
from typing import Any, Callable, Iterable

from orjson import JSONDecodeError as _DecodeError, loads as _loads

from ..jsonl import HeadTail, ParsedLine, loads_lenient
from ...model import Entry, EntryKind, Role, SessionKind, parse_timestamp, truncate
from ..ends import (Ends, QuickMeta, find_by_byte, first_json_lines, head_values_from, last_stamp_of,
                    one_spaced, tail_values)
from .base import LoadedSession
from .collect import CollectingAdapter, CollectingParser, off_branch, s, text_of

#: the bytes every `session_info` record holds (its type as a JSON string; in a string value a quote
#: is escaped, so only a key or a value can match)
_SESSION_INFO = b'"session_info"'
NOISE_TYPES = frozenset({"session", "model_change", "thinking_level_change", "label", "custom", "session_info"})


def is_header(value: Any) -> bool:
    return (isinstance(value, dict) and value.get("type") == "session" and isinstance(value.get("id"), str)
            and "timestamp" in value and "message" not in value)


class PiAdapter(CollectingAdapter):
    name = "pi"
    agent = "pi"
    suffixes = (".jsonl",)

    def likely(self, path: str) -> bool:
        """`sessions/--<escaped cwd>--/<time>_<id>.jsonl`: a `.jsonl` in a folder named `--…--`."""
        end = path.rfind(os.sep)
        if not (path.startswith("--", end - 2) and path.endswith(".jsonl")):
            return False
        start = path.rfind(os.sep, 0, end) + 1
        return end - start >= 4 and path.startswith("--", start)

    def sniff(self, path: str, head: bytes) -> bool:
        objs = first_json_lines(head, 1)
        return bool(objs) and is_header(objs[0])

    def parser(self, path: str) -> PiParser:
        return PiParser(path)

    def quick(self, ends: Ends) -> QuickMeta:
        """The header gives id, project and first time; the tail the last time; the title is the
        last `session_info` name (looked for by its bytes in a whole file: it can come anywhere,
        so in a longer one the title is a guess), else the first user text."""
        return _quick_of(self, ends.path, ends.size, ends.mtime, ends.whole, ends.head.buf, ends.head_values(),
                         ends.tail_values_backward)

    def quick_lane(self, path: str, ht: HeadTail, nbytes: int, narrow: bool) -> QuickMeta | None:
        """`quick`'s answer straight from the buffers (`Adapter.quick_lane`) for a file whose
        first line is a session header, without the registry's sniff, `Lines` and `Ends`; None for
        any other file (the general way then reads it)."""
        head = ht.head
        start = 3 if head[:3] == _BOM else 0
        end = head.find(b"\n", start)
        # (a line that ends inside the first `nbytes` is the first the sniffers see, whatever
        # else the general way shows them; pi's takes it when it is a header)
        if end < 0 or end >= nbytes:
            return None
        try:
            first = _loads(memoryview(head)[start:end])
        except _DecodeError:
            return None
        if not is_header(first):
            return None
        whole = ht.tail is head
        try:
            return _quick_of(self, path, ht.size, ht.mtime, whole, head,
                             head_values_from(head, end + 1, whole, [False]), lambda: tail_values(ht.tail, whole),
                             first)
        except Exception:  # noqa: BLE001 - the general way tells the failure
            return None


def _quick_of(adapter: PiAdapter, path: str, size: int, mtime: float, whole: bool, buf: bytes,
              head_values: Iterable[tuple[Any, ...] | None],
              tail_values: Callable[[], Iterable[tuple[Any, ...] | None]], header: Any = None) -> QuickMeta:
    """`PiAdapter.quick` from the values of the head's lines from the top (after the `header`
    when it is given: the first line's) and (asked for when needed) of the tail's from the end;
    `buf` is the head's bytes (the whole file when `whole`)."""
    named = prompt = None
    if whole:  # the last session_info line, found from the end without parsing the rest
        # (one scan for the quoted type, whatever the spacing around its key, walking its `_`
        # (`find_by_byte`: in a file of few underscores, half a plain search's cost); a
        # line it finds is parsed to tell). The scan goes forward: a search from the end crawls
        # at half its speed, and most files hold none; one that does is searched from the end
        # down to the first found.
        first = find_by_byte(buf, _SESSION_INFO, _SESSION_INFO.index(b"_"))
        at = buf.rfind(_SESSION_INFO, first) if first >= 0 else -1
        while at >= 0 and named is None:
            start = buf.rfind(b"\n", 0, at) + 1
            end = buf.find(b"\n", at)
            value = loads_lenient(buf[start:end if end >= 0 else len(buf)])
            if isinstance(value, dict) and value.get("type") == "session_info" and s(value.get("name")):
                named = value["name"]
            at = buf.rfind(_SESSION_INFO, 0, start)
    for values in head_values:
        for value in values or ():
            if header is None and is_header(value):
                header = value
            elif isinstance(value, dict) and value.get("type") == "message" and prompt is None:
                msg = value.get("message")
                if isinstance(msg, dict) and msg.get("role") == "user":
                    prompt = one_spaced(text_of(msg.get("content"))) or None
        if header is not None and prompt is not None:
            break
    if header is None:
        return QuickMeta(path, size, mtime, adapter.agent, adapter.name, whole=whole)
    last = last_stamp_of(tail_values(), _stamp)
    unsure = (_SURE if whole else _TITLE) if last is not None else (_LAST if whole else _TITLE_LAST)
    title = named or prompt
    return QuickMeta(path, size, mtime, adapter.agent, adapter.name, header["id"], SessionKind.MAIN,
                     s(header.get("cwd")), truncate(title, 200) if title else None,
                     parse_timestamp(header.get("timestamp")), last, unsure, whole)


def _stamp(value: Any) -> datetime | None:
    return parse_timestamp(value.get("timestamp")) if isinstance(value, dict) else None


_BOM = b"\xef\xbb\xbf"
_SURE: frozenset[str] = frozenset()
_TITLE, _LAST = frozenset({"title"}), frozenset({"last_timestamp"})
_TITLE_LAST = _TITLE | _LAST


class PiParser(CollectingParser):
    agent = "pi"
    source_format = "pi"

    def __init__(self, path: str) -> None:
        super().__init__(path)
        self._header_seen = False
        self._parents: dict[str, str | None] = {}
        self._record_of: dict[str, str] = {}
        self._leaf: str | None = None
        self._cut: tuple[str | None, set[str]] | None = None  # (`at_cut`: the leaf and records then)

    def record(self, value: Any, parsed: ParsedLine) -> list[Entry] | None:
        if not isinstance(value, dict) or not isinstance(value.get("type"), str):
            return None
        rtype = value["type"]
        rec_id = s(value.get("id")) if rtype != "session" else None
        if rec_id is not None:
            self.repeats_record(rec_id, rec_id in self._parents, parsed)
            parent = value.get("parentId")
            self._parents[rec_id] = parent if isinstance(parent, str) else None
            self._leaf = rec_id
        ts = self.note_time(value.get("timestamp"))
        if rtype == "session":
            if not self._header_seen:
                self._header_seen = True
                self.session_id = s(value.get("id"))
                self.project = s(value.get("cwd"))
            return []
        if rtype == "session_info":
            if s(value.get("name")):
                self.named_title = value["name"]
            return []
        if rtype == "model_change":
            self.note_model(value.get("modelId"))
            return []
        if rtype in NOISE_TYPES:
            return []
        if rtype == "message":
            entries = self._message(value.get("message"), parsed, rec_id, ts)
        elif rtype == "compaction":
            entries = [self.entry(parsed, Role.SYSTEM.value, EntryKind.COMPACTION, str(value.get("summary") or ""),
                                  ident=rec_id, timestamp=ts, raw_type=rtype)]
        elif rtype == "branch_summary":
            entries = [self.entry(parsed, Role.SYSTEM.value, EntryKind.SUMMARY, str(value.get("summary") or ""),
                                  ident=rec_id, timestamp=ts, raw_type=rtype)]
        elif rtype == "custom_message":
            entries = [self.entry(parsed, Role.USER.value, EntryKind.META, text_of(value.get("content")),
                                  ident=rec_id, timestamp=ts, raw_type=rtype)]
        else:
            return None
        if entries is None:
            return None
        if rec_id is not None:
            for e in entries:
                self._record_of[e.id] = rec_id
        return entries

    def _message(self, msg: Any, parsed: ParsedLine, rec_id: str | None, ts: Any) -> list[Entry] | None:
        if not isinstance(msg, dict):
            return None
        role = msg.get("role")
        ts = ts or self.note_time(msg.get("timestamp"))
        out: list[Entry] = []

        def add(role_: str, kind: EntryKind, text: str, **fields: Any) -> None:
            out.append(self.entry(parsed, role_, kind, text, ident=rec_id, n=len(out), timestamp=ts,
                                  raw_type=f"message/{role}", **fields))

        if role == "user":
            add(Role.USER.value, EntryKind.TEXT, text_of(msg.get("content")))
        elif role == "assistant":
            model = s(msg.get("model"))
            self.note_model(model)
            usage = msg.get("usage")
            if isinstance(usage, dict):
                self.add_usage(usage.get("input"), usage.get("output"), usage.get("cacheRead"), usage.get("cacheWrite"),
                               at=ts, model=model)
            content = msg.get("content")
            for part in content if isinstance(content, list) else [content]:
                if isinstance(part, str):
                    add(Role.ASSISTANT.value, EntryKind.TEXT, part, model=model)
                elif not isinstance(part, dict):
                    continue
                elif part.get("type") == "text":
                    add(Role.ASSISTANT.value, EntryKind.TEXT, str(part.get("text") or ""), model=model)
                elif part.get("type") == "thinking":
                    if s(part.get("thinking")):
                        add(Role.ASSISTANT.value, EntryKind.THINKING, part["thinking"], model=model)
                elif part.get("type") == "toolCall":
                    name = s(part.get("name")) or "tool"
                    args = part.get("arguments")
                    add(Role.ASSISTANT.value, EntryKind.TOOL_USE, name, tool_name=name, tool_input=args,
                        tool_use_id=s(part.get("id")), model=model)
            if s(msg.get("errorMessage")):
                add(Role.SYSTEM.value, EntryKind.SYSTEM, f"error ({msg.get('stopReason') or 'error'}): "
                    f"{msg['errorMessage']}", is_error=True)
            if not out:  # an empty reply (aborted at once): still a message of the conversation
                add(Role.ASSISTANT.value, EntryKind.TEXT, "", model=model)
        elif role == "toolResult":
            add(Role.TOOL.value, EntryKind.TOOL_RESULT, text_of(msg.get("content")),
                tool_name=s(msg.get("toolName")), tool_use_id=s(msg.get("toolCallId")),
                is_error=msg.get("isError") is True)
        elif role == "bashExecution":
            command = str(msg.get("command") or "")
            call = f"{rec_id or 'L' + str(parsed.raw.line)}.bash"
            add(Role.USER.value, EntryKind.TOOL_USE, command, tool_name="bash", tool_input={"command": command},
                tool_use_id=call)
            code = msg.get("exitCode")
            add(Role.TOOL.value, EntryKind.TOOL_RESULT, str(msg.get("output") or ""), tool_name="bash",
                tool_use_id=call, is_error=(isinstance(code, int) and code != 0) or msg.get("cancelled") is True)
        elif role in ("custom", "hookMessage"):
            add(Role.USER.value, EntryKind.META, text_of(msg.get("content")))
        elif role == "compactionSummary":
            add(Role.SYSTEM.value, EntryKind.COMPACTION, str(msg.get("summary") or ""))
        elif role == "branchSummary":
            add(Role.SYSTEM.value, EntryKind.SUMMARY, str(msg.get("summary") or ""))
        else:
            return None
        return out

    def carry_own(self) -> object:
        return {"header": self._header_seen}  # (the tree of records names entries' branches only)

    def resume_own(self, own: Any) -> bool:
        if not isinstance(own, dict):
            return False
        self._header_seen = own.get("header") is True
        return True

    def record_ids(self) -> Iterable[str]:
        return self._parents.keys()

    def at_cut(self) -> bool:
        """The leaf and the records read before the appended lines (a file without record ids
        has no tree to tell by: False)."""
        self._cut = (self._leaf, set(self._parents))
        return self._leaf is not None

    def continues_after(self, loaded: LoadedSession, first_new: int) -> bool:
        """The appended lines continue the branch the file was left on: the new leaf reaches
        the leaf of before through appended records alone (no branch from an earlier record,
        whose ancestors a whole reading would put on the branch: they may come before the
        window). Those records' ids repeat none met before (`clash_line`), so the branch marks
        of the records before are what the whole reading gives them too."""
        if self._cut is None:
            return False
        old_leaf, old = self._cut
        node, walked = self._leaf, set()
        while node != old_leaf:
            if node is None or node in old or node in walked:
                return False
            walked.add(node)
            node = self._parents.get(node)
        return True

    def off_branch_ids(self, sidechains: bool = False) -> list[str]:
        """Ids of the entries on an abandoned branch (for a streamed transcript)."""
        marked = off_branch(self.entries, self._parents, self._leaf, self._record_of)
        return [e.id for e in marked if not e.on_active_branch]

    def finish(self) -> list[LoadedSession]:
        if not self._header_seen:
            self.warnings.append("no pi session header: session id taken from the file name")
        entries = off_branch(self.entries, self._parents, self._leaf, self._record_of)
        self.entries = entries
        return super().finish()


__all__ = ["PiAdapter", "PiParser"]
