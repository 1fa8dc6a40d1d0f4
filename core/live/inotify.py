"""Linux inotify read directly, through ctypes: a watch on every folder under the roots.

Why not watchfiles (notify) on Linux: its loop wakes every step to look at what its thread
collected, which costs both latency on each change and CPU while idle; this reader blocks in
poll() until the kernel has something or the watcher stops (an eventfd), so an idle watcher wakes
for nothing and a change is seen as it happens (bench/bench_watch.py).
"""
from __future__ import annotations

import ctypes
import os
import struct
import sys
import threading
from typing import Any

from ..read.walk import walk_files


class WakingEvent(threading.Event):
    """A stop event that also wakes a reader blocked on its file descriptors (`wakes`)."""

    def __init__(self) -> None:
        super().__init__()
        self.wakes: set[int] = set()

    def set(self) -> None:
        super().set()
        for fd in list(self.wakes):
            try:
                os.eventfd_write(fd, 1)
            except OSError:
                pass


# <sys/inotify.h>
_IN_MODIFY, _IN_ATTRIB, _IN_MOVED_FROM, _IN_MOVED_TO = 0x2, 0x4, 0x40, 0x80
_IN_CREATE, _IN_DELETE, _IN_DELETE_SELF, _IN_MOVE_SELF = 0x100, 0x200, 0x400, 0x800
_IN_Q_OVERFLOW, _IN_IGNORED, _IN_ONLYDIR, _IN_ISDIR = 0x4000, 0x8000, 0x01000000, 0x40000000
_IN_MASK = (_IN_MODIFY | _IN_ATTRIB | _IN_MOVED_FROM | _IN_MOVED_TO | _IN_CREATE | _IN_DELETE
            | _IN_DELETE_SELF | _IN_MOVE_SELF | _IN_ONLYDIR)
_EVENT = struct.Struct("iIII")  # wd, mask, cookie, len (then the name, NUL-padded)


class Inotify:
    """Linux inotify through ctypes: a watch on every folder under the roots (as notify, which
    watchfiles wraps, keeps), and the paths its events name. A folder created or moved in is
    watched at once and reported itself (the tracker walks it: files written into it before its
    watch was in place are not missed); one moved away or removed is reported (the tracker drops
    what was under it). When the kernel's queue overflowed, the roots are reported: the tracker
    compares everything under them."""

    def __init__(self, libc: Any, fd: int) -> None:
        self._libc = libc
        self.fd = fd
        self.roots: list[str] = []
        self.dirs: dict[int, str] = {}  # watch descriptor -> folder
        self.wds: dict[str, int] = {}  # folder -> watch descriptor
        self.flat: set[str] = set()  # folders watched alone (`add_dir`): not the folders in them

    @classmethod
    def open(cls) -> Inotify | None:
        """None where there is no inotify (not Linux, or not allowed): watchfiles then."""
        if not sys.platform.startswith("linux"):
            return None
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.inotify_init1.argtypes = [ctypes.c_int]
            libc.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
            libc.inotify_rm_watch.argtypes = [ctypes.c_int, ctypes.c_int]
            fd = libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        except (OSError, AttributeError):
            return None
        return cls(libc, fd) if fd >= 0 else None

    def close(self) -> None:
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1

    def add_tree(self, root: str) -> None:
        """Watch `root` and every folder under it, walked as a scan walks (core/read/walk.py: folders
        once by inode, no link out of the root it is under, no pseudo file system). A folder
        that cannot be watched (gone, no permission) is skipped; running out of watches raises."""
        top = next((r for r in self.roots if root == r or root.startswith(r.rstrip(os.sep) + os.sep)), root)

        def watch(d: str, _st: os.stat_result) -> None:
            wd = self._libc.inotify_add_watch(self.fd, os.fsencode(d), _IN_MASK)
            if wd < 0:
                err = ctypes.get_errno()
                if err == 28:  # ENOSPC: out of watches (fs.inotify.max_user_watches)
                    raise OSError(err, f"out of inotify watches adding {d}")
                return
            old = self.dirs.get(wd)
            if old is not None and old != d:
                self.wds.pop(old, None)
            self.dirs[wd] = d
            self.wds[d] = wd

        for _ in walk_files(root, ("\0",), inside=top, on_dir=watch):  # (no name ends in NUL:
            pass  # the walk yields no file, it only calls `watch` on each folder)

    def add_dir(self, folder: str) -> None:
        """Watch `folder` alone: its own files, not the folders in it nor any created later (a
        project folder holding Aider's history, the folder of an OpenCode database). One that
        cannot be watched is skipped; running out of watches raises."""
        wd = self._libc.inotify_add_watch(self.fd, os.fsencode(folder), _IN_MASK)
        if wd < 0:
            if ctypes.get_errno() == 28:
                raise OSError(28, f"out of inotify watches adding {folder}")
            return
        if wd in self.dirs:  # (already watched as part of a tree: it stays the tree's)
            return
        self.dirs[wd] = folder
        self.wds[folder] = wd
        self.flat.add(folder)

    def _forget_tree(self, top: str) -> None:
        prefix = top + os.sep
        for d in [d for d in self.wds if d == top or d.startswith(prefix)]:
            wd = self.wds.pop(d)
            self.dirs.pop(wd, None)
            self._libc.inotify_rm_watch(self.fd, wd)

    def read(self) -> set[str]:
        """The paths named by every event queued now (never blocks)."""
        changed: set[str] = set()
        while True:
            try:
                buf = os.read(self.fd, 64 * 1024)
            except BlockingIOError:
                return changed
            pos = 0
            while pos + _EVENT.size <= len(buf):
                wd, mask, _cookie, length = _EVENT.unpack_from(buf, pos)
                raw = buf[pos + _EVENT.size: pos + _EVENT.size + length]
                pos += _EVENT.size + length
                self._event(wd, mask, os.fsdecode(raw.rstrip(b"\0")), changed)

    def _event(self, wd: int, mask: int, name: str, changed: set[str]) -> None:
        if mask & _IN_Q_OVERFLOW:
            changed.update(self.roots)
            return
        d = self.dirs.get(wd)
        if d is None:
            return
        if mask & _IN_IGNORED:  # the folder went (or its watch was removed)
            if self.wds.get(d) == wd:
                del self.wds[d]
            del self.dirs[wd]
            return
        if not name:  # about a watched folder itself: one of the roots matters, the others'
            if d in self.roots and mask & (_IN_DELETE_SELF | _IN_MOVE_SELF):  # parents tell
                changed.add(d)
            return
        path = os.path.join(d, name)
        if mask & _IN_ISDIR:
            if d in self.flat:
                return  # (a folder in a folder watched alone: not ours)
            if mask & (_IN_CREATE | _IN_MOVED_TO):
                self.add_tree(path)
                changed.add(path)
            elif mask & (_IN_DELETE | _IN_MOVED_FROM):
                self._forget_tree(path)
                changed.add(path)
            return
        changed.add(path)

