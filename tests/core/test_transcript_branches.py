"""Entries of abandoned branches (a rewind, an edit, a retry) in the transcript reader's model:
kept, marked `off_branch` and hidden until asked for, on the small path (the adapter's `finish()`)
and on the streamed path (a uuid pass after the last line) alike."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sessionscope.core.read import loading as core
from sessionscope.core.read.adapters.claude import ClaudeAdapter
from sessionscope.core.catalog.store import Catalog
from sessionscope.core.read.discovery import Root
from sessionscope.core.catalog.library import Library
from sessionscope.core.model import Entry, EntryKind
from sessionscope.core.read.loading import stream_batches
from sessionscope.core.read.transcript import Display, Transcript

WORD = "zanzibarquux"  # only on the abandoned branch


def _rec(type_: str, uuid: str, parent: str | None, content: Any, msg_id: str | None = None) -> bytes:
    message: dict[str, Any] = {"role": type_, "content": content}
    if msg_id:
        message["id"] = msg_id
    return orjson.dumps({"type": type_, "uuid": uuid, "parentUuid": parent, "sessionId": "s",
                         "cwd": "/p", "timestamp": "2026-11-20T10:00:00Z", "message": message})


def rewound_file(path: Path) -> Path:
    """A prompt, a reply; a second prompt with a tool call and a reply, then rewound: another
    second prompt from the same parent, which the conversation continued."""
    tool = [{"type": "tool_use", "id": "toolu_old", "name": "Bash", "input": {"command": "ls"}}]
    result = [{"type": "tool_result", "tool_use_id": "toolu_old", "content": "a.py"}]
    lines = [
        _rec("user", "u1", None, "Look at the repo."),
        _rec("assistant", "a1", "u1", [{"type": "text", "text": "Looking."}], "m1"),
        _rec("user", "u2", "a1", f"Try the {WORD} approach."),  # abandoned from here
        _rec("assistant", "a2", "u2", tool, "m2"),
        _rec("user", "r2", "a2", result),
        _rec("assistant", "a2b", "r2", [{"type": "text", "text": f"The {WORD} approach fails."}], "m2b"),
        _rec("user", "u3", "a1", "Try the plain approach."),  # the rewind: a sibling of u2
        _rec("assistant", "a3", "u3", [{"type": "text", "text": "Plain works."}], "m3"),
        b'{"type":"user","broken',
        _rec("user", "u4", "a3", "Thanks."),
        _rec("assistant", "a4", "u4", [{"type": "text", "text": "You're welcome."}], "m4"),
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


@pytest.fixture
def library(tmp_path: Path) -> Library:
    rewound_file(tmp_path / "projects" / "-p" / "s.jsonl")
    lib = Library([Root(str(tmp_path), "--root", explicit=True)], catalog=Catalog(None))
    lib.scan()
    return lib


def _model(batches: list[core.Batch]) -> Transcript:
    t = Transcript()
    for b in batches:
        t.add(b.entries, b.cut)
        t.mark_off_branch(b.off_branch)
        t.mark_off_branch_lines(b.off_branch_lines)
    return t


def _shown(t: Transcript, all_branches: bool = False) -> list[str]:
    return [t.items[i].entry.id for i in range(len(t)) if t.visible(i, True, all_branches)]


def test_small_path_keeps_the_abandoned_branch_marked_and_hidden(library: Library) -> None:
    [batch] = list(core.load_batches(library, library.all_sessions()[0]))
    t = _model([batch])
    off = [i.entry.id for i in t.items if i.off_branch]
    assert off == ["u2", "a2", "a2b"]  # the tool result folded into its call a2
    assert t.items[t.index_of("a2")].result is not None  # (the result answered it on its branch)
    assert t.has_branches
    shown = _shown(t)
    assert "u2" not in shown and "u3" in shown and "a4" in shown
    assert any(e.startswith("L") for e in shown)  # the malformed line belongs to no branch: shown
    assert _shown(t, all_branches=True) == [i.entry.id for i in t.items]
    assert [i for i in range(len(t)) if WORD in t.items[i].search_text()] == [t.index_of("u2"), t.index_of("a2b")]


def test_streamed_path_marks_the_same_entries_after_the_last_line(library: Library) -> None:
    session = library.all_sessions()[0]
    [whole] = list(core.load_batches(library, session))
    streamed = list(core.load_batches(library, session, threshold=1, first_batch=2, interval=0))
    assert len(streamed) > 1 and all(b.streamed for b in streamed)
    assert all(not b.off_branch_lines for b in streamed[:-1])  # known only once the file is read
    off = [e for e in whole.entries if not e.on_active_branch]
    assert streamed[-1].off_branch_lines == {e.locator.line for e in off}
    assert streamed[-1].off_branch_count == len(off) and not streamed[-1].off_branch
    small, big = _model([whole]), _model(streamed)
    assert [(i.entry.id, i.off_branch) for i in big.items] == [(i.entry.id, i.off_branch) for i in small.items]
    assert _shown(big) == _shown(small)


def test_a_file_without_rewinds_has_no_branch_marks(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(_rec("user", "u1", None, "hi") + b"\n"
                     + _rec("assistant", "a1", "u1", [{"type": "text", "text": "hello"}], "m1") + b"\n")
    [batch] = list(stream_batches(ClaudeAdapter(), str(path)))
    assert batch.done and batch.off_branch == frozenset() and batch.off_branch_lines == frozenset()
    assert not _model([batch]).has_branches


def test_a_parser_without_branches_or_a_failing_pass_marks_nothing() -> None:
    class Flat:
        pass

    class Failing:
        def off_branch_ids(self, *, sidechains: bool) -> set[str]:
            raise ValueError("garbage")

    assert core.off_branch_ids(Flat(), True) == frozenset()  # type: ignore[arg-type]
    assert core.off_branch_ids(Failing(), True) == frozenset()  # type: ignore[arg-type]


def test_marking_only_changes_items_that_were_on_the_branch() -> None:
    from sessionscope.core.model import Locator

    loc = Locator("/x.jsonl", 0, 1)
    t = Transcript()
    t.add([Entry(id="a", role="user", kind=EntryKind.TEXT, text="hi", locator=loc),
           Entry(id="b", role="assistant", kind=EntryKind.TEXT, text="one", locator=loc, message_id="m"),
           Entry(id="c", role="assistant", kind=EntryKind.TEXT, text="two", locator=loc, message_id="m")])
    assert len(t) == 2 and t.index_of("c") == 1  # a split reply merged into one item
    assert t.mark_off_branch(["c", "zz"]) == []  # not the item's own entry, not an entry at all
    assert t.mark_off_branch(["b", "b"]) == [1] and t.mark_off_branch(["b"]) == []
    assert t.items[1].off_branch and t.items[1].display is Display.MESSAGE and t.has_branches


# -- the reader's stream keeps the thread as int arrays ------------------------------------------

def _feed(path: Path, compact: bool) -> Any:
    from sessionscope.core.read.jsonl import RecordFile, parse_line

    parser = ClaudeAdapter().parser(str(path))
    parser.settles = False
    if compact:
        parser.track_branches()
    with RecordFile(path) as rf:
        for raw in rf.iter_lines():
            parser.feed(parse_line(raw))
    return parser


def _lines_of_ids(parser: Any, sidechains: bool) -> tuple[frozenset[int], int]:
    owner = {e.id: e.locator.line for e in parser._entries}
    ids = parser.off_branch_ids(sidechains=sidechains)
    return frozenset(owner[i] for i in ids), len(ids)


def _same_marks(path: Path) -> None:
    full, small = _feed(path, False), _feed(path, True)
    assert small._recs == [] and not small._owner  # (no record objects, no map of entry ids)
    for sidechains in (False, True):
        assert small.off_branch_lines(sidechains=sidechains) == _lines_of_ids(full, sidechains)


def test_the_compact_thread_marks_the_rewound_branch_by_line(library: Library, tmp_path: Path) -> None:
    path = rewound_file(tmp_path / "r.jsonl")
    lines, count = _feed(path, True).off_branch_lines()
    assert lines == {3, 4, 5, 6} and count == 4  # u2, a2, r2, a2b
    _same_marks(path)


_POOL = st.sampled_from(["m1", "m2", "m3", None])
_TOOLS = st.sampled_from(["t1", "t2", "t3"])


@st.composite
def _thread(draw: Any) -> list[bytes]:
    """Records of a Claude file with rewinds: parents anywhere (earlier, later, unknown, none),
    progress records between them, replies sharing ids, tool calls and results across branches,
    side chains, meta and system records, repeated uuids and lines without one."""
    n = draw(st.integers(1, 18))
    uuids = [f"u{k}" for k in range(n)]
    out = []
    for k in range(n):
        kind = draw(st.sampled_from(["user", "assistant", "system", "progress", "result"]))
        link = draw(st.sampled_from(["earlier", "earlier", "none", "later", "unknown"]))
        parent = (draw(st.sampled_from(uuids[:k])) if link == "earlier" and k else
                  draw(st.sampled_from(uuids[k:])) if link == "later" else
                  "nowhere" if link == "unknown" else None)
        uuid = draw(st.sampled_from([uuids[k], uuids[k], uuids[k], None, uuids[max(0, k - 1)]]))
        rec: dict[str, Any] = {"type": "user" if kind == "result" else kind, "uuid": uuid, "parentUuid": parent,
                               "sessionId": "s", "isSidechain": draw(st.booleans()) and draw(st.booleans()),
                               "isMeta": draw(st.booleans()) and draw(st.booleans())}
        if draw(st.booleans()) and k:
            rec["logicalParentUuid"] = draw(st.sampled_from(uuids[:k]))
        if kind == "assistant":
            block = ({"type": "tool_use", "id": draw(_TOOLS), "name": "Bash", "input": {}} if draw(st.booleans())
                     else {"type": "text", "text": "reply"})
            rec["message"] = {"id": draw(_POOL), "role": "assistant", "content": [block]}
        elif kind == "result":
            rec["message"] = {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": draw(_TOOLS), "content": "ok"}]}
        elif kind == "user":
            rec["message"] = {"role": "user", "content": "question"}
        elif kind == "system":
            rec["subtype"] = "info"
            rec["content"] = "note"
        out.append(orjson.dumps(rec))
    return out


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(lines=_thread())
def test_the_compact_thread_marks_what_the_record_thread_marks(tmp_path_factory: Any, lines: list[bytes]) -> None:
    path = tmp_path_factory.mktemp("t") / "s.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    _same_marks(path)


def test_the_compact_thread_marks_what_the_record_thread_marks_on_real_files() -> None:
    from helpers import CORPUS, DATA

    files = [p for base in (DATA, CORPUS) if base.is_dir() for p in sorted(base.rglob("*.jsonl"))
             if ClaudeAdapter().sniff(str(p), p.read_bytes()[:65536])]
    assert files
    for path in files:
        _same_marks(path)
