"""The session list: a virtualised (Line API) table of sessions, sortable and filterable, with the
subagent/compaction/exec runs of a session nested under it on demand.

Keys (for the keyboard first; every one also in the footer or the docstring below):

    up/down, k/j        move the cursor          pageup/pagedown, home/end, g/G   jump
    enter               open the session         click: highlight; click again or double-click: open
    s / S               next sort column / reverse (also: click a column header)
    a / A               cycle the agent filter (all -> each agent present -> all) / backwards
    p / P               cycle the project filter, most recently active project first / backwards
    f, /, ctrl+f        type to filter by title and project (fzf-like: arrows keep moving the
                        cursor, enter opens, esc clears what was typed, backspace on empty stops)
    c                   show/hide child runs (subagents, compactions, exec) nested under parents
    escape              clear all filters

Why type-to-filter rather than a project picker: a project or a session is found fastest by
typing a few letters of either, and the list narrows while you type; `a`/`p` cycle for the
common "only this agent/project" case without typing. The cursor, scrolling, mouse and the cache
of rendered rows are the Line API lists' (`_line_list.LineList`); this module has the rows.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Callable, ClassVar, NamedTuple

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.strip import Strip

from sessionscope.core.format import human_tokens, project_name, relative_time
from sessionscope.core.catalog.library import ListedSession
from sessionscope.core.model import Session, SessionKind
from sessionscope.core.secrets import masked_line
from sessionscope.core.text import one_line

from ._cells import clock_of, fit, fit_pieces, fit_segments
from ._line_list import CURSOR_KEYS, END_KEYS, PAGE_KEYS, VIM_END_KEYS, LineList, ListMessage
from ._session_rows import SORTS, Row, SessionRows

__all__ = ["HEADER_LINES", "SORTS", "Row", "SessionList"]

HEADER_LINES = 2  # the counts line and the column header stay put while the rows scroll


class _Column(NamedTuple):
    key: str
    label: str
    width: int
    right: bool


# Fixed columns after the (flexible) title, in display order; dropped in `_DROP_ORDER` when
# the title would get narrower than `_MIN_TITLE`.
_COLUMNS = (
    _Column("agent", "Agent", 11, False),
    _Column("project", "Project", 18, False),
    _Column("active", "Active", 9, True),
    _Column("entries", "Entries", 9, True),
    _Column("tokens", "Tokens", 8, True),
)
_DROP_ORDER = ("entries", "agent", "tokens", "project")
#: each agent's colour in the Agent column (a component class; an agent not named here is muted)
AGENT_CLASSES = {
    "claude-code": "session-list--agent-claude",
    "codex": "session-list--agent-codex",
    "copilot-cli": "session-list--agent-copilot",
    "pi": "session-list--agent-pi",
    "opencode": "session-list--agent-opencode",
    "gemini-cli": "session-list--agent-gemini",
    "aider": "session-list--agent-aider",
}
_MIN_TITLE = 24
_GAP = 2


class SessionList(LineList):
    """Sessions as a table; `set_sessions()` fills it, the messages report the cursor and picks."""

    HEADER_LINES = HEADER_LINES
    CACHE_SIZE = 1024

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select", "Open", id="session-list.open"),
        *CURSOR_KEYS, *PAGE_KEYS, *END_KEYS, *VIM_END_KEYS,
        Binding("s", "cycle_sort", "Sort", id="session-list.sort"),
        Binding("S", "reverse_sort", "Reverse", show=False, id="session-list.reverse"),
        Binding("a", "cycle_agent(1)", "Agent", id="session-list.agent"),
        Binding("A", "cycle_agent(-1)", "Agent back", show=False),
        Binding("p", "cycle_project(1)", "Project", id="session-list.project"),
        Binding("P", "cycle_project(-1)", "Project back", show=False),
        Binding("f", "edit_filter", "Filter", id="session-list.filter"),
        Binding("slash", "edit_filter", "Filter", show=False),
        Binding("ctrl+f", "edit_filter", "Filter", show=False),
        Binding("c", "toggle_children", "Subagents", id="session-list.children"),
        Binding("escape", "escape", "Clear filters", id="session-list.clear"),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {f"session-list--{name}" for name in (
        "counts", "filter", "column", "sorted", "cursor", "hover", "muted", "kind", "child",
        "empty"
    )} | set(AGENT_CLASSES.values())

    # Only what the widget needs to be usable anywhere (a visible cursor, no x-scrolling);
    # the app's look lives in styles/lists.tcss.
    DEFAULT_CSS = """
    SessionList {
        overflow-x: hidden;
        overflow-y: auto;
        scrollbar-size-vertical: 1;
        & > .session-list--counts { color: $foreground-muted; }
        & > .session-list--filter { color: $text-accent; text-style: bold; }
        & > .session-list--column { color: $foreground-muted; text-style: bold; }
        & > .session-list--sorted { color: $text-accent; text-style: bold; }
        & > .session-list--cursor {
            color: $block-cursor-blurred-foreground;
            background: $block-cursor-blurred-background;
            text-style: $block-cursor-blurred-text-style;
        }
        &:focus > .session-list--cursor {
            color: $block-cursor-foreground;
            background: $block-cursor-background;
            text-style: $block-cursor-text-style;
        }
        & > .session-list--hover { background: $block-hover-background; }
        & > .session-list--muted { color: $foreground-muted; }
        & > .session-list--kind { color: $text-secondary; }
        & > .session-list--child { color: $foreground-muted; }
        & > .session-list--empty { color: $foreground-muted; text-style: italic; }
        & > .session-list--agent-claude { color: $text-warning; }
        & > .session-list--agent-codex { color: $text-success; }
        & > .session-list--agent-copilot { color: $text-primary; }
        & > .session-list--agent-pi { color: $error-lighten-2; }
        & > .session-list--agent-opencode { color: $text-secondary; }
        & > .session-list--agent-gemini { color: $accent-lighten-1; }
        & > .session-list--agent-aider { color: $success-darken-2; }
    }
    """

    @dataclass
    class SessionHighlighted(ListMessage):
        """The cursor moved to another session."""

        session: Session

    @dataclass
    class SessionSelected(ListMessage):
        """A session was opened (enter, double-click, or a click on the highlighted row)."""

        session: Session

    def __init__(
        self,
        *,
        now: datetime | Callable[[], datetime] | None = None,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
        loading: bool = False,
    ) -> None:
        """`now` fixes the clock that "3d ago" is measured from (tests, snapshots); a callable is
        asked again every minute, so the ages stay right in a long-running app. `loading`: the
        sessions are being read (an empty list says so, not "No sessions") until the first
        `set_sessions` with `complete=True`."""
        super().__init__(name=name, id=id, classes=classes)
        self._clock: Callable[[], datetime] = clock_of(now)
        self._now = self._clock()
        self.model = SessionRows()
        if loading:
            self.model.set_sessions([], complete=False)
        self.editing_filter = False
        self._moved = False  # (whether the cursor was ever moved: `set_sessions`)

    # -- public API ---------------------------------------------------------------------------
    def set_sessions(self, sessions: list[Session], complete: bool = True,
                     reading: tuple[int, int] | None = None) -> None:
        """Show these sessions (children included: nesting comes from parent_id/child_ids).
        `complete=False`: only the newest so far, more to come (the counts line says loading).
        `reading`: (files read, files in all) while some sessions are still the quick listing's
        (`ListedSession`: shown without entries and tokens until the scan has read their files).

        The highlighted session stays highlighted when it is still there (a listed one: when
        its file's parsed session is); but while the sessions are still being read, a cursor
        never moved stays on the first row. (On a first start the quick listing's first row, a
        session without a time, followed that session to the bottom of the parsed list.)"""
        keep = self.highlighted_session
        if (not self.model.complete or self.model.reading is not None) and not self._moved:
            keep = None
        self.model.set_sessions(list(sessions), complete, reading)
        self._rows_changed(keep)

    def set_reading(self, done: int, total: int) -> None:
        """The scan's progress while listed sessions are shown: the counts line (or the empty
        list's message) says it; the rows stay as they are."""
        if self.model.reading is not None and self.model.reading != (done, total):
            self.model.set_reading(done, total)
            self.refresh_line(0)
            if not self.model.rows:
                self.refresh_line(HEADER_LINES)

    @property
    def highlighted_session(self) -> Session | None:
        """The session under the cursor (None when the list is empty)."""
        rows = self.model.rows
        return rows[self._cursor].session if rows else None

    @property
    def rows(self) -> list[Row]:
        """The visible rows, in order (a copy)."""
        return list(self.model.rows)

    @property
    def agents(self) -> list[str]:
        return list(self.model.agents)

    # The view's settings, read-only here: they change through the actions and setters below.
    @property
    def sort(self) -> str:
        return self.model.sort

    @property
    def reversed(self) -> bool:
        return self.model.reversed

    @property
    def descending(self) -> bool:
        return self.model.descending

    @property
    def agent_filter(self) -> str | None:
        return self.model.agent_filter

    @property
    def project_filter(self) -> str | None:
        return self.model.project_filter

    @property
    def text_filter(self) -> str:
        return self.model.text_filter

    @property
    def show_children(self) -> bool:
        return self.model.show_children

    @property
    def filtered(self) -> bool:
        return self.model.filtered

    def _rows_changed(self, keep: Session | None) -> None:
        """After the model rebuilt its rows: resize, repaint, keep the cursor on its session."""
        rows = self.model.rows
        self._reset(len(rows))
        index = 0
        if keep is not None:
            index = next((i for i, r in enumerate(rows) if r.session.id == keep.id), -1)
            if index < 0 and isinstance(keep, ListedSession):  # its id was a guess (or its path)
                index = next((i for i, r in enumerate(rows) if r.session.path == keep.path), 0)
            index = max(index, 0)
        self._cursor = max(0, min(index, len(rows) - 1))  # (no old row to refresh: all is repainted)
        self._scroll_to_cursor()
        if rows and (keep is None or rows[index].session.id != keep.id):
            self._highlighted(self._cursor)
        self.refresh()
        self.refresh_bindings()  # "Clear filters" comes and goes with the filters

    def _change(self, apply: Callable[[], None]) -> None:
        keep = self.highlighted_session
        apply()
        self._rows_changed(keep)

    # -- cursor ---------------------------------------------------------------------------------
    def _item_count(self) -> int:
        return len(self.model.rows)

    def _move(self, index: int) -> None:
        self._moved = True
        super()._move(index)

    def _highlighted(self, index: int) -> None:
        self.post_message(self.SessionHighlighted(self, self.model.rows[index].session))

    def _selected(self, index: int) -> None:
        self.post_message(self.SessionSelected(self, self.model.rows[index].session))

    def action_page(self, direction: int) -> None:
        page = self._page()
        self._move(self._cursor + direction * page)
        # Keep the cursor at the same screen line, as a pager does (no animation: a jump).
        self.scroll_to(y=self.scroll_y + direction * page, animate=False)
        self._scroll_to_cursor()

    def action_first(self) -> None:
        self._move(0)  # (no scrolling to the top: the first row is the top)

    def action_select(self) -> None:
        self._set_editing(False)
        super().action_select()

    # -- sort, filters, nesting ------------------------------------------------------------------
    def set_sort(self, sort: str, reverse: bool = False) -> None:
        """Sort by one of SORTS in its natural direction (newest/biggest first, A-Z), or reversed."""
        self._change(lambda: self.model.set_sort(sort, reverse))

    def set_text_filter(self, text: str) -> None:
        def apply() -> None:
            self.model.text_filter = text
            self.model.rebuild()
        self._change(apply)

    def clear_filters(self) -> None:
        self._set_editing(False)
        self._change(self.model.clear_filters)

    def action_cycle_sort(self) -> None:
        self.set_sort(SORTS[(SORTS.index(self.model.sort) + 1) % len(SORTS)])

    def action_reverse_sort(self) -> None:
        self.set_sort(self.model.sort, not self.model.reversed)

    def action_cycle_agent(self, step: int) -> None:
        self._change(lambda: self.model.cycle_agent(step))

    def action_cycle_project(self, step: int) -> None:
        self._change(lambda: self.model.cycle_project(step))

    def action_toggle_children(self) -> None:
        def apply() -> None:
            self.model.show_children = not self.model.show_children
            self.model.rebuild()
        self._change(apply)

    def _set_editing(self, editing: bool) -> None:
        if editing != self.editing_filter:
            self.editing_filter = editing
            self.refresh_line(0)
            self.refresh_bindings()

    def action_edit_filter(self) -> None:
        self._set_editing(True)

    def action_escape(self) -> None:
        if self.editing_filter:  # the typed filter goes with it: a later `f` starts afresh
            self.set_text_filter("")
            self._set_editing(False)
        else:
            self.clear_filters()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Escape is only ours while there is something to stop or clear: otherwise it goes on
        # to the screen (which may use it to go back).
        if action == "escape":
            return self.editing_filter or self.filtered
        return True

    def on_key(self, event: events.Key) -> None:
        """While typing a filter, characters and backspace edit it instead of running bindings."""
        if not self.editing_filter:
            return
        if event.key == "backspace":
            if self.text_filter:
                self.set_text_filter(self.text_filter[:-1])
            else:
                self._set_editing(False)
        elif event.key == "ctrl+u":
            self.set_text_filter("")
        elif event.is_printable and event.character:
            self.set_text_filter(self.text_filter + event.character)
        else:
            return
        event.stop()
        event.prevent_default()

    def on_paste(self, event: events.Paste) -> None:
        if self.editing_filter:
            event.stop()
            self.set_text_filter(self.text_filter + " ".join(event.text.split()))

    # -- mouse ----------------------------------------------------------------------------------
    def _column_at(self, x: int) -> str | None:
        title_width, columns = self._layout(self.scrollable_content_region.width)
        pos = 1
        if x < pos + title_width + _GAP:
            return "title"
        pos += title_width
        for col in columns:
            pos += _GAP
            if x < pos + col.width:
                return col.key
            pos += col.width
        return None

    def _click_header(self, x: int, y: int) -> None:
        if y == 1:  # the column header: sort by that column
            key = self._column_at(x)
            if key in SORTS:
                self.set_sort(key, not self.reversed if key == self.sort else False)  # type: ignore[arg-type]

    # -- lifecycle ------------------------------------------------------------------------------
    def on_mount(self) -> None:
        # Ages ("3m ago") go stale in a long-running app: re-read the clock once a minute.
        self.set_interval(60, self._tick)

    def _tick(self) -> None:
        now = self._clock()
        if now != self._now:
            self._now = now
            self._cache.clear()
            self.refresh()

    # -- rendering ------------------------------------------------------------------------------
    def _layout(self, width: int) -> tuple[int, list[_Column]]:
        columns = list(_COLUMNS)
        fixed = lambda: sum(c.width + _GAP for c in columns) + 2  # noqa: E731 - a leading and a trailing space
        for key in _DROP_ORDER:
            if width - fixed() >= _MIN_TITLE:
                break
            columns = [c for c in columns if c.key != key]
        return max(1, width - fixed()), columns

    def _render_top(self, y: int, width: int) -> Strip:
        return self._render_counts(width) if y == 0 else self._render_header(width)

    def _render_empty(self, line: int, width: int) -> Strip:
        if line == 0:
            return self._strip(Text(" " + self.model.empty, style=self._style("session-list--empty")), width)
        return Strip.blank(width, self.rich_style)

    def _line_key(self, line: int) -> tuple[object, ...]:
        row = self.model.rows[line]
        return (row.session.id, row.depth, row.last)

    def _render_line(self, line: int, width: int, cursor: bool, hover: bool) -> Strip:
        return self._render_row(self.model.rows[line], width, cursor, hover)

    def _render_counts(self, width: int) -> Strip:
        filters = Text(no_wrap=True, end="")
        style = self._style("session-list--filter")
        if self.agent_filter:
            filters.append(f"  agent:{one_line(self.agent_filter)}", style)
        if self.project_filter:
            filters.append(f"  project:{one_line(project_name(self.project_filter))}", style)
        if self.editing_filter or self.text_filter:
            filters.append(f"  filter:{one_line(self.text_filter)}", style)
            if self.editing_filter:
                filters.append("▏", style)
        full, short = self.model.summary
        # The filters are what the user is acting on: when room is short, the counts give way.
        counts = full if len(full) + filters.cell_len <= width else short
        text = Text(counts, style=self._style("session-list--counts"), no_wrap=True, end="")
        text.append_text(filters)
        return self._strip(text, width)

    def _render_header(self, width: int) -> Strip:
        title_width, columns = self._layout(width)
        arrow = "▼" if self.descending else "▲"
        plain, sorted_ = self._style("session-list--column"), self._style("session-list--sorted")
        text = Text(" ", no_wrap=True, end="")
        cells = [_Column("title", "Title", title_width, False), *columns]
        for i, col in enumerate(cells):
            if i:
                text.append(" " * _GAP)
            label = col.label
            if col.key == self.sort:
                label = f"{arrow} {label}" if col.right else f"{label} {arrow}"
            text.append_text(fit(label, col.width, col.right, sorted_ if col.key == self.sort else plain))
        return self._strip(text, width)

    def _render_row(self, row: Row, width: int, cursor: bool, hover: bool) -> Strip:
        """One session's row. Laid out as segments rather than through a rich Text (its spans,
        copies and re-truncation were ~3/4 of a row's cost, and the first frame renders ~40
        rows); the same cells and styles as `fit` and `Text.truncate` would give."""
        s = row.session
        title_width, columns = self._layout(width)
        # On the cursor row the cursor style alone decides colours (muted text on a highlighted
        # background would lose its contrast).
        plain = Style()
        muted = plain if cursor else self._style("session-list--muted")
        kind = plain if cursor else self._style("session-list--kind")
        pieces: list[tuple[str, Style]] = []
        if row.depth:
            pieces += [("   " * (row.depth - 1) + (" └─ " if row.last else " ├─ "), muted),
                       (s.kind.value, kind), (" · ", muted)]
        elif s.kind is not SessionKind.MAIN:  # a child run whose parent is not in the list
            pieces.append((f"{s.kind.value} · ", kind))
        title = s.title or "(untitled)"  # masked first, while the app masks secrets on screen
        pieces.append((masked_line(title) if getattr(self.app, "mask_secrets", False) else one_line(title),
                       plain if cursor or not row.depth else self._style("session-list--child")))
        segments = [Segment(" ")]
        segments += fit_pieces(pieces, title_width)
        listed = isinstance(s, ListedSession)  # the scan has not read its file yet
        values = {
            "agent": one_line(s.agent),
            "project": one_line(project_name(s.project)) or "-",
            "active": relative_time(s.last_timestamp or s.first_timestamp, self._now),
            "entries": "…" if listed else f"{s.entry_count:,}",
            "tokens": "…" if listed else human_tokens(s.usage.total),
        }
        gap = Segment(" " * _GAP)
        for col in columns:
            segments.append(gap)
            style = None if col.key in ("entries", "tokens") and not listed else muted
            if col.key == "agent" and not cursor and s.agent in AGENT_CLASSES:
                style = self._style(AGENT_CLASSES[s.agent])
            segments += fit_pieces([(values[col.key], style)], col.width, right=col.right,
                                    pad_style=None if col.right else style)
        base = self._row_style(cursor, hover, "session-list")
        style = self._base_style() + base if base is not None else self._base_style()
        return Strip(fit_segments(segments, width), width).apply_style(style)

