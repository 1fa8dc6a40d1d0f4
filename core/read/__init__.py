"""Reading transcripts: the JSONL reader, one adapter per format, the quick listing, the transcript model.

May import: the foundation modules of core (model, text, config, format, secrets). Nothing above
it (catalog, memory, search, live, brief, demo) is imported here; a `Library` is only named in type
hints. Inside, imports go one way: listing, discovery, transcript, resume -> adapters -> ends, walk
-> jsonl (the listing and the adapters share `ends`, so neither imports the other).
"""
