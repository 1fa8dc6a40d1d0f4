"""sessionscope: browse, search and brief from the history AI coding agents leave on disk.

Deliberately imports nothing: `sessionscope --help` and the JSON CLI must start fast.
"""
from __future__ import annotations

__version__ = "0.1.0"
