"""The full-text index: incremental ingest, the query language, and agreement with a brute-force scan."""
from __future__ import annotations

import os
import random
import re
import subprocess
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from sessionscope.core.catalog.store import Catalog
from sessionscope.core.read.discovery import Root
from sessionscope.core.search import index_check
from sessionscope.core.search import compile as compile_module
from sessionscope.core.search import terms as terms_module
from sessionscope.core.search.index import INDEX_VERSION, SearchIndex
from sessionscope.core.catalog.library import Library
from sessionscope.core.search.scan import scan_search

T0 = datetime(2026, 11, 1, 9, 0, tzinfo=timezone.utc)


def header(sid: str, agent: str = "test-agent", project: str = "/home/dev/alpha") -> dict:
    return {"session_id": sid, "agent_id": agent, "source_plugin": "session-logs",
            "started_at": T0.isoformat(), "project": project, "git_branch": "main"}


def entry(text: str, i: int, role: str = "user", **kw: object) -> dict:
    return {"role": role, "content": text, "timestamp": (T0 + timedelta(minutes=i)).isoformat(), **kw}


def write_session(path: Path, sid: str, texts: list[str], **hdr: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [header(sid, **hdr)] + [entry(t, i, "user" if i % 2 == 0 else "assistant") for i, t in enumerate(texts)]
    path.write_bytes(b"".join(orjson.dumps(x) + b"\n" for x in lines))
    return path


class World:
    """A root, a library over it, and an index, all in tmp_path."""

    def __init__(self, tmp: Path) -> None:
        self.root = tmp / "root"
        self.root.mkdir()
        self.catalog = Catalog(tmp / "catalog.sqlite")
        self.lib = Library([Root(str(self.root), "--root", explicit=True)], catalog=self.catalog)
        self.index_dir = tmp / "index"
        self.index = SearchIndex(self.index_dir)

    def update(self):  # noqa: ANN201
        self.lib.scan()
        return self.index.update(self.lib)

    def keys(self, query: str, limit: int = 500) -> list[tuple[str, str]]:
        return [(h.session_id, h.entry_id) for h in self.index.search(query, limit=limit).hits]

    def count(self, query: str) -> int:
        return len(self.keys(query))


@pytest.fixture
def world(tmp_path: Path) -> World:
    return World(tmp_path)


def test_build_and_find(world: World) -> None:
    write_session(world.root / "a.jsonl", "s-a", ["the flaky retry test", "fixed the retry loop", "unrelated"])
    report = world.update()
    assert report.files_indexed == 1 and report.docs_added == 3
    assert world.count("retry") == 2
    assert world.count("flaky retry") == 1
    assert world.count('"retry loop"') == 1
    assert world.count("retr*") == 2
    assert world.count("retry -flaky") == 1


def test_grown_file_reads_only_the_new_lines_and_half_lines_later(world: World) -> None:
    p = write_session(world.root / "a.jsonl", "s-a", ["alpha one", "alpha two"])
    world.update()
    with open(p, "ab") as fh:
        fh.write(orjson.dumps(entry("alpha three", 5)) + b"\n")
        fh.write(orjson.dumps(entry("alpha four", 6))[:15])  # a half-written line
    report = world.update()
    assert report.files_appended == 1 and report.files_indexed == 0
    assert report.docs_added == 1  # only the new complete line
    assert world.count("alpha") == 3
    with open(p, "ab") as fh:
        fh.write(orjson.dumps(entry("alpha four", 6))[15:] + b"\n")
    report = world.update()
    assert report.docs_added == 1
    assert world.count("alpha") == 4
    assert world.count("four") == 1  # no duplicate of the completed line
    hit = world.index.search("four").hits[0]
    assert hit.locator.line == 5  # header + 4 entries: line numbers continue across appends


def test_unchanged_file_is_not_read_again(world: World) -> None:
    write_session(world.root / "a.jsonl", "s-a", ["alpha"])
    world.update()
    report = world.update()
    assert report.files_indexed == report.files_appended == report.docs_added == 0


def test_rewritten_and_truncated_files_are_reindexed(world: World) -> None:
    p = write_session(world.root / "a.jsonl", "s-a", ["alpha one", "alpha two", "alpha three"])
    world.update()
    write_session(p, "s-a", ["beta one"])  # shorter, different head
    report = world.update()
    assert report.files_indexed == 1
    assert world.count("alpha") == 0 and world.count("beta") == 1


def test_deleted_file_documents_are_removed(world: World) -> None:
    p = write_session(world.root / "a.jsonl", "s-a", ["alpha"])
    write_session(world.root / "b.jsonl", "s-b", ["alpha"])
    world.update()
    assert world.count("alpha") == 2
    os.unlink(p)
    report = world.update()
    assert report.files_dropped == 1
    assert world.keys("alpha") == [("s-b", "L2")]


def test_interrupted_ingest_leaves_no_duplicates(world: World) -> None:
    write_session(world.root / "a.jsonl", "s-a", ["alpha one", "alpha two"])
    world.update()
    # A crash after the documents were committed but before the catalog recorded it: the next
    # update reads the file again from the start.
    world.catalog.drop_index_states()
    world.index.update(world.lib)
    assert world.count("alpha") == 2


def test_filters(world: World) -> None:
    write_session(world.root / "a.jsonl", "s-alpha", ["deploy staging", "deploy prod"], project="/home/dev/payments-api")
    write_session(world.root / "b.jsonl", "s-beta", ["deploy web"], agent="other-agent", project="/home/dev/web")
    world.update()
    assert world.count("deploy agent:other") == 1
    assert world.count("deploy project:payments") == 2
    assert world.count("deploy role:assistant") == 1
    assert world.count("session:s-al") == 2
    assert world.count("deploy branch:main") == 3
    assert world.count("kind:text") == 3
    assert world.count("deploy until:2026-10-30") == 0
    assert world.count("deploy since:2026-11-01") == 3


def test_ranking_and_recent_sort(world: World) -> None:
    write_session(world.root / "a.jsonl", "s-a", ["cache cache cache invalidation", "cache", "other"])
    world.update()
    ranked = world.index.search("cache").hits
    assert ranked[0].entry_id == "L2"  # the entry that says it three times ranks first
    recent = world.index.search("cache", sort="recent").hits
    assert [h.entry_id for h in recent] == ["L3", "L2"]
    assert ranked[0].snippet and "«cache»" in ranked[0].snippet


def test_substring_fragments(world: World) -> None:
    write_session(world.root / "a.jsonl", "s-a", ["edit core/jsonl.py now", "the SessionScope app", "snake_case_name here"])
    world.update()
    assert world.keys("ssionSco") == [("s-a", "L3")]
    assert world.keys("core/jsonl.py") == [("s-a", "L2")]
    assert world.keys("e/json") == [("s-a", "L2")]
    assert world.keys("case_na") == [("s-a", "L4")]


def test_corrupt_index_is_rebuilt_with_a_message(world: World) -> None:
    write_session(world.root / "a.jsonl", "s-a", ["alpha"])
    world.update()
    world.index.close()
    for f in (world.index_dir / f"tantivy-v{INDEX_VERSION}").iterdir():
        if f.name == "meta.json":
            f.write_text("{not json")
    index = SearchIndex(world.index_dir)
    assert any("rebuilding" in m for m in index.messages)
    world.index = index
    world.update()
    assert world.count("alpha") == 1


# -- the index against a brute-force scan ------------------------------------------------------
WORDS = ["alpha", "beta", "gamma", "delta", "Sessionscope", "core/jsonl.py", "snake_case", "x.y", "über", "naïve"]


def _brute_force_matches(tmp: Path, seed: int, pick: int, length: int) -> tuple[list, list, str]:
    w = World(tmp)
    rng = random.Random(seed)
    texts_all: list[str] = []
    for f in range(3):
        texts = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 6))) for _ in range(rng.randint(1, 8))]
        texts_all += texts
        write_session(w.root / f"s{f}.jsonl", f"s{f}", texts)
    w.update()
    # the fragment: a slice of some entry's text (so it matches at least once), cut anywhere
    source = texts_all[pick % len(texts_all)]
    start = (pick * 7919) % len(source)
    fragment = source[start : start + length].strip()
    if not fragment or fragment.startswith("-"):
        fragment = source.split()[0]
    query = f'"{fragment}"' if " " in fragment else fragment
    got = sorted(w.keys(query))
    vocabulary = {t for text in texts_all for t in re.findall(r"[^\W_]+", text.lower())}
    runs = re.findall(r"[^\W_]+", fragment.lower())
    if re.fullmatch(r"[^\W_]+( [^\W_]+)*", fragment) and all(r in vocabulary for r in runs):
        # whole words that entries hold: word/phrase semantics (the runs as consecutive tokens)
        def holds(text: str) -> bool:
            tokens = re.findall(r"[^\W_]+", text.lower())
            return any(tokens[i : i + len(runs)] == runs for i in range(len(tokens)))

        expected = sorted(
            (f"s{f}", e.id) for f in range(3) for e in w.lib.load(w.lib.get(f"s{f}")).entries if holds(e.text)
        )
    else:
        expected = sorted((h.session_id, h.entry_id) for h in scan_search(w.lib, fragment, limit=500))
        assert expected, fragment  # a slice of the text: the scan finds at least its source
    return got, expected, fragment


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), pick=st.integers(0, 1000), length=st.integers(2, 14))
def test_fragments_match_a_brute_force_scan(tmp_path_factory: pytest.TempPathFactory, seed: int,
                                            pick: int, length: int) -> None:
    """Any slice of the text that is not a whole word is a substring query: the index's answer
    equals a brute-force scan's, none missed and none extra. Whole words (and phrases of whole
    words) use word semantics, checked against the entries' own tokens."""
    got, expected, fragment = _brute_force_matches(tmp_path_factory.mktemp("bf"), seed, pick, length)
    assert got == expected, fragment


def test_or_with_a_substring_stays_an_or(world: World) -> None:
    write_session(world.root / "a.jsonl", "s-a", ["edit core/jsonl.py", "deploy the api", "unrelated"])
    world.update()
    assert world.keys("core/jsonl.py OR deploy") == [("s-a", "L3"), ("s-a", "L2")]
    assert world.keys("ssionSco OR deploy") == [("s-a", "L3")]


def test_prefix_only_queries_come_newest_first(world: World) -> None:
    write_session(world.root / "a.jsonl", "s-a", [f"migration step {i}" for i in range(30)])
    world.update()
    hits = world.index.search("migrat*", limit=5).hits
    assert [h.entry_id for h in hits] == ["L31", "L30", "L29", "L28", "L27"]


# -- phrases of common words: the `pairs` field ------------------------------------------------
# Common words (each in COMMON_WORDS) in any case, words that are not, and what can stand between
# words: punctuation, underscores, digits, non-ASCII letters and marks (a text with any of those
# is split by tantivy's analyzer instead of the ASCII fast path).
COMMON = ["the", "to", "this", "that", "is", "not", "error", "file", "it", "s"]
PIECES = COMMON + ["The", "THIS", "Error", "alpha", "über", "naïve", "x1", "42"]
GAPS = [" ", " ", " ", ", ", "\n", "_", "-", "'", " — ", "/", ". ", "\u00a0", "\u0301 "]


def _phrase_world(tmp: Path, rng: random.Random) -> tuple[World, list[str]]:
    w = World(tmp)
    texts: list[str] = []
    for f in range(3):  # the first session ASCII only (the fast path of the pairs), the others mixed
        pieces, gaps = ([p for p in PIECES if p.isascii()], [g for g in GAPS if g.isascii()]) if f == 0 \
            else (PIECES, GAPS)
        mine = ["".join(rng.choice(pieces) + rng.choice(gaps) for _ in range(rng.randint(1, 12)))
                for _ in range(rng.randint(1, 8))]
        texts += mine
        write_session(w.root / f"s{f}.jsonl", f"s{f}", mine)
    w.update()
    return w, texts


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), words=st.lists(st.sampled_from(COMMON + ["alpha", "über"]), min_size=2,
                                                   max_size=4))
@example(seed=329, words=["s", "to"])  # ("s" in no entry: a fragment, which finds `THIS to`)
def test_phrases_of_common_words_match_a_brute_force_scan_and_the_plain_phrase_query(
        tmp_path_factory: pytest.TempPathFactory, seed: int, words: list[str]) -> None:
    """The pairs only narrow a phrase's candidates: the same hits, ranks and scores as the phrase
    query alone, and the entries whose words hold the phrase, none missed and none extra. (A
    phrase with a word no entry holds is a fragment, searched as a substring, as
    `test_fragments_match_a_brute_force_scan` has it: `"s to"` finds `this to`.)"""
    w, texts = _phrase_world(tmp_path_factory.mktemp("pairs"), random.Random(seed))
    query = '"' + " ".join(words) + '"'
    hits = w.index.search(query, limit=500).hits
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(compile_module, "COMMON_WORDS", frozenset())  # no pairs: the plain phrase query
        plain = w.index.search(query, limit=500).hits
    assert [(h.entry_id, h.session_id, h.rank, h.score) for h in hits] == \
        [(h.entry_id, h.session_id, h.rank, h.score) for h in plain]

    def holds(text: str) -> bool:
        tokens = [t.lower() for t in re.findall(r"[^\W_]+", text)]
        return any(tokens[i : i + len(words)] == words for i in range(len(tokens)))

    vocabulary = {t for text in texts for t in re.findall(r"[^\W_]+", text.lower())}
    if all(word in vocabulary for word in words):
        expected = sorted((f"s{f}", e.id) for f in range(3) for e in w.lib.load(w.lib.get(f"s{f}")).entries
                          if holds(e.text))
    else:  # (a fragment: the brute-force scan's substring meaning)
        expected = sorted((h.session_id, h.entry_id) for h in scan_search(w.lib, " ".join(words), limit=500))
    assert sorted((h.session_id, h.entry_id) for h in hits) == expected, query


@settings(max_examples=300, deadline=None)
@given(st.one_of(
    # ASCII text (the fast path) and any other (tantivy's analyzer), from pieces and at random
    st.lists(st.sampled_from([p for p in PIECES + GAPS + ["x_y", "A1b2"] if p.isascii()]),
             max_size=30).map("".join),
    st.lists(st.sampled_from(PIECES + GAPS + ["é", "ǅ", "İ", "\u212a", "😀", "x_y", "٣"]),
             max_size=30).map("".join),
    st.text(st.characters(max_codepoint=127), max_size=60),
    st.text(max_size=60),
))
def test_pairs_are_those_of_the_text_fields_own_terms(text: str) -> None:
    """Whatever the text, the `pairs` terms are the adjacent common words among exactly the terms
    tantivy indexes for it (ASCII takes a fast path of its own; a difference would make a phrase
    miss documents)."""
    index = SearchIndex(None)
    terms = index._words(text)  # the `text` field's analyzer
    common = terms_module.COMMON_WORDS
    expected = [f"{a}_{b}" for a, b in zip(terms, terms[1:]) if a in common and b in common]
    assert terms_module.common_pairs(text, index._words).split() == expected


def test_common_word_phrases_in_a_larger_query(world: World) -> None:
    write_session(world.root / "a.jsonl", "s-a", ["Is this THE file? this_is not it", "this is the file",
                                                    "the file is this", "is this the File", "file: this is"])
    world.update()
    # "this_is" and "file: this is" hold the phrase too: tokens are runs of letters and digits
    assert sorted(world.keys('"this is"')) == [("s-a", "L2"), ("s-a", "L3"), ("s-a", "L6")]
    assert sorted(world.keys('"is this the file"')) == [("s-a", "L2"), ("s-a", "L5")]
    assert sorted(world.keys('"this is" -"the file"')) == [("s-a", "L6")]
    assert sorted(world.keys('"the file" OR "file this"')) == [("s-a", f"L{i}") for i in (2, 3, 4, 5, 6)]
    assert sorted(world.keys('"this is" role:assistant')) == [("s-a", "L3")]
    assert world.keys('"the this"') == []


def test_an_index_of_an_older_format_is_rebuilt_with_a_message(world: World) -> None:
    old = world.index_dir / f"tantivy-v{INDEX_VERSION - 1}"
    old.mkdir(parents=True)
    (old / "meta.json").write_text("{}")
    index = SearchIndex(world.index_dir)
    assert any("index format changed" in m for m in index.messages)
    assert not old.exists()
    world.index = index
    write_session(world.root / "a.jsonl", "s-a", ["alpha"])
    report = world.update()
    assert any("index format changed" in m for m in report.messages)
    assert world.count("alpha") == 1


# -- two processes on one index, and the settings that shape its documents (issue 3) ----------------
# Two SearchIndex objects on one directory stand for two processes: tantivy's writer lock is a lock
# file per index directory, refused to a second writer in the same process as in another one.


def library(tmp: Path, root: Path) -> Library:
    """Another process's library: its own catalog connection to the same file as the world's."""
    return Library([Root(str(root), "--root", explicit=True)], catalog=Catalog(tmp / "catalog.sqlite"))


def busy_messages(messages: list[str]) -> list[str]:
    return [m for m in messages if "another sessionscope process" in m]


def test_a_second_index_searches_read_only_while_the_first_holds_the_writer(world: World, tmp_path: Path) -> None:
    write_session(world.root / "a.jsonl", "s-a", ["the flaky retry test", "unrelated"])
    world.update()  # the first index now holds the writer, as the app does
    other_lib = library(tmp_path, world.root)
    other = SearchIndex(world.index_dir)
    report = other.update(other_lib, scan=True)
    assert report.read_only and other.read_only
    assert report.scan is not None and other_lib.get("s-a") is not None  # the library is still scanned
    assert len(busy_messages(report.messages)) == 1 and "lag" in busy_messages(report.messages)[0]
    assert [h.entry_id for h in other.search("retry").hits] == ["L2"]
    assert busy_messages(other.update(other_lib).messages) == []  # said once

    # What the writer commits meanwhile is searchable from the read-only side.
    write_session(world.root / "b.jsonl", "s-b", ["another retry"])
    world.update()
    assert len(other.search("retry").hits) == 2

    # Once the writer is released, the next update takes it, and a live update (`paths`) after
    # read-only ones is a full pass: the changes it did not index are caught up.
    write_session(world.root / "c.jsonl", "s-c", ["a third retry"])
    world.index.close()
    other_lib.scan()
    report = other.update(other_lib, paths=[])
    assert not report.read_only and not other.read_only and report.files_indexed == 1
    assert len(other.search("retry").hits) == 3
    # and the first one, in its turn, is the read-only one
    assert world.update().read_only


def test_nothing_committed_yet_searches_the_files_directly(world: World, tmp_path: Path) -> None:
    world.index.update(world.lib)  # holds the writer of an empty index, commits nothing
    write_session(world.root / "a.jsonl", "s-a", ["deploy staging now", "deploy prod", "other"],
                  project="/home/dev/payments-api")
    other_lib = library(tmp_path, world.root)
    other = SearchIndex(world.index_dir)
    report = other.update(other_lib, scan=True)
    assert report.read_only
    assert any("committed nothing yet" in m for m in report.messages)
    result = other.search("deploy -prod project:payments")
    assert result.mode == "scan"
    assert [(h.session_id, h.entry_id) for h in result.hits] == [("s-a", "L2")]
    assert result.hits[0].snippet and "«deploy»" in result.hits[0].snippet
    # The writer's first commit: from then on the index answers.
    world.update()
    assert other.search("deploy").mode == "ranked"


QUERIES = [
    "retry", "retry -flaky", '"retry loop"', "retr*", "flaky OR staging", "deploy agent:other",
    "deploy project:payments", "retry role:assistant", "session:s-al", "branch:main kind:text",
    "deploy until:2026-11-02", "deploy since:2026-11-01", "e/json", "tool:bash", "kind:tool_result",
    "ssionSco", "retry -e/json",
]


@pytest.mark.parametrize("query", QUERIES)
def test_the_scan_fallback_answers_as_the_index(tmp_path: Path, query: str) -> None:
    world = World(tmp_path)
    write_session(world.root / "a.jsonl", "s-alpha", ["the flaky retry test", "fixed the retry loop", "deploy staging",
                                                     "edit core/jsonl.py now", "the SessionScope app"],
                  project="/home/dev/payments-api")
    write_session(world.root / "b.jsonl", "s-beta", ["deploy web", "retry it"], agent="other-agent",
                  project="/home/dev/web")
    lines = [header("s-tool"), entry("run it", 0),
             entry("", 1, "assistant", tool_name="Bash", tool_input={"command": "pytest -q"}),
             entry("retry passed", 2, "tool")]
    (world.root / "c.jsonl").write_bytes(b"".join(orjson.dumps(x) + b"\n" for x in lines))
    world.update()
    scanned = {(h.session_id, h.entry_id) for h in world.index.scan(world.lib, query, limit=100).hits}
    indexed = {(h.session_id, h.entry_id) for h in world.index.search(query, limit=100).hits}
    assert scanned == indexed


def tool_result_session(path: Path) -> None:
    lines = [header("s-t"), entry("run the tests", 0), entry("0123456789 early " + "x" * 40 + " latecomer", 1, "tool")]
    path.write_bytes(b"".join(orjson.dumps(x) + b"\n" for x in lines))


def test_a_changed_tool_result_cap_rebuilds_the_index_with_a_message(world: World) -> None:
    tool_result_session(world.root / "t.jsonl")
    world.update()
    assert world.count("latecomer") == 1
    world.index.close()
    world.index = SearchIndex(world.index_dir, tool_result_cap=12)
    report = world.update()
    assert [m for m in report.messages if "tool_result_cap" in m] == [
        "index settings changed (tool_result_cap 4000 -> 12): rebuilding the index"]
    assert world.count("latecomer") == 0 and world.count("early") == 0 and world.count("0123456789") == 1
    world.index.close()
    world.index = SearchIndex(world.index_dir, tool_result_cap=12)
    report = world.update()  # the same settings: nothing to do
    assert report.messages == [] and report.files_indexed == 0
    assert world.count("0123456789") == 1


def test_unreadable_settings_rebuild_instead_of_crashing(world: World) -> None:
    tool_result_session(world.root / "t.jsonl")
    world.update()
    world.index.close()
    stored = next(world.index_dir.rglob("settings.json"))
    stored.write_bytes(b"\xff{not json")
    world.index = SearchIndex(world.index_dir)
    report = world.update()
    assert any("rebuilding the index" in m for m in report.messages)
    assert world.count("latecomer") == 1


def test_the_time_filter_of_the_scan_uses_the_entries_stamps(world: World) -> None:
    write_session(world.root / "a.jsonl", "s-a", ["deploy one", "deploy two"])
    world.lib.scan()
    hits = world.index.scan(world.lib, f"deploy since:{T0.date().isoformat()}", limit=10).hits
    assert [h.entry_id for h in hits] == ["L3", "L2"]  # newest first


def test_a_date_filter_leaves_out_entries_without_a_time(world: World) -> None:
    """Undated entries (stored at time 0) matched `until:` alone: a date filter asks for dated ones.
    The file-reading fallback (`entry_match`) agrees with the index."""
    path = world.root / "a.jsonl"
    lines = [header("s-a"), entry("deploy dated", 0), {"role": "user", "content": "deploy undated"}]
    path.write_bytes(b"".join(orjson.dumps(x) + b"\n" for x in lines))
    world.update()
    assert world.count("deploy") == 2
    for query in ("deploy until:2027-01-01", "deploy since:2020-01-01", "deploy since:2020-01-01 until:2027-01-01"):
        assert world.count(query) == 1, query
        hits = world.index.scan(world.lib, query).hits
        assert [h.preview for h in hits] == ["deploy dated"], query


# -- prefixes: the `stems` field -----------------------------------------------------------------
@settings(max_examples=300, deadline=None)
@given(st.one_of(
    st.lists(st.sampled_from([p for p in PIECES + GAPS + ["x_y", "A1b2", "kemhol"] if p.isascii()]),
             max_size=30).map("".join),
    st.lists(st.sampled_from(PIECES + GAPS + ["é", "ǅ", "İ", "\u212a", "😀", "x_y", "٣", "kémo"]),
             max_size=30).map("".join),
    st.text(st.characters(max_codepoint=127), max_size=60),
    st.text(max_size=60),
))
def test_stems_are_those_of_the_text_fields_own_terms(text: str) -> None:
    """The `stems` terms are the first three characters of exactly the terms tantivy indexes for
    the text (a difference would make a prefix query miss documents or find extra ones)."""
    index = SearchIndex(None)
    expected = {t[: terms_module.STEM] for t in index._words(text) if len(t) >= terms_module.STEM}
    assert set(terms_module.pairs_and_stems(text, index._words)[1].split()) == expected


STEM_WORDS = ["kemhol", "kemmi", "kem", "ke", "Kemal", "KEMX9", "alpha", "alp", "kémo", "ünkem", "über", "x_kemz"]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), prefix=st.sampled_from(["kem", "alp", "kém", "übe", "ünk", "kemh", "ke"]))
def test_prefixes_match_a_brute_force_scan_and_the_regex_query(
        tmp_path_factory: pytest.TempPathFactory, seed: int, prefix: str) -> None:
    """A three-letter prefix is answered from the stems: the same hits, ranks and scores as the
    regex over the terms, and exactly the entries holding a word that starts with it."""
    rng = random.Random(seed)
    w = World(tmp_path_factory.mktemp("stems"))
    for f in range(3):
        texts = [" ".join(rng.choice(STEM_WORDS) + rng.choice(["", ",", "."]) for _ in range(rng.randint(1, 8)))
                 for _ in range(rng.randint(1, 6))]
        write_session(w.root / f"s{f}.jsonl", f"s{f}", texts)
    w.update()
    for query in (prefix + "*", f"{prefix}* alpha", f"{prefix}* OR über"):
        hits = w.index.search(query, limit=500).hits
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(compile_module, "STEM", 99)  # no stems: the regex over the text's terms
            plain = w.index.search(query, limit=500).hits
        assert [(h.entry_id, h.rank, h.score) for h in hits] == [(h.entry_id, h.rank, h.score) for h in plain], query
    hits = w.index.search(prefix + "*", limit=500).hits
    expected = sorted((f"s{f}", e.id) for f in range(3) for e in w.lib.load(w.lib.get(f"s{f}")).entries
                      if any(t.lower().startswith(prefix) for t in re.findall(r"[^\W_]+", e.text)))
    assert sorted((h.session_id, h.entry_id) for h in hits) == expected


# -- a damaged index (deleted, garbled or truncated files) is found, said in one line and rebuilt;
# no search raises or panics meanwhile, and the rebuilt index answers as a clean build does ----------
DAMAGE_WORDS = "retry flaky loop cache index store balance stale budget parser token merge branch commit".split()
DAMAGE_QUERIES = ["retry", "stale balance", '"flaky loop"', "cach*", "ndex", "merge -branch"]


def _texts(seed: int, n: int) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choice(DAMAGE_WORDS) for _ in range(rng.randint(3, 12))) + f" entry{seed}x{i}" for i in range(n)]


def _build(tmp: Path) -> World:
    w = World(tmp)
    for f in range(4):
        write_session(w.root / f"s{f}.jsonl", f"s{f}", _texts(f, 120))
    w.update()
    w.index.close()
    return w


def _answers(index: SearchIndex) -> dict[str, list[tuple[str, str]]]:
    return {q: sorted((h.session_id, h.entry_id) for h in index.search(q, limit=500).hits) for q in DAMAGE_QUERIES}


def _segment_dir(w: World) -> Path:
    return w.index_dir / f"tantivy-v{INDEX_VERSION}"


def _damage(d: Path, how: str) -> None:
    rng = random.Random(how)
    if how == "deleted .pos":
        for f in d.glob("*.pos"):
            f.unlink()
    elif how == "truncated meta.json":
        with open(d / "meta.json", "r+b") as fh:
            fh.truncate(len((d / "meta.json").read_bytes()) // 3)
    else:
        ext = how.split(".")[-1]
        for f in d.glob(f"*.{ext}"):
            size = f.stat().st_size
            start = max(0, size // 2 - 1000)
            with open(f, "r+b") as fh:
                fh.seek(start)
                fh.write(rng.randbytes(min(2000, size - start)))


DAMAGE = ["deleted .pos", "garbled .store", "garbled .term", "garbled .fast", "garbled .idx", "truncated meta.json"]


@pytest.mark.parametrize("how", DAMAGE)
def test_damage_is_found_said_and_repaired(tmp_path: Path, how: str) -> None:
    w = _build(tmp_path)
    clean = _answers(w.index)
    assert all(clean.values())
    assert index_check.check(_segment_dir(w), full=True).ok
    _damage(_segment_dir(w), how)
    assert not index_check.check(_segment_dir(w), full=True).ok
    index = SearchIndex(w.index_dir)  # what `search` and `index` open
    assert any("damaged" in m and "rebuilding" in m for m in index.messages), index.messages
    assert all("\n" not in m for m in index.messages)
    w.index = index
    w.lib.scan()
    report = index.update(w.lib)
    assert report.docs_added == 480  # every file indexed again
    assert _answers(index) == clean
    index.close()
    assert index_check.check(_segment_dir(w), full=True).ok


class PanicException(BaseException):
    """What pyo3 raises for a Rust panic (named so; a BaseException, not an Exception)."""


@pytest.mark.parametrize("failure", [ValueError("Data corrupted: positions"), PanicException("assertion failed")])
def test_a_search_that_fails_answers_from_the_files_then_the_index_is_rebuilt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, failure: BaseException,
) -> None:
    w = _build(tmp_path)
    clean = _answers(w.index)
    index = SearchIndex(w.index_dir)
    w.lib.scan()
    index.update(w.lib)

    def broken(*_a: object, **_k: object) -> None:
        raise failure

    monkeypatch.setattr(index, "_search", broken)
    result = index.search("retry", limit=500)
    assert result.mode == "scan" and sorted((h.session_id, h.entry_id) for h in result.hits) == clean["retry"]
    assert index.damaged and len(index.messages) == 1 and "answering from the session files" in index.messages[0]
    monkeypatch.undo()
    report = index.update(w.lib)
    assert any("rebuilding" in m for m in report.messages) and report.docs_added == 480
    assert index.damaged is None and _answers(index) == clean


def test_other_failures_are_not_taken_for_damage(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    w = _build(tmp_path)

    def interrupted(*_a: object, **_k: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(w.index, "_search", interrupted)
    with pytest.raises(KeyboardInterrupt):
        w.index.search("retry")
    assert w.index.damaged is None


def test_only_new_or_changed_files_are_read_again(tmp_path: Path) -> None:
    w = _build(tmp_path)
    d = _segment_dir(w)
    first = index_check.check(d)
    assert first.ok and first.bytes_read == 0  # `close` recorded them all
    assert index_check.check(d, full=True).bytes_read > 0


def _cli(cache: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {"SESSIONSCOPE_CACHE_DIR": str(cache), "SESSIONSCOPE_CONFIG": str(cache / "none.toml"), "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-m", "sessionscope", *argv], capture_output=True, text=True, env=env,
                          check=False)


def test_cli_index_check_reports_and_index_repairs(tmp_path: Path) -> None:
    root = tmp_path / "root"
    for f in range(3):
        write_session(root / f"s{f}.jsonl", f"s{f}", _texts(f, 80))
    cache = tmp_path / "cache"
    assert _cli(cache, "index", "--root", str(root)).returncode == 0
    done = _cli(cache, "index", "--check", "--root", str(root))
    assert done.returncode == 0 and done.stdout.startswith("index ok:"), done.stderr
    d = cache / "index" / f"tantivy-v{INDEX_VERSION}"
    _damage(d, "garbled .fast")
    done = _cli(cache, "index", "--check", "--root", str(root))
    assert done.returncode == 2 and ".fast " in done.stderr and "Traceback" not in done.stderr
    done = _cli(cache, "search", "retry", "--root", str(root), "--json")
    assert done.returncode == 0 and "search index damaged" in done.stderr and "Traceback" not in done.stderr
    assert _cli(cache, "index", "--check", "--root", str(root)).returncode == 0  # the search rebuilt it


# -- stemming: a word finds its inflections; phrases stay exact; exact matches rank first ----------
def test_words_find_their_inflections_and_exact_matches_rank_first(world: World) -> None:
    write_session(world.root / "a.jsonl", "s-a", [
        "the stale balance was fixed",        # L2: exact, oldest
        "stale balances again today",         # L3: inflection
        "balancing a stale cache",            # L4: inflection, newest of the three
        "nothing to see",                     # L5
        "unbalanced books, staleness",        # L6: other words (not of those stems)
    ])
    world.update()
    assert world.keys("stale balance") == [("s-a", "L2"), ("s-a", "L4"), ("s-a", "L3")]
    assert world.keys("balances") == [("s-a", "L3"), ("s-a", "L4"), ("s-a", "L2")]  # its own form first
    assert world.keys('"stale balance"') == [("s-a", "L2")]  # a quoted phrase stays exact
    assert sorted(world.keys("alanc")) == [("s-a", f"L{i}") for i in (2, 3, 4, 6)]  # a fragment: substring
    # an excluded word excludes its inflections too ("staleness" is an inflection of "stale")
    assert world.keys("stale -balance") == [("s-a", "L6")]
    # the scan (no index yet) finds the same entries
    assert sorted((h.session_id, h.entry_id) for h in world.index.scan(world.lib, "stale balance").hits) == \
        sorted(world.keys("stale balance"))
    hit = world.index.search("balance").hits[1]
    assert "«balances»" in hit.snippet or "«balancing»" in hit.snippet


# -- a common substring read from the newest documents (SearchIndex.keep_newest / _walk_newest) ------
NEWEST_WORDS = ["that", "That", "THAT", "thatch", "what", "hat", "at", "alpha", "that's", "th-at", "über", "x"]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), newest=st.sampled_from([2, 7, 4096]), limit=st.sampled_from([1, 3, 20, 500]))
def test_a_common_substring_read_from_the_newest_documents_gives_the_same_hits(
        tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch, seed: int, newest: int,
        limit: int) -> None:
    """With the newest documents kept in order, a substring most documents hold is looked for
    among them first: the same hits in the same order as ordering every candidate (ties of equal
    times included: entries of different sessions share their minutes), also when the kept
    documents run out before `limit` hits (then the usual path answers)."""
    from sessionscope.core.logs.contract import substring_query
    from sessionscope.core.search import index as index_module

    rng = random.Random(seed)
    w = World(tmp_path_factory.mktemp("nw"))
    for f in range(3):
        texts = [" ".join(rng.choice(NEWEST_WORDS) for _ in range(rng.randint(1, 5))) for _ in range(rng.randint(1, 9))]
        write_session(w.root / f"s{f}.jsonl", f"s{f}", texts)
    w.update()
    monkeypatch.setattr(index_module, "NEWEST", newest)
    walked: list[bool] = []
    walk = SearchIndex._walk_newest

    def spy(self: SearchIndex, *args: Any) -> Any:
        found = walk(self, *args)
        walked.append(found is not None)
        return found

    monkeypatch.setattr(SearchIndex, "_walk_newest", spy)
    for needle in ("that", "hat", "at", "alpha", "x", "über"):
        q = substring_query(needle)
        w.index._newest = None
        usual = [(h.session_id, h.entry_id) for h in w.index.search(q, limit=limit).hits]
        w.index.keep_newest()
        assert [(h.session_id, h.entry_id) for h in w.index.search(q, limit=limit).hits] == usual, needle
    if newest == 4096:
        assert any(walked)  # ("at": in every text of this world's words but "alpha", "x", "über")


# -- a search over an unchanged tree and an index brought up to it (core/catalog/warm.py) ---------
# `update(scan=True)`, as the `search` command runs it: no writer taken, no catalog row read, no
# file compared; any change to the files, to the index (another process's commit, a new index) or
# to its settings makes the full pass run again.
@pytest.fixture
def trusted(monkeypatch: pytest.MonkeyPatch) -> None:
    from sessionscope.core.read import walk

    monkeypatch.setattr(walk, "LISTING_MARGIN_NS", -10**18)  # (folders trusted however recent)


class Process:
    """What one `sessionscope search` process opens: a library and the index, over one cache."""

    def __init__(self, tmp: Path, cap: int = 4000) -> None:
        self.lib = Library([Root(str(tmp / "root"), "--root", explicit=True)], catalog=Catalog(tmp / "c.sqlite"))
        self.index = SearchIndex(tmp / "index", tool_result_cap=cap)

    def search(self, query: str) -> list[tuple[str, str]]:
        """Bring the index up, search, and let the writer go (as the process's end does)."""
        self.report = self.index.update(self.lib, scan=True)
        try:
            return [(h.session_id, h.entry_id) for h in self.index.search(query, limit=50).hits]
        finally:
            self.index.close()


@pytest.fixture
def spied(monkeypatch: pytest.MonkeyPatch, trusted: None) -> dict[str, int]:
    from sessionscope.core.catalog import store

    counts = {"writer": 0, "rows": 0}
    real_writer, real_light, real_all = SearchIndex._writer_, store.Catalog.light, store.Catalog.all

    def writer(self):  # type: ignore[no-untyped-def]
        counts["writer"] += 1
        return real_writer(self)

    def light(self):  # type: ignore[no-untyped-def]
        counts["rows"] += 1
        return real_light(self)

    def every(self):  # type: ignore[no-untyped-def]
        counts["rows"] += 1
        return real_all(self)

    monkeypatch.setattr(SearchIndex, "_writer_", writer)
    monkeypatch.setattr(store.Catalog, "light", light)
    monkeypatch.setattr(store.Catalog, "all", every)
    return counts


def warm(counts: dict[str, int]) -> bool:
    took = counts["writer"] == 0 and counts["rows"] == 0
    counts["writer"] = counts["rows"] = 0
    return took


def test_an_unchanged_tree_is_searched_without_writer_or_rows(tmp_path: Path, spied: dict[str, int]) -> None:
    write_session(tmp_path / "root" / "p" / "a.jsonl", "s-a", ["the flaky retry test", "unrelated"])
    write_session(tmp_path / "root" / "q" / "b.jsonl", "s-b", ["retry again"])
    first = Process(tmp_path).search("retry")
    assert len(first) == 2 and not warm(spied)
    p = Process(tmp_path)
    assert p.search("retry") == first and warm(spied)
    assert sorted(p.search("etr")) == sorted(first)  # (a substring: the vocabulary, no writer either)
    assert p.report.scan is not None and p.report.scan.files == 2 and warm(spied)
    # a file grows: the next search reads it, then the one after is warm again
    with open(tmp_path / "root" / "p" / "a.jsonl", "ab") as fh:
        fh.write(orjson.dumps(entry("one more retry", 9)) + b"\n")
    assert len(Process(tmp_path).search("retry")) == 3 and not warm(spied)
    assert len(Process(tmp_path).search("retry")) == 3 and warm(spied)
    # a new file in a new folder
    write_session(tmp_path / "root" / "q" / "deeper" / "c.jsonl", "s-c", ["retry three"])
    assert len(Process(tmp_path).search("retry")) == 4 and not warm(spied)
    assert len(Process(tmp_path).search("retry")) == 4 and warm(spied)


def test_an_index_changed_elsewhere_is_brought_up_again(tmp_path: Path, spied: dict[str, int]) -> None:
    write_session(tmp_path / "root" / "p" / "a.jsonl", "s-a", ["alpha retry"])
    Process(tmp_path).search("retry")
    warm(spied)
    assert len(Process(tmp_path).search("retry")) == 1 and warm(spied)
    import shutil

    shutil.rmtree(tmp_path / "index")  # a new, empty index: everything indexed again
    assert len(Process(tmp_path).search("retry")) == 1 and not warm(spied)
    assert len(Process(tmp_path).search("retry")) == 1 and warm(spied)
    # other settings: rebuilt under them
    p = Process(tmp_path, cap=100)
    assert len(p.search("retry")) == 1 and not warm(spied)
    assert any("settings changed" in m for m in p.report.messages)
    assert len(Process(tmp_path, cap=100).search("retry")) == 1 and warm(spied)
    # another process committed (here: one that indexed a file the next process's scan then sees)
    other = Process(tmp_path, cap=100)
    write_session(tmp_path / "root" / "p" / "b.jsonl", "s-b", ["beta retry"])
    assert len(other.search("retry")) == 2
    warm(spied)
    assert len(Process(tmp_path, cap=100).search("retry")) == 2
