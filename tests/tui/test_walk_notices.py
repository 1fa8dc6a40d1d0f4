"""The app tells of the folders a scan could not read or left out (issue 10, items 6 and 12)."""
from __future__ import annotations

from pathlib import Path

import pytest

from app_factory import NOW, make_app, settle
from helpers import refuse_listing

from sessionscope.core.demo import generate_demo


async def test_an_unreadable_folder_and_a_link_out_of_the_root_are_notices(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    corpus = generate_demo(tmp_path / "demo", now=NOW)
    folders = sorted(p for p in Path(corpus.claude_root).iterdir() if p.is_dir())
    locked = folders[0]
    (Path(corpus.claude_root) / "[b]outside").symlink_to(tmp_path)
    refuse_listing(monkeypatch, str(locked))
    app = make_app(tmp_path, corpus)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        messages = [n.message for n in app._notifications]
    assert any(m.startswith("1 file(s), folder(s) or root(s) could not be read: "
                            f"folder {locked} could not be read (Permission denied)") for m in messages), messages
    assert any("1 directory link(s) leading out of the root not followed" in m and "[b]outside" in m
               for m in messages), messages
