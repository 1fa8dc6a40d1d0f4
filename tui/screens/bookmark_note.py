"""The small prompt of a bookmark: what is bookmarked, and an optional note. On an entry or
session bookmarked already it shows the note to edit, and ctrl+r removes the bookmark."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import Input, Label

from sessionscope.core.bookmarks.store import NOTE_CHARS
from sessionscope.core.model import Entry, Session
from sessionscope.core.secrets import masked_line
from sessionscope.core.text import printable


@dataclass(frozen=True)
class NoteResult:
    remove: bool  # the bookmark is to be removed (ctrl+r on one kept already)
    note: str = ""


class BookmarkNoteScreen(ModalScreen[NoteResult | None]):
    """Enter keeps the bookmark with the typed note; escape leaves everything as it was."""

    DEFAULT_CSS = """
    BookmarkNoteScreen {
        align: center middle;
        & > #bookmark-note {
            width: 70%;
            max-width: 100;
            height: auto;
            border: round $primary;
            background: $surface;
            padding: 0 1;
            & > #bookmark-title { color: $accent; text-style: bold; }
            & > #bookmark-what { color: $text-muted; }
            & > #bookmark-keys { color: $text-muted; }
        }
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="bookmark-note.cancel"),
        Binding("ctrl+r", "remove", "Remove bookmark", id="bookmark-note.remove"),
    ]

    def __init__(self, what: str, *, note: str | None = None) -> None:
        """`what` (one line, already made printable) names what is bookmarked; `note` is the
        kept bookmark's note (None: not bookmarked yet)."""
        super().__init__()
        self.what = what
        self.kept = note is not None
        self.note = note or ""

    def compose(self) -> ComposeResult:
        with Vertical(id="bookmark-note"):
            yield Label("Edit bookmark" if self.kept else "Bookmark", id="bookmark-title")
            yield Label(Text(self.what), id="bookmark-what")  # (a Text: transcript text is no markup)
            yield Input(self.note, placeholder="a note (optional)", max_length=NOTE_CHARS, id="bookmark-input")
            keys = "enter saves · ctrl+r removes the bookmark · escape cancels" if self.kept else \
                "enter bookmarks · escape cancels"
            yield Label(Text(keys), id="bookmark-keys")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        self.dismiss(NoteResult(False, event.value.strip()))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "remove":
            return self.kept
        return True

    def action_remove(self) -> None:
        self.dismiss(NoteResult(True))

    def action_cancel(self) -> None:
        self.dismiss(None)


def bookmark_with_note(screen: Screen[Any], session: Session, entry: Entry | None = None,
                       done: Callable[[], None] | None = None) -> None:
    """Ask for the note of a bookmark on the session or one of its entries, then keep it (or, on
    one kept already, change its note or remove it); a notice says what was done, `done` is
    called after a change."""
    from sessionscope.core.bookmarks.anchor import bookmark_of, marks
    from sessionscope.core.bookmarks.store import StoreError

    store = screen.app.bookmark_store  # type: ignore[attr-defined]
    try:
        kept = next((b for b in store.of_session(session.agent, session.id)
                     if (marks(b, entry) if entry is not None else not b.on_entry)), None)
    except StoreError as exc:
        screen.notify(printable(str(exc)), severity="error", markup=False)
        return
    if entry is not None:
        first = next((line for line in entry.text.splitlines() if line.strip()), "")
        what = f"{entry.role} · {masked_line(first, 160) or '(empty)'}"
    else:
        what = f"the whole session · {masked_line(session.title or session.id, 160)}"

    def chosen(result: NoteResult | None) -> None:
        if result is None:
            return
        try:
            if result.remove and kept is not None and kept.id is not None:
                store.remove(kept.id)
                screen.notify("bookmark removed", timeout=3)
            elif kept is not None and kept.id is not None:
                store.set_note(kept.id, result.note)
                screen.notify("note saved", title="Bookmark", timeout=3)
            else:
                store.add(bookmark_of(session, entry, result.note))
                screen.notify("4 lists the bookmarks" if entry is None else "★ in the margin; 4 lists the bookmarks",
                              title="Bookmarked", timeout=3)
        except StoreError as exc:
            screen.notify(printable(str(exc)), severity="error", markup=False)
            return
        if done is not None:
            done()

    screen.app.push_screen(BookmarkNoteScreen(what, note=kept.note if kept is not None else None), chosen)
