"""Claude Code adapter: real transcripts from ../shared/corpus and small synthetic trees."""
from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import orjson
import pytest
from helpers import CORPUS, NO_CORPUS, corpus_files
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sessionscope.core.read.adapters import default_registry
from sessionscope.core.read.adapters.base import LoadedSession, read_head
from sessionscope.core.read.adapters.claude import ClaudeAdapter, ClaudeLoadedSession
from sessionscope.core.read.jsonl import RecordFile, parse_line
from sessionscope.core.model import EntryKind, SessionKind

CLAUDE = CORPUS / "claude-code"
VIEWER_SIDECHAINS = "claude-code-viewer__5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl"
SPOTTER_PARENT = "4d5611e5-241a-462a-8d15-5122611a9569"

adapter = ClaudeAdapter()


# -- helpers -----------------------------------------------------------------------------
def load(path: Path) -> list[LoadedSession]:
    return adapter.load(str(path))


def load_root(root: Path) -> dict[str, LoadedSession]:
    """What the index does for one root: discover, sniff, load, link."""
    sessions: list[LoadedSession] = []
    for path in adapter.discover(str(root)):
        if adapter.sniff(path, read_head(path)):
            sessions.extend(adapter.load(path))
    adapter.link(sessions)
    return {s.session.id: s for s in sessions}


def write_jsonl(path: Path, records: list[Any]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    return path


def user(uuid: str, parent: str | None, content: Any, ts: int = 0, **extra: Any) -> dict:
    return {"type": "user", "uuid": uuid, "parentUuid": parent, "sessionId": "s1", "cwd": "/w/proj",
            "timestamp": f"2025-01-01T00:{ts // 60:02d}:{ts % 60:02d}.000Z",
            "message": {"role": "user", "content": content}, **extra}


def assistant(uuid: str, parent: str | None, blocks: list[dict], mid: str, ts: int = 0,
              usage: dict | None = None, **extra: Any) -> dict:
    message = {"id": mid, "role": "assistant", "model": "claude-test", "content": blocks,
               "usage": usage or {"input_tokens": 1, "output_tokens": 1}}
    return {"type": "assistant", "uuid": uuid, "parentUuid": parent, "sessionId": "s1",
            "cwd": "/w/proj", "requestId": f"req-{mid}",
            "timestamp": f"2025-01-01T00:{ts // 60:02d}:{ts % 60:02d}.000Z", "message": message, **extra}


def text(t: str) -> dict:
    return {"type": "text", "text": t}


def raw_records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def by_line(loaded: LoadedSession) -> dict[int, list]:
    out: dict[int, list] = {}
    for e in loaded.entries:
        out.setdefault(e.locator.line, []).append(e)
    return out


# -- every real file ---------------------------------------------------------------------
@pytest.mark.skipif(not CLAUDE.is_dir(), reason=NO_CORPUS)
@pytest.mark.parametrize("path", corpus_files("claude-code"), ids=lambda p: p.name[:60])
def test_corpus_file_loads_sniffs_and_accounts(path: Path) -> None:
    assert adapter.sniff(str(path), read_head(str(path)))
    sessions = load(path)
    main = sessions[0]
    with RecordFile(path) as rf:
        assert main.account.lines == rf.line_count
    for s in sessions:
        assert s.account.holds(), (s.session.id, s.account)
        ids = [e.id for e in s.entries]
        assert len(ids) == len(set(ids)), "entry ids unique within a session"
        assert s.session.entry_count == sum(e.kind is not EntryKind.MALFORMED for e in s.entries)
        assert s.session.paths == (str(path),) and s.session.size == path.stat().st_size
    assert len(main.noise) == main.account.noise == main.session.noise_count


def test_corpus_other_formats_are_not_claimed(corpus_dir: Path) -> None:
    others = [p for p in corpus_dir.glob("*/*.jsonl") if p.parent.name != "claude-code"]
    assert others
    for path in others:
        assert not adapter.sniff(str(path), read_head(str(path))), path.name


def test_sniff_synthetic_heads() -> None:
    codex = b'{"timestamp":"2025-01-01T00:00:00Z","type":"session_meta","payload":{"id":"x"}}\n'
    logs = b'{"session_id":"a","agent_id":"claude-code","source_plugin":"x","type":"user"}\n'
    claude = orjson.dumps(user("u1", None, "hi")) + b"\n"
    summary = b'{"type":"summary","summary":"T","leafUuid":"x"}\n'
    assert not adapter.sniff("a.jsonl", codex)
    assert not adapter.sniff("a.jsonl", logs + claude)
    assert adapter.sniff("a.jsonl", claude)
    assert adapter.sniff("a.jsonl", summary)
    assert not adapter.sniff("a.jsonl", b"not json at all\n")
    # A first line longer than the head: no complete line, judged from the bytes.
    cut = orjson.dumps(user("u1", None, "x" * 70000))[:65536]
    assert adapter.sniff("a.jsonl", cut)
    assert not adapter.sniff("a.jsonl", b"")


# -- quirks on real samples --------------------------------------------------------------
def test_split_reply_is_one_message(corpus_dir: Path) -> None:
    path = corpus_dir / "claude-code" / "spotter__short.jsonl"
    records = raw_records(path)
    mid = records[4]["message"]["id"]
    split = [i + 1 for i, r in enumerate(records) if r.get("message", {}).get("id") == mid]
    assert len(split) == 5  # text, thinking, text, tool_use, tool_use over five lines
    main = load(path)[0]
    lines = by_line(main)
    assert {e.message_id for n in split for e in lines[n]} == {mid}
    assistant_msgs = {e.message_id for e in main.entries if e.role == "assistant"}
    file_msgs = {r["message"]["id"] for r in records if r.get("type") == "assistant"}
    assert assistant_msgs == file_msgs and len(assistant_msgs) == 1


def test_usage_dedup_by_message_and_request(corpus_dir: Path) -> None:
    path = corpus_dir / "claude-code" / "spotter__subagent.jsonl"
    last: dict[tuple[str, str], dict] = {}
    naive = 0
    for r in raw_records(path):
        if r.get("type") == "assistant":
            u = r["message"]["usage"]
            naive += u["output_tokens"]
            last[(r["message"]["id"], r["requestId"])] = u
    expected_out = sum(u["output_tokens"] for u in last.values())
    expected_in = sum(u["input_tokens"] for u in last.values())
    usage = load(path)[0].session.usage
    assert usage.output == expected_out and usage.input == expected_in
    assert naive > usage.output  # the naive sum counts split copies twice
    assert usage.cache_read == sum(u.get("cache_read_input_tokens", 0) for u in last.values())


def test_inline_sidechains_become_child_sessions(corpus_dir: Path) -> None:
    path = corpus_dir / "claude-code" / VIEWER_SIDECHAINS
    records = raw_records(path)
    sidechain_lines = {i + 1 for i, r in enumerate(records) if r.get("isSidechain")}
    assert len(sidechain_lines) == 22
    assert sum(1 for r in records if r.get("parentUuid") is None) == 3
    main, *children = load(path)
    assert main.session.kind is SessionKind.MAIN
    assert len(children) == 2 and main.session.child_ids == tuple(c.session.id for c in children)
    assert not any(e.is_sidechain for e in main.entries)
    covered = set()
    for child in children:
        assert child.session.kind is SessionKind.SUBAGENT
        assert child.session.parent_id == main.session.id
        assert child.session.id.startswith(f"{main.session.id}/sidechain-")
        assert all(e.is_sidechain for e in child.entries)
        covered |= {e.locator.line for e in child.entries}
        assert child.account.holds()
    assert covered == sidechain_lines
    assert children[0].session.title.startswith("Examine the package.json")


def test_compaction_agent_files_are_compaction_sessions(corpus_dir: Path) -> None:
    files = sorted((corpus_dir / "claude-code").glob("spotter__*__agent-acompact-*.jsonl"))
    assert len(files) == 4
    for path in files:
        (s,) = load(path)
        assert s.session.kind is SessionKind.COMPACTION
        assert "/agent-acompact-" in s.session.id
        assert s.session.parent_id and s.session.id.startswith(s.session.parent_id)
        # the first record's parent lives in the main file: dangling here, a root, still active
        assert all(e.on_active_branch for e in s.entries)


def test_summary_only_file(corpus_dir: Path) -> None:
    (s,) = load(corpus_dir / "claude-code" / "claude-parser__4762e53b-7ca8-4464-9eac-d1816c343c50.jsonl")
    assert s.session.kind is SessionKind.MAIN
    assert [e.kind for e in s.entries] == [EntryKind.SUMMARY]
    assert s.session.title == "Git File Recovery After Accidental Deletion"
    assert s.session.id == "4762e53b-7ca8-4464-9eac-d1816c343c50"


def test_progress_snapshot_queue_are_noise(corpus_dir: Path) -> None:
    path = corpus_dir / "claude-code" / "spotter__tool_heavy.jsonl"
    records = raw_records(path)
    noise_types = {"progress", "file-history-snapshot", "queue-operation"}
    expected = {i + 1 for i, r in enumerate(records) if r["type"] in noise_types}
    main = load(path)[0]
    assert {loc.line for loc in main.noise} == expected
    assert not {e.locator.line for e in main.entries} & expected
    with RecordFile(path) as rf:  # the raw JSON stays reachable through the locator
        for loc in main.noise:
            value = parse_line(rf.line_at_offset(loc.offset, loc.line)).value
            assert value["type"] in noise_types


def test_parents_resolve_through_progress_records(corpus_dir: Path) -> None:
    main = load(corpus_dir / "claude-code" / "spotter__short.jsonl")[0]
    lines = by_line(main)
    assert lines[4][0].parent_id is None  # its parents are SessionStart hook progress records
    assert lines[10][0].parent_id == lines[8][0].id  # the progress record in between is skipped
    tool_use = raw_records(corpus_dir / "claude-code" / "spotter__short.jsonl")[7]["message"]["content"][0]
    assert lines[11][0].tool_use_id == tool_use["id"] and lines[11][0].tool_name == tool_use["name"]
    assert all(e.on_active_branch for e in main.entries)


def test_parallel_tool_results_stay_on_active_branch(corpus_dir: Path) -> None:
    # Parallel tool calls make each result a child of its own tool_use record: a naive walk from
    # the last record would abandon three of the four results of lines 13-16.
    main = load(corpus_dir / "claude-code" / "spotter__subagent.jsonl")[0]
    results = [e for e in main.entries if e.kind is EntryKind.TOOL_RESULT]
    assert len(results) == 16 and all(e.on_active_branch for e in results)
    assert all(e.tool_name for e in results)


def test_resume_copy_inside_one_file_is_noise(corpus_dir: Path) -> None:
    main = load(corpus_dir / "claude-code" / "VibeCodingTracker__test_conversation.jsonl")[0]
    assert 49 in {loc.line for loc in main.noise}  # line 49 repeats line 48's uuid
    assert main.session.id == "b162b1ae-97bc-475f-9b5f-ffbf55ca5b3f"  # last sessionId: the resumed one
    assert main.account.holds()


def test_subagent_files_link_to_their_parent(corpus_dir: Path, tmp_path: Path) -> None:
    project = tmp_path / "projects" / "-home-USER-projects-spotter"
    sub = project / SPOTTER_PARENT / "subagents"
    sub.mkdir(parents=True)
    # The real parent (3.2 MB) is not in the corpus: a real 2.1.x main file stands in for it.
    shutil.copy(CLAUDE / "spotter__short.jsonl", project / f"{SPOTTER_PARENT}.jsonl")
    for agent in ("agent-a2898e3", "agent-acompact-e1f845"):
        shutil.copy(CLAUDE / f"spotter__{SPOTTER_PARENT}__subagents__{agent}.jsonl", sub / f"{agent}.jsonl")
    (sub / "agent-a2898e3.meta.json").write_text('{"agentType":"Explore","spawnDepth":1}')
    tool_results = project / SPOTTER_PARENT / "tool-results"
    tool_results.mkdir()
    (tool_results / "toolu_x.jsonl").write_text('{"type":"user","uuid":"zz","sessionId":"q"}\n')

    sessions = load_root(tmp_path / "projects")
    assert len(sessions) == 3
    parent = sessions[SPOTTER_PARENT]
    explore = sessions[f"{SPOTTER_PARENT}/agent-a2898e3"]
    compact = sessions[f"{SPOTTER_PARENT}/agent-acompact-e1f845"]
    assert set(parent.session.child_ids) == {explore.session.id, compact.session.id}
    assert explore.session.parent_id == compact.session.parent_id == SPOTTER_PARENT
    assert explore.session.kind is SessionKind.SUBAGENT and compact.session.kind is SessionKind.COMPACTION
    assert explore.session.title.startswith("Explore: Very thorough exploration")
    from sessionscope.core.read.listing import quick_meta  # the listing names the agent type too
    assert quick_meta(sub / "agent-a2898e3.jsonl").title == explore.session.title
    adapter.link(list(sessions.values()))  # linking twice changes nothing
    assert len(parent.session.child_ids) == 2


# -- synthetic trees ---------------------------------------------------------------------
def test_rewind_marks_the_abandoned_branch(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "11111111-1111-4111-8111-111111111111.jsonl", [
        user("u1", None, "first question", 1),
        assistant("a1", "u1", [text("answer one")], "m1", 2),
        user("u2", "a1", "a follow-up I later rewound", 3),
        assistant("a2", "u2", [text("answer to the rewound question")], "m2", 4),
        {"type": "progress", "uuid": "p1", "parentUuid": "a1", "data": {"type": "hook_progress"}},
        user("u2b", "p1", "the edited follow-up", 5),
        assistant("a2b", "u2b", [text("the new answer")], "m3", 6),
        assistant("a2c", "u2b", [text("a retry of the new answer")], "m4", 7),
    ])
    (s,) = load(path)
    active = {e.id: e.on_active_branch for e in s.entries}
    assert active == {"u1": True, "a1": True, "u2": False, "a2": False, "u2b": True,
                      "a2b": False, "a2c": True}
    assert [e.id for e in s.entries] == ["u1", "a1", "u2", "a2", "u2b", "a2b", "a2c"]  # file order
    assert s.entries[4].parent_id == "a1"  # resolved through the progress record
    assert s.session.title == "first question" and s.session.id.startswith("11111111")


def test_dangling_parent_and_compaction_keep_history_active(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "s.jsonl", [
        user("u1", None, "start", 1),
        assistant("a1", "u1", [text("ok")], "m1", 2),
        user("u2", "never-written", "after a write bug", 3),
        assistant("a2", "u2", [text("fine")], "m2", 4),
        {"type": "system", "subtype": "compact_boundary", "uuid": "c1", "parentUuid": None,
         "logicalParentUuid": "a2", "content": "Conversation compacted",
         "compactMetadata": {"trigger": "auto", "preTokens": 1234}},
        user("cs", "c1", "This session is being continued from a previous conversation…", 5,
             isCompactSummary=True, isVisibleInTranscriptOnly=True),
        assistant("a3", "cs", [text("continuing")], "m3", 6),
        {"type": "system", "subtype": "turn_duration", "uuid": "t1", "parentUuid": "a3", "durationMs": 5},
    ])
    (s,) = load(path)
    assert all(e.on_active_branch for e in s.entries)
    kinds = {e.id: e.kind for e in s.entries}
    assert kinds["c1"] is EntryKind.COMPACTION and kinds["cs"] is EntryKind.COMPACTION
    assert kinds["t1"] is EntryKind.SYSTEM
    assert "auto" in s.entries[4].text and "1234" in s.entries[4].text
    assert s.entries[2].parent_id == "never-written"  # kept as written: a root
    assert s.session.title == "start"  # the compaction summary is not a prompt


def test_split_text_blocks_merge_and_ids(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "s.jsonl", [
        user("u1", None, [text("look"), {"type": "image", "source": {
            "type": "base64", "media_type": "image/png", "data": "A" * 1_600_000}}], 1),
        assistant("a1", "u1", [text("part one")], "m1", 2, usage={"input_tokens": 5, "output_tokens": 1}),
        assistant("a2", "a1", [text("part two")], "m1", 3, usage={"input_tokens": 5, "output_tokens": 9}),
        assistant("a3", "a2", [{"type": "tool_use", "id": "t1", "name": "Read", "input": {"p": 1}}],
                  "m1", 4, usage={"input_tokens": 5, "output_tokens": 20}),
        user("u2", "a3", [{"type": "tool_result", "tool_use_id": "t1", "is_error": True,
                           "content": [text("boom"), {"type": "image", "source": {
                               "type": "base64", "media_type": "image/jpeg", "data": "QUJD"}}]}], 5),
        {"type": "assistant", "message": {"id": "m2", "model": "<synthetic>",
                                          "content": [text("No response requested.")]}},
    ])
    (s,) = load(path)
    ids = [e.id for e in s.entries]
    assert ids == ["u1.0", "u1.1", "a1", "a3", "u2", "L6"]
    assert s.entries[1].text == "[image image/png, 1.1 MB]"
    assert s.entries[2].text == "part one\n\npart two"
    assert s.entries[3].kind is EntryKind.TOOL_USE and s.entries[3].tool_input == {"p": 1}
    result = s.entries[4]
    assert (result.kind, result.tool_name, result.tool_use_id, result.is_error) == (
        EntryKind.TOOL_RESULT, "Read", "t1", True)
    assert result.text == "boom\n[image image/jpeg, 3 B]"
    assert s.session.entry_count == 6 and s.session.models == ("claude-test",)
    assert s.session.usage.output == 20 and s.session.usage.input == 5
    assert s.account.holds()


def test_meta_and_command_markup(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "s.jsonl", [
        user("u0", None, "Caveat: The messages below were generated by the user", 1, isMeta=True),
        user("u1", "u0", "<command-name>/init</command-name>\n<command-args>now</command-args>", 2),
        user("u2", "u1", [text("expanded prompt of the command")], 3, isMeta=True),
        user("u3", "u2", "<local-command-stdout>done</local-command-stdout>", 4),
        {"type": "system", "subtype": "local_command", "uuid": "s1", "parentUuid": "u3",
         "content": "\x1b[1m/mcp\x1b[22m"},
    ])
    (s,) = load(path)
    assert [e.kind for e in s.entries] == [EntryKind.META] * 4 + [EntryKind.SYSTEM]
    assert s.entries[4].text == "\x1b[1m/mcp\x1b[22m"  # nothing stripped; the UI escapes
    assert s.session.title == "/init now"  # no real prompt: the slash command names the session


def test_title_precedence(tmp_path: Path) -> None:
    records = [
        {"type": "summary", "summary": "Summary title", "leafUuid": "a1"},
        user("u1", None, "the prompt\nover two lines", 1),
        assistant("a1", "u1", [text("ok")], "m1", 2),
    ]
    assert load(write_jsonl(tmp_path / "a.jsonl", records))[0].session.title == "Summary title"
    records.append({"type": "ai-title", "aiTitle": "AI title", "sessionId": "s1"})
    assert load(write_jsonl(tmp_path / "b.jsonl", records))[0].session.title == "AI title"
    records.insert(0, {"type": "custom-title", "customTitle": "Mine", "sessionId": "s1"})
    (s,) = load(write_jsonl(tmp_path / "c.jsonl", records))
    assert s.session.title == "Mine" and s.account.noise == 2
    assert load(write_jsonl(tmp_path / "d.jsonl", records[2:4]))[0].session.title == \
        "the prompt over two lines"


def test_sibling_agent_files_and_warmup(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    parent_id = "22222222-2222-4222-8222-222222222222"
    write_jsonl(project / f"{parent_id}.jsonl", [
        {**user("u1", None, "do it", 1), "sessionId": parent_id},
        {**assistant("a1", "u1", [{"type": "tool_use", "id": "t1", "name": "Task", "input": {}}],
                     "m1", 2), "sessionId": parent_id},
    ])
    side = {"isSidechain": True, "sessionId": parent_id}
    write_jsonl(project / "agent-1a2b3c4d.jsonl", [
        {**user("x1", None, "explore the code", 3), **side, "agentId": "1a2b3c4d"},
        {**assistant("x2", "x1", [text("found it")], "mx", 4), **side, "agentId": "1a2b3c4d"},
    ])
    write_jsonl(project / "agent-9f9f9f9f.jsonl", [
        {**user("w1", None, "Warmup", 0), **side, "agentId": "9f9f9f9f"},
        {**assistant("w2", "w1", [text("ready")], "mw", 0), **side, "agentId": "9f9f9f9f"},
    ])
    sessions = load_root(project)
    parent = sessions[parent_id]
    sub = sessions[f"{parent_id}/agent-1a2b3c4d"]
    warm = sessions[f"{parent_id}/agent-9f9f9f9f"]
    assert sub.session.kind is SessionKind.SUBAGENT and warm.session.kind is SessionKind.WARMUP
    assert sub.session.parent_id == warm.session.parent_id == parent_id
    assert parent.session.child_ids == (warm.session.id, sub.session.id)  # by first timestamp
    assert sub.session.title == "explore the code"


def test_resumed_session_duplicates_are_hidden_once(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    first = "33333333-3333-4333-8333-333333333333"
    second = "44444444-4444-4444-8444-444444444444"
    shared = [
        user("u1", None, "original question", 1),
        assistant("a1", "u1", [text("original answer")], "m1", 2,
                  usage={"input_tokens": 10, "output_tokens": 10}),
    ]
    write_jsonl(project / f"{first}.jsonl", shared)
    write_jsonl(project / f"{second}.jsonl", [
        *shared,
        user("u2", "a1", "resumed question", 10),
        assistant("a2", "u2", [text("resumed answer")], "m2", 11,
                  usage={"input_tokens": 3, "output_tokens": 4}),
    ])
    sessions = load_root(project)
    orig, resumed = sessions[first], sessions[second]
    assert [e.id for e in orig.entries] == ["u1", "a1"]
    assert [e.id for e in resumed.entries] == ["u2", "a2"]
    assert isinstance(resumed, ClaudeLoadedSession) and resumed.duplicates_hidden == 2
    assert {loc.line for loc in resumed.noise} == {1, 2} and resumed.account.holds()
    assert resumed.session.entry_count == 2 and resumed.session.noise_count == 2
    assert (resumed.session.usage.input, resumed.session.usage.output) == (3, 4)
    assert resumed.session.title == "original question"  # the session's own first prompt
    assert resumed.warnings and first in resumed.warnings[-1]
    adapter.link(list(sessions.values()))  # idempotent
    assert resumed.duplicates_hidden == 2


def test_summary_leaf_in_another_file_titles_that_session(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    target = "55555555-5555-4555-8555-555555555555"
    write_jsonl(project / f"{target}.jsonl", [
        user("u1", None, "a long first prompt", 1),
        assistant("leaf-1", "u1", [text("done")], "m1", 2),
    ])
    write_jsonl(project / "66666666-6666-4666-8666-666666666666.jsonl", [
        {"type": "summary", "summary": "Fixing the parser", "leafUuid": "leaf-1"},
    ])
    sessions = load_root(project)
    assert sessions[target].session.title == "Fixing the parser"
    summary_file = sessions["66666666-6666-4666-8666-666666666666"]
    assert isinstance(summary_file, ClaudeLoadedSession)
    assert summary_file.summary_links == {"leaf-1": target}
    assert summary_file.session.kind is SessionKind.MAIN


def test_unexpected_shapes_never_raise(tmp_path: Path) -> None:
    lines = [
        b"[1, 2, 3]", b'"just a string"', b"42", b"null", b"{}", b'{"type": 5}',
        b'{"type":"user","message":7}', b'{"type":"user","message":{"content":{"a":1}}}',
        b'{"type":"assistant","uuid":3,"message":{"id":[],"content":[1,null,"x",{"type":"thinking"}]}}',
        b'{"type":"assistant","message":{"content":[{"type":"tool_use","id":{},"name":3}],"usage":"x"}}',
        b'{"type":"user","message":{"content":[{"type":"tool_result","content":5}]},"parentUuid":[]}',
        b'{"type":"system","content":{"x":1},"subtype":4}',
        b'{"type":"summary","summary":null}', b'{"type":"brand-new-type","uuid":"n1"}',
        b'{"type":"user","uuid":"c1","parentUuid":"c2","message":{"content":"a"}}',
        b'{"type":"user","uuid":"c2","parentUuid":"c1","message":{"content":"b"}}',
        b'{"type":"user"}{"type":"assistant"}', b"{broken", b"\x00\xff\xfe", b"",
        b'{"type":"user","isSidechain":true,"uuid":"sc","message":{"content":"side"}}',
    ]
    path = tmp_path / "weird.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    sessions = load(path)
    assert sessions[0].account.holds() and sessions[0].account.lines == len(lines)
    assert any(e.kind is EntryKind.UNKNOWN and e.raw_type == "brand-new-type" for e in sessions[0].entries)
    adapter.link(sessions)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8)
    | st.sampled_from(["user", "assistant", "system", "summary", "progress", "text", "tool_use",
                       "tool_result", "image", "u1", "u2", None]),
    lambda inner: st.lists(inner, max_size=4)
    | st.dictionaries(st.sampled_from(["type", "uuid", "parentUuid", "message", "content", "id",
                                       "isSidechain", "usage", "source", "data", "tool_use_id",
                                       "logicalParentUuid", "subtype", "agentId", "input"]),
                      inner, max_size=6),
    max_leaves=20,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(json_values, max_size=8))
def test_fuzzed_records_never_raise(tmp_path: Path, values: list[Any]) -> None:
    path = tmp_path / "fuzz.jsonl"
    path.write_bytes(b"".join(json.dumps(v).encode() + b"\n" for v in values))
    sessions = load(path)
    assert all(s.account.holds() for s in sessions)
    adapter.link(sessions)


def test_discover_skips_tool_results(tmp_path: Path) -> None:
    write_jsonl(tmp_path / "p" / "s.jsonl", [user("u1", None, "x")])
    write_jsonl(tmp_path / "p" / "s" / "tool-results" / "t.jsonl", [user("u2", None, "y")])
    assert [Path(p).name for p in adapter.discover(str(tmp_path))] == ["s.jsonl"]



def test_summary_of_another_file_does_not_title_this_one(tmp_path: Path) -> None:
    proj = tmp_path / "proj"
    old = write_jsonl(proj / "aaaaaaaa-0000-4000-8000-000000000001.jsonl", [
        user("u-old", None, "set up the nightly backup", ts=0, sessionId="aaaaaaaa-0000-4000-8000-000000000001"),
    ])
    new = write_jsonl(proj / "bbbbbbbb-0000-4000-8000-000000000002.jsonl", [
        {"type": "summary", "summary": "Nightly backup CronJob", "leafUuid": "u-old"},
        user("u-new", None, "renew the TLS certificate", ts=10, sessionId="bbbbbbbb-0000-4000-8000-000000000002"),
    ])
    sessions = load_root(proj)
    by_path = {s.session.path: s.session for s in sessions.values()}
    assert by_path[str(new)].title == "renew the TLS certificate"
    assert by_path[str(old)].title in ("Nightly backup CronJob", "set up the nightly backup")


def test_malformed_lines_are_entries_in_file_order(tmp_path: Path) -> None:
    path = tmp_path / "cccccccc-0000-4000-8000-000000000003.jsonl"
    path.write_bytes(orjson.dumps(user("u1", None, "before")) + b"\n{broken\n"
                     + orjson.dumps(user("u2", "u1", "after", 1)) + b"\n")
    (main,) = load(path)
    assert [e.kind for e in main.entries] == [EntryKind.TEXT, EntryKind.MALFORMED, EntryKind.TEXT]
    assert main.entries[1].locator.line == 2 and main.session.malformed_count == 1
    assert main.session.entry_count == 2 and main.account.holds()


# -- unknown record types do not lose a file -------------------------------------------------------
ODD = {"type": "session-settings", "timestamp": "2026-03-01T09:00:00.000Z",
       "payload": {"permissionMode": "plan", "model": "claude-opus-4-6"}}  # Codex-shaped, no Claude key


def test_unknown_record_types_with_payload_keep_a_claude_file(data_dir: Path) -> None:
    # tests/data/claude_odd: a new record type with a `payload` first, another one (with Claude's
    # envelope) inside; both are kept as entries of kind unknown, the session reads as usual.
    [path] = sorted((data_dir / "claude_odd").glob("*/*.jsonl"))
    registry = default_registry()
    assert getattr(registry.sniff(str(path)), "name", None) == "claude-code"
    [s] = load(path)
    assert [(e.kind, e.raw_type) for e in s.entries] == [
        (EntryKind.UNKNOWN, "session-settings"), (EntryKind.TEXT, "user"),
        (EntryKind.UNKNOWN, "checkpoint"), (EntryKind.TEXT, "assistant")]
    assert s.account.holds() and s.account.lines == 4
    assert s.session.title == "Rename the config loader." and s.session.project == "/work/demo"


def test_sniff_is_decided_by_the_records_that_tell() -> None:
    claude = [orjson.dumps(user(f"u{k}", None, "hi")) + b"\n" for k in range(2)]
    odd = orjson.dumps(ODD) + b"\n"
    codex = [orjson.dumps({"timestamp": "2025-01-01T00:00:00Z", "type": t, "payload": {"type": "message"}}) + b"\n"
             for t in ("session_meta", "response_item", "event_msg")]
    logs = b'{"session_id":"a","agent_id":"claude-code","source_plugin":"x","type":"user"}\n'
    assert adapter.sniff("a.jsonl", odd + claude[0])  # one odd record, one Claude record
    assert adapter.sniff("a.jsonl", claude[0] + odd + odd + claude[1])
    assert not adapter.sniff("a.jsonl", odd + codex[1] + codex[2])  # a Codex file with a new first type
    assert not adapter.sniff("a.jsonl", b"".join(codex))
    assert not adapter.sniff("a.jsonl", odd + odd)  # nothing tells: not claimed
    assert not adapter.sniff("a.jsonl", logs + odd + claude[0])  # a session-logs header, then a tie
    # a Codex record quoting Claude keys in its payload is still Codex
    quoting = orjson.dumps({"timestamp": "t", "type": "response_item",
                            "payload": {"uuid": "x", "sessionId": "y", "parentUuid": None}}) + b"\n"
    assert not adapter.sniff("a.jsonl", quoting + codex[2])


@pytest.mark.skipif(not CLAUDE.is_dir(), reason=NO_CORPUS)
@pytest.mark.parametrize("path", corpus_files("claude-code"), ids=lambda p: p.name[:60])
def test_corpus_file_with_an_odd_first_record_still_reads(path: Path, tmp_path: Path) -> None:
    odd_path = tmp_path / path.name
    odd_path.write_bytes(orjson.dumps(ODD) + b"\n" + path.read_bytes())
    assert getattr(default_registry().sniff(str(odd_path)), "name", None) == "claude-code"
    before, after = load(path), load(odd_path)
    assert [s.session.id for s in after] == [s.session.id for s in before]
    first = [e for e in after[0].entries if e.locator.line == 1]
    assert [(e.kind, e.raw_type) for e in first] == [(EntryKind.UNKNOWN, "session-settings")]
    assert after[0].account.lines == before[0].account.lines + 1 and after[0].account.holds()


@pytest.mark.parametrize(("meta", "want"), [
    (b'{"agentType":"Explore","spawnDepth":1}', "Explore"), (b'{"agentType":""}', None), (b"[1]", None),
    (b"not json", None), (b"", None), (b'{"agentType":"Plan","pad":"' + b"x" * 70000 + b'"}', None), (b'{"agentType":"Plan"}' + b" " * 70000, "Plan"),
    ("dir", None), ("fifo", None), (None, None),
], ids=lambda v: v[:20] if isinstance(v, bytes) else str(v))
def test_a_subagent_type_comes_from_its_meta_json_file_only(tmp_path: Path, meta: Any, want: str | None) -> None:
    """`agentType` of the `agent-<id>.meta.json` beside a subagent file (its first 64 KB, JSON);
    none from a missing, empty, malformed, non-regular (never waited on) or oversized file."""
    from sessionscope.core.read.adapters.claude import _agent_type

    path = tmp_path / "agent-a1.jsonl"
    target = tmp_path / "agent-a1.meta.json"
    if meta == "dir":
        target.mkdir()
    elif meta == "fifo":
        os.mkfifo(target)
    elif meta is not None:
        target.write_bytes(meta)
    assert _agent_type(str(path)) == want
    assert _agent_type(str(tmp_path / "agent-a1.json")) is None
