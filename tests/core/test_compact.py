"""A streamed (big) transcript kept as compact arrays (core/read/compact.py) gives the same items,
branch marks, whole texts, hits and copies as the in-memory transcript of the same stream, and as
a whole load where the stream and the load agree (Claude Code); items read again from the file
are held for a bounded number at most (a spy on the cache, not a memory figure)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import CORPUS, DATA
from sessionscope.core.read import compact as compact_module
from sessionscope.core.read import loading as loading_module
from sessionscope.core.read.adapters import default_registry
from sessionscope.core.read.compact import FOLDS_TO_ASCII, CompactTranscript
from sessionscope.core.read.loading import stream_batches
from sessionscope.core.read.transcript import Transcript, copy_text

DEMO = Path(__file__).resolve().parents[2] / "core" / "demo" / "data"


def _streamable() -> list[Path]:
    registry = default_registry()
    found = []
    for base in (DATA, DEMO, CORPUS):
        if not base.is_dir():
            continue
        for p in sorted(base.rglob("*.jsonl")):
            adapter = registry.sniff(str(p))
            if p.is_file() and adapter is not None and adapter.grows(str(p)):
                found.append(p)
    return found


FILES = _streamable()


def _both(path: Path) -> tuple[Transcript, CompactTranscript, object, bool]:
    """The in-memory transcript and the compact one, fed the same stream of `path`."""
    adapter = default_registry().sniff(str(path))
    skip = not any(s.session.kind.value != "main" for s in adapter.load(str(path)))
    mem = Transcript(None)
    small = CompactTranscript(None, str(path), adapter, skip_sidechains=skip)
    for batch in stream_batches(adapter, str(path), first_batch=3, interval=0, skip_sidechains=skip):
        assert mem.add(batch.entries, batch.cut) == small.add(batch.entries, batch.cut)
        if batch.off_branch:
            assert mem.mark_off_branch(batch.off_branch) == small.mark_off_branch(batch.off_branch)
    return mem, small, adapter, skip


def _key(e: object) -> object:
    if e is None:
        return None
    return (e.id, e.kind, e.role, e.text, e.timestamp, e.tool_name, e.tool_input, e.tool_use_id,
            e.is_error, e.message_id, e.model, e.locator, e.is_sidechain)


def _item_key(item: object) -> object:
    return (item.display, item.off_branch, item.cut, item.result_cut, item.subagent_order,
            _key(item.entry), _key(item.result))


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_compact_items_are_those_of_the_stream_read_again_from_the_file(
        path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(compact_module, "ITEMS_HELD", 2)  # (almost every item read again from its line)
    monkeypatch.setattr(loading_module, "OTHER_CAP", 40)  # (and some cut in memory)
    monkeypatch.setattr(loading_module, "TEXT_CAP", 60)
    mem, small, adapter, _ = _both(path)
    assert len(small) == len(mem) and small.has_branches == mem.has_branches
    for i in range(len(mem)):
        want = mem.items[i]
        assert _item_key(small.items[i]) == _item_key(want), i
        assert (small.display(i), small.collapsible(i), small.off_branch(i), small.is_user_turn(i),
                small.day(i), small.shape(i)) == (
            want.display, want.collapsible, want.off_branch, want.is_user_turn, mem.day(i), mem.shape(i))
        for flags in ((False, False), (True, False), (True, True)):
            assert small.visible(i, *flags) == mem.visible(i, *flags)
        assert small.index_of(want.entry.id) == mem.index_of(want.entry.id)
        if want.result is not None:
            assert small.index_of(want.result.id) == mem.index_of(want.result.id)
    assert small.index_of("no such entry") is None


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_the_whole_texts_read_again_are_those_of_the_file(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every item read whole (`read_full`: expanding, "read the whole message", copying) says what
    the stream gave before it was cut, a split reply every one of its lines."""
    monkeypatch.setattr(compact_module, "ITEMS_HELD", 2)
    for cap in ("OTHER_CAP", "TEXT_CAP", "INPUT_CAP"):
        monkeypatch.setattr(loading_module, cap, 1 << 40)
    whole_mem, _, _, _ = _both(path)  # (nothing cut)
    for cap in ("OTHER_CAP", "TEXT_CAP", "INPUT_CAP"):
        monkeypatch.setattr(loading_module, cap, 10)
    _, small, adapter, _ = _both(path)
    for i in range(len(small)):
        entry, result = small.read_full(i, adapter)
        back = small.update(i, entry, result)
        assert not back or len(small._read_again) <= 32
        got, want = small.items[i], whole_mem.items[i]
        assert _key(got.entry) == _key(want.entry) and _key(got.result) == _key(want.result), i
        assert copy_text(got) == copy_text(want)


CLAUDE = [p for p in FILES if default_registry().sniff(str(p)).name == "claude-code"]


@pytest.mark.parametrize("path", CLAUDE, ids=[p.name for p in CLAUDE])
def test_a_streamed_claude_transcript_shows_what_a_whole_load_shows(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Claude Code: the same items, branch marks and whole texts as the file loaded whole (merged
    split replies, the active branch settled by the whole read)."""
    monkeypatch.setattr(compact_module, "ITEMS_HELD", 2)
    monkeypatch.setattr(loading_module, "TEXT_CAP", 30)
    _, small, adapter, _ = _both(path)
    loaded = adapter.load(str(path))
    if len(loaded) != 1:
        pytest.skip("a file of several sessions is never streamed as one")
    whole = Transcript(None)
    whole.add(loaded[0].entries)
    assert len(small) == len(whole)
    for i in range(len(whole)):
        entry, result = small.read_full(i, adapter)
        small.update(i, entry, result)
        got, want = small.items[i], whole.items[i]
        assert (got.display, got.off_branch) == (want.display, want.off_branch), i
        assert _key(got.entry)[:4] == _key(want.entry)[:4] and got.entry.model == want.entry.model
        assert (got.result is None) == (want.result is None)
        if want.result is not None:
            assert got.result.text == want.result.text and got.result.tool_name == want.result.tool_name


def _words(path: Path) -> list[str]:
    mem, _, _, _ = _both(path)
    words = []
    for item in mem.items:
        words += item.search_text().split()[:3]
    return sorted(set(words))[:200] or ["nothing"]


HIT_FILES = [p for p in FILES if p.stat().st_size < 400_000][:40]


@pytest.mark.parametrize("path", HIT_FILES, ids=[p.name for p in HIT_FILES])
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_find_in_a_streamed_file_finds_every_item_the_whole_texts_hold(path: Path, data: st.DataObject) -> None:
    """`hits` searches the file: whatever piece of an item's whole text is looked for, in any case,
    the items found are exactly those whose whole text (not the part kept in memory) holds it."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(compact_module, "ITEMS_HELD", 4)
        mp.setattr(loading_module, "TEXT_CAP", 20)
        mp.setattr(loading_module, "OTHER_CAP", 20)
        mem, small, adapter, _ = _both(path)
        if not len(small):
            return
        i = data.draw(st.integers(0, len(small) - 1))
        text = small._read_item(i, full=True).search_text()
        if not text:
            return
        a = data.draw(st.integers(0, len(text) - 1))
        b = data.draw(st.integers(a + 1, min(len(text), a + 30)))
        query = "".join(c.upper() if data.draw(st.booleans()) else c for c in text[a:b])
        want = [k for k in range(len(small))
                if query.casefold() in small._read_item(k, full=True).search_text().casefold()]
        assert i in want or not query.strip() or query.casefold() not in text.casefold()
        assert small.hits(query) == want
        assert small.matches(query, list(range(len(small)))) == want


def test_find_in_a_streamed_file_finds_characters_that_fold_to_ascii(tmp_path: Path) -> None:
    """The Kelvin sign and the long s fold to k and s: a query in ASCII finds them, written raw or
    as JSON escapes; a query with quotes, escapes and no letters at all is checked line by line."""
    import orjson

    lines = []
    for k, text in enumerate(["plain words only", "the \u212aelvin sign", "a long \u017fail",
                              'quoted "word" and back\\slash', "nothing here"]):
        lines.append(orjson.dumps({"type": "user", "uuid": f"u{k}", "parentUuid": f"u{k - 1}" if k else None,
                                   "sessionId": "s", "timestamp": "2026-01-01T00:00:00Z",
                                   "message": {"role": "user", "content": text}}))
    raw = tmp_path / "raw.jsonl"  # (no JSON escape anywhere: the raw characters alone)
    raw.write_bytes(b"\n".join(lines) + b"\n")
    assert _both(raw)[1].hits("KELVIN") == [1] and _both(raw)[1].hits("sail") == [2]
    lines.append(b'{"type":"user","uuid":"u9","parentUuid":"u4","sessionId":"s",'
                 b'"timestamp":"2026-01-01T00:00:00Z","message":{"role":"user","content":"escaped \\u212Aing"}}')
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    _, small, _, _ = _both(path)
    assert small.hits("KELVIN") == [1]
    assert small.hits("sail") == [2]
    assert small.hits("king") == [5]
    assert small.hits('"word"') == [3] and small.hits("k\\s") == [3]
    assert small.hits('"') == [3] and small.hits("zzz") == []


def test_the_characters_that_fold_to_ascii_are_all_listed() -> None:
    folding = {chr(cp) for cp in range(0x80, sys.maxunicode + 1)
               if any(c.isascii() and c.isalnum() for c in chr(cp).casefold())}
    assert folding == set(FOLDS_TO_ASCII)


def test_items_read_again_are_held_for_a_bounded_number(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """However many items are read (scrolled through, searched, expanded), at most ITEMS_HELD are
    kept, plus those holding what was read in full (at most READ_AGAIN_HELD) and subagent calls."""
    monkeypatch.setattr(compact_module, "ITEMS_HELD", 3)
    monkeypatch.setattr(loading_module, "TEXT_CAP", 10)
    path = next(p for p in CLAUDE if p.name.startswith("spotter__") and p.stat().st_size > 100_000) \
        if any(p.name.startswith("spotter__") for p in CLAUDE) else None
    if path is None:
        pytest.skip("no big enough Claude Code transcript in the corpus")
    _, small, adapter, _ = _both(path)
    sizes = []
    hold = small._hold

    def spy(index: int, item: object) -> None:
        hold(index, item)
        sizes.append(len(small._held))

    monkeypatch.setattr(small, "_hold", spy)
    for i in range(len(small)):
        small.items[i]
    for i in range(0, len(small), 7):
        small.update(i, *small.read_full(i, adapter))
    small.hits("the")
    assert sizes and max(sizes) <= 3 + len(small._read_again)
    assert len(small._read_again) <= 32 and len(small._pinned) == len(small._subagents.items)
