"""`same_stats(split=True)` (core/catalog/warm.py): from SPLIT_FROM paths on, a forked child
compares the second half of the stats while the process compares the first; the answer is the one
comparison in one process gives, whichever half changed, and when no child can be made."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

#: run in a fresh process (one thread: what `split` asks for; a test worker may run others)
SCRIPT = """if True:
    import json, os, sys
    from sessionscope.core.catalog import warm
    folder, log = sys.argv[1], sys.argv[2]
    paths = sorted(os.path.join(folder, n) for n in os.listdir(folder))
    stored = warm.file_stats(os.stat(p) for p in paths)
    warm.SPLIT_FROM = 4
    fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    real = warm._same
    def same(part, blob, fields_of):  # (which process compared how many paths)
        os.write(fd, f"{os.getpid()} {len(part)}\\n".encode())
        return real(part, blob, fields_of)
    warm._same = same
    out = {"unchanged": warm.same_stats([(paths, stored, warm.FILE_FIELDS)], split=True)}
    for name, i in (("first half changed", 1), ("second half changed", len(paths) - 2)):
        with open(paths[i], "a") as fh:
            fh.write("more")
        out[name] = warm.same_stats([(paths, stored, warm.FILE_FIELDS)], split=True)
        stored = warm.file_stats(os.stat(p) for p in paths)
    os.unlink(paths[-1])
    out["a file gone"] = warm.same_stats([(paths, stored, warm.FILE_FIELDS)], split=True)
    stored = warm.file_stats(os.stat(p) for p in paths[:-1])
    def no_fork():
        raise OSError("no more processes")
    os.fork = no_fork
    out["no child"] = warm.same_stats([(paths[:-1], stored, warm.FILE_FIELDS)], split=True)
    out["me"] = os.getpid()
    print(json.dumps(out))
"""


def test_split_stats_give_the_answer_of_one_comparison(tmp_path: Path) -> None:
    folder = tmp_path / "files"
    folder.mkdir()
    for i in range(10):
        (folder / f"s{i:02}.jsonl").write_text("{}\n" * (i + 1))
    log = tmp_path / "log"
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(folder), str(log)], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    import json

    out = json.loads(done.stdout)
    me = out.pop("me")
    assert out == {"unchanged": True, "first half changed": False, "second half changed": False,
                   "a file gone": False, "no child": True}
    calls = [tuple(map(int, line.split())) for line in log.read_text().splitlines()]
    # each split call: this process and a child, five paths each; without a child, all nine here
    assert [n for pid, n in calls if pid == me] == [5, 5, 5, 5, 9]
    children = [(pid, n) for pid, n in calls if pid != me]
    # (three children were waited for; the one whose half no longer mattered, when this process's
    # own half had changed, was stopped and may not have said so)
    assert len({pid for pid, _ in children}) in (3, 4) and all(n == 5 for _, n in children)


def test_split_is_not_asked_for_in_a_process_with_other_threads() -> None:
    """A fork copies only the calling thread: with another one running, the stats stay here."""
    code = """if True:
        import threading
        from sessionscope.core.catalog import warm
        print(warm._may_fork())
        threading.Thread(target=threading.Event().wait, daemon=True).start()
        print(warm._may_fork())
    """
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "False"]


def test_halves_cut_all_the_checks_at_half_their_paths() -> None:
    """The child takes the second half of the paths of all the checks together: the check at the
    middle is cut in two, each part with its own stored stats."""
    from sessionscope.core.catalog import warm

    files = [f"f{i}" for i in range(5)]
    folders = [f"d{i}" for i in range(3)]
    fstored = bytes(range(5 * warm.FILE_FIELDS * 8))
    dstored = bytes(range(3 * warm.FOLDER_FIELDS * 8))
    mine, theirs = warm._halves([(files, fstored, warm.FILE_FIELDS), (folders, dstored, warm.FOLDER_FIELDS)])
    assert mine == [(files[:4], fstored[:4 * 40], warm.FILE_FIELDS)]
    assert theirs == [(files[4:], fstored[4 * 40:], warm.FILE_FIELDS), (folders, dstored, warm.FOLDER_FIELDS)]
    mine, theirs = warm._halves([(folders, dstored, warm.FOLDER_FIELDS), (files, fstored, warm.FILE_FIELDS)])
    assert mine == [(folders, dstored, warm.FOLDER_FIELDS), (files[:1], fstored[:40], warm.FILE_FIELDS)]
    assert theirs == [(files[1:], fstored[40:], warm.FILE_FIELDS)]


FOLDERS_SCRIPT = """if True:
    import json, os, sys
    from sessionscope.core.catalog import warm
    root = sys.argv[1]
    folders = sorted(os.path.join(root, n) for n in os.listdir(root))
    files = sorted(os.path.join(d, n) for d in folders for n in os.listdir(d))
    def folder_stored():
        return warm.folder_stats((s.st_dev, s.st_ino, s.st_mtime_ns, s.st_ctime_ns) for s in map(os.stat, folders))
    fstored, dstored = warm.file_stats(map(os.stat, files)), folder_stored()
    warm.SPLIT_FROM = 4
    def check():
        return warm.same_stats([(files, fstored, warm.FILE_FIELDS), (folders, dstored, warm.FOLDER_FIELDS)],
                               split=True)
    out = {"unchanged": check()}
    open(os.path.join(folders[-1], "new"), "w").close()  # (the last folder: in the child's half)
    out["a file added to a folder"] = check()
    dstored = folder_stored()
    out["stored again"] = check()
    print(json.dumps(out))
"""


def test_a_folder_changed_in_the_childs_half_is_found(tmp_path: Path) -> None:
    for d in range(3):
        (tmp_path / f"d{d}").mkdir()
        for i in range(3):
            (tmp_path / f"d{d}" / f"s{i}.jsonl").write_text("{}\n")
    done = subprocess.run([sys.executable, "-c", FOLDERS_SCRIPT, str(tmp_path)], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    import json

    assert json.loads(done.stdout) == {"unchanged": True, "a file added to a folder": False, "stored again": True}


REAP_SCRIPT = """if True:
    import json, os, sys
    from sessionscope.core.catalog import warm
    folder = sys.argv[1]
    paths = sorted(os.path.join(folder, n) for n in os.listdir(folder))
    stored = warm.file_stats(os.stat(p) for p in paths)
    warm.SPLIT_FROM = 4
    most = 0
    for _ in range(30):
        assert warm.same_stats([(paths, stored, warm.FILE_FIELDS)], split=True)
        most = max(most, len(warm._unreaped))
    print(json.dumps({"most": most, "left": len(warm._unreaped)}))
"""


def test_a_process_that_forks_again_gathers_no_unreaped_children(tmp_path: Path) -> None:
    """The stat child is not waited for once it has answered; the next fork reaps those that have
    ended, so a process comparing again and again (a long-lived one) gathers no zombies: of 30
    children, the few still ending at the moment (one or two on a quiet machine) are pending."""
    for i in range(8):
        (tmp_path / f"s{i}.jsonl").write_text("{}\n")
    done = subprocess.run([sys.executable, "-c", REAP_SCRIPT, str(tmp_path)], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    import json

    out = json.loads(done.stdout)
    assert out["most"] <= 10 and out["left"] <= 10, out
