"""Where agents keep their transcripts, and which files under those roots are sessions.

Default roots come from each agent's documented locations and environment overrides; a missing
or unreadable root is reported as a `Root` with an error, never raised. Files are matched to an
adapter by sniffing their content (names only pre-filter), so a `--root` may hold any mix.
"""
from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Iterator

from ..records import record
from .walk import MAX_DIRS

if TYPE_CHECKING:  # (the adapters come with the first scan: resolving roots needs none)
    from .adapters.base import Registry
    from .walk import Listings, WalkReport

#: the name endings and project file names of the default adapters (`default_registry()`; a
#: test holds them equal): a walk over folders it knows needs no adapter, so none is imported
DEFAULT_SUFFIXES = ('.aider.chat.history.md', '.chat.history.md', '.db', '.json', '.jsonl', '.jsonl.zst')
DEFAULT_PROJECT_FILES = ('.aider.chat.history.md',)


@record(frozen=True)
class Root:
    path: str
    origin: str  # "claude-code", "codex", "copilot-cli", "pi", "opencode", "--root", "config", "demo"
    explicit: bool = False  # given by the user: a missing one is an error, not a note
    max_folders: int = MAX_DIRS  # a walk of it stops after this many folders (config `max_folders`)
    #: a project folder: only the files agents keep in a project (Adapter.project_files) directly
    #: in it are read, nothing below it is walked (and it is not watched)
    shallow: bool = False
    #: an archive's mirror (origin ARCHIVE): the root it mirrors, whose files it holds copies of
    source: str | None = None

    @property
    def error(self) -> str | None:
        p = Path(self.path)
        if "\0" in self.path:  # (os.stat raises ValueError on it)
            return f"root is not a usable path: {self.path!r}"
        if not p.exists():
            return f"root not found: {self.path}"
        if not p.is_dir() and not is_database_file(self.path):
            return f"root is not a directory: {self.path}"
        if not os.access(p, os.R_OK | (os.X_OK if p.is_dir() else 0)):
            return f"root not readable: {self.path}"
        return None


#: the agents whose home a config key (`<agent>_home`) or an environment variable moves
AGENT_HOMES = ("copilot", "pi", "opencode", "gemini")


def is_database_file(path: str) -> bool:
    """A root may also be one database file (OpenCode's `opencode.db`: its sessions are rows)."""
    try:
        with open(path, "rb") as fh:
            return fh.read(16) == b"SQLite format 3\x00"
    except OSError:
        return False


def default_roots(env: dict[str, str] | None = None, home: Path | None = None,
                  homes: dict[str, str] | None = None) -> list[Root]:
    """Each agent's documented locations, the folders its environment variables name, and the
    homes the config gives (`homes`: agent -> folder, see AGENT_HOMES)."""
    env = dict(os.environ) if env is None else env
    home = home or Path.home()
    homes = homes or {}
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
    roots += _more_agents(env, home, homes)
    for d in gemini_homes(env, home, homes):
        roots.append(Root(str(d / "tmp"), "gemini-cli"))
    return _dedupe(roots)


def gemini_homes(env: dict[str, str], home: Path, homes: dict[str, str] | None = None) -> list[Path]:
    """Gemini CLI's folders: ~/.gemini, `$GEMINI_CLI_HOME/.gemini` (Gemini takes that variable
    for the home directory) and the config's `gemini_home`."""
    found = [home / ".gemini"]
    if env.get("GEMINI_CLI_HOME", "").strip():
        found.append(Path(env["GEMINI_CLI_HOME"]).expanduser() / ".gemini")
    if (homes or {}).get("gemini"):
        found.append(Path(homes["gemini"]).expanduser())  # type: ignore[index]
    return found


def project_roots(folders: tuple[str, ...] = (), env: dict[str, str] | None = None,
                  cwd: str | None = None) -> list[Root]:
    """The project folders that hold a file an agent keeps in a project (Aider's chat history),
    as shallow roots: among the working directory, the config's `project_roots` (`folders`) and
    their direct subfolders, and the folder of an absolute `$AIDER_CHAT_HISTORY_FILE`. Never a
    walk of the disk: the known projects of the sessions join them in the library
    (core/catalog/library.py). A folder without such a file is no root (nothing to read there,
    and no "history found" where there is none)."""
    env = dict(os.environ) if env is None else env
    from .adapters.aider import history_names  # (the one agent that keeps history in a project)

    names = history_names(env)
    try:
        found = [cwd or os.getcwd()]
    except OSError:  # the working directory was deleted
        found = []
    for r in folders:
        r = os.path.abspath(os.path.expanduser(r))
        found.append(r)
        try:
            with os.scandir(r) as it:
                found.extend(sorted(e.path for e in it if e.is_dir() and not e.name.startswith(".")))
        except OSError:
            continue
    named = env.get("AIDER_CHAT_HISTORY_FILE", "")
    if os.path.isabs(named):
        found.append(os.path.dirname(named))
    return [project_root(f) for f in dict.fromkeys(found)
            if any(os.path.isfile(os.path.join(f, n)) for n in names)]


#: the origin of a project folder root (a shallow one)
PROJECT = "project"
#: the origin of a root inside `sessionscope archive`'s folder: the mirror of an agent's root
ARCHIVE = "archive"
#: the archive's list of the roots it mirrors (written by core/archive), in the archive folder
ARCHIVE_MANIFEST = "roots.json"


def mirror_path(archive: str, path: str, home: str | None = None) -> str:
    """Where the archive keeps `path` (a root, or a file under one): the same path under
    `archive/home/` for what is in the home folder, else under `archive/root/`, so each agent's
    own layout is kept and the adapters read the mirror as they read the original."""
    home = os.path.abspath(home or os.path.expanduser("~"))
    path = os.path.abspath(path)
    if path == home or path.startswith(home.rstrip(os.sep) + os.sep):
        return os.path.join(archive, "home", os.path.relpath(path, home))
    return os.path.join(archive, "root", path.lstrip(os.sep))


def archive_roots(archive: str | os.PathLike[str] | None) -> list[Root]:
    """The roots an archive folder holds (its ARCHIVE_MANIFEST says which mirrors there are),
    each as a root of origin ARCHIVE; none when there is no archive there (or it cannot be read:
    the live roots are read all the same)."""
    import json

    if not archive:
        return []
    folder = os.fspath(archive)
    try:
        with open(os.path.join(folder, ARCHIVE_MANIFEST), "rb") as fh:
            data = json.loads(fh.read())
        mirrors = [m for m in data["roots"] if isinstance(m, dict)]
    except (OSError, ValueError, KeyError, TypeError):
        return []
    out = []
    for m in mirrors:
        rel = m.get("mirror")
        if not isinstance(rel, str) or os.path.isabs(rel) or ".." in rel.split("/"):
            continue  # (never a root outside the archive folder)
        path = os.path.join(folder, rel)
        source = m.get("source")
        if os.path.isdir(path):
            out.append(Root(path, ARCHIVE, shallow=m.get("shallow") is True,
                            source=source if isinstance(source, str) and os.path.isabs(source) else None))
    return out


def is_archive(root: Root) -> bool:
    return root.origin == ARCHIVE
#: the origins of roots the user named (the others are the agents' defaults)
NAMED = frozenset({"--root", "config", "demo", ARCHIVE})


def project_root(folder: str) -> Root:
    return Root(folder, PROJECT, shallow=True)


def looks_in_projects(roots: list[Root]) -> bool:
    """Whether the known projects' folders are looked in too: with the agents' default roots."""
    return any(r.origin == PROJECT or (r.origin not in NAMED and not r.explicit) for r in roots)


def _more_agents(env: dict[str, str], home: Path, homes: dict[str, str]) -> list[Root]:
    """GitHub Copilot CLI (`~/.copilot`, or under `$XDG_CONFIG_HOME`), pi (`~/.pi/agent`,
    `$PI_CODING_AGENT_DIR`) and OpenCode (`~/.local/share/opencode`, `$XDG_DATA_HOME/opencode`):
    their session folders, and OpenCode's database file."""
    def dirs(default: Path, *more: str | None) -> list[Path]:
        return [default, *(Path(m).expanduser() for m in more if m and m.strip())]

    roots: list[Root] = []
    xdg_config, xdg_data = env.get("XDG_CONFIG_HOME"), env.get("XDG_DATA_HOME")
    for d in dirs(home / ".copilot", xdg_config and str(Path(xdg_config) / ".copilot"), homes.get("copilot")):
        roots.append(Root(str(d / "session-state"), "copilot-cli"))
        roots.append(Root(str(d / "history-session-state"), "copilot-cli"))
    for d in dirs(home / ".pi" / "agent", env.get("PI_CODING_AGENT_DIR"), homes.get("pi")):
        roots.append(Root(str(d / "sessions"), "pi"))
    for d in dirs(home / ".local" / "share" / "opencode", xdg_data and str(Path(xdg_data) / "opencode"),
                  homes.get("opencode")):
        roots.append(Root(str(d / "storage" / "session"), "opencode"))
        roots.append(Root(str(d / "opencode.db"), "opencode"))
    return roots


def _dedupe(roots: list[Root]) -> list[Root]:
    seen: set[tuple[str, bool]] = set()
    out = []
    for r in roots:
        key = (os.path.realpath(r.path), r.shallow)
        if key not in seen:
            seen.add(key)
            out.append(r)
    return out


def resolve_roots(
    explicit: list[str] | tuple[str, ...] = (),
    config_roots: tuple[str, ...] = (),
    use_defaults: bool = True,
    max_folders: int = MAX_DIRS,
    homes: dict[str, str] | None = None,
    project_folders: tuple[str, ...] = (),
    archive: str | os.PathLike[str] | None = None,
) -> list[Root]:
    """Explicit `--root`s first, then config roots, then the agents' defaults (if enabled; with
    the agent homes of the config, `homes`), then, without `--root`s, the mirrors in the
    `archive` folder (`sessionscope archive`) when there is one."""
    roots = [Root(str(Path(p).expanduser()), "--root", explicit=True) for p in explicit]
    roots += [Root(str(Path(p).expanduser()), "config", explicit=True) for p in config_roots]
    if use_defaults and not explicit:
        roots += default_roots(homes=homes)
        roots += project_roots(project_folders)
    if not explicit:
        roots += archive_roots(archive)
    if max_folders != MAX_DIRS:
        roots = [replace(r, max_folders=max_folders) for r in roots]
    return _dedupe(roots)


def looked_for(registry: Registry | None) -> tuple[str, ...]:
    """The name endings a walk looks for, then the project file names (`registry` None: the
    default adapters')."""
    if registry is None:
        return DEFAULT_SUFFIXES + DEFAULT_PROJECT_FILES
    return (tuple(sorted({s for a in registry.adapters for s in a.suffixes}))
            + tuple(n for a in registry.adapters for n in a.project_files))


def candidate_files(root: Root, registry: Registry | None, report: WalkReport | None = None,
                    stats: dict[str, os.stat_result] | None = None,
                    seen: set[tuple[int, int]] | None = None, listings: Listings | None = None,
                    ) -> Iterator[str]:
    """Files under a root that some adapter might read, each once (by device and inode: a file
    reached again through a link is not listed twice); the folders the walk left out
    (core/read/walk.py) go into `report` when given, and each listed file's stat into `stats`.
    `seen`, shared across roots, leaves out a file listed under an earlier root: the archive's
    hard link of a live file is read only once the live one is gone.

    Why by inode: one `stat` per file, which the scan needs anyway (`stats`), where resolving
    each path (`realpath`: an `lstat` per part of it) was a quarter of a warm scan.

    `registry` None: the default adapters' names (without importing them); `listings`: the
    folders an earlier walk listed (core/read/walk.py `Listings`)."""
    from .walk import walk_files

    if os.path.isfile(root.path):  # a database root: the file itself
        yield root.path
        return
    seen = set() if seen is None else seen
    if root.shallow:
        paths: Iterator[str] = _project_files(root.path, registry)
    else:
        suffixes = (tuple(sorted({s for a in registry.adapters for s in a.suffixes}))
                    if registry is not None else DEFAULT_SUFFIXES)
        paths = walk_files(root.path, suffixes, report, max_dirs=root.max_folders,
                           listings=listings)
    for path in paths:
        if _TOOL_RESULTS in path or path.endswith(".meta.json"):
            continue
        try:
            st = os.stat(path)
        except OSError:
            yield path  # (vanished, or unreadable: the caller's own look says which)
            continue
        key = (st.st_dev, st.st_ino)
        if key in seen:
            continue
        seen.add(key)
        if stats is not None:
            stats[path] = st
        yield path


_TOOL_RESULTS = os.sep + "tool-results" + os.sep  # (Claude Code's saved tool outputs: no transcripts)


def roots_files(roots: list[Root], registry: Registry | None, report: WalkReport | None = None,
                stats: dict[str, os.stat_result] | None = None, listings: Listings | None = None,
                ) -> Iterator[str]:
    """`candidate_files` of each root (the readable ones the caller passes), each file once: the
    archive's mirrors come last, and a file of theirs is left out while the file it copies is
    listed under a live root (a hard link by its inode, any copy by its path), so a session is
    read from the archive only once its agent deleted it."""
    seen: set[tuple[int, int]] = set()
    live: set[str] = set()
    for root in sorted(roots, key=is_archive):
        if not is_archive(root):
            for path in candidate_files(root, registry, report, stats, seen, listings):
                live.add(path)
                yield path
            continue
        for path in candidate_files(root, registry, report, stats, seen, listings):
            if original_of(root, path) not in live:
                yield path


def original_of(root: Root, path: str) -> str | None:
    """The live file an archive mirror's file is a copy of (None: not known)."""
    if not root.source:
        return None
    return root.source.rstrip(os.sep) + path[len(root.path.rstrip(os.sep)):]


def _project_files(folder: str, registry: Registry | None) -> Iterator[str]:
    """The files directly in a project folder that an adapter keeps there (by name)."""
    names = (tuple(n for a in registry.adapters for n in a.project_files)
             if registry is not None else DEFAULT_PROJECT_FILES)
    if not names:
        return
    try:
        with os.scandir(folder) as it:
            found = sorted(e.path for e in it if e.name.endswith(names) and e.is_file())
    except OSError:
        return
    yield from found
