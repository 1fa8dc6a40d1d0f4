"""Reading a grown Claude Code transcript on from its last complete line (the catalog's scan, issue
15) gives exactly the session a whole read gives: random transcripts cut at random line
boundaries, read whole vs read up to the cut then read on (once or twice) from what was carried.
Where reading on cannot be exact the adapter says so (None) and the scan reads whole; real
transcripts are read on at every cut."""
from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from helpers import CORPUS, NO_CORPUS, corpus_files, read_on, read_to_end
from helpers import scan_root as _scan
from helpers import whole_scan as _whole_scan
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sessionscope.core.read.adapters.claude import ClaudeAdapter
from sessionscope.core.read.jsonl import RecordFile

CLAUDE = ClaudeAdapter()
UUIDS = [f"{i:08x}-0000-4000-8000-{i:012x}" for i in range(1, 40)]
TEXTS = ["fix the bug", "Warmup", "  ", "second  prompt\nwith lines", "[Request interrupted by user]",
         "<command-name>/model</command-name><command-args>opus</command-args>", "ok", "x" * 300]


def _stamp(n: int) -> str:
    return f"2026-01-31T10:{n // 60 % 60:02d}:{n % 60:02d}.{n * 7 % 1000:03d}Z"


@st.composite
def claude_lines(draw: st.DrawFn) -> list[bytes]:
    """A Claude Code transcript: prompts, replies split over records sharing a message id (with
    their usage repeated or grown), tool calls and results, progress records between turns, rewinds
    (a parent far back), titles, summaries, compactions, resume copies, sidechain records, odd and
    malformed lines."""
    lines: list[bytes] = []
    made: list[str] = []  # uuids written
    fresh = iter(UUIDS)
    last: str | None = None
    session = draw(st.sampled_from(["sess-a", "sess-b"]))
    mid_n = 0
    n = draw(st.integers(1, 24))
    for i in range(n):
        what = draw(st.sampled_from([
            "user", "user", "reply", "reply", "reply", "tool", "progress", "custom", "ai", "summary",
            "compact", "copy", "side", "meta", "malformed", "branch", "blank", "unknown"]))
        base = {"sessionId": draw(st.sampled_from([session, session, "sess-c"])),
                "timestamp": _stamp(draw(st.integers(0, 3000))),
                "cwd": draw(st.sampled_from(["/p/one", "/p/two", None])),
                "gitBranch": draw(st.sampled_from(["main", "dev", None]))}
        parent = last
        if what == "branch" and made:
            parent = draw(st.sampled_from(made))
            what = "user"
        uuid = next(fresh, None)
        if uuid is None:
            break
        if what == "user":
            text = draw(st.sampled_from(TEXTS))
            rec = {**base, "type": "user", "uuid": uuid, "parentUuid": parent,
                   "message": {"role": "user", "content": text if draw(st.booleans()) else [{"type": "text", "text": text}]}}
        elif what == "meta":
            rec = {**base, "type": "user", "uuid": uuid, "parentUuid": parent, "isMeta": True,
                   "message": {"role": "user", "content": "<system-reminder>x</system-reminder>"}}
        elif what == "reply":
            mid_n += draw(st.sampled_from([0, 1, 1]))  # 0: another record of the same reply
            parts = draw(st.integers(1, 3))
            for k in range(parts):
                block = draw(st.sampled_from([
                    {"type": "text", "text": draw(st.sampled_from(["Sure.", "", "Done", " "]))},
                    {"type": "thinking", "thinking": "hmm"},
                    {"type": "tool_use", "id": f"tool-{i}-{k}", "name": "Bash", "input": {"command": "ls"}}]))
                usage = {"input_tokens": draw(st.integers(0, 50)), "output_tokens": draw(st.integers(0, 50)),
                         "cache_read_input_tokens": 3}
                rec_k = {**base, "type": "assistant", "uuid": uuid, "parentUuid": parent,
                         "requestId": f"req-{mid_n}",
                         "message": {"id": f"msg-{mid_n}", "role": "assistant",
                                     "model": draw(st.sampled_from(["claude-a", "claude-b", "<synthetic>"])),
                                     "content": [block], **({"usage": usage} if draw(st.booleans()) else {})}}
                if k < parts - 1:
                    lines.append(orjson.dumps(rec_k))
                    made.append(uuid)
                    parent, uuid = uuid, next(fresh, None)
                    if uuid is None:
                        return lines
                else:
                    rec = rec_k
        elif what == "tool":
            rec = {**base, "type": "user", "uuid": uuid, "parentUuid": parent,
                   "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"tool-{i - 1}-0",
                                                            "content": "out"}]}}
        elif what == "progress":
            rec = {"type": "progress", "uuid": uuid, "parentUuid": parent, "sessionId": session, "data": {}}
        elif what == "custom":
            rec = {"type": "custom-title", "customTitle": draw(st.sampled_from(["My name", "Other  name"])),
                   "sessionId": session}
        elif what == "ai":
            rec = {"type": "ai-title", "aiTitle": "An AI title", "sessionId": session}
        elif what == "summary":
            leaf = draw(st.sampled_from([*made[-3:], UUIDS[-1], "elsewhere"]))
            rec = {"type": "summary", "summary": "A summary", "leafUuid": leaf}
        elif what == "compact":
            rec = {**base, "type": "system", "subtype": "compact_boundary", "uuid": uuid, "parentUuid": None,
                   "logicalParentUuid": parent, "content": "Conversation compacted"}
        elif what == "copy" and lines:
            lines.append(draw(st.sampled_from(lines)))  # a resume copy (or a repeated line)
            continue
        elif what == "side":
            rec = {**base, "type": "user", "uuid": uuid, "parentUuid": parent, "isSidechain": True,
                   "agentId": "a1", "message": {"role": "user", "content": "sub task"}}
        elif what == "malformed":
            lines.append(b'{"type": "user", broken')
            continue
        elif what == "blank":
            lines.append(b"")
            continue
        else:
            rec = {"type": "strange-new-record", "uuid": uuid, "parentUuid": parent, "sessionId": session}
        lines.append(orjson.dumps({k: v for k, v in rec.items() if v is not None or k == "parentUuid"}))
        made.append(uuid)
        if rec.get("type") in ("user", "assistant", "system"):
            last = uuid
    return lines


def whole(path: Path):
    [loaded] = CLAUDE.load(str(path))
    return loaded.session


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(lines=claude_lines(), data=st.data(),
       name=st.sampled_from(["0f0e0d0c-0000-4000-8000-000000000001", "notes", "agent-a1"]))
def test_reading_on_a_claude_file_equals_reading_it_whole(tmp_path: Path, lines: list[bytes], data: st.DataObject,
                                                          name: str) -> None:
    path = tmp_path / f"{name}.jsonl"
    cuts = data.draw(st.lists(st.integers(0, len(lines)), min_size=1, max_size=2), label="cuts")
    bounds = sorted(set(cuts)) + [len(lines)]
    path.write_bytes(b"".join(x + b"\n" for x in lines[:bounds[0]]))
    state = read_to_end(path, CLAUDE)
    for cut in bounds[1:]:
        path.write_bytes(b"".join(x + b"\n" for x in lines[:cut]))
        got = read_on(path, state, CLAUDE) if state is not None else None
        if got is None:
            state = read_to_end(path, CLAUDE)
            continue
        assert got[0] == whole(path)
        state = got


@pytest.mark.skipif(not CORPUS.is_dir(), reason=NO_CORPUS)
@pytest.mark.parametrize("agent", ["claude-code", "codex"])
def test_real_transcripts_cut_anywhere_are_read_on_as_read_whole(tmp_path: Path, agent: str) -> None:
    """Every real Claude Code and Codex file of one session (a file with inline sidechains is
    never read on), cut after its first line and at 11 other line boundaries and grown back to its
    end a cut at a time: each step read on equals the whole read, and is not refused."""
    from sessionscope.core.read.adapters.codex import CodexAdapter

    adapter = CLAUDE if agent == "claude-code" else CodexAdapter()
    files = [f for f in corpus_files(agent) if f.stat().st_size < 4_000_000 and len(adapter.load(str(f))) == 1]
    assert files
    refused = steps = 0
    for source in files:
        lines = source.read_bytes().split(b"\n")[:-1]
        path = tmp_path / source.name
        cuts = sorted({max(1, len(lines) * k // 12) for k in range(12)}) + [len(lines)]
        path.write_bytes(b"".join(x + b"\n" for x in lines[:cuts[0]]))
        state = read_to_end(path, adapter)
        for cut in cuts[1:]:
            path.write_bytes(b"".join(x + b"\n" for x in lines[:cut]))
            got = read_on(path, state, adapter) if state is not None else None
            steps += 1
            if got is None:
                refused += 1
                state = read_to_end(path, adapter)
                continue
            [whole_read] = adapter.load(str(path))
            assert got[0] == whole_read.session, (source.name, cut)
            state = got
    assert refused == 0, f"{refused} of {steps} steps read whole"


# -- the catalog's scan: only the appended lines are parsed, the row equals a whole read's --------
def _user(uuid: str, parent: str | None, text: str, ts: str = "2026-01-31T10:00:00Z") -> dict:
    return {"type": "user", "uuid": uuid, "parentUuid": parent, "sessionId": "sess-a", "cwd": "/p",
            "timestamp": ts, "message": {"role": "user", "content": text}}


def _reply(uuid: str, parent: str, text: str, output: int, ts: str = "2026-01-31T10:00:05Z") -> dict:
    return {"type": "assistant", "uuid": uuid, "parentUuid": parent, "sessionId": "sess-a", "cwd": "/p",
            "timestamp": ts, "requestId": "req-1",
            "message": {"id": "msg-1", "role": "assistant", "model": "claude-a",
                        "content": [{"type": "text", "text": text}],
                        "usage": {"input_tokens": 10, "output_tokens": output}}}


def _jsonl(*records: dict) -> bytes:
    return b"".join(orjson.dumps(r) + b"\n" for r in records)


def Spy(monkeypatch: pytest.MonkeyPatch):  # noqa: N802 - stands for the class it makes
    """The offsets of the lines fed to Claude parsers, and how many whole loads ran."""
    from helpers import FeedSpy

    from sessionscope.core.read.adapters.claude import ClaudeParser

    return FeedSpy(monkeypatch, ClaudeParser, ClaudeAdapter)


def test_a_grown_claude_file_is_read_on_by_the_scan_from_its_last_line(tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """A split reply cut between its records: the next record's text merges into the entry
    before the cut and its usage replaces the reply's; the title and counts as a whole read."""
    from sessionscope.core.catalog.store import Catalog

    root = tmp_path / "projects" / "-p"
    root.mkdir(parents=True)
    path = root / "0f0e0d0c-0000-4000-8000-000000000001.jsonl"
    path.write_bytes(_jsonl(_user("u1", None, "fix the bug"), _reply("a1", "u1", "Looking", 5)))
    catalog = Catalog(tmp_path / "c.sqlite")
    _scan(tmp_path / "projects", catalog)
    old_size = path.stat().st_size
    spy = Spy(monkeypatch)
    with path.open("ab") as fh:
        fh.write(_jsonl(_reply("a2", "a1", "at it", 40),
                        {"type": "custom-title", "customTitle": "Named", "sessionId": "sess-a"},
                        _user("u2", "a2", "thanks", "2026-01-31T10:01:00Z")))
    lib = _scan(tmp_path / "projects", catalog)
    assert spy.loads == 0 and spy.offsets and min(spy.offsets) == old_size
    [s] = lib.all_sessions()
    assert s == _whole_scan(tmp_path / "projects")[0]
    assert (s.title, s.entry_count, s.usage.output, s.line_count) == ("Named", 3, 40, 5)
    assert catalog.carried(str(path), catalog.get(str(path)).read_end) is not None


@pytest.mark.parametrize("change", ["resume copy", "new sidechain", "summary"])
def test_appended_lines_that_change_the_earlier_part_read_the_claude_file_whole(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: str) -> None:
    from sessionscope.core.catalog.store import Catalog

    root = tmp_path / "projects" / "-p"
    root.mkdir(parents=True)
    path = root / "0f0e0d0c-0000-4000-8000-000000000001.jsonl"
    first = _user("u1", None, "fix the bug")
    path.write_bytes(_jsonl(first, _reply("a1", "u1", "Looking", 5)))
    catalog = Catalog(tmp_path / "c.sqlite")
    _scan(tmp_path / "projects", catalog)
    spy = Spy(monkeypatch)
    appended = {"resume copy": {**first, "timestamp": "2026-01-31T11:00:00Z"},
                "new sidechain": {**_user("s1", "a1", "sub"), "isSidechain": True, "agentId": "x"},
                "summary": {"type": "summary", "summary": "About the bug", "leafUuid": "a1"}}[change]
    with path.open("ab") as fh:
        fh.write(_jsonl(appended))
    lib = _scan(tmp_path / "projects", catalog)
    assert spy.loads == 1
    assert lib.all_sessions() == _whole_scan(tmp_path / "projects")


# -- Codex: the parser goes on from the state the reading so far left ------------------------------
@st.composite
def codex_lines(draw: st.DrawFn) -> list[bytes]:
    """A Codex rollout: session_meta (and a replayed one), turn contexts changing the model, the
    two streams of each turn (response items and events, with equal or differing texts),
    reasoning, tool calls, repeated and cumulative token counts, compactions, odd lines."""
    lines: list[bytes] = []
    texts = ["fix it", "fix  it", "Done.", "<environment_context>cwd</environment_context>", "", "ok then"]
    total = 0
    for i in range(draw(st.integers(1, 30))):
        ts = f"2026-01-31T10:{draw(st.integers(0, 59)):02d}:{draw(st.integers(0, 59)):02d}.{i:03d}Z"
        what = draw(st.sampled_from([
            "meta", "context", "user_item", "user_event", "agent_event", "agent_item", "reasoning_event",
            "reasoning_item", "call", "output", "tokens", "tokens", "compacted", "compact_event",
            "developer", "aborted", "malformed", "blank", "unknown", "bare"]))
        text = draw(st.sampled_from(texts))
        if what == "meta":
            rec = {"type": "session_meta", "payload": {
                "id": draw(st.sampled_from(["thread-1", "thread-2"])), "timestamp": ts,
                "cwd": draw(st.sampled_from(["/p/a", "/p/b"])), "originator": draw(st.sampled_from(["codex_cli_rs", "codex_exec"])),
                "source": draw(st.sampled_from(["cli", "exec", {"subagent": "review"}])),
                "git": {"branch": draw(st.sampled_from(["main", "dev"]))}}}
        elif what == "context":
            rec = {"type": "turn_context", "payload": {"cwd": "/p/c", "model": draw(st.sampled_from(["gpt-a", "gpt-b"]))}}
        elif what == "user_item":
            rec = {"type": "response_item", "payload": {"type": "message", "role": "user",
                                                        "content": [{"type": "input_text", "text": text}]}}
        elif what == "user_event":
            rec = {"type": "event_msg", "payload": {"type": "user_message", "message": text}}
        elif what == "agent_event":
            rec = {"type": "event_msg", "payload": {"type": "agent_message", "message": text}}
        elif what == "agent_item":
            rec = {"type": "response_item", "payload": {"type": "message", "role": "assistant",
                                                        "content": [{"type": "output_text", "text": text}]}}
        elif what == "reasoning_event":
            rec = {"type": "event_msg", "payload": {"type": "agent_reasoning", "text": text}}
        elif what == "reasoning_item":
            rec = {"type": "response_item", "payload": {"type": "reasoning", "summary": [
                {"type": "summary_text", "text": text}], "encrypted_content": "x"}}
        elif what == "call":
            rec = {"type": "response_item", "payload": {"type": "function_call", "name": "shell",
                                                        "arguments": '{"cmd": "ls"}', "call_id": f"c{i % 3}"}}
        elif what == "output":
            rec = {"type": "response_item", "payload": {"type": "function_call_output", "call_id": f"c{i % 3}",
                                                        "output": "files"}}
        elif what == "tokens":
            total += draw(st.sampled_from([0, 100]))
            info = {"total_token_usage": {"input_tokens": total, "cached_input_tokens": total // 2,
                                          "output_tokens": total // 10, "total_tokens": total + total // 10}}
            if draw(st.booleans()):
                info["last_token_usage"] = {"input_tokens": 100, "cached_input_tokens": 50, "output_tokens": 10,
                                            "total_tokens": 110}
            rec = {"type": "event_msg", "payload": {"type": "token_count", "info": info}}
        elif what == "compacted":
            rec = {"type": "compacted", "payload": {"message": "summary so far"}}
        elif what == "compact_event":
            rec = {"type": "event_msg", "payload": {"type": "context_compacted"}}
        elif what == "developer":
            rec = {"type": "response_item", "payload": {"type": "message", "role": "developer",
                                                        "content": [{"type": "input_text", "text": "rules"}]}}
        elif what == "aborted":
            rec = {"type": "event_msg", "payload": {"type": "turn_aborted", "reason": "interrupted"}}
        elif what == "malformed":
            lines.append(b'{"timestamp": "x", "type": "event_msg", broken')
            continue
        elif what == "blank":
            lines.append(b"")
            continue
        elif what == "bare":
            lines.append(orjson.dumps({"type": "message", "role": "user", "content": [{"type": "input_text", "text": text}]}))
            continue
        else:
            rec = {"type": "event_msg", "payload": {"type": "brand_new_event"}}
        lines.append(orjson.dumps({"timestamp": ts, **rec}))
    return lines


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow])
@given(lines=codex_lines(), data=st.data())
def test_reading_on_a_codex_file_equals_reading_it_whole(tmp_path: Path, lines: list[bytes],
                                                         data: st.DataObject) -> None:
    from sessionscope.core.read.adapters.codex import CodexAdapter

    codex = CodexAdapter()
    path = tmp_path / "rollout-2026-01-31T10-00-00-0f0e0d0c-0000-4000-8000-000000000009.jsonl"
    cuts = data.draw(st.lists(st.integers(0, len(lines)), min_size=1, max_size=2), label="cuts")
    bounds = sorted(set(cuts)) + [len(lines)]
    path.write_bytes(b"".join(x + b"\n" for x in lines[:bounds[0]]))
    with RecordFile(str(path)) as rf:
        [loaded] = codex.load(str(path), rf)
        session, end, n, carried = loaded.session, rf.complete_end, loaded.account.lines, loaded.carry()
    for cut in bounds[1:]:
        path.write_bytes(b"".join(x + b"\n" for x in lines[:cut]))
        parser = codex.parser_on(str(path), carried)
        assert parser is not None
        with RecordFile(str(path)) as rf:
            for parsed in rf.iter_parsed(end, n + 1):
                parser.feed(parsed)
            ext = codex.extend(session, parser, rf.size, carried)
            end, n = rf.complete_end, n + parser.account.lines
        [whole_read] = codex.load(str(path))
        assert ext is not None and ext.session == whole_read.session
        session, carried = ext.session, ext.carry


def test_the_index_adds_only_the_appended_lines_of_a_grown_claude_file(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """`search` after an append: the scan reads on and the index parses the new lines alone; the
    new words are found, the old ones once."""
    from sessionscope.core.catalog.library import Library
    from sessionscope.core.catalog.store import Catalog
    from sessionscope.core.read.discovery import Root
    from sessionscope.core.search.index import SearchIndex

    root = tmp_path / "projects" / "-p"
    root.mkdir(parents=True)
    path = root / "0f0e0d0c-0000-4000-8000-000000000001.jsonl"
    path.write_bytes(_jsonl(_user("u1", None, "alpha prompt"), _reply("a1", "u1", "alpha reply", 5)))
    catalog = Catalog(tmp_path / "c.sqlite")
    index = SearchIndex(tmp_path / "index")
    index.update(Library([Root(str(tmp_path / "projects"), "--root", explicit=True)], catalog=catalog), scan=True)
    old_size = path.stat().st_size
    spy = Spy(monkeypatch)
    with path.open("ab") as fh:
        fh.write(_jsonl(_user("u2", "a1", "bravo prompt", "2026-01-31T10:02:00Z")))
    lib = Library([Root(str(tmp_path / "projects"), "--root", explicit=True)], catalog=catalog)
    report = index.update(lib, scan=True)
    assert spy.loads == 0 and spy.offsets and min(spy.offsets) == old_size
    assert report.files_appended == 1 and report.docs_added == 1
    assert len(index.search("bravo").hits) == 1 and len(index.search("alpha").hits) == 2


def _codex_grown(tmp_path: Path, lines: list[bytes], cut: int, start: int) -> bool:
    """`lines[:cut]` written, the window from line `start` holding the last V entries of the file
    read whole (V as many as it gives alike), then `lines` all: when `CodexAdapter.read_grown`
    accepts the lines from `cut` on, the window's lines with them give the last V + (new) entries
    of the grown file read whole and the conversation grew by exactly the new ones. Whether it
    accepted (with V at least 1)."""
    from sessionscope.core.catalog.library import conversation
    from sessionscope.core.catalog.tails import read_from
    from sessionscope.core.read.adapters.codex import CodexAdapter
    from sessionscope.core.read.jsonl import RecordFile

    def raw(part: list[bytes]) -> bytes:
        return b"".join(line + b"\n" for line in part)

    codex = CodexAdapter()
    path = tmp_path / "rollout-2026-01-31T10-00-00-019c8a4c-ed82-79a1-aa28-7738fc5ab61a.jsonl"
    path.write_bytes(raw(lines[:cut]))
    old_end, offset = path.stat().st_size, len(raw(lines[:start]))
    whole_old = conversation(codex.load(str(path))[0].entries)
    with RecordFile(str(path)) as rf:
        window_old = conversation(read_from(codex, str(path), rf, offset, start + 1))
    v = 0  # (how many of the last entries the window gives as the whole reading does)
    while v < min(len(whole_old), len(window_old)) and window_old[-1 - v:] == whole_old[-1 - v:]:
        v += 1
    path.write_bytes(raw(lines))
    whole_new = conversation(codex.load(str(path))[0].entries)
    with RecordFile(str(path)) as rf:
        got = codex.read_grown(str(path), rf, offset, start + 1, old_end)
    if got is None or v == 0:
        return False
    entries = conversation(got.entries)
    new = sum(1 for e in entries if e.locator.offset >= old_end)
    assert len(whole_new) == len(whole_old) + new
    assert entries[-(v + new):] == whole_new[-(v + new):]
    return True


def _codex(payload_type: str, **payload: object) -> bytes:
    kind = payload.pop("_record", "response_item")
    return orjson.dumps({"timestamp": "2026-01-31T10:00:00.000Z", "type": kind,
                         "payload": {"type": payload_type, **payload}})


_CTX = orjson.dumps({"timestamp": "2026-01-31T10:00:00.000Z", "type": "turn_context", "payload": {"model": "gpt-w"}})


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(lines=codex_lines(), data=st.data())
def test_a_codex_window_read_on_gives_the_whole_reads_last_entries(tmp_path: Path, lines: list[bytes],
                                                                   data: st.DataObject) -> None:
    """`CodexAdapter.read_grown` (core/catalog/tails.py carries a window across growth with it):
    when the window's lines gave the last V entries of the file read whole, and it accepts the
    lines appended since, the window's lines with them give the last V + (new) entries of the
    grown file read whole, and the whole conversation grew by exactly the new ones."""
    cut = data.draw(st.integers(1, len(lines)))
    start = data.draw(st.integers(0, cut - 1))
    if data.draw(st.booleans()):  # (mostly a window that opens on a turn and a tool call, as real ones do)
        lines = [*lines[:start], _CTX, _codex("function_call", name="shell", arguments="{}", call_id="w1"),
                 _codex("function_call_output", call_id="w1", output="ok"), *lines[start:]]
        cut += 3
    _codex_grown(tmp_path, lines, cut, start)


@pytest.mark.parametrize("case", ["twin", "far-call", "no-model", "closed"])
def test_codex_lines_appended_that_depend_on_lines_before_the_window_are_not_read_on(tmp_path: Path,
                                                                                    case: str) -> None:
    """A twin of a reply before the window (a whole reading drops it) with no tool call in the
    window to close its wait, a tool output whose call is before the window (its tool's name),
    a window without the turn context naming the model: not read on (`closed`: the same twin
    after a tool call in the window is, and is dropped alike)."""
    meta = orjson.dumps({"timestamp": "2026-01-31T10:00:00.000Z", "type": "session_meta",
                         "payload": {"id": "thread-1", "cwd": "/p"}})
    before = [meta, _CTX, _codex("function_call", name="shell", arguments="{}", call_id="c9"),
              _codex("agent_message", _record="event_msg", message="Done.")]
    window = [_CTX, _codex("agent_reasoning", _record="event_msg", text="thinking")]
    new = [_codex("message", role="assistant", content=[{"type": "output_text", "text": "Done."}])]
    if case == "far-call":
        window = [_CTX, _codex("function_call", name="shell", arguments="{}", call_id="w1"),
                  _codex("function_call_output", call_id="w1", output="ok")]
        new = [_codex("function_call_output", call_id="c9", output="files")]
    elif case == "no-model":
        window = [_codex("function_call", name="shell", arguments="{}", call_id="w1"),
                  _codex("function_call_output", call_id="w1", output="ok")]
        new = [_codex("message", role="assistant", content=[{"type": "output_text", "text": "hi"}])]
    elif case == "closed":
        window = [_CTX, _codex("function_call", name="shell", arguments="{}", call_id="w1"),
                  _codex("function_call_output", call_id="w1", output="ok"),
                  _codex("agent_message", _record="event_msg", message="Done.")]
    lines = before + window + new
    assert _codex_grown(tmp_path, lines, len(before) + len(window), len(before)) is (case == "closed"), case
