"""Short human forms of times, counts and paths, shared by the CLI tables and the app.

Why here and not in the CLI: the app must not import the command line (it would pull argparse
and the CLI's rendering in), and both should say "3d ago" and "12.3k" the same way. Every
function takes `now` explicitly where time matters, so tests and snapshots can freeze it.
"""
from __future__ import annotations

import os
import re
from bisect import bisect_left
from datetime import date, datetime, timezone
from typing import Iterable

_UNITS = (("y", 365 * 86400), ("mo", 30 * 86400), ("d", 86400), ("h", 3600), ("m", 60))


def relative_time(ts: datetime | None, now: datetime | None = None) -> str:
    """`ts` as an age relative to `now`: "just now", "5m ago", "3d ago", "2mo ago"; "-" for None."""
    if ts is None:
        return "-"
    now = now or datetime.now(timezone.utc)
    secs = (now - ts).total_seconds()
    if secs < 0:
        return "just now"
    for unit, size in _UNITS:
        if secs >= size:
            return f"{int(secs // size)}{unit} ago"
    return "just now"


def human_tokens(n: int) -> str:
    """A token count in at most six characters: 950, 12.3k, 4.1M, 44.6B (a long history's cache
    reads run to billions); the next unit when rounding reaches 1000 of one (999,960 is 1.0M)."""
    if n < 1000:
        return str(n)
    for size, unit in ((1_000, "k"), (1_000_000, "M"), (1_000_000_000, "B")):
        shown = f"{n / size:.1f}"
        if float(shown) < 1000:
            return shown + unit
    return f"{n / 1_000_000_000_000:.1f}T"


def short_time(ts: datetime | None, now: datetime) -> str:
    """A timestamp as short as its distance from `now` allows, in `now`'s time zone:
    "14:22" today, "Feb 14 14:22" this year, "2025-11-03" before; "" for None.

    Taking the zone from `now` keeps output deterministic: a frozen UTC `now` shows UTC, the
    app's `datetime.now().astimezone()` shows local time.
    """
    if ts is None:
        return ""
    local = ts.astimezone(now.tzinfo) if now.tzinfo else ts
    if local.date() == now.date():
        return local.strftime("%H:%M")
    if local.year == now.year:
        return local.strftime("%b %d %H:%M")
    return local.strftime("%Y-%m-%d")


def project_name(project: str | None) -> str:
    """The last component of a project directory ("/home/dev/payments-api/" -> "payments-api")."""
    if not project:
        return ""
    stripped = project.rstrip("/\\")
    # Both separators: a Windows agent's cwd ("C:\\work\\infra") is read on POSIX too.
    return re.split(r"[\\/]", stripped)[-1] or project


def count(n: int, noun: str, plural: str | None = None) -> str:
    """`n` with thousands separators and the noun in the right number: "1 session", "1,234 sessions"."""
    return f"{n:,} {noun if n == 1 else (plural or noun + 's')}"


def short_ids(ids: Iterable[str], floor: int = 8, only: Iterable[str] | None = None) -> dict[str, str]:
    """Each session id as the text output prints it: the shortest prefix, of at least `floor`
    characters, that no other of `ids` starts with (a child as `PREFIX/its-own-part`), so what is
    printed names that session alone wherever an id is read back (`read`, a search hit's
    `ID#ENTRY`, `context --exclude-session`). With `only` (some of `ids`): those alone, each as
    the whole call gives it (a table of 20 rows out of 20,000 sessions measures 20 prefixes,
    not 20,000: ~60 ms of a whole `search` or `sessions` command).

    Why not always 8 characters: ids made from a clock (Codex's UUIDv7 change their first 8 hex
    digits once a minute) or by hand (`aaaaaaaa-...`) share them; 8 would then be ambiguous."""
    ids = list(ids)
    return short_among(sorted({i.partition("/")[0] for i in ids}), ids if only is None else list(only),
                       floor, every=only is None)


def short_among(heads: list[str], ids: list[str], floor: int = 8, every: bool = False) -> dict[str, str]:
    """`short_ids` of `ids` given every id's head (its part before a "/") once, sorted: each
    head of `ids` must be among them. `every`: `ids` are all of them (no lookup needed)."""
    only = None if every else ids
    # What each head shares with its neighbours in sorted order (the most it shares with any
    # other), measured only when their first `floor` characters are the same: otherwise `floor`
    # characters tell it apart whatever the rest (20,000 ids: a listing's table paid ~0.2 s).
    if only is not None:
        wanted = {i.partition("/")[0] for i in ids}
        at = {head: bisect_left(heads, head) for head in wanted}
    else:
        at = {head: n for n, head in enumerate(heads)}
    short = {}
    for head, n in at.items():
        shared = 0
        for other in (n - 1, n + 1):
            if 0 <= other < len(heads) and heads[other][:floor] == head[:floor]:
                shared = max(shared, len(os.path.commonprefix([heads[other], head])))
        short[head] = head[: max(floor, shared + 1)]
    out = {}
    for i in ids:
        if "/" in i:
            head, sep, tail = i.partition("/")
            out[i] = short[head] + sep + tail
        else:
            out[i] = short[i]
    return out


_RUN_NOUNS = {"compaction": ("compaction", "compactions"), "warmup": ("warm-up run", "warm-up runs")}


def child_runs(kinds: dict[str, int]) -> str:
    """Child runs by kind (SessionKind values), the most numerous first, in words:
    "6 subagent runs, 1 compaction, 1 exec run"."""
    ordered = sorted(kinds.items(), key=lambda kv: (-kv[1], kv[0]))
    return ", ".join(count(n, *_RUN_NOUNS.get(kind, (f"{kind} run", f"{kind} runs"))) for kind, n in ordered)


def _day(d: date) -> str:
    return f"{d.day} {d.strftime('%b')}"


def day_label(day: date) -> str:
    """A day as a divider names it: "Sat 21 Nov 2026"."""
    return f"{day.strftime('%a')} {_day(day)} {day.year}"


def date_span(first: datetime | None, last: datetime | None) -> str:
    """The local days from `first` to `last`, as short as they allow: "Fri 20 Nov 2026",
    "20–21 Nov 2026", "30 Nov – 2 Dec 2026", "31 Dec 2025 – 1 Jan 2026"; "" without times."""
    if first is None and last is None:
        return ""
    a = (first or last).astimezone()  # type: ignore[union-attr]
    b = (last or first).astimezone()  # type: ignore[union-attr]
    if b < a:
        a, b = b, a
    if a.date() == b.date():
        return day_label(a.date())
    if (a.year, a.month) == (b.year, b.month):
        return f"{a.day}–{_day(b)} {b.year}"
    if a.year == b.year:
        return f"{_day(a)} – {_day(b)} {b.year}"
    return f"{_day(a)} {a.year} – {_day(b)} {b.year}"
