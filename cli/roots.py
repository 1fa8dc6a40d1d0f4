"""`sessionscope roots`: the roots that are read (given, from the config, the defaults or the demo's)
and the state of each."""
from __future__ import annotations

import argparse
from typing import Any

from sessionscope.cli.common import demo_roots, emit


def add_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    """The `roots` command (no options of its own)."""
    sub.add_parser("roots", parents=[common], help="show the roots searched and their state")


def cmd_roots(args: argparse.Namespace) -> int:
    from sessionscope.core.config import archive_dir, load_config
    from sessionscope.core.read.discovery import Root, resolve_roots

    config = load_config()
    roots = ([Root(p, "demo") for p in demo_roots()] if args.demo
             else resolve_roots(args.root, config.roots, config.default_roots, config.max_folders,
                              dict(config.agent_homes), config.project_roots,
                              archive_dir(config)))
    data = [{"path": r.path, "origin": r.origin, "ok": r.error is None, "error": r.error} for r in roots]
    if args.json:
        emit({"roots": data, "config": config.path})
        return 0
    for d in data:
        state = "ok" if d["ok"] else d["error"]
        print(f"{d['origin']:<12} {d['path']}  ({state})")
    return 0
