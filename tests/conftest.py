"""Shared fixtures: the real-agent corpus in ../shared (skipped with a reason where absent) and
the project's own small fixtures in tests/data."""
from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
CORPUS = ROOT.parent / "shared" / "corpus"


@pytest.fixture
def data_dir() -> Path:
    return DATA


@pytest.fixture
def corpus_dir() -> Path:
    if not CORPUS.is_dir():
        pytest.skip(f"real-agent corpus not present at {CORPUS} (only CI and dev machines have ../shared)")
    return CORPUS


def corpus_files(sub: str, pattern: str = "*.jsonl") -> list[Path]:
    """Corpus files for parametrizing; empty (tests then skip) when ../shared is absent."""
    d = CORPUS / sub
    return sorted(d.glob(pattern)) if d.is_dir() else []
