"""The index's settings (core/search/schema.py)."""
from __future__ import annotations

import hashlib

from sessionscope.core.search.schema import COMMON_WORDS_DIGEST
from sessionscope.core.search.terms import COMMON_WORDS


def test_the_common_words_digest_written_out_is_the_words_digest() -> None:
    # (changing COMMON_WORDS changes the documents: the digest in the settings must follow, so the
    # index is rebuilt; update COMMON_WORDS_DIGEST to the value below)
    assert COMMON_WORDS_DIGEST == hashlib.sha1(" ".join(sorted(COMMON_WORDS)).encode()).hexdigest()[:12]
