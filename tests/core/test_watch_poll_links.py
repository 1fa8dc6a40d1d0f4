"""`watch --poll` under a root holding symlink loops and second links to folders: each real file
is known by one path, as the scan and inotify mode know it (issue 10, item 13)."""
from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import orjson
from helpers import watching

from sessionscope.core.catalog.store import Catalog
from sessionscope.core.read.discovery import Root
from sessionscope.core.search.index import SearchIndex
from sessionscope.core.catalog.library import Library
from sessionscope.core.live.poller import Poller
from sessionscope.core.live.tracker import Change
from sessionscope.core.live.watch import Watcher

T0 = datetime(2026, 11, 1, 9, 0, tzinfo=timezone.utc)


def session(path: Path, sid: str, text: str) -> Path:
    path.write_bytes(orjson.dumps({"session_id": sid, "agent_id": "a", "started_at": T0.isoformat()}) + b"\n"
                     + orjson.dumps({"role": "user", "content": text, "timestamp": T0.isoformat()}) + b"\n")
    return path


def looped(tmp_path: Path) -> Path:
    """root/a/s1.jsonl, root/a/loop -> root (a loop), root/b -> root/a (a second path to a)."""
    root = tmp_path / "root"
    (root / "a").mkdir(parents=True)
    session(root / "a" / "s1.jsonl", "s1", "loopy words")
    (root / "a" / "loop").symlink_to(root)
    (root / "b").symlink_to(root / "a")
    return root


def test_the_poller_reports_a_new_file_once_not_its_copies_through_the_loop(tmp_path: Path) -> None:
    root = looped(tmp_path)
    poller = Poller([str(root)], lambda name: name.endswith((".jsonl", ".md")))
    assert poller.sweep() == set()
    assert sorted(poller.files) == [str(root / "a" / "s1.jsonl")]
    new = session(root / "a" / "s2.jsonl", "s2", "more loopy words")  # folder a changes: looked into
    assert poller.tick() == {str(new)}
    (root / "c").mkdir()  # a new folder, and another link into the loop
    session(root / "c" / "s3.jsonl", "s3", "third")
    (root / "c" / "back").symlink_to(root / "a")
    assert poller.tick() == {str(root / "c" / "s3.jsonl")}
    assert poller.sweep() == set()  # a sweep finds nothing the ticks had not
    assert sorted(poller.files) == [str(root / "a" / "s1.jsonl"), str(new), str(root / "c" / "s3.jsonl")]


def test_watch_poll_over_a_loop_indexes_each_session_once(tmp_path: Path) -> None:
    root = looped(tmp_path)
    lib = Library([Root(str(root), "--root", explicit=True)], catalog=Catalog(tmp_path / "c.sqlite"))
    lib.scan()
    index = SearchIndex(tmp_path / "index")
    index.update(lib)
    watcher = Watcher(lib, poll=True)
    thread, got = watching(watcher)
    events = []
    try:
        session(root / "a" / "s2.jsonl", "s2", "more loopy words")
        while not any(s.id == "s2" for ev in events for s in ev.sessions):
            events += got.get(timeout=10)
    finally:
        watcher.stop.set()
        thread.join(10)
    while not got.empty():
        events += got.get()
    assert [(ev.kind, ev.path) for ev in events] == [(Change.CREATED, str(root / "a" / "s2.jsonl"))]
    assert sorted(s.id for s in lib.all_sessions()) == ["s1", "s2"]
    index.update(lib, paths=watcher.take_changed())
    assert sorted(h.session_id for h in index.search("loopy").hits) == ["s1", "s2"]


def test_inotify_watches_each_real_folder_once_and_nothing_out_of_the_root(tmp_path: Path) -> None:
    """The same rules for inotify mode: a link to / under a root made it add a watch on every
    folder of the file system before it was armed (and the watcher missed what came meanwhile)."""
    import pytest

    from sessionscope.core.live.inotify import Inotify

    inotify = Inotify.open()
    if inotify is None:
        pytest.skip("no inotify here")
    root = looped(tmp_path)
    outside = tmp_path / "elsewhere" / "deep"
    outside.mkdir(parents=True)
    (root / "a" / "out").symlink_to(tmp_path / "elsewhere")
    (root / "a" / "slash").symlink_to("/")
    try:
        inotify.roots = [str(root)]
        inotify.add_tree(str(root))
        assert sorted(inotify.wds) == [str(root), str(root / "a")]
    finally:
        inotify.close()
