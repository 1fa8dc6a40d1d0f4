"""The one small interface every transcript format implements, and the sniffing registry.

An adapter turns the lines of one file into `Entry`s through a stateful `RecordParser` fed line
by line (so the same code serves a full load, an incremental index update from a byte offset,
and a live tail), then `finish()`es into one or more `LoadedSession`s (a Claude file with inline
sidechains holds several). Cross-file work (linking subagent files to parents, deduplicating
records copied into resumed sessions) happens in `link()`, given every session of a root.

Accounting is every adapter's duty: each line is exactly one of conversation (it produced at least
one entry), noise (kept out of the conversation, still available raw) or malformed.
"""
from __future__ import annotations

import os
import re
import threading
from abc import ABC, abstractmethod
from contextlib import contextmanager
from dataclasses import field, fields, replace
from operator import attrgetter
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, NamedTuple

from ...text import LazyPattern
from ...records import record
from ..jsonl import GZIP_MAGIC, HeadTail, ParsedLine, ReaderError, RecordFile
from ...model import Entry, EntryKind, Locator, Role, Session, TokenUsage, parse_timestamp

if TYPE_CHECKING:
    from datetime import datetime

    from ..ends import Ends, QuickMeta
    from ..walk import WalkReport


@record
class LineAccount:
    """How the lines of a file were used. `lines == conversation + noise + malformed`."""

    lines: int = 0
    conversation: int = 0
    noise: int = 0
    malformed: int = 0
    pending_bytes: int = 0  # an unterminated, not-yet-parseable last line (file being written)

    def holds(self) -> bool:
        return self.lines == self.conversation + self.noise + self.malformed


@record
class LoadedSession:
    """A session with its entries in file order. Noise records are kept as locators, so their raw
    JSON can be shown on demand without holding it in memory."""

    session: Session
    entries: list[Entry]
    noise: list[Locator] = field(default_factory=list)
    account: LineAccount = field(default_factory=LineAccount)
    warnings: list[str] = field(default_factory=list)
    #: the session's tokens as the agent reported them, each with its time and model (either
    #: None when the record did not say): what the usage pictures (core/stats) count per day and
    #: model. Empty when the format reports tokens only for the whole session.
    usage_parts: list[UsagePart] = field(default_factory=list)
    #: what a later reading on of the file needs of the part read (`Adapter.extend`), worked out
    #: only when asked (the catalog asks; the reader and the index never do): a zero-argument
    #: function giving a JSON-able value, None when the file cannot be read on from here.
    carry: Callable[[], object] | None = None

    @property
    def malformed(self) -> list[Entry]:
        return [e for e in self.entries if e.kind is EntryKind.MALFORMED]

    def usage_by_time(self) -> list[UsagePart]:
        """`usage_parts` (a format whose parts are worked out at the end overrides this)."""
        return self.usage_parts


class Extension(NamedTuple):
    """`Adapter.extend`'s answer: the session after the appended lines, what reading on from
    there needs (`carry`, JSON-able; None for an adapter that carries nothing), and, when the
    appended lines' entries as a whole read shows them differ from those the parser gave (split
    replies merged), those, with the tokens the session had before them (for the activity rows)."""

    session: Session
    carry: object = None
    entries: "list[Entry] | None" = None
    usage_before: TokenUsage | None = None


class Changed(NamedTuple):
    """`Adapter.load_changed`'s answer: every session's mark now (JSON-able, by id, in the
    file's order of sessions) and the sessions read: those whose marks differ from the ones
    given (every session when none were). `whole`: the sessions could not be marked; every one
    was read, in the file's order, and `marks` is empty."""

    marks: dict
    loaded: "list[LoadedSession]"
    whole: bool = False


#: some of a session's tokens: when (None: not said) and by which model (None: not said)
UsagePart = tuple["datetime | None", "str | None", TokenUsage]


def malformed_entry(parsed: ParsedLine, path: str) -> Entry:
    raw = parsed.raw
    text = raw.data.decode("utf-8", "replace")
    return Entry(
        id=f"L{raw.line}",
        role=Role.SYSTEM.value,
        kind=EntryKind.MALFORMED,
        text=text,
        locator=Locator(path, raw.offset, raw.line),
        raw_type=parsed.error or "malformed",
    )


class RecordParser(ABC):
    """Fed the parsed lines of one file in order; keeps whatever state the format needs.

    `thin`: the entries `feed` returns (and so those a parser keeps for `finish()`) are
    `thin_entry` copies, without their long texts and tool inputs: what `Adapter.load_thin` reads
    a big file with, so its sessions are settled without holding every entry's text."""

    thin = False
    #: with `thin`: the entries kept whole nonetheless (`Adapter.load_thin(keep=)`: the window of
    #: a big session that is shown, core/read/window.py)
    keep_whole: Callable[[Entry], bool] | None = None
    #: False: the thread of the records fed (what `finish()` and branch marks are worked out
    #: from) is not kept, for a reading that only streams entries on (the index): memory then
    #: follows what reading the next lines needs (ids seen, tool names), not every record
    threads = True
    #: False: `finish()` is never called (the reader's stream): what only settling the session
    #: needs (tokens by reply, title candidates) is not kept, the thread still is (branch marks)
    settles = True

    def __init__(self, path: str) -> None:
        self.path = path
        self.account = LineAccount()

    def feed(self, parsed: ParsedLine) -> list[Entry]:
        """Entries produced by one line (possibly none), with the line accounted for."""
        entries = self._feed(parsed)
        if self.thin and entries:
            keep = self.keep_whole
            entries = [e if keep is not None and keep(e) else thin_entry(e) for e in entries]
        return entries

    def _feed(self, parsed: ParsedLine) -> list[Entry]:
        self.account.lines += 1
        if not parsed.ok:
            self.account.malformed += 1
            return [malformed_entry(parsed, self.path)]
        entries, is_noise = self.convert(parsed)
        if entries:
            self.account.conversation += 1
        elif is_noise or not parsed.values:
            self.account.noise += 1
        else:
            # A record that yields nothing and is not declared noise would break accounting:
            # treat it as an unknown record rather than lose it.
            self.account.conversation += 1
            entries = [self.unknown_entry(parsed)]
        return entries

    @abstractmethod
    def convert(self, parsed: ParsedLine) -> tuple[list[Entry], bool]:
        """Entries of one well-formed line, and whether an empty result is deliberate noise."""

    @abstractmethod
    def finish(self) -> list[LoadedSession]:
        """The session(s) of the file, once every line was fed."""

    def forget(self) -> None:
        """Let go of what is kept for `finish()` of the lines fed so far (their entries and noise
        locators), for a reading that streams the entries on and never finishes (the index, the
        reader): memory then follows a batch, not the file. What later lines need (ids, the
        thread, tool names) is kept."""

    def locator(self, parsed: ParsedLine) -> Locator:
        return Locator(self.path, parsed.raw.offset, parsed.raw.line)

    def unknown_entry(self, parsed: ParsedLine, raw_type: str = "") -> Entry:
        """A record we do not understand, kept and shown raw (with its time, when it has one
        where every format we read puts it: a top-level `timestamp`)."""
        raw = parsed.raw
        value = parsed.value
        return Entry(
            timestamp=parse_timestamp(value.get("timestamp")) if isinstance(value, dict) else None,
            id=f"L{raw.line}",
            role=Role.SYSTEM.value,
            kind=EntryKind.UNKNOWN,
            text=raw.data.decode("utf-8", "replace"),
            locator=self.locator(parsed),
            raw_type=raw_type or _type_of(parsed.value),
        )


#: characters of a text a thin entry keeps (see `thin_entry`): one, whether it is blank
THIN_TEXT = 1
_HEAD = 64  # (of a longer text, how much is looked at before searching the rest for a non-blank)


def thin_entry(e: Entry) -> Entry:
    """An entry without what only showing or searching it needs: its text cut to its first
    non-blank character (blank exactly when the whole text is: activity counts and merges ask;
    a one-character string is no new object), its tool input dropped. Everything a session is
    settled from (ids, kinds, roles, times, models, message ids, branches) is kept: a big file
    read thin holds ~300k of these per GB."""
    text = e.text
    if len(text) > THIN_TEXT:
        head = text[:_HEAD].lstrip()
        if not head:
            found = _NON_BLANK.search(text)
            head = found.group() if found else text[:1]
        text = head[:1]
    elif e.tool_input is None:
        return e
    # (every field read at once and the entry made from them: cheaper than `replace`,
    # which a thin reading of a big file did for nearly every entry)
    values = list(_entry_fields(e))
    values[_TEXT_AT], values[_INPUT_AT] = text, None
    return Entry(*values)


_ENTRY_FIELDS = tuple(f.name for f in fields(Entry))
_entry_fields = attrgetter(*_ENTRY_FIELDS)
_TEXT_AT, _INPUT_AT = _ENTRY_FIELDS.index("text"), _ENTRY_FIELDS.index("tool_input")


_NON_BLANK = LazyPattern(r"\S")


def _type_of(value: object) -> str:
    if isinstance(value, dict):
        t = value.get("type")
        return t if isinstance(t, str) else "object"
    return type(value).__name__


class KeepingParser(RecordParser):
    """A parser that keeps what it reads: entries in `entries`, the lines that gave none in `noise`
    (their locators), for the adapters that build a whole session from one pass."""

    def __init__(self, path: str) -> None:
        super().__init__(path)
        self.entries: list[Entry] = []
        self.noise: list[Locator] = []

    def feed(self, parsed: ParsedLine) -> list[Entry]:
        entries = super().feed(parsed)
        if entries:
            self.entries.extend(entries)
        else:
            self.noise.append(self.locator(parsed))
        return entries

    def forget(self) -> None:
        self.entries.clear()
        self.noise.clear()


class Adapter(ABC):
    """One agent format."""

    #: stable name of the format, used as `source_plugin` in the CLI's JSON
    name: str = ""
    #: the agent that writes it, `agent_id` in the CLI's JSON
    agent: str = ""
    #: file name suffixes this adapter may read (cheap pre-filter before sniffing)
    suffixes: tuple[str, ...] = (".jsonl",)
    #: records are appended as lines (JSONL): a file that grew is read on from where it stopped
    #: (index updates, live tails, streamed loading). False for a format rewritten in place (one
    #: JSON document, a database, a session spread over several files): any change of such a
    #: file re-reads it whole, and it is never streamed line by line.
    appends: bool = True
    #: endings of the names of files the agent keeps in a project folder (Aider's chat history):
    #: looked for directly in project folders (core/read/discovery.py `project_roots`)
    project_files: tuple[str, ...] = ()
    #: a grown file's session is brought up to date from its appended lines alone (`extend`):
    #: the catalog's scan then reads only those. False: a grown file is read whole by the scan.
    continues: bool = False
    #: `quick` reads the ends only through their lines (`Ends.head_pieces`/`tail_pieces` and
    #: the values of those), never their buffers beyond a line: an answer from narrower windows
    #: that did not run out of lines (`Ends.ran_out`) is then the answer of the full ones, and the
    #: listing tries those first (core/read/listing.py)
    narrow_ends: bool = False
    #: `extend` needs what the reading so far carried (`LoadedSession.carry`, kept by the
    #: catalog beside the file's row); without it the file is read whole
    carries: bool = False

    def parser_on(self, path: str, carried: object = None) -> RecordParser | None:
        """A parser to read a grown file on with, from the state a reading so far carried (for an
        adapter that `carries`); None when it cannot be read on from there. Default: a fresh one."""
        return self.parser(path)

    def extend(self, old: Session, tail: RecordParser, size: int,
               carried: object = None) -> Extension | None:
        """The session of a one-session file that held `old` where its reading stopped, after a
        fresh parser `tail` was fed the complete lines appended since (the file now `size`
        bytes): what a whole read would give, with what the next reading on needs (`carried`
        is the last reading's, for an adapter that `carries`). None when those lines need the
        whole file read again. Called only when `continues`."""
        return None

    def load_changed(self, path: str, marks: dict | None) -> Changed | None:
        """For a file of many sessions each rewritten in place (a database): every session's
        mark (what changes whenever the session does) and the sessions whose marks are not
        `marks` (the ones an earlier call gave; None: read every session), read in one snapshot
        of the file. None: this file is read whole (`load`) at every change. Default: None."""
        return None

    def read_grown(self, path: str, rf: RecordFile, offset: int, line: int,
                   old_end: int, carried: bytes | None = None) -> LoadedSession | None:
        """The session of the file's lines from `offset` (line `line`) on, read as a file of
        their own, when the lines from `old_end` on (appended since a whole reading checked that
        the lines from `offset` give the session's last entries, and read on by the scan's
        `extend` since) provably only add to the end of its conversation: then its last entries
        are a whole reading's (core/catalog/tails.py `regrow`). `carried`: what the reading of
        the whole file so far carried (for an adapter that `carries`; None: nothing). None when
        that cannot be told (read otherwise). Default: None."""
        return None

    @staticmethod
    def grown_session(parser: RecordParser, rf: RecordFile, offset: int, line: int, old_end: int,
                      at_cut: Callable[[], bool] = lambda: True) -> tuple[LoadedSession, int] | None:
        """`read_grown`'s reading: `parser` fed the lines from `offset` (line `line`), `at_cut()`
        asked just before the first line from `old_end` on (False: stop there), then finished:
        the one session it gives and that line's number; None when it stopped, there is no such
        line, `old_end` is not the end of a line (the reading before ended inside one) or the
        lines give other than one session."""
        if not 0 <= offset < old_end <= rf.size or rf.buffer[old_end - 1:old_end] != b"\n":
            return None
        first_new = None
        for parsed in rf.iter_parsed(offset, line):
            if first_new is None and parsed.raw.offset >= old_end:
                if not at_cut():
                    return None
                first_new = parsed.raw.line
            parser.feed(parsed)
        if first_new is None:
            return None
        loaded = parser.finish()
        return (loaded[0], first_new) if len(loaded) == 1 else None

    def grows(self, path: str) -> bool:
        """Whether `path` is read on from where it stopped when it grew (`appends`, per file for
        an adapter reading both kinds)."""
        return self.appends

    def accepts_name(self, path: str) -> bool:
        return path.endswith(self.suffixes)

    def likely(self, path: str) -> bool:
        """Whether the file's path is where this agent keeps its sessions (`Registry.sniff` tries
        this adapter's sniffer first; a cheap look at the name, never at the content). Default:
        no opinion."""
        return False

    @abstractmethod
    def sniff(self, path: str, head: bytes) -> bool:
        """True if the first bytes of a file look like this format (content, not file name)."""

    @abstractmethod
    def parser(self, path: str) -> RecordParser:
        """A fresh parser for one file."""

    def load(self, path: str, record_file: RecordFile | None = None) -> list[LoadedSession]:
        """Read a whole file (streaming) into sessions."""
        own = record_file is None
        rf = record_file or RecordFile(path)
        try:
            parser = self.parser(path)
            thin = parser.thin = getattr(_thin_loads, "on", False)
            if thin:
                parser.keep_whole = getattr(_thin_loads, "keep", None)
            for parsed in rf.iter_parsed(release=thin):
                parser.feed(parsed)
            parser.account.pending_bytes = rf.size - rf.complete_end if _pending(rf) else 0
            loaded = parser.finish()
            hook = None if thin else getattr(_load_hook, "fn", None)
            if hook is not None:
                hook(path, rf, loaded)
            return loaded
        finally:
            if own:
                rf.close()

    def load_thin(self, path: str, record_file: RecordFile | None = None,
                  keep: Callable[[Entry], bool] | None = None) -> list[LoadedSession]:
        """`load`, holding no entry's text: the same sessions (ids, titles, counts, times, tokens,
        branches), their entries `thin_entry` copies. For what needs a big file's sessions and not
        its texts (the catalog's scan): memory follows the count of entries, not the bytes, and
        the file's mapped pages are let go as it is read. A format read whole (one document, a
        database) loads as `load` does. Load hooks (`loads_observed`) are not called: these
        entries cannot be indexed. `keep`: called with each entry the parser gives, in order; those
        it says True of are kept whole (for a format whose parser thins them: else every entry
        is whole, and `keep` is never called)."""
        prev = getattr(_thin_loads, "on", False), getattr(_thin_loads, "keep", None)
        _thin_loads.on, _thin_loads.keep = True, keep
        try:
            return self.load(path, record_file)
        finally:
            _thin_loads.on, _thin_loads.keep = prev

    def load_session(self, path: str, session_id: str) -> list[LoadedSession]:
        """The sessions of `path` holding session `session_id` (default: all of the file's; a
        database reads only that one)."""
        return self.load(path)

    def quick(self, ends: Ends) -> QuickMeta:
        """Listing metadata of one file from its first and last bytes only (core/read/listing.py):
        what those bytes settle of the session the full parse would give, the rest marked unsure.
        Default: agent and format known, every other field unsure."""
        return ends.meta(self)

    #: `quick_lane(path, ht, nbytes, narrow)`, where a format has one: the quick listing's
    #: answer for a file whose path names this format (`likely`), from its ends `ht` (a
    #: `HeadTail` of `nbytes` windows; `narrow`: the head is narrower than the listing's), read
    #: straight from the buffers for the usual head, without the registry's sniff and the
    #: `Ends` it hands `quick`; None for any other file, which the listing then reads as it
    #: does every format. Its answer must be `quick`'s (tests/core/test_listing.py holds them
    #: equal). Why: a listing reads the few lines of thousands of files, and the general way
    #: around them cost more than reading them.
    quick_lane: Callable[[str, HeadTail, int, bool], QuickMeta | None] | None = None

    def link(self, sessions: list[LoadedSession]) -> None:
        """Cross-file linking among this adapter's sessions (in place). Default: nothing."""

    def discover(self, root: str) -> Iterator[str]:
        """Candidate files under a root (names only; content is sniffed later)."""
        yield from walk_files(root, self.suffixes)


def results_named(entries: Iterable[Entry], first_line: int) -> bool:
    """Whether every tool result from line `first_line` on that answers a call names its tool,
    the call having been read (in lines read alone, a call before them leaves it unnamed where
    a whole reading names it)."""
    return not any(e.kind is EntryKind.TOOL_RESULT and e.tool_use_id and e.tool_name is None
                   and e.locator.line >= first_line for e in entries)


def hash8(text: str) -> bytes:
    """An 8-byte hash of `text`, the same in every process: what a carried state keeps of the ids
    a reading met (a set of them, stored, is what a later reading on checks a new id against)."""
    import hashlib  # (here: OpenSSL's load is for a reading that carries)

    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).digest()


class ResumingAdapter(Adapter):
    """An adapter whose parser makes the session line by line with no look-ahead, so a grown
    file is read on by a parser taking up the state the reading so far left: the parser's
    `carry()` (JSON bytes, handed out as `LoadedSession.carry`) and `resume(blob)` (False: not
    that parser's state), which keeps the state taken up in `_before` (with `_before["usage"]`,
    the session's tokens then, for the activity rows)."""

    continues = True
    carries = True

    def parser_on(self, path: str, carried: object = None) -> RecordParser | None:
        if not isinstance(carried, bytes) or not self.grows(path):
            return None
        parser = self.parser(path)
        try:
            return parser if parser.resume(carried) else None  # type: ignore[attr-defined]
        except Exception:  # noqa: BLE001 - a carried state of another shape: read whole
            return None

    def extend(self, old: Session, tail: RecordParser, size: int,
               carried: object = None) -> Extension | None:
        before = getattr(tail, "_before", None)
        if not isinstance(before, dict) or type(tail) is not type(self.parser(tail.path)):
            return None
        [loaded] = tail.finish()
        carry = loaded.carry() if loaded.carry is not None else None
        return Extension(replace(loaded.session, size=size), carry, usage_before=TokenUsage(*before["usage"]))


LoadHook = Callable[[str, RecordFile, "list[LoadedSession]"], None]
_load_hook = threading.local()
_thin_loads = threading.local()  # set while `Adapter.load_thin` runs in this thread


@contextmanager
def loads_observed(fn: LoadHook) -> Iterator[None]:
    """While active, every whole-file `Adapter.load` in this thread hands `fn` its path, its still
    open RecordFile and the sessions it loaded, before returning them.

    Why: a library scan parses every changed file fully for the catalog; the index ingests those
    entries from that same parse instead of parsing each file a second time."""
    prev = getattr(_load_hook, "fn", None)
    _load_hook.fn = fn
    try:
        yield
    finally:
        _load_hook.fn = prev


def load_json_document(parser: RecordParser, path: str, key: str) -> list[LoadedSession]:
    """A file that is one JSON object whose `key` array holds the records (Codex's TypeScript
    era, Gemini CLI's legacy chats), fed to a line parser as if it were JSONL: first the object
    without `key` (the header), then each record, with the byte offset and 1-based line where its
    JSON starts in the (pretty-printed) file (offset 0 / line 1 when the structural scan cannot
    align with the parsed records). The parser's `account` then counts records, not lines.

    A document that does not parse (the agent was killed mid-rewrite) is one malformed record;
    one that is not an object is fed as a single line."""
    import orjson

    from ..jsonl import RawLine, parse_line, reader_error

    try:
        with open(path, "rb") as fh:
            buf = fh.read()
    except OSError as exc:
        raise reader_error(path, exc) from exc
    body = buf[3:] if buf.startswith(b"\xef\xbb\xbf") else buf
    if not body.strip():
        return parser.finish()
    try:
        doc = orjson.loads(body)
    except orjson.JSONDecodeError as exc:
        parser.feed(ParsedLine(RawLine(0, 1, buf[:65536]), (), f"not a complete JSON document ({exc})"))
        return parser.finish()
    if not isinstance(doc, dict):
        parser.feed(parse_line(RawLine(0, 1, buf[:65536])))
        return parser.finish()
    shift = len(buf) - len(body)
    items = doc.get(key)
    items = items if isinstance(items, list) else []
    spans = array_spans(body, f'"{key}"'.encode())
    aligned = spans is not None and len(spans) == len(items) and all(isinstance(i, dict) for i in items)
    header = {k: v for k, v in doc.items() if k != key}
    parser.feed(ParsedLine(RawLine(0, 1, orjson.dumps(header)), (header,)))
    line, pos = 1, 0
    for index, item in enumerate(items):
        if aligned:
            start, end = spans[index]  # type: ignore[index]
            line += body.count(b"\n", pos, start)
            pos = start
            parser.feed(ParsedLine(RawLine(start + shift, line, body[start:end]), (item,)))
        else:
            parser.feed(ParsedLine(RawLine(0, 1, orjson.dumps(item)), (item,)))
    return parser.finish()


#: the record types of Codex's wrapped rollout lines (`{"timestamp", "type", "payload": {...}}`)
CODEX_WRAPPED_TYPES = frozenset({"session_meta", "response_item", "event_msg", "turn_context", "compacted"})


def is_codex_record(obj: dict) -> bool:
    """A record of Codex's wrapped rollout format: other adapters' sniffs tell Codex files apart
    by it. (Here, not in codex.py: the Claude adapter's sniff asks it, and reading a Claude
    session imported the whole Codex adapter for it: ~14 ms of compiling where bytecode cannot
    be written.)"""
    typ = obj.get("type")
    return isinstance(typ, str) and typ in CODEX_WRAPPED_TYPES and isinstance(obj.get("payload"), dict)


def json_text(value: object) -> str:
    """A value as compact JSON text ("" for None; `str` of what JSON cannot hold)."""
    import orjson

    if value is None:
        return ""
    try:
        return orjson.dumps(value).decode("utf-8")
    except TypeError:
        return str(value)


def _pending(rf: RecordFile) -> bool:
    # The unterminated tail was held back if it does not parse.
    if rf.complete_end >= rf.size:
        return False
    raw = rf.line_at_offset(rf.complete_end)
    from ..jsonl import parse_line

    return not parse_line(raw).ok


def walk_files(root: str, suffixes: tuple[str, ...], report: WalkReport | None = None,
               max_dirs: int | None = None) -> Iterator[str]:
    """Files under `root` ending in one of `suffixes` (core/read/walk.py: links followed only inside the
    root and once, pseudo file systems skipped, the walk bounded); what was left out goes into
    `report` when given."""
    from ..walk import MAX_DIRS, walk_files as walk

    return walk(root, suffixes, report, max_dirs=max_dirs or MAX_DIRS)


class Registry:
    """Adapters tried in order; the first whose `sniff` accepts a file's head reads it."""

    def __init__(self, adapters: Iterable[Adapter]) -> None:
        self.adapters = list(adapters)
        #: the adapters with an opinion on paths (`Adapter.likely`), asked in this order
        self._hinting = [a for a in self.adapters if type(a).likely is not Adapter.likely]
        self._likely: tuple[str | None, Adapter | None] = (None, None)  # the last path's

    def likely(self, path: str) -> Adapter | None:
        """The adapter whose format the path names (`Adapter.likely`) and that reads such a
        name; None when none has an opinion (the first that has one is asked only)."""
        memo = self._likely  # (read once: another thread may set it between two reads)
        if path is memo[0]:  # the listing asks before reading, sniffing after
            return memo[1]
        hinted = None
        for adapter in self._hinting:
            if adapter.likely(path):
                hinted = adapter if adapter.accepts_name(path) else None
                break
        self._likely = (path, hinted)
        return hinted

    def sniff(self, path: str, head: bytes | None = None) -> Adapter | None:
        """The adapter that reads `path`, None when no adapter recognises it; an `Unreadable`
        stand-in when its name is one an adapter reads but its content cannot be read to tell
        (a `.zst` without zstandard, or not decompressible): loading that raises why."""
        # The format its path names first (a Claude Code projects folder, a Codex rollout name):
        # most files are then sniffed once, not by every sniffer ordered before theirs.
        # Sniffing in order stays the fallback.
        hinted = self.likely(path)
        if hinted is None:
            candidates = [a for a in self.adapters if a.accepts_name(path)]
            if not candidates:
                return None
        if head is None:
            if path.endswith(".zst"):
                try:
                    head = _zst_head(path)
                except ReaderError as exc:
                    return Unreadable(str(exc))
            else:
                head = read_head(path)
        if hinted is not None:
            if hinted.sniff(path, head):
                return hinted
            candidates = [a for a in self.adapters if a is not hinted and a.accepts_name(path)]
        for adapter in candidates:
            if adapter.sniff(path, head):
                return adapter
        return None

    def by_name(self, name: str) -> Adapter | None:
        return next((a for a in self.adapters if a.name == name), None)


class Unreadable(Adapter):
    """Stands in for the format of a file that cannot be read to sniff it (a `.jsonl.zst` while
    zstandard is not installed). Why: passed over as "not a transcript", such files vanished
    without a word; loading this raises the `ReaderError` that says why (with the install hint),
    so a scan reports the file like any other unreadable one."""

    name = "unreadable"
    agent = "unknown"

    def __init__(self, reason: str) -> None:
        self.reason = reason

    def sniff(self, path: str, head: bytes) -> bool:
        return False

    def parser(self, path: str) -> RecordParser:
        raise ReaderError(self.reason)

    def load(self, path: str, record_file: RecordFile | None = None) -> list[LoadedSession]:
        raise ReaderError(self.reason)


def _zst_head(path: str, nbytes: int = 65536) -> bytes:
    """The first `nbytes` of a `.zst` file's decompressed content; ReaderError when it cannot be
    read (missing, without zstandard, not zstd)."""
    with RecordFile(path) as rf:
        return bytes(rf.buffer[:nbytes])


def read_head(path: str, nbytes: int = 65536) -> bytes:
    """A file's first `nbytes` (decompressed for `.zst`); b"" when they cannot be read."""
    if path.endswith(".zst"):
        try:
            return _zst_head(path, nbytes)
        except Exception:  # noqa: BLE001 - sniffing must never raise; the load reports it
            return b""
    try:
        with open(path, "rb") as fh:
            head = fh.read(nbytes)
    except OSError:
        return b""
    if head[:2] == GZIP_MAGIC:  # an archived compressed copy (core/read/jsonl.py)
        try:
            with RecordFile(path) as rf:
                return bytes(rf.buffer[:nbytes])
        except ReaderError:
            return b""
    return head


_JSON_TOKEN = LazyPattern(rb'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]', re.S)


def array_spans(buf: bytes, key: bytes) -> list[tuple[int, int]] | None:
    """Byte spans of the object/array elements of the root object's array named `key` (given
    quoted, `b'"items"'`), for the locators of a pretty-printed JSON document: each element's
    record points at where it starts in the file. A structural scan (strings skipped whole,
    brackets counted); None when the array is not found. Scalar elements get no span."""
    depth = 0
    last_key: bytes | None = None
    inside = found = False
    start = 0
    spans: list[tuple[int, int]] = []
    n = len(buf)
    for m in _JSON_TOKEN.finditer(buf):
        tok = m.group()
        c = tok[:1]
        if c == b'"':
            if depth == 1:
                j = m.end()
                while j < n and buf[j] in b" \t\r\n":
                    j += 1
                if buf[j : j + 1] == b":":
                    last_key = tok
            continue
        if c in b"[{":
            depth += 1
            if depth == 2 and c == b"[" and last_key == key:
                inside = found = True
            elif depth == 3 and inside:
                start = m.start()
        else:
            if depth == 3 and inside:
                spans.append((start, m.end()))
            elif depth == 2 and inside:
                return spans
            depth -= 1
    return spans if found else None


