"""One memory file rendered: its frontmatter as a card (with the problems found in it), then its
body as Markdown.

The file is the agent's (or the user's) text: the card shows values as plain text with control
characters made visible, and the body goes through a Markdown parser with raw HTML off, so a
`<script>` or `[bold]` in a note is shown as written and acts on nothing.
"""
from __future__ import annotations

import os
from datetime import datetime
from typing import Any, Callable, ClassVar

from markdown_it import MarkdownIt
from rich.console import Group, RenderableType
from rich.style import Style
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Markdown, Static

from sessionscope.core.memory.places import (
    AUTO_INDEX,
    AUTO_TOPIC,
    INSTRUCTIONS,
    SCHEMA_VERSION,
    SESSION_NOTE,
    MemoryItem,
)
from sessionscope.core.text import printable

from ._cells import clock_of, foreground

__all__ = ["MemoryNoteView", "card_rows", "display_path", "safe_markdown_parser"]

_KIND_TITLES = {
    SESSION_NOTE: "session note",
    AUTO_INDEX: "auto-memory index",
    AUTO_TOPIC: "auto-memory topic",
    INSTRUCTIONS: "instructions",
}
_SOURCES = {"name": "file name", "mtime": "modified", "last_session_at": "last_session_at", "generated": "generated"}


def safe_markdown_parser() -> MarkdownIt:
    """GitHub-like Markdown with raw HTML off: tags in a note are shown as text."""
    return MarkdownIt("gfm-like", {"html": False})


def _value(value: Any) -> str:
    """A frontmatter value on one line: lists joined, decisions as `CP: option (note) ↻n`."""
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ", ".join(_value(v) for v in value) if value else "–"
    if isinstance(value, dict):
        if not value:
            return "–"
        parts = []
        for k, v in value.items():
            if isinstance(v, dict) and "option" in v:
                text = f"{k}: {_value(v.get('option'))}"
                if v.get("note"):
                    text += f" ({_value(v['note'])})"
                if v.get("regenerated_count"):
                    text += f" ↻{_value(v['regenerated_count'])}"
                parts.append(text)
            else:
                parts.append(f"{k}: {_value(v)}")
        return "; ".join(parts)
    return " ".join(str(value).split())


def display_path(path: str) -> str:
    """A path with the home directory shown as `~`."""
    home = os.path.expanduser("~").rstrip(os.sep)
    if home and (path == home or path.startswith(home + os.sep)):
        return "~" + path[len(home):]
    return path


def body_markdown(rendered: dict[str, Any]) -> str:
    """The body, then each `@path` import resolved: the imported file's text under a heading that
    names the reference and where it led (nested imports after their parent), or why it was not
    followed. The agent reads an instruction file with its imports in place; this shows what it
    reads."""
    parts = [str(rendered.get("body") or "").rstrip()]

    def add(imports: list[dict[str, Any]], via: str) -> None:
        for imp in imports:
            ref = f"{via} → @{imp.get('ref')}" if via else f"@{imp.get('ref')}"
            where = display_path(str(imp["path"])) if imp.get("path") else ""
            if imp.get("status") == "ok":
                parts.append(f"---\n\n### {ref}\n\n*{where}*\n\n{str(imp.get('text') or '').rstrip()}")
            else:
                parts.append(f"---\n\n### {ref}\n\n*not followed: {imp.get('status')}*"
                             + (f" *({where})*" if where else ""))
            add(imp.get("imports") or [], ref)

    add(rendered.get("imports") or [], "")
    return "\n\n".join(p for p in parts if p)


def card_rows(item: MemoryItem, rendered: dict[str, Any], now: datetime) -> list[tuple[str, str]]:
    """The card's (label, value) rows: where and when, then the frontmatter in file order, then
    imports. Plain text; the caller makes it printable and styles it."""
    rows: list[tuple[str, str]] = [("file", display_path(item.path))]
    if item.timestamp is not None:
        local = item.timestamp.astimezone(now.tzinfo) if now.tzinfo else item.timestamp
        source = _SOURCES.get(item.timestamp_source, item.timestamp_source)
        rows.append(("time", local.strftime("%Y-%m-%d %H:%M") + (f" ({source})" if source else "")))
    if item.kind == SESSION_NOTE and item.schema_version and item.schema_version != SCHEMA_VERSION:
        rows.append(("schema", f"{item.schema_version}: read as is, migrated to {SCHEMA_VERSION} by its next save"))
    if item.link_target:
        rows.append(("link", f"→ {item.link_target}"))
    frontmatter = rendered.get("frontmatter") or {}
    if isinstance(frontmatter, dict):
        rows += [(str(k), _value(v)) for k, v in frontmatter.items()]
    imports = rendered.get("imports") or []
    if imports:
        rows.append(("imports", ", ".join(
            f"@{i.get('ref')}" + (f" → {display_path(str(i['path']))}" if i.get("status") == "ok" and i.get("path")
                                  else f" ({i.get('status')})")
            for i in imports) + " (shown below)"))
    entries = rendered.get("entries") or []
    if entries:
        rows.append(("entries", ", ".join(f"{e.get('title')}" + ("" if e.get("exists") else " (missing)") for e in entries)))
    return rows


class MemoryNoteView(VerticalScroll, can_focus=True):
    """The selected memory file: a frontmatter card and the body as Markdown (scrolls)."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "memory-note--key",
        "memory-note--warning",
        "memory-note--muted",
    }

    DEFAULT_CSS = """
    MemoryNoteView {
        height: 1fr;
        & > .memory-note--key { color: $foreground-muted; }
        & > .memory-note--warning { color: $text-warning; }
        & > .memory-note--muted { color: $foreground-muted; text-style: italic; }
        #memory-card { height: auto; }
        #memory-body { height: auto; }
    }
    """

    def __init__(
        self,
        *,
        now: datetime | Callable[[], datetime] | None = None,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._clock: Callable[[], datetime] = clock_of(now)
        self._shown: tuple[MemoryItem, dict[str, Any]] | None = None
        self._message = ""

    def compose(self) -> ComposeResult:
        yield Static(id="memory-card", markup=False)
        yield Markdown(id="memory-body", parser_factory=safe_markdown_parser, open_links=False)

    # -- public API ---------------------------------------------------------------------------
    @property
    def item(self) -> MemoryItem | None:
        """The item shown (None while a message is shown instead)."""
        return self._shown[0] if self._shown else None

    @property
    def rendered(self) -> dict[str, Any] | None:
        return self._shown[1] if self._shown else None

    @property
    def body(self) -> str:
        """The Markdown shown below the card."""
        return self.query_one("#memory-body", Markdown).source

    async def show(self, item: MemoryItem, rendered: dict[str, Any]) -> None:
        """Show an item as `core.memory.render_note` rendered it. The same file shown again (it
        changed on disk) keeps its scroll position."""
        same = self._shown is not None and self._shown[0].path == item.path
        top = self.scroll_y
        self._shown = (item, rendered)
        self._message = ""
        self._update_card()
        await self.query_one("#memory-body", Markdown).update(printable(body_markdown(rendered)))
        if same:
            self.scroll_to(y=top, animate=False)
        else:
            self.scroll_home(animate=False)

    async def show_message(self, message: str) -> None:
        """A line of text instead of a file (nothing selected, reading…)."""
        self._shown = None
        self._message = message
        self._update_card()
        await self.query_one("#memory-body", Markdown).update("")
        self.scroll_home(animate=False)

    # -- rendering ------------------------------------------------------------------------------
    def _style(self, name: str) -> Style:
        return foreground(self.get_component_rich_style(name))

    def _update_card(self) -> None:
        card = self.query_one("#memory-card", Static)
        if self._shown is None:
            card.border_title = None
            card.set_class(False, "-shown")
            card.update(Text(printable(self._message), style=self._style("memory-note--muted")))
            return
        item, rendered = self._shown
        card.set_class(True, "-shown")
        card.set_class(bool(item.warnings or rendered.get("warnings")), "-warnings")
        title = _KIND_TITLES.get(item.kind, item.kind)
        # A Text, not a str: a str title is parsed as markup, and the name is the file's.
        card.border_title = Text(printable(f"{title} · {item.name}" if item.name else title))
        card.update(self._card(item, rendered))

    def _card(self, item: MemoryItem, rendered: dict[str, Any]) -> RenderableType:
        grid = Table.grid(padding=(0, 1), expand=True)
        grid.add_column(style=self._style("memory-note--key"), no_wrap=True, max_width=22)
        grid.add_column(ratio=1, overflow="fold")
        for label, value in card_rows(item, rendered, self._clock()):
            grid.add_row(Text(printable(label)), Text(printable(value)))
        warnings = list(dict.fromkeys([*item.warnings, *(rendered.get("warnings") or [])]))
        if not warnings:
            return grid
        style = self._style("memory-note--warning")
        lines = [Text(f"⚠ {printable(w)}", style=style) for w in warnings]
        return Group(grid, Text(""), *lines)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        if self.is_mounted:
            self._update_card()  # the card's colours come from component styles
