"""The memory pane over the demo corpus's memory (frozen clock, UTC): the timeline grouped by
project with resume lines, the cursor over items only, the selected note rendered with the
sessions around its time, enter on one of them, the project and status filters, live reloads,
and that the agents' text is shown literally."""
from __future__ import annotations

import os
import shutil
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Callable, Iterator

import pytest
from textual.app import App, ComposeResult
from textual.pilot import Pilot

import sessionscope
from sessionscope.core.catalog.store import Catalog
from sessionscope.core.demo import DemoCorpus, generate_demo
from sessionscope.core.read.discovery import Root
from sessionscope.core.catalog.library import Library
from sessionscope.core.memory.places import MemoryItem, discover_memory
from sessionscope.core.model import Session
from sessionscope.tui.widgets.memory_note_view import body_markdown, card_rows, safe_markdown_parser
from sessionscope.tui.widgets.memory_pane import MemoryPane, resume_lines
from sessionscope.tui.widgets.memory_timeline import MemoryTimeline
from sessionscope.tui.widgets.nearby_sessions import NearbySessions, same_project, sessions_around

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=timezone.utc)
STYLES = Path(sessionscope.__file__).parent / "styles" / "memory.tcss"
SIZE = (120, 36)
PAYMENTS = "/home/dev/projects/payments-api"
INFRA = "/home/dev/projects/infra"
DASHBOARD = "/home/dev/projects/web-dashboard"


class World:
    """The demo corpus (sessions and memory) and a library over it, written once per module."""

    def __init__(self, tmp: Path) -> None:
        self.home = tmp
        self.corpus: DemoCorpus = generate_demo(tmp / "demo", now=NOW)
        roots = [Root(str(self.corpus.claude_root), "demo"), Root(str(self.corpus.codex_root), "demo")]
        self.library = Library(roots, catalog=Catalog(tmp / "catalog.sqlite"))
        self.library.scan()

    def sessions(self, project: str | None) -> list[Session]:
        return self.library.sessions(project=project)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    return World(tmp_path_factory.mktemp("memory"))


@pytest.fixture(autouse=True)
def _utc_and_home(world: World, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Note names hold wall-clock minutes read in the local zone: pin it to UTC, like the demo's
    clock. Paths are shown with `~` for the home directory: pin it too, so snapshots never hold
    a temporary directory's name."""
    monkeypatch.setenv("TZ", "UTC")
    monkeypatch.setenv("HOME", str(world.home))
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


class PaneApp(App[None]):
    CSS_PATH = STYLES

    def __init__(self, world: World, *, items: Callable[[], list[MemoryItem]] | None = None,
                 sessions: Callable[[str | None], list[Session]] | None = None) -> None:
        super().__init__()
        self.items_provider = items or world.corpus.memory_items
        self.sessions_provider = sessions or world.sessions
        self.requested: list[Session] = []

    def compose(self) -> ComposeResult:
        yield MemoryPane(self.items_provider, self.sessions_provider, now=NOW, id="memory")

    def on_mount(self) -> None:
        self.query_one(MemoryPane).focus_timeline()

    def on_memory_pane_session_requested(self, message: MemoryPane.SessionRequested) -> None:
        self.requested.append(message.session)


async def settle(pilot: Pilot[None]) -> None:
    """Wait for the items worker, then for the detail worker its highlight started, and for the
    messages both posted to be handled."""
    for _ in range(3):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()


async def press(pilot: Pilot[None], *keys: str) -> None:
    for key in keys:
        await pilot.press(key)
        await settle(pilot)


def pane(app: App[None]) -> MemoryPane:
    return app.query_one(MemoryPane)


def line_text(timeline: MemoryTimeline, y: int) -> str:
    return timeline.render_line(y).text


def shown_lines(timeline: MemoryTimeline) -> list[str]:
    return [line_text(timeline, y) for y in range(timeline.scrollable_content_region.height)]


# -- the timeline -----------------------------------------------------------------------------------
async def test_items_are_grouped_by_project_newest_first_with_resume_lines(world: World) -> None:
    app = PaneApp(world)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        timeline = pane(app).timeline
        items = timeline.items
        assert len(items) == 12
        assert [p for p in dict.fromkeys(it.project for it in items)] == [PAYMENTS, INFRA, DASHBOARD]
        for project in (PAYMENTS, INFRA, DASHBOARD):
            stamps = [it.timestamp for it in items if it.project == project]
            assert stamps == sorted(stamps, reverse=True)
        kinds = [line.kind for line in timeline.lines]
        assert kinds[:3] == ["project", "resume", "resume"]  # the resume line wraps in half the width
        resume = " ".join(line.text for line in timeline.lines if line.kind == "resume" and line.project == PAYMENTS)
        assert resume == "Resuming payments-api (last touched 3 hours ago, status: in-progress at CP-S2)"
        text = shown_lines(timeline)
        assert text[0].startswith(" 12 items · 3 projects · 7 notes")
        assert text[1].startswith(" payments-api  /home/dev/projects/payments-api")
        assert text[2].startswith(" ↻ Resuming payments-api")
        assert any("CP-S3" in t and "schema 1.0" in t for t in text)  # the 1.0 note is marked
        assert any("⚠ 2" in t for t in text)  # the note with odd YAML shows its warnings count


async def test_cursor_moves_over_items_only(world: World) -> None:
    app = PaneApp(world)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        timeline = pane(app).timeline
        assert app.focused is timeline
        assert timeline.highlighted_item is timeline.items[0]
        last_payments = max(i for i, it in enumerate(timeline.items) if it.project == PAYMENTS)
        await press(pilot, *["j"] * last_payments)
        assert timeline.highlighted_item.name == "AGENTS.md"
        await press(pilot, "down")  # over the gap, the infra header and its resume line
        assert timeline.highlighted_item.project == INFRA
        assert timeline.highlighted_item.status == "in-progress"
        await press(pilot, "k", "up")
        assert timeline.cursor == last_payments - 1
        await press(pilot, "end")
        assert timeline.cursor == len(timeline.items) - 1
        await press(pilot, "home")
        assert timeline.cursor == 0


async def test_a_highlighted_note_is_rendered_with_the_sessions_around_it(world: World) -> None:
    app = PaneApp(world)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        p = pane(app)
        await press(pilot, "j", "j")
        item = p.timeline.highlighted_item
        assert item.kind == "session-note" and item.status == "in-progress"
        view = p.note_view
        assert view.item == item
        assert view.body.startswith("## Session summary")
        assert "RetryPolicy" in view.body
        rows = dict(card_rows(item, view.rendered, NOW))
        assert rows["status"] == "in-progress"
        assert rows["checkpoint_decisions"] == "CP-S1: a (one global policy now, per-endpoint later) ↻1"
        assert rows["file"].startswith("~/demo/workspace/payments-api/memory/")
        nearby = p.sessions_list.rows
        assert nearby[0].relation == "during"
        assert nearby[0].session.title.startswith("Refactor the retry settings")
        assert all(n.session.project == PAYMENTS and n.distance <= timedelta(days=3) for n in nearby)
        assert [n.distance for n in nearby] == sorted(n.distance for n in nearby)
        assert "2 sessions within 3 days" in p.sessions_list.border_title


async def test_the_one_zero_note_and_the_odd_one_show_their_schema_and_warnings(world: World) -> None:
    app = PaneApp(world)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        p = pane(app)
        legacy = next(it for it in p.timeline.items if it.schema_version == "1.0")
        assert p.timeline.select_path(legacy.path)
        await settle(pilot)
        rows = dict(card_rows(legacy, p.note_view.rendered, NOW))
        assert rows["schema"].startswith("1.0: read as is, migrated to 1.1")
        odd = next(it for it in p.timeline.items if it.warnings)
        p.timeline.select_path(odd.path)
        await settle(pilot)
        assert p.note_view.item == odd
        assert "should be a list, got text" in " ".join(odd.warnings)
        assert p.note_view.query_one("#memory-card").has_class("-warnings")


async def test_filters_by_status_and_project(world: World) -> None:
    app = PaneApp(world)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        timeline = pane(app).timeline
        seen = []
        for _ in range(4):
            await press(pilot, "s")
            seen.append((timeline.status_filter, len(timeline.items)))
        assert seen == [("in-progress", 2), ("paused", 2), ("completed", 3), (None, 12)]
        await press(pilot, "S")
        assert timeline.status_filter == "completed"
        assert line_text(timeline, 0).startswith(" 3 of 12 items")
        assert "status:completed" in line_text(timeline, 0)
        await press(pilot, "p")  # projects cycle most recently active first
        assert timeline.project_filter == PAYMENTS
        assert [it.status for it in timeline.items] == ["completed"]
        assert "project:payments-api" in line_text(timeline, 0)
        # the detail follows the filtered list's cursor
        assert pane(app).note_view.item == timeline.items[0]
        await press(pilot, "p", "p", "p")
        assert timeline.project_filter is None
        await press(pilot, "P")
        assert timeline.project_filter == DASHBOARD
        await press(pilot, "escape")
        assert not timeline.filtered and len(timeline.items) == 12


async def test_no_match_shows_a_message(world: World) -> None:
    app = PaneApp(world)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        p = pane(app)
        p.timeline.set_filters(project=INFRA, status="paused")
        await settle(pilot)
        assert p.timeline.items == []
        assert "No memory matches the filters · esc clears them" in line_text(p.timeline, 1)


# -- the sessions around a note ------------------------------------------------------------------------
async def test_enter_goes_to_the_sessions_and_enter_there_requests_one(world: World) -> None:
    app = PaneApp(world)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        p = pane(app)
        await press(pilot, "j", "j", "enter")
        assert app.focused is p.sessions_list
        await press(pilot, "j")
        expected = p.sessions_list.rows[1].session
        await press(pilot, "enter")
        assert app.requested == [expected]
        assert expected.title.startswith("bump fastapi")
        await press(pilot, "escape")
        assert app.focused is p.timeline


async def test_tab_cycles_timeline_sessions_note(world: World) -> None:
    app = PaneApp(world)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        p = pane(app)
        await press(pilot, "j", "j")
        order = []
        for _ in range(3):
            await press(pilot, "tab")
            order.append(app.focused)
        assert order == [p.sessions_list, p.note_view, p.timeline]
        await press(pilot, "shift+tab")
        assert app.focused is p.note_view
        # an item without sessions nearby: tab skips the empty list
        await press(pilot, "escape")
        p.timeline.select_path(next(it.path for it in p.timeline.items if it.name == "CLAUDE.md"))
        await settle(pilot)
        assert p.sessions_list.sessions == []
        await press(pilot, "tab")
        assert app.focused is p.note_view


async def test_a_click_on_the_highlighted_session_requests_it(world: World) -> None:
    app = PaneApp(world)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        p = pane(app)
        await press(pilot, "j", "j")
        first = p.sessions_list.rows[0].session
        await pilot.click(NearbySessions, offset=(5, 1))  # inside the border: the first row
        await pilot.pause()
        assert app.requested == [first]


# -- live updates and errors ---------------------------------------------------------------------------
async def test_reload_shows_a_changed_note_and_keeps_the_cursor(world: World, tmp_path: Path) -> None:
    memory = tmp_path / "proj" / "memory"
    shutil.copytree(world.corpus.memory_dirs[PAYMENTS], memory)
    app = PaneApp(world, items=lambda: discover_memory([], [], memory_dirs=[str(memory)]))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        p = pane(app)
        assert len(p.timeline.items) == 3
        await press(pilot, "j")
        paused = p.timeline.highlighted_item
        assert paused.status == "paused"
        path = Path(paused.path)
        path.write_text(path.read_text().replace("status: paused", "status: completed")
                        .replace("Paused before fixing any", "Resumed and finished"))
        (memory / "2026-11-19-10-00-payments-api.md").write_text(
            "---\nschema_version: 1.1\nproject-name: payments-api\nsession: 2026-11-19-10-00\n"
            "status: paused\nlast_session_at: '2026-11-19T10:30:00Z'\n---\n## Session summary\n\nA new one.\n")
        p.reload()
        await settle(pilot)
        assert len(p.timeline.items) == 4
        assert p.timeline.highlighted_item.path == paused.path
        assert p.timeline.highlighted_item.status == "completed"
        assert "Resumed and finished" in p.note_view.body


async def test_set_items_shows_the_given_items(world: World) -> None:
    app = PaneApp(world)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        p = pane(app)
        infra = [it for it in p.timeline.all_items if it.project == INFRA]
        p.set_items(infra)
        await settle(pilot)
        assert p.timeline.items == infra
        assert p.note_view.item == infra[0]
        assert [line.kind for line in p.timeline.lines][:2] == ["project", "resume"]


async def test_a_failing_provider_is_a_message_not_a_traceback(world: World) -> None:
    def boom() -> list[MemoryItem]:
        raise OSError("permission denied")

    app = PaneApp(world, items=boom)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "Memory could not be read: permission denied" in line_text(pane(app).timeline, 1)


async def test_no_memory_at_all(world: World) -> None:
    app = PaneApp(world, items=list)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        p = pane(app)
        assert "No memory files found" in line_text(p.timeline, 1)
        assert line_text(p.timeline, 0).startswith(" 0 items")
        assert p.note_view.item is None


async def test_a_failing_sessions_provider_costs_only_the_list(world: World) -> None:
    def broken(project: str | None) -> list[Session]:
        raise RuntimeError("catalog locked")

    app = PaneApp(world, sessions=broken)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        p = pane(app)
        assert p.note_view.item is not None
        assert p.sessions_list.sessions == []
        assert "catalog locked" in p.sessions_list.render_line(0).text


# -- untrusted text --------------------------------------------------------------------------------------
async def test_markup_escapes_and_html_in_a_note_stay_literal(world: World, tmp_path: Path) -> None:
    memory = tmp_path / "p" / "memory"
    memory.mkdir(parents=True)
    (memory / "2026-11-19-10-00-[bold]p.md").write_text(
        "---\nschema_version: 1.1\nproject-name: p\nsession: 2026-11-19-10-00\nstatus: paused\n"
        "last-checkpoint: '[red]CP[/red]'\nlast_session_at: '2026-11-19T10:30:00Z'\n---\n"
        "## Session summary\n\nprints [bold red]ERROR[/bold red] then \x1b[2J and <b>html</b>\n")
    app = PaneApp(world, items=lambda: discover_memory([], [], memory_dirs=[str(memory)]))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        p = pane(app)
        text = "\n".join(shown_lines(p.timeline))
        assert "[red]CP[/red]" in text
        assert "prints [bold red]ERROR[/bold red] then ␛[2J" in text
        assert "\x1b" not in text
        assert "<b>html</b>" in p.note_view.body
        assert p.timeline.items[0].name == "[bold]p"
        assert p.note_view.query_one("#memory-card")._border_title.plain == "session note · [bold]p"
        paragraph = p.note_view.query("MarkdownParagraph").first()
        assert "<b>html</b>" in str(paragraph.render())
        assert "[bold red]ERROR[/bold red]" in str(paragraph.render())
    assert all(t.type not in ("html_inline", "html_block") for t in safe_markdown_parser().parse("<b>x</b>\n\n<div>y</div>"))


# -- plain functions -------------------------------------------------------------------------------------
def _session(sid: str, project: str | None, first: datetime, minutes: int = 10) -> Session:
    return Session(sid, "claude-code", "claude", (f"/x/{sid}.jsonl",), project=project, title=sid,
                   first_timestamp=first, last_timestamp=first + timedelta(minutes=minutes))


def test_sessions_around_picks_the_nearest_first_within_the_window() -> None:
    t = datetime(2026, 11, 10, 12, 0, tzinfo=timezone.utc)
    sessions = [
        _session("before", "/p", t - timedelta(hours=5)),
        _session("during", "/p/", t - timedelta(minutes=3)),
        _session("after", "/p", t + timedelta(days=1)),
        _session("far", "/p", t - timedelta(days=4)),
        _session("other", "/q", t),
        _session("none", None, t),
    ]
    got = sessions_around(t, sessions, "/p")
    assert [(n.session.id, n.relation) for n in got] == [("during", "during"), ("before", "4h before"),
                                                         ("after", "1d after")]
    assert [n.session.id for n in sessions_around(t, sessions, "/p", timedelta(days=5))][-1] == "far"


def test_same_project_accepts_claudes_escaped_folder_name() -> None:
    assert same_project("/home/dev/projects/payments-api", "-home-dev-projects-payments-api")
    assert same_project("/home/dev/projects/payments-api/", PAYMENTS)
    assert not same_project("/home/dev/projects/payments-api-v2", PAYMENTS)
    assert not same_project(None, PAYMENTS)


def test_resume_lines_skip_a_damaged_newest_note(world: World, tmp_path: Path) -> None:
    memory = tmp_path / "proj" / "memory"
    shutil.copytree(world.corpus.memory_dirs[INFRA], memory)
    (memory / "2026-11-19-23-00-infra.md").write_text("---\nstatus: [unclosed\n---\nbody\n")
    items = discover_memory([], [], memory_dirs=[str(memory)])
    assert items[0].warnings  # the damaged one is the newest item
    lines = resume_lines(items, NOW)
    assert lines == {str(tmp_path / "proj"): "Resuming infra (last touched 2 days ago, status: in-progress at CP-S1)"}


def test_demo_memory_belongs_to_the_sessions_projects(world: World) -> None:
    items = world.corpus.memory_items()
    sessions = world.library.sessions()
    for it in items:
        assert any(s.project == it.project for s in sessions), it.project
    assert os.path.isdir(world.corpus.memory_dirs[PAYMENTS])


# -- snapshots ---------------------------------------------------------------------------------------------
def test_snapshot_note_selected(snap_compare, world: World) -> None:  # noqa: ANN001
    async def run_before(pilot: Pilot[None]) -> None:
        await settle(pilot)
        await press(pilot, "j", "j")

    assert snap_compare(PaneApp(world), terminal_size=SIZE, run_before=run_before)


def test_snapshot_filtered_by_status(snap_compare, world: World) -> None:  # noqa: ANN001
    async def run_before(pilot: Pilot[None]) -> None:
        await settle(pilot)
        await press(pilot, "s", "s")

    assert snap_compare(PaneApp(world), terminal_size=SIZE, run_before=run_before)


def test_snapshot_warnings_and_sessions_focused(snap_compare, world: World) -> None:  # noqa: ANN001
    async def run_before(pilot: Pilot[None]) -> None:
        await settle(pilot)
        await press(pilot, "p", "p", "p", "end", "tab")

    assert snap_compare(PaneApp(world), terminal_size=SIZE, run_before=run_before)


# -- instruction files: imports shown resolved ---------------------------------------------------
def test_imports_are_shown_resolved_below_the_body(tmp_path: Path) -> None:
    """`@path` imports are shown as the agent reads them: each imported file's text in place,
    nested ones too, and the ones not followed with the reason."""
    from sessionscope.core.memory.places import render_note

    proj = tmp_path / "proj"
    (proj / "docs").mkdir(parents=True)
    (proj / "CLAUDE.md").write_text("# Project\n\nSee @AGENTS.md and @docs/missing.md\n")
    (proj / "AGENTS.md").write_text("Run `make test` before committing.\n\nStyle: @docs/style.md\n")
    (proj / "docs" / "style.md").write_text("Four spaces, no tabs.\n")
    [item] = [it for it in discover_memory([str(proj)], []) if it.path.endswith("CLAUDE.md")]
    rendered = render_note(item)
    body = body_markdown(rendered)
    assert body.startswith("# Project")
    assert body.index("### @AGENTS.md") < body.index("Run `make test`") < body.index(
        "### @AGENTS.md → @docs/style.md") < body.index("Four spaces, no tabs.")
    assert "### @docs/missing.md" in body and "not followed: missing" in body
    rows = dict(card_rows(item, rendered, NOW))
    assert "@AGENTS.md → " in rows["imports"] and rows["imports"].endswith("(shown below)")
    assert "@docs/missing.md (missing)" in rows["imports"]
