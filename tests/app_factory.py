"""The app factory for Pilot and snapshot tests: the demo corpus with a frozen clock, the catalog
and index in tmp_path, no file watching. (A module, not only fixtures, so tests can import it.)"""
from __future__ import annotations

import atexit
import shutil
import tempfile
from datetime import datetime, timezone
from pathlib import Path

from sessionscope.core.catalog.store import Catalog
from sessionscope.core.demo import DemoCorpus, generate_demo
from sessionscope.core.read.discovery import Root
from sessionscope.core.catalog.library import Library
from sessionscope.tui.app import SessionScopeApp

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=timezone.utc)


def make_app(tmp_path: Path, corpus: DemoCorpus | None = None) -> SessionScopeApp:
    """The app over a demo corpus written into `tmp_path` (or the one given)."""
    corpus = corpus or generate_demo(tmp_path / "demo", now=NOW)
    roots = [Root(str(corpus.claude_root), "demo"), Root(str(corpus.codex_root), "demo")]
    library = Library(roots, catalog=Catalog(tmp_path / "catalog.sqlite"))
    return SessionScopeApp(library, index_dir=tmp_path / "index", now=NOW, memory=corpus.memory_items)


def warm_app(tmp_path: Path) -> SessionScopeApp:
    """The app over the demo corpus as a second launch finds it: catalog and index already built
    (copied into `tmp_path`), the corpus one shared by this test process's warm apps. For tests
    of what the app does with its sessions, not of a first scan, an index build or of files that
    change: nothing may write into the shared corpus (checked at each use). A cold build costs
    ~1 s of CPU per app (the demo written, parsed and indexed); the copy a few ms."""
    template = _warm_template()
    tmp_path.mkdir(parents=True, exist_ok=True)
    if not (tmp_path / "catalog.sqlite").exists():  # (a second app in the same folder: as left by the first)
        shutil.copy2(template / "catalog.sqlite", tmp_path / "catalog.sqlite")
        shutil.copytree(template / "index", tmp_path / "index")
    return make_app(tmp_path, _WARM["corpus"])


_WARM: dict = {}


def _tree_stamp(root: Path) -> list[tuple[str, int, int]]:
    return [(str(p), st.st_size, st.st_mtime_ns) for p in sorted(root.rglob("*")) if (st := p.lstat())]


def _warm_template() -> Path:
    """The demo corpus, its catalog and its index, built once per process in a temporary folder."""
    from sessionscope.core.search.index import SearchIndex

    if _WARM:
        base = _WARM["base"]
        if _tree_stamp(base / "demo") != _WARM["stamp"]:
            raise AssertionError(f"a test wrote into the shared demo corpus at {base / 'demo'}: use make_app")
        return base
    base = Path(tempfile.mkdtemp(prefix="sessionscope-warm-demo-"))
    atexit.register(shutil.rmtree, base, True)
    corpus = generate_demo(base / "demo", now=NOW)
    roots = [Root(str(corpus.claude_root), "demo"), Root(str(corpus.codex_root), "demo")]
    library = Library(roots, catalog=Catalog(base / "catalog.sqlite"))
    library.scan()
    index = SearchIndex(base / "index")  # the app's own tool_result_cap (4000) by default
    index.update(library)
    index.close()
    library.catalog.close()  # committed and checkpointed: the copy holds everything
    _WARM.update(base=base, corpus=corpus, stamp=_tree_stamp(base / "demo"))
    return base


async def settle(pilot) -> None:  # noqa: ANN001 - textual's Pilot
    """Wait until the library scan and the index build have finished and been painted."""
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
