"""`sessionscope search | index`: full-text search over the index (brought up to date first), and
the index itself: update, rebuild, status, checksum check."""
from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from sessionscope.cli.common import (
    EXIT_USAGE,
    CliError,
    add_mask_secrets,
    bounded,
    caches,
    emit,
    open_index,
    open_library,
    warn,
)

if TYPE_CHECKING:
    from sessionscope.core.catalog.library import Library


def add_search_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    """The `search` command and its options."""
    q = sub.add_parser(
        "search", parents=[common], help="full-text search (see the query language in the README)",
        description="Words (AND), \"phrases\", prefix*, OR, -exclude, filters agent: project: role: "
        "kind: tool: session: branch: since: until: (ISO dates or 12h/7d/2w/1y). A term that is not "
        "a plain word (a path, an identifier fragment) matches as a case-insensitive substring.",
    )
    q.add_argument("query")
    q.add_argument("--limit", type=bounded(1, 500), default=20, help="1-500, default 20")
    q.add_argument("--max-chars", type=bounded(20, 4000), default=200,
                   help="length of each preview (20-4000, default 200)")
    q.add_argument("--sort", choices=("rank", "recent"), default="rank",
                   help="rank: BM25 with recency breaking ties (default); recent: newest first")
    q.add_argument("--group", action="store_true", help="group hits by session")
    add_mask_secrets(q)


def add_index_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    """The `index` command and its options."""
    x = sub.add_parser("index", parents=[common], help="bring the search index up to date")
    x.add_argument("--rebuild", action="store_true", help="drop the index and build it again")
    x.add_argument("--status", action="store_true",
                   help="report what the index holds; change nothing (with --rebuild: rebuild, then report)")
    x.add_argument("--check", action="store_true",
                   help="verify the index's files against their checksums and report; change nothing "
                   "(exit 2 when damaged: `sessionscope index` then rebuilds it)")
    x.add_argument("--wait", type=bounded(0, 3600), default=10, metavar="SECONDS",
                   help="while another sessionscope process is updating the index, wait up to this long "
                   "for it (0-3600, default 10), then exit 2")


def cmd_search(args: argparse.Namespace) -> int:
    from sessionscope.core.search.query import QueryError, parse

    try:
        query = parse(args.query)
    except QueryError as exc:
        raise CliError(f"search: {exc}") from None
    lib, warnings = open_library(args, scan=False, early=True)
    warn(warnings, args)
    lib.prime_warm()  # (before the index's reader starts its thread: see Library.prime_warm)
    index, _ = open_index(args, lib, scan=True)
    from sessionscope.core.text import masking

    with masking(args.mask_secrets):  # previews and snippets cut from the masked text
        result = index.search(query, limit=args.limit, sort=args.sort, max_chars=args.max_chars)
    warn(index.messages, args)  # (damage found while searching: answered from the files)
    index.messages.clear()
    hits = result.hits
    if args.group:
        order: dict[str, list[Any]] = {}
        for h in hits:
            order.setdefault(h.session_id, []).append(h)
        hits = [h for group in order.values() for h in group]
    if args.json:
        out: dict[str, Any] = {"query": args.query, "mode": result.mode}
        if args.group:
            out["sessions"] = [{"session_id": sid, "hits": [h.to_dict() for h in group]}
                               for sid, group in order.items()]
        out["hits"] = [h.to_dict() for h in hits]
        emit(out)
        _rebuild_if_damaged(args, lib, index)
        index.close()
        return 0
    from sessionscope.core.text import one_line

    if not hits:
        print(f"no matches for {one_line(args.query)!r}")
    # Each hit's id as short as the known sessions allow: `ID#ENTRY` pastes into `read`.
    short = lib.short_ids(list(dict.fromkeys(h.session_id for h in hits)))
    last = None
    for h in hits:
        if args.group and h.session_id != last:
            s = lib.get(h.session_id)
            title = (s.title if s else None) or ""
            if args.mask_secrets:
                from sessionscope.core.secrets import masked_line

                shown = masked_line(title, 80)
            else:
                shown = one_line(title, 80)
            print(f"== {short[h.session_id]}  {shown}")
            last = h.session_id
        ts = h.timestamp.astimezone().strftime("%Y-%m-%d %H:%M") if h.timestamp else "-"
        print(f"{ts}  {short[h.session_id]}#{h.entry_id}  {h.role}/{h.kind}\n  {one_line(h.snippet or h.preview)}")
    _rebuild_if_damaged(args, lib, index)
    index.close()  # (a writer it took: its merges finished, their files recorded as checked)
    return 0


def _rebuild_if_damaged(args: argparse.Namespace, lib: Library, index: Any) -> None:
    """After a search the index failed (answered from the files), rebuild it now, so the next
    search is fast again (when another process holds the writer, it is left to that one)."""
    if index.damaged is None:
        return
    sys.stdout.flush()
    report = index.update(lib)
    warn(report.messages, args)
    index.close()


def cmd_index(args: argparse.Namespace) -> int:
    if args.check:
        return _index_check(args)
    caches(args)  # (a cache that cannot be written: the one-line reason, before any warning)
    only_status = args.status and not args.rebuild  # (--rebuild --status: rebuild, then report)
    lib, warnings = open_library(args, scan=only_status)
    warn(warnings, args)
    if only_status:
        from sessionscope.core.search.index import SearchIndex

        status = SearchIndex(caches(args) / "index").status(lib)
        if args.json:
            emit(status)
        else:
            for k, v in status.items():
                print(f"{k:<14} {v}")
        return 0
    index, report = open_index(args, lib, rebuild=args.rebuild, scan=True, wait=args.wait)
    index.close()  # (its merges done and their files checked: the next command reads none again)
    data = {
        "files_indexed": report.files_indexed, "files_appended": report.files_appended,
        "files_dropped": report.files_dropped, "documents_added": report.docs_added,
        "bytes_read": report.bytes_read, "seconds": round(report.seconds, 3),
        **(status := index.status(lib)),
    }
    if args.json:
        emit(data)
    else:
        print(f"indexed {report.files_indexed} new/changed and {report.files_appended} grown file(s), "
              f"dropped {report.files_dropped}; {report.docs_added} documents in {report.seconds:.2f}s; "
              f"{data['documents']} documents in all")
        if args.status:
            for k, v in status.items():
                print(f"{k:<14} {v}")
    return 0


def _index_check(args: argparse.Namespace) -> int:
    """`index --check`: every checksum of the index's files (see core/search/index_check.py)."""
    from sessionscope.core.search import index_check
    from sessionscope.core.search.index import INDEX_VERSION

    directory = caches(args) / "index" / f"tantivy-v{INDEX_VERSION}"
    if not (directory / "meta.json").exists() and not directory.is_dir():
        raise CliError(f"index --check: no index at {directory}; `sessionscope index` builds it")
    result = index_check.check(directory, full=True)
    if result.ok and result.changed:
        index_check.save_verified(directory, result.verified)
    data = {"ok": result.ok, "directory": str(directory), "segments": result.segments, "files": result.files,
            "bytes_checked": result.bytes_read, "problems": result.problems}
    if args.json:
        emit(data)
    elif result.ok:
        print(f"index ok: {result.segments} segment(s), {result.files} file(s), "
              f"{result.bytes_read:,} bytes checked against their checksums ({directory})")
    else:
        for p in result.problems:
            print(f"sessionscope: index damaged: {p}", file=sys.stderr)
        print(f"sessionscope: index --check: {len(result.problems)} problem(s) in {directory}; "
              "`sessionscope index` rebuilds it", file=sys.stderr)
    return 0 if result.ok else EXIT_USAGE
