"""Text functions over transcript content on hostile text: a long run of what one regex looks for,
at two sizes.

A regex that tries each place of a run to the run's end costs the square of the run's length (the
cube when it also tries each length of a run it opens with): a line of 1,000 backticks took 10 s
to export before code spans were found in linear time. For each row (a function and the hostile
unit it is fed, repeated N and 4N times after the row's lead), this prints the time (CPU, best of
`--rounds`), its growth from N to 4N (4: linear; 16: quadratic; 64: cubic) and the time over the
same function on ordinary prose of the same length (`x prose`), measured in the same run.
Secret masking has its own bench (bench_mask_hostile.py).

    .venv/bin/python bench/bench_text_hostile.py            # N = 4,000
    .venv/bin/python bench/bench_text_hostile.py --n 16000 --json
"""
from __future__ import annotations

import argparse
import json
import os
import random
import time
from typing import Callable


def _export_line(text: str) -> object:
    from sessionscope.core.export.render import inert_markdown
    return inert_markdown(text)


def _imports(text: str) -> object:
    from sessionscope.core.memory.imports import find_imports
    return find_imports(text)


#: (row name, function, lead, unit): the function is fed `lead + unit * N`
ROWS: tuple[tuple[str, Callable[[str], object], str, str], ...] = (
    ("export: a line of backticks", _export_line, "x", "`"),
    ("export: backticks, unclosed", _export_line, "x ``", "a`"),
    ("memory imports: backticks", _imports, "see @a.md ", "`"),
)


def prose(rng: random.Random, size: int) -> str:
    words = "the a fix test cart webhook see `code` for **details** and run pytest -q on it.".split()
    out, n = [], 0
    while n < size:
        w = rng.choice(words)
        out.append(w)
        n += len(w) + 1
    return " ".join(out)[:size]


def best(fn: Callable[[str], object], text: str, rounds: int) -> float:
    times = []
    for _ in range(rounds):
        t = time.process_time()
        fn(text)
        times.append(time.process_time() - t)
    return min(times)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=4000, help="repeats of a unit at the smaller size (4x at the larger)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    rng = random.Random(1)
    rows = []
    for name, fn, lead, unit in ROWS:
        small, big = lead + unit * args.n, lead + unit * (4 * args.n)
        t_small, t_big = best(fn, small, args.rounds), best(fn, big, args.rounds)
        t_prose = best(fn, lead + prose(rng, len(big) - len(lead)), args.rounds)
        rows.append({"row": name, "unit": unit, "chars": len(big), "small_ms": t_small * 1e3, "big_ms": t_big * 1e3,
                     "growth_4x": t_big / max(t_small, 1e-9), "x_prose": t_big / max(t_prose, 1e-9)})
    if args.json:
        print(json.dumps({"params": vars(args), "rows": rows}, indent=2))
        return 0
    print(f"each function on a run of its unit, {args.n:,} and {4 * args.n:,} times (CPU, best of {args.rounds}); growth 4 = "
          f"linear, 16 = quadratic; x prose: over ordinary prose of the same length; load {os.getloadavg()[0]:.1f}")
    print(f"{'row':36} {'unit':10} {'KB':>6} {'N ms':>9} {'4N ms':>9} {'growth':>7} {'x prose':>8}")
    for r in rows:
        print(f"{r['row']:36} {r['unit']!r:10} {r['chars'] / 1024:6.0f} {r['small_ms']:9.1f} {r['big_ms']:9.1f} "
              f"{r['growth_4x']:7.1f} {r['x_prose']:8.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
