"""Shared fixtures: the real-agent corpus in ../shared (skipped with a reason where absent) and
the project's own small fixtures in tests/data."""
from __future__ import annotations

from pathlib import Path

import pytest
from helpers import CORPUS, DATA, NO_CORPUS


@pytest.fixture
def data_dir() -> Path:
    return DATA


@pytest.fixture
def corpus_dir() -> Path:
    if not CORPUS.is_dir():
        pytest.skip(NO_CORPUS)
    return CORPUS


@pytest.fixture(autouse=True)
def _no_terminal_size_from_the_runner(monkeypatch: pytest.MonkeyPatch) -> None:
    """Output widths come from the test, not from whoever runs pytest: a runner that exports
    COLUMNS/LINES (pytest-xdist's workers do) would otherwise narrow the CLI's tables."""
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.delenv("LINES", raising=False)


@pytest.fixture(autouse=True)
def _own_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """sessionscope's data folder (the approved briefs, core/brief/approved.py) in the test's
    tmp dir: no test writes into the user's, and none sees another's briefs."""
    monkeypatch.setenv("SESSIONSCOPE_DATA_DIR", str(tmp_path / "sessionscope-data"))
