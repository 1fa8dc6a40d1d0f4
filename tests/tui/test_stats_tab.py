"""The Stats tab: made only when it is first shown, its figures computed in a worker (the same as
`sessionscope stats` gives), the period switched with [ and ], names from transcripts shown as
text, and a snapshot over the demo corpus (its dates are the frozen clock's, not today's)."""
from __future__ import annotations

import json
from datetime import date, datetime, timezone
from pathlib import Path

from app_factory import NOW, settle, warm_app
from hostile import HOSTILE, raw_controls

from sessionscope.core.catalog.library import Library
from sessionscope.core.format import count
from sessionscope.core.catalog.store import Catalog
from sessionscope.core.read.discovery import Root
from sessionscope.core.stats.aggregate import compute
from sessionscope.tui.app import SessionScopeApp
from sessionscope.tui.widgets.stats_pane import StatsPane, short_names

SIZE = (120, 40)


def shown(app: SessionScopeApp) -> str:
    return "\n".join(strip.text for strip in app.screen._compositor.render_strips())


async def test_the_stats_tab_is_made_when_shown_and_switches_its_period(tmp_path: Path) -> None:
    app = warm_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert not app.screen.query(StatsPane)  # nothing of it before it is asked for
        await pilot.press("5")
        await settle(pilot)
        pane = app.screen.query_one(StatsPane)
        assert app.focused is pane
        stats = pane.shown
        assert (stats.first, stats.last) == (date(2026, 10, 22), date(2026, 11, 20))  # 30 days to the clock's today
        direct = compute(app.library.all_sessions(), app.library.catalog.activity(), since=stats.first,
                         until=stats.last, tz=timezone.utc)
        assert (stats.messages, stats.sessions, stats.tokens, round(stats.cost, 6)) == (
            direct.messages, direct.sessions, direct.tokens, round(direct.cost, 6))
        assert stats.messages > 0 and stats.cost > 0
        text = shown(app)
        assert f"2026-10-22 to 2026-11-20: {count(stats.sessions, 'session')}, {count(stats.messages, 'message')}" in text
        for title in ("Activity per day", "Tokens per day by model", "Cost per day"):
            assert title in text
        await pilot.press("right_square_bracket")
        assert (pane.shown.first, pane.shown.last) == (date(2026, 8, 23), date(2026, 11, 20))
        await pilot.press("left_square_bracket", "left_square_bracket")
        assert pane.shown.first == date(2026, 11, 14) and len(pane.shown.days) == 7
        assert pane.shown.messages <= stats.messages
        await pilot.press("1", "5")  # shown again: computed afresh, the period kept
        await settle(pilot)
        assert app.screen.query_one(StatsPane) is pane and len(pane.shown.days) == 7


async def test_names_from_transcripts_are_shown_as_text(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    model = "[bold red]model[/] " + HOSTILE
    header = {"session_id": "s1", "agent_id": "agent[/]" + HOSTILE, "started_at": "2026-11-19T09:00:00Z",
              "project": "/p/[red]proj[link=https:]\x1b[2J", "model": model,
              "tokens": {"input": 10, "output": 1}}
    entry = {"role": "user", "content": "hi", "id": "e1", "timestamp": "2026-11-19T09:00:00Z"}
    (root / "s1.jsonl").write_text(json.dumps(header) + "\n" + json.dumps(entry) + "\n")
    library = Library([Root(str(root), "--root", explicit=True)], catalog=Catalog(tmp_path / "catalog.sqlite"))
    app = SessionScopeApp(library, index_dir=tmp_path / "index", now=NOW)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        await pilot.press("5")
        await settle(pilot)
        text = shown(app)
        assert "[red]proj[link=https:]␛…" in text  # the project's name, literally (cut to its column)
        assert "[bold red]model[/] OSC52:␛]52;c;SGVsbG8=␇ CLEAR:␛[2J" in text  # never styled
        assert "agent[/]OSC52:␛]52;c" in text
        assert "not priced" in text and not raw_controls(text)


def test_snapshot_stats_tab(snap_compare, tmp_path: Path) -> None:  # noqa: ANN001
    async def run_before(pilot) -> None:  # noqa: ANN001
        await settle(pilot)
        await pilot.press("5")
        await settle(pilot)

    assert snap_compare(warm_app(tmp_path), terminal_size=SIZE, run_before=run_before)



def test_projects_of_one_name_are_told_apart_by_their_folders() -> None:
    names = short_names(["/home/a/work/web", "/home/a/old/web", "/x/infra", "(no project)", "/"])
    assert names == {"/home/a/work/web": "work/web", "/home/a/old/web": "old/web", "/x/infra": "infra",
                     "(no project)": "(no project)", "/": "/"}
