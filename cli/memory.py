"""`sessionscope memory save | load-last | list`: session notes and agent memory on the command line.

Why a module of its own: the memory commands have a dozen options of their own and the main
CLI only needs two hooks, `add_parser(sub, common)` and `run(args)`. Conventions are cli/common.py's:
errors are `CliError` (one line on stderr, exit 2, `{"ok": false, ...}` with --json), warnings
are `sessionscope: warning: ...` lines on stderr, and no memory file is ever deleted.

Which folders `load-last` and `list` search without `--dir`: `<project>/memory/` and
`<project>/.claude/memory/` for every project path of the library's sessions and for the current
directory; `list` adds the auto-memory and SUMMARY.md of the Claude `projects/` roots, the
projects' instruction files and the user-level ones under the home directory. Both add the
config's `memory_dirs`. The app looks in the same places (`core.memory.memory_places`).
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sessionscope.cli.common import CliError, demo_dir, emit, open_library

if TYPE_CHECKING:
    from sessionscope.core.memory.places import (
        Decision,
        MemoryItem,
        NoteError,
        NoteUpdate,
        SessionNote,
        discover_memory,
        group_by_project,
        load_last,
        memory_places,
        note_from_source,
        project_memory_dirs,
        save_note,
    )

#: the note statuses (core.memory_notes.STATUSES; a test holds them equal). Defined here so that
#: building the command line does not import the memory core (YAML, frontmatter): every
#: `sessionscope` start, the app's included, builds it.
STATUSES = ("in-progress", "paused", "completed")
_CORE = ("Decision", "MemoryItem", "NoteError", "NoteUpdate", "SessionNote", "discover_memory",
         "group_by_project", "load_last", "memory_places", "note_from_source", "project_memory_dirs",
         "save_note")


def _import_core() -> None:
    """Bind the memory core's names in this module, on the first memory command."""
    from sessionscope.core.memory import places as memory

    globals().update({name: getattr(memory, name) for name in _CORE})


def add_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    """Add `memory` and its subcommands to the main parser's subparsers."""
    m = sub.add_parser("memory", parents=[common], help="session memory notes and agent memory files",
                       description="Save and resume session memory notes; list every memory and "
                       "instruction file an agent keeps. Memory files are never deleted.")
    msub = m.add_subparsers(dest="memory_command", metavar="MEMORY_COMMAND", required=True,
                            parser_class=type(m))

    s = msub.add_parser(
        "save", parents=[common], help="write (or update) the note of one session, atomically",
        description="Write {memory dir}/{YYYY-MM-DD-HH-MM}-{project}.md. A note already saved for the "
        "same timestamp is updated: options given replace its fields, list options add to them "
        "(--replace starts from nothing). last_session_at is set to now; an old (1.0) note is "
        "migrated to schema 1.1.",
    )
    s.add_argument("--dir", required=True, metavar="D", help="the memory folder (e.g. ./memory); it must exist")
    s.add_argument("--project", metavar="P", help="project name (file name part); default: the --from note's")
    s.add_argument("--session", metavar="TS",
                   help="session timestamp, YYYY-MM-DD-HH-MM or ISO 8601; default: the --from note's")
    s.add_argument("--from", dest="from_file", metavar="FILE",
                   help="a whole note (frontmatter + body) or a JSON object of fields; '-' reads stdin")
    s.add_argument("--replace", action="store_true",
                   help="do not keep anything of the note already saved for this timestamp")
    s.add_argument("--status", choices=STATUSES)
    s.add_argument("--mode")
    s.add_argument("--last-checkpoint", metavar="CP")
    s.add_argument("--approve", action="append", default=[], metavar="CP", help="approved checkpoint (repeatable)")
    s.add_argument("--decision", action="append", default=[], metavar="CP=OPTION[:NOTE]",
                   help="the option chosen at a checkpoint (repeatable)")
    s.add_argument("--target-dir", metavar="DIR")
    s.add_argument("--summary", help="the '## Session summary' text")
    s.add_argument("--step", action="append", default=[], metavar="STEP", help="a completed step id (repeatable)")
    s.add_argument("--active-state", metavar="TEXT", help="the '## Active state' text")
    s.add_argument("--key-decision", action="append", default=[], metavar="TEXT", help="repeatable")

    ll = msub.add_parser("load-last", parents=[common], help="the newest note of a project, to resume from")
    ll.add_argument("project", metavar="PROJECT")
    ll.add_argument("--dir", action="append", default=[], metavar="D",
                    help="memory folder to search (repeatable); default: the known projects' memory folders")

    li = msub.add_parser("list", parents=[common],
                         help="every memory note and agent memory file, by project, newest first")
    li.add_argument("--dir", action="append", default=[], metavar="D",
                    help="list only these memory folders (repeatable)")


def run(args: argparse.Namespace) -> int:
    _import_core()
    handler = {"save": cmd_save, "load-last": cmd_load_last, "list": cmd_list}[args.memory_command]
    try:
        return handler(args)
    except NoteError as exc:
        raise CliError(str(exc)) from None


def _warn(warnings: list[str]) -> None:
    from sessionscope.core.text import one_line

    for w in warnings:
        print(f"sessionscope: warning: {one_line(w)}", file=sys.stderr)


# -- save ---------------------------------------------------------------------------------------
def cmd_save(args: argparse.Namespace) -> int:
    result = save(args)
    if args.json:
        emit(result.to_dict())
        return 0
    what = "created" if result.created else "updated"
    if result.migrated_from:
        what += f", migrated from schema {result.migrated_from} to 1.1"
    print(f"saved {result.path} ({what})")
    return 0


def save(args: argparse.Namespace, base: Any = None) -> Any:
    """`memory save`'s work (also the MCP tool `memory_save`'s, which gives the `--from` note
    as `base`): the note written, its SaveResult; warnings on stderr."""
    _import_core()
    if base is None and args.from_file:
        base = _read_from(args.from_file)
    project = args.project or (base.project if base else None)
    session = args.session or (base.session if base else None)
    if not project:
        raise CliError("memory save: --project is required (or a project-name in the --from note)")
    if not session:
        raise CliError("memory save: --session is required (or a session in the --from note)")
    update = NoteUpdate(
        mode=args.mode, status=args.status, last_checkpoint=args.last_checkpoint, target_dir=args.target_dir,
        summary=args.summary, active_state=args.active_state, approve=args.approve,
        decisions=dict(_decision(d) for d in args.decision), steps=args.step, key_decisions=args.key_decision,
    )
    from sessionscope.core.config import load_config

    config = load_config()
    _warn(list(config.warnings))
    result = save_note(args.dir, project, session, update, base=base, replace=args.replace,
                       lock_timeout=config.memory_lock_timeout)
    _warn(result.warnings)
    return result


def _decision(text: str) -> tuple[str, Decision]:
    cp, sep, rest = text.partition("=")
    option, _, note = rest.partition(":")
    if not sep or not cp.strip() or not option.strip():
        raise CliError(f"memory save: --decision expects CP=OPTION[:NOTE], got {text!r}")
    return cp.strip(), Decision(option.strip(), note.strip())


def _read_from(source: str) -> SessionNote:
    try:
        text = sys.stdin.read() if source == "-" else Path(source).read_text(encoding="utf-8", errors="replace")
    except OSError as exc:
        raise CliError(f"memory save: cannot read --from {source}: {exc.strerror or exc}") from None
    try:
        return note_from_source(text)
    except NoteError as exc:
        raise CliError(f"memory save: --from {source}: {exc}") from None


# -- searching ----------------------------------------------------------------------------------
def known_places(args: argparse.Namespace) -> tuple[list[str], list[str]]:
    """Project paths (the library's sessions' and the current directory) and Claude `projects/`
    roots. Without history to read this is just the current directory, unless --root was given."""
    projects: list[str] = []
    roots: list[str] = []
    if getattr(args, "demo", False):
        # The demo's projects live at paths that do not exist here (/home/dev/projects/...): their
        # checkouts, memory folders included, are stand-ins inside the demo corpus.
        base = demo_dir()
        workspace = base / "workspace"
        checkouts = sorted(str(p) for p in workspace.iterdir() if p.is_dir()) if workspace.is_dir() else []
        return checkouts, [str(base / "claude" / "projects")]
    try:
        lib, _ = open_library(args)
    except CliError:
        if args.root:
            raise
    else:
        projects = sorted({s.project for s in lib.all_sessions() if s.project})
        roots = [r.path for r in lib.roots if r.error is None]
    return memory_places(projects, roots, os.getcwd())


def _config_dirs() -> list[str]:
    """The config's `memory_dirs` that exist (the app reads them too)."""
    from sessionscope.core.config import load_config

    return [d for d in load_config().memory_dirs if os.path.isdir(d)]


def _check_dirs(dirs: list[str]) -> None:
    for d in dirs:
        if not os.path.isdir(d):
            raise CliError(f"memory directory not found at {d}")


# -- load-last ----------------------------------------------------------------------------------
def cmd_load_last(args: argparse.Namespace) -> int:
    result = load_last_of(args)
    if args.json:
        emit(result.to_dict())
        return 0
    if result.note is None:
        print(result.line)
        return 0
    print(result.line)
    print(result.note.path)
    if result.note.schema_version != "1.1":
        print(f"(schema {result.note.schema_version}: migrated to 1.1 by the next save)")
    print()
    sys.stdout.write((result.content or "").rstrip("\n") + "\n")
    return 0


def load_last_of(args: argparse.Namespace) -> Any:
    """`memory load-last`'s work (also the MCP tool `memory_load_last`'s): the LoadResult;
    warnings on stderr."""
    _import_core()
    if args.dir:
        _check_dirs(args.dir)
        dirs = list(args.dir)
    else:
        projects, _ = known_places(args)
        dirs = [d for p in projects for d in project_memory_dirs(p) if os.path.isdir(d)] + _config_dirs()
    result = load_last(args.project, dict.fromkeys(dirs))
    _warn(result.warnings)
    return result


# -- list ---------------------------------------------------------------------------------------
def cmd_list(args: argparse.Namespace) -> int:
    groups = group_by_project(list_items(args))
    if args.json:
        emit({"count": sum(len(g) for _, g in groups), "projects": [
            {"project": project, "items": [it.to_dict() for it in group]} for project, group in groups
        ]})
        return 0
    _print_groups(groups)
    return 0


def list_items(args: argparse.Namespace) -> list[Any]:
    """`memory list`'s items (also the MCP tool `memory_list`'s)."""
    _import_core()
    if args.dir:
        _check_dirs(args.dir)
        items = discover_memory([], [], memory_dirs=args.dir)
    else:
        if args.demo:  # listed under the demo's project paths, as the app shows them
            from sessionscope.core.demo import demo_memory

            items = demo_memory(demo_dir())
        else:
            projects, roots = known_places(args)
            home = None if args.root else str(Path.home())
            items = discover_memory(projects, roots, memory_dirs=_config_dirs(), home=home)
    return items


def _print_groups(groups: list[tuple[str, list[MemoryItem]]]) -> None:
    from sessionscope.core.text import one_line

    if not groups:
        print("no memory files found")
    for project, group in groups:
        print(one_line(project))
        for it in group:
            ts = it.timestamp.astimezone().strftime("%Y-%m-%d %H:%M") if it.timestamp else "-"
            state = ""
            if it.kind == "session-note":
                state = (it.status or "?") + (f" at {it.last_checkpoint}" if it.last_checkpoint else "")
                if it.schema_version and it.schema_version != "1.1":
                    state += f" (schema {it.schema_version})"
            elif it.topic_type:
                state = it.topic_type
            label = it.name or os.path.basename(it.path)
            print(f"  {ts}  {it.kind:<17}  {one_line(label, 40)}  {one_line(state)}".rstrip())
            print(f"      {one_line(it.path)}")
            if it.summary:
                print(f"      {one_line(it.summary, 120)}")
            for imp in it.imports:
                print(f"      @ {one_line(imp)}")
            for w in it.warnings:
                print(f"      ! {one_line(w, 160)}")
