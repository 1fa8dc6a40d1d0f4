"""The composer's draft: which candidate findings are approved, rejected or edited, their types
and order, and the findings the user added from a transcript. Plain data; the finding list
shows it and the composer renders the approved findings with `core.brief.render_brief`.

Why the order is kept per type: the list groups findings by type, and the brief lists the
approved findings in the order the list shows them, so what you see is the brief's order.
Moving a finding swaps it with its neighbour of the same type; changing its type puts it last
in its new group.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from typing import Iterable

from sessionscope.core.brief.finding import AGENT, DECISION, REPORTED, TYPES, USER, Finding, Source
from sessionscope.core.brief.patterns import clean, command_of
from sessionscope.core.model import Entry, Session, SessionKind

UNDECIDED, APPROVED, REJECTED = "undecided", "approved", "rejected"
#: the evidence detail of a finding the user added by hand
OWN_DETAIL = "added by hand from the transcript; unverified against the current state"


@dataclass
class DraftItem:
    """One finding in the draft: the candidate as extracted, and as the user has it now."""

    original: Finding
    finding: Finding  # with the user's type and text
    state: str = UNDECIDED
    own: bool = False  # added by the user, not a candidate

    @property
    def id(self) -> str:
        return self.original.id

    @property
    def edited(self) -> bool:
        return self.finding.text != self.original.text


class Draft:
    """The findings under review, in the user's order."""

    def __init__(self) -> None:
        self.items: list[DraftItem] = []

    # -- reading -----------------------------------------------------------------------------
    def groups(self) -> list[tuple[str, list[DraftItem]]]:
        """(type, its findings in order) for every type that has any, in the brief's type order."""
        out = []
        for t in TYPES:
            members = [i for i in self.items if i.finding.type == t]
            if members:
                out.append((t, members))
        return out

    def ordered(self) -> list[DraftItem]:
        """Every finding in the order the list shows it (grouped by type)."""
        return [i for _, members in self.groups() for i in members]

    def approved(self) -> list[Finding]:
        """The approved findings, edits and type changes applied, in the list's order."""
        return [i.finding for i in self.ordered() if i.state == APPROVED]

    def get(self, item_id: str) -> DraftItem | None:
        return next((i for i in self.items if i.id == item_id), None)

    def counts(self) -> dict[str, int]:
        out = {UNDECIDED: 0, APPROVED: 0, REJECTED: 0}
        for i in self.items:
            out[i.state] += 1
        return out

    # -- changing ----------------------------------------------------------------------------
    def load(self, findings: Iterable[Finding]) -> None:
        """New candidates (the task was searched again). What the user decided is kept: a
        finding found again keeps its state, type and text; an approved or own finding that
        is not found again stays; undecided and rejected ones that are not found again go.
        Findings kept from before stay first, in their order; new candidates follow by rank."""
        fresh = {f.id: f for f in findings}
        kept: list[DraftItem] = []
        for item in self.items:
            new = fresh.pop(item.id, None)
            if new is not None and not item.own:
                kept.append(DraftItem(new, replace(new, type=item.finding.type, text=item.finding.text), item.state))
            elif item.own or item.state == APPROVED:
                kept.append(item)
        self.items = kept + [DraftItem(f, f) for f in fresh.values()]

    def set_state(self, item: DraftItem, state: str) -> None:
        item.state = state

    def set_text(self, item: DraftItem, text: str) -> None:
        """The user's words for the finding (approving it); empty text restores the original."""
        text = " ".join(text.split())
        item.finding = replace(item.finding, text=text or item.original.text)
        item.state = APPROVED

    def cycle_type(self, item: DraftItem, step: int = 1) -> str:
        """The next type (decision -> correction -> failed approach -> outcome -> open question);
        the finding goes last in its new group."""
        new = TYPES[(TYPES.index(item.finding.type) + step) % len(TYPES)]
        item.finding = replace(item.finding, type=new)
        self.items.remove(item)
        self.items.append(item)
        return new

    def move(self, item: DraftItem, step: int) -> bool:
        """Swap with the previous (step -1) or next (+1) finding of the same type."""
        group = [i for i in self.items if i.finding.type == item.finding.type]
        at = group.index(item) + step
        if not 0 <= at < len(group):
            return False
        a, b = self.items.index(item), self.items.index(group[at])
        self.items[a], self.items[b] = self.items[b], self.items[a]
        return True

    def add(self, finding: Finding) -> DraftItem | None:
        """A finding of the user's own, approved; None when one from the same entry is there."""
        if self.get(finding.id) is not None:
            return None
        item = DraftItem(finding, finding, APPROVED, own=True)
        self.items.append(item)
        return item


def entry_text(entry: Entry) -> str:
    """The words an entry gives a finding: its text, or for a tool call its command."""
    return (entry.text or "").strip() or command_of(entry)


def own_finding(session: Session, entry: Entry, type: str = DECISION) -> Finding:
    """A finding made from any transcript entry: quoted literally (masked, one line), attributed
    to whoever wrote it, with the entry as its source and `reported` as its evidence."""
    subagent = session.kind is SessionKind.SUBAGENT or (session.parent_id is not None
                                                        and session.kind is not SessionKind.MAIN)
    who = USER if entry.role == "user" and not subagent else AGENT
    source = Source(session.agent, session.id, entry.id, entry.locator, entry.timestamp, entry.role)
    digest = hashlib.sha1(source.ref.encode()).hexdigest()[:10]
    return Finding(
        id=f"own-{digest}", type=type, text=clean(entry_text(entry)), attribution=who,
        date=entry.timestamp, source=source, evidence=REPORTED, evidence_detail=OWN_DETAIL,
    )
