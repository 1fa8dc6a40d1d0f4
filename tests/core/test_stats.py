"""The usage pictures' figures (core/stats over core/catalog/activity.py): messages and tokens
placed on the local day they happened, models the price table has not left unpriced (counted,
never guessed), sessions without usage, and the catalog's activity kept in step with its files."""
from __future__ import annotations

import json
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from sessionscope.core.catalog.library import Library
from sessionscope.core.catalog.store import Catalog
from sessionscope.core.read.discovery import Root
from sessionscope.core.stats import prices
from sessionscope.core.stats.aggregate import NO_MODEL, compute, parse_since

KOLKATA = ZoneInfo("Asia/Kolkata")  # UTC+05:30: a day boundary at 18:30 UTC, on a half hour
KNOWN = "claude-sonnet-4-5-20250929"
PRIVATE = "acme-private-model-7"  # in no price table


def _claude(path: Path, sid: str, turns: list[tuple[str, str | None, dict | None]], cwd: str = "/p/alpha") -> None:
    """A Claude Code transcript: for each (UTC time, model, usage) a user prompt, then a reply by
    that model with that usage (no usage: none reported)."""
    lines, parent = [], None
    for n, (ts, model, usage) in enumerate(turns):
        user = {"type": "user", "uuid": f"u{n}", "parentUuid": parent, "sessionId": sid, "timestamp": ts,
                "cwd": cwd, "message": {"role": "user", "content": f"question {n}"}}
        message = {"id": f"msg_{n}", "role": "assistant", "content": [{"type": "text", "text": f"answer {n}"}]}
        if model:
            message["model"] = model
        if usage:
            message["usage"] = usage
        reply = {"type": "assistant", "uuid": f"a{n}", "parentUuid": f"u{n}", "sessionId": sid, "timestamp": ts,
                 "cwd": cwd, "requestId": f"req_{n}", "message": message}
        lines += [user, reply]
        parent = f"a{n}"
    path.write_text("".join(json.dumps(x) + "\n" for x in lines))


def _usage(i: int, o: int, r: int = 0, w: int = 0) -> dict:
    return {"input_tokens": i, "output_tokens": o, "cache_read_input_tokens": r, "cache_creation_input_tokens": w}


def _library(tmp_path: Path, root: Path) -> Library:
    lib = Library([Root(str(root), "--root", explicit=True)], catalog=Catalog(tmp_path / "catalog.sqlite"))
    lib.scan()
    return lib


def _stats(lib: Library, **kw):  # noqa: ANN202
    return compute(lib.all_sessions(), lib.catalog.activity(), **kw)


def test_tokens_and_messages_fall_on_the_local_day_they_happened(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    # 18:29 UTC is 23:59 in Kolkata (Nov 10), 18:30 UTC is 00:00 there (Nov 11); in UTC both Nov 10.
    _claude(root / "s1.jsonl", "s1", [("2026-11-10T18:29:00Z", KNOWN, _usage(100, 10)),
                                      ("2026-11-10T18:30:00Z", KNOWN, _usage(200, 20))])
    lib = _library(tmp_path, root)
    kolkata = _stats(lib, since=date(2026, 11, 9), until=date(2026, 11, 12), tz=KOLKATA)
    days = {d.day: d for d in kolkata.days}
    assert [d.day for d in kolkata.days] == [date(2026, 11, 9) + timedelta(n) for n in range(4)]  # empty days too
    assert days[date(2026, 11, 10)].tokens.input == 100 and days[date(2026, 11, 11)].tokens.input == 200
    assert days[date(2026, 11, 10)].messages == 2 and days[date(2026, 11, 11)].messages == 2
    assert len(days[date(2026, 11, 10)].sessions) == len(days[date(2026, 11, 11)].sessions) == 1
    assert kolkata.sessions == 1 and kolkata.messages == 4
    utc = _stats(lib, since=date(2026, 11, 10), until=date(2026, 11, 11), tz=timezone.utc)
    assert utc.days[0].tokens.input == 300 and utc.days[1].tokens.total == 0
    # Outside the period: left out of every figure.
    assert _stats(lib, since=date(2026, 11, 11), until=date(2026, 11, 11), tz=KOLKATA).tokens.input == 200


def test_a_model_the_table_lacks_is_counted_unpriced_never_guessed(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    _claude(root / "s1.jsonl", "s1", [("2026-11-10T09:00:00Z", KNOWN, _usage(1000, 500, 20000, 3000)),
                                      ("2026-11-10T10:00:00Z", PRIVATE, _usage(7000, 700))])
    stats = _stats(_library(tmp_path, root), since=date(2026, 11, 10), until=date(2026, 11, 10), tz=timezone.utc)
    by_model = {m: (u, c) for m, u, c in stats.by_model()}
    assert by_model[PRIVATE][0].total == 7700 and by_model[PRIVATE][1] is None
    assert stats.unpriced() == [(PRIVATE, 7700)] and stats.days[0].unpriced_tokens == 7700
    assert prices.priced_as(PRIVATE) is None
    # The known model is priced from genai-prices' table, checked against its own calculation
    # of one request of that size (our input is uncached input; theirs counts the cached too).
    from genai_prices import Usage, calc_price

    theirs = calc_price(Usage(input_tokens=1000 + 20000 + 3000, output_tokens=500, cache_read_tokens=20000,
                              cache_write_tokens=3000), KNOWN,
                        genai_request_timestamp=datetime(2026, 11, 10, 12, tzinfo=timezone.utc)).total_price
    assert by_model[KNOWN][1] == pytest.approx(float(theirs)) and float(theirs) > 0
    assert stats.cost == pytest.approx(float(theirs))  # the unpriced model adds nothing
    out = stats.to_dict()
    assert out["unpriced_models"] == [PRIVATE] and out["totals"]["unpriced_tokens"] == 7700
    assert {m["model"]: m["cost_usd"] for m in out["models"]}[PRIVATE] is None


def test_a_session_without_usage_counts_its_messages_and_no_tokens(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    _claude(root / "s1.jsonl", "s1", [("2026-11-10T09:00:00Z", None, None), ("2026-11-10T09:05:00Z", KNOWN, None)])
    stats = _stats(_library(tmp_path, root), since=date(2026, 11, 10), until=date(2026, 11, 10), tz=timezone.utc)
    assert stats.messages == 4 and stats.sessions == 1
    assert stats.tokens.total == 0 and stats.by_model() == [] and stats.cost == 0 and stats.unpriced() == []


def test_usage_reported_for_the_whole_session_is_placed_at_its_end(tmp_path: Path) -> None:
    """A format that gives tokens only per session (session-logs' header): at the session's last
    time, by its one model; with no model said, as tokens of no recorded model (unpriced)."""
    root = tmp_path / "root"
    root.mkdir()
    for sid, model, day in (("with-model", KNOWN, "11"), ("no-model", None, "12")):
        header = {"session_id": sid, "agent_id": "agent-x", "started_at": f"2026-11-{day}T23:00:00Z",
                  "project": "/p/beta", "tokens": {"input": 50, "output": 5}, **({"model": model} if model else {})}
        entries = [{"role": "user", "content": "hi", "id": "e1", "timestamp": f"2026-11-{day}T23:00:00Z"},
                   {"role": "assistant", "content": "late", "id": "e2", "timestamp": f"2026-11-{day}T23:50:00Z"}]
        (root / f"{sid}.jsonl").write_text("".join(json.dumps(x) + "\n" for x in [header, *entries]))
    lib = _library(tmp_path, root)
    stats = _stats(lib, since=date(2026, 11, 11), until=date(2026, 11, 13), tz=KOLKATA)
    d11, d12, d13 = stats.days
    assert d11.tokens.total == 0 and d12.models == {KNOWN: d12.models[KNOWN]} and d12.models[KNOWN].total == 55
    assert NO_MODEL in d13.models and d13.models[NO_MODEL].total == 55 and d13.unpriced_tokens == 55
    assert stats.by("agents") == [("agent-x", 2, 4)]


def test_the_catalog_keeps_activity_in_step_with_the_files(tmp_path: Path) -> None:
    """Re-read, grown (read on from where it stopped) and deleted files: the activity is what a
    whole read of the files as they are gives."""
    root = tmp_path / "root"
    root.mkdir()
    header = {"session_id": "grows", "agent_id": "agent-x", "started_at": "2026-11-10T09:00:00Z",
              "project": "/p/beta"}
    grows = root / "grows.jsonl"
    grows.write_text(json.dumps(header) + "\n" + json.dumps(
        {"role": "user", "content": "one", "id": "e1", "timestamp": "2026-11-10T09:00:00Z"}) + "\n")
    _claude(root / "gone.jsonl", "gone", [("2026-11-10T09:00:00Z", KNOWN, _usage(1, 1))])
    _claude(root / "changed.jsonl", "changed", [("2026-11-10T09:00:00Z", KNOWN, _usage(1, 1))])
    lib = _library(tmp_path, root)
    with grows.open("a") as fh:
        for n in (2, 3):
            fh.write(json.dumps({"role": "assistant", "content": f"more {n}", "id": f"e{n}",
                                 "timestamp": f"2026-11-11T09:0{n}:00Z"}) + "\n")
    (root / "gone.jsonl").unlink()
    _claude(root / "changed.jsonl", "changed", [("2026-11-10T09:00:00Z", KNOWN, _usage(5, 5)),
                                                ("2026-11-10T10:00:00Z", KNOWN, _usage(5, 5))])
    report = lib.scan()
    assert report.reread == 2 and report.removed == 1
    assert all(row.activity is None for row in lib.rows.values())  # stored, not held with the rows
    assert lib.catalog.get(str(grows)).read_end > 0  # (read on, not whole)
    fresh = _library(tmp_path / "fresh", root)
    assert sorted(lib.catalog.activity()) == sorted(fresh.catalog.activity())
    stats = _stats(lib, since=date(2026, 11, 10), until=date(2026, 11, 11), tz=timezone.utc)
    assert [d.messages for d in stats.days] == [1 + 4, 2] and stats.tokens.total == 20
    assert lib.scan().reread == 0 and sorted(lib.catalog.activity()) == sorted(fresh.catalog.activity())


def test_a_subagent_counts_its_tokens_under_its_parent_session(tmp_path: Path) -> None:
    root = tmp_path / "root"
    root.mkdir()
    header = {"session_id": "main-1", "agent_id": "agent-x", "started_at": "2026-11-10T09:00:00Z", "project": "/p"}
    child = {"session_id": "main-1/sub", "agent_id": "agent-x", "kind": "subagent", "parent_session_id": "main-1",
             "started_at": "2026-11-10T09:05:00Z", "project": "/p", "model": KNOWN, "tokens": {"input": 9}}
    for name, h in (("main", header), ("sub", child)):
        (root / f"{name}.jsonl").write_text(json.dumps(h) + "\n" + json.dumps(
            {"role": "user", "content": "go", "id": "e1", "timestamp": h["started_at"]}) + "\n")
    stats = _stats(_library(tmp_path, root), since=date(2026, 11, 10), until=date(2026, 11, 10), tz=timezone.utc)
    assert stats.sessions == 1 and stats.messages == 2 and stats.tokens.input == 9


def test_since_takes_an_iso_date_or_an_age() -> None:
    today = date(2026, 11, 20)
    assert parse_since("2026-11-01", today) == date(2026, 11, 1)
    assert parse_since("7d", today) == date(2026, 11, 14) and parse_since("2w", today) == date(2026, 11, 7)
    for bad in ("yesterday", "0d", "2026-13-01", ""):
        with pytest.raises(ValueError, match="--since"):
            parse_since(bad, today)


def test_a_provider_prefixed_name_is_priced_as_its_model() -> None:
    """Aider (LiteLLM) writes `provider/model`: priced as that provider's model, not left unpriced;
    a name no split of which is in the table stays unpriced."""
    assert prices.priced_as("anthropic/claude-sonnet-4") == prices.priced_as("claude-sonnet-4") is not None
    assert prices.priced_as("anthropic/claude-sonnet-4").startswith("anthropic/")
    assert prices.priced_as(f"anthropic/{PRIVATE}") is None
