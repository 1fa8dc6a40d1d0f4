"""The whole app on the demo corpus: panes, search to the exact entry, resume, help, and that
untrusted transcript text never reaches the terminal as markup or escape sequences."""
from __future__ import annotations

from pathlib import Path

import pytest

from app_factory import make_app, settle, warm_app

from sessionscope.tui.app import SessionScopeApp
from sessionscope.tui.screens.main import MainScreen
from sessionscope.tui.screens.transcript import TranscriptScreen
from sessionscope.tui.widgets.search_pane import SearchPane
from sessionscope.tui.widgets.session_list import SessionList
from sessionscope.tui.widgets.transcript_view import TranscriptView

SIZE = (120, 36)


async def _search(pilot, query: str) -> None:  # noqa: ANN001
    await pilot.press("2")
    pane = pilot.app.screen.query_one(SearchPane)
    box = pane.query_one("Input")
    box.cursor_blink = False  # a blinking cursor is drawn or not by the clock: the snapshot would be luck
    box.value = query
    await pilot.press("enter")
    await settle(pilot)


def test_snapshot_main_screen(snap_compare, tmp_path: Path) -> None:  # noqa: ANN001
    assert snap_compare(warm_app(tmp_path), terminal_size=SIZE, run_before=settle)


def test_snapshot_search_in_app(snap_compare, tmp_path: Path) -> None:  # noqa: ANN001
    async def run_before(pilot) -> None:  # noqa: ANN001
        await settle(pilot)
        await _search(pilot, "retry")

    assert snap_compare(warm_app(tmp_path), terminal_size=SIZE, run_before=run_before)


def test_snapshot_help(snap_compare, tmp_path: Path) -> None:  # noqa: ANN001
    async def run_before(pilot) -> None:  # noqa: ANN001
        await settle(pilot)
        await pilot.press("question_mark")
        await pilot.pause()

    assert snap_compare(warm_app(tmp_path), terminal_size=SIZE, run_before=run_before)


def test_snapshot_memory_tab(snap_compare, tmp_path: Path, monkeypatch) -> None:  # noqa: ANN001
    monkeypatch.setenv("HOME", str(tmp_path))  # paths show as ~/demo/…, not the tmp dir
    async def run_before(pilot) -> None:  # noqa: ANN001
        await settle(pilot)
        await pilot.press("3")
        await settle(pilot)

    assert snap_compare(make_app(tmp_path), terminal_size=SIZE, run_before=run_before)


async def test_memory_note_opens_a_session_of_its_time(tmp_path: Path) -> None:
    app = warm_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("3")
        await settle(pilot)
        await pilot.press("tab")  # from the timeline to the sessions around the note's time
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, TranscriptScreen)
        assert app.screen.session.project is not None


async def test_open_a_session_and_come_back(tmp_path: Path) -> None:
    app = warm_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        listing = app.screen.query_one(SessionList)
        first = listing.highlighted_session
        assert first is not None
        await pilot.press("j", "enter")
        await settle(pilot)
        assert isinstance(app.screen, TranscriptScreen)
        assert app.screen.session.id != first.id  # j moved to the second session
        await pilot.press("escape")
        assert isinstance(app.screen, MainScreen)


async def test_search_hit_opens_the_exact_entry(tmp_path: Path) -> None:
    app = warm_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await _search(pilot, "RetryPolicy per-endpoint")
        hits = app.search("RetryPolicy per-endpoint").hits
        assert hits
        await pilot.press("enter")  # into the results, on the first hit
        await pilot.press("enter")  # open it
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, TranscriptScreen)
        view = screen.query_one(TranscriptView)
        assert screen.session.id == hits[0].session_id
        assert view.highlighted_entry is not None and view.highlighted_entry.id == hits[0].entry_id
        # The find highlights a term of the query that the entry holds, not the raw query text.
        assert view.query in ("RetryPolicy", "per-endpoint")
        assert view.query.lower() in view.highlighted_entry.text.lower()


async def test_back_from_a_hit_the_query_box_has_the_focus(tmp_path: Path) -> None:
    """Issue 10, item 21: escape from a transcript opened at a hit goes back to the query box, so
    what is typed next is a query (from the results list, `b` opened the composer)."""
    from textual.widgets import Input

    app = warm_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await _search(pilot, "RetryPolicy per-endpoint")
        await pilot.press("enter", "enter")  # into the results, open the first hit
        await settle(pilot)
        assert isinstance(app.screen, TranscriptScreen)
        await pilot.press("escape", "escape")  # the find of the hit's term, then the transcript
        await settle(pilot)
        pane = app.screen.query_one(SearchPane)
        assert isinstance(app.focused, Input) and app.focused in pane.query(Input)
        await pilot.press("b")  # (the box selects its text when focused: typing starts a new query)
        assert isinstance(app.screen, MainScreen) and pane.query_text == "b"


async def test_a_pasted_source_ref_says_that_enter_opens_it(tmp_path: Path) -> None:
    """Issue 10, item 21: a Source reference in the box is not searched as you type (it matches
    nothing useful): the results say that enter opens it."""
    app = warm_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        session = next(s for s in app.library.sessions() if s.entry_count > 5)
        ref = f"{session.agent}:{session.id}#{app.library.load(session).entries[4].id}"
        await pilot.press("2")
        pane = app.screen.query_one(SearchPane)
        pane.query_one("Input").value = f"Source: {ref}"  # as a paste changes it
        await pilot.pause()
        shown = [row.text.plain for row in pane.results.rows if row.text is not None]
        assert shown[0] == f"Enter opens Source: {ref}" and pane._timer is None  # and no search runs
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, TranscriptScreen) and app.screen.session.id == session.id


@pytest.mark.parametrize(("query", "expected"), [
    ("retry jitter", "retry"), ('"turn 199"', "turn 199"), ("migrat*", "migrat"), ("alpha OR retry", "retry"),
    ("agent:codex retry", "retry"), ("-foo retry", "retry"), ("ssionSco", "ssionSco"), ('"unclosed', '"unclosed'),
])
def test_find_text_of_a_hit_is_a_term_it_holds(query: str, expected: str) -> None:
    from sessionscope.tui.screens.main import find_text

    assert find_text(query, "We retry the migration at turn 199 in sessionScope") == expected


async def test_resume_command_is_built_and_copied(tmp_path: Path) -> None:
    app = warm_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        session = app.screen.query_one(SessionList).highlighted_session
        assert session is not None and session.agent == "claude-code"
        await pilot.press("ctrl+r")
        assert app.clipboard == f"cd {session.project} && claude --resume {session.id}"


async def test_tabs_switch_with_keys(tmp_path: Path) -> None:
    app = warm_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("2")
        assert app.screen.active_tab == "search"
        await pilot.press("escape", "1")
        assert app.screen.active_tab == "sessions"


async def test_tabs_switch_with_the_mouse_and_on_the_focused_bar(tmp_path: Path) -> None:
    from textual.widgets import ContentSwitcher, Input

    from sessionscope.tui.widgets.tab_bar import TabBar

    app = warm_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        screen = app.screen
        bar = screen.query_one(TabBar)
        switcher = screen.query_one(ContentSwitcher)
        assert [bar._tab_at(x) for x in (0, 9, 10, 17, 18, 25, 26, 36, 37, 43, 44)] == [
            0, 0, 1, 1, 2, 2, 3, 3, 4, 4, None]
        await pilot.click(TabBar, offset=(12, 0))  # " Search " is cells 10-17
        await settle(pilot)
        assert (screen.active_tab, switcher.current) == ("search", "search")
        assert isinstance(app.focused, Input)  # the pane's query input, as with the key
        await pilot.click(TabBar, offset=(20, 1))  # the underline, under " Memory "
        await settle(pilot)
        assert (screen.active_tab, switcher.current) == ("memory", "memory")
        await pilot.click(TabBar, offset=(60, 0))  # right of the tabs: nothing
        await settle(pilot)
        assert screen.active_tab == "memory"
        await pilot.click(TabBar, offset=(30, 0))  # " Bookmarks ", the last tab
        await settle(pilot)
        assert (screen.active_tab, switcher.current) == ("bookmarks", "bookmarks")
        bar.focus()
        await pilot.press("right")
        await settle(pilot)
        assert (screen.active_tab, switcher.current) == ("stats", "stats")
        bar.focus()
        await pilot.press("right")  # from the last tab round to the first
        await settle(pilot)
        assert (screen.active_tab, switcher.current) == ("sessions", "sessions")
        assert isinstance(app.focused, SessionList)
        bar.focus()
        await pilot.press("left")
        await settle(pilot)
        assert screen.active_tab == "stats"
        await pilot.hover(TabBar, offset=(3, 0))
        assert bar._hover == 0
        await pilot.hover(SessionList, offset=(3, 5))
        assert bar._hover is None


async def test_markup_and_escapes_in_transcripts_stay_literal(tmp_path: Path) -> None:
    app: SessionScopeApp = warm_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        target = next(s for s in app.library.sessions() if "[bold red]" in (s.title or ""))
        app.screen.open_transcript(target)
        await settle(pilot)
        svg = app.export_screenshot()
        assert "[bold red]ERROR[/bold red]" in svg.replace("&#160;", " ")
        view = app.screen.query_one(TranscriptView)
        text = "".join(
            seg.text for y in range(view.size.height) for seg in view.render_line(y)
        )
        assert "\x1b" not in text and "\x9b" not in text
        assert "␛" in text  # the escape from the transcript is shown, visibly, not sent


async def test_title_bar_follows_the_sub_title_opens_the_palette_and_grows(tmp_path: Path) -> None:
    from textual.command import CommandPalette

    from sessionscope.tui.widgets.title_bar import TitleBar

    app = warm_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        bar = app.screen.query_one(TitleBar)
        line = bar.render_line(0).text
        assert len(line) == SIZE[0] and line.startswith(" ◆ ")
        assert "sessionscope — 2 roots" in line
        assert line.index("sessionscope") == 8 + (SIZE[0] - 18 - len("sessionscope — 2 roots")) // 2
        app.screen.sub_title = "elsewhere"
        await pilot.pause()
        assert "sessionscope — elsewhere" in bar.render_line(0).text
        await pilot.hover(TitleBar, offset=(1, 0))
        assert bar.tooltip == "Open the command palette"
        await pilot.click(TitleBar, offset=(40, 0))  # not the icon: three lines tall, and back
        await pilot.pause()
        assert bar.size.height == 3 and "elsewhere" in bar.render_line(1).text
        assert bar.render_line(0).text.strip() == ""
        await pilot.click(TitleBar, offset=(40, 1))
        await pilot.pause()
        assert bar.size.height == 1
        await pilot.click(TitleBar, offset=(1, 0))  # the icon
        await pilot.pause()
        assert isinstance(app.screen, CommandPalette)


async def test_the_command_palette_offers_every_action_of_the_screen(tmp_path: Path) -> None:
    """The palette lists what the focused part of the screen can do, footer-hidden actions too,
    without cursor moves; a command runs its action where the binding lives."""
    app = warm_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert {"Sort", "Subagents", "Brief", "Resume", "Copy resume cmd", "Search", "Memory"} <= set(titles)
        assert "Down" not in titles and len(titles) == len(set(titles))
        # each listed once: the line under a title gives its key, not the title again
        helps = {c.title: c.help for c in app.get_system_commands(app.screen)}
        assert helps["Sort"] == "key: s" and not any(h.startswith(f"{t} (") for t, h in helps.items())
        await pilot.press("enter")
        await settle(pilot)
        view = app.screen.query_one(TranscriptView)
        commands = {c.title: c for c in app.get_system_commands(app.screen)}
        assert {"Expand all", "Collapse all", "Thinking", "Previous turn", "Pager", "Editor", "Raw"} <= set(commands)
        assert "Next entry" not in commands and "Sort" not in commands  # the covered screen's are not offered
        assert not view.show_thinking
        commands["Thinking"].callback()
        await pilot.pause()
        assert view.show_thinking


async def test_a_pasted_source_ref_opens_its_entry(tmp_path: Path) -> None:
    """Issue 7: every Source of a brief resolves in the app too. Pasted into the search box (as
    the brief prints it, `Source: ` and date included), Enter opens that exact entry; a text that
    only looks like a reference is searched as usual."""
    app = warm_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        session = next(s for s in app.library.sessions() if s.entry_count > 5)
        entry = app.library.load(session).entries[4]
        await _search(pilot, f"Source: {session.agent}:{session.id}#{entry.id}; 2026-11-16.")
        screen = app.screen
        assert isinstance(screen, TranscriptScreen) and screen.session.id == session.id
        view = screen.query_one(TranscriptView)
        assert view.highlighted_entry is not None and view.highlighted_entry.id == entry.id
        await pilot.press("escape")
        await settle(pilot)
        await _search(pilot, "nosuchsession#abc")
        assert isinstance(app.screen, MainScreen)
        assert app.screen.query_one(SearchPane).query_text == "nosuchsession#abc"


async def test_resume_where_the_terminal_cannot_be_handed_over(tmp_path: Path, monkeypatch) -> None:  # noqa: ANN001
    """Running the resume command suspends the app; where that is not possible (the headless and
    web drivers) it says so and points at the copy key, instead of a traceback."""
    from types import SimpleNamespace

    app = warm_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        monkeypatch.setattr(app.screen, "_resume", lambda: SimpleNamespace(argv=("true",), cwd=str(tmp_path)))
        await pilot.press("R")
        await pilot.pause()
        assert any("cannot hand over" in str(n.message) for n in app._notifications)
        assert isinstance(app.screen, MainScreen)
