"""Index bench: how fast the full-text index is built, how big and how hungry it is, how fast it
answers each class of query, and how soon an append becomes searchable.

Run (from the repository root):

    .venv/bin/python bench/bench_index.py                     # 2,000 files, 1 GB, a 100 MB transcript
    .venv/bin/python bench/bench_index.py --files 200 --size-mb 100 --runs 20   # quick run
    .venv/bin/python bench/bench_index.py --variants half,20k # memory also on 20,000 files / 2.3 GB
    .venv/bin/python bench/bench_index.py --memory-only --variants single-claude,single-codex
                                              # only the memory check, on one 1 GB transcript each
    .venv/bin/python bench/bench_index.py --json              # the figures as JSON on stdout

The corpus comes from bench/gen_corpus.py (cached in bench/.corpus/; the smaller and larger
corpora for the memory check, and a corpus of any other --files/--size-mb, in
bench/.corpus-variants/). Every file is read once before
measuring, so all figures are warm-cache. Each phase runs in a fresh subprocess of this script
(`--phase NAME`), so its peak memory is its own: VmHWM (peak RSS) and the peak of RssAnon
(private memory, sampled every 50 ms in a thread; mmap'd file pages count in RSS but not there).

What it measures, each against a baseline measured in the same run (shared 2-core machines move
by +-40%: read the ratios):

* parse: orjson-parsing every line of every file (`for line in f: orjson.loads(line)`), the
  floor for anything that reads the JSONL.
* build: a fresh cache directory, two ways: `Library.scan()` (the catalog) then
  `SearchIndex.update()`, as the CLI and the app call them; and one pass,
  `SearchIndex.update(scan=True)`, which indexes each file from the scan's own parse. MB/s of raw
  JSONL for each part and in all, as a ratio to the parse; process CPU seconds; index size on
  disk as a share of the corpus; peak RSS and anon. Both are repeated on the other corpus sizes
  (`--variants`) to show how peak memory follows the corpus.
* query: p50/p95 over `--runs` warm runs of `SearchIndex.search(q, limit=20)` for a common word,
  a rare word, a phrase of two top-20 words and one of mid-frequency words (and, shown but not
  judged, the commonest pair of words, which half the documents hold), the widest prefix
  (most terms behind it) and a typical one, a filter-only query and two substrings (a word
  fragment and a path fragment), against `rg -c` (fixed string, case-insensitive, median of
  `--rg-runs`) over the raw corpus for the same term; plus the first run after opening. Words
  are chosen from the generator's own text pool and checked against the index's document
  frequencies, so common is common and rare is rare.
* append: 1 MB of new records appended to one session file (a mid-sized one, and the big
  transcript), then scan + update + search until a unique token from the last appended record is
  found. The file is truncated back afterwards, so the cached corpus stays valid.

Targets (from the issue): each query class p95 at least 30x faster than rg; the build at least
35 MB/s; peak RSS during the build under 400 MB at any corpus size. The table says whether each
is met, and prints the load average: when other processes use the CPUs, seconds and MB/s are
inflated and the ratios are the figures to read.
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any, Callable

import orjson

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import gen_corpus  # noqa: E402  (bench/ is not a package)

MB = 1024 * 1024
TARGET_QUERY_X = 30.0
TARGET_BUILD_MBS = 35.0
TARGET_RSS_MB = 400.0
VARIANTS = {  # name -> generate() parameters, relative to the main corpus where it says so
    "half": lambda a: dict(files=max(1, a.files // 2), size_mb=a.size_mb / 2,
                           big_mb=_big_mb(a) / 2),
    "20k": lambda a: dict(files=20000, size_mb=2300, big_mb=100),
    # one transcript of --single-mb (1 GB): memory must follow a batch, not the file
    "single-claude": lambda a: dict(files=1, size_mb=a.single_mb, big_mb=a.single_mb),
    "single-codex": lambda a: dict(files=1, size_mb=a.single_mb, big_mb=a.single_mb, big_kind="codex"),
}


def _big_mb(a: argparse.Namespace) -> float:
    return a.big_mb if a.big_mb is not None else gen_corpus.default_big_mb(a.size_mb)


def _default_corpus(a: argparse.Namespace) -> Path:
    """bench/.corpus/ holds the full-size corpus (the other benches reuse it); a corpus of any
    other parameters goes to a directory of its own, as generate() replaces a cached corpus whose
    parameters differ."""
    params = (a.files, a.size_mb, _big_mb(a), a.long_line_mb, a.codex_share, a.seed)
    if params == (2000, 1000, 100, 5, 0.2, 1):
        return HERE / ".corpus"
    vroot = Path(a.variants_dir)
    vroot.mkdir(parents=True, exist_ok=True)
    (vroot / ".gitignore").write_text("*\n")  # cached corpora, never committed
    return vroot / ("-".join(f"{x:g}" for x in params))


# -- memory ------------------------------------------------------------------------------------


def _status() -> dict[str, int]:
    out: dict[str, int] = {}
    with open("/proc/self/status", "rb") as fh:
        for line in fh:
            key, _, rest = line.partition(b":")
            if key in (b"VmHWM", b"VmRSS", b"RssAnon", b"RssFile"):
                out[key.decode()] = int(rest.split()[0])  # kB
    return out


class _AnonPeak(threading.Thread):
    """Samples RssAnon (and RssFile: mapped file pages) every `interval` s; /proc has a peak
    for RSS (VmHWM) but not for either part."""

    def __init__(self, interval: float = 0.05) -> None:
        super().__init__(daemon=True)
        self.interval = interval
        self.peak = _status().get("RssAnon", 0)
        self.peak_file = _status().get("RssFile", 0)
        self._done = threading.Event()

    def run(self) -> None:
        while not self._done.wait(self.interval):
            self.sample()

    def sample(self) -> int:
        status = _status()
        self.peak = max(self.peak, status.get("RssAnon", 0))
        self.peak_file = max(self.peak_file, status.get("RssFile", 0))
        return self.peak

    def stop(self) -> int:
        self._done.set()
        self.join()
        return self.sample()


def _du(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) if path.exists() else 0


def _pct(values: list[float], q: float) -> float:
    """The q-quantile (0..1) by linear interpolation."""
    s = sorted(values)
    if len(s) == 1:
        return s[0]
    pos = q * (len(s) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


# -- phases (each runs in its own process) ------------------------------------------------------


def _roots(corpus: Path) -> list[Any]:
    from sessionscope.core.read.discovery import Root

    return [Root(str(corpus / sub), "--root", explicit=True)
            for sub in ("claude", "codex") if (corpus / sub).is_dir()]


def _open(corpus: Path, work: Path) -> tuple[Any, Any]:
    from sessionscope.core.catalog.store import Catalog
    from sessionscope.core.search.index import SearchIndex
    from sessionscope.core.catalog.library import Library

    lib = Library(_roots(corpus), catalog=Catalog(work / "catalog.sqlite"))
    return lib, SearchIndex(work / "index")


def phase_parse(corpus: Path, out: dict[str, Any]) -> None:
    """The floor: every line of every transcript through orjson, nothing kept."""
    paths = [p for r in _roots(corpus) for p in sorted(Path(r.path).rglob("*.jsonl"))]
    loads = orjson.loads
    n = nbytes = 0
    t0 = time.perf_counter()
    for p in paths:
        with open(p, "rb") as fh:
            for line in fh:
                nbytes += len(line)
                if line.strip():
                    loads(line)
                    n += 1
    out["seconds"] = time.perf_counter() - t0
    out.update(files=len(paths), bytes=nbytes, lines=n)


def phase_build(corpus: Path, work: Path, out: dict[str, Any], sampler: _AnonPeak,
                one_pass: bool) -> None:
    """Two passes, as the CLI and the app call it today: `scan()` then `update()`; or one:
    `update(scan=True)`, which indexes each file from the scan's own parse."""
    lib, index = _open(corpus, work)
    cpu0 = os.times()
    t0 = time.perf_counter()
    if one_pass:
        report = index.update(lib, scan=True)
        scan = report.scan
        out["files_from_scan"] = report.files_from_scan
    else:
        scan = lib.scan()
        out["scan_s"] = time.perf_counter() - t0
        out["scan_peak_anon_kb"] = sampler.sample()
        out["scan_peak_rss_kb"] = _status().get("VmHWM")
        t1 = time.perf_counter()
        report = index.update(lib)
    index.close()  # waits for merges: part of the build
    if not one_pass:
        out["update_s"] = time.perf_counter() - t1
    out["build_s"] = time.perf_counter() - t0
    cpu1 = os.times()
    out["cpu_s"] = (cpu1.user - cpu0.user) + (cpu1.system - cpu0.system)
    out["one_pass"] = one_pass
    out["files"] = scan.files
    out["scan_errors"] = len(scan.errors)
    out["bytes"] = sum(r.fingerprint.size for r in lib.rows.values())
    out["docs"] = report.docs_added
    out["sessions"] = len(lib.all_sessions())
    out["index_messages"] = report.messages[:5]
    out["index_bytes"] = _du(work / "index")
    out["segments"] = index.index.searcher().num_segments
    out["catalog_bytes"] = _du(work) - out["index_bytes"]


class _Terms:
    """The words of the generator's text pool, to pick query terms that are really common or
    rare in the corpus (checked against the index's document frequencies)."""

    def __init__(self, seed: int, size_mb: float) -> None:
        pool = gen_corpus._Text(random.Random(seed),
                                pool_bytes=int(min(6 * MB, max(1 * MB, size_mb * MB / 8)))).pool
        words = re.findall(r"[a-z0-9]+", pool.lower())
        self.counts = Counter(words)
        self.bigrams = Counter(zip(words, words[1:]))


def _choose_queries(index: Any, seed: int, size_mb: float) -> list[dict[str, Any]]:
    searcher = index.index.searcher()
    df: Callable[[str], int] = lambda w: searcher.doc_freq("text", w)
    terms = _Terms(seed, size_mb)
    ranked = [w for w, _ in terms.counts.most_common()]
    common = ranked[0]
    once = sorted(w for w, c in terms.counts.items() if c == 1 and len(w) >= 6)[:400]
    rare = min((w for w in once if df(w) > 0), key=lambda w: (df(w), w), default=ranked[-1])
    phrase = next(f"{a} {b}" for (a, b), _ in terms.bigrams.most_common()
                  if len(a) >= 4 and len(b) >= 4 and a != b)
    commonest = next(f"{a} {b}" for (a, b), _ in terms.bigrams.most_common() if a != b)
    # A phrase of two mid-frequency words (ranks 200-2000), like most phrases people type.
    rank = {w: i for i, w in enumerate(ranked)}
    mid = next((f"{a} {b}" for (a, b), _ in terms.bigrams.most_common()
                if a != b and 200 <= rank[a] < 2000 and 200 <= rank[b] < 2000), phrase)
    by_prefix: Counter[str] = Counter(w[:3] for w in terms.counts if len(w) >= 5)
    prefix = by_prefix.most_common(1)[0][0]  # the worst case: the most words behind a prefix
    # A prefix like people type (a frequent word's first letters, a few dozen words behind it).
    narrow = Counter(w[:4] for w in terms.counts if len(w) >= 4)
    typical = next((w[:4] for w in ranked[30:] if len(w) >= 6 and 2 <= narrow[w[:4]] <= 40), prefix)
    # A fragment of a frequent long word that is no token of its own: the substring path.
    frag = ""
    for w in ranked:
        if len(w) >= 10 and w.isalpha():
            cand = w[2:-2]
            if df(cand) == 0:
                frag = cand
                break
    queries = [
        {"cls": "common word", "query": common, "rg": common, "doc_freq": df(common)},
        {"cls": "rare word", "query": rare, "rg": rare, "doc_freq": df(rare)},
        {"cls": "phrase (two top-20 words)", "query": f'"{phrase}"', "rg": phrase},
        {"cls": "phrase (mid-frequency)", "query": f'"{mid}"', "rg": mid},
        # Not one of the classes: a phrase that about half the documents hold, whose
        # top 20 by BM25 means scoring all of them (see `SearchIndex._phrase`). Shown, not judged.
        {"cls": "phrase (commonest pair)", "query": f'"{commonest}"', "rg": commonest,
         "target": False},
        {"cls": "prefix (widest)", "query": prefix + "*", "rg": prefix,
         "expansions": len(searcher.terms_with_prefix("text", prefix))},
        {"cls": "prefix (typical)", "query": typical + "*", "rg": typical,
         "expansions": len(searcher.terms_with_prefix("text", typical))},
        {"cls": "filter only", "query": "agent:codex role:user", "rg": '"role":"user"'},
        {"cls": "substring (word fragment)", "query": frag, "rg": frag},
        {"cls": "substring (path fragment)", "query": "ments-ap", "rg": "ments-ap"},
    ]
    return queries


def _rg_time(rg: str, term: str, corpus: Path, runs: int) -> tuple[float, int]:
    cmd = [rg, "--no-ignore", "--hidden", "--no-messages", "-c", "-F", "-i", "--", term, str(corpus)]
    times, count = [], 0
    subprocess.run(cmd, capture_output=True)  # warm
    for _ in range(runs):
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True)
        times.append(time.perf_counter() - t0)
        count = sum(int(line.rsplit(b":", 1)[1]) for line in proc.stdout.splitlines() if b":" in line)
    return statistics.median(times), count


def phase_query(corpus: Path, work: Path, out: dict[str, Any], runs: int, rg_runs: int,
                seed: int, size_mb: float, rg: str | None) -> None:
    from sessionscope.core.search.index import SearchIndex

    index = SearchIndex(work / "index")
    out["docs"] = index.index.searcher().num_docs
    queries = _choose_queries(index, seed, size_mb)
    from sessionscope.core.search.query import parse

    searcher = index.index.searcher()
    for q in queries:
        if q["query"].startswith('"'):  # how many documents hold the phrase
            q["matches"] = searcher.search(index._query(parse(q["query"])), 1, count=True).count
        t0 = time.perf_counter()  # the first run after opening (a substring lists the terms)
        res = index.search(q["query"], limit=20)
        q["first_ms"] = (time.perf_counter() - t0) * 1000
        for _ in range(3):  # warm
            res = index.search(q["query"], limit=20)
        times = []
        for _ in range(runs):
            t0 = time.perf_counter()
            res = index.search(q["query"], limit=20)
            times.append(time.perf_counter() - t0)
        q.update(mode=res.mode, hits=len(res.hits), runs=len(times),
                 p50_ms=_pct(times, 0.5) * 1000, p95_ms=_pct(times, 0.95) * 1000,
                 max_ms=max(times) * 1000)
        if rg:
            seconds, q["rg_count"] = _rg_time(rg, q["rg"], corpus, rg_runs)
            q["rg_ms"] = seconds * 1000
    out["queries"] = queries


def _append_records(path: Path, token: str, size: int, rng: random.Random) -> int:
    """Claude-shaped records (one session, the file's own id) of about `size` bytes, the last a
    user prompt holding `token`; returns the bytes written."""
    text = _append_records.text  # type: ignore[attr-defined]
    sid = path.stem
    f = gen_corpus._ClaudeFile(rng, text, cwd="/home/bench/src/appended", session_id=sid,
                               start_ms=gen_corpus.BASE_TIME + 86_400_000)
    lines: list[bytes] = []
    n = 0
    while n < size:
        before = len(lines)
        f.turn(lines, prompt=not lines)
        n += sum(len(x) + 1 for x in lines[before:])
    d = f._rec("user")
    d["message"] = {"role": "user", "content": f"please look at {token} again"}
    d["timestamp"] = f._tick(5, 40)
    lines.append(orjson.dumps(d))
    data = b"\n".join(lines) + b"\n"
    with open(path, "ab") as fh:
        fh.write(data)
    return len(data)


def phase_append(corpus: Path, work: Path, out: dict[str, Any], targets: list[str],
                 runs: int) -> None:
    rng = random.Random(7)
    _append_records.text = gen_corpus._Text(rng, pool_bytes=1 * MB)  # type: ignore[attr-defined]
    lib, index = _open(corpus, work)
    t0 = time.perf_counter()
    lib.scan()
    t1 = time.perf_counter()
    index.update(lib)
    out["nochange_scan_ms"] = (t1 - t0) * 1000
    out["nochange_update_ms"] = (time.perf_counter() - t1) * 1000
    results = []
    for target in targets:
        path = Path(target)
        st = path.stat()
        rows = []
        try:
            for i in range(runs):
                token = f"appendmark{i}x{rng.getrandbits(40):010x}"
                added = _append_records(path, token, 1 * MB, rng)
                t0 = time.perf_counter()
                lib.scan()
                t1 = time.perf_counter()
                rep = index.update(lib)
                t2 = time.perf_counter()
                hits = index.search(token, limit=20).hits
                t3 = time.perf_counter()
                rows.append({"appended": added, "scan_ms": (t1 - t0) * 1000,
                             "update_ms": (t2 - t1) * 1000, "search_ms": (t3 - t2) * 1000,
                             "total_ms": (t3 - t0) * 1000, "found": len(hits) == 1,
                             "docs_added": rep.docs_added, "appended_files": rep.files_appended})
        finally:
            os.truncate(path, st.st_size)
            os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
        med = {k: statistics.median(r[k] for r in rows)
               for k in ("scan_ms", "update_ms", "search_ms", "total_ms")}
        results.append({"file": str(path), "file_bytes": st.st_size, "runs": rows, **med,
                        "all_found": all(r["found"] for r in rows),
                        "appended_bytes": rows[0]["appended"] if rows else 0})
    out["targets"] = results


def phase_main(args: argparse.Namespace) -> dict[str, Any]:
    import sessionscope.core.search.index  # noqa: F401  (imports count as idle, not as the phase)

    gc.collect()
    idle = _status()
    sampler = _AnonPeak()
    sampler.start()
    out: dict[str, Any] = {"phase": args.phase, "idle_rss_kb": idle.get("VmRSS"),
                           "idle_anon_kb": idle.get("RssAnon"), "load_before": os.getloadavg()[0]}
    corpus, work = Path(args.corpus), Path(args.work) if args.work else None
    name = args.phase
    if name == "parse":
        phase_parse(corpus, out)
    elif name.startswith("build"):
        assert work is not None
        phase_build(corpus, work, out, sampler, one_pass=name.endswith("1pass"))
    elif name == "query":
        assert work is not None
        phase_query(corpus, work, out, args.runs, args.rg_runs, args.seed, args.size_mb, args.rg)
    elif name == "append":
        assert work is not None
        phase_append(corpus, work, out, args.append_to, args.append_runs)
    else:
        raise SystemExit(f"unknown phase {name}")
    out["peak_anon_kb"] = sampler.stop()
    out["peak_file_kb"] = sampler.peak_file
    out["peak_rss_kb"] = _status().get("VmHWM")
    out["load_after"] = os.getloadavg()[0]
    return out


# -- the driver ---------------------------------------------------------------------------------


def _run_phase(name: str, corpus: Path, work: Path | None, args: argparse.Namespace,
               extra: list[str] = ()) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--phase", name, "--corpus", str(corpus),
           "--runs", str(args.runs), "--rg-runs", str(args.rg_runs), "--seed", str(args.seed),
           "--size-mb", str(args.size_mb), "--append-runs", str(args.append_runs), *extra]
    if work:
        cmd += ["--work", str(work)]
    if args.rg:
        cmd += ["--rg", args.rg]
    if not args.json:
        print(f"  running {name} …", file=sys.stderr)
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


def _find_rg(quiet: bool) -> tuple[str | None, str]:
    rg = shutil.which("rg")
    if rg:
        return rg, ""
    if shutil.which("apt-get") and os.geteuid() == 0:
        if not quiet:
            print("  rg missing: trying `apt-get install -y ripgrep` once …", file=sys.stderr)
        subprocess.run(["apt-get", "install", "-y", "-q", "ripgrep"], capture_output=True)
        rg = shutil.which("rg")
        if rg:
            return rg, "ripgrep installed with apt-get"
    return None, "ripgrep (rg) not found and could not be installed: the rg column is skipped"


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
            "load_before": [round(x, 2) for x in os.getloadavg()],
            "memory_gb": round(mem_kb / 1024 / 1024, 1), "python": platform.python_version(),
            "platform": platform.platform(), "orjson": ver("orjson"), "tantivy": ver("tantivy"),
            "sessionscope": ver("sessionscope")}


def _corpus_info(c: gen_corpus.Corpus) -> dict[str, Any]:
    return {"root": str(c.root), "files": len(c.paths), "bytes": c.total_bytes,
            "big_bytes": c.big.stat().st_size if c.big else 0, "reused": c.reused,
            "generate_s": round(c.seconds, 2)}


def _append_targets(c: gen_corpus.Corpus) -> list[str]:
    """A mid-sized main Claude transcript, and the big one."""
    files = [e for e in c.manifest["files"] if e["kind"] == "claude" and not e["long_line"]]
    files.sort(key=lambda e: e["size"])
    out = [str(c.root / files[len(files) // 2]["path"])] if files else []
    if c.big and str(c.big) not in out:
        out.append(str(c.big))
    return out


def _main_phases(c: gen_corpus.Corpus, work: Path, ph: dict[str, Any], args: argparse.Namespace) -> None:
    ph["parse"] = _run_phase("parse", c.root, None, args)
    ph["build-1pass"] = _run_phase("build-1pass", c.root, work / "main1", args)
    shutil.rmtree(work / "main1", ignore_errors=True)
    ph["build"] = _run_phase("build", c.root, work / "main", args)
    ph["query"] = _run_phase("query", c.root, work / "main", args)
    if not args.skip_append:
        targets = _append_targets(c)
        ph["append"] = _run_phase("append", c.root, work / "main", args,
                                  ["--append-to", *targets])


def run_bench(args: argparse.Namespace) -> dict[str, Any]:
    quiet = args.json
    c = None if args.memory_only else gen_corpus.generate(
        args.corpus, files=args.files, size_mb=args.size_mb, big_mb=_big_mb(args),
        long_line_mb=args.long_line_mb, codex_share=args.codex_share, seed=args.seed, verbose=not quiet)
    report: dict[str, Any] = {"when": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
                              "machine": _machine(), "corpus": _corpus_info(c) if c else None,
                              "notes": [], "phases": {}}
    rg, note = _find_rg(quiet) if not (args.no_rg or args.memory_only) else (None, "rg column skipped")
    args.rg = rg
    if note and c is not None:
        report["notes"].append(note)
    if c is not None:
        report["corpus"]["warm_read_s"] = round(_warm(c.paths), 3)
    ph = report["phases"]
    work = Path(tempfile.mkdtemp(prefix="sessionscope-bench-index-", dir=args.work_dir))
    try:
        if c is not None:
            _main_phases(c, work, ph, args)
        for name in [v for v in args.variants.split(",") if v]:
            if name not in VARIANTS:
                raise SystemExit(f"unknown variant {name!r} (known: {', '.join(VARIANTS)})")
            vroot = Path(args.variants_dir)
            vroot.mkdir(parents=True, exist_ok=True)
            (vroot / ".gitignore").write_text("*\n")  # cached corpora, never committed
            params = VARIANTS[name](args)
            # (a single transcript of another size than 1 GB: a folder of its own)
            folder = name if not name.startswith("single") or args.single_mb == 1000 else f"{name}-{args.single_mb:g}"
            vc = gen_corpus.generate(vroot / folder, long_line_mb=args.long_line_mb,
                                     codex_share=args.codex_share, seed=args.seed,
                                     verbose=not quiet, **params)
            for suffix in ("", "-1pass"):
                _warm(vc.paths)
                p = _run_phase(f"build-{name}{suffix}", vc.root, work / name, args)
                p["corpus"] = _corpus_info(vc)
                ph[f"build-{name}{suffix}"] = p
                shutil.rmtree(work / name, ignore_errors=True)
    finally:
        if args.keep:
            report["notes"].append(f"index and catalog kept in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    report["machine"]["load_after"] = [round(x, 2) for x in os.getloadavg()]
    report["summary"] = _summarize(report)
    return report


def _summarize(r: dict[str, Any]) -> dict[str, Any]:
    ph = r["phases"]
    s: dict[str, Any] = {}
    parse = ph.get("parse", {})
    if "seconds" in parse:
        s["parse_mbs"] = parse["bytes"] / MB / parse["seconds"]
    for name in ("build", "build-1pass"):
        build = ph.get(name, {})
        if "build_s" not in build:
            continue
        b = build["bytes"] / MB
        d: dict[str, Any] = {"mbs": b / build["build_s"], "index_share": build["index_bytes"] / build["bytes"]}
        for part in ("scan", "update"):
            if f"{part}_s" in build:
                d[f"{part}_mbs"] = b / build[f"{part}_s"]
        if "seconds" in parse:
            d["x_parse"] = build["build_s"] / parse["seconds"]
            for part in ("scan", "update"):
                if f"{part}_s" in build:
                    d[f"{part}_x_parse"] = build[f"{part}_s"] / parse["seconds"]
        d["ok"] = d["mbs"] >= TARGET_BUILD_MBS
        s[name] = d
    s["build_ok"] = {n: s[n]["ok"] for n in ("build", "build-1pass") if n in s}
    rss = {name: p["peak_rss_kb"] / 1024 for name, p in ph.items()
           if name.startswith("build") and "peak_rss_kb" in p}
    s["peak_rss_mb"] = rss
    s["rss_ok"] = bool(rss) and all(v < TARGET_RSS_MB for v in rss.values())
    qs = ph.get("query", {}).get("queries", [])
    for q in qs:
        if "rg_ms" in q:
            q["x_rg_p95"] = q["rg_ms"] / q["p95_ms"] if q["p95_ms"] else None
            q["ok"] = (q["x_rg_p95"] or 0) >= TARGET_QUERY_X
    judged = [q for q in qs if q.get("target", True)]
    s["queries_ok"] = (all(q.get("ok") for q in judged) if any("rg_ms" in q for q in judged) else None)
    return s


def _mb(kb: Any) -> str:
    return f"{kb / 1024:.0f} MB" if isinstance(kb, (int, float)) else "?"


def _ok(flag: Any) -> str:
    return "" if flag is None else "met" if flag else "NOT MET"


def print_table(r: dict[str, Any]) -> None:
    m, c, ph, s = r["machine"], r["corpus"], r["phases"], r["summary"]
    print(f"\nsessionscope index bench — {r['when']}")
    print(f"machine: {m['cores']} cores ({m['usable_cores']} usable), {m['memory_gb']} GB RAM, "
          f"Python {m['python']}, tantivy {m['tantivy']}, orjson {m['orjson']}; load average "
          f"{m.get('load_before', ['?'])[0]} before, {m.get('load_after', ['?'])[0]} after")
    if m.get("load_before", [0])[0] > 0.5:  # (the bench itself loads the CPUs afterwards)
        print("note:    other processes were using the CPUs: seconds and MB/s are inflated, the "
              "x-parse and x-rg ratios (measured in the same run) hold better")
    if c is None:
        print("corpus:  none (--memory-only: the memory check on the variants alone)")
    else:
        print(f"corpus:  {c['files']} files, {c['bytes'] / MB:.0f} MB, one {c['big_bytes'] / MB:.0f} MB "
              f"transcript; " + ("reused" if c["reused"] else f"generated in {c['generate_s']} s")
              + f"; warm-up read {c['warm_read_s']} s")
    for note in r["notes"]:
        print(f"note:    {note}")
    for name, p in ph.items():
        if "error" in p:
            print(f"  {name} failed: {p['error']}")
    parse = ph.get("parse", {})
    builds = [(n, ph[n]) for n in ("build", "build-1pass") if "build_s" in ph.get(n, {})]
    if builds:
        b0 = builds[0][1]
        print(f"\nBuild from a fresh cache directory ({b0['files']} files, {b0['sessions']} sessions, "
              f"{b0['docs']} documents)")
        print(f"  {'what':44}{'seconds':>8}{'MB/s':>7}{'x parse':>8}{'CPU s':>7}{'peak RSS':>9}"
              f"{'peak anon':>10}  >= {TARGET_BUILD_MBS:.0f} MB/s")
        if "seconds" in parse:
            print(f"  {'baseline: orjson.loads every line':44}{parse['seconds']:8.2f}"
                  f"{s['parse_mbs']:7.0f}{1:8.2f}{'':7}{_mb(parse['peak_rss_kb']):>9}"
                  f"{_mb(parse['peak_anon_kb']):>10}")
        for name, b in builds:
            d = s[name]
            xp = lambda k: f"{d[k]:8.2f}" if k in d else f"{'':8}"  # noqa: E731
            if not b["one_pass"]:
                print(f"  {'two passes (CLI/app today): Library.scan':44}{b['scan_s']:8.2f}"
                      f"{d['scan_mbs']:7.0f}{xp('scan_x_parse')}{'':7}"
                      f"{_mb(b['scan_peak_rss_kb']):>9}{_mb(b['scan_peak_anon_kb']):>10}")
                print(f"  {'  then SearchIndex.update (incl. merges)':44}{b['update_s']:8.2f}"
                      f"{d['update_mbs']:7.0f}{xp('update_x_parse')}")
                label = "  = full build, two passes"
            else:
                label = "one pass: update(scan=True)"
            print(f"  {label:44}{b['build_s']:8.2f}{d['mbs']:7.1f}{xp('x_parse')}{b['cpu_s']:7.1f}"
                  f"{_mb(b['peak_rss_kb']):>9}{_mb(b['peak_anon_kb']):>10}  {_ok(d['ok'])}")
        print(f"  index on disk {b0['index_bytes'] / MB:.0f} MB = "
              f"{100 * s[builds[0][0]]['index_share']:.1f}% of the corpus, {b0['segments']} segments "
              f"(catalog {b0['catalog_bytes'] / MB:.1f} MB)")
        for _, b in builds:
            if b.get("index_messages"):
                print(f"  index warnings: {b['index_messages']}")
    sized = [(n, p) for n, p in ph.items() if n.startswith("build") and "peak_rss_kb" in p]
    if sized:
        print(f"\nPeak memory of the build by corpus size (each a fresh process; idle after imports "
              f"{_mb(sized[0][1].get('idle_rss_kb'))} RSS, {_mb(sized[0][1].get('idle_anon_kb'))} "
              f"anon)")
        print(f"  {'build':44}{'MB':>7}{'seconds':>9}{'MB/s':>7}{'peak RSS':>10}{'peak anon':>11}"
              f"{'peak file':>11}{'scan RSS':>10}{'load':>11}  < {TARGET_RSS_MB:.0f} MB RSS")
        for name, p in sorted(sized, key=lambda np: (np[1]["bytes"], np[0])):
            what = name.removeprefix("build").strip("-").removesuffix("-1pass").removesuffix("1pass") or "main"
            label = f"{what}: {p['files']} files, {'one pass' if p.get('one_pass') else 'two passes'}"
            load = f"{p.get('load_before', 0):.1f}-{p.get('load_after', 0):.1f}"
            print(f"  {label:44}{p['bytes'] / MB:7.0f}{p['build_s']:9.1f}"
                  f"{p['bytes'] / MB / p['build_s']:7.1f}{_mb(p['peak_rss_kb']):>10}"
                  f"{_mb(p['peak_anon_kb']):>11}{_mb(p.get('peak_file_kb')):>11}"
                  f"{(_mb(p['scan_peak_rss_kb']) if 'scan_peak_rss_kb' in p else '-'):>10}{load:>11}"
                  f"  {_ok(p['peak_rss_kb'] / 1024 < TARGET_RSS_MB)}")
    qp = ph.get("query", {})
    if qp.get("queries"):
        runs = qp["queries"][0]["runs"]
        print(f"\nTop-20 queries, {runs} warm runs each ({qp['docs']} documents); rg -c -F -i over "
              f"the raw corpus, median")
        print(f"  {'class':27}{'query':24}{'mode':>10}{'hits':>5}{'first':>7}{'p50 ms':>8}"
              f"{'p95 ms':>8}{'rg ms':>7}{'rg/p95':>8}  >= {TARGET_QUERY_X:.0f}x")
        for q in qp["queries"]:
            rgms = f"{q['rg_ms']:7.0f}" if "rg_ms" in q else f"{'-':>7}"
            x = f"{q['x_rg_p95']:7.0f}x" if q.get("x_rg_p95") else f"{'-':>8}"
            print(f"  {q['cls']:27}{q['query'][:23]:24}{q['mode']:>10}{q['hits']:>5}"
                  f"{q.get('first_ms', 0):7.1f}{q['p50_ms']:8.2f}{q['p95_ms']:8.2f}{rgms}{x}"
                  f"  {_ok(q.get('ok')) if q.get('target', True) else '(not judged)'}")
        print("  documents holding the word: " + "; ".join(
            f"{q['cls']} {q['doc_freq']}" for q in qp["queries"] if "doc_freq" in q)
            + "; index terms behind each prefix: " + "; ".join(
            f"{q['query']} {q['expansions']}" for q in qp["queries"] if "expansions" in q)
            + "; documents holding each phrase: " + "; ".join(
            f"{q['query']} {q['matches']}" for q in qp["queries"] if "matches" in q))
        print("  first: the first run after opening the index (a substring lists the term "
              "dictionary once per commit)")
    ap = ph.get("append", {})
    if ap.get("targets"):
        print(f"\nAppend 1 MB of records to one file until searchable (median of "
              f"{len(ap['targets'][0]['runs'])}; scan+update with nothing new: "
              f"{ap['nochange_scan_ms']:.0f}+{ap['nochange_update_ms']:.0f} ms)")
        print(f"  {'file':26}{'scan ms':>9}{'update ms':>11}{'search ms':>11}{'total ms':>10}"
              f"  found")
        for t in ap["targets"]:
            label = f"{t['file_bytes'] / MB:.1f} MB transcript"
            print(f"  {label:26}{t['scan_ms']:9.0f}{t['update_ms']:11.0f}{t['search_ms']:11.1f}"
                  f"{t['total_ms']:10.0f}  {'yes' if t['all_found'] else 'NO'}")
    builds_ok = s.get("build_ok", {})
    print("\nTargets: " + "; ".join([
        f"build >= {TARGET_BUILD_MBS:.0f} MB/s: "
        + ", ".join(f"{'one pass' if n.endswith('1pass') else 'two passes'} {_ok(v)}"
                    for n, v in builds_ok.items()),
        f"peak RSS < {TARGET_RSS_MB:.0f} MB: {_ok(s.get('rss_ok'))}",
        f"every query p95 >= {TARGET_QUERY_X:.0f}x faster than rg: "
        + (_ok(s['queries_ok']) if s.get("queries_ok") is not None else "not measured (no rg)")]))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", default=None,
                    help="where the corpus is cached (default: bench/.corpus/ for the default "
                         "size, bench/.corpus-variants/<size>/ for any other, so a quick run never "
                         "replaces the full corpus)")
    ap.add_argument("--files", type=int, default=2000)
    ap.add_argument("--size-mb", type=float, default=1000)
    ap.add_argument("--big-mb", type=float, default=None,
                    help="size of the big transcript (default: a tenth of --size-mb, at most 100)")
    ap.add_argument("--long-line-mb", type=float, default=5)
    ap.add_argument("--codex-share", type=float, default=0.2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--runs", type=int, default=30, help="timed runs per query class")
    ap.add_argument("--rg-runs", type=int, default=5, help="rg runs per term (median)")
    ap.add_argument("--append-runs", type=int, default=3, help="appends per file (median)")
    ap.add_argument("--variants", default="half",
                    help="other corpus sizes to build for the memory check, comma-separated: "
                         "half (the main corpus halved), 20k (20,000 files, 2.3 GB), single-claude "
                         "and single-codex (one transcript of --single-mb); '' for none")
    ap.add_argument("--variants-dir", default=str(HERE / ".corpus-variants"))
    ap.add_argument("--single-mb", type=float, default=1000,
                    help="size of the one transcript of the single-claude/single-codex variants")
    ap.add_argument("--memory-only", action="store_true",
                    help="only the memory check on --variants (no main corpus, queries or appends)")
    ap.add_argument("--work-dir", default=None, help="where the temporary cache dirs go")
    ap.add_argument("--skip-append", action="store_true")
    ap.add_argument("--no-rg", action="store_true", help="do not run ripgrep")
    ap.add_argument("--keep", action="store_true", help="keep the built index and catalog")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    ap.add_argument("--phase", help=argparse.SUPPRESS)
    ap.add_argument("--work", help=argparse.SUPPRESS)
    ap.add_argument("--rg", help=argparse.SUPPRESS)
    ap.add_argument("--append-to", nargs="*", default=[], help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.corpus is None:
        args.corpus = str(_default_corpus(args))
    if args.phase:
        print(json.dumps(phase_main(args), default=str))
        return 0
    report = run_bench(args)
    if args.json:
        print(json.dumps(report, indent=2, default=str))
    else:
        print_table(report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
