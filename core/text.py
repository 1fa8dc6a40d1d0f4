"""Text hygiene for untrusted transcript content.

Why: transcripts hold whatever the agent and its tools printed, including terminal escape
sequences (`\\x1b]52;...` would write the clipboard, `\\x1b[2J` clears the screen) and invisible
characters that change what a reader sees (U+202E turns the rest of a line around, U+200B splits
a word so that a filter or a reader misses it). Everything shown in a terminal passes through
`printable()`, which makes those characters visible instead of letting the terminal act on them
(the CLI applies it to all it writes: see `SafeStream`). Markup safety is the UI's job (it never
parses transcript text as markup); this module only deals with what a terminal would interpret
or hide. What is copied to the clipboard goes through `clipboard_text()` instead: there the
sequences are dropped, since a visible stand-in would corrupt the text being copied.
"""
from __future__ import annotations

import re
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from typing import Any, Callable, Iterator, TextIO

class LazyPattern:
    """`re.compile(pattern, flags)`, compiled on its first use: a module-level pattern costs
    0.1-0.5 ms to compile, and a command imports modules whose patterns it never uses (reading a
    Claude Code session imports the Codex adapter's; a whole `read ID` compiled ~40). Its
    methods are then the compiled pattern's own (kept on the object: no lookup through this
    class on later calls)."""

    def __init__(self, pattern: str | bytes, flags: int = 0) -> None:
        self._source = pattern, flags

    def __getattr__(self, name: str) -> Any:  # (first use only: then the attributes are set)
        if name.startswith("__") or name == "_source":
            raise AttributeError(name)
        compiled = re.compile(*self._source)
        for attr in ("match", "fullmatch", "search", "sub", "subn", "split", "findall", "finditer",
                     "pattern", "flags", "groups", "groupindex"):
            setattr(self, attr, getattr(compiled, attr))
        return getattr(compiled, name)


# C0 controls except tab and newline, DEL, and C1 controls (U+0080-U+009F: 8-bit CSI, OSC, ...).
_C0_C1 = "\x00-\x08\x0b-\x1f\x7f-\x9f"
# Invisible format characters (Unicode category Cf) and the line/paragraph separators (Zl, Zp):
# bidi embeddings, overrides and isolates, zero-width spaces and joiners, word joiner and the
# invisible operators, BOM, interlinear annotations, tag characters (used to smuggle hidden
# ASCII), soft hyphen, ... tests/core/test_text.py holds this equal to the Unicode database's.
_INVISIBLE = ("\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f\u2028-\u202e"
              "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb")
# ... and those above U+FFFF, matched apart: in one character class they would make every scan
# three times slower, and only a text holding such characters needs this second scan.
_INVISIBLE_ASTRAL = ("\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
                     "\U000e0001\U000e0020-\U000e007f")
# A zero-width joiner between two emoji (👩‍💻) builds one picture: that one is left alone.
_EMOJI = ("\u00a9\u00ae\u203c\u2049\u2122\u2139\u2194-\u21aa\u231a-\u23ff\u24c2\u25aa-\u27bf\u2934\u2935"
          "\u2b05-\u2b55\u3030\u303d\u3297\u3299\ufe0f\U0001f000-\U0001faff")
_UNSAFE = re.compile(f"[{_C0_C1}{_INVISIBLE}]")
# (the patterns below are compiled on first use: every command imports this module, and most
# never meet a character above U+FFFF, a zero-width joiner or the clipboard)


@cache
def _unsafe_astral() -> re.Pattern[str]:
    return re.compile(f"[{_INVISIBLE_ASTRAL}]")


@cache
def _is_emoji() -> re.Pattern[str]:
    return re.compile(f"[{_EMOJI}]")


_NAMES = {"\x1b": "␛", "\r": "␍", "\x07": "␇", "\x08": "␈", "\x00": "␀"}


def _joins_emoji(m: re.Match[str]) -> bool:
    """A zero-width joiner with an emoji on either side."""
    text, at = m.string, m.start()
    return (m.group(0) == "\u200d" and 0 < at < len(text) - 1
            and bool(_is_emoji().match(text, at - 1)) and bool(_is_emoji().match(text, at + 1)))


def _visible(m: re.Match[str]) -> str:
    ch = m.group(0)
    if _joins_emoji(m):
        return ch
    if ch in _NAMES:
        return _NAMES[ch]
    code = ord(ch)
    return f"\\x{code:02x}" if code <= 0xFF else f"<U+{code:04X}>"


def printable(text: str) -> str:
    """`text` with every terminal control character and every invisible format character (bidi
    controls, zero-width characters, ...) replaced by a visible stand-in: ␛ for ESC, `\\x9b` for
    a C1 control, `<U+202E>` for a format character."""
    return _cleaned(text, _visible)


def _cleaned(text: str, replace: Callable[[re.Match[str]], str]) -> str:
    out = _UNSAFE.sub(replace, text)
    # (a text with a character above U+FFFF is longer in UTF-16 code units than in characters)
    if not text.isascii() and len(text.encode("utf-16-le", "surrogatepass")) > 2 * len(text):
        out = _unsafe_astral().sub(replace, out)
    return out


def one_line(text: str, limit: int | None = None) -> str:
    """Whitespace collapsed to single spaces, control characters made visible, optionally cut."""
    flat = printable(" ".join(text.split()))
    if limit is not None and len(flat) > limit:
        return flat[: max(0, limit - 1)] + "…"
    return flat



# -- Markdown code spans --------------------------------------------------------------------------
_BACKTICKS = LazyPattern(r"`+")


def code_spans(text: str) -> list[tuple[int, int]]:
    """The (start, end) of each match of `` (`+)(?:(?!\\1).)+?\\1 `` in `text`, in order, as
    `finditer` gives them (a run of backticks, at least one character that does not start a run as
    long, the first such run, no newline), in linear time. Why: re tried each length of each run,
    each read to the line's end: a line of 1,000 backticks took 10 s to export (cubic).

    At a run of `r` backticks, re's greedy `(`+)` tries `k = r, r-1, …`: a `k` of at most `r/2`
    fails at once (the run's rest starts a run as long), and for a larger `k` the closing run is
    the first later run of at least `k` in the line (no place inside the opening run starts one).
    So the match takes `k = min(r, M)`, M the longest later run in the line, when `2k > r`;
    otherwise re tries again one backtick further."""
    spans: list[tuple[int, int]] = []
    if "`" not in text:
        return spans
    line_start = 0
    for line in text.split("\n"):
        if "`" in line:
            runs = [(m.start(), m.end() - m.start()) for m in _BACKTICKS.finditer(line)]
            longest_after = [0] * (len(runs) + 1)  # the longest run after each one
            for j in range(len(runs) - 1, -1, -1):
                longest_after[j] = max(runs[j + 1][1] if j + 1 < len(runs) else 0, longest_after[j + 1])
            j, skip = 0, 0  # the run re is in, and how many of its backticks a match took
            while j < len(runs):
                start, length = runs[j]
                later = longest_after[j]
                for d in range(skip, length):
                    r = length - d
                    k = min(r, later)
                    if 2 * k > r:
                        t = j + 1
                        while runs[t][1] < k:
                            t += 1
                        spans.append((line_start + start + d, line_start + runs[t][0] + k))
                        j, skip = (t, k) if k < runs[t][1] else (t + 1, 0)
                        break
                else:
                    j, skip = j + 1, 0
        line_start += len(line) + 1
    return spans

# -- the clipboard --------------------------------------------------------------------------------
# A whole ESC-initiated sequence: CSI (ESC [ ... final byte), the string commands OSC, DCS, SOS,
# PM and APC (ESC ] P X ^ _ ... up to BEL or the string terminator ESC \ or U+009C, or to the end
# of the line when unterminated), and the two-byte escapes (ESC 7, ESC c, ...); also their
# 8-bit forms (U+009B CSI, U+009D OSC, U+0090 DCS, ...).
@cache
def _sequence() -> re.Pattern[str]:
    return re.compile(
        r"(?:\x1b\[|\x9b)[\x30-\x3f]*[\x20-\x2f]*[\x40-\x7e]?"
        r"|(?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f])[^\x07\x1b\x9c\n]*(?:\x07|\x1b\\|\x9c)?"
        r"|\x1b[\x20-\x2f]*[\x30-\x7e]?"
    )


def clipboard_text(text: str) -> tuple[str, int]:
    """`text` fit for the clipboard, and how many control sequences and characters were dropped:
    ESC-initiated sequences go as a whole, then every other C0 or C1 control except newline and
    tab (a CRLF becomes a newline). Pasted into a terminal, the raw text would run them."""
    kept, sequences = _sequence().subn("", text)
    kept = kept.replace("\r\n", "\n")
    kept, controls = re.subn(f"[{_C0_C1}]", "", kept)
    return kept, sequences + controls


# -- the CLI's streams ------------------------------------------------------------------------------
def json_escaped(text: str) -> str:
    """JSON text with every character `printable()` would replace written as a `\\uXXXX` escape
    (a surrogate pair above U+FFFF): the same JSON value, but nothing a terminal acts on or hides.
    Such characters only occur inside JSON strings, where the escape means the character itself."""
    return _cleaned(text, _json_escape)


def _json_escape(m: re.Match[str]) -> str:
    ch = m.group(0)
    if _joins_emoji(m):
        return ch
    code = ord(ch)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


class SafeStream:
    """A text stream that passes everything written through `printable()` (or, for JSON output,
    `json_escaped()`): the CLI's stdout and stderr while a command runs, so that no print of a
    transcript's text, a note's body or a typed argument can reach the terminal raw, whichever
    code path prints it. Newlines and tabs pass; the rest of the stream (isatty, fileno, flush,
    encoding) is the wrapped one's, which `inner` gives to code that writes terminal sequences
    of its own making (rich's tables and progress bars, over text already made printable)."""

    def __init__(self, stream: TextIO, json: bool = False) -> None:
        self.inner = stream
        self._clean = json_escaped if json else printable

    def write(self, text: str) -> int:
        self.inner.write(self._clean(text))
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def unwrapped(stream: TextIO) -> TextIO:
    """The stream a `SafeStream` wraps (any other stream as it is)."""
    return stream.inner if isinstance(stream, SafeStream) else stream


# -- masking what is shown -----------------------------------------------------------------------
# Masking of what a local reader is shown (`read`/`search --mask-secrets`, the app's screen-sharing
# toggle): off by default, on inside `masking(True)`. A context variable, so a search run in one
# worker thread masks its previews and snippets (core/search/hits.py masks the window of an entry's
# text a preview is cut from, core/secrets.py's `masked_window`) without another caller's being
# affected. Here, not in core/secrets.py: a search asks whether masking is on every time, and
# imports the masking rules (~140 patterns, base64) only when it is.
_MASKING: ContextVar[bool] = ContextVar("sessionscope_masking", default=False)


@contextmanager
def masking(on: bool = True) -> Iterator[None]:
    token = _MASKING.set(on)
    try:
        yield
    finally:
        _MASKING.reset(token)


def masking_on() -> bool:
    return _MASKING.get()
