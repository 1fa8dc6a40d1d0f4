"""No raw terminal control reaches stdout or stderr from any command, over a hostile home
(tests/hostile.py): not from transcript text, a note's body, a session's id or agent, nor from
an error message echoing a typed argument. JSON output escapes them and keeps the value."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import isolate
from hostile import HOSTILE, TYPED, HostileHome, hostile_home, raw_controls
from test_watch_cli import _read_line

from sessionscope.cli.main import build_parser, main


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    isolate(tmp_path, monkeypatch)
    (tmp_path / "cwd").mkdir()
    monkeypatch.chdir(tmp_path / "cwd")


@pytest.fixture
def home(tmp_path: Path) -> HostileHome:
    return hostile_home(tmp_path / "h")


def commands(h: HostileHome) -> list[list[str]]:
    """Every command's text output, and its errors that echo what was typed."""
    root = ["--root", str(h.root)]
    save = ["memory", "save", "--dir", str(h.memory), "--project", "evil", "--session", "2026-11-10-08-15"]
    return [
        ["sessions", *root], ["sessions", "--all", *root], ["sessions", "--quick", "--all", *root],
        ["sessions", "--project", TYPED, *root], ["sessions", "--agent", TYPED, *root],
        ["sessions", "--limit", TYPED, *root], ["sessions", "--root", str(h.root / TYPED)],
        ["read", h.session_id, *root], ["read", f"{h.session_id}#e3", "--all-branches", *root],
        ["read", "evil", "--max-chars", "4000", *root], ["read", f"{h.session_id}/sub", *root],
        ["read", TYPED, *root], ["read", f"{h.session_id}#{TYPED}", *root], ["read", f"{TYPED}:{h.session_id}", *root],
        ["recent", *root], ["recent", h.session_id, "--max-chars", "4000", *root], ["recent", TYPED, *root],
        ["search", "widget", *root], ["search", "widget", "--group", "--max-chars", "4000", *root],
        ["search", "--sort", "recent", "widget", *root], ["search", f"zzz{TYPED}", *root],
        ["search", f'"{TYPED}', *root], ["search", f"since:{TYPED}", *root],
        ["index", *root], ["index", "--status", *root], ["index", "--rebuild", "--status", *root],
        ["roots", *root], ["roots", "--root", str(h.root / TYPED)],
        ["memory", "list", *root], ["memory", "list", "--dir", str(h.memory)], ["memory", "list", "--dir", TYPED],
        ["memory", "load-last", "evil", *root], ["memory", "load-last", "evil", "--dir", str(h.memory)],
        ["memory", "load-last", TYPED, *root],
        [*save, "--summary", HOSTILE, "--step", HOSTILE], [*save, "--decision", TYPED],
        ["memory", "save", "--dir", TYPED, "--project", "p", "--session", "2026-11-10-08-15"],
        ["memory", "save", "--dir", str(h.memory), "--project", "p", "--session", TYPED],
        ["context", "widget cache decided", "--project", str(h.project), *root],
        ["context", "widget cache decided", "--project", str(h.project), "--brief", *root],
        ["context", "widget", "--project", TYPED, *root], ["context", "widget", "--exclude-session", TYPED, *root],
        ["brief", TYPED, "--json", *root],
        ["export", h.session_id, "--format", "md", *root], ["export", h.session_id, "--format", "html", *root],
        ["export", h.session_id, "--format", "json", *root], ["export", TYPED, *root],
        ["export", h.session_id, "--format", TYPED, *root],
        ["archive", *root],
        ["bookmarks", "add", f"{h.session_id}#e3", "--note", HOSTILE, *root], ["bookmarks", "add", h.session_id, *root],
        ["bookmarks", *root], ["bookmarks", "add", TYPED, *root], ["bookmarks", "add", h.session_id, "--entry", TYPED, *root],
        ["bookmarks", "import", TYPED], ["bookmarks", "remove", TYPED], ["bookmarks", "export", TYPED],
        ["stats", "--since", "2026-10-01", "--until", "2026-11-30", *root], ["stats", "--since", TYPED, *root],
        ["stats", "--project", TYPED, "--agent", TYPED, *root],
        ["mcp", "--json", *root], ["mcp", f"--{TYPED}"],  # (the server itself: tests/test_mcp.py)
        ["serve", "--json", *root], ["serve", "--host", TYPED, *root], ["serve", "--port", TYPED, *root],
        ["serve", "--root", str(h.root / TYPED)],  # (serving itself: tests/test_serve.py)
        [TYPED], ["--root", TYPED], ["sessions", f"--{TYPED}"],
    ]


def test_every_command_prints_no_raw_control(capsys: pytest.CaptureFixture[str], home: HostileHome) -> None:
    covered = {argv[0] for argv in commands(home)} | {"watch"}  # (watch: below, in a process of its own)
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    assert set(sub.choices) <= covered, "a command this test does not run"
    printed = 0
    for argv in commands(home):
        code = main(argv)
        out, err = capsys.readouterr()
        assert code in (0, 2), (argv, code)
        assert not raw_controls(out), (argv, raw_controls(out), out)
        assert not raw_controls(err), (argv, raw_controls(err), err)
        printed += "␛]52" in out + err
    assert printed >= 20  # the hostile text was printed (made visible), not lost


def test_the_note_and_the_arguments_are_shown_visibly(capsys: pytest.CaptureFixture[str], home: HostileHome) -> None:
    assert main(["memory", "load-last", "evil", "--dir", str(home.memory)]) == 0
    out = capsys.readouterr().out
    assert "CLEAR:␛[2J␛[H" in out and "BIDI:<U+202E>exe.txt ZW:pass<U+200B>word<U+2060>" in out
    assert "at CP-<U+202E>1<U+200B>" in out
    assert main(["sessions", "--project", TYPED, "--root", str(home.root / TYPED)]) == 2
    assert "x␛]52;c;SGVsbG8=␇␛[2J<U+202E><U+200B>y" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [
    ["sessions", "--all"], ["read", "hostile-0001"], ["search", "widget"], ["memory", "list"],
    ["memory", "load-last", "evil"], ["context", "widget cache decided"],
])
def test_json_output_escapes_them_and_keeps_the_value(capsys: pytest.CaptureFixture[str], home: HostileHome,
                                                      argv: list[str]) -> None:
    extra = ["--project", str(home.project)] if argv[0] == "context" else []
    assert main([*argv, *extra, "--root", str(home.root), "--json"]) == 0
    out, err = capsys.readouterr()
    assert not raw_controls(out) and not raw_controls(err)
    assert any("\x1b]52;c;SGVsbG8=\x07" in v and "\u202e" in v for v in _strings(json.loads(out)))  # the value kept


def _strings(obj: object) -> list[str]:
    if isinstance(obj, str):
        return [obj]
    if isinstance(obj, dict):
        obj = list(obj.values())
    return [s for v in obj for s in _strings(v)] if isinstance(obj, list) else []


@pytest.mark.skipif(sys.platform == "win32", reason="select() on pipes is POSIX")
@pytest.mark.parametrize("as_json", [False, True])
def test_watch_prints_no_raw_control(tmp_path: Path, home: HostileHome, as_json: bool) -> None:
    env = {**os.environ, "SESSIONSCOPE_CACHE_DIR": str(tmp_path / "cache"),
           "SESSIONSCOPE_CONFIG": str(tmp_path / "none.toml"), "HOME": str(tmp_path / "home")}
    argv = [sys.executable, "-m", "sessionscope", "watch", "--root", str(home.root), "--no-index"]
    proc = subprocess.Popen(argv + (["--json"] if as_json else []), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env)
    try:
        deadline = time.monotonic() + 20
        assert "watching" in _read_line(proc.stderr, deadline)
        (home.root / f"new{HOSTILE[:20]}.jsonl").write_text(json.dumps(
            {"session_id": "new" + HOSTILE, "agent_id": "a" + HOSTILE, "started_at": "2026-11-03T09:00:00Z"})
            + "\n" + json.dumps({"role": "user", "content": HOSTILE, "timestamp": "2026-11-03T09:01:00Z"}) + "\n")
        line = _read_line(proc.stdout, deadline)
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    assert not raw_controls(line), line
    if as_json:
        assert json.loads(line)["path"].endswith(f"new{HOSTILE[:20]}.jsonl")
    else:
        assert "newOSC52:␛]52;c;SGVsbG8.jsonl" in line


def test_bookmarks_json_escapes_the_note_and_the_entry_and_keeps_them(capsys: pytest.CaptureFixture[str],
                                                                      home: HostileHome) -> None:
    root = ["--root", str(home.root)]
    assert main(["bookmarks", "add", f"{home.session_id}#e3", "--note", HOSTILE, *root]) == 0
    capsys.readouterr()
    assert main(["bookmarks", "--json", *root]) == 0
    out, err = capsys.readouterr()
    assert not raw_controls(out) and not raw_controls(err)
    [b] = json.loads(out)["bookmarks"]
    assert b["note"] == HOSTILE and "\x1b]52;c;SGVsbG8=\x07" in b["entry"]["text"]
