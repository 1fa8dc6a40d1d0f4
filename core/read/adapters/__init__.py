"""One adapter per agent transcript format, behind the small interface in `base`."""
from __future__ import annotations

from .base import Adapter, LoadedSession, Registry


def default_registry() -> Registry:
    """Every built-in adapter, most specific sniffers first."""
    from .aider import AiderAdapter
    from .claude import ClaudeAdapter
    from .codex import CodexAdapter
    from .copilot import CopilotAdapter
    from .gemini import GeminiAdapter
    from .opencode import OpenCodeAdapter
    from .pi import PiAdapter
    from .sessionlogs import SessionLogsAdapter

    return Registry([SessionLogsAdapter(), CopilotAdapter(), PiAdapter(), OpenCodeAdapter(), CodexAdapter(),
                     ClaudeAdapter(), GeminiAdapter(), AiderAdapter()])


#: each built-in adapter's name and where it is (a test holds this equal to `default_registry`)
_BUILT_IN = {"session-logs": ("sessionlogs", "SessionLogsAdapter"), "copilot-cli": ("copilot", "CopilotAdapter"),
             "pi": ("pi", "PiAdapter"), "opencode": ("opencode", "OpenCodeAdapter"),
             "codex": ("codex", "CodexAdapter"), "claude-code": ("claude", "ClaudeAdapter"),
             "gemini-cli": ("gemini", "GeminiAdapter"), "aider": ("aider", "AiderAdapter")}


def default_adapter(name: str) -> Adapter | None:
    """The built-in adapter of this name, importing it alone (showing one session of a known
    format needs no other: importing all of them was a third of `read ID`'s imports)."""
    where = _BUILT_IN.get(name)
    if where is None:
        return None
    import importlib

    return getattr(importlib.import_module(f"{__name__}.{where[0]}"), where[1])()


__all__ = ["Adapter", "LoadedSession", "Registry", "default_adapter", "default_registry"]
