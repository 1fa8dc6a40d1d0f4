"""`sessionscope bookmarks`: list (text and --json), add, remove, export and import, and their
errors, on the demo corpus."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from sessionscope.cli.main import main
from test_cli import demo, isolated, run, run_json  # noqa: F401 - the demo corpus; a cache of the test's own


def _an_entry(capsys: pytest.CaptureFixture[str], demo: list[str]) -> tuple[str, str, str]:
    """A Codex session's id and its third entry's id and text (`L`-ids: anchored by line and hash)."""
    sessions = run_json(capsys, "sessions", "--agent", "codex", *demo)["sessions"]
    sid = sessions[0]["session_id"]
    entry = run_json(capsys, "read", sid, "--max-chars", "4000", *demo)["entries"][2]
    return sid, entry["entry_id"], entry["content"]


def test_add_list_remove(capsys: pytest.CaptureFixture[str], demo: list[str]) -> None:
    assert run_json(capsys, "bookmarks", *demo) == {"bookmarks": []}
    sid, eid, text = _an_entry(capsys, demo)
    added = run_json(capsys, "bookmarks", "add", f"{sid}#{eid}", "--note", "look [b]here[/b]", *demo)
    assert added["ok"] and added["entry"]["entry_id"] == eid and added["note"] == "look [b]here[/b]"
    code, out, _ = run(capsys, "bookmarks", "add", sid[:10], *demo)  # the whole session, by a prefix
    assert code == 0 and out.startswith(f"bookmarked session {sid}")
    listed = run_json(capsys, "bookmarks", *demo)["bookmarks"]
    assert [b["entry"] is None for b in listed] == [True, False]  # newest first
    entry = listed[1]
    assert entry["state"] == "found" and entry["entry_id_now"] == eid and entry["ref"] == f"codex:{sid}#{eid}"
    assert entry["entry"]["text"] == text and entry["agent_id"] == "codex"
    code, out, _ = run(capsys, "bookmarks", *demo)
    assert code == 0 and "note: look [b]here[/b]" in out and f"sessionscope read codex:{sid}#{eid}" in out
    assert run_json(capsys, "bookmarks", "remove", str(entry["id"]), *demo) == {"ok": True, "removed": entry["id"]}
    assert len(run_json(capsys, "bookmarks", *demo)["bookmarks"]) == 1


def test_export_import_counts(capsys: pytest.CaptureFixture[str], demo: list[str], tmp_path: Path,
                              monkeypatch: pytest.MonkeyPatch) -> None:
    sid, eid, _ = _an_entry(capsys, demo)
    run_json(capsys, "bookmarks", "add", sid, "--entry", eid, *demo)
    run_json(capsys, "bookmarks", "add", sid, *demo)
    out = tmp_path / "marks.json"
    assert run_json(capsys, "bookmarks", "export", str(out)) == {"ok": True, "path": str(out), "bookmarks": 2}
    assert json.loads(out.read_text())["format"] == "sessionscope-bookmarks"
    monkeypatch.setenv("SESSIONSCOPE_DATA_DIR", str(tmp_path / "elsewhere"))  # another machine
    assert run_json(capsys, "bookmarks", "import", str(out))["added"] == 2
    code, text, _ = run(capsys, "bookmarks", "import", str(out))
    assert code == 0 and text == f"imported 0 bookmark(s) from {out}; 2 already kept\n"


@pytest.mark.parametrize("argv", [
    ["bookmarks", "import", "MISSING"],
    ["bookmarks", "import", "BROKEN"],
    ["bookmarks", "remove", "42"],
    ["bookmarks", "remove", "x"],
    ["bookmarks", "add", "no-such-session"],
    ["bookmarks", "export", "/no/such/dir/x.json"],
    ["bookmarks", "export", "ROOT/bookmarks.json"],  # never into an agent's folder
])
def test_errors_are_one_line(capsys: pytest.CaptureFixture[str], demo: list[str], tmp_path: Path,
                             argv: list[str]) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text('{"format": "sessionscope-bookmarks", "bookmarks": [')
    root = demo[1]
    argv = [str(tmp_path / "missing.json") if a == "MISSING" else str(broken) if a == "BROKEN"
            else a.replace("ROOT", root) for a in argv]
    code, out, err = run(capsys, *argv, *demo)
    assert code == 2 and out == "" and err.count("\n") == 1 and "Traceback" not in err
    assert not list(Path(root).glob("bookmarks.json"))
    code, out, err = run(capsys, *argv, *demo, "--json")
    assert code == 2 and json.loads(out)["ok"] is False


def test_a_damaged_store_is_one_line(capsys: pytest.CaptureFixture[str], demo: list[str], tmp_path: Path) -> None:
    from sessionscope.core.bookmarks.store import store_path

    path = store_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"garbage" * 200)
    assert main(["bookmarks", *demo]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot be used" in err
