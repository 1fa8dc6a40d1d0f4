"""A session's last entries from the end of its file: line numbers from the line counts the catalog
stores, never by counting the whole file (issue 15)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from helpers import CORPUS, NO_CORPUS
from sessionscope.core.catalog.library import Library
from sessionscope.core.catalog.store import Catalog
from sessionscope.core.read.discovery import Root
from sessionscope.core.read.jsonl import LineMark, RecordFile

CLAUDE = CORPUS / "claude-code" / "spotter__tool_heavy.jsonl"
CODEX = CORPUS / "codex" / "localpush__rollout-2026-02-23T12-40-23-019c8a4c-ed82-79a1-aa28-7738fc5ab61a.jsonl"


def scan(root: Path, catalog: Catalog) -> Library:
    lib = Library([Root(str(root), "--root", explicit=True)], catalog=catalog)
    lib.scan()
    return lib


@pytest.mark.skipif(not CLAUDE.exists() or not CODEX.exists(), reason=NO_CORPUS)
def test_the_scan_stores_line_counts_of_claude_and_codex_files(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "claude").mkdir(parents=True)
    (root / "codex").mkdir()
    claude = root / "claude" / "1c2d3e4f-0000-4000-8000-000000000001.jsonl"
    codex = root / "codex" / CODEX.name.split("__", 1)[1]
    shutil.copy(CLAUDE, claude)
    shutil.copy(CODEX, codex)
    # A TypeScript-era Codex document is one JSON value: its "lines" are records, not lines.
    document = root / "codex" / "rollout-2025-04-20-0c9a1f52-3c2b-4bb0-9d61-1f4a3d9e8b77.json"
    document.write_text(json.dumps({"session": {"timestamp": "2025-04-20T10:00:00Z", "id": "0c9a1f52"},
                                    "items": [{"type": "message", "role": "user",
                                               "content": [{"type": "input_text", "text": "hi"}]}]},
                                   indent=2) + "\n")
    catalog = Catalog(tmp_path / "c.sqlite")
    scan(root, catalog)
    for path in (claude, codex):
        row = Catalog(tmp_path / "c.sqlite").get(str(path))
        data = path.read_bytes()
        assert row is not None and row.sessions, path
        assert (row.read_end, row.read_lines) == (len(data), data.count(b"\n")), path
        with RecordFile(path) as rf:  # the stored count numbers a tail as the whole index does
            assert rf.tail(5, mark=LineMark(row.read_end, row.read_lines)) == RecordFile(path).tail(5)
    row = catalog.get(str(document))
    assert row is not None and row.sessions and row.read_end == -1
