"""The transcript view's cursor and scrolling: moving over entries, revealing a row, pages, turns,
the ends, clicks."""
from __future__ import annotations

from textual import events


class TranscriptCursor:
    """Mixed into TranscriptView (the state it uses is set up in TranscriptView.__init__)."""

    # -- cursor and scrolling -----------------------------------------------------------------------
    def _viewport(self) -> tuple[int, int]:
        return round(self.scroll_y), max(1, self.scrollable_content_region.height)

    def _row_visible(self, row: int) -> bool:
        y0, h = self._viewport()
        top = self._heights.top(row)
        return top + self._heights[row] > y0 and top < y0 + h

    def _move(self, index: int, *, align: str = "visible", line: int | None = None) -> None:
        """Put the cursor on an item and scroll it into view."""
        if index < 0 or self._row_of[index] < 0:
            return
        changed = index != self._cursor
        self._cursor = index
        self._reveal(self._row_of[index], align=align, line=line)
        self.refresh()
        if changed:
            self._post_highlight()

    def _reveal(self, row: int, *, align: str = "visible", line: int | None = None) -> None:
        self._measure_row(row)
        if row > 0:
            self._measure_row(row - 1)
        self._sync_size()
        y0, h = self._viewport()
        gap = self._gap(row)
        top = self._heights.top(row) + gap
        height = self._heights[row] - gap
        context = 1 if row > 0 else 0
        if line is not None:
            target = top + line
            if target < y0 or target >= y0 + h:
                self._scroll_y_to(target - min(line + context, max(2, h // 4)))
        elif align == "top" or height >= h:
            if align == "top" or top < y0 or top >= y0 + h:
                self._scroll_y_to(top - context)
        elif top < y0:
            self._scroll_y_to(top - context)
        elif top + height > y0 + h:
            self._scroll_y_to(top + height - h)
        self._settle()

    def _post_highlight(self) -> None:
        item = self.highlighted_item
        if item is not None:
            self.post_message(self.EntryHighlighted(self, item.entry))

    def _cursor_on_screen(self) -> bool:
        row = self.cursor_row
        return row >= 0 and self._row_visible(row)

    def _first_row_on_screen(self) -> int:
        y0, _ = self._viewport()
        row = self._heights.row_at(y0)
        if self._heights.top(row) + self._gap(row) < y0 and row + 1 < len(self._rows) and self._row_visible(row + 1):
            return row + 1
        return row

    def action_cursor_down(self) -> None:
        self._step(1)

    def action_cursor_up(self) -> None:
        self._step(-1)

    def _step(self, step: int) -> None:
        if not self._rows:
            return
        if not self._cursor_on_screen():
            self._move(self._rows[self._first_row_on_screen()])
            return
        row = min(max(self.cursor_row + step, 0), len(self._rows) - 1)
        self._move(self._rows[row])

    def action_first(self) -> None:
        if self._rows:
            self._move(self._rows[0], align="top")
            self._scroll_y_to(0)

    def action_last(self) -> None:
        if self._rows:
            self._to_end(move_cursor=True)

    def _to_end(self, *, move_cursor: bool) -> None:
        _, h = self._viewport()
        row, filled = len(self._rows) - 1, 0
        while row >= 0 and filled < h:  # measure the last screen, so the end is exact
            self._measure_row(row)
            filled += self._heights[row]
            row -= 1
        self._sync_size()
        if move_cursor:
            self._cursor = self._rows[-1]
        self._scroll_y_to(self.max_scroll_y)
        self._settle()
        self._scroll_y_to(self.max_scroll_y)
        self.refresh()
        if move_cursor:
            self._post_highlight()

    def action_page(self, direction: int) -> None:
        if not self._rows:
            return
        y0, h = self._viewport()
        self._scroll_y_to(y0 + direction * max(1, h - 2))
        if not self._cursor_on_screen():
            self._cursor = self._rows[self._first_row_on_screen()]
            self._post_highlight()
        self.refresh()

    def action_turn(self, direction: int) -> None:
        if not self._rows:
            return
        row = self.cursor_row if self.cursor_row >= 0 else 0
        rows = range(row + 1, len(self._rows)) if direction > 0 else range(row - 1, -1, -1)
        for r in rows:
            if self.model.is_user_turn(self._rows[r]):
                self._move(self._rows[r], align="top")
                return
        self.notify("no later user turn" if direction > 0 else "no earlier user turn", timeout=2)

    def on_click(self, event: events.Click) -> None:
        if not self._rows:
            return
        vy = round(self.scroll_y) + event.y
        if vy >= self._heights.total:
            return
        row = self._heights.row_at(vy)
        index = self._rows[row]
        header = vy - self._heights.top(row) - self._gap(row) == 0
        self._move(index)
        if header and self.model.collapsible(index):
            self._toggle(index)
