"""`warm.begin` / `Early` (core/catalog/warm.py): a command begins the snapshot's stat comparison
in a forked child before it imports the catalog, the child and then the command comparing chunks
they take from one pipe; the warm scan takes that answer when the catalog still names the same
snapshot for its roots. The answer is the one comparison in one process gives: a file changed
in any chunk, a child that dies, another snapshot or other roots since, each makes it walk."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from helpers import claude_record as claude, write_records as write

#: run in a fresh process (one thread: what a fork asks for; a test worker may run others)
SCRIPT = """if True:
    import json, os, sys
    from sessionscope.core.catalog import warm
    from sessionscope.core.catalog.library import Library
    from sessionscope.core.catalog.store import Catalog
    from sessionscope.core.read import walk
    from sessionscope.core.read.discovery import Root, looked_for
    root, db, log = sys.argv[1], sys.argv[2], sys.argv[3]
    walk.LISTING_MARGIN_NS = -10**18  # (folders trusted however recent)
    warm.SPLIT_FROM, warm.EARLY_CHUNK = 1, 2
    me = os.getpid()
    fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    real_same, real_stats, real_walk = warm._same, warm.same_stats, walk.walk_files
    def same(part, blob, fields_of):  # (which process compared how many paths)
        os.write(fd, f"{os.getpid()} {len(part)}\\n".encode())
        return real_same(part, blob, fields_of)
    warm._same = same
    counts = {"walks": 0, "compared here": 0}
    def walk_files(*a, **k):
        counts["walks"] += 1
        return real_walk(*a, **k)
    def same_stats(*a, **k):
        counts["compared here"] += 1
        return real_stats(*a, **k)
    walk.walk_files, warm.same_stats = walk_files, same_stats
    roots = [Root(root, "--root", explicit=True)]

    def run(early_roots=roots, between=None):
        early = warm.begin(db, early_roots, looked_for(None))
        if between:
            between()
        counts.update(walks=0, **{"compared here": 0})
        lib = Library(roots, catalog=Catalog(db))
        lib.early = early
        ids = sorted(lib.scan(lazy=True) and lib.session_ids())
        return {"begun": early is not None, "ids": len(ids), **counts}

    def grow(name):
        with open(os.path.join(root, "p", name), "a") as f:
            f.write("\\n")

    out = {"unchanged": run()}
    grow(sorted(os.listdir(os.path.join(root, "p")))[-1])
    out["the last file grown"] = run()
    out["again"] = run()
    def other_scan():  # (another process scanned a change and kept its own snapshot)
        grow(sorted(os.listdir(os.path.join(root, "p")))[0])
        Library(roots, catalog=Catalog(db)).scan(lazy=True)
    out["another snapshot since"] = run(between=other_scan)
    other = [Root(os.path.join(root, "p"), "--root", explicit=True)]
    Library(other, catalog=Catalog(db)).scan(lazy=True)  # (a snapshot of those roots too)
    out["other roots"] = run(early_roots=other)
    real_take = warm._take_and_compare
    def take(chunks, taken):
        if os.getpid() != me:
            os._exit(1)  # (the child dies before it answers)
        return real_take(chunks, taken)
    warm._take_and_compare = take
    out["the child dies"] = run()
    warm._take_and_compare = real_take
    out["after"] = run()
    out["me"] = me
    print(json.dumps(out))
"""


def test_an_early_comparison_gives_the_answer_of_one(tmp_path: Path) -> None:
    root = tmp_path / "projects"
    for i in range(9):
        sid = f"{i:08}-0000-4000-8000-000000000000"
        write(root / "p" / f"{sid}.jsonl", [claude(f"u{i}", None, sid, i + 1)])
    db, log = tmp_path / "c.sqlite", tmp_path / "log"
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(root), str(db), str(log)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    me = out.pop("me")
    warm_ = {"begun": True, "ids": 9, "walks": 0, "compared here": 0}
    walked = {"begun": True, "ids": 9, "walks": 1, "compared here": 0}
    assert out == {
        "unchanged": {"begun": False, "ids": 9, "walks": 1, "compared here": 0},  # (no snapshot yet)
        "the last file grown": walked,
        "again": warm_,
        "another snapshot since": {"begun": True, "ids": 9, "walks": 0, "compared here": 1},
        "other roots": {"begun": True, "ids": 9, "walks": 0, "compared here": 1},
        "the child dies": walked,
        "after": warm_,
    }
    # the warm comparisons' chunks (9 files and 2 folders, 2 paths a chunk): taken by the child
    # and this process between them, each chunk once
    calls = [tuple(map(int, line.split())) for line in log.read_text().splitlines()]
    assert {pid for pid, _ in calls} - {me}, "no chunk compared in a child"


#: a whole command in a fresh process: which early comparisons it began and took
COMMAND = """if True:
    import os, sys
    from sessionscope.core.catalog import warm
    from sessionscope.core.read import walk
    walk.LISTING_MARGIN_NS = -10**18
    warm.SPLIT_FROM, warm.EARLY_CHUNK = 1, 2
    log = sys.argv.pop(1)
    real_begin, real_same = warm.begin, warm.Early.same
    def note(what):
        with open(log, "a") as f:
            f.write(what + "\\n")
    def begin(*a, **k):
        early = real_begin(*a, **k)
        note("begun" if early is not None else "none")
        return early
    def same(self):
        answer = real_same(self)
        note(f"taken {answer}")
        return answer
    warm.begin, warm.Early.same = begin, same
    from sessionscope.cli.main import main
    sys.exit(main())
"""


def test_sessions_and_search_take_an_early_comparison(tmp_path: Path) -> None:
    root = tmp_path / "projects"
    for i in range(5):
        sid = f"{i:08}-0000-4000-8000-000000000000"
        write(root / "p" / f"{sid}.jsonl", [claude(f"u{i}", None, sid, i + 1, text=f"word{i} findme")])
    env = {**os.environ, "SESSIONSCOPE_CACHE_DIR": str(tmp_path / "cache"),
           "SESSIONSCOPE_CONFIG": str(tmp_path / "none.toml"), "HOME": str(tmp_path / "home")}
    log = tmp_path / "log"
    outs = []
    for argv in (["sessions"], ["sessions", "--json"], ["search", "findme"], ["search", "findme"]):
        done = subprocess.run([sys.executable, "-c", COMMAND, str(log), "--root", str(root), *argv], env=env,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        outs.append(done.stdout)
    # the first: no snapshot yet; then each begun and taken (search's first brings the index up)
    assert log.read_text().split("\n")[:-1] == ["none", "begun", "taken True", "begun", "taken True",
                                                 "begun", "taken True"]
    assert len(json.loads(outs[1])["sessions"]) == 5
    assert outs[2] == outs[3] and "findme" in outs[3]
