"""`read` of a file that holds no session says why (empty, binary), by its id or its path; and a
transcript's path reads its session."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from helpers import isolate

from sessionscope.cli.main import main

UUID = "11111111-2222-4333-8444-555555555555"


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    isolate(tmp_path, monkeypatch)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A Claude-like project folder: an empty file, a binary one, blank lines, and a session."""
    folder = tmp_path / "projects" / "-home-dev-app"
    folder.mkdir(parents=True)
    (folder / f"{UUID}.jsonl").write_bytes(b"")
    (folder / "22222222-2222-4333-8444-555555555555.jsonl").write_bytes(os.urandom(64) + b"\0\xff\xfe")
    (folder / "33333333-2222-4333-8444-555555555555.jsonl").write_bytes(b"\n\n  \n")
    (folder / "44444444-2222-4333-8444-555555555555.jsonl").write_text(
        json.dumps({"session_id": "real-1", "agent_id": "a", "started_at": "2026-11-01T09:00:00Z"}) + "\n"
        + json.dumps({"role": "user", "content": "hello", "timestamp": "2026-11-01T09:01:00Z"}) + "\n")
    return tmp_path / "projects"


def fails(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(list(argv)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    return err


@pytest.mark.parametrize(("name", "said"), [
    (UUID[:8], "empty file"), (UUID, "empty file"),
    ("22222222", "not a JSONL transcript (binary)"), ("33333333", "empty file (only blank lines)"),
])
def test_a_file_without_a_session_is_reported_as_such(capsys: pytest.CaptureFixture[str], root: Path,
                                                      name: str, said: str) -> None:
    err = fails(capsys, "read", name, "--root", str(root))
    assert err.rstrip().endswith(f"{name[:8]}-2222-4333-8444-555555555555.jsonl: {said}")
    assert "no session matches" not in err
    path = next(root.rglob(f"{name[:8]}*.jsonl"))
    assert fails(capsys, "read", str(path), "--root", str(root)) == f"sessionscope: {path}: {said}\n"


def test_a_transcripts_path_reads_its_session(capsys: pytest.CaptureFixture[str], root: Path) -> None:
    path = next(root.rglob("44444444*.jsonl"))
    assert main(["read", str(path), "--root", str(root), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["header"]["session_id"] == "real-1"
    assert "no session matches id 'zzzz'" in fails(capsys, "read", "zzzz", "--root", str(root))
    assert "not under the roots read" in fails(capsys, "read", __file__, "--root", str(root))
