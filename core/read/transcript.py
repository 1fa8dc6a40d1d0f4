"""What the transcript reader shows, as plain data: display items, tool summaries, diffs, row heights.

Why a model apart from the view: pairing tool calls with their results, choosing the key argument
of a call, turning Edit/MultiEdit/apply_patch input into diff lines, finding text and matching
subagent calls to child sessions are rules worth testing without a terminal. The view only turns
items into pixels.

Why two ways to load: a small file is read whole through `Library.load` (full fidelity: merged
split replies, the active branch). A big one is streamed from the head with the adapter's own
parser, in batches, so the first screen paints before the file is read; its entries are slimmed
(long texts and tool inputs cut to a few KB, `Item.cut`) and read again through their locator
when someone expands or copies them. Streaming reads with plain `read()` rather than mmap, so the
file's pages stay in the page cache instead of the process's RSS.
"""
from __future__ import annotations

import json
import os
import time
from array import array
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import TYPE_CHECKING, Any, Iterable, Iterator

from .diffs import _patch_text, patch_files
from .subagents import SubagentCalls
from .jsonl import ParsedLine, RawLine, RecordFile, ReaderError, parse_line
from ..model import Entry, EntryKind, Locator, Session, SessionKind
from ..text import one_line, printable

if TYPE_CHECKING:
    from .adapters.base import Adapter, RecordParser
    from ..catalog.library import Library

#: files at least this big are streamed (and slimmed) instead of loaded whole
BIG_FILE_BYTES = 8 * 1024 * 1024
#: in streamed files, how much of a message / of anything else is kept in memory
TEXT_CAP = 8 * 1024
OTHER_CAP = 1024
INPUT_CAP = 512


class Display(str, Enum):
    """How an item is drawn."""

    MESSAGE = "message"  # user or assistant text: always open, Markdown
    THINKING = "thinking"  # hidden unless asked for
    TOOL = "tool"  # a tool call with its result: one line, expandable
    RESULT = "result"  # a tool result whose call is not in this transcript
    DIVIDER = "divider"  # a compaction boundary
    SUMMARY = "summary"  # a compaction summary or a summary record: one line, expandable
    NOTE = "note"  # system and meta records: one dim line, expandable
    RAW = "raw"  # malformed or unknown records: marked, shown raw when expanded


COLLAPSIBLE = frozenset({Display.TOOL, Display.RESULT, Display.SUMMARY, Display.NOTE, Display.RAW})
SUBAGENT_TOOLS = frozenset({"Task", "Agent", "task"})  # (task: OpenCode's)


@dataclass(slots=True, eq=False)
class Item:
    """One displayed unit: an entry, and for a tool call the result that answered it."""

    entry: Entry
    display: Display
    result: Entry | None = None
    cut: bool = False  # the entry's text or input was cut in memory (streamed big file)
    result_cut: bool = False
    subagent_order: int = -1  # for Task/Agent calls: their index among this transcript's calls
    subagent_group: SubagentCalls | None = None  # for Task/Agent calls: all of this transcript's
    off_branch: bool = False  # on a branch of the conversation a rewind, edit or retry abandoned

    @property
    def collapsible(self) -> bool:
        return self.display in COLLAPSIBLE

    @property
    def is_user_turn(self) -> bool:
        return self.display is Display.MESSAGE and self.entry.role == "user"

    @property
    def is_subagent_call(self) -> bool:
        return self.subagent_order >= 0

    def status(self) -> str | None:
        """"ok", "error" or "pending" for tool calls; None for everything else."""
        if self.display is Display.RESULT:
            return "error" if self.entry.is_error else "ok"
        if self.display is not Display.TOOL:
            return None
        if self.result is None:
            return "pending"
        return "error" if self.result.is_error else "ok"

    def duration(self) -> float | None:
        """Seconds between the call and its result, when both carry a timestamp."""
        if self.result is None or self.entry.timestamp is None or self.result.timestamp is None:
            return None
        seconds = (self.result.timestamp - self.entry.timestamp).total_seconds()
        return seconds if seconds >= 0 else None

    def search_text(self) -> str:
        """Everything a find in the transcript looks at for this item."""
        if self.display is Display.TOOL:
            parts = [self.entry.tool_name or "", self.entry.text]
            if self.result is not None:
                parts.append(self.result.text)
            return "\n".join(parts)
        return self.entry.text


def display_of(entry: Entry) -> Display:
    kind = entry.kind
    if kind is EntryKind.TEXT:
        return Display.MESSAGE if entry.role in ("user", "assistant") else Display.NOTE
    if kind is EntryKind.THINKING:
        return Display.THINKING
    if kind is EntryKind.TOOL_USE:
        return Display.TOOL
    if kind is EntryKind.TOOL_RESULT:
        return Display.RESULT
    if kind is EntryKind.COMPACTION:
        # The boundary marker is a system record; the summary that follows it is long text.
        return Display.DIVIDER if entry.role == "system" else Display.SUMMARY
    if kind is EntryKind.SUMMARY:
        return Display.SUMMARY
    if kind in (EntryKind.MALFORMED, EntryKind.UNKNOWN):
        return Display.RAW
    return Display.NOTE  # SYSTEM, META


def shown_by_default(entry: Entry) -> bool:
    """The conversation as the CLI shows it: the active branch, plus malformed lines."""
    return is_shown(entry) and not is_off_branch(entry)


def is_shown(entry: Entry) -> bool:
    """Whether an entry gets an item at all: everything but blank text (entries of abandoned
    branches too, marked `off_branch`, hidden until asked for or opened at)."""
    return not (entry.kind in (EntryKind.TEXT, EntryKind.THINKING) and not entry.text.strip())


def is_off_branch(entry: Entry) -> bool:
    """On a branch a rewind abandoned (a malformed line belongs to no branch: always shown)."""
    return not entry.on_active_branch and entry.kind is not EntryKind.MALFORMED


class Transcript:
    """Items in file order, with tool results folded into their calls."""

    def __init__(self, project: str | None = None) -> None:
        self.project = project
        self.items: list[Item] = []
        self._by_entry: dict[str, int] = {}
        self._calls: dict[str, int] = {}  # tool_use_id -> item index of the call
        self._subagents = SubagentCalls()
        self._off_branch = 0  # items off the active branch

    def __len__(self) -> int:
        return len(self.items)

    def index_of(self, entry_id: str) -> int | None:
        """The item showing an entry (a tool result maps to its call's item)."""
        return self._by_entry.get(entry_id)

    def add(self, entries: list[Entry], cut: frozenset[str] = frozenset()) -> set[int]:
        """Append entries; returns the indices of existing items that changed (a result arrived,
        a split reply grew). `cut` names entries whose text or input was slimmed."""
        changed: set[int] = set()
        items = self.items
        for e in entries:
            if not is_shown(e):
                continue
            off = is_off_branch(e)
            display = display_of(e)
            if display is Display.RESULT and e.tool_use_id and e.tool_use_id in self._calls:
                i = self._calls[e.tool_use_id]
                call = items[i]
                if call.result is None:
                    call.result = e
                    call.result_cut = e.id in cut
                    self._by_entry[e.id] = i
                    changed.add(i)
                    continue
            if display is Display.MESSAGE and items:
                prev = items[-1]
                if (prev.display is Display.MESSAGE and e.message_id and prev.off_branch == off
                        and e.message_id == prev.entry.message_id and e.role == prev.entry.role):
                    # A reply split over several lines (streamed files are not merged by finish()).
                    prev.entry = replace(prev.entry, text=f"{prev.entry.text}\n\n{e.text}")
                    prev.cut = prev.cut or e.id in cut
                    self._by_entry[e.id] = len(items) - 1
                    changed.add(len(items) - 1)
                    continue
            item = Item(e, display, cut=e.id in cut, off_branch=off)
            if display is Display.TOOL:
                if e.tool_use_id:
                    self._calls[e.tool_use_id] = len(items)
                if e.tool_name in SUBAGENT_TOOLS:
                    item.subagent_order = len(self._subagents.items)
                    item.subagent_group = self._subagents
                    self._subagents.items.append(item)
            self._by_entry[e.id] = len(items)
            self._off_branch += off
            items.append(item)
        return changed

    @property
    def has_branches(self) -> bool:
        """Whether any item lies on an abandoned branch."""
        return self._off_branch > 0

    def visible(self, index: int, show_thinking: bool, all_branches: bool = False) -> bool:
        item = self.items[index]
        if item.off_branch and not all_branches:
            return False
        return show_thinking or item.display is not Display.THINKING

    def mark_off_branch(self, entry_ids: Iterable[str]) -> list[int]:
        """Mark the items of these entries as off the active branch (a streamed file learns its
        branches only once read to the end); returns the indices of the items that changed."""
        changed = []
        for eid in entry_ids:
            i = self._by_entry.get(eid)
            if i is not None and not self.items[i].off_branch and self.items[i].entry.id == eid:
                self.items[i].off_branch = True
                self._off_branch += 1
                changed.append(i)
        return sorted(changed)

    def matches(self, query: str, indices: list[int] | None = None) -> list[int]:
        """Item indices (in order) whose text contains `query`, case-insensitively."""
        if not query:
            return []
        needle = query.casefold()
        pool = range(len(self.items)) if indices is None else indices
        return [i for i in pool if needle in self.items[i].search_text().casefold()]

    def update(self, index: int, entry: Entry | None = None, result: Entry | None = None) -> None:
        """Swap in entries read again in full (after `reread`)."""
        item = self.items[index]
        if entry is not None:
            item.entry, item.cut = entry, False
        if result is not None:
            item.result, item.result_cut = result, False


# -- tool calls ----------------------------------------------------------------------------------

_KEY_ARGS = {
    "Bash": ("command",), "BashOutput": ("bash_id",), "KillShell": ("shell_id",),
    "Read": ("file_path",), "Write": ("file_path",), "Edit": ("file_path",),
    "MultiEdit": ("file_path",), "NotebookEdit": ("notebook_path",), "NotebookRead": ("notebook_path",),
    "Grep": ("pattern",), "Glob": ("pattern",), "LS": ("path",),
    "WebFetch": ("url",), "WebSearch": ("query",), "Task": ("description",), "Agent": ("description",),
    "Skill": ("skill", "command"), "SlashCommand": ("command",),
    "shell": ("command",), "local_shell": ("command",), "exec_command": ("cmd",),
    "container.exec": ("command",), "view_image": ("path",), "write_stdin": ("chars",),
}
_PATH_KEYS = frozenset({"file_path", "notebook_path", "path"})


def tool_summary(entry: Entry, project: str | None = None) -> str:
    """The one argument that says what a tool call did: the command, the file, the pattern."""
    name = entry.tool_name or ""
    inp = entry.tool_input
    if name == "apply_patch" or _patch_text(entry) is not None:
        files = patch_files(_patch_text(entry) or "")
        return ", ".join(_rel(f, project) for f in files) if files else "patch"
    if isinstance(inp, dict):
        if name == "TodoWrite" and isinstance(inp.get("todos"), list):
            todos = inp["todos"]
            done = sum(1 for t in todos if isinstance(t, dict) and t.get("status") == "completed")
            return f"{len(todos)} todos, {done} done"
        if name == "update_plan" and isinstance(inp.get("plan"), list):
            return f"{len(inp['plan'])} steps"
        for key in _KEY_ARGS.get(name, ()):
            value = inp.get(key)
            if isinstance(value, list):
                value = " ".join(str(v) for v in value)
                if value.startswith(("bash -lc ", "bash -c ")):
                    value = value.split(" ", 2)[2]
            if isinstance(value, str) and value:
                text = _rel(value, project) if key in _PATH_KEYS else value
                if name in SUBAGENT_TOOLS and isinstance(inp.get("subagent_type"), str):
                    text = f"{text} ({inp['subagent_type']})"
                if name == "Grep" and isinstance(inp.get("path"), str):
                    text = f"{text} in {_rel(inp['path'], project)}"
                return one_line(text)
        for value in inp.values():  # an unknown tool: its first short string argument
            if isinstance(value, str) and value.strip():
                return one_line(value)
    if isinstance(inp, str) and inp.strip():
        return one_line(inp)
    return one_line(entry.text)


def tool_input_text(entry: Entry) -> str:
    """A tool call's input for reading: the command for shells, else indented JSON."""
    inp = entry.tool_input
    name = entry.tool_name or ""
    if isinstance(inp, dict):
        for key in ("command", "cmd"):
            value = inp.get(key)
            if name in ("Bash", "shell", "local_shell", "exec_command") and isinstance(value, (str, list)):
                return value if isinstance(value, str) else " ".join(str(v) for v in value)
        try:
            return json.dumps(inp, indent=2, ensure_ascii=False, default=str)
        except (TypeError, ValueError):
            return entry.text
    if isinstance(inp, str):
        return inp
    return entry.text


def _rel(path: str, project: str | None) -> str:
    if project and path.startswith(project.rstrip("/") + "/"):
        return path[len(project.rstrip("/")) + 1:]
    return path


# -- copy and raw ------------------------------------------------------------------------------


def copy_text(item: Item) -> str:
    """What `copy` puts on the clipboard for an item."""
    if item.display is Display.TOOL:
        text = tool_input_text(item.entry)
        if item.result is not None and item.result.text:
            text = f"{text}\n\n{item.result.text}"
        return text
    return item.entry.text


@dataclass(frozen=True, slots=True)
class RawRecord:
    text: str  # pretty-printed JSON (or the raw line), with control characters made visible
    note: str | None = None  # why it is not pretty-printed, or cut


def raw_record(locator: Locator, max_bytes: int = 2 * 1024 * 1024) -> RawRecord:
    """The record at a locator, read from disk now and pretty-printed.

    A JSONL record is its line. In a JSON document (or a file holding one record) the locator
    points at where the record's value starts: when that line alone is not JSON, the one value
    starting there is read. A database row (OpenCode's SQLite) is read by its adapter."""
    from .adapters.opencode import db_record, is_database

    if is_database(locator.path):
        value = db_record(locator)
        if value is None:
            return RawRecord("", "the row is no longer in the database")
        return RawRecord(printable(json.dumps(value, indent=2, ensure_ascii=False, default=str)))
    with RecordFile(locator.path) as rf:
        raw = rf.line_at_offset(locator.offset, locator.line)
        parsed = parse_line(raw) if len(raw.data) <= max_bytes else None
        if parsed is not None and (not parsed.ok or not parsed.values):
            value = _value_at(rf, locator.offset, max_bytes)
            if value is not None:
                parsed = ParsedLine(raw, (value,))
    if parsed is None:
        head = raw.data[:max_bytes].decode("utf-8", "replace")
        return RawRecord(printable(head), f"line is {len(raw.data):,} bytes; the first {max_bytes:,} shown raw")
    if not parsed.ok or not parsed.values:
        return RawRecord(printable(raw.data.decode("utf-8", "replace")), parsed.error or "empty line")
    pretty = "\n".join(json.dumps(v, indent=2, ensure_ascii=False, default=str) for v in parsed.values)
    return RawRecord(printable(pretty))


def _value_at(rf: RecordFile, offset: int, max_bytes: int) -> Any:
    """The one JSON value starting at `offset` (within `max_bytes`), or None."""
    data = rf.read_bytes(offset, min(max_bytes, max(0, rf.size - offset)))
    try:
        value, _end = json.JSONDecoder().raw_decode(data.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return None
    return value


def reread(adapter: Adapter, entry: Entry) -> Entry | None:
    """An entry in full, read again from its line (for items slimmed in memory)."""
    try:
        with RecordFile(entry.locator.path) as rf:
            raw = rf.line_at_offset(entry.locator.offset, entry.locator.line)
    except (ReaderError, OSError):
        return None
    fresh = adapter.parser(entry.locator.path).feed(parse_line(raw))
    for e in fresh:
        if e.id == entry.id:
            return e
    same = [e for e in fresh if e.kind is entry.kind and e.tool_use_id == entry.tool_use_id]
    return same[0] if len(same) == 1 else None


# -- loading -------------------------------------------------------------------------------------


@dataclass(slots=True)
class Batch:
    """Entries read so far (in file order), how far the reading got, and which were slimmed."""

    entries: list[Entry]
    done: bool
    fraction: float
    cut: frozenset[str] = frozenset()
    streamed: bool = False
    #: ids of entries read earlier (in this batch or before) that lie on an abandoned branch:
    #: a stream learns the branches once the whole file is read, so only its last batch has them
    off_branch: frozenset[str] = frozenset()


def is_big(session: Session, threshold: int | None = None) -> bool:
    """Whether a session is streamed: a big plain file holding one session."""
    threshold = BIG_FILE_BYTES if threshold is None else threshold
    size = session.size or _size(session.path)
    return (size >= threshold and not session.path.endswith(".zst")
            and "/sidechain-" not in session.id)


def load_batches(
    library: Library,
    session: Session,
    *,
    threshold: int | None = None,
    interval: float = 0.25,
    first_batch: int = 80,
) -> Iterator[Batch]:
    """The session's entries in batches: one for a small file, a stream for a big one."""
    if not is_big(session, threshold):
        yield Batch(library.load(session).entries, True, 1.0)
        return
    adapter = library.registry.by_name(session.source_format) or library.registry.sniff(session.path)
    if adapter is None:
        raise ReaderError(f"no adapter reads {session.path}")
    if not adapter.grows(session.path):  # a document or database: read whole (no lines to stream)
        yield Batch(library.load(session).entries, True, 1.0)
        return
    yield from stream_batches(adapter, session.path, interval=interval, first_batch=first_batch,
                              skip_sidechains=session.kind is SessionKind.MAIN)


def stream_batches(
    adapter: Adapter,
    path: str,
    *,
    interval: float = 0.25,
    first_batch: int = 80,
    skip_sidechains: bool = True,
) -> Iterator[Batch]:
    """Entries of a file read from the head with the adapter's parser, slimmed, in batches: the
    first as soon as it holds `first_batch` entries, then one every `interval` seconds."""
    parser = adapter.parser(path)
    size = _size(path)
    pending: list[Entry] = []
    cut: set[str] = set()
    first = True
    last = time.monotonic()
    consumed = 0
    for parsed, consumed in _parsed_lines(path):
        for e in parser.feed(parsed):
            if skip_sidechains and e.is_sidechain:
                continue
            slim, was_cut = _slim(e)
            pending.append(slim)
            if was_cut:
                cut.add(e.id)
        _forget(parser)
        now = time.monotonic()
        if pending and ((first and len(pending) >= first_batch) or (not first and now - last >= interval)):
            yield Batch(pending, False, consumed / size if size else 1.0, frozenset(cut), True)
            pending, cut, first, last = [], set(), False, now
    yield Batch(pending, True, 1.0, frozenset(cut), True, off_branch_ids(parser, skip_sidechains))


def off_branch_ids(parser: RecordParser, skip_sidechains: bool) -> frozenset[str]:
    """Ids of the entries a parser produced that lie on an abandoned branch, from the uuid links
    it kept (for parsers whose format branches: Claude's). Bad input gives none, never an error."""
    find = getattr(parser, "off_branch_ids", None)
    if find is None:
        return frozenset()
    try:
        return frozenset(find(sidechains=not skip_sidechains))
    except Exception:  # noqa: BLE001 - a branch pass must never lose the transcript
        return frozenset()


def last_offset(entries: list[Entry], path: str) -> int:
    """The offset of the last line of `path` that gave any of these entries (-1 for none)."""
    return max((e.locator.offset for e in entries if e.locator.path == path), default=-1)


def live_batch(entries: Iterable[Entry], path: str, *, after: int, streamed: bool,
               skip_sidechains: bool) -> Batch:
    """Entries appended to a session's file (from a `GREW` event) that a loaded transcript does
    not hold yet: those of lines after offset `after` (the loading may have read the append
    already), slimmed like the rest when the transcript was streamed.

    Why by offset and not by id: ids of some formats are only unique within one reading of
    the file; the offset of a line is the same for every reader."""
    out: list[Entry] = []
    cut: set[str] = set()
    for e in entries:
        if e.locator.path != path or e.locator.offset <= after:
            continue
        if skip_sidechains and e.is_sidechain:
            continue
        if streamed:
            e, was_cut = _slim(e)
            if was_cut:
                cut.add(e.id)
        out.append(e)
    return Batch(out, True, 1.0, frozenset(cut), streamed)


def _forget(parser: RecordParser) -> None:
    # The parsers keep every entry they produced for finish(), which a stream never calls: drop
    # them, or a 100 MB file's full texts stay in memory. (A core API for this would be better.)
    for name in ("_entries", "entries"):
        kept = getattr(parser, name, None)
        if isinstance(kept, list):
            kept.clear()


def _parsed_lines(path: str, chunk: int = 1 << 20) -> Iterator[tuple[ParsedLine, int]]:
    """Parsed lines of a file read sequentially, each with the offset just after it."""
    with open(path, "rb") as fh:
        base, line, carry = 0, 1, b""
        while True:
            data = fh.read(chunk)
            if not data:
                break
            buf = carry + data if carry else data
            start = 0
            find = buf.find
            while True:
                nl = find(b"\n", start)
                if nl < 0:
                    break
                yield parse_line(RawLine(base + start, line, buf[start:nl])), base + nl + 1
                start, line = nl + 1, line + 1
            carry = buf[start:]
            base += start
        if carry.strip():
            parsed = parse_line(RawLine(base, line, carry, terminated=False))
            if parsed.ok:  # else the writer is mid-line
                yield parsed, base + len(carry)


def _slim(e: Entry) -> tuple[Entry, bool]:
    cap = TEXT_CAP if e.kind in (EntryKind.TEXT, EntryKind.THINKING, EntryKind.COMPACTION) else OTHER_CAP
    text, cut = e.text, False
    if len(text) > cap:
        text, cut = text[:cap], True
    inp = e.tool_input
    if inp is not None:
        slim_inp, inp_cut = _slim_value(inp, INPUT_CAP if e.kind is EntryKind.TOOL_USE else OTHER_CAP)
        if inp_cut:
            inp, cut = slim_inp, True
    if not cut:
        return e, False
    return replace(e, text=text, tool_input=inp), True


def _slim_value(value: Any, cap: int, depth: int = 0) -> tuple[Any, bool]:
    if isinstance(value, str):
        return (value[:cap], True) if len(value) > cap else (value, False)
    if depth > 4:
        return None, True
    if isinstance(value, dict):
        out, cut = {}, False
        for k, v in value.items():
            out[k], c = _slim_value(v, cap, depth + 1)
            cut = cut or c
        return (out, True) if cut else (value, False)
    if isinstance(value, list):
        items = value[:50]
        out_list, cut = [], len(value) > 50
        for v in items:
            s, c = _slim_value(v, cap, depth + 1)
            out_list.append(s)
            cut = cut or c
        return (out_list, True) if cut else (value, False)
    return value, False


def _size(path: str) -> int:
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


# -- row heights ---------------------------------------------------------------------------------


@dataclass
class HeightIndex:
    """Heights of rows with O(log n) update, prefix sum and "which row holds line y" (a Fenwick
    tree), so a transcript of 50k entries can measure rows lazily as they scroll into view."""

    _heights: array = field(default_factory=lambda: array("q"))
    _tree: array = field(default_factory=lambda: array("q", [0]))

    @classmethod
    def of(cls, heights: list[int]) -> HeightIndex:
        h = array("q", heights)
        tree = array("q", [0]) + array("q", heights)
        n = len(h)
        for i in range(1, n + 1):
            j = i + (i & -i)
            if j <= n:
                tree[j] += tree[i]
        return cls(h, tree)

    def __len__(self) -> int:
        return len(self._heights)

    def __getitem__(self, row: int) -> int:
        return self._heights[row]

    def append(self, height: int) -> None:
        i = len(self._heights) + 1
        self._heights.append(height)
        # tree[i] covers rows (i - lowbit(i), i]: this row plus the prefix difference before it
        self._tree.append(height + self._prefix(i - 1) - self._prefix(i - (i & -i)))

    def set(self, row: int, height: int) -> int:
        """Change one row's height; returns the difference."""
        delta = height - self._heights[row]
        if delta:
            self._heights[row] = height
            i, n = row + 1, len(self._heights)
            tree = self._tree
            while i <= n:
                tree[i] += delta
                i += i & -i
        return delta

    def _prefix(self, i: int) -> int:
        total, tree = 0, self._tree
        while i > 0:
            total += tree[i]
            i -= i & -i
        return total

    def top(self, row: int) -> int:
        """The first line of `row` (the sum of the heights before it)."""
        return self._prefix(row)

    @property
    def total(self) -> int:
        return self._prefix(len(self._heights))

    def row_at(self, y: int) -> int:
        """The row holding line `y` (clamped to the last row; -1 when there are no rows)."""
        n = len(self._heights)
        if n == 0:
            return -1
        pos, rest = 0, y
        step = 1 << n.bit_length()
        tree = self._tree
        while step:
            nxt = pos + step
            if nxt <= n and tree[nxt] <= rest:
                pos = nxt
                rest -= tree[nxt]
            step >>= 1
        return min(pos, n - 1)
