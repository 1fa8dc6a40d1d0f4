"""The demo corpus: deterministic, valid JSONL (but for its one broken line), the expected layout."""
from __future__ import annotations

import hashlib
import json
from datetime import datetime, timedelta, timezone
from importlib import resources
from pathlib import Path

import pytest

from sessionscope.core.demo import DemoCorpus, escape_project_dir, generate_demo, render
from sessionscope.core.demo.generate import manifest

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=timezone.utc)


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> DemoCorpus:
    return generate_demo(tmp_path_factory.mktemp("demo"), now=NOW)


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes()
            for p in sorted(root.rglob("*")) if p.is_file()}


def _records(path: Path) -> list[dict]:
    """The records of a file, skipping the one deliberately broken line (tested on its own)."""
    out = []
    for line in path.read_text("utf-8").splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            continue
    return out


def test_same_now_gives_identical_bytes(tmp_path: Path) -> None:
    a = generate_demo(tmp_path / "a", now=NOW)
    b = generate_demo(tmp_path / "b", now=NOW)
    ta, tb = _tree(a.root), _tree(b.root)
    assert ta == tb
    # + .meta.json files (one subagent has none) + the memory files beside the transcripts
    # + the files an OpenCode session keeps beside its session file
    assert len(ta) == a.files + a.claude_subagents - 1 + len(a.memory_files) + len(a.extra_files)
    mtimes = {p.relative_to(a.root): p.stat().st_mtime for p in a.paths}
    assert mtimes == {p.relative_to(b.root): p.stat().st_mtime for p in b.paths}


LISTING = Path(__file__).parent.parent / "data" / "demo_listing.txt"


@pytest.mark.parametrize("now", [NOW, datetime(2026, 5, 20, 1, 30, 17, 523411, tzinfo=timezone.utc)])
def test_files_are_byte_for_byte_the_listed_ones(now: datetime, tmp_path: Path) -> None:
    """The listing (path, sha256, mtime) is what the generator wrote before the corpus became
    templates; a file added since may be missing from it, a listed one may not change."""
    listing: dict[str, dict[str, tuple[str, float]]] = {}
    for line in LISTING.read_text().splitlines():
        if line.startswith("# now="):
            files = listing.setdefault(line.removeprefix("# now="), {})
        else:
            path, sha, mtime = line.split()
            files[path] = (sha, float(mtime))
    generate_demo(tmp_path, now=now)
    got = {p.relative_to(tmp_path).as_posix(): (hashlib.sha256(p.read_bytes()).hexdigest(),
                                                 p.stat().st_mtime)
           for p in tmp_path.rglob("*") if p.is_file()}
    want = listing[now.isoformat()]
    assert {k: got.get(k) for k in want} == want


def test_every_template_is_listed_once_and_renders(tmp_path: Path) -> None:
    data = resources.files("sessionscope.core.demo") / "data"
    entries = manifest()["files"]
    listed = [e["template"] for e in entries]
    assert len(listed) == len(set(listed))
    on_disk = {p.relative_to(Path(str(data))).as_posix() for p in Path(str(data)).rglob("*")
               if p.is_file() and p.name != "manifest.json"}
    assert on_disk == set(listed)
    assert all(set(e) <= {"template", "path", "mtime", "agent", "subagent", "mark", "memory"}
               for e in entries)


@pytest.mark.parametrize("text", ["{{d-1T25:00}}", "{{now-1h}}", "{{d-1T10:00:00|nope}}",
                                  '"{{d-1T10:00:00|epoch}"'])
def test_a_malformed_placeholder_is_an_error_naming_its_line(text: str) -> None:
    with pytest.raises(ValueError, match=r"^x\.jsonl:2: "):
        render("{}\n" + text, NOW, name="x.jsonl")


def test_placeholders_fill_in_times_around_now() -> None:
    now = datetime(2026, 3, 1, 12, 0, 0, 250000, tzinfo=timezone.utc)
    assert render('{"t":"{{d-2T09:17:54.8695}}","r":"{{d-2T09:17:54.8695|epoch}}"}', now) == \
        '{"t":"2026-02-27T09:17:54.869Z","r":1772183874}'
    assert render("{{now-03:00:00.3|%H:%M:%S}} {{d+0T00:00:01|uuid7-7abc-8def-0123456789ab}}", now) \
        == "08:59:59 019ca6b1-dfe8-7abc-8def-0123456789ab"


def test_every_line_is_json_except_the_broken_one(demo: DemoCorpus) -> None:
    bad: list[tuple[Path, int]] = []
    for path in demo.paths:
        if path.suffix == ".json":  # a JSON document (OpenCode's session file), pretty-printed
            assert isinstance(json.loads(path.read_bytes()), dict)
            continue
        if path.name.startswith(".aider."):  # Aider keeps Markdown and its input history, not JSON
            head = path.read_bytes().lstrip()
            assert head.startswith(b"# aider chat started at " if path.name.endswith(".md") else b"# ")
            continue
        for n, line in enumerate(path.read_bytes().split(b"\n"), 1):
            if not line:
                continue
            try:
                value = json.loads(line)
            except ValueError:
                bad.append((path, n))
                continue
            assert isinstance(value, dict)
        assert path.read_bytes().endswith(b"\n")
    assert bad == [(demo.broken_file, demo.broken_line)]
    # valid lines follow the broken one
    assert len(demo.broken_file.read_bytes().splitlines()) > demo.broken_line + 3


def test_counts_and_sizes(demo: DemoCorpus) -> None:
    assert 10 <= demo.claude_sessions <= 14
    assert 5 <= demo.codex_sessions <= 7
    assert demo.claude_subagents >= 1
    assert demo.files == len(demo.paths) == demo.claude_sessions + demo.claude_subagents \
        + demo.codex_sessions + sum(demo.other_sessions.values())
    assert demo.other_sessions == {"copilot-cli": 1, "pi": 1, "opencode": 1, "gemini-cli": 1, "aider": 1}
    assert demo.bytes == sum(p.stat().st_size for p in demo.paths)
    assert 3_000_000 <= demo.big_file.stat().st_size <= 5_000_000
    assert len(_records(demo.big_file)) > 2000


def test_timestamps_lie_in_the_three_weeks_before_now(demo: DemoCorpus) -> None:
    stamps = []
    for path in demo.paths:
        for rec in _records(path):
            if isinstance(rec.get("timestamp"), str):
                stamps.append(rec["timestamp"])
    assert all(len(s) == 24 and s.endswith("Z") and s[19] == "." for s in stamps)
    assert min(stamps) >= "2026-02-08" and max(stamps) < "2026-03-01T12:00:00.000Z"


def test_claude_layout(demo: DemoCorpus) -> None:
    projects = demo.claude_root / "projects"
    names = {p.name for p in projects.iterdir()}
    assert {escape_project_dir(c) for c in (
        "/home/dev/projects/payments-api", "/home/dev/projects/web-dashboard",
        "/home/dev/projects/infra", "/home/dev/work/ml_experiments.v2")} == names
    assert "-home-dev-work-ml-experiments-v2" in names
    for path in projects.glob("*/*.jsonl"):
        recs = [r for r in _records(path) if "sessionId" in r]
        assert {r["sessionId"] for r in recs} == {path.stem}


def test_subagent_with_meta_and_parent_task(demo: DemoCorpus) -> None:
    agents = sorted(demo.claude_root.glob("projects/*/*/subagents/agent-*.jsonl"))
    explore = [p for p in agents if not p.name.startswith("agent-acompact-")]
    assert len(explore) == 1
    sub = explore[0]
    meta = json.loads(sub.with_name(sub.stem + ".meta.json").read_text())
    assert meta["agentType"] == "Explore"
    parent_sid = sub.parent.parent.name
    parent = sub.parent.parent.parent / f"{parent_sid}.jsonl"
    sub_recs = _records(sub)
    agent_id = sub.stem.removeprefix("agent-")
    assert all(r["isSidechain"] and r["agentId"] == agent_id and r["sessionId"] == parent_sid
               for r in sub_recs)
    assert sub_recs[0]["parentUuid"] is None
    recs = _records(parent)
    task_ids = [b["id"] for r in recs if r.get("type") == "assistant"
                for b in r["message"]["content"] if b.get("type") == "tool_use"
                and b["name"] == "Task"]
    assert len(task_ids) == 1
    progress = [r for r in recs if r.get("type") == "progress"
                and r["data"].get("type") == "agent_progress"]
    assert progress and all(r["parentToolUseID"] == task_ids[0]
                            and r["data"]["agentId"] == agent_id for r in progress)
    results = [r for r in recs if r.get("type") == "user"
               and isinstance(r["toolUseResult"] if "toolUseResult" in r else None, dict)
               and r["toolUseResult"].get("agentId") == agent_id]
    assert len(results) == 1


def test_split_replies_share_message_id(demo: DemoCorpus) -> None:
    by_id: dict[str, int] = {}
    for path in demo.paths:
        if demo.codex_root in path.parents:
            continue
        for rec in _records(path):
            if rec.get("type") == "assistant":
                assert len(rec["message"]["content"]) == 1
                by_id[rec["message"]["id"]] = by_id.get(rec["message"]["id"], 0) + 1
    assert max(by_id.values()) >= 3


def test_compaction(demo: DemoCorpus) -> None:
    found = []
    for path in demo.claude_root.glob("projects/*/*.jsonl"):
        recs = _records(path)
        for i, rec in enumerate(recs):
            if rec.get("subtype") == "compact_boundary":
                assert rec["parentUuid"] is None and rec["logicalParentUuid"]
                nxt = recs[i + 1]
                assert nxt["isCompactSummary"] is True
                assert nxt["message"]["content"].startswith("This session is being continued")
                found.append(path)
    assert len(found) == 1
    assert list(found[0].with_suffix("").glob("subagents/agent-acompact-*.jsonl"))


def test_tool_calls_and_failing_run(demo: DemoCorpus) -> None:
    names: set[str] = set()
    errors = 0
    for path in demo.claude_root.glob("projects/*/*.jsonl"):
        for rec in _records(path):
            content = rec.get("message", {}).get("content")
            if not isinstance(content, list):
                continue
            for b in content:
                if b.get("type") == "tool_use":
                    names.add(b["name"])
                if b.get("type") == "tool_result" and b.get("is_error"):
                    errors += 1
    assert {"Bash", "Read", "Edit", "Write", "Grep", "Task"} <= names
    assert errors >= 2


def test_codex_layout_and_exec_run(demo: DemoCorpus) -> None:
    rollouts = sorted(demo.codex_root.glob("sessions/*/*/*/rollout-*.jsonl"))
    assert len(rollouts) == demo.codex_sessions
    originators = set()
    for path in rollouts:
        recs = _records(path)
        assert all(set(r) == {"timestamp", "type", "payload"} for r in recs)
        meta = recs[0]
        assert meta["type"] == "session_meta"
        originators.add(meta["payload"]["originator"])
        assert path.name.endswith(meta["payload"]["id"] + ".jsonl")
        yyyy, mm, dd = path.parts[-4:-1]
        assert path.name.startswith(f"rollout-{yyyy}-{mm}-{dd}T")
        types = {(r["type"], r["payload"].get("type")) for r in recs}
        assert ("event_msg", "token_count") in types
        assert any(r["type"] == "turn_context" and r["payload"].get("model") for r in recs)
    assert "codex_exec" in originators
    exec_meta = _records(demo.exec_file)[0]["payload"]
    assert exec_meta["originator"] == "codex_exec" and exec_meta["source"] == "exec"
    calls = {r["payload"].get("name") for p in rollouts for r in _records(p)
             if r["payload"].get("type") in ("function_call", "custom_tool_call")}
    assert {"shell", "exec_command", "apply_patch", "update_plan"} <= calls


def test_markup_and_escape_survive_json(demo: DemoCorpus) -> None:
    raw = demo.markup_file.read_bytes()
    assert b"\\u001b[31m" in raw and b"\x1b" not in raw
    text = "\n".join(json.dumps(r, ensure_ascii=False) for r in _records(demo.markup_file))
    assert "[bold]x[/bold]" in text
    assert "\x1b[31m" in "".join(
        r["message"]["content"] for r in _records(demo.markup_file)
        if r.get("type") == "user" and isinstance(r["message"]["content"], str))


def test_mining_phrases_present(demo: DemoCorpus) -> None:
    text = b"".join(p.read_bytes() for p in demo.paths).decode("utf-8")
    for phrase in ("instead of", "didn't work, reverting", "tests pass", "Still open:"):
        assert phrase.lower() in text.lower(), phrase


# -- memory ---------------------------------------------------------------------------------------
PAYMENTS = "/home/dev/projects/payments-api"
DASHBOARD = "/home/dev/projects/web-dashboard"
INFRA = "/home/dev/projects/infra"


def _notes(demo: DemoCorpus) -> dict[str, list[Path]]:
    return {project: sorted(folder.glob("*.md")) for project, folder in demo.memory_dirs.items()}


def test_memory_notes_sit_in_stand_in_checkouts(demo: DemoCorpus) -> None:
    from sessionscope.core.memory.notes import parse_note_name

    notes = _notes(demo)
    assert {p: len(n) for p, n in notes.items()} == {PAYMENTS: 3, DASHBOARD: 2, INFRA: 2}
    for project, paths in notes.items():
        name = project.rsplit("/", 1)[-1]
        assert demo.project_dirs[project] == demo.root / "workspace" / name
        assert demo.memory_dirs[project] == demo.project_dirs[project] / "memory"
        assert all(parse_note_name(p.name) == (p.name[:16], name) for p in paths)
    assert set(demo.memory_files) >= {p for paths in notes.values() for p in paths}
    assert all(p.is_file() and p.is_relative_to(demo.root) for p in demo.memory_files)
    assert not set(demo.memory_files) & set(demo.paths)  # the transcripts' count is unchanged


def test_memory_notes_read_as_intended(demo: DemoCorpus) -> None:
    from sessionscope.core.memory.places import read_note

    notes = [read_note(p) for paths in _notes(demo).values() for p in paths]
    assert sorted(n.schema_version for n in notes) == ["1.0"] + ["1.1"] * 6
    legacy = next(n for n in notes if n.schema_version == "1.0")
    assert legacy.last_checkpoint == "CP-S3" and legacy.checkpoints_approved == ["CP-S1", "CP-S2", "CP-S3"]
    assert not legacy.warnings  # 1.0 spellings are what a 1.0 note is allowed to have
    odd = [n for n in notes if n.warnings]
    assert len(odd) == 1 and odd[0].project == "web-dashboard"
    assert any("should be a list" in w for w in odd[0].warnings)
    assert {n.status for n in notes} == {"in-progress", "paused", "completed"}
    assert all(n.summary and n.steps and n.active_state and n.key_decisions for n in notes)
    for n in notes:
        if n.schema_version == "1.1":  # saved after the session began (the name holds UTC minutes)
            started = datetime.strptime(n.session, "%Y-%m-%d-%H-%M").replace(tzinfo=timezone.utc)
            assert n.last_session_at is not None and n.last_session_at > started


def test_each_note_follows_a_session_of_its_project(demo: DemoCorpus) -> None:
    from sessionscope.core.memory.places import read_note

    for project, paths in _notes(demo).items():
        starts = []
        for f in (demo.claude_root / "projects" / escape_project_dir(project)).glob("*.jsonl"):
            stamps = [r["timestamp"] for r in _records(f) if isinstance(r.get("timestamp"), str)]
            starts.append(datetime.fromisoformat(min(stamps).replace("Z", "+00:00")))
        for p in paths:
            stamp = datetime.strptime(p.name[:16], "%Y-%m-%d-%H-%M").replace(tzinfo=timezone.utc)
            assert any(abs(s - stamp).total_seconds() < 5 * 60 for s in starts), p.name
            assert NOW - timedelta(days=21) <= stamp < NOW
            note = read_note(p)
            if note.last_session_at is not None:
                assert note.last_session_at < NOW


def test_auto_memory_and_instruction_files(demo: DemoCorpus) -> None:
    auto = demo.claude_root / "projects" / escape_project_dir(PAYMENTS) / "memory"
    assert sorted(p.name for p in auto.iterdir()) == ["MEMORY.md", "feedback_testing.md", "project_retry_policy.md"]
    index = (auto / "MEMORY.md").read_text()
    assert "(project_retry_policy.md)" in index and "(feedback_testing.md)" in index
    checkout = demo.project_dirs[PAYMENTS]
    assert (checkout / "CLAUDE.md").read_text().startswith("@AGENTS.md\n")
    assert (checkout / "AGENTS.md").is_file()


def test_memory_items_belong_to_the_demo_projects(demo: DemoCorpus) -> None:
    items = demo.memory_items()
    assert len(items) == 12
    assert {it.project for it in items} == {PAYMENTS, DASHBOARD, INFRA}
    kinds = {it.kind for it in items if it.project == PAYMENTS}
    assert kinds == {"session-note", "auto-memory-index", "auto-memory-topic", "instructions"}
    claude_md = next(it for it in items if it.name == "CLAUDE.md")
    assert claude_md.imports == (str(demo.project_dirs[PAYMENTS] / "AGENTS.md"),)
    index = next(it for it in items if it.kind == "auto-memory-index")
    assert not index.warnings and index.summary == "2 memories: Retry policy, Testing feedback"


def test_load_last_resumes_the_newest_payments_note(demo: DemoCorpus) -> None:
    from sessionscope.core.memory.places import load_last

    result = load_last("payments-api", [demo.memory_dirs[PAYMENTS]], now=NOW)
    assert result.found and not result.warnings
    assert result.line.startswith("Resuming payments-api (last touched ")
    assert result.line.endswith(" ago, status: in-progress at CP-S2)")


def test_memory_files_are_deterministic_with_their_mtimes(tmp_path: Path) -> None:
    a = generate_demo(tmp_path / "a", now=NOW)
    b = generate_demo(tmp_path / "b", now=NOW)
    rel = lambda c: {p.relative_to(c.root): (p.read_bytes(), p.stat().st_mtime) for p in c.memory_files}  # noqa: E731
    assert rel(a) == rel(b)
    assert all(m <= NOW.timestamp() for _, m in rel(a).values())
