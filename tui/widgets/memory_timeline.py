"""The memory timeline: every memory file of the known projects, newest first, grouped by project,
as a Line API view.

Each project opens with a header (its name and path) and the resume line of its newest readable
session note; then one item per file, two lines each: a dot on the project's time axis with the
date, a badge (a note's status, or the kind of file), the last checkpoint or the file's name and
markers for an old schema or warnings; below it the summary. The cursor moves over items only
(headers, resume lines and gaps are skipped). A counts line stays on top while the items scroll.

Everything shown comes from files the agents wrote: it is never parsed as markup, and control
characters are made visible.
"""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Callable, ClassVar

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from sessionscope.core.format import count, project_name, short_time
from sessionscope.core.memory.places import (
    AUTO_INDEX,
    AUTO_TOPIC,
    INSTRUCTIONS,
    SCHEMA_VERSION,
    SESSION_NOTE,
    STATUSES,
    SUMMARY,
    MemoryItem,
)
from sessionscope.core.text import one_line

from ._cells import clock_of, fit, foreground
from ._memory_rows import STATUS_FILTERS, Line, MemoryRows

__all__ = ["HEADER_LINES", "STATUS_FILTERS", "Line", "MemoryTimeline", "badge_label"]

HEADER_LINES = 1  # the counts line stays put while the items scroll
_DATE, _BADGE, _GAP = 12, 14, 2
_KIND_LABELS = {AUTO_INDEX: "memory index", AUTO_TOPIC: "memory topic", INSTRUCTIONS: "instructions",
                SUMMARY: "summary"}


def badge_label(item: MemoryItem) -> str:
    """The badge of an item: a note's status ("no status" when it has none), else its kind."""
    if item.kind == SESSION_NOTE:
        return item.status or "no status"
    return _KIND_LABELS.get(item.kind, item.kind)


def when(ts: datetime | None, now: datetime) -> str:
    """A date on the time axis, in `now`'s time zone: "today 08:37", "Nov 14 16:22", "2025-11-03"."""
    if ts is None:
        return "-"
    local = ts.astimezone(now.tzinfo) if now.tzinfo else ts
    if local.date() == now.date():
        return local.strftime("today %H:%M")
    return short_time(ts, now)


class MemoryTimeline(ScrollView, can_focus=True):
    """Memory items grouped by project; `set_items()` fills it, the messages report the cursor."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select", "Sessions", id="memory-timeline.select"),
        Binding("up", "cursor(-1)", "Up", show=False),
        Binding("down", "cursor(1)", "Down", show=False),
        Binding("k", "cursor(-1)", "Up", show=False),
        Binding("j", "cursor(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "first", "First", show=False),
        Binding("end", "last", "Last", show=False),
        Binding("g", "first", "First", show=False),
        Binding("G", "last", "Last", show=False),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "memory-timeline--counts",
        "memory-timeline--filter",
        "memory-timeline--project",
        "memory-timeline--path",
        "memory-timeline--resume",
        "memory-timeline--axis",
        "memory-timeline--date",
        "memory-timeline--in-progress",
        "memory-timeline--paused",
        "memory-timeline--completed",
        "memory-timeline--no-status",
        "memory-timeline--kind",
        "memory-timeline--summary",
        "memory-timeline--warning",
        "memory-timeline--cursor",
        "memory-timeline--hover",
        "memory-timeline--empty",
    }

    # What the view needs to work anywhere (a visible cursor, readable badges); the app's look
    # is in styles/memory.tcss.
    DEFAULT_CSS = """
    MemoryTimeline {
        overflow-x: hidden;
        overflow-y: auto;
        scrollbar-size-vertical: 1;
        & > .memory-timeline--counts { color: $foreground-muted; }
        & > .memory-timeline--filter { color: $text-accent; text-style: bold; }
        & > .memory-timeline--project { text-style: bold; }
        & > .memory-timeline--path { color: $foreground-muted; }
        & > .memory-timeline--resume { color: $text-accent; }
        & > .memory-timeline--axis { color: $foreground-muted; }
        & > .memory-timeline--date { color: $foreground; }
        & > .memory-timeline--in-progress { color: $text-warning; background: $warning-muted; }
        & > .memory-timeline--paused { color: $text-primary; background: $primary-muted; }
        & > .memory-timeline--completed { color: $text-success; background: $success-muted; }
        & > .memory-timeline--no-status { color: $text-error; background: $error-muted; }
        & > .memory-timeline--kind { color: $text-secondary; background: $secondary-muted; }
        & > .memory-timeline--summary { color: $foreground-muted; }
        & > .memory-timeline--warning { color: $text-warning; text-style: bold; }
        & > .memory-timeline--cursor {
            color: $block-cursor-blurred-foreground;
            background: $block-cursor-blurred-background;
            text-style: $block-cursor-blurred-text-style;
        }
        &:focus > .memory-timeline--cursor {
            color: $block-cursor-foreground;
            background: $block-cursor-background;
            text-style: $block-cursor-text-style;
        }
        & > .memory-timeline--hover { background: $block-hover-background; }
        & > .memory-timeline--empty { color: $foreground-muted; text-style: italic; }
    }
    """

    @dataclass
    class ItemHighlighted(Message):
        """The cursor moved to another item; also posted after every change of the items or
        filters, for the item then highlighted (its file may have changed)."""

        memory_timeline: MemoryTimeline
        item: MemoryItem

        @property
        def control(self) -> MemoryTimeline:
            return self.memory_timeline

    @dataclass
    class ItemSelected(Message):
        """Enter (or a click on the highlighted item): go to the item's detail."""

        memory_timeline: MemoryTimeline
        item: MemoryItem

        @property
        def control(self) -> MemoryTimeline:
            return self.memory_timeline

    def __init__(
        self,
        *,
        now: datetime | Callable[[], datetime] | None = None,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        """`now` fixes the clock the dates are shown in (its time zone; tests, snapshots)."""
        super().__init__(name=name, id=id, classes=classes)
        self._clock: Callable[[], datetime] = clock_of(now)
        self.model = MemoryRows()
        self._cursor = 0  # index into the shown items
        self._hover: int | None = None  # index into the shown items
        self._message = "Reading memory…"
        self._width = 0  # the width the resume lines were wrapped to
        self._cache: LRUCache[tuple[object, ...], Strip] = LRUCache(512)

    # -- public API ---------------------------------------------------------------------------
    def set_items(self, items: list[MemoryItem], resume: dict[str, str] | None = None) -> None:
        """Show these items (grouped by project, newest first) with each project's resume line.

        The highlighted item (by path) stays highlighted when it is still shown; a project
        filter whose project is gone is dropped."""
        self.model.set_items(items, resume or {})
        self._message = "No memory files found"
        self._rebuild()

    def show_message(self, message: str) -> None:
        """Show a line of text instead of items (reading, or why they could not be read)."""
        self.model.set_items([], {})
        self._message = message
        self._rebuild()

    @property
    def items(self) -> list[MemoryItem]:
        """The shown items (filters applied), in display order."""
        return list(self.model.items)

    @property
    def all_items(self) -> list[MemoryItem]:
        return list(self.model.all)

    @property
    def lines(self) -> list[Line]:
        return list(self.model.lines)

    @property
    def highlighted_item(self) -> MemoryItem | None:
        return self.model.items[self._cursor] if self.model.items else None

    @property
    def projects(self) -> list[str]:
        """The projects of all items, the most recently active first (the project filter's cycle)."""
        return self.model.projects

    @property
    def project_filter(self) -> str | None:
        return self.model.project_filter

    @property
    def status_filter(self) -> str | None:
        return self.model.status_filter

    @property
    def filtered(self) -> bool:
        return self.model.filtered

    def set_filters(self, *, project: str | None = None, status: str | None = None) -> None:
        """Show only one project's items and/or only session notes of one status (None: all)."""
        self.model.set_filters(project, status)
        self._rebuild()

    def cycle_project(self, step: int = 1) -> None:
        """All projects -> each project, the most recently active first -> all projects."""
        self.model.cycle_project(step)
        self._rebuild()

    def cycle_status(self, step: int = 1) -> None:
        """All -> in-progress -> paused -> completed -> all."""
        self.model.cycle_status(step)
        self._rebuild()

    def clear_filters(self) -> None:
        self.model.clear_filters()
        self._rebuild()

    # -- rows -----------------------------------------------------------------------------------
    def _wrap(self, text: str) -> list[str]:
        """The resume line in pieces that fit beside its 3-cell gutter (the status at its end
        is what matters most, so it wraps rather than being cut)."""
        width = self._width - 4
        if width < 20:
            return [text]
        return [line.plain.rstrip() for line in Text(text).wrap(self.app.console, width)] or [text]

    def on_resize(self) -> None:
        width = self.scrollable_content_region.width
        if width != self._width:
            self._width = width
            if self.model.resume:
                self._rebuild(announce=False)

    def _rebuild(self, announce: bool = True) -> None:
        keep = self.highlighted_item
        self._width = self.scrollable_content_region.width if self.is_mounted else 0
        self.model.rebuild(self._wrap)
        items = self.model.items
        self._cache.clear()
        self._hover = None
        self.virtual_size = Size(1, len(self.model.lines) + HEADER_LINES)
        index = 0
        if keep is not None:
            index = next((i for i, it in enumerate(items) if it.path == keep.path), 0)
        self._cursor = max(0, min(index, len(items) - 1))
        if self._cursor == 0:
            self.scroll_to(y=0, animate=False)
        self._scroll_to_cursor()
        self.refresh()
        if items and announce:
            self.post_message(self.ItemHighlighted(self, items[self._cursor]))

    # -- cursor ---------------------------------------------------------------------------------
    @property
    def cursor(self) -> int:
        return self._cursor

    def _page(self) -> int:
        return max(1, self.scrollable_content_region.height - HEADER_LINES)

    def _refresh_item(self, index: int | None) -> None:
        if index is not None and 0 <= index < len(self.model.item_lines):
            self.refresh_lines(self.model.item_lines[index] + HEADER_LINES, 2)

    def _scroll_to_cursor(self) -> None:
        if not self.model.items:
            return
        page, top = self._page(), round(self.scroll_y)
        first = self.model.item_lines[self._cursor]
        last = first + 1
        # Moving onto a project's first item also brings its header (and resume line) into view.
        head = self.model.head_of(self._cursor)
        if head < top:
            self.scroll_to(y=head if last - head < page else first, animate=False)
        elif last >= top + page:
            self.scroll_to(y=last - page + 1, animate=False)

    def _move(self, index: int) -> None:
        if not self.model.items:
            return
        index = max(0, min(index, len(self.model.items) - 1))
        if index == self._cursor:
            return
        old, self._cursor = self._cursor, index
        self._refresh_item(old)
        self._refresh_item(index)
        self._scroll_to_cursor()
        self.post_message(self.ItemHighlighted(self, self.model.items[index]))

    def select_path(self, path: str) -> bool:
        """Move the cursor to the item of this file; False when it is not shown."""
        index = next((i for i, it in enumerate(self.model.items) if it.path == path), None)
        if index is None:
            return False
        self._move(index)
        return True

    def action_cursor(self, delta: int) -> None:
        self._move(self._cursor + delta)

    def action_page(self, direction: int) -> None:
        if not self.model.items:
            return
        target = self.model.item_lines[self._cursor] + direction * self._page()
        order = range(len(self.model.items)) if direction > 0 else range(len(self.model.items) - 1, -1, -1)
        fallback = len(self.model.items) - 1 if direction > 0 else 0
        self._move(next((i for i in order
                         if (self.model.item_lines[i] >= target if direction > 0 else self.model.item_lines[i] <= target)),
                        fallback))

    def action_first(self) -> None:
        self._move(0)
        self.scroll_to(y=0, animate=False)

    def action_last(self) -> None:
        self._move(len(self.model.items) - 1)

    def action_select(self) -> None:
        item = self.highlighted_item
        if item is not None:
            self.post_message(self.ItemSelected(self, item))

    # -- mouse ----------------------------------------------------------------------------------
    def _item_at(self, event: events.MouseEvent) -> int | None:
        offset = event.get_content_offset(self)
        if offset is None or offset.y < HEADER_LINES:
            return None
        index = round(self.scroll_y) + offset.y - HEADER_LINES
        if not 0 <= index < len(self.model.lines):
            return None
        line = self.model.lines[index]
        return line.item if line.kind in ("item", "summary") else None

    def on_click(self, event: events.Click) -> None:
        index = self._item_at(event)
        if index is None:
            return
        if index == self._cursor or event.chain >= 2:
            self._move(index)
            self.action_select()
        else:
            self._move(index)

    def on_mouse_move(self, event: events.MouseMove) -> None:
        index = self._item_at(event)
        if index != self._hover:
            self._refresh_item(self._hover)
            self._refresh_item(index)
            self._hover = index

    def on_leave(self, event: events.Leave) -> None:
        if self._hover is not None:
            self._refresh_item(self._hover)
            self._hover = None

    def on_focus(self, event: events.Focus) -> None:
        self._refresh_item(self._cursor)

    def on_blur(self, event: events.Blur) -> None:
        self._refresh_item(self._cursor)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._cache.clear()  # theme change: every cached strip has stale colours

    # -- rendering ------------------------------------------------------------------------------
    def _style(self, name: str) -> Style:
        return foreground(self.get_component_rich_style(name))

    def _strip(self, text: Text, width: int, base: Style | None = None) -> Strip:
        text.truncate(width, overflow="ellipsis", pad=True)
        style = self.rich_style + base if base is not None else self.rich_style
        return Strip(text.render(self.app.console), width).apply_style(style)

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        if y < HEADER_LINES:
            return self._render_counts(width)
        index = round(self.scroll_y) + y - HEADER_LINES
        if not self.model.lines:
            if index == 0:
                message = ("No memory matches the filters · esc clears them" if self.model.all and self.filtered
                           else self._message)
                # (Styled as a span: `Text.render` drops the base style of a Text without spans.)
                text = Text(" ", no_wrap=True, end="")
                text.append(one_line(message), self._style("memory-timeline--empty"))
                return self._strip(text, width)
            return Strip.blank(width, self.rich_style)
        if index >= len(self.model.lines):
            return Strip.blank(width, self.rich_style)
        line = self.model.lines[index]
        cursor = line.item == self._cursor and line.kind in ("item", "summary")
        focused = cursor and self.has_focus
        hover = line.item == self._hover and line.kind in ("item", "summary")
        key = (index, line, width, cursor, focused, hover)
        strip = self._cache.get(key)
        if strip is None:
            strip = self._render(line, width, cursor, hover)
            self._cache[key] = strip
        return strip

    def _render_counts(self, width: int) -> Strip:
        total, shown = len(self.model.all), len(self.model.items)
        notes = sum(1 for it in self.model.items if it.kind == SESSION_NOTE)
        projects = len({it.project for it in self.model.items})
        head = f"{shown:,} of {count(total, 'item')}" if self.filtered else count(total, "item")
        full = f" {head} · {count(projects, 'project')} · {count(notes, 'note')}"
        filters = Text(no_wrap=True, end="")
        style = self._style("memory-timeline--filter")
        if self.model.project_filter is not None:
            filters.append(f"  project:{one_line(project_name(self.model.project_filter))}", style)
        if self.model.status_filter is not None:
            filters.append(f"  status:{self.model.status_filter}", style)
        # The filters are what the user is acting on: when room is short, the counts give way.
        counts = full if len(full) + filters.cell_len <= width else f" {head}"
        text = Text(no_wrap=True, end="")
        text.append(counts, self._style("memory-timeline--counts"))
        text.append_text(filters)
        return self._strip(text, width)

    def _render(self, line: Line, width: int, cursor: bool, hover: bool) -> Strip:
        if line.kind == "gap":
            return Strip.blank(width, self.rich_style)
        if line.kind == "project":
            text = Text(" ", no_wrap=True, end="")
            text.append(one_line(project_name(line.project) or line.project), self._style("memory-timeline--project"))
            if project_name(line.project) != line.project:
                text.append(f"  {one_line(line.project)}", self._style("memory-timeline--path"))
            return self._strip(text, width)
        if line.kind == "resume":
            text = Text(" ↻ " if line.part == 0 else "   ", style=self._style("memory-timeline--resume"),
                        no_wrap=True, end="")
            text.append(line.text, self._style("memory-timeline--resume"))
            return self._strip(text, width)
        item = self.model.items[line.item]
        muted = Style() if cursor else self._style("memory-timeline--axis")
        if line.kind == "item":
            text = self._item_line(item, width, cursor, muted)
        else:
            text = Text(" " + ("  " if line.last else "│ ") + "  ", style=muted, no_wrap=True, end="")
            summary = one_line(item.summary) or one_line(item.path)
            text.append(summary, Style() if cursor else self._style("memory-timeline--summary"))
        base = None
        if cursor:
            base = self.get_component_rich_style("memory-timeline--cursor")
        elif hover:
            base = self.get_component_rich_style("memory-timeline--hover")
        return self._strip(text, width, base)

    def _badge_style(self, item: MemoryItem) -> Style:
        if item.kind != SESSION_NOTE:
            name = "kind"
        elif item.status in STATUSES:
            name = item.status or "no-status"
        else:
            name = "no-status"
        return self.get_component_rich_style(f"memory-timeline--{name}")

    def _item_line(self, item: MemoryItem, width: int, cursor: bool, muted: Style) -> Text:
        text = Text(" ", no_wrap=True, end="")
        text.append("●", muted)
        text.append(" ")
        text.append_text(fit(when(item.timestamp, self._clock()), _DATE, False,
                             Style() if cursor else self._style("memory-timeline--date")))
        text.append(" " * _GAP)
        label = one_line(badge_label(item))
        badge = fit(f" {label} ", _BADGE)
        badge.stylize(self._badge_style(item), 0, min(len(label) + 2, _BADGE))
        text.append_text(badge)
        text.append(" ")
        marks = Text(no_wrap=True, end="")
        if item.kind == SESSION_NOTE and item.schema_version and item.schema_version != SCHEMA_VERSION:
            marks.append(f"  schema {one_line(item.schema_version)}", muted)
        if item.warnings:
            marks.append(f"  ⚠ {len(item.warnings)}", Style() if cursor else self._style("memory-timeline--warning"))
        marks.append(" ")
        detail = (item.last_checkpoint or "") if item.kind == SESSION_NOTE else item.name
        room = max(1, width - text.cell_len - marks.cell_len)
        text.append_text(fit(one_line(detail or ""), room))
        text.append_text(marks)
        return text
