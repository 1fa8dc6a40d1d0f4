"""What the parsers of the simpler formats (Copilot CLI, pi, OpenCode) share: a `RecordParser`
that collects entries and noise, the session's times, models, tokens and title as records come,
and builds the `Session` in `finish()`.

Why: each of those formats needs only its own record-to-entry rules; the bookkeeping around them
(accounting, ids unique within the session, first/last times, the first prompt as title) is the
same, and written once here.
"""
from __future__ import annotations

import os
import sys
from array import array
from bisect import bisect_left
from dataclasses import replace
from datetime import datetime
from itertools import chain
from typing import Any, Iterable

import orjson

from ..jsonl import ParsedLine, RecordFile
from ...model import Entry, EntryKind, Locator, Role, Session, SessionKind, TokenUsage, parse_timestamp, truncate
from .base import KeepingParser, LoadedSession, ResumingAdapter, UsagePart, hash8


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


class CarriedIds:
    """What a parser carries of the ids its readings met, so that a reading on names a repeated
    entry as a whole reading does and tells where an id repeated: the entry ids this reading
    gave (`_ids`, the parser's own set), those of the readings it went on from, hashed
    (`_seen`, `IdHashes`), and `clash_line`."""

    _ids: set[str]
    _seen: IdHashes | None = None  # (taken up by `take_ids`)
    #: the last line on which an id repeated one met before (0: none), over the whole reading
    clash_line = 0

    def id_used(self, ident: str) -> bool:
        """Whether an entry of this reading, or of the readings it went on from, has `ident`."""
        return ident in self._ids or (self._seen is not None and entry_hash(ident) in self._seen)

    def packed_ids(self, head: dict[str, Any], records: Iterable[str] = ()) -> bytes:
        """A carried state: `head` as JSON with the clash line and how many hashes are sorted,
        a newline, then the hashes of the entry ids given and of the ids `records` (those of
        records no entry names), with those of the readings before."""
        ids = IdHashes.carried(self._seen, chain(map(entry_hash, self._ids), map(_record_hash, records)))
        return b"".join([orjson.dumps({**head, "clash": self.clash_line, "sorted": ids.n_sorted}), b"\n",
                         ids.packed()])

    def take_ids(self, blob: bytes, state: dict[str, Any]) -> None:
        """Take up the hashes and the clash line of `blob`, whose JSON `carried_state` gave as
        `state` (ValueError: the hashes are damaged)."""
        self._seen = IdHashes.of(blob, state)
        self.clash_line = state["clash"]


class CollectingParser(KeepingParser, CarriedIds):
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
    #: (2: the ids' hashes after the JSON, and the clash line)
    CARRY_VERSION = 2

    def carry(self) -> bytes | None:
        """What the session depends on of the lines read so far: as JSON, the scalar metadata,
        titles cut to what a title can show, models, tokens, times, counts, the subclass's own
        (`carry_own`) and `clash_line`; then a newline and the 8-byte hashes of every entry id
        given and record id met (`record_ids`), so that a reading on names a new entry as a whole
        reading would (`unique_id`) and tells a repeated id. None when that cannot be carried
        (the file is then read whole when it grows)."""
        own = self.carry_own()
        if own is None:
            return None
        before = self._before or {}
        account = self.account
        # (a record whose id names an entry too is told by that entry's hash: `repeats_record`)
        return self.packed_ids({
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
        }, (r for r in self.record_ids() if r not in self._ids))

    def resume(self, blob: bytes) -> bool:
        """Take up the state `carry` gave (False: not this version's or this format's)."""
        state = carried_state(blob, self.CARRY_VERSION, self.source_format)
        if state is None or not self.resume_own(state["own"]):
            return False
        self.take_ids(blob, state)
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

    def record_ids(self) -> Iterable[str]:
        """The ids of the records read (whose repeating tells: `repeats_record`). Default: none."""
        return ()

    def repeats_record(self, rec_id: str, met: bool, parsed: ParsedLine) -> None:
        """Note record `rec_id` on `parsed`, `met` (whether this reading met it already) or not:
        a repeat of one met before, here or by the reading carried, sets `clash_line`. (The
        reading carried kept a record's id as an entry's when an entry has it, as its first
        entry does: an entry of that name, whichever record gave it, counts as a repeat too.)"""
        seen = self._seen
        if met or (seen is not None and (_record_hash(rec_id) in seen or entry_hash(rec_id) in seen)):
            self.clash_line = parsed.raw.line

    # -- reading the last lines alone (core/catalog/tails.py `regrow`) -----------------------------
    def at_cut(self) -> bool:
        """Asked just before the first line appended since the window's whole reading
        (`CollectingAdapter.read_grown`): False when the lines read so far cannot be told to
        lead into the new ones as the whole file does. Default: True."""
        return True

    def continues_after(self, loaded: LoadedSession, first_new: int) -> bool:
        """Whether the lines from line `first_new` on only add to the end of the conversation
        of `loaded` (this parser's reading of a window and them) as a whole reading's would,
        by what this format carries from line to line. Default: True."""
        return True

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
        """`wanted` (with `.n` for a record's later entries), else `L{line}`; never one used before
        (in this reading, or the one it went on from: its ids' hashes)."""
        base = wanted or f"L{parsed.raw.line}"
        ident = base if n == 0 else f"{base}.{n}"
        if self.id_used(ident):
            self.clash_line = parsed.raw.line
            ident = f"L{parsed.raw.line}" + (f".{n}" if n else "")
            while self.id_used(ident):
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

    def read_grown(self, path: str, rf: RecordFile, offset: int, line: int,
                   old_end: int, carried: bytes | None = None) -> LoadedSession | None:
        """`Adapter.read_grown`: the lines from `offset` read as a file of their own give the
        whole reading's last entries, with the appended ones after them, when no id in the
        appended lines repeated one met before in the whole reading (`carried`'s clash line:
        the whole reading would rename such an entry, or take such a record in place of the
        other) and the format's own rules hold (`CollectingParser.at_cut`, `continues_after`)."""
        parser = self.parser(path)
        state = carried_state(carried, parser.CARRY_VERSION, parser.source_format) if self.grows(path) else None
        if state is None:
            return None
        got = self.grown_session(parser, rf, offset, line, old_end, parser.at_cut)
        return got[0] if got is not None and state["clash"] < got[1] and parser.continues_after(*got) else None


def carried_state(carried: bytes | None, version: int, fmt: str) -> dict[str, Any] | None:
    """The JSON of a carried state of format `fmt` and `version` (before the ids' hashes), with
    its clash line (the last line whose id repeated one met before) and how many of the hashes
    are sorted; None: none such."""
    if not isinstance(carried, bytes) or b"\n" not in carried:
        return None
    try:
        state = orjson.loads(carried[:carried.index(b"\n")])
    except orjson.JSONDecodeError:
        return None
    if (not isinstance(state, dict) or state.get("v") != version or state.get("format") != fmt
            or type(state.get("clash")) is not int or type(state.get("sorted")) is not int):
        return None
    return state


def entry_hash(ident: str) -> int:
    return int.from_bytes(hash8("e\0" + ident), "little")


def _record_hash(rec_id: str) -> int:
    return int.from_bytes(hash8("r\0" + rec_id), "little")


class IdHashes:
    """The 64-bit hashes of the ids a reading met, as carried: most of them sorted (looked up by
    bisection: taking them up is one copy of their bytes), the latest unsorted (a set). Why:
    a set of every hash made when a reading on takes the state up cost ~150 ms at 700,000 ids
    (a pi transcript of 160 MB), at every call after the file grew; sorting all of them at each
    carry would cost more. The unsorted ones are sorted in with the others once they are over
    an eighth of them (Python's sort merges the sorted run and the new one)."""

    def __init__(self, ordered: array[int], latest: list[int]) -> None:
        self._sorted, self._latest = ordered, latest
        self._set: set[int] | None = None  # (the latest as a set, made at the first lookup)

    @property
    def n_sorted(self) -> int:
        return len(self._sorted)

    def __contains__(self, h: int) -> bool:
        if self._set is None:
            self._set = set(self._latest)
        if h in self._set:
            return True
        ordered = self._sorted
        i = bisect_left(ordered, h)
        return i < len(ordered) and ordered[i] == h

    @classmethod
    def of(cls, carried: bytes, state: dict[str, Any]) -> IdHashes:
        """The hashes after the JSON of a carried state (`carried_state` gave `state`)."""
        return cls.unpack(carried[carried.index(b"\n") + 1:], state["sorted"])

    @classmethod
    def unpack(cls, body: bytes, n_sorted: int) -> IdHashes:
        if len(body) % 8 or not 0 <= n_sorted <= len(body) // 8:
            raise ValueError("not a carried state's id hashes")
        ordered, latest = array("Q"), array("Q")
        ordered.frombytes(body[:8 * n_sorted])
        latest.frombytes(body[8 * n_sorted:])
        if sys.byteorder != "little":
            ordered.byteswap()
            latest.byteswap()
        return cls(ordered, latest.tolist())

    @classmethod
    def carried(cls, before: IdHashes | None, new: Iterable[int]) -> IdHashes:
        """`before`'s hashes (None: none) and `new` ones, as the next state carries them."""
        ordered = before._sorted if before is not None else array("Q")
        latest = [*(before._latest if before is not None else ()), *new]
        if len(latest) > max(_LATEST_MIN, len(ordered) // 8):
            ordered, latest = array("Q", sorted(chain(ordered, latest))), []
        return cls(ordered, latest)

    def packed(self) -> bytes:
        out = [self._sorted, array("Q", self._latest)]
        if sys.byteorder != "little":
            out = [array("Q", a) for a in out]
            for a in out:
                a.byteswap()
        return b"".join(a.tobytes() for a in out)


#: unsorted hashes carried as they are up to this many (or an eighth of the sorted ones)
_LATEST_MIN = 4096


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


__all__ = ["CarriedIds", "CollectingAdapter", "CollectingParser", "IdHashes", "carried_state", "carried_title", "count", "entry_hash",
           "off_branch", "s", "stem", "text_of"]
