"""`orjson` for a module that may not need it in a process: imported when it is first used.

Why: orjson's import pulls json, uuid and platform (~11M instructions, ~4% of a warm
`sessionscope search`), and a warm search parses only a few small documents, which the modules on
its path read with the standard library's json. The modules that also parse large documents (the
catalog's rows, the snapshot's keys) keep orjson for those, through `orjson` here: the real module,
imported at the first attribute asked of it (its attributes then copied here, so that later
lookups are plain ones). Catch `json.JSONDecodeError` (orjson's is a subclass of it) or
`ValueError` rather than `orjson.JSONDecodeError`, so that an except clause imports nothing.
"""
from __future__ import annotations

import json
from typing import Any


class OnUse:
    """A module imported when an attribute of it is first asked for."""

    def __init__(self, name: str) -> None:
        self.__dict__["_OnUse__name"] = name

    def __getattr__(self, attr: str) -> Any:
        module = __import__(self.__name)
        self.__dict__.update(vars(module))
        return getattr(module, attr)


orjson: Any = OnUse("orjson")


def compact_json(obj: Any) -> str:
    """`obj` as compact JSON, by the standard library (no orjson import): for the small documents
    a warm command writes and compares (a snapshot's signature, the index's synced note, its
    settings and verified checksums), one way for all of them."""
    return json.dumps(obj, separators=(",", ":"))
