"""Entries of abandoned branches (a rewind, an edit, a retry) in the transcript reader's model:
kept, marked `off_branch` and hidden until asked for, on the small path (the adapter's `finish()`)
and on the streamed path (a uuid pass after the last line) alike."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

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
    assert all(not b.off_branch for b in streamed[:-1])  # known only once the file is read
    assert streamed[-1].off_branch == {e.id for e in whole.entries if not e.on_active_branch}
    small, big = _model([whole]), _model(streamed)
    assert [(i.entry.id, i.off_branch) for i in big.items] == [(i.entry.id, i.off_branch) for i in small.items]
    assert _shown(big) == _shown(small)


def test_a_file_without_rewinds_has_no_branch_marks(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(_rec("user", "u1", None, "hi") + b"\n"
                     + _rec("assistant", "a1", "u1", [{"type": "text", "text": "hello"}], "m1") + b"\n")
    [batch] = list(stream_batches(ClaudeAdapter(), str(path)))
    assert batch.done and batch.off_branch == frozenset()
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
