"""The transcript screen: a header line, the transcript view, a find bar and the footer.

Live: the app hands the screen its session's events. New entries are appended to the view (see
`TranscriptView.append_live` for follow mode); the header says "● following", or how many new
entries are below the screen; a rewritten, truncated or moved file is read again; a deleted one
keeps what was read under a banner that says so.
"""
from __future__ import annotations

import os
import shlex
import subprocess
from typing import Any, ClassVar, Sequence

from rich.style import Style
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult, SuspendNotSupported
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Footer, Static

from sessionscope.core.format import count, date_span
from sessionscope.core.catalog.library import Library, ListedSession
from sessionscope.core.model import Entry, Session
from sessionscope.core.secrets import masked_line
from sessionscope.core.text import one_line, printable
from sessionscope.core.read.transcript import copy_text
from sessionscope.core.live.tracker import Change, SessionEvent
from sessionscope.tui.screens.raw_record import RawRecordScreen
from sessionscope.tui.widgets.find_bar import FindBar
from sessionscope.tui.widgets.transcript_view import TranscriptView


class TranscriptScreen(Screen[None]):
    """One session's transcript, opened from the session list or at a search hit."""

    # Only what the live parts need (the rest of the look is in styles/transcript.tcss): the
    # deleted-file banner and the follow indicator exist hidden, so a still screen looks the same.
    DEFAULT_CSS = """
    TranscriptScreen {
        & #transcript-banner { display: none; height: auto; padding: 0 1;
                               background: $error 25%; color: $foreground; text-style: bold; }
        &.-deleted #transcript-banner { display: block; }
        & #transcript-live { display: none; width: auto; padding-left: 2; text-wrap: nowrap;
                             color: $text-success; text-style: bold; }
        & #transcript-live.-shown { display: block; }
        & #transcript-live.-note { color: $text-warning; text-style: none; }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "back", "Back", id="transcript.back"),
        Binding("slash", "find", "Find", key_display="/", id="transcript.find"),
        Binding("y", "copy", "Copy", id="transcript.copy"),
        Binding("r", "raw", "Raw", id="transcript.raw"),
        Binding("o", "open_file(False)", "Pager", show=False, id="transcript.pager"),
        Binding("O", "open_file(True)", "Editor", show=False, id="transcript.editor"),
        Binding("p", "page_entry", "Page entry", show=False, id="transcript.page_entry"),
        Binding("w", "export", "Export to HTML", show=False, id="transcript.export"),
        Binding("m", "bookmark", "Bookmark entry", show=False, id="transcript.bookmark"),
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
        self._gone = "This session's file was deleted"

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
            yield Static("", id="transcript-live", markup=False)
        yield Static("", id="transcript-banner", markup=False)
        yield TranscriptView(self.library, self.session, entry_id=self.entry_id,
                             highlight=self.highlight, id="transcript")
        yield FindBar(id="find-bar")
        yield Footer()

    def on_mount(self) -> None:
        self.view.focus()
        if self.highlight:
            self.find_bar.open(self.highlight, focus=False)
        self.show_bookmarks()

    def show_bookmarks(self) -> None:
        """Mark this session's bookmarked entries (★ in the margin)."""
        from sessionscope.core.bookmarks.store import StoreError

        store = getattr(self.app, "bookmark_store", None)
        if store is None:
            return
        try:
            self.view.set_bookmarks(store.of_session(self.session.agent, self.session.id))
        except StoreError as exc:
            self.notify(printable(str(exc)), severity="warning", markup=False)

    # -- header ---------------------------------------------------------------------------------
    def _title(self) -> Text:
        s = self.session
        if getattr(self.app, "mask_secrets", False):
            return Text(masked_line(s.title or s.id, 200), style=Style(bold=True))
        return Text(one_line(s.title or s.id, 200), style=Style(bold=True))

    def retitle(self) -> None:
        """The header drawn again (the app's secret masking changed)."""
        self.query_one("#transcript-title", Static).update(self._title())

    def _facts(self) -> Text:
        s = self.session
        facts = [one_line(s.agent, 40)]
        if self._progress:  # before what the width may cut: the title leaves ~60 columns at 120
            facts.append(self._progress)
        span = date_span(s.first_timestamp, s.last_timestamp)  # (the clock of each entry has no date)
        if span:
            facts.append(span)
        if s.project:
            facts.append(one_line(s.project, 60))
        view = next(iter(self.query(TranscriptView)), None)
        if view is not None and view.loaded and not view.error:  # the active branch, as `read` counts
            facts.append(f"{view.entry_count:,} {'entry' if view.entry_count == 1 else 'entries'}")
        elif not isinstance(s, ListedSession):  # (listed from its file's ends: no count yet)
            facts.append(f"{s.entry_count:,} entries")
        if s.usage.total:
            facts.append(f"{_tokens(s.usage.total)} tokens")
        return Text("  ·  ".join(facts))

    @on(TranscriptView.LoadProgressed)
    def _progressed(self, event: TranscriptView.LoadProgressed) -> None:
        if event.done:
            # (Short, so the facts fit beside the title at 120 columns; rewound branches are
            # marked once the file is read, as for a small file.)
            self._progress = "large file" if event.streamed else ""
        else:
            self._progress = f"reading {event.fraction:.0%}"
        self.query_one("#transcript-facts", Static).update(self._facts())

    # -- live -----------------------------------------------------------------------------------
    def sessions_changed(self, events: Sequence[SessionEvent]) -> None:
        """The app's live events, in order; those about this session's file or id apply here.

        Several batches may come at once: what they add up to is applied once (a reload reads
        the file as it is now, so appends before it need no separate handling)."""
        session, state = self.session, ""
        grown: list[Entry] = []
        children = False
        for ev in events:
            ids = {s.id for s in ev.sessions}
            if ev.kind in (Change.CREATED, Change.DELETED, Change.REWRITTEN):
                children = children or any(s.parent_id == session.id for s in ev.sessions)
            if ev.path != session.path and session.id not in ids:
                continue
            if ev.kind is Change.GREW and ev.path == session.path:
                if ev.sessions and ev.sessions[0].id == session.id:
                    session = ev.sessions[0]
                    grown.extend(ev.entries)
                else:  # an inline sidechain of the file's main session: read it again
                    state, grown = "reload", []
            elif ev.kind is Change.DELETED and ev.path == session.path:
                moved = self.library.get(session.id)
                if moved is not None and moved.path != session.path:
                    session, state, grown = moved, "reload", []
                else:
                    state, grown = "deleted", []
                    self._gone = "This session's file was deleted"
            elif ev.kind in (Change.CREATED, Change.REWRITTEN):
                current = next((s for s in ev.sessions if s.id == session.id), None)
                if current is not None:
                    session, state, grown = current, "reload", []
                elif ev.path == session.path:
                    state, grown = "deleted", []
                    self._gone = "This session is no longer in its file (rewritten)"
        view = self.view
        if children:
            view.children_changed()
        if session is self.session and not state and not grown:
            return
        self.session = session
        if state == "deleted":
            if not view.deleted:
                view.mark_deleted()
        elif state == "reload":
            self.set_class(False, "-deleted")
            view.reload(session)
        if grown:
            view.append_live(grown)
        self.query_one("#transcript-title", Static).update(self._title())
        self.query_one("#transcript-facts", Static).update(self._facts())

    @on(TranscriptView.LiveStateChanged)
    def _live_changed(self, event: TranscriptView.LiveStateChanged) -> None:
        live = self.query_one("#transcript-live", Static)
        if event.following:
            note = "● following" + (f" · {event.unseen:,} new below" if event.unseen else "")
        elif event.unseen:
            note = f"{event.unseen:,} new {'entry' if event.unseen == 1 else 'entries'} below — f to follow"
        else:
            note = ""
        live.update(note)
        live.set_class(bool(note), "-shown")
        live.set_class(not event.following, "-note")
        self.set_class(event.deleted, "-deleted")
        if event.deleted:
            self.query_one("#transcript-banner", Static).update(
                printable(f"{self._gone}: {self.session.path}. What is shown was read before; "
                          "nothing more will arrive."))

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
        copied = self.view.copy_highlighted()
        if copied is None:
            self.notify("nothing to copy", severity="warning")
            return
        text, dropped = copied
        if dropped:
            self.notify(f"{count(len(text), 'character')}; left out {count(dropped, 'terminal control code')}",
                        title="Copied", severity="warning", timeout=4)
        else:
            self.notify(count(len(text), "character"), title="Copied", timeout=2)

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

    def action_page_entry(self) -> None:
        """The highlighted entry whole (read again from the file if it was cut) in the pager:
        what the reader leaves out of a long output (past BODY_LINES lines) is read there."""
        item = self.view.full_item()
        if item is None:
            self.notify("no entry highlighted", severity="warning")
            return
        run_in_terminal(self, pager_command(os.environ), text=printable(copy_text(item)))

    def action_bookmark(self) -> None:
        """Bookmark the highlighted entry with an optional note; on a bookmarked one, edit its note
        or remove it."""
        from sessionscope.tui.screens.bookmark_note import bookmark_with_note

        item = self.view.highlighted_item
        if item is None:
            self.notify("no entry highlighted", severity="warning")
            return
        entry = self.view.bookmarked_entry(item) or item.entry  # (a bookmark on its tool result: that one)
        bookmark_with_note(self, self.session, entry, done=self.show_bookmarks)

    def action_export(self) -> None:
        """The session (its subagents inline, thinking if shown, secrets masked if the app masks
        them) as a self-contained HTML file in sessionscope's exports folder; a notice says where."""
        self.notify("exporting…", timeout=2)
        self._export(self.session, self.view.show_thinking, self.view.show_branches,
                     bool(getattr(self.app, "mask_secrets", False)))

    @work(thread=True, exclusive=True, group="transcript-export", exit_on_error=False)
    def _export(self, session: Session, thinking: bool, branches: bool, mask: bool) -> None:
        from sessionscope.core.export.document import export_session
        from sessionscope.core.export.render import to_html
        from sessionscope.core.export.write import export_name, exports_dir, write_export
        from sessionscope.core.read.jsonl import ReaderError

        try:
            doc = export_session(self.library, session, thinking=thinking, mask=mask, all_branches=branches)
            folder = exports_dir()
            folder.mkdir(parents=True, exist_ok=True)
            path = write_export(to_html(doc), folder / export_name(session.id, "html"),
                                [r.path for r in self.library.roots])
        except (OSError, ValueError, ReaderError) as exc:
            self.app.call_from_thread(self.notify, printable(f"cannot export: {exc}"), severity="error",
                                      markup=False)
            return
        self.app.call_from_thread(self.notify, printable(str(path)), title="Exported to", markup=False,
                                  timeout=8)

    def run_external(self, argv: list[str]) -> None:
        """Run a pager or editor in the terminal the app is suspended from."""
        run_in_terminal(self, argv)

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
    argv = pager_command(env)
    if os.path.basename(argv[0]) == "less":
        argv += ["-S", f"+{line}g"]
    return [*argv, path]


def pager_command(env: os._Environ[str] | dict[str, str]) -> list[str]:
    """$PAGER (else less), to read a file named after it or its standard input."""
    return shlex.split(env.get("PAGER") or "less")


def _tokens(n: int) -> str:
    if n >= 1_000_000:
        return f"{n / 1_000_000:.1f}M"
    if n >= 1000:
        return f"{n / 1000:.0f}k"
    return str(n)


def run_in_terminal(screen: Screen[Any], argv: list[str], *, cwd: str | None = None, hint: str = "",
                    text: str | None = None) -> None:
    """Run a program in the terminal the app is suspended from (`text`, if given, on its standard
    input); where the terminal cannot be handed over (headless, web) or the program cannot
    start, a notice says so (`hint` added)."""
    data = text.encode("utf-8", "replace") if text is not None else None
    try:
        with screen.app.suspend():
            subprocess.run(argv, cwd=cwd, check=False, input=data)
    except SuspendNotSupported:
        screen.notify("this terminal cannot hand over to another program" + hint, severity="warning")
    except OSError as exc:
        screen.notify(printable(f"cannot run {argv[0]}: {exc.strerror or exc}"), severity="error", markup=False)
