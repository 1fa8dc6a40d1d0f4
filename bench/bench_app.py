"""App bench: how fast the Textual app paints its session list and a huge transcript, and how
much memory scrolling that transcript end to end takes.

Run (from the repository root):

    .venv/bin/python bench/bench_app.py            # 20,000 sessions; the 100 MB transcript (~5 min)
    .venv/bin/python bench/bench_app.py --quick    # 2,000 sessions; a 10 MB transcript (~1 min)
    .venv/bin/python bench/bench_app.py --json     # the figures as JSON on stdout
    .venv/bin/python bench/bench_app.py --skip-scroll --repeat 9    # timings only, more runs
    .venv/bin/python bench/bench_app.py --diagnose  # + startup with each cause patched away
    .venv/bin/python bench/bench_app.py --single-mb 1000 --big-kind codex   # one 1 GB transcript shown

Corpora come from bench/gen_corpus.py: the transcripts from the default bench corpus in
bench/.corpus/ (the one bench_reader.py uses: 2,000 files, 1 GB, one 100 MB transcript), the
sessions from a corpus of small files in bench/.corpus-app/ (gitignored; `--quick` puts its
smaller transcript corpus there too, so the default one is not regenerated). Every file is read
once before measuring: all figures are warm-cache. The catalog (and, for the transcripts, the
search index) is warmed in a temporary cache directory under bench/.corpus-app/, removed at the
end. Every measured app runs headless (`App.run(headless=True)` or Pilot's `run_test`) at 120x40
in a fresh subprocess.

What "painted" means: in headless mode Textual composes every frame (the widgets render their
lines into a compositor update) but skips turning it into terminal output. The bench hooks
`App._display`, turns each update into the escape sequences a terminal would be sent
(`render_segments`, so that cost is counted as on a real terminal) and takes the time there: the
first frame of the empty app, the first frame in which the session list had rendered session rows
(not the "loading" frame before them), the first frame in which the transcript view had rendered
entry lines (not "reading…").

1. Startup, 20,000 sessions, warm catalog, against an empty app. The sessions corpus is scanned
   once with `Library.scan()` into a catalog in the temp cache dir. Each run is a fresh
   `python -c` process: the parent takes `time.monotonic()` (system-wide on Linux) just before
   spawning it and passes it along; the child reports the time at the frame. The app child runs
   the real command line (`sessionscope.cli.main.main(["--root", …])`, SESSIONSCOPE_CACHE_DIR = the
   warm cache dir, with `App.run` forced headless); the baseline child imports textual and runs
   `App()`. Runs alternate between the two (round 0 first, not counted); medians, min-max.
   Target: within 1.5x.
2. Time from selecting a transcript (`MainScreen.open_transcript`, what enter on the list calls)
   to its first painted screen: the 100 MB transcript against a 100 KB one from the same corpus
   (a claude main session nearest 100 KB). Both are hard-linked into a two-file root whose catalog
   and search index are warmed first, so the app has nothing to scan or index in the background.
   One fresh process per run (Pilot, after the library load and index update have finished),
   alternating, after a round 0 that is not counted; `--open-repeat` (11) runs a side, as ~50 ms
   figures are noisier than the rest.
   Target: within 1.5x.
3. Peak memory while scrolling the 100 MB transcript end to end: a fresh process opens it, then
   sends PageDown (the view's own jump, not animated) and paints a frame after each, until the
   whole file is loaded and the view is at its end. VmHWM (peak RSS, counting file-backed and
   mmap'd pages) and the peak of RssAnon (private memory; sampled every 10 ms in a thread).
   Target: peak RSS under 250 MB. Also printed: time per PageDown (key to painted frame).
4. `--single-mb N` (instead of 1-3): one transcript of N MB (issue 15's case: 1,000), the index
   bench's single-claude/single-codex corpus, catalog and index warmed: a fresh app process opens
   it, reads it to its end, then End and ten PageUps; peak RSS and anon against the same 250 MB.

Every child runs with Python's bytecode cache on (PYTHONPYCACHEPREFIX in bench/.corpus-app/pycache,
PYTHONDONTWRITEBYTECODE unset; filled by round 0, which is not counted), as an installed package
has its .pyc files: where PYTHONDONTWRITEBYTECODE is set, the app's own ~30 modules would
otherwise be compiled from source on every start while textual's bytecode is in the venv.
`--no-bytecode` measures that way.

Next to each wall time the table gives the process's CPU time (`time.process_time()`, all
threads) at the same frame: on a loaded machine it moves much less than the wall time, so its
ratio is a check on the wall-time ratio (the targets are judged on wall time).

`--diagnose` times the startup again with one of what is left of its cost patched away in the
child (the first catalog read being 120 sessions rather than a screenful; the title bar, tab
bar and footer around the list): not the app as shipped, but it says what a change in tui/
would buy. Profile further with `python -X importtime` and py-spy (or cProfile with a CPU-time
clock: wall-clock profiles of these short children mostly measure the machine's other load)
on the same child.

Machines are noisy (shared 2-core runners move by +-40%), so read the ratios, not the seconds.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

MB = 1024 * 1024
SIZE = (120, 40)
APP_CACHE = HERE / ".corpus-app"
PYCACHE = APP_CACHE / "pycache"  # the children's bytecode (see `_child_env`)

STARTUP_TARGET = 1.5

# `--diagnose`: the startup again with one cause of its time taken away by a monkeypatch in the
# child (not the app as shipped; for finding what to change in core/ or tui/).
WHAT_IF = {
    "list:screenful": "first catalog read of 40 sessions, not 120",
    "list:bare": "the list alone: no title, tabs, footer",
}
OPEN_TARGET = 1.5
RSS_TARGET_MB = 250
#: what the show phase then finds in the transcript: a word in no entry of the generated
#: corpus (the file scanned, nothing read again) and a fragment in ~11% of its lines
FIND_QUERIES = ("reconcile", "bernet")

# -- the startup child: as little as possible runs before the app itself ----------------------

_STARTUP_CHILD = r"""
import json, os, sys, time
t_spawn = float(sys.argv[1]); mode = sys.argv[2]; W, H = int(sys.argv[3]), int(sys.argv[4])
marks = {}
def mark(name):
    marks.setdefault(name, round(time.monotonic() - t_spawn, 4))
def status():
    out = {}
    with open("/proc/self/status", "rb") as fh:
        for line in fh:
            k, _, v = line.partition(b":")
            if k in (b"VmHWM", b"VmRSS", b"RssAnon", b"RssFile"):
                out[k.decode()] = int(v.split()[0])
    return out
mark("interpreter")
from textual.app import App
mark("textual_imported")
ready = [mode == "empty"]
frames = [0]
_display = App._display
def display(self, screen, renderable):
    if renderable is not None and not self._batch_count:
        frames[0] += 1
        text = renderable.render_segments(self.console)  # what a terminal would be sent
        mark("first_frame")
        if ready[0]:
            seconds = time.monotonic() - t_spawn
            out = {"seconds": seconds, "cpu_s": time.process_time(), "marks": marks,
                   "frames": frames[0],
                   "frame_chars": len(text), **status()}
            if mode.startswith("list"):
                lst = self.screen.query_one("#session-list")
                out["rows"] = len(lst.model.rows)
                out["sessions"] = len(self.library.all_sessions())
            os.write(1, (json.dumps(out) + "\n").encode())
            os._exit(0)
    _display(self, screen, renderable)
App._display = display
_run = App.run
def run(self, *args, **kwargs):
    kwargs["headless"] = True
    kwargs["size"] = (W, H)
    return _run(self, *args, **kwargs)
App.run = run
if mode == "empty":
    App().run()
else:
    from sessionscope.core.catalog.library import Library
    from sessionscope.tui.widgets.session_list import HEADER_LINES, SessionList
    def timed(cls, name, label):
        orig = getattr(cls, name)
        def wrapper(self, *a, **k):
            mark(label + "_start")
            try:
                return orig(self, *a, **k)
            finally:
                mark(label + "_end")
        setattr(cls, name, wrapper)
    variant = mode.partition(":")[2]
    import sessionscope.tui.app as tui_app
    if variant == "screenful":  # what if the first catalog read were one screenful
        tui_app.FIRST_SCREEN = 40
    if variant == "bare":  # what if the screen held the session list and nothing else
        import sessionscope.tui.screens.main as main_screen
        main_screen.MainScreen.compose = lambda self: iter(
            [SessionList(now=self.ss_app.now, id="session-list")])
    import sessionscope.cli.app as cli_app
    _build = cli_app.build_app
    def build_app(*a, **k):
        mark("build_app_start")
        try:
            return _build(*a, **k)
        finally:
            mark("build_app_end")
    cli_app.build_app = build_app
    timed(tui_app.SessionScopeApp, "get_default_screen", "main_screen")
    timed(Library, "load_cached", "load_cached")
    timed(Library, "scan", "scan")
    timed(SessionList, "set_sessions", "set_sessions")
    _render_line = SessionList.render_line
    def render_line(self, y):
        if not ready[0] and y >= HEADER_LINES and self.model.rows:
            if round(self.scroll_y) + y - HEADER_LINES < len(self.model.rows):
                ready[0] = True
                mark("rows_rendered")
        return _render_line(self, y)
    SessionList.render_line = render_line
    from sessionscope.cli.main import main
    mark("app_imported")
    main(sys.argv[5:])
os.write(1, b'{"error": "the app exited before painting"}\n')
"""


def _status() -> dict[str, int]:
    out: dict[str, int] = {}
    with open("/proc/self/status", "rb") as fh:
        for line in fh:
            key, _, rest = line.partition(b":")
            if key in (b"VmHWM", b"VmRSS", b"RssAnon", b"RssFile"):
                out[key.decode()] = int(rest.split()[0])  # kB
    return out


class _Peaks(threading.Thread):
    """Samples RssAnon and RssFile every `interval` s (/proc keeps a peak for RSS only)."""

    def __init__(self, interval: float = 0.01) -> None:
        super().__init__(daemon=True)
        self.interval = interval
        st = _status()
        self.anon = st.get("RssAnon", 0)
        self.file = st.get("RssFile", 0)
        self._done = threading.Event()

    def run(self) -> None:
        while not self._done.wait(self.interval):
            self.sample()

    def sample(self) -> None:
        st = _status()
        self.anon = max(self.anon, st.get("RssAnon", 0))
        self.file = max(self.file, st.get("RssFile", 0))

    def stop(self) -> tuple[int, int]:
        self._done.set()
        self.join()
        self.sample()
        return self.anon, self.file


# -- the transcript child (phases "open" and "scroll") -------------------------------------------


async def _transcript_phase(phase: str, cache: Path, roots: list[str], target: str,
                            max_seconds: float) -> dict[str, Any]:
    from textual import events
    from textual.app import App

    from sessionscope.core.catalog.store import Catalog
    from sessionscope.core.read.discovery import Root
    from sessionscope.core.catalog.library import Library
    from sessionscope.tui.app import SessionScopeApp
    from sessionscope.tui.widgets.transcript_view import TranscriptView

    state: dict[str, Any] = {"armed": False, "rows": False, "t": None}
    painted = asyncio.Event()

    render_line = TranscriptView.render_line

    def hooked_render_line(self: TranscriptView, y: int) -> Any:
        if state["armed"] and not state["rows"] and self._rows:
            if self.scroll_offset.y + y < self._heights.total:
                state["rows"] = True
        return render_line(self, y)

    display = App._display

    def hooked_display(self: App[Any], screen: Any, renderable: Any) -> None:
        if renderable is not None and not self._batch_count:
            renderable.render_segments(self.console)  # what a terminal would be sent
            if state["armed"] and state["rows"] and state["t"] is None:
                state["t"] = time.monotonic()
                state["cpu"] = time.process_time()
                painted.set()
        display(self, screen, renderable)

    TranscriptView.render_line = hooked_render_line  # type: ignore[method-assign]
    App._display = hooked_display  # type: ignore[method-assign]

    library = Library([Root(r, "--root", explicit=True) for r in roots],
                      catalog=Catalog(cache / "catalog.sqlite"))
    app = SessionScopeApp(library, index_dir=cache / "index")
    out: dict[str, Any] = {"phase": phase, "path": target, "bytes": os.path.getsize(target)}
    async with app.run_test(size=SIZE) as pilot:
        # The library load (cached sessions, then the stat pass) and the index update finish
        # first: selecting happens in an idle app.
        for _ in range(3):
            await app.workers.wait_for_complete()
            await pilot.pause()
        session = next((s for s in library.all_sessions() if s.path == target), None)
        if session is None:
            return {"phase": phase, "error": f"{target} is not in the library"}
        main = app.screen
        idle = _status()
        out.update(idle_rss_kb=idle["VmRSS"], idle_anon_kb=idle["RssAnon"],
                   idle_hwm_kb=idle["VmHWM"])
        peaks = _Peaks()
        peaks.start()
        state["armed"] = True
        cpu0 = time.process_time()
        t0 = time.monotonic()
        main.open_transcript(session)  # type: ignore[attr-defined]
        try:
            await asyncio.wait_for(painted.wait(), 60)
        except asyncio.TimeoutError:
            view = app.screen.query(TranscriptView)
            return {"phase": phase, "error": "no transcript frame within 60 s", "state": {
                "rows_rendered": state["rows"], "screen": type(app.screen).__name__,
                "items": len(view.first().model.items) if view else None}}
        out["first_paint_s"] = state["t"] - t0
        out["first_paint_cpu_s"] = state["cpu"] - cpu0
        view = app.screen.query_one(TranscriptView)
        out["items_at_paint"] = len(view.model.items)
        out["loaded_at_paint"] = view.loaded
        out["streamed"] = view.streamed
        if phase == "scroll":
            out.update(await _scroll_to_end(app, pilot, view, events, max_seconds))
        elif phase == "show":
            out.update(await _show_whole(app, pilot, view, events, max_seconds))
        anon, filed = peaks.stop()
        st = _status()
        out.update(peak_rss_kb=st["VmHWM"], peak_anon_kb=anon, peak_file_kb=filed,
                   end_rss_kb=st["VmRSS"], end_anon_kb=st["RssAnon"])
    return out


async def _scroll_to_end(app: Any, pilot: Any, view: Any, events: Any,
                         max_seconds: float) -> dict[str, Any]:
    """PageDown, one painted frame each, until the file is loaded and the view is at its end."""
    driver = app._driver
    wait_screen = getattr(pilot, "_wait_for_screen", None)
    per_page: list[float] = []
    t_start = time.monotonic()
    at_end = 0
    while True:
        t = time.monotonic()
        key = events.Key("pagedown", None)
        key.set_sender(app)
        driver.send_message(key)
        if wait_screen is not None:
            await wait_screen()
        else:  # an older/newer Pilot: the public (slower) way
            await pilot.pause()
        app.screen._on_timer_update()  # paint now rather than at the next 60 Hz tick
        per_page.append(time.monotonic() - t)
        if view.loaded and round(view.scroll_y) >= view.max_scroll_y:
            at_end += 1
            if at_end >= 2:  # once more at the end: nothing left to reveal
                break
        else:
            at_end = 0
        if time.monotonic() - t_start > max_seconds:
            return {"error": f"not at the end after {max_seconds:.0f} s",
                    "pages": len(per_page)}
    per_page.sort()
    return {
        "pages": len(per_page),
        "scroll_s": time.monotonic() - t_start,
        "page_ms_p50": 1000 * per_page[len(per_page) // 2],
        "page_ms_p95": 1000 * per_page[int(len(per_page) * 0.95)],
        "page_ms_max": 1000 * per_page[-1],
        "rows": len(view.rows),
        "items": len(view.model.items),
        "lines": view.virtual_size.height,
        "loaded": view.loaded,
    }


async def _show_whole(app: Any, pilot: Any, view: Any, events: Any, max_seconds: float) -> dict[str, Any]:
    """Let the view read the whole transcript (the first screen shown), then End and ten
    PageUps, one painted frame each: a huge transcript shown, without scrolling it all."""
    t_start = time.monotonic()
    cpu0 = time.process_time()
    while not view.loaded:
        await pilot.pause(0.2)
        if time.monotonic() - t_start > max_seconds:
            return {"error": f"not read to the end after {max_seconds:.0f} s", "items": len(view.model.items)}
    out = {"load_s": time.monotonic() - t_start, "load_cpu_s": time.process_time() - cpu0}
    wait_screen = getattr(pilot, "_wait_for_screen", None)
    for key in ["end"] + ["pageup"] * 10:
        ev = events.Key(key, None)
        ev.set_sender(app)
        app._driver.send_message(ev)
        await (wait_screen() if wait_screen is not None else pilot.pause())
        app.screen._on_timer_update()
    out.update(items=len(view.model), rows=len(view._rows), lines=view.virtual_size.height,
               at_end=round(view.scroll_y) >= view.max_scroll_y - 10 * view.size.height)
    finds = []
    for query in FIND_QUERIES:  # find in the transcript (a streamed one: the file searched)
        t, cpu = time.monotonic(), time.process_time()
        view.find(query)
        await app.workers.wait_for_complete()
        await pilot.pause()
        finds.append({"query": query, "s": time.monotonic() - t, "cpu_s": time.process_time() - cpu,
                      "hits": len(view._hits)})
    view.clear_find()
    out["finds"] = finds
    return out


def run_single(args: argparse.Namespace) -> dict[str, Any]:
    """`--single-mb`: one transcript of that size (the index bench's single-<kind> corpus), its
    catalog and index warmed, shown whole in a fresh app process (the "show" phase); beside it,
    the app's floor: a small transcript of the same kind (~100 KB) shown the same way in a fresh
    process of the same app over the same catalog. `--work DIR` keeps the warm catalog and index
    there and reuses them on the next run (a 1 GB transcript takes minutes to index)."""
    import gen_corpus

    kind = args.big_kind
    name = f"single-{kind}" + ("" if args.single_mb == 1000 else f"-{args.single_mb:g}")  # (as bench_index.py)
    tc = gen_corpus.generate(HERE / ".corpus-variants" / name, files=1, size_mb=args.single_mb,
                             big_mb=args.single_mb, big_kind=kind, verbose=not args.json)
    small = gen_corpus.generate(HERE / ".corpus-variants" / f"single-{kind}-small", files=1, size_mb=0.1,
                                big_mb=0.1, big_kind=kind, long_line_mb=0, verbose=not args.json)
    assert tc.big is not None and small.big is not None
    APP_CACHE.mkdir(exist_ok=True)
    (APP_CACHE / ".gitignore").write_text("*\n")
    if args.work:
        work = Path(args.work).resolve() / f"{name}{'-noindex' if args.no_index else ''}"
        work.mkdir(parents=True, exist_ok=True)
    else:
        work = Path(tempfile.mkdtemp(prefix="run-", dir=APP_CACHE))
    report: dict[str, Any] = {"when": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "machine": _machine(),
                              "size": list(SIZE), "bytecode": args.bytecode, "single": True}
    try:
        troot = work / "transcripts"
        big = _link_into(tc.big, tc.root, troot)
        tiny = _link_into(small.big, small.root, troot)
        t_cache = work / "transcript-cache"
        warm_mark = t_cache / "warm.json"
        _warm_read([big, tiny])
        if warm_mark.exists():
            warm = json.loads(warm_mark.read_text())
            warm["reused"] = True
        else:
            shutil.rmtree(t_cache, ignore_errors=True)
            t_cache.mkdir(parents=True)
            warm = _warm_catalog(_roots(troot), t_cache, index=not args.no_index)
            if args.work:
                warm_mark.write_text(json.dumps(warm))
        report["corpus"] = {"big": str(tc.big), "big_bytes": big.stat().st_size, "kind": kind,
                            "small_bytes": tiny.stat().st_size, "reused": bool(warm.get("reused")),
                            "transcripts_warm_scan_s": round(warm["scan_s"], 2),
                            "transcripts_index_s": round(warm.get("index_s", 0), 2)}
        for key, target in (("floor", tiny), ("show", big)):
            load0 = os.getloadavg()[0]
            report[key] = _phase_run("show", t_cache, _roots(troot), target, args.max_scroll_s, args.bytecode)
            report[key]["load"] = [round(load0, 1), round(os.getloadavg()[0], 1)]
    finally:
        if not args.keep and not args.work:
            shutil.rmtree(work, ignore_errors=True)
    sh = report["show"]
    report["targets"] = {"show_rss_under_250mb": "peak_rss_kb" in sh and "error" not in sh
                         and sh["peak_rss_kb"] / 1024 < RSS_TARGET_MB}
    return report


def print_single(r: dict[str, Any]) -> None:
    sh, fl, c = r["show"], r["floor"], r["corpus"]
    print(f"\nsessionscope app bench, one transcript — {r['when']}; "
          + ("bytecode cached" if r.get("bytecode") else "no bytecode cache"))
    print(f"transcript: one {c['kind']} file of {c['big_bytes'] / MB:.0f} MB; catalog scan "
          f"{c['transcripts_warm_scan_s']} s, index {c['transcripts_index_s']} s"
          + (" (warm cache reused)" if c.get("reused") else ""))
    for label, ph in (("floor", fl), ("show", sh)):
        if "error" in ph:
            print(f"  {label} error: {ph['error']}")
    if "error" in sh or "error" in fl:
        return
    print(f"  read whole in {sh['load_s']:.1f} s ({sh['load_cpu_s']:.1f} s CPU), {sh['items']} items; "
          f"first screen after {sh['first_paint_s']:.2f} s; then End and 10 PageUps; load average "
          f"{sh['load'][0]}-{sh['load'][1]}")
    print(f"  {'':52}{'RSS':>10}{'anon':>10}{'file':>10}")
    print(f"  {'app idle before opening':52}{_mb(sh['idle_rss_kb']):>10}{_mb(sh['idle_anon_kb']):>10}")
    floor = f"floor: a {c['small_bytes'] // 1024} KB transcript shown, peak"
    print(f"  {floor:52}"
          f"{_mb(fl['peak_rss_kb']):>10}{_mb(fl['peak_anon_kb']):>10}{_mb(fl['peak_file_kb']):>10}"
          f"   (load {fl['load'][0]}-{fl['load'][1]})")
    print(f"  {'peak while showing the big one':52}{_mb(sh['peak_rss_kb']):>10}{_mb(sh['peak_anon_kb']):>10}"
          f"{_mb(sh['peak_file_kb']):>10}   (load {sh['load'][0]}-{sh['load'][1]})")
    for f in sh.get("finds", []):
        print(f"  find “{f['query']}”: {f['hits']} items in {f['s']:.1f} s ({f['cpu_s']:.1f} s CPU of the app); "
              f"in the floor's: {next((g['s'] for g in fl.get('finds', []) if g['query'] == f['query']), 0):.2f} s")
    print(f"  above the floor: {_mb(sh['peak_rss_kb'] - fl['peak_rss_kb'])}; peak RSS (VmHWM) "
          f"{_mb(sh['peak_rss_kb'])} (target < {RSS_TARGET_MB} MB): "
          f"{_ok(r['targets']['show_rss_under_250mb'])}")


# -- setup --------------------------------------------------------------------------------------


def _warm_read(paths: list[Path]) -> float:
    t0 = time.perf_counter()
    for p in paths:
        with open(p, "rb") as fh:
            while fh.read(16 * MB):
                pass
    return time.perf_counter() - t0


def _roots(corpus_root: Path) -> list[str]:
    return [str(corpus_root / sub) for sub in ("claude", "codex") if (corpus_root / sub).is_dir()]


def _warm_catalog(roots: list[str], cache: Path, index: bool) -> dict[str, Any]:
    """Scan into a catalog in `cache` (and build the search index there when asked), in a
    subprocess so that this process stays small."""
    code = (
        "import json, sys, time\n"
        "from pathlib import Path\n"
        "from sessionscope.core.catalog.store import Catalog\n"
        "from sessionscope.core.read.discovery import Root\n"
        "from sessionscope.core.catalog.library import Library\n"
        "cache, index, roots = Path(sys.argv[1]), sys.argv[2] == '1', sys.argv[3:]\n"
        "lib = Library([Root(r, '--root', explicit=True) for r in roots],"
        " catalog=Catalog(cache / 'catalog.sqlite'))\n"
        "t = time.perf_counter(); rep = lib.scan(); out = {'scan_s': time.perf_counter() - t,"
        " 'files': rep.files, 'sessions': len(lib.all_sessions()), 'errors': len(rep.errors)}\n"
        "if index:\n"
        "    from sessionscope.core.search.index import SearchIndex\n"
        "    idx = SearchIndex(cache / 'index'); t = time.perf_counter()\n"
        "    idx.update(lib, lambda p: None); out['index_s'] = time.perf_counter() - t\n"
        "    idx.close()\n"
        "print(json.dumps(out))\n"
    )
    proc = subprocess.run([sys.executable, "-X", "faulthandler", "-c", code, str(cache),
                           "1" if index else "0", *roots],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"warming the catalog failed (exit {proc.returncode}):\n"
                         f"{proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _link_into(src: Path, corpus_root: Path, dest_root: Path) -> Path:
    """`src` at the same relative place under `dest_root`: a hard link (no copy, same inode and
    mtime), else a copy."""
    dest = dest_root / src.relative_to(corpus_root)
    if dest.exists() and os.path.samefile(src, dest):  # (a kept work dir: linked before)
        return dest
    dest.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.link(src, dest)
    except OSError:
        shutil.copy2(src, dest)
    return dest


def _pick_small(manifest: dict[str, Any], root: Path, want: int) -> Path:
    """The claude main session without a multi-MB line whose size is nearest `want` bytes."""
    cands = [e for e in manifest["files"] if e["kind"] == "claude" and not e["long_line"]
             and e["path"] != manifest.get("big")]
    best = min(cands, key=lambda e: abs(e["size"] - want))
    return root / best["path"]


# -- running the children -----------------------------------------------------------------------


def _child_env(bytecode: bool, **extra: str) -> dict[str, str]:
    """The environment of a measured child. With `bytecode`, Python's bytecode cache is on (in
    PYCACHE, filled by the first, unmeasured run of each kind of child): an installed package
    has its .pyc files (pip compiles them; textual's are in the venv). Where
    PYTHONDONTWRITEBYTECODE is set (as on some CI runners), the app side would otherwise compile
    its own ~30 modules from source on every start (~25 ms) while the baseline loads textual's
    bytecode. `--no-bytecode` measures that way."""
    env = dict(os.environ, **extra)
    if bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(PYCACHE)
    return env


def _startup_run(mode: str, cache: Path, roots: list[str], bytecode: bool) -> dict[str, Any]:
    env = _child_env(bytecode, SESSIONSCOPE_CACHE_DIR=str(cache),
                     SESSIONSCOPE_CONFIG=str(cache / "no-config.toml"))
    argv = [sys.executable, "-c", _STARTUP_CHILD, "", mode, str(SIZE[0]), str(SIZE[1])]
    for r in roots:
        argv += ["--root", r]
    t_spawn = time.monotonic()
    argv[3] = repr(t_spawn)
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300,
                          stdin=subprocess.DEVNULL)
    lines = proc.stdout.strip().splitlines()
    if not lines:
        return {"error": (proc.stderr.strip().splitlines() or [f"exit {proc.returncode}"])[-1]}
    return json.loads(lines[-1])


def _phase_run(phase: str, cache: Path, roots: list[str], target: Path,
               max_seconds: float, bytecode: bool) -> dict[str, Any]:
    argv = [sys.executable, __file__, "--phase", phase, "--cache", str(cache), "--target",
            str(target), "--max-seconds", str(max_seconds)]
    for r in roots:
        argv += ["--root", r]
    t0 = time.monotonic()
    proc = subprocess.run(argv, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                          timeout=max_seconds + 300, env=_child_env(bytecode))
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        return {"phase": phase, "error": (proc.stderr.strip().splitlines()
                                          or [f"exit {proc.returncode}"])[-1]}
    out = json.loads(lines[-1])
    out["process_s"] = time.monotonic() - t0
    return out


def _stats(values: list[float]) -> dict[str, Any]:
    if not values:
        return {"n": 0}
    return {"n": len(values), "median": statistics.median(values), "min": min(values),
            "max": max(values), "runs": values}


def _machine() -> dict[str, Any]:
    import importlib.metadata as md

    def ver(name: str) -> str:
        try:
            return md.version(name)
        except md.PackageNotFoundError:
            return "?"
    mem_kb = 0
    try:
        with open("/proc/meminfo") as fh:
            mem_kb = int(fh.readline().split()[1])
    except OSError:
        pass
    return {"cores": os.cpu_count(), "usable_cores": len(os.sched_getaffinity(0)),
            "memory_gb": round(mem_kb / 1024 / 1024, 1), "python": platform.python_version(),
            "platform": platform.platform(), "textual": ver("textual"),
            "sessionscope": ver("sessionscope")}


def run_bench(args: argparse.Namespace) -> dict[str, Any]:
    import gen_corpus

    t_bench = time.monotonic()

    def log(msg: str) -> None:
        if not args.json:
            print(f"  [{time.monotonic() - t_bench:6.1f} s] {msg}", file=sys.stderr)
    APP_CACHE.mkdir(exist_ok=True)
    ignore = APP_CACHE / ".gitignore"
    if not ignore.exists():
        ignore.write_text("*\n")
    sessions = args.sessions or (2000 if args.quick else 20000)
    if args.quick:
        tdir = Path(args.corpus) if args.corpus else APP_CACHE / "quick"
        tparams = {"files": 200, "size_mb": 100, "big_mb": 10}
    else:
        tdir = Path(args.corpus) if args.corpus else HERE / ".corpus"
        tparams = {"files": 2000, "size_mb": 1000, "big_mb": 100}
    log(f"corpus for the transcripts: {tdir} ({tparams})")
    tc = gen_corpus.generate(tdir, **tparams, verbose=not args.json)
    log(f"corpus for the session list: {sessions} small files")
    sdir = APP_CACHE / f"s{sessions}"
    sc = gen_corpus.generate(sdir, files=sessions, size_mb=max(1.0, sessions / 200), big_mb=0,
                             long_line_mb=0, verbose=not args.json)
    assert tc.big is not None
    small = _pick_small(tc.manifest, tc.root, 100 * 1024)
    work = Path(tempfile.mkdtemp(prefix="run-", dir=APP_CACHE))
    report: dict[str, Any] = {"when": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
                              "machine": _machine(), "size": list(SIZE), "repeat": args.repeat,
                              "open_repeat": args.open_repeat, "bytecode": args.bytecode}
    try:
        # -- setup: warm page cache, warm catalogs (and the transcripts' index)
        list_cache = work / "list-cache"
        list_cache.mkdir()
        list_roots = _roots(sc.root)
        warm_s = _warm_read(sc.paths)
        log("warming the session catalog (Library.scan) …")
        list_warm = _warm_catalog(list_roots, list_cache, index=False)
        troot = work / "transcripts"
        big = _link_into(tc.big, tc.root, troot)
        little = _link_into(small, tc.root, troot)
        t_roots = _roots(troot)
        t_cache = work / "transcript-cache"
        t_cache.mkdir()
        _warm_read([big, little])
        log("warming the transcripts' catalog and search index …")
        t_warm = _warm_catalog(t_roots, t_cache, index=True)
        report["corpus"] = {
            "sessions_root": str(sc.root), "session_files": len(sc.paths),
            "session_bytes": sc.total_bytes, "sessions_warm_read_s": round(warm_s, 2),
            "catalog_scan_s": round(list_warm["scan_s"], 2), "catalog_sessions": list_warm["sessions"],
            "transcripts_root": str(tc.root), "big": str(tc.big), "big_bytes": big.stat().st_size,
            "small": str(small), "small_bytes": little.stat().st_size,
            "transcripts_warm_scan_s": round(t_warm["scan_s"], 2),
            "transcripts_index_s": round(t_warm.get("index_s", 0), 2),
        }

        # -- 1. startup
        if "startup" not in args.phases:
            modes = []
        else:
            modes = ["empty", "list"] + (list(WHAT_IF) if args.diagnose else [])
        runs: dict[str, list[dict[str, Any]]] = {mode: [] for mode in modes}
        for i in range(args.repeat + 1 if modes else 0):  # round 0 warms the OS's caches
            for mode in modes:
                log(f"startup {mode} run {i} …")
                r = _startup_run(mode, list_cache, list_roots, args.bytecode)
                if i:
                    runs[mode].append(r)
        if modes:
            report["startup"] = _summarize_startup(runs)

        # -- 2. open: 100 KB vs 100 MB, alternating, one process each
        opens: dict[str, list[dict[str, Any]]] = {"small": [], "big": []}
        for i in range(args.open_repeat + 1 if "open" in args.phases else 0):
            for which, path in (("small", little), ("big", big)):  # round 0 warms the caches
                log(f"open {which} run {i} …")
                r = _phase_run("open", t_cache, t_roots, path, 60, args.bytecode)
                if i:
                    opens[which].append(r)
        if "open" in args.phases:
            report["open"] = _summarize_open(opens)

        # -- 3. scroll the big one end to end
        if not args.skip_scroll and "scroll" in args.phases:
            log("scrolling the big transcript end to end …")
            report["scroll"] = _phase_run("scroll", t_cache, t_roots, big, args.max_scroll_s,
                                          args.bytecode)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        else:
            report["work_dir"] = str(work)
    report["targets"] = _targets(report)
    return report


def _summarize_startup(runs: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for mode, rs in runs.items():
        ok = [r for r in rs if "seconds" in r]
        out[mode] = _stats([r["seconds"] for r in ok])
        out[mode]["errors"] = [r["error"] for r in rs if "error" in r]
        if ok:
            out[mode]["cpu"] = _stats([r["cpu_s"] for r in ok])
            out[mode]["rss_kb"] = statistics.median(r["VmHWM"] for r in ok)
            out[mode]["anon_kb"] = statistics.median(r["RssAnon"] for r in ok)
            keys = sorted({k for r in ok for k in r["marks"]},
                          key=lambda k: statistics.median(r["marks"].get(k, 0) for r in ok))
            out[mode]["marks"] = {k: statistics.median(r["marks"][k] for r in ok if k in r["marks"])
                                  for k in keys}
            if mode.startswith("list"):
                out[mode]["sessions"] = ok[-1].get("sessions")
                out[mode]["rows"] = ok[-1].get("rows")
    e = out["empty"].get("median")
    ec = out["empty"].get("cpu", {}).get("median")
    for mode in runs:
        if mode != "empty" and e and out[mode].get("median"):
            out[mode]["ratio"] = out[mode]["median"] / e
            out[mode]["cpu_ratio"] = out[mode]["cpu"]["median"] / ec if ec else None
    out["ratio"] = out["list"].get("ratio")
    return out


def _summarize_open(opens: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for which, rs in opens.items():
        ok = [r for r in rs if "first_paint_s" in r]
        out[which] = _stats([r["first_paint_s"] for r in ok])
        out[which]["errors"] = [r["error"] for r in rs if "error" in r]
        if ok:
            out[which]["cpu"] = _stats([r["first_paint_cpu_s"] for r in ok])
            out[which]["bytes"] = ok[0]["bytes"]
            out[which]["items_at_paint"] = statistics.median(r["items_at_paint"] for r in ok)
            out[which]["loaded_at_paint"] = all(r["loaded_at_paint"] for r in ok)
            out[which]["streamed"] = ok[0]["streamed"]
    b, s = out["big"].get("median"), out["small"].get("median")
    out["ratio"] = b / s if b and s else None
    if b and s:
        out["cpu_ratio"] = out["big"]["cpu"]["median"] / out["small"]["cpu"]["median"]
    return out


def _targets(r: dict[str, Any]) -> dict[str, Any]:
    t: dict[str, Any] = {}
    ratio = r.get("startup", {}).get("ratio")
    if "startup" in r:
        t["startup_within_1.5x"] = ratio is not None and ratio <= STARTUP_TARGET
    ratio = r.get("open", {}).get("ratio")
    if "open" in r:
        t["open_within_1.5x"] = ratio is not None and ratio <= OPEN_TARGET
    sc = r.get("scroll")
    if sc is not None:
        t["scroll_rss_under_250mb"] = ("peak_rss_kb" in sc and "error" not in sc
                                       and sc["peak_rss_kb"] / 1024 < RSS_TARGET_MB)
    return t


# -- the table ----------------------------------------------------------------------------------


def _ms(x: Any) -> str:
    return f"{x * 1000:.0f}" if isinstance(x, (int, float)) else "?"


def _mb(kb: Any) -> str:
    return f"{kb / 1024:.0f} MB" if isinstance(kb, (int, float)) else "?"


def _ok(flag: bool | None) -> str:
    return "MET" if flag else "MISSED"


def _failures(p: dict[str, Any]) -> None:
    if p.get("errors"):
        print(f"    ({len(p['errors'])} run(s) failed and are left out: {p['errors'][0]})")


def print_table(r: dict[str, Any]) -> None:
    m, c = r["machine"], r["corpus"]
    print(f"\nsessionscope app bench — {r['when']}")
    print(f"machine: {m['cores']} cores ({m['usable_cores']} usable), {m['memory_gb']} GB RAM, "
          f"Python {m['python']}, textual {m['textual']}, {m['platform']}")
    print(f"app size {r['size'][0]}x{r['size'][1]}, headless; {r['repeat']} runs per startup "
          f"timing, {r['open_repeat']} per open timing; median (min-max), each a fresh process; "
          + ("bytecode cached (as installed)" if r.get("bytecode") else
             "no bytecode cache (--no-bytecode: every module compiled on each start)"))
    print(f"sessions: {c['session_files']} files, {c['session_bytes'] / MB:.0f} MB, "
          f"{c['catalog_sessions']} sessions; catalog warmed by Library.scan() in "
          f"{c['catalog_scan_s']} s")
    print(f"transcripts: {c['big_bytes'] / MB:.0f} MB and {c['small_bytes'] / 1024:.0f} KB; "
          f"catalog + index warmed in {c['transcripts_warm_scan_s'] + c['transcripts_index_s']:.1f} s")

    if "startup" in r:
        _print_startup(r)
    if "open" in r:
        _print_open(r)
    if "scroll" in r:
        _print_scroll(r)


def _print_startup(r: dict[str, Any]) -> None:
    s, t = r["startup"], r["targets"]
    print("\n1. Spawn to first painted frame (ms)")
    print(f"  {'':44}{'median':>8}{'min':>7}{'max':>7}{'cpu':>7}{'peak RSS':>10}{'anon':>8}")
    labels = {"empty": "empty App (import textual, App().run())",
              "list": f"session list, {s['list'].get('sessions', '?')} sessions, warm catalog"}
    for mode in ("empty", "list"):
        p = s[mode]
        if not p.get("n"):
            print(f"  {labels[mode]:44}  error: {p.get('errors')}")
            continue
        print(f"  {labels[mode]:44}{_ms(p['median']):>8}{_ms(p['min']):>7}{_ms(p['max']):>7}"
              f"{_ms(p['cpu']['median']):>7}{_mb(p.get('rss_kb')):>10}{_mb(p.get('anon_kb')):>8}")
        _failures(p)
    if s.get("ratio"):
        print(f"  ratio list / empty: {s['ratio']:.2f}x  (target <= {STARTUP_TARGET}x): "
              f"{_ok(t['startup_within_1.5x'])};  CPU time ratio {s['list']['cpu_ratio']:.2f}x")
    print("  (cpu: user+sys CPU time of the process at that frame, all threads; it moves less "
          "than wall time on a loaded machine)")
    marks = s["list"].get("marks", {})
    if marks:
        print("  where the list's time goes (median ms since spawn): "
              + ", ".join(f"{k} {v * 1000:.0f}" for k, v in marks.items()))

    variants = [m for m in WHAT_IF if m in s]
    if variants:
        print("  what if (--diagnose; monkeypatched in the child, not the app as shipped):")
        for mode in variants:
            p = s[mode]
            if not p.get("n"):
                print(f"    {WHAT_IF[mode]:42}  error: {p.get('errors')}")
                continue
            print(f"    {WHAT_IF[mode]:42}{_ms(p['median']):>8}{_ms(p['min']):>7}"
                  f"{_ms(p['max']):>7}{_ms(p['cpu']['median']):>7}{_mb(p.get('rss_kb')):>10}"
                  f"{_mb(p.get('anon_kb')):>8}   {p['ratio']:.2f}x (cpu {p['cpu_ratio']:.2f}x)")


def _print_open(r: dict[str, Any]) -> None:
    o, t = r["open"], r["targets"]
    print("\n2. Select a transcript to its first painted screen (ms)")
    print(f"  {'':44}{'median':>8}{'min':>7}{'max':>7}{'cpu':>7}{'entries':>9}")
    for which in ("small", "big"):
        p = o[which]
        label = f"{which}: {p.get('bytes', 0) / MB:.2f} MB" + (", streamed" if p.get("streamed")
                                                               else ", loaded whole")
        if not p.get("n"):
            print(f"  {label:44}  error: {p.get('errors')}")
            continue
        print(f"  {label:44}{_ms(p['median']):>8}{_ms(p['min']):>7}{_ms(p['max']):>7}"
              f"{_ms(p['cpu']['median']):>7}{p['items_at_paint']:>9.0f}")
        _failures(p)
    if o.get("ratio"):
        print(f"  ratio big / small: {o['ratio']:.2f}x  (target <= {OPEN_TARGET}x): "
              f"{_ok(t['open_within_1.5x'])};  CPU time ratio {o['cpu_ratio']:.2f}x")
    print("  (entries: items the view held when it painted its first screen)")



def _print_scroll(r: dict[str, Any]) -> None:
    sc, c, t = r["scroll"], r["corpus"], r["targets"]
    print(f"\n3. Scrolling the {c['big_bytes'] / MB:.0f} MB transcript end to end with PageDown")
    if "error" in sc:
        print(f"  error: {sc['error']}")
        return
    print(f"  {sc['pages']} pages in {sc['scroll_s']:.1f} s ({sc['items']} items, "
          f"{sc['lines']} lines); per PageDown: p50 {sc['page_ms_p50']:.1f} ms, p95 "
          f"{sc['page_ms_p95']:.1f} ms, max {sc['page_ms_max']:.0f} ms")
    print(f"  {'':44}{'RSS':>10}{'anon':>10}{'file':>10}")
    print(f"  {'app idle before opening':44}{_mb(sc['idle_rss_kb']):>10}"
          f"{_mb(sc['idle_anon_kb']):>10}{'':>10}")
    print(f"  {'peak while opening and scrolling':44}{_mb(sc['peak_rss_kb']):>10}"
          f"{_mb(sc['peak_anon_kb']):>10}{_mb(sc['peak_file_kb']):>10}")
    print(f"  {'at the end':44}{_mb(sc['end_rss_kb']):>10}{_mb(sc['end_anon_kb']):>10}")
    print(f"  peak RSS (VmHWM) {_mb(sc['peak_rss_kb'])} (target < {RSS_TARGET_MB} MB): "
          f"{_ok(t.get('scroll_rss_under_250mb'))}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true",
                    help="2,000 sessions and a 10 MB transcript (its own corpus)")
    ap.add_argument("--sessions", type=int, default=None, help="sessions in the list "
                    "(default 20,000; 2,000 with --quick)")
    ap.add_argument("--corpus", default=None, help="transcript corpus dir (default bench/.corpus)")
    ap.add_argument("--repeat", type=int, default=5, help="runs per timing (median)")
    ap.add_argument("--open-repeat", type=int, default=11,
                    help="runs per side of the open timing (~50 ms each: more runs than the rest)")
    ap.add_argument("--skip-scroll", action="store_true", help="skip the scroll (memory) phase")
    ap.add_argument("--phases", default="startup,open,scroll",
                    help="which measurements to run (comma-separated; default all three)")
    ap.add_argument("--max-scroll-s", type=float, default=1200.0,
                    help="give up scrolling after this long")
    ap.add_argument("--diagnose", action="store_true",
                    help="also time the startup with each cause of its time patched away")
    ap.add_argument("--no-bytecode", dest="bytecode", action="store_false",
                    help="run the children without a bytecode cache when PYTHONDONTWRITEBYTECODE "
                    "is set (the app's own modules are then compiled on every start)")
    ap.add_argument("--single-mb", type=float, default=None,
                    help="instead: one transcript of this size (1000: issue 15's 1 GB) shown whole "
                         "in the app; its peak memory against the 250 MB target")
    ap.add_argument("--big-kind", choices=("claude", "codex"), default="claude",
                    help="with --single-mb: the transcript's format")
    ap.add_argument("--no-index", action="store_true",
                    help="with --single-mb: no warm index (the app indexes the file as it shows it)")
    ap.add_argument("--keep", action="store_true", help="keep the warmed cache dirs")
    ap.add_argument("--work", default=None,
                    help="with --single-mb: keep the warm catalog and index in this dir and reuse them")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    ap.add_argument("--phase", help=argparse.SUPPRESS)
    ap.add_argument("--cache", help=argparse.SUPPRESS)
    ap.add_argument("--target", help=argparse.SUPPRESS)
    ap.add_argument("--root", action="append", default=[], help=argparse.SUPPRESS)
    ap.add_argument("--max-seconds", type=float, default=1200.0, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    args.phases = {p.strip() for p in args.phases.split(",") if p.strip()}
    if args.phase:
        result = asyncio.run(_transcript_phase(args.phase, Path(args.cache), args.root,
                                               args.target, args.max_seconds))
        sys.stdout.write(json.dumps(result) + "\n")
        sys.stdout.flush()
        os._exit(0)  # do not wait for a loader thread still reading the file
    report = run_single(args) if args.single_mb else run_bench(args)
    if args.json:
        print(json.dumps(report, indent=2, default=str))
    else:
        (print_single if args.single_mb else print_table)(report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
