"""`sessionscope brief "TASK"`: the brief composer as a command; the approved brief goes to stdout.

The app opens on the composer alone. The user approves, rejects, edits and adds findings; when
they close it (escape or q) the app exits and the brief of exactly the approved findings is
printed, so it can be piped: `sessionscope brief "make retries per-endpoint" | pbcopy`. Quitting
with ctrl+q prints nothing and exits 1 (so `&&` chains stop); so does closing before the first
search finished. Nothing is written anywhere else unless the user asks (`w` in the composer).

Drawing while stdout is a pipe: Textual draws on stderr and reads stdin, but asks *stdout* for
the window size (`shutil.get_terminal_size`), so with stdout piped it would draw at 80x24 and
never follow a resize. While the app runs, every standard stream that is not a terminal is
pointed at the terminal (the one stderr or stdin is on, else `/dev/tty`); afterwards they are
put back and the brief is written to the real stdout. Without any terminal the command fails
and says to use `sessionscope context TASK --brief`.

Hooks for cli/main.py: `add_parser(sub, common)` and `run(args)`, as cli/brief.py's.
"""
from __future__ import annotations

import argparse
import os
import sys
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Iterator

from sessionscope.cli.common import CliError, bounded

if TYPE_CHECKING:
    from sessionscope.tui.app import SessionScopeApp


def add_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    b = sub.add_parser(
        "brief", parents=[common],
        help="compose a prior-session brief for TASK in the app; prints the approved brief on exit",
        description="Open the brief composer on TASK: the candidate findings from this project's agent "
        "sessions (within 2 search rounds, 3 sessions read, ~600 tokens), each beside its source entry. "
        "Approve, reject, edit, retype, reorder or add findings; on closing (escape or q) the brief of "
        "the approved findings is printed on stdout (the app itself draws on the terminal, so the "
        "command can be piped). ctrl+q quits without printing (exit 1).",
    )
    b.add_argument("task", nargs="?", default="", metavar="TASK",
                   help="the task, in a sentence (or type it in the composer)")
    b.add_argument("--project", metavar="DIR",
                   help="the project: its git repository (default: the working directory's)")
    b.add_argument("--rounds", type=bounded(1, 10), default=None, help="search rounds (default 2)")
    b.add_argument("--sessions", type=bounded(1, 20), default=None, help="sessions read in full (default 3)")
    b.add_argument("--tokens", type=bounded(100, 20000), default=None, help="brief size in tokens (default 600)")
    b.add_argument("--file", action="append", default=[], metavar="PATH", help="a file the task touches (repeatable)")
    b.add_argument("--symbol", action="append", default=[], metavar="NAME", help="a symbol the task touches (repeatable)")
    b.add_argument("--issue", action="append", default=[], metavar="ID", help="an issue id the task is about (repeatable)")
    b.add_argument("--branch", metavar="NAME", help="the branch being worked on (a hint, never a filter)")
    b.add_argument("--exclude-session", action="append", default=[], metavar="ID",
                   help="leave this session out (repeatable); default: $CLAUDE_CODE_SESSION_ID / $CLAUDE_SESSION_ID / $CODEX_SESSION_ID, "
                   "else the project's session modified in the last minute")
    from sessionscope.cli.brief import add_assist_options

    add_assist_options(b)


def brief_app(args: argparse.Namespace) -> SessionScopeApp:
    """The app over the CLI's roots (as `sessionscope` with no command), opening on the composer
    in exit-with-brief mode: `app.run()` returns the brief, or None."""
    from sessionscope.core.brief.compose import Budget, Task
    from sessionscope.core.brief.assist import DEFAULT_TIMEOUT
    from sessionscope.cli.app import build_app
    from sessionscope.tui.screens.composer import ComposerScreen

    defaults = Budget()
    budget = Budget(
        rounds=args.rounds if args.rounds is not None else defaults.rounds,
        sessions=args.sessions if args.sessions is not None else defaults.sessions,
        tokens=args.tokens if args.tokens is not None else defaults.tokens,
    )
    hints = Task("", tuple(args.file), tuple(args.symbol), tuple(args.issue), args.branch)
    screen = ComposerScreen(args.task, args.project, budget=budget, exclude=args.exclude_session, hints=hints,
                            exit_with_brief=True, project_note="--project" if args.project else "",
                            assist=getattr(args, "assist", None),
                            assist_timeout=getattr(args, "assist_timeout", None) or DEFAULT_TIMEOUT)
    app = build_app(args)
    if args.project and not os.path.isdir(args.project):
        # Not a directory here: only a project some session was recorded in (sessions copied from
        # another machine) is accepted, as `context` does; a typo is refused, not composed over.
        from sessionscope.cli.brief import _check_project

        if app.library.load_cached():  # (a cold catalog cannot tell: the composer will say so)
            _check_project(args.project, app.library, "brief")
    # The composer is the app's only screen (no session list under it): closing it ends the app.
    app.get_default_screen = lambda: screen  # type: ignore[method-assign]
    return app


def run(args: argparse.Namespace) -> int:
    if getattr(args, "json", False):
        raise CliError("brief: the composer has no --json output; 'sessionscope context TASK --json' "
                       "gives the candidate findings")
    app = brief_app(args)
    with on_terminal():
        brief = app.run()
    if not isinstance(brief, str):
        return 1
    sys.stdout.write(brief + "\n")
    sys.stdout.flush()
    return 0


@contextmanager
def on_terminal() -> Iterator[None]:
    """Every standard stream that is not a terminal points at the terminal inside the block
    (see the module docstring for why); the originals are back afterwards."""
    if all(os.isatty(fd) for fd in (0, 1, 2)):
        yield
        return
    sys.stdout.flush()
    sys.stderr.flush()
    tty = _open_terminal()
    saved: dict[int, int] = {}
    try:
        for fd in (0, 1, 2):
            if not os.isatty(fd):
                saved[fd] = os.dup(fd)
                os.dup2(tty, fd)
        yield
    finally:
        sys.stdout.flush()  # what was printed meanwhile belongs to the terminal, not the pipe
        sys.stderr.flush()
        for fd, copy in saved.items():
            os.dup2(copy, fd)
            os.close(copy)
        os.close(tty)


def _open_terminal() -> int:
    """The terminal the other standard streams are on (stderr first: Textual draws there), else
    the controlling terminal."""
    for fd in (2, 0, 1):
        if os.isatty(fd):
            return os.dup(fd)
    try:
        return os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY)
    except OSError:
        raise CliError("brief: no terminal to draw the composer on; in scripts use "
                       "'sessionscope context TASK --brief'") from None
