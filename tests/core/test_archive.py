"""`sessionscope archive` in core (core/archive.py): incremental runs, hard links and compressed
copies, the archive read back as roots (a live copy wins; a deleted one is still read), rewrites,
a full disk, and never a write into an agent's folder."""
from __future__ import annotations

import errno
import gzip
import os
import shutil
from pathlib import Path

import pytest
from helpers import DATA, write_session
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sessionscope.core import archive as archive_mod
from sessionscope.core.archive import ArchiveError, run_archive
from sessionscope.core.catalog.library import Library
from sessionscope.core.catalog.store import Catalog
from sessionscope.core.live.tracker import Tracker
from sessionscope.core.read.discovery import ARCHIVE, Root, archive_roots, mirror_path
from sessionscope.core.read.jsonl import GZIP_MAGIC
from sessionscope.core.search.index import SearchIndex


class World:
    """A home with a Claude Code root (a session-logs transcript in it is read all the same) and
    a Codex root, and an archive folder outside them."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.home = tmp / "home"
        self.claude = self.home / ".claude" / "projects"
        self.codex = self.home / ".codex" / "sessions"
        self.archive = tmp / "data" / "archive"
        self.claude.mkdir(parents=True)
        self.codex.mkdir(parents=True)
        self.catalog = Catalog(tmp / "catalog.sqlite")

    @property
    def live(self) -> list[Root]:
        return [Root(str(self.claude), "claude-code"), Root(str(self.codex), "codex")]

    def run(self, **kw: object):  # noqa: ANN201
        return run_archive(self.live, self.archive, home=str(self.home), **kw)

    def library(self) -> Library:
        lib = Library(self.live + archive_roots(self.archive), catalog=self.catalog)
        lib.scan()
        return lib

    def mirror(self, path: Path) -> Path:
        return Path(mirror_path(str(self.archive), str(path), str(self.home)))


@pytest.fixture
def world(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> World:
    w = World(tmp_path)
    monkeypatch.setenv("HOME", str(w.home))
    return w


def _content(path: Path) -> bytes:
    data = path.read_bytes()
    return gzip.decompress(data) if data[:2] == GZIP_MAGIC else data


def _sessions(world: World, n: int = 3) -> list[Path]:
    paths = []
    for i in range(n):
        p = world.claude / "-home-u-proj" / f"s{i}.jsonl"
        write_session(p, f"sess-{i}", [f"alpha{i} question", f"beta{i} answer"], project="/home/u/proj", day=i + 1)
        paths.append(p)
    return paths


def _no_link(monkeypatch: pytest.MonkeyPatch) -> None:
    """As on another file system: every hard link fails with EXDEV."""
    def link(src: object, dst: object, **kw: object) -> None:
        raise OSError(errno.EXDEV, "Invalid cross-device link")

    monkeypatch.setattr(os, "link", link)


def test_first_run_links_every_file_and_a_second_run_only_stats(world: World) -> None:
    paths = _sessions(world)
    first = world.run()
    assert (first.new, first.updated, first.unchanged, first.linked) == (3, 0, 0, 3)
    assert first.bytes == sum(p.stat().st_size for p in paths) and first.bytes_written == 0
    for p in paths:
        assert world.mirror(p).stat().st_ino == p.stat().st_ino  # the same file: no byte copied
    again = world.run()
    assert (again.new, again.updated, again.unchanged, again.bytes, again.linked) == (0, 0, 3, 0, 0)


@pytest.mark.parametrize("how", ["option", "link fails"])
def test_without_links_a_transcript_is_a_compressed_copy_read_back_unchanged(
        world: World, monkeypatch: pytest.MonkeyPatch, how: str) -> None:
    paths = _sessions(world)
    if how == "link fails":
        _no_link(monkeypatch)
    report = world.run(link=how != "option")
    assert (report.new, report.compressed, report.linked) == (3, 3, 0)
    for p in paths:
        copy = world.mirror(p)
        assert copy.read_bytes()[:2] == GZIP_MAGIC and copy.stat().st_ino != p.stat().st_ino
        assert _content(copy) == p.read_bytes()
    assert report.bytes_written < report.bytes
    assert world.run(link=how != "option").unchanged == 3
    # The archive alone, read as roots: the same sessions and entries as the live files give.
    live = Library(world.live, catalog=Catalog(None))
    live.scan()
    kept = Library(archive_roots(world.archive), catalog=Catalog(None))
    kept.scan()
    assert sorted(s.id for s in kept.all_sessions()) == sorted(s.id for s in live.all_sessions())
    for s in live.all_sessions():
        assert [e.text for e in kept.load(kept.get(s.id)).entries] == [e.text for e in live.load(s).entries]


@pytest.mark.parametrize("link", [True, False])
def test_a_session_is_listed_once_and_still_read_and_found_after_its_agent_deleted_it(
        world: World, tmp_path: Path, link: bool) -> None:
    paths = _sessions(world)
    world.run(link=link)
    lib = world.library()
    assert sorted(s.id for s in lib.sessions()) == ["sess-0", "sess-1", "sess-2"]
    assert all(s.path.startswith(str(world.claude)) for s in lib.sessions())  # the live copy wins
    index = SearchIndex(tmp_path / "index")
    index.update(lib)
    assert [h.session_id for h in index.search("alpha1").hits] == ["sess-1"]  # once, not twice
    paths[1].unlink()  # Claude Code's cleanup
    lib.scan()
    index.update(lib)
    s = lib.find("sess-1")
    assert s.path == str(world.mirror(paths[1]))
    assert [e.text for e in lib.load(s).entries][:2] == ["alpha1 question", "beta1 answer"]
    assert [(h.session_id, h.locator.path) for h in index.search("alpha1").hits] == [("sess-1", s.path)]
    assert len(lib.sessions()) == 3
    index.close()


def test_the_live_copy_wins_even_where_the_archived_one_is_larger_and_elsewhere(
        world: World, tmp_path: Path) -> None:
    paths = [world.claude / "-home-u-proj" / "s0.jsonl"]
    write_session(paths[0], "sess-0", [os.urandom(2000).hex() + " alpha0" for _ in range(4)], project="/home/u/proj")
    world.run(link=False)
    # the session moved (a project folder renamed; Codex moves old sessions to archived_sessions)
    # and was rewritten shorter, and the archive has not run since: both copies are read
    moved = world.claude / "-home-u-renamed" / "s0.jsonl"
    write_session(moved, "sess-0", ["alpha0 short"], project="/home/u/proj")
    paths[0].unlink()
    lib = world.library()
    assert world.mirror(paths[0]).stat().st_size > moved.stat().st_size
    assert [(s.id, s.path) for s in lib.sessions()] == [("sess-0", str(moved))]
    assert [e.text for e in lib.load(lib.get("sess-0")).entries] == ["alpha0 short"]
    index = SearchIndex(tmp_path / "index")
    index.update(lib)
    assert [h.locator.path for h in index.search("alpha0").hits] == [str(moved)]  # the archived copy is not indexed
    index.close()


def test_an_aider_history_copied_is_listed_once_beside_its_live_file(world: World, tmp_path: Path) -> None:
    project = world.home / "src" / "dash"
    shutil.copytree(DATA / "aider" / "shop", project)
    roots = [Root(str(project), "project", shallow=True)]
    live = Library(roots, catalog=Catalog(None))
    live.scan()
    assert live.sessions()
    run_archive(roots, world.archive, home=str(world.home), link=False)
    both = Library(roots + archive_roots(world.archive), catalog=Catalog(None))
    both.scan()
    assert sorted(s.id for s in both.sessions()) == sorted(s.id for s in live.sessions())
    for f in project.glob(".aider.chat.history.md"):
        f.unlink()
    both.scan()
    assert len(both.sessions()) == len(live.sessions())


def test_a_watcher_reads_the_archived_copy_of_a_file_it_sees_deleted(world: World) -> None:
    paths = _sessions(world, 2)
    world.run()
    lib = world.library()
    tracker = Tracker(lib)
    paths[0].unlink()
    tracker.apply([str(paths[0])])
    assert lib.get("sess-0") is not None and lib.get("sess-0").path == str(world.mirror(paths[0]))
    assert str(world.mirror(paths[0])) in tracker.take_changed()  # (so a live index takes it in)


def test_a_grown_file_updates_its_copy_and_a_rewritten_one_replaces_its_link(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    paths = _sessions(world, 2)
    world.run(link=False)
    with paths[0].open("a") as fh:
        fh.write('{"role": "user", "content": "gamma grown", "timestamp": "2026-03-01T11:00:00Z"}\n')
    grown = world.run(link=False)
    assert (grown.new, grown.updated, grown.unchanged) == (0, 1, 1)
    assert _content(world.mirror(paths[0])) == paths[0].read_bytes()
    # linked now: a rewrite (a new file renamed over the old, as agents save) is a new inode
    other = World.__new__(World)
    other.__dict__.update(world.__dict__, archive=world.tmp / "linked")
    other.run()
    tmp = paths[1].with_suffix(".new")
    tmp.write_bytes(paths[1].read_bytes().replace(b"beta1", b"delta1"))
    os.replace(tmp, paths[1])
    rewritten = other.run()
    assert (rewritten.updated, rewritten.linked, rewritten.unchanged) == (1, 1, 1)
    assert other.mirror(paths[1]).stat().st_ino == paths[1].stat().st_ino
    assert b"delta1" in other.mirror(paths[1]).read_bytes()


def test_a_full_disk_is_one_clear_error_leaves_no_half_file_and_the_next_run_completes(
        world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    paths = _sessions(world, 3)
    real = archive_mod._copy
    calls = []

    def full(src: str, out: object, gz: bool) -> int:
        calls.append(src)
        if len(calls) == 2:
            out.write(b"\x1f\x8b half a stream")  # type: ignore[attr-defined]
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(src, out, gz)

    monkeypatch.setattr(archive_mod, "_copy", full)
    with pytest.raises(ArchiveError, match="no space left on the device") as caught:
        world.run(link=False)
    assert "\n" not in str(caught.value)
    copies = [world.mirror(p) for p in paths]
    # the first copied, the second not (nothing half-written under a real name), the third not tried
    assert [world.mirror(Path(c)).exists() for c in calls] == [True, False]
    assert sum(c.exists() for c in copies) == 1
    assert not list((world.archive / ".tmp").glob("*"))
    monkeypatch.setattr(archive_mod, "_copy", real)
    done = world.run(link=False)
    assert (done.new, done.unchanged) == (2, 1)
    assert [_content(c) for c in copies] == [p.read_bytes() for p in paths]


def test_what_a_killed_run_left_in_the_temp_folder_is_never_read_and_is_cleared(world: World) -> None:
    _sessions(world, 1)
    world.run(link=False)
    junk = world.archive / ".tmp" / "123-456"
    junk.parent.mkdir(exist_ok=True)
    junk.write_bytes(b'{"session_id": "half')
    assert [s.id for s in world.library().all_sessions()] == ["sess-0"]
    world.run(link=False)
    assert not junk.exists()


def _tree(folder: Path) -> dict[str, tuple[int, int, int]]:
    return {str(p): (p.stat().st_ino, p.stat().st_size, p.stat().st_mtime_ns)
            for p in sorted(folder.rglob("*"))}


@pytest.mark.parametrize("link", [True, False])
def test_nothing_is_written_into_the_agents_folders(world: World, link: bool) -> None:
    _sessions(world)
    shutil.copytree(DATA / "subagents" / "sibling", world.claude / "sib")
    (world.codex / "2026" / "03").mkdir(parents=True)
    write_session(world.codex / "2026" / "03" / "r.jsonl", "codex-ish", ["hello"])
    before = _tree(world.home)
    world.run(link=link)
    world.run(link=link)
    world.library()
    assert _tree(world.home) == before


def test_the_archive_may_not_be_inside_a_root(world: World) -> None:
    _sessions(world, 1)
    with pytest.raises(ArchiveError, match="inside the root"):
        run_archive(world.live, world.claude / "archive", home=str(world.home))
    assert not (world.claude / "archive").exists()


def test_subagent_files_and_their_meta_are_archived_and_linked_to_their_parent(world: World) -> None:
    shutil.copytree(DATA / "subagents" / "sibling", world.claude / "sib")
    live = Library(world.live, catalog=Catalog(None))
    live.scan()
    run_archive(world.live, world.archive, home=str(world.home), link=False)
    shutil.rmtree(world.claude / "sib")
    kept = world.library()
    assert sorted((s.id, s.child_ids) for s in kept.all_sessions()) == \
        sorted((s.id, s.child_ids) for s in live.all_sessions())
    metas = sorted(p.name for p in (world.claude.parent).rglob("*.meta.json"))
    assert metas == sorted(p.name for p in world.archive.rglob("*.meta.json"))


def test_the_manifest_names_only_folders_inside_the_archive(world: World) -> None:
    _sessions(world, 1)
    world.run()
    (world.archive / "roots.json").write_text('{"roots": [{"mirror": "../../home"}, {"mirror": "/etc"}, '
                                              '{"mirror": "home/.claude/projects"}]}')
    assert [(r.path, r.origin) for r in archive_roots(world.archive)] == [
        (str(world.archive / "home" / ".claude" / "projects"), ARCHIVE)]


OPS = st.lists(st.tuples(st.sampled_from(["append", "rewrite", "delete", "new", "archive"]),
                         st.integers(0, 3)), max_size=12)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(ops=OPS, link=st.booleans())
def test_after_any_history_each_archived_file_holds_what_its_file_last_held(
        tmp_path_factory: pytest.TempPathFactory, ops: list[tuple[str, int]], link: bool) -> None:
    world = World(tmp_path_factory.mktemp("h"))
    folder = world.claude / "p"
    folder.mkdir()
    last: dict[Path, bytes] = {}  # each file's content at the last archive run
    made = 0

    def archive() -> None:
        report = world.run(link=link)
        assert report.new + report.updated + report.unchanged == len(list(folder.iterdir()))
        for p in folder.iterdir():
            last[p] = p.read_bytes()
        again = world.run(link=link)
        assert (again.new, again.updated) == (0, 0)

    for op, n in ops + [("archive", 0)]:
        files = sorted(folder.iterdir())
        target = files[n % len(files)] if files else None
        if op == "new" or target is None and op != "archive":
            made += 1
            write_session(folder / f"f{made}.jsonl", f"id{made}", [f"t{made}"])
        elif op == "append":
            with target.open("a") as fh:
                fh.write('{"role": "user", "content": "more"}\n')
        elif op == "rewrite":
            new = target.with_suffix(".tmp")
            new.write_bytes(target.read_bytes() + b'{"role": "assistant", "content": "redo"}\n')
            os.replace(new, target)
        elif op == "delete":
            target.unlink()
        else:
            archive()
    for p, content in last.items():
        kept = _content(world.mirror(p))
        if p.exists():  # (the last op archived it)
            assert kept == p.read_bytes()
        elif link:  # the link is the file the agent deleted: what it held then (appends on the last run's)
            assert kept.startswith(content)
        else:
            assert kept == content


def test_a_file_that_only_begins_like_gzip_is_read_as_it_is(tmp_path: Path) -> None:
    from sessionscope.core.read.jsonl import RecordFile, read_head_tail

    path = tmp_path / "odd.jsonl"
    path.write_bytes(GZIP_MAGIC + b'\x08 not a stream\n{"a": 1}\n')
    with RecordFile(str(path)) as rf:
        assert bytes(rf.buffer) == path.read_bytes() and not rf.decompressed
    assert read_head_tail(str(path)).head == path.read_bytes()
    good = tmp_path / "good.jsonl"
    good.write_bytes(gzip.compress(b'{"a": 1}\n{"b": 2}\n'))
    with RecordFile(str(good)) as rf:
        assert [r.data for r in rf.iter_lines()] == [b'{"a": 1}', b'{"b": 2}'] and rf.decompressed
    assert read_head_tail(str(good)).head == b'{"a": 1}\n{"b": 2}\n'
