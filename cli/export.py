"""`sessionscope export ID --format md|html|json [-o FILE] [--thinking] [--mask-secrets]`: one
session, its subagents inline, as a file; `export --project P | --since D | --until D -o FOLDER`:
those sessions to a folder, with an index page (core/export/)."""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from sessionscope.cli.common import CliError, add_mask_secrets, emit, open_library, warn


def add_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    e = sub.add_parser("export", parents=[common],
                       help="export a session (subagents inline) to Markdown, HTML or JSON")
    e.add_argument("session_id", nargs="?", metavar="SESSION_ID",
                   help="a session id or unique prefix; without it, the sessions --project, --agent, "
                   "--since and --until choose go to the folder -o names, with an index page")
    e.add_argument("--project", help="(to a folder) the sessions of projects whose path contains this")
    e.add_argument("--agent", help="(to a folder) only this agent's sessions")
    e.add_argument("--since", metavar="DATE", help="(to a folder) active since: an ISO date or 7d, 2w, ...")
    e.add_argument("--until", metavar="DATE", help="(to a folder) active before (an ISO date: that whole day)")
    e.add_argument("--format", choices=("md", "html", "json"), default=None,
                   help="md, html (self-contained, works offline) or json; default: from -o's "
                   "suffix, else md (a folder: html)")
    e.add_argument("-o", "--output", metavar="FILE", help="write to FILE (default: standard output)")
    e.add_argument("--thinking", action="store_true", help="include the model's thinking")
    e.add_argument("--all-branches", action="store_true",
                   help="include entries on abandoned branches (rewinds, edits), marked")
    add_mask_secrets(e)


def cmd_export(args: argparse.Namespace) -> int:
    from sessionscope.cli.sessions import _resolve
    from sessionscope.core.export.write import write_export
    from sessionscope.core.export.render import render
    from sessionscope.core.export.document import export_session
    from sessionscope.core.read.jsonl import ReaderError

    if args.session_id is None:
        return _to_folder(args)
    fmt = args.format or _format_of(args.output) or "md"
    if args.json and not args.output:
        raise CliError("export: with --json give -o FILE (the export goes there, the report to stdout)")
    lib, warnings = open_library(args)
    warn(warnings, args)
    session = _resolve(lib, args.session_id)
    try:
        doc = export_session(lib, session, thinking=args.thinking, mask=args.mask_secrets,
                             all_branches=args.all_branches)
    except (ReaderError, OSError) as exc:
        raise CliError(f"cannot read session {session.id}: {exc}") from None
    text = render(doc, fmt)
    items, subagents = doc.counts()
    if not args.output:
        sys.stdout.write(text)
        return 0
    try:
        path = write_export(text, Path(args.output), [r.path for r in lib.roots])
    except ValueError as exc:
        raise CliError(f"export: {exc}") from None
    if args.json:
        emit({"ok": True, "session_id": session.id, "format": fmt, "path": str(path),
              "items": items, "subagents": subagents})
    else:
        print(f"wrote {path} ({fmt}: {items:,} items, {subagents} subagent session(s) inline)")
    return 0


def _to_folder(args: argparse.Namespace) -> int:
    from sessionscope.core.export.folder import chosen_sessions, export_folder
    from sessionscope.core.search.query import QueryError, parse_time

    if not (args.project or args.since or args.until or args.agent):
        raise CliError("export: give a SESSION_ID, or --project, --since or --until (and -o FOLDER)")
    if not args.output:
        raise CliError("export: to export several sessions, give -o FOLDER (with an index page)")
    try:
        since = parse_time(args.since, 0) if args.since else None
        until = parse_time(args.until, 0, end=True) if args.until else None
    except QueryError as exc:
        raise CliError(f"export: {exc.reason}") from None
    lib, warnings = open_library(args)
    warn(warnings, args)
    sessions = chosen_sessions(lib, agent=args.agent, project=args.project, since=since, until=until)
    if not sessions:
        raise CliError("export: no session matches (see `sessionscope sessions --all`)")
    fmt = args.format or "html"
    try:
        report = export_folder(lib, sessions, Path(args.output), fmt, thinking=args.thinking,
                               mask=args.mask_secrets, all_branches=args.all_branches)
    except ValueError as exc:
        raise CliError(f"export: {exc}") from None
    for failure in report.failed:
        print(f"sessionscope: warning: not exported: {failure}", file=sys.stderr)
    if args.json:
        emit({"ok": True, "format": fmt, "folder": str(report.folder), "index": str(report.index),
              "sessions": [{"session_id": w.session.id, "file": w.file, "items": w.items,
                            "subagents": w.subagents} for w in report.written], "failed": report.failed})
    else:
        print(f"wrote {len(report.written)} session(s) and {report.index} ({fmt})")
    return 0


def _format_of(output: str | None) -> str | None:
    suffix = os.path.splitext(output or "")[1].lower()
    return {".md": "md", ".markdown": "md", ".html": "html", ".htm": "html", ".json": "json"}.get(suffix)
