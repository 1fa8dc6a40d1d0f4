"""Bookmarks in the app: m in the reader bookmarks the entry under the cursor (★ in its margin)
with a note, m again edits or removes it; m in the session list bookmarks the session; the
Bookmarks tab (4) lists them newest first and opens one at its entry; d deletes one."""
from __future__ import annotations

from dataclasses import replace
from datetime import timedelta
from pathlib import Path

from app_factory import NOW, settle, warm_app

from sessionscope.core.bookmarks.anchor import bookmark_of
from sessionscope.core.bookmarks.store import Bookmark, BookmarkStore, store_path
from sessionscope.tui.screens.bookmark_note import BookmarkNoteScreen
from sessionscope.tui.screens.transcript import TranscriptScreen
from sessionscope.tui.widgets.bookmark_list import BookmarkList
from sessionscope.tui.widgets.transcript_view import TranscriptView

SIZE = (120, 36)


async def _type(pilot, text: str) -> None:  # noqa: ANN001
    await pilot.press(*[{" ": "space"}.get(c, c) for c in text])


async def test_bookmark_an_entry_see_it_in_the_tab_and_open_it_there(tmp_path: Path) -> None:
    app = warm_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("enter")  # the first session
        await settle(pilot)
        view = app.screen.query_one(TranscriptView)
        await pilot.press("j", "j")
        entry = view.highlighted_entry
        assert entry is not None and not view.is_bookmarked(entry)
        await pilot.press("m")
        await pilot.pause()
        assert isinstance(app.screen, BookmarkNoteScreen)
        await _type(pilot, "check this")
        await pilot.press("enter")
        await pilot.pause()
        assert view.is_bookmarked(entry)
        [kept] = app.bookmark_store.all()
        assert (kept.entry_id, kept.note) == (entry.id, "check this")
        await pilot.press("g")  # away from it, then the Bookmarks tab opens it where it is
        await pilot.press("escape", "4")
        await settle(pilot)
        listing = app.screen.query_one(BookmarkList)
        assert listing.has_focus and [b.id for b in listing.bookmarks] == [kept.id]
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, TranscriptScreen)
        assert app.screen.query_one(TranscriptView).highlighted_entry.id == entry.id
        # m on the bookmarked entry: its note to edit, ctrl+r removes it
        await pilot.press("m")
        await pilot.pause()
        assert isinstance(app.screen, BookmarkNoteScreen) and app.screen.note == "check this"
        await pilot.press("ctrl+r")
        await pilot.pause()
        assert app.bookmark_store.all() == []
        assert not app.screen.query_one(TranscriptView).is_bookmarked(entry)


async def test_m_in_the_session_list_bookmarks_the_session_and_d_deletes_it(tmp_path: Path) -> None:
    app = warm_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("j", "m")
        await pilot.pause()
        await _type(pilot, "whole")
        await pilot.press("enter")
        await pilot.pause()
        [kept] = app.bookmark_store.all()
        assert kept.entry_id is None and kept.note == "whole"
        await pilot.press("4")
        await settle(pilot)
        await pilot.press("d")
        await settle(pilot)
        assert app.bookmark_store.all() == []
        assert app.screen.query_one(BookmarkList).bookmarks == []


async def test_a_bookmark_whose_session_is_gone_says_so_and_opens_nothing(tmp_path: Path) -> None:
    store = BookmarkStore(store_path())
    store.add(Bookmark(agent="codex", session_id="gone-1", path="/nowhere/x.jsonl", entry_id="L3", line=3,
                       hash="0" * 12, role="user", excerpt="saved words", title="old session"))
    app = warm_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("4")
        await settle(pilot)
        listing = app.screen.query_one(BookmarkList)
        state = listing.state_of(listing.bookmarks[0])
        assert state is not None and not state.found
        await pilot.press("enter")
        await settle(pilot)
        assert not isinstance(app.screen, TranscriptScreen)


def _seed(tmp_path: Path) -> None:
    """Three bookmarks at fixed times: an entry with a note holding markup and an escape, a
    session, and one whose session is gone."""
    app = warm_app(tmp_path)
    lib = app.library
    lib.scan()
    main = lib.sessions()
    store = BookmarkStore(store_path())
    first = main[0]
    entry = lib.load(first).entries[1]
    store.add(Bookmark(agent="codex", session_id="gone-1", path="/nowhere/x.jsonl", entry_id="L3", line=3,
                       hash="0" * 12, role="user", excerpt="run the [red]migration[/red] \x1b[2J now",
                       title="an old session", note="was about the migration"), now=NOW - timedelta(days=3))
    store.add(bookmark_of(main[1], None, "whole session: the legend fix"), now=NOW - timedelta(hours=5))
    store.add(replace(bookmark_of(first, entry, "[b]not bold[/b] \x1b[31m not red"), created_at=None),
              now=NOW - timedelta(minutes=20))


def test_snapshot_bookmarks_tab(snap_compare, tmp_path: Path) -> None:  # noqa: ANN001
    _seed(tmp_path / "seed")

    async def run_before(pilot) -> None:  # noqa: ANN001
        await settle(pilot)
        await pilot.press("4")
        await settle(pilot)

    assert snap_compare(warm_app(tmp_path / "seed"), terminal_size=SIZE, run_before=run_before)


async def test_a_bookmark_on_a_tool_result_marks_and_opens_its_call(tmp_path: Path) -> None:
    """`bookmarks add ID#RESULT` names a tool result, which the reader shows inside its call's
    line: that line gets the ★, and the tab opens the transcript there."""
    from sessionscope.core.model import EntryKind

    app = warm_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        session = next(s for s in app.library.sessions() if (s.title or "").startswith("Refactor the retry"))
        entries = app.library.load(session).entries
        result = [e for e in entries if e.kind is EntryKind.TOOL_RESULT][1]
        app.bookmark_store.add(bookmark_of(session, result, "its output"))
        await pilot.press("4")
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        view = app.screen.query_one(TranscriptView)
        item = view.highlighted_item
        assert item is not None and item.result is not None and item.result.id == result.id
        assert view.bookmarked_entry(item) == item.result
        await pilot.press("m")  # the bookmark there is the result's: its note to edit
        await pilot.pause()
        assert isinstance(app.screen, BookmarkNoteScreen) and app.screen.note == "its output"


async def test_a_bookmark_whose_entry_is_gone_opens_its_session_at_the_start(tmp_path: Path) -> None:
    app = warm_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        session = app.library.sessions()[0]
        app.bookmark_store.add(Bookmark(agent=session.agent, session_id=session.id, path=session.path,
                                        entry_id="L999", line=999, hash="f" * 12, role="user",
                                        excerpt="what was said then"))
        await pilot.press("4")
        await settle(pilot)
        listing = app.screen.query_one(BookmarkList)
        state = listing.state_of(listing.bookmarks[0])
        assert state is not None and state.state.value == "entry not found"
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, TranscriptScreen) and app.screen.session.id == session.id
        assert app.screen.entry_id is None  # at its start, a notice saying why


def test_the_apps_launch_imports_nothing_of_bookmarks(tmp_path: Path) -> None:
    """Building the app and its main screen reads no bookmark and imports none of their modules:
    the Bookmarks pane, its list and the store come after the first frame."""
    import os
    import subprocess
    import sys

    root = tmp_path / "root"
    root.mkdir()
    code = ("import sys, argparse\n"
            "from sessionscope.cli.app import build_app\n"
            "import sessionscope.tui.screens.main\n"
            "app = build_app(argparse.Namespace(root=[sys.argv[1]], demo=False, poll=False, memory_dir=[]))\n"
            "print(app._bookmarks_path.name, sorted(m for m in sys.modules if 'bookmark' in m))\n")
    env = {**os.environ, "SESSIONSCOPE_CACHE_DIR": str(tmp_path / "cache"),
           "SESSIONSCOPE_CONFIG": str(tmp_path / "none.toml"), "HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", code, str(root)], capture_output=True, text=True, env=env)
    assert done.stdout.strip() == "bookmarks.sqlite []", done.stdout + done.stderr
