"""Live updates: raw changes become typed events; the catalog and the index follow incrementally."""
from __future__ import annotations

import os
import queue
import sys
import threading
from datetime import datetime, timedelta, timezone
from pathlib import Path

import orjson
import pytest
from helpers import watching

from sessionscope.core.catalog.store import Catalog
from sessionscope.core.read.discovery import Root
from sessionscope.core.search.index import SearchIndex
from sessionscope.core.catalog.library import Library
from sessionscope.core.live.tracker import Change, Tracker
from sessionscope.core.live.watch import Watcher

T0 = datetime(2026, 11, 1, 9, 0, tzinfo=timezone.utc)


def head(sid: str) -> bytes:
    return orjson.dumps({"session_id": sid, "agent_id": "a", "started_at": T0.isoformat()}) + b"\n"


def line(text: str, i: int) -> bytes:
    return orjson.dumps({"role": "user", "content": text, "timestamp": (T0 + timedelta(minutes=i)).isoformat()}) + b"\n"


@pytest.fixture
def setup(tmp_path: Path) -> tuple[Path, Library, Tracker, SearchIndex]:
    root = tmp_path / "root"
    root.mkdir()
    lib = Library([Root(str(root), "--root", explicit=True)], catalog=Catalog(tmp_path / "c.sqlite"))
    lib.scan()
    return root, lib, Tracker(lib), SearchIndex(tmp_path / "index")


def test_created_grew_and_half_lines(setup) -> None:  # noqa: ANN001
    root, lib, tracker, index = setup
    p = root / "s.jsonl"
    p.write_bytes(head("s1") + line("first words", 0))
    (ev,) = tracker.apply([str(p)])
    assert ev.kind is Change.CREATED and ev.sessions[0].id == "s1"
    assert lib.get("s1").entry_count == 1
    # A new file reports its entries, as a grown one does (`watch --json` printed 0 and []).
    assert [e.text for e in ev.entries] == ["first words"]
    assert ev.to_dict()["new_entries"] == 1 and ev.to_dict()["entries"][0]["content"] == "first words"
    index.update(lib)
    with open(p, "ab") as fh:
        fh.write(line("second words", 1) + line("third words", 2)[:20])
    (ev,) = tracker.apply([str(p)])
    assert ev.kind is Change.GREW and [e.text for e in ev.entries] == ["second words"]
    assert lib.get("s1").entry_count == 2
    index.update(lib)
    assert len(index.search("words").hits) == 2
    with open(p, "ab") as fh:
        fh.write(line("third words", 2)[20:])
    (ev,) = tracker.apply([str(p)])
    assert [e.text for e in ev.entries] == ["third words"] and ev.entries[0].locator.line == 4
    assert lib.get("s1").entry_count == 3
    assert lib.get("s1").last_timestamp == T0 + timedelta(minutes=2)
    report = index.update(lib)
    assert report.files_appended == 1 and report.docs_added == 1  # only the new line was read
    assert len(index.search("words").hits) == 3


def test_truncated_and_rewritten(setup) -> None:  # noqa: ANN001
    root, lib, tracker, index = setup
    p = root / "s.jsonl"
    p.write_bytes(head("s1") + line("alpha", 0) + line("alpha", 1))
    tracker.apply([str(p)])
    index.update(lib)
    p.write_bytes(head("s1") + line("beta", 0))
    (ev,) = tracker.apply([str(p)])
    assert ev.kind is Change.REWRITTEN and lib.get("s1").entry_count == 1
    index.update(lib)
    assert index.search("alpha").hits == [] and len(index.search("beta").hits) == 1


def test_rename_and_delete(setup) -> None:  # noqa: ANN001
    root, lib, tracker, index = setup
    p = root / "s.jsonl"
    p.write_bytes(head("s1") + line("gamma", 0))
    tracker.apply([str(p)])
    index.update(lib)
    q = root / "moved.jsonl"
    os.rename(p, q)
    events = {e.kind: e for e in tracker.apply([str(p), str(q)])}
    assert set(events) == {Change.DELETED, Change.CREATED}
    assert lib.get("s1") is not None and lib.get("s1").path == str(q)
    index.update(lib)
    hits = index.search("gamma").hits
    assert [h.locator.path for h in hits] == [str(q)]
    os.unlink(q)
    (ev,) = tracker.apply([str(q)])
    assert ev.kind is Change.DELETED and lib.get("s1") is None
    index.update(lib)
    assert index.search("gamma").hits == []


def test_unchanged_and_foreign_files_are_quiet(setup) -> None:  # noqa: ANN001
    root, lib, tracker, _ = setup
    p = root / "s.jsonl"
    p.write_bytes(head("s1"))
    tracker.apply([str(p)])
    assert tracker.apply([str(p)]) == []
    (root / "notes.txt").write_text("x")
    assert tracker.apply([str(root / "notes.txt")]) == []


def test_memory_files(setup) -> None:  # noqa: ANN001
    root, _, tracker, _ = setup
    mem = root / "proj" / "memory"
    mem.mkdir(parents=True)
    (mem / "2026-11-01-09-00-foo.md").write_text("---\nstatus: paused\n---\n")
    (ev,) = tracker.apply([str(mem / "2026-11-01-09-00-foo.md")])
    assert ev.kind is Change.MEMORY


def test_watcher_reports_a_burst_as_one_event(setup) -> None:  # noqa: ANN001
    root, lib, _, _ = setup
    p = root / "s.jsonl"
    p.write_bytes(head("s1"))
    lib.scan()
    watcher = Watcher(lib)
    got: queue.Queue = queue.Queue()
    ready = threading.Event()

    def run() -> None:
        ready.set()
        for batch in watcher.batches():
            got.put(batch)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    ready.wait(5)
    try:
        # the watcher may need a moment to arm: write until the first event arrives
        for attempt in range(50):
            with open(p, "ab") as fh:
                for i in range(5):  # a burst of writes
                    fh.write(line(f"burst {attempt} {i}", i))
                    fh.flush()
            try:
                batch = got.get(timeout=0.5)
                break
            except queue.Empty:
                continue
        else:
            pytest.fail("no event within 25 s")
        grew = [e for e in batch if e.kind is Change.GREW]
        assert len(grew) == 1 and len(grew[0].entries) >= 5
    finally:
        watcher.stop.set()
        thread.join(10)


def test_a_directory_created_or_removed_whole_reports_its_sessions(setup) -> None:  # noqa: ANN001
    root, lib, tracker, _ = setup
    staged = root.parent / "staged"
    (staged / "proj").mkdir(parents=True)
    (staged / "proj" / "s.jsonl").write_bytes(head("s1") + line("moved in", 0))
    os.rename(staged / "proj", root / "proj")  # only the directory's own event may be reported
    (ev,) = tracker.apply([str(root / "proj")])
    assert ev.kind is Change.CREATED and lib.get("s1") is not None
    os.rename(root / "proj", staged / "proj")
    (ev,) = tracker.apply([str(root / "proj")])
    assert ev.kind is Change.DELETED and ev.path == str(root / "proj" / "s.jsonl")
    assert lib.get("s1") is None


def test_watcher_is_armed_before_the_first_write(setup) -> None:  # noqa: ANN001
    root, lib, _, _ = setup
    p = root / "s.jsonl"
    p.write_bytes(head("s1"))
    lib.scan()

    class SeenLock:
        """A lock that says when the watcher's thread waits for it."""

        def __init__(self) -> None:
            self._lock = threading.Lock()
            self.watcher_waits = threading.Event()

        def __enter__(self) -> None:
            if not self._lock.acquire(blocking=False):
                if threading.current_thread() is not threading.main_thread():
                    self.watcher_waits.set()
                self._lock.acquire()

        def __exit__(self, *exc: object) -> None:
            self._lock.release()

    lock = SeenLock()
    watcher = Watcher(lib, lock=lock)
    thread, got = watching(watcher)
    try:
        with lock:  # while the lock is held elsewhere, changes wait (they are not lost)
            with open(p, "ab") as fh:
                fh.write(line("one write", 0))
            assert lock.watcher_waits.wait(10)
            assert got.empty()
        (ev,) = got.get(timeout=10)  # one write, no retries: armed means seen
        assert ev.kind is Change.GREW and [e.text for e in ev.entries] == ["one write"]
    finally:
        watcher.stop.set()
        thread.join(10)
    assert not thread.is_alive()


@pytest.mark.parametrize("source", ["inotify", "watchfiles", "polling"])
def test_changes_before_arming_and_within_a_polled_second_are_seen(setup, source: str,  # noqa: ANN001
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Each source: the watcher's own inotify reader, watchfiles (where inotify is missing:
    macOS, Windows, a kernel without it) and the poller."""
    from sessionscope.core.live.inotify import Inotify

    if source == "watchfiles":
        monkeypatch.setattr(Inotify, "open", classmethod(lambda cls: None))
    poll = source == "polling"
    root, lib, _, _ = setup
    p = root / "s.jsonl"
    p.write_bytes(head("s1"))
    lib.scan()
    # Written after the scan, before the watcher exists: no file-system event will ever say so.
    with open(p, "ab") as fh:
        fh.write(line("before arming", 0))
    (root / "new.jsonl").write_bytes(head("s2"))
    watcher = Watcher(lib, poll=poll)
    got: queue.Queue = queue.Queue()
    caught_up_when_handed: list[bool] = []

    def run() -> None:
        for batch in watcher.batches():
            caught_up_when_handed.append(watcher.caught_up.is_set())
            got.put(batch)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        seen: dict = {}
        while not ({"s1", "s2"} <= seen.keys()):
            for ev in got.get(timeout=10):
                seen.update({s.id: ev for s in ev.sessions})
        assert seen["s1"].kind is Change.GREW and [e.text for e in seen["s1"].entries] == ["before arming"]
        assert seen["s2"].kind is Change.CREATED
        # caught up once the batch of what came before arming was handled by its caller, not before
        assert watcher.caught_up.wait(10) and caught_up_when_handed[0] is False
        # Two appends within moments: a poller comparing mtimes to the second may report one.
        with open(p, "ab") as fh:
            fh.write(line("first", 1))
        texts: list[str] = []
        while "first" not in texts:
            texts += [e.text for ev in got.get(timeout=10) for e in ev.entries]
        with open(p, "ab") as fh:
            fh.write(line("second", 2))
        while "second" not in texts:
            texts += [e.text for ev in got.get(timeout=10) for e in ev.entries]
        assert lib.get("s1").entry_count == 3
    finally:
        watcher.stop.set()
        thread.join(10)


def test_the_index_follows_the_changed_paths_alone(setup, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    """`update(paths=tracker.take_changed())` reads the state of the changed files only, and
    ends where a full update would: appends, creations, rewrites, renames and deletions."""
    root, lib, tracker, index = setup
    a, b = root / "a.jsonl", root / "b.jsonl"
    a.write_bytes(head("a") + line("alpha one", 0))
    b.write_bytes(head("b") + line("beta one", 0))
    tracker.apply([str(a), str(b)])
    assert tracker.take_changed() == {str(a), str(b)} and tracker.take_changed() == set()
    index.update(lib)
    full = []
    monkeypatch.setattr(lib.catalog, "index_states", lambda: full.append(1) or {})

    def follow():  # noqa: ANN202
        return index.update(lib, paths=tracker.take_changed())

    with open(a, "ab") as fh:
        fh.write(line("alpha two", 1))
    tracker.apply([str(a), str(b)])  # b unchanged: not among the changed paths
    report = follow()
    assert (report.files_appended, report.files_indexed, report.docs_added) == (1, 0, 1)
    assert len(index.search("alpha").hits) == 2
    b.write_bytes(head("b") + line("gamma", 0))  # rewritten
    c = root / "c.jsonl"
    c.write_bytes(head("c") + line("delta", 0))  # created
    tracker.apply([str(b), str(c)])
    report = follow()
    assert report.files_indexed == 2 and index.search("beta").hits == []
    assert len(index.search("gamma").hits) == 1 and len(index.search("delta").hits) == 1
    moved = root / "moved.jsonl"
    os.rename(c, moved)
    os.unlink(a)
    tracker.apply([str(c), str(moved), str(a)])
    report = follow()
    assert report.files_dropped == 2
    assert index.search("alpha").hits == [] and [h.locator.path for h in index.search("delta").hits] == [str(moved)]
    assert follow().docs_added == 0  # nothing changed since
    assert full == []  # never every file's state


def test_many_changed_paths_or_an_empty_index_take_the_full_pass(setup) -> None:  # noqa: ANN001
    import sessionscope.core.search.ingest as ingest_module

    root, lib, tracker, index = setup
    paths = []
    for i in range(ingest_module.PATHS_AT_ONCE + 1):
        p = root / f"s{i}.jsonl"
        p.write_bytes(head(f"s{i}") + line(f"word{i}", 0))
        paths.append(str(p))
    tracker.apply(paths)
    calls = []
    real = lib.catalog.index_states
    lib.catalog.index_states = lambda: calls.append(1) or real()
    report = index.update(lib, paths=set(paths[:1]))  # an empty index: the full pass
    assert calls == [1] and report.files_indexed == len(paths)
    with open(paths[0], "ab") as fh:
        fh.write(line("more", 1))
    tracker.apply(paths)
    report = index.update(lib, paths=set(paths))  # many paths: one query for every state
    assert calls == [1, 1] and report.files_appended == 1
    tracker.take_changed()
    with open(paths[0], "ab") as fh:
        fh.write(line("again", 2))
    tracker.apply(paths[:1])
    assert index.update(lib, paths=tracker.take_changed()).files_appended == 1 and calls == [1, 1]


def test_polling_looks_at_hot_files_often_and_at_everything_in_sweeps(tmp_path: Path) -> None:
    """What `poll=True` costs between sweeps is the hot part: files and folders written recently
    (or seen changing); a quiet file's change, or a new file in a quiet folder, waits for the
    next sweep. Nothing is missed, and the sweeps thin out as they get dearer."""
    import time as _time

    from sessionscope.core.live.poller import POLL_BUDGET, SWEEP_MAX_S, Poller

    old = _time.time() - 86400
    quiet, busy = tmp_path / "quiet", tmp_path / "busy"
    quiet.mkdir()
    busy.mkdir()
    cold, hot = quiet / "cold.jsonl", busy / "hot.jsonl"
    cold.write_bytes(head("c"))
    hot.write_bytes(head("h"))
    (quiet / "notes.txt").write_text("not a session")
    os.utime(cold, (old, old))
    os.utime(quiet, (old, old))
    poller = Poller([str(tmp_path)], lambda name: name.endswith((".jsonl", ".md")))
    assert poller.sweep() == set()  # the first sweep is the baseline
    assert poller.hot_files == {str(hot)} and str(quiet) not in poller.hot_dirs
    assert str(tmp_path / "quiet" / "notes.txt") not in poller.files  # only the wanted names

    with open(hot, "ab") as fh:
        fh.write(line("hot append", 0))
    with open(cold, "ab") as fh:
        fh.write(line("cold append", 0))
    os.utime(quiet, (old, old))
    assert poller.tick() == {str(hot)}
    assert poller.sweep() == {str(cold)}
    assert str(cold) in poller.hot_files  # written now: hot from here on
    with open(cold, "ab") as fh:
        fh.write(line("again", 1))
    assert poller.tick() == {str(cold)}

    (busy / "new.jsonl").write_bytes(head("n"))  # a new file in a hot folder, and a new folder
    (busy / "sub" / "deeper").mkdir(parents=True)
    (busy / "sub" / "deeper" / "agent.jsonl").write_bytes(head("a"))
    assert poller.tick() == {str(busy / "new.jsonl"), str(busy / "sub" / "deeper" / "agent.jsonl")}
    assert poller.tick() == set()
    (quiet / "late.jsonl").write_bytes(head("l"))  # a new file in a quiet folder: the sweep
    os.utime(quiet, (old, old))
    assert poller.tick() == set()
    assert poller.sweep() == {str(quiet / "late.jsonl")}
    os.unlink(hot)
    other = quiet / "other.jsonl"
    other.write_bytes(head("o"))
    assert poller.sweep() == {str(hot), str(other)}
    os.utime(other, (old, old))
    os.utime(quiet, (old, old))
    poller.sweep()
    poller.sweep()  # (the utime was a change, so hot until a sweep finds it quiet)
    (busy / "new.jsonl").unlink()
    other.unlink()
    assert poller.tick() == {str(busy / "new.jsonl")}  # a hot file gone: at once
    assert poller.sweep() == {str(other)}  # a quiet one: by the sweep
    assert poller.sweep() == set()

    poller.cost = 0.0
    assert poller.sweep_interval() == 0.1
    poller.cost = 0.05
    assert poller.sweep_interval() == pytest.approx(0.05 / POLL_BUDGET)
    poller.cost = 5.0
    assert poller.sweep_interval() == SWEEP_MAX_S


def test_polling_looks_at_a_folder_alone_for_what_matters_there(tmp_path: Path) -> None:
    """A folder the poller looks at alone (a database's, a project's): only the files that matter
    there are known, none of its folders is walked, and, quiet as it may be, it is looked at on
    every tick: a database's log that OpenCode creates there comes at once, not at the next sweep."""
    import time as _time

    from sessionscope.core.live.poller import Poller

    old = _time.time() - 86400
    folder = tmp_path / "opencode"
    (folder / "storage" / "deep").mkdir(parents=True)
    db = folder / "opencode.db"
    db.write_bytes(b"db")
    (folder / "opencode.log").write_text("noise")
    (folder / "storage" / "deep" / "s.jsonl").write_bytes(head("x"))
    for p in (db, folder):
        os.utime(p, (old, old))
    poller = Poller([], lambda name: True, {str(folder): lambda name: name in ("opencode.db", "opencode.db-wal")})
    assert poller.sweep() == set()
    assert set(poller.files) == {str(db)} and str(folder) in poller.hot_dirs  # (quiet, yet looked at)
    (folder / "opencode.db-wal").write_bytes(b"wal")
    (folder / "other.db").write_bytes(b"")
    os.utime(folder, (old + 1, old + 1))  # (changed, still a day old)
    assert poller.tick() == {str(folder / "opencode.db-wal")}
    with open(folder / "opencode.db-wal", "ab") as fh:
        fh.write(b"commit")
    assert poller.tick() == {str(folder / "opencode.db-wal")}  # new, so hot: its next write at once
    (folder / "opencode.db-wal").unlink()
    assert poller.tick() == {str(folder / "opencode.db-wal")}
    assert poller.sweep() == set()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify")
def test_the_inotify_reader_follows_folders_that_come_and_go(tmp_path: Path) -> None:
    """Folders created or moved in are watched at once and reported themselves (the tracker walks
    them); one moved away is reported and no longer watched; an overflowed queue reports the
    roots (the tracker compares everything under them)."""
    import select

    from sessionscope.core.live.inotify import _IN_Q_OVERFLOW, Inotify

    root = tmp_path / "root"
    (root / "proj").mkdir(parents=True)
    ino = Inotify.open()
    assert ino is not None
    try:
        ino.roots = [str(root)]
        ino.add_tree(str(root))
        assert set(ino.wds) == {str(root), str(root / "proj")}

        def settle() -> set[str]:
            got: set[str] = set()
            p = select.poll()
            p.register(ino.fd, select.POLLIN)
            while p.poll(100):
                got |= ino.read()
            return got
        (root / "proj" / "s.jsonl").write_bytes(head("s"))
        assert settle() == {str(root / "proj" / "s.jsonl")}
        staged = tmp_path / "staged" / "other"
        (staged / "deep").mkdir(parents=True)
        (staged / "deep" / "a.jsonl").write_bytes(head("a"))
        os.rename(staged, root / "other")
        assert settle() == {str(root / "other")}
        assert str(root / "other" / "deep") in ino.wds  # watched, deep down
        (root / "other" / "deep" / "b.jsonl").write_bytes(head("b"))
        (root / "other" / "deep" / "new").mkdir()
        assert settle() == {str(root / "other" / "deep" / "b.jsonl"), str(root / "other" / "deep" / "new")}
        (root / "other" / "deep" / "new" / "c.jsonl").write_bytes(head("c"))
        assert settle() == {str(root / "other" / "deep" / "new" / "c.jsonl")}
        os.rename(root / "other", tmp_path / "away")
        assert settle() == {str(root / "other")}
        assert not any(d.startswith(str(root / "other")) for d in ino.wds)
        (tmp_path / "away" / "deep" / "d.jsonl").write_bytes(head("d"))
        assert settle() == set()  # not ours any more
        changed: set[str] = set()
        ino._event(-1, _IN_Q_OVERFLOW, "", changed)
        assert changed == {str(root)}
    finally:
        ino.close()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify")
def test_an_idle_watcher_blocks_until_a_change_or_stop(setup, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    """Nothing wakes an idle watcher but a change or `stop`: it waits in poll() with no timeout
    (what that saves is bench/bench_watch.py's business), and `stop` wakes it."""
    import select
    import types

    import sessionscope.core.live.watch as watch_module

    waits: list[object] = []
    blocked = threading.Event()

    class RecordingPoll:
        def __init__(self) -> None:
            self._poll = select.poll()

        def register(self, fd: int, mask: int) -> None:
            self._poll.register(fd, mask)

        def poll(self, timeout: float | None = None) -> list[tuple[int, int]]:
            waits.append(timeout)
            if timeout is None:
                blocked.set()
            return self._poll.poll(timeout)

    monkeypatch.setattr(watch_module, "select", types.SimpleNamespace(poll=RecordingPoll, POLLIN=select.POLLIN))
    _, lib, _, _ = setup
    watcher = Watcher(lib)
    thread = threading.Thread(target=lambda: list(watcher.batches()), daemon=True)
    thread.start()
    try:
        assert blocked.wait(10)
    finally:
        watcher.stop.set()
        thread.join(10)
    assert not thread.is_alive()
    assert waits == [None]  # one wait, without a timeout: no wake-up while nothing changed


def test_a_file_being_written_is_not_read_back_from_the_catalog_on_every_append(setup) -> None:  # noqa: ANN001
    root, lib, tracker, index = setup
    p = root / "s.jsonl"
    p.write_bytes(head("s") + line("first", 0))
    tracker.apply([str(p)])
    index.update(lib)
    asked: list[str] = []
    real = lib.catalog.index_state
    lib.catalog.index_state = lambda path: asked.append(path) or real(path)
    for i in range(1, 4):
        with open(p, "ab") as fh:
            fh.write(line(f"append number{i}", i))
        tracker.apply([str(p)])
        assert index.update(lib, paths=tracker.take_changed()).docs_added == 1
    assert asked == [str(p)]  # once: after that, what this index last wrote
    assert index._live_states[str(p)] == real(str(p))  # ... which is what the catalog says
    assert len(index.search("number1 OR number2 OR number3").hits) == 3
    os.unlink(p)
    tracker.apply([str(p)])
    assert index.update(lib, paths=tracker.take_changed()).files_dropped == 1
    assert index._live_states[str(p)] is None and real(str(p)) is None
    index.update(lib)  # a full pass forgets them
    assert index._live_states == {}


def test_a_grown_file_gets_the_row_a_whole_read_gives_from_the_tracker(setup) -> None:  # noqa: ANN001
    """The app's watcher reads on with what the catalog carried: the row it writes is the one a
    whole read gives (a Claude title record and a split reply's tokens count), and the next
    command reads on from it rather than whole."""
    root, lib, tracker, index = setup
    p = root / "0f0e0d0c-0000-4000-8000-000000000001.jsonl"

    def rec(uuid: str, parent: str | None, kind: str, content: object, **more: object) -> bytes:
        return orjson.dumps({"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": "s",
                             "timestamp": T0.isoformat(), "message": {"role": kind, "content": content, **more},
                             "requestId": "r1"}) + b"\n"

    usage = {"input_tokens": 10, "output_tokens": 1}
    p.write_bytes(rec("u1", None, "user", "the prompt") + rec("a1", "u1", "assistant", [{"type": "text", "text": "a"}],
                                                               id="m1", usage=usage))
    tracker.apply([str(p)])
    with open(p, "ab") as fh:
        fh.write(rec("a2", "a1", "assistant", [{"type": "text", "text": "b"}], id="m1", usage={**usage, "output_tokens": 50})
                 + orjson.dumps({"type": "custom-title", "customTitle": "Renamed", "sessionId": "s"}) + b"\n")
    (ev,) = tracker.apply([str(p)])
    assert ev.kind is Change.GREW
    whole = Library(lib.roots, catalog=Catalog(None))
    whole.scan()
    [s] = whole.all_sessions()
    assert lib.all_sessions() == [s] and (s.title, s.usage.output, s.entry_count) == ("Renamed", 50, 2)
    row = lib.catalog.get(str(p))
    assert row.read_end == p.stat().st_size and lib.catalog.carried(str(p), row.read_end) is not None


def test_the_catch_up_pass_reads_the_library_under_the_lock(setup, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: ANN001
    # (a lazy scan's rows are decoded when first asked for: the MCP server answers a call under the
    # same lock meanwhile, and a decode beside it left the call a half-made session map)
    root, lib, _, _ = setup
    (root / "s.jsonl").write_bytes(head("s1") + line("one", 1))
    lib.scan()
    lock = threading.RLock()
    held: list[bool] = []
    rows = Library.rows
    monkeypatch.setattr(Library, "rows", property(lambda self: held.append(lock._is_owned()) or rows.fget(self),
                                                  rows.fset))
    watcher = Watcher(lib, lock=lock)
    thread = threading.Thread(target=lambda: [None for _ in watcher.batches()], daemon=True)
    thread.start()
    try:
        assert watcher.caught_up.wait(10)
    finally:
        watcher.stop.set()
        thread.join(10)
    assert held and all(held), held


def _watch(watcher: Watcher) -> tuple[threading.Thread, queue.Queue]:
    return watching(watcher, caught_up=True)  # (what follows is the watch's to see)


def _events_until(got: queue.Queue, done) -> list:  # noqa: ANN001
    seen: list = []
    while not done(seen):
        seen.extend(got.get(timeout=10))
    return seen


_READERS = [pytest.param(False, id="inotify", marks=pytest.mark.skipif(not sys.platform.startswith("linux"),
                                                                       reason="inotify")),
            pytest.param(True, id="poll")]


@pytest.mark.parametrize("poll", _READERS)
def test_an_opencode_database_root_is_watched_with_its_log(tmp_path: Path, poll: bool) -> None:
    """A database root (a file) is watched through its folder, alone: a session OpenCode commits
    to its write-ahead log (the database file unchanged) comes as the database's event; other
    files of the folder and a folder made in it say nothing. By inotify and by the poller."""
    import sqlite3

    sys.path.insert(0, str(Path(__file__).parent))
    from test_more_agents import make_db

    folder = tmp_path / "opencode"
    folder.mkdir()
    db = make_db(folder)
    lib = Library([Root(str(db), "opencode")], catalog=Catalog(tmp_path / "c.sqlite"))
    lib.scan()
    before = {s.id for s in lib.all_sessions()}
    day_ago = datetime.now().timestamp() - 86_400  # (a folder long quiet: the poller still looks at it often)
    for p in (db, folder):
        os.utime(p, (day_ago, day_ago))
    watcher = Watcher(lib, poll=poll)
    assert watcher.paths == [] and list(watcher.flat) == [str(folder)]
    watcher.db_min_s = watcher.db_cost_ratio = 0  # (not about the hold: on a loaded machine 10x a read is long)
    writer = sqlite3.connect(db)
    thread, got = _watch(watcher)
    try:
        writer.execute("PRAGMA journal_mode=WAL")
        writer.execute("PRAGMA wal_autocheckpoint=0")
        (folder / "opencode.log").write_text("noise")
        (folder / "sub").mkdir()
        (folder / "sub" / "x.db").write_bytes(b"")
        writer.execute("INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated)"
                       " SELECT 'ses_live', project_id, slug, directory, 'made live', version, time_created + 1,"
                       " time_updated + 1 FROM session LIMIT 1")
        writer.commit()
        seen = _events_until(got, lambda evs: any("ses_live" in {s.id for s in e.sessions} for e in evs))
        assert {e.path for e in seen} == {str(db)}
        assert {s.id for s in lib.all_sessions()} == before | {"ses_live"}
    finally:
        watcher.stop.set()
        thread.join(10)
        writer.close()
    assert not thread.is_alive()


@pytest.mark.parametrize("poll", _READERS)
def test_a_project_folder_root_is_watched_alone_for_the_files_kept_there(tmp_path: Path, poll: bool,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """A shallow root (a project folder holding Aider's history): the history growing comes as
    its event; the project's own files, and a folder made in it, are not looked at. By inotify
    and by the poller."""
    import shutil

    from helpers import DATA
    from sessionscope.core.read.discovery import PROJECT

    monkeypatch.delenv("AIDER_CHAT_HISTORY_FILE", raising=False)
    proj = tmp_path / "shop"
    shutil.copytree(DATA / "aider" / "shop", proj)
    history = proj / ".aider.chat.history.md"
    lib = Library([Root(str(proj), PROJECT, shallow=True)], catalog=Catalog(tmp_path / "c.sqlite"))
    lib.scan()
    count = len(lib.all_sessions())
    watcher = Watcher(lib, poll=poll)
    assert list(watcher.flat) == [str(proj)]
    thread, got = _watch(watcher)
    try:
        (proj / "README.md").write_text("# shop\n")
        (proj / "src").mkdir()
        (proj / "src" / ".aider.chat.history.md").write_text("# aider chat started at 2026-11-02 10:00:00\n")
        with open(history, "a") as fh:
            fh.write("\n# aider chat started at 2026-11-03 09:00:00\n\n#### add a refund\n\nDone.\n")
        seen = _events_until(got, lambda evs: len(lib.all_sessions()) > count)
        assert {e.path for e in seen} == {str(history)}
    finally:
        watcher.stop.set()
        thread.join(10)
    assert not thread.is_alive()


def test_changes_are_taken_as_the_tracker_reads_them() -> None:
    """`Watcher._wanted`: a database's log is the database; in a folder watched alone, only the
    names that matter there; elsewhere everything."""
    w = Watcher.__new__(Watcher)
    w.flat = {"/p": (frozenset({"opencode.db"}), ()), "/proj": (frozenset(), (".aider.chat.history.md",))}
    assert w._wanted({"/p/opencode.db-wal", "/p/opencode.db", "/p/other.txt", "/p/opencode.db-shm"}) == {"/p/opencode.db"}
    assert w._wanted({"/proj/.aider.chat.history.md", "/proj/README.md"}) == {"/proj/.aider.chat.history.md"}
    assert w._wanted({"/tree/a.jsonl", "/tree/x.db-wal"}) == {"/tree/a.jsonl", "/tree/x.db"}


def test_a_database_read_again_too_soon_is_held_back_then_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """OpenCode writes its database at each message part while it streams: a database is read
    again at most every `db_min_s`, and at most DB_COST_RATIO times its last reading's time;
    what changes meanwhile is held and applied once, when its time comes (other files at once)."""
    from sessionscope.core.live import watch

    now = [100.0]
    monkeypatch.setattr(watch.time, "monotonic", lambda: now[0])
    w = Watcher.__new__(Watcher)
    w.db_min_s, w.db_cost_ratio, w._db_next, w._held, w._wake_at = 3.0, watch.DB_COST_RATIO, {}, set(), None
    assert w._hold_databases({"/o/opencode.db", "/c/a.jsonl"}) == {"/o/opencode.db", "/c/a.jsonl"}
    w._databases_read({"/o/opencode.db", "/c/a.jsonl"}, 0.5)  # (a slow read: 10 x 0.5 s)
    assert w._db_next == {"/o/opencode.db": 105.0}
    now[0] = 101.0
    assert w._hold_databases({"/o/opencode.db", "/c/b.jsonl"}) == {"/c/b.jsonl"}
    assert w._held == {"/o/opencode.db"} and w._wake_at == 105.0
    assert w._hold_databases({"/o/opencode.db"}) == set()  # (changed again: still one held)
    now[0] = 105.0
    assert w._hold_databases(set()) == {"/o/opencode.db"}
    assert w._held == set() and w._wake_at is None
    w._databases_read({"/o/opencode.db"}, 0.01)
    assert w._db_next["/o/opencode.db"] == 108.0  # (at least db_min_s)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify")
def test_a_held_database_change_is_applied_when_its_time_comes(tmp_path: Path) -> None:
    """Two commits in a row: the first read at once, the second held, then read (the inotify
    reader wakes for it with nothing else happening)."""
    import sqlite3

    sys.path.insert(0, str(Path(__file__).parent))
    from test_more_agents import make_db

    db = make_db(tmp_path)
    lib = Library([Root(str(db), "opencode")], catalog=Catalog(tmp_path / "c.sqlite"))
    lib.scan()
    watcher = Watcher(lib)
    watcher.db_min_s, watcher.db_cost_ratio = 0.3, 0  # (a hold of its own length, whatever the load)
    writer = sqlite3.connect(db)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("PRAGMA wal_autocheckpoint=0")
    thread, got = _watch(watcher)

    def add(sid: str) -> None:
        writer.execute("INSERT INTO session (id, project_id, slug, directory, title, version, time_created, time_updated)"
                       f" SELECT '{sid}', project_id, slug, directory, '{sid}', version, time_created + 1,"
                       " time_updated + 1 FROM session LIMIT 1")
        writer.commit()

    try:
        add("ses_one")
        _events_until(got, lambda evs: any("ses_one" in {s.id for s in e.sessions} for e in evs))
        add("ses_two")
        _events_until(got, lambda evs: any("ses_two" in {s.id for s in e.sessions} for e in evs))
    finally:
        watcher.stop.set()
        thread.join(10)
        writer.close()
    assert not thread.is_alive()
