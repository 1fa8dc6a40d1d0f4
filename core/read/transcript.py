"""What the transcript reader shows, as plain data: display items, tool summaries, diffs, row heights.

Why a model apart from the view: pairing tool calls with their results, choosing the key argument
of a call, turning Edit/MultiEdit/apply_patch input into diff lines, finding text and matching
subagent calls to child sessions are rules worth testing without a terminal. The view only turns
items into pixels. How a transcript is loaded (whole, or streamed in slimmed batches) is
core/read/loading.py.
"""
from __future__ import annotations

import json
from array import array
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from enum import Enum
from datetime import datetime
from typing import TYPE_CHECKING, Callable, Iterable

from .diffs import _patch_text, patch_files
from .subagents import SubagentCalls
from ..model import Entry, EntryKind
from ..text import one_line

if TYPE_CHECKING:
    from .adapters.base import Adapter


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


#: items of a transcript that hold entries read again in full at once (see `Transcript.update`)
READ_AGAIN_HELD = 32

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
        #: items holding entries read again in full, oldest first, with what they held before
        self._read_again: OrderedDict[int, tuple[Entry, bool, Entry | None, bool]] = OrderedDict()

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
                    if i in self._read_again:  # (going back to its slimmed call, it keeps this)
                        self._read_again[i] = (*self._read_again[i][:2], e, e.id in cut)
                    self._by_entry[e.id] = i
                    changed.add(i)
                    continue
            if display is Display.MESSAGE and items:
                prev = items[-1]
                if (prev.display is Display.MESSAGE and e.message_id and prev.off_branch == off
                        and e.message_id == prev.entry.message_id and e.role == prev.entry.role):
                    # A reply split over several lines (streamed files are not merged by finish()).
                    prev.entry = replace(prev.entry, text=f"{prev.entry.text}\n\n{e.text}")
                    self._read_again.pop(len(items) - 1, None)  # (it keeps what it holds now)
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

    # -- what the view asks of every item (a streamed transcript answers from compact arrays) --
    def display(self, index: int) -> Display:
        return self.items[index].display

    def collapsible(self, index: int) -> bool:
        return self.display(index) in COLLAPSIBLE

    def off_branch(self, index: int) -> bool:
        return self.items[index].off_branch

    def is_user_turn(self, index: int) -> bool:
        return self.items[index].is_user_turn

    def day(self, index: int) -> int:
        """The local day of the item's time as a proleptic ordinal (0: no time)."""
        return day_ordinal(self.items[index].entry.timestamp)

    def shape(self, index: int) -> Shape:
        """What guessing the item's height needs (see `Shape`)."""
        return shape_of(self.items[index])

    def read_full(self, index: int, adapter: Adapter) -> tuple[Entry | None, Entry | None]:
        """The item's entry and result read again in full, where they were cut in memory (None
        where nothing was cut or the read failed); to swap in with `update`. Safe off the UI
        thread."""
        from .loading import reread

        item = self.items[index]
        entry = reread(adapter, item.entry) if item.cut else None
        result = reread(adapter, item.result) if item.result_cut and item.result else None
        return entry, result

    def hits(self, query: str, cancelled: Callable[[], bool] = lambda: False) -> list[int]:
        """Indices of every item whose text contains `query`, case-insensitively (visible or not)."""
        return self.matches(query)

    def visible(self, index: int, show_thinking: bool, all_branches: bool = False) -> bool:
        if self.off_branch(index) and not all_branches:
            return False
        return show_thinking or self.display(index) is not Display.THINKING

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

    def mark_off_branch_lines(self, lines: Iterable[int]) -> list[int]:
        """`mark_off_branch` by the lines of the records on an abandoned branch (a parser keeping
        its thread compact): items whose own entry comes from one of them."""
        lines = set(lines)
        changed = []
        for i, item in enumerate(self.items):
            if not item.off_branch and item.entry.locator.line in lines:
                item.off_branch = True
                self._off_branch += 1
                changed.append(i)
        return changed

    def matches(self, query: str, indices: list[int] | None = None) -> list[int]:
        """Item indices (in order) whose text contains `query`, case-insensitively."""
        if not query:
            return []
        needle = query.casefold()
        pool = range(len(self.items)) if indices is None else indices
        return [i for i in pool if needle in self.items[i].search_text().casefold()]

    def update(self, index: int, entry: Entry | None = None, result: Entry | None = None) -> list[int]:
        """Swap in entries read again in full (after `reread`). At most `READ_AGAIN_HELD` items
        hold what was read again (a result can be 20 MB): the one read again longest ago goes
        back to its slimmed entries, read again if asked for again. Returns the indices of the
        items that went back."""
        item = self.items[index]
        if entry is None and result is None:
            return []
        slim = self._read_again.pop(index, None) or (item.entry, item.cut, item.result, item.result_cut)
        if entry is not None:
            item.entry, item.cut = entry, False
        if result is not None:
            item.result, item.result_cut = result, False
        self._read_again[index] = slim
        back: list[int] = []
        while len(self._read_again) > READ_AGAIN_HELD:
            old, (e, cut, r, rcut) = self._read_again.popitem(last=False)
            held = self.items[old]
            held.entry, held.cut, held.result, held.result_cut = e, cut, r, rcut
            back.append(old)
        return back


@dataclass(frozen=True, slots=True)
class Shape:
    """An item's texts measured for a height guess: the length and newlines of its main text
    (a tool call's input as shown), and of its result (-1: none)."""

    chars: int
    newlines: int
    result_chars: int = -1
    result_newlines: int = 0


def shape_of(item: Item) -> Shape:
    text = tool_input_text(item.entry) if item.display is Display.TOOL else item.entry.text
    r = item.result if item.display is Display.TOOL else None
    return Shape(len(text), text.count("\n"),
                 -1 if r is None else len(r.text), 0 if r is None else r.text.count("\n"))


def day_ordinal(ts: datetime | None) -> int:
    return ts.astimezone().date().toordinal() if ts is not None else 0


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


# -- copy ----------------------------------------------------------------------------------------


def copy_text(item: Item) -> str:
    """What `copy` puts on the clipboard for an item."""
    if item.display is Display.TOOL:
        text = tool_input_text(item.entry)
        if item.result is not None and item.result.text:
            text = f"{text}\n\n{item.result.text}"
        return text
    return item.entry.text


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
