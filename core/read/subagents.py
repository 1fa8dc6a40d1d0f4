"""Which child session a subagent call (Task, Agent, OpenCode's task) started: by the agent id
its result names, else by the child's first prompt or `.meta.json` description, else the soonest
child after the call; decided among all of a transcript's calls at once (`SubagentCalls`).
"""
from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .jsonl import GZIP_MAGIC, ReaderError, RecordFile
from ..model import Entry, Session, SessionKind

if TYPE_CHECKING:
    from ..catalog.library import Library
    from .transcript import Item

_AGENT_ID = re.compile(r"agentId:\s*([A-Za-z0-9_-]+)")
_HEAD_BYTES = 64 * 1024


class SubagentCalls:
    """A transcript's subagent calls, shared by their items: a call's child is decided among all
    of them (a failed call must not shift the others), and the last decision is kept."""

    __slots__ = ("items", "_key", "_links")

    def __init__(self) -> None:
        self.items: list[Item] = []
        self._key: tuple[Any, ...] | None = None
        self._links: dict[int, Session] = {}

    def child_of(self, item: Item, children: list[Session]) -> Session | None:
        key = (id(children), len(children), tuple((id(c.entry), id(c.result)) for c in self.items))
        if key != self._key:
            self._links, self._key = link_subagents(self.items, children), key
        return self._links.get(id(item))


def subagent_children(library: Library, session: Session) -> list[Session]:
    """The sessions a transcript's Task/Agent calls started, oldest first."""
    kids = [s for s in library.all_sessions() if s.parent_id == session.id
            and s.kind in (SessionKind.SUBAGENT, SessionKind.MAIN)]
    return sorted(kids, key=lambda s: (s.first_timestamp is None, s.first_timestamp or 0, s.id))


def match_subagent(item: Item, children: list[Session]) -> Session | None:
    """The child session a subagent call started (see `link_subagents`)."""
    if not item.is_subagent_call or not children:
        return None
    if item.subagent_group is not None:
        return item.subagent_group.child_of(item, children)
    return link_subagents([item], children).get(id(item))


def link_subagents(calls: list[Item], children: list[Session]) -> dict[int, Session]:
    """Which child session each subagent call started, keyed by `id(item)`.

    Evidence first, strongest first: the agent id the call's result names (or the call's id in
    the child's); then content: the child's first prompt equals or starts with the call's
    `prompt` (read from the child's own file, else its title), or its `.meta.json` description is
    the call's; when several children fit, the one starting soonest after the call. Only the calls
    and children left over are then paired by order, skipping failed calls: a call that failed
    (bad input, refused) started no transcript, and must not take the next call's."""
    links: dict[int, Session] = {}
    taken: set[str] = set()
    free = list(children)

    def take(item: Item, child: Session) -> None:
        links[id(item)] = child
        taken.add(child.id)

    for item in calls:
        child = _by_agent_id(item, [c for c in free if c.id not in taken])
        if child is not None:
            take(item, child)
    keys: dict[str, _ChildKeys] = {}
    for item in calls:
        if id(item) in links:
            continue
        prompt, description = _call_texts(item.entry)
        if prompt is None and description is None:
            continue
        fits = []
        for child in free:
            if child.id in taken:
                continue
            ck = keys.get(child.id)
            if ck is None:
                ck = keys[child.id] = _child_keys(child)
            if ck.fits(prompt, description):
                fits.append(child)
        if fits:
            take(item, _soonest_after(item.entry, fits))
    rest = [c for c in free if c.id not in taken]
    waiting = [i for i in calls if id(i) not in links
               and not (i.result is not None and i.result.is_error)]
    for item, child in zip(waiting, rest):
        take(item, child)
    return links


def _by_agent_id(item: Item, children: list[Session]) -> Session | None:
    if item.result is not None:
        found = _AGENT_ID.search(item.result.text)
        if found:
            suffix = f"agent-{found.group(1)}"
            for child in children:
                if child.id.endswith("/" + suffix) or child.id == suffix:
                    return child
    if item.entry.tool_use_id:
        for child in children:
            if item.entry.tool_use_id in child.id:
                return child
    return None


def _norm(text: str) -> str:
    return " ".join(text.split())


def _call_texts(entry: Entry) -> tuple[str | None, str | None]:
    """A subagent call's `prompt` and `description` inputs, whitespace-normalised."""
    inp = entry.tool_input if isinstance(entry.tool_input, dict) else {}
    prompt, description = inp.get("prompt"), inp.get("description")
    prompt = _norm(prompt) if isinstance(prompt, str) and prompt.strip() else None
    description = _norm(description) if isinstance(description, str) and description.strip() else None
    return prompt, description


@dataclass(frozen=True, slots=True)
class _ChildKeys:
    """What a child session says about the call that started it."""

    prompt: str | None  # its first prompt, whole, from its own file
    title: str | None  # its title: the first prompt, possibly cut ("…") and typed ("Explore: …")
    description: str | None  # from its .meta.json

    def fits(self, prompt: str | None, description: str | None) -> bool:
        if prompt is not None:
            if self.prompt is not None and self.prompt.startswith(prompt):
                return True
            if self.prompt is None and self.title and _title_fits(self.title, prompt):
                return True
        return description is not None and self.description == description


def _title_fits(title: str, prompt: str) -> bool:
    candidates = [title]
    head, sep, tail = title.partition(": ")
    if sep and head and " " not in head:  # "<agentType>: <prompt>"
        candidates.append(tail)
    for text in candidates:
        if text.endswith("…"):
            stem = text[:-1].rstrip()
            if len(stem) >= 16 and prompt.startswith(stem):
                return True
        elif text == prompt:
            return True
    return False


def _child_keys(child: Session) -> _ChildKeys:
    if "/sidechain-" in child.id:  # inline: its file is the parent's
        prompt, description = None, None
    else:
        prompt, description = _agent_file_keys(child.path, child.size)
    return _ChildKeys(prompt, _norm(child.title) if child.title else None, description)


@functools.lru_cache(maxsize=1024)
def _agent_file_keys(path: str, size: int) -> tuple[str | None, str | None]:
    """(first prompt, .meta.json description) of a subagent's own file. A file whose first user
    record is not a sidechain's (an inline sidechain's parent file) gives no prompt."""
    prompt = description = None
    try:
        with open(path, "rb") as fh:
            head = fh.read(_HEAD_BYTES)
        if head[:2] == GZIP_MAGIC:  # an archived compressed copy
            with RecordFile(path) as rf:
                head = bytes(rf.buffer[:_HEAD_BYTES])
    except (OSError, ReaderError):
        head = b""
    for line in head.split(b"\n"):
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if not isinstance(rec, dict) or rec.get("type") != "user":
            continue
        if rec.get("isSidechain") is True:
            prompt = _prompt_of(rec.get("message"))
        break
    if path.endswith(".jsonl"):
        try:
            with open(path[: -len(".jsonl")] + ".meta.json", "rb") as fh:
                meta = json.loads(fh.read(_HEAD_BYTES))
            if isinstance(meta, dict) and isinstance(meta.get("description"), str):
                description = _norm(meta["description"]) or None
        except (OSError, ValueError):
            pass
    return prompt, description


def _prompt_of(message: Any) -> str | None:
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, list):
        content = "\n".join(b["text"] for b in content
                            if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str))
    return (_norm(content) or None) if isinstance(content, str) else None


def _soonest_after(call: Entry, children: list[Session]) -> Session:
    """Of children fitting one call, the first to start at or after it (else the first)."""
    if call.timestamp is not None:
        for child in children:  # oldest first
            if child.first_timestamp is not None and child.first_timestamp >= call.timestamp:
                return child
    return children[0]
