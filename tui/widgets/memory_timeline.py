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
from textual.binding import Binding, BindingType
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

from ._cells import clock_of, fit
from ._line_list import CURSOR_KEYS, END_KEYS, PAGE_KEYS, VIM_END_KEYS, LineList, ListMessage
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


class MemoryTimeline(LineList):
    """Memory items grouped by project; `set_items()` fills it, the messages report the cursor."""

    HEADER_LINES = HEADER_LINES
    ITEM_LINES = 2  # the item's line and its summary

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select", "Sessions", id="memory-timeline.select"),
        *CURSOR_KEYS, *PAGE_KEYS, *END_KEYS, *VIM_END_KEYS,
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {f"memory-timeline--{name}" for name in (
        "counts", "filter", "project", "path", "resume", "axis", "date", "in-progress", "paused",
        "completed", "no-status", "kind", "summary", "warning", "cursor", "hover", "empty"
    )}

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
    class ItemHighlighted(ListMessage):
        """The cursor moved to another item; also posted after every change of the items or
        filters, for the item then highlighted (its file may have changed)."""

        item: MemoryItem

    @dataclass
    class ItemSelected(ListMessage):
        """Enter (or a click on the highlighted item): go to the item's detail."""

        item: MemoryItem

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
        self.model = MemoryRows()  # the items are its shown items
        self._message = "Reading memory…"
        self._width = 0  # the width the resume lines were wrapped to

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
        self._reset(len(self.model.lines))
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
    def _item_count(self) -> int:
        return len(self.model.items)

    def _line_count(self) -> int:
        return len(self.model.lines)

    def _line_of(self, index: int) -> int:
        return self.model.item_lines[index]

    def _item_head(self, index: int) -> int:
        # Moving onto a project's first item also brings its header (and resume line) into view.
        return self.model.head_of(index)

    def _item_of_line(self, line: int) -> int | None:
        found = self.model.lines[line]
        return found.item if found.kind in ("item", "summary") else None

    def _highlighted(self, index: int) -> None:
        self.post_message(self.ItemHighlighted(self, self.model.items[index]))

    def _selected(self, index: int) -> None:
        self.post_message(self.ItemSelected(self, self.model.items[index]))

    def select_path(self, path: str) -> bool:
        """Move the cursor to the item of this file; False when it is not shown."""
        index = next((i for i, it in enumerate(self.model.items) if it.path == path), None)
        if index is None:
            return False
        self._move(index)
        return True

    # -- rendering ------------------------------------------------------------------------------
    def _render_top(self, y: int, width: int) -> Strip:
        return self._render_counts(width)

    def _render_empty(self, line: int, width: int) -> Strip:
        if line == 0:
            message = ("No memory matches the filters · esc clears them" if self.model.all and self.filtered
                       else self._message)
            # (Styled as a span: `Text.render` drops the base style of a Text without spans.)
            text = Text(" ", no_wrap=True, end="")
            text.append(one_line(message), self._style("memory-timeline--empty"))
            return self._strip(text, width)
        return Strip.blank(width, self.rich_style)

    def _line_key(self, line: int) -> tuple[object, ...]:
        return (line, self.model.lines[line])

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

    def _render_line(self, index: int, width: int, cursor: bool, hover: bool) -> Strip:
        line = self.model.lines[index]
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
        return self._strip(text, width, self._row_style(cursor, hover, "memory-timeline"))

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
