"""The shape of the index's documents: their fields and tokenizers, the version of that shape
and the settings that shaped them (an index built under others is rebuilt).

`IndexSchema` is one of the parts `SearchIndex` (core/search/index.py) is made of; its methods
use the index's tantivy module (`_t`), `cap` and `directory`.
"""
from __future__ import annotations

import json
import os
from datetime import datetime
from typing import Any

from ..onuse import compact_json
from .terms import stemming_analyzer

#: terms.py's COMMON_WORDS' digest as the index's settings hold it (sha1 of the words sorted and
#: joined by spaces, 12 hex digits): written out, so a search never loads OpenSSL (hashlib) to
#: compare its settings (tests/core/test_search_schema.py holds it equal to the words')
COMMON_WORDS_DIGEST = "91498bc4eaea"


INDEX_VERSION = 4  # 2: the `pairs` field; 3: the `stems` field; 4: `stemmed` (old caches are rebuilt, with a message)
SETTINGS_FILE = "settings.json"  # in the index directory: what shaped its documents (see `_settings`)

_loads = json.loads  # (small: core/onuse.py)


def _dumps(obj: Any) -> bytes:
    return compact_json(obj).encode()


def ts_ms(ts: datetime | None) -> int:
    return int(ts.timestamp() * 1000) if ts else 0


class IndexSchema:
    """The documents' fields and tokenizers, and the settings that shaped them."""

    def _schema(self) -> Any:
        # Filter and delete fields are indexed only (doc ids, no positions: "basic"); what a hit
        # shows is stored once, packed in `hit`. Indexing a per-document unique id (the old
        # `key`/`entry` fields) or positions of raw values cost ~20% of the writer's CPU.
        sb = self._t.SchemaBuilder()
        for name in ("session", "agent", "role", "kind", "tool", "branch", "file", "project_l"):
            sb.add_text_field(name, stored=False, tokenizer_name="raw", index_option="basic")
        sb.add_bytes_field("hit", stored=True)
        sb.add_integer_field("ts", stored=True, indexed=True, fast=True)
        sb.add_unsigned_field("offset", stored=False, indexed=True, fast=True)
        sb.add_text_field("text", stored=True, tokenizer_name="ss")
        # Every two adjacent common words of `text` as one term ("this_that"), for phrases: see
        # `_phrase`. Doc ids only: ~3% more index (1 GB corpus: 286 -> 295 MB).
        sb.add_text_field("pairs", stored=False, tokenizer_name="pairs", index_option="basic")
        # The first three characters of every term of `text` ("kem" for "kemhol"), for prefixes:
        # `kem*` is then one posting list, not the union of the ~1,000 terms behind it (see
        # `_term`). Doc ids only.
        sb.add_text_field("stems", stored=False, tokenizer_name="pairs", index_option="basic")
        # `text`'s words by their English stem ("balanc" for balance, balances, balancing), so a
        # word finds its inflections (see `_word`). Frequencies, no positions: phrases stay exact.
        sb.add_text_field("stemmed", stored=False, tokenizer_name="en", index_option="freq")
        return sb.build()

    def _prepared(self, index: Any) -> Any:
        """`index` with our tokenizers registered."""
        t = self._t
        analyzer = t.TextAnalyzerBuilder(t.Tokenizer.simple()).filter(t.Filter.lowercase()).build()
        index.register_tokenizer("ss", analyzer)
        index.register_tokenizer("pairs", t.TextAnalyzerBuilder(t.Tokenizer.whitespace()).build())
        index.register_tokenizer("en", stemming_analyzer())
        self._words = analyzer.analyze  # `text`'s own terms, for text that is not ASCII
        return index

    def _settings(self) -> dict[str, Any]:
        """What shapes the documents besides the format (INDEX_VERSION, the schema): an index built
        under other settings is rebuilt."""
        return {"tool_result_cap": self.cap, "common_words": COMMON_WORDS_DIGEST}

    def _settings_change(self) -> tuple[bool, str | None]:
        """Whether the settings must be written now, and why the documents must be rebuilt
        (None: they need not be)."""
        if self.directory is None:
            return False, None
        ours = self._settings()
        try:
            stored: Any = _loads((self.directory / SETTINGS_FILE).read_bytes())
        except FileNotFoundError:
            stored = None
        except (OSError, ValueError):
            stored = "unreadable"
        if stored == ours:
            return False, None
        if self.fresh:
            return True, None  # nothing built yet: nothing to rebuild
        if not isinstance(stored, dict):
            return True, f"index settings {'not recorded' if stored is None else 'unreadable'}"
        diff = ", ".join(f"{k} {stored.get(k)} -> {v}" for k, v in ours.items() if stored.get(k) != v)
        return True, f"index settings changed ({diff})"

    def _save_settings(self) -> None:
        if self.directory is None:
            return
        tmp = self.directory / f".{SETTINGS_FILE}.{os.getpid()}"
        tmp.write_bytes(_dumps(self._settings()))
        os.replace(tmp, self.directory / SETTINGS_FILE)
