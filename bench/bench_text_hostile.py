"""Text functions over transcript content on hostile text: a long run of what one regex looks for,
at two sizes.

A regex that tries each place of a run to the run's end costs the square of the run's length (the
cube when it also tries each length of a run it opens with): a line of 1,000 backticks took 10 s
to export before code spans were found in linear time. For each row (a function and the hostile
unit it is fed, repeated N and 4N times after the row's lead), this prints the time (CPU, best of
`--rounds`), its growth from N to 4N (4: linear; 16: quadratic; 64: cubic) and the time over the
same function on ordinary prose of the same length (`x prose`), measured in the same run.
Secret masking has its own bench (bench_mask_hostile.py).

    .venv/bin/python bench/bench_text_hostile.py            # N = 4,000
    .venv/bin/python bench/bench_text_hostile.py --n 16000 --json
"""
from __future__ import annotations

import random
from typing import Callable

from bench_mask_hostile import growth_args, growth_row, report


def _export_line(text: str) -> object:
    from sessionscope.core.export.render import inert_markdown
    return inert_markdown(text)


def _imports(text: str) -> object:
    from sessionscope.core.memory.imports import find_imports
    return find_imports(text)


def _claude_command(text: str) -> object:
    from sessionscope.core.read.adapters.claude import _command
    return _command(text)


def _codex_injected(text: str) -> object:
    from sessionscope.core.read.adapters.codex import _is_injected
    return _is_injected(text)


def _shell_code(text: str) -> object:
    from sessionscope.core.brief.patterns import shell_code
    return shell_code(text)


def _injection(text: str) -> object:
    from sessionscope.core.brief.patterns import _injected
    return _injected(text)


def _fail_summary(text: str) -> object:
    from sessionscope.core.brief.patterns import _FAIL_SUMMARY
    return _FAIL_SUMMARY.search(text)


def _pushed(text: str) -> object:
    from sessionscope.core.brief.generators import _PUSHED
    return _PUSHED.search(text)


def _plan(text: str) -> object:
    from sessionscope.core.brief.generators import _PLAN_LINE
    return list(_PLAN_LINE.finditer(text))


def _error_key(text: str) -> object:
    from sessionscope.core.brief.episodes import error_key
    return error_key(text)


def _clean(text: str) -> object:
    from sessionscope.core.brief.patterns import clean
    return clean(text)


def _negated(text: str) -> object:
    from sessionscope.core.brief.patterns import negated_failure
    return negated_failure(text)


def _heredoc(text: str) -> object:
    from sessionscope.core.read.diffs import _heredoc_patch
    return _heredoc_patch(text)


def _sections(text: str) -> object:
    from sessionscope.core.memory.markdown import split_sections
    return split_sections(text + "x")


def _aider_reply(text: str) -> object:
    from sessionscope.core.read.adapters.aider import _reply_entries
    from sessionscope.core.read.jsonl import RawLine
    lines = [(RawLine(0, n + 1, b""), body) for n, body in enumerate(text.split("\n"))]
    return list(_reply_entries("x.md", lines, None))


def _compact_find(text: str) -> object:
    from sessionscope.core.read.compact import _FOLDING, _find_all, _line_starts
    data = text.encode()  # (a chunk of a streamed file, as `_candidate_items` looks at it)
    return _line_starts(data, _find_all(data.lower(), b"zz") + [m.start() for m in _FOLDING.finditer(data)])


def _compact_file(text: str) -> object:
    import os
    import tempfile
    import types
    from array import array

    from sessionscope.core.read.compact import CompactTranscript
    with tempfile.TemporaryDirectory() as tmp:  # (a streamed file of one line: `text`)
        path = os.path.join(tmp, "t.jsonl")
        with open(path, "wb") as fh:
            fh.write(text.encode().replace(b"a", b"a" * 1024) + b"\n")  # (each `a` a KB of them)
        model = types.SimpleNamespace(path=path, _e_off=array("q", [0]), _e_item=[0])
        return CompactTranscript._candidate_items(model, b"zz", 1, lambda: False)  # type: ignore[arg-type]


def _edit_lines(text: str) -> object:
    from sessionscope.core.read.diffs import _edit_lines
    lines = [f"{k} {line}" for k, line in enumerate(text.split("\n"))]  # (each old line once)
    return _edit_lines("\n".join(lines), "\n".join(f"{line}\n+" for line in lines))


def _find_highlight(text: str) -> object:
    from rich.segment import Segment
    from rich.style import Style
    from textual.strip import Strip

    from sessionscope.tui.widgets._transcript_render import highlight
    return highlight(Strip([Segment(c) for c in text]), "a", Style(reverse=True))  # (a segment a character)


#: (row name, function, lead, unit): the function is fed `lead + unit * N`
ROWS: tuple[tuple[str, Callable[[str], object], str, str], ...] = (
    ("export: a line of backticks", _export_line, "x", "`"),
    ("export: backticks, unclosed", _export_line, "x ``", "a`"),
    ("memory imports: backticks", _imports, "see @a.md ", "`"),
    ("claude: a command's args, unclosed", _claude_command, "<command-name>/x</command-name>", "<command-args>"),
    ("codex: a tag without its >", _codex_injected, "<a", " a"),
    ("brief shell code: dashes", _shell_code, "echo ", "-"),
    ("brief shell code: a-a-a", _shell_code, "echo ", "a-"),
    ("brief injection: curl curl …", _injection, "ignore ", "curl "),
    ("brief failure: blank lines", _fail_summary, "", " \n"),
    ("brief git push: blank lines", _pushed, "", "\n"),
    ("brief plan: blank lines", _plan, "", "\n"),
    ("brief error key: one long word", _error_key, "TypeError: ", "xa"),
    ("brief error key: 1.1.1…", _error_key, "TypeError: ", "1."),
    ("brief clean: **x **x …", _clean, "", "**x "),
    ("brief clean: a line of backticks", _clean, "x ", "`"),
    ("brief negated failure: if did not …", _negated, "it failed ", "if did not "),
    ("apply_patch script: blank lines", _heredoc, "", "\n"),
    ("memory heading: spaces, then x", _sections, "## a", " "),
    ("aider reply: SEARCH lines, no block", _aider_reply, "", "<<<<<<< SEARCH\n"),
    ("streamed find: a line of \u00df", _compact_find, '{"t":"', "\u00df"),
    ("streamed find: a line of \\u00df", _compact_find, '{"t":"', "\\u00df"),
    ("edit diff: a line added after each", _edit_lines, "", "a\n"),
    ("streamed find: a line of many MB", _compact_file, '{"t":"', "a"),
    ("transcript find: a line of a", _find_highlight, "", "a"),
)


def main(argv: list[str] | None = None) -> int:
    args = growth_args(__doc__, argv)
    rng = random.Random(1)
    rows = [{"row": name, **growth_row(fn, lead, unit, args.n, args.rounds, rng)} for name, fn, lead, unit in ROWS]
    return report(rows, args, "each function on a run of its unit", f"{'row':36} {'unit':16}",
                  lambda r: f"{r['row']:36} {r['unit']!r:16}")


if __name__ == "__main__":
    raise SystemExit(main())
