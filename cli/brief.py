"""`sessionscope context "TASK"`: prior-session context for a task, for agents and scripts.

It runs the composer's retrieval within the same budget (2 search rounds, 3 sessions read, a brief
of about 600 tokens; `--rounds`, `--sessions`, `--tokens` change a limit explicitly) and prints the
candidate findings with their types, evidence labels and sources. `--json` adds the budget used and
the scope; `--brief` renders the brief from all candidates, under a line saying that nothing in it
was approved by a person.

Hooks for cli/main.py: `add_parser(sub, common)` and `run(args)`. Conventions are cli/common.py's: bad input
is a `CliError` (one line on stderr, exit 2, `{"ok": false, "error"}` with --json). An outcome is
not an error: "found", "empty" (no useful context) and "unavailable" (no history can be read,
with the reason) all exit 0; only an explicit `--root` that is missing fails, as elsewhere.
"""
from __future__ import annotations

import argparse
import sys
from typing import Any

from sessionscope.cli.common import CliError, bounded, emit, open_index, open_library


def add_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    c = sub.add_parser(
        "context", parents=[common],
        help="prior-session context for a task: candidate findings or a brief, within a budget",
        description="Search this project's agent sessions for decisions, corrections, failed approaches, "
        "outcomes and open questions that bear on TASK, within a budget (2 search rounds, 3 sessions "
        "read, ~600 tokens, tokens estimated as characters/4). Transcript text is quoted as untrusted "
        "evidence and secrets are masked.",
    )
    c.add_argument("task", metavar="TASK", help="the task, in a sentence")
    c.add_argument("--brief", action="store_true",
                   help="print the brief from all candidates (marked as not human-approved)")
    c.add_argument("--project", metavar="DIR",
                   help="the project: its git repository (default: the working directory's)")
    c.add_argument("--rounds", type=bounded(1, 10), default=None, help="search rounds (default 2)")
    c.add_argument("--sessions", type=bounded(1, 20), default=None, help="sessions read in full (default 3)")
    c.add_argument("--tokens", type=bounded(100, 20000), default=None, help="brief size in tokens (default 600)")
    c.add_argument("--file", action="append", default=[], metavar="PATH", help="a file the task touches (repeatable)")
    c.add_argument("--symbol", action="append", default=[], metavar="NAME", help="a symbol the task touches (repeatable)")
    c.add_argument("--issue", action="append", default=[], metavar="ID",
                   help="an issue id, e.g. 123 or ABC-45 (repeatable; searched without an age limit)")
    c.add_argument("--branch", metavar="NAME", help="the branch being worked on (a hint, never a filter)")
    c.add_argument("--exclude-session", action="append", default=[], metavar="ID",
                   help="leave this session out (repeatable); default: $CLAUDE_CODE_SESSION_ID / $CLAUDE_SESSION_ID / $CODEX_SESSION_ID, "
                   "else the project's session modified in the last minute")
    add_assist_options(c)


def add_assist_options(p: argparse.ArgumentParser) -> None:
    """`--assist claude|codex` and `--assist-timeout`, shared by `context` and `brief`."""
    from sessionscope.core.brief.assist import ASSISTS, DEFAULT_TIMEOUT, DIGEST_TOKENS

    p.add_argument("--assist", choices=ASSISTS, default=None,
                   help="also ask your own agent CLI (non-interactive, no tools) for findings over a digest of "
                   f"the sessions read (secrets masked, at most ~{DIGEST_TOKENS // 1000}k tokens); only findings "
                   "whose cited entries exist and hold the quoted words are kept, marked 'proposed by the model'")
    p.add_argument("--assist-timeout", type=_seconds, default=DEFAULT_TIMEOUT, metavar="SECONDS",
                   help=f"how long the assist may take (default {DEFAULT_TIMEOUT:g})")


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not 0 < value <= 3600:
        raise argparse.ArgumentTypeError(f"must be more than 0 and at most 3600 seconds, got {text}")
    return value


def run(args: argparse.Namespace) -> int:
    from sessionscope.core.brief.compose import (
        UNAVAILABLE,
        UNREVIEWED,
        Budget,
        Task,
        compose,
        render_brief,
    )
    from sessionscope.core.secrets import emails_in, mask_data, mask_text

    text = " ".join(args.task.split())
    if not text:
        raise CliError("context: the task is empty; describe it in a sentence")
    defaults = Budget()
    budget = Budget(
        rounds=args.rounds if args.rounds is not None else defaults.rounds,
        sessions=args.sessions if args.sessions is not None else defaults.sessions,
        tokens=args.tokens if args.tokens is not None else defaults.tokens,
    )
    task = Task(text, tuple(args.file), tuple(args.symbol), tuple(args.issue), args.branch)
    try:
        lib, warnings = open_library(args)
    except CliError as exc:
        if args.root:
            raise
        _check_project(args.project, None)
        result = compose(None, None, task, project=args.project, budget=budget, unavailable=str(exc))
    else:
        _check_project(args.project, lib)
        for w in warnings:
            print(f"sessionscope: warning: {w}", file=sys.stderr)
        try:
            index, _ = open_index(args, lib)
        except Exception as exc:  # noqa: BLE001 - no index means no search: say so, do not crash
            result = compose(lib, None, task, project=args.project, budget=budget,
                             unavailable=f"the search index could not be opened ({type(exc).__name__}: {exc})")
        else:
            try:
                result = compose(lib, index, task, project=args.project, budget=budget,
                                 exclude=args.exclude_session)
            finally:
                index.close()
    outcome = None
    if getattr(args, "assist", None) and result.status != UNAVAILABLE:
        from sessionscope.core.brief.assist import assist, merge

        outcome = assist(result, args.assist, timeout=args.assist_timeout)
        merge(result, outcome)
        if outcome.error or not args.json:
            print(f"sessionscope: {outcome.line()}", file=sys.stderr)
    rendered = render_brief(result)
    # Every output is masked once more as a whole at this boundary: mask first, then print.
    keep = emails_in(task.text)
    if args.json:
        from sessionscope.core.brief.assist import PROPOSED, proposed

        data = result.to_dict()
        for d, f in zip(data["findings"], result.findings):
            d["proposed_by"] = "model" if proposed(f) else "rules"
        if outcome is not None:
            data["assist"] = outcome.to_dict()
            data["assist"]["note"] = f"findings with proposed_by 'model' were {PROPOSED}, checked against their entries"
        emit(mask_data({"ok": True, **data, "brief": {
            "approved": False, "text": rendered.text, "tokens": rendered.tokens,
            "included": list(rendered.included), "omitted": list(rendered.omitted)}}, keep_emails=keep))
        return 0
    if args.brief:
        sys.stdout.write(mask_text(UNREVIEWED + "\n" + rendered.text, keep_emails=keep) + "\n")
        return 0
    sys.stdout.write(mask_text(_candidates_text(result, rendered), keep_emails=keep))
    return 0


def _check_project(project: str | None, lib: Any, command: str = "context") -> None:
    """`--project DIR` must be a directory here, or a project some session was recorded in (the
    sessions of a machine you copied them from): a typo is refused, not searched in silence."""
    import os

    from sessionscope.core.brief.retrieval import in_scope

    if project is None or os.path.isdir(project):
        return
    if lib is not None and in_scope(lib, os.path.abspath(project)):
        return
    raise CliError(f"{command}: --project {project}: no such directory, and no session was recorded in it")


def _candidates_text(result: Any, rendered: Any) -> str:
    """The candidate findings as text (masked by the caller)."""
    import io

    from sessionscope.core.brief.compose import FOUND
    from sessionscope.core.brief.assist import PROPOSED, proposed
    from sessionscope.core.secrets import masked_line
    from sessionscope.core.text import one_line

    out = io.StringIO()
    if result.status != FOUND:
        return rendered.text + "\n"
    u, b = result.usage, result.budget
    out.write(f"Task: {masked_line(result.task.text, 200)}\n")
    out.write(f"Scope: {one_line(result.scope.line())}\n")
    subagents = f" (with {len(u.subagents_read)} of their subagent sessions)" if u.subagents_read else ""
    out.write(f"Budget: {len(u.rounds)}/{b.rounds} search rounds, {len(u.sessions_read)}/{b.sessions} sessions "
              f"read{subagents}, brief ~{rendered.tokens}/{b.tokens} tokens (characters/4)\n")
    out.write(f"{len(result.findings)} candidate finding(s), none approved:\n")
    for n, f in enumerate(result.findings, 1):
        who = f.attribution
        date = f.date.date().isoformat() if f.date else "undated"
        model = f"{PROPOSED}, " if proposed(f) else ""
        out.write(f"\n{n}. {f.label} ({model}{who}, {date}): {one_line(f.text)}\n")
        if f.conditions:
            out.write(f"   conditions: {one_line(f.conditions)}\n")
        if f.why:
            out.write(f"   why: {one_line(f.why)}\n")
        out.write(f"   evidence: {f.evidence}" + (f" ({one_line(f.evidence_detail)})" if f.evidence_detail else "") + "\n")
        out.write(f"   source: {f.source.ref}\n")
        for c in f.conflicts:
            out.write(f"   conflicts with: {c.source.ref}: {masked_line(c.text, 160)}\n")
        if f.in_memory:
            out.write(f"   already in memory: {', '.join(f.in_memory)}\n")
    return out.getvalue()
