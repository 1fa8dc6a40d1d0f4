"""Small helpers the Line API lists share for laying text into fixed-width cells."""
from __future__ import annotations

from datetime import datetime, timezone
from typing import Callable

from rich.style import Style
from rich.text import Text


def fit(value: str, width: int, right: bool = False, style: Style | None = None) -> Text:
    """`value` in exactly `width` cells: cut with an ellipsis, padded on the left or right."""
    text = Text(value, style=style or "", no_wrap=True, end="")
    text.truncate(width, overflow="ellipsis")
    pad = width - text.cell_len
    if pad > 0:
        if right:
            text = Text(" " * pad, end="") + text
        else:
            text.append(" " * pad)
    return text


def foreground(style: Style) -> Style:
    """A style's text attributes without its background, to lay over a row's own background.

    Components are read with their full (non-partial) style and reduced with this: a partial
    style skips the blending of translucent colours such as `$foreground-muted`, which would
    then come out at full strength."""
    return Style(color=style.color, bold=style.bold, italic=style.italic, underline=style.underline,
                 strike=style.strike, reverse=style.reverse)


def clock_of(now: datetime | Callable[[], datetime] | None) -> Callable[[], datetime]:
    """The clock a widget shows times against: the real local time, a fixed instant (tests,
    snapshots), or a callable."""
    if now is None:
        return lambda: datetime.now(timezone.utc).astimezone()
    if isinstance(now, datetime):
        return lambda: now
    return now
