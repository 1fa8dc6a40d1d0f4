"""The command line: JSON shapes, limits, errors and exit codes, on the project's own demo corpus
and on the real-agent corpus."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path

import pytest
from helpers import CORPUS, NO_CORPUS

from sessionscope.cli.main import main
from sessionscope.core.demo import generate_demo

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=timezone.utc)


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    root = tmp_path_factory.mktemp("demo")
    corpus = generate_demo(root, now=NOW)
    return ["--root", str(corpus.claude_root), "--root", str(corpus.codex_root)]


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SESSIONSCOPE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("SESSIONSCOPE_CONFIG", str(tmp_path / "none.toml"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


def test_sessions_json_shape(capsys: pytest.CaptureFixture[str], demo: list[str]) -> None:
    data = run_json(capsys, "sessions", *demo)
    sessions = data["sessions"]
    assert sessions
    for key in ("session_id", "agent_id", "source_plugin", "entry_count", "first_timestamp", "last_timestamp"):
        assert key in sessions[0]
    stamps = [s["last_timestamp"] for s in sessions]
    assert stamps == sorted(stamps, reverse=True)  # most recent first
    assert {s["agent_id"] for s in sessions} == {"claude-code", "codex"}
    assert all(s["kind"] == "main" and s["parent_session_id"] is None for s in sessions)


def test_sessions_all_nests_children(capsys: pytest.CaptureFixture[str], demo: list[str]) -> None:
    listed = run_json(capsys, "sessions", *demo)
    top = listed["sessions"]
    every = run_json(capsys, "sessions", "--all", *demo)["sessions"]
    children = [s for s in every if s["depth"] > 0]
    orphans = [s for s in every if s["orphan"]]  # no parent here: at the top level
    assert all(s["depth"] == 0 and s["kind"] != "main" for s in orphans)
    assert children and len(every) == len(top) + len(children) + len(orphans)
    assert listed["hidden"] == len(orphans)
    for i, s in enumerate(every):
        if s["depth"] > 0:  # listed right under its parent (or a sibling of it)
            parents = [p for p in every[:i] if p["session_id"] == s["parent_session_id"]]
            assert parents


def test_sessions_limit_agent_project(capsys: pytest.CaptureFixture[str], demo: list[str]) -> None:
    assert len(run_json(capsys, "sessions", "--limit", "2", *demo)["sessions"]) == 2
    codex = run_json(capsys, "sessions", "--agent", "codex", *demo)["sessions"]
    assert codex and all(s["agent_id"] == "codex" for s in codex)
    pay = run_json(capsys, "sessions", "--project", "payments", *demo)["sessions"]
    assert pay and all("payments" in s["project"] for s in pay)


@pytest.mark.parametrize(("args", "allowed"), [
    (["sessions", "--limit", "0"], "between 1 and 500"),
    (["sessions", "--limit", "501"], "between 1 and 500"),
    (["read", "x", "--max-chars", "19"], "between 20 and 4000"),
    (["search", "x", "--limit", "abc"], "expected an integer between 1 and 500"),
])
def test_out_of_range_values_are_refused_with_the_range(
    capsys: pytest.CaptureFixture[str], demo: list[str], args: list[str], allowed: str
) -> None:
    code, out, err = run(capsys, *args, *demo)
    assert code == 2 and allowed in err and len(err.strip().splitlines()) == 1


def test_errors_with_json(capsys: pytest.CaptureFixture[str], demo: list[str]) -> None:
    code, out, err = run(capsys, "read", "no-such-id", *demo, "--json")
    assert code == 2
    assert json.loads(out) == {"ok": False, "error": "no session matches id 'no-such-id'"}
    assert err.strip() == "sessionscope: no session matches id 'no-such-id'"


def test_missing_root(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run(capsys, "sessions", "--root", str(tmp_path / "nope"))
    assert code == 2 and "root not found" in err


def test_no_history_at_all_says_what_to_do(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "sessions")
    assert code == 2 and "no agent history found" in err and "--demo" in err


def test_read_shape_prefix_and_max_chars(capsys: pytest.CaptureFixture[str], demo: list[str]) -> None:
    sid = run_json(capsys, "sessions", *demo)["sessions"][0]["session_id"]
    data = run_json(capsys, "read", sid[:8], "--limit", "5", "--max-chars", "20", *demo)
    assert set(data) >= {"header", "total_entries", "returned", "truncated", "entries"}
    assert data["header"]["session_id"] == sid
    assert data["returned"] == len(data["entries"]) == min(5, data["total_entries"])
    assert data["truncated"] == (data["total_entries"] > 5)
    assert all(len(e["content"]) <= 20 for e in data["entries"])
    first = data["entries"][0]
    assert {"entry_id", "role", "kind", "timestamp", "content", "locator"} <= set(first)


def test_read_at_entry(capsys: pytest.CaptureFixture[str], demo: list[str]) -> None:
    sid = run_json(capsys, "sessions", *demo)["sessions"][0]["session_id"]
    entries = run_json(capsys, "read", sid, "--limit", "10", *demo)["entries"]
    target = entries[3]["entry_id"]
    data = run_json(capsys, "read", f"{sid}#{target}", "--limit", "2", *demo)
    assert data["entries"][0]["entry_id"] == target
    code, out, err = run(capsys, "read", f"{sid}#nope", *demo)
    assert code == 2 and "has no entry 'nope'" in err


def test_ambiguous_prefix(capsys: pytest.CaptureFixture[str], demo: list[str]) -> None:
    code, out, err = run(capsys, "read", "", *demo)
    assert code == 2


def test_recent(capsys: pytest.CaptureFixture[str], demo: list[str]) -> None:
    newest = run_json(capsys, "sessions", *demo)["sessions"][0]
    data = run_json(capsys, "recent", "--limit", "3", *demo)
    # the session-logs contract: {session_id, count, entries} (read's keys stay as extras)
    assert data["session_id"] == data["header"]["session_id"] == newest["session_id"]
    assert data["count"] == data["returned"] == len(data["entries"]) == 3
    full = run_json(capsys, "read", newest["session_id"], "--limit", "1000", *demo)
    assert [e["entry_id"] for e in data["entries"]] == [e["entry_id"] for e in full["entries"][-3:]]


def test_search_json_contract(capsys: pytest.CaptureFixture[str], demo: list[str]) -> None:
    data = run_json(capsys, "search", "pytest", "--limit", "5", *demo)
    hits = data["hits"]
    assert 0 < len(hits) <= 5
    for key in ("session_id", "timestamp", "role", "source_plugin", "preview", "rank", "snippet", "locator"):
        assert key in hits[0]
    assert "«" in hits[0]["snippet"]
    recent = run_json(capsys, "search", "pytest", "--sort", "recent", *demo)["hits"]
    stamps = [h["timestamp"] for h in recent]
    assert stamps == sorted(stamps, reverse=True)


def test_search_hit_opens_with_read(capsys: pytest.CaptureFixture[str], demo: list[str]) -> None:
    hit = run_json(capsys, "search", "pytest", "--limit", "1", *demo)["hits"][0]
    data = run_json(capsys, "read", f"{hit['session_id']}#{hit['entry_id']}", "--limit", "1",
                    "--max-chars", "4000", "--all-branches", *demo)
    entry = data["entries"][0]
    assert entry["entry_id"] == hit["entry_id"] and entry["locator"] == hit["locator"]


def test_malformed_query_says_where(capsys: pytest.CaptureFixture[str], demo: list[str]) -> None:
    code, out, err = run(capsys, "search", 'deploy "staging', *demo, "--json")
    assert code == 2
    assert json.loads(out)["error"] == "search: unclosed quote (at column 8)"


def test_index_status_and_rebuild(capsys: pytest.CaptureFixture[str], demo: list[str]) -> None:
    built = run_json(capsys, "index", *demo)
    assert built["documents"] > 0 and built["files_indexed"] > 0
    again = run_json(capsys, "index", *demo)
    assert again["files_indexed"] == 0 and again["documents_added"] == 0
    status = run_json(capsys, "index", "--status", *demo)
    assert status["files_stale"] == 0 and status["documents"] == built["documents"]
    rebuilt = run_json(capsys, "index", "--rebuild", *demo)
    assert rebuilt["documents"] == built["documents"]


def test_table_output_is_escaped(capsys: pytest.CaptureFixture[str], demo: list[str]) -> None:
    code, out, err = run(capsys, "search", "bold", "--limit", "50", *demo)
    assert code == 0
    assert "\x1b" not in out  # escape sequences from transcripts never reach the terminal


@pytest.mark.skipif(not CORPUS.is_dir(), reason=NO_CORPUS)
def test_real_corpus_listing(capsys: pytest.CaptureFixture[str]) -> None:
    sessions = run_json(capsys, "sessions", "--all", "--root", str(CORPUS))["sessions"]
    agents = {s["agent_id"] for s in sessions}
    assert {"claude-code", "codex"} <= agents
    assert any(s["kind"] == "subagent" for s in sessions)


def test_options_before_the_command(capsys: pytest.CaptureFixture[str], demo: list[str]) -> None:
    code, out, err = run(capsys, "--json", *demo, "sessions", "--limit", "1")
    assert code == 0, err
    assert len(json.loads(out)["sessions"]) == 1


def test_the_app_options_skip_building_the_commands(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from sessionscope.cli import main as cli

    # The app's own options parse to what the full parser gives...
    for argv in ([], ["--root", "/a", "--root", "/b"], ["--demo", "--poll"], ["--version"], ["--json"]):
        fast = cli.app_args(argv)
        assert fast is not None and vars(fast) == vars(cli.build_parser().parse_args(argv)), argv
    # ...and anything else is left to it: commands, help, errors, unknown options.
    for argv in (["sessions"], ["--root", "/a", "search", "x"], ["-h"], ["--help"], ["--he"],
                 ["--root"], ["--limit", "3"], ["--bogus"], ["--root", "/a", "extra"]):
        assert cli.app_args(argv) is None, argv
    code, out, err = run(capsys, "--root")  # so the error is the full parser's, as ever
    assert code == 2 and "expected one argument" in err

    # Opening the app never builds the commands' parsers (nor imports their modules).
    opened: list[object] = []

    def no_parser() -> None:
        raise AssertionError("the full parser was built")

    monkeypatch.setattr(cli, "build_parser", no_parser)
    monkeypatch.setattr(cli, "_run_app", lambda args: opened.append(args) or 0)
    assert main(["--root", str(tmp_path), "--poll"]) == 0
    assert [(a.root, a.poll, a.command) for a in opened] == [([str(tmp_path)], True, None)]  # type: ignore[attr-defined]


# -- audit of issue 2: orphans, table widths ------------------------------------------------
def _logs(path: Path, header: dict, *texts: str) -> None:
    lines = [header] + [{"role": "user", "content": t, "timestamp": f"2026-03-0{i + 1}T10:00:00Z"}
                        for i, t in enumerate(texts)]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))


@pytest.fixture
def orphans(tmp_path: Path) -> list[str]:
    """A main session, a `codex exec`-like run (no parent) and a subagent whose parent is gone."""
    root = tmp_path / "orphans"
    root.mkdir()
    base = {"agent_id": "my-agent", "started_at": "2026-03-01T09:00:00Z"}
    _logs(root / "main.jsonl", {**base, "session_id": "main-1"}, "the main one")
    _logs(root / "exec.jsonl", {**base, "session_id": "exec-1", "kind": "exec"}, "an exec run", "later")
    _logs(root / "sub.jsonl", {**base, "session_id": "gone/agent-1", "kind": "subagent",
                               "parent_session_id": "gone"}, "a subagent", "of a", "lost parent")
    return ["--root", str(root)]


def test_sessions_hides_orphans_but_counts_them(capsys: pytest.CaptureFixture[str], orphans: list[str]) -> None:
    data = run_json(capsys, "sessions", *orphans)
    assert [s["session_id"] for s in data["sessions"]] == ["main-1"]
    assert data["hidden"] == 2
    code, out, err = run(capsys, "sessions", *orphans)
    assert code == 0 and "not listed: 1 exec run, 1 subagent run without a parent here (--all lists them)" in out


def test_sessions_all_lists_orphans_at_the_top_level(capsys: pytest.CaptureFixture[str], orphans: list[str]) -> None:
    data = run_json(capsys, "sessions", "--all", *orphans)
    rows = {s["session_id"]: s for s in data["sessions"]}
    assert set(rows) == {"main-1", "exec-1", "gone/agent-1"} and data["hidden"] == 0
    assert all(s["depth"] == 0 for s in rows.values())
    assert rows["gone/agent-1"]["orphan"] and rows["exec-1"]["orphan"] and not rows["main-1"]["orphan"]
    # most recent first, orphans among the main sessions
    assert [s["session_id"] for s in data["sessions"]] == ["gone/agent-1", "exec-1", "main-1"]
    code, out, err = run(capsys, "sessions", "--all", *orphans)
    assert "[subagent, parent not found]" in out and "[exec]" in out


def test_recent_considers_orphans(capsys: pytest.CaptureFixture[str], orphans: list[str], tmp_path: Path) -> None:
    data = run_json(capsys, "recent", *orphans)
    assert data["header"]["session_id"] == "gone/agent-1"  # the most recently active
    only_exec = tmp_path / "only-exec"
    only_exec.mkdir()
    _logs(only_exec / "e.jsonl", {"agent_id": "codex", "session_id": "e-1", "kind": "exec",
                                  "started_at": "2026-03-01T09:00:00Z"}, "run the tests")
    data = run_json(capsys, "recent", "--root", str(only_exec))
    assert data["header"]["session_id"] == "e-1" and data["entries"][0]["content"] == "run the tests"


@pytest.mark.parametrize("columns", [80, 120])
def test_sessions_table_cuts_the_title_not_the_ids_or_numbers(
    capsys: pytest.CaptureFixture[str], demo: list[str], monkeypatch: pytest.MonkeyPatch, columns: int
) -> None:
    sessions = run_json(capsys, "sessions", "--all", *demo)["sessions"]
    monkeypatch.setenv("COLUMNS", str(columns))
    code, out, err = run(capsys, "sessions", "--all", *demo)
    lines = out.splitlines()
    assert code == 0 and all(len(line.rstrip()) <= columns for line in lines)
    assert lines[0].split() == ["ID", "AGENT", "PROJECT", "ACTIVE", "ENTRIES", "TOKENS", "TITLE"]
    body = [line for line in lines[1:] if not line.endswith("--all lists them")]
    assert len(body) == len(sessions)
    for line, s in zip(body, sessions):
        short = s["session_id"][:8] if s["depth"] == 0 else s["session_id"].split("/")[-1][:18]
        cells = line.replace("└ ", "").split()
        assert cells[0] == short or (s["depth"] and columns == 80 and cells[0].endswith("…")
                                     and short.startswith(cells[0][:-1]))  # a child's id gives way
        assert cells[1] == s["agent_id"]
        assert re.fullmatch(r"\d+(m|h|d|mo|y) ago|just now|-", " ".join(cells[3:5]).removesuffix(" -")
                            if cells[3] != "-" else "-")  # "3h ago", never "3…"
        assert str(s["entry_count"]) in cells  # ENTRIES whole
    if columns == 120:  # room enough for the whole project name too
        assert "payments-api" in out


def test_zst_without_zstandard_is_reported_then_read_once_installed(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import sys

    zstandard = pytest.importorskip("zstandard")
    root = tmp_path / "zst"
    root.mkdir()
    plain = root / "plain.jsonl"
    _logs(plain, {"agent_id": "a", "session_id": "plain-1", "started_at": "2026-03-01T09:00:00Z"}, "hi")
    for n in (1, 2):
        packed = tmp_path / f"p{n}.jsonl"
        _logs(packed, {"agent_id": "a", "session_id": f"packed-{n}", "started_at": "2026-03-01T09:00:00Z"}, "x")
        (root / f"p{n}.jsonl.zst").write_bytes(zstandard.ZstdCompressor().compress(packed.read_bytes()))
    with monkeypatch.context() as m:
        m.setitem(sys.modules, "zstandard", None)
        for quick in ([], ["--quick"]):
            code, out, err = run(capsys, "sessions", "--root", str(root), "--json", *quick)
            assert code == 0 and [s["session_id"] for s in json.loads(out)["sessions"]] == ["plain-1"]
            assert "2 zstd-compressed file(s) not read" in err
            assert "pip install 'sessionscope[zstd]'" in err
    # Installed now: the catalog does not keep them as unreadable.
    code, out, err = run(capsys, "sessions", "--root", str(root), "--json")
    assert code == 0 and err == ""
    assert sorted(s["session_id"] for s in json.loads(out)["sessions"]) == ["packed-1", "packed-2", "plain-1"]


@pytest.mark.parametrize("spoil", ["cache is a file", "catalog is a directory", "cache under a file"])
def test_unusable_cache_dir_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
    orphans: list[str], spoil: str,
) -> None:
    cache = tmp_path / "spoilt"
    if spoil == "cache is a file":
        cache.write_text("not a directory")
    elif spoil == "catalog is a directory":
        (cache / "catalog.sqlite").mkdir(parents=True)
    else:
        cache.write_text("")
        cache = cache / "below"
    monkeypatch.setenv("SESSIONSCOPE_CACHE_DIR", str(cache))
    both = (["sessions", *orphans], ["--demo", "sessions"])
    # (the demo's catalog is in demo-cache/, which a directory at catalog.sqlite does not spoil)
    for argv in both[:1] if spoil == "catalog is a directory" else both:
        code, out, err = run(capsys, *argv, "--json")
        if argv[0] == "sessions" and spoil != "catalog is a directory":
            # A cache folder that cannot be used: the sessions are listed without it, with one
            # warning (the demo, which lives in the cache, cannot be).
            assert code == 0 and json.loads(out)["sessions"] and "Traceback" not in err
            assert err.count("warning") == 1 and str(tmp_path / "spoilt") in err and "working without it" in err
            continue
        assert code == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err
        data = json.loads(out)
        assert data["ok"] is False and str(tmp_path / "spoilt") in data["error"]


def _config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, text: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(text)
    monkeypatch.setenv("SESSIONSCOPE_CONFIG", str(path))


@pytest.mark.parametrize("text", ["roots = [", 'roots = "/x"', "roots = [1,2]"])
def test_a_broken_config_is_reported_even_when_nothing_can_be_read(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path, text: str
) -> None:
    _config(monkeypatch, tmp_path, text + "\n")
    code, out, err = run(capsys, "sessions")
    assert code == 2 and "no agent history found" in err
    assert f"config {tmp_path / 'config.toml'}" in err  # the warning that explains it


def test_a_missing_root_among_others_is_a_warning(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path, orphans: list[str]
) -> None:
    ok = orphans[1]
    _config(monkeypatch, tmp_path, f'roots = ["{ok}", "{tmp_path / "nonexistent-cfg"}"]\n')
    code, out, err = run(capsys, "sessions", "--json")
    assert code == 0 and [s["session_id"] for s in json.loads(out)["sessions"]] == ["main-1"]
    assert err.count("root not found") == 1 and "nonexistent-cfg" in err
    code, out, err = run(capsys, "--root", str(tmp_path / "missing"), "--root", ok, "search", "main", "--json")
    assert code == 0 and json.loads(out)["hits"]
    assert err.count("root not found") == 2 and "could not be read" not in err  # (the config's too)
    # Only when no root at all can be read is it an error.
    monkeypatch.setenv("SESSIONSCOPE_CONFIG", str(tmp_path / "none.toml"))
    code, out, err = run(capsys, "--root", str(tmp_path / "missing"), "sessions", "--json")
    assert code == 2 and json.loads(out)["error"] == f"root not found: {tmp_path / 'missing'}"


def test_default_roots_off_and_no_roots_says_so(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    _config(monkeypatch, tmp_path, "default_roots = false\n")
    code, out, err = run(capsys, "sessions")
    assert code == 2 and "looked in )" not in err and "turns the default roots off" in err
    _config(monkeypatch, tmp_path, 'default_roots = "false"\n')  # a string: refused, defaults kept
    code, out, err = run(capsys, "sessions")
    assert code == 2 and "'default_roots' must be true or false" in err and "looked in" in err


# -- the index while another process holds its writer; settings that shape it (issue 3) --------------
def hold_index_writer(demo: list[str], *, build: bool = True) -> object:
    """What the app does: open the index (built first with `build`) and keep its writer."""
    from sessionscope.cli.common import open_index, open_library
    from sessionscope.cli.main import build_parser
    from sessionscope.core.catalog.store import Catalog
    from sessionscope.core.config import cache_dir
    from sessionscope.core.search.index import SearchIndex
    from sessionscope.core.catalog.library import Library

    if build:
        args = build_parser().parse_args(["index", *demo, "--json"])
        lib, _ = open_library(args, scan=False)
        return open_index(args, lib, scan=True)[0]
    index = SearchIndex(cache_dir() / "index")
    report = index.update(Library([], catalog=Catalog(cache_dir() / "holder.sqlite")))  # nothing to commit
    assert not report.read_only
    return index


def cli(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sessionscope", *argv], capture_output=True, text=True, check=False)


BUSY = "another sessionscope process is updating the index"


def test_commands_work_while_another_process_holds_the_index_writer(
    capsys: pytest.CaptureFixture[str], demo: list[str],
) -> None:
    holder = hold_index_writer(demo)
    capsys.readouterr()
    # (a file's stat changed since the holder indexed: the index must be looked at, which takes the
    # writer; with every file as it indexed them, a search needs no writer and has nothing to say)
    one = next(Path(demo[1]).rglob("*.jsonl"))
    os.chmod(one, os.stat(one).st_mode)
    done = cli("search", "retry", *demo, "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["hits"] and done.stderr.count(BUSY) == 1
    assert "Traceback" not in done.stderr and "may lag" in done.stderr
    # An explicit update waits (here: not at all), then fails with the reason, not a traceback.
    done = cli("index", *demo, "--wait", "0")
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.count(BUSY) == 1 and "try again" in done.stderr
    done = cli("context", "fix the flaky retry test", *demo, "--json")
    assert done.returncode == 0 and "unavailable" not in json.loads(done.stdout)["status"], done.stdout
    holder.close()  # type: ignore[attr-defined]
    done = cli("index", *demo, "--wait", "0", "--json")
    assert done.returncode == 0 and BUSY not in done.stderr


def test_search_before_the_writer_committed_anything_reads_the_files(
    capsys: pytest.CaptureFixture[str], demo: list[str],
) -> None:
    holder = hold_index_writer(demo, build=False)
    done = cli("search", "retry", *demo, "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["mode"] == "scan" and data["hits"] and "committed nothing yet" in done.stderr
    holder.close()  # type: ignore[attr-defined]


def test_parallel_searches_on_a_fresh_cache_all_answer(demo: list[str]) -> None:
    argv = [sys.executable, "-m", "sessionscope", "search", "retry", *demo, "--json"]
    runs = [subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(3)]
    for p in runs:
        out, err = p.communicate()
        assert p.returncode == 0, err
        assert json.loads(out)["hits"]


def test_the_rebuild_message_is_printed_once(capsys: pytest.CaptureFixture[str], demo: list[str],
                                             tmp_path: Path) -> None:
    stale = tmp_path / "cache" / "index" / "tantivy-v1"
    stale.mkdir(parents=True)
    code, _, err = run(capsys, "index", *demo)
    assert code == 0 and err.count("index format changed") == 1


def test_index_rebuild_with_status_does_both(capsys: pytest.CaptureFixture[str], demo: list[str]) -> None:
    run_json(capsys, "index", *demo)
    both = run_json(capsys, "index", "--rebuild", "--status", *demo)
    assert both["files_indexed"] > 0 and both["files_stale"] == 0 and both["documents"] > 0
    code, out, _ = run(capsys, "index", "--rebuild", "--status", *demo)
    assert code == 0 and out.startswith("indexed ") and "\nfiles_stale    0\n" in out


def test_a_changed_tool_result_cap_takes_effect_without_a_manual_rebuild(
    capsys: pytest.CaptureFixture[str], demo: list[str], tmp_path: Path,
) -> None:
    query = "successfully kind:tool_result"
    assert run_json(capsys, "search", query, *demo)["hits"]
    (tmp_path / "none.toml").write_text("tool_result_cap = 12\n")
    code, out, err = run(capsys, "search", query, *demo, "--json")
    assert code == 0 and json.loads(out)["hits"] == []
    assert err.count("tool_result_cap 4000 -> 12") == 1


def test_child_ids_as_printed_open(capsys: pytest.CaptureFixture[str], demo: list[str]) -> None:
    """Every id the text output prints opens with `read`: a subagent hit is `PARENT8/child#entry`
    (the parent's prefix alone would open the parent, which does not hold the entry), and the
    `sessions --all` table's child part alone opens the child when it is unique."""
    code, out, _ = run(capsys, "search", "retry", *demo)
    assert code == 0
    child_hits = [w for line in out.splitlines() for w in line.split() if "/agent-" in w and "#" in w]
    assert child_hits, out
    for ref in child_hits[:3]:
        sid, _, entry = ref.partition("#")
        data = run_json(capsys, "read", ref, *demo)
        assert data["header"]["session_id"].endswith("/" + sid.split("/", 1)[1])
        assert data["entries"][0]["entry_id"] == entry  # opened at the hit's entry
    every = run_json(capsys, "sessions", "--all", *demo)["sessions"]
    child = next(s for s in every if "/agent-" in s["session_id"])
    part = child["session_id"].split("/", 1)[1]
    assert run_json(capsys, "read", part, *demo)["header"]["session_id"] == child["session_id"]


def test_read_shows_an_unknown_records_time_and_type(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Issue 10, item 21: a record of a type no adapter knows, with a timestamp, reads as
    `[time] system/unknown TYPE`, not `[-] system/unknown`; the session's span stays that of its
    conversation."""
    import orjson

    recs = [
        {"type": "user", "uuid": "u1", "parentUuid": None, "sessionId": "s-odd", "cwd": "/w/odd",
         "timestamp": "2026-11-20T10:00:00Z", "message": {"role": "user", "content": "hello"}},
        {"type": "mystery-record", "uuid": "m1", "parentUuid": "u1", "sessionId": "s-odd",
         "timestamp": "2026-11-20T10:00:05Z", "payloadish": 1},
    ]
    path = tmp_path / "root" / "projects" / "-w-odd" / "s-odd.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"\n".join(orjson.dumps(r) for r in recs) + b"\n")
    code, out, _ = run(capsys, "read", "s-odd", "--root", str(tmp_path / "root"))
    assert code == 0
    line = next(x for x in out.splitlines() if "unknown" in x)
    stamp = datetime(2026, 11, 20, 10, 0, 5, tzinfo=timezone.utc).astimezone().strftime("%Y-%m-%d %H:%M:%S")
    assert line.startswith(f"[{stamp}] system/unknown mystery-record #")
    data = run_json(capsys, "read", "s-odd", "--root", str(tmp_path / "root"))
    assert data["header"]["last_timestamp"].startswith("2026-11-20T10:00:00")


def test_a_command_builds_only_its_own_parser(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`search` imports neither the MCP SDK nor the brief pipeline (other commands' parsers pulled
    them in: more than the search itself cost); help and errors still know every command."""
    import subprocess
    import sys

    root = tmp_path / "root"
    root.mkdir()
    code = ("import sys; from sessionscope.cli.main import main; main(['search', '--root', sys.argv[1], 'x']); "
            "print(sorted(m for m in ('sessionscope.cli.mcp', 'sessionscope.cli.memory', 'sessionscope.core.brief', "
            "'pydantic', 'mcp') if m in sys.modules))")
    env = {**os.environ, "SESSIONSCOPE_CACHE_DIR": str(tmp_path / "cache"),
           "SESSIONSCOPE_CONFIG": str(tmp_path / "none.toml"), "HOME": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", code, str(root)], capture_output=True, text=True, env=env)
    assert done.stdout.strip().splitlines()[-1] == "[]", done.stdout + done.stderr
    from sessionscope.cli import main as cli

    assert cli.command_of(["--root", "/a", "search", "--limit", "3", "x"]) == "search"
    assert cli.command_of(["--help"]) is None and cli.command_of(["serch"]) is None
    whole = next(a for a in cli.build_parser()._actions if a.dest == "command")
    assert list(whole.choices) == list(cli.PARSERS)
    code_, out, err = run(capsys, "serch", "x")  # an unknown command is told the choices, as before
    assert code_ == 2 and "mcp" in err and "search" in err


_TEXT = ["plain words", "中文の題名" * 30, "🎉x" * 60, "emoji 👩‍💻 and 🎉", "e\u0301 combining", "zero\u200bwidth",
         "tab\tand\x1b[31m escape", "a" * 300, "└ drawn", "ends with…", ""]


@pytest.mark.parametrize("seed", range(12))
def test_a_piped_sessions_table_is_laid_out_as_rich_lays_it_out(
    seed: int, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # (piped output skips importing rich; every cell width, cut and justification must stay rich's)
    import random

    from sessionscope.cli import sessions as cli_sessions
    from sessionscope.core.format import short_ids
    from sessionscope.core.model import Session, SessionKind, TokenUsage

    rng = random.Random(seed)

    def text() -> str:
        return "".join(rng.choice(_TEXT)[: rng.randint(0, 80)] for _ in range(rng.randint(0, 4)))

    rows = []
    for n in range(rng.randint(0, 12)):
        depth = rng.choice([0, 0, 1, 2])
        sid = f"{rng.choice(['aaaaaaaa', 'abcdef12', '0193f'])}{n:04d}-{text()[:10]}" + ("/agent-x" if depth else "")
        rows.append((depth, Session(
            id=sid, agent=rng.choice(["claude-code", "codex", text() or "x"]), source_format="claude-code",
            paths=(f"/p/{n}.jsonl",), kind=rng.choice(list(SessionKind)), project=rng.choice([None, f"/h/{text()}"]),
            title=rng.choice([None, text()]), entry_count=rng.randint(0, 10**7),
            usage=TokenUsage(input=rng.randint(0, 10**9)),
            last_timestamp=rng.choice([None, datetime(2026, 1, 1, tzinfo=timezone.utc)]))))
    monkeypatch.delenv("COLUMNS", raising=False)
    shown, counts = [], rng.random() < 0.8
    for plain in (True, False):
        monkeypatch.setattr(cli_sessions, "PLAIN_TABLE", plain)
        cli_sessions._print_sessions(rows, counts=counts, orphans={s.id for _, s in rows[:2]},
                                     prefixes=short_ids([s.id for _, s in rows], only=cli_sessions._prefixed(rows)))
        shown.append(capsys.readouterr().out)
    assert shown[0] == shown[1]
