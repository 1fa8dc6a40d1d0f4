"""The whole `sessionscope search` command against `rg -c -F -i` over the same corpus, in one run.

What a script or an agent pays is the whole command: start Python, import, scan the roots (a
warm catalog: every file stat'ed), open the index, search, print. Each figure is a fresh process
(spawn to exit) with a warm catalog and index, beside `rg -c -F -i` for the same term over the raw
corpus, timed in the same round (interleaved, so load moves both alike). Two query classes: a
word of the corpus and a fragment of a long word (the substring path). Two ways of starting:
with bytecode (`.pyc` written by the warm-up, so imports are read from it) and without the
package's (PYTHONDONTWRITEBYTECODE=1, the package imported from a copy that holds none: each run
compiles the package's modules, as where its folder cannot be written; the standard library's
and the dependencies' bytecode read as installed). (Until stop 27 "no bytecode" also compiled
the standard library each run, a fresh PYTHONPYCACHEPREFIX: ~150 ms more on a 2-core machine
where `python -c pass` alone then took 175 ms, which no command of ours could go under.)
(bench/README.md: run it with a venv holding a plain install for a user's figures.) The 1-minute
load average is printed beside each figure; `--rounds` repeats, and the spread (min-max) is shown
beside the median, and the median of the child's CPU time (user + system, every thread: what a
loaded machine does not inflate as it does the wall time; rg's counts its search threads).

`--base NAME=DIR` times another checkout in the same rounds (beside "this"): DIR must
contain a `sessionscope` package (a symlink to a checkout works: `ln -s ../other sessionscope`);
it is run with DIR first on PYTHONPATH, against the same catalog and index.

Targets (issue 15): at least 2x faster than rg at 1 GB / 2,000 files for words and substrings
(at least 10x at 10 GB / 20,000 files: the verdict printed uses 10x for a corpus of 10 GB or more).

The floor no search command can go under, timed in the same rounds and modes: `python -c pass`,
and `python -c` importing tantivy and opening the warm index (`tantivy.Index.open`), with rg's
ratio to each.

    .venv/bin/python bench/bench_cli_search.py                         # 2,000 files / 250 MB
    .venv/bin/python bench/bench_cli_search.py --work /tmp/cli-bench    # keep the warm cache for the next run
    .venv/bin/python bench/bench_cli_search.py --size-mb 1000 --big-mb 100 --rounds 7
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gen_corpus  # noqa: E402
from bench_mcp import LAUNCH, cache_of, environment, queries  # noqa: E402

TARGET_RATIO = 2.0  # at 1 GB / 2,000 files
TARGET_RATIO_10G = 10.0  # at 10 GB / 20,000 files: a corpus of 10 GB or more is judged by it


def target_ratio(total_bytes: int) -> float:
    """Issue 15's ratio to rg for a corpus of this size."""
    return TARGET_RATIO_10G if total_bytes >= 10 * 10**9 else TARGET_RATIO
#: the floor of any search command: Python, tantivy imported, the index opened
FLOOR_OPEN = "import sys, tantivy; tantivy.Index.open(sys.argv[1]).searcher()"


def _run(cmd: list[str], env: dict[str, str] | None = None) -> float:
    return _timed(cmd, env)[0]


def _timed(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """Spawn to exit: wall seconds, and the child's CPU seconds (user + system, all its threads:
    steadier than the wall time on a loaded machine, which it does not wait for)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):  # (rg: 1 is "no match")
        raise SystemExit(f"{cmd[:4]} failed ({done.returncode}): {done.stderr.strip()[:300]}")
    return seconds, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _search_cmd(root: Path, term: str) -> list[str]:
    return [sys.executable, "-c", LAUNCH, "search", "--root", str(root), "--limit", "20", term]


def _env(base: dict[str, str], first: str | None, bytecode: bool, scratch: Path) -> dict[str, str]:
    """The environment of a run: with bytecode (written by the warm-up, read), or without the
    package's: PYTHONDONTWRITEBYTECODE=1 and the package imported from a copy that holds none
    (`_bare`), so each run compiles the package's modules, as where its folder cannot be
    written; the standard library's and the dependencies' bytecode is read as installed."""
    env = dict(base)
    if not bytecode:
        first = _bare(first, scratch)
    if first:
        env["PYTHONPATH"] = os.pathsep.join([first, env.get("PYTHONPATH", "")])
    env.pop("PYTHONPYCACHEPREFIX", None)
    if bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    else:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


_NOT_IMPORTED = shutil.ignore_patterns("__pycache__", "*.pyc", ".git", ".venv", ".hypothesis", "tests", "bench",
                                       "screenshots")


_BARE: dict[tuple[Path, Path], str] = {}  # (scratch folder, package) -> the folder holding its copy


def _bare(first: str | None, scratch: Path) -> str:
    """A folder holding a copy of the `sessionscope` package without bytecode (`first`'s, else
    the one this Python imports), made once a run."""
    import importlib.util

    src = Path(first) / "sessionscope" if first else Path(importlib.util.find_spec("sessionscope").origin).parent
    if (scratch, src) not in _BARE:
        dest = scratch / f"bare-{len(_BARE)}"
        shutil.copytree(src.resolve(), dest / "sessionscope", ignore=_NOT_IMPORTED)
        _BARE[scratch, src] = str(dest)
    return _BARE[scratch, src]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--files", type=int, default=2000)
    ap.add_argument("--size-mb", type=float, default=250)
    ap.add_argument("--big-mb", type=float, default=25)
    ap.add_argument("--long-line-mb", type=float, default=5)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--base", action="append", default=[], metavar="NAME=DIR",
                    help="a folder holding another `sessionscope` package, timed beside this one (repeatable)")
    ap.add_argument("--corpus", default=None, help="corpus folder (default bench/.corpus-cli-<files>-<mb>)")
    ap.add_argument("--work", default=None,
                    help="keep the catalog and index here (reused by the next run) instead of a temporary folder")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    rg = shutil.which("rg")
    if rg is None:
        raise SystemExit("rg (ripgrep) is needed for the baseline: apt-get install ripgrep")
    here = Path(__file__).resolve().parent
    out_dir = Path(a.corpus) if a.corpus else here / f".corpus-cli-{a.files}-{int(a.size_mb)}"
    corpus = gen_corpus.generate(out_dir, files=a.files, size_mb=a.size_mb, big_mb=a.big_mb,
                                 long_line_mb=a.long_line_mb, seed=a.seed)
    root = Path(corpus.root)
    terms = queries(a.seed, a.size_mb)
    terms = {"word": terms["mid word"], "substring": terms["fragment"]}
    with tempfile.TemporaryDirectory(prefix="bench-cli-") as tmp:
        work = Path(a.work or tmp)
        (work / "home").mkdir(parents=True, exist_ok=True)
        env = environment(work)
        t0 = time.perf_counter()
        scratch = Path(tmp)  # (the bytecode-less runs' copy of the package)
        _run(_search_cmd(root, terms["word"]), _env(env, None, True, scratch))  # the catalog and index, cold
        cold = time.perf_counter() - t0
        variants = [("this", None)] + [tuple(b.split("=", 1)) if "=" in b else ("before", b) for b in a.base]
        for _, first in variants:  # warm-up: bytecode written, the vocabulary stored
            for term in terms.values():
                _run(_search_cmd(root, term), _env(env, first, True, scratch))
        rows: dict[tuple[str, str, str], list[tuple[float, float, float]]] = {}  # (wall, load, CPU)
        index_dir = next((cache_of(work) / "index").glob("tantivy-v*"))
        floors = {"floor: python -c pass": "pass", "floor: python + tantivy + open": FLOOR_OPEN}
        for _ in range(a.rounds):
            for cls, term in terms.items():
                rg_cmd = [rg, "--no-ignore", "--hidden", "--no-messages", "-c", "-F", "-i", "--", term, str(root)]
                seconds, cpu = _timed(rg_cmd)
                rows.setdefault(("rg", cls, ""), []).append((seconds, os.getloadavg()[0], cpu))
                for bytecode in (True, False):
                    mode = "bytecode" if bytecode else "no bytecode"
                    for name, code in floors.items():
                        seconds, cpu = _timed([sys.executable, "-c", code, str(index_dir)],
                                              _env(env, None, bytecode, scratch))
                        rows.setdefault((name, cls, mode), []).append((seconds, os.getloadavg()[0], cpu))
                for name, first in variants:
                    for bytecode in (True, False):
                        mode = "bytecode" if bytecode else "no bytecode"
                        seconds, cpu = _timed(_search_cmd(root, term), _env(env, first, bytecode, scratch))
                        rows.setdefault((name, cls, mode), []).append((seconds, os.getloadavg()[0], cpu))
    target = target_ratio(corpus.total_bytes)
    result: dict[str, Any] = {"corpus": {"files": a.files, "size_mb": a.size_mb, "bytes": corpus.total_bytes,
                                         "path": str(root)}, "target_ratio": target,
                              "terms": terms, "cold_first_call_s": round(cold, 2), "rounds": a.rounds, "figures": []}
    for (name, cls, mode), samples in rows.items():
        secs = [s for s, _, _ in samples]
        loads = [x for _, x, _ in samples]
        rg_med = statistics.median(s for s, _, _ in rows[("rg", cls, "")])
        med = statistics.median(secs)
        result["figures"].append({
            "who": "rg -c -F -i" if name == "rg" else name if name.startswith("floor") else f"sessionscope search ({name})",
            "class": cls, "mode": mode,
            "median_ms": round(med * 1000, 1), "min_ms": round(min(secs) * 1000, 1),
            "max_ms": round(max(secs) * 1000, 1), "load_min": round(min(loads), 1), "load_max": round(max(loads), 1),
            "cpu_median_ms": round(statistics.median(c for _, _, c in samples) * 1000, 1),
            "rg_over_this": round(rg_med / med, 2)})
    if a.json:
        print(json.dumps(result, indent=2))
        return 0
    c = result["corpus"]
    print(f"corpus: {c['files']} files, {c['bytes'] / 2**20:.0f} MB ({c['path']}); terms {terms}; "
          f"{a.rounds} rounds; cold first call (catalog + index) {result['cold_first_call_s']} s")
    print(f"{'who':<32} {'class':<10} {'mode':<12} {'median ms':>10} {'min-max ms':>15} {'cpu ms':>8} "
          f"{'load 1m':>11} {'rg/this':>8}")
    for f in result["figures"]:
        span = f"{f['min_ms']:.0f}-{f['max_ms']:.0f}"
        load = f"{f['load_min']}-{f['load_max']}"
        verdict = ""
        if f["who"].startswith("sessionscope"):
            verdict = f"  target {target:g}x: met" if f["rg_over_this"] >= target else f"  target {target:g}x: missed"
        print(f"{f['who']:<32} {f['class']:<10} {f['mode']:<12} {f['median_ms']:>10.1f} {span:>15} "
              f"{f['cpu_median_ms']:>8.1f} {load:>11} {f['rg_over_this']:>7.2f}x{verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
