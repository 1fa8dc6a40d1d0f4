"""bench/bench_growth.py's writers on a tiny size: each format's transcript is read as that
format, and what an "append" writes reaches the session a whole read gives (an OpenCode
database: its last session written on, no session added)."""
from __future__ import annotations

import sys

import pytest
from helpers import ROOT

from sessionscope.core.read.adapters import default_registry

sys.path.insert(0, str(ROOT / "bench"))
import bench_growth  # noqa: E402


@pytest.mark.parametrize("fmt", bench_growth.FORMATS)
def test_a_writer_grows_one_session_of_its_format(tmp_path, fmt: str) -> None:  # noqa: ANN001
    writer = bench_growth.Writer(fmt, "0f0e0d0c-0000-4000-8000-000000000001")
    path = tmp_path / writer.file_name()
    path.parent.mkdir(parents=True, exist_ok=True)
    writer.create(path, 0.3)
    adapter = default_registry().sniff(str(path))
    assert adapter is not None and adapter.name == fmt.removesuffix("-db"), fmt
    before = adapter.load(str(path))
    writer.append(path, 0.2)
    after = adapter.load(str(path))
    assert [ls.session.id for ls in after] == [ls.session.id for ls in before]
    assert len(after[-1].entries) > len(before[-1].entries)
    assert [len(ls.entries) for ls in after[:-1]] == [len(ls.entries) for ls in before[:-1]]
    # (the id the bench asks `recent` for is the grown session's)
    assert after[-1].session.id == (writer.sid if fmt == "opencode-db" else writer.name), fmt
