"""A cold first launch (no catalog yet): the sessions are listed from their files' two ends at
once, marked as such, while the scan reads the files; then the parsed sessions replace them. The
scan is held before each file it parses (a semaphore the test releases), never timed."""
from __future__ import annotations

import asyncio
import contextlib
import threading
from pathlib import Path
from typing import Any, AsyncIterator, Awaitable, Callable

import pytest
from app_factory import NOW, make_app, settle
from textual.pilot import Pilot

from sessionscope.core.catalog.store import Catalog
from sessionscope.core.read.discovery import Root
from sessionscope.core.catalog.library import Library, ListedSession
from sessionscope.tui.app import SessionScopeApp
from sessionscope.tui.screens.transcript import TranscriptScreen
from sessionscope.tui.widgets.session_list import HEADER_LINES, SessionList

SIZE = (120, 36)


class Held:
    """Holds the scan before it parses each file: `step()` lets one file through, `release()`
    all of them (as the app's unmount does, so that no test leaves a scan waiting)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self._files = threading.Semaphore(0)
        load = Library._load_file

        def held(lib: Library, path: str, st: Any, *rest: Any) -> Any:
            self._files.acquire()
            return load(lib, path, st, *rest)

        monkeypatch.setattr(Library, "_load_file", held)
        unmount = SessionScopeApp.on_unmount

        def on_unmount(app: SessionScopeApp) -> None:
            self.release()
            unmount(app)

        monkeypatch.setattr(SessionScopeApp, "on_unmount", on_unmount)

    def step(self) -> None:
        self._files.release()

    def release(self) -> None:
        self._files.release(1 << 20)


class Handled:
    """Counts the app's handling of one message (the handler has run when `wait` returns)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, handler: str) -> None:
        self.count = 0
        self._changed: asyncio.Event | None = None
        original = getattr(SessionScopeApp, handler)

        def handled(app: SessionScopeApp, event: Any) -> None:
            original(app, event)
            self.count += 1
            if self._changed is not None:
                self._changed.set()

        monkeypatch.setattr(SessionScopeApp, handler, handled)

    async def wait(self, count: int = 1) -> None:
        while self.count < count:
            self._changed = asyncio.Event()
            await asyncio.wait_for(self._changed.wait(), 10)


def _lines(widget: SessionList) -> list[str]:
    return [widget.render_line(y).text for y in range(widget.scrollable_content_region.height)]


@contextlib.asynccontextmanager
async def _listed(app: SessionScopeApp, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[tuple[Pilot, Held]]:
    """The app running with its scan held before the first file it parses, once the quick
    listing is shown; released (and settled) on leaving."""
    held = Held(monkeypatch)
    interim = Handled(monkeypatch, "on_session_scope_app_scan_interim")
    async with app.run_test(size=SIZE) as pilot:
        await interim.wait()
        await pilot.pause()
        yield pilot, held
        held.release()
        await settle(pilot)


def _expected(app: SessionScopeApp) -> Library:
    """The library as a full scan of the same roots makes it (in a catalog of its own)."""
    full = Library(app.library.roots, catalog=Catalog(None))
    full.scan()
    return full


async def test_listed_first_then_the_scan_fills_in_the_counts(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    app = make_app(tmp_path)
    expected = _expected(app)
    tops = expected.sessions()
    async with _listed(app, monkeypatch) as (pilot, held):
        listing = app.screen.query_one(SessionList)
        rows = listing.rows
        assert rows and all(isinstance(r.session, ListedSession) for r in rows)
        # The same top-level sessions as the full scan's, children hidden, newest first.
        assert [r.session.id for r in rows] == [s.id for s in tops]
        lines = _lines(listing)
        files = len(expected.rows)
        assert lines[0].strip() == (f"{len(tops)} sessions · reading 0 of {files} files · "
                                    "entries and tokens follow")
        for row, line in zip(rows, lines[HEADER_LINES:]):
            title = (row.session.title or "(untitled)")[:20]
            assert line.lstrip().startswith(title)
            assert line.split()[-2:] == ["…", "…"]  # entries and tokens still to come
        assert app.screen.sub_title == "loading sessions…"

        await pilot.press("down", "down")
        kept = listing.highlighted_session
        assert isinstance(kept, ListedSession)
        held.release()
        await settle(pilot)
        rows = listing.rows
        assert not any(isinstance(r.session, ListedSession) for r in rows)
        assert [r.session.id for r in rows] == [s.id for s in tops]
        assert listing.highlighted_session.id == kept.id and listing.cursor == 2
        lines = _lines(listing)
        for row, line in zip(rows, lines[HEADER_LINES:]):
            assert "…" not in line.split()[-2:]
            assert f"{row.session.entry_count:,}" in line.split()
        assert "reading" not in lines[0] and app.screen.sub_title == "2 roots"


async def test_the_counts_line_follows_the_files_read(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sessionscope.tui.app.READING_INTERVAL", 0)
    app = make_app(tmp_path)
    files = len(_expected(app).rows)
    held = Held(monkeypatch)
    interim = Handled(monkeypatch, "on_session_scope_app_scan_interim")
    progressed = Handled(monkeypatch, "on_session_scope_app_scan_progressed")
    async with app.run_test(size=SIZE) as pilot:
        await interim.wait()
        listing = app.screen.query_one(SessionList)
        for done in (1, 2):
            held.step()
            await progressed.wait(done)
            await pilot.pause()
            assert f"· reading {done} of {files} files ·" in _lines(listing)[0]
        held.release()
        await settle(pilot)
        assert "reading" not in _lines(listing)[0]


def _app_over(tmp_path: Path, files: dict[str, bytes]) -> SessionScopeApp:
    root = tmp_path / "projects"
    for name, data in files.items():
        (root / "p").mkdir(parents=True, exist_ok=True)
        (root / "p" / name).write_bytes(data)
    library = Library([Root(str(root), "--root", explicit=True)], catalog=Catalog(tmp_path / "c.sqlite"))
    return SessionScopeApp(library, index_dir=tmp_path / "index", now=NOW)


async def _empty_message(app: SessionScopeApp, until: Callable[[], Awaitable[object]],
                         release: Callable[[], None]) -> tuple[str, str]:
    """What the empty list says once `until()` is done, and after `release()` and the scan."""
    async with app.run_test(size=SIZE) as pilot:
        await until()
        await pilot.pause()
        listing = app.screen.query_one(SessionList)
        during = _lines(listing)[HEADER_LINES].strip()
        release()
        await settle(pilot)
        return during, _lines(listing)[HEADER_LINES].strip()


async def test_an_empty_list_says_what_is_happening(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Before the files are even found: loading. (The whole scan held.)
    started, go = threading.Event(), threading.Event()
    scan = Library.scan

    def held_scan(lib: Library, *args: Any, **kwargs: Any) -> Any:
        started.set()
        go.wait(10)
        return scan(lib, *args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(Library, "scan", held_scan)
        app = _app_over(tmp_path / "a", {})
        assert await _empty_message(app, lambda: asyncio.to_thread(started.wait, 10), go.set) == (
            "Loading sessions…", "No sessions")

    # A file the quick listing cannot read: no row, but the scan says it is reading it.
    held = Held(monkeypatch)
    interim = Handled(monkeypatch, "on_session_scope_app_scan_interim")
    app = _app_over(tmp_path / "b", {"garbage.jsonl": b"\x00\xff not json\n" * 3})
    assert await _empty_message(app, interim.wait, held.release) == ("Reading 0 of 1 file…", "No sessions")


async def test_a_listed_session_opens_its_transcript(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app = make_app(tmp_path)
    async with _listed(app, monkeypatch) as (pilot, _):
        listed = app.screen.query_one(SessionList).highlighted_session
        assert isinstance(listed, ListedSession)
        await pilot.press("enter")
        screen = app.screen
        assert isinstance(screen, TranscriptScreen) and screen.session is listed
        await app.workers.wait_for_complete([screen.view._loader])
        await pilot.pause()
        want = app.library.load(listed).entries  # the file, read whole
        assert screen.view.loaded and screen.view.error is None
        assert {i.entry.id for i in screen.view.model.items} <= {e.id for e in want}
        assert screen.view.model.items
        facts = str(screen.query_one("#transcript-facts").render())
        # Not the listed session's unknown count ("0 entries"): the header counts what the view read.
        from sessionscope.core.catalog.library import conversation

        assert f" {len(conversation(list(want)))} entries" in facts and " 0 entries" not in facts


def test_snapshot_cold_start_listing(snap_compare, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    Held(monkeypatch)  # released when the app ends
    interim = Handled(monkeypatch, "on_session_scope_app_scan_interim")

    async def run_before(pilot) -> None:  # noqa: ANN001
        await interim.wait()
        await pilot.pause()

    assert snap_compare(make_app(tmp_path), terminal_size=SIZE, run_before=run_before)


def _parsed(n: int, hours: int | None) -> Any:
    """A parsed session of file `/r/p/N.jsonl`, last active `hours` before NOW (None: no time)."""
    from datetime import timedelta

    from sessionscope.core.model import Session

    return Session(id=f"s{n}", agent="claude-code", source_format="claude-code",
                   paths=(f"/r/p/{n}.jsonl",), title=f"session {n}", entry_count=n + 1,
                   last_timestamp=None if hours is None else NOW - timedelta(hours=hours))


def _list_app() -> Any:
    """An app showing a SessionList alone, loading."""
    from textual.app import App, ComposeResult

    class ListApp(App[None]):
        def compose(self) -> ComposeResult:
            yield SessionList(now=NOW, loading=True)

    return ListApp()


async def test_the_cursor_follows_a_listed_session_whose_id_was_its_path() -> None:
    """The ends of a file may not show its session id (the listed session's id is then the
    path): the cursor stays on that file's row when the parsed session replaces it."""
    from datetime import timedelta

    from sessionscope.core.model import Session

    def listed(n: int, sid: str | None = None) -> ListedSession:
        path = f"/r/p/{n}.jsonl"
        return ListedSession(id=sid or path, agent="claude-code", source_format="claude-code",
                             paths=(path,), title=f"session {n}", size=10,
                             last_timestamp=NOW - timedelta(hours=n), unsure=frozenset({"session_id"}))

    def parsed(n: int) -> Session:
        return _parsed(n, n)

    app = _list_app()
    async with app.run_test(size=SIZE) as pilot:
        widget = app.query_one(SessionList)
        widget.set_sessions([listed(n) for n in range(4)], complete=False, reading=(0, 4))
        await pilot.press("down", "down")
        assert widget.highlighted_session.path == "/r/p/2.jsonl"
        # Two files read: a new session comes first, so the rows move under the cursor.
        newer = Session(id="new", agent="codex", source_format="codex", paths=("/r/q/new.jsonl",),
                        last_timestamp=NOW)
        widget.set_sessions([newer, parsed(0), listed(1), parsed(2), listed(3)], complete=False,
                            reading=(2, 5))
        assert widget.highlighted_session == parsed(2) and widget.cursor == 3
        widget.set_reading(3, 5)
        assert _lines(widget)[0].strip() == "5 sessions · reading 3 of 5 files · entries and tokens follow"
        widget.set_sessions([newer, *(parsed(n) for n in range(4))])
        assert widget.highlighted_session == parsed(2)
        assert _lines(widget)[0].strip() == "5 sessions · 2 agents · 0 projects"


async def test_a_cursor_never_moved_stays_on_the_first_row_while_the_sessions_are_read() -> None:
    """On a first start the quick listing's first row may sort elsewhere once its file is
    parsed (a session without a time: last): nobody chose it, so the cursor stays on the first
    row; once moved, it follows its session (above), and once the list is complete it does too."""
    parsed = _parsed
    app = _list_app()
    async with app.run_test(size=SIZE) as pilot:
        widget = app.query_one(SessionList)
        widget.set_sessions([parsed(0, 0), parsed(1, 1), parsed(2, 2)], complete=False, reading=(1, 3))
        widget.set_sessions([parsed(1, 1), parsed(2, 2), parsed(0, None)], complete=False, reading=(2, 3))
        assert widget.cursor == 0 and widget.highlighted_session == parsed(1, 1)
        widget.set_sessions([parsed(2, 2), parsed(1, 3), parsed(0, None)])  # (complete: read)
        assert widget.cursor == 0 and widget.highlighted_session == parsed(2, 2)
        # complete now: the session under the cursor is followed (a live update re-sorting)
        widget.set_sessions([parsed(1, 1), parsed(2, 2), parsed(0, None)])
        assert widget.highlighted_session == parsed(2, 2) and widget.cursor == 1
        await pilot.pause()


async def test_resume_from_a_listed_session_only_with_its_id_and_project(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from dataclasses import replace

    app = make_app(tmp_path)
    async with _listed(app, monkeypatch) as (pilot, _):
        listing = app.screen.query_one(SessionList)
        listed = listing.highlighted_session
        assert isinstance(listed, ListedSession) and not listed.unsure & {"session_id", "project"}
        await pilot.press("ctrl+r")
        assert app.clipboard == f"cd {listed.project} && claude --resume {listed.id}"
        # A file whose ends did not show its session id: no command from a guess.
        unsure = replace(listed, id=listed.path, unsure=listed.unsure | {"session_id"})
        listing.set_sessions([unsure], complete=False, reading=(0, 1))
        app.copy_to_clipboard("")
        await pilot.press("ctrl+r")
        assert app.clipboard == ""
        assert any("still being read" in n.message for n in app._notifications)
