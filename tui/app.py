"""The Textual app: a thin shell that owns the library and the index and hands work to screens.

Live: after the first scan the app watches every root in a thread worker (inotify, or polling
with `--poll` / `poll = true`). Each batch of session events is applied to the library by the
watcher and posted to the app as one message; the UI work is coalesced (however many batches are
queued, the session list is rebuilt once and each open transcript sees them all in order).

The index follows in a second thread worker, not in the watcher's: an update looks only at the
files the watcher changed and reads only what was appended, but each one ends in a commit
(~10-20 ms), which would hold back the next batch (and so the open transcript) each time. So it
runs at once after a change, then at most once per INDEX_INTERVAL while changes keep coming, and
blocks while none do. One lock keeps the watcher's changes to the library apart from the scan and index updates.
"""
from __future__ import annotations

import gc
import threading
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable

from textual import work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen
from textual.worker import Worker, WorkerState

#: while sessions keep changing, the index is brought up to date at most once per this many seconds
INDEX_INTERVAL = 1.0

#: top-level sessions read from the catalog before the first paint (a few screens' worth); the
#: rest are read after it, so a first screen of a 20k-session history costs milliseconds
FIRST_SCREEN = 120
#: how long the library worker waits for that first paint before it reads on regardless
FIRST_PAINT_WAIT = 2.0
#: while a cold scan reads the files, the list's "reading 340 of 2,000 files" is updated at most
#: once per this many seconds (its rows are replaced by the library's own pace: INTERIM_EVERY)
READING_INTERVAL = 0.2

if TYPE_CHECKING:
    from sessionscope.core.search.hits import SearchResult
    from sessionscope.core.search.index import SearchIndex
    from sessionscope.core.search.ingest import Progress
    from sessionscope.core.bookmarks.store import BookmarkStore
    from sessionscope.core.catalog.library import Interim, Library, ScanReport
    from sessionscope.core.memory.places import MemoryItem
    from sessionscope.core.live.tracker import SessionEvent
    from sessionscope.core.live.watch import Watcher

STYLES = Path(__file__).resolve().parent.parent / "styles"
#: what the main screen's first frame needs; the other screens' and panes' stylesheets are read
#: after it (`load_styles`): parsed before it, they cost that frame ~5 ms
FIRST_STYLES = ("app.tcss", "lists.tcss")


class SessionScopeApp(App[None]):
    """Sessions, transcripts and search over the agents' history."""

    TITLE = "sessionscope"
    CSS_PATH = [str(STYLES / name) for name in FIRST_STYLES]
    LATER_CSS_PATH = sorted(str(p) for p in STYLES.glob("*.tcss") if p.name not in FIRST_STYLES)
    BINDINGS = [
        Binding("question_mark", "help", "Keys", id="app.help"),
        Binding("q", "quit", "Quit", show=False, id="app.quit"),  # known to all; in the help
        # For sharing the screen: transcripts, search results and previews shown masked.
        Binding("M", "toggle_mask_secrets", "Mask secrets", show=False, id="app.mask_secrets"),
    ]
    MASKED_TITLE = "sessionscope · secrets masked"

    @dataclass
    class LibraryScanned(Message):
        report: ScanReport | None
        cached: bool = False  # the catalog's sessions, before the scan confirmed them

    @dataclass
    class ScanInterim(Message):
        """A cold scan put (more of) the quick listing's sessions in the library, or replaced
        some with the parsed ones."""

        state: Interim

    @dataclass
    class ScanProgressed(Message):
        """Files read so far by a scan that shows listed sessions meanwhile."""

        files_done: int
        files_total: int

    @dataclass
    class SessionsChanged(Message):
        """One batch of live events (never replaced by the next: every batch matters)."""

        events: list[SessionEvent]

    @dataclass
    class IndexProgressed(Message):
        progress: Progress

    @dataclass
    class IndexUpdated(Message):
        documents: int
        messages: list[str]

    def __init__(
        self,
        library: Library,
        *,
        index_dir: Path | None,
        now: datetime | None = None,
        watch: bool = False,
        poll: bool = False,
        notice: str | None = None,
        rescan: bool = True,
        memory: Callable[[], list[MemoryItem]] | None = None,
        memory_dirs: tuple[str, ...] = (),
        cwd: str | None = None,
        tool_result_cap: int = 4000,
        bookmarks: Path | None = None,
    ) -> None:
        super().__init__()
        self._bookmarks_path = bookmarks  # the bookmarks' SQLite file (default: the data folder's)
        self._bookmark_store: BookmarkStore | None = None
        self.library = library
        self.index_dir = index_dir
        self.tool_result_cap = tool_result_cap  # the config's: the CLI indexes with the same one
        self.index: SearchIndex | None = None
        self.library_loaded = False  # a library load (scan, then index) has ended, well or not
        self.now = now  # frozen clock for snapshots; None means the real time
        self.watch_files = watch
        self.poll = poll
        self.notice = notice
        self.rescan = rescan
        self._memory = memory
        self.memory_dirs = memory_dirs  # extra memory folders (--memory-dir, config), read and watched
        self.cwd = cwd  # the folder the app started in: its memory is looked for, as the CLI does
        self.indexing: Progress | None = None
        self.watcher: Watcher | None = None
        self._library_lock = threading.RLock()  # the watcher's changes vs. the scan and index build
        self._live: list[SessionEvent] = []  # events received, not yet shown
        self._live_scheduled = False
        self._index_due = threading.Event()  # the watcher changed the library since the last update
        self._first_painted = threading.Event()  # the first screen of sessions is on screen
        self.gc_paused = False  # run_app turned the GC off until the first paint
        self.sessions_loading = False  # only the newest sessions are in the library so far
        #: (files read, files in all) while the library holds sessions of the quick listing
        self.reading: tuple[int, int] | None = None
        self._later_styles = False  # LATER_CSS_PATH read
        self.mask_secrets = False  # screen sharing: secrets shown masked (`M`), the title says so

    # -- lifecycle ---------------------------------------------------------------------------
    def get_default_screen(self) -> Screen[Any]:
        from sessionscope.tui.screens.main import MainScreen

        return MainScreen()

    def on_mount(self) -> None:
        if self.notice:
            from sessionscope.core.text import printable

            self.notify(printable(self.notice), title="sessionscope", timeout=8, markup=False)
        if self._main() is None:  # another first screen (the brief composer): styled from the start
            self.load_styles()
        self._show_first_screen()
        self.load_library()

    @property
    def bookmark_store(self) -> BookmarkStore:
        """The bookmarks (opened at first use: nothing of it before the first frame)."""
        if self._bookmark_store is None:
            from sessionscope.core.bookmarks.store import BookmarkStore, store_path

            self._bookmark_store = BookmarkStore(self._bookmarks_path or store_path())
        return self._bookmark_store

    def load_styles(self) -> None:
        """Read the stylesheets of the screens and panes not shown first (once): after the first
        frame, or before such a screen or pane is made if that comes sooner."""
        if self._later_styles:
            return
        self._later_styles = True
        stylesheet = self.stylesheet
        for path in self.LATER_CSS_PATH:
            stylesheet.read(path)
        if self.css_monitor is not None:  # (textual's --dev reloads them too)
            self.css_monitor.add_paths(self.LATER_CSS_PATH)
        stylesheet.parse()  # (the sources read before are not parsed again)
        stylesheet.update(self)

    def push_screen(self, *args: Any, **kwargs: Any) -> Any:
        self.load_styles()
        return super().push_screen(*args, **kwargs)

    def _show_first_screen(self) -> None:
        """The newest sessions in the catalog, shown in the first frame: reading all of a 20k
        session catalog takes ~0.5 s, a screenful a few ms. The library worker reads the rest
        once this has been painted (not before: it would compete with the first frame)."""
        library = self.library
        if not library.all_sessions():  # (a library read before the app is shown as it is)
            try:
                newest = library.load_cached_newest(FIRST_SCREEN)
            except Exception:  # noqa: BLE001 - the worker reads the catalog again and reports it
                newest = 0
            main = self._main()
            if newest:
                self.sessions_loading = True
                if main is not None:
                    main.library_changed()
        self.call_after_refresh(self._after_first_paint)

    def _after_first_paint(self) -> None:
        self.load_styles()
        if self.gc_paused:
            # What startup made (modules, widgets, styles) lives as long as the app: frozen, later
            # collections pass over it rather than through it.
            self.gc_paused = False
            gc.freeze()
            gc.enable()
        self._first_painted.set()

    @work(thread=True, exclusive=True, group="library", exit_on_error=False)
    def load_library(self) -> None:
        """Cached sessions first (the newest screenful is already shown), then a scan that
        confirms them, then the index. Files the catalog does not know (all of them on a first
        launch) are listed from their two ends before the scan parses them, and shown so."""
        self._first_painted.wait(FIRST_PAINT_WAIT)
        try:
            with self._library_lock:
                if self.library.load_cached():
                    self.post_message(self.LibraryScanned(None, cached=True))
                report = None
                if self.rescan or not self.library.all_sessions():
                    report = self.library.scan(self._reading_progress(), quick=True,
                                               interim=lambda state: self.post_message(self.ScanInterim(state)))
            self.post_message(self.LibraryScanned(report))
            self._update_index()
        finally:
            self.library_loaded = True

    def _reading_progress(self) -> Callable[[int, int, int, int], None]:
        """The scan's progress callback: once it has shown listed sessions, the files read so
        far, at most every READING_INTERVAL seconds."""
        last = 0.0

        def progress(done: int, total: int, _bytes: int, _total_bytes: int) -> None:
            nonlocal last
            if self.reading is None:  # (read in the scan's thread: a step late at worst)
                return
            now = time.monotonic()
            if now - last >= READING_INTERVAL:
                last = now
                self.post_message(self.ScanProgressed(done, total))
        return progress

    def _update_index(self) -> None:
        from sessionscope.core.search.index import SearchIndex

        with self._library_lock:
            index = SearchIndex(self.index_dir, tool_result_cap=self.tool_result_cap)
            self.index = index
            report = index.update(
                self.library,
                lambda p: self.post_message(self.IndexProgressed(p)),
                cancelled=lambda: not self.is_running,
            )
        self.post_message(self.IndexUpdated(index.index.searcher().num_docs, index.messages + report.messages))

    def memory_items(self) -> list[MemoryItem]:
        """Every memory file of the known projects (called from the memory pane's worker)."""
        if self._memory is not None:
            return self._memory()
        from sessionscope.core.memory.places import discover_memory

        projects, roots = self._memory_places()
        return discover_memory(projects, roots, memory_dirs=self.memory_dirs,
                               home=None if self.now else str(Path.home()))

    def memory_looked_in(self) -> str:
        """Where `memory_items` looks, in a sentence (the memory pane says it when it finds nothing)."""
        if self._memory is not None:
            return "Looked in the demo's project folders."
        from sessionscope.core.memory.places import describe_places

        projects, roots = self._memory_places()
        return describe_places(projects, roots, self.memory_dirs, self.cwd)

    def _memory_places(self) -> tuple[list[str], list[str]]:
        """Where `sessionscope memory list` looks: the folder the app started in, the sessions'
        projects, the readable roots."""
        from sessionscope.core.memory.places import memory_places

        return memory_places((s.project for s in self.library.all_sessions() if s.project),
                             (r.path for r in self.library.roots if r.error is None), self.cwd)

    # -- live ----------------------------------------------------------------------------------
    def start_watching(self) -> None:
        """Watch the roots (once; after the first scan, so the watcher knows every file)."""
        from sessionscope.core.live.watch import Watcher

        if self.watcher is not None or not self.watch_files:
            return
        extra = list(self.memory_dirs)
        if self._memory is None:  # the known projects' memory folders (the demo names its own)
            from sessionscope.core.memory.places import watched_memory_dirs

            extra += watched_memory_dirs(self._memory_places()[0])
        self.watcher = Watcher(self.library, poll=self.poll, lock=self._library_lock, extra=extra)
        self._watch(self.watcher)
        self._index_live(self.watcher)

    @work(thread=True, exclusive=True, group="watch", exit_on_error=False)
    def _watch(self, watcher: Watcher) -> None:
        """Blocks on the file system; each batch goes to the screens, and makes an index update due."""
        for events in watcher.batches():
            self.post_message(self.SessionsChanged(events))
            self._index_due.set()

    @work(thread=True, exclusive=True, group="watch-index", exit_on_error=False)
    def _index_live(self, watcher: Watcher) -> None:
        """Brings the index up to date with the watcher's changes (see the module docstring)."""
        due, stop = self._index_due, watcher.stop
        while True:
            due.wait()
            if stop.is_set():
                return
            due.clear()
            with self._library_lock:
                index = self.index
                if index is None:
                    continue
                # Only the files the watcher changed: not a comparison of every file's state
                report = index.update(self.library, cancelled=stop.is_set, paths=watcher.take_changed())
                documents = index.index.searcher().num_docs
            if report.docs_added or report.files_dropped or report.messages:
                self.post_message(self.IndexUpdated(documents, report.messages))
            if stop.wait(INDEX_INTERVAL):  # changes meanwhile are taken together next time
                return

    def on_session_scope_app_sessions_changed(self, event: SessionsChanged) -> None:
        self._live.extend(event.events)
        if not self._live_scheduled:  # once for everything queued until then
            self._live_scheduled = True
            self.call_later(self._show_live)

    def _show_live(self) -> None:
        from sessionscope.core.live.tracker import Change
        from sessionscope.tui.screens.transcript import TranscriptScreen

        events, self._live, self._live_scheduled = self._live, [], False
        main = self._main()
        if main is not None and any(e.kind is Change.MEMORY for e in events):
            main.memory_changed()
        if not any(e.kind is not Change.MEMORY for e in events):
            return
        if main is not None:
            main.sessions_changed()
        for screen in self.screen_stack:
            if isinstance(screen, TranscriptScreen):
                screen.sessions_changed(events)

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state is not WorkerState.ERROR:
            return
        if event.worker.group == "watch":
            hint = "" if self.poll else " (on a network file system, or out of inotify watches, try --poll)"
            self.notify(f"live updates stopped: {event.worker.error}{hint}", severity="warning", timeout=10)
        elif event.worker.group == "watch-index":
            self.notify(f"the index stopped following changes: {event.worker.error}", severity="warning",
                        timeout=10)
        elif event.worker.group == "library":
            self.notify(f"reading the sessions failed: {event.worker.error}", severity="error", timeout=10)

    def search(self, query: str, limit: int = 200) -> SearchResult:
        """The index's answer (called from the search pane's worker thread)."""
        if self.index is None:
            from sessionscope.core.search.hits import SearchResult
            from sessionscope.core.search.query import parse

            return SearchResult([], "pending", parse(query, self.now))
        from sessionscope.core.secrets import masking

        with masking(self.mask_secrets):  # previews cut from the masked text
            return self.index.search(query, limit=limit, now=self.now)

    # -- forwarded to the main screen -----------------------------------------------------------
    def _main(self) -> Any:
        from sessionscope.tui.screens.main import MainScreen

        for screen in self.screen_stack:
            if isinstance(screen, MainScreen):
                return screen
        return None

    def on_session_scope_app_scan_interim(self, event: ScanInterim) -> None:
        self.reading = (event.state.files_done, event.state.files_total)
        main = self._main()
        if main is not None:
            main.sessions_changed()  # (rebuilds of a long list are spaced out there)
            main.reading_progressed(*self.reading)

    def on_session_scope_app_scan_progressed(self, event: ScanProgressed) -> None:
        if self.reading is None:  # the scan has ended meanwhile
            return
        self.reading = (event.files_done, event.files_total)
        main = self._main()
        if main is not None:
            main.reading_progressed(*self.reading)

    def on_session_scope_app_library_scanned(self, event: LibraryScanned) -> None:
        self.sessions_loading = False
        if not event.cached:
            self.reading = None
        main = self._main()
        if main is not None:
            main.library_changed()
        if not event.cached:
            # The library as scanned lives as long as the app (a 20k-session one is ~300k
            # objects): frozen, the GC's full passes stop walking it, each of which would
            # otherwise stall the UI for tens of milliseconds from now on. (Unfrozen on unmount.)
            gc.freeze()
            self.start_watching()
        if event.report and event.report.errors:
            self.notify(f"{len(event.report.errors)} file(s), folder(s) or root(s) could not be read: "
                        f"{event.report.errors[0]}", severity="warning", timeout=8, markup=False)
        for note in event.report.skipped if event.report else ():  # links out, /proc, the bound
            self.notify(note, severity="warning", timeout=8, markup=False)

    def on_session_scope_app_index_progressed(self, event: IndexProgressed) -> None:
        self.indexing = event.progress
        main = self._main()
        if main is not None:
            main.index_progressed(event.progress)

    def on_session_scope_app_index_updated(self, event: IndexUpdated) -> None:
        self.indexing = None
        main = self._main()
        if main is not None:
            main.index_updated(event.documents)
        for m in event.messages:
            self.notify(m, severity="warning", timeout=8)

    def on_unmount(self) -> None:
        self._first_painted.set()  # a library worker still waiting for it goes on (to its end)
        gc.unfreeze()  # what was frozen can be collected once the app is gone (tests run many)
        if self.watcher is not None:
            self.watcher.stop.set()  # its thread sees it within one watchfiles step
            self._index_due.set()  # wakes the index thread to see it
        if self.index is not None:
            # Not while the watcher (or the first build, cancelled by now) is writing to it.
            if self._library_lock.acquire(timeout=5):
                try:
                    self.index.close()
                finally:
                    self._library_lock.release()

    # -- actions ---------------------------------------------------------------------------------
    def action_toggle_mask_secrets(self) -> None:
        """Secrets masked on screen (for screen sharing), or shown as written again: the
        transcripts, search results and previews are drawn again; the title says while it is on."""
        from sessionscope.tui.widgets.search_pane import SearchPane

        self.mask_secrets = not self.mask_secrets
        self.title = self.MASKED_TITLE if self.mask_secrets else self.TITLE
        for screen in self.screen_stack:
            for view in screen.query("TranscriptView, SessionList, SearchResults"):
                view.notify_style_update()  # (drops their rendered lines, the transcript's painter)
                view.refresh()
            for pane in screen.query(SearchPane):
                pane.search_again()
            if hasattr(screen, "retitle"):
                screen.retitle()
            screen.refresh()
        self.notify("secrets masked on screen (M shows them)" if self.mask_secrets else "secrets shown as written",
                    title="Mask secrets", timeout=3)

    def action_help(self) -> None:
        if self.screen.query("HelpPanel"):
            self.action_hide_help_panel()
        else:
            self.action_show_help_panel()

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """Textual's commands, then every action the screen offers now: the bindings of the
        focused widget and its ancestors, the ones hidden from the footer too (expand all, pager,
        editor, copy resume command…), each once, with its key; not the cursor movements."""
        yield from super().get_system_commands(screen)
        yield SystemCommand("Show secrets" if self.mask_secrets else "Mask secrets",
                            "Secrets as written, or masked for screen sharing (M)", self.action_toggle_mask_secrets)
        seen: set[str] = set()
        for key, active in screen.active_bindings.items():
            binding, node = active.binding, active.node
            title = binding.description
            if (not active.enabled or not title or title in seen or key in _MOVES
                    or binding.action in _APP_COMMANDS or node is self):
                continue
            seen.add(title)

            def run(action: str = binding.action, node: Any = node) -> None:
                self.call_later(node.run_action, action)

            # The palette shows the help under the title: the key alone, or each command would
            # read as two ("Copy", then "Copy (y)").
            shown = binding.key_display or self.get_key_display(binding)
            yield SystemCommand(title, f"key: {shown}", run)


# Keys that move a cursor or scroll: not commands. (The app's own bindings, help and quit, are
# in Textual's command list already.)
_MOVES = frozenset(("up", "down", "left", "right", "j", "k", "pageup", "pagedown", "home", "end", "g", "G",
                    "tab", "shift+tab"))
_APP_COMMANDS = frozenset(("help", "quit", "command_palette"))
