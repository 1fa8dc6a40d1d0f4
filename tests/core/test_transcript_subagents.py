"""Which transcript a Task/Agent call opens: content first (the agent id its result names, the
child's first prompt, its .meta.json description), then order among what is left, failed calls
skipped. Covers the three Claude subagent layouts (tests/data/subagents/), the real file where a
failed call used to shift every later link, and the demo corpus."""
from __future__ import annotations

import shutil
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import orjson
import pytest
from helpers import DATA

from sessionscope.core.catalog.store import Catalog
from sessionscope.core.demo import generate_demo
from sessionscope.core.read.discovery import Root
from sessionscope.core.catalog.library import Library
from sessionscope.core.model import Entry, EntryKind, Locator, Session, SessionKind
from sessionscope.core.read.subagents import link_subagents, match_subagent, subagent_children
from sessionscope.core.read.transcript import Display, Item, Transcript

T0 = datetime(2026, 11, 20, 10, 0, tzinfo=timezone.utc)
VIEWER = "claude-code-viewer__5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl"


def links_of(root: Path) -> dict[str, str | None]:
    """For each main session under `root` with subagents: Task description -> linked child id."""
    lib = Library([Root(str(root), "--root", explicit=True)], catalog=Catalog(None))
    lib.scan()
    out: dict[str, str | None] = {}
    for session in lib.all_sessions():
        if session.parent_id is not None:
            continue
        kids = subagent_children(lib, session)
        t = Transcript(session.project)
        t.add(lib.load(session).entries)
        for item in t.items:
            if item.is_subagent_call:
                child = match_subagent(item, kids)
                out[item.entry.tool_input["description"]] = child.id if child else None
    return out


def tail(child_id: str | None) -> str | None:
    return child_id.rsplit("/", 1)[1] if child_id else None


def test_real_file_failed_task_links_nothing_and_shifts_nothing(corpus_dir: Path, tmp_path: Path) -> None:
    # CC 1.0.108, inline sidechains: "Analyze project structure" failed on its input (no prompt),
    # so the first sidechain (package.json) belongs to the second call, the second to the third.
    shutil.copy(corpus_dir / "claude-code" / VIEWER, tmp_path / VIEWER)
    links = links_of(tmp_path)
    assert links == {"Analyze project structure": None,
                     "Check package configuration": links["Check package configuration"],
                     "Analyze current project structure": links["Analyze current project structure"]}
    lib = Library([Root(str(tmp_path), "--root", explicit=True)], catalog=Catalog(None))
    lib.scan()
    titles = {s.id: s.title or "" for s in lib.all_sessions()}
    assert titles[links["Check package configuration"]].startswith("Examine the package.json file(s)")
    assert titles[links["Analyze current project structure"]].startswith("Analyze the current project structure")


@pytest.mark.parametrize(("layout", "want"), [
    # <= 1.0.x inline sidechains; the first call failed (InputValidationError) and has no transcript
    ("inline", {"Analyze project structure": None,
                "Check package configuration": "sidechain-s-1aaaaa",
                "Analyze current project structure": "sidechain-s-3bbbbb"}),
    # 2.0.x sibling agent-*.jsonl; two calls in one reply, the second call's agent started first
    ("sibling", {"Review auth": "agent-aaaaaaaa", "Count test lines": "agent-bbbbbbbb"}),
    # 2.1.x <session>/subagents/ with .meta.json; the audit agent's first prompt is not the call's,
    # its .meta.json description is; the docs agent started first
    ("nested", {"Audit tests": "agent-a11b22c", "Write docs": "agent-a22b33c"}),
])
def test_each_layout_links_calls_by_content(layout: str, want: dict[str, str | None], tmp_path: Path) -> None:
    shutil.copytree(DATA / "subagents" / layout, tmp_path / layout)
    assert {k: tail(v) for k, v in links_of(tmp_path / layout).items()} == want


def test_demo_corpus_task_opens_its_subagent(tmp_path: Path) -> None:
    demo = generate_demo(tmp_path / "demo", now=T0)
    links = links_of(demo.claude_root / "projects")
    agents = [p.stem for p in demo.claude_root.glob("projects/*/*/subagents/agent-*.jsonl")
              if not p.name.startswith("agent-acompact-")]
    assert len(links) == len(agents) == 1
    assert [tail(v) for v in links.values()] == agents


# -- the rule on synthetic calls and children ------------------------------------------------------------

LOC = Locator("/nowhere.jsonl", 0, 1)


def task(eid: str, minute: int, prompt: str | None = None, **inp: Any) -> Entry:
    inp = {"description": eid, **inp} | ({"prompt": prompt} if prompt is not None else {})
    return Entry(id=eid, role="assistant", kind=EntryKind.TOOL_USE, text=orjson.dumps(inp).decode(),
                 locator=LOC, tool_name="Task", tool_input=inp, tool_use_id=f"t-{eid}",
                 timestamp=T0 + timedelta(minutes=minute))


def answer(eid: str, text: str, *, error: bool = False) -> Entry:
    return Entry(id=f"r-{eid}", role="user", kind=EntryKind.TOOL_RESULT, text=text, locator=LOC,
                 tool_use_id=f"t-{eid}", is_error=error)


def child(sid: str, minute: int, title: str | None = None, path: str = "/nowhere.jsonl") -> Session:
    return Session(id=f"p/{sid}", agent="claude-code", source_format="claude-code", paths=(path,),
                   kind=SessionKind.SUBAGENT, parent_id="p", title=title,
                   first_timestamp=T0 + timedelta(minutes=minute))


def linked(entries: list[Entry], kids: list[Session]) -> dict[str, str | None]:
    t = Transcript()
    t.add(entries)
    return {i.entry.id: tail(c.id) if (c := match_subagent(i, kids)) else None
            for i in t.items if i.is_subagent_call}


def test_failed_calls_are_skipped_when_falling_back_to_order() -> None:
    # Nothing to match on (no prompts, no agent ids): order, minus the call that failed.
    kids = [child("sidechain-1", 2), child("sidechain-2", 4)]
    got = linked([task("a", 0), answer("a", "InputValidationError", error=True),
                  task("b", 1), answer("b", "ok"), task("c", 3)], kids)
    assert got == {"a": None, "b": "sidechain-1", "c": "sidechain-2"}


def test_agent_id_beats_prompt_and_prompt_beats_order() -> None:
    kids = [child("agent-x1", 1, "Find the bug in parse()"), child("agent-x2", 2, "Write the changelog"),
            child("agent-x3", 3, "Something else entirely")]
    got = linked([task("a", 0, "Write the changelog"), task("b", 0, "Find the bug in parse()"),
                  task("c", 0, "Find the bug in parse()"), answer("c", "done\nagentId: x3 (for resuming)")],
                 kids)
    assert got == {"a": "agent-x2", "b": "agent-x1", "c": "agent-x3"}


def test_same_prompt_twice_takes_the_child_starting_soonest_after_the_call() -> None:
    kids = [child("sidechain-early", 1, "Run the tests"), child("sidechain-late", 6, "Run the tests")]
    assert linked([task("a", 5, "Run the tests")], kids) == {"a": "sidechain-late"}
    assert linked([task("a", 0, "Run the tests"), task("b", 5, "Run the tests")], kids) == {
        "a": "sidechain-early", "b": "sidechain-late"}


def test_cut_titles_typed_titles_and_slimmed_prompts_still_fit(tmp_path: Path) -> None:
    long_prompt = "Audit every module under src/ for unchecked errors. " * 40
    title = "Explore: " + " ".join(long_prompt.split())[:79] + "…"  # how the adapter titles it
    agent_file = tmp_path / "agent-f00.jsonl"
    agent_file.write_bytes(orjson.dumps({"type": "user", "isSidechain": True, "uuid": "u",
                                         "message": {"role": "user", "content": long_prompt}}) + b"\n")
    by_title = child("agent-title", 2, title)
    by_file = child("agent-file", 1, "a custom title", path=str(agent_file))
    other = child("agent-other", 0, "Explore: something unrelated")
    slimmed = long_prompt[:512]  # streamed big transcripts keep the first 512 characters of an input
    assert linked([task("a", 0, slimmed)], [other, by_file]) == {"a": "agent-file"}
    assert linked([task("a", 0, slimmed)], [other, by_title]) == {"a": "agent-title"}
    # a short title is the whole prompt: it must be equal, not a prefix
    assert linked([task("a", 0, "Run the tests please"), task("b", 0, "Run the tests")],
                  [child("agent-short", 0, "Run the tests"), other]) == {"a": "agent-other", "b": "agent-short"}


def test_links_follow_a_growing_transcript() -> None:
    kids = [child("sidechain-1", 2), child("sidechain-2", 4)]
    t = Transcript()
    t.add([task("a", 0), task("b", 1)])
    first, second = (i for i in t.items if i.is_subagent_call)
    assert tail(match_subagent(first, kids).id) == "sidechain-1"  # type: ignore[union-attr]
    t.add([answer("a", "rejected", error=True)])  # the first call turns out to have failed
    assert match_subagent(first, kids) is None
    assert tail(match_subagent(second, kids).id) == "sidechain-1"  # type: ignore[union-attr]


def test_a_lone_item_and_other_tools() -> None:
    kids = [child("agent-q", 1, "Look around")]
    lone = Item(task("a", 0, "Look around"), Display.TOOL, subagent_order=0)
    assert match_subagent(lone, kids) is kids[0]
    assert match_subagent(lone, []) is None
    bash = Entry(id="b", role="assistant", kind=EntryKind.TOOL_USE, text="{}", locator=LOC, tool_name="Bash",
                 tool_input={"command": "ls"}, tool_use_id="t-b")
    assert match_subagent(Item(bash, Display.TOOL), kids) is None
    assert link_subagents([], kids) == {}
