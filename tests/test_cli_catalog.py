"""The command line over a warm catalog: `read ID` and `recent ID` look the session up without
walking the roots, and say the same as after a walk; a listing decodes only what it shows."""
from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest

from helpers import claude_record as claude, cli_json, cli_run, write_records as write
from sessionscope.core.catalog import store
from sessionscope.core.read import walk

A = "aaaaaaaa-0000-4000-8000-000000000001"
B = "bbbbbbbb-0000-4000-8000-000000000002"


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SESSIONSCOPE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("SESSIONSCOPE_CONFIG", str(tmp_path / "none.toml"))
    for var in ("CLAUDE_CODE_SESSION_ID", "CLAUDE_SESSION_ID", "CODEX_SESSION_ID"):
        monkeypatch.delenv(var, raising=False)
    r = tmp_path / "projects"
    write(r / "p" / f"{A}.jsonl", [claude("a1", None, A, 1), claude("a2", "a1", A, 2, "assistant", "done")])
    write(r / "p" / f"{B}.jsonl", [claude("b1", None, B, 5)])
    write(r / "p" / B / "subagents" / "agent-x1.jsonl",
          [dict(claude("s1", None, B, 6), isSidechain=True, agentId="x1")])
    for n in range(12):
        sid = f"{n:08d}-0000-4000-8000-000000000000"
        write(r / "q" / f"{sid}.jsonl", [claude(f"u{n}", None, sid, 10 + n)])
    return r


def test_read_and_recent_by_id_walk_no_folder_and_answer_as_after_a_walk(
        root: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    walked = cli_json(capsys, "read", "bbbb", "--root", str(root))  # (the first call scans)
    recent = cli_json(capsys, "recent", A, "--root", str(root))
    assert walked["header"]["child_session_ids"] == [f"{B}/agent-x1"] and recent["count"] == 2
    listed: list[str] = []
    real = os.scandir
    monkeypatch.setattr(walk.os, "scandir", lambda p=".": listed.append(str(p)) or real(p))
    assert cli_json(capsys, "read", "bbbb", "--root", str(root)) == walked
    assert cli_json(capsys, "read", "agent-x1", "--root", str(root))["header"]["parent_session_id"] == B
    assert cli_json(capsys, "recent", A, "--root", str(root)) == recent
    monkeypatch.setenv("CLAUDE_CODE_SESSION_ID", A)
    assert cli_json(capsys, "recent", "--root", str(root)) == recent
    assert listed == []
    # the session's file grew: the command sees it (it walks, as before)
    with (root / "p" / f"{A}.jsonl").open("ab") as fh:
        fh.write(orjson.dumps(claude("a3", "a2", A, 3, text="more")) + b"\n")
    assert cli_json(capsys, "recent", A, "--root", str(root))["count"] == 3
    code, _, err = cli_run(capsys, "read", "0000", "--root", str(root))  # ambiguous: said as before
    assert code == 2 and "ambiguous: 12 match" in err


def test_a_listing_decodes_only_the_sessions_it_shows(
        root: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    every = cli_json(capsys, "sessions", "--root", str(root), "--all")["sessions"]
    assert len(every) == 15
    decoded: list[str] = []
    real = store._Decoder.session
    monkeypatch.setattr(store._Decoder, "session", lambda self, r: decoded.append(r[0]) or real(self, r))
    top = cli_json(capsys, "sessions", "--root", str(root), "--limit", "3")
    assert [s["session_id"] for s in top["sessions"]] == [s["session_id"] for s in every if s["depth"] == 0][:3]
    assert len(decoded) == 3


def test_listing_and_reading_import_only_what_they_use(root: Path, tmp_path: Path) -> None:
    """`sessions`, `read ID` and `recent ID` import neither shutil (argparse's help formatter
    imported it, with zlib, bz2 and lzma, for every option added) nor the brief's records (`read`
    needs only its ref parser): a few milliseconds of each command's start."""
    import subprocess
    import sys

    env = {**os.environ, "SESSIONSCOPE_CACHE_DIR": str(tmp_path / "cache"),
           "SESSIONSCOPE_CONFIG": str(tmp_path / "none.toml"), "HOME": str(tmp_path)}
    for argv in (["sessions", "--json"], ["read", A, "--json"], ["recent", A, "--json"], ["sessions"]):
        code = ("import sys, io; from sessionscope.cli.main import main; out = sys.stdout; sys.stdout = io.StringIO(); "
                f"main({[*argv, '--root', str(root)]!r}); "
                "print(sorted(m for m in ('shutil', 'lzma', 'bz2', 'sessionscope.core.brief.finding') "
                "if m in sys.modules), file=out)")
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
        assert done.stdout.strip().splitlines()[-1] == "[]", (argv, done.stdout + done.stderr)
