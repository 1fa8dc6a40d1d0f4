"""Reading the Markdown files agents keep as memory: the text (size-capped, undecodable bytes
replaced), its YAML frontmatter split from the body (a broken frontmatter is `NoteCorrupt`, with
the line it breaks on), the body's `## ` sections and their list lines, and frontmatter values made
JSON-safe. Session notes (core/memory/notes.py) and agent memory files (core/memory/agent.py)
both read through it."""
from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, Iterator

import yaml
from frontmatter.default_handlers import YAMLHandler

MAX_READ_BYTES = 2 * 1024 * 1024  # memory and instruction files are small; a bigger one is cut
_HEADING = re.compile(r"^##[ \t]+(.+?)[ \t]*#*[ \t]*$")
_HEADING_LEAD = re.compile(r"##[ \t]+")
_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?")
_OPEN_FM = re.compile(r"-{3,}[ \t]*\r?")


class NoteCorrupt(Exception):
    """A note's file cannot be used at all: unreadable, binary, or its frontmatter is broken."""


# -- reading Markdown with frontmatter ------------------------------------------------------------
@dataclass
class MarkdownDoc:
    """A Markdown file split into its frontmatter mapping and body.

    `metadata` is None when the file has no frontmatter; `fatal` says why the frontmatter (or the
    file) could not be used, in which case `body` is the whole text."""

    metadata: dict[str, Any] | None
    body: str
    text: str
    warnings: list[str] = field(default_factory=list)
    fatal: str | None = None


def read_text(path: str | os.PathLike[str], max_bytes: int = MAX_READ_BYTES) -> tuple[str, list[str]]:
    """A small text file as UTF-8 (bad bytes replaced, with a warning). Raises NoteCorrupt when it
    cannot be read or holds binary data."""
    warnings: list[str] = []
    try:
        with open(path, "rb") as f:
            data = f.read(max_bytes + 1)
    except OSError as exc:
        raise NoteCorrupt(f"cannot be read ({exc.strerror or exc})") from None
    if len(data) > max_bytes:
        data = data[:max_bytes]
        warnings.append(f"only the first {max_bytes // 1024} KB were read")
    if b"\x00" in data:
        raise NoteCorrupt("holds binary data (NUL bytes), not text")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        text = data.decode("utf-8", "replace")
        warnings.append(f"not valid UTF-8 (first bad byte at offset {exc.start}); shown with replacements")
    return text.lstrip("\ufeff"), warnings


def parse_markdown(text: str) -> MarkdownDoc:
    """Split frontmatter (python-frontmatter's YAML handler) from the body; never raises.

    Only a first non-blank line of `---` opens frontmatter, so a body that merely contains `---`
    lines (horizontal rules) is never mistaken for one."""
    text = text.lstrip("\ufeff")
    lead = len(text) - len(text.lstrip())
    rest = text[lead:]
    first = rest.split("\n", 1)[0]
    if not _OPEN_FM.fullmatch(first):
        return MarkdownDoc(None, text, text)
    handler = YAMLHandler()
    try:
        fm, body = handler.split(rest)
    except ValueError:
        return MarkdownDoc(None, text, text, fatal="frontmatter is not closed (no second '---' line)")
    body = body.lstrip("\r\n")
    line_offset = text[:lead].count("\n")
    try:
        data = handler.load(fm)
    except yaml.YAMLError as exc:
        return MarkdownDoc(None, body, text, fatal=f"frontmatter is not valid YAML ({_yaml_problem(exc, line_offset)})")
    except Exception as exc:  # noqa: BLE001 - PyYAML raises ValueError etc. for e.g. `2026-13-45`
        return MarkdownDoc(None, body, text, fatal=f"frontmatter could not be read ({type(exc).__name__}: {exc})")
    if data is None:
        return MarkdownDoc({}, body, text, ["frontmatter is empty"])
    if not isinstance(data, dict):
        return MarkdownDoc(None, body, text, fatal=f"frontmatter is a {_type_name(data)}, not a mapping of fields")
    meta = {k if isinstance(k, str) else str(k): v for k, v in data.items()}
    return MarkdownDoc(meta, body, text)


def _yaml_problem(exc: yaml.YAMLError, line_offset: int) -> str:
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or str(exc).split("\n", 1)[0]
    if mark is None:
        return problem
    # The YAML text starts right after the opening `---` (on that same line), so its 0-based line
    # numbers are the file's 1-based ones (plus any blank lines before the frontmatter).
    where = f"line {mark.line + 1 + line_offset}, column {mark.column + 1}"
    hint = "; YAML does not allow tabs for indentation" if "\t" in problem or "cannot start any token" in problem else ""
    return f"{where}: {problem}{hint}"


def _type_name(value: Any) -> str:
    return {dict: "mapping", list: "list", str: "text", int: "number", float: "number", bool: "true/false"}.get(
        type(value), type(value).__name__
    )


def jsonable(value: Any, budget: list[int] | None = None) -> Any:
    """YAML values as JSON-safe data (dates as ISO text, keys as text). A node budget stops YAML
    alias bombs (a few lines that expand to billions of nodes) from hanging the caller."""
    budget = [20000] if budget is None else budget
    budget[0] -= 1
    if budget[0] < 0:
        return "…"
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if value == value and value not in (float("inf"), float("-inf")) else str(value)
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, date):
        return value.isoformat()
    if isinstance(value, dict):
        return {str(k): jsonable(v, budget) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v, budget) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((jsonable(v, budget) for v in value), key=str)
    if isinstance(value, bytes):
        return f"<{len(value)} bytes>"
    return str(value)


# -- sections of the body ---------------------------------------------------------------------------
def code_marked(text: str) -> Iterator[tuple[str, bool]]:
    """Each line of `text` with whether it is code: a fence (``` or ~~~, up to three spaces in) or a
    line inside a fenced block. A fence closes on one of its own kind at least as long."""
    fence: str | None = None
    for line in text.splitlines():
        m = _FENCE.match(line)
        if m:
            marker = m.group(1)
            if fence is None:
                fence = marker
            elif marker[0] == fence[0] and len(marker) >= len(fence):
                fence = None
        yield line, bool(m) or fence is not None


def heading(line: str) -> str | None:
    """`_HEADING.match(line).group(1)` (None where it does not match) in linear time: re tried each
    split of a run of spaces between the heading's text and its end, at each place of the run (a
    heading line with 4,000 spaces before a word took 82 s). The lazy text ends where the line's
    rest is first all `[ \\t]*#*[ \\t]*`: stripped from the right, spaces, #s and spaces again."""
    if "\n" in line:
        m = _HEADING.match(line)
        return m.group(1) if m else None
    lead = _HEADING_LEAD.match(line)
    if lead is None:
        return None
    start = lead.end()
    if start == len(line):  # (only blanks after `##`: the text is the last of them, one kept before)
        if start - 2 < 2:
            return None
        start -= 1
    return line[start:max(len(line.rstrip(" \t").rstrip("#").rstrip(" \t")), start + 1)]


def split_sections(body: str) -> tuple[str, list[tuple[str, str]]]:
    """The text before the first `## ` heading, and (heading, text) pairs; headings inside fenced
    code blocks do not count."""
    preamble: list[str] = []
    sections: list[tuple[str, list[str]]] = []
    for line, code in code_marked(body):
        title = None if code else heading(line)
        if title is not None:
            sections.append((title, []))
        elif sections:
            sections[-1][1].append(line)
        else:
            preamble.append(line)
    return "\n".join(preamble).strip(), [(t, "\n".join(lines).strip()) for t, lines in sections]


def list_lines(text: str) -> list[str]:
    """One item per non-blank line, list markers (`- `, `1. `, `- [x] `) removed."""
    return [_BULLET.sub("", line, count=1).strip() for line in text.splitlines() if line.strip()]
