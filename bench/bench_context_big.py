"""Bench: one `context` call on a project whose session holds a 20 MB line (a tool result that
printed 20 MB on one line), against the same call on the same session without that line.

Run (from the repository root; needs nothing but the package):

    .venv/bin/python bench/bench_context_big.py            # 20 MB, 5 calls each
    .venv/bin/python bench/bench_context_big.py --mb 50 --calls 3

It writes a Claude Code transcript into a temporary folder (a task, a failing test run, the
agent's diagnosis, an edit, a tool result of MB megabytes on one line ending in a failure summary,
a passing rerun and a closing summary), builds the library and search index there (not timed),
then times `core.brief.compose` for a task naming the session's words. It prints the median and
worst call with and without the big line, the time to load (parse) the big session alone as the
baseline, and the ratios. Target (issue 11): at most 2 s per call with the big line. The rules
read an entry's text only by its first 12,000 and last 6,000 characters (`brief_findings.scanned`),
so the big line costs its parsing, not its scanning.
"""
from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

PROJECT = "/home/dev/projects/ledger"
START = datetime(2026, 11, 10, 9, 0, tzinfo=timezone.utc)


def _record(n: int, kind: str, body: dict) -> dict:
    ts = (START + timedelta(minutes=n)).isoformat().replace("+00:00", "Z")
    return {"type": kind, "uuid": f"00000000-0000-4000-8000-{n:012d}", "parentUuid":
            f"00000000-0000-4000-8000-{n - 1:012d}" if n > 1 else None, "sessionId": "big-line-session",
            "timestamp": ts, "cwd": PROJECT, "gitBranch": "main", "isSidechain": False, "message": body}


def write_session(path: Path, big_bytes: int) -> None:
    lines = []
    n = 0

    def add(kind: str, body: dict) -> None:
        nonlocal n
        n += 1
        lines.append(_record(n, kind, body))

    def run(command: str, output: str, error: bool = False) -> None:
        tid = f"toolu_{n:08d}"
        add("assistant", {"role": "assistant", "content": [
            {"type": "tool_use", "id": tid, "name": "Bash", "input": {"command": command}}]})
        add("user", {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": tid, "content": output, "is_error": error}]})

    add("user", {"role": "user", "content": "The balance export is slow and the ledger tests fail; fix both."})
    run("uv run pytest -q tests/test_ledger.py", "FAILED tests/test_ledger.py::test_export - KeyError: 'balance'\n1 failed", True)
    add("assistant", {"role": "assistant", "content": [
        {"type": "text", "text": "The export reads a `balance` key that the ledger rows no longer have, so I'll use `amount`."}]})
    tid = "toolu_edit"
    add("assistant", {"role": "assistant", "content": [
        {"type": "tool_use", "id": tid, "name": "Edit", "input": {"file_path": f"{PROJECT}/ledger/export.py"}}]})
    add("user", {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tid, "content": "updated"}]})
    if big_bytes:
        row = "balance,account,amount;"
        blob = row * (big_bytes // len(row)) + "\nFAILED tests/test_ledger.py::test_big_export - MemoryError\n1 failed"
        run("uv run python scripts/dump_ledger.py", blob, True)
    run("uv run pytest -q tests/test_ledger.py", "12 passed in 0.4s")
    add("assistant", {"role": "assistant", "content": [
        {"type": "text", "text": "All 12 ledger tests pass; the export now reads `amount`."}]})
    with open(path, "w", encoding="utf-8") as fh:
        for rec in lines:
            fh.write(json.dumps(rec) + "\n")


def measure(mb: float, calls: int) -> dict:
    from sessionscope.core.brief.compose import Task, compose
    from sessionscope.core.catalog.store import Catalog
    from sessionscope.core.read.discovery import Root
    from sessionscope.core.search.index import SearchIndex
    from sessionscope.core.catalog.library import Library

    out = {}
    with tempfile.TemporaryDirectory(prefix="bench-context-big-") as tmp:
        for label, size in (("small", 0), ("big", int(mb * 1024 * 1024))):
            root = Path(tmp) / label / "projects" / "-home-dev-projects-ledger"
            root.mkdir(parents=True)
            write_session(root / "big-line-session.jsonl", size)
            lib = Library([Root(str(Path(tmp) / label / "projects"), "--root", True)],
                          catalog=Catalog(Path(tmp) / label / "catalog.sqlite"))
            lib.scan()
            index = SearchIndex(Path(tmp) / label / "index")
            index.update(lib)
            now = START + timedelta(days=2)
            times = []
            result = None
            for _ in range(calls):
                t = time.perf_counter()
                result = compose(lib, index, Task("ledger export balance amount"), project=PROJECT,
                                 exclude=["none"], env={}, now=now, memory=())
                times.append(time.perf_counter() - t)
            t = time.perf_counter()
            session = lib.sessions()[0]
            list(lib.load(session).entries)
            load = time.perf_counter() - t
            index.close()
            out[label] = {"median": statistics.median(times), "max": max(times), "load": load,
                          "findings": len(result.findings) if result else 0,
                          "status": result.status if result else "?"}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mb", type=float, default=20.0, help="size of the big line in MB (default 20)")
    ap.add_argument("--calls", type=int, default=5, help="context calls per variant (default 5)")
    args = ap.parse_args(argv)
    r = measure(args.mb, args.calls)
    small, big = r["small"], r["big"]
    print(f"context on a session with a {args.mb:g} MB line: median {big['median']:.3f} s, max {big['max']:.3f} s "
          f"({big['findings']} findings, {big['status']}); target max <= 2 s")
    print(f"  same session without the line: median {small['median']:.3f} s ({small['findings']} findings)")
    print(f"  baseline, loading the big session alone: {big['load']:.3f} s; "
          f"ratio call/load {big['median'] / big['load']:.2f}, big/small {big['median'] / small['median']:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
