"""The composer's project picker: every project some session was recorded in, most recently active
first, with its session count; the composer's current project is highlighted when it opens.

Why: the composer used the highlighted session's project without saying so, and a session whose
project is odd (a Codex run in a scratch folder) gave "no candidate findings … of <folder>" with
no way to pick another. enter picks, escape keeps the project as it was.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, ClassVar, Iterable

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList
from textual.widgets.option_list import Option

from sessionscope.core.text import one_line


@dataclass(frozen=True)
class KnownProject:
    path: str
    sessions: int
    last: datetime | None
    agents: tuple[str, ...]


def known_projects(sessions: Iterable[Any]) -> list[KnownProject]:
    """The projects of `sessions` (main sessions), most recently active first."""
    seen: dict[str, list[Any]] = {}
    for s in sessions:
        if s.project:
            seen.setdefault(os.path.normpath(s.project), []).append(s)
    floor = datetime.min.replace(tzinfo=timezone.utc)
    out = [KnownProject(p, len(ss), max((s.last_timestamp for s in ss if s.last_timestamp), default=None),
                        tuple(sorted({s.agent for s in ss}))) for p, ss in seen.items()]
    out.sort(key=lambda k: (k.last or floor, k.path), reverse=True)
    return out


def project_label(p: KnownProject) -> Text:
    name = os.path.basename(p.path.rstrip("/")) or p.path
    when = p.last.date().isoformat() if p.last else "undated"
    text = Text(one_line(name, 40), style="bold")
    text.append(f"  {one_line(p.path, 70)}", style="dim")
    text.append(f"  · {p.sessions} session(s) · {', '.join(p.agents)} · last {when}")
    return text


class PickProjectScreen(ModalScreen[str | None]):
    """Dismissed with the chosen project's path, or None (escape)."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="pick-project.cancel"),
    ]

    def __init__(self, projects: list[KnownProject], current: str | None) -> None:
        super().__init__()
        self.projects = projects
        self.current = os.path.normpath(current) if current else None

    def compose(self) -> ComposeResult:
        with Vertical(id="pick-project"):
            yield Label("Brief from the sessions of which project?", id="pick-project-title")
            if self.projects:
                yield OptionList(*[Option(project_label(p), id=str(n)) for n, p in enumerate(self.projects)],
                                 id="pick-project-list")
            else:
                yield Label("No session names a project yet.", id="pick-project-empty")
            yield Label(Text("enter picks · escape keeps the current project"), id="pick-project-note")

    def on_mount(self) -> None:
        if not self.projects:
            return
        options = self.query_one(OptionList)
        at = next((n for n, p in enumerate(self.projects) if p.path == self.current), 0)
        options.highlighted = at
        options.focus()

    @on(OptionList.OptionSelected)
    def _picked(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.projects[int(event.option.id or 0)].path)

    def action_cancel(self) -> None:
        self.dismiss(None)
