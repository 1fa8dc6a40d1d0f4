"""`sessionscope memory save | load-last | list`: JSON shapes, text output, errors and exit codes."""
from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

import pytest
from helpers import isolate

from sessionscope.cli import main as cli, memory as memory_cli
from sessionscope.core.memory.places import claude_dir_name


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    isolate(tmp_path, monkeypatch)
    (tmp_path / "cwd").mkdir()
    monkeypatch.chdir(tmp_path / "cwd")


@pytest.fixture(autouse=True)
def wired(monkeypatch: pytest.MonkeyPatch) -> None:
    """Register `memory` in the main parser the way cli/main.py does once it is wired in (and leave
    the real wiring alone when it already is)."""
    build = cli.build_parser
    if "memory" in _subparsers(build()).choices:
        return

    def build_with_memory() -> argparse.ArgumentParser:
        p = build()
        common = cli._Parser(add_help=False)
        common.add_argument("--root", action="append", default=[], metavar="DIR")
        common.add_argument("--demo", action="store_true")
        common.add_argument("--json", action="store_true")
        memory_cli.add_parser(_subparsers(p), common)
        return p

    monkeypatch.setattr(cli, "build_parser", build_with_memory)
    monkeypatch.setitem(cli.COMMANDS, "memory", memory_cli.run)


def _subparsers(p: argparse.ArgumentParser) -> Any:
    return next(a for a in p._actions if isinstance(a, argparse._SubParsersAction))


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(["memory", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


def fail_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[str, str]:
    code, out, err = run(capsys, *argv, "--json")
    assert code == 2
    data = json.loads(out)
    assert data["ok"] is False and set(data) == {"ok", "error"}
    assert err.count("\n") == 1 and err.startswith("sessionscope")  # one line on stderr
    return data["error"], err


@pytest.fixture
def mem(tmp_path: Path) -> Path:
    d = tmp_path / "proj" / "memory"
    d.mkdir(parents=True)
    return d


SAVE = ["--project", "foo-system", "--session", "2026-11-17-09-30"]


# -- save -------------------------------------------------------------------------------------------
def test_save_json_shape(capsys: pytest.CaptureFixture[str], mem: Path) -> None:
    data = run_json(capsys, "save", "--dir", str(mem), *SAVE, "--status", "in-progress", "--mode", "guided",
                    "--last-checkpoint", "CP-S2", "--approve", "CP-S0", "--approve", "CP-S1",
                    "--decision", "CP-S1=b:keep the v1 API", "--decision", "CP-S0=a", "--target-dir", "/home/dev/foo",
                    "--summary", "Built the orders API.", "--step", "S1 storage", "--step", "S2 API",
                    "--active-state", "Choosing pagination.", "--key-decision", "SQLite for v1")
    assert set(data) == {"path", "created", "schema_version", "migrated_from", "note", "warnings"}
    assert data["path"] == str(mem / "2026-11-17-09-30-foo-system.md") and data["created"] is True
    assert data["schema_version"] == "1.1" and data["migrated_from"] is None and data["warnings"] == []
    note = data["note"]
    assert note["checkpoint_decisions"] == {"CP-S1": {"option": "b", "note": "keep the v1 API", "regenerated_count": 0},
                                           "CP-S0": {"option": "a", "note": "", "regenerated_count": 0}}
    assert note["checkpoints_approved"] == ["CP-S0", "CP-S1"] and note["steps"] == ["S1 storage", "S2 API"]
    assert note["last_session_at"].endswith("Z")
    again = run_json(capsys, "save", "--dir", str(mem), *SAVE, "--status", "paused")
    assert again["created"] is False and again["note"]["mode"] == "guided"


def test_save_text_output_and_migration(capsys: pytest.CaptureFixture[str], mem: Path, data_dir: Path) -> None:
    legacy = data_dir / "memory" / "notes" / "2026-11-10-08-15-foo-system.md"
    (mem / legacy.name).write_bytes(legacy.read_bytes())
    code, out, err = run(capsys, "save", "--dir", str(mem), "--project", "foo-system",
                         "--session", "2026-11-10T08:15", "--status", "completed")
    assert code == 0 and err == ""
    assert out == f"saved {mem / legacy.name} (updated, migrated from schema 1.0 to 1.1)\n"
    assert "schema_version: 1.1" in (mem / legacy.name).read_text()


def test_save_from_markdown_note(capsys: pytest.CaptureFixture[str], mem: Path, data_dir: Path, tmp_path: Path) -> None:
    src = data_dir / "memory" / "notes" / "2026-11-17-09-30-foo-system.md"
    data = run_json(capsys, "save", "--dir", str(mem), "--from", str(src), "--status", "paused")
    assert data["path"] == str(mem / src.name)  # project and session from the note itself
    assert data["note"]["status"] == "paused" and data["note"]["last_checkpoint"] == "CP-S2"
    assert data["note"]["checkpoint_decisions"]["CP-S1"]["regenerated_count"] == 1


def test_save_from_json_round_trips_load_last(capsys: pytest.CaptureFixture[str], mem: Path, tmp_path: Path) -> None:
    flat = tmp_path / "note.json"
    flat.write_text(json.dumps({"project-name": "foo", "session": "2026-11-17T09:30", "status": "in-progress",
                                "last_checkpoint": "CP-S1", "summary": "From JSON.", "steps": ["S1"]}))
    run_json(capsys, "save", "--dir", str(mem), "--from", str(flat))
    loaded = run_json(capsys, "load-last", "foo", "--dir", str(mem))
    nested = tmp_path / "nested.json"
    nested.write_text(json.dumps(loaded["note_file"]))
    other = tmp_path / "other" / "memory"
    other.mkdir(parents=True)
    copy = run_json(capsys, "save", "--dir", str(other), "--from", str(nested))
    assert copy["note"]["summary"] == "From JSON." and copy["note"]["steps"] == ["S1"]
    assert copy["note"]["last_checkpoint"] == "CP-S1" and copy["path"].endswith("2026-11-17-09-30-foo.md")


def test_save_from_stdin(capsys: pytest.CaptureFixture[str], mem: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO('{"status": "paused", "summary": "piped"}'))
    data = run_json(capsys, "save", "--dir", str(mem), *SAVE, "--from", "-")
    assert data["note"]["summary"] == "piped"


def test_save_into_missing_dir(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    missing = tmp_path / "nope" / "memory"
    error, err = fail_json(capsys, "save", "--dir", str(missing), *SAVE, "--status", "paused")
    assert error == f"memory directory not found at {missing}"
    assert err == f"sessionscope: memory directory not found at {missing}\n"
    assert not missing.exists()


@pytest.mark.parametrize(("args", "message"), [
    (["--project", "foo", "--session", "tomorrow"], "session timestamp must be YYYY-MM-DD-HH-MM or ISO 8601"),
    (["--project", "../x", "--session", "2026-11-17-09-30"], "cannot be used in a note's file name"),
    ([*SAVE, "--decision", "CP-S1"], "--decision expects CP=OPTION[:NOTE], got 'CP-S1'"),
    ([*SAVE, "--decision", "=a"], "--decision expects CP=OPTION[:NOTE]"),
    ([*SAVE, "--status", "done"], "argument --status: invalid choice: 'done'"),
    (["--session", "2026-11-17-09-30"], "--project is required"),
    (["--project", "foo"], "--session is required"),
    ([*SAVE, "--from", "/no/such/file"], "cannot read --from /no/such/file: No such file or directory"),
])
def test_save_errors(capsys: pytest.CaptureFixture[str], mem: Path, args: list[str], message: str) -> None:
    error, _ = fail_json(capsys, "save", "--dir", str(mem), *args)
    assert message in error
    assert list(mem.iterdir()) == []


def test_save_from_bad_sources(capsys: pytest.CaptureFixture[str], mem: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    error, _ = fail_json(capsys, "save", "--dir", str(mem), *SAVE, "--from", str(bad))
    assert error.startswith(f"memory save: --from {bad}: not valid JSON (line 1, column 2")
    bad.write_text("---\na:\n\tb: 1\n---\n")
    error, _ = fail_json(capsys, "save", "--dir", str(mem), *SAVE, "--from", str(bad))
    assert "not a note: frontmatter is not valid YAML (line 3, column 1" in error


def test_memory_needs_a_subcommand(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys)
    assert code == 2 and "required" in err and err.count("\n") == 1


# -- load-last --------------------------------------------------------------------------------------------
def test_load_last_json_found(capsys: pytest.CaptureFixture[str], mem: Path) -> None:
    run_json(capsys, "save", "--dir", str(mem), *SAVE, "--status", "in-progress", "--last-checkpoint", "CP-S2")
    data = run_json(capsys, "load-last", "foo-system", "--dir", str(mem))
    assert set(data) == {"project", "found", "line", "path", "schema_version", "note", "note_file", "content",
                         "warnings", "searched"}
    assert data["found"] is True and data["searched"] == [str(mem)]
    assert data["line"].startswith("Resuming foo-system (last touched just now, status: in-progress at CP-S2")
    assert data["content"] == (mem / "2026-11-17-09-30-foo-system.md").read_text()
    assert data["note_file"]["frontmatter"]["schema_version"] == 1.1


def test_load_last_json_not_found_is_not_an_error(capsys: pytest.CaptureFixture[str], mem: Path) -> None:
    data = run_json(capsys, "load-last", "foo", "--dir", str(mem))
    assert data == {"project": "foo", "found": False, "message": "No previous memory found for project 'foo'",
                    "warnings": [], "searched": [str(mem)]}
    code, out, err = run(capsys, "load-last", "foo", "--dir", str(mem))
    assert (code, out, err) == (0, "No previous memory found for project 'foo'\n", "")


def test_load_last_text_warns_about_skipped_notes(capsys: pytest.CaptureFixture[str], mem: Path, data_dir: Path) -> None:
    legacy = data_dir / "memory" / "notes" / "2026-11-10-08-15-foo-system.md"
    (mem / legacy.name).write_bytes(legacy.read_bytes())
    (mem / "2026-11-18-00-00-foo-system.md").write_text("---\na: [\n---\n")
    code, out, err = run(capsys, "load-last", "foo-system", "--dir", str(mem))
    assert code == 0
    lines = out.splitlines()
    assert lines[0].startswith("Resuming foo-system (last touched ") and lines[0].endswith("status: paused at CP-S1)")
    assert lines[1] == str(mem / legacy.name)
    assert lines[2] == "(schema 1.0: migrated to 1.1 by the next save)"
    assert "\n".join(lines[4:]) == legacy.read_text().rstrip("\n")
    assert err.startswith(f"sessionscope: warning: skipped {mem / '2026-11-18-00-00-foo-system.md'}: frontmatter is not valid YAML")


def test_load_last_missing_dir_is_an_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    error, _ = fail_json(capsys, "load-last", "foo", "--dir", str(tmp_path / "nope"))
    assert error == f"memory directory not found at {tmp_path / 'nope'}"


def test_load_last_without_dir_searches_cwd_memory_folders(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    for sub in ("memory", ".claude/memory"):
        (tmp_path / "cwd" / sub).mkdir(parents=True)
    run_json(capsys, "save", "--dir", "memory", "--project", "foo", "--session", "2026-11-10-08-15", "--status", "paused")
    run_json(capsys, "save", "--dir", ".claude/memory", "--project", "foo", "--session", "2026-11-12-08-15",
             "--status", "completed")
    data = run_json(capsys, "load-last", "foo")
    assert data["found"] and data["note"]["status"] == "completed"
    assert data["searched"] == [str(tmp_path / "cwd" / "memory"), str(tmp_path / "cwd" / ".claude" / "memory")]


def claude_root_with_project(tmp_path: Path, project: Path) -> Path:
    """A Claude projects root with one session whose cwd is `project`."""
    root = tmp_path / "claude-projects"
    folder = root / claude_dir_name(str(project))
    folder.mkdir(parents=True)
    recs = [
        {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "s1", "cwd": str(project),
         "timestamp": "2026-11-17T09:30:00Z", "message": {"role": "user", "content": "hello"}},
        {"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": "s1", "cwd": str(project),
         "timestamp": "2026-11-17T09:30:05Z",
         "message": {"id": "m1", "role": "assistant", "model": "claude-x", "content": [{"type": "text", "text": "hi"}]}},
    ]
    (folder / "s1.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    return root


def test_load_last_without_dir_searches_library_projects(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    project = tmp_path / "work" / "foo"
    (project / "memory").mkdir(parents=True)
    root = claude_root_with_project(tmp_path, project)
    run_json(capsys, "save", "--dir", str(project / "memory"), "--project", "foo", "--session", "2026-11-10-08-15",
             "--status", "paused")
    data = run_json(capsys, "load-last", "foo", "--root", str(root))
    assert data["found"] and data["path"] == str(project / "memory" / "2026-11-10-08-15-foo.md")
    assert str(project / "memory") in data["searched"]


# -- list ------------------------------------------------------------------------------------------------
def test_list_json_grouped_newest_first(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    project = tmp_path / "work" / "foo"
    (project / "memory").mkdir(parents=True)
    (project / "AGENTS.md").write_text("# Foo rules\n")
    os.utime(project / "AGENTS.md", (1_700_000_000, 1_700_000_000))
    (project / "CLAUDE.md").symlink_to("AGENTS.md")
    root = claude_root_with_project(tmp_path, project)
    auto = root / claude_dir_name(str(project)) / "memory"
    auto.mkdir()
    (auto / "MEMORY.md").write_text("- [Prefs](prefs.md) — terse\n")
    (auto / "prefs.md").write_text("---\nname: prefs\ndescription: Terse answers\ntype: feedback\n---\nx\n")
    for stamp in ("2026-11-10-08-15", "2026-11-12-08-15"):
        run_json(capsys, "save", "--dir", str(project / "memory"), "--project", "foo", "--session", stamp,
                 "--status", "paused", "--summary", f"Session of {stamp}.")
    data = run_json(capsys, "list", "--root", str(root))
    assert set(data) == {"count", "projects"}
    (group,) = [g for g in data["projects"] if g["project"] == str(project)]
    kinds = [(i["kind"], os.path.basename(i["path"])) for i in group["items"]]
    assert ("session-note", "2026-11-12-08-15-foo.md") in kinds and ("auto-memory-topic", "prefs.md") in kinds
    assert ("auto-memory-index", "MEMORY.md") in kinds and ("instructions", "AGENTS.md") in kinds
    link = next(i for i in group["items"] if i["path"] == str(project / "CLAUDE.md"))
    assert link["link_target"] == "AGENTS.md"
    stamps = [i["timestamp"] for i in group["items"]]
    assert stamps == sorted(stamps, reverse=True)
    notes = [i for i in group["items"] if i["kind"] == "session-note"]
    assert notes[0]["summary"] == "Session of 2026-11-12-08-15." and notes[0]["schema_version"] == "1.1"
    assert set(notes[0]) >= {"kind", "project", "path", "timestamp", "status", "last_checkpoint", "summary",
                             "schema_version", "warnings"}
    assert data["count"] == sum(len(g["items"]) for g in data["projects"])


def test_list_dirs_only_and_text(capsys: pytest.CaptureFixture[str], mem: Path, data_dir: Path) -> None:
    legacy = data_dir / "memory" / "notes" / "2026-11-10-08-15-foo-system.md"
    (mem / legacy.name).write_bytes(legacy.read_bytes())
    (mem / "2026-11-11-08-15-foo-system.md").write_text("---\nstatus: [\n---\n")
    data = run_json(capsys, "list", "--dir", str(mem))
    assert data["count"] == 2 and data["projects"][0]["project"] == str(mem.parent)
    code, out, _ = run(capsys, "list", "--dir", str(mem))
    assert code == 0
    assert out.splitlines()[0] == str(mem.parent)
    assert "session-note" in out and "paused at CP-S1 (schema 1.0)" in out
    assert "! frontmatter is not valid YAML" in out


def test_list_with_nothing_found(capsys: pytest.CaptureFixture[str], mem: Path) -> None:
    code, out, _ = run(capsys, "list", "--dir", str(mem))
    assert (code, out) == (0, "no memory files found\n")
    assert run_json(capsys, "list", "--dir", str(mem)) == {"count": 0, "projects": []}


def test_list_missing_dir_is_an_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    error, _ = fail_json(capsys, "list", "--dir", str(tmp_path / "nope"))
    assert error == f"memory directory not found at {tmp_path / 'nope'}"


def test_save_over_a_directory_named_like_the_note_is_a_clean_error(capsys: pytest.CaptureFixture[str], mem: Path) -> None:
    (mem / "2026-11-17-09-30-foo-system.md").mkdir()
    error, _ = fail_json(capsys, "save", "--dir", str(mem), *SAVE, "--status", "paused", "--replace")
    assert error.startswith(f"could not write {mem / '2026-11-17-09-30-foo-system.md'} (")
    assert [p.name for p in mem.iterdir()] == ["2026-11-17-09-30-foo-system.md"]


def test_the_cli_statuses_are_the_cores() -> None:
    from sessionscope.cli import memory as memory_cli
    from sessionscope.core.memory.notes import STATUSES

    assert memory_cli.STATUSES == STATUSES


def test_building_the_command_line_does_not_import_the_memory_core() -> None:
    import subprocess
    import sys

    code = ("import sys; from sessionscope.cli.main import build_parser; build_parser(); "
            "print('sessionscope.core.memory.places' in sys.modules, 'yaml' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


def test_demo_memory_is_what_the_app_shows(capsys: pytest.CaptureFixture[str]) -> None:
    """--demo reads the demo's memory: its projects' paths do not exist here, their stand-in
    checkouts (memory folders included) live inside the demo corpus."""
    data = run_json(capsys, "load-last", "payments-api", "--demo")
    assert data["note"]["project"] == "payments-api" and data["note"]["status"] == "in-progress"
    assert data["found"] and data["line"].startswith("Resuming payments-api (last touched")
    listed = run_json(capsys, "list", "--demo")
    projects = {p["project"] for p in listed["projects"]}
    assert "/home/dev/projects/payments-api" in projects
    assert not any(p.startswith("-home-") for p in projects)  # never the escaped folder name
    kinds = {it["kind"] for p in listed["projects"] for it in p["items"]}
    assert {"session-note", "auto-memory-index", "auto-memory-topic"} <= kinds


# -- concurrent saves (issue 10, item 5) -----------------------------------------------------------
def test_eight_parallel_save_commands_keep_every_step(tmp_path: Path) -> None:
    """Real processes, started together, each adding one --step to the same note."""
    import subprocess
    import sys

    mem = tmp_path / "memory"
    mem.mkdir()
    env = dict(os.environ, SESSIONSCOPE_CONFIG=str(tmp_path / "none.toml"))
    procs = [subprocess.Popen([sys.executable, "-m", "sessionscope", "memory", "save", "--dir", str(mem),
                               "--project", "foo", "--session", "2026-11-17-09-30", "--step", f"s{i}"],
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for i in range(8)]
    results = [p.communicate() for p in procs]
    assert [p.returncode for p in procs] == [0] * 8, [err for _, err in results]
    note = (mem / "2026-11-17-09-30-foo.md").read_text()
    assert all(f"- s{i}\n" in note for i in range(8)), note
    assert [p.name for p in mem.iterdir()] == ["2026-11-17-09-30-foo.md"]


def test_save_gives_up_on_a_held_lock_after_the_configured_timeout(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    fcntl = pytest.importorskip("fcntl", reason="the held lock is taken with flock (POSIX)")
    from sessionscope.core.memory.save import lock_path

    (tmp_path / "cfg.toml").write_text("memory_lock_timeout = 0\n")
    monkeypatch.setenv("SESSIONSCOPE_CONFIG", str(tmp_path / "cfg.toml"))
    mem = tmp_path / "memory"
    mem.mkdir()
    held = os.open(lock_path(mem / "2026-11-17-09-30-foo.md"), os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(held, fcntl.LOCK_EX)
        code, out, err = run(capsys, "save", "--dir", str(mem), "--project", "foo",
                             "--session", "2026-11-17-09-30", "--step", "x")
    finally:
        os.close(held)
    assert code == 2 and out == ""
    assert "another save of" in err and "gave up after 0 s, nothing was written" in err
    assert len(err.strip().splitlines()) == 1
    assert not (mem / "2026-11-17-09-30-foo.md").exists()
