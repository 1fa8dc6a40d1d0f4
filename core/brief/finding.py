"""A finding: its five types, its evidence labels, where it comes from (`Source`, the `agent:session#entry`
ref `parse_ref` reads back) and the `Finding` record the composer, `context` and the brief share.

What the extraction rules give (core/brief/findings.py, core/brief/generators.py) and what the
merging across sessions (core/brief/merge.py) and the scoring (core/brief/compose.py) change."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..model import Locator, iso
from .ref import SourceRef, parse_ref  # noqa: F401 - (where they were first; `read` imports .ref alone)


DECISION = "decision"
CORRECTION = "correction"
FAILED = "failed-approach"
OUTCOME = "outcome"
OPEN = "open-question"
TYPES = (DECISION, CORRECTION, FAILED, OUTCOME, OPEN)
LABELS = {DECISION: "Decision", CORRECTION: "Correction", FAILED: "Failed approach", OUTCOME: "Outcome",
          OPEN: "Open question"}

REPORTED = "reported"
VERIFIED_THEN = "verified then"
CHECKED_NOW = "checked now"
CONFLICTING = "conflicting"
EVIDENCE_LABELS = (REPORTED, VERIFIED_THEN, CHECKED_NOW, CONFLICTING)
_EVIDENCE_RANK = {CONFLICTING: 3, CHECKED_NOW: 2, VERIFIED_THEN: 1, REPORTED: 0}

USER = "user"
AGENT = "agent"

TEXT_CAP = 240  # characters of quoted text in a finding
MAX_PER_MESSAGE = 3
MAX_SENTENCES = 400  # sentences of one message the rules read (a bound for a pathological message)


# -- the data the composer pane shows -----------------------------------------------------------
@dataclass(frozen=True)
class Source:
    """The exact entry a finding comes from. `ref` (`agent:session-id#entry-id`) is what the
    brief prints after `Source: `, what `sessionscope read` opens and what `parse_ref` parses."""

    agent: str
    session_id: str
    entry_id: str
    locator: Locator
    timestamp: datetime | None
    role: str

    @property
    def ref(self) -> str:
        return f"{self.agent}:{self.session_id}#{self.entry_id}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "agent": self.agent,
            "session_id": self.session_id,
            "entry_id": self.entry_id,
            "ref": self.ref,
            "read": f"sessionscope read {self.ref}",
            "timestamp": iso(self.timestamp),
            "role": self.role,
            "locator": {"path": self.locator.path, "offset": self.locator.offset, "line": self.locator.line},
        }


@dataclass(frozen=True)
class Conflict:
    """Another source that disagrees with a finding: shown beside it, never silently dropped."""

    source: Source
    text: str
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.source.to_dict(), "text": self.text, "reason": self.reason}


@dataclass(frozen=True)
class Finding:
    """One candidate finding. Approval and edits are the UI's state, not this object's: an edited
    finding is `dataclasses.replace(f, text=...)`, handed back to `render_brief`; `extracted` keeps
    the words as extracted, so `edited` tells the brief not to quote the new text as theirs.

    Where it comes from: `source` is the entry that states it (a message, or a tool result when
    the fact is only in tool output); `evidence_sources` the other entries that back it, in the
    order a reader would open them, each a `Source` whose `ref` opens with `sessionscope read`;
    `also_from` the same finding in other sessions (merged); `episode` the episode it belongs to
    (`session-id#key`: a failure chain, a message, an issue): a default brief takes at most one
    finding per episode; `generator` the rule that made it ("text" for the sentence rules, else a
    generator's name in core/brief/generators.py). Set when scored for a task: `score`, `terms`,
    `why`; when labelled: `evidence`, `evidence_detail`."""

    id: str
    type: str
    text: str  # the quoted words (masked, one line, literal)
    attribution: str  # "user" | "agent"
    date: datetime | None
    source: Source
    scope: str = ""  # files, branch or project it concerns
    conditions: str = ""  # for failed approaches: under which conditions it failed
    why: str = ""  # why it matters for the task (set when scored)
    evidence: str = REPORTED
    evidence_detail: str = ""
    verified: str = ""  # what tool output backed it then, if anything
    conflicts: tuple[Conflict, ...] = ()
    also_from: tuple[Source, ...] = ()
    supersedes: tuple[Source, ...] = ()
    in_memory: tuple[str, ...] = ()
    score: float = 0.0
    terms: tuple[str, ...] = ()  # task terms it names
    paths: tuple[str, ...] = ()  # files it names (relative to the project when possible)
    symbols: tuple[str, ...] = ()  # identifiers it names
    choice: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())  # (chosen, rejected) words
    extracted: str = ""  # the text as extracted (default: `text`); kept through `replace(f, text=…)`
    evidence_sources: tuple[Source, ...] = ()  # the entries backing it: the failure, diagnosis, fix, rerun
    episode: str = ""  # the episode it comes from (`session#key`): a brief takes at most one per episode
    generator: str = ""  # the rule that found it ("text", "failure-chain", "intervention", ...)

    def __post_init__(self) -> None:
        if not self.extracted:
            object.__setattr__(self, "extracted", self.text)

    @property
    def label(self) -> str:
        return LABELS[self.type]

    @property
    def edited(self) -> bool:
        """The user changed the words: they are no longer what the transcript says."""
        return self.text != self.extracted

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": self.type,
            "label": self.label,
            "text": self.text,
            "edited": self.edited,
            "extracted": self.extracted,
            "why": self.why,
            "attribution": self.attribution,
            "date": iso(self.date),
            "scope": self.scope,
            "conditions": self.conditions,
            "evidence": self.evidence,
            "evidence_detail": self.evidence_detail,
            "source": self.source.to_dict(),
            "conflicts": [c.to_dict() for c in self.conflicts],
            "also_from": [s.to_dict() for s in self.also_from],
            "evidence_sources": [s.to_dict() for s in self.evidence_sources],
            "episode": self.episode,
            "generator": self.generator,
            "supersedes": [s.to_dict() for s in self.supersedes],
            "in_memory": list(self.in_memory),
            "score": round(self.score, 3),
            "terms": list(self.terms),
            "paths": list(self.paths),
            "symbols": list(self.symbols),
        }
