"""Growth bench (issue 15): what the next command-line call pays after 1 MB is appended to a
transcript, on a small (1 MB) and on a big (100 MB by default) session-logs transcript, side by
side in one run.

Run (from the repository root):

    .venv/bin/python bench/bench_growth.py                 # 1 MB and 100 MB, 3 appends each
    .venv/bin/python bench/bench_growth.py --big-mb 20     # a smaller big file (disk or time)
    PYTHONDONTWRITEBYTECODE=1 .venv/bin/python bench/bench_growth.py   # without bytecode

For each size the bench writes one transcript (header + ~1 KB entries) in a temporary folder,
warms a catalog for it (`sessionscope sessions --root DIR --json`, its own
SESSIONSCOPE_CACHE_DIR), then, `--appends` times: appends 1 MB of entries and times the next
whole `sessionscope sessions` call in a fresh process (wall clock). Baselines in the same run:
the same call with nothing changed (a warm call), and in process `Library.scan` after an append
with reading on switched off (`SessionLogsAdapter.continues = False`: the whole re-read every
call paid before). Medians in ms. The target: big/small at most 3x. The load average is printed
before and after: machines are noisy, read the ratios.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

EXE = Path(sys.executable).parent / "sessionscope"


def entries(n0: int, mb: float) -> bytes:
    """About `mb` MB of session-logs entry lines, numbered from `n0`."""
    out, size, n = [], 0, n0
    pad = "lorem ipsum dolor sit amet " * 36  # ~1 KB a line
    while size < mb * (1 << 20):
        role = "user" if n % 4 == 0 else "assistant"
        line = orjson.dumps({"role": role, "content": f"entry {n} {pad}", "id": f"e{n}",
                             "timestamp": f"2026-01-31T{(n // 3600) % 24:02d}:{(n // 60) % 60:02d}:{n % 60:02d}Z"}) + b"\n"
        out.append(line)
        size += len(line)
        n += 1
    return b"".join(out)


def cli(root: Path, cache: Path, *args: str) -> float:
    env = {**os.environ, "SESSIONSCOPE_CACHE_DIR": str(cache)}
    t = time.perf_counter()
    subprocess.run([str(EXE), *args, "--root", str(root), "--json"], env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return (time.perf_counter() - t) * 1000


def whole_scan_ms(root: Path, path: Path) -> float:
    """In process: `Library.scan` over a catalog that knows the file, after a 1 MB append,
    reading on switched off (the whole re-read)."""
    from sessionscope.core.catalog.library import Library
    from sessionscope.core.catalog.store import Catalog
    from sessionscope.core.read.adapters.sessionlogs import SessionLogsAdapter
    from sessionscope.core.read.discovery import Root

    cat = Catalog(None)
    lib = Library([Root(str(root), "--root", explicit=True)], catalog=cat)
    lib.scan()
    with path.open("ab") as fh:
        fh.write(entries(10_000_000, 1))
    SessionLogsAdapter.continues = False
    try:
        t = time.perf_counter()
        Library(lib.roots, catalog=cat).scan()
        return (time.perf_counter() - t) * 1000
    finally:
        SessionLogsAdapter.continues = True


def measure(base: Path, mb: float, appends: int) -> dict[str, float]:
    root, cache = base / f"root{mb:g}", base / f"cache{mb:g}"
    root.mkdir()
    path = root / f"s-{mb:g}.jsonl"
    header = orjson.dumps({"session_id": f"s-{mb:g}", "agent_id": "bench", "project": "/p",
                           "started_at": "2026-01-31T00:00:00Z"}) + b"\n"
    path.write_bytes(header + entries(0, mb))
    cli(root, cache, "sessions")  # the catalog, warm
    warm = statistics.median(cli(root, cache, "sessions") for _ in range(appends))
    grown = []
    for i in range(appends):
        with path.open("ab") as fh:
            fh.write(entries(1_000_000 * (i + 1), 1))
        grown.append(cli(root, cache, "sessions"))
    return {"mb": mb, "warm_ms": warm, "grown_ms": statistics.median(grown),
            "whole_rescan_ms": whole_scan_ms(root, path)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--big-mb", type=float, default=100)
    ap.add_argument("--appends", type=int, default=3)
    args = ap.parse_args()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
          f"bytecode {'off' if os.environ.get('PYTHONDONTWRITEBYTECODE') else 'on'}")
    with tempfile.TemporaryDirectory(prefix="sessionscope-growth-") as tmp:
        rows = [measure(Path(tmp), mb, args.appends) for mb in (1, args.big_mb)]
    print(f"{'transcript':>10} {'warm call':>10} {'after +1 MB':>12} {'whole re-read scan':>19}")
    for r in rows:
        print(f"{r['mb']:>8g}MB {r['warm_ms']:>8.0f}ms {r['grown_ms']:>10.0f}ms {r['whole_rescan_ms']:>17.0f}ms")
    small, big = rows
    print(f"next call after +1 MB, big/small: {big['grown_ms'] / small['grown_ms']:.2f}x (target at most 3x); "
          f"a whole re-read of the big file would be {big['whole_rescan_ms'] / small['grown_ms']:.1f}x")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
