"""Big transcripts are read in bounded batches: the scan reads a big file thin (no entry's text
held), the index and the reader stream it with the parser letting go of each batch, and the
file's mapped pages are let go as it is read. These tests check that the results are the same as
a whole read, and that the bounds are honoured (spies, not memory figures: those are in
bench/bench_index.py and bench/bench_app.py)."""
from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import CORPUS, DATA
from sessionscope.core.catalog import library as library_module
from sessionscope.core.catalog.activity import activity_of
from sessionscope.core.catalog.library import Library
from sessionscope.core.catalog.store import Catalog
from sessionscope.core.read import jsonl
from sessionscope.core.read.adapters import claude as claude_module
from sessionscope.core.read.adapters import default_registry
from sessionscope.core.read.adapters.base import THIN_TEXT, RecordParser
from sessionscope.core.read.discovery import Root
from sessionscope.core.read.loading import stream_batches
from sessionscope.core.search import ingest as ingest_module
from sessionscope.core.search.index import SearchIndex

DEMO = Path(__file__).resolve().parents[2] / "core" / "demo" / "data"


def _jsonl_files() -> list[Path]:
    """Every JSONL transcript of the fixtures, the demo and (when present) the real corpus."""
    found: list[Path] = []
    for base in (DATA, DEMO, CORPUS):
        if base.is_dir():
            found += sorted(p for p in base.rglob("*.jsonl") if p.is_file())
    return found


def _shape(loaded: list) -> list:
    """What a load settles, entry texts aside: sessions, accounts, noise, tokens by time, and
    each entry's identity, kind, role, time, branch, reply and model."""
    return [(ls.session, ls.account, list(ls.noise), ls.warnings, ls.usage_by_time(),
             [(e.id, e.kind, e.role, e.timestamp, e.on_active_branch, e.message_id, e.model,
               e.tool_name, e.tool_use_id, e.is_error, e.is_sidechain, e.locator, bool(e.text.strip()))
              for e in ls.entries])
            for ls in loaded]


FILES = _jsonl_files()


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_a_thin_load_settles_the_same_sessions_as_a_whole_load(path: Path) -> None:
    registry = default_registry()
    adapter = registry.sniff(str(path))
    if adapter is None:
        pytest.skip(f"{path.name} is not a transcript")
    whole = adapter.load(str(path))
    thin = adapter.load_thin(str(path))
    assert _shape(thin) == _shape(whole)
    assert activity_of(thin) == activity_of(whole)
    # (what reading on needs, packed without a set of every uuid's hash: the same bytes' worth)
    if adapter.name == "claude-code":
        assert [_carried(ls) for ls in thin] == [_carried(ls) for ls in whole]
    else:
        assert [ls.carry() if ls.carry else None for ls in thin] == [ls.carry() if ls.carry else None for ls in whole]
    if adapter.grows(str(path)) and adapter.name != "gemini-cli":  # (Gemini's records keep their own)
        for ls in thin:
            assert all(len(e.text) <= THIN_TEXT == 1 and e.tool_input is None for e in ls.entries)


def _carried(ls: object) -> object:
    carry = getattr(ls, "carry", None)
    if carry is None:
        return None
    c = claude_module._Carry.unpack(carry())
    return c if c is None else (sorted(c.seen), sorted(c.older), c.keys, c.count, c.prompt)


CLAUDE_FILES = [p for p in FILES if default_registry().sniff(str(p)) is not None
                and default_registry().sniff(str(p)).name == "claude-code"]


@pytest.mark.parametrize("path", CLAUDE_FILES, ids=[p.name for p in CLAUDE_FILES])
def test_the_record_thread_holds_each_uuid_once(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A parent link to a record read before is that record's own uuid object (no copy of the
    string per link), and what reading on carries names every uuid read, hashed one at a time
    (no set of them all is built)."""
    parsers: list = []
    packed: list = []
    finish, pack = claude_module.ClaudeParser.finish, claude_module._Carry.pack
    monkeypatch.setattr(claude_module.ClaudeParser, "finish", lambda self: parsers.append(self) or finish(self))
    monkeypatch.setattr(claude_module._Carry, "pack",
                        lambda self, **kw: packed.append(len(self.seen)) or pack(self, **kw))
    loaded = default_registry().by_name("claude-code").load_thin(str(path))
    carried = [ls.carry() for ls in loaded if ls.carry is not None]
    (parser,) = parsers
    for rec in parser._recs:
        for link in (rec.parent, rec.logical_parent):
            node = parser._nodes.get(link) if link is not None else None
            if node is not None:
                assert link is node.uuid
    for e in (e for ls in loaded for e in ls.entries):
        node = parser._nodes.get(e.parent_id) if e.parent_id is not None else None
        if node is not None:
            assert e.parent_id is node.uuid
    assert packed == [0] * len(carried)
    for blob in carried:
        c = claude_module._Carry.unpack(blob)
        assert c is not None and c.seen == {claude_module.hash8(u) for u in (*parser._nodes, *parser._via)}


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=4), min_size=1, max_size=40), st.data())
def test_a_record_is_found_in_its_thread_by_its_line(per_line: list[int], data: st.DataObject) -> None:
    """`_position` (the place of a record among those of a group, by its line) is its index."""
    seq, line = [], 0
    for n in per_line:
        line += data.draw(st.integers(min_value=1, max_value=3))
        seq += [claude_module._Rec(uuid=f"u{len(seq) + k}", parent=None, logical_parent=None, type="user",
                                   line=line) for k in range(n)]
    at = data.draw(st.integers(min_value=0, max_value=len(seq) - 1))
    assert claude_module._position(seq, seq[at]) == at


def test_the_fixtures_cover_the_formats_that_append() -> None:
    registry = default_registry()
    names = {a.name for p in FILES if (a := registry.sniff(str(p))) is not None}
    assert {"claude-code", "codex"} <= names, names


def _copy_root(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    shutil.copytree(DEMO / "claude", root / "claude")
    shutil.copytree(DEMO / "codex", root / "codex")
    return root


def _library(root: Path, cache: Path) -> Library:
    cache.mkdir(parents=True, exist_ok=True)
    return Library([Root(str(root), "--root", explicit=True)], catalog=Catalog(cache / "catalog.sqlite"))


def test_the_scan_reads_big_files_thin_and_catalogs_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _copy_root(tmp_path)
    whole = _library(root, tmp_path / "whole")
    whole.scan()
    thin_reads: list[str] = []
    real = RecordParser.feed

    def feed(self: RecordParser, parsed):  # noqa: ANN001, ANN202 - a spy
        if self.thin and self.path not in thin_reads:
            thin_reads.append(self.path)
        return real(self, parsed)

    monkeypatch.setattr(RecordParser, "feed", feed)
    monkeypatch.setattr(library_module, "THIN_OVER", 1)  # every file is "big"
    thin = _library(root, tmp_path / "thin")
    thin.scan()
    assert len(thin_reads) == len([p for p in whole.rows if p.endswith(".jsonl")])
    assert {p: r.sessions for p, r in thin.rows.items()} == {p: r.sessions for p, r in whole.rows.items()}
    assert sorted(thin.catalog.activity()) == sorted(whole.catalog.activity())
    assert sorted(s.id for s in thin.all_sessions()) == sorted(s.id for s in whole.all_sessions())


QUERIES = ["webhook", "retry", "dashboard", "error", "test", "tls", "drift", "csv", "eslint", "fastapi",
           "idempotency", '"dark mode"', "chart*"]


def _hits(index: SearchIndex) -> dict[str, list[tuple]]:
    out = {}
    for q in QUERIES:
        res = index.search(q, limit=200)
        out[q] = sorted((h.session_id, h.entry_id, h.locator.line) for h in res.hits)
    return out


@pytest.mark.parametrize("one_pass", [True, False], ids=["one-pass", "two-passes"])
def test_streaming_big_files_into_the_index_gives_the_same_hits(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, one_pass: bool) -> None:
    root = _copy_root(tmp_path)
    lib = _library(root, tmp_path / "a")
    index = SearchIndex(tmp_path / "a" / "index")
    index.update(lib, scan=True) if one_pass else (lib.scan(), index.update(lib))
    expected = _hits(index)
    assert sum(map(len, expected.values())) > 50
    index.close()

    monkeypatch.setattr(library_module, "THIN_OVER", 1)
    monkeypatch.setattr(ingest_module, "STREAM_OVER", 1)
    lib = _library(root, tmp_path / "b")
    index = SearchIndex(tmp_path / "b" / "index")
    report = index.update(lib, scan=True) if one_pass else (lib.scan(), index.update(lib))[1]
    assert report.files_from_scan == 0  # (every file streamed by the index itself)
    assert _hits(index) == expected
    index.close()


def test_the_index_stream_keeps_one_line_of_entries_at_a_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A spy on what the parser keeps while the index streams a big file: at most one line's
    entries (the batch), never the file's."""
    root = _copy_root(tmp_path)
    kept: list[int] = []
    parsers: dict[int, RecordParser] = {}
    real = RecordParser.feed

    def feed(self: RecordParser, parsed):  # noqa: ANN001, ANN202 - a spy
        parsers[id(self)] = self
        held = getattr(self, "_entries", getattr(self, "entries", None))
        if isinstance(held, list):
            kept.append(len(held))
        return real(self, parsed)

    monkeypatch.setattr(ingest_module, "STREAM_OVER", 1)
    lib = _library(root, tmp_path / "c")
    lib.scan()
    monkeypatch.setattr(RecordParser, "feed", feed)
    index = SearchIndex(tmp_path / "c" / "index")
    report = index.update(lib)
    index.close()
    assert report.docs_added > 100
    assert len(kept) > 100
    assert max(kept) == 0  # let go after each line: nothing is held when the next comes
    claude = [p for p in parsers.values() if type(p).__name__ == "ClaudeParser"]
    assert claude
    for p in claude:  # nor the thread of the records (only finish() and branch marks need it)
        assert not p._recs and not p._owner and not p._usage  # type: ignore[attr-defined]


def test_reading_with_release_lets_the_pages_go_every_batch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "t.jsonl"
    line = b'{"type":"x","text":"' + b"a" * 1000 + b'"}\n'
    path.write_bytes(line * 200)
    monkeypatch.setattr(jsonl, "RELEASE_EVERY", 16 * 1024)
    spans: list[tuple[int, int | None]] = []
    real = jsonl.RecordFile.release

    def release(self, start: int = 0, end: int | None = None) -> None:  # noqa: ANN001 - a spy
        spans.append((start, end))
        real(self, start, end)

    monkeypatch.setattr(jsonl.RecordFile, "release", release)
    with jsonl.RecordFile(path) as rf:
        n = sum(1 for _ in rf.iter_parsed(release=True))
    assert n == 200
    assert spans[0] == (0, None)  # (what was mapped before: the whole file)
    batches = spans[1:]
    assert len(batches) >= (200 * len(line)) // (16 * 1024) - 1
    page = os.sysconf("SC_PAGE_SIZE")
    for (a, b), (c, _) in zip(batches, batches[1:]):
        assert b == c  # one after the other, nothing skipped
    for a, b in batches:
        assert a % page == 0 and b - a <= 16 * 1024 + len(line) + page


def test_the_reader_stream_holds_no_parser_batch_behind(tmp_path: Path) -> None:
    """The reader's stream of a big file: what the parser keeps is let go after each line."""
    src = next(p for p in FILES if p.parent.name == "claude" and p.parent.parent == DEMO)
    adapter = default_registry().sniff(str(src))
    parsers: list[RecordParser] = []
    real = adapter.parser

    def parser(path: str) -> RecordParser:
        p = real(path)
        parsers.append(p)
        return p

    adapter.parser = parser  # type: ignore[method-assign]
    batches = list(stream_batches(adapter, str(src), first_batch=5, interval=0))
    assert sum(len(b.entries) for b in batches) > 10
    assert parsers and not parsers[0]._entries  # type: ignore[attr-defined]


def test_a_big_file_read_thin_keeps_its_tail_mark(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The window `recent` reads its last entries from is found for a file the scan read thin
    (its entries compared without their texts), as for one read whole."""
    from sessionscope.core.catalog import tails

    root = tmp_path / "root" / "claude"
    root.mkdir(parents=True)
    src = max((DEMO / "claude").glob("*.jsonl"), key=lambda p: p.stat().st_size)
    lines = src.read_bytes().splitlines(keepends=True)
    (root / src.name).write_bytes(b"".join(lines))
    monkeypatch.setattr(tails, "TAIL_MIN_BYTES", 1)
    monkeypatch.setattr(tails, "VERIFY", 5)
    monkeypatch.setattr(tails, "SHARE", 1)
    whole = _library(tmp_path / "root", tmp_path / "w")
    whole.scan()
    monkeypatch.setattr(library_module, "THIN_OVER", 1)
    thin = _library(tmp_path / "root", tmp_path / "t")
    thin.scan()
    (path,) = whole.rows
    assert whole.rows[path].tail is not None
    assert thin.rows[path].tail == whole.rows[path].tail
