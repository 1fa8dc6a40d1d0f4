"""The Bookmarks tab: every bookmark, newest first, three lines each (when, agent, project and
the session's title; the entry's first line, or "the whole session"; the note, or why the entry
is not found any more), over a line saying how many there are and the keys.

A Line API list like the others (`_line_list.LineList`). Bookmarks are read from the store when
the pane is built and each time its tab is shown; whether each one's entry is still there is
worked out in a thread (every bookmarked session is read), and the rows say so when known.
Every string shown is made printable and laid out as plain text: a transcript's markup or
escape codes are shown as written, never interpreted.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Callable, ClassVar

from rich.style import Style
from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.strip import Strip
from textual.widgets import Static

from sessionscope.core.bookmarks.anchor import Resolved
from sessionscope.core.bookmarks.store import Bookmark, BookmarkStore, StoreError
from sessionscope.core.catalog.library import Library
from sessionscope.core.format import project_name, short_time
from sessionscope.core.text import one_line, printable

from ._cells import clock_of, fit
from ._line_list import CURSOR_KEYS, END_KEYS, PAGE_KEYS, VIM_END_KEYS, LineList, ListMessage

__all__ = ["BookmarkList", "BookmarksPane"]

#: lines per bookmark (three of text, one gap)
_LINES = 4
_TIME, _AGENT, _PROJECT, _GAP = 12, 12, 18, 2


class BookmarkList(LineList):
    ITEM_LINES = 3
    CACHE_SIZE = 0  # a screenful of rows, rendered when painted

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select", "Open", id="bookmarks.open"),
        Binding("e", "edit", "Edit note", id="bookmarks.edit"),
        Binding("d,delete", "delete", "Delete", id="bookmarks.delete"),
        *CURSOR_KEYS, *PAGE_KEYS, *END_KEYS, *VIM_END_KEYS,
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {f"bookmark-list--{name}" for name in (
        "star", "muted", "note", "gone", "cursor", "hover", "empty"
    )}

    DEFAULT_CSS = """
    BookmarkList {
        height: 1fr;
        overflow-x: hidden;
        overflow-y: auto;
        scrollbar-size-vertical: 1;
        background: $surface;
        & > .bookmark-list--star { color: $text-warning; text-style: bold; }
        & > .bookmark-list--muted { color: $foreground-muted; }
        & > .bookmark-list--note { color: $text-accent; }
        & > .bookmark-list--gone { color: $text-error; }
        & > .bookmark-list--cursor {
            color: $block-cursor-blurred-foreground;
            background: $block-cursor-blurred-background;
            text-style: $block-cursor-blurred-text-style;
        }
        &:focus > .bookmark-list--cursor {
            color: $block-cursor-foreground;
            background: $block-cursor-background;
            text-style: $block-cursor-text-style;
        }
        & > .bookmark-list--hover { background: $block-hover-background; }
        & > .bookmark-list--empty { color: $foreground-muted; text-style: italic; }
    }
    """

    @dataclass
    class Selected(ListMessage):
        """A bookmark was opened (enter, double-click, or a click on the highlighted one)."""

        bookmark: Bookmark

    @dataclass
    class EditRequested(ListMessage):
        bookmark: Bookmark

    @dataclass
    class DeleteRequested(ListMessage):
        bookmark: Bookmark

    def __init__(self, *, now: datetime | Callable[[], datetime] | None = None, id: str | None = None) -> None:
        super().__init__(id=id)
        self._clock = clock_of(now)
        self._rows: list[Bookmark] = []
        self._states: dict[int, Resolved] = {}  # by bookmark id, once worked out

    # -- public API ---------------------------------------------------------------------------
    def set_bookmarks(self, bookmarks: list[Bookmark]) -> None:
        """Show these bookmarks (in the order given), keeping the cursor on the same one."""
        current = self.highlighted
        self._rows = list(bookmarks)
        keep = next((i for i, b in enumerate(self._rows) if current is not None and b.id == current.id), None)
        self._cursor = keep if keep is not None else min(self._cursor, max(0, len(self._rows) - 1))
        self._reset(max(1, len(self._rows) * _LINES - 1))
        self.refresh()

    def set_states(self, resolved: list[Resolved]) -> None:
        self._states = {r.bookmark.id: r for r in resolved if r.bookmark.id is not None}
        self.refresh()

    def state_of(self, bookmark: Bookmark) -> Resolved | None:
        return self._states.get(bookmark.id) if bookmark.id is not None else None

    @property
    def bookmarks(self) -> list[Bookmark]:
        return list(self._rows)

    @property
    def highlighted(self) -> Bookmark | None:
        return self._rows[self._cursor] if 0 <= self._cursor < len(self._rows) else None

    # -- keys ---------------------------------------------------------------------------------
    def action_edit(self) -> None:
        if self.highlighted is not None:
            self.post_message(self.EditRequested(self, self.highlighted))

    def action_delete(self) -> None:
        if self.highlighted is not None:
            self.post_message(self.DeleteRequested(self, self.highlighted))

    # -- the LineList hooks -------------------------------------------------------------------
    def _item_count(self) -> int:
        return len(self._rows)

    def _line_count(self) -> int:
        return len(self._rows) * _LINES - 1 if self._rows else 0

    def _line_of(self, index: int) -> int:
        return index * _LINES

    def _item_of_line(self, line: int) -> int | None:
        index, k = divmod(line, _LINES)
        return index if k < self.ITEM_LINES and 0 <= index < len(self._rows) else None

    def _selected(self, index: int) -> None:
        self.post_message(self.Selected(self, self._rows[index]))

    def _render_empty(self, line: int, width: int) -> Strip:
        text = Text(" ", no_wrap=True, end="")
        if line == 0:
            text.append("No bookmarks yet: m bookmarks the entry under the cursor in a transcript, "
                        "or the highlighted session in the list", self._style("bookmark-list--empty"))
        return self._strip(text, width)

    def _render_line(self, line: int, width: int, cursor: bool, hover: bool) -> Strip:
        index, k = divmod(line, _LINES)
        if k >= self.ITEM_LINES:
            return Strip.blank(width, self._base_style())
        b = self._rows[index]
        return self._strip(self._line(b, k, cursor), width, self._row_style(cursor, hover, "bookmark-list"))

    def _line(self, b: Bookmark, k: int, cursor: bool) -> Text:
        muted = Style() if cursor else self._style("bookmark-list--muted")
        text = Text(" ", no_wrap=True, end="")
        if k == 0:
            text.append("★ ", Style() if cursor else self._style("bookmark-list--star"))
            text.append_text(fit(short_time(b.created_at, self._clock()), _TIME, False, muted))
            text.append(" " * _GAP)
            text.append_text(fit(one_line(b.agent), _AGENT, False, muted))
            text.append(" " * _GAP)
            text.append_text(fit(one_line(project_name(b.project) or "-"), _PROJECT, False, muted))
            text.append(" " * _GAP)
            text.append(one_line(b.title or b.session_id, 300))
            return text
        text.append("  ")
        state = self.state_of(b)
        if k == 1:
            if b.on_entry:
                first = next((ln for ln in b.excerpt.splitlines() if ln.strip()), "(empty)")
                text.append(f"{one_line(b.role or '?', 12)}: ", muted)
                text.append(one_line(first, 300))
            else:
                text.append("the whole session", muted)
            return text
        if state is not None and not state.found:
            gone = Style() if cursor else self._style("bookmark-list--gone")
            saved = ": the text above is what was saved" if b.on_entry else ""
            text.append(printable(f"{state.state.value}{saved}"), gone)
            if b.note:
                text.append("  ·  ", muted)
                text.append(one_line(b.note, 300), Style() if cursor else self._style("bookmark-list--note"))
        elif b.note:
            text.append("note: ", muted)
            text.append(one_line(b.note, 300), Style() if cursor else self._style("bookmark-list--note"))
        else:
            text.append("(no note)", muted)
        return text


class BookmarksPane(Vertical):
    """The tab: a line with the count and the keys, the list. Opening, editing and deleting are
    the main screen's (the list posts its messages)."""

    DEFAULT_CSS = """
    BookmarksPane {
        background: $surface;
        & > #bookmarks-head { height: 1; padding: 0 1; color: $foreground-muted; }
    }
    """

    def __init__(self, store: BookmarkStore, library: Library, *, ready: Callable[[], bool] = lambda: True,
                 now: datetime | Callable[[], datetime] | None = None, id: str | None = None) -> None:
        """`ready()` says whether the library holds every session yet (until then, no bookmark is
        said to be gone)."""
        super().__init__(id=id)
        self.store = store
        self.library = library
        self._ready = ready
        self._now = now
        self.shown = False  # read at least once (its tab was shown)

    def compose(self) -> ComposeResult:
        yield Static("", id="bookmarks-head", markup=False)
        yield BookmarkList(now=self._now, id="bookmark-list")

    @property
    def list(self) -> BookmarkList:
        return self.query_one(BookmarkList)

    def focus_list(self) -> None:
        self.list.focus()

    def reload(self) -> None:
        """Read the bookmarks again (and find their entries again, in a thread)."""
        self.shown = True
        try:
            bookmarks = self.store.all()
        except StoreError as exc:
            self.query_one("#bookmarks-head", Static).update(printable(str(exc)))
            self.list.set_bookmarks([])
            return
        self.list.set_bookmarks(bookmarks)
        self._head(bookmarks, None)
        if bookmarks and self._ready():
            self._resolve(bookmarks)

    def _head(self, bookmarks: list[Bookmark], missing: int | None) -> None:
        n = len(bookmarks)
        parts = [f"{n:,} bookmark{'' if n == 1 else 's'}"]
        if missing:
            parts.append(f"{missing:,} no longer found")
        if n:
            parts.append("enter opens · e edits the note · d deletes")
        self.query_one("#bookmarks-head", Static).update(" · ".join(parts))

    @work(thread=True, exclusive=True, group="bookmarks-resolve", exit_on_error=False)
    def _resolve(self, bookmarks: list[Bookmark]) -> None:
        from sessionscope.core.bookmarks.anchor import resolve

        resolved = resolve(self.library, bookmarks)
        self.app.call_from_thread(self._resolved, bookmarks, resolved)

    def _resolved(self, bookmarks: list[Bookmark], resolved: list[Resolved]) -> None:
        if not self.is_attached:
            return
        self.list.set_states(resolved)
        self._head(bookmarks, sum(1 for r in resolved if not r.found))
