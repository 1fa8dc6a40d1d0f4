"""Is the index directory whole? Tantivy's own checksums, read without opening the index.

Why: tantivy trusts its files. A deleted `.pos` made every search raise ValueError; 2,000 garbled
bytes in `.store` or `.term` gave a ValueError or a Rust panic; in `.fast` they silently gave
wrong hits and order. Tantivy ends every segment file with a footer: a JSON object holding the
CRC-32 of the bytes before it (`{"version": ..., "crc": N}`), the footer's length (u32 LE) and
a magic number (1337, u32 LE). `meta.json` lists the segments (each has six component files,
and a `.del` file when documents were deleted from it); `.managed.json` lists the files tantivy
manages. Those two have no checksum: they must parse, and every file they need must be there.

Reading every byte of a large index takes a while (~0.3 s per 300 MB), so a file whose size and
mtime are as they were when it last passed (`verified.json` beside the index) is not read
again; `check(full=True)` (`index --check`) reads them all. A segment file is never rewritten in
place: a new size or mtime means something other than tantivy wrote it.
"""
from __future__ import annotations

import json
import mmap
import os
import zlib
from dataclasses import field
from pathlib import Path
from typing import Any

from ..onuse import compact_json
from ..records import record

try:
    import fcntl
except ImportError:  # Windows: tantivy locks otherwise; `writer_busy` then cannot tell
    fcntl = None  # type: ignore[assignment]

FOOTER_MAGIC = 1337
COMPONENTS = ("idx", "pos", "term", "store", "fast", "fieldnorm")  # of every segment (tantivy 0.2x)
VERIFIED_FILE = "verified.json"  # name -> [size, mtime_ns] of the files whose checksums passed
WRITER_LOCK = ".tantivy-writer.lock"
_CHUNK = 16 << 20


@record
class Check:
    problems: list[str] = field(default_factory=list)
    segments: int = 0
    files: int = 0
    bytes_read: int = 0  # bytes whose checksums were computed now
    verified: dict[str, list[int]] = field(default_factory=dict)  # every file that passed, now
    changed: bool = False  # `verified` differs from the record it started from

    @property
    def ok(self) -> bool:
        return not self.problems

    def summary(self) -> str:
        first = self.problems[0]
        more = f" and {len(self.problems) - 1} more problem(s)" if len(self.problems) > 1 else ""
        return first + more


def footer_problem(path: Path) -> str | None:
    """What is wrong with a segment file's footer or its checksum (None: nothing)."""
    try:
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            if size < 8:
                return f"{path.name} is truncated ({size} bytes)"
            with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
                length = int.from_bytes(mm[-8:-4], "little")
                magic = int.from_bytes(mm[-4:], "little")
                if magic != FOOTER_MAGIC or length + 8 > size:
                    return f"{path.name} has no valid footer (truncated or overwritten)"
                try:
                    want = json.loads(mm[size - 8 - length : size - 8])["crc"]
                except (ValueError, KeyError, TypeError):
                    return f"{path.name} has an unreadable footer"
                crc, body, view = 0, size - 8 - length, memoryview(mm)
                try:
                    for start in range(0, body, _CHUNK):
                        crc = zlib.crc32(view[start : min(start + _CHUNK, body)], crc)
                finally:
                    view.release()
    except FileNotFoundError:
        return f"{path.name} is missing"
    except (OSError, ValueError) as exc:
        return f"{path.name} cannot be read ({getattr(exc, 'strerror', None) or exc})"
    if crc != want:
        return f"{path.name} fails its checksum (damaged)"
    return None


def _needed(meta: Any) -> list[str]:
    """The files meta.json says the index needs (ValueError when it says nothing sensible)."""
    if not isinstance(meta, dict) or not isinstance(meta.get("segments"), list):
        raise ValueError("no segment list")
    names = []
    for seg in meta["segments"]:
        sid = str(seg["segment_id"]).replace("-", "")
        if len(sid) != 32 or not all(c in "0123456789abcdef" for c in sid):
            raise ValueError(f"odd segment id {seg['segment_id']!r}")
        names += [f"{sid}.{ext}" for ext in COMPONENTS]
        deletes = seg.get("deletes")
        if deletes:
            names.append(f"{sid}.{int(deletes['opstamp'])}.del")
    return names


def load_verified(directory: Path) -> dict[str, list[int]]:
    try:
        data = json.loads((directory / VERIFIED_FILE).read_bytes())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def save_verified(directory: Path, verified: dict[str, list[int]]) -> bool:
    """Record the files that passed (atomically); False when it cannot be written (read-only,
    disk full: they are simply checked again next time)."""
    return replace_file(directory, VERIFIED_FILE, compact_json(verified).encode())


def replace_file(directory: Path, name: str, data: bytes) -> bool:
    """Write `data` as `name` in `directory` atomically (a reader sees the old file or the new
    one); False when it cannot be written."""
    tmp = directory / f".{name}.{os.getpid()}"
    try:
        tmp.write_bytes(data)
        os.replace(tmp, directory / name)
    except OSError:
        try:
            tmp.unlink()
        except OSError:
            pass
        return False
    return True


def check(directory: Path, *, full: bool = False) -> Check:
    """Check the index in `directory` (which holds meta.json). With `full`, every file's
    checksum is computed; else only those not recorded as passed at their size and mtime."""
    record = {} if full else load_verified(directory)
    for _attempt in range(3):  # a writer's merge may replace segments while we look: look again
        meta_path = directory / "meta.json"
        try:
            before = meta_path.read_bytes()
        except FileNotFoundError:
            return Check(problems=["meta.json is missing"])
        except OSError as exc:
            return Check(problems=[f"meta.json cannot be read ({exc.strerror or exc})"])
        result = Check()
        try:
            names = _needed(json.loads(before))
        except (ValueError, KeyError, TypeError) as exc:
            return Check(problems=[f"meta.json is unreadable ({str(exc).splitlines()[0][:80]})"])
        managed = directory / ".managed.json"
        try:
            listed = json.loads(managed.read_bytes())
            if not isinstance(listed, list):
                raise ValueError("not a list")
        except FileNotFoundError:
            pass
        except (OSError, ValueError) as exc:
            result.problems.append(f".managed.json is unreadable ({str(exc).splitlines()[0][:80]})")
        result.segments = sum(1 for n in names if n.endswith(".idx"))
        for name in names:
            path = directory / name
            try:
                st = os.stat(path)
            except FileNotFoundError:
                result.problems.append(f"{name} is missing")
                continue
            stamp = [st.st_size, st.st_mtime_ns]
            result.files += 1
            if record.get(name) == stamp:
                result.verified[name] = stamp
                continue
            problem = footer_problem(path)
            result.bytes_read += st.st_size
            if problem:
                result.problems.append(problem)
            else:
                result.verified[name] = stamp
        try:
            again = meta_path.read_bytes()
        except OSError:
            again = None
        if again == before or not any(p.endswith("is missing") for p in result.problems):
            break
    result.changed = result.verified != record
    return result


def writer_busy(directory: Path) -> bool:
    """Whether another process holds the index's writer (tantivy flocks its writer lock file)."""
    if fcntl is None:
        return False
    try:
        fh = open(directory / WRITER_LOCK, "rb")
    except OSError:
        return False
    with fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        except OSError:
            return False
        fcntl.flock(fh, fcntl.LOCK_UN)
    return False
