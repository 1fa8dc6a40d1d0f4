"""Search: the embedded full-text index (tantivy), the query language and the scanning search.

May import: the layers below it: core's foundation modules, core.read, core.catalog and
core.memory (which it has no use for). Inside, a query's path reads top to bottom: index ->
ingest, compile, matching, scan -> vocabulary -> hits, schema, failures, index_check -> query, terms.
"""
