"""The app factory for Pilot and snapshot tests: the demo corpus with a frozen clock, the catalog
and index in tmp_path, no file watching. (A module, not only fixtures, so tests can import it.)"""
from __future__ import annotations

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


async def settle(pilot) -> None:  # noqa: ANN001 - textual's Pilot
    """Wait until the library scan and the index build have finished and been painted."""
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()
