"""Walking a root (core/read/walk.py): links out of the root, loops, pseudo file systems, unreadable
folders and the bound, each left out and said so (issue 10, items 6 and 12)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers import refuse_listing

from sessionscope.core.read import walk
from sessionscope.core.read.walk import WalkReport, walk_files


def touch(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{}\n")
    return path


def names(root: Path, report: WalkReport | None = None, **kw: int) -> list[str]:
    return sorted(os.path.relpath(p, root) for p in walk_files(str(root), (".jsonl",), report, **kw))


def test_a_directory_link_out_of_the_root_is_not_followed_and_is_reported(tmp_path: Path) -> None:
    root, outside = tmp_path / "root", tmp_path / "elsewhere"
    touch(root / "a" / "one.jsonl")
    touch(outside / "two.jsonl")
    (root / "out").symlink_to(outside)
    (root / "slash").symlink_to("/")
    report = WalkReport()
    assert names(root, report) == ["a/one.jsonl"]
    assert sorted(report.links_out) == [f"{root / 'out'} -> {outside}", f"{root / 'slash'} -> /"]
    assert "2 directory link(s) leading out of the root not followed" in report.notes()[0]


def test_a_link_inside_the_root_is_followed_once_and_a_loop_ends(tmp_path: Path) -> None:
    root = tmp_path / "root"
    touch(root / "a" / "one.jsonl")
    (root / "a" / "loop").symlink_to(root)  # root/a/loop/a/loop/...
    (root / "b").symlink_to(root / "a")
    report = WalkReport()
    found = names(root, report)
    assert [os.path.basename(p) for p in found] == ["one.jsonl"]
    assert report.notes() == [] and report.errors() == []


@pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="no /proc on this system")
@pytest.mark.parametrize("root", ["/proc", "/proc/self", "/sys", "/dev"])
def test_a_pseudo_file_system_root_is_not_walked(root: str) -> None:
    if not os.path.isdir(root):
        pytest.skip(f"{root} is not on this system")
    report = WalkReport()
    assert list(walk_files(root, (".jsonl",), report)) == []
    assert report.pseudo == [root]
    assert "kernel pseudo file system(s) not read" in report.notes()[0]


def test_a_pseudo_file_system_under_the_root_is_skipped(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`--root /` meets /proc, /sys and /dev as mount points: here a folder stands in for one."""
    root = tmp_path / "root"
    touch(root / "home" / "one.jsonl")
    touch(root / "kernel" / "two.jsonl")
    monkeypatch.setattr(walk, "pseudo_mounts", lambda: frozenset({str(root / "kernel")}))
    monkeypatch.setattr(walk, "_crosses_mount", lambda item, parent: True)
    report = WalkReport()
    assert names(root, report) == ["home/one.jsonl"]
    assert report.pseudo == [str(root / "kernel")]


def test_the_walk_stops_after_its_bound_and_says_so(tmp_path: Path) -> None:
    root = tmp_path / "root"
    for i in range(10):
        touch(root / f"d{i}" / f"s{i}.jsonl")
    report = WalkReport()
    found = names(root, report, max_dirs=4)  # the root and three of its folders
    assert len(found) == 3
    assert report.stopped_at == str(root)
    assert report.notes() == [f"stopped walking {root} after 4 folders: the rest is not read; give a narrower "
                              "root (or raise max_folders in the config)"]


def test_an_unreadable_folder_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """(Run as root, mode 000 hides nothing: the refusal is simulated.)"""
    root = tmp_path / "root"
    touch(root / "open" / "one.jsonl")
    touch(root / "locked" / "two.jsonl")
    refuse_listing(monkeypatch, "locked")
    report = WalkReport()
    assert names(root, report) == ["open/one.jsonl"]
    assert report.errors() == [f"folder {root / 'locked'} could not be read (Permission denied): "
                               "its sessions are not listed"]


def test_a_folder_or_file_removed_during_the_walk_is_skipped_quietly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "root"
    touch(root / "gone" / "one.jsonl")
    touch(root / "kept" / "two.jsonl")
    refuse_listing(monkeypatch, "gone", FileNotFoundError(2, "No such file or directory"))
    report = WalkReport()
    assert names(root, report) == ["kept/two.jsonl"]
    assert report.errors() == [] and report.notes() == []


def test_readable_from_the_mode_bits_without_a_system_call(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A warm scan asks of every file whether it is still readable: from the stat it has when the
    mode bits say so (os.access doubled a warm scan's system calls), from the system otherwise."""
    from sessionscope.core.catalog import files

    f = touch(tmp_path / "s.jsonl")
    asked: list[str] = []
    monkeypatch.setattr(files.os, "access", lambda p, mode: asked.append(p) or False)
    f.chmod(0o644)
    assert files.readable(str(f), f.stat()) and asked == []
    f.chmod(0o000)  # the owner's bits say no: the system decides (root may read it anyway)
    assert not files.readable(str(f), f.stat()) and asked == [str(f)]
