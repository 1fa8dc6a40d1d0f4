"""Archive bench: what `sessionscope archive` costs on a first run, on a run with nothing new and
after a few sessions grew, with hard links and with compressed copies, against the plain tools
doing the same work on the same tree in the same run.

Run (from the repository root):

    .venv/bin/python bench/bench_archive.py                 # 2,000 sessions, ~100 MB
    .venv/bin/python bench/bench_archive.py --files 200     # a quick look
    .venv/bin/python bench/bench_archive.py --json          # the figures as JSON on stdout

The corpus is generated here (a temporary folder, removed after): a home whose
`.claude/projects/<project>/` holds `--files` Claude-shaped transcripts (one in five with a
subagent file and its `.meta.json`), ~`--kb` KB each of varied text (compressible as real
transcripts are). Each row is timed `--repeat` times (best kept), each time into a new archive:

    first run (links)       run_archive(link=True) into an empty archive   vs `cp -al` of the tree
    no change (links)       the same again                                  vs os.walk + stat of the tree
    first run (copies)      run_archive(link=False): gzip copies            vs `tar c | gzip -3` of the tree
    no change (copies)      the same again                                  vs os.walk + stat of the tree
    1% grown (copies)       after appending to 1% of the files              vs os.walk + stat of the tree,
                                                                            `cp -a` of those files, sync
    warm scan, live+archive Library.scan() over the live root and the archive's (links), warm
                            catalog                                         vs the live root alone

Machines are noisy (shared 2-core runners move by +-40%): read the ratios.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from sessionscope.core.archive import run_archive
from sessionscope.core.catalog.library import Library
from sessionscope.core.catalog.store import Catalog
from sessionscope.core.read.discovery import Root, archive_roots

WORDS = ("the retry policy webhook handler test failed because timeout sqlite index query stream "
         "parse line offset cache refresh token payment invoice dashboard chart render migrate "
         "schema column error trace fix patch review commit branch merge deploy").split()


def generate(home: Path, files: int, kb: int, seed: int = 7) -> list[Path]:
    rnd = random.Random(seed)
    out = []
    for i in range(files):
        proj = home / ".claude" / "projects" / f"-work-proj{i % 40}"
        proj.mkdir(parents=True, exist_ok=True)
        sid = str(uuid.UUID(int=rnd.getrandbits(128)))
        path = proj / f"{sid}.jsonl"
        out.append(path)
        lines, size, parent = [], 0, None
        n = 0
        while size < kb * 1024:
            n += 1
            text = " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(20, 120)))
            uid = str(uuid.UUID(int=rnd.getrandbits(128)))
            rec = {"type": "user" if n % 2 else "assistant", "uuid": uid, "parentUuid": parent,
                   "sessionId": sid, "cwd": f"/work/proj{i % 40}", "timestamp": f"2026-10-01T09:{n % 60:02d}:00Z",
                   "message": {"role": "user" if n % 2 else "assistant",
                               "content": text if n % 2 else [{"type": "text", "text": text}]}}
            line = json.dumps(rec) + "\n"
            lines.append(line)
            size += len(line)
            parent = uid
        path.write_text("".join(lines))
        if i % 5 == 0:
            sub = proj / sid / "subagents"
            sub.mkdir(parents=True)
            (sub / "agent-a1.jsonl").write_text("".join(lines[:4]).replace('"isSidechain": false', ""))
            (sub / "agent-a1.meta.json").write_text('{"agentType": "general-purpose"}')
    return out


def best(fn, repeat: int, setup=None) -> float:  # noqa: ANN001
    times = []
    for _ in range(repeat):
        if setup is not None:
            setup()
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def walk_stat(top: Path) -> None:
    for d, _, names in os.walk(top):
        for n in names:
            os.stat(os.path.join(d, n))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--files", type=int, default=2000)
    ap.add_argument("--kb", type=int, default=50, help="size of each transcript")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="bench-archive-"))
    rows: list[dict[str, object]] = []
    try:
        home = work / "home"
        paths = generate(home, args.files, args.kb)
        src = home / ".claude" / "projects"
        live = [Root(str(src), "claude-code")]
        total = sum(p.stat().st_size for p in src.rglob("*") if p.is_file())
        counter = iter(range(10**6))
        state: dict[str, Path] = {}

        def fresh(name: str) -> None:
            state[name] = work / f"{name}{next(counter)}"

        def row(what: str, ours: float, base: float, baseline: str, report=None) -> None:  # noqa: ANN001
            rows.append({"what": what, "seconds": round(ours, 4), "baseline": baseline,
                         "baseline_seconds": round(base, 4), "ratio": round(ours / base, 2) if base else None,
                         **({"new": report.new, "updated": report.updated, "unchanged": report.unchanged,
                             "bytes_written": report.bytes_written} if report is not None else {})})

        def arc(name: str, link: bool):  # noqa: ANN202
            return run_archive(live, state[name], link=link, home=str(home))

        # hard links
        t_link = best(lambda: arc("a", True), args.repeat, lambda: fresh("a"))
        t_cpal = best(lambda: subprocess.run(["cp", "-al", str(src), str(state["c"])], check=True),
                      args.repeat, lambda: fresh("c"))
        row("first run (links)", t_link, t_cpal, "cp -al")
        t_same = best(lambda: arc("a", True), args.repeat)
        t_walk = best(lambda: walk_stat(src), args.repeat)
        row("no change (links)", t_same, t_walk, "os.walk + stat", arc("a", True))
        # compressed copies
        t_gz = best(lambda: arc("g", False), args.repeat, lambda: fresh("g"))
        tarball = work / "tree.tar.gz"
        t_tar = best(lambda: subprocess.run(f"tar -C {src} -cf - . | gzip -3 > {tarball}", shell=True, check=True),
                     args.repeat)
        row("first run (copies)", t_gz, t_tar, "tar c | gzip -3", None)
        t_same_gz = best(lambda: arc("g", False), args.repeat)
        row("no change (copies)", t_same_gz, t_walk, "os.walk + stat", arc("g", False))
        grown = paths[:: 100] or paths[:1]

        def grow() -> None:
            for p in grown:
                with p.open("a") as fh:
                    fh.write(json.dumps({"type": "user", "message": {"role": "user", "content": "more"}}) + "\n")

        t_grow = best(lambda: state.__setitem__("r", arc("g", False)), args.repeat, grow)
        dst = work / "plain"
        dst.mkdir()
        def walk_and_copy() -> None:  # what it takes at least: find the grown files, copy them
            walk_stat(src)
            subprocess.run(["cp", "-a", *map(str, grown), str(dst)], check=True)
            os.sync()

        t_cp = best(walk_and_copy, args.repeat)
        row(f"{len(grown)} grown (copies)", t_grow, t_cp, f"walk + stat, cp -a of the {len(grown)}, sync",
            state["r"])  # type: ignore[arg-type]
        # reading the archive back as roots (warm catalogs)
        both = Library(live + archive_roots(state["a"]), catalog=Catalog(work / "both.sqlite"))
        alone = Library(live, catalog=Catalog(work / "alone.sqlite"))
        both.scan()
        alone.scan()
        t_both = best(both.scan, args.repeat)
        t_alone = best(alone.scan, args.repeat)
        row("warm scan, live+archive", t_both, t_alone, "live root alone")
        summary = {"files": sum(1 for p in src.rglob("*") if p.is_file()), "bytes": total,
                   "archive_gz_bytes": sum(p.stat().st_size for p in state["g"].rglob("*") if p.is_file()),
                   "rows": rows}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if args.json:
        print(json.dumps(summary, indent=1))
        return 0
    print(f"corpus: {summary['files']} files, {total / 1e6:.1f} MB (compressed archive "
          f"{summary['archive_gz_bytes'] / 1e6:.1f} MB); best of {args.repeat}")
    print(f"{'':26} {'ours':>9} {'baseline':>9} {'ratio':>6}  baseline")
    for r in rows:
        print(f"{r['what']:<26} {r['seconds'] * 1000:>7.1f}ms {r['baseline_seconds'] * 1000:>7.1f}ms "
              f"{r['ratio']:>6}  {r['baseline']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
