"""Retrieval for a prior-session brief: which sessions to read, within a budget that is shown.

Scope. The project is the git repository of the working directory: the nearest ancestor holding
`.git` (a directory or a worktree's file); without one, the directory itself. A session is in
scope when its project path equals that root or lies inside it. Compaction and warm-up runs are
left out (they restate their parent). Branch names are hints (they raise a session's relevance),
never filters.

The session the brief is made in is excluded, found in this order:
  1. `--exclude-session ID` (repeatable; an id or unique prefix), and the `CLAUDE_SESSION_ID` /
     `CODEX_SESSION_ID` environment variables when set;
  2. otherwise the project's most recent session when its file was modified in the last 60
     seconds (an agent writing its transcript right now is the one asking).
Children of an excluded session (its subagents) are excluded with it.

Budget (each limit changes only when given explicitly): at most 2 search rounds, 3 sessions read
in full, a brief of about 600 tokens. Tokens are estimated as ceil(characters / 4) of the rendered
brief (a common rule of thumb for English and code; it undercounts CJK text).

A round is one query. Its terms are the task's distinctive words, most distinctive first: issue
ids (#123, ABC-45), file names and paths, identifiers (snake_case, camelCase, dotted names), then
other words without stop words and generic verbs (add, fix, make, update, implement, …), at most
8; hint files, symbols and issue ids given with the task come first. The terms are ORed, so BM25
ranks the entries that hold the most (and rarest) of them first. Round 1 searches the last 90
days (no age limit when the task names an issue id: an old mention of an issue is still that
issue); round 2 runs only when round 1 found fewer candidate sessions than may be read and some session
in scope is older than the window, and widens once: the same terms plus the less distinctive ones, with no age limit.

Candidates. A subagent's hits count for the session that started it (its outermost ancestor in
scope): the two are one candidate, read together in one slot of the budget, so a subagent never
takes a slot of its own while other sessions go unread. The subagent sessions read with a
candidate are those whose entries matched (their findings keep their own sources); a child whose
parent is not in scope (an orphan) is a candidate of its own.

Ranking. Each candidate's relevance is the sum of the weights of the distinct terms its hits
(its subagents' included) contain (issue id 4, file 3, identifier 3, hint 3, word 1), plus 1 when
its branch name holds a task word or the given branch; ties go to the more recent session. The
strongest candidates, up to the budget, are read in full (every entry, so later corrections in
them are seen).
"""
from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass, field
from functools import lru_cache
from datetime import datetime, timedelta, timezone
from typing import Any, Callable, Iterable, Protocol, Sequence

from ..catalog.library import is_child, recency
from ..config import AGENT_SESSION_VARS
from ..model import Entry, Session, SessionKind, iso
from ..search.query import Query, Term

WINDOW_DAYS = 90
LIVE_SECONDS = 60
MAX_TERMS = 8
HITS_PER_ROUND = 200
ENV_SESSION_VARS = AGENT_SESSION_VARS


def estimate_tokens(text: str) -> int:
    """ceil(len(text) / 4): the brief's token estimate (characters, not bytes)."""
    return (len(text) + 3) // 4


@dataclass(frozen=True)
class Budget:
    rounds: int = 2
    sessions: int = 3
    tokens: int = 600
    window_days: int = WINDOW_DAYS

    def to_dict(self) -> dict[str, int]:
        return {"rounds": self.rounds, "sessions": self.sessions, "tokens": self.tokens,
                "window_days": self.window_days}


@dataclass(frozen=True)
class Task:
    """What the brief is for: a sentence, plus optional hints."""

    text: str
    files: tuple[str, ...] = ()
    symbols: tuple[str, ...] = ()
    issues: tuple[str, ...] = ()
    branch: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "files": list(self.files), "symbols": list(self.symbols),
                "issues": list(self.issues), "branch": self.branch}


@dataclass(frozen=True)
class SearchTerm:
    text: str  # as written in the task
    kind: str  # issue | file | identifier | hint | word
    weight: float
    runs: tuple[str, ...]  # lower-case alphanumeric runs (what the index tokenizes)

    def query_term(self) -> Term:
        if len(self.runs) == 1:
            return Term(self.runs[0], "word")
        return Term(" ".join(self.runs), "phrase")

    def pattern(self) -> re.Pattern[str]:
        return _term_pattern(self.kind, self.text, self.runs)


@lru_cache(maxsize=1024)
def _term_pattern(kind: str, text: str, runs: tuple[str, ...]) -> re.Pattern[str]:
    """A task term's pattern, built once: ranking asks for it for every candidate and hit preview,
    and `re`'s own cache costs a key build and lookup each time (a tenth of a `context` call)."""
    if kind == "issue" and text.startswith("#"):
        return re.compile(r"(?<![\w#])#" + re.escape(runs[0]) + r"\b")
    # ASCII boundaries only: "toolchain不用保留吧" names `toolchain` (CJK text has no spaces)
    return re.compile(r"(?<![A-Za-z0-9])" + r"[\W_]*".join(re.escape(r) for r in runs) + r"(?![A-Za-z0-9])", re.I)


_ISSUE = re.compile(r"(?<![\w#])#\d+\b|\b[A-Z][A-Z0-9]{1,9}-\d+\b")
_FILEISH = re.compile(r"^[\w./@~-]*[\w-]\.[A-Za-z]{1,6}$|/")
_IDENTISH = re.compile(r"[a-z][A-Z]|_|\.\w|\w::\w|\d[A-Za-z]|[A-Za-z]\d|\(\)$")
_RUN = re.compile(r"[^\W_]+")
_TOKEN = re.compile(r"[#\w][\w./:@#()-]*[\w)]|[#\w]")

GENERIC = frozenset("""
add adds added adding fix fixes fixed fixing make makes making update updates updated updating implement implements
implemented implementing change changes changed changing use uses using write writes writing create creates creating
check checks checking improve improves improving refactor refactors refactoring remove removes removing delete deletes
support supports handle handles handling get gets set sets run runs running need needs want wants try tries help
look find show see work works working do does done thing things stuff way ways code file files function functions
bug bugs issue issues feature features problem problems task tasks please able sure also new better good bad properly
correctly correct right wrong again everything something anything nothing all some any each every its it this that
these those there here them they when where what which why how who whom whose while with without within into onto
from for and the a an to of in on at by or but if then so as is are was were be been being can could should would will
shall may might must let lets our we you your my me i he she his her their not no yes now still yet just only more
most less very too really about after before over under up down out off again further once same other another such
own than both either neither into per via like also already currently current make sure ensure start stop keep
""".split())


def task_terms(task: Task, limit: int = MAX_TERMS) -> tuple[list[SearchTerm], list[SearchTerm]]:
    """(distinctive terms for round 1, the rest), most distinctive first, deduplicated."""
    seen: set[tuple[str, ...]] = set()
    strong: list[SearchTerm] = []
    words: list[SearchTerm] = []

    def add(text: str, kind: str, weight: float, into: list[SearchTerm]) -> None:
        runs = tuple(r.lower() for r in _RUN.findall(text))
        if not runs or runs in seen:
            return
        seen.add(runs)
        into.append(SearchTerm(text, kind, weight, runs))

    for i in task.issues:
        add(i if _ISSUE.fullmatch(i) or not i.isdigit() else f"#{i}", "issue", 4, strong)
    for f in task.files:
        add(f, "hint", 3, strong)
    for s in task.symbols:
        add(s, "hint", 3, strong)
    text = task.text
    for m in _ISSUE.finditer(text):
        add(m.group(0), "issue", 4, strong)
    text = _ISSUE.sub(" ", text)
    tokens = [t.strip(".,;:()'\"`") for t in _TOKEN.findall(text.replace("`", " "))]
    for tok in tokens:
        if not tok:
            continue
        if _FILEISH.search(tok) and not tok.endswith((".", ":")) and not re.fullmatch(r"[\d.]+", tok):
            add(tok, "file", 3, strong)
        elif _IDENTISH.search(tok) and not tok.isdigit():
            add(tok, "identifier", 3, strong)
    for tok in tokens:
        low = tok.lower()
        if not tok or _FILEISH.search(tok) or _IDENTISH.search(tok):
            continue
        if low in GENERIC or len(low) < 3 or low.isdigit():
            continue
        add(tok, "word", 1, words)
    words.sort(key=lambda t: -len(t.text))  # longer words are usually the rarer ones
    ordered = strong + words
    return ordered[:limit], ordered[limit:]


# -- scope ---------------------------------------------------------------------------------------
def find_git_root(path: str) -> str | None:
    """The nearest ancestor of `path` (itself included) that holds `.git`."""
    p = os.path.abspath(path)
    while True:
        if os.path.exists(os.path.join(p, ".git")):
            return p
        parent = os.path.dirname(p)
        if parent == p:
            return None
        p = parent


def project_root(directory: str | None = None) -> tuple[str, str]:
    """(root, how it was found) for `directory` (default: the working directory). A directory that
    is not on this machine (a project known only from its sessions) is taken as it is."""
    d = os.path.abspath(directory or os.getcwd())
    if not os.path.isdir(d):
        return d, "project path (not on this machine: nothing can be checked now)"
    root = find_git_root(d)
    if root:
        return root, "git repository" if root == d else f"git repository of {d}"
    return d, "directory (no git repository)"


def inside(path: str | None, root: str) -> bool:
    if not path:
        return False
    p = os.path.normpath(path)
    r = os.path.normpath(root)
    return p == r or p.startswith(r.rstrip(os.sep) + os.sep)


class SessionSource(Protocol):
    def sessions(self, *, agent: str | None = ..., project: str | None = ..., include_children: bool = ...) -> list[Session]: ...
    def get(self, session_id: str) -> Session | None: ...
    def load(self, session: Session) -> Any: ...


class Searcher(Protocol):
    def search(self, query: Query, *, limit: int = ..., sort: str = ..., max_chars: int = ...) -> Any: ...


@dataclass(frozen=True)
class Exclusion:
    session_id: str
    reason: str

    def to_dict(self) -> dict[str, str]:
        return {"session_id": self.session_id, "reason": self.reason}


def in_scope(library: SessionSource, root: str) -> list[Session]:
    """Sessions whose project is the root or inside it, most recent first (children included,
    compaction and warm-up runs not)."""
    return [s for s in library.sessions(include_children=True)
            if inside(s.project, root) and s.kind not in (SessionKind.COMPACTION, SessionKind.WARMUP)]


def exclusions(sessions: Sequence[Session], explicit: Iterable[str], env: dict[str, str] | None = None,
               now: float | None = None) -> list[Exclusion]:
    """The sessions to leave out as the one the brief is being made in (see the module doc)."""
    env = dict(os.environ) if env is None else env
    out: list[Exclusion] = []
    wanted = [(x, "--exclude-session") for x in explicit if x]
    wanted += [(env[v], v) for v in ENV_SESSION_VARS if env.get(v)]
    for ref, why in wanted:
        for s in sessions:
            if s.id == ref or s.id.startswith(ref):
                out.append(Exclusion(s.id, why))
    if wanted:
        return _with_children(sessions, out)
    mains = [s for s in sessions if not is_child(s)]
    if mains:
        newest = max(mains, key=recency)
        try:
            age = (now if now is not None else time.time()) - os.stat(newest.path).st_mtime
        except OSError:
            age = None
        if age is not None and age <= LIVE_SECONDS:
            out.append(Exclusion(newest.id, f"live: its file was modified {max(0, int(age))} s ago"))
    return _with_children(sessions, out)


def _with_children(sessions: Sequence[Session], out: list[Exclusion]) -> list[Exclusion]:
    ids = {x.session_id for x in out}
    for s in sessions:
        if s.id not in ids and (s.parent_id in ids or any(s.id.startswith(i + "/") for i in ids)):
            out.append(Exclusion(s.id, f"child of excluded session {_parent_id(s) or s.id}"))
            ids.add(s.id)
    return out


# -- rounds --------------------------------------------------------------------------------------
@dataclass
class Round:
    query: str
    since: datetime | None
    hits: int  # hits in scope
    sessions: int  # distinct in-scope sessions among them

    def to_dict(self) -> dict[str, Any]:
        return {"query": self.query, "since": iso(self.since), "hits_in_scope": self.hits, "sessions": self.sessions}


@dataclass
class Candidate:
    """A session to read: a main session (or an orphan child) with the subagent sessions under it
    whose entries matched, read together in one slot of the budget."""

    session: Session
    relevance: float
    matched: list[str] = field(default_factory=list)
    hits: list[Any] = field(default_factory=list)
    read: bool = False
    error: str | None = None
    subagents: list[Session] = field(default_factory=list)  # children with hits, read along with it

    def to_dict(self, mask: Callable[[str], str] = lambda s: s) -> dict[str, Any]:
        s = self.session
        return {"session_id": s.id, "agent": s.agent, "project": s.project, "branch": s.git_branch,
                "title": mask(s.title or ""), "last_timestamp": iso(s.last_timestamp),
                "relevance": round(self.relevance, 3), "matched_terms": self.matched, "hits": len(self.hits),
                "read": self.read, "error": self.error, "subagent_ids": [c.id for c in self.subagents]}


@dataclass
class Retrieval:
    root: str
    root_source: str
    terms: list[SearchTerm]
    extra_terms: list[SearchTerm]
    in_scope: list[Session]
    excluded: list[Exclusion]
    rounds: list[Round] = field(default_factory=list)
    candidates: list[Candidate] = field(default_factory=list)
    loaded: list[tuple[Session, list[Entry]]] = field(default_factory=list)
    limits: list[str] = field(default_factory=list)  # access limits met
    since: datetime | None = None  # the narrowest window searched last (None: no age limit)
    widened: bool = False


def _query(terms: Sequence[SearchTerm], since: datetime | None, root: str) -> Query:
    q = Query(must=[[t.query_term() for t in terms]], since=since)
    q.filters["project"] = [root]
    text = " OR ".join(t.query_term().text if t.query_term().kind == "word" else f'"{t.query_term().text}"'
                       for t in terms)
    q.source = f"({text}) project:{root}" + (f" since:{since.date().isoformat()}" if since else "")
    return q


def known_terms(searcher: Any, terms: Sequence[SearchTerm]) -> list[SearchTerm]:
    """Terms the index holds every word of (a word no document holds would turn the OR query into
    a substring scan that needs every term). Searchers without a vocabulary keep all terms."""
    index = getattr(searcher, "index", None)
    if index is None or not hasattr(index, "searcher"):
        return list(terms)
    s = index.searcher()
    return [t for t in terms if all(s.doc_freq("text", r) > 0 for r in t.runs)]


def retrieve(
    library: SessionSource,
    searcher: Searcher,
    task: Task,
    *,
    root: str,
    root_source: str = "",
    budget: Budget = Budget(),
    exclude: Iterable[str] = (),
    env: dict[str, str] | None = None,
    now: datetime | None = None,
) -> Retrieval:
    now = now or datetime.now(timezone.utc)
    terms, extra = task_terms(task)
    scope = in_scope(library, root)
    excluded = exclusions(scope, exclude, env, now.timestamp())
    gone = {x.session_id for x in excluded}
    allowed = {s.id: s for s in scope if s.id not in gone}
    r = Retrieval(root, root_source, terms, extra, scope, excluded)
    if not allowed or not terms:
        return r
    by_session: dict[str, Candidate] = {}
    has_issue = any(t.kind == "issue" for t in terms)
    plan: list[tuple[list[SearchTerm], datetime | None]] = [
        (terms, None if has_issue else now - timedelta(days=budget.window_days))]
    if plan[0][1] is not None or extra:
        plan.append((terms + extra[:MAX_TERMS], None))
    for n, (round_terms, since) in enumerate(plan[: budget.rounds]):
        if n > 0:
            window = plan[n - 1][1]
            older = window is None or any((s.first_timestamp or s.last_timestamp or now) < window
                                          for sid, s in allowed.items() if sid not in by_session)
            if len(by_session) >= budget.sessions or not older:
                break  # enough candidates, or nothing outside the first window to widen to
        usable = known_terms(searcher, round_terms)
        if not usable:
            r.rounds.append(Round(_query(round_terms, since, root).source, since, 0, 0))
            r.since, r.widened = since, n > 0
            continue
        q = _query(usable, since, root)
        result = searcher.search(q, limit=HITS_PER_ROUND, sort="rank", max_chars=600)
        hits = [h for h in getattr(result, "hits", result) if h.session_id in allowed]
        for h in hits:
            top = _reading_unit(allowed, h.session_id)
            c = by_session.setdefault(top, Candidate(allowed[top], 0.0))
            c.hits.append(h)
            child = allowed[h.session_id]
            if top != h.session_id and child not in c.subagents:
                c.subagents.append(child)
        r.rounds.append(Round(q.source, since, len(hits), len({h.session_id for h in hits})))
        r.since, r.widened = since, n > 0
    all_terms = terms + extra
    for c in by_session.values():
        matched = [t for t in all_terms if any(t.pattern().search(h.preview or "") for h in c.hits)]
        c.matched = [t.text for t in matched]
        c.relevance = sum(t.weight for t in matched) or 0.5  # a hit whose preview shows no term still counts a little
        branch = (c.session.git_branch or "").lower()
        if branch and (task.branch and task.branch.lower() == branch
                       or any(t.kind == "word" and t.runs[0] in branch for t in all_terms)):
            c.relevance += 1
    r.candidates = sorted(by_session.values(), key=lambda c: (c.relevance, recency(c.session)), reverse=True)
    return r


def _parent_id(s: Session) -> str | None:
    if s.parent_id:
        return s.parent_id
    return s.id.split("/")[0] if "/" in s.id else None


def _reading_unit(allowed: dict[str, Session], session_id: str) -> str:
    """The session a hit is read under: its outermost ancestor in scope (a subagent's hits count
    for the session that started it), or itself when its parent is not there."""
    sid, seen = session_id, {session_id}
    while True:
        parent = _parent_id(allowed[sid])
        if parent is None or parent not in allowed or parent in seen:
            return sid
        sid = parent
        seen.add(sid)


def read_candidates(library: SessionSource, r: Retrieval, budget: Budget) -> None:
    """Load the strongest candidates in full, up to the budget, each with its matching subagent
    sessions (one slot each; a failed read counts against it)."""
    for c in r.candidates[: budget.sessions]:
        c.read = True
        for n, s in enumerate([c.session, *c.subagents]):
            try:
                loaded = library.load(s)
            except Exception as exc:  # noqa: BLE001 - an unreadable file is an access limit, not a crash
                error = f"{type(exc).__name__}: {exc}"
                if n == 0:
                    c.error = error
                r.limits.append(f"session {s.id} could not be read ({error})")
                continue
            r.loaded.append((s, list(loaded.entries)))


__all__ = [
    "Budget", "Candidate", "Exclusion", "Retrieval", "Round", "SearchTerm", "Task", "estimate_tokens", "exclusions",
    "find_git_root", "in_scope", "inside", "known_terms", "project_root", "read_candidates", "retrieve", "task_terms",
]

