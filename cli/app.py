"""`sessionscope` without a command: the app (Textual), over the same roots and options."""
from __future__ import annotations

import argparse
import gc
import os
from typing import TYPE_CHECKING

from sessionscope.cli.common import CliError

if TYPE_CHECKING:
    from sessionscope.tui.app import SessionScopeApp


def run(args: argparse.Namespace) -> int:
    if args.json:
        raise CliError("the app has no --json output; use a command (sessionscope --help)")
    try:
        import sessionscope.tui.app  # noqa: F401 - the app needs textual
    except ImportError:
        from sessionscope.cli.main import build_parser

        build_parser().print_help()
        return 0
    return run_app(args)


def build_app(args: argparse.Namespace) -> SessionScopeApp:
    """The app over the CLI's roots; the demo corpus when asked or when no history exists."""
    from sessionscope.tui.app import SessionScopeApp
    from sessionscope.cli.common import demo_caches, demo_dir, demo_roots
    from sessionscope.core.catalog.store import Catalog
    from sessionscope.core.config import archive_dir, cache_dir, load_config
    from sessionscope.core.read.discovery import Root, resolve_roots
    from sessionscope.core.catalog.library import Library

    config = load_config()
    notice = None
    memory = None
    demo = False
    memory_dirs = tuple(dict.fromkeys([*getattr(args, "memory_dir", []), *config.memory_dirs]))
    cwd: str | None = os.getcwd()
    missing_memory = [d for d in memory_dirs if not os.path.isdir(d)]
    roots = resolve_roots(args.root, config.roots, config.default_roots, config.max_folders,
                              dict(config.agent_homes), config.project_roots,
                              archive_dir(config))
    base = cache_dir()
    if args.root and not args.demo and not any(r.error is None for r in roots):
        # A mistyped --root is an error, as for the commands, not a reason to show the demo.
        from sessionscope.cli.common import CliError

        raise CliError("; ".join(r.error or r.path for r in roots if r.explicit))
    if args.demo or not any(r.error is None for r in roots):
        if not args.demo:
            looked = ", ".join(r.path for r in roots[:3])
            notice = f"No agent history found (looked in {looked}, …): showing the built-in demo corpus."
        roots = [Root(p, "demo") for p in demo_roots()]
        from sessionscope.core.demo import demo_memory

        demo_base = demo_dir()
        memory = lambda: demo_memory(demo_base)  # noqa: E731 - the demo's stand-in project folders
        memory_dirs, cwd, missing_memory = (str(demo_base / "workspace"),), None, []
        base = demo_caches()  # the demo's own catalog and index: never the real history's
        demo = True
    missing = [r for r in roots if r.explicit and r.error]
    if missing:
        notice = "; ".join(r.error or "" for r in missing)
    if missing_memory:
        notes = [f"memory folder not found: {d}" for d in missing_memory]
        notice = "; ".join([notice, *notes] if notice else notes)
    library = Library(roots, catalog=Catalog(base / "catalog.sqlite"))  # (adapters at first use)
    poll = bool(getattr(args, "poll", False)) or config.poll
    from sessionscope.core.config import bookmarks_file

    return SessionScopeApp(library, index_dir=base / "index", notice=notice, watch=True, poll=poll,
                           memory=memory, memory_dirs=memory_dirs, cwd=cwd, tool_result_cap=config.tool_result_cap,
                           bookmarks=bookmarks_file(demo))


def run_app(args: argparse.Namespace) -> int:
    # No GC passes until the first frame: startup allocates many long-lived objects, and a full
    # pass over them (~15-20 ms) would come just before the first paint.
    gc.disable()
    try:
        app = build_app(args)
        app.gc_paused = True
        app.run()
    finally:
        gc.enable()
    return 0
