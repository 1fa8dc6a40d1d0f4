"""Where a finding comes from: a title line over the transcript reader, scrolled to its entry."""
from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Static

from sessionscope.core.catalog.library import Library
from sessionscope.core.model import Entry, Session
from sessionscope.core.text import printable
from sessionscope.tui.widgets.transcript_view import TranscriptView


class SourceContext(Vertical):
    """An embedded `TranscriptView` of one session at one entry; `show()` switches it.

    The reader is the full one (Line API, read in a thread), so opening a large session here is
    as cheap as in the transcript screen; it is mounted afresh for another session or entry."""

    DEFAULT_CSS = """
    SourceContext {
        height: 1fr;
        & > #source-title { height: 1; padding: 0 1; text-wrap: nowrap; text-overflow: ellipsis; }
        & > #source-empty { padding: 0 1; color: $foreground-muted; text-style: italic; }
    }
    """

    def __init__(self, library: Library, *, name: str | None = None, id: str | None = None,
                 classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.library = library
        self.session: Session | None = None
        self.entry_id: str | None = None
        self._view: TranscriptView | None = None  # the reader shown (a replaced one may linger until removed)

    def compose(self) -> ComposeResult:
        heading = Static("", id="source-title", markup=False)
        heading.display = False  # until there is a source to name
        yield heading
        yield Static("The source of the highlighted finding shows here.", id="source-empty", markup=False)

    @property
    def view(self) -> TranscriptView | None:
        return self._view

    @property
    def highlighted_entry(self) -> Entry | None:
        """The entry under the reader's cursor (the source entry until the user moves)."""
        view = self.view
        return view.highlighted_entry if view is not None else None

    def show(self, session_id: str, entry_id: str, title: str) -> TranscriptView | None:
        """The session at `entry_id` under `title` (the reader showing it, None when the
        session is gone, which is said instead)."""
        heading = self.query_one("#source-title", Static)
        heading.update(Text(printable(title)))
        heading.display = True
        view = self.view
        here = view.highlighted_entry if view is not None else None
        if (self.session is not None and self.session.id == session_id and view is not None
                and (self.entry_id == entry_id or (here is not None and here.id == entry_id))):
            return view  # already there (the reader may still be reading up to it)
        session = self.library.get(session_id)
        if view is not None:
            view.remove()
        self.session, self.entry_id, self._view = session, entry_id, None
        empty = self.query_one("#source-empty", Static)
        if session is None:
            empty.update(Text(printable(f"session {session_id} is no longer on disk")))
            empty.display = True
            return None
        empty.display = False
        self._view = TranscriptView(self.library, session, entry_id=entry_id)
        self.mount(self._view)
        return self._view

    def clear(self, note: str) -> None:
        """No source to show: `note` says why."""
        view = self.view
        if view is not None:
            view.remove()
        self.session, self.entry_id, self._view = None, None, None
        self.query_one("#source-title", Static).display = False
        empty = self.query_one("#source-empty", Static)
        empty.update(Text(printable(note)))
        empty.display = True
