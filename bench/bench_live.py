"""Live bench: how soon a line appended to a watched transcript is in the app (its library, the
session list or the open transcript, the search index), and what an idle watching app costs.

Run (from the repository root):

    .venv/bin/python bench/bench_live.py             # 2,000 sessions under watch (~10 min)
    .venv/bin/python bench/bench_live.py --quick     # fewer appends, 10 s idle windows (~2 min)
    .venv/bin/python bench/bench_live.py --json      # the figures as JSON on stdout
    .venv/bin/python bench/bench_live.py --sessions 20000 --pieces 20000   # the big variant

The sessions are the small-files corpus of bench_app.py (bench/gen_corpus.py, cached in
bench/.corpus-app/s<N>/), copied into a temporary directory under bench/.corpus-app/ (the bench
appends to the copy, never to the cache) whose catalog and search index are warmed first, as a
user's would be. Every measured app runs in a fresh subprocess: the real `SessionScopeApp`,
headless under Pilot (`run_test`, 120x40), watching on (`watch=True`, and `poll=True` for the
polling rows), over that copy.

1. Append to arrival. The bench process appends one Claude-shaped user line (a unique token in
   its text, chained to the file's last record) to a session file and takes `time.monotonic()`
   just before the write (system-wide on Linux, so the child's clock is the same clock). The
   child hooks the app and writes a line to its stdout when the token arrives:
     event       the batch that holds the new entry reaches the app's thread
                 (`on_session_scope_app_sessions_changed`; the library's session is updated by
                 then: the watcher applies a batch before posting it)
     list        the session list's model (`SessionList.set_sessions`) holds the session with
                 its new entry count (main screen showing; each append goes to a random file)
     transcript  the open transcript view's rows hold the new entry (`TranscriptScreen.
                 sessions_changed`; the transcript of the appended file is open)
     search      `app.search(token)` finds it, asked right after each `SearchIndex.update`
                 returns in the app's index thread
   Nothing sleeps on the measured path: the bench blocks on the child's pipe. Between appends it
   waits a little over the app's INDEX_INTERVAL (the live index runs at most once a second), so
   each append is measured from a quiet app. Baseline in the same run: bare `watchfiles.watch`
   over the same roots, append to yield, with the watcher's DEBOUNCE_MS/STEP_MS (and for the
   polling rows its own poller, every 100 ms): what the watcher was built on, and still uses
   where there is no inotify. With polling, list rows append to files that were quiet (found by
   a sweep), transcript rows to a file being written (looked at every POLL_MS).
2. Idle CPU: process CPU time (`time.process_time()`, all threads) over a window (60 s; 10 s
   with --quick) of the real app, watching, nothing changing, after its start-up work is done;
   against an empty Textual `App()` idling the same window under the same harness. Both in
   fresh processes. The busiest threads are listed.
3. Where the time of an append goes inside the app (median ms per call while appending).
4. The append's path piece by piece, without the app, at 2,000 (and with --pieces, 20,000)
   sessions: `Tracker.apply` for the changed path (with its `put_row`, `_relink`,
   `Catalog.put`), the index update after it (`SearchIndex.update`, with `paths=` when the
   index takes the watcher's paths), the index update when nothing changed, `all_sessions()`.

Machines are noisy (shared 2-core runners move by +-40%): read the ratios to the baselines.
"""
from __future__ import annotations

import argparse
import asyncio
import inspect
import json
import os
import queue
import random
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

SIZE = (120, 40)
APP_CACHE = HERE / ".corpus-app"
TOKEN = re.compile(r"benchtok[0-9a-f]+")
ARRIVALS = {"list": ("event", "list", "search"), "transcript": ("event", "transcript", "search"),
            "raw": ("raw",)}
WAIT_S = 20.0  # an arrival later than this counts as missed


def _emit(obj: dict[str, Any]) -> None:
    os.write(1, (json.dumps(obj) + "\n").encode())


def _thread_cpu() -> dict[str, float]:
    """CPU seconds of each thread of this process (Python's name for it, else the kernel's)."""
    tick = os.sysconf("SC_CLK_TCK")
    names = {t.native_id: t.name for t in threading.enumerate()}
    out: dict[str, float] = {}
    for tid in os.listdir("/proc/self/task"):
        try:
            with open(f"/proc/self/task/{tid}/stat") as fh:
                comm, _, rest = fh.read().partition(" (")[2].rpartition(")")
            fields = rest.split()
        except OSError:
            continue
        name = names.get(int(tid)) or comm
        out[name] = out.get(name, 0.0) + (int(fields[11]) + int(fields[12])) / tick
    return out


def _idle_window(seconds: float) -> Any:
    """An awaitable measuring CPU over `seconds` of doing nothing (the app runs meanwhile)."""
    async def run() -> dict[str, Any]:
        threads0 = _thread_cpu()
        cpu0, t0 = time.process_time(), time.monotonic()
        await asyncio.sleep(seconds)
        cpu, wall = time.process_time() - cpu0, time.monotonic() - t0
        threads1 = _thread_cpu()
        per = {k: round(v - threads0.get(k, 0.0), 3) for k, v in threads1.items()}
        return {"idle_cpu_s": cpu, "idle_wall_s": wall,
                "threads": dict(sorted(per.items(), key=lambda kv: -kv[1])[:6])}
    return run()


# -- children -----------------------------------------------------------------------------------


def _stdin_closed(loop: asyncio.AbstractEventLoop, done: asyncio.Event) -> None:
    def wait() -> None:
        sys.stdin.buffer.read()
        loop.call_soon_threadsafe(done.set)
    threading.Thread(target=wait, daemon=True, name="bench-stdin").start()


async def _empty_phase(args: argparse.Namespace) -> None:
    from textual.app import App

    app: App[None] = App()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause(1.0)
        _emit({"ready": True, **await _idle_window(args.idle_s)})


def _raw_phase(args: argparse.Namespace) -> None:
    """Bare watchfiles over the roots, the Watcher's settings: the floor under the app's event."""
    import watchfiles

    from sessionscope.core.live.watch import DEBOUNCE_MS, RECHECK_MS, STEP_MS

    stop = threading.Event()
    first = [True]

    def exit_on_eof() -> None:
        sys.stdin.buffer.read()
        os._exit(0)
    threading.Thread(target=exit_on_eof, daemon=True, name="bench-stdin").start()

    class Probe:  # the first `is_set()` comes once the watches are in place
        def is_set(self) -> bool:
            if first[0]:
                first[0] = False
                _emit({"ready": True})
            return stop.is_set()

    for changes in watchfiles.watch(*args.root, watch_filter=None, debounce=DEBOUNCE_MS, step=STEP_MS,
                                    stop_event=Probe(), rust_timeout=RECHECK_MS, yield_on_timeout=True,
                                    force_polling=args.poll, poll_delay_ms=100, raise_interrupt=False):
        now = time.monotonic()
        for _, path in changes:
            _emit({"arrived": "raw", "path": path, "t": now})


def _timed(cls: Any, name: str, sink: Callable[[str, float], None], label: str | None = None) -> None:
    orig = getattr(cls, name, None)
    if orig is None:
        return
    label = label or f"{cls.__name__}.{name}"

    def wrapper(*a: Any, **k: Any) -> Any:
        t = time.perf_counter()
        try:
            return orig(*a, **k)
        finally:
            sink(label, time.perf_counter() - t)
    setattr(cls, name, wrapper)


async def _live_phase(args: argparse.Namespace) -> None:
    """The real app over the roots, watching; reports each token's arrivals on stdout."""
    from sessionscope.core.catalog.store import Catalog
    from sessionscope.core.read.discovery import Root
    from sessionscope.core.search.index import SearchIndex
    from sessionscope.core.catalog.library import Library
    from sessionscope.core.live.tracker import Tracker
    from sessionscope.core.live.watch import Watcher
    from sessionscope.tui.app import SessionScopeApp
    from sessionscope.tui.screens.main import MainScreen
    from sessionscope.tui.screens.transcript import TranscriptScreen
    from sessionscope.tui.widgets.session_list import SessionList
    from sessionscope.tui.widgets.transcript_view import TranscriptView

    measuring = [False]
    lock = threading.Lock()
    want_list: dict[str, tuple[str, int]] = {}  # token -> (session id, entry count) for the list
    want_view: set[str] = set()
    want_search: set[str] = set()
    caught_up = threading.Event()
    applies = [0]

    def diag(label: str, seconds: float) -> None:
        if measuring[0]:
            _emit({"diag": label, "s": seconds})

    # -- arrival hooks (each takes its time first, then looks)
    on_changed = SessionScopeApp.on_session_scope_app_sessions_changed

    def hooked_changed(self: Any, event: Any, *a: Any, **k: Any) -> None:
        now = time.monotonic()
        for ev in event.events:
            for e in ev.entries:
                for tok in TOKEN.findall(e.text or ""):
                    _emit({"arrived": "event", "token": tok, "t": now, "batch": len(event.events)})
                    with lock:
                        if ev.sessions:
                            want_list[tok] = (ev.sessions[0].id, ev.sessions[0].entry_count)
                        want_view.add(tok)
                        want_search.add(tok)
        on_changed(self, event, *a, **k)
    SessionScopeApp.on_session_scope_app_sessions_changed = hooked_changed  # type: ignore[method-assign]

    set_sessions = SessionList.set_sessions

    def hooked_set_sessions(self: Any, *a: Any, **k: Any) -> None:
        set_sessions(self, *a, **k)
        now = time.monotonic()
        with lock:
            todo = dict(want_list)
        if not todo:
            return
        counts = {r.session.id: r.session.entry_count for r in self.model.rows}
        for tok, (sid, n) in todo.items():
            if counts.get(sid, -1) >= n:
                _emit({"arrived": "list", "token": tok, "t": now})
                with lock:
                    want_list.pop(tok, None)
    SessionList.set_sessions = hooked_set_sessions  # type: ignore[method-assign]

    screen_changed = TranscriptScreen.sessions_changed

    def hooked_screen_changed(self: Any, *a: Any, **k: Any) -> None:
        screen_changed(self, *a, **k)
        now = time.monotonic()
        with lock:
            todo = set(want_view)
        if not todo:
            return
        view = self.query_one(TranscriptView)
        for row in view.rows[-20:]:
            for tok in TOKEN.findall(row.entry.text or ""):
                if tok in todo:
                    _emit({"arrived": "transcript", "token": tok, "t": now})
                    with lock:
                        want_view.discard(tok)
    TranscriptScreen.sessions_changed = hooked_screen_changed  # type: ignore[method-assign]

    update = SearchIndex.update

    def hooked_update(self: Any, *a: Any, **k: Any) -> Any:
        t0 = time.perf_counter()
        report = update(self, *a, **k)
        if measuring[0]:
            _emit({"diag": "SearchIndex.update", "s": time.perf_counter() - t0,
                   "paths": None if k.get("paths") is None else len(k["paths"])})
        with lock:
            todo = set(want_search)
        for tok in todo:
            if self.search(tok, limit=5).hits:
                _emit({"arrived": "search", "token": tok, "t": time.monotonic()})
                with lock:
                    want_search.discard(tok)
        return report
    SearchIndex.update = hooked_update  # type: ignore[method-assign]

    known = Watcher._known_and_present

    def hooked_known(self: Any) -> Any:
        try:
            return known(self)
        finally:
            caught_up.set()
    Watcher._known_and_present = hooked_known  # type: ignore[method-assign]

    apply = Tracker.apply

    def hooked_apply(self: Any, paths: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return apply(self, paths)
        finally:
            if caught_up.is_set():
                applies[0] += 1
            diag("Tracker.apply", time.perf_counter() - t0)
    Tracker.apply = hooked_apply  # type: ignore[method-assign]
    _timed(Library, "_relink", diag)
    _timed(SearchIndex, "_commit", diag)
    _timed(SearchIndex, "_ingest", diag)
    _timed(MainScreen, "library_changed", diag)
    _timed(SessionScopeApp, "_show_live", diag)
    from sessionscope.core.catalog.store import Catalog as _C
    _timed(_C, "index_states", diag)

    library = Library([Root(r, "--root", explicit=True) for r in args.root],
                      catalog=Catalog(Path(args.cache) / "catalog.sqlite"))
    app = SessionScopeApp(library, index_dir=Path(args.cache) / "index", watch=True, poll=args.poll)
    done = asyncio.Event()
    _stdin_closed(asyncio.get_running_loop(), done)
    async with app.run_test(size=SIZE) as pilot:
        async def until(cond: Callable[[], Any], what: str, timeout: float = args.setup_timeout) -> None:
            deadline = time.monotonic() + timeout
            while not cond():
                if time.monotonic() > deadline or app._exception is not None:
                    _emit({"error": f"waiting for {what}: " + (repr(app._exception) if app._exception
                                                                else "timed out"), "state": {
                        "watcher": repr(app.watcher), "armed": bool(app.watcher and app.watcher.armed.is_set()),
                        "index": app.index is not None, "sessions": len(library.all_sessions()),
                        "workers": [(w.group, str(w.state)) for w in app.workers],
                        "screen": type(app.screen).__name__, "exception": repr(app._exception)}})
                    os._exit(1)
                await pilot.pause(0.05)
        t_start = time.monotonic()
        await until(lambda: app.watcher is not None and app.watcher.armed.is_set(), "the watcher to arm")
        await until(lambda: app.index is not None and not any(
            w.group == "library" and not w.is_finished for w in app.workers), "the first index update")
        await until(lambda: caught_up.is_set() and applies[0] > 0, "the watcher's catch-up pass")
        await pilot.pause(1.5)  # the index thread's interval after anything the catch-up found
        info: dict[str, Any] = {"ready": True, "startup_s": time.monotonic() - t_start,
                                "sessions": len(library.all_sessions()), "poll": app.watcher.poll}
        if args.view == "transcript":
            main = app.screen
            session = next(s for s in library.all_sessions() if s.path == args.target)
            main.open_transcript(session)  # type: ignore[attr-defined]
            await until(lambda: isinstance(app.screen, TranscriptScreen)
                        and app.screen.query(TranscriptView), "the transcript screen")
            view = app.screen.query_one(TranscriptView)
            await until(lambda: view.loaded and view.rows, "the transcript to load")
            await pilot.press("f")  # following, as one watching a live session would
            await pilot.pause(0.3)
            info["transcript_rows"] = len(view.rows)
        if args.idle_s:
            info.update(await _idle_window(args.idle_s))
        measuring[0] = True
        _emit(info)
        await done.wait()
    os._exit(0)


async def _pieces_phase(args: argparse.Namespace) -> None:
    """The append path without the app: tracker (library + catalog) and index, piece by piece."""
    from sessionscope.core.catalog.store import Catalog
    from sessionscope.core.read.discovery import Root
    from sessionscope.core.search.index import SearchIndex
    from sessionscope.core.catalog.library import Library
    from sessionscope.core.live.tracker import Change, Tracker

    calls: dict[str, list[float]] = {}
    recording = [False]

    def sink(label: str, seconds: float) -> None:
        if recording[0]:
            calls.setdefault(label, []).append(seconds)
    for cls, name in ((Library, "put_row"), (Library, "_relink"), (Catalog, "put"),
                      (Catalog, "index_states"), (Catalog, "index_state")):
        _timed(cls, name, sink)

    cache = Path(args.cache)
    lib = Library([Root(r, "--root", explicit=True) for r in args.root],
                  catalog=Catalog(cache / "catalog.sqlite"))
    lib.scan()
    index = SearchIndex(cache / "index")
    index.update(lib)
    tracker = Tracker(lib)
    incremental = "paths" in inspect.signature(SearchIndex.update).parameters
    targets = json.loads(Path(args.targets).read_text())
    rng = random.Random(7)
    steps: dict[str, list[float]] = {}

    def step(name: str, fn: Callable[[], Any]) -> Any:
        t = time.perf_counter()
        out = fn()
        steps.setdefault(name, []).append(time.perf_counter() - t)
        return out
    errors = []
    for i in range(args.appends):
        path = rng.choice(targets)
        tok = _token(rng)
        _append(path, tok)
        recording[0] = True
        events = step("tracker.apply", lambda: tracker.apply([path]))
        recording[0] = False
        if not any(e.kind is Change.GREW and tok in " ".join(x.text or "" for x in e.entries) for e in events):
            errors.append(f"append {i}: no GREW event with the token ({[e.kind for e in events]})")
        recording[0] = True
        if incremental:
            step("index.update(paths=[path])", lambda: index.update(lib, paths=[path]))
        else:
            step("index.update(library)", lambda: index.update(lib))
        recording[0] = False
        if not step("search(token)", lambda: index.search(tok, limit=5).hits):
            errors.append(f"append {i}: not searchable")
        step("index.update, nothing changed", lambda: index.update(lib))
        if incremental:
            step("index.update(paths=[path]), unchanged", lambda: index.update(lib, paths=[path]))
        step("library.all_sessions()", lib.all_sessions)
    index.close()
    _emit({"sessions": len(lib.all_sessions()), "files": len(lib.rows), "incremental": incremental,
           "steps": {k: v for k, v in steps.items()}, "calls": calls, "errors": errors})


# -- appending ------------------------------------------------------------------------------------

_last_uuid: dict[str, tuple[str, str, str]] = {}  # path -> (session id, cwd, last uuid)


def _token(rng: random.Random) -> str:
    return f"benchtok{rng.getrandbits(48):012x}"


def _append(path: str, tok: str) -> None:
    """One Claude-shaped user line with `tok` in its text, chained to the file's last record.
    Built before the clock starts; the write is a single `write()` of the whole line."""
    import uuid

    if path not in _last_uuid:
        with open(path, "rb") as fh:
            fh.seek(max(0, os.path.getsize(path) - (1 << 20)))
            lines = fh.read().splitlines()
        sid = cwd = last = ""
        for raw in reversed(lines):
            try:
                rec = json.loads(raw)
            except ValueError:
                continue
            if rec.get("uuid") and rec.get("sessionId"):
                sid, cwd, last = rec["sessionId"], rec.get("cwd", ""), rec["uuid"]
                break
        _last_uuid[path] = (sid, cwd, last)
    sid, cwd, last = _last_uuid[path]
    me = str(uuid.uuid4())
    now = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
    rec = {"parentUuid": last or None, "isSidechain": False, "userType": "external", "cwd": cwd,
           "sessionId": sid, "version": "2.1.52", "gitBranch": "main", "type": "user", "uuid": me,
           "message": {"role": "user", "content": f"{tok} appended by the live bench"},
           "timestamp": now}
    data = (json.dumps(rec) + "\n").encode()
    _last_uuid[path] = (sid, cwd, me)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


# -- the parent -------------------------------------------------------------------------------------


class _Child:
    """A child process whose stdout lines (JSON) land on a queue."""

    def __init__(self, argv: list[str], errdir: Path) -> None:
        err = errdir / f"child-{argv[3]}-{time.monotonic_ns()}.err"
        self.err = err
        self._errfh = open(err, "wb")
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self._errfh)
        self.q: queue.Queue[dict[str, Any] | None] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            try:
                self.q.put(json.loads(raw))
            except ValueError:
                pass
        self.q.put(None)

    def get(self, timeout: float) -> dict[str, Any] | None:
        try:
            return self.q.get(timeout=timeout)
        except queue.Empty:
            return {"timeout": True}

    def wait_for(self, key: str, timeout: float) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            msg = self.get(max(0.01, deadline - time.monotonic()))
            if msg is None:
                return {"error": "the child exited: " + self.stderr_tail()}
            if "error" in msg or key in msg:
                return msg
            if msg.get("timeout"):
                return {"error": f"no {key} within {timeout:.0f} s: " + self.stderr_tail()}

    def stderr_tail(self) -> str:
        self._errfh.flush()
        try:
            lines = self.err.read_text(errors="replace").strip().splitlines()
        except OSError:
            return "?"
        fatal = next((i for i, line in enumerate(lines) if line.startswith("Fatal Python error")), None)
        lines = lines[:fatal] if fatal else lines
        return " | ".join(lines[-3:]) or f"exit {self.proc.poll()}"

    def close(self) -> None:
        try:
            if self.proc.stdin:
                self.proc.stdin.close()
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        finally:
            self._errfh.close()


def _child_argv(phase: str, roots: list[str], **opts: Any) -> list[str]:
    argv = [sys.executable, str(Path(__file__).resolve()), "--phase", phase]
    for r in roots:
        argv += ["--root", r]
    for k, v in opts.items():
        if v is True:
            argv.append(f"--{k.replace('_', '-')}")
        elif v not in (None, False):
            argv += [f"--{k.replace('_', '-')}", str(v)]
    return argv


def _run_appends(child: _Child, kind: str, targets: list[str], n: int, gap: float,
                 rng: random.Random) -> dict[str, Any]:
    """Append n lines (to random targets, or always the first one), each waited for in full."""
    need = ARRIVALS[kind]
    lat: dict[str, list[float]] = {w: [] for w in need}
    missed: dict[str, int] = {w: 0 for w in need}
    diags: dict[str, list[float]] = {}
    batches: list[int] = []
    other: list[str] = []

    def take(msg: dict[str, Any]) -> None:
        if "diag" in msg:
            diags.setdefault(msg["diag"], []).append(msg["s"])
    for i in range(n):
        path = targets[0] if kind == "transcript" else rng.choice(targets)
        tok = _token(rng)
        t0 = time.monotonic()
        _append(path, tok)
        got: dict[str, float] = {}
        deadline = t0 + WAIT_S
        while len(got) < len(need):
            msg = child.get(max(0.01, deadline - time.monotonic()))
            if msg is None:
                return {"error": "the child exited: " + child.stderr_tail()}
            if msg.get("timeout"):
                break
            take(msg)
            what = msg.get("arrived")
            if what not in need:
                continue
            if kind == "raw":
                if msg["path"] == path:
                    got.setdefault("raw", msg["t"])
                else:
                    other.append(msg["path"])
            elif msg.get("token") == tok:
                got.setdefault(what, msg["t"])
                if what == "event":
                    batches.append(msg.get("batch", 1))
        for w in need:
            if w in got:
                lat[w].append(got[w] - t0)
            else:
                missed[w] += 1
        # a quiet app for the next one: past the index thread's interval, with some jitter
        end = time.monotonic() + gap + rng.uniform(0, 0.2)
        while (left := end - time.monotonic()) > 0:
            msg = child.get(left)
            if msg is None:
                return {"error": "the child exited: " + child.stderr_tail()}
            if not msg.get("timeout"):
                take(msg)
    return {"latency": {w: _pct(v) for w, v in lat.items()}, "missed": missed,
            "diag": {k: _pct(v) for k, v in diags.items()},
            "max_batch": max(batches, default=0), "other_paths": len(other)}


def _pct(values: list[float]) -> dict[str, Any]:
    if not values:
        return {"n": 0}
    v = sorted(values)
    return {"n": len(v), "median": statistics.median(v), "p95": v[min(len(v) - 1, round(0.95 * (len(v) - 1)))],
            "min": v[0], "max": v[-1]}


def _prepare(n: int, work: Path, log: Callable[[str], None], index: bool = True) -> dict[str, Any]:
    import gen_corpus
    from bench_app import _roots, _warm_catalog

    sc = gen_corpus.generate(APP_CACHE / f"s{n}", files=n, size_mb=max(1.0, n / 200), big_mb=0,
                             long_line_mb=0, verbose=False)
    dest = work / f"s{n}"
    log(f"copying the {n}-session corpus ({sc.total_bytes / 1e6:.0f} MB) …")
    root = dest / "root"
    for sub in ("claude", "codex"):
        if (sc.root / sub).is_dir():
            shutil.copytree(sc.root / sub, root / sub)
    roots = _roots(root)
    cache = dest / "cache"
    cache.mkdir()
    log(f"warming the catalog{' and the index' if index else ''} of {n} sessions …")
    warm = _warm_catalog(roots, cache, index=index)
    targets = sorted(str(root / e["path"]) for e in sc.manifest["files"]
                     if e["kind"] == "claude" and "/subagents/" not in e["path"])
    small = min(targets, key=lambda p: abs(os.path.getsize(p) - 20_000))
    (dest / "targets.json").write_text(json.dumps(targets))
    return {"sessions": n, "roots": roots, "cache": str(cache), "targets": targets,
            "transcript": small, "warm": warm, "bytes": sc.total_bytes, "dir": dest}


def run_bench(args: argparse.Namespace) -> dict[str, Any]:
    from bench_app import _machine

    t_bench = time.monotonic()

    def log(msg: str) -> None:
        if not args.json:
            print(f"  [{time.monotonic() - t_bench:6.1f} s] {msg}", file=sys.stderr)
    APP_CACHE.mkdir(exist_ok=True)
    ignore = APP_CACHE / ".gitignore"
    if not ignore.exists():
        ignore.write_text("*\n")
    work = Path(tempfile.mkdtemp(prefix="live-", dir=APP_CACHE))
    rng = random.Random(args.seed)
    report: dict[str, Any] = {"when": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "machine": _machine(),
                              "appends": args.appends, "idle_s": args.idle_s, "gap_s": args.gap,
                              "sessions": args.sessions, "live": {}, "idle": {}, "pieces": {}}
    try:
        prep = _prepare(args.sessions, work, log)
        report["corpus"] = {"files": len(prep["targets"]), "bytes": prep["bytes"],
                            "catalog_sessions": prep["warm"]["sessions"],
                            "transcript": prep["transcript"],
                            "transcript_bytes": os.path.getsize(prep["transcript"])}
        roots = prep["roots"]
        err = work
        modes = [m for m in args.modes.split(",") if m]

        # -- the empty app's idle CPU (the baseline of 2.)
        if args.idle_s:
            log(f"an empty Textual app idling {args.idle_s:.0f} s …")
            child = _Child(_child_argv("empty", [], idle_s=args.idle_s), err)
            report["idle"]["empty"] = child.wait_for("ready", args.idle_s + 120)
            child.close()

        for mode in modes:
            poll = mode == "poll"
            # -- bare watchfiles: the floor under the app's event (the baseline of 1.)
            log(f"{mode}: bare watchfiles, {args.appends} appends …")
            child = _Child(_child_argv("raw", roots, poll=poll), err)
            ready = child.wait_for("ready", 120)
            if "error" in ready:
                report["live"][f"{mode}/raw"] = ready
            else:
                report["live"][f"{mode}/raw"] = _run_appends(child, "raw", prep["targets"],
                                                             args.appends, args.raw_gap, rng)
            child.close()
            for view in args.views.split(","):
                idle = args.idle_s if view == "list" else 0
                log(f"{mode}: the app, {view} showing" + (f", idle {idle:.0f} s" if idle else "")
                    + f", {args.appends} appends …")
                targets = [prep["transcript"]] if view == "transcript" else prep["targets"]
                child = _Child(_child_argv("live", roots, cache=prep["cache"], poll=poll, view=view,
                                           target=prep["transcript"], idle_s=idle), err)
                ready = child.wait_for("ready", 600 + idle)
                if "error" in ready:
                    report["live"][f"{mode}/{view}"] = ready
                    child.close()
                    continue
                out = _run_appends(child, view, targets, args.appends, args.gap, rng)
                out["startup_s"] = ready.get("startup_s")
                out["app_sessions"] = ready.get("sessions")
                out["poll"] = ready.get("poll")
                report["live"][f"{mode}/{view}"] = out
                if idle:
                    report["idle"][mode] = {k: ready[k] for k in ("idle_cpu_s", "idle_wall_s", "threads")}
                child.close()

        # -- the append path without the app
        for n in args.pieces:
            p = prep if n == args.sessions else _prepare(n, work, log)
            log(f"the append path piece by piece, {n} sessions, {args.appends} appends …")
            child = _Child(_child_argv("pieces", p["roots"], cache=p["cache"],
                                       targets=p["dir"] / "targets.json", appends=args.appends), err)
            msg = child.wait_for("steps", 1200)
            child.close()
            if "steps" in msg:
                msg["steps"] = {k: _pct(v) for k, v in msg["steps"].items()}
                msg["calls"] = {k: {**_pct(v), "per_append": len(v) / args.appends}
                                for k, v in msg["calls"].items()}
            report["pieces"][str(n)] = msg
    finally:
        if args.keep:
            report["work_dir"] = str(work)
        else:
            shutil.rmtree(work, ignore_errors=True)
    report["seconds"] = round(time.monotonic() - t_bench, 1)
    return report


# -- the table ------------------------------------------------------------------------------------


def _ms(x: Any) -> str:
    return f"{x * 1000:.0f}" if isinstance(x, (int, float)) else "?"


def _ms1(x: Any) -> str:
    return f"{x * 1000:.1f}" if isinstance(x, (int, float)) else "?"


LABELS = {"raw": "bare watchfiles yields the path", "event": "the batch reaches the app (library updated)",
          "list": "the session list's model has it", "transcript": "the open transcript's rows have it",
          "search": "app.search finds it"}


def print_table(r: dict[str, Any]) -> None:
    m, c = r["machine"], r.get("corpus", {})
    print(f"\nsessionscope live bench — {r['when']}")
    print(f"machine: {m['cores']} cores ({m['usable_cores']} usable), {m['memory_gb']} GB RAM, Python "
          f"{m['python']}, textual {m['textual']}, {m['platform']}")
    print(f"under watch: {r['sessions']} session files ({c.get('catalog_sessions', '?')} sessions, "
          f"{c.get('bytes', 0) / 1e6:.0f} MB), warm catalog and index; the real app headless under "
          f"Pilot, {SIZE[0]}x{SIZE[1]}")
    print(f"{r['appends']} appends per row (one Claude user line each, ~{r['gap_s']:.1f}-{r['gap_s'] + 0.2:.1f} s "
          f"apart, each from a quiet app); list rows: a random session file each time; transcript "
          f"rows: the open one ({c.get('transcript_bytes', 0) / 1024:.0f} KB)")

    print("\n1. Append to arrival (ms)")
    print(f"  {'':60}{'median':>8}{'p95':>8}{'max':>8}{'n':>5}")
    for key, out in r["live"].items():
        mode, view = key.split("/")
        head = f"{mode}, " + {"raw": "baseline: bare watchfiles" + (" (its own poller, 100 ms)" if mode == "poll"
                                                                     else ""),
                              "list": "session list showing", "transcript": "transcript open"}[view]
        if "error" in out:
            print(f"  {head}: error: {out['error']}")
            continue
        print(f"  {head}" + (f"  (app start-up {out['startup_s']:.1f} s, {out['app_sessions']} sessions"
                             f"{', poll' if out.get('poll') else ''})" if view != "raw" else ""))
        for what, s in out["latency"].items():
            miss = out["missed"].get(what)
            line = f"    {LABELS[what]:58}"
            if s.get("n"):
                line += f"{_ms(s['median']):>8}{_ms(s['p95']):>8}{_ms(s['max']):>8}{s['n']:>5}"
            if miss:
                line += f"   ({miss} missed within {WAIT_S:.0f} s)"
            print(line)
    for mode in ("inotify", "poll"):
        raw = r["live"].get(f"{mode}/raw", {}).get("latency", {}).get("raw", {}).get("median")
        parts = []
        for view in ("list", "transcript"):
            lat = r["live"].get(f"{mode}/{view}", {}).get("latency", {})
            for what in ("event", view, "search"):
                v = lat.get(what, {}).get("median")
                if raw and v:
                    parts.append(f"{view}/{what} {v / raw:.1f}x")
        if parts:
            print(f"  {mode}: median / bare watchfiles: " + ", ".join(dict.fromkeys(parts)))
    print("  (reference, PERFORMANCE.md: live tail append to on screen, inotify 11 ms p50 / "
          "100 ms polling 70 ms p50)")

    idle = r["idle"]
    if idle:
        print(f"\n2. Idle CPU over {r['idle_s']:.0f} s (nothing changing)")
        print(f"  {'':44}{'CPU ms':>8}{'% core':>8}{'vs empty':>10}   busiest threads (CPU ms)")
        e = idle.get("empty", {}).get("idle_cpu_s")
        for key, label in (("empty", "empty Textual App()"), ("inotify", "the app, watching (inotify)"),
                           ("poll", "the app, watching (poll=True)")):
            d = idle.get(key)
            if not d:
                continue
            if "error" in d:
                print(f"  {label:44}  error: {d['error']}")
                continue
            cpu = d["idle_cpu_s"]
            # the empty app idles at ~0 ms: a difference says more than a ratio
            ratio = f"+{(cpu - e) * 1000:.0f} ms" if e is not None and key != "empty" else ""
            threads = ", ".join(f"{k} {v * 1000:.0f}" for k, v in d["threads"].items() if v > 0.0005)
            print(f"  {label:44}{cpu * 1000:>8.0f}{100 * cpu / d['idle_wall_s']:>7.2f}%{ratio:>10}   {threads}")
        print("  (CPU: time.process_time() over the window, every thread; % of one core)")

    print("\n3. Inside the app while appending (ms per call: median / p95 / calls)")
    for key, out in r["live"].items():
        if key.endswith("/raw") or not out.get("diag"):
            continue
        parts = [f"{k} {_ms1(v['median'])}/{_ms1(v['p95'])}/{v['n']}" for k, v in out["diag"].items()]
        print(f"  {key}: " + "; ".join(parts))

    if r["pieces"]:
        print("\n4. One append's path without the app (ms: median / p95)")
        for n, p in r["pieces"].items():
            if "steps" not in p:
                print(f"  {n} sessions: error: {p.get('error')}")
                continue
            print(f"  {p['sessions']} sessions in {p['files']} files"
                  f"{' (index takes the changed paths)' if p['incremental'] else ''}"
                  + (f"; ERRORS: {p['errors'][:2]}" if p["errors"] else ""))
            for k, v in p["steps"].items():
                print(f"    {k:52}{_ms1(v['median']):>8}{_ms1(v['p95']):>8}")
            calls = ", ".join(f"{k} {_ms1(v['median'])} (x{v['per_append']:.0f})"
                              for k, v in p["calls"].items())
            print(f"    within them, per call: {calls}")
    print(f"\n(bench took {r['seconds']:.0f} s)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="10 appends a row, 10 s idle windows")
    ap.add_argument("--sessions", type=int, default=2000, help="session files under watch (2,000)")
    ap.add_argument("--appends", type=int, default=None, help="appends per row (30; 10 with --quick)")
    ap.add_argument("--idle-s", type=float, default=None, help="idle window (60 s; 10 with --quick; 0 skips)")
    ap.add_argument("--modes", default="inotify,poll", help="inotify,poll")
    ap.add_argument("--views", default="list,transcript", help="list,transcript")
    ap.add_argument("--pieces", default=None,
                    help="session counts for section 4, comma-separated (default: --sessions; "
                         "e.g. 2000,20000)")
    ap.add_argument("--gap", type=float, default=1.15, help="seconds between appends to the app")
    ap.add_argument("--raw-gap", type=float, default=0.3, help="seconds between appends, bare watchfiles")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep", action="store_true", help="keep the temporary copy and caches")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    ap.add_argument("--phase", help=argparse.SUPPRESS)
    ap.add_argument("--root", action="append", default=[], help=argparse.SUPPRESS)
    ap.add_argument("--cache", help=argparse.SUPPRESS)
    ap.add_argument("--poll", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--view", default="list", help=argparse.SUPPRESS)
    ap.add_argument("--target", help=argparse.SUPPRESS)
    ap.add_argument("--setup-timeout", type=float, default=300, help=argparse.SUPPRESS)
    ap.add_argument("--targets", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.appends is None:
        args.appends = 10 if args.quick else 30
    if args.idle_s is None:
        args.idle_s = 10.0 if args.quick else 60.0
    if args.phase:
        if args.phase == "empty":
            asyncio.run(_empty_phase(args))
        elif args.phase == "raw":
            _raw_phase(args)
        elif args.phase == "live":
            asyncio.run(_live_phase(args))
        elif args.phase == "pieces":
            asyncio.run(_pieces_phase(args))
        os._exit(0)
    args.pieces = [int(x) for x in (str(args.sessions) if args.pieces is None else args.pieces).split(",")
                   if x]
    report = run_bench(args)
    if args.json:
        print(json.dumps(report, indent=2, default=str))
    else:
        print_table(report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
