"""The prior-session brief: retrieval within a budget, candidate findings, evidence, the brief text.

The API the composer pane and `sessionscope context` share:

    result = compose(library, index, Task("make the retry policy per-endpoint"), project="/repo")
    result.status            "found" | "empty" | "unavailable"
    result.findings          [Finding], ranked (see core/brief/findings.py for the dataclass)
    result.usage, .scope     what the budget allowed and what was searched
    render_brief(result, approved_findings) -> Rendered(text, tokens, included, omitted)

Approval and edits are the pane's state: it passes the approved findings (edited ones as
`dataclasses.replace(f, text=...)`) to `render_brief`, which masks secrets again, so an edit can
never bring one back, and says the words are the user's ("edited by the user from what the agent
said: …") instead of quoting them as the transcript's. `render_brief(result)` with no findings
renders every candidate, as `sessionscope context --brief` does (with a header saying nothing
was human-approved).

Evidence labels (one per finding; the strongest that applies, in this order):
  conflicting    two sources disagree (another session, a later message, or the session's own
                 tool output); both are shown
  checked now    sessionscope looked at the current tree: every file the finding names exists
                 (a bare file name may be anywhere in the tree; `file.py::test_x` also needs
                 `test_x` in the file) and every symbol it names in backticks occurs in one of
                 those files, or anywhere in the tree when it names no file
  verified then  tool output in that session backed it (a passing check run, or for a failed
                 approach the failing output), with the date and any commit
  reported       someone said so
Every label but `checked now` is "unverified against the current state", and the detail says so.

Relevance of a finding to the task: the weights of the task terms its text, scope and conditions
contain (issue id 4, file/identifier/hint 3, word 1; a path term also matches by its file name),
stems included ("stale balance" names "stale balances"), then the strength of its evidence (its
evidence entries, a tool run that showed it), whether it is unresolved (open at the end,
conflicting, a failure never fixed), its type and its session's relevance; recency breaks ties.
A finding that names no task term stays a candidate (listed last, for the composer) but is
generic: the default brief leaves it out, and takes at most one finding per episode.

Findings that a memory note already states stay candidates (with `in_memory`) but are not repeated
in the all-candidates brief.

The brief (token budget enforced: findings are added in rank order while the estimate,
ceil(chars/4), stays within it; the Scope line says how many were left out):

    Prior-session brief
    Scope: <sources and date window searched; any access limits>
    - <Type>: <finding and why it affects this task>.
      Evidence: <reported / verified then / checked now / conflicting>.
      Source: <agent:session-id#entry-id>; <finding date>.

`Source` resolves as printed: `sessionscope read AGENT:SESSION-ID#ENTRY-ID` opens that entry, and
`brief_findings.parse_ref` parses it into (agent, session id, entry id) for the app.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace
from functools import lru_cache
from datetime import datetime, timezone
from typing import Any, Iterable, Sequence

from .finding import (
    AGENT,
    CHECKED_NOW,
    CONFLICTING,
    CORRECTION,
    DECISION,
    FAILED,
    OPEN,
    OUTCOME,
    REPORTED,
    VERIFIED_THEN,
    Conflict,
    Finding,
    Source,
    SourceRef,
    parse_ref,
)
from .findings import extract
from .merge import MemoryStatement, cross_conflicts, mark_memory, memory_statements, merge_duplicates
from .patterns import clean
from .retrieval import (
    Budget,
    Candidate,
    Exclusion,
    Retrieval,
    SearchTerm,
    Task,
    estimate_tokens,
    project_root,
    read_candidates,
    retrieve,
)
from ..model import iso
from ..secrets import emails_in, mask_data, mask_text, masked_line
from ..text import one_line
from .tree_check import TreeChecker

FOUND, EMPTY, UNAVAILABLE = "found", "empty", "unavailable"
TOKEN_ESTIMATE = "ceil(characters / 4) of the rendered brief"
WORDS_CAP = 4.0  # the most that plain task words add to a finding's relevance
SESSION_WEIGHT = 2.0  # what the relevance of a finding's session (0-1, relative to the best one) adds
_TYPE_BONUS = {CORRECTION: 1.0, FAILED: 1.0, DECISION: 0.8, OPEN: 0.5, OUTCOME: 0.3}
_UNVERIFIED = "unverified against the current state"


@dataclass
class Usage:
    rounds: list[dict[str, Any]] = field(default_factory=list)
    sessions_read: list[str] = field(default_factory=list)  # one per slot of the budget
    subagents_read: list[str] = field(default_factory=list)  # read along with their sessions
    tokens: int = 0

    def to_dict(self, budget: Budget) -> dict[str, Any]:
        return {
            "limits": budget.to_dict(),
            "rounds_used": len(self.rounds),
            "rounds": self.rounds,
            "sessions_read": len(self.sessions_read),
            "session_ids_read": self.sessions_read,
            "subagent_ids_read": self.subagents_read,
            "tokens_used": self.tokens,
            "token_estimate": TOKEN_ESTIMATE,
        }


@dataclass
class Scope:
    project: str | None
    project_source: str
    agents: list[str]
    roots: list[str]
    sessions_in_scope: int
    since: datetime | None
    until: datetime
    widened: bool
    excluded: list[Exclusion]
    limits: list[str]
    searched: bool = True

    def window(self) -> str:
        if not self.searched:
            return "nothing searched"
        if self.since is None:
            return "all history" + (" (widened from the last 90 days)" if self.widened else "")
        return f"{self.since.date().isoformat()} to {self.until.date().isoformat()}"

    def line(self) -> str:
        agents = " and ".join(self.agents) or "no"
        name = os.path.basename((self.project or "").rstrip("/")) or self.project or "?"
        parts = [f"{agents} sessions of {name} ({self.sessions_in_scope} in scope), {self.window()}"]
        for x in self.excluded[:2]:
            parts.append(f"excluded {short_id(x.session_id)} ({x.reason})")
        parts += self.limits[:2]
        return "; ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return {
            "project": self.project, "project_source": self.project_source, "agents": self.agents,
            "roots": self.roots, "sessions_in_scope": self.sessions_in_scope,
            "window": {"since": iso(self.since), "until": iso(self.until), "widened": self.widened,
                       "searched": self.searched},
            "excluded_sessions": [x.to_dict() for x in self.excluded], "access_limits": self.limits,
        }


@dataclass
class BriefResult:
    status: str
    reason: str
    task: Task
    budget: Budget
    scope: Scope
    usage: Usage
    candidates: list[Candidate] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    terms: list[SearchTerm] = field(default_factory=list)
    # the sessions read and their entries (for the model assist, core/brief/assist.py); not output
    loaded: list[tuple[Any, list[Any]]] = field(default_factory=list, repr=False)

    def to_dict(self) -> dict[str, Any]:
        """Every string masked at this boundary (titles, findings, conflicts, scope, whatever a
        field holds): whatever the extraction left, nothing leaves here unmasked."""
        return mask_data(self._fields(), keep_emails=emails_in(self.task.text))

    def _fields(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "reason": self.reason,
            "task": self.task.to_dict(),
            "terms": [{"text": t.text, "kind": t.kind, "weight": t.weight} for t in self.terms],
            "scope": self.scope.to_dict(),
            "budget": self.usage.to_dict(self.budget),
            "candidates": [c.to_dict() for c in self.candidates],
            "findings": [f.to_dict() for f in self.findings],
        }


@dataclass(frozen=True)
class Rendered:
    text: str
    tokens: int
    included: tuple[str, ...]  # finding ids, in order
    omitted: tuple[str, ...]  # finding ids left out by the token budget


_UUID_HEAD = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-")


def short_id(session_id: str) -> str:
    """A session id as the session list shows it: a UUID's first group (a prefix `sessionscope
    read` resolves), a subagent's own part after its parent's (`c53beebd/agent-a662314`), any
    other id whole."""
    head, sep, tail = session_id.partition("/")
    return (head[:8] if _UUID_HEAD.match(head) else head) + sep + tail


# -- scoring ------------------------------------------------------------------------------------
_STEM_SUFFIX = re.compile(r"(?:ations?|ition|ings?|ers?|ies|ied|ed|es|s|ly|ment|ness)$")


def stem(word: str) -> str:
    """A light English stem for matching inflections: `balances`, `balanced` → `balanc`;
    `caching`, `cached`, `cache` → `cach`. Words of up to four letters stay whole."""
    w = word.lower()
    if len(w) <= 4 or not w.isalpha():
        return w
    s = _STEM_SUFFIX.sub("", w)
    if len(s) < 4:
        return w
    return s[:-1] if s.endswith("e") and len(s) > 4 else s


def _names(t: SearchTerm, hay: str) -> bool:
    if t.pattern().search(hay):
        return True
    stemmed, base = _other_patterns(t.kind, t.text, t.runs)
    if stemmed is not None and stemmed.search(hay):
        return True  # "stale balance" names "stale balances"
    return base is not None and bool(base.search(hay))


@lru_cache(maxsize=1024)
def _other_patterns(kind: str, text: str, runs: tuple[str, ...]) -> tuple[re.Pattern[str] | None, re.Pattern[str] | None]:
    """The stem and base-name patterns `_names` also tries, built once per term (ranking asks for
    them for every candidate)."""
    stemmed = base = None
    if kind == "word" and len(runs) == 1 and runs[0].isalpha() and len(runs[0]) > 4:
        root = stem(runs[0])
        if root != runs[0]:
            stemmed = re.compile(r"(?<![A-Za-z0-9])" + re.escape(root) + r"[a-z]{0,5}(?![A-Za-z0-9])", re.I)
    if kind in ("file", "hint") and "/" in text:
        base = re.compile(r"(?<![\w.-])" + re.escape(os.path.basename(text)) + r"(?![\w-])")
    return stemmed, base


def strength(f: Finding) -> float:
    """How well the session backs a finding, 0-1: its evidence entries, a tool run that showed it."""
    s = min(len(f.evidence_sources), 3) / 3 * 0.6
    if f.evidence in (VERIFIED_THEN, CHECKED_NOW) or f.verified:
        s += 0.4
    return s


def unresolved(f: Finding) -> bool:
    """Open at the session's end, conflicting, or a failure that never passed again."""
    return f.type == OPEN or f.evidence == CONFLICTING or bool(f.conflicts) or (
        f.type == FAILED and "never run again" in f.conditions)


def score(f: Finding, terms: Sequence[SearchTerm], session_relevance: float) -> Finding:
    """Rank of a finding for the task: first its relevance (the weights of the task terms its
    words name, stems included; half weight for what only its scope or conditions name), then
    the strength of its evidence, whether it is unresolved, its type and its session's
    relevance; recency breaks ties (in `build_findings`). A finding naming no task term keeps
    a score below 1 (shown last among the candidates, never in the default brief)."""
    own = f"{f.text} {' '.join(f.paths)} {' '.join(f.symbols)}"
    around = f"{f.scope} {f.conditions}"
    matched: list[SearchTerm] = []
    relevance = 0.0
    words = 0.0  # plain words count up to WORDS_CAP: a long text names many of them by chance
    for t in terms:
        w = t.weight if _names(t, own) else t.weight / 2 if _names(t, around) else 0.0
        if not w:
            continue
        matched.append(t)
        if t.kind == "word":
            words += w
        else:
            relevance += w
    relevance += min(words, WORDS_CAP)
    extra = 0.4 * strength(f) + (0.3 if unresolved(f) else 0.0) + 0.1 * _TYPE_BONUS[f.type] \
        + SESSION_WEIGHT * min(session_relevance, 1.0)
    if not matched:
        return replace(f, score=round(extra / 2, 4), terms=(), why="")
    names = ", ".join(t.text for t in matched[:4])
    why = f"it names {names} from the task"
    return replace(f, score=1.0 + relevance + extra, terms=tuple(t.text for t in matched), why=clean(why, 160))


def label(f: Finding, tree: TreeChecker) -> Finding:
    """The evidence label and its detail (see the module doc for the order)."""
    ok, detail = tree.check(f)
    then = f"verified then ({f.verified})" if f.verified else ""
    if f.evidence == CONFLICTING or f.conflicts:
        others = "; ".join(f"{c.source.ref} ({_date(c.source.timestamp)}) says \"{clean(c.text, 120)}\"" for c in f.conflicts[:2])
        return replace(f, evidence=CONFLICTING, evidence_detail=f"{others}; {_UNVERIFIED}")
    if ok:
        return replace(f, evidence=CHECKED_NOW, evidence_detail="; ".join(x for x in (detail, then) if x))
    extra = f"; {detail}" if detail else ""
    if f.verified:
        return replace(f, evidence=VERIFIED_THEN, evidence_detail=f"{f.verified}; {_UNVERIFIED}{extra}")
    return replace(f, evidence=REPORTED, evidence_detail=f"{_UNVERIFIED}{extra}")


def _date(ts: datetime | None) -> str:
    return ts.astimezone(timezone.utc).date().isoformat() if ts else "undated"


# -- memory -------------------------------------------------------------------------------------
def project_memory(root: str | None, claude_projects_dirs: Iterable[str] = ()) -> list[MemoryStatement]:
    """Statements of the project's memory notes, auto-memory and instruction files."""
    if not root:
        return []
    from ..memory.places import SESSION_NOTE, discover_memory, read_note

    out: list[tuple[str, str]] = []
    try:
        items = discover_memory([root], list(claude_projects_dirs))
    except OSError:
        return []
    for it in items:
        if it.project != root and not it.project.startswith(root.rstrip("/") + "/"):
            continue
        try:
            if it.kind == SESSION_NOTE:
                note = read_note(it.path)
                text = "\n".join([*note.key_decisions, note.summary, note.active_state])
            else:
                with open(it.path, encoding="utf-8", errors="replace") as fh:
                    text = fh.read(200_000)
        except Exception:  # noqa: BLE001 - a damaged memory file only means fewer merges
            continue
        out.append((it.path, text))
    return memory_statements(out)


# -- compose ------------------------------------------------------------------------------------
def compose(
    library: Any,
    searcher: Any,
    task: Task,
    *,
    project: str | None = None,
    budget: Budget = Budget(),
    exclude: Iterable[str] = (),
    env: dict[str, str] | None = None,
    now: datetime | None = None,
    memory: Sequence[MemoryStatement] | None = None,
    unavailable: str | None = None,
) -> BriefResult:
    """Retrieve, read and extract within `budget`; nothing here writes anything.

    `library` needs `sessions(include_children=True)`, `load(session)` and `roots`; `searcher`
    needs `search(Query, limit=, sort=, max_chars=)` (a `SearchIndex`). `unavailable` (a reason)
    short-cuts to the "Session history unavailable" outcome, for callers that could not open the
    history at all. `memory` defaults to the project's memory files."""
    now = now or datetime.now(timezone.utc)
    root, how = project_root(project)
    roots = [r.path for r in getattr(library, "roots", []) if getattr(r, "error", None) is None]
    usage = Usage()
    if unavailable is None and library is not None and not roots and getattr(library, "roots", None) is not None:
        unavailable = "no readable session folders (" + ", ".join(
            f"{r.path}: {r.error}" for r in getattr(library, "roots", [])[:3]) + ")"
    if unavailable is not None or library is None or searcher is None:
        scope = Scope(root, how, [], roots, 0, None, now, False, [], [], searched=False)
        reason = unavailable or ("no session history" if library is None else "no search index")
        return BriefResult(UNAVAILABLE, reason, task, budget, scope, usage)
    r = retrieve(library, searcher, task, root=root, root_source=how, budget=budget, exclude=exclude, env=env, now=now)
    usage.rounds = [x.to_dict() for x in r.rounds]
    read_candidates(library, r, budget)
    usage.sessions_read = [c.session.id for c in r.candidates if c.read]
    usage.subagents_read = [s.id for c in r.candidates if c.read for s in c.subagents]
    errors = getattr(library, "file_errors", {}) or {}
    if errors:
        r.limits.append(f"{len(errors)} transcript file(s) unreadable")
    agents = sorted({s.agent for s in r.in_scope}) or sorted({
        "claude-code" if "claude" in p else "codex" if "codex" in p else "session-logs" for p in roots})
    scope = Scope(root, how, agents, roots, len(r.in_scope), r.since, now, r.widened, r.excluded, r.limits,
                  searched=bool(r.rounds))
    base = BriefResult(EMPTY, "", task, budget, scope, usage, r.candidates, [], r.terms + r.extra_terms, r.loaded)
    if r.candidates and not r.loaded and all(c.error for c in r.candidates if c.read):
        base.status, base.reason = UNAVAILABLE, r.limits[0] if r.limits else "candidate sessions unreadable"
        return base
    if not r.in_scope:
        base.reason = "no sessions of this project"
        return base
    if not r.terms:
        base.reason = "the task has no distinctive terms to search for"
        return base
    findings = build_findings(r, task, root=root, memory=memory if memory is not None else
                              project_memory(root, roots))
    base.findings = findings
    if not relevant(findings):
        base.reason = "no finding in the sessions read names the task's terms" if r.loaded else "no session matched the task"
        return base
    base.status = FOUND
    base.usage.tokens = render_brief(base).tokens
    return base


def build_findings(r: Retrieval, task: Task, *, root: str | None, memory: Sequence[MemoryStatement] = ()) -> list[Finding]:
    top = max((c.relevance for c in r.candidates), default=0.0) or 1.0
    # a session's relevance to the task, relative to the best candidate's (0-1)
    relevance = {s.id: c.relevance / top for c in r.candidates for s in (c.session, *c.subagents)}
    keep = {e.lower() for e in emails_in(task.text)}
    raw: list[Finding] = []
    for session, entries in r.loaded:
        for f in extract(session, entries):
            raw.append(score(f, r.terms + r.extra_terms, relevance.get(session.id, 0.0)))
    findings = merge_duplicates(cross_conflicts(raw))
    findings = mark_memory(findings, memory)
    tree = TreeChecker(root)
    findings = [label(f, tree) for f in findings]
    if keep:  # an address the task itself names is part of the finding: shown
        findings = [replace(f, text=mask_text(f.text, keep_emails=keep), extracted=mask_text(f.extracted, keep_emails=keep))
                    for f in findings]
    findings.sort(key=lambda f: (bool(f.terms), f.score, f.date.timestamp() if f.date else 0.0), reverse=True)
    return findings


def relevant(findings: Sequence[Finding]) -> list[Finding]:
    """The findings a default brief may hold: those naming the task, at most one per episode (the
    best ranked), in rank order."""
    seen: set[str] = set()
    out = []
    for f in findings:
        if not f.terms:
            continue
        key = f.episode or f.id
        if key in seen:
            continue
        seen.add(key)
        out.append(f)
    return out


# -- rendering ----------------------------------------------------------------------------------
HEADER = "Prior-session brief"
UNREVIEWED = "Unreviewed: every candidate finding is listed as extracted; none was approved by a person."


def finding_lines(f: Finding) -> list[str]:
    """The three lines of one finding in the brief (literal, masked, one line each)."""
    who = "the user" if f.attribution != AGENT else "the agent"
    text = mask_text(one_line(f.text))
    said = "reported" if f.type == OUTCOME else "said"
    if f.generator == "model" and not f.edited:  # the model assist's reading: its quote checked, not its type
        body = f"proposed by the model from what {who} {said}: \"{text}\""
    elif f.type == OPEN:
        body = f"open at that session's end{' (edited by the user)' if f.edited else ''}: \"{text}\""
    elif f.edited:  # the user's words now: not quoted as the transcript's
        body = f"edited by the user from what {who} {said}: \"{text}\""
    else:
        body = f"{who} {said} \"{text}\""
    if f.conditions:
        body += f" ({mask_text(one_line(f.conditions))})"
    if f.scope and f.type != FAILED:
        body += f" [scope: {mask_text(one_line(f.scope))}]"
    if f.why:
        body += f"; {mask_text(one_line(f.why))}"
    evidence = f.evidence + (f" ({mask_text(one_line(f.evidence_detail))})" if f.evidence_detail else "")
    return [
        f"- {f.label}: {body.rstrip('.')}.",
        f"  Evidence: {evidence.rstrip('.')}.",
        f"  Source: {f.source.ref}; {_date(f.date)}.",
    ]


def render_brief(result: BriefResult, findings: Sequence[Finding] | None = None, *,
                 tokens: int | None = None) -> Rendered:
    """The brief of `findings` (default: every candidate of `result`), within the token budget."""
    limit = tokens if tokens is not None else result.budget.tokens
    keep = emails_in(result.task.text)
    if result.status == UNAVAILABLE:
        text = f"Session history unavailable: {masked_line(result.reason, keep_emails=keep)}"
        return Rendered(text, estimate_tokens(text), (), ())
    remembered = 0
    if findings is None:  # every candidate naming the task, one per episode, but not what memory notes say
        pool = relevant(result.findings)
        chosen = [f for f in pool if not f.in_memory]
        remembered = len(pool) - len(chosen)
    else:
        chosen = list(findings)
    if not chosen:
        text = mask_text(f"No useful prior-session context found within {_within(result)}", keep_emails=keep)
        return Rendered(text, estimate_tokens(text), (), ())
    scope = mask_text(result.scope.line(), keep_emails=keep)
    if remembered:
        scope += f"; {remembered} finding(s) already in the project's memory notes not repeated"
    # masked here, at the boundary, whatever the finding's fields hold (edits included)
    blocks = [(f.id, mask_text("\n".join(finding_lines(f)), keep_emails=keep)) for f in chosen]
    included: list[tuple[str, str]] = []
    for fid, block in blocks:
        trial = _assemble(scope, [b for _, b in [*included, (fid, block)]], len(blocks) - len(included) - 1)
        if included and estimate_tokens(trial) > limit:
            continue
        included.append((fid, block))
    omitted = tuple(fid for fid, _ in blocks if fid not in {i for i, _ in included})
    text = _assemble(scope, [b for _, b in included], len(omitted))
    return Rendered(text, estimate_tokens(text), tuple(i for i, _ in included), omitted)


def _assemble(scope: str, blocks: list[str], omitted: int) -> str:
    note = f"; {omitted} more finding(s) left out by the token budget" if omitted else ""
    return "\n".join([HEADER, f"Scope: {scope}{note}.", *blocks])


def _within(result: BriefResult) -> str:
    s = result.scope
    name = os.path.basename((s.project or "").rstrip("/")) or s.project or "this project"
    used = result.usage
    why = f" ({result.reason})" if result.reason else ""
    return (f"{s.sessions_in_scope} session(s) of {name}, {s.window()}, {len(used.rounds)} search round(s), "
            f"{len(used.sessions_read)} session(s) read{why}")


__all__ = [
    "BriefResult", "Budget", "Candidate", "Conflict", "EMPTY", "FOUND", "Finding", "HEADER", "MemoryStatement",
    "Rendered", "Scope", "Source", "SourceRef", "Task", "TreeChecker", "UNAVAILABLE", "UNREVIEWED", "Usage", "build_findings",
    "compose", "estimate_tokens", "finding_lines", "label", "parse_ref", "project_memory", "relevant", "render_brief",
    "score", "stem", "strength", "unresolved",
    "short_id",
]
