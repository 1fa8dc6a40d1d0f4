"""Bookmarks to and from a JSON file: `sessionscope bookmarks export FILE` / `import FILE`.

    {"format": "sessionscope-bookmarks", "version": 1, "exported_at": ISO,
     "bookmarks": [{"agent_id", "session_id", "path", "project", "session_title",
                    "entry": {"entry_id", "line", "hash", "role", "kind", "timestamp", "text"} | null,
                    "note", "created_at", "updated_at"}]}

An import merges: a bookmark already kept (the same session and entry) is left as it is, the
others are added; a bookmark in the file that is not one is counted and named, the rest still
imported. A file that is not such a JSON document at all is one error, and nothing is imported.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..model import iso
from .store import Bookmark, BookmarkStore, from_dict

FORMAT = "sessionscope-bookmarks"
VERSION = 1
#: the largest file an import reads
MAX_BYTES = 64 * 1024 * 1024


class TransferError(Exception):
    """The file cannot be written, or read as bookmarks: one line for the user."""


def document(bookmarks: list[Bookmark], now: datetime | None = None) -> dict[str, Any]:
    return {"format": FORMAT, "version": VERSION, "exported_at": iso(now or datetime.now(timezone.utc)),
            "bookmarks": [b.to_dict() for b in bookmarks]}


def export_file(store: BookmarkStore, path: Path) -> int:
    """Write every bookmark to `path` (atomically: a temp file beside it, then a rename); how many.
    (Whether `path` may be written, outside every root, is the caller's to check.)"""
    from ..memory.save import write_atomic

    bookmarks = store.all()
    try:
        write_atomic(path, json.dumps(document(bookmarks), ensure_ascii=False, indent=1) + "\n")
    except OSError as exc:
        raise TransferError(f"cannot write {path}: {exc.strerror or exc}") from None
    return len(bookmarks)


@dataclass
class Imported:
    added: int = 0
    already: int = 0  # kept already (the same session and entry)
    invalid: list[str] = field(default_factory=list)  # "bookmark N: what is wrong"


def read_file(path: Path) -> tuple[list[Bookmark], list[str]]:
    """The bookmarks in an exported file, and what is wrong with those that are not bookmarks;
    TransferError when the file is not an export at all."""
    try:
        if path.stat().st_size > MAX_BYTES:
            raise TransferError(f"{path} is larger than {MAX_BYTES >> 20} MB: not a bookmarks export")
        raw = path.read_bytes()
    except OSError as exc:
        raise TransferError(f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError:
        raise TransferError(f"{path} is not UTF-8 text: not a bookmarks export") from None
    except ValueError as exc:
        raise TransferError(f"{path} is not JSON ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise TransferError(f"{path} is not a bookmarks export (no \"format\": \"{FORMAT}\")")
    version = data.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version > VERSION:
        raise TransferError(f"{path}: bookmarks export version {version!r} is not one this sessionscope reads")
    items = data.get("bookmarks")
    if not isinstance(items, list):
        raise TransferError(f"{path}: \"bookmarks\" is not a list")
    out: list[Bookmark] = []
    invalid: list[str] = []
    for n, item in enumerate(items, 1):
        try:
            out.append(from_dict(item))
        except ValueError as exc:
            invalid.append(f"bookmark {n}: {exc}")
    return out, invalid


def import_file(store: BookmarkStore, path: Path) -> Imported:
    bookmarks, invalid = read_file(path)
    added, already = store.merge(bookmarks)
    return Imported(added, already, invalid)
