"""Gemini CLI's quick lane (`GeminiAdapter.quick_lane`): its answer is the general way's
(`quick_meta` with the lane switched off) on the real chat, the fixtures, the demo and the bench
generator's chats, and on chats of any lines hypothesis makes (every shape the listing tells
apart, junk, patches of every shape, long lines past the windows and past 128 KB, any end, a
BOM), for every window; and it answers for the usual chat (not leaving it to the general way)."""
from __future__ import annotations

import hashlib
import importlib.util
import json
import random
import sys
from pathlib import Path

import pytest
from helpers import CORPUS, DATA, ROOT
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sessionscope.core.demo import generate_demo
from sessionscope.core.read.adapters import default_registry
from sessionscope.core.read.adapters import gemini
from sessionscope.core.read.adapters.gemini import GeminiAdapter
from sessionscope.core.read.jsonl import read_head_tail
from sessionscope.core.read.listing import quick_meta

REG = default_registry()
WINDOWS = (65536, 16384, 4096, 700)  # (test_listing's LANE_WINDOWS)
HASH = hashlib.sha256(b"/home/u/proj").hexdigest()
SID = "3c9a77e1-1111-4d3e-8f00-aaaaaaaaaaaa"


def general_meta(path: Path, nbytes: int = 65536):
    """`quick_meta` the general way: Gemini's lane switched off."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(GeminiAdapter, "quick_lane", None)
        return quick_meta(path, REG, nbytes)


def lane_meta(path: Path, nbytes: int = 65536):
    """What the lane itself answers for `path` (None: it leaves the file to the general way)."""
    return gemini._quick_lane(REG.by_name("gemini-cli"), str(path), read_head_tail(str(path), nbytes),
                              nbytes, False)


def chat_path(root: Path, name: str = f"session-2026-04-01T10-00-{SID[:8]}.jsonl") -> Path:
    path = root / "tmp" / HASH / "chats" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def t(i: int) -> str:
    return f"2026-04-01T1{i // 60 % 10}:{i % 60:02d}:05.000Z"


def _bench_gemini_chats(out: Path, file_kb: int) -> list[Path]:
    spec = importlib.util.spec_from_file_location("gen_formats", ROOT / "bench" / "gen_formats.py")
    assert spec and spec.loader
    gen = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("gen_formats", gen)
    spec.loader.exec_module(gen)
    return gen.gen_gemini_jsonl(out, random.Random(7), 6, file_kb)


@pytest.fixture(scope="module")
def chats(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """The real chat, the fixtures, the demo's chats and the bench generator's, small and big."""
    demo = tmp_path_factory.mktemp("demo")
    generate_demo(demo)
    bench = tmp_path_factory.mktemp("bench")
    return [*sorted((CORPUS / "gemini").glob("*.jsonl")), *sorted((DATA / "gemini").rglob("*.jsonl")),
            *sorted(p for p in demo.rglob("*.jsonl") if REG.likely(str(p)) is REG.by_name("gemini-cli")),
            *_bench_gemini_chats(bench / "60", 60), *_bench_gemini_chats(bench / "200", 200)]


def test_real_fixture_demo_and_bench_chats_list_alike_in_the_lane(chats: list[Path]) -> None:
    assert any(p.stat().st_size > 2 * 65536 for p in chats) and any(p.stat().st_size < 2 * 65536 for p in chats)
    for nbytes in WINDOWS:
        for path in chats:
            assert quick_meta(path, REG, nbytes) == general_meta(path, nbytes), (path.name, nbytes)


def test_the_lane_answers_for_the_usual_chat(chats: list[Path]) -> None:
    """The bench generator's chats (whole, and read by their ends), as Gemini writes them, and
    the real one are the lane's own, not left to the general way."""
    usual = [p for p in chats if "bench" in str(p) or p.parent == CORPUS / "gemini"]
    assert len(usual) >= 12
    for path in usual:
        meta = lane_meta(path)
        assert meta is not None and meta == general_meta(path), path.name


def _msg(i: int, kind: str = "gemini", **more: object) -> dict:
    return {"id": f"m{i}", "timestamp": t(i), "type": kind, "content": f"reply {i}", **more}


_META = {"sessionId": SID, "projectHash": HASH, "startTime": t(0), "lastUpdated": t(0), "kind": "main"}
_FIRST = {
    "meta": json.dumps(_META),
    "compact": json.dumps(_META, separators=(",", ":")),
    "subagent": json.dumps({**_META, "kind": "subagent"}),
    "summary": json.dumps({**_META, "summary": "A summary from the start"}),
    "no-times": json.dumps({"sessionId": SID, "projectHash": HASH}),
    "dirs": json.dumps({**_META, "directories": ["/home/u/proj"]}),
    "long": json.dumps({**_META, "summary": "a long summary " * 50}),  # (past the smaller windows)
    "longer": json.dumps({**_META, "directories": ["/home/u/proj"] * 600}),
    "no-sid": json.dumps({"projectHash": HASH, "startTime": t(0)}),
    "typed": json.dumps({**_META, "type": "user"}),
    "prompt": json.dumps(_msg(1, "user", content="first without metadata")),
    "two": json.dumps(_META) + " " + json.dumps(_msg(1, "user", content="on the metadata's line")),
    "junk": "{not json",
    "blank": "",
}
_LINES = {
    "user": lambda i: json.dumps(_msg(i, "user", content=f"fix the cart {i}")),
    "user-parts": lambda i: json.dumps(_msg(i, "user", content=[{"text": f"  part  {i} "}, {"text": "two"}])),
    "user-display": lambda i: json.dumps(_msg(i, "user", content="expanded", displayContent=f"/init {i}")),
    "user-blank": lambda i: json.dumps(_msg(i, "user", content="   ")),
    "user-untimed": lambda i: json.dumps({"id": f"m{i}", "type": "user", "content": f"untimed {i}"}),
    "user-odd-time": lambda i: json.dumps(_msg(i, "user", content="odd", timestamp="13:00")),
    "user-escaped": lambda i: '{"id":"m%d","timestamp":"%s","type":"user","content":"caf\\u00e9 \\u0024 %d"}' % (i, t(i), i),
    "gemini": lambda i: json.dumps(_msg(i)),
    "gemini-dollars": lambda i: json.dumps(_msg(i, content="echo $HOME $$ $1 costs $5 $")),
    "gemini-set-text": lambda i: json.dumps(_msg(i, content="use $set in mongo")),
    "info": lambda i: json.dumps(_msg(i, "info")),
    "rewind": lambda i: json.dumps({"$rewindTo": f"m{i - 1}"}),
    "metadata-again": lambda i: json.dumps({**_META, "sessionId": "other", "summary": "not this one"}),
    "spaced": lambda i: json.dumps({"$set": {"lastUpdated": t(i)}}),
    "compact": lambda i: '{"$set":{"lastUpdated":"%s"}}' % t(i),
    "late": lambda i: '{"$set":{"lastUpdated":"2026-05-01T00:00:00.000Z"}}',
    "early": lambda i: '{"$set":{"lastUpdated":"2026-03-01T00:00:00.000Z"}}',
    "odd-value": lambda i: '{"$set":{"lastUpdated":"yesterday"}}',
    "empty-value": lambda i: '{"$set":{"lastUpdated":""}}',
    "number-value": lambda i: '{"$set":{"lastUpdated":1775000000000}}',
    "summary": lambda i: json.dumps({"$set": {"summary": f"summary {i}", "lastUpdated": t(i)}}),
    "start": lambda i: json.dumps({"$set": {"startTime": t(i)}}),
    "kind": lambda i: json.dumps({"$set": {"kind": "subagent"}}),
    "sid": lambda i: json.dumps({"$set": {"sessionId": f"patched-{i}"}}),
    "escaped-key": lambda i: '{"\\u0024set": {"summary": "escaped %d"}}' % i,
    "half-escaped": lambda i: '{"$\\u0073et": {"summary": "half escaped %d"}}' % i,
    "escaped-value": lambda i: '{"$set":{"lastUpdated":"2026-04-01T10:%02d:0\\u0035.000Z"}}' % (i % 60),
    "control": lambda i: '{"$set":{"lastUpdated":"%s\x01"}}' % t(i),
    "backslash": lambda i: '{"$set":{"lastUpdated":"%s\\"}}' % t(i),
    "other-key": lambda i: '{"$set":{"lastUpdated":"%s","summary":"other key %d"}}' % (t(i), i),
    "two-lines": lambda i: '{"$set":{"lastUpdated":"%s\n"}}' % t(i),
    "no-end": lambda i: '{"$set":{"lastUpdated":"%s"}' % t(i),
    "after-quote": lambda i: '{"$set":{"lastUpdated":"%s"}}x' % t(i),
    "cr": lambda i: '{"$set":{"lastUpdated":"%s"}}\r' % t(i),
    "indented": lambda i: ' {"$set":{"lastUpdated":"%s"}}' % t(i),
    "two": lambda i: '{"$set":{"lastUpdated":"%s"}} {"$set":{"summary":"two on a line"}}' % t(i),
    "broken": lambda i: '{"$set": {"summary": "never',
    "list": lambda i: "[1, 2]",
    "text": lambda i: '"text"',
    "blank": lambda i: "",
    "spaces": lambda i: "   ",
    "not-utf8": lambda i: '{"id":"m%d","timestamp":"%s","type":"user","content":"\udcff bad"}' % (i, t(i)),
}


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(first=st.sampled_from(sorted(_FIRST)), kinds=st.lists(st.sampled_from(sorted(_LINES)), max_size=14),
       usual=st.integers(0, 40), last=st.lists(st.sampled_from(sorted(_LINES)), max_size=3),
       pad=st.lists(st.integers(0, 90_000), max_size=3),
       end=st.sampled_from(["\n", "", "\n\n", '\n{"$set":{"lastUpd']), bom=st.booleans(),
       nbytes=st.sampled_from(WINDOWS))
def test_chats_of_any_lines_list_alike_in_the_lane(tmp_path: Path, first: str, kinds: list[str], usual: int,
                                                   last: list[str], pad: list[int], end: str, bom: bool,
                                                   nbytes: int) -> None:
    """Any first line, a prompt, then lines of any shape among `usual` replies each followed by
    Gemini's patch of `lastUpdated` (the lane's own chat), and `last` after them all, some
    replies padded long: the lane's answer is the general way's."""
    lines = [_FIRST[first], _LINES["user"](1)]
    for i in range(2, 2 + usual):
        lines += [json.dumps(_msg(i)), json.dumps({"$set": {"lastUpdated": t(i)}})]
    for k, kind in enumerate(kinds):
        lines.insert(1 + (k * 7) % len(lines), _LINES[kind](60 + k))
    for k, n in enumerate(pad):
        lines.insert(1 + (k * 5) % len(lines), json.dumps(_msg(90 + k, content="p" * n)))
    lines += [_LINES[kind](200 + k) for k, kind in enumerate(last)]
    path = chat_path(tmp_path)
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + ("\n".join(lines) + end).encode("utf-8", "surrogateescape"))
    assert quick_meta(path, REG, nbytes) == general_meta(path, nbytes)


def test_a_legacy_document_and_another_first_line_are_left_to_the_general_way(tmp_path: Path) -> None:
    legacy = sorted((DATA / "gemini").rglob("*.json"))
    assert legacy and all(lane_meta(p) is None for p in legacy)
    path = chat_path(tmp_path)
    for first in ("prompt", "no-sid", "typed", "junk", "blank"):
        path.write_text(_FIRST[first] + "\n" + _LINES["user"](1) + "\n")
        assert lane_meta(path) is None, first


def test_a_whole_chat_with_another_patch_is_left_to_the_general_way(tmp_path: Path) -> None:
    """Patches other than Gemini's `lastUpdated` ones (a summary, a `$` before an escape) are
    the general way's to read; a `$` in a reply is not one, nor a key spelled with escapes (not
    looked for by either way: the title is then a guess)."""
    path = chat_path(tmp_path)
    base = [_FIRST["meta"], _LINES["user"](1)] + [_LINES[k](i) for i, k in
                                                  enumerate(["gemini", "spaced", "gemini", "spaced"], 2)]
    for kind, leaves in (("summary", True), ("escaped-key", False), ("half-escaped", True), ("other-key", True),
                         ("gemini-dollars", False), ("compact", False), ("odd-value", False)):
        path.write_text("\n".join([*base[:3], _LINES[kind](9), *base[3:]]) + "\n")
        assert (lane_meta(path) is None) is leaves, kind
        assert quick_meta(path, REG) == general_meta(path), kind


def test_a_first_line_past_the_window_is_left_to_the_general_way(tmp_path: Path) -> None:
    """A whole chat whose metadata line is longer than the window: the sniffer sees it cut and
    takes no format, nor does the lane."""
    path = chat_path(tmp_path)
    path.write_text(_FIRST["long"] + "\n" + _LINES["user"](1) + "\n")
    assert 700 < len(_FIRST["long"]) and path.stat().st_size < 2 * 700
    assert lane_meta(path, 700) is None
    assert quick_meta(path, REG, 700) == general_meta(path, 700)
    assert lane_meta(path) == general_meta(path) != general_meta(path, 700)


def test_a_prompt_cut_by_the_head_window_is_not_read(tmp_path: Path) -> None:
    """The head's last line, complete but for its newline (cut by the window), is not a line."""
    path = chat_path(tmp_path)
    meta, prompt = _FIRST["meta"], _LINES["user"](1)
    junk = "x" * (4094 - len(meta) - len(prompt))
    path.write_text("\n".join([meta, junk, prompt, json.dumps(_msg(2, content="p" * 9000))]) + "\n")
    assert path.read_bytes()[4095:4096] == b"}" and path.read_bytes()[4096:4097] == b"\n"
    got = lane_meta(path, 4096)
    assert got == general_meta(path, 4096) and got is not None and got.title is None


@pytest.mark.parametrize("reply", ["gemini", "gemini-dollars"])
def test_a_reply_after_the_last_patch_dates_the_chat(tmp_path: Path, reply: str) -> None:
    """The tail's last time is the last line's, not the last patch's when a reply follows it
    (whether the patches were taken all at once or, a `$` among them, one by one)."""
    path = chat_path(tmp_path)
    lines = [_FIRST["meta"], _LINES["user"](1), _LINES[reply](2), _LINES["spaced"](2), _LINES["gemini"](9)]
    path.write_text("\n".join(lines) + "\n")
    got = lane_meta(path)
    assert got is not None and got == general_meta(path) and got.last_timestamp.minute == 9


@settings(max_examples=500, deadline=None)
@given(st.one_of(st.text(alphabet="ab "), st.text(alphabet=st.sampled_from(
    ["a", " ", "\t", "\n", "\r", "\x0b", "\x0c", "\x1c", "\x1f", "\x7f", "\x85", "\xa0", "\u2003", "\u3000", "\u00e9",
     "\x00"]))))
def test_a_prompt_s_words_are_split_and_joined_only_when_they_must_be(text: str) -> None:
    """`ends.one_spaced` (a prompt's words one space apart, the title's too, as Gemini's parser
    makes them) is `" ".join(text.split())`."""
    from sessionscope.core.read.ends import one_spaced

    assert one_spaced(text) == " ".join(text.split())


@pytest.mark.parametrize("blob", [b"", b"\n", b"  \n", b"{}\n", b"null\n", b"[1]\n\n", b'{"a":1}',
                                  b'{"timestamp":"2026-04-01T10:00:05.000Z"}\n',
                                  b'\xef\xbb\xbf{"timestamp":"2026-04-01T10:00:05.000Z"}\n',
                                  b'x\n{"timestamp":"2026-04-01T10:00:05.000Z"}\n',
                                  b'{"timestamp":"2026-04-01T10:00:05.000Z"}\n{"$set":{"lastUpdated":"no"}}\n',
                                  b'{"timestamp":"2026-04-01T10:00:05.000Z"}\n{"$set":{"lastUpdated":"no"}}',
                                  b'{"timestamp":"2026-04-01T10:00:05.000Z"}{"timestamp":"2026-04-01T11:00:05.000Z"}\n'])
def test_the_last_time_read_straight_is_the_general_tail_s(blob: bytes) -> None:
    from sessionscope.core.read.ends import last_stamp_of, tail_values

    for whole in (True, False):
        assert gemini._last_time(blob, whole) == last_stamp_of(tail_values(blob, whole), gemini._stamp)
