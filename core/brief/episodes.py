"""What a session is read into (core/brief/findings.py's `SessionReader`): its episodes, a tool run
(`_Run`: a call with its result, its command family and its failure normalised), a message
(`_Msg`) and a silent intervention (`_Event`); the part of an entry's text the rules read
(`scanned`); and the two keys runs are compared by, `command_family` and `error_key`."""
from __future__ import annotations

import os
import re
from dataclasses import dataclass

from ..model import Entry
from .patterns import _lines, failure_line, shell_code

SCAN_HEAD = 12_000  # characters of one entry's text that the rules read from its start …
SCAN_TAIL = 6_000  # … and from its end (a test run's summary is at the end of its output)


def scanned(text: str) -> str:
    """The part of an entry's text the rules read: all of it up to SCAN_HEAD + SCAN_TAIL
    characters, else its head and tail (a 20 MB line costs no more than a short one)."""
    if len(text) <= SCAN_HEAD + SCAN_TAIL:
        return text
    return text[:SCAN_HEAD] + "\n…\n" + text[-SCAN_TAIL:]


@dataclass
class _Run:
    """A tool call with a shell command and its result: one run of a command family."""

    call: Entry | None
    result: Entry
    command: str
    failed: bool
    succeeded: bool
    check: bool  # a test/build/lint/plan/bench command
    executes: bool  # not a look-up
    turn: int
    index: int  # the result's position
    family: str = ""  # what makes two runs the same command (see `command_family`)
    error: str = ""  # the failure, normalised for comparison ("" when it passed)
    text: str = ""  # the result's text as scanned
    rejected: bool = False  # the user refused the call


@dataclass
class _Msg:
    entry: Entry
    index: int
    turn: int
    role: str  # USER | AGENT (who said it, for attribution)
    text: str
    kind: str = "said"  # "said" (a message) | "summary" (a compaction summary) | "report" (a subagent's)


@dataclass
class _Event:
    """A silent intervention: a tool call the user rejected, or an interrupt."""

    entry: Entry
    index: int
    turn: int
    kind: str  # "rejected" | "interrupted"
    call: Entry | None


_FAMILY_SKIP = re.compile(r"^(?:cd\s+\S+|export\s+\S+|source\s+\S+|\.\s+\S+|set\s+-\S+|\w+=\S*|time|sudo|env|"
                          r"uv run|poetry run|pipenv run|bundle exec|npx|pnpm exec|yarn dlx|python3?\s+-m|timeout\s+\d+\w*)$")


def command_family(command: str) -> str:
    """What makes two runs the same command: its program and subcommand, without `cd …&&`,
    environment assignments, wrappers (`uv run`, `npx`, `python -m`), arguments that are paths or
    options, and output plumbing (`2>&1 | tail`). `mix test test/a_test.exs 2>&1 | tail -5` and
    `mix test` are one family ("mix test"), `pytest -x tests/x.py` is "pytest"."""
    code = shell_code(command).strip().split("\n")[0]
    parts = re.split(r"\s*(?:&&|;|\|\|)\s*", code)
    for part in parts:
        part = re.split(r"\s+\|\s*", part)[0]
        words = [w for w in part.split() if not re.match(r"^\d?>|^<|^&?>", w)]
        if words and words[0] in ("for", "while", "until", "if", "case", "done", "fi", "esac", "echo", "printf"):
            continue  # a loop's header or a message: the command is in the body
        while words and words[0] in ("do", "then", "else", "{", "(", "!"):
            words = words[1:]
        while words:
            for n in (2, 1):
                if len(words) >= n and _FAMILY_SKIP.match(" ".join(words[:n])):
                    words = words[n:]
                    break
            else:
                break
        if not words:
            continue
        prog = os.path.basename(words[0])
        sub = [w for w in words[1:3] if re.fullmatch(r"[a-z][\w:-]*", w) and not w.startswith("-")]
        sub = sub[:2] if len(sub) >= 2 and sub[0] in ("run", "exec", "x") else sub[:1]
        return " ".join([prog, *sub]) if sub and prog not in ("python", "python3", "node", "bash", "sh") else prog
    return code[:40]


_ERROR_LINE = re.compile(r"\*\* \(\w|\b\w*(?:Error|Exception)\b|\berror(?:\[E\d+\]| TS\d+)?:|\bFAILED\b|\bFAIL\b|^\s*\d+\) test\b"
                         r"|\bpanicked\b|\bcommand not found\b|\bfatal:|\bcannot\b|\bcould not\b|\bundefined\b|\bassert", re.I | re.M)
_ERROR_STATED = re.compile(r"\b[A-Z]\w*(?:Error|Exception)\b:?|\berror(?:\[E\d+\]| TS\d+)?:|\*\* \(\w|^\s*\d+\) test\b|\bFAILED\b .*::")
_VOLATILE = re.compile(r"0x[0-9a-f]+|\b[0-9a-f]{7,}\b|[\w.~-]*/[\w./-]+|\d+(?:\.\d+)?|\"[^\"]*\"|'[^']*'", re.I)
# (`_VOLATILE` with its path tried only from the start of a run of `[\w.~-]`: from any place of a run
# it reads to the run's end, so where it fails at one place it fails at the next; see `_volatile_sub`)
_VOLATILE_RUN_START = re.compile(_VOLATILE.pattern.replace("|[\\w.~-]*/", "|(?<![\\w.~-])[\\w.~-]*/"), re.I)
_RUN = re.compile(r"[\w.~-]*")
_RUN_CHAR = re.compile(r"[\w.~-]")
_PATH_AFTER = re.compile(r"/[\w./-]")


def _volatile_sub(line: str) -> str:
    """`_VOLATILE.sub("#", line)` in linear time (a line of one 30 KB word took 4.7 s: re read its
    path from each place of the word to the word's end). A search from the middle of a run (where
    the last match ended) tries `_VOLATILE` there, its path only where the run's end goes on with
    one (known once a run); any later place of the run has had the place before it fail."""
    out, pos, run = [], 0, (0, 0, False)  # run: (start, end, whether a path goes on at its end)
    while True:
        m = None
        if 0 < pos < len(line) and _RUN_CHAR.match(line, pos - 1):  # (in a run)
            if not run[0] <= pos < run[1]:
                end = _RUN.match(line, pos).end()
                run = (pos, end, bool(_PATH_AFTER.match(line, end)))
            m = (_VOLATILE if run[2] else _VOLATILE_RUN_START).match(line, pos)
            if m is None:
                m = _VOLATILE_RUN_START.search(line, pos + 1)
        else:
            m = _VOLATILE_RUN_START.search(line, pos)
        if m is None:
            out.append(line[pos:])
            return "".join(out)
        out += [line[pos:m.start()], "#"]
        pos = m.end()


def error_key(output: str) -> tuple[str, str]:
    """(the failure normalised for comparison, the line shown): the first line that names an
    error (an exception, `error:`, a failing test's header), else the failure summary; numbers,
    hashes, paths and quoted values do not make two failures different."""
    lines = [ln for ln in _lines(output) if not re.match(r"^(?:Exit code|exited with)", ln, re.I)]
    line = next((ln for pat in (_ERROR_STATED, _ERROR_LINE) for ln in lines if pat.search(ln)), "")
    if not line:
        line = failure_line(output)
    key = " ".join(_volatile_sub(line.lower()).split())[:120]
    return key, line
