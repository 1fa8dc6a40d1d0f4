"""The core library: everything sessionscope knows about agent history, without a screen.

Never imports textual or rich, the app (tui) or the command line (cli). Its layers, lowest first;
each imports only the layers below it, and modules side by side in a layer never import each
other (pyproject.toml's import-linter contracts say the same; tests/core/test_layering.py runs
them):

    model, text, config, format, secrets, records   foundation: data types, text hygiene, settings,
                                                    `record` (a dataclass cheaper to define)
    read/      reading transcripts: JSONL reader, adapters, quick listing, transcript model
    catalog/   the catalog of sessions across roots (SQLite store + the Library object)
    memory/      beside catalog/: memory notes and each agent's own memory files
    archive      beside catalog/: `sessionscope archive`, the agents' session files kept in a
                 folder that is read back as more roots (hard links, else compressed copies)
    search/    full-text index, query language, scanning search
    live/      watching the roots: new sessions, growing files, the index kept current
    brief/       beside live/: retrieval within a budget, findings, the brief and the model assist
    demo         beside live/ and brief/: the built-in demo corpus
    export/      beside them: a session to Markdown, HTML or JSON
    bookmarks/   beside them: bookmarks and notes on entries and sessions (SQLite in the data folder)
    stats/       beside them: activity, tokens and cost per day (the usage pictures)
    logs/      the session-logs tool contract (list, read, search, recent) shared by the CLI's
               --json and the MCP server; above brief/ (the caller's project is scoped as the
               brief's retrieval scopes it)
"""
