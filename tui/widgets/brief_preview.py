"""The live brief: the rendered text of the approved findings and its token count against the budget."""
from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from sessionscope.core.brief.compose import Rendered
from sessionscope.core.text import printable


class BriefPreview(VerticalScroll):
    """Exactly the text that copy, write and `sessionscope brief` put out; the frame's subtitle
    gives its size, e.g. "312 tokens of 600" (and how many approved findings the budget left out)."""

    DEFAULT_CSS = """
    BriefPreview {
        height: 1fr;
        scrollbar-size-vertical: 1;
        & > #brief-text { width: 1fr; }
        &.-over { border-subtitle-color: $text-warning; }
    }
    """

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.border_title = "Brief"
        self.text = ""
        self.tokens = 0

    def compose(self) -> ComposeResult:
        yield Static("", id="brief-text", markup=False)

    def show(self, rendered: Rendered | None, budget: int, *, note: str = "") -> None:
        """Show a rendered brief (None: nothing to show yet, `note` says why)."""
        body = self.query_one("#brief-text", Static)
        if rendered is None:
            self.text, self.tokens = "", 0
            body.update(Text(printable(note), style="italic"))
            self.border_subtitle = ""
            self.set_class(False, "-over")
            return
        self.text, self.tokens = rendered.text, rendered.tokens
        # Transcript words are in the brief: shown as text, never parsed as markup.
        body.update(Text(printable(rendered.text)))
        subtitle = f"{rendered.tokens} tokens of {budget}"
        if rendered.omitted:
            subtitle += f" · {len(rendered.omitted)} approved left out by the budget"
        self.border_subtitle = Text(subtitle)
        self.set_class(bool(rendered.omitted), "-over")
