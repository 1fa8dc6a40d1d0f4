"""The main screen: tabs for the session list, the search and the memory pane; transcripts open
on top. The tabs are a `TabBar` over a `ContentSwitcher` of one `Holder` per tab (not textual's
`TabbedContent`: its many widgets cost the first frame ~20 ms).

The search and memory panes are built after the first frame (in their holders), or at once when
their tab is asked for before that: their modules (the index, markdown) and their first work
(reading every memory file) would otherwise delay the first paint of the session list.
"""
from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Callable, cast

from textual import on, work
from textual.app import ComposeResult
from textual.await_complete import AwaitComplete
from textual.binding import Binding
from textual.screen import Screen
from textual.timer import Timer
from textual.widget import Widget
from textual.widgets import ContentSwitcher, Footer

from sessionscope.core.catalog.library import ListedSession
from sessionscope.core.model import Session
from sessionscope.core.text import printable
from sessionscope.tui.widgets.session_list import SessionList
from sessionscope.tui.widgets.tab_bar import TabBar
from sessionscope.tui.widgets.title_bar import TitleBar

if TYPE_CHECKING:
    from sessionscope.core.bookmarks.anchor import Resolved
    from sessionscope.core.bookmarks.store import Bookmark
    from sessionscope.core.search.ingest import Progress
    from sessionscope.tui.app import SessionScopeApp
    from sessionscope.tui.widgets.bookmark_list import BookmarkList, BookmarksPane
    from sessionscope.tui.widgets.memory_pane import MemoryPane
    from sessionscope.tui.widgets.search_pane import SearchPane
    from sessionscope.tui.widgets.stats_pane import StatsPane


#: while sessions keep changing, the list is rebuilt at most once per this many seconds
LIVE_INTERVAL = 0.5

#: the tabs: the id of each one's holder in the switcher, and its label
TABS = (("sessions", "Sessions"), ("search", "Search"), ("memory", "Memory"), ("bookmarks", "Bookmarks"),
        ("stats", "Stats"))


class Holder(Widget):
    """A tab's place in the switcher, holding its pane: given, or made by `make()` once the
    first frame has been painted (like textual's `Lazy`, but the pane's module is imported only
    then too). No CSS of its own (one stylesheet parse less): styles/app.tcss sizes it."""

    def __init__(self, pane: Widget | None = None, *, make: Callable[[], Widget] | None = None,
                 id: str, eager: bool = True) -> None:
        super().__init__(*([pane] if pane is not None else []), id=id)
        self._make = make
        self._made: AwaitComplete | None = None
        self._eager = eager  # False: made only when its tab is first shown

    def on_mount(self) -> None:
        if self._make is not None and self._eager:
            self.call_after_refresh(self.build)

    @property
    def is_made(self) -> bool:
        return self._made is not None

    def build(self) -> AwaitComplete:
        """Mount the pane (once); awaiting it waits until the pane is composed."""
        if self._made is None:
            if self._make is None or not self.is_attached:  # nothing to make, or removed
                return AwaitComplete.nothing()
            pane = self._make()

            async def mount() -> None:
                await self.mount(pane)

            self._made = AwaitComplete(mount())
        return self._made


class MainScreen(Screen[None]):
    AUTO_FOCUS = "#session-list"  # not the first focusable (the tab bar): one focus change, not two

    BINDINGS = [
        Binding("1", "show_tab('sessions')", "Sessions", show=False, id="main.sessions"),
        Binding("2", "show_tab('search')", "Search", id="main.search"),
        Binding("3", "show_tab('memory')", "Memory", id="main.memory"),
        Binding("4", "show_tab('bookmarks')", "Bookmarks", show=False, id="main.bookmarks"),
        Binding("5", "show_tab('stats')", "Stats", show=False, id="main.stats"),
        # Shown (while on the search tab: check_action) because the focused query box takes every
        # printable key, so the footer has nothing else to offer there.
        Binding("escape", "back_to_sessions", "Sessions", id="main.back"),
        Binding("b", "brief", "Brief", id="main.brief"),
        Binding("R", "resume", "Resume", id="main.resume"),
        # Not in the footer (it would push "? Keys" off a 120-column one): in the help and palette.
        Binding("ctrl+r", "copy_resume", "Copy resume cmd", show=False, id="main.copy_resume"),
        Binding("m", "bookmark_session", "Bookmark session", show=False, id="main.bookmark"),
    ]

    @property
    def ss_app(self) -> SessionScopeApp:
        return cast("SessionScopeApp", self.app)

    def __init__(self) -> None:
        super().__init__()
        self._stale = False  # live changes not shown in the list yet
        self._rebuilt = 0.0  # when the list was last rebuilt for them
        self._rebuild_timer: Timer | None = None
        self._back_to_query = False  # a transcript opened from the search results covers this screen

    def compose(self) -> ComposeResult:
        yield TitleBar(icon="◆")
        yield TabBar(TABS, "sessions", id="tabs")
        with ContentSwitcher(initial="sessions", id="panes"):
            yield Holder(SessionList(now=self.ss_app.now, id="session-list", loading=True), id="sessions")
            yield Holder(make=self._make_search_pane, id="search")
            yield Holder(make=self._make_memory_pane, id="memory")
            yield Holder(make=self._make_bookmarks_pane, id="bookmarks")
            yield Holder(make=self._make_stats_pane, id="stats", eager=False)
        yield Footer()

    def _make_search_pane(self) -> SearchPane:
        from sessionscope.tui.widgets.search_pane import SearchPane

        app = self.ss_app
        pane = SearchPane(app.search, lookup=app.library.get, now=app.now, id="search-pane")
        if app.indexing is not None:  # an index build under way since before the pane was made
            pane.set_progress(app.indexing.files_done, app.indexing.files_total)
        return pane

    def _make_memory_pane(self) -> MemoryPane:
        from sessionscope.tui.widgets.memory_pane import MemoryPane

        app = self.ss_app
        app.load_styles()
        return MemoryPane(app.memory_items, lambda project: app.library.sessions(project=project),
                          now=app.now, looked_in=app.memory_looked_in, id="memory-pane")

    def _make_bookmarks_pane(self) -> BookmarksPane:
        from sessionscope.tui.widgets.bookmark_list import BookmarksPane

        app = self.ss_app
        return BookmarksPane(app.bookmark_store, app.library, now=app.now, id="bookmarks-pane",
                             ready=lambda: not app.sessions_loading and app.reading is None)

    def _make_stats_pane(self) -> StatsPane:
        from datetime import datetime

        from sessionscope.tui.widgets.stats_pane import StatsPane

        app = self.ss_app
        library = app.library
        now = app.now
        return StatsPane(lambda: (library.all_sessions(), library.catalog.activity()),
                         today=lambda: (now or datetime.now().astimezone()).date(),
                         tz=now.tzinfo if now else None, id="stats-pane")

    def _with_pane(self, tab: str, then: Callable[[Any], object]) -> None:
        """`then(pane)` with the pane of a tab: now, or once it is built if it is not yet (it is
        built at once when its tab is asked for before the first frame)."""
        holder = self.query_one(f"#panes > #{tab}", Holder)
        made = holder.build()
        if made.is_done:
            then(holder.query_children().first())
            return

        async def when_made() -> None:
            await made
            then(holder.query_children().first())

        self.call_next(when_made)

    def on_mount(self) -> None:
        self.sub_title = "loading sessions…"
        self.query_one(SessionList).focus()
        if self.ss_app.library.all_sessions():  # a small library can be read before this
            self.library_changed()

    # -- from the app ----------------------------------------------------------------------
    def library_changed(self) -> None:
        lists = self.query(SessionList)
        if not lists:  # not composed yet: on_mount shows what the library holds by then
            return
        self._stale = False
        app = self.ss_app
        lib = app.library
        sessions = lib.all_sessions()
        loading = app.sessions_loading  # only the newest so far: the rest is being read
        reading = app.reading  # some are still the quick listing's: the scan is reading files
        lists.first().set_sessions(sessions, complete=not loading and reading is None, reading=reading)
        if loading or reading is not None:
            return
        for pane in self.query("MemoryPane"):  # its projects and "sessions around this time" changed
            cast("MemoryPane", pane).reload()
        for pane in self.query("BookmarksPane"):  # which bookmarks are found can be told now
            if cast("BookmarksPane", pane).shown:
                cast("BookmarksPane", pane).reload()
        roots = [r for r in lib.roots if r.error is None]
        self.sub_title = f"{len(roots)} root{'s' if len(roots) != 1 else ''}"

    def sessions_changed(self) -> None:
        """Live: sessions were created, grew or went. Rebuilding a list of 20k sessions takes
        ~60 ms, so the first change shows at once and later ones at most every LIVE_INTERVAL
        seconds (a one-shot timer, none while nothing changes); while a transcript covers this
        screen, not at all until it is shown again."""
        self._stale = True
        if not self.is_current or self._rebuild_timer is not None:
            return
        wait = self._rebuilt + LIVE_INTERVAL - time.monotonic()
        if wait <= 0:
            self._rebuild()
        else:
            self._rebuild_timer = self.set_timer(wait, self._rebuild)

    def _rebuild(self) -> None:
        self._rebuild_timer = None
        if self._stale:
            self._rebuilt = time.monotonic()
            self.library_changed()

    def on_screen_resume(self) -> None:
        if self._stale and self._rebuild_timer is None:
            self._rebuild()
        if self.active_tab == "bookmarks":  # back from a transcript, where bookmarks may have changed
            self._with_pane("bookmarks", lambda pane: pane.reload())
        if self._back_to_query:
            # Back from a hit: to the query box, not the results list, whose keys (b: the
            # composer, R: resume...) would fire on what the user goes on typing.
            self._back_to_query = False
            if self.active_tab == "search":
                self.call_after_refresh(self._with_pane, "search", lambda pane: pane.focus_input())

    def reading_progressed(self, done: int, total: int) -> None:
        """A cold scan's progress while the list shows the quick listing's sessions."""
        self.query_one(SessionList).set_reading(done, total)

    def index_progressed(self, progress: Progress) -> None:
        for pane in self.query("SearchPane"):
            cast("SearchPane", pane).set_progress(progress.files_done, progress.files_total)

    def index_updated(self, documents: int) -> None:
        for pane in self.query("SearchPane"):
            cast("SearchPane", pane).set_progress(1, 1)  # also searches the shown query again

    # -- navigation -----------------------------------------------------------------------------
    def memory_changed(self) -> None:
        """Live: a memory file changed; the pane reads its items again."""
        for pane in self.query("MemoryPane"):
            cast("MemoryPane", pane).reload()

    @property
    def active_tab(self) -> str:
        return self.query_one(TabBar).active

    def action_show_tab(self, tab: str) -> None:
        self.query_one(TabBar).active = tab
        self.query_one(ContentSwitcher).current = tab
        if tab == "search":
            self._with_pane("search", lambda pane: pane.focus_input())
        elif tab == "memory":
            self._with_pane("memory", lambda pane: pane.focus_timeline())
        elif tab == "bookmarks":
            self._with_pane("bookmarks", self._show_bookmarks)
        elif tab == "stats":
            shown = self.query_one("#panes > #stats", Holder).is_made
            self._with_pane("stats", lambda pane: (pane.focus(), shown and pane.reload()))
        else:
            self.query_one(SessionList).focus()

    @on(TabBar.TabActivated)
    def _tab_clicked(self, event: TabBar.TabActivated) -> None:
        """A tab chosen with the mouse (or the keys on the focused bar) is shown and its pane
        focused."""
        tab = event.tab
        focused = self.focused
        if focused is None or tab not in {a.id for a in focused.ancestors_with_self if a.id}:
            self.call_later(self.action_show_tab, tab)

    def on_memory_pane_session_requested(self, event: MemoryPane.SessionRequested) -> None:
        self.open_transcript(event.session)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "back_to_sessions":
            return self.active_tab == "search"
        if action == "bookmark_session":
            return self.active_tab == "sessions"
        return True

    def action_back_to_sessions(self) -> None:
        """Escape from the search input (the results take escape back to the input first)."""
        if self.active_tab == "search":
            self.action_show_tab("sessions")

    @on(SessionList.SessionSelected)
    def open_session(self, event: SessionList.SessionSelected) -> None:
        self.open_transcript(event.session)

    def on_search_pane_hit_selected(self, event: SearchPane.HitSelected) -> None:
        session = self.ss_app.library.get(event.hit.session_id)
        if session is None:
            self.notify(f"session {event.hit.session_id} is no longer on disk", severity="warning")
            return
        self._back_to_query = True
        self.open_transcript(session, entry_id=event.hit.entry_id, highlight=find_text(event.query, event.hit.preview))

    def on_search_pane_ref_submitted(self, event: SearchPane.RefSubmitted) -> None:
        """A pasted Source reference opens its entry; a text that only looks like one is searched."""
        from sessionscope.core.brief.ref import parse_ref
        from sessionscope.core.catalog.library import LookupFailed

        library = self.ss_app.library
        try:
            ref = parse_ref(event.ref)
            session = library.find(ref.session_id)
        except (ValueError, LookupFailed):
            event.search_pane.search_now()
            return
        if ref.agent and session.agent != ref.agent:
            self.notify(printable(f"{ref.session_id} is a {session.agent} session, not {ref.agent}"),
                        severity="warning", markup=False)
        self.open_transcript(session, entry_id=ref.entry_id)

    def open_transcript(self, session: Session, entry_id: str | None = None, highlight: str | None = None) -> None:
        from sessionscope.tui.screens.transcript import TranscriptScreen

        library = self.ss_app.library
        if isinstance(session, ListedSession):  # the list may not show the parsed one yet
            parsed = library.get(session.id)
            if parsed is not None and parsed.path == session.path:
                session = parsed
        self.app.push_screen(TranscriptScreen(library, session, entry_id=entry_id, highlight=highlight))

    # -- bookmarks ------------------------------------------------------------------------------
    @staticmethod
    def _show_bookmarks(pane: BookmarksPane) -> None:
        pane.reload()
        pane.focus_list()

    def action_bookmark_session(self) -> None:
        """Bookmark the highlighted session with an optional note (again: edit or remove it)."""
        from sessionscope.tui.screens.bookmark_note import bookmark_with_note

        session = self._current()
        if session is None:
            self.notify("no session highlighted", severity="warning")
            return
        if isinstance(session, ListedSession) and session.unsure & {"session_id"}:
            self.notify("this session's file is still being read: try again in a moment", severity="warning")
            return
        bookmark_with_note(self, session)

    def on_bookmark_list_selected(self, event: BookmarkList.Selected) -> None:
        self._open_bookmark(event.bookmark)

    @work(thread=True, exclusive=True, group="open-bookmark", exit_on_error=False)
    def _open_bookmark(self, bookmark: Bookmark) -> None:
        """Find the bookmarked entry (its session is read: off the UI thread), then open it."""
        from sessionscope.core.bookmarks.anchor import resolve

        [found] = resolve(self.ss_app.library, [bookmark])
        self.app.call_from_thread(self._open_found, found)

    def _open_found(self, found: Resolved) -> None:
        from sessionscope.core.bookmarks.anchor import State

        b = found.bookmark
        if found.session is None:
            self.notify(printable(f"{b.agent} session {b.session_id} is not found any more "
                                  f"(it was in {b.path}); the bookmark keeps what was saved"),
                        severity="warning", markup=False, timeout=6)
            return
        if found.state is State.UNREADABLE:
            self.notify(printable(f"cannot read {found.session.path}: {found.reason}"), severity="error",
                        markup=False)
            return
        if found.state is State.ENTRY_GONE:
            self.notify("the bookmarked entry is not in this transcript any more: opened at its start",
                        severity="warning", timeout=6)
        self.open_transcript(found.session, entry_id=found.entry_id)

    def on_bookmark_list_edit_requested(self, event: BookmarkList.EditRequested) -> None:
        from sessionscope.core.text import one_line
        from sessionscope.tui.screens.bookmark_note import BookmarkNoteScreen, NoteResult

        b = event.bookmark
        store = self.ss_app.bookmark_store
        first = next((ln for ln in b.excerpt.splitlines() if ln.strip()), "")
        what = f"{b.role or '?'} · {one_line(first, 160)}" if b.on_entry else \
            f"the whole session · {one_line(b.title or b.session_id, 160)}"

        def chosen(result: NoteResult | None) -> None:
            if result is None or b.id is None:
                return
            self._change_bookmark(lambda: store.remove(b.id) if result.remove else store.set_note(b.id, result.note),
                                  "bookmark deleted" if result.remove else "note saved")

        self.app.push_screen(BookmarkNoteScreen(what, note=b.note), chosen)

    def on_bookmark_list_delete_requested(self, event: BookmarkList.DeleteRequested) -> None:
        b = event.bookmark
        if b.id is not None:
            self._change_bookmark(lambda: self.ss_app.bookmark_store.remove(b.id), "bookmark deleted")

    def _change_bookmark(self, change: Callable[[], object], done: str) -> None:
        from sessionscope.core.bookmarks.store import StoreError

        try:
            change()
        except StoreError as exc:
            self.notify(printable(str(exc)), severity="error", markup=False)
            return
        self.notify(done, timeout=3)
        self._with_pane("bookmarks", lambda pane: pane.reload())

    def action_brief(self) -> None:
        """The brief composer, scoped to the highlighted session's project."""
        from sessionscope.tui.screens.composer import ComposerScreen

        s = self._current()
        if s is not None and s.project:
            screen = ComposerScreen(project=s.project, project_note="highlighted session's project")
        else:
            screen = ComposerScreen(project_note="the working directory's")
        self.app.push_screen(screen)

    # -- resume ---------------------------------------------------------------------------------
    def _current(self) -> Session | None:
        return self.query_one(SessionList).highlighted_session

    def _resume(self) -> Any:
        session = self._current()
        if session is None:
            self.notify("no session highlighted", severity="warning")
            return None
        if isinstance(session, ListedSession) and session.unsure & {"session_id", "project"}:
            self.notify("this session's file is still being read: try again in a moment",
                        severity="warning")
            return None
        from sessionscope.core.read.resume import resume_command

        parent = self.ss_app.library.get(session.parent_id) if session.parent_id else None
        cmd = resume_command(session, parent)
        if cmd is None:
            self.notify(printable(f"{session.agent} sessions have no resume command"), severity="warning",
                        markup=False)
        return cmd

    def action_copy_resume(self) -> None:
        cmd = self._resume()
        if cmd is not None:
            self.app.copy_to_clipboard(cmd.shell)
            self.notify(cmd.shell, title="Copied resume command")

    def action_resume(self) -> None:
        cmd = self._resume()
        if cmd is None:
            return
        import os
        import shutil

        if shutil.which(cmd.argv[0]) is None:
            self.notify(f"{cmd.argv[0]} is not on PATH; copy the command with ctrl+r instead", severity="error")
            return
        if cmd.cwd and not os.path.isdir(cmd.cwd):
            self.notify(f"project directory {cmd.cwd} no longer exists", severity="error")
            return
        from sessionscope.tui.screens.transcript import run_in_terminal

        run_in_terminal(self, list(cmd.argv), cwd=cmd.cwd, hint="; copy the command with ctrl+r")


def find_text(query: str, preview: str | None) -> str:
    """What the transcript's find highlights for a search hit: the query's first text term found
    in the hit (words, a phrase's words in order, a prefix's stem, a substring), not the raw
    query, which holds operators, filters and quotes the text does not."""
    from sessionscope.core.search.query import QueryError, parse

    try:
        q = parse(query)
    except QueryError:
        return query
    terms = [t.text.rstrip("*") if t.kind == "prefix" else t.text for alts in q.must for t in alts]
    low = (preview or "").lower()
    found = [t for t in terms if t and t.lower() in low]
    return (found or terms or [""])[0]

