"""How to resume a session in the agent that wrote it.

Why here: the CLI, the app and scripts all build the same command, and the rules (a subagent
run resumes through its parent; Claude must be started from the session's project directory)
should live in one place.
"""
from __future__ import annotations

import shlex
from dataclasses import dataclass

from ..model import Session

_COMMANDS = {
    "claude-code": ("claude", "--resume"),
    "codex": ("codex", "resume"),
    "copilot-cli": ("copilot", "--resume"),
    "pi": ("pi", "--session"),
    "opencode": ("opencode", "--session"),
}


@dataclass(frozen=True)
class ResumeCommand:
    argv: tuple[str, ...]
    cwd: str | None

    @property
    def shell(self) -> str:
        """One line to paste into a shell: `cd <project> && claude --resume <id>`."""
        cmd = shlex.join(self.argv)
        return f"cd {shlex.quote(self.cwd)} && {cmd}" if self.cwd else cmd


def resume_command(session: Session, parent: Session | None = None) -> ResumeCommand | None:
    """The command that resumes `session`, or None when its agent has no resume command.

    A subagent, compaction or warmup run cannot be resumed on its own: its parent is."""
    target = parent if (parent is not None and session.parent_id == parent.id) else session
    base = _COMMANDS.get(target.agent) or _COMMANDS.get(target.source_format)
    if base is None or "/" in target.id:
        return None
    return ResumeCommand((*base, target.id), target.project)
