"""The tolerant JSONL reader: offsets, decoding, broken and growing lines."""
from __future__ import annotations

import json
from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sessionscope.core.read.jsonl import LineMark, RecordFile, ReaderError, parse_line, RawLine


def write(tmp_path: Path, data: bytes, name: str = "f.jsonl") -> Path:
    p = tmp_path / name
    p.write_bytes(data)
    return p


def records(n: int) -> list[dict]:
    return [{"i": i, "text": f"line {i} " + "x" * (i % 7)} for i in range(n)]


def jsonl(objs: list[dict]) -> bytes:
    return b"".join(orjson.dumps(o) + b"\n" for o in objs)


def test_offsets_and_random_access(tmp_path: Path) -> None:
    objs = records(50)
    p = write(tmp_path, jsonl(objs))
    with RecordFile(p) as rf:
        assert rf.line_count == 50
        raw = rf.line_at(37)
        assert raw.line == 38
        assert orjson.loads(raw.data) == objs[37]
        # the locator offset reads the same line back without any index
        assert rf.line_at_offset(raw.offset).data == raw.data


def test_head_and_tail_without_full_index(tmp_path: Path) -> None:
    objs = records(1000)
    p = write(tmp_path, jsonl(objs))
    with RecordFile(p) as rf:
        head = rf.head(5)
        assert [orjson.loads(r.data)["i"] for r in head] == [0, 1, 2, 3, 4]
        tail = rf.tail(3, line_numbers=False)
        assert [orjson.loads(r.data)["i"] for r in tail] == [997, 998, 999]
        assert len(rf._starts) < 10  # the forward index was not built to answer the tail
        assert [r.line for r in rf.tail(3)] == [998, 999, 1000]  # numbered: index built first


def test_tail_numbered_from_a_stored_mark_counts_only_between(tmp_path: Path) -> None:
    # Issue 15: a tail's line numbers come from the line count the catalog stored at an offset
    # (before the tail, or after it), counting only the newlines in between; never the file.
    objs = records(1000)
    data = jsonl(objs) + b'{"i": "unterminated"'
    p = write(tmp_path, data)
    with RecordFile(p) as rf:
        expected = [r.line for r in RecordFile(p).tail(7)]
        assert expected == list(range(995, 1002))
        for lines in (0, 1, 400, 996, 999, 1000):  # at the top, mid-file, inside the tail, the end
            offset = sum(len(orjson.dumps(o)) + 1 for o in objs[:lines])
            tail = rf.tail(7, mark=LineMark(offset, lines))
            assert [r.line for r in tail] == expected, lines
        assert len(rf._starts) < 10  # answered without the forward index
        # A mark that cannot be a line start of this content is not believed.
        assert [r.line for r in rf.tail(7, mark=LineMark(5, 3))] == expected
        assert [r.line for r in rf.tail(7, mark=LineMark(len(data) + 10, 3))] == expected


def test_tail_of_unterminated_file(tmp_path: Path) -> None:
    p = write(tmp_path, b'{"a":1}\n{"a":2}')
    with RecordFile(p) as rf:
        tail = rf.tail(2)
        assert [r.data for r in tail] == [b'{"a":1}', b'{"a":2}']
        assert tail[-1].terminated is False


def test_bom_nul_and_crlf_are_stripped(tmp_path: Path) -> None:
    p = write(tmp_path, b'\xef\xbb\xbf{"a":1}\r\n{"b":\x00 2}\n')
    with RecordFile(p) as rf:
        parsed = list(rf.iter_parsed())
    assert [x.value for x in parsed] == [{"a": 1}, {"b": 2}]


def test_invalid_utf8_and_lone_surrogates_are_replaced() -> None:
    bad = parse_line(RawLine(0, 2, b'{"t":"caf\xff\xfe"}'))
    assert bad.ok and bad.value["t"] == "caf\ufffd\ufffd"
    lone = parse_line(RawLine(0, 2, b'{"t":"a\\ud800b"}'))
    assert lone.ok
    lone.value["t"].encode("utf-8")  # encodes: no lone surrogate left


def test_concatenated_objects_on_one_line() -> None:
    parsed = parse_line(RawLine(0, 3, b'{"a":1}{"b":2}'))
    assert parsed.ok and parsed.values == ({"a": 1}, {"b": 2})


def test_broken_line_mid_file_is_reported_with_its_number(tmp_path: Path) -> None:
    p = write(tmp_path, b'{"a":1}\n{"a": tru\n{"a":3}\n')
    with RecordFile(p) as rf:
        parsed = list(rf.iter_parsed())
    assert [x.ok for x in parsed] == [True, False, True]
    assert parsed[1].raw.line == 2 and "line 2" in (parsed[1].error or "")


def test_incomplete_last_line_is_held_back_until_complete(tmp_path: Path) -> None:
    p = write(tmp_path, b'{"a":1}\n{"a":2')
    with RecordFile(p) as rf:
        assert [x.value for x in rf.iter_parsed()] == [{"a": 1}]
        assert rf.complete_end == 8
    with open(p, "ab") as fh:
        fh.write(b'}\n{"a":3}\n')
    with RecordFile(p) as rf:
        assert [x.value for x in rf.iter_parsed(8, 2)] == [{"a": 2}, {"a": 3}]


def test_growing_file_is_remapped(tmp_path: Path) -> None:
    p = write(tmp_path, jsonl(records(3)))
    rf = RecordFile(p)
    end = rf.complete_end
    with open(p, "ab") as fh:
        fh.write(jsonl(records(5)[3:]))
    assert rf.reopen_if_grown()
    assert [x.value["i"] for x in rf.iter_parsed(end, 4)] == [3, 4]
    rf.close()


def test_truncated_file_is_reported(tmp_path: Path) -> None:
    p = write(tmp_path, jsonl(records(5)))
    rf = RecordFile(p)
    p.write_bytes(jsonl(records(1)))
    with pytest.raises(ReaderError, match="truncated"):
        rf.reopen_if_grown()
    rf.close()


def test_missing_file_is_a_reader_error(tmp_path: Path) -> None:
    with pytest.raises(ReaderError, match="not found"):
        RecordFile(tmp_path / "nope.jsonl")


def test_empty_file(tmp_path: Path) -> None:
    with RecordFile(write(tmp_path, b"")) as rf:
        assert rf.line_count == 0 and rf.tail(5) == [] and list(rf.iter_parsed()) == []


def test_zst_without_zstandard_says_how_to_install(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    p = write(tmp_path, b"\x28\xb5\x2f\xfd", "r.jsonl.zst")
    monkeypatch.setitem(sys.modules, "zstandard", None)
    with pytest.raises(ReaderError, match=r"sessionscope\[zstd\]"):
        RecordFile(p)


def test_zst_is_read(tmp_path: Path) -> None:
    zstandard = pytest.importorskip("zstandard")
    data = jsonl(records(4))
    p = write(tmp_path, zstandard.ZstdCompressor().compress(data), "r.jsonl.zst")
    with RecordFile(p) as rf:
        assert [x.value["i"] for x in rf.iter_parsed()] == [0, 1, 2, 3]


# -- properties -------------------------------------------------------------------------------
VALID = [orjson.dumps({"i": i, "s": "ü€😀" * (i % 3)}) for i in range(8)]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    insert_at=st.lists(st.integers(0, 8), max_size=4),
    garbage=st.lists(st.binary(max_size=40), min_size=0, max_size=4),
    tail=st.binary(max_size=40),
)
def test_garbage_never_raises_and_intact_lines_survive(
    tmp_path: Path, insert_at: list[int], garbage: list[bytes], tail: bytes
) -> None:
    lines: list[bytes] = list(VALID)
    for pos, junk in zip(insert_at, garbage):
        # junk becomes a line of its own (its newlines split it into more junk lines)
        lines.insert(min(pos, len(lines)), junk)
    data = b"\n".join(lines) + b"\n" + tail
    p = write(tmp_path, data, "prop.jsonl")
    with RecordFile(p) as rf:
        parsed = list(rf.iter_parsed())
        values = [v for x in parsed if x.ok for v in x.values]
        n_lines = rf.line_count
    for line in VALID:  # every intact valid line is still read
        assert orjson.loads(line) in values
    # every complete line is accounted for: parsed ok (maybe empty) or reported malformed
    complete = data.count(b"\n")
    assert len(parsed) in (complete, complete + 1)
    assert n_lines >= complete


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=200))
def test_parse_line_never_raises(data: bytes) -> None:
    parsed = parse_line(RawLine(0, 1, data))
    assert parsed.ok or parsed.error
    json.dumps(parsed.values)  # whatever came out is plain JSON data
