"""What the Line API lists share (tui/widgets/_line_list.py), checked on the lists themselves:
the hover marks only the item under the mouse, and a move that lands on the highlighted item
brings it back into view in the lists that always did so (search hits, nearby sessions) and
nowhere else (the session list keeps the screen where the wheel left it)."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

from rich.style import Style
from textual.app import App, ComposeResult
from textual.strip import Strip
from textual.widget import Widget

import sessionscope
from sessionscope.core.model import Locator, Session, SessionKind, TokenUsage
from sessionscope.core.search.hits import Hit, SearchResult
from sessionscope.core.search.query import parse
from sessionscope.tui.widgets.nearby_sessions import Nearby, NearbySessions
from sessionscope.tui.widgets.search_results import SearchResults
from sessionscope.tui.widgets.session_list import HEADER_LINES, SessionList

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=timezone.utc)
STYLES = Path(sessionscope.__file__).parent / "styles" / "lists.tcss"
SIZE = (100, 20)


def session(sid: str, title: str, *, hours_ago: float = 1, kind: SessionKind = SessionKind.MAIN) -> Session:
    last = NOW - timedelta(hours=hours_ago)
    return Session(id=sid, agent="claude-code", source_format="claude-code", paths=(f"/logs/{sid}.jsonl",),
                   kind=kind, project="/home/dev/pay", title=title, first_timestamp=last - timedelta(minutes=30),
                   last_timestamp=last, entry_count=10, usage=TokenUsage(input=5000))


def hits(groups: int, per_group: int) -> SearchResult:
    out = [Hit(session_id=f"s{g}", entry_id=f"s{g}-e{i}", agent="claude-code", source_plugin="claude-code",
               role="assistant", kind="text", timestamp=NOW - timedelta(hours=g), preview=f"retry number {i}",
               locator=Locator(f"/logs/s{g}.jsonl", i * 100, i + 1), project="/home/dev/pay")
           for g in range(groups) for i in range(per_group)]
    return SearchResult(out, "ranked", parse("retry"))


class OneList(App[None]):
    CSS_PATH = STYLES

    def __init__(self, widget: Widget) -> None:
        super().__init__()
        self.widget = widget

    def compose(self) -> ComposeResult:
        yield self.widget


def background(strip: Strip) -> set[object]:
    return {seg.style.bgcolor for seg in strip if seg.style is not None and seg.text.strip("\xa0 ")}


def hover_colour(widget: Widget, prefix: str) -> object:
    style: Style = widget.get_component_rich_style(f"{prefix}--hover")
    return style.bgcolor


async def test_the_hover_marks_only_a_hit_and_leaves_with_the_mouse() -> None:
    results = SearchResults(now=NOW)
    app = OneList(results)
    async with app.run_test(size=SIZE) as pilot:
        results.show_result(hits(2, 3))
        await pilot.pause()
        rows = results.rows
        second_hit = [i for i, r in enumerate(rows) if r.kind == "hit"][1]
        header = next(i for i, r in enumerate(rows) if r.kind == "header" and i > second_hit)
        hover = hover_colour(results, "search-results")
        await pilot.hover(SearchResults, offset=(30, second_hit))
        await pilot.pause()
        marked = [y for y in range(len(rows)) if hover in background(results.render_line(y))]
        assert marked == [second_hit]
        await pilot.hover(SearchResults, offset=(30, header))  # a session's header: no hover
        await pilot.pause()
        assert not [y for y in range(len(rows)) if hover in background(results.render_line(y))]


async def test_the_hover_follows_the_session_rows_below_the_header() -> None:
    listing = SessionList(now=NOW)
    app = OneList(listing)
    async with app.run_test(size=SIZE) as pilot:
        listing.set_sessions([session(f"s{i}", f"title {i}", hours_ago=i + 1) for i in range(5)])
        await pilot.pause()
        hover = hover_colour(listing, "session-list")
        await pilot.hover(SessionList, offset=(30, HEADER_LINES + 2))
        await pilot.pause()
        height = listing.scrollable_content_region.height
        assert [y for y in range(height) if hover in background(listing.render_line(y))] == [HEADER_LINES + 2]
        await pilot.hover(SessionList, offset=(30, 1))  # the column header
        await pilot.pause()
        assert not [y for y in range(height) if hover in background(listing.render_line(y))]


async def test_search_hits_bring_the_highlighted_hit_back_into_view() -> None:
    results = SearchResults(now=NOW)
    app = OneList(results)
    async with app.run_test(size=SIZE) as pilot:
        results.show_result(hits(6, 4))
        results.focus()
        await pilot.pause()
        results.scroll_to(y=10, animate=False)  # the wheel: the cursor (first hit) is off screen
        await pilot.pause()
        await pilot.press("up")  # already on the first hit: it comes back, with its header
        await pilot.pause()
        assert results.highlighted_hit.entry_id == "s0-e0"
        assert round(results.scroll_y) == 0


async def test_nearby_sessions_bring_the_highlighted_session_back_into_view() -> None:
    nearby = NearbySessions(now=NOW)
    app = OneList(nearby)
    async with app.run_test(size=SIZE) as pilot:
        rows = [Nearby(session(f"s{i}", f"title {i}", hours_ago=i + 1), timedelta(hours=i), "during")
                for i in range(20)]
        nearby.set_sessions(rows)
        nearby.focus()
        await pilot.pause()
        nearby.scroll_to(y=6, animate=False)
        await pilot.pause()
        await pilot.press("k")
        await pilot.pause()
        assert nearby.cursor == 0 and round(nearby.scroll_y) == 0


async def test_the_session_list_stays_where_the_wheel_left_it() -> None:
    listing = SessionList(now=NOW)
    app = OneList(listing)
    async with app.run_test(size=SIZE) as pilot:
        listing.set_sessions([session(f"s{i}", f"title {i}", hours_ago=i + 1, kind=SessionKind.MAIN)
                              for i in range(60)])
        listing.focus()
        await pilot.pause()
        listing.scroll_to(y=12, animate=False)
        await pilot.pause()
        await pilot.press("k", "home")  # both land on the highlighted first row: nothing moves
        await pilot.pause()
        assert listing.cursor == 0 and round(listing.scroll_y) == 12
        await pilot.press("j")  # a real move: the cursor's row comes into view
        await pilot.pause()
        assert listing.cursor == 1 and round(listing.scroll_y) == 1
