"""Codex adapter: every real rollout in the corpus, named facts about real samples, and synthetic
files for the eras and failure modes the corpus lacks (bare-header JSONL, TypeScript JSON, .zst,
forks, exec and subagent runs, garbage)."""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest
from helpers import CORPUS, NO_CORPUS, corpus_files

from sessionscope.core.read.adapters.base import read_head
from sessionscope.core.read.adapters.codex import CodexAdapter
from sessionscope.core.read.jsonl import ReaderError
from sessionscope.core.model import EntryKind, SessionKind

ADAPTER = CodexAdapter()
CODEX = CORPUS / "codex"
S058 = "codex-session-view__rollout-2025-11-17T15-30-28-019a93b9-f380-7600-98ff-940e6b99603c.jsonl"
S039 = "VibeCodingTracker__test_conversation_oai.jsonl"
S104 = "localpush__rollout-2026-02-23T12-40-23-019c8a4c-ed82-79a1-aa28-7738fc5ab61a.jsonl"
META_ONLY = "codex-session-view__example-session-metadata.jsonl"
TS = "2025-11-17T21:30:28.664Z"


# -- helpers ---------------------------------------------------------------------------------
def load_one(path: Path):
    [loaded] = ADAPTER.load(str(path))
    return loaded


def raw_records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_bytes().splitlines() if line.strip()]


def sub(rec: dict[str, Any]) -> tuple[str | None, str | None, str | None]:
    p = rec.get("payload") or {}
    return rec.get("type"), p.get("type"), p.get("role")


def write_jsonl(path: Path, records: list[Any]) -> Path:
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    return path


def w(typ: str, payload: dict[str, Any], ts: str = TS) -> dict[str, Any]:
    return {"timestamp": ts, "type": typ, "payload": payload}


def meta(**extra: Any) -> dict[str, Any]:
    payload = {"id": "019a0000-0000-7000-8000-000000000001", "timestamp": TS, "cwd": "/proj", **extra}
    return w("session_meta", payload)


def user_item(text: str) -> dict[str, Any]:
    return w("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]})


def assistant_item(text: str) -> dict[str, Any]:
    return w(
        "response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]}
    )


def event(typ: str, **fields: Any) -> dict[str, Any]:
    return w("event_msg", {"type": typ, **fields})


def kinds(loaded) -> list[tuple[str, EntryKind]]:
    return [(e.role, e.kind) for e in loaded.entries]


def assert_accounting(loaded) -> None:
    acc = loaded.account
    assert acc.holds(), acc
    assert acc.noise == len(loaded.noise)
    assert acc.malformed == len(loaded.malformed)
    ids = [e.id for e in loaded.entries]
    assert len(ids) == len(set(ids)), "entry ids must be unique"
    s = loaded.session
    assert (s.line_count, s.noise_count, s.malformed_count) == (acc.lines, acc.noise, acc.malformed)


# -- the whole corpus ------------------------------------------------------------------------
@pytest.mark.parametrize("path", corpus_files("codex"), ids=lambda p: p.name[:60])
def test_corpus_file_parses_with_accounting(path: Path) -> None:
    assert ADAPTER.sniff(str(path), read_head(str(path)))
    loaded = load_one(path)
    assert_accounting(loaded)
    lines = path.read_bytes().count(b"\n") + (0 if path.read_bytes().endswith(b"\n") else 1)
    assert loaded.account.lines == lines
    assert loaded.account.malformed == 0
    s = loaded.session
    assert s.agent == "codex" and s.source_format == "codex"
    assert s.id and s.project and s.git_branch == "main"
    assert not any(e.kind is EntryKind.UNKNOWN for e in loaded.entries)
    for e in loaded.entries:
        assert e.id in (f"L{e.locator.line}", *(f"L{e.locator.line}.{n}" for n in range(1, 9)))
        if e.kind is EntryKind.TOOL_RESULT:
            assert e.tool_use_id and e.tool_name, e


# -- named facts about real samples ------------------------------------------------------------
@pytest.mark.parametrize("name", [S058, S039])
def test_user_prompt_once_per_turn(corpus_dir: Path, name: str) -> None:
    path = corpus_dir / "codex" / name
    recs = raw_records(path)
    events = sum(1 for r in recs if sub(r)[:2] == ("event_msg", "user_message"))
    user_items = sum(1 for r in recs if sub(r) == ("response_item", "message", "user"))
    assert events >= 1 and user_items > events  # both streams, plus injected context
    loaded = load_one(path)
    prompts = [e for e in loaded.entries if (e.role, e.kind) == ("user", EntryKind.TEXT)]
    assert len(prompts) == events
    assert len([e for e in loaded.entries if e.role == "user" and e.kind is EntryKind.META]) == user_items - events
    assert "<environment_context>" not in loaded.session.title


def test_duplicate_streams_collapsed_across_corpus(corpus_dir: Path) -> None:
    for path in corpus_files("codex"):
        recs = raw_records(path)
        loaded = load_one(path)
        noise_lines = {loc.line for loc in loaded.noise}
        by_line = {i: sub(r) for i, r in enumerate(recs, 1)}
        # every user_message event has its response_item twin in these files: it is the noise one
        for line, key in by_line.items():
            if key[:2] == ("event_msg", "user_message"):
                assert line in noise_lines, (path.name, line)
        ev_msgs = sum(1 for k in by_line.values() if k[:2] == ("event_msg", "agent_message"))
        ri_msgs = sum(1 for k in by_line.values() if k == ("response_item", "message", "assistant"))
        texts = [e for e in loaded.entries if (e.role, e.kind) == ("assistant", EntryKind.TEXT)]
        assert len(texts) == max(ev_msgs, ri_msgs), path.name
        ev_reason = sum(1 for k in by_line.values() if k[:2] == ("event_msg", "agent_reasoning"))
        thinking = [e for e in loaded.entries if e.kind is EntryKind.THINKING]
        if ev_reason:
            assert len(thinking) == ev_reason, path.name
        user_items = sum(1 for k in by_line.values() if k == ("response_item", "message", "user"))
        assert len([e for e in loaded.entries if e.role == "user"]) <= user_items


def test_reasoning_twins_with_several_summary_parts(corpus_dir: Path) -> None:
    loaded = load_one(corpus_dir / "codex" / S058)
    recs = raw_records(corpus_dir / "codex" / S058)
    noise = {loc.line for loc in loaded.noise}
    # one reasoning item with three summary parts follows three agent_reasoning events
    multi = [i for i, r in enumerate(recs, 1) if sub(r)[1] == "reasoning" and len(r["payload"]["summary"]) == 3]
    assert multi and all(line in noise for line in multi)
    assert {e.locator.line for e in loaded.entries if e.kind is EntryKind.THINKING} == {
        i for i, r in enumerate(recs, 1) if sub(r)[:2] == ("event_msg", "agent_reasoning")
    }


def test_model_from_turn_context(corpus_dir: Path) -> None:
    s058 = load_one(corpus_dir / "codex" / S058)
    assert s058.session.models == ("gpt-5.1-codex",)
    assert {e.model for e in s058.entries if e.kind is EntryKind.TOOL_USE} == {"gpt-5.1-codex"}
    assert load_one(corpus_dir / "codex" / S039).session.models == ("aide-gpt-5",)
    assert load_one(corpus_dir / "codex" / S104).session.models == ("gpt-5.3-codex",)


@pytest.mark.parametrize("name", [S058, S039, S104])
def test_token_count_repeats_collapsed(corpus_dir: Path, name: str) -> None:
    path = corpus_dir / "codex" / name
    recs = raw_records(path)
    counts = [(i, r) for i, r in enumerate(recs, 1) if sub(r)[:2] == ("event_msg", "token_count")]
    totals = [r["payload"]["info"]["total_token_usage"] for _, r in counts if r["payload"].get("info")]
    final = totals[-1]
    naive = sum(r["payload"]["info"]["last_token_usage"]["total_tokens"] for _, r in counts if r["payload"].get("info"))
    loaded = load_one(path)
    usage = loaded.session.usage
    assert usage.total == final["total_tokens"]
    assert usage.cache_read == final["cached_input_tokens"]
    assert usage.input == final["input_tokens"] - final["cached_input_tokens"]
    assert usage.output == final["output_tokens"]
    if name != S039:  # 0.39 never repeated; the later ones do, and summing every event overcounts
        assert naive > usage.total
    noise = {loc.line for loc in loaded.noise}
    assert all(i in noise for i, _ in counts)


def test_session_metadata_of_real_sample(corpus_dir: Path) -> None:
    s = load_one(corpus_dir / "codex" / S058).session
    assert s.id == "019a93b9-f380-7600-98ff-940e6b99603c"
    assert s.project == "/home/user/projects/temp/chatbot-ui"
    assert s.kind is SessionKind.MAIN
    assert s.title and s.title.startswith("finish up the users work")
    assert s.first_timestamp is not None and s.last_timestamp > s.first_timestamp
    vs = load_one(corpus_dir / "codex" / S039).session
    assert vs.title and not vs.title.startswith("# Context from my IDE")  # IDE preamble stripped


def test_single_line_without_trailing_newline(corpus_dir: Path) -> None:
    path = corpus_dir / "codex" / META_ONLY
    data = path.read_bytes()
    assert not data.endswith(b"\n") and data.count(b"\n") == 0
    loaded = load_one(path)
    assert loaded.account.lines == 1 and loaded.account.noise == 1 and loaded.account.pending_bytes == 0
    assert loaded.entries == []
    assert loaded.session.id == "019ab22c-95af-7160-b11d-8f552d0ce721"
    assert loaded.session.project == "/home/user/projects/temp/codex-session-view"


def test_tool_calls_and_outputs(corpus_dir: Path) -> None:
    loaded = load_one(corpus_dir / "codex" / S058)
    uses = {e.tool_use_id: e for e in loaded.entries if e.kind is EntryKind.TOOL_USE}
    results = [e for e in loaded.entries if e.kind is EntryKind.TOOL_RESULT]
    assert uses and all(r.tool_use_id in uses and r.tool_name == uses[r.tool_use_id].tool_name for r in results)
    first = next(iter(uses.values()))
    assert first.tool_name == "shell" and first.text == "ls" and isinstance(first.tool_input, dict)
    errors = [r for r in results if r.is_error]
    assert errors and any("No such file or directory" in r.text for r in errors)
    assert not results[0].text.startswith('{"output"')  # the JSON wrapper is unpacked
    s104 = load_one(corpus_dir / "codex" / S104)
    names = {e.tool_name for e in s104.entries if e.kind is EntryKind.TOOL_USE}
    assert {"exec_command", "apply_patch", "web_search"} <= names


def test_does_not_claim_other_formats(corpus_dir: Path) -> None:
    for sub_dir in ("claude-code", "gemini", "pi", "copilot-cli"):
        for path in corpus_files(sub_dir, "*.json*"):
            assert not ADAPTER.sniff(str(path), read_head(str(path))), path.name


# -- synthetic: eras -------------------------------------------------------------------------
def test_early_rust_bare_header(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "rollout-2025-06-01T10-00-00-5973b6c0-94b8-487b-a530-2aeb6098ae0e.jsonl",
        [
            {"id": "5973b6c0-94b8-487b-a530-2aeb6098ae0e", "timestamp": "2025-06-01T10:00:00.000Z",
             "instructions": None, "git": {"commit_hash": "abc", "branch": "dev"}},
            {"record_type": "state"},
            {"type": "message", "role": "user",
             "content": [{"type": "input_text", "text": "<environment_context>\n<cwd>/work/x</cwd>\n</environment_context>"}]},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "fix the bug"}]},
            {"record_type": "state"},
            {"type": "reasoning", "summary": [], "encrypted_content": "gAAAA"},
            {"type": "function_call", "name": "shell", "arguments": '{"command":["bash","-lc","pytest -q"]}',
             "call_id": "c1"},
            {"type": "function_call_output", "call_id": "c1",
             "output": '{"output":"1 failed","metadata":{"exit_code":1,"duration_seconds":0.5}}'},
            {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "Fixed."}]},
        ],
    )
    assert ADAPTER.sniff(str(path), read_head(str(path)))
    loaded = load_one(path)
    assert_accounting(loaded)
    s = loaded.session
    assert s.id == "5973b6c0-94b8-487b-a530-2aeb6098ae0e" and s.git_branch == "dev"
    assert s.project == "/work/x"  # from the injected environment context
    assert s.title == "fix the bug"
    assert kinds(loaded) == [
        ("user", EntryKind.META),
        ("user", EntryKind.TEXT),
        ("assistant", EntryKind.TOOL_USE),
        ("tool", EntryKind.TOOL_RESULT),
        ("assistant", EntryKind.TEXT),
    ]
    use, result = loaded.entries[2], loaded.entries[3]
    assert use.text == "pytest -q" and use.tool_name == "shell"
    assert result.is_error and result.text == "1 failed" and result.tool_name == "shell"
    assert loaded.account.noise == 4  # header, two state markers, encrypted-only reasoning


def test_bare_header_cut_by_head_size_is_sniffed() -> None:
    head = b'{"id":"5973b6c0-94b8-487b-a530-2aeb6098ae0e","timestamp":"2025-06-01T10:00:00.000Z","instructions":"' + b"x" * 70000
    assert ADAPTER.sniff("rollout-x.jsonl", head[:65536])


def test_wrapped_session_meta_cut_by_head_size_is_sniffed() -> None:
    line = orjson.dumps(meta(base_instructions={"text": "y" * 100000}))
    assert ADAPTER.sniff("rollout-x.jsonl", line[:65536])
    assert ADAPTER.sniff("rollout-x.jsonl", b'{"timestamp":"2026-01-01T00:00:00Z","ordinal":0,"type":"session_meta","pay')


def ts_document() -> dict[str, Any]:
    return {
        "session": {"timestamp": "2025-04-20T10:00:00.000Z", "id": "0c9a1f52-3c2b-4bb0-9d61-1f4a3d9e8b77",
                    "instructions": "be brief"},
        "items": [
            {"id": "msg_1", "type": "message", "role": "user", "status": "completed",
             "content": [{"type": "input_text", "text": "list files"}]},
            {"id": "fc_1", "type": "function_call", "status": "completed", "name": "shell", "call_id": "call_1",
             "arguments": '{"command":["ls","-la"]}'},
            {"type": "function_call_output", "call_id": "call_1",
             "output": '{"output":"a.txt\\n","metadata":{"exit_code":0,"duration_seconds":0.1}}'},
            {"id": "msg_2", "type": "message", "role": "assistant", "status": "completed",
             "content": [{"type": "output_text", "text": "One file: a.txt"}]},
        ],
    }


def test_typescript_single_json_document(tmp_path: Path) -> None:
    path = tmp_path / "rollout-2025-04-20-0c9a1f52-3c2b-4bb0-9d61-1f4a3d9e8b77.json"
    text = json.dumps(ts_document(), indent=2)
    path.write_text(text)
    assert ADAPTER.sniff(str(path), read_head(str(path)))
    loaded = load_one(path)
    assert_accounting(loaded)
    assert loaded.account.lines == 5  # the session header and four items
    s = loaded.session
    assert s.id == "0c9a1f52-3c2b-4bb0-9d61-1f4a3d9e8b77" and s.title == "list files"
    assert [e.kind for e in loaded.entries] == [
        EntryKind.TEXT, EntryKind.TOOL_USE, EntryKind.TOOL_RESULT, EntryKind.TEXT
    ]
    lines = text.split("\n")
    data = text.encode()
    for e in loaded.entries:
        # the locator points at the line and byte where the item's JSON starts
        assert lines[e.locator.line - 1].strip() == "{"
        assert data[e.locator.offset : e.locator.offset + 1] == b"{"
        assert e.id == f"L{e.locator.line}"
        assert json.loads(data[e.locator.offset :].split(b"\n    }", 1)[0] + b"}")
    assert loaded.entries[1].text == "ls -la" and loaded.entries[2].text == "a.txt\n"


def test_typescript_minified_and_truncated(tmp_path: Path) -> None:
    mini = tmp_path / "rollout-2025-04-20-mini.json"
    mini.write_bytes(orjson.dumps(ts_document()))
    loaded = load_one(mini)
    assert_accounting(loaded)
    assert len(loaded.entries) == 4 and all(e.locator.line == 1 for e in loaded.entries)
    cut = tmp_path / "rollout-2025-04-20-cut.json"
    cut.write_bytes(json.dumps(ts_document(), indent=2).encode()[:300])  # mid-rewrite
    loaded = load_one(cut)
    assert_accounting(loaded)
    assert loaded.account.malformed == 1 and loaded.session.id.startswith("rollout-2025-04-20-cut")


def test_zst_reads_like_plain(tmp_path: Path, corpus_dir: Path) -> None:
    zstandard = pytest.importorskip("zstandard")
    src = corpus_dir / "codex" / S058
    path = tmp_path / (S058 + ".zst")
    path.write_bytes(zstandard.ZstdCompressor().compress(src.read_bytes()))
    assert ADAPTER.sniff(str(path), read_head(str(path)))
    plain, packed = load_one(src), load_one(path)
    assert_accounting(packed)
    assert [(e.id, e.kind, e.text) for e in packed.entries] == [(e.id, e.kind, e.text) for e in plain.entries]
    assert packed.session.usage == plain.session.usage


def test_zst_without_zstandard_is_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    zstandard = pytest.importorskip("zstandard")
    path = tmp_path / "rollout-2026-01-01T00-00-00-019a0000-0000-7000-8000-000000000001.jsonl.zst"
    path.write_bytes(zstandard.ZstdCompressor().compress(orjson.dumps(meta()) + b"\n"))
    monkeypatch.setitem(sys.modules, "zstandard", None)
    assert read_head(str(path)) == b""  # sniffing does not raise
    with pytest.raises(ReaderError, match=r"pip install"):
        ADAPTER.load(str(path))


def test_discover_prefers_plain_over_zst(tmp_path: Path) -> None:
    day = tmp_path / "sessions" / "2026" / "01" / "02"
    day.mkdir(parents=True)
    for name in ("rollout-a.jsonl", "rollout-a.jsonl.zst", "rollout-b.jsonl.zst", "rollout-c.json",
                 "history.jsonl", "notes.json"):
        (day / name).write_bytes(b"{}\n")
    found = sorted(Path(p).name for p in ADAPTER.discover(str(tmp_path)))
    assert found == ["rollout-a.jsonl", "rollout-b.jsonl.zst", "rollout-c.json"]


# -- synthetic: session kinds, forks, streams -----------------------------------------------
def test_exec_run_flagged(tmp_path: Path) -> None:
    p1 = write_jsonl(tmp_path / "rollout-1.jsonl", [meta(originator="codex_exec", source="exec")])
    p2 = write_jsonl(tmp_path / "rollout-2.jsonl", [meta(originator="codex_cli_rs", source="exec")])
    p3 = write_jsonl(tmp_path / "rollout-3.jsonl", [meta(originator="codex_exec")])
    for p in (p1, p2, p3):
        assert load_one(p).session.kind is SessionKind.EXEC


def test_subagent_and_link(tmp_path: Path) -> None:
    parent_id = "019a0000-0000-7000-8000-00000000000a"
    child = write_jsonl(
        tmp_path / "rollout-child.jsonl",
        [w("session_meta", {"id": "019a0000-0000-7000-8000-00000000000b", "timestamp": TS, "cwd": "/p",
                            "source": {"subagent": {"thread_spawn": {"parent_thread_id": parent_id, "depth": 1}}}})],
    )
    parent = write_jsonl(tmp_path / "rollout-parent.jsonl",
                         [w("session_meta", {"id": parent_id, "timestamp": TS, "cwd": "/p", "source": "cli"})])
    review = write_jsonl(tmp_path / "rollout-review.jsonl",
                         [w("session_meta", {"id": "r", "timestamp": TS, "source": {"subagent": "review"}})])
    c, p, r = load_one(child), load_one(parent), load_one(review)
    assert c.session.kind is SessionKind.SUBAGENT and c.session.parent_id == parent_id
    assert r.session.kind is SessionKind.SUBAGENT
    ADAPTER.link([c, p, r])
    assert p.session.child_ids == ("019a0000-0000-7000-8000-00000000000b",)


def test_forked_file_with_two_session_meta(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "rollout-fork.jsonl",
        [
            meta(id="019a0000-0000-7000-8000-0000000000f1", forked_from_id="019a0000-0000-7000-8000-0000000000f0",
                 git={"branch": "feature"}),
            w("session_meta", {"id": "019a0000-0000-7000-8000-0000000000f0", "timestamp": TS, "cwd": "/other",
                               "git": {"branch": "main"}}),
            user_item("parent question"),
            event("user_message", message="parent question"),
            assistant_item("parent answer"),
            user_item("fork question"),
            event("user_message", message="fork question"),
        ],
    )
    loaded = load_one(path)
    assert_accounting(loaded)
    s = loaded.session
    assert s.id == "019a0000-0000-7000-8000-0000000000f1"
    assert s.parent_id == "019a0000-0000-7000-8000-0000000000f0"
    assert (s.project, s.git_branch) == ("/proj", "feature")
    assert {loc.line for loc in loaded.noise} == {1, 2, 4, 7}
    assert [e.text for e in loaded.entries] == ["parent question", "parent answer", "fork question"]


def test_either_stream_alone_is_shown_whole(tmp_path: Path) -> None:
    items_only = write_jsonl(
        tmp_path / "rollout-items.jsonl",
        [meta(), user_item("q1"), assistant_item("a1"), user_item("q2"), assistant_item("a2")],
    )
    events_only = write_jsonl(
        tmp_path / "rollout-events.jsonl",
        [meta(), event("user_message", message="q1"), event("agent_reasoning", text="hmm"),
         event("agent_message", message="a1"), event("user_message", message="q2"),
         event("agent_message", message="a2")],
    )
    for path in (items_only, events_only):
        loaded = load_one(path)
        assert_accounting(loaded)
        texts = [e.text for e in loaded.entries if e.kind is EntryKind.TEXT]
        assert texts == ["q1", "a1", "q2", "a2"], path.name


def test_twins_with_differing_text_pair_by_position(tmp_path: Path) -> None:
    # a redacting exporter wrote the two streams differently; the twin is still recognised
    path = write_jsonl(
        tmp_path / "rollout-redacted.jsonl",
        [meta(), user_item("[REDACTED_TEXT len=5 sha=1]"), event("user_message", message="[REDACTED_MESSAGE len=5 sha=1]"),
         event("agent_message", message="[REDACTED_MESSAGE len=9 sha=2]"),
         assistant_item("[REDACTED_TEXT len=9 sha=2]"),
         w("response_item", {"type": "function_call", "name": "exec_command", "arguments": '{"cmd":"ls"}',
                             "call_id": "c"}),
         assistant_item("only in items")],
    )
    loaded = load_one(path)
    assert [e.locator.line for e in loaded.entries] == [2, 4, 6, 7]
    assert loaded.entries[2].text == "ls"


def test_compaction_abort_and_unknown(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "rollout-misc.jsonl",
        [
            meta(),
            user_item("go"),
            w("compacted", {"message": "summary of the work so far", "replacement_history": []}),
            event("context_compacted"),
            event("turn_aborted", reason="interrupted"),
            event("task_started", turn_id="t"),
            w("response_item", {"type": "ghost_snapshot", "ghost_commit": {"id": "x"}}),
            w("turn_context", {"cwd": "/proj", "model": "gpt-5"}),
            event("brand_new_event", x=1),
            w("brand_new_type", {"x": 1}),
            w("response_item", {"type": "brand_new_item"}),
            event("error", message="stream disconnected"),
        ],
    )
    loaded = load_one(path)
    assert_accounting(loaded)
    assert [(e.kind, e.raw_type) for e in loaded.entries] == [
        (EntryKind.TEXT, "response_item/message"),
        (EntryKind.COMPACTION, "compacted"),
        (EntryKind.SYSTEM, "event_msg/turn_aborted"),
        (EntryKind.UNKNOWN, "event_msg/brand_new_event"),
        (EntryKind.UNKNOWN, "brand_new_type"),
        (EntryKind.UNKNOWN, "response_item/brand_new_item"),
        (EntryKind.SYSTEM, "event_msg/error"),
    ]
    assert loaded.entries[1].text == "summary of the work so far"
    assert loaded.entries[2].text == "Turn aborted (interrupted)"
    assert loaded.entries[-1].is_error
    assert {loc.line for loc in loaded.noise} == {1, 4, 6, 7, 8}


def test_newer_tool_shapes(tmp_path: Path) -> None:
    patch = "*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch\n"
    path = write_jsonl(
        tmp_path / "rollout-tools.jsonl",
        [
            meta(),
            w("response_item", {"type": "function_call", "name": "exec_command",
                                "arguments": '{"cmd":"cargo test","workdir":"/p"}', "call_id": "e1"}),
            w("response_item", {"type": "function_call_output", "call_id": "e1",
                                "output": "Chunk ID: 1\nWall time: 2s\nProcess exited with code 101\nOutput:\nerror"}),
            w("response_item", {"type": "custom_tool_call", "name": "apply_patch", "input": patch, "call_id": "p1",
                                "status": "completed"}),
            w("response_item", {"type": "custom_tool_call_output", "call_id": "p1",
                                "output": '{"output":"Success.","metadata":{"exit_code":0}}'}),
            w("response_item", {"type": "local_shell_call", "call_id": "l1", "status": "completed",
                                "action": {"type": "exec", "command": ["git", "status", "--short"]}}),
            w("response_item", {"type": "function_call_output", "call_id": "l1",
                                "output": [{"type": "input_text", "text": "M a"}]}),
            w("response_item", {"type": "web_search_call", "status": "completed",
                                "action": {"type": "search", "query": "zstd python"}}),
            w("response_item", {"type": "function_call", "name": "mcp__x__y", "arguments": "{not json",
                                "call_id": "m1"}),
            w("response_item", {"type": "function_call_output", "call_id": "m1",
                                "output": {"content": "boom", "success": False}}),
        ],
    )
    loaded = load_one(path)
    assert_accounting(loaded)
    e = loaded.entries
    assert (e[0].tool_name, e[0].text, e[0].tool_input["workdir"]) == ("exec_command", "cargo test", "/p")
    assert e[1].is_error and e[1].tool_name == "exec_command" and e[1].tool_use_id == "e1"
    assert (e[2].tool_name, e[2].text) == ("apply_patch", patch)
    assert not e[3].is_error and e[3].text == "Success." and e[3].tool_name == "apply_patch"
    assert (e[4].tool_name, e[4].text) == ("local_shell", "git status --short")
    assert e[5].text == "M a" and e[5].tool_name == "local_shell"
    assert (e[6].tool_name, e[6].text) == ("web_search", "zstd python")
    assert e[7].tool_input == "{not json" and e[7].text == "{not json"
    assert e[8].is_error and e[8].text == "boom" and e[8].tool_name == "mcp__x__y"


def test_token_count_synthetic(tmp_path: Path) -> None:
    def tc(total: int, last: int) -> dict[str, Any]:
        t = {"input_tokens": total, "cached_input_tokens": total // 2, "output_tokens": 10 * total // 100,
             "reasoning_output_tokens": 0, "total_tokens": total + 10 * total // 100}
        la = {"input_tokens": last, "cached_input_tokens": last // 2, "output_tokens": 10 * last // 100,
              "reasoning_output_tokens": 0, "total_tokens": last + 10 * last // 100}
        return event("token_count", info={"total_token_usage": t, "last_token_usage": la}, rate_limits={})

    path = write_jsonl(
        tmp_path / "rollout-tokens.jsonl",
        [meta(), event("token_count", info=None, rate_limits={}), tc(100, 100), tc(100, 100), tc(300, 200),
         tc(300, 200), tc(600, 300)],
    )
    loaded = load_one(path)
    u = loaded.session.usage
    assert (u.input, u.cache_read, u.output, u.total) == (300, 300, 60, 660)
    assert loaded.account.noise == 7


# -- garbage ---------------------------------------------------------------------------------
def test_garbage_and_shape_mismatches_never_raise(tmp_path: Path) -> None:
    lines = [
        orjson.dumps(meta()),
        b"not json at all",
        b'{"timestamp":"x","type":"event_msg","payload":{"type":"user_mess',  # truncated mid-file
        b"[1, 2, 3]",
        b"42",
        b"null",
        b'"a string"',
        b"",
        b'{"type":"response_item","payload":"not an object"}',
        b'{"type":"response_item","payload":{"type":"message","role":"user","content":{"odd":1}}}',
        b'{"type":"response_item","payload":{"type":"message","role":42,"content":[1,null,{"text":5}]}}',
        b'{"type":"response_item","payload":{"type":"function_call","name":null,"arguments":123,"call_id":[]}}',
        b'{"type":"response_item","payload":{"type":"function_call_output","call_id":{"x":1},"output":12.5}}',
        b'{"type":"response_item","payload":{"type":"reasoning","summary":"plain","content":[{"text":null}]}}',
        b'{"type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":"x","last_token_usage":[1]}}}',
        b'{"type":"event_msg","payload":{"type":"user_message","message":null,"images":"nope"}}',
        b'{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"Plan","text":"1. do"}}}',
        b'{"type":"event_msg","payload":{"type":["list"]}}',
        b'{"type":"turn_context","payload":{"model":["not","a","string"],"cwd":5}}',
        b'{"type":"session_meta","payload":{"id":7}}',
        b'{"timestamp":"2025-11-17T21:30:28Z","type":"event_msg","payload":{"type":"agent_message","message":"ok"}}'
        b'{"timestamp":"2025-11-17T21:30:29Z","type":"event_msg","payload":{"type":"agent_message","message":"two"}}',
        b"\xff\xfe invalid utf-8 \xc3",
        b'{"type":"compacted","payload":{"message":{"nested":true}}}',
        b'{"payload":{}}',
        b"{}",
    ]
    path = tmp_path / "rollout-garbage.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    loaded = load_one(path)
    assert_accounting(loaded)
    assert loaded.account.lines == len(lines)
    assert loaded.account.malformed == 3
    two = [e for e in loaded.entries if e.locator.line == 21]
    assert [e.id for e in two] == ["L21.1", "L21.2"] and [e.text for e in two] == ["ok", "two"]
    assert loaded.session.id == "019a0000-0000-7000-8000-000000000001"


def test_empty_and_unterminated_last_line(tmp_path: Path) -> None:
    empty = tmp_path / "rollout-empty.jsonl"
    empty.write_bytes(b"")
    loaded = load_one(empty)
    assert loaded.entries == [] and loaded.account.lines == 0
    growing = tmp_path / "rollout-growing.jsonl"
    growing.write_bytes(orjson.dumps(meta()) + b"\n" + orjson.dumps(user_item("hi")) + b"\n" + b'{"timestamp":"')
    loaded = load_one(growing)
    assert_accounting(loaded)
    assert loaded.account.lines == 2 and loaded.account.pending_bytes == len(b'{"timestamp":"')


def test_corpus_present_or_skipped_with_reason() -> None:
    if not CODEX.is_dir():
        pytest.skip(NO_CORPUS)
    assert len(corpus_files("codex")) >= 6


def _head_state(path: Path, fed_alone: bool) -> dict[str, Any]:
    """The state a CodexParser is left in by the lines of a file's 64 KB head: fed as the quick
    listing feeds them (`codex._feed`, no line objects, entries dropped) or through `convert`."""
    from sessionscope.core.read.adapters import codex
    from sessionscope.core.read.ends import Ends
    from sessionscope.core.read.jsonl import ParsedLine, RawLine, read_head_tail

    ends = Ends(str(path), read_head_tail(str(path)))
    parser = codex.CodexParser(str(path))
    for piece in ends.head_pieces():
        if fed_alone:
            codex._feed(parser, ends.head, piece)
        elif values := ends.head.values(piece):
            parser.convert(ParsedLine(RawLine(piece[0], 0, ends.head.buf[piece[0]:piece[1]]), values))
    return {**{name: getattr(parser, name) for name in codex.CodexParser._CARRIED},
            "first": parser._first_ts, "last": parser._last_ts, "kind": parser._kind()}


def test_quick_head_feeding_leaves_the_parser_as_convert_does(tmp_path: Path) -> None:
    """The quick listing feeds head lines to the parser without building their line objects (its
    entries are dropped): the metadata state it leaves is `convert`'s, on real rollouts and on
    records of odd shapes (several values on a line, records repeated or not JSON)."""
    odd = [meta(), b'{"timestamp": "2026-01-01T00:00:09Z", "type": "session_meta", "payload": {"id": "x2", "cwd": "/q"}} [1] '
           b'{"timestamp": "2026-01-01T00:00:10Z", "type": "turn_context", "payload": {"cwd": "/multi", "model": "m3"}}',
           w("turn_context", {"cwd": "/fallback", "model": "m2"}), b"not json",
           w("session_meta", {"id": "late", "source": {"subagent": {}}, "forked_from_id": 5}),
           {"timestamp": 7, "type": "event_msg", "payload": {"type": "user_message", "message": None, "images": 3}},
           w("event_msg", {"type": "user_message", "message": "  a prompt  "}, ts="2025-12-31T23:59:00Z")]
    path = tmp_path / "rollout-2026-01-01T00-00-00-odd.jsonl"
    path.write_bytes(b"\n".join(r if isinstance(r, bytes) else orjson.dumps(r) for r in odd) + b"\n")
    for p in [path, *corpus_files("codex")]:
        assert _head_state(p, True) == _head_state(p, False), p.name


@pytest.mark.parametrize(("fields", "want"), [
    ({"message": "see this", "images": ["data:image/png;base64,AAAA"], "local_images": []}, "see this\n[image]"),
    ({"message": "", "images": [], "local_images": ["/tmp/a.png", "", "/tmp/b.png"]}, "[image] [image]"),
    ({"message": "plain", "images": [], "local_images": []}, "plain"),
    ({"message": "odd", "images": "not a list", "local_images": None}, "odd"),
])
def test_prompt_event_images_show_as_placeholders(tmp_path: Path, fields: dict[str, Any], want: str) -> None:
    """A prompt event's attached images (`images`, `local_images`; empty ones skipped) follow its
    text as placeholders, in the title the quick listing reads too."""
    from sessionscope.core.read.listing import quick_meta

    path = write_jsonl(tmp_path / "rollout-2026-01-01T00-00-00-img.jsonl", [meta(), event("user_message", **fields)])
    loaded = load_one(path)
    assert [e.text for e in loaded.entries if e.role == "user"] == [want]
    assert loaded.session.title == quick_meta(path).title == " ".join(want.split())


@pytest.mark.parametrize("first", [
    meta(), meta(originator="codex_exec"), meta(source={"subagent": {"thread_spawn": {"parent_thread_id": "p"}}}),
    meta(thread_source="subagent", git={"branch": "b"}), meta(timestamp="2025-11-17T21:30:20Z"),
    meta(timestamp="2025-11-17T21:30:40+01:00"), meta(timestamp=1763415028000), meta(timestamp=None),
    meta(id=None), meta(cwd=""), {**meta(), "timestamp": "not a time"}, {**meta(), "timestamp": None},
    w("session_meta", "not an object"), w("turn_context", {"cwd": "/x"}), [meta()], [meta(), meta(cwd="/b")], ["x"],
])
def test_a_first_session_meta_read_without_the_parser_is_the_parsers(first: Any) -> None:
    """The quick listing reads a first line holding one session_meta with a cwd without building
    the parser (`_meta_line`): every attribute the listing asks of the parser is the parser's."""
    from sessionscope.core.read.adapters import codex
    from sessionscope.core.read.ends import Lines

    line = orjson.dumps(first[0]) + b" " + orjson.dumps(first[1]) if isinstance(first, list) and len(first) == 2 \
        else orjson.dumps(first[0] if isinstance(first, list) else first)
    lines = Lines(line + b"\n")
    lean = codex._meta_line(lines.values(lines.piece(0)))
    parser = codex.CodexParser("rollout-x.jsonl")
    codex._feed(parser, lines, lines.piece(0))
    if lean is None:
        simple = type(first) is dict and isinstance(first.get("payload"), dict) and first["payload"].get("cwd")
        assert not (simple and first.get("type") == "session_meta")
        return
    for name in codex._MetaLine.__slots__:
        assert getattr(lean, name) == getattr(parser, name), name
    assert lean._kind() == parser._kind()
