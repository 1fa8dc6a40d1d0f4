"""The live app: the watcher follows the roots, the session list and an open transcript follow it.

Each test runs the app with watching on over a small temporary root of session-logs files and
changes the files from the test. Nothing sleeps for a fixed time: `until` polls a condition (with
`pilot.pause`, which lets the app run) up to a deadline, and the watcher's `armed` event says
when a change will be seen.
"""
from __future__ import annotations

import os
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Callable

import orjson
import pytest

from sessionscope.core.catalog.store import Catalog
from sessionscope.core.read.discovery import Root
from sessionscope.core.catalog.library import Library
from sessionscope.tui.app import SessionScopeApp
from sessionscope.tui.screens.main import MainScreen
from sessionscope.tui.screens.transcript import TranscriptScreen
from sessionscope.tui.widgets.session_list import SessionList
from sessionscope.tui.widgets.transcript_view import TranscriptView

SIZE = (120, 36)
T0 = datetime(2026, 11, 20, 9, 0, tzinfo=timezone.utc)
NOW = datetime(2026, 11, 20, 12, 0, tzinfo=timezone.utc)
LONG = 40  # entries: more than a screen of transcript


def head(sid: str, title: str) -> bytes:
    return orjson.dumps({"session_id": sid, "agent_id": "test-agent", "started_at": T0.isoformat(),
                         "project": "/w/live", "title": title}) + b"\n"


def entry(text: str, minute: int, *, eid: str | None = None, role: str = "user") -> bytes:
    rec = {"role": role, "content": text, "timestamp": (T0 + timedelta(minutes=minute)).isoformat()}
    if eid:
        rec["id"] = eid
    return orjson.dumps(rec) + b"\n"


def session_file(path: Path, sid: str, n: int, *, start: int = 0, word: str = "hello") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    body = b"".join(entry(f"{word} {i}", start + i, eid=f"e{i}", role="user" if i % 2 == 0 else "assistant")
                    for i in range(n))
    path.write_bytes(head(sid, f"session {sid}") + body)
    return path


def append(path: Path, *lines: bytes) -> None:
    with open(path, "ab") as fh:
        fh.write(b"".join(lines))


def live_app(tmp_path: Path, *, poll: bool = False) -> SessionScopeApp:
    root = tmp_path / "root"
    root.mkdir(exist_ok=True)
    library = Library([Root(str(root), "--root", explicit=True)], catalog=Catalog(tmp_path / "catalog.sqlite"))
    return SessionScopeApp(library, index_dir=tmp_path / "index", now=NOW, watch=True, poll=poll)


async def until(pilot, condition: Callable[[], object], what: str, timeout: float = 15.0) -> None:  # noqa: ANN001
    """Let the app run until `condition()` holds; fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        await pilot.pause(0.05)


async def watching(pilot) -> SessionScopeApp:  # noqa: ANN001
    """The first scan and index build are done and the watcher sees changes."""
    app = pilot.app
    await until(pilot, lambda: app.watcher is not None and app.watcher.armed.is_set(), "the watcher to arm")
    await until(pilot, lambda: app.index is not None and not any(
        w.group == "library" and not w.is_finished for w in app.workers), "the first index build")
    await pilot.pause()
    return app


def listed(app: SessionScopeApp) -> dict[str, int]:
    """Session id -> entry count, for the rows of the session list."""
    main = next(s for s in app.screen_stack if isinstance(s, MainScreen))
    return {r.session.id: r.session.entry_count for r in main.query_one(SessionList).rows}


async def open_transcript(pilot, sid: str) -> TranscriptView:  # noqa: ANN001
    app = pilot.app
    listing = app.screen.query_one(SessionList)
    await until(pilot, lambda: any(r.session.id == sid for r in listing.rows), f"{sid} in the list")
    while listing.highlighted_session is not None and listing.highlighted_session.id != sid:
        await pilot.press("j")
    await pilot.press("enter")
    await until(pilot, lambda: isinstance(app.screen, TranscriptScreen), "the transcript screen")
    view = app.screen.query_one(TranscriptView)
    await until(pilot, lambda: view.loaded and view.rows, "the transcript to load")
    await pilot.pause()
    return view


def texts(view: TranscriptView) -> list[str]:
    return [item.entry.text for item in view.rows]


def live_note(app: SessionScopeApp) -> str:
    note = app.screen.query_one("#transcript-live")
    return str(note.render()) if note.has_class("-shown") else ""


async def test_follow_mode_appends_the_new_entry_and_stays_at_the_end(tmp_path: Path) -> None:
    path = session_file(tmp_path / "root" / "proj" / "s1.jsonl", "s1", LONG)
    app = live_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await watching(pilot)
        view = await open_transcript(pilot, "s1")
        assert not view.has_class("-following") and live_note(app) == ""
        await pilot.press("f")
        await pilot.pause()
        assert view.following and view.has_class("-following")
        assert live_note(app) == "● following"
        assert view.scroll_y == view.max_scroll_y > 0 and view.highlighted_entry.id == f"e{LONG - 1}"

        append(path, entry("a freshly appended zebra", LONG, eid="fresh", role="assistant"))
        await until(pilot, lambda: texts(view)[-1] == "a freshly appended zebra", "the new entry")
        await pilot.pause()
        assert view.scroll_y == view.max_scroll_y  # still at the end
        assert view.highlighted_entry.id == "fresh"  # the cursor was on the last entry: it follows
        assert len(view.rows) == LONG + 1
        assert live_note(app) == "● following"
        assert f"{LONG + 1} entries" in str(app.screen.query_one("#transcript-facts").render())
        # ... and the index caught up from the appended line alone
        await until(pilot, lambda: app.search("zebra").hits, "the new entry in the index")


async def test_without_follow_mode_the_place_is_kept_and_new_entries_counted(tmp_path: Path) -> None:
    path = session_file(tmp_path / "root" / "proj" / "s1.jsonl", "s1", LONG)
    app = live_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await watching(pilot)
        view = await open_transcript(pilot, "s1")
        await pilot.press("j", "j", "j")
        await pilot.pause()
        place, cursor = view.scroll_y, view.highlighted_entry.id
        assert cursor == "e3"

        append(path, entry("later one", LONG), entry("later two", LONG + 1, role="assistant"))
        await until(pilot, lambda: texts(view)[-2:] == ["later one", "later two"], "the new entries")
        await pilot.pause()
        assert view.scroll_y == place and view.highlighted_entry.id == cursor  # nothing moved
        assert not view.following
        assert view.unseen == 2 and live_note(app) == "2 new entries below — f to follow"

        await pilot.press("G")  # seeing the end clears the count
        await pilot.pause()
        assert view.unseen == 0 and live_note(app) == ""


async def test_follow_mode_away_from_the_end_keeps_the_place(tmp_path: Path) -> None:
    path = session_file(tmp_path / "root" / "proj" / "s1.jsonl", "s1", LONG)
    app = live_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await watching(pilot)
        view = await open_transcript(pilot, "s1")
        await pilot.press("f", "g")  # follow, then go back to the top to read
        await pilot.pause()
        assert view.following and view.scroll_y == 0
        append(path, entry("while reading above", LONG))
        await until(pilot, lambda: texts(view)[-1] == "while reading above", "the new entry")
        await pilot.pause()
        assert view.scroll_y == 0 and view.highlighted_entry.id == "e0"
        assert live_note(app) == "● following · 1 new below"
        await pilot.press("end")  # back at the end: following again
        append(path, entry("and one more", LONG + 1))
        await until(pilot, lambda: texts(view)[-1] == "and one more", "the second entry")
        await pilot.pause()
        assert view.scroll_y == view.max_scroll_y and live_note(app) == "● following"


@pytest.mark.parametrize("poll", [False, True], ids=["inotify", "polling"])
async def test_new_sessions_appear_and_growing_ones_move_up(tmp_path: Path, poll: bool) -> None:
    root = tmp_path / "root"
    session_file(root / "proj" / "old.jsonl", "old", 3)
    session_file(root / "proj" / "recent.jsonl", "recent", 3, start=60)
    app = live_app(tmp_path, poll=poll)
    async with app.run_test(size=SIZE) as pilot:
        await watching(pilot)
        await until(pilot, lambda: list(listed(app)) == ["recent", "old"], "the first listing")

        session_file(root / "other-project" / "new.jsonl", "new", 2, start=120, word="brandnew")
        await until(pilot, lambda: "new" in listed(app), "the new session in the list")
        assert list(listed(app)) == ["new", "recent", "old"] and listed(app)["new"] == 2

        append(root / "proj" / "old.jsonl", entry("old session speaks again", 180))
        await until(pilot, lambda: list(listed(app))[0] == "old", "the grown session at the top")
        assert listed(app)["old"] == 4
        await until(pilot, lambda: app.search("brandnew").hits, "the new session in the index")


async def test_a_deleted_session_leaves_the_list_and_its_open_transcript_says_so(tmp_path: Path) -> None:
    root = tmp_path / "root"
    path = session_file(root / "proj" / "s1.jsonl", "s1", 5)
    session_file(root / "proj" / "s2.jsonl", "s2", 5, start=60)
    app = live_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await watching(pilot)
        view = await open_transcript(pilot, "s1")
        screen = app.screen
        os.unlink(path)
        await until(pilot, lambda: screen.has_class("-deleted"), "the deleted banner")
        assert view.deleted and len(view.rows) == 5  # what was read stays readable
        banner = str(screen.query_one("#transcript-banner").render())
        assert "file was deleted" in banner and "s1.jsonl" in banner
        assert screen.query_one("#transcript-banner").display
        await pilot.press("j", "enter", "f")  # still usable; follow has nothing to wait for
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, MainScreen), "the main screen")
        assert list(listed(app)) == ["s2"]
        await until(pilot, lambda: not app.search("hello").hits or all(
            h.session_id == "s2" for h in app.search("hello").hits), "s1 out of the index")


async def test_a_rewritten_file_is_read_again_keeping_the_cursor_entry(tmp_path: Path) -> None:
    path = session_file(tmp_path / "root" / "proj" / "s1.jsonl", "s1", LONG)
    app = live_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await watching(pilot)
        view = await open_transcript(pilot, "s1")
        for _ in range(12):
            await pilot.press("j")
        await pilot.pause()
        assert view.highlighted_entry.id == "e12"
        line_on_screen = view._heights.top(view.cursor_row) - round(view.scroll_y)
        # Rewritten shorter and different (a truncation is the same event): read again from scratch.
        session_file(path, "s1", 20, word="rewritten")
        await until(pilot, lambda: view.loaded and texts(view) and texts(view)[0] == "rewritten 0",
                    "the transcript read again")
        await pilot.pause()
        assert len(view.rows) == 20 and view.highlighted_entry.id == "e12"
        assert view._heights.top(view.cursor_row) - round(view.scroll_y) == line_on_screen
        # ... and appends after the reload are followed as before
        append(path, entry("after the rewrite", 30))
        await until(pilot, lambda: texts(view)[-1] == "after the rewrite", "the entry after the rewrite")
        assert len(view.rows) == 21


async def test_idle_app_runs_no_repeating_timers(tmp_path: Path) -> None:
    """Idle means idle: the watcher blocks on inotify in its thread, and nothing in the app ticks
    faster than the session list's once-a-minute age refresh."""
    session_file(tmp_path / "root" / "proj" / "s1.jsonl", "s1", LONG)
    app = live_app(tmp_path)

    def repeating() -> list[str]:
        found = []
        for node in [app, *app._registry]:
            for timer in list(node._timers):
                task = timer._task
                if task is not None and not task.done() and timer._active.is_set() and timer._repeat is None:
                    found.append(f"{node!r}: every {timer._interval}s")
        return found

    async with app.run_test(size=SIZE) as pilot:
        await watching(pilot)
        assert all(t.endswith("every 60s") for t in repeating()), repeating()
        await open_transcript(pilot, "s1")
        await pilot.press("f")
        await pilot.pause()
        assert all(t.endswith("every 60s") for t in repeating()), repeating()


def claude_record(kind: str, uuid: str, parent: str | None, content: object, second: int) -> bytes:
    rec: dict = {"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": CLAUDE_ID, "cwd": "/w/proj",
                 "timestamp": f"2026-11-20T09:00:{second:02d}.000Z"}
    if kind == "user":
        rec["message"] = {"role": "user", "content": content}
    else:
        rec["message"] = {"id": f"m-{uuid}", "role": "assistant", "model": "claude-test", "content": content,
                          "usage": {"input_tokens": 1, "output_tokens": 1}}
        rec["requestId"] = f"r-{uuid}"
    return orjson.dumps(rec) + b"\n"


CLAUDE_ID = "cccccccc-0000-4000-8000-000000000001"


async def test_a_tool_result_arriving_folds_into_its_pending_call(tmp_path: Path) -> None:
    path = tmp_path / "root" / "-w-proj" / f"{CLAUDE_ID}.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(
        claude_record("user", "u1", None, "list the files", 1)
        + claude_record("assistant", "a1", "u1", [{"type": "text", "text": "Listing them."}], 2)
        + claude_record("assistant", "a2", "a1", [{"type": "tool_use", "id": "t1", "name": "Bash",
                                                    "input": {"command": "ls"}}], 3))
    app = live_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await watching(pilot)
        view = await open_transcript(pilot, CLAUDE_ID)
        assert [item.status() for item in view.rows] == [None, None, "pending"]
        append(path, claude_record("user", "u2", "a2", [{"type": "tool_result", "tool_use_id": "t1",
                                                           "content": "a.py\nb.py"}], 4))
        await until(pilot, lambda: view.rows[-1].status() == "ok", "the result folded into the call")
        await pilot.pause()
        assert len(view.rows) == 3 and view.unseen == 0 and live_note(app) == ""  # no new row
        append(path, claude_record("assistant", "a3", "u2", [{"type": "text", "text": "Two files."}], 5))
        await until(pilot, lambda: view.rows[-1].entry.text == "Two files.", "the reply after the result")


async def test_a_renamed_file_is_followed_to_its_new_path(tmp_path: Path) -> None:
    path = session_file(tmp_path / "root" / "proj" / "s1.jsonl", "s1", 5)
    app = live_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await watching(pilot)
        view = await open_transcript(pilot, "s1")
        screen = app.screen
        moved = path.with_name("a-renamed.jsonl")
        os.rename(path, moved)
        await until(pilot, lambda: view.session.path == str(moved) and view.loaded, "the transcript at the new path")
        assert not screen.has_class("-deleted") and not view.deleted and len(view.rows) == 5
        append(moved, entry("written after the move", 10))
        await until(pilot, lambda: texts(view)[-1] == "written after the move", "the entry after the move")


async def test_a_streamed_big_transcript_follows_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sessionscope.core.read.loading as transcript

    monkeypatch.setattr(transcript, "BIG_FILE_BYTES", 1)  # every file is "big": read as a stream
    path = session_file(tmp_path / "root" / "proj" / "s1.jsonl", "s1", LONG)
    app = live_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await watching(pilot)
        view = await open_transcript(pilot, "s1")
        assert view.streamed
        await pilot.press("f")
        long_text = "streamed tail " + "x" * (transcript.TEXT_CAP + 100)
        append(path, entry(long_text, LONG))
        await until(pilot, lambda: texts(view)[-1].startswith("streamed tail"), "the new entry")
        await pilot.pause()
        assert view.rows[-1].cut and len(texts(view)[-1]) == transcript.TEXT_CAP  # slimmed like the rest
        assert view.full_item().entry.text == long_text  # and read in full when asked
        assert view.scroll_y == view.max_scroll_y and len(view.rows) == LONG + 1


def test_the_cli_app_watches_and_polls_when_asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from sessionscope.cli.main import build_parser
    from sessionscope.cli.app import build_app

    session_file(tmp_path / "root" / "proj" / "s1.jsonl", "s1", 1)
    monkeypatch.setenv("SESSIONSCOPE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("SESSIONSCOPE_CONFIG", str(tmp_path / "config.toml"))
    args = ["--root", str(tmp_path / "root")]
    app = build_app(build_parser().parse_args(args))
    assert app.watch_files and not app.poll
    assert build_app(build_parser().parse_args(["--poll", *args])).poll
    (tmp_path / "config.toml").write_text("poll = true\n")
    assert build_app(build_parser().parse_args(args)).poll


_NOTE = """---
schema_version: 1.1
project-name: live
session: {stamp}
status: {status}
last-checkpoint: CP-1
last_session_at: 2026-11-01T10:00:00Z
---
## Session summary
{summary}
"""


async def test_a_project_memory_folder_outside_the_roots_is_watched(tmp_path: Path) -> None:
    """A session names its project; that project's memory/ folder (not under any agent root) is
    followed: a note saved while the app runs shows in the memory pane without a restart."""
    from sessionscope.tui.widgets.memory_pane import MemoryPane

    project = tmp_path / "live"
    (project / "memory").mkdir(parents=True)
    (project / "memory" / "2026-10-30-09-00-live.md").write_text(
        _NOTE.format(stamp="2026-10-30-09-00", status="paused", summary="the first note"))
    root = tmp_path / "root"
    path = session_file(root / "s.jsonl", "s1", 2)
    path.write_bytes(path.read_bytes().replace(b'"/w/live"', orjson.dumps(str(project))))
    app = live_app(tmp_path)
    async with app.run_test(size=(120, 36)) as pilot:
        await watching(pilot)
        assert str(project / "memory") in app.watcher.paths
        await pilot.press("3")
        pane = app.screen.query_one(MemoryPane)
        summaries = lambda: [it.summary for it in pane.timeline.all_items]  # noqa: E731
        await until(pilot, lambda: "the first note" in summaries(), "the first note listed")
        (project / "memory" / "2026-11-01-09-30-live.md").write_text(
            _NOTE.format(stamp="2026-11-01-09-30", status="in-progress", summary="saved while watching"))
        await until(pilot, lambda: "saved while watching" in summaries(), "the new note listed")


def test_the_app_refuses_a_mistyped_root_and_keeps_the_demo_apart(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """`sessionscope --root /typo` is an error (exit 2 through the CLI), not the demo; the demo has
    a catalog and index of its own, so trying it never makes the real history's index rebuild."""
    from sessionscope.cli.main import CliError, build_parser, main
    from sessionscope.cli.app import build_app

    monkeypatch.setenv("SESSIONSCOPE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("SESSIONSCOPE_CONFIG", str(tmp_path / "config.toml"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    with pytest.raises(CliError, match="typo"):
        build_app(build_parser().parse_args(["--root", str(tmp_path / "typo")]))
    assert main(["--root", str(tmp_path / "typo")]) == 2
    session_file(tmp_path / "root" / "s1.jsonl", "s1", 1)
    real = build_app(build_parser().parse_args(["--root", str(tmp_path / "root")]))
    demo = build_app(build_parser().parse_args(["--demo"]))
    assert real.index_dir != demo.index_dir and real.library.catalog.path != demo.library.catalog.path
    assert str(real.index_dir).startswith(str(tmp_path / "cache"))


def test_the_app_indexes_with_the_configs_tool_result_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The app and the CLI share one index: with another cap they would rebuild it in turn."""
    from sessionscope.cli.main import build_parser
    from sessionscope.cli.app import build_app

    session_file(tmp_path / "root" / "s1.jsonl", "s1", 1)
    monkeypatch.setenv("SESSIONSCOPE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("SESSIONSCOPE_CONFIG", str(tmp_path / "config.toml"))
    (tmp_path / "config.toml").write_text("tool_result_cap = 12\n")
    assert build_app(build_parser().parse_args(["--root", str(tmp_path / "root")])).tool_result_cap == 12


def test_the_demo_fallback_keeps_its_own_caches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No history and no --demo: the app shows the demo, still with the demo's catalog and index."""
    from sessionscope.cli.main import build_parser
    from sessionscope.cli.app import build_app

    monkeypatch.setenv("SESSIONSCOPE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("SESSIONSCOPE_CONFIG", str(tmp_path / "config.toml"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("CODEX_HOME", raising=False)
    app = build_app(build_parser().parse_args([]))
    assert app.notice and "demo" in app.notice
    assert app.index_dir == tmp_path / "cache" / "demo-cache" / "index"
