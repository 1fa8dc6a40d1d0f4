"""Widgets of the app, one public widget per module."""
