"""session-logs adapter: the documented header + entries shape, read back from the CLI's own export,
and tolerated damage (no header, bad lines)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from helpers import corpus_files

from sessionscope.core.read.adapters.base import read_head
from sessionscope.core.read.adapters.codex import CodexAdapter
from sessionscope.core.read.adapters.sessionlogs import SessionLogsAdapter
from sessionscope.core.model import EntryKind, SessionKind, TokenUsage, iso

ADAPTER = SessionLogsAdapter()

HEADER = {
    "session_id": "s-123",
    "agent_id": "my-agent",
    "source_plugin": "my-exporter",
    "started_at": "2026-01-31T09:15:00Z",
    "project": "/home/u/proj",
    "title": "Refactor the parser",
    "model": "some-model-1",
}
ENTRIES: list[dict[str, Any]] = [
    {"role": "user", "content": "please refactor", "timestamp": "2026-01-31T09:15:01Z", "id": "u1"},
    {"role": "assistant", "content": [{"type": "text", "text": "Thinking about it"}], "kind": "thinking",
     "timestamp": "2026-01-31T09:15:02Z", "id": "a1", "parent_id": "u1"},
    {"role": "assistant", "content": "ls", "tool_name": "bash", "tool_input": {"command": "ls"},
     "tool_use_id": "t1", "timestamp": "2026-01-31T09:15:03Z", "id": "a2", "parent_id": "a1"},
    {"role": "tool", "content": [{"type": "text", "text": "a.py"}, {"type": "text", "text": "b.py"}],
     "tool_name": "bash", "tool_use_id": "t1", "is_error": False, "timestamp": "2026-01-31T09:15:04Z"},
    {"role": "assistant", "content": "Done.", "timestamp": "2026-01-31T09:15:05Z", "model": "some-model-2"},
]


def write(path: Path, records: list[Any], extra_lines: list[bytes] = ()) -> Path:
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records) + b"".join(x + b"\n" for x in extra_lines))
    return path


def load_one(path: Path):
    [loaded] = ADAPTER.load(str(path))
    return loaded


def test_header_and_entries_round_trip(tmp_path: Path) -> None:
    path = write(tmp_path / "s-123.jsonl", [HEADER, *ENTRIES])
    assert ADAPTER.sniff(str(path), read_head(str(path)))
    loaded = load_one(path)
    assert loaded.account.holds() and loaded.account.lines == 6 and loaded.account.noise == 1
    assert loaded.warnings == []
    s = loaded.session
    assert (s.id, s.agent, s.source_format, s.project, s.title) == (
        "s-123", "my-agent", "my-exporter", "/home/u/proj", "Refactor the parser"
    )
    assert s.models == ("some-model-1", "some-model-2")
    assert iso(s.first_timestamp) == "2026-01-31T09:15:00.000Z"
    assert iso(s.last_timestamp) == "2026-01-31T09:15:05.000Z"
    assert s.entry_count == 5 and s.kind is SessionKind.MAIN
    e = loaded.entries
    assert [x.id for x in e] == ["u1", "a1", "a2", "L5", "L6"]
    assert [x.kind for x in e] == [
        EntryKind.TEXT, EntryKind.THINKING, EntryKind.TOOL_USE, EntryKind.TOOL_RESULT, EntryKind.TEXT
    ]
    assert [x.role for x in e] == ["user", "assistant", "assistant", "tool", "assistant"]
    assert e[1].parent_id == "u1" and e[1].text == "Thinking about it"
    assert e[2].tool_input == {"command": "ls"} and e[2].tool_use_id == "t1"
    assert e[3].text == "a.py\nb.py" and not e[3].is_error
    assert e[4].model == "some-model-2"
    assert e[0].locator.line == 2 and e[0].locator.offset == len(orjson.dumps(HEADER)) + 1


def test_cli_export_reads_back(tmp_path: Path) -> None:
    """`Session.to_dict()` then `Entry.to_dict()` per line is a valid session-logs file."""
    first = load_one(write(tmp_path / "s-123.jsonl", [HEADER, *ENTRIES]))
    exported = [first.session.to_dict(), *(e.to_dict() for e in first.entries)]
    again = load_one(write(tmp_path / "export.jsonl", exported))
    assert again.account.holds() and again.warnings == []
    s1, s2 = first.session, again.session
    for attr in ("id", "agent", "source_format", "project", "title", "models", "first_timestamp", "kind"):
        assert getattr(s2, attr) == getattr(s1, attr), attr
    key = lambda e: (e.id, e.role, e.kind, e.text, e.parent_id, e.timestamp, e.tool_name, e.is_error)  # noqa: E731
    assert [key(e) for e in again.entries] == [key(e) for e in first.entries]


def test_missing_header(tmp_path: Path) -> None:
    path = write(tmp_path / "loose-log.jsonl", ENTRIES)
    assert ADAPTER.sniff(str(path), read_head(str(path)))  # "without a header the file still reads"
    loaded = load_one(path)
    assert loaded.account.holds() and loaded.account.conversation == 5
    assert loaded.warnings and "header" in loaded.warnings[0]
    s = loaded.session
    assert (s.id, s.agent, s.source_format) == ("loose-log", "unknown", "session-logs")
    assert s.title == "please refactor"  # first user text, lacking a header title
    assert iso(s.first_timestamp) == "2026-01-31T09:15:01.000Z"


def test_bad_lines_counted(tmp_path: Path) -> None:
    header = {k: v for k, v in HEADER.items() if k != "source_plugin"}
    path = write(
        tmp_path / "s.jsonl",
        [header],
        [
            b"{not json",
            b"",
            orjson.dumps({"role": "user", "content": "hi", "timestamp": "2026-01-31T10:00:00Z", "id": "x"}),
            orjson.dumps({"role": "user", "content": "same id", "timestamp": 1769853600, "id": "x"}),
            orjson.dumps(HEADER),  # a repeated header
            b"[1, 2]",
            orjson.dumps({"something": "else"}),
            orjson.dumps({"role": "wizard", "content": {"odd": True}, "kind": "nonsense"}),
            orjson.dumps({"role": "assistant", "content": "?", "kind": "malformed"}),
            b'{"role": "assistant", "content": "cut',
        ],
    )
    loaded = load_one(path)
    acc = loaded.account
    assert acc.holds()
    assert (acc.lines, acc.malformed, acc.noise, acc.conversation) == (11, 2, 3, 6)
    assert len(loaded.noise) == 3 and len(loaded.malformed) == 2
    assert loaded.session.source_format == "session-logs"
    by_line = {e.locator.line: e for e in loaded.entries}
    assert by_line[4].id == "x" and by_line[5].id == "L5"  # a repeated id is replaced
    assert iso(by_line[5].timestamp) == "2026-01-31T10:00:00.000Z"  # epoch seconds
    assert by_line[7].kind is EntryKind.UNKNOWN and by_line[8].kind is EntryKind.UNKNOWN
    assert (by_line[9].role, by_line[9].kind, by_line[9].text) == ("system", EntryKind.TEXT, "")
    assert by_line[10].kind is EntryKind.UNKNOWN
    assert loaded.session.entry_count == 6


def test_header_fields_optional_and_usage(tmp_path: Path) -> None:
    header = {"session_id": "s", "agent_id": "a", "started_at": "not a date", "cwd": "/c",
              "models": ["m1", "m2"], "git_branch": "dev", "parent_session_id": "p", "kind": "subagent",
              "tokens": {"input": 10, "output": 5, "cache_read": 2, "cache_creation": 1, "total": 18}}
    loaded = load_one(write(tmp_path / "s.jsonl", [header]))
    s = loaded.session
    assert (s.project, s.models, s.git_branch, s.parent_id, s.kind) == ("/c", ("m1", "m2"), "dev", "p", SessionKind.SUBAGENT)
    assert s.usage == TokenUsage(10, 5, 2, 1) and s.first_timestamp is None and s.title is None


def test_sniff_is_exclusive(tmp_path: Path) -> None:
    path = write(tmp_path / "s.jsonl", [HEADER, *ENTRIES])
    assert not CodexAdapter().sniff(str(path), read_head(str(path)))
    assert not ADAPTER.sniff("x.jsonl", b"")
    assert not ADAPTER.sniff("x.jsonl", b'{"session_id": "s"}\n')


@pytest.mark.parametrize("path", corpus_files("codex") + corpus_files("claude-code"), ids=lambda p: p.name[:50])
def test_does_not_claim_agent_files(path: Path) -> None:
    assert not ADAPTER.sniff(str(path), read_head(str(path)))


def test_headerless_file_is_found_and_listed(tmp_path: Path) -> None:
    from sessionscope.core.read.adapters import default_registry
    from sessionscope.core.read.listing import quick_meta

    path = write(tmp_path / "loose-log.jsonl", ENTRIES)
    assert default_registry().sniff(str(path)).name == "session-logs"
    meta = quick_meta(str(path))
    assert meta.error is None and meta.session_id == "loose-log" and meta.title == "please refactor"


@pytest.mark.parametrize("first", [
    {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}],
     "timestamp": "2026-01-31T09:15:01Z"},  # a Codex record of the bare-header era
    {"role": "user", "content": "hi"},  # no timestamp
    {"role": "user", "content": "hi", "timestamp": "yesterday"},
    {"role": "wizard", "content": "hi", "timestamp": "2026-01-31T09:15:01Z"},
    {"role": "user", "content": {"text": "hi"}, "timestamp": "2026-01-31T09:15:01Z"},
    {"role": "user", "content": "hi", "timestamp": "2026-01-31T09:15:01Z", "sessionId": "x"},
])
def test_headerless_sniff_takes_only_entry_lines(first: dict[str, Any]) -> None:
    assert not ADAPTER.sniff("x.jsonl", orjson.dumps(first) + b"\n")


@pytest.mark.parametrize(("session_id", "agent_id", "sid", "agent", "warned"), [
    (42, "a", "42", "a", False),  # a numeric id is read as its digits
    ({"x": 1}, "a", "odd", "a", True),  # unusable: reported, the file name stands in
    ("s", None, "s", "unknown", True),
    (True, "a", "odd", "a", True),
])
def test_header_with_ids_of_other_types_is_read_and_reported(
    tmp_path: Path, session_id: Any, agent_id: Any, sid: str, agent: str, warned: bool
) -> None:
    path = write(tmp_path / "odd.jsonl", [{"session_id": session_id, "agent_id": agent_id}, *ENTRIES])
    assert ADAPTER.sniff(str(path), read_head(str(path)))  # never dropped
    loaded = load_one(path)
    assert (loaded.session.id, loaded.session.agent) == (sid, agent)
    assert loaded.account.holds() and loaded.account.conversation == len(ENTRIES)
    assert bool(loaded.warnings) == warned and all("is not a string" in w for w in loaded.warnings)
