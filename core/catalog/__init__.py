"""The catalog of sessions across roots: the SQLite store and the `Library` the CLI and app share.

May import: core's foundation modules and core.read (not core.memory, beside it).
"""
