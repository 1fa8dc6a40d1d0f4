"""Activity, tokens and cost per local day, from the catalog's activity rows.

A session counts on each day it has a message or tokens; subagent, compaction and exec runs
count in messages and tokens (they are real work and real spend) but not as sessions of their
own. Days are local days in `tz` (the machine's zone when None).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, tzinfo
from typing import Any, Iterable

from ..catalog.activity import SLOT_SECONDS
from ..model import Session, SessionKind, TokenUsage
from . import prices

#: the name shown for tokens whose model the transcript did not record
NO_MODEL = "(model not recorded)"


@dataclass
class Day:
    day: date
    sessions: set[str] = field(default_factory=set)
    messages: int = 0
    #: project -> [session ids, messages]; agent -> the same
    projects: dict[str, list[Any]] = field(default_factory=dict)
    agents: dict[str, list[Any]] = field(default_factory=dict)
    models: dict[str, TokenUsage] = field(default_factory=dict)
    costs: dict[str, float] = field(default_factory=dict)  # of the priced models

    @property
    def tokens(self) -> TokenUsage:
        return sum(self.models.values(), TokenUsage())

    @property
    def cost(self) -> float:
        return sum(self.costs.values())

    @property
    def unpriced_tokens(self) -> int:
        return sum(u.total for m, u in self.models.items() if m not in self.costs)


@dataclass
class Stats:
    first: date
    last: date
    days: list[Day]  # every day from first to last, those without activity too
    #: what the filters kept and left
    project: str | None = None
    agent: str | None = None
    undated_tokens: int = 0  # tokens of sessions with no time at all (in no day)

    def window(self, first: date | None) -> Stats:
        """The same stats from `first` (None: from the first day with activity) to `self.last`:
        the days before dropped, or empty days added before `self.first`."""
        if first is None:
            active = [d.day for d in self.days if d.messages or d.models]
            first = active[0] if active else self.last
        first = min(first, self.last)
        days = [d for d in self.days if d.day >= first]
        lead = [Day(first + timedelta(n)) for n in range((min(self.first, self.last + timedelta(1)) - first).days)]
        return Stats(first, self.last, lead + days, self.project, self.agent, self.undated_tokens)

    @property
    def sessions(self) -> int:
        return len(set().union(*(d.sessions for d in self.days))) if self.days else 0

    @property
    def messages(self) -> int:
        return sum(d.messages for d in self.days)

    @property
    def tokens(self) -> TokenUsage:
        return sum((d.tokens for d in self.days), TokenUsage())

    @property
    def cost(self) -> float:
        return sum(d.cost for d in self.days)

    def by_model(self) -> list[tuple[str, TokenUsage, float | None]]:
        """Each model's tokens and cost (None: unpriced), most tokens first."""
        tokens: dict[str, TokenUsage] = {}
        costs: dict[str, float] = {}
        for d in self.days:
            for m, u in d.models.items():
                tokens[m] = tokens.get(m, TokenUsage()) + u
                if m in d.costs:
                    costs[m] = costs.get(m, 0.0) + d.costs[m]
        return sorted(((m, u, costs.get(m)) for m, u in tokens.items()), key=lambda t: (-t[1].total, t[0]))

    def by(self, what: str) -> list[tuple[str, int, int]]:
        """Each project's (`what` = "projects") or agent's sessions and messages, most messages first."""
        sessions: dict[str, set[str]] = {}
        messages: dict[str, int] = {}
        for d in self.days:
            for name, (ids, n) in getattr(d, what).items():
                sessions.setdefault(name, set()).update(ids)
                messages[name] = messages.get(name, 0) + n
        return sorted(((k, len(sessions[k]), messages[k]) for k in sessions), key=lambda t: (-t[2], -t[1], t[0]))

    def unpriced(self) -> list[tuple[str, int]]:
        return [(m, u.total) for m, u, c in self.by_model() if c is None]

    def to_dict(self) -> dict[str, Any]:
        def usage(u: TokenUsage) -> dict[str, int]:
            return u.to_dict()

        return {
            "period": {"since": self.first.isoformat(), "until": self.last.isoformat(),
                       "days": len(self.days), "project": self.project, "agent": self.agent},
            "prices": prices.source(),
            "totals": {
                "sessions": self.sessions, "messages": self.messages, "tokens": usage(self.tokens),
                "cost_usd": round(self.cost, 6),
                "unpriced_tokens": sum(t for _, t in self.unpriced()),
                "undated_tokens": self.undated_tokens,
            },
            "models": [{"model": m, "priced_as": prices.priced_as(m) if m != NO_MODEL else None,
                        "tokens": usage(u), "cost_usd": None if c is None else round(c, 6)}
                       for m, u, c in self.by_model()],
            "unpriced_models": [m for m, _ in self.unpriced()],
            "projects": [{"project": k, "sessions": s, "messages": n} for k, s, n in self.by("projects")],
            "agents": [{"agent": k, "sessions": s, "messages": n} for k, s, n in self.by("agents")],
            "days": [{
                "date": d.day.isoformat(), "sessions": len(d.sessions), "messages": d.messages,
                "tokens": usage(d.tokens), "cost_usd": round(d.cost, 6), "unpriced_tokens": d.unpriced_tokens,
                "projects": {k: {"sessions": len(ids), "messages": n} for k, (ids, n) in sorted(d.projects.items())},
                "agents": {k: {"sessions": len(ids), "messages": n} for k, (ids, n) in sorted(d.agents.items())},
                "models": {m: {**usage(u), "cost_usd": None if m not in d.costs else round(d.costs[m], 6)}
                           for m, u in sorted(d.models.items())},
            } for d in self.days],
        }


Row = tuple[str, "int | None", str, int, int, int, int, int]


def compute(sessions: Iterable[Session], rows: Iterable[Row], *, since: date | None = None,
            until: date | None = None, today: date | None = None, project: str | None = None,
            agent: str | None = None, tz: tzinfo | None = None, price: bool = True) -> Stats:
    """The stats of the activity `rows` (Catalog.activity()) of `sessions`, over the local days
    from `since` (default: the first day with activity) to `until` (default: `today`, itself
    the local date now by default). `project` keeps sessions whose project path holds it,
    `agent` those of that agent (or format), as `sessions --project/--agent` do."""
    by_id = {s.id: s for s in sessions}
    parents = {s.id: _top(s, by_id) for s in by_id.values()}
    day_of: dict[int, date] = {}
    days: dict[date, Day] = {}
    undated = 0
    low_project = project.lower() if project else None
    low_agent = agent.lower() if agent else None
    for sid, slot, model, messages, *tokens in rows:
        s = by_id.get(sid)
        if s is None:  # a file read since the session map was made
            continue
        if low_project and low_project not in (s.project or "").lower():
            continue
        if low_agent and low_agent not in (s.agent.lower(), s.source_format.lower()):
            continue
        usage = TokenUsage(*tokens)
        if slot is None:
            undated += usage.total
            continue
        when = day_of.get(slot)
        if when is None:
            when = day_of[slot] = datetime.fromtimestamp(slot * SLOT_SECONDS, tz).date() if tz else \
                datetime.fromtimestamp(slot * SLOT_SECONDS).date()
        if (since and when < since) or (until and when > until):
            continue
        d = days.get(when)
        if d is None:
            d = days[when] = Day(when)
        top = parents[sid]
        d.sessions.add(top)
        d.messages += messages
        for table, key in ((d.projects, s.project or "(no project)"), (d.agents, s.agent)):
            entry = table.setdefault(key, [set(), 0])
            entry[0].add(top)
            entry[1] += messages
        if usage.total:
            name = model or NO_MODEL
            d.models[name] = d.models.get(name, TokenUsage()) + usage
    last = until or today or datetime.now(tz).date()
    first = since or (min(days) if days else last)
    if first > last:
        first = last
    out = [days.get(first + timedelta(n)) or Day(first + timedelta(n)) for n in range((last - first).days + 1)]
    if price:
        for d in out:
            for m, u in d.models.items():
                if m != NO_MODEL:
                    c = prices.cost(m, u, d.day)
                    if c is not None:
                        d.costs[m] = c
    return Stats(first, last, out, project, agent, undated)


def _top(s: Session, by_id: dict[str, Session]) -> str:
    """The session a child run (subagent, compaction, exec) counts under: its top parent."""
    seen = {s.id}
    while s.kind is not SessionKind.MAIN and s.parent_id and s.parent_id in by_id and s.parent_id not in seen:
        s = by_id[s.parent_id]
        seen.add(s.id)
    return s.id


_AGE = {"d": 1, "w": 7, "m": 30, "y": 365}


def parse_since(text: str, today: date) -> date:
    """`--since`: an ISO date (2026-11-01) or an age in days, weeks, months or years (7d, 2w,
    3m, 1y: that many days before `today`, counted in). ValueError says what is wrong."""
    value = text.strip().lower()
    if len(value) >= 2 and value[:-1].isdigit() and value[-1] in _AGE:
        n = int(value[:-1]) * _AGE[value[-1]]
        if n < 1 or n > 100 * 365:
            raise ValueError(f"--since {text!r}: give an age from 1d to 100y")
        return today - timedelta(days=n - 1)
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise ValueError(f"--since {text!r}: give an ISO date like 2026-11-01 or an age like 7d, 2w, 3m, 1y") from None
