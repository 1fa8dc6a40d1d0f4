"""A session as export data: the transcript's items in order, each tool call folded with its
result (and its diff, for a file edit), a subagent call with the child session's own items
inline, thinking kept only when asked for, and secrets masked when asked for.

Plain data (dataclasses of strings), so the renderers in render.py need neither the library nor
the reader; and the same rules as the transcript reader (core/read/transcript.py) decide what an
item is, so an export shows what the reader shows.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..model import Entry, Session, iso
from ..read.diffs import DiffLine, diff_of
from ..read.subagents import match_subagent, subagent_children
from ..read.transcript import Display, Transcript, tool_input_text, tool_summary
from ..secrets import mask_data, mask_text

if TYPE_CHECKING:
    from ..catalog.library import Library

MAX_DEPTH = 4  # subagents of subagents, ...: deeper ones are named, not inlined


@dataclass
class Block:
    """One exported item. `kind` is the reader's display kind (message, thinking, tool, result,
    divider, summary, note, raw)."""

    kind: str
    role: str
    entry_id: str
    timestamp: str | None
    text: str = ""
    tool_name: str | None = None
    summary: str = ""  # a tool call's one-line argument (command, file, pattern)
    tool_input: str = ""  # the call's input as read: the command, else indented JSON
    result: str | None = None  # the call's result text (None: no result arrived)
    is_error: bool = False
    diff: list[DiffLine] | None = None
    subagent: ExportedSession | None = None  # the child session a subagent call started
    off_branch: bool = False

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"kind": self.kind, "role": self.role, "entry_id": self.entry_id,
                             "timestamp": self.timestamp, "text": self.text}
        if self.kind == "tool":
            d.update(tool_name=self.tool_name, summary=self.summary, input=self.tool_input,
                     result=self.result, is_error=self.is_error)
            if self.diff is not None:
                d["diff"] = [{"tag": dl.tag, "text": dl.text} for dl in self.diff]
            if self.subagent is not None:
                d["subagent"] = self.subagent.to_dict()
        elif self.is_error:
            d["is_error"] = True
        return d


@dataclass
class ExportedSession:
    session: Session
    title: str
    blocks: list[Block] = field(default_factory=list)
    error: str | None = None  # the session (a subagent's) could not be read

    def to_dict(self) -> dict[str, Any]:
        meta = self.session.to_dict()
        meta["title"] = self.title
        meta.pop("paths", None)
        d: dict[str, Any] = {"session": meta, "items": [b.to_dict() for b in self.blocks]}
        if self.error:
            d["error"] = self.error
        return d

    def counts(self) -> tuple[int, int]:
        """(items, subagent sessions inlined), over the whole tree."""
        items, subs = len(self.blocks), 0
        for b in self.blocks:
            if b.subagent is not None:
                i, s = b.subagent.counts()
                items, subs = items + i, subs + s + 1
        return items, subs


def export_session(library: Library, session: Session, *, thinking: bool = False,
                   mask: bool = False, all_branches: bool = False) -> ExportedSession:
    """`session` as export data (its subagents inline). Raises the reader's errors for the
    session itself (ReaderError, OSError); a subagent that cannot be read is marked instead."""
    return _export(library, session, thinking, mask, all_branches, depth=0, seen=set())


def _export(library: Library, session: Session, thinking: bool, mask: bool, all_branches: bool,
            depth: int, seen: set[str]) -> ExportedSession:
    seen = seen | {session.id}
    loaded = library.load(session)
    transcript = Transcript(session.project)
    transcript.add(loaded.entries)
    children = subagent_children(library, session)
    hide = (lambda s: mask_text(s)) if mask else (lambda s: s)
    out = ExportedSession(session, hide(session.title or session.id))
    for item in transcript.items:
        if item.off_branch and not all_branches:
            continue
        if item.display is Display.THINKING and not thinking:
            continue
        e = item.entry
        block = Block(item.display.value, e.role, e.id, iso(e.timestamp), hide(e.text),
                      is_error=e.is_error, off_branch=item.off_branch)
        if item.display is Display.TOOL:
            shown = _masked_entry(e) if mask else e
            block.tool_name = e.tool_name
            block.summary = tool_summary(shown, session.project)
            block.tool_input = tool_input_text(shown)
            block.result = None if item.result is None else hide(item.result.text)
            block.is_error = item.result is not None and item.result.is_error
            diff = diff_of(shown, session.project)
            block.diff = diff
            if item.is_subagent_call:
                child = match_subagent(item, children)
                if child is not None and child.id not in seen:
                    if depth + 1 > MAX_DEPTH:
                        block.subagent = ExportedSession(child, hide(child.title or child.id),
                                                         error=f"nested deeper than {MAX_DEPTH}: not inlined")
                    else:
                        block.subagent = _child(library, child, thinking, mask, all_branches, depth + 1, seen)
        out.blocks.append(block)
    return out


def _child(library: Library, child: Session, thinking: bool, mask: bool, all_branches: bool,
           depth: int, seen: set[str]) -> ExportedSession:
    from ..read.jsonl import ReaderError

    try:
        return _export(library, child, thinking, mask, all_branches, depth, seen)
    except (ReaderError, OSError) as exc:
        title = mask_text(child.title or child.id) if mask else child.title or child.id
        return ExportedSession(child, title, error=f"could not be read: {exc}")


def _masked_entry(e: Entry) -> Entry:
    from dataclasses import replace

    return replace(e, text=mask_text(e.text), tool_input=mask_data(e.tool_input))
