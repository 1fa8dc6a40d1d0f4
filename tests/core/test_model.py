"""core/model.py: timestamps as the readers parse them."""
from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from sessionscope.core.model import _parse_timestamp as _long_way, parse_timestamp


_USUAL = "2026-02-19T17:16:55.644Z"


def _same(value: Any) -> None:
    got, want = parse_timestamp(value), _long_way(value)
    assert got == want and (got is None or got.tzinfo == want.tzinfo), (value, got, want)


def test_the_usual_forms_parse() -> None:
    assert parse_timestamp(_USUAL) == datetime(2026, 2, 19, 17, 16, 55, 644000, tzinfo=timezone.utc)
    assert parse_timestamp(" " + _USUAL[1:]) is None
    for value in (_USUAL, _USUAL.replace("Z", "+"), "2026-02-19 17:16:55.644Z", "2026-02-19T17:16:55.6+1Z",
                  "2026-02-19T17:16:55-01:0Z", "2026-02-19T17:16Z55.644Z", "２026-02-19T17:16:55.644Z",
                  "2026-02-19T17:16:55.644", 1_771_521_415_644, "", None):
        _same(value)


# Strings of the fast path's shape (24 characters, `T` at 10, `Z` last), mostly near the usual
# form: digits and the separators a timestamp or an offset uses, spaces, letters, one non-ASCII.
_CHARS = st.sampled_from("0123456789-:.+TZz ,٣\u3000")


@given(st.lists(st.tuples(st.integers(0, 22), _CHARS), max_size=4))
def test_the_fast_path_gives_what_the_long_way_does(edits: list[tuple[int, str]]) -> None:
    chars = list(_USUAL)
    for at, char in edits:
        if at != 10:
            chars[at] = char
    _same("".join(chars))


@given(st.text(min_size=22, max_size=22))
def test_any_text_of_the_fast_paths_shape_gives_what_the_long_way_does(text: str) -> None:
    _same(text[:10] + "T" + text[10:] + "Z")
