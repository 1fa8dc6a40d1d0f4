"""Aider chat histories (`<project>/.aider.chat.history.md`, with `.aider.input.history`).

Why: Aider appends every chat in a project to one Markdown file in the project folder; this
adapter splits it into sessions and shows each as a transcript, edits as diffs.

Format (FORMATS.md §4; content-sniffed: the first non-blank line is `# aider chat started at`):
  * `# aider chat started at YYYY-MM-DD HH:MM:SS` starts a session (local time, no zone: read
    in this machine's zone);
  * `#### text` lines are the user's input (consecutive ones are one message);
  * `> text` lines (ending in two spaces) are Aider's own output: one SYSTEM entry per run of
    them (`Main model: X with ...` names the model, `Tokens: 3.2k sent, 222 received.` counts);
  * any other lines are the assistant's reply, up to the next `####` or `>` line. A
    `<<<<<<< SEARCH` / `=======` / `>>>>>>> REPLACE` block in it (its file name on the line
    before, or before the opening fence) becomes an Edit tool call, shown as a diff.

Accounting: every line of a block (blank lines inside a reply too) is conversation; session
headers and blank lines between blocks are noise; text before the first session header is
malformed. The file is read whole (`appends` is False): only the whole file tells its sessions.

Times: Aider writes none per message. The sibling `.aider.input.history` (`# <local time>` then
`+<line>` per input line) dates each user message it holds (matched by text, in order); other
entries take the latest time before them (the session start at first).

Ids: a session's id is a UUID derived from the file's real path, its header line and how many
identical headers came before it (stable while the file grows); entries are `L{line}`.
"""
from __future__ import annotations

import os
import re
import sys
import uuid
from dataclasses import replace
from datetime import datetime
from typing import Iterator

from ..jsonl import HeadTail, ParsedLine, RawLine, RecordFile
from ...model import Entry, EntryKind, Locator, Role, Session, SessionKind, TokenUsage, truncate
from ..ends import FIELDS, Ends, QuickMeta
from .base import Adapter, LoadedSession, RecordParser

try:  # CPython's own SHA-1: a listing hashes one short name a file, and OpenSSL's set-up of a hash
    from _sha1 import sha1  # costs more than that (~2.5 us a file in a listing)
except ImportError:  # pragma: no cover - a build without it
    from hashlib import sha1

NAME = "aider"
AGENT = "aider"
HISTORY = ".aider.chat.history.md"
_HEADER = re.compile(r"^# aider chat started at (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\s*$")
_SNIFF = re.compile(rb"\A(?:\xef\xbb\xbf)?\s*# aider chat started at \d{4}-\d\d-\d\d")
_MODEL = re.compile(r"^(?:Main )?[Mm]odel: (\S+)")
_TOKENS = re.compile(r"^Tokens: ([\d.,]+)([kKmM]?) sent(?:, ([\d.,]+)([kKmM]?) cache write)?"
                     r"(?:, ([\d.,]+)([kKmM]?) cache hit)?, ([\d.,]+)([kKmM]?) received")
_SEARCH = re.compile(r"^<{5,9} SEARCH\s*$")
_DIVIDER = re.compile(r"^={5,9}\s*$")
_REPLACE = re.compile(r"^>{5,9} REPLACE\s*$")
_INPUT_STAMP = re.compile(r"^# (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)?)\s*$")


def history_names(env: dict[str, str] | None = None) -> tuple[str, ...]:
    """The chat history file names looked for in project folders: Aider's default, and the
    name of `$AIDER_CHAT_HISTORY_FILE` (Aider takes every option from an `AIDER_` variable)."""
    env = os.environ if env is None else env
    named = os.path.basename(env.get("AIDER_CHAT_HISTORY_FILE", ""))
    return (HISTORY, named) if named and named != HISTORY else (HISTORY,)


class AiderAdapter(Adapter):
    name = NAME
    agent = AGENT
    suffixes = (".chat.history.md",)
    appends = False  # (a grown file is read whole again: only the whole file tells its sessions)

    def __init__(self) -> None:
        self.project_files = history_names()
        self.suffixes = tuple(dict.fromkeys((*type(self).suffixes, *self.project_files)))

    def likely(self, path: str) -> bool:
        """A chat history's name (no other adapter reads one: its sniffer is asked first)."""
        return path.endswith(self.suffixes)

    def sniff(self, path: str, head: bytes) -> bool:
        return _SNIFF.match(head) is not None

    def parser(self, path: str) -> AiderParser:
        return AiderParser(path)

    def load(self, path: str, record_file: RecordFile | None = None) -> list[LoadedSession]:
        """Every line fed as text (no JSON parse: this is Markdown)."""
        own = record_file is None
        rf = record_file or RecordFile(path)
        try:
            parser = self.parser(path)
            for raw in rf.iter_lines():
                parser.feed_raw(raw)
            return parser.finish()
        finally:
            if own:
                rf.close()

    def quick(self, ends: Ends) -> QuickMeta:
        """The newest session of the file, when the file was read whole: from its header and
        user lines alone (`_quick_whole`; parsed whole in the rare case that does not settle);
        else its start from the last header in the tail (a guess, as its id and title are)."""
        project = _project(ends.path)
        if ends.whole:
            meta = _quick_whole(self, ends.path, ends.head.buf, ends.size, ends.mtime, project)
            if meta is not None:
                return meta
            loaded = self.load(ends.path)
            if loaded:
                s = loaded[-1].session
                return ends.meta(self, (), session_id=s.id, kind=s.kind, project=s.project, title=s.title,
                                 first_timestamp=s.first_timestamp, last_timestamp=s.last_timestamp)
            return ends.meta(self, (), kind=SessionKind.MAIN, project=project)
        return _quick_tail(self, ends.path, ends.tail.buf, ends.size, ends.mtime, project)

    def quick_lane(self, path: str, ht: HeadTail, nbytes: int, narrow: bool) -> QuickMeta | None:
        """`quick`'s answer straight from the buffers (`Adapter.quick_lane`) for a history whose
        first lines Aider's sniffer takes, without the registry's sniff, `Lines` and `Ends`; None
        for any other file and where `quick` would parse the file whole or fail."""
        head = ht.head
        # Aider's sniffer on what the general way shows the sniffers (core/read/listing.py
        # `_quick`): the first three lines (after a BOM), else the first `nbytes` bytes. A match
        # within both (its header on line 1 to 3, short of `nbytes`) is in what they see.
        m = _SNIFF.match(head)
        if m is None or m.end() > nbytes or head.count(b"\n", 0, m.end()) > 2:
            return None
        try:
            project = _project(path)
            if ht.tail is head:
                return _quick_whole(self, path, head, ht.size, ht.mtime, project)
            return _quick_tail(self, path, ht.tail, ht.size, ht.mtime, project)
        except Exception:  # noqa: BLE001 - the general way tells the failure
            return None


def _quick_tail(adapter: AiderAdapter, path: str, buf: bytes, size: int, mtime: float,
                project: str) -> QuickMeta:
    """A history read by its ends: the newest session's start from the last complete line of
    the tail that reads as a header (a guess, as its id and title are)."""
    start = None
    stop = len(buf)
    # (found from the end by a search for its mark, not line by line: the first line of the
    # window is cut, and an unterminated last line is not complete)
    while (at := buf.rfind(b"\n" + _MARK, 0, stop)) >= 0:
        end = buf.find(b"\n", at + 1)
        m = _HEADER.match(buf[at + 1:end].decode("utf-8", "replace").rstrip("\r")) if end >= 0 else None
        if m:
            start = _local(m.group(1))
            break
        stop = at
    return QuickMeta(path, size, mtime, adapter.agent, adapter.name, None, SessionKind.MAIN, project, None,
                     start, start, _TAIL_UNSURE, False)


_MARK = b"# aider chat started at "
_BOM = b"\xef\xbb\xbf"
_TAIL_UNSURE = frozenset(FIELDS) - {"project", "kind"}
_SURE: frozenset[str] = frozenset()


def _quick_whole(adapter: AiderAdapter, path: str, buf: bytes, size: int, mtime: float,
                 project: str) -> QuickMeta | None:
    """The full parse's newest session from a whole file's header and user lines only, found
    with bytes finds (None: a case left to the full parse: a NUL byte, which the parser drops
    from a line before reading it, no header, a header time that does not read).

    What the full parse takes from the rest of the file settles no listing field: a session
    starts at each line the parser reads as a header wherever it is (no block or fence hides
    one); its id counts the identical headers before it; its title is its first non-blank user
    block (a run of consecutive `####` lines); its first time is its header's, its last the
    latest of that and the input history's times matched to its user blocks (`_dated`)."""
    if b"\x00" in buf:
        return None
    stamps = _input_stamps(path)
    real = real_path(path)
    # The last line the parser reads as a header, from the end backward (a byte search over
    # the whole file costs as much as reading it: only the newest session is searched).
    first = 3 if buf[:3] == _BOM else 0  # (line 1 is read after a BOM)
    rfind, find, mark = buf.rfind, buf.find, b"\n" + _MARK
    header, m, stop = None, None, len(buf)
    while m is None:
        at = rfind(mark, 0, stop)
        if at >= 0:
            hstart = at + 1
        elif stop > first and buf.startswith(_MARK, first):
            hstart = first
        else:
            return None
        nl = find(b"\n", hstart)
        end = nl if nl >= 0 else len(buf)
        header = buf[hstart:end].decode("utf-8", "replace").rstrip("\r")
        m = _HEADER.match(header)
        stop = hstart - 1  # (the next search ends before this line)
    begin = _local(m.group(1))
    if begin is None:
        return None
    # The identical headers before it. A header's text is ASCII and whitespace (valid UTF-8):
    # the same text is the same bytes but for trailing CRs. The lines that begin with its bytes
    # are looked at (a search for the whole line skips through the file fastest).
    same = buf[hstart:end].rstrip(b"\r")
    nsame = b"\n" + same
    at = find(nsame, 0, hstart)
    n = 0
    if at >= 0 or first < hstart and buf.startswith(same, first):  # (most files: none)
        found = [first] if first < hstart and buf.startswith(same, first) else []
        while at >= 0:
            found.append(at + 1)
            at = find(nsame, at + 1, hstart)
        n = sum(buf[at:find(b"\n", at)].decode("utf-8", "replace").rstrip("\r") == header for at in found)
    # Its user blocks (runs of consecutive user lines): the first that is not blank is the
    # title; their times in the input history, if there is one, the last time.
    texts = _user_texts(buf, end, not stamps)
    title = next((" ".join(t.split()) for t in texts if t), None)
    last = max((begin, *(t for _, t in _matched(texts, begin, stamps)))) if stamps else begin
    return QuickMeta(path, size, mtime, adapter.agent, adapter.name, _session_id(real, f"{header}\n{n}"),
                     SessionKind.MAIN, project, truncate(title, 200) if title else None, begin, last, _SURE, True)


def _user_texts(buf: bytes, pos: int, first: bool = False) -> list[str]:
    """The text of each user block (a run of consecutive user lines) after `pos` (a newline
    or the end); with `first`, of those up to the first that is not blank only."""
    texts: list[str] = []
    block: list[str] = []
    find, last_end = buf.find, -2
    at = find(b"\n####", pos)
    while at >= 0:
        start = at + 1
        nl = find(b"\n", start)
        stop = nl if nl >= 0 else len(buf)
        text = buf[start:stop].decode("utf-8", "replace").rstrip("\r")
        if len(text) == 4 or text[4] == " ":
            if start != last_end + 1 and block:  # the block before ended
                texts.append("\n".join(block).strip())
                if first and texts[-1]:
                    return texts
                block = []
            block.append(text[5:].rstrip())
            last_end = stop
            if first and not buf.startswith(b"####", stop + 1):  # it ends here
                texts.append("\n".join(block).strip())
                if texts[-1]:
                    return texts
                block = []
        if nl < 0:
            break
        at = find(b"\n####", stop)
    if block:
        texts.append("\n".join(block).strip())
    return texts


if sys.platform.startswith("linux"):
    _O_PATH = getattr(os, "O_PATH", 0) | os.O_CLOEXEC

    def real_path(path: str) -> str:
        """`os.path.realpath(path)`: for a file that opens, from the kernel (the link of its
        descriptor in /proc/self/fd: two system calls and a readlink, where `realpath` costs an
        `lstat` and a few joins per part of the path, 20-40 us, more than reading a 60 KB
        history); else as `realpath` resolves it."""
        try:
            fd = os.open(path, _O_PATH)
        except (OSError, ValueError):
            return os.path.realpath(path)
        try:
            real = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            real = ""
        finally:
            os.close(fd)
        # (a file deleted meanwhile is named "... (deleted)"; without /proc, nothing is read)
        if real.startswith("/") and not real.endswith(" (deleted)"):
            return real
        return os.path.realpath(path)
else:  # pragma: no cover - no /proc
    real_path = os.path.realpath


def _session_id(real: str, header: str) -> str:
    """A session's id: from the file's real path and its header line numbered among the
    identical ones before it (stable while the file grows). It is `uuid.uuid5(NAMESPACE_URL,
    name)`, made from the digest's hex digits directly (a `UUID` object costs more than the hash)."""
    h = sha1(_URL + f"aider:{real}\n{header}".encode()).hexdigest()
    # (version 5 in the 13th digit; the RFC 4122 variant in the two high bits of the 17th)
    return f"{h[:8]}-{h[8:12]}-5{h[13:16]}-{_VARIANT[h[16]]}{h[17:20]}-{h[20:32]}"


_URL = uuid.NAMESPACE_URL.bytes
_VARIANT = {f"{d:x}": f"{d & 0x3 | 0x8:x}" for d in range(16)}


class _Session:
    __slots__ = ("header", "line", "start", "entries", "models", "usage", "first_user")

    def __init__(self, header: str, line: int, start: datetime | None) -> None:
        self.header = header
        self.line = line
        self.start = start
        self.entries: list[Entry] = []
        self.models: list[str] = []
        self.usage = TokenUsage()
        self.first_user: str | None = None


class AiderParser(RecordParser):
    """Lines into blocks (user, output, reply), blocks into entries, headers into sessions."""

    def __init__(self, path: str) -> None:
        super().__init__(path)
        self.sessions: list[_Session] = []
        self.noise: list[Locator] = []
        self.stray: list[Entry] = []  # text before the first header
        self.warnings: list[str] = []
        self._block: str | None = None  # "user", "output", "reply"
        self._lines: list[tuple[RawLine, str]] = []
        self._headers: dict[str, int] = {}

    def feed(self, parsed: ParsedLine) -> list[Entry]:
        return self.feed_raw(parsed.raw)

    def convert(self, parsed: ParsedLine) -> tuple[list[Entry], bool]:  # (feed_raw does the work)
        return self.feed_raw(parsed.raw), True

    def feed_raw(self, raw: RawLine) -> list[Entry]:
        """Account one line; the entries of the block it closed (if any)."""
        self.account.lines += 1
        data = raw.data[3:] if raw.line == 1 and raw.data.startswith(b"\xef\xbb\xbf") else raw.data
        text = data.decode("utf-8", "replace").replace("\x00", "").rstrip("\r")
        m = _HEADER.match(text) if text.startswith("# aider chat") else None
        if m:
            loc = Locator(self.path, raw.offset, raw.line)
            out = self._close()
            n = self._headers.get(text, 0)
            self._headers[text] = n + 1
            self.sessions.append(_Session(f"{text}\n{n}", raw.line, _local(m.group(1))))
            self.account.noise += 1
            self.noise.append(loc)
            return out
        if not self.sessions:
            loc = Locator(self.path, raw.offset, raw.line)
            if not text.strip():
                self.account.noise += 1
                self.noise.append(loc)
                return []
            self.account.malformed += 1
            e = Entry(f"L{raw.line}", Role.SYSTEM.value, EntryKind.MALFORMED, text, loc,
                      raw_type="text before the first '# aider chat started at' line")
            self.stray.append(e)
            return [e]
        if text.startswith("####") and (len(text) == 4 or text[4] == " "):
            kind, body = "user", text[5:].rstrip()
        elif text.startswith(">") and (len(text) == 1 or text[1] == " "):
            kind, body = "output", text[2:].rstrip()
        elif not text.strip():
            if self._block == "reply":
                self._lines.append((raw, ""))
                self.account.conversation += 1
                return []
            out = self._close()
            self.account.noise += 1
            self.noise.append(Locator(self.path, raw.offset, raw.line))
            return out
        else:
            kind, body = "reply", text
        out = self._close() if kind != self._block else []
        self._block = kind
        self._lines.append((raw, body))
        self.account.conversation += 1
        return out

    def _close(self) -> list[Entry]:
        """The entries of the open block, added to the current session."""
        block, lines = self._block, self._lines
        self._block, self._lines = None, []
        if not lines:
            return []
        s = self.sessions[-1]
        first = lines[0][0]
        loc = Locator(self.path, first.offset, first.line)
        if block == "user":
            text = "\n".join(b for _, b in lines).strip()
            if s.first_user is None and text:
                s.first_user = " ".join(text.split())
            out = [Entry(f"L{first.line}", Role.USER.value, EntryKind.TEXT, text, loc, raw_type="user")]
        elif block == "output":
            for _, b in lines:
                _note_output(s, b)
            out = [Entry(f"L{first.line}", Role.SYSTEM.value, EntryKind.SYSTEM,
                         "\n".join(b for _, b in lines).strip("\n"), loc, raw_type="tool-output",
                         model=s.models[-1] if s.models else None)]
        else:
            out = list(_reply_entries(self.path, lines, s.models[-1] if s.models else None))
        s.entries.extend(out)
        return out

    def finish(self) -> list[LoadedSession]:
        self._close()
        try:
            size = os.path.getsize(self.path)
        except OSError:
            size = 0
        stamps = _input_stamps(self.path)
        real = real_path(self.path)
        project = _project(self.path)
        loaded: list[LoadedSession] = []
        for n, s in enumerate(self.sessions):
            entries = _dated(s, stamps)
            times = [e.timestamp for e in entries if e.timestamp]
            first = s.start or (times[0] if times else None)
            last = max((t for t in (*times, first) if t), default=None)
            sid = _session_id(real, s.header)
            if n == 0 and self.stray:
                entries = [*self.stray, *entries]
            session = Session(
                id=sid, agent=AGENT, source_format=NAME, paths=(self.path,), project=project,
                title=truncate(s.first_user, 200) if s.first_user else None, first_timestamp=first,
                last_timestamp=last, entry_count=sum(1 for e in entries if e.kind is not EntryKind.MALFORMED),
                models=tuple(s.models), usage=s.usage, line_count=self.account.lines,
                malformed_count=self.account.malformed, noise_count=self.account.noise, size=size)
            # The file's account is shared: its sessions are parts of one file.
            loaded.append(LoadedSession(session, entries, self.noise if n == 0 else [], self.account,
                                        self.warnings))
        if not loaded and self.stray:
            self.warnings.append("no '# aider chat started at' line")
        return loaded


def _note_output(s: _Session, line: str) -> None:
    m = _MODEL.match(line)
    if m:
        if m.group(1) not in s.models:
            s.models.append(m.group(1))
        return
    m = _TOKENS.match(line)
    if m:
        sent = _count(m.group(1), m.group(2))
        write = _count(m.group(3), m.group(4)) if m.group(3) else 0
        hit = _count(m.group(5), m.group(6)) if m.group(5) else 0
        got = _count(m.group(7), m.group(8))
        s.usage = s.usage + TokenUsage(max(sent - write - hit, 0), got, hit, write)


def _count(number: str, scale: str) -> int:
    try:
        value = float(number.replace(",", ""))
    except ValueError:
        return 0
    return int(value * {"k": 1e3, "m": 1e6}.get(scale.lower(), 1))


def _reply_entries(path: str, lines: list[tuple[RawLine, str]], model: str | None) -> Iterator[Entry]:
    """A reply's text, with each SEARCH/REPLACE block taken out as an Edit call."""
    text: list[tuple[RawLine, str]] = []
    i, n = 0, len(lines)
    ends: tuple[list[int], list[int]] | None = None
    while i < n:
        raw, body = lines[i]
        if not _SEARCH.match(body):
            text.append((raw, body))
            i += 1
            continue
        if ends is None:
            ends = _block_ends(lines)
        j = ends[0][i + 1]  # (the first divider after the SEARCH line, n if none)
        k = ends[1][j + 1] if j < n else n + 1  # (the first REPLACE after it)
        if k >= n:  # not a whole edit block: left as text
            text.append((raw, body))
            i += 1
            continue
        # the file name: the line before, or before the opening fence
        fname = ""
        while text and not text[-1][1].strip():
            text.pop()
        if text and text[-1][1].startswith("```"):
            text.pop()
            if text and text[-1][1].strip():
                fname = text.pop()[1].strip()
        elif text:
            fname = text.pop()[1].strip()
            if text and text[-1][1].startswith("```"):
                text.pop()
        yield from _text_entry(path, text, model)
        text = []
        old = "\n".join(b for _, b in lines[i + 1:j])
        new = "\n".join(b for _, b in lines[j + 1:k])
        yield Entry(f"L{raw.line}", Role.ASSISTANT.value, EntryKind.TOOL_USE, f"{fname}\n{old}\n=======\n{new}",
                    Locator(path, raw.offset, raw.line), tool_name="Edit",
                    tool_input={"file_path": fname, "old_string": old, "new_string": new},
                    tool_use_id=f"L{raw.line}", raw_type="edit-block", model=model)
        i = k + 1
        if i < n and lines[i][1].strip() == "```":
            i += 1
    yield from _text_entry(path, text, model)


def _block_ends(lines: list[tuple[RawLine, str]]) -> tuple[list[int], list[int]]:
    """For each index of `lines` (and `len(lines)`), the index of the first divider and of the
    first REPLACE line at or after it (`len(lines)` if none): found once for a reply, not read
    from each SEARCH line to the reply's end (8,000 SEARCH lines without a block took 8.9 s)."""
    n = len(lines)
    div, rep = [n] * (n + 1), [n] * (n + 1)
    for x in range(n - 1, -1, -1):
        body = lines[x][1]
        div[x] = x if _DIVIDER.match(body) else div[x + 1]
        rep[x] = x if _REPLACE.match(body) else rep[x + 1]
    return div, rep


def _text_entry(path: str, text: list[tuple[RawLine, str]], model: str | None) -> Iterator[Entry]:
    body = "\n".join(b for _, b in text).strip("\n")
    if body.strip():
        raw = text[0][0]
        yield Entry(f"L{raw.line}", Role.ASSISTANT.value, EntryKind.TEXT, body, Locator(path, raw.offset, raw.line),
                    raw_type="reply", model=model)


def _local(stamp: str) -> datetime | None:
    """A local time without zone, in this machine's zone."""
    try:
        return datetime.fromisoformat(stamp).astimezone()
    except (ValueError, OverflowError, OSError):
        return None


def _project(path: str) -> str:
    """The folder of the history at `path`, as `abspath` names it. Kept by the path's folder
    (a listing asks for every history, and many share a folder's parents): only for an absolute
    path whose name is a name, not `.` or `..` (then the folder alone decides)."""
    folder, _, name = path.rpartition(os.sep)
    if os.altsep or not path.startswith(os.sep) or name in ("", ".", ".."):
        return os.path.dirname(os.path.abspath(path))
    got = _PROJECTS.get(folder)
    if got is None:
        if len(_PROJECTS) >= 4096:
            _PROJECTS.clear()
        got = _PROJECTS[folder] = os.path.dirname(os.path.abspath(path))
    return got


_PROJECTS: dict[str, str] = {}


def input_history_path(path: str) -> str:
    """The input history beside a chat history: `X.chat.history.md` -> `X.input.history`."""
    if path.endswith(_CHAT):  # (the same as splitting it off and joining it again)
        return f"{path[:-len(_CHAT)]}.input.history"
    return os.path.join(os.path.dirname(path), ".aider.input.history")


_CHAT = ".chat.history.md"


def _input_stamps(path: str) -> list[tuple[datetime, str]]:
    """(time, text) of each input in the sibling input history, in file order; [] without one."""
    where = input_history_path(path)
    # (a history without one is the usual case: `access` tells it without an OSError raised)
    if not os.access(where, os.F_OK):
        return []
    try:
        fd = os.open(where, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return []
    chunks, left = [], 64 << 20
    try:
        while left > 0 and (chunk := os.read(fd, min(left, 1 << 20))):
            chunks.append(chunk)
            left -= len(chunk)
    except OSError:
        return []
    finally:
        os.close(fd)
    data = b"".join(chunks).decode("utf-8", "replace")
    out: list[tuple[datetime, list[str]]] = []
    for line in data.splitlines():
        m = _INPUT_STAMP.match(line)
        if m:
            ts = _local(m.group(1))
            if ts is not None:
                out.append((ts, []))
        elif line.startswith("+") and out:
            out[-1][1].append(line[1:])
    return [(ts, "\n".join(lines).strip()) for ts, lines in out]


def _dated(s: _Session, stamps: list[tuple[datetime, str]]) -> list[Entry]:
    """The session's entries with times: a user message found (by its text, in order, from the
    session start on) in the input history takes that time; every other entry the latest
    time before it."""
    user = Role.USER.value
    times = dict(_matched([e.text for e in s.entries if e.role == user], s.start, stamps))
    now = s.start
    out: list[Entry] = []
    k = 0  # the user entries met
    for e in s.entries:
        if e.role == user:
            now = times.get(k, now)
            k += 1
        out.append(replace(e, timestamp=now) if now is not None else e)
    return out


def _matched(texts: list[str], start: datetime | None,
             stamps: list[tuple[datetime, str]]) -> Iterator[tuple[int, datetime]]:
    """(index, time) of each of a session's user messages (`texts`, in order) found in the
    input history: by its text, in order, from the session start on, looking at most 50
    inputs ahead of the last one found."""
    pos = 0
    if start is not None:
        while pos < len(stamps) and stamps[pos][0] < start:
            pos += 1
    for i, text in enumerate(texts):
        if pos >= len(stamps):
            return
        for j in range(pos, min(pos + 50, len(stamps))):
            if stamps[j][1] == text:
                yield i, stamps[j][0]
                pos = j + 1
                break


__all__ = ["AiderAdapter", "AiderParser", "history_names", "input_history_path"]
