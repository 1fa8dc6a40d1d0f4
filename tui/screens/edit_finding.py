"""A modal to put a finding in the user's own words: a text area over its quoted text."""
from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, TextArea

from sessionscope.core.brief.finding import Finding
from sessionscope.core.text import one_line


class EditFindingScreen(ModalScreen[str | None]):
    """Returns the new text (ctrl+s), or None (escape). The brief masks secrets in it again."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+s", "save", "Save", id="edit-finding.save"),
        Binding("escape", "cancel", "Cancel", id="edit-finding.cancel"),
        # Before the text area's own ctrl+a (line start, as in emacs): in a dialog that holds one
        # text to rewrite, select-all is what the key is expected to do.
        Binding("ctrl+a", "select_all", "Select all", priority=True, id="edit-finding.select_all"),
    ]

    def __init__(self, finding: Finding) -> None:
        super().__init__()
        self.finding = finding

    def compose(self) -> ComposeResult:
        f = self.finding
        with Vertical(id="edit-finding"):
            date = f.date.date().isoformat() if f.date else "undated"
            yield Label(Text(one_line(f"Edit · {f.label} · {f.attribution} · {date} · {f.source.agent} "
                                      f"{f.source.session_id[:8]}", 200)), id="edit-title")
            yield TextArea(f.text, soft_wrap=True, show_line_numbers=False, id="edit-text")
            yield Label(Text("ctrl+s saves and approves · escape cancels · the brief masks secrets again"),
                        id="edit-hint")

    def on_mount(self) -> None:
        area = self.query_one(TextArea)
        area.focus()
        area.move_cursor(area.document.end)

    def action_select_all(self) -> None:
        self.query_one(TextArea).select_all()

    def action_save(self) -> None:
        self.dismiss(self.query_one(TextArea).text)

    def action_cancel(self) -> None:
        self.dismiss(None)
