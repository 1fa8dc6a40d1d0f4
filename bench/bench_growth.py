"""Growth bench (issue 15): what the next command-line call pays after 1 MB is appended to a
transcript, on a small (1 MB) and on a big (100 MB by default) transcript of each format, side by
side in one run, with reading on as it is and switched off (the whole re-read every call paid
before) in the same rounds.

Run (from the repository root):

    .venv/bin/python bench/bench_growth.py                          # 1 MB and 100 MB, every format
    .venv/bin/python bench/bench_growth.py --big-mb 20 --formats claude-code
    PYTHONDONTWRITEBYTECODE=1 .venv/bin/python bench/bench_growth.py   # without bytecode (each child
                                                                        # also gets an empty pycache prefix)

For each format (`session-logs`, `claude-code`, `codex`: Claude Code- and Codex-shaped lines from
`gen_corpus.py`'s writers; `copilot-cli`, `pi`, `gemini-cli` (JSONL): `gen_formats.py`'s streams;
each continued across appends, laid out where the agent keeps it; `opencode-db`: an OpenCode
database of ~100 KB sessions, 1 MB of messages written to its last session at each "append") and
size the bench writes one transcript in a temporary folder, warms a catalog and a search index for
it (its own SESSIONSCOPE_CACHE_DIR), then, `--appends` times: appends 1 MB and times the next whole
`sessionscope sessions --json` (a fresh process), appends 1 MB more and times the next `sessionscope
search WORD --json` (the catalog and the index brought up to date), and 1 MB more and times the next
`sessionscope recent ID --json` (its last entries, from the windows a whole reading checked and
carried across the growth where the format can tell they still hold: core/catalog/tails.py). Each round is run twice,
alternating: as installed, and with reading on switched off in the child (`continues = False` on
every adapter, set by a `python -c` wrapper: the catalog then re-reads a grown file whole; and
`load_changed` answering None: a database is read whole, for the catalog and the index). Wall and
CPU time (the child's user+sys from rusage) in ms, medians over the appends. The target: big/small
at most 3x for the next call. The load average is printed before and after: read the ratios.
"""
from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))

EXE = Path(sys.executable).parent / "sessionscope"
FORMATS = ("session-logs", "claude-code", "codex", "copilot-cli", "pi", "gemini-cli", "opencode-db")
#: the formats written by gen_formats.py's streams: (stream class, the file's path in the root)
STREAMS = {"copilot-cli": ("CopilotStream", "session-state/{name}/events.jsonl"),
           "pi": ("PiStream", "sessions/--home-bench-src-grow--/2026-01-31T10-00-00-000Z_{name}.jsonl"),
           "gemini-cli": ("GeminiStream", "tmp/" + "ab" * 32 + "/chats/session-2026-01-31T10-00-{name}.jsonl")}
WORD = "lorem"
# The CLI with reading on switched off for every adapter (what every call paid before it).
# (and no database read again for its changed sessions alone: `load_changed` answers None)
WHOLE = ("import sys; from sessionscope.core.read.adapters import default_registry as r\n"
         "for a in r().adapters: type(a).continues = False; type(a).load_changed = lambda *_: None\n"
         "from sessionscope.cli.main import main; sys.exit(main())")


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


class Writer:
    """One transcript of a format, written on across appends (its records chained as the agent
    would write them)."""

    def __init__(self, fmt: str, name: str) -> None:
        self.fmt, self.name, self.n = fmt, name, 0
        self.stream = None
        if fmt in ("session-logs", "opencode-db"):
            self.file = None
            return
        if fmt in STREAMS:
            import gen_formats
            from datetime import datetime, timezone

            cls = getattr(gen_formats, STREAMS[fmt][0])
            start = datetime(2026, 1, 31, 10, tzinfo=timezone.utc)
            third = "/home/bench/src/grow" if fmt != "gemini-cli" else "ab" * 32
            self.file, self.stream = None, cls(random.Random(7), name, start, third)
            return
        from gen_corpus import _ClaudeFile, _CodexFile, _Text

        rng = random.Random(7)
        text = _Text(rng, 2 << 20)
        start = 1_767_000_000_000
        if fmt == "claude-code":
            self.file = _ClaudeFile(rng, text, cwd="/home/bench/src/grow", session_id=name, start_ms=start)
        else:
            self.file = _CodexFile(rng, text, cwd="/home/bench/src/grow", thread_id=name, start_ms=start)

    def create(self, path: Path, mb: float) -> None:
        """The transcript of about `mb` MB at `path`. A database: sessions of ~100 KB, the last
        one the session written on."""
        if self.fmt == "opencode-db":
            import gen_formats

            con = gen_formats.opencode_db(path)
            self.rng = random.Random(7)
            while True:
                info, messages = gen_formats._opencode_records(self.rng, self.n, 100)
                gen_formats.opencode_db_add(con, info, messages)
                self.n += 1
                con.commit()
                if path.stat().st_size >= mb * (1 << 20):
                    break
            self.sid = info["id"]
            con.close()
            return
        with path.open("wb") as fh:
            fh.write(self.start())
            for _ in range(int(mb)):
                fh.write(self.more(1))
            if mb < 1:
                fh.write(self.more(mb))

    def append(self, path: Path, mb: float) -> None:
        """About `mb` MB written on: lines appended, or a database's session written on."""
        if self.fmt == "opencode-db":
            import sqlite3

            import gen_formats

            info, messages = gen_formats._opencode_records(self.rng, self.n, int(mb * 1024))
            self.n += 1
            con = sqlite3.connect(path)
            gen_formats.opencode_db_add(con, info, messages, session_id=self.sid)
            con.commit()
            con.close()
            return
        with path.open("ab") as fh:
            fh.write(self.more(mb))

    def file_name(self) -> str:
        if self.fmt == "opencode-db":
            return "opencode.db"
        if self.fmt in STREAMS:
            return STREAMS[self.fmt][1].format(name=self.name)
        return f"{self.name}.jsonl" if self.fmt != "codex" else f"rollout-2026-01-31T10-00-00-{self.name}.jsonl"

    def start(self) -> bytes:
        if self.stream is not None:
            return b"".join(orjson.dumps(x) + b"\n" for x in self.stream.start())
        if self.file is None:
            return orjson.dumps({"session_id": self.name, "agent_id": "bench", "project": "/p",
                                 "started_at": "2026-01-31T00:00:00Z"}) + b"\n"
        return b"".join(x + b"\n" for x in self.file.start())

    def more(self, mb: float) -> bytes:
        """About `mb` MB of whole turns."""
        if self.stream is not None:
            return b"".join(orjson.dumps(x) + b"\n" for x in self.stream.more(int(mb * (1 << 20))))
        if self.file is None:
            self.n += 1
            return entries(1_000_000 * self.n, mb)
        out: list[bytes] = []
        size = 0
        while size < mb * (1 << 20):
            before = len(out)
            self.file.turn(out, prompt=self.n % 6 == 0)
            if self.n % 6 == 5:
                self.file.turn_done(out)
            self.n += 1
            size += sum(len(x) + 1 for x in out[before:])
        return b"".join(x + b"\n" for x in out)


def cli(root: Path, cache: Path, args: list[str], whole: bool) -> tuple[float, float]:
    """(wall ms, child CPU ms) of one whole command in a fresh process."""
    env = {**os.environ, "SESSIONSCOPE_CACHE_DIR": str(cache), "SESSIONSCOPE_CONFIG": "/nonexistent.toml"}
    if os.environ.get("PYTHONDONTWRITEBYTECODE"):  # no bytecode: none written, none found either
        env["PYTHONPYCACHEPREFIX"] = tempfile.mkdtemp(dir=cache.parent, prefix="pycache-")
    cmd = [sys.executable, "-c", WHOLE, *args] if whole else [str(EXE), *args]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run([*cmd, "--root", str(root), "--json"], env=env, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = (time.perf_counter() - t) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, ((after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)) * 1000


def measure(base: Path, fmt: str, mb: float, appends: int, log: Callable[[str], None]) -> dict[str, object]:
    """The figures of one format and size: for reading on as installed and switched off."""
    out: dict[str, object] = {"format": fmt, "mb": mb}
    for mode in ("read on", "whole"):
        tag = f"{fmt}-{mb:g}-{mode.replace(' ', '')}"
        root, cache = base / f"root-{tag}", base / f"cache-{tag}"
        root.mkdir()
        writer = Writer(fmt, f"0f0e0d0c-0000-4000-8000-{abs(hash(tag)) % 10**12:012d}")
        path = root / writer.file_name()
        path.parent.mkdir(parents=True, exist_ok=True)
        writer.create(path, mb)
        whole = mode == "whole"
        cli(root, cache, ["search", WORD], whole)  # the catalog and the index, warm
        warm = [cli(root, cache, ["sessions"], whole) for _ in range(appends)]
        sid = writer.sid if fmt == "opencode-db" else writer.name
        cli(root, cache, ["recent", sid], whole)  # (its windows looked for, as `recent` does once)
        grown, searched, recents = [], [], []
        for _ in range(appends):
            writer.append(path, 1)
            grown.append(cli(root, cache, ["sessions"], whole))
            writer.append(path, 1)
            searched.append(cli(root, cache, ["search", WORD], whole))
            writer.append(path, 1)
            recents.append(cli(root, cache, ["recent", sid], whole))
        out[mode] = {name: (statistics.median(w for w, _ in xs), statistics.median(c for _, c in xs))
                     for name, xs in (("warm", warm), ("sessions", grown), ("search", searched),
                                      ("recent", recents))}
        log(f"  {fmt} {mb:g} MB {mode}: " + ", ".join(
            f"{k} {w:.0f}/{c:.0f} ms" for k, (w, c) in out[mode].items()))  # type: ignore[union-attr]
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--big-mb", type=float, default=100)
    ap.add_argument("--appends", type=int, default=3)
    ap.add_argument("--formats", default=",".join(FORMATS))
    args = ap.parse_args()
    formats = [f for f in args.formats.split(",") if f]
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}; "
          f"bytecode {'off (PYTHONDONTWRITEBYTECODE)' if os.environ.get('PYTHONDONTWRITEBYTECODE') else 'on'}",
          flush=True)
    rows = []
    with tempfile.TemporaryDirectory(prefix="sessionscope-growth-") as tmp:
        for fmt in formats:
            for mb in (1, args.big_mb):
                rows.append(measure(Path(tmp), fmt, mb, args.appends, lambda s: print(s, flush=True)))
    print(f"\nwall/CPU ms, medians of {args.appends}; 'whole' = reading on switched off in the same run")
    print(f"{'format':>13} {'size':>6} {'mode':>8} {'warm call':>12} {'sessions +1MB':>14} {'search +1MB':>12}"
          f" {'recent +1MB':>12}")
    for r in rows:
        for mode in ("read on", "whole"):
            m = r[mode]
            print(f"{r['format']:>13} {r['mb']:>4g}MB {mode:>8} " + " ".join(
                f"{m[k][0]:>6.0f}/{m[k][1]:<6.0f}" for k in ("warm", "sessions", "search", "recent")))
    print("\nbig/small, next call after +1 MB (CPU; wall in brackets), target at most 3x:")
    for fmt in formats:
        small, big = [r for r in rows if r["format"] == fmt]
        for mode in ("read on", "whole"):
            parts = []
            for k in ("sessions", "search", "recent"):
                parts.append(f"{k} {big[mode][k][1] / small[mode][k][1]:.2f}x "
                             f"({big[mode][k][0] / small[mode][k][0]:.2f}x)")
            print(f"  {fmt:>13} {mode:>8}: " + ", ".join(parts))
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
