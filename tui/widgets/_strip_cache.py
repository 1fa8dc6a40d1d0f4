"""The transcript view's cache of rendered items: their strips by item index, bounded by lines."""
from __future__ import annotations

from collections import OrderedDict

from textual.strip import Strip


class StripCache:
    """Rendered items by index, bounded by their total number of lines."""

    def __init__(self, max_lines: int) -> None:
        self.max_lines = max_lines
        self._items: OrderedDict[int, tuple[tuple[int, bool], list[Strip]]] = OrderedDict()
        self._lines = 0

    def get(self, index: int, key: tuple[int, bool]) -> list[Strip] | None:
        found = self._items.get(index)
        if found is None or found[0] != key:
            return None
        self._items.move_to_end(index)
        return found[1]

    def put(self, index: int, key: tuple[int, bool], strips: list[Strip]) -> None:
        self.discard(index)
        self._items[index] = (key, strips)
        self._lines += len(strips)
        while self._lines > self.max_lines and len(self._items) > 1:
            _, (_, old) = self._items.popitem(last=False)
            self._lines -= len(old)

    def discard(self, index: int) -> None:
        found = self._items.pop(index, None)
        if found is not None:
            self._lines -= len(found[1])

    def clear(self) -> None:
        self._items.clear()
        self._lines = 0
