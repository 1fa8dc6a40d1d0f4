"""A small prompt for the file to write the brief to; it asks again before overwriting a file."""
from __future__ import annotations

import os
from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label

from sessionscope.core.text import printable


@dataclass(frozen=True)
class WriteTarget:
    path: str  # absolute, user expanded
    overwrite: bool  # the user confirmed replacing an existing file


class WriteBriefScreen(ModalScreen[WriteTarget | None]):
    """Enter writes to the typed path; an existing file needs a second enter on the same path."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="write-brief.cancel"),
    ]

    def __init__(self, default: str = "") -> None:
        super().__init__()
        self.default = default
        self._confirm: str | None = None  # the existing path a second enter overwrites

    def compose(self) -> ComposeResult:
        with Vertical(id="write-brief"):
            yield Label("Write the brief to", id="write-title")
            yield Input(self.default, placeholder="a file path, e.g. brief.md", id="write-path")
            yield Label(Text("enter writes · escape cancels"), id="write-note")

    def on_mount(self) -> None:
        self.query_one(Input).focus()

    @on(Input.Changed)
    def _changed(self) -> None:
        if self._confirm is not None:
            self._confirm = None
            self._note("enter writes · escape cancels")

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        typed = event.value.strip()
        if not typed:
            self._note("type a path first", warn=True)
            return
        path = os.path.abspath(os.path.expanduser(typed))
        if os.path.isdir(path):
            self._note(f"{path} is a directory", warn=True)
            return
        if not os.path.isdir(os.path.dirname(path)):
            self._note(f"no such directory: {os.path.dirname(path)}", warn=True)
            return
        if os.path.exists(path) and self._confirm != path:
            self._confirm = path
            self._note(f"{path} exists: enter again to overwrite it", warn=True)
            return
        self.dismiss(WriteTarget(path, overwrite=self._confirm == path))

    def _note(self, text: str, *, warn: bool = False) -> None:
        note = self.query_one("#write-note", Label)
        note.update(Text(printable(text)))
        note.set_class(warn, "-warning")

    def action_cancel(self) -> None:
        self.dismiss(None)
