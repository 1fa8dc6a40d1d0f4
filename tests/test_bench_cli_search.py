"""The whole-command search bench (bench/bench_cli_search.py) on a tiny corpus: it runs and
reports every figure beside rg's."""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import ROOT


@pytest.mark.skipif(shutil.which("rg") is None, reason="rg (ripgrep) is the bench's baseline and is not installed")
def test_the_bench_reports_each_class_and_mode_beside_rg(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bench_cli_search.py"), "--files", "6", "--size-mb", "2",
         "--big-mb", "0.5", "--long-line-mb", "0.25", "--rounds", "1", "--corpus", str(tmp_path / "c"), "--json"],
        capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    result = json.loads(done.stdout)
    seen = {(f["who"], f["class"], f["mode"]) for f in result["figures"]}
    for cls in ("word", "substring"):
        assert ("rg -c -F -i", cls, "") in seen
        for mode in ("bytecode", "no bytecode"):
            assert ("sessionscope search (this)", cls, mode) in seen
            assert ("floor: python -c pass", cls, mode) in seen and ("floor: python + tantivy + open", cls, mode) in seen
    assert all(f["median_ms"] > 0 and f["rg_over_this"] > 0 and f["cpu_median_ms"] > 0 for f in result["figures"])
    assert result["target_ratio"] == 2.0  # (a small corpus: the 1 GB target)


def test_a_corpus_of_10_gb_is_judged_by_the_10x_target() -> None:
    sys.path.insert(0, str(ROOT / "bench"))
    from bench_cli_search import target_ratio

    assert target_ratio(1_075_000_000) == 2.0 and target_ratio(9_999_999_999) == 2.0
    assert target_ratio(10_750_000_000) == 10.0


def test_without_bytecode_the_package_is_compiled_and_the_standard_librarys_read(tmp_path: Path) -> None:
    """The "no bytecode" mode: the package imported from a copy holding no bytecode, nothing
    written; the standard library's bytecode read as installed (no pycache prefix)."""
    import os

    sys.path.insert(0, str(ROOT / "bench"))
    from bench_cli_search import _env

    base = dict(os.environ, PYTHONPYCACHEPREFIX=str(tmp_path / "prefix"))
    env = _env(base, None, False, tmp_path)
    assert _env(base, None, False, tmp_path)["PYTHONPATH"] == env["PYTHONPATH"]  # (one copy a run)
    probe = ("import sys, sessionscope.core.model as m, json; "
             "print(json.dumps([m.__file__, m.__cached__, sys.flags.dont_write_bytecode, sys.pycache_prefix]))")
    done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True)
    module, cached, no_writes, prefix = json.loads(done.stdout)
    assert Path(module).is_relative_to(tmp_path) and no_writes and prefix is None
    assert not Path(cached).exists() and not list(tmp_path.rglob("__pycache__"))  # compiled, not written
    with_bytecode = _env(base, None, True, tmp_path)
    assert "PYTHONDONTWRITEBYTECODE" not in with_bytecode and "PYTHONPYCACHEPREFIX" not in with_bytecode
