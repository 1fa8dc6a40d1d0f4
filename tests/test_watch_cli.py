"""`sessionscope watch`: the events of a real process as JSON lines, and the index it keeps current."""
from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest

from sessionscope.core.search.index import SearchIndex

TIMEOUT_S = 20.0


def _line(text: str, minute: int) -> bytes:
    return orjson.dumps({"role": "user", "content": text, "timestamp": f"2026-11-01T09:{minute:02d}:00Z"}) + b"\n"


def _read_line(stream, deadline: float) -> str:  # noqa: ANN001 - a pipe
    """One line from a pipe, waiting on the pipe itself (no sleeps) until the deadline."""
    buf = b""
    while not buf.endswith(b"\n"):
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([stream], [], [], left)[0]:
            raise AssertionError(f"no complete line within {TIMEOUT_S} s (got {buf!r})")
        chunk = os.read(stream.fileno(), 1)
        if not chunk:
            raise AssertionError(f"the process closed its output (got {buf!r})")
        buf += chunk
    return buf.decode()


@pytest.mark.skipif(sys.platform == "win32", reason="select() on pipes is POSIX")
def test_watch_json_prints_events_and_keeps_the_index(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    old = root / "old.jsonl"
    project = tmp_path / "proj"
    (project / "memory").mkdir(parents=True)  # outside the root: followed because a session names it
    old.write_bytes(orjson.dumps({"session_id": "old-1", "agent_id": "a", "started_at": "2026-11-01T09:00:00Z",
                                  "project": str(project)}) + b"\n" + _line("already here", 0))
    env = {**os.environ, "SESSIONSCOPE_CACHE_DIR": str(tmp_path / "cache"),
           "SESSIONSCOPE_CONFIG": str(tmp_path / "none.toml"), "HOME": str(tmp_path / "home")}
    proc = subprocess.Popen([sys.executable, "-m", "sessionscope", "watch", "--root", str(root), "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    try:
        deadline = time.monotonic() + TIMEOUT_S
        assert _read_line(proc.stderr, deadline).startswith("watching 1 root(s) and 1 memory folder(s)")
        with open(old, "ab") as fh:
            fh.write(_line("zebracorn arrives", 1))
        grew = json.loads(_read_line(proc.stdout, deadline))
        assert grew["event"] == "grew" and grew["path"] == str(old)
        new = root / "new.jsonl"
        new.write_bytes(orjson.dumps({"session_id": "new-2", "agent_id": "a", "started_at": "2026-11-01T10:00:00Z"})
                        + b"\n" + _line("a fresh one", 2))
        created = json.loads(_read_line(proc.stdout, deadline))
        assert created["event"] == "created" and created["path"] == str(new)
        assert created["new_entries"] == 1 and [e["content"] for e in created["entries"]] == ["a fresh one"]
        note = project / "memory" / "2026-11-01-10-00-proj.md"
        note.write_text("---\nschema_version: 1.1\nstatus: paused\n---\n## Session summary\nx\n")
        memory = json.loads(_read_line(proc.stdout, deadline))
        assert memory["event"] == "memory_changed" and memory["path"] == str(note)
    finally:
        proc.terminate()
        proc.wait(timeout=TIMEOUT_S)
    # `watch` updates the index before it prints a batch's events, so the appended words were
    # searchable when "grew" came out: read the index as the process left it, without updating it.
    index = SearchIndex(tmp_path / "cache" / "index")
    try:
        assert [h.session_id for h in index.search("zebracorn").hits] == ["old-1"]
        assert [h.session_id for h in index.search("fresh").hits] == ["new-2"]
    finally:
        index.close()
