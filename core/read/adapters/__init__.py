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


__all__ = ["Adapter", "LoadedSession", "Registry", "default_registry"]
