"""Many sessions to a folder: each main session (and each session whose parent is not known) of a
project or a date range in a file of its own, its subagents inline as in a single export, and an
index page (`index.html`, `index.md` or `index.json`) listing them, newest first, with links."""
from __future__ import annotations

import html
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Iterable

from ..format import date_span
from ..model import Session, iso
from ..text import json_escaped, printable
from .document import export_session
from .render import CSP, CSS, escape_md, inert_markdown, render
from .write import check_outside, export_name, write_export

if TYPE_CHECKING:
    from ..catalog.library import Library


@dataclass
class Written:
    session: Session
    file: str  # the file's name in the folder
    title: str
    items: int
    subagents: int


@dataclass
class FolderReport:
    folder: Path
    index: Path | None = None
    written: list[Written] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)  # "ID: why" of sessions that could not be read


def chosen_sessions(library: Library, *, agent: str | None = None, project: str | None = None,
                    since: datetime | None = None, until: datetime | None = None) -> list[Session]:
    """The sessions a folder export takes, most recent first: the main sessions (and those whose
    parent is not known) of `project` and `agent` (as `sessions` filters them) active within
    [since, until): their last entry not before `since`, their first before `until`."""
    from ..catalog.library import is_child

    out = []
    for s in library.sessions(agent=agent, project=project, include_children=True):
        if is_child(s) and s.parent_id is not None and library.get(s.parent_id) is not None:
            continue
        first, last = s.first_timestamp or s.last_timestamp, s.last_timestamp or s.first_timestamp
        if since is not None and (last is None or last < since):
            continue
        if until is not None and (first is None or first >= until):
            continue
        out.append(s)
    return out


def export_folder(library: Library, sessions: Iterable[Session], folder: Path, fmt: str, *,
                  thinking: bool = False, mask: bool = False, all_branches: bool = False) -> FolderReport:
    """Write each session and the index into `folder` (created if missing, never inside a root:
    ValueError). A session that cannot be read is reported in `failed`, the others written."""
    from ..read.jsonl import ReaderError

    roots = [r.path for r in library.roots]
    folder = Path(folder).expanduser()
    _check_folder(folder, roots)
    folder.mkdir(parents=True, exist_ok=True)
    report = FolderReport(folder.resolve())
    used: set[str] = {f"index.{fmt}"}
    for s in sessions:
        try:
            doc = export_session(library, s, thinking=thinking, mask=mask, all_branches=all_branches)
        except (ReaderError, OSError) as exc:
            report.failed.append(f"{s.id}: {exc}")
            continue
        name = _free_name(export_name(s.id, fmt), used)
        write_export(render(doc, fmt), folder / name, roots)
        items, subs = doc.counts()
        report.written.append(Written(s, name, doc.title, items, subs))
    report.index = write_export(render_index(report, fmt), folder / f"index.{fmt}", roots)
    return report


def _check_folder(folder: Path, roots: list[str]) -> None:
    check_outside(folder, roots)
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"{folder} is not a folder")
    if not folder.exists() and not folder.parent.is_dir():
        raise ValueError(f"no such folder: {folder.parent}")


def _free_name(name: str, used: set[str]) -> str:
    stem, dot, ext = name.rpartition(".")
    candidate, n = name, 1
    while candidate in used:
        n += 1
        candidate = f"{stem}-{n}{dot}{ext}"
    used.add(candidate)
    return candidate


def render_index(report: FolderReport, fmt: str) -> str:
    rows = report.written
    if fmt == "json":
        import orjson

        data = {"format": "sessionscope-export-index", "version": 1, "sessions": [
            {"session_id": w.session.id, "file": w.file, "title": w.title, "agent_id": w.session.agent,
             "project": w.session.project, "first_timestamp": iso(w.session.first_timestamp),
             "last_timestamp": iso(w.session.last_timestamp), "items": w.items, "subagents": w.subagents}
            for w in rows], "failed": report.failed}
        return json_escaped(orjson.dumps(data, option=orjson.OPT_INDENT_2).decode()) + "\n"
    if fmt == "md":
        lines = [f"# {len(rows)} exported session(s)", ""]
        for w in rows:
            when = date_span(w.session.first_timestamp, w.session.last_timestamp)
            title = inert_markdown(" ".join(w.title.split())).replace("[", "\\[").replace("]", "\\]")
            lines.append(f"- [{title}](<{w.file}>) · {escape_md(printable(w.session.agent))} · "
                         f"{escape_md(printable(w.session.project or '-'))} · {when} · {w.items} items")
        lines += [f"- not exported: {escape_md(printable(f))}" for f in report.failed]
        return "\n".join(lines) + "\n"
    body = []
    for w in rows:
        s = w.session
        cells = [date_span(s.first_timestamp, s.last_timestamp), s.agent, s.project or "-"]
        body.append("<tr>" + "".join(f"<td>{html.escape(printable(c))}</td>" for c in cells)
                    + f"<td><a href=\"{html.escape(w.file)}\">{html.escape(printable(' '.join(w.title.split())))}</a></td>"
                    + f"<td>{w.items}</td></tr>\n")
    failed = "".join(f"<li>not exported: {html.escape(printable(f))}</li>" for f in report.failed)
    return (f"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">\n"
            f"<title>{len(rows)} exported sessions</title>\n<style>{CSS}"
            "table { border-collapse: collapse; } td, th { text-align: left; padding: .2rem .6rem; "
            "border-bottom: 1px solid #d1d9e0; vertical-align: top; }</style>\n</head>\n<body>\n"
            f"<h1>{len(rows)} exported session(s)</h1>\n<table>\n<tr><th>When</th><th>Agent</th>"
            f"<th>Project</th><th>Session</th><th>Items</th></tr>\n{''.join(body)}</table>\n"
            f"{'<ul>' + failed + '</ul>' if failed else ''}\n</body>\n</html>\n")
