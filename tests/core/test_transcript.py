"""The transcript reader's model: folding results into calls, key arguments, diffs, subagent
matching, streaming big files slimmed, reading entries again, and the row-height index."""
from __future__ import annotations

import random
import subprocess
import sys
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import orjson
import pytest

from sessionscope.core.read import loading as core
from sessionscope.core.read.adapters.claude import ClaudeAdapter
from sessionscope.core.model import Entry, EntryKind, Locator, Session, SessionKind
from sessionscope.core.read.diffs import DiffLine, diff_of
from sessionscope.core.read.loading import raw_record, reread, stream_batches
from sessionscope.core.read.subagents import match_subagent
from sessionscope.core.read.transcript import (
    Display,
    HeightIndex,
    Item,
    Transcript,
    copy_text,
    tool_summary,
)

T0 = datetime(2026, 11, 20, 10, 0, tzinfo=timezone.utc)
LOC = Locator("/x.jsonl", 0, 1)


def entry(eid: str, kind: EntryKind, text: str = "", **kw: Any) -> Entry:
    kw.setdefault("role", "assistant")
    return Entry(id=eid, kind=kind, text=text, locator=LOC, **kw)


def call(eid: str, name: str, inp: Any, tid: str | None = None, **kw: Any) -> Entry:
    return entry(eid, EntryKind.TOOL_USE, orjson.dumps(inp).decode(), tool_name=name, tool_input=inp,
                 tool_use_id=tid or f"t-{eid}", **kw)


def result(eid: str, tid: str, text: str, *, error: bool = False, **kw: Any) -> Entry:
    return entry(eid, EntryKind.TOOL_RESULT, text, role="user", tool_use_id=tid, is_error=error, **kw)


def test_core_transcript_imports_no_ui() -> None:
    code = ("import sys, sessionscope.core.read.transcript; "
            "assert 'textual' not in sys.modules and 'rich' not in sys.modules, sorted(sys.modules)")
    subprocess.run([sys.executable, "-c", code], check=True)


# -- folding -------------------------------------------------------------------------------------------


def test_results_fold_into_their_calls_and_report_status() -> None:
    t = Transcript()
    t.add([entry("u", EntryKind.TEXT, "hi", role="user"),
           call("c1", "Bash", {"command": "ls"}, timestamp=T0),
           call("c2", "Read", {"file_path": "/a"})])
    assert [i.display for i in t.items] == [Display.MESSAGE, Display.TOOL, Display.TOOL]
    assert t.items[1].status() == "pending"
    changed = t.add([result("r1", "t-c1", "boom", error=True, timestamp=T0 + timedelta(seconds=1.5)),
                     result("r2", "t-c2", "ok"), result("r3", "t-elsewhere", "orphan")])
    assert changed == {1, 2}
    assert t.items[1].status() == "error" and t.items[1].duration() == 1.5
    assert t.items[2].status() == "ok"
    assert t.items[3].display is Display.RESULT  # no call for it in this transcript
    assert t.index_of("r1") == 1 and t.index_of("c1") == 1 and t.index_of("u") == 0


def test_hidden_branches_blank_text_and_kinds() -> None:
    t = Transcript()
    t.add([entry("a", EntryKind.TEXT, "kept"),
           entry("b", EntryKind.TEXT, "abandoned", on_active_branch=False),
           entry("c", EntryKind.TEXT, "   "),
           entry("d", EntryKind.MALFORMED, "{oops", role="system", on_active_branch=False),
           entry("e", EntryKind.COMPACTION, "Conversation compacted", role="system"),
           entry("f", EntryKind.COMPACTION, "summary…", role="user"),
           entry("g", EntryKind.THINKING, "hmm"),
           entry("h", EntryKind.META, "<system-reminder>", role="user")])
    assert [(i.entry.id, i.display, i.off_branch) for i in t.items] == [
        ("a", Display.MESSAGE, False), ("b", Display.MESSAGE, True), ("d", Display.RAW, False),
        ("e", Display.DIVIDER, False), ("f", Display.SUMMARY, False), ("g", Display.THINKING, False),
        ("h", Display.NOTE, False)]
    assert not t.visible(1, show_thinking=True) and t.visible(1, show_thinking=False, all_branches=True)
    assert not t.visible(5, show_thinking=False) and t.visible(5, show_thinking=True)


def test_a_split_reply_is_merged_and_subagent_calls_are_numbered() -> None:
    t = Transcript()
    t.add([entry("a", EntryKind.TEXT, "first", message_id="m1"),
           entry("b", EntryKind.TEXT, "second", message_id="m1"),
           call("c", "Task", {"description": "x"}), call("d", "Agent", {"description": "y"})])
    assert t.items[0].entry.text == "first\n\nsecond" and t.index_of("b") == 0
    assert [i.subagent_order for i in t.items[1:]] == [0, 1]


def test_matches_are_case_insensitive_and_look_inside_results() -> None:
    t = Transcript()
    t.add([entry("a", EntryKind.TEXT, "Needle here"), call("c", "Bash", {"command": "ls"}),
           result("r", "t-c", "a NEEDLE in the output"), entry("z", EntryKind.TEXT, "nothing")])
    assert t.matches("needle") == [0, 1]
    assert t.matches("") == []


# -- tool calls ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "inp", "want"), [
    ("Bash", {"command": "uv run pytest -q\n  --maxfail=1", "description": "tests"}, "uv run pytest -q --maxfail=1"),
    ("Edit", {"file_path": "/p/src/a.py", "old_string": "x", "new_string": "y"}, "src/a.py"),
    ("Read", {"file_path": "/elsewhere/b.py"}, "/elsewhere/b.py"),
    ("Grep", {"pattern": "TODO", "path": "/p/src"}, "TODO in src"),
    ("Task", {"description": "Explore retries", "subagent_type": "Explore", "prompt": "…"}, "Explore retries (Explore)"),
    ("TodoWrite", {"todos": [{"status": "completed"}, {"status": "pending"}]}, "2 todos, 1 done"),
    ("shell", {"command": ["bash", "-lc", "ls -la"]}, "ls -la"),
    ("exec_command", {"cmd": "git status"}, "git status"),
    ("update_plan", {"plan": [{}, {}, {}]}, "3 steps"),
    ("apply_patch", "*** Begin Patch\n*** Update File: /p/a.py\n@@\n-x\n+y\n*** End Patch", "a.py"),
    ("mystery", {"flag": True, "target": "thing"}, "thing"),
])
def test_tool_summary_picks_the_key_argument(name: str, inp: Any, want: str) -> None:
    assert tool_summary(call("c", name, inp), project="/p") == want


def test_edit_multiedit_write_and_patches_become_diffs() -> None:
    edit = diff_of(call("c", "Edit", {"file_path": "/a", "old_string": "a\nb\nc", "new_string": "a\nB\nc"}))
    assert edit == [DiffLine(" ", "a"), DiffLine("-", "b"), DiffLine("+", "B"), DiffLine(" ", "c")]
    multi = diff_of(call("c", "MultiEdit", {"file_path": "/a", "edits": [
        {"old_string": "x", "new_string": "y"}, {"old_string": "p", "new_string": "q"}]}))
    assert multi is not None and [d.tag for d in multi] == ["@", "-", "+", "@", "-", "+"]
    write = diff_of(call("c", "Write", {"file_path": "/a", "content": "one\ntwo"}))
    assert write == [DiffLine("+", "one"), DiffLine("+", "two")]
    patch = ("*** Begin Patch\n*** Update File: src/app.py\n@@ def main():\n-    old()\n+    new()\n"
             " keep\n*** Add File: src/new.py\n+print(1)\n*** End Patch")
    codex = diff_of(call("c", "apply_patch", patch))
    assert codex == [DiffLine("@", "src/app.py"), DiffLine("…", "def main():"), DiffLine("-", "    old()"),
                     DiffLine("+", "    new()"), DiffLine(" ", "keep"), DiffLine("@", "src/new.py (new)"),
                     DiffLine("+", "print(1)")]
    old_era = diff_of(call("c", "shell", {"command": ["apply_patch", patch]}))
    assert old_era == codex
    assert diff_of(call("c", "Bash", {"command": "ls"})) is None


def test_copy_text_of_a_call_is_its_input_and_output() -> None:
    t = Transcript()
    t.add([call("c", "Bash", {"command": "ls"}), result("r", "t-c", "a\nb"),
           call("d", "Read", {"file_path": "/a"})])
    assert copy_text(t.items[0]) == "ls\n\na\nb"
    assert copy_text(t.items[1]) == '{\n  "file_path": "/a"\n}'


def test_subagent_calls_match_children_by_agent_id_then_by_what_is_left() -> None:
    def child(sid: str, minute: int) -> Session:
        return Session(id=sid, agent="claude-code", source_format="claude-code", paths=("/x",),
                       kind=SessionKind.SUBAGENT, parent_id="p", first_timestamp=T0 + timedelta(minutes=minute))

    kids = [child("p/agent-aaa", 1), child("p/agent-bbb", 2)]
    t = Transcript()
    t.add([call("c1", "Task", {"description": "one"}), call("c2", "Task", {"description": "two"}),
           result("r1", "t-c1", "done\nagentId: bbb (for resuming)")])
    assert match_subagent(t.items[0], kids) is kids[1]  # named by its result
    assert match_subagent(t.items[1], kids) is kids[0]  # no result: the child left over, not the taken one
    assert match_subagent(Item(call("x", "Bash", {}), Display.TOOL), kids) is None


# -- files -------------------------------------------------------------------------------------------------


def _claude_file(path: Path, n: int, big_output: str = "") -> Path:
    lines = []
    parent = None
    for k in range(n):
        uid, tid = f"u{k:04d}", f"toolu_{k}"
        use = {"type": "assistant", "uuid": uid + "a", "parentUuid": parent, "sessionId": "s",
               "message": {"id": f"m{k}", "role": "assistant",
                           "content": [{"type": "tool_use", "id": tid, "name": "Bash",
                                        "input": {"command": f"echo {k}"}}]}}
        res = {"type": "user", "uuid": uid + "r", "parentUuid": uid + "a", "sessionId": "s",
               "message": {"role": "user", "content": [
                   {"type": "tool_result", "tool_use_id": tid, "content": f"{k}{big_output}"}]}}
        parent = uid + "r"
        lines += [orjson.dumps(use), orjson.dumps(res)]
        if k == 3:
            lines.append(b'{"type":"user","broken')
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def test_stream_batches_slims_big_texts_and_keeps_every_entry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _claude_file(tmp_path / "s.jsonl", 50, big_output="x" * 5000)
    batches = list(stream_batches(ClaudeAdapter(), str(path), first_batch=10, interval=0))
    assert batches[0].entries and len(batches[0].entries) >= 10 and not batches[0].done
    assert batches[-1].done and batches[-1].fraction == 1.0
    entries = [e for b in batches for e in b.entries]
    assert len(entries) == 101  # 50 calls, 50 results, one malformed line
    assert sum(e.kind is EntryKind.MALFORMED for e in entries) == 1
    cut = set().union(*(b.cut for b in batches))
    results = [e for e in entries if e.kind is EntryKind.TOOL_RESULT]
    assert all(len(e.text) == core.OTHER_CAP and e.id in cut for e in results)
    full = reread(ClaudeAdapter(), results[7])
    assert full is not None and full.text == "7" + "x" * 5000 and full.id == results[7].id


def test_raw_record_is_pretty_printed_from_disk(tmp_path: Path) -> None:
    path = _claude_file(tmp_path / "s.jsonl", 5)
    second = path.read_bytes().index(b"\n") + 1
    rec = raw_record(Locator(str(path), second, 2))
    assert rec.note is None and '"tool_use_id": "toolu_0"' in rec.text and rec.text.startswith("{\n  ")
    bad_offset = path.read_bytes().index(b'{"type":"user","broken')
    bad = raw_record(Locator(str(path), bad_offset, 9))
    assert bad.text == '{"type":"user","broken' and bad.note and "not valid JSON" in bad.note


def test_raw_record_never_holds_control_characters(tmp_path: Path) -> None:
    path = tmp_path / "e.jsonl"
    line = orjson.dumps({"type": "user", "text": "\x1b]52;c;SGk=\x07"})
    path.write_bytes(line + b"\n" + b'{"raw": "\x1b[2J' + b"\n")
    pretty = raw_record(Locator(str(path), 0, 1)).text
    assert "\\u001b]52;c;SGk=\\u0007" in pretty and "\x1b" not in pretty  # JSON escapes
    assert raw_record(Locator(str(path), len(line) + 1, 2)).text == '{"raw": "␛[2J'  # not JSON: shown


def test_small_files_load_whole_with_malformed_lines_shown(tmp_path: Path) -> None:
    from sessionscope.core.catalog.store import Catalog
    from sessionscope.core.read.discovery import Root
    from sessionscope.core.catalog.library import Library

    d = tmp_path / "projects" / "p"
    d.mkdir(parents=True)
    _claude_file(d / "s.jsonl", 6)
    library = Library([Root(str(tmp_path), "--root", explicit=True)], catalog=Catalog(None))
    library.scan()
    session = library.all_sessions()[0]
    [batch] = list(core.load_batches(library, session))
    assert batch.done and not batch.streamed
    kinds = [e.kind for e in batch.entries]
    assert kinds.count(EntryKind.MALFORMED) == 1
    assert kinds.index(EntryKind.MALFORMED) == 8  # in file order: after call and result no. 3
    streamed = list(core.load_batches(library, session, threshold=1))
    assert streamed[-1].done and streamed[-1].streamed
    assert [e.kind for b in streamed for e in b.entries] == kinds


def test_an_unfinished_last_line_is_held_back_when_streaming(tmp_path: Path) -> None:
    path = _claude_file(tmp_path / "s.jsonl", 2)
    with path.open("ab") as fh:
        fh.write(b'{"type":"assistant","uuid":"half')
    entries = [e for b in stream_batches(ClaudeAdapter(), str(path)) for e in b.entries]
    assert len(entries) == 4 and entries[-1].kind is EntryKind.TOOL_RESULT


# -- row heights --------------------------------------------------------------------------------------


def test_height_index_matches_a_plain_list() -> None:
    rng = random.Random(3)
    heights = [rng.choice([0, 1, 1, 2, 5, 30]) for _ in range(300)]
    index = HeightIndex.of(heights[:150])
    for h in heights[150:]:
        index.append(h)
    for _ in range(200):
        row = rng.randrange(len(heights))
        new = rng.choice([0, 1, 3, 12])
        assert index.set(row, new) == new - heights[row]
        heights[row] = new
    tops = [sum(heights[:r]) for r in range(len(heights))]
    assert [index.top(r) for r in range(len(heights))] == tops
    assert index.total == sum(heights) and len(index) == len(heights)
    for y in range(sum(heights)):
        row = index.row_at(y)
        assert tops[row] <= y < tops[row] + heights[row]
    assert index.row_at(sum(heights) + 10) == len(heights) - 1
    assert HeightIndex().row_at(0) == -1


def test_slimming_keeps_small_entries_untouched() -> None:
    small = call("c", "Bash", {"command": "ls"})
    assert core.slim(small) == (small, False)
    big = replace(small, tool_input={"command": "x" * 5000, "n": [1, 2]})
    slim, cut = core.slim(big)
    assert cut and len(slim.tool_input["command"]) == core.INPUT_CAP and slim.tool_input["n"] == [1, 2]


def test_live_batch_takes_only_lines_after_what_was_read() -> None:
    from sessionscope.core.model import Locator
    from sessionscope.core.read.loading import TEXT_CAP, last_offset, live_batch

    def e(eid: str, offset: int, text: str = "t", path: str = "/f.jsonl", sidechain: bool = False) -> Entry:
        return Entry(id=eid, role="user", kind=EntryKind.TEXT, text=text, locator=Locator(path, offset, 1),
                     is_sidechain=sidechain)

    read = [e("a", 0), e("b", 10), e("c", 20)]
    after = last_offset(read, "/f.jsonl")
    assert after == 20 and last_offset([], "/f.jsonl") == -1
    grown = [e("c", 20), e("d", 30), e("s", 40, sidechain=True), e("o", 50, path="/other.jsonl"),
             e("big", 60, "y" * (TEXT_CAP + 1))]
    batch = live_batch(grown, "/f.jsonl", after=after, streamed=False, skip_sidechains=True)
    assert [x.id for x in batch.entries] == ["d", "big"] and not batch.cut  # the read line "c" is not repeated
    batch = live_batch(grown, "/f.jsonl", after=after, streamed=True, skip_sidechains=False)
    assert [x.id for x in batch.entries] == ["d", "s", "big"] and batch.cut == {"big"}
    assert len(batch.entries[-1].text) == TEXT_CAP


def test_entries_read_again_are_held_for_a_bounded_number_of_items(monkeypatch: pytest.MonkeyPatch) -> None:
    """An item read again in full (expanded, copied) holds its full entries; past
    READ_AGAIN_HELD items, the one read again longest ago goes back to its slimmed entries (a
    streamed file's results can be 20 MB each), and a result arriving for a call held in full
    stays with it when it goes back."""
    from sessionscope.core.read import transcript as model

    monkeypatch.setattr(model, "READ_AGAIN_HELD", 3)
    t = Transcript()
    calls = [call(f"c{i}", "Bash", {"command": "l"}, tid=f"t{i}") for i in range(6)]
    t.add([replace(c, text=c.text[:1]) for c in calls], cut=frozenset(c.id for c in calls))
    back: list[int] = []
    for i in range(5):
        back += t.update(i, entry=calls[i])
        assert len(t._read_again) <= 3
    assert back == [0, 1]
    assert [t.items[i].cut for i in range(6)] == [True, True, False, False, False, True]
    assert t.items[0].entry.text == calls[0].text[:1] and t.items[4].entry is calls[4]
    t.add([result("r3", "t3", "done")])  # (the result of a call held in full)
    back = t.update(5, entry=calls[5]) + t.update(0, entry=calls[0])
    assert back == [2, 3] and t.items[3].cut and t.items[3].result is not None
    assert t.items[3].result.text == "done" and t.items[0].entry is calls[0]
    assert t.update(1) == [] and len(t._read_again) == 3


def test_the_reader_stream_keeps_the_thread_and_not_what_settles_a_session(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """The reader's stream never finishes a session: its Claude parser keeps the records'
    links (branch marks) as int arrays, no record objects, no tokens by reply and no title
    candidates."""
    from sessionscope.core.read.adapters import claude

    lines, parent = [], None
    for k in range(10):
        prompt = {"type": "user", "uuid": f"p{k}", "parentUuid": parent, "sessionId": "s",
                  "message": {"role": "user", "content": f"question {k}"}}
        reply = {"type": "assistant", "uuid": f"a{k}", "parentUuid": f"p{k}", "sessionId": "s",
                 "message": {"id": f"m{k}", "role": "assistant", "content": [{"type": "text", "text": "ok"}],
                             "usage": {"input_tokens": 3, "output_tokens": 4}}}
        lines += [prompt, reply]
        parent = f"a{k}"
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"".join(orjson.dumps(v) + b"\n" for v in lines))
    parsers: list = []
    make = ClaudeAdapter.parser
    monkeypatch.setattr(ClaudeAdapter, "parser", lambda self, p: parsers.append(make(self, p)) or parsers[-1])
    batches = list(stream_batches(ClaudeAdapter(), str(path), first_batch=5, interval=0))
    whole = ClaudeAdapter().load(str(path))[0]
    stream_parser, whole_parser = parsers
    assert isinstance(stream_parser, claude.ClaudeParser) and stream_parser._recs == []
    assert len(stream_parser._branches.line) == 20 and not stream_parser._owner
    assert not stream_parser._usage and not stream_parser._titles
    assert whole_parser._usage and whole.session.title == "question 0"
    assert [e.id for b in batches for e in b.entries] == [e.id for e in whole.entries]
