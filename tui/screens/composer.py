"""The brief composer: a task, its candidate findings from prior sessions, each finding's source in
its transcript, and the brief of the findings the user approved, live, against its token budget.

Layout: the task input and a budget line on top; the findings grouped by type on the left; on
the right the highlighted finding's source entry in the transcript reader, and the brief below.

Retrieval (`core.brief.compose`) runs in a thread worker with the app's library and index, after
the index is built (until then the budget line says it is waiting). Enter in the task input
searches again; decisions on findings found again are kept. Nothing is written anywhere unless
the user asks: `c` copies the brief (OSC 52), `w` writes it to a file. A brief written with `w`
or printed by `sessionscope brief` is also kept, with its approved findings, in sessionscope's
data folder for its project (core/brief/approved.py), where the MCP tool `approved_brief` gives
it to the next agent session. In `sessionscope brief`
mode (`exit_with_brief=True`) closing the composer exits the app with the brief as its return
value, which the command prints on stdout.

The scope line under the budget says which project's sessions are searched and over which
window before anything runs (and, once it ran, what was searched); ctrl+o (`p` on the list) picks another project from
every project some session names (the current one highlighted) and searches again.

An approved finding the token budget leaves out is marked in the list ("approved, left out by the
budget") and counted in the status line.

The model assist (core/brief/assist.py) is off unless asked: `m` sends the sessions read to the
user's agent CLI (the one `sessionscope brief --assist` named, else claude or codex, whichever is
on PATH) and adds the findings that pass its checks, marked "proposed by the model";
`brief --assist X` asks after every search. A failure is one notice; the list stays as it was.

Keys: on the list a/x/e/T/K/J (see FindingList) · + add the reader's highlighted entry as a
finding of your own · s search all sessions for an entry to add · ctrl+o (or p) project · m ask the model ·
c copy · w write · tab moves between the task, the list and the reader · escape/q close (escape
in the task input goes back to the list first).
"""
from __future__ import annotations

import asyncio
import os
import shutil
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, Iterable, cast

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Input, Static
from textual.worker import Worker, WorkerState

from sessionscope.core.brief.compose import (
    FOUND,
    UNAVAILABLE,
    BriefResult,
    Budget,
    Rendered,
    Task,
    compose,
    render_brief,
)
from sessionscope.core.brief.assist import ASSISTS, DEFAULT_TIMEOUT, AssistOutcome
from sessionscope.core.brief.retrieval import WINDOW_DAYS, project_root
from sessionscope.core.search.hits import Hit
from sessionscope.core.secrets import mask_text
from sessionscope.core.text import one_line, printable
from sessionscope.tui.widgets._draft import entry_text, own_finding
from sessionscope.tui.widgets.brief_preview import BriefPreview
from sessionscope.tui.widgets.finding_list import DraftItem, FindingList
from sessionscope.tui.widgets.source_context import SourceContext

if TYPE_CHECKING:
    from sessionscope.tui.app import SessionScopeApp
    from sessionscope.tui.screens.write_brief import WriteTarget

#: how long the composer looks for the app's index build to start before searching without it
INDEX_START_WAIT = 5.0


class ComposerScreen(Screen[str | None]):
    """Compose a prior-session brief for `task` in `project` (default: the working directory's
    git repository). Dismissed (or, with `exit_with_brief`, exits the app) with the brief text,
    or None when no retrieval finished."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("plus", "add_entry", "Add entry", key_display="+", id="composer.add"),
        Binding("s", "search", "Search", id="composer.search"),
        Binding("ctrl+o", "pick_project", "Project", id="composer.project"),
        Binding("p", "pick_project", "Project", show=False, id="composer.project_p"),
        Binding("m", "assist", "Ask model", id="composer.assist"),
        Binding("c", "copy", "Copy", id="composer.copy"),
        Binding("w", "write", "Write", id="composer.write"),
        Binding("escape", "close", "Close", id="composer.close"),
        Binding("q", "close", "Close", show=False, id="composer.close_q"),
    ]

    @dataclass
    class _Composed(Message):
        seq: int
        result: BriefResult

    @dataclass
    class _Assisted(Message):
        seq: int
        outcome: AssistOutcome

    def __init__(
        self,
        task: str = "",
        project: str | None = None,
        *,
        budget: Budget = Budget(),
        exclude: Iterable[str] = (),
        hints: Task | None = None,
        exit_with_brief: bool = False,
        project_note: str = "",
        assist: str | None = None,
        assist_timeout: float = DEFAULT_TIMEOUT,
    ) -> None:
        """`hints` carries the files, symbols, issues and branch of `sessionscope brief`'s
        options (its text is ignored: the task input's is used). `project_note` says where the
        project came from ("the highlighted session's"); `assist` asks that agent CLI for
        proposed findings after every search."""
        super().__init__()
        self.task_text = " ".join(task.split())
        self.project = project
        self.budget = budget
        self.exclude = tuple(exclude)
        self.hints = hints or Task("")
        self.exit_with_brief = exit_with_brief
        self.project_note = project_note
        self.assist = assist
        self.assist_timeout = assist_timeout
        self.result: BriefResult | None = None
        self.rendered: Rendered | None = None
        self._seq = 0
        self._status = ""

    @property
    def ss_app(self) -> SessionScopeApp:
        return cast("SessionScopeApp", self.app)

    @property
    def findings(self) -> FindingList:
        return self.query_one(FindingList)

    @property
    def context(self) -> SourceContext:
        return self.query_one(SourceContext)

    @property
    def preview(self) -> BriefPreview:
        return self.query_one(BriefPreview)

    def compose(self) -> ComposeResult:
        with Vertical(id="composer-top"):
            yield Input(self.task_text, placeholder="Describe the task, then press enter", id="composer-task")
            yield Static("", id="composer-budget", markup=False)
            yield Static("", id="composer-scope", markup=False)
        with Horizontal(id="composer-body"):
            yield FindingList(id="composer-findings")
            with Vertical(id="composer-right"):
                yield SourceContext(self.ss_app.library, id="composer-context")
                yield BriefPreview(id="composer-preview")
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#composer-task", Input).border_title = "Task"
        self.findings.border_title = "Candidate findings"
        self.preview.show(None, self.budget.tokens, note="The brief of the approved findings shows here.")
        self._scope_line()
        if self.task_text:
            self.findings.focus()
            self.retrieve()
        else:
            self.query_one("#composer-task", Input).focus()
            self._budget_line("type the task and press enter")

    # -- retrieval ------------------------------------------------------------------------------
    def retrieve(self, text: str | None = None) -> None:
        """Search prior sessions for the task (the input's text unless given)."""
        task_input = self.query_one("#composer-task", Input)
        text = " ".join((task_input.value if text is None else text).split())
        if text != task_input.value:
            task_input.value = text
        if not text:
            self._budget_line("type the task and press enter")
            return
        self.task_text = text
        self._seq += 1
        self.findings.set_notes(["Searching prior sessions…"])
        self._budget_line("searching…")
        self._after_index(self._seq, Task(text, self.hints.files, self.hints.symbols, self.hints.issues,
                                          self.hints.branch))

    @on(Input.Submitted, "#composer-task")
    def _task_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.retrieve(event.value)
        self.findings.focus()

    @work(exclusive=True, group="composer-wait", exit_on_error=False)
    async def _after_index(self, seq: int, task: Task) -> None:
        """Wait for the app's index build (the library worker), then retrieve in a thread."""
        app = self.ss_app
        looked = 0.0
        while True:
            building = [w for w in app.workers if w.group == "library" and w.node is app and not w.is_finished]
            if building:
                self._budget_line("waiting for the search index to be built…")
                for w in building:
                    try:
                        await w.wait()
                    except Exception:  # noqa: BLE001 - a failed build leaves no index: compose says so
                        pass
                break
            if app.index is not None or app.library_loaded or looked >= INDEX_START_WAIT or not app.is_running:
                # (a load that ended without an index, e.g. one that could not be built: no wait)
                break
            # This screen can be the app's first and mount before the app starts its scan.
            await asyncio.sleep(0.05)
            looked += 0.05
        if seq == self._seq:
            self._budget_line("searching…")
            self._retrieve_in_thread(seq, task)

    @work(thread=True, exclusive=True, group="composer", exit_on_error=False)
    def _retrieve_in_thread(self, seq: int, task: Task) -> None:
        app = self.ss_app
        try:
            result = compose(app.library, app.index, task, project=self.project, budget=self.budget,
                             exclude=self.exclude, now=app.now)
        except Exception as exc:  # noqa: BLE001 - shown as the outcome, the composer stays usable
            result = compose(None, None, task, project=self.project, budget=self.budget,
                             unavailable=f"retrieval failed ({type(exc).__name__}: {exc})")
        self.post_message(self._Composed(seq, result))

    @on(_Composed)
    def _composed(self, message: _Composed) -> None:
        if message.seq != self._seq:
            return  # an older task's answer
        result = self.result = message.result
        self._scope_line()
        if result.status == UNAVAILABLE:
            note = f"Session history unavailable: {result.reason}."
        else:
            note = "No candidate findings" + (f": {result.reason}." if result.reason else ".")
        self.findings.set_notes([note, "", "s searches every session for an entry to add as a finding."])
        self.findings.set_findings(result.findings)
        if not self.findings.items:
            self.context.clear("No finding to show the source of.")
        self._refresh_brief()
        if self.assist and result.status != UNAVAILABLE and result.loaded:
            self._ask_model(self.assist)

    @on(Worker.StateChanged)
    def _worker_failed(self, event: Worker.StateChanged) -> None:
        if event.state is WorkerState.ERROR and event.worker.group in ("composer", "composer-wait", "composer-assist"):
            self.notify(printable(f"the brief could not be composed: {event.worker.error}"), severity="error",
                        markup=False)

    # -- the brief ------------------------------------------------------------------------------
    def _refresh_brief(self) -> None:
        if self.result is None:
            return
        self.rendered = render_brief(self.result, self.findings.approved_findings, tokens=self.budget.tokens)
        self.findings.set_left_out(self.rendered.omitted)
        self.preview.show(self.rendered, self.budget.tokens)
        self._budget_line()

    def _budget_line(self, status: str | None = None) -> None:
        if status is not None:
            self._status = status
        b = self.budget
        if self.result is None:
            parts = [f"rounds 0/{b.rounds}", f"sessions read 0/{b.sessions}", f"tokens 0/{b.tokens}"]
        else:
            u = self.result.usage
            tokens = self.rendered.tokens if self.rendered else 0
            parts = [f"rounds {len(u.rounds)}/{b.rounds}", f"sessions read {len(u.sessions_read)}/{b.sessions}",
                     f"tokens {tokens}/{b.tokens}"]
            if status is None and not self.findings.items:
                self._status = "no candidate findings"
            elif status is None:
                counts = self.findings.draft.counts()
                left = len(self.rendered.omitted) if self.rendered else 0
                out = f" ({left} left out by the budget)" if left else ""
                self._status = (f"{len(self.findings.items)} findings: {counts['approved']} approved{out}, "
                                f"{counts['rejected']} rejected, {counts['undecided']} undecided")
        line = Text(" · ".join(parts))
        if self._status:
            line.append("   " + one_line(self._status), style="italic")
        self.query_one("#composer-budget", Static).update(line)

    def _scope_line(self) -> None:
        """Which project's sessions, over which window: before the search from the settings,
        after it from what was searched."""
        root, how = project_root(self.project)
        result = self.result
        if result is not None and result.scope.project == root and result.scope.searched:
            text = f"Scope: {result.scope.line()}"
        else:
            name = os.path.basename(root.rstrip("/")) or root
            note = self.project_note or how
            text = f"Scope: {name} sessions ({note}), last {WINDOW_DAYS} days, widened if too few"
        line = Text(one_line(mask_text(text)))
        line.append("  ^o another project", style="italic")
        self.query_one("#composer-scope", Static).update(line)

    @property
    def brief_text(self) -> str | None:
        """The brief as it stands (None before the first retrieval finished)."""
        return self.rendered.text if self.rendered is not None else None

    @on(FindingList.DraftChanged)
    def _draft_changed(self) -> None:
        self._refresh_brief()

    @on(FindingList.FindingHighlighted)
    def _highlighted(self, event: FindingList.FindingHighlighted) -> None:
        self._show_source(event.item)

    def _show_source(self, item: DraftItem) -> None:
        f = item.finding
        date = f.date.date().isoformat() if f.date else "undated"
        session = self.ss_app.library.get(f.source.session_id)
        title = (session.title if session else None) or f.source.session_id
        self.context.show(f.source.session_id, f.source.entry_id,
                          f"{f.label} · {f.source.agent} · {date} · {one_line(title, 80)}")

    # -- editing --------------------------------------------------------------------------------
    @on(FindingList.EditRequested)
    def _edit(self, event: FindingList.EditRequested) -> None:
        from sessionscope.tui.screens.edit_finding import EditFindingScreen

        item_id = event.item.id

        def done(text: str | None) -> None:
            if text is not None:
                self.findings.set_text(item_id, text)

        self.app.push_screen(EditFindingScreen(event.item.finding), done)

    def action_add_entry(self) -> None:
        """The reader's highlighted entry as a finding of the user's own (approved; T retypes it)."""
        session, entry = self.context.session, self.context.highlighted_entry
        if self.result is None:
            self.notify("wait for the search to finish first", severity="warning")
            return
        if session is None or entry is None:
            self.notify("no transcript entry highlighted", severity="warning")
            return
        if not entry_text(entry):
            self.notify("this entry has no text to quote", severity="warning")
            return
        finding = own_finding(session, entry)
        if self.findings.add(finding):
            self.notify("added as a decision (approved); T changes its type", title="Added", timeout=4)
        else:
            self.notify("this entry is already in the list", severity="warning")
        self.findings.focus()

    def action_search(self) -> None:
        from sessionscope.tui.screens.composer_search import ComposerSearchScreen

        self.app.push_screen(ComposerSearchScreen(), self._hit_chosen)

    def _hit_chosen(self, hit: Hit | None) -> None:
        if hit is None:
            return
        session = self.ss_app.library.get(hit.session_id)
        title = (session.title if session else None) or hit.session_id
        view = self.context.show(hit.session_id, hit.entry_id,
                                 f"Search hit · {hit.agent} · {one_line(title, 80)} · + adds it")
        if view is not None:
            view.focus()

    # -- scope ----------------------------------------------------------------------------------
    def action_pick_project(self) -> None:
        from sessionscope.tui.screens.pick_project import PickProjectScreen, known_projects

        projects = known_projects(self.ss_app.library.sessions())
        self.app.push_screen(PickProjectScreen(projects, project_root(self.project)[0]), self._project_picked)

    def _project_picked(self, path: str | None) -> None:
        if path is None or path == project_root(self.project)[0]:
            return
        self.project, self.project_note = path, "picked"
        self._scope_line()
        if " ".join(self.query_one("#composer-task", Input).value.split()):
            self.retrieve()

    # -- the model assist -----------------------------------------------------------------------
    def action_assist(self) -> None:
        result = self.result
        if result is None or not result.loaded:
            self.notify("search first: the model is asked about the sessions a search read", severity="warning")
            return
        kind = self.assist or next((k for k in ASSISTS if shutil.which(k)), None)
        if kind is None:
            self.notify("neither claude nor codex is on PATH: no agent CLI to ask", severity="warning")
            return
        self._ask_model(kind)

    def _ask_model(self, kind: str) -> None:
        self._budget_line(f"asking {kind} for proposed findings…")
        self._assist_in_thread(self._seq, kind)

    @work(thread=True, exclusive=True, group="composer-assist", exit_on_error=False)
    def _assist_in_thread(self, seq: int, kind: str) -> None:
        from sessionscope.core.brief.assist import assist

        result = self.result
        if result is None:
            return
        self.post_message(self._Assisted(seq, assist(result, kind, timeout=self.assist_timeout)))

    @on(_Assisted)
    def _assisted(self, message: _Assisted) -> None:
        from sessionscope.core.brief.assist import merge

        if message.seq != self._seq or self.result is None:
            return  # the task was searched again meanwhile
        outcome = message.outcome
        merge(self.result, outcome)
        if outcome.findings:
            self.findings.set_findings(self.result.findings)
        self.notify(printable(outcome.line()), severity="warning" if outcome.error else "information",
                    markup=False, timeout=6)
        self._budget_line(None)

    # -- output ---------------------------------------------------------------------------------
    def action_copy(self) -> None:
        text = self.brief_text
        if text is None:
            self.notify("no brief yet: the search has not finished", severity="warning")
            return
        self.app.copy_to_clipboard(text)
        self.notify(f"{self.rendered.tokens if self.rendered else 0} tokens", title="Brief copied", timeout=3)

    def action_write(self) -> None:
        from sessionscope.tui.screens.write_brief import WriteBriefScreen

        if self.brief_text is None:
            self.notify("no brief yet: the search has not finished", severity="warning")
            return
        self.app.push_screen(WriteBriefScreen(), self._write)

    def _write(self, target: WriteTarget | None) -> None:
        text = self.brief_text
        if target is None or text is None:
            return
        try:
            with open(target.path, "w" if target.overwrite else "x", encoding="utf-8") as fh:
                fh.write(text + "\n")
        except FileExistsError:
            self.notify(printable(f"{target.path} appeared meanwhile; write again to overwrite it"),
                        severity="warning", markup=False)
        except OSError as exc:
            self.notify(printable(f"cannot write {target.path}: {exc.strerror or exc}"), severity="error",
                        markup=False)
        else:
            kept = self.keep_approved()
            self.notify(printable(target.path + (f"; {kept}" if kept else "")), title="Brief written", timeout=4,
                        markup=False)

    def keep_approved(self) -> str:
        """Keep the approved brief where the next agent session finds it (core/brief/approved.py:
        sessionscope's data folder, per project; the MCP tool `approved_brief`). What to say
        about it ("" when no finding was approved: nothing to hand over)."""
        from sessionscope.core.brief import approved

        if self.result is None or self.rendered is None:
            return ""
        try:
            path = approved.save(self.result, self.rendered, self.findings.approved_findings)
        except OSError as exc:
            self.notify(printable(f"the approved brief could not be kept for agents: {exc.strerror or exc}"),
                        severity="warning", markup=False)
            return ""
        return "" if path is None else "kept for agents (approved_brief)"

    def action_close(self) -> None:
        task_input = self.query_one("#composer-task", Input)
        if self.focused is task_input and self.findings.items:
            self.findings.focus()
            return
        if self.exit_with_brief:
            self.keep_approved()  # `sessionscope brief` prints it: approved, so handed over too
            self.app.exit(self.brief_text)
        elif len(self.app.screen_stack) > 1:
            self.dismiss(self.brief_text)
        else:
            self.app.exit()
