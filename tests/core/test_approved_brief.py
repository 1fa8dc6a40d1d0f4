"""Approved briefs kept per project in sessionscope's data folder (core/brief/approved.py)."""
from __future__ import annotations

import os
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest
from helpers import write_session

from sessionscope.core.brief import approved
from sessionscope.core.brief.compose import Task, compose, render_brief
from sessionscope.core.catalog.library import Library
from sessionscope.core.config import data_dir
from sessionscope.core.read.discovery import Root
from sessionscope.core.search.index import SearchIndex

SECRET = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


@pytest.fixture
def composed(tmp_path: Path) -> tuple[object, str]:
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    write_session(tmp_path / "root" / "a.jsonl", "sess-a", [
        "make the webhook retry policy per-endpoint",
        "We decided to use exponential backoff for the webhook retry, because fixed delays flooded it.",
    ], project=str(project), agent="claude-code")
    hour_ago = time.time() - 3600  # (not the live session `context` leaves out)
    os.utime(tmp_path / "root" / "a.jsonl", (hour_ago, hour_ago))
    lib = Library([Root(str(tmp_path / "root"), "explicit")])
    lib.scan()
    index = SearchIndex(tmp_path / "index")
    index.update(lib)
    result = compose(lib, index, Task("webhook retry backoff"), project=str(project))
    index.close()
    assert result.findings
    return result, str(project)


def test_the_data_dir_is_sessionscopes_own_and_can_be_moved(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SESSIONSCOPE_DATA_DIR", str(tmp_path / "d"))
    assert data_dir() == tmp_path / "d"
    monkeypatch.delenv("SESSIONSCOPE_DATA_DIR")
    assert data_dir().name == "sessionscope" and ".claude" not in data_dir().parts


def test_the_newest_brief_of_the_project_is_found_masked(composed: tuple, tmp_path: Path) -> None:
    result, project = composed
    f = result.findings[0]
    from dataclasses import replace

    edited = replace(f, text=f"{f.text} token {SECRET}")
    older = approved.save(result, render_brief(result, [f]), [f], now=datetime(2026, 3, 1, tzinfo=timezone.utc))
    newer = approved.save(result, render_brief(result, [edited]), [edited])
    assert older and newer and older.parent == newer.parent
    assert str(newer).startswith(str(tmp_path / "sessionscope-data"))  # (tests/conftest.py's data dir)
    kept = approved.latest(project)
    assert kept.path == str(newer) and kept.brief is not None
    assert SECRET not in kept.path and SECRET not in str(kept.brief) and "[secret masked: github-token]" in str(kept.brief)
    assert [x["source"] for x in kept.brief["findings"]] == [f.source.ref]
    assert approved.latest(project + "-other").brief is None
    # a damaged newest file is skipped with a warning, the next newest given
    (newer.parent / "29991231T000000000000Z.json").write_text("{not json")
    kept = approved.latest(project)
    assert kept.path == str(newer) and "skipped" in kept.warnings[0]


def test_nothing_approved_is_not_kept(composed: tuple) -> None:
    result, project = composed
    assert approved.save(result, render_brief(result, []), []) is None
    assert approved.latest(project).brief is None
