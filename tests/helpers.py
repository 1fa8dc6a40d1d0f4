"""Paths and helpers shared by tests (importable: tests/ is on pytest's pythonpath)."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import orjson

from sessionscope.core.config import AGENT_SESSION_VARS

if TYPE_CHECKING:
    import pytest

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "data"
CORPUS = ROOT.parent / "shared" / "corpus"
NO_CORPUS = f"real-agent corpus not present at {CORPUS} (only CI and dev machines have ../shared)"


def corpus_files(sub: str, pattern: str = "*.jsonl") -> list[Path]:
    """Corpus files for parametrizing; empty (the test is then skipped) when ../shared is absent."""
    d = CORPUS / sub
    return sorted(d.glob(pattern)) if d.is_dir() else []


def refuse_listing(monkeypatch: "pytest.MonkeyPatch", folder: str, exc: OSError | None = None) -> None:
    """Make `os.scandir` of a folder whose name (or whole path) is `folder` raise `exc` (default:
    EACCES, as mode 000 does for a non-root user; tests run as root, whom mode 000 binds not)."""
    import os

    real = os.scandir

    def scandir(path: "str | os.PathLike[str]" = ".") -> "os._ScandirIterator[str]":
        p = os.fspath(path)
        if folder in (p, os.path.basename(p)):
            raise exc if exc is not None else PermissionError(13, "Permission denied", p)
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)


def isolate(tmp_path: Path, monkeypatch, config: str = "none.toml") -> None:  # noqa: ANN001 - pytest's MonkeyPatch
    """A CLI run that reads nothing of this machine's: cache, config (`tmp_path / config`) and
    home in `tmp_path`, no agent home from the environment, no session id of an agent this test
    may run inside."""
    monkeypatch.setenv("SESSIONSCOPE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("SESSIONSCOPE_CONFIG", str(tmp_path / config))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.delenv("CODEX_HOME", raising=False)
    for var in ("PI_CODING_AGENT_DIR", "XDG_DATA_HOME", "XDG_CONFIG_HOME"):  # pi's, OpenCode's, Copilot's homes
        monkeypatch.delenv(var, raising=False)
    for var in AGENT_SESSION_VARS:
        monkeypatch.delenv(var, raising=False)


def write_session(path: Path, sid: str, texts: list[str], *, project: str = "/elsewhere", day: int = 1,
                  agent: str = "my-agent") -> None:
    """A session-logs transcript: a header, then the texts as user and assistant turns by turns."""
    import json

    path.parent.mkdir(parents=True, exist_ok=True)
    lines: list[dict[str, object]] = [{"session_id": sid, "agent_id": agent,
                                       "started_at": f"2026-03-{day:02d}T09:00:00Z", "project": project}]
    lines += [{"role": "user" if i % 2 == 0 else "assistant", "content": t,
               "timestamp": f"2026-03-{day:02d}T10:{i:02d}:00Z"} for i, t in enumerate(texts)]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))


def cli_run(capsys: "pytest.CaptureFixture[str]", *argv: str) -> tuple[int, str, str]:
    """`sessionscope ARGV` in this process: its exit code, stdout and stderr."""
    from sessionscope.cli.main import main

    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def cli_json(capsys: "pytest.CaptureFixture[str]", *argv: str) -> dict:
    """`sessionscope ARGV --json`, which must succeed: its answer."""
    import json

    code, out, err = cli_run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


def claude_record(uuid: str, parent: str | None, sid: str, ts: int, role: str = "user", text: str = "hi") -> dict:
    """A Claude Code transcript line (a user message, or an assistant reply with usage)."""
    rec = {"type": role, "uuid": uuid, "parentUuid": parent, "sessionId": sid, "cwd": "/w/proj",
           "timestamp": f"2025-01-01T00:00:{ts:02d}.000Z"}
    if role == "user":
        rec["message"] = {"role": "user", "content": text}
    else:
        rec["message"] = {"id": f"m-{uuid}", "role": "assistant", "model": "m", "content": [{"type": "text", "text": text}],
                          "usage": {"input_tokens": 10, "output_tokens": 5}}
        rec["requestId"] = f"r-{uuid}"
    return rec


def write_records(path: Path, records: list[dict]) -> None:
    """`records` as a JSONL file (its folders made)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))


class FeedSpy:
    """The offsets of the lines fed to a format's parsers, and how many whole loads of its files
    ran (a grown file read on feeds its new lines alone)."""

    def __init__(self, monkeypatch: "pytest.MonkeyPatch", parser: type, adapter: type) -> None:
        self.offsets: list[int] = []
        self.loads = 0
        feed, load = parser.feed, adapter.load

        def spy_feed(parser, parsed):
            self.offsets.append(parsed.raw.offset)
            return feed(parser, parsed)

        def spy_load(adapter, *args, **kwargs):
            self.loads += 1
            return load(adapter, *args, **kwargs)

        monkeypatch.setattr(parser, "feed", spy_feed)
        monkeypatch.setattr(adapter, "load", spy_load)

    def reset(self) -> None:
        self.offsets.clear()
        self.loads = 0


# -- a lazy scan beside one that decodes every session (core/catalog/keys.py, warm.py) -------------
def roots_of(*folders: "Path | str") -> list:
    from sessionscope.core.read.discovery import Root

    return [Root(str(f), "--root", explicit=True) for f in folders]


def both(roots: list, cache: Path) -> tuple:
    """A library scanned as before (every session decoded) and one scanned lazily, over one warm
    catalog (a session read just now has its times to the microsecond, the catalog's to the ms)."""
    from sessionscope.core.catalog.library import Library
    from sessionscope.core.catalog.store import Catalog

    Library(roots, catalog=Catalog(cache / "c.sqlite")).scan()
    full = Library(roots, catalog=Catalog(cache / "c.sqlite"))
    full.scan()
    lazy = Library(roots, catalog=Catalog(cache / "c.sqlite"))
    lazy.scan(lazy=True)
    assert lazy.lazy
    return full, lazy


def assert_same(full, lazy) -> None:  # type: ignore[no-untyped-def]
    """A lazy library answers every listing and lookup as the one that decoded every session."""
    for args in ({}, {"orphans": False}, {"agent": "codex"}, {"agent": "CLAUDE-CODE"}, {"project": "w"}):
        top_f, orphans_f = full.top_level(**args)
        top_l, orphans_l = lazy.top_level(**args)
        assert orphans_l == orphans_f, args
        assert [s.id for s in top_l] == [s.id for s in top_f], args
        assert [s.to_dict() for s in top_l[:5]] == [s.to_dict() for s in top_f[:5]], args
    assert sorted(lazy.session_ids()) == sorted(full.session_ids())
    for sid in full.session_ids():
        assert lazy.get(sid) == full.get(sid), sid
        assert lazy.kind_of(sid) == full.kind_of(sid)
        for prefix in (sid, sid[:6], sid[:1], sid.rpartition("/")[2], sid.rpartition("/")[2][:5]):
            want = _found(full, prefix)
            assert _found(lazy, prefix) == want, prefix
    assert lazy.lazy  # nothing above needed every session decoded
    assert lazy.get("no-such-id") is None
    assert _found(lazy, "zz-no-such") == _found(full, "zz-no-such")


def _found(lib, prefix: str) -> str:  # type: ignore[no-untyped-def]
    from sessionscope.core.catalog.library import LookupFailed

    try:
        return lib.find(prefix).id
    except LookupFailed as exc:
        return f"failed: {exc}"


# -- reading a grown file on (tests/core/test_read_on*.py) ---------------------------------------
def read_to_end(path: Path, adapter):  # noqa: ANN001
    """What the catalog's whole read keeps: the session, where the reading stopped, the carry."""
    from sessionscope.core.read.jsonl import RecordFile

    with RecordFile(str(path)) as rf:
        loaded = adapter.load(str(path), rf)
        end = rf.complete_end
    if len(loaded) != 1 or loaded[0].carry is None:
        return None
    return loaded[0].session, end, loaded[0].account.lines, loaded[0].carry()


def read_on(path: Path, state, adapter):  # noqa: ANN001
    """The catalog's reading on (core/catalog/library.py `_read_on`) at the adapter."""
    session, end, lines, carried = state
    from sessionscope.core.read.jsonl import RecordFile

    with RecordFile(str(path)) as rf:
        parser = adapter.parser_on(str(path), carried)
        if parser is None:
            return None
        for parsed in rf.iter_parsed(end, lines + 1):
            parser.feed(parsed)
        ext = adapter.extend(session, parser, rf.size, carried)
        new_end = rf.complete_end
    if ext is None:
        return None
    return ext.session, new_end, lines + parser.account.lines, ext.carry


def scan_root(root: Path, catalog):  # noqa: ANN001, ANN201
    """A library of one root scanned with `catalog` (no walk errors)."""
    from sessionscope.core.catalog.library import Library
    from sessionscope.core.read.discovery import Root

    lib = Library([Root(str(root), "--root", explicit=True)], catalog=catalog)
    assert lib.scan().errors == []
    return lib


def whole_scan(root: Path):  # noqa: ANN201
    """The sessions of a root read whole (a fresh in-memory catalog)."""
    from sessionscope.core.catalog.store import Catalog

    return scan_root(root, Catalog(None)).all_sessions()


def v6(path: Path) -> None:
    """Make a catalog of this schema look like one of schema 6 (no keys, no folders)."""
    import sqlite3

    db = sqlite3.connect(path)
    db.execute("ALTER TABLE files DROP COLUMN keys")
    db.execute("DROP TABLE folders")
    db.execute("UPDATE meta SET value='6' WHERE key='schema_version'")
    db.commit()
    db.close()


def watching(watcher, *, caught_up: bool = False):  # noqa: ANN001, ANN201 - (thread, queue of batches)
    """`watcher.batches()` run in a thread, each batch put in a queue; returned once the watcher is
    armed (and, with `caught_up`, once its catch-up pass is done: what follows is the watch's to see)."""
    import queue
    import threading

    got: queue.Queue = queue.Queue()

    def run() -> None:
        for batch in watcher.batches():
            got.put(batch)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    assert watcher.armed.wait(10)
    if caught_up:
        assert watcher.caught_up.wait(10)
    return thread, got
