"""Where agents keep their transcripts, and which files under those roots are sessions.

Default roots come from each agent's documented locations and environment overrides; a missing
or unreadable root is reported as a `Root` with an error, never raised. Files are matched to an
adapter by sniffing their content (names only pre-filter), so a `--root` may hold any mix.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

from .walk import MAX_DIRS

if TYPE_CHECKING:  # (the adapters come with the first scan: resolving roots needs none)
    from .adapters.base import Registry
    from .walk import WalkReport


@dataclass(frozen=True)
class Root:
    path: str
    origin: str  # "claude-code", "codex", "--root", "config", "demo"
    explicit: bool = False  # given by the user: a missing one is an error, not a note
    max_folders: int = MAX_DIRS  # a walk of it stops after this many folders (config `max_folders`)

    @property
    def error(self) -> str | None:
        p = Path(self.path)
        if "\0" in self.path:  # (os.stat raises ValueError on it)
            return f"root is not a usable path: {self.path!r}"
        if not p.exists():
            return f"root not found: {self.path}"
        if not p.is_dir():
            return f"root is not a directory: {self.path}"
        if not os.access(p, os.R_OK | os.X_OK):
            return f"root not readable: {self.path}"
        return None


def default_roots(env: dict[str, str] | None = None, home: Path | None = None) -> list[Root]:
    env = dict(os.environ) if env is None else env
    home = home or Path.home()
    roots: list[Root] = []
    claude_dirs = [home / ".claude", home / ".config" / "claude"]
    for d in (env.get("CLAUDE_CONFIG_DIR") or "").split(","):
        if d.strip():
            claude_dirs.append(Path(d.strip()).expanduser())
    for d in claude_dirs:
        roots.append(Root(str(d / "projects"), "claude-code"))
    codex_homes = [home / ".codex"]
    if env.get("CODEX_HOME"):
        codex_homes.append(Path(env["CODEX_HOME"]).expanduser())
    for d in codex_homes:
        roots.append(Root(str(d / "sessions"), "codex"))
        roots.append(Root(str(d / "archived_sessions"), "codex"))
    return _dedupe(roots)


def _dedupe(roots: list[Root]) -> list[Root]:
    seen: set[str] = set()
    out = []
    for r in roots:
        key = os.path.realpath(r.path)
        if key not in seen:
            seen.add(key)
            out.append(r)
    return out


def resolve_roots(
    explicit: list[str] | tuple[str, ...] = (),
    config_roots: tuple[str, ...] = (),
    use_defaults: bool = True,
    max_folders: int = MAX_DIRS,
) -> list[Root]:
    """Explicit `--root`s first, then config roots, then the agents' defaults (if enabled)."""
    roots = [Root(str(Path(p).expanduser()), "--root", explicit=True) for p in explicit]
    roots += [Root(str(Path(p).expanduser()), "config", explicit=True) for p in config_roots]
    if use_defaults and not explicit:
        roots += default_roots()
    if max_folders != MAX_DIRS:
        roots = [replace(r, max_folders=max_folders) for r in roots]
    return _dedupe(roots)


def candidate_files(root: Root, registry: Registry, report: WalkReport | None = None) -> Iterator[str]:
    """Files under a root that some adapter might read, each once (by real path); the folders
    the walk left out (core/read/walk.py) go into `report` when given."""
    from .adapters.base import walk_files

    suffixes = tuple(sorted({s for a in registry.adapters for s in a.suffixes}))
    seen: set[str] = set()
    for path in walk_files(root.path, suffixes, report, max_dirs=root.max_folders):
        if os.sep + "tool-results" + os.sep in path or path.endswith(".meta.json"):
            continue
        real = os.path.realpath(path)
        if real in seen:
            continue
        seen.add(real)
        yield path
