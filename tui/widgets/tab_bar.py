"""A row of tabs over an underline, drawn by one Line API widget.

It looks and behaves like the tab row of textual's `TabbedContent` (click a tab; when focused,
left/right move between tabs), but `TabbedContent` is some fifteen widgets (tabs, their
containers, the underline, a pane per tab) whose composing, styling and first render took ~20
ms of the app's first frame. The main screen pairs this bar with a `ContentSwitcher`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Sequence

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding, BindingType
from textual.message import Message
from textual.renderables.bar import Bar
from textual.strip import Strip
from textual.widget import Widget

__all__ = ["TabBar"]


class TabBar(Widget, can_focus=True):
    """Tabs given as (id, label) pairs; `active` is the id of the highlighted one."""

    ALLOW_SELECT = False

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "step(-1)", "Previous tab", show=False),
        Binding("right", "step(1)", "Next tab", show=False),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "tab-bar--tab",
        "tab-bar--hover",
        "tab-bar--active",
        "tab-bar--bar",
    }

    # The colours of textual's Tab, Tabs and Underline.
    DEFAULT_CSS = """
    TabBar {
        width: 1fr;
        height: 2;
        & > .tab-bar--tab { color: $foreground 50%; }
        & > .tab-bar--hover { color: $foreground; }
        & > .tab-bar--active { color: $foreground; }
        & > .tab-bar--bar { color: $block-cursor-background; background: $foreground 10%; }
        &:focus {
            & > .tab-bar--active {
                color: $block-cursor-foreground;
                background: $block-cursor-background;
                text-style: $block-cursor-text-style;
            }
            & > .tab-bar--bar { background: $foreground 30%; }
        }
        &:ansi {
            & > .tab-bar--tab { text-style: dim; }
            & > .tab-bar--bar { background: $border-blurred; }
        }
    }
    """

    @dataclass
    class TabActivated(Message):
        """A tab was picked with the mouse or the keys (not by setting `active`)."""

        tab_bar: TabBar
        tab: str

        @property
        def control(self) -> TabBar:
            return self.tab_bar

    def __init__(self, tabs: Sequence[tuple[str, str]], active: str, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._ids = [tab for tab, _ in tabs]
        self._labels = [label for _, label in tabs]
        self._active = active
        self._hover: int | None = None

    @property
    def active(self) -> str:
        return self._active

    @active.setter
    def active(self, tab: str) -> None:
        if tab != self._active and tab in self._ids:
            self._active = tab
            self.refresh()

    def _spans(self) -> list[tuple[int, int]]:
        """Each tab's cells, padding included (a cell either side of the label)."""
        spans, x = [], 0
        for label in self._labels:
            width = Text(label).cell_len + 2
            spans.append((x, x + width))
            x += width
        return spans

    # -- input ------------------------------------------------------------------------------
    def _pick(self, index: int) -> None:
        self.active = self._ids[index]
        self.post_message(self.TabActivated(self, self._ids[index]))

    def action_step(self, delta: int) -> None:
        if self._active in self._ids:
            self._pick((self._ids.index(self._active) + delta) % len(self._ids))

    def _tab_at(self, x: int) -> int | None:
        return next((i for i, (start, end) in enumerate(self._spans()) if start <= x < end), None)

    def on_click(self, event: events.Click) -> None:
        offset = event.get_content_offset(self)
        index = None if offset is None else self._tab_at(offset.x)
        if index is not None:
            event.stop()
            self._pick(index)

    def on_mouse_move(self, event: events.MouseMove) -> None:
        offset = event.get_content_offset(self)
        index = None if offset is None or offset.y != 0 else self._tab_at(offset.x)
        if index != self._hover:
            self._hover = index
            self.refresh()

    def on_leave(self, event: events.Leave) -> None:
        if self._hover is not None:
            self._hover = None
            self.refresh()

    # -- rendering ----------------------------------------------------------------------------
    def render_line(self, y: int) -> Strip:
        width = self.size.width
        console = self.app.console
        if y == 0:
            # A tab's padding carries only its background, so that a label's run of text starts
            # at the label (in an exported SVG too).
            segments = []
            for i, (tab, label) in enumerate(zip(self._ids, self._labels)):
                name = ("tab-bar--active" if tab == self._active
                        else "tab-bar--hover" if i == self._hover else "tab-bar--tab")
                style = self.get_component_rich_style(name)  # (over the bar's own background)
                pad = Segment(" ", Style(bgcolor=style.bgcolor))
                segments += [pad, Segment(label, style), pad]
            return Strip(segments).adjust_cell_length(width, Style(bgcolor=self.rich_style.bgcolor))
        if y == 1:
            bar = self.get_component_rich_style("tab-bar--bar")
            spans = self._spans()
            start, end = (spans[self._ids.index(self._active)] if self._active in self._ids
                          else (0, 0))
            highlight = (start + 1, end - 1) if end else (0, 0)  # under the label, as textual's
            segments = list(console.render(
                Bar(highlight, Style.from_color(bar.color), Style.from_color(bar.bgcolor)),
                console.options.update_width(width),
            ))
        else:
            return Strip.blank(width, self.rich_style)
        return Strip(segments).adjust_cell_length(width).apply_style(self.rich_style)
