"""The rows behind the session list: sort, filter, nest child runs, count. Plain Python, no UI.

Kept apart from the widget so that what is shown (and in which order) can be reasoned about and
tested without a terminal, and so the widget module is only keys and pixels.
"""
from __future__ import annotations

from datetime import datetime
from typing import Callable, NamedTuple

from sessionscope.core.format import child_runs, count, project_name
from sessionscope.core.catalog.library import is_child, recency
from sessionscope.core.model import Session

SORTS: tuple[str, ...] = ("active", "entries", "tokens", "title", "project")
_DESCENDING_FIRST = frozenset({"active", "entries", "tokens"})  # biggest/newest first by default


class Row(NamedTuple):
    """One visible row: a session at a nesting depth (0 = top level)."""

    session: Session
    depth: int = 0
    last: bool = True  # the last child of its parent (draws └ instead of ├)


def _sort_key(sort: str) -> Callable[[Session], object]:
    if sort == "entries":
        return lambda s: s.entry_count
    if sort == "tokens":
        return lambda s: s.usage.total
    if sort == "title":
        return lambda s: (not s.title, (s.title or "").casefold())  # untitled last
    if sort == "project":
        return lambda s: (not s.project, project_name(s.project).casefold())
    return recency


class SessionRows:
    """All sessions, the view's settings (sort, filters, nesting), and the rows they give."""

    def __init__(self) -> None:
        self.roots: list[Session] = []  # top-level sessions (not children of anything)
        self.orphans: list[Session] = []  # child runs whose parent is not in the list
        self.children: dict[str, list[Session]] = {}
        self.agents: list[str] = []
        self.sort = "active"
        self.reversed = False
        self.agent_filter: str | None = None
        self.project_filter: str | None = None
        self.text_filter = ""
        self.show_children = False
        self.rows: list[Row] = []
        self.summary = ("", "")  # the counts line: in full, and cut to the session count
        self.complete = True  # False while only the newest sessions are known
        #: (files read, files in all) while the list holds sessions the quick listing made
        #: (core.library.ListedSession): the scan is reading the files, counts follow
        self.reading: tuple[int, int] | None = None
        self._counts: tuple[int, int, int, int, dict[str, int]] = (0, 0, 0, 0, {})
        self._ordered: list[Session] | None = None  # roots (+ orphans) in the current order
        self._sessions: list[Session] = []
        self._hay: dict[str, str] | None = None  # built by the first text filter

    def set_sessions(self, sessions: list[Session], complete: bool = True,
                     reading: tuple[int, int] | None = None) -> None:
        """All sessions; `complete=False`: the newest so far, the rest still being read;
        `reading`: (files read, files in all) while some are still the quick listing's."""
        self.complete, self.reading = complete, reading
        by_id = {s.id: s for s in sessions}
        self._sessions, self._hay = sessions, None
        self.children = {}
        self.roots, self.orphans = [], []
        for s in sessions:
            if not is_child(s):
                self.roots.append(s)
            elif s.parent_id is not None and s.parent_id in by_id and s.parent_id != s.id:
                self.children.setdefault(s.parent_id, []).append(s)
            else:
                self.orphans.append(s)
        for kids in self.children.values():
            kids.sort(key=lambda s: s.first_timestamp or recency(s))  # in the order they ran
        self.agents = sorted({s.agent for s in sessions})
        if self.agent_filter not in self.agents:
            self.agent_filter = None
        self._ordered = None
        self.rebuild()

    # -- settings ---------------------------------------------------------------------------------
    @property
    def descending(self) -> bool:
        return (self.sort in _DESCENDING_FIRST) != self.reversed

    @property
    def filtered(self) -> bool:
        return bool(self.agent_filter or self.project_filter or self.text_filter)

    def set_sort(self, sort: str, reverse: bool = False) -> None:
        if sort not in SORTS:
            raise ValueError(f"unknown sort {sort!r} (one of {', '.join(SORTS)})")
        self.sort, self.reversed = sort, reverse
        self._ordered = None
        self.rebuild()

    def projects(self) -> list[str]:
        """Projects present under the agent filter, the most recently active first."""
        latest: dict[str, datetime] = {}
        for s in self.roots:
            if s.project and (self.agent_filter is None or s.agent == self.agent_filter):
                r = recency(s)
                if s.project not in latest or r > latest[s.project]:
                    latest[s.project] = r
        return sorted(latest, key=lambda p: latest[p], reverse=True)

    def cycle_agent(self, step: int) -> None:
        options: list[str | None] = [None, *self.agents]
        self.agent_filter = options[(options.index(self.agent_filter) + step) % len(options)]
        if self.project_filter and self.project_filter not in self.projects():
            self.project_filter = None
        self.rebuild()

    def cycle_project(self, step: int) -> None:
        options: list[str | None] = [None, *self.projects()]
        current = self.project_filter if self.project_filter in options else None
        self.project_filter = options[(options.index(current) + step) % len(options)]
        self.rebuild()

    def clear_filters(self) -> None:
        self.agent_filter = self.project_filter = None
        self.text_filter = ""
        self.rebuild()

    # -- rows -------------------------------------------------------------------------------------
    def ordered(self) -> list[Session]:
        """Top-level candidates in the current sort order, cached until the sort or the data
        change: filtering while typing then costs one pass, not a sort."""
        if self._ordered is None:
            pool = self.roots + self.orphans
            pool.sort(key=recency, reverse=True)  # ties of any key: most recent first (stable sorts)
            if self.sort != "active" or not self.descending:
                pool.sort(key=_sort_key(self.sort), reverse=self.descending)
            self._ordered = pool
        return self._ordered

    def matches(self, s: Session, words: list[str]) -> bool:
        if self.agent_filter is not None and s.agent != self.agent_filter:
            return False
        if self.project_filter is not None and s.project != self.project_filter:
            return False
        if words:
            hay = self._haystack().get(s.id, "")
            return all(w in hay for w in words)
        return True

    def _haystack(self) -> dict[str, str]:
        """What the text filter looks in, folded once (typing re-filters on every key), and
        only once a filter is typed: for 20k sessions it is ~20 ms and ~6 MB."""
        if self._hay is None:
            self._hay = {s.id: f"{s.title or ''} {s.project or ''}".casefold() for s in self._sessions}
        return self._hay

    def rebuild(self) -> None:
        """Filter, nest and count."""
        words = self.text_filter.casefold().split()
        rows: list[Row] = []
        shown = 0
        child_kinds: dict[str, int] = {}  # child runs under the shown sessions, by kind
        agents: set[str] = set()
        projects: set[str] = set()
        orphan_ids = {s.id for s in self.orphans}
        for s in self.ordered():
            kids = self.children.get(s.id, [])
            orphan = s.id in orphan_ids
            if not self.matches(s, words):
                # A parent whose child run matches the text is shown (with its children).
                if not (self.show_children and words and not orphan and kids
                        and self.matches(s, []) and any(self.matches(k, words) for k in kids)):
                    continue
            for k in ([s] if orphan else kids):
                child_kinds[k.kind.value] = child_kinds.get(k.kind.value, 0) + 1
            if orphan and not self.show_children:
                continue
            shown += not orphan
            rows.append(Row(s, 0))
            agents.add(s.agent)
            if s.project:
                projects.add(s.project)
            if self.show_children:
                rows.extend(Row(k, 1, i == len(kids) - 1) for i, k in enumerate(kids))
        self.rows = rows
        self._counts = (shown, len(self.roots), len(agents), len(projects), child_kinds)
        self.summary = self._summarize(*self._counts)

    def set_reading(self, done: int, total: int) -> None:
        """The scan's progress while listed sessions are shown (the rows stay as they are)."""
        if self.reading is not None:
            self.reading = (done, total)
            self.summary = self._summarize(*self._counts)

    @property
    def empty(self) -> str:
        """What an empty list says: why it is empty, or that it is not known yet."""
        if self.filtered:
            return "No session matches the filters · esc clears them"
        if self.reading is not None:
            done, total = self.reading
            return f"Reading {done:,} of {count(total, 'file')}…"
        return "No sessions" if self.complete else "Loading sessions…"

    def _summarize(self, shown: int, total: int, agents: int, projects: int,
                   child_kinds: dict[str, int]) -> tuple[str, str]:
        head = f"{shown:,} of {count(total, 'session')}" if self.filtered else count(shown, "session")
        if self.reading is not None:  # the listed rows have no entry counts or tokens yet
            done, files = self.reading
            return (f" {head} · reading {done:,} of {count(files, 'file')} · entries and tokens follow",
                    f" reading {done:,}/{files:,} files…")
        if not self.complete:  # the counts would be of the newest few hundred
            return " loading sessions…", " loading…"
        parts = [head, count(agents, "agent"), count(projects, "project")]
        if child_kinds:  # "hidden: 456 subagent runs, 3 compactions"
            parts.append(("shown: " if self.show_children else "hidden: ") + child_runs(child_kinds))
        return " " + " · ".join(parts), " " + head
