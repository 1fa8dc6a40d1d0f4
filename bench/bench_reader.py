"""Reader bench: how fast sessions can be listed, and how fast a huge transcript opens.

Run (from the repository root):

    .venv/bin/python bench/bench_reader.py                    # 2,000 files, 1 GB, a 100 MB transcript
    .venv/bin/python bench/bench_reader.py --files 200 --size-mb 100     # quick run (10 MB big file)
    .venv/bin/python bench/bench_reader.py --json             # the figures as JSON on stdout

The corpus is generated once into bench/.corpus/ (gitignored; `--corpus DIR` elsewhere) by
bench/gen_corpus.py and reused while the parameters stay the same. Every file is read once before
measuring, so all figures are warm-cache. Each phase runs in a fresh subprocess of this script
(`--phase NAME`), so its peak memory is its own: VmHWM (peak RSS) and the peak of RssAnon (private
memory, sampled every 10 ms; mmap'd file pages count in RSS but not here).

What it measures:

* Listing every file, three ways, as files/s and as a ratio to the baseline measured in the same
  run: the baseline reads the first and last 64 KB of each file (`jsonl.read_head_tail`: one
  pread per end, a file of up to 128 KB in one) and does nothing else; (a) the product's quick
  listing, `core.listing.quick_listing`, reads the same bytes through the same function and gives
  agent, format, session id, kind, project, title, first and last timestamp, saying which of them
  the two ends could not settle (target: within 3x of the baseline); (b) a full parse of each
  file through its adapter (`adapter.load`). Ratios in wall time and in this process's CPU time
  (`time.process_time`), the latter unmoved by other processes on a busy machine.
* The big transcript: time to the first 50 and the last 50 entries (RecordFile.head/tail, parsed
  and fed through the adapter's parser), each as a percentage of reading the whole file once with
  `open().read()` (target: under 10%); the last 50 numbered three ways: by the newline index of
  the whole file, from the line count the catalog stores at the file's end (`LineMark`: its
  `read_end`, `read_lines`), and from one stored 1 MB before the end (a file grown since its last
  scan: only the new part is counted); the full newline index; a full load for reference.
  Medians of 5 runs.
* The whole `sessionscope recent ID` and `read ID --limit 20` commands on the big transcript,
  warm catalog, with and without bytecode: from the windows the scan checked (the last entries;
  the first), `read` also thin but for its window (core/catalog/window.py), and the first
  `recent` after a copy grew by a line (no checked window: thin but for its last lines), each
  beside the same command reading the file whole: wall, CPU and each process's peak RSS.

Machines are noisy (shared 2-core runners move by +-40%), so read the ratios, not the seconds.
"""
from __future__ import annotations

import argparse
import bisect
import gc
import json
import os
import platform
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable

import orjson

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import gen_corpus  # noqa: E402  (bench/ is not a package)

from sessionscope.core.read.jsonl import LineMark, RecordFile, parse_line, read_head_tail  # noqa: E402
from sessionscope.core.read.ends import FIELDS  # noqa: E402
from sessionscope.core.read.listing import HEAD_TAIL, quick_listing  # noqa: E402

MB = 1024 * 1024


# -- memory -------------------------------------------------------------------------------------


def _status() -> dict[str, int]:
    out: dict[str, int] = {}
    with open("/proc/self/status", "rb") as fh:
        for line in fh:
            key, _, rest = line.partition(b":")
            if key in (b"VmHWM", b"VmRSS", b"RssAnon", b"RssFile"):
                out[key.decode()] = int(rest.split()[0])  # kB
    return out


class _AnonPeak(threading.Thread):
    """Samples RssAnon every `interval` s; /proc has a peak for RSS (VmHWM) but not for it."""

    def __init__(self, interval: float = 0.01) -> None:
        super().__init__(daemon=True)
        self.interval = interval
        self.peak = _status().get("RssAnon", 0)
        self._done = threading.Event()

    def run(self) -> None:
        while not self._done.wait(self.interval):
            self.sample()

    def sample(self) -> None:
        self.peak = max(self.peak, _status().get("RssAnon", 0))

    def stop(self) -> int:
        self._done.set()
        self.join()
        self.sample()
        return self.peak


# -- phases (each runs in its own process) ------------------------------------------------------


def discover(root: Path, registry: Any) -> list[str]:
    """Every transcript under the corpus root, found through the adapters' own discovery."""
    seen: dict[str, None] = {}
    for adapter in registry.adapters:
        for path in adapter.discover(str(root)):
            seen.setdefault(path, None)
    return sorted(seen)


def _median_time(fn: Callable[[], Any], repeat: int) -> tuple[float, Any, list[float]]:
    times, result = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result, times


def _interleaved(fn: Callable[[], Any], base: Callable[[], Any], repeat: int,
                 out: dict[str, Any]) -> Any:
    """Median of `fn` and of the baseline, run alternately in this process: their ratio holds
    even when the machine's speed drifts between phases. Wall time (`seconds`, `baseline_s`)
    and this process's CPU time (`cpu_s`, `baseline_cpu_s`: what other processes on a busy
    machine leave alone) go into `out`; returns the last result of `fn`."""
    times, base_times, cpu, base_cpu, result = [], [], [], [], None
    base()  # warm
    for _ in range(repeat):
        for f, wall, used in ((base, base_times, base_cpu), (fn, times, cpu)):
            t0, c0 = time.perf_counter(), time.process_time()
            value = f()
            wall.append(time.perf_counter() - t0)
            used.append(time.process_time() - c0)
            if f is fn:
                result = value
    out.update(seconds=statistics.median(times), runs=times,
               baseline_s=statistics.median(base_times), cpu_s=statistics.median(cpu),
               baseline_cpu_s=statistics.median(base_cpu))
    return result


def _recent_phase(path: str, out: dict[str, Any]) -> Callable[[], int]:
    """`recent`'s last 50 entries of the big transcript as the product reads them
    (core/catalog/tails.py: from the window a scan checked against its whole read, numbered from
    the stored line count), in a catalog of its own over a link to the file; the scan's time with
    and without looking for that window goes into `out`, beside the whole load `recent` did before."""
    import shutil
    import tempfile

    from sessionscope.core.catalog import tails
    from sessionscope.core.catalog.library import Library, conversation
    from sessionscope.core.catalog.store import Catalog
    from sessionscope.core.read.discovery import Root

    work = Path(tempfile.mkdtemp(prefix="ss-recent-"))  # (removed when the phase's process ends)
    root = work / "root"
    root.mkdir()
    try:
        os.link(path, root / os.path.basename(path))
    except OSError:
        shutil.copy(path, root / os.path.basename(path))

    def scan(db: str) -> tuple[Library, float]:
        lib = Library([Root(str(root), "--root", explicit=True)], catalog=Catalog(work / db))
        c0 = time.process_time()
        lib.scan()
        return lib, time.process_time() - c0

    keep = tails.TAIL_MIN_BYTES
    tails.TAIL_MIN_BYTES = 1 << 62
    _, out["scan_plain_cpu_s"] = scan("plain.sqlite")
    tails.TAIL_MIN_BYTES = keep
    lib, out["scan_cpu_s"] = scan("c.sqlite")
    [session] = [s for s in lib.all_sessions() if s.path.endswith(os.path.basename(path))]
    mark = lib.catalog.tail(session.path)
    out["window_bytes"] = os.path.getsize(path) - mark.offset if mark else None
    c0 = time.process_time()
    whole = conversation(lib.load(session).entries)[-50:]
    out["whole_load_cpu_s"] = time.process_time() - c0
    got = tails.last_entries(lib, session, 50)
    out["same_as_whole"] = got is not None and got[0] == whole
    import atexit

    atexit.register(shutil.rmtree, work, True)  # (after the timed runs, which read the link)

    def run() -> int:
        got = tails.last_entries(lib, session, 50)
        return len(got[0]) if got else -1
    return run


#: `sessionscope recent` with the window switched off: what it did before (a whole read)
_WHOLE_RECENT = ("import sys; from sessionscope.core.catalog import tails, window; "
                 "tails.last_entries = lambda *a: None; window.WINDOW_MIN_BYTES = 1 << 62; "
                 "from sessionscope.cli.main import main; sys.exit(main())")
#: `sessionscope read` with neither the checked head nor the thin window: a whole read, as before
_WHOLE_READ = ("import sys; from sessionscope.core.catalog import tails, window; "
               "tails.first_entries = lambda *a: None; window.WINDOW_MIN_BYTES = 1 << 62; "
               "from sessionscope.cli.main import main; sys.exit(main())")
#: `sessionscope recent` of a grown file (no checked window) read whole, as before the thin window
_WHOLE_GROWN = ("import sys; from sessionscope.core.catalog import window; window.WINDOW_MIN_BYTES = 1 << 62; "
                "from sessionscope.cli.main import main; sys.exit(main())")
#: `sessionscope read` without the checked head: the thin window (core/catalog/window.py)
_THIN_READ = ("import sys; from sessionscope.core.catalog import tails; "
              "tails.first_entries = lambda *a: None; "
              "from sessionscope.cli.main import main; sys.exit(main())")


#: GNU time, which reports its child's peak RSS: a child spawned by this process directly would
#: report this process's (Linux keeps the peak across exec, and a forked child starts with its
#: parent's), ~100 MB here
_TIME = "/usr/bin/time"


def _timed(code: str, args: list[str], env: dict[str, str]) -> tuple[float, float, int | None]:
    """One run of `python -c code args`: its wall and CPU seconds and its peak RSS in KB (None
    without GNU time)."""
    timed = os.access(_TIME, os.X_OK)
    cmd = ([_TIME, "-f", "RSS %M"] if timed else []) + [sys.executable, "-c", code, *args]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = proc.stderr.read() if proc.stderr else b""
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode:
        raise SystemExit(f"{args[0]} failed: {err.decode()[-300:]}")
    rss = [line for line in err.decode(errors="replace").splitlines() if line.startswith("RSS ")]
    return wall, usage.ru_utime + usage.ru_stime, int(rss[-1][4:]) if timed and rss else None


def recent_command(big: Path, repeat: int) -> dict[str, Any]:
    """The whole `sessionscope recent SESSION --limit 10 --json` and `read SESSION --limit 20
    --json` commands over a root holding the big transcript (a link to it), warm catalog, each
    beside the same command reading it whole (the windows switched off), alternately; `read`
    also with the thin window alone (no checked head); with bytecode and without
    (PYTHONDONTWRITEBYTECODE and an empty pycache prefix each run, as bench_cli_search.py does).
    Wall and CPU (the child's rusage) medians, each child's peak RSS, the 1-minute load average
    before and after."""
    import shutil
    import tempfile

    from bench_cli_search import _env
    from bench_mcp import LAUNCH, environment

    work = Path(tempfile.mkdtemp(prefix="ss-recent-cmd-"))
    try:
        root = work / "root"
        root.mkdir()
        try:
            os.link(big, root / big.name)
        except OSError:
            shutil.copy(big, root / big.name)
        base = environment(work)
        where = ["--root", str(root)]
        recent = ["recent", big.stem[:8], *where, "--limit", "10", "--json"]
        read = ["read", big.stem[:8], *where, "--limit", "20", "--json"]
        subprocess.run([sys.executable, "-c", LAUNCH, *recent], env=base, capture_output=True, check=True)
        # A copy grown by a line since its scan: its checked window no longer serves
        grown = work / "grown"
        grown.mkdir()
        shutil.copy(big, grown / big.name)
        grown_recent = ["recent", big.stem[:8], "--root", str(grown), "--limit", "10", "--json"]
        subprocess.run([sys.executable, "-c", LAUNCH, *grown_recent], env=base, capture_output=True, check=True)
        last = json.loads((grown / big.name).read_bytes().rstrip(b"\n").rsplit(b"\n", 1)[-1])
        grew = [0]

        def grow() -> None:
            """A new record on the active branch (not a repeated one: a resume copy makes the
            scan read the file whole, which finds the windows), before each run of the grown
            file's `recent`: each is the first call after its file grew (the one after it would
            read the windows its thin reading found)."""
            grew[0] += 1
            uuid = f"0b5e55ed-0000-4000-8000-{grew[0]:012d}"
            more = {**last, "parentUuid": last.get("uuid"), "uuid": uuid, "type": "user",
                    "message": {"role": "user", "content": f"one more prompt {grew[0]}"}}
            last.update(uuid=uuid)
            with (grown / big.name).open("ab") as fh:
                fh.write(json.dumps(more).encode() + b"\n")

        runs = {"recent": (recent, {"window": LAUNCH, "whole": _WHOLE_RECENT}),
                "read": (read, {"window": LAUNCH, "thin": _THIN_READ, "whole": _WHOLE_READ}),
                "recent_grown": (grown_recent, {"thin": LAUNCH, "whole": _WHOLE_GROWN})}
        out: dict[str, Any] = {"load_before": os.getloadavg()[0]}
        for bytecode in (True, False):
            key = "bytecode" if bytecode else "no_bytecode"
            for command, (args, codes) in runs.items():
                times: dict[str, list[tuple[float, float, int]]] = {label: [] for label in codes}
                for _ in range(repeat):
                    for label, code in codes.items():
                        if command == "recent_grown":
                            grow()
                        times[label].append(_timed(code, args, _env(base, None, bytecode, work)))
                out.setdefault(command, {})[key] = {
                    label: {"wall_s": statistics.median(t[0] for t in got),
                            "cpu_s": statistics.median(t[1] for t in got),
                            "rss_kb": max((t[2] for t in got if t[2] is not None), default=None)}
                    for label, got in times.items()}
        out["load_after"] = os.getloadavg()[0]
        return out
    finally:
        shutil.rmtree(work, ignore_errors=True)


def phase_main(name: str, corpus: Path, big: Path | None, repeat: int) -> dict[str, Any]:
    from sessionscope.core.read.adapters import default_registry

    registry = default_registry()
    idle = _status()
    sampler = _AnonPeak()
    sampler.start()
    out: dict[str, Any] = {"phase": name, "idle_rss_kb": idle.get("VmRSS"),
                           "idle_anon_kb": idle.get("RssAnon")}
    keep: Any = None
    if name.startswith("list-"):
        t0 = time.perf_counter()
        files = discover(corpus, registry)
        out["discover_s"] = time.perf_counter() - t0
        out["files"] = len(files)
        out["bytes"] = sum(os.stat(p).st_size for p in files)
        def baseline() -> int:
            n = 0
            for p in files:
                h, t, _size, _mtime = read_head_tail(p, HEAD_TAIL)
                n += len(h) + (len(t) if t is not h else 0)
            return n

        if name == "list-baseline":
            out["seconds"], out["bytes_read"], out["runs"] = _median_time(baseline, repeat)
        elif name == "list-quick":
            def run() -> list[Any]:
                return quick_listing(files, registry)
            metas = _interleaved(run, baseline, 3 * repeat, out)  # a run is a fraction of a second
            out["whole"] = sum(1 for m in metas if m.whole)
            out["errors"] = sum(1 for m in metas if m.error)
            out["sure"] = {f: sum(1 for m in metas if m.knows(f)) for f in FIELDS}
            out["seen"] = {f: sum(1 for m in metas if m.error is None and getattr(m, f) is not None)
                           for f in FIELDS}
            keep = metas
        elif name == "list-full":
            def run() -> dict[str, int]:
                counts = {"sessions": 0, "entries": 0, "unknown": 0, "errors": 0}
                for p in files:
                    adapter = registry.sniff(p)
                    if adapter is None:
                        counts["unknown"] += 1
                        continue
                    try:
                        loaded = adapter.load(p)
                    except Exception:  # noqa: BLE001 - a bench counts failures, it does not stop
                        counts["errors"] += 1
                        continue
                    counts["sessions"] += len(loaded)
                    counts["entries"] += sum(len(ls.entries) for ls in loaded)
                return counts
            out.update(_interleaved(run, baseline, 1, out))
    elif name.startswith("big-"):
        assert big is not None
        path = str(big)
        adapter = registry.sniff(path)
        assert adapter is not None, f"no adapter reads {path}"
        out["bytes"] = os.path.getsize(path)
        if name == "big-read":
            def run() -> int:
                with open(path, "rb") as fh:
                    return len(fh.read())
            run()  # warm
        elif name in ("big-head", "big-tail", "big-tail-nolines", "big-tail-stored", "big-tail-grown"):
            mark = None
            if name in ("big-tail-stored", "big-tail-grown"):
                # What the catalog stores of a file it read (`read_end`, `read_lines`): at its
                # end, or (grown) at the line start 1 MB before it, as if 1 MB came since.
                with RecordFile(path) as rf:
                    starts = rf.build_index()
                    at = rf.complete_end if name == "big-tail-stored" else max(0, rf.size - MB)
                    lines = bisect.bisect_left(starts, at)
                    mark = LineMark(starts[lines] if lines < len(starts) else at, lines)
                out["mark_behind_end"] = os.path.getsize(path) - mark.offset

            def run() -> int:
                rf = RecordFile(path)
                try:
                    if name == "big-head":
                        raws = rf.head(50)
                    else:
                        raws = rf.tail(50, line_numbers=name != "big-tail-nolines", mark=mark)
                    parser = adapter.parser(path)
                    entries = []
                    for raw in raws:
                        entries.extend(parser.feed(parse_line(raw)))
                    return len(entries)
                finally:
                    rf.close()
        elif name == "big-recent":
            run = _recent_phase(path, out)
        elif name == "big-index":
            def run() -> int:
                rf = RecordFile(path)
                try:
                    return len(rf.build_index())
                finally:
                    rf.close()
        elif name == "big-load":
            def run() -> int:
                loaded = adapter.load(path)
                return sum(len(ls.entries) for ls in loaded)
            repeat = 1
        else:
            raise SystemExit(f"unknown phase {name}")
        if name in ("big-read", "big-load"):
            out["seconds"], out["result"], out["runs"] = _median_time(run, repeat)
        else:  # alternately with the whole read: the ratio holds while the machine's speed drifts
            def read_whole() -> int:
                with open(path, "rb") as fh:
                    return len(fh.read())
            out["result"] = _interleaved(run, read_whole, 3 * repeat, out)
    else:
        raise SystemExit(f"unknown phase {name}")
    out["peak_anon_kb"] = sampler.stop()
    st = _status()
    out["peak_rss_kb"] = st.get("VmHWM")
    del keep
    return out


# -- the driver ---------------------------------------------------------------------------------

LIST_PHASES = ("list-baseline", "list-quick", "list-full")
BIG_PHASES = ("big-read", "big-head", "big-tail", "big-tail-nolines", "big-tail-stored", "big-tail-grown",
              "big-recent", "big-index", "big-load")


def _run_phase(name: str, corpus: Path, big: Path | None, repeat: int) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--phase", name, "--corpus", str(corpus),
           "--repeat", str(repeat)]
    if big:
        cmd += ["--big", str(big)]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        return {"phase": name, "error": (proc.stderr.strip().splitlines() or ["failed"])[-1]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _warm(paths: list[Path]) -> float:
    t0 = time.perf_counter()
    for p in paths:
        with open(p, "rb") as fh:
            while fh.read(16 * MB):
                pass
    return time.perf_counter() - t0


def _machine() -> dict[str, Any]:
    import importlib.metadata as md

    def ver(name: str) -> str:
        try:
            return md.version(name)
        except md.PackageNotFoundError:
            return "?"
    mem_kb = 0
    try:
        with open("/proc/meminfo") as fh:
            mem_kb = int(fh.readline().split()[1])
    except OSError:
        pass
    return {"cores": os.cpu_count(), "usable_cores": len(os.sched_getaffinity(0)),
            "memory_gb": round(mem_kb / 1024 / 1024, 1),
            "python": platform.python_version(), "implementation": platform.python_implementation(),
            "platform": platform.platform(), "orjson": ver("orjson"),
            "sessionscope": ver("sessionscope")}


def run_bench(args: argparse.Namespace) -> dict[str, Any]:
    corpus_dir = Path(args.corpus)
    big_mb = args.big_mb if args.big_mb is not None else gen_corpus.default_big_mb(args.size_mb)
    c = gen_corpus.generate(corpus_dir, files=args.files, size_mb=args.size_mb,
                            big_mb=big_mb, long_line_mb=args.long_line_mb,
                            codex_share=args.codex_share, seed=args.seed,
                            verbose=not args.json)
    warm_s = _warm(c.paths)
    report: dict[str, Any] = {
        "when": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "machine": _machine(),
        "corpus": {"root": str(c.root), "files": len(c.paths), "bytes": c.total_bytes,
                   "big_file": str(c.big) if c.big else None,
                   "big_bytes": c.big.stat().st_size if c.big else 0,
                   "long_lines": c.manifest["params"]["long_lines"],
                   "long_line_mb_max": c.manifest["params"]["long_line_mb"],
                   "reused": c.reused, "generate_s": round(c.seconds, 2),
                   "warm_read_s": round(warm_s, 3)},
        "phases": {},
    }
    phases = list(LIST_PHASES) + (list(BIG_PHASES) if c.big else [])
    if args.skip_full:
        phases = [p for p in phases if p not in ("list-full", "big-load")]
    for name in phases:
        if not args.json:
            print(f"  running {name} …", file=sys.stderr)
        report["phases"][name] = _run_phase(name, c.root, c.big, args.repeat)
    if c.big and not args.skip_command:
        if not args.json:
            print("  running the recent and read commands …", file=sys.stderr)
        report["recent_command"] = recent_command(c.big, args.repeat)
    report["summary"] = _summarize(report)
    return report


def _summarize(report: dict[str, Any]) -> dict[str, Any]:
    ph = report["phases"]
    s: dict[str, Any] = {}
    base = ph.get("list-baseline", {}).get("seconds")
    for name in LIST_PHASES:
        p = ph.get(name, {})
        if "seconds" in p:
            # Against the baseline run alternately in the same process where there is one.
            b = p.get("baseline_s") or base
            cpu, base_cpu = p.get("cpu_s"), p.get("baseline_cpu_s")
            s[name] = {"files_per_s": p["files"] / p["seconds"] if p["seconds"] else None,
                       "x_baseline": p["seconds"] / b if b else None,
                       "x_baseline_cpu": cpu / base_cpu if cpu and base_cpu else None,
                       "x_baseline_phase": p["seconds"] / base if base else None}
    s["quick_within_3x"] = (s.get("list-quick", {}).get("x_baseline") or 99) <= 3.0
    read = ph.get("big-read", {}).get("seconds")
    load = ph.get("big-load", {}).get("seconds")
    for name in BIG_PHASES:
        p = ph.get(name, {})
        if "seconds" in p and read:
            # Against the whole read run alternately in the same process where there is one.
            cpu, base_cpu = p.get("cpu_s"), p.get("baseline_cpu_s")
            s[name] = {"ms": p["seconds"] * 1000,
                       "pct_of_read": 100 * p["seconds"] / (p.get("baseline_s") or read),
                       "pct_of_read_cpu": 100 * cpu / base_cpu if cpu and base_cpu else None,
                       "pct_of_load": 100 * p["seconds"] / load if load else None}
    for name in ("big-head", "big-tail", "big-tail-stored", "big-tail-grown", "big-recent"):
        if name in s:
            s[name]["under_10pct"] = s[name]["pct_of_read"] < 10.0
    return s


def _mb(kb: Any) -> str:
    return f"{kb / 1024:7.0f} MB" if isinstance(kb, (int, float)) else "      ?"


def print_table(r: dict[str, Any]) -> None:
    m, c, ph, s = r["machine"], r["corpus"], r["phases"], r["summary"]
    print(f"\nsessionscope reader bench — {r['when']}")
    print(f"machine: {m['cores']} cores ({m['usable_cores']} usable), {m['memory_gb']} GB RAM, "
          f"{m['implementation']} {m['python']}, orjson {m['orjson']}, {m['platform']}")
    print(f"corpus:  {c['files']} files, {c['bytes'] / MB:.0f} MB, one {c['big_bytes'] / MB:.0f} MB "
          f"transcript, {c['long_lines']} lines of 1-{c['long_line_mb_max']:g} MB; "
          + ("reused" if c["reused"] else f"generated in {c['generate_s']} s")
          + f"; warm-up read {c['warm_read_s']} s")
    base = ph.get("list-baseline", {})
    print(f"\nListing all {base.get('files', '?')} files (warm cache; discovery walk "
          f"{base.get('discover_s', 0) * 1000:.0f} ms, not included)")
    print(f"{'':2}{'phase':44}{'seconds':>9}{'files/s':>10}{'x baseline':>12}{'x cpu':>7}"
          f"{'peak RSS':>11}{'peak anon':>11}")
    labels = {"list-baseline": "baseline: read first+last 64 KB",
              "list-quick": "(a) listing.quick_listing: head/tail metadata",
              "list-full": "(b) full parse: registry.sniff + adapter.load"}
    for name in LIST_PHASES:
        p = ph.get(name)
        if p is None:
            continue
        if "error" in p:
            print(f"  {labels[name]:44}  error: {p['error']}")
            continue
        x, xc = s[name]["x_baseline"], s[name].get("x_baseline_cpu")
        verdict = ""
        if name == "list-quick":
            verdict = "  ok (<= 3x)" if x <= 3 else "  OVER 3x target"
        cpu = f"{xc:7.2f}" if xc else f"{'':7}"
        print(f"  {labels[name]:44}{p['seconds']:9.3f}{s[name]['files_per_s']:10.0f}{x:12.2f}{cpu}"
              f"{_mb(p.get('peak_rss_kb')):>11}{_mb(p.get('peak_anon_kb')):>11}{verdict}")
    q = ph.get("list-quick", {})
    if "sure" in q:
        print(f"  quick listing: {q['whole']} of {q['files']} files read whole, {q['errors']} errors;"
              " fields settled (as the full parse gives them) / seen:")
        print("    " + ", ".join(f"{f} {q['sure'][f]}/{q['seen'][f]}" for f in FIELDS))
    print("  x baseline: median wall time against the baseline run alternately in the same "
          "process; x cpu: the same in\n  this process's CPU time, which other processes on a "
          "busy machine do not inflate")
    f = ph.get("list-full", {})
    if "sessions" in f:
        print(f"  full parse: {f['sessions']} sessions, {f['entries']} entries, "
              f"{f['bytes'] / MB / f['seconds']:.0f} MB/s, {f['errors']} errors")
    if "big-read" not in ph:
        return
    read = ph["big-read"]
    print(f"\nThe {read.get('bytes', 0) / MB:.0f} MB transcript (warm cache, median of "
          f"{len(read.get('runs', [])) or '?'})")
    print(f"{'':2}{'what':44}{'ms':>9}{'% of read()':>13}{'cpu %':>8}{'% of load':>10}{'entries':>9}"
          f"{'peak RSS':>11}{'peak anon':>11}")
    labels = {"big-read": "read whole file: open().read()",
              "big-head": "first 50 lines -> entries (head(50))",
              "big-tail": "last 50 lines -> entries (tail(50))",
              "big-tail-nolines": "  same, tail(50, line_numbers=False)",
              "big-tail-stored": "  same, numbered from the stored line count",
              "big-tail-grown": "  same, stored count 1 MB back (file grew)",
              "big-recent": "recent's last 50 (catalog's checked window)",
              "big-index": "newline index (build_index)",
              "big-load": "full load (adapter.load), 1 run"}
    for name in BIG_PHASES:
        p = ph.get(name)
        if p is None:
            continue
        if "error" in p:
            print(f"  {labels[name]:44}  error: {p['error']}")
            continue
        pct = s[name]["pct_of_read"]
        verdict = ""
        if name in ("big-head", "big-tail", "big-tail-stored", "big-tail-grown", "big-recent"):
            verdict = "  ok (< 10%)" if pct < 10 else "  OVER 10% target"
        result = p.get("result", "")
        entries = result if name not in ("big-read", "big-index") else ""
        of_load = s[name]["pct_of_load"]
        of_load = f"{of_load:9.2f}%" if of_load is not None else f"{'':10}"
        cpu_pct = s[name]["pct_of_read_cpu"]
        cpu_pct = f"{cpu_pct:7.1f}%" if cpu_pct is not None else f"{'':8}"
        print(f"  {labels[name]:44}{p['seconds'] * 1000:9.2f}{pct:12.1f}%{cpu_pct}{of_load}{entries!s:>9}"
              f"{_mb(p.get('peak_rss_kb')):>11}{_mb(p.get('peak_anon_kb')):>11}{verdict}")
    rec = ph.get("big-recent", {})
    if "scan_cpu_s" in rec:
        print(f"  recent: the window is {rec['window_bytes'] or 0:,} bytes; the same 50 entries as the whole "
              f"read: {rec['same_as_whole']}; whole load {rec['whole_load_cpu_s'] * 1000:.0f} ms CPU; the "
              f"scan looking for it {rec['scan_cpu_s'] * 1000:.0f} ms CPU, without {rec['scan_plain_cpu_s'] * 1000:.0f}")
    cmd = r.get("recent_command")
    if cmd:
        labels = {"recent": ("`sessionscope recent ID --limit 10 --json`", {"window": "from the checked window"}),
                  "read": ("`sessionscope read ID --limit 20 --json`",
                           {"window": "from the checked head", "thin": "thin but the window"}),
                  "recent_grown": ("`sessionscope recent ID --limit 10 --json`, the first call after the file grew a line",
                                   {"thin": "thin but the last lines"})}
        print(f"\nThe whole commands on the big transcript (warm catalog; median of the runs; peak RSS the "
              f"largest; load {cmd['load_before']:.1f} -> {cmd['load_after']:.1f})")
        for command, (title, names) in labels.items():
            print(f"  {title}")
            for key, label in (("bytecode", "with bytecode"), ("no_bytecode", "without bytecode")):
                got = cmd[command][key]
                h = got["whole"]
                for name, text in names.items():
                    w = got[name]
                    print(f"    {label:18} {text:24} {w['wall_s'] * 1000:6.0f} ms (CPU {w['cpu_s'] * 1000:5.0f}, "
                          f"{_mb(w['rss_kb']).strip()}); read whole {h['wall_s'] * 1000:6.0f} ms (CPU "
                          f"{h['cpu_s'] * 1000:5.0f}, {_mb(h['rss_kb']).strip()}); CPU ratio "
                          f"{w['cpu_s'] / h['cpu_s']:.2f}")
    idx = ph.get("big-index", {})
    if "result" in idx:
        print(f"  ({idx['result']} lines)")
    idle = ph.get("big-read", {})
    print(f"\nEach phase is a fresh process; one idle after imports holds "
          f"{_mb(idle.get('idle_rss_kb')).strip()} RSS, {_mb(idle.get('idle_anon_kb')).strip()} "
          f"anon. Peaks include that.")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", default=str(HERE / ".corpus"))
    ap.add_argument("--files", type=int, default=2000)
    ap.add_argument("--size-mb", type=float, default=1000)
    ap.add_argument("--big-mb", type=float, default=None,
                    help="size of the big transcript (default: a tenth of --size-mb, at most 100)")
    ap.add_argument("--long-line-mb", type=float, default=5)
    ap.add_argument("--codex-share", type=float, default=0.2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=5, help="runs per timed phase (median)")
    ap.add_argument("--skip-full", action="store_true", help="skip the full parses")
    ap.add_argument("--skip-command", action="store_true", help="skip the whole `recent` and `read` commands")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    ap.add_argument("--phase", help=argparse.SUPPRESS)
    ap.add_argument("--big", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.phase:
        gc.collect()
        result = phase_main(args.phase, Path(args.corpus), Path(args.big) if args.big else None,
                            args.repeat)
        print(json.dumps(result, default=str))
        return 0
    report = run_bench(args)
    if args.json:
        print(json.dumps(report, indent=2, default=str))
    else:
        print_table(report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
