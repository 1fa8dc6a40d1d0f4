"""The transcript view's expanding and hiding: tool calls expanded or folded (one or all), thinking
and abandoned branches shown or hidden, the layout kept around the cursor."""
from __future__ import annotations

from array import array

from sessionscope.core.read.transcript import HeightIndex


class TranscriptExpand:
    """Mixed into TranscriptView (the state it uses is set up in TranscriptView.__init__)."""

    # -- expanding ---------------------------------------------------------------------------------
    def action_activate(self) -> None:
        item = self.highlighted_item
        if item is None:
            return
        if item.is_subagent_call:
            self.post_message(self.SubagentRequested(self, item.entry, self._subagent(item)))
        elif item.cut and not item.collapsible:
            self.read_rest(self._cursor)
        else:
            self.action_toggle()

    def action_toggle(self) -> None:
        if self._cursor >= 0 and self.model.collapsible(self._cursor):
            self._toggle(self._cursor)

    def _toggle(self, index: int) -> None:
        self._toggled ^= {index}
        if self._expanded(index):
            self.read_rest(index)
        self._invalidate(index)
        self._after_layout_change()
        self._reveal(self._row_of[index])

    def action_expand_all(self) -> None:
        self._set_expanded(True)

    def action_collapse_all(self) -> None:
        self._set_expanded(False)

    def _set_expanded(self, value: bool) -> None:
        anchor = self._cursor_anchor()
        self._expand_default = value
        self._toggled.clear()
        self._body = array("i", [-1]) * len(self.model)
        self._strips.clear()
        self._heights = HeightIndex.of([self._row_height(r) for r in range(len(self._rows))])
        self._sync_size()
        self._restore(anchor)

    def action_toggle_thinking(self) -> None:
        self._set_thinking(not self.show_thinking)

    def _set_thinking(self, value: bool) -> None:
        self.show_thinking = value
        self._relayout()

    def action_toggle_branches(self) -> None:
        self._set_branches(not self.show_branches)

    def _set_branches(self, value: bool) -> None:
        self.show_branches = value
        self._relayout()
        self.refresh_bindings()

    def _branches_found(self, changed: list[int]) -> None:
        """Items already shown turned out to be off the active branch (a streamed file, read to
        its end): restyle them, and hide them unless all branches are shown."""
        if not changed:
            return
        for i in changed:
            self._strips.discard(i)
            self._body[i] = -1
        self._relayout()
        self.refresh_bindings()

    def _relayout(self) -> None:
        """Rows chosen again (thinking or branches shown or hidden), the cursor kept in place."""
        anchor = self._cursor_anchor()
        self._rebuild_rows()
        if self._cursor >= 0 and self._row_of[self._cursor] < 0:
            self._cursor = next((i for i in range(self._cursor, len(self._row_of)) if self._row_of[i] >= 0),
                                self._rows[-1] if self._rows else -1)
        if self._query:
            self._matches = self._visible_hits()
        self._sync_size()
        self._restore(anchor)

    def _cursor_anchor(self) -> tuple[int, int] | None:
        """Keep the cursor's entry where it is on screen across a relayout (else the top row)."""
        if self._cursor >= 0 and self._cursor_on_screen():
            y0, _ = self._viewport()
            return self._cursor, y0 - self._heights.top(self.cursor_row)
        return self._anchor()

    def _after_layout_change(self) -> None:
        self._sync_size()
        self._settle()
        self.refresh()
