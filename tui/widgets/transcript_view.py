"""The transcript reader: a Line API view over one session, loaded progressively from the head.

Why it is built this way: a transcript can hold 50k entries and 100 MB, so there is no widget per
message and no list of every rendered line. Rows (visible items) have heights in a Fenwick tree;
a row's height is a guess until it first scrolls into view, when it is rendered (and its strips
cached, a few thousand lines at most) and its real height replaces the guess. When a row above the
top of the screen changes height that way, the scroll offset moves by the same amount, so what is
on screen stays put. Entries arrive in batches from a thread worker, so the first screen paints
while the rest of a big file is still being read, and the scrollbar grows as more is known.

This module holds the widget, its loading and its painting; the rest of it is mixed in from
`_transcript_rows` (rows and their heights), `_transcript_cursor` (cursor and scrolling),
`_transcript_expand` (expanding and hiding), `_transcript_find` (find) and `_transcript_live`
(a growing, rewritten or deleted file); rendered items are kept in a `_strip_cache.StripCache`
and drawn by `_transcript_render`.
"""
from __future__ import annotations

import threading
from array import array
from dataclasses import dataclass
from datetime import date
from typing import ClassVar, Sequence

from rich.style import Style
from textual import on, work
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.worker import Worker, WorkerState, get_current_worker

from sessionscope.core.bookmarks.anchor import marks
from sessionscope.core.bookmarks.store import Bookmark
from sessionscope.core.format import day_label
from sessionscope.core.catalog.library import Library
from sessionscope.core.model import Entry, EntryKind, Session, SessionKind
from sessionscope.core.secrets import mask_text
from sessionscope.core.text import clipboard_text, printable
from sessionscope.core.read.compact import CompactTranscript
from sessionscope.core.read.loading import Batch, last_offset, load_batches
from sessionscope.core.read.transcript import (
    Display,
    HeightIndex,
    Item,
    Transcript,
    copy_text,
)
from sessionscope.core.read.subagents import match_subagent, subagent_children
from sessionscope.tui.widgets._strip_cache import StripCache
from sessionscope.tui.widgets._transcript_cursor import TranscriptCursor
from sessionscope.tui.widgets._transcript_expand import TranscriptExpand
from sessionscope.tui.widgets._transcript_find import TranscriptFind, _Searched
from sessionscope.tui.widgets._transcript_live import TranscriptLive
from sessionscope.tui.widgets._transcript_render import (
    CODE_THEME, COMPONENTS, GUTTER, LIGHT_CODE_THEME, Painter, Palette, highlight,
)
from sessionscope.tui.widgets._transcript_rows import TranscriptRows

#: rendered lines kept in the strip cache (whole items, least recently used dropped first)
CACHE_LINES = 4000
_TURN = Binding.Group("Turn", compact=True)
_ENDS = Binding.Group("Top/end", compact=True)
_MATCH = Binding.Group("Match", compact=True)


class TranscriptView(TranscriptFind, TranscriptExpand, TranscriptCursor, TranscriptRows, TranscriptLive,
                     ScrollView, can_focus=True):
    """A session's entries: messages as Markdown, tool calls folded to one line, a cursor."""

    COMPONENT_CLASSES: ClassVar[set[str]] = set(COMPONENTS)
    DEFAULT_CSS = """
    TranscriptView {
        height: 1fr;
        overflow-x: hidden;
        overflow-y: scroll;
        scrollbar-size-vertical: 1;
        background: $surface;
        & > .transcript--user { color: $text-accent; }
        & > .transcript--assistant { color: $text-primary; }
        & > .transcript--thinking { color: $text-muted; text-style: italic; }
        & > .transcript--dim { color: $text-muted; }
        & > .transcript--tool { color: $text-secondary; }
        & > .transcript--ok { color: $text-success; }
        & > .transcript--error { color: $text-error; }
        & > .transcript--pending { color: $text-warning; }
        & > .transcript--diff-add { background: $success 25%; color: $foreground; }
        & > .transcript--diff-del { background: $error 25%; color: $foreground; }
        & > .transcript--diff-header { color: $foreground; text-style: bold; }
        & > .transcript--divider { color: $text-warning; }
        & > .transcript--raw { color: $text-error; }
        & > .transcript--cursor { background: $foreground 5%; }
        & > .transcript--cursor-bar { color: $accent; text-style: bold; }
        & > .transcript--match { background: $warning 35%; }
        & > .transcript--match-current { background: $warning 75%; color: $foreground; text-style: bold; }
        & > .transcript--link { color: $text-accent; }
        & > .transcript--bookmark { color: $text-warning; text-style: bold; }
        &:focus > .transcript--cursor { background: $primary 18%; }
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("down", "cursor_down", "Next entry", show=False, id="transcript.next"),
        Binding("j", "cursor_down", "Next entry", show=False, id="transcript.next_vim"),
        Binding("up", "cursor_up", "Previous entry", show=False, id="transcript.previous"),
        Binding("k", "cursor_up", "Previous entry", show=False, id="transcript.previous_vim"),
        Binding("enter", "activate", "Expand", id="transcript.activate"),
        Binding("space", "toggle", "Expand", show=False, id="transcript.toggle"),
        Binding("e", "expand_all", "Expand all", show=False, id="transcript.expand_all"),
        Binding("E", "collapse_all", "Collapse all", show=False, id="transcript.collapse_all"),
        Binding("t", "toggle_thinking", "Thinking", id="transcript.thinking"),
        # Shown only when the transcript has branches a rewind abandoned (Claude).
        Binding("b", "toggle_branches", "All branches", id="transcript.branches"),
        Binding("left_square_bracket", "turn(-1)", "Previous turn", group=_TURN,
                key_display="[", id="transcript.previous_turn"),
        Binding("right_square_bracket", "turn(1)", "Next turn", group=_TURN,
                key_display="]", id="transcript.next_turn"),
        Binding("n", "find_next(1)", "Next match", group=_MATCH, id="transcript.next_match"),
        Binding("N", "find_next(-1)", "Previous match", group=_MATCH, id="transcript.previous_match"),
        Binding("g", "first", "Top", show=False, id="transcript.top"),
        Binding("G", "last", "End", show=False, id="transcript.end"),
        Binding("home", "first", "Top", show=False, id="transcript.home"),
        Binding("end", "last", "End", show=False, id="transcript.end_key"),
        Binding("pageup", "page(-1)", "Page up", show=False, id="transcript.page_up"),
        Binding("pagedown", "page(1)", "Page down", show=False, id="transcript.page_down"),
        # Shown only while the app watches the files (nothing could arrive otherwise).
        Binding("f", "toggle_follow", "Follow", id="transcript.follow"),
    ]

    @dataclass
    class EntryHighlighted(Message):
        """The cursor moved to another entry."""

        view: TranscriptView
        entry: Entry

        @property
        def control(self) -> TranscriptView:
            return self.view

    @dataclass
    class LoadProgressed(Message):
        """More of the file was read (`fraction` of its bytes); `done` once all of it."""

        view: TranscriptView
        items: int
        fraction: float
        done: bool
        streamed: bool

        @property
        def control(self) -> TranscriptView:
            return self.view

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, TranscriptView.LoadProgressed) and not message.done

    @dataclass
    class FindUpdated(Message):
        """The find query, and which of its matches (1-based; 0 for none) the cursor is on."""

        view: TranscriptView
        query: str
        current: int
        total: int

        @property
        def control(self) -> TranscriptView:
            return self.view

    @dataclass
    class SubagentRequested(Message):
        """Enter on a Task/Agent call: open the subagent's transcript (`session` None if unknown)."""

        view: TranscriptView
        entry: Entry
        session: Session | None

        @property
        def control(self) -> TranscriptView:
            return self.view

    @dataclass
    class LiveStateChanged(Message):
        """Follow mode, the count of live entries below the screen, or the file's existence changed."""

        view: TranscriptView
        following: bool
        unseen: int
        deleted: bool

        @property
        def control(self) -> TranscriptView:
            return self.view

    @dataclass
    class _Loaded(Message):
        batch: Batch
        generation: int = 0

    @dataclass
    class _Reread(Message):
        index: int
        entry: Entry | None
        result: Entry | None
        generation: int

    def __init__(
        self,
        library: Library,
        session: Session,
        *,
        entry_id: str | None = None,
        highlight: str | None = None,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.library = library
        self.session = session
        self.model = Transcript(session.project)
        self.show_thinking = False
        self.show_branches = False  # entries of abandoned branches too, marked
        self.entry_count = 0  # entries read on the active branch (malformed lines too), as `read` counts
        self.loaded = False
        self.streamed = False
        self.error: str | None = None
        self._target = entry_id
        self._query = highlight or ""
        self._matches: list[int] = []  # item indices of the hits on visible rows
        self._hits: list[int] = []  # item indices of every item the query is in
        self._finder: Worker[None] | None = None  # a streamed file's find, searching the file
        # (per item and per row: compact arrays, a big transcript has ~200k items)
        self._rows = array("i")  # item index of each visible row
        self._row_of = array("i")  # row of each item, -1 when hidden
        self._body = array("i")  # rendered height of each item at self._width, -1 if unknown
        self._dates = array("i")  # the local day of each item (a date ordinal; 0 without a time)
        self._day_mark = array("i")  # each row: the day it starts, if not the row before's (else 0)
        self._last_day = 0  # the day of the last row with a time
        self._heights = HeightIndex()
        self._expand_default = False
        self._toggled: set[int] = set()  # items whose expansion differs from the default
        self._cursor = -1  # item index
        self._width = 0
        self._strips = StripCache(CACHE_LINES)
        self._palette: Palette | None = None
        self._painter: Painter | None = None
        self._children: list[Session] | None = None
        self._settling = False
        self._painted = threading.Event()
        # -- live: the session's file grows, is rewritten or deleted while it is open
        self.following = False
        self.deleted = False
        self._generation = 0  # one per (re)load: batches of a superseded load are dropped
        self._tail = -1  # offset of the last line of the file the entries shown were read from
        self._pending_live: list[Entry] = []  # appended while the file was still being read
        self._unseen_from: int | None = None  # first row appended live that was not seen yet
        self._reopen: tuple[str | None, int, int] | None = None  # (entry id, row, screen line)
        self._reopen_expanded: set[str] = set()  # ids of the entries expanded before a reload
        self._loader: Worker[None] | None = None
        self._rereading: set[int] = set()  # items being read again in full in the background
        self._bookmarks: dict[str, Bookmark] = {}  # this session's bookmarks on entries, by entry id

    # -- public API ------------------------------------------------------------------------------
    def set_bookmarks(self, bookmarks: list[Bookmark]) -> None:
        """This session's bookmarks: the entries they mark show ★ in the margin."""
        self._bookmarks = {b.entry_id: b for b in bookmarks if b.entry_id is not None}
        self.refresh()

    def is_bookmarked(self, entry: Entry) -> bool:
        b = self._bookmarks.get(entry.id)
        return b is not None and marks(b, entry)

    def bookmarked_entry(self, item: Item) -> Entry | None:
        """The entry of an item a bookmark is on: the item's own, or the tool result shown in
        it (bookmarked from the command line by its own id)."""
        for entry in (item.entry, item.result):
            if entry is not None and self.is_bookmarked(entry):
                return entry
        return None

    @property
    def highlighted_item(self) -> Item | None:
        return self.model.items[self._cursor] if 0 <= self._cursor < len(self.model.items) else None

    @property
    def highlighted_entry(self) -> Entry | None:
        item = self.highlighted_item
        return item.entry if item is not None else None

    @property
    def query(self) -> str:
        return self._query

    @property
    def rows(self) -> Sequence[Item]:
        """The visible items, in order (each read when asked for, in a streamed file)."""
        return _Rows(self.model.items, self._rows)

    @property
    def cursor_row(self) -> int:
        return self._row_of[self._cursor] if self._cursor >= 0 else -1

    def is_expanded(self, item: Item) -> bool:
        index = self.model.index_of(item.entry.id)
        return index is not None and self._expanded(index)

    def full_item(self, index: int | None = None) -> Item | None:
        """The highlighted (or given) item with any text slimmed in memory read again in full."""
        index = self._cursor if index is None else index
        if not 0 <= index < len(self.model.items):
            return None
        item = self.model.items[index]
        if item.cut or item.result_cut:
            adapter = self._adapter()
            if adapter is not None:
                entry, result = self.model.read_full(index, adapter)
                for back in self.model.update(index, entry, result):
                    self._invalidate(back)
                self._invalidate(index)
        return self.model.items[index]

    def _adapter(self):  # noqa: ANN202 - an Adapter
        registry = self.library.registry
        return registry.by_name(self.session.source_format) or registry.sniff(self.session.path)

    def read_rest(self, index: int) -> None:
        """Read a slimmed item again in full off the UI thread (a result can be 20 MB: the
        expand shows what is in memory at once); it is redrawn when the read is done."""
        item = self.model.items[index]
        if not (item.cut or item.result_cut) or index in self._rereading:
            return
        self._rereading.add(index)
        self._reread(index, self.model, self._generation)

    @work(thread=True, group="transcript-reread", exit_on_error=False)
    def _reread(self, index: int, model: Transcript, generation: int) -> None:
        entry = result = None
        try:
            adapter = self._adapter()
            if adapter is not None:
                entry, result = model.read_full(index, adapter)
        finally:
            self.post_message(self._Reread(index, entry, result, generation))

    @on(_Reread)
    def _reread_done(self, message: _Reread) -> None:
        message.stop()
        if message.generation != self._generation:
            return  # read for a transcript a reload replaced
        self._rereading.discard(message.index)
        if message.entry is None and message.result is None:
            self.notify(printable(f"the rest of this entry could not be read again from {self.session.path}"),
                        severity="warning", timeout=4, markup=False)
            return
        anchor = self._cursor_anchor()
        for back in self.model.update(message.index, message.entry, message.result):
            self._invalidate(back)  # (gone back to what was kept in memory)
        self._invalidate(message.index)
        self._sync_size()
        self._restore(anchor)
        if self._query and not isinstance(self.model, CompactTranscript):  # (its hits: the whole texts)
            self._hits = self.model.hits(self._query)
            self._matches = self._visible_hits()
            self._post_find()

    @on(_Searched)
    def _file_searched(self, message: _Searched) -> None:
        message.stop()
        self._searched(message)

    def copy_highlighted(self) -> tuple[str, int] | None:
        """Put the highlighted entry's text on the clipboard (OSC 52); returns what was copied and
        how many control sequences and characters were left out (pasted into a terminal, they
        would run: a transcript's OSC 52 would write the clipboard again, ESC[2J clear the screen).
        While the app masks secrets (M: screen sharing), the copy is masked too."""
        item = self.full_item()
        if item is None:
            return None
        raw = copy_text(item)
        if getattr(self.app, "mask_secrets", False):
            raw = mask_text(raw)
        text, dropped = clipboard_text(raw)
        self.app.copy_to_clipboard(text)
        return text, dropped

    # -- loading -------------------------------------------------------------------------------
    def on_mount(self) -> None:
        self._loader = self._load(self._generation, self._painted)

    @work(thread=True, exclusive=True, group="transcript-load", exit_on_error=False)
    def _load(self, generation: int, painted: threading.Event) -> None:
        worker = get_current_worker()
        first = True
        for batch in load_batches(self.library, self.session):
            if worker.is_cancelled:
                return
            self.post_message(self._Loaded(batch, generation))
            if first and not batch.done:
                # Let the first screen paint before parsing on (the GIL is shared with the UI).
                painted.wait(1.0)
            first = False

    @on(Worker.StateChanged)
    def _worker_changed(self, event: Worker.StateChanged) -> None:
        if event.worker is self._loader and event.state is WorkerState.ERROR:
            self.error = f"could not read {self.session.path}: {event.worker.error}"
            self.loaded = True
            self.notify(printable(self.error), severity="error", timeout=8, markup=False)
            self.post_message(self.LoadProgressed(self, len(self._rows), 1.0, True, self.streamed))
            self.refresh()

    @on(_Loaded)
    def _batch_loaded(self, message: _Loaded) -> None:
        message.stop()
        if message.generation != self._generation:
            return  # from a load that a reload superseded
        batch = message.batch
        self._tail = max(self._tail, last_offset(batch.entries, self.session.path))
        self._add_batch(batch)
        self.loaded = batch.done
        if self._cursor < 0 and self._rows and self._target is None and self._reopen is None:
            self._cursor = self._rows[0]
            self._post_highlight()
        if self._target is not None and self._open_target(final=batch.done):
            self._target = None
        if self._reopen is not None and self._reopened(final=batch.done):
            self._reopen = None
        self._settle()
        self.refresh()
        self.post_message(self.LoadProgressed(self, len(self._rows), batch.fraction, batch.done, self.streamed))
        if self._query and batch.done and isinstance(self.model, CompactTranscript):
            self.find(self._query, jump=False)  # (a streamed file is searched once read: the file)
        elif self._query:
            self._post_find()
        if not self._painted.is_set():
            self.call_after_refresh(self._painted.set)
        if batch.done and self._pending_live:
            pending, self._pending_live = self._pending_live, []
            self.append_live(pending)

    def _add_batch(self, batch: Batch) -> None:
        """Add read entries to the model and their rows to the view (no scrolling)."""
        if batch.streamed and not len(self.model) and not isinstance(self.model, CompactTranscript):
            adapter = self._adapter()
            if adapter is not None:  # a streamed file: items kept compact, read from the file when needed
                self.model = CompactTranscript(self.session.project, self.session.path, adapter,
                                               skip_sidechains=self.session.kind is SessionKind.MAIN)
        model = self.model
        start = len(model)
        changed = model.add(batch.entries, batch.cut)
        self.entry_count += sum(1 for e in batch.entries if e.on_active_branch or e.kind is EntryKind.MALFORMED)
        # (read as on the branch before the stream ended)
        self.entry_count -= len(batch.off_branch) + batch.off_branch_count
        self.streamed = self.streamed or batch.streamed
        new = range(start, len(model))
        self._body.extend(array("i", [-1]) * len(new))
        self._dates.extend(model.day(i) for i in new)
        self._row_of.extend(array("i", [-1]) * len(new))
        for i in new:
            if model.visible(i, self.show_thinking, self.show_branches):
                self._append_row(i)
        for i in changed:
            self._invalidate(i)
        if self._query and not (isinstance(model, CompactTranscript) and not self.loaded):
            # (while a streamed file is read, its items are not read again one by one: the file is
            # searched once it is read; what is appended live later is checked here)
            found = set(model.matches(self._query, [*new, *changed]))
            if found:
                self._hits = sorted({*self._hits, *found})
                self._matches = self._visible_hits()
        if batch.off_branch:
            self._branches_found(model.mark_off_branch(batch.off_branch))
        if batch.off_branch_lines:
            self._branches_found(model.mark_off_branch_lines(batch.off_branch_lines))
        self._sync_size()

    def _open_target(self, *, final: bool) -> bool:
        """Move to the entry the screen was opened at, once it has been read."""
        index = self.model.index_of(self._target or "")
        if index is None:
            if final and self._rows:
                self.notify(printable(f"entry {self._target} is not in this transcript"), severity="warning",
                            markup=False)
                self._move(self._rows[0])
            return final
        item = self.model.items[index]
        if item.off_branch and not self.show_branches:
            self._set_branches(True)  # opened at an entry a rewind abandoned: show it, marked
        if not self.model.visible(index, self.show_thinking, self.show_branches):
            self._set_thinking(True)
        if self._query:
            self._matches = self._visible_hits()
        self._goto_match(index) if self._query else self._move(index, align="top")
        return True

    # -- painting ---------------------------------------------------------------------------------
    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._palette = None
        self._painter = None
        self._strips.clear()
        if self._width:
            self._body = array("i", [-1]) * len(self.model)

    def _get_palette(self) -> Palette:
        if self._palette is None:
            self._palette = Palette({name: self._component_style(name) for name in COMPONENTS})
        return self._palette

    def _component_style(self, name: str) -> Style:
        """A component class as a rich style; translucent colours blended over the view's
        background here (a partial rich style cannot carry alpha)."""
        styles = self.get_component_styles(name)
        base = self.background_colors[1]
        bg = base + styles.background if styles.has_rule("background") else None
        fg = (bg or base) + styles.color if styles.has_rule("color") else None
        return Style(color=fg.rich_color if fg else None, bgcolor=bg.rich_color if bg else None) + styles.text_style

    def _get_painter(self) -> Painter:
        if self._painter is None:
            theme = self.app.current_theme
            self._painter = Painter(self.app.console, self._get_palette(), self.session.agent,
                                    self.session.project,
                                    code_theme=CODE_THEME if theme is None or theme.dark else LIGHT_CODE_THEME,
                                    mask=getattr(self.app, "mask_secrets", False))
        return self._painter

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self.rich_style
        vy = self.scroll_offset.y + y
        if not self._rows or vy >= self._heights.total:
            if y == 1 and not self._rows:
                message = self.error or ("nothing to show in this transcript" if self.loaded else "reading…")
                note = Strip([_segment(message, self._get_palette()["transcript--dim"])])
                return Strip.join([Strip.blank(GUTTER), note]).adjust_cell_length(width).apply_style(base)
            return Strip.blank(width, base)
        row = self._heights.row_at(vy)
        k = vy - self._heights.top(row) - self._gap(row)
        if k < 0:
            day = self._day_mark[row]
            if k == -1 and day:  # the line just above the row: a new day begins
                divider = self._get_painter().day_divider(day_label(date.fromordinal(day)), width - GUTTER)
                return Strip.join([Strip.blank(GUTTER), divider]).adjust_cell_length(width).apply_style(base)
            return Strip.blank(width, base)
        index = self._rows[row]
        strips = self._strips_for(index)
        if self._gap(row) + len(strips) != self._heights[row]:
            self.call_after_refresh(self._resettle)
        if k >= len(strips):
            return Strip.blank(width, base)
        palette = self._get_palette()
        is_cursor = index == self._cursor
        line = Strip.join([self._gutter(index, is_cursor, palette, first=k == 0), strips[k]])
        if self._query:
            style = palette["transcript--match-current" if is_cursor else "transcript--match"]
            line = highlight(line, self._query, style)
        line = line.adjust_cell_length(width)
        if is_cursor:
            line = line.apply_style(palette["transcript--cursor"])
        return line.apply_style(base)

    def _resettle(self) -> None:
        self._settle()
        self._sync_size()
        self.refresh()

    def _gutter(self, index: int, is_cursor: bool, palette: Palette, *, first: bool = False) -> Strip:
        item = self.model.items[index]
        if first and self._bookmarks and self.bookmarked_entry(item) is not None:  # a bookmarked entry: ★ by its first line
            if is_cursor:
                bar, style = "▌", "transcript--cursor-bar"
            elif item.display is Display.MESSAGE:
                bar, style = "▎", "transcript--user" if item.entry.role == "user" else "transcript--assistant"
            else:
                bar, style = " ", "transcript--dim"
            return Strip([_segment(bar, palette[style]), _segment("★", palette["transcript--bookmark"])])
        if is_cursor:
            return Strip([_segment("▌ ", palette["transcript--cursor-bar"])])
        if item.off_branch:
            return Strip([_segment("╎ ", palette["transcript--dim"])])
        if item.display is Display.MESSAGE:
            role = "transcript--user" if item.entry.role == "user" else "transcript--assistant"
            return Strip([_segment("▎ ", palette[role])])
        if item.display is Display.THINKING:
            return Strip([_segment("┊ ", palette["transcript--thinking"])])
        return Strip.blank(GUTTER)

    def _link_label(self, item: Item) -> str | None:
        child = self._subagent(item)
        return (child.title or child.id) if child is not None else None

    def _subagent(self, item: Item) -> Session | None:
        if not item.is_subagent_call:
            return None
        if self._children is None:
            self._children = subagent_children(self.library, self.session)
        return match_subagent(item, self._children)

    # -- which keys apply ------------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "find_next":
            return bool(self._query)
        if action == "toggle_follow":
            return self.live
        if action == "toggle_branches":
            return self.model.has_branches
        return True


class _Rows(Sequence[Item]):
    """The visible items (`TranscriptView.rows`), each read when asked for."""

    def __init__(self, items: Sequence[Item], rows: Sequence[int]) -> None:
        self._items, self._rows = items, rows

    def __len__(self) -> int:
        return len(self._rows)

    def __getitem__(self, row):  # type: ignore[override]  # noqa: ANN001, ANN204
        if isinstance(row, slice):
            return [self._items[i] for i in self._rows[row]]
        return self._items[self._rows[row]]


def _segment(text: str, style: Style):  # noqa: ANN202 - a rich Segment
    from rich.segment import Segment

    return Segment(text, style)
