"""The transcript view while its session's file is live: follow mode, entries appended, a reload
after a rewrite, a deleted file."""
from __future__ import annotations

import threading
from array import array
from typing import Sequence

from sessionscope.core.model import Entry, Session, SessionKind
from sessionscope.core.read.loading import last_offset, live_batch
from sessionscope.core.read.transcript import HeightIndex, Transcript


class TranscriptLive:
    """Mixed into TranscriptView (the state it uses is set up in TranscriptView.__init__)."""

    # -- live ---------------------------------------------------------------------------------------
    # Entries appended to the open file are always added at the end (the transcript stays true to
    # the file). Follow mode (`f`) is `tail -f`: at the end of the transcript, the view scrolls to
    # each new entry, and the cursor goes with it when it was on the last one. Anywhere else, with
    # or without follow mode, the view keeps its place and counts the new rows below the screen
    # (`unseen`, shown in the screen's header) until they are scrolled into view.
    @property
    def live(self) -> bool:
        """Whether the app watches the files, so that anything can arrive."""
        return bool(getattr(self.app, "watch_files", False))

    @property
    def unseen(self) -> int:
        """Rows appended live below the screen since the end was last in view."""
        return len(self._rows) - self._unseen_from if self._unseen_from is not None else 0

    def action_toggle_follow(self) -> None:
        self.set_following(not self.following)

    def set_following(self, value: bool) -> None:
        """Follow mode on (jumping to the end) or off (staying where the view is)."""
        self.following = value
        self.set_class(value, "-following")
        if value:
            self.action_last()
            self._unseen_from = None
        self._post_live()

    def append_live(self, entries: Sequence[Entry]) -> int:
        """Entries appended to the session's file since it was read (a `GREW` event's). Returns
        how many rows were added; while the file is still being read they wait for the end."""
        if self.deleted or self.error:
            return 0
        if not self.loaded or self._reopen is not None:
            self._pending_live.extend(entries)
            return 0
        batch = live_batch(entries, self.session.path, after=self._tail, streamed=self.streamed,
                           skip_sidechains=self.session.kind is SessionKind.MAIN)
        if not batch.entries:
            return 0
        self._tail = max(self._tail, last_offset(batch.entries, self.session.path))
        at_end = self._at_end()
        cursor_at_end = not self._rows or self._cursor == self._rows[-1]
        anchor = self._anchor()
        before = len(self._rows)
        self._add_batch(batch)
        added = len(self._rows) - before
        if self._cursor < 0 and self._rows:
            self._cursor = self._rows[0]
            self._post_highlight()
        if self.following and at_end:
            self._to_end(move_cursor=cursor_at_end)
        else:
            # A result folded into a call above the screen changes that row's height: the anchor
            # keeps what is on screen where it is.
            self._restore(anchor)
            if added and self._unseen_from is None:
                self._unseen_from = before
        self._update_unseen(post=True)
        self.refresh()
        if self._query:
            self._post_find()
        return added

    def reload(self, session: Session | None = None) -> None:
        """Read the session again from scratch (its file was rewritten, truncated or moved),
        keeping the cursor on the same entry if it is still there (else on the same row) at the
        same line of the screen, and expanded entries expanded."""
        if session is not None:
            self.session = session
        entry = self.highlighted_entry
        row = self.cursor_row
        if row >= 0:
            self._reopen = (entry.id if entry else None, row, self._heights.top(row) - round(self.scroll_y))
        else:
            self._reopen = (None, 0, 0)
        self._reopen_expanded = {self.model.items[i].entry.id for i in self._toggled
                                 if i < len(self.model)}
        self._generation += 1
        self._painted = threading.Event()
        self.model = Transcript(self.session.project)
        if self._finder is not None:
            self._finder.cancel()
            self._finder = None
        self._matches, self._hits = [], []
        self._rows, self._row_of, self._body = array("i"), array("i"), array("i")
        self._dates, self._day_mark, self._last_day = array("i"), array("i"), 0
        self._heights = HeightIndex()
        self._toggled = set()
        self._rereading = set()
        self._cursor = -1
        self._strips.clear()
        self._children = None
        self._painter = None
        self._target = None
        self.loaded = self.streamed = self.deleted = False
        self.entry_count = 0
        self.error = None
        self._tail = -1
        self._pending_live = []
        self._unseen_from = None
        self.set_class(False, "-deleted")
        self._sync_size()
        self.refresh()
        self._loader = self._load(self._generation, self._painted)
        self._post_live()

    def _reopened(self, *, final: bool) -> bool:
        """After a reload: put the cursor back once its entry (or the end of the file) is read."""
        assert self._reopen is not None
        entry_id, row, line = self._reopen
        index = self.model.index_of(entry_id) if entry_id else None
        if not final and (index is None or self.following):
            return False
        expanded, self._reopen_expanded = self._reopen_expanded, set()
        self._toggled = {i for i in (self.model.index_of(e) for e in expanded) if i is not None}
        for i in self._toggled:
            self._invalidate(i)
        if not self._rows:
            return True
        if self.following:
            self._to_end(move_cursor=True)
            return True
        if index is None or self._row_of[index] < 0:
            index = self._rows[min(row, len(self._rows) - 1)]
        self._cursor = index
        r = self._row_of[index]
        self._measure_row(r)
        self._scroll_y_to(self._heights.top(r) - line)
        self._settle()
        self._post_highlight()
        return True

    def children_changed(self) -> None:
        """A subagent session of this one appeared or went: match the calls to them again."""
        if self._children is not None:
            self._children = None
            self._strips.clear()
            self.refresh()

    def mark_deleted(self) -> None:
        """The session's file is gone: keep what was read, take no more live entries."""
        self.deleted = True
        self._pending_live.clear()
        self.set_class(True, "-deleted")
        self._post_live()

    def _at_end(self) -> bool:
        return round(self.scroll_y) >= self.max_scroll_y - 1

    def _update_unseen(self, *, post: bool = False) -> None:
        """Rows that have come into view are seen: move the unseen mark past them."""
        before = self.unseen
        if self._unseen_from is not None and self._rows:
            y0, h = self._viewport()
            last = self._heights.row_at(y0 + h - 1)
            self._unseen_from = max(self._unseen_from, last + 1)
            if self._unseen_from >= len(self._rows):
                self._unseen_from = None
        if post or self.unseen != before:
            self._post_live()

    def _post_live(self) -> None:
        self.post_message(self.LiveStateChanged(self, self.following, self.unseen, self.deleted))
