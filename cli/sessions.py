"""`sessionscope sessions | read | recent`: the session list (full, or `--quick` from each file's
two ends) and a session's entries, as tables or `--json`."""
from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, Any, Sequence

from sessionscope.cli.common import (
    CliError,
    add_mask_secrets,
    bounded,
    cli_roots,
    emit,
    open_library,
    scan_warnings,
    unread_warnings,
    warn,
)

if TYPE_CHECKING:
    from sessionscope.core.catalog.window import Window
    from sessionscope.core.catalog.library import Library
    from sessionscope.core.model import Entry, Session


def add_sessions_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    """The `sessions` command and its options."""
    s = sub.add_parser("sessions", parents=[common], help="list sessions, most recent first")
    s.add_argument("--limit", type=bounded(1, 500), default=50, help="1-500, default 50")
    s.add_argument("--agent", help="only this agent (claude-code, codex, ...)")
    s.add_argument("--project", help="only projects whose path contains this")
    s.add_argument("--all", action="store_true",
                   help="include subagent, compaction and exec sessions (nested under parents)")
    s.add_argument("--quick", action="store_true",
                   help="read only each file's first and last 64 KB, no catalog: no entry counts "
                        "or tokens, children not nested, `unsure` names what the ends do not settle")


def add_read_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    """The `read` command and its options."""
    r = sub.add_parser("read", parents=[common], help="read a session's entries")
    r.add_argument("session_id", metavar="[AGENT:]SESSION_ID[#ENTRY_ID]",
                   help="a session id or unique prefix; #ENTRY_ID starts at that entry; a brief's "
                   "Source ref (AGENT:SESSION_ID#ENTRY_ID) as printed")
    r.add_argument("--limit", type=bounded(1, 1000), default=100, help="1-1000, default 100")
    r.add_argument("--max-chars", type=bounded(20, 4000), default=200,
                   help="truncate each entry's content to this many characters (20-4000, default 200)")
    r.add_argument("--all-branches", action="store_true",
                   help="include entries on abandoned branches (rewinds, edits)")
    add_mask_secrets(r)


def add_recent_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    """The `recent` command and its options."""
    c = sub.add_parser("recent", parents=[common],
                       help="the last entries of a session (default: the most recently active)")
    c.add_argument("session_id", nargs="?", metavar="SESSION_ID")
    c.add_argument("--limit", type=bounded(1, 500), default=10, help="1-500, default 10")
    c.add_argument("--max-chars", type=bounded(20, 4000), default=200,
                   help="truncate each entry's content (20-4000, default 200)")
    add_mask_secrets(c)


def cmd_sessions(args: argparse.Namespace) -> int:
    if args.quick:
        return _sessions_quick(args)
    lib, warnings = open_library(args, lazy=True, early=True)
    warn(warnings, args)
    top, orphans = _top_level(lib, agent=args.agent, project=args.project, orphans=args.all)
    hidden = 0 if args.all else len(orphans)
    rows: list[tuple[int, Session]] = []
    for s in top[: args.limit]:
        rows.append((0, s))
        if args.all:
            rows.extend(_descendants(lib, s, 1))
    if args.json:
        out = []
        for depth, s in rows:
            d = s.to_dict()
            d["depth"] = depth
            d["orphan"] = s.id in orphans
            out.append(d)
        emit({"sessions": out, "hidden": hidden})
        return 0
    _print_sessions(rows, orphans=orphans, prefixes=lib.short_ids(_prefixed(rows)))
    if hidden:
        from collections import Counter

        from sessionscope.core.format import child_runs

        kinds = Counter(k for o in orphans if (k := lib.kind_of(o)) is not None)
        print(f"not listed: {child_runs(kinds)} without a parent here (--all lists them)")
    return 0


def _top_level(lib: Library, *, agent: str | None = None, project: str | None = None,
               orphans: bool = True) -> tuple[Sequence[Session], set[str]]:
    """The sessions a listing starts from (core/logs/contract.py's `top_level`)."""
    from sessionscope.core.logs.contract import top_level

    return top_level(lib, agent=agent, project=project, orphans=orphans)


def _sessions_quick(args: argparse.Namespace) -> int:
    """`sessions --quick`: core/read/listing.py on every candidate file, no full parse, no catalog."""
    from sessionscope.core.format import short_ids
    from sessionscope.core.read.adapters import default_registry
    from sessionscope.core.read.discovery import roots_files
    from sessionscope.core.read.listing import quick_listing
    from sessionscope.core.model import Session, SessionKind

    from sessionscope.core.read.walk import WalkReport

    roots, warnings = cli_roots(args)
    registry = default_registry()
    agent, project = (args.agent or "").lower(), (args.project or "").lower()
    walk = WalkReport()
    every = quick_listing(roots_files([r for r in roots if r.error is None], registry, walk), registry)
    warn(warnings + walk.errors() + walk.notes()
          + unread_warnings([m.error for m in every if m.error and ".zst" in m.path]), args)
    metas = [m for m in every if m.error is None
             and (args.all or m.kind in (None, SessionKind.MAIN))
             and (not agent or agent in ((m.agent or "").lower(), (m.format or "").lower()))
             and project in (m.project or "").lower()]
    metas = sorted(metas, key=lambda m: m.sort_time, reverse=True)[: args.limit]
    if args.json:
        emit({"sessions": [dict(m.to_dict(), depth=0) for m in metas]})
        return 0
    _print_sessions([(0, Session(id=m.session_id or m.path, agent=m.agent or "?",
                                 source_format=m.format or "?", paths=(m.path,),
                                 kind=m.kind or SessionKind.MAIN, project=m.project, title=m.title,
                                 last_timestamp=m.sort_time)) for m in metas], counts=False,
                    prefixes=short_ids([m.session_id or m.path for m in every if m.error is None],
                                       only=[m.session_id or m.path for m in metas]))
    return 0


def _descendants(lib: Library, s: Session, depth: int) -> list[tuple[int, Session]]:
    out: list[tuple[int, Session]] = []
    for cid in s.child_ids:
        child = lib.get(cid)
        if child is not None:
            out.append((depth, child))
            out.extend(_descendants(lib, child, depth + 1))
    return out


def _resolve(lib: Library, ref: str) -> Session:
    from sessionscope.core.catalog.library import LookupFailed

    try:
        return lib.find(ref)
    except LookupFailed as exc:
        raise CliError(str(exc)) from None


def _read_window(lib: Library, session: Session, limit: int, **how: Any) -> Window:
    """The session-logs `window_of` (core/catalog/window.py's `read_window`), its errors a
    CliError."""
    from sessionscope.core.logs.contract import LogsError, window_of

    try:
        return window_of(lib, session, limit, **how)
    except LogsError as exc:
        raise CliError(str(exc)) from None


def _resolve_ref(lib: Library, text: str) -> tuple[Session, str | None]:
    """The session and entry id of a `read` argument: `SESSION-ID[#ENTRY-ID]` (an id or unique
    prefix), or a brief's `Source:` ref as printed, `AGENT:SESSION-ID#ENTRY-ID`, whose agent must
    be the session's."""
    from sessionscope.core.brief.ref import parse_ref

    try:
        ref = parse_ref(text)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    if ref.agent is not None:
        whole = lib.get(f"{ref.agent}:{ref.session_id}")
        if whole is not None:  # a session whose own id holds the colon
            return whole, ref.entry_id
    session = _resolve(lib, ref.session_id)
    if ref.agent is not None and ref.agent != session.agent:
        raise CliError(f"session {session.id} is a {session.agent} session, not {ref.agent}")
    return session, ref.entry_id


def _library_for(args: argparse.Namespace, refs: list[tuple[str, bool]]) -> Library:
    """The library for a command that shows one session: looked up in the catalog by the first
    of `refs` (text, exact) that names one whose files are unchanged (`Library.lookup`: no walk,
    a few files stat'ed), else scanned (lazily) as for a listing. Warnings printed."""
    lib, warnings = open_library(args, scan=False)
    if not any(ref and lib.lookup(ref, exact=exact) is not None for ref, exact in refs):
        warnings += scan_warnings(args, lib.scan(lazy=True), warnings)
    warn(warnings, args)
    return lib


def _refs(text: str) -> list[tuple[str, bool]]:
    """What `_resolve_ref` may look a `read` argument up by: the whole `AGENT:ID` as an id,
    then the id or prefix."""
    from sessionscope.core.brief.ref import parse_ref

    try:
        ref = parse_ref(text)
    except ValueError:
        return []
    whole = [(f"{ref.agent}:{ref.session_id}", True)] if ref.agent is not None else []
    return [*whole, (ref.session_id, False)]


def cmd_read(args: argparse.Namespace) -> int:
    lib = _library_for(args, _refs(args.session_id))
    session, entry_id = _resolve_ref(lib, args.session_id)
    window = _read_window(lib, session, args.limit, entry_id=entry_id or None,
                          all_branches=args.all_branches or bool(entry_id))
    if window.start < 0:
        raise CliError(f"session {session.id} has no entry {entry_id!r}")
    return _print_entries(args, session, window.total, window.entries, window.start)


def cmd_recent(args: argparse.Namespace) -> int:
    from sessionscope.core.logs.contract import ENV_SESSION_VARS, LogsError, current_session

    # (without an id: the caller's session, named by its agent's environment, is looked up so too)
    refs = [args.session_id] if args.session_id else [os.environ.get(v, "") for v in ENV_SESSION_VARS]
    lib = _library_for(args, [(r.strip(), False) for r in refs])
    if args.session_id:
        session = _resolve(lib, args.session_id)
    else:
        # The caller's current session, as the MCP `recent` finds it: the agent's session id in
        # its environment, else the newest main session (or orphan) of this directory's project,
        # else the newest of all.
        try:
            session = current_session(lib)
        except LogsError as exc:
            raise CliError(str(exc)) from None
    # From the end of the file when a whole read of it checked that this gives the same entries
    # (core/catalog/tails.py), else read whole.
    from sessionscope.core.catalog.tails import last_entries

    got = last_entries(lib, session, args.limit)
    if got is None:  # (a big file read thin but for its last lines: core/catalog/window.py)
        window = _read_window(lib, session, args.limit, last=True)
        got = window.entries, window.total
    chosen, total = got
    return _print_entries(args, session, total, chosen, total - len(chosen), recent=True)


def _print_entries(
    args: argparse.Namespace, session: Session, total: int, chosen: list[Entry], start: int,
    *, recent: bool = False,
) -> int:
    """The chosen entries of a session (entries `start`... of its `total`) as a table or JSON."""
    if getattr(args, "mask_secrets", False):  # masked whole, then cut: no part of a secret is left
        from dataclasses import replace

        from sessionscope.core.secrets import mask_data, mask_text

        session = replace(session, title=mask_text(session.title) if session.title else session.title)
        chosen = [replace(e, text=mask_text(e.text), tool_input=mask_data(e.tool_input)) for e in chosen]
    if args.json:
        # The session-logs shapes (core/logs/contract.py); the CLI keeps its extra keys.
        from sessionscope.core.logs.contract import header, read_shape, recent_shape

        if recent:
            emit({**recent_shape(session, chosen, args.max_chars), "header": header(session),
                   "total_entries": total, "start": start, "returned": len(chosen),
                   "truncated": len(chosen) < total})
        else:
            emit({**read_shape(session, total, chosen, args.max_chars, cut_title=False), "start": start})
        return 0
    from sessionscope.core.text import one_line

    out = sys.stdout
    out.write(f"{session.id}  {session.agent}  {one_line(session.project or '-')}\n")
    out.write(f"{one_line(session.title or '(untitled)', 100)}\n")
    out.write(f"entries {start + 1}-{start + len(chosen)} of {total}\n\n")
    for e in chosen:
        ts = e.timestamp.astimezone().strftime("%Y-%m-%d %H:%M:%S") if e.timestamp else "-"
        label = e.role if e.kind.value == "text" else f"{e.role}/{e.kind.value}"
        if e.kind.value == "unknown" and e.raw_type:
            label += f" {e.raw_type}"  # which record it is: the reader shows it so too
        if e.tool_name:
            label += f" {e.tool_name}"
        if e.is_error:
            label += " ERROR"
        out.write(f"[{ts}] {one_line(label)} #{e.id}\n  {one_line(e.text, args.max_chars)}\n")
    return 0


# -- tables ---------------------------------------------------------------------------------
def _prefixed(rows: list[tuple[int, Session]]) -> list[str]:
    """The ids of a sessions table printed as their short prefixes (`_print_sessions`)."""
    return [s.id for depth, s in rows if not depth and "/" not in s.id]


def _print_sessions(rows: list[tuple[int, Session]], counts: bool = True,
                    orphans: set[str] | frozenset[str] = frozenset(), prefixes: dict[str, str] | None = None) -> None:
    """The sessions table. ID, agent and the time and number columns keep their full width;
    TITLE takes what is left: it is cut first (down to 24 characters), then PROJECT (to 8).
    A top-level ID is printed as `prefixes` gives it (core/format.py `short_ids`: the shortest
    prefix, 8 or more characters, that no other id of the sessions the listing is from starts
    with): what is printed pastes into `read`."""
    from sessionscope.core.format import human_tokens, relative_time
    from sessionscope.core.text import one_line, unwrapped

    prefixes = prefixes or {}
    cells: list[tuple[str, ...]] = []
    for depth, s in rows:
        indent = "  " * depth + ("└ " if depth else "")
        project = os.path.basename((s.project or "").rstrip("/")) or "-"
        title = one_line(s.title or "(untitled)", 200)
        if s.kind.value != "main" or s.parent_id is not None:
            missing = s.id in orphans and s.parent_id is not None
            title = f"[{s.kind.value}{', parent not found' if missing else ''}] {title}"
        short = s.id.split("/")[-1][:18] if (depth or "/" in s.id) else prefixes.get(s.id, s.id)
        cells.append((indent + one_line(short), one_line(s.agent, 16), one_line(project, 24),
                      relative_time(s.last_timestamp), str(s.entry_count) if counts else "-",
                      human_tokens(s.usage.total) if counts else "-", title))
    heads = ("ID", "AGENT", "PROJECT", "ACTIVE", "ENTRIES", "TOKENS", "TITLE")
    tty = sys.stdout.isatty() or os.environ.get("COLUMNS", "").isdigit()
    if not tty and PLAIN_TABLE:  # piped (a script, an agent): laid out here as rich would, without importing it
        fits = [max([_cell_len(h)] + [_cell_len(row[i]) for row in cells]) for i, h in enumerate(heads)]
        widths = _session_widths(fits, _PIPED_WIDTH)
        if sum(widths) + 2 * (len(widths) - 1) <= _PIPED_WIDTH:  # (else rich squeezes it further)
            out = unwrapped(sys.stdout)  # (past the sanitiser: the cells went through one_line)
            for row in (heads, *cells):
                out.write("  ".join(_cell(text, width, right=i in (4, 5))
                                    for i, (text, width) in enumerate(zip(row, widths))) + "\n")
            if not rows:
                out.write("no sessions\n")
            return
    from rich.cells import cell_len
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    fits = [max([cell_len(h)] + [cell_len(row[i]) for row in cells]) for i, h in enumerate(heads)]
    # Past the sanitiser (the cells went through one_line): the header's bold is rich's own.
    console = Console(file=unwrapped(sys.stdout), markup=False, highlight=False, emoji=False,
                      width=None if tty else _PIPED_WIDTH)
    widths = _session_widths(fits, console.width)
    table = Table(box=None, pad_edge=False, header_style="bold")
    for head, width in zip(heads, widths):
        table.add_column(head, no_wrap=True, overflow="ellipsis", width=width,
                         justify="right" if head in ("ENTRIES", "TOKENS") else "left")
    for row in cells:
        table.add_row(*(Text(c) for c in row))
    console.print(table)
    if not rows:
        console.print("no sessions")


_PIPED_WIDTH = 160  # the table's width when stdout is no terminal
#: piped output laid out without rich (importing rich's console and table was ~40% of a whole
#: `sessions` at 20,000 files); on a terminal rich draws it (its width, the bold header). A test
#: switches this off to hold the two equal.
PLAIN_TABLE = True
_ONE_CELL = str.maketrans("", "", "…└")  # (one_line's and the table's own marks: one cell each)


def _cell_len(text: str) -> int:
    """The terminal cells `text` takes, as rich counts them (rich imported only for text that is
    not ASCII: an ASCII character of printable text takes one cell)."""
    if text.isascii() or text.translate(_ONE_CELL).isascii():
        return len(text)
    from rich.cells import cell_len

    return cell_len(text)


def _cell(text: str, width: int, right: bool = False) -> str:
    """One cell of the sessions table, as rich draws a no-wrap, ellipsis-overflow cell of this
    width: cut to `width - 1` cells and "…" when longer, padded with spaces on the right (on the
    left when right-justified)."""
    if _cell_len(text) > width:
        if text.isascii() or text.translate(_ONE_CELL).isascii():
            text = text[: max(0, width - 1)] + "…"
        else:
            from rich.cells import set_cell_size

            text = set_cell_size(text, width - 1) + "…"
    pad = " " * (width - _cell_len(text))
    return pad + text if right else text + pad


def _session_widths(fits: list[int], total: int) -> list[int]:
    """Column widths for the sessions table (its columns as in `_print_sessions`): each as wide
    as its widest cell, except that TITLE (the last, down to 24), then PROJECT (index 2, down to
    8), then ID (index 0, down to 14: only the nested children's ids are longer, and they are
    no prefix to look a session up by), then TITLE again (down to 10) give way when the row is
    wider than `total`; the others are never cut."""
    widths = list(fits)
    spare = total - (sum(widths) + 2 * (len(widths) - 1))  # two spaces between columns
    for col, floor in ((-1, 24), (2, 8), (0, 14), (-1, 10)):
        if spare < 0:
            give = min(-spare, max(0, widths[col] - floor))
            widths[col] -= give
            spare += give
    return widths
