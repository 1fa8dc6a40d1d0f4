"""The Textual app: a thin shell that owns the library and the index and hands work to screens."""
from __future__ import annotations

import argparse
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Iterable

from textual import work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.message import Message
from textual.screen import Screen

from sessionscope.core.index import Progress, SearchIndex, SearchResult
from sessionscope.core.library import Library, ScanReport

STYLES = Path(__file__).resolve().parent.parent / "styles"


class SessionScopeApp(App[None]):
    """Sessions, transcripts and search over the agents' history."""

    TITLE = "sessionscope"
    CSS_PATH = sorted(str(p) for p in STYLES.glob("*.tcss"))
    BINDINGS = [
        Binding("question_mark", "help", "Keys", id="app.help"),
        Binding("q", "quit", "Quit", id="app.quit"),
    ]

    @dataclass
    class LibraryScanned(Message):
        report: ScanReport | None

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
        notice: str | None = None,
        rescan: bool = True,
    ) -> None:
        super().__init__()
        self.library = library
        self.index_dir = index_dir
        self.index: SearchIndex | None = None
        self.now = now  # frozen clock for snapshots; None means the real time
        self.watch_files = watch
        self.notice = notice
        self.rescan = rescan
        self.indexing: Progress | None = None

    # -- lifecycle ---------------------------------------------------------------------------
    def get_default_screen(self) -> Screen[Any]:
        from sessionscope.tui.screens.main import MainScreen

        return MainScreen()

    def on_mount(self) -> None:
        if self.notice:
            self.notify(self.notice, title="sessionscope", timeout=8)
        self.load_library()

    @work(thread=True, exclusive=True, group="library", exit_on_error=False)
    def load_library(self) -> None:
        """Cached sessions first (instant), then a scan that confirms them, then the index."""
        if self.library.load_cached():
            self.post_message(self.LibraryScanned(None))
        report = self.library.scan() if self.rescan or not self.library.all_sessions() else None
        self.post_message(self.LibraryScanned(report))
        self._update_index()

    def _update_index(self) -> None:
        index = SearchIndex(self.index_dir) if self.index_dir else SearchIndex(None)
        self.index = index
        report = index.update(
            self.library,
            lambda p: self.post_message(self.IndexProgressed(p)),
            cancelled=lambda: not self.is_running,
        )
        self.post_message(self.IndexUpdated(index.index.searcher().num_docs, index.messages + report.messages))

    def search(self, query: str, limit: int = 200) -> SearchResult:
        """The index's answer (called from the search pane's worker thread)."""
        if self.index is None:
            from sessionscope.core.query import parse

            return SearchResult([], "pending", parse(query, self.now))
        return self.index.search(query, limit=limit, now=self.now)

    # -- forwarded to the main screen -----------------------------------------------------------
    def _main(self) -> Any:
        from sessionscope.tui.screens.main import MainScreen

        for screen in self.screen_stack:
            if isinstance(screen, MainScreen):
                return screen
        return None

    def on_session_scope_app_library_scanned(self, event: LibraryScanned) -> None:
        main = self._main()
        if main is not None:
            main.library_changed()
        if event.report and event.report.errors:
            self.notify(f"{len(event.report.errors)} file(s) or root(s) could not be read: "
                        f"{event.report.errors[0]}", severity="warning", timeout=8)

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
        if self.index is not None:
            self.index.close()

    # -- actions ---------------------------------------------------------------------------------
    def action_help(self) -> None:
        if self.screen.query("HelpPanel"):
            self.action_hide_help_panel()
        else:
            self.action_show_help_panel()

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        for binding in screen.BINDINGS:
            if isinstance(binding, Binding) and binding.description and binding.show:
                action = binding.action

                def run(action: str = action, screen: Screen[Any] = screen) -> None:
                    self.call_later(screen.run_action, action)

                yield SystemCommand(binding.description, f"{binding.description} ({binding.key})", run)


def build_app(args: argparse.Namespace) -> SessionScopeApp:
    """The app over the CLI's roots; the demo corpus when asked or when no history exists."""
    from sessionscope.cli import demo_roots
    from sessionscope.core.catalog import Catalog
    from sessionscope.core.config import cache_dir, load_config
    from sessionscope.core.discovery import Root, resolve_roots

    config = load_config()
    notice = None
    roots = resolve_roots(args.root, config.roots, config.default_roots)
    if args.demo or not any(r.error is None for r in roots):
        if not args.demo:
            looked = ", ".join(r.path for r in roots[:3])
            notice = f"No agent history found (looked in {looked}, …): showing the built-in demo corpus."
        roots = [Root(p, "demo") for p in demo_roots()]
    missing = [r for r in roots if r.explicit and r.error]
    if missing:
        notice = "; ".join(r.error or "" for r in missing)
    base = cache_dir()
    library = Library(roots, catalog=Catalog(base / "catalog.sqlite"))
    return SessionScopeApp(library, index_dir=base / "index", notice=notice)


def run_app(args: argparse.Namespace) -> int:
    build_app(args).run()
    return 0
