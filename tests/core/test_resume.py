"""Resume commands per agent."""
from __future__ import annotations

from sessionscope.core.model import Session, SessionKind
from sessionscope.core.read.resume import resume_command


def s(sid: str, agent: str, project: str | None = "/home/dev/my app", **kw: object) -> Session:
    return Session(id=sid, agent=agent, source_format=agent, paths=("/x.jsonl",), project=project, **kw)  # type: ignore[arg-type]


def test_claude_resumes_from_its_project_dir() -> None:
    cmd = resume_command(s("abc", "claude-code"))
    assert cmd is not None
    assert cmd.argv == ("claude", "--resume", "abc") and cmd.cwd == "/home/dev/my app"
    assert cmd.shell == "cd '/home/dev/my app' && claude --resume abc"


def test_codex() -> None:
    cmd = resume_command(s("019a", "codex", project=None))
    assert cmd is not None and cmd.shell == "codex resume 019a"


def test_subagent_resumes_its_parent() -> None:
    parent = s("p1", "claude-code")
    child = s("p1/agent-a1", "claude-code", kind=SessionKind.SUBAGENT, parent_id="p1")
    cmd = resume_command(child, parent)
    assert cmd is not None and cmd.argv[-1] == "p1"
    assert resume_command(child) is None  # no parent known: nothing sensible to run


def test_unknown_agent_has_none() -> None:
    assert resume_command(s("x", "my-agent")) is None
