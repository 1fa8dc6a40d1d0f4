"""`sessionscope bookmarks [--json]`: the bookmarks and notes kept on entries and sessions, with
`export FILE`, `import FILE`, `add SESSION[#ENTRY] [--note TEXT]` and `remove ID`
(core/bookmarks/)."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sessionscope.cli.common import CliError, emit, open_library, warn

if TYPE_CHECKING:
    from sessionscope.core.bookmarks.anchor import Resolved
    from sessionscope.core.bookmarks.store import BookmarkStore


def add_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    b = sub.add_parser("bookmarks", parents=[common],
                       help="bookmarks and notes on entries and sessions: list, export, import, add, remove")
    actions = b.add_subparsers(dest="action", metavar="ACTION")
    actions.add_parser("list", parents=[common], help="every bookmark, newest first (the default)")
    e = actions.add_parser("export", parents=[common], help="write every bookmark to a JSON file")
    e.add_argument("file", metavar="FILE")
    i = actions.add_parser("import", parents=[common],
                           help="add the bookmarks of an exported JSON file (those kept already are skipped)")
    i.add_argument("file", metavar="FILE")
    a = actions.add_parser("add", parents=[common], help="bookmark a session, or one of its entries")
    a.add_argument("session_id", metavar="[AGENT:]SESSION_ID[#ENTRY_ID]",
                   help="a session id or unique prefix; #ENTRY_ID (as `read` prints it) bookmarks that entry")
    a.add_argument("--entry", metavar="ENTRY_ID", help="the entry to bookmark (as `read` prints its id)")
    a.add_argument("--note", default="", help="a note kept with the bookmark")
    r = actions.add_parser("remove", parents=[common], help="remove a bookmark by the number `bookmarks` lists")
    r.add_argument("bookmark", metavar="ID", type=int)


def _store(args: argparse.Namespace) -> BookmarkStore:
    from sessionscope.core.bookmarks.store import BookmarkStore, store_path

    return BookmarkStore(store_path(demo=bool(getattr(args, "demo", False))))


def cmd_bookmarks(args: argparse.Namespace) -> int:
    from sessionscope.core.bookmarks.store import StoreError
    from sessionscope.core.bookmarks.transfer import TransferError

    action = getattr(args, "action", None) or "list"
    try:
        return {"list": _list, "export": _export, "import": _import, "add": _add, "remove": _remove}[action](args)
    except (StoreError, TransferError) as exc:
        raise CliError(f"bookmarks: {exc}") from None


def _list(args: argparse.Namespace) -> int:
    from sessionscope.core.bookmarks.anchor import resolve

    bookmarks = _store(args).all()
    if not bookmarks:
        if args.json:
            emit({"bookmarks": []})
        else:
            print("no bookmarks yet (m in the app's transcript reader or session list, or `bookmarks add`)")
        return 0
    lib, warnings = open_library(args)
    warn(warnings, args)
    resolved = resolve(lib, bookmarks)
    if args.json:
        emit({"bookmarks": [_item(r) for r in resolved]})
        return 0
    for r in resolved:
        _print(r)
    return 0


def _item(r: Resolved) -> dict[str, Any]:
    b = r.bookmark
    return {"id": b.id, **b.to_dict(), "ref": b.ref, "state": r.state.value, "found": r.found,
            "entry_id_now": r.entry_id, "path_now": r.session.path if r.session else None}


def _print(r: Resolved) -> None:
    from sessionscope.core.format import project_name
    from sessionscope.core.text import one_line

    b = r.bookmark
    when = b.created_at.astimezone().strftime("%Y-%m-%d %H:%M") if b.created_at else "-"
    title = one_line(b.title or "(untitled)", 80)
    print(f"[{b.id}] {when}  {one_line(b.agent, 20)}  {one_line(project_name(b.project) or '-', 30)}  {title}")
    if b.on_entry:
        first = one_line(b.excerpt.strip().splitlines()[0] if b.excerpt.strip() else "(empty)", 100)
        print(f"    {one_line(b.role or '?', 12)}: {first}")
    else:
        print("    the whole session")
    if b.note:
        print(f"    note: {one_line(b.note, 300)}")
    if not r.found:
        saved = " (the text above is what was saved)" if b.on_entry else ""
        why = f": {r.reason}" if r.reason else ""
        print(f"    {r.state.value}{why}{saved}")
    elif r.state.value == "moved":
        print(f"    found again by its text, now entry {one_line(r.entry_id or '', 60)}")
    ref = f"{b.agent}:{b.session_id}" + (f"#{r.entry_id or b.entry_id}" if b.on_entry else "")
    print(f"    sessionscope read {one_line(ref, 200)}")


def _export(args: argparse.Namespace) -> int:
    from sessionscope.cli.common import cli_roots
    from sessionscope.core.bookmarks.transfer import export_file
    from sessionscope.core.export.write import check_outside

    path = Path(args.file).expanduser().absolute()
    try:
        roots = [r.path for r in cli_roots(args)[0]]
    except CliError:  # no history to read here: no agent's folder to keep out of either
        roots = []
    try:
        check_outside(path, roots)
    except ValueError as exc:
        raise CliError(f"bookmarks: {exc}") from None
    n = export_file(_store(args), path)
    if args.json:
        emit({"ok": True, "path": str(path), "bookmarks": n})
    else:
        print(f"wrote {n} bookmark(s) to {path}")
    return 0


def _import(args: argparse.Namespace) -> int:
    from sessionscope.core.bookmarks.transfer import import_file

    path = Path(args.file).expanduser()
    done = import_file(_store(args), path)
    for problem in done.invalid:
        print(f"sessionscope: warning: not imported: {problem}", file=sys.stderr)
    if args.json:
        emit({"ok": True, "path": str(path), "added": done.added, "already": done.already,
              "invalid": len(done.invalid)})
    else:
        invalid = f", {len(done.invalid)} not a bookmark" if done.invalid else ""
        print(f"imported {done.added} bookmark(s) from {path}; {done.already} already kept{invalid}")
    return 0


def _add(args: argparse.Namespace) -> int:
    from sessionscope.cli.sessions import _read_window, _resolve_ref
    from sessionscope.core.bookmarks.anchor import bookmark_of

    lib, warnings = open_library(args)
    warn(warnings, args)
    session, entry_id = _resolve_ref(lib, args.session_id)
    entry_id = args.entry or entry_id
    entry = None
    if entry_id:
        found = _read_window(lib, session, 1, entry_id=entry_id, all_branches=True).entries
        entry = found[0] if found else None
        if entry is None:
            raise CliError(f"session {session.id} has no entry {entry_id!r}")
    kept = _store(args).add(bookmark_of(session, entry, args.note))
    if args.json:
        emit({"ok": True, "id": kept.id, **kept.to_dict()})
    else:
        what = f"entry {entry.id} of session {session.id}" if entry else f"session {session.id}"
        print(f"bookmarked {what} [{kept.id}]")
    return 0


def _remove(args: argparse.Namespace) -> int:
    if not _store(args).remove(args.bookmark):
        raise CliError(f"bookmarks: no bookmark {args.bookmark} (`sessionscope bookmarks` lists them)")
    if args.json:
        emit({"ok": True, "removed": args.bookmark})
    else:
        print(f"removed bookmark {args.bookmark}")
    return 0
