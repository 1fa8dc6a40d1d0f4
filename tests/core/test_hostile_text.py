"""Text functions on hostile text: the linear forms find what the regexes they replace found.

A regex that tries each place of a run to the run's end costs the square (or cube) of the run's
length; each function rewritten for that is held here equal to its old form on texts made of
what the old regex looks for, run together (bench/bench_text_hostile.py times them)."""
from __future__ import annotations

import os
import re

from hypothesis import example, given, settings
from hypothesis import strategies as st

from sessionscope.core.text import code_spans

#: The share of each long run's examples the suite makes (the counts below are the depth each test
#: was written and checked at; SESSIONSCOPE_HYPOTHESIS_DEPTH=1 runs them whole, ~80 s of CPU).
DEPTH = float(os.environ.get("SESSIONSCOPE_HYPOTHESIS_DEPTH", "0.25"))


def examples(count: int) -> int:
    return max(300, round(count * DEPTH))

# -- Markdown code spans ----------------------------------------------------------------------------
_OLD_CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1")
_TICKS = st.lists(st.sampled_from(["`", "``", "```", "````", "a", " ", "\n", "@x/y.md", "é"]), max_size=30).map("".join)


@settings(max_examples=examples(1500), deadline=None)
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


@settings(max_examples=examples(1500), deadline=None)
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


@settings(max_examples=examples(2000), deadline=None)
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


@settings(max_examples=examples(2000), deadline=None)
@given(_SHELLY)
@example("git commit -m \"fix\" --author='x' a-b-c=\"q\"")
@example("x-'a'-b \"c\"")
def test_shell_code_blanks_the_option_text_its_old_regex_blanked(text: str) -> None:
    from sessionscope.core.brief import patterns

    old = re.compile(r"(--?[\w-]+(?:=|\s+))(\"(?:[^\"\\]|\\.)*\"|'[^']*')")
    assert patterns._OPTION_TEXT.sub(lambda m: m.group(1) + "''", text) == old.sub(lambda m: m.group(1) + "''", text)


# -- the brief: what a shell's output and an agent's text are tested for ---------------------------------
def _old_form(pattern: re.Pattern[str], new: str, old: str) -> re.Pattern[str]:
    assert new in pattern.pattern
    return re.compile(pattern.pattern.replace(new, old), pattern.flags)


_OUTPUTS = st.lists(st.sampled_from(["curl", "CURL", "xcurl", " ", "\t", "\n", "\u2028", "|", "sh", "bash", "sudo ", "x",
                                     "** (", "Err", "1234567..89abcdef", "* [new branch]", "a", "->", "[pending]",
                                     "[done]", "step"]), max_size=24).map("".join)


@settings(max_examples=examples(2000), deadline=None)
@given(_OUTPUTS)
@example("curl x curl y | sh")
@example("curl xcurl y| sh")
@example("\n \n  ** (Mix")
@example(" \n\n1234567..89abcdef  main -> main\n")
@example("\n\n [pending] a\n[done]\n b")
def test_the_brief_patterns_find_what_their_old_forms_found(text: str) -> None:
    from sessionscope.core.brief import generators, patterns

    injection = _old_form(patterns._INJECTION, r"(?:(?!\bcurl\s)[^|\n])*", r"[^|\n]*")
    assert bool(patterns._INJECTION.search(text)) == bool(injection.search(text))
    fail = _old_form(patterns._FAIL_SUMMARY, r"^[^\S\n]*", r"^\s*")
    assert bool(patterns._FAIL_SUMMARY.search(text)) == bool(fail.search(text))
    pushed, new = _old_form(generators._PUSHED, r"^[^\S\n]*", r"^\s*").search(text), generators._PUSHED.search(text)
    assert (pushed and (pushed.groups(), pushed.end())) == (new and (new.groups(), new.end()))
    plan = _old_form(generators._PLAN_LINE, r"^[^\S\n]*", r"^\s*")
    assert ([(m.groups(), m.end()) for m in generators._PLAN_LINE.finditer(text)]
            == [(m.groups(), m.end()) for m in plan.finditer(text)])


_ERROR_LINES = st.lists(st.sampled_from(["a", "1", "0x", "f", "/", ".", "-", "~", "_", " ", '"', "'", "é", "deadbeef", "1.2",
                                         "x/y", "A", "\t", "Error:"]), max_size=24).map("".join)


@settings(max_examples=examples(3000), deadline=None)
@given(_ERROR_LINES)
@example("0x1f.a/b 12.5abc/d deadbeef1.x/y")
@example("a~b/c ~/x 1.1.1/2")
def test_an_error_keys_volatile_parts_are_what_the_old_regex_replaced(text: str) -> None:
    from sessionscope.core.brief import episodes

    assert episodes._volatile_sub(text) == episodes._VOLATILE.sub("#", text)


_MARKDOWNY = st.lists(st.sampled_from(["**", "__", "*", "_", "x", " ", "\n", "(", ".", "\\", "init", "a b", "'", "”", "…", "-",
                                       "`"]), max_size=24).map("".join)


@settings(max_examples=examples(3000), deadline=None)
@given(_MARKDOWNY)
@example("**a** and __init__ (**b**). **c\n d**")
@example("**x **y** __z__")
def test_bold_markers_are_dropped_where_the_old_regex_dropped_them(text: str) -> None:
    from sessionscope.core.brief import patterns

    def old(m: re.Match[str]) -> str:
        return m.group(0) if m.group(1) == "__" and patterns._DUNDER.fullmatch(m.group(2)) else m.group(2)

    assert patterns._emphasis_sub(lambda whole, mark, inner: whole if mark == "__" and patterns._DUNDER.fullmatch(inner)
                                  else inner, text) == patterns._EMPHASIS.sub(old, text)


_OLD_BRIEF_CODE_SPAN = re.compile(r"(`+)[^`\n]*?\1")


@settings(max_examples=examples(3000), deadline=None)
@given(_TICKS)
@example("`````a``")
@example("```a``\n`b`")
@example("``a`b``")
def test_the_briefs_code_spans_are_the_old_regexs_matches(text: str) -> None:
    from sessionscope.core.brief import patterns

    assert list(patterns._code_spans(text)) == [m.span() for m in _OLD_BRIEF_CODE_SPAN.finditer(text)]


_OLD_NEGATED_FAILURE = re.compile(r"\b(?:if|unless|in case|whether)\b[^.]*\b(?:doesn'?t|does not|didn'?t|did not) (?:work|help)",
                                  re.IGNORECASE)
_CONDITIONAL = st.lists(st.sampled_from(["if", "If", "unless", "in case", "whether", "iff", " ", "x", ".", "\n", "doesn't",
                                         "doesnt", "does not", "didn't", "DID NOT", "did not", " work", " help", " helps",
                                         "é", "_"]), max_size=14).map("".join)


@settings(max_examples=examples(3000), deadline=None)
@given(_CONDITIONAL)
@example("if it doesn't work")
@example("if. it didn't help")
@example("xif didn't work, in case. did not help")
def test_a_negated_failure_is_found_where_the_old_regex_found_one(text: str) -> None:
    from sessionscope.core.brief import patterns

    assert patterns.negated_failure(text) == (_OLD_NEGATED_FAILURE.search(text) is not None)


_SCRIPTS = st.lists(st.sampled_from(["apply_patch", " <<", "<<-", "'EOF'", '"EOF"', "EOF", "\n", " ", "\t", ";", "(", "&", "|",
                                     "x", "*** Begin Patch"]), max_size=20).map("".join)


@settings(max_examples=examples(2000), deadline=None)
@given(_SCRIPTS)
@example("x;\n\n apply_patch <<'EOF'\n*** Begin Patch\nEOF\n")
@example("x(\tapply_patch <<EOF\n")
def test_an_apply_patch_heredoc_is_found_where_the_old_regex_found_it(text: str) -> None:
    from sessionscope.core.read import diffs

    old, new = _old_form(diffs._HEREDOC, r"[^\S\n]*apply_patch", r"\s*apply_patch").search(text), diffs._HEREDOC.search(text)
    assert (old and (old.groups(), old.end())) == (new and (new.groups(), new.end()))


# -- memory notes: a section's heading ---------------------------------------------------------------------
@settings(max_examples=examples(3000), deadline=None)
@given(st.lists(st.sampled_from(["#", "##", " ", "\t", "a", "x y", "\r", "é", "###"]), max_size=12).map(lambda u: "##" + "".join(u)))
@example("## a" + " " * 40 + "x")
@example("##  ")
@example("## ")
@example("## #")
def test_a_heading_is_what_the_old_regex_found(line: str) -> None:
    from sessionscope.core.memory import markdown

    m = markdown._HEADING.match(line)
    assert markdown.heading(line) == (m.group(1) if m else None)


# -- Aider: a reply's SEARCH/REPLACE blocks ------------------------------------------------------------------
@settings(max_examples=examples(1500), deadline=None)
@given(st.lists(st.sampled_from(["<<<<<<< SEARCH", "=======", ">>>>>>> REPLACE", "```", "x", "", "a.py"]), max_size=20))
def test_an_aider_blocks_ends_are_where_the_old_scan_found_them(bodies: list[str]) -> None:
    from sessionscope.core.read.adapters import aider

    lines = [(None, b) for b in bodies]
    div, rep = aider._block_ends(lines)  # type: ignore[arg-type]
    n = len(lines)
    for i in range(n):
        j = i + 1
        while j < n and not aider._DIVIDER.match(lines[j][1]):
            j += 1
        k = j + 1
        while k < n and not aider._REPLACE.match(lines[k][1]):
            k += 1
        assert div[i + 1] == j
        assert (rep[j + 1] if j < n else n + 1) == k


# -- a streamed transcript's find: the lines its spots are on --------------------------------------------
_FOLDY = st.lists(st.sampled_from([b"\n", b"a", b"zz", b"Zz", "\u00df".encode(), b"\\u00df", b"\\u00DF", b" ", b"\\"]),
                  max_size=30).map(b"".join)


@settings(max_examples=examples(3000), deadline=None)
@given(_FOLDY, st.lists(st.integers(0, 400), max_size=12))
@example(b"a\n\xc3\x9f\xc3\x9fzz\n", [0, 1, 2, 4, 7, 8])
@example(b"\\u00df\\u00DF", [])
@example(b"\n\n", [0, 1])
def test_a_finds_lines_are_where_the_old_search_back_found_them(data: bytes, picked: list[int]) -> None:
    from sessionscope.core.read import compact

    spots = compact._find_all(data.lower(), b"zz") + [m.start() for m in compact._FOLDING.finditer(data)]
    spots += [at % len(data) for at in picked] if data else []
    assert compact._line_starts(data, spots) == sorted({data.rfind(b"\n", 0, at) + 1 for at in spots})


# -- an Edit's diff: its lines matched ---------------------------------------------------------------------
def _old_edit_lines(old: str, new: str) -> list[object]:
    import difflib

    from sessionscope.core.read.diffs import DiffLine

    a, b = old.split("\n"), new.split("\n")
    out: list[object] = []
    for line in list(difflib.unified_diff(a, b, lineterm="", n=3))[2:]:
        if line.startswith("@@"):
            if out:
                out.append(DiffLine("…", ""))
            continue
        tag = line[:1] if line[:1] in "+- " else " "
        out.append(DiffLine(tag, line[1:]))
    if not out and a == b:
        out = [DiffLine(" ", line) for line in a]
    return out


_EDIT_LINES = st.lists(st.sampled_from(["a", "b", "c", "x", "", " ", "@@ x", "+a", "-b", "---", "é"]), max_size=40).map("\n".join)


@settings(max_examples=examples(2000), deadline=None)
@given(_EDIT_LINES, _EDIT_LINES)
@example("a\nb\nc", "a\nx\nb\nx\nc")
@example("", "")
@example("a\nb\nc\nd\ne\nf\ng\nh\ni\nj", "a\nB\nc\nd\ne\nf\ng\nh\ni\nJ")
@example("---\n+a", "+a\n---")
def test_an_edits_diff_lines_are_unified_diffs(old: str, new: str) -> None:
    from sessionscope.core.read import diffs

    assert diffs._edit_lines(old, new) == _old_edit_lines(old, new)


@settings(max_examples=examples(2000), deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "c", "x", "", "u1", "u2", "u3"]), max_size=40),
       st.lists(st.sampled_from(["a", "b", "c", "y", "", "u1", "u2", "u3"]), max_size=40), st.sampled_from([0, 4, 1000]))
@example(["u1", "a", "u2", "b"], ["u2", "b", "u1", "a"], 1000)
@example(["a", "u1", "b", "u2"], ["a", "u1", "c", "u2"], 0)
@example([], ["a"], 0)
def test_a_large_edits_lines_are_matched_in_order(a: list[str], b: list[str], gap: int) -> None:
    """Past `_MATCHED_CELLS` lines by lines, an edit's lines are matched as blocks SequenceMatcher
    would accept: in order, each of equal lines, none touching the next, the end last; and its
    diff lines hold all the changed lines, old ones as `-` and new ones as `+`."""
    from unittest import mock

    from sessionscope.core.read import diffs

    a, b = a or [""], b or [""]  # (as an edit's text split at its newlines)
    with mock.patch.object(diffs, "_GAP_CELLS", gap), mock.patch.object(diffs, "_MATCHED_CELLS", -1):
        blocks = diffs._anchored_blocks(a, b)
        lines = diffs._edit_lines("\n".join(a), "\n".join(b))
    assert blocks[-1] == (len(a), len(b), 0)
    after = None
    for i, j, size in blocks[:-1]:
        assert size > 0 and a[i:i + size] == b[j:j + size]
        assert after is None or (i >= after[0] and j >= after[1] and (i, j) != after)
        after = (i + size, j + size)
    matched = sum(size for *_, size in blocks)
    assert [d.text for d in lines if d.tag == "-"] == [x for k, x in enumerate(a) if not _in_blocks(k, blocks, 0)]
    assert [d.text for d in lines if d.tag == "+"] == [x for k, x in enumerate(b) if not _in_blocks(k, blocks, 1)]
    assert sum(d.tag in "-+" for d in lines) == len(a) + len(b) - 2 * matched


def _in_blocks(k: int, blocks: list[tuple[int, int, int]], side: int) -> bool:
    return any(blk[side] <= k < blk[side] + blk[2] for blk in blocks)


@settings(max_examples=examples(1500), deadline=None)
@given(_FOLDY, st.sampled_from([1, 2, 3, 5, 8]))
@example(b"a\nzz", 2)
@example(b"zzzz", 2)
@example(b"\xc3\x9f\xc3\x9f\xc3\x9f\nzz\n", 3)
@example(b"aaaaaaaa\nzz", 3)
def test_a_streamed_finds_lines_read_in_chunks_are_those_read_whole(data: bytes, chunk: int) -> None:
    """Lines longer than a chunk (held in pieces until their end is read) and a last line without
    its newline are looked at as when the file is read in one piece."""
    import tempfile
    import types
    from array import array
    from pathlib import Path
    from unittest import mock

    from sessionscope.core.read import compact

    starts = [0] + [k + 1 for k, c in enumerate(data) if c == 10 and k + 1 < len(data)]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "t.jsonl"
        path.write_bytes(data)
        model = types.SimpleNamespace(path=str(path), _e_off=array("q", starts), _e_item=list(range(len(starts))))

        def items(size: int) -> list[int]:
            with mock.patch.object(compact, "_CHUNK", size):
                return compact.CompactTranscript._candidate_items(model, b"zz", starts[-1] + 1, lambda: False)  # type: ignore[arg-type]

        assert items(chunk) == items(1 << 20)


# -- the transcript view's find: a line's matches restyled ----------------------------------------------------
def _old_highlight(strip: object, needle: str, style: object) -> object:
    from rich.segment import Segment
    from textual.strip import Strip

    from sessionscope.tui.widgets._transcript_render import match_spans

    spans = match_spans(strip.text, needle)  # type: ignore[attr-defined]
    if not spans:
        return strip
    out: list[Segment] = []
    pos = 0
    for seg in strip:  # type: ignore[attr-defined]
        seg_text, seg_style, control = seg
        if control:
            out.append(seg)
            continue
        end = pos + len(seg_text)
        cuts = sorted({pos, end, *(c for a, b in spans for c in (a, b) if pos < c < end)})
        for a, b in zip(cuts, cuts[1:]):
            piece = seg_text[a - pos:b - pos]
            hit = any(sa <= a and b <= sb for sa, sb in spans)
            out.append(Segment(piece, (seg_style + style) if hit and seg_style else style if hit else seg_style))
        pos = end
    return Strip(out, strip.cell_length)  # type: ignore[attr-defined]


@settings(max_examples=examples(2000), deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a", "A", "aa", "ab", "", " ", "b", "aba", "ß", "SS", "\u0130"]),
                          st.sampled_from([None, "bold", "red"])), max_size=12),
       st.sampled_from(["a", "aa", "ab", "ba", "A", "b a", "ss", "aaa"]))
@example([("aa", None), ("a", "bold"), ("ab", None)], "aa")
@example([("ab", None), ("", "red"), ("a", None)], "ba")
def test_a_lines_matches_are_restyled_where_the_old_walk_restyled_them(pieces: list[tuple[str, str | None]],
                                                                      needle: str) -> None:
    from rich.segment import Segment
    from rich.style import Style
    from textual.strip import Strip

    from sessionscope.tui.widgets._transcript_render import highlight

    strip = Strip([Segment(text, Style.parse(style) if style else None) for text, style in pieces])
    match = Style(reverse=True)
    new, old = highlight(strip, needle, match), _old_highlight(strip, needle, match)
    assert list(new) == list(old) and new.cell_length == old.cell_length  # type: ignore[attr-defined]
