"""When tantivy fails under us (damaged files, no space left, a writer killed): what it says, in
one line for the user, never a traceback. Both the writer (core/search/ingest.py) and the
searches (core/search/index.py) turn its failures into these.
"""
from __future__ import annotations

from pathlib import Path

from ..config import CacheError


class IndexFailed(CacheError):
    """The index failed under us (damaged files, no space left) and could not answer otherwise:
    one line for the user, no traceback."""


def index_failure(exc: BaseException) -> str | None:
    """Why tantivy failed, in one line, when `exc` is one of its failures (a ValueError or
    OSError from its bindings, or a Rust panic, which pyo3 raises as a BaseException); None when
    it is anything else (a KeyboardInterrupt, a bug of ours raising another type)."""
    if isinstance(exc, (ValueError, OSError)) or type(exc).__name__ == "PanicException":
        lines = str(exc).strip().splitlines() or [type(exc).__name__]
        return lines[0][:160]
    return None


def no_space(why: str) -> bool:
    return "No space left" in why or "os error 28" in why or "disk is full" in why


def nearly_full(directory: Path | None) -> bool:
    """Whether the index's disk has (almost) no room left: a tantivy worker that died of it only
    says "An index writer was killed"."""
    if directory is None:
        return False
    import shutil  # (with zlib, bz2 and lzma: only once a write failed)

    try:
        return shutil.disk_usage(directory).free < (4 << 20)
    except OSError:
        return False
