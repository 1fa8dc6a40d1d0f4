"""The watcher-sources bench runs on a tiny corpus and reports every source it is given (the
figures are its business)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))

import bench_watch  # noqa: E402


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the bench compares inotify sources")
def test_watch_bench_measures_every_source_and_sees_every_append() -> None:
    r = bench_watch.run_bench(files=30, hot=2, sources="inotify,wf30,poll", rounds=1, idle_s=0.2,
                              appends=1, gap=0.02, settle=0.0)
    assert set(r["sources"]) == {"inotify", "wf30", "poll"}
    assert r["corpus"]["files"] == 30
    for name, s in r["sources"].items():
        assert s["errors"] == [] and s["rounds"] == 1, name
        assert s["hot"].get("n", 0) + s["quiet"].get("n", 0) + s["missed"] == 2, name
        assert len(s["idle_pct"]) == 1 and s["idle_pct"][0] >= 0, name
        assert s["missed"] == 0, name
    # the watcher's own reader keeps its rule over a link out of the root and a loop: a watch a folder
    assert r["link_watches"]["inotify"] == 2 and "poll" not in r["link_watches"]
