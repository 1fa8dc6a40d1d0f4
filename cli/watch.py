"""`sessionscope watch`: session events as they happen (JSON lines with `--json`), the search index
kept current (`--no-index` not), until ctrl+c."""
from __future__ import annotations

import argparse
import sys
from typing import Any

from sessionscope.cli.common import cache_or_none, demo_dir, open_index, open_library, warn
from sessionscope.core.config import CacheError


def add_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    """The `watch` command and its options."""
    w = sub.add_parser("watch", parents=[common],
                       help="print session events as they happen (JSON lines with --json)")
    w.add_argument("--poll", action="store_true", default=argparse.SUPPRESS,  # keeps one given before 'watch'
                   help="poll instead of inotify (network file systems)")
    w.add_argument("--no-index", action="store_true", help="do not keep the search index current")
    w.add_argument("--archive", action="store_true",
                   help="archive each session created or grown (as `sessionscope archive`; config watch_archive)")


def cmd_watch(args: argparse.Namespace) -> int:
    import orjson

    from sessionscope.core.config import load_config
    from sessionscope.core.live.watch import Watcher

    config = load_config()
    lib, warnings = open_library(args)
    warn(warnings, args)
    keep = _Keeper(args, lib.roots) if args.archive or config.watch_archive else None
    # (without a usable cache there is no index to keep: open_library said so)
    index = None if args.no_index or cache_or_none(args) is None else open_index(args, lib)[0]
    from sessionscope.core.memory.places import watched_memory_dirs

    # Besides the agents' roots: the known projects' memory folders (the demo's are in its corpus).
    extra = watched_memory_dirs(s.project for s in lib.all_sessions() if s.project)
    if args.demo:
        extra.append(str(demo_dir() / "workspace"))
    watcher = Watcher(lib, poll=args.poll or config.poll, extra=extra)
    if keep is not None:  # what changed before the watch: archived once now
        keep.run(lib.roots, lambda message: print(f"sessionscope: warning: {message}", file=sys.stderr))
    # On stderr in both modes (stdout stays pure JSON lines): a script can wait for it before
    # writing, and anything written between the scan and the watch being armed is caught up.
    folders = sum(1 for p in extra if p in watcher.paths)
    print(f"watching {len(watcher.paths) - folders} root(s)" + (f" and {folders} memory folder(s)" if folders else "")
          + "; ctrl+c to stop", file=sys.stderr, flush=True)
    said: set[str] = set()

    def trouble(message: str) -> None:  # each reason once while it lasts: watch goes on and retries
        if message not in said:
            said.add(message)
            print(f"sessionscope: warning: {message} (retrying with the next change)", file=sys.stderr, flush=True)

    try:
        for batch in watcher.batches():
            for failure in watcher.tracker.failures:
                trouble(failure)
            watcher.tracker.failures.clear()
            if index is not None:  # only the files this batch touched: no stat pass over every root
                try:
                    index.update(lib, paths=watcher.take_changed())
                except CacheError as exc:
                    trouble(str(exc))
                else:
                    said.clear()
            if keep is not None:
                keep.after(batch, trouble)
            for event in batch:
                if args.json:
                    sys.stdout.write(orjson.dumps(event.to_dict()).decode() + "\n")
                else:
                    from sessionscope.core.text import printable

                    sys.stdout.write(printable(event.line()) + "\n")
            sys.stdout.flush()
    except KeyboardInterrupt:
        pass
    finally:
        watcher.stop.set()
        if index is not None:
            index.close()
    return 0


class _Keeper:
    """`watch --archive`: each batch's created, grown or rewritten files archived (their roots,
    incrementally: the unchanged files cost a stat), with a line on stderr when something was."""

    def __init__(self, args: argparse.Namespace, roots: list[Any]) -> None:
        from sessionscope.cli.archive import target

        self.folder = target(args)
        self.roots = roots

    def run(self, roots: list[Any], trouble: Any) -> None:
        from sessionscope.cli.archive import summary
        from sessionscope.core.archive import ArchiveError, run_archive

        try:
            report = run_archive(roots, self.folder)
        except ArchiveError as exc:
            trouble(str(exc))
            return
        if report.new or report.updated:
            print(f"sessionscope: {summary(report)}", file=sys.stderr, flush=True)

    def after(self, batch: list[Any], trouble: Any) -> None:
        from sessionscope.core.live.tracker import Change

        changed = [e.path for e in batch if e.kind in (Change.CREATED, Change.GREW, Change.REWRITTEN)]
        roots = [r for r in self.roots if any(p == r.path or p.startswith(r.path.rstrip("/") + "/") for p in changed)]
        if roots:
            self.run(roots, trouble)
