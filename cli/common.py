"""What every command shares: its errors, its output, opening the library and the search index
over the requested roots (with their warnings), and the demo corpus.

A command module imports these; none of them imports a command module, the parser or the app.
"""
from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any, Callable

from sessionscope.core.config import CacheError

if TYPE_CHECKING:
    from pathlib import Path

    from sessionscope.core.read.discovery import Root
    from sessionscope.core.catalog.library import Library, ScanReport


EXIT_USAGE = 2


class CliError(Exception):
    """A user-facing error: printed as one line, exit code 2."""


def add_mask_secrets(p: argparse.ArgumentParser) -> None:
    """`--mask-secrets`, for the commands that print transcript text (read, recent, search)."""
    p.add_argument("--mask-secrets", action="store_true",
                   help="mask secrets (keys, tokens, passwords) and e-mail addresses in what is printed, "
                   "e.g. while sharing the screen (by default a local reader sees the transcript as written)")


def bounded(lo: int, hi: int) -> Callable[[str], int]:
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer between {lo} and {hi}, got {text!r}")
        if not lo <= value <= hi:
            raise argparse.ArgumentTypeError(f"must be between {lo} and {hi}, got {value}")
        return value

    parse.__name__ = f"integer {lo}-{hi}"
    return parse


def fail(message: str, want_json: bool) -> int:
    message = message if message.startswith("sessionscope") else f"sessionscope: {message}"
    print(message, file=sys.stderr)
    if want_json:
        emit({"ok": False, "error": message.split(": ", 1)[-1] if ": " in message else message})
    return EXIT_USAGE


def emit(obj: Any) -> None:
    import orjson

    from sessionscope.core.text import json_escaped, unwrapped

    # Written past the sanitiser (it would break the JSON), escaped as JSON instead.
    unwrapped(sys.stdout).write(json_escaped(orjson.dumps(obj, option=orjson.OPT_INDENT_2).decode()) + "\n")
    sys.stdout.flush()


# -- library ------------------------------------------------------------------------------
def open_library(args: argparse.Namespace, *, scan: bool = True, lazy: bool = False,
                 early: bool = False) -> tuple[Library, list[str]]:
    """The library over the requested roots, scanned; plus warnings for stderr.

    With `scan=False` the roots are checked but the files are not read: `open_index` then scans
    and indexes in one pass (each changed file parsed once, not once per step). `lazy`: the
    scan decodes no session the command does not ask for (`Library.scan(lazy=True)`). `early`
    (a command whose next scan is a warm one, lazy or `prime_warm`): the snapshot's stat
    comparison is begun in a forked child before the catalog's modules are imported
    (core/catalog/warm.py `begin`), and its answer taken by that scan."""
    roots, warnings = cli_roots(args)
    base = cache_or_none(args)
    begun = None
    if early and base is not None:
        from sessionscope.core.catalog import warm
        from sessionscope.core.read.discovery import looked_for

        begun = warm.begin(str(base / "catalog.sqlite"), roots, looked_for(None))
    from sessionscope.core.catalog.store import Catalog
    from sessionscope.core.catalog.library import Library

    if base is None:
        warnings.append(f"{_no_cache_said}: working without it (the sessions are read again each time, "
                        "and search reads the session files)")
    lib = Library(roots, catalog=Catalog(base / "catalog.sqlite" if base else None))
    lib.split_stats = True  # (a command: see Library.split_stats)
    lib.early = begun
    if scan:
        warnings += scan_warnings(args, lib.scan(lazy=lazy), warnings)
    return lib, warnings


def cli_roots(args: argparse.Namespace) -> tuple[list[Root], list[str]]:
    """The roots to read (`--root`s, the config's, the defaults, or the demo's), and warnings.

    A root that is missing or unreadable is a warning while another root can be read (the
    others are read); only when none can be is it an error, naming the missing ones (so a single
    `--root /missing` still fails). The config's warnings are printed before such an error: a
    broken config is often why no root is left."""
    from sessionscope.core.config import archive_dir, load_config
    from sessionscope.core.read.discovery import Root, resolve_roots

    config = load_config()
    warnings = list(config.warnings)
    if args.demo:
        roots = [Root(p, "demo") for p in demo_roots()]
    else:
        roots = resolve_roots(args.root, config.roots, config.default_roots, config.max_folders,
                              dict(config.agent_homes), config.project_roots,
                              archive_dir(config))
    missing = [r.error for r in roots if r.explicit and r.error]
    if any(r.error is None for r in roots):
        return roots, warnings + missing
    warn(warnings, args)
    if missing:
        raise CliError("; ".join(missing))
    if not roots:
        raise CliError(f"no roots to read: the config ({config.path}) turns the default roots off "
                       "and names none; pass --root DIR or try --demo")
    looked = ", ".join(r.path for r in roots)
    raise CliError(f"no agent history found (looked in {looked}); pass --root DIR or try --demo")


def scan_warnings(args: argparse.Namespace, report: ScanReport, already: list[str]) -> list[str]:
    """What of a scan report the user should see on stderr."""
    out = list(report.notes if args.root else [n for n in report.notes if "rebuilding" in n])
    roots = {r.error for r in report.roots}  # missing roots: `cli_roots` warned of them
    unreadable = [e for e in report.errors if e not in already and e not in roots]
    folders = [e for e in unreadable if e.startswith("folder ")]
    files = [e for e in unreadable if not e.startswith("folder ")]
    return out + folders + report.skipped + unread_warnings(files)


def unread_warnings(errors: list[str]) -> list[str]:
    """Warnings for files that could not be read: those skipped for want of zstandard together,
    with the install hint (else they would only be "could not be read"), then the others."""
    from sessionscope.core.config import ZSTD_HINT

    zst = [e for e in errors if ZSTD_HINT in e]
    other = [e for e in errors if ZSTD_HINT not in e]
    out = []
    if zst:
        out.append(f"{len(zst)} zstd-compressed file(s) not read: zstandard is not installed "
                   f"({ZSTD_HINT})")
    if other:
        out.append(f"{len(other)} file(s) could not be read; first: {other[0]}")
    return out


DEMO_VERSION = "2"  # bump when the demo generator's output changes, so caches are rebuilt


def caches(args: argparse.Namespace) -> Path:
    """Where the catalog and the index live: the cache dir, or with --demo a folder of the demo's
    own, so trying the demo never empties the real history's index (the app uses the same)."""
    from sessionscope.core.config import usable_cache_dir

    return demo_caches() if getattr(args, "demo", False) else usable_cache_dir()


_no_cache_said = ""  # why the cache cannot be used, once `cache_or_none` found it so


def cache_or_none(args: argparse.Namespace) -> Path | None:
    """`caches(args)`, or None when the cache folder cannot be used (read-only, a file in the
    way): listing, reading and searching then work without it (the catalog in memory, search
    by reading the files), with one warning. The demo needs its cache: that error stands."""
    global _no_cache_said
    try:
        return caches(args)
    except CacheError as exc:
        if getattr(args, "demo", False):
            raise
        _no_cache_said = str(exc).split("; set SESSIONSCOPE_CACHE_DIR")[0]
        return None


def demo_caches() -> Path:
    """The demo's catalog and index folder (also when the app falls back to the demo)."""
    from sessionscope.core.config import usable_cache_dir

    return usable_cache_dir() / "demo-cache"


def demo_dir() -> Path:
    """The demo corpus in the cache dir, generated on first use (and when the generator changed)."""
    from sessionscope.core.config import usable_cache_dir
    from sessionscope.core.demo import generate_demo

    base = usable_cache_dir() / "demo"
    marker = base / ".complete"
    if not marker.exists() or marker.read_text() != DEMO_VERSION:
        import shutil

        shutil.rmtree(base, ignore_errors=True)
        generate_demo(base)
        marker.write_text(DEMO_VERSION)
    return base


def demo_roots() -> list[str]:
    """Roots of the demo corpus: its Claude projects and Codex sessions folders, and the other
    agents' session folders."""
    from sessionscope.core.demo.generate import OTHER_ROOTS

    base = demo_dir()
    return [str(base / "claude" / "projects"), str(base / "codex" / "sessions"), *(str(base / d) for d in OTHER_ROOTS)]


def warn(warnings: list[str], args: argparse.Namespace) -> None:
    for w in warnings:
        print(f"sessionscope: warning: {w}", file=sys.stderr)


def open_index(args: argparse.Namespace, lib: Library, *, rebuild: bool = False, scan: bool = False,
               wait: float | None = None) -> Any:
    """The search index, brought up to date first (with a progress bar on a terminal); with
    `scan`, the library is scanned in the same pass (see `open_library(scan=False)`).

    While another sessionscope process holds the index's writer, the index is returned
    read-only (searches answer from what that process has committed; see `SearchIndex.update`)
    with one line on stderr saying so; with `wait` (an explicit update: `index`), it is waited
    for up to that many seconds, then the command fails (exit 2), naming the reason."""
    from sessionscope.core.config import load_config
    from sessionscope.core.search.index import SearchIndex

    base = cache_or_none(args)
    if base is None:  # (open_library said why, once)
        if wait is not None:  # `index`: there is nothing to update
            caches(args)  # raises the reason
        index = SearchIndex(None, tool_result_cap=load_config().tool_result_cap)
        if scan:
            warn(scan_warnings(args, lib.scan(), []), args)
        index.answer_from_files(lib)
        return index, None
    index = SearchIndex(base / "index", tool_result_cap=load_config().tool_result_cap)
    # (index.messages, such as a rebuild's, come back in the report: printed once, below)
    show = not args.json and sys.stderr.isatty()
    if not show:
        report = index.update(lib, rebuild=rebuild, scan=scan, wait=wait or 0.0)
    else:
        from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn

        from rich.console import Console

        from sessionscope.core.text import unwrapped

        # (its own cursor movements must reach the terminal: past the sanitiser, on stderr)
        with Progress(TextColumn("indexing {task.fields[files]}"), BarColumn(), DownloadColumn(),
                      TimeRemainingColumn(), transient=True, console=Console(file=unwrapped(sys.stderr))) as bar:
            task = bar.add_task("index", total=None, files="")

            def progress(p: Any) -> None:
                bar.update(task, completed=p.bytes_done, total=p.bytes_total or None,
                           files=f"{p.files_done}/{p.files_total} files")

            report = index.update(lib, progress, rebuild=rebuild, scan=scan, wait=wait or 0.0)
    if scan and report.scan is not None:
        warn(scan_warnings(args, report.scan, []), args)
    failed = wait is not None and report.read_only
    for m in report.messages:
        if not (failed and index.writer_error and m.startswith(index.writer_error)):  # (said by the error)
            print(f"sessionscope: warning: {m}", file=sys.stderr)
    if failed:
        busy = "updating the index" in (index.writer_error or "")
        raise CliError(f"index: {index.writer_error}" + (f"; waited {wait:g}s for it: try again when it is done, "
                                                        "or pass --wait SECONDS" if busy else ""))
    return index, report
