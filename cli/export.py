"""`sessionscope export ID --format md|html|json [-o FILE] [--thinking] [--mask-secrets]`: one
session, its subagents inline, as a file (core/export/)."""
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
    e.add_argument("session_id", metavar="SESSION_ID", help="a session id or unique prefix")
    e.add_argument("--format", choices=("md", "html", "json"), default=None,
                   help="md, html (self-contained, works offline) or json; default: from -o's "
                   "suffix, else md")
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


def _format_of(output: str | None) -> str | None:
    suffix = os.path.splitext(output or "")[1].lower()
    return {".md": "md", ".markdown": "md", ".html": "html", ".htm": "html", ".json": "json"}.get(suffix)
