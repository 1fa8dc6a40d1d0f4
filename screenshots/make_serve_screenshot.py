"""Make the README's screenshot of `sessionscope serve`: the app over the demo corpus in Debian's
headless Chromium, driven with Playwright (the same tooling as tests/test_serve.py).

    python screenshots/make_serve_screenshot.py        # writes screenshots/serve.png

Needs /usr/bin/chromium and `pip install -e '.[test]'`. Caches in a temporary directory.
"""
from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from browser import CHROMIUM, NO_CHROMIUM, focus, launch, open_app, serving, wait_for_text  # noqa: E402


def main() -> int:
    if CHROMIUM is None:
        print(NO_CHROMIUM, file=sys.stderr)
        return 1
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        os.environ["SESSIONSCOPE_CACHE_DIR"] = str(Path(tmp) / "cache")
        os.environ["SESSIONSCOPE_DATA_DIR"] = str(Path(tmp) / "data")
        os.environ["SESSIONSCOPE_CONFIG"] = str(Path(tmp) / "none.toml")
        with serving("--demo") as (_, url), sync_playwright() as playwright:
            browser = launch(playwright)
            page = open_app(browser, url, size=(1280, 720))
            wait_for_text(page, "Refactor the retry settings")  # the session list
            wait_for_text(page, "138.6k")  # its counts, once the files are read in full
            focus(page)
            wait_for_text(page, "palette")  # the footer
            page.screenshot(path=str(HERE / "serve.png"))
            browser.close()
    print(f"wrote {HERE / 'serve.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
