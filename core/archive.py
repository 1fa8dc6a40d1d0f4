"""Keeping history: `sessionscope archive` copies the agents' session files into an archive folder.

Why: Claude Code deletes sessions older than `cleanupPeriodDays` (30 by default); other agents
prune or move theirs. The archive keeps every session file sessionscope reads, laid out as each
agent lays it out (core/read/discovery.py `mirror_path`: `home/.claude/projects/...` in the
archive for `~/.claude/projects/...`), so the adapters read a mirror as another root, unchanged
(`archive_roots`: the CLI, the app and the index add them; a mirror's file is read only once the
file it copies is gone, `roots_files`, and a live copy of a session wins over an archived one).

How a file is kept, cheapest first:

- a hard link when the archive is on the file's file system: no byte written, and an unchanged
  file is recognised by its inode (the link *is* the file; an append shows in both);
- else a compressed copy (gzip, stdlib) of a line transcript (`.jsonl`), under the transcript's own
  name (the readers know gzip by its first bytes, core/read/jsonl.py), or a plain copy of
  anything else (the small JSON documents and markers the adapters open whole); `state.sqlite`
  remembers what each copy was made from (inode, size, mtime), so an unchanged file costs a stat.

Never a second copy of the same content: an unchanged file is skipped; one the agent grew, or
rewrote (a new inode), replaces its archived copy. Every file is written under a temporary name in
the archive's `.tmp/` and renamed into place, so a kill or a full disk never leaves a half file
under a real name; the next run clears `.tmp/` and does what is left. The state of the copies is
committed only after the archive's file system is synced (`syncfs`, once per STATE_BATCH copies,
not an fsync per file: that was 14 ms a file, 90% of a first run): after a power loss, a copy
not yet synced has no state and is made again. Nothing is ever written outside the archive
folder, which may not be inside a root (an agent's folder).

May import: core's foundation modules and core.read (beside catalog/ and memory/).
"""
from __future__ import annotations

import errno
import fcntl
import json
import os
import shutil
import sqlite3
import time
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator

from .read.discovery import ARCHIVE, ARCHIVE_MANIFEST, Root, mirror_path
from .read.walk import WalkReport, walk_files

#: files of a root that are archived: what the adapters read, and what they read beside a session
#: (a subagent's `.meta.json`, Gemini's `.project_root`, Claude Code's `tool-results/`)
SUFFIXES = (".jsonl", ".jsonl.zst", ".json", ".project_root", ".chat.history.md", ".input.history")
#: line transcripts: compressed when they cannot be linked (the readers decompress them)
COMPRESSED = (".jsonl",)
STATE = "state.sqlite"
TMP = ".tmp"
LOCK = ".lock"
#: errors of a link that say "not here" (another file system, links not supported or too many)
NO_LINK = frozenset({errno.EXDEV, errno.EPERM, errno.EMLINK, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EACCES})
NO_SPACE = frozenset({errno.ENOSPC, errno.EDQUOT})
#: copies whose state is committed at once (after one sync of the archive's file system)
STATE_BATCH = 200
_CHUNK = 1 << 20


class ArchiveError(Exception):
    """The archive cannot be written (full disk, a folder in the way, inside a root): one line."""


@dataclass
class ArchiveReport:
    folder: str
    new: int = 0  # files archived for the first time
    updated: int = 0  # grown or rewritten since their last archiving: their copy replaced
    unchanged: int = 0
    bytes: int = 0  # content archived this run (the files' sizes; a link writes none of it)
    bytes_written: int = 0  # bytes written to disk (compressed and plain copies)
    linked: int = 0
    compressed: int = 0
    copied: int = 0
    roots: list[str] = field(default_factory=list)  # the roots archived
    skipped: list[str] = field(default_factory=list)  # roots left out, and why
    errors: list[str] = field(default_factory=list)  # files or folders that could not be read
    seconds: float = 0.0

    def to_dict(self) -> dict[str, object]:
        return {k: getattr(self, k) for k in (
            "folder", "new", "updated", "unchanged", "bytes", "bytes_written", "linked", "compressed",
            "copied", "roots", "skipped", "errors")} | {"seconds": round(self.seconds, 3)}


def archivable(roots: Iterable[Root], folder: str) -> tuple[list[Root], list[str]]:
    """The roots whose files are archived, and why each other one is not: the archive's own
    mirrors, the demo's, a database file (OpenCode's `opencode.db`: its sessions are rows), a
    missing root. A root inside the archive folder, or the archive inside a root, is an error:
    the archive must never be written into an agent's folder."""
    folder = os.path.realpath(folder)
    keep: list[Root] = []
    skipped: list[str] = []
    for r in roots:
        if r.origin in (ARCHIVE, "demo"):
            continue
        if r.error is not None:
            continue  # (missing default roots: nothing to keep)
        real = os.path.realpath(r.path)
        if folder == real or folder.startswith(real.rstrip(os.sep) + os.sep):
            raise ArchiveError(f"the archive folder {folder} is inside the root {r.path}: "
                               "sessionscope never writes into an agent's folder; choose another --to")
        if real.startswith(folder + os.sep):
            skipped.append(f"{r.path}: inside the archive folder")
            continue
        if os.path.isfile(r.path):
            skipped.append(f"{r.path}: a database file (its sessions are rows), not archived")
            continue
        keep.append(r)
    return keep, skipped


def run_archive(roots: Iterable[Root], folder: str | os.PathLike[str], *, link: bool = True,
                home: str | None = None, progress: Callable[[ArchiveReport], None] | None = None) -> ArchiveReport:
    """Archive the files of `roots` into `folder` (see the module's docstring); `link=False`
    never hard-links (compressed or plain copies only). ArchiveError when the archive cannot be
    written (the report so far is lost, the archive is consistent: the next run goes on)."""
    started = time.perf_counter()
    folder = os.path.abspath(os.fspath(folder))
    todo, skipped = archivable(roots, folder)
    report = ArchiveReport(folder, skipped=skipped)
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
    except OSError as exc:
        raise ArchiveError(_why(folder, exc)) from None
    with _Archive(folder, link, home) as arc:
        arc.manifest(todo)
        for root in todo:
            report.roots.append(root.path)
            arc.root(root, report, progress)
    report.seconds = time.perf_counter() - started
    return report


def _why(where: str, exc: OSError) -> str:
    if exc.errno in NO_SPACE:
        return (f"no space left on the device of {where}: archiving stopped (what was archived is "
                "kept); free some space and run `sessionscope archive` again")
    return f"the archive cannot be written at {where} ({exc.strerror or exc})"


class _Archive:
    """One run over an archive folder: its lock, its temp folder, its state of copies."""

    def __init__(self, folder: str, link: bool, home: str | None) -> None:
        self.folder = folder
        self.link = link
        self.home = home
        self.tmp = os.path.join(folder, TMP)
        self.no_link_devs: set[int] = set()  # source devices a link to the archive failed from
        self._lock_fd = -1
        self._db: sqlite3.Connection | None = None
        self._state: dict[str, tuple[int, int, int]] = {}
        self._pending = 0

    def __enter__(self) -> _Archive:
        try:
            self._lock_fd = os.open(os.path.join(self.folder, LOCK), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except OSError as exc:
            raise ArchiveError(_why(self.folder, exc)) from None
        try:
            fcntl.flock(self._lock_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(self._lock_fd)
            raise ArchiveError(f"another `sessionscope archive` is writing {self.folder}; try again "
                               "when it is done") from None
        try:
            shutil.rmtree(self.tmp, ignore_errors=True)  # what a killed run left: never real files
            os.makedirs(self.tmp, mode=0o700, exist_ok=True)
            self._db = sqlite3.connect(os.path.join(self.folder, STATE), isolation_level=None)
            self._db.execute("CREATE TABLE IF NOT EXISTS copies (path TEXT PRIMARY KEY, ino INTEGER, "
                             "size INTEGER, mtime_ns INTEGER)")
            self._state = {p: (i, s, m) for p, i, s, m in self._db.execute("SELECT path, ino, size, mtime_ns FROM copies")}
            self._db.execute("BEGIN")
        except (OSError, sqlite3.Error) as exc:
            self.__exit__()
            raise ArchiveError(_db_why(self.folder, exc)) from None
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            if self._db is not None:
                try:
                    if self._db.in_transaction:
                        self.commit()
                except (sqlite3.Error, OSError) as e:
                    if not exc or exc[0] is None:
                        raise ArchiveError(_db_why(self.folder, e)) from None
                finally:
                    self._db.close()
                    self._db = None
            shutil.rmtree(self.tmp, ignore_errors=True)
        finally:
            if self._lock_fd >= 0:
                os.close(self._lock_fd)  # (releases the lock)
                self._lock_fd = -1

    # -- the manifest of mirrored roots ----------------------------------------------------
    def manifest(self, roots: list[Root]) -> None:
        """The archive's list of mirrors (core/read/discovery.py `archive_roots`), with this run's
        roots added; written before any file, atomically."""
        path = os.path.join(self.folder, ARCHIVE_MANIFEST)
        try:
            with open(path, "rb") as fh:
                old = [m for m in json.loads(fh.read()).get("roots", []) if isinstance(m, dict)]
        except (OSError, ValueError, AttributeError):
            old = []
        mirrors = {m.get("mirror"): m for m in old}
        for r in roots:
            rel = os.path.relpath(mirror_path(self.folder, r.path, self.home), self.folder)
            mirrors[rel] = {"mirror": rel, "source": r.path, "origin": r.origin, "shallow": r.shallow}
        data = {"format": "sessionscope-archive", "version": 1, "roots": list(mirrors.values())}
        if old == data["roots"]:
            return
        body = json.dumps(data, indent=1).encode()
        self._write_atomically(path, lambda fh: fh.write(body))

    # -- one root --------------------------------------------------------------------------
    def root(self, root: Root, report: ArchiveReport, progress: Callable[[ArchiveReport], None] | None) -> None:
        # (each file's place by its root's, not `mirror_path` per file: a no-change run is stats)
        top = root.path.rstrip(os.sep)
        mirror = mirror_path(self.folder, top, self.home)
        for src, st in self._files(root, report):
            try:
                self.file(src, st, report, mirror + src[len(top):] if src.startswith(top + os.sep) else None)
            except OSError as exc:
                if exc.errno in NO_SPACE:
                    raise ArchiveError(_why(self.folder, exc)) from None
                if exc.filename and os.fspath(exc.filename).startswith(self.folder):
                    raise ArchiveError(_why(os.fspath(exc.filename), exc)) from None
                report.errors.append(f"{src}: {exc.strerror or exc}")
            if progress is not None:
                progress(report)

    def _files(self, root: Root, report: ArchiveReport) -> Iterator[tuple[str, os.stat_result]]:
        """The files of a root to archive, each with its stat: a project folder's (Aider's)
        history files directly in it; else every file the adapters read under it (and for
        OpenCode's `storage/session`, the `message/` and `part/` folders they read beside it)."""
        if root.shallow:
            try:
                with os.scandir(root.path) as it:
                    paths: Iterable[str] = sorted(e.path for e in it if e.name.startswith(".aider.")
                                                  and e.name.endswith(SUFFIXES) and e.is_file())
            except OSError as exc:
                report.errors.append(f"{root.path}: {exc.strerror or exc}")
                return
            folders: list[str] = []
        else:
            paths = ()
            folders = [root.path]
            parent = os.path.dirname(root.path.rstrip(os.sep))
            if root.origin == "opencode" and os.path.basename(root.path.rstrip(os.sep)) == "session":
                folders += [os.path.join(parent, "message"), os.path.join(parent, "part")]
        walk = WalkReport()
        for path in [*paths, *(p for f in folders if os.path.isdir(f)
                               for p in walk_files(f, ("",), walk, max_dirs=root.max_folders))]:
            if not (path.endswith(SUFFIXES) or f"{os.sep}tool-results{os.sep}" in path):
                continue
            try:
                st = os.stat(path)
            except FileNotFoundError:
                continue  # (gone since the walk)
            except OSError as exc:
                report.errors.append(f"{path}: {exc.strerror or exc}")
                continue
            yield path, st
        report.errors += walk.errors()

    # -- one file --------------------------------------------------------------------------
    def file(self, src: str, st: os.stat_result, report: ArchiveReport, dst: str | None = None) -> None:
        dst = dst or mirror_path(self.folder, src, self.home)
        rel = dst[len(self.folder) + 1:]
        try:
            have = os.lstat(dst)
        except FileNotFoundError:
            have = None
        if have is not None:
            if (have.st_dev, have.st_ino) == (st.st_dev, st.st_ino):
                report.unchanged += 1  # a hard link: the same file, whatever it holds now
                return
            if self._state.get(rel) == (st.st_ino, st.st_size, st.st_mtime_ns):
                report.unchanged += 1
                return
        os.makedirs(os.path.dirname(dst), mode=0o700, exist_ok=True)
        how = self._keep(src, st, dst, rel)
        if have is None:
            report.new += 1
        else:
            report.updated += 1
        report.bytes += st.st_size
        if how == "link":
            report.linked += 1
        else:
            report.bytes_written += os.stat(dst).st_size
            if how == "gzip":
                report.compressed += 1
            else:
                report.copied += 1

    def _keep(self, src: str, st: os.stat_result, dst: str, rel: str) -> str:
        """Put `src` at `dst` (a link, a compressed copy or a copy), atomically; which it was."""
        if self.link and st.st_dev not in self.no_link_devs:
            tmp = self._tmp_name()
            try:
                os.link(src, tmp)
            except OSError as exc:
                if exc.errno not in NO_LINK:
                    raise
                self.no_link_devs.add(st.st_dev)
            else:
                os.replace(tmp, dst)
                self._forget(rel)
                return "link"
        gz = src.endswith(COMPRESSED)
        size = self._write_atomically(dst, lambda out: _copy(src, out, gz), mtime_ns=st.st_mtime_ns)
        # What the copy was made from: the size actually read (a file growing meanwhile is
        # archived again next time), the inode (a rewrite is a new one).
        self._remember(rel, (st.st_ino, size if size is not None else st.st_size, st.st_mtime_ns))
        return "gzip" if gz else "copy"

    def _tmp_name(self) -> str:
        return os.path.join(self.tmp, f"{os.getpid()}-{time.monotonic_ns()}")

    def _write_atomically(self, dst: str, write: Callable[..., object], mtime_ns: int | None = None) -> object:
        """`write(fh)` into a temp file, fsync, rename to `dst`: whole or not at all."""
        tmp = self._tmp_name()
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        try:
            with os.fdopen(fd, "wb") as fh:
                result = write(fh)
            if mtime_ns is not None:
                os.utime(tmp, ns=(mtime_ns, mtime_ns))
            os.replace(tmp, dst)
        except BaseException:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            raise
        return result

    def _remember(self, rel: str, made_from: tuple[int, int, int]) -> None:
        self._state[rel] = made_from
        self._exec("INSERT OR REPLACE INTO copies VALUES (?, ?, ?, ?)", (rel, *made_from))

    def _forget(self, rel: str) -> None:
        if self._state.pop(rel, None) is not None:
            self._exec("DELETE FROM copies WHERE path = ?", (rel,))

    def _exec(self, sql: str, args: tuple[object, ...]) -> None:
        assert self._db is not None
        try:
            self._db.execute(sql, args)
            self._pending += 1
            if self._pending >= STATE_BATCH:  # a killed run loses at most these (copied again next run)
                self.commit()
                self._db.execute("BEGIN")
        except sqlite3.Error as exc:
            raise ArchiveError(_db_why(self.folder, exc)) from None

    def commit(self) -> None:
        """The copies made so far on disk (one sync of the archive's file system), then their
        state: a state never names a copy a power loss could have left unwritten."""
        assert self._db is not None
        if self._pending:
            _sync(self.tmp)
        self._db.execute("COMMIT")
        self._pending = 0


def _copy(src: str, out: object, gz: bool) -> int:
    """Copy `src` into the open file `out` (gzip-compressed when `gz`); the bytes read."""
    import gzip

    read = 0
    with open(src, "rb") as fh:
        sink = gzip.GzipFile(fileobj=out, mode="wb", compresslevel=3, mtime=0) if gz else out  # type: ignore[arg-type]
        try:
            while chunk := fh.read(_CHUNK):
                sink.write(chunk)  # type: ignore[attr-defined]
                read += len(chunk)
        finally:
            if gz:
                sink.close()  # type: ignore[attr-defined]
    return read


def _sync(folder: str) -> None:
    """Flush the file system `folder` is on (Linux `syncfs`; else everything, `os.sync`)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        fd = os.open(folder, os.O_RDONLY | os.O_CLOEXEC)
        try:
            if libc.syncfs(fd) == 0:
                return
        finally:
            os.close(fd)
    except (OSError, AttributeError):
        pass
    os.sync()


def _db_why(folder: str, exc: BaseException) -> str:
    text = str(exc)
    if isinstance(exc, OSError) and exc.errno in NO_SPACE or "full" in text:
        return _why(folder, OSError(errno.ENOSPC, "No space left on device"))
    return f"the archive's state ({os.path.join(folder, STATE)}) cannot be used ({text})"

