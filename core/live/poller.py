"""Polling at a bounded cost, for file systems without change notification (`poll=True`).

Files and folders modified within HOT_S (and those seen changing since) are looked at every
POLL_MS; everything is walked again in a sweep whose share of the time stays under POLL_BUDGET,
so the sweeps thin out as the history grows (2,000 files: ~0.7 s apart; 20,000: ~7 s), at most
SWEEP_MAX_S apart.
"""
from __future__ import annotations

import os
import time
from typing import Any

from ..read.walk import walk_files

POLL_MS = 100
POLL_BUDGET = 0.02
HOT_S = 900
SWEEP_MAX_S = 10.0


class Poller:
    """Polling at a bounded cost. A sweep walks every folder under the roots and stats every file
    that `wanted` names (session and memory files): new, changed (inode, size or mtime in ns) and
    vanished ones are reported. Between sweeps only the hot part is looked at: the files and
    folders modified within HOT_S of the last sweep, the roots, and whatever was seen changing
    since. A session being written is so followed within POLL_MS; one written again after a quiet
    spell, or a new one in a quiet folder, within a sweep interval. Polling every file every
    100 ms (watchfiles' poller) cost 8.6% of a core idle with 2,000 files (bench/bench_live.py),
    and grows with the history."""

    def __init__(self, roots: list[str], wanted: Any, flat: dict[str, Any] | None = None) -> None:
        self.roots = roots
        self.wanted = wanted  # file name -> bool
        #: folders looked at alone (no folder in them followed), each with what matters there
        #: (file name -> bool): a database's folder, a project folder (see Watcher._flat_folders)
        self.flat: dict[str, Any] = dict(flat or {})
        self.files: dict[str, tuple[int, int, int, int]] = {}  # path -> (inode, size, mtime_ns, device)
        self.dirs: dict[str, int] = {}  # folder -> mtime_ns
        # Each real folder and file is known by one path, as the scan and inotify know it: a
        # symlink loop, or a second link to a folder, is not a new folder full of new sessions.
        self.dir_keys: dict[tuple[int, int], str] = {}  # (device, inode) -> the folder's path
        self.file_keys: dict[tuple[int, int], str] = {}
        self.hot_files: set[str] = set()
        self.hot_dirs: set[str] = set()
        self.cost = 0.0  # seconds the last sweep took

    def sweep_interval(self) -> float:
        return min(SWEEP_MAX_S, max(POLL_MS / 1000, self.cost / POLL_BUDGET))

    def sweep(self) -> set[str]:
        """Everything under the roots; the changes since the last sweep (none the first time)."""
        started = time.perf_counter()
        files: dict[str, tuple[int, int, int, int]] = {}
        dirs: dict[str, int] = {}
        dir_keys: dict[tuple[int, int], str] = {}
        file_keys: dict[tuple[int, int], str] = {}
        seen: set[tuple[int, int]] = set()
        for d in self.roots:
            self._walk(d, d, files, dirs, seen, dir_keys, file_keys)
        for d, wanted in self.flat.items():
            self._list_flat(d, wanted, files, dirs, file_keys)
        first = not self.files and not self.dirs
        changed = set() if first else {p for p, v in files.items() if self.files.get(p) != v}
        if not first:
            changed.update(p for p in self.files if p not in files)
        self.files, self.dirs, self.dir_keys, self.file_keys = files, dirs, dir_keys, file_keys
        recent = time.time_ns() - HOT_S * 1_000_000_000
        self.hot_files = {p for p, v in files.items() if v[2] >= recent} | (changed & files.keys())
        self.hot_dirs = {d for d, m in dirs.items() if m >= recent} | set(self.roots) | (self.flat.keys() & dirs.keys())
        self.cost = time.perf_counter() - started
        return changed

    def tick(self) -> set[str]:
        """The hot files and folders looked at again; what changed (it is hot from now on)."""
        changed: set[str] = set()
        for p in list(self.hot_files):
            try:
                st = os.stat(p)
            except FileNotFoundError:
                self.hot_files.discard(p)
                if self.files.pop(p, None) is not None:
                    changed.add(p)
                continue
            except OSError:
                continue
            v = (st.st_ino, st.st_size, st.st_mtime_ns, st.st_dev)
            if self.files.get(p) != v:
                self.files[p] = v
                self.file_keys[(st.st_dev, st.st_ino)] = p
                changed.add(p)
        for d in list(self.hot_dirs):
            try:
                m = os.stat(d).st_mtime_ns
            except OSError:
                self.hot_dirs.discard(d)  # gone: its files are found gone by the tick or a sweep
                continue
            if self.dirs.get(d) != m:
                self.dirs[d] = m
                changed |= self._new_in(d)
        return changed

    def _list_flat(self, d: str, wanted: Any, files: dict[str, tuple[int, int, int, int]],
                   dirs: dict[str, int], keys: dict[tuple[int, int], str]) -> None:
        """The files that matter directly in a folder looked at alone (none of its folders)."""
        try:
            dirs[d] = os.stat(d).st_mtime_ns
            with os.scandir(d) as it:
                items = [item for item in it if wanted(item.name)]
        except OSError:
            return
        for item in items:
            try:
                if item.is_file(follow_symlinks=True):
                    self._add(item.path, item.stat(follow_symlinks=True), files, keys)
            except OSError:
                continue

    def _new_in(self, d: str) -> set[str]:
        """Files that appeared directly in folder `d`, and everything in folders that appeared
        there (files that went are left to the sweep, or to the tick if they were hot); of a
        folder looked at alone (`flat`), the files that matter directly in it. A folder or file
        already known by another path (a link to it, a loop) is not new."""
        new: set[str] = set()
        try:
            with os.scandir(d) as it:
                items = list(it)
        except OSError:
            return new
        flat = d in self.flat
        wanted = self.flat[d] if flat else self.wanted
        for item in items:
            try:
                if not flat and item.is_dir(follow_symlinks=True):
                    if item.path not in self.dirs:
                        top = next((r for r in self.roots if d == r or d.startswith(r.rstrip(os.sep) + os.sep)), d)
                        seen = {k for k, p in self.dir_keys.items() if p in self.dirs}
                        files: dict[str, tuple[int, int, int, int]] = {}
                        dirs: dict[str, int] = {}
                        self._walk(item.path, top, files, dirs, seen, self.dir_keys, self.file_keys)
                        self.dirs.update(dirs)
                        self.hot_dirs.update(dirs)
                        new.update(p for p in files if p not in self.files)
                        self.files.update(files)
                elif self._took_new(item, wanted):
                    new.add(item.path)
            except OSError:
                continue
        self.hot_files.update(new)
        return new

    def _took_new(self, item: os.DirEntry[str], wanted: Any) -> bool:
        """Record a file of a folder's listing that is not known yet and matters; False for one
        known, not wanted, not a file, or known by another path (`_add`). May raise OSError."""
        return (item.path not in self.files and wanted(item.name) and item.is_file(follow_symlinks=True)
                and self._add(item.path, item.stat(follow_symlinks=True), self.files, self.file_keys))

    def _add(self, path: str, st: os.stat_result, files: dict[str, tuple[int, int, int, int]],
             keys: dict[tuple[int, int], str]) -> bool:
        """Record a file, unless it is one known by another path still: False then."""
        key = (st.st_dev, st.st_ino)
        known = keys.get(key)
        if known is not None and known != path:
            v = files.get(known) or self.files.get(known)
            if v is not None and (v[3], v[0]) == key:
                return False
        keys[key] = path
        files[path] = (st.st_ino, st.st_size, st.st_mtime_ns, st.st_dev)
        return True

    def _walk(self, start: str, top: str, files: dict[str, tuple[int, int, int, int]], dirs: dict[str, int],
              seen: set[tuple[int, int]], dir_keys: dict[tuple[int, int], str],
              file_keys: dict[tuple[int, int], str]) -> None:
        """Walk `start` (under root `top`) as a scan does (core/read/walk.py: folders once by inode,
        no link out of the root, no pseudo file system), recording the folders and wanted files."""
        def on_dir(d: str, st: os.stat_result) -> None:
            dirs[d] = st.st_mtime_ns
            dir_keys[(st.st_dev, st.st_ino)] = d

        for path in walk_files(start, ("",), seen=seen, inside=top, on_dir=on_dir):
            if not self.wanted(os.path.basename(path)):
                continue
            try:
                self._add(path, os.stat(path), files, file_keys)
            except OSError:
                continue

