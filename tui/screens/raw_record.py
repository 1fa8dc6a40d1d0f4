"""A modal showing the raw JSON record behind a transcript entry, read from disk on demand."""
from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, TextArea

from sessionscope.core.model import Locator
from sessionscope.core.text import printable
from sessionscope.core.read.loading import RawRecord, raw_record


class RawRecordScreen(ModalScreen[None]):
    """The record at a locator, pretty-printed (control characters made visible)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "close", "Close", id="raw.close"),
        Binding("q", "close", "Close", show=False, id="raw.close_q"),
    ]

    def __init__(self, locator: Locator) -> None:
        super().__init__()
        self.locator = locator

    def compose(self) -> ComposeResult:
        with Vertical(id="raw-record"):
            yield Label(Text(printable(f"{self.locator.path}  line {self.locator.line}")), id="raw-title")
            yield Label("", id="raw-note")
            yield TextArea("reading…", read_only=True, soft_wrap=True, show_line_numbers=True, id="raw-text")

    def on_mount(self) -> None:
        self.query_one("#raw-note").display = False
        self._read()

    @work(thread=True, exclusive=True, group="raw-record", exit_on_error=False)
    def _read(self) -> None:
        try:
            record = raw_record(self.locator)
        except Exception as exc:  # noqa: BLE001 - shown to the user, the modal stays usable
            record = RawRecord("", f"cannot read the record: {exc}")
        self.app.call_from_thread(self._show, record)

    def _show(self, record: RawRecord) -> None:
        area = self.query_one(TextArea)
        area.load_text(record.text)
        note = self.query_one("#raw-note", Label)
        if record.note:
            note.update(Text(printable(record.note)))
            note.display = True
        area.focus()

    def action_close(self) -> None:
        self.dismiss(None)
