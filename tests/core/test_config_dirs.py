"""sessionscope's cache, config and data folders (`config.user_dir`) are platformdirs' on every
environment a user can have: on Linux by the XDG rule without importing platformdirs, which
must give what platformdirs gives."""
from __future__ import annotations

import os
import sys

import platformdirs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sessionscope.core import config

linux = pytest.mark.skipif(sys.platform != "linux", reason="the XDG rule is taken on Linux only")
KINDS = ("cache", "config", "data")
# what a variable can hold: unset, empty, absolute (with slashes doubled, at the end, a space, `~`,
# dots), relative, `~` itself
paths = st.one_of(st.none(), st.sampled_from(["", "/", "//", "/home/u", "/home/u/", "/home/u//x", "/a b/c", "/x/~/y",
                                              "/x/../y", "relative/dir", "~", "~/x", ".", " /lead"]),
                  st.text(alphabet="/abc .~", max_size=12))


@linux
@settings(max_examples=300, deadline=None)
@given(home=paths, xdg=st.fixed_dictionaries({k: paths for k in ("XDG_CACHE_HOME", "XDG_CONFIG_HOME",
                                                                   "XDG_DATA_HOME")}))
def test_the_xdg_rule_is_platformdirs(home: str | None, xdg: dict[str, str | None]) -> None:
    env = {"HOME": home, **xdg}
    with pytest.MonkeyPatch.context() as patch:
        for k, v in env.items():
            if v is None:
                patch.delenv(k, raising=False)
            else:
                patch.setenv(k, v)
        for kind in KINDS:
            try:
                theirs = getattr(platformdirs, f"user_{kind}_dir")(config.APP_NAME)
            except RuntimeError:  # (no home platformdirs can tell: ours asks it then, and fails alike)
                with pytest.raises(RuntimeError):
                    config.user_dir(kind)
                continue
            assert config.user_dir(kind) == theirs, (kind, env)


@linux
def test_a_command_finds_its_folders_without_importing_platformdirs(tmp_path) -> None:  # noqa: ANN001
    import subprocess

    env = {k: v for k, v in os.environ.items() if not k.startswith(("SESSIONSCOPE_", "XDG_"))}
    env["HOME"] = str(tmp_path)
    code = ("import sys; from sessionscope.core import config; "
            "print(config.cache_dir(), config.data_dir(), config.config_path()); "
            "print('platformdirs' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.split() == [f"{tmp_path}/.cache/sessionscope", f"{tmp_path}/.local/share/sessionscope",
                           f"{tmp_path}/.config/sessionscope/config.toml", "False"]
