"""`sessionscope` without a command: the app (Textual), over the same roots and options."""
from __future__ import annotations

import argparse

from sessionscope.cli.common import CliError


def run(args: argparse.Namespace) -> int:
    if args.json:
        raise CliError("the app has no --json output; use a command (sessionscope --help)")
    try:
        from sessionscope.tui.app import run_app
    except ImportError:
        from sessionscope.cli.main import build_parser

        build_parser().print_help()
        return 0
    return run_app(args)
