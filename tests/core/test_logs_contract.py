"""The session-logs shapes (core/logs/contract.py): keys, bounds, errors, the current session."""
from __future__ import annotations

from pathlib import Path

import pytest

from helpers import write_session

from sessionscope.core.catalog.library import Library
from sessionscope.core.logs import contract as c
from sessionscope.core.read.discovery import Root
from sessionscope.core.search.index import SearchIndex

SESSION_KEYS = {"session_id", "agent_id", "source_plugin", "entry_count", "first_timestamp", "last_timestamp"}


@pytest.fixture
def lib(tmp_path: Path) -> Library:
    root = tmp_path / "root"
    write_session(root / "a.jsonl", "sess-a", [f"a line {i} about Ledger-Deploy" for i in range(30)], day=1)
    write_session(root / "b.jsonl", "sess-b", ["b one", "b two", "b three"], project=str(tmp_path / "proj"), day=2)
    write_session(root / "c.jsonl", "sess-c", ["c " + "x" * 5000], day=3)
    library = Library([Root(str(root), "explicit")])
    library.scan()
    return library


def test_list_sessions_has_the_contract_keys_most_recent_first(lib: Library) -> None:
    out = c.list_sessions(lib)
    assert [s["session_id"] for s in out["sessions"]] == ["sess-c", "sess-b", "sess-a"]
    assert all(set(s) == SESSION_KEYS for s in out["sessions"])
    assert [s["session_id"] for s in c.list_sessions(lib, 1)["sessions"]] == ["sess-c"]


@pytest.mark.parametrize("value, message", [
    (0, "limit must be between 1 and 500, got 0"), (501, "limit must be between 1 and 500, got 501"),
    ("ten", "limit must be an integer between 1 and 500, got 'ten'"), (True, "an integer"), (2.5, "an integer"),
])
def test_limits_out_of_range_say_what_is_wrong(lib: Library, value: object, message: str) -> None:
    with pytest.raises(c.LogsError, match=message):
        c.list_sessions(lib, value)


def test_read_session_cuts_each_content_after_cleaning(lib: Library) -> None:
    out = c.read_session(lib, "sess-c", max_chars=20, clean=lambda t: t.upper())
    assert set(out) == {"header", "total_entries", "returned", "truncated", "entries"}
    assert out["entries"][0]["content"] == "C " + "X" * 17 + "…"
    out = c.read_session(lib, "sess-a", limit=5)
    assert (out["total_entries"], out["returned"], out["truncated"]) == (30, 5, True)
    assert out["header"]["session_id"] == "sess-a"
    with pytest.raises(c.LogsError, match="max_chars must be between 20 and 4000, got 19"):
        c.read_session(lib, "sess-a", max_chars=19)
    with pytest.raises(c.LogsError, match="no session matches id 'nope'"):
        c.read_session(lib, "nope")
    with pytest.raises(c.LogsError, match="session_id must be a session id"):
        c.read_session(lib, None)


def test_recent_defaults_to_the_working_directorys_newest_session(lib: Library, tmp_path: Path) -> None:
    (tmp_path / "proj" / "sub").mkdir(parents=True)
    out = c.recent(lib, cwd=str(tmp_path / "proj" / "sub"), env={}, limit=2)
    assert set(out) == {"session_id", "count", "entries"}
    assert out["session_id"] == "sess-b" and out["count"] == 2
    assert [e["content"] for e in out["entries"]] == ["b two", "b three"]
    # elsewhere: the newest session of all; an agent's id in the environment wins
    (tmp_path / "other").mkdir()
    assert c.recent(lib, cwd=str(tmp_path / "other"), env={})["session_id"] == "sess-c"
    assert c.recent(lib, cwd=str(tmp_path / "other"), env={"CODEX_SESSION_ID": "sess-a"})["session_id"] == "sess-a"
    assert c.recent(lib, "sess-a", env={})["count"] == 10


def test_recent_without_sessions_says_so(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    library = Library([Root(str(tmp_path / "empty"), "explicit")])
    library.scan()
    with pytest.raises(c.LogsError, match="no sessions found"):
        c.recent(library, env={})


def test_search_is_a_case_insensitive_substring(lib: Library, tmp_path: Path) -> None:
    index = SearchIndex(tmp_path / "index")
    index.update(lib)
    try:
        out = c.search(index, "ledger-DEPLOY", limit=3, max_chars=20)
        assert len(out["hits"]) == 3
        assert all(set(h) == {"session_id", "timestamp", "role", "source_plugin", "preview"} for h in out["hits"])
        assert all(h["session_id"] == "sess-a" and len(h["preview"]) <= 20 for h in out["hits"])
        assert c.search(index, "e 1 abo")["hits"], "a substring across word boundaries"
        with pytest.raises(c.LogsError, match="query must be a non-empty string"):
            c.search(index, "  ")
    finally:
        index.close()
