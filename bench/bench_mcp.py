"""MCP server bench: time to ready and warm `search` latency of `sessionscope mcp`, over stdio.

Targets (issue 14): a warm server answers session_logs `search` in at most 10 ms p95 on the bench
corpus, and is ready within 1 s of start. Measured through the SDK's own stdio client, as an agent
would see it (spawn, JSON-RPC, the answer parsed), with baselines measured in the same run:

* ready: spawn to the `initialize` answer, vs. spawn to exit of `sessionscope --version` (a
  Python start with the package imported). Also shown: spawn to the first answered tool call
  (the library opened from the warm catalog and index, which happens in a thread after ready).
* search: p50/p95/max round trip of `session_logs action=search` (limit 20, max_chars 200) for a
  common word, a mid-frequency word and a word fragment, the server warm (one call made
  before), vs. the whole `sessionscope search QUERY --json --limit 20` command, which is what an
  agent without the server runs. A call more than `REFRESH_SECONDS` after the last refresh
  brings the library and index up to date first (a stat pass over every file): those calls are
  in the figures, as they would be for an agent (`refreshes` says how many).

The cache (catalog and index) is built once before timing, in a temporary folder: these are warm
figures, as after the app or any command ran once.

    .venv/bin/python bench/bench_mcp.py                       # the bench corpus: 2,000 files, 1 GB
    .venv/bin/python bench/bench_mcp.py --files 200 --size-mb 100 --runs 100   # a quick run
    .venv/bin/python bench/bench_mcp.py --work /tmp/mcp-bench   # keep the warm cache for the next run
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gen_corpus  # noqa: E402

MB = 1024 * 1024
LAUNCH = "import sys; from sessionscope.cli.main import main; sys.exit(main())"
TARGET_SEARCH_MS = 10.0
TARGET_READY_S = 1.0
LEAN_IMPORT = ("from sessionscope.cli.mcp import lean_sdk_imports; lean_sdk_imports(); "
               "import mcp.server.lowlevel, mcp.server.stdio")


def child_pids() -> list[int]:
    """This process's children (Linux /proc; none elsewhere): the spawned server."""
    out: list[int] = []
    try:
        for task in os.listdir(f"/proc/{os.getpid()}/task"):
            with open(f"/proc/{os.getpid()}/task/{task}/children") as fh:
                out += [int(x) for x in fh.read().split()]
    except OSError:
        return []
    return out


def cpu_seconds(pid: int) -> float | None:
    """user + system CPU time of a process so far (Linux /proc), None where it cannot be read."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def queries(seed: int, size_mb: float) -> dict[str, str]:
    """A common word, a mid-frequency word and a fragment of a long frequent word, from the
    generator's own text pool (so they are in the corpus)."""
    pool = gen_corpus._Text(random.Random(seed), pool_bytes=int(min(6 * MB, max(1 * MB, size_mb * MB / 8)))).pool
    ranked = [w for w, _ in Counter(re.findall(r"[a-z]+", pool.lower())).most_common() if len(w) >= 4]
    long_word = next(w for w in ranked if len(w) >= 10)
    return {"common word": ranked[0], "mid word": ranked[min(300, len(ranked) - 1)], "fragment": long_word[2:-2]}


def environment(work: Path) -> dict[str, str]:
    """A user's environment in `work`: HOME is `work/home`, and sessionscope finds its cache,
    config and data folders there as it does for a user who set nothing (platformdirs: the
    catalog and index in `work/home/.cache/sessionscope`, `cache_of(work)`): what a command
    pays to find them is paid here too (platformdirs' import cost ~9 ms a command, until
    core/config.py applied the XDG rule itself on Linux)."""
    (work / "home").mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    env.update({"HOME": str(work / "home"), "PYTHONPATH": os.pathsep.join(sys.path)})
    for var in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "CLAUDE_CODE_SESSION_ID", "CLAUDE_SESSION_ID", "CODEX_SESSION_ID",
                "SESSIONSCOPE_CACHE_DIR", "SESSIONSCOPE_CONFIG", "SESSIONSCOPE_DATA_DIR", "XDG_CACHE_HOME",
                "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
        env.pop(var, None)
    return env


def cache_of(work: Path) -> Path:
    """sessionscope's cache folder in `environment(work)`."""
    return work / "home" / ".cache" / "sessionscope"


def python_seconds(code: str, env: dict[str, str]) -> float:
    """Spawn to exit of `python -c CODE`: the floor a server built on the SDK starts from."""
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], env=env, check=True)
    return time.perf_counter() - t0


def cli_seconds(argv: list[str], env: dict[str, str]) -> float:
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", LAUNCH, *argv], env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(f"{argv[0]} failed: {done.stderr.strip()[:300]}")
    return seconds


async def serve(roots: list[str], env: dict[str, str], work: Path, search: dict[str, str] | None,
                runs: int) -> dict[str, Any]:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=sys.executable, args=["-c", LAUNCH, "mcp", *roots], env=env,
                                   cwd=str(work))
    out: dict[str, Any] = {}
    with open(work / "server.err", "a") as errlog:
        t0 = time.perf_counter()
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                out["ready"] = time.perf_counter() - t0
                first = await session.call_tool("session_logs", {"action": "list_sessions", "limit": 5})
                out["first_call"] = time.perf_counter() - t0
                assert not first.isError, first.content
                if search:
                    out["search"] = {}
                    for cls, q in search.items():
                        args = {"action": "search", "query": q, "limit": 20, "max_chars": 200}
                        warm = await session.call_tool("session_logs", args)
                        assert not warm.isError, warm.content
                        hits = len(json.loads(warm.content[0].text)["hits"])  # type: ignore[union-attr]
                        times = []
                        server = (child_pids() or [0])[0]
                        server_cpu, client_cpu = cpu_seconds(server), time.process_time()
                        for _ in range(runs):
                            t = time.perf_counter()
                            result = await session.call_tool("session_logs", args)
                            json.loads(result.content[0].text)  # type: ignore[union-attr]
                            times.append(time.perf_counter() - t)
                        after = cpu_seconds(server)
                        out["search"][cls] = {
                            "query": q, "hits": hits, "times": times,
                            # CPU per call: less moved by a busy machine than the wall time
                            "server_cpu_ms": (after - server_cpu) / runs * 1000
                            if after is not None and server_cpu is not None else None,
                            "client_cpu_ms": (time.process_time() - client_cpu) / runs * 1000,
                        }
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", default=str(Path(__file__).parent / ".corpus"))
    ap.add_argument("--files", type=int, default=2000)
    ap.add_argument("--size-mb", type=float, default=1000)
    ap.add_argument("--big-mb", type=float, default=None, help="default: a tenth of --size-mb")
    ap.add_argument("--runs", type=int, default=200, help="warm search calls per query")
    ap.add_argument("--starts", type=int, default=5, help="server starts timed")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--work", default=None,
                    help="keep the cache (catalog, index) here: a later run starts from it warm")
    a = ap.parse_args(argv)
    big = a.big_mb if a.big_mb is not None else a.size_mb / 10
    corpus = gen_corpus.generate(a.corpus, files=a.files, size_mb=a.size_mb, big_mb=big)
    roots = ["--root", str(corpus.claude_root), "--root", str(corpus.codex_root)]
    search = queries(1, a.size_mb)
    from sessionscope.cli.mcp import REFRESH_SECONDS

    with tempfile.TemporaryDirectory(prefix="bench-mcp-") as tmp:
        work = Path(a.work or tmp)
        work.mkdir(parents=True, exist_ok=True)
        env = environment(work)
        build = cli_seconds(["index", *roots], env)  # the warm cache every figure below starts from
        version = [cli_seconds(["--version"], env) for _ in range(a.starts)]
        sdk = [python_seconds("import mcp.server.lowlevel, mcp.server.stdio", env) for _ in range(a.starts)]
        lean = [python_seconds(LEAN_IMPORT, env) for _ in range(a.starts)]
        cli_search = {cls: [cli_seconds(["search", q, "--json", "--limit", "20", *roots], env) for _ in range(5)]
                      for cls, q in search.items()}
        starts = [asyncio.run(serve(roots, env, work, None, 0)) for _ in range(a.starts)]
        warm = asyncio.run(serve(roots, env, work, search, a.runs))
    ready = [s["ready"] for s in starts]
    first = [s["first_call"] for s in starts]
    result: dict[str, Any] = {
        "corpus": {"files": len(corpus.paths), "bytes": corpus.total_bytes}, "index_build_s": round(build, 2),
        "ready_s": {"median": statistics.median(ready), "max": max(ready)},
        "first_call_s": {"median": statistics.median(first), "max": max(first)},
        "baseline_version_s": statistics.median(version),
        "baseline_sdk_import_s": statistics.median(sdk),
        "lean_sdk_import_s": statistics.median(lean),
        "load_average": os.getloadavg()[0], "cpus": os.cpu_count(),
        "refresh_seconds": REFRESH_SECONDS, "search": {},
    }
    for cls, m in warm["search"].items():
        ms = [t * 1000 for t in m["times"]]
        result["search"][cls] = {
            "query": m["query"], "hits": m["hits"], "p50_ms": pct(ms, 0.5), "p95_ms": pct(ms, 0.95), "max_ms": max(ms),
            "refreshes": sum(1 for t in ms if t > 5 * pct(ms, 0.5)),
            "server_cpu_ms": m["server_cpu_ms"], "client_cpu_ms": m["client_cpu_ms"],
            "baseline_cli_ms": statistics.median(cli_search[cls]) * 1000,
        }
    if a.json:
        print(json.dumps(result, indent=2))
        return 0
    mb = corpus.total_bytes / MB
    print(f"load average {result['load_average']:.1f} on {result['cpus']} CPUs (figures scale with it)")
    print(f"corpus: {len(corpus.paths)} files, {mb:,.0f} MB; index built in {build:.1f} s (before timing)")
    r, f, v = result["ready_s"], result["first_call_s"], result["baseline_version_s"]
    print(f"ready (spawn to initialize answered): median {r['median'] * 1000:.0f} ms, max {r['max'] * 1000:.0f} ms "
          f"(target <= {TARGET_READY_S:g} s: {'met' if r['max'] <= TARGET_READY_S else 'NOT met'}); baseline "
          f"`sessionscope --version` spawn to exit {v * 1000:.0f} ms: ratio {r['median'] / v:.2f}x")
    k, le = result["baseline_sdk_import_s"], result["lean_sdk_import_s"]
    print(f"  the SDK imported plainly (`python -c 'import mcp.server.lowlevel, mcp.server.stdio'`, its packages' "
          f"__init__ files included) spawn to exit: {k * 1000:.0f} ms; as the server imports it (cli/mcp.py "
          f"lean_sdk_imports): {le * 1000:.0f} ms; ready minus that: {(r['median'] - le) * 1000:.0f} ms")
    print(f"first tool call answered (library opened from the warm cache): median {f['median'] * 1000:.0f} ms, "
          f"max {f['max'] * 1000:.0f} ms")
    print(f"warm session_logs search, {a.runs} calls per query, limit 20 (a call >{REFRESH_SECONDS:g} s after the "
          "last refresh refreshes first):")
    worst = 0.0
    for cls, s in result["search"].items():
        worst = max(worst, s["p95_ms"])
        print(f"  {cls:<12} {s['query']!r:<16} {s['hits']:>3} hits  p50 {s['p50_ms']:6.2f} ms  p95 {s['p95_ms']:6.2f} ms  "
              f"max {s['max_ms']:7.1f} ms ({s['refreshes']} slow)  |  CLI `search --json` {s['baseline_cli_ms']:6.0f} ms: "
              f"{s['baseline_cli_ms'] / s['p95_ms']:.0f}x the p95")
        if s["server_cpu_ms"] is not None:
            print(f"  {'':<12} CPU per call: server {s['server_cpu_ms']:.2f} ms, this client (the SDK's) "
                  f"{s['client_cpu_ms']:.2f} ms (10 ms ticks, over {a.runs} calls)")
    print(f"search p95 target <= {TARGET_SEARCH_MS:g} ms: {'met' if worst <= TARGET_SEARCH_MS else 'NOT met'} "
          f"(worst p95 {worst:.2f} ms)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
