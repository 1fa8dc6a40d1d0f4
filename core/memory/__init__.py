"""Memory: a project's memory notes (read, save, load-last, migration) and each agent's memory files.

May import: core's foundation modules and core.read (not core.catalog, beside it).
"""
