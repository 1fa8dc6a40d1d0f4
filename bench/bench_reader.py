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
  run: the baseline reads the first and last 64 KB of each file and does nothing else;
  (a) `quick_meta` reads the same bytes and extracts agent, session id, project, title, first and
  last timestamp from those lines only (target: within 3x of the baseline); (b) a full parse of
  each file through its adapter (`adapter.load`).
* The big transcript: time to the first 50 and the last 50 entries (RecordFile.head/tail, parsed
  and fed through the adapter's parser), each as a percentage of reading the whole file once with
  `open().read()` (target: under 10%); the full newline index; a full load for reference.
  Medians of 5 runs.

Machines are noisy (shared 2-core runners move by +-40%), so read the ratios, not the seconds.
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import statistics
import subprocess
import sys
import threading
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterator

import orjson

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import gen_corpus  # noqa: E402  (bench/ is not a package)

from sessionscope.core.jsonl import RecordFile, parse_line, read_head_tail  # noqa: E402
from sessionscope.core.model import parse_timestamp  # noqa: E402

MB = 1024 * 1024
HEAD_TAIL = 65536
TITLE_CHARS = 200


# -- the metadata sniff (to move into core: see the report) -------------------------------------

_CODEX_TYPES = frozenset(("session_meta", "response_item", "event_msg", "turn_context",
                          "compacted"))
_INJECTED = ("<environment_context>", "# AGENTS.md", "<user_instructions>", "<permissions",
             "# Context from my IDE")


def quick_meta(path: str, registry: Any, nbytes: int = HEAD_TAIL,
               sniff_lines: int = 3) -> dict[str, Any]:
    """Listing metadata of one transcript from its first and last `nbytes` only.

    Head lines are cut and parsed lazily until agent, session id, project, title and first
    timestamp are known. The last timestamp is found without parsing: the key `"timestamp":"`
    can only match a real key (inside a JSON string its quotes are escaped), so the newest one on
    the last line that has one is taken. A multi-MB file costs the same as a small one; fields
    the head and tail do not show stay None (the full parse fills them later); when the tail is
    a single huge line with no timestamp key in it, the file's mtime stands in (and
    `last_from_mtime` says so).

    The adapters sniff the first `sniff_lines` lines only (each parses them again, and the
    Claude sniffer would look at up to 8): a file whose later head lines contradict its first
    ones is left to the full parse to reject.
    """
    st = os.stat(path)
    size = st.st_size
    head, tail = read_head_tail(path, size, nbytes)
    whole = size <= nbytes
    # Hand the sniffers just the first lines, so that none of them splits the whole 64 KB.
    adapter = registry.sniff(path, head[: _after_lines(head, sniff_lines)])
    meta: dict[str, Any] = {
        "path": path, "size": size, "mtime": st.st_mtime,
        "agent": adapter.agent if adapter else None,
        "format": adapter.name if adapter else None,
        "session_id": None, "kind": "main", "project": None, "title": None,
        "first_timestamp": None, "last_timestamp": None, "model": None, "git_branch": None,
    }
    if adapter is None:
        return meta
    titles: dict[str, str] = {}
    for line in _lines_forward(head, keep_unterminated=whole):
        rec = _loads(line)
        if rec is None:
            continue
        if rec.get("type") in _CODEX_TYPES and "payload" in rec:
            _codex_head(rec, meta, titles)
        else:
            _claude_head(rec, meta, titles)
        if meta["title"] and meta["project"] and meta["first_timestamp"] and meta["session_id"]:
            break
    if not meta["title"]:
        meta["title"] = titles.get("summary") or titles.get("prompt")
    # A line cut by the tail's start still holds only real keys, so it is searched too.
    ts = _last_timestamp(tail)
    if ts is not None:
        meta["last_timestamp"] = parse_timestamp(ts.decode("ascii", "replace"))
    if meta["last_timestamp"] is None:  # the tail is one huge line without its timestamp key
        meta["last_timestamp"] = datetime.fromtimestamp(st.st_mtime, timezone.utc)
        meta["last_from_mtime"] = True
    if meta["session_id"] is None:
        meta["session_id"] = Path(path).stem
    return meta


_TS_KEY = b'"timestamp":"'


def _last_timestamp(buf: bytes) -> bytes | None:
    """The newest `"timestamp":"…"` value on the last line of `buf` that has one (no copies of
    lines: a tail line can be megabytes)."""
    pos = buf.rfind(_TS_KEY)
    if pos < 0:
        return None
    line_start = buf.rfind(b"\n", 0, pos) + 1
    best = None
    while pos >= line_start:
        start = pos + len(_TS_KEY)
        end = buf.find(b'"', start, start + 40)
        if end > start and (best is None or buf[start:end] > best):
            best = buf[start:end]
        pos = buf.rfind(_TS_KEY, line_start, pos)
    return best


def _after_lines(buf: bytes, n: int) -> int:
    """Offset just after the `n`-th newline of `buf` (all of it if it has fewer)."""
    pos = 0
    for _ in range(n):
        nl = buf.find(b"\n", pos)
        if nl < 0:
            return len(buf)
        pos = nl + 1
    return pos


def _lines_forward(buf: bytes, keep_unterminated: bool) -> Iterator[bytes]:
    pos, end = 0, len(buf)
    while pos < end:
        nl = buf.find(b"\n", pos)
        if nl < 0:
            if keep_unterminated:
                yield buf[pos:]
            return
        if nl > pos:
            yield buf[pos:nl]
        pos = nl + 1


def _loads(line: bytes) -> dict[str, Any] | None:
    try:
        value = orjson.loads(line)
    except orjson.JSONDecodeError:
        value = _loads_slow(line)
    return value if isinstance(value, dict) else None


def _loads_slow(line: bytes) -> Any:
    from sessionscope.core.jsonl import RawLine

    parsed = parse_line(RawLine(0, 2, line))
    return parsed.value if parsed.ok else None


def _claude_head(rec: dict[str, Any], meta: dict[str, Any], titles: dict[str, str]) -> None:
    rtype = rec.get("type")
    if meta["session_id"] is None and isinstance(rec.get("sessionId"), str):
        meta["session_id"] = rec["sessionId"]
        agent_id = rec.get("agentId")
        if isinstance(agent_id, str):
            meta["kind"] = "compaction" if agent_id.startswith("acompact") else "subagent"
            meta["session_id"] = f"{rec['sessionId']}/{agent_id}"
    if meta["project"] is None and isinstance(rec.get("cwd"), str):
        meta["project"] = rec["cwd"]
        meta["git_branch"] = rec.get("gitBranch") or None
    if meta["first_timestamp"] is None and isinstance(rec.get("timestamp"), str):
        meta["first_timestamp"] = parse_timestamp(rec["timestamp"])
    if rtype in ("custom-title", "ai-title"):
        title = rec.get("customTitle") or rec.get("aiTitle") or rec.get("title")
        if isinstance(title, str) and title:
            meta["title"] = _one_line(title)
    elif rtype == "assistant" and meta["model"] is None:
        model = (rec.get("message") or {}).get("model")
        if isinstance(model, str) and model != "<synthetic>":
            meta["model"] = model
    elif rtype == "summary" and isinstance(rec.get("summary"), str):
        titles.setdefault("summary", _one_line(rec["summary"]))
    elif rtype == "user" and not rec.get("isMeta") and not rec.get("isCompactSummary"):
        content = (rec.get("message") or {}).get("content")
        text = None
        if isinstance(content, str):
            text = content
        elif isinstance(content, list):
            text = next((b.get("text") for b in content if isinstance(b, dict)
                         and b.get("type") == "text"), None)
        if isinstance(text, str) and text.strip() and not text.lstrip().startswith(("<", "[")):
            if meta["title"] is None:
                meta["title"] = _one_line(text)


def _codex_head(rec: dict[str, Any], meta: dict[str, Any], titles: dict[str, str]) -> None:
    rtype, p = rec["type"], rec["payload"]
    if not isinstance(p, dict):
        return
    if meta["first_timestamp"] is None and isinstance(rec.get("timestamp"), str):
        meta["first_timestamp"] = parse_timestamp(p.get("timestamp") or rec["timestamp"])
    if rtype == "session_meta":
        if meta["session_id"] is None:
            meta["session_id"] = p.get("id")
            meta["project"] = p.get("cwd")
            git = p.get("git")
            if isinstance(git, dict):
                meta["git_branch"] = git.get("branch")
            if p.get("originator") == "codex_exec" or p.get("source") == "exec":
                meta["kind"] = "exec"
    elif rtype == "turn_context":
        if meta["model"] is None and isinstance(p.get("model"), str):
            meta["model"] = p["model"]
    elif rtype == "event_msg" and p.get("type") == "user_message":
        if meta["title"] is None and isinstance(p.get("message"), str) and p["message"].strip():
            meta["title"] = _one_line(p["message"])
    elif rtype == "response_item" and p.get("type") == "message" and p.get("role") == "user":
        for c in p.get("content") or ():
            text = c.get("text") if isinstance(c, dict) else None
            if isinstance(text, str) and text.strip() and not text.lstrip().startswith(_INJECTED):
                titles.setdefault("prompt", _one_line(text))
                break


def _one_line(text: str) -> str:
    text = " ".join(text[: TITLE_CHARS * 2].split())  # cut first: prompts can be pastes of MBs
    return text if len(text) <= TITLE_CHARS else text[: TITLE_CHARS - 1] + "…"


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


def _interleaved(fn: Callable[[], Any], base: Callable[[], Any],
                 repeat: int) -> tuple[float, Any, list[float], float]:
    """Median of `fn` and of the baseline, run alternately in this process: their ratio holds
    even when the machine's speed drifts between phases."""
    times, base_times, result = [], [], None
    base()  # warm
    for _ in range(repeat):
        t0 = time.perf_counter()
        base()
        base_times.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result, times, statistics.median(base_times)


def phase_main(name: str, corpus: Path, big: Path | None, repeat: int) -> dict[str, Any]:
    from sessionscope.core.adapters import default_registry

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
                h, t = read_head_tail(p, os.stat(p).st_size, HEAD_TAIL)
                n += len(h) + (len(t) if t is not h else 0)
            return n

        if name == "list-baseline":
            out["seconds"], out["bytes_read"], out["runs"] = _median_time(baseline, repeat)
        elif name in ("list-quick", "list-quick8"):
            lines = 8 if name == "list-quick8" else 3

            def run() -> list[dict[str, Any]]:
                return [quick_meta(p, registry, sniff_lines=lines) for p in files]
            out["seconds"], metas, out["runs"], out["baseline_s"] = _interleaved(
                run, baseline, repeat)
            out["with_title"] = sum(1 for m in metas if m["title"])
            out["with_times"] = sum(1 for m in metas
                                    if m["first_timestamp"] and m["last_timestamp"])
            out["last_from_mtime"] = sum(1 for m in metas if m.get("last_from_mtime"))
            out["unknown"] = sum(1 for m in metas if m["agent"] is None)
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
            out["seconds"], counts, out["runs"], out["baseline_s"] = _interleaved(
                run, baseline, 1)
            out.update(counts)
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
        elif name in ("big-head", "big-tail", "big-tail-nolines"):
            def run() -> int:
                rf = RecordFile(path)
                try:
                    if name == "big-head":
                        raws = rf.head(50)
                    else:
                        raws = rf.tail(50, line_numbers=name == "big-tail")
                    parser = adapter.parser(path)
                    entries = []
                    for raw in raws:
                        entries.extend(parser.feed(parse_line(raw)))
                    return len(entries)
                finally:
                    rf.close()
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
        out["seconds"], out["result"], out["runs"] = _median_time(run, repeat)
    else:
        raise SystemExit(f"unknown phase {name}")
    out["peak_anon_kb"] = sampler.stop()
    st = _status()
    out["peak_rss_kb"] = st.get("VmHWM")
    del keep
    return out


# -- the driver ---------------------------------------------------------------------------------

LIST_PHASES = ("list-baseline", "list-quick", "list-quick8", "list-full")
BIG_PHASES = ("big-read", "big-head", "big-tail", "big-tail-nolines", "big-index", "big-load")


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
            s[name] = {"files_per_s": p["files"] / p["seconds"] if p["seconds"] else None,
                       "x_baseline": p["seconds"] / b if b else None,
                       "x_baseline_phase": p["seconds"] / base if base else None}
    s["quick_within_3x"] = (s.get("list-quick", {}).get("x_baseline") or 99) <= 3.0
    read = ph.get("big-read", {}).get("seconds")
    for name in BIG_PHASES:
        p = ph.get(name, {})
        if "seconds" in p and read:
            s[name] = {"ms": p["seconds"] * 1000, "pct_of_read": 100 * p["seconds"] / read}
    for name in ("big-head", "big-tail"):
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
    print(f"{'':2}{'phase':44}{'seconds':>9}{'files/s':>10}{'x baseline':>12}"
          f"{'peak RSS':>11}{'peak anon':>11}")
    labels = {"list-baseline": "baseline: read first+last 64 KB",
              "list-quick": "(a) quick_meta: head/tail metadata sniff",
              "list-quick8": "    same, adapters sniff 8 head lines",
              "list-full": "(b) full parse: registry.sniff + adapter.load"}
    for name in LIST_PHASES:
        p = ph.get(name)
        if p is None:
            continue
        if "error" in p:
            print(f"  {labels[name]:44}  error: {p['error']}")
            continue
        x = s[name]["x_baseline"]
        verdict = ""
        if name == "list-quick":
            verdict = "  ok (<= 3x)" if x <= 3 else "  OVER 3x target"
        print(f"  {labels[name]:44}{p['seconds']:9.3f}{s[name]['files_per_s']:10.0f}{x:12.2f}"
              f"{_mb(p.get('peak_rss_kb')):>11}{_mb(p.get('peak_anon_kb')):>11}{verdict}")
    q = ph.get("list-quick", {})
    if "with_title" in q:
        print(f"  quick_meta found a title for {q['with_title']}/{q['files']} files, first+last "
              f"time for {q['with_times']}/{q['files']} (last from mtime: "
              f"{q['last_from_mtime']}), no adapter for {q['unknown']}")
    print("  x baseline: against the baseline run alternately in the same process")
    f = ph.get("list-full", {})
    if "sessions" in f:
        print(f"  full parse: {f['sessions']} sessions, {f['entries']} entries, "
              f"{f['bytes'] / MB / f['seconds']:.0f} MB/s, {f['errors']} errors")
    if "big-read" not in ph:
        return
    read = ph["big-read"]
    print(f"\nThe {read.get('bytes', 0) / MB:.0f} MB transcript (warm cache, median of "
          f"{len(read.get('runs', [])) or '?'})")
    print(f"{'':2}{'what':44}{'ms':>9}{'% of read()':>13}{'entries':>9}{'peak RSS':>11}"
          f"{'peak anon':>11}")
    labels = {"big-read": "read whole file: open().read()",
              "big-head": "first 50 lines -> entries (head(50))",
              "big-tail": "last 50 lines -> entries (tail(50))",
              "big-tail-nolines": "  same, tail(50, line_numbers=False)",
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
        if name in ("big-head", "big-tail"):
            verdict = "  ok (< 10%)" if pct < 10 else "  OVER 10% target"
        result = p.get("result", "")
        entries = result if name not in ("big-read", "big-index") else ""
        print(f"  {labels[name]:44}{p['seconds'] * 1000:9.2f}{pct:12.1f}%{entries!s:>9}"
              f"{_mb(p.get('peak_rss_kb')):>11}{_mb(p.get('peak_anon_kb')):>11}{verdict}")
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
