"""Briefs: retrieval within a budget, candidate findings and their generators, the brief text, the model assist.

May import: core's foundation modules, core.read, core.catalog, core.search and core.memory.
"""
