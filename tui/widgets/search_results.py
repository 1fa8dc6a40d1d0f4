"""Search hits grouped by session, as a Line API view: a header row per session, then its hits.

The cursor moves over hits only (headers and gaps are skipped); enter or a click on the
highlighted hit posts `HitSelected`. Snippets are transcript text: they are never parsed as
markup, control characters are made visible, and the query's terms are highlighted from the
spans `core.search.hits.highlight_spans` finds.
"""
from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass
from datetime import datetime
from typing import Callable, ClassVar, NamedTuple

from rich.style import Style
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.strip import Strip

from sessionscope.core.format import count, project_name, short_time
from sessionscope.core.search.hits import SearchResult, highlight_spans
from sessionscope.core.model import Session, SessionKind
from sessionscope.core.secrets import masked_line
from sessionscope.core.search.query import Query
from sessionscope.core.search.hits import Hit
from sessionscope.core.text import one_line, printable

from ._cells import clock_of, fit
from ._line_list import CURSOR_KEYS, END_KEYS, PAGE_KEYS, LineList, ListMessage

Lookup = Callable[[str], "Session | None"]

_KIND_LABELS = {
    "tool_use": "tool call",
    "tool_result": "tool output",
    "thinking": "thinking",
    "summary": "summary",
    "compaction": "compaction",
    "system": "system",
    "meta": "meta",
    "malformed": "malformed",
    "unknown": "unknown",
}
_INDENT, _LABEL, _TIME, _GAP = 3, 11, 12, 2
_AGENT, _PROJECT, _COUNT = 11, 18, 8


class Row(NamedTuple):
    kind: str  # "header" | "hit" | "gap" | "message"
    hit: Hit | None = None
    session_id: str = ""
    hits: int = 0  # header rows: how many hits the group holds
    text: Text | None = None  # message rows


def hit_label(hit: Hit) -> str:
    """What a hit is, in a word or two: the role for plain text, else the kind ("tool call")."""
    return hit.role if hit.kind == "text" else _KIND_LABELS.get(hit.kind, hit.kind)


def snippet_text(preview: str, query: Query | None, match: Style) -> Text:
    """The preview on one line with the query's terms in `match` style.

    Spans are found on the raw preview, then each piece is made printable on its own: the
    stand-ins for control characters are longer than the characters, so doing it first would
    shift every span after one."""
    flat = preview.replace("\n", " ").replace("\t", " ").replace("\r", " ").strip()
    spans = highlight_spans(flat, query) if query is not None else []
    text = Text(no_wrap=True, end="")
    pos = 0
    for start, end in spans:
        if start < pos:
            continue
        text.append(printable(flat[pos:start]))
        text.append(printable(flat[start:end]), match)
        pos = end
    text.append(printable(flat[pos:]))
    return text


class SearchResults(LineList):
    """Hits of one search, grouped by session in the order of their best hit."""

    REVEAL_UNMOVED = True

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select", "Open hit", id="search-results.open"),
        *CURSOR_KEYS, *PAGE_KEYS, *END_KEYS,
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {f"search-results--{name}" for name in (
        "header", "meta", "label", "match", "cursor", "hover", "message", "error"
    )}

    DEFAULT_CSS = """
    SearchResults {
        overflow-x: hidden;
        overflow-y: auto;
        scrollbar-size-vertical: 1;
        & > .search-results--header { text-style: bold; }
        & > .search-results--meta { color: $foreground-muted; }
        & > .search-results--label { color: $text-secondary; }
        & > .search-results--match { color: $text-warning; text-style: bold underline; }
        & > .search-results--cursor {
            color: $block-cursor-blurred-foreground;
            background: $block-cursor-blurred-background;
            text-style: $block-cursor-blurred-text-style;
        }
        &:focus > .search-results--cursor {
            color: $block-cursor-foreground;
            background: $block-cursor-background;
            text-style: $block-cursor-text-style;
        }
        & > .search-results--hover { background: $block-hover-background; }
        & > .search-results--message { color: $foreground-muted; }
        & > .search-results--error { color: $text-error; text-style: bold; }
    }
    """

    @dataclass
    class HitSelected(ListMessage):
        """A hit was opened (enter, double-click, or a click on the highlighted hit)."""

        hit: Hit

    def __init__(
        self,
        *,
        lookup: Lookup | None = None,
        now: datetime | Callable[[], datetime] | None = None,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        """`lookup` finds a hit's session (for its title); `now` fixes the clock of the dates."""
        super().__init__(name=name, id=id, classes=classes)
        self._lookup = lookup
        self._clock: Callable[[], datetime] = clock_of(now)
        self._rows: list[Row] = []
        self._hit_rows: list[int] = []  # indices into _rows of the selectable rows (the items)
        self._query: Query | None = None

    # -- content ---------------------------------------------------------------------------------
    def show_result(self, result: SearchResult, *, keep_cursor: bool = False) -> None:
        """Show these hits, grouped by session; the cursor goes to the first hit, or with
        `keep_cursor` stays on the same hit if it is still there (a refreshed result)."""
        keep = self.highlighted_hit if keep_cursor else None
        groups: dict[str, list[Hit]] = {}
        for hit in result.hits:
            groups.setdefault(hit.session_id, []).append(hit)
        rows: list[Row] = []
        for session_id, hits in groups.items():
            if rows:
                rows.append(Row("gap"))
            rows.append(Row("header", hits[0], session_id, len(hits)))
            rows.extend(Row("hit", h, session_id) for h in hits)
        self._query = result.query
        top = round(self.scroll_y)
        self._set_rows(rows)
        if keep is not None:
            where = (keep.session_id, keep.entry_id)
            position = next((p for p, i in enumerate(self._hit_rows)
                             if (rows[i].hit.session_id, rows[i].hit.entry_id) == where), None)  # type: ignore[union-attr]
            if position is not None:
                self.scroll_to(y=top, animate=False)
                self._move(position)

    def show_message(self, *lines: Text) -> None:
        """Show lines of text instead of hits (a hint, "no hits", an error)."""
        self._query = None
        self._set_rows([Row("message", text=line) for line in lines])

    def _set_rows(self, rows: list[Row]) -> None:
        self._rows = rows
        self._hit_rows = [i for i, r in enumerate(rows) if r.kind == "hit"]
        self._cursor = 0
        self._reset(len(rows))
        self.scroll_to(y=0, animate=False)
        self.refresh()

    @property
    def hits(self) -> list[Hit]:
        return [self._rows[i].hit for i in self._hit_rows]  # type: ignore[misc]

    @property
    def highlighted_hit(self) -> Hit | None:
        return self._rows[self._hit_rows[self._cursor]].hit if self._hit_rows else None

    @property
    def rows(self) -> list[Row]:
        return list(self._rows)

    # -- cursor ----------------------------------------------------------------------------------
    def _item_count(self) -> int:
        return len(self._hit_rows)

    def _line_count(self) -> int:
        return len(self._rows)

    def _line_of(self, index: int) -> int:
        return self._hit_rows[index]

    def _item_head(self, index: int) -> int:
        # Moving up onto a group's first hit also brings its session header into view.
        row = header = self._hit_rows[index]
        while header > 0 and self._rows[header - 1].kind in ("header", "gap") and row - header < 2:
            header -= 1
        return header

    def _item_of_line(self, line: int) -> int | None:
        position = bisect_left(self._hit_rows, line)
        return position if position < len(self._hit_rows) and self._hit_rows[position] == line else None

    def _selected(self, index: int) -> None:
        self.post_message(self.HitSelected(self, self._rows[self._hit_rows[index]].hit))  # type: ignore[arg-type]

    # -- rendering -------------------------------------------------------------------------------
    def _render_line(self, line: int, width: int, cursor: bool, hover: bool) -> Strip:
        row = self._rows[line]
        base: Style | None = None
        if row.kind == "gap":
            text = Text()
        elif row.kind == "message":
            text = Text(" ", end="") + (row.text or Text())
        elif row.kind == "header":
            text = self._header_text(row, width)
        else:
            text = self._hit_text(row, width, cursor)
            base = self._row_style(cursor, hover, "search-results")
        text.no_wrap, text.end = True, ""
        return self._strip(text, width, base)

    def _header_text(self, row: Row, width: int) -> Text:
        hit = row.hit
        assert hit is not None
        session = self._lookup(row.session_id) if self._lookup else None
        masked = getattr(self.app, "mask_secrets", False)  # titles masked first while the app masks secrets
        title = ((masked_line if masked else one_line)(session.title) if session and session.title
                 else f"session {row.session_id}")
        if session is not None and session.kind is not SessionKind.MAIN:
            title = f"{session.kind.value} · {title}"  # a subagent's hits apart from its parent's
        when = (session.last_timestamp or session.first_timestamp) if session else hit.timestamp
        meta = self._style("search-results--meta")
        project = one_line(project_name(session.project if session else hit.project)) or "-"
        right = Text(no_wrap=True, end="")
        for value, w, align_right in ((one_line(hit.agent), _AGENT, False), (project, _PROJECT, False),
                                      (short_time(when, self._clock()), _TIME, False),
                                      (count(row.hits, "hit"), _COUNT, True)):
            right.append(" " * _GAP)
            right.append_text(fit(value, w, align_right, meta))
        head = fit(title, max(8, width - 2 - right.cell_len), False, self._style("search-results--header"))
        return Text(" ", end="") + head + right

    def _hit_text(self, row: Row, width: int, cursor: bool) -> Text:
        hit = row.hit
        assert hit is not None
        # On the cursor row the cursor style alone decides colours (contrast).
        label = fit(hit_label(hit), _LABEL, False, None if cursor else self._style("search-results--label"))
        when = fit(short_time(hit.timestamp, self._clock()), _TIME, False,
                    None if cursor else self._style("search-results--meta"))
        snippet = snippet_text(hit.preview, self._query, self._style("search-results--match"))
        text = Text(" " * _INDENT, no_wrap=True, end="")
        text.append_text(label)
        text.append(" " * _GAP)
        text.append_text(when)
        text.append(" " * _GAP)
        text.append_text(snippet)
        return text

