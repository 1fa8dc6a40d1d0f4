"""Export data (document.py) as Markdown, self-contained HTML or JSON.

Transcript text is untrusted, and stays inert in every format:

- everywhere, terminal controls and invisible characters are made visible first (`printable`:
  `␛[2J`, `<U+202E>`), so no escape sequence reaches a terminal that `cat`s the file;
- Markdown: message text stays Markdown (it is what the agent wrote), but outside code `&` and
  `<` are written as entities (shown the same, but no HTML tag, comment or entity trick survives
  to a renderer) and a `javascript:`, `vbscript:`, `data:` or `file:` scheme is defanged to
  `javascript[:]`; an image is written as a link (`!\\[`: nothing is fetched); a fence the text left open is closed; tool input and output go in fences
  longer than any backtick run inside them; the folds are `<details>` whose summary is escaped;
- HTML: messages through markdown-it-py with raw HTML off (it is shown as text) and its link
  check (no `javascript:`/`vbscript:`/`file:` link), code through Pygments, everything else
  escaped, images as links; no script at all, styles inline, and a Content-Security-Policy that allows no script
  and no request, so the page works offline and a hostile image URL is never fetched;
- JSON: written as JSON with every control and invisible character as a `\\uXXXX` escape.
"""
from __future__ import annotations

import html
import re
from datetime import datetime, timezone
from typing import Any, Callable

from ..format import date_span
from ..model import iso
from ..text import code_spans, json_escaped, printable
from .document import Block, ExportedSession

FORMATS = ("md", "html", "json")
_ROLE = {"user": "User", "assistant": "Assistant", "system": "System", "tool": "Tool"}


def render(doc: ExportedSession, fmt: str) -> str:
    if fmt == "md":
        return to_markdown(doc)
    if fmt == "html":
        return to_html(doc)
    if fmt == "json":
        return to_json(doc)
    raise ValueError(f"unknown format {fmt!r} (one of {', '.join(FORMATS)})")


def _facts(doc: ExportedSession) -> list[str]:
    s = doc.session
    facts = [f"session {s.id}", s.agent]
    if s.project:
        facts.append(s.project)
    span = date_span(s.first_timestamp, s.last_timestamp)
    if span:
        facts.append(span)
    if s.models:
        facts.append(", ".join(s.models))
    if s.usage.total:
        facts.append(f"{s.usage.total:,} tokens")
    return [printable(" ".join(f.split())) for f in facts]


def _label(b: Block) -> str:
    who = _ROLE.get(b.role, b.role.title())
    what = {"message": "", "thinking": " (thinking)", "summary": " (summary)", "note": " (note)",
            "raw": " (unreadable record)", "divider": " (context compacted)", "result": " (tool result)"}
    return who + what.get(b.kind, f" ({b.kind})")


def _when(b: Block) -> str:
    return b.timestamp.replace("T", " ").split(".")[0] + " UTC" if b.timestamp else ""


# -- Markdown ------------------------------------------------------------------------------------
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_SCHEME = re.compile(r"\b(javascript|vbscript|data|file)(\s*):", re.I)


def inert_markdown(text: str) -> str:
    """Message text as Markdown that renders the same but carries no HTML, no entity trick, no
    dangerous link scheme and no control character (see the module docstring)."""
    out: list[str] = []
    fence: str | None = None
    for line in printable(text).split("\n"):
        m = _FENCE.match(line)
        if fence is not None:
            out.append(line)
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) and not line.strip()[len(m.group(1)):].strip():
                fence = None
            continue
        if m:
            fence = m.group(1)
            out.append(line)
            continue
        out.append(_inert_line(line))
    if fence is not None:
        out.append(fence)
    return "\n".join(out)


def _inert_line(line: str) -> str:
    parts, at = [], 0
    for start, end in code_spans(line):  # (`` (`+)(?:(?!\1).)+?\1 ``'s matches, in linear time)
        parts.append(escape_md(line[at:start]))
        parts.append(line[start:end])
        at = end
    parts.append(escape_md(line[at:]))
    return "".join(parts)


def escape_md(text: str) -> str:
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace("![", "!\\[")
    return _SCHEME.sub(lambda m: f"{m.group(1)}{m.group(2)}[:]", text)


def _fenced(text: str, info: str = "") -> str:
    longest = max((len(r) for r in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{printable(text)}\n{fence}"


def _diff_text(b: Block) -> str:
    return "\n".join(f"{'@@' if d.tag == '@' else '  ' if d.tag == '…' else d.tag}{' ' if d.tag in '@…' else ''}{d.text}"
                     for d in b.diff or [])


def _tool_title(b: Block) -> str:
    status = " — error" if b.is_error else " — no result" if b.result is None else ""
    return f"{b.tool_name or 'tool'}: {b.summary}{status}"


def to_markdown(doc: ExportedSession) -> str:
    lines = [f"# {inert_markdown(' '.join(doc.title.split()))}", "", " · ".join(escape_md(f) for f in _facts(doc)), ""]
    _md_blocks(doc, lines, level=2)
    return "\n".join(lines).rstrip("\n") + "\n"


def _md_blocks(doc: ExportedSession, lines: list[str], level: int) -> None:
    if doc.error:
        lines += [f"*{escape_md(printable(doc.error))}*", ""]
    h = "#" * min(level, 6)
    for b in doc.blocks:
        mark = " *(abandoned branch)*" if b.off_branch else ""
        when = f" · {_when(b)}" if b.timestamp else ""
        if b.kind == "message":
            lines += [f"{h} {_label(b)}{when}{mark}", "", inert_markdown(b.text), ""]
        elif b.kind == "divider":
            lines += ["---", "", f"*context compacted{when}*", ""]
        elif b.kind == "tool":
            lines += [f"<details><summary>{_summary_html(_tool_title(b))}{html.escape(when)}</summary>", ""]
            if b.diff:
                lines += [_fenced(_diff_text(b), "diff"), ""]
            else:
                lines += [_fenced(b.tool_input, "sh" if b.tool_name in ("Bash", "shell") else ""), ""]
            if b.result is not None:
                lines += ["Result:" if not b.is_error else "Result (error):", "", _fenced(b.result), ""]
            if b.subagent is not None:
                lines += [f"{h}# Subagent: {inert_markdown(' '.join(b.subagent.title.split()))}", ""]
                _md_blocks(b.subagent, lines, level + 2)
                lines += [f"*end of subagent {escape_md(printable(b.subagent.session.id))}*", ""]
            lines += ["</details>", ""]
        else:  # thinking, summary, note, raw, result: folded
            lines += [f"<details><summary>{_summary_html(_label(b))}{html.escape(when)}{mark}</summary>", "",
                      _fenced(b.text), "", "</details>", ""]


def _summary_html(text: str) -> str:
    return html.escape(printable(" ".join(text.split()))[:200])


# -- HTML ----------------------------------------------------------------------------------------
CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'"
CSS = """
body { font: 15px/1.5 system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem;
       color: #1f2328; background: #fff; }
header p { color: #59636e; }
.entry { border-left: 3px solid #d1d9e0; padding: .2rem 1rem; margin: 1rem 0; }
.entry.user { border-color: #0969da; } .entry.assistant { border-color: #8250df; }
.who { font-weight: 600; } .when { color: #59636e; font-size: .85em; margin-left: .5rem; }
.off { opacity: .6; } .error > summary { color: #cf222e; }
details { margin: .4rem 0; } summary { cursor: pointer; font-family: ui-monospace, monospace; font-size: .9em; }
pre { background: #f6f8fa; padding: .6rem; overflow-x: auto; white-space: pre-wrap; word-break: break-word; }
.subagent { margin-left: 1rem; border-left: 2px dashed #8250df; padding-left: 1rem; }
hr.compacted { border: 0; border-top: 2px dashed #d1d9e0; }
"""


def _markdown() -> Callable[[str], str]:
    from markdown_it import MarkdownIt

    # The reader's rules (tui/widgets/_transcript_render.py): CommonMark, raw HTML off, soft breaks
    # kept; fenced code highlighted by Pygments.
    # Images are off: `![x](https://…)` is a link, never fetched (the page loads nothing).
    md = MarkdownIt("commonmark", {"html": False, "breaks": True, "highlight": _highlight}).disable("image")
    return md.render


def _highlight(code: str, lang: str, attrs: str) -> str:
    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    try:
        lexer = get_lexer_by_name(lang) if lang else None
    except ClassNotFound:
        lexer = None
    if lexer is None:
        return ""  # markdown-it escapes it in a plain <pre><code>
    return highlight(code, lexer, HtmlFormatter(cssclass="hl"))


def _code(text: str, lang: str = "") -> str:
    out = _highlight(text, lang, "") if lang else ""
    return out or f"<pre>{html.escape(text)}</pre>"


def to_html(doc: ExportedSession) -> str:
    from pygments.formatters import HtmlFormatter

    render_md = _markdown()
    body: list[str] = []
    _html_blocks(doc, body, render_md)
    title = html.escape(printable(" ".join(doc.title.split())))
    facts = html.escape(" · ".join(_facts(doc)))
    style = CSS + HtmlFormatter(cssclass="hl").get_style_defs(".hl")
    return (f"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<meta http-equiv=\"Content-Security-Policy\" content=\"{CSP}\">\n"
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<meta name=\"generator\" content=\"sessionscope export\">\n"
            f"<title>{title}</title>\n<style>{style}</style>\n</head>\n<body>\n"
            f"<header><h1>{title}</h1><p>{facts}</p></header>\n<main>\n{''.join(body)}</main>\n</body>\n</html>\n")


def _html_blocks(doc: ExportedSession, out: list[str], render_md: Callable[[str], str]) -> None:
    if doc.error:
        out.append(f"<p><em>{html.escape(printable(doc.error))}</em></p>\n")
    for b in doc.blocks:
        when = f"<span class=\"when\">{html.escape(_when(b))}</span>" if b.timestamp else ""
        off = " off" if b.off_branch else ""
        role = re.sub(r"[^a-z]", "", b.role.lower())
        if b.kind == "message":
            out.append(f"<section class=\"entry {role}{off}\"><div><span class=\"who\">{html.escape(_label(b))}</span>"
                       f"{when}</div>\n{render_md(printable(b.text))}</section>\n")
        elif b.kind == "divider":
            out.append(f"<hr class=\"compacted\"><p><em>context compacted</em>{when}</p>\n")
        elif b.kind == "tool":
            err = " error" if b.is_error else ""
            parts = [f"<details class=\"tool{err}{off}\"><summary>{_summary_html(_tool_title(b))}{when}</summary>\n"]
            if b.diff:
                parts.append(_code(printable(_diff_text(b)), "diff"))
            else:
                parts.append(_code(printable(b.tool_input), "bash" if b.tool_name in ("Bash", "shell") else ""))
            if b.result is not None:
                parts.append(f"<div>{'Result (error)' if b.is_error else 'Result'}:</div>{_code(printable(b.result))}")
            out.append("".join(parts))
            if b.subagent is not None:
                out.append(f"<div class=\"subagent\"><h3>Subagent: {html.escape(printable(b.subagent.title))}</h3>\n")
                _html_blocks(b.subagent, out, render_md)
                out.append("</div>\n")
            out.append("</details>\n")
        else:
            out.append(f"<details class=\"{b.kind}{off}\"><summary>{_summary_html(_label(b))}{when}</summary>\n"
                       f"{_code(printable(b.text))}</details>\n")


# -- JSON ----------------------------------------------------------------------------------------
def to_json(doc: ExportedSession) -> str:
    import orjson

    data: dict[str, Any] = {"format": "sessionscope-export", "version": 1,
                            "exported_at": iso(datetime.now(timezone.utc)), **doc.to_dict()}
    return json_escaped(orjson.dumps(data, option=orjson.OPT_INDENT_2).decode()) + "\n"
