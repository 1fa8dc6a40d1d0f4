"""The brief composer on the demo corpus: review (approve, reject, edit, retype, reorder), findings
of one's own from the transcript and from search, the exports (clipboard, file, the app's return
value for `sessionscope brief`), the empty and unavailable outcomes, and `sessionscope brief`
piped, in a pseudo-terminal."""
from __future__ import annotations

import argparse
import asyncio
import fcntl
import inspect
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path
from typing import Callable, Iterator

import pytest
from app_factory import make_app, warm_app
from textual.widgets import Input, TextArea

from sessionscope.core.brief.compose import FOUND, UNAVAILABLE, render_brief
from sessionscope.core.brief.finding import CORRECTION, DECISION, OUTCOME, Finding, Source
from sessionscope.core.model import Locator
from sessionscope.tui.app import SessionScopeApp
from sessionscope.tui.screens.composer import ComposerScreen
from sessionscope.tui.screens.composer_search import ComposerSearchScreen
from sessionscope.tui.screens.edit_finding import EditFindingScreen
from sessionscope.tui.screens.main import MainScreen
from sessionscope.tui.screens.write_brief import WriteBriefScreen
from sessionscope.tui.widgets._draft import APPROVED, REJECTED, UNDECIDED, Draft, own_finding
from sessionscope.tui.widgets.brief_preview import BriefPreview
from sessionscope.tui.widgets.finding_list import FindingList
from sessionscope.tui.widgets.transcript_view import TranscriptView

SIZE = (120, 36)
TASK = "flaky webhook retry"
PROJECT = "/home/dev/projects/payments-api"


@pytest.fixture(autouse=True)
def _utc(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The reader shows times in the local zone: pin it to the demo clock's (UTC)."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    yield
    monkeypatch.undo()
    time.tzset()


async def settle(pilot) -> None:  # noqa: ANN001 - textual's Pilot
    """Until no worker runs (the index build, retrieval, transcript loads) and all is painted.
    Exclusive workers may be cancelled by newer ones: that is not an error here."""
    app = pilot.app
    for _ in range(1000):  # (rounds, not time: a busy machine starts workers late, a round each)
        pending = [w for w in app.workers if not w.is_finished]
        if not pending:
            await pilot.pause()
            if not [w for w in app.workers if not w.is_finished]:
                return
            continue
        await asyncio.gather(*(w.wait() for w in pending if w.is_running), return_exceptions=True)
        await pilot.pause()
    # Not settled: say so here rather than let the test's assertions fail on a half-painted screen.
    raise AssertionError(f"the app did not settle: {[w.name for w in app.workers if not w.is_finished]}")


async def open_composer(pilot, task: str = TASK, **kwargs) -> ComposerScreen:  # noqa: ANN001
    screen = ComposerScreen(task, PROJECT, **kwargs)
    await pilot.app.push_screen(screen)
    await settle(pilot)
    return screen


def brief_of(screen: ComposerScreen, findings: list[Finding]) -> str:
    assert screen.result is not None
    return render_brief(screen.result, findings).text


# -- loading ----------------------------------------------------------------------------------------
async def test_candidates_load_grouped_by_type_beside_their_source(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_composer(pilot)  # before the index is built: the composer waits for it
        assert screen.result is not None and screen.result.status == FOUND
        listing = screen.findings
        shown = [i.finding for i in listing.items]
        assert {f.id for f in shown} == {f.id for f in screen.result.findings}
        types = [f.type for f in shown]
        assert types == sorted(types, key=["decision", "correction", "failed-approach", "outcome",
                                           "open-question"].index)  # grouped, in the brief's type order
        assert all(i.state == UNDECIDED for i in listing.items)
        first = listing.highlighted
        assert first is not None and first is listing.items[0]
        view = screen.context.query_one(TranscriptView)
        assert view.session.id == first.finding.source.session_id
        assert view.highlighted_entry is not None and view.highlighted_entry.id == first.finding.source.entry_id
        budget = str(screen.query_one("#composer-budget").render())
        assert "rounds 1/2" in budget and "sessions read 3/3" in budget
        # Nothing approved yet: the brief says there is no useful context, as render_brief does.
        assert screen.brief_text == brief_of(screen, [])
        assert screen.brief_text.startswith("No useful prior-session context found within")


async def test_moving_the_cursor_shows_each_finding_at_its_entry(tmp_path: Path) -> None:
    app = warm_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_composer(pilot)
        for _ in range(len(screen.findings.items) - 1):
            await pilot.press("j")
            await settle(pilot)
            f = screen.findings.highlighted.finding
            view = screen.context.query_one(TranscriptView)
            assert view.session.id == f.source.session_id
            here = view.highlighted_entry
            # a tool result (a subagent's report, a run's output) shows in the block of its call
            library = screen.context.library
            source = next(e for e in library.load(library.get(f.source.session_id)).entries if e.id == f.source.entry_id)
            assert here.id == source.id or (source.tool_use_id and here.tool_use_id == source.tool_use_id)


# -- review -----------------------------------------------------------------------------------------
async def test_approve_and_reject_build_the_brief_of_exactly_the_approved(tmp_path: Path) -> None:
    app = warm_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_composer(pilot)
        items = screen.findings.items
        await pilot.press("a")  # approve the first; the cursor moves on
        assert items[0].state == APPROVED and screen.findings.highlighted is items[1]
        await pilot.press("x")  # reject the second
        assert items[1].state == REJECTED
        await pilot.press("a")
        assert screen.findings.approved_findings == [items[0].finding, items[2].finding]
        assert screen.brief_text == brief_of(screen, [items[0].finding, items[2].finding])
        assert screen.query_one(BriefPreview).text == screen.brief_text
        assert f"{screen.rendered.tokens} tokens of 600" in str(screen.query_one(BriefPreview).border_subtitle)
        await pilot.press("k", "k", "k", "a")  # the same key again takes the approval back
        assert items[0].state == UNDECIDED
        assert screen.findings.approved_findings == [items[2].finding]
        assert f"tokens {screen.rendered.tokens}/600" in str(screen.query_one("#composer-budget").render())


async def test_edit_replaces_the_text_approves_and_masks_secrets_again(tmp_path: Path) -> None:
    app = warm_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_composer(pilot)
        item = screen.findings.highlighted
        await pilot.press("e")
        assert isinstance(app.screen, EditFindingScreen)
        area = app.screen.query_one(TextArea)
        assert area.text == item.finding.text
        area.load_text("Compute the delay once and store next_attempt_at; key AKIAIOSFODNN7EXAMPLE")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is screen
        assert item.state == APPROVED and item.edited
        assert item.finding.text.startswith("Compute the delay once")
        assert "AKIAIOSFODNN7EXAMPLE" not in screen.brief_text
        assert "[secret masked: aws-key]" in screen.brief_text
        assert screen.brief_text == brief_of(screen, [item.finding])
        # Escape leaves the text as it was.
        await pilot.press("k", "e")
        app.screen.query_one(TextArea).load_text("something else")
        await pilot.press("escape")
        await pilot.pause()
        assert item.finding.text.startswith("Compute the delay once")


async def test_ctrl_a_in_the_edit_dialog_selects_all(tmp_path: Path) -> None:
    """Issue 10, item 21: ctrl+a selects the whole text (the text area's own ctrl+a went to the
    start of the line), so typing replaces it."""
    app = warm_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_composer(pilot)
        await pilot.press("e")
        area = app.screen.query_one(TextArea)
        assert len(area.text) > 10
        await pilot.press("ctrl+a")
        assert area.selected_text == area.text
        await pilot.press(*"Mine")
        assert area.text == "Mine"


async def test_type_cycles_and_the_finding_moves_to_its_new_group(tmp_path: Path) -> None:
    app = warm_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_composer(pilot)
        item = screen.findings.highlighted
        assert item.finding.type == DECISION
        await pilot.press("T")
        assert item.finding.type == CORRECTION and screen.findings.highlighted is item
        await pilot.press("a")
        assert screen.brief_text.splitlines()[2].startswith("- Correction: ")
        assert screen.brief_text == brief_of(screen, [item.finding])
        await pilot.press("k", "T", "T")  # failed approach, then outcome: last of the outcomes
        outcomes = [i for i in screen.findings.items if i.finding.type == OUTCOME]
        assert outcomes[-1] is item


async def test_reorder_within_a_type_changes_the_brief_order(tmp_path: Path) -> None:
    app = warm_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_composer(pilot)
        first, second = screen.findings.items[:2]
        assert first.finding.type == second.finding.type == DECISION
        await pilot.press("a", "a")
        assert screen.findings.approved_findings == [first.finding, second.finding]
        await pilot.press("k", "K")  # the second decision moves up
        assert screen.findings.approved_findings == [second.finding, first.finding]
        assert screen.findings.highlighted is second
        assert screen.brief_text == brief_of(screen, [second.finding, first.finding])
        await pilot.press("alt+down")
        assert screen.findings.approved_findings == [first.finding, second.finding]
        await pilot.press("J")  # the last of its group: stays
        assert screen.findings.items[:2] == [first, second]


async def test_the_task_searched_again_keeps_the_decisions(tmp_path: Path) -> None:
    app = warm_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_composer(pilot)
        first = screen.findings.items[0]
        await pilot.press("a")
        screen.query_one("#composer-task", Input).focus()
        await pilot.press("end", "space", "s", "enter")
        await settle(pilot)
        assert screen.task_text == TASK + " s"
        again = next(i for i in screen.findings.items if i.id == first.id)
        assert again.state == APPROVED
        assert screen.has_focus is False or screen.focused is screen.findings


# -- findings of one's own --------------------------------------------------------------------------
async def test_add_the_highlighted_transcript_entry_as_a_finding(tmp_path: Path) -> None:
    app = warm_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_composer(pilot)
        view = screen.context.query_one(TranscriptView)
        view.focus()
        await pilot.press("j")  # the entry after the source
        entry = view.highlighted_entry
        assert entry is not None
        await pilot.press("plus")
        added = screen.findings.highlighted
        assert added.own and added.state == APPROVED and screen.focused is screen.findings
        assert (added.finding.source.session_id, added.finding.source.entry_id) == (view.session.id, entry.id)
        assert added.finding.type == DECISION
        await pilot.press("T")  # its type is chosen afterwards
        assert added.finding.type == CORRECTION
        assert screen.brief_text == brief_of(screen, [added.finding])
        assert f"#{entry.id}" in screen.brief_text
        count = len(screen.findings.items)
        view.focus()
        await pilot.press("plus")  # the same entry twice: once
        assert len(screen.findings.items) == count


async def test_add_an_entry_found_by_search(tmp_path: Path) -> None:
    app = warm_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_composer(pilot)
        await pilot.press("s")
        assert isinstance(app.screen, ComposerSearchScreen)
        app.screen.query_one(Input).value = "RetryPolicy per-endpoint"
        await pilot.press("enter")
        await settle(pilot)
        hit = app.search("RetryPolicy per-endpoint").hits[0]
        await pilot.press("enter", "enter")  # into the results, pick the first hit
        await settle(pilot)
        assert app.screen is screen
        view = screen.context.query_one(TranscriptView)
        assert screen.focused is view
        assert (view.session.id, view.highlighted_entry.id) == (hit.session_id, hit.entry_id)
        await pilot.press("plus")
        added = screen.findings.highlighted
        assert added.own and added.finding.source.entry_id == hit.entry_id
        assert added.finding in screen.findings.approved_findings


# -- output -----------------------------------------------------------------------------------------
async def test_copy_puts_exactly_the_approved_brief_on_the_clipboard(tmp_path: Path) -> None:
    app = warm_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_composer(pilot)
        items = screen.findings.items
        await pilot.press("a", "x", "a", "c")
        assert app.clipboard == render_brief(screen.result, [items[0].finding, items[2].finding]).text
        assert items[1].finding.text not in app.clipboard


async def test_copy_leaves_out_the_control_sequences_a_quoted_transcript_holds(tmp_path: Path) -> None:
    app = warm_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_composer(pilot)
        item = screen.findings.items[0]
        screen.findings.set_text(item.id, "retry per endpoint \x1b]52;c;ZXZpbA==\x07 then \x1b[2J cleared")
        await pilot.pause()
        await pilot.press("c")
        assert "retry per endpoint" in app.clipboard and "then" in app.clipboard
        assert "\x1b" not in app.clipboard and "\x07" not in app.clipboard


async def test_write_to_a_file_and_confirm_before_overwriting(tmp_path: Path) -> None:
    app = warm_app(tmp_path)
    target = tmp_path / "out" / "brief.md"
    target.parent.mkdir()
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_composer(pilot)
        await pilot.press("a", "w")
        assert isinstance(app.screen, WriteBriefScreen)
        app.screen.query_one(Input).value = str(target)
        await pilot.press("enter")
        await pilot.pause()
        assert target.read_text() == screen.brief_text + "\n"
        first = screen.brief_text
        await pilot.press("a", "w")  # a second finding, then the same path
        app.screen.query_one(Input).value = str(target)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, WriteBriefScreen)  # asks first
        assert "exists" in str(app.screen.query_one("#write-note").render())
        assert target.read_text() == first + "\n"
        await pilot.press("enter")  # confirmed
        await pilot.pause()
        assert app.screen is screen
        assert target.read_text() == screen.brief_text + "\n" != first + "\n"


async def test_a_written_brief_is_kept_for_the_next_agent_session(tmp_path: Path) -> None:
    """`w` also keeps the approved brief in sessionscope's data folder for its project, where the
    MCP tool `approved_brief` finds it: the text and the approved findings it includes."""
    from sessionscope.core.brief import approved

    app = warm_app(tmp_path)
    target = tmp_path / "brief.md"
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_composer(pilot)
        first = screen.findings.items[0].finding
        await pilot.press("a", "w")
        app.screen.query_one(Input).value = str(target)
        await pilot.press("enter")
        await pilot.pause()
    kept = approved.latest(PROJECT)
    assert kept.brief is not None and kept.path is not None
    assert kept.path.startswith(str(tmp_path / "sessionscope-data")) and kept.brief["project"] == PROJECT
    assert kept.brief["text"] == target.read_text().rstrip("\n")
    assert [f["source"] for f in kept.brief["findings"]] == [first.source.ref]
    assert approved.latest("/home/dev/projects/another").brief is None


async def test_sessionscope_brief_keeps_what_it_prints_and_nothing_unapproved(tmp_path: Path) -> None:
    from sessionscope.core.brief import approved

    app = warm_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_composer(pilot, exit_with_brief=True)
        await pilot.press("x", "q")  # nothing approved: nothing to hand over
    assert approved.latest(PROJECT).brief is None
    app = warm_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_composer(pilot, exit_with_brief=True)
        await pilot.press("a", "q")
    kept = approved.latest(PROJECT).brief
    assert kept is not None and kept["text"] == app.return_value and len(kept["findings"]) == 1


async def test_nothing_is_written_unless_asked(tmp_path: Path) -> None:
    app = make_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        before = {p for p in tmp_path.rglob("*")}
        screen = await open_composer(pilot)
        await pilot.press("a", "x", "T", "K")
        await pilot.press("escape")
        assert isinstance(app.screen, MainScreen)
        assert app.clipboard == ""
        new = {p for p in tmp_path.rglob("*")} - before
        assert all("index" in p.parts for p in new)  # only the app's own index, as without it
        assert screen.brief_text is not None


async def test_exit_with_brief_returns_the_approved_brief(tmp_path: Path) -> None:
    app = warm_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_composer(pilot, exit_with_brief=True)
        items = screen.findings.items
        await pilot.press("a", "a", "x")
        expected = render_brief(screen.result, [items[0].finding, items[1].finding]).text
        await pilot.press("q")
    assert app.return_value == expected


async def test_escape_in_the_task_goes_to_the_list_first(tmp_path: Path) -> None:
    app = warm_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_composer(pilot, exit_with_brief=True)
        screen.query_one("#composer-task", Input).focus()
        await pilot.press("escape")
        assert screen.focused is screen.findings and app.is_running
        await pilot.press("escape")
    assert app.return_value == brief_of(screen, [])


# -- outcomes ---------------------------------------------------------------------------------------
async def test_empty_outcome_says_what_was_searched(tmp_path: Path) -> None:
    app = warm_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_composer(pilot, task="zzqx quuxwidget")
        assert screen.result.status == "empty"
        assert screen.findings.items == []
        assert screen.brief_text == render_brief(screen.result).text
        assert screen.brief_text.startswith("No useful prior-session context found within")
        await pilot.press("c")
        assert app.clipboard == screen.brief_text


async def test_unavailable_outcome_gives_the_reason(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sessionscope.tui.screens.composer as composer_module

    looked: list[float] = []  # the composer's waits for an index build to start
    real_sleep = asyncio.sleep

    async def sleep(delay: float) -> None:
        looked.append(delay)
        await real_sleep(delay)

    app = warm_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert app.library_loaded
        app.index = None  # as when the index could not be built
        monkeypatch.setattr(composer_module, "asyncio", argparse.Namespace(sleep=sleep))
        screen = await open_composer(pilot)
        assert screen.result.status == UNAVAILABLE
        assert screen.brief_text == "Session history unavailable: no search index"
        assert looked == []  # the load has ended: no build will start, so no wait for one (was 5 s)


async def test_an_empty_task_waits_for_one(tmp_path: Path) -> None:
    app = warm_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_composer(pilot, task="")
        assert screen.result is None and isinstance(screen.focused, Input)
        await pilot.press("c")  # nothing to copy yet
        assert app.clipboard == ""
        await pilot.press(*"flaky webhook retry", "enter")
        await settle(pilot)
        assert screen.result.status == FOUND and screen.focused is screen.findings


# -- untrusted text ---------------------------------------------------------------------------------
async def test_markup_and_escapes_in_findings_stay_literal(tmp_path: Path) -> None:
    from textual.app import App, ComposeResult

    class ListApp(App[None]):
        def compose(self) -> ComposeResult:
            yield FindingList()

    nasty = Finding("f1", DECISION, "[bold red]ERROR[/bold red] \x1b]52;c;AAAA\x07 done", "agent", None,
                    Source("claude-code", "s1", "e1", Locator("/x", 0, 1), None, "assistant"))
    app = ListApp()
    async with app.run_test(size=(80, 10)) as pilot:
        listing = app.query_one(FindingList)
        listing.set_findings([nasty])
        await pilot.pause()
        text = "".join(seg.text for y in range(4) for seg in listing.render_line(y))
        assert "[bold red]ERROR[/bold red]" in text
        assert "\x1b" not in text and "\x07" not in text and "␛" in text


# -- the draft ----------------------------------------------------------------------------------------
def _finding(fid: str, type: str = DECISION) -> Finding:
    return Finding(fid, type, f"text of {fid}", "agent", None,
                   Source("codex", "s", fid, Locator("/x", 0, 1), None, "assistant"))


def test_draft_keeps_decisions_when_searched_again() -> None:
    draft = Draft()
    draft.load([_finding("a"), _finding("b"), _finding("c")])
    a, b, c = draft.items
    draft.set_state(a, APPROVED)
    draft.set_state(b, REJECTED)
    draft.set_text(c, "my words")
    draft.load([_finding("c"), _finding("d")])  # a approved: stays; b rejected and gone: goes
    assert [i.id for i in draft.items] == ["a", "c", "d"]
    assert draft.get("c").finding.text == "my words" and draft.get("c").state == APPROVED
    assert [f.id for f in draft.approved()] == ["a", "c"]


def test_draft_moves_within_a_type_and_retypes_to_the_end() -> None:
    draft = Draft()
    draft.load([_finding("a"), _finding("o", OUTCOME), _finding("b")])
    a, o, b = draft.items
    assert [i.id for i in draft.ordered()] == ["a", "b", "o"]
    assert draft.move(b, -1) and [i.id for i in draft.ordered()] == ["b", "a", "o"]
    assert not draft.move(b, -1)
    draft.cycle_type(b)
    assert b.finding.type == CORRECTION and [i.id for i in draft.ordered()] == ["a", "b", "o"]


def test_own_finding_quotes_the_entry_masked_and_attributed() -> None:
    from sessionscope.core.model import Entry, EntryKind, Session, SessionKind

    entry = Entry("e1", "user", EntryKind.TEXT, "no, use the token ghp_0123456789abcdefghijABCDEFGHIJ012345",
                  Locator("/x", 0, 1))
    f = own_finding(Session("s1", "codex", "codex", ("/x",)), entry)
    assert f.attribution == "user" and f.source.ref == "codex:s1#e1" and f.id.startswith("own-")
    assert "ghp_" not in f.text and "[secret masked: github-token]" in f.text
    # In a subagent's transcript the "user" is the parent agent.
    sub = own_finding(Session("s2", "claude-code", "claude", ("/x",), kind=SessionKind.SUBAGENT, parent_id="s1"), entry)
    assert sub.attribution == "agent"
    draft = Draft()
    assert draft.add(f) is not None and draft.add(f) is None


# -- snapshots --------------------------------------------------------------------------------------
def _snap(run: Callable) -> Callable:  # noqa: ANN001
    async def run_before(pilot) -> None:  # noqa: ANN001
        await settle(pilot)
        await run(pilot)
        await settle(pilot)

    return run_before


def test_snapshot_candidates_one_approved(snap_compare, tmp_path: Path) -> None:  # noqa: ANN001
    async def run(pilot) -> None:  # noqa: ANN001
        await open_composer(pilot)
        await pilot.press("a")

    assert snap_compare(warm_app(tmp_path), terminal_size=SIZE, run_before=_snap(run))


def test_snapshot_editing_a_finding(snap_compare, tmp_path: Path) -> None:  # noqa: ANN001
    async def run(pilot) -> None:  # noqa: ANN001
        await open_composer(pilot)
        await pilot.press("e")

    assert snap_compare(warm_app(tmp_path), terminal_size=SIZE, run_before=_snap(run))


def test_snapshot_empty_outcome(snap_compare, tmp_path: Path) -> None:  # noqa: ANN001
    async def run(pilot) -> None:  # noqa: ANN001
        await open_composer(pilot, task="zzqx quuxwidget")

    assert snap_compare(warm_app(tmp_path), terminal_size=SIZE, run_before=_snap(run))


# -- sessionscope brief ----------------------------------------------------------------------------
def _parser() -> argparse.ArgumentParser:
    """The real command line (the brief command is wired into cli/main.py)."""
    from sessionscope.cli.main import build_parser

    return build_parser()


def test_brief_command_options() -> None:
    args = _parser().parse_args(["brief", "make retries per-endpoint", "--tokens", "300", "--file", "a.py"])
    assert (args.task, args.tokens, args.rounds, args.file) == ("make retries per-endpoint", 300, None, ["a.py"])
    assert _parser().parse_args(["brief"]).task == ""


def test_brief_command_refuses_json() -> None:
    from sessionscope.cli import brief_app
    from sessionscope.cli.main import CliError

    with pytest.raises(CliError, match="no --json"):
        brief_app.run(_parser().parse_args(["brief", "x", "--json"]))


def test_brief_app_opens_on_the_composer_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from sessionscope.cli import brief_app

    monkeypatch.setenv("SESSIONSCOPE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("SESSIONSCOPE_CONFIG", str(tmp_path / "config.toml"))
    app = brief_app.brief_app(_parser().parse_args(["brief", "--demo", "--tokens", "300", "--project", PROJECT, TASK]))
    screen = app.get_default_screen()
    assert isinstance(screen, ComposerScreen) and isinstance(app, SessionScopeApp)
    assert screen.exit_with_brief and screen.task_text == TASK and screen.budget.tokens == 300
    assert screen.assist is None  # the model assist is off unless asked for
    app = brief_app.brief_app(_parser().parse_args(["brief", "--demo", "--project", PROJECT, TASK,
                                                    "--assist", "codex", "--assist-timeout", "2.5"]))
    screen = app.get_default_screen()
    assert (screen.assist, screen.assist_timeout) == ("codex", 2.5)
    from sessionscope.cli.main import CliError

    with pytest.raises(CliError, match="invalid choice: 'gpt'"):
        _parser().parse_args(["brief", TASK, "--assist", "gpt"])


def test_brief_piped_draws_on_the_terminal_and_prints_only_the_brief(tmp_path: Path) -> None:
    """`sessionscope brief TASK | cat`: stdin and stderr a terminal (120x36), stdout a pipe."""
    driver = tmp_path / "driver.py"
    driver.write_text("import argparse, sys\n\n" + inspect.getsource(_parser) + "\n"
                      "from sessionscope.cli import brief_app\n"
                      "sys.exit(brief_app.run(_parser().parse_args(sys.argv[1:])))\n")
    env = dict(os.environ, SESSIONSCOPE_CACHE_DIR=str(tmp_path / "cache"), HOME=str(tmp_path),
               SESSIONSCOPE_CONFIG=str(tmp_path / "config.toml"), TERM="xterm-256color", TZ="UTC")
    env.pop("COLUMNS", None)
    env.pop("LINES", None)
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 36, 120, 0, 0))
    proc = subprocess.Popen(
        [sys.executable, str(driver), "brief", "--demo", "--project", PROJECT, TASK],
        stdin=slave, stdout=subprocess.PIPE, stderr=slave, env=env, start_new_session=True)
    os.close(slave)
    drawn, out = bytearray(), bytearray()
    assert proc.stdout is not None

    def pump(done: Callable[[], bool], timeout: float = 60) -> None:
        """Read the terminal and stdout (both, always: a full terminal would block the app)
        until `done()` or stdout ends."""
        deadline = time.monotonic() + timeout
        fds = [master, proc.stdout.fileno()]
        while not done():
            ready, _, _ = select.select(fds, [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                raise AssertionError(f"timed out; the terminal showed {bytes(drawn[-800:])!r}")
            for fd in ready:
                try:
                    data = os.read(fd, 65536)
                except OSError:
                    data = b""
                (drawn if fd == master else out).extend(data)
                if not data:
                    fds.remove(fd)
                    if fd != master:
                        return

    try:
        pump(lambda: b"0 approved" in drawn)
        columns = [int(c) for c in re.findall(rb"\x1b\[\d+;(\d+)H", bytes(drawn))]
        assert max(columns) > 80  # drawn at the terminal's width, not a pipe's 80x24 fallback
        os.write(master, b"a")
        pump(lambda: b"1 approved" in drawn)
        os.write(master, b"q")
        pump(lambda: False)
        assert proc.wait(timeout=30) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        os.close(master)
    text = out.decode()
    assert text.startswith("Prior-session brief\nScope: ") and text.endswith("\n")
    assert "\x1b" not in text
    assert text.count("\n- ") == 1  # exactly the one approved finding


def test_brief_refuses_a_project_nobody_has(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """As `context`: --project must be a directory here or a project some session was recorded in."""
    from sessionscope.cli import brief_app
    from sessionscope.cli.main import CliError, main

    monkeypatch.setenv("SESSIONSCOPE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("SESSIONSCOPE_CONFIG", str(tmp_path / "config.toml"))
    assert main(["sessions", "--demo"]) == 0  # the demo's catalog, as after a first run
    with pytest.raises(CliError, match="brief: --project /no/such/project"):
        brief_app.brief_app(_parser().parse_args(["brief", "--demo", "--project", "/no/such/project", TASK]))
    assert brief_app.brief_app(_parser().parse_args(["brief", "--demo", "--project", PROJECT, TASK]))


# -- issue 10 item 16: what the budget leaves out, and the scope ------------------------------------
async def test_an_approved_finding_the_budget_leaves_out_is_marked(tmp_path: Path) -> None:
    from sessionscope.core.brief.compose import Budget
    from sessionscope.tui.widgets.finding_list import LEFT_OUT

    app = warm_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_composer(pilot, budget=Budget(tokens=150))
        items = screen.findings.items
        for _ in items:
            await pilot.press("a")
        await settle(pilot)
        assert all(i.state == APPROVED for i in items)
        left = set(screen.rendered.omitted)
        assert left and len(left) < len(items)
        for item in items:
            facts = screen.findings._facts_line(item, cursor=False).plain
            assert (LEFT_OUT in facts) == (item.finding.id in left), facts
        status = str(screen.query_one("#composer-budget").render())
        assert f"{len(items)} approved ({len(left)} left out by the budget)" in status
        assert f"{len(left)} more finding(s) left out by the token budget" in screen.brief_text
        await pilot.press("home", "x")  # one fewer approved: the list and the line follow the brief
        await settle(pilot)
        left_now = set(screen.rendered.omitted)
        assert screen.findings.left_out == left_now
        if not left_now:
            assert "left out" not in str(screen.query_one("#composer-budget").render())


async def test_the_scope_shows_before_the_task_and_the_project_can_be_picked(tmp_path: Path) -> None:
    from textual.widgets import OptionList

    from sessionscope.tui.screens.pick_project import PickProjectScreen

    app = warm_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        session = app.screen.query_one("SessionList").highlighted_session
        await pilot.press("b")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, ComposerScreen) and screen.result is None
        name = os.path.basename(session.project)
        scope = str(screen.query_one("#composer-scope").render())
        assert scope.startswith(f"Scope: {name} sessions (highlighted session's project), last 90 days")
        assert "^o another project" in scope
        await pilot.press("ctrl+o")  # works from the task input
        await settle(pilot)
        picker = app.screen
        assert isinstance(picker, PickProjectScreen)
        options = picker.query_one(OptionList)
        assert picker.projects[options.highlighted].path == session.project  # the current one first
        other = next(n for n, p in enumerate(picker.projects) if p.path != session.project)
        options.highlighted = other
        await pilot.press("enter")
        await settle(pilot)
        chosen = picker.projects[other].path
        assert app.screen is screen and screen.project == chosen and screen.result is None
        assert str(screen.query_one("#composer-scope").render()).startswith(
            f"Scope: {os.path.basename(chosen)} sessions (picked)")
        screen.query_one("#composer-task", Input).value = TASK
        await pilot.press("enter")
        await settle(pilot)
        assert screen.result is not None and screen.result.scope.project == chosen
        scope = str(screen.query_one("#composer-scope").render())
        assert scope.startswith("Scope: ") and f"of {os.path.basename(chosen)} (" in scope  # what was searched


async def test_the_model_assist_adds_proposed_findings_or_says_why_not(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    import stat

    from test_brief_assist import FAKE, NEEDLE

    from sessionscope.core.brief.assist import PROPOSED

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "claude").write_text(FAKE.format(python=sys.executable))
    (bin_dir / "claude").chmod(0o755 | stat.S_IXUSR)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.setenv("FAKE_PROMPT_OUT", str(tmp_path / "prompt.txt"))
    monkeypatch.setenv("FAKE_NEEDLE", NEEDLE)
    monkeypatch.setenv("FAKE_MODE", "malformed")
    app = warm_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_composer(pilot)
        before = [i.id for i in screen.findings.items]
        await pilot.press("a", "m")  # one decision first: it survives the assist
        await settle(pilot)
        assert [i.id for i in screen.findings.items] == before
        said = [n.message for n in app._notifications]
        assert "assist (claude): the reply was not the JSON object asked for; the rule-based findings are shown" in said
        monkeypatch.setenv("FAKE_MODE", "valid")
        await pilot.press("m")
        await settle(pilot)
        model = [i for i in screen.findings.items if i.finding.generator == "model"]
        assert len(model) == 1 and len(screen.findings.items) == len(before) + 1
        assert PROPOSED in screen.findings._facts_line(model[0], cursor=False).plain
        assert screen.findings.items[0].state == APPROVED and model[0].state == UNDECIDED
