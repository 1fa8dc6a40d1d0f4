"""The search pane over a real index in tmp_path: search as you type (debounced), enter at once,
query errors with a caret, hits grouped by session, hit selection, index progress, and that
snippets are shown literally."""
from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Callable

import orjson
import pytest
from rich.style import Style
from textual.app import App, ComposeResult
from textual.pilot import Pilot
from textual.widgets import Input, Static

import sessionscope
from sessionscope.core.catalog.store import Catalog
from sessionscope.core.read.discovery import Root
from sessionscope.core.search.hits import SearchResult
from sessionscope.core.search.index import SearchIndex
from sessionscope.core.catalog.library import Library
from sessionscope.core.search.query import parse
from sessionscope.tui.widgets.search_pane import SearchPane
from sessionscope.tui.widgets.search_results import SearchResults, snippet_text

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=timezone.utc)
T0 = datetime(2026, 2, 26, 9, 0, tzinfo=timezone.utc)
STYLES = Path(sessionscope.__file__).parent / "styles" / "lists.tcss"
SIZE = (120, 36)


def write_session(root: Path, sid: str, agent: str, project: str, title: str, start: datetime,
                  entries: list[tuple[str, str]], **extra: str) -> None:
    """A session-logs file: a header line, then one entry per (role, text), a minute apart."""
    header = {"session_id": sid, "agent_id": agent, "source_plugin": "session-logs",
              "started_at": start.isoformat(), "project": project, "title": title, **extra}
    lines = [header] + [
        {"id": f"{sid}-e{i}", "role": role, "content": text,
         "timestamp": (start + timedelta(minutes=i)).isoformat()}
        for i, (role, text) in enumerate(entries, 1)
    ]
    (root / f"{sid}.jsonl").write_bytes(b"".join(orjson.dumps(x) + b"\n" for x in lines))


class World:
    """Three sessions and a subagent run, a library and an index over them, in a temporary directory."""

    def __init__(self, tmp: Path) -> None:
        root = tmp / "root"
        root.mkdir()
        write_session(root, "s-flaky", "claude-code", "/home/dev/projects/payments-api",
                      "Flaky retry test in test_webhooks", T0, [
                          ("user", "tests/test_webhooks.py::test_retry_backoff fails maybe 1 in 20 runs"),
                          ("assistant", "The retry backoff adds random jitter, so the asserted delay "
                                        "is only right when the jitter is zero. I will freeze it."),
                          ("assistant", "Fixed: the test now seeds the jitter; 200 runs, 0 failures."),
                      ])
        write_session(root, "s-deploy", "codex", "/home/dev/projects/infra",
                      "Staging deploy keeps timing out", T0 + timedelta(days=1), [
                          ("user", "the staging deploy times out after 10 minutes, can you look"),
                          ("assistant", "The readiness probe has no retry budget: the rollout waits for "
                                        "a pod that never becomes ready. Raising failureThreshold."),
                      ])
        write_session(root, "s-markup", "claude-code", "/home/dev/projects/payments-api",
                      "Console output shows [bold]markup[/bold]", T0 + timedelta(days=2), [
                          ("user", "the CLI prints [bold]x[/bold] and then \x1b[2J on retry, why?"),
                      ])
        write_session(root, "s-flaky-explore", "claude-code", "/home/dev/projects/payments-api",
                      "Explore: find the backoff code", T0 + timedelta(minutes=1), [
                          ("assistant", "The exponential backoff lives in webhooks/delay.py."),
                      ], kind="subagent", parent_session_id="s-flaky")
        self.lib = Library([Root(str(root), "--root", explicit=True)], catalog=Catalog(tmp / "catalog.sqlite"))
        self.lib.scan()
        self.index = SearchIndex(tmp / "index")
        self.index.update(self.lib)
        self.index.close()
        self.calls: list[str] = []

    def search(self, query: str, limit: int) -> SearchResult:
        self.calls.append(query)
        return self.index.search(query, limit=limit, now=NOW)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    return World(tmp_path_factory.mktemp("search"))


@pytest.fixture(autouse=True)
def _fresh_calls(world: World) -> None:
    world.calls.clear()


class PaneApp(App[None]):
    CSS_PATH = STYLES

    def __init__(self, world: World, *, debounce: float = 0.2,
                 search: Callable[[str, int], SearchResult] | None = None) -> None:
        super().__init__()
        self.world = world
        self.debounce = debounce
        self.search_fn = search or world.search
        self.selected: list[SearchPane.HitSelected] = []

    def compose(self) -> ComposeResult:
        yield SearchPane(self.search_fn, "3 sessions indexed", lookup=self.world.lib.get, now=NOW,
                         debounce=self.debounce, id="search")

    def on_mount(self) -> None:
        self.query_one(SearchPane).focus_input()

    def on_search_pane_hit_selected(self, message: SearchPane.HitSelected) -> None:
        self.selected.append(message)


async def settle(pilot: Pilot[None]) -> None:
    """Wait for the search worker, then for the messages it posted to be handled."""
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def until(pilot: Pilot[None], predicate: Callable[[], bool], timeout: float = 10.0) -> None:
    """Let the app run until `predicate` holds (waiting on state, not for a fixed time)."""
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out waiting for the app"
        await pilot.pause()
    await settle(pilot)


def lines(results: SearchResults) -> list[str]:
    return [results.render_line(y).text for y in range(results.scrollable_content_region.height)]


def status(pane: SearchPane, which: str) -> str:
    return str(pane.query_one(f"#search-{which}", Static).content)


async def test_empty_query_shows_the_syntax_hint(world: World) -> None:
    app = PaneApp(world)
    async with app.run_test(size=SIZE):
        pane = app.query_one(SearchPane)
        assert isinstance(app.focused, Input)
        assert "Type to search every session" in lines(pane.results)[0]
        assert status(pane, "status") == "3 sessions indexed"
        assert world.calls == []


async def test_typing_waits_for_a_pause_and_enter_searches_at_once(world: World) -> None:
    app = PaneApp(world, debounce=30)  # a pause longer than the test: only enter can search
    async with app.run_test(size=SIZE) as pilot:
        pane = app.query_one(SearchPane)
        await pilot.press(*"retr")
        await pilot.press("y")
        await settle(pilot)
        assert world.calls == [] and pane._timer is not None  # one pending timer, restarted per key
        await pilot.press("enter")
        await settle(pilot)
        assert world.calls == ["retry"] and pane._timer is None
        assert {h.session_id for h in pane.results.hits} == {"s-flaky", "s-deploy", "s-markup"}


async def test_search_as_you_type(world: World) -> None:
    app = PaneApp(world, debounce=0)
    async with app.run_test(size=SIZE) as pilot:
        pane = app.query_one(SearchPane)
        await pilot.press(*"jitter")
        await until(pilot, lambda: bool(pane.results.hits) and pane.results.hits and world.calls[-1] == "jitter")
        assert [(h.session_id, h.entry_id) for h in pane.results.hits] == [
            ("s-flaky", "s-flaky-e2"), ("s-flaky", "s-flaky-e3")]
        assert status(pane, "summary") == "2 hits in 1 session · best first"
        # Clearing the query brings the hint back (and drops results of searches still running).
        await pilot.press(*["backspace"] * 6)
        await settle(pilot)
        assert pane.results.hits == [] and "Type to search" in lines(pane.results)[0]


async def test_results_are_grouped_by_session_with_a_header(world: World) -> None:
    app = PaneApp(world)
    async with app.run_test(size=SIZE) as pilot:
        pane = app.query_one(SearchPane)
        await pilot.press(*"retry", "enter")
        await settle(pilot)
        rows = pane.results.rows
        kinds = [r.kind for r in rows]
        assert kinds[0] == "header" and kinds.count("header") == 3
        # Every hit sits under its own session's header.
        current = None
        for r in rows:
            if r.kind == "header":
                current = r.session_id
            elif r.kind == "hit":
                assert r.hit.session_id == current
        shown = lines(pane.results)
        header = next(line for line in shown if "Flaky retry test in test_webhooks" in line)
        assert "claude-code" in header and "payments-api" in header and "Feb 26 09:03" in header
        assert "hit" in header.split()[-1]
        assert any("assistant" in line and "retry backoff" in line for line in shown)


async def test_cursor_skips_headers_and_enter_posts_the_exact_hit(world: World) -> None:
    app = PaneApp(world)
    async with app.run_test(size=SIZE) as pilot:
        pane = app.query_one(SearchPane)
        await pilot.press(*"retry", "enter")
        await settle(pilot)
        results = pane.results
        hits = results.hits
        await pilot.press("down")  # from the input into the results
        assert app.focused is results and results.highlighted_hit == hits[0]
        seen = [results.highlighted_hit]
        for _ in range(len(hits) + 2):  # past the end: stays on the last hit
            await pilot.press("down")
            seen.append(results.highlighted_hit)
        assert seen[: len(hits)] == hits and seen[-1] == hits[-1]
        await pilot.press("home", "down", "enter")
        await pilot.pause()
        assert len(app.selected) == 1
        message = app.selected[0]
        assert message.hit == hits[1] and message.query == "retry"
        assert (message.hit.session_id, message.hit.entry_id) == (hits[1].session_id, hits[1].entry_id)
        assert message.control is pane
        await pilot.press("escape")  # back to the query
        assert isinstance(app.focused, Input)


async def test_second_enter_goes_to_the_results_and_clicks_select(world: World) -> None:
    app = PaneApp(world)
    async with app.run_test(size=SIZE) as pilot:
        pane = app.query_one(SearchPane)
        await pilot.press(*"jitter", "enter")
        await settle(pilot)
        await pilot.press("enter")
        assert app.focused is pane.results
        first_hit_row = next(i for i, r in enumerate(pane.results.rows) if r.kind == "hit")
        second = first_hit_row + 1
        assert await pilot.click(SearchResults, offset=(20, second))
        assert pane.results.highlighted_hit.entry_id == "s-flaky-e3" and app.selected == []
        assert await pilot.click(SearchResults, offset=(20, second))
        await pilot.pause()
        assert [m.hit.entry_id for m in app.selected] == ["s-flaky-e3"]
        assert await pilot.click(SearchResults, offset=(20, 0))  # a header: nothing
        assert pane.results.highlighted_hit.entry_id == "s-flaky-e3"


async def test_malformed_query_shows_the_reason_and_a_caret(world: World) -> None:
    app = PaneApp(world)
    async with app.run_test(size=SIZE) as pilot:
        pane = app.query_one(SearchPane)
        await pilot.press(*'retry "flaky', "enter")
        await settle(pilot)
        texts = [r.text.plain for r in pane.results.rows if r.text is not None]
        assert texts[0] == "Query error: unclosed quote (column 7)"
        echo, caret = texts[2], texts[3]
        assert echo == 'retry "flaky' and caret == " " * 6 + "^"
        assert echo[caret.index("^")] == '"'
        assert status(pane, "summary") == "query error"
        assert pane.results.hits == []


async def test_search_failure_is_a_message_not_a_traceback(world: World) -> None:
    def broken(query: str, limit: int) -> SearchResult:
        raise OSError("index directory vanished")

    app = PaneApp(world, search=broken)
    async with app.run_test(size=SIZE) as pilot:
        pane = app.query_one(SearchPane)
        await pilot.press(*"retry", "enter")
        await settle(pilot)
        assert "Search failed: index directory vanished" in lines(pane.results)[0]
        assert status(pane, "summary") == "search failed"


async def test_index_progress_is_shown_and_the_query_rerun_when_done(world: World) -> None:
    app = PaneApp(world)
    async with app.run_test(size=SIZE) as pilot:
        pane = app.query_one(SearchPane)
        await pilot.press(*"retry", "enter")
        await settle(pilot)
        pane.set_progress(123, 2000)
        await settle(pilot)
        assert status(pane, "status") == "indexing 123/2,000 files… results so far"
        assert pane.query_one("#search-status").has_class("-indexing")
        calls = len(world.calls)
        pane.set_progress(2000, 2000)
        await settle(pilot)
        assert status(pane, "status") == "3 sessions indexed"
        assert len(world.calls) == calls + 1 and world.calls[-1] == "retry"


async def test_snippets_are_shown_literally(world: World) -> None:
    app = PaneApp(world)
    async with app.run_test(size=SIZE) as pilot:
        pane = app.query_one(SearchPane)
        await pilot.press(*"why", "enter")
        await settle(pilot)
        shown = "\n".join(lines(pane.results))
        assert "Console output shows [bold]markup[/bold]" in shown  # the title, in the header
        assert "[bold]x[/bold] and then ␛[2J on retry" in shown
        assert "\x1b" not in shown


async def test_a_child_runs_hits_are_headed_by_its_kind(world: World) -> None:
    app = PaneApp(world)
    async with app.run_test(size=SIZE) as pilot:
        pane = app.query_one(SearchPane)
        await pilot.press(*"exponential", "enter")
        await settle(pilot)
        assert [h.session_id for h in pane.results.hits] == ["s-flaky-explore"]
        assert lines(pane.results)[0].startswith(" subagent · Explore: find the backoff code ")


def test_highlights_survive_control_characters_before_the_match() -> None:
    match = Style(bold=True)
    text = snippet_text("a\x01b retry\nc", parse("retry"), match)
    assert text.plain == "a\\x01b retry c"
    (span,) = [s for s in text.spans if s.style == match]
    assert text.plain[span.start:span.end] == "retry"


# -- snapshots ------------------------------------------------------------------------------------
def test_snapshot_search_results(snap_compare, world: World) -> None:  # noqa: ANN001
    async def run_before(pilot: Pilot[None]) -> None:
        await pilot.press(*"retry", "enter")
        await settle(pilot)
        await pilot.press("down", "down")

    assert snap_compare(PaneApp(world), terminal_size=SIZE, run_before=run_before)


def test_snapshot_search_error(snap_compare, world: World) -> None:  # noqa: ANN001
    async def run_before(pilot: Pilot[None]) -> None:
        await pilot.press(*'retry "flaky', "enter")
        await settle(pilot)

    assert snap_compare(PaneApp(world), terminal_size=SIZE, run_before=run_before)


async def test_in_the_app_over_the_demo_corpus(demo_app: App[None]) -> None:
    async with demo_app.run_test(size=SIZE) as pilot:
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        pane = demo_app.screen.query_one(SearchPane)
        pane.search_now("retry")
        await settle(pilot)
        assert pane.results.hits
        assert all(h.preview for h in pane.results.hits)
