"""`read`'s window of a big session, read thin but for the entries shown (core/catalog/window.py):
always the whole read's entries, total and start (issue 15: bounded on any transcript)."""
from __future__ import annotations

import shutil
from pathlib import Path

import orjson
import pytest

from helpers import NO_CORPUS, claude_record, cli_json, corpus_files, isolate, write_records
from sessionscope.core.catalog import window
from sessionscope.core.catalog.library import Library, conversation
from sessionscope.core.catalog.store import Catalog
from sessionscope.core.catalog.tails import entry_lines
from sessionscope.core.read.discovery import Root

SID = "1c2d3e4f-0000-4000-8000-0000000000bb"


def scan(root: Path, tmp_path: Path) -> Library:
    lib = Library([Root(str(root), "--root", explicit=True)], catalog=Catalog(tmp_path / "c.sqlite"))
    lib.scan()
    return lib


def whole(lib: Library, session, limit: int, *, start: int = 0, entry_id: str | None = None,
          all_branches: bool = False, last: bool = False) -> window.Window:
    """The window as a whole read gives it: what every thin reading must give."""
    entries = lib.load(session).entries
    entries = entries if all_branches else conversation(entries)
    if last:
        start = max(0, len(entries) - limit)
    if entry_id is not None:
        start = next((i for i, e in enumerate(entries) if e.id == entry_id), -1)
        if start < 0:
            return window.Window([], len(entries), -1)
    return window.Window(entries[start : start + limit], len(entries), start)


def same(got: window.Window, want: window.Window) -> None:
    assert (got.total, got.start) == (want.total, want.start)
    assert [e.id for e in got.entries] == [e.id for e in want.entries]
    assert got.entries == want.entries  # texts, tool inputs, branches: every field


def text(i: int) -> str:
    return f"turn {i}: " + "words of a long reply " * 4


def assistant(uuid: str, parent: str, ts: int, body: str, mid: str | None = None) -> dict:
    rec = claude_record(uuid, parent, SID, ts % 60, "assistant", body)
    if mid is not None:  # a part of a reply split over several lines
        rec["message"]["id"], rec["requestId"] = mid, f"r-{mid}"
    return rec


def rewound_early(path: Path) -> None:
    """A prompt and a reply, 100 records of a branch later abandoned (rewound to the reply),
    then the active branch: 200 records, one reply among them split over three lines."""
    records = [claude_record("r0", None, SID, 0, "user", text(0)), assistant("r1", "r0", 1, text(1))]
    parent = "r1"
    for i in range(100):
        role = "user" if i % 2 == 0 else "assistant"
        records.append(claude_record(f"x{i}", parent, SID, i % 60, role, "abandoned " + text(i)) if role == "user"
                       else assistant(f"x{i}", parent, i, "abandoned " + text(i)))
        parent = f"x{i}"
    parent = "r1"
    for i in range(200):
        if i == 11:
            for part in "abc":
                records.append(assistant(f"y11{part}", parent, i, f"part {part} " + text(i), mid="msg-split"))
                parent = f"y11{part}"
            continue
        role = "user" if i % 2 == 0 else "assistant"
        records.append(claude_record(f"y{i}", parent, SID, i % 60, role, text(i)) if role == "user"
                       else assistant(f"y{i}", parent, i, text(i)))
        parent = f"y{i}"
    write_records(path, records)


@pytest.fixture
def rewound(tmp_path: Path) -> tuple[Library, object]:
    path = tmp_path / "root" / "proj" / f"{SID}.jsonl"
    rewound_early(path)
    lib = scan(tmp_path / "root", tmp_path)
    (session,) = [s for row in lib.rows.values() for s in row.sessions]
    return lib, session


class Kept:
    """The `_Keep`s of the readings, to see how many entries each kept whole."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.made: list[window._Keep] = []
        made = self.made

        class Spy(window._Keep):
            def __init__(self, *args, **kwargs) -> None:
                super().__init__(*args, **kwargs)
                made.append(self)

        monkeypatch.setattr(window, "_Keep", Spy)


def test_a_window_behind_an_abandoned_branch_takes_a_second_thin_reading(
        rewound, monkeypatch: pytest.MonkeyPatch) -> None:
    lib, session = rewound
    kept = Kept(monkeypatch)
    got = window.read_window(lib, session, 20, threshold=0)
    want = whole(lib, session, 20)
    same(got, want)
    # the active branch's first 20 come after the 100 abandoned records: beyond the first
    # reading's margin, so the second keeps exactly their lines whole, and nothing else
    assert got.how == "thin2" and want.total == 2 + 200
    first, second = kept.made
    assert len(first.whole) <= 20 + window.MARGIN + 2
    lines = {e.locator.line for e in want.entries}
    assert second.whole == lines | {line for e in want.entries for line in entry_lines(e, lib.load(session))}
    assert len(second.whole) == 20 + 2  # (the split reply: three lines, one entry)
    merged = next(e for e in got.entries if e.id == "y11a")
    assert "part a" in merged.text and "part c" in merged.text  # merged from whole parts


def test_every_branch_and_an_entry_asked_for_are_the_first_reading(rewound) -> None:
    lib, session = rewound
    for how in ({"all_branches": True}, {"entry_id": "y150", "all_branches": True},
                {"entry_id": "x3", "all_branches": True}, {"start": 40}):
        got = window.read_window(lib, session, 15, threshold=0, **how)
        same(got, whole(lib, session, 15, **how))
        # (from the 40th of the active branch: the 140th record, beyond the margin)
        assert got.how == ("thin2" if "start" in how else "thin"), how
    missing = window.read_window(lib, session, 5, threshold=0, entry_id="nope", all_branches=True)
    assert missing.start == -1 and missing.entries == [] and missing.total == whole(lib, session, 5, all_branches=True).total


def test_a_split_reply_across_the_margin_is_kept_whole_with_its_parts(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(window, "MARGIN", 0)
    records, parent = [], None
    for i in range(40):
        if i == 9:  # entries 9, 10, 11 fed: one reply, merged into the window's 10th entry
            for part in "abc":
                records.append(assistant(f"s{part}", parent, i, f"part {part} " + text(i), mid="msg-split"))
                parent = f"s{part}"
            continue
        records.append(claude_record(f"a{i}", parent, SID, i, "user", text(i)) if i % 2 == 0
                       else assistant(f"a{i}", parent, i, text(i)))
        parent = f"a{i}"
    write_records(tmp_path / "root" / "p" / f"{SID}.jsonl", records)
    lib = scan(tmp_path / "root", tmp_path)
    (session,) = [s for row in lib.rows.values() for s in row.sessions]
    got = window.read_window(lib, session, 10, threshold=0)
    same(got, whole(lib, session, 10))
    assert got.how == "thin" and "part c" in got.entries[-1].text


def test_a_small_file_is_read_whole(rewound) -> None:
    lib, session = rewound
    got = window.read_window(lib, session, 20)  # (the default threshold: 8 MB)
    assert got.how == "whole"
    same(got, whole(lib, session, 20))


def test_every_demo_format_gives_the_whole_reads_window(tmp_path: Path) -> None:
    from sessionscope.core.demo.generate import generate_demo

    generate_demo(tmp_path / "demo")
    lib = scan(tmp_path / "demo", tmp_path)
    formats = set()
    for row in lib.rows.values():
        for session in row.sessions:
            formats.add(session.source_format)
            for how in ({}, {"all_branches": True}, {"start": 3}, {"last": True}):
                for limit in (1, 4):
                    same(window.read_window(lib, session, limit, threshold=0, **how),
                         whole(lib, session, limit, **how))
    assert len(formats) >= 5, formats


def corpus_transcripts() -> list[Path]:
    return [p for sub in ("claude-code", "codex", "copilot-cli", "pi") for p in corpus_files(sub)]


def scanned_corpus(tmp_path: Path) -> Library:
    """The corpus's transcripts copied under one root and scanned."""
    root = tmp_path / "root"
    for path in corpus_transcripts():
        dest = root / path.parent.name / path.name.split("__")[-1]
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, dest)
    return scan(root, tmp_path)


@pytest.mark.skipif(not corpus_transcripts(), reason=NO_CORPUS)
def test_windows_of_the_real_transcripts_are_the_whole_reads(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(window, "MARGIN", 2)  # second readings too, where branches come first
    lib = scanned_corpus(tmp_path)
    hows: dict[str, int] = {}
    for row in lib.rows.values():
        for session in row.sessions:
            every = lib.load(session).entries
            asks = [{}, {"all_branches": True}, {"start": 7}, {"last": True}]
            asks += [{"entry_id": e.id, "all_branches": True} for e in every[:: max(1, len(every) // 3)]]
            for how in asks:
                for limit in (6,):
                    got = window.read_window(lib, session, limit, threshold=0, **how)
                    same(got, whole(lib, session, limit, **how))
                    hows[got.how] = hows.get(got.how, 0) + 1
    assert hows.get("thin", 0) > 20, hows


def test_cli_read_of_a_big_file_shows_the_whole_reads_entries(
        rewound, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    lib, session = rewound
    isolate(tmp_path, monkeypatch)
    root = str(tmp_path / "root")
    small = cli_json(capsys, "read", session.id, "--json", "--limit", "5", "--root", root)
    monkeypatch.setattr(window, "WINDOW_MIN_BYTES", 0)
    kept = Kept(monkeypatch)
    big = cli_json(capsys, "read", session.id, "--json", "--limit", "5", "--root", root)
    assert big == small and len(kept.made) == 2  # (read thin twice: behind an abandoned branch)
    assert [e["content"] for e in big["entries"]] == [e.text for e in whole(lib, session, 5).entries]
    assert big["total_entries"] == 202 and big["truncated"]


# -- the first entries from the file's first lines (core/catalog/tails.py `find_head`) -------------
def small_heads(monkeypatch: pytest.MonkeyPatch, verify: int = 8, thin: bool = False) -> None:
    """Head windows on small files: checked for the first `verify` entries, within half the
    file; with `thin`, the scan reads every file thin (as it reads a big one)."""
    from sessionscope.core.catalog import library as library_module
    from sessionscope.core.catalog import tails

    monkeypatch.setattr(tails, "TAIL_MIN_BYTES", 0)
    monkeypatch.setattr(tails, "HEAD_MIN_BYTES", 0)
    monkeypatch.setattr(tails, "HEAD_VERIFY", verify)
    monkeypatch.setattr(tails, "SHARE", 2)
    if thin:
        monkeypatch.setattr(library_module, "THIN_OVER", 1)


@pytest.mark.parametrize("thin", [False, True])
def test_the_first_entries_behind_an_abandoned_branch_come_from_a_checked_head(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, thin: bool) -> None:
    small_heads(monkeypatch, thin=thin)
    path = tmp_path / "root" / "proj" / f"{SID}.jsonl"
    rewound_early(path)
    lib = scan(tmp_path / "root", tmp_path)
    (session,) = lib.all_sessions()
    # The fewest lines that can do, through the 9th entry's (the active branch's 7th record, after
    # the 100 abandoned ones), read alone: their last record's chain is the active one.
    mark = lib.catalog.head(str(path))
    assert mark is not None and mark.lines == 2 + 100 + 7 and mark.total == 202
    for n in (1, 8):
        got = window.read_window(lib, session, n)
        assert got.how == "head"
        same(got, whole(lib, session, n))
    assert window.read_window(lib, session, 9).how == "whole"  # more than were checked


def split_early(path: Path) -> None:
    """400 entries, the 8th one reply split over 40 lines (lines 8 to 47)."""
    records, parent = [], None
    for i in range(7):
        records.append(claude_record(f"a{i}", parent, SID, i, "user", text(i)) if i % 2 == 0
                       else assistant(f"a{i}", parent, i, text(i)))
        parent = f"a{i}"
    for part in range(40):
        records.append(assistant(f"s{part}", parent, 7, f"part {part} " + text(7), mid="msg-split"))
        parent = f"s{part}"
    for i in range(8, 400):
        records.append(claude_record(f"a{i}", parent, SID, i % 60, "user", text(i)) if i % 2 == 0
                       else assistant(f"a{i}", parent, i, text(i)))
        parent = f"a{i}"
    write_records(path, records)


@pytest.mark.parametrize("thin", [False, True])
def test_a_head_holds_a_split_reply_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         thin: bool) -> None:
    small_heads(monkeypatch, thin=thin)  # (thin: the entries are compared without their texts)
    path = tmp_path / "root" / "p" / f"{SID}.jsonl"
    split_early(path)
    lib = scan(tmp_path / "root", tmp_path)
    (session,) = lib.all_sessions()
    mark = lib.catalog.head(str(path))
    assert mark is not None and mark.lines == 48  # (through the entry after the reply: all its parts)
    got = window.read_window(lib, session, 8)
    assert got.how == "head" and "part 39" in got.entries[-1].text
    same(got, whole(lib, session, 8))


@pytest.mark.parametrize("thin", [False, True])
def test_a_head_that_differs_from_the_whole_read_is_not_used(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, thin: bool) -> None:
    """Lines read alone that give other entries (here: a split reply whose last parts they
    leave out, as a window ending inside it would) are not taken: twice as many are tried."""
    from sessionscope.core.catalog import tails

    small_heads(monkeypatch, thin=thin)
    real = tails.read_head
    cut = []

    def short(adapter, path, rf, end):  # noqa: ANN001, ANN202
        if not cut:  # (the first window tried: as if it ended 20 lines into the reply)
            cut.append(end)
            end = tails._line_end(rf, 7 + 20)
        return real(adapter, path, rf, end)

    monkeypatch.setattr(tails, "read_head", short)
    path = tmp_path / "root" / "p" / f"{SID}.jsonl"
    split_early(path)
    lib = scan(tmp_path / "root", tmp_path)
    mark = lib.catalog.head(str(path))
    assert cut and mark is not None and mark.lines == 2 * 48


def test_a_file_changed_since_its_scan_is_not_read_from_its_head(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    small_heads(monkeypatch)
    path = tmp_path / "root" / "proj" / f"{SID}.jsonl"
    rewound_early(path)
    lib = scan(tmp_path / "root", tmp_path)
    (session,) = lib.all_sessions()
    assert window.read_window(lib, session, 5).how == "head"
    # a rewind to the first reply: everything after it, the head's entries too, is abandoned
    with path.open("ab") as fh:
        fh.write(orjson.dumps(claude_record("z0", "r1", SID, 59, "user", "rewound to the start")) + b"\n")
    got = window.read_window(lib, session, 5)
    assert got.how == "whole" and [e.id for e in got.entries] == ["r0", "r1", "z0"]


@pytest.mark.skipif(not corpus_transcripts(), reason=NO_CORPUS)
def test_heads_of_the_real_transcripts_give_the_whole_reads_first_entries(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    small_heads(monkeypatch, verify=6)
    lib = scanned_corpus(tmp_path)
    used = 0
    for session in lib.all_sessions():
        for n in (1, 6):
            got = window.read_window(lib, session, n)
            used += got.how == "head"
            same(got, whole(lib, session, n))
    assert used >= 10


# -- the last entries, where no checked window gives them (`recent` of a grown file) ---------------
def rewound_late(path: Path) -> None:
    """600 records rewound to the 500th and continued for 5 more: the last entries of the
    conversation are the 5 new ones and, before them, records 100 lines further up."""
    records, parent = [], None
    for i in range(600):
        records.append(claude_record(f"a{i}", parent, SID, i % 60, "user", text(i)) if i % 2 == 0
                       else assistant(f"a{i}", parent, i, text(i)))
        parent = f"a{i}"
    parent = "a499"
    for i in range(5):
        records.append(claude_record(f"b{i}", parent, SID, i, "user", "again " + text(i)) if i % 2 == 0
                       else assistant(f"b{i}", parent, i, "again " + text(i)))
        parent = f"b{i}"
    write_records(path, records)


@pytest.mark.parametrize("margin, how", [(64, "thin"), (0, "thin2")])
def test_the_last_entries_of_a_big_file_are_read_thin_but_for_its_last_lines(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, margin: int, how: str) -> None:
    monkeypatch.setattr(window, "MARGIN", margin)
    path = tmp_path / "root" / "p" / f"{SID}.jsonl"
    rewound_late(path)
    lib = scan(tmp_path / "root", tmp_path)
    (session,) = lib.all_sessions()
    kept = Kept(monkeypatch)
    got = window.read_window(lib, session, 20, last=True, threshold=0)
    want = whole(lib, session, 20, start=505 - 20)
    same(got, want)
    assert want.total == 505 and [e.id for e in want.entries][-6:] == ["a499", "b0", "b1", "b2", "b3", "b4"]
    # the last 4 x (20 + margin) lines kept whole: with no margin, the last 80, which do not reach
    # back to the records before the rewind (100 lines up): read again for exactly those
    assert got.how == how and len(kept.made[0].whole) == 4 * (20 + margin)
    for small in ({"last": True}, {}):
        same(window.read_window(lib, session, 3, threshold=0, **small),
             whole(lib, session, 3, start=502 if small else 0))


def test_cli_recent_of_a_grown_big_file_shows_the_whole_reads_entries(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from sessionscope.core.catalog import tails

    isolate(tmp_path, monkeypatch)
    path = tmp_path / "root" / "p" / f"{SID}.jsonl"
    rewound_late(path)
    root = str(tmp_path / "root")
    monkeypatch.setattr(tails, "TAIL_MIN_BYTES", 1 << 40)  # no checked window: as a file grown since
    small = cli_json(capsys, "recent", SID[:8], "--json", "--limit", "7", "--root", root)
    monkeypatch.setattr(window, "WINDOW_MIN_BYTES", 0)
    kept = Kept(monkeypatch)
    big = cli_json(capsys, "recent", SID[:8], "--json", "--limit", "7", "--root", root)
    assert big == small and len(kept.made) == 1
    assert [e["entry_id"] for e in big["entries"]] == ["a498", "a499", "b0", "b1", "b2", "b3", "b4"]
    assert big["total_entries"] == 505


def test_the_session_logs_read_and_recent_answer_as_from_a_whole_read(
        rewound, monkeypatch: pytest.MonkeyPatch) -> None:
    from sessionscope.core.catalog import tails
    from sessionscope.core.logs import contract

    lib, session = rewound
    monkeypatch.setattr(tails, "last_entries", lambda *a: None)  # (as for a file grown since its scan)
    answers = []
    for threshold in (1 << 40, 0):
        monkeypatch.setattr(window, "WINDOW_MIN_BYTES", threshold)
        answers.append((contract.read_session(lib, session.id, 30), contract.recent(lib, session.id, 12)))
    assert answers[0] == answers[1]
    read, recent = answers[1]
    assert read["total_entries"] == 202 and read["returned"] == 30 and recent["count"] == 12


def test_broken_and_unfinished_lines_in_a_big_file_read_as_a_whole_read_reads_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "root" / "p" / f"{SID}.jsonl"
    rewound_late(path)
    lines = path.read_bytes().splitlines(keepends=True)
    lines[3] = b'{"type":"user","uuid":"broken \x1b[31m\n'  # a broken line among the first entries
    lines[-3] = b"not json at all\n"  # and one among the last
    path.write_bytes(b"".join(lines) + b'{"type":"user","uuid":"half-writ')  # the writer mid-line
    lib = scan(tmp_path / "root", tmp_path)
    (session,) = lib.all_sessions()
    for how in ({}, {"last": True}, {"all_branches": True}, {"start": 2}):
        got = window.read_window(lib, session, 6, threshold=0, **how)
        want = whole(lib, session, 6, **how)
        same(got, want)
        assert got.how.startswith("thin"), how
    kinds = [e.kind.value for e in window.read_window(lib, session, 6, threshold=0).entries]
    last = [e.kind.value for e in window.read_window(lib, session, 6, threshold=0, last=True).entries]
    assert "malformed" in kinds and "malformed" in last


@pytest.mark.parametrize("big", [True, False])
def test_a_grown_file_read_once_is_read_from_its_ends_after(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, big: bool) -> None:
    """Big: read thin once; smaller (over TAIL_MIN_BYTES, under WINDOW_MIN_BYTES): whole once.
    (The prompt appended branches from the reply before the last prompt, a retry: the windows
    cannot be carried across that growth, core/catalog/tails.py `regrow`.)"""
    from sessionscope.core.catalog import tails

    small_heads(monkeypatch)
    monkeypatch.setattr(tails, "VERIFY", 8)
    monkeypatch.setattr(window, "WINDOW_MIN_BYTES", 0 if big else 1 << 40)
    root = tmp_path / "root"
    path = root / "p" / f"{SID}.jsonl"
    rewound_late(path)
    lib = scan(root, tmp_path)
    (session,) = lib.all_sessions()
    assert window.read_window(lib, session, 5).how == "head"
    with path.open("ab") as fh:  # a new prompt, after the reply before the last prompt
        fh.write(orjson.dumps(claude_record("c0", "b3", SID, 59, "user", "one more " + text(1))) + b"\n")
    lib = scan(root, tmp_path)  # read on from its old end: neither end's window is found
    (session,) = lib.all_sessions()
    path_ = str(path)
    assert lib.catalog.head(path_).key != lib.row(path_).fingerprint.key
    assert tails.last_entries(lib, session, 5) is None
    got = window.read_window(lib, session, 5)  # read (thin), and both ends found from that reading
    assert got.how == ("thin" if big else "whole")
    same(got, whole(lib, session, 5))
    again = window.read_window(lib, session, 5)
    assert again.how == "head"
    same(again, got)
    last = tails.last_entries(lib, session, 5)
    want = whole(lib, session, 5, last=True)
    assert last is not None and (last[0], last[1]) == (want.entries, want.total)
    assert want.entries[-1].id == "c0"


def test_ends_are_not_stored_for_a_file_changed_since_its_scan(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from sessionscope.core.catalog import tails

    small_heads(monkeypatch)
    monkeypatch.setattr(window, "WINDOW_MIN_BYTES", 0)
    monkeypatch.setattr(tails, "find_head", lambda *a, **k: None)  # (the scan finds none)
    root = tmp_path / "root"
    path = root / "p" / f"{SID}.jsonl"
    rewound_late(path)
    lib = scan(root, tmp_path)
    (session,) = lib.all_sessions()
    monkeypatch.undo()
    small_heads(monkeypatch)
    monkeypatch.setattr(window, "WINDOW_MIN_BYTES", 0)
    with path.open("ab") as fh:  # changed after the scan: the row is not of these bytes
        fh.write(orjson.dumps(claude_record("c0", "b4", SID, 59, "user", "more")) + b"\n")
    assert window.read_window(lib, session, 5).how == "thin"
    assert lib.catalog.head(str(path)) is None


def test_ends_without_a_window_are_looked_for_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file whose ends give no window (here: none may be over a billionth of it) is not
    searched again at each call while it stays as it is; a window of no entries serves none."""
    from sessionscope.core.catalog import tails

    small_heads(monkeypatch)
    monkeypatch.setattr(window, "WINDOW_MIN_BYTES", 0)
    root = tmp_path / "root"
    path = root / "p" / f"{SID}.jsonl"
    rewound_late(path)
    lib = scan(root, tmp_path)
    (session,) = lib.all_sessions()
    monkeypatch.setattr(tails, "SHARE", 10**9)
    looked = []
    real = tails.find_tail
    monkeypatch.setattr(tails, "find_tail", lambda *a, **k: looked.append(1) or real(*a, **k))
    lib.catalog.put_marks(str(path), tails.TailMark("stale", 0, 1, 5, 505), None)  # (of another state)
    for _ in range(3):
        got = window.read_window(lib, session, 4, last=True)
        same(got, whole(lib, session, 4, last=True))
        assert got.how == "thin"
    assert len(looked) == 1
    mark = lib.catalog.tail(str(path))
    assert mark is not None and mark.verified == 0 and tails.last_entries(lib, session, 1) is None
    assert tails.last_entries(lib, session, 0) is None


def first_of(lib: Library, session, ids: set[str]) -> dict:
    """Each id's first entry as a whole read gives it."""
    found: dict = {}
    for e in lib.load(session).entries:
        if e.id in ids:
            found.setdefault(e.id, e)
    return found


def test_entries_asked_for_by_id_are_the_whole_reads(rewound, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bookmark's entries (core/bookmarks/anchor.py): on the abandoned branch, on the active
    one, a split reply's merged entry (from its parts kept whole), several at once; one not there
    or a small file gives None (the caller reads whole)."""
    lib, session = rewound
    kept = Kept(monkeypatch)
    for ids in ({"y150"}, {"x3", "y150", "y199"}, {"y11a"}, {"r0", "x99", "y11a", "y12"}):
        kept.made.clear()
        got = window.read_entries(lib, session, ids, threshold=0)
        assert got is not None and got == first_of(lib, session, ids), ids
        assert len(kept.made) == 1 and len(kept.made[0].whole) <= 3 * len(ids) + 2, ids  # (one reading, few kept)
    assert "part a" in got["y11a"].text and "part c" in got["y11a"].text
    assert window.read_entries(lib, session, {"y150", "nope"}, threshold=0) is None
    assert window.read_entries(lib, session, {"y150"}) is None  # (the default threshold: 8 MB)


def test_bookmarks_in_a_big_session_are_resolved_from_their_entries_alone(
        rewound, monkeypatch: pytest.MonkeyPatch) -> None:
    """Bookmarks on entries of a big session resolve as from a whole read, without one when every
    entry is where it was; a bookmark whose entry changed under its id reads the session whole."""
    from dataclasses import replace

    from sessionscope.core.bookmarks.anchor import State, bookmark_of, resolve

    lib, session = rewound
    entries = {e.id: e for e in lib.load(session).entries}
    marks = [bookmark_of(session, entries[i]) for i in ("x3", "y11a", "y150")] + [bookmark_of(session)]
    want = resolve(lib, marks)  # (the default threshold: read whole)
    loads: list[object] = []
    load = Library.load
    monkeypatch.setattr(Library, "load", lambda self, s: loads.append(s) or load(self, s))
    monkeypatch.setattr(window, "WINDOW_MIN_BYTES", 0)
    assert resolve(lib, marks) == want and not loads
    assert [r.state for r in want] == [State.FOUND] * 4
    # the line-numbered id of an entry whose content is not the bookmark's: looked for whole
    changed = replace(marks[0], entry_id="L7", hash="0" * 12)
    assert resolve(lib, [changed])[0].state == State.ENTRY_GONE and len(loads) == 1
