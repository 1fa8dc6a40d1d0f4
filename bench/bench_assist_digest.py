"""The model assist's digest over the corpus's longest sessions: its size against the cap, how many
entries it shows and leaves out, and the time to build it, as a ratio to reading those sessions
(the baseline, measured in the same run).

    .venv/bin/python bench/bench_assist_digest.py [CORPUS]   (default ../shared/corpus)
"""
from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from sessionscope.core.brief.assist import DIGEST_TOKENS, build_digest
from sessionscope.core.catalog.store import Catalog
from sessionscope.core.read.discovery import Root
from sessionscope.core.catalog.library import Library


def main() -> int:
    corpus = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[1] / "../shared/corpus")
    if not (corpus / "claude-code").is_dir():
        print(f"no corpus at {corpus}: nothing to measure")
        return 0
    lib = Library([Root(str(corpus / "claude-code"), "bench"), Root(str(corpus / "codex"), "bench")],
                  catalog=Catalog(Path(tempfile.mkdtemp()) / "catalog.sqlite"))
    lib.scan()
    longest = sorted(lib.sessions(), key=lambda s: -(s.size or 0))[:4]
    t = time.perf_counter()
    loaded = [(s, list(lib.load(s).entries)) for s in longest]
    read = time.perf_counter() - t
    print(f"baseline: reading the {len(loaded)} longest sessions ({sum(len(e) for _, e in loaded)} entries, "
          f"{sum(s.size or 0 for s in longest) / 1e6:.1f} MB): {read * 1000:.0f} ms")
    for n in (1, 3, len(loaded)):
        t = time.perf_counter()
        d = build_digest(loaded[:n], "fix the failing tests and keep the lint clean")
        took = time.perf_counter() - t
        print(f"{n} session(s): prompt {d.tokens} tokens (cap {DIGEST_TOKENS}), {d.shown} entries shown, "
              f"{d.left_out} left out, {len(d.items)} citable; built in {took * 1000:.0f} ms "
              f"({took / read:.2f}x the reading)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
