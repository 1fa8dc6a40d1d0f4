"""`sessionscope serve`: the app in a web browser, through textual-serve.

Each browser tab that opens the page gets the app of its own: textual-serve starts
`python -m sessionscope [the same root options]` with Textual's web driver and relays its
screen to xterm.js in the page over a WebSocket. The app is the terminal app, so untrusted
transcript text reaches the page only as terminal cells drawn by xterm.js (sanitised as on a
terminal: no escape sequence, no markup, no hyperlink of its own), never as HTML.

There is no authentication: whoever can reach the port can open the app and read the user's
agent history. So it is bound to 127.0.0.1 unless `--host` names another interface (then a
warning says so), and the server refuses what a web page elsewhere could do to a local port:
  * a WebSocket opened by another site's page (browsers let any page open one to 127.0.0.1):
    the handshake's Origin must be this server's own address;
  * DNS rebinding (another site's name pointed at 127.0.0.1, so its page is same-origin with
    the server): bound to a loopback address, the Host header must be a loopback name.

Hooks for cli/main.py: `add_parser(sub, common)` and `run(args)`.
"""
from __future__ import annotations

import argparse
import ipaddress
import os
import shlex
import socket
import sys
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from sessionscope.cli.common import CliError

if TYPE_CHECKING:
    from aiohttp import web

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000
#: the Host names a browser on this machine uses for a loopback address
#: how long the server waits, stopping, for each tab's app to quit before it kills it
APP_EXIT_SECONDS = 5.0
LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
WARNING = ("sessionscope: warning: serving on {host}, not only on this machine: anyone who can reach "
           "port {port} there can open the app and read your agent history (there is no authentication)")


def add_parser(sub: Any, common: argparse.ArgumentParser) -> None:
    s = sub.add_parser(
        "serve", parents=[common],
        help="serve the app to a web browser (textual-serve), on 127.0.0.1 unless --host says otherwise",
        description="Serves the app (the same as `sessionscope` with the same root options) to a web "
        "browser, each tab running its own copy. Bound to 127.0.0.1: only this machine can open it. "
        "There is no authentication: another --host lets anyone who reaches the port read your history.")
    s.add_argument("--port", type=_port, default=DEFAULT_PORT,
                   help=f"the TCP port (default {DEFAULT_PORT}; 0 picks a free one)")
    s.add_argument("--host", default=DEFAULT_HOST, metavar="HOST",
                   help="the interface to listen on (default 127.0.0.1, this machine only; "
                   "0.0.0.0 is every interface: anyone who reaches it can read your history)")
    s.add_argument("--poll", action="store_true", default=argparse.SUPPRESS,  # keeps one given before 'serve'
                   help="the app: poll for changes instead of inotify (network file systems)")
    s.add_argument("--memory-dir", action="append", default=argparse.SUPPRESS, metavar="DIR",
                   help="the app: also read memory notes from DIR (repeatable)")


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port number (0-65535), got {text!r}")
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"expected a port number (0-65535), got {value}")
    return value


def app_command(args: argparse.Namespace) -> str:
    """The shell command textual-serve runs for each browser tab: this Python's sessionscope
    app, with the root options `serve` was given."""
    argv = [sys.executable, "-m", "sessionscope"]
    if args.demo:
        argv.append("--demo")
    for root in args.root:
        argv += ["--root", os.path.abspath(os.path.expanduser(root))]
    for folder in getattr(args, "memory_dir", []):
        argv += ["--memory-dir", os.path.abspath(os.path.expanduser(folder))]
    if getattr(args, "poll", False):
        argv.append("--poll")
    # `exec`: the shell textual-serve runs it in becomes the app (one process to wait for).
    return ("exec " if os.name == "posix" else "") + shlex.join(argv)


def is_loopback(host: str) -> bool:
    if host.lower() in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def listen(host: str, port: int) -> socket.socket:
    """The listening socket, or a one-line CliError saying why not (a busy port above all)."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError) as exc:
        raise CliError(f"cannot listen on {host!r}: {getattr(exc, 'strerror', None) or exc}")
    family, _, _, _, address = infos[0]
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        if os.name != "nt":  # (a restart may reuse the port at once; on Windows this would share it)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError as exc:
        sock.close()
        import errno

        if exc.errno == errno.EADDRINUSE:
            raise CliError(f"port {port} on {host} is already in use (another server?): "
                           "choose another with --port N, or --port 0 for any free one")
        raise CliError(f"cannot listen on {host} port {port}: {exc.strerror or exc}")
    return sock


def url_of(host: str, port: int) -> str:
    """The URL to open; for every interface (0.0.0.0, ::), by this machine's name."""
    try:
        if ipaddress.ip_address(host).is_unspecified:
            host = socket.gethostname()
    except ValueError:
        pass
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}"


def _host_name(netloc: str) -> tuple[str, int | None]:
    """A Host header's (or an Origin's) name and port; ('', None) when it does not parse."""
    try:
        parts = urlsplit(f"//{netloc}")
        return (parts.hostname or ""), parts.port
    except ValueError:
        return "", None


class Refusals:
    """Which requests the server turns away (see the module docstring)."""

    def __init__(self, host: str, port: int) -> None:
        self.loopback = is_loopback(host)
        self.port = port

    def host_refused(self, host_header: str | None) -> str | None:
        """Why a request with this Host header is refused, or None."""
        name, port = _host_name(host_header or "")
        if not name:
            return "no Host header"
        if self.loopback and (not is_loopback(name) or port != self.port):
            return f"the server is local: Host {host_header!r} is not this machine's address"
        return None

    def origin_refused(self, origin: str | None, host_header: str | None) -> str | None:
        """Why a WebSocket handshake from this Origin is refused, or None: only the page this
        server serves may open one."""
        if not origin:
            return "no Origin: only the page served here opens the app"
        parts = urlsplit(origin)
        if parts.scheme not in ("http", "https") or parts.netloc.lower() != (host_header or "").lower():
            return f"Origin {origin!r} is not this server: only the page served here opens the app"
        return self.host_refused(host_header)


def make_server(command: str, sock: socket.socket, host: str) -> Any:
    """A textual-serve Server for `command` on the bound `sock`, with the refusals above, whose
    apps are all ended before it returns."""
    import asyncio
    from pathlib import Path

    from aiohttp import web
    from textual_serve.app_service import AppService
    from textual_serve.server import Server

    port = sock.getsockname()[1]
    refusals = Refusals(host, port)
    url = url_of(host, port)
    apps: set[asyncio.subprocess.Process] = set()  # the app of each open tab
    tabs: set[web.WebSocketResponse] = set()  # and its connection

    class TrackedApp(AppService):
        async def _open_app_process(self, width: int = 80, height: int = 24) -> asyncio.subprocess.Process:
            process = await super()._open_app_process(width, height)
            apps.add(process)
            return process

    async def close_tabs(app: web.Application) -> None:
        """Stopping: each tab's connection closed, so its app is asked to quit at once (else the
        server would wait for the connections to end by themselves)."""
        from aiohttp import WSCloseCode

        await asyncio.gather(*(tab.close(code=WSCloseCode.GOING_AWAY, message=b"server stopped")
                               for tab in list(tabs)), return_exceptions=True)

    async def end_apps(app: web.Application) -> None:
        """After the tabs' connections are closed (each asked its app to quit): wait for the apps,
        so that none outlives the server (nor is reaped after its event loop is gone)."""
        for process in list(apps):
            try:
                await asyncio.wait_for(process.wait(), APP_EXIT_SECONDS)
            except asyncio.TimeoutError:
                process.kill()
                await process.wait()

    class AppServer(Server):
        def initialize_logging(self) -> None:  # textual-serve's is a rich log of every connection
            import logging

            logging.basicConfig(level=logging.WARNING, format="sessionscope serve: %(message)s")

        async def _make_app(self) -> web.Application:
            app = await super()._make_app()
            app.on_shutdown.append(close_tabs)
            app.on_cleanup.append(end_apps)
            return app

        async def on_startup(self, app: web.Application) -> None:
            print(f"sessionscope serve: {url}  (ctrl+c to stop)", flush=True)

        async def handle_index(self, request: web.Request) -> dict[str, Any]:
            if why := refusals.host_refused(request.headers.get("Host")):
                raise web.HTTPForbidden(text=f"sessionscope serve: {why}\n")
            # The page's WebSocket goes back to the address the browser used to reach it.
            self.public_url = f"{request.scheme}://{request.host}"
            return await super().handle_index(request)

        async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
            """textual-serve's, behind the refusals, with the app's process kept in `apps`."""
            if why := refusals.origin_refused(request.headers.get("Origin"), request.headers.get("Host")):
                raise web.HTTPForbidden(text=f"sessionscope serve: {why}\n")
            websocket = web.WebSocketResponse(heartbeat=15)
            width = _int(request.query.get("width"), 80)
            height = _int(request.query.get("height"), 24)
            service: AppService | None = None
            try:
                await websocket.prepare(request)
                tabs.add(websocket)
                service = TrackedApp(self.command, write_bytes=websocket.send_bytes, write_str=websocket.send_str,
                                     close=websocket.close, download_manager=self.download_manager)
                await service.start(width, height)
                await self._process_messages(websocket, service)
            except asyncio.CancelledError:
                await websocket.close()
            except Exception as exc:  # (a tab's trouble is logged; the server goes on)
                import logging

                logging.getLogger("textual-serve").warning("a tab's app failed: %s", exc)
            finally:
                tabs.discard(websocket)
                if service is not None:
                    await service.stop()
                    if service._process is not None and service._process.returncode is not None:
                        apps.discard(service._process)
            return websocket

        def serve(self, debug: bool = False) -> None:
            import signal

            from aiohttp.web_runner import GracefulExit

            self.initialize_logging()
            loop = asyncio.new_event_loop()
            asyncio.set_event_loop(loop)

            def stop() -> None:
                raise GracefulExit()

            for sig in (signal.SIGINT, signal.SIGTERM):
                try:
                    loop.add_signal_handler(sig, stop)
                except (NotImplementedError, RuntimeError):  # (not on Windows' loop)
                    pass
            web.run_app(self._make_app(), sock=sock, handle_signals=False, loop=loop,
                        print=lambda *a: None, shutdown_timeout=2.0)

    return AppServer(command, host=host, port=port, title="sessionscope",
                     templates_path=Path(__file__).resolve().parent / "templates")


def _int(text: str | None, default: int) -> int:
    try:
        return max(1, min(1000, int(text or "")))
    except ValueError:
        return default


def run(args: argparse.Namespace) -> int:
    if args.json:
        raise CliError("serve has no --json output: it serves the app until ctrl+c")
    try:
        import textual_serve  # noqa: F401
    except ImportError:
        raise CliError("serve needs textual-serve: pip install textual-serve")
    from sessionscope.cli.app import build_app

    # The roots are checked here, once, as the app checks them: a mistyped --root is an error
    # now, not in every browser tab.
    build_app(args)
    sock = listen(args.host, args.port)
    if not is_loopback(args.host):
        print(WARNING.format(host=args.host, port=sock.getsockname()[1]), file=sys.stderr, flush=True)
    make_server(app_command(args), sock, args.host).serve()
    return 0
