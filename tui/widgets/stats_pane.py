"""The Stats tab: activity per day (messages and sessions, per project and agent), tokens per day
per model, and cost per day with its total, over a period switched with `[` and `]`.

Charts are Textual's own `Sparkline`s, one row per series with its name and total beside it (small
multiples): a few milliseconds to import, and the names stay our `Text`. (textual-plotext draws
axes and stacked bars, but costs a second dependency and ~100 ms of imports, and its legends are
ANSI text plotext builds from the names: project and model names come from transcripts.)

The pane is made when its tab is first shown, and its figures (core/stats over the catalog's
activity rows, priced by genai-prices) are computed in a thread worker, once for every day,
so that switching the period only slices them. Shown again, the tab computes them afresh.
"""
from __future__ import annotations

from datetime import date, tzinfo
from typing import Any, Callable, ClassVar, Sequence

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widget import Widget
from textual.widgets import Label, Sparkline, Static

from sessionscope.core.format import count, human_tokens
from sessionscope.core.text import one_line

__all__ = ["PERIODS", "StatsPane", "short_names"]

#: the periods `[` and `]` step through: (label, days; None: since the first day with activity)
PERIODS: tuple[tuple[str, int | None], ...] = (
    ("7 days", 7), ("30 days", 30), ("90 days", 90), ("1 year", 365), ("all", None))

#: rows of one chart before the rest are summed into one row
TOP = 6

Source = Callable[[], "tuple[list[Any], list[Any]]"]  # (sessions, activity rows)


def _name(text: str, width: int = 24) -> Text:
    """A name from a transcript (project, agent, model) as plain text: one line, controls made
    visible, never markup; cut to `width` from the left end."""
    shown = one_line(text)
    if len(shown) > width:
        shown = shown[: width - 1] + "…"
    return Text(shown)


def short_names(paths: Sequence[str]) -> dict[str, str]:
    """Each project path as its last folder names, as few as keep it apart from the others'
    ("web-dashboard" alone, else "work/web-dashboard" beside "old/web-dashboard")."""
    parts = {p: [x for x in p.replace("\\", "/").split("/") if x] or [p] for p in paths}
    out: dict[str, str] = {}
    for p, names in parts.items():
        for n in range(1, len(names) + 1):
            tail = names[-n:]
            if not any(q != p and other[-n:] == tail for q, other in parts.items()):
                break
        out[p] = "/".join(tail) if tail else p
    return out


def _money(value: float) -> str:
    return f"${value:,.2f}"


class ChartRow(Horizontal):
    """A series' name, its sparkline over the days, and its total."""

    def __init__(self, name: Text, values: Sequence[float], total: str, *, total_row: bool = False) -> None:
        super().__init__(classes="-total" if total_row else "")
        self._parts = name, values, total

    def compose(self) -> ComposeResult:
        name, values, total = self._parts
        yield Label(name, classes="stats-name")
        # More days than columns: a column shows the busiest of its days (the bars are scaled to
        # the busiest day, so a mean would flatten a long period).
        yield Sparkline(list(values), summary_function=max)
        yield Label(Text(total, justify="right"), classes="stats-total")


class StatsPane(Vertical, can_focus=True):
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left_square_bracket", "period(-1)", "Shorter", id="stats.shorter"),
        Binding("right_square_bracket", "period(1)", "Longer", id="stats.longer"),
        Binding("r", "reload", "Re-read", id="stats.reload"),
    ]

    DEFAULT_CSS = """
    StatsPane {
        background: $surface;
        padding: 0 1;
        #stats-head { height: 2; color: $text-muted; }
        #stats-charts { height: 1fr; }
        .stats-title { margin-top: 1; text-style: bold; }
        .stats-note { color: $text-muted; }
        ChartRow { height: 1; }
        ChartRow.-total { height: 2; }
        ChartRow.-total .stats-name { text-style: bold; }
        .stats-name { width: 26; }
        .stats-total { width: 14; padding-left: 1; }
        Sparkline { width: 1fr; height: 1fr; }
        .stats-axis { height: 1; padding-left: 26; padding-right: 14; color: $text-muted; }
        .stats-axis Label { width: 1fr; }
        .stats-axis .-last { text-align: right; }
    }
    """

    def __init__(self, source: Source, *, today: Callable[[], date], tz: tzinfo | None = None,
                 id: str | None = None) -> None:
        super().__init__(id=id)
        self._source = source
        self._today = today
        self._tz = tz
        self._period = 1  # 30 days
        self._all: Any = None  # core.stats Stats over every day, once computed
        self.shown: Any = None  # the Stats of the period on screen

    def compose(self) -> ComposeResult:
        yield Static(Text("computing…"), id="stats-head")
        yield VerticalScroll(id="stats-charts")

    def on_mount(self) -> None:
        self.reload()

    # -- computing --------------------------------------------------------------------------
    def reload(self) -> None:
        """Compute the figures again (in a thread): the tab was shown, or `r`."""
        self._compute(self._today())

    @work(thread=True, exclusive=True, group="stats", exit_on_error=False)
    def _compute(self, today: date) -> None:
        from sessionscope.core.stats.aggregate import compute

        try:
            sessions, rows = self._source()
            stats = compute(sessions, rows, until=today, today=today, tz=self._tz)
        except Exception as exc:  # noqa: BLE001 - said in the pane, never a crash
            self.app.call_from_thread(self._failed, f"{type(exc).__name__}: {exc}")
            return
        self.app.call_from_thread(self._computed, stats)

    def _failed(self, reason: str) -> None:
        self.query_one("#stats-head", Static).update(Text(one_line(f"stats could not be computed: {reason}")))

    def _computed(self, stats: Any) -> None:
        self._all = stats
        self._show()

    # -- showing ----------------------------------------------------------------------------
    def action_period(self, step: int) -> None:
        self._period = max(0, min(len(PERIODS) - 1, self._period + step))
        if self._all is not None:
            self._show()

    def action_reload(self) -> None:
        self.reload()

    def _show(self) -> None:
        from datetime import timedelta

        label, days = PERIODS[self._period]
        stats = self._all
        shown = stats.window(None if days is None else stats.last - timedelta(days=days - 1))
        self.shown = shown
        periods = "  ".join(f"[{name}]" if i == self._period else name for i, (name, _) in enumerate(PERIODS))
        t = shown.tokens
        unpriced = sum(n for _, n in shown.unpriced())
        head = Text()
        head.append(f"{periods}    ([ and ] change the period)\n")
        head.append(f"{shown.first} to {shown.last}: ", style="bold")
        head.append(f"{count(shown.sessions, 'session')}, {count(shown.messages, 'message')}, {human_tokens(t.total)} tokens, "
                    f"{_money(shown.cost)}" + (f" (+{human_tokens(unpriced)} tokens unpriced)" if unpriced else ""))
        self.query_one("#stats-head", Static).update(head)
        charts = self.query_one("#stats-charts", VerticalScroll)
        with self.app.batch_update():
            charts.remove_children()
            charts.mount_all(self._charts(shown))

    def _charts(self, s: Any) -> list[Widget]:
        from sessionscope.core.stats.aggregate import NO_MODEL

        days = s.days
        out: list[Widget] = []
        first, last = f"{days[0].day:%Y-%m-%d}", f"{days[-1].day:%Y-%m-%d}"

        def axis_row() -> Horizontal:
            return Horizontal(Label(Text(first)), Label(Text(last), classes="-last"), classes="stats-axis")

        # -- activity
        out.append(Label("Activity per day: messages (sessions)", classes="stats-title"))
        out.append(ChartRow(Text("all messages"), [d.messages for d in days], f"{s.messages:,}", total_row=True))
        out.append(ChartRow(Text("sessions"), [len(d.sessions) for d in days], f"{s.sessions:,}"))
        for what, noun in (("projects", "project"), ("agents", "agent")):
            ranked = s.by(what)
            names = short_names([k for k, _, _ in ranked]) if what == "projects" else {}
            for key, sessions, messages in ranked[:TOP]:
                series = [getattr(d, what).get(key, (set(), 0))[1] for d in days]
                out.append(ChartRow(_name(names.get(key, key)), series, f"{messages:,} ({sessions})"))
            rest = ranked[TOP:]
            if rest:
                keys = {k for k, _, _ in rest}
                series = [sum(n for k, (_, n) in getattr(d, what).items() if k in keys) for d in days]
                out.append(ChartRow(Text(f"{count(len(rest), 'other ' + noun)}"), series,
                                    f"{sum(r[2] for r in rest):,}"))
        out.append(axis_row())
        # -- tokens
        models = s.by_model()
        out.append(Label("Tokens per day by model (input, output, cache read and write)", classes="stats-title"))
        out.append(ChartRow(Text("all models"), [d.tokens.total for d in days], human_tokens(s.tokens.total),
                            total_row=True))
        for model, usage, _ in models[:TOP]:
            series = [d.models[model].total if model in d.models else 0 for d in days]
            out.append(ChartRow(_name(model), series, human_tokens(usage.total)))
        if len(models) > TOP:
            keys = {m for m, _, _ in models[TOP:]}
            series = [sum(u.total for m, u in d.models.items() if m in keys) for d in days]
            out.append(ChartRow(Text(count(len(models) - TOP, "other model")), series,
                                human_tokens(sum(u.total for _, u, _ in models[TOP:]))))
        out.append(axis_row())
        # -- cost
        priced = [(m, c) for m, _, c in models if c is not None]
        out.append(Label("Cost per day (US dollars, genai-prices' table)", classes="stats-title"))
        out.append(ChartRow(Text("all priced models"), [d.cost for d in days], _money(s.cost), total_row=True))
        for model, cost in sorted(priced, key=lambda t: -t[1])[:TOP]:
            out.append(ChartRow(_name(model), [d.costs.get(model, 0.0) for d in days], _money(cost)))
        out.append(axis_row())
        unpriced = s.unpriced()
        if unpriced:
            note = Text("not priced (no price in the table; counted in the tokens, not in the cost): ")
            for i, (model, n) in enumerate(unpriced):
                note.append(", " if i else "")
                note.append(one_line(model) if model != NO_MODEL else model)
                note.append(f" {human_tokens(n)}")
            out.append(Static(note, classes="stats-note"))
        if not any(d.messages or d.models for d in days):
            out.insert(0, Static(Text("no activity in this period"), classes="stats-note"))
        return out
