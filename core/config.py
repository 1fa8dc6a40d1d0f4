"""User configuration (TOML in the platform config dir) and the cache location.

Why a file and env overrides: the CLI and the app share the same roots and limits, and tests (or
a second profile) point `SESSIONSCOPE_CONFIG` / `SESSIONSCOPE_CACHE_DIR` elsewhere instead of
touching the user's real directories.

```toml
roots = ["~/work/agent-logs"]      # extra roots, read by every adapter that recognises a file
default_roots = true                # also scan ~/.claude/projects, ~/.codex/sessions, ...
poll = false                        # poll instead of inotify (network filesystems)
tool_result_cap = 4000              # characters of each tool result that go into the index
```
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

#: the install hint that ends the error of a `.zst` file read without zstandard (core/jsonl.py);
#: the catalog and the CLI recognise such errors by it
ZSTD_HINT = "pip install 'sessionscope[zstd]'"

APP_NAME = "sessionscope"


@dataclass(frozen=True)
class Config:
    roots: tuple[str, ...] = ()
    default_roots: bool = True
    poll: bool = False
    tool_result_cap: int = 4000
    path: str | None = None
    warnings: tuple[str, ...] = field(default=())


def config_path() -> Path:
    env = os.environ.get("SESSIONSCOPE_CONFIG")
    if env:
        return Path(env).expanduser()
    from platformdirs import user_config_dir

    return Path(user_config_dir(APP_NAME)) / "config.toml"


def cache_dir() -> Path:
    env = os.environ.get("SESSIONSCOPE_CACHE_DIR")
    if env:
        return Path(env).expanduser()
    from platformdirs import user_cache_dir

    return Path(user_cache_dir(APP_NAME))


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


def load_config(path: Path | None = None) -> Config:
    """The config, or defaults with a warning when the file is missing fields or unreadable."""
    p = path or config_path()
    if not p.is_file():
        return Config()
    import tomllib  # (only when there is a file: most starts have none)

    try:
        data = tomllib.loads(p.read_text(encoding="utf-8", errors="replace"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        return Config(path=str(p), warnings=(f"config {p} ignored: {exc}",))
    warnings: list[str] = []
    roots = data.get("roots", [])
    if not isinstance(roots, list) or not all(isinstance(r, str) for r in roots):
        warnings.append(f"config {p}: 'roots' must be a list of paths; ignored")
        roots = []
    cap = data.get("tool_result_cap", 4000)
    if not isinstance(cap, int) or isinstance(cap, bool) or cap < 0:
        warnings.append(f"config {p}: 'tool_result_cap' must be a non-negative integer; using 4000")
        cap = 4000
    flags = {}
    for key, default in (("default_roots", True), ("poll", False)):
        value = data.get(key, default)
        if not isinstance(value, bool):  # bool("false") is True: a quoted or numeric flag is refused
            warnings.append(f"config {p}: '{key}' must be true or false (unquoted), "
                            f"not {value!r}; using {str(default).lower()}")
            value = default
        flags[key] = value
    return Config(
        roots=tuple(roots),
        default_roots=flags["default_roots"],
        poll=flags["poll"],
        tool_result_cap=cap,
        path=str(p),
        warnings=tuple(warnings),
    )
