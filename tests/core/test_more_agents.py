"""GitHub Copilot CLI, pi and OpenCode: their adapters on the real files (../shared/corpus) and on
the fixtures under tests/data (OpenCode: none real exists; the fixtures follow its source)."""
from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
from pathlib import Path

import pytest
from helpers import CORPUS, DATA, NO_CORPUS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sessionscope.core.config import load_config
from sessionscope.core.model import EntryKind, Locator, SessionKind
from sessionscope.core.read.adapters import default_registry
from sessionscope.core.read.discovery import candidate_files, default_roots, resolve_roots
from sessionscope.core.read.listing import quick_meta
from sessionscope.core.read.resume import resume_command
from sessionscope.core.read.loading import raw_record

REG = default_registry()
COPILOT_JSONL = CORPUS / "copilot-cli" / "VibeCodingTracker__test_conversation_copilot.jsonl"
COPILOT_JSON = CORPUS / "copilot-cli" / "VibeCodingTracker__test_conversation_copilot.json"
PI_REAL = CORPUS / "pi" / "agent-history__pi__session-01.jsonl"
PI = DATA / "pi" / "--home-dev-projects-payments-api--" / "2025-12-02T09-00-00-000Z_0199f3a2-7c41-7d10-9a55-2b8e1f0c4d21.jsonl"
PI_V1 = DATA / "pi" / "2025-06-01T10-00-00-000Z_0a1b2c3d-0000-4000-8000-000000000001.jsonl"
CP_EVENTS = DATA / "copilot" / "session-state" / "5d2c8e1a-4b7f-4c3e-9a10-6f2e8d9c0b11" / "events.jsonl"
CP_LEGACY = DATA / "copilot" / "history-session-state" / "session_7e6f5a4b.json"
OC = DATA / "opencode"
OC_MAIN = OC / "storage/session/4b0ea68d7af9a6031a7ffda7ad66e0cb83315750/ses_4f2a9c1e3ffeQ8mNv2LkT0aBcD.json"
OC_SUB = OC / "storage/session/4b0ea68d7af9a6031a7ffda7ad66e0cb83315750/ses_4f2a9b70dffeK1pLw9XyZ3eFgH.json"
corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason=NO_CORPUS)


def load(path: Path):
    adapter = REG.sniff(str(path))
    assert adapter is not None, path
    return adapter, adapter.load(str(path))


def make_db(folder: Path, wal: bool = True) -> Path:
    db = folder / "opencode.db"
    con = sqlite3.connect(db)
    if wal:
        con.execute("PRAGMA journal_mode=WAL")
    con.executescript((OC / "opencode.sql").read_text())
    con.commit()
    con.close()
    return db


# -- Copilot CLI ------------------------------------------------------------------------------------

@corpus
def test_copilot_events_real_each_tool_call_once_and_tokens_from_shutdown() -> None:
    adapter, [ls] = load(COPILOT_JSONL)
    assert adapter.name == "copilot-cli"
    s = ls.session
    assert s.id == "96ef38f0-9d09-45c3-8124-6448c36090ed"
    assert (s.project, s.git_branch, s.models) == ("/home/wei/repo/VibeCodingTracker",
                                                   "refactor/gemini-copilot-new-formats", ("claude-sonnet-4.6",))
    uses = [e for e in ls.entries if e.kind is EntryKind.TOOL_USE]
    results = [e for e in ls.entries if e.kind is EntryKind.TOOL_RESULT]
    assert len(uses) == len(results) == 11  # requests and execution_start name each call: shown once
    assert {e.tool_use_id for e in uses} == {e.tool_use_id for e in results}
    # shutdown's modelMetrics: 186809 input of which 151738 cached reads
    assert (s.usage.input, s.usage.output, s.usage.cache_read) == (186809 - 151738, 2848, 151738)
    # the autopilot nudge (no content, only transformedContent) is not the user's prompt
    user = [e for e in ls.entries if e.role == "user"]
    assert [e.kind for e in user] == [EntryKind.TEXT, EntryKind.META]
    assert ls.account.holds() and ls.account.lines == 51 and ls.account.malformed == 0


@corpus
def test_copilot_legacy_real_timeline_read_chat_messages_noise() -> None:
    _, [ls] = load(COPILOT_JSON)
    assert ls.session.id == "06141331-92e8-4e9e-8bbb-9b7a729eb01a"
    # header + 148 chatMessages + 99 timeline records; the chat messages repeat the timeline
    assert (ls.account.lines, ls.account.noise, ls.account.malformed) == (248, 149, 0)
    assert sum(e.kind is EntryKind.TOOL_USE for e in ls.entries) == 59
    first_user = next(e for e in ls.entries if e.role == "user")
    assert "<current_datetime>" not in first_user.text  # the timeline's text, not the model's copy
    # each record's locator is where it starts in the pretty-printed file: the raw view reads it
    rec = raw_record(first_user.locator)
    assert rec.note is None and '"type": "user"' in rec.text


def test_copilot_events_fixture_quirks() -> None:
    _, [ls] = load(CP_EVENTS)
    kinds = [(e.role, e.kind.value) for e in ls.entries]
    assert ("assistant", "tool_use") in kinds  # an execution_start no request named
    result = next(e for e in ls.entries if e.kind is EntryKind.TOOL_RESULT)
    assert result.is_error and result.text == "exit code 1: 2 failed" and result.tool_name == "bash"
    assert any(e.kind is EntryKind.COMPACTION and "duplicate schedule" in e.text for e in ls.entries)
    assert any(e.is_error and e.kind is EntryKind.SYSTEM for e in ls.entries)
    assert ls.entries[-1].kind is EntryKind.UNKNOWN  # a future event type is kept, shown raw
    assert ls.session.id == "5d2c8e1a-4b7f-4c3e-9a10-6f2e8d9c0b11" and ls.session.git_branch == "fix/refunds"


def test_copilot_legacy_without_timeline_reads_chat_messages() -> None:
    _, [ls] = load(CP_LEGACY)
    assert [(e.role, e.kind.value) for e in ls.entries] == [
        ("user", "text"), ("assistant", "text"), ("assistant", "tool_use"), ("tool", "tool_result"),
        ("assistant", "text"), ("system", "unknown")]
    assert ls.entries[2].tool_input == {"command": "ls migrations"} and ls.entries[3].tool_name == "bash"
    assert ls.account.holds() and ls.account.lines == 6


# -- pi ---------------------------------------------------------------------------------------------

@corpus
def test_pi_real_session() -> None:
    adapter, [ls] = load(PI_REAL)
    assert adapter.name == "pi"
    s = ls.session
    assert (s.title, s.project, s.models) == ("agent-history pi smoke", "/tmp/agent-history-real-agent/pi/workspace",
                                              ("gpt-5.5",))
    assert [e.role for e in ls.entries] == ["user", "assistant"] and s.usage.input == 433
    assert (ls.account.lines, ls.account.noise) == (6, 4)


def test_pi_branches_tools_and_accounting() -> None:
    _, [ls] = load(PI)
    s = ls.session
    assert s.title == "Refund job runs twice"  # session_info wins over the first prompt
    by_id = {e.id: e for e in ls.entries}
    # the reply after the tool call is on the branch the user rewound from (/tree)
    assert not by_id["a1000005"].on_active_branch and not by_id["a1000004"].on_active_branch
    assert by_id["a1000002"].on_active_branch and by_id["a1000007"].on_active_branch
    assert by_id["a1000003.2"].kind is EntryKind.TOOL_USE and by_id["a1000003"].kind is EntryKind.THINKING
    bash = by_id["a1000007.1"]
    assert bash.kind is EntryKind.TOOL_RESULT and bash.tool_use_id == by_id["a1000007"].tool_use_id
    assert by_id["a1000008"].kind is EntryKind.COMPACTION and by_id["a1000006"].kind is EntryKind.SUMMARY
    assert by_id["a100000a"].is_error
    assert s.usage.input == 1210 and s.usage.cache_read == 8900
    assert ls.account.holds() and ls.account.malformed == 1


def test_pi_v1_without_ids() -> None:
    _, [ls] = load(PI_V1)
    assert [e.id for e in ls.entries] == ["L2", "L3", "L4"]
    assert ls.entries[1].kind is EntryKind.META  # v2's hookMessage (v3: custom)


# -- OpenCode -----------------------------------------------------------------------------------------

def test_opencode_tree_reads_messages_and_parts_beside_the_session() -> None:
    adapter, [ls] = load(OC_MAIN)
    assert adapter.name == "opencode" and not adapter.grows(str(OC_MAIN))
    s = ls.session
    assert (s.title, s.project, s.kind) == ("Fix the flaky webhook retry test", "/home/dev/projects/payments-api",
                                           SessionKind.MAIN)
    assert ls.account.holds() and (ls.account.lines, ls.account.noise, ls.account.malformed) == (16, 6, 1)
    kinds = [e.kind for e in ls.entries]
    assert kinds.count(EntryKind.TOOL_USE) == 3 and kinds.count(EntryKind.TOOL_RESULT) == 3
    failed = next(e for e in ls.entries if e.kind is EntryKind.TOOL_RESULT and e.is_error)
    assert failed.tool_name == "bash" and "1 failed" in failed.text
    assert s.usage.output == 340 + 60 + 120  # reasoning counted as output
    # each entry's locator is its part file; the raw view shows that record
    part = next(e for e in ls.entries if e.kind is EntryKind.THINKING)
    assert part.locator.path.endswith("prt_b0d5a6c2e003Bc2.json")
    assert '"reasoning"' in raw_record(part.locator).text
    _, [sub] = load(OC_SUB)
    assert sub.session.kind is SessionKind.SUBAGENT and sub.session.parent_id == s.id


def test_opencode_database_read_only_never_writes(tmp_path: Path) -> None:
    db = make_db(tmp_path)
    before = (hashlib.sha1(db.read_bytes()).hexdigest(), db.stat().st_mtime_ns, sorted(os.listdir(tmp_path)))
    adapter, loaded = load(db)
    assert {ls.session.id for ls in loaded} == {"ses_4f2a9c1e3ffeQ8mNv2LkT0aBcD", "ses_4f2a9b70dffeK1pLw9XyZ3eFgH"}
    main = next(ls for ls in loaded if ls.session.kind is SessionKind.MAIN)
    assert main.account.holds() and main.account.malformed == 1  # a row whose data is cut off
    [one] = adapter.load_session(str(db), "ses_4f2a9b70dffeK1pLw9XyZ3eFgH")
    assert one.session.parent_id == main.session.id
    err = next(e for e in one.entries if e.is_error)
    assert err.text == "The operation was aborted." and raw_record(err.locator).text.count("MessageAbortedError") == 1
    quick = quick_meta(db, REG)
    assert quick.error is None and quick.session_id == "ses_4f2a9c1e3ffeQ8mNv2LkT0aBcD"
    after = (hashlib.sha1(db.read_bytes()).hexdigest(), db.stat().st_mtime_ns, sorted(os.listdir(tmp_path)))
    assert after == before  # no -wal/-shm created, not a byte written


def test_opencode_database_while_the_agent_holds_it_open(tmp_path: Path) -> None:
    """OpenCode running: its WAL holds rows not yet checkpointed; they are read."""
    db = make_db(tmp_path)
    writer = sqlite3.connect(db)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("PRAGMA wal_autocheckpoint=0")
    writer.execute("UPDATE session SET title = 'renamed while open' WHERE id = 'ses_4f2a9c1e3ffeQ8mNv2LkT0aBcD'")
    writer.commit()
    try:
        assert (tmp_path / "opencode.db-wal").exists()
        _, loaded = load(db)
        assert "renamed while open" in {ls.session.title for ls in loaded}
    finally:
        writer.close()


def test_opencode_database_is_a_root(tmp_path: Path) -> None:
    db = make_db(tmp_path)
    [root] = resolve_roots([str(db)])
    assert root.error is None and list(candidate_files(root, REG)) == [str(db)]
    (tmp_path / "other.db").write_bytes(b"not sqlite")
    [bad] = resolve_roots([str(tmp_path / "other.db")])
    assert bad.error and "not a directory" in bad.error


# -- quick listing, resume, roots -------------------------------------------------------------------

@pytest.mark.parametrize("path", [PI, PI_V1, CP_EVENTS, CP_LEGACY, OC_MAIN, OC_SUB], ids=lambda p: p.name[:30])
def test_quick_listing_agrees_with_the_full_parse(path: Path) -> None:
    q = quick_meta(path, REG)
    _, loaded = load(path)
    s = loaded[0].session
    assert q.error is None and q.agent == s.agent
    for field in ("session_id", "kind", "project", "title", "first_timestamp", "last_timestamp"):
        if field not in q.unsure:
            assert getattr(q, field) == getattr(s, "id" if field == "session_id" else field), field


@corpus
@pytest.mark.parametrize("path", [COPILOT_JSONL, COPILOT_JSON, PI_REAL], ids=lambda p: p.suffix)
def test_quick_listing_real(path: Path) -> None:
    q = quick_meta(path, REG)
    s = load(path)[1][0].session
    assert q.error is None
    for field in ("session_id", "kind", "project", "title", "first_timestamp"):
        if field not in q.unsure:
            assert getattr(q, field) == getattr(s, "id" if field == "session_id" else field), field


def quick_vs_full(path: Path) -> tuple:
    """(the quick listing of `path`, its full parse's session)."""
    return quick_meta(path, REG), load(path)[1][0].session


def test_pi_title_is_the_last_session_info_whatever_its_spacing(tmp_path: Path) -> None:
    """A whole pi file's title is the last `session_info` name (the full parse's), found by one
    scan for the quoted type: any spacing around its key, never another key's value or a mention
    inside a string."""
    lines = PI.read_bytes().rstrip(b"\n").split(b"\n")
    named = [b'{"type" : "session_info" ,"name": "Spaced out", "id": "n1", "timestamp": "2025-12-02T09:00:06.000Z"}',
             b'{"note": "session_info", "type": "label", "id": "n2", "timestamp": "2025-12-02T09:00:07.000Z"}',
             b'{"type": "custom", "data": "say \\"session_info\\" here", "id": "n3", "timestamp": "2025-12-02T09:00:08.000Z"}']
    target = tmp_path / "--home-dev-p--" / PI.name
    target.parent.mkdir()
    target.write_bytes(b"\n".join([*lines[:-1], named[0], lines[-1], *named[1:]]) + b"\n")
    q, s = quick_vs_full(target)
    assert q.whole and "title" not in q.unsure
    assert q.title == s.title == "Spaced out"
    # mentions only, after the fixture's own session_info: its name stays; without it, the prompt
    target.write_bytes(b"\n".join([*lines, *named[1:]]) + b"\n")
    q, s = quick_vs_full(target)
    assert q.title == s.title == "Refund job runs twice"
    target.write_bytes(b"\n".join([*(x for x in lines if b"session_info" not in x), *named[1:]]) + b"\n")
    q, s = quick_vs_full(target)
    assert q.title == s.title == "Why does the refund job run twice?"


def copilot_heads(path: Path) -> tuple:
    """(what the quick listing reads from the head of a Copilot events file without the parser,
    what the parser fed the same lines makes of it)."""
    from sessionscope.core.read.adapters import copilot
    from sessionscope.core.read.ends import Ends
    from sessionscope.core.read.jsonl import read_head_tail

    ends = Ends(str(path), read_head_tail(str(path)))
    return copilot._head_events(ends.head_values()), copilot._head_parsed(copilot.CopilotParser(str(path)), ends)


@pytest.mark.parametrize("path", [CP_EVENTS, *([COPILOT_JSONL] if CORPUS.is_dir() else [])], ids=lambda p: p.name[:30])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(inserts=st.lists(st.tuples(st.integers(0, 8), st.sampled_from([
    b'{"type": "session.start", "data": {"sessionId": "other", "context": {"gitRoot": "/g"}}, "id": "x1", "timestamp": "2025-12-01T00:00:00Z"}',
    b'{"type": "session.start", "data": {"context": {"cwd": ""}}, "id": "x2", "timestamp": 5}',
    b'{"type": "user.message", "data": {"content": "  \\t "}, "id": "x3", "timestamp": "2025-12-03T07:00:00.000Z"}',
    b'{"type": "user.message", "data": {"content": " first\\n  words "}, "id": "x4", "timestamp": "2025-12-03T07:59:00.000Z"}',
    b'{"type": "user.message", "data": {"transformedContent": "injected"}, "id": "x5", "timestamp": "2025-12-03T08:00:00Z"}',
    b'{"type": "user.message", "data": {"content": "no id"}, "timestamp": "2025-12-03T08:00:00Z"}',
    b'{"type": "assistant.message", "data": {"content": "hi"}, "id": "x6", "timestamp": "2025-12-02T08:00:00Z"} {"type": "user.message", "data": {"content": "second value"}, "id": "x7", "timestamp": "x"}',
    b'{"_legacy": "header", "item": {"sessionId": "legacy-id", "startTime": "2025-11-30T00:00:00Z"}}',
    b"not json", b"", b"[1, 2]"])), max_size=4))
def test_copilot_head_read_without_the_parser_is_the_parsers(path: Path, tmp_path: Path, inserts: list) -> None:
    """The quick listing reads a Copilot head's session id, project, prompt title and first time
    without building the parser's entries: the same four the parser fed those lines gives, and the
    whole listing still agrees with the full parse (a line shaped like a legacy document's part
    included: an unknown record to both)."""
    lines = path.read_bytes().rstrip(b"\n").split(b"\n")
    for pos, line in sorted(inserts, reverse=True):
        lines.insert(pos, line)
    target = tmp_path / "session-state" / "5d2c8e1a" / "events.jsonl"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(b"\n".join(lines) + b"\n")
    lean, parsed = copilot_heads(target)
    assert lean == parsed
    if REG.sniff(str(target)) is REG.by_name("copilot-cli"):
        q, s = quick_vs_full(target)  # (the listing's sniffer sees 3 lines, the full scan's 8)
        for field in ("session_id", "kind", "project", "title") if q.error is None else ():
            assert getattr(q, field) == getattr(s, "id" if field == "session_id" else field), field


def test_a_line_shaped_like_a_legacy_part_gives_an_events_file_no_other_id(tmp_path: Path) -> None:
    """The parser is fed a legacy document's parts as `_LegacyPart`s, which no JSON line makes:
    an events line written as one (a `_legacy` key, naming another session's id) is an unknown
    record, where it set the session's id and start (a hostile file could take another's id)."""
    own = load(CP_EVENTS)[1][0].session
    for at in (1, 40):
        lines = CP_EVENTS.read_bytes().rstrip(b"\n").split(b"\n")
        lines.insert(at, b'{"_legacy": "header", "item": {"sessionId": "legacy-id", "startTime": "2025-11-30T00:00:00Z"}}')
        target = tmp_path / str(at) / "session-state" / "5d2c8e1a" / "events.jsonl"
        target.parent.mkdir(parents=True)
        target.write_bytes(b"\n".join(lines) + b"\n")
        lean, parsed = copilot_heads(target)
        assert lean == parsed and parsed[0] == own.id
        q, s = quick_vs_full(target)
        assert (q.session_id, q.first_timestamp) == (s.id, s.first_timestamp) == (own.id, own.first_timestamp)


def test_resume_commands() -> None:
    cmds = {}
    for path in (PI, CP_EVENTS, OC_MAIN):
        s = load(path)[1][0].session
        cmds[s.agent] = resume_command(s).argv
    assert cmds == {"pi": ("pi", "--session", "0199f3a2-7c41-7d10-9a55-2b8e1f0c4d21"),
                    "copilot-cli": ("copilot", "--resume", "5d2c8e1a-4b7f-4c3e-9a10-6f2e8d9c0b11"),
                    "opencode": ("opencode", "--session", "ses_4f2a9c1e3ffeQ8mNv2LkT0aBcD")}
    main = load(OC_MAIN)[1][0].session
    sub = load(OC_SUB)[1][0].session
    assert resume_command(sub, main).argv[-1] == main.id  # a subagent run resumes its parent


def test_default_roots_env_and_config_homes(tmp_path: Path) -> None:
    env = {"PI_CODING_AGENT_DIR": "/x/pi", "XDG_DATA_HOME": "/x/data", "XDG_CONFIG_HOME": "/x/conf"}
    roots = {(r.origin, r.path) for r in default_roots(env, tmp_path, {"copilot": "/y/cop", "opencode": "/y/oc"})}
    for want in [("pi", str(tmp_path / ".pi/agent/sessions")), ("pi", "/x/pi/sessions"),
                 ("copilot-cli", str(tmp_path / ".copilot/session-state")), ("copilot-cli", "/x/conf/.copilot/session-state"),
                 ("copilot-cli", "/y/cop/history-session-state"), ("opencode", "/x/data/opencode/opencode.db"),
                 ("opencode", "/y/oc/storage/session"), ("opencode", str(tmp_path / ".local/share/opencode/opencode.db"))]:
        assert want in roots, want
    cfg = tmp_path / "c.toml"
    cfg.write_text('pi_home = "~/pi-elsewhere"\ncopilot_home = 5\n')
    config = load_config(cfg)
    assert config.agent_homes == (("pi", os.path.expanduser("~/pi-elsewhere")),)
    assert any("copilot_home" in w for w in config.warnings) and not any("unknown" in w for w in config.warnings)


# -- junk: counted, shown, never a crash ------------------------------------------------------------

junk = st.one_of(
    st.binary(max_size=60).map(lambda b: b.replace(b"\n", b" ")),
    st.sampled_from([b"{", b"[]", b"null", b'{"type": 5}', b'{"type":"message","message":7}',
                     b'{"type":"message","id":"z","message":{"role":"assistant","content":[1,{"type":null}]}}',
                     b'{"type":"tool.execution_complete","data":{"result":[]},"id":1,"timestamp":"x"}',
                     b'{"type":"assistant.message","data":{"toolRequests":{}},"id":"q","timestamp":3}',
                     b'{"type":"session","id":"other"}', b"\xef\xbb\xbf{}", b"\xff\xfe"]),
)


@pytest.mark.parametrize("path", [PI, PI_V1, CP_EVENTS], ids=lambda p: p.name[:30])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(inserts=st.lists(st.tuples(st.integers(1, 20), junk), max_size=5))
def test_junk_lines_are_counted_never_raise(path: Path, tmp_path: Path, inserts: list) -> None:
    lines = path.read_bytes().rstrip(b"\n").split(b"\n")
    for pos, garbage in sorted(inserts, reverse=True):
        lines.insert(min(pos, len(lines)), garbage)
    target = tmp_path / "s.jsonl"
    target.write_bytes(b"\n".join(lines) + b"\n")
    adapter = REG.by_name(REG.sniff(str(path)).name)
    [ls] = adapter.load(str(target))
    assert ls.account.holds() and ls.account.lines == len(lines)
    assert quick_meta(target, REG).error is None


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(blobs=st.lists(junk, min_size=1, max_size=4), as_rows=st.booleans())
def test_opencode_junk_records_are_counted(tmp_path_factory: pytest.TempPathFactory, blobs: list, as_rows: bool) -> None:
    tmp = tmp_path_factory.mktemp("oc")
    if as_rows:
        db = make_db(tmp, wal=False)
        con = sqlite3.connect(db)
        for i, blob in enumerate(blobs):
            con.execute("INSERT INTO part VALUES (?, 'msg_b0d5a6c3f001Zs3', 'ses_4f2a9c1e3ffeQ8mNv2LkT0aBcD', 1, 1, ?)",
                        (f"prt_zz{i}", blob.decode("utf-8", "replace")))
        con.commit()
        con.close()
        loaded = REG.by_name("opencode").load(str(db))
        main = next(ls for ls in loaded if ls.session.id.startswith("ses_4f2a9c"))
        extra = len(blobs)
    else:
        shutil.copytree(OC / "storage", tmp / "storage")
        folder = tmp / "storage/part/msg_b0d5a6c3f001Zs3"
        for i, blob in enumerate(blobs):
            (folder / f"prt_zz{i}.json").write_bytes(blob)
        [main] = REG.by_name("opencode").load(str(tmp / OC_MAIN.relative_to(OC)))
        extra = len(blobs)
    assert main.account.holds() and main.account.lines == 16 + extra


# -- formats rewritten in place: re-read whole, never continued from an old offset ----------------

def _legacy_doc(texts: list[str]) -> bytes:
    import json

    timeline = [{"id": f"t{i}", "timestamp": f"2025-10-11T11:4{i}:00.000Z", "type": "user" if i == 0 else "copilot",
                 "text": t} for i, t in enumerate(texts)]
    return json.dumps({"sessionId": "0b0b0b0b-1111-4222-8333-444444444444", "startTime": "2025-10-11T11:40:00.000Z",
                       "chatMessages": [{"role": "user", "content": "x" * 5000}], "timeline": timeline},
                      indent=4).encode()


def test_a_rewritten_document_is_read_whole_by_the_watcher_and_the_index(tmp_path: Path) -> None:
    from sessionscope.core.catalog.library import Library
    from sessionscope.core.catalog.store import Catalog
    from sessionscope.core.live.tracker import Change, Tracker
    from sessionscope.core.read.discovery import Root
    from sessionscope.core.search.index import SearchIndex

    root = tmp_path / "root"
    root.mkdir()
    lib = Library([Root(str(root), "--root", explicit=True)], catalog=Catalog(tmp_path / "c.sqlite"))
    lib.scan()
    tracker, index = Tracker(lib), SearchIndex(tmp_path / "index")
    doc = root / "session.json"
    doc.write_bytes(_legacy_doc(["look at the refunds", "refunds run twice"]))
    (ev,) = tracker.apply([str(doc)])
    assert ev.kind is Change.CREATED
    index.update(lib)
    # Copilot rewrites the whole document: same first bytes, longer file
    doc.write_bytes(_legacy_doc(["look at the refunds", "refunds run twice", "fixed the scheduler"]))
    (ev,) = tracker.apply([str(doc)])
    assert ev.kind is Change.REWRITTEN
    s = lib.get("0b0b0b0b-1111-4222-8333-444444444444")
    assert (s.entry_count, s.malformed_count) == (3, 0)
    index.update(lib)
    hits = index.search("scheduler").hits
    assert [(h.kind, h.entry_id) for h in hits] == [("text", "t2")]  # not lines of the JSON as malformed records
    assert len(index.search("refunds").hits) == 2


def test_opencode_task_call_opens_its_subagent_session_and_unknown_parts_say_their_type(tmp_path: Path) -> None:
    from sessionscope.core.catalog.library import Library
    from sessionscope.core.catalog.store import Catalog
    from sessionscope.core.read.discovery import Root
    from sessionscope.core.read.subagents import match_subagent, subagent_children
    from sessionscope.core.read.transcript import Transcript

    db = make_db(tmp_path)
    lib = Library([Root(str(db), "--root", explicit=True)], catalog=Catalog(None))
    lib.scan()
    main = lib.get("ses_4f2a9c1e3ffeQ8mNv2LkT0aBcD")
    assert main.child_ids == ("ses_4f2a9b70dffeK1pLw9XyZ3eFgH",)
    t = Transcript(main.project)
    entries = lib.load(main).entries
    t.add(entries)
    [call] = [i for i in t.items if i.is_subagent_call]
    assert match_subagent(call, subagent_children(lib, main)).id == "ses_4f2a9b70dffeK1pLw9XyZ3eFgH"
    assert next(e for e in entries if e.kind is EntryKind.UNKNOWN).raw_type == "hologram"


def test_copilot_pi_opencode_instruction_files_join_the_memory(tmp_path: Path) -> None:
    from sessionscope.core.memory.agent import INSTRUCTIONS, discover_memory

    proj, home = tmp_path / "p", tmp_path / "home"
    for rel in (".github/copilot-instructions.md", ".github/instructions/api.instructions.md",
                ".github/instructions/notes.md", ".github/workflows/ci.md"):
        (proj / rel).parent.mkdir(parents=True, exist_ok=True)
        (proj / rel).write_text(f"# {rel}\n")
    for rel in (".copilot/copilot-instructions.md", ".pi/agent/AGENTS.md", ".config/opencode/AGENTS.md"):
        (home / rel).parent.mkdir(parents=True, exist_ok=True)
        (home / rel).write_text(f"# {rel}\n")
    items = discover_memory([str(proj)], [], home=str(home))
    assert all(i.kind == INSTRUCTIONS for i in items)
    assert sorted(os.path.relpath(i.path, tmp_path) for i in items) == [
        "home/.config/opencode/AGENTS.md", "home/.copilot/copilot-instructions.md", "home/.pi/agent/AGENTS.md",
        "p/.github/copilot-instructions.md", "p/.github/instructions/api.instructions.md"]


def test_cli_reads_an_agent_home_from_the_config_and_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from helpers import isolate

    from sessionscope.cli.main import main

    isolate(tmp_path, monkeypatch, config="config.toml")
    pi_home = tmp_path / "elsewhere" / "agent"
    shutil.copytree(DATA / "pi", pi_home / "sessions")
    (tmp_path / "config.toml").write_text(f'pi_home = "{pi_home}"\n')
    oc_data = tmp_path / "xdg-data"
    (oc_data / "opencode").mkdir(parents=True)
    make_db(oc_data / "opencode", wal=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(oc_data))
    assert main(["sessions", "--json"]) == 0
    listed = {(s["agent_id"], s["session_id"]) for s in json.loads(capsys.readouterr().out)["sessions"]}
    assert ("pi", "0199f3a2-7c41-7d10-9a55-2b8e1f0c4d21") in listed
    assert ("opencode", "ses_4f2a9c1e3ffeQ8mNv2LkT0aBcD") in listed


json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(
                               ["type", "role", "text", "content", "id", "result", "tool_calls", "name"]), inner,
                               max_size=4), max_leaves=8)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(chat=st.lists(json_values, max_size=4), timeline=st.lists(json_values, max_size=4))
def test_copilot_legacy_document_with_junk_records(tmp_path_factory: pytest.TempPathFactory, chat: list,
                                                   timeline: list) -> None:
    import json

    doc = json.loads(CP_LEGACY.read_text())
    doc["chatMessages"] += chat
    doc["timeline"] = timeline
    target = tmp_path_factory.mktemp("cp") / "legacy.json"
    target.write_text(json.dumps(doc, indent=4))
    [ls] = REG.by_name("copilot-cli").load(str(target))
    assert ls.account.holds() and ls.account.lines == 1 + len(doc["chatMessages"]) + len(timeline)
    assert ls.account.malformed == 0


# -- the quick listing of a database: the newest session's times from its rows' JSON ---------------

_TIMES = st.sampled_from([1764590600000, 1764590000000, 1764700000000, 1764590700.5, 1764590650, 0, -5, True,
                          10 ** 15, "2025-12-01T12:00:00Z", "2025-12-01T11:00:00+01:00", "soon", None, [1]])
_MESSAGE = st.one_of(
    st.tuples(st.sampled_from(["user", "assistant", "system"]), _TIMES, _TIMES).map(
        lambda r: {"role": r[0], "time": {"created": r[1], "completed": r[2]}}),
    st.sampled_from([{"role": "user"}, {"role": "user", "time": 5}, {"role": "assistant", "time": {}}]),
    st.sampled_from(["not json", "[]", "null", ""]),
)
_PART = st.one_of(
    st.tuples(st.sampled_from(["text", "reasoning", "step-start", "snapshot", "file", "compaction", "odd", 7]),
              _TIMES).map(lambda r: {"type": r[0], "text": "t", "time": {"start": r[1]}}),
    st.tuples(st.sampled_from(["completed", "error", "running", None]), _TIMES, _TIMES, _TIMES).map(
        lambda r: {"type": "tool", "tool": "bash", "time": {"start": r[3]},
                   "state": {"status": r[0], "input": {}, "output": "o", "time": {"start": r[1], "end": r[2]}}}),
    st.sampled_from([{"type": ["unhashable"], "time": {"start": 1764590999999}}, {"type": "tool", "state": 3},
                     {"type": "tool", "state": {"status": "completed", "time": [1]}}, {"type": "text"}, "{"]),
)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(messages=st.lists(st.tuples(_MESSAGE, st.sampled_from([1764590100000, 1764591999000, 5]),
                                   st.lists(_PART, max_size=3)), max_size=6),
       orphans=st.lists(_PART, max_size=2), title=st.sampled_from(["Named", ""]), parent=st.booleans())
def test_quick_listing_of_a_database_is_its_newest_sessions_full_parse(
        tmp_path_factory: pytest.TempPathFactory, messages: list, orphans: list, title: str, parent: bool) -> None:
    """Message and part rows of every shape the parser notes times from (or passes over: noise
    parts, rows that are not JSON objects, values that are no time or out of range), with and
    without a title: the listing of the newest session is its full parse."""
    import json

    db = make_db(tmp_path_factory.mktemp("ocq"), wal=False)
    con = sqlite3.connect(db)
    con.execute("INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, time_created,"
                " time_updated) VALUES ('ses_new', 'p', ?, 's', '/home/dev/x', ?, '1.2.0', 1764590500000,"
                " 1764599999000)", ("ses_4f2a9c1e3ffeQ8mNv2LkT0aBcD" if parent else None, title))

    def data(value: object) -> str:
        return value if isinstance(value, str) else json.dumps(value)

    for i, (message, created, parts) in enumerate(messages):
        con.execute("INSERT INTO message VALUES (?, 'ses_new', ?, ?, ?)", (f"msg_{i}", created, created, data(message)))
        for j, part in enumerate(parts):
            con.execute("INSERT INTO part VALUES (?, ?, 'ses_new', 1, 1, ?)", (f"prt_{i}_{j}", f"msg_{i}", data(part)))
    for j, part in enumerate(orphans):
        con.execute("INSERT INTO part VALUES (?, 'msg_gone', 'ses_new', 1, 1, ?)", (f"prt_o{j}", data(part)))
    con.commit()
    con.close()
    q = quick_meta(db, REG)
    s = next(ls.session for ls in REG.by_name("opencode").load(str(db)) if ls.session.id == "ses_new")
    assert q.error is None and q.unsure == frozenset()
    assert (q.session_id, q.kind, q.project, q.title, q.first_timestamp, q.last_timestamp) == (
        s.id, s.kind, s.project, s.title, s.first_timestamp, s.last_timestamp)


_SESSION_VALUES = st.sampled_from([None, "", "x", 5, "ses_sub", "/home/dev/p", " A  title\\n", [1]])
_SESSION_TIME = st.one_of(
    st.fixed_dictionaries({}, optional={"created": _TIMES, "updated": _TIMES}), st.sampled_from([None, 7, "t"]))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(info=st.fixed_dictionaries({"id": st.sampled_from(["ses_abc", "ses_", "ses_x y"])}, optional={
           "directory": _SESSION_VALUES, "title": _SESSION_VALUES, "parentID": _SESSION_VALUES,
           "time": _SESSION_TIME, "_part": st.just({"type": "text"})}),
       bom=st.booleans(), twice=st.booleans())
def test_quick_listing_of_a_tree_session_is_its_full_parse(
        tmp_path_factory: pytest.TempPathFactory, info: dict, bom: bool, twice: bool) -> None:
    """A session JSON of any shape (fields missing, empty or of another type, times of every kind,
    a record that is a wrapped row, two records in the file, a BOM): the listing read from the
    one record without a parser is what the parser makes of it."""
    import json

    folder = tmp_path_factory.mktemp("oct") / "storage" / "session" / "p"
    folder.mkdir(parents=True)
    path = folder / "ses_abc.json"
    body = json.dumps({"id": info.pop("id"), **info}, indent=2).encode()  # (sniffed by its first key)
    second = b' {"id": "ses_two", "title": "second", "time": {"created": 1764700000000}}'
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + body + (second if twice else b""))
    q = quick_meta(path, REG)
    [ls] = REG.by_name("opencode").load(str(path))
    s = ls.session
    assert q.error is None
    if "_part" not in info:  # (a wrapped row is no session: nothing known)
        assert q.unsure == {"last_timestamp"}
    for field in ("session_id", "kind", "project", "title", "first_timestamp"):
        if field not in q.unsure:
            assert getattr(q, field) == getattr(s, "id" if field == "session_id" else field), field
    assert q.last_timestamp is None or q.last_timestamp <= s.last_timestamp


def test_opencode_files_are_sniffed_as_its_own_first_and_as_in_order(tmp_path: Path) -> None:
    """The tree's session files and a database are named OpenCode's by their paths (its sniffer
    asked first); sniffing in order picks the same adapter and the same listing."""
    from sessionscope.core.read.adapters.base import Registry

    in_order = Registry(default_registry().adapters)
    in_order._hinting = []
    db = make_db(tmp_path, wal=False)
    other = tmp_path / "storage" / "session" / "p" / "ses_notreally.json"
    other.parent.mkdir(parents=True)
    other.write_text('{"sessionId": "s", "projectHash": "h", "messages": []}')  # (not OpenCode's)
    for path in (OC_MAIN, OC_SUB, db, other):
        assert REG.likely(str(path)) is REG.by_name("opencode")
        assert getattr(REG.sniff(str(path)), "name", None) == getattr(in_order.sniff(str(path)), "name", None)
        assert quick_meta(path, REG) == quick_meta(path, in_order)


@pytest.mark.parametrize("as_root", ["the database", "its folder"])
def test_a_session_opencode_commits_to_its_log_is_listed_before_any_checkpoint(tmp_path: Path, as_root: str) -> None:
    """OpenCode running: a new session (and a rename) committed to `opencode.db-wal` change
    nothing of `opencode.db` itself until SQLite checkpoints; every later scan, warm command and
    lookup still sees them (`files.with_wal`), and after the checkpoint too."""
    from sessionscope.core.catalog.library import Library
    from sessionscope.core.catalog.store import Catalog

    folder = tmp_path / "opencode"
    folder.mkdir()
    db = make_db(folder)
    roots = resolve_roots([str(db) if as_root == "the database" else str(folder)])
    cat = tmp_path / "c.sqlite"

    def listed() -> dict[str, str | None]:
        lib = Library(roots, catalog=Catalog(cat))
        lib.scan(lazy=True)
        return {s.id: s.title for s in lib.all_sessions()}

    first = listed()
    assert listed() == first  # (warm)
    writer = sqlite3.connect(db)
    try:
        writer.execute("PRAGMA journal_mode=WAL")
        writer.execute("PRAGMA wal_autocheckpoint=0")
        writer.execute("UPDATE session SET title = 'renamed while open' WHERE id = 'ses_4f2a9c1e3ffeQ8mNv2LkT0aBcD'")
        writer.commit()
        now = listed()
        assert now["ses_4f2a9c1e3ffeQ8mNv2LkT0aBcD"] == "renamed while open"
        stat = (db.stat().st_size, db.stat().st_mtime_ns)
        writer.execute("INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated)"
                       " SELECT 'ses_new' || id, project_id, slug, directory, 'a new one', version, time_created + 1,"
                       " time_updated + 1 FROM session WHERE id = 'ses_4f2a9c1e3ffeQ8mNv2LkT0aBcD'")
        writer.commit()
        assert (db.stat().st_size, db.stat().st_mtime_ns) == stat  # (the database file as it was)
        now = listed()
        assert now.get("ses_newses_4f2a9c1e3ffeQ8mNv2LkT0aBcD") == "a new one"
        assert listed() == now
    finally:
        writer.close()  # (the last connection: SQLite checkpoints and removes the log)
    assert not (folder / "opencode.db-wal").exists()
    assert listed() == now
