"""Briefs: retrieval within a budget, candidate findings and their generators, the brief text, the model assist.

May import: the layers below it: core's foundation modules, core.read, core.catalog, core.memory
and core.search (not core.live or core.demo, beside it).
"""
