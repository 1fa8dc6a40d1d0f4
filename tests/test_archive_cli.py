"""`sessionscope archive` from the command line, and the archive read back by every command:
counts and --json, a session deleted by its agent still listed, read and found, a full disk,
an archive folder inside a root, `watch --archive`."""
from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import cli_json, cli_run, isolate, write_session

from sessionscope.core import archive as archive_mod


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home whose Claude Code folder holds two sessions (session-logs lines: read by content)."""
    isolate(tmp_path, monkeypatch)
    projects = tmp_path / "home" / ".claude" / "projects" / "-work-app"
    write_session(projects / "one.jsonl", "11111111-aaaa", ["zebracorn question", "an answer"], project="/work/app")
    write_session(projects / "two.jsonl", "22222222-bbbb", ["other words", "more"], project="/work/app", day=2)
    return tmp_path / "home"


run, run_json = cli_run, cli_json


def test_archive_counts_then_a_second_run_copies_nothing(capsys: pytest.CaptureFixture[str], home: Path,
                                                         tmp_path: Path) -> None:
    first = run_json(capsys, "archive")
    assert first["ok"] and first["folder"] == str(tmp_path / "sessionscope-data" / "archive")
    assert (first["new"], first["updated"], first["unchanged"], first["linked"]) == (2, 0, 0, 2)
    assert first["bytes"] > 0 and first["roots"] == [str(home / ".claude" / "projects")]
    code, out, err = run(capsys, "archive")
    assert code == 0 and err == ""
    assert out.startswith(f"archived into {first['folder']}: 0 new, 0 updated, 2 unchanged; 0 B archived")


def test_archived_sessions_list_once_and_still_read_and_search_after_the_agent_deleted_them(
        capsys: pytest.CaptureFixture[str], home: Path) -> None:
    assert run_json(capsys, "archive", "--copy")["compressed"] == 2
    listed = run_json(capsys, "sessions")["sessions"]
    assert sorted(s["session_id"] for s in listed) == ["11111111-aaaa", "22222222-bbbb"]
    assert [h["session_id"] for h in run_json(capsys, "search", "zebracorn")["hits"]] == ["11111111-aaaa"]
    (home / ".claude" / "projects" / "-work-app" / "one.jsonl").unlink()
    listed = run_json(capsys, "sessions")["sessions"]
    assert sorted(s["session_id"] for s in listed) == ["11111111-aaaa", "22222222-bbbb"]
    read = run_json(capsys, "read", "11111111")
    assert [e["content"] for e in read["entries"]] == ["zebracorn question", "an answer"]
    assert "/archive/home/.claude/projects/-work-app/one.jsonl" in read["entries"][0]["locator"]["path"]
    assert [h["session_id"] for h in run_json(capsys, "search", "zebracorn")["hits"]] == ["11111111-aaaa"]
    roots = run_json(capsys, "roots")["roots"]
    assert [r["origin"] for r in roots if r["path"].endswith("/archive/home/.claude/projects")] == ["archive"]


def test_archive_to_a_folder_and_from_the_config(capsys: pytest.CaptureFixture[str], home: Path,
                                                 tmp_path: Path) -> None:
    (tmp_path / "none.toml").write_text(f'archive_dir = "{tmp_path / "kept"}"\n')
    assert run_json(capsys, "archive")["folder"] == str(tmp_path / "kept")
    assert run_json(capsys, "archive", "--to", str(tmp_path / "other"))["new"] == 2
    assert (tmp_path / "kept" / "home" / ".claude" / "projects" / "-work-app" / "one.jsonl").is_file()


def test_a_full_disk_is_one_line_and_exit_2_and_the_next_run_completes(
        capsys: pytest.CaptureFixture[str], home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def full(src: str, out: object, gz: bool) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    real = archive_mod._copy
    monkeypatch.setattr(archive_mod, "_copy", full)
    code, out, err = run(capsys, "archive", "--copy")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "no space left on the device" in err and "Traceback" not in err
    monkeypatch.setattr(archive_mod, "_copy", real)
    assert run_json(capsys, "archive", "--copy")["new"] == 2


def test_an_archive_folder_inside_an_agents_folder_is_refused(capsys: pytest.CaptureFixture[str],
                                                              home: Path) -> None:
    inside = home / ".claude" / "projects" / "kept"
    code, out, err = run(capsys, "archive", "--to", str(inside))
    assert code == 2 and "inside the root" in err and err.count("\n") == 1
    assert not inside.exists()


@pytest.mark.skipif(sys.platform == "win32", reason="select() on pipes is POSIX")
def test_watch_archive_archives_a_session_created_while_watching(tmp_path: Path, home: Path) -> None:
    import select

    env = {**os.environ}
    proc = subprocess.Popen([sys.executable, "-m", "sessionscope", "watch", "--archive", "--json", "--no-index"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    archived = tmp_path / "sessionscope-data" / "archive" / "home" / ".claude" / "projects" / "-work-app"
    deadline = time.monotonic() + 30

    def line(stream) -> str:  # noqa: ANN001 - a pipe
        buf = b""
        while not buf.endswith(b"\n"):
            left = deadline - time.monotonic()
            assert left > 0 and select.select([stream], [], [], left)[0], f"no line in time ({buf!r})"
            chunk = os.read(stream.fileno(), 1)
            assert chunk, f"the process closed its output ({buf!r})"
            buf += chunk
        return buf.decode()

    try:
        lines = [line(proc.stderr)]
        while not lines[-1].startswith("watching"):
            lines.append(line(proc.stderr))
        assert any("2 new" in x for x in lines)  # what was there before: archived when it starts
        assert (archived / "one.jsonl").is_file()
        write_session(home / ".claude" / "projects" / "-work-app" / "three.jsonl", "33333333-cccc",
                      ["new while watching"], project="/work/app")
        event = json.loads(line(proc.stdout))
        assert event["event"] == "created"
        said = line(proc.stderr)
        assert "1 new" in said, said
        assert (archived / "three.jsonl").is_file()
    finally:
        proc.terminate()
        proc.wait(10)
