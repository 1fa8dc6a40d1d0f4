"""The quick lanes of Copilot CLI and OpenCode's JSON tree (`Adapter.quick_lane`): their answer is
the general way's (`quick_meta` with no lane: the registry's sniff, `Lines`, `Ends`, the format's
`quick`) on the real corpus, the fixtures, the demo and bench files, and on files of any lines the
format's `quick` tells apart (hypothesis), with any end, a BOM or not, in every window.

(tests/core/test_listing.py's section "the formats' own quick lanes" holds Claude Code's and
Codex's, and the helpers this file takes from it.)"""
from __future__ import annotations

import importlib.util
import json
import random
import shutil
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import orjson
import pytest
from helpers import DATA, ROOT, corpus_files
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sessionscope.core.read.adapters.copilot import CopilotAdapter
from sessionscope.core.read.adapters.opencode import OpenCodeAdapter
from sessionscope.core.read.ends import QuickMeta, find_by_byte, one_spaced
from sessionscope.core.read.listing import quick_meta

sys.path.insert(0, str(Path(__file__).resolve().parent))  # (its sibling below, as tests/ is on the path)
from test_listing import LANE_WINDOWS, REGISTRY, _line, demo_root, general_meta, iso  # noqa: E402,F401 - a fixture


def lane_meta(path: Path, nbytes: int = 65536) -> QuickMeta:
    """`quick_meta` with the lanes."""
    return quick_meta(path, REGISTRY, nbytes)


def assert_alike(paths: list[Path]) -> None:
    for nbytes in LANE_WINDOWS:
        for path in paths:
            assert lane_meta(path, nbytes) == general_meta(path, nbytes), (str(path), nbytes)


def lane_answers(adapter: type, path: Path) -> tuple[QuickMeta, bool]:
    """(the listing of `path`, whether `adapter`'s lane answered it), the listing asserted to be
    the general way's."""
    answered: list[QuickMeta | None] = []
    lane = adapter.quick_lane

    def spy(self: Any, *args: Any) -> QuickMeta | None:
        answered.append(lane(self, *args))
        return answered[-1]

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(adapter, "quick_lane", spy)
        meta = quick_meta(path, REGISTRY)
    assert meta == general_meta(path)
    return meta, bool(answered) and answered[-1] is not None


def _gen_formats():
    spec = importlib.util.spec_from_file_location("gen_formats", ROOT / "bench" / "gen_formats.py")
    assert spec and spec.loader
    gen = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("gen_formats", gen)
    spec.loader.exec_module(gen)
    return gen


# -- Copilot CLI -----------------------------------------------------------------------------------

_COPILOT_SID = "5d2c8e1a-4b7f-4c3e-9a10-6f2e8d9c0b11"


def _ev(etype: str, data: Any, minute: int, **over: Any) -> dict:
    return {"type": etype, "data": data, "id": f"e{minute}", "timestamp": iso(minute), "parentId": None, **over}


def _copilot_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.jsonl") if CopilotAdapter().likely(str(p)))


def test_the_copilot_lane_is_there() -> None:
    assert CopilotAdapter.quick_lane is not None and REGISTRY.by_name("copilot-cli").quick_lane is not None


def test_copilot_fixture_demo_and_bench_files_list_alike_in_the_lane(demo_root: Path, tmp_path: Path) -> None:
    gen = _gen_formats()
    bench = [*gen.gen_copilot(tmp_path / "b60", random.Random(3), 4, 60),
             *gen.gen_copilot(tmp_path / "b200", random.Random(4), 3, 200)]
    files = [*_copilot_files(DATA / "copilot"), *_copilot_files(demo_root), *bench]
    assert len(files) >= 8
    assert_alike(files)
    meta = lane_meta(bench[-1])
    assert meta.error is None and meta.title and meta.project == "/home/dev/p2" and not meta.whole


def test_real_copilot_files_list_alike_in_the_lane(tmp_path: Path) -> None:
    """The corpus's event logs, laid out as Copilot CLI keeps them (`<id>/events.jsonl`: the
    name the lane is asked for)."""
    real = corpus_files("copilot-cli")
    if not real:
        pytest.skip("no real Copilot CLI files in ../shared/corpus")
    files = []
    for k, src in enumerate(real):
        dest = tmp_path / "session-state" / f"s{k}" / "events.jsonl"
        dest.parent.mkdir(parents=True)
        shutil.copyfile(src, dest)
        files.append(dest)
    assert_alike(files)


_COPILOT_LINES: list[Any] = [
    _ev("session.start", {"sessionId": _COPILOT_SID, "context": {"cwd": "/home/u/proj", "gitRoot": "/home/u"}}, 0),
    _ev("session.start", {"sessionId": "other-id", "context": {"gitRoot": "/home/u/git"}}, 1),
    _ev("session.start", {"sessionId": "", "context": "not an object"}, 2),
    _ev("session.start", {"context": {"cwd": ""}}, 3),
    _ev("session.start", {"sessionId": 7}, 4),
    _ev("user.message", {"content": "fix   the\ncart", "transformedContent": "x"}, 5),
    _ev("user.message", {"content": "  \n "}, 6),
    _ev("user.message", {"transformedContent": "injected by autopilot"}, 7),
    _ev("user.message", {"content": ["not", "a string"]}, 8),
    _ev("user.message", {"content": "w " * 150}, 9),
    _ev("assistant.message", {"content": "done", "toolRequests": []}, 10),
    _ev("tool.execution_complete", {"toolCallId": "c1", "result": {"content": "ok"}}, 11),
    _ev("session.shutdown", {"modelMetrics": {}}, 12),
    _ev("assistant.turn_start", {"turnId": "0"}, 0, timestamp=iso(0, 0.5)),  # older than lines before it
    _ev("assistant.turn_end", {}, 13, timestamp=None),
    _ev("assistant.turn_end", {}, 14, timestamp="13:00"),
    _ev("assistant.turn_end", {}, 15, timestamp=1772359200000),
    _ev("session.info", {"message": "x"}, 16, timestamp="2026-03-01T09:00:00+00:00"),
    _ev("unknown.kind", {}, 17),
    _ev("session.start", ["data not an object"], 18),
    {"type": "user.message", "data": {"content": "no id"}, "timestamp": iso(19)},
    {"type": "user.message", "data": {"content": "no time"}, "id": "e20"},
    {"_legacy": "header", "item": {"sessionId": "legacy-id", "startTime": iso(21)}, "timeline": []},
    {"_legacy": "timeline", "item": {"type": "user", "text": "a legacy prompt", "timestamp": iso(22)}},
    {"type": "session.start", "data": {"sessionId": "s"}, "id": "e", "timestamp": iso(23), "_legacy": "header",
     "item": {}},
    {"source_plugin": "x", "session_id": "s", "agent_id": "a"},
    b"{not json", b"[1, 2]", b'"text"', b"", b"   ",
    _line(_ev("assistant.turn_end", {}, 24)) + _line(_ev("user.message", {"content": "second value"}, 25)),
    b'\xff{"type":"user.message"}',
]
_COPILOT_NAMES = [f"session-state/{_COPILOT_SID}/events.jsonl", "session-state/events.jsonl"]


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(first=st.one_of(st.integers(0, 4), st.integers(0, len(_COPILOT_LINES) - 1)),
       picks=st.lists(st.integers(0, len(_COPILOT_LINES) - 1), max_size=12), name=st.sampled_from(_COPILOT_NAMES),
       pad=st.lists(st.integers(0, 40_000), max_size=3), first_pad=st.sampled_from([0, 0, 600, 5000, 20_000]),
       end=st.sampled_from([b"\n", b"", b"\n\n", b'\n{"type":"us']), bom=st.booleans(),
       nbytes=st.sampled_from(LANE_WINDOWS))
def test_copilot_files_of_any_lines_list_alike_in_the_lane(tmp_path: Path, first: int, picks: list[int], name: str,
                                                          pad: list[int], first_pad: int, end: bytes, bom: bool,
                                                          nbytes: int) -> None:
    """Lines of every shape Copilot's `quick` tells apart (and junk), after any first line (mostly
    a session start, sometimes padded past a window), some padded long (past a narrow head, a
    window, 128 KB), with any end: the lane's answer is the general way's."""
    head = _COPILOT_LINES[first]
    if first_pad and isinstance(head, dict):
        head = {**head, "pad": "p" * first_pad}
    lines = [_line(head), *(_line(_COPILOT_LINES[i]) for i in picks)]
    for k, n in enumerate(pad):
        lines.insert(1 + k * 3 % len(lines), _line(_ev("assistant.message", {"content": "p" * n}, 40 + k)))
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + b"\n".join(lines) + end)
    assert lane_meta(path, nbytes) == general_meta(path, nbytes)


@pytest.mark.parametrize("nbytes", LANE_WINDOWS)
def test_a_copilot_tail_window_that_starts_on_a_line_lists_alike_in_the_lane(tmp_path: Path, nbytes: int) -> None:
    """The tail window begins exactly where its one line begins: that line is still not known
    to be whole (the window could have cut it), so its time is not the last one."""
    path = tmp_path / "session-state" / _COPILOT_SID / "events.jsonl"
    path.parent.mkdir(parents=True)
    last = _line(_ev("session.shutdown", {"pad": ""}, 30))
    last = _line(_ev("session.shutdown", {"pad": "p" * (nbytes - 1 - len(last))}, 30))
    assert len(last) == nbytes - 1
    head = [_line(_COPILOT_LINES[0]), _line(_COPILOT_LINES[5]), _line(_ev("assistant.message", {"content": "p" * nbytes}, 9))]
    path.write_bytes(b"\n".join([*head, last]) + b"\n")
    meta = lane_meta(path, nbytes)
    assert meta == general_meta(path, nbytes) and "last_timestamp" in meta.unsure


def test_a_copilot_prompt_past_the_narrow_head_is_read_from_the_full_one(tmp_path: Path) -> None:
    """A big events file is read with a narrow head first (`narrow_ends`); a prompt past it, after
    a line longer than it, is found in the full head: the answer is the full windows' own."""
    path = tmp_path / "session-state" / _COPILOT_SID / "events.jsonl"
    path.parent.mkdir(parents=True)
    lines = [_line(_COPILOT_LINES[0]), _line(_ev("assistant.message", {"content": "p" * 20_000}, 8)),
             _line(_COPILOT_LINES[5]), *(_line(_ev("assistant.message", {"content": "p" * 30_000}, 10 + k)) for k in range(6))]
    path.write_bytes(b"\n".join(lines) + b"\n")
    assert path.stat().st_size > 2 * 65536
    meta = lane_meta(path)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(CopilotAdapter, "narrow_ends", False)
        assert meta == lane_meta(path) == general_meta(path)
    assert meta.title == "fix the cart" and "title" not in meta.unsure


def test_the_copilot_lane_answers_the_usual_file_and_not_others(tmp_path: Path) -> None:
    """It answers a file whose first line is an event and leaves any other first line to the
    general way."""
    path = tmp_path / "session-state" / _COPILOT_SID / "events.jsonl"
    path.parent.mkdir(parents=True)
    for first, answers in ((_COPILOT_LINES[0], True), (b"{not json", False),
                           (_COPILOT_LINES[22], False), ({"type": "x"}, False)):
        path.write_bytes(_line(first) + b"\n" + _line(_COPILOT_LINES[5]) + b"\n")
        meta, answered = lane_answers(CopilotAdapter, path)
        assert answered is answers, first
        if answers:
            assert meta.format == "copilot-cli" and meta.title == "fix the cart"


# -- OpenCode's JSON tree --------------------------------------------------------------------------

def _session_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("ses_*.json") if OpenCodeAdapter().likely(str(p)))


def test_the_opencode_lane_is_there() -> None:
    assert REGISTRY.by_name("opencode").quick_lane is not None


def test_opencode_fixture_demo_and_bench_session_files_list_alike_in_the_lane(demo_root: Path,
                                                                              tmp_path: Path) -> None:
    gen = _gen_formats()
    bench = [*gen.gen_opencode_tree(tmp_path / "b", random.Random(5), 4, 20)]
    files = [*_session_files(DATA / "opencode"), *_session_files(demo_root), *bench]
    assert len(files) >= 7
    assert_alike(files)
    meta = lane_meta(bench[0])
    assert meta.error is None and meta.title and meta.project == "/home/dev/p0" and meta.first_timestamp


_MS = 1772323200000
_TIMES: list[Any] = [_MS, _MS + 61_000, _MS - 5, 1772323200, 1e12 + 0.5, "2026-03-01T10:00:00.000Z", "13:00", None,
                     True, -3, 0, 2**62, 2**64 - 1, 10**30, 10**400, [1]]
_TIME = st.sampled_from(_TIMES)
_SES_KEYS = st.fixed_dictionaries({
    "id": st.sampled_from(["ses_4f2a9c1e3ffeQ8mNv2LkT0aBcD", "ses_4f2a9c1e3ffeQ8mNv2LkT0aBcD", "ses_", "msg_1", 7]),
}, optional={
    "slug": st.just("s"),
    "directory": st.sampled_from(["/home/u/proj", "", None, 3]),
    "title": st.sampled_from(["fix the cart", "", None, "t" * 250, "New session - 2026"]),
    "parentID": st.sampled_from(["ses_parent", "", None]),
    "time": st.one_of(st.fixed_dictionaries({"created": _TIME, "updated": _TIME}),
                      st.fixed_dictionaries({}, optional={"created": _TIME, "updated": _TIME}),
                      st.sampled_from(["x", None, [1]])),
    "_session": st.just({}), "_message": st.just({}),
    "pad": st.sampled_from(["", "p" * 700, "p" * 20_000, "p" * 140_000]),
})


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(info=_SES_KEYS, id_first=st.sampled_from([True, True, False]), indent=st.booleans(),
       lead=st.sampled_from([b"", b"", b"\n", b"\n\n\n", b"  ", b" " * 800, b"\n" + b" " * 20_000]),
       end=st.sampled_from([b"", b"\n", b"\r\n", b"\n{}", b" \x00", b"\n\n\n", b"\n" + b" " * 140_000]), cut=st.sampled_from([0, 0, 0, 7, 40]),
       bom=st.booleans(), folder=st.sampled_from(["p" * 40, "info"]), nbytes=st.sampled_from(LANE_WINDOWS))
def test_opencode_session_files_of_any_shape_list_alike_in_the_lane(
        tmp_path: Path, info: dict, id_first: bool, indent: bool, lead: bytes, end: bytes, cut: int, bom: bool,
        folder: str, nbytes: int) -> None:
    """A session JSON of any of the fields the tree's `quick` reads (any id, times of every kind
    `parse_timestamp` takes or not, a parent or none, the wrapped record keys), pretty-printed or
    on one line, padded past a window and 128 KB, led by blank lines, cut off, with junk or a NUL
    after it, a BOM or not: the lane's answer is the general way's."""
    if not id_first:
        info = {**info, "id": info.pop("id")}
    body = json.dumps(info, indent=2 if indent else None).encode()  # (orjson writes no int past 64 bits)
    body = (b"\xef\xbb\xbf" if bom else b"") + lead + (body[:-cut] if cut else body) + end
    path = tmp_path / "storage" / "session" / folder / "ses_4f2a9c1e3ffeQ8mNv2LkT0aBcD.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(body)
    assert lane_meta(path, nbytes) == general_meta(path, nbytes)


def test_opencode_session_times_of_every_pair_of_kinds_list_alike_in_the_lane(tmp_path: Path) -> None:
    """Created and updated times of every kind `parse_timestamp` takes or not, each pair: the
    listing's first and last times are the full parse's (a session without messages: the
    earlier and the later of the two; the tree's `quick` compares epoch milliseconds as
    numbers, and makes only those times)."""
    path = tmp_path / "storage" / "session" / ("p" * 40) / "ses_4f2a9c1e3ffeQ8mNv2LkT0aBcD.json"
    path.parent.mkdir(parents=True)
    adapter = REGISTRY.by_name("opencode")
    for created in _TIMES:
        for updated in _TIMES:
            info = {"id": "ses_4f2a9c1e3ffeQ8mNv2LkT0aBcD", "title": "t", "time": {"created": created, "updated": updated}}
            path.write_bytes(json.dumps(info, indent=2).encode())
            meta, full = lane_meta(path), adapter.load(str(path))[0].session
            assert meta == general_meta(path), (created, updated)
            assert (meta.first_timestamp, meta.last_timestamp) == (full.first_timestamp, full.last_timestamp), \
                (created, updated)


@pytest.mark.parametrize("nbytes", LANE_WINDOWS)
def test_opencode_session_ids_about_the_sniffers_edge_list_alike_in_the_lane(tmp_path: Path, nbytes: int) -> None:
    """The session id's start just inside and just past what the sniffer sees (the first three
    lines, or the window when they end past it), the document on one line or pretty-printed."""
    path = tmp_path / "storage" / "session" / ("p" * 40) / "ses_4f2a9c1e3ffeQ8mNv2LkT0aBcD.json"
    path.parent.mkdir(parents=True)
    info = {"id": "ses_4f2a9c1e3ffeQ8mNv2LkT0aBcD", "title": "t", "time": {"created": _MS, "updated": _MS}}
    answered = 0
    for indent in (None, 2):
        doc = json.dumps(info, indent=indent).encode()
        for lead in (b"", b"\n", b"\n\n", b"\n\n\n"):
            for spaces in (0, nbytes - 30, nbytes - 16, nbytes - 5, nbytes, nbytes + 10):
                path.write_bytes(b" " * spaces + lead + doc)
                meta = lane_meta(path, nbytes)
                assert meta == general_meta(path, nbytes), (indent, lead, spaces)
                answered += meta.format == "opencode"
    assert answered >= 8


def test_the_opencode_lane_answers_the_usual_session_file_and_leaves_the_rest(tmp_path: Path) -> None:
    """It answers a session JSON as OpenCode writes it and leaves others to the general way: one
    whose id is past the first three lines, one that is not one JSON object."""
    path = tmp_path / "storage" / "session" / ("p" * 40) / "ses_4f2a9c1e3ffeQ8mNv2LkT0aBcD.json"
    path.parent.mkdir(parents=True)
    usual = orjson.dumps({"id": "ses_4f2a9c1e3ffeQ8mNv2LkT0aBcD", "directory": "/home/u/proj", "title": "fix the cart",
                          "time": {"created": _MS + 1000, "updated": _MS}}, option=orjson.OPT_INDENT_2)
    for body, answers in ((usual, True), (b"\n\n\n" + usual, False), (usual + b"\n{}", False)):
        path.write_bytes(body)
        meta, answered = lane_answers(OpenCodeAdapter, path)
        assert answered is answers, body[:10]
        if answers:
            assert (meta.title, meta.project, meta.unsure) == ("fix the cart", "/home/u/proj",
                                                               frozenset({"last_timestamp"}))
            assert meta.last_timestamp - meta.first_timestamp == timedelta(seconds=1)


# -- helpers the lanes share -----------------------------------------------------------------------

def test_every_whitespace_character_but_the_space_is_not_printable() -> None:
    """What `one_spaced`'s shortcut stands on, over all of Unicode (as this Python's tables say)."""
    assert [c for c in range(sys.maxunicode + 1) if chr(c).isspace() and chr(c).isprintable()] == [32]


@settings(max_examples=500, deadline=None)
@given(text=st.text(st.one_of(st.sampled_from(" \t\n\r\x0b\x0c\x1c\x85\xa0\u2000\u2028\u3000ab"), st.characters()),
                    max_size=30))
def test_one_spaced_is_the_words_joined_by_one_space(text: str) -> None:
    assert one_spaced(text) == " ".join(text.split())


@settings(max_examples=500, deadline=None)
@given(parts=st.lists(st.sampled_from(["word", "é", "\u2028", "\x85", " ", "\n", "\n\n", " \n", "\n ", "\t", "\r\n"]),
                      max_size=40))
def test_one_spaced_of_lines_is_the_words_joined_by_one_space(parts: list[str]) -> None:
    """Texts of several lines (the newline made a space when it is all there is to collapse)."""
    text = "".join(parts)
    assert one_spaced(text) == " ".join(text.split())


_NEEDLE = b'"session_info"'


@settings(max_examples=400, deadline=None)
@given(parts=st.lists(st.one_of(st.sampled_from([_NEEDLE, _NEEDLE[:-1], b"_", b"_i", b"n_info", b'"', b"\n"]),
                                st.binary(max_size=40), st.builds(lambda n, c: c * n, st.integers(0, 3000),
                                                                   st.sampled_from([b"_", b"x", b"a_b "]))),
                      max_size=40),
       start=st.integers(0, 70_000), key=st.integers(0, len(_NEEDLE) - 2))
def test_find_by_byte_is_bytes_find(parts: list[bytes], start: int, key: int) -> None:
    """Sparse and dense runs of the walked byte, needles whole, cut and at either end, any start:
    the answer is `bytes.find`'s."""
    buf = b"".join(parts)
    start = min(start, len(buf))
    assert find_by_byte(buf, _NEEDLE, key, start) == buf.find(_NEEDLE, start)


def test_find_by_byte_in_long_buffers_of_each_density() -> None:
    """Past the span searched plainly, with the walked byte sparse (walked to the end), dense
    from the start or turning dense midway (searched plainly from there), the needle anywhere."""
    rng = random.Random(7)
    for gap in (3, 40, 900, 1100, 5000):
        for dense_from in (0, 20_000, None):
            body = bytearray()
            while len(body) < 60_000:
                step = 3 if dense_from is not None and len(body) >= dense_from else gap
                body += bytes(rng.choice(b"abc {}:,") for _ in range(step)) + b"_"
            for at in (None, 0, 5, 19_990, 30_000, len(body) - len(_NEEDLE), len(body)):
                buf = bytes(body) if at is None else bytes(body[:at] + _NEEDLE + body[at:])
                for start in (0, 1, 25_000):
                    assert find_by_byte(buf, _NEEDLE, 8, start) == buf.find(_NEEDLE, start), (gap, dense_from, at)
