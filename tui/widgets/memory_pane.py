"""The memory pane: the timeline of every project's memory on the left; on the right the selected
file rendered and the project's sessions active around its time, which open on enter.

All file reading happens in thread workers: the items (`items_provider`, e.g. a closure over
`core.memory.discover_memory`) with the resume line of each project's newest readable note, and,
per highlighted item, its rendering and its project's sessions (`sessions_provider`). A newer
request supersedes an older one (exclusive workers), and an answer for an item that is no longer
highlighted is dropped. The app calls `reload()` (or `set_items()`) when a memory file changes.

Keys: up/down, k/j move over items · enter go to the sessions around the item · tab / shift+tab
timeline -> sessions -> note -> timeline · p / P project filter · s / S status filter (all,
in-progress, paused, completed) · r re-read · escape back to the timeline, then clear filters ·
enter on a session: open its transcript (`SessionRequested`).
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Callable, ClassVar, Iterable

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widget import Widget
from textual.worker import get_current_worker

from sessionscope.core.format import count
from sessionscope.core.memory.places import (
    SESSION_NOTE,
    MemoryItem,
    NoteCorrupt,
    group_by_project,
    read_note,
    render_note,
    resume_line,
)
from sessionscope.core.model import Session
from sessionscope.core.text import one_line
from sessionscope.tui.widgets._cells import clock_of

from .memory_note_view import MemoryNoteView
from .memory_timeline import MemoryTimeline
from .nearby_sessions import NEARBY_WINDOW, Nearby, NearbySessions, sessions_around

__all__ = ["ItemsProvider", "MemoryPane", "SessionsProvider", "resume_lines"]

ItemsProvider = Callable[[], "list[MemoryItem]"]
SessionsProvider = Callable[["str | None"], "list[Session]"]


def resume_lines(items: Iterable[MemoryItem], now: datetime | None = None) -> dict[str, str]:
    """Each project's resume line, from its newest session note that can be read (a damaged
    one is skipped for the next newest, as `load_last` does). Reads files: call it in a thread."""
    out: dict[str, str] = {}
    for project, group in group_by_project(items):
        for it in group:
            if it.kind != SESSION_NOTE:
                continue
            try:
                note = read_note(it.path)
            except NoteCorrupt:
                continue
            out[project] = resume_line(note, now)
            break
    return out


@dataclass
class _Loaded(Message):
    """The items (and resume lines) were read in the worker, or could not be."""

    items: list[MemoryItem]
    resume: dict[str, str]
    error: Exception | None = None
    looked_in: str = ""  # where the provider looked, when it found nothing


@dataclass
class _DetailLoaded(Message):
    """One item was rendered and its nearby sessions found, in the worker."""

    item: MemoryItem
    rendered: dict[str, Any]
    nearby: list[Nearby]
    empty: str


class MemoryPane(Horizontal):
    """Memory of the known projects on one time axis, with the selected note and its sessions."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("tab", "cycle_focus(1)", "Next", id="memory-pane.next"),
        Binding("shift+tab", "cycle_focus(-1)", "Previous part", show=False, id="memory-pane.previous"),
        Binding("p", "cycle_project(1)", "Project", id="memory-pane.project"),
        Binding("P", "cycle_project(-1)", "Project back", show=False, id="memory-pane.project-back"),
        Binding("s", "cycle_status(1)", "Status", id="memory-pane.status"),
        Binding("S", "cycle_status(-1)", "Status back", show=False, id="memory-pane.status-back"),
        Binding("r", "reload", "Re-read", id="memory-pane.reload"),
        Binding("escape", "escape", "Back", id="memory-pane.back"),
    ]

    DEFAULT_CSS = """
    MemoryPane {
        height: 1fr;
        MemoryTimeline { width: 1fr; height: 1fr; }
        #memory-detail { width: 1fr; height: 1fr; }
    }
    """

    @dataclass
    class SessionRequested(Message):
        """A session was picked among those around the selected note: the app opens its transcript."""

        memory_pane: MemoryPane
        session: Session

        @property
        def control(self) -> MemoryPane:
            return self.memory_pane

    def __init__(
        self,
        items_provider: ItemsProvider,
        sessions_provider: SessionsProvider,
        *,
        now: datetime | Callable[[], datetime] | None = None,
        window: timedelta = NEARBY_WINDOW,
        looked_in: Callable[[], str] | None = None,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        """`items_provider()` lists the memory items (called in a thread; newest first is not
        required). `sessions_provider(project)` gives sessions of that project (called in a
        thread; a superset is fine: they are matched to the item's project here; None asks for
        all, used for projects known only by Claude's escaped folder name). `now` fixes the
        clock (snapshots); `window` is how far from a note's time a session may be;
        `looked_in()` says where `items_provider` looks (shown when it finds nothing)."""
        super().__init__(name=name, id=id, classes=classes)
        self._items_provider = items_provider
        self._sessions_provider = sessions_provider
        self._now = now
        self._clock: Callable[[], datetime] = clock_of(now)
        self.window = window
        self._looked_in = looked_in
        self.loading_items = False

    def compose(self) -> ComposeResult:
        yield MemoryTimeline(now=self._now, id="memory-timeline")
        with Vertical(id="memory-detail"):
            yield MemoryNoteView(now=self._now, id="memory-note")
            yield NearbySessions(now=self._now, id="memory-sessions")

    def on_mount(self) -> None:
        self.sessions_list.border_title = "Sessions around this time"
        self.reload()

    # -- public API ---------------------------------------------------------------------------
    @property
    def timeline(self) -> MemoryTimeline:
        return self.query_one(MemoryTimeline)

    @property
    def note_view(self) -> MemoryNoteView:
        return self.query_one(MemoryNoteView)

    @property
    def sessions_list(self) -> NearbySessions:
        return self.query_one(NearbySessions)

    def focus_timeline(self) -> None:
        self.timeline.focus()

    def reload(self) -> None:
        """Read the items again (`items_provider` in a thread worker), e.g. on a memory-change
        event. The highlighted item stays highlighted and is re-rendered from disk.

        (Not named `refresh`: that is every widget's repaint method.)"""
        self.loading_items = True
        self._load(None)

    def set_items(self, items: list[MemoryItem]) -> None:
        """Show these items instead of asking `items_provider`; the resume lines are read from
        the notes in a thread worker, and the items appear with them."""
        self.loading_items = True
        self._load(list(items))

    # -- workers --------------------------------------------------------------------------------
    @work(thread=True, exclusive=True, group="memory-items", exit_on_error=False)
    def _load(self, items: list[MemoryItem] | None) -> None:
        worker = get_current_worker()
        try:
            found = list(self._items_provider()) if items is None else items
            resume = resume_lines(found, self._clock())
            looked = self._looked_in() if self._looked_in is not None and not found else ""
        except Exception as exc:  # noqa: BLE001 - shown in the pane, never a traceback
            if not worker.is_cancelled:
                self.post_message(_Loaded([], {}, exc))
            return
        if not worker.is_cancelled:
            self.post_message(_Loaded(found, resume, looked_in=looked))

    @work(thread=True, exclusive=True, group="memory-detail", exit_on_error=False)
    def _load_detail(self, item: MemoryItem) -> None:
        worker = get_current_worker()
        rendered = render_note(item)
        nearby: list[Nearby] = []
        if item.timestamp is None:
            empty = "The file's time is unknown"
        elif item.project.startswith("("):  # user-level files, e.g. "(user)": no project
            empty = "User-level files belong to no project"
        else:
            empty = f"No sessions of this project within {_days(self.window)} of this time"
            escaped = item.project.startswith("-") and os.sep not in item.project
            try:
                sessions = self._sessions_provider(None if escaped else item.project)
                nearby = sessions_around(item.timestamp, sessions, item.project, self.window)
            except Exception as exc:  # noqa: BLE001 - a failing provider costs the list, not the pane
                empty = one_line(f"Sessions could not be listed: {exc}")
        if not worker.is_cancelled:
            self.post_message(_DetailLoaded(item, rendered, nearby, empty))

    @on(_Loaded)
    async def _loaded(self, message: _Loaded) -> None:
        message.stop()
        self.loading_items = False
        timeline = self.timeline
        if message.error is not None:
            timeline.show_message(one_line(f"Memory could not be read: {message.error}"))
            await self.note_view.show_message("")
            self.sessions_list.set_sessions([], "")
            return
        # The timeline announces its highlighted item after every rebuild, so the detail is
        # rendered again from disk even when the same file stays highlighted (it may have changed).
        timeline.set_items(message.items, message.resume)
        if not timeline.items:
            await self.note_view.show_message(
                "No memory matches the filters." if timeline.all_items else
                "No memory files found. " + (f"{message.looked_in} " if message.looked_in else "")
                + "Session notes live in <project>/memory/; Claude Code's auto-memory in "
                "~/.claude/projects/<project>/memory/; instruction files are CLAUDE.md, AGENTS.md, "
                "GEMINI.md. Point the app at another folder with --memory-dir DIR or memory_dirs "
                "in config.toml.")
            self.sessions_list.set_sessions([], "")

    @on(MemoryTimeline.ItemHighlighted)
    def _highlighted(self, message: MemoryTimeline.ItemHighlighted) -> None:
        message.stop()
        self._load_detail(message.item)

    @on(_DetailLoaded)
    async def _detail_loaded(self, message: _DetailLoaded) -> None:
        message.stop()
        current = self.timeline.highlighted_item
        if current is None or current.path != message.item.path:
            return  # an answer for an item the cursor has left
        self.sessions_list.set_sessions(message.nearby, message.empty)
        self.sessions_list.border_title = (
            f"Sessions around this time · {count(len(message.nearby), 'session')} within {_days(self.window)}")
        await self.note_view.show(message.item, message.rendered)

    # -- actions --------------------------------------------------------------------------------
    def _parts(self) -> list[Widget]:
        parts: list[Widget] = [self.timeline]
        if self.sessions_list.sessions:
            parts.append(self.sessions_list)
        parts.append(self.note_view)
        return parts

    def action_cycle_focus(self, step: int) -> None:
        parts = self._parts()
        focused = self.screen.focused
        at = parts.index(focused) if focused in parts else 0
        parts[(at + step) % len(parts)].focus()

    @on(MemoryTimeline.ItemSelected)
    def _selected(self, message: MemoryTimeline.ItemSelected) -> None:
        message.stop()
        (self.sessions_list if self.sessions_list.sessions else self.note_view).focus()

    @on(NearbySessions.SessionSelected)
    def _session_selected(self, message: NearbySessions.SessionSelected) -> None:
        message.stop()
        self.post_message(self.SessionRequested(self, message.session))

    async def action_cycle_project(self, step: int) -> None:
        self.timeline.cycle_project(step)
        await self._after_filter()

    async def action_cycle_status(self, step: int) -> None:
        self.timeline.cycle_status(step)
        await self._after_filter()

    async def _after_filter(self) -> None:
        # A non-empty list announces its highlighted item (the detail follows); an empty one
        # leaves nothing to show.
        if not self.timeline.items:
            self.sessions_list.set_sessions([], "")
            await self.note_view.show_message("No memory matches the filters.")
        self.refresh_bindings()

    def action_reload(self) -> None:
        self.reload()

    async def action_escape(self) -> None:
        if self.screen.focused is not self.timeline:
            self.focus_timeline()
        else:
            self.timeline.clear_filters()
            await self._after_filter()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # Escape is ours only while there is something to go back from or to clear; otherwise
        # it goes on to the screen (which may use it to go back).
        if action == "escape" and self.is_mounted:
            return self.screen.focused is not self.timeline or self.timeline.filtered
        return True


def _days(window: timedelta) -> str:
    return count(window.days, "day") if window.days else f"{window.total_seconds() / 3600:g} hours"
