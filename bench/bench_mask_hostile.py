"""Secret masking on hostile text: a long run of what one rule looks for, at two sizes.

A rule whose regex tries each place of a run to the run's end costs the square of the run's
length: before the rules were made linear, 72 KB of `password=password=…` took 45 s to mask and a
long line of `curl curl …` seconds, so one entry of a hostile transcript froze the reader. For
each hostile unit, repeated N and 4N times after a line holding every rule's hint (so every rule
runs), this prints the masking time (CPU, best of `--rounds`), its growth from N to 4N (4: linear;
16: quadratic) and the time over masking ordinary prose of the same length (`x prose`), measured in
the same run.

    .venv/bin/python bench/bench_mask_hostile.py            # N = 4,000
    .venv/bin/python bench/bench_mask_hostile.py --n 16000 --json
"""
from __future__ import annotations

import argparse
import json
import os
import random
import time
from typing import Any, Callable

from sessionscope.core import secrets

UNITS = ("password=", "token:", "accountkey://", "curl ", "--http-user ", "mysql ", "a.", "AGE-SECRET-KEY-", "eyJ",
         "eyJ-", "-----BEGIN PRIVATE KEY-----!", "https://hooks.slack.com/", "Bearer ", "x")


def prose(rng: random.Random, size: int) -> str:
    words = "the a fix test cart webhook see https://example.com/docs/page for details and run pytest -q on it".split()
    out, n = [], 0
    while n < size:
        w = rng.choice(words)
        out.append(w)
        n += len(w) + 1
    return " ".join(out)[:size]


def best(text: str, rounds: int, fn: Callable[[str], object] = secrets.mask_text) -> float:
    times = []
    for _ in range(rounds):
        t = time.process_time()
        fn(text)
        times.append(time.process_time() - t)
    return min(times)


def growth_row(fn: Callable[[str], object], lead: str, unit: str, n: int, rounds: int, rng: random.Random) -> dict[str, Any]:
    """`fn` on `lead + unit * n` and `* 4n`, and on prose as long as the larger (bench_text_hostile.py's rows too)."""
    small, big = lead + unit * n, lead + unit * (4 * n)
    t_small, t_big = best(small, rounds, fn), best(big, rounds, fn)
    t_prose = best(lead + prose(rng, len(big) - len(lead)), rounds, fn)
    return {"unit": unit, "chars": len(big), "small_ms": t_small * 1e3, "big_ms": t_big * 1e3,
            "growth_4x": t_big / max(t_small, 1e-9), "x_prose": t_big / max(t_prose, 1e-9)}


def growth_args(doc: str | None, argv: list[str] | None) -> argparse.Namespace:
    """--n, --rounds, --json (bench_text_hostile.py's too)."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=4000, help="repeats of a unit at the smaller size (4x at the larger)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    return ap.parse_args(argv)


def report(rows: list[dict[str, Any]], args: argparse.Namespace, what: str, head: str,
           label: Callable[[dict[str, Any]], str]) -> int:
    """The rows as JSON (`--json`) or as a table: `head` and `label(row)` the columns before the
    figures (bench_text_hostile.py's too)."""
    if args.json:
        print(json.dumps({"params": vars(args), "rows": rows}, indent=2))
        return 0
    print(f"{what}, {args.n:,} and {4 * args.n:,} times (CPU, best of {args.rounds}); growth 4 = linear, "
          f"16 = quadratic; x prose: over ordinary prose of the same length; load {os.getloadavg()[0]:.1f}")
    print(f"{head} {'KB':>7} {'N ms':>9} {'4N ms':>9} {'growth':>7} {'x prose':>8}")
    for r in rows:
        print(f"{label(r)} {r['chars'] / 1024:7.0f} {r['small_ms']:9.1f} {r['big_ms']:9.1f} {r['growth_4x']:7.1f} "
              f"{r['x_prose']:8.1f}")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = growth_args(__doc__, argv)
    lead = " ".join(sorted(set(secrets._HINTS) | set(secrets._FOLD_HINTS))) + "\n"
    rng = random.Random(1)
    rows = [growth_row(secrets.mask_text, lead, unit, args.n, args.rounds, rng) for unit in UNITS]
    return report(rows, args, "masking a run of each unit", f"{'unit':32}", lambda r: f"{r['unit']!r:32}")


if __name__ == "__main__":
    raise SystemExit(main())
