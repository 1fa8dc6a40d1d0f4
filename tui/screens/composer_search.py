"""A search over every session, on top of the composer: the chosen hit's entry can be added as a finding."""
from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, cast

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label

from sessionscope.core.search.hits import Hit
from sessionscope.tui.widgets.search_pane import SearchPane

if TYPE_CHECKING:
    from sessionscope.tui.app import SessionScopeApp


class ComposerSearchScreen(ModalScreen[Hit | None]):
    """The app's search pane; enter on a hit returns it (escape in the query closes)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Close", id="composer-search.close"),
    ]

    def __init__(self, query: str = "") -> None:
        super().__init__()
        self.initial = query

    def compose(self) -> ComposeResult:
        app = cast("SessionScopeApp", self.app)
        with Vertical(id="composer-search"):
            yield Label("Find an entry to add to the brief: enter shows it, then + adds it", id="composer-search-title")
            yield SearchPane(app.search, lookup=app.library.get, now=app.now)

    def on_mount(self) -> None:
        pane = self.query_one(SearchPane)
        pane.focus_input()
        if self.initial:
            pane.search_now(self.initial)

    @on(SearchPane.HitSelected)
    def _picked(self, event: SearchPane.HitSelected) -> None:
        event.stop()
        self.dismiss(event.hit)

    def action_cancel(self) -> None:
        self.dismiss(None)
