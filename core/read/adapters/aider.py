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
import uuid
from dataclasses import replace
from datetime import datetime
from typing import Iterator

from ..jsonl import ParsedLine, RawLine, RecordFile
from ...model import Entry, EntryKind, Locator, Role, Session, SessionKind, TokenUsage, truncate
from ..ends import FIELDS, Ends, QuickMeta
from .base import Adapter, LoadedSession, RecordParser

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
        """The newest session of the file: parsed when the file was read whole; else its start
        from the last header in the tail (a guess, as its id and title are)."""
        project = _project(ends.path)
        if ends.whole:
            loaded = self.load(ends.path)
            if loaded:
                s = loaded[-1].session
                return ends.meta(self, (), session_id=s.id, kind=s.kind, project=s.project, title=s.title,
                                 first_timestamp=s.first_timestamp, last_timestamp=s.last_timestamp)
            return ends.meta(self, (), kind=SessionKind.MAIN, project=project)
        start = None
        for piece in ends.tail_pieces():
            m = _HEADER.match(ends.tail.buf[piece[0]:piece[1]].decode("utf-8", "replace").rstrip("\r"))
            if m:
                start = _local(m.group(1))
                break
        unsure = set(FIELDS) - {"project", "kind"}
        return ends.meta(self, unsure, kind=SessionKind.MAIN, project=project, first_timestamp=start,
                         last_timestamp=start)


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
        real = os.path.realpath(self.path)
        project = _project(self.path)
        loaded: list[LoadedSession] = []
        for n, s in enumerate(self.sessions):
            entries = _dated(s, stamps)
            times = [e.timestamp for e in entries if e.timestamp]
            first = s.start or (times[0] if times else None)
            last = max((t for t in (*times, first) if t), default=None)
            sid = str(uuid.uuid5(uuid.NAMESPACE_URL, f"aider:{real}\n{s.header}"))
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
    while i < n:
        raw, body = lines[i]
        if not _SEARCH.match(body):
            text.append((raw, body))
            i += 1
            continue
        j = i + 1
        while j < n and not _DIVIDER.match(lines[j][1]):
            j += 1
        k = j + 1
        while k < n and not _REPLACE.match(lines[k][1]):
            k += 1
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
    return os.path.dirname(os.path.abspath(path))


def input_history_path(path: str) -> str:
    """The input history beside a chat history: `X.chat.history.md` -> `X.input.history`."""
    folder, name = os.path.split(path)
    stem = name[: -len(".chat.history.md")] if name.endswith(".chat.history.md") else ".aider"
    return os.path.join(folder, f"{stem}.input.history")


def _input_stamps(path: str) -> list[tuple[datetime, str]]:
    """(time, text) of each input in the sibling input history, in file order; [] without one."""
    try:
        with open(input_history_path(path), "rb") as fh:
            data = fh.read(64 << 20).decode("utf-8", "replace")
    except OSError:
        return []
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
    pos = 0
    if s.start is not None:
        while pos < len(stamps) and stamps[pos][0] < s.start:
            pos += 1
    now = s.start
    out: list[Entry] = []
    for e in s.entries:
        if e.role == Role.USER.value and pos < len(stamps):
            for j in range(pos, min(pos + 50, len(stamps))):
                if stamps[j][1] == e.text:
                    now, pos = stamps[j][0], j + 1
                    break
        out.append(replace(e, timestamp=now) if now is not None else e)
    return out


__all__ = ["AiderAdapter", "AiderParser", "history_names", "input_history_path"]
