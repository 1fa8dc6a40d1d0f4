"""A warm scan from the last scan's snapshot (core/catalog/warm.py): when no folder or file under
the roots changed it walks nothing and reads no row, and says what a walk says; every change a
walk would see (a new, removed or renamed file or folder, a new subfolder in an unchanged
parent, growth, a chmod, a hard link, an archived copy, a link, an unreadable folder, a root
gone) makes it walk."""
from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path

import orjson
import pytest

from helpers import DATA, assert_same, both, claude_record as claude, roots_of, v6, write_records as write
from sessionscope.core.catalog import store, warm
from sessionscope.core.catalog.library import Library
from sessionscope.core.catalog.store import Catalog
from sessionscope.core.read import walk
from sessionscope.core.read.discovery import ARCHIVE, Root

A = "aaaaaaaa-0000-4000-8000-000000000001"
B = "bbbbbbbb-0000-4000-8000-000000000002"
C = "cccccccc-0000-4000-8000-000000000003"


@pytest.fixture(autouse=True)
def trusted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(walk, "LISTING_MARGIN_NS", -10**18)  # (folders trusted however recent)


class Spy:
    """Counts the walk's folder listings and the catalog's whole-row reads of one scan."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.walked = 0
        self.light = 0
        real_walk, real_light = walk.walk_files, store.Catalog.light

        def walk_files(*a, **k):  # type: ignore[no-untyped-def]
            self.walked += 1
            return real_walk(*a, **k)

        def light(cat):  # type: ignore[no-untyped-def]
            self.light += 1
            return real_light(cat)

        monkeypatch.setattr(walk, "walk_files", walk_files)
        monkeypatch.setattr(store.Catalog, "light", light)

    def warm(self) -> bool:
        """Whether the scans since the last call took the snapshot (no walk, no rows read)."""
        took = self.walked == 0 and self.light == 0
        self.walked = self.light = 0
        return took


def scan(roots: list[Root], cache: Path) -> Library:
    lib = Library(roots, catalog=Catalog(cache / "c.sqlite"))
    lib.scan(lazy=True)
    return lib


def whole(roots: list[Root], cache: Path) -> Library:
    """The same roots scanned as before any snapshot: every row decoded."""
    lib = Library(roots, catalog=Catalog(cache / "c.sqlite"))
    lib.scan()
    return lib


def tree(tmp_path: Path) -> Path:
    root = tmp_path / "projects"
    write(root / "p" / f"{A}.jsonl", [claude("a1", None, A, 1), claude("a2", "a1", A, 2, "assistant")])
    write(root / "p" / f"{B}.jsonl", [claude("b1", None, B, 5)])
    write(root / "p" / B / "subagents" / "agent-x1.jsonl",
          [dict(claude("s1", None, B, 6), isSidechain=True, agentId="x1")])
    return root


def test_an_unchanged_tree_is_neither_walked_nor_read_and_lists_as_a_walk(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folders = sorted(p for p in DATA.iterdir() if p.is_dir() and p.name not in ("brief", "memory"))
    roots = roots_of(*folders)
    spy = Spy(monkeypatch)
    whole(roots, tmp_path)
    db = sqlite3.connect(tmp_path / "c.sqlite")  # (a file the reader failed on, as the catalog keeps it)
    db.execute("UPDATE files SET error='could not be read (test)' WHERE rowid=(SELECT min(rowid) FROM files)")
    db.commit()
    db.close()
    full, lazy = both(roots, tmp_path)  # (its lazy scan is the warm one)
    spy.warm()
    lazy = scan(roots, tmp_path)
    assert spy.warm()
    assert_same(full, lazy)
    assert lazy.file_errors == full.file_errors and lazy.file_errors  # (the fixtures hold bad files)
    assert [r.path for r in lazy.rows.values()] == [r.path for r in full.rows.values()]
    assert lazy.all_sessions() == full.all_sessions()


@pytest.mark.parametrize("change", [
    "new file", "removed file", "renamed file", "new subfolder", "grown", "chmod", "renamed folder",
    "hard link", "moved in",
])
def test_each_change_a_walk_sees_is_seen(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: str) -> None:
    root = tree(tmp_path)
    roots = roots_of(root)
    spy = Spy(monkeypatch)
    scan(roots, tmp_path)
    scan(roots, tmp_path)
    spy.warm()
    assert sorted(scan(roots, tmp_path).session_ids()) == sorted([A, B, f"{B}/agent-x1"]) and spy.warm()
    p = root / "p"
    if change == "new file":
        write(p / f"{C}.jsonl", [claude("c1", None, C, 9)])
    elif change == "removed file":
        (p / f"{A}.jsonl").unlink()
    elif change == "renamed file":
        (p / f"{A}.jsonl").rename(p / f"{C}.jsonl")
    elif change == "new subfolder":  # (in a folder whose own parent is unchanged)
        write(p / B / "subagents" / "deeper" / "agent-x2.jsonl",
              [dict(claude("s2", None, B, 7), isSidechain=True, agentId="x2")])
    elif change == "grown":
        with (p / f"{A}.jsonl").open("a") as fh:
            fh.write(orjson_line(claude("a3", "a2", A, 3)))
    elif change == "chmod":
        os.chmod(p / f"{A}.jsonl", 0)
    elif change == "renamed folder":
        (p / B).rename(p / "other")
    elif change == "hard link":  # (the same file under another name: listed once, by its inode)
        (root / "q").mkdir()
        os.link(p / f"{A}.jsonl", root / "q" / f"{A}.jsonl")
    elif change == "moved in":  # a file replaced by another (new inode, same size and times)
        src = p / f"{B}.jsonl"
        copy = tmp_path / "copy.jsonl"
        shutil.copy2(src, copy)
        os.replace(copy, src)
    lib = scan(roots, tmp_path)
    assert not spy.warm()
    want = whole(roots, tmp_path)
    assert sorted(lib.session_ids()) == sorted(want.session_ids())
    assert lib.file_errors == want.file_errors
    for sid in want.session_ids():
        assert lib.get(sid) == want.get(sid)
    if os.geteuid() != 0 and change == "chmod":
        assert A not in lib.session_ids() and any("unreadable" in e for e in lib.file_errors.values())
    if change == "new file":
        assert C in lib.session_ids()
    # and the scan after it is warm again, with what it saw
    spy.warm()
    again = scan(roots, tmp_path)
    assert spy.warm() and sorted(again.session_ids()) == sorted(want.session_ids())


def orjson_line(rec: dict) -> str:
    import json

    return json.dumps(rec) + "\n"


def test_what_cannot_be_trusted_is_walked_each_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tree(tmp_path)
    roots = roots_of(root)
    spy = Spy(monkeypatch)
    (root / "loop").symlink_to(root)  # a folder holding a link (here a loop) is listed each time
    for _ in range(3):
        assert sorted(scan(roots, tmp_path).session_ids()) == sorted([A, B, f"{B}/agent-x1"])
        assert not spy.warm()
    (root / "loop").unlink()
    scan(roots, tmp_path)
    spy.warm()
    scan(roots, tmp_path)
    assert spy.warm()
    if os.geteuid() != 0:  # an unreadable folder: walked (and said) each time
        locked = root / "locked"
        locked.mkdir()
        os.chmod(locked, 0)
        try:
            for _ in range(2):
                lib = Library(roots, catalog=Catalog(tmp_path / "c.sqlite"))
                report = lib.scan(lazy=True)
                assert not spy.warm() and any("locked" in e for e in report.errors)
        finally:
            os.chmod(locked, 0o755)


def test_a_folder_changed_within_the_margin_is_not_trusted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tree(tmp_path)
    monkeypatch.setattr(walk, "LISTING_MARGIN_NS", 2_000_000_000)
    spy = Spy(monkeypatch)
    for _ in range(2):
        scan(roots_of(root), tmp_path)
        assert not spy.warm()  # (written just now: a change in the same tick would not show)


def test_a_root_gone_or_added_is_walked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tree(tmp_path)
    other = tmp_path / "other"
    write(other / f"{C}.jsonl", [claude("c1", None, C, 9)])
    roots = [*roots_of(root), *roots_of(other)]
    spy = Spy(monkeypatch)
    scan(roots, tmp_path)
    spy.warm()
    scan(roots, tmp_path)
    assert spy.warm()
    shutil.rmtree(other)
    lib = Library(roots, catalog=Catalog(tmp_path / "c.sqlite"))
    report = lib.scan(lazy=True)
    assert not spy.warm() and C not in lib.session_ids() and any("root not found" in e for e in report.errors)
    assert sorted(scan(roots_of(root), tmp_path).session_ids()) == sorted([A, B, f"{B}/agent-x1"])


def test_an_archived_copy_gives_way_to_the_live_file_when_warm(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    live = tree(tmp_path)
    mirror = tmp_path / "archive" / "projects"
    shutil.copytree(live, mirror)
    os.unlink(mirror / "p" / f"{B}.jsonl")
    os.link(live / "p" / f"{B}.jsonl", mirror / "p" / f"{B}.jsonl")  # (as `archive` links one)
    write(mirror / "p" / f"{C}.jsonl", [claude("c1", None, C, 9)])  # (its live file deleted)
    roots = [*roots_of(live), Root(str(mirror), ARCHIVE, source=str(live))]
    spy = Spy(monkeypatch)
    full = whole(roots, tmp_path)
    spy.warm()
    lib = scan(roots, tmp_path)
    assert spy.warm()
    assert sorted(lib.session_ids()) == sorted(full.session_ids()) and C in lib.session_ids()
    for sid in full.session_ids():
        assert lib.get(sid) == full.get(sid)
    assert str(live / "p" / f"{A}.jsonl") == lib.get(A).path


def test_a_snapshot_of_other_roots_or_a_damaged_one_is_not_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tree(tmp_path)
    spy = Spy(monkeypatch)
    scan(roots_of(root), tmp_path)
    scan(roots_of(root / "p"), tmp_path)  # (other roots: their own snapshot)
    spy.warm()
    scan(roots_of(root), tmp_path)
    scan(roots_of(root / "p"), tmp_path)
    assert spy.warm()
    db = sqlite3.connect(tmp_path / "c.sqlite")
    db.execute("UPDATE scans SET data=x'7b'")
    db.commit()
    db.close()
    assert sorted(scan(roots_of(root), tmp_path).session_ids()) == sorted([A, B, f"{B}/agent-x1"])
    assert not spy.warm()


def test_linked_keys_restored_are_the_keys_linked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import copy

    from sessionscope.core.catalog.keys import Keys, keys_of

    folders = sorted(p for p in DATA.iterdir() if p.is_dir() and p.name not in ("brief", "memory"))
    archived = (str(DATA / "subagents"),)  # (a copy in an "archive" ranks below a live one)
    for chosen in (folders, [f for f in folders if f.name != "gemini"]):
        lib = whole(roots_of(*chosen), tmp_path)
        rows = list(lib.rows.values())
        paths = [r.path for r in rows]
        keys = [k for _, k in keys_of(rows)]
        linked = Keys(zip(paths, copy.deepcopy(keys)), archived)
        state = linked.state({p: n for n, p in enumerate(paths)})
        if any(k[1] == "gemini-cli" for ks in keys for k in ks):
            assert state is None  # (projects named by linking: linked again)
            continue
        assert state is not None
        again = Keys.restore(paths, copy.deepcopy(keys), orjson.loads(orjson.dumps(state)))
        assert again.by_id == linked.by_id and again.where == linked.where and again.kids == linked.kids
        assert again.newest_first() == linked.newest_first()
        for args in ({}, {"agent": "codex"}, {"orphans": False}):
            assert again.top_level(**args) == linked.top_level(**args)
        assert [again.children(s) for s in again.ids()] == [linked.children(s) for s in linked.ids()]
    # and a warm scan restores them: as the walk's
    roots = roots_of(*[f for f in folders if f.name != "gemini"])
    spy = Spy(monkeypatch)
    full = whole(roots, tmp_path)
    spy.warm()
    lazy = scan(roots, tmp_path)
    assert spy.warm()
    assert_same(full, lazy)


def test_with_the_default_roots_the_projects_folders_are_looked_in_when_warm(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # (an Aider history in a project folder named by a session: found by the walk and when warm,
    # and a project named by a session added since is looked in too)
    root = tmp_path / "projects"
    proj = tmp_path / "w" / "proj"
    (proj).mkdir(parents=True)
    shutil.copy(DATA / "aider" / "shop" / ".aider.chat.history.md", proj / ".aider.chat.history.md")
    rec = lambda *a: dict(claude(*a), cwd=str(proj))  # noqa: E731
    write(root / "p" / f"{A}.jsonl", [rec("a1", None, A, 1)])
    roots = [Root(str(root), "claude-code")]  # (a default root: projects looked in)
    spy = Spy(monkeypatch)
    whole(list(roots), tmp_path)
    full = whole(list(roots), tmp_path)  # (the second scan knows the session's project from the catalog)
    assert any(s.agent == "aider" for s in full.all_sessions())
    spy.warm()
    lazy = scan(list(roots), tmp_path)
    assert spy.warm() and sorted(lazy.session_ids()) == sorted(full.session_ids())
    other = tmp_path / "w" / "other"
    other.mkdir()
    shutil.copy(proj / ".aider.chat.history.md", other / ".aider.chat.history.md")
    write(tmp_path / "q" / f"{B}.jsonl", [dict(claude("b1", None, B, 5), cwd=str(other))])
    scan(roots_of(tmp_path / "q"), tmp_path)  # another root's scan adds a row naming `other`
    spy.warm()
    lazy = scan(list(roots), tmp_path)
    want = whole(list(roots), tmp_path)
    assert sorted(lazy.session_ids()) == sorted(want.session_ids())
    assert any(s.agent == "aider" and s.path.startswith(str(other)) for s in want.all_sessions())


def test_a_migrated_catalog_scanned_whole_gets_its_keys_and_is_warm_next(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # (a schema-6 catalog read only by `search`, whose scan decodes every row: its keys made once)
    root = tree(tmp_path)
    roots = roots_of(root)
    whole(roots, tmp_path)
    v6(tmp_path / "c.sqlite")
    whole(roots, tmp_path)
    assert Catalog(tmp_path / "c.sqlite").complete_keys()
    spy = Spy(monkeypatch)
    lazy = scan(roots, tmp_path)
    assert spy.warm() and sorted(lazy.session_ids()) == sorted([A, B, f"{B}/agent-x1"])


# -- the listing's head: a warm unfiltered listing reads no key (core/catalog/keys.py WarmKeys) ---
class KeyReads:
    """Counts the reads of a snapshot's keys (the catalog's `scan_parts`)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.reads = 0
        real = store.Catalog.warm_part

        def warm_part(cat, sig, token, part):  # type: ignore[no-untyped-def]
            self.reads += part == "keys"
            return real(cat, sig, token, part)

        monkeypatch.setattr(store.Catalog, "warm_part", warm_part)


def _listing(lib: Library, n: int, **args: bool) -> tuple[list[dict], set[str], int]:
    top, orphans = lib.top_level(**args)
    return [s.to_dict() for s in top[:n]], orphans, len(top)


@pytest.mark.parametrize("head", [100, 2])
def test_a_warm_listing_is_answered_from_its_head_as_from_every_key(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, head: int) -> None:
    from sessionscope.core.catalog import library
    from sessionscope.core.format import short_ids

    monkeypatch.setattr(library, "LISTING_HEAD", head)
    # every fixture format but Gemini's (whose projects linking names: no head), with orphans
    # (a subagent file without its parent, a Codex exec run), children, several sessions a file
    folders = sorted(p for p in DATA.iterdir() if p.is_dir() and p.name not in ("brief", "memory", "gemini"))
    lost = tmp_path / "lost"
    write(lost / "p" / C / "subagents" / "agent-lost.jsonl",
          [dict(claude("o1", None, C, 7), isSidechain=True, agentId="lost")])
    roots = roots_of(*folders, lost)
    whole(roots, tmp_path)
    full = whole(roots, tmp_path)  # (from the catalog: its times to the ms, as the warm scan's)
    reads = KeyReads(monkeypatch)
    lazy = scan(roots, tmp_path)
    n = 2 if head == 2 else 5
    for args in ({}, {"orphans": False}):
        got = _listing(lazy, n, **args)
        assert got == _listing(full, n, **args), args
    orphans = full.top_level()[1]
    assert orphans and {o: lazy.kind_of(o) for o in orphans} == {o: full.kind_of(o) for o in orphans}
    listed = [s.id for s in full.top_level()[0][:n]]
    assert lazy.short_ids(listed) == short_ids(full.session_ids(), only=listed)
    # any session's short id (a search's hits), and one the library does not hold, from the ids'
    # heads the scan kept
    every = [*full.session_ids(), "0a1b2c3d-ffff-4000-8000-000000000000", f"{C[:10]}/agent-x"]
    assert lazy.short_ids(every) == short_ids(every, only=every)
    if head == 100:
        assert reads.reads == 0 and lazy.lazy  # (the whole listing, its orphans and short ids: no key read)
    # asking for more than the head reads every key once, with the same answers
    for args in ({}, {"orphans": False}):
        top_f, top_l = full.top_level(**args)[0], lazy.top_level(**args)[0]
        assert [s.id for s in top_l] == [s.id for s in top_f]
        assert [top_l[i].id for i in (-1, -len(top_f), len(top_f) - 1)] == [top_f[i].id for i in (-1, -len(top_f), len(top_f) - 1)]
        assert [s.id for s in top_l[n - 1:n + 3]] == [s.id for s in top_f[n - 1:n + 3]]
        with pytest.raises(IndexError):
            top_l[len(top_f)]
    assert reads.reads == 1
    assert_same(full, lazy)


def test_keys_of_a_snapshot_replaced_since_are_read_from_the_rows(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # (another process scanned and replaced the snapshot, or its keys are damaged, between this
    # scan's comparison and the first key it needs: the catalog's rows give them, linked again)
    root = tree(tmp_path)
    write(root / "q" / C / "subagents" / "agent-lost.jsonl",
          [dict(claude("o1", None, C, 7), isSidechain=True, agentId="lost")])
    roots = roots_of(root)
    whole(roots, tmp_path)
    full = whole(roots, tmp_path)
    for damage in ("DELETE FROM scan_parts", "UPDATE scan_parts SET keys=x'7b'"):
        lazy = scan(roots, tmp_path)
        db = sqlite3.connect(tmp_path / "c.sqlite")
        db.execute(damage)
        db.commit()
        db.close()
        assert sorted(lazy.session_ids()) == sorted(full.session_ids())
        assert_same(full, lazy)
        whole(roots, tmp_path)  # (a snapshot again)


def test_a_primed_warm_scan_is_used_once_and_a_scan_in_between_drops_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`prime_warm` (a command runs it before opening the index): the next `scan_warm` answers its
    outcome without comparing the stats again, once; a `scan` in between, or a later call,
    compares them again. A primed "not warm" answers None at once."""
    root = tree(tmp_path)
    roots = roots_of(root)
    scan(roots, tmp_path)  # (the snapshot)
    compared = []
    real = warm.same_stats
    monkeypatch.setattr(warm, "same_stats", lambda *a, **k: compared.append(len(a[0])) or real(*a, **k))
    lib = Library(roots, catalog=Catalog(tmp_path / "c.sqlite"))
    lib.prime_warm()
    primed = len(compared)
    assert primed == 1  # (the files and the folders, in one comparison)
    told = []
    report = lib.scan_warm(lambda *done: told.append(done))  # (a progress bar is told what the primed scan saw)
    assert report is not None and report.files == 3 and len(compared) == primed
    assert len(told) == 1 and told[0][:2] == (3, 3) and told[0][2] == told[0][3] > 0
    assert lib.scan_warm() is not None and len(compared) == 2 * primed
    lib.prime_warm()
    lib.scan(lazy=True)
    assert len(compared) == 4 * primed
    assert lib.scan_warm() is not None and len(compared) == 5 * primed
    write(root / "p" / f"{C}.jsonl", [claude("c1", None, C, 9)])  # (a change: not warm)
    lib.prime_warm()
    seen = len(compared)
    assert lib.scan_warm() is None and len(compared) == seen


def _snapshot_files(tmp_path: Path) -> list[Path]:
    folder = tmp_path / "c.sqlite.warm"
    return sorted(folder.iterdir()) if folder.exists() else []


def test_the_snapshot_s_paths_and_stats_are_kept_in_a_file_the_row_names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tree(tmp_path)
    spy = Spy(monkeypatch)
    scan(roots_of(root), tmp_path)
    (only,) = _snapshot_files(tmp_path)
    db = sqlite3.connect(tmp_path / "c.sqlite")
    token, inline = db.execute("SELECT token, length(paths) + length(stats) + length(folders) + length(fstats)"
                               " FROM scans").fetchone()
    assert only.name == token and inline == 0
    assert str(root / "p" / f"{A}.jsonl").encode() in only.read_bytes()
    spy.warm()
    assert sorted(scan(roots_of(root), tmp_path).session_ids()) == sorted([A, B, f"{B}/agent-x1"])
    assert spy.warm()
    # (a catalog whose row holds the parts itself, as before the files: read as it is)
    blobs = warm.SnapshotFiles(str(tmp_path / "c.sqlite.warm")).read(token)
    assert blobs is not None
    db.execute("UPDATE scans SET paths=?, stats=?, folders=?, fstats=?", blobs)
    db.commit()
    only.unlink()
    assert sorted(scan(roots_of(root), tmp_path).session_ids()) == sorted([A, B, f"{B}/agent-x1"])
    assert spy.warm()
    db.close()


@pytest.mark.parametrize("damage", ["gone", "cut short", "one byte more", "another token", "sizes past the end",
                                    "a negative size", "not a file", "a row naming another file"])
def test_a_snapshot_file_gone_or_damaged_is_no_snapshot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, damage: str) -> None:
    root = tree(tmp_path)
    spy = Spy(monkeypatch)
    scan(roots_of(root), tmp_path)
    (path,) = _snapshot_files(tmp_path)
    data = path.read_bytes()
    at = len(warm.SnapshotFiles.MAGIC)
    sizes_at = warm.SnapshotFiles._HEAD - 32
    path.unlink()
    if damage == "cut short":
        path.write_bytes(data[:-1])
    elif damage == "one byte more":
        path.write_bytes(data + b"\0")
    elif damage == "another token":
        path.write_bytes(data[:at] + b"0" * 16 + data[at + 16:])
    elif damage == "sizes past the end":
        path.write_bytes(data[:sizes_at] + (2**62).to_bytes(8, "little") + data[sizes_at + 8:])
    elif damage == "a negative size":
        path.write_bytes(data[:sizes_at] + (-1).to_bytes(8, "little", signed=True) + data[sizes_at + 8:])
    elif damage == "not a file":
        path.mkdir()
    elif damage == "a row naming another file":  # (its own file there, read only by its name)
        path.write_bytes(data)
        db = sqlite3.connect(tmp_path / "c.sqlite")
        db.execute("UPDATE scans SET token=?", (f"../c.sqlite.warm/{path.name}",))
        db.commit()
        db.close()
    spy.warm()
    assert sorted(scan(roots_of(root), tmp_path).session_ids()) == sorted([A, B, f"{B}/agent-x1"])
    assert not spy.warm()
    scan(roots_of(root), tmp_path)  # (the walk kept a new snapshot: taken now)
    assert spy.warm()


def test_snapshot_files_no_row_names_are_deleted_once_a_minute_old(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tree(tmp_path)
    scan(roots_of(root), tmp_path)
    (first,) = _snapshot_files(tmp_path)
    part = first.with_name("0123456789abcdef.part")  # (left by a writer that died)
    part.write_bytes(b"x")
    write(root / "p" / f"{C}.jsonl", [claude("c1", None, C, 9)])
    scan(roots_of(root), tmp_path)  # (a walk: a new snapshot, the first one's file under a minute old)
    assert first.exists() and part.exists() and len(_snapshot_files(tmp_path)) == 3
    for old in (first, part):
        os.utime(old, (1, 1))
    os.utime(root / "p", None)
    (root / "p" / f"{C}.jsonl").unlink()
    scan(roots_of(root), tmp_path)
    names = {p.name for p in _snapshot_files(tmp_path)}
    db = sqlite3.connect(tmp_path / "c.sqlite")
    assert names >= {r[0] for r in db.execute("SELECT token FROM scans")}
    assert first.name not in names and part.name not in names
    db.close()


def test_a_snapshot_file_that_cannot_be_written_keeps_no_snapshot(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tree(tmp_path)
    (tmp_path / "c.sqlite.warm").write_text("in the way")
    spy = Spy(monkeypatch)
    for _ in range(2):
        assert sorted(scan(roots_of(root), tmp_path).session_ids()) == sorted([A, B, f"{B}/agent-x1"])
        assert not spy.warm()
    db = sqlite3.connect(tmp_path / "c.sqlite")
    assert db.execute("SELECT count(*) FROM scans").fetchone() == (0,)
    db.close()


def test_a_rebuilt_catalog_deletes_its_snapshot_files(tmp_path: Path) -> None:
    root = tree(tmp_path)
    scan(roots_of(root), tmp_path)
    assert _snapshot_files(tmp_path)
    db = sqlite3.connect(tmp_path / "c.sqlite")
    db.execute("UPDATE meta SET value='999' WHERE key='schema_version'")
    db.commit()
    db.close()
    Catalog(tmp_path / "c.sqlite").close()
    assert not _snapshot_files(tmp_path)


def test_a_warm_listing_finds_its_sessions_files_without_indexing_every_path(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folders = sorted(p for p in DATA.iterdir() if p.is_dir() and p.name not in ("brief", "memory", "gemini"))
    roots = roots_of(*folders)
    whole(roots, tmp_path)
    full = whole(roots, tmp_path)
    indexed = []
    real_index = warm.WarmRows._index
    monkeypatch.setattr(warm.WarmRows, "_index", lambda rows: indexed.append(1) or real_index(rows))
    want = [s.to_dict() for s in full.top_level()[0][:5]]
    assert [s.to_dict() for s in scan(roots, tmp_path).top_level()[0][:5]] == want
    assert not indexed
    # a file's index that is not its own (a snapshot of before, kept without it; a damaged
    # one): the file found by its path
    db = sqlite3.connect(tmp_path / "c.sqlite")
    for change in (lambda e: e[:5], lambda e: [*e[:5], 0], lambda e: [*e[:5], 10**6], lambda e: [*e[:5], -1]):
        data = orjson.loads(db.execute("SELECT data FROM scans").fetchone()[0])
        data["head"]["top"] = [change(e) for e in data["head"]["top"]]
        db.execute("UPDATE scans SET data=?", (orjson.dumps(data),))
        db.commit()
        assert [s.to_dict() for s in scan(roots, tmp_path).top_level()[0][:5]] == want
        assert indexed
        indexed.clear()
    db.close()


def test_a_snapshot_of_another_version_is_not_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # (an older sessionscope read a row of this one, its paths in a file, as a snapshot of no
    # file: each version finds only its own rows)
    root = tree(tmp_path)
    spy = Spy(monkeypatch)
    scan(roots_of(root), tmp_path)
    spy.warm()
    monkeypatch.setattr(warm, "VERSION", warm.VERSION - 1)
    assert sorted(scan(roots_of(root), tmp_path).session_ids()) == sorted([A, B, f"{B}/agent-x1"])
    assert not spy.warm()
