"""Writing an export: never into an agent's folders (a root), atomically (a temporary file beside
it, then a rename), and the default place for the app's exports (sessionscope's data folder)."""
from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Iterable

from ..config import data_dir
from ..memory.save import write_atomic


def exports_dir() -> Path:
    """Where the app writes an exported session: `<data dir>/exports` (never a repository or
    an agent's folder)."""
    return data_dir() / "exports"


def export_name(session_id: str, fmt: str) -> str:
    """A file name for a session's export: its id made safe for a file name."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", session_id).strip("._")[:80] or "session"
    return f"{safe}.{fmt}"


def check_outside(path: Path, roots: Iterable[str]) -> None:
    """ValueError (one line) when `path` (links resolved) is a root or inside one."""
    real = Path(os.path.realpath(path))
    for root in roots:
        r = Path(os.path.realpath(os.path.expanduser(root)))
        if real == r or r in real.parents:
            raise ValueError(f"{path} is inside {root}, an agent's folder: sessionscope never writes there")


def write_export(text: str, path: Path, roots: Iterable[str]) -> Path:
    """Write `text` to `path`; ValueError (one line) when that is inside a root, or its folder
    does not exist. Returns the absolute path written."""
    target = Path(os.path.abspath(path.expanduser()))
    check_outside(target, roots)
    if not target.parent.is_dir():
        raise ValueError(f"no such folder: {target.parent}")
    if target.is_dir():
        raise ValueError(f"{target} is a folder")
    write_atomic(target, text)  # (memory notes' writer: a temp file beside it, fsync, rename)
    return target
