"""Sessions by their keys: what listing, linking and looking up need of each session (its id,
kind, parent, recency, ...: the catalog's `keys` column, `store.session_key`), so that a command
that shows 20 sessions of 20,000 decodes 20, not 20,000 (decoding every row was most of a warm
`sessions` call).

`Keys` does over keys what `links._link` and `Library.sessions`/`find` do over sessions, with
the same results in the same order: a test holds the two side by side.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable, Iterator, Sequence, overload

from .links import in_folders

# a key's fields (store.session_key)
ID, AGENT, FORMAT, KIND, PROJECT, PARENT, RECENCY, SIZE, PATH = range(9)

Key = list  # [id, agent, format, kind, project, parent, recency ms | None, size, first path | None]


def key_is_child(k: Key) -> bool:
    """`library.is_child` of a key."""
    return k[KIND] != "main" or k[PARENT] is not None


def _rank(k: Key, archived: tuple[str, ...]) -> tuple[bool, int]:
    """`links._rank` of a key: a live copy before an archived one, then the larger."""
    return (not (archived and k[PATH] and in_folders(k[PATH], archived)), k[SIZE])


class Keys:
    """The linked keys of a library's rows (`rows`: each file's path and its sessions' keys, in
    the order `_link` sees the files): of each id the copy `_link` keeps, where it is (file and
    place), and each parent's linked children."""

    __slots__ = ("by_id", "where", "kids", "_sorted", "named")

    def __init__(self, rows: Iterable[tuple[str, list[Key]]], archived: tuple[str, ...] = ()) -> None:
        by_id: dict[str, Key] = {}
        where: dict[str, tuple[str, int]] = {}
        every: list[Key] = []
        gemini = False
        for path, keys in rows:  # (one pass, no call per key: 20,000 keys on every command)
            every += keys
            for i, k in enumerate(keys):
                if k[PATH] is None:
                    k[PATH] = path
                sid = k[ID]
                prev = by_id.get(sid)
                if prev is None:
                    by_id[sid] = k
                    where[sid] = (path, i)
                elif _rank(k, archived) > _rank(prev, archived):
                    by_id[sid] = k
                    where[sid] = (path, i)
                if not gemini and k[AGENT] == "gemini-cli":
                    gemini = True
        self.named = gemini  # (projects named here: not what the rows' keys say)
        if gemini:  # (a project's name does not change which copy is kept)
            _name_projects(every)
        kids: dict[str, list[str]] = {}
        for sid, k in by_id.items():
            parent = k[PARENT]
            if parent and parent in by_id:
                kids.setdefault(parent, []).append(sid)
        self.by_id, self.where, self.kids = by_id, where, kids
        self._sorted: list[Key] | None = None

    def state(self, at: dict[str, int]) -> dict[str, Any] | None:
        """What `restore` makes these keys again from (with the same rows' keys, `at` giving
        each of their files' index in order): of each kept key its file's index and place, the
        newest-first order, the children. None when projects were named (Gemini): those are
        linked again."""
        if self.named:
            return None
        kept: list[int] = []
        pos: dict[str, int] = {}
        where = self.where
        for n, sid in enumerate(self.by_id):
            path, i = where[sid]
            kept += (at[path], i)
            pos[sid] = n
        return {"kept": kept, "order": [pos[k[ID]] for k in self.newest_first()], "kids": self.kids}

    @classmethod
    def restore(cls, paths: list[str], keys: list[list[Key]], state: dict[str, Any]) -> Keys:
        """The keys `Keys(zip(paths, keys))` made when `state` was taken, without linking
        them again (one pass: ~half the time of linking 20,000 keys)."""
        self = object.__new__(cls)
        by_id: dict[str, Key] = {}
        where: dict[str, tuple[str, int]] = {}
        listed: list[Key] = []
        kept = state["kept"]
        for n in range(0, len(kept), 2):
            fi, i = kept[n], kept[n + 1]
            k = keys[fi][i]
            path = paths[fi]
            if k[PATH] is None:
                k[PATH] = path
            sid = k[ID]
            by_id[sid] = k
            where[sid] = (path, i)
            listed.append(k)
        self.by_id, self.where, self.kids, self.named = by_id, where, state["kids"], False
        self._sorted = [listed[j] for j in state["order"]]
        return self

    def __contains__(self, sid: object) -> bool:
        return sid in self.by_id

    def __len__(self) -> int:
        return len(self.by_id)

    def ids(self) -> Iterator[str]:
        return iter(self.by_id)

    def newest_first(self) -> list[Key]:
        """Every kept key, most recent first (`Library.all_sessions`' order: a stable sort)."""
        if self._sorted is None:
            self._sorted = sorted(self.by_id.values(), key=lambda k: k[RECENCY] or 0, reverse=True)
        return self._sorted

    def children(self, sid: str) -> list[str]:
        """The ids `_link` adds to a session's own child ids, sorted."""
        return sorted(self.kids.get(sid, ()))

    def place(self, sid: str) -> tuple[str, int] | None:
        """The file of the kept copy of a session and its place among the file's sessions."""
        return self.where.get(sid)

    def key(self, sid: str) -> Key | None:
        return self.by_id.get(sid)

    def kind(self, sid: str) -> str | None:
        key = self.by_id.get(sid)
        return None if key is None else key[KIND]

    def short(self, sid: str) -> str | None:
        """A session's id as a table prints it, when known without every id (`WarmKeys`)."""
        return None

    def file_index(self, sid: str) -> int | None:
        """Where a session's file is among the scan's, when known without them all (`WarmKeys`)."""
        return None

    def heads(self) -> list[str] | None:
        """Every id's part before a "/", once, sorted, when kept apart (`WarmKeys`)."""
        return None

    def head(self, count: int, at: dict[str, int]) -> dict[str, Any]:
        """What `WarmKeys` answers the unfiltered listing from without these keys: its first
        keys (`top_level()`'s order) until `count` main sessions are among them (at most 4 x
        `count` keys), each with its file and place, its linked children, its short id and its
        file's index (`at`); how many sessions each listing holds; the orphans with their kinds."""
        from ..format import short_ids

        top, found = self.top_level()
        entries: list[list[Any]] = []
        mains = 0
        for k in top:
            if mains >= count or len(entries) >= 4 * count:
                break
            sid = k[ID]
            mains += sid not in found
            entries.append([k, *self.where[sid], self.children(sid)])
        short = short_ids(self.by_id, only=[e[0][ID] for e in entries])
        for e in entries:
            e += (short[e[0][ID]], at[e[1]])
        return {"top": entries, "mains": len(top) - len(found),
                "orphans": {sid: self.by_id[sid][KIND] for sid in found}}


    def top_level(self, agent: str | None = None, project: str | None = None,
                  orphans: bool = True) -> tuple[list[Key], set[str]]:
        """`core/logs/contract.top_level` over keys: the keys a listing starts from, most
        recent first, and the ids of the children whose parent is not known."""
        agent_l, project_l = (agent or "").lower(), (project or "").lower()
        top: list[Key] = []
        found: set[str] = set()
        by_id = self.by_id
        for k in self.newest_first():
            if agent and agent_l not in (k[AGENT].lower(), k[FORMAT].lower()):
                continue
            if project and project_l not in (k[PROJECT] or "").lower():
                continue
            if not key_is_child(k):
                top.append(k)
            elif k[PARENT] is None or k[PARENT] not in by_id:
                found.add(k[ID])
                if orphans:
                    top.append(k)
        return top, found

    def find(self, prefix: str) -> list[str]:
        """The ids `Library.find` chooses from for an id or prefix (not a file's path): one when
        it names one session (a parent and its own children: the parent), else every match."""
        by_id = self.by_id
        if prefix in by_id:
            return [prefix]
        matches = [sid for sid in by_id if sid.startswith(prefix)]
        if prefix and not matches:
            # (as Library.find: a child as PARENT-PREFIX/CHILD, or by its own part alone)
            head, _slash, tail = prefix.rpartition("/") if "/" in prefix else ("", "", prefix)
            matches = [sid for sid in by_id
                       if (parts := sid.partition("/"))[1] and parts[0].startswith(head) and parts[2].startswith(tail)]
            whole = [sid for sid in matches if sid.partition("/")[2] == tail]
            matches = whole if len(whole) == 1 else matches
        if len(matches) > 1:
            parents = [sid for sid in matches if not key_is_child(by_id[sid])]
            if len(parents) == 1:
                return parents
        return matches


class _Head(Sequence[Key]):
    """A listing of keys of which the first are known (`head`); the rest, and its whole, come
    from `rest()` when asked for."""

    __slots__ = ("_head", "_total", "_rest")

    def __init__(self, head: list[Key], total: int, rest: Callable[[], Sequence[Key]]) -> None:
        self._head, self._total, self._rest = head, total, rest

    def __len__(self) -> int:
        return self._total

    @overload
    def __getitem__(self, i: int) -> Key: ...
    @overload
    def __getitem__(self, i: slice) -> Sequence[Key]: ...
    def __getitem__(self, i: int | slice) -> Key | Sequence[Key]:
        head = self._head
        if isinstance(i, slice):
            start, stop, step = i.indices(self._total)
            if step > 0 and stop <= len(head):
                return head[start:stop:step]
        else:
            at = i + self._total if i < 0 else i
            if 0 <= at < len(head):
                return head[at]
        return self._rest()[i]


class WarmKeys:
    """The keys of a warm scan (core/catalog/warm.py) as `Keys`, restored from the catalog only
    when asked for more than the last scan kept of the unfiltered listing (`Keys.head`): its
    first sessions, their files, children and short ids, and its orphans.

    Why: a warm `sessions --limit 20` over 20,000 files read, parsed and linked 20,000 keys
    (3 MB) to show 20: a fifth of the command, beside its floor (a stat of every file)."""

    __slots__ = ("_head", "_load", "_heads", "_full", "_at")

    def __init__(self, head: dict[str, Any] | None, load: Callable[[], Keys],
                 heads: Callable[[], list[str] | None] = lambda: None) -> None:
        self._head, self._load, self._heads, self._full = head, load, heads, None
        self._at: dict[str, list[Any]] = {e[0][ID]: e for e in head["top"]} if head else {}

    def full(self) -> Keys:
        if self._full is None:
            self._full = self._load()
            self._head, self._at = None, {}
        return self._full

    @property
    def by_id(self) -> dict[str, Key]:
        return self.full().by_id

    @property
    def where(self) -> dict[str, tuple[str, int]]:
        return self.full().where

    @property
    def kids(self) -> dict[str, list[str]]:
        return self.full().kids

    def __contains__(self, sid: object) -> bool:
        return sid in self._at or sid in self.full()

    def __len__(self) -> int:
        return len(self.full())

    def ids(self) -> Iterator[str]:
        return self.full().ids()

    def newest_first(self) -> list[Key]:
        return self.full().newest_first()

    def find(self, prefix: str) -> list[str]:
        return self.full().find(prefix)

    def state(self, at: dict[str, int]) -> dict[str, Any] | None:
        return self.full().state(at)

    def children(self, sid: str) -> list[str]:
        e = self._at.get(sid)
        return list(e[3]) if e is not None else self.full().children(sid)

    def place(self, sid: str) -> tuple[str, int] | None:
        e = self._at.get(sid)
        return (e[1], e[2]) if e is not None else self.full().place(sid)

    def key(self, sid: str) -> Key | None:
        e = self._at.get(sid)
        return e[0] if e is not None else self.full().key(sid)

    def kind(self, sid: str) -> str | None:
        e = self._at.get(sid)
        if e is not None:
            return e[0][KIND]
        if self._head is not None and sid in self._head["orphans"]:
            return self._head["orphans"][sid]
        key = self.full().key(sid)
        return None if key is None else key[KIND]

    def short(self, sid: str) -> str | None:
        e = self._at.get(sid)
        return e[4] if e is not None else None

    def file_index(self, sid: str) -> int | None:
        """Where the file of a session of the listing's head is among the scan's files (None:
        not known without them all)."""
        e = self._at.get(sid)
        return e[5] if e is not None and len(e) > 5 else None  # (a snapshot of before: 5)

    def heads(self) -> list[str] | None:
        """The ids' heads the scan kept (core/catalog/warm.py StoredKeys.heads), while every key
        is not read (then they are the keys' own)."""
        return None if self._full is not None else self._heads()

    def top_level(self, agent: str | None = None, project: str | None = None,
                  orphans: bool = True) -> tuple[Sequence[Key], set[str]]:
        head = self._head
        if head is None or agent or project:
            return self.full().top_level(agent, project, orphans)
        found = set(head["orphans"])
        keys = [e[0] for e in head["top"] if orphans or e[0][ID] not in found]
        total = head["mains"] + (len(found) if orphans else 0)
        return _Head(keys, total, lambda: self.full().top_level(agent, project, orphans)[0]), found


def _name_projects(keys: list[Key]) -> None:
    """`links._named_projects` over keys, in place: a Gemini CLI project still named by its hash
    named by a known project that hashes to it."""
    if not any(k[AGENT] == "gemini-cli" for k in keys):
        return
    from ..read.adapters.gemini import AGENT as GEMINI, _HEX64, path_hash

    todo = [k for k in keys if k[AGENT] == GEMINI and k[PROJECT] and _HEX64.fullmatch(k[PROJECT])]
    if not todo:
        return
    table = {path_hash(p): p for p in {k[PROJECT] for k in keys if k[PROJECT]} if not _HEX64.fullmatch(p)}
    for k in todo:
        if k[PROJECT] in table:
            k[PROJECT] = table[k[PROJECT]]


def keys_of(rows: Iterable[Any]) -> Iterator[tuple[str, list[Key]]]:
    """Each row's path and keys (a LightRow's own, a FileRow's made from its sessions)."""
    from .store import session_key

    for row in rows:
        keys = getattr(row, "keys", None)
        yield row.path, (keys if keys is not None else [session_key(s, row.path) for s in row.sessions])
