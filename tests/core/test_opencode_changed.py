"""An OpenCode database read again for the sessions that changed only (`load_changed`): what the
catalog then holds (every session, its activity) is what reading the database whole gives."""
from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from helpers import DATA

from sessionscope.core.catalog.library import Library
from sessionscope.core.catalog.store import Catalog
from sessionscope.core.read.adapters import opencode
from sessionscope.core.read.discovery import resolve_roots

MAIN = "ses_4f2a9c1e3ffeQ8mNv2LkT0aBcD"


def make_db(folder: Path, copies: int = 6) -> Path:
    """The fixture database with `copies` more sessions like its main one (ids `ses_cN`)."""
    folder.mkdir(parents=True, exist_ok=True)
    db = folder / "opencode.db"
    con = sqlite3.connect(db)
    con.executescript((DATA / "opencode" / "opencode.sql").read_text())
    for n in range(copies):
        c = f"ses_c{n}"
        con.execute("INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated)"
                    f" SELECT '{c}', project_id, slug, directory, title || ' {n}', version, time_created + {n},"
                    f" time_updated + {n} FROM session WHERE id = ?", (MAIN,))
        con.execute(f"INSERT INTO message SELECT '{c}' || id, '{c}', time_created + {n}, time_updated, data"
                    " FROM message WHERE session_id = ?", (MAIN,))
        con.execute(f"INSERT INTO part SELECT '{c}' || id, '{c}' || message_id, '{c}', time_created, time_updated,"
                    " data FROM part WHERE session_id = ?", (MAIN,))
    con.commit()
    con.close()
    return db


def write(db: Path, *sql: str) -> int:
    """Run `sql` on the database as OpenCode would (committed); the rows the last one changed."""
    con = sqlite3.connect(db)
    try:
        changed = 0
        for q in sql:
            changed = con.execute(q).rowcount
        con.commit()
        return changed
    finally:
        con.close()


def scan(db: Path, cat: Path) -> tuple[list, list]:
    lib = Library(resolve_roots([str(db.parent)]), catalog=Catalog(cat))
    lib.scan()
    row = lib.rows[str(db)]
    return row.sessions, sorted(lib.catalog.file_activity(str(db)), key=repr)


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The ids of the sessions read from a database."""
    seen: list[str] = []
    real = opencode._db_session

    def spy(adapter, con, path, row):  # type: ignore[no-untyped-def]
        seen.append(row["id"])
        return real(adapter, con, path, row)

    monkeypatch.setattr(opencode, "_db_session", spy)
    return seen


def changes() -> list[tuple[str, str]]:
    """Each kind of change OpenCode makes, one session each: (what, the session read again)."""
    return [
        ("a part added", "INSERT INTO part VALUES ('prt_new', 'ses_c0msg_b0d5a6c3f001Zs3', 'ses_c0', 1764590600000,"
                         " 1764590600000, '{\"type\": \"text\", \"text\": \"one more thing\"}')"),
        ("a part rewritten, same time",
         "UPDATE part SET data = '{\"type\": \"text\", \"text\": \"rewritten text\"}' WHERE session_id = 'ses_c1'"
         " AND data LIKE '%\"text\"%' AND rowid = (SELECT max(rowid) FROM part WHERE session_id = 'ses_c1'"
         " AND data LIKE '%\"text\"%')"),
        ("a message's tokens",
         "UPDATE message SET time_updated = time_updated + 5, data = replace(data, '\"output\": 120',"
         " '\"output\": 999') WHERE session_id = 'ses_c2'"),
        ("renamed", "UPDATE session SET title = 'renamed' WHERE id = 'ses_c3'"),
        ("a message removed", "DELETE FROM message WHERE session_id = 'ses_c4' AND rowid = (SELECT max(rowid) FROM"
                              " message WHERE session_id = 'ses_c4')"),
    ]


def test_only_the_changed_session_is_read_again_and_the_row_is_the_whole_reads(
        tmp_path: Path, reads: list[str]) -> None:
    db = make_db(tmp_path / "oc")
    cat = tmp_path / "c.sqlite"
    scan(db, cat)
    assert len(reads) == 8
    sid_of = {"a part added": "ses_c0", "a part rewritten, same time": "ses_c1", "a message's tokens": "ses_c2",
              "renamed": "ses_c3", "a message removed": "ses_c4"}
    for n, (what, sql) in enumerate(changes()):
        assert write(db, sql) >= 1, what
        reads.clear()
        got = scan(db, cat)
        assert reads == [sid_of[what]], what
        reads.clear()
        assert got == scan(db, tmp_path / f"whole{n}.sqlite"), what  # (a new catalog: read whole)
        assert len(reads) == 8


def test_sessions_added_and_removed(tmp_path: Path, reads: list[str]) -> None:
    db = make_db(tmp_path / "oc")
    cat = tmp_path / "c.sqlite"
    before, _ = scan(db, cat)
    write(db, "DELETE FROM session WHERE id = 'ses_c5'", "DELETE FROM message WHERE session_id = 'ses_c5'",
          "DELETE FROM part WHERE session_id = 'ses_c5'",
          "INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated)"
          " VALUES ('ses_a', 'p', 's', '/home/dev/elsewhere', 'a new one', '1.2', 1764590400500, 1764590400500)")
    reads.clear()
    got = scan(db, cat)
    assert reads == ["ses_a"]
    assert [s.id for s in got[0]] == [s.id for s in scan(db, tmp_path / "whole.sqlite")[0]]
    assert got == scan(db, tmp_path / "whole2.sqlite")
    assert "ses_c5" in {s.id for s in before} - {s.id for s in got[0]}


def test_marks_that_the_row_does_not_match_read_it_whole(tmp_path: Path, reads: list[str]) -> None:
    """Stored marks saying a session is unchanged that the stored row lacks (a row and marks of
    two readings): every session is read again rather than one left out."""
    db = make_db(tmp_path / "oc", copies=2)
    cat = tmp_path / "c.sqlite"
    scan(db, cat)
    catalog = Catalog(cat)
    row = catalog.get(str(db))
    row.sessions = [s for s in row.sessions if s.id != "ses_c0"]
    row.carry = catalog.carried(str(db), -1)
    catalog.put(row)
    write(db, "UPDATE session SET title = 'renamed' WHERE id = 'ses_c1'")
    reads.clear()
    got = scan(db, cat)
    assert reads[0] == "ses_c1"
    assert sorted(reads[1:]) == sorted(["ses_c0", "ses_c1", MAIN, "ses_4f2a9b70dffeK1pLw9XyZ3eFgH"])
    assert got == scan(db, tmp_path / "whole.sqlite")


def test_a_session_id_that_cannot_be_a_mark_reads_it_whole_every_time(tmp_path: Path, reads: list[str]) -> None:
    db = make_db(tmp_path / "oc", copies=1)
    write(db, "INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated)"
              " VALUES (X'3432', 'p', 's', '/d', 'numbered', '1.2', 1764590400500, 1764590400500)")
    cat = tmp_path / "c.sqlite"
    scan(db, cat)
    assert Catalog(cat).carried(str(db), -1) is None
    write(db, "UPDATE session SET title = 'renamed' WHERE id = 'ses_c0'")
    reads.clear()
    got = scan(db, cat)
    assert len(reads) == 4
    assert got == scan(db, tmp_path / "whole.sqlite")



def indexed(db: Path, cat: Path, where: Path, term: str) -> tuple[list[tuple[str, str]], int]:
    """Scan, bring the index in `where` up to date, and search `term`: the hits (session, entry)
    and the index's documents."""
    from sessionscope.core.search.index import SearchIndex

    lib = Library(resolve_roots([str(db.parent)]), catalog=Catalog(cat))
    lib.scan()
    index = SearchIndex(where)
    try:
        index.update(lib)
        hits = sorted((h.session_id, h.entry_id) for h in index.search(term, limit=100).hits)
        return hits, index.index.searcher().num_docs
    finally:
        index.close()


def test_the_index_reads_again_only_the_changed_sessions(tmp_path: Path, reads: list[str]) -> None:
    db = make_db(tmp_path / "oc")
    cat, where = tmp_path / "c.sqlite", tmp_path / "index"
    hits, docs = indexed(db, cat, where, "webhook")
    assert {sid for sid, _ in hits} >= {"ses_c0", "ses_c5"}
    for n, (what, sql) in enumerate(changes()):
        write(db, sql)
        reads.clear()
        got = indexed(db, cat, where, "webhook")
        assert len(reads) == 2, what  # (the scan's, the index's: that session alone)
        reads.clear()
        assert got == indexed(db, tmp_path / f"whole{n}.sqlite", tmp_path / f"whole{n}", "webhook"), what
        assert len(reads) == 16  # (the new catalog and index read every session)
    write(db, "DELETE FROM session WHERE id = 'ses_c5'", "DELETE FROM part WHERE session_id = 'ses_c5'",
          "UPDATE part SET data = '{\"type\": \"text\", \"text\": \"a zebra\"}' WHERE id = 'prt_new'")
    assert indexed(db, cat, where, "webhook") == indexed(db, tmp_path / "w.sqlite", tmp_path / "w", "webhook")
    assert indexed(db, cat, where, "zebra")[0] == [("ses_c0", "prt_new")]
    assert not indexed(db, cat, where, "one more thing")[0]


def test_a_database_that_cannot_be_read_keeps_what_the_index_holds(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A read failing (OpenCode holding the database locked) leaves the index as it was, and the
    next update indexes what changed."""
    from sessionscope.core.read.jsonl import ReaderError

    db = make_db(tmp_path / "oc", copies=2)
    cat, where = tmp_path / "c.sqlite", tmp_path / "index"
    before = indexed(db, cat, where, "webhook")
    write(db, "UPDATE part SET data = '{\"type\": \"text\", \"text\": \"a zebra\"}' WHERE rowid = (SELECT max(rowid)"
              " FROM part WHERE session_id = 'ses_c1')")
    real = opencode._changed_db
    with monkeypatch.context() as patch:
        calls = []

        def locked(*args):  # type: ignore[no-untyped-def]
            calls.append(args)
            if len(calls) > 1:  # (the catalog's reading passes; the index's fails)
                raise ReaderError("cannot read database: database is locked")
            return real(*args)

        patch.setattr(opencode, "_changed_db", locked)
        assert indexed(db, cat, where, "webhook") == before
    assert [sid for sid, _ in indexed(db, cat, where, "zebra")[0]] == ["ses_c1"]
    assert indexed(db, cat, where, "webhook") == indexed(db, tmp_path / "w.sqlite", tmp_path / "w", "webhook")
