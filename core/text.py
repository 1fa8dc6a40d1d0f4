"""Text hygiene for untrusted transcript content.

Why: transcripts hold whatever the agent and its tools printed, including terminal escape
sequences (`\\x1b]52;...` would write the clipboard, `\\x1b[2J` clears the screen). Everything
shown in a terminal passes through `printable()`, which makes control characters visible instead
of letting the terminal act on them. Markup safety is the UI's job (it never parses transcript
text as markup); this module only deals with bytes a terminal would interpret.
"""
from __future__ import annotations

import re

# C0 controls except tab and newline, DEL, and C1 controls (U+0080-U+009F: 8-bit CSI, OSC, ...).
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_NAMES = {"\x1b": "␛", "\r": "␍", "\x07": "␇", "\x08": "␈", "\x00": "␀"}


def _visible(m: re.Match[str]) -> str:
    ch = m.group(0)
    return _NAMES.get(ch) or f"\\x{ord(ch):02x}"


def printable(text: str) -> str:
    """`text` with every terminal control character replaced by a visible stand-in."""
    return _CONTROL.sub(_visible, text)


def one_line(text: str, limit: int | None = None) -> str:
    """Whitespace collapsed to single spaces, control characters made visible, optionally cut."""
    flat = printable(" ".join(text.split()))
    if limit is not None and len(flat) > limit:
        return flat[: max(0, limit - 1)] + "…"
    return flat
