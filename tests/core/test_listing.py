"""The quick listing (core/read/listing.py): on real transcripts, the demo corpus, the bench generator's
files and session-logs files, every field it claims to know agrees with the full adapter parse
(times within CLOCK_SKEW, on the side the contract says), whatever the size of the windows it
reads; damaged and foreign files give a result, never an exception."""
from __future__ import annotations

import importlib.util
import os
import re
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import orjson
import pytest
from helpers import CORPUS, NO_CORPUS, ROOT, corpus_files
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sessionscope.core.read.adapters import default_registry
from sessionscope.core.read.ends import FIELDS, Lines, QuickMeta
from sessionscope.core.read.adapters.claude import one_line
from sessionscope.core.demo import generate_demo
from sessionscope.core.read.jsonl import ReaderError, read_head_tail
from sessionscope.core.read import listing
from sessionscope.core.read.listing import CLOCK_SKEW, quick_listing, quick_meta
from sessionscope.core.model import SessionKind, truncate

REGISTRY = default_registry()
# Windows from the real size down to a few hundred bytes: lines get cut, heads lose their prompt,
# tails their last record; what the listing then claims must still hold.
WINDOWS = (65536, 4096, 700)
REAL = [*corpus_files("claude-code"), *corpus_files("codex")]


def full_session(path: Path):
    adapter = REGISTRY.sniff(str(path))
    assert adapter is not None, f"no adapter reads {path}"
    return adapter.load(str(path))[0].session


def assert_agrees(path: Path, nbytes: int = 65536) -> QuickMeta:
    """Every field `quick_meta` claims to know is the full parse's (times within CLOCK_SKEW:
    the full parse's first time at most that much earlier, its last at most that much later)."""
    meta = quick_meta(path, REGISTRY, nbytes)
    full = full_session(path)
    assert meta.error is None, meta.error
    assert (meta.agent, meta.format) == (full.agent, full.source_format)
    for name in FIELDS:
        if not meta.knows(name):
            continue
        quick, want = getattr(meta, name), getattr(full, "id" if name == "session_id" else name)
        where = f"{path.name} ({nbytes}-byte windows): {name}"
        if name == "first_timestamp" and quick and want:
            assert want <= quick <= want + CLOCK_SKEW, where
        elif name == "last_timestamp" and quick and want:
            assert want - CLOCK_SKEW <= quick <= want, where
        else:
            assert quick == want, where
    return meta


def write_jsonl(path: Path, records: list[Any], tail: bytes = b"") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in records) + tail)
    return path


def iso(minute: int, second: float = 0) -> str:
    ts = datetime(2026, 3, 1, 10, 0, tzinfo=timezone.utc) + timedelta(minutes=minute, seconds=second)
    return ts.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def claude(kind: str, n: int, text: Any, *, minute: int, session: str = "s1",
           cwd: str = "/home/u/proj", **extra: Any) -> dict:
    message = ({"role": "user", "content": text} if kind == "user" else
               {"role": "assistant", "id": f"msg{n}", "model": "m",
                "content": [{"type": "text", "text": text}]})
    return {"parentUuid": f"u{n - 1}" if n else None, "isSidechain": False, "cwd": cwd,
            "sessionId": session, "type": kind, "message": message, "uuid": f"u{n}",
            "timestamp": iso(minute), **extra}


# -- agreement with the full parse ----------------------------------------------------------------


@pytest.mark.skipif(not CORPUS.is_dir(), reason=NO_CORPUS)
@pytest.mark.parametrize("nbytes", WINDOWS)
@pytest.mark.parametrize("path", REAL, ids=lambda p: p.name[:60])
def test_real_transcripts_agree_with_the_full_parse(path: Path, nbytes: int) -> None:
    assert_agrees(path, nbytes)


@pytest.mark.skipif(not CORPUS.is_dir(), reason=NO_CORPUS)
def test_real_transcripts_settle_most_fields() -> None:
    """Not just agreement by claiming nothing: whole real files settle all but Claude titles."""
    for path in REAL:
        meta = quick_meta(path, REGISTRY)
        if meta.whole:
            claude_title = {"title"} if meta.format == "claude-code" else set()
            assert meta.unsure == claude_title, path.name


@pytest.fixture(scope="module")
def demo_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("demo")
    generate_demo(root, now=datetime(2026, 3, 1, 12, 0, tzinfo=timezone.utc))
    return root


@pytest.fixture(scope="module")
def demo(demo_root: Path) -> list[Path]:
    return sorted(demo_root.rglob("*.jsonl"))


@pytest.mark.parametrize("nbytes", WINDOWS)
def test_demo_corpus_agrees_with_the_full_parse(demo: list[Path], nbytes: int) -> None:
    metas = [assert_agrees(p, nbytes) for p in demo]
    if nbytes == 65536:  # what 64 KB windows settle: every kind of session the demo has
        kinds = {m.kind for m in metas if m.knows("kind")}
        assert {SessionKind.MAIN, SessionKind.SUBAGENT, SessionKind.EXEC} <= kinds


@pytest.fixture(scope="module")
def bench_files(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    spec = importlib.util.spec_from_file_location("gen_corpus", ROOT / "bench" / "gen_corpus.py")
    assert spec and spec.loader
    gen = importlib.util.module_from_spec(spec)
    sys.modules["gen_corpus"] = gen
    spec.loader.exec_module(gen)
    c = gen.generate(tmp_path_factory.mktemp("gen"), files=24, size_mb=3, big_mb=0.6,
                     long_line_mb=0.2, long_lines=3, codex_share=0.3, seed=5, verbose=False)
    return [Path(p) for p in c.paths]


@pytest.mark.parametrize("nbytes", WINDOWS)
def test_bench_generator_files_agree_with_the_full_parse(bench_files: list[Path],
                                                         nbytes: int) -> None:
    for path in bench_files:
        assert_agrees(path, nbytes)


SL_HEADER = {"session_id": "s-9", "agent_id": "my-agent", "source_plugin": "my-exporter",
             "started_at": iso(0), "cwd": "/home/u/p", "kind": "subagent"}


@pytest.mark.parametrize("nbytes", WINDOWS)
def test_session_logs_agree_with_the_full_parse(tmp_path: Path, nbytes: int) -> None:
    entries = [{"role": "system", "content": "setup", "timestamp": iso(0, 1)},
               {"role": "user", "content": "  fix\tthe   parser ", "timestamp": iso(0, 2)}]
    entries += [{"role": "assistant", "content": "x" * 800, "timestamp": iso(i)} for i in range(1, 40)]
    path = write_jsonl(tmp_path / "s-9.jsonl", [SL_HEADER, *entries])
    meta = assert_agrees(path, nbytes)
    assert (meta.agent, meta.format, meta.session_id, meta.kind, meta.project) == (
        "my-agent", "my-exporter", "s-9", SessionKind.SUBAGENT, "/home/u/p")
    assert meta.title == "fix the parser" and meta.knows("title")
    assert meta.knows("last_timestamp") == (nbytes > 700)  # a 700-byte tail holds no whole entry


# -- what it claims, and what it leaves to the full parse --------------------------------------


def test_a_small_claude_file_is_read_whole(tmp_path: Path) -> None:
    records = [{"type": "summary", "summary": "Old work", "leafUuid": "elsewhere"},
               claude("user", 0, "<command-name>/init</command-name>", minute=0),
               claude("user", 1, "  Add the\nlisting ", minute=1),
               claude("assistant", 2, "done", minute=2)]
    path = write_jsonl(tmp_path / "proj" / "0b6e4c6e-3a1c-4a3e-9a43-5d1f1f0f7b11.jsonl", records)
    meta = assert_agrees(path)
    assert meta.whole and meta.unsure == {"title"}  # a rename can sit anywhere: always a guess
    assert meta.title == "Add the listing" == full_session(path).title
    assert (meta.project, meta.kind) == ("/home/u/proj", SessionKind.MAIN)
    assert meta.session_id == "0b6e4c6e-3a1c-4a3e-9a43-5d1f1f0f7b11"
    assert (meta.first_timestamp, meta.last_timestamp) == (full_session(path).first_timestamp,
                                                           full_session(path).last_timestamp)


def test_claude_tail_skips_noise_and_replies_merged_into_earlier_text(tmp_path: Path) -> None:
    split = claude("assistant", 3, "second half", minute=9)
    split["message"]["id"] = "msg2"  # the same reply as record 2, whose last block is text
    progress = {"type": "progress", "uuid": "p1", "parentUuid": "u3", "timestamp": iso(30),
                "sessionId": "s1", "data": {"type": "bash_progress"}}
    records = [claude("user", 0, "go", minute=0), claude("user", 1, "x" * 5000, minute=1),
               claude("assistant", 2, "first half", minute=2), split, progress]
    path = write_jsonl(tmp_path / "p" / "s1.jsonl", records)
    meta = assert_agrees(path, 4096)
    # Record 3 merges into record 2 (its time is dropped), the progress record is not an entry.
    assert meta.knows("last_timestamp") and meta.last_timestamp == full_session(path).last_timestamp
    assert meta.last_timestamp.minute == 2


def test_agent_files_are_known_by_name_or_else_unsure(tmp_path: Path) -> None:
    side = [dict(claude("user", i, f"task {i}", minute=i, session="parent-1", agentId="a1b2"),
                 isSidechain=True) for i in range(60)]
    named = write_jsonl(tmp_path / "p" / "parent-1" / "subagents" / "agent-a1b2.jsonl", side)
    meta = assert_agrees(named, 4096)
    assert (meta.session_id, meta.kind) == ("parent-1/agent-a1b2", SessionKind.SUBAGENT)
    assert meta.knows("session_id") and meta.knows("kind")
    # The same records under a plain name: only the unseen middle could say it is not an agent's.
    plain = write_jsonl(tmp_path / "p" / "flat.jsonl", side)
    meta = assert_agrees(plain, 4096)
    assert meta.unsure == set(FIELDS) and meta.session_id == "parent-1/agent-a1b2"
    assert assert_agrees(plain).unsure == {"title"}  # read whole, it is sure


def test_codex_title_is_the_prompt_event_and_a_huge_session_meta_gives_guesses(
        tmp_path: Path) -> None:
    meta_line = {"timestamp": iso(0), "type": "session_meta",
                 "payload": {"id": "019a93b9-f380-7600-98ff-940e6b99603c", "timestamp": iso(0),
                             "cwd": "/work/x", "originator": "codex_cli_rs", "cli_version": "0.58.0",
                             "base_instructions": {"text": "b" * 9000}, "source": "cli"}}
    records = [meta_line,
               {"timestamp": iso(1), "type": "response_item", "payload": {
                   "type": "message", "role": "user",
                   "content": [{"type": "input_text", "text": "<environment_context>x</environment_context>"}]}},
               {"timestamp": iso(1), "type": "event_msg",
                "payload": {"type": "user_message", "message": "Ship\nthe  listing", "images": []}}]
    records += [{"timestamp": iso(2 + i), "type": "event_msg",
                 "payload": {"type": "agent_message", "message": "y" * 400}} for i in range(30)]
    path = write_jsonl(tmp_path / "rollout-2026-03-01T10-00-00-019a93b9-f380-7600-98ff-940e6b99603c.jsonl",
                       records)
    meta = assert_agrees(path, 16384)
    assert meta.title == "Ship the listing" and meta.knows("title")
    assert (meta.session_id, meta.project, meta.kind) == (
        "019a93b9-f380-7600-98ff-940e6b99603c", "/work/x", SessionKind.MAIN)
    # A head window inside the session_meta line: its start still names id, time and cwd, as a
    # guess (the line might end broken, and `source`, after the instructions, is not seen).
    cut = assert_agrees(path, 2048)
    assert (cut.session_id, cut.project, cut.first_timestamp) == (
        meta.session_id, meta.project, meta.first_timestamp)
    assert {"session_id", "kind", "project", "first_timestamp", "title"} <= cut.unsure


def test_an_unfinished_last_line_is_not_a_record_until_it_parses(tmp_path: Path) -> None:
    records = [claude("user", 0, "go", minute=0), claude("assistant", 1, "ok", minute=1)]
    growing = write_jsonl(tmp_path / "p" / "g.jsonl", records,
                          tail=orjson.dumps(claude("assistant", 2, "late", minute=5))[:-9])
    assert assert_agrees(growing).last_timestamp.minute == 1
    finished = write_jsonl(tmp_path / "p" / "f.jsonl", records,
                           tail=orjson.dumps(claude("assistant", 2, "late", minute=5)))
    assert assert_agrees(finished).last_timestamp.minute == 5


def test_times_written_slightly_out_of_order_stay_within_the_skew(tmp_path: Path) -> None:
    records = [claude("user", 0, "go", minute=0), claude("assistant", 1, "a", minute=3),
               dict(claude("user", 2, "b", minute=1), timestamp=iso(3, 0.5)),
               dict(claude("user", 3, "c", minute=1), timestamp=iso(3, 0.2))]
    path = write_jsonl(tmp_path / "p" / "o.jsonl", records)
    meta = assert_agrees(path)
    assert meta.last_timestamp == full_session(path).last_timestamp - timedelta(seconds=0.3)


@pytest.mark.skipif(importlib.util.find_spec("zstandard") is None, reason="zstandard not installed")
def test_compressed_rollouts_are_listed(tmp_path: Path) -> None:
    import zstandard

    records = [{"timestamp": iso(0), "type": "session_meta",
                "payload": {"id": "019c8a70-dda7-7f33-98ea-f30553347322", "timestamp": iso(0),
                            "cwd": "/w", "originator": "codex_exec", "source": "exec"}},
               {"timestamp": iso(1), "type": "event_msg",
                "payload": {"type": "user_message", "message": "run it"}}]
    plain = write_jsonl(tmp_path / "plain" / "rollout-x-019c8a70-dda7-7f33-98ea-f30553347322.jsonl",
                        records)
    packed = tmp_path / "rollout-x-019c8a70-dda7-7f33-98ea-f30553347322.jsonl.zst"
    packed.write_bytes(zstandard.ZstdCompressor().compress(plain.read_bytes()))
    meta = assert_agrees(packed)
    assert (meta.kind, meta.title, meta.whole) == (SessionKind.EXEC, "run it", True)


# -- bad input: a result, never an exception -------------------------------------------------------


def test_unreadable_empty_foreign_and_misnamed_files_give_an_error(tmp_path: Path) -> None:
    (tmp_path / "empty.jsonl").write_bytes(b"")
    (tmp_path / "binary.jsonl").write_bytes(bytes(range(256)) * 10)
    (tmp_path / "other.jsonl").write_bytes(b'{"hello": "world"}\n')
    (tmp_path / "notes.txt").write_text("hi")
    (tmp_path / "dir.jsonl").mkdir()
    errors = {name: quick_meta(tmp_path / name).error for name in
              ("empty.jsonl", "binary.jsonl", "other.jsonl", "notes.txt", "dir.jsonl",
               "missing.jsonl")}
    assert errors == {
        "empty.jsonl": "empty file",
        "binary.jsonl": "no adapter recognises its first lines (not a transcript format sessionscope reads)",
        "other.jsonl": "no adapter recognises its first lines (not a transcript format sessionscope reads)",
        "notes.txt": "not a transcript file name any adapter reads",
        "dir.jsonl": f"is a directory: {tmp_path / 'dir.jsonl'}",
        "missing.jsonl": f"file not found: {tmp_path / 'missing.jsonl'}",
    }
    assert all(not m.knows(f) for m in quick_listing([tmp_path / "empty.jsonl"]) for f in FIELDS)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_named_pipe_is_refused_without_waiting(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    assert quick_meta(fifo).error == f"is not a regular file: {fifo}"


SEEDS = [*corpus_files("claude-code")[:3], *corpus_files("codex")[:2]]
junk = st.binary(max_size=300)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=junk, where=st.floats(0, 1), seed=st.integers(0, 10), nbytes=st.sampled_from(WINDOWS))
def test_junk_bytes_never_raise(tmp_path: Path, data: bytes, where: float, seed: int,
                                nbytes: int) -> None:
    """Junk alone, or spliced into a real transcript (or a small valid one where ../shared is
    absent), at any window size: a QuickMeta every time, and agreement on what it claims."""
    base = (SEEDS[seed % len(SEEDS)].read_bytes() if SEEDS else
            b"".join(orjson.dumps(claude("user", i, "hi", minute=i)) + b"\n" for i in range(40)))
    at = int(len(base) * where)
    for name, content in (("junk.jsonl", data), ("spliced.jsonl", base[:at] + data + base[at:])):
        path = tmp_path / name
        path.write_bytes(content)
        meta = quick_meta(path, REGISTRY, nbytes)
        assert isinstance(meta, QuickMeta) and meta.path == str(path)
        assert meta.error is None or meta.unsure == set(FIELDS)
        if meta.error is None and REGISTRY.sniff(str(path)) is not None:
            assert_agrees(path, nbytes)


# -- a narrow head first ----------------------------------------------------------------------------


def full_windows_meta(path: Path) -> QuickMeta:
    """`quick_meta` with the full head read at once (no narrow head first)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(listing, "NARROW", 1 << 30)
        return quick_meta(path, REGISTRY)


def big_file(tmp_path: Path, codex: bool, sizes: list[int], prompt_at: int) -> Path:
    """A Claude Code or Codex file of more than two windows whose head holds lines of `sizes`
    bytes of padding, the first prompt after `prompt_at` of them (past a narrow head or not)."""
    pad = lambda n: "p" * n  # noqa: E731
    if codex:
        sid = "0199a5c3-1b2c-7d3e-8f40-123456789abc"
        meta = {"timestamp": iso(0), "type": "session_meta",
                "payload": {"id": sid, "timestamp": iso(0), "cwd": "/home/u/proj",
                            "originator": "codex_cli_rs", "base_instructions": pad(sizes[0])}}
        lines = [meta] + [{"timestamp": iso(i), "type": "response_item", "payload": {
            "type": "reasoning", "summary": [{"type": "summary_text", "text": pad(n)}]}}
            for i, n in enumerate(sizes[1:], 1)]
        lines.insert(1 + prompt_at, {"timestamp": iso(30), "type": "event_msg",
                                     "payload": {"type": "user_message", "message": "fix the cart"}})
        body = [{"timestamp": iso(40 + i), "type": "event_msg",
                 "payload": {"type": "agent_message", "message": pad(3000)}} for i in range(60)]
        path = tmp_path / "sessions" / "2026" / f"rollout-2026-03-01T10-00-00-{sid}.jsonl"
    else:
        lines = [{"type": "progress", "uuid": f"p{i}", "sessionId": "s1", "parentUuid": None,
                  "timestamp": iso(i), "data": pad(n)} for i, n in enumerate(sizes)]
        lines.insert(prompt_at, claude("user", 0, "fix the cart", minute=30))
        body = [claude("assistant", i, pad(3000), minute=40 + i) for i in range(1, 60)]
        path = tmp_path / "projects" / "-home-u-proj" / "9c1c4f0e-4b1a-4c7e-9a55-0d6f3e2a1b7c.jsonl"
    return write_jsonl(path, lines + body)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(codex=st.booleans(), sizes=st.lists(st.integers(0, 24_000), min_size=1, max_size=6),
       prompt_at=st.integers(0, 6))
def test_a_narrow_head_lists_what_the_full_window_does(tmp_path: Path, codex: bool,
                                                       sizes: list[int], prompt_at: int) -> None:
    """The listing reads a narrow head first (core/read/listing.py): whatever the first lines'
    lengths (the sniffers' lines or the first prompt past it, a session_meta longer than it),
    the answer is the full window's."""
    path = big_file(tmp_path, codex, sizes, min(prompt_at, len(sizes)))
    assert path.stat().st_size > 2 * listing.HEAD_TAIL
    assert quick_meta(path, REGISTRY) == full_windows_meta(path)


def test_the_sniffers_see_their_lines_whole_when_a_narrow_head_cuts_them(tmp_path: Path) -> None:
    """The sniffers judge the first three lines: when those do not fit in the narrow head, the
    full one is read (a Claude Code first line followed by two other-format lines, the first
    long, is not a Claude Code file, whatever the narrow head alone would say)."""
    other = {"source_plugin": "x", "session_id": "s", "agent_id": "a", "ts": iso(1)}
    path = write_jsonl(tmp_path / "projects" / "-p" / "9c1c4f0e-4b1a-4c7e-9a55-0d6f3e2a1b7c.jsonl",
                       [claude("user", 0, "hi", minute=0), {**other, "pad": "p" * (listing.NARROW + 10)},
                        other, *[claude("assistant", i, "p" * 3000, minute=i) for i in range(1, 60)]])
    assert path.stat().st_size > 2 * listing.HEAD_TAIL
    assert quick_meta(path, REGISTRY) == full_windows_meta(path)
    assert quick_meta(path, REGISTRY).format != "claude-code"


def test_real_and_fixture_files_list_alike_with_a_narrow_head_first(demo: list[Path]) -> None:
    files = [*REAL, *demo, *sorted((ROOT / "tests" / "data").rglob("*.jsonl"))]
    for path in files:
        assert quick_meta(path, REGISTRY) == full_windows_meta(path), path.name


# -- the pieces it is built on ----------------------------------------------------------------------


def test_read_head_tail_reads_small_files_whole_and_big_ones_by_their_ends(tmp_path: Path) -> None:
    small, big = tmp_path / "s", tmp_path / "b"
    small.write_bytes(b"x" * 200)
    big.write_bytes(bytes(range(256)) * 4)
    s = read_head_tail(str(small), 100)
    assert s.whole and s.head is s.tail and s.head == b"x" * 200 and s.size == 200
    b = read_head_tail(str(big), 100)
    assert not b.whole and (b.head, b.tail, b.size) == (big.read_bytes()[:100], big.read_bytes()[-100:], 1024)
    with pytest.raises(ReaderError, match="file not found"):
        read_head_tail(str(tmp_path / "nope"))


@given(st.binary(max_size=200).map(lambda b: b.replace(b"\r", b"\n")), st.booleans())
def test_lines_are_the_split_of_the_buffer_from_either_end(buf: bytes, bom: bool) -> None:
    buf = (b"\xef\xbb\xbf" if bom else b"") + buf
    lines = Lines(buf)
    body = buf[3:] if buf.startswith(b"\xef\xbb\xbf") else buf  # a BOM is not part of line 1
    want = body.split(b"\n")
    top = [buf[s:e] for s, e in lines.forward()]
    bottom, j = [], 0
    while (piece := lines.back(j)) is not None:
        bottom.append(buf[piece[0]:piece[1]])
        j += 1
    assert top == want and bottom == want[::-1]


@given(st.binary(max_size=200).map(lambda b: b.replace(b"\r", b"\n").replace(b"x", b'{"a":1}')),
       st.booleans(), st.integers(0, 8), st.integers(0, 220))
def test_a_prefix_shares_the_pieces_and_values_of_its_buffer(buf: bytes, bom: bool, found: int,
                                                             cut: int) -> None:
    """`Lines.prefix` (the sniffers' first lines of the listing's head) gives the lines a fresh
    `Lines` of those bytes gives, however many pieces the whole buffer had found, and values
    parsed through either are parsed once."""
    buf = (b"\xef\xbb\xbf" if bom else b"") + buf
    whole = Lines(buf)
    for i in range(found):
        if (piece := whole.piece(i)) is not None:
            whole.values(piece)
    head = buf[:cut]
    prefix, fresh = whole.prefix(head), Lines(head)
    assert list(prefix.forward()) == list(fresh.forward())
    assert prefix.objects(8) == fresh.objects(8)
    for piece in prefix.forward():
        assert prefix.values(piece) is whole._values.get(piece, prefix.values(piece))


@given(st.text(max_size=2000), st.integers(0, 200))
def test_one_line_titles_are_the_collapsed_text_cut(text: str, limit: int) -> None:
    """`one_line` reads only the start of long texts; the result is the same as collapsing all."""
    assert one_line(text, limit) == truncate(" ".join(text.split()), limit)


@given(st.lists(st.sampled_from(["a", "word", " ", "  ", "\n", "\n\n", "\t", "\u3000", "\x85", "é"]), max_size=400),
       st.integers(0, 200))
def test_one_line_of_whitespace_runs_is_the_collapsed_text_cut(parts: list[str], limit: int) -> None:
    """Texts dense in whitespace runs of every kind (each cut of `one_line` may collapse short
    of the limit): the same as collapsing all."""
    text = "".join(parts)
    assert one_line(text, limit) == truncate(" ".join(text.split()), limit)


_WORDS = st.text(st.sampled_from("ab \n\t\u3000\xa0"), max_size=900)


@given(st.one_of(st.text(max_size=2000), _WORDS), st.sampled_from([None, 0, 1, 5, 200]), st.booleans())
def test_codex_titles_cut_from_a_prompts_start_are_the_whole_prompts_cut(text: str, limit: int | None,
                                                                         ide: bool) -> None:
    """A Codex title with a limit (the quick lane's) reads only the start of a long prompt: the
    same as the whole prompt's title cut; a prompt event's blank test needs no stripped copy."""
    from sessionscope.core.read.adapters.codex import _IDE_REQUEST, _prompt_event, _title

    text = (f"ctx{_IDE_REQUEST}" if ide else "") + text
    cut = _title(text, limit)
    assert cut == (_title(text) if limit is None else truncate(_title(text), limit))
    event = {"type": "event_msg", "payload": {"type": "user_message", "message": text}}
    title = _prompt_event(event)
    if not text.strip():
        assert title is None
    if limit is not None:
        assert _prompt_event(event, limit) == (None if title is None else truncate(title, limit))


# -- the command line: `sessionscope sessions --quick` ------------------------------------------


def test_sessions_quick_lists_what_the_full_listing_does(
        demo_root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from sessionscope.cli.main import main

    monkeypatch.setenv("SESSIONSCOPE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("SESSIONSCOPE_CONFIG", str(tmp_path / "none.toml"))
    roots = [a for sub in ("claude/projects", "codex/sessions")
             for a in ("--root", str(demo_root / sub))]

    def sessions(*extra: str) -> list[dict]:
        assert main(["sessions", "--json", "--limit", "500", *roots, *extra]) == 0
        return json.loads(capsys.readouterr().out)["sessions"]

    quick = sessions("--quick")
    assert not (tmp_path / "cache" / "catalog.sqlite").exists()  # no catalog, no full parse
    full = sessions()
    assert [q["session_id"] for q in quick] == [f["session_id"] for f in full]
    for q, f in zip(quick, full):
        assert (q["agent_id"], q["project"], q["kind"]) == (f["agent_id"], f["project"], f["kind"])
        assert "entry_count" not in q and "tokens" not in q
        assert q["title"] == f["title"] or "title" in q["unsure"]
    assert len(sessions("--quick", "--all")) > len(quick)
    assert {q["agent_id"] for q in sessions("--quick", "--agent", "codex")} == {"codex"}
    assert main(["sessions", "--quick", *roots, "--limit", "1"]) == 0
    table = capsys.readouterr().out.splitlines()
    assert table[0].split()[:6] == ["ID", "AGENT", "PROJECT", "ACTIVE", "ENTRIES", "TOKENS"]
    assert re.search(r"\s-\s+-\s", table[1])  # no entry counts or tokens without a parse


# -- the format a path names is sniffed first -------------------------------------------------


def test_the_format_a_path_names_is_sniffed_first_and_sniffing_stays_the_fallback(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file under a Claude Code projects folder is sniffed by Claude's sniffer alone (the five
    sniffers ordered before it are not asked); a file of another format in such a folder, or a
    Claude file under a Codex rollout's name, is still found by sniffing in order."""
    from sessionscope.core.read.adapters.base import Registry

    asked: list[str] = []
    registry = Registry(default_registry().adapters)
    for adapter in registry.adapters:
        real = adapter.sniff
        monkeypatch.setattr(adapter, "sniff", lambda p, h, real=real, name=adapter.name: (
            asked.append(name), real(p, h))[1])
    claude_rec = claude("user", 1, "fix it", minute=1)
    folder = tmp_path / "projects" / "-home-u-p"
    in_projects = write_jsonl(folder / "0f0e0d0c-0000-4000-8000-000000000001.jsonl", [claude_rec])
    assert registry.sniff(str(in_projects)).name == "claude-code" and asked == ["claude-code"]
    asked.clear()
    codex_meta = {"timestamp": iso(0), "type": "session_meta",
                  "payload": {"id": "019a0000-0000-7000-8000-000000000001", "timestamp": iso(0), "cwd": "/p"}}
    codex_there = write_jsonl(folder / "notes.jsonl", [codex_meta])
    assert registry.sniff(str(codex_there)).name == "codex" and asked[0] == "claude-code"
    assert quick_meta(codex_there, registry).format == "codex"
    asked.clear()
    misnamed = write_jsonl(tmp_path / "rollout-2026-01-31T10-00-00-x.jsonl", [claude_rec])
    assert registry.sniff(str(misnamed)).name == "claude-code" and asked[0] == "codex"
    assert quick_meta(misnamed, registry).format == "claude-code"
    asked.clear()  # pi's `sessions/--<cwd>--/<time>_<id>.jsonl`: its sniffer first, then in order
    pi_header = {"type": "session", "version": 3, "id": "p1", "timestamp": iso(0), "cwd": "/p"}
    pi_file = write_jsonl(tmp_path / "--home-u-p--" / "2026-01-31T10-00-00-000Z_p1.jsonl", [pi_header])
    assert registry.sniff(str(pi_file)).name == "pi" and asked == ["pi"]
    asked.clear()
    claude_there = write_jsonl(tmp_path / "--home-u-p--" / "c.jsonl", [claude_rec])
    assert registry.sniff(str(claude_there)).name == "claude-code" and asked[0] == "pi"
    assert not registry.likely(str(tmp_path / "--x" / "a.jsonl")) and not registry.likely("--/a.jsonl")


def test_sniffing_the_likely_format_first_picks_what_sniffing_in_order_does(demo: list[Path]) -> None:
    """On the demo corpus (each agent's own folder layout) and the real files, the adapter picked,
    and so the quick listing, are those of the registry sniffing in order."""
    from sessionscope.core.read.adapters.base import Registry

    in_order = Registry(default_registry().adapters)
    in_order._hinting = []
    files = [*demo, *REAL, *(p for agent in ("copilot-cli", "pi", "gemini") for p in corpus_files(agent))]
    hinted = 0
    for path in files:
        assert REGISTRY.sniff(str(path)) is not None
        assert REGISTRY.sniff(str(path)).name == in_order.sniff(str(path)).name, path
        assert quick_meta(path, REGISTRY) == quick_meta(path, in_order), path
        hinted += any(a.likely(str(path)) for a in REGISTRY.adapters)
    assert hinted > len(demo) // 2  # the demo keeps each agent's layout: most paths name their format


# -- the formats' own quick lanes (`Adapter.quick_lane`) --------------------------------------------

LANES = [a for a in REGISTRY.adapters if a.quick_lane is not None]
LANE_WINDOWS = (65536, 16384, 4096, 700)


def general_meta(path: Path, nbytes: int = 65536) -> QuickMeta:
    """`quick_meta` the general way: no format answers from its own lane."""
    with pytest.MonkeyPatch.context() as mp:
        for adapter in LANES:
            mp.setattr(type(adapter), "quick_lane", None)
        return quick_meta(path, REGISTRY, nbytes)


def test_the_claude_and_codex_lanes_are_there() -> None:
    assert {"claude-code", "codex"} <= {a.name for a in LANES}


def test_real_fixture_and_generated_files_list_alike_in_their_lane(demo: list[Path],
                                                                   bench_files: list[Path]) -> None:
    files = [*REAL, *demo, *sorted((ROOT / "tests" / "data").rglob("*.jsonl")), *bench_files]
    for nbytes in LANE_WINDOWS:
        for path in files:
            assert quick_meta(path, REGISTRY, nbytes) == general_meta(path, nbytes), (path.name, nbytes)


def _side(n: int, text: str, minute: int) -> dict:
    return {**claude("user", n, text, minute=minute), "isSidechain": True, "agentId": "a7"}


_CLAUDE_LINES: list[Any] = [
    claude("user", 1, "fix the cart", minute=1),
    claude("user", 2, [{"type": "text", "text": "<command-name>/init</command-name><command-args>x</command-args>"}],
           minute=2),
    claude("user", 3, "  ", minute=3, isMeta=True),
    claude("user", 4, [{"type": "tool_result", "tool_use_id": "t1", "content": "ok"}], minute=4),
    claude("user", 5, "[Request interrupted by user]", minute=5),
    claude("assistant", 6, "part one", minute=6),
    {**claude("assistant", 7, "part two", minute=7), "message": {"id": "msg6", "content": [{"type": "text", "text": "b"}]}},
    {**claude("assistant", 8, "x", minute=8), "message": {"id": "msg8", "content": [{"type": "tool_use", "id": "t1"}]}},
    {**claude("assistant", 9, "x", minute=9), "message": {"id": "msg9", "content": []}},
    {**claude("system", 10, "x", minute=10), "message": None},
    claude("user", 11, "resume copy", minute=11, uuid="u1"),
    {**claude("user", 12, "no time", minute=12), "timestamp": None},
    {**claude("user", 13, "odd time", minute=13), "timestamp": "13:00"},
    {**claude("user", 14, "epoch", minute=14), "timestamp": 1772359200000},
    {**claude("user", 15, "other session", minute=15), "sessionId": "s2", "cwd": "/elsewhere"},
    {**claude("user", 16, "no session", minute=16), "sessionId": None, "cwd": None},
    {**claude("user", 17, "a string message", minute=17), "message": "just text"},
    _side(18, "side prompt", 18), _side(19, "Warmup", 19),
    {"type": "progress", "uuid": "p1", "sessionId": "s1", "parentUuid": None, "timestamp": iso(20)},
    {"type": "file-history-snapshot", "messageId": "m", "snapshot": {"timestamp": iso(21)}},
    {"type": "summary", "summary": "Fixing the cart", "leafUuid": "u1"},
    {"type": "summary", "summary": "Someone else's", "leafUuid": "zz"},
    {"type": "custom-title", "customTitle": "My title", "sessionId": "s1"},
    {"type": "ai-title", "aiTitle": "AI title", "sessionId": "s1"},
    {"type": "mystery", "uuid": "q1", "timestamp": iso(22)},
    {"source_plugin": "x", "session_id": "s", "agent_id": "a"},
    {"timestamp": iso(23), "type": "event_msg", "payload": {"type": "user_message", "message": "hi"}},
    b"{not json", b"[1, 2]", b'"text"', b"", b"   ", b'{"type":"user"}{"type":"assistant"}',
    b'\xff{"type":"user"}',
]
_CLAUDE_NAMES = ["9c1c4f0e-4b1a-4c7e-9a55-0d6f3e2a1b7c.jsonl", "notes.jsonl", "agent-a7.jsonl",
                 "9c1c4f0e-4b1a-4c7e-9a55-0d6f3e2a1b7c/subagents/agent-a9.jsonl"]


def _line(item: Any) -> bytes:
    return item if isinstance(item, bytes) else orjson.dumps(item)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(picks=st.lists(st.integers(0, len(_CLAUDE_LINES) - 1), max_size=12), name=st.sampled_from(_CLAUDE_NAMES),
       pad=st.lists(st.integers(0, 40_000), max_size=3), end=st.sampled_from([b"\n", b"", b"\n\n", b'\n{"type":"us']),
       bom=st.booleans(), nbytes=st.sampled_from(LANE_WINDOWS))
def test_claude_files_of_any_lines_list_alike_in_their_lane(tmp_path: Path, picks: list[int], name: str,
                                                           pad: list[int], end: bytes, bom: bool, nbytes: int) -> None:
    """Lines of every shape the Claude hook tells apart (and junk), in any order, some padded
    long (past a narrow head, a window, 128 KB), with any end: the lane's answer is the general
    way's."""
    lines = [_line(_CLAUDE_LINES[i]) for i in picks]
    for k, n in enumerate(pad):
        lines.insert(k * 3 % (len(lines) + 1), orjson.dumps({**claude("assistant", 40 + k, "p" * n, minute=40 + k)}))
    path = tmp_path / "projects" / "-home-u-proj" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + b"\n".join(lines) + end)
    assert quick_meta(path, REGISTRY, nbytes) == general_meta(path, nbytes)


def _command_started(path: Path, sizes: list[int], prompt_at: int | None, **extra: Any) -> Path:
    """A Claude Code session opened by a slash command, then tool rounds (a tool call, its result
    of `sizes[i]` bytes), the first typed prompt before round `prompt_at` (None: no prompt)."""
    lines = [claude("user", 0, [{"type": "text", "text": "<command-name>/init</command-name>"}], minute=0, **extra)]
    for i, n in enumerate(sizes, 1):
        call = claude("assistant", 2 * i, "x", minute=i, **extra)
        call["message"]["content"] = [{"type": "tool_use", "id": f"t{i}", "name": "Bash", "input": {}}]
        lines += [call, claude("user", 2 * i + 1, [{"type": "tool_result", "tool_use_id": f"t{i}",
                                                     "content": "o" * n}], minute=i, **extra)]
    if prompt_at is not None:
        lines.insert(1 + 2 * min(prompt_at, len(sizes)),
                     claude("user", 1000, "fix the cart", minute=min(prompt_at, len(sizes)), **extra))
    return write_jsonl(path, lines)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sizes=st.lists(st.integers(0, 30_000), max_size=8), prompt_at=st.none() | st.integers(0, 8),
       rounds=st.integers(0, 40), agent=st.booleans())
def test_a_session_opened_by_a_command_lists_alike_every_way(tmp_path: Path, sizes: list[int],
                                                            prompt_at: int | None, rounds: int,
                                                            agent: bool) -> None:
    """The walk that looks a little further for a prompt (`Look`): lane and general way, narrow
    head and full one, every window, give one answer, and what it claims is the full parse's."""
    name = "p1/subagents/agent-a7.jsonl" if agent else "9c1c4f0e-4b1a-4c7e-9a55-0d6f3e2a1b7c.jsonl"
    extra = {"isSidechain": True, "agentId": "a7"} if agent else {}
    path = _command_started(tmp_path / "projects" / "-home-u-proj" / name, sizes + [300] * rounds, prompt_at,
                            **extra)
    assert quick_meta(path, REGISTRY) == full_windows_meta(path)
    for nbytes in LANE_WINDOWS:
        assert quick_meta(path, REGISTRY, nbytes) == general_meta(path, nbytes)
        assert_agrees(path, nbytes)


def _spy_parses(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    """The bytes of every line the listing parses from now on (the lanes' and `Lines`' parse)."""
    from sessionscope.core.read import ends
    from sessionscope.core.read.adapters import claude as claude_module

    parsed: list[bytes] = []
    real = ends._loads

    def spy(data: Any) -> Any:
        parsed.append(bytes(data))
        return real(data)

    monkeypatch.setattr(ends, "_loads", spy)
    monkeypatch.setattr(claude_module, "_loads", spy)
    return parsed


@pytest.mark.parametrize("folder", ["projects/-home-u-proj", "p"], ids=["lane", "general"])
def test_a_session_opened_by_a_command_is_not_parsed_through_for_a_prompt(tmp_path: Path, folder: str,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A small file read whole that a command opened and 60 tool rounds followed: the listing
    looks for a prompt through `_TITLE_LOOK` bytes past the command, parsing only the lines
    that may hold one (not the tool results), and lists the command as the title guess; a
    prompt within that reach is found. In the lane (a path under `projects`) and the general way."""
    from sessionscope.core.read.adapters import claude as claude_module

    path = _command_started(tmp_path / folder / "9c1c4f0e-4b1a-4c7e-9a55-0d6f3e2a1b7c.jsonl", [1500] * 60, 59)
    size = path.stat().st_size
    assert size <= 2 * listing.HEAD_TAIL
    parsed = _spy_parses(monkeypatch)
    meta = quick_meta(path, REGISTRY)
    # The three lines of the sniff, the calls within reach (~270 bytes each; the results are not
    # parsed), the last line: a few KB of the file's ~120.
    assert sum(map(len, parsed)) < claude_module._TITLE_LOOK // 2 + 4000, ([len(b) for b in parsed], size)
    monkeypatch.undo()
    assert meta.whole and meta.title == "/init" and meta.unsure == {"title"}
    assert full_session(path).title == "fix the cart"  # (the full parse finds the prompt at the end)
    near = _command_started(tmp_path / "q" / folder / "9c1c4f0e-4b1a-4c7e-9a55-0d6f3e2a1b7c.jsonl", [1500] * 60, 3)
    assert quick_meta(near, REGISTRY).title == "fix the cart" == full_session(near).title


def test_a_small_file_read_whole_has_each_line_parsed_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A short session read whole that ends in a reply (whose time depends on the record before
    it), in the lane (its path names the format): the tail walk reads back to lines the head walk
    parsed and takes their values as they are, parsing no line twice; the answer is the general
    way's and agrees with the full parse."""
    path = write_jsonl(tmp_path / "projects" / "-home-u-proj" / "9c1c4f0e-4b1a-4c7e-9a55-0d6f3e2a1b7c.jsonl", [
        {"type": "file-history-snapshot", "messageId": "m", "snapshot": {"timestamp": iso(0)}},
        claude("user", 1, "summarise the cart work " + "x" * 5000, minute=1),
        claude("assistant", 2, "the summary", minute=2)])
    parsed = _spy_parses(monkeypatch)
    meta = quick_meta(path, REGISTRY)
    assert len(parsed) == len(set(parsed)) == 3, [len(b) for b in parsed]
    monkeypatch.undo()
    assert meta.whole and meta == general_meta(path) == assert_agrees(path)
    assert meta.last_timestamp == full_session(path).last_timestamp


def test_an_agent_whose_prompt_is_looked_for_past_reach_leaves_its_kind_unsure(tmp_path: Path) -> None:
    """A subagent file read whole whose "Warmup" prompt comes only after tool rounds past the
    look's reach: its kind (a warmup's is told by that prompt) is left to the full parse."""
    path = _command_started(tmp_path / "p1" / "subagents" / "agent-a7.jsonl", [1500] * 20, 20,
                            isSidechain=True, agentId="a7")
    text = path.read_bytes().replace(b"fix the cart", b"Warmup")
    path.write_bytes(text)
    meta = assert_agrees(path)
    assert meta.whole and "kind" in meta.unsure
    assert full_session(path).kind == SessionKind.WARMUP


def test_a_lane_that_runs_out_of_a_narrow_head_leaves_it_to_the_full_one(tmp_path: Path) -> None:
    """Three small lines, then one longer than the narrow head, then the prompt: the lane has
    read all the narrow head holds and still looks for it, so the full head is read."""
    for codex in (False, True):
        path = big_file(tmp_path / str(codex), codex, [100, 100, 100, 20_000], 4)
        assert path.stat().st_size > 2 * listing.HEAD_TAIL
        meta = quick_meta(path, REGISTRY)
        assert meta == full_windows_meta(path) == general_meta(path)
        assert meta.title == "fix the cart"


def test_a_lane_takes_only_the_files_its_sniffer_does(tmp_path: Path) -> None:
    """A file named as Claude Code's whose first lines are another format's: not the lane's."""
    other = {"source_plugin": "x", "session_id": "s", "agent_id": "a", "ts": iso(1)}
    path = write_jsonl(tmp_path / "projects" / "-p" / "9c1c4f0e-4b1a-4c7e-9a55-0d6f3e2a1b7c.jsonl",
                       [claude("user", 0, "hi", minute=0), other, other, claude("user", 1, "hi", minute=1)])
    meta = quick_meta(path, REGISTRY)
    assert meta == general_meta(path) and meta.format != "claude-code"


def _codex(kind: str, payload: dict, minute: int) -> dict:
    return {"timestamp": iso(minute), "type": kind, "payload": payload}


_SID = "0199a5c3-1b2c-7d3e-8f40-123456789abc"
_CODEX_LINES: list[Any] = [
    _codex("session_meta", {"id": _SID, "timestamp": iso(0), "cwd": "/home/u/proj", "originator": "codex_cli_rs"}, 0),
    _codex("session_meta", {"id": _SID, "timestamp": iso(0), "cwd": "/home/u/proj", "originator": "codex_exec"}, 0),
    _codex("session_meta", {"id": _SID, "timestamp": iso(0), "cwd": "/home/u/proj", "source": "subagent"}, 0),
    _codex("session_meta", {"id": _SID, "timestamp": iso(0)}, 0),
    {"id": _SID, "timestamp": iso(0), "instructions": "be brief"},
    _codex("event_msg", {"type": "user_message", "message": "fix the cart", "images": []}, 1),
    _codex("event_msg", {"type": "user_message", "message": "   "}, 2),
    _codex("event_msg", {"type": "user_message", "message": "<environment_context>x</environment_context>"}, 3),
    _codex("event_msg", {"type": "user_message", "message": "injected", "kind": "environment"}, 4),
    _codex("event_msg", {"type": "item_completed", "item": {"type": "UserMessage", "content": [{"type": "text", "text": "an item prompt"}]}}, 5),
    _codex("event_msg", {"type": "agent_message", "message": "done"}, 6),
    _codex("response_item", {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "item prompt"}]}, 7),
    _codex("response_item", {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "ok"}]}, 8),
    _codex("turn_context", {"cwd": "/from/turn", "model": "m"}, 9),
    {**_codex("event_msg", {"type": "agent_message", "message": "no time"}, 10), "timestamp": None},
    {"type": "event_msg", "payload": {"type": "agent_message", "message": "unwrapped"}},
    {"source_plugin": "x", "session_id": "s", "agent_id": "a"},
    b"{not json", b"[1, 2]", b'"text"', b"", b"   ", b'{"timestamp":"2026-03-01T10:11:00.000Z"}{"a":1}',
]
_CODEX_NAMES = [f"rollout-2026-03-01T10-00-00-{_SID}.jsonl", "rollout-notes.jsonl"]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(first=st.one_of(st.integers(0, 2), st.integers(0, len(_CODEX_LINES) - 1)), picks=st.lists(st.integers(0, len(_CODEX_LINES) - 1), max_size=10),
       name=st.sampled_from(_CODEX_NAMES), pad=st.lists(st.integers(0, 40_000), max_size=3),
       end=st.sampled_from([b"\n", b"", b"\n\n", b'\n{"timest']), bom=st.booleans(), nbytes=st.sampled_from(LANE_WINDOWS))
def test_codex_files_of_any_lines_list_alike_in_their_lane(tmp_path: Path, first: int, picks: list[int], name: str,
                                                          pad: list[int], end: bytes, bom: bool, nbytes: int) -> None:
    """As for Claude Code: any lines after any first line, some padded long, any end."""
    lines = [_line(_CODEX_LINES[i]) for i in [first, *picks]]
    for k, n in enumerate(pad):
        lines.insert(1 + k * 3 % len(lines), orjson.dumps(_codex("event_msg", {"type": "agent_message", "message": "p" * n}, 40 + k)))
    path = tmp_path / "sessions" / "2026" / "03" / "01" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + b"\n".join(lines) + end)
    assert quick_meta(path, REGISTRY, nbytes) == general_meta(path, nbytes)


def test_a_rollout_without_a_prompt_line_lists_alike_in_its_lane(tmp_path: Path) -> None:
    """A session_meta alone (a session that never had a prompt), and one whose prompt event is
    the file's unterminated end (a whole file's last line counts when it parses)."""
    path = tmp_path / "sessions" / _CODEX_NAMES[0]
    path.parent.mkdir(parents=True)
    meta, prompt = _line(_CODEX_LINES[0]), _line(_CODEX_LINES[5])
    for content, title in ((meta + b"\n", None), (meta + b"\n" + prompt, "fix the cart"), (meta, None)):
        path.write_bytes(content)
        got = quick_meta(path, REGISTRY)
        assert got == general_meta(path) and got.title == title and got.project == "/home/u/proj"
