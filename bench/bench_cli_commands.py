"""The whole `sessionscope sessions`, `read` and `recent` commands at 20,000 files, as a user runs
them, beside `sessionscope --version` and `python -c pass` in the same rounds.

What a user or an agent pays is the whole command: start Python, import, bring the catalog up to
date with the files (a warm catalog: every file stat'ed for a listing; for `read ID` and
`recent ID` the session's own files), decode what is shown, print. Each figure is a fresh process,
spawn to exit: its wall time and its CPU time (user + system, from the children's rusage: steadier
than wall time on a loaded machine). Commands: `sessions --json --limit 20`, `sessions --limit 20`,
`read ID --limit 20` (with and without --json), `recent ID` (with and without --json), ID being
the newest session's. Two ways of starting, as in bench_cli_search.py: with bytecode (written by
the warm-up) and without the package's (PYTHONDONTWRITEBYTECODE=1, the package imported from a
copy that holds none: its modules compiled each run; see bench_cli_search.py). The 1-minute load average is printed beside each figure; medians and min-max over
`--rounds`, every command of a round run back to back with the baselines.

Target (issue 15): each of these commands at most 150 ms at 20,000 files (wall; the verdict is
printed for the median wall and, beside it, for the median CPU time).

The floor a listing cannot go under (it must stat every file: a file growing does not change its
folder), timed in the same rounds: `find ROOTS -type f -printf '%s %T@\n'` (the walk and a stat
per file in C) and `python -c` statting every file of the roots (the list read from a file made
once): Python's start plus one `os.stat` per file.

`--base NAME=DIR` times another checkout in the same rounds (DIR holds a `sessionscope` package,
e.g. a symlink to a checkout of main), with a catalog of its own (a schema change would rebuild a
shared one at each switch).

    .venv/bin/python bench/bench_cli_commands.py                       # 20,000 files / 400 MB (generated once)
    .venv/bin/python bench/bench_cli_commands.py --roots /work/prof/corpus20k/claude /work/prof/corpus20k/codex \\
        --work /tmp/cmd-bench --rounds 7                                 # an existing corpus, the warm cache kept
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gen_corpus  # noqa: E402
from bench_cli_search import _env  # noqa: E402
from bench_mcp import LAUNCH, environment  # noqa: E402

TARGET_MS = 150.0
STAT_LOOP = "import os, sys\nfor p in open(sys.argv[1]).read().split('\\n'): os.stat(p)"
FLOORS = ("find -type f -printf (floor)", "python os.stat loop (floor)")


def _children_cpu() -> float:
    ru = resource.getrusage(resource.RUSAGE_CHILDREN)
    return ru.ru_utime + ru.ru_stime


def _run(cmd: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """Spawn to exit: wall seconds, CPU seconds, stdout."""
    cpu0, t0 = _children_cpu(), time.perf_counter()
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    wall, cpu = time.perf_counter() - t0, _children_cpu() - cpu0
    if done.returncode != 0:
        raise SystemExit(f"{cmd[2:6]} failed ({done.returncode}): {done.stderr.strip()[:300]}")
    return wall, cpu, done.stdout


def commands(roots: list[str], sid: str) -> dict[str, list[str]]:
    r = [a for root in roots for a in ("--root", root)]
    return {
        "sessions --json --limit 20": ["sessions", "--json", "--limit", "20", *r],
        "sessions --limit 20": ["sessions", "--limit", "20", *r],
        "read ID --limit 20 --json": ["read", sid, "--limit", "20", "--json", *r],
        "read ID --limit 20": ["read", sid, "--limit", "20", *r],
        "recent ID --json": ["recent", sid, "--json", *r],
        "recent ID": ["recent", sid, *r],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--files", type=int, default=20000)
    ap.add_argument("--size-mb", type=float, default=400)
    ap.add_argument("--big-mb", type=float, default=10)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--corpus", default=None, help="corpus folder to generate (default bench/.corpus-cmd-<files>-<mb>)")
    ap.add_argument("--roots", nargs="+", default=None, help="existing roots to read instead of a generated corpus")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--base", action="append", default=[], metavar="NAME=DIR",
                    help="a folder holding another `sessionscope` package, timed beside this one (repeatable)")
    ap.add_argument("--work", default=None, help="keep the catalogs here (reused by the next run)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    if a.roots:
        roots, files = [str(Path(r).resolve()) for r in a.roots], None
    else:
        here = Path(__file__).resolve().parent
        out_dir = Path(a.corpus) if a.corpus else here / f".corpus-cmd-{a.files}-{int(a.size_mb)}"
        corpus = gen_corpus.generate(out_dir, files=a.files, size_mb=a.size_mb, big_mb=a.big_mb, seed=a.seed)
        roots, files = [str(corpus.root)], len(corpus.paths)
    variants = [("this", None)] + [tuple(b.split("=", 1)) if "=" in b else ("before", b) for b in a.base]
    rows: dict[tuple[str, str, str], list[tuple[float, float, float]]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-cmd-") as tmp:
        work = Path(a.work or tmp)
        scratch = Path(tmp)
        envs, cold = {}, {}
        for name, first in variants:
            (work / name / "home").mkdir(parents=True, exist_ok=True)
            envs[name] = environment(work / name)
            t0 = time.perf_counter()
            listing = _run([sys.executable, "-c", LAUNCH, "sessions", "--json", "--limit", "1",
                            *[x for r in roots for x in ("--root", r)]], _env(envs[name], first, True, scratch))[2]
            cold[name] = round(time.perf_counter() - t0, 2)
        sid = json.loads(listing)["sessions"][0]["session_id"]
        cmds = commands(roots, sid)
        every = scratch / "files.txt"  # (the floor's file list)
        every.write_text("\n".join(os.path.join(d, f) for r in roots for d, _, fs in os.walk(r) for f in fs))
        floors = {"find -type f -printf (floor)": ["find", *roots, "-type", "f", "-printf", "%s %T@\n"],
                  "python os.stat loop (floor)": [sys.executable, "-c", STAT_LOOP, str(every)]}
        for name, first in variants:  # warm-up: bytecode written, every catalog brought up to date
            for argv_ in cmds.values():
                _run([sys.executable, "-c", LAUNCH, *argv_], _env(envs[name], first, True, scratch))
        for _ in range(a.rounds):
            for bytecode in (True, False):
                mode = "bytecode" if bytecode else "no bytecode"
                env0 = _env(envs["this"], None, bytecode, scratch)
                wall, cpu, _ = _run([sys.executable, "-c", "pass"], env0)
                rows.setdefault(("python -c pass", "", mode), []).append((wall, cpu, os.getloadavg()[0]))
                for label, argv_ in floors.items():
                    wall, cpu, _ = _run(argv_, env0)
                    rows.setdefault((label, "", mode), []).append((wall, cpu, os.getloadavg()[0]))
                for name, first in variants:
                    env = _env(envs[name], first, bytecode, scratch)
                    wall, cpu, _ = _run([sys.executable, "-c", LAUNCH, "--version"], env)
                    rows.setdefault(("sessionscope --version", name, mode), []).append((wall, cpu, os.getloadavg()[0]))
                    for label, argv_ in cmds.items():
                        wall, cpu, _ = _run([sys.executable, "-c", LAUNCH, *argv_], env)
                        rows.setdefault((label, name, mode), []).append((wall, cpu, os.getloadavg()[0]))
    result: dict[str, Any] = {"roots": roots, "files": files, "session": sid, "rounds": a.rounds,
                              "cold_first_call_s": cold, "target_ms": TARGET_MS, "figures": []}
    for (label, name, mode), samples in rows.items():
        walls, cpus, loads = ([s[i] * (1000 if i < 2 else 1) for s in samples] for i in range(3))
        timed = label not in ("python -c pass", "sessionscope --version", *FLOORS)
        result["figures"].append({
            "command": label, "who": name, "mode": mode,
            "wall_median_ms": round(statistics.median(walls), 1), "wall_min_ms": round(min(walls), 1),
            "wall_max_ms": round(max(walls), 1), "cpu_median_ms": round(statistics.median(cpus), 1),
            "cpu_min_ms": round(min(cpus), 1), "cpu_max_ms": round(max(cpus), 1),
            "load_min": round(min(loads), 1), "load_max": round(max(loads), 1),
            "target_met_wall": statistics.median(walls) <= TARGET_MS if timed else None,
            "target_met_cpu": statistics.median(cpus) <= TARGET_MS if timed else None})
    if a.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"roots: {' '.join(roots)}" + (f" ({files} files)" if files else "") + f"; session {sid}; "
          f"{a.rounds} rounds; cold first call {cold} s; target {TARGET_MS:.0f} ms")
    print(f"{'command':<28} {'who':<8} {'mode':<12} {'wall ms':>8} {'min-max':>11} {'cpu ms':>8} {'min-max':>11} "
          f"{'load 1m':>10}  target (wall / cpu)")
    for f in sorted(result["figures"], key=lambda f: (f["mode"], f["command"], f["who"])):
        verdict = "" if f["target_met_wall"] is None else (
            f"{'met' if f['target_met_wall'] else 'missed'} / {'met' if f['target_met_cpu'] else 'missed'}")
        walls = f"{f['wall_min_ms']:.0f}-{f['wall_max_ms']:.0f}"
        cpus = f"{f['cpu_min_ms']:.0f}-{f['cpu_max_ms']:.0f}"
        load = f"{f['load_min']}-{f['load_max']}"
        print(f"{f['command']:<28} {f['who']:<8} {f['mode']:<12} {f['wall_median_ms']:>8.0f} {walls:>11} "
              f"{f['cpu_median_ms']:>8.0f} {cpus:>11} {load:>10}  {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
