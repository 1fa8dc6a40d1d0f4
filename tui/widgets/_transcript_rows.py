"""The transcript view's rows and their heights: which items show, each row's height (a guess until
it is rendered) in a Fenwick tree, settling the scroll offset when a height above the screen
changes."""
from __future__ import annotations

from array import array

from textual import events
from textual.geometry import Size
from textual.strip import Strip

from sessionscope.core.read.transcript import HeightIndex
from sessionscope.tui.widgets._transcript_render import estimate_shape


class TranscriptRows:
    """Mixed into TranscriptView (the state it uses is set up in TranscriptView.__init__)."""

    # -- rows and heights -------------------------------------------------------------------------
    def _expanded(self, index: int) -> bool:
        return self.model.collapsible(index) and (self._expand_default != (index in self._toggled))

    def _is_block(self, index: int) -> bool:
        return not self.model.collapsible(index) or self._expanded(index)

    def _gap(self, row: int) -> int:
        """Lines above a row: a blank one around blocks, and the divider of a new day."""
        if row <= 0:
            return 1
        blank = 1 if self._is_block(self._rows[row - 1]) or self._is_block(self._rows[row]) else 0
        return blank + (1 if self._day_mark[row] else 0)

    def _day_of_row(self, index: int) -> int:
        """The day (an ordinal) a row showing item `index` starts, if it is not that of the rows
        above it; else 0."""
        day = self._dates[index]
        if not day:
            return 0
        last, self._last_day = self._last_day, day
        return day if last and day != last else 0

    def _body_height(self, index: int) -> int:
        h = self._body[index]
        if h >= 0:
            return h
        return estimate_shape(self.model.display(index), self.model.shape(index), self._width,
                              self._expanded(index))

    def _row_height(self, row: int) -> int:
        return self._gap(row) + self._body_height(self._rows[row])

    def _append_row(self, index: int) -> None:
        row = len(self._rows)
        self._rows.append(index)
        self._row_of[index] = row
        self._day_mark.append(self._day_of_row(index))
        self._heights.append(self._row_height(row))

    def _rebuild_rows(self) -> None:
        if self._unseen_from is not None:  # row numbers change: count again from what is shown
            self._unseen_from = None
            self.call_later(self._post_live)
        visible = self.model.visible
        self._rows = array("i", (i for i in range(len(self.model))
                                 if visible(i, self.show_thinking, self.show_branches)))
        self._row_of = array("i", [-1]) * len(self.model)
        self._last_day = 0
        self._day_mark = array("i")
        for row, i in enumerate(self._rows):
            self._row_of[i] = row
            self._day_mark.append(self._day_of_row(i))
        self._heights = HeightIndex.of([self._row_height(r) for r in range(len(self._rows))])

    def _invalidate(self, index: int) -> None:
        """An item's look changed: drop its strips and re-guess its height (and its neighbour's gap)."""
        self._strips.discard(index)
        self._body[index] = -1
        row = self._row_of[index] if index < len(self._row_of) else -1
        if row >= 0:
            self._heights.set(row, self._row_height(row))
            if row + 1 < len(self._rows):
                self._heights.set(row + 1, self._row_height(row + 1))

    def _sync_size(self) -> None:
        self.virtual_size = Size(self._width, self._heights.total)

    def _strips_for(self, index: int) -> list[Strip]:
        """An item's rendered body, from the cache or rendered now (which measures it)."""
        key = (self._width, self._expanded(index))
        strips = self._strips.get(index, key)
        if strips is None:
            item = self.model.items[index]
            strips = self._get_painter().render(item, self._width, key[1], self._link_label(item))
            self._strips.put(index, key, strips)
            self._body[index] = len(strips)
        return strips

    def _measure_row(self, row: int) -> int:
        """Render a row if its height is a guess; returns the change of its height."""
        index = self._rows[row]
        if self._body[index] < 0 or self._strips.get(index, (self._width, self._expanded(index))) is None:
            self._strips_for(index)
        return self._heights.set(row, self._row_height(row))

    def _settle(self, anchor: int | None = None) -> None:
        """Replace guessed heights on screen with real ones, keeping the content on screen still.

        `anchor` is the first row whose place on screen must not move (it was on screen before a
        scroll of less than a screen); rows above it that change height move the scroll offset
        by as much. By default it is the first row starting on screen: rows reached by a jump
        keep their place below a row cut by the top edge."""
        if not self._rows or self._width <= 0 or self._settling:
            return
        self._settling = True
        try:
            height = max(1, self.scrollable_content_region.height)
            if anchor is None:
                anchor = self._first_row_from(round(self.scroll_y))
            for _ in range(16):
                y0 = round(self.scroll_y)
                row = self._heights.row_at(y0)
                shift, changed = 0, False
                while 0 <= row < len(self._rows) and self._heights.top(row) < y0 + height:
                    delta = self._measure_row(row)
                    if delta:
                        changed = True
                        if row < anchor:
                            shift += delta
                    row += 1
                if not changed:
                    break
                self._sync_size()
                if shift:
                    self._scroll_y_to(y0 + shift)
        finally:
            self._settling = False

    def _first_row_from(self, y: int) -> int:
        """The first row that starts at or below line `y`."""
        row = self._heights.row_at(y)
        if row < 0:
            return 0
        return row + 1 if self._heights.top(row) < y else row

    def _scroll_y_to(self, y: float) -> None:
        self._sync_size()
        self.scroll_to(y=max(0, y), animate=False, force=True)

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        if not self._settling:
            _, height = self._viewport()
            near = abs(round(new_value) - round(old_value)) < height
            self._settle(self._first_row_from(round(old_value)) if near else None)
        super().watch_scroll_y(old_value, self.scroll_y)
        if self._unseen_from is not None:
            self._update_unseen()

    def on_resize(self, event: events.Resize) -> None:
        width = self.scrollable_content_region.width
        if width == self._width:
            self._settle()
            return
        anchor = self._cursor_anchor()
        self._width = width
        self._body = array("i", [-1]) * len(self.model)
        self._strips.clear()
        self._heights = HeightIndex.of([self._row_height(r) for r in range(len(self._rows))])
        self._sync_size()
        self._restore(anchor)

    def _anchor(self) -> tuple[int, int] | None:
        """The item at the top of the screen and how far into it the screen starts."""
        if not self._rows:
            return None
        y0 = round(self.scroll_y)
        row = self._heights.row_at(y0)
        return self._rows[row], y0 - self._heights.top(row)

    def _restore(self, anchor: tuple[int, int] | None) -> None:
        if anchor is None:
            self._settle()
            return
        index, offset = anchor
        row = self._row_of[index]
        if row < 0:  # hidden now: the next visible row
            row = next((self._row_of[i] for i in range(index, len(self._row_of)) if self._row_of[i] >= 0),
                       len(self._rows) - 1)
            offset = 0
        self._measure_row(row)
        self._scroll_y_to(self._heights.top(row) + min(offset, max(0, self._heights[row] - 1)))
        self._settle()
        self.refresh()
