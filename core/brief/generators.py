"""Generators of candidate findings that work on a session's episodes rather than on sentences.

`SessionReader` (core/brief/findings.py) reads a session once into episodes: its messages (user,
agent, compaction summaries, subagent reports returned to it), its tool calls paired with their
results (`_Run`, with the command family and the failure normalised), its edits and commits, and
its silent interventions (rejected calls, interrupts). The sentence rules there give the findings
that a message states in words; the generators here give those that only the sequence of episodes
shows, each citing its source entry and its evidence entries (`Finding.evidence_sources`):

failure chains (`failure_chains`)
  Runs are grouped by command family (`command_family`: `mix test test/a.exs` and `mix test` are
  one family) from a failing run until the family passes again. Each distinct failure of a chain
  (`error_key`: numbers, paths and hashes do not make two failures different) gives one Failed
  approach: its text is the agent's diagnosis (its first message after the failure, the sentence
  naming a cause when there is one), its conditions the command and failure line, how many times
  it was retried unchanged, the files edited before the next run (the fix tried) and how it ended
  (passed again, failed differently, or never passed). Evidence: the failing runs, the edits and
  the next run. Only test/build/lint families, or other commands whose failure recurred or got a
  diagnosis naming a cause, make chains: a look-up that fails is no approach. A test/build family
  whose last run failed gives an Open question "open at that session's end" (not in a subagent's
  transcript: its end is not the session's).

interventions (`interventions`)
  A tool call the user rejected, or an interrupt, is a Correction attributed to the user. When
  the user then says something, the sentence rules already made it a Correction: the intervention
  becomes its evidence. When nothing follows (a silent intervention), it is a finding of its own,
  quoting what was refused.

slips (`slips`)
  The agent's acknowledged slip right after tool output ("Right, I declared it before defining
  it", "the files are actually under …") is a Correction attributed to the agent, with that tool
  output as evidence.

final runs (`final_runs`)
  The last run of each test/build/lint family that passed is an Outcome (`verified then`) unless
  a closing summary already cites it.

Within a session one finding per (type, source entry) is kept: the one with more evidence.
Episode keys (`Finding.episode`): a chain's findings, and the text findings of the messages inside
it, share the chain's key, so a brief takes at most one of them.
"""
from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING

from .finding import AGENT, CORRECTION, DECISION, FAILED, OPEN, OUTCOME, USER, VERIFIED_THEN, Finding
from .findings import _date
from .patterns import _FAILED_AGENT, _injected, normalise, clean, command_of, quotable, success_line
from ..model import Entry, EntryKind

if TYPE_CHECKING:
    from .episodes import _Msg, _Run
    from .findings import SessionReader

_I = re.IGNORECASE
_QUESTION = re.compile(r"[?？]\s*$")
_CAUSE = re.compile(
    r"\b(?:because|since|due to|the (?:problem|issue|cause|error|failure|bug) (?:is|was)|caused by|needs?\b|requires?\b"
    r"|missing|not (?:found|defined|installed|configured|set)|undefined|wrong|forgot|doesn'?t (?:exist|have|include|support)"
    r"|isn'?t|can'?t|cannot|is clear|turns out|that'?s why|instead|expects?|mismatch)\b", _I)
_SLIP = re.compile(
    r"^\W*(?:right|ah|oh|oops|whoops|my (?:mistake|bad)|sorry|i see)\b[,.!:;—–-]"
    r"|\bI (?:declared|defined|used|called|put|wrote|passed|referenced|imported)\b[^.]{0,80}\b(?:before|instead of|without|wrong)\b"
    r"|\b(?:are|is|was|were) actually (?:under|in|at|called|named|located)\b|\bI (?:forgot|missed|misread|overlooked)\b"
    r"|\bI should have\b|\bthe (?:real|actual) (?:path|file|name|location) is\b", _I)


def _tool_summary(call: Entry | None) -> str:
    """What a tool call did, in a few words: its command, file or description."""
    if call is None:
        return "a tool call"
    cmd = command_of(call)
    if cmd:
        return f"`{clean(cmd, 100)}`"
    inp = call.tool_input if isinstance(call.tool_input, dict) else {}
    for key in ("file_path", "path", "description", "pattern", "url", "prompt"):
        if isinstance(inp.get(key), str) and inp[key].strip():
            return f"{call.tool_name or 'tool'} {clean(inp[key], 100)}"
    return call.tool_name or "a tool call"


# -- failure chains ----------------------------------------------------------------------------
def _diagnosis(reader: SessionReader, run: _Run, until: int) -> tuple[_Msg | None, str]:
    """The agent's message naming the cause of a failing run, and that sentence: among its next
    three messages (before the user speaks), and no later than its first message after `until`
    (the family's next run: an agent often reruns first and explains after)."""
    seen = 0
    for m in reader.msgs:
        if m.index <= run.index or not reader.said(m):
            continue
        if reader.is_user(m) or seen >= 3 or (m.index >= until and seen >= 1):
            return None, ""
        sents = [s for s in quotable(m.text) if len(s) >= 6]
        if not sents:
            continue
        seen += 1
        for k, s in enumerate(sents[:6]):
            if _CAUSE.search(s) or _SLIP.search(s) or _FAILED_AGENT.search(s):
                text = s if len(s) >= 60 or k + 1 >= len(sents) else f"{s} {sents[k + 1]}"
                return m, text
    return None, ""  # the agent named no cause in its next messages: no diagnosis


def failure_chains(reader: SessionReader, found: list[Finding]) -> list[Finding]:
    out: list[Finding] = []
    runs = [r for r in reader.runs if r.executes and not r.rejected]
    by_family: dict[str, list[_Run]] = {}
    for r in runs:
        by_family.setdefault(r.family, []).append(r)
    for family, fruns in by_family.items():
        chain: list[_Run] = []
        for n, r in enumerate(fruns):
            if r.failed:
                chain.append(r)
                continue
            if chain and r.succeeded:
                out.extend(_chain_findings(reader, chain, r, fruns))
                chain = []
        if chain:
            out.extend(_chain_findings(reader, chain, None, fruns))
    return out


def _chain_findings(reader: SessionReader, chain: list[_Run], passed: _Run | None, fruns: list[_Run]) -> list[Finding]:
    first = chain[0]
    check = any(r.check for r in chain)
    errors: dict[str, list[_Run]] = {}
    for r in chain:
        errors.setdefault(r.error, []).append(r)
    key = f"{reader.session.id}#chain-{first.result.id}"
    out: list[Finding] = []
    for err, group in errors.items():
        r0, rl = group[0], group[-1]
        after = [r for r in fruns if r.index > rl.index]
        nxt = after[0] if after else None
        diag, said = _diagnosis(reader, r0, nxt.index if nxt else 1 << 60)
        recurring = len(group) >= 2
        if not check and not recurring and not (diag and _CAUSE.search(said)):
            continue  # a one-off failure of an ad-hoc command, with no cause named: no approach
        fix = [(i, e, files) for i, e, files in reader.edit_log if rl.index < i < (nxt.index if nxt else 1 << 60)]
        files = list(dict.fromkeys(f for _, _, fs in fix for f in fs))
        line = clean(_failure_shown(r0), 120)
        before = [r for r in reader.runs if r.index < r0.index and r.executes]
        since = max(before[-1].index if before else -1, _turn_start(reader, r0.turn))
        tried = [] if r0 is not first else list(dict.fromkeys(  # what the chain's first failure came after
            f for i, _, fs in reader.edit_log if since < i < r0.index for f in fs))
        parts = [f"after editing {', '.join(tried[-3:])}" if tried else "",
                 f"`{clean(r0.command, 80)}` failed: {line}" if diag is not None else ""]
        unchanged = _unchanged_retries(reader, group)
        if unchanged:
            parts.append(f"retried {unchanged} time(s) unchanged")
        if files:
            parts.append("then edited " + ", ".join(files[:3]))
        if nxt is None:
            parts.append("never run again" if passed is None else "")
        elif nxt.failed:
            parts.append(f"the next run failed differently ({clean(_failure_shown(nxt), 80)})")
        else:
            parts.append(f"passed again {_date(nxt.result.timestamp)}")
        conditions = "; ".join(p for p in parts if p)
        evidence = [r.result for r in group] + [e for _, e, _ in fix[:4]] + ([nxt.result] if nxt else [])
        if diag is not None:
            src, text, who = diag.entry, said, AGENT
        else:
            src, text, who = r0.result, f"`{clean(r0.command, 100)}` failed: {line}", AGENT
        f = reader._finding(FAILED, reader._source(src), clean(text), who, src.timestamp, conditions=conditions,
                            turn=r0.turn, verified=f"{_date(r0.result.timestamp)}: the tool output shows the failure")
        ev = tuple(reader._source(e) for e in evidence if e.id != src.id)
        f = replace(f, evidence_sources=ev, episode=key, generator="failure-chain")
        reader.spans[f.id] = (r0.index, nxt.index if nxt else len(reader.entries))
        out.append(f)
    last = chain[-1]
    if passed is None and check and not reader.subagent and fruns[-1] is last:
        line = clean(_failure_shown(last), 140)
        text = f"`{clean(last.command, 100)}` still failed at the end: {line}"
        f = reader._finding(OPEN, reader._source(last.result), text, AGENT, last.result.timestamp, turn=last.turn,
                            verified=f"{_date(last.result.timestamp)}: the last run failed")
        ev = tuple(reader._source(r.result) for r in chain[:-1][-4:])
        out.append(replace(f, evidence_sources=ev, episode=key, generator="failure-chain"))
    return out


def _turn_start(reader: SessionReader, turn: int) -> int:
    return next((m.index for m in reader.msgs if m.turn == turn and reader.is_user(m)), -1)


def _failure_shown(r: _Run) -> str:
    from .episodes import error_key

    return error_key(r.text)[1]


def _unchanged_retries(reader: SessionReader, group: list[_Run]) -> int:
    """Reruns of the same failure with no edit since the previous one."""
    n = 0
    for a, b in zip(group, group[1:]):
        if not any(a.index < i < b.index for i, _, _ in reader.edit_log):
            n += 1
    return n


# -- interventions and slips --------------------------------------------------------------------
def interventions(reader: SessionReader, found: list[Finding]) -> list[Finding]:
    out: list[Finding] = []
    by_source = {f.source.entry_id: k for k, f in enumerate(found)}
    prev: object = None
    for ev in reader.events:
        if ev.kind == "interrupted" and prev is not None and prev.kind == "rejected" and prev.call is ev.call:
            continue  # the interrupt marker Claude Code writes after a rejection: the same intervention
        prev = ev
        nxt_user = next((m for m in reader.msgs if m.index > ev.index and reader.is_user(m)), None)
        nxt_agent = next((m for m in reader.msgs if m.index > ev.index and reader.said(m) and not reader.is_user(m)), None)
        spoke = nxt_user is not None and (nxt_agent is None or nxt_user.index < nxt_agent.index)
        if spoke and nxt_user is not None and nxt_user.entry.id in by_source:
            k = by_source[nxt_user.entry.id]
            f = found[k]  # what the user said after it is the finding; the intervention backs it
            found[k] = replace(f, evidence_sources=(*f.evidence_sources, reader._source(ev.entry)))
            continue
        what = _tool_summary(ev.call)
        if ev.kind == "rejected":
            text = f"the user rejected the tool call {what}"
        else:
            text = f"the user interrupted the agent during {what}"
        if spoke and nxt_user is not None:
            said = " ".join(quotable(nxt_user.text)[:2])
            if said:
                text += f", then said \"{clean(said, 160)}\""
        f = reader._finding(CORRECTION, reader._source(ev.entry), clean(text), USER, ev.entry.timestamp, turn=ev.turn)
        evidence = tuple(reader._source(e) for e in (ev.call, nxt_user.entry if spoke and nxt_user else None) if e)
        out.append(replace(f, evidence_sources=evidence, episode=f"{reader.session.id}#{ev.entry.id}",
                           generator="intervention"))
    return out


def slips(reader: SessionReader, found: list[Finding]) -> list[Finding]:
    out: list[Finding] = []
    have = {(f.type, f.source.entry_id) for f in found}
    by_index = {m.index: m for m in reader.msgs}
    prev_result: Entry | None = None
    for e_idx, e in enumerate(reader.entries):
        if e.kind is EntryKind.TOOL_RESULT:
            prev_result = e
            continue
        if e.kind is EntryKind.TOOL_USE or e.kind is not EntryKind.TEXT:
            continue
        if e.role != "assistant":
            prev_result = None
            continue
        if prev_result is None or (CORRECTION, e.id) in have:
            prev_result = None
            continue
        msg = by_index.get(e_idx)
        prev = prev_result
        prev_result = None
        if msg is None:
            continue
        sents = quotable(msg.text)
        hit = next((k for k, s in enumerate(sents[:3]) if _SLIP.search(s) and len(s) >= 12), None)
        if hit is None:
            continue
        text = sents[hit] if len(sents[hit]) >= 60 or hit + 1 >= len(sents) else f"{sents[hit]} {sents[hit + 1]}"
        f = reader._finding(CORRECTION, reader._source(e), clean(text), AGENT, e.timestamp, turn=msg.turn)
        out.append(replace(f, evidence_sources=(reader._source(prev),), episode=f"{reader.session.id}#{e.id}",
                           generator="slip"))
    return out


# -- outcomes ----------------------------------------------------------------------------------
def final_runs(reader: SessionReader, found: list[Finding]) -> list[Finding]:
    cited = {s.entry_id for f in found if f.type == OUTCOME for s in (f.source, *f.evidence_sources)}
    last: dict[str, _Run] = {}
    for r in reader.runs:
        if r.check and not r.rejected and r.executes:
            last[r.family] = r
    out: list[Finding] = []
    for family, r in last.items():
        if not r.succeeded or r.result.id in cited:
            continue
        line = clean(success_line(r.text), 120)
        text = f"the last `{clean(r.command, 100)}` run passed: {line}"
        f = reader._finding(OUTCOME, reader._source(r.result), text, AGENT, r.result.timestamp, turn=r.turn,
                            verified=f"{_date(r.result.timestamp)}: `{clean(r.command, 80)}` → {line}")
        ev = (reader._source(r.call),) if r.call is not None else ()
        out.append(replace(f, evidence=VERIFIED_THEN, evidence_sources=ev,
                           episode=f"{reader.session.id}#final-{family}", generator="final-run"))
    return out


_FLUFF = re.compile(r"^\W*(?:perfect|great|excellent|good|nice|ok(?:ay)?|alright|now\b|based on|i have|i now have|here(?:'s| is)"
                    r"|let me|sure|done\W*$|all done\W*$)", _I)
_HEADING_ONLY = re.compile(r"^[\W\d]*$")


def _substance(sents: list[str]) -> str:
    """The first sentence that says something (not "Perfect!", "Now I have a complete picture")."""
    for k, s in enumerate(sents):
        if len(s) >= 20 and not _FLUFF.match(s) and not _HEADING_ONLY.match(s):
            return s if len(s) >= 60 or k + 1 >= len(sents) else f"{s} {sents[k + 1]}"
    return ""


def closing_summaries(reader: SessionReader, found: list[Finding]) -> list[Finding]:
    """Each turn's closing message is an Outcome (what the turn ended on), checked against the
    last run of each check family of the turn; its edits and commits back it."""
    from .patterns import _OUTCOME

    have = {f.source.entry_id for f in found if f.type == OUTCOME}
    out: list[Finding] = []
    for m in reader.msgs:
        if m.index not in reader.closing or m.entry.id in have or reader.is_user(m) or m.kind not in ("said", "thought"):
            continue
        sents = quotable(m.text)
        text = next((s for s in sents if _OUTCOME.search(s)), "") or _substance(sents)
        if not text or len(m.text) < 60 or any(text in f.text for f in found if f.source.entry_id == m.entry.id):
            continue  # nothing to say, or the message's finding already says it
        f = reader._outcome(m, text)
        commits = [reader.entries[i] for t, i, _ in reader.commits if t == m.turn and i < m.index]
        edits = [e for i, e, _ in reader.edit_log if reader._turn_at(i) == m.turn and i < m.index][-3:]
        extra = tuple(reader._source(e) for e in (*commits[-3:], *edits) if e.id not in {x.entry_id for x in f.evidence_sources})
        out.append(replace(f, evidence_sources=(*f.evidence_sources, *extra), generator="closing-summary"))
    return out


_ACTION = re.compile(
    r"\b(?:let me|let'?s|I'?ll|I will|I need to|we need to|I'?m going to|I should)\s+(?:also\s+|now\s+|first\s+|just\s+)?"
    r"(?:fix|use|add|move|merge|replace|remove|rewrite|put|extract|switch|change|update|configure|set|create|keep|make"
    r"|install|split|rename|skip|drop|inline|wrap|revert|mark|pass|route|register|wire|write|simplify|delete|restore|pin"
    r"|downgrade|upgrade|mock|stub|disable|enable|guard|handle|defer|file|track)\b", _I)
_REASON = re.compile(
    r"\b(?:but|since|because|instead|so that|rather than|not (?:a|an|the)\b|doesn'?t|does not|isn'?t|is not|aren'?t|are not"
    r"|won'?t|can'?t|cannot|no longer|not referenced|missing|needs?|requires?|too (?:deep|complex|many|long|slow|large|big)"
    r"|reports?|the (?:issue|problem|cause|error) is|fails?|failing|error|only|already|unused|never|conflicts?|expects?)\b", _I)


def reasoned_actions(reader: SessionReader, found: list[Finding]) -> list[Finding]:
    """Implicit decisions: the agent names a constraint or reason, then what it will do about it
    ("X is not referenced from any template anymore. Let me merge it into Y")."""
    have = {f.source.entry_id for f in found if f.type in (DECISION, CORRECTION, FAILED)}
    out: list[Finding] = []
    for n, m in enumerate(reader.msgs):
        if m.kind not in ("said", "thought") or reader.is_user(m) or m.entry.id in have:
            continue
        sents = quotable(m.text)
        for k, s in enumerate(sents):
            if not _ACTION.search(s) or _QUESTION.search(s):
                continue
            head = s[: _ACTION.search(s).start()]
            if _REASON.search(head) or _REASON.search(s[_ACTION.search(s).end():]):
                text = s
            elif k > 0 and _REASON.search(sents[k - 1]) and not _QUESTION.search(sents[k - 1]):
                text = f"{sents[k - 1]} {s}"
            else:
                continue
            f = reader._make(DECISION, m, text)
            out.append(replace(f, generator="reasoned-action"))
            break
    return out


# -- work items, commits, reports, hooks ---------------------------------------------------------
_TRACKER = re.compile(r"^\s*(?:cd\s+\S+\s*&&\s*)?(?:bd|beads|gh\s+(?:issue|pr)|glab\s+(?:issue|mr)|jira(?:\s+issue)?|linear(?:\s+issue)?"
                      r"|tea\s+(?:issue|pr)|tk|todo)\s+(show|view|get|close|done|resolve|complete|merge)\s+([\w.#/-]+)", _I)
_REASON_OPT = re.compile(r"--(?:reason|comment|message|body)[= ]\s*(\"(?:[^\"\\]|\\.)*\"|'[^']*')")
_CLOSE = ("close", "done", "resolve", "complete", "merge")


def work_items(reader: SessionReader, found: list[Finding]) -> list[Finding]:
    """An issue-tracker item closed in the session (`bd close X`, `gh issue close N`, …) is an
    Outcome: the reason given, backed by the item's description as shown earlier, the commits
    since and the last check runs. When the description names files the session never wrote,
    that is an Open question: closed, yet those files were not written."""
    from .patterns import named_paths

    shown: dict[str, Entry] = {}
    out: list[Finding] = []
    written = {f.rsplit("/", 1)[-1] for _, _, fs in reader.edit_log for f in fs}
    for r in reader.runs:
        m = _TRACKER.match(r.command)
        if not m or r.rejected:
            continue
        verb, item = m.group(1).lower(), m.group(2)
        if verb in ("show", "view", "get"):
            shown.setdefault(item, r.result)
            continue
        if verb not in _CLOSE or r.failed:
            continue
        reason = _REASON_OPT.search(r.command)
        said = reason.group(1)[1:-1] if reason else ""
        line = next((ln.strip() for ln in r.text.splitlines() if item in ln), "") or r.text.strip().split("\n")[0]
        text = clean(f"{item} closed: {said or line}", 240)
        spec = shown.get(item) or next((e for k, e in shown.items() if item.startswith(k) or k.startswith(item)), None)
        start = reader._at.get(spec.id, 0) if spec is not None else 0
        commits = [reader.entries[i] for _, i, _ in reader.commits if start < i < r.index]
        checks = [x.result for x in reader.last_runs(r.index).values() if x.index > start]
        evidence = [e for e in (r.call, spec, *commits[-3:], *checks[-2:]) if e is not None]
        f = reader._finding(OUTCOME, reader._source(r.result), text, AGENT, r.result.timestamp, turn=r.turn)
        key = f"{reader.session.id}#item-{item}"
        out.append(replace(f, evidence_sources=tuple(reader._source(e) for e in evidence), episode=key,
                           generator="work-item"))
        if spec is not None:
            named, _ = named_paths(spec.text or "", reader.project)
            missing = [p for p in dict.fromkeys(named) if p.rsplit("/", 1)[-1] not in written and "." in p.rsplit("/", 1)[-1]
                       and not (reader.project and p.startswith("/"))]
            never = [p for p in missing if not any(p.rsplit("/", 1)[-1] in (x.command or "") for x in reader.runs)]
            if never:
                q = clean(f"{item} was closed, but its description names {', '.join(never[:3])}, which the session never wrote", 240)
                g = reader._finding(OPEN, reader._source(r.call or r.result), q, AGENT, r.result.timestamp, turn=r.turn)
                out.append(replace(g, evidence_sources=tuple(reader._source(e) for e in (spec, r.result)), episode=key,
                                   generator="work-item"))
    return out


# (`^[^\S\n]*` here and in `_PLAN_LINE`, not `^\s*`: the same matches but for their starts, which
# no caller reads, in linear time: re read each line of a run of blank lines to the run's end)
_PUSHED = re.compile(r"^[^\S\n]*(?:[0-9a-f]{7,}\.\.[0-9a-f]{7,}|\* \[new branch\])\s+(\S+)\s+->\s+(\S+)", re.M)


def git_state(reader: SessionReader, found: list[Finding]) -> list[Finding]:
    """What the session left in git: its commits and its last push (or its last commit when it
    pushed nothing) as one Outcome, with the final `git status`/`git log` output as evidence."""
    pushes = [r for r in reader.runs if re.search(r"\bgit\s+push\b", r.command) and not r.failed and not r.rejected]
    commits = [(i, h) for _, i, h in reader.commits]
    if reader.subagent or not (pushes or commits):
        return []
    last = pushes[-1] if pushes else None
    src = last.result if last is not None else reader.entries[commits[-1][0]]
    tail = [r.result for r in reader.runs if r.index > (commits[-1][0] if commits else -1)
            and re.search(r"\bgit\s+(?:status|log)\b", r.command)][-2:]
    hashes = ", ".join(h[:7] for _, h in commits[-6:])
    if last is not None:
        m = _PUSHED.search(last.text)
        where = f" to {m.group(2)}" if m else ""
        text = f"pushed{where}" + (f" after {len(commits)} commit(s) ({hashes})" if commits else "")
    else:
        text = f"{len(commits)} commit(s) ({hashes}), not pushed in the session"
    evidence = [reader.entries[i] for i, _ in commits[-4:] if reader.entries[i].id != src.id] + tail
    f = reader._finding(OUTCOME, reader._source(src), clean(text), AGENT, src.timestamp)
    return [replace(f, evidence_sources=tuple(reader._source(e) for e in evidence if e.id != src.id),
                    episode=f"{reader.session.id}#git", generator="git-state")]


def subagent_reports(reader: SessionReader, found: list[Finding]) -> list[Finding]:
    """A subagent's report returned to its parent is a source of its own: when no sentence rule
    found anything in it, its first substantive sentence is an Outcome of that subagent."""
    have = {f.source.entry_id for f in found}
    out: list[Finding] = []
    for m in reader.msgs:
        if m.kind != "report" or m.entry.id in have:
            continue
        text = _substance(quotable(m.text))
        if not text:
            continue
        f = reader._make(OUTCOME, m, f"a subagent reported: {text}")
        call = next((r.call for r in reader.runs if r.result.id == m.entry.id), None)
        ev = (reader._source(call),) if call is not None else ()
        out.append(replace(f, evidence_sources=(*f.evidence_sources, *ev), generator="subagent-report"))
    return out


_HOOK = re.compile(r"hook (?:additional context|feedback|blocking error)|\b(?:Pre|Post)ToolUse\b|pre-commit", _I)
_DIAGNOSTIC = re.compile(r"\[F\]|\[W\]|\berror\b|\bwarning\b|\bfailed\b|too (?:deep|complex)|\bmax\b", _I)


def hook_feedback(reader: SessionReader, found: list[Finding]) -> list[Finding]:
    """A hook's diagnostic injected into the session (a linter run on every edit) and what the
    agent does about it next: a Decision (a constraint, then an action), the hook output its
    evidence; when the agent's message is already a finding, the hook output joins its evidence."""
    by_source = {f.source.entry_id: k for k, f in enumerate(found)}
    made: set[str] = set()
    out: list[Finding] = []
    for i, e in enumerate(reader.entries):
        if e.role != "user" or e.kind not in (EntryKind.META, EntryKind.SYSTEM, EntryKind.TEXT):
            continue
        text = (e.text or "")[:4000]
        if not _HOOK.search(text) or not _DIAGNOSTIC.search(text):
            continue
        nxt = next((m for m in reader.msgs if m.index > i and reader.said(m)), None)
        if nxt is None or reader.is_user(nxt) or nxt.index - i > 12:
            continue
        if nxt.entry.id in made:
            continue
        if nxt.entry.id in by_source:
            k = by_source[nxt.entry.id]
            found[k] = replace(found[k], evidence_sources=(*found[k].evidence_sources, reader._source(e)))
            continue
        sents = quotable(nxt.text)
        said = next((s for s in sents if _ACTION.search(s)), "") or _substance(sents)
        if not said:
            continue
        f = reader._make(DECISION, nxt, said)
        out.append(replace(f, evidence_sources=(reader._source(e), *f.evidence_sources), generator="hook-feedback"))
        made.add(nxt.entry.id)
    return out


_BACKGROUND = re.compile(r"running in background with ID:?\s*(\w+)|moved to (?:the )?background", _I)


def background_jobs(reader: SessionReader, found: list[Finding]) -> list[Finding]:
    """A command that outran the tool's time limit and was moved to the background (not one the
    agent started there on purpose): a Failed approach under those conditions, with the notice,
    the later retrieval of its output and what the agent said about it as evidence."""
    out: list[Finding] = []
    for r in reader.runs:
        m = _BACKGROUND.search(r.text[:400])
        inp = r.call.tool_input if r.call is not None and isinstance(r.call.tool_input, dict) else {}
        if not m or inp.get("run_in_background"):
            continue
        job = m.group(1) or ""
        later = [x for x in reader.entries[r.index + 1 :] if x.kind is EntryKind.TOOL_RESULT and job and job in (x.text or "")[:600]]
        said = next((x for x in reader.msgs if x.index > r.index and reader.said(x) and not reader.is_user(x)), None)
        text = f"`{clean(r.command, 100)}` did not finish within the tool's time limit and ran in the background"
        timeout = inp.get("timeout")
        if isinstance(timeout, (int, float)):
            text += f" (timeout {int(timeout) // 1000} s)"
        f = reader._finding(FAILED, reader._source(r.result), clean(text), AGENT, r.result.timestamp, turn=r.turn)
        ev = [e for e in (r.call, *later[-1:], said.entry if said else None) if e is not None]
        out.append(replace(f, evidence_sources=tuple(reader._source(e) for e in ev), generator="background-job",
                           episode=f"{reader.session.id}#{r.result.id}"))
    return out


_PLAN_TOOLS = {"update_plan", "todowrite", "todo_write", "todos", "plan"}
_PLAN_LINE = re.compile(r"^[^\S\n]*\[(pending|in_progress|in progress|completed|done|todo)\]\s*(.+)$", re.I | re.M)


def _plan_items(call: Entry) -> list[tuple[str, str]]:
    """(status, item) of a plan or to-do list tool call (Claude Code's TodoWrite, Codex's update_plan)."""
    inp = call.tool_input
    items: list[tuple[str, str]] = []
    if isinstance(inp, dict):
        for key in ("todos", "plan", "items"):
            for it in inp.get(key) or []:
                if isinstance(it, dict):
                    what = it.get("content") or it.get("step") or it.get("title") or ""
                    items.append((str(it.get("status", "")).lower(), str(what)))
    if not items:
        items = [(m.group(1).lower(), m.group(2)) for m in _PLAN_LINE.finditer(call.text or "")]
    return items


def unfinished_plan(reader: SessionReader, found: list[Finding]) -> list[Finding]:
    """The session's last plan or to-do list, when items are still pending or in progress at its
    end: an Open question "open at that session's end", with what was done after it."""
    if reader.subagent:
        return []
    last = None
    for i, e in enumerate(reader.entries):
        if e.kind is EntryKind.TOOL_USE and (e.tool_name or "").lower() in _PLAN_TOOLS:
            last = (i, e)
    if last is None:
        return []
    i, call = last
    open_items = [what for status, what in _plan_items(call) if status not in ("completed", "done") and what.strip()]
    if not open_items:
        return []
    text = clean("the plan still had " + "; ".join(f"\"{clean(x, 90)}\"" for x in open_items[:3]) + " not completed", 240)
    after = [e for j, e, _ in reader.edit_log if j > i][-3:]
    f = reader._finding(OPEN, reader._source(call), text, AGENT, call.timestamp)
    return [replace(f, evidence_sources=tuple(reader._source(e) for e in after), generator="unfinished-plan",
                    episode=f"{reader.session.id}#plan")]


# -- all of them -------------------------------------------------------------------------------
GENERATORS = (failure_chains, interventions, slips, final_runs, closing_summaries, hook_feedback, reasoned_actions,
              work_items, git_state, subagent_reports, background_jobs, unfinished_plan)


def _strength(f: Finding) -> tuple[int, int, int]:
    return (f.generator not in ("", "text"), len(f.evidence_sources), f.evidence != "reported")


def _span(reader: SessionReader, f: Finding) -> tuple[int, int]:
    idx = [reader._at.get(s.entry_id, 0) for s in (f.source, *f.evidence_sources)]
    lo, hi = reader.spans.get(f.id, (min(idx), max(idx)))
    return min(lo, *idx), max(hi, *idx)


def _absorb(reader: SessionReader, found: list[Finding]) -> list[Finding]:
    """A failure the agent states in words ("That didn't work, reverting …") inside a chain's
    failure (between its failing run and the next run) is that failure: the statement is kept,
    with the chain's evidence and episode, and the chain's own finding for it goes."""
    drop: set[int] = set()
    out = list(found)
    for c, chain in enumerate(out):
        if chain.generator != "failure-chain" or chain.type != FAILED:
            continue
        lo, hi = _span(reader, chain)
        for k, f in enumerate(out):
            if k in drop or f.type != FAILED or f.generator == "failure-chain":
                continue
            at = reader._at.get(f.source.entry_id, -1)
            if lo <= at <= hi:
                extra = tuple(s for s in (chain.source, *chain.evidence_sources) if s.entry_id != f.source.entry_id)
                out[k] = replace(f, evidence_sources=tuple({s.entry_id: s for s in (*f.evidence_sources, *extra)}.values()),
                                 conditions=f.conditions or chain.conditions, episode=chain.episode,
                                 verified=f.verified or chain.verified, evidence=chain.evidence)
                drop.add(c)
                break
    return [f for k, f in enumerate(out) if k not in drop]


def run_generators(reader: SessionReader, found: list[Finding]) -> list[Finding]:
    """The text findings with every generator's added; one per (type, source entry), the better
    evidenced kept; text findings inside a failure chain take the chain's episode key."""
    out = list(found)
    for gen in GENERATORS:
        out.extend(gen(reader, out))
    best: dict[tuple[str, str], Finding] = {}
    for f in out:
        k = (f.type, f.source.entry_id)
        if k not in best:
            best[k] = f
            continue
        keep, other = (f, best[k]) if _strength(f) > _strength(best[k]) else (best[k], f)
        if other.generator == "text" and keep.generator != "text":
            # the sentence rules quote a message best ("That approach didn't work" with what it refers to)
            keep = replace(keep, text=other.text, extracted=other.text)
        best[k] = keep
    # what a generator quotes from tool output (an error line, a close reason, a plan item) is as
    # untrusted as any message: a finding whose words instruct an AI is never a finding
    kept = [f for f in _absorb(reader, list(best.values())) if not _injected(normalise(f"{f.text}\n{f.conditions}"))]
    chains = [f for f in kept if f.generator == "failure-chain"]
    spans: dict[str, tuple[int, int]] = {}
    for f in chains:
        idx = [reader._at.get(s.entry_id, 0) for s in (f.source, *f.evidence_sources)]
        lo, hi = spans.get(f.episode, (1 << 60, -1))
        spans[f.episode] = (min(lo, *idx), max(hi, *idx))
    if spans:
        for k, f in enumerate(kept):
            if f.generator == "failure-chain" or f.type not in (FAILED, CORRECTION):
                continue
            at = reader._at.get(f.source.entry_id, -1)
            for key, (lo, hi) in spans.items():
                if lo <= at <= hi:
                    kept[k] = replace(f, episode=key)
                    break
    return kept


__all__ = ["GENERATORS", "failure_chains", "final_runs", "interventions", "run_generators", "slips"]
