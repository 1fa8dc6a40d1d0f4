"""What a whole command imports: a warm `search`, `read ID` and a piped `sessions` table leave
out the modules they do not use (imports were most of these commands' time; issue 15), and the
option that needs one still gets it."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sessionscope.core.demo import generate_demo
from sessionscope.core.read.adapters import _BUILT_IN

#: modules a warm command of this kind does not use (each was imported by it once)
NOT_FOR_SEARCH = ("sessionscope.core.secrets", "sessionscope.core.search.scan", "shutil", "hashlib", "logging",
                  "rich", "textwrap", "sessionscope.core.read.jsonl", "sessionscope.core.read.adapters.base",
                  "inspect", "sessionscope.core.catalog.tails")
#: and a search printing its table (not --json, not --group) parses no JSON with orjson (core/onuse.py)
NOT_FOR_SEARCH_TABLE = (*NOT_FOR_SEARCH, "orjson", "uuid", "platform")
NOT_FOR_READ = ("sessionscope.core.secrets", "logging", "rich", "textwrap", "hashlib", "shutil", "inspect")
#: (and it decodes only the rows it prints: by the standard library, no orjson import for them)
NOT_FOR_PIPED_TABLE = ("rich.console", "rich.table", "orjson", "uuid", "platform", "sessionscope.core.catalog.tails")

#: (the demo was just written: its folders are trusted however recent, so that the calls after the
#: first are warm as over an older tree, where a warm scan stats the files and reads none)
RUN = """if True:
    import atexit, json, sys
    from sessionscope.core.read import walk
    walk.LISTING_MARGIN_NS = -10**18
    watched = json.loads(sys.argv.pop(1))
    atexit.register(lambda: sys.__stderr__.write("LOADED " + json.dumps([m for m in watched if m in sys.modules]) + "\\n"))
    from sessionscope.cli.main import main
    sys.exit(main())
"""


@pytest.fixture(scope="module")
def warm(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[str], dict[str, str]]:
    base = tmp_path_factory.mktemp("lazy")
    corpus = generate_demo(base / "demo")
    mine = base / "logs"  # (a session-logs file holding an e-mail address, which masking omits)
    mine.mkdir()
    lines = [{"agent_id": "my-agent", "session_id": "mail-1", "started_at": "2026-03-01T09:00:00Z"},
             {"role": "user", "content": "write to ada.lovelace@example.org about the config loader",
              "timestamp": "2026-03-01T10:00:00Z"}]
    (mine / "mail.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    roots = ["--root", str(corpus.claude_root), "--root", str(corpus.codex_root), "--root", str(mine)]
    env = {**os.environ, "SESSIONSCOPE_CACHE_DIR": str(base / "cache"), "SESSIONSCOPE_CONFIG": str(base / "none.toml"),
           "SESSIONSCOPE_DATA_DIR": str(base / "data"), "HOME": str(base / "home")}
    for var in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "CLAUDE_CODE_SESSION_ID", "CLAUDE_SESSION_ID", "CODEX_SESSION_ID"):
        env.pop(var, None)
    _loaded(env, (), "index", *roots)  # cold: the catalog and the index built (these may import anything)
    return roots, env


def _loaded(env: dict[str, str], watched: tuple[str, ...], *argv: str) -> tuple[list[str], str]:
    done = subprocess.run([sys.executable, "-c", RUN, json.dumps(watched), *argv], env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    line = next(x for x in done.stderr.splitlines() if x.startswith("LOADED "))
    return json.loads(line.removeprefix("LOADED ")), done.stdout


def test_a_warm_search_imports_neither_the_masking_rules_nor_the_scan_nor_rich(
    warm: tuple[list[str], dict[str, str]]
) -> None:
    roots, env = warm
    for argv in (["search", "config", *roots], ["search", "--json", "onfig loa", *roots],
                 ["search", "--group", "config", *roots]):
        # (--json prints with orjson; --group reads the sessions' keys, which orjson parses)
        plain = "--json" not in argv and "--group" not in argv
        loaded, out = _loaded(env, NOT_FOR_SEARCH_TABLE if plain else NOT_FOR_SEARCH, *argv)
        assert loaded == [] and "config" in out.lower(), (argv, loaded)
    # --mask-secrets imports the rules and masks with them
    for masked in ([], ["--mask-secrets"]):
        loaded, out = _loaded(env, NOT_FOR_SEARCH, "search", "--json", *masked, "lovelace", *roots)
        assert loaded == (["sessionscope.core.secrets"] if masked else [])
        preview = json.loads(out)["hits"][0]["preview"]
        assert ("ada.lovelace@example.org" in preview) is not bool(masked), preview


def test_read_and_recent_import_no_logging_rules_or_rich(warm: tuple[list[str], dict[str, str]]) -> None:
    roots, env = warm
    sessions, _ = _loaded(env, (), "sessions", "--json", "--limit", "3", *roots)
    listed = json.loads(_)["sessions"]
    formats = {"sessionscope.core.read.adapters." + module: name for name, (module, _) in _BUILT_IN.items()}
    assert {s["source_plugin"] for s in listed} >= {"claude-code", "codex"}
    for s in listed:
        # (nor another format's adapter: the session's own is imported alone)
        others = tuple(m for m, name in formats.items() if name != s["source_plugin"])
        for argv in (["read", s["session_id"], "--json", *roots], ["recent", s["session_id"], "--json", *roots],
                     ["read", s["session_id"], *roots]):
            loaded, out = _loaded(env, NOT_FOR_READ + others, *argv)
            assert loaded == [] and s["session_id"] in out, (argv, loaded)
    loaded, out = _loaded(env, NOT_FOR_READ, "read", "mail-1", "--mask-secrets", *roots)
    assert loaded == ["sessionscope.core.secrets"] and "@example.org" not in out


def test_a_piped_sessions_table_imports_no_rich_console(warm: tuple[list[str], dict[str, str]], tmp_path: Path) -> None:
    roots, env = warm
    loaded, out = _loaded({k: v for k, v in env.items() if k != "COLUMNS"}, NOT_FOR_PIPED_TABLE, "sessions", *roots)
    assert loaded == [] and out.splitlines()[0].split() == ["ID", "AGENT", "PROJECT", "ACTIVE", "ENTRIES", "TOKENS",
                                                           "TITLE"]


def test_a_command_run_as_the_program_freezes_its_imports_and_one_called_with_arguments_does_not(
    warm: tuple[list[str], dict[str, str]]
) -> None:
    # (gc.freeze: what the command imported is left out of later collections; a caller's own
    # objects, e.g. a test process calling main(argv), are never frozen)
    roots, env = warm
    code = """if True:
        import gc, sys
        from sessionscope.cli import search
        from sessionscope.cli.main import main
        seen = []
        real = search.cmd_search
        search.cmd_search = lambda args: seen.append(gc.get_freeze_count()) or real(args)
        argv = sys.argv[1:]
        main(argv)
        sys.argv[1:] = argv
        import atexit  # (a whole `search` ends inside main(), after the atexit functions)
        atexit.register(lambda: print(seen[0] == 0, seen[1] > 0))
        main()
    """
    done = subprocess.run([sys.executable, "-c", code, "search", "--json", "config", *roots], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "True True"
