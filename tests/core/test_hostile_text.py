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


# -- adapters: a harness tag's text (Claude Code), one injected block (Codex) -----------------------------
_TAGGY = st.lists(st.sampled_from(["<command-name>", "</command-name>", "<command-args>", "</command-args>", " ", "\n",
                                   "\u00a0", "x", "/review", "a b", "<"]), max_size=20).map("".join)


@settings(max_examples=1500, deadline=None)
@given(_TAGGY)
@example("<command-name> /x \n</command-name><command-args>\u00a0</command-args>")
def test_a_claude_command_is_what_its_old_regexes_found(text: str) -> None:
    from sessionscope.core.read.adapters import claude

    def old(text: str) -> str | None:
        name = re.search(r"<command-name>\s*(.*?)\s*</command-name>", text, re.S)
        if not name or not name.group(1):
            return None
        args = re.search(r"<command-args>\s*(.*?)\s*</command-args>", text, re.S)
        return f"{name.group(1)} {args.group(1)}".strip() if args else name.group(1)

    assert claude._command(text) == old(text)


_BLOCKY = st.lists(st.sampled_from(["<", ">", "</", "a", "b", "_", "-", " ", "\t", "\n", "é", "1", "</a>", "<a>", "<a ", "x=1",
                                    "</a b>", "<a b>"]), max_size=16).map("".join)


@settings(max_examples=2000, deadline=None)
@given(_BLOCKY)
@example("<a b>x</a b>")
@example("<a\tk=v>x</a>")
@example("<a>")
@example("<a></a>")
@example("<a>></a>")
def test_a_codex_injected_block_is_what_the_old_regex_found(text: str) -> None:
    from sessionscope.core.read.adapters import codex

    s = text.strip()
    assert codex._one_block(s) == bool(re.match(r"^<([A-Za-z_][\w\- ]*?)(?:\s[^>]*)?>.*</\1>$", s, re.S))


# -- the brief: a shell command's code ---------------------------------------------------------------------
_SHELLY = st.lists(st.sampled_from(["-", "--", "a", "_", "1", "é", "=", " ", "\n", "\\", '"', "'", "-m", "--x=", "echo ", "ab-c"]),
                   max_size=24).map("".join)


@settings(max_examples=2000, deadline=None)
@given(_SHELLY)
@example("git commit -m \"fix\" --author='x' a-b-c=\"q\"")
@example("x-'a'-b \"c\"")
def test_shell_code_blanks_the_option_text_its_old_regex_blanked(text: str) -> None:
    from sessionscope.core.brief import patterns

    old = re.compile(r"(--?[\w-]+(?:=|\s+))(\"(?:[^\"\\]|\\.)*\"|'[^']*')")
    assert patterns._OPTION_TEXT.sub(lambda m: m.group(1) + "''", text) == old.sub(lambda m: m.group(1) + "''", text)
