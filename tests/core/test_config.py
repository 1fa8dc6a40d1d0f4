"""The TOML config: what is read, and what is refused with a warning instead of misread."""
from __future__ import annotations

from pathlib import Path

import pytest

from sessionscope.core.config import Config, load_config


def load(tmp_path: Path, text: str) -> Config:
    path = tmp_path / "config.toml"
    path.write_text(text)
    return load_config(path)


def test_well_formed_config(tmp_path: Path) -> None:
    cfg = load(tmp_path, 'roots = ["~/logs"]\ndefault_roots = false\npoll = true\ntool_result_cap = 10\n')
    assert (cfg.roots, cfg.default_roots, cfg.poll, cfg.tool_result_cap) == (("~/logs",), False, True, 10)
    assert cfg.warnings == ()


@pytest.mark.parametrize(("text", "key"), [
    ('poll = "no"', "poll"), ('poll = "yes"', "poll"), ("poll = 1", "poll"),
    ('default_roots = "false"', "default_roots"), ("default_roots = 0", "default_roots"),
])
def test_a_flag_that_is_no_boolean_is_refused_not_truthy(tmp_path: Path, text: str, key: str) -> None:
    cfg = load(tmp_path, text + "\n")
    assert getattr(cfg, key) is Config().__getattribute__(key)  # the default, not bool(value)
    assert len(cfg.warnings) == 1 and repr(key) in cfg.warnings[0] and "true or false" in cfg.warnings[0]


@pytest.mark.parametrize("text", ["roots = [", 'roots = "/x"', "roots = [1, 2]"])
def test_broken_roots_are_ignored_with_a_warning(tmp_path: Path, text: str) -> None:
    cfg = load(tmp_path, text + "\n")
    assert cfg.roots == () and cfg.default_roots is True and len(cfg.warnings) == 1


# -- hostile values (issue 10, item 12) ------------------------------------------------------------
@pytest.mark.parametrize(("text", "key"), [
    ("tool_result_cap = 99999999999999999999", "tool_result_cap"),  # a TOML integer past 64 bits
    ("tool_result_cap = 9223372036854775807", "tool_result_cap"),
    ("tool_result_cap = -1", "tool_result_cap"),
    ("tool_result_cap = 1.5", "tool_result_cap"),
    ('tool_result_cap = "4000"', "tool_result_cap"),
    ("memory_lock_timeout = -1", "memory_lock_timeout"),
    ("memory_lock_timeout = nan", "memory_lock_timeout"),
    ("memory_lock_timeout = inf", "memory_lock_timeout"),
    ("memory_lock_timeout = true", "memory_lock_timeout"),
    ("max_folders = 0", "max_folders"),
    ("max_folders = 99999999999", "max_folders"),
    ('max_folders = "many"', "max_folders"),
    ('roots = ["/logs\\u0000x"]', "roots"),
    ('roots = [""]', "roots"),
    ('rots = ["/x"]', "rots"),
])
def test_every_bad_value_is_refused_with_a_warning_naming_its_key(tmp_path: Path, text: str, key: str) -> None:
    cfg = load(tmp_path, text + "\n")
    assert len(cfg.warnings) == 1 and repr(key) in cfg.warnings[0], cfg.warnings
    default = Config()
    assert (cfg.tool_result_cap, cfg.memory_lock_timeout, cfg.roots, cfg.max_folders) == (
        default.tool_result_cap, default.memory_lock_timeout, default.roots, default.max_folders)


def test_good_values_of_the_newer_keys_are_taken(tmp_path: Path) -> None:
    cfg = load(tmp_path, "memory_lock_timeout = 0.5\ntool_result_cap = 0\nmax_folders = 3\n")
    assert (cfg.memory_lock_timeout, cfg.tool_result_cap, cfg.max_folders, cfg.warnings) == (0.5, 0, 3, ())


def test_a_config_path_that_is_a_folder_is_a_warning_not_silence(tmp_path: Path) -> None:
    (tmp_path / "config.toml").mkdir()
    cfg = load_config(tmp_path / "config.toml")
    assert cfg.warnings == (f"config {tmp_path / 'config.toml'} is not a file; ignored",)


def test_a_config_path_that_cannot_be_looked_at_is_a_warning(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def denied(self: Path) -> bool:  # Path.exists raises EACCES for a folder one cannot search
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(Path, "exists", denied)
    cfg = load_config(tmp_path / "locked" / "config.toml")
    assert len(cfg.warnings) == 1 and "cannot be used" in cfg.warnings[0]


def test_memory_dirs_are_folders_with_home_expanded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    cfg = load(tmp_path, 'memory_dirs = ["~/notes/memory", "/srv/memory"]\n')
    assert cfg.memory_dirs == (str(tmp_path / "home" / "notes" / "memory"), "/srv/memory") and not cfg.warnings
    cfg = load(tmp_path, 'memory_dirs = "/srv/memory"\n')
    assert cfg.memory_dirs == () and "'memory_dirs' must be a list of folders" in cfg.warnings[0]
    cfg = load(tmp_path, 'memory_dirs = ["/a\\u0000b", "/srv/memory"]\n')
    assert cfg.memory_dirs == ("/srv/memory",) and "'memory_dirs' entry" in cfg.warnings[0]


def test_the_config_path_follows_the_variables_that_name_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """(config_path is memoised by those variables: a change of any is a new path.)"""
    from sessionscope.core.config import config_path

    monkeypatch.delenv("SESSIONSCOPE_CONFIG", raising=False)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "a"))
    assert config_path() == tmp_path / "a" / "sessionscope" / "config.toml"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "b"))
    assert config_path() == tmp_path / "b" / "sessionscope" / "config.toml"
    monkeypatch.delenv("XDG_CONFIG_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert config_path() == tmp_path / "home" / ".config" / "sessionscope" / "config.toml"
    monkeypatch.setenv("SESSIONSCOPE_CONFIG", "~/mine.toml")
    assert config_path() == tmp_path / "home" / "mine.toml"


def test_the_config_path_reads_the_variables_as_os_environ_gives_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """(config_path looks the variables up in os.environ's bytes on POSIX: the same path as by
    `os.environ.get`, a value that is not UTF-8 too; a plain mapping put in os.environ's place is
    read as such.)"""
    import os

    from sessionscope.core import config
    from sessionscope.core.config import config_path

    odd = os.fsdecode(b"/tmp/caf\xe9")  # (a byte that is not UTF-8: a surrogate escape)
    for explicit, xdg in ((None, str(tmp_path / "x")), (f"{odd}/c.toml", None), (None, odd)):
        for name, value in (("SESSIONSCOPE_CONFIG", explicit), ("XDG_CONFIG_HOME", xdg)):
            if value is None:
                monkeypatch.delenv(name, raising=False)
            else:
                monkeypatch.setenv(name, value)
        env = os.environ.get
        assert config_path() == config._config_path(env("SESSIONSCOPE_CONFIG"), env("XDG_CONFIG_HOME"), env("HOME"))
    monkeypatch.setattr(os, "environ", {"SESSIONSCOPE_CONFIG": str(tmp_path / "plain.toml")})
    assert config_path() == tmp_path / "plain.toml"
