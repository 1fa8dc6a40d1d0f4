"""The query language: terms, phrases, prefixes, OR, exclusions, filters, and clear errors."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from sessionscope.core.query import QueryError, Term, parse

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc)


def test_words_are_anded() -> None:
    q = parse("retry flaky")
    assert q.must == [[Term("retry", "word")], [Term("flaky", "word")]]


def test_phrase_prefix_and_exclusion() -> None:
    q = parse('"connection refused" migrat* -test')
    assert q.must == [[Term("connection refused", "phrase")], [Term("migrat*", "prefix")]]
    assert q.must_not == [Term("test", "word")]


def test_or_joins_neighbours() -> None:
    q = parse("postgres OR sqlite migration")
    assert q.must == [[Term("postgres", "word"), Term("sqlite", "word")], [Term("migration", "word")]]


@pytest.mark.parametrize("text", ["ssionSco", "core/jsonl.py", "snake_case", "foo.bar", "a-b", "~/.claude"])
def test_non_words_are_substrings(text: str) -> None:
    assert parse(text).must == [[Term(text, "substring")]]


def test_filters_and_relative_dates() -> None:
    q = parse("agent:codex project:payments role:user kind:tool_use tool:Bash session:019a branch:main since:7d", NOW)
    assert q.filters == {
        "agent": ["codex"], "project": ["payments"], "role": ["user"], "kind": ["tool_use"],
        "tool": ["Bash"], "session": ["019a"], "branch": ["main"],
    }
    assert q.since == NOW - timedelta(days=7)
    assert not q.has_text


def test_until_a_date_includes_that_day() -> None:
    q = parse("x until:2026-11-01", NOW)
    assert q.until == datetime(2026, 11, 2, tzinfo=timezone.utc)


def test_quoted_filter_value() -> None:
    assert parse('project:"my proj" x').filters == {"project": ["my proj"]}


@pytest.mark.parametrize(
    ("text", "reason", "column"),
    [
        ('"abc', "unclosed quote", 1),
        ("OR x", "OR needs a term on its left", 1),
        ("x OR", "OR needs a term on its right", 4),
        ("-x", "at least one term", 1),
        ("x - y", "'-' must be followed", 3),
        ("x since:yesterday", "cannot read 'yesterday' as a date", 3),
        ("x colour:red", "unknown filter colour:", 3),
        ("x agent:", "needs a value", 3),
        ("", "empty", 1),
        ("since:2w until:3w", "since: is not before until:", 1),
        ("x role:usr", "unknown role 'usr' (roles are user, assistant, system, tool)", 3),
        ("x kind:tool-use", "unknown kind 'tool-use' (kinds are text, thinking, tool_use,", 3),
        ('x role:"user x"', "unknown role 'user x'", 3),
    ],
)
def test_errors_say_what_and_where(text: str, reason: str, column: int) -> None:
    with pytest.raises(QueryError) as info:
        parse(text, NOW)
    assert reason in info.value.reason
    assert info.value.column == column
    assert f"column {column}" in str(info.value)


def test_urls_are_not_filters() -> None:
    assert parse("https://example.com/x").must == [[Term("https://example.com/x", "substring")]]


def test_role_and_kind_values_in_any_case() -> None:
    q = parse("role:User kind:TOOL_USE x", NOW)
    assert q.filters == {"role": ["User"], "kind": ["TOOL_USE"]}  # the index compares lowercased
