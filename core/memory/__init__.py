"""Memory: a project's memory notes (read, save, load-last, migration) and each agent's memory files.

    markdown   reading a Markdown file: size cap, frontmatter, sections, list lines
    notes      a session note: its schema, fields, file name, parsing and migration
    save       saving a note: the update merged in, the per-note lock, the atomic replace
    load       finding a project's notes and loading the last one
    imports    the @path imports of instruction files
    agent      the memory items an agent reads (notes, auto-memory, instructions, summaries) and
               the folders they are found in
    places     the names the command line and the app use, in one import

May import: core's foundation modules and core.read (not core.catalog, beside it).
"""
