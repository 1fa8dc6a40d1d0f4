"""Fixtures for the app's tests (the factory itself lives in tests/app_factory.py)."""
from __future__ import annotations

from pathlib import Path

import pytest
from app_factory import warm_app

from sessionscope.tui.app import SessionScopeApp


@pytest.fixture
def demo_app(tmp_path: Path) -> SessionScopeApp:
    return warm_app(tmp_path)
