"""The bench corpus generator (bench/gen_corpus.py) on a tiny configuration."""
from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest
from helpers import ROOT

MB = 1024 * 1024
TINY = dict(files=10, size_mb=2, big_mb=0.5, long_line_mb=0.25, long_lines=1, codex_share=0.3,
            seed=3)


@pytest.fixture(scope="module")
def gen():
    spec = importlib.util.spec_from_file_location("gen_corpus", ROOT / "bench" / "gen_corpus.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["gen_corpus"] = module
    spec.loader.exec_module(module)
    return module


def test_tiny_corpus_is_parseable_and_roughly_sized(gen, tmp_path: Path) -> None:
    c = gen.generate(tmp_path / "c", **TINY)
    assert not c.reused
    assert len(c.paths) == 10 and len(set(c.paths)) == 10
    assert c.total_bytes == sum(p.stat().st_size for p in c.paths)
    assert 0.9 * 2 * MB <= c.total_bytes <= 1.2 * 2 * MB
    assert c.big == c.paths[0] and 0.45 * MB <= c.big.stat().st_size <= 0.6 * MB
    longest = 0
    kinds = set()
    for path in c.paths:
        lines = path.read_bytes().split(b"\n")
        assert lines[-1] == b""
        for line in lines[:-1]:
            value = json.loads(line)
            assert isinstance(value, dict)
            longest = max(longest, len(line))
        first = json.loads(lines[0])
        if path.is_relative_to(c.codex_root):
            kinds.add("codex")
            assert first["type"] == "session_meta"
            assert path.name.endswith(first["payload"]["id"] + ".jsonl")
            assert path.parent.parent.parent.parent.name == "sessions"
        else:
            kinds.add("claude")
            assert first["sessionId"] in path.as_posix()
    assert kinds == {"claude", "codex"}
    assert longest >= 0.1 * MB  # the multi-MB line, scaled down


def test_record_mix(gen, tmp_path: Path) -> None:
    c = gen.generate(tmp_path / "c", **TINY)
    ids: dict[str, int] = {}
    types: set[str] = set()
    for line in c.big.read_bytes().splitlines():
        rec = json.loads(line)
        types.add(rec["type"])
        if rec["type"] == "assistant":
            ids[rec["message"]["id"]] = ids.get(rec["message"]["id"], 0) + 1
    assert {"user", "assistant", "progress", "file-history-snapshot", "system"} <= types
    assert max(ids.values()) >= 2  # split replies


def test_cache_reuse_and_invalidation(gen, tmp_path: Path) -> None:
    out = tmp_path / "c"
    a = gen.generate(out, **TINY)
    b = gen.generate(out, **TINY)
    assert b.reused and b.paths == a.paths and b.total_bytes == a.total_bytes
    # a damaged file invalidates the cache
    a.paths[3].write_bytes(b"{}\n")
    c = gen.generate(out, **TINY)
    assert not c.reused and c.paths[3].stat().st_size == a.manifest["files"][3]["size"]
    # other parameters regenerate, and leave no stale files behind
    d = gen.generate(out, **dict(TINY, files=6, seed=4))
    assert not d.reused and len(d.paths) == 6
    assert sorted(p for p in out.rglob("*.jsonl")) == sorted(d.paths)


def test_refuses_foreign_directory(gen, tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(SystemExit):
        gen.generate(tmp_path, **TINY)
    assert (tmp_path / "notes.txt").read_text() == "mine"


def test_the_big_transcript_can_be_a_codex_rollout(gen, tmp_path: Path) -> None:
    """`--big-kind codex`: issue 15's 1 GB single transcript in Codex's format too."""
    from sessionscope.core.read.adapters import default_registry

    c = gen.generate(tmp_path / "c", files=1, size_mb=0.3, big_mb=0.3, long_line_mb=0, big_kind="codex")
    assert c.big is not None and c.big.is_relative_to(c.codex_root)
    assert c.big.name.startswith("rollout-") and 0.25 * MB <= c.big.stat().st_size <= 0.4 * MB
    adapter = default_registry().sniff(str(c.big))
    assert adapter is not None and adapter.name == "codex"
    assert adapter.load(str(c.big))[0].session.entry_count > 50
    again = gen.generate(tmp_path / "c", files=1, size_mb=0.3, big_mb=0.3, long_line_mb=0, big_kind="codex")
    assert again.reused
    claude = gen.generate(tmp_path / "d", files=1, size_mb=0.3, big_mb=0.3, long_line_mb=0)
    assert "big_kind" not in claude.manifest["params"]  # (corpora cached before the option stay valid)
