"""The quick lanes of Aider and pi (`Adapter.quick_lane`): their answer is the general way's
(`quick_meta` with no lane: the registry's sniff, `Lines`, `Ends`, the format's `quick`) on the
real corpus, the fixtures, the demo and bench files, and on files of any lines the format's
`quick` tells apart (hypothesis), with any end, a BOM or not, in every window; and the lane does
answer for the usual file (it is not the general way by another name).

(tests/core/test_listing.py's section "the formats' own quick lanes" holds Claude Code's and
Codex's, and the helpers this file takes from it.)"""
from __future__ import annotations

import random
import sys
from pathlib import Path

import orjson
from helpers import CORPUS, DATA, ROOT
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sessionscope.core.read.adapters.aider import AiderAdapter
from sessionscope.core.read.ends import QuickMeta
from sessionscope.core.read.jsonl import read_head_tail
from sessionscope.core.read.listing import quick_meta

sys.path.insert(0, str(Path(__file__).resolve().parent))  # (its sibling below, as tests/ is on the path)
from test_listing import (LANE_WINDOWS, REGISTRY, _line, assert_agrees, demo_root, general_meta,  # noqa: E402,F401
                          iso)
from test_quick_lanes_more import _gen_formats, assert_alike, lane_meta  # noqa: E402


def lane_answer(path: Path, nbytes: int = 65536) -> QuickMeta | None:
    """What the lane of the format `path` names answers itself (None: it leaves the file to the
    general way)."""
    adapter = REGISTRY.likely(str(path))
    assert adapter is not None and adapter.quick_lane is not None
    return adapter.quick_lane(str(path), read_head_tail(str(path), nbytes), nbytes, False)


def assert_answered_alike(files: list[Path], bench: list[Path]) -> None:
    """Each file lists alike in its lane and the general way in every window, and the lane
    answers for each itself (at 64 KB); the first bench file is read whole, the last by its ends."""
    assert len(files) >= 8
    assert_alike(files)
    for path in files:
        got = lane_answer(path)
        assert got is not None and got == general_meta(path), path
    assert not lane_meta(bench[-1]).whole and lane_meta(bench[0]).whole


# -- Aider -----------------------------------------------------------------------------------------

def test_the_aider_lane_is_there() -> None:
    assert AiderAdapter.quick_lane is not None and REGISTRY.by_name("aider").quick_lane is not None


def test_aider_fixture_real_demo_and_bench_histories_list_alike_in_the_lane(demo_root: Path,
                                                                           tmp_path: Path) -> None:
    """And the lane answers for each of them itself: whole (60 KB, with and without an input
    history beside) and by its ends (200 KB)."""
    gen = _gen_formats()
    bench = [*gen.gen_aider(tmp_path / "b60", random.Random(3), 4, 60),
             *gen.gen_aider(tmp_path / "b200", random.Random(4), 3, 200)]
    (bench[0].parent / ".aider.input.history").write_text("\n# 2026-03-01 00:00:00\n+hello\n")
    real = sorted((CORPUS / "aider").glob("*.chat.history.md"))
    files = [*sorted(DATA.glob("aider/**/.aider.chat.history.md")),
             *sorted(demo_root.rglob("*.chat.history.md")), *real, *bench]
    assert_answered_alike(files, bench)


_STAMPS = ("2026-01-01 10:00:00", "2026-01-02 09:30:00", "2026-02-30 08:00:00")
_AIDER_LINE = st.one_of(
    st.sampled_from(["", "\r", " \t", "reply text", "> Aider v0.86.1  ", "> Main model: gpt-x with diff format  ",
                     "> Tokens: 1k sent, 2 received.  ", "####", "#### ", "####  fix   it ", "#### add\r",
                     "#####not user", "####x", "```", "<<<<<<< SEARCH", "=======", ">>>>>>> REPLACE",
                     "# aider chat started at", "# aider chat started at 2026-01-01 10:00:00 not a header",
                     "#### caf\xe9 \u2003", "# aider chat started at 2026-01-01 10:00:00\u00a0",
                     "# aider chat\x00 started at 2026-01-02 09:30:00", "#### n\x00ul"]),
    st.sampled_from(_STAMPS).map(lambda s: f"# aider chat started at {s}"),
    st.sampled_from(_STAMPS).map(lambda s: f"# aider chat started at {s}  \r"),
    st.text(st.sampled_from("#x \t\r\u2028"), max_size=6).map(lambda s: f"#### {s}"),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(lead=st.lists(st.sampled_from(["", " ", "\t", "\r", "\x0c", "x", "#### early"]), max_size=4),
       first=st.sampled_from(["# aider chat started at 2026-01-01 10:00:00", "# aider chat started at 2026-01-0",
                              "   # aider chat started at 2026-01-01 10:00:00", ""]),
       lines=st.lists(_AIDER_LINE, max_size=30), pad=st.lists(st.integers(0, 100_000), max_size=2),
       bom=st.booleans(), end=st.sampled_from(["\n", "", "\r\n", "\n\n"]), inputs=st.booleans(),
       junk=st.sampled_from([b"", b"\xff\xfe", b"\x00"]), nbytes=st.sampled_from(LANE_WINDOWS))
def test_aider_histories_of_any_lines_list_alike_in_the_lane(
        tmp_path: Path, lead: list[str], first: str, lines: list[str], pad: list[int], bom: bool, end: str,
        inputs: bool, junk: bytes, nbytes: int) -> None:
    """Blank or other lines before the first header (the sniffers see three), headers anywhere
    (identical ones, look-alikes, unreadable times), user blocks, replies padded long (past a
    window, past 128 KB: read by its ends), bytes that do not decode, a NUL, an input history
    or not: the lane's answer is the general way's."""
    body = [*lead, first, *lines]
    for k, n in enumerate(pad):
        body.insert(k * 7 % (len(body) + 1), "w " * (n // 2))
    target = tmp_path / "p" / ".aider.chat.history.md"
    target.parent.mkdir(exist_ok=True)
    data = ("\n".join(body) + end).encode()
    target.write_bytes((b"\xef\xbb\xbf" if bom else b"") + data.replace(b"reply", b"reply" + junk, 1))
    history = target.parent / ".aider.input.history"
    history.unlink(missing_ok=True)
    if inputs:
        history.write_text("\n# 2026-01-01 10:00:05\n+fix   it\n\n# 2026-01-02 09:31:00\n+add\n")
    assert lane_meta(target, nbytes) == general_meta(target, nbytes)


@settings(max_examples=500, deadline=None)
@given(lines=st.lists(st.sampled_from(["", "\r", "reply", "####", "#### ", "####\r", "####\rx", "#### a b",
                                       "####  c\r", "#####x", "####x", "#### \u2003", "#### d\u2028e", "> out  ",
                                       "#### f\tg", "#### h\x1fi", "#### j\xa0k", "#### \x85l", "#### m\u200bn"]),
                      max_size=12), end=st.sampled_from(["", "\n", "\r\n"]))
def test_the_title_of_a_history_without_input_history_is_its_first_user_block(lines: list[str], end: str) -> None:
    """Read with `first` (a history with no input history beside it), `_user_texts` stops at the
    first user block that is not blank: the title the full parse gives, from the blocks of the
    whole file."""
    from sessionscope.core.read.adapters.aider import _user_texts

    buf = ("\n".join(["# aider chat started at 2026-01-01 10:00:00", *lines]) + end).encode()
    pos = buf.find(b"\n") if b"\n" in buf else len(buf)
    want = next((" ".join(t.split()) for t in _user_texts(buf, pos) if t), None)
    assert next((" ".join(t.split()) for t in _user_texts(buf, pos, True) if t), None) == want


# -- pi ---------------------------------------------------------------------------------------------

_PI_SID = "0199f3a2-7c41-7d10-9a55-2b8e1f0c4d21"


def _pi_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.jsonl") if REGISTRY.by_name("pi").likely(str(p)))


def test_the_pi_lane_is_there() -> None:
    assert REGISTRY.by_name("pi").quick_lane is not None


def test_pi_fixture_real_demo_and_bench_files_list_alike_in_the_lane(demo_root: Path, tmp_path: Path) -> None:
    """The corpus's session laid out as pi keeps it (`--<cwd>--/<time>_<id>.jsonl`: the name the
    lane is asked for); and the lane answers for each file itself."""
    gen = _gen_formats()
    bench = [*gen.gen_pi(tmp_path / "b60", random.Random(3), 4, 60),
             *gen.gen_pi(tmp_path / "b200", random.Random(4), 3, 200)]
    real = []
    for k, src in enumerate(sorted((CORPUS / "pi").glob("*.jsonl"))):
        dest = tmp_path / "real" / "--home-u-p--" / f"2026-01-01T00-00-0{k}-000Z_{_PI_SID}.jsonl"
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(src.read_bytes())
        real.append(dest)
    files = [*_pi_files(DATA / "pi"), *_pi_files(demo_root), *real, *bench]
    assert_answered_alike(files, bench)


def _pi(rtype: str, minute: int, **fields: object) -> dict:
    return {"type": rtype, "id": f"r{minute:07d}", "parentId": None, "timestamp": iso(minute), **fields}


_PI_HEADER = {"type": "session", "version": 3, "id": _PI_SID, "timestamp": iso(0), "cwd": "/home/u/proj"}
_PI_LINES: list[object] = [
    _PI_HEADER,
    {"type": "session", "id": "other-session", "timestamp": iso(1)},  # a v1 header: no version, no cwd
    {"type": "session", "id": _PI_SID, "timestamp": iso(0), "message": "not a header"},
    {**_PI_HEADER, "cwd": "/home/" + "long/" * 150},  # (longer than the narrowest window)
    {"type": "session", "id": 7, "timestamp": iso(0)},
    _pi("model_change", 2, provider="p", modelId="m"),
    _pi("message", 3, message={"role": "user", "content": "fix   the\ncart", "timestamp": 1}),
    _pi("message", 4, message={"role": "user", "content": [{"type": "text", "text": "list"}, {"type": "image"}]}),
    _pi("message", 5, message={"role": "user", "content": "   "}),
    _pi("message", 6, message={"role": "assistant", "content": [{"type": "text", "text": "ok"}]}),
    _pi("message", 7, message="not a dict"),
    {**_pi("message", 8, message={"role": "toolResult", "content": "x"}), "timestamp": None},
    _pi("session_info", 9, name="My title"),
    _pi("session_info", 10, name=""),
    {"type": "session_info", "name": "no time"},
    _pi("label", 11, label="x"),
    {"timestamp": 1772359200000},
    {"timestamp": "13:00"},
    [1, 2], "text", 3,
    b"{not json", b"", b"   ", b'{"type":"label"}{"type":"session_info","name":"two on a line"}',
    b'\xff{"type":"message"}', b'{"type" : "session_info" , "name" : "spaced"}',
]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(first=st.one_of(st.just(0), st.integers(0, len(_PI_LINES) - 1)),
       picks=st.lists(st.integers(0, len(_PI_LINES) - 1), max_size=12),
       pad=st.lists(st.integers(0, 90_000), max_size=3),
       end=st.sampled_from([b"\n", b"", b"\n\n", b'\n{"type":"mess']), bom=st.booleans(),
       nbytes=st.sampled_from(LANE_WINDOWS))
def test_pi_files_of_any_lines_list_alike_in_the_lane(tmp_path: Path, first: int, picks: list[int], pad: list[int],
                                                    end: bytes, bom: bool, nbytes: int) -> None:
    """Any first line (a header or not), then lines of every shape pi's `quick` tells apart and
    junk, some padded long (past a window, past 128 KB: read by its ends), with any end: the
    lane's answer is the general way's."""
    lines = [_line(_PI_LINES[i]) for i in [first, *picks]]
    for k, n in enumerate(pad):
        lines.insert(1 + k * 3 % len(lines), orjson.dumps(_pi("message", 40 + k, message={
            "role": "assistant", "content": [{"type": "text", "text": "p" * n}]})))
    path = tmp_path / "sessions" / "--home-u-proj--" / f"2026-03-01T10-00-00-000Z_{_PI_SID}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + b"\n".join(lines) + end)
    assert lane_meta(path, nbytes) == general_meta(path, nbytes)


def test_a_pi_title_is_the_last_session_info_name_in_a_whole_file_of_any_underscores(tmp_path: Path) -> None:
    """A whole file (read whole, its `session_info` looked for in all of it) with few or many
    underscores around (the byte the search walks), the name early, late, twice or absent: the
    title is the full parse's, and settled."""
    rng = random.Random(11)
    for filler in ("plain words only", "snake_case_words and tool_use ids", "a_b_c_d_e_f_g_h"):
        for names in ([], [3], [70], [2, 69], [0]):
            body = [_PI_HEADER, _pi("message", 1, message={"role": "user", "content": "the prompt"})]
            for k in range(75):
                body.append(_pi("message", 2 + k, message={"role": "assistant", "content": [
                    {"type": "text", "text": " ".join(rng.choice(filler.split()) for _ in range(60))}]}))
            for n in names:
                body.insert(2 + n, _pi("session_info", 1 + n, name=f"name {n}"))
            path = tmp_path / filler[:5] / str(names) / "--home-u-proj--" / f"2026-03-01T10-00-00-000Z_{_PI_SID}.jsonl"
            path.parent.mkdir(parents=True)
            path.write_bytes(b"\n".join(map(_line, body)) + b"\n")
            assert 8192 < path.stat().st_size <= 131072
            meta = lane_meta(path)
            assert meta.whole and meta.knows("title")
            assert meta.title == (f"name {names[-1]}" if names else "the prompt")
            assert meta == general_meta(path)
            assert_agrees(path)


def test_a_pi_header_longer_than_the_window_is_left_to_the_general_way(tmp_path: Path) -> None:
    """A small file (read whole) whose header line is longer than the window: the sniffers see
    only the window's bytes of it, and no format reads the file; the lane does not take it."""
    path = tmp_path / "--home-u-proj--" / f"2026-03-01T10-00-00-000Z_{_PI_SID}.jsonl"
    path.parent.mkdir()
    path.write_bytes(_line(_PI_LINES[3]) + b"\n" + _line(_PI_LINES[6]) + b"\n")
    assert 700 < path.read_bytes().index(b"\n") < path.stat().st_size <= 1400
    assert lane_answer(path, 700) is None and lane_meta(path, 700) == general_meta(path, 700)
    assert lane_meta(path, 700).error is not None and lane_meta(path, 4096).format == "pi"
