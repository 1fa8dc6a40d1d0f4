"""`sessionscope mcp`: the server spawned over stdio and driven by the SDK's own client.

Every tool and every action is called, each error included, on one server per test (it must stay
up across the bad calls: the last call of each test is a good one); every answer is the same JSON
as text and as structured content, with isError exactly when it says ok: false. Transcript text
comes back masked and with its controls made visible; the largest answer each tool can give stays
within what its limit and max_chars promise.
"""
from __future__ import annotations

import gc
import json
import os
import sys
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, AsyncIterator

import pytest

# (a venv made before the SDK became a dependency: `pip install -e .` brings it)
pytest.importorskip("mcp", reason="the mcp SDK is not installed here; `pip install -e .` installs it")
from mcp.client.session import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402

from sessionscope.core.brief.compose import UNREVIEWED  # noqa: E402

SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
ESC = "\x1b]52;c;aGk=\x07\x1b[2J"
LAUNCH = "import sys; from sessionscope.cli.main import main; sys.exit(main())"


def write_session(path: Path, sid: str, texts: list[str], *, project: str, day: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines: list[dict[str, Any]] = [{"session_id": sid, "agent_id": "claude-code", "source_plugin": "session-logs",
                                    "started_at": f"2026-03-{day:02d}T09:00:00Z", "project": project,
                                    "title": f"session {sid} {ESC}"}]
    lines += [{"role": "user" if i % 2 == 0 else "assistant", "content": t, "id": f"e{i}",
               "timestamp": f"2026-03-{day:02d}T10:{i // 60:02d}:{i % 60:02d}Z"} for i, t in enumerate(texts)]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))


@pytest.fixture
def home(tmp_path: Path) -> dict[str, Path]:
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    (project / "memory").mkdir()
    root = tmp_path / "root"
    write_session(root / "old.jsonl", "old-1", [
        "Let's make the webhook retry policy per-endpoint.",
        "We decided to use exponential backoff for the webhook retry, because fixed delays flooded the "
        "endpoint during the outage.",
        f"the deploy token is {SECRET} and here is {ESC} a control",
        "Ledger-Deploy finished",
    ], project=str(project), day=1)
    write_session(root / "new.jsonl", "new-2", ["what is next", "the current work", "LEDGER-deploy again"],
                  project=str(project), day=2)
    write_session(root / "other.jsonl", "other-3", ["elsewhere entirely"], project=str(tmp_path / "else"), day=3)
    return {"tmp": tmp_path, "project": project, "root": root}


def environment(tmp: Path, **extra: str) -> dict[str, str]:
    return {"HOME": str(tmp / "home"), "SESSIONSCOPE_CACHE_DIR": str(tmp / "cache"),
            "SESSIONSCOPE_CONFIG": str(tmp / "none.toml"), "SESSIONSCOPE_DATA_DIR": str(tmp / "data"),
            "PYTHONPATH": os.pathsep.join(sys.path), **extra}


@asynccontextmanager
async def server(tmp: Path, *args: str, cwd: Path | None = None, **env: str) -> AsyncIterator[ClientSession]:
    params = StdioServerParameters(command=sys.executable, args=["-c", LAUNCH, "mcp", *args],
                                   env=environment(tmp, **env), cwd=str(cwd or tmp))
    with open(tmp / "server.err", "a") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                yield session


async def call(client: ClientSession, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments)
    text = result.content[0].text  # type: ignore[union-attr]
    data = json.loads(text)
    assert data == result.structuredContent
    assert result.isError == (data.get("ok") is False), data
    return data


async def error(client: ClientSession, tool: str, **arguments: Any) -> str:
    data = await call(client, tool, **arguments)
    assert data["ok"] is False and set(data) == {"ok", "error"}, data
    return data["error"]


async def test_the_tools_and_the_prompt_are_offered(home: dict[str, Path]) -> None:
    async with server(home["tmp"], "--root", str(home["root"])) as s:
        tools = {t.name: t for t in (await s.list_tools()).tools}
        assert set(tools) == {"session_logs", "session_context", "approved_brief", "memory_save",
                              "memory_load_last", "memory_list"}
        assert tools["session_logs"].inputSchema["properties"]["action"]["enum"] == [
            "list_sessions", "read_session", "search", "recent"]
        assert all("untrusted" in (t.description or "") for n, t in tools.items() if n != "memory_save")
        assert [p.name for p in (await s.list_prompts()).prompts] == ["session-context"]
        prompt = await s.get_prompt("session-context", {"task": "per-endpoint retries", "project": "/p"})
        text = prompt.messages[0].content.text  # type: ignore[union-attr]
        assert "Task: per-endpoint retries" in text and "Prior-session brief" in text
        assert "2 search rounds, 3 sessions read" in text and "Source: <agent:session-id#entry-id>" in text


async def test_session_logs_actions_and_their_errors(home: dict[str, Path]) -> None:
    async with server(home["tmp"], "--root", str(home["root"]), cwd=home["project"]) as s:
        listed = await call(s, "session_logs", action="list_sessions")
        assert [x["session_id"] for x in listed["sessions"]] == ["other-3", "new-2", "old-1"]
        assert set(listed["sessions"][0]) == {"session_id", "agent_id", "source_plugin", "entry_count",
                                              "first_timestamp", "last_timestamp"}
        assert len((await call(s, "session_logs", action="list_sessions", limit=1))["sessions"]) == 1

        read = await call(s, "session_logs", action="read_session", session_id="old", limit=2, max_chars=20)
        assert set(read) == {"header", "total_entries", "returned", "truncated", "entries"}
        assert (read["total_entries"], read["returned"], read["truncated"]) == (4, 2, True)
        assert read["header"]["session_id"] == "old-1"
        assert [len(e["content"]) <= 20 for e in read["entries"]] == [True, True]

        hits = (await call(s, "session_logs", action="search", query="ledger-DEPLOY"))["hits"]
        assert {h["session_id"] for h in hits} == {"old-1", "new-2"}
        assert set(hits[0]) == {"session_id", "timestamp", "role", "source_plugin", "preview"}

        # recent: the newest session of the working directory's project, not the newest of all
        recent = await call(s, "session_logs", action="recent", limit=2)
        assert set(recent) == {"session_id", "count", "entries"}
        assert recent["session_id"] == "new-2" and recent["count"] == 2
        assert [e["content"] for e in recent["entries"]] == ["the current work", "LEDGER-deploy again"]
        assert (await call(s, "session_logs", action="recent", session_id="old-1"))["count"] == 4

        assert "action must be one of list_sessions, read_session, search, recent" in await error(s, "session_logs")
        assert "got 'delete'" in await error(s, "session_logs", action="delete")
        assert await error(s, "session_logs", action="list_sessions", limit=0) == "limit must be between 1 and 500, got 0"
        assert "between 1 and 500, got 501" in await error(s, "session_logs", action="list_sessions", limit=501)
        assert "integer" in await error(s, "session_logs", action="list_sessions", limit="ten")
        assert "max_chars must be between 20 and 4000, got 19" in await error(
            s, "session_logs", action="read_session", session_id="old-1", max_chars=19)
        assert "no session matches id 'zzz'" in await error(s, "session_logs", action="read_session", session_id="zzz")
        assert "session_id must be" in await error(s, "session_logs", action="read_session")
        assert "no session matches id 'zzz'" in await error(s, "session_logs", action="recent", session_id="zzz")
        assert "query must be a non-empty string" in await error(s, "session_logs", action="search", query="")
        assert "query must be a non-empty string" in await error(s, "session_logs", action="search", query=5)
        assert "session_logs takes no argument 'sessionid'" in await error(
            s, "session_logs", action="recent", sessionid="old-1")
        assert "no tool 'session_log'" in await error(s, "session_log", action="recent")
        # still up
        assert (await call(s, "session_logs", action="list_sessions", limit=1))["sessions"]


async def test_recent_follows_the_agents_session_id(home: dict[str, Path]) -> None:
    # Claude Code's own variable (its stdio MCP servers get it since 2.1.154) before the older name
    async with server(home["tmp"], "--root", str(home["root"]), cwd=home["tmp"], CLAUDE_CODE_SESSION_ID="old-1",
                      CLAUDE_SESSION_ID="new-2") as s:
        assert (await call(s, "session_logs", action="recent"))["session_id"] == "old-1"


async def test_transcript_text_is_masked_and_made_visible(home: dict[str, Path]) -> None:
    async with server(home["tmp"], "--root", str(home["root"])) as s:
        answers = [await call(s, "session_logs", action="read_session", session_id="old-1", max_chars=4000),
                   await call(s, "session_logs", action="search", query="deploy token"),
                   await call(s, "session_logs", action="recent", session_id="old-1")]
        for data in answers:
            blob = json.dumps(data, ensure_ascii=False)
            assert "[secret masked: github-token]" in blob and SECRET not in blob
            assert "\x1b" not in blob and "\x07" not in blob and "␛]52;c;aGk=" in blob
        assert "\x1b" not in answers[0]["header"]["title"]


async def test_no_answer_carries_a_raw_control(tmp_path: Path) -> None:
    """The hostile home of tests/hostile.py (controls and invisible characters in ids, titles,
    agents, entries, notes) served: every string of every answer shows them visibly."""
    from hostile import TYPED, hostile_home, raw_controls

    h = hostile_home(tmp_path / "h")
    async with server(tmp_path, "--root", str(h.root), cwd=h.project) as s:
        answers = [
            await call(s, "session_logs", action="list_sessions"),
            await call(s, "session_logs", action="read_session", session_id=h.session_id, max_chars=4000),
            await call(s, "session_logs", action="search", query="widget"),
            await call(s, "session_logs", action="recent", session_id=h.session_id),
            await call(s, "session_logs", action="read_session", session_id=TYPED),
            await call(s, "session_context", task="widget cache decided", project=str(h.project)),
            await call(s, "memory_load_last", project="evil", dirs=[str(h.memory)]),
            await call(s, "memory_list", dirs=[str(h.memory)]),
        ]
    strings = [v for data in answers for v in _strings(data)]
    assert not [v for v in strings if raw_controls(v)]
    assert sum("␛]52" in v for v in strings) >= 5  # shown, not lost


async def test_no_history_says_how_to_configure_roots(home: dict[str, Path]) -> None:
    async with server(home["tmp"]) as s:  # an empty home: none of the default roots exists
        for action in ("list_sessions", "search", "recent"):
            message = await error(s, "session_logs", action=action, query="x")
            assert message.startswith("no session history to read: no agent history found")
            assert "roots = " in message and "--root DIR" in message
        context = await call(s, "session_context", task="flaky webhook retry")
        assert context["status"] == "unavailable" and context["brief"].startswith("Session history unavailable")
        assert (await call(s, "approved_brief", project=str(home["project"])))["found"] is False


async def test_session_context_and_approved_brief(home: dict[str, Path]) -> None:
    project = str(home["project"])
    async with server(home["tmp"], "--root", str(home["root"]), cwd=home["project"]) as s:
        data = await call(s, "session_context", task="webhook retry backoff policy", project=project)
        assert data["ok"] and data["approved_by_person"] is False and data["note"] == UNREVIEWED
        assert data["status"] == "found" and data["brief"].startswith("Prior-session brief")
        assert data["findings"] and all(f["source"] in data["brief"] for f in data["findings"])
        assert any("exponential backoff" in f["text"] for f in data["findings"])
        assert {k: data["budget"]["limits"][k] for k in ("rounds", "sessions", "tokens")} == {"rounds": 2, "sessions": 3, "tokens": 600}
        assert "task must be a non-empty string" in await error(s, "session_context", task=" ")
        assert "rounds must be between 1 and 10, got 0" in await error(s, "session_context", task="x", rounds=0)
        assert "files must be a list of strings" in await error(s, "session_context", task="x", files=[1])
        assert "no such directory" in await error(s, "session_context", task="x", project="/no/such/project")

        none = await call(s, "approved_brief", project=project)
        assert none["ok"] and none["found"] is False and "no brief has been approved" in none["message"]
        _approve(home, project)
        kept = await call(s, "approved_brief")  # default: the working directory's git repository
        assert kept["found"] and kept["approved_by_person"] and kept["project"] == project
        assert kept["text"].startswith("Prior-session brief") and kept["findings"][0]["source"].startswith("claude-code:")
        assert "project must be a string" in await error(s, "approved_brief", project=5)
        assert (await call(s, "approved_brief", project=project))["found"]


def _approve(home: dict[str, Path], project: str) -> None:
    """A brief approved in the composer, as the composer keeps it (core/brief/approved.py)."""
    from sessionscope.core.brief import approved
    from sessionscope.core.brief.compose import Task, compose, render_brief
    from sessionscope.core.catalog.library import Library
    from sessionscope.core.read.discovery import Root
    from sessionscope.core.search.index import SearchIndex

    lib = Library([Root(str(home["root"]), "explicit")])
    lib.scan()
    index = SearchIndex(home["tmp"] / "approve-index")
    index.update(lib)
    result = compose(lib, index, Task("webhook retry backoff policy"), project=project)
    index.close()
    first = result.findings[:1]
    assert approved.save(result, render_brief(result, first), first, base=home["tmp"] / "data")


async def test_memory_tools(home: dict[str, Path]) -> None:
    memory = str(home["project"] / "memory")
    async with server(home["tmp"], "--root", str(home["root"]), cwd=home["project"]) as s:
        saved = await call(s, "memory_save", dir=memory, project="proj", session="2026-03-02-10-00",
                           status="in-progress", last_checkpoint="CP-S2", summary=f"token {SECRET}",
                           steps=["S1"], decisions=["CP-S1=b:faster"])
        assert saved["ok"] and saved["created"] and saved["path"].startswith(memory)
        assert SECRET not in json.dumps(saved)
        again = await call(s, "memory_save", dir=memory, note="---\nproject-name: proj\nsession: 2026-03-02-10-00\n"
                           "status: paused\n---\n## Session summary\nfrom a note\n")
        assert again["ok"] and not again["created"]
        last = await call(s, "memory_load_last", project="proj", dirs=[memory])
        assert last["found"] and "status: paused" in last["line"]
        assert (await call(s, "memory_load_last", project="proj"))["found"]  # the known projects' folders
        assert (await call(s, "memory_load_last", project="nothing-here", dirs=[memory]))["found"] is False
        listed = await call(s, "memory_list", dirs=[memory])
        assert listed["count"] == 1 and listed["items"][0]["path"].endswith("-proj.md")

        assert "memory directory not found at /no/such" in await error(s, "memory_save", dir="/no/such",
                                                                       project="p", session="2026-03-02-10-00")
        assert "dir must be a non-empty string" in await error(s, "memory_save", project="p")
        assert "status must be one of in-progress, paused, completed" in await error(
            s, "memory_save", dir=memory, project="p", session="2026-03-02-10-00", status="done")
        assert "--decision expects CP=OPTION[:NOTE]" in await error(
            s, "memory_save", dir=memory, project="p", session="2026-03-02-10-00", decisions=["nope"])
        assert "--session is required" in await error(s, "memory_save", dir=memory, project="p")
        assert "memory directory not found" in await error(s, "memory_load_last", project="p", dirs=["/no/such"])
        assert "project must be a non-empty string" in await error(s, "memory_load_last")
        assert "limit must be between 1 and 500" in await error(s, "memory_list", limit=0)
        assert "dirs must be a list of strings" in await error(s, "memory_list", dirs=[3])
        assert (await call(s, "memory_list", dirs=[memory]))["count"] == 1


@pytest.fixture
def flood(tmp_path: Path) -> dict[str, Path]:
    """Sessions made to flood: 520 entries of 6,000 characters each (a secret, controls, bidi
    overrides and a distinctive word in every one: more than any limit and max_chars take), 510
    small sessions, and a session of long decisions for the brief."""
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    (project / "memory").mkdir()
    root = tmp_path / "root"
    body = (f"floodword {SECRET} {ESC} \u202e " * 100)[:6000]
    write_session(root / "f0.jsonl", "flood-0", [body] * 520, project=str(project), day=1)
    for n in range(510):  # many sessions for the listing
        write_session(root / "many" / f"m{n}.jsonl", f"many-{n:04d}", ["x"], project=str(project), day=4)
    big = "We decided to keep floodword because the flood " + ("happens " * 2000) + ". "
    write_session(root / "brief.jsonl", "brief-1", [big] * 40, project=str(project), day=5)
    return {"tmp": tmp_path, "project": project, "root": root}


async def test_the_largest_answer_of_each_tool_stays_bounded(flood: dict[str, Path]) -> None:
    tmp, project = flood["tmp"], str(flood["project"])

    def size(data: dict[str, Any]) -> int:
        return len(json.dumps(data, ensure_ascii=False))

    async with server(tmp, "--root", str(flood["root"]), cwd=flood["project"]) as s:
        listed = await call(s, "session_logs", action="list_sessions", limit=500)
        assert len(listed["sessions"]) == 500 and size(listed) <= 500 * 400

        entry_room = 4000 + 600  # a content of max_chars and the entry's other keys
        read = await call(s, "session_logs", action="read_session", session_id="flood-0", limit=500, max_chars=4000)
        assert read["returned"] == 500 and all(len(e["content"]) <= 4000 for e in read["entries"])
        assert size(read) <= 500 * entry_room + 20000
        recent = await call(s, "session_logs", action="recent", session_id="flood-0", limit=500, max_chars=4000)
        assert recent["count"] == 500 and size(recent) <= 500 * entry_room
        hits = await call(s, "session_logs", action="search", query="floodword", limit=500, max_chars=4000)
        assert len(hits["hits"]) == 500 and size(hits) <= 500 * (4000 + 300)
        for data in (read, recent, hits):
            blob = json.dumps(data, ensure_ascii=False)
            assert SECRET not in blob and "\x1b" not in blob and "\u202e" not in blob

        context = await call(s, "session_context", task="keep floodword", project=project, tokens=20000)
        assert context["tokens"] <= 20000 and size(context) <= 3 * 4 * 20000 + 20000

        memory = str(flood["project"] / "memory")
        for n in range(3):
            await call(s, "memory_save", dir=memory, project="proj", session=f"2026-03-0{n + 1}-10-00",
                       summary="y" * 30000, key_decisions=["z" * 30000] * 60)
        last = await call(s, "memory_load_last", project="proj", dirs=[memory], max_chars=20000)
        assert all(len(v) <= 20000 for v in _strings(last)) and all(len(v) <= 50 for v in _lists(last))
        listed_memory = await call(s, "memory_list", dirs=[memory], limit=500, max_chars=4000)
        assert all(len(v) <= 4000 for v in _strings(listed_memory))
        assert size(listed_memory) <= 3 * 50 * 4000 * 2


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _lists(value: Any) -> list[list[Any]]:
    if isinstance(value, dict):
        return [x for v in value.values() for x in _lists(v)]
    if isinstance(value, list):
        return [value, *(x for v in value for x in _lists(v))]
    return []


def test_a_warm_server_is_kept_current_by_the_watcher(home: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """Once its library is open the server watches the roots (core/live): a session written
    after it started is searchable with no stat pass of every file at call time."""
    from sessionscope.cli import mcp
    from sessionscope.cli.main import build_parser

    for var, value in environment(home["tmp"]).items():
        monkeypatch.setenv(var, value)
    args = build_parser("mcp").parse_args(["mcp", "--root", str(home["root"])])
    backend = mcp.Backend(args)
    backend.start()
    assert backend.ready.wait(60) and backend.error is None
    assert backend.watcher is not None and backend.watcher.caught_up.wait(60)
    assert backend.live
    kept = backend.index._newest  # the newest documents in order, for common substrings
    assert kept is not None and len(kept[1]) == backend.index._searcher()[1].num_docs
    assert backend.index._vocab is not None and backend.index._vocab[0] == kept[0]  # (read already)
    assert backend.index._vocab[1].has_grams  # (filed by trigram)
    assert gc.get_freeze_count() > 0  # what the open made: frozen, collections pass over it
    gc.unfreeze()
    backend.applied.clear()
    write_session(home["root"] / "later.jsonl", "later-4", ["a zanzibar migration plan"], project="/p", day=4)
    assert backend.applied.wait(60)
    with backend.lock:
        refreshed = backend.refreshed
        hits = mcp.session_logs(backend, action="search", query="zanzibar")["hits"]
        assert backend.refreshed == refreshed  # answered from memory: no refresh at call time
        # ...kept again for the batch's commit by the watcher, not by the call
        assert backend.index._newest[0] == backend.index._searcher()[0] != kept[0]
        assert backend.index._vocab[0] == backend.index._newest[0]
        assert backend.index._vocab[1].has_grams and backend.index._vocab[1].containing("zanzib") == ["zanzibar"]
    assert [h["session_id"] for h in hits] == ["later-4"]
    backend.watcher.stop.set()


def test_young_garbage_is_collected_after_an_answer_is_written(monkeypatch: pytest.MonkeyPatch) -> None:
    """`PipeWriter.flush`: once an answer is handed to the pipe, the young generations are
    collected when they are half way to their threshold (the middle one too when it is next to
    its own), not in the middle of the next call; below that, nothing is collected. (The
    collector's counts are given: other tests' servers collect in their own threads.)"""
    import anyio

    from sessionscope.cli import mcp

    class Writer:
        def write(self, data: bytes) -> None:
            pass

        async def drain(self) -> None:
            pass

    count = [(0, 0, 0)]
    collected: list[int] = []
    monkeypatch.setattr(gc, "get_threshold", lambda: (700, 10, 10))
    monkeypatch.setattr(gc, "get_count", lambda: count[0])
    monkeypatch.setattr(gc, "collect", lambda generation=2: collected.append(generation) or 0)
    out = mcp.PipeWriter(Writer())
    for young, middle, expected in ((349, 9, []), (350, 3, [0]), (690, 9, [1]), (0, 9, [])):
        count[0] = (young, middle, 0)
        collected.clear()
        anyio.run(out.flush)
        assert collected == expected, (young, middle)


def test_a_warm_search_is_answered_on_the_event_loop_and_the_rest_in_a_thread(
        home: dict[str, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    """Backend.quick: once the library is open and watched, a search or listing is answered on
    the server's event loop (no hand-off to a thread and back); reading a session, the other
    tools, and any call while the watcher holds the lock go to a worker thread."""
    import threading

    import anyio
    import mcp.types as types

    from sessionscope.cli import mcp
    from sessionscope.cli.main import build_parser

    for var, value in environment(home["tmp"]).items():
        monkeypatch.setenv(var, value)
    args = build_parser("mcp").parse_args(["mcp", "--root", str(home["root"])])
    backend = mcp.Backend(args)
    backend.start()
    assert backend.ready.wait(60) and backend.error is None and backend.watcher.caught_up.wait(60)
    server = mcp.build_server(args, backend)
    handler = server.request_handlers[types.CallToolRequest]
    threads: list[str] = []
    answer = mcp.call
    monkeypatch.setattr(mcp, "call", lambda *a: threads.append(threading.current_thread().name) or answer(*a))

    async def ask(**arguments: Any) -> dict[str, Any]:
        req = types.CallToolRequest(method="tools/call", params=types.CallToolRequestParams(
            name=arguments.pop("tool", "session_logs"), arguments=arguments))
        return (await handler(req)).root.structuredContent

    async def calls() -> list[dict[str, Any]]:
        out = [await ask(action="search", query="webhook"), await ask(action="list_sessions", limit=2),
               await ask(action="read_session", session_id="old-1", limit=1),
               await ask(tool="approved_brief", project=str(home["project"]))]
        held = threading.Event()
        release = threading.Event()

        def hold() -> None:
            with backend.lock:
                held.set()
                release.wait(30)

        threading.Thread(target=hold, daemon=True).start()
        held.wait(30)
        pending = ask(action="search", query="webhook")
        async with anyio.create_task_group() as tg:
            async def later() -> None:
                await anyio.sleep(0)  # (the call is waiting in its thread for the lock by now or soon)
                release.set()
            tg.start_soon(later)
            out.append(await pending)
        return out

    answers = anyio.run(calls)
    loop = threading.main_thread().name
    assert threads[:2] == [loop, loop] and loop not in threads[2:], threads
    assert len(threads) == 5 and [bool(a.get("ok", True)) for a in answers] == [True] * 5
    assert answers[0]["hits"] and answers[0] == answers[4]
    backend.watcher.stop.set()


def test_the_server_imports_the_sdk_without_its_client_and_http_stack() -> None:
    """`lean_sdk_imports` (the server's own process): the SDK's stdio server and protocol types
    import from the installed SDK, its package __init__ files' client, FastMCP and HTTP stack do
    not, and a module put off (jsonschema) still works when a validation path uses it."""
    import subprocess

    code = """if True:
        import sys
        from sessionscope.cli.mcp import lean_sdk_imports
        lean_sdk_imports()
        import mcp.types
        from mcp.server.lowlevel import Server
        from mcp.server.stdio import stdio_server
        Server("x")
        loaded = sorted(m for m in ("mcp.client.session", "mcp.server.fastmcp", "starlette", "uvicorn")
                        if m in sys.modules)
        real = [m for m in ("jsonschema", "httpx") if type(sys.modules[m]).__name__ != "_OnFirstUse"]
        print(loaded, real)
        import jsonschema
        try:
            jsonschema.validate(instance=3, schema={"type": "string"})
        except jsonschema.ValidationError:
            print("validated", type(sys.modules["jsonschema"]).__name__)
    """
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:2] == ["[] []", "validated module"]


def test_stdio_is_read_by_the_event_loop_on_pipes_and_by_the_sdk_otherwise(tmp_path: Path) -> None:
    """`pipe_files`: an agent's pipes are read and written by the event loop (no worker thread
    per line); stdin from a file gets the SDK's own files, and the server still answers."""
    import subprocess

    code = ("import asyncio; from sessionscope.cli.mcp import pipe_files; "
            "print([type(f).__name__ for f in asyncio.run(pipe_files())])")
    piped = subprocess.run([sys.executable, "-c", code], stdin=subprocess.PIPE, capture_output=True, text=True,
                           timeout=120)
    assert piped.stdout.strip() == "['PipeLines', 'PipeWriter']", piped.stderr
    request = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    (tmp_path / "in.jsonl").write_text(json.dumps(request) + "\n")
    with (tmp_path / "in.jsonl").open("rb") as stdin:
        filed = subprocess.run([sys.executable, "-c", code], stdin=stdin, capture_output=True, text=True, timeout=120)
        assert filed.stdout.strip() == "['NoneType', 'NoneType']", filed.stderr
        stdin.seek(0)
        served = subprocess.run([sys.executable, "-c", LAUNCH, "mcp", "--root", str(tmp_path)], stdin=stdin,
                                capture_output=True, text=True, timeout=120)
    assert served.returncode == 0, served.stderr
    assert json.loads(served.stdout.splitlines()[0])["result"]["serverInfo"]["name"] == "sessionscope"
