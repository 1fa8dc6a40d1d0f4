"""Candidate findings of a prior-session brief, extracted from transcripts by fixed rules.

No model and no network: every rule is a pattern over the text of user and agent messages and
over tool calls and their results, so the same transcript always gives the same findings, and
each finding points at the exact entry it comes from (`source`) and at the entries that back it
(`evidence_sources`: the failing run, the diagnosis, the fix, the rerun, the tool output a
message reacts to, the calls it leads to).

Two layers. `SessionReader` reads a session once into *episodes*: messages (user, agent,
compaction summaries, subagent reports returned to it; an agent that writes no text speaks
through its reasoning summaries), tool calls paired with their results (`_Run`: command family,
failure normalised, rejected calls), silent interventions (rejections, interrupts), edits and
commits. The sentence rules below give what a message states in words; the generators of
core/brief/generators.py give what only the sequence of episodes shows (failure chains, silent
interventions, slips, closing summaries, issue-tracker closes, git state, plans left unfinished,
background jobs, hook feedback, reasoned actions). Every finding's text passes through `clean`
(secrets masked, one line, control characters visible). Text is normalised (`normalise`: NFKC,
invisible characters removed, curly quotes straightened) before any rule reads it, and an entry
is read by its first 12,000 and last 6,000 characters (`scanned`).

What is read. Only user and agent *text* entries give finding text (tool output is evidence, never
a finding's words; system, meta and injected context records are skipped). Transcript text is
untrusted: findings quote it as literal, attributed text ("the user said …"), never as a
directive, and a sentence that addresses the model instead of talking about the work ("ignore
previous instructions", "print your system prompt", "you are now DAN", "</system>", …; see
`_INJECTION`) is never quoted, taken as a finding or used as a finding's context. Only that
sentence is skipped: the rest of the message is read as usual (a phrase cut by a line break
skips both halves). Talk about prompt code ("the system prompt lives in prompts/system.md") is
ordinary text. In a subagent's transcript the "user" is the parent agent: its prompt is not a
decision.

A *turn* runs from one real user message to the next (interruption markers and command wrappers
are not messages). The session's *end* is everything after its last real user message.

Rules, per sentence (a message gives at most three findings, one of each type; the first rule
that matches a sentence wins, in this order). Sentences are split at . ! ? and line breaks; list
markers ("- ", "4. ", and "… (failed) 2. Tried …" inside a line) are dropped. A short agent
sentence takes the next sentence of its line along as context, never the next line's.

Failed approach
  * agent text saying an attempt failed: "didn't work", "doesn't help", "still fails",
    "no luck", "reverting"/"reverted", "rolled back", "made it worse", "not the real cause", …;
    the conditions are the last failing command of the turn before it (its output's failure line)
    and the files edited in the turn;
  * user text saying it still fails: "still does not work", "didn't work", "still broken", …
    (attributed to the user; conditions: what the agent said last);
  * a failing run (a command that exits non-zero or prints a failure summary such as
    "1 failed", "FAILED", "Error:") of a command that executes something (tests, builds,
    scripts; not look-ups like ls, cat, rg, git status) followed, before the next user message,
    by agent text that changes course ("instead", "switch", "the problem is", "because", "forgot",
    …): the source is the failing tool result.
  Failures are stated with their conditions ("after …", "when …"), never as a general rule.

Correction (attributed to whoever said it)
  * a user message the agent then acknowledges ("you're right", "right —", "good catch",
    "my mistake", "sorry", "你說得對", …);
  * a user message right after the user rejected a tool call or interrupted the agent;
  * a user message opening with "no", "actually", "wrong", "don't", "stop", "instead", "不對",
    … or saying "you forgot", "not what I asked", "I meant", …;
  * agent text correcting itself: "I was wrong", "correction:", "on second thought", "I misread".

Decision
  * "let's use/go with/keep/switch to …", "we'll go with …", "decided", "decision", "we chose",
    "going with", "opted for", "settled on", "agreed on", "X instead of / rather than / over Y",
    "in favour of", "for now";
  * a user's short answer to the question that ended the agent's previous message
    ("per-endpoint eventually, global for now" after "…per-endpoint or global?").

Outcome
  * agent text reporting success: "tests pass", "48 passed", "is fixed", "works now",
    "is clean", "succeeded", "went Ready", "reaches N", "went from A to B", …
  * label `verified then` when the last check run of the same turn before it (tests, build,
    lint, plan, benchmark; the tool named in the command's code, not in a heredoc or a quoted
    option such as `bd create --description="… mix test …"`) succeeded: no failure marker, and a success marker ("N passed",
    "ok", "✓", "No changes.", "exit code 0") or a zero exit; the detail gives the date, the
    command, the output line and a commit hash when the turn committed. When that run failed,
    the outcome is `conflicting` and the run is shown beside it. Without a run it is `reported`.

Open question (only at the session's end)
  * "still open", "open question", "unresolved", "TBD", "TODO", "needs a migration/decision",
    "your call", "whether to/we/it …", "should we …", "do we need …";
  * a question that ends the agent's last message.
  It is worded "open at that session's end", never "still unresolved".

Later in the same session: a correction that shares the subject of an earlier decision
(two or more content words, or the earlier choice is what the correction rejects) supersedes it:
the decision is dropped and listed under the correction's `supersedes`. An outcome contradicted
by a later failure report on the same subject becomes `conflicting`.

Across sessions: two decisions where one chooses what the other rejects ("A instead of B" vs
"B instead of A") conflict; the newer is kept and shows the older. Findings of one type whose
content words overlap strongly (containment ≥ 0.7, ≥ 3 words) are merged: the best-evidenced,
then newest, is kept and the others become `also_from`. A finding whose words are contained in
one of the project's memory notes (containment ≥ 0.6, ≥ 3 words) records that note in
`in_memory` (core/brief/merge.py).

Where the parts are: the patterns each rule matches and the text helpers (`clean`, `sentences`,
`quotable`, ...) in core/brief/patterns.py; the episode types, `scanned` and the run keys in
core/brief/episodes.py; the `Finding` record, its types and evidence labels in
core/brief/finding.py. This file holds `SessionReader`, which applies the rules, and `extract`.
"""
from __future__ import annotations

import hashlib
import os
import re
from dataclasses import replace
from datetime import datetime, timezone
from typing import Sequence

from ..model import Entry, EntryKind, Session, SessionKind
from .finding import (
    AGENT,
    CONFLICTING,
    CORRECTION,
    Conflict,
    DECISION,
    FAILED,
    Finding,
    MAX_PER_MESSAGE,
    MAX_SENTENCES,
    OPEN,
    OUTCOME,
    REPORTED,
    Source,
    USER,
    VERIFIED_THEN,
)
from .patterns import (
    _ACK,
    _ANAPHOR,
    _CHECK_CMD,
    _CLEAN_PASS,
    _COMMIT,
    _CORRECTION_ANY,
    _CORRECTION_START,
    _DECISION,
    _ELLIPTICAL,
    _FAILED_AGENT,
    _FAILED_USER,
    _FAIL_COUNT,
    _FAIL_SUMMARY,
    _I,
    _IDE_REQUEST,
    _IMPLICIT_DECISION,
    _INTENT,
    _INTERRUPT,
    _LOOKUP,
    _NEGATED,
    _NOISE_USER,
    _OPEN,
    _OUTCOME,
    _PLAIN_INTERRUPT,
    _QUESTION_END,
    _SELF_CORRECTION,
    _STRONG_DECISION,
    _SUCCESS,
    _choice,
    _injected,
    _quotable_pieces,
    clean,
    command_of,
    content_words,
    edited_files,
    failure_line,
    named_paths,
    named_symbols,
    negated_failure,
    normalise,
    quotable,
    shell_code,
    similarity,
    success_line,
)
from .episodes import _Event, _Msg, _Run, command_family, error_key, scanned


# -- walking a session ---------------------------------------------------------------------------

_SUMMARY = re.compile(r"^\s*(?:This session is being continued from a previous conversation|Your task is to create a detailed summary)", _I)
_REJECTED = re.compile(r"doesn'?t want to proceed with this tool use|tool use was rejected|user rejected|"
                       r"the user (?:denied|declined)", _I)
_SUBAGENT_TOOLS = {"task", "agent", "spawn_agent", "subagent"}
_SIBLING = re.compile(r"Sibling tool call errored|<tool_use_error>", _I)


def _real_user_text(e: Entry) -> str | None:
    if e.role != "user" or e.kind is not EntryKind.TEXT:
        return None
    text = e.text or ""
    m = _IDE_REQUEST.search(text)
    if m:
        text = text[m.end() :]
    if not text.strip() or _NOISE_USER.match(text):
        return None
    return text


def _is_agent_text(e: Entry) -> bool:
    return e.role == "assistant" and e.kind is EntryKind.TEXT and bool((e.text or "").strip())


class SessionReader:
    """One session read once into what the generators work on (its *episodes*): the messages of
    each turn (user, agent, compaction summaries, subagent reports returned to it), tool calls
    paired with their results (rejected calls, interrupts and background jobs included), the files
    edited and the commits made. `entries` are the session's entries in file order (all branches
    may be passed; only the active branch is read)."""

    def __init__(self, session: Session, entries: Sequence[Entry]) -> None:
        self.session = session
        self.entries = [e for e in entries if e.on_active_branch]
        self.project = session.project
        self.subagent = session.kind is SessionKind.SUBAGENT or (
            session.parent_id is not None and session.kind is not SessionKind.MAIN)
        self.runs: list[_Run] = []
        self.msgs: list[_Msg] = []
        self.events: list[_Event] = []
        self.edits: dict[int, list[str]] = {}  # turn -> files edited
        self.edit_log: list[tuple[int, Entry, list[str]]] = []  # (index, call, files) in order
        self.commits: list[tuple[int, int, str]] = []  # (turn, index, hash)
        self.interrupted_before: set[int] = set()  # indexes of user messages right after an interruption
        self._at = {e.id: i for i, e in enumerate(self.entries)}
        self.closing: set[int] = set()  # positions of closing messages (set by `findings`)
        self.spans: dict[str, tuple[int, int]] = {}  # finding id -> entry positions of a chain's failure
        self._walk()

    def _walk(self) -> None:
        calls: dict[str, Entry] = {}
        last_call: Entry | None = None
        turn = 0
        interrupted = False
        thoughts: list[_Msg] = []
        for i, e in enumerate(self.entries):
            text = scanned(e.text or "")
            if e.kind is EntryKind.TOOL_USE:
                if e.tool_use_id:
                    calls[e.tool_use_id] = e
                last_call = e
                files = edited_files(e, self.project)
                if files:
                    self.edits.setdefault(turn, []).extend(files)
                    self.edit_log.append((i, e, files))
                continue
            if e.kind is EntryKind.TOOL_RESULT:
                call = calls.get(e.tool_use_id or "") or last_call
                head = text[:300]
                rejected = bool(_REJECTED.search(head))
                if _INTERRUPT.search(head):
                    interrupted = True
                    self.events.append(_Event(e, i, turn, "rejected" if rejected else "interrupted", call))
                name = ((call.tool_name if call is not None else None) or e.tool_name or "").lower()
                if name in _SUBAGENT_TOOLS and not rejected and text.strip():
                    self.msgs.append(_Msg(e, i, turn, AGENT, normalise(text), "report"))
                cmd = command_of(call) if call is not None else ""
                if cmd:
                    sibling = bool(_SIBLING.search(head))
                    executes = not _LOOKUP.match(cmd)
                    # a look-up's output is read for nothing but its exit status (it may be a whole file)
                    failed = (e.is_error or (executes and bool(_FAIL_SUMMARY.search(text)) and not (
                        _CLEAN_PASS.search(text[-600:]) and not _FAIL_COUNT.search(text[-600:])))) \
                        and not rejected and not sibling
                    succeeded = not failed and not rejected and not sibling and (not e.is_error or bool(_SUCCESS.search(text)))
                    check = bool(_CHECK_CMD.search(shell_code(cmd)))
                    err = error_key(text)[0] if failed else ""
                    self.runs.append(_Run(call, e, cmd, failed, succeeded, check, executes, turn, i,
                                          command_family(cmd), err, text, rejected or sibling))
                    if "git commit" in cmd:
                        m = _COMMIT.search(text)
                        if m:
                            self.commits.append((turn, i, m.group(1)))
                continue
            if e.role == "user" and e.kind is EntryKind.TEXT and _PLAIN_INTERRUPT.search(text):
                interrupted = interrupted or bool(_INTERRUPT.search(text[:200]))
                self.events.append(_Event(e, i, turn, "interrupted", last_call))
                continue
            if e.role == "user" and e.kind is EntryKind.TEXT and _SUMMARY.match(text):
                self.msgs.append(_Msg(e, i, turn, AGENT, normalise(text), "summary"))
                continue
            user_text = _real_user_text(e)
            if user_text is not None:
                turn += 1
                self.msgs.append(_Msg(e, i, turn, AGENT if self.subagent else USER, normalise(scanned(user_text))))
                if interrupted:
                    self.interrupted_before.add(i)
                interrupted = False
                continue
            if _is_agent_text(e):
                self.msgs.append(_Msg(e, i, turn, AGENT, normalise(text)))
            elif e.role == "assistant" and e.kind is EntryKind.THINKING and (e.text or "").strip():
                thoughts.append(_Msg(e, i, turn, AGENT, normalise(text), "thought"))
        # an agent that writes no text at all (Codex runs often) speaks through its reasoning summaries
        if thoughts and not any(m.entry.role == "assistant" and m.kind == "said" for m in self.msgs):
            self.msgs = sorted([*self.msgs, *thoughts], key=lambda m: m.index)

    # -- public ------------------------------------------------------------------------------
    def said(self, msg: _Msg) -> bool:
        """A message someone wrote (or the reasoning of an agent that writes no text), not a
        summary or a subagent's report."""
        return msg.kind in ("said", "thought")

    def is_user(self, msg: _Msg) -> bool:
        return msg.kind == "said" and msg.entry.role == "user"

    def findings(self) -> list[Finding]:
        """Every candidate of the session: the text rules on each message, then the generators
        over the episodes (see core/brief/generators.py), one finding per (type, source) kept."""
        from .generators import run_generators

        out: list[Finding] = []
        user_idx = [m.index for m in self.msgs if self.is_user(m)]
        last_user = user_idx[-1] if user_idx else -1
        agent_msgs = [m for m in self.msgs if self.said(m) and m.entry.role == "assistant"]
        last_agent = agent_msgs[-1].index if agent_msgs else -1
        closing = self.closing = self.closing_messages()
        for n, msg in enumerate(self.msgs):
            if self.is_user(msg):
                if self.subagent:
                    continue  # the parent agent's prompt: instructions, not decisions
                f = self._user_finding(msg, n)
                if f is not None:
                    out.append(f)
                continue
            # a subagent's transcript never has "the session's end": its parent goes on
            end = self.said(msg) and not self.subagent and msg.index > last_user
            out.extend(self._agent_findings(msg, n, at_end=end, last=end and msg.index == last_agent,
                                            closing=msg.index in closing or not self.said(msg)))
        out = run_generators(self, out)
        return _supersede(sorted(out, key=self._pos))

    def _pos(self, f: Finding) -> int:
        return self._at.get(f.source.entry_id, 0)

    def closing_messages(self) -> set[int]:
        """Indexes of the agent's closing messages: its last message of each turn, and any message
        after which it stopped (no tool call or message of its own before the next user or system
        record: a turn's end that a background task's notification continued)."""
        last: dict[int, int] = {}
        for m in self.msgs:
            if m.kind in ("said", "thought") and m.entry.role == "assistant":
                last[m.turn] = m.index
        out = set(last.values())
        pending: int | None = None
        for i, e in enumerate(self.entries):
            if e.kind is EntryKind.THINKING:
                continue
            if e.role == "assistant" and e.kind is EntryKind.TEXT and (e.text or "").strip():
                pending = i
            elif e.role == "assistant" or e.kind in (EntryKind.TOOL_USE, EntryKind.TOOL_RESULT):
                pending = None
            elif pending is not None:
                out.add(pending)
                pending = None
        return out

    # -- rules ---------------------------------------------------------------------------------
    def _user_finding(self, msg: _Msg, n: int) -> Finding | None:
        sents = [s for s in quotable(msg.text) if len(s) >= 2]
        if not sents:
            return None
        body = " ".join(sents)
        nxt = self.msgs[n + 1] if n + 1 < len(self.msgs) else None
        acked = nxt is not None and self.said(nxt) and nxt.entry.role == "assistant" and bool(_ACK.search(nxt.text))
        prev_agent = next((m for m in reversed(self.msgs[:n]) if self.said(m) and m.entry.role == "assistant"), None)
        first = self.msgs[0] is msg or not any(self.is_user(m) for m in self.msgs[:n])
        if _FAILED_USER.search(body) and not first:
            said = quotable(prev_agent.text) if prev_agent else []
            cond = f"after the agent said \"{clean(said[-1], 120)}\"" if said else ""
            return self._make(FAILED, msg, body, conditions=cond)
        # a question to the agent ("did you push?") is a question, not a correction, unless it says one
        question = bool(_QUESTION_END.search(body)) and not _CORRECTION_ANY.search(body) \
            and msg.index not in self.interrupted_before
        if not first and not question and (acked or msg.index in self.interrupted_before
                                           or _CORRECTION_START.search(body) or _CORRECTION_ANY.search(body)):
            return self._make(CORRECTION, msg, body, choice=_choice(body))
        cue = _STRONG_DECISION if first else _DECISION
        picked = [s for s in sents if cue.search(s) and not _NEGATED.search(s) and not _QUESTION_END.search(s)]
        if picked:
            return self._make(DECISION, msg, " ".join(picked[:2]), choice=_choice(picked[0]))
        if prev_agent is not None and not first and len(body) < 300 and not _QUESTION_END.search(body) \
                and not _NEGATED.search(body):
            prev_sents = quotable(prev_agent.text)
            if prev_sents and _QUESTION_END.search(prev_sents[-1]):
                return self._make(DECISION, msg, body, context=f"answering \"{clean(prev_sents[-1], 140)}\"")
        return None

    def _previous_sentence(self, n: int, pieces: list[tuple[str, bool]], k: int) -> str:
        """The sentence before sentence `k` of message `n`: in the message, else the last one of
        the agent's previous message in the same turn."""
        if k > 0:
            return pieces[k - 1][0]
        msg = self.msgs[n]
        for m in reversed(self.msgs[:n]):
            if m.turn != msg.turn or self.is_user(m):
                break
            prev = quotable(m.text)
            if prev:
                return prev[-1]
        return ""

    def _referent(self, n: int, pieces: list[tuple[str, bool]], k: int, kind: str) -> str:
        """What "that"/"this"/"it" at the start of sentence `k` of message `n` refers to: for a
        failure ("That approach didn't work"), the agent's last statement of what it would try,
        earlier in the turn; otherwise the sentence before."""
        if kind == FAILED:
            msg = self.msgs[n]
            own = [p for p, _ in pieces[:k]]
            for m in [None, *reversed(self.msgs[:n])]:
                if m is not None and (m.turn != msg.turn or self.is_user(m) or not self.said(m)):
                    break
                sents = own if m is None else quotable(m.text)
                for sent in reversed(sents):
                    if _INTENT.search(sent) and not _QUESTION_END.search(sent):
                        return sent
        return self._previous_sentence(n, pieces, k)

    def _agent_findings(self, msg: _Msg, n: int, *, at_end: bool, last: bool, closing: bool) -> list[Finding]:
        out: list[Finding] = []
        pieces = _quotable_pieces(msg.text)[:MAX_SENTENCES]
        sents = [p for p, _ in pieces]
        seen: set[str] = set()
        k = 0
        while k < len(sents) and len(out) < MAX_PER_MESSAGE:
            s = sents[k]
            k += 1
            if len(s) < 8:
                continue
            # a question counts as open only when it ends the session's last message
            kind = self._agent_kind(s, at_end=at_end, last=last and k == len(sents), closing=closing)
            if kind is None or kind in seen:
                continue  # one finding of each type per message: the first is the statement
            seen.add(kind)
            text = s
            # "That didn't work": quote what "that" refers to, the sentence before it
            if _ANAPHOR.match(s):
                before = self._referent(n, pieces, k - 1, kind)
                if before and not _injected(before) and not _QUESTION_END.search(before):
                    text = f"{before} {s}"
            # a short sentence takes the next one of its line along, for context, unless that one is a
            # finding itself (a new line is a new list item or paragraph)
            if len(s) < 70 and k < len(sents) and not pieces[k][1] \
                    and self._agent_kind(sents[k], at_end=at_end, last=last, closing=closing) is None:
                text = f"{text} {sents[k]}"
                k += 1
            # an elliptical answer ("Not decided yet.") quotes the user's question it answers
            if k == 1 and len(text) < 40 and _ELLIPTICAL.match(text) and n > 0 and self.is_user(self.msgs[n - 1]):
                asked = quotable(self.msgs[n - 1].text)
                if asked and _QUESTION_END.search(asked[-1]):
                    text = f"{text} (answering \"{asked[-1]}\")"
            if kind == FAILED:
                out.append(self._make(FAILED, msg, text, conditions=self._conditions(msg)))
            elif kind == OUTCOME:
                out.append(self._outcome(msg, text))
            elif kind == DECISION:
                out.append(self._make(DECISION, msg, text, choice=_choice(s)))
            else:
                out.append(self._make(kind, msg, text))
        return out

    @staticmethod
    def _agent_kind(s: str, *, at_end: bool, last: bool, closing: bool = True) -> str | None:
        if _FAILED_AGENT.search(s) and not negated_failure(s):
            return FAILED
        if _SELF_CORRECTION.search(s):
            return CORRECTION
        if at_end and (_OPEN.search(s) or (last and _QUESTION_END.search(s))):
            return OPEN
        if _QUESTION_END.search(s):
            return None
        if _DECISION.search(s) or _IMPLICIT_DECISION.search(s):
            return None if _NEGATED.search(s) else DECISION
        # "N tests pass" in the middle of a turn is routine; what a turn ends on is its outcome
        if closing and _OUTCOME.search(s) and not _NEGATED.search(s):
            return OUTCOME
        return None

    def _turn_of(self, f: Finding) -> int:
        for m in self.msgs:
            if m.entry.id == f.source.entry_id:
                return m.turn
        return -1

    def _conditions(self, msg: _Msg) -> str:
        runs = [r for r in self.runs if r.turn == msg.turn and r.index < msg.index and r.failed and r.executes]
        parts = []
        files = [f for i, _, fs in self.edit_log if i < msg.index and self._turn_at(i) == msg.turn for f in fs]
        if files:
            parts.append("after editing " + ", ".join(dict.fromkeys(files[-3:])))
        if runs:
            r = runs[-1]
            parts.append(f"`{clean(r.command, 100)}` gave: {clean(failure_line(r.result.text), 120)}")
        return "; ".join(parts)

    def _turn_at(self, index: int) -> int:
        """The turn an entry position lies in."""
        import bisect

        if not hasattr(self, "_turn_starts"):
            starts = [(m.index, m.turn) for m in self.msgs if self.is_user(m)]
            self._turn_starts = ([i for i, _ in starts], [t for _, t in starts])
        idx, turns = self._turn_starts
        k = bisect.bisect_right(idx, index)
        return turns[k - 1] if k else 0

    def last_runs(self, before: int, turn: int | None = None) -> dict[str, _Run]:
        """The last check run of each command family before entry `before` (in `turn` if given)."""
        out: dict[str, _Run] = {}
        for r in self.runs:
            if r.index >= before or not r.check or r.rejected or (turn is not None and r.turn != turn):
                continue
            out[r.family] = r
        return out

    def _outcome(self, msg: _Msg, text: str) -> Finding:
        """A reported outcome checked against the last run of each check family of its turn: a
        failing one makes it `conflicting` (both shown), passing ones back it (`verified then`)."""
        f = self._make(OUTCOME, msg, text)
        runs = list(self.last_runs(msg.index, msg.turn).values())
        if not runs:
            return f
        runs.sort(key=lambda r: r.index)
        backing = tuple(self._source(r.result) for r in runs)
        failed = [r for r in runs if r.failed]
        if failed:
            r = failed[-1]
            conflict = Conflict(self._source(r.result), clean(f"`{r.command}` → {error_key(r.text)[1]}", 200),
                                "the last run of this check before the report failed")
            return replace(f, evidence=CONFLICTING, conflicts=(conflict,), evidence_sources=backing)
        r = runs[-1]
        commit = next((h for t, i, h in self.commits if t == msg.turn), None)
        detail = f"{_date(r.result.timestamp)}: `{clean(r.command, 80)}` → {clean(success_line(r.result.text), 80)}"
        if commit:
            detail += f", commit {commit[:12]}"
        return replace(f, evidence=VERIFIED_THEN, verified=detail, evidence_sources=backing)

    # -- construction --------------------------------------------------------------------------
    def _source(self, e: Entry) -> Source:
        return Source(self.session.agent, self.session.id, e.id, e.locator, e.timestamp, e.role)

    def _make(self, type_: str, msg: _Msg, text: str, *, conditions: str = "", context: str = "",
              choice: tuple[tuple[str, ...], tuple[str, ...]] = ((), ())) -> Finding:
        quoted = clean(text)
        if context:
            quoted = f"{quoted} ({context})"
        verified = ""
        evidence: tuple[Source, ...] = ()
        if type_ == FAILED and msg.role == AGENT and "gave:" in conditions:
            run = [r for r in self.runs if r.turn == msg.turn and r.index < msg.index and r.failed and r.executes][-1]
            verified = f"{_date(run.result.timestamp)}: the tool output shows the failure"
            evidence = (self._source(run.result),)
        f = self._finding(type_, self._source(msg.entry), quoted, msg.role, msg.entry.timestamp,
                          conditions=conditions, choice=choice, turn=msg.turn, verified=verified)
        gen = {"summary": "compaction-summary", "report": "subagent-report"}.get(msg.kind, "text")
        around = tuple(self._source(e) for e in self.context_of(msg) if e.id not in {x.entry_id for x in evidence})
        return replace(f, evidence_sources=(*evidence, *around), episode=f"{self.session.id}#{msg.entry.id}",
                       generator=gen)

    def context_of(self, msg: _Msg) -> list[Entry]:
        """The entries a message stands on and leads to, cited as its evidence: for the agent, the
        tool output it reacts to and its reasoning just before, then the calls it makes next (up to
        three, edits first); for the user, the agent's message before and its reply after."""
        i = msg.index
        out: list[Entry] = []
        if msg.entry.role == "user" and msg.kind == "said":
            before = next((m for m in reversed(self.msgs) if m.index < i and self.said(m) and m.entry.role == "assistant"), None)
            after = next((m for m in self.msgs if m.index > i and self.said(m) and m.entry.role == "assistant"), None)
            return [m.entry for m in (before, after) if m is not None]
        if msg.kind not in ("said", "thought"):
            return []
        for j in range(i - 1, max(-1, i - 4), -1):
            e = self.entries[j]
            if e.kind is EntryKind.THINKING and e.role == "assistant" and (e.text or "").strip():
                out.append(e)
            elif e.kind is EntryKind.TOOL_RESULT:
                out.append(e)
                break
            elif e.kind is not EntryKind.THINKING:
                break
        calls: list[Entry] = []
        for e in self.entries[i + 1 : i + 16]:
            if e.kind is EntryKind.TOOL_USE:
                calls.append(e)
            elif e.kind is EntryKind.TEXT and (e.role == "assistant" or _real_user_text(e) is not None):
                break
        calls.sort(key=lambda e: not edited_files(e, self.project))
        return out + calls[:3]

    def _finding(self, type_: str, src: Source, text: str, who: str, ts: datetime | None, *, conditions: str = "",
                 choice: tuple[tuple[str, ...], tuple[str, ...]] = ((), ()), turn: int | None = None,
                 verified: str = "") -> Finding:
        raw = f"{text} {conditions}"
        paths, tests = named_paths(raw, self.project)
        symbols = list(dict.fromkeys([*named_symbols(raw), *tests]))
        # the files it concerns: those it names, else the next ones edited in its turn (what it led
        # to), else the last ones edited before it (what it is about)
        at = self._at.get(src.entry_id, len(self.entries))
        t = turn if turn is not None else self._turn_at(at)
        near = [(i, f) for i, _, fs in self.edit_log if self._turn_at(i) == t for f in fs]
        after = list(dict.fromkeys(f for i, f in near if i > at))[:3]
        before = list(dict.fromkeys(f for i, f in reversed(near) if i < at))[:3]
        scope_files = paths or after or before
        scope = ", ".join(scope_files[:3])
        branch = self.session.git_branch
        if branch and branch not in ("main", "master", "HEAD"):
            scope = f"{scope}; branch {branch}" if scope else f"branch {branch}"
        if not scope:
            scope = os.path.basename((self.project or "").rstrip("/")) or "this session"
        fid = hashlib.sha1(f"{type_}|{src.session_id}|{src.entry_id}|{text[:80]}".encode()).hexdigest()[:10]
        return Finding(
            id=fid, type=type_, text=text, attribution=who, date=ts, source=src, scope=clean(scope, 160),
            conditions=clean(conditions, 200) if conditions else "",
            evidence=VERIFIED_THEN if verified else REPORTED, verified=verified,
            paths=tuple(paths), symbols=tuple(symbols), choice=choice,
        )


def _date(ts: datetime | None) -> str:
    return ts.astimezone(timezone.utc).date().isoformat() if ts else "undated"


def _supersede(findings: list[Finding]) -> list[Finding]:
    """Within one session (file order): a later correction on the same subject as an earlier
    decision replaces it; a later failure report on an outcome's subject contradicts it."""
    out = list(findings)
    drop: set[int] = set()
    for j, later in enumerate(out):
        if later.type not in (CORRECTION, FAILED):
            continue
        lw = content_words(later.text)
        for i in range(j):
            if i in drop:
                continue
            early = out[i]
            sim, shared = similarity(content_words(early.text), lw)
            rejected_now = bool(set(early.choice[0]) & set(content_words(later.text))) and later.type == CORRECTION \
                and bool(re.search(r"\b(?:instead|not|no|don'?t|rather)\b", later.text, _I))
            if later.type == CORRECTION and early.type == DECISION and (shared >= 2 or rejected_now):
                drop.add(i)
                out[j] = later = replace(later, supersedes=(*later.supersedes, early.source))
            elif later.type == FAILED and early.type == OUTCOME and shared >= 2 and sim >= 0.2:
                conflict = Conflict(later.source, later.text, "a later message in the session reports a failure")
                out[i] = replace(early, evidence=CONFLICTING, conflicts=(*early.conflicts, conflict))
    return [f for i, f in enumerate(out) if i not in drop]


def extract(session: Session, entries: Sequence[Entry]) -> list[Finding]:
    """Every candidate finding of one session, in file order (not yet scored for a task)."""
    return SessionReader(session, entries).findings()


__all__ = ["SessionReader", "extract"]
