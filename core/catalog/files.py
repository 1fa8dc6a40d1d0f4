"""What a session file's stat and first bytes say, for the scan and for messages: whether the
catalog's row still matches it, whether this process may read it (a chmod leaves size and mtime
as they were), and why a file holds no session ("empty file", "not a JSONL transcript (binary)").
"""
from __future__ import annotations

import functools
import os
from typing import Iterable

from .store import FileRow, Fingerprint

#: how a row's error begins when the file could not be opened at all
UNREADABLE = "unreadable: "
_NO_FORMAT = "no session in it (not a transcript format sessionscope reads)"


def file_problem(path: str, error: str | None = None) -> str | None:
    """Why a file holds no session, in a few words ("empty file", "not a JSONL transcript
    (binary)", the reader's error), or None when it looks like a transcript's text."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(8192)
    except OSError as exc:
        return f"unreadable: {exc.strerror or exc}"
    if not head.strip():
        return "empty file" if not head else "empty file (only blank lines)"
    if error:
        return error
    from ..read.jsonl import GZIP_MAGIC  # (not at import: the app's first screen reads no file)

    if not path.endswith(".zst") and head[:2] != GZIP_MAGIC and (b"\0" in head or not _utf8_start(head)):
        return "not a JSONL transcript (binary)"
    return None


def _utf8_start(data: bytes) -> bool:
    """Whether `data` is the start of UTF-8 text (a character cut at its end allowed)."""
    import codecs

    try:
        codecs.getincrementaldecoder("utf-8")().decode(data, final=False)
    except UnicodeDecodeError:
        return False
    return True


def _readable_changed(row: FileRow, path: str, st: os.stat_result) -> bool:
    """Whether a file the catalog read (or failed to read for want of permission) has since
    become unreadable (or readable again): a chmod leaves size and mtime as they were, and the
    catalog's sessions of a file that cannot be read must not be served as if it could."""
    was_unreadable = bool(row.error and row.error.startswith(UNREADABLE))
    return was_unreadable == readable(path, st)


def readable(path: str, st: os.stat_result) -> bool:
    """Whether this process may read the file. From the mode bits of the stat already taken
    when they grant it (no system call: a warm scan of 20k files stats each once), else asked
    of the system (ACLs, root)."""
    if os.name == "posix":
        uid = _euid()
        bit = (0o400 if st.st_uid == uid else 0o040 if st.st_gid in _groups() else 0o004)
        if st.st_mode & bit:
            return True
    return os.access(path, os.R_OK)


@functools.lru_cache(maxsize=1)
def _euid() -> int:
    return os.geteuid()


@functools.lru_cache(maxsize=1)
def _groups() -> frozenset[int]:
    return frozenset((os.getegid(), *os.getgroups()))


#: what follows a SQLite database's name for its write-ahead log
WAL = "-wal"


def with_wal(path: str, st: os.stat_result) -> os.stat_result:
    """The stat of a file as the catalog compares it: a SQLite database's (an OpenCode
    `opencode.db` root) with its write-ahead log's folded in, size added and the later times
    taken. Why: while OpenCode runs, what it commits goes to `opencode.db-wal`, and the database
    file itself (its size, its times) changes only when SQLite copies the log back, at a
    checkpoint (every ~4 MB of writes, or when OpenCode closes it): a new session stayed out of
    every listing until then. Any other file's stat is returned as it is."""
    if not path.endswith(".db"):
        return st
    try:
        log = os.stat(path + WAL)
    except OSError:
        return st
    mtime_ns, ctime_ns = max(st.st_mtime_ns, log.st_mtime_ns), max(st.st_ctime_ns, log.st_ctime_ns)
    return os.stat_result(
        (st.st_mode, st.st_ino, st.st_dev, st.st_nlink, st.st_uid, st.st_gid, st.st_size + log.st_size,
         int(st.st_atime), mtime_ns // 10**9, ctime_ns // 10**9),
        {"st_atime": st.st_atime, "st_mtime": mtime_ns / 1e9, "st_ctime": ctime_ns / 1e9,
         "st_atime_ns": st.st_atime_ns, "st_mtime_ns": mtime_ns, "st_ctime_ns": ctime_ns})


def wal_beside(paths: Iterable[str]) -> bool:
    """Whether one of these files (SQLite databases) has a write-ahead log beside it now."""
    return any(os.path.exists(p + WAL) for p in paths if p.endswith(".db"))


def _stat_matches(fp: Fingerprint, st: os.stat_result) -> bool:
    return (fp.dev, fp.ino, fp.size, fp.mtime_ns) == (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
