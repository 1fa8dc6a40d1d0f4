"""Listing and full-parse throughput per transcript format, beside Claude Code's and Codex's.

Claude Code and Codex files come from `gen_corpus.py`, the other formats from `gen_formats.FORMATS`.
For each format: the quick listing (`quick_listing`, one pass over the files: both 64 KB ends of
each, sniffed) in files/s, and the full parse (`Adapter.load`) in MB/s and entries/s, each also as a
ratio to Claude Code's figure measured in the same run (the machine is shared: read the ratios, not
the seconds). OpenCode's JSON tree counts only the session files' bytes (its messages and parts are
read beside them): read its entries/s. Its database is one file holding every session: its listing
reads the newest session.
`x 2 ends`: each format's quick listing over the bare read of the bytes it must touch
(`two_end_read`: both 64 KB ends, a small file whole, a JSON document read whole also parsed; a
database's newest session's rows), run in the same way (issue 15's target: at most 3).
`floor x`: that read plus `orjson.loads` of exactly the lines the listing parsed (recorded in a pass
of its own, then parsed again alone; a JSON document's, which that read already parses, not again),
over the same read: the least a listing that parses what this one parses can cost; the listing's own
Python is the difference between the two columns.

With `--real DIR`, a second table: the same figures over the transcripts found under DIR (every
file some adapter's sniffer takes, grouped by format; e.g. `--real ../shared/corpus`, files the
agents wrote; one not where its agent keeps it, as a corpus of samples flattens folders into
names, is measured from a copy laid out as in a user's home, `LAYOUT`): the generated files are
the usual shape (a prompt on the first lines, a tool result last), real ones are not always (a
session opened by a slash command has no prompt for many lines; a small file is read whole, its
every line in reach; its few KB read cost less than a listing's fixed Python).

    .venv/bin/python bench/bench_formats.py                 # 100 sessions a format, ~60 KB each
    .venv/bin/python bench/bench_formats.py --files 30 --file-kb 200 --json
    .venv/bin/python bench/bench_formats.py --real ../shared/corpus
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_corpus import generate  # noqa: E402
from gen_formats import FORMATS  # noqa: E402

from sessionscope.core.model import SessionKind  # noqa: E402
from sessionscope.core.read.adapters import default_registry  # noqa: E402
from sessionscope.core.read.jsonl import read_head_tail  # noqa: E402
from sessionscope.core.read.listing import HEAD_TAIL, quick_listing, quick_meta  # noqa: E402


def two_end_read(path: str) -> int:
    """The bytes a quick listing of `path` must touch, read and nothing else done with them: the
    first and last 64 KB of a file (a file of at most 128 KB whole: a JSON document or Aider's
    Markdown is then read whole), as `quick_meta` reads them; a JSON document read whole also
    parsed (`orjson.loads`: nothing less tells its structure); for Aider's history read whole, its
    sibling input history too (the times of the newest session's messages are matched in it, in
    order from the top); for an OpenCode database (one file holding every session, listed by its
    most recently updated one), opening it as the adapter does and fetching that session's row and
    the raw `data` of its message and part rows; for an OpenCode JSON tree, the session's own JSON
    file (its messages and parts are not read by the listing)."""
    if path.endswith(".db"):
        from sessionscope.core.read.adapters.opencode import connect

        con = connect(path)
        try:
            row = con.execute("SELECT * FROM session ORDER BY time_updated DESC LIMIT 1").fetchone()
            n = len(tuple(row))
            for table in ("message", "part"):
                n += sum(len(r[0] or "") for r in con.execute(f"SELECT data FROM {table} WHERE session_id = ?",
                                                                (row["id"],)))
            return n
        finally:
            con.close()
    ht = read_head_tail(path, HEAD_TAIL)
    n = len(ht.head) + (0 if ht.whole else len(ht.tail))
    if ht.whole and path.endswith(".json"):
        # A JSON document (a Gemini CLI legacy chat, an OpenCode session file), unlike JSON lines,
        # is understood only parsed whole: where its messages end and which keys are the top
        # level's (a key may come after the messages, or twice), and whether it is valid at all
        # (a crash can leave one cut off), no listing can tell from its bytes without a parse.
        try:
            orjson.loads(ht.head[3:] if ht.head.startswith(b"\xef\xbb\xbf") else ht.head)
        except orjson.JSONDecodeError:
            pass
    if ht.whole and path.endswith(".chat.history.md"):
        # Aider's newest session is known only from the whole history (its id counts the same
        # headers before it, its times match the input history from the top): that file too.
        from sessionscope.core.read.adapters.aider import input_history_path

        try:
            with open(input_history_path(path), "rb") as fh:
                n += len(fh.read())
        except OSError:
            pass
    return n


def parsed_by_listing(paths: list[Path], registry: Any) -> list[bytes]:
    """The bytes of every `orjson.loads` call that listing `paths` makes (but a JSON document's,
    which `two_end_read` parses: nothing of a `.json` file), in order: each
    sessionscope module's name bound to `orjson.loads`, and the module's own attribute, replaced
    by a recorder for one pass (and put back: the timed runs call orjson as they always do)."""
    real, got = orjson.loads, []

    def record(data: Any) -> Any:
        got.append(bytes(data))
        return real(data)

    bound = [(m, k) for name, m in list(sys.modules.items()) if name.startswith("sessionscope") and m is not None
             for k, v in list(vars(m).items()) if v is real]
    for m, k in bound:
        setattr(m, k, record)
    orjson.loads = record  # (the modules that call `orjson.loads` by attribute)
    try:
        for p in paths:
            before = len(got)
            quick_meta(str(p), registry)
            if p.name.endswith(".json"):
                del got[before:]
    finally:
        orjson.loads = real
        for m, k in bound:
            setattr(m, k, real)
    return got


def parse_all(blobs: list[bytes]) -> None:
    for data in blobs:
        try:
            orjson.loads(data)
        except orjson.JSONDecodeError:
            pass


def corpora(out: Path, files: int, file_kb: int, seed: int) -> dict[str, list[Path]]:
    # (its plan mixes in subagent files and rounds the Codex share: ask for more, take `files` each)
    base = generate(out / "cc", files=files * 4, size_mb=files * 4 * file_kb / 1024, big_mb=0,
                    long_line_mb=0, codex_share=0.5, seed=seed)
    found = {"claude-code": [p for p in base.paths if base.claude_root in p.parents][:files],
             "codex": [p for p in base.paths if base.codex_root in p.parents][:files]}
    rng = random.Random(seed)
    for name, gen in FORMATS.items():
        found[name] = gen(out / "other", rng, files, file_kb)
    return found


def real_corpora(root: Path, out: Path) -> dict[str, list[Path]]:
    """The files under `root` that an adapter's sniffer takes and the listing lists, by format,
    each where its agent keeps it (`laid_out`, copied under `out` when it is not)."""
    registry, found = default_registry(), {}
    for p in sorted(root.rglob("*")):
        if p.is_file() and not p.is_symlink():
            adapter = registry.sniff(str(p))
            if adapter is not None and quick_meta(str(p), registry).error is None:
                found.setdefault(adapter.name, []).append(laid_out(p, adapter, registry, out))
    return found


#: where each agent keeps a session file, for a file kept elsewhere (a corpus of samples flattens
#: their folders into names): its path under a temporary home, from a name unique in the corpus
#: and the file's extension (its adapter's suffix); a Claude Code subagent's (or compaction's)
#: in its parent session's folder, named by its own id (the session id's last part)
LAYOUT = {"claude-code": "claude/projects/-real/{name}{ext}",
          "claude-code/subagent": "claude/projects/-real/{parent}/subagents/{name}{ext}",
          "codex": "codex/sessions/2026/01/01/rollout-2026-01-01T00-00-00-{name}{ext}",
          "copilot-cli": "copilot/session-state/{name}/events{ext}",
          "gemini-cli": "gemini/tmp/" + "0" * 64 + "/chats/session-{name}{ext}",
          "pi": "pi/sessions/--real--/{name}{ext}"}


def laid_out(path: Path, adapter: Any, registry: Any, out: Path) -> Path:
    """`path` itself when its path names its format (`Registry.likely`, as in a user's home),
    else a copy where its agent keeps it (`LAYOUT`): a listing takes a format's own lane only
    for a file in its agent's folders, and one elsewhere is listed the general way, slower, a
    way no user's files take (the samples' flattened names measured that one instead)."""
    if registry.likely(str(path)) is adapter or adapter.name not in LAYOUT:
        return path
    ext = max((s for s in adapter.suffixes if path.name.endswith(s)), key=len)
    key, name, parent = adapter.name, path.name[: -len(ext)], ""
    if adapter.name == "claude-code":
        session = adapter.load(str(path))[0].session
        if session.kind is not SessionKind.MAIN and session.parent_id:
            key, name, parent = "claude-code/subagent", session.id.rsplit("/", 1)[-1], session.parent_id
    target, n = out / LAYOUT[key].format(name=name, parent=parent, ext=ext), 0
    while target.exists():  # (two samples of one name in different folders: both measured)
        n += 1
        target = out / LAYOUT[key].format(name=f"{name}-{n}", parent=parent, ext=ext)
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(path, target)
    return target


def best(fn: Callable[[], Any], rounds: int) -> float:
    """The least CPU time of this process over `rounds` runs (what other processes on a busy
    machine leave alone, where wall time moves with them)."""
    times = []
    for _ in range(rounds):
        t = time.process_time()
        fn()
        times.append(time.process_time() - t)
    return min(times)


def measure(paths: list[Path], rounds: int) -> dict[str, float]:
    registry = default_registry()
    adapters = [registry.sniff(str(p)) for p in paths]
    assert all(adapters), "a generated file no adapter recognises"
    mb = sum(p.stat().st_size for p in paths) / 1e6
    # (alternating, round by round: the ratio holds while the machine's speed drifts; ten times
    # the rounds: a listing of 100 files lasts a few ms, and the least of 3 of those moved the
    # ratio by 15% from run to run)
    blobs = parsed_by_listing(paths, registry)
    listing = ends = parses = float("inf")
    for _ in range(10 * rounds):
        ends = min(ends, best(lambda: [two_end_read(str(p)) for p in paths], 1))
        listing = min(listing, best(lambda: quick_listing([str(p) for p in paths], registry), 1))
        parses = min(parses, best(lambda: parse_all(blobs), 1))
    loaded = [ls for a, p in zip(adapters, paths) for ls in a.load(str(p))]
    entries = sum(len(ls.entries) for ls in loaded)
    parse = best(lambda: [a.load(str(p)) for a, p in zip(adapters, paths)], rounds)
    return {"files": len(paths), "sessions": len(loaded), "mb": mb, "entries": entries,
            "list_files_s": len(paths) / listing, "list_x_two_ends": listing / ends,
            "floor_x_two_ends": (ends + parses) / ends, "parsed_kb_file": sum(map(len, blobs)) / 1024 / len(paths),
            "parse_mb_s": mb / parse, "parse_entries_s": entries / parse,
            "parse_sessions_s": len(loaded) / parse}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--files", type=int, default=100, help="sessions per format")
    ap.add_argument("--file-kb", type=int, default=60, help="about this many KB a session")
    ap.add_argument("--rounds", type=int, default=3, help="best of this many runs")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--real", type=Path, metavar="DIR",
                    help="also measure the transcripts under DIR (e.g. ../shared/corpus), by format")
    args = ap.parse_args(argv)
    if args.real is not None and not args.real.is_dir():
        ap.error(f"--real: not a folder: {args.real}")
    with tempfile.TemporaryDirectory(prefix="ss-formats-") as tmp:
        results = {name: measure(paths, args.rounds)
                   for name, paths in corpora(Path(tmp), args.files, args.file_kb, args.seed).items()}
        real = ({name: measure(paths, args.rounds)
                 for name, paths in real_corpora(args.real, Path(tmp) / "real").items()}
                if args.real is not None else None)
    if args.json:
        print(json.dumps({"params": {**vars(args), "real": str(args.real) if args.real else None},
                          "formats": results, "real": real}, indent=2))
        return 0
    print(f"{args.files} sessions a format, ~{args.file_kb} KB each; best of {args.rounds} (CPU time); ratios to claude-code; "
          f"x 2 ends: the quick listing's time over reading the bytes it must touch (`two_end_read`; target 3); "
          f"floor x: that read and parsing the lines the listing parsed (KB a file), over the read; "
          f"load {os.getloadavg()[0]:.1f}")
    table(results, results["claude-code"], "format")
    if real is not None:
        print(f"\nthe transcripts under {args.real}, by format (the same figures; ratios to its claude-code, when "
              f"it has any; load {os.getloadavg()[0]:.1f}):")
        table(real, real.get("claude-code") or next(iter(real.values()), None), "files: format")
    return 0


def table(results: dict[str, dict[str, float]], ref: dict[str, float] | None, head: str) -> None:
    print(f"{head:22} {'MB':>6} {'list files/s':>13} {'ratio':>6} {'x 2 ends':>9} {'floor x':>8} {'KB':>5} {'parse MB/s':>11} {'ratio':>6} "
          f"{'entries/s':>10} {'ratio':>6} {'sessions/s':>11}")
    for name, r in results.items():
        label = f"{r['files']:.0f}: {name}" if head.startswith("files") else name
        print(f"{label:22} {r['mb']:6.1f} {r['list_files_s']:13,.0f} {r['list_files_s'] / ref['list_files_s']:6.2f} "
              f"{r['list_x_two_ends']:9.2f} {r['floor_x_two_ends']:8.2f} {r['parsed_kb_file']:5.1f} "
              f"{r['parse_mb_s']:11.1f} {r['parse_mb_s'] / ref['parse_mb_s']:6.2f} {r['parse_entries_s']:10,.0f} "
              f"{r['parse_entries_s'] / ref['parse_entries_s']:6.2f} {r['parse_sessions_s']:11,.0f}")


if __name__ == "__main__":
    raise SystemExit(main())
