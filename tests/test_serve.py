"""`sessionscope serve`: the app in a web browser (textual-serve), bound to this machine unless
told otherwise; end to end in Debian's headless Chromium (tests/browser.py)."""
from __future__ import annotations

import http.client
import json
import os
import re
import signal
import socket
from pathlib import Path

import pytest
from browser import CHROMIUM, NO_CHROMIUM, descendants, gone, launch, open_app, screen, serving, type_keys, wait_for_text
from helpers import isolate

from sessionscope.cli import serve
from sessionscope.cli.main import build_parser, main

#: transcript text that would do something if it reached the page as HTML, a link or a
#: terminal control (each sets window.__pwned if it ever runs)
INJECTIONS = ('<img src=x onerror="window.__pwned=1"> <script>window.__pwned=2</script> '
              "[click me](javascript:window.__pwned=3) \x1b]8;;javascript:window.__pwned=4\x1b\\link\x1b]8;;\x1b\\ "
              '\x1b]52;c;SGVsbG8=\x07 \x1b]0;title\x07 </div><iframe src="javascript:window.__pwned=5"></iframe>')


def _session(root: Path, name: str, sid: str, title: str, project: str, texts: list[str]) -> None:
    lines: list[dict[str, object]] = [{"session_id": sid, "agent_id": "my-agent", "title": title,
                                       "started_at": "2026-03-01T09:00:00Z", "project": project}]
    lines += [{"role": "user" if i % 2 == 0 else "assistant", "content": t, "id": f"e{i}",
               "timestamp": f"2026-03-01T10:{i:02d}:00Z"} for i, t in enumerate(texts)]
    (root / name).write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Two sessions, one holding the injections; caches, config and home in tmp_path (the
    server's processes inherit the environment)."""
    isolate(tmp_path, monkeypatch)
    root = tmp_path / "root"
    root.mkdir()
    _session(root, "a.jsonl", "web-0001", "Feed the zebrafish", "/home/dev/aquarium",
             ["how do we migrate the zebrafish tanks?", "The zebrafish migration needs a pump. " + INJECTIONS,
              "thanks, that worked"])
    _session(root, "b.jsonl", "web-0002", "Water the tomatoes", "/home/dev/garden",
             ["when should the tomatoes be watered?", "Every morning."])
    return root


# -- end to end, in Chromium ------------------------------------------------------------------
def test_the_app_in_chromium(root: Path) -> None:
    """One browser launch: the page loads, the list shows, a search finds a hit, the transcript
    opens, the injections show as text and do nothing, ctrl+c stops the server and its apps."""
    if CHROMIUM is None:
        pytest.skip(NO_CHROMIUM)
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (pip install -e '.[test]')")
    with serving("--root", str(root)) as (proc, url), sync_api.sync_playwright() as playwright:
        assert url.startswith("http://127.0.0.1:")
        browser = launch(playwright)
        page = open_app(browser, url)
        wait_for_text(page, "Water the tomatoes")  # the session list
        wait_for_text(page, "Feed the zebrafish")
        type_keys(page, "2")
        wait_for_text(page, "Search all sessions")
        type_keys(page, "zebrafish")
        wait_for_text(page, "1 session")  # "2 hits in 1 session"
        assert "needs a pump" in screen(page)
        page.keyboard.press("Enter")  # into the results
        wait_for_text(page, "Open hit")  # (the footer, once they have the focus)
        page.keyboard.press("Enter")  # open the transcript at the hit
        wait_for_text(page, "thanks, that worked")

        shown = screen(page)
        assert '<img src=x onerror="window.__pwned=1">' in shown and "<script>window.__pwned=2</script>" in shown
        assert "␛]8;;javascript:" in shown and "␛]52;c;SGVsbG8=␇" in shown  # controls made visible
        assert page.evaluate("() => window.__pwned") is None
        assert page.evaluate("() => document.querySelectorAll('img, iframe, [onerror]').length") == 0
        assert page.evaluate("() => document.scripts.length") == 2  # the page's own: textual.js and the restart button
        assert len(page.context.pages) == 1  # no window opened
        # What the server sent the page is terminal output whose only OSC is Textual's pointer
        # shape (22): no hyperlink (8), clipboard (52) or title (0/2) from the transcript.
        stream = page.evaluate("() => window.__stream.join('')")
        assert "zebrafish" in stream and set(re.findall(r"\x1b\](\d*)", stream)) <= {"22"}

        apps = descendants(proc.pid)
        assert apps, "no app process for the page"
        os.killpg(proc.pid, signal.SIGINT)  # ctrl+c in the terminal reaches the whole group
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, (out, err)
        assert "Traceback" not in out + err and not err.strip(), err
        assert all(gone(pid, 30) for pid in apps)
        page.wait_for_function("() => document.body.classList.contains('-closed')")  # "The app has ended."
        browser.close()


# -- what a web page elsewhere could do to a local server --------------------------------------
def _request(url: str, path: str, headers: dict[str, str]) -> tuple[int, str]:
    host, port = url.removeprefix("http://").rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=60)
    conn.putrequest("GET", path, skip_host=True)
    for k, v in headers.items():
        conn.putheader(k, v)
    conn.endheaders()
    resp = conn.getresponse()
    body = resp.read().decode() if resp.status != 101 else ""
    conn.close()
    return resp.status, body


HANDSHAKE = {"Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
             "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="}


def test_another_site_cannot_open_the_app(root: Path) -> None:
    with serving("--root", str(root)) as (proc, url):
        own = url.removeprefix("http://")
        status, page = _request(url, "/", {"Host": own})
        assert status == 200 and f'data-session-websocket-url="ws://{own}/ws"' in page
        assert "googleapis" not in page and "https://" not in page  # nothing loaded from elsewhere
        # Another site's page opening a WebSocket to the local port (browsers allow it):
        status, body = _request(url, "/ws", {**HANDSHAKE, "Host": own, "Origin": "http://evil.example"})
        assert status == 403 and "not this server" in body
        status, body = _request(url, "/ws", {**HANDSHAKE, "Host": own})  # no Origin at all
        assert status == 403
        # DNS rebinding: another name pointed at 127.0.0.1, its page same-origin with itself.
        port = own.rsplit(":", 1)[1]
        rebound = {"Host": f"evil.example:{port}", "Origin": f"http://evil.example:{port}"}
        assert _request(url, "/", rebound)[0] == 403
        assert _request(url, "/ws", {**HANDSHAKE, **rebound})[0] == 403
        assert proc.poll() is None  # still serving


@pytest.mark.parametrize(("bound", "host", "origin", "refused"), [
    ("127.0.0.1", "127.0.0.1:8000", "http://127.0.0.1:8000", False),
    ("127.0.0.1", "localhost:8000", "http://localhost:8000", False),
    ("127.0.0.1", "[::1]:8000", "http://[::1]:8000", False),
    ("127.0.0.1", "localhost:8000", "http://127.0.0.1:8000", True),  # a different origin
    ("127.0.0.1", "localhost:8001", "http://localhost:8001", True),  # not this port
    ("127.0.0.1", "evil.example:8000", "http://evil.example:8000", True),  # rebinding
    ("127.0.0.1", "127.0.0.1:8000", "null", True),
    ("127.0.0.1", "127.0.0.1:8000", "", True),
    ("0.0.0.0", "myhost.lan:8000", "http://myhost.lan:8000", False),  # --host: any name it is reached by
    ("0.0.0.0", "myhost.lan:8000", "http://evil.example", True),
])
def test_refusals(bound: str, host: str, origin: str, refused: bool) -> None:
    why = serve.Refusals(bound, 8000).origin_refused(origin or None, host)
    assert (why is not None) is refused, why


# -- the command line -------------------------------------------------------------------------
class _NoServer:
    def __init__(self, command: str, sock: socket.socket, host: str) -> None:
        self.command, self.address = command, sock.getsockname()
        sock.close()

    def serve(self) -> None:
        _NoServer.last = self  # type: ignore[attr-defined]


def test_bound_to_this_machine_by_default(root: Path, monkeypatch: pytest.MonkeyPatch,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(serve, "make_server", _NoServer)
    assert main(["serve", "--root", str(root), "--port", "0"]) == 0
    assert _NoServer.last.address[0] == "127.0.0.1"  # type: ignore[attr-defined]
    assert capsys.readouterr().err == ""


def test_another_interface_is_warned_about(root: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(serve, "make_server", _NoServer)
    assert main(["serve", "--root", str(root), "--host", "0.0.0.0", "--port", "0"]) == 0
    assert _NoServer.last.address[0] == "0.0.0.0"  # type: ignore[attr-defined]
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "warning: serving on 0.0.0.0" in err
    assert "anyone who can reach" in err and "no authentication" in err


def test_a_busy_port_is_one_line(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["serve", "--root", str(root), "--port", str(port)]) == 2
    err = capsys.readouterr().err
    assert err == f"sessionscope: port {port} on 127.0.0.1 is already in use (another server?): " \
                  "choose another with --port N, or --port 0 for any free one\n"


@pytest.mark.parametrize(("argv", "says"), [
    (["--json"], "serve has no --json output"),
    (["--port", "70000"], "expected a port number (0-65535), got 70000"),
    (["--port", "http"], "expected a port number (0-65535), got 'http'"),
    (["--host", "no such host.invalid"], "cannot listen on 'no such host.invalid'"),
])
def test_bad_input_is_one_line(root: Path, capsys: pytest.CaptureFixture[str], argv: list[str], says: str) -> None:
    assert main(["serve", "--root", str(root), "--port", "0", *argv]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and says in err, err


def test_a_missing_root_is_an_error_before_serving(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    isolate(tmp_path, monkeypatch)
    monkeypatch.setattr(serve, "make_server", _NoServer)
    assert main(["serve", "--root", str(tmp_path / "missing"), "--port", "0"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "missing" in err


def test_each_tab_runs_the_app_with_the_same_roots(tmp_path: Path) -> None:
    argv = ["--poll", "serve", "--root", "r1", "--root", str(tmp_path), "--memory-dir", "notes", "--demo"]
    command = serve.app_command(build_parser("serve").parse_args(argv))
    assert command.split()[2:] == ["-m", "sessionscope", "--demo", "--root", os.path.abspath("r1"),
                                   "--root", str(tmp_path), "--memory-dir", os.path.abspath("notes"), "--poll"]
    plain = serve.app_command(build_parser("serve").parse_args(["serve"]))
    assert plain.split()[2:] == ["-m", "sessionscope"]


def test_the_url_to_open() -> None:
    assert serve.url_of("127.0.0.1", 8000) == "http://127.0.0.1:8000"
    assert serve.url_of("::1", 8000) == "http://[::1]:8000"
    # every interface: the machine's name (a browser elsewhere cannot open 0.0.0.0)
    assert serve.url_of("0.0.0.0", 8000) == f"http://{socket.gethostname()}:8000"
