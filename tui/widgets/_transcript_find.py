"""The transcript view's find: a query highlighted everywhere, the cursor moved from match to match
(a folded tool call opened where the match is inside it)."""
from __future__ import annotations

from dataclasses import dataclass

from textual import work
from textual.message import Message
from textual.strip import Strip
from textual.worker import get_current_worker

from sessionscope.core.read.compact import CompactTranscript
from sessionscope.core.text import printable


@dataclass
class _Searched(Message):
    """A streamed file searched for `query`: the items it is in."""

    query: str
    hits: list[int]
    jump: bool
    generation: int


class TranscriptFind:
    """Mixed into TranscriptView (the state it uses is set up in TranscriptView.__init__)."""

    def find(self, query: str, *, jump: bool = True) -> None:
        """Highlight `query` everywhere and move to its first match at or after the cursor. In a
        streamed file the file is searched (off the UI thread): the hits come when it is done."""
        self._query = query
        if self._finder is not None:
            self._finder.cancel()
            self._finder = None
        self._hits, self._matches = [], []
        self.refresh()
        self.refresh_bindings()  # n/N show in the footer only while there is a query
        if query and isinstance(self.model, CompactTranscript):
            self._post_find()
            self._finder = self._search_file(self.model, query, jump, self._generation)
            return
        self._hits = self.model.hits(query) if query else []
        self._found(jump)

    def _found(self, jump: bool) -> None:
        self._matches = self._visible_hits()
        if jump and self._matches:
            start = self._cursor if self._cursor >= 0 else 0
            after = [i for i in self._matches if self._row_of[i] >= self._row_of[start]]
            self._goto_match(after[0] if after else self._matches[0])
        else:
            self._post_find()

    @work(thread=True, exclusive=True, group="transcript-find", exit_on_error=False)
    def _search_file(self, model: CompactTranscript, query: str, jump: bool, generation: int) -> None:
        worker = get_current_worker()
        hits = model.hits(query, lambda: worker.is_cancelled)
        if not worker.is_cancelled:
            self.post_message(_Searched(query, hits, jump, generation))

    def _searched(self, message: _Searched) -> None:
        if message.generation != self._generation or message.query != self._query:
            return  # (a later query, or a reload, came since)
        found = set(message.hits) | set(self._hits)  # (and those of batches read since)
        self._hits = sorted(found)
        self._finder = None
        self._found(message.jump)

    def _visible_hits(self) -> list[int]:
        row_of = self._row_of
        return [i for i in self._hits if row_of[i] >= 0]

    def clear_find(self) -> None:
        self.find("", jump=False)

    def action_find_next(self, step: int) -> None:
        if not self._matches:
            if self._query:
                self.notify(printable(f"“{self._query}” is not in this transcript"), severity="warning",
                            timeout=3, markup=False)
            return
        cur = self.cursor_row
        ordered = self._matches
        if step > 0:
            nxt = next((i for i in ordered if self._row_of[i] > cur), ordered[0])
        else:
            nxt = next((i for i in reversed(ordered) if self._row_of[i] < cur), ordered[-1])
        self._goto_match(nxt)

    def _goto_match(self, index: int) -> None:
        item = self.model.items[index]
        if item.collapsible and not self._expanded(index):
            head = self._strips_for(index)[0].text.casefold()
            if self._query.casefold() not in head:
                self._toggled ^= {index}
                self.read_rest(index)
                self._invalidate(index)
                self._sync_size()
        strips = self._strips_for(index)
        self._move(index, align="top", line=_match_line(strips, self._query))
        self._post_find()

    def _post_find(self) -> None:
        current = 0
        if self._cursor in self._matches:
            current = self._matches.index(self._cursor) + 1
        self.post_message(self.FindUpdated(self, self._query, current, len(self._matches)))


def _match_line(strips: list[Strip], query: str) -> int | None:
    """The first line of an item's strips that shows `query`, or where it starts when the text
    wraps in its middle (a phrase cut at a space, a long word folded): the find scrolls there,
    not to the top of a long entry."""
    needle = " ".join(query.split()).casefold()
    if not needle:
        return None
    texts = [" ".join(s.text.split()).casefold() for s in strips]
    found = next((k for k, t in enumerate(texts) if needle in t), None)
    if found is not None:
        return found
    return next((k for k in range(len(texts) - 1)
                 if needle in f"{texts[k]} {texts[k + 1]}" or needle in texts[k] + texts[k + 1]), None)
