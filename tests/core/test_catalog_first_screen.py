"""The catalog's compact rows and its newest-first reading, and the library's first screenful:
what the app paints before it has read the whole catalog."""
from __future__ import annotations

import random
import sqlite3
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from sessionscope.core.catalog.store import SCHEMA_VERSION, Catalog, FileRow, Fingerprint, epoch_ms
from sessionscope.core.read.discovery import Root
from sessionscope.core.catalog.library import Library, is_child, recency
from sessionscope.core.model import Session, SessionKind, TokenUsage

T0 = datetime(2025, 3, 1, 12, 0, tzinfo=timezone.utc)
UTC = timezone.utc


def session(sid: str, minutes: float | None, **kw: object) -> Session:
    ts = None if minutes is None else T0 + timedelta(minutes=minutes)
    base: dict = dict(id=sid, agent="claude-code", source_format="claude-code", paths=(f"/r/{sid}.jsonl",),
                      project="/w/proj", title=f"title {sid}", first_timestamp=ts, last_timestamp=ts,
                      entry_count=3, models=("m",), git_branch="main", usage=TokenUsage(1, 2, 3, 4), size=10)
    base.update(kw)
    return Session(**base)  # type: ignore[arg-type]


def row(path: str, sessions: list[Session]) -> FileRow:
    return FileRow(path, Fingerprint(1, hash(path) & 0xFFFF, 10, 1, "h"), "claude-code", sessions, None)


def test_rows_keep_every_field_and_times_to_the_millisecond(tmp_path: Path) -> None:
    cat = Catalog(tmp_path / "c.sqlite")
    plus2 = timezone(timedelta(hours=2))
    s = Session(
        id="s1", agent="codex", source_format="codex", paths=("/r/a.jsonl", "/r/b.jsonl"),
        kind=SessionKind.SUBAGENT, project=None, title=None,
        first_timestamp=datetime(2025, 1, 2, 3, 4, 5, 678999, tzinfo=plus2),
        last_timestamp=datetime(2025, 1, 2, 3, 4, 6, 1, tzinfo=UTC), entry_count=7,
        models=("a", "b"), git_branch=None, usage=TokenUsage(5, 6, 7, 8), parent_id="p",
        child_ids=("c1", "c2"), line_count=9, malformed_count=1, noise_count=2, size=1234,
    )
    cat.put(row("/r/a.jsonl", [s, session("s2", None)]))
    got = cat.get("/r/a.jsonl")
    assert got is not None
    first, second = got.sessions
    assert first == Session(
        **{**{f: getattr(s, f) for f in s.__dataclass_fields__},
           "first_timestamp": datetime(2025, 1, 2, 1, 4, 5, 678000, tzinfo=UTC),
           "last_timestamp": datetime(2025, 1, 2, 3, 4, 6, 0, tzinfo=UTC)})
    assert second.first_timestamp is None and second.last_timestamp is None
    assert epoch_ms(datetime(1970, 1, 1, 0, 0, 1, 999, tzinfo=UTC)) == 1000


@pytest.mark.parametrize("version", ["3", "x"])  # an older schema; a version that is no number
def test_an_older_schema_is_rebuilt_with_a_message(tmp_path: Path, version: str) -> None:
    path = tmp_path / "c.sqlite"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
    db.execute("INSERT INTO meta VALUES('schema_version', ?)", (version,))
    db.commit()
    db.close()
    cat = Catalog(path)
    assert cat.messages == [f"catalog schema changed ({version} -> {SCHEMA_VERSION}): rebuilding {path}"]
    assert cat.all() == []


def test_opening_only_reads_so_a_writer_elsewhere_does_not_block_it(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    cat = Catalog(path)
    cat.put(row("/r/a.jsonl", [session("s1", 1)]))
    cat.close()
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")  # another process mid-scan holds the write lock
    writer.execute("DELETE FROM files")
    try:
        again = Catalog(path)
        assert again.messages == []  # not taken for unreadable (nor deleted) for being busy
        assert [r.path for r in again.all()] == ["/r/a.jsonl"]  # (WAL: the last commit)
    finally:
        writer.execute("ROLLBACK")
        writer.close()


def test_a_file_that_is_no_catalog_is_rebuilt_with_a_message(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    path.write_bytes(b"not a database at all\n" * 200)
    cat = Catalog(path)
    assert len(cat.messages) == 1 and cat.messages[0].startswith("catalog unreadable (")
    cat.put(row("/r/a.jsonl", [session("s1", 1)]))
    assert [r.path for r in Catalog(path).all()] == ["/r/a.jsonl"]


def test_a_table_gone_is_created_again(tmp_path: Path) -> None:
    # The right version but a table gone: created again, the rows kept.
    path = tmp_path / "c.sqlite"
    cat = Catalog(path)
    cat.put(row("/r/a.jsonl", [session("s1", 1)]))
    cat._db.execute("DROP TABLE index_files")
    cat.close()
    again = Catalog(path)
    assert again.messages == [] and [r.path for r in again.all()] == ["/r/a.jsonl"]
    assert again.index_states() == {}


def test_by_recency_gives_every_row_once_newest_first(tmp_path: Path) -> None:
    cat = Catalog(tmp_path / "c.sqlite")
    minutes = [5, 1, 9, 9, 3, 7, 9, 2]  # ties at 9: paged by path, none lost or repeated
    for i, m in enumerate(minutes):
        cat.put(row(f"/r/f{i}.jsonl", [session(f"s{i}", m), session(f"old{i}", -100)]))
    cat.put(row("/r/empty.jsonl", []))
    cat.put(row("/r/undated.jsonl", [session("u", None)]))
    seen: list[str] = []
    floors = []
    for floor, batch in cat.by_recency(batch=3):
        floors.append(floor)
        for r in batch:
            seen.append(r.path)
            if floor is not None:  # nothing in a later batch is newer than this one's floor
                assert epoch_ms(max(recency(s) for s in r.sessions)) >= floor
    assert sorted(seen) == sorted(r.path for r in cat.all())
    assert len(seen) == len(set(seen))
    newest = [max(m for m in minutes if m is not None)] * 3
    assert [cat.get(p).sessions[0].last_timestamp for p in seen[:3]] == [  # type: ignore[union-attr]
        T0 + timedelta(minutes=m) for m in newest]
    assert seen[-2:] == ["/r/empty.jsonl", "/r/undated.jsonl"] and floors[-1] is None


def test_the_newest_screenful_is_the_same_as_from_a_full_load(tmp_path: Path) -> None:
    rng = random.Random(7)
    cat = Catalog(tmp_path / "c.sqlite")
    for i in range(300):
        parent = session(f"p{i}", rng.uniform(0, 10_000), paths=(f"/r/p/{i}.jsonl",))
        sessions = [parent]
        # Children (in the same file, as Codex's, or their own files, as Claude's subagents)
        # may be newer than their parent: they count for the file's recency, not the screen.
        for k in range(rng.randrange(3)):
            child = session(f"c{i}-{k}", rng.uniform(0, 12_000), kind=SessionKind.SUBAGENT,
                            parent_id=parent.id, paths=(f"/r/p/{i}-{k}.jsonl",))
            if rng.random() < 0.5:
                sessions.append(child)
            else:
                cat.put(row(f"/r/p/{i}-{k}.jsonl", [child]))
        if rng.random() < 0.3:  # an older session in a file with a newer one
            sessions.append(session(f"o{i}", rng.uniform(-5_000, 0)))
        cat.put(row(f"/r/p/{i}.jsonl", sessions))
    cat.put(row("/elsewhere/x.jsonl", [session("outside", 99_999)]))  # not under the root
    roots = [Root("/r", "--root", explicit=True)]

    full = Library(roots, catalog=cat)
    full.load_cached()
    tops = [s.id for s in full.all_sessions() if not is_child(s)]
    for count in (1, 10, 50, 200, 1000):
        first = Library(roots, catalog=cat)
        known = first.load_cached_newest(count)
        assert 0 < known <= len(full.all_sessions())
        shown = [s.id for s in first.all_sessions() if not is_child(s)]
        assert shown[:count] == tops[:count]
        assert "outside" not in shown


def test_sessions_by_file_pages_through_every_row(tmp_path: Path) -> None:
    cat = Catalog(tmp_path / "c.sqlite")
    for i in range(5):
        cat.put(row(f"/r/f{i}.jsonl", [session(f"s{i}", i)]))
    cat.put(row("/r/empty.jsonl", []))
    cat.put(row("/r/bad.jsonl", [session("bad", 1)]))
    with cat._lock:
        cat._db.execute("UPDATE files SET sessions = ? WHERE path = '/r/bad.jsonl'", (b"[[1, 2]]",))
    got = dict(cat.sessions_by_file(page=2))
    assert sorted(got) == sorted(r.path for r in cat.all())
    assert [s.id for s in got["/r/f3.jsonl"]] == ["s3"]
    assert got["/r/empty.jsonl"] == [] and got["/r/bad.jsonl"] == []  # the scan reads it again
    lib = Library([Root("/r", "--root", explicit=True)], catalog=cat)
    assert lib.load_cached() == 5


def test_the_first_screen_imports_no_adapter_nor_reader(tmp_path: Path) -> None:
    """What the app does before its first frame (config, roots, catalog, the newest sessions)
    imports none of the modules only a scan or a transcript needs; nor does a scan with nothing to
    read (a warm one); a scan that reads a file then gets them."""
    import subprocess
    import sys

    cat = Catalog(tmp_path / "c.sqlite")
    cat.put(row(str(tmp_path / "r" / "a.jsonl"), [session("s1", 1)]))
    cat.close()
    (tmp_path / "r").mkdir()
    code = (
        "import sys\n"
        "from sessionscope.core.config import load_config\n"
        "from sessionscope.core.read.discovery import resolve_roots\n"
        "from sessionscope.core.catalog.store import Catalog\n"
        "from sessionscope.core.catalog.library import Library\n"
        f"load_config(); roots = resolve_roots([{str(tmp_path / 'r')!r}], (), False)\n"
        f"lib = Library(roots, catalog=Catalog({str(tmp_path / 'c.sqlite')!r}))\n"
        "assert lib.load_cached_newest(10) == 1\n"
        "late = ('sessionscope.core.read.adapters', 'sessionscope.core.read.jsonl', 'tomllib', 'hashlib')\n"
        "print(sorted(m for m in late if m in sys.modules))\n"
        "lib.scan()\n"
        "print(sorted(m for m in late[:2] if m in sys.modules))\n"
        f"open({str(tmp_path / 'r' / 'b.jsonl')!r}, 'w').write('{{}}\\n')\n"
        "lib.scan()\n"
        "print(sorted(m for m in late[:2] if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split("\n")[:3] == ["[]", "[]", "['sessionscope.core.read.adapters', 'sessionscope.core.read.jsonl']"]


def test_a_row_that_does_not_decode_is_read_again_whichever_decoder_reads_it(tmp_path: Path) -> None:
    """`Catalog.get` (the standard library's json for a small row) and the bulk read (orjson) both
    take a row they cannot decode as unreadable (read again by the next scan), never raise: a
    short row of the wrong shape, bytes that are not UTF-8, nesting too deep for either parser."""
    cat = Catalog(tmp_path / "c.sqlite")
    bad = (b"[[1, 2]]", b"[\xff\xfe]", b"[" * 5_000 + b"]" * 5_000)  # (10 KB: a small row)
    for i, blob in enumerate(bad):
        cat.put(row(f"/r/bad{i}.jsonl", [session(f"bad{i}", i)]))
        with cat._lock:
            cat._db.execute("UPDATE files SET sessions = ? WHERE path = ?", (blob, f"/r/bad{i}.jsonl"))
    for i in range(len(bad)):
        got = cat.get(f"/r/bad{i}.jsonl")
        assert got is not None and got.sessions == [] and got.fingerprint.size == -1
    assert all(r.sessions == [] and r.fingerprint.size == -1 for r in cat.all())
