"""The whole-command sessions/read/recent bench (bench/bench_cli_commands.py) on a tiny corpus:
it runs and reports every command in both modes beside its baselines, with the target's verdict."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from helpers import ROOT


def test_the_bench_reports_each_command_and_mode_beside_its_baselines(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bench_cli_commands.py"), "--files", "6", "--size-mb", "2",
         "--big-mb", "0.5", "--rounds", "1", "--corpus", str(tmp_path / "c"), "--json"],
        capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout)
    seen = {(f["command"], f["who"], f["mode"]): f for f in result["figures"]}
    for mode in ("bytecode", "no bytecode"):
        assert ("python -c pass", "", mode) in seen and ("sessionscope --version", "this", mode) in seen
        for floor in ("find -type f -printf (floor)", "python os.stat loop (floor)"):
            assert seen[(floor, "", mode)]["wall_median_ms"] > 0 and seen[(floor, "", mode)]["target_met_wall"] is None
        for command in ("sessions --json --limit 20", "sessions --limit 20", "read ID --limit 20 --json",
                        "read ID --limit 20", "recent ID --json", "recent ID"):
            f = seen[(command, "this", mode)]
            assert f["wall_median_ms"] > 0 and f["cpu_median_ms"] > 0 and f["target_met_wall"] in (True, False)
    assert result["target_ms"] == 150 and result["files"] == 6
