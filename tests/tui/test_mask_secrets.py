"""Secrets on screen: `M` masks them in the transcript and in search results (for screen
sharing), the title says so while it is on, and `M` again shows them as written. The composer's
exports (clipboard, file, the brief printed on exit) never carry a secret of the corpus."""
from __future__ import annotations

import os
from datetime import datetime, timedelta, timezone
from pathlib import Path

import orjson
from app_factory import warm_app
from secrets_corpus import POSITIVES, leaks
from textual.widgets import Input, TextArea

from sessionscope.core.catalog.store import Catalog
from sessionscope.core.read.discovery import Root
from sessionscope.core.catalog.library import Library
from sessionscope.tui.app import SessionScopeApp
from sessionscope.tui.screens.composer import ComposerScreen
from sessionscope.tui.screens.transcript import TranscriptScreen
from sessionscope.tui.widgets.search_results import SearchResults
from sessionscope.tui.widgets.session_list import SessionList
from sessionscope.tui.widgets.transcript_view import TranscriptView

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=timezone.utc)
SIZE = (160, 60)
# one-line values that fit a screen line
CASES = [c for c in POSITIVES if "\n" not in c.text and len(c.text) < 110][:14]
TITLE_CASE = CASES[0]


def secret_app(tmp_path: Path) -> SessionScopeApp:
    root = tmp_path / "root"
    root.mkdir()
    start = NOW - timedelta(days=1)
    lines: list[dict] = [{"session_id": "sec1", "agent_id": "claude-code", "started_at": start.isoformat(),
                          "project": "/home/dev/projects/shop", "title": f"ledger deploy {TITLE_CASE.text}"}]
    for i, c in enumerate(CASES, 1):
        lines.append({"id": f"e{i}", "role": "user" if i % 2 else "assistant", "content": f"zebra {c.text}",
                      "timestamp": (start + timedelta(minutes=i)).isoformat()})
    (root / "sec1.jsonl").write_bytes(b"".join(orjson.dumps(x) + b"\n" for x in lines))
    library = Library([Root(str(root), "test")], catalog=Catalog(tmp_path / "catalog.sqlite"))
    return SessionScopeApp(library, index_dir=tmp_path / "index", now=NOW)


async def settle(pilot) -> None:  # noqa: ANN001 - textual's Pilot
    for _ in range(4):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()


def transcript_text(app: SessionScopeApp) -> str:
    view = app.screen.query_one(TranscriptView)
    return "\n".join(view.render_line(y).text for y in range(view.scrollable_content_region.height))


def results_text(app: SessionScopeApp) -> str:
    results = app.screen.query_one(SearchResults)
    return "\n".join(results.render_line(y).text for y in range(results.scrollable_content_region.height))


async def test_m_masks_the_transcript_and_says_so_in_the_title(tmp_path: Path) -> None:
    app = secret_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        assert isinstance(app.screen, TranscriptScreen)
        raw = transcript_text(app)
        assert leaks(raw, CASES), "a local reader sees the transcript as written"
        assert "secrets masked" not in app.title
        await pilot.press("M")
        await settle(pilot)
        masked = transcript_text(app)
        assert leaks(masked, CASES) == []
        assert "[secret masked: " in masked
        assert app.title == SessionScopeApp.MASKED_TITLE
        view = app.screen.query_one(TranscriptView)
        for _ in range(len(CASES) + 1):  # y copies as shown: masked
            await pilot.press("y")
            assert leaks(app.clipboard, CASES) == [], app.clipboard
            view.action_cursor_down()
        await pilot.press("M")
        await settle(pilot)
        assert leaks(transcript_text(app), CASES) and app.title == SessionScopeApp.TITLE


async def test_session_titles_are_masked_in_the_list_while_the_toggle_is_on(tmp_path: Path) -> None:
    app = secret_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        listing = app.screen.query_one(SessionList)

        def shown() -> str:
            return "\n".join(listing.render_line(y).text for y in range(3))

        assert "ledger deploy" in shown() and leaks(shown(), [TITLE_CASE])
        await pilot.press("M")
        await settle(pilot)
        assert "ledger deploy" in shown() and leaks(shown(), [TITLE_CASE]) == []
        assert "[secret masked: " in shown()


async def test_search_results_are_masked_while_the_toggle_is_on(tmp_path: Path) -> None:
    app = secret_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("2")
        await settle(pilot)
        box = app.screen.query_one("#search-input", Input)
        box.value = "zebra"
        await pilot.press("enter")
        await settle(pilot)
        assert leaks(results_text(app), CASES), "search results are shown as written"
        await pilot.press("escape")  # out of the query box, which takes printable keys
        await settle(pilot)
        await app.run_action("toggle_mask_secrets")
        await settle(pilot)
        await pilot.press("2")
        await settle(pilot)
        shown = results_text(app)
        assert "zebra" in shown and leaks(shown, CASES) == []
        assert app.title == SessionScopeApp.MASKED_TITLE


async def test_the_composer_exports_carry_no_corpus_secret(tmp_path: Path) -> None:
    """A finding edited to hold every corpus value: the copied brief, the written file and the
    brief returned on exit (what `sessionscope brief` prints) hold none of them."""
    app = warm_app(tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = ComposerScreen("flaky webhook retry", "/home/dev/projects/payments-api", exit_with_brief=True)
        await pilot.app.push_screen(screen)
        await settle(pilot)
        await pilot.press("e")
        app.screen.query_one(TextArea).load_text("Keep these: " + "\n".join(c.text for c in POSITIVES))
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is screen and screen.brief_text is not None
        await pilot.press("c")
        assert leaks(app.clipboard) == [] and "[secret masked: " in app.clipboard
        target = tmp_path / "brief.md"
        screen._write(type("T", (), {"path": str(target), "overwrite": True})())
        assert leaks(target.read_text()) == []
        await pilot.press("q")
    assert isinstance(app.return_value, str) and leaks(app.return_value) == []
    assert os.path.exists(target)
