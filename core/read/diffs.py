"""A file-editing tool call as diff lines: Edit and MultiEdit (old and new strings), Write (the
whole new file), and apply_patch (Codex's patch format, given as the tool's input, as
`["apply_patch", patch]`, or as a shell heredoc), for the transcript reader's expanded calls.
"""
from __future__ import annotations

import difflib
import os
import re
from bisect import bisect_left
from collections import Counter
from dataclasses import dataclass
from typing import Any

from ..model import Entry


@dataclass(frozen=True, slots=True)
class DiffLine:
    """One line of a diff: tag "+", "-", " " (context), "@" (a file or hunk header), "…" (a gap)."""

    tag: str
    text: str


def _patch_text(entry: Entry) -> str | None:
    """The patch an apply_patch call sends: as the tool's own input, as `["apply_patch", patch]`,
    or (older Codex, and the `exec_command` tool) as a heredoc in a shell script:
    `["bash", "-lc", "apply_patch <<'PATCH'\\n*** Begin Patch…PATCH"]` or `{"cmd": "apply_patch <<EOF…"}`."""
    inp = entry.tool_input
    if entry.tool_name == "apply_patch":
        if isinstance(inp, str):
            return inp
        if isinstance(inp, dict) and isinstance(inp.get("input"), str):
            return inp["input"]
    if isinstance(inp, dict):
        cmd = inp.get("command", inp.get("cmd"))
        if isinstance(cmd, list) and len(cmd) >= 2 and cmd[0] == "apply_patch" and isinstance(cmd[1], str):
            return cmd[1]
        script = _shell_script(cmd)
        if script is not None and "apply_patch" in script:
            return _heredoc_patch(script)
    return None


_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh"})
# `apply_patch` as a command (line start or after ; && || | ( ), then a heredoc: <<DELIM, <<-DELIM,
# with the delimiter bare, 'quoted' or "quoted"
# (`[^\S\n]*`, not `\s*`, after a command's start: where `\s*` crossed blank lines, the last newline
# among them starts the same match (the same groups and end; its start unread), in linear time:
# re read each blank line of a run to the run's end)
_HEREDOC = re.compile(r"""(?:^|[;&|(]|\n)[^\S\n]*apply_patch\s*<<(-?)\s*(?:'([^'\n]+)'|"([^"\n]+)"|([^\s;&|<>()'"]+))[^\n]*\n""")


def _shell_script(cmd: Any) -> str | None:
    """The script a shell call runs: a string command, or the script of `[shell, -c/-lc, script]`."""
    if isinstance(cmd, str):
        return cmd
    if (isinstance(cmd, list) and len(cmd) >= 3 and isinstance(cmd[0], str) and isinstance(cmd[2], str)
            and os.path.basename(cmd[0]) in _SHELLS and isinstance(cmd[1], str)
            and cmd[1].startswith("-") and "c" in cmd[1]):
        return cmd[2]
    return None


def _heredoc_patch(script: str) -> str | None:
    """The body of the heredoc fed to `apply_patch` in a shell script, when it is a patch."""
    m = _HEREDOC.search(script)
    if m is None:
        return None
    strip_tabs, delim = m.group(1) == "-", m.group(2) or m.group(3) or m.group(4)
    body: list[str] = []
    for line in script[m.end():].split("\n"):
        if strip_tabs:
            line = line.lstrip("\t")
        if line.rstrip("\r") == delim:
            break
        body.append(line)
    patch = "\n".join(body)
    return patch if "*** Begin Patch" in patch else None


def patch_files(patch: str) -> list[str]:
    return [m.group(2).strip() for m in re.finditer(r"^\*\*\* (Update|Add|Delete) File: (.+)$", patch, re.M)]


def diff_of(entry: Entry, project: str | None = None) -> list[DiffLine] | None:
    """The change a file-editing tool call makes, as diff lines; None for other calls."""
    name = entry.tool_name or ""
    inp = entry.tool_input if isinstance(entry.tool_input, dict) else {}
    patch = _patch_text(entry)
    if patch is not None:
        return _patch_lines(patch)
    if name == "Edit" and isinstance(inp.get("old_string"), str) and isinstance(inp.get("new_string"), str):
        return _edit_lines(inp["old_string"], inp["new_string"])
    if name == "MultiEdit" and isinstance(inp.get("edits"), list):
        out: list[DiffLine] = []
        for k, edit in enumerate(inp["edits"]):
            if not isinstance(edit, dict):
                continue
            old, new = edit.get("old_string"), edit.get("new_string")
            if isinstance(old, str) and isinstance(new, str):
                out.append(DiffLine("@", f"edit {k + 1} of {len(inp['edits'])}"))
                out.extend(_edit_lines(old, new))
        return out
    if name == "Write" and isinstance(inp.get("content"), str):
        return [DiffLine("+", line) for line in inp["content"].split("\n")]
    return None


def diff_counts(lines: list[DiffLine]) -> tuple[int, int]:
    return sum(1 for d in lines if d.tag == "+"), sum(1 for d in lines if d.tag == "-")


def _edit_lines(old: str, new: str) -> list[DiffLine]:
    """`unified_diff(old lines, new lines, n=3)` as diff lines (a gap between hunks), its lines
    matched by `_Matcher`."""
    a, b = old.split("\n"), new.split("\n")
    out: list[DiffLine] = []
    for k, group in enumerate(_Matcher(a, b).get_grouped_opcodes(3)):
        if k:
            out.append(DiffLine("…", ""))
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out += [DiffLine(" ", line) for line in a[i1:i2]]
                continue
            out += [DiffLine("-", line) for line in a[i1:i2]]
            out += [DiffLine("+", line) for line in b[j1:j2]]
    if not out and a == b:
        out = [DiffLine(" ", line) for line in a]
    return out


#: an edit of more old x new lines than this is not matched by difflib at large (`_Matcher`)
_MATCHED_CELLS = 1_000_000
#: what lies between two of a large edit's anchor lines is matched by difflib up to this
_GAP_CELLS = 1_000


class _Matcher(difflib.SequenceMatcher):  # type: ignore[type-arg]
    """SequenceMatcher (as `unified_diff` makes it), but for an edit of more than `_MATCHED_CELLS`
    lines by lines: difflib takes, for each block it matches, a look at each line of the rest of
    the old text (and the new one's places of it), the square of an edit of many short matches
    (an old text of 2,000 lines, a line added after each: 0.7 s; 8,000: 11 s). Those are matched
    by `_anchored_blocks` instead."""

    def __init__(self, a: list[str], b: list[str]) -> None:
        super().__init__(None, a, b)

    def get_matching_blocks(self) -> list[difflib.Match]:
        if self.matching_blocks is None and len(self.a) * len(self.b) > _MATCHED_CELLS:
            self.matching_blocks = _anchored_blocks(self.a, self.b)
        return super().get_matching_blocks()


def _anchored_blocks(a: list[str], b: list[str]) -> list[difflib.Match]:
    """Matching blocks of `a` and `b` (as SequenceMatcher's: in order, the last `(len(a), len(b),
    0)`) in time near linear: the lines the two start and end with; between them, each line that
    is once in each (the longest run of them in order in both, as a patience diff anchors); and
    between two of those, difflib's own blocks where what lies between is small (up to
    `_GAP_CELLS` lines by lines), else none (all of it changed)."""
    n, m = len(a), len(b)
    head = 0
    while head < min(n, m) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < min(n, m) - head and a[n - 1 - tail] == b[m - 1 - tail]:
        tail += 1
    seen_a, seen_b = Counter(a[head:n - tail]), Counter(b[head:m - tail])
    place = {line: j for j, line in enumerate(b[head:m - tail], head) if seen_b[line] == 1}
    pairs = [(i, place[line]) for i, line in enumerate(a[head:n - tail], head) if seen_a[line] == 1 and line in place]
    blocks = [(0, 0, head)]
    i0, j0 = head, head
    for i, j in [*_increasing(pairs), (n - tail, m - tail)]:
        if i > i0 and j > j0 and (i - i0) * (j - j0) <= _GAP_CELLS:
            gap = difflib.SequenceMatcher(None, a[i0:i], b[j0:j]).get_matching_blocks()[:-1]
            blocks += [(i0 + x, j0 + y, size) for x, y, size in gap]
        blocks.append((i, j, 1 if i < n - tail else tail))
        i0, j0 = i + 1, j + 1
    merged: list[tuple[int, int, int]] = []
    for i, j, size in blocks:
        if merged and merged[-1][0] + merged[-1][2] == i and merged[-1][1] + merged[-1][2] == j:
            merged[-1] = (merged[-1][0], merged[-1][1], merged[-1][2] + size)
        elif size:
            merged.append((i, j, size))
    return [difflib.Match(i, j, size) for i, j, size in [*merged, (n, m, 0)]]


def _increasing(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The longest run of `pairs` (in order of their first) whose seconds increase too (patience
    sorting: O(k log k))."""
    tops: list[int] = []  # the least last second of a run of each length so far
    ends: list[int] = []  # (and which pair it is)
    before = [-1] * len(pairs)
    for k, (_, j) in enumerate(pairs):
        t = bisect_left(tops, j)
        if t == len(tops):
            tops.append(j)
            ends.append(k)
        else:
            tops[t], ends[t] = j, k
        before[k] = ends[t - 1] if t else -1
    run, k = [], ends[-1] if ends else -1
    while k >= 0:
        run.append(pairs[k])
        k = before[k]
    return run[::-1]


def _patch_lines(patch: str) -> list[DiffLine]:
    out: list[DiffLine] = []
    for line in patch.split("\n"):
        if line.startswith(("*** Begin Patch", "*** End Patch", "*** End of File")):
            continue
        m = re.match(r"\*\*\* (Update|Add|Delete) File: (.+)", line)
        if m:
            verb = {"Update": "", "Add": " (new)", "Delete": " (deleted)"}[m.group(1)]
            out.append(DiffLine("@", m.group(2).strip() + verb))
        elif line.startswith("*** Move to: "):
            out.append(DiffLine("@", "→ " + line[len("*** Move to: "):].strip()))
        elif line.startswith("@@"):
            out.append(DiffLine("…", line[2:].strip()))
        elif line[:1] in ("+", "-", " "):
            out.append(DiffLine(line[:1], line[1:]))
        elif line:
            out.append(DiffLine(" ", line))
    return out
