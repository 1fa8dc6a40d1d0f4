"""The transcript screen: a header line, the transcript view, a find bar and the footer."""
from __future__ import annotations

import os
import shlex
import subprocess
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import on
from textual.app import ComposeResult, SuspendNotSupported
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Footer, Static

from sessionscope.core.library import Library
from sessionscope.core.model import Session
from sessionscope.core.text import one_line, printable
from sessionscope.tui.screens.raw_record import RawRecordScreen
from sessionscope.tui.widgets.find_bar import FindBar
from sessionscope.tui.widgets.transcript_view import TranscriptView


class TranscriptScreen(Screen[None]):
    """One session's transcript, opened from the session list or at a search hit."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="transcript.back"),
        Binding("slash", "find", "Find", key_display="/", id="transcript.find"),
        Binding("y", "copy", "Copy", id="transcript.copy"),
        Binding("r", "raw", "Raw", id="transcript.raw"),
        Binding("o", "open_file(False)", "Pager", show=False, id="transcript.pager"),
        Binding("O", "open_file(True)", "Editor", show=False, id="transcript.editor"),
    ]

    def __init__(
        self,
        library: Library,
        session: Session,
        entry_id: str | None = None,
        highlight: str | None = None,
    ) -> None:
        super().__init__()
        self.library = library
        self.session = session
        self.entry_id = entry_id
        self.highlight = highlight
        self._progress = ""

    @property
    def view(self) -> TranscriptView:
        return self.query_one(TranscriptView)

    @property
    def find_bar(self) -> FindBar:
        return self.query_one(FindBar)

    def compose(self) -> ComposeResult:
        with Horizontal(id="transcript-header"):
            yield Static(self._title(), id="transcript-title")
            yield Static(self._facts(), id="transcript-facts")
        yield TranscriptView(self.library, self.session, entry_id=self.entry_id,
                             highlight=self.highlight, id="transcript")
        yield FindBar(id="find-bar")
        yield Footer()

    def on_mount(self) -> None:
        self.view.focus()
        if self.highlight:
            self.find_bar.open(self.highlight, focus=False)

    # -- header ---------------------------------------------------------------------------------
    def _title(self) -> Text:
        s = self.session
        return Text(one_line(s.title or s.id, 200), style=Style(bold=True))

    def _facts(self) -> Text:
        s = self.session
        facts = [s.agent]
        if s.project:
            facts.append(one_line(s.project, 60))
        facts.append(f"{s.entry_count:,} entries")
        if s.usage.total:
            facts.append(f"{_tokens(s.usage.total)} tokens")
        if self._progress:
            facts.append(self._progress)
        return Text("  ·  ".join(facts))

    @on(TranscriptView.LoadProgressed)
    def _progressed(self, event: TranscriptView.LoadProgressed) -> None:
        if event.done:
            self._progress = "large file: all branches shown" if event.streamed else ""
        else:
            self._progress = f"reading {event.fraction:.0%}"
        self.query_one("#transcript-facts", Static).update(self._facts())

    # -- find -----------------------------------------------------------------------------------
    def action_find(self) -> None:
        self.find_bar.open(self.view.query or None)

    @on(FindBar.QueryChanged)
    def _query_changed(self, event: FindBar.QueryChanged) -> None:
        self.view.find(event.query)

    @on(FindBar.Submitted)
    def _query_submitted(self, event: FindBar.Submitted) -> None:
        if event.query != self.view.query:
            self.view.find(event.query)
        if not event.query:
            self._close_find()
            return
        self.view.focus()

    @on(FindBar.Dismissed)
    def _find_dismissed(self) -> None:
        self._close_find()

    def _close_find(self) -> None:
        self.find_bar.close()
        self.view.clear_find()
        self.view.focus()

    @on(TranscriptView.FindUpdated)
    def _find_updated(self, event: TranscriptView.FindUpdated) -> None:
        self.find_bar.set_count(event.current, event.total)

    # -- actions --------------------------------------------------------------------------------
    def action_back(self) -> None:
        if self.find_bar.active or self.view.query:
            self._close_find()
            return
        if len(self.app.screen_stack) > 1:
            self.dismiss(None)
        else:  # the app was started on this transcript alone
            self.app.exit()

    def action_copy(self) -> None:
        text = self.view.copy_highlighted()
        if text is None:
            self.notify("nothing to copy", severity="warning")
        else:
            self.notify(f"{len(text):,} characters", title="Copied", timeout=2)

    def action_raw(self) -> None:
        entry = self.view.highlighted_entry
        if entry is None:
            self.notify("no entry highlighted", severity="warning")
            return
        self.app.push_screen(RawRecordScreen(entry.locator))

    def action_open_file(self, editor: bool) -> None:
        entry = self.view.highlighted_entry
        path = entry.locator.path if entry else self.session.path
        line = entry.locator.line if entry else 1
        argv = external_command(path, line, editor=editor, env=os.environ)
        self.run_external(argv)

    def run_external(self, argv: list[str]) -> None:
        """Run a pager or editor in the terminal the app is suspended from."""
        try:
            with self.app.suspend():
                subprocess.run(argv, check=False)
        except SuspendNotSupported:
            self.notify("this terminal cannot hand over to another program", severity="warning")
        except OSError as exc:
            self.notify(printable(f"cannot run {argv[0]}: {exc.strerror or exc}"), severity="error", markup=False)

    @on(TranscriptView.SubagentRequested)
    def _open_subagent(self, event: TranscriptView.SubagentRequested) -> None:
        if event.session is None:
            self.notify("no transcript of this subagent was found", severity="warning")
            return
        self.app.push_screen(TranscriptScreen(self.library, event.session))


def external_command(path: str, line: int, *, editor: bool, env: os._Environ[str] | dict[str, str]) -> list[str]:
    """The argv that opens `path` at `line` in $VISUAL/$EDITOR (`+line`) or in $PAGER."""
    if editor:
        argv = shlex.split(env.get("VISUAL") or env.get("EDITOR") or "vi")
        return [*argv, f"+{line}", path]
    argv = shlex.split(env.get("PAGER") or "less")
    if os.path.basename(argv[0]) == "less":
        argv += ["-S", f"+{line}g"]
    return [*argv, path]


def _tokens(n: int) -> str:
    if n >= 1_000_000:
        return f"{n / 1_000_000:.1f}M"
    if n >= 1000:
        return f"{n / 1000:.0f}k"
    return str(n)
