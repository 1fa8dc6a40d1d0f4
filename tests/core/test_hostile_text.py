"""Text functions on hostile text: the linear forms find what the regexes they replace found.

A regex that tries each place of a run to the run's end costs the square (or cube) of the run's
length; each function rewritten for that is held here equal to its old form on texts made of
what the old regex looks for, run together (bench/bench_text_hostile.py times them)."""
from __future__ import annotations

import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from sessionscope.core.text import code_spans

# -- Markdown code spans ----------------------------------------------------------------------------
_OLD_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
_TICKS = st.lists(st.sampled_from(["`", "``", "```", "````", "a", " ", "\n", "@x/y.md", "é"]), max_size=30).map("".join)


@settings(max_examples=1500, deadline=None)
@given(_TICKS)
@example("``a`")
@example("x" + "`" * 9 + "a``````b`````c")
@example("```a``b\n``c``")
def test_code_spans_are_the_old_regexs_matches(text: str) -> None:
    assert code_spans(text) == [m.span() for m in _OLD_CODE_SPAN.finditer(text)]


@settings(max_examples=300, deadline=None)
@given(_TICKS)
def test_export_and_imports_keep_their_old_code_spans(text: str) -> None:
    from sessionscope.core.export import render
    from sessionscope.core.memory import imports

    def old_inert_line(line: str) -> str:
        parts, at = [], 0
        for m in _OLD_CODE_SPAN.finditer(line):
            parts += [render.escape_md(line[at:m.start()]), m.group(0)]
            at = m.end()
        return "".join(parts) + render.escape_md(line[at:])

    for line in text.split("\n"):
        assert render._inert_line(line) == old_inert_line(line)
        assert imports._blank_code_spans(line) == _OLD_CODE_SPAN.sub(lambda s: " " * len(s.group(0)), line)
