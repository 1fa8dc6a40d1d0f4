"""Walking a root for session files: what is read, and what is skipped and said so.

Why a module of its own: every caller that lists a root's files (the scan, `sessions --quick`,
`watch --poll`) must agree on which folders are walked, and the user must hear about the folders
that were not. The rules:

- a folder that cannot be listed (no permission, vanished) is reported, never dropped silently:
  its sessions would be missing from every list and search;
- a directory link is followed only while it stays inside the root (by real path), and each real
  folder is walked once (by device and inode), so a symlink loop or a link to `/` is not a walk of
  the whole file system;
- kernel pseudo file systems (proc, sysfs, devtmpfs, cgroup, ...; /proc, /sys and /dev always) are
  never walked: /proc alone links back to `/` through every process's `root` and `cwd`, and its
  files vanish while being read;
- a walk stops after MAX_DIRS folders, and says so: `--root /` is a mistake to report, not a
  minute of reading;
- given `Listings` (what an earlier walk found in each folder, kept in the catalog), a folder
  whose stat is as it was then is not listed again: adding, removing or renaming an entry changes
  a folder's mtime and ctime (a file growing does not, but its own stat says so); a folder changed
  within LISTING_MARGIN_NS of its listing, or holding a link or a mount point, is listed each time.
"""
from __future__ import annotations

import os
import time
from dataclasses import field
from functools import lru_cache
from typing import Any, Callable, Iterator
from ..records import record

#: folders one walk of one root goes through at most (a Claude projects root holds a few per
#: session, a Codex sessions root one per day); config `max_folders` changes it. 20,000 folders
#: of `/` take ~4 s to walk on a loaded machine, 50,000 ~14 s.
MAX_DIRS = 20_000
#: file system types whose files are the kernel's, not anyone's history
PSEUDO_FS = frozenset({
    "proc", "sysfs", "devtmpfs", "devpts", "cgroup", "cgroup2", "debugfs", "tracefs", "securityfs",
    "pstore", "bpf", "configfs", "fusectl", "mqueue", "hugetlbfs", "binfmt_misc", "autofs",
    "efivarfs", "rpc_pipefs", "nsfs", "selinuxfs",
})
ALWAYS_SKIPPED = ("/proc", "/sys", "/dev")


@record
class WalkReport:
    """What a walk left out, for the user: each list holds at most a few examples, counted."""

    unreadable: list[tuple[str, str]] = field(default_factory=list)  # (path, reason)
    links_out: list[str] = field(default_factory=list)  # "link -> target"
    pseudo: list[str] = field(default_factory=list)
    stopped_at: str | None = None  # the root whose walk hit MAX_DIRS
    max_dirs: int = MAX_DIRS

    def errors(self) -> list[str]:
        """One message per folder that could not be read (as for an unreadable file)."""
        return [f"folder {path} could not be read ({why}): its sessions are not listed"
                for path, why in self.unreadable]

    def notes(self) -> list[str]:
        """One line per kind of folder skipped on purpose."""
        out = []
        if self.links_out:
            out.append(f"{len(self.links_out)} directory link(s) leading out of the root not followed "
                       f"(first: {self.links_out[0]}); give the target as a root to read it")
        if self.pseudo:
            out.append(f"kernel pseudo file system(s) not read: {', '.join(self.pseudo[:5])}"
                       + (f" and {len(self.pseudo) - 5} more" if len(self.pseudo) > 5 else ""))
        if self.stopped_at is not None:
            out.append(f"stopped walking {self.stopped_at} after {self.max_dirs} folders: the rest "
                       "is not read; give a narrower root (or raise max_folders in the config)")
        return out


@lru_cache(maxsize=1)
def pseudo_mounts() -> frozenset[str]:
    """Mount points of pseudo file systems (from /proc/self/mounts where there is one)."""
    points = set(ALWAYS_SKIPPED) if os.name == "posix" else set()
    try:
        with open("/proc/self/mounts", encoding="utf-8", errors="replace") as f:
            for line in f:
                parts = line.split()
                if len(parts) >= 3 and parts[2] in PSEUDO_FS:
                    # spaces and the like are octal escapes in this file ("\040")
                    points.add(parts[1].encode("latin-1", "replace").decode("unicode_escape"))
    except OSError:
        pass
    return frozenset(points)


def is_pseudo(real: str) -> bool:
    """Whether a real path is (inside) a pseudo file system's mount point."""
    for point in pseudo_mounts():
        if real == point or real.startswith(point.rstrip(os.sep) + os.sep):
            return True
    return False


#: a folder changed less than this before it was listed is listed again next time: a change in
#: the same tick of the file system's clock (coarse: up to 2 s on FAT) leaves its stat as it was
LISTING_MARGIN_NS = 2_000_000_000

#: a folder's entries as a walk saw them, in the walk's order: (name, whether it is a folder)
Entries = list[list[Any]]  # [[name, is_folder], ...]


class Listings:
    """What earlier walks found in each folder (by path: its stat's device, inode, mtime and
    ctime, the suffixes looked for, and its entries), and what this walk found again.

    `known` maps a path to `(dev, ino, mtime_ns, ctime_ns, suffixes, entries)`, as
    `Catalog.folders` gives it; `fresh` collects the folders this walk listed and may trust next
    time, `visited` every folder it went through (the others are gone, or outside its roots)."""

    def __init__(self, known: dict[str, tuple[Any, ...]] | None = None) -> None:
        self.known = known or {}
        self.fresh: dict[str, tuple[Any, ...]] = {}
        self.visited: set[str] = set()
        #: the folders of this walk whose listing may be trusted next time (known and unchanged,
        #: or listed and kept), with their device, inode, mtime and ctime: when it holds every
        #: folder visited, their stats alone say whether a walk would find the same files
        self.trusted: dict[str, tuple[int, int, int, int]] = {}

    def get(self, folder: str, st: os.stat_result, suffixes: tuple[str, ...]) -> Entries | None:
        self.visited.add(folder)
        row = self.known.get(folder)
        if row is None or row[:5] != (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_ctime_ns, "\0".join(suffixes)):
            return None
        self.trusted[folder] = row[:4]
        return [(name, bool(is_dir)) for name, is_dir in row[5]]

    def put(self, folder: str, st: os.stat_result, suffixes: tuple[str, ...], entries: Entries,
            listed_ns: int) -> None:
        if max(st.st_mtime_ns, st.st_ctime_ns) >= listed_ns - LISTING_MARGIN_NS:
            return  # (changed just before it was listed: not to be trusted)
        self.trusted[folder] = (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_ctime_ns)
        self.fresh[folder] = (st.st_dev, st.st_ino, st.st_mtime_ns, st.st_ctime_ns, "\0".join(suffixes), entries)


def _inside(real: str, top: str) -> bool:
    return real == top or real.startswith(top.rstrip(os.sep) + os.sep)


def walk_files(root: str, suffixes: tuple[str, ...], report: WalkReport | None = None,
               *, max_dirs: int = MAX_DIRS, seen: set[tuple[int, int]] | None = None,
               inside: str | None = None, on_dir: Callable[[str, os.stat_result], None] | None = None,
               listings: Listings | None = None) -> Iterator[str]:
    """Files under `root` ending in one of `suffixes`, by the rules of this module; what was
    left out goes into `report` when given.

    For a walk that goes on from an earlier one (a poller looking into a new folder): `seen`
    holds the (device, inode) of the folders walked already (and gets those walked now),
    `inside` is the root whose real path links must stay in (default: `root`'s), and `on_dir`
    is called with each folder walked and its stat. `listings`: see `Listings`."""
    report = report if report is not None else WalkReport()
    report.max_dirs = max_dirs
    try:
        top = os.path.realpath(inside or root)
    except (OSError, ValueError):
        report.unreadable.append((root, "not a usable path"))
        return
    if is_pseudo(top):
        report.pseudo.append(root)
        return
    seen = seen if seen is not None else set()
    stack = [root]
    walked = 0
    moved: dict[str, int] = {}  # folders pushed from a known listing: their parent's device
    while stack:
        d = stack.pop()
        try:
            st = os.stat(d)
        except OSError as exc:
            if d == root or os.path.lexists(d):  # not a folder removed meanwhile
                report.unreadable.append((d, exc.strerror or str(exc)))
            continue
        key = (st.st_dev, st.st_ino)
        if key in seen:
            continue
        if walked >= max_dirs:
            report.stopped_at = root
            return
        if d in moved:  # a folder of a known listing now on another device: mounted over since
            if st.st_dev != moved.pop(d) and is_pseudo(os.path.realpath(d)):
                report.pseudo.append(d)
                continue
        seen.add(key)
        walked += 1
        if on_dir is not None:
            on_dir(d, st)
        known = listings.get(d, st, suffixes) if listings is not None else None
        if known is not None:
            head = d if d.endswith(os.sep) else d + os.sep  # (os.path.join's result, at a tenth of its cost)
            for name, is_dir in known:
                if is_dir:
                    stack.append(sub := head + name)
                    moved[sub] = st.st_dev
                else:
                    yield head + name
            continue
        listed_ns = time.time_ns()
        try:
            with os.scandir(d) as it:
                items = list(it)
        except FileNotFoundError:
            continue  # removed between its listing and now: nothing was there to miss
        except OSError as exc:
            report.unreadable.append((d, exc.strerror or str(exc)))
            continue
        items.sort(key=lambda e: e.name, reverse=True)  # popped from the stack in name order
        entries: Entries | None = [] if listings is not None else None
        for item in items:
            try:
                if item.is_dir(follow_symlinks=True):
                    if item.is_symlink() or _crosses_mount(item, st):
                        entries = None  # (where a link leads may change while the folder does not)
                        real = os.path.realpath(item.path)
                        if is_pseudo(real):
                            report.pseudo.append(item.path)
                            continue
                        if item.is_symlink() and not _inside(real, top):
                            report.links_out.append(f"{item.path} -> {real}")
                            continue
                    stack.append(item.path)
                    if entries is not None:
                        entries.append([item.name, True])
                elif item.name.endswith(suffixes) and item.is_file(follow_symlinks=True):
                    if entries is not None:
                        if item.is_symlink():
                            entries = None
                        else:
                            entries.append([item.name, False])
                    yield item.path
            except OSError:
                entries = None
                continue  # vanished between the listing and this look: skipped
        if entries is not None and listings is not None:
            listings.put(d, st, suffixes, entries, listed_ns)


def _crosses_mount(item: os.DirEntry[str], parent: os.stat_result) -> bool:
    """Whether a (real) folder is on another device than its parent: a mount point, which may be
    a pseudo file system's."""
    try:
        return item.stat(follow_symlinks=False).st_dev != parent.st_dev
    except OSError:
        return False
