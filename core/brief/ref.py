"""A brief's `Source:` ref read back (`agent:session-id#entry-id`): a module of its own, so that
`sessionscope read REF` imports this and not the brief's records (finding.py).
"""
from __future__ import annotations

import re
from typing import NamedTuple

from ..text import LazyPattern


class SourceRef(NamedTuple):
    """A `Source:` of a brief, parsed: `agent` is None when the text named no agent, `entry_id`
    None when it named no entry."""

    agent: str | None
    session_id: str
    entry_id: str | None


# what may precede the ref and follow it when a whole `Source:` line is pasted
_REF_LEAD = LazyPattern(r"^\s*(?:Source:\s*)?", re.IGNORECASE)
_REF_TAIL = LazyPattern(r"\s*(?:;\s*(?:\d{4}-\d{2}-\d{2}|undated)\s*)?\.?\s*$")
_REF_AGENT = LazyPattern(r"^([A-Za-z][\w.-]*):(?!//)")


def parse_ref(text: str) -> SourceRef:
    """The (agent, session id, entry id) of a source ref: `agent:session-id#entry-id` as a brief
    prints it after `Source: ` (the rest of that line, `; 2026-11-16.`, may come along), or the
    shorter `session-id#entry-id` and a bare session id or prefix. A session id may hold `/`
    (a subagent's `parent/agent-x`). Raises ValueError on a text that names no session.

    The agent prefix is recognised by its shape (a name, then `:`), so a session whose own id
    looks like `name:rest` parses with that name as its agent: a caller that finds no session
    `rest` of agent `name` should try the whole id (see `sessionscope read`)."""
    body = _REF_TAIL.sub("", _REF_LEAD.sub("", text or "", count=1), count=1)
    head, hash_, entry = body.partition("#")
    agent = None
    m = _REF_AGENT.match(head)
    if m:
        agent, head = m.group(1), head[m.end() :]
    if not head.strip() or any(c.isspace() for c in head) or (hash_ and not entry.strip()):
        raise ValueError(f"not a session reference: {text!r} (expected AGENT:SESSION-ID#ENTRY-ID or SESSION-ID)")
    return SourceRef(agent, head, entry.strip() or None)
