"""Turns transcript items into strips of a given width (and guesses their height unrendered).

Untrusted text never meets a markup parser: every string goes through `printable()` and into
`Text(...)`/`Text.assemble(...)`, and Markdown is parsed with raw HTML off (so tags are shown, not
dropped) and links shown as text with their URL (no terminal hyperlinks from transcript text).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

from markdown_it import MarkdownIt
from rich.console import Console, RenderableType
from rich.markdown import Markdown
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.strip import Strip

from sessionscope.core.model import Entry
from sessionscope.core.secrets import mask_data, mask_text
from sessionscope.core.text import one_line, printable
from sessionscope.core.read.diffs import DiffLine, diff_counts, diff_of
from sessionscope.core.read.transcript import (
    COLLAPSIBLE,
    Display,
    Item,
    Shape,
    shape_of,
    tool_input_text,
    tool_summary,
)

GUTTER = 2
#: rendered lines of a tool result / raw record / long input before "… N more lines"
BODY_LINES = 400
#: characters of a text a one-line summary (a headline) looks at
HEAD_CHARS = 2000
#: beyond this, a message is shown as plain text (Markdown and highlighting cost too much)
MARKDOWN_CHARS = 32 * 1024
CODE_THEME = "monokai"  # (pygments styles) for dark themes
LIGHT_CODE_THEME = "friendly"  # for light ones
#: the label of an entry on a branch a rewind, edit or retry abandoned
OFF_BRANCH = "rewound branch"

COMPONENTS = frozenset({
    "transcript--user", "transcript--assistant", "transcript--thinking", "transcript--dim",
    "transcript--tool", "transcript--ok", "transcript--error", "transcript--pending",
    "transcript--diff-add", "transcript--diff-del", "transcript--diff-header",
    "transcript--divider", "transcript--raw", "transcript--cursor", "transcript--cursor-bar",
    "transcript--match", "transcript--match-current", "transcript--link", "transcript--bookmark",
})


class SafeMarkdown(Markdown):
    """rich's Markdown with raw HTML off: `<tag>` text is shown as written, never dropped."""

    def __init__(self, markup: str, **kwargs: object) -> None:
        super().__init__("", hyperlinks=False, **kwargs)  # type: ignore[arg-type]
        parser = MarkdownIt("commonmark", {"html": False, "breaks": True})
        self.markup = markup
        self.parsed = parser.enable("strikethrough").enable("table").parse(markup)


@dataclass
class Palette:
    """Rich styles of the view's component classes (theme variables resolved by Textual)."""

    styles: dict[str, Style]

    def __getitem__(self, name: str) -> Style:
        return self.styles.get(name, Style())


def clean(text: str) -> str:
    """Untrusted text made safe to draw: control characters visible, tabs expanded."""
    return printable(text).expandtabs(4)


def clock(ts: datetime | None) -> str:
    return ts.astimezone().strftime("%H:%M:%S") if ts else ""


def estimate(item: Item, width: int, expanded: bool) -> int:
    """Lines an item will take, without rendering it (refined once it is rendered)."""
    return estimate_shape(item.display, shape_of(item), width, expanded)


def estimate_shape(d: Display, shape: Shape, width: int, expanded: bool) -> int:
    """`estimate` from an item's measured texts (what a compact transcript keeps of it)."""
    w = max(10, width - GUTTER - 1)
    if d is Display.DIVIDER or (d in COLLAPSIBLE and not expanded):
        return 1
    main = _line_count(shape.chars, shape.newlines, w)
    if d in (Display.MESSAGE, Display.THINKING):
        return 1 + main
    n = 1 + min(BODY_LINES, main)
    if d is Display.TOOL and shape.result_chars >= 0:
        n += 1 + min(BODY_LINES, _line_count(shape.result_chars, shape.result_newlines, w))
    return n


def _line_count(chars: int, newlines: int, w: int) -> int:
    # Each source line wraps to about len/w rows plus half a row (measured on generated
    # transcripts: within 20% in total, where newlines + len/w overshot by 40%).
    return max(1, round(chars / w + 0.5 * (newlines + 1)))


@dataclass
class Rest:
    """What a capped body leaves out: lines (a line cut in its middle counts as one) and, of
    the text not laid out at all, its characters."""

    lines: int = 0
    chars: int = 0


def cut_head(text: str, max_lines: int, max_chars: int) -> tuple[str, Rest]:
    """The first `max_lines` lines of `text`, at most `max_chars` characters of them, and what
    is left out. Only the head is looked at closely: the rest is counted, never copied."""
    head = text[:max_chars]
    parts = head.split("\n", max_lines)
    if len(parts) > max_lines:  # more lines than shown: cut before the first left out
        head = "\n".join(parts[:max_lines])
        start = len(head) + 1
    else:
        start = len(head)
        if text.startswith("\n", start):  # cut at the end of a line: the rest starts after it
            start += 1
    if start >= len(text):
        return text, Rest()
    lines = text.count("\n", start) + (0 if text.endswith("\n") else 1)
    return head, Rest(lines, len(text) - start)


class Painter:
    """Renders one item's body (without the gutter) into strips `width - GUTTER` wide."""

    def __init__(self, console: Console, palette: Palette, agent: str, project: str | None,
                 *, code_theme: str = CODE_THEME, mask: bool = False) -> None:
        self.mask = mask  # secrets masked (the app's screen-sharing toggle)
        self.console = console
        self.p = palette
        self.code_theme = code_theme
        self.assistant_label = {"claude-code": "Claude", "codex": "Codex", "copilot-cli": "Copilot", "pi": "pi",
                                "opencode": "OpenCode", "gemini-cli": "Gemini",
                                "aider": "Aider"}.get(agent, "Assistant")
        self.project = project

    # -- entry points --------------------------------------------------------------------------
    def render(self, item: Item, width: int, expanded: bool, link: str | None = None) -> list[Strip]:
        if self.mask:
            item = masked_item(item)
        strips = self._render_item(item, width, expanded, link)
        if not item.off_branch:
            return strips
        # An abandoned branch: every line in the muted colour (backgrounds, such as a diff's, kept).
        muted = Style(color=self.p["transcript--dim"].color)
        return [Strip(Segment.apply_style(s, post_style=muted), s.cell_length) for s in strips]

    def _render_item(self, item: Item, width: int, expanded: bool, link: str | None) -> list[Strip]:
        bw = max(10, width - GUTTER)
        d = item.display
        if d is Display.MESSAGE:
            return self._message(item, bw)
        if d is Display.THINKING:
            return self._thinking(item, bw)
        if d is Display.DIVIDER:
            return [self._divider(item.entry, bw)]
        head = self._headline(item, bw, expanded, link)
        if not expanded or not item.collapsible:
            return [head]
        if d is Display.TOOL:
            return [head, *self._tool_body(item, bw, link)]
        if d is Display.SUMMARY:
            return [head, *self._markdown(item.entry.text, bw - 2, indent=2)]
        style = self.p["transcript--raw"] if d is Display.RAW else self.p["transcript--dim"]
        return [head, *self._plain(item.entry.text, bw - 2, style, indent=2)]

    # -- kinds ---------------------------------------------------------------------------------
    def _message(self, item: Item, bw: int) -> list[Strip]:
        e = item.entry
        user = e.role == "user"
        role = self.p["transcript--user" if user else "transcript--assistant"]
        dim = self.p["transcript--dim"]
        label = Text.assemble(("You" if user else self.assistant_label, role + Style(bold=True)))
        meta = [clock(e.timestamp)]
        if e.model and not user:
            meta.append(e.model)
        if e.is_sidechain and user:
            meta.append("subagent prompt")
        if item.off_branch:
            meta.append(OFF_BRANCH)
        label.append(("  " + "  ".join(m for m in meta if m)) if any(meta) else "", dim)
        out = [self._line(label, bw)]
        if len(e.text) > MARKDOWN_CHARS:
            out += self._plain(e.text, bw - 1, Style(), indent=0)
        else:
            out += self._markdown(e.text, bw - 1)
        if item.cut:
            out.append(self._line(Text("… cut in memory (large file): enter reads the whole message", dim), bw))
        return out

    def _thinking(self, item: Item, bw: int) -> list[Strip]:
        style = self.p["transcript--thinking"]
        head = Text.assemble(("✻ Thinking", style + Style(bold=True)),
                             ("  " + clock(item.entry.timestamp), self.p["transcript--dim"]),
                             ("  " + OFF_BRANCH if item.off_branch else "", self.p["transcript--dim"]))
        return [self._line(head, bw), *self._plain(item.entry.text, bw - 1, style, indent=0, cap=False)]

    def _divider(self, e: Entry, bw: int) -> Strip:
        return self._rule(f"⟲ {one_line(e.text, max(10, bw - 12))}", bw, self.p["transcript--divider"], "─")

    def day_divider(self, label: str, bw: int) -> Strip:
        """The line above the first entry of a new (local) day."""
        return self._rule(label, bw, self.p["transcript--dim"], "┄")

    def _rule(self, label: str, bw: int, style: Style, char: str) -> Strip:
        """A rule across the width with `label` in its middle."""
        label = f" {label} "
        side = max(2, (bw - len(label)) // 2)
        text = Text.assemble((char * side, style), (label, style + Style(bold=True)),
                             (char * max(0, bw - side - len(label)), style))
        return self._line(text, bw)

    def _headline(self, item: Item, bw: int, expanded: bool, link: str | None) -> Strip:
        """The one line a collapsible item shows: marker, name, key argument, status."""
        e, d = item.entry, item.display
        dim, tool = self.p["transcript--dim"], self.p["transcript--tool"]
        marker = ("▾ " if expanded else "▸ ") if item.collapsible else "  "
        right = Text(OFF_BRANCH + "  " if item.off_branch else "", dim)
        if d is Display.TOOL:
            name, arg = one_line(e.tool_name or "tool", 60), tool_summary(e, self.project)
            diff = diff_of(e, self.project)
            if diff:
                adds, dels = diff_counts(diff)
                right.append(f"+{adds}", self.p["transcript--ok"])
                right.append(f" -{dels}  ", self.p["transcript--error"])
            if item.is_subagent_call:
                right.append("↵ open subagent  " if link else "no subagent transcript  ",
                              self.p["transcript--link"] if link else dim)
            left = Text.assemble((marker, dim), (name, tool + Style(bold=True)), "  ", (clean(arg), Style()))
            self._status(item, right)
        elif d is Display.RESULT:
            left = Text.assemble((marker, dim), ("result", tool), "  ", (one_line(e.text[:HEAD_CHARS]), dim))
            self._status(item, right)
        elif d is Display.RAW:
            raw = self.p["transcript--raw"]
            what = (f"malformed line {e.locator.line}" if e.kind.value == "malformed"
                    else f"unknown record “{one_line(e.raw_type, 40)}”")
            detail = (e.raw_type.split(": ", 1)[-1] if e.kind.value == "malformed" else one_line(e.text[:HEAD_CHARS]))
            left = Text.assemble((marker, dim), ("⚠ " + what, raw + Style(bold=True)), "  ",
                                 (one_line(detail), dim))
        elif d is Display.SUMMARY:
            label = "compacted context" if e.kind.value == "compaction" else "summary"
            left = Text.assemble((marker, dim), ("⟲ " + label, self.p["transcript--divider"]), "  ",
                                 (one_line(e.text[:HEAD_CHARS]), dim))
        else:  # NOTE
            label = _note_label(e)
            detail = one_line(e.text[:HEAD_CHARS])
            if detail in (label, e.raw_type, e.raw_type.rsplit("/", 1)[-1]):
                detail = ""
            left = Text.assemble((marker, dim), (one_line(label, 30), dim + Style(bold=True)), "  ",
                                 (detail, dim))
        room = max(4, bw - right.cell_len - 1)
        left.truncate(room, overflow="ellipsis")
        left.pad_right(bw - left.cell_len - right.cell_len)
        left.append_text(right)
        return self._line(left, bw)

    def _status(self, item: Item, right: Text) -> None:
        status = item.status()
        if status == "ok":
            right.append("✓", self.p["transcript--ok"])
        elif status == "error":
            right.append("✗ error", self.p["transcript--error"])
        else:
            right.append("… no result", self.p["transcript--pending"])
        seconds = item.duration()
        if seconds is not None and seconds >= 0.05:
            right.append(f" {_seconds(seconds)}", self.p["transcript--dim"])

    def _tool_body(self, item: Item, bw: int, link: str | None) -> list[Strip]:
        e = item.entry
        dim = self.p["transcript--dim"]
        w = bw - 2
        out: list[Strip] = []
        diff = diff_of(e, self.project)
        if diff is not None:
            out += self._diff(diff, w)
        elif item.is_subagent_call:
            prompt = e.tool_input.get("prompt") if isinstance(e.tool_input, dict) else None
            out += self._plain(prompt if isinstance(prompt, str) else tool_input_text(e), w, dim, indent=2)
        elif e.tool_name in ("Bash", "shell", "local_shell", "exec_command"):
            out += self._plain("$ " + tool_input_text(e), w, Style(bold=True), indent=2)
        else:
            out += self._plain(tool_input_text(e), w, dim, indent=2)
        if item.cut:
            out.append(self._line(Text("  … input cut in memory (large file)", dim), bw))
        r = item.result
        if r is not None:
            error = r.is_error
            label = "error" if error else ("report" if item.is_subagent_call else "output")
            out.append(self._line(Text.assemble(("  ╶─ ", dim), (label, self.p["transcript--error"] if error else dim),
                                                (" ─", dim)), bw))
            if item.is_subagent_call and not error and len(r.text) <= MARKDOWN_CHARS:
                out += self._markdown(r.text, w, indent=2)
            else:
                style = self.p["transcript--error"] if error else Style()
                out += self._plain(r.text or "(no output)", w, style, indent=2)
            if item.result_cut:
                out.append(self._line(Text("  … output cut in memory (large file)", dim), bw))
        if link:
            out.append(self._line(Text.assemble(("  ↵ ", self.p["transcript--link"]),
                                                (f"subagent transcript: {clean(link)}", self.p["transcript--link"])), bw))
        return out

    def _diff(self, diff: list[DiffLine], w: int) -> list[Strip]:
        styles = {"+": self.p["transcript--diff-add"], "-": self.p["transcript--diff-del"],
                  "@": self.p["transcript--diff-header"], "…": self.p["transcript--dim"], " ": Style()}
        out: list[Strip] = []
        for d in diff[:BODY_LINES]:
            style = styles.get(d.tag, Style())
            prefix = {"@": "", "…": "⋯ ", " ": "  "}.get(d.tag, d.tag + " ")
            text = Text(prefix + clean(d.text[:BODY_LINES * w]), style=style, overflow="fold")
            for line in self._render(text, w - 2):
                out.append(Strip.join([Strip.blank(2), line.apply_style(style).adjust_cell_length(w - 2, style)]))
        if len(diff) > BODY_LINES:
            out.append(self._more(Rest(len(diff) - BODY_LINES), w + 2))
        return out

    # -- building blocks -----------------------------------------------------------------------
    def _markdown(self, text: str, w: int, indent: int = 0) -> list[Strip]:
        md = SafeMarkdown(clean(text), code_theme=self.code_theme)
        return self._indent(self._render(md, w - indent), indent, w)

    def _plain(self, text: str, w: int, style: Style, *, indent: int, cap: bool = True) -> list[Strip]:
        # Cut first, lay out after: only what can be shown (BODY_LINES lines of at most the
        # width) is cleaned and rendered, so a 20 MB line costs as much as a screenful.
        rest = Rest()
        if cap:
            text, rest = cut_head(text, BODY_LINES, BODY_LINES * max(1, w - indent))
        out = self._indent(self._render(Text(clean(text), style=style, overflow="fold"), w - indent), indent, w)
        if cap and len(out) > BODY_LINES:
            rest.lines += len(out) - BODY_LINES
            out = out[:BODY_LINES]
        if rest.lines:
            out.append(self._more(rest, w))
        return out

    def _more(self, rest: Rest, w: int) -> Strip:
        n = rest.lines
        what = f"{n:,} more line{'' if n == 1 else 's'}"
        if rest.chars:
            what += f" ({rest.chars:,} characters)"
        return self._line(Text(f"  … {what}: p pages the whole entry, r shows the raw record",
                               self.p["transcript--dim"]), w)

    def _render(self, renderable: RenderableType, w: int) -> list[Strip]:
        options = self.console.options.update(width=max(1, w), height=None, highlight=False, markup=False)
        lines = self.console.render_lines(renderable, options, pad=True)
        return [Strip(line, w) for line in lines]

    def _indent(self, strips: list[Strip], indent: int, w: int) -> list[Strip]:
        if not indent:
            return [s.adjust_cell_length(w) for s in strips]
        pad = Strip.blank(indent)
        return [Strip.join([pad, s]).adjust_cell_length(w) for s in strips]

    def _line(self, text: Text, w: int) -> Strip:
        text.no_wrap = True
        text.overflow = "ellipsis"
        segments = list(text.render(self.console))
        return Strip(segments).adjust_cell_length(w)


def masked_item(item: Item) -> Item:
    """The item with its entry's and result's text and input masked (before any cut)."""
    def masked(e: Entry) -> Entry:
        return replace(e, text=mask_text(e.text), tool_input=mask_data(e.tool_input))

    return replace(item, entry=masked(item.entry), result=masked(item.result) if item.result else None)


def _note_label(e: Entry) -> str:
    """What a system or meta record is, in a word or two."""
    if e.kind.value == "meta":
        return "context"
    kind = e.raw_type.rsplit("/", 1)[-1] if e.raw_type else ""
    return f"system {kind}" if kind and kind != "system" else "system"


def _seconds(s: float) -> str:
    if s < 60:
        return f"{s:.1f}s"
    if s < 3600:
        return f"{int(s // 60)}m{int(s % 60):02d}s"
    return f"{int(s // 3600)}h{int(s % 3600 // 60):02d}m"


def match_spans(text: str, needle: str) -> list[tuple[int, int]]:
    """Where `needle` is in `text` (case-insensitive, each match after the one before), as (start,
    end); none where case-folding changes the text's length (its places would not be the text's)."""
    low, n = text.casefold(), needle.casefold()
    if not n or n not in low or len(low) != len(text):
        return []
    spans: list[tuple[int, int]] = []
    start = low.find(n)
    while start >= 0:
        spans.append((start, start + len(n)))
        start = low.find(n, start + len(n))
    return spans


def highlight(strip: Strip, needle: str, style: Style) -> Strip:
    """`strip` with every case-insensitive occurrence of `needle` restyled: each segment cut where
    a match starts or ends inside it, in one walk of the segments and the matches together (a
    look at every match for each segment and each piece cost a line's width squared each frame:
    a line of 500 one-letter segments, 42 ms)."""
    spans = match_spans(strip.text, needle)
    if not spans:
        return strip
    out: list[Segment] = []
    pos = k = 0  # (spans[k]: the first match that ends past the place looked at)
    for seg in strip:
        seg_text, seg_style, control = seg
        if control:
            out.append(seg)
            continue
        end = pos + len(seg_text)
        at = pos
        while at < end:
            while k < len(spans) and spans[k][1] <= at:
                k += 1
            hit = k < len(spans) and spans[k][0] <= at
            cut = min(end, spans[k][1] if hit else spans[k][0] if k < len(spans) else end)
            piece = seg_text[at - pos:cut - pos]
            out.append(Segment(piece, (seg_style + style) if hit and seg_style else style if hit else seg_style))
            at = cut
        pos = end
    return Strip(out, strip.cell_length)
