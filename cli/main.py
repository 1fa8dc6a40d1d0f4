"""The command line: `sessionscope [sessions|read|search|recent|roots|...]`, tables or `--json`.

It mirrors the session-logs tool agents already call (same JSON shapes), so an agent can use it
as is. With no command it opens the app. Errors are one line on stderr and exit code 2 (with
`--json`, `{"ok": false, "error": ...}` on stdout as well); nothing here prints a traceback for
bad input.
"""
from __future__ import annotations

import argparse
import gc
import importlib
import os
import sys
import threading
from typing import Any, Callable, NoReturn, Sequence

from sessionscope.cli.common import CliError, fail
from sessionscope.core.config import CacheError


class _Formatter(argparse.HelpFormatter):
    """argparse's help formatter, the terminal's width found as `shutil.get_terminal_size` finds
    it but without importing shutil (and with it zlib, bz2 and lzma): argparse makes a formatter
    for every option added, so every command paid that import before doing anything."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24,
                 width: int | None = None) -> None:
        if width is None:
            width = _columns() - 2
        super().__init__(prog, indent_increment, max_help_position, width)


def _columns() -> int:
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns  # type: ignore[union-attr]
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args: Any, formatter_class: type[argparse.HelpFormatter] = _Formatter, **kwargs: Any) -> None:
        super().__init__(*args, formatter_class=formatter_class, **kwargs)

    def error(self, message: str) -> NoReturn:  # one clear line instead of usage + message
        raise CliError(f"{self.prog}: {message}")


def _shared(default: bool) -> argparse.ArgumentParser:
    """The options taken before or after the command. The command's copy (`default=False`)
    must not reset what was given before it, so its defaults are suppressed."""
    d = (lambda v: v) if default else (lambda v: argparse.SUPPRESS)
    parent = _Parser(add_help=False)
    parent.add_argument("--root", action="append", default=d([]), metavar="DIR",
                        help="read sessions under DIR (repeatable); replaces the default roots")
    parent.add_argument("--demo", action="store_true", default=d(False), help="use the built-in demo corpus")
    parent.add_argument("--json", action="store_true", default=d(False), help="machine-readable JSON on stdout")
    return parent


def _top_parser(**kwargs: Any) -> argparse.ArgumentParser:
    """The options of `sessionscope` itself, without the commands."""
    p = _Parser(prog="sessionscope", parents=[_shared(True)], **kwargs)
    p.add_argument("--version", action="store_true", help="print the version and exit")
    p.add_argument("--poll", action="store_true",
                   help="the app: poll for changes instead of inotify (network file systems)")
    p.add_argument("--memory-dir", action="append", default=[], metavar="DIR",
                   help="the app: also read memory notes from DIR (repeatable; config: memory_dirs)")
    return p


def _known(argv: Sequence[str]) -> tuple[argparse.Namespace, list[str]] | None:
    """argv's top-level options parsed without the commands' parsers, and what is left (the
    command and its arguments); None when they cannot be parsed (help, an error)."""
    try:
        return _top_parser(add_help=False).parse_known_args(argv)
    except CliError:
        return None


_UNPARSED: Any = object()  # (`known` not given: argv parsed here)


def app_args(argv: Sequence[str], known: tuple[argparse.Namespace, list[str]] | None = _UNPARSED,
             ) -> argparse.Namespace | None:
    """The options of a plain `sessionscope [--root DIR]... [--demo] [--poll]` (the app, or
    `--version`), parsed without building the commands' parsers: those take ~10 ms and several
    modules, all before the app's first frame. None when argv is anything else (a command,
    help, an unknown option, an error): `build_parser()` parses that, as it always did.
    `known`: `_known(argv)`, when parsed already."""
    known = _known(argv) if known is _UNPARSED else known
    if known is None or known[1]:
        return None
    args = known[0]
    args.command = None
    return args


#: each command's module (cli/<module>.py) and the function adding its parser, in the order
#: `sessionscope --help` lists them
PARSERS: dict[str, tuple[str, str]] = {
    "sessions": ("sessions", "add_sessions_parser"),
    "read": ("sessions", "add_read_parser"),
    "search": ("search", "add_search_parser"),
    "index": ("search", "add_index_parser"),
    "recent": ("sessions", "add_recent_parser"),
    "export": ("export", "add_parser"),
    "archive": ("archive", "add_parser"),
    "bookmarks": ("bookmarks", "add_parser"),
    "stats": ("stats", "add_parser"),
    "roots": ("roots", "add_parser"),
    "memory": ("memory", "add_parser"),
    "context": ("brief", "add_parser"),
    "brief": ("brief_app", "add_parser"),
    "watch": ("watch", "add_parser"),
    "mcp": ("mcp", "add_parser"),
    "serve": ("serve", "add_parser"),
}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole command line; with `command` (one of PARSERS), only that command's parser.

    Why: each command's module is imported to add its parser, and some import much (`mcp` the
    MCP SDK and pydantic, `context` the brief pipeline): building them all cost a
    `sessionscope search` more than the search itself. Help, errors and unknown commands get
    the whole parser, as before."""
    common = _shared(False)
    p = _top_parser(
        description="Browse, search and brief from AI coding-agent session history "
        "(Claude Code, Codex CLI, session-logs JSONL). Without a command, opens the app.",
    )
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name, (module, adder) in PARSERS.items():
        if command is None or name == command:
            getattr(importlib.import_module(f"sessionscope.cli.{module}"), adder)(sub, common)
    return p


def command_of(argv: Sequence[str], known: tuple[argparse.Namespace, list[str]] | None = _UNPARSED) -> str | None:
    """The command `argv` runs, when it names one (of PARSERS) after the top-level options;
    None otherwise (help, an error, no command). `known`: `_known(argv)`, when parsed already."""
    known = _known(argv) if known is _UNPARSED else known
    rest = known[1] if known is not None else []
    return rest[0] if rest and rest[0] in PARSERS else None


# -- entry point ------------------------------------------------------------------------------
#: main() runs as the program (its arguments from sys.argv: `sessionscope ...`, `python -m sessionscope`)
_whole_process = False


def main(argv: Sequence[str] | None = None) -> int:
    global _whole_process
    _whole_process = argv is None
    argv = list(sys.argv[1:] if argv is None else argv)
    want_json = "--json" in argv
    # Everything a command prints passes through the sanitiser (core/text.py): transcript text,
    # note bodies and typed arguments alike, on stdout and stderr, whatever prints them.
    from sessionscope.core.text import SafeStream

    streams = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = SafeStream(sys.stdout, json=want_json), SafeStream(sys.stderr)
    try:
        code = _main(argv, want_json)
    finally:
        sys.stdout, sys.stderr = streams
    if _whole_process and _ran in QUICK_EXIT and threading.active_count() == 1:
        _exit_now(code)
    return code


#: the commands whose work is done when they return: what they print is on stdout or stderr, what
#: they write (the catalog, the index) committed, no index writer left open (`search` closes the
#: one it took), nothing to leave to the interpreter's shutdown. `main` ends such a process at
#: once, when no other thread runs, after the functions registered with `atexit`: the shutdown
#: freed every object one by one (~5% of a warm `search`'s instructions) to no end. (An
#: uncommitted SQLite transaction is rolled back either way; a file lock is released by the
#: process's end.)
QUICK_EXIT = frozenset({"sessions", "read", "recent", "search"})
_ran: str | None = None  # the command main() ran


def _exit_now(code: int) -> NoReturn:
    import atexit

    atexit._run_exitfuncs()  # (what was registered to run at exit still runs: weakref finalizers too)
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (BrokenPipeError, ValueError):  # (`| head` left, or the stream closed: nothing to say there)
            pass
    os._exit(code)


def _main(argv: list[str], want_json: bool) -> int:
    try:
        known = _known(argv)  # (the top-level options parsed once: the app's, or to find the command)
        args = app_args(argv, known) or build_parser(command_of(argv, known)).parse_args(argv)
        if args.version:
            from sessionscope import __version__

            print(f"sessionscope {__version__}")
            return 0
        if args.command is None:
            return _run_app(args)
        global _ran
        _ran = args.command
        return COMMANDS[args.command](args)
    except (CliError, CacheError) as exc:
        return fail(str(exc), want_json)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # `sessionscope ... | head`: the reader left; not an error of ours.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except OSError as exc:  # a cache or file in a state we cannot use: one line, not a traceback
        where = f": {exc.filename}" if exc.filename else ""
        return fail(f"{exc.strerror or exc}{where}", want_json)


# -- commands -----------------------------------------------------------------------------
def _command(module: str, function: str = "run") -> Callable[[argparse.Namespace], int]:
    """`function` of cli/<module>.py, imported when the command runs: opening the app, or running
    one command, imports no other command's module."""

    def run(args: argparse.Namespace) -> int:
        command = getattr(importlib.import_module(f"sessionscope.cli.{module}"), function)
        if _whole_process:
            # What is imported by now lives as long as the process: kept out of every garbage
            # collection from here on (each full collection walked it again: ~6% of a whole
            # `read ID`, ~2% of a warm search over 20,000 files; garbage made later is collected
            # as before). Not when main() is called with its arguments (tests, embedding): the
            # caller's objects are not ours to freeze.
            gc.freeze()
        return command(args)

    return run


COMMANDS: dict[str, Callable[[argparse.Namespace], int]] = {
    "sessions": _command("sessions", "cmd_sessions"),
    "read": _command("sessions", "cmd_read"),
    "search": _command("search", "cmd_search"),
    "recent": _command("sessions", "cmd_recent"),
    "roots": _command("roots", "cmd_roots"),
    "index": _command("search", "cmd_index"),
    "watch": _command("watch", "cmd_watch"),
    "memory": _command("memory"),
    "context": _command("brief"),
    "brief": _command("brief_app"),
    "mcp": _command("mcp"),
    "export": _command("export", "cmd_export"),
    "archive": _command("archive", "cmd_archive"),
    "bookmarks": _command("bookmarks", "cmd_bookmarks"),
    "stats": _command("stats", "cmd_stats"),
    "serve": _command("serve"),
}
_run_app = _command("app")  # no command: the app
