"""The vocabulary of the index's terms (core/search/vocabulary.py): stored at each commit, read by
the next process instead of listing the term dictionary, right after appends and rebuilds."""
from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sessionscope.core.search import compile as compile_module
from sessionscope.core.search import vocabulary
from sessionscope.core.search.index import SearchIndex

from .test_index import World, entry, world, write_session  # noqa: F401 (the fixture)


def _listings(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the listings of the term dictionary (the slow way) from now on."""
    calls: list[int] = []
    real = vocabulary.listed

    def spy(searcher):  # noqa: ANN001, ANN202
        calls.append(1)
        return real(searcher)

    monkeypatch.setattr(compile_module, "listed", spy)
    monkeypatch.setattr(vocabulary, "listed", spy)
    return calls


def _all_terms(index: SearchIndex) -> set[str]:
    return {t for t, _ in index.index.searcher().terms_with_prefix("text", "")}


def test_a_new_process_reads_the_stored_vocabulary(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    write_session(world.root / "a.jsonl", "s-a", ["the kemholvert parser", "zorbulator árvíztűrő x_y"])
    world.update()
    world.index.close()
    calls = _listings(monkeypatch)
    other = SearchIndex(world.index_dir)  # as a second `sessionscope search` would
    assert len(other.search("mholve").hits) == 1
    assert len(other.search("rvíztű").hits) == 1
    assert len(other.search("ulator árví").hits) == 1  # a tail and a head: both sorted lists
    assert calls == []
    stored = vocabulary.load(other.directory, vocabulary.opstamp(other.directory))
    assert stored is not None and set(stored.sorted) == _all_terms(other)


def test_the_vocabulary_is_right_after_a_commit_adds_terms(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    p = write_session(world.root / "a.jsonl", "s-a", ["alpha one"])
    world.update()
    assert world.count("lph") == 1  # (the vocabulary of this generation is now in memory)
    calls = _listings(monkeypatch)
    with open(p, "ab") as fh:
        fh.write(orjson.dumps(entry("quuxfrobnicate", 3)) + b"\n")
    world.update()
    assert world.count("xfrob") == 1  # this process: kept up to date at the commit
    assert SearchIndex(world.index_dir).search("xfrob").hits  # another: read from the file
    assert calls == []
    assert set(world.index._vocabulary(world.index._generation, None).sorted) == _all_terms(world.index)


def test_the_vocabulary_restarts_with_a_rebuild(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    world = World(tmp_path)
    write_session(world.root / "a.jsonl", "s-a", ["oldtermzz here"])
    world.update()
    world.index.close()
    write_session(world.root / "a.jsonl", "s-a", ["newtermqq here"])  # rewritten
    world.lib.scan()
    rebuilt = SearchIndex(world.index_dir, tool_result_cap=99)  # other settings: a rebuild
    rebuilt.update(world.lib)
    calls = _listings(monkeypatch)
    again = SearchIndex(world.index_dir, tool_result_cap=99)
    assert len(again.search("ermqq").hits) == 1 and again.search("ermzz").hits == []
    assert calls == []
    stored = vocabulary.load(again.directory, vocabulary.opstamp(again.directory))
    assert stored is not None and set(stored.sorted) == _all_terms(again) == {"newtermqq", "here"}


def test_a_stale_or_damaged_vocabulary_file_is_not_used(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    write_session(world.root / "a.jsonl", "s-a", ["kemholvert parser"])
    world.update()
    world.index.close()
    d = world.index.directory
    for bad in (b"", b"sessionscope-vocabulary 1 999999\nkemholvert\0trevlohmek", b"\xff\xfe garbage"):
        (d / vocabulary.VOCABULARY_FILE).write_bytes(bad)
        calls = _listings(monkeypatch)
        assert len(SearchIndex(d.parent).search("mholve").hits) == 1
        assert calls == [1]  # listed from the index instead


_TERM = st.text(alphabet="abcdeé1_ž", min_size=1, max_size=9)


@settings(max_examples=200, deadline=None)
@given(st.lists(_TERM, max_size=40), st.lists(_TERM, max_size=10), st.lists(_TERM, min_size=1, max_size=8))
def test_the_trigram_index_finds_what_the_scan_finds(terms: list[str], added: list[str], runs: list[str]) -> None:
    """`index_grams` (a long-lived process'): `containing` answers from the trigram index as the
    scan of every term does (the same terms, in the same order), for runs shorter than a
    trigram too; and a vocabulary made by `with_terms` from an indexed one is indexed as if made
    whole, while the one it came from stays as it was."""
    plain = vocabulary.Vocabulary(terms)
    filed = vocabulary.Vocabulary(terms)
    filed.index_grams()
    for run in runs:
        assert filed.containing(run) == plain.containing(run)
    grown, grown_plain = filed.with_terms(added), plain.with_terms(added)
    assert grown.has_grams or grown is filed
    for run in runs + added:
        assert grown.containing(run) == grown_plain.containing(run)
        assert filed.containing(run) == plain.containing(run)


def test_a_process_keeps_the_vocabulary_it_read_for_the_next_commit(world: World, monkeypatch: pytest.MonkeyPatch) -> None:
    """The vocabulary read for a commit is the one the next commit's is made from (not read again
    from the file), so what `index_vocabulary` filed carries on to the next generation."""
    p = write_session(world.root / "a.jsonl", "s-a", ["alpha kemholvert"])
    world.update()
    world.index.close()
    index = SearchIndex(world.index_dir)
    assert len(index.search("mholve").hits) == 1
    index.index_vocabulary()
    loads: list[int] = []
    real = vocabulary.load
    monkeypatch.setattr(compile_module, "load", lambda *a: loads.append(1) or real(*a))
    with open(p, "ab") as fh:
        fh.write(orjson.dumps(entry("quuxfrobnicate", 3)) + b"\n")
    world.lib.scan()
    index.update(world.lib)
    assert len(index.search("xfrob").hits) == 1 and len(index.search("mholve").hits) == 1
    kept = index._vocab
    assert kept is not None and kept[1].has_grams and loads == []


def test_a_vocabulary_over_the_bound_keeps_the_scan(monkeypatch: pytest.MonkeyPatch) -> None:
    """`index_grams` files nothing past GRAM_TERMS_MAX terms (memory and time follow the terms):
    `containing` scans, with the same answer."""
    monkeypatch.setattr(vocabulary, "GRAM_TERMS_MAX", 3)
    small, large = vocabulary.Vocabulary(["alpha", "beta", "gamma"]), vocabulary.Vocabulary(["alpha", "beta", "gamma", "delta"])
    small.index_grams()
    large.index_grams()
    assert small.has_grams and not large.has_grams
    assert large.containing("lph") == ["alpha"] and small.containing("amm") == ["gamma"]


_STORED_TERM = st.text(alphabet="abcdeé1ž\u4e2d\U0001f600", min_size=1, max_size=7)


@settings(max_examples=300, deadline=None)
@given(st.lists(_STORED_TERM, max_size=40), st.lists(st.text(alphabet="abcdeé1ž\u4e2d\U0001f600z", min_size=1,
                                                              max_size=5), min_size=1, max_size=8))
def test_a_stored_vocabulary_answers_from_the_mapped_file_as_from_its_lists(terms: list[str], runs: list[str]) -> None:
    """`load` maps the file and answers `containing`, `starting_with` and `ending_with` from its
    bytes (`Stored`) without decoding the lists: the same terms in the same order as the lists
    give, non-ASCII terms and runs past either end of the sorted order included; and the lists
    decoded from it later are the ones saved."""
    import tempfile

    plain = vocabulary.Vocabulary(terms)
    with tempfile.TemporaryDirectory() as tmp:
        vocabulary.save(Path(tmp), 7, plain)
        stored = vocabulary.load(Path(tmp), 7)
        assert stored is not None
        for run in runs + terms[:3] + ["\U0010ffff", "\x00"]:
            assert stored.containing(run) == plain.containing(run), run
            assert stored.starting_with(run) == plain.starting_with(run), run
            assert stored.ending_with(run) == plain.ending_with(run), run
        assert stored._blob is None and stored._reversed is None  # (answered from the file alone)
        assert stored.sorted == plain.sorted and stored.reversed == plain.reversed
        for run in runs:  # (and from the decoded lists, once they are made)
            assert stored.starting_with(run) == plain.starting_with(run)
            assert stored.ending_with(run) == plain.ending_with(run)
