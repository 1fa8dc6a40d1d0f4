"""The session list: keyboard and mouse navigation, sort, filters, nested child runs, untrusted
titles, and that 20,000 sessions render only what the viewport shows."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

from textual import events
from textual.app import App, ComposeResult

import sessionscope
from sessionscope.core.model import Session, SessionKind, TokenUsage
from sessionscope.tui.widgets.session_list import HEADER_LINES, SessionList

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=timezone.utc)
STYLES = Path(sessionscope.__file__).parent / "styles" / "lists.tcss"
SIZE = (120, 36)

PROJECTS = {
    "pay": "/home/dev/projects/payments-api",
    "web": "/home/dev/projects/web-dashboard",
    "infra": "/home/dev/projects/infra",
    "ml": "/home/dev/work/ml_experiments.v2",
}


def session(sid: str, title: str | None, *, agent: str = "claude-code", project: str = "pay",
            hours_ago: float = 1, entries: int = 10, tokens: int = 5000,
            kind: SessionKind = SessionKind.MAIN, parent: str | None = None,
            children: tuple[str, ...] = ()) -> Session:
    last = NOW - timedelta(hours=hours_ago)
    return Session(
        id=sid, agent=agent, source_format=agent, paths=(f"/logs/{sid}.jsonl",), kind=kind,
        project=PROJECTS.get(project, project), title=title, first_timestamp=last - timedelta(minutes=30),
        last_timestamp=last, entry_count=entries, usage=TokenUsage(input=tokens), parent_id=parent,
        child_ids=children,
    )


def corpus() -> list[Session]:
    """A developer's month: two agents, four projects, subagents, a compaction, a codex exec run,
    a long title, one title full of markup and escape codes."""
    return [
        session("c-retry", "Refactor the retry settings (max_attempts, base_delay, cap) into one dataclass",
                hours_ago=3.4, entries=14, tokens=138_605, children=("c-retry-sub1", "c-retry-sub2")),
        session("c-retry-sub1", "Explore: find every call site of RetryPolicy", hours_ago=3.6, entries=7,
                tokens=78_515, kind=SessionKind.SUBAGENT, parent="c-retry"),
        session("c-retry-sub2", "Plan: migrate the settings module", hours_ago=3.5, entries=5,
                tokens=20_100, kind=SessionKind.SUBAGENT, parent="c-retry"),
        session("x-locales", "check that every key in locales/en.json also exists in locales/de.json",
                agent="codex", project="web", hours_ago=21, entries=9, tokens=56_811),
        session("c-backup", "Nightly Postgres backup CronJob for staging", project="infra", hours_ago=50,
                entries=11, tokens=74_510),
        session("x-fastapi", "bump fastapi to 0.115 and fix the deprecation warnings", agent="codex",
                hours_ago=72, entries=14, tokens=92_404),
        session("c-csv", "Add CSV export to the transactions table", project="web", hours_ago=92,
                entries=14, tokens=132_117),
        session("c-markup", "reconcile prints [bold]x[/bold] and \x1b[2J literally",
                hours_ago=100, entries=15, tokens=99_014),
        session("c-profile", "Training is input-bound: GPU utilisation sits at 35%. Profile the loader and fix it",
                project="ml", hours_ago=187, entries=2305, tokens=878_072_456),
        session("x-exec", "Summarize what terraform plan would change in envs/staging", agent="codex",
                project="infra", hours_ago=270, entries=6, tokens=32_979, kind=SessionKind.EXEC),
        session("c-charts", "We need to get rid of chart.js, it's 200 KB of our bundle", project="web",
                hours_ago=311, entries=30, tokens=428_242, children=("c-charts-compact",)),
        session("c-charts-compact", "Your task is to create a detailed summary of the conversation",
                project="web", hours_ago=311.1, entries=2, tokens=20_843, kind=SessionKind.COMPACTION,
                parent="c-charts"),
        session("c-untitled", None, project="infra", hours_ago=400, entries=3, tokens=800),
        session("c-idem", "Add idempotency keys to POST /charges", hours_ago=482, entries=28, tokens=217_160),
    ]


class ListApp(App[None]):
    CSS_PATH = STYLES

    def __init__(self, sessions: list[Session]) -> None:
        super().__init__()
        self.sessions = sessions
        self.selected: list[Session] = []
        self.highlighted: list[Session] = []

    def compose(self) -> ComposeResult:
        yield SessionList(now=NOW, id="sessions")

    def on_mount(self) -> None:
        widget = self.query_one(SessionList)
        widget.set_sessions(self.sessions)
        widget.focus()

    def on_session_list_session_selected(self, message: SessionList.SessionSelected) -> None:
        assert message.control is self.query_one(SessionList)
        self.selected.append(message.session)

    def on_session_list_session_highlighted(self, message: SessionList.SessionHighlighted) -> None:
        self.highlighted.append(message.session)


def screen_lines(widget: SessionList) -> list[str]:
    return [widget.render_line(y).text for y in range(widget.scrollable_content_region.height)]


def ids(widget: SessionList) -> list[str]:
    return [r.session.id for r in widget.rows]


async def test_opens_on_the_most_recent_top_level_session_with_children_hidden() -> None:
    app = ListApp(corpus())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        widget = app.query_one(SessionList)
        assert ids(widget) == ["c-retry", "x-locales", "c-backup", "x-fastapi", "c-csv", "c-markup",
                               "c-profile", "c-charts", "c-untitled", "c-idem"]
        assert widget.highlighted_session.id == "c-retry"
        assert [s.id for s in app.highlighted] == ["c-retry"]
        lines = screen_lines(widget)
        assert lines[0].strip() == ("10 sessions · 2 agents · 4 projects · "
                                    "hidden: 2 subagent runs, 1 compaction, 1 exec run")
        assert lines[1].split() == ["Title", "Agent", "Project", "▼", "Active", "Entries", "Tokens"]
        row = lines[2]
        assert "Refactor the retry settings" in row and "claude-code" in row and "payments-api" in row
        assert row.split()[-4:] == ["3h", "ago", "14", "138.6k"]


async def test_keyboard_navigation() -> None:
    app = ListApp(corpus())
    async with app.run_test(size=SIZE) as pilot:
        widget = app.query_one(SessionList)
        await pilot.press("down", "j", "j")
        assert widget.highlighted_session.id == "x-fastapi"
        await pilot.press("k", "up")
        assert widget.highlighted_session.id == "x-locales"
        await pilot.press("end")
        assert widget.highlighted_session.id == "c-idem"
        await pilot.press("home")
        assert widget.highlighted_session.id == "c-retry"
        await pilot.press("G")
        assert widget.highlighted_session.id == "c-idem"
        await pilot.press("g")
        assert widget.highlighted_session.id == "c-retry"
        await pilot.press("up")  # stays at the top
        assert widget.highlighted_session.id == "c-retry"
        await pilot.press("pagedown")
        assert widget.highlighted_session.id == "c-idem"  # fewer rows than a page
        await pilot.press("pageup")
        assert widget.highlighted_session.id == "c-retry"
        await pilot.pause()
        assert [s.id for s in app.highlighted][-3:] == ["c-retry", "c-idem", "c-retry"]
        await pilot.press("down", "enter")
        await pilot.pause()
        assert [s.id for s in app.selected] == ["x-locales"]


async def test_pages_through_many_sessions_keeping_the_cursor_in_view() -> None:
    many = [session(f"s{i:05d}", f"session {i}", hours_ago=i + 1) for i in range(500)]
    app = ListApp(many)
    async with app.run_test(size=SIZE) as pilot:
        widget = app.query_one(SessionList)
        page = widget.scrollable_content_region.height - HEADER_LINES
        await pilot.press("pagedown")
        assert widget.cursor == page
        assert widget.scroll_y <= widget.cursor < widget.scroll_y + page
        await pilot.press("end")
        assert widget.highlighted_session.id == "s00499"
        assert widget.scroll_y == widget.max_scroll_y
        assert screen_lines(widget)[-1].strip().startswith("session 499")
        await pilot.press("pageup")
        assert widget.cursor == 499 - page
        assert widget.scroll_y <= widget.cursor < widget.scroll_y + page
        await pilot.press("home")
        assert widget.scroll_y == 0 and widget.cursor == 0


async def test_mouse_click_highlights_second_click_or_double_click_opens() -> None:
    app = ListApp(corpus())
    async with app.run_test(size=SIZE) as pilot:
        widget = app.query_one(SessionList)
        third = HEADER_LINES + 2
        assert await pilot.click(SessionList, offset=(10, third))
        assert widget.highlighted_session.id == "c-backup"
        assert app.selected == []
        assert await pilot.click(SessionList, offset=(10, third))
        await pilot.pause()
        assert [s.id for s in app.selected] == ["c-backup"]
        assert await pilot.click(SessionList, offset=(10, third + 1), times=2)
        await pilot.pause()
        assert [s.id for s in app.selected] == ["c-backup", "x-fastapi"]
        # A click on a column header sorts by it; a second click reverses.
        assert await pilot.click(SessionList, offset=(3, 1))
        assert widget.sort == "title" and not widget.reversed
        assert await pilot.click(SessionList, offset=(3, 1))
        assert widget.sort == "title" and widget.reversed


async def test_mouse_wheel_scrolls() -> None:
    many = [session(f"s{i:05d}", f"session {i}", hours_ago=i + 1) for i in range(200)]
    app = ListApp(many)
    async with app.run_test(size=SIZE) as pilot:
        widget = app.query_one(SessionList)
        for _ in range(3):  # Pilot has no wheel: post what the driver would
            widget.post_message(events.MouseScrollDown(widget, 10, 10, 0, 1, 0, False, False, False))
        await pilot.pause()
        assert widget.scroll_y > 0
        assert widget.highlighted_session.id == "s00000"  # the wheel scrolls, the cursor stays


async def test_sort_cycles_and_reverses_with_an_arrow_in_the_header() -> None:
    app = ListApp(corpus())
    async with app.run_test(size=SIZE) as pilot:
        widget = app.query_one(SessionList)
        await pilot.press("s")
        assert widget.sort == "entries"
        assert ids(widget)[:3] == ["c-profile", "c-charts", "c-idem"]
        assert "▼ Entries" in screen_lines(widget)[1]
        await pilot.press("s")
        assert widget.sort == "tokens" and ids(widget)[0] == "c-profile"
        await pilot.press("s")
        assert widget.sort == "title"
        titled = [r.session.title for r in widget.rows]
        assert titled[0].startswith("Add CSV") and titled[-1] is None  # untitled last
        assert "Title ▲" in screen_lines(widget)[1]
        await pilot.press("S")
        assert widget.reversed and "Title ▼" in screen_lines(widget)[1]
        assert [r.session.title for r in widget.rows][:2] == [None, "We need to get rid of chart.js, it's 200 KB of our bundle"]
        await pilot.press("s")
        assert widget.sort == "project" and not widget.reversed
        projects = [r.session.project for r in widget.rows]
        assert projects == sorted(projects, key=lambda p: p.rsplit("/", 1)[-1])
        await pilot.press("s")
        assert widget.sort == "active" and ids(widget)[0] == "c-retry"
        await pilot.press("S")
        assert ids(widget)[0] == "c-idem" and "▲ Active" in screen_lines(widget)[1]
        # The cursor stays on its session through every re-sort.
        assert widget.highlighted_session.id == "c-retry"


async def test_agent_and_project_filters_cycle() -> None:
    app = ListApp(corpus())
    async with app.run_test(size=SIZE) as pilot:
        widget = app.query_one(SessionList)
        assert widget.agents == ["claude-code", "codex"]
        await pilot.press("a")
        assert widget.agent_filter == "claude-code"
        assert {r.session.agent for r in widget.rows} == {"claude-code"}
        await pilot.press("a")
        assert widget.agent_filter == "codex"
        assert ids(widget) == ["x-locales", "x-fastapi"]
        line0 = screen_lines(widget)[0]
        assert line0.startswith(" 2 of 10 sessions · 1 agent · 2 projects") and "agent:codex" in line0
        await pilot.press("a")
        assert widget.agent_filter is None and len(widget.rows) == 10
        # Projects cycle most recently active first.
        await pilot.press("p")
        assert widget.project_filter == PROJECTS["pay"]
        assert {r.session.project for r in widget.rows} == {PROJECTS["pay"]}
        await pilot.press("p")
        assert widget.project_filter == PROJECTS["web"]
        await pilot.press("P", "P")
        assert widget.project_filter is None
        await pilot.press("P")
        assert widget.project_filter == PROJECTS["ml"]  # backwards from "all": the stalest
        await pilot.press("escape")
        assert not widget.filtered and len(widget.rows) == 10


async def test_type_to_filter_edits_instead_of_running_bindings() -> None:
    app = ListApp(corpus())
    async with app.run_test(size=SIZE) as pilot:
        widget = app.query_one(SessionList)
        await pilot.press("f", *"infra")
        assert widget.editing_filter and widget.text_filter == "infra"
        assert ids(widget) == ["c-backup", "c-untitled"]  # project matches too
        await pilot.press("backspace", "backspace", "backspace", "backspace", "backspace")
        await pilot.press(*"jks")  # letters bound to actions are text while typing
        assert widget.text_filter == "jks" and widget.sort == "active" and widget.rows == []
        assert "No session matches the filters" in screen_lines(widget)[HEADER_LINES]
        await pilot.press("ctrl+u", *"post")
        assert ids(widget) == ["c-backup", "c-idem"]  # "Postgres", "POST /charges"
        await pilot.press("down")  # arrows still move while typing
        assert widget.highlighted_session.id == "c-idem"
        assert "filter:post▏" in screen_lines(widget)[0]
        await pilot.press("escape")  # stop typing and clear what was typed (issue 10, item 21)
        assert not widget.editing_filter and widget.text_filter == "" and len(widget.rows) == 10
        assert widget.highlighted_session.id == "c-idem"
        await pilot.press("f", *"csv")  # a later filter starts afresh, not after the old text
        assert widget.text_filter == "csv"
        await pilot.press("escape")
        assert widget.text_filter == "" and not widget.filtered
        await pilot.press("slash", *"csv", "enter")
        await pilot.pause()
        assert not widget.editing_filter and [s.id for s in app.selected] == ["c-csv"]


async def test_children_nest_under_their_parent_with_glyph_and_kind() -> None:
    app = ListApp(corpus())
    async with app.run_test(size=SIZE) as pilot:
        widget = app.query_one(SessionList)
        await pilot.press("c")
        assert widget.show_children
        rows = [(r.session.id, r.depth) for r in widget.rows]
        assert rows[:3] == [("c-retry", 0), ("c-retry-sub1", 1), ("c-retry-sub2", 1)]
        assert ("c-charts-compact", 1) in rows
        assert rows[rows.index(("c-charts-compact", 1)) - 1] == ("c-charts", 0)
        assert ("x-exec", 0) in rows  # a child run without a parent stands alone
        lines = screen_lines(widget)
        assert lines[0].strip().endswith("shown: 2 subagent runs, 1 compaction, 1 exec run")
        assert lines[3].startswith("  ├─ subagent · Explore: find every call site")
        assert lines[4].startswith("  └─ subagent · Plan: migrate")
        assert any(" exec · Summarize what terraform" in line for line in lines)
        await pilot.press("down")
        assert widget.highlighted_session.id == "c-retry-sub1"
        await pilot.press("c")
        assert not widget.show_children and widget.highlighted_session.id == "c-retry"


async def test_text_filter_finds_a_parent_by_its_child_runs_title_when_shown() -> None:
    app = ListApp(corpus())
    async with app.run_test(size=SIZE) as pilot:
        widget = app.query_one(SessionList)
        await pilot.press("f", *"retrypolicy")
        assert widget.rows == []
        await pilot.press("escape", "c", "f", *"retrypolicy")
        assert ids(widget) == ["c-retry", "c-retry-sub1", "c-retry-sub2"]


async def test_untrusted_titles_render_literally() -> None:
    app = ListApp(corpus())
    async with app.run_test(size=SIZE) as pilot:
        widget = app.query_one(SessionList)
        await pilot.press("f", *"reconcile")
        line = screen_lines(widget)[HEADER_LINES]
        assert "reconcile prints [bold]x[/bold] and ␛[2J literally" in line
        assert "\x1b" not in line and "␛[2J" in line


async def test_rows_fill_their_width_however_long_or_wide_their_text() -> None:
    """Each row is exactly as wide as the list; a title too long for its column is cut with an
    ellipsis where `Text.truncate` would cut it (wide characters and emoji included), and a
    list too narrow for its columns cuts the row itself."""
    from rich.text import Text

    titles = ["short", "日本語のタイトルがとても長い場合の表示を確認する" * 2, "emoji 🚀🚀🚀 " * 9,
              "tab\tand\x1b[2J"]
    sessions = [session(f"s{i}", t, project="長" * 30 if i == 1 else "pay", hours_ago=i + 1)
                for i, t in enumerate(titles)]
    sessions.append(session("s-sub", "日本語" * 20, kind=SessionKind.SUBAGENT, parent="gone"))
    app = ListApp(sessions)
    async with app.run_test(size=SIZE):
        listing = app.query_one(SessionList)
        listing.action_toggle_children()  # the subagent run, its parent not in the list
        rows = listing.model.rows
        assert len(rows) == len(sessions)
        for width in (3, 12, 30, 60, 118):
            title_width, _ = listing._layout(width)
            for i, row in enumerate(rows):
                strip = listing._render_row(row, width, i == 0, i == 1)
                assert strip.cell_length == width, (width, row.session.id)
                line = strip.text
                if 1 + title_width + 2 > width:  # too narrow even for the title: the row is cut
                    assert line.endswith("…") or line.rstrip() == line[:width].rstrip()
                    continue
                s = row.session
                kind = "" if s.kind is SessionKind.MAIN else f"{s.kind.value} · "
                title = Text(kind + " ".join((s.title or "").split()).replace("\x1b", "␛"))
                title.truncate(title_width, overflow="ellipsis", pad=True)
                assert line.startswith(" " + title.plain), (width, line)


async def test_set_sessions_keeps_the_highlighted_session() -> None:
    app = ListApp(corpus())
    async with app.run_test(size=SIZE) as pilot:
        widget = app.query_one(SessionList)
        await pilot.press("down", "down")
        assert widget.highlighted_session.id == "c-backup"
        fresh = [session("c-new", "A brand new session", hours_ago=0.1), *corpus()]
        widget.set_sessions(fresh)
        assert widget.highlighted_session.id == "c-backup" and widget.cursor == 3
        widget.set_sessions([])
        assert widget.highlighted_session is None
        assert screen_lines(widget)[HEADER_LINES].strip() == "No sessions"


class CountingList(SessionList):
    def __init__(self, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]
        self.rendered: list[int] = []

    def render_line(self, y: int):  # noqa: ANN201
        self.rendered.append(y)
        return super().render_line(y)


class BigApp(App[None]):
    def __init__(self, sessions: list[Session]) -> None:
        super().__init__()
        self.sessions = sessions

    def compose(self) -> ComposeResult:
        yield CountingList(now=NOW)

    def on_mount(self) -> None:
        self.query_one(CountingList).set_sessions(self.sessions)


async def test_twenty_thousand_sessions_render_only_the_viewport() -> None:
    agents = ("claude-code", "codex")
    many = [session(f"s{i:05d}", f"session number {i}", agent=agents[i % 2],
                    project=("pay", "web", "infra", "ml")[i % 4], hours_ago=i / 10, entries=i % 97)
            for i in range(20_000)]
    app = BigApp(many)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        widget = app.query_one(CountingList)
        height = widget.scrollable_content_region.height
        assert len(widget.rows) == 20_000
        assert widget.virtual_size.height == 20_000 + HEADER_LINES
        assert widget.rendered and set(widget.rendered) <= set(range(height))
        assert len(widget.rendered) <= 3 * height  # a few paints of one screen, not 20k rows
        widget.rendered.clear()
        widget.focus()
        await pilot.press("end")
        await pilot.pause()
        assert widget.highlighted_session.id == "s19999"
        assert set(widget.rendered) <= set(range(height)) and len(widget.rendered) <= 3 * height
        assert "session number 19999" in widget.render_line(height - 1).text


# -- snapshots ------------------------------------------------------------------------------------
def test_snapshot_list(snap_compare) -> None:  # noqa: ANN001
    assert snap_compare(ListApp(corpus()), terminal_size=SIZE, press=["down"])


def test_snapshot_list_filtered(snap_compare) -> None:  # noqa: ANN001
    assert snap_compare(ListApp(corpus()), terminal_size=SIZE, press=["a", "f", *"re"])


def test_snapshot_list_with_children(snap_compare) -> None:  # noqa: ANN001
    assert snap_compare(ListApp(corpus()), terminal_size=SIZE, press=["c", "s", "s"])



async def test_in_the_app_over_the_demo_corpus(demo_app: App[None]) -> None:
    async with demo_app.run_test(size=SIZE) as pilot:
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        widget = demo_app.screen.query_one(SessionList)
        assert widget.rows and all(r.depth == 0 for r in widget.rows)
        assert " · hidden: " in widget.render_line(0).text
        assert demo_app.focused is widget
        await pilot.press("c")
        assert any(r.depth == 1 for r in widget.rows)


async def test_each_agent_has_its_colour_in_the_agent_column() -> None:
    """Claude Code, Codex, Copilot CLI, pi, OpenCode, Gemini CLI and Aider each have their colour;
    an agent the list does not know is muted like the other columns, and the cursor row's own
    colours win."""
    agents = ["claude-code", "codex", "copilot-cli", "pi", "opencode", "gemini-cli", "aider", "other"]
    known = len(agents) - 1
    app = ListApp([session(f"s{i}", f"title {i}", agent=a, hours_ago=i + 1) for i, a in enumerate(agents)])
    async with app.run_test(size=SIZE):
        listing = app.query_one(SessionList)
        colours = {}
        for row in listing.model.rows:
            strip = listing._render_row(row, 118, False, False)
            seg = next(s for s in strip if s.text.strip() == row.session.agent)
            colours[row.session.agent] = seg.style.color if seg.style else None
        muted = listing._style("session-list--muted").color
        assert len({colours[a] for a in agents[:known]}) == known and muted not in {colours[a] for a in agents[:known]}
        assert colours["other"] == muted
        cursor = listing._render_row(listing.model.rows[0], 118, True, False)
        seg = next(s for s in cursor if s.text.strip() == listing.model.rows[0].session.agent)
        assert seg.style is None or seg.style.color != colours[listing.model.rows[0].session.agent]
