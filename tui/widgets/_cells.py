"""Small helpers the Line API lists share for laying text into fixed-width cells."""
from __future__ import annotations

from datetime import datetime, timezone
from typing import Callable

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
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


def fit_pieces(pieces: list[tuple[str, Style | None]], width: int, right: bool = False,
                pad_style: Style | None = None) -> list[Segment]:
    """Styled pieces of text in exactly `width` cells: cut with an ellipsis (styled as the piece
    it cuts, as `Text.truncate` does) when longer, else padded on the right (or the left)."""
    total = sum(cell_len(text) for text, _ in pieces)
    if total <= width:
        out = [Segment(text, style) for text, style in pieces if text]
        if total < width:
            pad = Segment(" " * (width - total), pad_style)
            out.insert(0, pad) if right else out.append(pad)
        return out
    out, room = [], width - 1
    for text, style in pieces:
        size = cell_len(text)
        if size <= room:
            out.append(Segment(text, style))
            room -= size
            continue
        out.append(Segment(set_cell_size(text, room) + "…", style))
        break
    return out


def fit_segments(segments: list[Segment], width: int) -> list[Segment]:
    """A row's segments in `width` cells: cut with an ellipsis when longer (only in a very
    narrow list), else padded."""
    total = sum(cell_len(seg.text) for seg in segments)
    if total <= width:
        return segments + [Segment(" " * (width - total))] if total < width else segments
    cut = list(Segment.divide(segments, [width - 1]))[0] if width > 1 else []
    last = cut[-1].style if cut else None
    return cut + [Segment("…", last)]
