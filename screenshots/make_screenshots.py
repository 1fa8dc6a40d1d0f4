"""Make the README's screenshots: the app itself, driven headless over the demo corpus.

    python screenshots/make_screenshots.py        # writes screenshots/*.svg (and *.png with cairosvg)
    python screenshots/make_screenshots.py bookmarks memory    # only those

Deterministic: a fixed clock and seed, caches in a temporary directory.
"""
from __future__ import annotations

import asyncio
import os
import shutil
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Awaitable, Callable

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
sys.path.insert(0, str(HERE.parent / "tests" / "tui"))

from app_factory import make_app, settle  # noqa: E402

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=timezone.utc)
SIZE = (120, 36)


async def sessions(pilot: Any) -> None:
    await pilot.press("c")  # subagent, compaction and exec runs nested under their parents


async def search(pilot: Any) -> None:
    await pilot.press("2")
    pilot.app.screen.query_one("SearchPane Input").value = "retry backoff"
    await pilot.press("enter")
    await settle(pilot)


async def transcript(pilot: Any) -> None:
    await search(pilot)
    await pilot.press("enter", "enter")
    await settle(pilot)


async def transcript_diff(pilot: Any) -> None:
    lib = pilot.app.library
    target = next(s for s in lib.sessions() if (s.title or "").startswith("Refactor the retry"))
    pilot.app.screen.open_transcript(target)
    await settle(pilot)
    await pilot.press("j", "j", "enter")  # expand the Write call: shown as a diff
    await pilot.pause()


async def transcript_days(pilot: Any) -> None:
    """A session that ran past midnight and on into Monday (the demo's sessions each keep to one
    day): the header names the days, a rule marks each new one."""
    from sessionscope.core.catalog.store import Catalog
    from sessionscope.core.read.discovery import Root
    from sessionscope.core.catalog.library import Library
    from sessionscope.tui.screens.transcript import TranscriptScreen
    from test_transcript import SESSION, write_two_days

    root = Path(pilot.app.index_dir).parent / "two-days"
    write_two_days(root)
    library = Library([Root(str(root), "--root", explicit=True)], catalog=Catalog(None))
    library.scan()
    await pilot.app.push_screen(TranscriptScreen(library, library.find(SESSION)))
    await settle(pilot)


async def memory(pilot: Any) -> None:
    await pilot.press("3")
    await settle(pilot)
    await pilot.press("j", "j")  # a note of the first project: rendered, with its sessions around it
    await settle(pilot)


async def brief(pilot: Any) -> None:
    from sessionscope.tui.screens.composer import ComposerScreen

    await pilot.app.push_screen(ComposerScreen("flaky webhook retry", "/home/dev/projects/payments-api"))
    await settle(pilot)
    await pilot.press("a", "x", "a")  # approve, reject, approve: the preview holds the two approved
    await settle(pilot)


async def bookmarks(pilot: Any) -> None:
    """Three bookmarks made at fixed times (two entries with notes, a whole session), then the tab."""
    from datetime import timedelta

    from sessionscope.core.bookmarks.anchor import bookmark_of

    lib, store = pilot.app.library, pilot.app.bookmark_store
    titled = {(s.title or "")[:20]: s for s in lib.sessions()}
    refactor = next(s for t, s in titled.items() if t.startswith("Refactor the retry"))
    entries = lib.load(refactor).entries
    answer = next(e for e in entries if e.role == "assistant" and "per-endpoint" in e.text)
    marks = [(refactor, answer, "the open question: per-endpoint policy — decided global for now", 26),
             (next(s for t, s in titled.items() if t.startswith("The staging TLS")), None,
              "how the cert renewal was debugged: read before the next rotation", 50),
             (refactor, next(e for e in entries if e.tool_name == "Write"), "the RetryPolicy dataclass", 3)]
    for session, entry, note, hours in sorted(marks, key=lambda m: -m[3]):
        store.add(bookmark_of(session, entry, note), now=NOW - timedelta(hours=hours))
    await pilot.press("4")
    await settle(pilot)


async def stats(pilot: Any) -> None:
    await pilot.press("5")  # the last 30 days of the frozen clock
    await settle(pilot)


SHOTS: dict[str, Callable[[Any], Awaitable[None]]] = {
    "sessions": sessions,
    "search": search,
    "transcript": transcript,
    "transcript-diff": transcript_diff,
    "transcript-days": transcript_days,
    "memory": memory,
    "brief": brief,
    "bookmarks": bookmarks,
    "stats": stats,
}


async def shoot(name: str, steps: Callable[[Any], Awaitable[None]], work: Path) -> Path:
    app = make_app(work / name)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await steps(pilot)
        await pilot.pause()
        return Path(app.save_screenshot(filename=f"{name}.svg", path=str(HERE)))


def main() -> int:
    # A fixed place, not a random temporary name: the memory pane shows the note's path.
    work = Path(tempfile.gettempdir()) / "sessionscope-screenshots"
    shutil.rmtree(work, ignore_errors=True)
    os.environ["SESSIONSCOPE_DATA_DIR"] = str(work / "data")  # bookmarks and briefs: never the user's
    wanted = sys.argv[1:] or list(SHOTS)
    unknown = [w for w in wanted if w not in SHOTS]
    if unknown:
        print(f"no such screenshot: {', '.join(unknown)} (there are: {', '.join(SHOTS)})", file=sys.stderr)
        return 2
    try:
        for name, steps in ((n, SHOTS[n]) for n in wanted):
            svg = asyncio.run(shoot(name, steps, work))
            print(svg)
            try:
                import cairosvg
            except ImportError:
                continue
            # The SVG asks for Fira Code, then any monospace; cairosvg's fallback for a missing
            # font is proportional, which shifts the columns. Name a monospace font it has.
            text = svg.read_text().replace("font-family: Fira Code, monospace;",
                                           'font-family: DejaVu Sans Mono;')
            cairosvg.svg2png(bytestring=text.encode(), write_to=str(svg.with_suffix(".png")))
            print(svg.with_suffix(".png"))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
