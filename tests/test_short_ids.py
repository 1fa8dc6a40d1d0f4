"""Ids in the text output: the shortest prefix (at least 8 characters) no other session's id
starts with, so that what is printed can be pasted back (`read`, `read ID#ENTRY` from a search
hit, `context --exclude-session`), also when ids share their first 8 characters."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from helpers import isolate

from sessionscope.cli.main import main
from sessionscope.core.format import short_ids

SAME8 = [f"aaaaaaaa-000{n}-4000-8000-000000000000" for n in range(1, 6)]
PAIR = ["bbbbbbbb-1111-4000-8000-000000000000", "bbbbbbbb-1122-4000-8000-000000000000"]
ALONE = "c0ffee00-1234-4000-8000-000000000000"
CHILDREN = [f"{SAME8[0]}/agent-1", f"{SAME8[0]}/agent-10"]


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    isolate(tmp_path, monkeypatch)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """Session-logs files: five ids sharing 8 characters, two sharing 11, one alone, and two
    subagents of the first whose own parts are prefixes of each other."""
    root, project = tmp_path / "root", tmp_path / "proj"
    root.mkdir()
    project.mkdir()
    for n, sid in enumerate([*SAME8, *PAIR, ALONE, *CHILDREN]):
        header = {"session_id": sid, "agent_id": "agent", "started_at": f"2026-11-{n + 1:02d}T09:00:00Z",
                  "project": str(project)}
        if "/" in sid:
            header |= {"kind": "subagent", "parent_session_id": SAME8[0]}
        lines = [header,
                 {"role": "user", "content": f"needle number {n}", "id": "e1", "timestamp": f"2026-11-{n + 1:02d}T09:01:00Z"},
                 {"role": "assistant", "content": f"We decided on needle plan {n}.", "id": "e2",
                  "timestamp": f"2026-11-{n + 1:02d}T09:02:00Z"}]
        (root / f"s{n}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    return root


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    code = main(list(argv))
    out, err = capsys.readouterr()
    assert code == 0, err
    return out


def test_short_ids_are_the_shortest_unique_prefixes_of_at_least_8() -> None:
    ids = short_ids([*SAME8, *PAIR, ALONE, *CHILDREN, "abc", "abcdefghij", "abcdefghik"])
    assert [ids[s] for s in SAME8] == [s[:13] for s in SAME8]  # "aaaaaaaa-0001" and so on
    assert [ids[s] for s in PAIR] == ["bbbbbbbb-111", "bbbbbbbb-112"]
    assert ids[ALONE] == "c0ffee00"
    assert ids[CHILDREN[0]] == SAME8[0][:13] + "/agent-1"
    assert ids["abc"] == "abc" and ids["abcdefghij"] == "abcdefghij" and ids["abcdefghik"] == "abcdefghik"
    assert short_ids(["abcdefgh", "abcdefghXYZ"]) == {"abcdefgh": "abcdefgh", "abcdefghXYZ": "abcdefghX"}


def test_every_printed_id_reads_back_its_own_session(capsys: pytest.CaptureFixture[str], root: Path) -> None:
    listed = json.loads(run(capsys, "sessions", "--all", "--root", str(root), "--json"))["sessions"]
    table = run(capsys, "sessions", "--all", "--root", str(root)).splitlines()[1:]
    assert len(table) == len(listed)
    for row, session in zip(table, listed):
        if session["depth"]:
            continue  # (a child shows its own part, nested under its parent)
        printed = row.split()[0]
        assert len(printed) >= 8 and session["session_id"].startswith(printed)
        read = json.loads(run(capsys, "read", printed, "--root", str(root), "--json"))
        assert read["header"]["session_id"] == session["session_id"], printed


def test_search_refs_paste_into_read(capsys: pytest.CaptureFixture[str], root: Path) -> None:
    hits = json.loads(run(capsys, "search", "needle", "--limit", "50", "--root", str(root), "--json"))["hits"]
    text = run(capsys, "search", "needle", "--limit", "50", "--root", str(root))
    refs = re.findall(r"^\S+ \S+  (\S+#\S+)  ", text, re.M)
    assert len(refs) == len(hits) == 20
    for ref, hit in zip(refs, hits):
        read = json.loads(run(capsys, "read", ref, "--limit", "1", "--root", str(root), "--json"))
        assert read["header"]["session_id"] == hit["session_id"]
        assert read["entries"][0]["entry_id"] == hit["entry_id"]


def test_a_printed_id_excludes_exactly_its_session(capsys: pytest.CaptureFixture[str], root: Path) -> None:
    printed = short_ids([*SAME8, *PAIR, ALONE, *CHILDREN])[SAME8[2]]
    data = json.loads(run(capsys, "context", "needle plan", "--project", str(root.parent / "proj"),
                          "--exclude-session", printed, "--root", str(root), "--json"))
    assert [x["session_id"] for x in data["scope"]["excluded_sessions"]] == [SAME8[2]]


@pytest.mark.parametrize("seed", range(3))
def test_short_ids_match_the_shortest_prefix_over_every_pair(seed: int) -> None:
    # (the neighbours in sorted order stand for every other id; the first 8 characters alone are
    # compared where they differ: the rule holds whatever the ids)
    import os
    import random

    rng = random.Random(seed)
    for _ in range(400):
        alpha = rng.choice(["ab", "abc", "0123456789abcdef"])
        ids = ["".join(rng.choice(alpha) for _ in range(rng.randint(0, 14)))
               + (f"/agent-{rng.randint(0, 3)}" if rng.random() < 0.2 else "") for _ in range(rng.randint(0, 25))]
        heads = {i.partition("/")[0] for i in ids}
        for floor in (0, 3, 8):
            got = short_ids(ids, floor)
            for i in ids:
                head, sep, tail = i.partition("/")
                shared = max((len(os.path.commonprefix([head, o])) for o in heads if o != head), default=0)
                assert got[i] == head[: max(floor, shared + 1)] + sep + tail, (ids, floor, i)
            # the ids a table shows, asked for alone: each as the whole call gives it
            some = rng.sample(ids, rng.randint(0, len(ids)))
            assert short_ids(ids, floor, only=some) == {i: got[i] for i in some}, (ids, floor, some)
