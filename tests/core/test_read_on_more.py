"""Reading a grown GitHub Copilot CLI, pi or Gemini CLI JSONL transcript on from its last complete
line (the catalog's scan, issue 15) gives exactly the session a whole read gives: random
transcripts of each format cut at random line boundaries, read whole vs read up to the cut then
read on (once or twice) from what was carried; real files cut at every twelfth of their lines.
Where reading on cannot be exact the adapter says so (None) and the scan reads whole."""
from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from helpers import CORPUS, NO_CORPUS, corpus_files, read_on, read_to_end
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st


from sessionscope.core.read.adapters.copilot import CopilotAdapter
from sessionscope.core.read.adapters.gemini import GeminiAdapter
from sessionscope.core.read.adapters.pi import PiAdapter

COPILOT, PI, GEMINI = CopilotAdapter(), PiAdapter(), GeminiAdapter()
CALLS = ["call_1", "call_2", "call_3"]
TEXTS = ["fix the bug", "  ", "second  prompt\nwith lines", "x" * 450, "ok"]


def _ts(n: int) -> str:
    return f"2026-01-31T10:{n // 60 % 60:02d}:{n % 60:02d}.{n * 7 % 1000:03d}Z"


def _no_record(what: str, lines: list[bytes]) -> bool:
    """Add a line that is no record (a malformed or a blank one) when `what` asks for one."""
    if what in ("malformed", "blank"):
        lines.append(b'{"type": "message", broken' if what == "malformed" else b"")
        return True
    return False


@st.composite
def copilot_lines(draw: st.DrawFn) -> list[bytes]:
    """Copilot CLI events: starts (their session id and cwd), model changes, prompts, replies
    requesting tool calls and counting tokens, execution starts of calls requested or not, their
    results, shutdown totals, compactions, errors, unknown events, odd and malformed lines."""
    lines: list[bytes] = []
    for i in range(draw(st.integers(1, 24))):
        what = draw(st.sampled_from(["start", "model", "user", "user", "meta", "reply", "reply", "exec",
                                     "done", "shutdown", "compact", "error", "unknown", "odd", "malformed",
                                     "blank"]))
        if _no_record(what, lines):
            continue
        if what == "odd":
            lines.append(orjson.dumps({"hello": "world"}))
            continue
        call = draw(st.sampled_from(CALLS))
        data = {
            "start": {"sessionId": draw(st.sampled_from(["sess-a", "sess-b"])),
                      "context": {"cwd": draw(st.sampled_from(["/p/one", "/p/two"])), "branch": "main"}},
            "model": {"newModel": draw(st.sampled_from(["gpt-5", "claude-x"]))},
            "user": {"content": draw(st.sampled_from(TEXTS))},
            "meta": {"transformedContent": "<reminder/>"},
            "reply": {"content": draw(st.sampled_from(["Sure.", ""])), "outputTokens": draw(st.integers(0, 50)),
                      "toolRequests": [{"toolCallId": call, "name": "bash"}] if draw(st.booleans()) else []},
            "exec": {"toolCallId": call, "toolName": "bash", "arguments": {"command": "ls"}},
            "done": {"toolCallId": call, "success": draw(st.booleans()), "result": {"content": "out"},
                     "model": draw(st.sampled_from(["gpt-5", "gpt-6"]))},
            "shutdown": {"modelMetrics": {"gpt-5": {"usage": {"inputTokens": 30, "cacheReadTokens": 10,
                                                              "outputTokens": draw(st.integers(0, 99))}}}},
            "compact": {"success": True, "summaryContent": "Summed up."},
            "error": {"message": "Rate limit"},
            "unknown": {"x": 1},
        }[what]
        etype = {"start": "session.start", "model": "session.model_change", "user": "user.message",
                 "meta": "user.message", "reply": "assistant.message", "exec": "tool.execution_start",
                 "done": "tool.execution_complete", "shutdown": "session.shutdown",
                 "compact": "session.compaction_complete", "error": "session.error",
                 "unknown": "session.future_thing"}[what]
        lines.append(orjson.dumps({"type": etype, "data": data, "id": f"e{i}", "parentId": f"e{i - 1}",
                                   "timestamp": _ts(draw(st.integers(0, 3000)))}))
    return lines


@st.composite
def pi_lines(draw: st.DrawFn) -> list[bytes]:
    """pi records: session headers (the first one counts), names, model changes, messages of
    every role with usage and tool calls, branches (a parent far back), compactions, summaries,
    unknown records, odd and malformed lines."""
    lines: list[bytes] = []
    ids: list[str] = []
    for i in range(draw(st.integers(1, 24))):
        what = draw(st.sampled_from(["session", "session", "info", "model", "user", "user", "assistant", "assistant",
                                     "tool", "bash", "compaction", "branch", "custom", "unknown", "malformed",
                                     "blank"]))
        if _no_record(what, lines):
            continue
        rec: dict = {"timestamp": _ts(draw(st.integers(0, 3000)))}
        if what == "session":
            rec.update(type="session", id=draw(st.sampled_from(["pi-a", "pi-b", "pi-c"])),
                       cwd=draw(st.sampled_from(["/p/one", "/p/two"])))
        else:
            rid = f"r{i}"
            rec.update(id=rid, parentId=draw(st.sampled_from(ids)) if ids and draw(st.booleans()) else
                       (ids[-1] if ids else None))
            ids.append(rid)
            if what == "info":
                rec.update(type="session_info", name=draw(st.sampled_from(["Named", "", "y" * 300])))
            elif what == "model":
                rec.update(type="model_change", modelId=draw(st.sampled_from(["m-1", "m-2"])))
            elif what == "user":
                rec.update(type="message", message={"role": "user", "content": draw(st.sampled_from(TEXTS))})
            elif what == "assistant":
                rec.update(type="message", message={
                    "role": "assistant", "model": draw(st.sampled_from(["m-1", "m-2"])),
                    "usage": {"input": draw(st.integers(0, 40)), "output": draw(st.integers(0, 40)), "cacheRead": 2},
                    "content": [{"type": "text", "text": "Done"},
                                {"type": "toolCall", "id": "t1", "name": "read", "arguments": {}}]})
            elif what == "tool":
                rec.update(type="message", message={"role": "toolResult", "toolCallId": "t1", "content": "out"})
            elif what == "bash":
                rec.update(type="message", message={"role": "bashExecution", "command": "ls", "output": "",
                                                    "exitCode": 1})
            elif what == "compaction":
                rec.update(type="compaction", summary="Earlier work")
            elif what == "branch":
                rec.update(type="branch_summary", summary="Another try")
            elif what == "custom":
                rec.update(type="custom_message", content="note")
            else:
                rec.update(type="brand_new_record")
        lines.append(orjson.dumps(rec))
    return lines


def _grown_equals_whole(path: Path, adapter, lines: list[bytes], cuts: list[int]) -> int:  # noqa: ANN001
    """Write `lines` up to each cut in turn, reading on from the cut before: each read on equals
    the whole read. The count of steps refused (read whole)."""
    bounds = sorted(set(cuts)) + [len(lines)]
    path.write_bytes(b"".join(x + b"\n" for x in lines[:bounds[0]]))
    state = read_to_end(path, adapter)
    refused = 0
    for cut in bounds[1:]:
        path.write_bytes(b"".join(x + b"\n" for x in lines[:cut]))
        got = read_on(path, state, adapter) if state is not None else None
        if got is None:
            refused += 1
            state = read_to_end(path, adapter)
            continue
        [whole] = adapter.load(str(path))
        assert got[0] == whole.session, cut
        state = got
    return refused


SETTINGS = settings(max_examples=80, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
CUTS = st.lists(st.integers(0, 24), min_size=1, max_size=2)


@SETTINGS
@given(lines=copilot_lines(), cuts=CUTS, named=st.booleans())
def test_reading_on_a_copilot_file_equals_reading_it_whole(tmp_path: Path, lines: list[bytes], cuts: list[int],
                                                           named: bool) -> None:
    folder = tmp_path / "session-state" / "5d2c8e1a-4b7f-4c3e-9a10-6f2e8d9c0b11"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / ("events.jsonl" if named else "other.jsonl")
    assert _grown_equals_whole(path, COPILOT, lines, [min(c, len(lines)) for c in cuts]) == 0


@SETTINGS
@given(lines=pi_lines(), cuts=CUTS)
def test_reading_on_a_pi_file_equals_reading_it_whole(tmp_path: Path, lines: list[bytes], cuts: list[int]) -> None:
    path = tmp_path / "2026-01-31T10-00-00-000Z_0a1b2c3d-0000-4000-8000-000000000001.jsonl"
    assert _grown_equals_whole(path, PI, lines, [min(c, len(lines)) for c in cuts]) == 0


def test_a_carried_state_of_another_format_or_version_is_not_taken_up(tmp_path: Path) -> None:
    path = tmp_path / "2026-01-31T10-00-00-000Z_0a1b2c3d-0000-4000-8000-000000000001.jsonl"
    path.write_bytes(orjson.dumps({"type": "session", "id": "pi-a", "cwd": "/p", "timestamp": _ts(1)}) + b"\n")
    _session, _end, _lines, carried = read_to_end(path, PI)
    assert PI.parser_on(str(path), carried) is not None
    state = orjson.loads(carried)
    assert COPILOT.parser_on(str(path), carried) is None
    assert PI.parser_on(str(path), orjson.dumps({**state, "v": 0})) is None
    assert PI.parser_on(str(path), b"not json") is None
    assert PI.parser_on(str(path), None) is None


@pytest.mark.skipif(not CORPUS.is_dir(), reason=NO_CORPUS)
@pytest.mark.parametrize("agent", ["copilot-cli", "pi", "gemini"])
def test_real_files_cut_anywhere_are_read_on_as_read_whole(tmp_path: Path, agent: str) -> None:
    """Each real JSONL file of these formats, cut after its first line and at 11 other line
    boundaries and grown back a cut at a time: each step read on equals the whole read, and is
    not refused."""
    adapter = {"copilot-cli": COPILOT, "pi": PI, "gemini": GEMINI}[agent]
    files = corpus_files(agent)
    assert files
    for source in files:
        lines = source.read_bytes().split(b"\n")[:-1]
        cuts = sorted({max(1, len(lines) * k // 12) for k in range(12)})
        refused = _grown_equals_whole(tmp_path / source.name, adapter, lines, cuts)
        assert refused == 0, f"{source.name}: {refused} of {len(cuts)} steps read whole"


# -- the catalog's scan: only the appended lines are parsed, the row equals a whole read's --------
def _copilot(i: int, etype: str, **data) -> dict:  # noqa: ANN003
    return {"type": etype, "data": data, "id": f"e{i}", "timestamp": _ts(i)}


def _pi(i: int, role: str, text: str) -> dict:
    return {"type": "message", "id": f"r{i}", "parentId": f"r{i - 1}", "timestamp": _ts(i),
            "message": {"role": role, "content": [{"type": "text", "text": text}],
                        **({"model": "m-1", "usage": {"input": 3, "output": 4}} if role == "assistant" else {})}}


GROWN = {
    "copilot-cli": ("session-state/5d2c8e1a-4b7f-4c3e-9a10-6f2e8d9c0b11/events.jsonl",
                    [_copilot(0, "session.start", sessionId="sess-a", context={"cwd": "/p"}),
                     _copilot(1, "user.message", content="fix the bug"),
                     _copilot(2, "assistant.message", content="Looking", outputTokens=5,
                              toolRequests=[{"toolCallId": "c1", "name": "bash"}])],
                    [_copilot(3, "tool.execution_start", toolCallId="c1", toolName="bash"),
                     _copilot(4, "tool.execution_complete", toolCallId="c1", success=True),
                     _copilot(5, "assistant.message", content="Fixed", outputTokens=7)]),
    "pi": ("sessions/--p--/2026-01-31T10-00-00-000Z_0a1b2c3d-0000-4000-8000-000000000001.jsonl",
           [{"type": "session", "id": "pi-a", "cwd": "/p", "timestamp": _ts(0)}, _pi(1, "user", "fix the bug"),
            _pi(2, "assistant", "Looking")],
           [{"type": "session_info", "id": "r3", "name": "Named"}, _pi(4, "user", "thanks"),
            _pi(5, "assistant", "Done")]),
    "gemini-cli": ("tmp/" + "ab" * 32 + "/chats/session-2026-01-31T10-00-0f0e0d0c.jsonl",
                   [{"sessionId": "g-1", "projectHash": "ab" * 32, "startTime": _ts(0), "lastUpdated": _ts(0)},
                    {"id": "u", "type": "user", "content": "fix the bug", "timestamp": _ts(1)},
                    {"id": "a", "type": "gemini", "content": "Looking", "model": "g", "timestamp": _ts(2),
                     "tokens": {"input": 10, "output": 5}}],
                   [{"$set": {"lastUpdated": _ts(3)}},  # the open message written again, then a new one
                    {"id": "a", "type": "gemini", "content": "Looking", "model": "g", "timestamp": _ts(2),
                     "tokens": {"input": 10, "output": 8}, "toolCalls": [{"id": "c", "name": "ls", "status": "success"}]},
                    {"id": "b", "type": "user", "content": "thanks", "timestamp": _ts(4)}]),
}


@pytest.mark.parametrize("fmt", sorted(GROWN))
def test_a_grown_file_is_read_on_by_the_scan_from_its_last_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                fmt: str) -> None:
    from helpers import FeedSpy, scan_root, whole_scan

    from sessionscope.core.catalog.store import Catalog

    name, first, appended = GROWN[fmt]
    adapter = {"copilot-cli": COPILOT, "pi": PI, "gemini-cli": GEMINI}[fmt]
    path = tmp_path / "root" / name
    path.parent.mkdir(parents=True)
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in first))
    catalog = Catalog(tmp_path / "c.sqlite")
    scan_root(tmp_path / "root", catalog)
    old_size = path.stat().st_size
    spy = FeedSpy(monkeypatch, type(adapter.parser(str(path))), type(adapter))
    with path.open("ab") as fh:
        fh.write(b"".join(orjson.dumps(r) + b"\n" for r in appended))
    lib = scan_root(tmp_path / "root", catalog)
    assert spy.loads == 0 and spy.offsets and min(spy.offsets) == old_size
    [s] = lib.all_sessions()
    assert s == whole_scan(tmp_path / "root")[0]
    assert s.line_count == len(first) + len(appended)


@st.composite
def gemini_lines(draw: st.DrawFn) -> list[bytes]:
    """Gemini CLI JSONL: the metadata line (or none), `$set` patches (a summary, times), user,
    gemini and info messages with tokens, models and tool calls, the last message written again
    (as its tool calls arrive) or an older one, rewinds, unknown records, a line of two records,
    odd and malformed lines."""
    lines: list[bytes] = []
    if draw(st.booleans()):
        lines.append(orjson.dumps({"sessionId": "g-1", "projectHash": "ab" * 32, "startTime": _ts(5),
                                   "lastUpdated": _ts(6), "kind": "main"}))
    mids: list[str] = []
    for i in range(draw(st.integers(1, 24))):
        what = draw(st.sampled_from(["user", "gemini", "gemini", "again", "again", "older", "info", "set", "rewind",
                                     "unknown", "two", "malformed", "blank"]))
        if _no_record(what, lines):
            continue
        if what == "set":
            patch = draw(st.sampled_from([{"summary": "A summary"}, {"lastUpdated": _ts(draw(st.integers(0, 3000)))},
                                          {"summary": "  "}]))
            lines.append(orjson.dumps({"$set": patch}))
            continue
        if what == "rewind":
            lines.append(orjson.dumps({"$rewindTo": draw(st.sampled_from([*mids, "nowhere"]))}))
            continue
        if what == "two":
            lines.append(b'{"id": "t%d", "type": "info", "content": "a"} {"id": "u%d", "type": "info"}' % (i, i))
            continue
        if what in ("again", "older") and mids:
            mid = mids[-1] if what == "again" else draw(st.sampled_from(mids))
            what = "gemini"
        else:
            mid = f"m{i}"
            mids.append(mid)
        rec: dict = {"id": mid, "timestamp": _ts(draw(st.integers(0, 3000)))}
        if what == "user":
            rec.update(type="user", content=[{"text": draw(st.sampled_from(TEXTS))}])
        elif what == "info":
            rec.update(type="info", content="note")
        elif what == "unknown":
            rec.update(type="brand_new")
        else:
            rec.update(type="gemini", content=draw(st.sampled_from(["Sure.", ""])),
                       model=draw(st.sampled_from(["gemini-a", "gemini-b"])),
                       tokens={"input": draw(st.integers(0, 50)), "output": draw(st.integers(0, 50)), "cached": 1},
                       **({"toolCalls": [{"id": "c1", "name": "read_file", "args": {}, "status": "success",
                                          "timestamp": _ts(draw(st.integers(0, 3000)))}]}
                          if draw(st.booleans()) else {}))
        lines.append(orjson.dumps(rec))
    return lines


@SETTINGS
@given(lines=gemini_lines(), cuts=CUTS)
def test_reading_on_a_gemini_jsonl_file_equals_reading_it_whole(tmp_path: Path, lines: list[bytes],
                                                                cuts: list[int]) -> None:
    """Reading on may be refused (a message written again that is not the last one, a rewind into
    the lines read, a line of two records): then the file is read whole; else it equals it."""
    folder = tmp_path / "tmp" / ("ab" * 32) / "chats"
    folder.mkdir(parents=True, exist_ok=True)
    _grown_equals_whole(folder / "session-2026-01-31T10-00-0f0e0d0c.jsonl", GEMINI, lines,
                        [min(c, len(lines)) for c in cuts])


def test_a_gemini_message_written_again_is_read_on_unless_it_is_not_the_last(tmp_path: Path) -> None:
    folder = tmp_path / "chats"
    folder.mkdir()
    path = folder / "session-2026-01-31T10-00-0f0e0d0c.jsonl"
    meta = {"sessionId": "g-1", "projectHash": "ab" * 32, "startTime": _ts(0), "lastUpdated": _ts(1)}
    a1 = {"id": "a", "type": "gemini", "content": "Looking", "model": "gemini-a", "timestamp": _ts(2),
          "tokens": {"input": 10, "output": 5}}
    a2 = {**a1, "toolCalls": [{"id": "c1", "name": "read_file", "args": {}, "status": "success"}],
          "tokens": {"input": 10, "output": 9}}
    b1 = {"id": "b", "type": "user", "content": "thanks", "timestamp": _ts(3)}
    steps = [[meta, a1], [{"$set": {"lastUpdated": _ts(4)}}, a2], [b1], [{**a2, "content": "old one again"}]]
    lines = [orjson.dumps(r) for step in steps for r in step]
    cuts = [2, 4, 5]
    assert _grown_equals_whole(path, GEMINI, lines, cuts) == 1  # the last step writes `a` again after `b`
    [whole] = GEMINI.load(str(path))
    assert (whole.session.entry_count, whole.session.usage.output) == (4, 9)
