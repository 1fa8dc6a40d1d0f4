"""The core library: everything sessionscope knows about agent history, without a screen.

Never imports textual or rich, the app (tui) or the command line (cli). Its layers, lowest first;
each imports only the layers below it, and modules side by side in a layer never import each
other (pyproject.toml's import-linter contracts say the same; tests/core/test_layering.py runs
them):

    model, text, config, format, secrets, records   foundation: data types, text hygiene, settings,
                                                    `record` (a dataclass cheaper to define)
    read/      reading transcripts: JSONL reader, adapters, quick listing, transcript model
    catalog/   the catalog of sessions across roots (SQLite store + the Library object)
    memory/      beside catalog/: memory notes and each agent's own memory files
    archive      beside catalog/: `sessionscope archive`, the agents' session files kept in a
                 folder that is read back as more roots (hard links, else compressed copies)
    search/    full-text index, query language, scanning search
    live/      watching the roots: new sessions, growing files, the index kept current
    brief/       beside live/: retrieval within a budget, findings, the brief and the model assist
    demo         beside live/ and brief/: the built-in demo corpus
    export/      beside them: a session to Markdown, HTML or JSON
    bookmarks/   beside them: bookmarks and notes on entries and sessions (SQLite in the data folder)
    stats/       beside them: activity, tokens and cost per day (the usage pictures)
    logs/      the session-logs tool contract (list, read, search, recent) shared by the CLI's
               --json and the MCP server; above brief/ (the caller's project is scoped as the
               brief's retrieval scopes it)
"""
from __future__ import annotations

import sys
from types import ModuleType
from typing import Any


class _InspectOnUse(ModuleType):
    """What `dataclasses` sees as `inspect` when the core imports it first (below): the real
    module, imported when an attribute of it is first asked for.

    Why: `dataclasses` imports `inspect` (and with it ast, dis, tokenize, ...: ~6 ms of every
    command, ~250 KB of source compiled where bytecode cannot be written) only to write the
    docstring of a class that has none, from `inspect.signature`; `record` (records.py) gives
    such a class its docstring itself, so a command that defines records never needs it. Here,
    before any module of the core imports `dataclasses`."""

    def __getattr__(self, name: str) -> Any:
        import inspect

        return getattr(inspect, name)


if "dataclasses" not in sys.modules and "inspect" not in sys.modules:
    sys.modules["inspect"] = _InspectOnUse("inspect")
    try:
        import dataclasses  # noqa: F401
    finally:
        del sys.modules["inspect"]  # (an `import inspect` from now on imports the real one)


def _quote_from_bytes(*args: Any, **kwargs: Any) -> Any:
    """`urllib.parse.quote_from_bytes`, imported when first called (pathlib's `as_uri`)."""
    from urllib.parse import quote_from_bytes

    return quote_from_bytes(*args, **kwargs)


class _ParseOnUse(ModuleType):
    """What `pathlib` sees as `urllib.parse` when the core imports it first (below): its one
    function pathlib takes (`quote_from_bytes`, for `Path.as_uri`) calls the real one, anything
    else asked of it imports the real module.

    Why: `pathlib` imports `urllib.parse` (and with it `ipaddress`: ~150 KB of bytecode, ~3% of a
    warm `sessionscope search`'s instructions) for `as_uri` alone, which a command rarely calls."""

    quote_from_bytes = staticmethod(_quote_from_bytes)

    def __getattr__(self, name: str) -> Any:
        import urllib.parse

        return getattr(urllib.parse, name)


if "pathlib" not in sys.modules and "urllib.parse" not in sys.modules:
    sys.modules["urllib.parse"] = _ParseOnUse("urllib.parse")
    try:
        import pathlib  # noqa: F401
    finally:
        del sys.modules["urllib.parse"]  # (an `import urllib.parse` from now on imports the real one)
