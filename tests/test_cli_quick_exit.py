"""A whole `sessions`, `read`, `recent` or `search` process ends as soon as its work is done
(cli/main.py `QUICK_EXIT`): no object freed one by one at shutdown, but what was registered with
`atexit` still runs, everything printed is out, the exit code is the command's; any other command,
or one with another thread still running, shuts down as Python does."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sessionscope.cli.main import main
from sessionscope.core.demo import generate_demo

#: a whole process running main(), with an atexit function that leaves a reference cycle behind:
#: Python's shutdown collects it after the atexit functions (FREED), an immediate end does not
RUN = """if True:
    import atexit, os, sys, threading
    class Freed:
        def __del__(self, write=os.write):
            write(2, b"FREED\\n")
    def at_exit():
        sys.__stderr__.write("ATEXIT\\n")
        sys.__stderr__.flush()
        cycle = Freed()
        cycle.me = cycle
    atexit.register(at_exit)
    if sys.argv[1] == "thread":
        threading.Thread(target=threading.Event().wait, daemon=True).start()
    sys.argv.pop(1)
    from sessionscope.cli.main import main
    sys.exit(main())
"""


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[str], dict[str, str]]:
    base = tmp_path_factory.mktemp("quick")
    corpus = generate_demo(base / "demo")
    roots = ["--root", str(corpus.claude_root), "--root", str(corpus.codex_root)]
    e = {**os.environ, "SESSIONSCOPE_CACHE_DIR": str(base / "cache"), "SESSIONSCOPE_CONFIG": str(base / "none.toml"),
         "SESSIONSCOPE_DATA_DIR": str(base / "data"), "HOME": str(base / "home")}
    for var in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "CLAUDE_CODE_SESSION_ID", "CLAUDE_SESSION_ID", "CODEX_SESSION_ID"):
        e.pop(var, None)
    return roots, e


def _run(env: dict[str, str], mode: str, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", RUN, mode, *argv], env=env, capture_output=True, text=True,
                          timeout=120)


@pytest.mark.parametrize("argv", [("sessions", "--json", "--all"), ("search", "--json", "payments"),
                                  ("search", "nosuchwordanywhere")])
def test_a_quick_command_ends_at_once_with_its_output_and_atexit_run(
        env: tuple[list[str], dict[str, str]], argv: tuple[str, ...], capsys: pytest.CaptureFixture[str]) -> None:
    roots, e = env
    done = _run(e, "plain", *argv, *roots)
    assert done.returncode == 0, done.stderr
    assert "ATEXIT" in done.stderr.splitlines() and "FREED" not in done.stderr.splitlines()
    old = {k: os.environ.get(k) for k in e}
    os.environ.update(e)  # (the same command in this process: the same output)
    try:
        assert main([*argv, *roots]) == 0
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    assert done.stdout == capsys.readouterr().out
    if "--json" in argv:
        json.loads(done.stdout)


def test_a_quick_command_keeps_its_exit_code(env: tuple[list[str], dict[str, str]]) -> None:
    roots, e = env
    done = _run(e, "plain", "read", "no-such-session-id", *roots)
    assert done.returncode == 2 and "no-such-session-id" in done.stderr
    assert "ATEXIT" in done.stderr.splitlines() and "FREED" not in done.stderr.splitlines()


def test_other_commands_and_other_threads_shut_down_as_python_does(env: tuple[list[str], dict[str, str]]) -> None:
    roots, e = env
    for mode, argv in (("plain", ("roots", *roots)), ("thread", ("sessions", *roots))):
        done = _run(e, mode, *argv)
        assert done.returncode == 0, done.stderr
        assert done.stderr.splitlines()[-2:] == ["ATEXIT", "FREED"], (mode, argv, done.stderr)
