"""The archive bench (bench/bench_archive.py) on a tiny corpus: every row measured, the counts right."""
from __future__ import annotations

import importlib.util
import json
import sys

import pytest
from helpers import ROOT


def test_tiny_archive_bench_prints_every_row(capsys: pytest.CaptureFixture[str]) -> None:
    spec = importlib.util.spec_from_file_location("bench_archive", ROOT / "bench" / "bench_archive.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_archive"] = module
    spec.loader.exec_module(module)
    assert module.main(["--files", "6", "--kb", "4", "--repeat", "1", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["files"] == 6 + 2 * 2  # two of the six with a subagent file and its .meta.json
    rows = {r["what"]: r for r in data["rows"]}
    assert (rows["no change (links)"]["new"], rows["no change (links)"]["unchanged"]) == (0, 10)
    assert (rows["no change (copies)"]["new"], rows["no change (copies)"]["unchanged"]) == (0, 10)
    assert rows["1 grown (copies)"]["updated"] == 1
    assert all(r["seconds"] > 0 and r["baseline_seconds"] > 0 for r in data["rows"])
