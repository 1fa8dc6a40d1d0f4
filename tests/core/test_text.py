"""Text hygiene: what reaches a terminal (`printable`), the clipboard (`clipboard_text`) and the
CLI's JSON (`json_escaped`) from untrusted transcript text."""
from __future__ import annotations

import io
import json
import re
import sys
import unicodedata

from hypothesis import given
from hypothesis import strategies as st

from sessionscope.core.text import SafeStream, clipboard_text, json_escaped, one_line, printable

# What a terminal acts on: C0 controls but newline and tab, DEL, C1 controls; and what hides or
# reorders text: every format character (Cf: bidi controls, zero-width characters, tags, ...)
# and the line and paragraph separators. Built from the Unicode database, not from the module.
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
HIDDEN = {chr(c) for c in range(sys.maxunicode + 1)
          if unicodedata.category(chr(c)) in ("Cf", "Zl", "Zp")}

HOSTILE = ("OSC52:\x1b]52;c;SGVsbG8=\x07 CLEAR:\x1b[2J LINK:\x1b]8;;https://evil.example\x1b\\click"
           "\x1b]8;;\x1b\\ CSI:\x1b[31mred\x1b[0m C1:\x9b2J\x9d0;title\x9c BIDI:\u202eexe.txt "
           "ZW:pass\u200bword BOM:\ufeff TAG:\U000e0041")


def unsafe(text: str) -> list[str]:
    return [ch for ch in text if RAW.match(ch) or ch in HIDDEN]


def test_printable_makes_every_control_and_invisible_character_visible() -> None:
    for ch in sorted(HIDDEN) + [chr(c) for c in range(0xA0) if RAW.match(chr(c))]:
        shown = printable(f"a{ch}b")
        assert not unsafe(shown), (hex(ord(ch)), shown)
        assert shown != "ab"  # visibly marked, not silently dropped
    assert printable(HOSTILE).startswith("OSC52:␛]52;c;SGVsbG8=␇ CLEAR:␛[2J")
    assert "BIDI:<U+202E>exe.txt ZW:pass<U+200B>word BOM:<U+FEFF> TAG:<U+E0041>" in printable(HOSTILE)
    assert "C1:\\x9b2J\\x9d0;title\\x9c" in printable(HOSTILE)
    assert printable("tab\tand\nnewline") == "tab\tand\nnewline"
    assert one_line("a\u202eb\u200bc") == "a<U+202E>b<U+200B>c"


def test_a_zero_width_joiner_inside_an_emoji_sequence_is_kept() -> None:
    assert printable("👩\u200d💻 ❤️\u200d🔥") == "👩\u200d💻 ❤️\u200d🔥"
    assert printable("a\u200db") == "a<U+200D>b" and printable("\u200d💻") == "<U+200D>💻"


@given(st.text())
def test_printable_leaves_nothing_raw_and_is_idempotent(text: str) -> None:
    shown = printable(text)
    assert all(ch == "\u200d" for ch in unsafe(shown))  # (only joiners between emoji)
    assert printable(shown) == shown


@given(st.text())
def test_json_escaped_is_the_same_value_with_nothing_raw(text: str) -> None:
    encoded = json_escaped(json.dumps(text, ensure_ascii=False))
    assert json.loads(encoded) == text
    assert all(ch == "\u200d" for ch in unsafe(encoded))


def test_clipboard_text_drops_whole_sequences_and_other_controls() -> None:
    text, dropped = clipboard_text(HOSTILE + "\r\nnext\tline\x00\x85")
    assert text == ("OSC52: CLEAR: LINK:click CSI:red C1: BIDI:\u202eexe.txt ZW:pass\u200bword BOM:\ufeff "
                    "TAG:\U000e0041\nnext\tline")
    assert dropped == 10  # 8 sequences, NUL and NEL (the CRLF became a newline)
    assert clipboard_text("plain\ttext\n") == ("plain\ttext\n", 0)
    # an unterminated string command ends at the line's end: the next line is kept
    assert clipboard_text("a\x1b]0;title\nb") == ("a\nb", 1)


@given(st.text())
def test_clipboard_text_never_keeps_a_control(text: str) -> None:
    kept, _ = clipboard_text(text)
    assert not RAW.search(kept)


def test_safe_stream_sanitises_what_is_written_and_keeps_the_stream() -> None:
    inner = io.StringIO()
    stream = SafeStream(inner)
    print(HOSTILE, file=stream)
    assert not unsafe(inner.getvalue()) and inner.getvalue().endswith("\n")
    assert stream.getvalue() == inner.getvalue()  # (the wrapped stream's own methods)
    as_json = io.StringIO()
    SafeStream(as_json, json=True).write(json.dumps({"t": HOSTILE}, ensure_ascii=False))
    assert json.loads(as_json.getvalue()) == {"t": HOSTILE} and not unsafe(as_json.getvalue())


@given(st.sampled_from([r"a(b+)", r"^\s*(?:x|y)\d*$", r"(?P<w>\w+)@", r"[^\W_]+", rb"\{\s*\"k\""]),
       st.sampled_from([0, re.IGNORECASE, re.S]), st.text(max_size=30))
def test_a_lazy_pattern_answers_as_the_compiled_one(source: str | bytes, flags: int, text: str) -> None:
    from sessionscope.core.text import LazyPattern

    data = text.encode() if isinstance(source, bytes) else text
    lazy, compiled = LazyPattern(source, flags), re.compile(source, flags)
    assert "match" not in vars(lazy)  # (nothing compiled before its first use)
    pos = (len(data) // 2,)
    for name, args in (("match", (data,)), ("search", (data, *pos)), ("fullmatch", (data,)), ("findall", (data,)),
                       ("split", (data,)), ("sub", ("x" if isinstance(data, str) else b"x", data)), ("subn", ("-" if isinstance(data, str) else b"-", data, 1))):
        got, want = getattr(lazy, name)(*args), getattr(compiled, name)(*args)
        if isinstance(want, re.Match):
            assert got is not None and (got.span(), got.groups()) == (want.span(), want.groups())
        else:
            assert got == want
    assert [m.span() for m in lazy.finditer(data)] == [m.span() for m in compiled.finditer(data)]
    assert (lazy.pattern, lazy.flags, lazy.groups, lazy.groupindex) == (compiled.pattern, compiled.flags,
                                                                        compiled.groups, compiled.groupindex)
