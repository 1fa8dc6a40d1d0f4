"""Shared fixtures: the real-agent corpus in ../shared (skipped with a reason where absent) and
the project's own small fixtures in tests/data."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers import CORPUS, DATA, NO_CORPUS


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """`-n auto` (the README's test command): half again as many workers as usable CPUs. Why: a
    third of the suite's wall time on 2 cores was idle (the Textual pilot waits for refreshes and
    timers): 2 workers took 8 min 16 s and 9 min 0 s, 3 workers 6 min 24 s, for the same CPU time
    (measured on a 2-core machine, 2026-12-03). PYTEST_XDIST_AUTO_NUM_WORKERS and `-n logical`
    are left to pytest-xdist."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS") or config.option.numprocesses == "logical":
        return None
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return cpus + (cpus + 1) // 2


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
