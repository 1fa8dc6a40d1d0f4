"""`sessionscope stats`: activity per day per project and agent, tokens per day and model, and
their cost (core/stats), as tables or `--json`."""
from __future__ import annotations

import argparse
from typing import Any

from sessionscope.cli.common import CliError, bounded, emit, open_library, warn


def add_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    p = sub.add_parser("stats", parents=[common],
                       help="activity, tokens and cost per day (prices: the genai-prices package's table)")
    when = p.add_mutually_exclusive_group()
    when.add_argument("--days", type=bounded(1, 36500), default=30,
                      help="the last N days, today included (default 30)")
    when.add_argument("--since", metavar="DATE", help="from DATE (ISO, or an age before --until: 7d, 2w, 3m, 1y)")
    p.add_argument("--until", metavar="DATE", help="up to DATE (ISO), that day included (default: today)")
    p.add_argument("--project", help="only sessions whose project path holds this")
    p.add_argument("--agent", help="only this agent's sessions (claude-code, codex, ...)")


def cmd_stats(args: argparse.Namespace) -> int:
    from datetime import date, timedelta

    from sessionscope.core.stats.aggregate import compute, parse_since

    today = date.today()
    try:
        until = date.fromisoformat(args.until) if args.until else today
    except ValueError:
        raise CliError(f"--until {args.until!r}: give an ISO date like 2026-11-30") from None
    if args.since:
        try:
            since = parse_since(args.since, until)
        except ValueError as exc:
            raise CliError(str(exc)) from None
    else:
        since = until - timedelta(days=args.days - 1)
    if since > until:
        raise CliError(f"--since {since} is after --until {until}")
    lib, warnings = open_library(args)
    warn(warnings, args)
    stats = compute(lib.all_sessions(), lib.catalog.activity(), since=since, until=until,
                    project=args.project, agent=args.agent)
    if args.json:
        emit(stats.to_dict())
        return 0
    print_stats(stats)
    return 0


def print_stats(stats: Any) -> None:
    from sessionscope.core.format import count, human_tokens
    from sessionscope.core.stats import prices

    t = stats.tokens
    unpriced = stats.unpriced()
    scope = "".join(f", {k} {v}" for k, v in (("project", stats.project), ("agent", stats.agent)) if v)
    print(f"{stats.first} to {stats.last} ({count(len(stats.days), 'day')}{scope}): {count(stats.sessions, 'session')}, "
          f"{count(stats.messages, 'message')}, {human_tokens(t.total)} tokens, ${stats.cost:,.2f}")
    active = [d for d in stats.days if d.messages or d.models]
    if not active:
        print("no activity in this period")
        return
    print()
    print(f"{'DAY':<10} {'SESSIONS':>8} {'MESSAGES':>8} {'TOKENS':>8} {'COST':>10}")
    for d in active:
        note = f"  ({human_tokens(d.unpriced_tokens)} unpriced)" if d.unpriced_tokens else ""
        print(f"{d.day.isoformat():<10} {len(d.sessions):>8} {d.messages:>8} {human_tokens(d.tokens.total):>8} "
              f"{'$' + format(d.cost, ',.2f'):>10}{note}")
    print()
    print(f"{'MODEL':<34} {'INPUT':>8} {'OUTPUT':>8} {'C.READ':>8} {'C.WRITE':>8} {'COST':>10}")
    for m, u, c in stats.by_model():
        cost = "unpriced" if c is None else "$" + format(c, ",.2f")
        print(f"{m[:34]:<34} {human_tokens(u.input):>8} {human_tokens(u.output):>8} "
              f"{human_tokens(u.cache_read):>8} {human_tokens(u.cache_creation):>8} {cost:>10}")
    for what, title in (("projects", "PROJECT"), ("agents", "AGENT")):
        print()
        print(f"{title:<44} {'SESSIONS':>8} {'MESSAGES':>8}")
        for name, s, n in stats.by(what):
            print(f"{name[-44:]:<44} {s:>8} {n:>8}")
    print()
    if unpriced:
        names = ", ".join(f"{m} ({human_tokens(n)})" for m, n in unpriced)
        print(f"not priced (not in the price table; counted above, left out of the cost): {names}")
    print(f"prices: {prices.source()}; cached tokens at their own rates; long-prompt tiers not applied")
