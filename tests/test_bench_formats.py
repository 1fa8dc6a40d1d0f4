"""bench/bench_formats.py on a tiny configuration: every format's generated files are recognised
by its adapter and measured, Claude Code's and Codex's beside the others."""
from __future__ import annotations

import json
import subprocess
import sys

from helpers import ROOT


def test_tiny_run_measures_every_format(tmp_path) -> None:  # noqa: ANN001
    out = subprocess.run([sys.executable, str(ROOT / "bench" / "bench_formats.py"), "--files", "3", "--file-kb", "8",
                          "--rounds", "1", "--json"],
                         capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    formats = json.loads(out.stdout)["formats"]
    sys.path.insert(0, str(ROOT / "bench"))
    from gen_formats import FORMATS

    assert list(formats) == ["claude-code", "codex", *FORMATS]
    for name, r in formats.items():  # (OpenCode's database is one file holding every session)
        assert r["files"] == (1 if "sqlite" in name else 3) and r["entries"] > 0 and r["parse_mb_s"] > 0, name
        # the floor: the read and the lines the listing parsed (none for a JSON document, whose
        # parse the read already holds; some for the JSON lines formats)
        assert r["floor_x_two_ends"] >= 1.0, name
        assert (r["parsed_kb_file"] > 0) == (name in ("claude-code", "codex", "copilot-cli", "pi", "gemini-cli (jsonl)",
                                                      "opencode (sqlite)")), name


def test_a_tiny_run_measures_the_transcripts_of_a_folder_by_format() -> None:
    """`--real DIR`: the files under DIR some sniffer takes, a row per format (here the project's
    own fixtures: several formats, some files not transcripts at all)."""
    out = subprocess.run([sys.executable, str(ROOT / "bench" / "bench_formats.py"), "--files", "2", "--file-kb", "4",
                          "--rounds", "1", "--json", "--real", str(ROOT / "tests" / "data")],
                         capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    real = json.loads(out.stdout)["real"]
    assert {"claude-code", "copilot-cli", "pi", "aider"} <= set(real), sorted(real)
    for name, r in real.items():
        assert r["files"] >= 1 and r["list_x_two_ends"] > 0 and r["floor_x_two_ends"] >= 1.0, name
    missing = subprocess.run([sys.executable, str(ROOT / "bench" / "bench_formats.py"), "--real", str(ROOT / "nowhere")],
                             capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert missing.returncode == 2 and "not a folder" in missing.stderr


def _hostile_bench_rows(script: str) -> list[dict]:
    out = subprocess.run([sys.executable, str(ROOT / "bench" / script), "--n", "50", "--rounds", "1", "--json"],
                         capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    rows = json.loads(out.stdout)["rows"]
    assert all(r["big_ms"] > 0 and r["growth_4x"] > 0 and r["x_prose"] > 0 for r in rows)
    sys.path.insert(0, str(ROOT / "bench"))
    return rows


def test_the_hostile_masking_bench_reports_growth_for_each_unit() -> None:
    rows = _hostile_bench_rows("bench_mask_hostile.py")
    from bench_mask_hostile import UNITS

    assert [r["unit"] for r in rows] == list(UNITS)


def test_the_hostile_text_bench_reports_growth_for_each_row() -> None:
    rows = _hostile_bench_rows("bench_text_hostile.py")
    from bench_text_hostile import ROWS

    assert [r["row"] for r in rows] == [name for name, *_ in ROWS]


def test_a_sample_out_of_its_agents_folders_is_measured_from_a_copy_laid_out_so(tmp_path) -> None:  # noqa: ANN001
    """`--real`: a listing takes a format's own lane only for a file where its agent keeps it (its
    path names the format); a sample in a flat folder is measured from a copy laid out so, a
    Claude Code subagent's under its parent session's folder, named by its own id."""
    sys.path.insert(0, str(ROOT / "bench"))
    from bench_formats import laid_out

    from sessionscope.core.read.adapters import default_registry

    registry = default_registry()
    flat = tmp_path / "flat"
    flat.mkdir()
    data = ROOT / "tests" / "data"
    sub = data / "subagents" / "nested" / "-work-demo" / "0a1b2c3d-0000-4000-8000-000000000003"
    samples = {"main": data / "claude_odd" / "-work-demo" / "0a1b2c3d-0000-4000-8000-0000000000f1.jsonl",
               "sub": sub / "subagents" / "agent-a11b22c.jsonl",
               "pi": data / "pi" / "2025-06-01T10-00-00-000Z_0a1b2c3d-0000-4000-8000-000000000001.jsonl"}
    out = tmp_path / "home"
    placed = {}
    for key, sample in samples.items():
        copy = flat / f"repo__{key}__{sample.name}"
        copy.write_bytes(sample.read_bytes())
        adapter = registry.sniff(str(copy))
        assert registry.likely(str(copy)) is None  # (a flat name: no lane)
        placed[key] = laid_out(copy, adapter, registry, out)
        assert registry.likely(str(placed[key])) is adapter, key
        assert placed[key].read_bytes() == sample.read_bytes()
    assert placed["main"] == out / "claude/projects/-real" / f"repo__main__{samples['main'].stem}.jsonl"
    assert placed["sub"] == out / "claude/projects/-real" / sub.name / "subagents" / "agent-a11b22c.jsonl"
    again = laid_out(flat / f"repo__main__{samples['main'].name}", registry.sniff(str(placed["main"])), registry, out)
    assert again != placed["main"] and again.parent == placed["main"].parent  # (one name twice: both kept)
    # a file already where its agent keeps it is measured where it is
    kept = data / "copilot" / "session-state" / "5d2c8e1a-4b7f-4c3e-9a10-6f2e8d9c0b11" / "events.jsonl"
    assert laid_out(kept, registry.sniff(str(kept)), registry, out) == kept
