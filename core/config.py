"""User configuration (TOML in the platform config dir) and the cache location.

Why a file and env overrides: the CLI and the app share the same roots and limits, and tests (or
a second profile) point `SESSIONSCOPE_CONFIG` / `SESSIONSCOPE_CACHE_DIR` elsewhere instead of
touching the user's real directories.

```toml
roots = ["~/work/agent-logs"]      # extra roots, read by every adapter that recognises a file
default_roots = true                # also scan ~/.claude/projects, ~/.codex/sessions, ...
poll = false                        # poll instead of inotify (network filesystems)
tool_result_cap = 4000              # characters of each tool result that go into the index
memory_lock_timeout = 5             # seconds `memory save` waits for another save of the same note
max_folders = 20000                 # folders a walk of one root goes through before it stops, saying so
memory_dirs = ["~/notes/memory"]    # more memory folders for the app and `memory list`
copilot_home = "~/.copilot"         # another home of an agent, read beside its default one
pi_home = "~/.pi/agent"             #   (also: $XDG_CONFIG_HOME, $PI_CODING_AGENT_DIR,
opencode_home = "~/.local/share/opencode"  #   $XDG_DATA_HOME)
archive_dir = "~/agent-archive"     # where `sessionscope archive` keeps history (default: data dir/archive)
watch_archive = false               # `sessionscope watch` archives what changes (as --archive)
```
"""
from __future__ import annotations

import os
import sys
from dataclasses import field
from functools import lru_cache
from pathlib import Path

from .records import record

#: the install hint that ends the error of a `.zst` file read without zstandard (core/read/jsonl.py);
#: the catalog and the CLI recognise such errors by it
ZSTD_HINT = "pip install 'sessionscope[zstd]'"

APP_NAME = "sessionscope"


@record(frozen=True)
class Config:
    roots: tuple[str, ...] = ()
    default_roots: bool = True
    poll: bool = False
    tool_result_cap: int = 4000
    memory_lock_timeout: float = 5.0
    max_folders: int = 20_000
    memory_dirs: tuple[str, ...] = ()
    #: (agent, folder) from `<agent>_home` keys: another home of that agent, read as its default roots
    agent_homes: tuple[tuple[str, str], ...] = ()
    #: folders holding the user's projects (each, and its direct subfolders): where Aider's chat
    #: histories are looked for, and what names a Gemini CLI project hash
    project_roots: tuple[str, ...] = ()
    #: `archive_dir`: where `sessionscope archive` keeps its copies (None: `archive_dir()`'s default)
    archive: str | None = None
    #: `watch_archive`: `sessionscope watch` archives each session created or grown (as --archive)
    watch_archive: bool = False
    path: str | None = None
    warnings: tuple[str, ...] = field(default=())


def config_path() -> Path:
    data = getattr(os.environ, "_data", None)
    if os.name != "nt" and type(data) is dict:
        # (os.environ's own store of the variables as bytes, looked up without the KeyError its
        # `get` raises and catches for each variable not set: a listing asks this for every
        # Gemini chat, and two of the three are usually not set)
        get = data.get
        return _config_path_of(get(b"SESSIONSCOPE_CONFIG"), get(b"XDG_CONFIG_HOME"), get(b"HOME"))
    env = os.environ.get
    if os.name == "nt":  # pragma: no cover - Windows
        return _config_path(env("SESSIONSCOPE_CONFIG"), env("APPDATA"), env("LOCALAPPDATA"), env("USERPROFILE"))
    return _config_path(env("SESSIONSCOPE_CONFIG"), env("XDG_CONFIG_HOME"), env("HOME"))


@lru_cache(maxsize=8)
def _config_path_of(*values: bytes | None) -> Path:
    """`_config_path` of the variables' values as `os.environ` keeps them on POSIX (bytes)."""
    return _config_path(*(None if v is None else os.fsdecode(v) for v in values))


@lru_cache(maxsize=8)
def _config_path(explicit: str | None, *where: str | None) -> Path:
    """The config's path, by the variables that decide it (`where`: those `platformdirs` and
    `expanduser` read on this system; resolving it costs 9 us, and a listing asks for it once
    per Gemini chat)."""
    if explicit:
        return Path(explicit).expanduser()
    return Path(user_dir("config")) / "config.toml"


#: the environment variables an agent puts its current session's id in, for the processes it
#: starts: Claude Code's `CLAUDE_CODE_SESSION_ID` (its Bash tool since 2.1.132, its stdio MCP
#: servers since 2.1.154), the older name people set themselves, and Codex's.
AGENT_SESSION_VARS = ("CLAUDE_CODE_SESSION_ID", "CLAUDE_SESSION_ID", "CODEX_SESSION_ID")


#: the XDG Base Directory variable and default of each of sessionscope's folders (`user_dir`)
_XDG = {"cache": ("XDG_CACHE_HOME", "~/.cache"), "config": ("XDG_CONFIG_HOME", "~/.config"),
        "data": ("XDG_DATA_HOME", "~/.local/share")}


def user_dir(kind: str) -> str:
    """platformdirs' `user_{kind}_dir(APP_NAME)` (kind: cache, config, data). On Linux, where it
    is the XDG rule (the variable when it holds an absolute path, else the default under an
    absolute HOME), by that rule without importing platformdirs; anything else (another system,
    Android, a HOME not absolute or unset) asks platformdirs. tests/core/test_config_dirs.py
    holds the two equal. Why: importing platformdirs (tempfile, shutil, bz2, lzma and random with
    it) cost every command ~9 ms of imports, ~14 ms of a warm `search` (median of 15)."""
    var, default = _XDG[kind]
    if sys.platform == "linux" and not hasattr(sys, "getandroidapilevel") and "ANDROID_DATA" not in os.environ:
        value = os.environ.get(var, "")
        if value.startswith("/"):
            return os.path.join(value, APP_NAME)
        if os.environ.get("HOME", "").startswith("/"):
            return os.path.join(os.path.expanduser(default), APP_NAME)
    import platformdirs

    return getattr(platformdirs, f"user_{kind}_dir")(APP_NAME)


def cache_dir() -> Path:
    env = os.environ.get("SESSIONSCOPE_CACHE_DIR")
    if env:
        return Path(env).expanduser()
    return Path(user_dir("cache"))


def data_dir() -> Path:
    """sessionscope's own data folder (the briefs a person approved; `core.brief.approved`):
    the platform user data dir (`~/.local/share/sessionscope` on Linux), or
    `$SESSIONSCOPE_DATA_DIR`. Never an agent's folder or a repository."""
    env = os.environ.get("SESSIONSCOPE_DATA_DIR")
    if env:
        return Path(env).expanduser()
    return Path(user_dir("data"))


def archive_dir(config: Config | None = None) -> Path:
    """The folder `sessionscope archive` copies sessions into and the roots read back from: the
    config's `archive_dir`, else `archive/` in the data folder (not the cache: deleting the cache
    must never lose history the agents have deleted)."""
    if config is not None and config.archive:
        return Path(config.archive).expanduser()
    return data_dir() / "archive"


def bookmarks_file(demo: bool = False) -> Path:
    """The bookmarks' SQLite file in the data folder (`core.bookmarks.store`); the demo corpus
    keeps its own. Here, not there, so the app's launch names it without importing the store."""
    return data_dir() / ("demo-bookmarks.sqlite" if demo else "bookmarks.sqlite")


class CacheError(Exception):
    """The cache dir (or a cache in it) cannot be used: one line for the user, no traceback."""


def usable_cache_dir() -> Path:
    """`cache_dir()`, created if need be; CacheError when it cannot be (a file is in the way,
    no permission): every cache lives there, so nothing works without it."""
    d = cache_dir()
    try:
        d.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CacheError(f"cache dir {d} cannot be used ({exc.strerror or exc}); "
                         "set SESSIONSCOPE_CACHE_DIR to a writable directory") from None
    if not os.access(d, os.W_OK | os.X_OK):
        raise CacheError(f"cache dir {d} is not writable; "
                         "set SESSIONSCOPE_CACHE_DIR to a writable directory")
    return d


#: the largest `tool_result_cap` taken: a cap past any real tool result (it counts characters)
MAX_TOOL_RESULT_CAP = 1 << 30
#: the longest `memory_lock_timeout` taken, in seconds
MAX_LOCK_TIMEOUT = 600.0
#: the most folders `max_folders` may let one walk go through
MAX_FOLDERS = 10_000_000
HOME_KEYS = ("copilot_home", "pi_home", "opencode_home", "gemini_home")
KNOWN_KEYS = ("roots", "default_roots", "poll", "tool_result_cap", "memory_lock_timeout", "max_folders",
              "memory_dirs", "project_roots", *HOME_KEYS, "archive_dir", "watch_archive")


def load_config(path: Path | None = None) -> Config:
    """The config, with defaults for what is missing; every value of the wrong type or out of
    range is replaced by its default with a warning naming the key, never raised: a broken
    config must not stop a command. A config path that is not a file is a warning too."""
    p = path or config_path()
    try:
        exists = p.exists()
    except OSError as exc:  # a folder on the way that cannot be searched
        return Config(warnings=(f"config path {p} cannot be used ({exc.strerror or exc}); defaults used",))
    if not exists:
        return Config()
    if not p.is_file():
        return Config(path=str(p), warnings=(f"config {p} is not a file; ignored",))
    import tomllib  # (only when there is a file: most starts have none)

    try:
        data = tomllib.loads(p.read_text(encoding="utf-8", errors="replace"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        return Config(path=str(p), warnings=(f"config {p} ignored: {reason}",))
    warnings: list[str] = []

    def refuse(key: str, what: str, default: object) -> None:
        warnings.append(f"config {p}: '{key}' {what}; using {default}")

    roots = data.get("roots", [])
    if not isinstance(roots, list) or not all(isinstance(r, str) for r in roots):
        warnings.append(f"config {p}: 'roots' must be a list of paths; ignored")
        roots = []
    good_roots = []
    for r in roots:
        if "\0" in r or not r.strip():
            warnings.append(f"config {p}: 'roots' entry {r!r} is not a usable path; skipped")
        else:
            good_roots.append(r)
    memory_dirs = data.get("memory_dirs", [])
    if not isinstance(memory_dirs, list) or not all(isinstance(d, str) for d in memory_dirs):
        warnings.append(f"config {p}: 'memory_dirs' must be a list of folders; ignored")
        memory_dirs = []
    for d in [d for d in memory_dirs if "\0" in d or not d.strip()]:
        warnings.append(f"config {p}: 'memory_dirs' entry {d!r} is not a usable path; skipped")
        memory_dirs.remove(d)
    cap = data.get("tool_result_cap", 4000)
    if not isinstance(cap, int) or isinstance(cap, bool) or not 0 <= cap <= MAX_TOOL_RESULT_CAP:
        refuse("tool_result_cap", f"must be an integer from 0 to {MAX_TOOL_RESULT_CAP}, not {cap!r}", 4000)
        cap = 4000
    timeout = data.get("memory_lock_timeout", 5.0)
    if (not isinstance(timeout, (int, float)) or isinstance(timeout, bool)
            or not 0 <= timeout <= MAX_LOCK_TIMEOUT):  # (NaN fails the range too)
        refuse("memory_lock_timeout", f"must be a number of seconds from 0 to {MAX_LOCK_TIMEOUT:g}, "
               f"not {timeout!r}", 5)
        timeout = 5.0
    folders = data.get("max_folders", 20_000)
    if not isinstance(folders, int) or isinstance(folders, bool) or not 1 <= folders <= MAX_FOLDERS:
        refuse("max_folders", f"must be an integer from 1 to {MAX_FOLDERS}, not {folders!r}", 20000)
        folders = 20_000
    flags = {}
    for key, default in (("default_roots", True), ("poll", False), ("watch_archive", False)):
        value = data.get(key, default)
        if not isinstance(value, bool):  # bool("false") is True: a quoted or numeric flag is refused
            refuse(key, f"must be true or false (unquoted), not {value!r}", str(default).lower())
            value = default
        flags[key] = value
    project_roots = _folders(data, "project_roots", warnings, p)
    homes = []
    for key in HOME_KEYS:
        value = data.get(key)
        if value is None:
            continue
        if not isinstance(value, str) or "\0" in value or not value.strip():
            warnings.append(f"config {p}: '{key}' must be a folder path (a string), not {value!r}; ignored")
        else:
            homes.append((key[: -len("_home")], os.path.expanduser(value)))
    archive = data.get("archive_dir")
    if archive is not None and (not isinstance(archive, str) or "\0" in archive or not archive.strip()):
        warnings.append(f"config {p}: 'archive_dir' must be a folder path (a string), not {archive!r}; "
                        "using the default")
        archive = None
    unknown = sorted(k for k in data if k not in KNOWN_KEYS)
    if unknown:
        warnings.append(f"config {p}: unknown key(s) {', '.join(map(repr, unknown))} ignored "
                        f"(known: {', '.join(KNOWN_KEYS)})")
    return Config(
        roots=tuple(good_roots),
        default_roots=flags["default_roots"],
        poll=flags["poll"],
        tool_result_cap=cap,
        memory_lock_timeout=float(timeout),
        max_folders=folders,
        memory_dirs=tuple(os.path.expanduser(d) for d in memory_dirs),
        agent_homes=tuple(homes),
        project_roots=project_roots,
        archive=os.path.expanduser(archive) if archive else None,
        watch_archive=flags["watch_archive"],
        path=str(p),
        warnings=tuple(warnings),
    )


def _folders(data: dict, key: str, warnings: list[str], p: Path) -> tuple[str, ...]:
    """A list-of-folders key, `~` expanded; a wrong type or an unusable entry is a warning."""
    value = data.get(key, [])
    if not isinstance(value, list) or not all(isinstance(d, str) for d in value):
        warnings.append(f"config {p}: '{key}' must be a list of folders; ignored")
        return ()
    good = []
    for d in value:
        if "\0" in d or not d.strip():
            warnings.append(f"config {p}: '{key}' entry {d!r} is not a usable path; skipped")
        else:
            good.append(os.path.expanduser(d))
    return tuple(good)
