"""A session's last entries from the end of its file: line numbers from the line counts the catalog
stores, never by counting the whole file (issue 15)."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import orjson
import pytest

from helpers import CORPUS, NO_CORPUS, corpus_files, isolate
from sessionscope.core.catalog import tails
from sessionscope.core.catalog.library import Library, conversation
from sessionscope.core.catalog.store import Catalog
from sessionscope.core.read.discovery import Root
from sessionscope.core.read.jsonl import LineMark, RecordFile

CLAUDE = CORPUS / "claude-code" / "spotter__tool_heavy.jsonl"
CODEX = CORPUS / "codex" / "localpush__rollout-2026-02-23T12-40-23-019c8a4c-ed82-79a1-aa28-7738fc5ab61a.jsonl"


def scan(root: Path, catalog: Catalog) -> Library:
    lib = Library([Root(str(root), "--root", explicit=True)], catalog=catalog)
    lib.scan()
    return lib


@pytest.mark.skipif(not CLAUDE.exists() or not CODEX.exists(), reason=NO_CORPUS)
def test_the_scan_stores_line_counts_of_claude_and_codex_files(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "claude").mkdir(parents=True)
    (root / "codex").mkdir()
    claude = root / "claude" / "1c2d3e4f-0000-4000-8000-000000000001.jsonl"
    codex = root / "codex" / CODEX.name.split("__", 1)[1]
    shutil.copy(CLAUDE, claude)
    shutil.copy(CODEX, codex)
    # A TypeScript-era Codex document is one JSON value: its "lines" are records, not lines.
    document = root / "codex" / "rollout-2025-04-20-0c9a1f52-3c2b-4bb0-9d61-1f4a3d9e8b77.json"
    document.write_text(json.dumps({"session": {"timestamp": "2025-04-20T10:00:00Z", "id": "0c9a1f52"},
                                    "items": [{"type": "message", "role": "user",
                                               "content": [{"type": "input_text", "text": "hi"}]}]},
                                   indent=2) + "\n")
    catalog = Catalog(tmp_path / "c.sqlite")
    scan(root, catalog)
    for path in (claude, codex):
        row = Catalog(tmp_path / "c.sqlite").get(str(path))
        data = path.read_bytes()
        assert row is not None and row.sessions, path
        assert (row.read_end, row.read_lines) == (len(data), data.count(b"\n")), path
        with RecordFile(path) as rf:  # the stored count numbers a tail as the whole index does
            assert rf.tail(5, mark=LineMark(row.read_end, row.read_lines)) == RecordFile(path).tail(5)
    row = catalog.get(str(document))
    assert row is not None and row.sessions and row.read_end == -1


# -- `recent` from the end of the file -------------------------------------------------------------
def small_windows(monkeypatch: pytest.MonkeyPatch, verify: int = 5) -> None:
    """Windows on small files: every file gets one looked for, checked for the
    last `verify` entries, within half the file."""
    monkeypatch.setattr(tails, "TAIL_MIN_BYTES", 0)
    monkeypatch.setattr(tails, "VERIFY", verify)
    monkeypatch.setattr(tails, "SHARE", 2)


def whole_conversation(lib: Library, session) -> list:
    return conversation(lib.load(session).entries)


def corpus_transcripts() -> list[Path]:
    return [p for sub in ("claude-code", "codex") for p in corpus_files(sub)]


@pytest.mark.skipif(not corpus_transcripts(), reason=NO_CORPUS)
def test_last_entries_from_the_window_are_the_whole_reads_on_the_corpus(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    small_windows(monkeypatch)
    root = tmp_path / "root"
    for path in corpus_transcripts():
        dest = root / path.parent.name / path.name.split("__")[-1]
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, dest)
    lib = scan(root, Catalog(tmp_path / "c.sqlite"))
    used = 0
    for row in lib.rows.values():
        for session in row.sessions:
            whole = whole_conversation(lib, session)
            for n in (1, 3, 5, 6):
                got = tails.last_entries(lib, session, n)
                if got is not None:
                    used += 1
                    assert got == (whole[-n:], len(whole)), (row.path, n)
                    assert n <= 5  # never more entries than were checked
    assert used >= 10  # the windows are used (the corpus files are long enough)


def claude_record(uuid: str, parent: str | None, role: str, text: str, minute: int) -> dict:
    message = {"role": role, "content": text} if role == "user" else {
        "id": f"msg_{uuid}", "role": "assistant", "model": "claude-x",
        "content": [{"type": "text", "text": text}]}
    return {"type": role, "uuid": uuid, "parentUuid": parent, "sessionId": "1c2d3e4f-0000-4000-8000-0000000000aa",
            "cwd": "/work/demo", "timestamp": f"2026-01-31T10:{minute // 60:02d}:{minute % 60:02d}Z",
            "message": message}


def rewound_transcript(path: Path) -> None:
    """A conversation of 600 turns rewound to turn 500 and continued for 5 more: the records after
    turn 500 are abandoned, which a window holding only the last few records cannot tell."""
    records, parent = [], None
    for i in range(600):
        uuid = f"a{i:03d}"
        records.append(claude_record(uuid, parent, "user" if i % 2 == 0 else "assistant", f"turn {i}", i))
        parent = uuid
    parent = "a499"
    for i in range(5):
        uuid = f"b{i:03d}"
        records.append(claude_record(uuid, parent, "user" if i % 2 == 0 else "assistant", f"again {i}", 200 + i))
        parent = uuid
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))


def scanned_rewound(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Library, object]:
    """A rewound transcript scanned (windows checked for its last 8 entries): its path, the
    library, its session."""
    small_windows(monkeypatch, verify=8)
    root = tmp_path / "root"
    root.mkdir()
    path = root / "1c2d3e4f-0000-4000-8000-0000000000aa.jsonl"
    rewound_transcript(path)
    lib = scan(root, Catalog(tmp_path / "c.sqlite"))
    [session] = lib.all_sessions()
    return path, lib, session


def test_a_window_from_before_a_rewind_marks_the_abandoned_branch(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path, lib, session = scanned_rewound(tmp_path, monkeypatch)
    whole = whole_conversation(lib, session)
    assert [e.text for e in whole[-8:]] == ["turn 497", "turn 498", "turn 499"] + [f"again {i}" for i in range(5)]
    # The window starts at the line of the first of the last 8 (turn 497's): read alone, its
    # last record's chain reaches back there, turns 500-599 between off the branch.
    mark = lib.catalog.tail(str(path))
    assert mark is not None and mark.line == 498 and mark.total == len(whole) == 505
    for n in (1, 8):
        assert tails.last_entries(lib, session, n) == (whole[-n:], len(whole))
    assert tails.last_entries(lib, session, 9) is None  # more than were checked: read whole


@pytest.mark.parametrize("thin", [False, True])
def test_a_window_whose_entries_differ_from_the_whole_read_is_not_used(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, thin: bool) -> None:
    """A tool result among the last entries whose call is 40 lines before the first of them: the
    window from that line alone does not know the tool's name (the whole read does), so twice as
    many lines are read, which reach the call. Read thin (as the scan reads a big file), the
    entries are compared without their texts: the tool's name still is."""
    from sessionscope.core.catalog import library as library_module

    small_windows(monkeypatch, verify=8)
    if thin:
        monkeypatch.setattr(library_module, "THIN_OVER", 1)
    root = tmp_path / "root"
    root.mkdir()
    path = root / "1c2d3e4f-0000-4000-8000-0000000000aa.jsonl"
    records, parent = [], None
    for i in range(300):
        uuid = f"a{i:03d}"
        if i == 250:  # an assistant turn calling a tool, answered 50 records later
            rec = claude_record(uuid, parent, "assistant", "calling", i)
            rec["message"]["content"] = [{"type": "tool_use", "id": "toolu_1", "name": "Bash",
                                          "input": {"command": "make test"}}]
        elif i == 296:
            rec = claude_record(uuid, parent, "user", "", i)
            rec["message"]["content"] = [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "ok"}]
        else:
            rec = claude_record(uuid, parent, "user" if i % 2 == 0 else "assistant", f"turn {i}", i)
        records.append(rec)
        parent = uuid
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    lib = scan(root, Catalog(tmp_path / "c.sqlite"))
    [session] = lib.all_sessions()
    whole = whole_conversation(lib, session)
    result = next(e for e in whole[-8:] if e.tool_use_id == "toolu_1")
    assert result.tool_name == "Bash"
    mark = lib.catalog.tail(str(path))
    # from line 293 (the first of the last 8): 8 lines, without the call (line 251); then twice
    # as many and one back from the end: 17, 35, still without; then 71, from line 230, with it
    assert mark is not None and mark.line == 300 - 71 + 1
    assert tails.last_entries(lib, session, 8) == (whole[-8:], len(whole))


def test_a_file_changed_since_its_scan_is_read_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path, lib, session = scanned_rewound(tmp_path, monkeypatch)
    root = path.parent
    assert tails.last_entries(lib, session, 3) is not None
    with path.open("ab") as fh:
        fh.write(orjson.dumps(claude_record("c000", "b004", "user", "more", 300)) + b"\n")
    assert tails.last_entries(lib, session, 3) is None
    lib = scan(root, Catalog(tmp_path / "c.sqlite"))  # read on from its old end: the window carried
    [session] = lib.all_sessions()
    whole = whole_conversation(lib, session)
    assert whole[-1].text == "more" and tails.last_entries(lib, session, 3) == (whole[-3:], len(whole))
    lib = scan(root, Catalog(tmp_path / "c2.sqlite"))  # read whole: a window for the new end
    [session] = lib.all_sessions()
    whole = whole_conversation(lib, session)
    assert whole[-1].text == "more" and tails.last_entries(lib, session, 3) == (whole[-3:], len(whole))


@pytest.mark.parametrize("limit", ["1", "8", "30"])
def test_recent_shows_the_same_from_the_window_as_from_a_whole_read(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], limit: str) -> None:
    from sessionscope.cli.main import main
    from sessionscope.core.catalog.library import Library as Lib

    isolate(tmp_path, monkeypatch)
    root = tmp_path / "root"
    root.mkdir()
    rewound_transcript(root / "1c2d3e4f-0000-4000-8000-0000000000aa.jsonl")
    used = []
    real = tails.last_entries

    def spy(lib: Lib, session, n: int):
        got = real(lib, session, n)
        used.append(got is not None)
        return got

    monkeypatch.setattr(tails, "last_entries", spy)
    outputs = []
    for windows in (False, True):
        monkeypatch.setattr(tails, "TAIL_MIN_BYTES", 1 << 40)
        if windows:
            small_windows(monkeypatch, verify=8)
        for fmt in ((), ("--json",)):
            (tmp_path / "cache").exists() and shutil.rmtree(tmp_path / "cache")
            assert main(["recent", "1c2d", "--root", str(root), "--limit", limit, *fmt]) == 0
            outputs.append(capsys.readouterr().out)
    assert used == [False, False, limit != "30", limit != "30"]
    assert outputs[:2] == outputs[2:]
    assert json.loads(outputs[1])["total_entries"] == 505


def test_the_session_logs_recent_reads_the_window_too(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from sessionscope.core.logs import contract

    root = tmp_path / "root"
    root.mkdir()
    rewound_transcript(root / "1c2d3e4f-0000-4000-8000-0000000000aa.jsonl")
    answers, used = [], []
    real = tails.last_entries
    monkeypatch.setattr(tails, "last_entries", lambda *a: used.append(real(*a) is not None) or real(*a))
    for windows in (False, True):
        monkeypatch.setattr(tails, "TAIL_MIN_BYTES", 1 << 40)
        if windows:
            small_windows(monkeypatch, verify=8)
        answers.append(contract.recent(scan(root, Catalog(None)), "1c2d", 8))
    assert used == [False, True]
    assert answers[0] == answers[1] and answers[0]["count"] == 8


def test_a_window_stored_under_the_bare_fingerprint_is_not_used(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Windows found before the thin comparison took every field (stored under the bare
    fingerprint) may miss a tool's name: not used, found again by the next whole reading."""
    from sessionscope.core.catalog import window
    from sessionscope.core.catalog.store import TailMark

    path, lib, session = scanned_rewound(tmp_path, monkeypatch)
    mark = lib.catalog.tail(str(path))
    assert mark is not None and tails.last_entries(lib, session, 5) is not None
    old = TailMark(lib.row(str(path)).fingerprint.key, mark.offset, mark.line, mark.verified, mark.total)
    lib.catalog.put_marks(str(path), old, None)
    assert tails.last_entries(lib, session, 5) is None
    whole = whole_conversation(lib, session)
    assert window.read_window(lib, session, 5, last=True).entries == whole[-5:]  # (read whole: found again)
    assert lib.catalog.tail(str(path)) == mark
    assert tails.last_entries(lib, session, 5) == (whole[-5:], len(whole))


def test_the_window_search_ends_when_no_line_is_left_to_add(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever the comparisons say, each window tried starts further back than the last one, so
    the search ends (here every comparison fails, and the last line is unfinished)."""
    small_windows(monkeypatch, verify=1)
    monkeypatch.setattr(tails, "SHARE", 1)
    root = tmp_path / "root"
    root.mkdir()
    path = root / "1c2d3e4f-0000-4000-8000-0000000000aa.jsonl"
    rewound_transcript(path)
    with path.open("ab") as fh:
        fh.write(b'{"type":"user","uuid":"half')  # the writer mid-line
    monkeypatch.setattr(tails, "_compared", lambda entries, thin, loaded=None: [object()])
    starts = []
    real = tails.read_from

    def spy(adapter, path_, rf, offset, line):  # noqa: ANN001, ANN202
        starts.append(offset)
        assert len(starts) < 100, "the window search does not end"
        return real(adapter, path_, rf, offset, line)

    monkeypatch.setattr(tails, "read_from", spy)
    lib = scan(root, Catalog(tmp_path / "c.sqlite"))
    assert lib.catalog.tail(str(path)) is None
    assert starts and starts == sorted(starts, reverse=True) and len(set(starts)) == len(starts)


# -- a window carried across the file's growth ---------------------------------------------------
def grown_lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def grow_and_compare(tmp_path: Path, source: Path, cuts: list[int], name: str,
                     where: str = "projects/-work-demo/1c2d3e4f-0000-4000-8000-0000000000bb.jsonl") -> tuple[int, int]:
    """Write `source`'s lines up to each cut in turn (the file growing) at `where` in a root,
    scanning after each (read on), and hold every `last_entries` answer to a whole reading's;
    (answers carried across a growth, answers in all)."""
    path = tmp_path / name / where
    path.parent.mkdir(parents=True)
    lines = grown_lines(source)
    catalog = Catalog(tmp_path / f"{name}.sqlite")
    carried = answers = 0
    real = tails.regrow
    done: list[bool] = []

    def spy(*args):  # noqa: ANN002
        done.append(real(*args))
        return done[-1]

    for cut in cuts:
        path.write_bytes(b"".join(lines[:cut]))
        lib = scan(tmp_path / name, catalog)
        [session] = [s for s in lib.all_sessions() if s.path == str(path) and s.kind.value == "main"] or [None]
        if session is None:
            continue
        whole = whole_conversation(lib, session)
        tails.regrow = spy
        try:
            for n in (1, 5):
                done.clear()
                got = tails.last_entries(lib, session, n)
                if got is not None:
                    answers += 1
                    carried += any(done)
                    assert got == (whole[-n:], len(whole)), (source.name, cut, n, any(done))
        finally:
            tails.regrow = real
    return carried, answers


@pytest.mark.skipif(not corpus_files("claude-code"), reason=NO_CORPUS)
def test_last_entries_carried_across_growth_are_the_whole_reads(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Real Claude Code transcripts written a few lines at a time: after each growth the window
    the last whole reading checked is carried on when the new records only add to the end of the
    conversation, and every answer is a whole reading's."""
    small_windows(monkeypatch)
    import random

    rng = random.Random(15)
    carried = answers = 0
    for k, source in enumerate(p for p in corpus_files("claude-code") if p.stat().st_size > 100_000):
        n = len(grown_lines(source))
        cuts = sorted({*rng.sample(range(n // 3, n + 1), min(12, n - n // 3)), n})
        c, a = grow_and_compare(tmp_path, source, cuts, f"t{k}")
        carried, answers = carried + c, answers + a
    assert answers >= 20 and carried >= answers // 4, (carried, answers)


@pytest.mark.skipif(not corpus_files("codex"), reason=NO_CORPUS)
def test_codex_last_entries_carried_across_growth_are_the_whole_reads(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """The same for real Codex rollouts: carried once a tool call closed every twin window."""
    small_windows(monkeypatch)
    import random

    rng = random.Random(15)
    carried = answers = 0
    for k, source in enumerate(corpus_files("codex")):
        n = len(grown_lines(source))
        if n < 30 or source.suffix != ".jsonl":
            continue
        cuts = sorted({*rng.sample(range(n // 3, n + 1), min(12, n - n // 3)), n})
        rollout = "rollout-2026-02-23T12-40-23-019c8a4c-ed82-79a1-aa28-7738fc5ab61a.jsonl"
        c, a = grow_and_compare(tmp_path, source, cuts, f"x{k}", f"sessions/2026/02/23/{rollout}")
        carried, answers = carried + c, answers + a
    assert answers >= 10 and carried >= answers // 4, (carried, answers)


def _linear(n: int, prefix: str = "a") -> list[dict]:
    records, parent = [], None
    for i in range(n):
        uuid = f"{prefix}{i:03d}"
        records.append(claude_record(uuid, parent, "user" if i % 2 == 0 else "assistant", f"turn {i}", i))
        parent = uuid
    return records


def _append(path: Path, records: list[dict]) -> None:
    with open(path, "ab") as fh:
        fh.write(b"".join(orjson.dumps(r) + b"\n" for r in records))


@pytest.mark.parametrize("case", ["linear", "rewind", "far-call", "off-branch-part", "system-after", "sidechain",
                                  "much", "much-but-small"])
def test_a_window_is_carried_across_growth_only_when_it_still_gives_the_whole_reads_entries(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str) -> None:
    """600 turns read whole (a window of the last 8 checked), then records appended and read on:
    carried when they continue the branch (`linear`, and a prompt whose parent is a system
    record after the reply, as Claude Code writes `turn_duration`); not when they branch from an
    older turn (`rewind`: turns after it leave the branch), answer a call made before the window
    (`far-call`: its tool's name is not in the window), hold a record off the branch with the
    message id of a reply before the window (`off-branch-part`: that reply puts it on the branch
    in a whole reading) or a sidechain record, nor when the file more than doubled by more than
    REGROW_BYTES (`much`; under it, `much-but-small`, carried). Every answer is a whole reading's
    either way."""
    small_windows(monkeypatch, verify=8)
    monkeypatch.setattr(tails, "HEAD_MIN_BYTES", 0)
    monkeypatch.setattr(tails, "HEAD_VERIFY", 5)
    root = tmp_path / "root"
    root.mkdir()
    path = root / "1c2d3e4f-0000-4000-8000-0000000000aa.jsonl"
    records = _linear(600)
    records[100]["message"]["content"] = [{"type": "tool_use", "id": "toolu_far", "name": "Bash", "input": {}}]
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    catalog = Catalog(tmp_path / "c.sqlite")
    scan(root, catalog)
    more = [claude_record(f"b{i:03d}", f"b{i - 1:03d}" if i else "a599", "user" if i % 2 == 0 else "assistant",
                          f"more {i}", 300 + i) for i in range(4)]
    if case == "rewind":
        more[0]["parentUuid"] = "a499"
    elif case == "far-call":
        more[0]["message"]["content"] = [{"type": "tool_result", "tool_use_id": "toolu_far", "content": "done"}]
    elif case == "off-branch-part":  # off the branch, with the message id of a reply before the window
        side = claude_record("c000", "b001", "assistant", "a part aside", 310)
        side["message"]["id"] = "msg_a051"  # (a part of that reply: on the branch in a whole reading)
        more.insert(2, side)
    elif case == "system-after":
        more.insert(0, {"type": "system", "subtype": "turn_duration", "uuid": "s000", "parentUuid": "a599",
                        "sessionId": "1c2d3e4f-0000-4000-8000-0000000000aa", "timestamp": "2026-01-31T10:05:00Z",
                        "content": "", "isMeta": False})
        more[1]["parentUuid"] = "s000"
    elif case == "sidechain":
        more[2]["isSidechain"] = True
    elif case in ("much", "much-but-small"):  # (grown by more than 1/SHARE of the file since)
        if case == "much":  # (and by more than REGROW_BYTES: the caller's thin reading holds less)
            monkeypatch.setattr(tails, "REGROW_BYTES", 0)
        more = [claude_record(f"b{i:03d}", f"b{i - 1:03d}" if i else "a599", "user" if i % 2 == 0 else "assistant",
                              f"more {i}", 300 + i) for i in range(600)]
    _append(path, more)
    lib = scan(root, catalog)
    [session] = [s for s in lib.all_sessions() if s.kind.value == "main"]
    # (read on but after a sidechain record, which makes the file two sessions: then read whole,
    # which stores its own marks, none found for a file of two)
    assert (lib.row(str(path)).read_end == path.stat().st_size) is (case != "sidechain")
    whole = whole_conversation(lib, session)
    assert lib.catalog.head(str(path)).key == lib.catalog.tail(str(path)).key
    row = tails.single_row(lib, session)  # (None: a file of two sessions)
    carried = row is not None and tails.regrow(lib, session, row)
    assert carried is (case in ("linear", "system-after", "much-but-small")), case
    for n in (1, 8):  # (None: the caller reads the file, as before)
        assert tails.last_entries(lib, session, n) == ((whole[-n:], len(whole)) if carried else None), (case, n)
    # `read`'s first entries, from the head window carried with it
    assert tails.first_entries(lib, session, 5) == ((whole[:5], len(whole)) if carried else None), case


def test_a_whole_reading_leaves_no_window_of_an_earlier_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A record appended that repeats a uuid from long before the window (a resume copy) makes the
    scan read the file whole (not on); a window of the reading before must not stay stored when
    this reading finds none: read alone, the window's lines take the copy for a new record, which a
    whole reading drops, so it would be carried across the growth wrongly."""
    small_windows(monkeypatch, verify=8)
    root = tmp_path / "root"
    root.mkdir()
    path = root / "1c2d3e4f-0000-4000-8000-0000000000aa.jsonl"
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in _linear(600)))
    catalog = Catalog(tmp_path / "c.sqlite")
    scan(root, catalog)
    assert catalog.tail(str(path)).verified == 8
    copy = claude_record("a010", "a599", "user", "turn 10", 10)  # (a resume copy of turn 10)
    _append(path, [copy, claude_record("b000", "a010", "assistant", "after the copy", 301)])
    monkeypatch.setattr(tails, "find_ends", lambda *a, **k: (None, None))  # (this reading finds none)
    lib = scan(root, catalog)
    [session] = lib.all_sessions()
    mark = catalog.tail(str(path))
    assert mark.key == tails.mark_key(lib.row(str(path)).fingerprint) and mark.verified == 0
    assert tails.last_entries(lib, session, 1) is None  # (read otherwise)


@pytest.mark.parametrize("case", ["summary", "repeat"])
def test_claude_lines_appended_with_a_summary_or_a_repeated_uuid_are_not_read_on(tmp_path: Path, case: str) -> None:
    """What the scan's `extend` refuses (a summary record, a uuid read before) `read_grown`
    refuses too, seen within the window's lines."""
    from sessionscope.core.read.adapters.claude import ClaudeAdapter
    from sessionscope.core.read.jsonl import RecordFile

    path = tmp_path / "1c2d3e4f-0000-4000-8000-0000000000aa.jsonl"
    records = _linear(60)
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records))
    old_end = path.stat().st_size
    offset = len(b"".join(orjson.dumps(r) + b"\n" for r in records[:50]))
    more = [claude_record("b000", "a059", "user", "more", 100)]
    more.insert(0, {"type": "summary", "summary": "a title", "leafUuid": "a059"} if case == "summary"
                else claude_record("a055", "a059", "user", "turn 55 again", 101))
    _append(path, more)
    adapter = ClaudeAdapter()
    with RecordFile(str(path)) as rf:
        assert adapter.read_grown(str(path), rf, offset, 51, old_end) is None
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in [*records, more[-1]]))  # (without it: read on)
    with RecordFile(str(path)) as rf:
        assert adapter.read_grown(str(path), rf, offset, 51, old_end) is not None
