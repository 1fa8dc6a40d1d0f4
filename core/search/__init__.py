"""Search: the embedded full-text index (tantivy), the query language and the scanning search.

May import: core's foundation modules, core.read and core.catalog.
"""
