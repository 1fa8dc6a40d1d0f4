"""Writes the demo corpus from the templates in `data/` (the format: this package's docstring)."""
from __future__ import annotations

import json
import lzma
import os
import re
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta, timezone
from functools import cache
from importlib.resources import files
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..memory.agent import MemoryItem

__all__ = ["DemoCorpus", "generate_demo", "escape_project_dir", "demo_memory", "render"]

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_CLOCK = r"\d+:\d\d:\d\d(?:\.\d{1,6})?"
_TIME = rf"d(?P<days>[+-]\d+)T(?P<tod>{_CLOCK})|now(?P<sign>[+-])(?P<off>{_CLOCK})"
_TAIL = re.compile(rf"(?:{_TIME})(?:\|(?P<fmt>[^{{}}]*))?\}}\}}")  # what follows a "{{"
_MALFORMED = re.compile(r"d[+-]|now")


@dataclass(frozen=True)
class DemoCorpus:
    """Where the demo corpus was written, and what it holds.

    `claude_root` and `codex_root` are the agents' config directories (what `~/.claude` and
    `~/.codex` are on a real machine); transcripts are under `claude_root/projects` and
    `codex_root/sessions`.

    The demo's projects (/home/dev/...) do not exist on disk, so their checkouts are stood in for
    by `root/workspace/<project name>/` (`project_dirs`: project path -> that folder), each with
    its session notes in `memory/` (`memory_dirs`: project path -> notes folder); auto-memory is
    in `claude_root/projects/<escaped project>/memory/`. `memory_items()` lists all of it under
    the real project paths, as the sessions have them.
    """

    root: Path
    claude_root: Path
    codex_root: Path
    claude_sessions: int
    claude_subagents: int
    codex_sessions: int
    files: int
    lines: int
    bytes: int
    big_file: Path
    broken_file: Path
    broken_line: int
    markup_file: Path
    exec_file: Path
    paths: tuple[Path, ...] = field(default=(), repr=False)
    memory_dirs: dict[str, Path] = field(default_factory=dict, repr=False, hash=False)
    project_dirs: dict[str, Path] = field(default_factory=dict, repr=False, hash=False)
    memory_files: tuple[Path, ...] = field(default=(), repr=False)
    #: sessions of the other agents (Copilot CLI, pi, OpenCode, ...) by agent
    other_sessions: dict[str, int] = field(default_factory=dict, repr=False, hash=False)
    #: files a session keeps beside its transcript (OpenCode's message and part files)
    extra_files: tuple[Path, ...] = field(default=(), repr=False)

    def memory_items(self) -> list[MemoryItem]:
        """The demo's memory as the app lists it (see `demo_memory`)."""
        return demo_memory(self.root)

    @property
    def claude_projects(self) -> Path:
        return self.claude_root / "projects"

    @property
    def codex_sessions_dir(self) -> Path:
        return self.codex_root / "sessions"

    @property
    def roots(self) -> list[Path]:
        """Every agent's folder of the corpus, as `--root`s (the other agents' under their names)."""
        return [self.claude_root, self.codex_root, *(self.root / d for d in OTHER_ROOTS)]


#: the folders of the other agents under the demo root, as the agents lay them out
OTHER_ROOTS = ("copilot/session-state", "pi/sessions", "opencode/storage/session", "gemini/tmp", "aider")


def escape_project_dir(cwd: str) -> str:
    """Claude Code's project directory name for a cwd: every non-alphanumeric char becomes '-'."""
    return re.sub(r"[^a-zA-Z0-9]", "-", cwd)


# -- placeholders -------------------------------------------------------------------------------


def _clock(text: str) -> timedelta:
    h, m, s = text.split(":")
    whole, _, frac = s.partition(".")
    return timedelta(hours=int(h), minutes=int(m), seconds=int(whole),
                     microseconds=int(frac.ljust(6, "0")) if frac else 0)


def _when(m: re.Match[str], now: datetime) -> datetime:
    if m["days"] is not None:
        midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
        return midnight + timedelta(days=int(m["days"])) + _clock(m["tod"])
    offset = _clock(m["off"])
    return now + offset if m["sign"] == "+" else now - offset


def _format(t: datetime, fmt: str | None) -> str:
    if not fmt:
        return (f"{t.year:04d}-{t.month:02d}-{t.day:02d}T{t.hour:02d}:{t.minute:02d}:"
                f"{t.second:02d}.{t.microsecond // 1000:03d}Z")
    if fmt == "epoch":
        return str((t - _EPOCH) // timedelta(seconds=1))
    if fmt.startswith("uuid7"):  # the time's milliseconds in the first 48 bits
        ms = f"{int(t.timestamp() * 1000):012x}"
        return f"{ms[:8]}-{ms[8:]}{fmt[5:]}"
    if "%" in fmt:
        return t.strftime(fmt)
    raise ValueError(f"unknown placeholder format {fmt!r}")


def render(text: str, now: datetime, *, name: str = "template") -> str:
    """`text` with each `{{TIME|FORMAT}}` filled in for `now` (UTC). A `{{` that starts no
    placeholder stays as it is, unless it looks like one (`{{d-`, `{{now`): that is an error."""
    parts = text.split("{{")
    out = [parts[0]]
    line = parts[0].count("\n") + 1
    for part in parts[1:]:
        m = _TAIL.match(part)
        try:
            if m is None:
                if _MALFORMED.match(part):
                    raise ValueError(f"malformed placeholder {'{{' + part[:40]!r}")
                out.append("{{" + part)
                line += part.count("\n")
                continue
            value = _format(_when(m, now), m["fmt"])
        except ValueError as e:
            raise ValueError(f"{name}:{line}: {e}") from None
        rest = part[m.end():]
        if m["fmt"] == "epoch" and out[-1].endswith('"') and rest.startswith('"'):
            out[-1], rest = out[-1][:-1], rest[1:]  # a number, written as a JSON string
        out += (value, rest)
        line += rest.count("\n")
    return "".join(out)


def _moment(spec: str, now: datetime) -> datetime:
    """A manifest time (`TIME` or `TIME|s`, floored to the second)."""
    time, _, fmt = spec.partition("|")
    m = re.fullmatch(_TIME, time)
    if m is None or fmt not in ("", "s"):
        raise ValueError(f"demo manifest: malformed time {spec!r}")
    t = _when(m, now)
    return t.replace(microsecond=0) if fmt == "s" else t


# -- the data -----------------------------------------------------------------------------------


@cache
def manifest() -> dict[str, Any]:
    return json.loads((files(__package__) / "data" / "manifest.json").read_text("utf-8"))


@cache
def _template(name: str) -> str:
    data = (files(__package__) / "data").joinpath(*name.split("/")).read_bytes()
    return (lzma.decompress(data) if name.endswith(".xz") else data).decode("utf-8")


def _first_bad_line(data: bytes) -> int:
    for n, line in enumerate(data.split(b"\n"), 1):
        try:
            json.loads(line)
        except ValueError:
            return n
    return 0


def _workspace(root: Path, project: str) -> Path:
    """The stand-in checkout of a demo project (whose real path does not exist here)."""
    return root / "workspace" / project.rstrip("/").rsplit("/", 1)[-1]


# -- the generator ------------------------------------------------------------------------------


def generate_demo(root: Path, *, now: datetime | None = None) -> DemoCorpus:
    """Write the demo corpus under `root` (created if missing) and describe it.

    Deterministic for a given `now` (default: the current time): the same bytes and file times.
    Existing files of an earlier run are overwritten in place; nothing else under `root` is
    touched.
    """
    now = (now or datetime.now(timezone.utc)).astimezone(timezone.utc)
    root = Path(root)
    spec = manifest()
    transcripts: list[tuple[dict[str, Any], Path, bytes]] = []
    memory: list[Path] = []
    extra: list[Path] = []
    for entry in spec["files"]:
        name = entry["template"]
        path = root / render(entry["path"], now, name="manifest.json")
        data = render(_template(name), now, name=name).encode("utf-8")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        mtime = _moment(entry["mtime"], now).timestamp()
        os.utime(path, (mtime, mtime))
        if "agent" in entry:
            transcripts.append((entry, path, data))
        elif entry.get("memory"):
            memory.append(path)
        elif not path.name.endswith(".meta.json"):
            extra.append(path)

    marks = {e["mark"]: (p, d) for e, p, d in transcripts if "mark" in e}
    agents = [e["agent"] for e, _, _ in transcripts if not e.get("subagent")]
    checkouts = spec["checkouts"]
    return DemoCorpus(
        root=root,
        claude_root=root / "claude",
        codex_root=root / "codex",
        claude_sessions=agents.count("claude-code"),
        claude_subagents=sum(1 for e, _, _ in transcripts if e.get("subagent")),
        codex_sessions=agents.count("codex"),
        files=len(transcripts),
        lines=sum(d.count(b"\n") for _, _, d in transcripts),
        bytes=sum(len(d) for _, _, d in transcripts),
        big_file=marks["big"][0],
        broken_file=marks["broken"][0],
        broken_line=_first_bad_line(marks["broken"][1]),
        markup_file=marks["markup"][0],
        exec_file=marks["exec"][0],
        paths=tuple(p for _, p, _ in transcripts),
        memory_dirs={p: _workspace(root, p) / "memory" for p in checkouts},
        project_dirs={p: _workspace(root, p) for p in checkouts},
        memory_files=tuple(memory),
        other_sessions={a: agents.count(a) for a in dict.fromkeys(agents) if a not in ("claude-code", "codex")},
        extra_files=tuple(extra),
    )


def demo_memory(root: Path) -> list[MemoryItem]:
    """Every memory file of the demo corpus written under `root`, newest first, each under the
    demo project it belongs to (`/home/dev/projects/payments-api`, as its sessions say), not under
    the stand-in folder or the escaped Claude folder name it was found in."""
    from ..memory.agent import discover_memory

    root = Path(root)
    checkouts = {os.path.abspath(_workspace(root, p)): p for p in manifest()["checkouts"]}
    escaped = {escape_project_dir(p): p for p in manifest()["projects"]}
    items = discover_memory(list(checkouts), [str(root / "claude" / "projects")])
    real = {**checkouts, **escaped}
    return [replace(it, project=real.get(it.project, it.project)) for it in items]
