"""Short human forms shared by the CLI and the app: ages, token counts, times, project names."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

from sessionscope.core.format import child_runs, count, human_tokens, project_name, relative_time, short_time

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=timezone.utc)


def test_relative_time_picks_the_largest_unit() -> None:
    assert relative_time(None, NOW) == "-"
    assert relative_time(NOW, NOW) == "just now"
    assert relative_time(NOW + timedelta(minutes=5), NOW) == "just now"  # clock skew: never "-5m"
    assert relative_time(NOW - timedelta(seconds=59), NOW) == "just now"
    assert relative_time(NOW - timedelta(minutes=5), NOW) == "5m ago"
    assert relative_time(NOW - timedelta(hours=3, minutes=59), NOW) == "3h ago"
    assert relative_time(NOW - timedelta(days=3), NOW) == "3d ago"
    assert relative_time(NOW - timedelta(days=65), NOW) == "2mo ago"
    assert relative_time(NOW - timedelta(days=800), NOW) == "2y ago"


def test_human_tokens() -> None:
    assert human_tokens(0) == "0"
    assert human_tokens(999) == "999"
    assert human_tokens(12_345) == "12.3k"
    assert human_tokens(4_100_000) == "4.1M"
    assert human_tokens(44_562_900_000) == "44.6B"  # (was "44562.9M")
    assert human_tokens(999_960) == "1.0M" and human_tokens(999_940) == "999.9k"
    assert human_tokens(3_200_000_000_000) == "3.2T"
    assert all(len(human_tokens(10 ** e + d)) <= 6 for e in range(15) for d in (-1, 0, 1))


def test_short_time_shrinks_with_distance_and_uses_nows_zone() -> None:
    assert short_time(None, NOW) == ""
    assert short_time(NOW - timedelta(hours=2), NOW) == "10:00"
    assert short_time(datetime(2026, 2, 14, 14, 22, tzinfo=timezone.utc), NOW) == "Feb 14 14:22"
    assert short_time(datetime(2025, 11, 3, 8, 0, tzinfo=timezone.utc), NOW) == "2025-11-03"
    plus2 = NOW.astimezone(timezone(timedelta(hours=2)))
    assert short_time(NOW - timedelta(hours=2), plus2) == "12:00"


def test_project_name_and_count() -> None:
    assert project_name("/home/dev/projects/payments-api/") == "payments-api"
    assert project_name("C:\\work\\infra") == "infra"
    assert project_name(None) == "" and project_name("") == ""
    assert project_name("/") == "/"
    assert count(1, "session") == "1 session"
    assert count(1234, "session") == "1,234 sessions"
    assert count(2, "entry", "entries") == "2 entries"


def test_child_runs_reads_as_english() -> None:
    assert child_runs({"exec": 1, "subagent": 6, "compaction": 1}) == "6 subagent runs, 1 compaction, 1 exec run"
    assert child_runs({"subagent": 1}) == "1 subagent run"
    assert child_runs({"compaction": 2, "warmup": 1}) == "2 compactions, 1 warm-up run"
    assert child_runs({"subagent": 1_234}) == "1,234 subagent runs"


def test_date_span_is_as_short_as_the_days_allow(monkeypatch) -> None:  # noqa: ANN001
    import time
    from datetime import datetime, timezone

    from sessionscope.core.format import date_span

    monkeypatch.setenv("TZ", "UTC")
    time.tzset()

    def t(*a: int) -> datetime:
        return datetime(*a, tzinfo=timezone.utc)

    assert date_span(t(2026, 11, 20, 9), t(2026, 11, 20, 23)) == "Fri 20 Nov 2026"
    assert date_span(t(2026, 11, 20, 23), t(2026, 11, 21, 1)) == "20–21 Nov 2026"
    assert date_span(t(2026, 11, 30), t(2026, 12, 2)) == "30 Nov – 2 Dec 2026"
    assert date_span(t(2025, 12, 31), t(2026, 1, 1)) == "31 Dec 2025 – 1 Jan 2026"
    assert date_span(None, t(2026, 11, 20)) == "Fri 20 Nov 2026" and date_span(None, None) == ""
    monkeypatch.setenv("TZ", "Pacific/Auckland")  # local days: 23:00 UTC is already tomorrow there
    time.tzset()
    try:
        assert date_span(t(2026, 11, 20, 9), t(2026, 11, 20, 23)) == "20–21 Nov 2026"
    finally:
        monkeypatch.setenv("TZ", "UTC")
        time.tzset()
