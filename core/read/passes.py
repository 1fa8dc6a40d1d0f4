"""What a pass over many transcripts reads of the file system besides the files themselves, read
once a pass.

A listing asks the same questions of every file of a folder: Gemini CLI's chats, for instance,
look for a `.project_root` marker in their project folder, its `projects.json` registry and the
user's config, three system calls a chat that give the same answer for all of a folder's chats
and cost a Gemini listing a third of what reading the chat itself does. Inside `one_pass()`,
`once(fn, arg)` keeps `fn(arg)` for the rest of the pass; outside one it calls `fn` each time,
so a lone question (the app's live tracker reading one file) always sees the disk as it is.
A pass is short (one listing, one scan's listing): a marker written during it is seen by the
next one.

The pass is the context's (`contextvars`): a thread started during it does not share it."""
from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Callable, Iterator, TypeVar

T = TypeVar("T")

_MEMO: ContextVar[dict[tuple[Any, Any], Any] | None] = ContextVar("sessionscope_pass", default=None)


@contextmanager
def one_pass() -> Iterator[None]:
    """A pass: `once` keeps its answers until it ends (a pass inside a pass is the outer one)."""
    if _MEMO.get() is not None:
        yield
        return
    token = _MEMO.set({})
    try:
        yield
    finally:
        _MEMO.reset(token)


def once(fn: Callable[[Any], T], arg: Any) -> T:
    """`fn(arg)`, kept for the rest of the pass when one is open (`arg` hashable)."""
    memo = _MEMO.get()
    if memo is None:
        return fn(arg)
    key = (fn, arg)
    try:
        return memo[key]  # type: ignore[no-any-return]
    except KeyError:
        value = memo[key] = fn(arg)
        return value


__all__ = ["once", "one_pass"]
