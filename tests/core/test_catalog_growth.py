"""A file that grew is read on from its last complete line by the catalog's scan, never whole, and
gives the session a whole read gives (issue 15)."""
from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from helpers import FeedSpy

from sessionscope.core.catalog.library import Library
from sessionscope.core.catalog.store import Catalog
from sessionscope.core.read.adapters.sessionlogs import SessionLogsAdapter, SessionLogsParser
from sessionscope.core.read.discovery import Root

HEADER = {"session_id": "s-1", "agent_id": "my-agent", "started_at": "2026-01-31T09:15:00Z",
          "project": "/home/u/proj", "model": "m-1"}


def line(record: object) -> bytes:
    return orjson.dumps(record) + b"\n"


def entry(n: int, role: str = "assistant", **more: object) -> dict[str, object]:
    return {"role": role, "content": f"text {n}", "timestamp": f"2026-01-31T10:{n:02d}:00Z", **more}


def Spy(monkeypatch: pytest.MonkeyPatch) -> FeedSpy:  # noqa: N802 - stands for the class it makes
    return FeedSpy(monkeypatch, SessionLogsParser, SessionLogsAdapter)


def scan(root: Path, catalog: Catalog) -> Library:
    lib = Library([Root(str(root), "--root", explicit=True)], catalog=catalog)
    report = lib.scan()
    assert report.errors == []
    return lib


def whole(root: Path, tmp_path: Path) -> list:
    """The sessions a whole read of the files gives (a fresh catalog)."""
    return scan(root, Catalog(None)).all_sessions()


def test_a_grown_file_is_read_from_its_last_complete_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "logs"
    root.mkdir()
    path = root / "s-1.jsonl"
    # No title in the header and no user text yet: the title comes with the appended lines.
    # (A line of no known shape is an entry of its own, shown raw.)
    path.write_bytes(line(HEADER) + line(entry(1)) + line({"note": "noise"}))
    catalog = Catalog(tmp_path / "c.sqlite")
    scan(root, catalog)
    spy = Spy(monkeypatch)

    # An append that ends mid-line: the half-written record is left for the next scan.
    old_size = path.stat().st_size
    half = line(entry(9, model="m-2"))
    with path.open("ab") as fh:
        fh.write(line(entry(2, "user")) + b"{broken\n" + line(entry(3, model="m-2")) + half[:20])
    lib = scan(root, catalog)
    assert spy.loads == 0 and spy.offsets and min(spy.offsets) == old_size
    assert lib.all_sessions() == whole(root, tmp_path)
    [s] = lib.all_sessions()
    assert (s.title, s.entry_count, s.malformed_count, s.line_count) == ("text 2", 4, 1, 6)
    assert s.models == ("m-1", "m-2") and s.last_timestamp.minute == 3

    # The rest of that line, and more: read from the start of the half line, no earlier.
    spy.reset()
    resume = path.stat().st_size - 20
    with path.open("ab") as fh:
        fh.write(half[20:] + line(entry(10, "user")))
    lib = scan(root, catalog)
    assert spy.loads == 0 and min(spy.offsets) == resume
    assert lib.all_sessions() == whole(root, tmp_path)
    [s] = lib.all_sessions()
    assert (s.title, s.entry_count, s.line_count, s.last_timestamp.minute) == ("text 2", 6, 8, 10)


@pytest.mark.parametrize("change", ["shrunk", "head rewritten", "header appended", "parseable unended line"])
def test_a_file_that_did_not_just_grow_is_read_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      change: str) -> None:
    root = tmp_path / "logs"
    root.mkdir()
    path = root / "s-1.jsonl"
    body = line(HEADER) + line(entry(1, "user")) + line(entry(2))
    path.write_bytes(body)
    catalog = Catalog(tmp_path / "c.sqlite")
    scan(root, catalog)
    spy = Spy(monkeypatch)
    if change == "shrunk":
        path.write_bytes(line(HEADER) + line(entry(1, "user")))
    elif change == "head rewritten":
        path.write_bytes(line({**HEADER, "title": "Renamed"}) + body[len(line(HEADER)):] + line(entry(3)))
    elif change == "header appended":  # (a whole read ignores it: the first header counts)
        path.write_bytes(body + line({**HEADER, "session_id": "other", "title": "no"}))
    else:
        path.write_bytes(body + line(entry(3)).rstrip(b"\n"))
    lib = scan(root, catalog)
    assert spy.loads == 1
    assert lib.all_sessions() == whole(root, tmp_path)
    if change == "parseable unended line":  # and the next append, read whole again, counts it once
        spy.reset()
        with path.open("ab") as fh:
            fh.write(b"\n" + line(entry(4)))
        lib = scan(root, catalog)
        assert lib.all_sessions() == whole(root, tmp_path)
        assert lib.all_sessions()[0].entry_count == 4
