"""The footer at 120 columns: in every main state the key that opens the help fits on screen
(a footer too long for the terminal cuts its last keys, and `?` was the one cut)."""
from __future__ import annotations

from pathlib import Path

import pytest
from app_factory import settle, warm_app
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

SIZE = (120, 36)


def _footer_keys(app) -> dict[str, tuple[str, int]]:  # noqa: ANN001
    """Each visible footer key's description and the column its right edge reaches."""
    footer = app.screen.query_one(Footer)
    return {k.key: (k.description, k.region.right) for k in footer.query(FooterKey) if k.display}


async def _state(pilot, keys: tuple[str, ...]) -> None:  # noqa: ANN001
    await settle(pilot)
    for key in keys:
        await pilot.press(key)
        await settle(pilot)


@pytest.mark.parametrize("keys", [
    (),                      # the session list
    ("enter",),              # a transcript
    ("3",),                  # the memory timeline
    ("3", "tab"),            # its sessions around a note
    ("2", "r", "e", "t", "r", "y", "enter", "down"),  # search results
], ids=["sessions", "transcript", "memory", "memory-sessions", "search-results"])
async def test_the_help_key_fits_in_the_footer(tmp_path: Path, keys: tuple[str, ...]) -> None:
    app = warm_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await _state(pilot, keys)
        shown = _footer_keys(app)
        assert "question_mark" in shown, sorted(shown)
        assert shown["question_mark"][1] <= SIZE[0] - len("^p palette"), shown


async def test_the_search_box_footer_says_how_to_leave(tmp_path: Path) -> None:
    """The query box takes every printable key, so escape (back to the sessions) is what the footer
    shows there; on the session list escape is not offered (nothing to go back to)."""
    app = warm_app(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert "escape" not in _footer_keys(app)
        await pilot.press("2")
        await settle(pilot)
        assert _footer_keys(app).get("escape", ("",))[0] == "Sessions"
        await pilot.press("escape")
        await settle(pilot)
        assert app.screen.active_tab == "sessions"
