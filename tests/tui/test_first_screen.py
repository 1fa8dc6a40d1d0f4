"""Startup over a warm catalog: the newest sessions are on screen before the rest of the catalog
is read (the list says it is loading meanwhile), then the whole list; the search and memory
panes are built after the first frame, or at once when their tab is asked for."""
from __future__ import annotations

import threading
from pathlib import Path

from app_factory import make_app, settle
from textual.widgets import Input

from sessionscope.core.catalog.store import Catalog
from sessionscope.core.catalog.library import Library, is_child
from sessionscope.tui.app import SessionScopeApp
from sessionscope.tui.screens.main import Holder
from sessionscope.tui.widgets.search_pane import SearchPane
from sessionscope.tui.widgets.session_list import SessionList

SIZE = (120, 36)


def _warm(tmp_path: Path) -> SessionScopeApp:
    """An app whose catalog already holds the demo corpus (as on a second start)."""
    first = make_app(tmp_path)
    first.library.scan()
    first.library.catalog.close()
    app = make_app(tmp_path)
    return app


async def test_newest_first_then_all(tmp_path: Path, monkeypatch) -> None:  # noqa: ANN001
    app = _warm(tmp_path)
    release = threading.Event()
    load_cached = Library.load_cached

    def held(self: Library) -> int:
        release.wait(10)
        return load_cached(self)

    monkeypatch.setattr(Library, "load_cached", held)
    monkeypatch.setattr("sessionscope.tui.app.FIRST_SCREEN", 2)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        listing = app.screen.query_one(SessionList)
        newest = [r.session.id for r in listing.rows]
        assert newest, "the newest sessions are shown before the catalog is read whole"
        assert listing.model.summary[0].strip() == "loading sessions…"
        assert app.screen.sub_title == "loading sessions…"
        release.set()
        await settle(pilot)
        everything = Library(app.library.roots, catalog=Catalog(tmp_path / "catalog.sqlite"))
        everything.load_cached()
        tops = [s.id for s in everything.all_sessions() if not is_child(s)]
        assert [r.session.id for r in listing.rows] == tops
        assert newest == tops[: len(newest)]
        assert "loading" not in listing.model.summary[0]
        assert app.screen.sub_title == "2 roots"


async def test_a_tab_asked_for_before_its_pane_is_built(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        screen.action_show_tab("search")  # possibly before the first frame built the pane
        await settle(pilot)
        pane = screen.query_one(SearchPane)
        assert isinstance(app.focused, Input) and app.focused in pane.query(Input)
        # Each pane made once; the Stats pane only when its tab is shown.
        assert [len(h.children) for h in screen.query(Holder)] == [1, 1, 1, 1, 0]


async def test_the_other_screens_stylesheets_come_after_the_first_frame(tmp_path: Path) -> None:
    """The main screen's first frame parses only its own stylesheets; the transcript's, the
    memory pane's and the composer's are read after it (or before such a screen is shown), and
    then style what they are for. A first screen that needs them has them from the start."""
    from sessionscope.tui.screens.composer import ComposerScreen

    def later_read(app: SessionScopeApp) -> bool:
        read = {path for path, _ in app.stylesheet.source}
        assert app.LATER_CSS_PATH and not {str(p) for p in app.CSS_PATH} - read
        return set(app.LATER_CSS_PATH) <= read

    app = make_app(tmp_path)
    at_mount: list[bool] = []
    show_first = app._show_first_screen
    app._show_first_screen = lambda: (at_mount.append(later_read(app)), show_first())[1]  # type: ignore[method-assign]
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert at_mount == [False] and later_read(app)
        target = app.library.sessions()[0]
        app.screen.open_transcript(target)
        await settle(pilot)
        header = app.screen.query_one("#transcript-header")
        assert header.styles.height is not None and header.styles.height.value == 1  # transcript.tcss

    composer = make_app(tmp_path / "second")
    composer.get_default_screen = lambda: ComposerScreen("a task", None)  # type: ignore[method-assign]
    at_mount.clear()
    show_first = composer._show_first_screen
    composer._show_first_screen = lambda: (at_mount.append(later_read(composer)), show_first())[1]  # type: ignore[method-assign]
    async with composer.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert at_mount == [True]
        top = composer.screen.query_one("#composer-top")
        assert top.styles.padding.left == 1  # composer.tcss
