"""The search pane: a query input over the grouped hits, searching as you type.

Typing searches after a 200 ms pause (each keystroke restarts the timer); enter searches at
once, and a second enter (or down) moves into the results; escape there goes back to the query.
The search itself runs in a thread worker (exclusive: a newer query supersedes an older one,
and a result that arrives late for an old query is dropped). A malformed query shows the
parser's reason with a caret under the offending column instead of hits.

Keys: type to search · enter search now / go to results · down go to results ·
up/down/k/j, pageup/pagedown, home/end move over hits · enter open hit · escape back to query.
"""
from __future__ import annotations

import re

import time
from dataclasses import dataclass
from datetime import datetime
from typing import Callable, ClassVar

from rich.cells import cell_len
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.timer import Timer
from textual.widgets import Input, Static
from textual.worker import get_current_worker

from sessionscope.core.format import count
from sessionscope.core.search.hits import SearchResult
from sessionscope.core.search.query import QueryError
from sessionscope.core.search.hits import Hit
from sessionscope.core.text import printable

from .search_results import Lookup, SearchResults

SearchFn = Callable[[str, int], SearchResult]

DEBOUNCE = 0.2  # seconds of quiet typing before a search runs
RERUN_WHILE_INDEXING = 2.0  # while the index builds, the shown query is re-run at most this often


# A source reference as a brief prints it (optionally after `Source: `): an optional agent name
# and `:`, a session id (a subagent's with `/`), `#` and an entry id, and nothing else.
_REF = re.compile(r"^(?:Source:\s*)?(?:[A-Za-z][\w.-]*:)?[0-9A-Za-z][\w.-]*(?:/[\w.-]+)?#[\w.-]+(?:;.*)?$")


@dataclass
class _Searched(Message):
    """A search finished in the worker (private: the pane turns it into display)."""

    seq: int
    query: str
    result: SearchResult | None = None
    error: Exception | None = None


@dataclass
class _Progressed(Message):
    """Index build progress; only the latest one matters, so queued ones are replaced."""

    done: int
    total: int

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, _Progressed)


class SearchPane(Vertical):
    """A query input, a one-line summary/status bar, and the results."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("down", "focus_results", "Results"),
        Binding("escape", "focus_input", "Back to query", id="search-pane.back"),
    ]

    DEFAULT_CSS = """
    SearchPane {
        height: 1fr;
        #search-bar { height: 1; padding: 0 1; }
        #search-summary { width: 1fr; color: $foreground-muted; }
        #search-status { width: auto; color: $foreground-muted; }
        #search-status.-indexing { color: $text-warning; }
        SearchResults { height: 1fr; }
    }
    """

    HINT = (
        "Type to search every session: words, \"a phrase\", prefix*, a OR b, -exclude,",
        "or a path or fragment (anything with punctuation matches as a substring).",
        "Filters: agent:codex  project:payments  role:user  kind:tool_use  tool:Bash  since:7d  until:2026-01-31",
    )

    @dataclass
    class RefSubmitted(Message):
        """Enter on a text shaped like a source reference (`agent:session#entry`, `session#entry`):
        the screen opens that entry, or calls `search_now` when it names no known session."""

        search_pane: SearchPane
        ref: str

        @property
        def control(self) -> SearchPane:
            return self.search_pane

    @dataclass
    class HitSelected(Message):
        """A hit was opened: the app shows its session at `hit.entry_id`."""

        search_pane: SearchPane
        hit: Hit
        query: str

        @property
        def control(self) -> SearchPane:
            return self.search_pane

    def __init__(
        self,
        search: SearchFn,
        status: str = "",
        *,
        lookup: Lookup | None = None,
        now: datetime | Callable[[], datetime] | None = None,
        limit: int = 200,
        debounce: float = DEBOUNCE,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        """`search(query, limit)` is called in a thread (an index's search); `status` is shown at
        the right of the bar; `lookup(session_id)` gives session titles for the group headers."""
        super().__init__(name=name, id=id, classes=classes)
        self._search = search
        self._status = status
        self._lookup = lookup
        self._now = now
        self.limit = limit
        self.debounce = debounce
        self._timer: Timer | None = None
        self._seq = 0  # number of the latest search asked for
        self._shown_query: str | None = None  # the query whose results are on screen
        self._last_run = 0.0
        self._progress: tuple[int, int] | None = None

    def compose(self) -> ComposeResult:
        yield Input(placeholder="Search all sessions…", id="search-input")
        with Horizontal(id="search-bar"):
            yield Static(id="search-summary", markup=False)
            yield Static(id="search-status", markup=False)
        yield SearchResults(lookup=self._lookup, now=self._now, id="search-results")

    def on_mount(self) -> None:
        self._show_hint()
        self._update_status()

    # -- public API ----------------------------------------------------------------------------
    @property
    def query_text(self) -> str:
        """What the input holds now (not necessarily what the shown results are for)."""
        return self.query_one("#search-input", Input).value

    @property
    def results(self) -> SearchResults:
        return self.query_one(SearchResults)

    def focus_input(self) -> None:
        self.query_one("#search-input", Input).focus()

    def search_now(self, query: str | None = None) -> None:
        """Search at once (for `query`, which then replaces the input's text, or the input's)."""
        if query is not None:
            with self.prevent(Input.Changed):
                self.query_one("#search-input", Input).value = query
        self._cancel_timer()
        self._start(self.query_text)

    def set_status(self, status: str) -> None:
        """The text at the right of the bar (e.g. "12,345 entries indexed")."""
        self._status = status
        self._update_status()

    def set_progress(self, done_files: int, total_files: int) -> None:
        """Index build progress: shown until `done_files == total_files`. Safe from any thread."""
        self.post_message(_Progressed(done_files, total_files))

    # -- typing and searching ------------------------------------------------------------------
    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None

    @on(Input.Changed, "#search-input")
    def _typed(self, event: Input.Changed) -> None:
        event.stop()
        self._cancel_timer()
        if not event.value.strip():
            self._seq += 1  # whatever is still running is now stale
            self._show_hint()
            return
        if _REF.match(event.value.strip()):  # a pasted Source: say what enter does, search nothing yet
            self._seq += 1
            self._shown_query = None
            self._summary(Text("source reference"))
            muted = self.results.get_component_rich_style("search-results--message")
            self.results.show_message(
                Text(f"Enter opens {printable(event.value.strip())}", style=muted),
                Text("(a session#entry reference, as a brief's Source gives it; if no session has that id, "
                     "enter searches for the text)", style=muted))
            return
        # (Textual timers cannot have a zero interval: a "no delay" pane still waits a tick.)
        self._timer = self.set_timer(max(self.debounce, 0.001), self._debounced)

    def _debounced(self) -> None:
        self._timer = None
        self._start(self.query_text)

    @on(Input.Submitted, "#search-input")
    def _submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if _REF.match(event.value.strip()):  # a brief's Source (or any id#entry): the screen opens it
            self.post_message(self.RefSubmitted(self, event.value.strip()))
            return
        if event.value == self._shown_query and self.results.hits:
            self.action_focus_results()  # enter again on the same query: go to the hits
        else:
            self.search_now()

    def search_again(self) -> None:
        """The query shown, searched again (the app's secret masking changed)."""
        if self._shown_query:
            self._start(self._shown_query)

    def _start(self, query: str) -> None:
        if not query.strip():
            self._show_hint()
            return
        self._seq += 1
        self._last_run = time.monotonic()
        self._summary(Text("searching…"))
        self._run(self._seq, query)

    @work(thread=True, exclusive=True, group="search", exit_on_error=False)
    def _run(self, seq: int, query: str) -> None:
        worker = get_current_worker()
        try:
            result = self._search(query, self.limit)
        except Exception as exc:  # noqa: BLE001 - shown in the pane, never a traceback
            if not worker.is_cancelled:
                self.post_message(_Searched(seq, query, error=exc))
            return
        if not worker.is_cancelled:
            self.post_message(_Searched(seq, query, result=result))

    @on(_Searched)
    def _searched(self, message: _Searched) -> None:
        if message.seq != self._seq:
            return  # an older query's answer, arriving after a newer one was asked for
        results = self.results
        previous, self._shown_query = self._shown_query, message.query
        if isinstance(message.error, QueryError):
            self._summary(Text("query error"))
            results.show_message(*self._error_lines(message.query, message.error))
        elif message.error is not None:
            self._summary(Text("search failed"))
            results.show_message(Text(printable(f"Search failed: {message.error}"),
                                      style=results.get_component_rich_style("search-results--error")))
        elif message.result is not None:
            result = message.result
            sessions = len({h.session_id for h in result.hits})
            if not result.hits and result.mode == "pending":  # the app has no index yet
                self._summary(Text("index not ready"))
                results.show_message(Text("The index is still being built: results appear as it fills.",
                                          style=results.get_component_rich_style("search-results--message")))
                return
            if not result.hits:
                self._summary(Text("no hits"))
                results.show_message(Text(f"Nothing matches {printable(message.query)!r}.",
                                          style=results.get_component_rich_style("search-results--message")))
                return
            more = "+" if len(result.hits) >= self.limit else ""
            order = {"ranked": "best first", "recent": "newest first", "substring": "newest first"}
            hits = "hit" if len(result.hits) == 1 and not more else "hits"
            self._summary(Text(f"{len(result.hits):,}{more} {hits} in {count(sessions, 'session')}"
                               f" · {order.get(result.mode, result.mode)}"))
            results.show_result(result, keep_cursor=message.query == previous)

    def _error_lines(self, query: str, error: QueryError) -> list[Text]:
        """The reason, then the query with a caret under the column where the problem starts."""
        results = self.results
        err = results.get_component_rich_style("search-results--error")
        muted = results.get_component_rich_style("search-results--message")
        column = max(1, error.column)
        shown = printable(query.replace("\n", " "))
        # Control characters are shown as wider stand-ins: measure the shown prefix, not the raw.
        caret_at = cell_len(printable(query[: column - 1].replace("\n", " ")))
        return [
            Text(f"Query error: {printable(error.reason)} (column {error.column})", style=err),
            Text(""),
            Text(shown),
            Text(" " * caret_at + "^", style=err),
            Text(""),
            Text(self.HINT[0], style=muted),
            Text(self.HINT[2], style=muted),
        ]

    def _show_hint(self) -> None:
        self._shown_query = None
        self._summary(Text(""))
        results = self.results
        muted = results.get_component_rich_style("search-results--message")
        results.show_message(*(Text(line, style=muted) for line in self.HINT))

    # -- status bar ----------------------------------------------------------------------------
    def _summary(self, text: Text) -> None:
        self.query_one("#search-summary", Static).update(text)

    def _update_status(self) -> None:
        widget = self.query_one("#search-status", Static)
        if self._progress is not None:
            done, total = self._progress
            widget.update(Text(f"indexing {done:,}/{total:,} files… results so far"))
            widget.add_class("-indexing")
        else:
            widget.update(Text(printable(self._status)))
            widget.remove_class("-indexing")

    @on(_Progressed)
    def _progressed(self, message: _Progressed) -> None:
        finished = message.done >= message.total
        self._progress = None if finished else (message.done, message.total)
        self._update_status()
        # "Results so far" grow while the index builds: refresh the shown query now and then,
        # and once more when the build is done.
        query = self._shown_query
        if (query and query == self.query_text and self._timer is None
                and (finished or time.monotonic() - self._last_run >= RERUN_WHILE_INDEXING)):
            self._start(query)

    # -- focus ---------------------------------------------------------------------------------
    def action_focus_results(self) -> None:
        self.results.focus()

    def action_focus_input(self) -> None:
        self.focus_input()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        focused = self.screen.focused if self.is_mounted else None
        if action == "focus_input":  # escape: ours only from the results
            return focused is self.results
        if action == "focus_results":  # down: ours only from the input, with hits to go to
            return isinstance(focused, Input) and bool(self.results.hits)
        return True

    @on(SearchResults.HitSelected)
    def _hit_selected(self, event: SearchResults.HitSelected) -> None:
        event.stop()
        self.post_message(self.HitSelected(self, event.hit, self._shown_query or self.query_text))
