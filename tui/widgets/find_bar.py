"""The find bar of the transcript reader: a one-line input with a match count."""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.message import Message
from textual.widgets import Input, Label


class FindBar(Horizontal):
    """Hidden until opened; posts the query as it is typed, on enter, and when dismissed."""

    DEFAULT_CSS = """
    FindBar {
        display: none;
        height: 1;
        &.-active { display: block; }
        & > Input { width: 1fr; }
        & > Label { width: auto; }
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "dismiss", "Close find", id="find.close"),
    ]

    @dataclass
    class QueryChanged(Message):
        bar: FindBar
        query: str

        @property
        def control(self) -> FindBar:
            return self.bar

    @dataclass
    class Submitted(Message):
        bar: FindBar
        query: str

        @property
        def control(self) -> FindBar:
            return self.bar

    @dataclass
    class Dismissed(Message):
        bar: FindBar

        @property
        def control(self) -> FindBar:
            return self.bar

    def compose(self) -> ComposeResult:
        yield Label("Find ", id="find-label")
        yield Input(placeholder="text in this transcript", compact=True, id="find-input")
        yield Label("", id="find-count")

    @property
    def active(self) -> bool:
        return self.has_class("-active")

    @property
    def query_text(self) -> str:
        return self.query_one(Input).value

    def open(self, query: str | None = None, *, focus: bool = True) -> None:
        self.add_class("-active")
        field = self.query_one(Input)
        if query is not None:
            with field.prevent(Input.Changed):
                field.value = query
                field.cursor_position = len(query)
        if focus:
            field.focus()

    def close(self) -> None:
        self.remove_class("-active")
        self.set_count(0, 0)

    def set_count(self, current: int, total: int) -> None:
        label = self.query_one("#find-count", Label)
        if not self.query_text:
            label.update("")
        elif total == 0:
            label.update(Text(" no match ", style="bold"))
        else:
            label.update(Text(f" {current}/{total} "))
        label.set_class(bool(self.query_text) and total == 0, "-none")

    @on(Input.Changed, "#find-input")
    def _changed(self, event: Input.Changed) -> None:
        event.stop()
        self.post_message(self.QueryChanged(self, event.value))

    @on(Input.Submitted, "#find-input")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.post_message(self.Submitted(self, event.value))

    def action_dismiss(self) -> None:
        self.post_message(self.Dismissed(self))
