"""The transcript reader: Pilot tests for behaviour, snapshots for looks, and safety of untrusted
text, over a small Claude-shaped transcript written here (plus one over the demo corpus)."""
from __future__ import annotations

import time
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import orjson
import pytest
from textual.app import App
from textual.widgets import Input

from sessionscope.core.catalog.store import Catalog
from sessionscope.core.read.discovery import Root
from sessionscope.core.catalog.library import Library
from sessionscope.core.model import Session
from sessionscope.core.read.transcript import Display
from sessionscope.tui.screens.raw_record import RawRecordScreen
from sessionscope.tui.screens.transcript import TranscriptScreen, external_command, pager_command
from sessionscope.tui.widgets.find_bar import FindBar
from sessionscope.tui.widgets.transcript_view import TranscriptView

STYLES = Path(__file__).resolve().parents[2] / "styles"
PROJECT = "/home/dev/projects/payments-api"
SESSION = "5f0c7a52-3d1e-4c55-9a0b-2f4e8c1d9a77"
AGENT = "a1b2c3d"
T0 = datetime(2026, 11, 20, 10, 0, tzinfo=timezone.utc)
SIZE = (120, 36)
EVIL = ("Why does reconcile print [bold]x[/bold] and [link=https://evil.example]x[/link]? "
        "The log also had \x1b]52;c;SGVsbG8=\x07 and \x1b[2J in it.")


# -- fixture transcript -----------------------------------------------------------------------------


class _Writer:
    """Claude Code 2.1-shaped records, one content block per line, threaded by parentUuid."""

    def __init__(self, *, agent_id: str | None = None) -> None:
        self.lines: list[bytes] = []
        self.parent: str | None = None
        self.t = T0 if agent_id is None else T0 + timedelta(minutes=3)
        self.n = 0
        self.agent_id = agent_id

    def _uuid(self) -> str:
        self.n += 1
        prefix = "b" if self.agent_id else "a"
        return f"{prefix}{self.n:07d}-0000-4000-8000-000000000000"

    def _rec(self, type_: str, message: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
        self.t += timedelta(seconds=2)
        rec: dict[str, Any] = {"parentUuid": self.parent, "isSidechain": self.agent_id is not None,
                               "userType": "external", "cwd": PROJECT, "sessionId": SESSION,
                               "version": "2.1.38", "gitBranch": "main", "type": type_,
                               "uuid": self._uuid(), "timestamp": self.t.isoformat().replace("+00:00", "Z")}
        if self.agent_id:
            rec["agentId"] = self.agent_id
        if message is not None:
            rec["message"] = message
        rec.update(extra)
        self.parent = rec["uuid"]
        self.lines.append(orjson.dumps(rec))
        return rec

    def user(self, text: str) -> None:
        self._rec("user", {"role": "user", "content": text})

    def assistant(self, block: dict[str, Any], msg: str) -> None:
        self._rec("assistant", {"model": "claude-sonnet-4-5", "id": msg, "type": "message",
                                "role": "assistant", "content": [block],
                                "usage": {"input_tokens": 3, "output_tokens": 120,
                                          "cache_read_input_tokens": 1500}})

    def say(self, text: str, msg: str) -> None:
        self.assistant({"type": "text", "text": text}, msg)

    def think(self, text: str, msg: str) -> None:
        self.assistant({"type": "thinking", "thinking": text, "signature": "sig"}, msg)

    def tool(self, name: str, inp: dict[str, Any], result: Any, msg: str, *, error: bool = False) -> str:
        tid = f"toolu_{self.n:04d}{name}"
        self.assistant({"type": "tool_use", "id": tid, "name": name, "input": inp}, msg)
        self._rec("user", {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": tid, "content": result, "is_error": error}]})
        return tid

    def raw(self, data: bytes) -> None:
        self.lines.append(data)

    def write(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"\n".join(self.lines) + b"\n")


def write_fixture(root: Path, *, extra_turns: int = 12) -> Path:
    w = _Writer()
    w.user(EVIL)
    w.think("The user sees literal markup. Rich markup only applies through console.print, so the "
            "builtin print shows it verbatim. Check the CLI module first.", "msg_01")
    w.say("## Two problems\n\n1. **`print()`** does not interpret Rich markup.\n2. Colour is forced "
          "when stdout is not a TTY.\n\n```python\nconsole = Console(force_terminal=None)\n"
          "console.print(\"[bold red]ERROR[/bold red]\", escape(acct))\n```\n\nI'll run the tests "
          "first.", "msg_02")
    w.tool("Bash", {"command": "uv run pytest tests/cli -q", "description": "Run CLI tests"},
           "Exit code 1\nFAILED tests/cli/test_reconcile.py::test_plain_output - AssertionError\n"
           "1 failed, 11 passed in 0.42s", "msg_03", error=True)
    w.tool("Edit", {"file_path": f"{PROJECT}/payments/cli/__init__.py",
                    "old_string": "from rich.console import Console\n\nconsole = Console(force_terminal=True)",
                    "new_string": "from rich.console import Console\nfrom rich.markup import escape\n\n"
                                  "console = Console()"},
           "The file has been updated.", "msg_04")
    w.tool("Task", {"description": "Find other print calls", "subagent_type": "Explore",
                    "prompt": "List every builtin print() call under payments/cli."},
           [{"type": "text", "text": "Found **2** calls:\n\n- `reconcile.py:40`\n- `export.py:12`"},
            {"type": "text", "text": f"agentId: {AGENT} (for resuming to continue this agent's work)"}],
           "msg_05")
    w.say("Fixed both call sites; the tests pass now.", "msg_06")
    w._rec("system", None, subtype="compact_boundary", content="Conversation compacted",
           compactMetadata={"trigger": "auto", "preTokens": 151234}, isMeta=False)
    w._rec("user", {"role": "user", "content": "This session is being continued from a previous "
                    "conversation. Summary: fixed markup printing in the reconcile CLI."},
           isCompactSummary=True, isVisibleInTranscriptOnly=True)
    w.raw(b'{"type":"assistant","message":{"content":[{"type":"text","text":"cut sho')
    w._rec("mystery-record", None, payloadish=1)
    for k in range(extra_turns):
        w.user(f"Turn {k + 2}: check the ledger export for account acct_{k:03d}.")
        w.say(f"Looking at account `acct_{k:03d}` now.", f"msg_t{k}a")
        w.tool("Bash", {"command": f"uv run payments export --account acct_{k:03d}"},
               f"exported 12 rows for acct_{k:03d}", f"msg_t{k}b")
        w.say(f"The export for acct_{k:03d} looks right.", f"msg_t{k}c")
    w.user("Last question: does the needle appear here? It does: needle.")
    w.say("Yes, the word needle is in this reply too.", "msg_end")
    project_dir = root / "projects" / "-home-dev-projects-payments-api"
    path = project_dir / f"{SESSION}.jsonl"
    w.write(path)
    sub = _Writer(agent_id=AGENT)
    sub.user("List every builtin print() call under payments/cli.")
    sub.tool("Grep", {"pattern": "print\\(", "path": f"{PROJECT}/payments/cli"},
             "payments/cli/reconcile.py:40\npayments/cli/export.py:12", "msg_s1")
    sub.say("Found **2** calls.", "msg_s2")
    sub.write(project_dir / SESSION / "subagents" / f"agent-{AGENT}.jsonl")
    return path


def make_library(root: Path) -> Library:
    library = Library([Root(str(root), "--root", explicit=True)], catalog=Catalog(None))
    library.scan()
    return library


class Harness(App[None]):
    """Pushes the transcript screen over a library, as the app does."""

    CSS_PATH = sorted(str(p) for p in STYLES.glob("*.tcss"))

    def __init__(self, library: Library, session: Session, **kwargs: Any) -> None:
        super().__init__()
        self.library = library
        self.session = session
        self.kwargs = kwargs

    def on_mount(self) -> None:
        self.push_screen(TranscriptScreen(self.library, self.session, **self.kwargs))


@pytest.fixture(autouse=True)
def utc(monkeypatch: pytest.MonkeyPatch) -> None:
    """Times are shown in local time: pin it, so snapshots do not depend on the machine."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()


@pytest.fixture
def library(tmp_path: Path) -> Library:
    write_fixture(tmp_path / "claude")
    return make_library(tmp_path / "claude")


def harness(library: Library, **kwargs: Any) -> Harness:
    return Harness(library, library.find(SESSION), **kwargs)


async def loaded(pilot: Any) -> TranscriptView:
    """Wait for the transcript to be read and painted; returns the view."""
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    view = pilot.app.screen.query_one(TranscriptView)
    assert view.loaded
    return view


def row_of(view: TranscriptView, predicate: Any) -> int:
    return next(r for r, item in enumerate(view.rows) if predicate(item))


def tool_row(view: TranscriptView, name: str) -> int:
    return row_of(view, lambda item: item.display is Display.TOOL and item.entry.tool_name == name)


async def goto_row(pilot: Any, view: TranscriptView, row: int) -> None:
    await pilot.press("g")
    for _ in range(row):
        await pilot.press("j")
    assert view.cursor_row == row


def screen_text(view: TranscriptView) -> list[str]:
    """The view's lines as shown, without the two-cell gutter (role bars, cursor)."""
    return [view.render_line(y).text[2:] for y in range(view.scrollable_content_region.height)]


# -- navigation ---------------------------------------------------------------------------------------


async def test_j_k_move_between_entries(library: Library) -> None:
    async with harness(library).run_test(size=SIZE) as pilot:
        view = await loaded(pilot)
        assert view.cursor_row == 0
        assert view.highlighted_entry is not None and view.highlighted_entry.text == EVIL
        await pilot.press("j", "j")
        assert view.cursor_row == 2
        assert view.highlighted_item is not None and view.highlighted_item.entry.tool_name == "Bash"
        await pilot.press("k")
        assert view.cursor_row == 1
        await pilot.press("down", "down", "up")
        assert view.cursor_row == 2


async def test_turn_jumps_land_on_user_prompts(library: Library) -> None:
    async with harness(library).run_test(size=SIZE) as pilot:
        view = await loaded(pilot)
        await pilot.press("right_square_bracket")
        item = view.highlighted_item
        assert item is not None and item.is_user_turn and item.entry.text.startswith("Turn 2:")
        await pilot.press("right_square_bracket", "right_square_bracket")
        assert view.highlighted_entry is not None and view.highlighted_entry.text.startswith("Turn 4:")
        # the turn is scrolled to the top of the screen (one line of context above it)
        assert any(line.strip().endswith("account acct_002.") for line in screen_text(view)[:4])
        await pilot.press("left_square_bracket")
        assert view.highlighted_entry is not None and view.highlighted_entry.text.startswith("Turn 3:")


async def test_g_and_G_jump_to_the_ends_without_animation(library: Library) -> None:
    async with harness(library).run_test(size=SIZE) as pilot:
        view = await loaded(pilot)
        await pilot.press("G")
        assert view.cursor_row == len(view.rows) - 1
        assert view.scroll_y == view.max_scroll_y > 0  # at once: no smooth-scroll animation
        assert "Yes, the word needle is in this reply too." in "\n".join(screen_text(view))
        await pilot.press("g")
        assert view.cursor_row == 0 and view.scroll_y == 0


async def test_page_down_scrolls_and_brings_the_cursor_along(library: Library) -> None:
    async with harness(library).run_test(size=SIZE) as pilot:
        view = await loaded(pilot)
        await pilot.press("pagedown")
        assert view.scroll_y > 20
        top = round(view.scroll_y)
        row = view.cursor_row
        assert view._heights.top(row) + view._heights[row] > top  # the cursor is on screen
        await pilot.press("pageup")
        assert view.scroll_y < top


async def test_paging_up_over_unrendered_entries_keeps_the_screen_steady(tmp_path: Path) -> None:
    """Heights are guesses until rendered: paging up into them must still move exactly a page."""
    w = _Writer()
    for k in range(40):
        w.user(f"Question {k}: " + "why is it so " * (k * 7 % 23))
        w.say(f"Answer {k}\n\n" + "\n".join(f"- point {k}.{j}" for j in range(k % 5))
              + f"\n\n```python\nx = {k}\n```\n\n" + "long words " * (k * 13 % 80), f"m{k}")
    w.write(tmp_path / "c" / "projects" / "p" / f"{SESSION}.jsonl")
    library = make_library(tmp_path / "c")
    async with harness(library).run_test(size=SIZE) as pilot:
        view = await loaded(pilot)
        await pilot.press("G")
        pages = 0
        while view.scroll_y > 0:
            before = screen_text(view)
            await pilot.press("pageup")
            after = screen_text(view)
            if view.scroll_y > 0:
                assert after[-2:] == before[:2]  # a page is the screen less two lines of overlap
            pages += 1
        assert pages > 5


async def test_a_resize_keeps_the_highlighted_entry_in_place(library: Library) -> None:
    def where(view: TranscriptView) -> int:
        return next(y for y, line in enumerate(screen_text(view)) if "Looking at account acct_001" in line)

    async with harness(library).run_test(size=SIZE) as pilot:
        view = await loaded(pilot)
        await pilot.press("right_square_bracket", "right_square_bracket", "j")
        entry, y = view.highlighted_entry, where(view)
        assert entry is not None and entry.text.startswith("Looking at account `acct_001`")
        await pilot.resize_terminal(70, 30)
        await pilot.pause()
        assert view.highlighted_entry is entry and where(view) == y
        await pilot.resize_terminal(*SIZE)
        await pilot.pause()
        assert where(view) == y


# -- expanding, thinking --------------------------------------------------------------------------------


async def test_enter_space_and_e_E_expand_and_collapse(library: Library) -> None:
    async with harness(library).run_test(size=SIZE) as pilot:
        view = await loaded(pilot)
        bash = tool_row(view, "Bash")
        await goto_row(pilot, view, bash)
        item = view.rows[bash]
        assert not view.is_expanded(item)
        await pilot.press("enter")
        assert view.is_expanded(item)
        text = "\n".join(screen_text(view))
        assert "$ uv run pytest tests/cli -q" in text and "1 failed, 11 passed" in text
        await pilot.press("space")
        assert not view.is_expanded(item)
        await pilot.press("e")
        assert all(view.is_expanded(i) for i in view.rows if i.collapsible)
        await pilot.press("E")
        assert not any(view.is_expanded(i) for i in view.rows)
        assert view.highlighted_item is item  # the cursor stayed on its entry through it all


async def test_click_on_a_tool_line_expands_it(library: Library) -> None:
    async with harness(library).run_test(size=SIZE) as pilot:
        view = await loaded(pilot)
        row = tool_row(view, "Edit")
        y = view._heights.top(row) + view._gap(row) - round(view.scroll_y)
        await pilot.click(TranscriptView, offset=(10, y))
        assert view.cursor_row == row and view.is_expanded(view.rows[row])


async def test_t_shows_and_hides_thinking(library: Library) -> None:
    async with harness(library).run_test(size=SIZE) as pilot:
        view = await loaded(pilot)
        assert not any(item.display is Display.THINKING for item in view.rows)
        count = len(view.rows)
        await pilot.press("t")
        assert len(view.rows) == count + 1 and view.rows[1].display is Display.THINKING
        assert any("Thinking" in line for line in screen_text(view))
        await pilot.press("t")
        assert len(view.rows) == count


async def test_edit_expands_to_a_diff(library: Library) -> None:
    async with harness(library).run_test(size=SIZE) as pilot:
        view = await loaded(pilot)
        await goto_row(pilot, view, tool_row(view, "Edit"))
        await pilot.press("enter")
        lines = screen_text(view)
        assert any(line.strip() == "+ from rich.markup import escape" for line in lines)
        assert any(line.strip() == "- console = Console(force_terminal=True)" for line in lines)


async def test_malformed_and_unknown_records_are_shown_and_marked(library: Library) -> None:
    async with harness(library).run_test(size=SIZE) as pilot:
        view = await loaded(pilot)
        raw = [item for item in view.rows if item.display is Display.RAW]
        assert [item.entry.kind.value for item in raw] == ["malformed", "unknown"]
        text = "\n".join(screen_text(view))
        assert "⚠ malformed line" in text and "unknown record “mystery-record”" in text


async def test_a_huge_single_line_result_is_cut_before_it_is_laid_out(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A one-line result of megabytes: expanding lays out at most BODY_LINES screen lines of it
    (never the whole text), shows how much is left, and `p` pages all of it."""
    from rich.text import Text

    from sessionscope.tui.screens import transcript as screen_mod
    from sessionscope.tui.widgets._transcript_render import BODY_LINES, Painter

    huge = ("0123456789abcdef" * 40_000) + "THE-END"  # 640,007 characters, no newline
    w = _Writer()
    w.user("Print the bundle.")
    w.tool("Bash", {"command": "cat dist/bundle.min.js"}, huge, "msg_01")
    w.say("That is the minified bundle.", "msg_02")
    w.write(tmp_path / "c" / "projects" / "p" / f"{SESSION}.jsonl")
    library = make_library(tmp_path / "c")
    laid_out: list[int] = []
    render = Painter._render

    def spy(self: Painter, renderable: Any, width: int) -> Any:
        if isinstance(renderable, Text):
            laid_out.append(len(renderable.plain))
        return render(self, renderable, width)

    monkeypatch.setattr(Painter, "_render", spy)
    paged: list[tuple[list[str], str | None]] = []
    monkeypatch.setattr(screen_mod, "run_in_terminal",
                        lambda screen, argv, text=None, **kw: paged.append((argv, text)))
    monkeypatch.setenv("PAGER", "less")
    async with harness(library).run_test(size=SIZE) as pilot:
        view = await loaded(pilot)
        bash = tool_row(view, "Bash")
        await goto_row(pilot, view, bash)
        await pilot.press("enter")
        index = view.model.index_of(view.rows[bash].entry.id)
        strips = view._strips_for(index)
        assert max(laid_out) <= BODY_LINES * view.scrollable_content_region.width
        assert len(strips) <= BODY_LINES + 4  # head, command, output rule, the lines, the note
        note = strips[-1].text
        assert "1 more line" in note and "p pages the whole entry" in note
        assert "THE-END" not in "".join(s.text for s in strips)
        await pilot.press("p")
        argv, text = paged[-1]
        assert argv == ["less"] and text is not None and text.endswith(huge)


# -- find ---------------------------------------------------------------------------------------------


async def test_find_scrolls_to_a_match_that_wraps_across_lines(tmp_path: Path) -> None:
    """Issue 10, item 21: a phrase that the width wraps in its middle is still found on screen:
    the view scrolls to the line where it starts, not to the top of its (long) entry."""
    w = _Writer()
    w.user("Explain the retry loop.")
    w.say(" ".join(f"word{i:03d}" for i in range(900)), "msg_01")  # ~70 screen lines
    w.write(tmp_path / "c" / "projects" / "p" / f"{SESSION}.jsonl")
    library = make_library(tmp_path / "c")
    async with harness(library).run_test(size=SIZE) as pilot:
        view = await loaded(pilot)
        index = view.model.index_of(view.rows[1].entry.id)
        strips = view._strips_for(index)
        k = len(strips) - 8  # far below the first screen: the last word of a line, the first of the next
        a, b = strips[k].text.split()[-1], strips[k + 1].text.split()[0]
        view.find(f"{a} {b}")
        await pilot.pause()
        assert view.highlighted_item is view.rows[1]
        shown = "\n".join(screen_text(view))
        assert a in shown and b in shown


async def test_find_with_slash_n_and_N(library: Library) -> None:
    async with harness(library).run_test(size=SIZE) as pilot:
        view = await loaded(pilot)
        bar = pilot.app.screen.query_one(FindBar)
        await pilot.press("slash")
        assert bar.active and isinstance(pilot.app.focused, Input)
        await pilot.press(*"needle", "enter")
        assert view.has_focus and view.query == "needle"
        count = pilot.app.screen.query_one("#find-count")
        assert str(count.render()).strip() == "1/2"
        first = view.highlighted_entry
        assert first is not None and "needle" in first.text and first.role == "user"
        await pilot.press("n")
        assert view.highlighted_entry is not None and view.highlighted_entry.role == "assistant"
        assert str(count.render()).strip() == "2/2"
        await pilot.press("n")  # wraps around
        assert view.highlighted_entry is first
        await pilot.press("N")
        assert view.highlighted_entry is not None and view.highlighted_entry.role == "assistant"
        await pilot.press("escape")
        assert not bar.active and view.query == ""
        assert pilot.app.screen.is_current  # escape closed the find first, not the screen


async def test_find_without_a_match_says_so_even_for_markup_like_queries(library: Library) -> None:
    async with harness(library).run_test(size=SIZE) as pilot:
        view = await loaded(pilot)
        await pilot.press("slash", *"[/zz", "enter", "n")
        assert view.query == "[/zz" and view.cursor_row == 0
        assert str(pilot.app.screen.query_one("#find-count").render()).strip() == "no match"
        assert any("[/zz" in n.message for n in pilot.app._notifications)


async def test_find_opens_a_collapsed_tool_whose_output_matches(library: Library) -> None:
    async with harness(library).run_test(size=SIZE) as pilot:
        view = await loaded(pilot)
        await pilot.press("slash", *"11 passed", "enter")
        item = view.highlighted_item
        assert item is not None and item.entry.tool_name == "Bash" and view.is_expanded(item)


# -- copy, raw, external programs ------------------------------------------------------------------------


async def test_y_copies_the_highlighted_message_without_its_control_sequences(library: Library) -> None:
    async with harness(library).run_test(size=SIZE) as pilot:
        view = await loaded(pilot)
        await pilot.press("y")
        # The markup is text and stays; the OSC 52 and ESC[2J sequences go, each as a whole.
        assert pilot.app.clipboard == EVIL.replace("\x1b]52;c;SGVsbG8=\x07", "").replace("\x1b[2J", "")
        notice = list(pilot.app._notifications)[-1]
        assert notice.title == "Copied" and "left out 2 terminal control codes" in notice.message
        await goto_row(pilot, view, tool_row(view, "Bash"))
        await pilot.press("y")
        assert pilot.app.clipboard.startswith("uv run pytest tests/cli -q\n\nExit code 1\n")
        notice = list(pilot.app._notifications)[-1]
        assert "left out" not in notice.message  # nothing dropped, nothing said


async def test_r_shows_the_raw_record_pretty_printed(library: Library) -> None:
    async with harness(library).run_test(size=SIZE) as pilot:
        view = await loaded(pilot)
        await goto_row(pilot, view, tool_row(view, "Edit"))
        await pilot.press("r")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        screen = pilot.app.screen
        assert isinstance(screen, RawRecordScreen)
        from textual.widgets import TextArea

        text = screen.query_one(TextArea).text
        assert '"name": "Edit"' in text and '\n  "type": "assistant",' in text
        await pilot.press("escape")
        assert isinstance(pilot.app.screen, TranscriptScreen)


def test_pager_and_editor_commands() -> None:
    assert external_command("/t/a.jsonl", 7, editor=True, env={"EDITOR": "nvim -u NONE"}) == \
        ["nvim", "-u", "NONE", "+7", "/t/a.jsonl"]
    assert external_command("/t/a.jsonl", 7, editor=True, env={}) == ["vi", "+7", "/t/a.jsonl"]
    assert external_command("/t/a.jsonl", 7, editor=False, env={}) == ["less", "-S", "+7g", "/t/a.jsonl"]
    assert external_command("/t/a.jsonl", 7, editor=False, env={"PAGER": "most"}) == ["most", "/t/a.jsonl"]
    assert pager_command({"PAGER": "less -R"}) == ["less", "-R"] and pager_command({}) == ["less"]


async def test_o_and_O_hand_the_file_to_pager_and_editor(library: Library, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAGER", "less")
    monkeypatch.setenv("EDITOR", "nano")
    monkeypatch.delenv("VISUAL", raising=False)
    ran: list[list[str]] = []
    monkeypatch.setattr(TranscriptScreen, "run_external", lambda self, argv: ran.append(argv))
    async with harness(library).run_test(size=SIZE) as pilot:
        view = await loaded(pilot)
        await pilot.press("j", "o", "O")
        entry = view.highlighted_entry
        assert entry is not None
        line = entry.locator.line
        assert ran == [["less", "-S", f"+{line}g", entry.locator.path], ["nano", f"+{line}", entry.locator.path]]


# -- subagents, opening at an entry ------------------------------------------------------------------------


async def test_enter_on_a_task_call_opens_the_subagent(library: Library) -> None:
    async with harness(library).run_test(size=SIZE) as pilot:
        view = await loaded(pilot)
        task = tool_row(view, "Task")
        assert "↵ open subagent" in view.render_line(view._heights.top(task) + view._gap(task)).text
        await goto_row(pilot, view, task)
        await pilot.press("enter")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        screen = pilot.app.screen
        assert isinstance(screen, TranscriptScreen)
        assert screen.session.id == f"{SESSION}/agent-{AGENT}"
        child = screen.query_one(TranscriptView)
        assert child.loaded and child.rows[0].entry.text.startswith("List every builtin print()")
        await pilot.press("escape")
        assert pilot.app.screen.query_one(TranscriptView) is view


async def test_opening_at_an_entry_scrolls_to_it_and_highlights_the_query(library: Library) -> None:
    session = library.find(SESSION)
    target = next(e for e in library.load(session).entries if e.text.startswith("Turn 9:"))
    async with harness(library, entry_id=target.id, highlight="acct_007").run_test(size=SIZE) as pilot:
        view = await loaded(pilot)
        assert view.highlighted_entry is not None and view.highlighted_entry.id == target.id
        assert view.scroll_y > 0
        lines = screen_text(view)
        assert any("Turn 9: check the ledger export for account acct_007." in line for line in lines)
        bar = pilot.app.screen.query_one(FindBar)
        assert bar.active and bar.query_text == "acct_007" and view.query == "acct_007"
        assert not isinstance(pilot.app.focused, Input)  # keys go to the transcript
        await pilot.press("n")
        assert view.highlighted_entry is not None and "acct_007" in view.highlighted_entry.text
        assert view.highlighted_entry.id != target.id


async def test_opening_at_a_tool_result_highlights_its_call(library: Library) -> None:
    session = library.find(SESSION)
    result = next(e for e in library.load(session).entries if e.kind.value == "tool_result" and e.is_error)
    async with harness(library, entry_id=result.id).run_test(size=SIZE) as pilot:
        view = await loaded(pilot)
        item = view.highlighted_item
        assert item is not None and item.result is not None and item.result.id == result.id


async def test_opening_at_a_thinking_entry_shows_thinking(library: Library) -> None:
    session = library.find(SESSION)
    thought = next(e for e in library.load(session).entries if e.kind.value == "thinking")
    async with harness(library, entry_id=thought.id).run_test(size=SIZE) as pilot:
        view = await loaded(pilot)
        assert view.show_thinking and view.highlighted_entry is not None
        assert view.highlighted_entry.id == thought.id


# -- untrusted text -----------------------------------------------------------------------------------------


def _all_segments(view: TranscriptView) -> list[Any]:
    segments = []
    for y in range(view.scrollable_content_region.height):
        segments.extend(view.render_line(y))
    return segments


async def test_markup_and_escapes_in_transcript_text_never_reach_the_terminal(library: Library) -> None:
    async with harness(library).run_test(size=SIZE) as pilot:
        view = await loaded(pilot)
        await pilot.press("e")  # tool output too
        text = "\n".join(screen_text(view))
        assert "[bold]x[/bold]" in text and "[link=https://evil.example]x[/link]" in text
        assert "␛]52;c;SGVsbG8=␇" in text and "␛[2J" in text
        segments = _all_segments(view)
        assert not any("\x1b" in s.text or "\x07" in s.text for s in segments)
        assert not any(s.style is not None and s.style.link for s in segments)
        svg = pilot.app.export_screenshot()
        assert "\x1b" not in svg and "[bold]x[/bold]" in svg
        # the header shows the title (the first prompt) as written, too
        title = pilot.app.screen.query_one("#transcript-title")
        assert "[bold]x[/bold]" in str(title.render())


async def test_markdown_keeps_html_like_tags_and_shows_link_targets(tmp_path: Path) -> None:
    w = _Writer()
    w.user("<command-name>/review</command-name> and <b>bold?</b>\n\n<div>a block</div>")
    w.say("See [the docs](https://evil.example/x) and :smile: [bold]y[/bold]", "msg_1")
    w.write(tmp_path / "c" / "projects" / "p" / f"{SESSION}.jsonl")
    library = make_library(tmp_path / "c")
    async with harness(library).run_test(size=SIZE) as pilot:
        view = await loaded(pilot)
        text = "\n".join(screen_text(view))
        assert "<command-name>/review</command-name>" in text and "<div>a block</div>" in text
        assert "the docs (https://evil.example/x)" in text and ":smile: [bold]y[/bold]" in text
        assert not any(s.style is not None and s.style.link for s in _all_segments(view))


async def test_the_demo_markup_session_renders_literally(tmp_path: Path) -> None:
    from sessionscope.core.demo import generate_demo

    corpus = generate_demo(tmp_path / "demo", now=T0)
    library = make_library(corpus.claude_root / "projects")
    session = next(s for s in library.all_sessions() if s.path == str(corpus.markup_file))
    async with Harness(library, session).run_test(size=SIZE) as pilot:
        view = await loaded(pilot)
        await pilot.press("e")
        segments = _all_segments(view)
        text = "".join(s.text for s in segments)
        assert "[bold]x[/bold]" in text and "[bold red]ERROR[/bold red]" in text
        assert "␛[31m" in text
        assert not any("\x1b" in s.text for s in segments)


# -- big files ---------------------------------------------------------------------------------------------


async def test_a_big_file_streams_and_rereads_what_it_cut(library: Library, monkeypatch: pytest.MonkeyPatch) -> None:
    import sessionscope.core.read.loading as core

    monkeypatch.setattr(core, "BIG_FILE_BYTES", 1)  # stream even this small file
    monkeypatch.setattr(core, "OTHER_CAP", 20)  # and cut tool output after 20 characters
    async with harness(library).run_test(size=SIZE) as pilot:
        view = await loaded(pilot)
        assert view.streamed
        facts = str(pilot.app.screen.query_one("#transcript-facts").render())
        assert "large file" in facts
        bash = tool_row(view, "Bash")
        item = view.rows[bash]
        assert item.result_cut and len(item.result.text) == 20
        assert sum(1 for i in view.rows if i.display is Display.RAW) == 2  # malformed and unknown
        await goto_row(pilot, view, bash)
        view.action_activate()  # shows what is in memory at once, reads the rest in the background
        assert view.is_expanded(item) and item.result_cut
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert not item.result_cut and item.result.text.endswith("1 failed, 11 passed in 0.42s")
        assert any("1 failed, 11 passed" in line for line in screen_text(view))


async def test_a_streamed_file_holds_a_bounded_number_of_entries_read_again(
        library: Library, monkeypatch: pytest.MonkeyPatch) -> None:
    """Expanding tool calls of a streamed file reads their output in full; past the bound, the
    one read longest ago goes back to what is kept in memory (marked cut again on screen) and
    is read again when expanded again."""
    import sessionscope.core.read.loading as core
    import sessionscope.core.read.transcript as model

    monkeypatch.setattr(core, "BIG_FILE_BYTES", 1)
    monkeypatch.setattr(core, "OTHER_CAP", 20)
    monkeypatch.setattr(model, "READ_AGAIN_HELD", 1)
    async with harness(library).run_test(size=SIZE) as pilot:
        view = await loaded(pilot)
        rows = [r for r, item in enumerate(view.rows) if item.display is Display.TOOL and item.result_cut]
        assert len(rows) >= 2
        assert set(view._dates) - {0} == {T0.date().toordinal()}  # (days kept as ordinals; 0: no time)
        first, second = (view.rows[r] for r in rows[:2])
        for r in rows[:2]:
            await goto_row(pilot, view, r)
            view.action_activate()
            await pilot.app.workers.wait_for_complete()
            await pilot.pause()
        assert not second.result_cut and first.result_cut and len(first.result.text) == 20
        assert len(view.model._read_again) == 1
        await goto_row(pilot, view, rows[0])
        assert any("output cut in memory" in line for line in screen_text(view))
        view.action_toggle()  # folded, and open again: read again
        view.action_toggle()
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert not first.result_cut and second.result_cut and len(view.model._read_again) == 1


async def _walk(library: Library) -> tuple[list[Any], type]:
    """What the reader shows over a walk through the fixture: the screen after each step (ends,
    pages, a find and its next match, everything expanded, thinking shown), and the find's count."""
    seen: list[Any] = []
    async with harness(library).run_test(size=SIZE) as pilot:
        view = await loaded(pilot)

        async def step(*keys: str) -> None:
            for key in keys:
                await pilot.press(key)
            await pilot.app.workers.wait_for_complete()
            await pilot.pause()
            seen.append((view.cursor_row, round(view.scroll_y), screen_text(view)))

        await step()
        await step("G")
        await step("pageup", "pageup")
        await step("g", "j", "j")
        view.find("NEEDLE")
        await step()
        seen.append((view.query, len(view._matches)))
        await step("n")
        await step("N", "N")
        view.find("exported 12 rows")  # (inside folded tool output: opened where it is found)
        await step()
        seen.append(len(view._matches))
        view.clear_find()
        await step("e")
        await step("G", "pageup")
        await step("t", "g")
        await step("E", "G")
        return seen, type(view.model)


async def test_a_streamed_transcript_shows_what_a_loaded_one_shows(
        library: Library, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same walk over the same file, loaded whole and streamed (its items kept compact and read
    again from the file, at most 4 held: a spy checks the bound), gives the same screens."""
    import sessionscope.core.read.compact as compact
    import sessionscope.core.read.loading as core

    loaded_walk, kind = await _walk(library)
    assert kind is not compact.CompactTranscript
    monkeypatch.setattr(core, "BIG_FILE_BYTES", 1)
    monkeypatch.setattr(compact, "ITEMS_HELD", 4)
    sizes: list[int] = []
    hold = compact.CompactTranscript._hold

    def spy(self: Any, index: int, item: Any) -> None:
        hold(self, index, item)
        sizes.append(len(self._held) - len(self._read_again))

    monkeypatch.setattr(compact.CompactTranscript, "_hold", spy)
    streamed_walk, kind = await _walk(library)
    assert kind is compact.CompactTranscript
    assert streamed_walk == loaded_walk
    assert sizes and max(sizes) <= 4


async def test_a_streamed_file_opened_at_a_search_hit_finds_the_query_once_read(
        library: Library, monkeypatch: pytest.MonkeyPatch) -> None:
    """Opened with a query (from a search hit), a streamed file is searched once it is read, not
    item by item from the file while its batches arrive; the hits are those of the loaded file."""
    import sessionscope.core.read.compact as compact
    import sessionscope.core.read.loading as core

    async with harness(library, highlight="needle").run_test(size=SIZE) as pilot:
        want = (await loaded(pilot))._matches
    assert len(want) == 2
    monkeypatch.setattr(core, "BIG_FILE_BYTES", 1)
    checked: list[list[int]] = []
    matches = compact.CompactTranscript.matches

    def spy(self: Any, query: str, indices: Any = None) -> list[int]:
        checked.append(list(indices or []))
        return matches(self, query, indices)

    monkeypatch.setattr(compact.CompactTranscript, "matches", spy)
    async with harness(library, highlight="needle").run_test(size=SIZE) as pilot:
        view = await loaded(pilot)
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(view.model, compact.CompactTranscript)
        assert view._matches == want and not checked


async def test_reading_the_whole_of_a_reply_split_over_lines_reads_every_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A reply written over several lines (one content block a line) is one item; in a streamed
    file whose lines were cut in memory, "read the whole message" reads all of its lines, and
    the item then says what the whole read of the file says."""
    import sessionscope.core.read.loading as core

    w = _Writer()
    w.user("Explain the reconcile fix.")
    parts = [f"Part {k}: " + " ".join(f"word{k}x{n}" for n in range(30)) for k in range(3)]
    for part in parts:
        w.say(part, "msg_split")
    w.user("Thanks.")
    w.write(tmp_path / "claude" / "projects" / "-p" / f"{SESSION}.jsonl")
    library = make_library(tmp_path / "claude")
    whole = "\n\n".join(parts)
    monkeypatch.setattr(core, "BIG_FILE_BYTES", 1)
    monkeypatch.setattr(core, "TEXT_CAP", 40)
    async with harness(library).run_test(size=SIZE) as pilot:
        view = await loaded(pilot)
        row = row_of(view, lambda item: item.display is Display.MESSAGE and item.entry.role == "assistant")
        item = view.rows[row]
        assert item.cut and item.entry.text != whole
        await goto_row(pilot, view, row)
        view.action_activate()  # enter: read the whole message
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        item = view.rows[row]
        assert not item.cut and item.entry.text == whole
        assert view.full_item().entry.text == whole
        await pilot.press("y")
        assert pilot.app.clipboard == whole


# -- snapshots ---------------------------------------------------------------------------------------------


async def _ready(pilot: Any) -> None:
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def test_snapshot_tool_calls_collapsed(library: Library, snap_compare: Any) -> None:
    assert snap_compare(harness(library), terminal_size=SIZE, run_before=_ready)


def test_snapshot_tool_call_expanded(library: Library, snap_compare: Any) -> None:
    assert snap_compare(harness(library), press=["j", "j", "enter"], terminal_size=SIZE, run_before=_ready)


def test_snapshot_thinking_shown(library: Library, snap_compare: Any) -> None:
    assert snap_compare(harness(library), press=["t"], terminal_size=SIZE, run_before=_ready)


def test_snapshot_edit_diff(library: Library, snap_compare: Any) -> None:
    assert snap_compare(harness(library), press=["j", "j", "j", "enter"], terminal_size=SIZE,
                        run_before=_ready)


def test_snapshot_find_active(library: Library, snap_compare: Any) -> None:
    assert snap_compare(harness(library), press=["slash", *"acct_010", "enter"], terminal_size=SIZE,
                        run_before=_ready)


# -- abandoned branches ------------------------------------------------------------------------------------

REWOUND = "zanzibarquux"  # a word only on the branch the rewind abandoned


def write_rewound(root: Path) -> Path:
    """A prompt and reply; a second prompt with a tool call and a reply holding REWOUND, then the
    rewind: another second prompt from the same parent, which the conversation continued."""
    w = _Writer()
    w.user("Reconcile the ledger export.")
    w.say("Reading the exporter first.", "msg_r1")
    fork = w.parent
    w.user(f"Try the {REWOUND} approach instead.")
    w.tool("Bash", {"command": "uv run payments export --dry-run"}, "exported 0 rows", "msg_r2")
    w.say(f"The {REWOUND} approach exports nothing.", "msg_r3")
    w.parent = fork
    w.user("Try the plain approach.")
    w.say("The plain approach works: 12 rows.", "msg_r4")
    path = root / "projects" / "-home-dev-projects-payments-api" / f"{SESSION}.jsonl"
    w.write(path)
    return path


async def test_a_search_hit_on_a_rewound_branch_opens_at_it_marked(tmp_path: Path) -> None:
    from app_factory import settle

    from sessionscope.tui.app import SessionScopeApp
    from sessionscope.tui.widgets.search_pane import SearchPane

    write_rewound(tmp_path / "claude")
    library = Library([Root(str(tmp_path / "claude"), "--root", explicit=True)], catalog=Catalog(None))
    app = SessionScopeApp(library, index_dir=tmp_path / "index", now=T0 + timedelta(hours=2))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        hits = app.search(REWOUND).hits
        assert [h.session_id for h in hits] == [SESSION, SESSION]
        await pilot.press("2")
        app.screen.query_one(SearchPane).query_one("Input").value = REWOUND
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("enter", "enter")  # into the results, then open the first hit
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, TranscriptScreen)
        view = screen.query_one(TranscriptView)
        item = view.highlighted_item
        assert item is not None and item.entry.id == hits[0].entry_id and item.off_branch
        assert view.show_branches and view.query == REWOUND
        lines = screen_text(view)
        prompt = next(line for line in lines if f"Try the {REWOUND} approach" in line)
        assert any("rewound branch" in line for line in lines)
        assert prompt  # the entry itself is on screen, highlighted by the find
        # Its lines are muted, its gutter marks it: no role colour on an abandoned prompt.
        y = next(y for y in range(view.scrollable_content_region.height)
                 if "rewound branch" in view.render_line(y).text)
        assert view.render_line(y).text.startswith(("╎", "▌"))
        footer_keys = {k for k, b in screen.active_bindings.items() if b.binding.show and b.enabled}
        assert "b" in footer_keys
        await pilot.press("b")  # back to the active branch only
        assert not view.show_branches
        assert all(not i.off_branch for i in view.rows)
        assert [i.entry.text for i in view.rows if i.is_user_turn] == [
            "Reconcile the ledger export.", "Try the plain approach."]


async def test_a_streamed_file_hides_its_rewound_branch_once_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sessionscope.core.read.loading as core

    monkeypatch.setattr(core, "BIG_FILE_BYTES", 1)  # stream even this small file
    write_rewound(tmp_path / "claude")
    library = make_library(tmp_path / "claude")
    whole = [e for e in library.load(library.find(SESSION)).entries if not e.on_active_branch]
    async with harness(library).run_test(size=SIZE) as pilot:
        view = await loaded(pilot)
        assert view.streamed and view.model.has_branches
        assert {i.entry.id for i in view.model.items if i.off_branch} == {
            e.id for e in whole if view.model.index_of(e.id) is not None
            and view.model.items[view.model.index_of(e.id)].entry.id == e.id}
        assert not any(REWOUND in line for line in screen_text(view))
        facts = str(pilot.app.screen.query_one("#transcript-facts").render())
        assert "large file" in facts and "all branches" not in facts
        from sessionscope.core.catalog.library import conversation

        read_count = len(conversation(library.load(library.find(SESSION)).entries))  # as `read` counts
        assert view.entry_count == read_count and f"{read_count} entries" in facts
        await pilot.press("b")
        assert view.show_branches
        assert sum(REWOUND in line for line in screen_text(view)) == 2
        assert any("rewound branch" in line for line in screen_text(view))


async def test_the_large_file_note_is_on_screen_at_120_columns(library: Library, monkeypatch: pytest.MonkeyPatch) -> None:
    import sessionscope.core.read.loading as core

    monkeypatch.setattr(core, "BIG_FILE_BYTES", 1)
    async with harness(library).run_test(size=SIZE) as pilot:
        view = await loaded(pilot)
        facts = pilot.app.screen.query_one("#transcript-facts")
        assert facts.region.right <= SIZE[0]
        shown = facts.render_line(0).text  # what the header shows, cut to the widget's width
        assert "large file" in shown
        assert f"{view.entry_count:,} entries" in str(facts.render())


async def test_code_colours_follow_a_light_theme(library: Library) -> None:
    """Highlighted code uses a dark scheme on dark themes and a light one on light themes."""
    from sessionscope.tui.widgets._transcript_render import CODE_THEME, LIGHT_CODE_THEME

    async with harness(library).run_test(size=SIZE) as pilot:
        view = await loaded(pilot)
        assert view._get_painter().code_theme == CODE_THEME
        pilot.app.theme = "textual-light"
        await pilot.pause()
        assert view._get_painter().code_theme == LIGHT_CODE_THEME


# -- days -------------------------------------------------------------------------------------------------


def write_two_days(root: Path) -> Path:
    """A session that starts late on Friday 20 November and goes on past midnight, then on Monday."""
    w = _Writer()
    w.t = datetime(2026, 11, 20, 23, 40, tzinfo=timezone.utc)
    w.user("Why does the nightly export fail?")
    w.say("It runs at midnight and reads yesterday's ledger.", "msg_01")
    w.tool("Bash", {"command": "uv run payments export --date yesterday"}, "exported 0 rows", "msg_02")
    w.t = datetime(2026, 11, 21, 0, 5, tzinfo=timezone.utc)
    w.say("After midnight the same command exports 0 rows: the date moved under it.", "msg_03")
    w.user("So pin the date when the job starts.")
    w.t = datetime(2026, 11, 23, 9, 0, tzinfo=timezone.utc)
    w.user("Monday: did the pinned date hold over the weekend?")
    w.say("Yes, both nightly runs exported their rows.", "msg_04")
    path = root / "projects" / "-home-dev-projects-payments-api" / f"{SESSION}.jsonl"
    w.write(path)
    return path


@pytest.fixture
def two_days(tmp_path: Path) -> Library:
    write_two_days(tmp_path / "c")
    return make_library(tmp_path / "c")


async def test_the_header_gives_the_dates_and_a_divider_marks_each_new_day(two_days: Library) -> None:
    async with harness(two_days).run_test(size=SIZE) as pilot:
        view = await loaded(pilot)
        facts = str(pilot.app.screen.query_one("#transcript-facts").render())
        assert "20–23 Nov 2026" in facts
        lines = [line.strip() for line in screen_text(view)]
        sat = next(y for y, line in enumerate(lines) if "Sat 21 Nov 2026" in line)
        mon = next(y for y, line in enumerate(lines) if "Mon 23 Nov 2026" in line)
        assert not any("Fri 20 Nov 2026" in line for line in lines)  # the first day is the header's
        assert lines[sat].startswith("┄") and lines[sat + 1].startswith("Claude  00:05:")
        assert lines[mon + 1].startswith("You  09:00:")
        # the divider stays with its entry when rows come and go, and when the cursor moves on it
        await pilot.press("t")
        lines = [line.strip() for line in screen_text(view)]
        sat = next(y for y, line in enumerate(lines) if "Sat 21 Nov 2026" in line)
        assert lines[sat + 1].startswith("Claude  00:05:")
        await pilot.press("G")
        assert view.highlighted_entry is not None and view.highlighted_entry.text.startswith("Yes, both")


async def test_a_one_day_session_has_its_day_in_the_header_and_no_divider(library: Library) -> None:
    async with harness(library).run_test(size=SIZE) as pilot:
        view = await loaded(pilot)
        facts = str(pilot.app.screen.query_one("#transcript-facts").render())
        assert "Fri 20 Nov 2026" in facts
        await pilot.press("e")
        assert not any("┄" in line for line in screen_text(view))


def test_snapshot_a_new_day_is_marked(two_days: Library, snap_compare: Any) -> None:
    assert snap_compare(harness(two_days), terminal_size=SIZE, run_before=_ready)


# -- export ----------------------------------------------------------------------------------------------


async def test_w_exports_the_open_session_to_html_and_says_where(
        library: Library, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SESSIONSCOPE_DATA_DIR", str(tmp_path / "data"))
    async with harness(library).run_test(size=SIZE) as pilot:
        await loaded(pilot)
        await pilot.press("w")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        notice = list(pilot.app._notifications)[-1]
        path = tmp_path / "data" / "exports" / f"{SESSION}.html"
        assert notice.title == "Exported to" and notice.message == str(path)
        page = path.read_text()
        assert page.startswith("<!DOCTYPE html>") and "<script" not in page
        assert "Found **2** calls." not in page and "Found <strong>2</strong> calls." in page  # the subagent, inline
        assert "Rich markup only applies" not in page  # thinking is hidden in the reader: left out
