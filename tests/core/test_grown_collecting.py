"""`recent` after growth for pi and Copilot CLI (`CollectingAdapter.read_grown`) and Gemini CLI
(`GeminiAdapter.read_grown`), core/catalog/tails.py `regrow`: the window a whole reading checked
is carried to the grown file when the appended lines only add to the end of the conversation,
and every answer is a whole reading's; a reading on names a repeated id as a whole reading does
(the ids' hashes carried)."""
from __future__ import annotations

import random
from pathlib import Path

import orjson
import pytest
from helpers import NO_CORPUS, corpus_files

from sessionscope.core.catalog import tails
from sessionscope.core.catalog.library import Library, conversation
from sessionscope.core.catalog.store import Catalog
from sessionscope.core.read.discovery import Root

PI_PATH = "sessions/--home-dev-proj--/2026-01-31T10-00-00-000Z_5e1f0c7a-0000-4000-8000-00000000000a.jsonl"
COPILOT_PATH = "session-state/5e1f0c7a-0000-4000-8000-00000000000b/events.jsonl"
GEMINI_PATH = "tmp/" + "ab" * 32 + "/chats/session-2026-01-31T10-00-5e1f0c7a.jsonl"
TS = "2026-01-31T10:{:02d}:{:02d}.000Z"


def _ts(i: int) -> str:
    return TS.format(i // 60 % 60, i % 60)


def pi_header() -> dict:
    return {"type": "session", "version": 3, "id": "5e1f0c7a-0000-4000-8000-00000000000a",
            "timestamp": _ts(0), "cwd": "/home/dev/proj"}


def pi_turns(n: int, prefix: str, parent: str | None, start: int = 0) -> list[dict]:
    """`n` pi message records chained from `parent`: a prompt, a tool call, its result, a reply."""
    out = []
    for i in range(start, start + n):
        rid = f"{prefix}{i:05d}"
        kind = i % 4
        if kind == 0:
            msg = {"role": "user", "content": [{"type": "text", "text": f"prompt {i}"}]}
        elif kind == 1:
            msg = {"role": "assistant", "model": "m1", "content": [{"type": "toolCall", "id": f"call{i}",
                                                                     "name": "bash", "arguments": {"c": i}}]}
        elif kind == 2:
            msg = {"role": "toolResult", "toolCallId": f"call{i - 1}", "toolName": "bash",
                   "content": [{"type": "text", "text": f"output {i}"}]}
        else:
            msg = {"role": "assistant", "model": "m1", "content": [{"type": "text", "text": f"reply {i}"}]}
        out.append({"type": "message", "id": rid, "parentId": parent, "timestamp": _ts(i), "message": msg})
        parent = rid
    return out


def copilot_events(n: int, prefix: str, start: int = 0) -> list[dict]:
    """`n` turns of Copilot events: a prompt, a request with its execution start and completion,
    a reply."""
    out = []

    def event(etype: str, data: dict) -> None:
        out.append({"type": etype, "data": data, "id": f"{prefix}-{start}-{len(out)}",
                    "timestamp": _ts(len(out)), "parentId": None})

    if start == 0:
        event("session.start", {"sessionId": "5e1f0c7a-0000-4000-8000-00000000000b", "context": {"cwd": "/p"}})
    for i in range(start, start + n):
        call = f"{prefix}call{i}"
        event("user.message", {"content": f"prompt {i}"})
        event("assistant.message", {"content": "", "toolRequests": [{"toolCallId": call, "name": "bash",
                                                                     "arguments": {"c": i}}]})
        event("tool.execution_start", {"toolCallId": call, "toolName": "bash"})
        event("tool.execution_complete", {"toolCallId": call, "success": True, "result": {"content": f"out {i}"}})
        event("assistant.message", {"content": f"reply {i}", "toolRequests": []})
    return out


def lines(records: list[dict]) -> bytes:
    return b"".join(orjson.dumps(r) + b"\n" for r in records)


def scan(root: Path, catalog: Catalog) -> Library:
    lib = Library([Root(str(root), "--root", explicit=True)], catalog=catalog)
    lib.scan()
    return lib


@pytest.fixture
def windows(monkeypatch: pytest.MonkeyPatch) -> None:
    """Windows on small files, checked for the last 8 entries (head windows too)."""
    monkeypatch.setattr(tails, "TAIL_MIN_BYTES", 0)
    monkeypatch.setattr(tails, "VERIFY", 8)
    monkeypatch.setattr(tails, "SHARE", 2)
    monkeypatch.setattr(tails, "HEAD_MIN_BYTES", 0)
    monkeypatch.setattr(tails, "HEAD_VERIFY", 5)


def carried_after_growth(tmp_path: Path, where: str, first: bytes, more: bytes, read_on: bool = True) -> bool:
    """`first` written and read whole (its windows found), `more` appended and read on (or not,
    `read_on` False: read whole again): whether the windows were carried to the grown file;
    every answer held to a whole reading's."""
    root = tmp_path / "root"
    path = root / where
    path.parent.mkdir(parents=True)
    path.write_bytes(first)
    catalog = Catalog(tmp_path / "c.sqlite")
    lib = scan(root, catalog)
    assert lib.catalog.tail(str(path)).verified > 0  # (a window the whole reading checked)
    with path.open("ab") as fh:
        fh.write(more)
    lib = scan(root, catalog)
    # (read on: the window stays under the file's earlier fingerprint; a whole reading stores its own)
    assert (lib.catalog.tail(str(path)).key != tails.mark_key(lib.row(str(path)).fingerprint)) is read_on
    [session] = lib.all_sessions()
    whole = conversation(lib.load(session).entries)
    row = tails.single_row(lib, session)
    carried = row is not None and tails.regrow(lib, session, row)
    for n in (1, 8):  # (None: the caller reads the file, as before; read whole: a window of its own)
        got = tails.last_entries(lib, session, n)
        assert got == ((whole[-n:], len(whole)) if carried or (got and not read_on) else None), n
    got = tails.first_entries(lib, session, 5)
    assert got == ((whole[:5], len(whole)) if carried or (got and not read_on) else None)
    return carried


@pytest.mark.parametrize("case", ["linear", "fork-at-leaf", "branch", "repeat", "repeat-noise", "repeat-of-noise",
                                  "no-ids"])
def test_a_pi_window_is_carried_only_when_the_new_records_continue_its_branch(
        tmp_path: Path, windows: None, case: str) -> None:
    """Carried when the new records continue the branch the file was left on (`linear`; two
    children of the old leaf, the later the new leaf: `fork-at-leaf`); not when one branches from
    an earlier record (`branch`: its ancestors, before the window, join the branch in a whole
    reading), repeats the id of a record before the window (`repeat`, `repeat-noise`, and
    `repeat-of-noise`, of a record that gave no entry: a whole reading renames the entry or takes
    the record's parent in place of the other), nor in a v1 file, whose records have no ids
    (`no-ids`)."""
    first = [pi_header(), *pi_turns(400, "a", None)]
    first.insert(20, {"type": "label", "id": "n0001", "parentId": "a00018", "timestamp": _ts(20), "label": "x"})
    more = pi_turns(6, "b", "a00399", start=400)
    if case == "fork-at-leaf":
        more.insert(0, {**pi_turns(1, "c", "a00399", start=400)[0]})
    elif case == "branch":
        more[0]["parentId"] = "a00100"
    elif case == "repeat":
        more[3]["id"] = "a00010"
        more[4]["parentId"] = "a00010"
    elif case == "repeat-of-noise":
        more[3]["id"] = "n0001"
        more[4]["parentId"] = "n0001"
    elif case == "repeat-noise":  # (a record of no entry, on the branch, with the id of one that gave entries)
        more.append({"type": "label", "id": "a00005", "parentId": more[-1]["id"], "timestamp": _ts(500), "label": "x"})
    elif case == "no-ids":
        for r in (*first, *more):
            if r["type"] != "session":
                r.pop("id"), r.pop("parentId")
        first[0].pop("version")
    carried = carried_after_growth(tmp_path, PI_PATH, lines(first), lines(more))
    assert carried is (case in ("linear", "fork-at-leaf")), case


@pytest.mark.parametrize("case", ["linear", "far-start", "far-result", "repeat"])
def test_a_copilot_window_is_carried_only_when_the_new_events_name_their_tools_alike(
        tmp_path: Path, windows: None, case: str) -> None:
    """Carried when the new events stand on their own (`linear`); not for an execution start
    of a call requested before the window (`far-start`: noise in a whole reading), a result of
    such a call (`far-result`: its tool's name), nor an event repeating the id of one before the
    window (`repeat`: a whole reading renames its entry)."""
    first = copilot_events(300, "a")
    more = copilot_events(3, "b", start=300)
    if case == "far-start":
        more.append({"type": "tool.execution_start", "data": {"toolCallId": "acall5", "toolName": "bash"},
                     "id": "late-start", "timestamp": _ts(900), "parentId": None})
    elif case == "far-result":
        more.append({"type": "tool.execution_complete", "data": {"toolCallId": "acall5", "success": True,
                                                                 "result": {"content": "late"}},
                     "id": "late-result", "timestamp": _ts(900), "parentId": None})
    elif case == "repeat":  # (a prompt with the id of a reply: both entries)
        more[0]["id"] = first[10]["id"]
    carried = carried_after_growth(tmp_path, COPILOT_PATH, lines(first), lines(more))
    assert carried is (case == "linear"), case


@pytest.mark.parametrize("fmt", ["pi", "copilot", "session-logs"])
def test_a_reading_on_names_a_repeated_id_as_a_whole_reading_does(tmp_path: Path, fmt: str) -> None:
    """The reading on takes up the hashes of the ids met before: an appended entry repeating one
    is renamed as in a whole reading (it kept its id), and the clash is carried."""
    from sessionscope.core.read.adapters.copilot import CopilotAdapter
    from sessionscope.core.read.adapters.pi import PiAdapter
    from sessionscope.core.read.jsonl import RecordFile

    if fmt == "pi":
        adapter, where = PiAdapter(), PI_PATH
        first = [pi_header(), *pi_turns(20, "a", None)]
        more = pi_turns(4, "b", "a00019", start=20)
        more[2]["id"] = "a00003"
    elif fmt == "copilot":
        adapter, where = CopilotAdapter(), COPILOT_PATH
        first = copilot_events(4, "a")
        more = copilot_events(2, "b", start=4)
        more[1]["id"] = first[1]["id"]  # (a request with the id of the prompt: both entries)
    else:
        from sessionscope.core.read.adapters.sessionlogs import SessionLogsAdapter

        adapter, where = SessionLogsAdapter(), "logs/5e1f0c7a.jsonl"
        first = [{"session_id": "s1", "agent_id": "bench"}, *log_entries(10, "e")]
        more = log_entries(3, "n", start=10)
        more[1]["id"] = "e4"
    path = tmp_path / where
    path.parent.mkdir(parents=True)
    path.write_bytes(lines(first))
    [part] = adapter.load(str(path))
    blob, cut, n_lines = part.carry(), path.stat().st_size, len(first)
    path.write_bytes(lines(first + more))
    [whole] = adapter.load(str(path))
    parser = adapter.parser_on(str(path), blob)
    assert parser is not None
    with RecordFile(str(path)) as rf:
        for parsed in rf.iter_parsed(cut, n_lines + 1):
            parser.feed(parsed)
    [on] = parser.finish()
    new_ids = [e.id for e in on.entries]
    assert new_ids == [e.id for e in whole.entries if e.locator.offset >= cut]
    assert any(i.startswith("L") for i in new_ids)  # (the repeated one renamed)
    assert parser.clash_line > n_lines


@pytest.mark.parametrize("fmt", ["copilot-cli", "gemini"])
def test_real_logs_carried_across_growth_are_the_whole_reads(tmp_path: Path, windows: None, fmt: str) -> None:
    """A real Copilot CLI event log and a real Gemini CLI chat written a few lines at a time:
    after each growth every answer is a whole reading's, and windows are carried."""
    sources = corpus_files(fmt)
    if not sources:
        pytest.skip(NO_CORPUS)
    [source] = sources
    all_lines = source.read_bytes().splitlines(keepends=True)
    root = tmp_path / "root"
    path = root / (COPILOT_PATH if fmt == "copilot-cli" else GEMINI_PATH)
    path.parent.mkdir(parents=True)
    n = len(all_lines)
    for first in range(n // 2, n):  # (the first cut whose whole reading finds a window: one to carry)
        catalog = Catalog(tmp_path / f"c{first}.sqlite")
        path.write_bytes(b"".join(all_lines[:first]))
        mark = scan(root, catalog).catalog.tail(str(path))
        if mark is not None and mark.verified > 0:
            break
    carried = answers = 0
    for cut in sorted({*range(first, n, 2), n}):
        path.write_bytes(b"".join(all_lines[:cut]))
        lib = scan(root, catalog)
        [session] = lib.all_sessions()
        whole = conversation(lib.load(session).entries)
        row = tails.single_row(lib, session)
        done = row is not None and tails.regrow(lib, session, row)
        for k in (1, 5):
            got = tails.last_entries(lib, session, k)
            if got is not None:
                answers += 1
                carried += done
                assert got == (whole[-k:], len(whole)), (cut, k)
    assert answers >= 10 and carried >= answers // 4, (carried, answers)


def test_id_hashes_carried_over_many_readings_find_every_one_met() -> None:
    """`IdHashes`: each reading's hashes carried on (packed, unpacked) with the ones before: every
    hash met is found, none other; the unsorted ones are sorted in once they are many."""
    from sessionscope.core.read.adapters.collect import IdHashes

    rng = random.Random(3)
    met: list[int] = []
    state = None
    merged = 0
    for _ in range(40):
        new = [rng.getrandbits(64) for _ in range(rng.choice([1, 50, 3000]))]
        met += new
        carried = IdHashes.carried(state, new)
        state = IdHashes.unpack(carried.packed(), carried.n_sorted)
        merged += state.n_sorted == len(met)
        assert all(h in state for h in met)
        assert not any(rng.getrandbits(64) in state for _ in range(200))
    assert merged >= 2 and state.n_sorted >= len(met) // 2
    with pytest.raises(ValueError):
        IdHashes.unpack(b"\0" * 12, 0)



def gemini_messages(n: int, prefix: str, start: int = 0) -> list[dict]:
    """`n` turns of a Gemini CLI chat: a prompt, a reply with a tool call and its result, each
    message followed by a `$set` of the last update."""
    out = []
    for i in range(start, start + n):
        for m in ({"id": f"{prefix}u{i}", "timestamp": _ts(2 * i), "type": "user", "content": [{"text": f"ask {i}"}]},
                  {"id": f"{prefix}g{i}", "timestamp": _ts(2 * i + 1), "type": "gemini", "content": f"answer {i}",
                   "model": "gemini-2.5-pro", "toolCalls": [{"id": f"c{i}", "name": "shell", "args": {"i": i},
                                                             "status": "success", "result": [{"text": "ok"}]}]}):
            out += [m, {"$set": {"lastUpdated": m["timestamp"]}}]
    return out


@pytest.mark.parametrize("case", ["linear", "open-again", "rewind-new", "older-again", "rewind-old"])
def test_a_gemini_window_is_carried_when_the_scan_read_the_new_lines_on(tmp_path: Path, windows: None,
                                                                       case: str) -> None:
    """Carried when the appended lines add messages (`linear`), write the last message again
    (`open-again`: as Gemini CLI does while its tool calls arrive) or rewind to one of their
    own (`rewind-new`); a message read before written again (`older-again`) or a rewind into the
    lines read (`rewind-old`) makes the scan read the file whole, which stores its own windows."""
    meta = {"sessionId": "5e1f0c7a-0000-4000-8000-00000000000c", "projectHash": "ab" * 32,
            "startTime": _ts(0), "lastUpdated": _ts(0), "kind": "main"}
    first = [meta, *gemini_messages(150, "a")]
    more = gemini_messages(3, "b", start=150)
    if case == "open-again":
        again = dict(first[-2], content="answer 149, written again")
        more = [again, *more]
    elif case == "rewind-new":
        more += [{"$rewindTo": "bu151"}, *gemini_messages(1, "c", start=160)]
    elif case == "older-again":
        more.append(dict(first[-6], content="an older answer, written again"))
    elif case == "rewind-old":
        more.append({"$rewindTo": "au140"})
    read_on = case not in ("older-again", "rewind-old")
    carried = carried_after_growth(tmp_path, GEMINI_PATH, lines(first), lines(more), read_on)
    assert carried is read_on, case


def log_entries(n: int, prefix: str | None, start: int = 0) -> list[dict]:
    """`n` session-logs entries (ids `prefix`N; none when `prefix` is None)."""
    return [{"role": ("user", "assistant")[i % 2], "content": f"line {i}", "timestamp": _ts(i),
             **({"id": f"{prefix}{i}"} if prefix else {})} for i in range(start, start + n)]


@pytest.mark.parametrize("case", ["linear", "no-ids", "repeat", "repeat-in-new"])
def test_a_session_logs_window_is_carried_unless_a_new_id_repeats_an_older_one(
        tmp_path: Path, windows: None, case: str) -> None:
    """Carried when the appended entries' ids are new (`linear`) or absent (`no-ids`: named by
    their lines); not when one repeats the id of an entry before the window (`repeat`: a whole
    reading names it by its line) nor one of the appended lines (`repeat-in-new`: the same, and
    the reading on is told by the ids' hashes carried)."""
    header = {"session_id": "5e1f0c7a-0000-4000-8000-00000000000d", "agent_id": "bench", "project": "/p",
              "started_at": _ts(0)}
    first = [header, *log_entries(400, "e")]
    more = log_entries(5, None if case == "no-ids" else "n", start=400)
    if case == "repeat":
        more[2]["id"] = "e7"
    elif case == "repeat-in-new":
        more[3]["id"] = "n400"
    carried = carried_after_growth(tmp_path, "logs/5e1f0c7a.jsonl", lines(first), lines(more))
    assert carried is (case in ("linear", "no-ids")), case


@pytest.mark.parametrize("damage", ["truncated", "sorted-count", "not-json"])
@pytest.mark.parametrize("fmt", ["pi", "session-logs"])
def test_a_damaged_carried_state_is_read_whole_not_trusted(tmp_path: Path, windows: None, fmt: str,
                                                           damage: str) -> None:
    """A carried state the catalog holds damaged (its hashes cut short, a sorted count past them,
    its JSON broken): the grown file is read whole, the session as a whole reading gives it, no
    window carried on it, nothing raised."""
    import sqlite3

    if fmt == "pi":
        where, first, more = PI_PATH, [pi_header(), *pi_turns(300, "a", None)], pi_turns(4, "b", "a00299", start=300)
    else:
        header = {"session_id": "5e1f0c7a-0000-4000-8000-00000000000d", "agent_id": "bench", "started_at": _ts(0)}
        where, first, more = "logs/5e1f0c7a.jsonl", [header, *log_entries(300, "e")], log_entries(4, "n", start=300)
    root = tmp_path / "root"
    path = root / where
    path.parent.mkdir(parents=True)
    path.write_bytes(lines(first))
    scan(root, Catalog(tmp_path / "c.sqlite"))
    con = sqlite3.connect(tmp_path / "c.sqlite")
    [(state,)] = con.execute("SELECT state FROM carries WHERE path=?", (str(path),)).fetchall()
    cut = state.index(b"\n")
    if damage == "truncated":
        state = state[:-3]
    elif damage == "sorted-count":
        head = orjson.loads(state[:cut])
        state = orjson.dumps({**head, "sorted": len(state)}) + state[cut:]
    else:
        state = b"{" + state[1:cut - 1] + state[cut:]
    con.execute("UPDATE carries SET state=? WHERE path=?", (state, str(path)))
    con.commit()
    con.close()
    with path.open("ab") as fh:
        fh.write(lines(more))
    lib = scan(root, Catalog(tmp_path / "c.sqlite"))
    [session] = lib.all_sessions()
    fresh = Library([Root(str(root), "--root", explicit=True)], catalog=Catalog(tmp_path / "fresh.sqlite"))
    fresh.scan()
    assert session == fresh.all_sessions()[0]
    # (read whole: its windows are its own, under the file as it is; none carried from the damage)
    assert lib.catalog.tail(str(path)).key == tails.mark_key(lib.row(str(path)).fingerprint)
    whole = conversation(lib.load(session).entries)
    assert tails.last_entries(lib, session, 8) in (None, (whole[-8:], len(whole)))
