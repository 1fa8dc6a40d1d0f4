"""`sessionscope stats`: its JSON shape on the demo corpus, its text, bad input as one line, and
on the real-agent corpus every token the sessions report counted once."""
from __future__ import annotations

import json
from datetime import datetime, timezone
from pathlib import Path

import pytest
from helpers import CORPUS, NO_CORPUS, isolate

from sessionscope.cli.main import main
from sessionscope.core.demo import generate_demo

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=timezone.utc)
PERIOD = ["--since", "2026-10-22", "--until", "2026-11-20"]


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    corpus = generate_demo(tmp_path_factory.mktemp("demo"), now=NOW)
    return ["--root", str(corpus.claude_root), "--root", str(corpus.codex_root)]


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    isolate(tmp_path, monkeypatch)


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_stats_json_shape(capsys: pytest.CaptureFixture[str], demo: list[str]) -> None:
    out = run_json(capsys, "stats", *PERIOD, *demo)
    assert set(out) == {"period", "prices", "totals", "models", "unpriced_models", "projects", "agents", "days"}
    assert out["period"] == {"since": "2026-10-22", "until": "2026-11-20", "days": 30, "project": None, "agent": None}
    assert out["prices"].startswith("genai-prices ")
    totals = out["totals"]
    assert set(totals) == {"sessions", "messages", "tokens", "cost_usd", "unpriced_tokens", "undated_tokens"}
    assert set(totals["tokens"]) == {"input", "output", "cache_read", "cache_creation", "total"}
    assert totals["sessions"] > 0 and totals["messages"] > 0 and totals["cost_usd"] > 0
    assert [d["date"] for d in out["days"]][:2] == ["2026-10-22", "2026-10-23"] and len(out["days"]) == 30
    day = next(d for d in out["days"] if d["models"])
    assert set(day) == {"date", "sessions", "messages", "tokens", "cost_usd", "unpriced_tokens", "projects",
                        "agents", "models"}
    model, figures = next(iter(day["models"].items()))
    assert set(figures) == {"input", "output", "cache_read", "cache_creation", "total", "cost_usd"}
    assert set(out["models"][0]) == {"model", "priced_as", "tokens", "cost_usd"}
    assert set(out["projects"][0]) == {"project", "sessions", "messages"}
    assert set(out["agents"][0]) == {"agent", "sessions", "messages"}
    # The days add up to the totals.
    assert sum(d["messages"] for d in out["days"]) == totals["messages"]
    assert sum(d["tokens"]["total"] for d in out["days"]) == totals["tokens"]["total"]
    assert sum(d["cost_usd"] for d in out["days"]) == pytest.approx(totals["cost_usd"], abs=1e-4)
    # Filters narrow it.
    codex = run_json(capsys, "stats", *PERIOD, "--agent", "codex", *demo)
    assert [a["agent"] for a in codex["agents"]] == ["codex"] and codex["period"]["agent"] == "codex"
    assert 0 < codex["totals"]["messages"] < totals["messages"]
    assert all(m["model"].startswith("gpt") for m in codex["models"])


def test_stats_text(capsys: pytest.CaptureFixture[str], demo: list[str]) -> None:
    assert main(["stats", *PERIOD, *demo]) == 0
    out = capsys.readouterr().out
    assert out.startswith("2026-10-22 to 2026-11-20 (30 days): ")
    for head in ("DAY", "MODEL", "PROJECT", "AGENT", "prices: genai-prices"):
        assert head in out
    assert main(["stats", "--since", "2000-01-01", "--until", "2000-01-02", *demo]) == 0
    assert "no activity in this period" in capsys.readouterr().out


@pytest.mark.parametrize("argv, says", [
    (["--since", "yesterday"], "--since 'yesterday': give an ISO date"),
    (["--until", "soon"], "--until 'soon': give an ISO date"),
    (["--since", "2026-11-02", "--until", "2026-11-01"], "is after --until"),
    (["--days", "0"], "--days: must be between 1 and 36500"),
    (["--days", "3", "--since", "7d"], "not allowed with argument"),
])
def test_stats_bad_input_is_one_line(capsys: pytest.CaptureFixture[str], demo: list[str], argv: list[str],
                                     says: str) -> None:
    assert main(["stats", *argv, *demo]) == 2
    err = capsys.readouterr().err
    assert says in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


@pytest.mark.skipif(not CORPUS.is_dir(), reason=NO_CORPUS)
def test_every_token_of_the_real_corpus_is_counted_once(capsys: pytest.CaptureFixture[str]) -> None:
    root = ["--root", str(CORPUS)]
    listed = run_json(capsys, "sessions", "--all", "--limit", "500", *root)["sessions"]
    assert any(s.get("depth") for s in listed)
    reported = sum(s["tokens"]["total"] for s in listed)  # (--all: children listed too, with their depth)
    stats = run_json(capsys, "stats", "--since", "2020-01-01", "--until", "2030-12-31", *root)
    assert reported > 1_000_000
    assert stats["totals"]["tokens"]["total"] + stats["totals"]["undated_tokens"] == reported
    assert stats["totals"]["cost_usd"] > 0 and stats["unpriced_models"] == sorted(
        stats["unpriced_models"], key=[m["model"] for m in stats["models"]].index)
