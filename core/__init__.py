"""The core library: everything sessionscope knows about agent history, without a screen.

Never imports textual or rich (tests/core/test_layering.py checks). Its subpackages, lowest first;
each may import the ones before it and the foundation modules beside this file, never one after:

    model, text, config, format, secrets   foundation: data types, text hygiene, settings
    read/      reading transcripts: JSONL reader, adapters, quick listing, transcript model
    catalog/   the catalog of sessions across roots (SQLite store + the Library object)
    search/    full-text index, query language, scanning search
    live/      watching the roots: new sessions, growing files, the index kept current
    memory/    memory notes and each agent's own memory files
    brief/     retrieval within a budget, findings, the brief and the model assist
    demo/      the built-in demo corpus (templates in package data, a small generator)
"""
