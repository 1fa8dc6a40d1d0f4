"""How an entry's text becomes the index's terms: the tokenizer's words, the pairs of common
words (the `pairs` field), the three-character stems (`stems`) and the English stems (`stemmed`).

The writer (core/search/ingest.py) makes a document's fields with these, query compilation
(core/search/compile.py) and the Python-side matching (core/search/matching.py) ask for the same
terms, so the three agree on what a word is.
"""
from __future__ import annotations

import re
from functools import lru_cache
from itertools import compress
from operator import and_, itemgetter
from typing import Any, Callable

from ..model import Entry, EntryKind

SEARCHABLE = {
    EntryKind.TEXT, EntryKind.THINKING, EntryKind.TOOL_USE, EntryKind.TOOL_RESULT,
    EntryKind.SUMMARY, EntryKind.COMPACTION, EntryKind.SYSTEM, EntryKind.META, EntryKind.UNKNOWN,
}


def searchable_text(e: Entry, tool_result_cap: int | None = None) -> str:
    """What of an entry is searched: its text; for a tool call its name and the raw values of
    its input (not their JSON, so quotes and backslashes match as typed); a tool result only up to
    `tool_result_cap` characters (tool output dominates transcripts)."""
    if e.kind is EntryKind.TOOL_USE:
        body = _flatten(e.tool_input) if e.tool_input is not None else e.text
        return "\n".join(p for p in (e.tool_name or "", body) if p)
    if e.kind is EntryKind.TOOL_RESULT and tool_result_cap is not None:
        return e.text[:tool_result_cap]
    return e.text


def _flatten(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return "\n".join(_flatten(v) for v in value.values())
    if isinstance(value, list):
        return "\n".join(_flatten(v) for v in value)
    return "" if value is None else str(value)


ALNUM = re.compile(r"[^\W_]+")  # what tantivy's simple tokenizer keeps (alphanumeric runs)
# Common words, whose pairs the `pairs` field holds (see `SearchIndex._phrase`): English function
# words and the commonest words of code and of agent transcripts. A phrase of two such words is
# the slow one (both posting lists are long); a phrase with any other word starts from that word's
# shorter list. The list shapes the documents: the index's settings hold its hash (a change rebuilds).
COMMON_WORDS = frozenset("""
a about above after again against all also am an and any are as at be because been before
being below between both but by can could d did do does doing don done down during each either
else even every few for from further had has have having he her here hers him his how i if in
into is isn it its itself just ll m may me might more most much must my no nor not now of off
on once one only or other our ours out over own re s same shall she should so some such t than
that the their them then there these they this those through to too under until up upon us ve
very was we were what when where which while who whom why will with would you your
add args array assert async await bash bool build call case catch cd check class cli code
command config const content def default dict dir echo edit elif end err error errors except
export false file files fix fn func function get git id import index input int json key let
lib line lines list log main name new nil none npm null number object ok output path pip print
public py python raise read result return run self set src str string test tests text todo
tool true try type undefined update use user value var void write yes
""".split())
_COMMON_BYTES = frozenset(w.encode() for w in COMMON_WORDS)
# ASCII text to its words, lowercased, separated by spaces (what tantivy's simple tokenizer and
# lowercaser make of ASCII): one bytes.translate, then split.
_ASCII_WORDS = bytes(
    (c | 0x20 if chr(c).isalpha() else c) if c < 128 and chr(c).isalnum() else 32 for c in range(256)
)

STEM = 3  # characters of a term in the `stems` field
_STEM_OF = itemgetter(slice(0, STEM))
_ALNUM_BYTES = [bytes([c]) for c in b"abcdefghijklmnopqrstuvwxyz0123456789"]
_SHORT_BYTES = frozenset(_ALNUM_BYTES + [a + b for a in _ALNUM_BYTES for b in _ALNUM_BYTES])


@lru_cache(maxsize=1)
def stemming_analyzer() -> Any:
    """The `stemmed` field's analyzer: `text`'s words, lowercased, by their English (Snowball) stem."""
    import tantivy as t

    return t.TextAnalyzerBuilder(t.Tokenizer.simple()).filter(t.Filter.lowercase()).filter(
        t.Filter.stemmer("english")).build()


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A word's English stem, as the `stemmed` field holds it ("" for no word)."""
    out = stemming_analyzer().analyze(word)
    return out[0] if len(out) == 1 else ""


def pairs_and_stems(text: str, words: Callable[[str], list[str]], seen: set[Any] | None = None) -> tuple[str, str]:
    """The `pairs` and `stems` fields of `text`; its words are added to `seen` when given (bytes
    for ASCII text, str otherwise: the writer's list of new terms, see vocabulary.py).

    pairs: each two adjacent words of it that are both common, joined by "_", separated by spaces
    ("this_that that_is"). stems: the first STEM characters of each of its words of at least STEM
    characters, once each (a prefix query shorter than STEM uses the regex).

    The words must be exactly the terms of the `text` field, or a phrase or prefix could miss a
    document. For ASCII text they are its runs of letters and digits, lowercased: a translate and
    a split, the pairs picked and the stems cut by C-level iteration (no Python code runs per
    word). Other text is split by the `text` field's own analyzer (`words`), whatever Python's
    idea of a letter or of lowercase is."""
    if text.isascii():
        toks: list[Any] = text.encode().translate(_ASCII_WORDS).split()
        common: frozenset[Any] = _COMMON_BYTES
        under, space = b"_", b" "
    else:
        toks, common, under, space = words(text), COMMON_WORDS, "_", " "
    if seen is not None:
        seen.update(toks)
    flags = list(map(common.__contains__, toks))
    pairs = space.join(map(under.join, compress(zip(toks, toks[1:]), map(and_, flags, flags[1:]))))
    cut = set(map(_STEM_OF, toks))
    if space == b" ":
        cut -= _SHORT_BYTES  # (C-level: words shorter than STEM are never asked for as stems)
    else:
        cut = {t for t in cut if len(t) == STEM}
    stems = space.join(cut)
    if isinstance(pairs, bytes):
        return pairs.decode(), stems.decode()
    return pairs, stems


def common_pairs(text: str, words: Callable[[str], list[str]]) -> str:
    """The `pairs` field of `text` (see `pairs_and_stems`)."""
    return pairs_and_stems(text, words)[0]
