"""Whether the current tree still holds the files and backticked symbols a finding names (the
"checked now" evidence label). The files under the project root are listed once (build, cache and
dependency folders skipped, at most `max_files`); a symbol is looked for in the files the finding
names, else in all of them, each read at most once and skipped when over `max_bytes`."""
from __future__ import annotations

import os
import re
from typing import Sequence

from .finding import Finding


# -- checked now ---------------------------------------------------------------------------------
_SKIP_DIRS = {".git", "node_modules", ".venv", "venv", "__pycache__", "dist", "build", "target", ".tox",
              ".mypy_cache", ".pytest_cache", ".next", "coverage", ".cache", "vendor", "site-packages"}


class TreeChecker:
    """Looks files and symbols up in the current tree: bounded (files, bytes), cached."""

    def __init__(self, root: str | None, max_files: int = 5000, max_bytes: int = 512 * 1024) -> None:
        self.root = root if root and os.path.isdir(root) else None
        self.max_files = max_files
        self.max_bytes = max_bytes
        self._files: list[str] | None = None
        self._text: dict[str, str | None] = {}

    def files(self) -> list[str]:
        if self._files is None:
            out: list[str] = []
            if self.root:
                for d, dirs, names in os.walk(self.root):
                    dirs[:] = sorted(x for x in dirs if x not in _SKIP_DIRS)
                    for n in sorted(names):
                        out.append(os.path.relpath(os.path.join(d, n), self.root))
                        if len(out) >= self.max_files:
                            break
                    if len(out) >= self.max_files:
                        break
            self._files = out
        return self._files

    def find(self, path: str) -> str | None:
        """The tree's file for a named path: exact (relative or absolute inside the root), or by
        file name when the name has no directory, or by path suffix."""
        if not self.root:
            return None
        p = path.lstrip("./") if not path.startswith("/") else os.path.relpath(path, self.root)
        if p.startswith(".."):
            return None
        if os.path.isfile(os.path.join(self.root, p)):
            return p
        base = os.path.basename(p)
        for f in self.files():
            if f == p or f.endswith("/" + p) or ("/" not in p and os.path.basename(f) == base):
                return f
        return None

    def text(self, rel: str) -> str | None:
        if rel not in self._text:
            try:
                full = os.path.join(self.root or "", rel)
                if os.path.getsize(full) > self.max_bytes:
                    self._text[rel] = None
                else:
                    with open(full, encoding="utf-8", errors="replace") as fh:
                        self._text[rel] = fh.read()
            except OSError:
                self._text[rel] = None
        return self._text[rel]

    def symbol_in(self, symbol: str, files: Sequence[str]) -> str | None:
        name = symbol.split(".")[-1].split("::")[-1]
        pat = re.compile(r"(?<![\w])" + re.escape(name) + r"(?![\w])")
        for f in files or self.files():
            t = self.text(f)
            if t is not None and pat.search(t):
                return f
        return None

    def check(self, f: Finding) -> tuple[bool, str]:
        """(all named things exist now, detail)."""
        if not self.root or not (f.paths or f.symbols):
            return False, ""
        found, missing = [], []
        files = []
        for p in f.paths:
            hit = self.find(p)
            (found if hit else missing).append(hit or p)
            if hit:
                files.append(hit)
        syms = []
        for s in f.symbols:
            where = self.symbol_in(s, files)
            if where:
                syms.append(f"`{s}` in {where}")
            else:
                missing.append(f"`{s}`")
        if missing:
            return False, "not found in the current tree: " + ", ".join(missing[:3])
        bits = [f"{p} exists" for p in found[:3]] + syms[:3]
        return True, "; ".join(bits)
