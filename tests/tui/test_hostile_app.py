"""The whole app over a hostile home (tests/hostile.py): escapes, C1 controls, bidi overrides and
zero-width characters in titles, projects, entries and memory notes are shown visibly marked
(␛, \\x9b, <U+202E>), never passed to the terminal or hidden."""
from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from app_factory import settle
from hostile import hostile_home, raw_controls

from sessionscope.core.catalog.store import Catalog
from sessionscope.core.read.discovery import Root
from sessionscope.core.catalog.library import Library
from sessionscope.core.memory.places import discover_memory
from sessionscope.tui.app import SessionScopeApp
from sessionscope.tui.screens.transcript import TranscriptScreen
from sessionscope.tui.widgets.search_pane import SearchPane

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=timezone.utc)
SIZE = (160, 40)


def shown(app: SessionScopeApp) -> str:
    """The screen as drawn, one line per row."""
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


async def test_hostile_text_is_shown_visibly_marked(tmp_path: Path) -> None:
    home = hostile_home(tmp_path / "h")
    library = Library([Root(str(home.root), "--root", explicit=True)], catalog=Catalog(tmp_path / "catalog.sqlite"))
    app = SessionScopeApp(library, index_dir=tmp_path / "index", now=NOW,
                          memory=lambda: discover_memory([str(home.project)], []))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        listing = shown(app)
        assert "proj<U+202E>evil" in listing and "title OSC52:␛]52;c;SGVsbG8=␇ CLEAR:␛[2J␛[H" in listing
        await pilot.press("j", "enter")  # (the most recent is the one with a hostile id)
        await settle(pilot)
        assert isinstance(app.screen, TranscriptScreen) and app.screen.session.id == home.session_id
        transcript = shown(app)
        assert "BIDI:<U+202E>exe.txt" in transcript and "ZW:pass<U+200B>word<U+2060>" in transcript
        assert "C1:\\x9b2J\\x9d0;title\\x9c" in transcript and "CLEAR:␛[2J␛[H" in transcript
        assert not raw_controls(transcript), raw_controls(transcript)
        await pilot.press("escape", "3")
        await settle(pilot)
        memory = shown(app)
        assert "OSC52:␛]52;c;SGVsbG8=␇ CLEAR:␛[2J␛[H" in memory and "<U+202E>" in memory  # the note's body, card
        await pilot.press("2")
        pane = app.screen.query_one(SearchPane)
        pane.query_one("Input").value = "widget"
        await pilot.press("enter")
        await settle(pilot)
        results = shown(app)
        assert "please fix the widget OSC52:␛]52;c;SGVsbG8=␇" in results
        for text in (listing, memory, results):
            assert not raw_controls(text), raw_controls(text)
