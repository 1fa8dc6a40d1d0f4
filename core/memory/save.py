"""Saving a session note: an update merged into the project's note (or a new one), written without
ever costing the previous version. One save at a time per note (a lock file beside it, waited for
up to `LOCK_TIMEOUT`), the new text written to a temp file, synced and renamed over the note, and
the temp files a killed save left behind cleared. Nothing here deletes a note."""
from __future__ import annotations

import copy
import os
import re
import secrets
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable, Iterator

from .markdown import NoteCorrupt
from .notes import (
    CONDENSED_BYTES,
    Decision,
    NoteError,
    SCHEMA_VERSION,
    STATUSES,
    SessionNote,
    _version_key,
    check_project_name,
    normalize_stamp,
    note_filename,
    read_note,
)


#: seconds a save waits for another save of the same note (config key `memory_lock_timeout`)
LOCK_TIMEOUT = 5.0
_LOCK_POLL = 0.05


# -- saving ----------------------------------------------------------------------------------------------
@dataclass
class NoteUpdate:
    """Fields to set on a note. None / empty means "not given": the note keeps what it had.
    Lists add to what the note holds (no duplicates); a decision replaces that checkpoint's."""

    mode: str | None = None
    status: str | None = None
    last_checkpoint: str | None = None
    target_dir: str | None = None
    summary: str | None = None
    active_state: str | None = None
    approve: list[str] = field(default_factory=list)
    decisions: dict[str, Decision] = field(default_factory=dict)
    steps: list[str] = field(default_factory=list)
    key_decisions: list[str] = field(default_factory=list)

    def apply(self, note: SessionNote) -> None:
        if self.status is not None:
            note.status = check_status(self.status)
        for key in ("mode", "last_checkpoint", "target_dir", "summary", "active_state"):
            value = getattr(self, key)
            if value is not None:
                setattr(note, key, value.strip())
        note.checkpoints_approved = _union(note.checkpoints_approved, self.approve)
        note.steps = _union(note.steps, self.steps)
        note.key_decisions = _union(note.key_decisions, self.key_decisions)
        for cp, d in self.decisions.items():
            old = note.checkpoint_decisions.get(cp)
            if old is not None and d.regenerated_count == 0:
                d = Decision(d.option, d.note, old.regenerated_count)
            note.checkpoint_decisions[cp] = d


def _union(old: Iterable[str], new: Iterable[str]) -> list[str]:
    return list(dict.fromkeys([*old, *(n.strip() for n in new if n.strip())]))


def check_status(value: str) -> str:
    v = value.strip()
    if v not in STATUSES:
        raise NoteError(f"status must be one of {', '.join(STATUSES)}; got {value!r}")
    return v


@dataclass
class SaveResult:
    path: str
    created: bool
    migrated_from: str | None  # "1.0" when an older note was migrated by this save
    note: SessionNote
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "created": self.created,
            "schema_version": SCHEMA_VERSION,
            "migrated_from": self.migrated_from,
            "note": self.note.to_dict(),
            "warnings": list(self.warnings),
        }


def save_note(
    memory_dir: str | os.PathLike[str],
    project: str,
    session: str,
    update: NoteUpdate | None = None,
    *,
    base: SessionNote | None = None,
    replace: bool = False,
    now: datetime | None = None,
    lock_timeout: float = LOCK_TIMEOUT,
) -> SaveResult:
    """Write the note of (project, session) into `memory_dir`, atomically.

    The starting point is `base` when given (a whole note), else the note already saved for this
    timestamp (merge: what `update` does not set is kept), else an empty note; `replace=True`
    ignores the saved one. `last_session_at` is set to `now`. Raises NoteError (nothing written)
    when the folder is missing, the name or timestamp is unusable, another save holds the note's
    lock for more than `lock_timeout` seconds, or the saved note cannot be merged into
    (unreadable, or a newer schema), or the write fails (the old file then stays)."""
    mdir = Path(memory_dir)
    if not mdir.is_dir():
        raise NoteError(f"memory directory not found at {memory_dir}")
    project = check_project_name(project)
    stamp = normalize_stamp(session)
    path = mdir / note_filename(stamp, project)
    # Read, merge and write under the note's lock: two saves at once would each merge into the
    # same old note and the second replace would drop the first one's additions.
    with note_lock(path, lock_timeout):
        remove_stale_temps(mdir, keep_locked=path)
        return _save_locked(path, project, stamp, update, base, replace, now)


def _save_locked(path: Path, project: str, stamp: str, update: NoteUpdate | None,
                 base: SessionNote | None, replace: bool, now: datetime | None) -> SaveResult:
    exists = path.exists()
    warnings: list[str] = []
    start: SessionNote | None = copy.deepcopy(base) if base is not None else None
    if start is None and exists and not replace:
        try:
            start = read_note(path)
        except NoteCorrupt as exc:
            raise NoteError(
                f"the saved note {path} cannot be merged into: {exc}; nothing was written "
                "(--replace overwrites it)"
            ) from None
        if _version_key(start.schema_version) > _version_key(SCHEMA_VERSION):
            raise NoteError(
                f"the saved note {path} has schema_version {start.schema_version}, newer than "
                f"{SCHEMA_VERSION}; nothing was written (--replace overwrites it)"
            )
        warnings += [f"{path.name}: {w}" for w in start.warnings]
    note = start or SessionNote(project=project, session=stamp)
    migrated_from = note.schema_version if start is not None and note.schema_version != SCHEMA_VERSION else None
    note.project, note.session = project, stamp
    if update is not None:
        update.apply(note)
    note.schema_version = SCHEMA_VERSION
    note.last_session_at = (now or datetime.now(timezone.utc)).astimezone(timezone.utc).replace(microsecond=0)
    text = note.to_text()
    try:
        write_atomic(path, text)
    except OSError as exc:
        state = "the previous version is unchanged" if exists else "no note was written"
        raise NoteError(f"could not write {path} ({exc.strerror or exc}); {state}") from exc
    note.path = str(path)
    note.warnings = []
    size = len(text.encode("utf-8"))
    if size > CONDENSED_BYTES:
        warnings.append(f"the note is {size / 1024:.1f} KB; session notes are meant to be condensed (about 1-2 KB)")
    return SaveResult(str(path), not exists, migrated_from, note, warnings)


#: the temp files write_atomic leaves behind when killed: `.{note name}.{12 hex}.tmp`
_TEMP_NAME = re.compile(r"^\.(?P<note>.+)\.[0-9a-f]{12}\.tmp$")


def lock_path(path: Path) -> Path:
    """The lock file beside a note: hidden (a leading '.') and not '.md', so nothing lists it;
    it exists only while a save holds it."""
    return path.parent / f".{path.name}.lock"


def _try_lock(fd: int) -> bool:
    """Take the exclusive lock of an open file without waiting; False when another holds it."""
    if os.name == "nt":  # pragma: no cover - exercised on Windows only
        import msvcrt

        try:
            os.lseek(fd, 0, os.SEEK_SET)
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except (BlockingIOError, PermissionError):
        return False
    return True


def _unlock(fd: int) -> None:
    if os.name == "nt":  # pragma: no cover - exercised on Windows only
        import msvcrt

        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
        return
    import fcntl

    fcntl.flock(fd, fcntl.LOCK_UN)


def _is_current(fd: int, lpath: Path) -> bool:
    """Whether the locked file is still the one at `lpath` (not removed by the save before)."""
    try:
        a, b = os.fstat(fd), os.stat(lpath)
    except OSError:
        return False
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


@contextmanager
def note_lock(path: Path, timeout: float = LOCK_TIMEOUT) -> Iterator[None]:
    """Hold the note's lock file (fcntl.flock on POSIX, msvcrt.locking on Windows) for the block.
    Waits up to `timeout` seconds for another holder, then raises NoteError. The lock goes with
    its process: a killed save never leaves the note locked. The holder removes the file before
    letting go (POSIX), so a save that locked the removed file sees it is no longer the lock
    file and takes the new one."""
    lpath = lock_path(path)
    deadline = time.monotonic() + max(0.0, timeout)
    while True:
        try:
            fd = os.open(lpath, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o666)
        except OSError as exc:
            raise NoteError(f"cannot lock {path}: {lpath} cannot be opened ({exc.strerror or exc}); "
                            "nothing was written") from None
        if _try_lock(fd):
            if os.name == "nt" or _is_current(fd, lpath):
                break
            os.close(fd)  # the holder before removed it: lock the one there now, at once
            continue
        os.close(fd)
        if time.monotonic() >= deadline:
            raise NoteError(f"another save of {path} holds its lock ({lpath}); gave up after "
                            f"{timeout:g} s, nothing was written")
        time.sleep(_LOCK_POLL)
    try:
        yield
    finally:
        if os.name != "nt":
            try:
                os.unlink(lpath)
            except OSError:
                pass
        _unlock(fd)
        os.close(fd)


def remove_stale_temps(folder: Path, keep_locked: Path | None = None) -> list[str]:
    """Remove the temp files that killed saves left in `folder`; the names removed. The temp
    files of `keep_locked` (a note whose lock the caller holds) are stale by definition; another
    note's are removed only when its lock can be taken at once (no save of it is running)."""
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    by_note: dict[str, list[str]] = {}
    for name in names:
        m = _TEMP_NAME.match(name)
        if m:
            by_note.setdefault(m.group("note"), []).append(name)
    removed: list[str] = []
    for note, temps in sorted(by_note.items()):
        if keep_locked is not None and note == keep_locked.name:
            removed += _unlink_all(folder, temps)
            continue
        try:
            with note_lock(folder / note, timeout=0):
                removed += _unlink_all(folder, temps)
        except NoteError:
            continue  # being written right now: its temp file is not stale
    return removed


def _unlink_all(folder: Path, names: list[str]) -> list[str]:
    gone = []
    for name in names:
        try:
            os.unlink(folder / name)
        except OSError:
            continue
        gone.append(name)
    return gone


def _create_temp(path: Path) -> tuple[int, str]:
    """A new, exclusive temp file next to `path`. Not tempfile.mkstemp: that creates mode 0600, and
    reading the umask to widen it would change the umask of every thread for a moment."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        tmp = str(path.parent / f".{path.name}.{secrets.token_hex(6)}.tmp")
        try:
            return os.open(tmp, flags, 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temp file name next to {path}")


def write_atomic(path: Path, text: str) -> None:
    """Replace `path` with `text` so that a crash at any point leaves either the old file or the
    new one, never a mix: a temp file in the same folder, fsync, os.replace, fsync the folder.
    The temp file starts with '.' and ends in '.tmp', so no reader takes it for a note."""
    data = text.encode("utf-8")
    fd, tmp = _create_temp(path)
    try:
        try:
            os.chmod(tmp, os.stat(path).st_mode & 0o7777)  # an update keeps the note's mode
        except OSError:
            pass  # a new note: 0o666 less the umask, as os.open created it
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        os.fsync(fd)
        os.close(fd)
        fd = -1
        os.replace(tmp, path)
    except BaseException:
        if fd >= 0:
            os.close(fd)
        try:
            os.unlink(tmp)  # our own temp file, never a note
        except OSError:
            pass
        raise
    try:
        dir_fd = os.open(path.parent, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(dir_fd)
    except OSError:
        pass  # not every platform / file system can fsync a directory
    finally:
        os.close(dir_fd)
