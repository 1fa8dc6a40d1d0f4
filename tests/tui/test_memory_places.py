"""Issue 10, item 15: the app's Memory pane looks where `sessionscope memory list` looks (the folder
it was started in included), takes more folders from --memory-dir and the config's memory_dirs,
and when it finds nothing, says where it looked."""
from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest
from helpers import isolate

from sessionscope.cli import main as cli
from sessionscope.cli.app import build_app
from sessionscope.tui.app import SessionScopeApp
from sessionscope.tui.widgets.memory_note_view import MemoryNoteView
from sessionscope.tui.widgets.memory_pane import MemoryPane

SIZE = (120, 36)


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    isolate(tmp_path, monkeypatch, "config.toml")


def _root(tmp_path: Path) -> Path:
    """A Claude root with one session of a project other than the folder the app starts in."""
    root = tmp_path / "claude"
    rec = {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "s-other", "cwd": "/elsewhere/api",
           "timestamp": "2026-11-17T09:00:00Z", "message": {"role": "user", "content": "hello"}}
    path = root / "projects" / "-elsewhere-api" / "s-other.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(orjson.dumps(rec) + b"\n")
    return root


def _note(folder: Path, project: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    assert cli.main(["memory", "save", "--dir", str(folder), "--project", project,
                     "--session", "2026-11-17-09-30", "--status", "paused"]) == 0


def _app(*argv: str) -> SessionScopeApp:
    args = cli.app_args(list(argv))
    assert args is not None
    app = build_app(args)
    app.watch_files = False
    return app


async def _memory(app: SessionScopeApp, pilot: object) -> MemoryPane:
    await app.workers.wait_for_complete()
    await pilot.press("3")  # type: ignore[attr-defined]
    await pilot.pause()  # type: ignore[attr-defined]
    await app.workers.wait_for_complete()
    await pilot.pause()  # type: ignore[attr-defined]
    return app.screen.query_one(MemoryPane)


async def test_the_pane_finds_the_notes_memory_list_finds_in_the_folder_it_starts_in(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    project = tmp_path / "payments"
    _note(project / "memory", "payments")
    root = _root(tmp_path)
    monkeypatch.chdir(project)
    capsys.readouterr()
    assert cli.main(["memory", "list", "--root", str(root), "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    paths = {it["path"] for group in listed["projects"] for it in group["items"]}
    assert len(paths) == 1 and paths.pop().startswith(str(project / "memory"))
    app = _app("--root", str(root))
    async with app.run_test(size=SIZE) as pilot:
        pane = await _memory(app, pilot)
        assert [it.path for it in pane.timeline.all_items] == [
            it["path"] for group in listed["projects"] for it in group["items"]]


async def test_memory_dir_and_the_config_key_add_folders(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _root(tmp_path)
    _note(tmp_path / "notes" / "a" / "memory", "alpha")
    _note(tmp_path / "notes" / "b" / "memory", "beta")
    (tmp_path / "empty").mkdir()
    monkeypatch.chdir(tmp_path / "empty")
    (tmp_path / "config.toml").write_text(f'memory_dirs = ["{tmp_path / "notes" / "b" / "memory"}"]\n')
    app = _app("--root", str(root), "--memory-dir", str(tmp_path / "notes" / "a" / "memory"))
    async with app.run_test(size=SIZE) as pilot:
        pane = await _memory(app, pilot)
        projects = sorted(Path(it.path).parent.parent.name for it in pane.timeline.all_items)
        assert projects == ["a", "b"]


async def test_an_empty_pane_says_where_it_looked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _root(tmp_path)
    start = tmp_path / "new-project"
    start.mkdir()
    monkeypatch.chdir(start)
    app = _app("--root", str(root))
    async with app.run_test(size=SIZE) as pilot:
        await _memory(app, pilot)
        message = app.screen.query_one(MemoryNoteView)._message
        assert message.startswith("No memory files found. Looked in ")
        assert f"{start}/memory and {start}/.claude/memory (the folder the app started in)" in message
        assert "1 project with sessions" in message and "auto-memory under 1 root" in message
        assert "--memory-dir DIR or memory_dirs in config.toml" in message


async def test_a_missing_memory_dir_is_a_notice(tmp_path: Path) -> None:
    app = _app("--root", str(_root(tmp_path)), "--memory-dir", str(tmp_path / "nope"))
    assert app.notice == f"memory folder not found: {tmp_path / 'nope'}"
