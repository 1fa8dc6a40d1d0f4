"""The MCP server bench (bench/bench_mcp.py) on a tiny corpus: it starts the server over stdio,
times ready and warm searches, and reports them beside its baselines (the SDK imported plainly
and as the server imports it)."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT

pytest.importorskip("mcp", reason="the mcp SDK is not installed here; `pip install -e .` installs it")


def test_the_bench_reports_ready_and_searches_beside_its_baselines(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bench_mcp.py"), "--files", "6", "--size-mb", "1", "--runs", "3",
         "--starts", "1", "--corpus", str(tmp_path / "c"), "--json"],
        capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout)
    assert result["ready_s"]["median"] > 0 and result["first_call_s"]["median"] >= result["ready_s"]["median"]
    assert result["baseline_sdk_import_s"] > 0 and result["lean_sdk_import_s"] > 0
    assert set(result["search"]) == {"common word", "mid word", "fragment"}
    for s in result["search"].values():
        assert s["p95_ms"] >= s["p50_ms"] > 0 and s["baseline_cli_ms"] > 0
        assert s["client_cpu_ms"] > 0  # (the server's too, where /proc tells: 10 ms ticks, 3 calls may read 0)
        assert s["server_cpu_ms"] is None or s["server_cpu_ms"] >= 0
