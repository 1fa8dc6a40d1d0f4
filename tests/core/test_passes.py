"""A pass over many transcripts asks the file system once what every file of a folder asks of it
(core/read/passes.py): Gemini CLI's project marker, registry and the user's config, in a listing."""
from __future__ import annotations

import json
import os
import threading
from pathlib import Path

from helpers import DATA

from sessionscope.core.read.adapters import default_registry
from sessionscope.core.read.listing import quick_listing, quick_meta
from sessionscope.core.read.passes import once, one_pass

JSONL = DATA / "gemini" / "tmp" / "9f2c0d1e" / "chats" / "session-2026-04-01T10-00-3c9a77e1.jsonl"


def test_once_keeps_an_answer_for_the_pass_only() -> None:
    calls: list[int] = []

    def ask(arg: int) -> int:
        calls.append(arg)
        return arg * 10 + len(calls)

    assert [once(ask, 1), once(ask, 1)] == [11, 12]  # outside a pass: asked each time
    with one_pass():
        assert [once(ask, 1), once(ask, 1), once(ask, 2)] == [13, 13, 24]
        with one_pass():  # a pass inside a pass is the outer one
            assert once(ask, 2) == 24
        seen: list[int] = []
        worker = threading.Thread(target=lambda: seen.append(once(ask, 2)))
        worker.start()
        worker.join()
        assert seen == [25]  # a thread started during the pass does not share it
        assert once(ask, 2) == 24
    assert once(ask, 1) == 16  # the pass ended: asked again
    assert calls == [1, 1, 1, 2, 2, 1]


def _chats(tmp_path: Path, n: int) -> list[str]:
    """`n` copies of a JSONL chat in one project folder (Gemini's `tmp/<hash>/chats`)."""
    chats = tmp_path / "gemini" / "tmp" / "9f2c0d1e" / "chats"
    chats.mkdir(parents=True)
    paths = []
    for i in range(n):
        lines = JSONL.read_text().splitlines()
        meta = json.loads(lines[0])
        meta["sessionId"] = f"{meta['sessionId'][:-2]}{i:02d}"
        path = chats / f"session-2026-04-01T10-0{i}-{i:08d}.jsonl"
        path.write_text("\n".join([json.dumps(meta), *lines[1:]]) + "\n")
        paths.append(str(path))
    return paths


def test_a_gemini_listing_asks_for_a_folders_marker_once(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("SESSIONSCOPE_CONFIG", str(tmp_path / "none.toml"))
    monkeypatch.chdir(tmp_path)
    paths = _chats(tmp_path, 4)
    asked: list[str] = []
    real_access = os.access

    def access(path, mode, **kw):
        asked.append(os.fspath(path))
        return real_access(path, mode, **kw)

    monkeypatch.setattr(os, "access", access)
    registry = default_registry()
    each = [quick_meta(p, registry) for p in paths]
    asked_each, asked[:] = list(asked), []
    listed = quick_listing(paths, registry)
    assert listed == each and all(m.error is None for m in listed)
    marker = str(Path(paths[0]).parent.parent / ".project_root")
    assert asked_each.count(marker) == 4 and asked.count(marker) == 1
    # the registry and the config, asked of every chat outside a pass, once in it
    assert len(asked_each) == 12 and len(asked) == 3


def test_a_marker_written_between_two_listings_is_seen(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("SESSIONSCOPE_CONFIG", str(tmp_path / "none.toml"))
    monkeypatch.chdir(tmp_path)
    [path] = _chats(tmp_path, 1)
    registry = default_registry()
    before = quick_listing([path], registry)[0].project
    assert before and before != "/home/dev/marked"
    (Path(path).parent.parent / ".project_root").write_text("/home/dev/marked\n")
    assert quick_listing([path], registry)[0].project == "/home/dev/marked"
    assert quick_meta(path, registry).project == "/home/dev/marked"
