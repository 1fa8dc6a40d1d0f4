"""What the app's Line API lists share: a cursor over items (one or more lines each, with lines
between them that are not items: headers, gaps), the keys and the mouse that move it, scrolling it
into view, the lines that stay put on top, and a cache of rendered lines.

Each list (sessions, search hits, nearby sessions, the memory timeline, the composer's findings)
says only what its rows are and how a line looks: the hooks in the `LineList` docstring. Only
the lines in the viewport are ever rendered (and cached), so 20,000 rows paint as fast as 20.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ._cells import foreground

__all__ = ["CURSOR_KEYS", "END_KEYS", "PAGE_KEYS", "VIM_END_KEYS", "LineList", "ListMessage"]

# The keys that move the cursor; each list's BINDINGS names the groups it takes, in this order.
CURSOR_KEYS = [
    Binding("up", "cursor(-1)", "Up", show=False),
    Binding("down", "cursor(1)", "Down", show=False),
    Binding("k", "cursor(-1)", "Up", show=False),
    Binding("j", "cursor(1)", "Down", show=False),
]
PAGE_KEYS = [
    Binding("pageup", "page(-1)", "Page up", show=False),
    Binding("pagedown", "page(1)", "Page down", show=False),
]
END_KEYS = [
    Binding("home", "first", "First", show=False),
    Binding("end", "last", "Last", show=False),
]
VIM_END_KEYS = [
    Binding("g", "first", "First", show=False),
    Binding("G", "last", "Last", show=False),
]


@dataclass
class ListMessage(Message):
    """A message from a list about one of its items (each list's messages add the item)."""

    line_list: LineList

    @property
    def control(self) -> LineList:
        return self.line_list


class LineList(ScrollView, can_focus=True):
    """A cursor over the items of a Line API list.

    Lines are counted below the `HEADER_LINES` that stay on top. A list supplies:
    `_item_count()`; `_line_count()` (default: one line per item); where an item starts,
    `_line_of(i)`, and what comes into view with it when the cursor moves up onto it,
    `_item_head(i)`; which item a line belongs to, `_item_of_line(line)` (None for a header or
    gap); `_render_line(line, width, cursor, hover)`, and `_line_key(line)` naming what that
    strip shows for the cache; `_render_top(y, width)` for the lines on top, and
    `_render_empty(line, width)` while there are no lines; `_highlighted(i)` and `_selected(i)`
    to post its messages.
    """

    HEADER_LINES: ClassVar[int] = 0  # lines that stay put on top while the rows scroll
    ITEM_LINES: ClassVar[int] = 1  # lines an item takes
    CACHE_SIZE: ClassVar[int] = 512  # rendered lines kept (0: every line rendered when painted)
    REVEAL_UNMOVED: ClassVar[bool] = False  # a move onto the highlighted item scrolls it into view

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._cursor = 0  # the highlighted item
        self._hover: int | None = None  # the item under the mouse
        self._cache: LRUCache[tuple[object, ...], Strip] | None = (
            LRUCache(self.CACHE_SIZE) if self.CACHE_SIZE else None)
        self._base: Style | None = None  # `rich_style` during one render (see `render_lines`)

    # -- what each list supplies ---------------------------------------------------------------
    def _item_count(self) -> int:
        raise NotImplementedError

    def _line_count(self) -> int:
        return self._item_count()

    def _line_of(self, index: int) -> int:
        return index

    def _item_head(self, index: int) -> int:
        return self._line_of(index)

    def _item_of_line(self, line: int) -> int | None:
        return line if 0 <= line < self._item_count() else None

    def _line_key(self, line: int) -> tuple[object, ...]:
        return (line,)

    def _render_line(self, line: int, width: int, cursor: bool, hover: bool) -> Strip:
        raise NotImplementedError

    def _render_top(self, y: int, width: int) -> Strip:
        return Strip.blank(width, self._base_style())

    def _render_empty(self, line: int, width: int) -> Strip:
        return Strip.blank(width, self.rich_style)

    def _highlighted(self, index: int) -> None:
        """The cursor moved onto this item."""

    def _selected(self, index: int) -> None:
        """This item was opened."""

    def _click_header(self, x: int, y: int) -> None:
        """A click on one of the lines on top."""

    # -- rows changed --------------------------------------------------------------------------
    def _reset(self, lines: int) -> None:
        """New rows: nothing cached or hovered, `lines` to scroll (the cursor is the caller's)."""
        if self._cache is not None:
            self._cache.clear()
        self._hover = None
        self.virtual_size = Size(1, lines + self.HEADER_LINES)

    # -- cursor ----------------------------------------------------------------------------------
    @property
    def cursor(self) -> int:
        return self._cursor

    def _page(self) -> int:
        return max(1, self.scrollable_content_region.height - self.HEADER_LINES)

    def _refresh_item(self, index: int | None) -> None:
        if index is not None and 0 <= index < self._item_count():
            self.refresh_lines(self._line_of(index) + self.HEADER_LINES, self.ITEM_LINES)

    def _scroll_to_cursor(self) -> None:
        if not self._item_count():
            self.scroll_to(y=0, animate=False)
            return
        page, top = self._page(), round(self.scroll_y)
        first = self._line_of(self._cursor)
        last = first + self.ITEM_LINES - 1
        # Moving onto an item also brings what heads it into view (a group's header).
        head = self._item_head(self._cursor)
        if head < top:
            self.scroll_to(y=head if last - head < page else first, animate=False)
        elif last >= top + page:
            self.scroll_to(y=last - page + 1, animate=False)

    def _move(self, index: int) -> None:
        count = self._item_count()
        if not count:
            return
        index = max(0, min(index, count - 1))
        if index == self._cursor:
            if self.REVEAL_UNMOVED:
                self._scroll_to_cursor()
            return
        old, self._cursor = self._cursor, index
        self._refresh_item(old)
        self._refresh_item(index)
        self._scroll_to_cursor()
        self._highlighted(index)

    def action_cursor(self, delta: int) -> None:
        self._move(self._cursor + delta)

    def action_page(self, direction: int) -> None:
        """To the first item at or past a page's lines away (in the direction of travel)."""
        count = self._item_count()
        if not count:
            return
        target = self._line_of(self._cursor) + direction * self._page()
        order = range(count) if direction > 0 else range(count - 1, -1, -1)
        fallback = count - 1 if direction > 0 else 0
        self._move(next((i for i in order
                         if (self._line_of(i) >= target if direction > 0 else self._line_of(i) <= target)),
                        fallback))

    def action_first(self) -> None:
        self._move(0)
        self.scroll_to(y=0, animate=False)

    def action_last(self) -> None:
        self._move(self._item_count() - 1)

    def action_select(self) -> None:
        if self._item_count():
            self._selected(self._cursor)

    # -- mouse -----------------------------------------------------------------------------------
    def _item_at(self, event: events.MouseEvent) -> int | None:
        offset = event.get_content_offset(self)
        if offset is None or offset.y < self.HEADER_LINES:
            return None
        line = round(self.scroll_y) + offset.y - self.HEADER_LINES
        return self._item_of_line(line) if 0 <= line < self._line_count() else None

    def on_click(self, event: events.Click) -> None:
        """A click highlights an item; a click on the highlighted one, or a double-click, opens it."""
        offset = event.get_content_offset(self)
        if offset is not None and offset.y < self.HEADER_LINES:
            self._click_header(offset.x, offset.y)
            return
        index = self._item_at(event)
        if index is None:
            return
        if index == self._cursor or event.chain >= 2:
            self._move(index)
            self.action_select()
        else:
            self._move(index)

    def on_mouse_move(self, event: events.MouseMove) -> None:
        index = self._item_at(event)
        if index != self._hover:
            self._refresh_item(self._hover)
            self._refresh_item(index)
            self._hover = index

    def on_leave(self, event: events.Leave) -> None:
        if self._hover is not None:
            self._refresh_item(self._hover)
            self._hover = None

    def on_focus(self, event: events.Focus) -> None:
        self._refresh_item(self._cursor)

    def on_blur(self, event: events.Blur) -> None:
        self._refresh_item(self._cursor)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        if self._cache is not None:
            self._cache.clear()  # theme change: every cached strip has stale colours

    # -- rendering -------------------------------------------------------------------------------
    def _style(self, name: str) -> Style:
        """A component's text style without its background, to lay over a row's background.

        (Not `partial=True`: that drops the blending of translucent colours such as
        `$foreground-muted`, which then come out at full strength.)"""
        return foreground(self.get_component_rich_style(name))

    def render_lines(self, crop: Region) -> list[Strip]:
        self._base = None  # worked out again for each render, once (not once per row)
        return super().render_lines(crop)

    def _base_style(self) -> Style:
        """`rich_style`: the colours inherited from the ancestors."""
        if self._base is None:
            self._base = self.rich_style
        return self._base

    def _strip(self, text: Text, width: int, base: Style | None = None) -> Strip:
        """A line of text cut or padded to `width`, over the list's colours (and `base`'s)."""
        text.truncate(width, overflow="ellipsis", pad=True)
        style = self._base_style() + base if base is not None else self._base_style()
        return Strip(text.render(self.app.console), width).apply_style(style)

    def _row_style(self, cursor: bool, hover: bool, prefix: str) -> Style | None:
        """The background of an item's line: the cursor's, the hover's, or none."""
        if cursor:
            return self.get_component_rich_style(f"{prefix}--cursor")
        if hover:
            return self.get_component_rich_style(f"{prefix}--hover")
        return None

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        if y < self.HEADER_LINES:
            return self._render_top(y, width)
        line = round(self.scroll_y) + y - self.HEADER_LINES
        count = self._line_count()
        if not count:
            return self._render_empty(line, width)
        if line >= count:
            return Strip.blank(width, self.rich_style)
        item = self._item_of_line(line)
        cursor = item is not None and item == self._cursor
        hover = item is not None and item == self._hover
        if self._cache is None:
            return self._render_line(line, width, cursor, hover)
        key = (self._line_key(line), width, cursor, cursor and self.has_focus, hover)
        strip = self._cache.get(key)
        if strip is None:
            strip = self._render_line(line, width, cursor, hover)
            self._cache[key] = strip
        return strip
