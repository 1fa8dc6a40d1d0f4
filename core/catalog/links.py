"""Linking sessions across files: each child (subagent, compaction, exec run) in its parent's
`child_ids`, and of the copies of one session (Codex's archived_sessions/ beside sessions/) the
largest kept. `_link` does it over every session of a library; `_Links` applies one file's
change in time proportional to that file's sessions (a live append must not relink 20k files).
"""
from __future__ import annotations

from dataclasses import replace
from typing import Iterable

from ..model import Session
from .store import FileRow


def _link(sessions: list[Session], archived: tuple[str, ...] = ()) -> dict[str, Session]:
    """Child ids derived from the children's parent ids (adapters set `parent_id`); a Gemini
    CLI project still named by its hash named by a known session's project that hashes to it.
    Of the copies of one id, a live one before one under the `archived` folders (`sessionscope
    archive`'s mirrors: the live file wins while it exists), then the larger."""
    sessions = _named_projects(sessions, sessions)
    by_id: dict[str, Session] = {}
    for s in sessions:
        prev = by_id.get(s.id)
        # Codex archived_sessions/ may duplicate sessions/: keep the larger (more complete) copy.
        if prev is None or _rank(s, archived) > _rank(prev, archived):
            by_id[s.id] = s
    children: dict[str, list[str]] = {}
    for s in by_id.values():
        if s.parent_id and s.parent_id in by_id:
            children.setdefault(s.parent_id, []).append(s.id)
    for pid, kids in children.items():
        p = by_id[pid]
        merged = tuple(dict.fromkeys([*p.child_ids, *sorted(kids)]))
        by_id[pid] = replace(p, child_ids=merged)
    return by_id


class _Links:
    """What `_link` made of a library's rows, indexed so that one file's change is applied in
    time proportional to its sessions, not to the library.

    `candidates` holds every row's sessions by id, each with the row's place in `rows` (a dict
    keeps insertion order: a new path goes last, a popped one leaves its gap) and its place in the
    row: the winner of an id is the largest copy, the first one on a tie, as in `_link`.
    `kids` holds, per parent id, the ids of the winners that name it as their parent."""

    __slots__ = ("rows", "sessions", "order", "next", "candidates", "kids", "archived")

    def __init__(self, rows: dict[str, FileRow], archived: tuple[str, ...] = ()) -> None:
        self.rows = rows
        self.archived = archived
        self.sessions: dict[str, Session] = {}
        self.order: dict[str, int] = {}  # path -> its place in `rows`
        self.next = 0
        self.candidates: dict[str, list[tuple[int, int, Session]]] = {}
        self.kids: dict[str, set[str]] = {}

    @classmethod
    def build(cls, rows: dict[str, FileRow], archived: tuple[str, ...] = ()) -> _Links:
        links = cls(rows, archived)
        candidates = links.candidates
        for n, (path, row) in enumerate(rows.items()):
            links.order[path] = n
            for i, s in enumerate(row.sessions):
                candidates.setdefault(s.id, []).append((n, i, s))
        links.next = len(rows)
        links.sessions = _link([s for r in rows.values() for s in r.sessions], archived)
        for sid, cands in candidates.items():
            parent = _winner(cands, archived).parent_id
            if parent:
                links.kids.setdefault(parent, set()).add(sid)
        return links

    def apply(self, path: str, old: FileRow | None, new: FileRow | None, count: int) -> bool:
        """Apply one row's change; False (nothing changed) when only a full link keeps `_link`'s
        order (the caller then builds anew): a known row whose ids changed, or a dropped row with
        an id that another row holds too. A new row is last in `rows`, so its new ids go last."""
        was_known = path in self.order
        if was_known != (old is not None) or (new is None and old is None):
            return new is None and old is None and not was_known  # nothing to do, or out of step
        old_ids = [s.id for s in old.sessions] if old is not None else []
        new_ids = [s.id for s in new.sessions] if new is not None else []
        if old is not None and new is not None and old_ids != new_ids:
            return False  # the map's order follows the row's ids: a full link places them
        if new is None:
            place = self.order[path]
            for sid in old_ids:  # a copy elsewhere would now be the first: it moves in the order
                if any(c[0] != place for c in self.candidates[sid]):
                    return False
        touched = dict.fromkeys([*old_ids, *new_ids])
        before = {sid: _winner(self.candidates[sid], self.archived) for sid in touched if sid in self.candidates}
        # the row's copies out, its new ones in
        if was_known:
            place = self.order[path]
            for sid in dict.fromkeys(old_ids):
                cands = [c for c in self.candidates[sid] if c[0] != place]
                if cands:
                    self.candidates[sid] = cands
                else:
                    del self.candidates[sid]
            if new is None:
                del self.order[path]
        else:
            place = self.next
            self.order[path] = place
            self.next += 1
        if new is not None:
            for i, s in enumerate(new.sessions):
                self.candidates.setdefault(s.id, []).append((place, i, s))
        if len(self.order) != count:
            return False
        after = {sid: _winner(self.candidates[sid], self.archived) for sid in touched if sid in self.candidates}
        # parents whose children changed, and the touched ids themselves
        dirty = dict.fromkeys(touched)
        for sid in touched:
            was, now = before.get(sid), after.get(sid)
            p_was = was.parent_id if was is not None else None
            p_now = now.parent_id if now is not None else None
            if p_was != p_now or (was is None) != (now is None):
                if p_was:
                    kids = self.kids.get(p_was)
                    if kids is not None:
                        kids.discard(sid)
                        if not kids:
                            del self.kids[p_was]
                    dirty[p_was] = None
                if p_now:
                    self.kids.setdefault(p_now, set()).add(sid)
                    dirty[p_now] = None
        sessions = self.sessions
        if any((sid in sessions) != (sid in self.candidates) for sid in dirty):
            # Keys come or go: a new map, so a reader iterating the old one in another thread
            # never sees it change size (values of existing keys are replaced in place).
            sessions = dict(sessions)
        for sid in dirty:
            cands = self.candidates.get(sid)
            if cands is None:
                sessions.pop(sid, None)
                continue
            s = _winner(cands, self.archived)
            kids = self.kids.get(sid)
            if kids:
                s = replace(s, child_ids=tuple(dict.fromkeys([*s.child_ids, *sorted(kids)])))
            sessions[sid] = s
        self.sessions = sessions
        return True


def _winner(cands: list[tuple[int, int, Session]], archived: tuple[str, ...] = ()) -> Session:
    """The copy `_link` keeps of an id: a live one before an archived one, the largest, the
    first of equals (rows order)."""
    if len(cands) == 1:
        return cands[0][2]
    best = cands[0]
    for c in cands[1:]:
        rc, rb = _rank(c[2], archived), _rank(best[2], archived)
        if rc > rb or (rc == rb and c[:2] < best[:2]):
            best = c
    return best[2]


def _rank(s: Session, archived: tuple[str, ...]) -> tuple[bool, int]:
    """What makes one copy of a session better than another: being live, then being larger."""
    return (not (archived and s.paths and in_folders(s.paths[0], archived)), s.size)


def in_folders(path: str, folders: tuple[str, ...]) -> bool:
    return any(path.startswith(f.rstrip("/") + "/") for f in folders)


def _named_projects(sessions: list[Session], known: Iterable[Session]) -> list[Session]:
    """Sessions whose project is a Gemini CLI project hash, named by a project of `known` that
    hashes to it (core/read/adapters/gemini.py); the list itself when none is."""
    if not any(s.agent == "gemini-cli" for s in sessions):
        return sessions
    from ..read.adapters.gemini import resolve_hashed

    return resolve_hashed(sessions, {s.project for s in known if s.project})
