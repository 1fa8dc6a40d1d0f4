"""bench/bench_text_hostile.py runs and reports a growth for each of its rows."""
from __future__ import annotations

import json
import subprocess
import sys
from helpers import ROOT


def test_the_hostile_text_bench_reports_growth_for_each_row() -> None:
    out = subprocess.run([sys.executable, str(ROOT / "bench" / "bench_text_hostile.py"), "--n", "50", "--rounds", "1", "--json"],
                         capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)["rows"]
    sys.path.insert(0, str(ROOT / "bench"))
    from bench_text_hostile import ROWS

    assert [r["row"] for r in rows] == [name for name, *_ in ROWS]
    assert all(r["big_ms"] > 0 and r["growth_4x"] > 0 and r["x_prose"] > 0 for r in rows)
