"""The command line on a hostile home (issue 10, items 6, 12 and 14): unreadable folders and
files, hostile config values, roots that reach the whole file system, files that vanish."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Iterator

import orjson
import pytest
from helpers import isolate, refuse_listing

from sessionscope.cli.main import main


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    isolate(tmp_path, monkeypatch)


def claude(path: Path, sid: str, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    rec = {"type": "user", "uuid": f"u-{sid}", "parentUuid": None, "sessionId": sid, "cwd": "/w/proj",
           "timestamp": "2025-01-01T00:00:01.000Z", "message": {"role": "user", "content": text}}
    path.write_bytes(orjson.dumps(rec) + b"\n")
    return path


def projects(base: Path) -> Path:
    """A Claude projects root: three project folders of one session each."""
    root = base / "projects"
    for name in ("alpha", "beta", "gamma"):
        claude(root / f"-w-{name}" / f"{name}-0000-0000-0000-000000000000.jsonl", f"{name}-sid",
               f"zebracorn note from {name}")
    return root


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# -- item 6: unreadable folders and files ---------------------------------------------------------
@pytest.mark.parametrize("argv", [("sessions",), ("sessions", "--quick"), ("search", "zebracorn"), ("index",)])
def test_an_unreadable_project_folder_is_warned_of(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, argv: tuple[str, ...]) -> None:
    root = projects(tmp_path)
    refuse_listing(monkeypatch, "-w-beta")
    code, out, err = run(capsys, *argv, "--root", str(root), "--json")
    assert code == 0, err
    assert f"folder {root / '-w-beta'} could not be read (Permission denied): its sessions are not listed" in err
    data = json.loads(out)
    if argv[0] == "sessions":
        assert sorted(s["project"] for s in data["sessions"]) == ["/w/proj"] * 2
    elif argv[0] == "search":
        assert len(data["hits"]) == 2


def test_a_file_made_unreadable_after_indexing_is_reported_not_served(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    from sessionscope.core.catalog import files, store as catalog

    root = projects(tmp_path)
    beta = str(root / "-w-beta" / "beta-0000-0000-0000-000000000000.jsonl")
    assert run(capsys, "index", "--root", str(root))[0] == 0
    assert len(json.loads(run(capsys, "search", "zebracorn", "--root", str(root), "--json")[1])["hits"]) == 3
    # chmod 000 on the file (simulated: root reads anything): size and mtime do not change
    real_readable, real_of = files.readable, catalog.Fingerprint.of

    def readable(path: str, st: os.stat_result) -> bool:
        return False if path == beta else real_readable(path, st)

    def of(path: str, st: os.stat_result | None = None) -> catalog.Fingerprint:
        if path == beta:
            raise PermissionError(13, "Permission denied", path)
        return real_of(path, st)

    monkeypatch.setattr(files, "readable", readable)
    monkeypatch.setattr(catalog.Fingerprint, "of", staticmethod(of))
    for argv in (("search", "zebracorn"), ("sessions",)):
        code, out, err = run(capsys, *argv, "--root", str(root), "--json")
        assert code == 0
        assert f"1 file(s) could not be read; first: {beta}: unreadable: Permission denied" in err
        data = json.loads(out)
        served = data["hits"] if argv[0] == "search" else data["sessions"]
        assert len(served) == 2 and not any(beta in json.dumps(x) for x in served)
    monkeypatch.undo()  # readable again (chmod back: still the same size and mtime)
    monkeypatch.setenv("SESSIONSCOPE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("SESSIONSCOPE_CONFIG", str(tmp_path / "none.toml"))
    code, out, err = run(capsys, "search", "zebracorn", "--root", str(root), "--json")
    assert (code, err, len(json.loads(out)["hits"])) == (0, "", 3)


@pytest.fixture
def shared_tmp() -> Iterator[Path]:
    """A folder another user can reach (pytest's tmp_path is root's alone)."""
    d = Path(tempfile.mkdtemp(prefix="sessionscope-nobody-"))
    d.chmod(0o777)
    try:
        yield d
    finally:
        shutil.rmtree(d, ignore_errors=True)


def _as_nobody() -> list[str]:
    if os.name != "posix" or os.geteuid() != 0:
        pytest.skip("needs root to run a command as another user (mode 000 binds no root)")
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("setpriv (util-linux) is not installed")
    return [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]


def test_real_mode_000_folder_and_file_as_another_user(shared_tmp: Path) -> None:
    """The same as above with real permissions: the CLI run as `nobody`."""
    prefix = _as_nobody()
    root = projects(shared_tmp)
    for p in [root, *root.rglob("*")]:
        p.chmod(0o777 if p.is_dir() else 0o666)
    env = dict(os.environ, SESSIONSCOPE_CACHE_DIR=str(shared_tmp / "cache"),
               SESSIONSCOPE_CONFIG=str(shared_tmp / "none.toml"), HOME=str(shared_tmp))

    def cli(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*prefix, sys.executable, "-m", "sessionscope", *argv, "--root", str(root), "--json"],
                              env=env, capture_output=True, text=True, timeout=120)

    probe = subprocess.run([*prefix, sys.executable, "-c", "import sessionscope"], env=env,
                           capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip(f"the package cannot be imported as nobody: {probe.stderr.strip()[-200:]}")
    assert len(json.loads(cli("search", "zebracorn").stdout)["hits"]) == 3  # indexed, as nobody
    (root / "-w-beta").chmod(0o000)
    gamma = root / "-w-gamma" / "gamma-0000-0000-0000-000000000000.jsonl"
    gamma.chmod(0o000)
    try:
        for argv in (("search", "zebracorn"), ("sessions",), ("index",)):
            done = cli(*argv)
            assert done.returncode == 0, done.stderr
            assert f"folder {root / '-w-beta'} could not be read (Permission denied)" in done.stderr
            assert f"{gamma}: unreadable: Permission denied" in done.stderr
        assert len(json.loads(cli("search", "zebracorn").stdout)["hits"]) == 1
    finally:
        (root / "-w-beta").chmod(0o777)
        gamma.chmod(0o666)


# -- item 7: uuids that repeat across the files of one folder --------------------------------------
def _record(kind: str, uuid: str, parent: str | None, sid: str, text: str, second: int) -> dict[str, object]:
    message: dict[str, object] = ({"role": "user", "content": text} if kind == "user" else
                                  {"role": "assistant", "id": f"m-{uuid}-{sid}", "model": "claude-x",
                                   "content": [{"type": "text", "text": text}]})
    return {"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": sid, "cwd": "/w/proj",
            "timestamp": f"2025-01-0{1 if sid.startswith('1') else 2}T00:00:{second:02d}.000Z", "message": message}


def _write(path: Path, records: list[dict[str, object]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))


def test_list_quick_list_and_reader_agree_when_uuids_repeat(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Two sessions of one folder whose records carry the same uuids with different content: no
    copy (a resumed session's copies have the same content too), so nothing is hidden. The dedup
    dropped both entries by uuid alone: the list said 0 entries and no time, the reader 2."""
    first, second = "11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222"
    root = tmp_path / "projects"
    _write(root / "-w-proj" / f"{first}.jsonl", [
        _record("user", "u1", None, first, "what is the plan", 1),
        _record("assistant", "a1", "u1", first, "the plan is this", 2)])
    _write(root / "-w-proj" / f"{second}.jsonl", [
        _record("user", "u1", None, second, "an unrelated question", 5),
        _record("assistant", "a1", "u1", second, "an unrelated answer", 6)])
    code, out, err = run(capsys, "sessions", "--root", str(root), "--json")
    full = {s["session_id"]: s for s in json.loads(out)["sessions"]}
    quick = {s["session_id"]: s for s in json.loads(run(capsys, "sessions", "--quick", "--root", str(root), "--json")[1])["sessions"]}
    for sid in (first, second):
        read = json.loads(run(capsys, "read", sid, "--root", str(root), "--json", "--limit", "100")[1])
        stamps = [e["timestamp"] for e in read["entries"]]
        assert full[sid]["entry_count"] == read["total_entries"] == 2
        assert (full[sid]["first_timestamp"], full[sid]["last_timestamp"]) == (
            quick[sid]["first_timestamp"], quick[sid]["last_timestamp"]) == (min(stamps), max(stamps))


# -- item 12: hostile config values and roots that reach the whole file system ---------------------
def test_hostile_config_values_are_warnings_and_every_command_runs(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    root = projects(tmp_path)
    config = tmp_path / "config.toml"
    config.write_text('tool_result_cap = 99999999999999999999\nroots = ["/proc/self", "/x\\u0000y"]\n'
                      "memory_lock_timeout = -3\ndefault_roots = false\n")
    monkeypatch.setenv("SESSIONSCOPE_CONFIG", str(config))
    for argv in (("search", "zebracorn", "--json"), ("sessions", "--json"), ("index",)):
        code, out, err = run(capsys, *argv, "--root", str(root))
        assert code == 0, err
        for key in ("tool_result_cap", "roots", "memory_lock_timeout"):
            assert f"'{key}'" in err
    code, out, err = run(capsys, "sessions", "--json")  # the config's one usable root: /proc/self
    assert code == 0 and json.loads(out)["sessions"] == []
    assert "kernel pseudo file system(s) not read: /proc/self" in err


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="no /proc on this system")
@pytest.mark.parametrize("quick", [False, True], ids=["full", "quick"])
def test_root_proc_is_not_walked_and_says_so(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], quick: bool) -> None:
    code, out, err = run(capsys, "sessions", *(["--quick"] if quick else []), "--root", "/proc", "--json")
    assert code == 0, err
    assert json.loads(out)["sessions"] == []
    assert "kernel pseudo file system(s) not read: /proc" in err


@pytest.mark.parametrize("quick", [False, True], ids=["full", "quick"])
def test_the_walk_stops_at_the_configured_bound_and_says_so(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, quick: bool) -> None:
    root = projects(tmp_path)
    (tmp_path / "config.toml").write_text("max_folders = 3\n")  # the root and two of its three folders
    monkeypatch.setenv("SESSIONSCOPE_CONFIG", str(tmp_path / "config.toml"))
    code, out, err = run(capsys, "sessions", *(["--quick"] if quick else []), "--root", str(root), "--json")
    assert code == 0 and len(json.loads(out)["sessions"]) == 2
    assert f"stopped walking {root} after 3 folders: the rest is not read" in err


def test_a_config_that_is_a_folder_is_said_by_the_cli(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "config.toml").mkdir()
    monkeypatch.setenv("SESSIONSCOPE_CONFIG", str(tmp_path / "config.toml"))
    code, out, err = run(capsys, "sessions", "--root", str(projects(tmp_path)))
    assert code == 0 and f"config {tmp_path / 'config.toml'} is not a file; ignored" in err


# -- item 14: hostile queries, files that vanish mid-walk ------------------------------------------
@pytest.mark.parametrize(("query", "says"), [
    ("\udcff", "search: the query is not valid UTF-8 text"),  # `search $'\xff'`, as argv hands it over
    ("since:99999999d", "search: '99999999d' reaches back before the year 1"),
    ("x until:9999-12-31", "outside the dates that can be compared"),
])
def test_a_hostile_query_is_one_line_and_exit_2(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], query: str, says: str) -> None:
    for json_flag in ([], ["--json"]):
        code, out, err = run(capsys, "search", query, "--root", str(projects(tmp_path)), *json_flag)
        assert code == 2 and says in err and len(err.strip().splitlines()) == 1, err


@pytest.mark.parametrize("quick", [False, True], ids=["full", "quick"])
def test_a_file_that_vanishes_mid_walk_is_skipped(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, quick: bool) -> None:
    from sessionscope.core.read import discovery

    root = projects(tmp_path)
    ghost = str(root / "-w-alpha" / "gone-0000-0000-0000-000000000000.jsonl")
    real = discovery.candidate_files

    def with_ghost(*args: object, **kw: object) -> Iterator[str]:
        yield ghost  # listed by the walk, removed before it is looked at
        yield from real(*args, **kw)

    monkeypatch.setattr(discovery, "candidate_files", with_ghost)  # (the scan and --quick list through it)
    code, out, err = run(capsys, "sessions", *(["--quick"] if quick else []), "--root", str(root), "--json")
    assert (code, err) == (0, "")
    assert len(json.loads(out)["sessions"]) == 3
