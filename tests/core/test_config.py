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
