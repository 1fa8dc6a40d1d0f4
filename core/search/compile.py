"""A parsed query (core/search/query.py) compiled into tantivy's: words with their English stems,
phrases led by their pairs of common words, prefixes by their stems, substrings by the terms of
the vocabulary (vocabulary.py) that hold their pieces, filters and the time range.

`QueryCompiler` is one of the parts `SearchIndex` (core/search/index.py) is made of; its methods
use the index's tantivy module (`_t`) and `schema`.
"""
from __future__ import annotations

from typing import Any, Callable

from .query import Query, Term
from .schema import ts_ms
from .terms import ALNUM, COMMON_WORDS, STEM, stem
from .vocabulary import Vocabulary, listed, load, opstamp


#: up to this many terms, a substring's candidates are asked as a union of term queries rather
#: than tantivy's term set (which reads every posting into a bit set first): newest first at 1 GB,
#: 2-200 terms took 15-35% less; from ~250 terms on the term set is faster (3,600 terms: 2.8x).
#: (Substring hits are confirmed and ordered by time: the score of either is not used.)
SMALL_TERM_SET = 128


def _rx(text: str) -> str:
    """`text` as a literal in tantivy's (Rust) regex syntax. Any other character by its code point:
    Rust refuses a backslash before a character that is not ASCII punctuation (`\\‮`, `\\é`)."""
    return "".join(c if c.isalnum() else f"\\x{{{ord(c):x}}}" for c in text)


def unscored(q: Query) -> bool:
    """True when BM25 cannot tell the hits apart: every text term is a prefix (a regex query
    gives each match the same score)."""
    return bool(q.must) and all(t.kind == "prefix" for alts in q.must for t in alts)


class QueryCompiler:
    """Query -> tantivy query, against the index's schema and vocabulary."""

    def _vocabulary(self, generation: int, searcher: Any) -> Vocabulary:
        """Every term of the `text` field, for this generation.

        Why: a substring's candidates are the documents holding a term that contains it. Asking
        tantivy with a regex (`.*frag.*`) walks the whole term dictionary of every segment per
        query (~25 ms on 1 GB); finding the matching ones in the list of terms takes a
        millisecond or two per query, for the same set. The list is the one the writer stored at
        its last commit (vocabulary.py: read in milliseconds), else listed from the index (~0.15 s
        at 1 GB), and kept for this generation."""
        cached = self._vocab
        if cached is not None and cached[0] == generation:
            return cached[1]
        vocab = stamp = None
        if self.directory is not None:
            stamp = opstamp(self.directory)  # (read after the searcher: never older than it)
            known = self._vocab_file  # (the one this process stored or read for that commit)
            if known is not None and stamp is not None and known[0] == stamp:
                vocab = known[1]
            else:
                vocab = load(self.directory, stamp)
                if vocab is not None:
                    self._vocab_file = (stamp, vocab)
        if vocab is None:
            vocab = listed(searcher)
            if self._writer is not None and self.directory is not None and stamp is not None:
                self._keep_vocabulary(vocab)  # (holding the writer: nobody commits meanwhile)
        self._vocab = (generation, vocab)
        return vocab

    def _query(self, q: Query, vocabulary: Callable[[], Vocabulary] | None = None, searcher: Any = None) -> Any:
        t = self._t
        Q, O = t.Query, t.Occur
        parts: list[tuple[Any, Any]] = []
        for alts in q.must:
            subs = [self._term(term, vocabulary, searcher) for term in alts]
            parts.append((O.Must, subs[0] if len(subs) == 1 else Q.boolean_query([(O.Should, s) for s in subs])))
        for term in q.must_not:
            if term.kind == "substring":
                continue  # applied on the stored text below, as a term query would miss parts
            parts.append((O.MustNot, self._term(term, None, searcher)))
        for name, values in q.filters.items():
            alts = [self._filter(name, v) for v in values]
            parts.append((O.Must, alts[0] if len(alts) == 1 else Q.boolean_query([(O.Should, a) for a in alts])))
        if q.since or q.until:
            # An entry without a time is stored at 0: a date filter leaves it out, even `until:` alone.
            lo = ts_ms(q.since) if q.since else 1
            hi = ts_ms(q.until) if q.until else None
            parts.append((O.Must, Q.range_query(self.schema, "ts", t.FieldType.Integer, lo, hi,
                                                include_upper=hi is None)))
        if not any(o == O.Must for o, _ in parts):
            parts.append((O.Must, Q.all_query()))
        return parts[0][1] if len(parts) == 1 else Q.boolean_query(parts)

    def _term(self, term: Term, vocabulary: Callable[[], Vocabulary] | None = None, searcher: Any = None) -> Any:
        Q, O = self._t.Query, self._t.Occur
        s = self.schema
        runs = ALNUM.findall(term.text.lower())
        if term.kind == "word" and len(runs) == 1:
            return self._word(runs[0], searcher)
        if term.kind == "prefix" and runs:
            if len(runs[0]) == STEM and runs[0].isascii():
                # The same documents as the regex below (a term starts with it iff it is one of
                # the document's stems) and the same score (an automaton query scores 1.0).
                return Q.const_score_query(Q.term_query(s, "stems", runs[0]), 1.0)
            return Q.regex_query(s, "text", _rx(runs[0]) + ".*")
        if term.kind in ("phrase", "word") and len(runs) > 1:
            return self._phrase(runs)
        # substring: every alphanumeric run must appear as part of a token; the first may be a
        # token's tail, the last a token's head, the middle ones whole tokens.
        if not runs:
            return Q.all_query()
        if vocabulary is None:
            if len(runs) == 1:
                return Q.regex_query(s, "text", ".*" + _rx(runs[0]) + ".*")
            clauses = [(O.Must, Q.regex_query(s, "text", ".*" + _rx(runs[0])))]
            clauses += [(O.Must, Q.term_query(s, "text", r)) for r in runs[1:-1]]
            clauses.append((O.Must, Q.regex_query(s, "text", _rx(runs[-1]) + ".*")))
            return Q.boolean_query(clauses)
        # The same term sets, found in the vocabulary (see `_vocabulary`).
        vocab = vocabulary()
        if len(runs) == 1:
            return self._term_set(vocab.containing(runs[0]))
        clauses = [(O.Must, self._term_set(vocab.ending_with(runs[0])))]
        clauses += [(O.Must, Q.term_query(s, "text", r)) for r in runs[1:-1]]
        clauses.append((O.Must, self._term_set(vocab.starting_with(runs[-1]))))
        return Q.boolean_query(clauses)

    def _word(self, word: str, searcher: Any = None) -> Any:
        """A word, or any word of the same English stem ("balance" finds "balances").

        The exact word is scored as before (BM25 on `text`); an inflection alone scores 0, so
        every entry holding the word itself ranks above those holding only an inflection (which
        then come newest first among equals). The stem's posting list is read only when it
        holds more documents than the word's (every document holding the word holds its stem:
        as many means the same ones), so a word without inflections costs what it did."""
        Q, O, s = self._t.Query, self._t.Occur, self.schema
        exact = Q.term_query(s, "text", word)
        root = stem(word)
        if not root or (searcher is not None and searcher.doc_freq("stemmed", root) <= searcher.doc_freq("text", word)):
            return exact
        return Q.boolean_query([(O.Should, exact),
                                (O.Should, Q.const_score_query(Q.term_query(s, "stemmed", root), 0.0))])

    def _phrase(self, runs: list[str]) -> Any:
        """The phrase query, started from the documents holding its pairs of common words.

        Why: tantivy answers a phrase by intersecting its words' posting lists and reading the
        positions of every document in both; for two common words that is most of the index
        ("this that": 97k of 256k documents, ~11 ms on 1 GB; "to the" ~75 ms). The pair's own
        list holds only the documents with the phrase (4.4k), and the phrase query, led by it,
        reads positions of those alone. The pairs are filters scored 0: the documents that match
        and their scores stay the phrase query's own. Every document holds the pair of each two
        adjacent common words of its text, so none holding the phrase is left out."""
        Q, O, s = self._t.Query, self._t.Occur, self.schema
        phrase = Q.phrase_query(s, "text", runs)
        pairs = dict.fromkeys(f"{a}_{b}" for a, b in zip(runs, runs[1:])
                              if a in COMMON_WORDS and b in COMMON_WORDS)
        if not pairs:
            return phrase  # a word that is not common leads the intersection already
        clauses = [(O.Must, Q.const_score_query(Q.term_query(s, "pairs", p), 0.0)) for p in pairs]
        return Q.boolean_query([*clauses, (O.Must, phrase)])

    def _term_set(self, terms: list[str]) -> Any:
        Q = self._t.Query
        if not terms:
            return Q.empty_query()
        if len(terms) == 1:
            return Q.term_query(self.schema, "text", terms[0])
        if len(terms) <= SMALL_TERM_SET:
            O = self._t.Occur
            return Q.boolean_query([(O.Should, Q.term_query(self.schema, "text", t)) for t in terms])
        return Q.term_set_query(self.schema, "text", terms)

    def _filter(self, name: str, value: str) -> Any:
        Q, s = self._t.Query, self.schema
        v = value.lower()
        if name == "agent":
            return Q.regex_query(s, "agent", _rx(v) + ".*")
        if name == "project":
            return Q.regex_query(s, "project_l", ".*" + _rx(v) + ".*")
        if name == "session":
            return Q.regex_query(s, "session", _rx(value) + ".*")
        if name == "branch":
            return Q.term_query(s, "branch", value)
        return Q.term_query(s, name, v)  # role, kind, tool
