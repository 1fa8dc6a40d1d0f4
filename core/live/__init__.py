"""Live updates: watching every root so new sessions appear, growing files are followed and the index stays current.

May import: core's foundation modules, core.read, core.catalog and core.search.
"""
