"""Driving `sessionscope serve` in Debian's headless Chromium with Playwright (tests/test_serve.py,
screenshots/make_serve_screenshot.py).

Only the system's Chromium is used (Playwright's own browser download is not wanted): `CHROMIUM`
is None where there is none, and the tests skip saying so. The page draws the terminal on a
canvas (xterm.js), so "text in the page" is read from xterm's buffer: `HOOK` keeps the Terminal
textual-serve's script creates (it assigns it to a `terminal` property) as `window.__term`, and
records every byte the server sends to the page in `window.__stream`.
"""
from __future__ import annotations

import os
import selectors
import shutil
import signal
import subprocess
import sys
from contextlib import contextmanager
from typing import Any, Iterator

CHROMIUM = next((p for p in (shutil.which("chromium"), "/usr/bin/chromium") if p and os.path.exists(p)), None)
NO_CHROMIUM = ("no chromium on this machine (the README's test command installs Debian's: "
               "apt-get install chromium)")
#: headless, and none of Chromium's own connections out (this machine's network is closed)
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
#: how long one step may take before the test fails (the machine may be loaded)
TIMEOUT_MS = 60_000

HOOK = """
Object.defineProperty(Object.prototype, "terminal", {
  configurable: true,
  set(value) {
    window.__term = value;
    Object.defineProperty(this, "terminal", {value, writable: true, configurable: true, enumerable: true});
  },
});
window.__stream = [];
const PageSocket = window.WebSocket;
window.WebSocket = function (...args) {
  const socket = new PageSocket(...args);
  socket.addEventListener("message", (event) => {
    if (typeof event.data !== "string") window.__stream.push(new TextDecoder().decode(event.data));
  });
  return socket;
};
window.WebSocket.prototype = PageSocket.prototype;
"""
SCREEN = """() => {
  const lines = [], buffer = window.__term.buffer.active;
  for (let y = 0; y < buffer.length; y++) lines.push(buffer.getLine(y).translateToString(true));
  return lines.join("\\n");
}"""


def launch(playwright: Any) -> Any:
    """Debian's Chromium, headless, in a fresh profile (Playwright makes a new one each launch)."""
    return playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)


def open_app(browser: Any, url: str, size: tuple[int, int] = (1200, 700)) -> Any:
    page = browser.new_page(viewport={"width": size[0], "height": size[1]})
    page.add_init_script(HOOK)
    page.goto(url, wait_until="domcontentloaded")
    return page


def screen(page: Any) -> str:
    """The terminal's text as the page shows it."""
    return page.evaluate(SCREEN)


def wait_for_text(page: Any, text: str) -> None:
    """Until the page's terminal shows `text` (fails after TIMEOUT_MS, showing the screen)."""
    try:
        page.wait_for_function(f"text => window.__term && ({SCREEN})().includes(text)", arg=text,
                               timeout=TIMEOUT_MS)
    except Exception as exc:
        shown = screen(page) if page.evaluate("() => !!window.__term") else "(no terminal in the page)"
        raise AssertionError(f"{text!r} never showed; the screen:\n{shown}") from exc


def focus(page: Any) -> None:
    """Keys to the terminal (the app shows its focus, and its footer, once the page has it)."""
    page.focus(".xterm-helper-textarea")


def type_keys(page: Any, keys: str) -> None:
    focus(page)
    page.keyboard.type(keys)


@contextmanager
def serving(*args: str) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """`sessionscope serve ARGS --port 0` in a process group of its own (as a terminal's
    ctrl+c reaches it), and the URL it printed. Stopped with SIGTERM if the test left it running."""
    proc = subprocess.Popen([sys.executable, "-m", "sessionscope", "serve", *args, "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        with selectors.DefaultSelector() as sel:
            sel.register(proc.stdout, selectors.EVENT_READ)  # type: ignore[arg-type]
            line = proc.stdout.readline() if sel.select(TIMEOUT_MS / 1000) else ""  # type: ignore[union-attr]
        if not line.startswith("sessionscope serve: http://"):
            proc.kill()
            out, err = proc.communicate()
            raise AssertionError(f"serve did not start: {line}{out}{err}")
        yield proc, line.split()[2]
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.communicate(timeout=TIMEOUT_MS / 1000)


def descendants(pid: int) -> list[int]:
    """The processes under `pid` (from /proc: Linux)."""
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(name))
    found, todo = [], [pid]
    while todo:
        kids = children.get(todo.pop(), [])
        found += kids
        todo += kids
    return found


def gone(pid: int, timeout: float) -> bool:
    """Whether process `pid` (not necessarily a child of ours) has ended within `timeout` s:
    waited on with a pidfd, not by polling."""
    import select

    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        return bool(select.select([fd], [], [], timeout)[0])
    finally:
        os.close(fd)
