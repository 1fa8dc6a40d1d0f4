"""The session-logs tool contract: `list_sessions`, `read_session`, `search` and `recent` as JSON shapes.

One implementation of the shapes agents are promised, shared by the CLI's `--json` and the MCP
server (`sessionscope mcp`): the bounds of every argument, the keys of every answer, which session
is the caller's current one, and the errors saying what is wrong. Each boundary only says how its
text is made safe (the CLI escapes it as JSON; the MCP server masks secrets and makes controls
visible) through the `clean` function it passes; contents are cut after it ran, so an answer is
bounded by `limit` and `max_chars` whatever the text held.

A room of its own because it spans the catalog and the search index and decides the agent's
current session the way the brief's retrieval scopes a project (core.brief.retrieval).

May import: everything else in core (foundation, read, catalog, memory, search, live, brief, demo);
nothing in core imports it (its own layer, the top one, in pyproject.toml's import-linter contract).
"""
