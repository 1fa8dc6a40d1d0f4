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
