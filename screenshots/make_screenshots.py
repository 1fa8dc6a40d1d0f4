"""Make the README's screenshots: the app itself, driven headless over the demo corpus.

    python screenshots/make_screenshots.py        # writes screenshots/*.svg (and *.png with cairosvg)

Deterministic: a fixed clock and seed, caches in a temporary directory.
"""
from __future__ import annotations

import asyncio
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Awaitable, Callable

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

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


SHOTS: dict[str, Callable[[Any], Awaitable[None]]] = {
    "sessions": sessions,
    "search": search,
    "transcript": transcript,
    "transcript-diff": transcript_diff,
}


async def shoot(name: str, steps: Callable[[Any], Awaitable[None]], work: Path) -> Path:
    app = make_app(work / name)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await steps(pilot)
        await pilot.pause()
        return Path(app.save_screenshot(filename=f"{name}.svg", path=str(HERE)))


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        for name, steps in SHOTS.items():
            svg = asyncio.run(shoot(name, steps, Path(tmp)))
            print(svg)
            try:
                import cairosvg
            except ImportError:
                continue
            cairosvg.svg2png(url=str(svg), write_to=str(svg.with_suffix(".png")))
            print(svg.with_suffix(".png"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
