"""`sessionscope archive [--to DIR] [--copy]`: the agents' session files copied into the archive
folder (hard links where it can, else compressed copies), incrementally; read back as more roots
by every command and the app (core/archive.py)."""
from __future__ import annotations

import argparse
import sys
from typing import Any

from sessionscope.cli.common import CliError, cli_roots, emit, warn


def add_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    a = sub.add_parser("archive", parents=[common],
                       help="keep the agents' sessions in an archive folder (they delete old ones)")
    a.add_argument("--to", metavar="DIR", help="the archive folder (default: config archive_dir, else "
                   "the data folder's archive/)")
    a.add_argument("--copy", action="store_true",
                   help="never hard-link: compressed copies only (a link shares the file the agent "
                   "may rewrite in place)")


def target(args: argparse.Namespace) -> str:
    """The archive folder: `--to`, the config's `archive_dir`, or the data folder's archive/."""
    from sessionscope.core.config import archive_dir, load_config

    to = getattr(args, "to", None)
    if to:
        import os

        return os.path.abspath(os.path.expanduser(to))
    if args.demo:
        raise CliError("archive --demo: give --to DIR (the demo corpus is not your history)")
    return str(archive_dir(load_config()))


def cmd_archive(args: argparse.Namespace) -> int:
    from sessionscope.core.archive import ArchiveError, run_archive

    folder = target(args)
    roots, warnings = cli_roots(args)
    warn(warnings, args)
    try:
        report = run_archive(roots, folder, link=not args.copy)
    except ArchiveError as exc:
        raise CliError(str(exc)) from None
    for e in report.errors[:20]:
        print(f"sessionscope: warning: not archived: {e}", file=sys.stderr)
    if args.json:
        emit({"ok": True, **report.to_dict()})
        return 0
    print(summary(report))
    return 0


def summary(report: Any) -> str:
    """One line: what a run archived, how, and how long it took."""
    return (f"archived into {report.folder}: {report.new} new, {report.updated} updated, "
            f"{report.unchanged} unchanged; {_size(report.bytes)} archived, {_size(report.bytes_written)} "
            f"written ({report.linked} hard links, {report.compressed} compressed copies, "
            f"{report.copied} copies) in {report.seconds:.2f} s"
            + (f"; {len(report.errors)} file(s) could not be read" if report.errors else ""))


def _size(n: int) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024  # type: ignore[assignment]
    return f"{n} B"
