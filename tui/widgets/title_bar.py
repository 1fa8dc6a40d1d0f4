"""The screen's title line, drawn by one Line API widget.

It shows what textual's `Header` shows, in its colours and places (the icon at the left, which
opens the command palette when clicked; "title — sub-title" centred between it and the clock's
space; a click elsewhere makes it three lines tall and back), but `Header` is four widgets, and
composing and styling them took ~7 ms of the app's first frame.
"""
from __future__ import annotations

from typing import ClassVar

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.strip import Strip
from textual.widget import Widget

__all__ = ["TitleBar"]

ICON_WIDTH = 8  # textual's HeaderIcon: 8 cells, the icon after a cell of padding
CLOCK_WIDTH = 10  # textual's HeaderClockSpace, which keeps the title centred under no clock


class TitleBar(Widget):
    """`title — sub_title` of the screen (else of the app), updated as they change."""

    ALLOW_SELECT = False

    COMPONENT_CLASSES: ClassVar[set[str]] = {"title-bar--icon-hover"}

    DEFAULT_CSS = """
    TitleBar {
        dock: top;
        width: 100%;
        height: 1;
        background: $panel;
        color: $foreground;
        &.-tall { height: 3; }
        & > .title-bar--icon-hover { background: $foreground 10%; }
    }
    """

    def __init__(self, icon: str = "⭘", *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.icon = icon
        self._hover = False

    def on_mount(self) -> None:
        for obj in (self.app, self.screen):
            self.watch(obj, "title", self._retitle, init=False)
            self.watch(obj, "sub_title", self._retitle, init=False)

    def _retitle(self) -> None:
        self.refresh()

    @property
    def _palette(self) -> bool:
        return bool(self.app.ENABLE_COMMAND_PALETTE)

    # -- input ------------------------------------------------------------------------------
    def _on_icon(self, event: events.MouseEvent) -> bool:
        offset = event.get_content_offset(self)
        return offset is not None and offset.x < ICON_WIDTH

    async def on_click(self, event: events.Click) -> None:
        event.stop()
        if self._palette and self._on_icon(event):
            await self.run_action("app.command_palette")
        else:
            self.toggle_class("-tall")

    def on_mouse_move(self, event: events.MouseMove) -> None:
        hover = self._palette and self._on_icon(event)
        if hover != self._hover:
            self._hover = hover
            self.tooltip = "Open the command palette" if hover else None
            self.refresh()

    def on_leave(self, event: events.Leave) -> None:
        if self._hover:
            self._hover = False
            self.tooltip = None
            self.refresh()

    # -- rendering ----------------------------------------------------------------------------
    def render_line(self, y: int) -> Strip:
        width = self.size.width
        base = self.rich_style
        # Blank cells carry only the background: text runs then start where the text does
        # (in an exported SVG too, not after a run of spaces).
        blank = Style(bgcolor=base.bgcolor)
        if y != self.size.height // 2:
            return Strip.blank(width, blank)
        screen = self.screen
        title = screen.title if screen.title is not None else self.app.title
        sub_title = screen.sub_title if screen.sub_title is not None else self.app.sub_title
        middle = max(0, width - ICON_WIDTH - CLOCK_WIDTH)
        content = self.app.format_title(title, sub_title).rstrip().truncate(middle, ellipsis=True)
        left = (middle - content.cell_length) // 2  # centred as content-align does
        glyph = set_cell_size(self.icon, ICON_WIDTH - 2).rstrip()  # (padding either side)
        icon, icon_blank = base, blank
        if self._hover:
            icon = base + self.get_component_rich_style("title-bar--icon-hover")
            icon_blank = Style(bgcolor=icon.bgcolor)
        segments = [
            Segment(" ", icon_blank),
            Segment(glyph, icon),
            Segment(" " * (ICON_WIDTH - 1 - cell_len(glyph)), icon_blank),
            Segment(" " * left, blank),
            *content.render_segments(self.visual_style),
            Segment(" " * (middle - left - content.cell_length + CLOCK_WIDTH), blank),
        ]
        return Strip(segments).adjust_cell_length(width, blank)
