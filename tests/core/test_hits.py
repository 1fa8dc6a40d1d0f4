"""A hit's first match: the plain-substring shortcut (str.find on lower-cased ASCII text) finds
what the query's regex finds."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from sessionscope.core.search.hits import _first, _patterns, _plain_substring
from sessionscope.core.search.query import Query, Term

ascii_text = st.text(st.characters(min_codepoint=9, max_codepoint=126), max_size=300)


@settings(max_examples=300, deadline=None)
@given(text=ascii_text, needle=st.text(st.characters(min_codepoint=32, max_codepoint=126), min_size=1, max_size=6),
       at=st.integers(0, 300))
def test_the_shortcut_finds_what_the_regex_finds(text: str, needle: str, at: int) -> None:
    text = text[:at] + needle.swapcase() + text[at:]  # (present, in another case, most of the time)
    q = Query(must=[[Term(needle, "substring")]], source=needle)
    plain = _plain_substring(q)
    assert plain == needle.lower()
    assert _first(text, _patterns(q), plain) == _first(text, _patterns(q))


def test_the_shortcut_is_taken_only_for_one_ascii_substring() -> None:
    assert _plain_substring(Query(must=[[Term("über", "substring")]], source="über")) is None
    assert _plain_substring(Query(must=[[Term("a", "substring"), Term("b", "substring")]], source="a OR b")) is None
    assert _plain_substring(Query(must=[[Term("word", "word")]], source="word")) is None
    # Unicode text goes to the regex: IGNORECASE matches 'ſ' for 's', lower-casing does not.
    q = Query(must=[[Term("sx", "substring")]], source="sx")
    assert _first("ſx sx", _patterns(q), _plain_substring(q)) == (0, 2)


def test_a_preview_starts_at_a_whole_word() -> None:
    """The context before a match is cut to its room from the end: a word cut in two there is
    dropped (`eated successfully at:` showed half a word), and one long token cut is marked `…`."""
    from sessionscope.core.search.hits import window

    text = "The File created successfully at: /home/dev/projects/payments-api/payments/webhooks/policy.py and more"
    at = text.index("webhooks")
    for room in range(40, 120):
        preview = window(text, at, 8, room)
        head = preview.split("webhooks")[0]
        assert head == "" or head[0] == "…" or text.find(" " + head.split(" ")[0]) >= 0 or text.startswith(head), (room, preview)
    assert window(text, at, 8, 80).startswith("…/")
    assert window(text, at, 8, 200).startswith("successfully at: ")
