"""The memory timeline's model: the items, the project and status filters, and the lines they
make (project header, resume line, two lines per item, a gap between projects). No widgets here:
the timeline renders what this builds, and tests can drive it directly."""
from __future__ import annotations

from typing import Callable, NamedTuple

from sessionscope.core.memory.places import SESSION_NOTE, STATUSES, MemoryItem, group_by_project
from sessionscope.core.text import one_line

__all__ = ["STATUS_FILTERS", "Line", "MemoryRows"]

STATUS_FILTERS: tuple[str | None, ...] = (None, *STATUSES)
_HEAD_KINDS = ("project", "resume", "gap")


class Line(NamedTuple):
    kind: str  # "project" | "resume" | "item" | "summary" | "gap"
    project: str = ""
    item: int = -1  # item and summary lines: index into the shown items
    last: bool = False  # item and summary lines: the last item of its project
    text: str = ""  # resume lines: this line's part of the (wrapped) resume line
    part: int = 0  # resume lines: 0 for the first line, then 1, 2, ...


class MemoryRows:
    """Items grouped by project (groups and items newest first), filtered, as display lines."""

    def __init__(self) -> None:
        self.all: list[MemoryItem] = []
        self.resume: dict[str, str] = {}
        self.project_filter: str | None = None
        self.status_filter: str | None = None
        self.items: list[MemoryItem] = []  # shown, in display order
        self.lines: list[Line] = []
        self.item_lines: list[int] = []  # index into `lines` of each shown item's first line

    @property
    def projects(self) -> list[str]:
        """The projects of all items, the most recently active first (the project filter's cycle)."""
        return [project for project, _ in group_by_project(self.all)]

    @property
    def filtered(self) -> bool:
        return self.project_filter is not None or self.status_filter is not None

    def set_items(self, items: list[MemoryItem], resume: dict[str, str]) -> None:
        """New items; a project filter whose project is gone is dropped (call `rebuild` next)."""
        self.all = list(items)
        self.resume = dict(resume)
        if self.project_filter is not None and self.project_filter not in self.projects:
            self.project_filter = None

    def set_filters(self, project: str | None, status: str | None) -> None:
        if status is not None and status not in STATUSES:
            raise ValueError(f"status must be one of {', '.join(STATUSES)}; got {status!r}")
        self.project_filter, self.status_filter = project, status

    def cycle_project(self, step: int) -> None:
        """All projects -> each project, the most recently active first -> all projects."""
        cycle: list[str | None] = [None, *self.projects]
        at = cycle.index(self.project_filter) if self.project_filter in cycle else 0
        self.project_filter = cycle[(at + step) % len(cycle)]

    def cycle_status(self, step: int) -> None:
        """All -> in-progress -> paused -> completed -> all."""
        at = STATUS_FILTERS.index(self.status_filter)
        self.status_filter = STATUS_FILTERS[(at + step) % len(STATUS_FILTERS)]

    def clear_filters(self) -> None:
        self.project_filter = self.status_filter = None

    def shown(self, item: MemoryItem) -> bool:
        if self.project_filter is not None and item.project != self.project_filter:
            return False
        return self.status_filter is None or (item.kind == SESSION_NOTE and item.status == self.status_filter)

    def rebuild(self, wrap: Callable[[str], list[str]]) -> None:
        """Lay the shown items out as lines; `wrap` splits a resume line to the view's width."""
        lines: list[Line] = []
        items: list[MemoryItem] = []
        item_lines: list[int] = []
        for project, group in group_by_project(self.all):
            shown = [it for it in group if self.shown(it)]
            if not shown:
                continue
            if lines:
                lines.append(Line("gap"))
            lines.append(Line("project", project))
            if project in self.resume:
                for n, part in enumerate(wrap(one_line(self.resume[project]))):
                    lines.append(Line("resume", project, text=part, part=n))
            for n, it in enumerate(shown):
                last = n == len(shown) - 1
                item_lines.append(len(lines))
                lines.append(Line("item", project, len(items), last))
                lines.append(Line("summary", project, len(items), last))
                items.append(it)
        self.lines, self.items, self.item_lines = lines, items, item_lines

    def head_of(self, index: int, reach: int = 5) -> int:
        """The first line of the header above item `index` (its project and resume lines), or
        the item's own first line when another item is directly above it."""
        first = self.item_lines[index]
        head = first
        while head > 0 and self.lines[head - 1].kind in _HEAD_KINDS and first - head < reach:
            head -= 1
        return head
