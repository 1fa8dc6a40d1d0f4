"""The sessions of a project active around a moment (a memory note's time), nearest first, as a
small Line API list: enter or a click on the highlighted one posts `SessionSelected`.

`sessions_around()` picks and orders them; it is plain data, kept beside the only view that
shows it.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Callable, ClassVar, Iterable, NamedTuple

from rich.style import Style
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.geometry import Size
from textual.strip import Strip

from sessionscope.core.format import short_time
from sessionscope.core.memory.places import claude_dir_name
from sessionscope.core.model import Session
from sessionscope.core.text import one_line

from ._cells import clock_of, fit
from ._line_list import CURSOR_KEYS, END_KEYS, LineList, ListMessage

__all__ = ["NEARBY_WINDOW", "Nearby", "NearbySessions", "same_project", "sessions_around"]

NEARBY_WINDOW = timedelta(days=3)
_SLACK = timedelta(minutes=5)
_TIME, _WHEN, _AGENT, _GAP = 12, 10, 11, 2


class Nearby(NamedTuple):
    session: Session
    distance: timedelta  # from the moment to the session's active span (0 inside it)
    relation: str  # "during", "2h before", "1d after": when the session was, seen from the moment


def same_project(session_project: str | None, project: str) -> bool:
    """Whether a session's project (its cwd) is the memory's project: the same directory, or the
    escaped folder name Claude Code files that directory's memory under."""
    if not session_project:
        return False
    norm = os.path.normpath(session_project.rstrip("/\\") or session_project)
    return norm == os.path.normpath(project) or claude_dir_name(session_project) == project


def _span(delta: timedelta) -> str:
    secs = delta.total_seconds()
    if secs >= 86400:
        return f"{int(secs // 86400)}d"
    if secs >= 3600:
        return f"{int(secs // 3600)}h"
    return f"{max(1, int(secs // 60))}m"


def sessions_around(
    moment: datetime,
    sessions: Iterable[Session],
    project: str,
    window: timedelta = NEARBY_WINDOW,
) -> list[Nearby]:
    """The sessions of `project` whose activity (first to last timestamp) comes within `window`
    of `moment`, nearest first (ties: the earlier session first)."""
    out: list[Nearby] = []
    for s in sessions:
        first = s.first_timestamp or s.last_timestamp
        last = s.last_timestamp or first
        if first is None or last is None or not same_project(s.project, project):
            continue
        # A few minutes either side count as during: a note's name holds the minute its session
        # started, and the session's first entry may come a few minutes later.
        if first - _SLACK <= moment <= last + _SLACK:
            out.append(Nearby(s, timedelta(0), "during"))
        elif moment > last:
            out.append(Nearby(s, moment - last, f"{_span(moment - last)} before"))
        else:
            out.append(Nearby(s, first - moment, f"{_span(first - moment)} after"))
    out = [n for n in out if n.distance <= window]
    out.sort(key=lambda n: (n.distance, n.session.first_timestamp or moment, n.session.id))
    return out


class NearbySessions(LineList):
    """One line per session: its start, when it was relative to the moment, agent and title."""

    CACHE_SIZE = 0  # a few rows, rendered when painted
    REVEAL_UNMOVED = True

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "select", "Open", id="nearby-sessions.open"),
        *CURSOR_KEYS, *END_KEYS,
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {f"nearby-sessions--{name}" for name in (
        "when", "during", "muted", "cursor", "hover", "empty"
    )}

    DEFAULT_CSS = """
    NearbySessions {
        height: auto;
        max-height: 9;
        overflow-x: hidden;
        overflow-y: auto;
        scrollbar-size-vertical: 1;
        & > .nearby-sessions--when { color: $text-secondary; }
        & > .nearby-sessions--during { color: $text-success; text-style: bold; }
        & > .nearby-sessions--muted { color: $foreground-muted; }
        & > .nearby-sessions--cursor {
            color: $block-cursor-blurred-foreground;
            background: $block-cursor-blurred-background;
            text-style: $block-cursor-blurred-text-style;
        }
        &:focus > .nearby-sessions--cursor {
            color: $block-cursor-foreground;
            background: $block-cursor-background;
            text-style: $block-cursor-text-style;
        }
        & > .nearby-sessions--hover { background: $block-hover-background; }
        & > .nearby-sessions--empty { color: $foreground-muted; text-style: italic; }
    }
    """

    @dataclass
    class SessionSelected(ListMessage):
        """A session was opened (enter, double-click, or a click on the highlighted one)."""

        session: Session

    def __init__(
        self,
        *,
        now: datetime | Callable[[], datetime] | None = None,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        """`now` fixes the clock the times are shown in (its time zone)."""
        super().__init__(name=name, id=id, classes=classes)
        self._clock: Callable[[], datetime] = clock_of(now)
        self._rows: list[Nearby] = []
        self._message = ""

    # -- public API ---------------------------------------------------------------------------
    def set_sessions(self, rows: list[Nearby], empty: str = "No sessions around this time") -> None:
        """Show these sessions (in the order given); `empty` is shown when there are none."""
        self._rows = list(rows)
        self._message = empty
        self._cursor = 0
        self._reset(max(1, len(self._rows)))
        self.scroll_to(y=0, animate=False)
        self.refresh(layout=True)  # height: auto follows the number of rows

    @property
    def rows(self) -> list[Nearby]:
        return list(self._rows)

    @property
    def sessions(self) -> list[Session]:
        return [r.session for r in self._rows]

    @property
    def highlighted_session(self) -> Session | None:
        return self._rows[self._cursor].session if self._rows else None

    def get_content_height(self, container: Size, viewport: Size, width: int) -> int:
        return max(1, len(self._rows))

    # -- cursor and rendering ------------------------------------------------------------------
    def _item_count(self) -> int:
        return len(self._rows)

    def _selected(self, index: int) -> None:
        self.post_message(self.SessionSelected(self, self._rows[index].session))

    def _render_empty(self, line: int, width: int) -> Strip:
        # (Styled as a span: `Text.render` drops the base style of a Text without spans.)
        text = Text(" ", no_wrap=True, end="")
        if line == 0:
            text.append(one_line(self._message), self._style("nearby-sessions--empty"))
        return self._strip(text, width)

    def _render_line(self, line: int, width: int, cursor: bool, hover: bool) -> Strip:
        return self._strip(self._row(self._rows[line], cursor), width,
                           self._row_style(cursor, hover, "nearby-sessions"))

    def _row(self, row: Nearby, cursor: bool) -> Text:
        s = row.session
        muted = Style() if cursor else self._style("nearby-sessions--muted")
        when = Style() if cursor else self._style(
            "nearby-sessions--during" if row.relation == "during" else "nearby-sessions--when")
        text = Text(" ", no_wrap=True, end="")
        text.append_text(fit(short_time(s.first_timestamp or s.last_timestamp, self._clock()), _TIME, False, muted))
        text.append(" " * _GAP)
        text.append_text(fit(row.relation, _WHEN, True, when))
        text.append(" " * _GAP)
        text.append_text(fit(one_line(s.agent), _AGENT, False, muted))
        text.append(" " * _GAP)
        text.append(one_line(s.title or "(untitled)"))
        return text
