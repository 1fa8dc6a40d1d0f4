"""Make the README's pictures of two commands over the demo corpus, in Debian's headless Chromium
(the same tooling as tests/test_serve.py):

* export.png: `sessionscope export ID --format html` as the browser shows the page it writes;
* archive.png: `sessionscope archive`, then a project's sessions listed after its agent deleted
  them, as a terminal shows them (the text drawn by rich as SVG, then rendered).

    python screenshots/make_cli_screenshots.py         # writes screenshots/export.png, archive.png

Needs /usr/bin/chromium and `pip install -e '.[test]'`. Works in a temporary home.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from browser import CHROMIUM, NO_CHROMIUM, launch  # noqa: E402

EXPORTED = "3f73064c"  # the demo's retry-settings session: prompts, tool calls, a question
PROJECT = "-home-dev-projects-payments-api"


def run(*argv: str) -> str:
    done = subprocess.run([sys.executable, "-m", "sessionscope", *argv], capture_output=True, text=True,
                          env={**os.environ, "COLUMNS": "118"})
    if done.returncode:
        raise SystemExit(f"sessionscope {' '.join(argv)} failed: {done.stderr.strip()}")
    return done.stdout.rstrip("\n")


def terminal_svg(text: str, path: Path, title: str) -> None:
    from rich.console import Console
    from rich.text import Text

    console = Console(record=True, width=120, file=open(os.devnull, "w"))
    console.print(Text(text))  # (our own commands' output: no markup read from it)
    console.save_svg(str(path), title=title)


def main() -> int:
    if CHROMIUM is None:
        print(NO_CHROMIUM, file=sys.stderr)
        return 1
    from sessionscope.core.demo import generate_demo

    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        demo = generate_demo(t / "demo")
        home = t / "home"
        shutil.copytree(demo.claude_root, home / ".claude")
        shutil.copytree(demo.codex_root, home / ".codex")
        os.environ.update({"HOME": str(home), "SESSIONSCOPE_CACHE_DIR": str(t / "cache"),
                           "SESSIONSCOPE_CONFIG": str(t / "none.toml")})
        for var in ("SESSIONSCOPE_DATA_DIR", "XDG_DATA_HOME"):  # (the data folder in the home: ~/.local/share)
            os.environ.pop(var, None)
        page = t / "export.html"
        run("export", EXPORTED, "--format", "html", "-o", str(page))
        lines = ["$ sessionscope archive", run("archive"), "",
                 f"$ rm -r ~/.claude/projects/{PROJECT}    # as Claude Code does after 30 days", "",
                 "$ sessionscope sessions --project payments-api", run("sessions", "--project", "payments-api")]
        shutil.rmtree(home / ".claude" / "projects" / PROJECT)
        lines[-1] = run("sessions", "--project", "payments-api")
        terminal_svg("\n".join(lines).replace(str(home), "~"), t / "archive.svg", "sessionscope archive")
        from playwright.sync_api import sync_playwright

        with sync_playwright() as playwright:
            browser = launch(playwright)
            for source, out, size in ((page, "export.png", (1100, 900)), (t / "archive.svg", "archive.png", (1100, 420))):
                tab = browser.new_page(viewport={"width": size[0], "height": size[1]})
                tab.goto(source.as_uri())
                tab.screenshot(path=str(HERE / out))
                print(f"wrote {HERE / out}")
            browser.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
