"""A file-editing tool call as diff lines: Edit and MultiEdit (old and new strings), Write (the
whole new file), and apply_patch (Codex's patch format, given as the tool's input, as
`["apply_patch", patch]`, or as a shell heredoc), for the transcript reader's expanded calls.
"""
from __future__ import annotations

import difflib
import os
import re
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
    a, b = old.split("\n"), new.split("\n")
    out: list[DiffLine] = []
    for line in list(difflib.unified_diff(a, b, lineterm="", n=3))[2:]:
        if line.startswith("@@"):
            if out:
                out.append(DiffLine("…", ""))
            continue
        tag = line[:1] if line[:1] in "+- " else " "
        out.append(DiffLine(tag, line[1:]))
    if not out and a == b:
        out = [DiffLine(" ", line) for line in a]
    return out


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
