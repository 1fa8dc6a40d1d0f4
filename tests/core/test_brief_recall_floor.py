"""A floor on the recall of hand-labelled brief findings (bench/brief_eval), where ../shared exists.

The figures are bench/bench_brief.py's, computed the same way (its `measure`): recall through the
`context` pipeline over every (labelled finding, task) pair, and recall of the extractor alone.
Measured when the floor was set (2026-12-01, 6 labelled sessions, 86 findings, 116 pairs):
context 0.84 (97/116), extraction-only 0.85 (73/86); the floors sit a few findings below, so a
change that loses a whole kind of finding fails here while the ordinary churn of tuning does not.
The precision of the first 10 is kept in the bench (a figure to read, not a gate)."""
from __future__ import annotations

import importlib.util
import sys

import pytest
from helpers import CORPUS, NO_CORPUS, ROOT

CONTEXT_FLOOR = 0.78
EXTRACTION_FLOOR = 0.80


@pytest.fixture(scope="module")
def report() -> dict:
    if not CORPUS.is_dir():
        pytest.skip(NO_CORPUS)
    spec = importlib.util.spec_from_file_location("bench_brief", ROOT / "bench" / "bench_brief.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["bench_brief"] = mod  # dataclasses look their module up while the class is made
    spec.loader.exec_module(mod)
    return mod.measure(CORPUS, ROOT / "bench" / "brief_eval")


def test_recall_through_context_keeps_its_floor(report: dict) -> None:
    overall = report["recall"]["overall"]
    assert overall["recall"] >= CONTEXT_FLOOR, overall


def test_extraction_only_recall_keeps_its_floor(report: dict) -> None:
    overall = report["extraction_only"]["recall"]["overall"]
    assert overall["recall"] >= EXTRACTION_FLOOR, overall
