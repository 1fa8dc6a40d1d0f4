"""What a warm scan needs to know that nothing changed: the last scan's file list and each file's
and folder's stat, packed (in a file of their own beside the catalog, named by the row of `scans`
that holds the rest: `SnapshotFiles`), with every file's sessions' keys
(core/catalog/keys.py) and errors in one blob beside them, by the roots' signature.

Why: a warm `sessions` at 20,000 files walked every folder (generators, a listing per folder or
its stored entries), read 20,000 catalog rows and decoded each row's keys (one JSON parse and a
row object each). When every folder's and every file's stat is as the last scan left them, what
the walk would list and what the rows hold are as they were: one stat per file compared with the
stored ones in one pass (`same_stats`), then one JSON parse of all keys. Anything else (a folder
changed within 2 s of its listing, a link or mount in a folder, an unreadable folder, a root
added, gone or become unreadable, another user or group) leaves no snapshot or fails the
comparison, and the scan walks as before (and stores a new snapshot).

A file's stat is compared on (device, inode, size, mtime, ctime): ctime changes with every write,
chmod, chown, ACL or link count change, so a file whose readability could have changed is looked
at again (the scan then decides, as it always did). A folder's on (device, inode, mtime, ctime):
adding, removing or renaming an entry changes both.
"""
from __future__ import annotations

import os
import time
from array import array
from itertools import chain
from operator import attrgetter
from typing import Any, Callable, Iterable, Iterator, MutableMapping, Sequence

from ..config import CacheError
from ..onuse import compact_json, orjson

#: bump when what is stored changes: an older snapshot is then never used (and replaced), and an
#: older sessionscope (an MCP server still running) never uses a newer one (it finds no row for
#: its signature, and walks).
#: 2: the keys apart (the catalog's `scan_parts`), the listing's head in the data; 3: the ids' heads;
#: 4: the paths and stats in a file of their own (a row of 3 read them as no file), each head
#: entry's file index.
VERSION = 4
FILE_FIELDS = 5  # dev, ino, size, mtime_ns, ctime_ns
FOLDER_FIELDS = 4  # dev, ino, mtime_ns, ctime_ns


class SnapshotFiles:
    """The big part of each warm-scan snapshot (`scans`: its files' and folders' paths and
    stats, ~3.7 MB at 20,000 files), each in a file of this folder named by its token. Why:
    SQLite gave those bytes in 8-10 ms (its overflow pages; 8.7 with 64 KB pages), a file in ~2,
    at every warm `sessions` and `search`. The row in `scans` stays the truth: a file no row
    names is deleted at the next write, and a row whose file is missing, cut short or not its
    own (its token in the header) is no snapshot (the scan walks and keeps a new one). Written
    whole under a temporary name, then renamed: a reader sees the whole file or none."""

    MAGIC = b"sessionscope warm 1\n"
    _HEAD = len(MAGIC) + 16 + 4 * 8  # (the magic, the token, the four parts' lengths)

    def __init__(self, folder: str) -> None:
        self.folder = folder

    @staticmethod
    def named(token: str) -> bool:
        """Whether `token` can name a file here (16 letters or digits, as `os.urandom(8).hex()`):
        a row's token names no other file (a damaged catalog's row, "../x")."""
        return len(token) == 16 and token.isascii() and token.isalnum()

    def read(self, token: str) -> tuple[bytes, bytes, bytes, bytes] | None:
        if not self.named(token):
            return None
        try:
            with open(os.path.join(self.folder, token), "rb") as f:
                head = f.read(self._HEAD)
                if len(head) != self._HEAD or not head.startswith(self.MAGIC) \
                        or head[len(self.MAGIC):len(self.MAGIC) + 16] != token.encode():
                    return None
                sizes = array("q")
                sizes.frombytes(head[-32:])
                if min(sizes) < 0 or self._HEAD + sum(sizes) != os.fstat(f.fileno()).st_size:
                    return None  # (cut short, or not a whole file of this shape)
                parts = tuple(f.read(n) for n in sizes)
                if any(len(p) != n for p, n in zip(parts, sizes)):
                    return None
        except (OSError, ValueError):
            return None
        return parts  # type: ignore[return-value]

    def write(self, token: str, parts: tuple[bytes, bytes, bytes, bytes]) -> None:
        """A CacheError when the file cannot be written (a disk full: no snapshot kept)."""
        if not self.named(token):
            raise ValueError(f"a warm snapshot's token is 16 letters or digits: {token!r}")
        path = os.path.join(self.folder, token)
        part = path + ".part"
        try:
            os.makedirs(self.folder, exist_ok=True)
            with open(part, "wb") as f:
                f.write(self.MAGIC + token.encode() + array("q", [len(p) for p in parts]).tobytes())
                for p in parts:
                    f.write(p)
            os.replace(part, path)
        except OSError as exc:
            try:
                os.unlink(part)
            except OSError:
                pass
            raise CacheError(f"catalog {self.folder} cannot be written ({exc.strerror or exc})") from None

    def keep(self, tokens: set[str], grace: float = 60.0) -> None:
        """Every file but those of `tokens` deleted once older than `grace` seconds (a `.part`
        left by a writer that died too): another process may have written one whose row it has
        not committed yet."""
        try:
            names = os.listdir(self.folder)
        except OSError:
            return
        now = time.time()
        for name in names:
            if name in tokens:
                continue
            path = os.path.join(self.folder, name)
            try:
                if grace and now - os.stat(path).st_mtime < grace:
                    continue
                os.unlink(path)
            except OSError:
                pass


def signature(roots: Iterable[Any], suffixes: Sequence[str]) -> str:
    """What the snapshot was made for: the roots as given (each one's path, origin, whether
    given, its walk limit, shallow, source), the names looked for, and who reads (a file's
    readability follows from its stat and the reader's ids)."""
    ids = (os.geteuid(), sorted({os.getegid(), *os.getgroups()})) if os.name == "posix" else None
    return compact_json([VERSION, ids, sorted(suffixes), [
        [r.path, r.origin, r.explicit, r.max_folders, r.shallow, r.source] for r in roots]])


def pack_paths(paths: Sequence[str]) -> bytes:
    return b"\0".join(os.fsencode(p) for p in paths)


def pack_heads(ids: Iterable[str]) -> bytes | None:
    """Every id's part before a "/", once, sorted, packed (None: one cannot be packed)."""
    heads = sorted({sid.partition("/")[0] for sid in ids})
    if any("\0" in h for h in heads):
        return None
    try:
        return pack_paths(heads)
    except UnicodeError:
        return None


def unpack_paths(blob: bytes) -> list[str]:
    if not blob:
        return []
    return [os.fsdecode(p) for p in blob.split(b"\0")] if not blob.isascii() else blob.decode().split("\0")


def file_stats(stats: Iterable[os.stat_result]) -> bytes:
    out: list[int] = []
    for s in stats:
        out += (s.st_dev, s.st_ino, s.st_size, s.st_mtime_ns, s.st_ctime_ns)
    return array("q", out).tobytes()


def folder_stats(stats: Iterable[tuple[int, int, int, int]]) -> bytes:
    return array("q", [x for s in stats for x in s]).tobytes()


_FILE_STAT = attrgetter("st_dev", "st_ino", "st_size", "st_mtime_ns", "st_ctime_ns")
_FOLDER_STAT = attrgetter("st_dev", "st_ino", "st_mtime_ns", "st_ctime_ns")


#: `same_stats(split=True)` shares the stats with a second process from this many paths on
#: (measured, quiet, whole warm search: 2,000 files 83.7 -> 80.7 ms, 20,000 files 172 -> 141 ms)
SPLIT_FROM = 1000

#: what `same_stats` compares: paths, their stored stats, and which fields (FILE_FIELDS or FOLDER_FIELDS)
Check = tuple[Sequence[str], bytes, int]


def same_stats(checks: Sequence[Check], *, split: bool = False) -> bool:
    """Whether each path's stat now is the stored one (`fields` of it: a file's or a folder's),
    for every check, every path stat'ed in one pass; False at the first that cannot be. (The
    loop runs in C: at 20,000 files a Python loop over the stats was a seventh of the comparison.)

    `split` (a process that runs no other thread and will not: a command): from SPLIT_FROM paths
    on, a forked child compares the second half of all the paths (the checks in their order, the
    one at the middle cut in two) while this process compares the first. Why: a warm command
    over 20,000 files spent ~55 ms here, a third of a warm search, in one core's `stat` calls
    (kernel time, and making each call's stat_result); the machine has more. (The folders' ~1,000
    stats were compared apart, before the files: 4-8 ms more in this process alone.)"""
    if split and sum(len(paths) for paths, _, _ in checks) >= SPLIT_FROM and _may_fork():
        mine, theirs = _halves(checks)
        collect = _forked(lambda: _all_same(theirs))
        if collect is not None:
            ours = _all_same(mine)
            return collect(ours) and ours
    return _all_same(checks)


def _halves(checks: Sequence[Check]) -> tuple[list[Check], list[Check]]:
    """The checks' paths, in order, cut at half their number (the check holding the cut in two)."""
    left = sum(len(paths) for paths, _, _ in checks) // 2
    mine: list[Check] = []
    theirs: list[Check] = []
    for check in checks:
        n = len(check[0])
        cut = min(left, n)
        if cut:
            mine.append(_sliced(check, 0, cut))
        if cut < n:
            theirs.append(_sliced(check, cut, None))
        left -= cut
    return mine, theirs


def _sliced(check: Check, start: int, end: int | None) -> Check:
    """The paths `start` to `end` of a check with their stored stats (`fields` int64s a path);
    `end` None: to the end of both (stored stats that are more than the paths' stay with the
    last slice, whose comparison they fail, as the whole one's)."""
    paths, stored, fields = check
    return paths[start:end], stored[start * fields * 8:None if end is None else end * fields * 8], fields


def _all_same(checks: Iterable[Check]) -> bool:
    return all(_same(paths, stored, _FILE_STAT if fields == FILE_FIELDS else _FOLDER_STAT)
               for paths, stored, fields in checks)


def _same(paths: Sequence[str], stored: bytes, fields_of: Callable[[os.stat_result], tuple[int, ...]]) -> bool:
    # (compared as lists of ints: the stored numbers unpacked at once, the stats' own ints kept;
    # packing the stats into an array converted each number one call at a time, ~a quarter of the
    # comparison's instructions at 20,000 files)
    try:
        return list(chain.from_iterable(map(fields_of, map(os.stat, paths)))) == unpack_stats(stored).tolist()
    except (OSError, ValueError):
        return False


def _may_fork() -> bool:
    """Linux, and this process has one thread (a native one too: a fork copies only the
    caller, and a lock another thread held would stay held in the child)."""
    try:
        return os.name == "posix" and len(os.listdir("/proc/self/task")) == 1
    except OSError:
        return False


def _forked(work: Callable[[], bool]) -> Callable[[bool], bool] | None:
    """`work` run in a forked child; returns the function that takes this process's own answer
    and gives the child's (waiting for it only when ours was True; a child stopped otherwise).
    None when no child could be made (run it here). The child does `work` and nothing else: it
    leaves at once (os._exit), no buffer flushed, no atexit function run, nothing closed."""
    _reap_ended()
    try:
        r, w = os.pipe()
    except OSError:
        return None
    try:
        pid = os.fork()
    except OSError:
        os.close(r)
        os.close(w)
        return None
    if pid == 0:  # the child
        answer = b"0"
        try:
            os.close(r)
            answer = b"1" if work() else b"0"
        finally:
            try:
                os.write(w, answer)
            finally:
                os._exit(0)
    os.close(w)

    def collect(ours: bool) -> bool:
        try:
            if not ours:
                try:
                    os.kill(pid, 9)  # (the answer is no already)
                except OSError:
                    pass
                return False
            return os.read(r, 1) == b"1"  # (nothing read when the child died: not the same)
        finally:
            os.close(r)
            if not _reaped(pid):
                if not _unreaped:
                    import atexit

                    atexit.register(_reap_ended)
                _unreaped.add(pid)

    return collect


#: children that had answered but not ended when last asked: reaped by the next fork or at exit
_unreaped: set[int] = set()


def _reaped(pid: int) -> bool:
    """Whether the child `pid` has ended and is reaped now, never waiting for it. Why: a child
    that has answered still tears its copy of this process down (2-9 ms measured at a warm
    command's size, 26 ms once under a profiler), which this process need not wait for: it is
    reaped by the next `_forked` call or at exit (`atexit`) if it has ended by then, else by init
    once this one ends (a process that forks again keeps at most the last child unreaped)."""
    try:
        return os.waitpid(pid, os.WNOHANG)[0] == pid
    except ChildProcessError:  # (reaped already: SIGCHLD ignored by whoever started us)
        return True


def _reap_ended() -> None:
    for pid in list(_unreaped):
        if _reaped(pid):
            _unreaped.discard(pid)


class Early:
    """A warm scan's stat comparison begun before the command imports the rest (`begin`): the
    snapshot it compares (its token and parts, the paths unpacked) and a forked
    child comparing it meanwhile, chunk by chunk. `Library._warm_report` takes it (`same`) when
    the catalog still names that snapshot for its roots: this process then compares the chunks
    the child has not taken yet, and takes the child's answer for the rest; else it `cancel`s.

    The chunks' numbers are in a pipe both processes read (4 bytes a read: each number goes to
    one of them); a process that finds a stat changed stops, and a child that dies answers no.

    Why: a warm `sessions` at 20,000 files imported the catalog's modules, opened the catalog
    and read the snapshot on one core (~25-35 ms, ~60 where bytecode is compiled) before its
    two processes stat'ed the files (~50 ms each); the child now stats from before those imports
    on, and this process joins it when it gets there."""

    __slots__ = ("token", "parts", "paths", "_chunks", "_taken", "_collect")

    def __init__(self, token: str, parts: tuple[bytes, bytes, bytes, bytes], paths: list[str],
                 chunks: list[Check], taken: int, collect: Callable[[bool], bool]) -> None:
        self.token, self.parts, self.paths = token, parts, paths
        self._chunks, self._taken = chunks, taken
        self._collect: Callable[[bool], bool] | None = collect

    def same(self) -> bool:
        """Whether every file's and folder's stat was the snapshot's (the chunks left compared
        here, then the child's answer waited for)."""
        collect, self._collect = self._collect, None
        if collect is None:
            return False
        try:
            ours = _take_and_compare(self._chunks, self._taken)
        finally:
            os.close(self._taken)
        return collect(ours) and ours

    def cancel(self) -> None:
        collect, self._collect = self._collect, None
        if collect is not None:
            os.close(self._taken)
            collect(False)


#: paths a chunk of `Early`'s comparison holds
EARLY_CHUNK = 256


def _take_and_compare(chunks: list[Check], taken: int) -> bool:
    """Each chunk whose number this process reads from `taken` (till it is empty) compared;
    False at the first that differs."""
    while True:
        try:
            got = os.read(taken, 4)
        except BlockingIOError:
            return True
        if len(got) != 4:
            return True  # (empty: every chunk taken)
        if not _all_same([chunks[int.from_bytes(got, "little")]]):
            return False


def begin(db_path: str, roots: Iterable[Any], suffixes: Sequence[str]) -> Early | None:
    """The stat comparison of the snapshot the catalog at `db_path` holds for these roots,
    begun in a forked child (`Early`); None when there is none to begin (no catalog, no
    snapshot or one held in the catalog's row, its file gone or damaged, few files, a process
    that may not fork). Only reads: the catalog is opened only if it is a file, and closed
    before the fork."""
    if not _may_fork() or not os.path.isfile(db_path):
        return None
    sig = signature(roots, suffixes)
    import sqlite3

    try:
        db = sqlite3.connect(db_path)
        try:
            row = db.execute("SELECT token, length(paths) + length(stats) + length(folders) + length(fstats)"
                             " FROM scans WHERE sig=?", (sig,)).fetchone()
        finally:
            db.close()
    except sqlite3.Error:
        return None
    if row is None or row[1]:
        return None
    token = row[0]
    parts = SnapshotFiles(db_path + ".warm").read(token)
    if parts is None:
        return None
    if len(parts[1]) // (8 * FILE_FIELDS) + len(parts[3]) // (8 * FOLDER_FIELDS) < SPLIT_FROM:
        return None  # (a few stats: fewer than a fork costs; told by the stats' length, unpacked none)
    paths = unpack_paths(parts[0])
    chunks = [_sliced(check, i, i + EARLY_CHUNK if i + EARLY_CHUNK < len(check[0]) else None)
              for check in ((paths, parts[1], FILE_FIELDS), (unpack_paths(parts[2]), parts[3], FOLDER_FIELDS))
              for i in range(0, len(check[0]), EARLY_CHUNK)]
    numbers = b"".join(n.to_bytes(4, "little") for n in range(len(chunks)))
    try:
        taken, put = os.pipe()
    except OSError:
        return None
    try:
        os.set_blocking(taken, False)
        os.set_blocking(put, False)  # (a pipe can hold less than 64 KB: never wait on it)
        if os.write(put, numbers) != len(numbers):
            raise OSError("the chunks' numbers do not fit the pipe")
    except OSError:
        os.close(taken)
        return None
    finally:
        os.close(put)
    collect = _forked(lambda: _take_and_compare(chunks, taken))
    if collect is None:
        os.close(taken)
        return None
    return Early(token, parts, paths, chunks, taken, collect)


def unpack_stats(blob: bytes) -> array[int]:
    a = array("q")
    a.frombytes(blob)
    return a


def roots_key(roots: Iterable[Any]) -> list[list[Any]]:
    """The roots a scan read (those without an error, with the project folders it added)."""
    return [[r.path, r.origin, r.shallow, r.source] for r in roots]


class WarmRows(MutableMapping[str, Any]):
    """The rows of a warm scan by path, in its order, each one's `LightRow` made when first
    asked for (20,000 of them made at once were a fifth of a warm listing); the files' keys
    (`keys()`) read when the first is."""

    def __init__(self, paths: list[str], stats: array[int], errors: dict[int, str],
                 keys: Callable[[], list[list[list[Any]]]]) -> None:
        self._paths, self._stats, self._errors, self._keys = paths, stats, errors, keys
        self._at: dict[str, int] | None = None
        self._found: dict[str, int] = {}  # (paths found by a hint, `stat`)
        self._set: dict[str, Any] = {}  # rows made or replaced
        self._gone: set[str] = set()

    def _index(self) -> dict[str, int]:
        if self._at is None:
            self._at = dict(zip(self._paths, range(len(self._paths))))
        return self._at

    def __getitem__(self, path: str) -> Any:
        row = self._set.get(path)
        if row is not None:
            return row
        if path in self._gone:
            raise KeyError(path)
        from .store import LightRow

        i = self._index()[path]
        s, j = self._stats, i * FILE_FIELDS
        row = self._set[path] = LightRow(path, s[j], s[j + 1], s[j + 2], s[j + 3], self._errors.get(i),
                                         self._keys()[i])
        return row

    def made(self, path: str) -> Any:
        """The row of `path` as made or set, None when it is not (yet): no keys read for it."""
        return self._set.get(path)

    def stat(self, path: str, hint: int | None = None) -> tuple[int, int, int] | None:
        """The (device, inode, mtime_ns) the scan saw of `path`, None when it is not a file of it.
        `hint`: where it may be among the paths (taken when it is: a warm listing asks for 20
        files, and a dict of all 20,000 paths to find them cost it ~3 ms)."""
        if path in self._gone:
            return None
        paths = self._paths
        i: int | None
        if hint is not None and 0 <= hint < len(paths) and paths[hint] == path:
            i = self._found[path] = hint
        else:
            i = self._index().get(path)
        if i is None:
            return None
        j = i * FILE_FIELDS
        if j + FILE_FIELDS > len(self._stats):
            return None  # (a row set since the scan)
        return self._stats[j], self._stats[j + 1], self._stats[j + 3]

    def __setitem__(self, path: str, row: Any) -> None:
        if path not in self._set and path not in self._found and path not in self._index():
            self._paths.append(path)  # (a new one: last, as in a dict)
            self._index()[path] = len(self._paths) - 1
        self._gone.discard(path)
        self._set[path] = row

    def __delitem__(self, path: str) -> None:
        if path not in self:
            raise KeyError(path)
        self._set.pop(path, None)
        self._gone.add(path)

    def __contains__(self, path: object) -> bool:
        return path not in self._gone and (path in self._set or path in self._index())

    def __iter__(self) -> Iterator[str]:
        gone = self._gone
        return (p for p in self._paths if p not in gone) if gone else iter(self._paths)

    def __len__(self) -> int:
        return len(self._paths) - len(self._gone)


class StoredKeys:
    """The files' keys of a warm scan's snapshot (the catalog's `scan_parts`, by its signature and
    token), read when first needed; with how that scan linked them (`Keys.state`). When the
    snapshot was replaced since (another process scanned) or its keys cannot be parsed, each
    file's keys as the catalog holds them then, linked again."""

    def __init__(self, catalog: Any, sig: str, token: str, paths: list[str], archived: tuple[str, ...]) -> None:
        self._catalog, self._sig, self._token, self._paths, self._archived = catalog, sig, token, paths, archived
        self._lists: list[list[list[Any]]] | None = None
        self._state: dict[str, Any] | None = None

    def lists(self) -> list[list[list[Any]]]:
        if self._lists is None:
            self._read()
        assert self._lists is not None
        return self._lists

    def _read(self) -> None:
        blob = self._catalog.warm_part(self._sig, self._token, "keys")
        data = None
        if blob is not None:
            try:
                data = orjson.loads(blob)
            except ValueError:
                data = None
        if isinstance(data, dict) and len(data.get("keys") or ()) == len(self._paths):
            self._lists, self._state = data["keys"], data.get("linked")
            return
        rows = self._catalog.light()
        self._lists = [rows[p].keys if p in rows else [] for p in self._paths]
        self._state = None

    def keys(self) -> Any:
        """The files' keys linked (`Keys`)."""
        from .keys import Keys

        lists = self.lists()
        if self._state is None:
            return Keys(zip(self._paths, lists), self._archived)
        return Keys.restore(self._paths, lists, self._state)

    def heads(self) -> list[str] | None:
        """Every session id's part before a "/", once, sorted, as the scan kept them (None: not
        kept, or the snapshot was replaced since)."""
        blob = self._catalog.warm_part(self._sig, self._token, "heads")
        return None if blob is None else unpack_paths(blob)
