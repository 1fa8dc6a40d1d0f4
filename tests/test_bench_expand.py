"""The expand bench runs on a tiny input and reports every case (the figures are its business)."""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

import bench_expand  # noqa: E402


def test_expand_bench_runs_every_case_and_pages_the_whole_line() -> None:
    r = bench_expand.run_bench(mb=0.02, runs=1)
    assert set(r["cases"]) == {"small", "one_line", "short_lines", "long_lines"}
    for case in r["cases"].values():
        assert case["lines_shown"] > 0 and case["expand_ms_median"] > 0
    size = int(0.02 * 1024 * 1024)
    assert r["cases"]["one_line"]["pager_chars"] > size  # the command, then the whole output
