"""The library: scanning roots through the catalog, lookups, and cross-file linking."""
from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from sessionscope.core.catalog import Catalog
from sessionscope.core.discovery import Root
from sessionscope.core.library import Library, LookupFailed


def claude(uuid: str, parent: str | None, sid: str, ts: int, role: str = "user", text: str = "hi") -> dict:
    rec = {"type": role, "uuid": uuid, "parentUuid": parent, "sessionId": sid, "cwd": "/w/proj",
           "timestamp": f"2025-01-01T00:00:{ts:02d}.000Z"}
    if role == "user":
        rec["message"] = {"role": "user", "content": text}
    else:
        rec["message"] = {"id": f"m-{uuid}", "role": "assistant", "model": "m", "content": [{"type": "text", "text": text}],
                          "usage": {"input_tokens": 10, "output_tokens": 5}}
        rec["requestId"] = f"r-{uuid}"
    return rec


def write(path: Path, records: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))


def make(tmp_path: Path) -> tuple[Path, Library]:
    root = tmp_path / "projects"
    root.mkdir()
    return root, Library([Root(str(root), "--root", explicit=True)], catalog=Catalog(tmp_path / "c.sqlite"))


A = "aaaaaaaa-0000-4000-8000-000000000001"
B = "bbbbbbbb-0000-4000-8000-000000000002"


def test_scan_dedupes_records_copied_into_a_resumed_session(tmp_path: Path) -> None:
    root, lib = make(tmp_path)
    write(root / "p" / f"{A}.jsonl", [claude("u1", None, A, 1), claude("a1", "u1", A, 2, "assistant")])
    write(root / "p" / f"{B}.jsonl", [claude("u1", None, B, 1), claude("a1", "u1", B, 2, "assistant"),
                                      claude("u2", "a1", B, 3, text="resumed"), claude("a2", "u2", B, 4, "assistant")])
    lib.scan()
    assert lib.get(A).entry_count == 2
    assert lib.get(B).entry_count == 2  # the two copied records are not counted again
    assert lib.get(B).usage.input == 10  # nor their tokens
    # a second library over the same catalog sees the linked figures without re-reading
    again = Library(lib.roots, catalog=lib.catalog)
    report = again.scan()
    assert report.reread == 0 and again.get(B).entry_count == 2


def test_load_cached_needs_no_files(tmp_path: Path) -> None:
    root, lib = make(tmp_path)
    write(root / "p" / f"{A}.jsonl", [claude("u1", None, A, 1)])
    lib.scan()
    cold = Library(lib.roots, catalog=lib.catalog)
    assert cold.load_cached() == 1 and cold.find("aaaa").id == A


def test_find_by_prefix(tmp_path: Path) -> None:
    root, lib = make(tmp_path)
    write(root / "p" / f"{A}.jsonl", [claude("u1", None, A, 1)])
    write(root / "p" / "aaaaaaaa-1111-4000-8000-000000000003.jsonl",
          [claude("u9", None, "aaaaaaaa-1111-4000-8000-000000000003", 1)])
    lib.scan()
    with pytest.raises(LookupFailed, match="ambiguous"):
        lib.find("aaaaaaaa")
    assert lib.find("aaaaaaaa-0").id == A
    with pytest.raises(LookupFailed, match="no session matches"):
        lib.find("zzz")


def test_unreadable_and_deleted_files(tmp_path: Path) -> None:
    root, lib = make(tmp_path)
    p = root / "p" / f"{A}.jsonl"
    write(p, [claude("u1", None, A, 1)])
    lib.scan()
    p.unlink()
    report = lib.scan()
    assert report.removed == 1 and lib.get(A) is None


def test_missing_default_root_is_a_note_not_an_error(tmp_path: Path) -> None:
    lib = Library([Root(str(tmp_path / "nope"), "codex")], catalog=Catalog(None))
    report = lib.scan()
    assert report.errors == [] and "root not found" in report.notes[0]
