"""Paths and helpers shared by tests (importable: tests/ is on pytest's pythonpath)."""
from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
CORPUS = ROOT.parent / "shared" / "corpus"
NO_CORPUS = f"real-agent corpus not present at {CORPUS} (only CI and dev machines have ../shared)"


def corpus_files(sub: str, pattern: str = "*.jsonl") -> list[Path]:
    """Corpus files for parametrizing; empty (the test is then skipped) when ../shared is absent."""
    d = CORPUS / sub
    return sorted(d.glob(pattern)) if d.is_dir() else []
