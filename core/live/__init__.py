"""Live updates: watching every root so new sessions appear, growing files are followed and the index stays current.

May import: the layers below it: core's foundation modules, core.read, core.catalog, core.memory
and core.search (not core.brief or core.demo, beside it).
"""
