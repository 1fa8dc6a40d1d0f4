"""What the usage pictures (core/stats) need of each session, worked out when its file is read:
messages and tokens per quarter hour and model.

Why: a day is a local day, and the zone is the reader's, not the writer's; every zone's offset
from UTC is a whole number of quarter hours, so quarter hours (UTC epoch slots of 15 minutes)
add up to the local days of any zone. Kept in the catalog beside each file's sessions (its own
table, read only by `stats`: the session list never decodes it), so the pictures need no
transcript read again.

A row is `(session_id, slot, model, messages, input, output, cache_read, cache_creation)`:
`slot` is None for what has no time at all, `model` "" for tokens whose model is not known.
Messages are the user's and the assistant's texts on the active branch; tokens are placed where
the agent reported them (a reply, a turn), or, for a format that reports them only for the whole
session, at the session's last time and its model when it used one (else "").
"""
from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Iterable

from ..model import Entry, EntryKind, Role, Session, TokenUsage

if TYPE_CHECKING:
    from ..read.adapters.base import LoadedSession, UsagePart

SLOT_SECONDS = 15 * 60

ActivityRow = tuple[str, "int | None", str, int, int, int, int, int]

_MESSAGE_ROLES = frozenset({Role.USER.value, Role.ASSISTANT.value})


def slot_of(ts: datetime | None) -> int | None:
    """The quarter hour (UTC epoch slot) a time falls in; None for no time."""
    return None if ts is None else int(ts.timestamp()) // SLOT_SECONDS


def is_message(e: Entry) -> bool:
    """A text of the user or the assistant on the active branch, not blank (checked without
    copying the text, which may be long)."""
    return (e.kind is EntryKind.TEXT and e.role in _MESSAGE_ROLES and e.on_active_branch
            and bool(e.text) and not e.text.isspace())


def activity_of(loaded: Iterable[LoadedSession]) -> list[ActivityRow]:
    """The activity rows of a file's loaded sessions."""
    out: list[ActivityRow] = []
    for ls in loaded:
        out.extend(session_activity(ls.session, ls.entries, ls.usage_by_time()))
    return out


def session_activity(s: Session, entries: Iterable[Entry], parts: list[UsagePart],
                     usage: TokenUsage | None = None) -> list[ActivityRow]:
    """One session's rows: its messages by slot, its tokens (`usage`, else the session's) by
    slot and model. The parts are used only when they add up to those tokens (else the total
    is placed as a whole), so the pictures always add up to what the session list shows."""
    usage = s.usage if usage is None else usage
    fallback = s.last_timestamp or s.first_timestamp
    sole = s.models[0] if len(s.models) == 1 else ""
    acc: dict[tuple[int | None, str], list[int]] = {}
    for e in entries:
        if is_message(e):
            key = (slot_of(e.timestamp or fallback), "")
            acc.setdefault(key, [0, 0, 0, 0, 0])[0] += 1
    total = TokenUsage()
    for _, _, u in parts:
        total = total + u
    if total != usage:
        parts = [(None, None, usage)]
    for ts, model, u in parts:
        if not u.total:
            continue
        row = acc.setdefault((slot_of(ts or fallback), model or sole), [0, 0, 0, 0, 0])
        row[1] += u.input
        row[2] += u.output
        row[3] += u.cache_read
        row[4] += u.cache_creation
    return [(s.id, slot, model, *v) for (slot, model), v in acc.items()]  # type: ignore[misc]


def tail_activity(old: Session, new: Session, entries: Iterable[Entry]) -> list[ActivityRow]:
    """The rows to add for lines appended to a session (`old` before them, `new` after): their
    messages, and the tokens the session gained, at its new last time."""
    gained = TokenUsage(*(max(a - b, 0) for a, b in zip(
        (new.usage.input, new.usage.output, new.usage.cache_read, new.usage.cache_creation),
        (old.usage.input, old.usage.output, old.usage.cache_read, old.usage.cache_creation))))
    return session_activity(new, entries, [], gained)
