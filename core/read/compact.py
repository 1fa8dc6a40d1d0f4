"""A streamed (big) transcript held as compact arrays, its items read from the file when needed.

Why: a 1 GB transcript has ~200k items; as `Item` objects holding their (slimmed) entries they took
~2.6 KB each, ~500 MB. Here each item keeps only what the view needs to place and draw it without
its text (its kind, role and branch flags, the local day, the length and newlines of its texts
for a height guess) and where its entries are in the file (line offset and number, the entry's
place among those its line gives, its id), ~100 bytes an item. An item is read again from its
line(s) with a fresh parser when it scrolls into view, is expanded, copied or searched; at most
`ITEMS_HELD` items read that way are kept (least recently used dropped first), and subagent calls
(a few, matched to their child sessions together) are kept whole.

Entry ids are kept exactly (one bytes blob, `\\xff`-separated: a byte UTF-8 never holds), so a
fresh parse of a line that names its entries otherwise (a format numbering ids through the file)
still shows the stream's ids; a tool result's tool name, which a parser learns from the call's
line, is taken from the call.

Find (`hits`) searches the file, not memory: each line whose bytes hold the query's longest run
of letters, digits and `_` (ASCII-lowered; or a character that folds to ASCII letters, written
raw or as a JSON escape) is read again and its items' whole texts checked, so hits are those of
a whole read. The rule assumes what every JSON writer does: letters and digits written as
themselves. A word that only the adapter makes up (a media placeholder's size) is not in the
file and is found only when the query also holds a word that is.
"""
from __future__ import annotations

import re
from array import array
from bisect import bisect_left
from collections import OrderedDict
from dataclasses import replace
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Sequence

from .jsonl import ReaderError, RecordFile, parse_line
from .loading import slim
from .subagents import SubagentCalls
from .transcript import (
    COLLAPSIBLE,
    SUBAGENT_TOOLS,
    Display,
    Item,
    Shape,
    Transcript,
    day_ordinal,
    display_of,
    is_off_branch,
    is_shown,
    shape_of,
)
from ..model import Entry, EntryKind, Locator

if TYPE_CHECKING:
    from .adapters.base import Adapter

#: items read again from the file that are kept (least recently used dropped first)
ITEMS_HELD = 256

_DISPLAYS = list(Display)
_CODE = {d: k for k, d in enumerate(_DISPLAYS)}
_SEP = b"\xff"  # between entry ids in the blob (never in UTF-8)
_MAX = (1 << 31) - 1  # (text lengths kept in 32 bits: a height guess needs no more)

# flags of an item
_USER, _ASSISTANT, _OFF, _CUT, _RCUT, _RERR, _ERR = 1, 2, 4, 8, 16, 32, 64

#: characters that case-fold to ASCII letters (K, the long s, ligatures, ...): a line holding
#: one (raw or as a JSON \\u escape) may match an ASCII query (tests check the list is whole)
FOLDS_TO_ASCII = "\u00df\u0130\u0149\u017f\u01f0\u1e96\u1e97\u1e98\u1e99\u1e9a\u1e9e\u212a" \
                 "\ufb00\ufb01\ufb02\ufb03\ufb04\ufb05\ufb06"
_FOLDING = re.compile(b"|".join(
    [re.escape(c.encode()) for c in FOLDS_TO_ASCII]
    + [rb"\\u" + b"".join(b"[" + ch.lower().encode() + ch.upper().encode() + b"]" for ch in f"{ord(c):04x}")
       for c in FOLDS_TO_ASCII]))
_FOLD_RAW = [c.encode() for c in FOLDS_TO_ASCII]
_ASCII = bytes(range(128))
_WORD = re.compile(r"[a-z0-9_]+")
_CHUNK = 1 << 20


class _Items(Sequence[Item]):
    """`model.items` of a compact transcript: each item read when asked for."""

    def __init__(self, model: CompactTranscript) -> None:
        self._model = model

    def __len__(self) -> int:
        return len(self._model)

    def __getitem__(self, index):  # type: ignore[override]  # noqa: ANN001, ANN204
        if isinstance(index, slice):
            return [self._model.item(i) for i in range(*index.indices(len(self)))]
        n = len(self)
        if index < 0:
            index += n
        if not 0 <= index < n:
            raise IndexError(index)
        return self._model.item(index)

    def __iter__(self) -> Iterator[Item]:
        for i in range(len(self)):
            yield self._model.item(i)


class CompactTranscript(Transcript):
    """A streamed file's transcript (see the module docstring); the same answers as `Transcript`."""

    def __init__(self, project: str | None, path: str, adapter: Adapter, *, skip_sidechains: bool) -> None:
        super().__init__(project)
        self.path = path
        self.adapter = adapter
        self.skip_sidechains = skip_sidechains
        self.items = _Items(self)  # type: ignore[assignment]
        # per entry an item shows (a call, its result, each line of a split reply)
        self._e_off = array("q")
        self._e_line = array("i")
        self._e_pos = array("i")  # its place among the entries its line gives
        self._e_item = array("i")
        self._e_model = array("H")  # its model, by number in `_models` (one the line may not say)
        self._models: dict[str | None, int] = {None: 0}
        self._ids = bytearray(_SEP)
        self._id_start = array("q")
        # per item
        self._disp = bytearray()
        self._flags = bytearray()
        self._entry = array("i")  # its first entry
        self._result = array("i")  # its result's entry, -1 for none
        self._day = array("i")
        self._chars = array("i")
        self._nl = array("i")
        self._rchars = array("i")
        self._rnl = array("i")
        self._parts: dict[int, list[int]] = {}  # a split reply: its entries after the first
        self._last_message: tuple[str, str] | None = None  # (message id, role) of the last item
        self._names: list[str | None] = [None]  # `_models` by number
        self._pinned: dict[int, Item] = {}  # subagent calls, kept whole
        self._held: OrderedDict[int, Item] = OrderedDict()
        self._line_off = -1  # the line the last entry added came from, and how many it gave
        self._line_count = 0

    def __len__(self) -> int:
        return len(self._disp)

    # -- adding -----------------------------------------------------------------------------------
    def add(self, entries: list[Entry], cut: frozenset[str] = frozenset()) -> set[int]:
        changed: set[int] = set()
        for e in entries:
            off = e.locator.offset
            if off != self._line_off:
                self._line_off, self._line_count = off, 0
            pos = self._line_count
            self._line_count += 1
            if not is_shown(e):
                continue
            k = self._add_entry(e, pos)
            was_cut = e.id in cut
            display = display_of(e)
            n = len(self._disp)
            if display is Display.RESULT and e.tool_use_id and e.tool_use_id in self._calls:
                i = self._calls.pop(e.tool_use_id)
                if self._result[i] < 0:
                    self._fold_result(i, k, e, was_cut)
                    changed.add(i)
                    continue
            off_branch = is_off_branch(e)
            last = self._last_message
            if (display is Display.MESSAGE and n and last is not None and e.message_id
                    and last == (e.message_id, e.role) and bool(self._flags[n - 1] & _OFF) == off_branch):
                self._grow_reply(n - 1, k, e, was_cut)
                changed.add(n - 1)
                continue
            self._new_item(k, e, display, was_cut, off_branch)
        return changed

    def _add_entry(self, e: Entry, pos: int) -> int:
        k = len(self._e_off)
        self._e_off.append(e.locator.offset)
        self._e_line.append(e.locator.line)
        self._e_pos.append(pos)
        self._e_item.append(len(self._disp))  # (set again when it joins an earlier item)
        self._e_model.append(self._models.setdefault(e.model, len(self._models)))
        self._id_start.append(len(self._ids))
        self._ids += _id_bytes(e.id) + _SEP
        return k

    def _new_item(self, k: int, e: Entry, display: Display, was_cut: bool, off_branch: bool) -> None:
        i = len(self._disp)
        self._disp.append(_CODE[display])
        flags = (_USER if e.role == "user" else _ASSISTANT if e.role == "assistant" else 0)
        flags |= (_OFF if off_branch else 0) | (_CUT if was_cut else 0) | (_ERR if e.is_error else 0)
        self._flags.append(flags)
        self._entry.append(k)
        self._result.append(-1)
        self._day.append(day_ordinal(e.timestamp))
        item = Item(e, display, cut=was_cut, off_branch=off_branch)
        shape = shape_of(item)
        self._chars.append(min(shape.chars, _MAX))
        self._nl.append(min(shape.newlines, _MAX))
        self._rchars.append(-1)
        self._rnl.append(0)
        self._off_branch += off_branch
        self._last_message = (e.message_id, e.role) if display is Display.MESSAGE and e.message_id else None
        if display is Display.TOOL:
            if e.tool_use_id:
                self._calls[e.tool_use_id] = i
            if e.tool_name in SUBAGENT_TOOLS:
                item.subagent_order = len(self._subagents.items)
                item.subagent_group = self._subagents
                self._subagents.items.append(item)
                self._pinned[i] = item
        self._hold(i, item)

    def _fold_result(self, i: int, k: int, e: Entry, was_cut: bool) -> None:
        self._e_item[k] = i
        self._result[i] = k
        self._flags[i] |= (_RCUT if was_cut else 0) | (_RERR if e.is_error else 0)
        self._rchars[i] = min(len(e.text), _MAX)
        self._rnl[i] = min(e.text.count("\n"), _MAX)
        call = self._pinned.get(i) or self._held.get(i)
        if call is not None:
            call.result, call.result_cut = _named_result(e, call.entry), was_cut
        if i in self._read_again:  # (going back to its slimmed call, it keeps this)
            self._read_again[i] = (*self._read_again[i][:2], e, was_cut)

    def _grow_reply(self, i: int, k: int, e: Entry, was_cut: bool) -> None:
        self._e_item[k] = i
        self._parts.setdefault(i, []).append(k)
        self._chars[i] = min(_MAX, self._chars[i] + 2 + len(e.text))
        self._nl[i] = min(_MAX, self._nl[i] + 2 + e.text.count("\n"))
        if was_cut:
            self._flags[i] |= _CUT
        self._read_again.pop(i, None)  # (it keeps what it holds now)
        held = self._held.get(i)
        if held is not None:
            held.entry = replace(held.entry, text=f"{held.entry.text}\n\n{e.text}")
            held.cut = held.cut or was_cut

    # -- what the view asks of every item ---------------------------------------------------------
    def display(self, index: int) -> Display:
        return _DISPLAYS[self._disp[index]]

    def collapsible(self, index: int) -> bool:
        return _DISPLAYS[self._disp[index]] in COLLAPSIBLE

    def off_branch(self, index: int) -> bool:
        return bool(self._flags[index] & _OFF)

    def is_user_turn(self, index: int) -> bool:
        return _DISPLAYS[self._disp[index]] is Display.MESSAGE and bool(self._flags[index] & _USER)

    def day(self, index: int) -> int:
        return self._day[index]

    def shape(self, index: int) -> Shape:
        if index in self._read_again:  # (held in full: its texts as they are now)
            return shape_of(self.item(index))
        return Shape(self._chars[index], self._nl[index], self._rchars[index], self._rnl[index])

    def index_of(self, entry_id: str) -> int | None:
        at = self._ids.rfind(_SEP + _id_bytes(entry_id) + _SEP)  # (the last entry of that id, as a dict keeps)
        if at < 0:
            return None
        return self._e_item[bisect_left(self._id_start, at + 1)]

    def entry_id(self, k: int) -> str:
        start = self._id_start[k]
        end = self._ids.index(_SEP, start)
        return self._ids[start:end].decode("utf-8", "surrogatepass")

    def mark_off_branch(self, entry_ids: Iterable[str]) -> list[int]:
        wanted = {_id_bytes(e) for e in entry_ids}
        ids, starts = self._ids, self._id_start

        def own_id(k: int) -> bytes:
            return bytes(ids[starts[k]:ids.index(_SEP, starts[k])])

        return self._mark(lambda k: own_id(k) in wanted) if wanted else []

    def mark_off_branch_lines(self, lines: Iterable[int]) -> list[int]:
        lines = set(lines)
        return self._mark(lambda k: self._e_line[k] in lines) if lines else []

    def _mark(self, off: Callable[[int], bool]) -> list[int]:
        """Mark off the active branch the items whose own entry (its number) is `off`."""
        changed = []
        for i in range(len(self._disp)):
            if self._flags[i] & _OFF or not off(self._entry[i]):
                continue
            self._flags[i] |= _OFF
            self._off_branch += 1
            changed.append(i)
            held = self._held.get(i) or self._pinned.get(i)
            if held is not None:
                held.off_branch = True
        return changed

    # -- items read again -------------------------------------------------------------------------
    def item(self, index: int) -> Item:
        """Item `index`, from those held or read again from the file (slimmed, as streamed)."""
        pinned = self._pinned.get(index)
        if pinned is not None:
            return pinned
        held = self._held.get(index)
        if held is not None:
            self._held.move_to_end(index)
            return held
        item = self._read_item(index, full=False)
        self._hold(index, item)
        return item

    def _hold(self, index: int, item: Item) -> None:
        if index in self._pinned:
            return
        held = self._held
        held[index] = item
        held.move_to_end(index)
        while len(held) > ITEMS_HELD:
            old = next(iter(held))
            if old not in self._read_again and old != index:
                del held[old]
                continue
            # (the oldest holds what was read again in full: kept until `update` lets it go)
            spare = [i for i in held if i not in self._read_again and i != index]
            for i in spare[:len(held) - ITEMS_HELD]:
                del held[i]
            break

    def _read_item(self, index: int, *, full: bool) -> Item:
        numbers = [self._entry[index], *self._parts.get(index, ())]
        r = self._result[index]
        read = self._read_entries(numbers + ([r] if r >= 0 else []))
        flags = self._flags[index]
        display = self.display(index)
        parts = []
        cut = False
        for k in numbers:
            e = read.get(k) or self._unreadable(k, display)
            if not full:
                e, c = slim(e)
                cut = cut or c
            parts.append(e)
        entry = parts[0]
        if len(parts) > 1:
            entry = replace(entry, text="\n\n".join(p.text for p in parts))
        item = Item(entry, display, cut=cut, off_branch=bool(flags & _OFF))
        if r >= 0:
            result = read.get(r) or self._unreadable(r, Display.RESULT)
            if not full:
                result, item.result_cut = slim(result)
            item.result = _named_result(result, entry)
        return item

    def _unreadable(self, k: int, display: Display) -> Entry:
        """An entry whose line no longer says what it said when streamed (rewritten, cut)."""
        return Entry(id=self.entry_id(k), role="system", kind=EntryKind.UNKNOWN,
                     text="(this entry could not be read again from the file)",
                     locator=Locator(self.path, self._e_off[k], self._e_line[k]), raw_type="unreadable")

    def _read_entries(self, numbers: list[int]) -> dict[int, Entry]:
        """Entries (by number) read again from their lines, with the ids the stream gave them."""
        out: dict[int, Entry] = {}
        try:
            rf = RecordFile(self.path)
        except (ReaderError, OSError):
            return out
        with rf:
            lines: dict[int, list[Entry]] = {}
            for k in numbers:
                off = self._e_off[k]
                fresh = lines.get(off)
                if fresh is None:
                    fresh = lines[off] = self._parse(rf, off, self._e_line[k])
                found = self._pick(fresh, k)
                if found is not None:
                    out[k] = found
        return out

    def _parse(self, rf: RecordFile, offset: int, line: int) -> list[Entry]:
        if offset >= rf.size:
            return []
        parser = self.adapter.parser(self.path)
        parser.settles = False
        parser.threads = False
        try:
            entries = parser.feed(parse_line(rf.line_at_offset(offset, line)))
        except Exception:  # noqa: BLE001 - a line read again must never break the view
            return []
        return [e for e in entries if not (self.skip_sidechains and e.is_sidechain)]

    def _pick(self, fresh: list[Entry], k: int) -> Entry | None:
        """Entry `k` among those its line gives read alone: by its id, else by its place; with
        what the stream knew from earlier lines (its id, its model) where the line does not say."""
        eid = self.entry_id(k)
        found = next((e for e in fresh if e.id == eid), None)
        if found is None:
            pos = self._e_pos[k]
            if pos >= len(fresh):
                return None
            found = replace(fresh[pos], id=eid)
        model = self._model_names()[self._e_model[k]]
        return found if found.model == model else replace(found, model=model)

    def _model_names(self) -> list[str | None]:
        names = self._names
        if len(names) != len(self._models):
            names = self._names = list(self._models)
        return names

    def read_full(self, index: int, adapter: Adapter) -> tuple[Entry | None, Entry | None]:
        flags = self._flags[index]
        if not flags & (_CUT | _RCUT):
            return None, None
        item = self._read_item(index, full=True)
        if item.entry.raw_type == "unreadable":
            return None, None
        return (item.entry if flags & _CUT else None,
                item.result if flags & _RCUT and item.result is not None else None)

    def update(self, index: int, entry: Entry | None = None, result: Entry | None = None) -> list[int]:
        if entry is None and result is None:
            return []
        return super().update(index, entry, result)  # (held while it holds what was read again)

    # -- find ---------------------------------------------------------------------------------------
    def matches(self, query: str, indices: list[int] | None = None) -> list[int]:
        """Item indices of `indices` whose whole text contains `query` (all items: `hits`)."""
        if not query:
            return []
        if indices is None:
            return self.hits(query)
        needle = query.casefold()
        out = []
        for i in indices:
            item = self.item(i)
            if item.cut or item.result_cut:
                item = self._read_item(i, full=True)
            if needle in item.search_text().casefold():
                out.append(i)
        return out

    def hits(self, query: str, cancelled: Callable[[], bool] = lambda: False) -> list[int]:
        """Every item whose whole text holds `query`, from the file (see the module docstring)."""
        if not query or not len(self._disp):
            return []
        needle = query.casefold()
        words = _WORD.findall(needle)
        probe = max(words, key=len).encode() if words else None
        end = self._e_off[-1] + 1 if len(self._e_off) else 0
        candidates = self._candidate_items(probe, end, cancelled) if probe else range(len(self._disp))
        out = []
        for i in candidates:
            if cancelled():
                return []
            item = self._read_item(i, full=True)
            if needle in item.search_text().casefold():
                out.append(i)
        return out

    def _candidate_items(self, probe: bytes, end: int, cancelled: Callable[[], bool]) -> list[int]:
        """Items with an entry on a line (starting before `end`) whose bytes hold `probe`, or a
        character that folds to ASCII letters."""
        found: set[int] = set()
        offs = self._e_off
        try:
            fh = open(self.path, "rb")  # noqa: SIM115
        except OSError:
            return []
        with fh:
            # (a line longer than a chunk is held in pieces, joined once its end is read: a line
            # of 64 MB added to itself a chunk at a time took 2.1 s, the square of its length)
            base, held = 0, []
            while base < end:
                if cancelled():
                    return []
                data = fh.read(_CHUNK)
                nl = data.rfind(b"\n") + 1 if len(data) == _CHUNK else len(data)
                if nl <= 0 and data:
                    held.append(data)
                    continue
                buf = b"".join([*held, data]) if held else data
                if not buf:  # (the end: what was held, the file's last line, was looked at)
                    break
                cut = len(buf) - len(data) + nl
                lines = buf[:cut]
                low = lines.lower()
                spots = _find_all(low, probe)
                if _may_fold(lines):
                    spots += [m.start() for m in _FOLDING.finditer(lines)]
                for start in _line_starts(lines, spots):
                    start += base
                    k = bisect_left(offs, start)
                    while k < len(offs) and offs[k] == start:
                        found.add(self._e_item[k])
                        k += 1
                base += cut
                held = [buf[cut:]] if cut < len(buf) else []
        return sorted(found)


def _find_all(data: bytes, probe: bytes) -> list[int]:
    out, at = [], data.find(probe)
    while at >= 0:
        out.append(at)
        nl = data.find(b"\n", at)
        if nl < 0:
            break
        at = data.find(probe, nl)
    return out


def _line_starts(data: bytes, spots: list[int]) -> list[int]:
    """Where each line of `data` holding one of `spots` starts (`data.rfind(b"\\n", 0, at) + 1`
    for each spot `at`), each line once, in order: each line is scanned once, from its first spot
    back to its start and on to its end (a search from each spot back to its line's start cost
    the square of a long line's length when it held many spots: a line of 320,000 `ß`, 1.6 s)."""
    out, end = [], -1
    for at in sorted(spots):
        if at <= end:  # (on the line just found: its newline at `end` included)
            continue
        out.append(data.rfind(b"\n", 0, at) + 1)
        end = data.find(b"\n", at)
        if end < 0:
            end = len(data)
    return out


def _may_fold(data: bytes) -> bool:
    """Whether `data` may hold a character folding to ASCII letters: a JSON escape, or one of
    them among its non-ASCII bytes (UTF-8 keeps each character's bytes together when the ASCII
    ones are taken out), checked at C speed before a regex walks the chunk."""
    if b"\\u" in data:
        return True
    rest = data.translate(None, _ASCII)
    return bool(rest) and any(f in rest for f in _FOLD_RAW)


def _id_bytes(entry_id: str) -> bytes:
    return entry_id.encode("utf-8", "surrogatepass")


def _named_result(result: Entry, call: Entry) -> Entry:
    """A result read alone from its line does not know its tool's name: the call's."""
    if result.tool_name is None and call.tool_name is not None:
        return replace(result, tool_name=call.tool_name)
    return result


__all__ = ["CompactTranscript", "FOLDS_TO_ASCII", "ITEMS_HELD"]
