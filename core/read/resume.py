"""How to resume a session in the agent that wrote it.

Why here: the CLI, the app and scripts all build the same command, and the rules (a subagent
run resumes through its parent; Claude must be started from the session's project directory)
should live in one place.
"""
from __future__ import annotations

import os
import shlex
from dataclasses import dataclass

from ..model import Session

_COMMANDS = {
    "claude-code": ("claude", "--resume"),
    "codex": ("codex", "resume"),
    "copilot-cli": ("copilot", "--resume"),
    "pi": ("pi", "--session"),
    "opencode": ("opencode", "--session"),
    # Gemini CLI finds a chat among its project's (the folder it is started in): only a session
    # whose project folder is known can be resumed.
    "gemini-cli": ("gemini", "--resume"),
}
#: agents resumed by their file, not an id: Aider restores a chat history file whole (all its
#: sessions), in its project folder
_BY_FILE = {"aider": ("aider", "--restore-chat-history", "--chat-history-file")}
_NEEDS_FOLDER = frozenset({"gemini-cli", "aider"})


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
    agent = target.agent if target.agent in _COMMANDS or target.agent in _BY_FILE else target.source_format
    if agent in _NEEDS_FOLDER and not (target.project and os.path.isabs(target.project)):
        return None  # (a Gemini project known only by its hash)
    if agent in _BY_FILE:
        return ResumeCommand((*_BY_FILE[agent], target.path), target.project)
    base = _COMMANDS.get(agent)
    if base is None or "/" in target.id:
        return None
    return ResumeCommand((*base, target.id), target.project)
