"""Reading transcripts: the JSONL reader, one adapter per format, the quick listing, the transcript model.

May import: the foundation modules of core (model, text, config, format, secrets). Nothing above
it (catalog, search, live, memory, brief) is imported here; a `Library` is only named in type hints.
"""
