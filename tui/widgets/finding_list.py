"""The composer's candidate findings: a Line API list grouped by type, where each finding is
approved, rejected, edited, retyped or moved.

Each finding takes two lines: a state mark and its quoted text, then its evidence label, who
said it, when, and its session. Marks: ✓ approved, ✎ edited (and approved), ✗ rejected,
· undecided; an approved finding that the brief's token budget leaves out keeps its mark in the
warning colour and its second line starts "approved, left out by the budget". A finding the
model assist proposed (core/brief/assist.py) says "proposed by the model" there. Approving or rejecting moves the cursor on to the next finding, so a list is
reviewed with a run of `a`/`x`; pressing the same key again takes the decision back.

Keys: up/down, k/j move · a approve · x reject · e edit (the screen opens the editor) ·
T next type · K/J (alt+up/alt+down) move within the type's group.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, Iterable, NamedTuple

from rich.style import Style
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.strip import Strip

from sessionscope.core.brief.assist import PROPOSED, proposed
from sessionscope.core.brief.finding import CHECKED_NOW, CONFLICTING, LABELS, VERIFIED_THEN, Finding
from sessionscope.core.secrets import mask_text
from sessionscope.core.text import one_line, printable

from ._draft import APPROVED, REJECTED, UNDECIDED, Draft, DraftItem
from ._line_list import LineList, ListMessage

__all__ = ["APPROVED", "REJECTED", "UNDECIDED", "DraftItem", "FindingList"]

_MOVE = Binding.Group("Move", compact=True)
_MARKS = {APPROVED: "✓", REJECTED: "✗", UNDECIDED: "·"}
LEFT_OUT = "approved, left out by the budget"
_EVIDENCE_STYLE = {CONFLICTING: "finding-list--conflicting", CHECKED_NOW: "finding-list--checked",
                   VERIFIED_THEN: "finding-list--verified"}


class _Line(NamedTuple):
    kind: str  # "group" | "text" | "facts" | "blank" | "note"
    item: DraftItem | None = None
    label: str = ""


class FindingList(LineList):
    """The draft's findings; `set_findings()` fills it, the messages report what changed."""

    ITEM_LINES = 2  # the finding's text and its facts

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("a", "approve", "Approve", id="composer.approve"),
        Binding("x", "reject", "Reject", id="composer.reject"),
        Binding("e", "edit", "Edit", id="composer.edit"),
        Binding("T", "cycle_type", "Type", id="composer.type"),
        Binding("K", "move(-1)", "Move up", group=_MOVE, id="composer.move_up"),
        Binding("J", "move(1)", "Move down", group=_MOVE, id="composer.move_down"),
        Binding("alt+up", "move(-1)", "Move up", show=False, id="composer.move_up_alt"),
        Binding("alt+down", "move(1)", "Move down", show=False, id="composer.move_down_alt"),
        Binding("up", "cursor(-1)", "Up", show=False, id="composer.up"),
        Binding("down", "cursor(1)", "Down", show=False, id="composer.down"),
        Binding("k", "cursor(-1)", "Up", show=False, id="composer.up_vim"),
        Binding("j", "cursor(1)", "Down", show=False, id="composer.down_vim"),
        Binding("home", "first", "First", show=False, id="composer.first"),
        Binding("end", "last", "Last", show=False, id="composer.last"),
        Binding("g", "first", "First", show=False, id="composer.first_vim"),
        Binding("G", "last", "Last", show=False, id="composer.last_vim"),
        Binding("pageup", "page(-1)", "Page up", show=False, id="composer.page_up"),
        Binding("pagedown", "page(1)", "Page down", show=False, id="composer.page_down"),
    ]

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "finding-list--group", "finding-list--muted", "finding-list--note", "finding-list--cursor",
        "finding-list--approved", "finding-list--rejected", "finding-list--edited", "finding-list--undecided",
        "finding-list--conflicting", "finding-list--checked", "finding-list--verified", "finding-list--own",
        "finding-list--left-out", "finding-list--model",
    }

    # What the list needs to be usable anywhere (a visible cursor, no x-scrolling); its place
    # and frame in the composer are in styles/composer.tcss.
    DEFAULT_CSS = """
    FindingList {
        overflow-x: hidden;
        overflow-y: auto;
        scrollbar-size-vertical: 1;
        & > .finding-list--group { color: $text-accent; text-style: bold; }
        & > .finding-list--muted { color: $foreground-muted; }
        & > .finding-list--note { color: $foreground-muted; text-style: italic; }
        & > .finding-list--cursor {
            color: $block-cursor-blurred-foreground;
            background: $block-cursor-blurred-background;
        }
        &:focus > .finding-list--cursor {
            color: $block-cursor-foreground;
            background: $block-cursor-background;
        }
        & > .finding-list--approved { color: $text-success; text-style: bold; }
        & > .finding-list--edited { color: $text-accent; text-style: bold; }
        & > .finding-list--rejected { color: $text-error; text-style: bold; }
        & > .finding-list--undecided { color: $foreground-muted; }
        & > .finding-list--conflicting { color: $text-warning; }
        & > .finding-list--checked { color: $text-success; }
        & > .finding-list--verified { color: $text-primary; }
        & > .finding-list--own { color: $text-secondary; }
        & > .finding-list--left-out { color: $text-warning; text-style: bold; }
        & > .finding-list--model { color: $text-secondary; text-style: italic; }
    }
    """

    @dataclass
    class FindingHighlighted(ListMessage):
        """The cursor moved to another finding."""

        item: DraftItem

    @dataclass
    class DraftChanged(ListMessage):
        """A finding was approved, rejected, edited, retyped, moved or added: the brief changed."""

    @dataclass
    class EditRequested(ListMessage):
        """`e` on a finding: the screen asks for new text and hands it to `set_text`."""

        item: DraftItem

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.draft = Draft()
        self._order: list[DraftItem] = []  # the draft's findings in display order
        self._lines: list[_Line] = []
        self._first_line: dict[str, int] = {}  # item id -> its first line
        self._index: dict[str, int] = {}  # item id -> its index in _order (the cursor's)
        self._notes: list[str] = ["Type the task above and press enter."]
        self.left_out: frozenset[str] = frozenset()  # ids of approved findings the budget leaves out

    # -- public API ---------------------------------------------------------------------------
    @property
    def highlighted(self) -> DraftItem | None:
        return self._order[self._cursor] if self._order else None

    @property
    def items(self) -> list[DraftItem]:
        """The findings in the order shown (and briefed)."""
        return list(self._order)

    @property
    def approved_findings(self) -> list[Finding]:
        return self.draft.approved()

    def set_left_out(self, ids: Iterable[str]) -> None:
        """The approved findings the brief's token budget left out (marked in the list)."""
        ids = frozenset(ids)
        if ids != self.left_out:
            self.left_out = ids
            self._reset(len(self._lines))  # every cached line forgotten
            self.refresh()

    def is_left_out(self, item: DraftItem) -> bool:
        return item.state == APPROVED and item.finding.id in self.left_out

    def set_notes(self, notes: Iterable[str]) -> None:
        """What the list says while it has no findings (searching, or why none were found)."""
        self._notes = [printable(n) for n in notes]
        self._rebuild(keep=self.highlighted)

    def set_findings(self, findings: Iterable[Finding]) -> None:
        """New candidates; decisions on findings found again are kept (see `Draft.load`)."""
        keep = self.highlighted
        self.draft.load(findings)
        self._rebuild(keep=keep, announce=True)
        self.post_message(self.DraftChanged(self))

    def add(self, finding: Finding) -> bool:
        """Add a finding of the user's own (approved) and put the cursor on it; False when the
        same entry was added before (the cursor goes to that one)."""
        item = self.draft.add(finding)
        self._rebuild(keep=item or self.draft.get(finding.id), announce=True)
        if item is not None:
            self.post_message(self.DraftChanged(self))
        return item is not None

    def set_text(self, item_id: str, text: str) -> None:
        """The user's words for a finding (approving it)."""
        item = self.draft.get(item_id)
        if item is not None:
            self.draft.set_text(item, text)
            self._rebuild(keep=item)
            self.post_message(self.DraftChanged(self))

    def move_cursor_to(self, item_id: str) -> None:
        item = self.draft.get(item_id)
        if item is not None:
            self._move(self._index[item.id])

    # -- actions ------------------------------------------------------------------------------
    def _decide(self, state: str) -> None:
        item = self.highlighted
        if item is None:
            return
        if item.state == state:  # the same key again takes the decision back
            self.draft.set_state(item, UNDECIDED)
            self._rebuild(keep=item)
        else:
            self.draft.set_state(item, state)
            self._rebuild(keep=item)
            self._move(self._cursor + 1)
        self.post_message(self.DraftChanged(self))

    def action_approve(self) -> None:
        self._decide(APPROVED)

    def action_reject(self) -> None:
        self._decide(REJECTED)

    def action_edit(self) -> None:
        if self.highlighted is not None:
            self.post_message(self.EditRequested(self, self.highlighted))

    def action_cycle_type(self) -> None:
        item = self.highlighted
        if item is None:
            return
        new = self.draft.cycle_type(item)
        self._rebuild(keep=item)
        self.notify(f"now {LABELS[new].lower()}", timeout=2)
        self.post_message(self.DraftChanged(self))

    def action_move(self, step: int) -> None:
        item = self.highlighted
        if item is not None and self.draft.move(item, step):
            self._rebuild(keep=item)
            self.post_message(self.DraftChanged(self))

    def action_first(self) -> None:
        self._move(0)  # (the first finding's heading is the top)

    def action_page(self, direction: int) -> None:
        self._move(self._cursor + direction * max(1, self.scrollable_content_region.height // 3))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("approve", "reject", "edit", "cycle_type", "move"):
            return True if self._order else None  # shown dimmed while there is nothing to act on
        return True

    # -- layout -------------------------------------------------------------------------------
    def _rebuild(self, *, keep: DraftItem | None, announce: bool = False) -> None:
        before = self.highlighted
        had = bool(self._order)
        self._order = self.draft.ordered()
        self._index = {item.id: i for i, item in enumerate(self._order)}
        lines: list[_Line] = []
        self._first_line = {}
        for t, members in self.draft.groups():
            if lines:
                lines.append(_Line("blank"))
            lines.append(_Line("group", label=f"{LABELS[t]} · {len(members)}"))
            for item in members:
                self._first_line[item.id] = len(lines)
                lines += [_Line("text", item), _Line("facts", item)]
        if not self._order:
            lines = [_Line("note", label=n) for n in self._notes]
        self._lines = lines
        self._reset(len(lines))
        index = self._order.index(keep) if keep is not None and keep in self._order else min(
            self._cursor, max(0, len(self._order) - 1))
        self._cursor = index
        self._scroll_to_cursor()
        self.refresh()
        if had != bool(self._order):  # (`check_action` depends on that alone; a refresh of the
            self.refresh_bindings()   # bindings rebuilds Textual's footer: once a key press before)
        if self._order and (announce or self.highlighted is not before):
            self.post_message(self.FindingHighlighted(self, self._order[self._cursor]))

    # -- the list's items ---------------------------------------------------------------------
    def _item_count(self) -> int:
        return len(self._order)

    def _line_count(self) -> int:
        return len(self._lines)

    def _line_of(self, index: int) -> int:
        return self._first_line[self._order[index].id]

    def _item_of_line(self, line: int) -> int | None:
        item = self._lines[line].item
        return self._index[item.id] if item is not None else None

    def _highlighted(self, index: int) -> None:
        self.post_message(self.FindingHighlighted(self, self._order[index]))

    def _scroll_to_cursor(self) -> None:
        item = self.highlighted
        if item is None:
            return
        first = self._first_line[item.id]
        # The group's heading stays in view with its first finding.
        top = first - 1 if first >= 1 and self._lines[first - 1].kind == "group" else first
        height = max(1, self.scrollable_content_region.height)
        if top < self.scroll_y:
            self.scroll_to(y=top, animate=False)
        elif first + 2 > self.scroll_y + height:
            self.scroll_to(y=first + 2 - height, animate=False)

    # -- rendering ----------------------------------------------------------------------------
    def _render_line(self, index: int, width: int, cursor: bool, hover: bool) -> Strip:
        return self._render(self._lines[index], width, cursor)

    def _render(self, line: _Line, width: int, cursor: bool) -> Strip:
        text = Text(no_wrap=True, end="")
        if line.kind == "group":
            text.append(" " + line.label, self._style("finding-list--group"))
        elif line.kind == "note":
            text.append(" " + line.label, self._style("finding-list--note"))
        elif line.kind == "text" and line.item is not None:
            text = self._text_line(line.item, cursor)
        elif line.kind == "facts" and line.item is not None:
            text = self._facts_line(line.item, cursor)
        return self._strip(text, width, self.get_component_rich_style("finding-list--cursor") if cursor else None)

    def _text_line(self, item: DraftItem, cursor: bool) -> Text:
        state = item.state
        mark_style = "finding-list--edited" if item.edited and state == APPROVED else f"finding-list--{state}"
        mark = "✎" if item.edited and state == APPROVED else _MARKS[state]
        if self.is_left_out(item):
            mark_style = "finding-list--left-out"
        text = Text(" ", no_wrap=True, end="")
        text.append(mark, Style() if cursor and state == UNDECIDED else self._style(mark_style))
        body = Style(strike=True) if state == REJECTED else Style()
        if state == REJECTED and not cursor:
            body += self._style("finding-list--muted")
        text.append(" " + mask_text(one_line(item.finding.text)), body)
        return text

    def _facts_line(self, item: DraftItem, cursor: bool) -> Text:
        f = item.finding
        muted = Style() if cursor else self._style("finding-list--muted")
        text = Text("   ", no_wrap=True, end="")
        if self.is_left_out(item):
            text.append(LEFT_OUT, Style() if cursor else self._style("finding-list--left-out"))
            text.append(" · ", muted)
        if proposed(f):
            text.append(PROPOSED, Style() if cursor else self._style("finding-list--model"))
            text.append(" · ", muted)
        if item.own:
            text.append("yours", Style() if cursor else self._style("finding-list--own"))
            text.append(" · ", muted)
        evidence = _EVIDENCE_STYLE.get(f.evidence)
        text.append(f.evidence, Style() if cursor or evidence is None else self._style(evidence))
        date = f.date.date().isoformat() if f.date else "undated"
        facts = [f.attribution, date, f.source.agent, f.source.session_id[:8]]
        if f.conflicts:
            facts.insert(0, f"{len(f.conflicts)} conflicting")
        text.append(" · " + " · ".join(one_line(x) for x in facts), muted)
        return text
