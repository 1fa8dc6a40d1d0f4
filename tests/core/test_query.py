"""The query language: terms, phrases, prefixes, OR, exclusions, filters, and clear errors."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sessionscope.core.search.query import QueryError, Term, parse

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


# -- hostile queries (issue 10, item 14) -----------------------------------------------------------
@pytest.mark.parametrize(("text", "reason", "column"), [
    ("since:99999999d", "'99999999d' reaches back before the year 1", 1),
    ("x since:" + "9" * 5000 + "d", "reaches back before the year 1", 3),  # past int()'s digit limit
    ("until:9999-12-31", "outside the dates that can be compared", 1),
    ("x since:0001-01-01T00:00:00+14:00", "outside the dates that can be compared", 3),
    ("\udcff", "not valid UTF-8", 1),  # `search $'\xff'`: argv decoded with surrogateescape
    ("ab \udcc3x", "not valid UTF-8", 4),
])
def test_hostile_dates_and_undecodable_bytes_are_query_errors(text: str, reason: str, column: int) -> None:
    with pytest.raises(QueryError) as info:
        parse(text, NOW)
    assert reason in info.value.reason and info.value.column == column
    assert len(str(info.value)) < 200  # a huge value is not echoed whole


def test_the_oldest_and_newest_dates_that_can_be_compared_still_parse() -> None:
    assert parse("x since:0001-01-02", NOW).since == datetime(1, 1, 2, tzinfo=timezone.utc)
    assert parse("x until:9999-12-30", NOW).until == datetime(9999, 12, 31, tzinfo=timezone.utc)
    assert parse("x since:700000d", NOW).since == NOW - timedelta(days=700000)


_ANY_CHAR = st.characters(exclude_categories=())  # surrogates included, as surrogateescape makes them
_PIECES = st.sampled_from(['"', "-", "*", ":", "OR", "Z", "T", "+14:00", "-12:00", "\udcff", "\0", "\u202e",
                           "\u200b", "é", "_", "/", "."])
_NUMBER = st.one_of(st.integers(0, 10**30).map(str), st.integers(4290, 4400).map(lambda n: "9" * n))
_DATE = st.one_of(st.dates().map(str), st.datetimes(timezones=st.timezones()).map(lambda d: d.isoformat()))
_VALUE = st.one_of(st.tuples(_NUMBER, st.sampled_from("hdwy ")).map("".join), _DATE,
                   st.text(_ANY_CHAR, max_size=8), st.sampled_from(["user", "tool_use", '"x y"', '"']))
_FILTER = st.tuples(st.sampled_from(["since", "until", "SINCE", "role", "kind", "agent", "project", "tool", "x"]),
                    _VALUE).map(lambda kv: f"{kv[0]}:{kv[1]}")
_CLAUSE = st.one_of(_FILTER, _PIECES, st.text(_ANY_CHAR, max_size=6), st.sampled_from(["OR", "-", '"a b"', "retry"]))


@settings(max_examples=500, deadline=None)
@given(st.one_of(st.text(_ANY_CHAR, max_size=60),
                 st.lists(_CLAUSE, max_size=6).flatmap(
                     lambda parts: st.sampled_from([" ", "", "  "]).map(lambda sep: sep.join(parts)))))
def test_nothing_but_a_query_error_escapes_the_parser(text: str) -> None:
    try:
        q = parse(text, NOW)
    except QueryError as exc:
        assert exc.column >= 1 and exc.reason
        return
    for ts in (q.since, q.until):
        if ts is not None:
            ts.astimezone(timezone.utc).timestamp()  # what the index does with it
